/* export_openai.c - the OpenAI strict rendering (Structured Outputs,
 * strict:true), or why a tool cannot have one.
 *
 * OpenAI's rules for a strict schema (checked 2025): every object has
 * additionalProperties:false and lists all properties in required
 * (optional -> union with null); supported: type, properties, required,
 * additionalProperties:false, items, anyOf (not at root), enum, const,
 * $ref/$defs (recursion allowed), description, title, string
 * pattern/format (date-time, time, date, duration, email, hostname, ipv4,
 * ipv6, uuid), numeric minimum/maximum/exclusive*, multipleOf, array
 * minItems/maxItems; not supported: allOf, oneOf, not, if/then/else,
 * dependent*, patternProperties, propertyNames, unevaluated*,
 * min/maxProperties, contains, uniqueItems, min/maxLength. */
#include <stdio.h>
#include <string.h>

#include "export_internal.h"

static const char *const k_strict_fail[] = {"patternProperties", "propertyNames", "if", "then", "else", "not",
                                            "dependentSchemas", "dependentRequired", "dependencies",
                                            "prefixItems", "additionalItems", "unevaluatedItems",
                                            "$dynamicRef", "$recursiveRef", NULL};
static const char *const k_strict_keep[] = {"description", "title", "pattern", "minimum", "maximum",
                                            "multipleOf", "minItems", "maxItems", "enum", "const", NULL};
static const char *const k_strict_drop_loss[] = {"minLength", "maxLength", "uniqueItems", "contains",
                                                 "minContains", "maxContains", "minProperties",
                                                 "maxProperties", NULL};
static const char *const k_strict_formats[] = {"date-time", "time", "date", "duration", "email", "hostname",
                                               "ipv4", "ipv6", "uuid", NULL};

/* Strict mode impossible here. */
static void strict_fail(ex_ctx *c, const ex_path *p, const char *fmt, const char *arg, size_t n) {
    c->fail++;
    tg_ex_add_issue(c, c->fails, p, fmt, arg, n);
}

/* Makes a rendered strict schema also accept null. Returns the schema to use
 * (maybe a new anyOf wrapper); *already = 1 when it accepted null before. */
static cJSON *make_nullable(ex_ctx *c, cJSON *x, int *already) {
    *already = 0;
    cJSON *t = tg_json_getz(x, "type"), *en = tg_json_getz(x, "enum"), *any = tg_json_getz(x, "anyOf");
    cJSON *nul = tg_ex_new(c, cJSON_NULL);
    if (!nul) return x;
    if (tg_json_getz(x, "const") || tg_json_getz(x, "$ref") || (!t && !any)) {
        if (cJSON_IsNull(tg_json_getz(x, "const"))) {
            *already = 1;
            return x;
        }
        cJSON *w = tg_ex_new(c, cJSON_Object);
        cJSON *arr = tg_ex_put(c, w, "anyOf", tg_ex_new(c, cJSON_Array));
        cJSON *nt = tg_ex_new(c, cJSON_Object);
        tg_ex_put(c, nt, "type", tg_ex_str(c, "null", 4));
        if (!arr || !nt) return x;
        x->string = NULL;
        tg_json_append(arr, x);
        tg_json_append(arr, nt);
        return w;
    }
    if (t) {
        if (tg_ex_type_has(t, "null")) {
            *already = 1;
            return x;
        }
        if (cJSON_IsString(t)) {
            cJSON *arr = tg_ex_new(c, cJSON_Array);
            cJSON *t1 = tg_ex_clone(c, t);
            if (!arr || !t1) return x;
            t1->string = NULL;
            tg_json_append(arr, t1);
            tg_ex_replace(x, t, arr);
            t = arr;
        }
        tg_json_append(t, tg_ex_str(c, "null", 4));
        if (cJSON_IsArray(en) && !tg_ex_arr_has(en, nul)) tg_json_append(en, nul);
        return x;
    }
    /* anyOf without type */
    for (const cJSON *b = any->child; b; b = b->next)
        if (tg_ex_type_has(tg_json_getz(b, "type"), "null")) {
            *already = 1;
            return x;
        }
    cJSON *nt = tg_ex_new(c, cJSON_Object);
    tg_ex_put(c, nt, "type", tg_ex_str(c, "null", 4));
    if (nt) tg_json_append(any, nt);
    return x;
}

static void nullable_entry(ex_ctx *c, cJSON *to, const ex_path *rendered) {
    if (!to) return;
    size_t plen;
    char *ptext = tg_ex_path_text(c, rendered, &plen);
    cJSON *e = tg_ex_new(c, cJSON_Object);
    if (!ptext || !e) return;
    tg_ex_put(c, e, "tool", tg_ex_str(c, c->name, c->name_len));
    tg_ex_put(c, e, "path", tg_ex_str(c, ptext, plen));
    tg_ex_put(c, e, "nullable", tg_ex_new(c, cJSON_True));
    tg_json_append(to, e);
}

/* Rendered pointer (for nullable entries) and report pointer ("/inputSchema"
 * + rendered pointer) travel together. */
typedef struct ex_spath {
    const ex_path *rep; /* report path */
    const ex_path *out; /* rendered path (NULL = root) */
} ex_spath;

static cJSON *strict_node(ex_ctx *c, const cJSON *s, ex_spath p, int depth, int is_root, cJSON *nullables);

static cJSON *strict_sub(ex_ctx *c, const cJSON *s, ex_spath p, const char *k, size_t kn, int depth,
                         cJSON *nullables) {
    ex_path r = {p.rep, k, kn, 0}, o = {p.out, k, kn, 0};
    ex_spath q = {&r, &o};
    return strict_node(c, s, q, depth + 1, 0, nullables);
}

static cJSON *strict_node(ex_ctx *c, const cJSON *s, ex_spath p, int depth, int is_root, cJSON *nullables) {
    if (c->oom || tg_ex_step(c)) return NULL;
    if (depth > EX_MAX_DEPTH) {
        strict_fail(c, p.rep, "schema nested deeper than 64 levels", NULL, 0);
        return tg_ex_new(c, cJSON_Object);
    }
    if (!cJSON_IsObject(s) || !s->child) {
        strict_fail(c, p.rep, cJSON_IsFalse(s) ? "schema false (nothing allowed) cannot be expressed in strict mode"
                                               : "unconstrained schema (any JSON value) cannot be expressed in strict mode",
                    NULL, 0);
        return tg_ex_new(c, cJSON_Object);
    }
    if (tg_json_getz(s, "$ref")) {
        /* OpenAI refuses any keyword beside $ref ("$ref cannot have keywords"):
         * annotations are dropped (exact); a constraint beside it cannot be
         * rendered without changing what is valid */
        for (const cJSON *kw = s->child; kw; kw = kw->next)
            if (!tg_json_key_is(kw, "$ref") && !tg_ex_in_list(kw, tg_ex_annotations) && !tg_json_key_is(kw, "$defs") && !tg_json_key_is(kw, "definitions")) {
                ex_path rk = {p.rep, kw->string, tg_json_strlen(kw->string), 0};
                strict_fail(c, &rk, "\"%.*s\" beside $ref cannot be expressed in strict mode (OpenAI allows no keyword beside $ref)",
                            kw->string, tg_json_strlen(kw->string));
            }
        if (!is_root) {
            cJSON *out = tg_ex_new(c, cJSON_Object);
            tg_ex_putclone(c, out, tg_json_getz(s, "$ref"));
            if (!tg_ex_resolve_ref(c->doc, tg_json_getz(s, "$ref")))
                strict_fail(c, p.rep, "$ref is not a local reference into this schema", NULL, 0);
            return c->oom ? NULL : out;
        }
    }
    cJSON *tmp = NULL;
    if (tg_json_getz(s, "allOf")) {
        tmp = tg_ex_clone(c, s);
        if (!tmp) return NULL;
        cJSON *all = tg_json_getz(tmp, "allOf");
        tg_json_detach(tmp, all);
        ex_path pa = {p.rep, "allOf", 5, 0};
        int exact = 1;
        for (const cJSON *b = cJSON_IsArray(all) ? all->child : NULL; b; b = b->next)
            exact &= tg_ex_merge(c, tmp, b, &pa, depth + 1);
        if (!exact) strict_fail(c, &pa, "allOf could not be merged exactly (allOf is not supported in strict mode)", NULL, 0);
        s = tmp;
    }
    cJSON *out = tg_ex_new(c, cJSON_Object);
    if (!out) return NULL;
    const cJSON *type = tg_json_getz(s, "type");
    const cJSON *props = tg_json_getz(s, "properties");
    int is_object = type ? tg_ex_type_has(type, "object") : props != NULL;
    if (!type) {
        if (!tg_json_getz(s, "$ref") && !tg_json_getz(s, "anyOf") && !tg_json_getz(s, "oneOf")) {
            cJSON *t = tg_ex_infer_type(c, s);
            if (t) tg_ex_put(c, out, "type", t);
            else if (!c->oom) strict_fail(c, p.rep, "schema without a type cannot be expressed in strict mode", NULL, 0);
        }
    }
    int has_any = tg_json_getz(s, "anyOf") != NULL;
    for (const cJSON *kw = s->child; kw && !c->oom; kw = kw->next) {
        size_t kn = tg_json_strlen(kw->string);
        ex_path rk = {p.rep, kw->string, kn, 0};
        if (tg_json_key_is(kw, "type")) tg_ex_putclone(c, out, kw);
        else if (tg_json_key_is(kw, "properties") || tg_json_key_is(kw, "required")) continue;
        else if (tg_json_key_is(kw, "additionalProperties") || tg_json_key_is(kw, "unevaluatedProperties")) {
            if (!cJSON_IsFalse(kw))
                strict_fail(c, &rk, cJSON_IsTrue(kw) || tg_ex_is_true_schema(kw)
                                        ? "\"%.*s\" allows extra keys (open map); strict mode needs false"
                                        : "\"%.*s\" schema (a map with free keys) is not supported in strict mode",
                            kw->string, kn);
        } else if (tg_ex_in_list(kw, k_strict_fail))
            strict_fail(c, &rk, "\"%.*s\" is not supported in strict mode", kw->string, kn);
        else if (tg_json_key_is(kw, "items")) {
            if (cJSON_IsArray(kw)) strict_fail(c, &rk, "tuple \"items\" (an array of schemas) is not supported in strict mode", NULL, 0);
            else tg_ex_put(c, out, "items", strict_sub(c, kw, p, "items", 5, depth, nullables));
        } else if (tg_json_key_is(kw, "anyOf") || tg_json_key_is(kw, "oneOf")) {
            if (!cJSON_IsArray(kw) || !kw->child) {
                strict_fail(c, &rk, "empty \"%.*s\"", kw->string, kn);
                continue;
            }
            /* an object's own properties beside a union of objects: strict
             * mode closes each on its own (additionalProperties: false), and
             * no value could then match both (the root's union is merged
             * before, in tg_ex_normalize_root) */
            if (!is_root && tg_json_getz(s, "properties")) {
                int objects = 0;
                for (const cJSON *b = kw->child; b; b = b->next) {
                    const cJSON *bt = cJSON_IsObject(b) ? tg_json_getz(b, "type") : NULL;
                    objects |= cJSON_IsObject(b) && (tg_json_getz(b, "properties") != NULL ||
                                                     (cJSON_IsString(bt) && strcmp(bt->valuestring, "object") == 0));
                }
                if (objects) {
                    strict_fail(c, &rk, "\"%.*s\" of objects beside \"properties\" cannot be expressed in strict mode "
                                        "(each would be closed on its own)", kw->string, kn);
                    continue;
                }
            }
            if (tg_json_key_is(kw, "oneOf")) {
                if (has_any) {
                    strict_fail(c, &rk, "oneOf next to anyOf cannot be expressed in strict mode", NULL, 0);
                    continue;
                }
                if (kw->child->next) tg_ex_note(c, &rk, "oneOf rendered as anyOf: that exactly one branch must match is not shown");
            }
            cJSON *arr = tg_ex_put(c, out, "anyOf", tg_ex_new(c, cJSON_Array));
            ex_path ra = {p.rep, "anyOf", 5, 0}, oa = {p.out, "anyOf", 5, 0};
            ex_spath pa = {&ra, &oa};
            char idx[24];
            int i = 0;
            for (const cJSON *b = kw->child; b && arr; b = b->next, i++) {
                int n = snprintf(idx, sizeof idx, "%d", i);
                cJSON *x = strict_sub(c, b, pa, idx, (size_t)n, depth, nullables);
                if (x) tg_json_append(arr, x);
            }
        } else if (tg_json_key_is(kw, "$ref")) {
            if (!tg_ex_resolve_ref(c->doc, kw))
                strict_fail(c, &rk, "$ref is not a local reference into this schema", NULL, 0);
            tg_ex_putclone(c, out, kw);
        } else if (tg_json_key_is(kw, "$defs") || tg_json_key_is(kw, "definitions")) {
            if (!cJSON_IsObject(kw)) continue;
            cJSON *defs = tg_ex_putn(c, out, kw->string, kn, tg_ex_new(c, cJSON_Object));
            ex_path rd = {p.rep, kw->string, kn, 0}, od = {p.out, kw->string, kn, 0};
            ex_spath pd = {&rd, &od};
            for (const cJSON *d = kw->child; d && defs; d = d->next)
                tg_ex_putn(c, defs, d->string, tg_json_strlen(d->string),
                           strict_sub(c, d, pd, d->string, tg_json_strlen(d->string), depth, nullables));
        } else if (tg_json_key_is(kw, "format")) {
            int ok = 0;
            for (int i = 0; k_strict_formats[i]; i++)
                if (tg_json_string_is(kw, k_strict_formats[i])) ok = 1;
            if (ok) tg_ex_putclone(c, out, kw);
            else tg_ex_notes(c, &rk, "format \"%.*s\" is not supported in strict mode; dropped",
                             cJSON_IsString(kw) ? kw->valuestring : "?", cJSON_IsString(kw) ? tg_json_strlen(kw->valuestring) : 1);
        } else if (tg_json_key_is(kw, "exclusiveMinimum") || tg_json_key_is(kw, "exclusiveMaximum")) {
            if (cJSON_IsNumber(kw)) tg_ex_putclone(c, out, kw);
            else tg_ex_notek(c, &rk, "draft-04 boolean \"%.*s\" dropped (the bound is shown inclusive)", kw);
        } else if (tg_ex_in_list(kw, k_strict_keep)) tg_ex_putclone(c, out, kw);
        else if (tg_ex_in_list(kw, k_strict_drop_loss))
            tg_ex_notek(c, &rk, "\"%.*s\" is not supported in strict mode; dropped", kw);
        /* annotations and unknown keywords: dropped (they do not constrain) */
    }
    if (type && tg_ex_type_has(type, "array") && !tg_json_getz(s, "items"))
        strict_fail(c, p.rep, "array without \"items\" cannot be expressed in strict mode (any item)", NULL, 0);
    if (is_object && !c->oom) {
        cJSON *np = tg_ex_put(c, out, "properties", tg_ex_new(c, cJSON_Object));
        cJSON *req = tg_ex_new(c, cJSON_Array);
        const cJSON *oreq = tg_json_getz(s, "required");
        const cJSON *ap = tg_json_getz(s, "additionalProperties");
        if (!is_root && (!cJSON_IsObject(props) || !props->child) && !cJSON_IsFalse(ap) && !ap)
            strict_fail(c, p.rep, "object without declared properties (free-form object) is not supported in strict mode", NULL, 0);
        ex_path rp = {p.rep, "properties", 10, 0}, op = {p.out, "properties", 10, 0};
        ex_spath pp = {&rp, &op};
        for (const cJSON *pr = cJSON_IsObject(props) ? props->child : NULL; pr && np && req; pr = pr->next) {
            size_t kn = tg_json_strlen(pr->string);
            cJSON *x = strict_sub(c, pr, pp, pr->string, kn, depth, nullables);
            if (!x) return NULL;
            cJSON *name = tg_ex_str(c, pr->string, kn);
            if (!name) return NULL;
            if (!tg_ex_arr_has(oreq, name)) {
                int already;
                x = make_nullable(c, x, &already);
                ex_path rx = {&rp, pr->string, kn, 0}, ox = {&op, pr->string, kn, 0};
                if (already) tg_ex_note(c, &rx, "optional property that already accepts null: strict mode lists it as required, so the model can no longer omit it (null is passed through)");
                else nullable_entry(c, nullables, &ox);
            }
            tg_ex_putn(c, np, pr->string, kn, x);
            tg_json_append(req, name);
        }
        for (const cJSON *r = cJSON_IsArray(oreq) ? oreq->child : NULL; r; r = r->next)
            if (cJSON_IsString(r) && !(cJSON_IsObject(props) && tg_json_get(props, r->valuestring, tg_json_strlen(r->valuestring)))) {
                ex_path rr = {p.rep, "required", 8, 0};
                tg_ex_notes(c, &rr, "required names \"%.*s\", which is not a declared property; not shown in strict mode",
                            r->valuestring, tg_json_strlen(r->valuestring));
            }
        tg_ex_put(c, out, "required", req);
        tg_ex_put(c, out, "additionalProperties", tg_ex_new(c, cJSON_False));
    }
    return c->oom ? NULL : out;
}

/* OpenAI's documented limits on a strict schema (Structured Outputs,
 * "supported schemas"): a request past one is refused, so such a tool
 * falls back to strict:false with the reason reported. */
typedef struct strict_count {
    size_t props, enums, text;
    int deepest;
    int big_enum; /* one string enum of more than 250 values and 15,000 characters */
} strict_count;

static void count_strict(const cJSON *s, int level, strict_count *n) {
    if (!cJSON_IsObject(s) || level > EX_MAX_DEPTH) return;
    const cJSON *props = tg_json_getz(s, "properties"), *v;
    if (cJSON_IsObject(props)) {
        if (level > n->deepest) n->deepest = level;
        for (const cJSON *m = props->child; m; m = m->next) {
            n->props++;
            n->text += tg_json_strlen(m->string);
            count_strict(m, level + 1, n);
        }
    }
    if ((v = tg_json_getz(s, "enum")) && cJSON_IsArray(v)) {
        size_t count = 0, chars = 0;
        for (const cJSON *e = v->child; e; e = e->next, count++)
            if (cJSON_IsString(e)) chars += tg_json_strlen(e->valuestring);
        n->enums += count;
        n->text += chars;
        if (count > 250 && chars > 15000) n->big_enum = 1;
    }
    if ((v = tg_json_getz(s, "const")) && cJSON_IsString(v)) n->text += tg_json_strlen(v->valuestring);
    if ((v = tg_json_getz(s, "items"))) count_strict(v, level, n);
    static const char *const lists[] = {"anyOf", "$defs", "definitions", NULL};
    for (const char *const *k = lists; *k; k++)
        if ((v = tg_json_getz(s, *k)) && (cJSON_IsArray(v) || cJSON_IsObject(v)))
            for (const cJSON *m = v->child; m; m = m->next) {
                if (cJSON_IsObject(v)) n->text += tg_json_strlen(m->string); /* definition names */
                count_strict(m, level, n);
            }
}

static void strict_limits(ex_ctx *c, const cJSON *st, const ex_path *root) {
    strict_count n = {0, 0, 0, 0, 0};
    count_strict(st, 1, &n);
    char why[160];
    if (n.props > 5000) snprintf(why, sizeof why, "%zu object properties (OpenAI's strict limit is 5,000)", n.props);
    else if (n.deepest > 10) snprintf(why, sizeof why, "objects nested %d levels (OpenAI's strict limit is 10)", n.deepest);
    else if (n.enums > 1000) snprintf(why, sizeof why, "%zu enum values (OpenAI's strict limit is 1,000 in all)", n.enums);
    else if (n.text > 120000)
        snprintf(why, sizeof why, "%zu characters of property names, definition names, enum and const values (OpenAI's "
                                  "strict limit is 120,000)", n.text);
    else if (n.big_enum) snprintf(why, sizeof why, "a string enum of more than 250 values and 15,000 characters (OpenAI's strict limit)");
    else return;
    strict_fail(c, root, "%.*s", why, strlen(why));
}

/* Moves every member of from to the end of to (the report: when it is NULL,
 * they are dropped). */
static void move_all(cJSON *from, cJSON *to) {
    if (!from) return;
    for (cJSON *x = from->child; x;) {
        cJSON *next = x->next;
        if (to) tg_json_append(to, x);
        x = next;
    }
    from->child = NULL;
}

/* The strict rendering of the normalized root, or NULL when there is none
 * (c->oom set: out of memory; else the reasons strict mode is impossible
 * are in report). Its losses and nullable entries reach report only when it
 * is the rendering used. */
cJSON *tg_ex_openai_strict(ex_ctx *c, const cJSON *schema, const ex_path *root, cJSON *report) {
    cJSON *pending = tg_ex_new(c, cJSON_Array), *fails = tg_ex_new(c, cJSON_Array), *nulls = tg_ex_new(c, cJSON_Array);
    if (!pending || !fails || !nulls) return NULL;
    c->report = pending;
    c->fails = fails;
    ex_spath sp = {root, NULL};
    cJSON *st = strict_node(c, schema, sp, 0, 1, nulls);
    if (st && c->fail == 0 && !c->oom) strict_limits(c, st, root);
    c->report = report;
    if (c->oom) return NULL;
    if (c->fail == 0 && st) {
        move_all(pending, report);
        move_all(nulls, report);
        return st;
    }
    move_all(fails, report);
    return NULL;
}
