/* validator.c - the JSON Schema validator on its own (compileSchema /
 * validate in the JS package): compiled schemas kept in a table by id. */
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

static int dialect_of(const char *s, tg_dialect *d) {
    static const struct { const char *name; tg_dialect d; } D[] = {
        {"2020-12", TG_DIALECT_2020_12}, {"2019-09", TG_DIALECT_2019_09}, {"draft-07", TG_DIALECT_DRAFT7},
        {"draft7", TG_DIALECT_DRAFT7},   {"draft-06", TG_DIALECT_DRAFT6}, {"draft-04", TG_DIALECT_DRAFT4},
    };
    for (size_t i = 0; i < sizeof D / sizeof D[0]; i++)
        if (strcmp(D[i].name, s) == 0) {
            *d = D[i].d;
            return 0;
        }
    return -1;
}

tg_status tg_compile_schema(tg_runtime *rt, const char *schema, size_t len, const char *options, size_t options_len,
                            uint32_t *id) {
    tg_rt_begin(rt);
    *id = 0;
    cJSON *doc;
    tg_status pst = tg_rt_parse(rt, "schema", schema, len, rt->reg_cfg.schema_bytes * 4, &doc);
    if (pst != TG_OK) return pst;
    tg_schema_options so = rt->reg_cfg.schema;
    so.format_assert = 0;
    if (options_len) {
        tg_json_limits jl = tg_rt_json_limits(rt, rt->reg_cfg.schema_bytes * 4);
        tg_json_error jerr;
        cJSON *o = tg_json_parse(&rt->call_arena, options, options_len, &jl, &jerr);
        if (!o) { /* (resources the host gave as JSON text are read here, strictly) */
            char msg[220];
            snprintf(msg, sizeof msg, "schema options: %s", jerr.message);
            return tg_rt_fail(rt, tg_rt_json_status(jerr.status), msg, -1);
        }
        if (!cJSON_IsObject(o)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "schema options must be an object", -1);
        const cJSON *v;
        if ((v = tg_json_getz(o, "dialect")) && (!cJSON_IsString(v) || dialect_of(v->valuestring, &so.dialect)))
            return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST,
                              "\"dialect\" must be one of 2020-12, 2019-09, draft-07, draft-06, draft-04", -1);
        if ((v = tg_json_getz(o, "formats"))) {
            if (!tg_json_string_is(v, "assert") && !tg_json_string_is(v, "annotate"))
                return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"formats\" must be \"annotate\" or \"assert\"", -1);
            so.format_assert = tg_json_string_is(v, "assert");
        }
        if ((v = tg_json_getz(o, "resources"))) {
            if (!cJSON_IsObject(v)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"resources\" must map URIs to schemas", -1);
            size_t n = 0;
            for (const cJSON *r = v->child; r; r = r->next) n++;
            tg_schema_resource *res = tg_arena_calloc(&rt->call_arena, n ? n : 1, sizeof *res);
            if (!res) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
            size_t i = 0;
            for (const cJSON *r = v->child; r; r = r->next, i++) {
                res[i].uri = r->string;
                res[i].schema = r;
            }
            so.resources = res;
            so.n_resources = n;
        }
    }
    size_t slot = rt->validators_cap;
    for (size_t i = 0; i < rt->validators_cap; i++)
        if (!rt->validators[i]) {
            slot = i;
            break;
        }
    if (slot == rt->validators_cap) {
        size_t ncap = rt->validators_cap ? rt->validators_cap * 2 : 16;
        tg_schema **nv = tg_realloc(&rt->alloc, rt->validators, rt->validators_cap * sizeof *nv, ncap * sizeof *nv);
        if (!nv) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
        memset(nv + rt->validators_cap, 0, (ncap - rt->validators_cap) * sizeof *nv);
        rt->validators = nv;
        rt->validators_cap = ncap;
    }
    tg_buf diag;
    tg_buf_init(&diag, rt->alloc, 2048);
    tg_schema *compiled;
    int rc = tg_schema_compile(&rt->alloc, doc, &so, &compiled, &diag);
    if (rc) {
        tg_status st = tg_rt_fail(rt, rc == -2 ? TG_ERR_NOMEM : TG_ERR_INVALID_SCHEMA,
                                  diag.data ? diag.data : "out of memory", -1);
        tg_buf_free(&diag);
        return st;
    }
    tg_buf_free(&diag);
    rt->validators[slot] = compiled;
    *id = (uint32_t)slot + 1;
    return TG_OK;
}

/* tg_validate, tg_validate_records and tg_validate_first: errors as JSON
 * (lens NULL), records, or a first error coded when it can be (codes) */
static int validate(tg_runtime *rt, uint32_t id, const char *instance, size_t len, size_t max_errors, tg_buf *lens,
                    tg_buf *codes) {
    tg_rt_begin(rt);
    if (id == 0 || id > rt->validators_cap || !rt->validators[id - 1])
        return tg_rt_fail(rt, TG_ERR_UNKNOWN_TOOL, "no compiled schema with that id", -1);
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
    const tg_schema *s = rt->validators[id - 1];
    tg_schema_errors to = {&rt->out, lens, codes};
    /* one pass decides most texts and tells a first error; the evaluator
     * explains the rest */
    int v = tg_schema_check_text(s, instance, len, &jl, &rt->call_arena, max_errors == 1 ? &to : NULL);
    if (v == 1 || (v == 0 && (!max_errors || rt->out.len || rt->codes.len))) return v;
    tg_json_error jerr;
    cJSON *doc = tg_json_parse(&rt->call_arena, instance, len, &jl, &jerr);
    if (!doc) return tg_rt_fail(rt, tg_rt_json_status(jerr.status), jerr.message, (long long)jerr.offset);
    if (v < 0) v = tg_schema_validate(s, doc, &rt->call_arena, TG_OUTPUT_FLAG, 0, NULL);
    if (v == 0 && max_errors) v = tg_schema_validate_into(s, doc, &rt->call_arena, max_errors, &to);
    if (v < 0) return tg_rt_fail(rt, TG_ERR_TOO_LARGE, "the instance could not be checked within the limits (nesting depth, evaluation steps, memory)", -1);
    if (rt->out.failed || rt->lens.failed || rt->codes.failed) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory writing the errors", -1);
    return v;
}

int tg_validate(tg_runtime *rt, uint32_t id, const char *instance, size_t len, size_t max_errors) {
    return validate(rt, id, instance, len, max_errors, NULL, NULL);
}

int tg_validate_records(tg_runtime *rt, uint32_t id, const char *instance, size_t len, size_t max_errors) {
    return validate(rt, id, instance, len, max_errors, &rt->lens, NULL);
}

int tg_validate_first(tg_runtime *rt, uint32_t id, const char *instance, size_t len) {
    return validate(rt, id, instance, len, 1, &rt->lens, &rt->codes);
}

tg_status tg_schema_site(tg_runtime *rt, uint32_t id, uint32_t site, uint32_t variant) {
    tg_rt_begin(rt);
    if (id == 0 || id > rt->validators_cap || !rt->validators[id - 1])
        return tg_rt_fail(rt, TG_ERR_UNKNOWN_TOOL, "no compiled schema with that id", -1);
    tg_schema_errors to = {&rt->out, &rt->lens, NULL};
    int rc = tg_schema_site_words(rt->validators[id - 1], site, variant, &rt->call_arena, &to);
    if (rc == -1) return tg_rt_fail(rt, TG_ERR_UNKNOWN_TOOL, "no coded error site with that number", -1);
    if (rc) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory writing the error's words", -1);
    return TG_OK;
}

tg_status tg_schema_release(tg_runtime *rt, uint32_t id) {
    tg_rt_begin(rt);
    if (id == 0 || id > rt->validators_cap || !rt->validators[id - 1])
        return tg_rt_fail(rt, TG_ERR_UNKNOWN_TOOL, "no compiled schema with that id", -1);
    tg_schema_free(rt->validators[id - 1]);
    rt->validators[id - 1] = NULL;
    return TG_OK;
}
