#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tg_arena_chunk {
    tg_arena_chunk *next;
    size_t size; /* usable bytes after the header */
    size_t pos;
};

#define TG_ARENA_MIN_CHUNK 1024u
#define TG_ALIGN(n) (((n) + 7u) & ~(size_t)7u)

void *tg_alloc_libc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

void tg_arena_init(tg_arena *a, tg_allocator alloc) {
    a->alloc = alloc;
    a->head = NULL;
    a->used = 0;
}

static unsigned char *chunk_data(tg_arena_chunk *c) {
    return (unsigned char *)c + TG_ALIGN(sizeof(tg_arena_chunk));
}

void *tg_arena_alloc(tg_arena *a, size_t n) {
    if (n > SIZE_MAX / 2) return NULL;
    n = TG_ALIGN(n ? n : 1);
    tg_arena_chunk *c = a->head;
    if (!c || c->size - c->pos < n) {
        size_t want = TG_ARENA_MIN_CHUNK;
        if (c && c->size < (1u << 20)) want = c->size * 2; /* grow geometrically to 1 MiB */
        else if (c) want = c->size;
        if (want < n) want = n;
        size_t total = TG_ALIGN(sizeof(tg_arena_chunk)) + want;
        tg_arena_chunk *nc = tg_malloc(&a->alloc, total);
        if (!nc) return NULL;
        nc->size = want;
        nc->pos = 0;
        nc->next = a->head;
        a->head = nc;
        c = nc;
    }
    void *p = chunk_data(c) + c->pos;
    c->pos += n;
    a->used += n;
    return p;
}

void *tg_arena_calloc(tg_arena *a, size_t count, size_t size) {
    if (size && count > SIZE_MAX / 2 / size) return NULL;
    void *p = tg_arena_alloc(a, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

char *tg_arena_strndup(tg_arena *a, const char *s, size_t n) {
    if (n == SIZE_MAX) return NULL;
    char *p = tg_arena_alloc(a, n + 1);
    if (!p) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

tg_arena_mark tg_arena_save(const tg_arena *a) {
    tg_arena_mark m = {a->head, a->head ? a->head->pos : 0};
    return m;
}

void tg_arena_rewind(tg_arena *a, tg_arena_mark m) {
    while (a->head && a->head != m.chunk) {
        tg_arena_chunk *c = a->head;
        a->head = c->next;
        tg_free(&a->alloc, c, TG_ALIGN(sizeof(tg_arena_chunk)) + c->size);
    }
    if (a->head) a->head->pos = m.pos;
}

void tg_arena_free(tg_arena *a) {
    tg_arena_mark none = {NULL, 0};
    tg_arena_rewind(a, none);
    a->used = 0;
}

void tg_arena_reset(tg_arena *a) {
    /* keep the newest chunk, the largest (chunks grow geometrically), so the
     * next call of the same size allocates nothing */
    tg_arena_chunk *keep = a->head;
    if (!keep) return;
    tg_arena_chunk *c = keep->next;
    while (c) {
        tg_arena_chunk *next = c->next;
        tg_free(&a->alloc, c, TG_ALIGN(sizeof(tg_arena_chunk)) + c->size);
        c = next;
    }
    keep->next = NULL;
    keep->pos = 0;
    a->used = 0;
}
