/* regex_dfa.c - lazy DFA over the Pike VM's NFA, built per search in the
 * caller's scratch.
 *
 * A DFA state is the sorted set of NFA instructions reached after a code
 * point, before their epsilon closure, plus two flags (at subject start,
 * previous code point is \w). Closures are taken when the next code point is
 * known, so ^, \b and \B resolve exactly as in the Pike VM. Transitions are
 * cached for ASCII (one per ASCII class the program can tell apart);
 * non-ASCII code points step without caching. Each new state costs one Pike
 * step, so the worst case stays O(program_size * subject_length); a full
 * cache is flushed, and when misses dominate the search continues in the
 * Pike VM from the current state. */
#include <stdlib.h>
#include <string.h>

#include "regex_vm.h"

#define T_MATCH 0xFFFFFFFDu
#define T_DEAD 0xFFFFFFFEu
#define T_UNKNOWN 0xFFFFFFFFu

#define F_AT_START 1u
#define F_PREV_WORD 2u
#define F_RESTART 4u /* the set is just {start}: only a match start can leave it */

typedef struct rx_dfa {
    const tg_regex *re;
    rx_vm vm;
    uint32_t *list, *raw; /* closure and next-set buffers (Pike VM area) */
    uint32_t *st;         /* per state: pool offset, set size, flags */
    uint32_t *trans;      /* nstates x ncls: target state * ncls, or T_* */
    uint32_t *hash;       /* RX_DFA_HASH slots: state + 1, 0 = empty */
    uint32_t *pool;
    size_t npool, cappool;
    uint32_t nstates, ncls;
} rx_dfa;

static uint32_t hash_set(const uint32_t *set, uint32_t k, uint32_t flags) {
    uint32_t h = 2166136261u ^ flags, i;
    for (i = 0; i < k; i++) h = (h ^ set[i]) * 16777619u;
    return h ^ (h >> 15);
}

static void flush(rx_dfa *d) {
    d->nstates = 0;
    d->npool = 0;
    memset(d->hash, 0, RX_DFA_HASH * sizeof(uint32_t));
}

/* The state for raw[0..k) with flags, added if new; *flushed is set when
 * the cache had to be emptied (older state indices are then invalid). */
static uint32_t find_or_add(rx_dfa *d, const uint32_t *raw, uint32_t k, uint32_t flags, int *flushed) {
    uint32_t h = hash_set(raw, k, flags) & (RX_DFA_HASH - 1), s, c;
    while (d->hash[h]) {
        s = d->hash[h] - 1;
        if (d->st[3 * s + 1] == k && (d->st[3 * s + 2] & ~F_RESTART) == flags &&
            memcmp(d->pool + d->st[3 * s], raw, k * sizeof(uint32_t)) == 0)
            return s;
        h = (h + 1) & (RX_DFA_HASH - 1);
    }
    if (d->nstates == RX_DFA_STATES || d->npool + k > d->cappool) {
        flush(d);
        *flushed = 1;
        h = hash_set(raw, k, flags) & (RX_DFA_HASH - 1);
    }
    s = d->nstates++;
    d->st[3 * s] = (uint32_t)d->npool;
    d->st[3 * s + 1] = k;
    d->st[3 * s + 2] = flags | (k == 1 && raw[0] == d->re->start ? F_RESTART : 0);
    memcpy(d->pool + d->npool, raw, k * sizeof(uint32_t));
    d->npool += k;
    for (c = 0; c < d->ncls; c++) d->trans[s * d->ncls + c] = T_UNKNOWN;
    d->hash[h] = s + 1;
    return s;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* One Pike step from state s over code point cp: T_MATCH if a match ends
 * before cp, T_DEAD if nothing can continue, else the next state. */
static uint32_t step(rx_dfa *d, uint32_t s, uint32_t cp, int *flushed) {
    const tg_regex *re = d->re;
    uint32_t off = d->st[3 * s], len = d->st[3 * s + 1], flags = d->st[3 * s + 2], n = 0, k = 0, i, t;
    rx_ctx ctx;
    ctx.at_start = (flags & F_AT_START) != 0;
    ctx.at_end = 0;
    ctx.prev_word = (flags & F_PREV_WORD) != 0;
    ctx.next_word = is_word(cp);
    next_gen(&d->vm);
    for (i = 0; i < len; i++)
        if (add_thread(&d->vm, d->list, &n, d->pool[off + i], &ctx)) return T_MATCH;
    next_gen(&d->vm);
    for (i = 0; i < n; i++) {
        if (!inst_match(re, &re->prog[d->list[i]], cp)) continue;
        t = d->list[i] + 1;
        if (d->vm.mark[t] != d->vm.gen) { d->vm.mark[t] = d->vm.gen; d->raw[k++] = t; }
    }
    if (!re->anchored && d->vm.mark[re->start] != d->vm.gen) d->raw[k++] = re->start;
    if (k == 0) return T_DEAD;
    if (k <= 16) {
        for (i = 1; i < k; i++) { /* insertion sort */
            uint32_t v = d->raw[i], j = i;
            while (j && d->raw[j - 1] > v) { d->raw[j] = d->raw[j - 1]; j--; }
            d->raw[j] = v;
        }
    } else {
        qsort(d->raw, k, sizeof(uint32_t), cmp_u32);
    }
    return find_or_add(d, d->raw, k, ctx.next_word ? F_PREV_WORD : 0, flushed);
}

static int end_match(rx_dfa *d, uint32_t s) {
    uint32_t off = d->st[3 * s], len = d->st[3 * s + 1], flags = d->st[3 * s + 2], n = 0, i;
    rx_ctx ctx;
    ctx.at_start = (flags & F_AT_START) != 0;
    ctx.at_end = 1;
    ctx.prev_word = (flags & F_PREV_WORD) != 0;
    ctx.next_word = 0;
    next_gen(&d->vm);
    for (i = 0; i < len; i++)
        if (add_thread(&d->vm, d->list, &n, d->pool[off + i], &ctx)) return 1;
    return 0;
}

/* A step the cache could not answer costs the NFA states of its set. */
static int charge(const rx_dfa *d, uint32_t cur, uint64_t *budget) {
    uint64_t k = (uint64_t)d->st[3 * cur + 1] + 1;
    if (!budget) return 0;
    if (*budget < k) return 1;
    *budget -= k;
    return 0;
}

int rx_dfa_search(const tg_regex *re, const unsigned char *s, size_t len, void *scratch, uint64_t *budget) {
    uint32_t *base = (uint32_t *)scratch, nprog = re->nprog, cur, row, t, misses = 0;
    const uint8_t *cls = re->ascii_class;
    size_t pos = 0;
    int flushed = 0;
    rx_dfa d;

    d.re = re;
    d.vm.re = re;
    d.vm.mark = base;
    d.vm.stack = base + nprog;
    d.list = base + 2 * (size_t)nprog;
    d.raw = base + 3 * (size_t)nprog;
    d.ncls = re->nascii_classes;
    d.st = base + rx_pike_words(re);
    d.trans = d.st + 3 * RX_DFA_STATES;
    d.hash = d.trans + (size_t)RX_DFA_STATES * d.ncls;
    d.pool = d.hash + RX_DFA_HASH;
    d.cappool = rx_dfa_pool_words(re);
    memset(d.vm.mark, 0, (size_t)nprog * sizeof(uint32_t));
    d.vm.gen = 1;
    flush(&d);
    d.raw[0] = re->start;
    cur = find_or_add(&d, d.raw, 1, F_AT_START, &flushed);

    row = cur * d.ncls;
    while (pos < len) {
        uint32_t b = s[pos];
        if (b < 0x80) {
            /* hot loop: cached transitions hold the target's row offset */
            t = d.trans[row + cls[b]];
            if (t < T_MATCH) { row = t; pos++; continue; }
            if (t == T_MATCH) return 1;
            if (t == T_DEAD) return 0;
            cur = row / d.ncls;
            if ((d.st[3 * cur + 2] & F_RESTART) && re->use_firstbyte) {
                /* nothing running: jump to where a match could start */
                while (pos < len && !((re->firstbyte[s[pos] >> 3] >> (s[pos] & 7)) & 1)) pos++;
                if (pos == len) break;
                if (s[pos] >= 0x80 || d.trans[row + cls[s[pos]]] != T_UNKNOWN) continue;
                b = s[pos];
            }
            if (charge(&d, cur, budget)) return -1;
            flushed = 0;
            t = step(&d, cur, b, &flushed);
            if (!flushed) d.trans[row + cls[b]] = t < T_MATCH ? t * d.ncls : t;
            pos++;
        } else {
            size_t n;
            uint32_t cp = rx_decode(s, len, pos, &n);
            cur = row / d.ncls;
            if ((d.st[3 * cur + 2] & F_RESTART) && re->use_firstbyte &&
                !((re->firstbyte[b >> 3] >> (b & 7)) & 1)) {
                pos += n;
                continue;
            }
            if (charge(&d, cur, budget)) return -1;
            flushed = 0;
            t = step(&d, cur, cp, &flushed);
            pos += n;
        }
        if (t == T_MATCH) return 1;
        if (t == T_DEAD) return 0;
        cur = t;
        row = cur * d.ncls;
        if (++misses > RX_DFA_FALLBACK_MISSES && (size_t)misses * 4 > pos) {
            /* the cache is not paying off: finish in the Pike VM */
            uint32_t off = d.st[3 * cur], k = d.st[3 * cur + 1];
            int pw = (d.st[3 * cur + 2] & F_PREV_WORD) != 0;
            if (pos == len) break;
            return rx_pike_run(re, s, len, scratch, pos, d.pool + off, k, pw, budget);
        }
    }
    cur = row / d.ncls;
    return end_match(&d, cur);
}
