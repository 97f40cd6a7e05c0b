/* export_test.c - provider renderings, case by case, plus structural checks
 * of each provider's rules over every rendering. */
#include <stdlib.h>

#include "export.h"
#include "../../tests/tg_test.h"

static tg_allocator libc_alloc = {tg_alloc_libc, NULL};

static char out_text[16384], rep_text[16384];

static void write_to(char *dst, size_t cap, const cJSON *x) {
    tg_buf b;
    tg_buf_init(&b, libc_alloc, 0);
    tg_json_write(&b, x);
    tg_buf_putc(&b, '\0');
    snprintf(dst, cap, "%s", b.failed ? "<buf failed>" : b.data);
    tg_buf_free(&b);
}

static cJSON *parse(tg_arena *a, const char *s) {
    tg_json_error err;
    cJSON *d = tg_json_parse(a, s, strlen(s), NULL, &err);
    CHECK_MSG(d != NULL, "parse %s: %s", s, err.message);
    return d;
}

/* ---- structural provider rules ---- */

static int has_key_anywhere(const cJSON *x, const char *key) {
    for (const cJSON *c = x ? x->child : NULL; c; c = c->next) {
        if (cJSON_IsObject(x) && c->string && !strcmp(c->string, key)) return 1;
        if (has_key_anywhere(c, key)) return 1;
    }
    return 0;
}

/* OpenAI and Gemini refuse an array schema without "items" anywhere
 * ("array schema missing items", "...items: missing field"). Walks every
 * object node but values (enum, const, default, examples). */
static void check_array_items(const cJSON *x, int depth) {
    if (!x || depth > 200) return;
    if (cJSON_IsObject(x)) {
        const cJSON *t = tg_json_getz(x, "type");
        int arr = cJSON_IsString(t) && !strcmp(t->valuestring, "array");
        for (const cJSON *e = cJSON_IsArray(t) ? t->child : NULL; e; e = e->next)
            if (cJSON_IsString(e) && !strcmp(e->valuestring, "array")) arr = 1;
        CHECK_MSG(!arr || tg_json_getz(x, "items"), "an array schema without items");
    }
    for (const cJSON *c = x->child; c; c = c->next) {
        int value = c->string && (!strcmp(c->string, "enum") || !strcmp(c->string, "const") ||
                                  !strcmp(c->string, "default") || !strcmp(c->string, "examples"));
        if (!value || !cJSON_IsObject(x)) check_array_items(c, depth + 1);
    }
}

static void check_gemini(const cJSON *decl) {
    check_array_items(decl, 0);
    static const char *const banned[] = {"$ref", "$defs", "definitions", "additionalProperties", "const",
                                         "oneOf", "allOf", "$schema", "patternProperties", NULL};
    for (int i = 0; banned[i]; i++) CHECK_MSG(!has_key_anywhere(decl, banned[i]), "gemini output has %s", banned[i]);
    const cJSON *p = tg_json_getz(decl, "parameters");
    if (p) {
        CHECK(cJSON_IsString(tg_json_getz(p, "type")) && !strcmp(tg_json_getz(p, "type")->valuestring, "object"));
        const cJSON *props = tg_json_getz(p, "properties");
        CHECK_MSG(props && props->child, "gemini parameters without properties");
    }
}

static void check_anthropic(const cJSON *tool) {
    const cJSON *s = tg_json_getz(tool, "input_schema");
    CHECK(s != NULL);
    const cJSON *t = tg_json_getz(s, "type");
    CHECK(cJSON_IsString(t) && !strcmp(t->valuestring, "object"));
    CHECK(!tg_json_getz(s, "anyOf") && !tg_json_getz(s, "oneOf") && !tg_json_getz(s, "allOf"));
    /* property keys: ^[a-zA-Z0-9_.-]{1,64}$ */
    const cJSON *props = tg_json_getz(s, "properties");
    for (const cJSON *pr = props ? props->child : NULL; pr; pr = pr->next) {
        size_t n = strlen(pr->string), ok = n >= 1 && n <= 64;
        for (size_t i = 0; i < n; i++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", pr->string[i])) ok = 0;
        CHECK_MSG(ok, "anthropic property key \"%s\"", pr->string);
    }
}

/* Every object schema: additionalProperties false, required == property keys. */
static void check_strict_node(const cJSON *s, int depth) {
    if (depth > 200 || !s) return;
    if (cJSON_IsObject(s)) {
        const cJSON *props = tg_json_getz(s, "properties");
        const cJSON *t = tg_json_getz(s, "type");
        int is_obj = props != NULL;
        if (cJSON_IsString(t) && !strcmp(t->valuestring, "object")) is_obj = 1;
        for (const cJSON *x = cJSON_IsArray(t) ? t->child : NULL; x; x = x->next)
            if (cJSON_IsString(x) && !strcmp(x->valuestring, "object")) is_obj = 1;
        if (is_obj) {
            CHECK(cJSON_IsFalse(tg_json_getz(s, "additionalProperties")));
            const cJSON *req = tg_json_getz(s, "required");
            int np = 0, nr = 0;
            for (const cJSON *x = props ? props->child : NULL; x; x = x->next, np++) {
                int found = 0;
                for (const cJSON *r = req ? req->child : NULL; r; r = r->next)
                    if (!strcmp(r->valuestring, x->string)) found = 1;
                CHECK_MSG(found, "strict: %s not required", x->string);
            }
            for (const cJSON *r = req ? req->child : NULL; r; r = r->next) nr++;
            CHECK(np == nr);
        }
        static const char *const sub[] = {"items", "additionalProperties", NULL};
        for (int i = 0; sub[i]; i++) check_strict_node(tg_json_getz(s, sub[i]), depth + 1);
        static const char *const maps[] = {"properties", "$defs", "definitions", NULL};
        for (int i = 0; maps[i]; i++) {
            const cJSON *m = tg_json_getz(s, maps[i]);
            for (const cJSON *x = m ? m->child : NULL; x; x = x->next) check_strict_node(x, depth + 1);
        }
        const cJSON *any = tg_json_getz(s, "anyOf");
        for (const cJSON *x = any ? any->child : NULL; x; x = x->next) check_strict_node(x, depth + 1);
        CHECK(!tg_json_getz(s, "allOf") && !tg_json_getz(s, "oneOf"));
    }
}

static void check_rules(tg_export_format fmt, const cJSON *out, int strict_ok) {
    if (cJSON_IsNull(out)) { /* left out of the list: Anthropic, Bedrock and Gemini (names they refuse), any
                                * format (past the per-tool bound, or not exact) */
        (void)fmt;
        CHECK(strstr(rep_text, "left out of this list") != NULL);
        return;
    }
    if (fmt == TG_EXPORT_ANTHROPIC) check_anthropic(out);
    if (fmt == TG_EXPORT_BEDROCK) { /* toolSpec {name, description (1+ characters)?, inputSchema {json}} */
        const cJSON *spec = tg_json_getz(out, "toolSpec"), *d = tg_json_getz(spec, "description");
        const cJSON *js = tg_json_getz(tg_json_getz(spec, "inputSchema"), "json");
        CHECK(spec && cJSON_IsString(tg_json_getz(spec, "name")) && js);
        CHECK(!d || (cJSON_IsString(d) && d->valuestring[0]));
        CHECK(js && cJSON_IsString(tg_json_getz(js, "type")) && !strcmp(tg_json_getz(js, "type")->valuestring, "object"));
    }
    if (fmt == TG_EXPORT_GEMINI) check_gemini(out);
    if (fmt == TG_EXPORT_OPENAI || fmt == TG_EXPORT_OPENAI_STRICT) {
        const cJSON *fn = tg_json_getz(out, "function");
        const cJSON *p = tg_json_getz(fn, "parameters");
        CHECK(p && !strcmp(tg_json_getz(p, "type")->valuestring, "object"));
        CHECK(!tg_json_getz(p, "anyOf") && !tg_json_getz(p, "oneOf") && !tg_json_getz(p, "allOf"));
        check_array_items(p, 0);
        if (strict_ok) {
            CHECK(cJSON_IsTrue(tg_json_getz(fn, "strict")));
            check_strict_node(p, 0);
        } else CHECK(cJSON_IsFalse(tg_json_getz(fn, "strict")));
    }
}

/* Renders desc in fmt into out_text / rep_text; returns strict_ok. */
static int render(tg_export_format fmt, const char *desc, const char *hidden) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    cJSON *d = parse(&a, desc);
    cJSON *h = hidden ? parse(&a, hidden) : NULL;
    cJSON *rep = tg_json_new(&a, cJSON_Array);
    int ok = -1;
    cJSON *out = d ? tg_export_tool(&a, fmt, "t", 1, d, h, rep, &ok) : NULL;
    CHECK(out != NULL);
    if (out) {
        write_to(out_text, sizeof out_text, out);
        write_to(rep_text, sizeof rep_text, rep);
        check_rules(fmt, out, ok);
    } else out_text[0] = rep_text[0] = '\0';
    tg_arena_free(&a);
    return ok;
}

static void expect(tg_export_format fmt, const char *desc, const char *hidden, const char *out, const char *rep) {
    render(fmt, desc, hidden);
    CHECK_STR(out_text, out);
    if (rep) CHECK_STR(rep_text, rep);
}

static int rep_has(const char *s) { return strstr(rep_text, s) != NULL; }

/* ---- cases ---- */

#define SIMPLE                                                                                       \
    "{\"name\":\"orig\",\"title\":\"Weather\",\"description\":\"Get weather\",\"inputSchema\":{\"type\":\"object\"," \
    "\"properties\":{\"city\":{\"type\":\"string\",\"description\":\"City\"},\"days\":{\"type\":\"integer\",\"minimum\":1}}," \
    "\"required\":[\"city\"]},\"annotations\":{\"readOnlyHint\":true},\"_meta\":{\"x\":1},\"zzz\":[1]}"

static void simple_tool(void) {
    expect(TG_EXPORT_MCP, SIMPLE, NULL,
           "{\"name\":\"t\",\"title\":\"Weather\",\"description\":\"Get weather\",\"inputSchema\":{\"type\":\"object\","
           "\"properties\":{\"city\":{\"type\":\"string\",\"description\":\"City\"},\"days\":{\"type\":\"integer\",\"minimum\":1}},"
           "\"required\":[\"city\"]},\"annotations\":{\"readOnlyHint\":true},\"_meta\":{\"x\":1},\"zzz\":[1]}",
           "[]");
    expect(TG_EXPORT_ANTHROPIC, SIMPLE, NULL,
           "{\"name\":\"t\",\"description\":\"Get weather\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"city\":"
           "{\"type\":\"string\",\"description\":\"City\"},\"days\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"city\"]}}",
           "[]");
    expect(TG_EXPORT_BEDROCK, SIMPLE, NULL,
           "{\"toolSpec\":{\"name\":\"t\",\"description\":\"Get weather\",\"inputSchema\":{\"json\":{\"type\":\"object\",\"properties\":{\"city\":"
           "{\"type\":\"string\",\"description\":\"City\"},\"days\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"city\"]}}}}",
           "[]");
    expect(TG_EXPORT_OPENAI, SIMPLE, NULL,
           "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"description\":\"Get weather\",\"parameters\":{\"type\":\"object\","
           "\"properties\":{\"city\":{\"type\":\"string\",\"description\":\"City\"},\"days\":{\"type\":\"integer\",\"minimum\":1}},"
           "\"required\":[\"city\"]},\"strict\":false}}",
           "[]");
    CHECK(render(TG_EXPORT_OPENAI_STRICT, SIMPLE, NULL) == 1);
    CHECK_STR(out_text,
              "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"description\":\"Get weather\",\"parameters\":{\"type\":\"object\","
              "\"properties\":{\"city\":{\"type\":\"string\",\"description\":\"City\"},\"days\":{\"type\":[\"integer\",\"null\"],\"minimum\":1}},"
              "\"required\":[\"city\",\"days\"],\"additionalProperties\":false},\"strict\":true}}");
    CHECK_STR(rep_text, "[{\"tool\":\"t\",\"path\":\"/properties/days\",\"nullable\":true}]");
    expect(TG_EXPORT_GEMINI, SIMPLE, NULL,
           "{\"name\":\"t\",\"description\":\"Get weather\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":"
           "{\"type\":\"string\",\"description\":\"City\"},\"days\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"city\"]}}",
           "[]");
}

/* MCP's Tool type wants each root property schema as an object: a boolean
 * one is written in its exact object form, in inputSchema and outputSchema
 * (nested ones are any JSON Schema and stay). */
static void mcp_boolean_properties(void) {
    expect(TG_EXPORT_MCP,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":true,\"b\":false,"
           "\"c\":{\"type\":\"object\",\"properties\":{\"d\":true}}}},"
           "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"e\":false}}}",
           NULL,
           "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{\"not\":{}},"
           "\"c\":{\"type\":\"object\",\"properties\":{\"d\":true}}}},"
           "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"e\":{\"not\":{}}}}}",
           "[]");
}

static void hidden_params(void) {
    const char *d = "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
                    "\"session\":{\"type\":\"string\"},\"b\":{\"type\":\"number\"}},\"required\":[\"session\",\"a\"]}}";
    const char *h = "[\"session\"]";
    expect(TG_EXPORT_MCP, d, h,
           "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"number\"}},"
           "\"required\":[\"a\"]}}",
           "[]");
    expect(TG_EXPORT_ANTHROPIC, d, h,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"number\"}},"
           "\"required\":[\"a\"]}}",
           "[]");
    render(TG_EXPORT_GEMINI, d, h);
    CHECK(strstr(out_text, "session") == NULL);
    render(TG_EXPORT_OPENAI_STRICT, d, h);
    CHECK(strstr(out_text, "session") == NULL);
    /* hidden inside a top-level allOf branch */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"allOf\":[{\"type\":\"object\",\"properties\":{\"session\":{}},\"required\":[\"session\"]},"
           "{\"properties\":{\"q\":{\"type\":\"string\"}}}]}}",
           h, "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[]}}", "[]");
}

/* A definition the root is in place and a property nests again: the root
 * shows it without the context parameter, the property with it (what the
 * validator requires there). The stripped copy made for the root's $ref is
 * merged into the root and, named by nothing, left out; it stays where a $ref
 * of what stays names it. */
static void hidden_shared_definition(void) {
    const char *d = "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"$ref\":\"#/$defs/Base\",\"$defs\":{\"Base\":{\"type\":\"object\","
                    "\"properties\":{\"session\":{\"type\":\"string\"},\"q\":{\"type\":\"string\"},\"child\":{\"$ref\":\"#/$defs/Base\"}},"
                    "\"required\":[\"session\",\"q\"]}}}}";
    const char *h = "[\"session\"]";
    const char *base = "\"Base\":{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},\"q\":{\"type\":\"string\"},"
                       "\"child\":{\"$ref\":\"#/$defs/Base\"}},\"required\":[\"session\",\"q\"]}";
    char want[2048];
    snprintf(want, sizeof want,
             "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"$defs\":{%s},\"properties\":{\"q\":{\"type\":\"string\"},"
             "\"child\":{\"$ref\":\"#/$defs/Base\"}},\"required\":[\"q\"]}}",
             base);
    expect(TG_EXPORT_ANTHROPIC, d, h, want, "[]");
    snprintf(want, sizeof want,
             "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"$ref\":\"#/$defs/Base_in_place\",\"$defs\":{%s,"
             "\"Base_in_place\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"},\"child\":{\"$ref\":\"#/$defs/Base\"}},"
             "\"required\":[\"q\"]}}}}",
             base);
    expect(TG_EXPORT_MCP, d, h, want, "[]");
    /* the root's definition U, used in place only, is stripped where it is and names B's copy; U stays (a
     * definition of the inputSchema), so the copy does too */
    render(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"$ref\":\"#/$defs/U\",\"properties\":{\"p\":{\"$ref\":\"#/$defs/B\"}},"
           "\"$defs\":{\"U\":{\"allOf\":[{\"$ref\":\"#/$defs/B\"}]},\"B\":{\"properties\":{\"session\":{}},\"required\":[\"session\"]}}}}",
           h);
    CHECK_MSG(strstr(out_text, "\"U\":{\"allOf\":[{\"$ref\":\"#/$defs/B_in_place\"}]}") &&
                  strstr(out_text, "\"B_in_place\":{\"properties\":{},\"required\":[]}") &&
                  strstr(out_text, "\"p\":{\"$ref\":\"#/$defs/B\"}"),
              "%s", out_text);
}

/* A recursive root, and a property that is the root's in-place branch: the
 * root shows no context parameter, each nested value (which the validator
 * checks against the original root) the root's unstripped copy, with it. */
static void hidden_nested_root_refs(void) {
    const char *d = "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                    "\"q\":{\"type\":\"string\"},\"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}},"
                    "\"required\":[\"session\",\"q\"]}}";
    const char *h = "[\"session\"]";
    const char *schema = "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"},\"children\":{\"type\":\"array\",\"items\":"
                         "{\"$ref\":\"#/$defs/root\"}}},\"required\":[\"q\"],\"$defs\":{\"root\":{\"type\":\"object\",\"properties\":{"
                         "\"session\":{\"type\":\"string\"},\"q\":{\"type\":\"string\"},\"children\":{\"type\":\"array\",\"items\":"
                         "{\"$ref\":\"#/$defs/root\"}}},\"required\":[\"session\",\"q\"]}}}";
    char want[2048];
    snprintf(want, sizeof want, "{\"name\":\"t\",\"inputSchema\":%s}", schema);
    expect(TG_EXPORT_MCP, d, h, want, "[]");
    snprintf(want, sizeof want, "{\"name\":\"t\",\"input_schema\":%s}", schema);
    expect(TG_EXPORT_ANTHROPIC, d, h, want, "[]");
    render(TG_EXPORT_GEMINI, d, h);
    CHECK_MSG(strstr(out_text, "\"items\":{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"}") &&
                  strstr(out_text, "\"required\":[\"session\",\"q\"]") && strstr(out_text, "\"required\":[\"q\"]}}"),
              "%s", out_text);
    render(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"allOf\":[{\"properties\":{\"session\":{\"type\":\"string\"},"
           "\"q\":{\"type\":\"string\"}},\"required\":[\"session\",\"q\"]}],\"properties\":{\"sub\":{\"$ref\":\"#/allOf/0\"}}}}",
           h);
    CHECK_STR(out_text, "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"sub\":{\"$ref\":\"#/$defs/root_allOf_0\"},"
                        "\"q\":{\"type\":\"string\"}},\"$defs\":{\"root_allOf_0\":{\"properties\":{\"session\":{\"type\":\"string\"},"
                        "\"q\":{\"type\":\"string\"}},\"required\":[\"session\",\"q\"]}},\"required\":[\"q\"]}}");
    /* strict merges the copy's allOf: the property keeps a copy of the branch itself */
    render(TG_EXPORT_OPENAI_STRICT,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"allOf\":[{\"properties\":{\"session\":{\"type\":\"string\"},"
           "\"q\":{\"type\":\"string\"}},\"required\":[\"session\",\"q\"]}],\"properties\":{\"sub\":{\"$ref\":\"#/allOf/0\"}}}}",
           h);
    CHECK_MSG(strstr(out_text, "\"root_allOf_0\":{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                               "\"q\":{\"type\":\"string\"}},\"required\":[\"session\",\"q\"],\"additionalProperties\":false}") &&
                  strstr(out_text, "{\"$ref\":\"#/$defs/root_allOf_0\"}"),
              "%s", out_text);
}

/* zod-to-json-schema's $refStrategy "root": pointers into the root's own
 * structure, which root normalisation removes or changes */
static void refs_into_the_root_rehomed(void) {
    const char *ship = "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"allOf\":["
                       "{\"type\":\"object\",\"properties\":{\"home\":{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"}}}},\"required\":[\"home\"]},"
                       "{\"type\":\"object\",\"properties\":{\"work\":{\"$ref\":\"#/allOf/0/properties/home\"}},\"required\":[\"work\"]}]}}";
    expect(TG_EXPORT_ANTHROPIC, ship, NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"home\":{\"type\":\"object\",\"properties\":{\"s\":"
           "{\"type\":\"string\"}}},\"work\":{\"$ref\":\"#/$defs/allOf_0_properties_home\"}},\"required\":[\"home\",\"work\"],"
           "\"$defs\":{\"allOf_0_properties_home\":{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"}}}}}}",
           "[]");
    /* a oneOf branch's, the root itself ("#"), and a chain between copies */
    render(TG_EXPORT_BEDROCK,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"oneOf\":[{\"properties\":{\"o\":{\"type\":\"object\"},"
           "\"p\":{\"$ref\":\"#/oneOf/1/properties/q\"}},\"additionalProperties\":false},{\"properties\":{\"q\":{\"$ref\":\"#/oneOf/0/properties/o\"},"
           "\"r\":{\"$ref\":\"#\"}},\"additionalProperties\":false}]}}",
           NULL);
    CHECK_MSG(strstr(out_text, "\"p\":{\"$ref\":\"#/$defs/oneOf_1_properties_q\"}") &&
                  strstr(out_text, "\"oneOf_1_properties_q\":{\"$ref\":\"#/$defs/oneOf_0_properties_o\"}") &&
                  strstr(out_text, "\"oneOf_0_properties_o\":{\"type\":\"object\"}") &&
                  strstr(out_text, "\"r\":{\"$ref\":\"#/$defs/root\"}") && strstr(out_text, "\"root\":{\"type\":\"object\",\"oneOf\""),
              "%s", out_text);
    /* OpenAI strict: a ref into a property made nullable keeps the original (not nullable) */
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"billing\":{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"}},\"required\":[\"s\"]},"
                 "\"shipping\":{\"$ref\":\"#/properties/billing\"}},\"required\":[\"shipping\"]}}",
                 NULL) == 1);
    CHECK_MSG(strstr(out_text, "\"shipping\":{\"$ref\":\"#/$defs/properties_billing\"}") &&
                  strstr(out_text, "\"properties_billing\":{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"}},\"required\":[\"s\"],\"additionalProperties\":false}"),
              "%s", out_text);
    /* a ref to a hidden parameter's schema: its copy, not a dangling pointer */
    render(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
           "\"other\":{\"$ref\":\"#/properties/session\"}}}}",
           "[\"session\"]");
    CHECK_STR(out_text, "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"other\":{\"$ref\":"
                        "\"#/$defs/properties_session\"}},\"$defs\":{\"properties_session\":{\"type\":\"string\"}}}}");
}

/* OpenAI strict refuses any keyword beside $ref: annotations go (exact), a
 * constraint there falls back to strict:false with the reason */
static void strict_ref_siblings(void) {
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"hero\":{\"$ref\":\"#/$defs/H\","
                 "\"description\":\"The hero chart\"}},\"required\":[\"hero\"],\"$defs\":{\"H\":{\"type\":\"object\","
                 "\"properties\":{\"t\":{\"type\":\"string\"}},\"required\":[\"t\"]}}}}",
                 NULL) == 1);
    CHECK_MSG(strstr(out_text, "\"hero\":{\"$ref\":\"#/$defs/H\"}") != NULL, "%s", out_text);
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"p\":{\"$ref\":\"#/$defs/H\","
                 "\"properties\":{\"note\":{\"type\":\"string\"}}}},\"required\":[\"p\"],\"$defs\":{\"H\":{\"type\":\"object\","
                 "\"properties\":{\"t\":{\"type\":\"string\"}},\"required\":[\"t\"]}}}}",
                 NULL) == 0);
    CHECK(rep_has("\"path\":\"/inputSchema/properties/p/properties\"") && rep_has("beside $ref"));
}

static void anthropic_root(void) {
    /* allOf of objects merged exactly */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"description\":\"d\",\"inputSchema\":{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
           "\"required\":[\"a\"]},{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"integer\"},\"a\":{\"type\":\"string\"}},"
           "\"required\":[\"b\"]}]}}",
           NULL,
           "{\"name\":\"t\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
           "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}}",
           "[]");
    /* conflicting property definitions: nested allOf, still exact */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"allOf\":[{\"properties\":{\"a\":{\"type\":\"string\"}}},"
           "{\"properties\":{\"a\":{\"maxLength\":3}}}]}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"allOf\":[{\"type\":\"string\"},{\"maxLength\":3}]}}}}",
           "[]");
    /* single-branch anyOf inlined */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},"
           "\"required\":[\"q\"]}]}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}}",
           "[]");
    /* top-level oneOf loosened and reported (a property one branch leaves
     * open takes any value there: root_union_never_narrower) */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\"}},\"oneOf\":["
           "{\"properties\":{\"url\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"}},\"required\":[\"url\",\"n\"],\"additionalProperties\":false},"
           "{\"properties\":{\"file\":{\"type\":\"string\"},\"n\":{\"type\":\"number\"}},\"required\":[\"file\",\"n\"],\"additionalProperties\":false}]}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\"},\"url\":{\"type\":\"string\"},"
           "\"n\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"number\"}]},\"file\":{\"type\":\"string\"}},\"required\":[\"n\"]}}",
           NULL);
    CHECK(rep_has("\"path\":\"/inputSchema/oneOf\"") && rep_has("top-level oneOf with 2 branches"));
    /* "at least one of" anyOf of required-only branches */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{}},"
           "\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}}",
           NULL, "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{}}}}", NULL);
    CHECK(rep_has("/inputSchema/anyOf"));
    /* root $ref (zod-to-json-schema with a name) inlined; draft-07 read as 2020-12 (its $schema goes) */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"$ref\":\"#/definitions/Args\",\"definitions\":{\"Args\":{\"type\":\"object\","
           "\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"],\"additionalProperties\":false}},"
           "\"$schema\":\"http://json-schema.org/draft-07/schema#\"}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"definitions\":{\"Args\":{\"type\":\"object\",\"properties\":{\"q\":"
           "{\"type\":\"string\"}},\"required\":[\"q\"],\"additionalProperties\":false}},"
           "\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"],\"additionalProperties\":false}}",
           "[]");
    /* draft-04 / draft-07 syntax rewritten as 2020-12, losslessly */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"type\":\"object\","
           "\"properties\":{\"n\":{\"type\":\"number\",\"minimum\":1,\"exclusiveMinimum\":true},"
           "\"m\":{\"type\":\"number\",\"maximum\":9,\"exclusiveMaximum\":false},"
           "\"t\":{\"type\":\"array\",\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}},"
           "\"dependencies\":{\"a\":[\"b\"],\"c\":{\"required\":[\"d\"]}}}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"exclusiveMinimum\":1},"
           "\"m\":{\"type\":\"number\",\"maximum\":9},\"t\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}},"
           "\"dependentRequired\":{\"a\":[\"b\"]},\"dependentSchemas\":{\"c\":{\"required\":[\"d\"]}}}}",
           "[]");
    /* both spellings at once: in draft-07 dependentRequired is no keyword
     * (never enforced), so dependencies alone says what holds; in 2019-09
     * both hold, joined */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
           "\"dependentRequired\":{\"a\":[\"z\"]},\"dependencies\":{\"a\":[\"b\"],\"c\":[\"d\"]}}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"dependentRequired\":{\"a\":[\"b\"],\"c\":[\"d\"]}}}",
           "[]");
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"type\":\"object\","
           "\"dependentRequired\":{\"a\":[\"z\"]},\"dependentSchemas\":{\"e\":{\"required\":[\"f\"]}},"
           "\"dependencies\":{\"a\":[\"b\",\"z\"],\"e\":{\"required\":[\"g\"]}}}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"dependentRequired\":{\"a\":[\"z\",\"b\"]},"
           "\"dependentSchemas\":{\"e\":{\"allOf\":[{\"required\":[\"f\"]},{\"required\":[\"g\"]}]}}}}",
           "[]");
    /* non-object root */
    render(TG_EXPORT_ANTHROPIC, "{\"name\":\"x\",\"inputSchema\":{\"type\":\"string\"}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\"}}");
    CHECK(rep_has("/inputSchema/type"));
}

static void openai_strict(void) {
    const char *d =
        "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"user\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"tag\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"]},"
        "\"ref\":{\"$ref\":\"#/$defs/Node\"}},\"required\":[\"id\"]},"
        "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":[\"string\",\"null\"]}}},\"maxItems\":3},"
        "\"name\":{\"type\":\"string\",\"minLength\":1,\"format\":\"email\",\"default\":\"x\"}},\"required\":[\"user\",\"list\",\"name\"],"
        "\"$defs\":{\"Node\":{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/Node\"}}}}}}";
    CHECK(render(TG_EXPORT_OPENAI_STRICT, d, NULL) == 1);
    CHECK_STR(out_text,
              "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"$defs\":{\"Node\":{\"type\":\"object\","
              "\"properties\":{\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/Node\"},{\"type\":\"null\"}]}},\"required\":[\"next\"],"
              "\"additionalProperties\":false}},\"properties\":{\"user\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
              "\"tag\":{\"type\":[\"string\",\"null\"],\"enum\":[\"a\",\"b\",null]},\"ref\":{\"anyOf\":[{\"$ref\":\"#/$defs/Node\"},{\"type\":\"null\"}]}},"
              "\"required\":[\"id\",\"tag\",\"ref\"],\"additionalProperties\":false},\"list\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
              "\"properties\":{\"v\":{\"type\":[\"string\",\"null\"]}},\"required\":[\"v\"],\"additionalProperties\":false},\"maxItems\":3},"
              "\"name\":{\"type\":\"string\",\"format\":\"email\"}},\"required\":[\"user\",\"list\",\"name\"],\"additionalProperties\":false},"
              "\"strict\":true}}");
    CHECK(rep_has("{\"tool\":\"t\",\"path\":\"/$defs/Node/properties/next\",\"nullable\":true}"));
    CHECK(rep_has("{\"tool\":\"t\",\"path\":\"/properties/user/properties/tag\",\"nullable\":true}"));
    CHECK(rep_has("{\"tool\":\"t\",\"path\":\"/properties/user/properties/ref\",\"nullable\":true}"));
    CHECK(!rep_has("/properties/list/items/properties/v\",\"nullable\"")); /* already nullable: not listed */
    CHECK(rep_has("/inputSchema/properties/list/items/properties/v\",\"issue\""));
    CHECK(rep_has("/inputSchema/properties/name/minLength"));
    CHECK(!rep_has("default"));

    /* failures fall back to strict:false with reasons */
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\","
                 "\"additionalProperties\":{\"type\":\"string\"}}}}}",
                 NULL) == 0);
    CHECK_STR(out_text, "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"m\":"
                        "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}}},\"strict\":false}}");
    CHECK(rep_has("/inputSchema/properties/m/additionalProperties") && rep_has("map"));
    CHECK(!rep_has("nullable"));
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\","
                 "\"patternProperties\":{\"^x\":{\"type\":\"string\"}},\"properties\":{\"a\":{\"type\":\"string\"}}}}}}",
                 NULL) == 0);
    CHECK(rep_has("/inputSchema/properties/m/patternProperties"));
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"m\":{\"allOf\":[{\"type\":\"string\",\"pattern\":\"a\"},"
                 "{\"pattern\":\"b\"}]}},\"required\":[\"m\"]}}",
                 NULL) == 0);
    CHECK(rep_has("/inputSchema/properties/m/allOf") && rep_has("allOf could not be merged"));
    /* an exactly mergeable nested allOf stays strict */
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"m\":{\"allOf\":[{\"type\":\"integer\",\"minimum\":1},"
                 "{\"minimum\":3}]}},\"required\":[\"m\"]}}",
                 NULL) == 1);
    CHECK(strstr(out_text, "\"m\":{\"type\":\"integer\",\"minimum\":3}") != NULL);
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":true,\"properties\":{}}}", NULL) == 0);
    CHECK(render(TG_EXPORT_OPENAI_STRICT,
                 "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{}}}}", NULL) == 0);
    CHECK(rep_has("unconstrained"));
    /* plain OpenAI keeps everything */
    render(TG_EXPORT_OPENAI, "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\","
                             "\"additionalProperties\":{\"type\":\"string\"}}}}}", NULL);
    CHECK_STR(rep_text, "[]");
}

static void gemini(void) {
    expect(TG_EXPORT_GEMINI,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
           "\"kind\":{\"const\":\"fixed\"},\"n\":{\"type\":[\"integer\",\"null\"]},\"u\":{\"type\":[\"string\",\"number\"]},"
           "\"node\":{\"$ref\":\"#/$defs/Leaf\"},\"tree\":{\"$ref\":\"#/$defs/Tree\"},"
           "\"pick\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]},"
           "\"opt\":{\"anyOf\":[{\"type\":\"string\",\"format\":\"date-time\"},{\"type\":\"null\"}],\"description\":\"when\"},"
           "\"e\":{\"enum\":[1,2]},\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
           "\"x\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"title\":\"X\",\"default\":1}},"
           "\"$defs\":{\"Leaf\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"string\"}},\"additionalProperties\":false},"
           "\"Tree\":{\"type\":\"object\",\"description\":\"a tree\",\"properties\":{\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/Tree\"}}}}}}}",
           NULL,
           "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"kind\":{\"type\":\"string\",\"enum\":[\"fixed\"]},"
           "\"n\":{\"type\":\"integer\",\"nullable\":true},\"u\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}]},"
           "\"node\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"string\"}}},"
           "\"tree\":{\"type\":\"object\",\"description\":\"a tree\",\"properties\":{\"kids\":{\"type\":\"array\",\"items\":"
           "{\"type\":\"object\",\"description\":\"a tree\"}}}},"
           "\"pick\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]},"
           "\"opt\":{\"type\":\"string\",\"format\":\"date-time\",\"description\":\"when\",\"nullable\":true},"
           "\"e\":{\"type\":\"integer\"},\"m\":{\"type\":\"object\"},\"x\":{\"type\":\"number\",\"minimum\":0}}}}",
           NULL);
    CHECK(rep_has("\"path\":\"/inputSchema/$defs/Tree/properties/kids/items/$ref\"") && rep_has("recursive $ref"));
    CHECK(rep_has("/inputSchema/properties/pick/oneOf") && rep_has("exactly one branch"));
    CHECK(rep_has("/inputSchema/properties/e/enum"));
    CHECK(rep_has("/inputSchema/properties/m/additionalProperties"));
    CHECK(rep_has("/inputSchema/properties/x/exclusiveMinimum"));
    CHECK(rep_has("Leaf/additionalProperties")); /* (false: Gemini cannot close an object; reported) */
    CHECK(!rep_has("title") && !rep_has("default"));
    CHECK(!rep_has("/kind")); /* string const -> enum is exact */
    /* allOf merged */
    expect(TG_EXPORT_GEMINI,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"allOf\":[{\"type\":\"string\"},{\"maxLength\":4}]}}}}",
           NULL, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"maxLength\":4}}}}", "[]");
    /* a root allOf branch closed by unevaluatedProperties, or by
     * additionalProperties against the root's patternProperties: merged, it
     * would admit members the original refuses; reported */
    render(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\"}},\"allOf\":"
           "[{\"properties\":{\"a\":{\"type\":\"string\"}},\"unevaluatedProperties\":false}]}}",
           NULL);
    CHECK(rep_has("no longer excludes"));
    render(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"patternProperties\":{\"^x_\":{\"type\":\"string\"}},"
           "\"allOf\":[{\"properties\":{\"a\":{\"type\":\"string\"}},\"additionalProperties\":false}]}}",
           NULL);
    CHECK(rep_has("no longer excludes"));
    /* a format on a nullable string is the string's: kept */
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"at\":{\"type\":[\"string\",\"null\"],"
                             "\"format\":\"date-time\"}}}}", NULL);
    CHECK(strstr(out_text, "\"format\":\"date-time\"") != NULL && !rep_has("format"));
    /* non-string const reported */
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"a\":{\"const\":3}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}}");
    CHECK(rep_has("/inputSchema/properties/a/const"));
    /* parameter names Gemini refuses are reported */
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"user-id\":{\"type\":\"string\"}}}}", NULL);
    CHECK(rep_has("/inputSchema/properties/user-id"));
    /* a tuple and the items after it: one anyOf of the positions and the
     * items schema, whichever keyword comes first; items false adds
     * nothing; items true or {} leaves any item possible (all reported) */
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"t\":{\"type\":\"array\","
                             "\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"items\":{\"type\":\"boolean\"}}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":"
                        "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"},{\"type\":\"boolean\"}]}}}}}");
    CHECK(rep_has("/inputSchema/properties/t/prefixItems") && rep_has("positions and of"));
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"t\":{\"type\":\"array\","
                             "\"items\":{\"type\":\"boolean\"},\"prefixItems\":[{\"type\":\"string\"}]}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":"
                        "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"boolean\"}]}}}}}");
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"t\":{\"type\":\"array\","
                             "\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"items\":false}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":"
                        "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}}}}}");
    CHECK(!rep_has("unconstrained")); /* (items false is not shown as a schema of its own) */
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"t\":{\"type\":\"array\","
                             "\"prefixItems\":[{\"type\":\"string\"}],\"items\":true}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":{}}}}}");
    CHECK(rep_has("followed by any items"));
    /* a tuple alone lets any items follow it (unless unevaluatedItems says otherwise) */
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"t\":{\"type\":\"array\","
                             "\"prefixItems\":[{\"type\":\"string\"}]}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":{}}}}}");
    CHECK(rep_has("followed by any items"));
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"properties\":{\"t\":{\"type\":\"array\","
                             "\"prefixItems\":[{\"type\":\"string\"}],\"unevaluatedItems\":false}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":"
                        "{\"type\":\"string\"}}}}}");
    /* draft-07 tuple items and additionalItems, the same */
    render(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"t\":"
                             "{\"type\":\"array\",\"items\":[{\"type\":\"string\"}],\"additionalItems\":{\"type\":\"number\"}}}}}", NULL);
    CHECK_STR(out_text, "{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":"
                        "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}]}}}}}");
}

static void zod_draft07(void) {
    const char *d =
        "{\"name\":\"search\",\"description\":\"Search\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"query\":{\"type\":\"string\",\"minLength\":1},"
        "\"limit\":{\"type\":\"number\",\"maximum\":50,\"default\":10},"
        "\"filter\":{\"anyOf\":[{\"$ref\":\"#/definitions/Filter\"},{\"type\":\"null\"}]},"
        "\"sort\":{\"type\":\"string\",\"enum\":[\"asc\",\"desc\"]}},"
        "\"required\":[\"query\",\"filter\"],\"additionalProperties\":false,"
        "\"definitions\":{\"Filter\":{\"type\":\"object\",\"properties\":{\"tag\":{\"type\":\"string\"}},"
        "\"required\":[\"tag\"],\"additionalProperties\":false}},"
        "\"$schema\":\"http://json-schema.org/draft-07/schema#\"}}";
    expect(TG_EXPORT_GEMINI, d, NULL,
           "{\"name\":\"t\",\"description\":\"Search\",\"parameters\":{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\","
           "\"minLength\":1},\"limit\":{\"type\":\"number\",\"maximum\":50},\"filter\":{\"type\":\"object\",\"properties\":{\"tag\":"
           "{\"type\":\"string\"}},\"required\":[\"tag\"],\"nullable\":true},\"sort\":{\"type\":\"string\",\"enum\":[\"asc\",\"desc\"]}},"
           "\"required\":[\"query\",\"filter\"]}}",
           "[{\"tool\":\"t\",\"path\":\"/inputSchema/definitions/Filter/additionalProperties\",\"issue\":\"\\\"additionalProperties\\\": "
           "false is not supported by Gemini; dropped\"},{\"tool\":\"t\",\"path\":\"/inputSchema/additionalProperties\",\"issue\":"
           "\"\\\"additionalProperties\\\": false is not supported by Gemini; dropped\"}]"); /* (Gemini cannot close an object) */
    CHECK(render(TG_EXPORT_OPENAI_STRICT, d, NULL) == 1);
    CHECK_STR(out_text,
              "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"description\":\"Search\",\"parameters\":{\"type\":\"object\","
              "\"definitions\":{\"Filter\":{\"type\":\"object\",\"properties\":{\"tag\":{\"type\":\"string\"}},\"required\":[\"tag\"],"
              "\"additionalProperties\":false}},\"properties\":{\"query\":{\"type\":\"string\"},\"limit\":{\"type\":[\"number\",\"null\"],"
              "\"maximum\":50},\"filter\":{\"anyOf\":[{\"$ref\":\"#/definitions/Filter\"},{\"type\":\"null\"}]},\"sort\":{\"type\":"
              "[\"string\",\"null\"],\"enum\":[\"asc\",\"desc\",null]}},\"required\":[\"query\",\"limit\",\"filter\",\"sort\"],"
              "\"additionalProperties\":false},\"strict\":true}}");
    CHECK(rep_has("/inputSchema/properties/query/minLength"));
    CHECK(rep_has("\"path\":\"/properties/limit\",\"nullable\":true"));
    CHECK(rep_has("\"path\":\"/properties/sort\",\"nullable\":true"));
    CHECK(!rep_has("\"path\":\"/properties/filter\",\"nullable\""));
    render(TG_EXPORT_ANTHROPIC, d, NULL);
    CHECK_STR(rep_text, "[]");
}

static void deep_nesting(void) {
    char buf[8192];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":");
    for (int i = 0; i < 100; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"type\":\"array\",\"items\":");
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"type\":\"string\"}");
    for (int i = 0; i < 100; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "}");
    snprintf(buf + n, sizeof buf - n, "}}}");
    render(TG_EXPORT_GEMINI, buf, NULL);
    CHECK(rep_has("deeper than 64"));
    CHECK(render(TG_EXPORT_OPENAI_STRICT, buf, NULL) == 0);
    CHECK(rep_has("deeper than 64"));
    render(TG_EXPORT_ANTHROPIC, buf, NULL);
    CHECK_STR(rep_text, "[]");
    /* mutual recursion through allOf and $ref stays bounded */
    render(TG_EXPORT_GEMINI,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/A\"}},"
           "\"$defs\":{\"A\":{\"allOf\":[{\"$ref\":\"#/$defs/B\"}]},\"B\":{\"allOf\":[{\"$ref\":\"#/$defs/A\"}]}}}}",
           NULL);
    CHECK(out_text[0] == '{');
}

static void no_arguments(void) {
    const char *d = "{\"name\":\"ping\",\"description\":\"Ping\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}";
    expect(TG_EXPORT_GEMINI, d, NULL, "{\"name\":\"t\",\"description\":\"Ping\"}", "[]");
    expect(TG_EXPORT_ANTHROPIC, d, NULL,
           "{\"name\":\"t\",\"description\":\"Ping\",\"input_schema\":{\"type\":\"object\",\"properties\":{}}}", "[]");
    CHECK(render(TG_EXPORT_OPENAI_STRICT, d, NULL) == 1);
    CHECK_STR(out_text, "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"description\":\"Ping\",\"parameters\":{\"type\":\"object\","
                        "\"properties\":{},\"required\":[],\"additionalProperties\":false},\"strict\":true}}");
    /* only hidden parameters: none left */
    expect(TG_EXPORT_GEMINI, "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"ctx\":{\"type\":\"string\"}},"
                             "\"required\":[\"ctx\"]}}",
           "[\"ctx\"]", "{\"name\":\"t\"}", "[]");
}

static void list_rendering(void) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    const cJSON *ds[2] = {parse(&a, "{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}}"),
                          parse(&a, "{\"name\":\"b\",\"description\":\"B\",\"inputSchema\":{\"type\":\"object\","
                                    "\"properties\":{\"q\":{\"type\":\"string\"}}}}")};
    const char *names[2] = {"a", "b"};
    size_t lens[2] = {1, 1};
    static const char *const expect_txt[] = {
        "{\"tools\":[{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"b\",\"description\":\"B\",\"inputSchema\":"
        "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}}]}",
        "[{\"name\":\"a\",\"input_schema\":{\"type\":\"object\"}},{\"name\":\"b\",\"description\":\"B\",\"input_schema\":{\"type\":"
        "\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}}]",
        "[{\"type\":\"function\",\"function\":{\"name\":\"a\",\"parameters\":{\"type\":\"object\"},\"strict\":false}},{\"type\":"
        "\"function\",\"function\":{\"name\":\"b\",\"description\":\"B\",\"parameters\":{\"type\":\"object\",\"properties\":{\"q\":"
        "{\"type\":\"string\"}}},\"strict\":false}}]",
        "[{\"type\":\"function\",\"function\":{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{},\"required\":[],"
        "\"additionalProperties\":false},\"strict\":true}},{\"type\":\"function\",\"function\":{\"name\":\"b\",\"description\":\"B\","
        "\"parameters\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":[\"string\",\"null\"]}},\"required\":[\"q\"],"
        "\"additionalProperties\":false},\"strict\":true}}]",
        "[{\"functionDeclarations\":[{\"name\":\"a\"},{\"name\":\"b\",\"description\":\"B\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"q\":{\"type\":\"string\"}}}}]}]"};
    for (int f = 0; f <= TG_EXPORT_GEMINI; f++) {
        tg_buf b;
        tg_buf_init(&b, libc_alloc, 0);
        CHECK(tg_export_list(&a, (tg_export_format)f, ds, names, lens, 2, &b, NULL) == 0);
        tg_buf_putc(&b, '\0');
        CHECK_STR(b.data, expect_txt[f]);
        tg_buf_free(&b);
    }
    tg_arena_free(&a);
}

/* Out-of-memory at every allocation: NULL, never a crash. */
typedef struct budget {
    long left;
} budget;

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    budget *b = ud;
    if (nsize && b->left-- <= 0) return NULL;
    return tg_alloc_libc(NULL, ptr, osize, nsize);
}

static void out_of_memory(void) {
    const char *d = "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/A\"},"
                    "\"b\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}},\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}],"
                    "\"$defs\":{\"A\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"string\"}}}}}}";
    int completed = 0;
    for (int f = 0; f <= TG_EXPORT_BEDROCK; f++) {
        for (long limit = 0; limit < 400; limit++) {
            tg_arena pa;
            tg_arena_init(&pa, libc_alloc);
            cJSON *desc = parse(&pa, d);
            budget bud = {limit};
            tg_allocator al = {budget_alloc, &bud};
            tg_arena a;
            tg_arena_init(&a, al);
            cJSON *rep = tg_json_new(&a, cJSON_Array);
            cJSON *out = rep ? tg_export_tool(&a, (tg_export_format)f, "t", 1, desc, NULL, rep, NULL) : NULL;
            /* NULL (not even the report entry fits), the tool left out with
             * one entry saying why, or the whole rendering */
            int left_out = cJSON_IsNull(out);
            if (left_out) {
                CHECK(rep->child && rep->child == rep->child->prev);
                CHECK(rep->child && strstr(tg_json_getz(rep->child, "issue")->valuestring, "out of memory"));
            }
            tg_arena_free(&a);
            tg_arena_free(&pa);
            if (out && !left_out) {
                completed++;
                break;
            }
        }
    }
    CHECK(completed == 6);
}

/* What makes a provider refuse the whole request: Anthropic a property name
 * outside ^[a-zA-Z0-9_.-]{1,64}$ (the tool is left out, reported); OpenAI
 * and Gemini an array without items, at any depth (given items {}). */
static void provider_refusals(void) {
    const char *bad_keys = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a b\":{\"type\":\"string\"}}}}";
    expect(TG_EXPORT_ANTHROPIC, bad_keys, NULL, "null",
           "[{\"tool\":\"t\",\"path\":\"/inputSchema/properties/a b\",\"issue\":\"property name is not accepted by Anthropic "
           "(^[a-zA-Z0-9_.-]{1,64}$, and one such name fails the whole request): the tool is left out of this list\"}]");
    const char *long_key = "{\"name\":\"t\",\"inputSchema\":{\"properties\":{\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\":{}}}}";
    expect(TG_EXPORT_ANTHROPIC, long_key, NULL, "null", NULL); /* 65 characters */
    const char *ok_keys = "{\"name\":\"t\",\"inputSchema\":{\"properties\":{\"a.b-c_D9\":{}}}}";
    expect(TG_EXPORT_ANTHROPIC, ok_keys, NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"a.b-c_D9\":{}}}}", "[]");
    const char *arrays = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\"},"
                         "\"u\":{\"type\":[\"string\",\"array\"]},\"o\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"array\","
                         "\"items\":{\"type\":\"array\"}}}},\"e\":{\"enum\":[{\"type\":\"array\"}]}}}}";
    expect(TG_EXPORT_OPENAI, arrays, NULL,
           "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{"
           "\"a\":{\"type\":\"array\",\"items\":{}},\"u\":{\"type\":[\"string\",\"array\"],\"items\":{}},"
           "\"o\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{}}}}},"
           "\"e\":{\"enum\":[{\"type\":\"array\"}]}}},\"strict\":false}}", "[]");
    CHECK(render(TG_EXPORT_OPENAI_STRICT, arrays, NULL) == 0);
    CHECK(rep_has("array without \\\"items\\\" cannot be expressed in strict mode"));
    render(TG_EXPORT_GEMINI, arrays, NULL);
    CHECK(strstr(out_text, "\"a\":{\"type\":\"array\",\"items\":{}}") != NULL);
}

/* A small schema whose rendering amplifies (strict mode merging allOf
 * through a recursive root, Gemini inlining) is left out of that format
 * alone, reported, and quickly: never the whole list out of memory. */
static void amplification_left_out(void) {
    /* an ordinary chain of definitions, each merging the next and reaching
     * back to the root */
    const char *strict1 =
        "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"allOf\":[{\"$ref\":\"#/$defs/D0\"}],\"properties\":{\"k"
        "ids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}},\"$defs\":{\"D0\":{\"type\":\"object\",\"properties\":{"
        "\"tenant_id\":{\"type\":\"string\"},\"p0\":{\"type\":\"string\"},\"next\":{\"$ref\":\"#/$defs/D1\"},\"up\":{\""
        "$ref\":\"#\"}},\"required\":[\"tenant_id\"],\"allOf\":[{\"$ref\":\"#/$defs/D1\"}]},\"D1\":{\"type\":\"object\""
        ",\"properties\":{\"tenant_id\":{\"type\":\"string\"},\"p1\":{\"type\":\"string\"},\"next\":{\"$ref\":\"#/$defs"
        "/D2\"},\"up\":{\"$ref\":\"#\"}},\"required\":[\"tenant_id\"],\"allOf\":[{\"$ref\":\"#/$defs/D2\"}]},\"D2\":{\""
        "type\":\"object\",\"properties\":{\"tenant_id\":{\"type\":\"string\"},\"p2\":{\"type\":\"string\"},\"next\":{\""
        "$ref\":\"#/$defs/D3\"},\"up\":{\"$ref\":\"#\"}},\"required\":[\"tenant_id\"],\"allOf\":[{\"$ref\":\"#/$defs/D3"
        "\"}]},\"D3\":{\"type\":\"object\",\"properties\":{\"tenant_id\":{\"type\":\"string\"},\"p3\":{\"type\":\"strin"
        "g\"},\"next\":{\"$ref\":\"#/$defs/D0\"},\"up\":{\"$ref\":\"#\"}},\"required\":[\"tenant_id\"]}}}}";
    const char *gem1 = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"allOf\":[{\"properties\":{\"d\":{\"items\":{\"allOf\":"
                       "[{\"$ref\":\"#/$defs/R\"}]}}}}],\"$defs\":{\"R\":{\"properties\":{\"c\":{\"$ref\":\"#\"}},\"allOf\":"
                       "[{\"properties\":{\"c\":{}},\"allOf\":[{\"$ref\":\"#\"}]}]}}}}";
    CHECK(render(TG_EXPORT_OPENAI_STRICT, strict1, NULL) == 0);
    CHECK_STR(out_text, "null");
    CHECK_STR(rep_text, "[{\"tool\":\"t\",\"path\":\"/inputSchema\",\"issue\":\"rendering the tool for this format would take "
                        "more than 8 MiB ($ref expansion or allOf merging amplifies it): the tool is left out of this list\"}]");
    render(TG_EXPORT_GEMINI, gem1, NULL);
    CHECK_STR(out_text, "null");
    CHECK(rep_has("the tool is left out of this list") && !rep_has("},{"));
    /* the list: the other tools stay, the arena memory of the failed
     * rendering is given back */
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    const cJSON *ds[3] = {parse(&a, SIMPLE), parse(&a, gem1), parse(&a, gem1)};
    const char *names[3] = {"a", "b", "c"};
    size_t lens[3] = {1, 1, 1};
    for (int f = TG_EXPORT_OPENAI_STRICT; f <= TG_EXPORT_GEMINI; f++) {
        const char *in = f == TG_EXPORT_GEMINI ? gem1 : strict1;
        ds[1] = ds[2] = parse(&a, in);
        cJSON *rep = tg_json_new(&a, cJSON_Array);
        tg_buf b;
        tg_buf_init(&b, libc_alloc, 0);
        CHECK(tg_export_list(&a, (tg_export_format)f, ds, names, lens, 3, &b, rep) == 0);
        tg_buf_putc(&b, '\0');
        CHECK(!b.failed && strstr(b.data, "\"name\":\"a\"") && !strstr(b.data, "\"name\":\"b\"") &&
              !strstr(b.data, "\"name\":\"c\""));
        tg_buf_free(&b);
        write_to(rep_text, sizeof rep_text, rep);
        CHECK(rep_has("\"tool\":\"b\"") && rep_has("\"tool\":\"c\""));
    }
    tg_arena_free(&a);
}

/* The dropped-$ref report names the ref's value. */
static void dangling_ref_reported(void) {
    const char *d = "{\"name\":\"t\",\"inputSchema\":{\"allOf\":[{\"properties\":{\"a\":{\"$ref\":\"#/properties/zzz\"}}}]}}";
    render(TG_EXPORT_OPENAI, d, NULL);
    CHECK(rep_has("$ref \\\"#/properties/zzz\\\" resolves to nothing in this rendering; dropped"));
}

/* The copy of "#" a nested recursive $ref needs names nothing the original
 * names (no second anchor through the root's definitions, no second $id). */
static void root_copy_repeats_no_name(void) {
    const char *d = "{\"name\":\"t\",\"inputSchema\":{\"properties\":{\"kids\":{\"items\":{\"$ref\":\"#\"}},\"tag\":{\"$ref\":\"#tag\"},"
                    "\"meta\":{\"$id\":\"https://ex.com/meta\"}},\"$defs\":{\"Tag\":{\"$anchor\":\"tag\"}},\"anyOf\":[{\"required\":[\"tag\"]},"
                    "{\"required\":[\"kids\"]}]}}";
    for (int f = TG_EXPORT_ANTHROPIC; f <= TG_EXPORT_BEDROCK; f++) {
        if (f == TG_EXPORT_GEMINI) continue;
        render((tg_export_format)f, d, NULL);
        CHECK_MSG(strstr(out_text, "\"root\":{") != NULL, "%s", out_text);
        const char *a = strstr(out_text, "\"$anchor\""), *i = strstr(out_text, "\"$id\"");
        CHECK_MSG(a && !strstr(a + 1, "\"$anchor\"") && i && !strstr(i + 1, "\"$id\""), "%s", out_text);
    }
    /* a nested resource resolving a reference against its $id: left out */
    const char *rel = "{\"name\":\"t\",\"inputSchema\":{\"properties\":{\"kids\":{\"items\":{\"$ref\":\"#\"}},\"meta\":{\"$id\":"
                      "\"https://ex.com/meta\",\"$defs\":{\"x\":{}},\"$ref\":\"#/$defs/x\"}},\"anyOf\":[{\"required\":[\"kids\"]},"
                      "{\"required\":[\"meta\"]}]}}";
    render(TG_EXPORT_ANTHROPIC, rel, NULL);
    CHECK_STR(out_text, "null");
    CHECK(rep_has("would repeat a nested \\\"$id\\\""));
}

/* MCP: a nested $ref to a context parameter's own schema points at a copy
 * of its original target (it would dangle after the strip). */
static void mcp_ref_to_context_param(void) {
    const char *d = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"tenant_id\":{\"type\":\"string\","
                    "\"minLength\":3},\"other\":{\"$ref\":\"#/properties/tenant_id\"}}}}";
    render(TG_EXPORT_MCP, d, "[\"tenant_id\"]");
    CHECK_STR(out_text, "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"other\":{\"$ref\":"
                        "\"#/$defs/properties_tenant_id\"}},\"$defs\":{\"properties_tenant_id\":{\"type\":\"string\","
                        "\"minLength\":3}}}}");
}

/* A root anyOf/oneOf merged into one object's properties (Anthropic and
 * Gemini refuse it at the top level) never shows a property narrower than
 * some branch allows it: definitions the branches share stay; ones that
 * differ become an anyOf of them; a property one branch leaves open (or
 * defines where the merge does not look, as in an allOf) takes any value.
 * Each looser property is reported at its definition. */
static void root_union_never_narrower(void) {
    static const tg_export_format FMTS[] = {TG_EXPORT_ANTHROPIC, TG_EXPORT_GEMINI};
    /* conflicting definitions in both branches */
    const char *conflict =
        "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"anyOf\":["
        "{\"properties\":{\"mode\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"]},\"n\":{\"type\":\"integer\",\"maximum\":5}},"
        "\"required\":[\"mode\"],\"additionalProperties\":false},"
        "{\"properties\":{\"mode\":{\"type\":\"string\",\"enum\":[\"c\"]},\"n\":{\"type\":\"integer\",\"minimum\":10}},"
        "\"required\":[\"mode\",\"n\"],\"additionalProperties\":false}]}}";
    /* identical definitions in both, each branch with one of its own */
    const char *same =
        "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"oneOf\":["
        "{\"properties\":{\"q\":{\"type\":\"string\",\"maxLength\":9},\"a\":{\"type\":\"integer\"}},\"required\":[\"q\",\"a\"],"
        "\"additionalProperties\":false},"
        "{\"properties\":{\"q\":{\"type\":\"string\",\"maxLength\":9},\"b\":{\"type\":\"boolean\"}},\"required\":[\"q\",\"b\"],"
        "\"additionalProperties\":false}]}}";
    /* a property only one branch declares while the other is open; one
     * another branch defines inside an allOf; one through a $ref */
    const char *open =
        "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"$defs\":{\"B\":{\"properties\":{\"v\":{\"type\":\"integer\"}}}},"
        "\"anyOf\":[{\"properties\":{\"url\":{\"type\":\"string\",\"description\":\"where\"},\"v\":{\"type\":\"string\"}}},"
        "{\"$ref\":\"#/$defs/B\"},{\"allOf\":[{\"properties\":{\"v\":{\"type\":\"boolean\"}}}]}]}}";
    /* (Anthropic and Gemini render these the same but for the wrapper) */
    static const char *const HEAD[] = {"{\"name\":\"t\",\"input_schema\":", "{\"name\":\"t\",\"parameters\":"};
    char want[2048];
    for (int f = 0; f < 2; f++) {
        snprintf(want, sizeof want, "%s%s}", HEAD[f],
                 "{\"type\":\"object\",\"properties\":{\"mode\":{\"anyOf\":[{\"type\":\"string\",\"enum\":[\"a\",\"b\"]},"
                 "{\"type\":\"string\",\"enum\":[\"c\"]}]},\"n\":{\"anyOf\":[{\"type\":\"integer\",\"maximum\":5},"
                 "{\"type\":\"integer\",\"minimum\":10}]}},\"required\":[\"mode\"]}");
        expect(FMTS[f], conflict, NULL, want, NULL);
        CHECK_MSG(rep_has("{\"tool\":\"t\",\"path\":\"/inputSchema/anyOf/0/properties/mode\",\"issue\":\"the top-level anyOf's "
                          "branches define this property differently: shown as an anyOf of their 2 definitions") &&
                      rep_has("\"path\":\"/inputSchema/anyOf/0/properties/n\",\"issue\":\"the top-level anyOf's branches define "
                              "this property differently") &&
                      rep_has("\"path\":\"/inputSchema/anyOf\",\"issue\":\"top-level anyOf with 2 branches"),
                  "%s", rep_text);

        snprintf(want, sizeof want, "%s%s}", HEAD[f],
                 "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\",\"maxLength\":9},\"a\":{\"type\":\"integer\"},"
                 "\"b\":{\"type\":\"boolean\"}},\"required\":[\"q\"]}");
        expect(FMTS[f], same, NULL, want,
               "[{\"tool\":\"t\",\"path\":\"/inputSchema/oneOf\",\"issue\":\"top-level oneOf with 2 branches is not accepted by "
               "this provider: the root shows the union of the branches' properties and requires only what every branch "
               "requires (that exactly one branch must match is not shown)\"}]");

        const char *open_out = f == 0 ? "{\"type\":\"object\",\"$defs\":{\"B\":{\"properties\":{\"v\":{\"type\":\"integer\"}}}},"
                                        "\"properties\":{\"url\":{\"description\":\"where\"},\"v\":{}}}"
                                      : "{\"type\":\"object\",\"properties\":{\"url\":{\"description\":\"where\"},\"v\":{}}}";
        snprintf(want, sizeof want, "%s%s}", HEAD[f], open_out);
        expect(FMTS[f], open, NULL, want, NULL);
        CHECK_MSG(rep_has("{\"tool\":\"t\",\"path\":\"/inputSchema/anyOf/0/properties/url\",\"issue\":\"shown without "
                          "constraints: the top-level anyOf's branch 1 allows any value for this property\"}") &&
                      rep_has("{\"tool\":\"t\",\"path\":\"/inputSchema/anyOf/0/properties/v\",\"issue\":\"shown without "
                              "constraints: the top-level anyOf's branch 2 allows any value for this property\"}"),
                  "%s", rep_text);
    }
    /* a report through a $ref branch names the target; a branch that
     * declares the property true allows any value; one that declares it
     * false, or closes its members, takes no part; a root property a branch
     * constrains further keeps the root's definition, reported */
    expect(TG_EXPORT_ANTHROPIC,
           "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\"}},"
           "\"$defs\":{\"A\":{\"properties\":{\"p\":{\"type\":\"integer\"},\"k\":{\"maxLength\":2},\"z\":false,\"w\":{\"type\":\"null\"}}}},"
           "\"oneOf\":[{\"$ref\":\"#/$defs/A\"},{\"properties\":{\"p\":true,\"z\":{\"type\":\"string\"},\"w\":{\"type\":\"null\"}}},"
           "{\"properties\":{\"w\":{\"type\":\"null\"}},\"additionalProperties\":false}]}}",
           NULL,
           "{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\"},\"p\":{},"
           "\"z\":{\"type\":\"string\"},\"w\":{\"type\":\"null\"}},\"$defs\":{\"A\":{\"properties\":{\"p\":{\"type\":\"integer\"},"
           "\"k\":{\"maxLength\":2},\"z\":false,\"w\":{\"type\":\"null\"}}}}}}",
           "[{\"tool\":\"t\",\"path\":\"/inputSchema/$defs/A/properties/p\",\"issue\":\"shown without constraints: the top-level "
           "oneOf's branch 1 allows any value for this property\"},"
           "{\"tool\":\"t\",\"path\":\"/inputSchema/$defs/A/properties/k\",\"issue\":\"the top-level oneOf's branch 0 defines "
           "this property too: only the root's own definition is shown\"},"
           "{\"tool\":\"t\",\"path\":\"/inputSchema/oneOf\",\"issue\":\"top-level oneOf with 3 branches is not accepted by this "
           "provider: the root shows the union of the branches' properties and requires only what every branch requires (that "
           "exactly one branch must match is not shown)\"}]");
    /* the work is per declaration, not per property and branch: 300 closed
     * branches of 20 properties each render, exact (no property looser) */
    size_t cap = 300 * 20 * 40 + 256, len = 0;
    char *big = malloc(cap);
    CHECK(big != NULL);
    if (!big) return;
    len += (size_t)snprintf(big + len, cap - len, "{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\",\"anyOf\":[");
    for (int b = 0; b < 300; b++) {
        len += (size_t)snprintf(big + len, cap - len, "%s{\"additionalProperties\":false,\"properties\":{", b ? "," : "");
        for (int q = 0; q < 20; q++)
            len += (size_t)snprintf(big + len, cap - len, "%s\"p%d_%d\":{\"type\":\"integer\"}", q ? "," : "", b, q);
        len += (size_t)snprintf(big + len, cap - len, "}}");
    }
    snprintf(big + len, cap - len, "]}}");
    for (int f = 0; f < 2; f++) {
        render(FMTS[f], big, NULL);
        CHECK_MSG(strncmp(out_text, HEAD[f], strlen(HEAD[f])) == 0 && strstr(out_text, "\"p0_0\":{\"type\":\"integer\"}"),
                  "%.300s", out_text);
        CHECK_MSG(!rep_has("properties/") && rep_has("top-level anyOf with 300 branches"), "%.300s", rep_text);
    }
    free(big);
}

int main(void) {
    provider_refusals();
    simple_tool();
    hidden_params();
    hidden_shared_definition();
    hidden_nested_root_refs();
    mcp_boolean_properties();
    refs_into_the_root_rehomed();
    strict_ref_siblings();
    anthropic_root();
    openai_strict();
    gemini();
    zod_draft07();
    deep_nesting();
    no_arguments();
    list_rendering();
    out_of_memory();
    amplification_left_out();
    dangling_ref_reported();
    root_copy_repeats_no_name();
    mcp_ref_to_context_param();
    root_union_never_narrower();
    return tg_test_finish("export");
}
