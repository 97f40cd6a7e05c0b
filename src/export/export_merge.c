/* export_merge.c - allOf (and a $ref beside other keywords) merged into one
 * schema, where a provider cannot show them: exact where the branches
 * combine keyword by keyword, every inexact step reported. */
#include <string.h>

#include "export_internal.h"

static const char *const k_min[] = {"minimum", "exclusiveMinimum", "minLength", "minItems",
                                    "minProperties", "minContains", NULL};
static const char *const k_max[] = {"maximum", "exclusiveMaximum", "maxLength", "maxItems",
                                    "maxProperties", "maxContains", NULL};

/* Intersection of two "type" values; NULL when empty. */
static cJSON *type_meet(ex_ctx *c, const cJSON *ta, const cJSON *tb) {
    static const char *const all[] = {"null", "boolean", "object", "array", "number", "string", "integer", NULL};
    cJSON *out = tg_ex_new(c, cJSON_Array);
    if (!out) return NULL;
    int n = 0;
    for (int i = 0; all[i]; i++) {
        const char *t = all[i];
        int ina = tg_ex_type_has(ta, t) || (!strcmp(t, "integer") && tg_ex_type_has(ta, "number"));
        int inb = tg_ex_type_has(tb, t) || (!strcmp(t, "integer") && tg_ex_type_has(tb, "number"));
        if (!strcmp(t, "integer") && tg_ex_type_has(ta, "number") && tg_ex_type_has(tb, "number")) continue;
        if (ina && inb) {
            tg_json_append(out, tg_ex_str(c, t, strlen(t)));
            n++;
        }
    }
    if (c->oom || n == 0) return NULL;
    if (n == 1) {
        cJSON *one = out->child;
        one->prev = one->next = NULL;
        return one;
    }
    return out;
}

static cJSON *wrap_allof(ex_ctx *c, const cJSON *x, const cJSON *y) {
    cJSON *w = tg_ex_new(c, cJSON_Object);
    cJSON *arr = tg_ex_put(c, w, "allOf", tg_ex_new(c, cJSON_Array));
    if (!arr) return NULL;
    cJSON *cx = tg_ex_clone(c, x), *cy = tg_ex_clone(c, y);
    if (!cx || !cy) return NULL;
    cx->string = cy->string = NULL;
    tg_json_append(arr, cx);
    tg_json_append(arr, cy);
    return w;
}

/* b's properties and patternProperties are all a's too */
static int props_subset(const cJSON *b, const cJSON *a) {
    static const char *const KW[] = {"properties", "patternProperties"};
    for (int k = 0; k < 2; k++) {
        const cJSON *bp = tg_json_getz(b, KW[k]), *ap = tg_json_getz(a, KW[k]);
        for (const cJSON *x = cJSON_IsObject(bp) ? bp->child : NULL; x; x = x->next)
            if (!tg_json_get(ap, x->string, tg_json_strlen(x->string))) return 0;
    }
    return 1;
}

/* s refuses members it does not declare itself: merged with another
 * branch, the other's members would escape it */
static int closes_props(const cJSON *s) {
    const cJSON *ap = tg_json_getz(s, "additionalProperties"), *up = tg_json_getz(s, "unevaluatedProperties");
    return (ap && !tg_ex_is_true_schema(ap)) || (up && !tg_ex_is_true_schema(up));
}

/* a := a AND b, in place (a is an arena clone). Returns 1 when exact; every
 * inexact step is reported at p. */
int tg_ex_merge(ex_ctx *c, cJSON *a, const cJSON *b, const ex_path *p, int depth) {
    if (c->oom || tg_ex_step(c)) return 0;
    if (tg_ex_too_deep(c, p, depth)) return 0;
    if (cJSON_IsTrue(b)) return 1;
    if (cJSON_IsFalse(b)) {
        tg_ex_note(c, p, "allOf contains false (no value is valid); not shown to the model");
        return 0;
    }
    if (!cJSON_IsObject(b)) return 1;
    int exact = 1;
    const cJSON *ref = tg_json_getz(b, "$ref");
    if (ref) {
        const cJSON *t = tg_ex_resolve_ref(c->doc, ref);
        if (!t) {
            tg_ex_notes(c, p, "$ref \"%.*s\" cannot be resolved locally; not merged", cJSON_IsString(ref) ? ref->valuestring : "",
                        cJSON_IsString(ref) ? tg_json_strlen(ref->valuestring) : 0);
            exact = 0;
        } else exact &= tg_ex_merge(c, a, t, p, depth + 1);
    }
    /* additionalProperties of one side stops applying to the other's properties */
    if ((closes_props(a) && !props_subset(b, a)) || (closes_props(b) && !props_subset(a, b))) {
        tg_ex_note(c, p, "allOf: additionalProperties/unevaluatedProperties of one branch no longer excludes the properties another "
                         "branch declares");
        exact = 0;
    }
    for (const cJSON *kw = b->child; kw && !c->oom; kw = kw->next) {
        cJSON *have = tg_json_get(a, kw->string, tg_json_strlen(kw->string));
        if (tg_json_key_is(kw, "$ref")) continue;
        if (tg_json_key_is(kw, "allOf")) {
            for (const cJSON *br = cJSON_IsArray(kw) ? kw->child : NULL; br; br = br->next)
                exact &= tg_ex_merge(c, a, br, p, depth + 1);
            continue;
        }
        if (tg_ex_in_list(kw, tg_ex_annotations)) {
            if (!have && (tg_json_key_is(kw, "description") || tg_json_key_is(kw, "title"))) tg_ex_putclone(c, a, kw);
            continue;
        }
        if (!have) {
            tg_ex_putclone(c, a, kw);
            continue;
        }
        if (tg_json_equal(have, kw)) continue;
        if (tg_json_key_is(kw, "$defs") || tg_json_key_is(kw, "definitions")) {
            for (const cJSON *d = kw->child; d; d = d->next)
                if (!tg_json_get(have, d->string, tg_json_strlen(d->string))) tg_ex_putclone(c, have, d);
            continue;
        }
        if (tg_json_key_is(kw, "type")) {
            cJSON *m = type_meet(c, have, kw);
            if (m) tg_ex_replace(a, have, m);
            else if (!c->oom) {
                tg_ex_note(c, p, "allOf: branches allow no common type (nothing is valid); the first type is shown");
                exact = 0;
            }
            continue;
        }
        if ((tg_json_key_is(kw, "properties") || tg_json_key_is(kw, "patternProperties")) && cJSON_IsObject(have) && cJSON_IsObject(kw)) {
            for (const cJSON *pr = kw->child; pr; pr = pr->next) {
                cJSON *hp = tg_json_get(have, pr->string, tg_json_strlen(pr->string));
                if (!hp) tg_ex_putclone(c, have, pr);
                else if (!tg_json_equal(hp, pr)) {
                    cJSON *w = wrap_allof(c, hp, pr);
                    if (w) tg_ex_replace(have, hp, w);
                }
            }
            continue;
        }
        if (tg_json_key_is(kw, "required") && cJSON_IsArray(have) && cJSON_IsArray(kw)) {
            for (const cJSON *r = kw->child; r; r = r->next)
                if (!tg_ex_arr_has(have, r)) tg_json_append(have, tg_ex_clone(c, r));
            continue;
        }
        if (tg_json_key_is(kw, "enum") && cJSON_IsArray(have) && cJSON_IsArray(kw)) {
            cJSON *m = tg_ex_new(c, cJSON_Array);
            for (const cJSON *v = have->child; v && m; v = v->next)
                if (tg_ex_arr_has(kw, v)) tg_json_append(m, tg_ex_clone(c, v));
            if (!m) continue;
            if (!m->child) {
                tg_ex_note(c, p, "allOf: the branches' enums have no common value (nothing is valid); the first enum is shown");
                exact = 0;
            } else tg_ex_replace(a, have, m);
            continue;
        }
        if ((tg_ex_in_list(kw, k_min) || tg_ex_in_list(kw, k_max)) && cJSON_IsNumber(have) && cJSON_IsNumber(kw)) {
            int want_max = tg_ex_in_list(kw, k_min);
            if (want_max ? kw->valuedouble > have->valuedouble : kw->valuedouble < have->valuedouble) {
                cJSON *m = tg_ex_clone(c, kw);
                if (m) tg_ex_replace(a, have, m);
            }
            continue;
        }
        if (tg_json_key_is(kw, "uniqueItems") && cJSON_IsBool(kw)) {
            if (cJSON_IsTrue(kw)) {
                cJSON *m = tg_ex_clone(c, kw);
                if (m) tg_ex_replace(a, have, m);
            }
            continue;
        }
        if (tg_json_key_is(kw, "items") || tg_json_key_is(kw, "additionalProperties") || tg_json_key_is(kw, "propertyNames") ||
            tg_json_key_is(kw, "unevaluatedProperties") || tg_json_key_is(kw, "unevaluatedItems") || tg_json_key_is(kw, "contentSchema")) {
            if ((cJSON_IsObject(have) || cJSON_IsBool(have)) && (cJSON_IsObject(kw) || cJSON_IsBool(kw))) {
                cJSON *w = wrap_allof(c, have, kw);
                if (w) tg_ex_replace(a, have, w);
                continue;
            }
        }
        tg_ex_notek(c, p, "allOf: conflicting \"%.*s\" in two branches; only the first is shown", kw);
        exact = 0;
    }
    return exact;
}
