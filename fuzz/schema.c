/* fuzz/schema.c - input: [flags byte] schema-text \0 instance-text.
 * Compiles the schema, validates the instance with the one-pass text checker
 * and the tree evaluator (FLAG and BASIC, JSON and records), and through the
 * public runtime API. Oracles: verdicts agree wherever both decide; the
 * checker's first error equals the evaluator's first error byte for byte;
 * error output is strict JSON; record lengths add up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "toolgate.h"
#include "json/json.h"
#include "schema/schema.h"

static const tg_allocator A = {tg_alloc_libc, NULL};
static tg_schema *meta_cache[6];

/* (the cache lives as long as the process: freed at exit, so a replay
 * under valgrind ends with nothing held) */
__attribute__((destructor)) static void free_meta_cache(void) {
    for (size_t i = 0; i < sizeof meta_cache / sizeof *meta_cache; i++) {
        tg_schema_free(meta_cache[i]);
        meta_cache[i] = NULL;
    }
}

#include "oracle.h"

static size_t utf16_len(const unsigned char *s, size_t n) {
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if ((c & 0xC0) == 0x80) continue;
        u += (c >= 0xF0) ? 2 : 1;
    }
    return u;
}

static void check_json_array(const char *what, const tg_buf *b, size_t from) {
    tg_arena a;
    tg_json_error e;
    tg_arena_init(&a, A);
    cJSON *d = tg_json_parse(&a, b->data + from, b->len - from, NULL, &e);
    if (!d || !cJSON_IsArray(d)) fail("%s: error output not a strict JSON array (%s): %.*s", what, e.message,
                                      (int)(b->len - from), b->data + from);
    tg_arena_free(&a);
}

static void check_records(const char *what, const tg_buf *out, size_t from, const tg_buf *lens, size_t max) {
    size_t n = lens->len / sizeof(uint32_t);
    if (lens->len % (3 * sizeof(uint32_t))) fail("%s: record lens not a multiple of 3", what);
    if (n / 3 > max) fail("%s: %zu records, max %zu", what, n / 3, max);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t l;
        memcpy(&l, lens->data + i * 4, 4);
        total += l;
    }
    size_t u = utf16_len((const unsigned char *)out->data + from, out->len - from);
    if (total != u) fail("%s: record lens sum %zu, text has %zu UTF-16 units", what, total, u);
}

static void via_runtime(const char *schema, size_t slen, const char *inst, size_t ilen, uint8_t flags, int verdict) {
    tg_limits lim;
    tg_limits_default(&lim);
    lim.memory_bytes = 256u << 20;
    tg_runtime *rt = tg_runtime_new(&lim, NULL, NULL, NULL);
    if (!rt) return;
    static const char *dialects[] = {"", "2020-12", "2019-09", "draft-07", "draft-06", "draft-04"};
    char opts[128];
    int d = flags & 7;
    int n = snprintf(opts, sizeof opts, "{%s%s%s\"formats\":\"%s\"}", d && d < 6 ? "\"dialect\":\"" : "",
                     d && d < 6 ? dialects[d] : "", d && d < 6 ? "\"," : "", (flags & 8) ? "assert" : "annotate");
    uint32_t id = 0;
    tg_status st = tg_compile_schema(rt, schema, slen, opts, (size_t)n, &id);
    size_t len;
    if (st == TG_OK) {
        size_t maxes[] = {0, 1, 20};
        for (int k = 0; k < 3; k++) {
            int r = tg_validate(rt, id, inst, ilen, maxes[k]);
            if (verdict >= 0 && r >= 0 && r != verdict)
                fail("tg_validate(max %zu) says %d, evaluator %d", maxes[k], r, verdict);
            if (r == 0 && maxes[k] > 0) {
                const char *o = tg_output(rt, &len);
                tg_buf b = {A, (char *)o, len, len, 0, 0};
                check_json_array("tg_validate", &b, 0);
            }
            int r2 = tg_validate_records(rt, id, inst, ilen, maxes[k]);
            if (r2 != r) fail("tg_validate %d vs tg_validate_records %d", r, r2);
            if (r2 == 0 && maxes[k] > 0) {
                size_t nl = 0;
                const uint32_t *ls = tg_output_lengths(rt, &nl);
                const char *o = tg_output(rt, &len);
                if (nl % 3 || nl / 3 > maxes[k] || nl == 0) fail("records: %zu lengths (max %zu)", nl, maxes[k]);
                size_t tot = 0;
                for (size_t i = 0; i < nl; i++) tot += ls[i];
                if (tot != utf16_len((const unsigned char *)o, len)) fail("runtime records sum mismatch");
            }
        }
        tg_schema_release(rt, id);
    }
    tg_runtime_free(rt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t flags;
    const char *schema, *inst;
    size_t slen, ilen;
    if (!fuzz_input(data, size, 2, 20000, &flags, &schema, &slen, &inst, &ilen)) return 0;
    if (!inst) inst = "null", ilen = 4;
    tg_arena doc, scratch;
    tg_arena_init(&doc, A);
    tg_arena_init(&scratch, A);
    tg_json_error err;
    tg_json_limits jl = tg_json_default_limits();
    cJSON *sd = tg_json_parse(&doc, schema, slen, &jl, &err);
    if (!sd) goto out;
    tg_schema_options o = tg_schema_default_options();
    o.dialect = (tg_dialect)((flags & 7) % 6);
    o.format_assert = (flags >> 3) & 1;
    o.skip_metaschema_check = (flags >> 4) & 1;
    o.borrow_document = (flags >> 5) & 1;
    o.metaschema_cache = meta_cache;
    tg_buf diag;
    tg_buf_init(&diag, A, 0);
    tg_schema *s = NULL;
    int cr = tg_schema_compile(&A, sd, &o, &s, &diag);
    tg_buf_free(&diag);
    if (cr != 0) goto out;

    cJSON *id = tg_json_parse(&doc, inst, ilen, &jl, &err);
    int flag = -2;
    if (id) {
        flag = tg_schema_validate(s, id, &scratch, TG_OUTPUT_FLAG, 0, NULL);
        tg_arena_reset(&scratch);
        size_t maxes[] = {1, 20};
        for (int k = 0; k < 2; k++) {
            tg_buf e;
            tg_buf_init(&e, A, 0);
            int b = tg_schema_validate(s, id, &scratch, TG_OUTPUT_BASIC, maxes[k], &e);
            tg_arena_reset(&scratch);
            if (b >= 0 && flag >= 0 && b != flag) fail("FLAG %d vs BASIC(max %zu) %d", flag, maxes[k], b);
            if (b == 0) check_json_array("BASIC", &e, 0);
            if (b == 1 && !(e.len == 2 && memcmp(e.data, "[]", 2) == 0)) fail("valid but errors %.*s", (int)e.len, e.data);
            tg_buf_free(&e);
            tg_buf out, lens;
            tg_buf_init(&out, A, 0);
            tg_buf_init(&lens, A, 0);
            tg_schema_errors to = {.out = &out, .lens = &lens};
            int r = tg_schema_validate_into(s, id, &scratch, maxes[k], &to);
            tg_arena_reset(&scratch);
            if (r != b) fail("validate_into(records) %d vs BASIC %d", r, b);
            if (r == 0) check_records("records", &out, 0, &lens, maxes[k]);
            tg_buf_free(&out);
            tg_buf_free(&lens);
        }
    }
    /* the one-pass checker */
    {
        tg_buf first;
        tg_buf_init(&first, A, 0);
        tg_buf_putc(&first, '#');
        tg_schema_errors fe = {.out = &first};
        int c = tg_schema_check_text(s, inst, ilen, &jl, &scratch, &fe);
        tg_arena_reset(&scratch);
        if (c >= 0 && !id) fail("check_text decided %d on text tg_json_parse rejects (%s)", c, err.message);
        if (c >= 0 && flag >= 0 && c != flag) fail("check_text %d vs evaluator %d", c, flag);
        if (c != 0 && first.len != 1) fail("check_text %d wrote an error", c);
        if (c == 0 && first.len > 1 && flag == 0) {
            tg_buf theirs;
            tg_buf_init(&theirs, A, 0);
            tg_schema_errors te = {.out = &theirs};
            tg_schema_validate_into(s, id, &scratch, 1, &te);
            tg_arena_reset(&scratch);
            if (theirs.len != first.len - 1 || memcmp(theirs.data, first.data + 1, theirs.len))
                fail("first error: one pass %.*s, evaluator %.*s", (int)first.len - 1, first.data + 1, (int)theirs.len,
                     theirs.data);
            tg_buf_free(&theirs);
        }
        tg_buf_free(&first);
    }
    /* the canonical writing of the instance gets the same verdict in one pass */
    if (id) {
        tg_buf cw;
        tg_buf_init(&cw, A, 0);
        tg_json_write(&cw, id);
        int c2 = tg_schema_check_text(s, cw.data, cw.len, &jl, &scratch, NULL);
        tg_arena_reset(&scratch);
        if (c2 >= 0 && flag >= 0 && c2 != flag) fail("check_text on canonical text %d vs evaluator %d: %.*s", c2, flag, (int)cw.len, cw.data);
        tg_buf_free(&cw);
    }
    if (flags & 0x40) via_runtime(schema, slen, inst, ilen, flags, flag);
    tg_schema_free(s);
out:
    tg_arena_free(&scratch);
    tg_arena_free(&doc);
    return 0;
}
