/* tg_test.h - the few macros the C tests share. Each test program counts
 * checks and ends with "<name>: N passed, N failed"; it exits nonzero on any
 * failure. */
#ifndef TG_TEST_H
#define TG_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tg_test_passed, tg_test_failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) tg_test_passed++;                                                  \
        else {                                                                       \
            tg_test_failed++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                                \
    do {                                                                    \
        if (cond) tg_test_passed++;                                         \
        else {                                                              \
            tg_test_failed++;                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

#define CHECK_STR(a, b) CHECK_MSG(strcmp((a), (b)) == 0, "\"%s\" != \"%s\"", (a), (b))

/* A bound for checks that something ends promptly (a linear-time search,
 * an early refusal): base seconds, times TG_TIME_SCALE when it is set
 * (scripts/test.sh sets it under ASan and valgrind, which run code several
 * to ~30 times slower). Such a bound tells linear work from catastrophic
 * work; how fast things are is bench/'s to show. */
static inline double tg_test_seconds(double base) {
    const char *s = getenv("TG_TIME_SCALE");
    double k = s ? atof(s) : 0.0;
    return base * (k > 0.0 ? k : 1.0);
}

static int tg_test_finish(const char *name) {
    printf("%s: %d passed, %d failed\n", name, tg_test_passed, tg_test_failed);
    return tg_test_failed ? 1 : 0;
}

#endif
