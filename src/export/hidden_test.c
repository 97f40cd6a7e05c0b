/* hidden_test.c - context parameters: removed wherever removing them is
 * exact (any in-place subschema, any depth of local $ref), and every schema
 * where one could still reach the model refused by the check. */
#include "hidden.h"
#include "../../tests/tg_test.h"

static tg_allocator libc_alloc = {tg_alloc_libc, NULL};

/* Strips "tenant_id" from schema; returns the check's verdict, why in why. */
static int strip_and_check(const char *schema, char *text, size_t cap, char *why, size_t n) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    cJSON *s = tg_json_parse(&a, schema, strlen(schema), NULL, &err);
    cJSON *h = tg_json_parse(&a, "[\"tenant_id\"]", 13, NULL, &err);
    CHECK_MSG(s && h, "parse %s", schema);
    why[0] = '\0';
    CHECK(tg_hidden_strip(&a, s, h) == 0);
    int refused = tg_hidden_check(s, h, why, n);
    tg_buf b;
    tg_buf_init(&b, libc_alloc, 0);
    tg_json_write(&b, s);
    tg_buf_putc(&b, '\0');
    snprintf(text, cap, "%s", b.failed ? "" : b.data);
    tg_buf_free(&b);
    tg_arena_free(&a);
    return refused;
}

#define ARGS "{\"type\":\"object\",\"properties\":{\"sql\":{\"type\":\"string\"},\"tenant_id\":{\"type\":\"string\"}},\"required\":[\"sql\",\"tenant_id\"]}"

static void removed_from_every_in_place_subschema(void) {
    static const char *const cases[] = {
        /* if/then and if/else */
        "{\"type\":\"object\",\"properties\":{\"sql\":{}},\"if\":{\"required\":[\"sql\"]},"
        "\"then\":{\"properties\":{\"tenant_id\":{\"description\":\"your tenant id\"}},\"required\":[\"tenant_id\"]}}",
        "{\"type\":\"object\",\"if\":{\"required\":[\"x\"]},\"else\":{\"required\":[\"tenant_id\"]}}",
        /* dependentSchemas / dependentRequired values, draft-07 dependencies */
        "{\"type\":\"object\",\"dependentSchemas\":{\"sql\":{\"properties\":{\"tenant_id\":{\"minLength\":1}},\"required\":[\"tenant_id\"]}}}",
        "{\"type\":\"object\",\"dependentRequired\":{\"sql\":[\"tenant_id\"]}}",
        "{\"type\":\"object\",\"dependencies\":{\"sql\":[\"tenant_id\"],\"q\":{\"required\":[\"tenant_id\"]}}}",
        /* a $ref chain and an allOf nesting deeper than the old limit of 8 */
        "{\"$ref\":\"#/$defs/D0\",\"$defs\":{\"D0\":{\"$ref\":\"#/$defs/D1\"},\"D1\":{\"$ref\":\"#/$defs/D2\"},"
        "\"D2\":{\"$ref\":\"#/$defs/D3\"},\"D3\":{\"$ref\":\"#/$defs/D4\"},\"D4\":{\"$ref\":\"#/$defs/D5\"},"
        "\"D5\":{\"$ref\":\"#/$defs/D6\"},\"D6\":{\"$ref\":\"#/$defs/D7\"},\"D7\":{\"$ref\":\"#/$defs/D8\"},"
        "\"D8\":{\"$ref\":\"#/$defs/D9\"},\"D9\":" ARGS "}}",
        "{\"allOf\":[{\"allOf\":[{\"allOf\":[{\"allOf\":[{\"allOf\":[{\"allOf\":[{\"allOf\":[{\"allOf\":[{\"allOf\":[{\"allOf\":["
        ARGS "]}]}]}]}]}]}]}]}]}]}",
        /* an anchor, and a cycle of refs */
        "{\"$ref\":\"#args\",\"$defs\":{\"A\":{\"$anchor\":\"args\",\"allOf\":[{\"$ref\":\"#args\"}],"
        "\"properties\":{\"tenant_id\":{}}}}}",
    };
    char text[4096], why[400];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int refused = strip_and_check(cases[i], text, sizeof text, why, sizeof why);
        CHECK_MSG(!refused, "%s: %s", cases[i], why);
        CHECK_MSG(strstr(text, "tenant_id") == NULL, "left in %s", text);
    }
}

static void refused_where_removal_is_not_exact(void) {
    static const struct {
        const char *schema, *why;
    } cases[] = {
        {"{\"type\":\"object\",\"if\":{\"required\":[\"tenant_id\"]},\"then\":{\"required\":[\"x\"]}}", "\"/if\""},
        {"{\"type\":\"object\",\"not\":{\"required\":[\"tenant_id\"]}}", "\"/not\""},
        {"{\"type\":\"object\",\"dependentRequired\":{\"tenant_id\":[\"sql\"]}}", "a key of"},
        {"{\"type\":\"object\",\"dependentSchemas\":{\"tenant_id\":{\"required\":[\"sql\"]}}}", "a key of"},
        {"{\"type\":\"object\",\"anyOf\":[{},{\"not\":{\"$ref\":\"#/$defs/T\"}}],\"$defs\":{\"T\":{\"required\":[\"tenant_id\"]}}}",
         "\"/$defs/T\""},
        /* refs this module does not resolve */
        {"{\"type\":\"object\",\"$dynamicRef\":\"#args\",\"$defs\":{\"A\":{\"$dynamicAnchor\":\"args\"}}}", "dynamic reference"},
        {"{\"$id\":\"https://example.com/tool\",\"$ref\":\"https://example.com/tool#/$defs/Args\",\"$defs\":{\"Args\":" ARGS "}}",
         "$ref other than"},
        {"{\"$id\":\"https://example.com/tool\",\"$ref\":\"tool#/$defs/Args\",\"$defs\":{\"Args\":" ARGS "}}", "$ref other than"},
        {"{\"$ref\":\"#/$defs/Args\",\"$defs\":{\"Args\":{\"$id\":\"https://example.com/args\",\"$ref\":\"#/$defs/X\"}}}", "own \"$id\""},
        {"{\"allOf\":[{\"$ref\":\"#/$defs/missing\"}]}", "$ref other than"},
    };
    char text[4096], why[400];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int refused = strip_and_check(cases[i].schema, text, sizeof text, why, sizeof why);
        CHECK_MSG(refused, "not refused: %s -> %s", cases[i].schema, text);
        CHECK_MSG(strstr(why, "\"tenant_id\"") && strstr(why, cases[i].why), "%s: %s", cases[i].schema, why);
    }
}

static void names_elsewhere_are_left_alone(void) {
    /* a nested object's own tenant_id is another value: kept, and no refusal */
    char text[4096], why[400];
    const char *s = "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"properties\":{\"tenant_id\":{}},"
                    "\"required\":[\"tenant_id\"]}},\"if\":{\"required\":[\"o\"]},\"then\":{\"required\":[\"tenant_id\"]}}";
    CHECK(strip_and_check(s, text, sizeof text, why, sizeof why) == 0);
    CHECK_STR(text, "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"properties\":{\"tenant_id\":{}},"
                    "\"required\":[\"tenant_id\"]}},\"if\":{\"required\":[\"o\"]},\"then\":{\"required\":[]}}");
}

/* A $ref target the root uses in place and another use reaches as well:
 * the in-place use gets a stripped copy, the other keeps the original. */
static void shared_targets_copied_for_the_in_place_use(void) {
    static const struct {
        const char *schema, *out;
    } cases[] = {
        /* the root is the definition, which nests itself */
        {"{\"$ref\":\"#/$defs/Base\",\"$defs\":{\"Base\":{\"type\":\"object\",\"properties\":{\"tenant_id\":{},\"q\":{},"
         "\"child\":{\"$ref\":\"#/$defs/Base\"}},\"required\":[\"tenant_id\",\"q\"]}}}",
         "{\"$ref\":\"#/$defs/Base_in_place\",\"$defs\":{\"Base\":{\"type\":\"object\",\"properties\":{\"tenant_id\":{},\"q\":{},"
         "\"child\":{\"$ref\":\"#/$defs/Base\"}},\"required\":[\"tenant_id\",\"q\"]},\"Base_in_place\":{\"type\":\"object\","
         "\"properties\":{\"q\":{},\"child\":{\"$ref\":\"#/$defs/Base\"}},\"required\":[\"q\"]}}}"},
        /* recursion in place: the copy applies itself; the name is taken, and the other use comes through another
         * definition's allOf */
        {"{\"allOf\":[{\"$ref\":\"#/$defs/B\"}],\"properties\":{\"o\":{\"items\":{\"$ref\":\"#/$defs/W\"}}},\"$defs\":{"
         "\"B\":{\"allOf\":[{\"$ref\":\"#/$defs/B\"}],\"properties\":{\"tenant_id\":{}}},\"W\":{\"allOf\":[{\"$ref\":\"#/$defs/B\"}]},"
         "\"B_in_place\":{}}}",
         "{\"allOf\":[{\"$ref\":\"#/$defs/B_in_place_2\"}],\"properties\":{\"o\":{\"items\":{\"$ref\":\"#/$defs/W\"}}},\"$defs\":{"
         "\"B\":{\"allOf\":[{\"$ref\":\"#/$defs/B\"}],\"properties\":{\"tenant_id\":{}}},\"W\":{\"allOf\":[{\"$ref\":\"#/$defs/B\"}]},"
         "\"B_in_place\":{},\"B_in_place_2\":{\"allOf\":[{\"$ref\":\"#/$defs/B_in_place_2\"}],\"properties\":{}}}}"},
        /* an anchor names the original only; draft-07 copies go to its "definitions" */
        {"{\"$ref\":\"#b\",\"properties\":{\"x\":{\"$ref\":\"#b\"}},\"definitions\":{\"B\":{\"$anchor\":\"b\","
         "\"properties\":{\"tenant_id\":{}}}}}",
         "{\"$ref\":\"#/definitions/b_in_place\",\"properties\":{\"x\":{\"$ref\":\"#b\"}},\"definitions\":{\"B\":{\"$anchor\":\"b\","
         "\"properties\":{\"tenant_id\":{}}},\"b_in_place\":{\"properties\":{}}}}"},
        {"{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"allOf\":[{\"$ref\":\"#/items/0\"}],\"items\":[" ARGS "]}",
         "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"allOf\":[{\"$ref\":\"#/definitions/0_in_place\"}],\"items\":["
         ARGS "],\"definitions\":{\"0_in_place\":{\"type\":\"object\",\"properties\":{\"sql\":{\"type\":\"string\"}},"
         "\"required\":[\"sql\"]}}}"},
        /* used in place only: stripped where it is, no copy */
        {"{\"$ref\":\"#/$defs/A\",\"properties\":{\"x\":{\"$ref\":\"#/$defs/C\"}},\"$defs\":{\"A\":" ARGS ",\"C\":{}}}",
         "{\"$ref\":\"#/$defs/A\",\"properties\":{\"x\":{\"$ref\":\"#/$defs/C\"}},\"$defs\":{\"A\":{\"type\":\"object\","
         "\"properties\":{\"sql\":{\"type\":\"string\"}},\"required\":[\"sql\"]},\"C\":{}}}"},
    };
    char text[4096], why[400];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int refused = strip_and_check(cases[i].schema, text, sizeof text, why, sizeof why);
        CHECK_MSG(!refused, "%s: %s", cases[i].schema, why);
        CHECK_STR(text, cases[i].out);
    }
    /* a target under "if" as well keeps the name there, where removing it is not exact: refused, where it is */
    CHECK(strip_and_check("{\"allOf\":[{\"$ref\":\"#/$defs/A\"}],\"if\":{\"$ref\":\"#/$defs/A\"},\"then\":{},\"$defs\":{\"A\":" ARGS "}}",
                          text, sizeof text, why, sizeof why) == 1);
    CHECK_MSG(strstr(why, "\"tenant_id\"") && strstr(why, "\"/$defs/A\""), "%s", why);
}

/* A nested $ref to the root ("#") or into what applies in place with it
 * ("#/allOf/0", an anchor there) names a value the validator checks against
 * the original root: it is pointed at an unstripped copy of the root in its
 * definitions, where "#" means the copy; in-place refs keep the stripped
 * root. */
static void nested_refs_to_the_root_see_it_whole(void) {
    static const struct {
        const char *schema, *out;
    } cases[] = {
        /* a recursive root */
        {"{\"type\":\"object\",\"properties\":{\"tenant_id\":{},\"q\":{},\"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}},"
         "\"required\":[\"tenant_id\",\"q\"]}",
         "{\"type\":\"object\",\"properties\":{\"q\":{},\"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/root\"}}},"
         "\"required\":[\"q\"],\"$defs\":{\"root\":{\"type\":\"object\",\"properties\":{\"tenant_id\":{},\"q\":{},\"children\":{"
         "\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/root\"}}},\"required\":[\"tenant_id\",\"q\"]}}}"},
        /* an in-place branch, by pointer and by anchor (which the copy drops); the name is taken */
        {"{\"allOf\":[{\"$anchor\":\"a\",\"properties\":{\"tenant_id\":{}},\"required\":[\"tenant_id\"]}],\"properties\":{"
         "\"x\":{\"$ref\":\"#/allOf/0\"},\"y\":{\"$ref\":\"#a\"}},\"$defs\":{\"root\":{}}}",
         "{\"allOf\":[{\"$anchor\":\"a\",\"properties\":{},\"required\":[]}],\"properties\":{\"x\":{\"$ref\":\"#/$defs/root_2/allOf/0\"},"
         "\"y\":{\"$ref\":\"#/$defs/root_2/allOf/0\"}},\"$defs\":{\"root\":{},\"root_2\":{\"allOf\":[{\"properties\":{\"tenant_id\":{}},"
         "\"required\":[\"tenant_id\"]}],\"properties\":{\"x\":{\"$ref\":\"#/$defs/root_2/allOf/0\"},\"y\":{\"$ref\":"
         "\"#/$defs/root_2/allOf/0\"}}}}}"},
        /* the copy uses the root's in-place definition A as well (A gets its own stripped copy), and the nested use
         * comes through a definition; the in-place "then" keeps the stripped branch, the copy's its own */
        {"{\"$ref\":\"#/$defs/A\",\"allOf\":[{\"required\":[\"tenant_id\"]}],\"if\":{\"required\":[\"q\"]},\"then\":{\"$ref\":"
         "\"#/allOf/0\"},\"properties\":{\"w\":{\"$ref\":\"#/$defs/W\"}},\"$defs\":{\"A\":{\"properties\":{\"tenant_id\":{}},"
         "\"required\":[\"tenant_id\"]},\"W\":{\"allOf\":[{\"$ref\":\"#\"}]}}}",
         "{\"$ref\":\"#/$defs/A_in_place\",\"allOf\":[{\"required\":[]}],\"if\":{\"required\":[\"q\"]},\"then\":{\"$ref\":"
         "\"#/allOf/0\"},\"properties\":{\"w\":{\"$ref\":\"#/$defs/W\"}},\"$defs\":{\"A\":{\"properties\":{\"tenant_id\":{}},"
         "\"required\":[\"tenant_id\"]},\"W\":{\"allOf\":[{\"$ref\":\"#/$defs/root\"}]},\"root\":{\"$ref\":\"#/$defs/A\",\"allOf\":[{"
         "\"required\":[\"tenant_id\"]}],\"if\":{\"required\":[\"q\"]},\"then\":{\"$ref\":\"#/$defs/root/allOf/0\"},\"properties\":{"
         "\"w\":{\"$ref\":\"#/$defs/W\"}}},\"A_in_place\":{\"properties\":{},\"required\":[]}}}"},
        /* draft-07: the copy goes to "definitions", without the root's $schema and $id (it is no resource of its
         * own) and without the context parameter's sample value */
        {"{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"$id\":\"https://example.com/t\",\"properties\":{\"tenant_id\":{},"
         "\"next\":{\"$ref\":\"#\"}},\"required\":[\"tenant_id\"],\"default\":{\"tenant_id\":\"acme\",\"next\":null}}",
         "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"$id\":\"https://example.com/t\",\"properties\":{\"next\":{\"$ref\":"
         "\"#/definitions/root\"}},\"required\":[],\"default\":{\"next\":null},\"definitions\":{\"root\":{\"properties\":{"
         "\"tenant_id\":{},\"next\":{\"$ref\":\"#/definitions/root\"}},\"required\":[\"tenant_id\"],\"default\":{\"next\":null}}}}"},
        /* an in-place branch of a definition the root uses in place: the definition is copied for the root */
        {"{\"$ref\":\"#/$defs/B\",\"properties\":{\"p\":{\"$ref\":\"#/$defs/B/allOf/0\"}},\"$defs\":{\"B\":{\"allOf\":[{\"properties\":"
         "{\"tenant_id\":{}},\"required\":[\"tenant_id\"]}]}}}",
         "{\"$ref\":\"#/$defs/B_in_place\",\"properties\":{\"p\":{\"$ref\":\"#/$defs/B/allOf/0\"}},\"$defs\":{\"B\":{\"allOf\":[{"
         "\"properties\":{\"tenant_id\":{}},\"required\":[\"tenant_id\"]}]},\"B_in_place\":{\"allOf\":[{\"properties\":{},"
         "\"required\":[]}]}}}"},
        /* a nested ref elsewhere into the root is left as it is; so is "#" in a resource of its own */
        {"{\"properties\":{\"tenant_id\":{},\"a\":{},\"b\":{\"$ref\":\"#/properties/a\"},\"o\":{\"$id\":\"https://example.com/o\","
         "\"properties\":{\"n\":{\"$ref\":\"#\"}}}},\"required\":[\"tenant_id\"]}",
         "{\"properties\":{\"a\":{},\"b\":{\"$ref\":\"#/properties/a\"},\"o\":{\"$id\":\"https://example.com/o\","
         "\"properties\":{\"n\":{\"$ref\":\"#\"}}}},\"required\":[]}"},
    };
    char text[4096], why[400];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int refused = strip_and_check(cases[i].schema, text, sizeof text, why, sizeof why);
        CHECK_MSG(!refused, "%s: %s", cases[i].schema, why);
        CHECK_STR(text, cases[i].out);
    }
    /* "if" tests the original branch, where removing the name is not exact: refused, where it is */
    CHECK(strip_and_check("{\"allOf\":[{\"properties\":{\"tenant_id\":{}}}],\"if\":{\"$ref\":\"#/allOf/0\"},\"then\":{}}", text,
                          sizeof text, why, sizeof why) == 1);
    CHECK_MSG(strstr(why, "\"tenant_id\"") && strstr(why, "\"/$defs/root/allOf/0\""), "%s", why);
}

static int count(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* The copies (the root's, a shared definition's in-place one) name nothing
 * the original names: no second "$id" or anchor; a nested resource that
 * resolves references against its "$id" cannot be copied exactly: refused. */
static void copies_repeat_no_id(void) {
    char text[4096], why[400];
    CHECK(!strip_and_check("{\"properties\":{\"tenant_id\":{},\"q\":{},\"meta\":{\"$id\":\"https://ex.com/meta\"},"
                           "\"kids\":{\"items\":{\"$ref\":\"#\"}}}}",
                           text, sizeof text, why, sizeof why));
    CHECK_MSG(count(text, "\"$id\"") == 1 && strstr(text, "\"root\""), "%s", text);
    CHECK(!strip_and_check("{\"$ref\":\"#/$defs/Base\",\"properties\":{\"child\":{\"$ref\":\"#/$defs/Base\"}},\"$defs\":{\"Base\":"
                           "{\"properties\":{\"tenant_id\":{},\"q\":{},\"meta\":{\"$id\":\"https://ex.com/meta\","
                           "\"$anchor\":\"m\"}}}}}",
                           text, sizeof text, why, sizeof why));
    CHECK_MSG(count(text, "\"$id\"") == 1 && count(text, "\"$anchor\"") == 1 && strstr(text, "Base_in_place"), "%s", text);
    CHECK(strip_and_check("{\"properties\":{\"tenant_id\":{},\"meta\":{\"$id\":\"https://ex.com/meta\",\"$defs\":{\"x\":{}},"
                          "\"$ref\":\"#/$defs/x\"},\"kids\":{\"items\":{\"$ref\":\"#\"}}}}",
                          text, sizeof text, why, sizeof why));
    CHECK_MSG(strstr(why, "second \"$id\" \"https://ex.com/meta\""), "%s", why);
}

/* A nested value reaching the root through $dynamicRef, $recursiveRef or
 * the root's $id URI would lose its own context parameter: refused. */
static void root_by_uri_refused(void) {
    char text[4096], why[400];
    CHECK(strip_and_check("{\"$id\":\"https://ex.com/t\",\"properties\":{\"tenant_id\":{},\"children\":{\"items\":"
                          "{\"$ref\":\"https://ex.com/t\"}}},\"required\":[\"tenant_id\"]}",
                          text, sizeof text, why, sizeof why));
    CHECK_MSG(strstr(why, "$ref \"https://ex.com/t\""), "%s", why);
    CHECK(strip_and_check("{\"$id\":\"https://ex.com/t\",\"properties\":{\"tenant_id\":{},\"children\":{\"items\":"
                          "{\"$ref\":\"t\"}}}}",
                          text, sizeof text, why, sizeof why));
    CHECK(strip_and_check("{\"$dynamicAnchor\":\"n\",\"properties\":{\"tenant_id\":{},\"children\":{\"items\":"
                          "{\"$dynamicRef\":\"#n\"}}}}",
                          text, sizeof text, why, sizeof why));
    CHECK_MSG(strstr(why, "$dynamicRef \"#n\""), "%s", why);
    CHECK(strip_and_check("{\"$recursiveAnchor\":true,\"properties\":{\"tenant_id\":{},\"children\":{\"items\":"
                          "{\"$recursiveRef\":\"#\"}}}}",
                          text, sizeof text, why, sizeof why));
}

int main(void) {
    root_by_uri_refused();
    copies_repeat_no_id();
    removed_from_every_in_place_subschema();
    refused_where_removal_is_not_exact();
    names_elsewhere_are_left_alone();
    shared_targets_copied_for_the_in_place_use();
    nested_refs_to_the_root_see_it_whole();
    return tg_test_finish("hidden_test");
}
