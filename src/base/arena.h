/* arena.h - bump allocator for everything that lives as long as one call,
 * one parse or one compiled object. Memory comes from a tg_allocator in
 * chunks; nothing is freed individually; tg_arena_free returns it all.
 *
 * Limits: an allocation the hook refuses returns NULL and leaves the arena
 * usable. Sizes that would overflow return NULL.
 *
 * The bump pointer of the newest chunk lives in the arena itself (cur/end) so
 * tg_arena_alloc is an inline pointer bump on its fast path; only a new chunk
 * goes through tg_arena__grow. */
#ifndef TG_BASE_ARENA_H
#define TG_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "alloc.h"

typedef struct tg_arena_chunk tg_arena_chunk;

typedef struct tg_arena {
    tg_allocator alloc;
    tg_arena_chunk *head;   /* newest chunk first */
    unsigned char *cur;     /* next free byte of head (8-aligned), NULL without a chunk */
    unsigned char *end;     /* end of head's usable bytes */
    size_t used;            /* bytes handed out, for reporting */
} tg_arena;

/* A position to roll back to (tg_arena_rewind) for scratch work. */
typedef struct tg_arena_mark {
    tg_arena_chunk *chunk;
    size_t pos;
} tg_arena_mark;

void tg_arena_init(tg_arena *a, tg_allocator alloc);
/* Slow path of tg_arena_alloc: a new chunk. n is already aligned. */
void *tg_arena__grow(tg_arena *a, size_t n);
/* 8-byte aligned, uninitialised; NULL when the hook refuses. */
static inline void *tg_arena_alloc(tg_arena *a, size_t n) {
    if (n > SIZE_MAX / 2) return NULL;
    size_t an = n ? (n + 7u) & ~(size_t)7u : 8u;
    if (an <= (size_t)(a->end - a->cur)) {
        void *p = a->cur;
        a->cur += an;
        a->used += an;
        return p;
    }
    return tg_arena__grow(a, an);
}
/* Makes the next n bytes of allocations (in total) come from one chunk:
 * when the current one has less room, a new chunk of at least n bytes
 * starts (sized for the work ahead instead of doubling up to it). -1 when
 * the hook refuses (the arena stays usable). */
int tg_arena_reserve(tg_arena *a, size_t n);
/* Zero-filled variant of tg_arena_alloc. */
static inline void *tg_arena_calloc(tg_arena *a, size_t count, size_t size) {
    if (size && count > SIZE_MAX / 2 / size) return NULL;
    void *p = tg_arena_alloc(a, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}
/* Copies n bytes and appends a NUL; NULL when the hook refuses. */
char *tg_arena_strndup(tg_arena *a, const char *s, size_t n);
tg_arena_mark tg_arena_save(const tg_arena *a);
/* Frees every chunk allocated after the mark and rewinds to it. */
void tg_arena_rewind(tg_arena *a, tg_arena_mark m);
/* Forgets every allocation but keeps the newest (largest) chunk for reuse,
 * so an arena reset per call costs no allocator traffic in the steady state. */
void tg_arena_reset(tg_arena *a);
/* tg_arena_reset keeping nothing when the last use took more than keep_max
 * bytes (a one-off large use is not held for good). */
void tg_arena_reset_max(tg_arena *a, size_t keep_max);
/* Releases all chunks; the arena may be reused afterwards. */
void tg_arena_free(tg_arena *a);
/* An allocator drawing on a, for short-lived buffers (an error message in
 * the making): allocating bumps, growing copies, freeing does nothing; the
 * memory goes with the arena's next reset or rewind. */
tg_allocator tg_arena_allocator(tg_arena *a);

#endif
