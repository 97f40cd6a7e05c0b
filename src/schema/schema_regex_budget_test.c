/* schema_regex_budget_test.c - the regexes of one schema are bounded
 * together (max_regex_states, max_regex_ranges), not only one by one: 400
 * patterns like .{9000} each within the per-pattern limits held 43 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "../json/json.h"
#include "../../tests/tg_test.h"

static const tg_allocator A = {tg_alloc_libc, NULL};

/* Compiles schema text; 0 when it compiles, else the compile's result with
 * its diagnostic in diag (NUL-terminated). */
static int compile(const char *text, const tg_schema_options *o, char *diag, size_t cap) {
    tg_arena a;
    tg_json_error jerr;
    tg_json_limits jl = tg_json_default_limits();
    tg_buf d;
    tg_schema *s = NULL;
    int r;
    tg_arena_init(&a, A);
    tg_buf_init(&d, A, 0);
    r = tg_schema_compile(&A, tg_json_parse(&a, text, strlen(text), &jl, &jerr), o, &s, &d);
    snprintf(diag, cap, "%.*s", (int)d.len, d.data ? d.data : "");
    tg_schema_free(s);
    tg_buf_free(&d);
    tg_arena_free(&a);
    return r;
}

/* {"properties":{"p0":{"pattern":P},...}} with n copies of pattern (each
 * made distinct by its property name only). */
static char *schema_of(const char *pattern, int n) {
    size_t cap = (size_t)n * (strlen(pattern) + 32) + 64, o = 0;
    char *s = malloc(cap);
    int i;
    o += (size_t)snprintf(s + o, cap - o, "{\"properties\":{");
    for (i = 0; i < n; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s\"p%d\":{\"pattern\":\"%s\"}", i ? "," : "", i, pattern);
    snprintf(s + o, cap - o, "}}");
    return s;
}

static void test_defaults(void) {
    tg_schema_options o = tg_schema_default_options();
    CHECK(o.limits.max_regex_states == 200000 && o.limits.max_regex_ranges == 131072);
}

/* .{9000} is 9,001 states: 22 fit in 200,000, 23 do not. */
static void test_states_budget(void) {
    char diag[512];
    char *s = schema_of(".{9000}", 22);
    CHECK_MSG(compile(s, NULL, diag, sizeof diag) == 0, "%s", diag);
    free(s);
    s = schema_of(".{9000}", 400);
    CHECK(compile(s, NULL, diag, sizeof diag) == -1);
    CHECK_MSG(strstr(diag, "/pattern: the schema's patterns need 207023 NFA states together, over the limit of 200000 a schema"),
              "%s", diag);
    free(s);
    /* patternProperties keys count too, with a lowered limit */
    {
        tg_schema_options o = tg_schema_default_options();
        o.limits.max_regex_states = 20;
        CHECK(compile("{\"patternProperties\":{\"^abcdefgh\":{},\"^ijklmnop\":{},\"^qrstuvwx\":{}}}", &o, diag,
                      sizeof diag) == -1 &&
              strstr(diag, "over the limit of 20 a schema"));
        CHECK_MSG(compile("{\"patternProperties\":{\"^abcdefgh\":{},\"^ijklmnop\":{}}}", &o, diag, sizeof diag) == 0,
                  "%s", diag);
    }
}

/* [\p{Gr_Base}] keeps 904 ranges: 144 fit in 131,072, 145 do not. */
static void test_ranges_budget(void) {
    char diag[512];
    char *s = schema_of("[\\\\p{Gr_Base}]", 144);
    CHECK_MSG(compile(s, NULL, diag, sizeof diag) == 0, "%s", diag);
    free(s);
    s = schema_of("[\\\\p{Gr_Base}]", 300);
    CHECK(compile(s, NULL, diag, sizeof diag) == -1);
    CHECK_MSG(strstr(diag, "class ranges together, over the limit of 131072 a schema"), "%s", diag);
    free(s);
}

int main(void) {
    test_defaults();
    test_states_budget();
    test_ranges_budget();
    return tg_test_finish("schema_regex_budget");
}
