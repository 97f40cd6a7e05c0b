/* alloc.h - the one allocation hook every toolgate module allocates through.
 *
 * Lua-style: a single function handles malloc (ptr == NULL), realloc and free
 * (nsize == 0). The runtime installs one at creation; modules never call
 * malloc directly, so a memory budget, a failure-injection test or a host
 * allocator sees every byte. */
#ifndef TG_BASE_ALLOC_H
#define TG_BASE_ALLOC_H

#include <stddef.h>

typedef void *(*tg_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct tg_allocator {
    tg_alloc_fn fn;
    void *ud;
} tg_allocator;

/* Returns NULL when the hook refuses (budget exhausted or out of memory). */
static inline void *tg_malloc(const tg_allocator *a, size_t n) {
    return a->fn(a->ud, NULL, 0, n ? n : 1);
}
static inline void *tg_realloc(const tg_allocator *a, void *p, size_t osize, size_t nsize) {
    return a->fn(a->ud, p, osize, nsize ? nsize : 1);
}
static inline void tg_free(const tg_allocator *a, void *p, size_t osize) {
    if (p) a->fn(a->ud, p, osize, 0);
}

/* The libc-backed hook (malloc/realloc/free); ud is unused. */
void *tg_alloc_libc(void *ud, void *ptr, size_t osize, size_t nsize);

#endif
