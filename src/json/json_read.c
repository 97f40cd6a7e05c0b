/* json_read.c - the strict RFC 8259 reader. Iterative: nesting lives in an
 * explicit stack bounded by max_depth, never on the C stack. */
#include "json.h"
#include "json_internal.h"
#include "json_lex.h"

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

#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* tg_json__str for plain text that the input holds with at least 8 bytes after
 * it: whole words, as the arena block (prefix, text, NUL, rounded up to 8)
 * has room for them, instead of a memcpy call per string. */
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

/* Decodes a string with escapes into a prefixed arena copy. */
static char *unescaped(reader *r, size_t start, size_t end) {
    char *out = tg_arena_alloc(r->arena, sizeof(size_t) + end - start + 1);
    if (!out) return (char *)fail(r, TG_JSON_NOMEM, start, "out of memory");
    out += sizeof(size_t);
    size_t o = tg_json_unescape(r->s + start, end - start, out);
    out[o] = '\0';
    memcpy(out - sizeof(size_t), &o, sizeof o);
    return out;
}

/* Reads the string starting at the opening quote; returns a prefixed copy
 * (json_lex.h checks it). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline char *read_string(reader *r) {
    size_t start = ++r->pos; /* after the quote */
    tg_json_lexstr ls;
    if (tg_json_lex_string(r->s, r->len, start, &ls)) return (char *)fail(r, ls.status, ls.err_at, ls.what);
    size_t i = ls.end;
    r->pos = i + 1;
    if (ls.escapes) return unescaped(r, start, i);
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    char *p = r->len - start >= ((i - start) | 7) + 1 ? copy_str_words(r->arena, r->s + start, i - start)
                                                       : tg_json__str(r->arena, (const char *)r->s + start, i - start);
#else
    char *p = tg_json__str(r->arena, (const char *)r->s + start, i - start);
#endif
    return p ? p : (char *)fail(r, TG_JSON_NOMEM, start, "out of memory");
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline cJSON *read_number(reader *r) {
    size_t start = r->pos;
    tg_json_lexnum ln;
    if (tg_json_lex_number(r->s, r->len, start, &ln)) return fail(r, TG_JSON_SYNTAX, ln.err_at, ln.what);
    r->pos = ln.end;
    cJSON *n = new_node(r->arena, cJSON_Number);
    if (!n || !(n->valuestring = tg_json__str(r->arena, (const char *)r->s + start, ln.end - start)))
        return fail(r, TG_JSON_NOMEM, start, "out of memory");
    n->valuedouble = ln.exact ? ln.value : strtod(n->valuestring, NULL);
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

/* find_duplicate by sorting the keys (tg_json__sort_keyed: key order,
 * equal keys in document order): no choice of keys slows it. The same
 * answer as the table's: of the keys that repeat an earlier one, the first
 * in the document (in each run of one name, the second). */
static const cJSON *find_duplicate_sorted(tg_arena *a, const cJSON *obj, size_t count, int *nomem) {
    tg_arena_mark m = tg_arena_save(a);
    tg_json__keyed *k = tg_arena_alloc(a, count * sizeof *k);
    if (!k) {
        *nomem = 1;
        return NULL;
    }
    size_t i = 0;
    for (const cJSON *x = obj->child; x && i < count; x = x->next, i++) k[i] = (tg_json__keyed){x, i};
    tg_json__sort_keyed(k, i);
    const tg_json__keyed *best = NULL;
    for (size_t j = 1; j < i; j++)
        if (same_key(k[j - 1].member, k[j].member) && (j < 2 || !same_key(k[j - 2].member, k[j].member)) &&
            (!best || k[j].idx < best->idx))
            best = &k[j];
    const cJSON *dup = best ? best->member : NULL;
    tg_arena_rewind(a, m);
    return dup;
}

/* Returns the later of two equal keys, or NULL when all keys are distinct.
 * The table is keyed by a public hash, so keys can be made to share its low
 * bits (60,000 of them in a 1 MB argument would cost 1.8e9 probes): past 8
 * probes a key it gives way to a sort. */
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
    size_t probes = 0, budget = 8 * count + 64;
    for (const cJSON *x = obj->child; x && !dup; x = x->next) {
        size_t i = (size_t)key_hash(x->string, tg_json_strlen(x->string)) & (cap - 1);
        while (slots[i]) {
            if (same_key(slots[i], x)) {
                dup = x;
                break;
            }
            if (++probes > budget) {
                tg_arena_rewind(a, m);
                return find_duplicate_sorted(a, obj, count, nomem);
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
    return tg_json_parse_each(arena, text, len, limits, err, NULL);
}

/* 1 when a value read with `depth` containers open is an element each
 * wants: depth 2, in the root object's array named each->key. */
static int each_element(const tg_json_each *each, const frame *stack, size_t depth) {
    return each && depth == 2 && IS_OBJ(stack[0].node) && (stack[1].node->type & 0xFF) == cJSON_Array &&
           tg_json_key_is(stack[1].node, each->key);
}

cJSON *tg_json_parse_each(tg_arena *arena, const char *text, size_t len, const tg_json_limits *limits,
                          tg_json_error *err, const tg_json_each *each) {
    tg_json_limits lim = limits ? *limits : tg_json_default_limits();
    reader r = {arena, (const unsigned char *)text, len, 0, err, lim.allow_duplicate_keys};
    tg_arena_mark element_mark = {NULL, 0}; /* scratch before the element being read (r.arena is scratch) */
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
        if (r.arena == arena && each_element(each, stack, depth)) {
            element_mark = tg_arena_save(each->scratch);
            r.arena = each->scratch;
        }
        if (c == '{' || c == '[') {
            if (depth >= lim.max_depth) {
                char msg[96];
                snprintf(msg, sizeof msg, "nesting deeper than the limit of %zu", lim.max_depth);
                return fail(&r, TG_JSON_DEPTH, r.pos, msg);
            }
            cJSON *node = new_node(r.arena, c == '{' ? cJSON_Object : cJSON_Array);
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
            v = new_node(r.arena, cJSON_String);
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
            if (r.arena != arena && depth == 2) { /* an element each wants, whole: handed on, then let go */
                int stop = each->fn(each->ud, stack[0].node, v);
                r.arena = arena;
                tg_arena_rewind(each->scratch, element_mark);
                if (stop) return fail(&r, TG_JSON_NOMEM, r.pos, "out of memory");
            } else
                tg_json__append(f->node, v);
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
                    const cJSON *dup = find_duplicate(r.arena, f->node, f->count, &nomem);
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
