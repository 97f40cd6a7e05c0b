/* regex_exec.c - runs a compiled pattern: literal fast paths, then a Pike VM
 * (a Thompson NFA simulation without captures, since only match/no-match is
 * asked). Every step touches each NFA instruction at most once, so a search
 * is O(program_size * subject_length) and never backtracks. */
#include <string.h>

#include "regex_vm.h"

int rx_pike_run(const tg_regex *re, const unsigned char *s, size_t len, void *scratch, size_t pos,
                const uint32_t *seeds, uint32_t nseeds, int prev_word, uint64_t *budget) {
    uint32_t nprog = re->nprog, nc = 0, nn, *clist, *nlist, *tmp, i;
    size_t curlen = 0, npos, nextlen = 0;
    uint32_t cur = 0, next = 0;
    rx_vm vm;
    rx_ctx ctx;

    vm.re = re;
    vm.mark = (uint32_t *)scratch;
    vm.stack = vm.mark + nprog;
    clist = vm.stack + nprog;
    nlist = clist + nprog;
    memset(vm.mark, 0, (size_t)nprog * sizeof(uint32_t));
    vm.gen = 1;
    if (pos < len) cur = rx_decode(s, len, pos, &curlen);
    ctx.at_start = pos == 0;
    ctx.at_end = pos == len;
    ctx.prev_word = prev_word;
    ctx.next_word = pos < len && is_word(cur);
    for (i = 0; i < nseeds; i++)
        if (add_thread(&vm, clist, &nc, seeds[i], &ctx)) return 1;
    for (;;) {
        if (nc == 0) {
            if (re->anchored) return 0;
            if (re->use_firstbyte) {
                /* nothing running: jump to where a match could start */
                while (pos < len && !((re->firstbyte[s[pos] >> 3] >> (s[pos] & 7)) & 1)) pos++;
                if (pos == len) return 0;
                cur = rx_decode(s, len, pos, &curlen);
            }
        }
        if (!re->anchored) {
            ctx.at_start = pos == 0;
            ctx.at_end = pos == len;
            ctx.prev_word = prev_word;
            ctx.next_word = pos < len && is_word(cur);
            if (add_thread(&vm, clist, &nc, re->start, &ctx)) return 1;
        }
        if (pos == len) return 0;
        if (budget) { /* every thread advanced is a step */
            if (*budget <= nc) return -1;
            *budget -= (uint64_t)nc + 1;
        }
        npos = pos + curlen;
        if (npos < len) next = rx_decode(s, len, npos, &nextlen);
        ctx.at_start = 0;
        ctx.at_end = npos == len;
        ctx.prev_word = is_word(cur);
        ctx.next_word = npos < len && is_word(next);
        next_gen(&vm);
        nn = 0;
        for (i = 0; i < nc; i++) {
            const rx_inst *in = &re->prog[clist[i]];
            if (inst_match(re, in, cur) && add_thread(&vm, nlist, &nn, clist[i] + 1, &ctx)) return 1;
        }
        tmp = clist; clist = nlist; nlist = tmp;
        nc = nn;
        prev_word = ctx.prev_word;
        pos = npos;
        cur = next;
        curlen = nextlen;
    }
}

static int find_literal(const unsigned char *s, size_t len, const unsigned char *lit, size_t n) {
    size_t i;
    if (n == 0) return 1;
    if (n > len) return 0;
    for (i = 0; i + n <= len;) {
        const unsigned char *hit = memchr(s + i, lit[0], len - n + 1 - i);
        if (!hit) return 0;
        i = (size_t)(hit - s);
        if (memcmp(hit + 1, lit + 1, n - 1) == 0) return 1;
        i++;
    }
    return 0;
}

/* ^X{min,max}$: every code point passes X and their number is in range. */
static int run_search(const tg_regex *re, const unsigned char *s, size_t len) {
    size_t pos = 0, n, count = 0;
    uint32_t cp;
    if (re->run.op == RX_CLASS) {
        /* ASCII bytes are one code point each: test them on the class's
         * bitmap, then go on code point by code point from the first other */
        const uint8_t *bm = re->classes[re->run.a].ascii;
        while (pos < len && s[pos] < 0x80) {
            unsigned c = s[pos];
            if (!((bm[c >> 3] >> (c & 7)) & 1)) return 0;
            pos++;
        }
        count = pos;
        if (re->run_max != UINT32_MAX && count > re->run_max) return 0;
    }
    while (pos < len) {
        cp = rx_decode(s, len, pos, &n);
        if (!inst_match(re, &re->run, cp) || (re->run_max != UINT32_MAX && count == re->run_max)) return 0;
        count++;
        pos += n;
    }
    return count >= re->run_min;
}

size_t tg_regex_scratch_size(const tg_regex *re) {
    return re ? (rx_pike_words(re) + rx_dfa_words(re)) * sizeof(uint32_t) + 8 : 8;
}

size_t tg_regex_program_size(const tg_regex *re) { return re ? re->nprog : 0; }
size_t tg_regex_range_count(const tg_regex *re) { return re ? re->npool / 2 : 0; }

int tg_regex_needs_scratch(const tg_regex *re) { return re && re->fast == RX_FAST_NONE; }

int tg_regex_search(const tg_regex *re, const char *subject, size_t len, void *scratch) {
    return tg_regex_search_bounded(re, subject, len, scratch, NULL);
}

int tg_regex_search_bounded(const tg_regex *re, const char *subject, size_t len, void *scratch, uint64_t *budget) {
    const unsigned char *s = (const unsigned char *)(subject ? subject : "");
    if (!re || (!subject && len)) return 0;
    /* a fast path costs one step a search, as a walk of the DFA's cached
     * states costs nothing per byte (the scan is linear in a subject the
     * input limits bound; charged per byte, a language written as a literal
     * ran out of budget where written otherwise it did not). What the budget
     * must see is the number of searches: P patterns over N names
     * (patternProperties) were P x N searches none counted. */
    if (re->fast != RX_FAST_NONE && budget) {
        if (*budget == 0) return -1;
        *budget -= 1;
    }
    switch (re->fast) {
    case RX_FAST_LITERAL: return find_literal(s, len, re->lit, re->nlit);
    case RX_FAST_PREFIX: return len >= re->nlit && memcmp(s, re->lit, re->nlit) == 0;
    case RX_FAST_SUFFIX: return len >= re->nlit && memcmp(s + len - re->nlit, re->lit, re->nlit) == 0;
    case RX_FAST_EXACT: return len == re->nlit && memcmp(s, re->lit, re->nlit) == 0;
    case RX_FAST_RUN: return run_search(re, s, len);
    default: break;
    }
    if (!scratch) return 0;
    if (len >= RX_DFA_MIN_LEN) return rx_dfa_search(re, s, len, scratch, budget);
    return rx_pike_run(re, s, len, scratch, 0, &re->start, 1, 0, budget);
}

int tg_regex_exact(const tg_regex *re, const char **lit, size_t *len) {
    if (!re || re->fast != RX_FAST_EXACT) return 0;
    *lit = (const char *)re->lit;
    *len = re->nlit;
    return 1;
}

void tg_regex_free(tg_regex *re) {
    tg_allocator al;
    if (!re) return;
    al = re->alloc;
    tg_free(&al, re->prog, (size_t)re->nprog * sizeof(rx_inst));
    /* sizes as allocated: tg_malloc(0) hands out 1 byte */
    tg_free(&al, re->classes, re->nclasses ? (size_t)re->nclasses * sizeof(rx_class) : 1);
    tg_free(&al, re->pool, re->npool * sizeof(uint32_t));
    tg_free(&al, re->lit, re->litcap);
    tg_free(&al, re, sizeof *re);
}
