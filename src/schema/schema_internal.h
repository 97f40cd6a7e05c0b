/* schema_internal.h - the compiled program shared by the schema module's
 * files (compiler, evaluator, formats, metaschemas). Not a public API. */
#ifndef TG_SCHEMA_INTERNAL_H
#define TG_SCHEMA_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include "schema.h"
#include "../json/json.h"
#include "../regex/regex.h"

#define TG_SNONE UINT32_MAX

/* cJSON's type tests, inline (the library's are calls, out of reach of the
 * optimizer without LTO); same semantics, NULL-safe. */
static inline int tg_sj_type(const cJSON *x, int t) { return x && (x->type & 0xFF) == t; }
#define tg_sj_IsNull(x) tg_sj_type((x), cJSON_NULL)
#define tg_sj_IsTrue(x) tg_sj_type((x), cJSON_True)
#define tg_sj_IsFalse(x) tg_sj_type((x), cJSON_False)
#define tg_sj_IsNumber(x) tg_sj_type((x), cJSON_Number)
#define tg_sj_IsString(x) tg_sj_type((x), cJSON_String)
#define tg_sj_IsArray(x) tg_sj_type((x), cJSON_Array)
#define tg_sj_IsObject(x) tg_sj_type((x), cJSON_Object)
static inline int tg_sj_IsBool(const cJSON *x) { return x && (x->type & (cJSON_True | cJSON_False)) != 0; }

/* One of 64 bits for a name (its length, first and last bytes): a filter
 * that lets lookups of names a set does not hold skip it. s is
 * NUL-terminated, so s[0] is readable when len is 0. */
static inline uint64_t tg_sname_bit(const char *s, size_t len) {
    return 1ull << ((len * 7u + (unsigned char)s[0] * 3u + (len ? (unsigned char)s[len - 1] : 0u)) & 63u);
}

/* Instance type bits (type keyword). */
enum {
    TG_ST_NULL = 1, TG_ST_BOOLEAN = 2, TG_ST_OBJECT = 4, TG_ST_ARRAY = 8,
    TG_ST_NUMBER = 16, TG_ST_STRING = 32, TG_ST_INTEGER = 64
};

/* Vocabularies in force for a resource. */
enum {
    TG_VOC_CORE = 1, TG_VOC_APPLICATOR = 2, TG_VOC_UNEVALUATED = 4, TG_VOC_VALIDATION = 8,
    TG_VOC_FORMAT_ASSERTION = 16, TG_VOC_ALL = 15
};

/* One instruction kind per keyword (or keyword group). */
typedef enum tg_sop {
    TG_OP_FALSE, TG_OP_TYPE, TG_OP_CONST, TG_OP_ENUM,
    TG_OP_MULTIPLE_OF, TG_OP_MAXIMUM, TG_OP_EXCL_MAXIMUM, TG_OP_MINIMUM, TG_OP_EXCL_MINIMUM,
    TG_OP_MAX_LENGTH, TG_OP_MIN_LENGTH, TG_OP_PATTERN, TG_OP_FORMAT,
    TG_OP_MAX_ITEMS, TG_OP_MIN_ITEMS, TG_OP_UNIQUE_ITEMS, TG_OP_PREFIX_ITEMS, TG_OP_ITEMS_FROM,
    TG_OP_CONTAINS,
    TG_OP_MAX_PROPS, TG_OP_MIN_PROPS, TG_OP_REQUIRED, TG_OP_PROPS, TG_OP_DEP_REQUIRED,
    TG_OP_DEP_SCHEMAS, TG_OP_PROPERTY_NAMES,
    TG_OP_ALL_OF, TG_OP_ANY_OF, TG_OP_ONE_OF, TG_OP_NOT, TG_OP_IF,
    TG_OP_REF, TG_OP_DYNAMIC_REF, TG_OP_RECURSIVE_REF,
    TG_OP_UNEVAL_ITEMS, TG_OP_UNEVAL_PROPS
} tg_sop;

typedef struct tg_sname {       /* an interned property name */
    const char *s;
    size_t len;
    uint32_t hash;
} tg_sname;

typedef struct tg_sprop {       /* properties entry */
    tg_sname name;
    uint32_t node;
    uint64_t req_bits;          /* its names' bits in the node's required (tg_schema_streamable) */
} tg_sprop;

typedef struct tg_spattern {    /* patternProperties entry */
    uint32_t re;
    uint32_t node;
} tg_spattern;

typedef struct tg_sprops {      /* properties + patternProperties + additionalProperties */
    tg_sprop *props;
    uint64_t bloom;             /* tg_sname_bit of every name in props */
    uint32_t n_props;
    uint32_t *table;            /* open addressing, index+1, 0 empty; NULL for small sets */
    uint32_t table_mask;
    /* names made to collide in the table (its probes past a bound): the
     * table is dropped and they are looked up here instead, sorted by
     * (name, index) for a binary search that no choice of names slows */
    struct tg_sexact *by_name;
    tg_spattern *patterns;
    uint32_t n_patterns;
    /* many patterns (past TG_SEXACT_FROM), some matching one name each
     * ("^k12$"): those sorted by (name, index) for a binary search per
     * member name, the rest (others, in order) searched one by one; so P
     * exact patterns over N names are N log P, not P x N searches. NULL
     * exact: every pattern is searched. */
    struct tg_sexact { const char *s; size_t len; uint32_t j; } *exact;
    uint32_t n_exact;
    uint32_t *others;
    uint32_t n_others;
    uint32_t additional;        /* node or TG_SNONE */
    const char *additional_base; /* the location of the node whose additionalProperties this is */
    uint64_t plain;             /* set by tg_schema_streamable: bit i, entry i (of the first 64)
                                 * is the one tg_sfind_prop finds for its name, which has no
                                 * byte a JSON string must escape and none past ASCII (a key
                                 * that is that name in the text reads as it, unlexed) */
} tg_sprops;

enum { TG_SEXACT_FROM = 8 };

/* The patternProperties entries that may match member name k[0..kl), in
 * their order (what the evaluator's errors follow): tg_spat_begin, then
 * tg_spat_next until TG_SNONE; *known 1 when the entry matches for sure
 * (an exact pattern naming k), 0 when its regex must be searched. */
typedef struct tg_spat_it {
    const tg_sprops *P;
    uint32_t ex, ex_end, oth, j;
} tg_spat_it;
void tg_spat_begin(tg_spat_it *it, const tg_sprops *P, const char *k, size_t kl);
/* Sets P->exact / P->others (schema_patterns.c) from P's compiled
 * patterns; 0, or -1 when the arena refused. */
int tg_spat_index(tg_arena *arena, tg_sprops *P, tg_regex *const *regexes);
static inline uint32_t tg_spat_next(tg_spat_it *it, int *known) {
    const tg_sprops *P = it->P;
    if (!P->exact) {
        *known = 0;
        return it->j < P->n_patterns ? it->j++ : TG_SNONE;
    }
    uint32_t a = it->ex < it->ex_end ? P->exact[it->ex].j : TG_SNONE;
    uint32_t b = it->oth < P->n_others ? P->others[it->oth] : TG_SNONE;
    if (a == TG_SNONE && b == TG_SNONE) return TG_SNONE;
    *known = a < b;
    if (a < b) it->ex++;
    else it->oth++;
    return a < b ? a : b;
}

typedef struct tg_sdep {        /* dependentRequired / dependentSchemas entry */
    tg_sname name;
    tg_sname *required;
    uint32_t n_required;
    uint32_t node;
} tg_sdep;

typedef struct tg_sins {
    uint8_t op;
    /* keyword location (JSON Pointer): the node's location and the keyword,
     * joined only when an error is told (tg_sins_loc) */
    const char *base;           /* the node's location, in the program arena */
    const char *kw;             /* a keyword name literal (no '~' or '/'); NULL: base alone */
    union {
        uint32_t mask;                                      /* type */
        struct {                                            /* const, enum (an array) */
            const cJSON *value;
            const struct tg_senum *index;                   /* enum's, or NULL: scanned (schema_enum.h) */
        } val;
        struct { double d; const char *lex; } num;          /* numeric limits, multipleOf */
        size_t count;                                       /* lengths, counts */
        uint32_t re;                                        /* pattern */
        int format;                                         /* format id */
        struct { uint32_t *nodes; uint32_t n; } list;       /* allOf/anyOf/oneOf/prefixItems */
        struct { uint32_t node; uint32_t from; } items;     /* items / additionalItems */
        struct { uint32_t node; size_t min, max; int marks; } contains;
        struct {                                            /* required */
            tg_sname *names;
            uint32_t n;
            /* set by tg_schema_streamable when every name is one of the
             * node's properties (and n <= 64): the one pass tells them
             * present by the bits of the entries keys matched */
            const struct tg_sprops *props;
        } req;
        const tg_sprops *props;
        struct { tg_sdep *deps; uint32_t n; } deps;
        uint32_t node;                                      /* not, propertyNames, ref, unevaluated* */
        struct { uint32_t c, t, e; } cond;                  /* if/then/else */
        struct { uint32_t node; const char *anchor; size_t len; } dyn; /* $dynamicRef/$recursiveRef */
    } u;
} tg_sins;

/* base + "/" + kw (a keyword name: nothing to escape), in a; NULL out of
 * memory. tg_sins_loc: the keyword location of in. */
const char *tg_sloc_kw(tg_arena *a, const char *base, const char *kw);
static inline const char *tg_sins_loc(const tg_sins *in, tg_arena *a) {
    return in->kw ? tg_sloc_kw(a, in->base, in->kw) : in->base;
}
/* The keyword location of a member a properties instruction refuses: its
 * additionalProperties (P: the instruction's u.props). */
static inline const char *tg_sloc_additional(const tg_sprops *P, tg_arena *a) {
    return tg_sloc_kw(a, P->additional_base, "additionalProperties");
}

typedef struct tg_snode {
    const char *loc;            /* the subschema's location (a $ref target's base: errors
                                 * beneath it are told along the evaluation path) */
    uint32_t start, count;      /* instruction range */
    uint32_t resource;
    uint8_t has_uneval;         /* owns unevaluated* : tracks annotations itself */
    uint8_t is_false;
    uint8_t leaf;               /* only keywords the evaluator can pass without a call
                                 * (type, lengths, maximum/minimum, pattern, maxItems,
                                 * enum), no unevaluated*: set by tg_schema_compile */
    uint8_t links;              /* has $ref or allOf (schema_stream.c follows them) */
    uint8_t unions;             /* has anyOf or oneOf (schema_stream.c picks a branch by type) */
    uint8_t tmask;              /* JSON types the node can accept (TG_ST_*, through $ref and
                                 * allOf; set by tg_schema_streamable) */
    uint8_t kinds;              /* the kinds of value the node's own instructions can refuse
                                 * or act on (schema_stream.c's SK_*, set by
                                 * tg_schema_streamable): the one pass walks them for those only */
    uint8_t scoped;             /* its resource can answer a $dynamicRef/$recursiveRef:
                                 * the evaluator keeps only such resources on its
                                 * dynamic scope (set by tg_schema_compile) */
} tg_snode;

typedef struct tg_sanchor {
    const char *name;
    size_t len;
    uint32_t node;
} tg_sanchor;

typedef struct tg_sres {        /* a schema resource (document root or $id) */
    const char *uri;
    tg_sanchor *dyn;            /* $dynamicAnchor names of this resource */
    uint32_t n_dyn;
    uint32_t root;              /* node of the resource root, or TG_SNONE */
    uint8_t recursive_anchor;   /* 2019-09 $recursiveAnchor: true at the root */
} tg_sres;

struct tg_schema {
    tg_allocator alloc;
    tg_arena *arena;            /* everything below lives here: own_arena or the caller's */
    tg_arena own_arena;
    tg_sins *ins;
    size_t n_ins;
    tg_snode *nodes;
    size_t n_nodes;
    tg_sres *res;
    size_t n_res;
    tg_regex **regexes;
    size_t n_regexes;
    size_t regex_scratch;
    uint32_t root;
    const cJSON *doc;           /* the root document (tg_schema_document) */
    tg_dialect dialect;
    tg_dialect meta_of;         /* set by tg_schema_compile_metaschema */
    struct tg_schema *flat;     /* a metaschema's flat twin for verdicts (schema_meta_flat.c); owned */
    uint8_t stream;             /* every keyword is one schema_stream.c checks in one pass */
    tg_schema_limits limits;
};

/* schema_uri.c */
/* Resolves ref against base (RFC 3986 section 5.2); the result is in arena. */
char *tg_suri_resolve(tg_arena *a, const char *base, const char *ref, size_t reflen);
/* Length of the part before '#'. */
size_t tg_suri_nofrag_len(const char *uri);
/* Percent-decodes s[0..len) into arena; NULL on bad escapes. */
char *tg_suri_pct_decode(tg_arena *a, const char *s, size_t len, size_t *outlen);

/* schema_format.c: 1 ok, 0 bad, -1 unknown format. */
int tg_sformat_id(const char *name, size_t len);
int tg_sformat_check(int id, const char *s, size_t len);
/* 1 when id is "regex" (checked by the evaluator with the regex compiler). */
int tg_sformat_is_regex(int id);

/* schema_meta.c: embedded metaschema text by URI (exact, no fragment). */
const char *tg_smeta_find(const char *uri, size_t len);
/* The metaschema URI of a dialect. */
const char *tg_smeta_uri(tg_dialect d);
/* schema_meta_flat.c (generated by gen_flat_meta.py): the dialect's
 * metaschema as one document giving the same verdicts (2020-12, 2019-09),
 * or NULL where the official one is flat already. */
const char *tg_smeta_flat(tg_dialect d);

/* schema_stream.c: 1 when every keyword of s is one tg_schema_check_text
 * checks (the caller sets tg_schema.stream); sets tg_snode.links. */
int tg_schema_streamable(tg_schema *s);

/* schema_report.c: renders validation errors (one BASIC output member, or
 * "loc: message" text). A path token is a member name (key, len) or, with
 * key NULL, an array index. */
typedef struct tg_spath { const char *key; size_t len, idx; } tg_spath;
typedef struct tg_sreport {
    tg_buf *out;                /* where errors go (the caller's) */
    tg_buf *lens;               /* set: records (tg_schema_errors), not JSON */
    int text;
    size_t n_errors;            /* rendered so far */
    const tg_allocator *alloc;
    tg_buf msg, il;             /* one error's message and instance location, reused */
} tg_sreport;
void tg_sreport_init(tg_sreport *r, const tg_schema_errors *to, int text, const tg_allocator *alloc);
void tg_sreport_free(tg_sreport *r);
/* Renders the error of instruction `in` failing on inst at path[0..npath)
 * (+ member key[0..klen) when key is not NULL): a, b are the counts or
 * indices the failure found (tg_sval's report). 0, or -1 out of memory. */
int tg_sreport_error(tg_sreport *r, const tg_sins *in, const cJSON *inst, size_t a, size_t b, const char *key,
                     size_t klen, const char *loc, const tg_spath *path, size_t npath);
/* A first error as a code (tg_schema_errors.codes) rather than words: the
 * static words of its message depend on the instruction and a variant
 * alone, and the rest (TG_SDYN_*) on the instance, which a host holding
 * the text renders itself. tg_sreport_dyn: the kind of that rest for `in`
 * failing with count/index a (with_key: on a member's key), and the
 * variant; -1 when its message is not of that shape. tg_sreport_site:
 * one record of two fields, the keyword location `loc` and the message
 * with TG_SDYN_MARK where the rest goes. 0, or -1 out of memory. */
#define TG_SDYN_MARK '\x01'
int tg_sreport_dyn(const tg_sins *in, int with_key, size_t a, size_t *variant);
int tg_sreport_site(tg_sreport *r, const tg_sins *in, size_t variant, const char *loc);

/* schema_eval.c: validation; errors (BASIC mode) go to `to`; text 1 renders
 * them as "loc: message" text (for compile diagnostics). 1 valid, 0
 * invalid, -1 an evaluation limit, -2 out of memory (tg_schema_validate
 * reports both as -1). */
int tg_sval(const tg_schema *s, const cJSON *instance, tg_arena *scratch, tg_output_mode mode, size_t max_errors,
            const tg_schema_errors *to, int text);
/* tg_sval in FLAG mode, adding to *probes the members its member-name
 * lookups (required, dependentRequired, dependentSchemas) looked at or
 * compared keys with (for tests: the work they did). */
int tg_sval_probes(const tg_schema *s, const cJSON *instance, tg_arena *scratch, size_t *probes);

/* Hash of a property name or URI for the program's tables (in-memory only:
 * never stored or shown). Eight bytes per step, the 1-7 left over read as
 * two overlapping words; inline, as lookups hash every member name. */
static inline uint32_t tg_shash(const char *s, size_t len) {
    const unsigned char *p = (const unsigned char *)s;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len, w;
    while (len >= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + len - 4, 4);
        h ^= (uint64_t)a << 32 | b;
    } else if (len) {
        h ^= (uint64_t)p[0] << 16 | (uint64_t)p[len >> 1] << 8 | p[len - 1];
    }
    h *= 0x94D049BB133111EBull;
    h ^= h >> 32;
    return (uint32_t)h;
}

/* tg_sfind_prop in P->by_name (schema_patterns.c). */
const tg_sprop *tg_sfind_sorted(const tg_sprops *P, const char *k, size_t kl);
/* Builds P->by_name when the table's probes show its names were made to
 * collide (schema_patterns.c); 0, or -1 when the arena refused. */
int tg_sprops_sort(tg_arena *arena, tg_sprops *P);

/* The properties entry named k[0..kl), or NULL. (Forced inline: wasm
 * builds would otherwise call it for every member.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline const tg_sprop *tg_sfind_prop(const tg_sprops *P, const char *k, size_t kl) {
    uint32_t i;
    if (P->table) {
        uint32_t h, j;
        if (!(P->bloom & tg_sname_bit(k, kl))) return NULL; /* skips the hash */
        h = tg_shash(k, kl);
        for (j = h & P->table_mask; P->table[j]; j = (j + 1) & P->table_mask) {
            const tg_sprop *p = &P->props[P->table[j] - 1];
            if (p->name.hash == h && p->name.len == kl && tg_json_same_bytes(p->name.s, k, kl)) return p;
        }
        return NULL;
    }
    if (P->by_name) return tg_sfind_sorted(P, k, kl);
    for (i = 0; i < P->n_props; i++) {
        const tg_sprop *p = &P->props[i];
        if (p->name.len == kl && (kl == 0 || (p->name.s[0] == k[0] && tg_json_same_bytes(p->name.s, k, kl)))) return p;
    }
    return NULL;
}

#endif
