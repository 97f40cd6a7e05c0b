/* regex_compile.c - AST -> Thompson NFA program, plus the analyses the
 * searcher uses (literal and ^X{n,m}$ fast paths, first-byte filter, ASCII
 * classes for the lazy DFA) and the public compile entry point.
 *
 * The AST is sized exactly with saturating arithmetic before anything is
 * emitted, so {n,m} expansion is checked against limits->max_states and a
 * hostile pattern cannot make the compiler allocate more than the limit. */
#include <string.h>

#include "regex_ast.h"

/* ---- sizing and emission --------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a || a + b > ((uint64_t)1 << 40) ? ((uint64_t)1 << 40) : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) {
    if (a && b > (((uint64_t)1 << 40) / a)) return (uint64_t)1 << 40;
    return a * b;
}

static uint64_t size_node(rx_parser *p, int32_t i) {
    rx_node *n = &p->nodes[i];
    uint64_t s = 0, k = 0, body;
    int32_t c;
    switch (n->type) {
    case N_EMPTY: s = 0; break;
    case N_CAT:
        for (c = n->child; c >= 0; c = p->nodes[c].next) s = sat_add(s, size_node(p, c));
        break;
    case N_ALT:
        for (c = n->child; c >= 0; c = p->nodes[c].next, k++) s = sat_add(s, size_node(p, c));
        s = sat_add(s, 2 * (k - 1));
        break;
    case N_REP:
        body = size_node(p, n->child);
        n = &p->nodes[i];
        if (n->max == RX_INF)
            s = n->min == 0 ? sat_add(body, 2) : sat_add(sat_mul(body, n->min), 1);
        else
            s = sat_add(sat_mul(body, n->min), sat_mul(sat_add(body, 1), n->max - n->min));
        break;
    default: s = 1; break;
    }
    p->nodes[i].size = s;
    return s;
}

typedef struct rx_emit {
    rx_parser *p;
    rx_inst *prog;
    uint32_t n;
} rx_emit;

static uint32_t emit(rx_emit *e, uint32_t op, uint32_t a, uint32_t b) {
    e->prog[e->n].op = op;
    e->prog[e->n].a = a;
    e->prog[e->n].b = b;
    return e->n++;
}

static void emit_node(rx_emit *e, int32_t i) {
    const rx_node *n = &e->p->nodes[i];
    int32_t c;
    uint32_t k, split, jmp;
    switch (n->type) {
    case N_EMPTY: break;
    case N_CHAR: emit(e, RX_CHAR, n->a, 0); break;
    case N_CLASS: emit(e, RX_CLASS, n->a, 0); break;
    case N_ANY: emit(e, RX_ANY, 0, 0); break;
    case N_BOL: emit(e, RX_BOL, 0, 0); break;
    case N_EOL: emit(e, RX_EOL, 0, 0); break;
    case N_WORDB: emit(e, RX_WORDB, 0, 0); break;
    case N_NWORDB: emit(e, RX_NWORDB, 0, 0); break;
    case N_CAT:
        for (c = n->child; c >= 0; c = e->p->nodes[c].next) emit_node(e, c);
        break;
    case N_ALT: {
        /* SPLIT L1,next; L1: e1; JMP end; next: SPLIT L2,next2; ... ek
         * The JMPs are chained and patched to the end afterwards. */
        uint32_t pending = UINT32_MAX; /* linked list of JMPs through .a */
        for (c = n->child; c >= 0; c = e->p->nodes[c].next) {
            if (e->p->nodes[c].next >= 0) {
                split = emit(e, RX_SPLIT, e->n + 1, 0);
                emit_node(e, c);
                jmp = emit(e, RX_JMP, pending, 0);
                pending = jmp;
                e->prog[split].b = e->n;
            } else {
                emit_node(e, c);
            }
        }
        while (pending != UINT32_MAX) {
            uint32_t nx = e->prog[pending].a;
            e->prog[pending].a = e->n;
            pending = nx;
        }
        break;
    }
    case N_REP: {
        uint32_t min = n->min, max = n->max, start;
        int32_t body = n->child;
        if (max == RX_INF) {
            if (min == 0) {
                split = emit(e, RX_SPLIT, e->n + 1, 0);
                emit_node(e, body);
                emit(e, RX_JMP, split, 0);
                e->prog[split].b = e->n;
            } else {
                for (k = 0; k + 1 < min; k++) emit_node(e, body);
                start = e->n;
                emit_node(e, body);
                emit(e, RX_SPLIT, start, e->n + 1);
            }
        } else {
            uint32_t first_split = e->n, s;
            for (k = 0; k < min; k++) emit_node(e, body);
            first_split = e->n;
            /* (max-min) optional copies; each SPLIT's b is patched to the end */
            for (k = min; k < max; k++) {
                emit(e, RX_SPLIT, e->n + 1, 0);
                emit_node(e, body);
            }
            for (s = first_split; s < e->n;) {
                e->prog[s].b = e->n;
                s += 1 + (uint32_t)e->p->nodes[body].size;
            }
        }
        break;
    }
    default: break;
    }
}

/* ---- fast-path analysis ---------------------------------------------- */

static size_t utf8_put(uint32_t cp, unsigned char *o) {
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static unsigned lead_byte(uint32_t cp) {
    if (cp < 0x80) return cp;
    if (cp < 0x800) return 0xC0 | (cp >> 6);
    if (cp < 0x10000) return 0xE0 | (cp >> 12);
    return 0xF0 | (cp >> 18);
}

/* Literal fast paths: the whole pattern is [^] literal [$] with no U+FFFD
 * (which the VM also matches against invalid bytes). */
static int analyze_literal(rx_parser *p, int32_t root, tg_regex *re) {
    int32_t c, first;
    const rx_node *n = &p->nodes[root];
    int bol = 0, eol = 0;
    size_t cnt = 0, nbytes = 0;
    unsigned char *lit;
    first = n->type == N_CAT ? n->child : root; /* root's next is -1 */
    for (c = first; c >= 0; c = p->nodes[c].next, cnt++) {
        uint32_t t = p->nodes[c].type;
        if (t == N_BOL && c == first) bol = 1;
        else if (t == N_EOL && p->nodes[c].next < 0) eol = 1;
        else if (t == N_CHAR && p->nodes[c].a != 0xFFFD && !(p->nodes[c].a >= 0xD800 && p->nodes[c].a <= 0xDFFF)) nbytes += 4;
        else if (t == N_EMPTY && cnt == 0 && p->nodes[c].next < 0) {}
        else return 0;
    }
    lit = tg_malloc(p->al, nbytes);
    if (!lit) return rx_nomem(p, 0);
    re->lit = lit;
    re->litcap = nbytes ? nbytes : 1;
    nbytes = 0;
    for (c = first; c >= 0; c = p->nodes[c].next)
        if (p->nodes[c].type == N_CHAR) nbytes += utf8_put(p->nodes[c].a, lit + nbytes);
    re->nlit = nbytes;
    re->fast = bol && eol ? RX_FAST_EXACT : bol ? RX_FAST_PREFIX : eol ? RX_FAST_SUFFIX : RX_FAST_LITERAL;
    return 0;
}

static void mark_lead_bytes(tg_regex *re, uint32_t lo, uint32_t hi, int *ok) {
    unsigned b;
    if (lo <= 0xFFFD && hi >= 0xFFFD) *ok = 0;
    for (b = lead_byte(lo); b <= lead_byte(hi); b++) re->firstbyte[b >> 3] |= (uint8_t)(1u << (b & 7));
}

/* ^X$, ^X*$, ^X+$, ^X?$, ^X{n,m}$ with X one code point test: a single
 * scan, no NFA. */
static void analyze_run(rx_parser *p, int32_t root, tg_regex *re) {
    const rx_node *n = &p->nodes[root], *a, *b, *c;
    uint32_t min = 1, max = 1;
    if (re->fast != RX_FAST_NONE || n->type != N_CAT) return;
    a = &p->nodes[n->child];
    if (a->type != N_BOL || a->next < 0) return;
    b = &p->nodes[a->next];
    if (b->next < 0) return;
    c = &p->nodes[b->next];
    if (c->type != N_EOL || c->next >= 0) return;
    if (b->type == N_REP) {
        min = b->min;
        max = b->max;
        b = &p->nodes[b->child];
    }
    if (b->type == N_CHAR) re->run.op = RX_CHAR;
    else if (b->type == N_CLASS) re->run.op = RX_CLASS;
    else if (b->type == N_ANY) re->run.op = RX_ANY;
    else return;
    re->run.a = b->a;
    re->run_min = min;
    re->run_max = max;
    re->fast = RX_FAST_RUN;
}

/* The set of bytes a match can start with, from the start state's closure;
 * left unused when the closure holds assertions, MATCH, '.', or U+FFFD. */
static int analyze_firstbyte(rx_parser *p, tg_regex *re) {
    uint32_t *stack, sp = 0, i, pc;
    uint8_t *seen;
    int ok = 1;
    stack = tg_malloc(p->al, (size_t)re->nprog * sizeof(uint32_t));
    seen = tg_malloc(p->al, re->nprog);
    if (!stack || !seen) {
        tg_free(p->al, stack, (size_t)re->nprog * sizeof(uint32_t));
        tg_free(p->al, seen, re->nprog);
        return rx_nomem(p, 0);
    }
    memset(seen, 0, re->nprog);
    memset(re->firstbyte, 0, sizeof re->firstbyte);
    stack[sp++] = re->start;
    seen[re->start] = 1;
    while (sp && ok) {
        const rx_inst *in = &re->prog[stack[--sp]];
        switch (in->op) {
        case RX_SPLIT:
            if (!seen[in->b]) { seen[in->b] = 1; stack[sp++] = in->b; }
            /* fall through */
        case RX_JMP:
            if (!seen[in->a]) { seen[in->a] = 1; stack[sp++] = in->a; }
            break;
        case RX_CHAR:
            if (in->a == 0xFFFD) ok = 0;
            pc = lead_byte(in->a);
            re->firstbyte[pc >> 3] |= (uint8_t)(1u << (pc & 7));
            break;
        case RX_CLASS: {
            const rx_class *cl = &re->classes[in->a];
            uint32_t prev = 0;
            for (i = 0; i < cl->count; i++) {
                uint32_t lo = cl->ranges[2 * i], hi = cl->ranges[2 * i + 1];
                if (!cl->negate) mark_lead_bytes(re, lo, hi, &ok);
                else if (lo > prev) mark_lead_bytes(re, prev, lo - 1, &ok);
                prev = hi + 1;
            }
            if (cl->negate && prev <= 0x10FFFF) mark_lead_bytes(re, prev, 0x10FFFF, &ok);
            break;
        }
        default: ok = 0; break; /* assertions, '.', MATCH */
        }
    }
    re->use_firstbyte = ok;
    tg_free(p->al, stack, (size_t)re->nprog * sizeof(uint32_t));
    tg_free(p->al, seen, re->nprog);
    return 0;
}

/* Partitions U+0000..U+007F into classes no instruction (and no \b) can
 * tell apart, so the lazy DFA needs one transition per class. */
static void ascii_classes(tg_regex *re) {
    uint8_t *cls = re->ascii_class, nc[128];
    int16_t map[256];
    uint32_t n = 1, i, cp, pc;
    memset(cls, 0, 128);
    for (pc = 0; pc <= re->nprog; pc++) {
        const rx_inst *in = pc < re->nprog ? &re->prog[pc] : NULL;
        uint32_t m = 0;
        if (in && in->op != RX_CHAR && in->op != RX_CLASS && in->op != RX_ANY) continue;
        for (i = 0; i < 256; i++) map[i] = -1;
        for (cp = 0; cp < 128; cp++) {
            int bit;
            if (!in) bit = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
            else if (in->op == RX_CHAR) bit = cp == in->a;
            else if (in->op == RX_ANY) bit = cp != '\n' && cp != '\r';
            else bit = (re->classes[in->a].ascii[cp >> 3] >> (cp & 7)) & 1;
            i = (uint32_t)cls[cp] * 2 + (uint32_t)bit;
            if (map[i] < 0) map[i] = (int16_t)m++;
            nc[cp] = (uint8_t)map[i];
        }
        memcpy(cls, nc, 128);
        n = m;
    }
    re->nascii_classes = n;
}

/* ---- public ----------------------------------------------------------- */

tg_regex_limits tg_regex_default_limits(void) {
    tg_regex_limits l;
    l.max_pattern_bytes = 4096;
    l.max_states = 10000;
    l.max_ranges = 32768;
    return l;
}
static void class_bitmap(rx_class *c) {
    uint32_t cp, i;
    memset(c->ascii, 0, sizeof c->ascii);
    for (cp = 0; cp < 128; cp++) {
        int in = 0;
        for (i = 0; i < c->count && c->ranges[2 * i] <= cp; i++)
            if (cp <= c->ranges[2 * i + 1]) { in = 1; break; }
        if (in != (int)c->negate) c->ascii[cp >> 3] |= (uint8_t)(1u << (cp & 7));
    }
}

/* A parser over pattern, err cleared; -1 (err set) for bad arguments or a
 * pattern over the byte limit. */
static int parser_start(rx_parser *p, const tg_allocator *alloc, const char *pattern, size_t len,
                        const tg_regex_limits *lim, tg_regex_error *err) {
    if (err) { err->offset = 0; err->message[0] = 0; err->nomem = 0; err->limit = 0; }
    memset(p, 0, sizeof *p);
    p->al = alloc;
    p->s = (const unsigned char *)pattern;
    p->len = len;
    p->err = err;
    if (!alloc || (!pattern && len)) return rx_fail(p, 0, "invalid arguments");
    /* 0 (a limits struct from before the field): the default; never past the hard cap */
    p->max_pool = 2 * (lim->max_ranges ? lim->max_ranges : tg_regex_default_limits().max_ranges);
    if (p->max_pool > RX_MAX_POOL) p->max_pool = RX_MAX_POOL;
    if (len > lim->max_pattern_bytes)
        return rx_over(p), rx_fail(p, lim->max_pattern_bytes, "pattern is %zu bytes, over the limit of %zu", len, lim->max_pattern_bytes);
    return 0;
}

int tg_regex_compile(const tg_allocator *alloc, const char *pattern, size_t len,
                     const tg_regex_limits *limits, tg_regex **out, tg_regex_error *err) {
    rx_parser p;
    tg_regex_limits lim = limits ? *limits : tg_regex_default_limits();
    tg_regex *re = NULL;
    int32_t root;
    uint64_t size;
    uint32_t i;
    rx_emit e;

    if (out) *out = NULL;
    if (parser_start(&p, alloc, pattern, len, &lim, err) || !out) return out ? -1 : rx_fail(&p, 0, "invalid arguments");

    root = rx_parse(&p);
    if (root < 0) goto bad;
    size = size_node(&p, root) + 1; /* + MATCH */
    if (size > lim.max_states || size > RX_COUNT_CAP * 16u) {
        rx_over(&p);
        rx_fail(&p, 0, "pattern needs %llu NFA states, over the limit of %zu (reduce {n,m} counts)",
             (unsigned long long)size, lim.max_states);
        goto bad;
    }

    re = tg_malloc(alloc, sizeof *re);
    if (!re) { rx_nomem(&p, 0); goto bad; }
    memset(re, 0, sizeof *re);
    re->alloc = *alloc;
    re->nprog = (uint32_t)size;
    re->prog = tg_malloc(alloc, (size_t)size * sizeof(rx_inst));
    re->nclasses = p.ncls;
    re->classes = tg_malloc(alloc, (size_t)p.ncls * sizeof(rx_class)); /* freed with the same size */
    if (!re->prog || !re->classes) { rx_nomem(&p, 0); goto bad; }
    if (p.npool) {
        /* shrink-to-fit ownership transfer of the range pool */
        re->pool = tg_malloc(alloc, p.npool * sizeof(uint32_t));
        if (!re->pool) { rx_nomem(&p, 0); goto bad; }
        memcpy(re->pool, p.pool, p.npool * sizeof(uint32_t));
        re->npool = p.npool;
    }
    for (i = 0; i < p.ncls; i++) {
        rx_class *c = &re->classes[i];
        static const uint32_t none[2] = {0, 0};
        c->ranges = p.cls[i].ext ? p.cls[i].ext : p.cls[i].count ? re->pool + p.cls[i].off : none;
        c->count = p.cls[i].count;
        c->negate = p.cls[i].negate;
        class_bitmap(c);
    }
    e.p = &p;
    e.prog = re->prog;
    e.n = 0;
    emit_node(&e, root);
    emit(&e, RX_MATCH, 0, 0);
    re->start = 0;
    {
        const rx_node *r = &p.nodes[root];
        re->anchored = r->type == N_BOL || (r->type == N_CAT && p.nodes[r->child].type == N_BOL);
    }
    if (analyze_literal(&p, root, re) || analyze_firstbyte(&p, re)) goto bad;
    analyze_run(&p, root, re);
    ascii_classes(re);
    rx_parser_release(&p);
    *out = re;
    return 0;
bad:
    rx_parser_release(&p);
    tg_regex_free(re);
    return -1;
}

int tg_regex_syntax_ok(const tg_allocator *alloc, const char *pattern, size_t len, const tg_regex_limits *limits,
                       tg_regex_error *err) {
    rx_parser p;
    tg_regex_limits lim = limits ? *limits : tg_regex_default_limits();
    if (parser_start(&p, alloc, pattern, len, &lim, err)) return -1;
    p.syntax_only = 1;
    int32_t root = rx_parse(&p);
    rx_parser_release(&p);
    return root < 0 ? -1 : 0;
}
