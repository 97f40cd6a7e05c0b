/* fuzz/json.c - tg_json_parse on raw bytes; accepted documents must
 * round-trip through the canonical writers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "oracle.h"

static const tg_allocator A = {tg_alloc_libc, NULL};


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    g_data = data;
    g_size = size;
    tg_arena a;
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    tg_arena_init(&a, A);
    cJSON *d = tg_json_parse(&a, (const char *)data, size, &lim, &err);
    /* lenient (duplicates allowed) must accept whatever strict accepts */
    tg_json_limits dup = lim;
    dup.allow_duplicate_keys = 1;
    cJSON *d2 = tg_json_parse(&a, (const char *)data, size, &dup, &err);
    if (d && !d2) fail("strict accepts, duplicates-allowed rejects");
    if (!d && d2 && err.status != TG_JSON_DUPLICATE_KEY) {
        /* err is from d2's parse (ok): re-run strict to get its status */
        tg_json_error e1;
        tg_json_parse(&a, (const char *)data, size, &lim, &e1);
        if (e1.status != TG_JSON_DUPLICATE_KEY) fail("strict rejects non-dup, lenient accepts");
    }
    /* a tight depth limit accepting means the default accepts too */
    tg_json_limits shallow = lim;
    shallow.max_depth = 3;
    shallow.max_bytes = size; /* exactly fits */
    cJSON *d3 = tg_json_parse(&a, (const char *)data, size, &shallow, &err);
    if (d3 && !d) fail("depth 3 accepts, default rejects");
    if (size > 1) {
        shallow.max_bytes = size - 1;
        if (tg_json_parse(&a, (const char *)data, size, &shallow, &err)) fail("max_bytes not enforced");
    }
    cJSON *docs[2] = {d, d2};
    for (int k = 0; k < 2; k++) {
        cJSON *doc = docs[k];
        if (!doc) continue;
        if (k == 0 && !tg_json_equal(doc, doc)) fail("equal not reflexive");
        if (!tg_json_same(doc, doc)) fail("same not reflexive");
        tg_buf b, s;
        tg_buf_init(&b, A, 0);
        tg_buf_init(&s, A, 0);
        if (tg_json_write(&b, doc) != 0) fail("write failed");
        if (tg_json_write_sorted(&s, doc) != 0) fail("write_sorted failed");
        tg_json_error e2;
        cJSON *r = tg_json_parse(&a, b.data, b.len, k ? &dup : &lim, &e2);
        if (!r) fail("canonical text rejected" "\nwritten: %.*s", WRITTEN(&b));
        if (!tg_json_same(doc, r)) fail("canonical text parses to another document (same)" "\nwritten: %.*s", WRITTEN(&b));
        if (k == 0 && !tg_json_equal(doc, r)) fail("canonical text parses to unequal document" "\nwritten: %.*s", WRITTEN(&b));
        /* canonical writing is a fixpoint */
        tg_buf b2;
        tg_buf_init(&b2, A, 0);
        tg_json_write(&b2, r);
        if (b2.len != b.len || memcmp(b2.data, b.data, b.len)) fail("write not idempotent" "\nwritten: %.*s", WRITTEN(&b2));
        tg_buf_free(&b2);
        cJSON *rs = tg_json_parse(&a, s.data, s.len, k ? &dup : &lim, &e2);
        if (!rs) fail("sorted text rejected" "\nwritten: %.*s", WRITTEN(&s));
        if (k == 0 && !tg_json_equal(doc, rs)) fail("sorted text parses to unequal document" "\nwritten: %.*s", WRITTEN(&s));
        tg_buf_free(&b);
        tg_buf_free(&s);
        /* clone */
        cJSON *c = tg_json_clone(&a, doc);
        if (!c || !tg_json_same(doc, c)) fail("clone differs");
    }
    tg_arena_free(&a);
    return 0;
}
