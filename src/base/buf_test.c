/* buf_test.c - the growable buffer's one-step reserve and its swap: the
 * registry reserves a batch's change log at once and hands the log on to
 * the output by swapping, so both must keep every byte, every cap and the
 * buffer usable when the allocator refuses. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "../../tests/tg_test.h"

/* libc, but refusing every request while *ud is set. */
static void *refusing(void *ud, void *p, size_t osize, size_t nsize) {
    (void)osize;
    if (nsize == 0) {
        free(p);
        return NULL;
    }
    return *(int *)ud ? NULL : realloc(p, nsize);
}

static void test_reserve_takes_room_once(void) {
    tg_allocator libc = {tg_alloc_libc, NULL};
    tg_buf b;
    tg_buf_init(&b, libc, 0);
    CHECK(tg_buf_reserve(&b, 10000) == 0);
    CHECK(b.cap >= 10001 && b.len == 0 && b.data && b.data[0] == '\0');
    const char *room = b.data;
    for (int i = 0; i < 1000; i++) tg_buf_puts(&b, "0123456789");
    CHECK(b.data == room && b.len == 10000 && !b.failed); /* (no growth: the appends fit) */
    CHECK(tg_buf_reserve(&b, 5) == 0 && b.cap >= b.len + 6);
    tg_buf_puts(&b, "x");
    CHECK(b.len == 10001 && b.data[10000] == 'x' && b.data[10001] == '\0');
    tg_buf_free(&b);
}

static void test_reserve_refused_leaves_buffer_usable(void) {
    int refuse = 0;
    tg_allocator a = {refusing, &refuse};
    tg_buf b;
    tg_buf_init(&b, a, 1000);
    CHECK(tg_buf_reserve(&b, 1001) == -1 && !b.failed && b.cap == 0); /* past max: a hint refused */
    tg_buf_puts(&b, "abc");
    refuse = 1;
    CHECK(tg_buf_reserve(&b, 500) == -1 && !b.failed && b.len == 3 && strcmp(b.data, "abc") == 0); /* (past the 256 bytes the append took) */
    refuse = 0;
    CHECK(tg_buf_reserve(&b, 500) == 0 && b.cap >= 504 && strcmp(b.data, "abc") == 0);
    tg_buf_free(&b);
}

static void test_swap_moves_bytes_and_keeps_caps(void) {
    tg_allocator libc = {tg_alloc_libc, NULL};
    tg_buf a, b;
    tg_buf_init(&a, libc, 0);
    tg_buf_init(&b, libc, 64);
    tg_buf_puts(&a, "a long log, handed on");
    tg_buf_swap(&b, &a);
    CHECK(b.len == 21 && strcmp(b.data, "a long log, handed on") == 0 && b.max == 64);
    CHECK(a.len == 0 && a.data == NULL && a.max == 0);
    tg_buf_puts(&a, "next");
    CHECK(strcmp(a.data, "next") == 0);
    tg_buf_free(&a);
    tg_buf_free(&b);
}

int main(void) {
    test_reserve_takes_room_once();
    test_reserve_refused_leaves_buffer_usable();
    test_swap_moves_bytes_and_keeps_caps();
    return tg_test_finish("buf");
}
