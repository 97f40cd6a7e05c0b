/* fuzz/regex.c - input: [flags] pattern \0 subject. Compiles the pattern
 * (ECMA-262 u mode), checks tg_regex_syntax_ok agrees, then searches the
 * subject with the public search, the Pike VM and the lazy DFA (they must
 * agree) and with a bounded search. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "regex/regex.h"
#include "regex/regex_vm.h"
#include "oracle.h"

static const tg_allocator A = {tg_alloc_libc, NULL};


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t flags;
    const char *pat, *subj;
    size_t plen, slen;
    if (!fuzz_input(data, size, 1, 8192, &flags, &pat, &plen, &subj, &slen)) return 0;
    if (!subj) subj = "";

    tg_regex *re = NULL;
    tg_regex_error err, err2;
    int rc = tg_regex_compile(&A, pat, plen, NULL, &re, &err);
    int sy = tg_regex_syntax_ok(&A, pat, plen, NULL, &err2);
    if (rc == 0 && sy != 0) fail("compile accepts, syntax_ok rejects: %s (at %zu)", err2.message, err2.offset);
    if (rc != 0) {
        if (strlen(err.message) >= sizeof err.message) fail("unterminated message");
        if (err.offset > plen) fail("compile error offset %zu > pattern length %zu", err.offset, plen);
        if (sy != 0 && err2.offset > plen) fail("syntax_ok error offset %zu > %zu", err2.offset, plen);
        return 0;
    }
    /* subject: as given, or repeated to reach the DFA path */
    char *buf = NULL;
    const char *s = subj;
    size_t n = slen;
    if ((flags & 1) && slen > 0) {
        size_t reps = 1 + (flags >> 1) % 64;
        n = slen * reps;
        buf = malloc(n);
        for (size_t i = 0; i < reps; i++) memcpy(buf + i * slen, subj, slen);
        s = buf;
    }
    size_t ss = tg_regex_scratch_size(re);
    void *scratch = malloc(ss ? ss : 8);
    memset(scratch, 0xAB, ss);
    int r = tg_regex_search(re, s, n, tg_regex_needs_scratch(re) ? scratch : NULL);
    memset(scratch, 0xCD, ss);
    int pike = rx_pike_run(re, (const unsigned char *)s, n, scratch, 0, &re->start, 1, 0, NULL);
    memset(scratch, 0xEF, ss);
    int dfa = rx_dfa_search(re, (const unsigned char *)s, n, scratch, NULL);
    if (r != pike || r != dfa) fail("engines disagree: search %d pike %d dfa %d", r, pike, dfa);
    uint64_t budget = 1000000000ull;
    memset(scratch, 0x11, ss);
    int b = tg_regex_search_bounded(re, s, n, scratch, &budget);
    if (b != r) fail("bounded %d vs search %d", b, r);
    budget = flags;
    b = tg_regex_search_bounded(re, s, n, scratch, &budget);
    if (b != -1 && b != r) fail("small-budget bounded %d vs search %d", b, r);
    if (r != 0 && r != 1) fail("search returned %d", r);
    free(scratch);
    free(buf);
    tg_regex_free(re);
    return 0;
}
