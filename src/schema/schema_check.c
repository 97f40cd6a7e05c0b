/* schema_check.c - what the compiler checks after emitting: in-place
 * reference cycles and reference bombs (expansion limit), and the schema
 * against its metaschema (compiled by tg_schema_compile itself, with the
 * check off, or taken from tg_schema_options.metaschemas / metaschema_cache). */
#include <stdio.h>
#include <string.h>

#include "schema_compiler.h"

/* The k-th subschema applied to the same instance location by `in`. */
static int inplace_child(const tg_sins *in, uint32_t k, uint32_t *out) {
    switch ((tg_sop)in->op) {
    case TG_OP_REF: case TG_OP_DYNAMIC_REF: case TG_OP_RECURSIVE_REF: case TG_OP_NOT:
        if (k) return 0;
        *out = in->u.node;
        return 1;
    case TG_OP_ALL_OF: case TG_OP_ANY_OF: case TG_OP_ONE_OF:
        if (k >= in->u.list.n) return 0;
        *out = in->u.list.nodes[k];
        return 1;
    case TG_OP_IF: {
        uint32_t v[3];
        uint32_t n = 0;
        v[n++] = in->u.cond.c;
        if (in->u.cond.t != TG_SNONE) v[n++] = in->u.cond.t;
        if (in->u.cond.e != TG_SNONE) v[n++] = in->u.cond.e;
        if (k >= n) return 0;
        *out = v[k];
        return 1;
    }
    case TG_OP_DEP_SCHEMAS:
        if (k >= in->u.deps.n) return 0;
        *out = in->u.deps.deps[k].node;
        return 1;
    default:
        return 0;
    }
}

/* 1 when some instruction applies a subschema in place. Without one every
 * node costs 1 and chains nothing, which no limit below refuses but a cap
 * of 0 (most tools' schemas: properties, items, leaves). */
static int any_inplace(const sc *c) {
    uint32_t ch;
    for (size_t i = 0; i < c->n_ins; i++)
        if (inplace_child(&c->ins[i], 0, &ch)) return 1;
    return 0;
}

/* Rejects reference cycles that never move into the instance (they could
 * only recurse until the depth limit), reference bombs: schemas whose
 * in-place applications (allOf/anyOf/oneOf/not/if/$ref/...) of one node
 * expand to more than max_subschemas * max_ref_depth evaluations, and
 * chains of references ($ref to a $ref to ..., counting only reference
 * edges: allOf/anyOf/not nest within the document, bounded by max_depth)
 * longer than max_ref_depth, which validation could not follow. Iterative, so any chain
 * length is safe to look at. */
int tg_sc_check_expansion(sc *c) {
    size_t n = c->n_nodes, sp = 0;
    uint64_t cap = (uint64_t)c->o->limits.max_subschemas * c->o->limits.max_ref_depth;
    if (cap && !any_inplace(c)) return 0;
    uint64_t *cost = tg_arena_calloc(c->tmp, n ? n : 1, sizeof *cost);
    uint32_t *chain = tg_arena_calloc(c->tmp, n ? n : 1, sizeof *chain); /* most references in a chain from a node */
    uint32_t *deep = tg_arena_calloc(c->tmp, n ? n : 1, sizeof *deep);   /* longest in-place chain from a node */
    uint8_t *state = tg_arena_calloc(c->tmp, n ? n : 1, 1);
    struct frame { uint32_t node, ins, sub; } *st = tg_arena_alloc(c->tmp, (n + 1) * sizeof *st);
    uint32_t root;
    if (!cost || !chain || !deep || !state || !st) { tg_sc_oom(c); return -1; }
    for (root = 0; root < n; root++) {
        if (state[root]) continue;
        st[sp].node = root; st[sp].ins = 0; st[sp].sub = 0; sp++;
        state[root] = 1;
        cost[root] = 1;
        while (sp) {
            struct frame *f = &st[sp - 1];
            const tg_snode *nd = &c->nodes[f->node];
            uint32_t ch;
            int found = 0;
            uint32_t hop = 0; /* 1: the edge is a reference ($ref, $dynamicRef, $recursiveRef) */
            while (f->ins < nd->count) {
                const tg_sins *ci = &c->ins[nd->start + f->ins];
                if (inplace_child(ci, f->sub, &ch)) {
                    f->sub++;
                    found = 1;
                    hop = ci->op == TG_OP_REF || ci->op == TG_OP_DYNAMIC_REF || ci->op == TG_OP_RECURSIVE_REF;
                    break;
                }
                f->ins++;
                f->sub = 0;
            }
            if (!found) {
                uint64_t v = cost[f->node];
                uint32_t len = chain[f->node], d = deep[f->node];
                state[f->node] = 2;
                sp--;
                if (d > c->o->limits.max_depth) { /* refs between nestings: the evaluator could not follow */
                    char lim[24];
                    snprintf(lim, sizeof lim, "%zu", c->o->limits.max_depth);
                    tg_sc_fail(c, c->ents[c->node_ent[f->node]].loc,
                               "subschemas applied in place one within another more than %s deep", lim);
                    return -1;
                }
                if (len > c->o->limits.max_ref_depth) {
                    char lim[24];
                    snprintf(lim, sizeof lim, "%zu", c->o->limits.max_ref_depth);
                    tg_sc_fail(c, c->ents[c->node_ent[f->node]].loc,
                               "a chain of more than %s references ($ref to $ref ...)", lim);
                    return -1;
                }
                if (sp) {
                    struct frame *pf = &st[sp - 1];
                    uint64_t *pc = &cost[pf->node];
                    *pc = *pc + v > cap + 1 ? cap + 1 : *pc + v;
                    const tg_sins *pi = &c->ins[c->nodes[pf->node].start + pf->ins]; /* the edge to us */
                    uint32_t w = pi->op == TG_OP_REF || pi->op == TG_OP_DYNAMIC_REF || pi->op == TG_OP_RECURSIVE_REF;
                    if (chain[pf->node] < len + w) chain[pf->node] = len + w;
                    if (deep[pf->node] < d + 1) deep[pf->node] = d + 1;
                }
                continue;
            }
            if (state[ch] == 1) {
                tg_sc_fail(c, c->ents[c->node_ent[ch]].loc, "reference cycle that never moves into the instance%s", "");
                return -1;
            }
            if (state[ch] == 2) {
                uint64_t *pc = &cost[f->node];
                *pc = *pc + cost[ch] > cap + 1 ? cap + 1 : *pc + cost[ch];
                if (chain[f->node] < chain[ch] + hop) chain[f->node] = chain[ch] + hop;
                if (deep[f->node] < deep[ch] + 1) deep[f->node] = deep[ch] + 1;
            } else {
                state[ch] = 1;
                cost[ch] = 1;
                st[sp].node = ch; st[sp].ins = 0; st[sp].sub = 0; sp++;
            }
        }
        if (cost[root] > cap) {
            tg_sc_fail(c, c->ents[c->node_ent[root]].loc,
                 "subschema expands to too many in-place applications (reference bomb)%s", "");
            return -1;
        }
    }
    for (root = 0; root < n; root++)
        if (cost[root] > cap) {
            tg_sc_fail(c, c->ents[c->node_ent[root]].loc,
                 "subschema expands to too many in-place applications (reference bomb)%s", "");
            return -1;
        }
    return 0;
}

/* The options a metaschema program is compiled with. */
static tg_schema_options meta_options(const tg_schema_options *base) {
    tg_schema_options mo = *base;
    mo.skip_metaschema_check = 1;
    mo.format_assert = 0;
    /* a program of its own, freed after the check: not in the arena of the
     * program being compiled (a registry's tool would keep it for good),
     * nor borrowing or pruning the wrapper document, which goes first */
    mo.arena = NULL;
    mo.borrow_document = 0;
    mo.prune_document = 0;
    /* the schema's own nesting is already bounded by max_depth (scan); its
     * metaschema applies ~4 subschemas per level of it */
    mo.limits.max_depth = (base->limits.max_depth ? base->limits.max_depth : 128) * 4;
    return mo;
}

/* Compiles the metaschema named by meta_uri (resolved among the resources
 * and the embedded metaschemas) through a { "$ref": uri } wrapper. */
static int compile_meta(const tg_allocator *alloc, const tg_schema_options *base, const char *meta_uri,
                        tg_schema **out, tg_buf *diag) {
    tg_schema_options mo = meta_options(base);
    tg_arena tmp;
    cJSON *mdoc, *ref;
    int r;
    mo.dialect = TG_DIALECT_2020_12;
    tg_arena_init(&tmp, *alloc);
    mdoc = tg_json_new(&tmp, cJSON_Object);
    ref = mdoc ? tg_json_new_string(&tmp, meta_uri, strlen(meta_uri)) : NULL;
    if (!ref || tg_json_set_key(&tmp, ref, "$ref", 4)) {
        tg_arena_free(&tmp);
        if (diag) tg_buf_puts(diag, "/: out of memory");
        return -2;
    }
    tg_json_append(mdoc, ref);
    r = tg_schema_compile(alloc, mdoc, &mo, out, diag);
    tg_arena_free(&tmp);
    return r;
}

/* The flat twin of an official metaschema (schema_meta_flat.c, written by
 * gen_flat_meta.py), or none (*out NULL) where the official one is flat
 * already: its verdicts are the official one's (schema_meta_flat_test.c,
 * schema_suite_test.c) and the evaluator visits one node per subschema
 * instead of eight. */
static int compile_flat(const tg_allocator *alloc, const tg_schema_options *base, tg_dialect d, tg_schema **out,
                        tg_buf *diag) {
    const char *text = tg_smeta_flat(d);
    tg_schema_options mo = meta_options(base);
    tg_arena tmp;
    tg_json_error je;
    int r = -1;
    *out = NULL;
    if (!text) return 0;
    tg_arena_init(&tmp, *alloc);
    cJSON *doc = tg_json_parse(&tmp, text, strlen(text), NULL, &je);
    if (doc) r = tg_schema_compile(alloc, doc, &mo, out, diag);
    else if (je.status == TG_JSON_NOMEM) r = -2;
    else if (diag) tg_buf_puts(diag, "/: the flat metaschema does not parse");
    tg_arena_free(&tmp);
    return r;
}

int tg_schema_compile_metaschema(const tg_allocator *alloc, tg_dialect dialect, tg_schema **out, tg_buf *diag) {
    tg_schema_options o = tg_schema_default_options();
    tg_dialect d = dialect == TG_DIALECT_AUTO ? TG_DIALECT_2020_12 : dialect;
    int r = compile_meta(alloc, &o, tg_smeta_uri(dialect), out, diag);
    if (r != 0) return r;
    (*out)->meta_of = d;
    if ((r = compile_flat(alloc, &o, d, &(*out)->flat, diag)) != 0) {
        tg_schema_free(*out);
        *out = NULL;
        return r;
    }
    return 0;
}

/* The metaschema itself did not compile (mr: -2 memory, else its own
 * diagnostics in mdiag, which is freed): -1, the failure recorded. */
static int meta_failed(sc *c, int mr, tg_buf *mdiag) {
    if (mr == -2) {
        tg_sc_oom(c); /* memory, not the schema */
    } else {
        tg_buf_putc(mdiag, 0);
        tg_sc_fail(c, "/$schema", "metaschema does not compile: %s", mdiag->data ? mdiag->data : "");
    }
    tg_buf_free(mdiag);
    return -1;
}

int tg_sc_meta_check(sc *c, const cJSON *root, const char *meta_uri, tg_dialect official) {
    tg_schema *m = NULL;
    const tg_schema *use;
    tg_buf mdiag;
    tg_arena_mark mark;
    int r;
    tg_buf_init(&mdiag, c->s->alloc, 0);
    if (official != TG_DIALECT_AUTO && !c->o->metaschemas[official] && c->o->metaschema_cache &&
        !c->o->metaschema_cache[official]) {
        /* the caller's cache: compiled on first use, kept by the caller */
        int mr = tg_schema_compile_metaschema(&c->s->alloc, official, &c->o->metaschema_cache[official], &mdiag);
        if (mr != 0) return meta_failed(c, mr, &mdiag);
    }
    const tg_schema *official_prog = official == TG_DIALECT_AUTO ? NULL
                                     : c->o->metaschemas[official] ? c->o->metaschemas[official]
                                     : c->o->metaschema_cache ? c->o->metaschema_cache[official]
                                                              : NULL;
    if (official_prog && official_prog->meta_of == official) {
        use = official_prog;
    } else {
        int mr = compile_meta(&c->s->alloc, c->o, meta_uri, &m, &mdiag);
        if (mr != 0) return meta_failed(c, mr, &mdiag);
        use = m;
    }
    tg_buf_reset(&mdiag);
    /* the verdict first (no error text, stops early); the diagnostics only
     * for a schema that fails. Scratch from the compiler's own arena. */
    mark = tg_arena_save(c->tmp);
    r = tg_sval(use->flat ? use->flat : use, root, c->tmp, TG_OUTPUT_FLAG, 0, NULL, 1);
    tg_arena_rewind(c->tmp, mark);
    if (r == 0) {
        tg_schema_errors to = {&mdiag, NULL, NULL};
        r = tg_sval(use, root, c->tmp, TG_OUTPUT_BASIC, 3, &to, 1);
        tg_arena_rewind(c->tmp, mark);
    }
    if (r == 0 && !c->failed) {
        /* "<pointer into the schema>: <message> (metaschema <keyword>)" */
        c->failed = 1;
        if (c->diag && mdiag.data) tg_buf_append(c->diag, mdiag.data, mdiag.len);
    } else if (r == -2) {
        tg_sc_oom(c); /* memory, not the schema */
    } else if (r != 1) {
        tg_sc_fail(c, "", "metaschema check failed (evaluation limit)%s", "");
    }
    tg_buf_free(&mdiag);
    tg_schema_free(m);
    return r == 1 ? 0 : -1;
}

