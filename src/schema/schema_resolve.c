/* schema_resolve.c - the compiler's view of documents: each schema document
 * (the root, then every registered resource or embedded metaschema a
 * reference reaches) is copied into the program and scanned once; each
 * subschema gets its resource, dialect, vocabularies and location, and the
 * $id / $anchor / $dynamicAnchor URIs are indexed; references resolve
 * through that index (RFC 3986 resolution, JSON Pointer fragments, plain-name
 * anchors). Nothing is ever fetched. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "schema_compiler.h"

int tg_sc_grow_to(sc *c, void **arr, size_t *cap, size_t need, size_t elem) {
    size_t nc;
    void *p; /* (need > *cap: tg_sc_grow, its only caller, asked) */
    nc = *cap ? *cap * 2 : 64;
    while (nc < need) nc *= 2;
    p = tg_arena_alloc(c->tmp, nc * elem);
    if (!p) return -1;
    if (*arr && *cap) memcpy(p, *arr, *cap * elem);
    *arr = p;
    *cap = nc;
    return 0;
}

void tg_sc_fail(sc *c, const char *loc, const char *fmt, const char *arg) {
    if (c->failed) return;
    c->failed = 1;
    if (!c->diag) return;
    tg_buf_printf(c->diag, "%s: ", (loc && *loc) ? loc : "/");
    tg_buf_printf(c->diag, fmt, arg ? arg : "");
}

void tg_sc_oom(sc *c) {
    c->oom = 1;
    tg_sc_fail(c, "", "out of memory%s", "");
}

#define SMAP_RUN_MAX 128 /* the longest run of taken slots before the map gives way (random keys at half load: ~50) */
#define SMAP_RECENT 64   /* puts kept unsorted between merges, once given way */

static int slot_cmp(const smap_slot *a, const void *k, size_t klen) {
    if (a->klen != klen) return a->klen < klen ? -1 : 1;
    return klen ? memcmp(a->k, k, klen) : 0;
}

static int slot_order(const void *x, const void *y) {
    const smap_slot *a = x, *b = y;
    return slot_cmp(a, b->k, b->klen);
}

/* The given-way map's entry for k: the sorted keys in halves, then the
 * newest few one by one; NULL when there is none. */
static const smap_slot *sorted_find(const smap *m, const void *k, size_t klen) {
    size_t lo = 0, hi = m->nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (slot_cmp(&m->sorted[mid], k, klen) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo < m->nsorted && slot_cmp(&m->sorted[lo], k, klen) == 0) return &m->sorted[lo];
    for (size_t i = 0; i < m->nrecent; i++)
        if (slot_cmp(&m->recent[i], k, klen) == 0) return &m->recent[i];
    return NULL;
}

/* The newest puts sorted and merged into the sorted keys (keys are
 * distinct: put finds first); 0, or -1 when the arena refused. */
static int sorted_merge(sc *c, smap *m) {
    size_t n = m->nsorted + m->nrecent, i = 0, j = 0, o = 0;
    smap_slot *merged = tg_arena_alloc(c->tmp, (n ? n : 1) * sizeof *merged);
    if (!merged) return -1;
    qsort(m->recent, m->nrecent, sizeof *m->recent, slot_order);
    while (i < m->nsorted || j < m->nrecent)
        merged[o++] = j == m->nrecent || (i < m->nsorted && slot_order(&m->sorted[i], &m->recent[j]) < 0) ? m->sorted[i++]
                                                                                                      : m->recent[j++];
    m->sorted = merged;
    m->nsorted = n;
    m->nrecent = 0;
    return 0;
}

/* The table's entries moved to the sorted form, for good. */
static int give_way(sc *c, smap *m) {
    m->recent = tg_arena_alloc(c->tmp, SMAP_RECENT * sizeof *m->recent);
    m->sorted = tg_arena_alloc(c->tmp, (m->n ? m->n : 1) * sizeof *m->sorted);
    if (!m->recent || !m->sorted) return -1;
    for (size_t j = 0; j < m->cap; j++)
        if (m->slots[j].k) m->sorted[m->nsorted++] = m->slots[j];
    qsort(m->sorted, m->nsorted, sizeof *m->sorted, slot_order);
    m->slots = NULL;
    m->cap = 0;
    return 0;
}

int tg_sc_smap_find(const smap *m, const void *k, size_t klen, uint32_t *v) {
    uint32_t h;
    size_t i;
    if (m->sorted) {
        const smap_slot *sl = sorted_find(m, k, klen);
        if (sl) *v = sl->v;
        return sl != NULL;
    }
    if (!m->cap) return 0;
    h = tg_shash(k, klen);
    for (i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const smap_slot *sl = &m->slots[i];
        if (!sl->k) return 0;
        if (sl->h == h && sl->klen == klen && !memcmp(sl->k, k, klen)) { *v = sl->v; return 1; }
    }
}

/* k must outlive the map. Overwrites nothing: the first definition wins. */
int tg_sc_smap_put(sc *c, smap *m, const void *k, size_t klen, uint32_t v) {
    uint32_t h, dummy;
    size_t i, run = 0;
    if (tg_sc_smap_find(m, k, klen, &dummy)) return 0;
    if (m->sorted) {
        if (m->nrecent == SMAP_RECENT && sorted_merge(c, m)) return -1;
        m->recent[m->nrecent++] = (smap_slot){k, klen, 0, v};
        m->n++;
        return 0;
    }
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 8, j;
        smap_slot *ns = tg_arena_calloc(c->tmp, nc, sizeof *ns);
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
    /* the run of taken slots it joined, which a lookup homed at its start
     * walks whole: keys made to collide (or to take neighbouring homes)
     * grow it; past SMAP_RUN_MAX the map gives way, for good */
    for (size_t b = i; m->slots[(b - 1) & (m->cap - 1)].k && run <= SMAP_RUN_MAX; b--) run++;
    for (size_t f = i; m->slots[(f + 1) & (m->cap - 1)].k && run <= SMAP_RUN_MAX; f++) run++;
    return run > SMAP_RUN_MAX ? give_way(c, m) : 0;
}

/* Indexes node n as entry e. n is not in the index yet: tg_sc_scan has
 * asked tg_sc_ent_of, and what it loads in between (a custom metaschema)
 * is a copy, other nodes. Grows first, so one probe finds the free slot. */
static int put_node(sc *c, const cJSON *n, uint32_t e) {
    nmap *m = &c->by_node;
    size_t i;
    if ((m->n + 1) * 2 > m->cap) {
        nmap g = {NULL, m->cap ? m->cap * 2 : 64, 0};
        if (!(g.slots = tg_arena_calloc(c->tmp, g.cap, sizeof *g.slots))) return -1;
        for (size_t j = 0; j < m->cap; j++) {
            if (!m->slots[j].n) continue;
            for (i = tg_sc_node_slot(&g, m->slots[j].n); g.slots[i].n; i = (i + 1) & (g.cap - 1)) {}
            g.slots[i] = m->slots[j];
        }
        g.n = m->n;
        *m = g;
    }
    for (i = tg_sc_node_slot(m, n); m->slots[i].n; i = (i + 1) & (m->cap - 1)) {}
    m->slots[i].n = n;
    m->slots[i].ent = e;
    m->n++;
    return 0;
}

/* ---- locations ---- */

/* base (bl bytes), then "/" kw (a keyword name: nothing to escape; NULL
 * none), then "/" and tok escaped as a JSON Pointer token (NULL none), in
 * one piece. */
static char *loc_join2(sc *c, const char *base, size_t bl, const char *kw, size_t kwlen, const char *tok,
                       size_t toklen) {
    size_t i, o;
    char *r = tg_arena_alloc(c->s->arena, bl + (kw ? kwlen + 1 : 0) + (tok ? toklen * 2 + 1 : 0) + 1);
    if (!r) return NULL;
    memcpy(r, base, bl);
    o = bl;
    if (kw) {
        r[o++] = '/';
        memcpy(r + o, kw, kwlen);
        o += kwlen;
    }
    if (tok) {
        r[o++] = '/';
        for (i = 0; i < toklen; i++) {
            char ch = tok[i];
            if ((unsigned char)ch > '/' && ch != '~') r[o++] = ch; /* (letters, digits, '_': one test) */
            else if (ch == '~') { r[o++] = '~'; r[o++] = '0'; }
            else if (ch == '/') { r[o++] = '~'; r[o++] = '1'; }
            else if (ch == 0) { r[o++] = '?'; }
            else r[o++] = ch;
        }
    }
    r[o] = 0;
    return r;
}

char *tg_sc_loc_join(sc *c, const char *base, const char *tok, size_t toklen) {
    return loc_join2(c, base, strlen(base), NULL, 0, tok, toklen);
}

char *tg_sc_loc_idx(sc *c, const char *base, size_t i) {
    char num[24];
    int n = snprintf(num, sizeof num, "%zu", i);
    return tg_sc_loc_join(c, base, num, (size_t)n);
}

/* ---- dialects ---- */

tg_dialect tg_sc_dialect_of_uri(const char *u, size_t n) {
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
    tg_dialect k = tg_sc_dialect_of_uri(u, n);
    uint32_t e;
    if (k != TG_DIALECT_AUTO) { *d = (uint8_t)k; *voc = TG_VOC_ALL; return; }
    if (depth > 8) return;
    /* a custom metaschema among the resources */
    if (!tg_sc_smap_find(&c->by_uri, u, tg_suri_nofrag_len(u), &e)) {
        if (load_doc(c, u, tg_suri_nofrag_len(u)) != 0 || c->failed) { c->failed = 0; return; }
        if (!tg_sc_smap_find(&c->by_uri, u, tg_suri_nofrag_len(u), &e)) return;
    }
    if (e >= c->n_ents) return;
    {
        const cJSON *meta = c->ents[e].node;
        const cJSON *vocab = tg_sj_IsObject(meta) ? tg_json_getz(meta, "$vocabulary") : NULL;
        *d = c->ents[e].dialect;
        *voc = TG_VOC_ALL;
        if (tg_sj_IsObject(vocab)) {
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
    if (tg_sc_grow(c, (void **)&c->res, &c->cap_res, c->n_res + 1, sizeof *c->res)) return -1;
    r = &c->res[c->n_res];
    memset(r, 0, sizeof *r);
    r->uri = uri;
    r->root_ent = root_ent;
    *out = (uint32_t)c->n_res++;
    return 0;
}

/* Indexes URI k (outliving the map) as entry e's. A URI that already
 * names another entry is refused, naming it: the spec says no URI may
 * identify two schemas, and readers differ on which one a $ref takes (the
 * first here, the last elsewhere), so the gate would judge arguments by
 * another schema than the server's. 0, or -1 failed (reported). */
static int put_uri(sc *c, const char *k, size_t klen, uint32_t e) {
    uint32_t was;
    if (tg_sc_smap_find(&c->by_uri, k, klen, &was)) {
        if (was == e) return 0; /* ($anchor and $dynamicAnchor of one name on one node) */
        char *shown = tg_arena_strndup(c->tmp, k, klen < 200 ? klen : 200);
        if (!shown) { tg_sc_oom(c); return -1; }
        tg_sc_fail(c, c->ents[e].loc, "'%s' identifies two schemas ($id or $anchor defined twice)", shown);
        return -1;
    }
    if (tg_sc_smap_put(c, &c->by_uri, k, klen, e)) { tg_sc_oom(c); return -1; }
    return 0;
}

/* 0, or -1 failed (reported) */
static int add_anchor(sc *c, uint32_t res, const char *name, size_t len, uint32_t ent) {
    const char *ru = c->res[res].uri;
    size_t rl = strlen(ru);
    char *k = tg_arena_alloc(c->tmp, rl + len + 2);
    if (!k) { tg_sc_oom(c); return -1; }
    memcpy(k, ru, rl);
    k[rl] = '#';
    memcpy(k + rl + 1, name, len);
    k[rl + 1 + len] = 0;
    return put_uri(c, k, rl + 1 + len, ent);
}

#define KWN(k) TG_SC_KWNAME(k)
const sc_kwname tg_sc_single_kw[] = {
    KWN("additionalItems"), KWN("additionalProperties"), KWN("contains"), KWN("propertyNames"), KWN("not"),
    KWN("if"), KWN("then"), KWN("else"), KWN("unevaluatedItems"), KWN("unevaluatedProperties"), KWN("items"),
    KWN("contentSchema"), {NULL, 0, 0}};
const sc_kwname tg_sc_array_kw[] = {KWN("allOf"), KWN("anyOf"), KWN("oneOf"), KWN("prefixItems"), KWN("items"),
                                     {NULL, 0, 0}};
const sc_kwname tg_sc_map_kw[] = {KWN("properties"), KWN("patternProperties"), KWN("$defs"), KWN("definitions"),
                                   KWN("dependentSchemas"), KWN("dependencies"), {NULL, 0, 0}};
#undef KWN

static uint64_t table_bits(const sc_kwname *t) {
    uint64_t b = 0;
    for (; t->s; t++) b |= t->bit;
    return b;
}

void tg_sc_scan_init(sc *c) {
    c->kw_bits[0] = table_bits(tg_sc_single_kw);
    c->kw_bits[1] = table_bits(tg_sc_array_kw);
    c->kw_bits[2] = table_bits(tg_sc_map_kw);
}

int tg_sc_scan(sc *c, const cJSON *n, uint32_t res, uint8_t d, uint8_t voc, const char *loc, size_t depth,
                int is_root, uint32_t *out_ent) {
    uint32_t e, i;
    const cJSON *v, *it;
    int new_resource = is_root;
    uint64_t kb;
    if (tg_sc_ent_of(c, n, &e)) { if (out_ent) *out_ent = e; return 0; }
    if (depth > c->o->limits.max_depth) { tg_sc_fail(c, loc, "schema nested deeper than max_depth%s", ""); return -1; }
    if (!tg_sj_IsObject(n) && !tg_sj_IsBool(n)) {
        if (out_ent) *out_ent = TG_SNONE;
        return 0;
    }
    kb = tg_sc_bloom(n);
    if (tg_sj_IsObject(n)) {
        const cJSON *sv = tg_sc_kw(n, kb, "$schema");
        v = d == TG_DIALECT_DRAFT4 ? tg_sc_kw(n, kb, "id") : tg_sc_kw(n, kb, "$id");
        if (tg_sj_IsString(v) && OLD_DIALECT(d) && tg_sc_kw(n, kb, "$ref")) v = NULL;
        if (tg_sj_IsString(v) && v->valuestring[0] != '#') {
            size_t vl = tg_json_strlen(v->valuestring);
            char *full = tg_suri_resolve(c->tmp, c->res[res].uri, v->valuestring, vl);
            char *nf;
            if (!full) { tg_sc_oom(c); return -1; }
            nf = tg_arena_strndup(c->s->arena, full, tg_suri_nofrag_len(full));
            if (!nf) { tg_sc_oom(c); return -1; }
            if (is_root || strcmp(nf, c->res[res].uri) != 0) {
                if (!is_root) {
                    if (new_res(c, nf, (uint32_t)c->n_ents, &res)) { tg_sc_oom(c); return -1; }
                } else {
                    c->res[res].uri = nf;
                }
                new_resource = 1;
            }
        }
        if (new_resource && tg_sj_IsString(sv)) dialect_of_schema(c, sv, &d, &voc, 0);
    }
    /* the entry */
    if (tg_sc_grow(c, (void **)&c->ents, &c->cap_ents, c->n_ents + 1, sizeof *c->ents)) { tg_sc_oom(c); return -1; }
    e = (uint32_t)c->n_ents++;
    c->ents[e].node = n;
    c->ents[e].kb = kb;
    c->ents[e].res = res;
    c->ents[e].dialect = d;
    c->ents[e].voc = voc;
    c->ents[e].loc = loc;
    c->ents[e].prog = TG_SNONE;
    if (put_node(c, n, e)) { tg_sc_oom(c); return -1; }
    if (out_ent) *out_ent = e;
    if (new_resource) {
        c->res[res].root_ent = e;
        if (put_uri(c, c->res[res].uri, strlen(c->res[res].uri), e)) return -1;
    }
    if (!tg_sj_IsObject(n)) return 0;
    /* anchors */
    if (OLD_DIALECT(d)) {
        v = d == TG_DIALECT_DRAFT4 ? tg_sc_kw(n, kb, "id") : tg_sc_kw(n, kb, "$id");
        if (tg_sj_IsString(v) && !(tg_sc_kw(n, kb, "$ref"))) {
            const char *h = strchr(v->valuestring, '#');
            if (h && h[1] && h[1] != '/')
                if (add_anchor(c, res, h + 1, strlen(h + 1), e)) return -1;
        }
    } else {
        v = tg_sc_kw(n, kb, "$anchor");
        if (tg_sj_IsString(v) && add_anchor(c, res, v->valuestring, tg_json_strlen(v->valuestring), e)) return -1;
        v = d == TG_DIALECT_2020_12 ? tg_sc_kw(n, kb, "$dynamicAnchor") : NULL;
        if (tg_sj_IsString(v)) {
            sc_res *r = &c->res[res];
            size_t cap = r->cap_dyn;
            if (add_anchor(c, res, v->valuestring, tg_json_strlen(v->valuestring), e)) return -1;
            if (tg_sc_grow(c, (void **)&r->dyn, &cap, r->n_dyn + 1, sizeof *r->dyn)) { tg_sc_oom(c); return -1; }
            r->cap_dyn = (uint32_t)cap;
            r->dyn[r->n_dyn].name = v->valuestring;
            r->dyn[r->n_dyn].len = tg_json_strlen(v->valuestring);
            r->dyn[r->n_dyn].ent = e;
            r->n_dyn++;
        }
        v = d == TG_DIALECT_2019_09 ? tg_sc_kw(n, kb, "$recursiveAnchor") : NULL;
        if (tg_sj_IsTrue(v) && new_resource) c->res[res].recursive_anchor = 1;
    }
    /* children (their locations: loc and a name, loc's length taken once) */
    if (!(kb & (c->kw_bits[0] | c->kw_bits[1] | c->kw_bits[2]))) return 0;
    size_t ll = strlen(loc);
    for (i = 0; (kb & c->kw_bits[0]) && tg_sc_single_kw[i].s; i++) {
        v = tg_sc_kwt(n, kb, &tg_sc_single_kw[i]);
        if (v && (tg_sj_IsObject(v) || tg_sj_IsBool(v))) {
            char *l = loc_join2(c, loc, ll, tg_sc_single_kw[i].s, tg_sc_single_kw[i].len, NULL, 0);
            if (!l) { tg_sc_oom(c); return -1; }
            if (tg_sc_scan(c, v, res, d, voc, l, depth + 1, 0, NULL)) return -1;
        }
    }
    for (i = 0; (kb & c->kw_bits[1]) && tg_sc_array_kw[i].s; i++) {
        size_t k = 0;
        v = tg_sc_kwt(n, kb, &tg_sc_array_kw[i]);
        if (!tg_sj_IsArray(v)) continue;
        for (it = v->child; it; it = it->next, k++) {
            char num[24];
            int nl = snprintf(num, sizeof num, "%zu", k);
            char *l = loc_join2(c, loc, ll, tg_sc_array_kw[i].s, tg_sc_array_kw[i].len, num, (size_t)nl);
            if (!l) { tg_sc_oom(c); return -1; }
            if (tg_sc_scan(c, it, res, d, voc, l, depth + 1, 0, NULL)) return -1;
        }
    }
    for (i = 0; (kb & c->kw_bits[2]) && tg_sc_map_kw[i].s; i++) {
        v = tg_sc_kwt(n, kb, &tg_sc_map_kw[i]);
        if (!tg_sj_IsObject(v)) continue;
        for (it = v->child; it; it = it->next) {
            char *l;
            if (!tg_sj_IsObject(it) && !tg_sj_IsBool(it)) continue;
            l = loc_join2(c, loc, ll, tg_sc_map_kw[i].s, tg_sc_map_kw[i].len, it->string, tg_json_strlen(it->string));
            if (!l) { tg_sc_oom(c); return -1; }
            if (tg_sc_scan(c, it, res, d, voc, l, depth + 1, 0, NULL)) return -1;
        }
    }
    return 0;
}

/* Adds a document under uri (no fragment): clone into the program, scan. */
int tg_sc_add_doc(sc *c, const cJSON *doc, const char *uri, size_t urilen, const char *locprefix, sc_doc how,
                  uint32_t *out) {
    uint32_t r, e;
    const cJSON *clone = how == SC_DOC_BORROW ? doc
                         : how == SC_DOC_PRUNE ? tg_sc_prune(c->s->arena, doc, c->prune_keep)
                                               : tg_json_clone(c->s->arena, doc);
    char *u = tg_arena_strndup(c->s->arena, uri, urilen);
    if (!clone || !u) { tg_sc_oom(c); return -1; }
    if (new_res(c, u, TG_SNONE, &r)) { tg_sc_oom(c); return -1; }
    c->load_depth++;
    if (tg_sc_scan(c, clone, r, (uint8_t)c->def_dialect, TG_VOC_ALL, locprefix, 0, 1, &e)) { c->load_depth--; return -1; }
    c->load_depth--;
    if (tg_sc_smap_put(c, &c->by_uri, u, urilen, e)) { tg_sc_oom(c); return -1; }
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
    prefix = tg_arena_alloc(c->s->arena, urilen + 2);
    if (!prefix) { tg_sc_oom(c); return -1; }
    memcpy(prefix, uri, urilen);
    prefix[urilen] = '#';
    prefix[urilen + 1] = 0;
    for (i = 0; i < c->o->n_resources; i++) {
        const tg_schema_resource *r = &c->o->resources[i];
        if (r->uri && r->schema && uri_eq(r->uri, strlen(r->uri), uri, urilen))
            return tg_sc_add_doc(c, r->schema, uri, urilen, prefix, SC_DOC_COPY, NULL) ? -1 : 0;
    }
    text = tg_smeta_find(uri, urilen);
    if (text) {
        tg_json_error err;
        tg_json_limits lim = tg_json_default_limits();
        cJSON *doc = tg_json_parse(c->tmp, text, strlen(text), &lim, &err);
        if (!doc && err.status == TG_JSON_NOMEM) { tg_sc_oom(c); return -1; }
        if (!doc) { tg_sc_fail(c, uri, "embedded metaschema does not parse%s", ""); return -1; }
        return tg_sc_add_doc(c, doc, uri, urilen, prefix, SC_DOC_COPY, NULL) ? -1 : 0;
    }
    return 1;
}

/* ---- references ---- */

int tg_sc_resolve(sc *c, uint32_t from, const char *ref, size_t reflen, const char *kwloc, uint32_t *out) {
    const char *base = c->res[c->ents[from].res].uri;
    char *full = tg_suri_resolve(c->tmp, base, ref, reflen);
    size_t nf;
    uint32_t root;
    const char *frag;
    if (!full) { tg_sc_oom(c); return -1; }
    nf = tg_suri_nofrag_len(full);
    if (!tg_sc_smap_find(&c->by_uri, full, nf, &root)) {
        int r = load_doc(c, full, nf);
        if (r < 0) return -1;
        if (r > 0 || !tg_sc_smap_find(&c->by_uri, full, nf, &root)) {
            tg_sc_fail(c, kwloc, "cannot resolve '%s'", full);
            return -1;
        }
    }
    frag = full[nf] == '#' ? full + nf + 1 : "";
    if (!*frag) { *out = root; return 0; }
    if (frag[0] == '/') {
        size_t fl;
        char *dec = tg_suri_pct_decode(c->tmp, frag, strlen(frag), &fl);
        const cJSON *cur = c->ents[root].node;
        const char *p, *end;
        const char *loc = c->ents[root].loc;
        if (!dec) { tg_sc_fail(c, kwloc, "bad escape in '%s'", full); return -1; }
        p = dec + 1;
        end = dec + fl;
        for (;;) {
            char tok[512];
            size_t tl = 0;
            while (p < end && *p != '/') {
                if (tl >= sizeof tok - 1) { tg_sc_fail(c, kwloc, "cannot resolve '%s'", full); return -1; }
                if (*p == '~' && p + 1 < end && (p[1] == '0' || p[1] == '1')) { tok[tl++] = p[1] == '0' ? '~' : '/'; p += 2; }
                else tok[tl++] = *p++;
            }
            tok[tl] = 0;
            if (tg_sj_IsObject(cur)) cur = tg_json_index_get(&c->ptr_ix, cur, tok, tl);
            else if (tg_sj_IsArray(cur)) {
                size_t idx;
                cur = tg_json_array_index(tok, tl, &idx) ? NULL : tg_json_index_item(&c->ptr_ix, cur, idx);
            } else cur = NULL;
            if (!cur) { tg_sc_fail(c, kwloc, "cannot resolve '%s'", full); return -1; }
            loc = tg_sc_loc_join(c, loc, tok, tl);
            if (!loc) { tg_sc_oom(c); return -1; }
            if (p >= end) break;
            p++;
        }
        if (!tg_sc_ent_of(c, cur, out)) {
            uint32_t e;
            if (tg_sc_scan(c, cur, c->ents[root].res, c->ents[root].dialect, c->ents[root].voc, loc, 0, 0, &e)) return -1;
            if (e == TG_SNONE) { tg_sc_fail(c, kwloc, "'%s' is not a schema", full); return -1; }
            *out = e;
        }
        return 0;
    }
    if (!tg_sc_smap_find(&c->by_uri, full, strlen(full), out)) {
        tg_sc_fail(c, kwloc, "cannot resolve '%s'", full);
        return -1;
    }
    return 0;
}

