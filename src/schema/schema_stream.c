/* schema_stream.c - parse and validate JSON text in one pass, without
 * building a tree: the fast path of a tool call's arguments.
 *
 * It covers the keywords tool schemas are made of (type, enum/const of
 * scalars, numeric and length limits, pattern, asserted formats, items,
 * properties / patternProperties / additionalProperties, required, counts,
 * allOf, $ref, and anyOf / oneOf as below); tg_schema_compile sets
 * tg_schema.stream when a schema uses nothing else. It answers "valid" (1),
 * "invalid" (0: the text is strict JSON and a keyword refuses it; asked, it
 * names the evaluator's first error itself when it can tell which that is,
 * see sexplain below, else the caller asks the evaluator) or "not decided
 * here" (-1): malformed or unusual input (duplicate or escaped keys, numbers
 * beyond 15 digits or with exponents, deep nesting, a limit in sight) goes
 * to the tree reader and the evaluator, which decide it and explain it. Its
 * verdicts and first errors must be the evaluator's: schema_stream_test.c
 * runs both over generated and mutated texts, and schema_suite_test.c over
 * every case of the JSON-Schema-Test-Suite.
 *
 * anyOf / oneOf are decided by type: the JSON type of the value (seen at
 * its first byte) rules out every branch whose "type" cannot accept it;
 * when one branch is left, the union holds exactly when that branch does,
 * so it joins the value's set; none left refuses the value; more than one
 * leaves the value to the evaluator. That covers the unions tool schemas
 * are made of (pydantic's Optional, nullable references, object-or-string).
 *
 * Strictness is the tree reader's: strings and numbers go through the same
 * lexer (json/json_lex.h). A value is checked against a set of up to
 * SET_MAX program nodes at once (a node, the targets of its $refs, the
 * members of its allOf, every properties/patternProperties entry a key
 * matches), so nothing is evaluated twice and $ref cycles end. */
#include "schema_internal.h"
#include "schema_enum.h"
#include "../json/json_lex.h"
#include "../base/utf8.h"

#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TG_COLD __attribute__((cold, noinline))
#define TG_NOINLINE __attribute__((noinline))
#define TG_INLINE inline __attribute__((always_inline))
#else
#define TG_COLD
#define TG_NOINLINE
#define TG_INLINE inline
#endif

#define SET_MAX 8
#define DEPTH_MAX 96   /* nesting checked here (C recursion: ~200 bytes a level) */
#define KEYS_MAX 256   /* member names held at once, for duplicates and required */

typedef struct skey {
    const char *s;
    size_t len;
} skey;

/* Explaining a refusal (tg_schema_check_text with first_error): the
 * evaluator, asked for one error, reports the first failing keyword in its
 * order: a node's instructions in sequence, members in document order. One
 * pass meets keywords in that order too, with two exceptions it corrects or
 * avoids: a container's own keywords (type, required, counts) are checked
 * after its members, so one that precedes the member's "properties" /
 * "items" instruction replaces a member's error (container_done); and a set
 * of several nodes with keywords of their own (allOf of two objects, a key
 * matching both properties and patternProperties, a union) interleaves
 * what the evaluator runs one after the other, so an error beneath such a
 * set is left to the evaluator. */
typedef struct sframe {          /* an open container, on the C stack (explaining only) */
    const struct sframe *up;
    const struct sset *set;      /* its set, before any branch is picked */
    const tg_sins *via;          /* its properties / items instruction */
    tg_spath at;                 /* the member or item being checked */
} sframe;

typedef struct sexplain {
    const tg_schema_errors *to;  /* where the error goes */
    int started;                 /* the marks below are set (at the first refusal) */
    int rep_ready;               /* rep is set (at the first error rendered, not coded) */
    tg_sreport rep;
    tg_allocator alloc;          /* over the scratch arena: the message buffers */
    size_t mark, lens_mark;      /* rep.out's length before our '[' (or record), rep.lens's */
    int json;                    /* BASIC output, not records: '[' and ']' */
    int err;                     /* 0 none, 1 rendered or coded, 2 the evaluator's to tell */
    size_t err_depth;            /* the error lies beneath every open container of lower depth */
    const sframe *top;           /* the innermost open container */
} sexplain;

typedef struct st {
    const tg_schema *s;
    sexplain *x;          /* NULL: the verdict only; else &xs */
    sexplain xs;
    int bad;              /* a keyword refused the instance: only syntax is checked from here on */
    int escaped;          /* the string last read had escapes (string_value) */
    const unsigned char *p;
    size_t len, pos;
    tg_arena *scratch;
    void *re_scratch;
    size_t steps, max_steps;
    size_t depth_max;     /* the least depth refused: the caller's limit or DEPTH_MAX + 1 */
    size_t eval_max;
    skey keys[KEYS_MAX];
    size_t nkeys;
} st;

typedef struct sset {
    uint32_t node[SET_MAX];
    unsigned n;
    unsigned kinds;  /* the SK_* bits of its nodes */
    unsigned hops;   /* longest $ref / allOf chain followed to fill it */
    unsigned unions; /* some node has anyOf / oneOf: pick branches once the type is known */
    unsigned picked; /* made by picking union branches (pick_branches) */
    unsigned refs;   /* a node came in through $ref: its errors' keyword locations run
                      * through the $ref (the evaluator tells those) */
} sset;

#define ALL_TYPES 0x7F

static inline void set_empty(sset *set) {
    set->n = 0;
    set->kinds = 0;
    set->hops = 0;
    set->unions = 0;
    set->picked = 0;
    set->refs = 0;
}

/* The kinds of value whose check walks a node's instructions
 * (tg_snode.kinds): a string, a number, true / false / null, an object or
 * array once its members are known (container_fails). A set without the
 * bit has nothing to check: a node with no keyword but a "type" that
 * admits the value costs nothing. */
enum { /* (a value's bits are its type's, TG_ST_*) */
    SK_NULL = TG_ST_NULL, SK_BOOLEAN = TG_ST_BOOLEAN, SK_OBJECT = TG_ST_OBJECT, SK_ARRAY = TG_ST_ARRAY,
    SK_NUMBER = TG_ST_NUMBER, SK_STRING = TG_ST_STRING,
    SK_COMPARE = 64 /* enum or const: a container's are the evaluator's */
};
#define SK_VALUES (SK_STRING | SK_NUMBER | SK_BOOLEAN | SK_NULL | SK_OBJECT | SK_ARRAY)

/* The SK_* bits of instruction in (see the value functions' switches). */
static unsigned ins_kinds(const tg_sins *in) {
    switch ((tg_sop)in->op) {
    case TG_OP_FALSE: return SK_VALUES;
    case TG_OP_CONST: case TG_OP_ENUM: return SK_VALUES | SK_COMPARE;
    case TG_OP_TYPE: /* the kinds it does not admit ("integer" alone: numbers, 1.5 and 1.0 are refused or left) */
        return ~in->u.mask & SK_VALUES;
    case TG_OP_MAXIMUM: case TG_OP_EXCL_MAXIMUM: case TG_OP_MINIMUM: case TG_OP_EXCL_MINIMUM: return SK_NUMBER;
    case TG_OP_MAX_LENGTH: case TG_OP_MIN_LENGTH: case TG_OP_PATTERN: case TG_OP_FORMAT: return SK_STRING;
    case TG_OP_MAX_ITEMS: case TG_OP_MIN_ITEMS: return SK_ARRAY;
    case TG_OP_MAX_PROPS: case TG_OP_MIN_PROPS: case TG_OP_REQUIRED: return SK_OBJECT;
    default: return 0; /* $ref, allOf, anyOf, oneOf: the sets follow them */
    }
}

/* 1 when entry x of P is the first with its name (the one tg_sfind_prop
 * finds), told from the names' hashes: the table's probe from the hash
 * meets earlier entries of the same name first. */
static int first_of_name(const tg_sprops *P, uint32_t x) {
    const tg_sname *nm = &P->props[x].name;
    uint32_t j, y;
    if (P->table) {
        for (j = nm->hash & P->table_mask; (y = P->table[j] - 1) != x; j = (j + 1) & P->table_mask)
            if (P->props[y].name.hash == nm->hash && P->props[y].name.len == nm->len &&
                tg_json_same_bytes(P->props[y].name.s, nm->s, nm->len))
                return 0;
        return 1;
    }
    for (y = 0; y < x; y++)
        if (P->props[y].name.hash == nm->hash && P->props[y].name.len == nm->len &&
            tg_json_same_bytes(P->props[y].name.s, nm->s, nm->len))
            return 0;
    return 1;
}

/* Sets P->plain (see expected_key). */
static void mark_plain(tg_sprops *P) {
    uint32_t i;
    /* names of as many bloom bits as names are all different (most sets):
     * each entry is the first of its name */
    int distinct = (uint32_t)__builtin_popcountll(P->bloom) == P->n_props;
    P->plain = 0;
    for (i = 0; i < P->n_props && i < 64; i++)
        if (tg_json_plain(P->props[i].name.s, P->props[i].name.len) && (distinct || first_of_name(P, i)))
            P->plain |= (uint64_t)1 << i;
}

int tg_schema_streamable(tg_schema *s) {
    size_t i;
    int changed;
    for (i = 0; i < s->n_nodes; i++) {
        uint32_t k;
        tg_snode *nd = &s->nodes[i];
        if (nd->has_uneval || nd->scoped) return 0;
        nd->tmask = nd->is_false ? 0 : ALL_TYPES;
        nd->kinds = 0;
        for (k = 0; k < nd->count; k++) {
            const tg_sins *in = &s->ins[nd->start + k];
            nd->kinds |= (uint8_t)ins_kinds(in);
            if (in->op == TG_OP_REF || in->op == TG_OP_ALL_OF) nd->links = 1;
            if (in->op == TG_OP_ANY_OF || in->op == TG_OP_ONE_OF) nd->unions = 1;
            /* "integer" admits numbers (1.0 is one in some dialects): both bits */
            if (in->op == TG_OP_TYPE)
                nd->tmask &= (uint8_t)(in->u.mask | (in->u.mask & TG_ST_INTEGER ? TG_ST_NUMBER : 0));
        }
    }
    /* what $ref and allOf bring narrows the types too (to a fixed point) */
    do {
        changed = 0;
        for (i = 0; i < s->n_nodes; i++) {
            tg_snode *nd = &s->nodes[i];
            uint32_t k, j;
            uint8_t m = nd->tmask;
            if (!nd->links) continue;
            for (k = 0; k < nd->count; k++) {
                const tg_sins *in = &s->ins[nd->start + k];
                if (in->op == TG_OP_REF) m &= s->nodes[in->u.node].tmask;
                else if (in->op == TG_OP_ALL_OF)
                    for (j = 0; j < in->u.list.n; j++) m &= s->nodes[in->u.list.nodes[j]].tmask;
            }
            if (m != nd->tmask) {
                nd->tmask = m;
                changed = 1;
            }
        }
    } while (changed);
    /* required names that are all properties of their node: bits instead of
     * a search among the keys */
    for (i = 0; i < s->n_nodes; i++) {
        tg_snode *nd = &s->nodes[i];
        tg_sins *req = NULL, *props = NULL;
        const tg_sprop *found[64];
        uint32_t k, r;
        for (k = 0; k < nd->count; k++) {
            tg_sins *in = &s->ins[nd->start + k];
            if (in->op == TG_OP_REQUIRED) req = in;
            if (in->op == TG_OP_PROPS) props = in;
        }
        if (!req || !props || req->u.req.n > 64) continue;
        for (r = 0; r < req->u.req.n; r++)
            if (!(found[r] = tg_sfind_prop(props->u.props, req->u.req.names[r].s, req->u.req.names[r].len))) break;
        if (r < req->u.req.n) continue;
        for (r = 0; r < req->u.req.n; r++) ((tg_sprop *)found[r])->req_bits |= (uint64_t)1 << r;
        req->u.req.props = props->u.props;
    }
    for (i = 0; i < s->n_ins; i++) {
        const tg_sins *in = &s->ins[i];
        switch ((tg_sop)in->op) {
        case TG_OP_FALSE: case TG_OP_TYPE: case TG_OP_CONST: case TG_OP_ENUM:
        case TG_OP_MAXIMUM: case TG_OP_EXCL_MAXIMUM: case TG_OP_MINIMUM: case TG_OP_EXCL_MINIMUM:
        case TG_OP_MAX_LENGTH: case TG_OP_MIN_LENGTH: case TG_OP_PATTERN:
        case TG_OP_MAX_ITEMS: case TG_OP_MIN_ITEMS: case TG_OP_MAX_PROPS: case TG_OP_MIN_PROPS:
        case TG_OP_REQUIRED: case TG_OP_ALL_OF: case TG_OP_REF:
        case TG_OP_ANY_OF: case TG_OP_ONE_OF:
            break;
        case TG_OP_PROPS:
            mark_plain((tg_sprops *)in->u.props);
            break;
        case TG_OP_FORMAT:
            if (tg_sformat_is_regex(in->u.format)) return 0;
            break;
        case TG_OP_ITEMS_FROM:
            if (in->u.items.from) return 0;
            break;
        default:
            return 0;
        }
    }
    return 1;
}

/* Adds node (and what its $ref / allOf bring along) to set. -1: too many. */
static int add_slow(st *t, sset *set, uint32_t node, unsigned hops);

/* add, with the common case inline: a plain node into an empty set */
static TG_INLINE int add(st *t, sset *set, uint32_t node, unsigned hops) {
    const tg_snode *nd = &t->s->nodes[node];
    if (set->n == 0 && !nd->links && nd->count) {
        set->node[0] = node;
        set->n = 1;
        set->kinds = nd->kinds;
        if (hops > set->hops) set->hops = hops;
        set->unions |= nd->unions;
        return 0;
    }
    return add_slow(t, set, node, hops);
}

static int add_slow(st *t, sset *set, uint32_t node, unsigned hops) {
    const tg_snode *nd = &t->s->nodes[node];
    const tg_sins *in, *end;
    unsigned i;
    if (nd->count == 0) return 0; /* true, or a schema of annotations only */
    for (i = 0; i < set->n; i++)
        if (set->node[i] == node) return 0;
    if (set->n == SET_MAX || hops > 8) return -1;
    set->node[set->n++] = node;
    set->kinds |= nd->kinds;
    if (hops > set->hops) set->hops = hops;
    set->unions |= nd->unions;
    if (!nd->links) return 0;
    for (in = t->s->ins + nd->start, end = in + nd->count; in < end; in++) {
        if (in->op == TG_OP_REF) {
            set->refs = 1;
            if (add(t, set, in->u.node, hops + 1)) return -1;
        } else if (in->op == TG_OP_ALL_OF) {
            uint32_t k;
            for (k = 0; k < in->u.list.n; k++)
                if (add(t, set, in->u.list.nodes[k], hops + 1)) return -1;
        }
    }
    return 0;
}

static inline void skip_ws(st *t) {
    /* most JSON a model writes has no whitespace between tokens: one test */
    if (t->pos < t->len && t->p[t->pos] > ' ') return;
    while (t->pos < t->len) {
        unsigned char c = t->p[t->pos];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
        t->pos++;
    }
}

#define NOT_THERE ((size_t)-1)

/* The position of byte c at pos or after the whitespace from there (t->pos
 * then left there), or NOT_THERE (for a caller that keeps the position
 * in a local). */
static inline size_t at_next(st *t, size_t pos, unsigned char c) {
    if (pos < t->len && t->p[pos] == c) return pos;
    t->pos = pos;
    skip_ws(t);
    pos = t->pos;
    return pos < t->len && t->p[pos] == c ? pos : NOT_THERE;
}

/* Skips whitespace; 1 when byte c comes next (left for the caller). */
static inline int next_is(st *t, unsigned char c) { return at_next(t, t->pos, c) != NOT_THERE; }

/* The depth bounds for the members of a container at depth (edepth),
 * worked out once a container: a member whose set came through `hops`
 * $ref / allOf links is within them when hops is below the result (0:
 * no member is). */
static inline size_t hops_room(const st *t, size_t depth, size_t edepth) {
    if (depth + 1 >= t->depth_max || edepth + 1 >= t->eval_max) return 0;
    return t->eval_max - edepth - 1;
}

/* 1 match, 0 no match, -1 the search could not run (then: undecided). */
static int re_ok(st *t, uint32_t idx, const char *s, size_t len) {
    const tg_regex *re = t->s->regexes[idx];
    if (!t->re_scratch && tg_regex_needs_scratch(re)) {
        t->re_scratch = tg_arena_alloc(t->scratch, t->s->regex_scratch);
        if (!t->re_scratch) return -1;
    }
    /* its work counts against the step budget (then: undecided, and the
     * evaluator, on a budget of its own, ends it as a bounded error) */
    uint64_t budget = t->steps < t->max_steps ? t->max_steps - t->steps : 0;
    uint64_t left = budget;
    int r = tg_regex_search_bounded(re, s, len, t->re_scratch, &left);
    t->steps += (size_t)(budget - left);
    return r;
}

/* Iterates `in` over the instructions of every node of set (a `return`
 * inside leaves the function; a `break` leaves only a switch). */
#define EACH_INS(t, set, in)                                                                    \
    for (unsigned in##_n = 0; in##_n < (set)->n; in##_n++)                                       \
        for (const tg_sins *in = (t)->s->ins + (t)->s->nodes[(set)->node[in##_n]].start,         \
                           *in##_end = in + (t)->s->nodes[(set)->node[in##_n]].count;            \
             in < in##_end; in++)

/* 1 when the evaluator runs set's keywords in the order one pass meets
 * them: no union, and at most one node with keywords besides $ref / allOf;
 * and none came in through a $ref (the evaluator tells the keyword location
 * of an error beneath one along the evaluation path, through the $ref). */
static TG_INLINE int simple(const st *t, const sset *set) {
    unsigned i, real = 0;
    if (set->unions || set->picked || set->refs) return 0;
    if (set->n <= 1) return 1; /* (one node: its keywords run in order whatever they are) */
    for (i = 0; i < set->n; i++) {
        const tg_snode *nd = &t->s->nodes[set->node[i]];
        const tg_sins *in = t->s->ins + nd->start, *end = in + nd->count;
        for (; in < end; in++)
            if (in->op != TG_OP_REF && in->op != TG_OP_ALL_OF) { real++; break; }
    }
    return real <= 1;
}

/* The instance's part of a coded error (TG_SDYN_VALUE): what describe()
 * in schema_report.c would write for the value at start..t->pos (kind 0)
 * or a container, when a host can write the same from the text: a string
 * with no escapes (its bytes are what describe quotes), an integer of
 * digits alone (its lexeme), a literal, a container. 0 otherwise. */
static int code_value(const st *t, int kind, size_t start, uint32_t *w) {
    size_t i, end = t->pos;
    const unsigned char *p = t->p;
    w[TG_SCODE_VSTART] = w[TG_SCODE_VEND] = 0;
    if (kind) {
        w[TG_SCODE_VKIND] = kind == cJSON_Array ? TG_SVAL_ARRAY : TG_SVAL_OBJECT;
        return 1;
    }
    if (end <= start) return 0;
    switch (p[start]) {
    case 'n': w[TG_SCODE_VKIND] = TG_SVAL_NULL; return 1;
    case 't': w[TG_SCODE_VKIND] = TG_SVAL_TRUE; return 1;
    case 'f': w[TG_SCODE_VKIND] = TG_SVAL_FALSE; return 1;
    case '"':
        if (end - start < 2 || t->escaped) return 0;
        w[TG_SCODE_VKIND] = TG_SVAL_STRING;
        w[TG_SCODE_VSTART] = (uint32_t)(start + 1);
        w[TG_SCODE_VEND] = (uint32_t)(end - 1);
        return 1;
    default:
        /* (up to 40 digits: describe's cut, and a value whose double is integral) */
        i = start + (p[start] == '-');
        if (i == end || end - start > 40) return 0;
        for (; i < end; i++) if (p[i] < '0' || p[i] > '9') return 0;
        w[TG_SCODE_VKIND] = TG_SVAL_INTEGER;
        w[TG_SCODE_VSTART] = (uint32_t)start;
        w[TG_SCODE_VEND] = (uint32_t)end;
        return 1;
    }
}

/* 1 when a member name is its own JSON Pointer token (no '~' or '/'). */
static int plain_token(const char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) if (s[i] == '~' || s[i] == '/') return 0;
    return 1;
}

/* explain()'s error as a code (tg_schema_errors.codes): 1 written, 0 not
 * one a code can tell (rendered instead; so is one deeper than
 * CODE_DEPTH_MAX), -1 out of memory. */
#define CODE_DEPTH_MAX 32
static int code(st *t, const tg_sins *in, size_t a, int kind, const char *key, size_t klen,
                const tg_spath *path, size_t depth, size_t start) {
    size_t variant, i;
    uint32_t head[TG_SCODE_PATH + 2 * CODE_DEPTH_MAX]; /* the code, written in one append */
    int dyn = tg_sreport_dyn(in, key != NULL, a, &variant);
    if (dyn < 0 || depth > CODE_DEPTH_MAX || t->len > UINT32_MAX || a > UINT32_MAX || variant > UINT32_MAX) return 0;
    memset(head, 0, TG_SCODE_PATH * sizeof *head);
    head[TG_SCODE_SITE] = (uint32_t)(in - t->s->ins);
    head[TG_SCODE_VARIANT] = (uint32_t)variant;
    head[TG_SCODE_DYN] = (uint32_t)dyn;
    head[TG_SCODE_COUNT] = (uint32_t)a;
    if (dyn == TG_SDYN_VALUE && !code_value(t, kind, start, head)) return 0;
    if (key) {
        if (!plain_token(key, klen)) return 0;
        head[TG_SCODE_KSTART] = (uint32_t)((const unsigned char *)key - t->p);
        head[TG_SCODE_KLEN] = (uint32_t)klen;
    }
    head[TG_SCODE_DEPTH] = (uint32_t)depth;
    uint32_t *w = head + TG_SCODE_PATH;
    for (i = 0; i < depth; i++, w += 2) {
        /* (member names in the one pass are the text's own bytes: it leaves escaped ones to the evaluator) */
        if (path[i].key) {
            if (!plain_token(path[i].key, path[i].len)) return 0;
            w[0] = (uint32_t)((const unsigned char *)path[i].key - t->p);
            w[1] = (uint32_t)path[i].len;
        } else {
            if (path[i].idx >= UINT32_MAX) return 0;
            w[0] = TG_SCODE_INDEX;
            w[1] = (uint32_t)path[i].idx;
        }
    }
    tg_buf *c = t->x->to->codes;
    if (tg_buf_append(c, head, (size_t)(w - head) * sizeof *head)) { c->len = 0; return -1; }
    return 1;
}

/* Renders the error of `in` refusing a value whose set is `set` and whose
 * enclosing containers are `up` and above (kind: 0 the scalar at
 * start..t->pos, else the cJSON type of a container), or with key, of the
 * member `key` that additionalProperties refuses in a container (then
 * `set` and `up` are the container's). */
static TG_COLD void explain(st *t, const tg_sins *in, size_t a, int kind, const char *key, size_t klen,
                            const char *loc, const sset *set, const sframe *up, size_t start) {
    sexplain *x = t->x;
    cJSON fake, *inst = &fake;
    const sframe *f;
    size_t depth = 0, i;
    tg_spath near[8]; /* (most errors are a few levels deep: no allocation) */
    for (f = up; f; f = f->up) depth++;
    tg_spath *path = depth <= 8 ? near : tg_arena_alloc(t->scratch, depth * sizeof *path);
    i = depth;
    if (!path) { x->err = 2; return; }
    if (!x->started) { /* the first refusal: nothing is spent on a valid text */
        x->mark = x->to->out->len;
        x->json = x->to->lens == NULL;
        x->lens_mark = x->json ? 0 : x->to->lens->len;
        if (x->json && tg_buf_putc(x->to->out, '[')) { x->err = 2; return; }
        x->started = 1;
    }
    if (!simple(t, set)) { x->err = 2; return; }
    for (f = up; f && i; f = f->up) {
        if (!simple(t, f->set)) { x->err = 2; return; }
        path[--i] = f->at;
    }
    x->to->out->len = x->mark + (size_t)x->json; /* a container's error replaces its member's */
    x->to->out->failed = 0;
    if (x->to->lens) x->to->lens->len = x->lens_mark;
    x->err_depth = key ? depth + 1 : depth;
    if (x->to->codes) {
        tg_buf_reset(x->to->codes);
        int c = code(t, in, a, kind, key, klen, path, depth, start);
        if (c) { x->err = c < 0 ? 2 : 1; return; }
    }
    memset(&fake, 0, sizeof fake);
    fake.type = kind ? kind : cJSON_Object;
    if (!loc && !(loc = tg_sins_loc(in, t->scratch))) { x->err = 2; return; }
    if (!kind && !key) {
        tg_json_error je;
        inst = tg_json_parse(t->scratch, (const char *)t->p + start, t->pos - start, NULL, &je);
        if (!inst) { x->err = 2; return; }
    }
    if (!x->rep_ready) {
        x->alloc = tg_arena_allocator(t->scratch);
        tg_sreport_init(&x->rep, x->to, 0, &x->alloc);
        x->rep_ready = 1;
    }
    x->rep.n_errors = 0;
    x->err = tg_sreport_error(&x->rep, in, inst, a, 0, key, klen, loc, path, depth) ? 2 : 1;
}

/* A keyword refused the value at hand: the verdict is "invalid" once the
 * rest of the text proves to be strict JSON. */
static int refuse(st *t, const tg_sins *in, size_t a, const sset *set, size_t start) {
    if (t->x && !t->bad) explain(t, in, a, 0, NULL, 0, NULL, set, t->x->top, start);
    t->bad = 1;
    return 1;
}
/* (in a scalar's function: `set` its set, `at` where it starts) */
#define REFUSE(t) refuse((t), in, 0, set, at)

/* enum / const over a string (its unescaped bytes s[0..len)) or a
 * literal (type): 1 when one of the values equals it, 0 when none, -1 past
 * the steps (then the evaluator's, which tells that as it does: each probe
 * of an index past the first is a step, and each comparison of a long enum
 * scanned). Numbers and containers are left to the evaluator. */
static int scalar_in(st *t, const tg_sins *in, int type, const char *s, size_t len) {
    const cJSON *values = in->u.val.value, *it;
    const int is_list = in->op == TG_OP_ENUM;
    size_t k = 0;
    int found = 0;
    if (is_list && in->u.val.index) {
        found = type == cJSON_String ? tg_senum_has_str(in->u.val.index, s, len, &t->steps)
                                     : tg_senum_has_lit(in->u.val.index, type, &t->steps);
        return t->steps > t->max_steps ? -1 : found;
    }
    for (it = is_list ? values->child : values; it && !found; it = is_list ? it->next : NULL, k++) {
        if ((it->type & 0xFF) != type) continue;
        found = type != cJSON_String || (tg_json_strlen(it->valuestring) == len && tg_json_same_bytes(it->valuestring, s, len));
    }
    if (k > TG_SENUM_SCAN_MAX && (t->steps += k) > t->max_steps) return -1;
    return found;
}

/* The string value whose opening quote is at t->pos. */
static TG_INLINE int string_value(st *t, const sset *set) {
    tg_json_lexstr ls;
    const size_t at = t->pos, start = at + 1;
    if (tg_json_lex_string(t->p, t->len, start, &ls)) return 0;
    t->pos = ls.end + 1;
    t->escaped = ls.escapes;
    const char *s = (const char *)t->p + start;
    size_t len = ls.end - start, cps = (size_t)-1;
    if (ls.escapes) {
        char *d = tg_arena_alloc(t->scratch, len + 1);
        if (!d) return 0;
        len = tg_json_unescape(t->p + start, len, d);
        d[len] = '\0';
        s = d;
    }
    if (!(set->kinds & SK_STRING)) return 1;
    EACH_INS(t, set, in) {
        switch ((tg_sop)in->op) {
        case TG_OP_FALSE: return REFUSE(t);
        case TG_OP_TYPE: if (!(in->u.mask & TG_ST_STRING)) return REFUSE(t); break;
        case TG_OP_MAX_LENGTH: case TG_OP_MIN_LENGTH:
            if (cps == (size_t)-1) cps = ls.ascii ? len : tg_utf8_count((const unsigned char *)s, len);
            if (in->op == TG_OP_MAX_LENGTH ? cps > in->u.count : cps < in->u.count) return refuse(t, in, cps, set, at);
            break;
        case TG_OP_PATTERN: {
            int m = re_ok(t, in->u.re, s, len);
            if (m < 0) return 0;
            if (!m) return REFUSE(t);
            break;
        }
        case TG_OP_FORMAT: if (tg_sformat_check(in->u.format, s, len) == 0) return REFUSE(t); break;
        case TG_OP_ENUM: case TG_OP_CONST: {
            const int r = scalar_in(t, in, cJSON_String, s, len);
            if (r < 0) return 0;
            if (!r) return REFUSE(t);
            break;
        }
        default: break; /* keywords of other types */
        }
    }
    return 1;
}

/* A number lexeme of at most 15 digits and no exponent: two such that
 * round to one double are one decimal. */
static int short_lexeme(const char *lex) {
    size_t digits = 0;
    if (!lex) return 0;
    for (; *lex; lex++) {
        if (*lex == 'e' || *lex == 'E') return 0;
        if (*lex >= '0' && *lex <= '9' && ++digits > 15) return 0;
    }
    return 1;
}

static TG_INLINE int number_value(st *t, const sset *set) {
    tg_json_lexnum ln;
    const size_t at = t->pos;
    /* 1e3 and numbers of more than 15 digits: the evaluator judges their
     * lexemes exactly */
    if (tg_json_lex_number(t->p, t->len, t->pos, &ln) || !ln.exact) return 0;
    t->pos = ln.end;
    const double x = ln.value;
    if (!(set->kinds & SK_NUMBER)) return 1;
    EACH_INS(t, set, in) {
        /* a tie with a bound written with more than 15 digits or an
         * exponent may not be a tie of values: the evaluator's, exactly */
        if ((in->op == TG_OP_MAXIMUM || in->op == TG_OP_EXCL_MAXIMUM || in->op == TG_OP_MINIMUM ||
             in->op == TG_OP_EXCL_MINIMUM) && x == in->u.num.d && !short_lexeme(in->u.num.lex))
            return 0;
        switch ((tg_sop)in->op) {
        case TG_OP_FALSE: return REFUSE(t);
        case TG_OP_ENUM: case TG_OP_CONST: return 0; /* 1 == 1.0: the evaluator's */
        case TG_OP_TYPE:
            if (in->u.mask & TG_ST_NUMBER) break;
            if (!ln.has_frac && (in->u.mask & TG_ST_INTEGER)) break;
            if (ln.has_frac && (in->u.mask & TG_ST_INTEGER)) return 0; /* 1.0: an integer or not, by dialect */
            return REFUSE(t);
        case TG_OP_MAXIMUM: if (!(x <= in->u.num.d)) return REFUSE(t); break;
        case TG_OP_EXCL_MAXIMUM: if (!(x < in->u.num.d)) return REFUSE(t); break;
        case TG_OP_MINIMUM: if (!(x >= in->u.num.d)) return REFUSE(t); break;
        case TG_OP_EXCL_MINIMUM: if (!(x > in->u.num.d)) return REFUSE(t); break;
        default: break;
        }
    }
    return 1;
}

/* true, false, null */
static TG_INLINE int literal_value(st *t, const sset *set) {
    static const struct { const char *w; size_t n; int type; uint32_t bit; } L[] = {
        {"true", 4, cJSON_True, TG_ST_BOOLEAN}, {"false", 5, cJSON_False, TG_ST_BOOLEAN}, {"null", 4, cJSON_NULL, TG_ST_NULL}};
    const size_t at = t->pos;
    unsigned char c = t->p[at];
    int k = c == 't' ? 0 : c == 'f' ? 1 : 2;
    if (t->len - t->pos < L[k].n) return 0;
    for (size_t j = 1; j < L[k].n; j++) /* (the first byte chose k) */
        if (t->p[t->pos + j] != (unsigned char)L[k].w[j]) return 0;
    t->pos += L[k].n;
    if (!(set->kinds & (k == 2 ? SK_NULL : SK_BOOLEAN))) return 1;
    EACH_INS(t, set, in) {
        switch ((tg_sop)in->op) {
        case TG_OP_FALSE: return REFUSE(t);
        case TG_OP_TYPE: if (!(in->u.mask & L[k].bit)) return REFUSE(t); break;
        case TG_OP_ENUM: case TG_OP_CONST: {
            const int r = scalar_in(t, in, L[k].type, NULL, 0);
            if (r < 0) return 0;
            if (!r) return REFUSE(t);
            break;
        }
        default: break;
        }
    }
    return 1;
}

/* (value_at() and the scalar checks are inlined where a container reads its
 * members: no call for a scalar member, which callgrind counts as fewer
 * instructions with gcc and with clang; the root and union branches share
 * one out-of-line copy, typed_value_call) */
static TG_INLINE int value_at(st *t, const sset *set, size_t depth, size_t edepth);

/* The first keyword of set that refuses a container of `count` members
 * (type, counts, required), with *a what its error reports; NULL when none
 * does; UNDECIDED for enum / const (the evaluator compares containers). */
static const tg_sins UNDECIDED_INS;
#define UNDECIDED (&UNDECIDED_INS)

/* An object's properties instructions and, for each, the required bits of
 * the entries its keys matched (for the first, whatever happens; for the
 * others, while nothing was refused). */
typedef struct sreq {
    const tg_sprops *const *props;
    const uint64_t *seen;
    unsigned n;
} sreq;

/* 1 when rq tells required `in` (0: present; else *a the first missing);
 * 0 when the keys must be searched. */
static int required_by_bits(const sreq *rq, const tg_sins *in, size_t *a, int *missing) {
    unsigned j;
    if (!rq || !in->u.req.props) return 0;
    for (j = 0; j < rq->n; j++)
        if (rq->props[j] == in->u.req.props) {
            uint64_t all = in->u.req.n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << in->u.req.n) - 1;
            uint64_t miss = all & ~rq->seen[j];
            *missing = miss != 0;
            if (miss) *a = (size_t)__builtin_ctzll(miss);
            return 1;
        }
    return 0;
}

static const tg_sins *container_fails(const st *t, const sset *set, int obj, size_t count, size_t key0,
                                      const sreq *rq, const tg_sins *stop, size_t *a) {
    if (!(set->kinds & (obj ? SK_OBJECT : SK_ARRAY))) return NULL;
    EACH_INS(t, set, in) {
        switch ((tg_sop)in->op) {
        case TG_OP_FALSE: return in;
        case TG_OP_ENUM: case TG_OP_CONST: return UNDECIDED;
        case TG_OP_TYPE: if (!(in->u.mask & (obj ? TG_ST_OBJECT : TG_ST_ARRAY))) return in; break;
        case TG_OP_MAX_ITEMS: if (!obj && count > in->u.count) return *a = count, in; break;
        case TG_OP_MIN_ITEMS: if (!obj && count < in->u.count) return *a = count, in; break;
        case TG_OP_MAX_PROPS: if (obj && count > in->u.count) return *a = count, in; break;
        case TG_OP_MIN_PROPS: if (obj && count < in->u.count) return *a = count, in; break;
        case TG_OP_REQUIRED:
            if (obj && in < stop) {
                uint32_t r;
                int missing;
                if (required_by_bits(rq, in, a, &missing)) {
                    if (missing) return in;
                    break;
                }
                for (r = 0; r < in->u.req.n; r++) {
                    const tg_sname *nm = &in->u.req.names[r];
                    size_t k;
                    for (k = key0; k < t->nkeys; k++)
                        if (t->keys[k].len == nm->len && tg_json_same_bytes(t->keys[k].s, nm->s, nm->len)) break;
                    if (k == t->nkeys) return *a = r, in;
                }
            }
            break;
        default: break;
        }
    }
    return NULL;
}

/* Checks the keywords of set that look at a container as a whole once its
 * members are known. When a member's error was rendered and one of these
 * comes before the instruction that reached the member, the evaluator
 * would report this one first: it takes the member's place. */
static int container_done(st *t, const sset *set, int obj, size_t count, size_t key0, size_t depth,
                          const sframe *f, const sreq *rq) {
    size_t a = 0;
    const tg_sins *stop = t->s->ins + t->s->n_ins, *in;
    if (t->bad && !(set->kinds & SK_COMPARE)) {
        /* refused already: the verdict is made, but a keyword before f->via
         * replaces the member's error told (below), and enum / const leave
         * the container to the evaluator */
        if (!t->x || t->x->err != 1 || t->x->err_depth <= depth || !f->via) return 1;
        /* (err 1: every open container's set is simple(), one node's keywords
         * walked in order, so what lies past f->via is never told; no
         * required from there on is searched for) */
        stop = f->via;
    }
    in = container_fails(t, set, obj, count, key0, rq, stop, &a);
    if (in == UNDECIDED) return 0;
    if (!in) return 1;
    if (t->x && (!t->bad || (t->x->err == 1 && t->x->err_depth > depth && f->via && in < f->via)))
        explain(t, in, a, obj ? cJSON_Object : cJSON_Array, NULL, 0, NULL, f->set, f->up, 0);
    t->bad = 1;
    return 1;
}

/* Opens container frame f (explaining only). */
static inline void frame_open(st *t, sframe *f, const sset *vset, const tg_sins *via) {
    if (!t->x) return;
    f->up = t->x->top;
    f->set = vset;
    f->via = via;
    t->x->top = f;
}

/* After a member or item: 1 a comma (another follows), 0 the container's
 * close, -1 anything else. */
static inline int after_member(st *t, unsigned char close) {
    if (next_is(t, ',')) {
        t->pos++;
        return 1;
    }
    if (t->pos >= t->len || t->p[t->pos] != close) return -1;
    t->pos++;
    return 0;
}

/* The properties entry of P named k[0..kl), or NULL. */
static TG_COLD const tg_sprop *find_prop(const tg_sprops *P, const char *k, size_t kl) {
    return P->n_props ? tg_sfind_prop(P, k, kl) : NULL;
}

/* Entry `next` of P (the one after the entry the last key matched: models
 * write members in the schema's order) when the key whose opening quote is
 * at pos is its name: the name's bytes and a closing quote, read with a
 * compare. The lexer would read the same key there (a plain name has no
 * byte it stops at), and tg_sfind_prop would find this entry. NULL when
 * the key must be lexed and looked up. */
static inline const tg_sprop *expected_key(const st *t, size_t pos, const tg_sprops *P, uint32_t next) {
    const tg_sprop *p;
    size_t at = pos + 1;
    if (next >= 64 || !(P->plain >> next & 1)) return NULL; /* (a plain entry is one of P's) */
    p = &P->props[next];
    if (t->len - at <= p->name.len || t->p[at + p->name.len] != '"') return NULL;
    return tg_json_same_bytes(p->name.s, (const char *)t->p + at, p->name.len) ? p : NULL;
}

static int object_value(st *t, const sset *set, const sset *vset, size_t depth, size_t edepth) {
    size_t key0 = t->nkeys, count = 0;
    /* duplicate keys (the tree reader names them): a key the first
     * properties instruction names by its entry's bit in `named`, any other
     * by its tg_sname_bit in `seen` (most need no compare) */
    uint64_t named = 0, seen = 0;
    const tg_sprops *props[SET_MAX * 2];
    const tg_sins *props_in[SET_MAX * 2];
    uint64_t seen_req[SET_MAX * 2];
    uint32_t next = 0; /* props[0]'s entry after the last one a key matched */
    const size_t room = hops_room(t, depth, edepth);
    sreq rq;
    unsigned i, np = 0, nq;
    EACH_INS(t, set, in)
        if (in->op == TG_OP_PROPS) {
            if (np == SET_MAX * 2) return 0;
            props_in[np] = in;
            seen_req[np] = 0;
            props[np++] = in->u.props;
        }
    sframe f;
    frame_open(t, &f, vset, np ? props_in[0] : NULL);
    rq.props = props;
    rq.seen = seen_req;
    rq.n = np;
    t->pos++; /* '{' */
    if (next_is(t, '}')) {
        t->pos++;
        i = (unsigned)container_done(t, set, 1, 0, key0, depth, &f, &rq);
        if (t->x) t->x->top = f.up;
        return (int)i;
    }
    for (;;) {
        sset child;
        const tg_sprop *pr0 = NULL;
        uint64_t bit;
        size_t k, kl, pos = at_next(t, t->pos, '"');
        if (pos == NOT_THERE) return 0;
        const char *key = (const char *)t->p + pos + 1;
        if (np && (pr0 = expected_key(t, pos, props[0], next))) {
            kl = pr0->name.len;
            pos += kl + 2;
            next++;
        } else {
            tg_json_lexstr ls;
            if (tg_json_lex_string(t->p, t->len, pos + 1, &ls) || ls.escapes) return 0;
            kl = ls.end - pos - 1;
            pos = ls.end + 1;
            if (np && (pr0 = find_prop(props[0], key, kl))) next = (uint32_t)(pr0 - props[0]->props) + 1;
        }
        if (pr0 && next <= 64) {
            bit = (uint64_t)1 << (next - 1);
            if (named & bit) return 0;
            named |= bit;
        } else {
            bit = tg_sname_bit(key, kl);
            if (seen & bit) {
                for (k = key0; k < t->nkeys; k++)
                    if (t->keys[k].len == kl && tg_json_same_bytes(t->keys[k].s, key, kl)) return 0;
            }
            seen |= bit;
        }
        if (pr0) seen_req[0] |= pr0->req_bits;
        if (t->nkeys == KEYS_MAX) return 0;
        t->keys[t->nkeys].s = key;
        t->keys[t->nkeys].len = kl;
        t->nkeys++;
        count++;
        if ((pos = at_next(t, pos, ':')) == NOT_THERE) return 0;
        t->pos = pos + 1;
        /* the schemas the member's value answers to */
        set_empty(&child);
        if (t->x) {
            f.at.key = key;
            f.at.len = kl;
        }
        for (i = 0, nq = t->bad ? 0 : np; i < nq; i++) { /* (refused already: syntax only from here) */
            const tg_sprops *P = props[i];
            const tg_sprop *pr = i ? find_prop(P, key, kl) : pr0;
            int matched = 0;
            uint32_t j;
            if (pr) {
                matched = 1;
                if (i) seen_req[i] |= pr->req_bits;
                if (add(t, &child, pr->node, 0)) return 0;
            }
            if (P->n_patterns) {
                tg_spat_it pi;
                int known;
                tg_spat_begin(&pi, P, key, kl);
                if (P->exact) t->steps++; /* (the lookup among the exact patterns) */
                while ((j = tg_spat_next(&pi, &known)) != TG_SNONE) {
                    int m = known ? 1 : re_ok(t, P->patterns[j].re, key, kl);
                    if (m < 0) return 0;
                    if (!m) continue;
                    matched = 1;
                    if (add(t, &child, P->patterns[j].node, 0)) return 0;
                }
            }
            if (!matched && P->additional != TG_SNONE) {
                if (t->s->nodes[P->additional].is_false) {
                    if (t->x && !t->bad) {
                        const char *al = tg_sloc_additional(P, t->scratch);
                        if (al) explain(t, props_in[i], 0, 0, key, kl, al, f.set, f.up, 0);
                        else t->x->err = 2;
                    }
                    t->bad = 1;
                }
                else if (add(t, &child, P->additional, 0)) return 0;
            }
        }
        if (child.hops >= room || !value_at(t, &child, depth + 1, edepth + 1 + child.hops)) return 0;
        int more = after_member(t, '}');
        if (more < 0) return 0;
        if (!more) break;
    }
    if (t->bad) rq.n = rq.n ? 1 : 0; /* (the first's bits are kept whatever happens) */
    i = (unsigned)container_done(t, set, 1, count, key0, depth, &f, &rq);
    if (t->x) t->x->top = f.up;
    t->nkeys = key0;
    return (int)i;
}

static int array_value(st *t, const sset *set, const sset *vset, size_t depth, size_t edepth) {
    sset child;
    size_t count = 0;
    unsigned i;
    set_empty(&child);
    const tg_sins *via = NULL;
    sframe f;
    EACH_INS(t, set, in)
        if (in->op == TG_OP_ITEMS_FROM) {
            if (add(t, &child, in->u.items.node, 0)) return 0;
            via = in;
        }
    const size_t room = hops_room(t, depth, edepth);
    frame_open(t, &f, vset, via);
    t->pos++; /* '[' */
    if (next_is(t, ']')) {
        t->pos++;
        i = (unsigned)container_done(t, set, 0, 0, 0, depth, &f, NULL);
        if (t->x) t->x->top = f.up;
        return (int)i;
    }
    for (;;) {
        if (t->x) {
            f.at.key = NULL;
            f.at.idx = count;
        }
        if (child.hops >= room || !value_at(t, &child, depth + 1, edepth + 1 + child.hops)) return 0;
        count++;
        int more = after_member(t, ']');
        if (more < 0) return 0;
        if (!more) break;
    }
    i = (unsigned)container_done(t, set, 0, count, 0, depth, &f, NULL);
    if (t->x) t->x->top = f.up;
    return (int)i;
}

static const sset NO_SCHEMA = {{0}, 0, 0, 0, 0, 0, 0};

/* The JSON type a value starting with byte c has (TG_ST_*), 0 for none. */
static uint8_t type_at(unsigned char c) {
    if (c == '"') return TG_ST_STRING;
    if (c == '{') return TG_ST_OBJECT;
    if (c == '[') return TG_ST_ARRAY;
    if (c == '-' || (c >= '0' && c <= '9')) return TG_ST_NUMBER | TG_ST_INTEGER;
    if (c == 't' || c == 'f') return TG_ST_BOOLEAN;
    if (c == 'n') return TG_ST_NULL;
    return 0;
}

/* Resolves the anyOf / oneOf of set for a value of type `type` into *out
 * (see the top of the file). 1 done, 0 undecided. */
static int pick_branches(st *t, const sset *set, uint8_t type, sset *out) {
    unsigned i;
    *out = *set;
    out->unions = 0;
    out->picked = 1;
    for (i = 0; i < out->n; i++) { /* out grows as branches join: they are resolved too */
        const tg_snode *nd = &t->s->nodes[out->node[i]];
        const tg_sins *in, *end;
        if (!nd->unions) continue;
        for (in = t->s->ins + nd->start, end = in + nd->count; in < end; in++) {
            uint32_t k, pick = TG_SNONE, fits = 0;
            if (in->op != TG_OP_ANY_OF && in->op != TG_OP_ONE_OF) continue;
            for (k = 0; k < in->u.list.n; k++)
                if (t->s->nodes[in->u.list.nodes[k]].tmask & type) {
                    pick = in->u.list.nodes[k];
                    fits++;
                }
            if (fits == 0) { /* no branch takes this type */
                if (t->x && !t->bad) t->x->err = 2; /* the evaluator names the branches */
                t->bad = 1;
                continue;
            }
            if (fits > 1 || add(t, out, pick, 1)) return 0;
        }
    }
    return 1;
}

/* The value starting with byte c (at t->pos), checked against set (vset:
 * the set before union branches were picked). */
static TG_INLINE int typed_value(st *t, const sset *set, const sset *vset, unsigned char c, size_t depth,
                                 size_t edepth) {
    if (c == '"') return string_value(t, set);
    if (c == '{') return object_value(t, set, vset, depth, edepth);
    if (c == '[') return array_value(t, set, vset, depth, edepth);
    if (c == '-' || (c >= '0' && c <= '9')) return number_value(t, set);
    if (c == 't' || c == 'f' || c == 'n') return literal_value(t, set);
    return 0;
}

/* typed_value out of line: where no container's member loop is hot. */
static TG_NOINLINE int typed_value_call(st *t, const sset *set, const sset *vset, unsigned char c, size_t depth,
                                        size_t edepth) {
    return typed_value(t, set, vset, c, depth, edepth);
}

/* typed_value for a set with anyOf / oneOf: its branches picked first. */
static TG_NOINLINE int union_value(st *t, const sset *set, unsigned char c, size_t depth, size_t edepth) {
    sset picked;
    if (!pick_branches(t, set, type_at(c), &picked)) return 0;
    return typed_value_call(t, t->bad ? &NO_SCHEMA : &picked, set, c, depth, edepth + picked.hops);
}

/* A value whose depth and edepth are known to be within the bounds
 * (hops_room). */
static TG_INLINE int value_at(st *t, const sset *set, size_t depth, size_t edepth) {
    size_t pos;
    if (t->bad) set = &NO_SCHEMA;
    if ((t->steps += set->n + 1) > t->max_steps) return 0;
    pos = t->pos;
    if (pos >= t->len || t->p[pos] <= ' ') { /* (whitespace: rare in what a model writes) */
        skip_ws(t);
        if ((pos = t->pos) >= t->len) return 0;
    }
    if (set->unions) return union_value(t, set, t->p[pos], depth, edepth);
    return typed_value(t, set, set, t->p[pos], depth, edepth);
}

/* The root value. */
static int root_value(st *t, const sset *set, size_t edepth) {
    size_t pos;
    if (t->depth_max == 0 || edepth >= t->eval_max) return 0;
    if ((t->steps += set->n + 1) > t->max_steps) return 0;
    skip_ws(t);
    if ((pos = t->pos) >= t->len) return 0;
    if (set->unions) return union_value(t, set, t->p[pos], 0, edepth);
    return typed_value_call(t, set, set, t->p[pos], 0, edepth);
}

int tg_schema_check_text(const tg_schema *s, const char *text, size_t len, const tg_json_limits *limits,
                         tg_arena *scratch, const tg_schema_errors *first_error) {
    st *t;
    sset root;
    int r;
    if (!s || !s->stream || !scratch || (limits && (limits->allow_duplicate_keys ||
                                                    (limits->max_bytes && len > limits->max_bytes))))
        return -1;
    t = tg_arena_alloc(scratch, sizeof *t);
    if (!t) return -1;
    t->s = s;
    t->p = (const unsigned char *)text;
    t->len = len;
    t->pos = 0;
    t->scratch = scratch;
    t->re_scratch = NULL;
    t->steps = 0;
    t->max_steps = s->limits.max_eval_steps;
    t->depth_max = limits ? limits->max_depth : 256;
    if (t->depth_max > DEPTH_MAX + 1) t->depth_max = DEPTH_MAX + 1;
    t->eval_max = s->limits.max_depth * 2;
    t->nkeys = 0;
    t->bad = 0;
    t->x = NULL;
    if (first_error) {
        t->x = &t->xs;
        t->xs.to = first_error;
        t->xs.started = 0;
        t->xs.rep_ready = 0;
        t->xs.err = 0;
        t->xs.top = NULL;
    }
    set_empty(&root);
    r = add(t, &root, s->root, 0) == 0 && root_value(t, &root, root.hops);
    if (r) {
        skip_ws(t);
        r = t->pos == len;
    }
    r = !r ? -1 : t->bad ? 0 : 1;
    if (t->x && t->x->started) { /* the error stays when it is the verdict's and the evaluator's first */
        tg_buf *out = first_error->out, *lens = first_error->lens;
        if (r == 0 && t->x->err == 1 && t->x->json) tg_buf_putc(out, ']');
        if (r != 0 || t->x->err != 1 || out->failed || (lens && lens->failed)) {
            out->len = t->x->mark;
            out->failed = 0;
            if (lens) {
                lens->len = t->x->lens_mark;
                lens->failed = 0;
            }
            if (first_error->codes) tg_buf_reset(first_error->codes);
        }
        if (t->x->rep_ready) tg_sreport_free(&t->x->rep);
    }
    return r;
}

int tg_schema_site_words(const tg_schema *s, uint32_t site, uint32_t variant, tg_arena *scratch,
                         const tg_schema_errors *to) {
    size_t v;
    if (!s || !to || !to->lens || site >= s->n_ins) return -1;
    const tg_sins *in = s->ins + site;
    int dyn = tg_sreport_dyn(in, in->op == TG_OP_PROPS || in->op == TG_OP_UNEVAL_PROPS, variant, &v);
    if (dyn < 0 || v != variant || in->op == TG_OP_UNEVAL_PROPS) return -1; /* (the one pass codes no other) */
    const char *loc = in->op == TG_OP_PROPS ? tg_sloc_additional(in->u.props, scratch) : tg_sins_loc(in, scratch);
    if (!loc) return -2;
    tg_allocator alloc = tg_arena_allocator(scratch);
    tg_sreport r;
    tg_sreport_init(&r, to, 0, &alloc);
    int rc = tg_sreport_site(&r, in, v, loc);
    tg_sreport_free(&r);
    return rc ? -2 : 0;
}
