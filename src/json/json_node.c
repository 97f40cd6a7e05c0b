/* json_node.c - arena-owned cJSON nodes, length-prefixed strings, lookup,
 * equality and integer-ness. */
#include "json.h"
#include "json_index.h"
#include "json_internal.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

cJSON *tg_json_new(tg_arena *a, int type) {
    cJSON *n = tg_arena_calloc(a, 1, sizeof *n);
    if (n) n->type = type;
    return n;
}

cJSON *tg_json_new_string(tg_arena *a, const char *s, size_t len) {
    cJSON *n = tg_json_new(a, cJSON_String);
    if (!n) return NULL;
    n->valuestring = tg_json__str(a, s, len);
    return n->valuestring ? n : NULL;
}

cJSON *tg_json_new_number(tg_arena *a, double v) {
    char tmp[40];
    int len;
    if (!isfinite(v)) len = snprintf(tmp, sizeof tmp, "null");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0) len = snprintf(tmp, sizeof tmp, "%.0f", v);
    else len = snprintf(tmp, sizeof tmp, "%.17g", v);
    cJSON *n = tg_json_new(a, cJSON_Number);
    if (!n) return NULL;
    n->valuedouble = v;
    n->valueint = tg_json__saturate(v);
    n->valuestring = tg_json__str(a, tmp, (size_t)len);
    return n->valuestring ? n : NULL;
}

int tg_json_set_key(tg_arena *a, cJSON *item, const char *key, size_t keylen) {
    item->string = tg_json__str(a, key, keylen);
    return item->string ? 0 : -1;
}

void tg_json_append(cJSON *c, cJSON *item) { tg_json__append(c, item); }

void tg_json_detach(cJSON *c, cJSON *item) {
    if (c->child == item) {
        c->child = item->next;
        if (item->next) item->next->prev = item->prev; /* (child->prev stays the tail) */
    } else {
        item->prev->next = item->next;
        if (item->next) item->next->prev = item->prev;
        else c->child->prev = item->prev;
    }
    item->next = item->prev = NULL;
}

int tg_json_array_index(const char *tok, size_t len, size_t *idx) {
    if (len == 0 || len > 9 || (len > 1 && tok[0] == '0')) return -1;
    size_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9') return -1;
        v = v * 10 + (size_t)(tok[i] - '0');
    }
    *idx = v;
    return 0;
}

/* The next character of a URI fragment, %XX decoded: 1, or 0 at the end,
 * -1 for a bad escape. */
static int frag_char(const char **s, const char *end, char *ch) {
    if (*s >= end) return 0;
    if (**s != '%') {
        *ch = *(*s)++;
        return 1;
    }
    if (end - *s < 3) return -1;
    int v = 0;
    for (int i = 1; i <= 2; i++) {
        char h = (*s)[i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    *s += 3;
    *ch = (char)v;
    return 1;
}

/* As RFC 6901 section 6 reads a fragment (and the schema compiler,
 * schema_resolve.c): percent-decoded first, then split at '/', then ~1 and
 * ~0 unescaped in each token; so "%2F" separates and "%7E1" is a '/'. */
const cJSON *tg_json_pointer_ref(const cJSON *doc, const char *s, size_t len) {
    return tg_json_pointer_ref_in(NULL, doc, s, len);
}

/* (each token looked up through ix: R refs into a container of M children
 * cost R log M, not R x M) */
const cJSON *tg_json_pointer_ref_in(tg_json_index *ix, const cJSON *doc, const char *s, size_t len) {
    const char *end = s + len;
    if (!doc || !s || s == end || *s != '#') return NULL;
    s++;
    const cJSON *cur = doc;
    char ch;
    int r = frag_char(&s, end, &ch);
    while (r > 0) {
        if (ch != '/') return NULL;
        char seg[256];
        size_t n = 0;
        while ((r = frag_char(&s, end, &ch)) > 0 && ch != '/') {
            if (ch == '~') {
                const char *back = s;
                char e;
                if (frag_char(&s, end, &e) > 0 && (e == '0' || e == '1')) ch = e == '0' ? '~' : '/';
                else s = back;
            }
            if (n >= sizeof seg) return NULL;
            seg[n++] = ch;
        }
        if (r < 0) return NULL;
        if (cJSON_IsObject(cur)) cur = tg_json_index_get(ix, cur, seg, n);
        else if (cJSON_IsArray(cur)) {
            size_t idx;
            if (tg_json_array_index(seg, n, &idx)) return NULL;
            cur = tg_json_index_item(ix, cur, idx);
        } else return NULL;
        if (!cur) return NULL;
    }
    return r < 0 ? NULL : cur;
}

cJSON *tg_json_get(const cJSON *o, const char *key, size_t keylen) {
    if (!o || (o->type & 0xFF) != cJSON_Object) return NULL; /* (cJSON_IsObject, without a call into the library) */
    for (cJSON *c = o->child; c; c = c->next)
        if (tg_json_strlen(c->string) == keylen && (keylen == 0 || (c->string[0] == key[0] &&
                                                                   tg_json_same_bytes(c->string, key, keylen))))
            return c;
    return NULL;
}

cJSON *tg_json_getz(const cJSON *o, const char *key) { return tg_json_get(o, key, strlen(key)); }

int tg_json_is_integer(const cJSON *num) {
    if (!num || !cJSON_IsNumber(num) || !num->valuestring) return 0;
    const char *s = num->valuestring, *end = s + tg_json_strlen(s);
    if (*s == '-') s++;
    const char *int_b = s;
    while (s < end && *s >= '0' && *s <= '9') s++;
    const char *int_e = s, *frac_b = s, *frac_e = s;
    if (s < end && *s == '.') {
        frac_b = ++s;
        while (s < end && *s >= '0' && *s <= '9') s++;
        frac_e = s;
    }
    long long exp = 0;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        int neg = 0;
        if (*s == '+' || *s == '-') neg = *s++ == '-';
        while (s < end) {
            if (exp < 1000000000LL) exp = exp * 10 + (*s - '0');
            s++;
        }
        if (neg) exp = -exp;
    }
    while (frac_e > frac_b && frac_e[-1] == '0') frac_e--;
    int all_zero = 1;
    for (const char *p = int_b; p < int_e; p++)
        if (*p != '0') all_zero = 0;
    if (all_zero && frac_e == frac_b) return 1; /* zero */
    long long fraclen = frac_e - frac_b;
    if (fraclen <= exp) return 1;
    /* negative exponent: integer only if enough trailing zeros in the integer part */
    if (fraclen == 0) {
        long long tz = 0;
        for (const char *p = int_e; p > int_b && p[-1] == '0'; p--) tz++;
        return tz >= -exp;
    }
    return 0;
}

/* A number lexeme as an integer of significant digits times a power of
 * ten: digits are the lexeme's integer then fraction digits ([s, t] of
 * them, leading and trailing zeros dropped), exponent the power. */
typedef struct decimal {
    int neg, zero;
    const char *ip, *fp; /* integer and fraction digits */
    size_t il, fl, s, t;
    long long exp;
} decimal;

static char dec_digit(const decimal *d, size_t k) { return k < d->il ? d->ip[k] : d->fp[k - d->il]; }

static void dec_read(const char *lex, size_t n, decimal *d) {
    size_t i = 0;
    memset(d, 0, sizeof *d);
    if (i < n && lex[i] == '-') d->neg = 1, i++;
    d->ip = lex + i;
    while (i < n && lex[i] >= '0' && lex[i] <= '9') i++, d->il++;
    if (i < n && lex[i] == '.') {
        d->fp = lex + ++i;
        while (i < n && lex[i] >= '0' && lex[i] <= '9') i++, d->fl++;
    }
    long long e = 0;
    if (i < n && (lex[i] == 'e' || lex[i] == 'E')) {
        int eneg = 0;
        i++;
        if (i < n && (lex[i] == '+' || lex[i] == '-')) eneg = lex[i++] == '-';
        for (; i < n && lex[i] >= '0' && lex[i] <= '9'; i++) e = e < 100000000000000LL ? e * 10 + (lex[i] - '0') : e;
        if (eneg) e = -e;
    }
    size_t len = d->il + d->fl;
    for (d->s = 0; d->s < len && dec_digit(d, d->s) == '0'; d->s++) {}
    d->zero = d->s == len;
    if (d->zero) return;
    for (d->t = len - 1; dec_digit(d, d->t) == '0'; d->t--) {}
    d->exp = e - (long long)d->fl + (long long)(len - 1 - d->t);
}

int tg_json_decimal_cmp(const char *a, size_t an, const char *b, size_t bn) {
    decimal x, y;
    dec_read(a, an, &x);
    dec_read(b, bn, &y);
    int sx = x.zero ? 0 : x.neg ? -1 : 1, sy = y.zero ? 0 : y.neg ? -1 : 1; /* (-0 == 0) */
    if (sx != sy) return sx < sy ? -1 : 1;
    if (!sx) return 0;
    /* the power of ten of each leading digit, then the digits from there */
    long long lx = x.exp + (long long)(x.t - x.s), ly = y.exp + (long long)(y.t - y.s);
    int mag = lx == ly ? 0 : lx < ly ? -1 : 1;
    for (size_t k = 0; !mag && (x.s + k <= x.t || y.s + k <= y.t); k++) {
        char dx = x.s + k <= x.t ? dec_digit(&x, x.s + k) : '0', dy = y.s + k <= y.t ? dec_digit(&y, y.s + k) : '0';
        if (dx != dy) mag = dx < dy ? -1 : 1;
    }
    return sx > 0 ? mag : -mag;
}

int tg_json_key_is(const cJSON *member, const char *z) {
    size_t n = strlen(z);
    return member->string && tg_json_strlen(member->string) == n && memcmp(member->string, z, n) == 0;
}

int tg_json_string_is(const cJSON *v, const char *z) {
    size_t n = strlen(z);
    return v && cJSON_IsString(v) && tg_json_strlen(v->valuestring) == n && memcmp(v->valuestring, z, n) == 0;
}

int tg_json_key_cmp(const char *a, size_t la, const char *b, size_t lb) {
    if (la != lb) return la < lb ? -1 : 1;
    return memcmp(a, b, la);
}

int tg_json_member_cmp(const void *x, const void *y) {
    const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
    return tg_json_key_cmp(a->string, tg_json_strlen(a->string), b->string, tg_json_strlen(b->string));
}

const cJSON **tg_json_members_sorted(tg_arena *scratch, const cJSON *obj, size_t *n) {
    size_t k = 0;
    for (const cJSON *c = obj->child; c; c = c->next) k++;
    const cJSON **v = tg_arena_alloc(scratch, (k ? k : 1) * sizeof *v);
    if (!v) return NULL;
    k = 0;
    for (const cJSON *c = obj->child; c; c = c->next) v[k++] = c;
    qsort(v, k, sizeof *v, tg_json_member_cmp);
    *n = k;
    return v;
}

enum { EQUAL_SORT_FROM = 16 }; /* members an object must have before sorting beats scanning */

static int equal_in(const cJSON *a, const cJSON *b, tg_arena *scratch, int doubles);

/* Two objects of n members each, equal as sets of (key, value): both
 * member lists sorted by key and walked side by side. -1: no room. */
static int equal_sorted(const cJSON *a, const cJSON *b, size_t n, tg_arena *scratch, int doubles) {
    tg_arena_mark m = tg_arena_save(scratch);
    size_t na, nb;
    const cJSON **sa = tg_json_members_sorted(scratch, a, &na), **sb = sa ? tg_json_members_sorted(scratch, b, &nb) : NULL;
    int eq = -1;
    if (sb) {
        eq = 1;
        for (size_t i = 0; i < n && eq; i++) eq = tg_json_member_cmp(&sa[i], &sb[i]) == 0 && equal_in(sa[i], sb[i], scratch, doubles);
    }
    tg_arena_rewind(scratch, m);
    return eq;
}

int tg_json_equal(const cJSON *a, const cJSON *b) { return equal_in(a, b, NULL, 0); }

int tg_json_equal_in(const cJSON *a, const cJSON *b, tg_arena *scratch, int doubles) {
    return equal_in(a, b, scratch, doubles);
}

static int equal_in(const cJSON *a, const cJSON *b, tg_arena *scratch, int doubles) {
    if (!a || !b) return a == b;
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    if (ta != tb) return 0;
    switch (ta) {
    case cJSON_Number:
        if (doubles && a->valuedouble == b->valuedouble) return 1;
        /* different doubles: different values; the same double may still
         * stand for two values (beyond 2^53, past 17 digits, or infinite):
         * then the lexemes decide, by value */
        if (a->valuedouble != b->valuedouble && !(isinf(a->valuedouble) && isinf(b->valuedouble))) return 0;
        if (!a->valuestring || !b->valuestring) return a->valuedouble == b->valuedouble;
        return tg_json_decimal_cmp(a->valuestring, tg_json_strlen(a->valuestring), b->valuestring,
                                   tg_json_strlen(b->valuestring)) == 0;
    case cJSON_String: {
        size_t la = tg_json_strlen(a->valuestring), lb = tg_json_strlen(b->valuestring);
        return la == lb && memcmp(a->valuestring, b->valuestring, la) == 0;
    }
    case cJSON_Array: {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!equal_in(x, y, scratch, doubles)) return 0;
        return !x && !y;
    }
    case cJSON_Object: {
        size_t na = 0, nb = 0;
        for (const cJSON *x = a->child; x; x = x->next) na++;
        for (const cJSON *y = b->child; y; y = y->next) nb++;
        if (na != nb) return 0;
        if (na >= EQUAL_SORT_FROM && scratch) {
            int eq = equal_sorted(a, b, na, scratch, doubles);
            if (eq >= 0) return eq;
        }
        for (const cJSON *x = a->child; x; x = x->next) {
            const cJSON *y = tg_json_get(b, x->string, tg_json_strlen(x->string));
            if (!y || !equal_in(x, y, scratch, doubles)) return 0;
        }
        return 1;
    }
    default:
        return 1; /* true, false, null */
    }
}

/* length-prefixed texts (NULL only beside NULL) */
static int same_text(const char *a, const char *b) {
    if (!a || !b) return a == b;
    size_t la = tg_json_strlen(a);
    return la == tg_json_strlen(b) && memcmp(a, b, la) == 0;
}

int tg_json_same(const cJSON *a, const cJSON *b) {
    if (!a || !b) return a == b;
    int t = a->type & 0xFF;
    if (t != (b->type & 0xFF)) return 0;
    switch (t) {
    case cJSON_Number:
        if (a->valuestring && b->valuestring) return same_text(a->valuestring, b->valuestring);
        return !a->valuestring && !b->valuestring && a->valuedouble == b->valuedouble;
    case cJSON_String:
        return same_text(a->valuestring, b->valuestring);
    case cJSON_Array:
    case cJSON_Object: {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if ((t == cJSON_Object && !same_text(x->string, y->string)) || !tg_json_same(x, y)) return 0;
        return !x && !y;
    }
    default:
        return 1; /* true, false, null */
    }
}

size_t tg_json_clone_size(const cJSON *item) {
    size_t n = tg_json_node_size(item);
    for (const cJSON *c = item->child; c; c = c->next) n += tg_json_clone_size(c);
    return n;
}

cJSON *tg_json_clone(tg_arena *a, const cJSON *item) {
    cJSON *n = tg_json_new(a, item->type & 0xFF);
    if (!n) return NULL;
    n->valuedouble = item->valuedouble;
    n->valueint = item->valueint;
    if (item->valuestring) {
        n->valuestring = tg_json__str(a, item->valuestring, tg_json_strlen(item->valuestring));
        if (!n->valuestring) return NULL;
    }
    if (item->string && tg_json_set_key(a, n, item->string, tg_json_strlen(item->string))) return NULL;
    for (const cJSON *c = item->child; c; c = c->next) {
        cJSON *cc = tg_json_clone(a, c);
        if (!cc) return NULL;
        tg_json_append(n, cc);
    }
    return n;
}
