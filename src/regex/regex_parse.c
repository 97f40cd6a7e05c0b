/* regex_parse.c - ECMA-262 (Unicode mode) pattern -> AST.
 *
 * Nodes live in one growable array; concatenation and alternation are
 * n-ary sibling lists, so recursion depth is bounded by group nesting
 * (RX_MAX_DEPTH). Character classes are normalized (sorted, merged,
 * complemented) into a range pool here; \d \w \s outside classes point at
 * constant tables instead. A \p{..} set is decoded from its compact table
 * (regex_unicode.c) into the pool, once a pattern outside classes and once a
 * class inside them, and a class merges what it collected every
 * RX_MERGE_SLACK ranges or so: the work and memory of a class stay
 * proportional to its pattern bytes and what it keeps, not to the ~900
 * ranges every \p{..} in it could append. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex_ast.h"
#include "regex_unicode.h"

/* ---- errors and memory ------------------------------------------------ */

int rx_fail(rx_parser *p, size_t off, const char *fmt, ...) {
    if (!p->failed) {
        p->failed = 1;
        if (p->err) {
            va_list ap;
            p->err->offset = off;
            va_start(ap, fmt);
            vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

int rx_nomem(rx_parser *p, size_t off) {
    if (!p->failed && p->err) p->err->nomem = 1;
    rx_over(p);
    return rx_fail(p, off, "out of memory");
}

static int grow(rx_parser *p, void **arr, size_t *cap, size_t need, size_t elem) {
    size_t ncap;
    void *n;
    if (need <= *cap) return 0;
    ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    n = tg_realloc(p->al, *arr, *cap * elem, ncap * elem);
    if (!n) return rx_nomem(p, p->pos);
    *arr = n;
    *cap = ncap;
    return 0;
}

static int32_t new_node(rx_parser *p, uint32_t type, uint32_t a) {
    size_t cap = p->capnodes;
    rx_node *n;
    if (grow(p, (void **)&p->nodes, &cap, (size_t)p->nnodes + 1, sizeof(rx_node))) return -1;
    p->capnodes = (uint32_t)cap;
    n = &p->nodes[p->nnodes];
    memset(n, 0, sizeof *n);
    n->type = type;
    n->a = a;
    n->child = -1;
    n->next = -1;
    return (int32_t)p->nnodes++;
}

static int tmp_add(rx_parser *p, uint32_t lo, uint32_t hi) {
    if (grow(p, (void **)&p->tmp, &p->captmp, p->ntmp + 2, sizeof(uint32_t))) return -1;
    if (p->ntmp + 2 > RX_MAX_POOL) return rx_over(p), rx_fail(p, p->pos, "character classes too large");
    p->tmp[p->ntmp++] = lo;
    p->tmp[p->ntmp++] = hi;
    return 0;
}

/* Appends ranges (count pairs), or their complement over U+0000..U+10FFFF. */
static int tmp_add_set(rx_parser *p, const uint32_t *r, uint32_t count, int negate) {
    uint32_t i, next = 0;
    if (!negate) {
        for (i = 0; i < count; i++)
            if (tmp_add(p, r[2 * i], r[2 * i + 1])) return -1;
        return 0;
    }
    for (i = 0; i < count; i++) {
        if (r[2 * i] > next && tmp_add(p, next, r[2 * i] - 1)) return -1;
        next = r[2 * i + 1] + 1;
    }
    if (next <= 0x10FFFF && tmp_add(p, next, 0x10FFFF)) return -1;
    return 0;
}

static int cmp_range(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts and merges tmp[from..], then (optionally) complements it in place. */
static int tmp_normalize(rx_parser *p, size_t from, int negate) {
    size_t n = (p->ntmp - from) / 2, i, o = 0;
    uint32_t *r = n ? p->tmp + from : NULL; /* ([] and [^]: nothing pushed, tmp may still be NULL) */
    if (n > 1) qsort(r, n, 2 * sizeof(uint32_t), cmp_range);
    for (i = 0; i < n; i++) {
        if (o && r[2 * i] <= r[2 * (o - 1) + 1] + 1) {
            if (r[2 * i + 1] > r[2 * (o - 1) + 1]) r[2 * (o - 1) + 1] = r[2 * i + 1];
        } else {
            r[2 * o] = r[2 * i];
            r[2 * o + 1] = r[2 * i + 1];
            o++;
        }
    }
    p->ntmp = from + 2 * o;
    if (negate) {
        /* complement by appending, then moving down */
        size_t end = p->ntmp;
        /* reserve first: tmp_add_set reads tmp while appending to it */
        if (grow(p, (void **)&p->tmp, &p->captmp, end + 2 * (o + 1), sizeof(uint32_t))) return -1;
        if (tmp_add_set(p, p->tmp + from, (uint32_t)o, 1)) return -1;
        memmove(p->tmp + from, p->tmp + end, (p->ntmp - end) * sizeof(uint32_t));
        p->ntmp = from + (p->ntmp - end);
    }
    return 0;
}

/* The refusal of a pattern whose classes would keep n uint32s of ranges. */
static int over_pool(rx_parser *p, size_t n) {
    rx_over(p);
    return rx_fail(p, p->pos, "character classes hold %zu ranges, over the limit of %zu", n / 2, p->max_pool / 2);
}

/* Turns tmp[from..] (normalized) into a class; returns its index. */
static int32_t class_from_tmp(rx_parser *p, size_t from) {
    size_t cap = p->capcls, n = p->ntmp - from;
    rx_cls_build *c;
    if (grow(p, (void **)&p->cls, &cap, (size_t)p->ncls + 1, sizeof(rx_cls_build))) return -1;
    p->capcls = (uint32_t)cap;
    if (p->npool + n > p->max_pool) return over_pool(p, p->npool + n);
    if (grow(p, (void **)&p->pool, &p->cappool, p->npool + n, sizeof(uint32_t))) return -1;
    if (n) memcpy(p->pool + p->npool, p->tmp + from, n * sizeof(uint32_t));
    c = &p->cls[p->ncls];
    c->ext = NULL;
    c->off = (uint32_t)p->npool;
    c->count = (uint32_t)(n / 2);
    c->negate = 0;
    c->uprop = 0;
    p->npool += n;
    p->ntmp = from;
    return (int32_t)p->ncls++;
}

static int32_t class_static(rx_parser *p, const uint32_t *r, uint32_t count, int negate) {
    size_t cap = p->capcls;
    rx_cls_build *c;
    if (grow(p, (void **)&p->cls, &cap, (size_t)p->ncls + 1, sizeof(rx_cls_build))) return -1;
    p->capcls = (uint32_t)cap;
    c = &p->cls[p->ncls];
    c->ext = r;
    c->off = 0;
    c->count = count;
    c->negate = (uint32_t)negate;
    c->uprop = 0;
    return (int32_t)p->ncls++;
}

/* Which set u names (aliases share one), nonzero; negate in the low bit. */
static uint32_t uprop_key(const tg_uprop *u, int negate) {
    return ((uint32_t)u->kind << 17 | (uint32_t)u->set << 1 | (negate ? 1u : 0u)) + 2;
}

/* Appends a Unicode property's set (decoded from its table), or its
 * complement, to tmp (nothing for a syntax check, nor for a set the class
 * under construction holds already: a class of the same \p{..} 600 times
 * decodes it once). */
static int tmp_add_uprop(rx_parser *p, const tg_uprop *u, int negate) {
    size_t n = 2 * (size_t)tg_uprop_count(u), from = p->ntmp, i;
    uint32_t key = uprop_key(u, negate);
    if (p->syntax_only) return 0; /* a syntax check builds no program */
    for (i = 0; i < p->ncprops; i++)
        if (p->cprops[i] == key) return 0;
    if (grow(p, (void **)&p->cprops, &p->capcprops, p->ncprops + 1, sizeof(uint32_t))) return -1;
    p->cprops[p->ncprops++] = key;
    if (p->ntmp + n > RX_MAX_POOL) return rx_over(p), rx_fail(p, p->pos, "character classes too large");
    if (grow(p, (void **)&p->tmp, &p->captmp, p->ntmp + n, sizeof(uint32_t))) return -1;
    tg_uprop_decode(u, p->tmp + from);
    p->ntmp += n;
    return negate ? tmp_normalize(p, from, 1) : 0;
}

/* ---- class escapes ---------------------------------------------------- */

static const uint32_t R_DIGIT[] = {0x30, 0x39};
static const uint32_t R_WORD[] = {0x30, 0x39, 0x41, 0x5A, 0x5F, 0x5F, 0x61, 0x7A};
static const uint32_t R_SPACE[] = {0x09, 0x0D, 0x20, 0x20, 0xA0, 0xA0, 0x1680, 0x1680,
                                   0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x202F,
                                   0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF};

/* A set-valued escape: \d \D \w \W \s \S (a constant table r) or \p{..}
 * \P{..} (u: an encoded Unicode set, decoded where it is used). */
typedef struct rx_set {
    const uint32_t *r;
    uint32_t count;
    int negate;
    const tg_uprop *u;
} rx_set;

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int name_is(const char *n, size_t nl, const char *want) {
    return nl == strlen(want) && memcmp(n, want, nl) == 0;
}

/* p->pos is just past 'p' or 'P'. ECMA-262 UnicodePropertyValueExpression:
 * Name=Value with Name one of General_Category/gc, Script/sc,
 * Script_Extensions/scx, or a lone General_Category value or binary property
 * name; every name matched exactly. */
static int parse_property(rx_parser *p, size_t esc_off, int upper, rx_set *out) {
    size_t start, end, eq;
    const tg_uprop *u = NULL;
    if (p->pos >= p->len || p->s[p->pos] != '{')
        return rx_fail(p, esc_off, "\\%c must be followed by {property}", upper ? 'P' : 'p');
    start = ++p->pos;
    while (p->pos < p->len && p->s[p->pos] != '}') p->pos++;
    if (p->pos >= p->len) return rx_fail(p, esc_off, "unterminated \\%c{...}", upper ? 'P' : 'p');
    end = p->pos++;
    for (eq = start; eq < end && p->s[eq] != '='; eq++) {}
    if (eq < end) {
        const char *n = (const char *)p->s + start, *v = (const char *)p->s + eq + 1;
        size_t nl = eq - start, vl = end - eq - 1;
        if (name_is(n, nl, "General_Category") || name_is(n, nl, "gc"))
            u = tg_uprop_lookup(TG_UPROP_GC, v, vl);
        else if (name_is(n, nl, "Script") || name_is(n, nl, "sc"))
            u = tg_uprop_lookup(TG_UPROP_SCRIPT, v, vl);
        else if (name_is(n, nl, "Script_Extensions") || name_is(n, nl, "scx"))
            u = tg_uprop_lookup(TG_UPROP_SCX, v, vl);
    } else {
        u = tg_uprop_lookup(TG_UPROP_GC, (const char *)p->s + start, end - start);
        if (!u) u = tg_uprop_lookup(TG_UPROP_BINARY, (const char *)p->s + start, end - start);
    }
    if (!u) {
        int shown = (int)(end - start > 60 ? 60 : end - start);
        return rx_fail(p, esc_off, "unknown Unicode property \\%c{%.*s} (Unicode %s)", upper ? 'P' : 'p',
                    shown, (const char *)p->s + start, tg_unicode_version);
    }
    out->r = NULL;
    out->count = tg_uprop_count(u);
    out->negate = upper;
    out->u = u;
    return 0;
}

/* Decodes one UTF-8 code point of the pattern. */
static int pat_cp(rx_parser *p, uint32_t *cp) {
    const unsigned char *s = p->s + p->pos;
    size_t n = p->len - p->pos, need, i;
    uint32_t c = s[0], min;
    if (c < 0x80) { *cp = c; p->pos++; return 0; }
    if (c >= 0xC2 && c <= 0xDF) { need = 1; c &= 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { need = 2; c &= 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 3; c &= 0x07; min = 0x10000; }
    else return rx_fail(p, p->pos, "invalid UTF-8 in pattern");
    if (n <= need) return rx_fail(p, p->pos, "invalid UTF-8 in pattern");
    for (i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return rx_fail(p, p->pos, "invalid UTF-8 in pattern");
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return rx_fail(p, p->pos, "invalid UTF-8 in pattern");
    p->pos += need + 1;
    *cp = c;
    return 0;
}

static int parse_hex(rx_parser *p, int digits, uint32_t *v) {
    int i, h;
    uint32_t x = 0;
    if (p->len - p->pos < (size_t)digits) return -1;
    for (i = 0; i < digits; i++) {
        h = hexval(p->s[p->pos + (size_t)i]);
        if (h < 0) return -1;
        x = x * 16 + (uint32_t)h;
    }
    p->pos += (size_t)digits;
    *v = x;
    return 0;
}

/* Parses the escape after '\' (p->pos at the char after it). Returns 0 with
 * *cp set (is_set = 0) or *set filled (is_set = 1), 1 for \b / \B outside a
 * class (*cp = 'b' or 'B'), or -1 on error. */
static int parse_escape(rx_parser *p, int in_class, uint32_t *cp, rx_set *set, int *is_set) {
    size_t off = p->pos - 1;
    uint32_t c;
    *is_set = 0;
    if (p->pos >= p->len) return rx_fail(p, off, "pattern ends with a lone backslash");
    c = p->s[p->pos++];
    switch (c) {
    case 'd': case 'D': set->r = R_DIGIT; set->count = 1; set->negate = c == 'D'; set->u = NULL; *is_set = 1; return 0;
    case 'w': case 'W': set->r = R_WORD; set->count = 4; set->negate = c == 'W'; set->u = NULL; *is_set = 1; return 0;
    case 's': case 'S': set->r = R_SPACE; set->count = 10; set->negate = c == 'S'; set->u = NULL; *is_set = 1; return 0;
    case 'p': case 'P': *is_set = 1; return parse_property(p, off, c == 'P', set);
    case 'b':
        if (in_class) { *cp = 8; return 0; }
        *cp = 'b';
        return 1;
    case 'B':
        if (in_class) return rx_fail(p, off, "\\B is not allowed in a character class");
        *cp = 'B';
        return 1;
    case 'n': *cp = '\n'; return 0;
    case 'r': *cp = '\r'; return 0;
    case 't': *cp = '\t'; return 0;
    case 'v': *cp = '\v'; return 0;
    case 'f': *cp = '\f'; return 0;
    case '0':
        if (p->pos < p->len && is_digit(p->s[p->pos]))
            return rx_fail(p, off, "octal escapes are not allowed in Unicode mode");
        *cp = 0;
        return 0;
    case 'c':
        if (p->pos < p->len && is_alpha(p->s[p->pos])) { *cp = p->s[p->pos++] % 32u; return 0; }
        return rx_fail(p, off, "\\c must be followed by an ASCII letter");
    case 'x':
        if (parse_hex(p, 2, cp)) return rx_fail(p, off, "invalid \\x escape: expected two hex digits");
        return 0;
    case 'u':
        if (p->pos < p->len && p->s[p->pos] == '{') {
            uint32_t v = 0;
            size_t digits = 0;
            p->pos++;
            while (p->pos < p->len && hexval(p->s[p->pos]) >= 0) {
                v = v * 16 + (uint32_t)hexval(p->s[p->pos++]);
                if (v > 0x10FFFF) return rx_fail(p, off, "\\u{...} escape above U+10FFFF");
                digits++;
            }
            if (!digits || p->pos >= p->len || p->s[p->pos] != '}')
                return rx_fail(p, off, "invalid \\u{...} escape");
            p->pos++;
            *cp = v;
            return 0;
        }
        if (parse_hex(p, 4, cp)) return rx_fail(p, off, "invalid \\u escape: expected four hex digits");
        if (*cp >= 0xD800 && *cp <= 0xDBFF && p->len - p->pos >= 6 && p->s[p->pos] == '\\' &&
            p->s[p->pos + 1] == 'u') {
            size_t save = p->pos;
            uint32_t lo;
            p->pos += 2;
            if (!parse_hex(p, 4, &lo) && lo >= 0xDC00 && lo <= 0xDFFF)
                *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
            else
                p->pos = save;
        }
        return 0;
    case 'k':
        if (!in_class && p->pos < p->len && p->s[p->pos] == '<') {
            if (p->syntax_only) { /* \k<name>: the name is checked once every group is known */
                size_t q = p->pos + 1, e = q;
                while (e < p->len && p->s[e] != '>') e++;
                if (e == q || e >= p->len) return rx_fail(p, off, "invalid named backreference");
                if (grow(p, (void **)&p->krefs, &p->capkrefs, 2 * ((size_t)p->nkrefs + 1), sizeof(size_t))) return -1;
                p->krefs[2 * p->nkrefs] = q;
                p->krefs[2 * p->nkrefs + 1] = e - q;
                p->nkrefs++;
                p->pos = e + 1;
                *cp = 0;
                return 0;
            }
            return rx_fail(p, off, "named backreference \\k<...> is not supported: toolgate matches patterns in linear time");
        }
        return rx_fail(p, off, "invalid escape \\k");
    default:
        break;
    }
    if (c >= '1' && c <= '9') {
        size_t e = p->pos;
        while (e < p->len && is_digit(p->s[e]) && e - off < 8) e++;
        if (in_class) return rx_fail(p, off, "invalid escape \\%.*s in a character class", (int)(e - off - 1), (const char *)p->s + off + 1);
        if (p->syntax_only) { /* \N: N is checked against the group count at the end */
            uint32_t n = 0;
            for (size_t i = off + 1; i < e; i++) n = n * 10 + (uint32_t)(p->s[i] - '0');
            if (n > p->max_ref) p->max_ref = n, p->max_ref_off = off;
            p->pos = e;
            *cp = 0;
            return 0;
        }
        return rx_fail(p, off, "backreference \\%.*s is not supported: toolgate matches patterns in linear time",
                    (int)(e - off - 1), (const char *)p->s + off + 1);
    }
    /* Identity escapes: ECMA's syntax characters, '/', and (leniently, as
     * real-world schemas write \- \" \: etc.) any other ASCII punctuation. */
    if (c < 0x80 && c > 0x20 && !is_alpha((int)c) && !is_digit((int)c) && c != 0x7F) {
        *cp = c;
        return 0;
    }
    if (c >= 0x80) {
        p->pos--;
        return rx_fail(p, off, "invalid identity escape of a non-ASCII character");
    }
    if (c == 'A' || c == 'Z' || c == 'z' || c == 'G')
        return rx_fail(p, off, "\\%c is not an ECMA-262 escape (use ^ and $ for anchors)", (int)c);
    return rx_fail(p, off, "invalid escape \\%c", (int)c);
}

/* ---- the grammar ------------------------------------------------------ */

static int32_t parse_alt(rx_parser *p);

static int32_t parse_class(rx_parser *p) {
    size_t open = p->pos - 1, from = p->ntmp, merged = 0; /* pairs in tmp[from..] at the last merge */
    int negate = 0;
    p->ncprops = 0;
    if (p->pos < p->len && p->s[p->pos] == '^') { negate = 1; p->pos++; }
    for (;;) {
        uint32_t a = 0, b = 0;
        rx_set sa, sb;
        int a_set = 0, b_set = 0;
        size_t aoff;
        if (p->pos >= p->len) return rx_fail(p, open, "unterminated character class");
        if (p->s[p->pos] == ']') { p->pos++; break; }
        aoff = p->pos;
        if (p->s[p->pos] == '\\') {
            p->pos++;
            if (parse_escape(p, 1, &a, &sa, &a_set) < 0) return -1;
        } else if (pat_cp(p, &a)) {
            return -1;
        }
        if (p->pos + 1 < p->len && p->s[p->pos] == '-' && p->s[p->pos + 1] != ']') {
            p->pos++;
            if (p->s[p->pos] == '\\') {
                p->pos++;
                if (parse_escape(p, 1, &b, &sb, &b_set) < 0) return -1;
            } else if (pat_cp(p, &b)) {
                return -1;
            }
            if (a_set || b_set)
                return rx_fail(p, aoff, "a character class escape cannot be a range endpoint");
            if (a > b) return rx_fail(p, aoff, "range out of order in character class");
            if (tmp_add(p, a, b)) return -1;
        } else if (a_set) {
            if (sa.u ? tmp_add_uprop(p, sa.u, sa.negate) : tmp_add_set(p, sa.r, sa.count, sa.negate)) return -1;
        } else if (tmp_add(p, a, a)) {
            return -1;
        }
        /* Merge once the unmerged tail outgrows what was kept: each merge
         * sorts at most ~3x what it was given since the last one, so a
         * class of many \p{..} costs O(n log n) in what they append, and
         * tmp holds a few times what the class keeps, never the sum of
         * every set (one qsort over 560k ranges took ~0.5 s in wasm). */
        if ((p->ntmp - from) / 2 > 2 * merged + RX_MERGE_SLACK) {
            if (tmp_normalize(p, from, 0)) return -1;
            merged = (p->ntmp - from) / 2;
            if (p->npool + 2 * merged > p->max_pool) return over_pool(p, p->npool + 2 * merged);
        }
    }
    if (tmp_normalize(p, from, negate)) return -1;
    {
        int32_t ci = class_from_tmp(p, from);
        if (ci < 0) return -1;
        return new_node(p, N_CLASS, (uint32_t)ci);
    }
}

/* Parses a decimal number for a quantifier; saturates at RX_COUNT_CAP. */
static int parse_count(rx_parser *p, uint32_t *v) {
    uint32_t x = 0;
    if (p->pos >= p->len || !is_digit(p->s[p->pos])) return -1;
    while (p->pos < p->len && is_digit(p->s[p->pos])) {
        x = x * 10 + (uint32_t)(p->s[p->pos++] - '0');
        if (x > RX_COUNT_CAP) { x = RX_COUNT_CAP; p->count_overflow = 1; }
    }
    *v = x;
    return 0;
}

/* At '{': parses {n} {n,} {n,m}. Returns 1 if it is a quantifier (pos moved
 * past '}'), 0 if not (pos unchanged). */
static int parse_braces(rx_parser *p, uint32_t *min, uint32_t *max) {
    size_t save = p->pos;
    p->pos++;
    if (parse_count(p, min)) goto no;
    if (p->pos < p->len && p->s[p->pos] == '}') { *max = *min; p->pos++; return 1; }
    if (p->pos >= p->len || p->s[p->pos] != ',') goto no;
    p->pos++;
    if (p->pos < p->len && p->s[p->pos] == '}') { *max = RX_INF; p->pos++; return 1; }
    if (parse_count(p, max)) goto no;
    if (p->pos < p->len && p->s[p->pos] == '}') { p->pos++; return 1; }
no:
    p->pos = save;
    return 0;
}

/* Records a group name (pattern offset and length); duplicates are a
 * SyntaxError in ECMA-262. */
static int add_group_name(rx_parser *p, size_t off, size_t n) {
    uint32_t i;
    for (i = 0; i < p->nnames; i++)
        if (p->names[2 * i + 1] == n && memcmp(p->s + p->names[2 * i], p->s + off, n) == 0)
            return rx_fail(p, off - 3, "duplicate group name <%.*s>", (int)(n > 60 ? 60 : n), (const char *)p->s + off);
    if (grow(p, (void **)&p->names, &p->capnames, 2 * ((size_t)p->nnames + 1), sizeof(size_t))) return -1;
    p->names[2 * p->nnames] = off;
    p->names[2 * p->nnames + 1] = n;
    p->nnames++;
    return 0;
}

static int32_t parse_group(rx_parser *p) {
    size_t open = p->pos - 1;
    int32_t n;
    int lookaround = 0, capturing = 1;
    if (p->pos < p->len && p->s[p->pos] == '?') {
        const unsigned char *s = p->s;
        size_t q = p->pos + 1;
        capturing = 0;
        if (q < p->len && s[q] == ':') {
            p->pos = q + 1;
        } else if (q < p->len && (s[q] == '=' || s[q] == '!')) {
            if (!p->syntax_only)
                return rx_fail(p, open, "lookahead (?%c...) is not supported: toolgate matches patterns in linear time", s[q]);
            p->pos = q + 1;
            lookaround = 1;
        } else if (q + 1 < p->len && s[q] == '<' && (s[q + 1] == '=' || s[q + 1] == '!')) {
            if (!p->syntax_only)
                return rx_fail(p, open, "lookbehind (?<%c...) is not supported: toolgate matches patterns in linear time", s[q + 1]);
            p->pos = q + 2;
            lookaround = 1;
        } else if (q < p->len && s[q] == '<') {
            size_t e = q + 1;
            while (e < p->len && s[e] != '>' && (s[e] == '_' || s[e] == '$' || is_alpha(s[e]) ||
                                                  (is_digit(s[e]) && e > q + 1) || s[e] >= 0x80))
                e++;
            if (e == q + 1 || e >= p->len || s[e] != '>') return rx_fail(p, open, "invalid group name");
            if (add_group_name(p, q + 1, e - q - 1)) return -1;
            p->pos = e + 1;
            capturing = 1;
        } else {
            return rx_fail(p, open, "invalid group: (? must be followed by :, <name>, =, !, <= or <!");
        }
    }
    if (++p->depth > RX_MAX_DEPTH) return rx_over(p), rx_fail(p, open, "groups nested deeper than %d", RX_MAX_DEPTH);
    n = parse_alt(p);
    if (n < 0) return -1;
    p->depth--;
    if (p->pos >= p->len || p->s[p->pos] != ')') return rx_fail(p, open, "unterminated group");
    p->pos++;
    p->ngroups += (uint32_t)capturing;
    p->group_assert = lookaround;
    return lookaround ? new_node(p, N_EMPTY, 0) : n;
}

/* One atom with its quantifier, or -1. */
static int32_t parse_piece(rx_parser *p) {
    size_t off = p->pos;
    uint32_t c = p->s[p->pos], min, max;
    int32_t atom;
    int assertion = 0;
    switch (c) {
    case '^': p->pos++; atom = new_node(p, N_BOL, 0); assertion = 1; break;
    case '$': p->pos++; atom = new_node(p, N_EOL, 0); assertion = 1; break;
    case '.': p->pos++; atom = new_node(p, N_ANY, 0); break;
    case '(': p->pos++; atom = parse_group(p); assertion = p->group_assert; p->group_assert = 0; break;
    case '[': p->pos++; atom = parse_class(p); break;
    case '*': case '+': case '?':
        return rx_fail(p, off, "nothing to repeat before '%c'", (int)c);
    case '{':
        if (parse_braces(p, &min, &max)) return rx_fail(p, off, "nothing to repeat before '{'");
        return rx_fail(p, off, "lone '{' (write \\{ for a literal brace)");
    case '}': return rx_fail(p, off, "lone '}' (write \\} for a literal brace)");
    case ']': return rx_fail(p, off, "lone ']' (write \\] for a literal bracket)");
    case '\\': {
        rx_set set;
        int is_set, r;
        uint32_t cp = 0;
        p->pos++;
        r = parse_escape(p, 0, &cp, &set, &is_set);
        if (r < 0) return -1;
        if (r == 1) {
            atom = new_node(p, cp == 'b' ? N_WORDB : N_NWORDB, 0);
            assertion = 1;
        } else if (is_set) {
            int32_t ci;
            if (set.u) { /* decoded into this pattern's pool once, however often it is used */
                uint32_t key = uprop_key(set.u, 0), j = 0;
                while (j < p->ncls && p->cls[j].uprop != key) j++;
                if (j < p->ncls) {
                    ci = class_from_tmp(p, p->ntmp); /* an empty class, then pointed at the earlier ranges */
                    if (ci >= 0) p->cls[ci] = p->cls[j];
                } else {
                    size_t from = p->ntmp;
                    p->ncprops = 0;
                    if (tmp_add_uprop(p, set.u, 0)) return -1;
                    ci = class_from_tmp(p, from);
                    if (ci >= 0 && !p->syntax_only) p->cls[ci].uprop = key;
                }
                if (ci >= 0) p->cls[ci].negate = (uint32_t)set.negate;
            } else {
                ci = class_static(p, set.r, set.count, set.negate);
            }
            if (ci < 0) return -1;
            atom = new_node(p, N_CLASS, (uint32_t)ci);
        } else {
            atom = new_node(p, N_CHAR, cp);
        }
        break;
    }
    default: {
        uint32_t cp = 0;
        if (pat_cp(p, &cp)) return -1;
        atom = new_node(p, N_CHAR, cp);
        break;
    }
    }
    if (atom < 0) return -1;
    if (p->pos >= p->len) return atom;
    c = p->s[p->pos];
    off = p->pos;
    if (c == '*') { min = 0; max = RX_INF; p->pos++; }
    else if (c == '+') { min = 1; max = RX_INF; p->pos++; }
    else if (c == '?') { min = 0; max = 1; p->pos++; }
    else if (c == '{') {
        p->count_overflow = 0;
        if (!parse_braces(p, &min, &max)) return rx_fail(p, off, "incomplete quantifier (write \\{ for a literal brace)");
        if (p->count_overflow) return rx_over(p), rx_fail(p, off, "quantifier count above %u", RX_COUNT_CAP);
        if (min > max) return rx_fail(p, off, "numbers out of order in {} quantifier");
    } else {
        return atom;
    }
    if (assertion) return rx_fail(p, off, "an assertion cannot be quantified");
    if (p->pos < p->len && p->s[p->pos] == '?') p->pos++; /* lazy: same match/no-match */
    /* a following '{' is reported by the next parse_piece */
    if (p->pos < p->len && (p->s[p->pos] == '*' || p->s[p->pos] == '+' || p->s[p->pos] == '?'))
        return rx_fail(p, p->pos, "nothing to repeat before '%c'", p->s[p->pos]);
    {
        int32_t r = new_node(p, N_REP, 0);
        if (r < 0) return -1;
        p->nodes[r].child = atom;
        p->nodes[r].min = min;
        p->nodes[r].max = max;
        return r;
    }
}

static int32_t parse_cat(rx_parser *p) {
    int32_t first = -1, last = -1, n, cat;
    int count = 0;
    while (p->pos < p->len && p->s[p->pos] != '|' && p->s[p->pos] != ')') {
        n = parse_piece(p);
        if (n < 0) return -1;
        if (last >= 0) p->nodes[last].next = n; else first = n;
        last = n;
        count++;
    }
    if (count == 0) return new_node(p, N_EMPTY, 0);
    if (count == 1) return first;
    cat = new_node(p, N_CAT, 0);
    if (cat >= 0) p->nodes[cat].child = first;
    return cat;
}

static int32_t parse_alt(rx_parser *p) {
    int32_t first = parse_cat(p), last = first, n, alt;
    if (first < 0) return -1;
    if (p->pos >= p->len || p->s[p->pos] != '|') return first;
    while (p->pos < p->len && p->s[p->pos] == '|') {
        p->pos++;
        n = parse_cat(p);
        if (n < 0) return -1;
        p->nodes[last].next = n;
        last = n;
    }
    alt = new_node(p, N_ALT, 0);
    if (alt >= 0) p->nodes[alt].child = first;
    return alt;
}

int32_t rx_parse(rx_parser *p) {
    int32_t root = parse_alt(p);
    if (root >= 0 && p->pos < p->len) return rx_fail(p, p->pos, "unmatched ')'");
    if (root >= 0 && p->max_ref > p->ngroups)
        return rx_fail(p, p->max_ref_off, "backreference \\%u names no group (the pattern has %u)", p->max_ref, p->ngroups);
    for (uint32_t i = 0; root >= 0 && i < p->nkrefs; i++) {
        size_t off = p->krefs[2 * i], n = p->krefs[2 * i + 1];
        uint32_t j = 0;
        while (j < p->nnames && !(p->names[2 * j + 1] == n && memcmp(p->s + p->names[2 * j], p->s + off, n) == 0)) j++;
        if (j == p->nnames)
            return rx_fail(p, off - 3, "\\k<%.*s> names no group", (int)(n > 60 ? 60 : n), (const char *)p->s + off);
    }
    return p->failed ? -1 : root;
}

void rx_parser_release(rx_parser *p) {
    tg_free(p->al, p->nodes, (size_t)p->capnodes * sizeof(rx_node));
    tg_free(p->al, p->cls, (size_t)p->capcls * sizeof(rx_cls_build));
    tg_free(p->al, p->pool, p->cappool * sizeof(uint32_t));
    tg_free(p->al, p->tmp, p->captmp * sizeof(uint32_t));
    tg_free(p->al, p->cprops, p->capcprops * sizeof(uint32_t));
    tg_free(p->al, p->names, p->capnames * sizeof(size_t));
    tg_free(p->al, p->krefs, p->capkrefs * sizeof(size_t));
}
