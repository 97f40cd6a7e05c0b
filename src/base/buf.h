/* buf.h - a growable byte buffer for output (canonical JSON, results,
 * messages). The buffer owns its bytes; tg_buf_free releases them.
 *
 * Limits: every append returns 0 on success and -1 when the hook refuses or
 * the buffer would pass `max` bytes (0 means no cap); after a failure the
 * buffer keeps what it had and `failed` is set, so a writer may append freely
 * and check once at the end. */
#ifndef TG_BASE_BUF_H
#define TG_BASE_BUF_H

#include <stddef.h>
#include <string.h>
#include "alloc.h"

typedef struct tg_buf {
    tg_allocator alloc;
    char *data;
    size_t len, cap, max;
    int failed;
} tg_buf;

void tg_buf_init(tg_buf *b, tg_allocator alloc, size_t max);
/* Slow path of tg_buf_append: growth, the cap, an earlier failure. */
int tg_buf__append(tg_buf *b, const void *p, size_t n);
/* Inline while the bytes fit (most appends: short pieces of a message). */
static inline int tg_buf_append(tg_buf *b, const void *p, size_t n) {
    if (!b->failed && n < b->cap - b->len && (!b->max || b->len + n <= b->max)) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
        return 0;
    }
    return tg_buf__append(b, p, n);
}
int tg_buf_puts(tg_buf *b, const char *s);
int tg_buf_putc(tg_buf *b, char c);
/* printf-style append; the formatted text is cut at 1 KiB. */
int tg_buf_printf(tg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empties the buffer, keeping its memory (inline: every module call resets
 * its output buffers). */
static inline void tg_buf_reset(tg_buf *b) {
    b->len = 0;
    b->failed = 0;
    if (b->data) b->data[0] = '\0';
}
/* Room for n more bytes in one step, ahead of appends that would grow the
 * buffer by doubling (copying it each time). A hint: -1 when the
 * allocator refuses or max is in the way, the buffer unchanged and usable. */
int tg_buf_reserve(tg_buf *b, size_t n);
void tg_buf_free(tg_buf *b);
/* Exchanges the bytes a and b hold (with the allocators they came from);
 * each keeps its own max. For handing a long text on without copying it. */
void tg_buf_swap(tg_buf *a, tg_buf *b);
/* tg_buf_reset, but a buffer grown past keep bytes is freed (a call's output
 * is the next call's room: one huge answer must not hold memory for good). */
static inline void tg_buf_reset_max(tg_buf *b, size_t keep) {
    if (b->cap > keep) tg_buf_free(b);
    else tg_buf_reset(b);
}

#endif
