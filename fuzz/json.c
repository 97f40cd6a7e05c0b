/* fuzz/json.c - tg_json_parse on raw bytes; accepted documents must
 * round-trip through the canonical writers, and the stream reader
 * (tg_json_parse_each) must read every input as the tree reader does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "oracle.h"

static const tg_allocator A = {tg_alloc_libc, NULL};

/* tg_json_parse_each's fn: each element's canonical text, comma-separated */
static int collect(void *ud, const cJSON *root, const cJSON *element) {
    tg_buf *b = ud;
    (void)root;
    if (b->len) tg_buf_putc(b, ',');
    return tg_json_write(b, element) ? -1 : 0;
}

/* The stream reader (a batch's "tools", element by element) against the
 * tree reader: the same verdict and error to the byte, and the same
 * elements in the same order. */
static void each_agrees(tg_arena *a, const uint8_t *data, size_t size, const tg_json_limits *lim, const cJSON *d,
                        const tg_json_error *err) {
    tg_arena scratch;
    tg_buf got, want;
    tg_json_error e;
    tg_arena_init(&scratch, A);
    tg_buf_init(&got, A, 0);
    tg_buf_init(&want, A, 0);
    tg_json_each each = {"tools", &scratch, collect, &got};
    cJSON *r = tg_json_parse_each(a, (const char *)data, size, lim, &e, &each);
    if (!r != !d) fail("the stream reader %s what the tree reader %s", r ? "accepts" : "rejects", d ? "accepts" : "rejects");
    if (!d && (e.status != err->status || e.offset != err->offset || strcmp(e.message, err->message)))
        fail("the stream reader's error (%d at %zu: %s) is not the tree reader's (%d at %zu: %s)", (int)e.status, e.offset,
             e.message, (int)err->status, err->offset, err->message);
    if (d) {
        const cJSON *tools = cJSON_IsObject(d) ? tg_json_getz(d, "tools") : NULL;
        if (cJSON_IsArray(tools))
            for (const cJSON *t = tools->child; t; t = t->next) collect(&want, d, t);
        if (got.len != want.len || (got.len && memcmp(got.data, want.data, got.len)))
            fail("the stream reader gave other elements\nstream: %.*s\ntree: %.*s", (int)(got.len > 2000 ? 2000 : got.len),
                 got.data ? got.data : "", (int)(want.len > 2000 ? 2000 : want.len), want.data ? want.data : "");
    }
    tg_buf_free(&got);
    tg_buf_free(&want);
    tg_arena_free(&scratch);
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    g_data = data;
    g_size = size;
    tg_arena a;
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    tg_arena_init(&a, A);
    cJSON *d = tg_json_parse(&a, (const char *)data, size, &lim, &err);
    each_agrees(&a, data, size, &lim, d, &err);
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
