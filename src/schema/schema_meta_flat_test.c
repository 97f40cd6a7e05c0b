/* schema_meta_flat_test.c - the flat metaschemas (schema_meta_flat.c, which
 * give every compile's metaschema verdict for 2020-12 and 2019-09) against
 * the official ones: every keyword either metaschema constrains, holding
 * each of a set of right and wrong values, at every place a subschema can
 * sit, must get the same verdict from both, and so must random nestings of
 * them. (The JSON-Schema-Test-Suite's
 * schemas and instances are compared too, in schema_suite_test.c; they
 * rarely break a metaschema rule, so this test is the one with teeth.) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "schema_internal.h"
#include "../json/json.h"
#include "../../tests/tg_test.h"

static const tg_allocator A = {tg_alloc_libc, NULL};

/* Values a keyword may hold: right for some keywords, wrong for others. */
static const char *const VALUES[] = {
    "-1", "0", "1", "1.5", "1e400", "\"\"", "\"x\"", "\"string\"", "\"#frag\"", "\"#/a\"", "\"https://e.x/s\"",
    "\"^(a\"", "\"a b\"", "[]", "[\"a\"]", "[\"a\",\"a\"]", "[\"string\",\"null\"]", "[\"string\",\"string\"]",
    "[1]", "[{}]", "[{},true]", "{}", "{\"a\":1}", "{\"a\":{}}", "{\"a\":[\"b\"]}", "{\"a\":true}", "{\"a\":\"b\"}",
    "{\"https://e.x/v\":true}", "true", "false", "null",
};

/* Places a subschema can sit (%s: its members). */
static const char *const PLACES[] = {
    "{%s}", "{\"properties\":{\"p\":{%s}}}", "{\"items\":{%s}}", "{\"$defs\":{\"d\":{%s}}}",
    "{\"allOf\":[{%s}]}", "{\"anyOf\":[{},{%s}]}", "{\"oneOf\":[{%s}]}", "{\"not\":{%s}}",
    "{\"additionalProperties\":{%s}}", "{\"dependentSchemas\":{\"x\":{%s}}}", "{\"prefixItems\":[{%s}]}",
    "{\"contentSchema\":{%s}}", "{\"definitions\":{\"d\":{%s}}}", "{\"dependencies\":{\"x\":{%s}}}",
    "{\"patternProperties\":{\"^a\":{%s}}}", "{\"if\":{%s},\"then\":{}}", "{\"else\":{%s}}",
    "{\"unevaluatedProperties\":{%s}}", "{\"unevaluatedItems\":{%s}}", "{\"propertyNames\":{%s}}",
    "{\"contains\":{%s}}", "{\"additionalItems\":{%s}}", "{\"items\":[{%s}]}", "{\"type\":\"object\",%s}",
};

/* Keywords no metaschema names (unknown ones are allowed anywhere). */
static const char *const EXTRA[] = {"x-unknown", "nullable", "$dynamicAnchor", "$recursiveAnchor"};

typedef struct pair { tg_schema *official; size_t checked, agreed, valid; } pair;

static void judge(pair *p, const char *text, tg_arena *scratch) {
    tg_json_error je;
    tg_arena_mark mk = tg_arena_save(scratch);
    cJSON *doc = tg_json_parse(scratch, text, strlen(text), NULL, &je);
    if (!doc) return; /* (random members may repeat a name: duplicates are not JSON here) */
    int official = tg_sval(p->official, doc, scratch, TG_OUTPUT_FLAG, 0, NULL, 0);
    int flat = tg_sval(p->official->flat, doc, scratch, TG_OUTPUT_FLAG, 0, NULL, 0);
    tg_arena_rewind(scratch, mk);
    p->checked++;
    p->valid += official == 1;
    if (official >= 0 && official == flat) p->agreed++;
    else if (p->checked - p->agreed <= 5) fprintf(stderr, "disagree (official %d, flat %d): %s\n", official, flat, text);
}

/* Every keyword the flat metaschema names, and a few it does not, with each
 * value, in each place. */
static void test_keywords_values_places(tg_dialect d, const char *label) {
    pair p = {NULL, 0, 0, 0};
    tg_arena scratch, docs;
    tg_json_error je;
    char members[512], text[1024];
    tg_arena_init(&scratch, A);
    tg_arena_init(&docs, A);
    CHECK(tg_schema_compile_metaschema(&A, d, &p.official, NULL) == 0 && p.official && p.official->flat);
    const char *flat_text = tg_smeta_flat(d);
    cJSON *flat = flat_text ? tg_json_parse(&docs, flat_text, strlen(flat_text), NULL, &je) : NULL;
    const cJSON *props = tg_json_getz(flat, "properties");
    CHECK(props && props->child);
    if (!p.official || !p.official->flat || !props) goto out;
    const char *names[128];
    size_t n = 0;
    for (const cJSON *kw = props->child; kw && n < 120; kw = kw->next) names[n++] = kw->string;
    for (size_t k = 0; k < sizeof EXTRA / sizeof EXTRA[0]; k++) names[n++] = EXTRA[k];
    for (size_t k = 0; k < n; k++)
        for (size_t v = 0; v < sizeof VALUES / sizeof VALUES[0]; v++) {
            snprintf(members, sizeof members, "\"%s\":%s", names[k], VALUES[v]);
            for (size_t w = 0; w < sizeof PLACES / sizeof PLACES[0]; w++) {
                snprintf(text, sizeof text, PLACES[w], members);
                judge(&p, text, &scratch);
            }
            /* beside a sibling that is right */
            snprintf(text, sizeof text, "{\"type\":\"string\",\"minLength\":1,%s,\"title\":\"t\"}", members);
            judge(&p, text, &scratch);
        }
    /* whole values in place of a schema */
    for (size_t v = 0; v < sizeof VALUES / sizeof VALUES[0]; v++) judge(&p, VALUES[v], &scratch);
    CHECK_MSG(p.agreed == p.checked, "%s: %zu of %zu verdicts agree", label, p.agreed, p.checked);
    CHECK_MSG(p.checked > 20000, "%s: only %zu values judged", label, p.checked);
    printf("schema_meta_flat: %s: the flat metaschema gave the official verdict on %zu of %zu schemas\n", label,
           p.agreed, p.checked);
out:
    tg_schema_free(p.official);
    tg_arena_free(&docs);
    tg_arena_free(&scratch);
}

/* Random nesting: a schema of up to four members, each a keyword either
 * metaschema names (or an unknown one) holding a value of VALUES, a
 * subschema, an array of subschemas or a map of names to subschemas. */
typedef struct gen { uint64_t x; char *p, *end; const char *const *names; size_t n_names; } gen;

static size_t roll(gen *g, size_t n) {
    g->x ^= g->x << 13;
    g->x ^= g->x >> 7;
    g->x ^= g->x << 17;
    return (size_t)(g->x % n);
}

static void put(gen *g, const char *s) {
    size_t l = strlen(s);
    if ((size_t)(g->end - g->p) > l) {
        memcpy(g->p, s, l);
        g->p += l;
        *g->p = '\0';
    }
}

static void schema_text(gen *g, int depth);

static void value_text(gen *g, int depth) {
    size_t k = depth > 0 ? roll(g, 6) : 0;
    if (k <= 2) put(g, VALUES[roll(g, sizeof VALUES / sizeof VALUES[0])]);
    else if (k == 3) schema_text(g, depth - 1);
    else {
        size_t n = roll(g, 3);
        put(g, k == 4 ? "[" : "{");
        for (size_t i = 0; i < n; i++) {
            if (i) put(g, ",");
            if (k == 5) put(g, i ? "\"b\":" : "\"a\":");
            schema_text(g, depth - 1);
        }
        put(g, k == 4 ? "]" : "}");
    }
}

static void schema_text(gen *g, int depth) {
    size_t n = roll(g, 5);
    if (!roll(g, 8)) { put(g, roll(g, 2) ? "true" : "false"); return; }
    put(g, "{");
    for (size_t i = 0; i < n; i++) {
        if (i) put(g, ",");
        put(g, "\"");
        put(g, g->names[roll(g, g->n_names)]);
        put(g, "\":");
        value_text(g, depth);
    }
    put(g, "}");
}

static void test_random_nesting(tg_dialect d, const char *label) {
    pair p = {NULL, 0, 0, 0};
    tg_arena scratch, docs;
    tg_json_error je;
    static char text[8192];
    const char *names[128];
    size_t n = 0;
    tg_arena_init(&scratch, A);
    tg_arena_init(&docs, A);
    CHECK(tg_schema_compile_metaschema(&A, d, &p.official, NULL) == 0 && p.official && p.official->flat);
    const char *flat_text = tg_smeta_flat(d);
    const cJSON *props = tg_json_getz(tg_json_parse(&docs, flat_text, strlen(flat_text), NULL, &je), "properties");
    if (!p.official || !props) goto out;
    for (const cJSON *kw = props->child; kw && n < 120; kw = kw->next) names[n++] = kw->string;
    for (size_t k = 0; k < sizeof EXTRA / sizeof EXTRA[0]; k++) names[n++] = EXTRA[k];
    gen g = {0x2545F4914F6CDD1Dull ^ (uint64_t)d, NULL, NULL, names, n};
    for (int i = 0; i < 30000; i++) {
        g.p = text;
        g.end = text + sizeof text;
        text[0] = '\0';
        schema_text(&g, 3);
        judge(&p, text, &scratch);
    }
    CHECK_MSG(p.agreed == p.checked && p.checked > 25000, "%s: %zu of %zu random schemas agree", label, p.agreed,
              p.checked);
    printf("schema_meta_flat: %s: the same verdict on %zu of %zu random nested schemas (%zu of them valid)\n", label,
           p.agreed, p.checked, p.valid);
out:
    tg_schema_free(p.official);
    tg_arena_free(&docs);
    tg_arena_free(&scratch);
}

/* The check a compile makes uses the flat twin and still explains a
 * failure with the official metaschema's words. */
static void test_compile_still_explains(void) {
    tg_schema_options o = tg_schema_default_options();
    tg_schema *cache[TG_DIALECT_DRAFT4 + 1] = {0};
    tg_arena a;
    tg_json_error je;
    tg_buf diag;
    tg_schema *s = NULL;
    const char *bad = "{\"type\":\"object\",\"properties\":{\"n\":{\"minLength\":-1}}}";
    tg_arena_init(&a, A);
    tg_buf_init(&diag, A, 0);
    o.metaschema_cache = cache;
    cJSON *doc = tg_json_parse(&a, bad, strlen(bad), NULL, &je);
    CHECK(tg_schema_compile(&A, doc, &o, &s, &diag) != 0 && s == NULL);
    tg_buf_putc(&diag, 0);
    CHECK_MSG(diag.data && strstr(diag.data, "/properties/n/minLength") && strstr(diag.data, "metaschema"), "%s",
              diag.data ? diag.data : "(none)");
    CHECK(cache[TG_DIALECT_2020_12] && cache[TG_DIALECT_2020_12]->flat);
    for (size_t i = 0; i < sizeof cache / sizeof cache[0]; i++) tg_schema_free(cache[i]);
    tg_buf_free(&diag);
    tg_arena_free(&a);
}

int main(void) {
    test_keywords_values_places(TG_DIALECT_2020_12, "2020-12");
    test_keywords_values_places(TG_DIALECT_2019_09, "2019-09");
    test_random_nesting(TG_DIALECT_2020_12, "2020-12");
    test_random_nesting(TG_DIALECT_2019_09, "2019-09");
    test_compile_still_explains();
    return tg_test_finish("schema_meta_flat");
}
