/* regex_parse.c - ECMA-262 (Unicode mode) pattern -> AST -> Thompson NFA.
 *
 * The parser builds a small AST (nodes in one growable array, n-ary
 * concatenation/alternation as sibling lists so recursion depth is bounded by
 * group nesting), sizes it exactly with saturating arithmetic so {n,m}
 * expansion is checked against limits->max_states before anything is
 * emitted, then emits the program regex_exec.c runs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex_internal.h"
#include "regex_unicode.h"

#define RX_MAX_DEPTH 64          /* group nesting */
#define RX_INF UINT32_MAX        /* unbounded quantifier max */
#define RX_COUNT_CAP 1000000u    /* quantifier numbers saturate here */
#define RX_MAX_POOL (1u << 22)   /* uint32s of class ranges a pattern may own */

enum { N_EMPTY, N_CHAR, N_CLASS, N_ANY, N_BOL, N_EOL, N_WORDB, N_NWORDB, N_CAT, N_ALT, N_REP };

typedef struct rx_node {
    uint32_t type;
    uint32_t a;        /* N_CHAR: code point; N_CLASS: class index */
    int32_t child;     /* N_CAT/N_ALT: first child; N_REP: the body */
    int32_t next;      /* next sibling */
    uint32_t min, max; /* N_REP */
    uint64_t size;     /* instructions this node emits (saturated) */
} rx_node;

typedef struct rx_cls_build {
    const uint32_t *ext; /* static table, or NULL when the ranges are in the pool */
    uint32_t off, count, negate;
} rx_cls_build;

typedef struct rx_parser {
    const tg_allocator *al;
    const unsigned char *s;
    size_t len, pos;
    int depth;
    tg_regex_error *err;
    int failed;
    rx_node *nodes;
    uint32_t nnodes, capnodes;
    rx_cls_build *cls;
    uint32_t ncls, capcls;
    uint32_t *pool; /* class ranges */
    size_t npool, cappool;
    uint32_t *tmp;  /* ranges of the class under construction */
    size_t ntmp, captmp;
    size_t *names;  /* (offset, length) of each group name */
    uint32_t nnames;
    size_t capnames;
} rx_parser;

/* ---- errors and memory ------------------------------------------------ */

static int fail(rx_parser *p, size_t off, const char *fmt, ...) {
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

static int grow(rx_parser *p, void **arr, size_t *cap, size_t need, size_t elem) {
    size_t ncap;
    void *n;
    if (need <= *cap) return 0;
    ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    n = tg_realloc(p->al, *arr, *cap * elem, ncap * elem);
    if (!n) return fail(p, p->pos, "out of memory");
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
    if (p->ntmp + 2 > RX_MAX_POOL) return fail(p, p->pos, "character classes too large");
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
    uint32_t *r = p->tmp + from;
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

/* Turns tmp[from..] (normalized) into a class; returns its index. */
static int32_t class_from_tmp(rx_parser *p, size_t from) {
    size_t cap = p->capcls, n = p->ntmp - from;
    rx_cls_build *c;
    if (grow(p, (void **)&p->cls, &cap, (size_t)p->ncls + 1, sizeof(rx_cls_build))) return -1;
    p->capcls = (uint32_t)cap;
    if (p->npool + n > RX_MAX_POOL) return fail(p, p->pos, "character classes too large");
    if (grow(p, (void **)&p->pool, &p->cappool, p->npool + n, sizeof(uint32_t))) return -1;
    if (n) memcpy(p->pool + p->npool, p->tmp + from, n * sizeof(uint32_t));
    c = &p->cls[p->ncls];
    c->ext = NULL;
    c->off = (uint32_t)p->npool;
    c->count = (uint32_t)(n / 2);
    c->negate = 0;
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
    return (int32_t)p->ncls++;
}

/* ---- class escapes ---------------------------------------------------- */

static const uint32_t R_DIGIT[] = {0x30, 0x39};
static const uint32_t R_WORD[] = {0x30, 0x39, 0x41, 0x5A, 0x5F, 0x5F, 0x61, 0x7A};
static const uint32_t R_SPACE[] = {0x09, 0x0D, 0x20, 0x20, 0xA0, 0xA0, 0x1680, 0x1680,
                                   0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x202F,
                                   0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF};

/* A set-valued escape: \d \D \w \W \s \S \p{..} \P{..}. */
typedef struct rx_set {
    const uint32_t *r;
    uint32_t count;
    int negate;
} rx_set;

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* p->pos is just past 'p' or 'P'. */
static int parse_property(rx_parser *p, size_t esc_off, int upper, rx_set *out) {
    size_t start, end, eq;
    const tg_uprop *u = NULL;
    if (p->pos >= p->len || p->s[p->pos] != '{')
        return fail(p, esc_off, "\\%c must be followed by {property}", upper ? 'P' : 'p');
    start = ++p->pos;
    while (p->pos < p->len && p->s[p->pos] != '}') p->pos++;
    if (p->pos >= p->len) return fail(p, esc_off, "unterminated \\%c{...}", upper ? 'P' : 'p');
    end = p->pos++;
    for (eq = start; eq < end && p->s[eq] != '='; eq++) {}
    if (eq < end) {
        const char *n = (const char *)p->s + start, *v = (const char *)p->s + eq + 1;
        size_t nl = eq - start, vl = end - eq - 1;
        if ((nl == 16 && !memcmp(n, "General_Category", 16)) || (nl == 2 && !memcmp(n, "gc", 2)))
            u = tg_uprop_lookup(TG_UPROP_GC, v, vl);
        else if ((nl == 6 && !memcmp(n, "Script", 6)) || (nl == 2 && !memcmp(n, "sc", 2)) ||
                 (nl == 17 && !memcmp(n, "Script_Extensions", 17)) || (nl == 3 && !memcmp(n, "scx", 3)))
            u = tg_uprop_lookup(TG_UPROP_SCRIPT, v, vl);
    } else {
        u = tg_uprop_lookup(TG_UPROP_GC, (const char *)p->s + start, end - start);
        if (!u) u = tg_uprop_lookup(TG_UPROP_BINARY, (const char *)p->s + start, end - start);
    }
    if (!u) {
        int shown = (int)(end - start > 60 ? 60 : end - start);
        return fail(p, esc_off, "unknown or unsupported Unicode property \\%c{%.*s}", upper ? 'P' : 'p',
                    shown, (const char *)p->s + start);
    }
    out->r = u->ranges;
    out->count = u->count;
    out->negate = upper;
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
    else return fail(p, p->pos, "invalid UTF-8 in pattern");
    if (n <= need) return fail(p, p->pos, "invalid UTF-8 in pattern");
    for (i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return fail(p, p->pos, "invalid UTF-8 in pattern");
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return fail(p, p->pos, "invalid UTF-8 in pattern");
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
    if (p->pos >= p->len) return fail(p, off, "pattern ends with a lone backslash");
    c = p->s[p->pos++];
    switch (c) {
    case 'd': case 'D': set->r = R_DIGIT; set->count = 1; set->negate = c == 'D'; *is_set = 1; return 0;
    case 'w': case 'W': set->r = R_WORD; set->count = 4; set->negate = c == 'W'; *is_set = 1; return 0;
    case 's': case 'S': set->r = R_SPACE; set->count = 10; set->negate = c == 'S'; *is_set = 1; return 0;
    case 'p': case 'P': *is_set = 1; return parse_property(p, off, c == 'P', set);
    case 'b':
        if (in_class) { *cp = 8; return 0; }
        *cp = 'b';
        return 1;
    case 'B':
        if (in_class) return fail(p, off, "\\B is not allowed in a character class");
        *cp = 'B';
        return 1;
    case 'n': *cp = '\n'; return 0;
    case 'r': *cp = '\r'; return 0;
    case 't': *cp = '\t'; return 0;
    case 'v': *cp = '\v'; return 0;
    case 'f': *cp = '\f'; return 0;
    case '0':
        if (p->pos < p->len && is_digit(p->s[p->pos]))
            return fail(p, off, "octal escapes are not allowed in Unicode mode");
        *cp = 0;
        return 0;
    case 'c':
        if (p->pos < p->len && is_alpha(p->s[p->pos])) { *cp = p->s[p->pos++] % 32u; return 0; }
        return fail(p, off, "\\c must be followed by an ASCII letter");
    case 'x':
        if (parse_hex(p, 2, cp)) return fail(p, off, "invalid \\x escape: expected two hex digits");
        return 0;
    case 'u':
        if (p->pos < p->len && p->s[p->pos] == '{') {
            uint32_t v = 0;
            size_t digits = 0;
            p->pos++;
            while (p->pos < p->len && hexval(p->s[p->pos]) >= 0) {
                v = v * 16 + (uint32_t)hexval(p->s[p->pos++]);
                if (v > 0x10FFFF) return fail(p, off, "\\u{...} escape above U+10FFFF");
                digits++;
            }
            if (!digits || p->pos >= p->len || p->s[p->pos] != '}')
                return fail(p, off, "invalid \\u{...} escape");
            p->pos++;
            *cp = v;
            return 0;
        }
        if (parse_hex(p, 4, cp)) return fail(p, off, "invalid \\u escape: expected four hex digits");
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
        if (!in_class && p->pos < p->len && p->s[p->pos] == '<')
            return fail(p, off, "named backreference \\k<...> is not supported: toolgate matches patterns in linear time");
        return fail(p, off, "invalid escape \\k");
    default:
        break;
    }
    if (c >= '1' && c <= '9') {
        size_t e = p->pos;
        while (e < p->len && is_digit(p->s[e]) && e - off < 8) e++;
        if (in_class) return fail(p, off, "invalid escape \\%.*s in a character class", (int)(e - off - 1), (const char *)p->s + off + 1);
        return fail(p, off, "backreference \\%.*s is not supported: toolgate matches patterns in linear time",
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
        return fail(p, off, "invalid identity escape of a non-ASCII character");
    }
    if (c == 'A' || c == 'Z' || c == 'z' || c == 'G')
        return fail(p, off, "\\%c is not an ECMA-262 escape (use ^ and $ for anchors)", (int)c);
    return fail(p, off, "invalid escape \\%c", (int)c);
}

/* ---- the grammar ------------------------------------------------------ */

static int32_t parse_alt(rx_parser *p);

static int32_t parse_class(rx_parser *p) {
    size_t open = p->pos - 1, from = p->ntmp;
    int negate = 0;
    if (p->pos < p->len && p->s[p->pos] == '^') { negate = 1; p->pos++; }
    for (;;) {
        uint32_t a = 0, b = 0;
        rx_set sa, sb;
        int a_set = 0, b_set = 0;
        size_t aoff;
        if (p->pos >= p->len) return fail(p, open, "unterminated character class");
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
                return fail(p, aoff, "a character class escape cannot be a range endpoint");
            if (a > b) return fail(p, aoff, "range out of order in character class");
            if (tmp_add(p, a, b)) return -1;
        } else if (a_set) {
            if (tmp_add_set(p, sa.r, sa.count, sa.negate)) return -1;
        } else if (tmp_add(p, a, a)) {
            return -1;
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
        if (x > RX_COUNT_CAP) x = RX_COUNT_CAP;
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
            return fail(p, off - 3, "duplicate group name <%.*s>", (int)(n > 60 ? 60 : n), (const char *)p->s + off);
    if (grow(p, (void **)&p->names, &p->capnames, 2 * ((size_t)p->nnames + 1), sizeof(size_t))) return -1;
    p->names[2 * p->nnames] = off;
    p->names[2 * p->nnames + 1] = n;
    p->nnames++;
    return 0;
}

static int32_t parse_group(rx_parser *p) {
    size_t open = p->pos - 1;
    int32_t n;
    if (p->pos < p->len && p->s[p->pos] == '?') {
        const unsigned char *s = p->s;
        size_t q = p->pos + 1;
        if (q < p->len && s[q] == ':') {
            p->pos = q + 1;
        } else if (q < p->len && (s[q] == '=' || s[q] == '!')) {
            return fail(p, open, "lookahead (?%c...) is not supported: toolgate matches patterns in linear time", s[q]);
        } else if (q + 1 < p->len && s[q] == '<' && (s[q + 1] == '=' || s[q + 1] == '!')) {
            return fail(p, open, "lookbehind (?<%c...) is not supported: toolgate matches patterns in linear time", s[q + 1]);
        } else if (q < p->len && s[q] == '<') {
            size_t e = q + 1;
            while (e < p->len && s[e] != '>' && (s[e] == '_' || s[e] == '$' || is_alpha(s[e]) ||
                                                  (is_digit(s[e]) && e > q + 1) || s[e] >= 0x80))
                e++;
            if (e == q + 1 || e >= p->len || s[e] != '>') return fail(p, open, "invalid group name");
            if (add_group_name(p, q + 1, e - q - 1)) return -1;
            p->pos = e + 1;
        } else {
            return fail(p, open, "invalid group: (? must be followed by :, <name>, =, !, <= or <!");
        }
    }
    if (++p->depth > RX_MAX_DEPTH) return fail(p, open, "groups nested deeper than %d", RX_MAX_DEPTH);
    n = parse_alt(p);
    if (n < 0) return -1;
    p->depth--;
    if (p->pos >= p->len || p->s[p->pos] != ')') return fail(p, open, "unterminated group");
    p->pos++;
    return n;
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
    case '(': p->pos++; atom = parse_group(p); break;
    case '[': p->pos++; atom = parse_class(p); break;
    case '*': case '+': case '?':
        return fail(p, off, "nothing to repeat before '%c'", (int)c);
    case '{':
        if (parse_braces(p, &min, &max)) return fail(p, off, "nothing to repeat before '{'");
        return fail(p, off, "lone '{' (write \\{ for a literal brace)");
    case '}': return fail(p, off, "lone '}' (write \\} for a literal brace)");
    case ']': return fail(p, off, "lone ']' (write \\] for a literal bracket)");
    case '\\': {
        rx_set set;
        int is_set, r;
        uint32_t cp;
        p->pos++;
        r = parse_escape(p, 0, &cp, &set, &is_set);
        if (r < 0) return -1;
        if (r == 1) {
            atom = new_node(p, cp == 'b' ? N_WORDB : N_NWORDB, 0);
            assertion = 1;
        } else if (is_set) {
            int32_t ci = class_static(p, set.r, set.count, set.negate);
            if (ci < 0) return -1;
            atom = new_node(p, N_CLASS, (uint32_t)ci);
        } else {
            atom = new_node(p, N_CHAR, cp);
        }
        break;
    }
    default: {
        uint32_t cp;
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
        if (!parse_braces(p, &min, &max)) return fail(p, off, "incomplete quantifier (write \\{ for a literal brace)");
        if (min > max) return fail(p, off, "numbers out of order in {} quantifier");
    } else {
        return atom;
    }
    if (assertion) return fail(p, off, "an assertion cannot be quantified");
    if (p->pos < p->len && p->s[p->pos] == '?') p->pos++; /* lazy: same match/no-match */
    /* a following '{' is reported by the next parse_piece */
    if (p->pos < p->len && (p->s[p->pos] == '*' || p->s[p->pos] == '+' || p->s[p->pos] == '?'))
        return fail(p, p->pos, "nothing to repeat before '%c'", p->s[p->pos]);
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

/* ---- sizing and emission --------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a || a + b > ((uint64_t)1 << 40) ? ((uint64_t)1 << 40) : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) {
    if (a && b > (((uint64_t)1 << 40) / a)) return (uint64_t)1 << 40;
    return a * b;
}

static uint64_t size_node(rx_parser *p, int32_t i) {
    rx_node *n = &p->nodes[i];
    uint64_t s = 0, k = 0, body;
    int32_t c;
    switch (n->type) {
    case N_EMPTY: s = 0; break;
    case N_CAT:
        for (c = n->child; c >= 0; c = p->nodes[c].next) s = sat_add(s, size_node(p, c));
        break;
    case N_ALT:
        for (c = n->child; c >= 0; c = p->nodes[c].next, k++) s = sat_add(s, size_node(p, c));
        s = sat_add(s, 2 * (k - 1));
        break;
    case N_REP:
        body = size_node(p, n->child);
        n = &p->nodes[i];
        if (n->max == RX_INF)
            s = n->min == 0 ? sat_add(body, 2) : sat_add(sat_mul(body, n->min), 1);
        else
            s = sat_add(sat_mul(body, n->min), sat_mul(sat_add(body, 1), n->max - n->min));
        break;
    default: s = 1; break;
    }
    p->nodes[i].size = s;
    return s;
}

typedef struct rx_emit {
    rx_parser *p;
    rx_inst *prog;
    uint32_t n;
} rx_emit;

static uint32_t emit(rx_emit *e, uint32_t op, uint32_t a, uint32_t b) {
    e->prog[e->n].op = op;
    e->prog[e->n].a = a;
    e->prog[e->n].b = b;
    return e->n++;
}

static void emit_node(rx_emit *e, int32_t i) {
    const rx_node *n = &e->p->nodes[i];
    int32_t c;
    uint32_t k, split, jmp;
    switch (n->type) {
    case N_EMPTY: break;
    case N_CHAR: emit(e, RX_CHAR, n->a, 0); break;
    case N_CLASS: emit(e, RX_CLASS, n->a, 0); break;
    case N_ANY: emit(e, RX_ANY, 0, 0); break;
    case N_BOL: emit(e, RX_BOL, 0, 0); break;
    case N_EOL: emit(e, RX_EOL, 0, 0); break;
    case N_WORDB: emit(e, RX_WORDB, 0, 0); break;
    case N_NWORDB: emit(e, RX_NWORDB, 0, 0); break;
    case N_CAT:
        for (c = n->child; c >= 0; c = e->p->nodes[c].next) emit_node(e, c);
        break;
    case N_ALT: {
        /* SPLIT L1,next; L1: e1; JMP end; next: SPLIT L2,next2; ... ek
         * The JMPs are chained and patched to the end afterwards. */
        uint32_t pending = UINT32_MAX; /* linked list of JMPs through .a */
        for (c = n->child; c >= 0; c = e->p->nodes[c].next) {
            if (e->p->nodes[c].next >= 0) {
                split = emit(e, RX_SPLIT, e->n + 1, 0);
                emit_node(e, c);
                jmp = emit(e, RX_JMP, pending, 0);
                pending = jmp;
                e->prog[split].b = e->n;
            } else {
                emit_node(e, c);
            }
        }
        while (pending != UINT32_MAX) {
            uint32_t nx = e->prog[pending].a;
            e->prog[pending].a = e->n;
            pending = nx;
        }
        break;
    }
    case N_REP: {
        uint32_t min = n->min, max = n->max, start;
        int32_t body = n->child;
        if (max == RX_INF) {
            if (min == 0) {
                split = emit(e, RX_SPLIT, e->n + 1, 0);
                emit_node(e, body);
                emit(e, RX_JMP, split, 0);
                e->prog[split].b = e->n;
            } else {
                for (k = 0; k + 1 < min; k++) emit_node(e, body);
                start = e->n;
                emit_node(e, body);
                emit(e, RX_SPLIT, start, e->n + 1);
            }
        } else {
            uint32_t first_split = e->n, s;
            for (k = 0; k < min; k++) emit_node(e, body);
            first_split = e->n;
            /* (max-min) optional copies; each SPLIT's b is patched to the end */
            for (k = min; k < max; k++) {
                emit(e, RX_SPLIT, e->n + 1, 0);
                emit_node(e, body);
            }
            for (s = first_split; s < e->n;) {
                e->prog[s].b = e->n;
                s += 1 + (uint32_t)e->p->nodes[body].size;
            }
        }
        break;
    }
    default: break;
    }
}

/* ---- fast-path analysis ---------------------------------------------- */

static size_t utf8_put(uint32_t cp, unsigned char *o) {
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static unsigned lead_byte(uint32_t cp) {
    if (cp < 0x80) return cp;
    if (cp < 0x800) return 0xC0 | (cp >> 6);
    if (cp < 0x10000) return 0xE0 | (cp >> 12);
    return 0xF0 | (cp >> 18);
}

/* Literal fast paths: the whole pattern is [^] literal [$] with no U+FFFD
 * (which the VM also matches against invalid bytes). */
static int analyze_literal(rx_parser *p, int32_t root, tg_regex *re) {
    int32_t c, first;
    const rx_node *n = &p->nodes[root];
    int bol = 0, eol = 0;
    size_t cnt = 0, nbytes = 0;
    unsigned char *lit;
    first = n->type == N_CAT ? n->child : root; /* root's next is -1 */
    for (c = first; c >= 0; c = p->nodes[c].next, cnt++) {
        uint32_t t = p->nodes[c].type;
        if (t == N_BOL && c == first) bol = 1;
        else if (t == N_EOL && p->nodes[c].next < 0) eol = 1;
        else if (t == N_CHAR && p->nodes[c].a != 0xFFFD && !(p->nodes[c].a >= 0xD800 && p->nodes[c].a <= 0xDFFF)) nbytes += 4;
        else if (t == N_EMPTY && cnt == 0 && p->nodes[c].next < 0) {}
        else return 0;
    }
    lit = tg_malloc(p->al, nbytes);
    if (!lit) return fail(p, 0, "out of memory");
    re->lit = lit;
    re->litcap = nbytes ? nbytes : 1;
    nbytes = 0;
    for (c = first; c >= 0; c = p->nodes[c].next)
        if (p->nodes[c].type == N_CHAR) nbytes += utf8_put(p->nodes[c].a, lit + nbytes);
    re->nlit = nbytes;
    re->fast = bol && eol ? RX_FAST_EXACT : bol ? RX_FAST_PREFIX : eol ? RX_FAST_SUFFIX : RX_FAST_LITERAL;
    return 0;
}

static void mark_lead_bytes(tg_regex *re, uint32_t lo, uint32_t hi, int *ok) {
    unsigned b;
    if (lo <= 0xFFFD && hi >= 0xFFFD) *ok = 0;
    for (b = lead_byte(lo); b <= lead_byte(hi); b++) re->firstbyte[b >> 3] |= (uint8_t)(1u << (b & 7));
}

/* The set of bytes a match can start with, from the start state's closure;
 * left unused when the closure holds assertions, MATCH, '.', or U+FFFD. */
static int analyze_firstbyte(rx_parser *p, tg_regex *re) {
    uint32_t *stack, sp = 0, i, pc;
    uint8_t *seen;
    int ok = 1;
    stack = tg_malloc(p->al, (size_t)re->nprog * sizeof(uint32_t));
    seen = tg_malloc(p->al, re->nprog);
    if (!stack || !seen) {
        tg_free(p->al, stack, (size_t)re->nprog * sizeof(uint32_t));
        tg_free(p->al, seen, re->nprog);
        return fail(p, 0, "out of memory");
    }
    memset(seen, 0, re->nprog);
    memset(re->firstbyte, 0, sizeof re->firstbyte);
    stack[sp++] = re->start;
    seen[re->start] = 1;
    while (sp && ok) {
        const rx_inst *in = &re->prog[stack[--sp]];
        switch (in->op) {
        case RX_SPLIT:
            if (!seen[in->b]) { seen[in->b] = 1; stack[sp++] = in->b; }
            /* fall through */
        case RX_JMP:
            if (!seen[in->a]) { seen[in->a] = 1; stack[sp++] = in->a; }
            break;
        case RX_CHAR:
            if (in->a == 0xFFFD) ok = 0;
            pc = lead_byte(in->a);
            re->firstbyte[pc >> 3] |= (uint8_t)(1u << (pc & 7));
            break;
        case RX_CLASS: {
            const rx_class *cl = &re->classes[in->a];
            uint32_t prev = 0;
            for (i = 0; i < cl->count; i++) {
                uint32_t lo = cl->ranges[2 * i], hi = cl->ranges[2 * i + 1];
                if (!cl->negate) mark_lead_bytes(re, lo, hi, &ok);
                else if (lo > prev) mark_lead_bytes(re, prev, lo - 1, &ok);
                prev = hi + 1;
            }
            if (cl->negate && prev <= 0x10FFFF) mark_lead_bytes(re, prev, 0x10FFFF, &ok);
            break;
        }
        default: ok = 0; break; /* assertions, '.', MATCH */
        }
    }
    re->use_firstbyte = ok;
    tg_free(p->al, stack, (size_t)re->nprog * sizeof(uint32_t));
    tg_free(p->al, seen, re->nprog);
    return 0;
}

/* Partitions U+0000..U+007F into classes no instruction (and no \b) can
 * tell apart, so the lazy DFA needs one transition per class. */
static void ascii_classes(tg_regex *re) {
    uint8_t *cls = re->ascii_class, nc[128];
    int16_t map[256];
    uint32_t n = 1, i, cp, pc;
    memset(cls, 0, 128);
    for (pc = 0; pc <= re->nprog; pc++) {
        const rx_inst *in = pc < re->nprog ? &re->prog[pc] : NULL;
        uint32_t m = 0;
        if (in && in->op != RX_CHAR && in->op != RX_CLASS && in->op != RX_ANY) continue;
        for (i = 0; i < 256; i++) map[i] = -1;
        for (cp = 0; cp < 128; cp++) {
            int bit;
            if (!in) bit = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
            else if (in->op == RX_CHAR) bit = cp == in->a;
            else if (in->op == RX_ANY) bit = cp != '\n' && cp != '\r';
            else bit = (re->classes[in->a].ascii[cp >> 3] >> (cp & 7)) & 1;
            i = (uint32_t)cls[cp] * 2 + (uint32_t)bit;
            if (map[i] < 0) map[i] = (int16_t)m++;
            nc[cp] = (uint8_t)map[i];
        }
        memcpy(cls, nc, 128);
        n = m;
    }
    re->nascii_classes = n;
}

/* ---- public ----------------------------------------------------------- */

tg_regex_limits tg_regex_default_limits(void) {
    tg_regex_limits l;
    l.max_pattern_bytes = 4096;
    l.max_states = 10000;
    return l;
}

static void parser_release(rx_parser *p) {
    tg_free(p->al, p->nodes, (size_t)p->capnodes * sizeof(rx_node));
    tg_free(p->al, p->cls, (size_t)p->capcls * sizeof(rx_cls_build));
    tg_free(p->al, p->pool, p->cappool * sizeof(uint32_t));
    tg_free(p->al, p->tmp, p->captmp * sizeof(uint32_t));
    tg_free(p->al, p->names, p->capnames * sizeof(size_t));
}

static void class_bitmap(rx_class *c) {
    uint32_t cp, i;
    memset(c->ascii, 0, sizeof c->ascii);
    for (cp = 0; cp < 128; cp++) {
        int in = 0;
        for (i = 0; i < c->count && c->ranges[2 * i] <= cp; i++)
            if (cp <= c->ranges[2 * i + 1]) { in = 1; break; }
        if (in != (int)c->negate) c->ascii[cp >> 3] |= (uint8_t)(1u << (cp & 7));
    }
}

int tg_regex_compile(const tg_allocator *alloc, const char *pattern, size_t len,
                     const tg_regex_limits *limits, tg_regex **out, tg_regex_error *err) {
    rx_parser p;
    tg_regex_limits lim = limits ? *limits : tg_regex_default_limits();
    tg_regex *re = NULL;
    int32_t root;
    uint64_t size;
    uint32_t i;
    rx_emit e;

    if (out) *out = NULL;
    if (err) { err->offset = 0; err->message[0] = 0; }
    memset(&p, 0, sizeof p);
    p.al = alloc;
    p.s = (const unsigned char *)pattern;
    p.len = len;
    p.err = err;
    if (!alloc || !out || (!pattern && len)) return fail(&p, 0, "invalid arguments");
    if (len > lim.max_pattern_bytes)
        return fail(&p, lim.max_pattern_bytes, "pattern is %zu bytes, over the limit of %zu", len, lim.max_pattern_bytes);

    root = parse_alt(&p);
    if (root >= 0 && p.pos < p.len) fail(&p, p.pos, "unmatched ')'");
    if (p.failed) goto bad;
    size = size_node(&p, root) + 1; /* + MATCH */
    if (size > lim.max_states) {
        fail(&p, 0, "pattern needs %llu NFA states, over the limit of %zu (reduce {n,m} counts)",
             (unsigned long long)size, lim.max_states);
        goto bad;
    }

    re = tg_malloc(alloc, sizeof *re);
    if (!re) { fail(&p, 0, "out of memory"); goto bad; }
    memset(re, 0, sizeof *re);
    re->alloc = *alloc;
    re->nprog = (uint32_t)size;
    re->prog = tg_malloc(alloc, (size_t)size * sizeof(rx_inst));
    re->nclasses = p.ncls;
    re->classes = tg_malloc(alloc, (size_t)p.ncls * sizeof(rx_class)); /* freed with the same size */
    if (!re->prog || !re->classes) { fail(&p, 0, "out of memory"); goto bad; }
    if (p.npool) {
        /* shrink-to-fit ownership transfer of the range pool */
        re->pool = tg_malloc(alloc, p.npool * sizeof(uint32_t));
        if (!re->pool) { fail(&p, 0, "out of memory"); goto bad; }
        memcpy(re->pool, p.pool, p.npool * sizeof(uint32_t));
        re->npool = p.npool;
    }
    for (i = 0; i < p.ncls; i++) {
        rx_class *c = &re->classes[i];
        static const uint32_t none[2] = {0, 0};
        c->ranges = p.cls[i].ext ? p.cls[i].ext : p.cls[i].count ? re->pool + p.cls[i].off : none;
        c->count = p.cls[i].count;
        c->negate = p.cls[i].negate;
        class_bitmap(c);
    }
    e.p = &p;
    e.prog = re->prog;
    e.n = 0;
    emit_node(&e, root);
    emit(&e, RX_MATCH, 0, 0);
    re->start = 0;
    {
        const rx_node *r = &p.nodes[root];
        re->anchored = r->type == N_BOL || (r->type == N_CAT && p.nodes[r->child].type == N_BOL);
    }
    if (analyze_literal(&p, root, re) || analyze_firstbyte(&p, re)) goto bad;
    ascii_classes(re);
    parser_release(&p);
    *out = re;
    return 0;
bad:
    parser_release(&p);
    tg_regex_free(re);
    return -1;
}
