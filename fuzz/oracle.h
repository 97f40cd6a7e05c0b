/* oracle.h - what every harness shares: the input at hand, and fail(),
 * which names the broken oracle, prints the input and aborts (libFuzzer
 * then saves it as a crash file). */
#ifndef TG_FUZZ_ORACLE_H
#define TG_FUZZ_ORACLE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

static const uint8_t *g_data;
static size_t g_size;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ORACLE FAIL: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ninput (%zu bytes, hex):", g_size);
    for (size_t i = 0; i < g_size; i++) fprintf(stderr, " %02x", g_data[i]);
    fputc('\n', stderr);
    abort();
}

/* The input at hand, taken as [flags] a \0 b (b NULL when there is no
 * \0): 0 when it is not between min and max bytes long. */
static inline int fuzz_input(const uint8_t *data, size_t size, size_t min, size_t max, uint8_t *flags, const char **a,
                      size_t *al, const char **b, size_t *bl) {
    if (size < min || size > max || size < 1) return 0;
    g_data = data;
    g_size = size;
    *flags = data[0];
    *a = (const char *)data + 1;
    const char *z = memchr(*a, 0, size - 1);
    *al = z ? (size_t)(z - *a) : size - 1;
    *b = z ? z + 1 : NULL;
    *bl = z ? size - 1 - *al - 1 : 0;
    return 1;
}

/* "written: <text>" beside a failure (a writer's output), or nothing: a
 * "%.*s" pair. (Functions, not a test in the macro: given &buf, a compiler
 * warns that the address is never NULL.) */
static inline int written_len(const tg_buf *b) { return b && b->data ? (int)b->len : 0; }
static inline const char *written_data(const tg_buf *b) { return b && b->data ? b->data : ""; }
#define WRITTEN(buf) written_len(buf), written_data(buf)

#endif
