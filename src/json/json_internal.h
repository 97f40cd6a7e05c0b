/* json_internal.h - helpers shared by the json module's files only. */
#ifndef TG_JSON_INTERNAL_H
#define TG_JSON_INTERNAL_H

#include "json.h"

/* A member of an object and its index in the object's document order;
 * tg_json__sort_keyed puts k[0..n), given in document order, in key order
 * (by bytes, a prefix first), equal keys in document order (json_write.c:
 * the canonical writer's order, and the reader's duplicate search). */
typedef struct tg_json__keyed {
    const cJSON *member;
    size_t idx;
} tg_json__keyed;
void tg_json__sort_keyed(tg_json__keyed *k, size_t n);

/* A length-prefixed, NUL-terminated copy of s[0..len) in the arena
 * (inline: the reader makes one per string, key and number). */
static inline char *tg_json__str(tg_arena *a, const char *s, size_t len) {
    if (len > ((size_t)-1) / 2) return NULL;
    char *p = tg_arena_alloc(a, sizeof(size_t) + len + 1);
    if (!p) return NULL;
    memcpy(p, &len, sizeof len);
    p += sizeof(size_t);
    if (len) memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
/* cJSON's valueint convention: the double saturated to int (inline: the
 * reader calls it for every number). */
static inline int tg_json__saturate(double v) {
    if (v >= 2147483647.0) return 2147483647;
    if (v <= -2147483648.0) return (-2147483647 - 1);
    if (v != v) return 0;
    return (int)v;
}

/* Appends item as the last child of c (cJSON's convention: the first
 * child's prev is the last child). Inline: the reader calls it per value. */
static inline void tg_json__append(cJSON *c, cJSON *item) {
    item->next = NULL;
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

#endif
