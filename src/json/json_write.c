/* json_write.c - canonical JSON writing. Recursion depth is bounded by the
 * depth of documents the reader accepted (tg_json_limits.max_depth).
 *
 * Bytes go straight into the buffer when it has room (and no cap would be
 * passed); anything else (growth, the cap, an earlier failure) takes
 * tg_buf_append, so the buffer's contract is unchanged. */
#include "json.h"
#include "json_internal.h"
#include "json_lex.h"
#include "../base/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int fits(const tg_buf *b, size_t n) {
    return !b->failed && b->len + n < b->cap && (!b->max || b->len + n <= b->max);
}

static inline int put(tg_buf *b, const void *p, size_t n) {
    if (fits(b, n)) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
        return 0;
    }
    return tg_buf_append(b, p, n);
}

static inline int put1(tg_buf *b, char c) {
    if (fits(b, 1)) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return 0;
    }
    return tg_buf_append(b, &c, 1);
}

/* 1 for bytes written as they are: 0x20 and above but '"' and '\\'. */
static const unsigned char plain[256] = {
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
};

/* The first byte at or after i that is not plain ASCII (len when none):
 * eight bytes a step while none of them needs escaping or is past ASCII. */
static inline size_t plain_run(const char *s, size_t i, size_t len) {
    for (; i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        if (tg_json__special8(v)) break;
    }
    while (i < len && (unsigned char)s[i] < 0x80 && plain[(unsigned char)s[i]]) i++;
    return i;
}

int tg_json_plain(const char *s, size_t len) { return plain_run(s, 0, len) == len; }

/* Writes s[0..len) as a JSON string. Text that is not valid UTF-8 (bytes
 * from a handler's error, a name a model made up) is written with U+FFFD
 * for each byte that starts no valid sequence: whatever the input, the
 * output is strict JSON. */
int tg_json_write_string(tg_buf *out, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    /* the common case: nothing to escape, one copy with both quotes */
    size_t i = plain_run(s, 0, len);
    if (i == len && fits(out, len + 2)) {
        char *d = out->data + out->len;
        d[0] = '"';
        memcpy(d + 1, s, len);
        d[len + 1] = '"';
        out->len += len + 2;
        out->data[out->len] = '\0';
        return 0;
    }
    put1(out, '"');
    size_t run = 0; /* start of the pending unescaped run */
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        size_t step = 1;
        if (c >= 0x80) {
            uint32_t cp;
            step = tg_utf8_decode((const unsigned char *)s + i, len - i, &cp);
            if (step) { /* a valid sequence: part of the run */
                i = plain_run(s, i + step, len);
                continue;
            }
            step = 1;
        }
        put(out, s + run, i - run);
        run = i + step;
        switch (c) {
        case '"': put(out, "\\\"", 2); break;
        case '\\': put(out, "\\\\", 2); break;
        case '\b': put(out, "\\b", 2); break;
        case '\f': put(out, "\\f", 2); break;
        case '\n': put(out, "\\n", 2); break;
        case '\r': put(out, "\\r", 2); break;
        case '\t': put(out, "\\t", 2); break;
        default:
            if (c >= 0x80) put(out, "\xef\xbf\xbd", 3); /* U+FFFD */
            else {
                char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                put(out, esc, 6);
            }
        }
        i = plain_run(s, run, len);
    }
    put(out, s + run, len - run);
    return put1(out, '"');
}

/* A string this module made, as tg_json_write_string writes it. Most are
 * keys and short values, written here whole when none of their bytes needs
 * a look: up to 16 bytes loaded as one or two 8-byte words
 * (tg_json_short_words), tested and stored as they are, the quotes put
 * around them (the word's bytes past the closing quote lie within cap and
 * are left as bytes past len). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline)) /* (the writers call it for every key and string) */
#endif
static inline int write_text(tg_buf *out, const char *s) {
    size_t len = tg_json_strlen(s);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len - 1 < 16 && fits(out, 18)) {
        char *d = out->data + out->len;
        uint64_t lo, hi, mask = tg_json_short_words(s, len, &lo, &hi);
        if ((tg_json__special8(lo) | (len > 8 ? tg_json__special8(hi) : 0)) & mask)
            return tg_json_write_string(out, s, len);
        memcpy(d + 1, &lo, 8);
        if (len > 8) memcpy(d + 1 + len - 8, &hi, 8);
        d[0] = '"';
        d[len + 1] = '"';
        d[len + 2] = '\0';
        out->len += len + 2;
        return 0;
    }
#endif
    return tg_json_write_string(out, s, len);
}

size_t tg_json_string_size(const char *s, size_t len) {
    size_t n = 2, i = plain_run(s, 0, len), run = 0;
    while (i < len) { /* (tg_json_write_string's walk, counting what it would put) */
        unsigned char c = (unsigned char)s[i];
        size_t step = 1;
        if (c >= 0x80) {
            uint32_t cp;
            step = tg_utf8_decode((const unsigned char *)s + i, len - i, &cp);
            if (step) {
                i = plain_run(s, i + step, len);
                continue;
            }
            step = 1;
        }
        n += i - run;
        run = i + step;
        switch (c) {
        case '"': case '\\': case '\b': case '\f': case '\n': case '\r': case '\t': n += 2; break;
        default: n += c >= 0x80 ? 3 : 6;
        }
        i = plain_run(s, run, len);
    }
    return n + (len - run);
}

int tg_json_write(tg_buf *out, const cJSON *item) {
    switch (item->type & 0xFF) {
    case cJSON_False: return put(out, "false", 5);
    case cJSON_True: return put(out, "true", 4);
    case cJSON_NULL: return put(out, "null", 4);
    case cJSON_Number: return put(out, item->valuestring, tg_json_strlen(item->valuestring));
    case cJSON_String: return write_text(out, item->valuestring);
    case cJSON_Array:
    case cJSON_Object: {
        int obj = cJSON_IsObject(item);
        put1(out, obj ? '{' : '[');
        for (const cJSON *c = item->child; c; c = c->next) {
            if (c != item->child) put1(out, ',');
            if (obj) {
                write_text(out, c->string);
                put1(out, ':');
            }
            if (tg_json_write(out, c)) return -1;
        }
        return put1(out, obj ? '}' : ']');
    }
    default: return -1;
    }
}

/* key order of two members: by their bytes, a prefix first (most keys
 * differ in their first byte: no call for those) */
static inline int key_before(const cJSON *a, const cJSON *b) {
    size_t la = tg_json_strlen(a->string), lb = tg_json_strlen(b->string);
    if (la && lb && a->string[0] != b->string[0]) return (unsigned char)a->string[0] < (unsigned char)b->string[0];
    int c = memcmp(a->string, b->string, la < lb ? la : lb);
    return c < 0 || (c == 0 && la < lb);
}

typedef tg_json__keyed keyed;

/* Key order; equal keys (which only a reader allowing them makes) keep
 * their document order. */
static int keyed_cmp(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    if (key_before(x->member, y->member)) return -1;
    if (key_before(y->member, x->member)) return 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void tg_json__sort_keyed(keyed *k, size_t n) {
    if (n > 16) { /* many members: qsort (a schema's may run to thousands) */
        qsort(k, n, sizeof *k, keyed_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) { /* insertion sort (stable): members are few, and mostly near their place */
        keyed m = k[i];
        size_t j = i;
        while (j > 0 && key_before(m.member, k[j - 1].member)) {
            k[j] = k[j - 1];
            j--;
        }
        k[j] = m;
    }
}

int tg_json_write_sorted(tg_buf *out, const cJSON *item) {
    if (!cJSON_IsObject(item) && !cJSON_IsArray(item)) return tg_json_write(out, item);
    if (cJSON_IsArray(item)) {
        put1(out, '[');
        for (const cJSON *c = item->child; c; c = c->next) {
            if (c != item->child) put1(out, ',');
            if (tg_json_write_sorted(out, c)) return -1;
        }
        return put1(out, ']');
    }
    size_t n = 0;
    int sorted = 1;
    for (const cJSON *c = item->child; c; c = c->next, n++)
        if (c->next && key_before(c->next, c)) sorted = 0;
    keyed small[16], *m = small;
    if (!sorted && n > 16 && !(m = tg_malloc(&out->alloc, n * sizeof *m))) {
        out->failed = 1;
        return -1;
    }
    size_t i = 0;
    if (sorted) m = NULL;
    else {
        for (const cJSON *c = item->child; c; c = c->next, i++) m[i] = (keyed){c, i};
        tg_json__sort_keyed(m, n);
    }
    put1(out, '{');
    const cJSON *c = item->child;
    int rc = 0;
    for (i = 0; i < n && !rc; i++, c = c ? c->next : NULL) {
        const cJSON *x = m ? m[i].member : c;
        if (i) put1(out, ',');
        write_text(out, x->string);
        put1(out, ':');
        rc = tg_json_write_sorted(out, x);
    }
    if (m && m != small) tg_free(&out->alloc, m, n * sizeof *m);
    return rc ? -1 : put1(out, '}');
}

/* ---- both texts in one walk (tg_json_write_split) ---- */

/* A member of an object being written: its "key": in doc, from at to
 * val, and its value: in doc from `from` to `to` when it reads the same
 * in key order (in_doc), else its sorted text, in sorted. */
typedef struct placed {
    const cJSON *member;
    size_t at, val, from, to;
    int in_doc;
} placed;

typedef struct split {
    tg_buf *doc, *sorted;
    tg_buf tmp;   /* an object's values in sorted while its members are put in key order */
    placed *open; /* the members of the objects being written, outermost first */
    keyed *order; /* the members of the object being placed, in key order */
    size_t n_open, cap_open, cap_order;
} split;

/* 1 when v's sorted text is its text: it holds no object (a leaf, or an
 * array of leaves). */
static int reads_alike(const cJSON *v) {
    int t = v->type & 0xFF;
    if (t == cJSON_Object) return 0;
    if (t == cJSON_Array)
        for (const cJSON *c = v->child; c; c = c->next)
            if ((c->type & 0xFF) == cJSON_Object || (c->type & 0xFF) == cJSON_Array) return 0;
    return 1;
}

static int split_value(split *x, const cJSON *v);

/* obj to doc, as tg_json_write writes it; its members on x->open from
 * *base on, saying where their texts lie. */
static int split_members(split *x, const cJSON *obj, size_t *base) {
    tg_buf *doc = x->doc;
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next) n++;
    if (n > x->cap_open - x->n_open) {
        size_t cap = x->cap_open ? x->cap_open : 64;
        while (cap < x->n_open + n) cap *= 2;
        placed *p = tg_realloc(&x->sorted->alloc, x->open, x->cap_open * sizeof *p, cap * sizeof *p);
        if (!p) return -1;
        x->open = p;
        x->cap_open = cap;
        keyed *o = tg_realloc(&x->sorted->alloc, x->order, x->cap_order * sizeof *o, cap * sizeof *o);
        if (!o) return -1; /* (no object has more members than cap_open: order keeps up with it) */
        x->order = o;
        x->cap_order = cap;
    }
    size_t i = *base = x->n_open;
    x->n_open += n;
    put1(doc, '{');
    for (const cJSON *c = obj->child; c; c = c->next, i++) {
        placed p;
        if (c != obj->child) put1(doc, ',');
        p.member = c;
        p.at = doc->len;
        write_text(doc, c->string);
        put1(doc, ':');
        p.val = doc->len;
        p.in_doc = reads_alike(c);
        if (p.in_doc) {
            p.from = doc->len;
            if ((c->type & 0xFF) == cJSON_String ? write_text(doc, c->valuestring) : tg_json_write(doc, c)) return -1;
            p.to = doc->len;
        } else {
            p.from = x->sorted->len;
            if (split_value(x, c)) return -1;
            p.to = x->sorted->len;
        }
        x->open[i] = p; /* (after split_value, which may move x->open) */
    }
    return put1(doc, '}');
}

/* The n members on x->open from base, in key order, to sorted from
 * `from` on, where the sorted texts of their values were written: commas
 * between them, or, given span, nothing, span telling where each lies. */
static int place(split *x, size_t from, size_t base, size_t n, tg_json_span *span) {
    tg_buf *s = x->sorted, *doc = x->doc;
    if (s->failed || doc->failed) return -1;
    for (size_t k = 0; k < n; k++) x->order[k] = (keyed){x->open[base + k].member, k};
    tg_json__sort_keyed(x->order, n);
    tg_buf_reset(&x->tmp);
    if (s->len > from && tg_buf_append(&x->tmp, s->data + from, s->len - from)) return -1;
    s->len = from;
    for (size_t k = 0; k < n; k++) {
        const placed *p = &x->open[base + x->order[k].idx];
        if (k && !span) put1(s, ',');
        size_t at = s->len;
        if (p->in_doc) { /* (its key and value are one run of doc) */
            put(s, doc->data + p->at, p->to - p->at);
        } else {
            put(s, doc->data + p->at, p->val - p->at);
            put(s, x->tmp.data + (p->from - from), p->to - p->from);
        }
        if (span) {
            span[k].member = p->member;
            span[k].at = at;
            span[k].val = at + (p->val - p->at);
            span[k].end = s->len;
        }
    }
    return s->failed ? -1 : 0;
}

/* v, an object or an array, to doc and its sorted text to sorted */
static int split_value(split *x, const cJSON *v) {
    tg_buf *doc = x->doc, *sorted = x->sorted;
    if ((v->type & 0xFF) == cJSON_Array) {
        put1(doc, '[');
        put1(sorted, '[');
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c != v->child) {
                put1(doc, ',');
                put1(sorted, ',');
            }
            size_t at = doc->len;
            if (!reads_alike(c)) {
                if (split_value(x, c)) return -1;
            } else if (tg_json_write(doc, c) || doc->failed || put(sorted, doc->data + at, doc->len - at))
                return -1;
        }
        put1(doc, ']');
        return put1(sorted, ']');
    }
    put1(sorted, '{');
    size_t from = sorted->len, base;
    if (split_members(x, v, &base)) return -1;
    if (place(x, from, base, x->n_open - base, NULL)) return -1;
    x->n_open = base;
    return put1(sorted, '}');
}

int tg_json_write_split(tg_buf *doc, tg_buf *sorted, const cJSON *obj, tg_json_span *span) {
    split x;
    x.doc = doc;
    x.sorted = sorted;
    tg_buf_init(&x.tmp, sorted->alloc, 0);
    x.open = NULL;
    x.order = NULL;
    x.n_open = x.cap_open = x.cap_order = 0;
    size_t from = sorted->len, base;
    int rc = split_members(&x, obj, &base);
    if (!rc) rc = place(&x, from, base, x.n_open - base, span);
    tg_buf_free(&x.tmp);
    tg_free(&sorted->alloc, x.open, x.cap_open * sizeof *x.open);
    tg_free(&sorted->alloc, x.order, x.cap_order * sizeof *x.order);
    return rc || doc->failed || sorted->failed ? -1 : 0;
}
