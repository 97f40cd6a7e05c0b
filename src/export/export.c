/* export.c - one MCP Tool descriptor rendered for each provider's tool
 * format: the API of export.h, and each format's tool built around its
 * schema. The schema's own stages have files of their own: export_root.c
 * (the root every format but MCP starts from; with export_merge.c,
 * export_dialect.c, export_rehome.c and export_unused.c), export_openai.c
 * (strict), export_gemini.c; export_nodes.c holds what they all build with.
 *
 * Provider rules this follows (checked 2025; OpenAI strict's are in
 * export_openai.c, Gemini's in export_gemini.c):
 *  - Anthropic Messages API rejects the whole request when a tool's
 *    input_schema has oneOf/allOf/anyOf at the top level ("input_schema does
 *    not support oneOf, allOf, or anyOf at the top level"); the root must be
 *    type object. Nested schemas may use full JSON Schema.
 *  - OpenAI function parameters: root type object, no top-level
 *    anyOf/oneOf/allOf/enum/not. */
#include <string.h>

#include "export_internal.h"
#include "hidden.h"

/* OpenAI and Gemini refuse an array schema without "items", at any depth
 * and in a type union ("array schema missing items": the whole request
 * fails): each
 * such schema of a rendering gets "items": {} (exact: any item). Only the
 * places that hold schemas are walked, never enum/const/default values. */
static void fill_items(ex_ctx *c, cJSON *s, int depth) {
    static const char *const one[] = {"items", "not", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
                                      "additionalItems", "contains", "propertyNames", "if", "then", "else", NULL};
    static const char *const list[] = {"anyOf", "oneOf", "allOf", "prefixItems", "items", NULL};
    static const char *const map[] = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", NULL};
    if (!cJSON_IsObject(s) || depth > EX_MAX_DEPTH || c->oom) return;
    const cJSON *t = tg_json_getz(s, "type");
    if ((tg_json_string_is(t, "array") || (cJSON_IsArray(t) && tg_ex_type_has(t, "array"))) && !tg_json_getz(s, "items"))
        tg_ex_put(c, s, "items", tg_ex_new(c, cJSON_Object));
    for (cJSON *kw = s->child; kw; kw = kw->next) {
        if (tg_ex_in_list(kw, one) && cJSON_IsObject(kw)) fill_items(c, kw, depth + 1);
        else if (tg_ex_in_list(kw, list) && cJSON_IsArray(kw))
            for (cJSON *b = kw->child; b; b = b->next) fill_items(c, b, depth + 1);
        else if (tg_ex_in_list(kw, map) && cJSON_IsObject(kw))
            for (cJSON *b = kw->child; b; b = b->next) fill_items(c, b, depth + 1);
    }
}

/* Anthropic's (and Bedrock's) rule for the keys of input_schema.properties:
 * ^[a-zA-Z0-9_.-]{1,64}$ (one key outside it fails the whole request). */
static int anthropic_key_ok(const char *s, size_t n) {
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '.' || ch == '-'))
            return 0;
    }
    return 1;
}

/* 1 when a root property name fails ok (a provider refuses the whole
 * request for one), reported at its place with msg. */
static int refused_name(ex_ctx *c, const cJSON *props, const ex_path *root, int (*ok)(const char *, size_t),
                        const char *msg) {
    for (const cJSON *pr = cJSON_IsObject(props) ? props->child : NULL; pr; pr = pr->next)
        if (!ok(pr->string, tg_json_strlen(pr->string))) {
            ex_path pp = {root, "properties", 10, 0};
            ex_path px = {&pp, pr->string, tg_json_strlen(pr->string), 0};
            tg_ex_note(c, &px, msg);
            return 1;
        }
    return 0;
}

/* MCP's Tool type holds each root "properties" value of inputSchema and
 * outputSchema as an object ({[key: string]: object}), and the SDK's clients
 * refuse a whole tools/list for one boolean there. A boolean subschema has an
 * exact object form: true is {} and false is {"not": {}}. */
static void object_properties(ex_ctx *c, cJSON *schema) {
    cJSON *props = cJSON_IsObject(schema) ? tg_json_getz(schema, "properties") : NULL;
    if (!cJSON_IsObject(props)) return;
    for (cJSON *p = props->child; p; p = p->next) {
        if (!cJSON_IsBool(p)) continue;
        cJSON *o = tg_ex_new(c, cJSON_Object);
        if (!o || (cJSON_IsFalse(p) && !tg_ex_put(c, o, "not", tg_ex_new(c, cJSON_Object)))) return;
        tg_ex_replace(props, p, o);
        p = o;
    }
}

static cJSON *render_mcp(ex_ctx *c, const cJSON *d, const cJSON *hidden) {
    cJSON *out = tg_ex_clone(c, d);
    if (!out) return NULL;
    out->string = NULL;
    cJSON *nm = tg_ex_str(c, c->name, c->name_len);
    if (!nm) return NULL;
    cJSON *old = tg_json_getz(out, "name");
    if (old) tg_ex_replace(out, old, nm);
    else tg_ex_prepend(c, out, "name", nm);
    cJSON *is = tg_json_getz(out, "inputSchema");
    if (is && tg_hidden_strip(c->a, is, hidden)) c->oom = 1;
    /* a nested $ref to a context parameter's own schema
     * ("#/properties/tenant_id") would dangle: pointed at a copy of its
     * original target, as in the other formats */
    ex_path root = {NULL, "/inputSchema", 12, 1};
    if (cJSON_IsObject(is) && cJSON_IsArray(hidden) && hidden->child && !c->oom) tg_ex_rehome_refs(c, is, c->doc, &root, 1);
    object_properties(c, is);
    object_properties(c, tg_json_getz(out, "outputSchema"));
    return c->oom ? NULL : out;
}

static void put_description(ex_ctx *c, cJSON *out, const cJSON *d) {
    const cJSON *desc = tg_json_getz(d, "description");
    if (cJSON_IsString(desc)) tg_ex_putclone(c, out, desc);
}

/* OpenAI refuses a whole request whose function description is over 1,024
 * characters (string_above_max_length): cut to 1,023 UTF-16 units and "…". */
#define OPENAI_DESCRIPTION_MAX 1024
static void put_openai_description(ex_ctx *c, cJSON *out, const cJSON *d) {
    const cJSON *desc = tg_json_getz(d, "description");
    if (!cJSON_IsString(desc)) return;
    const unsigned char *s = (const unsigned char *)desc->valuestring;
    size_t n = tg_json_strlen(desc->valuestring), i = 0, units = 0;
    while (i < n) {
        size_t k = s[i] < 0x80 ? 1 : s[i] < 0xE0 ? 2 : s[i] < 0xF0 ? 3 : 4;
        size_t u = k == 4 ? 2 : 1;
        if (units + u > OPENAI_DESCRIPTION_MAX - 1) break;
        units += u;
        i += k;
    }
    if (i >= n) {
        tg_ex_putclone(c, out, desc);
        return;
    }
    char *cut = tg_arena_alloc(c->a, i + 4);
    if (!cut) {
        c->oom = 1;
        return;
    }
    memcpy(cut, s, i);
    memcpy(cut + i, "\xE2\x80\xA6", 3);
    ex_path p = {NULL, "/description", 12, 1};
    tg_ex_note(c, &p, "description cut to OpenAI's limit of 1,024 characters");
    tg_ex_put(c, out, "description", tg_ex_str(c, cut, i + 3));
}

static cJSON *render_tool(ex_ctx *c, tg_export_format fmt, const cJSON *descriptor, const cJSON *hidden,
                          cJSON *report, int *strict_ok) {
    if (strict_ok) *strict_ok = 0;
    if (!cJSON_IsObject(descriptor)) descriptor = NULL;
    const cJSON *in = descriptor ? tg_json_getz(descriptor, "inputSchema") : NULL;
    c->doc = in;
    ex_path root = {NULL, "/inputSchema", 12, 1};

    if (fmt == TG_EXPORT_MCP) {
        if (!descriptor) {
            cJSON *o = tg_ex_new(c, cJSON_Object);
            tg_ex_put(c, o, "name", tg_ex_str(c, c->name, c->name_len));
            cJSON *is = tg_ex_put(c, o, "inputSchema", tg_ex_new(c, cJSON_Object));
            tg_ex_put(c, is, "type", tg_ex_str(c, "object", 6));
            tg_ex_note(c, &root, "descriptor is not an object: rendered as a tool without arguments");
            return c->oom ? NULL : o;
        }
        return render_mcp(c, descriptor, hidden);
    }

    cJSON *schema = tg_ex_normalize_root(c, in, hidden, &root);
    if (!schema) return NULL;
    cJSON *out = tg_ex_new(c, cJSON_Object);
    if (!out) return NULL;

    if (fmt == TG_EXPORT_ANTHROPIC || fmt == TG_EXPORT_BEDROCK) {
        /* a key Anthropic refuses would fail every tool of the request: this
         * one is left out (a JSON null), and the report says why */
        if (refused_name(c, tg_json_getz(schema, "properties"), &root, anthropic_key_ok,
                         "property name is not accepted by Anthropic (^[a-zA-Z0-9_.-]{1,64}$, and one such name fails "
                         "the whole request): the tool is left out of this list"))
            return c->oom ? NULL : tg_ex_new(c, cJSON_NULL);
        if (fmt == TG_EXPORT_BEDROCK) {
            cJSON *spec = tg_ex_put(c, out, "toolSpec", tg_ex_new(c, cJSON_Object));
            if (!spec) return NULL;
            tg_ex_put(c, spec, "name", tg_ex_str(c, c->name, c->name_len));
            const cJSON *desc = tg_json_getz(descriptor, "description");
            if (cJSON_IsString(desc) && desc->valuestring[0]) tg_ex_putclone(c, spec, desc); /* (at least 1 character) */
            cJSON *is = tg_ex_put(c, spec, "inputSchema", tg_ex_new(c, cJSON_Object));
            if (!is) return NULL;
            tg_ex_put(c, is, "json", schema);
            return c->oom ? NULL : out;
        }
        tg_ex_put(c, out, "name", tg_ex_str(c, c->name, c->name_len));
        put_description(c, out, descriptor);
        tg_ex_put(c, out, "input_schema", schema);
    } else if (fmt == TG_EXPORT_OPENAI || fmt == TG_EXPORT_OPENAI_STRICT) {
        cJSON *params = schema;
        int strict = 0;
        if (fmt == TG_EXPORT_OPENAI_STRICT) {
            cJSON *st = tg_ex_openai_strict(c, schema, &root, report);
            if (c->oom) return NULL;
            if (st) {
                strict = 1;
                params = st;
            }
            if (strict_ok) *strict_ok = strict;
        }
        if (!strict) fill_items(c, params, 0);
        tg_ex_put(c, out, "type", tg_ex_str(c, "function", 8));
        cJSON *fn = tg_ex_put(c, out, "function", tg_ex_new(c, cJSON_Object));
        tg_ex_put(c, fn, "name", tg_ex_str(c, c->name, c->name_len));
        put_openai_description(c, fn, descriptor);
        tg_ex_put(c, fn, "parameters", params);
        tg_ex_put(c, fn, "strict", tg_ex_new(c, strict ? cJSON_True : cJSON_False));
    } else if (fmt == TG_EXPORT_GEMINI) {
        tg_ex_put(c, out, "name", tg_ex_str(c, c->name, c->name_len));
        put_description(c, out, descriptor);
        cJSON *g = tg_ex_gemini_schema(c, schema, &root);
        if (!g) return NULL;
        fill_items(c, g, 0); /* Gemini refuses an array without items too ("...items: missing field") */
        const cJSON *props = tg_json_getz(g, "properties");
        if (refused_name(c, props, &root, tg_ex_gemini_name_ok,
                         "parameter name is not accepted by Gemini (letters, digits and underscores, up to 64, not "
                         "starting with a digit): the tool is left out of this list"))
            return c->oom ? NULL : tg_ex_new(c, cJSON_NULL);
        /* no arguments: parameters omitted */
        int empty = !props;
        for (const cJSON *kw = g->child; kw && empty; kw = kw->next)
            if (!tg_json_key_is(kw, "type") && !tg_json_key_is(kw, "description")) empty = 0;
        if (!empty) tg_ex_put(c, out, "parameters", g);
    } else {
        return NULL;
    }
    return c->oom ? NULL : out;
}

/* A rendering's context, fresh: the tool name its report entries carry. */
static void ctx_init(ex_ctx *c, tg_arena *arena, const char *name, size_t name_len, cJSON *report) {
    memset(c, 0, sizeof *c);
    c->a = arena;
    c->name = name ? name : "";
    c->name_len = name ? name_len : 0;
    c->report = report;
    c->used0 = arena->used;
}

cJSON *tg_export_tool(tg_arena *arena, tg_export_format fmt, const char *name, size_t name_len,
                      const cJSON *descriptor, const cJSON *hidden, cJSON *report, int *strict_ok) {
    ex_ctx c;
    ctx_init(&c, arena, name, name_len, report);
    /* what this rendering adds (to the arena and to the report) can be taken
     * back when the tool is left out */
    tg_arena_mark mark = tg_arena_save(arena);
    cJSON *last = report && report->child ? report->child->prev : NULL;
    cJSON *out = render_tool(&c, fmt, descriptor, hidden, report, strict_ok);
    if (out) return out;
    /* Out of memory or past the per-tool bound: one tool must not fail the
     * whole list, so it is left out of this format with one entry saying
     * why (its partial entries go with the rendering's memory). */
    if (strict_ok) *strict_ok = 0;
    if (report) {
        if (last) {
            last->next = NULL;
            report->child->prev = last;
        } else report->child = NULL;
    }
    tg_arena_rewind(arena, mark);
    int over = c.over;
    ctx_init(&c, arena, name, name_len, report);
    ex_path root = {NULL, "/inputSchema", 12, 1};
    tg_ex_note(&c, &root,
               over == 1   ? "rendering the tool for this format would take more than " TG_EXPORT_MAX_BYTES_TEXT
                        " ($ref expansion or allOf merging amplifies it): the tool is left out of this list"
               : over == 2 ? "rendering the tool for this format would take more than " TG_EXPORT_MAX_STEPS_TEXT
                        " schema nodes ($ref expansion or allOf merging amplifies it): the tool is left out of this list"
               : over == 3 ? "a copy of a $ref target this format needs would repeat a nested \"$id\" whose resource "
                             "resolves references against it: the tool is left out of this list"
                           : "out of memory rendering the tool for this format: the tool is left out of this list");
    return c.oom ? NULL : tg_ex_new(&c, cJSON_NULL);
}

int tg_export_list(tg_arena *arena, tg_export_format fmt, const cJSON *const *descriptors,
                   const char *const *names, const size_t *name_lens, size_t n, tg_buf *out,
                   cJSON *report) {
    cJSON *arr = tg_json_new(arena, cJSON_Array);
    if (!arr) return -1;
    for (size_t i = 0; i < n; i++) {
        int ok;
        cJSON *t = tg_export_tool(arena, fmt, names[i], name_lens[i], descriptors[i], NULL, report, &ok);
        if (!t) return -1;
        if (!cJSON_IsNull(t)) tg_json_append(arr, t); /* (null: left out, reported) */
    }
    cJSON *top = arr;
    if (fmt == TG_EXPORT_MCP || fmt == TG_EXPORT_GEMINI) {
        cJSON *wrap = tg_json_new(arena, cJSON_Object);
        if (!wrap) return -1;
        if (tg_json_set_key(arena, arr, fmt == TG_EXPORT_MCP ? "tools" : "functionDeclarations",
                            fmt == TG_EXPORT_MCP ? 5 : 20))
            return -1;
        tg_json_append(wrap, arr);
        top = wrap;
        if (fmt == TG_EXPORT_GEMINI) {
            top = tg_json_new(arena, cJSON_Array);
            if (!top) return -1;
            tg_json_append(top, wrap);
        }
    }
    return tg_json_write(out, top);
}
