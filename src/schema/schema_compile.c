/* schema_compile.c - schema documents -> program.
 *
 * Three steps. (1) scan: walk each document once (the root, then every
 * registered resource or embedded metaschema a reference reaches), record
 * each subschema's resource, dialect, vocabularies and location, and index
 * $id / $anchor / $dynamicAnchor URIs. (2) emit: a worklist turns each
 * reachable subschema into a node whose instructions are one contiguous
 * range of the flat instruction array; references become node indices, so
 * cycles cost nothing and nothing is expanded. (3) check: the root is
 * validated against its metaschema (itself compiled by this file with the
 * check off). No recursion follows references, so a chain of references of
 * any length cannot exhaust the stack. */
#include <string.h>
#include <stdio.h>

#include "schema_internal.h"

#define OLD_DIALECT(d) ((d) >= TG_DIALECT_DRAFT7)

/* ---- small maps (compile-time only, in the temp arena) ---- */

typedef struct smap_slot { const void *k; size_t klen; uint32_t h; uint32_t v; } smap_slot;
typedef struct smap { smap_slot *slots; size_t cap, n; } smap;

typedef struct sc_ent {
    const cJSON *node;
    uint32_t res;
    uint8_t dialect, voc;
    const char *loc;
    uint32_t prog;
} sc_ent;

typedef struct sc_dyn { const char *name; size_t len; uint32_t ent; } sc_dyn;

typedef struct sc_res {
    const char *uri;
    uint32_t root_ent;
    uint8_t recursive_anchor;
    sc_dyn *dyn;
    uint32_t n_dyn, cap_dyn;
} sc_res;

typedef struct sc {
    tg_schema *s;
    tg_arena tmp;
    const tg_schema_options *o;
    tg_buf *diag;
    int failed;
    sc_ent *ents; size_t n_ents, cap_ents;
    smap by_node;   /* key: pointer bytes */
    smap by_uri;    /* key: uri bytes -> ent */
    sc_res *res; size_t n_res, cap_res;
    uint32_t *queue; size_t n_queue, cap_queue;
    tg_sins *ins; size_t n_ins, cap_ins;
    tg_snode *nodes; size_t n_nodes, cap_nodes;
    tg_regex **regexes; size_t n_regexes, cap_regexes;
    uint32_t *node_ent;  /* node -> ent */
    size_t cap_node_ent;
    tg_dialect def_dialect;
    int load_depth;
} sc;

static int grow(sc *c, void **arr, size_t *cap, size_t need, size_t elem) {
    size_t nc;
    void *p;
    if (need <= *cap) return 0;
    nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    p = tg_arena_alloc(&c->tmp, nc * elem);
    if (!p) return -1;
    if (*arr && *cap) memcpy(p, *arr, *cap * elem);
    *arr = p;
    *cap = nc;
    return 0;
}

static void fail(sc *c, const char *loc, const char *fmt, const char *arg) {
    if (c->failed) return;
    c->failed = 1;
    if (!c->diag) return;
    tg_buf_printf(c->diag, "%s: ", (loc && *loc) ? loc : "/");
    tg_buf_printf(c->diag, fmt, arg ? arg : "");
}

static void oom(sc *c) { fail(c, "", "out of memory%s", ""); }

static int smap_find(const smap *m, const void *k, size_t klen, uint32_t *v) {
    uint32_t h;
    size_t i;
    if (!m->cap) return 0;
    h = tg_shash(k, klen);
    for (i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const smap_slot *sl = &m->slots[i];
        if (!sl->k) return 0;
        if (sl->h == h && sl->klen == klen && !memcmp(sl->k, k, klen)) { *v = sl->v; return 1; }
    }
}

/* k must outlive the map. Overwrites nothing: the first definition wins. */
static int smap_put(sc *c, smap *m, const void *k, size_t klen, uint32_t v) {
    uint32_t h, dummy;
    size_t i;
    if (smap_find(m, k, klen, &dummy)) return 0;
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64, j;
        smap_slot *ns = tg_arena_calloc(&c->tmp, nc, sizeof *ns);
        if (!ns) return -1;
        for (j = 0; j < m->cap; j++) {
            if (m->slots[j].k) {
                size_t x = m->slots[j].h & (nc - 1);
                while (ns[x].k) x = (x + 1) & (nc - 1);
                ns[x] = m->slots[j];
            }
        }
        m->slots = ns;
        m->cap = nc;
    }
    h = tg_shash(k, klen);
    for (i = h & (m->cap - 1); m->slots[i].k; i = (i + 1) & (m->cap - 1)) {}
    m->slots[i].k = k; m->slots[i].klen = klen; m->slots[i].h = h; m->slots[i].v = v;
    m->n++;
    return 0;
}

static int ent_of(const sc *c, const cJSON *n, uint32_t *e) {
    const cJSON **kp = &n;
    return smap_find(&c->by_node, kp, sizeof n, e);
}

/* ---- locations ---- */

static char *loc_join(sc *c, const char *base, const char *tok, size_t toklen) {
    size_t bl = strlen(base), i, o;
    char *r = tg_arena_alloc(&c->s->arena, bl + 2 + toklen * 2 + 1);
    if (!r) return NULL;
    memcpy(r, base, bl);
    o = bl;
    r[o++] = '/';
    for (i = 0; i < toklen; i++) {
        char ch = tok[i];
        if (ch == '~') { r[o++] = '~'; r[o++] = '0'; }
        else if (ch == '/') { r[o++] = '~'; r[o++] = '1'; }
        else if (ch == 0) { r[o++] = '?'; }
        else r[o++] = ch;
    }
    r[o] = 0;
    return r;
}

static char *loc_kw(sc *c, const char *base, const char *kw) { return loc_join(c, base, kw, strlen(kw)); }

static char *loc_idx(sc *c, const char *base, size_t i) {
    char num[24];
    int n = snprintf(num, sizeof num, "%zu", i);
    return loc_join(c, base, num, (size_t)n);
}

/* ---- dialects ---- */

static tg_dialect dialect_of_uri(const char *u, size_t n) {
    static const struct { const char *u; tg_dialect d; } k[] = {
        {"json-schema.org/draft/2020-12/schema", TG_DIALECT_2020_12},
        {"json-schema.org/draft/2019-09/schema", TG_DIALECT_2019_09},
        {"json-schema.org/draft-07/schema", TG_DIALECT_DRAFT7},
        {"json-schema.org/draft-06/schema", TG_DIALECT_DRAFT6},
        {"json-schema.org/draft-04/schema", TG_DIALECT_DRAFT4},
    };
    size_t i;
    if (n >= 8 && !memcmp(u, "https://", 8)) { u += 8; n -= 8; }
    else if (n >= 7 && !memcmp(u, "http://", 7)) { u += 7; n -= 7; }
    else return TG_DIALECT_AUTO;
    if (n && u[n - 1] == '#') n--;
    for (i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strlen(k[i].u) == n && !memcmp(k[i].u, u, n)) return k[i].d;
    return TG_DIALECT_AUTO;
}

static int load_doc(sc *c, const char *uri, size_t urilen);

/* The dialect and vocabularies named by a $schema value. */
static void dialect_of_schema(sc *c, const cJSON *sv, uint8_t *d, uint8_t *voc, int depth) {
    const char *u = sv->valuestring;
    size_t n = tg_json_strlen(u);
    tg_dialect k = dialect_of_uri(u, n);
    uint32_t e;
    if (k != TG_DIALECT_AUTO) { *d = (uint8_t)k; *voc = TG_VOC_ALL; return; }
    if (depth > 8) return;
    /* a custom metaschema among the resources */
    if (!smap_find(&c->by_uri, u, tg_suri_nofrag_len(u), &e)) {
        if (load_doc(c, u, tg_suri_nofrag_len(u)) != 0 || c->failed) { c->failed = 0; return; }
        if (!smap_find(&c->by_uri, u, tg_suri_nofrag_len(u), &e)) return;
    }
    if (e >= c->n_ents) return;
    {
        const cJSON *meta = c->ents[e].node;
        const cJSON *vocab = cJSON_IsObject(meta) ? tg_json_getz(meta, "$vocabulary") : NULL;
        *d = c->ents[e].dialect;
        *voc = TG_VOC_ALL;
        if (cJSON_IsObject(vocab)) {
            const cJSON *it;
            uint8_t m = TG_VOC_CORE;
            for (it = vocab->child; it; it = it->next) {
                const char *k2 = it->string;
                const char *slash = strrchr(k2, '/');
                if (!slash) continue;
                slash++;
                if (!strcmp(slash, "applicator")) m |= TG_VOC_APPLICATOR | (*d == TG_DIALECT_2019_09 ? TG_VOC_UNEVALUATED : 0);
                else if (!strcmp(slash, "unevaluated")) m |= TG_VOC_UNEVALUATED;
                else if (!strcmp(slash, "validation")) m |= TG_VOC_VALIDATION;
                else if (!strcmp(slash, "format-assertion")) m |= TG_VOC_FORMAT_ASSERTION;
            }
            *voc = m;
        }
    }
}

/* ---- scan ---- */

static int new_res(sc *c, const char *uri, uint32_t root_ent, uint32_t *out) {
    sc_res *r;
    if (grow(c, (void **)&c->res, &c->cap_res, c->n_res + 1, sizeof *c->res)) return -1;
    r = &c->res[c->n_res];
    memset(r, 0, sizeof *r);
    r->uri = uri;
    r->root_ent = root_ent;
    *out = (uint32_t)c->n_res++;
    return 0;
}

static int add_anchor(sc *c, uint32_t res, const char *name, size_t len, uint32_t ent) {
    const char *ru = c->res[res].uri;
    size_t rl = strlen(ru);
    char *k = tg_arena_alloc(&c->tmp, rl + len + 2);
    if (!k) return -1;
    memcpy(k, ru, rl);
    k[rl] = '#';
    memcpy(k + rl + 1, name, len);
    k[rl + 1 + len] = 0;
    return smap_put(c, &c->by_uri, k, rl + 1 + len, ent);
}

static const char *const single_kw[] = {
    "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then",
    "else", "unevaluatedItems", "unevaluatedProperties", "items", "contentSchema", NULL};
static const char *const array_kw[] = {"allOf", "anyOf", "oneOf", "prefixItems", "items", NULL};
static const char *const map_kw[] = {"properties", "patternProperties", "$defs", "definitions",
                                     "dependentSchemas", "dependencies", NULL};

static int scan(sc *c, const cJSON *n, uint32_t res, uint8_t d, uint8_t voc, const char *loc, size_t depth,
                int is_root, uint32_t *out_ent) {
    uint32_t e, i;
    const cJSON *v, *it;
    int new_resource = is_root;
    if (ent_of(c, n, &e)) { if (out_ent) *out_ent = e; return 0; }
    if (depth > c->o->limits.max_depth) { fail(c, loc, "schema nested deeper than max_depth%s", ""); return -1; }
    if (!cJSON_IsObject(n) && !cJSON_IsBool(n)) {
        if (out_ent) *out_ent = TG_SNONE;
        return 0;
    }
    if (cJSON_IsObject(n)) {
        const char *idkw = d == TG_DIALECT_DRAFT4 ? "id" : "$id";
        const cJSON *sv = tg_json_getz(n, "$schema");
        v = tg_json_getz(n, idkw);
        if (cJSON_IsString(v) && OLD_DIALECT(d) && tg_json_getz(n, "$ref")) v = NULL;
        if (cJSON_IsString(v) && v->valuestring[0] != '#') {
            size_t vl = tg_json_strlen(v->valuestring);
            char *full = tg_suri_resolve(&c->tmp, c->res[res].uri, v->valuestring, vl);
            char *nf;
            if (!full) { oom(c); return -1; }
            nf = tg_arena_strndup(&c->s->arena, full, tg_suri_nofrag_len(full));
            if (!nf) { oom(c); return -1; }
            if (is_root || strcmp(nf, c->res[res].uri) != 0) {
                if (!is_root) {
                    if (new_res(c, nf, (uint32_t)c->n_ents, &res)) { oom(c); return -1; }
                } else {
                    c->res[res].uri = nf;
                }
                new_resource = 1;
            }
        }
        if (new_resource && cJSON_IsString(sv)) dialect_of_schema(c, sv, &d, &voc, 0);
    }
    /* the entry */
    if (grow(c, (void **)&c->ents, &c->cap_ents, c->n_ents + 1, sizeof *c->ents)) { oom(c); return -1; }
    e = (uint32_t)c->n_ents++;
    c->ents[e].node = n;
    c->ents[e].res = res;
    c->ents[e].dialect = d;
    c->ents[e].voc = voc;
    c->ents[e].loc = loc;
    c->ents[e].prog = TG_SNONE;
    {
        const cJSON **kp = tg_arena_alloc(&c->tmp, sizeof *kp);
        if (!kp) { oom(c); return -1; }
        *kp = n;
        if (smap_put(c, &c->by_node, kp, sizeof n, e)) { oom(c); return -1; }
    }
    if (out_ent) *out_ent = e;
    if (new_resource) {
        c->res[res].root_ent = e;
        if (smap_put(c, &c->by_uri, c->res[res].uri, strlen(c->res[res].uri), e)) { oom(c); return -1; }
    }
    if (!cJSON_IsObject(n)) return 0;
    /* anchors */
    if (OLD_DIALECT(d)) {
        const char *idkw = d == TG_DIALECT_DRAFT4 ? "id" : "$id";
        v = tg_json_getz(n, idkw);
        if (cJSON_IsString(v) && !(tg_json_getz(n, "$ref"))) {
            const char *h = strchr(v->valuestring, '#');
            if (h && h[1] && h[1] != '/')
                if (add_anchor(c, res, h + 1, strlen(h + 1), e)) { oom(c); return -1; }
        }
    } else {
        v = tg_json_getz(n, "$anchor");
        if (cJSON_IsString(v) && add_anchor(c, res, v->valuestring, tg_json_strlen(v->valuestring), e)) { oom(c); return -1; }
        v = d == TG_DIALECT_2020_12 ? tg_json_getz(n, "$dynamicAnchor") : NULL;
        if (cJSON_IsString(v)) {
            sc_res *r = &c->res[res];
            size_t cap = r->cap_dyn;
            if (add_anchor(c, res, v->valuestring, tg_json_strlen(v->valuestring), e)) { oom(c); return -1; }
            if (grow(c, (void **)&r->dyn, &cap, r->n_dyn + 1, sizeof *r->dyn)) { oom(c); return -1; }
            r->cap_dyn = (uint32_t)cap;
            r->dyn[r->n_dyn].name = v->valuestring;
            r->dyn[r->n_dyn].len = tg_json_strlen(v->valuestring);
            r->dyn[r->n_dyn].ent = e;
            r->n_dyn++;
        }
        v = d == TG_DIALECT_2019_09 ? tg_json_getz(n, "$recursiveAnchor") : NULL;
        if (cJSON_IsTrue(v) && new_resource) c->res[res].recursive_anchor = 1;
    }
    /* children */
    for (i = 0; single_kw[i]; i++) {
        v = tg_json_getz(n, single_kw[i]);
        if (v && (cJSON_IsObject(v) || cJSON_IsBool(v))) {
            char *l = loc_kw(c, loc, single_kw[i]);
            if (!l) { oom(c); return -1; }
            if (scan(c, v, res, d, voc, l, depth + 1, 0, NULL)) return -1;
        }
    }
    for (i = 0; array_kw[i]; i++) {
        size_t k = 0;
        v = tg_json_getz(n, array_kw[i]);
        if (!cJSON_IsArray(v)) continue;
        for (it = v->child; it; it = it->next, k++) {
            char *l = loc_kw(c, loc, array_kw[i]);
            if (!l || !(l = loc_idx(c, l, k))) { oom(c); return -1; }
            if (scan(c, it, res, d, voc, l, depth + 1, 0, NULL)) return -1;
        }
    }
    for (i = 0; map_kw[i]; i++) {
        v = tg_json_getz(n, map_kw[i]);
        if (!cJSON_IsObject(v)) continue;
        for (it = v->child; it; it = it->next) {
            char *l;
            if (!cJSON_IsObject(it) && !cJSON_IsBool(it)) continue;
            l = loc_kw(c, loc, map_kw[i]);
            if (!l || !(l = loc_join(c, l, it->string, tg_json_strlen(it->string)))) { oom(c); return -1; }
            if (scan(c, it, res, d, voc, l, depth + 1, 0, NULL)) return -1;
        }
    }
    return 0;
}

/* Adds a document under uri (no fragment): clone into the program, scan. */
static int add_doc(sc *c, const cJSON *doc, const char *uri, size_t urilen, const char *locprefix, uint32_t *out) {
    uint32_t r, e;
    cJSON *clone = tg_json_clone(&c->s->arena, doc);
    char *u = tg_arena_strndup(&c->s->arena, uri, urilen);
    if (!clone || !u) { oom(c); return -1; }
    if (new_res(c, u, TG_SNONE, &r)) { oom(c); return -1; }
    c->load_depth++;
    if (scan(c, clone, r, (uint8_t)c->def_dialect, TG_VOC_ALL, locprefix, 0, 1, &e)) { c->load_depth--; return -1; }
    c->load_depth--;
    if (smap_put(c, &c->by_uri, u, urilen, e)) { oom(c); return -1; }
    if (out) *out = e;
    return 0;
}

static int uri_eq(const char *a, size_t al, const char *b, size_t bl) {
    while (al && a[al - 1] == '#') al--;
    while (bl && b[bl - 1] == '#') bl--;
    return al == bl && !memcmp(a, b, al);
}

/* Loads the registered resource or embedded metaschema named uri. 0 loaded,
 * 1 unknown, -1 error. */
static int load_doc(sc *c, const char *uri, size_t urilen) {
    size_t i;
    const char *text;
    char *prefix;
    if (c->load_depth > 8) return 1;
    prefix = tg_arena_alloc(&c->s->arena, urilen + 2);
    if (!prefix) { oom(c); return -1; }
    memcpy(prefix, uri, urilen);
    prefix[urilen] = '#';
    prefix[urilen + 1] = 0;
    for (i = 0; i < c->o->n_resources; i++) {
        const tg_schema_resource *r = &c->o->resources[i];
        if (r->uri && r->schema && uri_eq(r->uri, strlen(r->uri), uri, urilen))
            return add_doc(c, r->schema, uri, urilen, prefix, NULL) ? -1 : 0;
    }
    text = tg_smeta_find(uri, urilen);
    if (text) {
        tg_json_error err;
        tg_json_limits lim = tg_json_default_limits();
        cJSON *doc = tg_json_parse(&c->tmp, text, strlen(text), &lim, &err);
        if (!doc) { fail(c, uri, "embedded metaschema does not parse%s", ""); return -1; }
        return add_doc(c, doc, uri, urilen, prefix, NULL) ? -1 : 0;
    }
    return 1;
}

/* ---- references ---- */

static int resolve(sc *c, uint32_t from, const char *ref, size_t reflen, const char *kwloc, uint32_t *out) {
    const char *base = c->res[c->ents[from].res].uri;
    char *full = tg_suri_resolve(&c->tmp, base, ref, reflen);
    size_t nf;
    uint32_t root;
    const char *frag;
    if (!full) { oom(c); return -1; }
    nf = tg_suri_nofrag_len(full);
    if (!smap_find(&c->by_uri, full, nf, &root)) {
        int r = load_doc(c, full, nf);
        if (r < 0) return -1;
        if (r > 0 || !smap_find(&c->by_uri, full, nf, &root)) {
            fail(c, kwloc, "cannot resolve '%s'", full);
            return -1;
        }
    }
    frag = full[nf] == '#' ? full + nf + 1 : "";
    if (!*frag) { *out = root; return 0; }
    if (frag[0] == '/') {
        size_t fl;
        char *dec = tg_suri_pct_decode(&c->tmp, frag, strlen(frag), &fl);
        const cJSON *cur = c->ents[root].node;
        const char *p, *end;
        const char *loc = c->ents[root].loc;
        if (!dec) { fail(c, kwloc, "bad escape in '%s'", full); return -1; }
        p = dec + 1;
        end = dec + fl;
        for (;;) {
            char tok[512];
            size_t tl = 0;
            while (p < end && *p != '/') {
                if (tl >= sizeof tok - 1) { fail(c, kwloc, "cannot resolve '%s'", full); return -1; }
                if (*p == '~' && p + 1 < end && (p[1] == '0' || p[1] == '1')) { tok[tl++] = p[1] == '0' ? '~' : '/'; p += 2; }
                else tok[tl++] = *p++;
            }
            tok[tl] = 0;
            if (cJSON_IsObject(cur)) cur = tg_json_get(cur, tok, tl);
            else if (cJSON_IsArray(cur)) {
                size_t idx = 0, k;
                const cJSON *it = cur->child;
                if (!tl) cur = NULL;
                for (k = 0; k < tl; k++) {
                    if (tok[k] < '0' || tok[k] > '9' || idx > 100000000) { cur = NULL; break; }
                    idx = idx * 10 + (size_t)(tok[k] - '0');
                }
                if (cur) {
                    while (it && idx--) it = it->next;
                    cur = it;
                }
            } else cur = NULL;
            if (!cur) { fail(c, kwloc, "cannot resolve '%s'", full); return -1; }
            loc = loc_join(c, loc, tok, tl);
            if (!loc) { oom(c); return -1; }
            if (p >= end) break;
            p++;
        }
        if (!ent_of(c, cur, out)) {
            uint32_t e;
            if (scan(c, cur, c->ents[root].res, c->ents[root].dialect, c->ents[root].voc, loc, 0, 0, &e)) return -1;
            if (e == TG_SNONE) { fail(c, kwloc, "'%s' is not a schema", full); return -1; }
            *out = e;
        }
        return 0;
    }
    if (!smap_find(&c->by_uri, full, strlen(full), out)) {
        fail(c, kwloc, "cannot resolve '%s'", full);
        return -1;
    }
    return 0;
}

/* ---- emit ---- */

static uint32_t node_of(sc *c, uint32_t ent) {
    uint32_t id;
    if (c->ents[ent].prog != TG_SNONE) return c->ents[ent].prog;
    if (c->n_nodes >= c->o->limits.max_subschemas) {
        fail(c, c->ents[ent].loc, "more than max_subschemas subschemas%s", "");
        return TG_SNONE;
    }
    if (grow(c, (void **)&c->nodes, &c->cap_nodes, c->n_nodes + 1, sizeof *c->nodes) ||
        grow(c, (void **)&c->node_ent, &c->cap_node_ent, c->n_nodes + 1, sizeof *c->node_ent) ||
        grow(c, (void **)&c->queue, &c->cap_queue, c->n_queue + 1, sizeof *c->queue)) {
        oom(c);
        return TG_SNONE;
    }
    id = (uint32_t)c->n_nodes++;
    memset(&c->nodes[id], 0, sizeof c->nodes[id]);
    c->nodes[id].resource = c->ents[ent].res;
    c->node_ent[id] = ent;
    c->ents[ent].prog = id;
    c->queue[c->n_queue++] = id;
    return id;
}

/* The node of a child subschema value v (scanned, or scanned now). */
static uint32_t child(sc *c, uint32_t parent, const cJSON *v, const char *loc) {
    uint32_t e;
    if (!ent_of(c, v, &e)) {
        const sc_ent *p = &c->ents[parent];
        if (scan(c, v, p->res, p->dialect, p->voc, loc, 0, 0, &e)) return TG_SNONE;
        if (e == TG_SNONE) { fail(c, loc, "not a schema%s", ""); return TG_SNONE; }
    }
    return node_of(c, e);
}

static tg_sins *emit(sc *c, tg_sins **list, size_t *n, size_t *cap, int op, const char *loc) {
    tg_sins *i;
    if (!loc || grow(c, (void **)list, cap, *n + 1, sizeof **list)) { oom(c); return NULL; }
    i = &(*list)[(*n)++];
    memset(i, 0, sizeof *i);
    i->op = (uint8_t)op;
    i->loc = loc;
    return i;
}

static int type_bit(const char *t) {
    static const struct { const char *n; int b; } k[] = {
        {"null", TG_ST_NULL}, {"boolean", TG_ST_BOOLEAN}, {"object", TG_ST_OBJECT}, {"array", TG_ST_ARRAY},
        {"number", TG_ST_NUMBER}, {"string", TG_ST_STRING}, {"integer", TG_ST_INTEGER}};
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; i++) if (!strcmp(k[i].n, t)) return k[i].b;
    return 0;
}

static int compile_regex(sc *c, const cJSON *v, const char *loc, uint32_t *out) {
    tg_regex *re = NULL;
    tg_regex_error err;
    tg_regex_limits lim = tg_regex_default_limits();
    size_t len = tg_json_strlen(v->valuestring), ss;
    if (len > c->o->limits.max_regex_bytes) { fail(c, loc, "pattern longer than max_regex_bytes%s", ""); return -1; }
    if (lim.max_pattern_bytes < len) lim.max_pattern_bytes = len;
    memset(&err, 0, sizeof err);
    if (tg_regex_compile(&c->s->alloc, v->valuestring, len, &lim, &re, &err) != 0) {
        char msg[240];
        snprintf(msg, sizeof msg, "%.160s (at offset %zu)", err.message, err.offset);
        fail(c, loc, "invalid regex: %s", msg);
        return -1;
    }
    if (grow(c, (void **)&c->regexes, &c->cap_regexes, c->n_regexes + 1, sizeof *c->regexes)) {
        tg_regex_free(re);
        oom(c);
        return -1;
    }
    c->regexes[c->n_regexes] = re;
    ss = tg_regex_scratch_size(re);
    if (ss > c->s->regex_scratch) c->s->regex_scratch = ss;
    *out = (uint32_t)c->n_regexes++;
    return 0;
}

static int names_of(sc *c, const cJSON *arr, tg_sname **out, uint32_t *n) {
    const cJSON *it;
    uint32_t k = 0, cnt = (uint32_t)cJSON_GetArraySize(arr);
    tg_sname *names = tg_arena_calloc(&c->s->arena, cnt ? cnt : 1, sizeof *names);
    if (!names) { oom(c); return -1; }
    for (it = arr->child; it; it = it->next) {
        if (!cJSON_IsString(it)) continue;
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

static uint32_t *node_list(sc *c, uint32_t ent, const cJSON *arr, const char *loc, uint32_t *n) {
    uint32_t cnt = (uint32_t)cJSON_GetArraySize(arr), k = 0;
    uint32_t *nodes = tg_arena_alloc(&c->s->arena, (cnt ? cnt : 1) * sizeof *nodes);
    const cJSON *it;
    if (!nodes) { oom(c); return NULL; }
    for (it = arr->child; it; it = it->next, k++) {
        const char *l = loc_idx(c, loc, k);
        if (!l) { oom(c); return NULL; }
        nodes[k] = child(c, ent, it, l);
        if (nodes[k] == TG_SNONE) return NULL;
    }
    *n = cnt;
    return nodes;
}

#define KW(name) tg_json_getz(n, name)
#define LOC(name) loc_kw(c, e->loc, name)
#define EMIT(op, l) emit(c, &list, &nl, &ncap, (op), (l))

static int emit_node(sc *c, uint32_t id) {
    uint32_t ent = c->node_ent[id];
    const sc_ent *e = &c->ents[ent];
    const cJSON *n = e->node, *v;
    tg_dialect d = (tg_dialect)e->dialect;
    uint8_t voc = e->voc;
    tg_sins *list = NULL, *in;
    size_t nl = 0, ncap = 0, k;
    int is_2019 = d == TG_DIALECT_2019_09, is_2020 = d == TG_DIALECT_2020_12, modern = is_2019 || is_2020;

    if (cJSON_IsBool(n)) {
        if (cJSON_IsFalse(n)) {
            c->nodes[id].is_false = 1;
            if (!EMIT(TG_OP_FALSE, e->loc)) return -1;
        }
        goto done;
    }
    /* references */
    v = KW("$ref");
    if (cJSON_IsString(v)) {
        uint32_t t;
        const char *l = LOC("$ref");
        if (!l || resolve(c, ent, v->valuestring, tg_json_strlen(v->valuestring), l, &t)) return -1;
        e = &c->ents[ent];
        if (!(in = EMIT(TG_OP_REF, l))) return -1;
        if ((in->u.node = node_of(c, t)) == TG_SNONE) return -1;
        if (OLD_DIALECT(d)) goto done;
    }
    if (is_2020 && cJSON_IsString(v = KW("$dynamicRef"))) {
        uint32_t t;
        const char *l = LOC("$dynamicRef"), *h;
        const cJSON *da;
        if (!l || resolve(c, ent, v->valuestring, tg_json_strlen(v->valuestring), l, &t)) return -1;
        e = &c->ents[ent];
        h = strchr(v->valuestring, '#');
        da = cJSON_IsObject(c->ents[t].node) ? tg_json_getz(c->ents[t].node, "$dynamicAnchor") : NULL;
        if (h && h[1] && h[1] != '/' && cJSON_IsString(da) && !strcmp(da->valuestring, h + 1)) {
            if (!(in = EMIT(TG_OP_DYNAMIC_REF, l))) return -1;
            in->u.dyn.anchor = h + 1;
            in->u.dyn.len = strlen(h + 1);
        } else if (!(in = EMIT(TG_OP_REF, l))) return -1;
        if ((in->u.dyn.node = node_of(c, t)) == TG_SNONE) return -1;
    }
    if (is_2019 && cJSON_IsString(v = KW("$recursiveRef"))) {
        uint32_t t;
        const char *l = LOC("$recursiveRef");
        const cJSON *ra;
        if (!l || resolve(c, ent, v->valuestring, tg_json_strlen(v->valuestring), l, &t)) return -1;
        e = &c->ents[ent];
        ra = cJSON_IsObject(c->ents[t].node) ? tg_json_getz(c->ents[t].node, "$recursiveAnchor") : NULL;
        if (!(in = EMIT(cJSON_IsTrue(ra) ? TG_OP_RECURSIVE_REF : TG_OP_REF, l))) return -1;
        if ((in->u.dyn.node = node_of(c, t)) == TG_SNONE) return -1;
    }
    if (voc & TG_VOC_VALIDATION) {
        v = KW("type");
        if (cJSON_IsString(v) || cJSON_IsArray(v)) {
            uint32_t mask = 0;
            if (cJSON_IsString(v)) mask = (uint32_t)type_bit(v->valuestring);
            else {
                const cJSON *it;
                for (it = v->child; it; it = it->next) if (cJSON_IsString(it)) mask |= (uint32_t)type_bit(it->valuestring);
            }
            if (!(in = EMIT(TG_OP_TYPE, LOC("type")))) return -1;
            in->u.mask = mask;
        }
        if (cJSON_IsArray(v = KW("enum"))) {
            if (!(in = EMIT(TG_OP_ENUM, LOC("enum")))) return -1;
            in->u.value = v;
        }
        if (d != TG_DIALECT_DRAFT4 && (v = KW("const"))) {
            if (!(in = EMIT(TG_OP_CONST, LOC("const")))) return -1;
            in->u.value = v;
        }
        if (cJSON_IsNumber(v = KW("multipleOf")) && v->valuedouble > 0) {
            if (!(in = EMIT(TG_OP_MULTIPLE_OF, LOC("multipleOf")))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (cJSON_IsNumber(v = KW("maximum"))) {
            int ex = d == TG_DIALECT_DRAFT4 && cJSON_IsTrue(KW("exclusiveMaximum"));
            if (!(in = EMIT(ex ? TG_OP_EXCL_MAXIMUM : TG_OP_MAXIMUM, LOC("maximum")))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (cJSON_IsNumber(v = KW("minimum"))) {
            int ex = d == TG_DIALECT_DRAFT4 && cJSON_IsTrue(KW("exclusiveMinimum"));
            if (!(in = EMIT(ex ? TG_OP_EXCL_MINIMUM : TG_OP_MINIMUM, LOC("minimum")))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (cJSON_IsNumber(v = KW("exclusiveMaximum"))) {
            if (!(in = EMIT(TG_OP_EXCL_MAXIMUM, LOC("exclusiveMaximum")))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (cJSON_IsNumber(v = KW("exclusiveMinimum"))) {
            if (!(in = EMIT(TG_OP_EXCL_MINIMUM, LOC("exclusiveMinimum")))) return -1;
            in->u.num.d = v->valuedouble; in->u.num.lex = v->valuestring;
        }
        if (cJSON_IsNumber(v = KW("maxLength"))) {
            if (!(in = EMIT(TG_OP_MAX_LENGTH, LOC("maxLength")))) return -1;
            in->u.count = count_of(v);
        }
        if (cJSON_IsNumber(v = KW("minLength"))) {
            if (!(in = EMIT(TG_OP_MIN_LENGTH, LOC("minLength")))) return -1;
            in->u.count = count_of(v);
        }
        if (cJSON_IsString(v = KW("pattern"))) {
            const char *l = LOC("pattern");
            uint32_t re;
            if (!l || compile_regex(c, v, l, &re)) return -1;
            if (!(in = EMIT(TG_OP_PATTERN, l))) return -1;
            in->u.re = re;
        }
        if (cJSON_IsNumber(v = KW("maxItems"))) {
            if (!(in = EMIT(TG_OP_MAX_ITEMS, LOC("maxItems")))) return -1;
            in->u.count = count_of(v);
        }
        if (cJSON_IsNumber(v = KW("minItems"))) {
            if (!(in = EMIT(TG_OP_MIN_ITEMS, LOC("minItems")))) return -1;
            in->u.count = count_of(v);
        }
        if (cJSON_IsTrue(KW("uniqueItems"))) {
            if (!EMIT(TG_OP_UNIQUE_ITEMS, LOC("uniqueItems"))) return -1;
        }
        if (cJSON_IsNumber(v = KW("maxProperties"))) {
            if (!(in = EMIT(TG_OP_MAX_PROPS, LOC("maxProperties")))) return -1;
            in->u.count = count_of(v);
        }
        if (cJSON_IsNumber(v = KW("minProperties"))) {
            if (!(in = EMIT(TG_OP_MIN_PROPS, LOC("minProperties")))) return -1;
            in->u.count = count_of(v);
        }
        if (cJSON_IsArray(v = KW("required")) && v->child) {
            if (!(in = EMIT(TG_OP_REQUIRED, LOC("required")))) return -1;
            if (names_of(c, v, &in->u.req.names, &in->u.req.n)) return -1;
        }
        if (modern && cJSON_IsObject(v = KW("dependentRequired"))) {
            const cJSON *it;
            uint32_t cnt = (uint32_t)cJSON_GetArraySize(v), j = 0;
            tg_sdep *deps = tg_arena_calloc(&c->s->arena, cnt ? cnt : 1, sizeof *deps);
            if (!deps || !(in = EMIT(TG_OP_DEP_REQUIRED, LOC("dependentRequired")))) { oom(c); return -1; }
            for (it = v->child; it; it = it->next) {
                if (!cJSON_IsArray(it)) continue;
                deps[j].name.s = it->string; deps[j].name.len = tg_json_strlen(it->string);
                deps[j].node = TG_SNONE;
                if (names_of(c, it, &deps[j].required, &deps[j].n_required)) return -1;
                j++;
            }
            in->u.deps.deps = deps; in->u.deps.n = j;
        }
    }
    if ((c->o->format_assert || (voc & TG_VOC_FORMAT_ASSERTION)) && cJSON_IsString(v = KW("format"))) {
        int f = tg_sformat_id(v->valuestring, tg_json_strlen(v->valuestring));
        if (f >= 0) {
            if (!(in = EMIT(TG_OP_FORMAT, LOC("format")))) return -1;
            in->u.format = f;
        }
    }
    if (voc & TG_VOC_APPLICATOR) {
        static const struct { const char *kw; int op; } lists[] = {
            {"allOf", TG_OP_ALL_OF}, {"anyOf", TG_OP_ANY_OF}, {"oneOf", TG_OP_ONE_OF}};
        uint32_t n_prefix = 0;
        for (k = 0; k < 3; k++) {
            if (cJSON_IsArray(v = KW(lists[k].kw))) {
                const char *l = LOC(lists[k].kw);
                uint32_t *nodes, cnt = 0;
                if (!l || !(nodes = node_list(c, ent, v, l, &cnt))) { if (!c->failed) oom(c); return -1; }
                e = &c->ents[ent];
                if (!(in = EMIT(lists[k].op, l))) return -1;
                in->u.list.nodes = nodes; in->u.list.n = cnt;
            }
        }
        if ((v = KW("not"))) {
            const char *l = LOC("not");
            uint32_t nd;
            if (!l || (nd = child(c, ent, v, l)) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_NOT, l))) return -1;
            in->u.node = nd;
        }
        if (d <= TG_DIALECT_DRAFT7 && (v = KW("if"))) {
            const char *l = LOC("if");
            const cJSON *t = KW("then"), *el = KW("else");
            uint32_t ci, ti = TG_SNONE, ei = TG_SNONE;
            if (!l || (ci = child(c, ent, v, l)) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (t && (ti = child(c, ent, t, LOC("then"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (el && (ei = child(c, ent, el, LOC("else"))) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_IF, l))) return -1;
            in->u.cond.c = ci; in->u.cond.t = ti; in->u.cond.e = ei;
        }
        /* arrays */
        {
            const char *pk = is_2020 ? "prefixItems" : "items";
            v = KW(pk);
            if (cJSON_IsArray(v)) {
                const char *l = LOC(pk);
                uint32_t *nodes, cnt = 0;
                if (!l || !(nodes = node_list(c, ent, v, l, &cnt))) { if (!c->failed) oom(c); return -1; }
                e = &c->ents[ent];
                if (!(in = EMIT(TG_OP_PREFIX_ITEMS, l))) return -1;
                in->u.list.nodes = nodes; in->u.list.n = cnt;
                n_prefix = cnt;
                if (!is_2020 && (v = KW("additionalItems"))) {
                    uint32_t nd;
                    l = LOC("additionalItems");
                    if (!l || (nd = child(c, ent, v, l)) == TG_SNONE) return -1;
                    e = &c->ents[ent];
                    if (!(in = EMIT(TG_OP_ITEMS_FROM, l))) return -1;
                    in->u.items.node = nd; in->u.items.from = n_prefix;
                }
            }
            v = KW("items");
            if (v && (cJSON_IsObject(v) || cJSON_IsBool(v))) {
                const char *l = LOC("items");
                uint32_t nd;
                if (!l || (nd = child(c, ent, v, l)) == TG_SNONE) return -1;
                e = &c->ents[ent];
                if (!(in = EMIT(TG_OP_ITEMS_FROM, l))) return -1;
                in->u.items.node = nd; in->u.items.from = is_2020 ? n_prefix : 0;
            }
        }
        if (d != TG_DIALECT_DRAFT4 && (v = KW("contains"))) {
            const char *l = LOC("contains");
            uint32_t nd;
            const cJSON *mn = KW("minContains"), *mx = KW("maxContains");
            if (!l || (nd = child(c, ent, v, l)) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_CONTAINS, l))) return -1;
            in->u.contains.node = nd;
            in->u.contains.min = 1;
            in->u.contains.max = (size_t)-1;
            in->u.contains.marks = is_2020;
            if (modern && (voc & TG_VOC_VALIDATION)) {
                if (cJSON_IsNumber(mn)) in->u.contains.min = count_of(mn);
                if (cJSON_IsNumber(mx)) in->u.contains.max = count_of(mx);
            }
        }
        /* objects */
        {
            const cJSON *pr = KW("properties"), *pp = KW("patternProperties"), *ap = KW("additionalProperties");
            if (!cJSON_IsObject(pr)) pr = NULL;
            if (!cJSON_IsObject(pp)) pp = NULL;
            if (ap && !cJSON_IsObject(ap) && !cJSON_IsBool(ap)) ap = NULL;
            if (pr || pp || ap) {
                tg_sprops *P = tg_arena_calloc(&c->s->arena, 1, sizeof *P);
                const cJSON *it;
                const char *l;
                uint32_t j = 0;
                if (!P) { oom(c); return -1; }
                P->additional = TG_SNONE;
                if (pr) {
                    uint32_t cnt = (uint32_t)cJSON_GetArraySize(pr);
                    P->props = tg_arena_calloc(&c->s->arena, cnt ? cnt : 1, sizeof *P->props);
                    if (!P->props || !(l = LOC("properties"))) { oom(c); return -1; }
                    for (it = pr->child; it; it = it->next) {
                        const char *l2 = loc_join(c, l, it->string, tg_json_strlen(it->string));
                        tg_sprop *q = &P->props[j];
                        if (!l2) { oom(c); return -1; }
                        q->name.s = it->string; q->name.len = tg_json_strlen(it->string);
                        q->name.hash = tg_shash(q->name.s, q->name.len);
                        if ((q->node = child(c, ent, it, l2)) == TG_SNONE) return -1;
                        e = &c->ents[ent];
                        j++;
                    }
                    P->n_props = j;
                    if (j > 8) {
                        uint32_t sz = 16, x;
                        while (sz < j * 2) sz *= 2;
                        P->table = tg_arena_calloc(&c->s->arena, sz, sizeof *P->table);
                        if (!P->table) { oom(c); return -1; }
                        P->table_mask = sz - 1;
                        for (x = 0; x < j; x++) {
                            uint32_t h = P->props[x].name.hash & P->table_mask;
                            while (P->table[h]) h = (h + 1) & P->table_mask;
                            P->table[h] = x + 1;
                        }
                    }
                }
                if (pp) {
                    uint32_t cnt = (uint32_t)cJSON_GetArraySize(pp);
                    P->patterns = tg_arena_calloc(&c->s->arena, cnt ? cnt : 1, sizeof *P->patterns);
                    if (!P->patterns || !(l = LOC("patternProperties"))) { oom(c); return -1; }
                    j = 0;
                    for (it = pp->child; it; it = it->next) {
                        const char *l2 = loc_join(c, l, it->string, tg_json_strlen(it->string));
                        cJSON key;
                        if (!l2) { oom(c); return -1; }
                        memset(&key, 0, sizeof key);
                        key.type = cJSON_String;
                        key.valuestring = it->string;
                        if (compile_regex(c, &key, l2, &P->patterns[j].re)) return -1;
                        if ((P->patterns[j].node = child(c, ent, it, l2)) == TG_SNONE) return -1;
                        e = &c->ents[ent];
                        j++;
                    }
                    P->n_patterns = j;
                }
                if (ap) {
                    l = LOC("additionalProperties");
                    if (!l || (P->additional = child(c, ent, ap, l)) == TG_SNONE) return -1;
                    e = &c->ents[ent];
                    P->additional_loc = l;
                }
                if (!(in = EMIT(TG_OP_PROPS, pr ? LOC("properties") : pp ? LOC("patternProperties") : LOC("additionalProperties")))) return -1;
                in->u.props = P;
            }
        }
        {
            const char *dk = modern ? "dependentSchemas" : "dependencies";
            v = KW(dk);
            if (cJSON_IsObject(v)) {
                const cJSON *it;
                uint32_t cnt = (uint32_t)cJSON_GetArraySize(v), js = 0, jr = 0;
                tg_sdep *ds = tg_arena_calloc(&c->s->arena, cnt ? cnt : 1, sizeof *ds);
                tg_sdep *dr = tg_arena_calloc(&c->s->arena, cnt ? cnt : 1, sizeof *dr);
                const char *l = LOC(dk);
                if (!ds || !dr || !l) { oom(c); return -1; }
                for (it = v->child; it; it = it->next) {
                    if (cJSON_IsArray(it)) {
                        if (modern) continue;
                        dr[jr].name.s = it->string; dr[jr].name.len = tg_json_strlen(it->string);
                        dr[jr].node = TG_SNONE;
                        if (names_of(c, it, &dr[jr].required, &dr[jr].n_required)) return -1;
                        jr++;
                    } else if (cJSON_IsObject(it) || cJSON_IsBool(it)) {
                        const char *l2 = loc_join(c, l, it->string, tg_json_strlen(it->string));
                        if (!l2) { oom(c); return -1; }
                        ds[js].name.s = it->string; ds[js].name.len = tg_json_strlen(it->string);
                        if ((ds[js].node = child(c, ent, it, l2)) == TG_SNONE) return -1;
                        e = &c->ents[ent];
                        js++;
                    }
                }
                if (jr) {
                    if (!(in = EMIT(TG_OP_DEP_REQUIRED, l))) return -1;
                    in->u.deps.deps = dr; in->u.deps.n = jr;
                }
                if (js) {
                    if (!(in = EMIT(TG_OP_DEP_SCHEMAS, l))) return -1;
                    in->u.deps.deps = ds; in->u.deps.n = js;
                }
            }
        }
        if (d <= TG_DIALECT_DRAFT6 && (v = KW("propertyNames"))) {
            const char *l = LOC("propertyNames");
            uint32_t nd;
            if (!l || (nd = child(c, ent, v, l)) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_PROPERTY_NAMES, l))) return -1;
            in->u.node = nd;
        }
    }
    if (modern && (voc & TG_VOC_UNEVALUATED)) {
        if ((v = KW("unevaluatedItems"))) {
            const char *l = LOC("unevaluatedItems");
            uint32_t nd;
            if (!l || (nd = child(c, ent, v, l)) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_UNEVAL_ITEMS, l))) return -1;
            in->u.node = nd;
            c->nodes[id].has_uneval = 1;
        }
        if ((v = KW("unevaluatedProperties"))) {
            const char *l = LOC("unevaluatedProperties");
            uint32_t nd;
            if (!l || (nd = child(c, ent, v, l)) == TG_SNONE) return -1;
            e = &c->ents[ent];
            if (!(in = EMIT(TG_OP_UNEVAL_PROPS, l))) return -1;
            in->u.node = nd;
            c->nodes[id].has_uneval = 1;
        }
    }
done:
    if (c->failed) return -1;
    if (grow(c, (void **)&c->ins, &c->cap_ins, c->n_ins + nl, sizeof *c->ins)) { oom(c); return -1; }
    if (nl) memcpy(c->ins + c->n_ins, list, nl * sizeof *list);
    c->nodes[id].start = (uint32_t)c->n_ins;
    c->nodes[id].count = (uint32_t)nl;
    c->n_ins += nl;
    return 0;
}

/* Dynamic anchors of every resource that has a compiled node must be
 * compiled too: $dynamicRef may land on any of them at run time. */
static int close_dynamic(sc *c) {
    size_t r, before;
    do {
        before = c->n_nodes;
        for (r = 0; r < c->n_res; r++) {
            uint32_t j;
            for (j = 0; j < c->res[r].n_dyn; j++)
                if (node_of(c, c->res[r].dyn[j].ent) == TG_SNONE) return -1;
            if (c->res[r].recursive_anchor && c->res[r].root_ent != TG_SNONE)
                if (node_of(c, c->res[r].root_ent) == TG_SNONE) return -1;
        }
        while (c->n_queue) {
            uint32_t id = c->queue[--c->n_queue];
            if (emit_node(c, id)) return -1;
        }
    } while (c->n_nodes != before);
    return 0;
}

static int meta_check(sc *c, const cJSON *root, const char *meta_uri) {
    tg_schema_options mo = *c->o;
    tg_schema *m = NULL;
    tg_buf mdiag;
    cJSON *mdoc;
    tg_arena scratch;
    int r;
    mo.skip_metaschema_check = 1;
    mo.format_assert = 0;
    mo.dialect = TG_DIALECT_AUTO;
    /* The metaschema: a { "$ref": uri } wrapper resolves it among the resources
     * and the embedded metaschemas alike. */
    mdoc = tg_json_new(&c->tmp, cJSON_Object);
    {
        cJSON *ref = mdoc ? tg_json_new_string(&c->tmp, meta_uri, strlen(meta_uri)) : NULL;
        if (!ref || tg_json_set_key(&c->tmp, ref, "$ref", 4)) { oom(c); return -1; }
        tg_json_append(mdoc, ref);
    }
    mo.dialect = TG_DIALECT_2020_12;
    tg_buf_init(&mdiag, c->s->alloc, 0);
    if (tg_schema_compile(&c->s->alloc, mdoc, &mo, &m, &mdiag) != 0) {
        tg_buf_putc(&mdiag, 0);
        fail(c, "/$schema", "metaschema does not compile: %s", mdiag.data ? mdiag.data : "");
        tg_buf_free(&mdiag);
        return -1;
    }
    tg_buf_reset(&mdiag);
    tg_arena_init(&scratch, c->s->alloc);
    r = tg_sval(m, root, &scratch, TG_OUTPUT_BASIC, 1, &mdiag, 1);
    tg_arena_free(&scratch);
    if (r != 1) {
        tg_buf_putc(&mdiag, 0);
        if (r == 0) fail(c, "", "schema is invalid against its metaschema: %s", mdiag.data ? mdiag.data : "");
        else fail(c, "", "metaschema check failed (limit or out of memory)%s", "");
    }
    tg_buf_free(&mdiag);
    tg_schema_free(m);
    return r == 1 ? 0 : -1;
}

tg_schema_options tg_schema_default_options(void) {
    tg_schema_options o;
    memset(&o, 0, sizeof o);
    o.dialect = TG_DIALECT_AUTO;
    o.limits.max_depth = 128;
    o.limits.max_subschemas = 10000;
    o.limits.max_ref_depth = 64;
    o.limits.max_regex_bytes = 4096;
    o.limits.max_eval_steps = 10000000;
    return o;
}

void tg_schema_free(tg_schema *s) {
    size_t i;
    tg_allocator a;
    if (!s) return;
    for (i = 0; i < s->n_regexes; i++) tg_regex_free(s->regexes[i]);
    a = s->alloc;
    tg_arena_free(&s->arena);
    tg_free(&a, s, sizeof *s);
}

tg_dialect tg_schema_dialect(const tg_schema *s) { return s->dialect; }

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

/* Rejects reference cycles that never move into the instance (they could
 * only recurse until the depth limit) and reference bombs: schemas whose
 * in-place applications (allOf/anyOf/oneOf/not/if/$ref/...) of one node
 * expand to more than max_subschemas * max_ref_depth evaluations. Iterative,
 * so any chain length is safe. */
static int check_expansion(sc *c) {
    size_t n = c->n_nodes, sp = 0;
    uint64_t cap = (uint64_t)c->o->limits.max_subschemas * c->o->limits.max_ref_depth;
    uint64_t *cost = tg_arena_calloc(&c->tmp, n ? n : 1, sizeof *cost);
    uint8_t *state = tg_arena_calloc(&c->tmp, n ? n : 1, 1);
    struct frame { uint32_t node, ins, sub; } *st = tg_arena_alloc(&c->tmp, (n + 1) * sizeof *st);
    uint32_t root;
    if (!cost || !state || !st) { oom(c); return -1; }
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
            while (f->ins < nd->count) {
                if (inplace_child(&c->ins[nd->start + f->ins], f->sub, &ch)) { f->sub++; found = 1; break; }
                f->ins++;
                f->sub = 0;
            }
            if (!found) {
                uint64_t v = cost[f->node];
                state[f->node] = 2;
                sp--;
                if (sp) {
                    uint64_t *pc = &cost[st[sp - 1].node];
                    *pc = *pc + v > cap + 1 ? cap + 1 : *pc + v;
                }
                continue;
            }
            if (state[ch] == 1) {
                fail(c, c->ents[c->node_ent[ch]].loc, "reference cycle that never moves into the instance%s", "");
                return -1;
            }
            if (state[ch] == 2) {
                uint64_t *pc = &cost[f->node];
                *pc = *pc + cost[ch] > cap + 1 ? cap + 1 : *pc + cost[ch];
            } else {
                state[ch] = 1;
                cost[ch] = 1;
                st[sp].node = ch; st[sp].ins = 0; st[sp].sub = 0; sp++;
            }
        }
        if (cost[root] > cap) {
            fail(c, c->ents[c->node_ent[root]].loc,
                 "subschema expands to too many in-place applications (reference bomb)%s", "");
            return -1;
        }
    }
    for (root = 0; root < n; root++)
        if (cost[root] > cap) {
            fail(c, c->ents[c->node_ent[root]].loc,
                 "subschema expands to too many in-place applications (reference bomb)%s", "");
            return -1;
        }
    return 0;
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
    if (!o.limits.max_eval_steps) o.limits.max_eval_steps = 10000000;
    s = tg_malloc(alloc, sizeof *s);
    if (!s) {
        if (diag) tg_buf_puts(diag, "/: out of memory");
        return -1;
    }
    memset(s, 0, sizeof *s);
    s->alloc = *alloc;
    s->limits = o.limits;
    tg_arena_init(&s->arena, *alloc);
    memset(&c, 0, sizeof c);
    c.s = s;
    c.o = &o;
    c.diag = diag;
    tg_arena_init(&c.tmp, *alloc);
    c.def_dialect = o.dialect == TG_DIALECT_AUTO ? TG_DIALECT_2020_12 : o.dialect;
    if (!schema || (!cJSON_IsObject(schema) && !cJSON_IsBool(schema))) {
        fail(&c, "", "a schema must be an object or a boolean%s", "");
        goto error;
    }
    if (add_doc(&c, schema, "", 0, "", &root_ent)) goto error;
    s->dialect = (tg_dialect)c.ents[root_ent].dialect;
    if ((s->root = node_of(&c, root_ent)) == TG_SNONE) goto error;
    while (c.n_queue) {
        uint32_t id = c.queue[--c.n_queue];
        if (emit_node(&c, id)) goto error;
    }
    if (close_dynamic(&c)) goto error;
    if (check_expansion(&c)) goto error;
    /* into the program */
    s->ins = tg_arena_alloc(&s->arena, (c.n_ins ? c.n_ins : 1) * sizeof *s->ins);
    s->nodes = tg_arena_alloc(&s->arena, (c.n_nodes ? c.n_nodes : 1) * sizeof *s->nodes);
    s->res = tg_arena_calloc(&s->arena, c.n_res ? c.n_res : 1, sizeof *s->res);
    s->regexes = tg_arena_alloc(&s->arena, (c.n_regexes ? c.n_regexes : 1) * sizeof *s->regexes);
    if (!s->ins || !s->nodes || !s->res || !s->regexes) { oom(&c); goto error; }
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
            r->dyn = tg_arena_alloc(&s->arena, c.res[i].n_dyn * sizeof *r->dyn);
            if (!r->dyn) { oom(&c); goto error; }
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
    if (!o.skip_metaschema_check) {
        const cJSON *sv = cJSON_IsObject(schema) ? tg_json_getz(c.ents[root_ent].node, "$schema") : NULL;
        const char *mu = cJSON_IsString(sv) ? sv->valuestring : tg_smeta_uri(s->dialect);
        if (cJSON_IsString(sv) && dialect_of_uri(mu, strlen(mu)) == TG_DIALECT_AUTO) {
            uint32_t e;
            if (!smap_find(&c.by_uri, mu, tg_suri_nofrag_len(mu), &e)) mu = tg_smeta_uri(s->dialect);
        } else if (cJSON_IsString(sv)) {
            mu = tg_smeta_uri(dialect_of_uri(mu, strlen(mu)));
        }
        if (meta_check(&c, c.ents[root_ent].node, mu)) goto error;
    }
    tg_arena_free(&c.tmp);
    *out = s;
    return 0;
error:
    if (!c.failed) oom(&c);
    for (i = 0; i < c.n_regexes; i++) tg_regex_free(c.regexes[i]);
    tg_arena_free(&c.tmp);
    tg_schema_free(s);
    return -1;
}
