/* schema_compile.c - schema documents -> program: the public entry points.
 *
 * Three steps. (1) scan (schema_resolve.c): index every document reached.
 * (2) emit (schema_emit.c): a worklist turns each reachable subschema into a
 * node whose instructions are one contiguous range of the flat instruction
 * array; references become node indices. (3) check (schema_check.c):
 * expansion limits, then the root against its metaschema. Nothing recurses
 * along references, so a chain of any length cannot exhaust the stack. */
#include <string.h>

#include "schema_compiler.h"

tg_schema_options tg_schema_default_options(void) {
    tg_schema_options o;
    memset(&o, 0, sizeof o);
    o.dialect = TG_DIALECT_AUTO;
    o.limits.max_depth = 128;
    o.limits.max_subschemas = 10000;
    o.limits.max_ref_depth = 64;
    o.limits.max_regex_bytes = 4096;
    o.limits.max_regex_states = 200000;
    o.limits.max_regex_ranges = 131072;
    o.limits.max_eval_steps = 10000000;
    return o;
}

void tg_schema_free(tg_schema *s) {
    size_t i;
    tg_arena own;
    if (!s) return;
    tg_schema_free(s->flat);
    for (i = 0; i < s->n_regexes; i++) tg_regex_free(s->regexes[i]);
    if (s->arena != &s->own_arena) return; /* the caller's arena holds the rest */
    own = s->own_arena; /* (s is in it) */
    tg_arena_free(&own);
}

tg_dialect tg_schema_dialect(const tg_schema *s) { return s->dialect; }

const cJSON *tg_schema_document(const tg_schema *s) { return s->doc; }

/* How the root document comes into the program. */
static sc_doc doc_mode(const tg_schema_options *o) {
    return o->borrow_document ? SC_DOC_BORROW : o->prune_document ? SC_DOC_PRUNE : SC_DOC_COPY;
}

/* About the bytes of the program of a document of clone size est that
 * copies `copy` bytes of it (0 borrowed). */
static size_t program_estimate(size_t est, size_t copy) {
    return copy + est + est / 4 + 512 + sizeof(tg_schema);
}

/* The program's tg_schema: in the caller's arena, then readied for
 * `reserve` bytes of program, or first in an arena of its own whose first
 * chunk is `reserve` bytes (program_estimate counts the tg_schema): one
 * block a program. NULL when refused. */
static tg_schema *new_program(const tg_allocator *alloc, const tg_schema_options *o, size_t reserve) {
    tg_schema *s;
    tg_arena own;
    if (o->arena) {
        if (!(s = tg_arena_alloc(o->arena, sizeof *s))) return NULL;
        memset(s, 0, sizeof *s);
        s->arena = o->arena;
        (void)tg_arena_reserve(s->arena, reserve);
    } else {
        tg_arena_init(&own, *alloc);
        (void)tg_arena_reserve(&own, reserve); /* (a refusal is left to the allocation) */
        if (!(s = tg_arena_alloc(&own, sizeof *s))) {
            tg_arena_free(&own);
            return NULL;
        }
        memset(s, 0, sizeof *s);
        s->own_arena = own;
        s->arena = &s->own_arena;
    }
    s->alloc = *alloc;
    s->limits = o->limits;
    return s;
}

/* Each resource a $ref reached is checked against its dialect's metaschema
 * as the root is ({"minLength":-1} would otherwise be taken, and judged as
 * the evaluator happens to read it); its diagnostics name it. One never
 * reached is never evaluated, so it is left as it is. 0, or -1 failed. */
static int meta_check_resources(sc *c) {
    for (size_t i = 0; i < c->o->n_resources; i++) {
        const tg_schema_resource *r = &c->o->resources[i];
        uint32_t e;
        if (!r->uri || !r->schema) continue;
        size_t n = strlen(r->uri);
        while (n && r->uri[n - 1] == '#') n--;
        if (!tg_sc_smap_find(&c->by_uri, r->uri, n, &e)) continue;
        size_t from = c->diag ? c->diag->len : 0;
        tg_dialect d = (tg_dialect)c->ents[e].dialect;
        if (!tg_sc_meta_check(c, c->ents[e].node, tg_smeta_uri(d), d)) continue;
        if (c->diag && !c->oom && c->diag->len > from) {
            /* "resource '<uri>': <pointer>: <message>; ..." */
            size_t len = c->diag->len - from;
            char *text = tg_arena_alloc(c->tmp, len);
            if (!text) return -1;
            memcpy(text, c->diag->data + from, len);
            c->diag->len = from;
            tg_buf_printf(c->diag, "resource '%s': ", r->uri);
            tg_buf_append(c->diag, text, len);
        }
        return -1;
    }
    return 0;
}

/* Gives back the compiler's working memory: its own arena, or the caller's
 * as it was found (emptied into one chunk when it was empty, so the next
 * compile reuses that chunk; rewound when a compile is nested in another). */
static void done_tmp(sc *c, int was_empty, tg_arena_mark m) {
    if (c->tmp == &c->own_tmp) tg_arena_free(c->tmp);
    else if (was_empty) tg_arena_reset_max(c->tmp, 1u << 20);
    else tg_arena_rewind(c->tmp, m);
}

int tg_schema_compile(const tg_allocator *alloc, const cJSON *schema, const tg_schema_options *opts, tg_schema **out,
                      tg_buf *diag) {
    sc c;
    tg_schema_options o = opts ? *opts : tg_schema_default_options();
    tg_schema *s;
    uint32_t root_ent;
    size_t i;
    *out = NULL;
    if (!o.limits.max_depth) o.limits.max_depth = 128;
    if (!o.limits.max_subschemas) o.limits.max_subschemas = 10000;
    if (!o.limits.max_ref_depth) o.limits.max_ref_depth = 64;
    if (!o.limits.max_regex_bytes) o.limits.max_regex_bytes = 4096;
    if (!o.limits.max_regex_states) o.limits.max_regex_states = 200000;
    if (!o.limits.max_regex_ranges) o.limits.max_regex_ranges = 131072;
    if (!o.limits.max_eval_steps) o.limits.max_eval_steps = 10000000;
    memset(&c, 0, sizeof c);
    c.o = &o;
    c.diag = diag;
    tg_sc_scan_init(&c);
    if (o.scratch) {
        c.tmp = o.scratch;
    } else {
        tg_arena_init(&c.own_tmp, *alloc);
        c.tmp = &c.own_tmp;
    }
    /* first chunks sized from the document (about one document's worth of
     * program, several of working state) instead of doubling up from 1 KiB;
     * a refusal here is left to the allocations that follow */
    size_t whole = 0, program = 0;
    if (schema) {
        size_t est, copy;
        if (doc_mode(&o) == SC_DOC_PRUNE) { /* (what the copy leaves out makes no program either) */
            sc_prune_plan p = tg_sc_prune_plan(c.tmp, schema); /* (tmp left as it was) */
            whole = p.whole;
            est = copy = p.size;
            c.prune_keep = p.keep;
        } else {
            whole = est = copy = tg_json_clone_size(schema);
            if (doc_mode(&o) == SC_DOC_BORROW) copy = 0;
        }
        program = program_estimate(est, copy);
    }
    if (!(s = new_program(alloc, &o, program))) {
        if (c.tmp == &c.own_tmp) tg_arena_free(c.tmp);
        if (diag) tg_buf_puts(diag, "/: out of memory");
        return -2;
    }
    c.s = s;
    tg_arena_mark scratch_mark = {NULL, 0};
    int scratch_empty = 0;
    if (o.scratch) {
        scratch_mark = tg_arena_save(o.scratch);
        scratch_empty = o.scratch->used == 0;
    }
    if (schema) (void)tg_arena_reserve(c.tmp, whole > (1u << 20) ? (8u << 20) : 8 * whole + 8192);
    tg_json_index_init(&c.ptr_ix, c.tmp);
    c.def_dialect = o.dialect == TG_DIALECT_AUTO ? TG_DIALECT_2020_12 : o.dialect;
    if (!schema || (!tg_sj_IsObject(schema) && !tg_sj_IsBool(schema))) {
        tg_sc_fail(&c, "", "a schema must be an object or a boolean%s", "");
        goto error;
    }
    /* a resource that is no schema is refused by name: taken as one, a $ref
     * to it resolved to the referring document's root (fail-open) */
    for (i = 0; i < o.n_resources; i++)
        if (o.resources[i].schema && !tg_sj_IsObject(o.resources[i].schema) && !tg_sj_IsBool(o.resources[i].schema)) {
            tg_sc_fail(&c, "", "resource '%s' is not a schema (an object or a boolean)",
                       o.resources[i].uri ? o.resources[i].uri : "");
            goto error;
        }
    if (tg_sc_add_doc(&c, schema, "", 0, "", doc_mode(&o), &root_ent)) goto error;
    s->doc = c.ents[root_ent].node;
    s->dialect = (tg_dialect)c.ents[root_ent].dialect;
    if ((s->root = tg_sc_node_of(&c, root_ent)) == TG_SNONE) goto error;
    while (c.n_queue) {
        uint32_t id = c.queue[--c.n_queue];
        if (tg_sc_emit_node(&c, id)) goto error;
    }
    if (tg_sc_close_dynamic(&c)) goto error;
    if (tg_sc_check_expansion(&c)) goto error;
    /* into the program */
    s->ins = tg_arena_alloc(s->arena, (c.n_ins ? c.n_ins : 1) * sizeof *s->ins);
    s->nodes = tg_arena_alloc(s->arena, (c.n_nodes ? c.n_nodes : 1) * sizeof *s->nodes);
    s->res = tg_arena_calloc(s->arena, c.n_res ? c.n_res : 1, sizeof *s->res);
    s->regexes = tg_arena_alloc(s->arena, (c.n_regexes ? c.n_regexes : 1) * sizeof *s->regexes);
    if (!s->ins || !s->nodes || !s->res || !s->regexes) { tg_sc_oom(&c); goto error; }
    if (c.n_ins) memcpy(s->ins, c.ins, c.n_ins * sizeof *s->ins);
    if (c.n_nodes) memcpy(s->nodes, c.nodes, c.n_nodes * sizeof *s->nodes);
    if (c.n_regexes) memcpy(s->regexes, c.regexes, c.n_regexes * sizeof *s->regexes);
    s->n_ins = c.n_ins;
    s->n_nodes = c.n_nodes;
    s->n_regexes = c.n_regexes;
    c.n_regexes = 0;
    s->n_res = c.n_res;
    for (i = 0; i < c.n_res; i++) {
        tg_sres *r = &s->res[i];
        uint32_t j, k = 0;
        r->uri = c.res[i].uri;
        r->recursive_anchor = c.res[i].recursive_anchor;
        r->root = c.res[i].root_ent != TG_SNONE ? c.ents[c.res[i].root_ent].prog : TG_SNONE;
        if (c.res[i].n_dyn) {
            r->dyn = tg_arena_alloc(s->arena, c.res[i].n_dyn * sizeof *r->dyn);
            if (!r->dyn) { tg_sc_oom(&c); goto error; }
            for (j = 0; j < c.res[i].n_dyn; j++) {
                uint32_t p = c.ents[c.res[i].dyn[j].ent].prog;
                if (p == TG_SNONE) continue;
                r->dyn[k].name = c.res[i].dyn[j].name;
                r->dyn[k].len = c.res[i].dyn[j].len;
                r->dyn[k].node = p;
                k++;
            }
        }
        r->n_dyn = k;
    }
    for (i = 0; i < c.n_nodes; i++) {
        const tg_sres *r = &s->res[s->nodes[i].resource];
        uint32_t k;
        int leaf = s->nodes[i].count > 0 && !s->nodes[i].has_uneval;
        s->nodes[i].scoped = r->n_dyn > 0 || (r->recursive_anchor && r->root != TG_SNONE);
        for (k = 0; leaf && k < s->nodes[i].count; k++) {
            switch ((tg_sop)s->ins[s->nodes[i].start + k].op) {
            case TG_OP_TYPE: case TG_OP_MAX_LENGTH: case TG_OP_MIN_LENGTH: case TG_OP_MAXIMUM: case TG_OP_MINIMUM:
            case TG_OP_PATTERN: case TG_OP_MAX_ITEMS: case TG_OP_ENUM: break;
            default: leaf = 0; break;
            }
        }
        s->nodes[i].leaf = (uint8_t)leaf;
    }
    s->stream = (uint8_t)tg_schema_streamable(s);
    if (!o.skip_metaschema_check) {
        const cJSON *sv = tg_sj_IsObject(schema) ? tg_json_getz(c.ents[root_ent].node, "$schema") : NULL;
        const char *mu = tg_sj_IsString(sv) ? sv->valuestring : tg_smeta_uri(s->dialect);
        tg_dialect official = s->dialect;
        if (tg_sj_IsString(sv) && tg_sc_dialect_of_uri(mu, strlen(mu)) == TG_DIALECT_AUTO) {
            uint32_t e;
            /* a custom metaschema among the resources, else the dialect's */
            if (!tg_sc_smap_find(&c.by_uri, mu, tg_suri_nofrag_len(mu), &e)) mu = tg_smeta_uri(s->dialect);
            else official = TG_DIALECT_AUTO;
        } else if (tg_sj_IsString(sv)) {
            mu = tg_smeta_uri(tg_sc_dialect_of_uri(mu, strlen(mu)));
        }
        /* (the document as given: a pruned copy lacks what the metaschema judges too) */
        if (tg_sc_meta_check(&c, schema, mu, official)) goto error;
        if (meta_check_resources(&c)) goto error;
    }
    if (o.ref_probes) *o.ref_probes += c.ptr_ix.probes;
    done_tmp(&c, scratch_empty, scratch_mark);
    if (s->arena != &s->own_arena) s->arena = NULL; /* the caller's: used while compiling only */
    *out = s;
    return 0;
error:
    if (!c.failed) tg_sc_oom(&c);
    for (i = 0; i < c.n_regexes; i++) tg_regex_free(c.regexes[i]);
    done_tmp(&c, scratch_empty, scratch_mark);
    tg_schema_free(s);
    return c.oom ? -2 : -1;
}
