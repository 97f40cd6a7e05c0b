/* oracle.h - what every harness shares: the input at hand, and fail(),
 * which names the broken oracle, prints the input and aborts (libFuzzer
 * then saves it as a crash file). */
#ifndef TG_FUZZ_ORACLE_H
#define TG_FUZZ_ORACLE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
