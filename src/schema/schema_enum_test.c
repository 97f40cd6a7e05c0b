/* schema_enum_test.c - enum's index (schema_enum.h): its hash agrees with
 * JSON Schema equality, it finds exactly the listed values, a large enum
 * under "items" costs steps in proportion to the input (the one pass and
 * the evaluator alike), and values made to collide end in a bounded error
 * instead of a quadratic scan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "schema_enum.h"
#include "schema_internal.h"
#include "../json/json.h"
#include "../../tests/tg_test.h"

static const tg_allocator A = {tg_alloc_libc, NULL};

static cJSON *parse(tg_arena *a, const char *text) {
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    lim.max_bytes = 64u << 20;
    return tg_json_parse(a, text, strlen(text), &lim, &err);
}

/* Values JSON Schema holds equal hash alike; the one pass's hashes of a
 * string's bytes and of a literal are the tree's. */
static void test_hash_agrees_with_equality(void) {
    static const char *same[][2] = {
        {"1", "1.0"}, {"1", "1e0"}, {"1", "10e-1"}, {"0", "-0"}, {"-0.0", "0e5"}, {"\"\\u00e9\"", "\"\xc3\xa9\""},
        {"{\"a\":1,\"b\":[1,2,{\"c\":null}]}", "{\"b\":[1.0,2e0,{\"c\":null}],\"a\":1e0}"}, {"[]", "[ ]"}, {"{}", "{ }"},
        {"\"a\\u0000b\"", "\"a\\u0000b\""},
    };
    tg_arena a;
    tg_arena_init(&a, A);
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        cJSON *x = parse(&a, same[i][0]), *y = parse(&a, same[i][1]);
        CHECK(x && y && tg_json_equal(x, y));
        CHECK_MSG(tg_svalue_hash(x) == tg_svalue_hash(y), "%s vs %s", same[i][0], same[i][1]);
    }
    cJSON *s = parse(&a, "\"caf\\u00e9 \\\"x\\\"\"");
    CHECK(tg_svalue_hash(s) == tg_svalue_hash_str("caf\xc3\xa9 \"x\"", 9));
    CHECK(tg_svalue_hash(parse(&a, "true")) == tg_svalue_hash_lit(cJSON_True));
    CHECK(tg_svalue_hash(parse(&a, "false")) == tg_svalue_hash_lit(cJSON_False));
    CHECK(tg_svalue_hash(parse(&a, "null")) == tg_svalue_hash_lit(cJSON_NULL));
    /* (types apart: the string "1" is not the number 1, [1] not {"0":1}) */
    CHECK(tg_svalue_hash(parse(&a, "\"1\"")) != tg_svalue_hash(parse(&a, "1")));
    CHECK(tg_svalue_hash(parse(&a, "true")) != tg_svalue_hash(parse(&a, "false")));
    tg_arena_free(&a);
}

/* A JSON array of n values of every kind: strings, integers, fractions,
 * objects, arrays, and the three literals once each. */
static char *mixed_list(int n) {
    size_t cap = (size_t)n * 48 + 64, o = 0;
    char *t = malloc(cap);
    o += (size_t)snprintf(t + o, cap - o, "[true,false,null");
    for (int i = 0; i < n; i++) {
        switch (i % 5) {
        case 0: o += (size_t)snprintf(t + o, cap - o, ",\"s%d\"", i); break;
        case 1: o += (size_t)snprintf(t + o, cap - o, ",%d", i); break;
        case 2: o += (size_t)snprintf(t + o, cap - o, ",%d.5", i); break;
        case 3: o += (size_t)snprintf(t + o, cap - o, ",{\"k\":%d,\"v\":[\"x\"]}", i); break;
        default: o += (size_t)snprintf(t + o, cap - o, ",[%d,\"y\"]", i); break;
        }
    }
    snprintf(t + o, cap - o, "]");
    return t;
}

static void test_index_finds_exactly_the_values(void) {
    tg_arena a, scratch;
    tg_arena_init(&a, A);
    tg_arena_init(&scratch, A);
    char *text = mixed_list(1000);
    cJSON *list = parse(&a, text);
    const tg_senum *ix = tg_senum_build(&a, list);
    size_t steps = 0, lookups = 0;
    CHECK(ix != NULL);
    for (const cJSON *it = list->child; it; it = it->next, lookups++) CHECK(tg_senum_has(ix, it, &scratch, &steps) == 1);
    /* equal spellings are found; near misses are not */
    static const char *in[] = {"6.0", "\"s0\"", "{\"v\":[\"x\"],\"k\":3}", "[4,\"y\"]", "7.5", "1e0"};
    static const char *out[] = {"5.5", "\"s1\"", "{\"k\":3,\"v\":[\"y\"]}", "[4]", "7.25", "\"true\"", "{}", "[]", "0"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++, lookups++) CHECK_MSG(tg_senum_has(ix, parse(&a, in[i]), &scratch, &steps) == 1, "%s", in[i]);
    for (size_t i = 0; i < sizeof out / sizeof *out; i++, lookups++) CHECK_MSG(tg_senum_has(ix, parse(&a, out[i]), &scratch, &steps) == 0, "%s", out[i]);
    CHECK(tg_senum_has_str(ix, "s995", 4, &steps) == 1 && tg_senum_has_str(ix, "s996", 4, &steps) == 0);
    CHECK(tg_senum_has_lit(ix, cJSON_True, &steps) == 1 && tg_senum_has_lit(ix, cJSON_NULL, &steps) == 1);
    /* probes past the first: a table at most half full keeps them few */
    CHECK_MSG(steps < lookups, "%zu probes past the first in %zu lookups", steps, lookups);
    free(text);
    /* short enums are scanned: no table */
    CHECK(tg_senum_build(&a, parse(&a, "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]")) == NULL);
    CHECK(tg_senum_build(&a, parse(&a, "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]")) != NULL);
    /* one literal's hash is never another's: a string enum has no true */
    CHECK(tg_senum_has_lit(tg_senum_build(&a, parse(&a, "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\",\"n\",\"o\",\"p\",\"q\"]")),
                           cJSON_True, &steps) == 0);
    tg_arena_free(&scratch);
    tg_arena_free(&a);
}

/* {"items":{"enum":[...n values...]}} and an array of n of them, reversed
 * (prefix "v": strings; "": integers). */
static char *items_enum(int n, const char *kind, int off) {
    size_t cap = (size_t)n * 16 + 64, o = 0;
    char *t = malloc(cap);
    const int str = kind[0] != '\0';
    o += (size_t)snprintf(t + o, cap - o, "{\"items\":{\"enum\":[");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(t + o, cap - o, str ? "%s\"v%d\"" : "%s%d", i ? "," : "", i + off);
    snprintf(t + o, cap - o, "]}}");
    return t;
}
static char *items_of(int n, const char *kind, const char *last) {
    size_t cap = (size_t)n * 16 + 64, o = 0;
    char *t = malloc(cap);
    const int str = kind[0] != '\0';
    o += (size_t)snprintf(t + o, cap - o, "[");
    for (int i = n - 1; i >= 0; i--) o += (size_t)snprintf(t + o, cap - o, str ? "\"v%d\"," : "%d,", i);
    snprintf(t + o, cap - o, "%s]", last);
    return t;
}

/* Compiles schema with max_eval_steps steps; the one pass (-1: left to the
 * evaluator) and the evaluator's verdicts on inst. */
static void judge(const char *schema, size_t steps, const char *inst, int *one_pass, int *evaluator) {
    tg_arena a;
    tg_buf diag;
    tg_schema *s = NULL;
    tg_schema_options o = tg_schema_default_options();
    tg_json_limits lim = tg_json_default_limits();
    lim.max_bytes = 64u << 20;
    o.limits.max_eval_steps = steps;
    tg_arena_init(&a, A);
    tg_buf_init(&diag, A, 0);
    CHECK_MSG(tg_schema_compile(&A, parse(&a, schema), &o, &s, &diag) == 0, "%.*s", (int)diag.len, diag.data ? diag.data : "");
    *one_pass = tg_schema_check_text(s, inst, strlen(inst), &lim, &a, NULL);
    *evaluator = tg_schema_validate(s, parse(&a, inst), &a, TG_OUTPUT_FLAG, 0, NULL);
    tg_schema_free(s);
    tg_buf_free(&diag);
    tg_arena_free(&a);
}

/* 20,000 items against a 20,000-value enum: a scan is 2e8 comparisons;
 * the index keeps the whole validation within 100,000 steps (about one a
 * node and one an item). A value not listed is refused by both readers. */
static void test_large_enum_is_linear(void) {
    int one, ev;
    char *strs = items_enum(20000, "v", 0), *ints = items_enum(20000, "", 0);
    char *good_s = items_of(20000, "v", "\"v0\""), *bad_s = items_of(20000, "v", "\"v20000\"");
    char *good_i = items_of(20000, "", "0"), *bad_i = items_of(20000, "", "20000"), *frac = items_of(20000, "", "7.0");
    judge(strs, 100000, good_s, &one, &ev);
    CHECK_MSG(one == 1 && ev == 1, "strings: one pass %d, evaluator %d", one, ev);
    judge(strs, 100000, bad_s, &one, &ev);
    CHECK_MSG(one == 0 && ev == 0, "strings, one not listed: one pass %d, evaluator %d", one, ev);
    judge(strs, 100000, "[true,null]", &one, &ev);
    CHECK_MSG(one == 0 && ev == 0, "literals in a string enum: one pass %d, evaluator %d", one, ev);
    /* numbers are the evaluator's (1 == 1.0) */
    judge(ints, 100000, good_i, &one, &ev);
    CHECK_MSG(ev == 1, "integers: evaluator %d", ev);
    judge(ints, 100000, frac, &one, &ev);
    CHECK_MSG(ev == 1, "7.0 is 7: evaluator %d", ev);
    judge(ints, 100000, bad_i, &one, &ev);
    CHECK_MSG(ev == 0, "integers, one not listed: evaluator %d", ev);
    free(strs), free(ints), free(good_s), free(bad_s), free(good_i), free(bad_i), free(frac);
}

/* 200 distinct decimals that are one double (1 + i * 1e-25) share a hash:
 * the build gives the table up, each is still told apart exactly, and a
 * long array of them ends past the steps instead of scanning on. */
static void test_colliding_values_are_bounded(void) {
    size_t cap = 200 * 40 + 64, o = 0;
    char *schema = malloc(cap), *inst = malloc(200000 * 30 + 64);
    tg_arena a;
    int one, ev;
    o += (size_t)snprintf(schema + o, cap - o, "{\"items\":{\"enum\":[");
    for (int i = 0; i < 200; i++) o += (size_t)snprintf(schema + o, cap - o, "%s1.%024d1", i ? "," : "", i);
    snprintf(schema + o, cap - o, "]}}");
    tg_arena_init(&a, A);
    char *list_text = strchr(schema, '[');
    list_text[strlen(list_text) - 2] = '\0'; /* (the list alone, for a moment) */
    cJSON *list = parse(&a, list_text);
    list_text[strlen(list_text)] = '}';
    CHECK(list && tg_senum_build(&a, list) == NULL);
    tg_arena_free(&a);
    judge(schema, 100000, "[1.0000000000000000000001991]", &one, &ev);
    CHECK_MSG(ev == 1, "the last listed: evaluator %d", ev);
    /* exact: 1.000...0051 is listed, 1 and 1.000...0052 are not */
    judge(schema, 100000, "[1.0000000000000000000000051]", &one, &ev);
    CHECK_MSG(ev == 1, "listed: evaluator %d", ev);
    judge(schema, 100000, "[1]", &one, &ev);
    CHECK_MSG(ev == 0, "1: evaluator %d", ev);
    judge(schema, 100000, "[1.0000000000000000000000052]", &one, &ev);
    CHECK_MSG(ev == 0, "unlisted: evaluator %d", ev);
    /* 100,000 items, each the last listed: 2e7 comparisons scanned, over 1e6 steps */
    o = 0;
    inst[o++] = '[';
    for (int i = 0; i < 100000; i++) o += (size_t)sprintf(inst + o, "%s1.0000000000000000000001991", i ? "," : "");
    inst[o++] = ']';
    inst[o] = '\0';
    judge(schema, 1000000, inst, &one, &ev);
    CHECK_MSG(ev == -1, "past the steps: evaluator %d", ev);
    free(schema);
    free(inst);
}

/* 200 strings whose hashes share their low 9 bits (found by trying): a
 * table of 512 slots holds them in one run, so the build gives it up; then
 * every reader scans them, each comparison a step: 100,000 items of the
 * last one end past 1,000,000 steps in the tree evaluator (whose quick
 * path for leaf nodes scanned uncounted) and in the one pass alike. */
static void test_colliding_strings_are_bounded(void) {
    char (*names)[16] = malloc(200 * sizeof *names);
    int found = 0;
    for (unsigned i = 0; found < 200; i++) {
        char s[16];
        int n = snprintf(s, sizeof s, "k%u", i);
        if ((tg_svalue_hash_str(s, (size_t)n) & 511) == 0) memcpy(names[found++], s, (size_t)n + 1);
    }
    size_t cap = 200 * 24 + 64, o = 0;
    char *schema = malloc(cap), *inst = malloc(100000 * 20 + 16);
    o += (size_t)snprintf(schema + o, cap - o, "{\"items\":{\"enum\":[");
    for (int i = 0; i < 200; i++) o += (size_t)snprintf(schema + o, cap - o, "%s\"%s\"", i ? "," : "", names[i]);
    snprintf(schema + o, cap - o, "]}}");
    tg_arena a;
    tg_arena_init(&a, A);
    char *list_text = strchr(schema, '[');
    list_text[strlen(list_text) - 2] = '\0';
    CHECK(tg_senum_build(&a, parse(&a, list_text)) == NULL);
    list_text[strlen(list_text)] = '}';
    tg_arena_free(&a);
    o = 0;
    inst[o++] = '[';
    for (int i = 0; i < 100000; i++) o += (size_t)sprintf(inst + o, "%s\"%s\"", i ? "," : "", names[199]);
    inst[o++] = ']';
    inst[o] = '\0';
    int one, ev;
    judge(schema, 1000000, inst, &one, &ev);
    CHECK_MSG(ev == -1 && one != 1, "past the steps: one pass %d, evaluator %d", one, ev);
    judge(schema, 1000000, "[\"k0\"]", &one, &ev); /* (k0 is no name of the list unless it hashed so) */
    CHECK_MSG(ev == (strcmp(names[0], "k0") == 0), "k0: evaluator %d", ev);
    snprintf(inst, 32, "[\"%s\"]", names[199]);
    judge(schema, 1000000, inst, &one, &ev);
    CHECK_MSG(one == 1 && ev == 1, "one listed: one pass %d, evaluator %d", one, ev);
    free(names);
    free(schema);
    free(inst);
}

int main(void) {
    test_hash_agrees_with_equality();
    test_index_finds_exactly_the_values();
    test_large_enum_is_linear();
    test_colliding_values_are_bounded();
    test_colliding_strings_are_bounded();
    return tg_test_finish("schema_enum");
}
