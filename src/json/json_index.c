/* json_index.c - per-container indexes for repeated lookups (json_index.h). */
#include "json_index.h"

#include <stdint.h>

void tg_json_index_init(tg_json_index *ix, tg_arena *arena) {
    memset(ix, 0, sizeof *ix);
    ix->arena = arena;
}

static size_t slot_of(const tg_json_index *ix, const cJSON *node) {
    uint64_t h = (uint64_t)(uintptr_t)node * 0x9E3779B97F4A7C15ull; /* (addresses: low bits are alignment) */
    return (size_t)(h >> 32) & (ix->cap - 1);
}

/* Room for one more slot: the table doubled when half full (the old one
 * stays in the arena, which a doubling wastes at most as much as). */
static int grow(tg_json_index *ix) {
    if (ix->cap && (ix->n + 1) * 2 <= ix->cap) return 0;
    size_t cap = ix->cap ? ix->cap * 2 : 64;
    tg_json_index_slot *old = ix->slots, *nw = tg_arena_calloc(ix->arena, cap, sizeof *nw);
    size_t ocap = ix->cap;
    if (!nw) return -1;
    ix->slots = nw;
    ix->cap = cap;
    for (size_t i = 0; i < ocap; i++) {
        if (!old[i].node) continue;
        size_t j = slot_of(ix, old[i].node);
        while (nw[j].node) j = (j + 1) & (cap - 1);
        nw[j] = old[i];
    }
    return 0;
}

/* First position in sorted v[0..n) whose key is not below key. */
static size_t lower_bound(tg_json_index *ix, const cJSON **v, size_t n, const char *key, size_t keylen) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        ix->probes++;
        if (tg_json_key_cmp(v[mid]->string, tg_json_strlen(v[mid]->string), key, keylen) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int key_eq(const cJSON *m, const char *key, size_t keylen) {
    return tg_json_strlen(m->string) == keylen && (keylen == 0 || memcmp(m->string, key, keylen) == 0);
}

/* Sorted members of obj with each run of equal keys headed by the run's
 * first member in document order (what tg_json_get returns), so a lower
 * bound lands on it. qsort is not stable: a run is fixed by walking the
 * members in order and putting each run's first seen at its head. */
static const cJSON **members_of(tg_json_index *ix, const cJSON *obj, size_t *n) {
    const cJSON **v = tg_json_members_sorted(ix->arena, obj, n);
    size_t i, dup = 0;
    if (!v) return NULL;
    for (i = 1; i < *n && !dup; i++) dup = tg_json_member_cmp(&v[i - 1], &v[i]) == 0;
    if (dup) {
        unsigned char *fixed = tg_arena_calloc(ix->arena, *n / 8 + 1, 1);
        if (!fixed) return NULL;
        for (const cJSON *c = obj->child; c; c = c->next) {
            size_t at = lower_bound(ix, v, *n, c->string, tg_json_strlen(c->string));
            if ((fixed[at >> 3] >> (at & 7)) & 1) continue;
            fixed[at >> 3] |= (unsigned char)(1u << (at & 7));
            v[at] = c;
        }
    }
    return v;
}

/* The slot of container x (made now when missing), or NULL when the arena
 * refused (the caller scans). */
static const tg_json_index_slot *slot(tg_json_index *ix, const cJSON *x) {
    size_t j;
    if (ix->cap) {
        for (j = slot_of(ix, x); ix->slots[j].node; j = (j + 1) & (ix->cap - 1))
            if (ix->slots[j].node == x) return &ix->slots[j];
    }
    if (grow(ix)) return NULL;
    tg_json_index_slot s = {x, NULL, 0};
    if (cJSON_IsObject(x)) {
        s.v = members_of(ix, x, &s.n);
    } else {
        for (const cJSON *c = x->child; c; c = c->next) s.n++;
        s.v = tg_arena_alloc(ix->arena, s.n * sizeof *s.v);
        if (s.v) {
            size_t i = 0;
            for (const cJSON *c = x->child; c; c = c->next) s.v[i++] = c;
        }
    }
    if (!s.v) return NULL;
    for (j = slot_of(ix, x); ix->slots[j].node; j = (j + 1) & (ix->cap - 1)) {}
    ix->slots[j] = s;
    ix->n++;
    return &ix->slots[j];
}

const cJSON *tg_json_index_get(tg_json_index *ix, const cJSON *obj, const char *key, size_t keylen) {
    const cJSON *c;
    size_t k = 0;
    if (!ix) return tg_json_get(obj, key, keylen);
    if (!obj || !cJSON_IsObject(obj)) return NULL;
    /* the first members scanned: a small object is never indexed */
    for (c = obj->child; c && k < TG_JSON_INDEX_FROM; c = c->next, k++) {
        ix->probes++;
        if (key_eq(c, key, keylen)) return c;
    }
    if (!c) return NULL;
    const tg_json_index_slot *s = slot(ix, obj);
    if (!s) {
        for (; c; c = c->next) {
            ix->probes++;
            if (key_eq(c, key, keylen)) return c;
        }
        return NULL;
    }
    size_t at = lower_bound(ix, s->v, s->n, key, keylen);
    return at < s->n && key_eq(s->v[at], key, keylen) ? s->v[at] : NULL;
}

const cJSON *tg_json_index_item(tg_json_index *ix, const cJSON *arr, size_t i) {
    const cJSON *c;
    size_t k = 0;
    if (!arr || !cJSON_IsArray(arr)) return NULL;
    for (c = arr->child; c && k < i && (!ix || k < TG_JSON_INDEX_FROM); c = c->next, k++)
        if (ix) ix->probes++;
    if (!c || k == i) return c;
    const tg_json_index_slot *s = slot(ix, arr);
    if (!s) {
        for (; c && k < i; c = c->next, k++) ix->probes++;
        return c;
    }
    ix->probes++;
    return i < s->n ? s->v[i] : NULL;
}
