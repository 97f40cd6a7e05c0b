/* export_gemini.c - a schema rendered as Gemini's parameters.
 *
 * Gemini's rules (checked 2025): FunctionDeclaration.parameters is a select
 * subset of the OpenAPI 3.0 Schema object: type, format (per type: string
 * date-time/enum, integer int32/int64, number float/double), description,
 * nullable, enum (strings), properties, required, items, min/maxItems,
 * minimum/maximum, min/maxLength, pattern, anyOf; no $ref, oneOf, allOf,
 * const, additionalProperties; "for function with no parameters, this can
 * be left unset"; parameter names match [A-Za-z_][A-Za-z0-9_]{0,63}.
 *
 * $refs are inlined: recursion is caught by a stack of the targets being
 * expanded, kept on the C stack, and the expansions of one rendering are
 * bounded by EX_MAX_EXPANSIONS. */
#include <stdio.h>
#include <string.h>

#include "export_internal.h"

#define EX_MAX_EXPANSIONS 2000

typedef struct ex_refs {
    const cJSON *target;
    const struct ex_refs *up;
} ex_refs;

static int in_list_str(const cJSON *v, const char *const *list) {
    for (; *list; list++)
        if (tg_json_string_is(v, *list)) return 1;
    return 0;
}

/* The formats Gemini accepts on a node of one type (type: the rendering's,
 * NULL when none or several; "only 'enum' and 'date-time' are supported for
 * STRING type"): anything else fails the whole request. */
static int gem_format_ok(const cJSON *format, const cJSON *type) {
    static const char *const STRING[] = {"date-time", "enum", NULL}, *const INTEGER[] = {"int32", "int64", NULL},
                             *const NUMBER[] = {"float", "double", NULL};
    const char *const *ok = !type                      ? NULL
                            : tg_json_string_is(type, "string")  ? STRING
                            : tg_json_string_is(type, "integer") ? INTEGER
                            : tg_json_string_is(type, "number")  ? NUMBER
                                                      : NULL;
    return ok && in_list_str(format, ok);
}

static const char *const k_gem_keep[] = {"format", "description", "minimum", "maximum", "minLength",
                                         "maxLength", "pattern", "minItems", "maxItems", NULL};
static const char *const k_gem_drop_loss[] = {"multipleOf", "uniqueItems", "contains", "minContains",
                                              "maxContains", "minProperties", "maxProperties",
                                              "patternProperties", "propertyNames", "not", "if", "then",
                                              "else", "dependentSchemas", "dependentRequired",
                                              "dependencies", "$dynamicRef", "$recursiveRef", NULL};

static int is_null_branch(const cJSON *b) {
    if (!cJSON_IsObject(b)) return 0;
    const cJSON *t = tg_json_getz(b, "type"), *cst = tg_json_getz(b, "const"), *en = tg_json_getz(b, "enum");
    int n = tg_ex_arr_len(b);
    if (t && n == 1) return tg_json_string_is(t, "null") || (cJSON_IsArray(t) && tg_ex_arr_len(t) == 1 && tg_json_string_is(t->child, "null"));
    if (cst && n == 1) return cJSON_IsNull(cst);
    if (en && n == 1) return cJSON_IsArray(en) && tg_ex_arr_len(en) == 1 && cJSON_IsNull(en->child);
    return 0;
}

static int only_annotations(const cJSON *s, const char *except1, const char *except2) {
    for (const cJSON *kw = s->child; kw; kw = kw->next)
        if (!tg_ex_in_list(kw, tg_ex_annotations) && !tg_json_key_is(kw, except1) && !tg_json_key_is(kw, except2)) return 0;
    return 1;
}

static cJSON *gem_node(ex_ctx *c, const cJSON *s, const ex_path *p, int depth, const ex_refs *stack);

static cJSON *gem_sub(ex_ctx *c, const cJSON *s, const ex_path *p, const char *k, size_t kn, int depth,
                      const ex_refs *stack) {
    ex_path q = {p, k, kn, 0};
    return gem_node(c, s, &q, depth + 1, stack);
}

static void set_bool(ex_ctx *c, cJSON *obj, const char *key) {
    cJSON *x = tg_json_getz(obj, key);
    if (x) tg_json_detach(obj, x);
    tg_ex_put(c, obj, key, tg_ex_new(c, cJSON_True));
}

static cJSON *gem_node(ex_ctx *c, const cJSON *s, const ex_path *p, int depth, const ex_refs *stack) {
    if (c->oom || tg_ex_step(c)) return NULL;
    if (tg_ex_too_deep(c, p, depth)) return tg_ex_new(c, cJSON_Object);
    if (cJSON_IsFalse(s)) tg_ex_note(c, p, "schema false (nothing is valid) shown as an unconstrained value");
    if (!cJSON_IsObject(s)) return tg_ex_new(c, cJSON_Object);

    /* $ref: inlined (with its siblings merged in) unless recursive */
    const cJSON *ref = tg_json_getz(s, "$ref");
    if (ref) {
        const cJSON *t = tg_ex_resolve_ref(c->doc, ref);
        const char *rs = cJSON_IsString(ref) ? ref->valuestring : "";
        size_t rn = cJSON_IsString(ref) ? tg_json_strlen(ref->valuestring) : 0;
        ex_path rp = {p, "$ref", 4, 0};
        if (!t) {
            tg_ex_notes(c, &rp, "$ref \"%.*s\" cannot be resolved locally: shown as an unconstrained value", rs, rn);
            cJSON *rest = tg_ex_clone(c, s);
            if (!rest) return NULL;
            tg_ex_remove(rest, "$ref");
            return gem_node(c, rest, p, depth + 1, stack);
        }
        int recursive = 0;
        for (const ex_refs *r = stack; r; r = r->up)
            if (r->target == t) recursive = 1;
        if (recursive || ++c->expansions > EX_MAX_EXPANSIONS) {
            const cJSON *tt = cJSON_IsObject(t) ? tg_json_getz(t, "type") : NULL;
            const char *ty = cJSON_IsString(tt) && !tg_json_string_is(tt, "null") ? tt->valuestring : "object";
            tg_ex_notes(c, &rp, recursive ? "recursive $ref \"%.*s\" cannot be inlined: shown as {\"type\":\"object\"} without its structure"
                                          : "$ref \"%.*s\" not inlined (too many $ref expansions): shown without its structure",
                        rs, rn);
            cJSON *o = tg_ex_new(c, cJSON_Object);
            tg_ex_put(c, o, "type", tg_ex_str(c, ty, strlen(ty)));
            const cJSON *d = tg_json_getz(s, "description");
            if (!d && cJSON_IsObject(t)) d = tg_json_getz(t, "description");
            if (cJSON_IsString(d)) tg_ex_putclone(c, o, d);
            return o;
        }
        cJSON *merged = tg_ex_clone(c, s);
        if (!merged) return NULL;
        tg_ex_remove(merged, "$ref");
        tg_ex_merge(c, merged, t, &rp, depth + 1);
        ex_refs here = {t, stack};
        /* report paths follow the target when $ref stands alone */
        ex_path root = {NULL, "/inputSchema", 12, 1};
        ex_path tp = {&root, rs + 1, rn - 1, 1};
        return gem_node(c, merged, only_annotations(s, "$ref", "$ref") ? &tp : p, depth + 1, &here);
    }
    /* allOf: merged */
    if (tg_json_getz(s, "allOf")) {
        cJSON *merged = tg_ex_clone(c, s);
        if (!merged) return NULL;
        cJSON *all = tg_json_getz(merged, "allOf");
        tg_json_detach(merged, all);
        ex_path pa = {p, "allOf", 5, 0};
        for (const cJSON *b = cJSON_IsArray(all) ? all->child : NULL; b; b = b->next)
            tg_ex_merge(c, merged, b, &pa, depth + 1);
        return gem_node(c, merged, p, depth + 1, stack);
    }

    int nullable = 0;
    /* anyOf / oneOf: null branches become nullable; one branch is inlined */
    const cJSON *any = tg_json_getz(s, "anyOf"), *one = tg_json_getz(s, "oneOf");
    const cJSON *alts = cJSON_IsArray(any) ? any : cJSON_IsArray(one) ? one : NULL;
    if (cJSON_IsArray(any) && cJSON_IsArray(one)) {
        ex_path po = {p, "oneOf", 5, 0};
        tg_ex_note(c, &po, "oneOf next to anyOf cannot be shown (one anyOf per schema): oneOf dropped");
    }
    int n_alts = 0;
    const cJSON *single = NULL;
    for (const cJSON *b = alts ? alts->child : NULL; b; b = b->next) {
        if (is_null_branch(b)) nullable = 1;
        else {
            n_alts++;
            single = b;
        }
    }
    if (alts == one && n_alts >= 2) {
        ex_path po = {p, "oneOf", 5, 0};
        tg_ex_note(c, &po, "oneOf rendered as anyOf: that exactly one branch must match is not shown");
    }
    if (alts && n_alts == 1 && only_annotations(s, "anyOf", alts == one ? "oneOf" : "anyOf")) {
        int idx = 0;
        for (const cJSON *b = alts->child; b != single; b = b->next) idx++;
        char ib[24];
        int ibn = snprintf(ib, sizeof ib, "%d", idx);
        ex_path pk = {p, alts->string, tg_json_strlen(alts->string), 0};
        cJSON *r = gem_sub(c, single, &pk, ib, (size_t)ibn, depth, stack);
        if (!r) return NULL;
        const cJSON *d = tg_json_getz(s, "description");
        if (cJSON_IsString(d)) {
            tg_ex_remove(r, "description");
            tg_ex_putclone(c, r, d);
        }
        if (nullable) set_bool(c, r, "nullable");
        return c->oom ? NULL : r;
    }

    cJSON *out = tg_ex_new(c, cJSON_Object);
    if (!out) return NULL;
    /* type */
    const cJSON *type = tg_json_getz(s, "type");
    if (!type && !alts) type = tg_ex_infer_type(c, s);
    if (c->oom) return NULL;
    int n_types = 0;
    const cJSON *only_type = NULL;
    if (cJSON_IsString(type)) {
        if (tg_json_string_is(type, "null")) nullable = 1;
        else n_types = 1, only_type = type;
    } else if (cJSON_IsArray(type)) {
        for (const cJSON *t = type->child; t; t = t->next) {
            if (tg_json_string_is(t, "null")) nullable = 1;
            else if (cJSON_IsString(t)) n_types++, only_type = t;
        }
    }
    if (n_types == 1) tg_ex_put(c, out, "type", tg_ex_str(c, only_type->valuestring, tg_json_strlen(only_type->valuestring)));
    else if (n_types == 0 && type && !alts) {
        ex_path pt = {p, "type", 4, 0};
        tg_ex_note(c, &pt, "type null alone is not expressible: shown as a nullable value of any type");
    }
    int has_string_type = n_types == 0 || tg_ex_type_has(type, "string");

    for (const cJSON *kw = s->child; kw && !c->oom; kw = kw->next) {
        size_t kn = tg_json_strlen(kw->string);
        ex_path rk = {p, kw->string, kn, 0};
        if (tg_json_key_is(kw, "type")) {
            if (n_types >= 2 && !alts) {
                cJSON *arr = tg_ex_put(c, out, "anyOf", tg_ex_new(c, cJSON_Array));
                for (const cJSON *t = kw->child; t && arr; t = t->next) {
                    if (tg_json_string_is(t, "null") || !cJSON_IsString(t)) continue;
                    cJSON *b = tg_ex_new(c, cJSON_Object);
                    tg_ex_put(c, b, "type", tg_ex_clone(c, t));
                    if (b) tg_json_append(arr, b);
                }
            } else if (n_types >= 2) {
                tg_ex_note(c, &rk, "a type union next to anyOf cannot be shown: type dropped");
            }
        } else if (tg_json_key_is(kw, "properties")) {
            if (!cJSON_IsObject(kw) || !kw->child) continue;
            cJSON *np = tg_ex_put(c, out, "properties", tg_ex_new(c, cJSON_Object));
            for (const cJSON *pr = kw->child; pr && np; pr = pr->next) {
                size_t pn = tg_json_strlen(pr->string);
                tg_ex_putn(c, np, pr->string, pn, gem_sub(c, pr, &rk, pr->string, pn, depth, stack));
            }
            if (!tg_json_getz(out, "type") && !type) tg_ex_prepend(c, out, "type", tg_ex_str(c, "object", 6));
        } else if (tg_json_key_is(kw, "required")) {
            const cJSON *props = tg_json_getz(s, "properties");
            cJSON *req = tg_ex_new(c, cJSON_Array);
            for (const cJSON *r = cJSON_IsArray(kw) ? kw->child : NULL; r && req; r = r->next) {
                if (!cJSON_IsString(r)) continue;
                if (tg_json_get(props, r->valuestring, tg_json_strlen(r->valuestring))) tg_json_append(req, tg_ex_clone(c, r));
                else tg_ex_notes(c, &rk, "required names \"%.*s\", which is not a declared property; not shown",
                                 r->valuestring, tg_json_strlen(r->valuestring));
            }
            if (req && req->child) tg_ex_put(c, out, "required", req);
        } else if (tg_json_key_is(kw, "items") || tg_json_key_is(kw, "prefixItems")) {
            /* one item schema: a tuple's positions and the items after them
             * (2020-12 "items" beside "prefixItems") become one anyOf, all
             * at the first of the two keywords; "items": false after a
             * tuple adds nothing (no further items), and true or {} makes
             * any item possible */
            const cJSON *tuple = tg_json_getz(s, "prefixItems"), *rest = tg_json_getz(s, "items");
            if (cJSON_IsArray(rest)) tuple = rest, rest = tg_json_getz(s, "additionalItems"); /* (draft-07 tuple items left as written) */
            if (!cJSON_IsArray(tuple) || !tuple->child) tuple = NULL;
            if (!rest) rest = tg_json_getz(s, "unevaluatedItems"); /* (what the items after the tuple meet, if anything) */
            if (tg_json_getz(out, "items")) continue;
            if (tuple) {
                /* no schema for the items after the positions: any item may follow */
                int open = !rest || cJSON_IsTrue(rest) || (cJSON_IsObject(rest) && !rest->child);
                int more = rest && !cJSON_IsFalse(rest) && !open;
                ex_path tk = {p, tuple->string, tg_json_strlen(tuple->string), 0};
                if (open) tg_ex_notek(c, &tk, "tuple \"%.*s\" followed by any items: shown as an array of any items", tuple);
                else if (more) tg_ex_notek(c, &tk, "tuple \"%.*s\" shown as one item schema (anyOf of the positions and of \"items\")", tuple);
                else tg_ex_notek(c, &tk, "tuple \"%.*s\" shown as one item schema (anyOf of the positions)", tuple);
                cJSON *fake = tg_ex_new(c, cJSON_Object);
                cJSON *arr = open ? NULL : tg_ex_put(c, fake, "anyOf", tg_ex_new(c, cJSON_Array));
                for (const cJSON *b = tuple->child; b && arr; b = b->next)
                    if (!tg_ex_arr_has(arr, b)) tg_json_append(arr, tg_ex_clone(c, b));
                if (more && arr && !tg_ex_arr_has(arr, rest)) tg_json_append(arr, tg_ex_clone(c, rest));
                tg_ex_put(c, out, "items", gem_node(c, fake, &tk, depth + 1, stack));
            } else if (tg_json_key_is(kw, "items")) {
                tg_ex_put(c, out, "items", gem_sub(c, kw, p, "items", 5, depth, stack));
            }
            if (!type && !tg_json_getz(out, "type")) tg_ex_prepend(c, out, "type", tg_ex_str(c, "array", 5));
        } else if (tg_json_key_is(kw, "anyOf") || tg_json_key_is(kw, "oneOf")) {
            if (kw != alts) continue;
            cJSON *arr = tg_ex_put(c, out, "anyOf", tg_ex_new(c, cJSON_Array));
            int i = 0;
            for (const cJSON *b = kw->child; b && arr; b = b->next, i++) {
                if (is_null_branch(b)) continue;
                char ib[24];
                int ibn = snprintf(ib, sizeof ib, "%d", i);
                cJSON *x = gem_sub(c, b, &rk, ib, (size_t)ibn, depth, stack);
                if (x) tg_json_append(arr, x);
            }
        } else if (tg_json_key_is(kw, "enum")) {
            int bad = 0;
            cJSON *en = tg_ex_new(c, cJSON_Array);
            for (const cJSON *v = cJSON_IsArray(kw) ? kw->child : NULL; v && en; v = v->next) {
                if (cJSON_IsNull(v)) nullable = 1;
                else if (cJSON_IsString(v)) tg_json_append(en, tg_ex_clone(c, v));
                else bad = 1;
            }
            if (bad || !has_string_type) tg_ex_notek(c, &rk, "\"%.*s\" with non-string values is not supported by Gemini; dropped", kw);
            else if (en && en->child) {
                tg_ex_put(c, out, "enum", en);
                if (!tg_json_getz(out, "type")) tg_ex_prepend(c, out, "type", tg_ex_str(c, "string", 6));
            }
        } else if (tg_json_key_is(kw, "const")) {
            if (cJSON_IsString(kw) && has_string_type) {
                cJSON *en = tg_ex_new(c, cJSON_Array);
                cJSON *v = tg_ex_clone(c, kw);
                if (!en || !v) return NULL;
                v->string = NULL;
                tg_json_append(en, v);
                tg_ex_put(c, out, "enum", en);
                if (!tg_json_getz(out, "type")) tg_ex_prepend(c, out, "type", tg_ex_str(c, "string", 6));
            } else if (cJSON_IsNull(kw)) {
                nullable = 1;
                tg_ex_note(c, &rk, "const null is not expressible: shown as a nullable value");
            } else {
                tg_ex_notes(c, &rk, "const of type %.*s is not supported by Gemini (string enums only); dropped",
                            tg_ex_value_type(kw), strlen(tg_ex_value_type(kw)));
            }
        } else if (tg_json_key_is(kw, "exclusiveMinimum") || tg_json_key_is(kw, "exclusiveMaximum")) {
            int is_min = tg_json_key_is(kw, "exclusiveMinimum");
            const char *incl = is_min ? "minimum" : "maximum";
            if (cJSON_IsNumber(kw)) {
                const cJSON *inc = tg_json_getz(s, incl);
                int use = !cJSON_IsNumber(inc) || (is_min ? kw->valuedouble >= inc->valuedouble : kw->valuedouble <= inc->valuedouble);
                if (use) {
                    tg_ex_remove(out, incl);
                    tg_ex_put(c, out, incl, tg_ex_clone(c, kw));
                }
            }
            tg_ex_notek(c, &rk, "\"%.*s\" shown as an inclusive bound", kw);
        } else if (tg_json_key_is(kw, "minimum") || tg_json_key_is(kw, "maximum")) {
            if (!tg_json_get(out, kw->string, tg_json_strlen(kw->string))) {
                const cJSON *ex = tg_json_getz(s, tg_json_key_is(kw, "minimum") ? "exclusiveMinimum" : "exclusiveMaximum");
                int mn = tg_json_key_is(kw, "minimum");
                if (cJSON_IsNumber(ex) && (mn ? ex->valuedouble >= kw->valuedouble : ex->valuedouble <= kw->valuedouble)) continue;
                tg_ex_putclone(c, out, kw);
            }
        } else if (tg_json_key_is(kw, "nullable")) {
            /* (OpenAPI's keyword: JSON Schema ignores it, so the call's check
             * refuses null all the same; Gemini's nullable comes from a null
             * in the type or an anyOf branch only) */
        } else if (tg_json_key_is(kw, "format") && !gem_format_ok(kw, n_types == 1 ? only_type : NULL)) {
            tg_ex_notes(c, &rk, "format \"%.*s\" is not accepted by Gemini for this type (strings: date-time, enum; integers: "
                                "int32, int64; numbers: float, double); dropped", cJSON_IsString(kw) ? kw->valuestring : "",
                        cJSON_IsString(kw) ? tg_json_strlen(kw->valuestring) : 0);
        } else if (tg_ex_in_list(kw, k_gem_keep)) {
            tg_ex_putclone(c, out, kw);
        } else if (tg_json_key_is(kw, "additionalProperties") || tg_json_key_is(kw, "unevaluatedProperties") ||
                   tg_json_key_is(kw, "additionalItems") || tg_json_key_is(kw, "unevaluatedItems")) {
            if (!cJSON_IsBool(kw) && !tg_ex_is_true_schema(kw))
                tg_ex_notek(c, &rk, "\"%.*s\" schema is not supported by Gemini; dropped", kw);
            else if (cJSON_IsFalse(kw)) /* (the call is still checked against the whole schema) */
                tg_ex_notek(c, &rk, "\"%.*s\": false is not supported by Gemini; dropped", kw);
        } else if (tg_ex_in_list(kw, k_gem_drop_loss)) {
            tg_ex_notek(c, &rk, "\"%.*s\" is not supported by Gemini; dropped", kw);
        }
        /* $schema, $id, $defs, definitions, title, default, examples,
         * $comment and unknown keywords: dropped (they do not constrain) */
    }
    if (nullable) set_bool(c, out, "nullable");
    return c->oom ? NULL : out;
}

/* Gemini's rule for parameter names: [A-Za-z_][A-Za-z0-9_]{0,63}. */
int tg_ex_gemini_name_ok(const char *s, size_t n) {
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (i > 0 && ch >= '0' && ch <= '9');
        if (!ok) return 0;
    }
    return 1;
}

/* The Gemini rendering of the normalized root (NULL out of memory). */
cJSON *tg_ex_gemini_schema(ex_ctx *c, const cJSON *schema, const ex_path *root) {
    return gem_node(c, schema, root, 0, NULL);
}
