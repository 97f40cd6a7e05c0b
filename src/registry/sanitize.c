/* sanitize.c - bounding and cleaning untrusted descriptor text. */
#include "sanitize.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../base/utf8.h"

/* Control characters, and every code point Unicode calls
 * Default_Ignorable (DerivedCoreProperties: rendered as nothing, so text
 * can hide in them: zero-width and bidi marks, variation selectors, tag
 * characters, Hangul fillers), plus the interlinear annotation marks. */
static int hidden(uint32_t c) {
    if (c < 0x20) return c != '\t' && c != '\n';
    if (c >= 0x7F && c <= 0x9F) return 1;
    if (c < 0x00AD) return 0;
    if (c == 0x00AD || c == 0x034F || c == 0x061C || c == 0x3164 || c == 0xFEFF || c == 0xFFA0) return 1;
    if (c == 0x115F || c == 0x1160 || c == 0x17B4 || c == 0x17B5) return 1;
    if (c >= 0x180B && c <= 0x180F) return 1;
    if (c >= 0x200B && c <= 0x200F) return 1;
    if (c >= 0x202A && c <= 0x202E) return 1;
    if (c >= 0x2060 && c <= 0x206F) return 1;
    if (c >= 0xFE00 && c <= 0xFE0F) return 1;
    if (c >= 0xFFF0 && c <= 0xFFFB) return 1;
    if (c >= 0x1BCA0 && c <= 0x1BCA3) return 1;
    if (c >= 0x1D173 && c <= 0x1D17A) return 1;
    if (c >= 0xE0000 && c <= 0xE0FFF) return 1;
    return 0;
}

size_t tg_sanitize_text(const char *s, size_t len, size_t max_bytes, char *out, int *changed) {
    const unsigned char *u = (const unsigned char *)s;
    size_t w = 0;
    *changed = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t k = tg_utf8_decode(u + i, len - i, &cp);
        if (!k) { /* not reachable for text from the strict reader; drop the byte */
            i++;
            *changed = 1;
            continue;
        }
        if (hidden(cp)) {
            i += k;
            *changed = 1;
            continue;
        }
        if (w + k > max_bytes) {
            /* the "…" fits within max_bytes too: back off to a code point
             * boundary that leaves it room (a cap under 3 bytes has none) */
            while (w > 0 && w + 3 > max_bytes) {
                w--;
                while (w > 0 && ((unsigned char)out[w] & 0xC0) == 0x80) w--;
            }
            if (max_bytes >= 3) {
                memcpy(out + w, "\xE2\x80\xA6", 3); /* … */
                w += 3;
            }
            *changed = 1;
            break;
        }
        memcpy(out + w, s + i, k);
        w += k;
        i += k;
    }
    return w;
}

/* Nonzero when a byte of v is under 0x20, or over 0x7E (0x7F..0xFF):
 * exact as a yes/no; the lowest flag marks the first such byte (a borrow
 * or carry only runs up from one). */
static inline uint64_t unplain8(uint64_t v) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    return ((v - 0x20 * ones) & ~v & highs) | (((v + ones) | v) & highs);
}

/* (the usual text, passed eight bytes a step) */
size_t tg_plain_prefix(const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    for (; len - i >= 8; i += 8) {
        uint64_t v;
        memcpy(&v, u + i, 8);
        if (unplain8(v)) break;
    }
    while (i < len && u[i] >= 0x20 && u[i] < 0x7F) i++;
    return i;
}

/* 1 when a string of the JSON module's is printable ASCII, as
 * tg_plain_prefix tells: names and short values, up to 16 bytes, tested as
 * tg_json_short_words loads them (only the string's own bytes: unplain8's
 * flags below the mask are exact). */
static inline int plain_text(const char *s, size_t len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len - 1 < 16) {
        uint64_t lo, hi, mask = tg_json_short_words(s, len, &lo, &hi);
        return !((unplain8(lo) | (len > 8 ? unplain8(hi) : 0)) & mask);
    }
#endif
    return tg_plain_prefix(s, len) == len;
}

int tg_sanitize_changes(const char *s, size_t len, size_t max_bytes) {
    if (len > max_bytes) return 1; /* (cut, if nothing else) */
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = tg_plain_prefix(s, len); i < len;) {
        uint32_t cp;
        size_t k = tg_utf8_decode(u + i, len - i, &cp);
        if (!k || hidden(cp)) return 1;
        i += k;
    }
    return 0;
}

/* hidden_in's answer for s[i..len), s[0..i) being printable ASCII */
static uint32_t hidden_past(const char *s, size_t len, size_t i) {
    const unsigned char *u = (const unsigned char *)s;
    while (i < len) {
        uint32_t cp;
        size_t k = tg_utf8_decode(u + i, len - i, &cp);
        if (!k) return 0xFFFD;
        if (hidden(cp) && cp != 0x200C && cp != 0x200D && cp != 0xFE0E && cp != 0xFE0F)
            return cp ? cp : 0x2400; /* (U+0000 named as such) */
        i += k;
    }
    return 0;
}

/* The first code point of s[0..len) that tg_sanitize_text would drop and
 * that cannot be text a tool depends on (ZWJ, ZWNJ and the emoji
 * presentation selectors U+FE0E/U+FE0F pass), or 0. (Forced inline: walk
 * asks it of every key and string.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline uint32_t hidden_in(const char *s, size_t len) {
    return plain_text(s, len) ? 0 : hidden_past(s, len, tg_plain_prefix(s, len)); /* (most are plain) */
}

typedef struct sctx {
    tg_arena *a; /* NULL: nothing is cleaned, changed only tells */
    size_t desc_cap, title_cap;
    int changed;
    char *why;
    size_t why_cap;
} sctx;

static int refuse(sctx *c, const char *what, const char *path, uint32_t cp) {
    snprintf(c->why, c->why_cap, "%s at %s holds U+%04X, a control, bidi, invisible or tag character: names and values "
             "a model must reproduce cannot be cleaned, so the tool is refused", what, *path ? path : "/", cp == 0x2400 ? 0 : cp);
    return 1;
}

int tg_sanitize_value(tg_arena *a, cJSON *v, size_t cap, int *changed) {
    size_t len = tg_json_strlen(v->valuestring);
    if (len <= cap && plain_text(v->valuestring, len)) return 0; /* printable ASCII within the cap: as it is */
    if (!a) {
        *changed |= tg_sanitize_changes(v->valuestring, len, cap);
        return 0;
    }
    char *tmp = tg_arena_alloc(a, (len < cap ? len : cap) + 8);
    if (!tmp) return -1;
    int cut;
    size_t n = tg_sanitize_text(v->valuestring, len, cap, tmp, &cut);
    if (!cut) return 0;
    cJSON *s = tg_json_new_string(a, tmp, n);
    if (!s) return -1;
    v->valuestring = s->valuestring;
    *changed = 1;
    return 0;
}

/* The way down to the node being walked (on the C stack): rendered only
 * for a refusal's message. */
typedef struct frame {
    const struct frame *up;
    const char *key; /* NULL: an array index */
    size_t idx;
} frame;

/* "/properties/p": keys cut at 40 bytes, bytes other than printable ASCII
 * shown as '?' (the path goes into an error message). */
static size_t render_path(const frame *f, char *out, size_t cap) {
    size_t n = f && f->up ? render_path(f->up, out, cap) : 0;
    if (!f || !f->up || n + 2 >= cap) return n;
    out[n++] = '/';
    if (f->key) {
        size_t kl = tg_json_strlen(f->key);
        for (size_t i = 0; i < kl && i < 40 && n + 1 < cap; i++)
            out[n++] = (unsigned char)f->key[i] >= 0x20 && (unsigned char)f->key[i] < 0x7F ? f->key[i] : '?';
    } else
        n += (size_t)snprintf(out + n, cap - n, "%zu", f->idx);
    if (n >= cap) n = cap - 1;
    out[n] = '\0';
    return n;
}

static int refuse_at(sctx *c, const char *what, const frame *f, uint32_t cp) {
    char path[200] = "";
    render_path(f, path, sizeof path);
    return refuse(c, what, path, cp);
}

/* keys whose values are data (nothing cleaned beneath) or annotations */
static int is_data_kw(const char *k, size_t n) {
    return (n == 4 && memcmp(k, "enum", 4) == 0) || (n == 5 && memcmp(k, "const", 5) == 0) ||
           (n == 7 && memcmp(k, "default", 7) == 0) || (n == 8 && memcmp(k, "examples", 8) == 0);
}

static size_t annotation_cap(const sctx *c, const char *k, size_t n) {
    if (n == 11 && memcmp(k, "description", 11) == 0) return c->desc_cap;
    if (n == 5 && memcmp(k, "title", 5) == 0) return c->title_cap;
    if (n == 8 && memcmp(k, "$comment", 8) == 0) return c->desc_cap;
    return 0;
}

/* node's members or elements (node an object or an array); data: inside
 * enum, const, default or examples (nothing cleaned there) */
static int walk(sctx *c, cJSON *node, const frame *at, int data) {
    int obj = (node->type & 0xFF) == cJSON_Object;
    frame f = {at, NULL, 0};
    for (cJSON *m = node->child; m; m = m->next, f.idx++) {
        int into = data, type = m->type & 0xFF;
        if (obj) {
            size_t kl = tg_json_strlen(m->string);
            uint32_t cp;
            f.key = m->string;
            if ((cp = hidden_in(m->string, kl)) != 0) return refuse_at(c, "a name", &f, cp);
            size_t cap = !data && type == cJSON_String ? annotation_cap(c, m->string, kl) : 0;
            if (cap) {
                if (tg_sanitize_value(c->a, m, cap, &c->changed)) return -1;
                continue;
            }
            into = data || is_data_kw(m->string, kl);
        }
        if (type == cJSON_String) {
            uint32_t cp = hidden_in(m->valuestring, tg_json_strlen(m->valuestring));
            if (cp) return refuse_at(c, into ? "a value" : "a string", &f, cp);
        } else if (type == cJSON_Object || type == cJSON_Array) {
            int r = walk(c, m, &f, into);
            if (r) return r;
        }
    }
    return 0;
}

int tg_sanitize_schema(tg_arena *arena, cJSON *schema, size_t description_cap, size_t title_cap, int *changed,
                       char *why, size_t why_cap) {
    sctx c = {arena, description_cap, title_cap, 0, why, why_cap};
    frame root = {NULL, NULL, 0};
    int r = 0;
    if (cJSON_IsString(schema)) {
        uint32_t cp = hidden_in(schema->valuestring, tg_json_strlen(schema->valuestring));
        r = cp ? refuse_at(&c, "a string", &root, cp) : 0;
    } else if (cJSON_IsObject(schema) || cJSON_IsArray(schema))
        r = walk(&c, schema, &root, 0);
    *changed = c.changed;
    return r;
}
