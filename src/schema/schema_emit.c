/* schema_emit.c - one subschema -> one contiguous run of instructions.
 * Called from a worklist (schema_compile.c), never recursively across
 * references: a reference is just the index of its target's node, so cycles
 * cost nothing and nothing is expanded. */
#include <string.h>
#include <stdio.h>

#include "schema_compiler.h"
#include "schema_enum.h"

/* ---- emit ---- */

uint32_t tg_sc_node_of(sc *c, uint32_t ent) {
    uint32_t id;
    if (c->ents[ent].prog != TG_SNONE) return c->ents[ent].prog;
    if (c->n_nodes >= c->o->limits.max_subschemas) {
        tg_sc_fail(c, c->ents[ent].loc, "more than max_subschemas subschemas%s", "");
        return TG_SNONE;
    }
    if (tg_sc_grow(c, (void **)&c->nodes, &c->cap_nodes, c->n_nodes + 1, sizeof *c->nodes) ||
        tg_sc_grow(c, (void **)&c->node_ent, &c->cap_node_ent, c->n_nodes + 1, sizeof *c->node_ent) ||
        tg_sc_grow(c, (void **)&c->queue, &c->cap_queue, c->n_queue + 1, sizeof *c->queue)) {
        tg_sc_oom(c);
        return TG_SNONE;
    }
    id = (uint32_t)c->n_nodes++;
    memset(&c->nodes[id], 0, sizeof c->nodes[id]);
    c->nodes[id].resource = c->ents[ent].res;
    c->nodes[id].loc = c->ents[ent].loc;
    c->node_ent[id] = ent;
    c->ents[ent].prog = id;
    c->queue[c->n_queue++] = id;
    return id;
}

/* Where a child subschema sits, joined into a string only when it is
 * needed (a child not scanned yet, a diagnostic): base/kw, then name or
 * the array index idx (name NULL and idx SIZE_MAX: neither). */
typedef struct lazy_loc { const char *base, *kw, *name; size_t idx; } lazy_loc;
#define AT(kw) ((lazy_loc){e->loc, (kw), NULL, (size_t)-1})

static const char *loc_of(sc *c, const lazy_loc *l) {
    const char *r = l->kw ? tg_sc_loc_kw(c, l->base, l->kw) : l->base;
    if (r && l->name) r = tg_sc_loc_join(c, r, l->name, tg_json_strlen(l->name));
    else if (r && l->idx != (size_t)-1) r = tg_sc_loc_idx(c, r, l->idx);
    if (!r) tg_sc_oom(c);
    return r;
}

/* The node of a child subschema value v (scanned, or scanned now). */
static uint32_t child(sc *c, uint32_t parent, const cJSON *v, lazy_loc at) {
    uint32_t e;
    if (!tg_sc_ent_of(c, v, &e)) {
        const sc_ent *p = &c->ents[parent];
        const char *loc = loc_of(c, &at);
        if (!loc) return TG_SNONE;
        if (tg_sc_scan(c, v, p->res, p->dialect, p->voc, loc, 0, 0, &e)) return TG_SNONE;
        if (e == TG_SNONE) { tg_sc_fail(c, loc, "not a schema%s", ""); return TG_SNONE; }
    }
    return tg_sc_node_of(c, e);
}

/* The node's next instruction, straight into c->ins after the n of it
 * emitted so far (nodes are emitted one at a time: nothing else appends). */
static tg_sins *emit(sc *c, size_t *n, int op, const char *base, const char *kw) {
    tg_sins *i;
    if (tg_sc_grow(c, (void **)&c->ins, &c->cap_ins, c->n_ins + *n + 1, sizeof *c->ins)) { tg_sc_oom(c); return NULL; }
    i = &c->ins[c->n_ins + (*n)++];
    memset(i, 0, sizeof *i);
    i->op = (uint8_t)op;
    i->base = base;
    i->kw = kw;
    return i;
}

static int type_bit(const char *t) {
    /* by the first letter, then one compare ("type" is in most subschemas) */
    switch (t[0]) {
    case 'n': return !strcmp(t, "null") ? TG_ST_NULL : !strcmp(t, "number") ? TG_ST_NUMBER : 0;
    case 'b': return !strcmp(t, "boolean") ? TG_ST_BOOLEAN : 0;
    case 'o': return !strcmp(t, "object") ? TG_ST_OBJECT : 0;
    case 'a': return !strcmp(t, "array") ? TG_ST_ARRAY : 0;
    case 's': return !strcmp(t, "string") ? TG_ST_STRING : 0;
    case 'i': return !strcmp(t, "integer") ? TG_ST_INTEGER : 0;
    default: return 0;
    }
}

static int compile_regex(sc *c, const cJSON *v, lazy_loc at, uint32_t *out) {
    tg_regex *re = NULL;
    tg_regex_error err;
    tg_regex_limits lim = tg_regex_default_limits();
    size_t len = tg_json_strlen(v->valuestring), ss;
    if (len > c->o->limits.max_regex_bytes) {
        const char *loc = loc_of(c, &at);
        if (loc) tg_sc_fail(c, loc, "pattern longer than max_regex_bytes%s", "");
        return -1;
    }
    if (lim.max_pattern_bytes < len) lim.max_pattern_bytes = len;
    memset(&err, 0, sizeof err);
    if (tg_regex_compile(&c->s->alloc, v->valuestring, len, &lim, &re, &err) != 0) {
        if (err.nomem) {
            tg_sc_oom(c);
            return -1;
        }
        char msg[240];
        snprintf(msg, sizeof msg, "%.160s (at offset %zu)", err.message, err.offset);
        const char *loc = loc_of(c, &at);
        if (loc) tg_sc_fail(c, loc, "invalid regex: %s", msg);
        return -1;
    }
    /* Per-pattern limits bound one pattern; this bounds the schema: 400
     * patterns like .{9000} held 43 MiB of the runtime's budget. Each
     * compile is bounded by the per-pattern limits, so the schema's work
     * stops within one pattern of its budget. */
    c->regex_states += tg_regex_program_size(re);
    c->regex_ranges += tg_regex_range_count(re);
    if (c->regex_states > c->o->limits.max_regex_states || c->regex_ranges > c->o->limits.max_regex_ranges) {
        int states = c->regex_states > c->o->limits.max_regex_states;
        const char *loc = loc_of(c, &at);
        char msg[160];
        tg_regex_free(re);
        snprintf(msg, sizeof msg, "the schema's patterns need %zu %s together, over the limit of %zu a schema",
                 states ? c->regex_states : c->regex_ranges, states ? "NFA states" : "class ranges",
                 states ? c->o->limits.max_regex_states : c->o->limits.max_regex_ranges);
        if (loc) tg_sc_fail(c, loc, "%s", msg);
        return -1;
    }
    if (tg_sc_grow(c, (void **)&c->regexes, &c->cap_regexes, c->n_regexes + 1, sizeof *c->regexes)) {
        tg_regex_free(re);
        tg_sc_oom(c);
        return -1;
    }
    c->regexes[c->n_regexes] = re;
    ss = tg_regex_needs_scratch(re) ? tg_regex_scratch_size(re) : 0;
    if (ss > c->s->regex_scratch) c->s->regex_scratch = ss;
    *out = (uint32_t)c->n_regexes++;
    return 0;
}

static int names_of(sc *c, const cJSON *arr, tg_sname **out, uint32_t *n) {
    const cJSON *it;
    uint32_t k = 0, cnt = (uint32_t)cJSON_GetArraySize(arr);
    tg_sname *names = tg_arena_calloc(c->s->arena, cnt ? cnt : 1, sizeof *names);
    if (!names) { tg_sc_oom(c); return -1; }
    for (it = arr->child; it; it = it->next) {
        if (!tg_sj_IsString(it)) continue;
        names[k].s = it->valuestring;
        names[k].len = tg_json_strlen(it->valuestring);
        names[k].hash = tg_shash(names[k].s, names[k].len);
        k++;
    }
    *out = names;
    *n = k;
    return 0;
}

static size_t count_of(const cJSON *v) {
    double d = v->valuedouble;
    if (d <= 0) return 0;
    if (d >= 1e18) return (size_t)-1;
    return (size_t)d;
}

static uint32_t *node_list(sc *c, uint32_t ent, const cJSON *arr, lazy_loc at, uint32_t *n) {
    uint32_t cnt = (uint32_t)cJSON_GetArraySize(arr), k = 0;
    uint32_t *nodes = tg_arena_alloc(c->s->arena, (cnt ? cnt : 1) * sizeof *nodes);
    const cJSON *it;
    if (!nodes) { tg_sc_oom(c); return NULL; }
    for (it = arr->child; it; it = it->next, k++) {
        at.idx = k;
        nodes[k] = child(c, ent, it, at);
        if (nodes[k] == TG_SNONE) return NULL;
    }
    *n = cnt;
    return nodes;
}

#define KW(name) tg_sc_kw(n, kb, name)
#define LOC(name) tg_sc_loc_kw(c, e->loc, name)
#define EMIT(op, kw) emit(c, &nl, (op), e->loc, (kw))

int tg_sc_emit_node(sc *c, uint32_t id) {
    uint32_t ent = c->node_ent[id];
    const sc_ent *e = &c->ents[ent];
    const cJSON *n = e->node, *v;
    tg_dialect d = (tg_dialect)e->dialect;
    uint8_t voc = e->voc;
    tg_sins *in;
    size_t nl = 0, k;
    int is_2019 = d == TG_DIALECT_2019_09, is_2020 = d == TG_DIALECT_2020_12, modern = is_2019 || is_2020;
    const uint64_t kb = e->kb;

    if (tg_sj_IsBool(n)) {
        if (tg_sj_IsFalse(n)) {
            c->nodes[id].is_false = 1;
            if (!EMIT(TG_OP_FALSE, NULL)) return -1;
        }
        goto done;
    }
    /* references */
    v = KW("$ref");
    if (tg_sj_IsString(v)) {
        uint32_t t;
        const char *l = LOC("$ref");
        if (!l || tg_sc_resolve(c, ent, v->valuestring, tg_json_strlen(v->valuestring), l, &t)) return -1;
        e = &c->ents[ent];
        if (!(in = EMIT(TG_OP_REF, "$ref"))) return -1;
        if ((in->u.node = tg_sc_node_of(c, t)) == TG_SNONE) return -1;
        if (OLD_DIALECT(d)) goto done;
    }
    if (is_2020 && tg_sj_IsString(v = KW("$dynamicRef"))) {
        uint32_t t;
        const char *l = LOC("$dynamicRef"), *h;
        const cJSON *da;
        if (!l || tg_sc_resolve(c, ent, v->valuestring, tg_json_strlen(v->valuestring), l, &t)) return -1;
        e = &c->ents[ent];
        h = strchr(v->valuestring, '#');
        da = tg_sj_IsObject(c->ents[t].node) ? tg_json_getz(c->ents[t].node, "$dynamicAnchor") : NULL;
        if (h && h[1] && h[1] != '/' && tg_sj_IsString(da) && !strcmp(da->valuestring, h + 1)) {
            if (!(in = EMIT(TG_OP_DYNAMIC_REF, "$dynamicRef"))) return -1;
            in->u.dyn.anchor = h + 1;
            in->u.dyn.len = strlen(h + 1);
        } else if (!(in = EMIT(TG_OP_REF, "$dynamicRef"))) return -1;
        if ((in->u.dyn.node = tg_sc_node_of(c, t)) == TG_SNONE) return -1;
    }
    if (is_2019 && tg_sj_IsString(v = KW("$recursiveRef"))) {
        uint32_t t;
        const char *l = LOC("$recursiveRef");
        const cJSON *ra;
        if (!l || tg_sc_resolve(c, ent, v->valuestring, tg_json_strlen(v->valuestring), l, &t)) return -1;
        e = &c->ents[ent];
        ra = tg_sj_IsObject(c->ents[t].node) ? tg_json_getz(c->ents[t].node, "$recursiveAnchor") : NULL;
        if (!(in = EMIT(tg_sj_IsTrue(ra) ? TG_OP_RECURSIVE_REF : TG_OP_REF, "$recursiveRef"))) return -1;
        if ((in->u.dyn.node = tg_sc_node_of(c, t)) == TG_SNONE) return -1;
    }
    if (voc & TG_VOC_VALIDATION) {
        v = KW("type");
        if (tg_sj_IsString(v) || tg_sj_IsArray(v)) {
            uint32_t mask = 0;
            if (tg_sj_IsString(v)) mask = (uint32_t)type_bit(v->valuestring);
            else {
                const cJSON *it;
                for (it = v->child; it; it = it->next) if (tg_sj_IsString(it)) mask |= (uint32_t)type_bit(it->valuestring);
            }
            if (!(in = EMIT(TG_OP_TYPE, "type"))) return -1;
            in->u.mask = mask;
        }
        if (tg_sj_IsArray(v = KW("enum"))) {
            if (!(in = EMIT(TG_OP_ENUM, "enum"))) return -1;
            in->u.val.value = v;
            /* (NULL for a short enum, or values made to collide: scanned) */
            in->u.val.index = tg_senum_build(c->s->arena, v);
        }
        if (d != TG_DIALECT_DRAFT4 && (v = KW("const"))) {
            if (!(in = EMIT(TG_OP_CONST, "const"))) return -1;
            in->u.val.value = v;
        }
        /* (positive by its digits: 1e-400 is, though its double is 0) */
        if (tg_sj_IsNumber(v = KW("multipleOf")) &&
            (v->valuestring ? tg_json_decimal_cmp(v->valuestring, tg_json_strlen(v->valuestring), "0", 1) > 0
                            : v->valuedouble > 0)) {
            if (!(in = EMIT(TG_OP_MULTIPLE_OF, "multipleOf"))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (tg_sj_IsNumber(v = KW("maximum"))) {
            int ex = d == TG_DIALECT_DRAFT4 && tg_sj_IsTrue(KW("exclusiveMaximum"));
            if (!(in = EMIT(ex ? TG_OP_EXCL_MAXIMUM : TG_OP_MAXIMUM, "maximum"))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (tg_sj_IsNumber(v = KW("minimum"))) {
            int ex = d == TG_DIALECT_DRAFT4 && tg_sj_IsTrue(KW("exclusiveMinimum"));
            if (!(in = EMIT(ex ? TG_OP_EXCL_MINIMUM : TG_OP_MINIMUM, "minimum"))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (tg_sj_IsNumber(v = KW("exclusiveMaximum"))) {
            if (!(in = EMIT(TG_OP_EXCL_MAXIMUM, "exclusiveMaximum"))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (tg_sj_IsNumber(v = KW("exclusiveMinimum"))) {
            if (!(in = EMIT(TG_OP_EXCL_MINIMUM, "exclusiveMinimum"))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (tg_sj_IsNumber(v = KW("maxLength"))) {
            if (!(in = EMIT(TG_OP_MAX_LENGTH, "maxLength"))) return -1;
            in->u.count = count_of(v);
        }
        if (tg_sj_IsNumber(v = KW("minLength"))) {
            if (!(in = EMIT(TG_OP_MIN_LENGTH, "minLength"))) return -1;
            in->u.count = count_of(v);
        }
        if (tg_sj_IsString(v = KW("pattern"))) {
            uint32_t re;
            if (compile_regex(c, v, AT("pattern"), &re)) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_PATTERN, "pattern"))) return -1;
            in->u.re = re;
        }
        if (tg_sj_IsNumber(v = KW("maxItems"))) {
            if (!(in = EMIT(TG_OP_MAX_ITEMS, "maxItems"))) return -1;
            in->u.count = count_of(v);
        }
        if (tg_sj_IsNumber(v = KW("minItems"))) {
            if (!(in = EMIT(TG_OP_MIN_ITEMS, "minItems"))) return -1;
            in->u.count = count_of(v);
        }
        if (tg_sj_IsTrue(KW("uniqueItems"))) {
            if (!EMIT(TG_OP_UNIQUE_ITEMS, "uniqueItems")) return -1;
        }
        if (tg_sj_IsNumber(v = KW("maxProperties"))) {
            if (!(in = EMIT(TG_OP_MAX_PROPS, "maxProperties"))) return -1;
            in->u.count = count_of(v);
        }
        if (tg_sj_IsNumber(v = KW("minProperties"))) {
            if (!(in = EMIT(TG_OP_MIN_PROPS, "minProperties"))) return -1;
            in->u.count = count_of(v);
        }
        if (tg_sj_IsArray(v = KW("required")) && v->child) {
            if (!(in = EMIT(TG_OP_REQUIRED, "required"))) return -1;
            if (names_of(c, v, &in->u.req.names, &in->u.req.n)) return -1;
        }
        if (modern && tg_sj_IsObject(v = KW("dependentRequired"))) {
            const cJSON *it;
            uint32_t cnt = (uint32_t)cJSON_GetArraySize(v), j = 0;
            tg_sdep *deps = tg_arena_calloc(c->s->arena, cnt ? cnt : 1, sizeof *deps);
            if (!deps || !(in = EMIT(TG_OP_DEP_REQUIRED, "dependentRequired"))) { tg_sc_oom(c); return -1; }
            for (it = v->child; it; it = it->next) {
                if (!tg_sj_IsArray(it)) continue;
                deps[j].name.s = it->string; deps[j].name.len = tg_json_strlen(it->string);
                deps[j].node = TG_SNONE;
                if (names_of(c, it, &deps[j].required, &deps[j].n_required)) return -1;
                j++;
            }
            in->u.deps.deps = deps; in->u.deps.n = j;
        }
    }
    if ((c->o->format_assert || (voc & TG_VOC_FORMAT_ASSERTION)) && tg_sj_IsString(v = KW("format"))) {
        int f = tg_sformat_id(v->valuestring, tg_json_strlen(v->valuestring));
        if (f >= 0) {
            if (!(in = EMIT(TG_OP_FORMAT, "format"))) return -1;
            in->u.format = f;
        }
    }
    if (voc & TG_VOC_APPLICATOR) {
        static const struct { sc_kwname kw; int op; } lists[] = {
            {TG_SC_KWNAME("allOf"), TG_OP_ALL_OF}, {TG_SC_KWNAME("anyOf"), TG_OP_ANY_OF},
            {TG_SC_KWNAME("oneOf"), TG_OP_ONE_OF}};
        uint32_t n_prefix = 0;
        for (k = 0; k < 3; k++) {
            if (tg_sj_IsArray(v = tg_sc_kwt(n, kb, &lists[k].kw))) {
                uint32_t *nodes, cnt = 0;
                if (!(nodes = node_list(c, ent, v, AT(lists[k].kw.s), &cnt))) { if (!c->failed) tg_sc_oom(c); return -1; }
                e = &c->ents[ent];
                if (!(in = EMIT(lists[k].op, lists[k].kw.s))) return -1;
                in->u.list.nodes = nodes; in->u.list.n = cnt;
            }
        }
        if ((v = KW("not"))) {
            uint32_t nd;
            if ((nd = child(c, ent, v, AT("not"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_NOT, "not"))) return -1;
            in->u.node = nd;
        }
        if (d <= TG_DIALECT_DRAFT7 && (v = KW("if"))) {
            const cJSON *t = KW("then"), *el = KW("else");
            uint32_t ci, ti = TG_SNONE, ei = TG_SNONE;
            if ((ci = child(c, ent, v, AT("if"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (t && (ti = child(c, ent, t, AT("then"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (el && (ei = child(c, ent, el, AT("else"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_IF, "if"))) return -1;
            in->u.cond.c = ci; in->u.cond.t = ti; in->u.cond.e = ei;
        }
        /* arrays */
        {
            const char *pk = is_2020 ? "prefixItems" : "items";
            v = is_2020 ? KW("prefixItems") : KW("items");
            if (tg_sj_IsArray(v)) {
                uint32_t *nodes, cnt = 0;
                if (!(nodes = node_list(c, ent, v, AT(pk), &cnt))) { if (!c->failed) tg_sc_oom(c); return -1; }
                e = &c->ents[ent];
                if (!(in = EMIT(TG_OP_PREFIX_ITEMS, pk))) return -1;
                in->u.list.nodes = nodes; in->u.list.n = cnt;
                n_prefix = cnt;
                if (!is_2020 && (v = KW("additionalItems"))) {
                    uint32_t nd;
                    if ((nd = child(c, ent, v, AT("additionalItems"))) == TG_SNONE) return -1;
                    e = &c->ents[ent];
                    if (!(in = EMIT(TG_OP_ITEMS_FROM, "additionalItems"))) return -1;
                    in->u.items.node = nd; in->u.items.from = n_prefix;
                }
            }
            v = KW("items");
            if (v && (tg_sj_IsObject(v) || tg_sj_IsBool(v))) {
                uint32_t nd;
                if ((nd = child(c, ent, v, AT("items"))) == TG_SNONE) return -1;
                e = &c->ents[ent];
                if (!(in = EMIT(TG_OP_ITEMS_FROM, "items"))) return -1;
                in->u.items.node = nd; in->u.items.from = is_2020 ? n_prefix : 0;
            }
        }
        if (d != TG_DIALECT_DRAFT4 && (v = KW("contains"))) {
            uint32_t nd;
            const cJSON *mn = KW("minContains"), *mx = KW("maxContains");
            if ((nd = child(c, ent, v, AT("contains"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_CONTAINS, "contains"))) return -1;
            in->u.contains.node = nd;
            in->u.contains.min = 1;
            in->u.contains.max = (size_t)-1;
            in->u.contains.marks = is_2020;
            if (modern && (voc & TG_VOC_VALIDATION)) {
                if (tg_sj_IsNumber(mn)) in->u.contains.min = count_of(mn);
                if (tg_sj_IsNumber(mx)) in->u.contains.max = count_of(mx);
            }
        }
        /* objects */
        {
            const cJSON *pr = KW("properties"), *pp = KW("patternProperties"), *ap = KW("additionalProperties");
            if (!tg_sj_IsObject(pr)) pr = NULL;
            if (!tg_sj_IsObject(pp)) pp = NULL;
            if (ap && !tg_sj_IsObject(ap) && !tg_sj_IsBool(ap)) ap = NULL;
            if (pr || pp || ap) {
                tg_sprops *P = tg_arena_calloc(c->s->arena, 1, sizeof *P);
                const cJSON *it;
                uint32_t j = 0;
                if (!P) { tg_sc_oom(c); return -1; }
                P->additional = TG_SNONE;
                if (pr) {
                    uint32_t cnt = (uint32_t)cJSON_GetArraySize(pr);
                    P->props = tg_arena_calloc(c->s->arena, cnt ? cnt : 1, sizeof *P->props);
                    if (!P->props) { tg_sc_oom(c); return -1; }
                    for (it = pr->child; it; it = it->next) {
                        lazy_loc at = AT("properties");
                        tg_sprop *q = &P->props[j];
                        at.name = it->string;
                        q->name.s = it->string; q->name.len = tg_json_strlen(it->string);
                        q->name.hash = tg_shash(q->name.s, q->name.len);
                        P->bloom |= tg_sname_bit(q->name.s, q->name.len);
                        if ((q->node = child(c, ent, it, at)) == TG_SNONE) return -1;
                        e = &c->ents[ent];
                        j++;
                    }
                    P->n_props = j;
                    if (j > 8) {
                        uint32_t sz = 16, x;
                        while (sz < j * 2) sz *= 2;
                        P->table = tg_arena_calloc(c->s->arena, sz, sizeof *P->table);
                        if (!P->table) { tg_sc_oom(c); return -1; }
                        P->table_mask = sz - 1;
                        /* names chosen to share their hashes' low bits make one long
                         * run that every lookup walks: past 4 probes a name the
                         * table gives way to a binary search (tg_sprops_sort) */
                        size_t probes = 0;
                        for (x = 0; x < j && probes <= 4 * (size_t)j + 64; x++) {
                            uint32_t h = P->props[x].name.hash & P->table_mask;
                            while (P->table[h]) h = (h + 1) & P->table_mask, probes++;
                            P->table[h] = x + 1;
                        }
                        if (probes > 4 * (size_t)j + 64 && tg_sprops_sort(c->s->arena, P)) { tg_sc_oom(c); return -1; }
                    }
                }
                if (pp) {
                    uint32_t cnt = (uint32_t)cJSON_GetArraySize(pp);
                    P->patterns = tg_arena_calloc(c->s->arena, cnt ? cnt : 1, sizeof *P->patterns);
                    if (!P->patterns) { tg_sc_oom(c); return -1; }
                    j = 0;
                    for (it = pp->child; it; it = it->next) {
                        lazy_loc at = AT("patternProperties");
                        cJSON key;
                        at.name = it->string;
                        memset(&key, 0, sizeof key);
                        key.type = cJSON_String;
                        key.valuestring = it->string;
                        if (compile_regex(c, &key, at, &P->patterns[j].re)) return -1;
                        if ((P->patterns[j].node = child(c, ent, it, at)) == TG_SNONE) return -1;
                        e = &c->ents[ent];
                        j++;
                    }
                    P->n_patterns = j;
                    if (tg_spat_index(c->s->arena, P, c->regexes)) { tg_sc_oom(c); return -1; }
                }
                if (ap) {
                    if ((P->additional = child(c, ent, ap, AT("additionalProperties"))) == TG_SNONE) return -1;
                    e = &c->ents[ent];
                    P->additional_base = e->loc;
                }
                if (!(in = EMIT(TG_OP_PROPS, pr ? "properties" : pp ? "patternProperties" : "additionalProperties"))) return -1;
                in->u.props = P;
            }
        }
        /* "dependencies" is kept in 2019-09/2020-12 for compatibility (the
         * metaschemas still reserve it) */
        for (k = modern ? 0 : 1; k < 2; k++) {
            const char *dk = k == 0 ? "dependentSchemas" : "dependencies";
            int split = k == 1;
            v = k == 0 ? KW("dependentSchemas") : KW("dependencies");
            if (tg_sj_IsObject(v)) {
                const cJSON *it;
                uint32_t cnt = (uint32_t)cJSON_GetArraySize(v), js = 0, jr = 0;
                tg_sdep *ds = tg_arena_calloc(c->s->arena, cnt ? cnt : 1, sizeof *ds);
                tg_sdep *dr = tg_arena_calloc(c->s->arena, cnt ? cnt : 1, sizeof *dr);
                if (!ds || !dr) { tg_sc_oom(c); return -1; }
                for (it = v->child; it; it = it->next) {
                    if (tg_sj_IsArray(it)) {
                        if (!split) continue;
                        dr[jr].name.s = it->string; dr[jr].name.len = tg_json_strlen(it->string);
                        dr[jr].node = TG_SNONE;
                        if (names_of(c, it, &dr[jr].required, &dr[jr].n_required)) return -1;
                        jr++;
                    } else if (tg_sj_IsObject(it) || tg_sj_IsBool(it)) {
                        lazy_loc at = AT(dk);
                        at.name = it->string;
                        ds[js].name.s = it->string; ds[js].name.len = tg_json_strlen(it->string);
                        if ((ds[js].node = child(c, ent, it, at)) == TG_SNONE) return -1;
                        e = &c->ents[ent];
                        js++;
                    }
                }
                if (jr) {
                    if (!(in = EMIT(TG_OP_DEP_REQUIRED, dk))) return -1;
                    in->u.deps.deps = dr; in->u.deps.n = jr;
                }
                if (js) {
                    if (!(in = EMIT(TG_OP_DEP_SCHEMAS, dk))) return -1;
                    in->u.deps.deps = ds; in->u.deps.n = js;
                }
            }
        }
        if (d <= TG_DIALECT_DRAFT6 && (v = KW("propertyNames"))) {
            uint32_t nd;
            if ((nd = child(c, ent, v, AT("propertyNames"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_PROPERTY_NAMES, "propertyNames"))) return -1;
            in->u.node = nd;
        }
    }
    if (modern && (voc & TG_VOC_UNEVALUATED)) {
        if ((v = KW("unevaluatedItems"))) {
            uint32_t nd;
            if ((nd = child(c, ent, v, AT("unevaluatedItems"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_UNEVAL_ITEMS, "unevaluatedItems"))) return -1;
            in->u.node = nd;
            c->nodes[id].has_uneval = 1;
        }
        if ((v = KW("unevaluatedProperties"))) {
            uint32_t nd;
            if ((nd = child(c, ent, v, AT("unevaluatedProperties"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_UNEVAL_PROPS, "unevaluatedProperties"))) return -1;
            in->u.node = nd;
            c->nodes[id].has_uneval = 1;
        }
    }
done:
    if (c->failed) return -1;
    c->nodes[id].start = (uint32_t)c->n_ins;
    c->nodes[id].count = (uint32_t)nl;
    c->n_ins += nl;
    return 0;
}

/* Dynamic anchors of every resource that has a compiled node must be
 * compiled too: $dynamicRef may land on any of them at run time. */
int tg_sc_close_dynamic(sc *c) {
    size_t r, before;
    do {
        before = c->n_nodes;
        for (r = 0; r < c->n_res; r++) {
            uint32_t j;
            for (j = 0; j < c->res[r].n_dyn; j++)
                if (tg_sc_node_of(c, c->res[r].dyn[j].ent) == TG_SNONE) return -1;
            if (c->res[r].recursive_anchor && c->res[r].root_ent != TG_SNONE)
                if (tg_sc_node_of(c, c->res[r].root_ent) == TG_SNONE) return -1;
        }
        while (c->n_queue) {
            uint32_t id = c->queue[--c->n_queue];
            if (tg_sc_emit_node(c, id)) return -1;
        }
    } while (c->n_nodes != before);
    return 0;
}

