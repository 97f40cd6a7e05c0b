/* export_dialect.c - a tool schema written for draft-04/06/07 or 2019-09
 * rewritten as the 2020-12 that providers read. */
#include <string.h>

#include "export_internal.h"

/* Provider schemas are 2020-12 (Anthropic refuses a whole request whose
 * schema is not: "must match JSON Schema draft 2020-12"); a tool schema
 * written for draft-04/06/07 or 2019-09 is rewritten into it, losslessly:
 * tuple items -> prefixItems (additionalItems -> items), draft-04's boolean
 * exclusiveMinimum/Maximum -> the numbers, dependencies -> dependentRequired
 * / dependentSchemas. */
static void rename_key(ex_ctx *c, cJSON *x, const char *k) {
    if (tg_json_set_key(c->a, x, k, strlen(k))) c->oom = 1;
}

static void upgrade(ex_ctx *c, cJSON *s, int d4, int pre2019, int depth) {
    if (!cJSON_IsObject(s) || depth > EX_MAX_DEPTH || c->oom) return;
    cJSON *items = tg_json_getz(s, "items"), *more = tg_json_getz(s, "additionalItems");
    if (cJSON_IsArray(items)) {
        rename_key(c, items, "prefixItems");
        if (more) rename_key(c, more, "items");
    } else if (more) {
        tg_json_detach(s, more); /* (without tuple items it never applied) */
    }
    if (d4) {
        static const char *const pairs[2][2] = {{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}};
        for (int i = 0; i < 2; i++) {
            cJSON *ex = tg_json_getz(s, pairs[i][0]), *bound = tg_json_getz(s, pairs[i][1]);
            if (!cJSON_IsBool(ex)) continue;
            if (cJSON_IsTrue(ex) && cJSON_IsNumber(bound)) {
                tg_json_detach(s, ex);
                rename_key(c, bound, pairs[i][0]);
            } else {
                tg_json_detach(s, ex);
            }
        }
    }
    if (pre2019) { /* not keywords before 2019-09: nothing enforced them, so they must not reach a model */
        cJSON *x;
        if ((x = tg_json_getz(s, "dependentRequired"))) tg_json_detach(s, x);
        if ((x = tg_json_getz(s, "dependentSchemas"))) tg_json_detach(s, x);
    }
    cJSON *deps = tg_json_getz(s, "dependencies");
    if (cJSON_IsObject(deps)) {
        /* into the schema's own dependentRequired / dependentSchemas (2019-09,
         * where both apply: a name in both keeps both, required lists joined
         * and schemas under allOf) */
        cJSON *req = tg_json_getz(s, "dependentRequired"), *sch = tg_json_getz(s, "dependentSchemas");
        int new_req = !cJSON_IsObject(req), new_sch = !cJSON_IsObject(sch);
        if (new_req && !(req = tg_ex_new(c, cJSON_Object))) return;
        if (new_sch && !(sch = tg_ex_new(c, cJSON_Object))) return;
        for (cJSON *d = deps->child; d;) {
            cJSON *next = d->next;
            cJSON *to = cJSON_IsArray(d) ? req : sch;
            tg_json_detach(deps, d);
            cJSON *have = tg_json_get(to, d->string, tg_json_strlen(d->string));
            if (!have) {
                tg_json_append(to, d);
            } else if (cJSON_IsArray(d) && cJSON_IsArray(have)) {
                for (cJSON *e = d->child; e;) {
                    cJSON *en = e->next;
                    if (!tg_ex_arr_has(have, e)) {
                        tg_json_detach(d, e);
                        tg_json_append(have, e);
                    }
                    e = en;
                }
            } else if (!cJSON_IsArray(d) && !cJSON_IsArray(have)) {
                cJSON *both = tg_ex_new(c, cJSON_Object), *all = both ? tg_ex_put(c, both, "allOf", tg_ex_new(c, cJSON_Array)) : NULL;
                if (!all) return;
                tg_ex_replace(to, have, both);
                have->string = NULL;
                tg_json_append(all, have);
                d->string = NULL;
                tg_json_append(all, d);
            }
            d = next;
        }
        tg_json_detach(s, deps);
        if (new_req && req->child) {
            cJSON *old = tg_json_getz(s, "dependentRequired");
            if (old) tg_json_detach(s, old); /* (not an object: replaced) */
            tg_ex_put(c, s, "dependentRequired", req);
        }
        if (new_sch && sch->child) {
            cJSON *old = tg_json_getz(s, "dependentSchemas");
            if (old) tg_json_detach(s, old);
            tg_ex_put(c, s, "dependentSchemas", sch);
        }
    }
    static const char *const one[] = {"additionalProperties", "items", "contains", "not", "if", "then", "else",
                                      "propertyNames", "unevaluatedProperties", "unevaluatedItems", NULL};
    static const char *const many[] = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                                       "prefixItems", "allOf", "anyOf", "oneOf", NULL};
    for (const char *const *k = one; *k; k++) upgrade(c, tg_json_getz(s, *k), d4, pre2019, depth + 1);
    for (const char *const *k = many; *k; k++) {
        cJSON *m = tg_json_getz(s, *k);
        if (cJSON_IsObject(m) || cJSON_IsArray(m))
            for (cJSON *x = m->child; x; x = x->next) upgrade(c, x, d4, pre2019, depth + 1);
    }
}

/* A root that declares an older dialect, rewritten as 2020-12 (its
 * $schema goes: what is left is 2020-12). */
void tg_ex_upgrade_root(ex_ctx *c, cJSON *s) {
    cJSON *decl = tg_json_getz(s, "$schema");
    if (!cJSON_IsString(decl)) return;
    const char *v = decl->valuestring;
    int d4 = strstr(v, "draft-04") != NULL;
    if (!d4 && !strstr(v, "draft-06") && !strstr(v, "draft-07") && !strstr(v, "2019-09")) return;
    upgrade(c, s, d4, d4 || strstr(v, "draft-06") || strstr(v, "draft-07"), 0);
    tg_json_detach(s, decl); /* (lossless: nothing to report) */
}
