#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tg_arena_chunk {
    tg_arena_chunk *next;
    size_t size; /* usable bytes after the header */
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
    a->cur = a->end = NULL;
    a->used = 0;
}

static unsigned char *chunk_data(tg_arena_chunk *c) {
    return (unsigned char *)c + TG_ALIGN(sizeof(tg_arena_chunk));
}

static void set_head(tg_arena *a, tg_arena_chunk *c, size_t pos) {
    a->head = c;
    if (c) {
        a->cur = chunk_data(c) + pos;
        a->end = chunk_data(c) + c->size;
    } else {
        a->cur = a->end = NULL;
    }
}

void *tg_arena__grow(tg_arena *a, size_t n) {
    tg_arena_chunk *c = a->head;
    size_t want = TG_ARENA_MIN_CHUNK;
    if (c && c->size < (1u << 20)) want = c->size * 2; /* grow geometrically to 1 MiB */
    else if (c) want = c->size;
    if (want < n) want = n;
    size_t total = TG_ALIGN(sizeof(tg_arena_chunk)) + want;
    tg_arena_chunk *nc = tg_malloc(&a->alloc, total);
    if (!nc) return NULL;
    nc->size = want;
    nc->next = a->head;
    set_head(a, nc, n);
    a->used += n;
    return chunk_data(nc);
}

int tg_arena_reserve(tg_arena *a, size_t n) {
    if (n > SIZE_MAX / 2) return -1;
    n = TG_ALIGN(n);
    if (n <= (size_t)(a->end - a->cur)) return 0;
    size_t total = TG_ALIGN(sizeof(tg_arena_chunk)) + n;
    tg_arena_chunk *nc = tg_malloc(&a->alloc, total);
    if (!nc) return -1;
    nc->size = n;
    nc->next = a->head;
    set_head(a, nc, 0);
    return 0;
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
    tg_arena_mark m = {a->head, a->head ? (size_t)(a->cur - chunk_data(a->head)) : 0};
    return m;
}

void tg_arena_rewind(tg_arena *a, tg_arena_mark m) {
    while (a->head && a->head != m.chunk) {
        tg_arena_chunk *c = a->head;
        a->head = c->next;
        tg_free(&a->alloc, c, TG_ALIGN(sizeof(tg_arena_chunk)) + c->size);
    }
    set_head(a, a->head, a->head ? m.pos : 0);
}

void tg_arena_free(tg_arena *a) {
    tg_arena_mark none = {NULL, 0};
    tg_arena_rewind(a, none);
    a->used = 0;
}

void tg_arena_reset(tg_arena *a) { tg_arena_reset_max(a, 64u << 20); }

void tg_arena_reset_max(tg_arena *a, size_t keep_max) {
    /* keep one chunk as large as everything the last use needed, so the next
     * call of the same size allocates nothing (with several chunks they are
     * replaced by one of their total size; if that is refused, the newest,
     * the largest, is kept); past keep_max nothing is kept */
    tg_arena_chunk *keep = a->head;
    a->used = 0;
    if (!keep) return;
    if (!keep->next && keep->size <= keep_max) { /* the usual case: one chunk, kept as it is */
        a->cur = chunk_data(keep);
        return;
    }
    size_t total = 0;
    for (tg_arena_chunk *c = keep; c; c = c->next) total += c->size;
    if (total > keep_max) {
        tg_arena_free(a);
        return;
    }
    if (keep->next) {
        tg_arena_chunk *one = tg_malloc(&a->alloc, TG_ALIGN(sizeof(tg_arena_chunk)) + total);
        tg_arena_chunk *c = one ? keep : keep->next;
        while (c) {
            tg_arena_chunk *next = c->next;
            tg_free(&a->alloc, c, TG_ALIGN(sizeof(tg_arena_chunk)) + c->size);
            c = next;
        }
        if (one) {
            one->size = total;
            keep = one;
        }
        keep->next = NULL;
    }
    set_head(a, keep, 0);
}

static void *arena_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
    void *p;
    if (nsize == 0) return NULL; /* free: the arena keeps it */
    p = tg_arena_alloc((tg_arena *)ud, nsize);
    if (p && ptr) memcpy(p, ptr, osize < nsize ? osize : nsize);
    return p;
}

tg_allocator tg_arena_allocator(tg_arena *a) {
    tg_allocator al = {arena_fn, a};
    return al;
}
