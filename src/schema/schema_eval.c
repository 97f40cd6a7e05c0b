/* schema_eval.c - runs a compiled program against an instance.
 *
 * One dispatch (ev_op) over the flat instruction array. FLAG mode stops at
 * the first failing instruction and writes nothing; BASIC mode keeps going
 * and renders an error (instance location from the path stack, keyword
 * location from the instruction) for each failing leaf. Branches whose
 * failures do not make the whole fail (anyOf, oneOf, not, if, contains) run
 * "quiet". Annotations for unevaluated* are bitsets over the members of the
 * object/array at hand, allocated only by nodes that own an unevaluated*
 * keyword; the success path of every other keyword allocates nothing.
 * Recursion depth is counted and bounded (-1 past the limit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_internal.h"
#include "schema_enum.h"
#include "../base/utf8.h"
#include "../json/json_index.h"

#if defined(__GNUC__) || defined(__clang__)
#define TG_NOINLINE __attribute__((noinline))
#else
#define TG_NOINLINE
#endif

typedef struct ev_marks { unsigned char *bits; size_t n; } ev_marks;

typedef struct ev {
    const tg_schema *s;
    tg_arena *scratch;
    int basic, quiet, fatal;
    int oom; /* a fatal end was memory, not a limit (tg_sval: -2) */
    size_t max_errors;
    tg_sreport rep;     /* BASIC: renders the errors */
    void *re_scratch;   /* regex scratch: from the arena, or (large) malloc'd on first use */
    int re_owned;
    size_t depth, max_depth, steps, max_steps;
    tg_spath *path;
    size_t npath;
    uint32_t *scope;
    size_t nscope;
    /* the $refs followed to here (BASIC errors only): an error's keyword
     * location runs through them, "/properties/a/$ref/type", not the
     * target's own "/$defs/A/type" (2020-12 core 12.3.1) */
    struct ref_frame { const tg_sins *via; const char *base; } *frames;
    size_t nframes;
    /* member names of the instance's objects, for required /
     * dependentRequired / dependentSchemas: one sorted index per large
     * object, shared by every keyword of the evaluation that looks into it
     * (allOf of 8,000 {"required": [one name]} over a 16,000-member object
     * was a scan each). In an arena of its own, freed at the end: scratch
     * is rewound under annotations and branches, which would take an index
     * made there away from the keywords after them. */
    tg_arena names_arena;
    tg_json_index names;
} ev;

static int ev_node(ev *e, uint32_t id, const cJSON *inst, ev_marks *pm);
static inline int leaf_pass(ev *e, uint32_t id, const cJSON *inst);

static int stop(const ev *e) { return !e->basic || e->quiet || e->rep.n_errors >= e->max_errors; }

static void mark(ev_marks *m, size_t i) { if (m && i < m->n) m->bits[i >> 3] |= (unsigned char)(1u << (i & 7)); }
static int marked(const ev_marks *m, size_t i) { return m && i < m->n && (m->bits[i >> 3] >> (i & 7)) & 1; }

static int marks_new(ev *e, ev_marks *m, size_t n) {
    m->n = n;
    m->bits = tg_arena_calloc(e->scratch, (n + 7) / 8 + 1, 1);
    if (!m->bits) { e->fatal = e->oom = 1; return -1; }
    return 0;
}

static void marks_merge(ev_marks *dst, const ev_marks *src) {
    size_t i, nb;
    if (!dst || !src) return;
    nb = (src->n + 7) / 8;
    for (i = 0; i < nb && i < (dst->n + 7) / 8; i++) dst->bits[i] |= src->bits[i];
}

static size_t n_children(const cJSON *x) {
    size_t n = 0;
    const cJSON *c;
    for (c = x->child; c; c = c->next) n++;
    return n;
}

/* ---- errors (rendered by schema_report.c) ---- */

static int want_error(const ev *e) { return e->basic && !e->quiet && e->rep.n_errors < e->max_errors; }

/* s past base when s starts with it (a location within a $ref target,
 * relative to the target), else s whole. */
static const char *past(const char *s, const char *base) {
    size_t n = base ? strlen(base) : 0;
    return n && strncmp(s, base, n) == 0 ? s + n : s;
}

/* loc told along the evaluation path: the first $ref's location, then each
 * later $ref's and loc itself relative to the target before them. */
static const char *through_refs(ev *e, const char *loc) {
    size_t n = 0, i;
    const char **via = tg_arena_alloc(e->scratch, e->nframes * sizeof *via);
    if (!via) return NULL;
    for (i = 0; i < e->nframes; i++) {
        if (!(via[i] = tg_sins_loc(e->frames[i].via, e->scratch))) return NULL;
        n += strlen(i ? past(via[i], e->frames[i - 1].base) : via[0]);
    }
    n += strlen(past(loc, e->frames[e->nframes - 1].base));
    char *r = tg_arena_alloc(e->scratch, n + 1), *w = r;
    if (!r) return NULL;
    for (i = 0; i < e->nframes; i++) {
        const char *part = i ? past(via[i], e->frames[i - 1].base) : via[0];
        size_t l = strlen(part);
        memcpy(w, part, l);
        w += l;
    }
    const char *last = past(loc, e->frames[e->nframes - 1].base);
    memcpy(w, last, strlen(last) + 1);
    return r;
}

/* The error of instruction in failing on inst (key: the member at fault;
 * loc: where the keyword is, NULL for in's own location). */
TG_NOINLINE static void report(ev *e, const tg_sins *in, const cJSON *inst, size_t a, size_t b, const cJSON *key,
                               const char *loc) {
    if (!loc) loc = tg_sins_loc(in, e->scratch);
    if (loc && e->nframes) loc = through_refs(e, loc);
    if (!loc || tg_sreport_error(&e->rep, in, inst, a, b, key ? key->string : NULL, key ? tg_json_strlen(key->string) : 0,
                         loc, e->path, e->npath))
        e->fatal = e->oom = 1; /* (the error text's memory) */
}

/* Applies target, reached through the reference instruction in. */
static int follow(ev *e, const tg_sins *in, uint32_t target, const cJSON *inst, ev_marks *m) {
    if (!e->frames || e->nframes > e->max_depth) return ev_node(e, target, inst, m);
    e->frames[e->nframes].via = in;
    e->frames[e->nframes].base = e->s->nodes[target].loc;
    e->nframes++;
    int r = ev_node(e, target, inst, m);
    e->nframes--;
    return r;
}

/* ---- numbers ---- */

typedef struct dec { const char *dig; size_t n; long exp; int neg; int zero; } dec;

/* value = digits * 10^exp, digits without leading zeros. */
static int dec_parse(const char *s, dec *d) {
    const char *p = s, *ip;
    size_t intlen = 0, fraclen = 0;
    long ex = 0;
    d->neg = 0;
    if (*p == '-') { d->neg = 1; p++; }
    ip = p;
    while (*p >= '0' && *p <= '9') { p++; intlen++; }
    if (*p == '.') {
        p++;
        while (p[fraclen] >= '0' && p[fraclen] <= '9') fraclen++;
    }
    {
        const char *q = p + fraclen;
        if (*q == 'e' || *q == 'E') {
            int en = 0;
            q++;
            if (*q == '+') q++;
            else if (*q == '-') { en = 1; q++; }
            while (*q >= '0' && *q <= '9') {
                if (ex < 100000000L) ex = ex * 10 + (*q - '0');
                q++;
            }
            if (en) ex = -ex;
        }
    }
    /* digits are ip[0..intlen) then p[0..fraclen): not contiguous when a
     * '.' sits between; the caller walks them with dec_digit. */
    d->dig = ip;
    d->n = intlen + fraclen;
    d->exp = ex - (long)fraclen;
    d->zero = 1;
    {
        size_t i;
        for (i = 0; i < d->n; i++) {
            char ch = i < intlen ? ip[i] : p[i - intlen];
            if (ch != '0') { d->zero = 0; break; }
        }
    }
    return (int)intlen;
}

static int dec_digit(const dec *d, size_t intlen, size_t i) {
    return i < intlen ? d->dig[i] - '0' : d->dig[intlen + 1 + (i - intlen)] - '0';
}

/* (a + b) mod m for a, b < m, any m < 2^64: no sum past 2^64 */
static uint64_t addmod(uint64_t a, uint64_t b, uint64_t m) {
    return a >= m - b ? a - (m - b) : a + b;
}

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {
    uint64_t r = 0;
    a %= m;
    while (b) {
        if (b & 1) r = addmod(r, a, m);
        a = addmod(a, a, m);
        b >>= 1;
    }
    return r;
}

static uint64_t pow10mod(unsigned long k, uint64_t m) {
    uint64_t r = 1 % m, b = 10 % m;
    while (k) {
        if (k & 1) r = mulmod(r, b, m);
        b = mulmod(b, b, m);
        k >>= 1;
    }
    return r;
}

/* The significant digits of d, leading and trailing zeros dropped, as
 * [*lo, *hi) for dec_digit, and the power of ten of the last one. */
static void dec_trim(const dec *d, size_t intlen, size_t *lo, size_t *hi, long *exp) {
    size_t a = 0, b = d->n;
    while (a < b && dec_digit(d, intlen, a) == 0) a++;
    while (b > a && dec_digit(d, intlen, b - 1) == 0) b--;
    *lo = a;
    *hi = b;
    *exp = d->exp + (long)(d->n - b);
}

/* 1 when B (digits [blo, bhi) of b, more than 19) divides A*10^k (digits
 * [alo, ahi) of a), long division a digit at a time on decimal digits;
 * each digit costs about 10 passes over B's, charged as evaluation steps.
 * -1 when that is past the steps left or memory: not checked, never a
 * guess (a quotient past a long double's precision is no answer). */
static int big_multiple(ev *e, const dec *a, size_t ai, size_t alo, size_t ahi, unsigned long k, const dec *b,
                        size_t bi, size_t blo, size_t bhi) {
    size_t n = bhi - blo, i, j;
    size_t left = e->steps < e->max_steps ? e->max_steps - e->steps : 0;
    if (k > left || (ahi - alo + k) > left / (10 * (n + 1))) return -1;
    e->steps += (ahi - alo + k) * 10 * (n + 1);
    tg_arena_mark m = tg_arena_save(e->scratch);
    unsigned char *B = tg_arena_alloc(e->scratch, n + 1), *R = tg_arena_calloc(e->scratch, n + 1, 1);
    if (!B || !R) { tg_arena_rewind(e->scratch, m); e->oom = 1; return -1; }
    B[0] = 0; /* B and the remainder R: n + 1 digits, most significant first; R < B */
    for (i = 0; i < n; i++) B[i + 1] = (unsigned char)dec_digit(b, bi, blo + i);
    for (i = alo; i < ahi + k; i++) {
        memmove(R, R + 1, n);
        R[n] = (unsigned char)(i < ahi ? dec_digit(a, ai, i) : 0);
        for (;;) { /* R -= B while R >= B (at most 9 times) */
            for (j = 0; j <= n && R[j] == B[j]; j++) {}
            if (j <= n && R[j] < B[j]) break;
            int borrow = 0;
            for (j = n + 1; j-- > 0;) {
                int d = R[j] - B[j] - borrow;
                borrow = d < 0;
                R[j] = (unsigned char)(d < 0 ? d + 10 : d);
            }
        }
    }
    for (j = 0; j <= n && R[j] == 0; j++) {}
    tg_arena_rewind(e->scratch, m);
    return j > n;
}

/* 1 when x is an exact multiple of m (both number nodes, m > 0), 0 when
 * not, -1 when it could not be checked within the limits. Exact from the
 * lexemes, whatever the instance's length or either exponent: with x =
 * A*10^ea and m = B*10^eb (A and B without trailing zeros), x/m is an
 * integer iff ea >= eb and B divides A*10^(ea-eb) (for ea < eb, B*10^(eb-ea)
 * would have to divide A, which does not end in 0): modular arithmetic for
 * B < 10^19 (< 2^64), long division past it. */
TG_NOINLINE static int multiple_of(ev *e, const cJSON *x, double md, const char *mlex) {
    if (x->valuestring && mlex) {
        dec a, b;
        int ai = dec_parse(x->valuestring, &a), bi = dec_parse(mlex, &b);
        size_t alo, ahi, blo, bhi, i;
        long ea, eb;
        if (a.zero) return 1;
        if (b.zero) return 0; /* (the compiler keeps only m > 0) */
        dec_trim(&a, (size_t)ai, &alo, &ahi, &ea);
        dec_trim(&b, (size_t)bi, &blo, &bhi, &eb);
        if (ea < eb) return 0;
        if (bhi - blo > 19)
            return big_multiple(e, &a, (size_t)ai, alo, ahi, (unsigned long)(ea - eb), &b, (size_t)bi, blo, bhi);
        uint64_t B = 0, r = 0;
        for (i = blo; i < bhi; i++) B = B * 10 + (uint64_t)dec_digit(&b, (size_t)bi, i);
        if (B == 1) return 1;
        for (i = alo; i < ahi; i++) r = addmod(mulmod(r, 10, B), (uint64_t)dec_digit(&a, (size_t)ai, i) % B, B);
        return mulmod(r, pow10mod((unsigned long)(ea - eb), B), B) == 0;
    }
    if (x->valuestring && x->valuedouble == 0) return 0; /* non-zero, too small for a double */
    {
        long double q = (long double)x->valuedouble / (long double)md;
        /* a non-zero x over a divisor past its magnitude (multipleOf 1e400:
         * an infinite double) is no multiple: 0 < |x/m| < 1 */
        if (q == 0 && x->valuedouble != 0) return 0;
        /* past a long double's precision the quotient says nothing: not
         * checked, never counted as a multiple */
        if (!isfinite((double)q) || fabsl(q) > 1e30L) return -1;
        return q == floorl(q);
    }
}

/* 1 and the indices of two equal items, 0 when all are distinct, -1 out of
 * scratch memory or steps. Small arrays: pairwise; larger ones: a hash table
 * in the scratch arena (linear expected time, whatever the array's size).
 * Each probe past the first is a step of the evaluation's budget: values
 * made to collide end in a bounded error, not quadratic time. */
TG_NOINLINE static int find_duplicate(ev *e, const cJSON *arr, size_t *ia, size_t *ib) {
    const cJSON *a, *b;
    size_t n = n_children(arr), i, cap, mask;
    struct slot { uint64_t h; const cJSON *v; size_t idx; } *tab;
    tg_arena_mark am;
    if (n <= 16) {
        for (a = arr->child, *ia = 0; a; a = a->next, (*ia)++)
            for (b = a->next, *ib = *ia + 1; b; b = b->next, (*ib)++)
                if (tg_json_equal_in(a, b, e->scratch, 0)) return 1;
        return 0;
    }
    for (cap = 32; cap < n * 2; cap *= 2) {}
    mask = cap - 1;
    am = tg_arena_save(e->scratch);
    tab = tg_arena_calloc(e->scratch, cap, sizeof *tab);
    if (!tab) { e->fatal = e->oom = 1; return -1; }
    for (a = arr->child, i = 0; a; a = a->next, i++) {
        uint64_t h = tg_svalue_hash(a);
        size_t j;
        for (j = (size_t)h & mask; tab[j].v; j = (j + 1) & mask) {
            if (++e->steps > e->max_steps) {
                tg_arena_rewind(e->scratch, am);
                e->fatal = 1;
                return -1;
            }
            if (tab[j].h == h && tg_json_equal_in(tab[j].v, a, e->scratch, 0)) {
                *ia = tab[j].idx;
                *ib = i;
                tg_arena_rewind(e->scratch, am);
                return 1;
            }
        }
        tab[j].h = h; tab[j].v = a; tab[j].idx = i;
    }
    tg_arena_rewind(e->scratch, am);
    return 0;
}

/* ---- regex ---- */

#define RE_SCRATCH_EAGER 4096u

/* tg_regex_search with scratch allocated on first need: 1, 0, -1 (out of
 * memory or the search failed). */
static int re_search(ev *e, uint32_t idx, const char *s, size_t len) {
    const tg_regex *re = e->s->regexes[idx];
    if (!e->re_scratch && tg_regex_needs_scratch(re)) {
        e->re_scratch = tg_malloc(&e->s->alloc, e->s->regex_scratch);
        if (!e->re_scratch) {
            e->fatal = e->oom = 1;
            return -1;
        }
        e->re_owned = 1;
    }
    /* its work is the evaluation's: each step of the match a step of the budget */
    uint64_t budget = e->steps < e->max_steps ? e->max_steps - e->steps : 0;
    uint64_t left = budget;
    int r = tg_regex_search_bounded(re, s, len, e->re_scratch, &left);
    e->steps += (size_t)(budget - left);
    if (r < 0) e->fatal = 1;
    return r;
}

/* ---- property lookup (tg_sfind_prop: schema_internal.h; tg_json_same_bytes: json.h) ---- */

/* 1 when object o has a member named n: a scan of a small object, a
 * binary search in the evaluation's index of a large one (e->names). */
static int has_member(ev *e, const cJSON *o, const tg_sname *n) {
    return tg_json_index_get(&e->names, o, n->s, n->len) != NULL;
}

/* ---- instance path ---- */

static int child_key(ev *e, const cJSON *ch, uint32_t node, ev_marks *m) {
    int r;
    e->path[e->npath].key = ch->string;
    e->path[e->npath].len = tg_json_strlen(ch->string);
    e->npath++;
    r = ev_node(e, node, ch, m);
    e->npath--;
    return r;
}

static int child_idx(ev *e, size_t idx, const cJSON *ch, uint32_t node) {
    int r;
    e->path[e->npath].key = NULL;
    e->path[e->npath].idx = idx;
    e->npath++;
    r = ev_node(e, node, ch, NULL);
    e->npath--;
    return r;
}

/* format "regex": an ECMA-262 regex, backreferences and lookaround
 * included (only the syntax; allocates while parsing; only when asserting).
 * 1 it is one, 0 it is not, -1 it is past this engine's limits (longer than
 * max_regex_bytes, groups nested too deep, counts or class ranges too
 * many, memory): not judged. */
TG_NOINLINE static int regex_ok(ev *e, const cJSON *inst) {
    tg_regex_error rerr;
    tg_regex_limits lim = tg_regex_default_limits();
    size_t rl = tg_json_strlen(inst->valuestring);
    if (rl > e->s->limits.max_regex_bytes) return -1;
    if (lim.max_pattern_bytes < rl) lim.max_pattern_bytes = rl;
    if (tg_regex_syntax_ok(&e->s->alloc, inst->valuestring, rl, &lim, &rerr) == 0) return 1;
    return rerr.limit ? -1 : 0;
}

/* tg_json_is_integer, with the common case (a lexeme without '.', 'e' or
 * 'E' is an integer) decided here. */
static int is_integer(const cJSON *v) {
    const char *s = v->valuestring;
    size_t i, n;
    if (!s) return 0;
    n = tg_json_strlen(s);
    for (i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') return tg_json_is_integer(v);
    return 1;
}

static uint32_t type_of(const cJSON *v) {
    if (!v) return 0;
    if (v->type & (cJSON_True | cJSON_False)) return TG_ST_BOOLEAN;
    switch (v->type & 0xFF) {
    case cJSON_NULL: return TG_ST_NULL;
    case cJSON_Object: return TG_ST_OBJECT;
    case cJSON_Array: return TG_ST_ARRAY;
    case cJSON_String: return TG_ST_STRING;
    case cJSON_Number: return TG_ST_NUMBER | (is_integer(v) ? TG_ST_INTEGER : 0);
    default: return 0;
    }
}

#define COMBINE(r) do { if ((r) < 0) return -1; if ((r) == 0) { valid = 0; if (stop(e)) return 0; } } while (0)

/* enum: 1 when inst equals one of its values, 0 when none, -1 past the
 * evaluation's steps: each probe of its index past the first is a step,
 * and so is each comparison of a long enum scanned (its index given up). */
static int enum_has(ev *e, const tg_sins *in, const cJSON *inst) {
    const cJSON *it;
    size_t k = 0;
    int found = 0;
    if (in->u.val.index) found = tg_senum_has(in->u.val.index, inst, e->scratch, &e->steps);
    else {
        for (it = in->u.val.value->child; it && !found; it = it->next, k++) found = tg_json_equal_in(inst, it, e->scratch, 0);
        if (k > TG_SENUM_SCAN_MAX) e->steps += k;
    }
    if (e->steps > e->max_steps) {
        e->fatal = 1;
        return -1;
    }
    return found;
}

TG_NOINLINE static int ev_op(ev *e, const tg_sins *in, const cJSON *inst, ev_marks *m) {
    int valid = 1, r;
    size_t i;
    const cJSON *it;
    switch ((tg_sop)in->op) {
    case TG_OP_FALSE:
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    case TG_OP_TYPE: {
        uint32_t t = type_of(inst);
        if ((t & in->u.mask) || ((t & TG_ST_NUMBER) && (in->u.mask & TG_ST_NUMBER))) return 1;
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    }
    case TG_OP_CONST:
        if (tg_json_equal_in(inst, in->u.val.value, e->scratch, 0)) return 1;
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    case TG_OP_ENUM:
        if ((r = enum_has(e, in, inst)) != 0) return r;
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    case TG_OP_MULTIPLE_OF:
    {
        int mo = tg_sj_IsNumber(inst) ? multiple_of(e, inst, in->u.num.d, in->u.num.lex) : 1;
        if (mo < 0) { e->fatal = 1; return -1; }
        if (mo) return 1;
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    }
    case TG_OP_MAXIMUM: case TG_OP_EXCL_MAXIMUM: case TG_OP_MINIMUM: case TG_OP_EXCL_MINIMUM: {
        double x, l = in->u.num.d;
        if (!tg_sj_IsNumber(inst)) return 1;
        x = inst->valuedouble;
        if (x == l && inst->valuestring && in->u.num.lex) { /* a tie of doubles: the lexemes decide */
            /* (rounding is monotonic: unequal doubles already order the values) */
            int c = tg_json_decimal_cmp(inst->valuestring, tg_json_strlen(inst->valuestring), in->u.num.lex,
                                        tg_json_strlen(in->u.num.lex));
            if (in->op == TG_OP_MAXIMUM ? c <= 0 : in->op == TG_OP_EXCL_MAXIMUM ? c < 0 : in->op == TG_OP_MINIMUM ? c >= 0 : c > 0)
                return 1;
        } else {
            switch ((tg_sop)in->op) {
            case TG_OP_MAXIMUM: if (x <= l) return 1; break;
            case TG_OP_EXCL_MAXIMUM: if (x < l) return 1; break;
            case TG_OP_MINIMUM: if (x >= l) return 1; break;
            default: if (x > l) return 1; break;
            }
        }
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    }
    case TG_OP_MAX_LENGTH: case TG_OP_MIN_LENGTH: {
        size_t n;
        if (!tg_sj_IsString(inst)) return 1;
        n = tg_json_strlen(inst->valuestring);
        /* code points <= bytes <= 4 * code points: often the byte length decides */
        if (in->op == TG_OP_MAX_LENGTH ? n <= in->u.count : n / 4 >= in->u.count) return 1;
        n = tg_utf8_count((const unsigned char *)inst->valuestring, n);
        if (in->op == TG_OP_MAX_LENGTH ? n <= in->u.count : n >= in->u.count) return 1;
        if (want_error(e)) report(e, in, inst, n, 0, NULL, NULL);
        return 0;
    }
    case TG_OP_PATTERN:
        if (!tg_sj_IsString(inst)) return 1;
        r = re_search(e, in->u.re, inst->valuestring, tg_json_strlen(inst->valuestring));
        if (r == 1) return 1;
        if (r < 0) { e->fatal = 1; return -1; }
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    case TG_OP_FORMAT:
        if (!tg_sj_IsString(inst)) return 1;
        if (tg_sformat_is_regex(in->u.format)) {
            /* (past this engine's limits the string is not judged: too_large, not "no regex") */
            if ((r = regex_ok(e, inst)) < 0) { e->fatal = 1; return -1; }
            if (r) return 1;
        } else if (tg_sformat_check(in->u.format, inst->valuestring, tg_json_strlen(inst->valuestring)) != 0) return 1;
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    case TG_OP_MAX_ITEMS: case TG_OP_MIN_ITEMS: case TG_OP_MAX_PROPS: case TG_OP_MIN_PROPS: {
        size_t n;
        int arr = in->op == TG_OP_MAX_ITEMS || in->op == TG_OP_MIN_ITEMS;
        int mx = in->op == TG_OP_MAX_ITEMS || in->op == TG_OP_MAX_PROPS;
        if (arr ? !tg_sj_IsArray(inst) : !tg_sj_IsObject(inst)) return 1;
        n = n_children(inst);
        if (mx ? n <= in->u.count : n >= in->u.count) return 1;
        if (want_error(e)) report(e, in, inst, n, 0, NULL, NULL);
        return 0;
    }
    case TG_OP_UNIQUE_ITEMS: {
        size_t ia = 0, ib = 0;
        if (!tg_sj_IsArray(inst)) return 1;
        r = find_duplicate(e, inst, &ia, &ib);
        if (r < 0) return -1;
        if (!r) return 1;
        if (want_error(e)) report(e, in, inst, ia, ib, NULL, NULL);
        return 0;
    }
    case TG_OP_PREFIX_ITEMS:
        if (!tg_sj_IsArray(inst)) return 1;
        for (it = inst->child, i = 0; it && i < in->u.list.n; it = it->next, i++) {
            r = child_idx(e, i, it, in->u.list.nodes[i]);
            mark(m, i);
            COMBINE(r);
        }
        return valid;
    case TG_OP_ITEMS_FROM:
        if (!tg_sj_IsArray(inst)) return 1;
        for (it = inst->child, i = 0; it; it = it->next, i++) {
            if (i < in->u.items.from) continue;
            r = leaf_pass(e, in->u.items.node, it) ? 1 : child_idx(e, i, it, in->u.items.node);
            mark(m, i);
            COMBINE(r);
        }
        return valid;
    case TG_OP_CONTAINS: {
        size_t cnt = 0;
        int track = in->u.contains.marks && m;
        if (!tg_sj_IsArray(inst)) return 1;
        e->quiet++;
        for (it = inst->child, i = 0; it; it = it->next, i++) {
            r = child_idx(e, i, it, in->u.contains.node);
            if (r < 0) { e->quiet--; return -1; }
            if (r == 1) {
                cnt++;
                if (track) mark(m, i);
                else if (in->u.contains.max == (size_t)-1 && cnt >= in->u.contains.min) break;
                else if (cnt > in->u.contains.max) break;
            }
        }
        e->quiet--;
        if (cnt >= in->u.contains.min && cnt <= in->u.contains.max) return 1;
        if (want_error(e)) report(e, in, inst, cnt, 0, NULL, NULL);
        return 0;
    }
    case TG_OP_REQUIRED: {
        if (!tg_sj_IsObject(inst)) return 1;
        for (i = 0; i < in->u.req.n; i++) {
            if (has_member(e, inst, &in->u.req.names[i])) continue;
            valid = 0;
            if (want_error(e)) report(e, in, inst, i, 0, NULL, NULL);
            if (stop(e)) return 0;
        }
        return valid;
    }
    case TG_OP_PROPS: {
        const tg_sprops *P = in->u.props;
        if (!tg_sj_IsObject(inst)) return 1;
        for (it = inst->child, i = 0; it; it = it->next, i++) {
            size_t kl = tg_json_strlen(it->string);
            int matched = 0;
            uint32_t j;
            const tg_sprop *p = P->n_props ? tg_sfind_prop(P, it->string, kl) : NULL;
            if (p) {
                matched = 1;
                if (!leaf_pass(e, p->node, it)) {
                    r = child_key(e, it, p->node, NULL);
                    COMBINE(r);
                }
            }
            if (P->n_patterns) {
                tg_spat_it pi;
                int known;
                tg_spat_begin(&pi, P, it->string, kl);
                if (P->exact) e->steps++; /* (the lookup among the exact patterns) */
                while ((j = tg_spat_next(&pi, &known)) != TG_SNONE) {
                    r = known ? 1 : re_search(e, P->patterns[j].re, it->string, kl);
                    if (r < 0) { e->fatal = 1; return -1; }
                    if (!r) continue;
                    matched = 1;
                    r = child_key(e, it, P->patterns[j].node, NULL);
                    COMBINE(r);
                }
            }
            if (!matched && P->additional != TG_SNONE) {
                matched = 1;
                if (e->s->nodes[P->additional].is_false) {
                    valid = 0;
                    if (want_error(e)) {
                        const char *al = tg_sloc_additional(P, e->scratch);
                        if (al) report(e, in, inst, 0, 0, it, al);
                        else e->fatal = e->oom = 1;
                    }
                    if (stop(e)) return 0;
                } else {
                    r = child_key(e, it, P->additional, NULL);
                    COMBINE(r);
                }
            }
            if (matched) mark(m, i);
        }
        return valid;
    }
    case TG_OP_DEP_REQUIRED: {
        if (!tg_sj_IsObject(inst)) return 1;
        for (i = 0; i < in->u.deps.n; i++) {
            const tg_sdep *d = &in->u.deps.deps[i];
            uint32_t j;
            if (!has_member(e, inst, &d->name)) continue;
            for (j = 0; j < d->n_required; j++) {
                if (has_member(e, inst, &d->required[j])) continue;
                valid = 0;
                if (want_error(e)) report(e, in, inst, i, j, NULL, NULL);
                if (stop(e)) return 0;
            }
        }
        return valid;
    }
    case TG_OP_DEP_SCHEMAS: {
        if (!tg_sj_IsObject(inst)) return 1;
        for (i = 0; i < in->u.deps.n; i++) {
            const tg_sdep *d = &in->u.deps.deps[i];
            if (!has_member(e, inst, &d->name)) continue;
            r = ev_node(e, d->node, inst, m);
            COMBINE(r);
        }
        return valid;
    }
    case TG_OP_PROPERTY_NAMES:
        if (!tg_sj_IsObject(inst)) return 1;
        for (it = inst->child; it; it = it->next) {
            cJSON name;
            memset(&name, 0, sizeof name);
            name.type = cJSON_String;
            name.valuestring = it->string;
            e->path[e->npath].key = it->string;
            e->path[e->npath].len = tg_json_strlen(it->string);
            e->npath++;
            r = ev_node(e, in->u.node, &name, NULL);
            e->npath--;
            COMBINE(r);
        }
        return valid;
    case TG_OP_ALL_OF:
        for (i = 0; i < in->u.list.n; i++) {
            r = ev_node(e, in->u.list.nodes[i], inst, m);
            COMBINE(r);
        }
        return valid;
    case TG_OP_ANY_OF: case TG_OP_ONE_OF: {
        size_t cnt = 0;
        int one = in->op == TG_OP_ONE_OF;
        e->quiet++;
        for (i = 0; i < in->u.list.n; i++) {
            if (m) {
                ev_marks t;
                tg_arena_mark am = tg_arena_save(e->scratch);
                if (marks_new(e, &t, m->n)) { e->quiet--; return -1; }
                r = ev_node(e, in->u.list.nodes[i], inst, &t);
                if (r == 1 && (!one || cnt == 0)) marks_merge(m, &t);
                tg_arena_rewind(e->scratch, am);
            } else {
                r = ev_node(e, in->u.list.nodes[i], inst, NULL);
            }
            if (r < 0) { e->quiet--; return -1; }
            if (r == 1) {
                cnt++;
                if (!m && !one) break;
                if (one && cnt > 1) break;
            }
        }
        e->quiet--;
        if (one ? cnt == 1 : cnt >= 1) return 1;
        if (want_error(e)) {
            if (want_error(e)) report(e, in, inst, cnt, 0, NULL, NULL);
            if (cnt == 0) {
                for (i = 0; i < in->u.list.n && !stop(e); i++) {
                    r = ev_node(e, in->u.list.nodes[i], inst, NULL);
                    if (r < 0) return -1;
                }
            }
        }
        return 0;
    }
    case TG_OP_NOT:
        e->quiet++;
        r = ev_node(e, in->u.node, inst, NULL);
        e->quiet--;
        if (r < 0) return -1;
        if (r == 0) return 1;
        if (want_error(e)) report(e, in, inst, 0, 0, NULL, NULL);
        return 0;
    case TG_OP_IF: {
        ev_marks t;
        tg_arena_mark am = tg_arena_save(e->scratch);
        e->quiet++;
        if (m && marks_new(e, &t, m->n)) { e->quiet--; return -1; }
        r = ev_node(e, in->u.cond.c, inst, m ? &t : NULL);
        e->quiet--;
        if (r == 1 && m) marks_merge(m, &t);
        tg_arena_rewind(e->scratch, am);
        if (r < 0) return -1;
        if (r == 1 && in->u.cond.t != TG_SNONE) return ev_node(e, in->u.cond.t, inst, m);
        if (r == 0 && in->u.cond.e != TG_SNONE) return ev_node(e, in->u.cond.e, inst, m);
        return 1;
    }
    case TG_OP_REF:
        return follow(e, in, in->u.node, inst, m);
    case TG_OP_DYNAMIC_REF: {
        uint32_t target = in->u.dyn.node;
        size_t k;
        for (i = 0; i < e->nscope; i++) {
            const tg_sres *rs = &e->s->res[e->scope[i]];
            for (k = 0; k < rs->n_dyn; k++)
                if (rs->dyn[k].len == in->u.dyn.len && !memcmp(rs->dyn[k].name, in->u.dyn.anchor, in->u.dyn.len)) break;
            if (k < rs->n_dyn) { target = rs->dyn[k].node; break; }
        }
        return follow(e, in, target, inst, m);
    }
    case TG_OP_RECURSIVE_REF: {
        uint32_t target = in->u.dyn.node;
        if (e->s->res[e->s->nodes[target].resource].recursive_anchor) {
            for (i = 0; i < e->nscope; i++) {
                const tg_sres *rs = &e->s->res[e->scope[i]];
                if (rs->recursive_anchor && rs->root != TG_SNONE) { target = rs->root; break; }
            }
        }
        return follow(e, in, target, inst, m);
    }
    case TG_OP_UNEVAL_ITEMS:
        if (!tg_sj_IsArray(inst)) return 1;
        for (it = inst->child, i = 0; it; it = it->next, i++) {
            if (marked(m, i)) continue;
            if (e->s->nodes[in->u.node].is_false) {
                valid = 0;
                if (want_error(e)) report(e, in, inst, i, 0, NULL, NULL);
                if (stop(e)) return 0;
                continue;
            }
            r = child_idx(e, i, it, in->u.node);
            mark(m, i);
            COMBINE(r);
        }
        return valid;
    case TG_OP_UNEVAL_PROPS:
        if (!tg_sj_IsObject(inst)) return 1;
        for (it = inst->child, i = 0; it; it = it->next, i++) {
            if (marked(m, i)) continue;
            if (e->s->nodes[in->u.node].is_false) {
                valid = 0;
                if (want_error(e)) report(e, in, inst, 0, 0, it, NULL);
                if (stop(e)) return 0;
                continue;
            }
            r = child_key(e, it, in->u.node, NULL);
            mark(m, i);
            COMBINE(r);
        }
        return valid;
    }
    return 1;
}

/* Type bits by cJSON type for the fast path: a number counts as "number"
 * only (whether it is an integer takes a look at its lexeme: ev_op). */
static const uint8_t fast_type[256] = {
    [cJSON_False] = TG_ST_BOOLEAN, [cJSON_True] = TG_ST_BOOLEAN, [cJSON_NULL] = TG_ST_NULL,
    [cJSON_Number] = TG_ST_NUMBER, [cJSON_String] = TG_ST_STRING, [cJSON_Array] = TG_ST_ARRAY,
    [cJSON_Object] = TG_ST_OBJECT,
};

/* 1 when instruction in passes on inst by a quick check (the success path
 * of the common keywords); 0: not decided here, run ev_op. */
static inline int fast_pass(ev *e, const tg_sins *in, const cJSON *inst) {
    switch ((tg_sop)in->op) {
    case TG_OP_TYPE:
        return (fast_type[inst->type & 0xFF] & in->u.mask) != 0;
    case TG_OP_MAX_LENGTH:
        return (inst->type & 0xFF) != cJSON_String || tg_json_strlen(inst->valuestring) <= in->u.count;
    case TG_OP_MIN_LENGTH:
        return (inst->type & 0xFF) != cJSON_String || tg_json_strlen(inst->valuestring) / 4 >= in->u.count ||
               (in->u.count == 1 && tg_json_strlen(inst->valuestring) > 0);
    case TG_OP_MAXIMUM: /* (a tie of doubles goes to ev_op, which reads the lexemes) */
        return (inst->type & 0xFF) != cJSON_Number || inst->valuedouble < in->u.num.d;
    case TG_OP_MINIMUM:
        return (inst->type & 0xFF) != cJSON_Number || inst->valuedouble > in->u.num.d;
    case TG_OP_PATTERN:
        return (inst->type & 0xFF) != cJSON_String ||
               re_search(e, in->u.re, inst->valuestring, tg_json_strlen(inst->valuestring)) == 1;
    case TG_OP_MAX_ITEMS:
        return (inst->type & 0xFF) != cJSON_Array || n_children(inst) <= in->u.count;
    case TG_OP_ENUM:
        if ((inst->type & 0xFF) == cJSON_String) { /* tg_json_equal for a string, inline */
            const cJSON *it;
            size_t l = tg_json_strlen(inst->valuestring);
            size_t k = 0;
            if (in->u.val.index) return tg_senum_has_str(in->u.val.index, inst->valuestring, l, &e->steps);
            for (it = in->u.val.value->child; it; it = it->next) {
                /* (a long enum whose index was given up is ev_op's to scan, each comparison a step) */
                if (++k > TG_SENUM_SCAN_MAX) return 0;
                if ((it->type & 0xFF) == cJSON_String && tg_json_strlen(it->valuestring) == l &&
                    tg_json_same_bytes(it->valuestring, inst->valuestring, l))
                    return 1;
            }
        }
        return 0;
    default:
        return 0;
    }
}

/* 1 when leaf node id (tg_snode.leaf: only fast_pass keywords) passes on
 * inst by fast_pass alone, counted as the step ev_node would count; 0: not
 * decided here, evaluate it with ev_node (which redoes it, errors and all). */
static inline int leaf_pass(ev *e, uint32_t id, const cJSON *inst) {
    const tg_snode *nd = &e->s->nodes[id];
    const tg_sins *in, *end;
    if (!nd->leaf || e->fatal || e->depth >= e->max_depth || e->steps >= e->max_steps) return 0;
    for (in = e->s->ins + nd->start, end = in + nd->count; in < end; in++)
        if (!fast_pass(e, in, inst)) return 0;
    e->steps++;
    return 1;
}

static int ev_node(ev *e, uint32_t id, const cJSON *inst, ev_marks *pm) {
    const tg_snode *nd = &e->s->nodes[id];
    const tg_sins *in, *end;
    ev_marks own, *m = pm;
    tg_arena_mark am;
    int valid = 1, pushed = 0, container;
    if (nd->count == 0) return 1;
    if (e->fatal) return -1;
    if (e->depth >= e->max_depth || ++e->steps > e->max_steps) { e->fatal = 1; return -1; }
    e->depth++;
    /* resources that cannot answer a dynamic reference stay off the scope:
     * the lookups below skip them anyway */
    if (nd->scoped && (!e->nscope || e->scope[e->nscope - 1] != nd->resource)) {
        e->scope[e->nscope++] = nd->resource;
        pushed = 1;
    }
    container = tg_sj_IsObject(inst) || tg_sj_IsArray(inst);
    if (!container) m = NULL;
    if (nd->has_uneval && container) {
        am = tg_arena_save(e->scratch);
        if (marks_new(e, &own, n_children(inst))) { valid = -1; goto out; }
        m = &own;
    }
    in = e->s->ins + nd->start;
    end = in + nd->count;
    for (; in < end; in++) {
        int r;
        /* the common keywords' success path, decided without a call;
         * anything else (and every failure, for its error) goes to ev_op */
        if (in->op == TG_OP_REF) {
            r = follow(e, in, in->u.node, inst, m);
            goto done;
        }
        /* (a pattern goes straight to ev_op: a failing one would run twice) */
        if (in->op != TG_OP_PATTERN && fast_pass(e, in, inst)) continue;
        r = ev_op(e, in, inst, m);
    done:
        if (r < 0 || e->fatal) { valid = -1; break; }
        if (r == 0) { valid = 0; if (stop(e)) break; }
    }
    if (m == &own) {
        if (valid == 1 && pm) marks_merge(pm, &own);
        tg_arena_rewind(e->scratch, am);
    }
out:
    if (pushed) e->nscope--;
    e->depth--;
    return valid;
}

static int sval(const tg_schema *s, const cJSON *instance, tg_arena *scratch, tg_output_mode mode, size_t max_errors,
                const tg_schema_errors *to, int text, size_t *probes) {
    tg_buf *errors = to ? to->out : NULL;
    int json = errors && !to->lens && !text;
    ev e;
    int r;
    memset(&e, 0, sizeof e);
    e.s = s;
    e.scratch = scratch;
    e.basic = mode == TG_OUTPUT_BASIC && errors;
    e.max_errors = max_errors ? max_errors : 1;
    e.max_depth = s->limits.max_depth * 2;
    e.max_steps = s->limits.max_eval_steps;
    e.path = tg_arena_alloc(scratch, (e.max_depth + 1) * sizeof *e.path);
    e.scope = tg_arena_alloc(scratch, (e.max_depth + 1) * sizeof *e.scope);
    if (e.basic && !text) { /* (compile diagnostics keep the metaschema's own locations) */
        e.frames = tg_arena_alloc(scratch, (e.max_depth + 2) * sizeof *e.frames);
        if (!e.frames) return -2;
    }
    /* small regex scratch up front; a large one only when a pattern that
     * needs it runs (re_search) */
    e.re_scratch = s->regex_scratch && s->regex_scratch <= RE_SCRATCH_EAGER ? tg_arena_alloc(scratch, s->regex_scratch) : NULL;
    if (!e.path || !e.scope || (s->regex_scratch && s->regex_scratch <= RE_SCRATCH_EAGER && !e.re_scratch)) return -2;
    tg_sreport_init(&e.rep, to, text, &s->alloc);
    tg_arena_init(&e.names_arena, s->alloc);
    tg_json_index_init(&e.names, &e.names_arena);
    if (e.basic && json) tg_buf_putc(errors, '[');
    r = ev_node(&e, s->root, instance, NULL);
    if (e.basic && json) tg_buf_putc(errors, ']');
    if (probes) *probes += e.names.probes;
    tg_arena_free(&e.names_arena);
    tg_sreport_free(&e.rep);
    if (e.re_owned) tg_free(&s->alloc, e.re_scratch, s->regex_scratch);
    if (e.fatal) return e.oom ? -2 : -1;
    if (e.basic && (errors->failed || (to->lens && to->lens->failed))) return -2;
    return r;
}

int tg_sval(const tg_schema *s, const cJSON *instance, tg_arena *scratch, tg_output_mode mode, size_t max_errors,
            const tg_schema_errors *to, int text) {
    return sval(s, instance, scratch, mode, max_errors, to, text, NULL);
}

int tg_sval_probes(const tg_schema *s, const cJSON *instance, tg_arena *scratch, size_t *probes) {
    return sval(s, instance, scratch, TG_OUTPUT_FLAG, 0, NULL, 0, probes);
}

int tg_schema_validate(const tg_schema *s, const cJSON *instance, tg_arena *scratch, tg_output_mode mode,
                       size_t max_errors, tg_buf *errors) {
    if (!s || !instance || !scratch) return -1;
    tg_schema_errors to = {errors, NULL, NULL};
    int r = tg_sval(s, instance, scratch, mode, max_errors, errors ? &to : NULL, 0);
    return r < 0 ? -1 : r; /* (memory or a limit, alike to callers) */
}

int tg_schema_validate_into(const tg_schema *s, const cJSON *instance, tg_arena *scratch, size_t max_errors,
                            const tg_schema_errors *to) {
    if (!s || !instance || !scratch || !to || !to->out) return -1;
    int r = tg_sval(s, instance, scratch, TG_OUTPUT_BASIC, max_errors, to, 0);
    return r < 0 ? -1 : r;
}
