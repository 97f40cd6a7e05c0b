#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tg_buf_init(tg_buf *b, tg_allocator alloc, size_t max) {
    b->alloc = alloc;
    b->data = NULL;
    b->len = b->cap = 0;
    b->max = max;
    b->failed = 0;
}

int tg_buf__append(tg_buf *b, const void *p, size_t n) {
    if (b->failed) return -1;
    if (n > ((size_t)-1) - b->len - 1 || (b->max && b->len + n > b->max)) {
        b->failed = 1;
        return -1;
    }
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->len + n + 1) ncap = ncap > ((size_t)-1) / 2 ? b->len + n + 1 : ncap * 2;
        char *nd = tg_realloc(&b->alloc, b->data, b->cap, ncap);
        if (!nd) {
            b->failed = 1;
            return -1;
        }
        b->data = nd;
        b->cap = ncap;
    }
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int tg_buf_reserve(tg_buf *b, size_t n) {
    if (b->failed || n > ((size_t)-1) - b->len - 1 || (b->max && b->len + n > b->max)) return -1;
    if (b->len + n + 1 <= b->cap) return 0;
    char *nd = tg_realloc(&b->alloc, b->data, b->cap, b->len + n + 1);
    if (!nd) return -1;
    if (!b->data) nd[0] = '\0';
    b->data = nd;
    b->cap = b->len + n + 1;
    return 0;
}

int tg_buf_puts(tg_buf *b, const char *s) { return tg_buf_append(b, s, strlen(s)); }

int tg_buf_putc(tg_buf *b, char c) { return tg_buf_append(b, &c, 1); }

int tg_buf_printf(tg_buf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    return tg_buf_append(b, tmp, (size_t)n);
}


void tg_buf_swap(tg_buf *a, tg_buf *b) {
    tg_buf t = *a;
    size_t amax = a->max, bmax = b->max;
    *a = *b;
    *b = t;
    a->max = amax;
    b->max = bmax;
}

void tg_buf_free(tg_buf *b) {
    tg_free(&b->alloc, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}
