/* json_read.c - the strict RFC 8259 reader. Iterative: nesting lives in an
 * explicit stack bounded by max_depth, never on the C stack. */
#include "json.h"
#include "json_internal.h"
#include "../base/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    tg_arena *arena;
    const unsigned char *s;
    size_t len, pos;
    tg_json_error *err;
    int allow_dups;
} reader;

tg_json_limits tg_json_default_limits(void) {
    tg_json_limits l = {0, 256, 0};
    return l;
}

static void describe(char *out, size_t n, const reader *r) {
    if (r->pos >= r->len) {
        snprintf(out, n, "end of input");
        return;
    }
    unsigned c = r->s[r->pos];
    if (c >= 0x20 && c < 0x7F) snprintf(out, n, "'%c'", (char)c);
    else snprintf(out, n, "byte 0x%02X", c);
}

static cJSON *fail(reader *r, tg_json_status st, size_t at, const char *what) {
    if (r->err) {
        r->err->status = st;
        r->err->offset = at;
        snprintf(r->err->message, sizeof r->err->message, "%s at offset %zu", what, at);
    }
    return NULL;
}

static cJSON *unexpected(reader *r, const char *expected) {
    char got[32], msg[128];
    describe(got, sizeof got, r);
    snprintf(msg, sizeof msg, "expected %s, found %s", expected, got);
    return fail(r, TG_JSON_SYNTAX, r->pos, msg);
}

/* 1: a byte that stands for itself in a string (printable ASCII but '"' and '\\') */
static const unsigned char plain[256] = {
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
};

static inline void skip_ws(reader *r) {
    while (r->pos < r->len) {
        unsigned char c = r->s[r->pos];
        if (c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r')) break;
        r->pos++;
    }
}

/* A zeroed node from the arena. */
static inline cJSON *new_node(tg_arena *a, int type) {
    cJSON *n = tg_arena_alloc(a, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->type = type;
    }
    return n;
}

/* A length-prefixed, NUL-terminated copy of s[0..n) (tg_json__str inlined). */
static inline char *copy_str(tg_arena *a, const unsigned char *s, size_t n) {
    char *p = tg_arena_alloc(a, sizeof(size_t) + n + 1);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    p += sizeof(size_t);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static int hex4(const unsigned char *p, uint32_t *out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return -1;
    }
    *out = v;
    return 0;
}

/* The general case of read_string: escapes or non-ASCII bytes. r->pos is at
 * the first byte pass 1 has not looked at yet; start is after the quote. */
static char *read_string_slow(reader *r, size_t start) {
    int escapes = 0;
    /* pass 1: validate and find the end */
    for (;;) {
        while (r->pos < r->len && plain[r->s[r->pos]]) r->pos++;
        if (r->pos >= r->len) return (char *)fail(r, TG_JSON_SYNTAX, start - 1, "unterminated string");
        unsigned char c = r->s[r->pos];
        if (c == '"') break;
        if (c < 0x20) return (char *)fail(r, TG_JSON_SYNTAX, r->pos, "raw control character in string (escape it)");
        if (c == '\\') {
            escapes = 1;
            if (r->pos + 1 >= r->len) return (char *)fail(r, TG_JSON_SYNTAX, r->pos, "unterminated escape");
            unsigned char e = r->s[r->pos + 1];
            if (e == 'u') {
                uint32_t cp;
                if (r->pos + 6 > r->len || hex4(r->s + r->pos + 2, &cp))
                    return (char *)fail(r, TG_JSON_SYNTAX, r->pos, "\\u must be followed by four hex digits");
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return (char *)fail(r, TG_JSON_UTF8, r->pos, "lone low surrogate escape");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    uint32_t lo;
                    if (r->pos + 12 > r->len || r->s[r->pos + 6] != '\\' || r->s[r->pos + 7] != 'u' ||
                        hex4(r->s + r->pos + 8, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                        return (char *)fail(r, TG_JSON_UTF8, r->pos, "high surrogate escape without a low surrogate");
                    r->pos += 12;
                } else {
                    r->pos += 6;
                }
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == 0)
                return (char *)fail(r, TG_JSON_SYNTAX, r->pos, "invalid escape in string");
            r->pos += 2;
            continue;
        }
        if (c < 0x80) {
            r->pos++;
            continue;
        }
        uint32_t cp;
        size_t n = tg_utf8_decode(r->s + r->pos, r->len - r->pos, &cp);
        if (!n) return (char *)fail(r, TG_JSON_UTF8, r->pos, "invalid UTF-8 in string");
        r->pos += n;
    }
    size_t end = r->pos++;
    if (!escapes) {
        char *p = copy_str(r->arena, r->s + start, end - start);
        return p ? p : (char *)fail(r, TG_JSON_NOMEM, start, "out of memory");
    }
    /* pass 2: decode escapes (the decoded text is never longer) */
    char *out = tg_arena_alloc(r->arena, sizeof(size_t) + end - start + 1);
    if (!out) return (char *)fail(r, TG_JSON_NOMEM, start, "out of memory");
    out += sizeof(size_t);
    size_t o = 0;
    for (size_t i = start; i < end;) {
        unsigned char c = r->s[i];
        if (c != '\\') {
            out[o++] = (char)c;
            i++;
            continue;
        }
        unsigned char e = r->s[i + 1];
        uint32_t cp;
        switch (e) {
        case 'b': out[o++] = '\b'; i += 2; continue;
        case 'f': out[o++] = '\f'; i += 2; continue;
        case 'n': out[o++] = '\n'; i += 2; continue;
        case 'r': out[o++] = '\r'; i += 2; continue;
        case 't': out[o++] = '\t'; i += 2; continue;
        case 'u':
            hex4(r->s + i + 2, &cp);
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                hex4(r->s + i + 2, &lo);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            o += tg_utf8_encode(cp, (unsigned char *)out + o);
            continue;
        default: out[o++] = (char)e; i += 2; continue;
        }
    }
    out[o] = '\0';
    memcpy(out - sizeof(size_t), &o, sizeof o);
    return out;
}

/* Reads the string starting at the opening quote; returns a prefixed copy.
 * Fast path: printable ASCII without escapes, copied in one go. */
/* Nonzero when one of the 8 bytes of v is not plain: below 0x20, '"',
 * '\\' or 0x80 and above (SWAR; exact for "any byte", which is all the
 * caller asks). */
static inline uint64_t special8(uint64_t v) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    return ((v - ones * 0x20) & ~v & high) | ((q - ones) & ~q & high) | ((b - ones) & ~b & high) | (v & high);
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* copy_str for plain text that the input holds with at least 8 bytes after
 * it: whole words, as the arena block (prefix, text, NUL, rounded up to 8)
 * has room for them, instead of a memcpy call per string. Endian-neutral,
 * but kept beside the little-endian scanner that finds the end. */
static inline char *copy_str_words(tg_arena *a, const unsigned char *s, size_t n) {
    char *p = tg_arena_alloc(a, sizeof(size_t) + n + 1);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    p += sizeof(size_t);
    for (size_t k = 0; k <= n; k += 8) {
        uint64_t w;
        memcpy(&w, s + k, 8);
        memcpy(p + k, &w, 8);
    }
    p[n] = '\0'; /* the block's bytes after it are input bytes, never read */
    return p;
}
#endif

#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline char *read_string(reader *r) {
    size_t start = ++r->pos; /* after the quote */
    const unsigned char *s = r->s;
    size_t i = start, len = r->len;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* 8 bytes at a time; the lowest flagged byte is the first special one
     * (a false flag can only sit above a true one) */
    while (len - i >= 8) {
        uint64_t v, m;
        memcpy(&v, s + i, 8);
        if ((m = special8(v))) {
            i += (size_t)__builtin_ctzll(m) >> 3;
            goto found;
        }
        i += 8;
    }
#endif
    while (i < len && plain[s[i]]) i++;
    goto found;
found:
    if (i < len && s[i] == '"') {
        r->pos = i + 1;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        char *p = len - start >= ((i - start) | 7) + 1 ? copy_str_words(r->arena, s + start, i - start)
                                                        : copy_str(r->arena, s + start, i - start);
#else
        char *p = copy_str(r->arena, s + start, i - start);
#endif
        return p ? p : (char *)fail(r, TG_JSON_NOMEM, start, "out of memory");
    }
    r->pos = i;
    return read_string_slow(r, start);
}


static const double pow10_tab[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline cJSON *read_number(reader *r) {
    size_t start = r->pos;
    const unsigned char *s = r->s;
    size_t i = r->pos;
    if (i < r->len && s[i] == '-') i++;
    if (i >= r->len) return fail(r, TG_JSON_SYNTAX, i, "expected a digit");
    if (s[i] == '0') {
        i++;
        if (i < r->len && s[i] >= '0' && s[i] <= '9')
            return fail(r, TG_JSON_SYNTAX, i, "leading zeros are not allowed in numbers");
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < r->len && s[i] >= '0' && s[i] <= '9') i++;
    } else {
        return fail(r, TG_JSON_SYNTAX, i, "expected a digit");
    }
    size_t int_end = i, frac_b = i;
    if (i < r->len && s[i] == '.') {
        i++;
        if (i >= r->len || s[i] < '0' || s[i] > '9')
            return fail(r, TG_JSON_SYNTAX, i, "expected a digit after the decimal point");
        frac_b = i;
        while (i < r->len && s[i] >= '0' && s[i] <= '9') i++;
    }
    int has_exp = 0;
    if (i < r->len && (s[i] == 'e' || s[i] == 'E')) {
        has_exp = 1;
        i++;
        if (i < r->len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= r->len || s[i] < '0' || s[i] > '9')
            return fail(r, TG_JSON_SYNTAX, i, "expected a digit in the exponent");
        while (i < r->len && s[i] >= '0' && s[i] <= '9') i++;
    }
    r->pos = i;
    cJSON *n = new_node(r->arena, cJSON_Number);
    if (!n || !(n->valuestring = copy_str(r->arena, s + start, i - start)))
        return fail(r, TG_JSON_NOMEM, start, "out of memory");
    size_t int_b = start + (s[start] == '-');
    size_t frac_n = frac_b < i && !has_exp ? i - frac_b : 0;
    if (!has_exp && (int_end - int_b) + frac_n <= 15) {
        /* at most 15 digits: the digits are an exact double m and the value
         * m / 10^frac_n is one correctly rounded division, the same double
         * strtod gives */
        uint64_t m = 0;
        for (size_t k = int_b; k < int_end; k++) m = m * 10 + (uint64_t)(s[k] - '0');
        for (size_t k = frac_b; k < frac_b + frac_n; k++) m = m * 10 + (uint64_t)(s[k] - '0');
        double d = (double)m;
        if (frac_n) d /= pow10_tab[frac_n];
        n->valuedouble = s[start] == '-' ? -d : d;
    } else {
        n->valuedouble = strtod(n->valuestring, NULL);
    }
    n->valueint = tg_json__saturate(n->valuedouble);
    return n;
}

static cJSON *read_literal(reader *r, const char *word, int type) {
    size_t n = type == cJSON_False ? 5 : 4; /* "false", else "true" / "null" */
    if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0) return unexpected(r, "a JSON value");
    r->pos += n;
    cJSON *v = new_node(r->arena, type);
    if (!v) return fail(r, TG_JSON_NOMEM, r->pos, "out of memory");
    if (type == cJSON_True) v->valueint = 1;
    return v;
}

static uint64_t key_hash(const char *k, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
    return h;
}

static inline int same_key(const cJSON *a, const cJSON *b) {
    size_t la = tg_json_strlen(a->string);
    return la == tg_json_strlen(b->string) && (la == 0 || (a->string[0] == b->string[0] &&
                                                           memcmp(a->string, b->string, la) == 0));
}

static inline void append(cJSON *c, cJSON *item) {
    if (!c->child) {
        c->child = item;
        item->prev = item;
    } else {
        cJSON *last = c->child->prev;
        last->next = item;
        item->prev = last;
        c->child->prev = item;
    }
}

/* Returns the later of two equal keys, or NULL when all keys are distinct. */
static const cJSON *find_duplicate(tg_arena *a, const cJSON *obj, size_t count, int *nomem) {
    if (count < 2) return NULL;
    if (count <= 12) {
        for (const cJSON *x = obj->child; x; x = x->next)
            for (const cJSON *y = x->next; y; y = y->next)
                if (same_key(x, y)) return y;
        return NULL;
    }
    size_t cap = 16;
    while (cap < count * 2) cap <<= 1;
    tg_arena_mark m = tg_arena_save(a);
    const cJSON **slots = tg_arena_calloc(a, cap, sizeof *slots);
    if (!slots) {
        *nomem = 1;
        return NULL;
    }
    const cJSON *dup = NULL;
    for (const cJSON *x = obj->child; x && !dup; x = x->next) {
        size_t i = (size_t)key_hash(x->string, tg_json_strlen(x->string)) & (cap - 1);
        while (slots[i]) {
            if (same_key(slots[i], x)) {
                dup = x;
                break;
            }
            i = (i + 1) & (cap - 1);
        }
        if (!dup) slots[i] = x;
    }
    tg_arena_rewind(a, m);
    return dup;
}

#define IS_OBJ(n) (((n)->type & 0xFF) == cJSON_Object)

typedef struct frame {
    cJSON *node;
    size_t count;
    size_t open_at;
} frame;

cJSON *tg_json_parse(tg_arena *arena, const char *text, size_t len, const tg_json_limits *limits,
                     tg_json_error *err) {
    tg_json_limits lim = limits ? *limits : tg_json_default_limits();
    reader r = {arena, (const unsigned char *)text, len, 0, err, lim.allow_duplicate_keys};
    if (err) {
        err->status = TG_JSON_OK;
        err->offset = 0;
        err->message[0] = '\0';
    }
    if (lim.max_bytes && len > lim.max_bytes) {
        char msg[96];
        snprintf(msg, sizeof msg, "input of %zu bytes is over the limit of %zu", len, lim.max_bytes);
        return fail(&r, TG_JSON_TOO_LARGE, lim.max_bytes, msg);
    }
    size_t depth_cap = lim.max_depth;
    if (depth_cap > len) depth_cap = len; /* every level costs a byte */
    frame *stack = tg_arena_alloc(arena, (depth_cap + 1) * sizeof *stack);
    if (!stack) return fail(&r, TG_JSON_NOMEM, 0, "out of memory");
    size_t depth = 0;
    char *key = NULL;
    skip_ws(&r);
    if (r.pos >= r.len) return fail(&r, TG_JSON_SYNTAX, r.pos, "empty input: expected a JSON value");

    for (;;) {
        /* read one value (or open a container) */
        cJSON *v = NULL;
        skip_ws(&r);
        if (r.pos >= r.len) return unexpected(&r, "a JSON value");
        unsigned char c = r.s[r.pos];
        if (c == '{' || c == '[') {
            if (depth >= lim.max_depth) {
                char msg[96];
                snprintf(msg, sizeof msg, "nesting deeper than the limit of %zu", lim.max_depth);
                return fail(&r, TG_JSON_DEPTH, r.pos, msg);
            }
            cJSON *node = new_node(arena, c == '{' ? cJSON_Object : cJSON_Array);
            if (!node) return fail(&r, TG_JSON_NOMEM, r.pos, "out of memory");
            node->string = key;
            key = NULL;
            stack[depth].node = node;
            stack[depth].count = 0;
            stack[depth].open_at = r.pos;
            depth++;
            r.pos++;
            skip_ws(&r);
            if (r.pos < r.len && r.s[r.pos] == (c == '{' ? '}' : ']')) {
                r.pos++;
                depth--;
                v = node;
                goto attach_closed;
            }
            if (c == '{') goto read_key;
            continue;
        }
        if (c == '"') {
            char *s = read_string(&r);
            if (!s) return NULL;
            v = new_node(arena, cJSON_String);
            if (!v) return fail(&r, TG_JSON_NOMEM, r.pos, "out of memory");
            v->valuestring = s;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v = read_number(&r);
        } else if (c == 't') {
            v = read_literal(&r, "true", cJSON_True);
        } else if (c == 'f') {
            v = read_literal(&r, "false", cJSON_False);
        } else if (c == 'n') {
            v = read_literal(&r, "null", cJSON_NULL);
        } else {
            return unexpected(&r, "a JSON value");
        }
        if (!v) return NULL;
        v->string = key;
        key = NULL;

    attach_closed:
        /* v is complete: attach it and consume separators/closers */
        for (;;) {
            if (depth == 0) {
                skip_ws(&r);
                if (r.pos != r.len) return unexpected(&r, "end of input after the JSON value");
                return v;
            }
            frame *f = &stack[depth - 1];
            append(f->node, v);
            f->count++;
            skip_ws(&r);
            if (r.pos >= r.len) return unexpected(&r, IS_OBJ(f->node) ? "',' or '}'" : "',' or ']'");
            unsigned char d = r.s[r.pos];
            if (d == ',') {
                r.pos++;
                if (IS_OBJ(f->node)) goto read_key;
                break; /* next array element */
            }
            if (d == (IS_OBJ(f->node) ? '}' : ']')) {
                r.pos++;
                if (IS_OBJ(f->node) && !r.allow_dups) {
                    int nomem = 0;
                    const cJSON *dup = find_duplicate(arena, f->node, f->count, &nomem);
                    if (nomem) return fail(&r, TG_JSON_NOMEM, r.pos, "out of memory");
                    if (dup) {
                        char msg[140], shown[48];
                        size_t kl = tg_json_strlen(dup->string), o = 0;
                        for (size_t i = 0; i < kl && o + 5 < sizeof shown; i++) {
                            unsigned char k = (unsigned char)dup->string[i];
                            shown[o++] = (k >= 0x20 && k < 0x7F && k != '"') ? (char)k : '?';
                        }
                        shown[o] = '\0';
                        snprintf(msg, sizeof msg, "duplicate key \"%s%s\" in the object opened", shown,
                                 kl > o ? "..." : "");
                        return fail(&r, TG_JSON_DUPLICATE_KEY, f->open_at, msg);
                    }
                }
                v = f->node;
                depth--;
                continue;
            }
            return unexpected(&r, IS_OBJ(f->node) ? "',' or '}'" : "',' or ']'");
        }
        continue;

    read_key:
        skip_ws(&r);
        if (r.pos >= r.len || r.s[r.pos] != '"') return unexpected(&r, "a string key");
        key = read_string(&r);
        if (!key) return NULL;
        skip_ws(&r);
        if (r.pos >= r.len || r.s[r.pos] != ':') return unexpected(&r, "':' after the key");
        r.pos++;
    }
}
