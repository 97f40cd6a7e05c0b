/* schema_prune.c - the program's copy of a document without what
 * evaluation never reads (tg_schema_options.prune_document).
 *
 * A subschema's annotations ("title", "description", "$comment",
 * "default", "examples") and "x-" extension members are never read by the
 * evaluator, yet a tool's schema may hold most of its bytes there (an
 * "examples" array of 25,000 small values is 185 KiB of text and ~5 MiB of
 * nodes), and a registry keeps its programs for good. They are left out of
 * the copy in every subschema reached through the keywords that hold
 * subschemas (the scanner's tables, schema_resolve.c); elsewhere (enum,
 * const, unknown keywords' values, property names) nothing is touched. A
 * $ref's JSON Pointer may name any place of the document ("#/examples/0"
 * too): a member that any reference's pointer names as one of its tokens is
 * kept wherever it is, so nothing a reference reaches is ever gone. */
#include <string.h>

#include "schema_compiler.h"

enum {
    KEEP_TITLE = 1u << 0,
    KEEP_DESCRIPTION = 1u << 1,
    KEEP_COMMENT = 1u << 2,
    KEEP_DEFAULT = 1u << 3,
    KEEP_EXAMPLES = 1u << 4,
    KEEP_EXTENSION = 1u << 5 /* every "x-" member */
};

/* The KEEP_ bit of a member name evaluation never reads, or 0. Asked of
 * every member of every subschema: told by the length first, so most names
 * ("type", "properties", ...) cost no comparison. */
static unsigned prunable(const char *k, size_t n) {
    if (n >= 2 && k[0] == 'x' && k[1] == '-') return KEEP_EXTENSION;
    switch (n) {
    case 5: return memcmp(k, "title", 5) == 0 ? KEEP_TITLE : 0;
    case 7: return memcmp(k, "default", 7) == 0 ? KEEP_DEFAULT : 0;
    case 8: return memcmp(k, "$comment", 8) == 0 ? KEEP_COMMENT : memcmp(k, "examples", 8) == 0 ? KEEP_EXAMPLES : 0;
    case 11: return memcmp(k, "description", 11) == 0 ? KEEP_DESCRIPTION : 0;
    default: return 0;
    }
}

/* The bits of the names ref's fragment pointer holds as tokens, read as
 * the resolver reads it (tg_sc_resolve: percent-decoded, split at '/',
 * then ~1 and ~0); every bit when tmp refuses or the escape is bad. */
static unsigned pointer_names(tg_arena *tmp, const char *ref, size_t len) {
    const char *hash = memchr(ref, '#', len);
    if (!hash || hash + 1 == ref + len || hash[1] != '/') return 0;
    size_t dl;
    char *d = tg_suri_pct_decode(tmp, hash + 1, len - (size_t)(hash + 1 - ref), &dl);
    if (!d) return ~0u;
    unsigned bits = 0;
    char tok[16]; /* a token's first bytes: enough to tell the names above */
    size_t tl = 0;
    for (size_t i = 1; i <= dl; i++) {
        if (i == dl || d[i] == '/') {
            bits |= prunable(tok, tl);
            tl = 0;
            continue;
        }
        char ch = d[i];
        if (ch == '~' && i + 1 < dl && (d[i + 1] == '0' || d[i + 1] == '1')) ch = d[++i] == '0' ? '~' : '/';
        if (tl < sizeof tok) tok[tl++] = ch; /* (a longer one is no name above but by its start, "x-") */
    }
    return bits;
}

static int listed(const sc_kwname *t, const char *k, size_t n) {
    for (; t->s; t++)
        if (t->len == n && tg_json_same_bytes(t->s, k, n)) return 1;
    return 0;
}

/* What a subschema's member holds, as the scanner reads it. */
typedef enum { HOLDS_DATA, HOLDS_SCHEMA, HOLDS_SCHEMAS } holds;

static holds container_holds(const cJSON *m) {
    const char *k = m->string;
    size_t n = tg_json_strlen(k);
    if ((tg_sj_IsObject(m) || tg_sj_IsBool(m)) && listed(tg_sc_single_kw, k, n)) return HOLDS_SCHEMA;
    if ((tg_sj_IsArray(m) && listed(tg_sc_array_kw, k, n)) || (tg_sj_IsObject(m) && listed(tg_sc_map_kw, k, n)))
        return HOLDS_SCHEMAS; /* (each item, or each member's value) */
    return HOLDS_DATA;
}

/* (a string, number or null holds data: told without a call) */
static inline holds member_holds(const cJSON *m) {
    return m->type & (cJSON_Object | cJSON_Array | cJSON_True | cJSON_False) ? container_holds(m) : HOLDS_DATA;
}

static int left_out(const cJSON *m, unsigned keep) {
    unsigned bit = prunable(m->string, tg_json_strlen(m->string));
    return bit && !(keep & bit);
}

/* One walk of the document for tg_sc_prune_plan. */
typedef struct plan_walk {
    tg_arena *tmp;
    unsigned keep;
    size_t gone[6]; /* bytes of the members the copy leaves out, by the position of their KEEP_ bit */
} plan_walk;

/* A reference's pointer: the names it holds are kept. */
static void note_ref(plan_walk *w, const cJSON *m) {
    if (w->keep != ~0u && m->string && m->string[0] == '$' && tg_sj_IsString(m) &&
        (tg_json_key_is(m, "$ref") || tg_json_key_is(m, "$dynamicRef") || tg_json_key_is(m, "$recursiveRef")))
        w->keep |= pointer_names(w->tmp, m->valuestring, tg_json_strlen(m->valuestring));
}

/* tg_json_clone_size of n, its references noted (recursion as deep as the
 * document, as tg_json_clone's). */
static size_t whole_size(plan_walk *w, const cJSON *n) {
    size_t size = tg_json_node_size(n);
    for (const cJSON *m = n->child; m; m = m->next) {
        note_ref(w, m);
        size += whole_size(w, m);
    }
    return size;
}

/* The bytes tg_sc_prune takes of n when no reference names what it leaves
 * out; what it leaves out goes to w->gone. */
static size_t pruned_size(plan_walk *w, const cJSON *n) {
    if (!tg_sj_IsObject(n)) return whole_size(w, n);
    size_t size = tg_json_node_size(n);
    for (const cJSON *m = n->child; m; m = m->next) {
        unsigned bit = prunable(m->string, tg_json_strlen(m->string)), i = 0;
        note_ref(w, m);
        if (bit) {
            while (bit >> i != 1) i++;
            w->gone[i] += whole_size(w, m);
            continue;
        }
        switch (member_holds(m)) {
        case HOLDS_SCHEMA: size += pruned_size(w, m); break;
        case HOLDS_SCHEMAS:
            size += tg_json_node_size(m);
            for (const cJSON *s = m->child; s; s = s->next) {
                note_ref(w, s);
                size += pruned_size(w, s);
            }
            break;
        default: size += whole_size(w, m);
        }
    }
    return size;
}

sc_prune_plan tg_sc_prune_plan(tg_arena *tmp, const cJSON *doc) {
    plan_walk w = {tmp, 0, {0}};
    sc_prune_plan p;
    tg_arena_mark mark = tg_arena_save(tmp);
    p.whole = p.size = pruned_size(&w, doc);
    tg_arena_rewind(tmp, mark);
    for (unsigned i = 0; i < sizeof w.gone / sizeof w.gone[0]; i++) {
        p.whole += w.gone[i];
        if (w.keep & (1u << i)) p.size += w.gone[i]; /* (kept: copied whole) */
    }
    p.keep = w.keep;
    return p;
}

/* A container like n (type and key), empty. */
static cJSON *shell(tg_arena *a, const cJSON *n) {
    cJSON *c = tg_json_new(a, n->type & 0xFF);
    if (c && n->string && tg_json_set_key(a, c, n->string, tg_json_strlen(n->string))) return NULL;
    return c;
}

cJSON *tg_sc_prune(tg_arena *a, const cJSON *n, unsigned keep) {
    if (!tg_sj_IsObject(n)) return tg_json_clone(a, n);
    cJSON *out = shell(a, n);
    for (const cJSON *m = out ? n->child : NULL; m; m = m->next) {
        if (left_out(m, keep)) continue;
        cJSON *c;
        switch (member_holds(m)) {
        case HOLDS_SCHEMA: c = tg_sc_prune(a, m, keep); break;
        case HOLDS_SCHEMAS:
            c = shell(a, m);
            for (const cJSON *s = c ? m->child : NULL; s; s = s->next) {
                cJSON *one = tg_sc_prune(a, s, keep);
                if (!one) return NULL;
                tg_json_append(c, one);
            }
            break;
        default: c = tg_json_clone(a, m);
        }
        if (!c) return NULL;
        tg_json_append(out, c);
    }
    return out;
}
