/* schema_test.c - unit tests of the schema module (compiler, evaluator,
 * formats, limits). Standalone: main returns nonzero on failure; the last
 * line is "schema: N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "../json/json.h"
#include "schema_internal.h"

static int passed, failed;
static const tg_allocator A = {tg_alloc_libc, NULL};

#define CHECK(cond, name) do { if (cond) passed++; else { failed++; printf("FAIL %s (%s:%d)\n", name, __FILE__, __LINE__); } } while (0)

static cJSON *J(tg_arena *a, const char *text) {
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    cJSON *d = tg_json_parse(a, text, strlen(text), &lim, &err);
    if (!d) printf("test bug: bad JSON %s: %s\n", text, err.message);
    return d;
}

/* Compiles schema text with opts (NULL: defaults); returns NULL and fills diag on error. */
static tg_schema *C(const char *schema, const tg_schema_options *o, tg_buf *diag) {
    tg_arena a;
    tg_schema *s = NULL;
    tg_arena_init(&a, A);
    if (tg_schema_compile(&A, J(&a, schema), o, &s, diag) != 0) s = NULL;
    tg_arena_free(&a); /* the program must not keep pointers into the document */
    return s;
}

/* 1 valid, 0 invalid, -1 limit; errors (if not NULL) receives BASIC output. */
static int V(const tg_schema *s, const char *inst, tg_buf *errors) {
    tg_arena a, scratch;
    int r, r2;
    tg_arena_init(&a, A);
    tg_arena_init(&scratch, A);
    r = tg_schema_validate(s, J(&a, inst), &scratch, TG_OUTPUT_FLAG, 0, NULL);
    if (errors) {
        r2 = tg_schema_validate(s, J(&a, inst), &scratch, TG_OUTPUT_BASIC, 10, errors);
        if (r2 != r) { printf("flag/basic disagree on %s: %d %d\n", inst, r, r2); r = -2; }
    }
    tg_arena_free(&scratch);
    tg_arena_free(&a);
    return r;
}

static int valid(const char *schema, const char *inst) {
    tg_buf diag, errs;
    tg_schema *s;
    int r;
    tg_buf_init(&diag, A, 0);
    tg_buf_init(&errs, A, 0);
    s = C(schema, NULL, &diag);
    if (!s) { printf("compile failed: %.*s\n", (int)diag.len, diag.data); tg_buf_free(&diag); tg_buf_free(&errs); return -3; }
    r = V(s, inst, &errs);
    tg_schema_free(s);
    tg_buf_free(&diag);
    tg_buf_free(&errs);
    return r;
}

static int diag_has(const char *schema, const tg_schema_options *o, const char *needle) {
    tg_buf diag;
    tg_schema *s;
    int r;
    tg_buf_init(&diag, A, 0);
    s = C(schema, o, &diag);
    if (s) { tg_schema_free(s); tg_buf_free(&diag); return 0; }
    tg_buf_putc(&diag, 0);
    r = strstr(diag.data, needle) != NULL;
    if (!r) printf("  diagnostic was: %s\n", diag.data);
    tg_buf_free(&diag);
    return r;
}

static void test_basic_output(void) {
    tg_buf diag, errs;
    tg_schema *s;
    tg_buf_init(&diag, A, 0);
    tg_buf_init(&errs, A, 0);
    s = C("{\"properties\":{\"a\":{\"items\":{\"type\":\"integer\"}}}}", NULL, &diag);
    CHECK(s != NULL, "basic_output_compiles");
    if (!s) return;
    CHECK(V(s, "{\"a\":[\"5\"]}", &errs) == 0, "basic_output_invalid");
    tg_buf_putc(&errs, 0);
    CHECK(!strcmp(errs.data, "[{\"instanceLocation\":\"/a/0\",\"keywordLocation\":\"/properties/a/items/type\","
                             "\"message\":\"expected integer, got string \\\"5\\\"\"}]"),
          "basic_output_exact_error");
    tg_buf_reset(&errs);
    CHECK(V(s, "{\"a\":[5]}", &errs) == 1, "basic_output_valid");
    CHECK(errs.len == 2 && !memcmp(errs.data, "[]", 2), "basic_output_valid_is_empty_array");
    tg_schema_free(s);
    tg_buf_free(&diag);
    tg_buf_free(&errs);
}

static void test_max_errors(void) {
    tg_buf errs;
    tg_arena a, sc;
    tg_schema *s = C("{\"items\":{\"type\":\"string\"}}", NULL, NULL);
    int r, n = 0;
    const char *p;
    tg_buf_init(&errs, A, 0);
    tg_arena_init(&a, A);
    tg_arena_init(&sc, A);
    r = tg_schema_validate(s, J(&a, "[1,2,3,4,5]"), &sc, TG_OUTPUT_BASIC, 3, &errs);
    tg_buf_putc(&errs, 0);
    for (p = errs.data; (p = strstr(p, "instanceLocation")); p++) n++;
    CHECK(r == 0 && n == 3, "max_errors_caps_basic_output");
    tg_buf_reset(&errs);
    r = tg_schema_validate(s, J(&a, "[1]"), &sc, TG_OUTPUT_FLAG, 3, &errs);
    CHECK(r == 0 && errs.len == 0, "flag_mode_writes_nothing");
    tg_buf_free(&errs);
    tg_arena_free(&a);
    tg_arena_free(&sc);
    tg_schema_free(s);
}

static void test_numbers(void) {
    CHECK(valid("{\"multipleOf\":0.0001}", "0.0075") == 1, "multipleOf_exact_decimal");
    CHECK(valid("{\"multipleOf\":0.1}", "0.3") == 1, "multipleOf_point_three");
    CHECK(valid("{\"multipleOf\":0.1}", "0.35") == 0, "multipleOf_not_multiple");
    CHECK(valid("{\"multipleOf\":0.5}", "1e308") == 1, "multipleOf_huge_number");
    CHECK(valid("{\"multipleOf\":0.5}", "1e999") == 1, "multipleOf_beyond_double");
    CHECK(valid("{\"maximum\":9007199254740992}", "9007199254740993") == 0, "maximum_exact_past_doubles");
    CHECK(valid("{\"maximum\":9007199254740992}", "9007199254740992.0") == 1, "maximum_exact_tie");
    CHECK(valid("{\"exclusiveMaximum\":1}", "0.99999999999999999") == 1, "exclusiveMaximum_exact");
    CHECK(valid("{\"exclusiveMinimum\":0}", "1e-400") == 1, "exclusiveMinimum_tiny");
    CHECK(valid("{\"exclusiveMinimum\":0}", "-1e-400") == 0, "exclusiveMinimum_tiny_negative");
    CHECK(valid("{\"minimum\":1e400}", "2e400") == 1, "minimum_beyond_doubles");
    CHECK(valid("{\"minimum\":2e400}", "1e400") == 0, "minimum_beyond_doubles_below");
    CHECK(valid("{\"exclusiveMaximum\":0.10000000000000001}", "0.1") == 1, "exclusiveMaximum_long_bound_short_value");
    CHECK(valid("{\"maximum\":5}", "5") == 1, "maximum_plain_tie");
    CHECK(valid("{\"multipleOf\":1e400}", "1") == 0, "multipleOf_divisor_beyond_double");
    CHECK(valid("{\"multipleOf\":1e400}", "1.5") == 0, "multipleOf_divisor_beyond_double_fraction");
    CHECK(valid("{\"multipleOf\":1e400}", "0") == 1, "multipleOf_divisor_beyond_double_zero");
    CHECK(valid("{\"multipleOf\":1e400}", "2e400") == 1, "multipleOf_both_beyond_double");
    CHECK(valid("{\"multipleOf\":3}", "1e-400") == 0, "multipleOf_tiny");
    CHECK(valid("{\"multipleOf\":1.5e-3}", "4.5E-2") == 1, "multipleOf_exponents");
    /* exact from the digits whatever the instance's length or the exponents */
    CHECK(valid("{\"multipleOf\":1}", "1.00000000000000000001") == 0, "multipleOf_long_instance_fraction");
    CHECK(valid("{\"multipleOf\":2}", "4.000000000000000000000001") == 0, "multipleOf_long_instance_two");
    CHECK(valid("{\"multipleOf\":1}", "100000000000000000000000000001.000") == 1, "multipleOf_long_integer");
    CHECK(valid("{\"multipleOf\":7}", "700000000000000000000000000000000000000007") == 1, "multipleOf_long_multiple_of_7");
    CHECK(valid("{\"multipleOf\":7}", "700000000000000000000000000000000000000008") == 0, "multipleOf_long_not_multiple_of_7");
    CHECK(valid("{\"multipleOf\":1e-400}", "3e-400") == 1, "multipleOf_divisor_below_doubles");
    CHECK(valid("{\"multipleOf\":1e-400}", "1e-401") == 0, "multipleOf_divisor_below_doubles_fraction");
    CHECK(valid("{\"multipleOf\":1e-400}", "1.5e-400") == 0, "multipleOf_divisor_below_doubles_half");
    CHECK(valid("{\"multipleOf\":1e-400}", "\"text\"") == 1, "multipleOf_ignores_strings");
    CHECK(valid("{\"multipleOf\":0.25}", "1e5000") == 1, "multipleOf_quarter_huge");
    CHECK(valid("{\"multipleOf\":0.3}", "0.9000000000000000000") == 1, "multipleOf_trailing_zeros");
    /* a divisor of 19 significant digits (past 2^63) or more: exact too, never
     * "a multiple" because a long double quotient ran out of precision */
    CHECK(valid("{\"multipleOf\":9999999999999999999}", "1e20") == 0, "multipleOf_19_digits_1e20");
    CHECK(valid("{\"multipleOf\":9999999999999999999}", "1e31") == 0, "multipleOf_19_digits_1e31");
    CHECK(valid("{\"multipleOf\":9999999999999999999}", "1e400") == 0, "multipleOf_19_digits_1e400");
    CHECK(valid("{\"multipleOf\":9999999999999999999}", "7e5000") == 0, "multipleOf_19_digits_7e5000");
    CHECK(valid("{\"multipleOf\":9999999999999999999}", "29999999999999999997") == 1, "multipleOf_19_digits_triple");
    CHECK(valid("{\"multipleOf\":9999999999999999999}", "29999999999999999998") == 0, "multipleOf_19_digits_triple_plus");
    CHECK(valid("{\"multipleOf\":9999999999999999999}", "9999999999999999999e400") == 1, "multipleOf_19_digits_huge");
    CHECK(valid("{\"multipleOf\":1234567890123456789012345}", "2469135780246913578024690") == 1, "multipleOf_25_digits_double");
    CHECK(valid("{\"multipleOf\":1234567890123456789012345}", "2469135780246913578024691") == 0, "multipleOf_25_digits_double_plus");
    CHECK(valid("{\"multipleOf\":1234567890123456789012345}", "1234567890123456789012345e400") == 1, "multipleOf_25_digits_huge");
    CHECK(valid("{\"multipleOf\":12345678901234567890123}", "1e400") == 0, "multipleOf_23_digits_1e400");
    CHECK(valid("{\"multipleOf\":1.234567890123456789012345e-30}", "2.46913578024691357802469e-30") == 1, "multipleOf_25_digits_fraction");
    /* past the evaluation steps: not checked (-1), never a guess */
    CHECK(valid("{\"multipleOf\":1234567890123456789012345}", "1e99999999") == -1, "multipleOf_long_divisor_beyond_steps");
    CHECK(valid("{\"type\":\"integer\"}", "1.0") == 1, "integer_with_zero_fraction");
    CHECK(valid("{\"type\":\"integer\"}", "1.5") == 0, "integer_rejects_fraction");
    CHECK(valid("{\"exclusiveMaximum\":3}", "3") == 0, "exclusiveMaximum");
}

static void test_unique_items(void) {
    const size_t cap = 64000;
    char *inst = tg_malloc(&A, cap);
    size_t o = 0;
    int i;
    if (!inst) { failed++; return; }
    inst[o++] = '[';
    for (i = 0; i < 2000; i++) o += (size_t)snprintf(inst + o, cap - o, "%s{\"a\":%d,\"b\":[%d]}", i ? "," : "", i, i);
    inst[o++] = ']';
    inst[o] = 0;
    CHECK(valid("{\"uniqueItems\":true}", inst) == 1, "unique_large_distinct");
    o--;
    o += (size_t)snprintf(inst + o, cap - o, ",{\"b\":[7.0],\"a\":7}]");
    CHECK(valid("{\"uniqueItems\":true}", inst) == 0, "unique_large_duplicate_any_key_order");
    tg_free(&A, inst, cap);
    CHECK(valid("{\"uniqueItems\":true}", "[1,1.0]") == 0, "unique_numbers_by_value");
    CHECK(valid("{\"uniqueItems\":true}", "[0,false,[0],[false],{\"a\":0},{\"a\":false}]") == 1, "unique_types_distinct");
}

static void test_strings_and_keys(void) {
    CHECK(valid("{\"maxLength\":1}", "\"\\ud83d\\ude00\"") == 1, "length_counts_code_points");
    CHECK(valid("{\"minLength\":2}", "\"\\u00e9\"") == 0, "length_two_byte_char_is_one");
    CHECK(valid("{\"required\":[\"__proto__\",\"constructor\"]}", "{}") == 0, "proto_required_missing");
    CHECK(valid("{\"required\":[\"__proto__\",\"constructor\"]}", "{\"__proto__\":1,\"constructor\":2}") == 1,
          "proto_required_present");
    CHECK(valid("{\"properties\":{\"__proto__\":{\"type\":\"string\"}}}", "{\"__proto__\":1}") == 0,
          "proto_is_an_ordinary_property");
    CHECK(valid("{\"required\":[\"a\\u0000b\"]}", "{\"a\":1}") == 0, "nul_in_key_not_truncated");
    CHECK(valid("{\"required\":[\"a\\u0000b\"]}", "{\"a\\u0000b\":1}") == 1, "nul_in_key_matches");
    CHECK(valid("{\"const\":\"a\\u0000b\"}", "\"a\\u0000c\"") == 0, "nul_in_const");
    CHECK(valid("{\"pattern\":\"^a+$\"}", "\"aaa\"") == 1, "pattern_matches");
    CHECK(valid("{\"pattern\":\"^a+$\"}", "\"aab\"") == 0, "pattern_rejects");
}

static void test_big_properties(void) {
    char schema[8192], inst[256];
    size_t o = 0;
    int i;
    o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"additionalProperties\":false,\"properties\":{");
    for (i = 0; i < 100; i++)
        o += (size_t)snprintf(schema + o, sizeof schema - o, "%s\"p%d\":{\"type\":\"integer\"}", i ? "," : "", i);
    snprintf(schema + o, sizeof schema - o, "}}");
    snprintf(inst, sizeof inst, "{\"p0\":1,\"p57\":2,\"p99\":3}");
    CHECK(valid(schema, inst) == 1, "hashed_properties_found");
    CHECK(valid(schema, "{\"p57\":\"x\"}") == 0, "hashed_properties_checked");
    CHECK(valid(schema, "{\"p100\":1}") == 0, "hashed_properties_additional");
}

static void test_compile_errors(void) {
    tg_schema_options o = tg_schema_default_options();
    CHECK(diag_has("{\"properties\":{\"a\":{\"$ref\":\"foo.json#/x\"}}}", NULL,
                   "/properties/a/$ref: cannot resolve 'foo.json#/x'"), "unresolvable_ref_named");
    CHECK(diag_has("{\"$ref\":\"#/$defs/missing\"}", NULL, "cannot resolve"), "missing_pointer_ref");
    CHECK(diag_has("{\"pattern\":\"(\"}", NULL, "/pattern: invalid regex"), "invalid_regex");
    CHECK(diag_has("{\"type\":5}", NULL, "/type"), "metaschema_points_into_schema");
    CHECK(diag_has("{\"properties\":{\"a\":{\"minLength\":-1}}}", NULL, "/properties/a/minLength"),
          "metaschema_nested_location");
    CHECK(diag_has("[1]", NULL, "object or a boolean"), "schema_must_be_object");
    /* one URI, two schemas: refused (2020-12 core 8.2), never the first taken */
    CHECK(diag_has("{\"$defs\":{\"a\":{\"$anchor\":\"x\",\"type\":\"string\"},\"b\":{\"$anchor\":\"x\"}},"
                   "\"properties\":{\"p\":{\"$ref\":\"#x\"}}}", NULL, "/$defs/b: '#x' identifies two schemas"),
          "duplicate_anchor_refused");
    CHECK(diag_has("{\"$defs\":{\"a\":{\"$id\":\"http://x/a\"},\"b\":{\"$id\":\"http://x/a\"}}}", NULL,
                   "/$defs/b: 'http://x/a' identifies two schemas"), "duplicate_id_refused");
    CHECK(diag_has("{\"$defs\":{\"a\":{\"$anchor\":\"x\"},\"b\":{\"$dynamicAnchor\":\"x\"}}}", NULL,
                   "identifies two schemas"), "anchor_and_dynamic_anchor_refused");
    CHECK(diag_has("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"a\":{\"$id\":\"#x\"},"
                   "\"b\":{\"$id\":\"#x\"}}}", NULL, "'#x' identifies two schemas"), "draft7_duplicate_anchor_refused");
    CHECK(valid("{\"$defs\":{\"a\":{\"$anchor\":\"x\",\"$dynamicAnchor\":\"x\",\"type\":\"string\"}},"
                "\"$ref\":\"#x\"}", "\"s\"") == 1, "anchor_and_dynamic_anchor_on_one_node");
    CHECK(valid("{\"$defs\":{\"a\":{\"$id\":\"http://x/a\",\"$anchor\":\"x\"},\"b\":{\"$id\":\"http://x/b\",\"$anchor\":\"x\"}}}",
                "1") == 1, "one_anchor_in_two_resources");
    CHECK(diag_has("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}",
                   NULL, "cycle"), "inplace_ref_cycle_rejected");
    o.limits.max_regex_bytes = 4;
    CHECK(diag_has("{\"pattern\":\"abcdef\"}", &o, "max_regex_bytes"), "regex_byte_limit");
    o = tg_schema_default_options();
    o.limits.max_subschemas = 3;
    CHECK(diag_has("{\"allOf\":[{},{},{},{}]}", &o, "max_subschemas"), "subschema_limit");
    o = tg_schema_default_options();
    o.limits.max_depth = 3;
    CHECK(diag_has("{\"items\":{\"items\":{\"items\":{\"items\":{\"items\":{}}}}}}", &o, "max_depth"), "depth_limit");
}

static void test_deep_schema_passes_metaschema(void) {
    char schema[4096];
    size_t o = 0;
    int i;
    for (i = 0; i < 120; i++) o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"properties\":{\"a\":");
    o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"type\":\"integer\"}");
    for (i = 0; i < 120; i++) o += (size_t)snprintf(schema + o, sizeof schema - o, "}}");
    CHECK(valid(schema, "{\"a\":{\"a\":1}}") == 1, "schema_120_levels_deep_compiles");
}

/* {"$ref": d0, d0 -> d1 -> ... -> dn: a string} into buf */
static void ref_chain(char *buf, size_t cap, int n) {
    size_t o = (size_t)snprintf(buf, cap, "{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(buf + o, cap - o, "\"d%d\":{\"$ref\":\"#/$defs/d%d\"},", i, i + 1);
    snprintf(buf + o, cap - o, "\"d%d\":{\"type\":\"string\"}}}", n);
}

static void test_ref_bomb(void) {
    char schema[4096];
    size_t o = 0;
    int i;
    o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
    for (i = 0; i < 30; i++) /* 2^30 applications, in a chain short enough to follow */
        o += (size_t)snprintf(schema + o, sizeof schema - o,
                              "\"d%d\":{\"allOf\":[{\"$ref\":\"#/$defs/d%d\"},{\"$ref\":\"#/$defs/d%d\"}]},", i, i + 1,
                              i + 1);
    snprintf(schema + o, sizeof schema - o, "\"d30\":{\"type\":\"string\"}}}");
    CHECK(diag_has(schema, NULL, "reference bomb"), "ref_bomb_rejected_at_compile");
    /* a plain chain of $refs past max_ref_depth: refused when compiled, not
     * at every validation */
    ref_chain(schema, sizeof schema, 70);
    CHECK(diag_has(schema, NULL, "a chain of more than 64 references"), "ref_chain_rejected_at_compile");
    /* nesting in place (allOf within allOf) is the document's own depth, not a chain */
    o = 0;
    for (i = 0; i < 70; i++) o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"allOf\":[");
    o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"type\":\"string\"}");
    for (i = 0; i < 70; i++) o += (size_t)snprintf(schema + o, sizeof schema - o, "]}");
    CHECK(valid(schema, "\"ok\"") == 1 && valid(schema, "1") == 0, "allOf_nested_70_deep_compiles");
    /* but references between such nestings compound past what validation follows: refused */
    o = (size_t)snprintf(schema, sizeof schema, "{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
    for (i = 0; i < 3; i++) {
        int k;
        o += (size_t)snprintf(schema + o, sizeof schema - o, "\"d%d\":", i);
        for (k = 0; k < 60; k++) o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"allOf\":[");
        o += (size_t)snprintf(schema + o, sizeof schema - o, "{\"$ref\":\"#/$defs/d%d\"}", i + 1);
        for (k = 0; k < 60; k++) o += (size_t)snprintf(schema + o, sizeof schema - o, "]}");
        o += (size_t)snprintf(schema + o, sizeof schema - o, ",");
    }
    snprintf(schema + o, sizeof schema - o, "\"d3\":{\"type\":\"string\"}}}");
    CHECK(diag_has(schema, NULL, "applied in place one within another more than 128 deep"), "refs_between_nestings_refused");
    ref_chain(schema, sizeof schema, 50);
    CHECK(valid(schema, "\"ok\"") == 1 && valid(schema, "1") == 0, "ref_chain_of_50_validates");
}

static void test_eval_limits(void) {
    tg_schema_options o = tg_schema_default_options();
    tg_schema *s = C("{\"items\":{\"$ref\":\"#\"}}", NULL, NULL);
    char deep[1200];
    int i, n = 250;
    for (i = 0; i < n; i++) deep[i] = '[';
    for (i = 0; i < n; i++) deep[n + i] = ']';
    deep[2 * n] = 0;
    CHECK(s && V(s, deep, NULL) == -1, "deep_instance_hits_depth_limit");
    CHECK(s && V(s, "[[[[[[1]]]]]]", NULL) == 1, "recursive_schema_moderate_depth");
    tg_schema_free(s);
    /* instance-driven doubling: bounded by max_eval_steps */
    o.limits.max_eval_steps = 100000;
    s = C("{\"$defs\":{\"t\":{\"items\":{\"$ref\":\"#\"}}},\"items\":{\"$ref\":\"#\"},"
          "\"allOf\":[{\"$ref\":\"#/$defs/t\"},{\"$ref\":\"#/$defs/t\"}]}", &o, NULL);
    for (i = 0; i < 40; i++) deep[i] = '[';
    for (i = 0; i < 40; i++) deep[40 + i] = ']';
    deep[80] = 0;
    CHECK(s && V(s, deep, NULL) == -1, "step_budget_bounds_time");
    tg_schema_free(s);
}

static void test_formats(void) {
    tg_schema_options o = tg_schema_default_options();
    tg_schema *s;
    int i;
    CHECK(valid("{\"format\":\"email\"}", "\"nope\"") == 1, "format_is_annotation_by_default");
    o.format_assert = 1;
    s = C("{\"format\":\"email\"}", &o, NULL);
    CHECK(s && V(s, "\"nope\"", NULL) == 0 && V(s, "\"a@example.com\"", NULL) == 1, "format_assert_email");
    tg_schema_free(s);
    s = C("{\"format\":\"int32\"}", &o, NULL);
    CHECK(s && V(s, "\"x\"", NULL) == 1, "unknown_format_ignored_when_asserting");
    tg_schema_free(s);
    s = C("{\"format\":\"regex\"}", &o, NULL);
    CHECK(s && V(s, "\"a(\"", NULL) == 0 && V(s, "\"^a+$\"", NULL) == 1, "format_regex_uses_regex_module");
    tg_schema_free(s);
    {
        /* a regex past this engine's limits is not judged (-1: too_large),
         * never called no regex: 5,000 alternatives (34 KB, over
         * max_regex_bytes), 300 nested groups (over 64), a count of 2^32 (over 10^6) */
        size_t cap = 40000, o2 = 0;
        char *big = malloc(cap);
        s = C("{\"format\":\"regex\"}", &o, NULL);
        o2 += (size_t)snprintf(big + o2, cap - o2, "\"");
        for (i = 0; i < 5000; i++) o2 += (size_t)snprintf(big + o2, cap - o2, "%sw%d", i ? "|" : "", i);
        snprintf(big + o2, cap - o2, "\"");
        CHECK(s && V(s, big, NULL) == -1, "format_regex_over_the_byte_limit_not_judged");
        o2 = 0;
        big[o2++] = '"';
        for (i = 0; i < 300; i++) big[o2++] = '(';
        big[o2++] = 'a';
        for (i = 0; i < 300; i++) big[o2++] = ')';
        big[o2++] = '"';
        big[o2] = 0;
        CHECK(s && V(s, big, NULL) == -1, "format_regex_nested_past_the_limit_not_judged");
        CHECK(s && V(s, "\"a{4294967296}\"", NULL) == -1, "format_regex_count_past_the_cap_not_judged");
        /* ...while a pattern that is no regex at any size is refused */
        CHECK(s && V(s, "\"(a\"", NULL) == 0 && V(s, "\"a{2,1}\"", NULL) == 0, "format_regex_syntax_errors_refused");
        tg_schema_free(s);
        free(big);
    }
    CHECK(tg_schema_check_format("date-time", "2024-02-29T23:59:60Z", 20) == 1, "leap_second_utc");
    CHECK(tg_schema_check_format("date", "2023-02-29", 10) == 0, "not_a_leap_year");
    CHECK(tg_schema_check_format("ipv6", "::1", 3) == 1, "ipv6_loopback");
    CHECK(tg_schema_check_format("ipv4", "01.2.3.4", 8) == 0, "ipv4_leading_zero");
    CHECK(tg_schema_check_format("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", 36) == 1, "uuid");
    CHECK(tg_schema_check_format("duration", "P1Y2D", 5) == 0, "duration_skipped_unit");
    CHECK(tg_schema_check_format("hostname", "xn--X", 5) == 0, "bad_punycode");
    CHECK(tg_schema_check_format("int32", "1", 1) == -1, "unknown_format_reported");
}

static void test_resources_and_dialects(void) {
    tg_arena a;
    tg_schema_options o = tg_schema_default_options();
    tg_schema_resource r[1];
    tg_schema *s;
    tg_buf diag;
    tg_dialect ds[] = {TG_DIALECT_2020_12, TG_DIALECT_2019_09, TG_DIALECT_DRAFT7, TG_DIALECT_DRAFT6, TG_DIALECT_DRAFT4};
    size_t i;
    tg_arena_init(&a, A);
    tg_buf_init(&diag, A, 0);
    r[0].uri = "https://example.com/int.json";
    r[0].schema = J(&a, "{\"$defs\":{\"x\":{\"type\":\"integer\"}}}");
    o.resources = r;
    o.n_resources = 1;
    s = C("{\"$ref\":\"https://example.com/int.json#/$defs/x\"}", &o, &diag);
    tg_arena_free(&a); /* resources are copied too */
    CHECK(s && V(s, "1", NULL) == 1 && V(s, "\"1\"", NULL) == 0, "registered_resource_ref");
    tg_schema_free(s);
    s = C("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"items\":[{\"type\":\"string\"}],"
          "\"additionalItems\":false}", NULL, NULL);
    CHECK(s && tg_schema_dialect(s) == TG_DIALECT_DRAFT7, "dialect_from_schema_keyword");
    CHECK(s && V(s, "[\"a\",1]", NULL) == 0 && V(s, "[\"a\"]", NULL) == 1, "draft7_tuple_items");
    tg_schema_free(s);
    s = C("{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", NULL, NULL);
    CHECK(s && tg_schema_dialect(s) == TG_DIALECT_2020_12, "default_dialect_2020_12");
    CHECK(s && V(s, "[\"a\",1]", NULL) == 0, "prefixItems_items_false");
    tg_schema_free(s);
    for (i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        o = tg_schema_default_options();
        o.dialect = ds[i];
        s = C("{\"type\":\"object\",\"properties\":{\"a\":{\"minimum\":1}}}", &o, &diag);
        CHECK(s && V(s, "{\"a\":0}", NULL) == 0, "every_dialect_compiles_with_metaschema_check");
        tg_schema_free(s);
    }
    s = C("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}", NULL, NULL);
    CHECK(s && V(s, "{\"type\":\"string\"}", NULL) == 1 && V(s, "{\"type\":12}", NULL) == 0,
          "embedded_metaschema_reachable");
    tg_schema_free(s);
    tg_buf_free(&diag);
}

/* A resource that is no schema is refused by name (a $ref to it resolved
 * to the referring root); one a $ref reaches is checked against its
 * metaschema as the root is. */
static void test_resource_is_a_schema(void) {
    static const char *const bad[] = {"5", "null", "[1]", "\"x\""};
    tg_arena a;
    tg_schema_options o = tg_schema_default_options();
    tg_schema_resource r[1];
    tg_buf diag;
    tg_arena_init(&a, A);
    tg_buf_init(&diag, A, 0);
    r[0].uri = "http://x/str";
    o.resources = r;
    o.n_resources = 1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r[0].schema = J(&a, bad[i]);
        tg_buf_reset(&diag);
        tg_schema *s = C("{\"properties\":{\"p\":{\"$ref\":\"http://x/str\"}}}", &o, &diag);
        CHECK(!s && diag.data && strstr(diag.data, "resource 'http://x/str' is not a schema"), "resource_not_a_schema");
        tg_schema_free(s);
    }
    r[0].schema = J(&a, "{\"minLength\":-1}");
    tg_buf_reset(&diag);
    tg_schema *s = C("{\"$ref\":\"http://x/str\"}", &o, &diag);
    CHECK(!s && diag.data && strncmp(diag.data, "resource 'http://x/str': /minLength", 35) == 0, "resource_metaschema");
    tg_schema_free(s);
    s = C("{}", &o, &diag); /* (never reached: never evaluated) */
    CHECK(s != NULL, "unreached_resource_not_judged");
    tg_schema_free(s);
    r[0].schema = J(&a, "{\"minLength\":1}");
    s = C("{\"$ref\":\"http://x/str\"}", &o, &diag);
    CHECK(s && V(s, "\"a\"", NULL) == 1 && V(s, "\"\"", NULL) == 0, "resource_schema_taken");
    tg_schema_free(s);
    tg_buf_free(&diag);
    tg_arena_free(&a);
}

static void test_metaschema_cache(void) {
    tg_schema *m7 = NULL, *m20 = NULL, *s;
    tg_schema_options o = tg_schema_default_options();
    CHECK(tg_schema_compile_metaschema(&A, TG_DIALECT_DRAFT7, &m7, NULL) == 0, "compile_metaschema_draft7");
    CHECK(tg_schema_compile_metaschema(&A, TG_DIALECT_2020_12, &m20, NULL) == 0, "compile_metaschema_2020_12");
    o.metaschemas[TG_DIALECT_DRAFT7] = m7;
    o.metaschemas[TG_DIALECT_2020_12] = m20;
    CHECK(diag_has("{\"minLength\":\"x\"}", &o, "/minLength"), "cached_metaschema_rejects");
    CHECK(diag_has("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"required\":\"x\"}", &o, "/required"),
          "cached_draft7_metaschema_rejects");
    s = C("{\"minLength\":2}", &o, NULL);
    CHECK(s && V(s, "\"a\"", NULL) == 0, "cached_metaschema_accepts");
    tg_schema_free(s);
    /* a metaschema validates schemas directly too */
    CHECK(m20 && V(m20, "{\"type\":\"string\"}", NULL) == 1 && V(m20, "{\"type\":1}", NULL) == 0,
          "metaschema_program_validates_schemas");
    tg_schema_free(m7);
    tg_schema_free(m20);
}

static void test_unevaluated(void) {
    const char *sch = "{\"properties\":{\"a\":true},\"anyOf\":[{\"properties\":{\"b\":true}},{\"properties\":{\"c\":true}}],"
                      "\"unevaluatedProperties\":false}";
    tg_buf errs;
    tg_schema *s = C(sch, NULL, NULL);
    tg_buf_init(&errs, A, 0);
    CHECK(s && V(s, "{\"a\":1,\"b\":2,\"c\":3}", NULL) == 1, "unevaluated_sees_all_anyOf_branches");
    CHECK(s && V(s, "{\"a\":1,\"d\":2}", &errs) == 0, "unevaluated_rejects_extra");
    tg_buf_putc(&errs, 0);
    CHECK(strstr(errs.data, "\"instanceLocation\":\"/d\"") && strstr(errs.data, "/unevaluatedProperties"),
          "unevaluated_error_locations");
    tg_buf_free(&errs);
    tg_schema_free(s);
    CHECK(valid("{\"prefixItems\":[true],\"contains\":{\"type\":\"string\"},\"unevaluatedItems\":false}",
                "[1,\"a\",\"b\"]") == 1, "unevaluatedItems_with_contains");
    CHECK(valid("{\"prefixItems\":[true],\"contains\":{\"type\":\"string\"},\"unevaluatedItems\":false}",
                "[1,\"a\",2]") == 0, "unevaluatedItems_rejects");
}

/* An allocator that refuses the n-th allocation (and counts live bytes). */
typedef struct failing { int countdown; long live; } failing;
static void *fail_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
    failing *f = ud;
    if (nsize == 0) { f->live -= (long)osize; free(ptr); return NULL; }
    if (f->countdown == 0) return NULL;
    if (f->countdown > 0) f->countdown--;
    ptr = realloc(ptr, nsize);
    if (ptr) f->live += (long)nsize - (long)osize;
    return ptr;
}

static void test_allocation_failures(void) {
    const char *sch = "{\"$id\":\"https://x.example/s\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"},\"b\":{\"pattern\":\"^x\"}},"
                      "\"$defs\":{\"n\":{\"type\":\"integer\",\"minimum\":0}},\"unevaluatedProperties\":false}";
    int n, ok_at = -1, leaks = 0, crashes = 0, blamed = 0;
    for (n = 0; n < 5000 && ok_at < 0; n++) {
        failing f = {n, 0};
        tg_allocator fa = {fail_fn, &f};
        tg_arena doc;
        tg_schema *s = NULL;
        tg_buf diag;
        cJSON *d;
        tg_arena_init(&doc, A);
        d = J(&doc, sch);
        tg_buf_init(&diag, A, 0);
        int rc = tg_schema_compile(&fa, d, NULL, &s, &diag);
        if (rc == -1 && getenv("TG_OOM_DEBUG")) fprintf(stderr, "n=%d: %.*s\n", n, (int)diag.len, diag.data ? diag.data : "");
        if (rc == -1) blamed++; /* a valid schema: a refusal must read as memory (-2), never as the schema's fault */
        if (rc == 0) {
            tg_arena sc;
            int r;
            ok_at = n;
            tg_arena_init(&sc, fa);
            f.countdown = -1;
            r = tg_schema_validate(s, J(&doc, "{\"a\":1,\"b\":\"xy\"}"), &sc, TG_OUTPUT_FLAG, 0, NULL);
            if (r != 1) crashes++;
            tg_arena_free(&sc);
            tg_schema_free(s);
        } else if (!diag.len) crashes++;
        if (f.live != 0) leaks++;
        tg_buf_free(&diag);
        tg_arena_free(&doc);
    }
    /* and during a BASIC validation that reports errors */
    {
        tg_arena doc;
        tg_schema *s = NULL;
        int bad = 0, done = 0;
        tg_arena_init(&doc, A);
        if (tg_schema_compile(&A, J(&doc, sch), NULL, &s, NULL) == 0) {
            for (n = 0; n < 2000 && !done; n++) {
                failing f = {n, 0};
                tg_allocator fa = {fail_fn, &f};
                tg_arena sc;
                tg_buf errs;
                int r;
                tg_arena_init(&sc, fa);
                tg_buf_init(&errs, fa, 0);
                r = tg_schema_validate(s, J(&doc, "{\"a\":-1,\"b\":\"yy\",\"c\":[1]}"), &sc, TG_OUTPUT_BASIC, 10, &errs);
                if (r == 0) done = 1;
                else if (r != -1) bad++;
                tg_buf_free(&errs);
                tg_arena_free(&sc);
                if (f.live != 0) leaks++;
            }
            tg_schema_free(s);
        }
        tg_arena_free(&doc);
        CHECK(done && !bad, "allocation_failure_during_basic_validation");
    }
    CHECK(ok_at > 0, "allocation_failure_eventually_succeeds");
    CHECK(leaks == 0, "allocation_failure_no_leaks");
    CHECK(blamed == 0, "allocation_failure_read_as_memory");
    CHECK(crashes == 0, "allocation_failure_reports_error");
}

/* $ref pointers into large containers (findings/01): R refs into an
 * object of M members cost R x M key comparisons when each token was
 * looked up by a scan; the compiler now looks them up through one index per
 * container (json_index.h), counted in ref_probes. They resolve as before:
 * members and items past the first 16, escapes, duplicates' first. */
static void test_ref_pointer_index(void) {
    enum { M = 3000, R = 1500 };
    tg_buf t, diag;
    tg_buf_init(&t, A, 0);
    tg_buf_init(&diag, A, 0);
    tg_buf_puts(&t, "{\"x\":{");
    for (int i = 0; i < M; i++) tg_buf_printf(&t, "%s\"k%06d\":true", i ? "," : "", i);
    tg_buf_puts(&t, ",\"a/b\":{\"type\":\"string\"}},\"l\":[");
    for (int i = 0; i < 40; i++) tg_buf_printf(&t, "%s{\"minimum\":%d}", i ? "," : "", i);
    tg_buf_puts(&t, "],\"anyOf\":[");
    for (int i = 0; i < R; i++) tg_buf_printf(&t, "{\"$ref\":\"#/x/k%06d\"},", M - 1 - (i % 50));
    tg_buf_puts(&t, "{\"$ref\":\"#/x/a~1b\"},{\"$ref\":\"#/x/a%7E1b\"}],"
                    "\"allOf\":[{\"$ref\":\"#/l/37\"},{\"$ref\":\"#/l/3\"}]}");
    size_t probes = 0;
    tg_schema_options o = tg_schema_default_options();
    o.ref_probes = &probes;
    o.skip_metaschema_check = 1;
    tg_schema *s = C(t.data, &o, &diag);
    CHECK(s != NULL, "ref_index_compiles");
    /* a scan: about R x M comparisons (2.2 million); an index: R x (16 + log2 M) */
    CHECK(probes > 0 && probes < (size_t)R * 40, "ref_index_probes_logarithmic");
    CHECK(s && V(s, "37", NULL) == 1 && V(s, "36", NULL) == 0, "ref_index_array_item_past_16");
    tg_schema_free(s);
    /* a token naming nothing past the first 16 members is still refused */
    tg_buf_reset(&t);
    tg_buf_puts(&t, "{\"x\":{");
    for (int i = 0; i < 40; i++) tg_buf_printf(&t, "%s\"k%d\":true", i ? "," : "", i);
    tg_buf_puts(&t, "},\"l\":[1,2],\"$ref\":\"#/x/k40\"}");
    CHECK(C(t.data, NULL, NULL) == NULL, "ref_index_absent_member_refused");
    tg_buf_free(&t);
    tg_buf_free(&diag);
}

/* patternProperties on fast-path patterns (findings/04): each search is
 * charged to the step budget, so P patterns x N names end with the limit
 * error instead of running unbounded; within the budget, the verdicts stay. */
static void test_pattern_props_budget(void) {
    enum { P = 100, N = 200 };
    tg_buf t, inst;
    tg_buf_init(&t, A, 0);
    tg_buf_init(&inst, A, 0);
    tg_buf_puts(&t, "{\"patternProperties\":{");
    /* prefixes ("^k12-"): a fast path each, not indexed by name */
    for (int i = 0; i < P; i++) tg_buf_printf(&t, "%s\"^k%d-\":{\"type\":\"integer\"}", i ? "," : "", i);
    tg_buf_puts(&t, "}}");
    tg_buf_puts(&inst, "{");
    for (int i = 0; i < N; i++) tg_buf_printf(&inst, "%s\"k%d-\":1", i ? "," : "", i);
    tg_buf_puts(&inst, "}");
    tg_schema_options o = tg_schema_default_options();
    o.limits.max_eval_steps = P * N / 2; /* (every search one step at least) */
    tg_schema *s = C(t.data, &o, NULL);
    CHECK(s && V(s, inst.data, NULL) == -1, "fast_patterns_charged_to_step_budget");
    tg_schema_free(s);
    s = C(t.data, NULL, NULL);
    CHECK(s && V(s, inst.data, NULL) == 1 && V(s, "{\"k7-\":\"x\",\"k1000\":\"x\"}", NULL) == 0,
          "fast_patterns_within_budget_decide");
    tg_schema_free(s);
    /* exact patterns ("^k12$") are found by name: N lookups, within that budget */
    tg_buf_reset(&t);
    tg_buf_reset(&inst);
    tg_buf_puts(&t, "{\"patternProperties\":{");
    for (int i = 0; i < P; i++) tg_buf_printf(&t, "%s\"^k%d$\":{\"type\":\"integer\"}", i ? "," : "", i);
    tg_buf_puts(&t, "}}");
    tg_buf_puts(&inst, "{");
    for (int i = 0; i < N; i++) tg_buf_printf(&inst, "%s\"k%d\":1", i ? "," : "", i);
    tg_buf_puts(&inst, "}");
    s = C(t.data, &o, NULL);
    CHECK(s && V(s, inst.data, NULL) == 1 && V(s, "{\"k7\":\"x\",\"k1000\":\"x\"}", NULL) == 0,
          "exact_patterns_indexed_by_name");
    tg_schema_free(s);
    /* exact and other patterns mixed: every one that matches applies, errors in the patterns' order */
    tg_buf errs;
    tg_buf_init(&errs, A, 0);
    s = C("{\"patternProperties\":{\"k\":{\"type\":\"integer\"},\"^k1$\":{\"type\":\"integer\"},"
          "\"1$\":{\"type\":\"integer\"},\"^z1$\":{},\"^z2$\":{},\"^z3$\":{},\"^z4$\":{},\"^z5$\":{},"
          "\"^z6$\":{},\"^z7$\":{},\"^k1$|x\":{\"type\":\"integer\"}}}", NULL, NULL);
    CHECK(s && V(s, "{\"k1\":\"s\"}", &errs) == 0, "mixed_patterns_refuse");
    if (s && errs.data) {
        const char *a = strstr(errs.data, "/patternProperties/k/"), *b = strstr(errs.data, "/patternProperties/^k1$/"),
                   *c = strstr(errs.data, "/patternProperties/1$/"), *d = strstr(errs.data, "/patternProperties/^k1$|x/");
        CHECK(a && b && c && d && a < b && b < c && c < d, "mixed_patterns_errors_in_order");
    }
    CHECK(s && V(s, "{\"k1\":1,\"z3\":\"s\",\"zz\":\"s\"}", NULL) == 1, "mixed_patterns_accept");
    tg_schema_free(s);
    tg_buf_free(&errs);
    tg_buf_free(&t);
    tg_buf_free(&inst);
}

/* required from many subschemas over one large object (findings/05):
 * one member index per instance object, shared by every keyword of the
 * evaluation, so each name is a binary search, not a scan of the object. */
static void test_required_shared_index(void) {
    enum { N = 4000, K = N / 2 };
    tg_buf t, inst;
    tg_buf_init(&t, A, 0);
    tg_buf_init(&inst, A, 0);
    tg_buf_puts(&t, "{\"allOf\":[");
    for (int i = 0; i < K; i++) tg_buf_printf(&t, "%s{\"required\":[\"k%d\"]}", i ? "," : "", N - 1 - (i % 16));
    tg_buf_puts(&t, "],\"dependentRequired\":{\"k3\":[\"k3999\"]},\"dependentSchemas\":{\"k3998\":{\"required\":[\"k0\"]}}}");
    tg_buf_puts(&inst, "{");
    for (int i = 0; i < N; i++) tg_buf_printf(&inst, "%s\"k%d\":1", i ? "," : "", i);
    tg_buf_puts(&inst, "}");
    tg_schema *s = C(t.data, NULL, NULL);
    CHECK(s != NULL, "required_index_compiles");
    if (s) {
        tg_arena a, scratch;
        tg_arena_init(&a, A);
        tg_arena_init(&scratch, A);
        size_t probes = 0;
        int r = tg_sval_probes(s, J(&a, inst.data), &scratch, &probes);
        CHECK(r == 1, "required_index_valid");
        /* a scan: K x N (8 million); an index: K x (16 + log2 N) */
        CHECK(probes < (size_t)K * 40, "required_index_probes_logarithmic");
        CHECK(V(s, "{\"k3999\":1}", NULL) == 0, "required_index_small_object_refused");
        tg_arena_free(&scratch);
        tg_arena_free(&a);
    }
    tg_schema_free(s);
    /* the index answers misses too: one name short fails, in either keyword */
    tg_buf_reset(&inst);
    tg_buf_puts(&inst, "{");
    for (int i = 0; i < N - 1; i++) tg_buf_printf(&inst, "%s\"k%d\":1", i ? "," : "", i);
    tg_buf_puts(&inst, "}");
    s = C(t.data, NULL, NULL);
    CHECK(s && V(s, inst.data, NULL) == 0, "required_index_missing_name");
    tg_schema_free(s);
    tg_buf_free(&t);
    tg_buf_free(&inst);
}

/* prune_document: the program's copy has no annotation, example, default
 * or "x-" member of a subschema; names and data keep theirs, and so does a
 * member a reference points into; the metaschema judges the whole. */
static void test_prune_document(void) {
    tg_schema_options o = tg_schema_default_options();
    tg_buf diag, text;
    o.prune_document = 1;
    tg_buf_init(&diag, A, 0);
    tg_buf_init(&text, A, 0);
    tg_schema *s = C("{\"type\":\"object\",\"title\":\"T\",\"examples\":[{\"default\":1}],\"x-ui\":{\"w\":1},"
                     "\"properties\":{\"default\":{\"type\":\"integer\",\"default\":0,\"description\":\"d\",\"$comment\":\"c\"},"
                     "\"e\":{\"enum\":[{\"examples\":1}],\"x-y\":2}},\"prefixItems\":[{\"default\":2}]}",
                     &o, &diag);
    CHECK(s != NULL, "prune: compiles");
    if (s) {
        tg_json_write(&text, tg_schema_document(s));
        CHECK(text.data && strcmp(text.data, "{\"type\":\"object\",\"properties\":{\"default\":{\"type\":\"integer\"},"
                                             "\"e\":{\"enum\":[{\"examples\":1}]}},\"prefixItems\":[{}]}") == 0,
              "prune: annotations, examples, default and x- members of subschemas left out; names and data kept");
        CHECK(V(s, "{\"default\":\"x\"}", NULL) == 0 && V(s, "{\"default\":1,\"e\":{\"examples\":1}}", NULL) == 1,
              "prune: judged as before");
        tg_schema_free(s);
    }
    /* a $ref into what would be left out: kept (any "examples" member, and
     * every "x-" one, for a pointer naming one, %-encoded or not) */
    tg_buf_reset(&text);
    s = C("{\"properties\":{\"a\":{\"$ref\":\"#/examples/0\"},\"b\":{\"$ref\":\"#/x%2Ddefs/n\"}},"
          "\"examples\":[{\"type\":\"string\"}],\"x-defs\":{\"n\":{\"type\":\"null\"}},\"x-other\":1,\"default\":1}",
          &o, &diag);
    CHECK(s != NULL, "prune: a $ref into examples or an x- member compiles");
    if (s) {
        tg_json_write(&text, tg_schema_document(s));
        CHECK(text.data && strstr(text.data, "\"examples\"") && strstr(text.data, "\"x-defs\"") &&
                  strstr(text.data, "\"x-other\"") && !strstr(text.data, "\"default\""),
              "prune: what a reference names is kept");
        CHECK(V(s, "{\"a\":\"s\",\"b\":null}", NULL) == 1 && V(s, "{\"a\":1}", NULL) == 0 && V(s, "{\"b\":1}", NULL) == 0,
              "prune: the references resolve as before");
        tg_schema_free(s);
    }
    /* the metaschema judges the schema as given, what is left out too */
    tg_buf_reset(&diag);
    s = C("{\"type\":\"object\",\"examples\":5}", &o, &diag);
    CHECK(s == NULL && diag.data && strstr(diag.data, "/examples"), "prune: the metaschema still judges examples");
    tg_schema_free(s);
    tg_buf_free(&text);
    tg_buf_free(&diag);
}

int main(void) {
    test_basic_output();
    test_max_errors();
    test_numbers();
    test_strings_and_keys();
    test_unique_items();
    test_big_properties();
    test_compile_errors();
    test_ref_bomb();
    test_deep_schema_passes_metaschema();
    test_eval_limits();
    test_formats();
    test_resources_and_dialects();
    test_resource_is_a_schema();
    test_unevaluated();
    test_metaschema_cache();
    test_allocation_failures();
    test_ref_pointer_index();
    test_pattern_props_budget();
    test_required_shared_index();
    test_prune_document();
    printf("schema: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
