/* schema_compiler.h - state shared by the compiler's files only
 * (schema_resolve.c: documents, URIs, anchors; schema_emit.c: subschema ->
 * instructions; schema_check.c: expansion limits and the metaschema check;
 * schema_compile.c: the public entry points). */
#ifndef TG_SCHEMA_COMPILER_H
#define TG_SCHEMA_COMPILER_H

#include <string.h>

#include "schema_internal.h"
#include "../json/json_index.h"

#define OLD_DIALECT(d) ((d) >= TG_DIALECT_DRAFT7)

typedef struct smap_slot { const void *k; size_t klen; uint32_t h; uint32_t v; } smap_slot;
/* URI -> entry. A hash table (open addressing); keys an upstream chose to
 * share the hash's low bits (it is public) make one run every lookup walks,
 * so once a run of taken slots passes SMAP_RUN_MAX the map gives way for
 * good to the keys sorted by bytes (sorted[0..nsorted)) plus the newest few unsorted
 * (recent[0..nrecent), merged in when full): binary search, no hash. */
typedef struct smap {
    smap_slot *slots;
    size_t cap, n;
    smap_slot *sorted, *recent; /* given way: the table is no longer used */
    size_t nsorted, nrecent, capsorted;
} smap;
typedef struct nmap_slot { const cJSON *n; uint32_t ent; } nmap_slot;
typedef struct nmap { nmap_slot *slots; size_t cap, n; } nmap;

typedef struct sc_ent {
    const cJSON *node;
    uint64_t kb;    /* tg_sc_bloom(node): the scan's, for the emit too */
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
    tg_arena *tmp;          /* working memory: own_tmp or the caller's (tg_schema_options.scratch) */
    tg_arena own_tmp;
    const tg_schema_options *o;
    tg_buf *diag;
    int failed;
    int oom;                /* the failure was memory (tg_schema_compile returns -2) */
    sc_ent *ents; size_t n_ents, cap_ents;
    nmap by_node;   /* node -> ent */
    smap by_uri;    /* key: uri bytes -> ent */
    sc_res *res; size_t n_res, cap_res;
    uint32_t *queue; size_t n_queue, cap_queue;
    tg_sins *ins; size_t n_ins, cap_ins;
    tg_snode *nodes; size_t n_nodes, cap_nodes;
    tg_regex **regexes; size_t n_regexes, cap_regexes;
    size_t regex_states, regex_ranges; /* what regexes[] hold together (max_regex_states/ranges) */
    uint32_t *node_ent;  /* node -> ent */
    size_t cap_node_ent;
    tg_dialect def_dialect;
    int load_depth;
    /* the containers $ref pointers walk through, indexed once each (in tmp):
     * R refs into a $defs of M cost R log M, not R x M */
    tg_json_index ptr_ix;
    /* the filter bits of tg_sc_single_kw, _array_kw and _map_kw, each
     * table's together: the scan skips a table none of whose bits a
     * subschema has (tg_sc_scan_init) */
    uint64_t kw_bits[3];
    unsigned prune_keep;    /* SC_DOC_PRUNE: the keep mask of the root's tg_sc_prune_plan */
} sc;

/* A 64-bit filter of an object's member names (length and first and last
 * bytes), so keyword lookups of absent keywords skip the member scan. */
#define TG_SC_KBIT(l, first, last) ((unsigned)((l) * 7u + (unsigned char)(first) * 3u + (unsigned char)(last)) & 63u)
static inline unsigned tg_sc_kbit(const char *k, size_t l) {
    return TG_SC_KBIT(l, k[0], l ? k[l - 1] : 0);
}
static inline uint64_t tg_sc_bloom(const cJSON *n) {
    uint64_t b = 0;
    const cJSON *m;
    if (!n || (n->type & 0xFF) != cJSON_Object) return 0;
    for (m = n->child; m; m = m->next) b |= 1ull << tg_sc_kbit(m->string, tg_json_strlen(m->string));
    return b;
}
/* tg_json_get(n, k, l) for n whose filter is bloom; tg_sc_kw for a literal
 * k (always inlined: its length and filter bit fold to constants). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline const cJSON *tg_sc_kwn(const cJSON *n, uint64_t bloom, const char *k, size_t l) {
    if (!((bloom >> tg_sc_kbit(k, l)) & 1)) return NULL;
    return tg_json_get(n, k, l);
}
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline const cJSON *tg_sc_kw(const cJSON *n, uint64_t bloom, const char *k) {
    return tg_sc_kwn(n, bloom, k, strlen(k));
}

/* The keywords whose values hold subschemas, with their lengths and filter
 * bits (looked up at every node: nothing computed each time): a subschema
 * (object or boolean), an array of them, a map of them; {NULL} ends each. */
typedef struct sc_kwname { const char *s; size_t len; uint64_t bit; } sc_kwname;
#define TG_SC_KWNAME(k) {k, sizeof k - 1, 1ull << TG_SC_KBIT(sizeof k - 1, k[0], k[sizeof k - 2])}
extern const sc_kwname tg_sc_single_kw[], tg_sc_array_kw[], tg_sc_map_kw[];
/* tg_sc_kwn for a table's keyword. */
static inline const cJSON *tg_sc_kwt(const cJSON *n, uint64_t bloom, const sc_kwname *k) {
    return bloom & k->bit ? tg_json_get(n, k->s, k->len) : NULL;
}

/* How a document comes into the program. */
typedef enum sc_doc {
    SC_DOC_COPY,   /* copied whole */
    SC_DOC_BORROW, /* used in place (tg_schema_options.borrow_document) */
    SC_DOC_PRUNE   /* copied without what evaluation never reads (prune_document, schema_prune.c) */
} sc_doc;

/* schema_resolve.c */
/* Makes *arr (in tmp) hold need elements. Asked at every entry, node and
 * instruction: the check inline, the growing (tg_sc_grow_to, for need >
 * *cap only: call tg_sc_grow) not. */
int tg_sc_grow_to(sc *c, void **arr, size_t *cap, size_t need, size_t elem);
static inline int tg_sc_grow(sc *c, void **arr, size_t *cap, size_t need, size_t elem) {
    return need <= *cap ? 0 : tg_sc_grow_to(c, arr, cap, need, elem);
}
void tg_sc_fail(sc *c, const char *loc, const char *fmt, const char *arg);
void tg_sc_oom(sc *c);
int tg_sc_smap_find(const smap *m, const void *k, size_t klen, uint32_t *v);
int tg_sc_smap_put(sc *c, smap *m, const void *k, size_t klen, uint32_t v);
/* by_node: keyed by the node's address itself (one multiply for a slot,
 * one compare a probe); inline, asked at every subschema scanned and
 * emitted. tg_sc_ent_of: 1 and *e node n's entry, or 0. */
static inline size_t tg_sc_node_slot(const nmap *m, const cJSON *n) {
    return (size_t)(((uint64_t)(uintptr_t)n * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
}
static inline int tg_sc_ent_of(const sc *c, const cJSON *n, uint32_t *e) {
    const nmap *m = &c->by_node;
    if (!m->cap) return 0;
    for (size_t i = tg_sc_node_slot(m, n);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].n == n) { *e = m->slots[i].ent; return 1; }
        if (!m->slots[i].n) return 0;
    }
}
char *tg_sc_loc_join(sc *c, const char *base, const char *tok, size_t toklen);
/* base + "/" + a keyword literal, in the program (nothing to escape: the
 * join errors are told with, tg_sloc_kw). */
static inline const char *tg_sc_loc_kw(sc *c, const char *base, const char *kw) {
    return tg_sloc_kw(c->s->arena, base, kw);
}
char *tg_sc_loc_idx(sc *c, const char *base, size_t i);
tg_dialect tg_sc_dialect_of_uri(const char *u, size_t n);
/* Readies c for tg_sc_scan. */
void tg_sc_scan_init(sc *c);
/* Indexes subschema n (and everything under it); *out_ent its entry. */
int tg_sc_scan(sc *c, const cJSON *n, uint32_t res, uint8_t d, uint8_t voc, const char *loc, size_t depth,
               int is_root, uint32_t *out_ent);
/* Brings doc into the program as `how` says and indexes it under uri. */
int tg_sc_add_doc(sc *c, const cJSON *doc, const char *uri, size_t urilen, const char *locprefix, sc_doc how,
                  uint32_t *out);
/* Resolves ref against the base URI of entry `from`; *out the target entry. */
int tg_sc_resolve(sc *c, uint32_t from, const char *ref, size_t reflen, const char *kwloc, uint32_t *out);

/* schema_prune.c: what prune_document leaves out, read in one walk of the
 * document: the arena bytes of a whole copy (tg_json_clone_size), the
 * members a reference's JSON Pointer names (kept wherever they are), as a
 * mask for tg_sc_prune (every one when tmp refuses: nothing left out), and
 * the arena bytes tg_sc_prune takes with that mask. */
typedef struct sc_prune_plan { size_t whole, size; unsigned keep; } sc_prune_plan;
sc_prune_plan tg_sc_prune_plan(tg_arena *tmp, const cJSON *doc);
/* doc copied into a without the members evaluation never reads; NULL
 * when a refuses. */
cJSON *tg_sc_prune(tg_arena *a, const cJSON *doc, unsigned keep);

/* schema_emit.c */
uint32_t tg_sc_node_of(sc *c, uint32_t ent);
int tg_sc_emit_node(sc *c, uint32_t id);
int tg_sc_close_dynamic(sc *c);

/* schema_check.c */
int tg_sc_check_expansion(sc *c);
int tg_sc_meta_check(sc *c, const cJSON *root, const char *meta_uri, tg_dialect official);

#endif
