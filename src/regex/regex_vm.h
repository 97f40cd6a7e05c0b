/* regex_vm.h - helpers shared by the Pike VM (regex_exec.c) and the lazy
 * DFA (regex_dfa.c): UTF-8 decoding, instruction tests, epsilon closure. */
#ifndef TG_REGEX_VM_H
#define TG_REGEX_VM_H

#include <string.h>

#include "regex_internal.h"

typedef struct rx_ctx {
    int at_start, at_end;
    int prev_word, next_word; /* \w-ness of the code points around the position */
} rx_ctx;

static inline int is_word(uint32_t cp) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
}

/* Decodes the code point at s[pos] (pos < len); invalid bytes are U+FFFD
 * consuming one byte, so every valid sequence is still decoded as itself. */
static inline uint32_t rx_decode(const unsigned char *s, size_t len, size_t pos, size_t *n) {
    uint32_t c = s[pos], need, min, i;
    if (c < 0x80) { *n = 1; return c; }
    if (c >= 0xC2 && c <= 0xDF) { need = 1; c &= 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { need = 2; c &= 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 3; c &= 0x07; min = 0x10000; }
    else goto bad;
    if (len - pos <= need) goto bad;
    for (i = 1; i <= need; i++) {
        uint32_t b = s[pos + i];
        if ((b & 0xC0) != 0x80) goto bad;
        c = (c << 6) | (b & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) goto bad;
    *n = need + 1;
    return c;
bad:
    *n = 1;
    return 0xFFFD;
}

static inline int class_match(const rx_class *c, uint32_t cp) {
    size_t lo = 0, hi = c->count;
    if (cp < 128) return (c->ascii[cp >> 3] >> (cp & 7)) & 1;
    while (lo < hi) { /* first range whose hi >= cp */
        size_t mid = lo + (hi - lo) / 2;
        if (c->ranges[2 * mid + 1] < cp) lo = mid + 1; else hi = mid;
    }
    return (lo < c->count && c->ranges[2 * lo] <= cp) != (c->negate != 0);
}

static inline int inst_match(const tg_regex *re, const rx_inst *in, uint32_t cp) {
    switch (in->op) {
    case RX_CHAR: return cp == in->a;
    case RX_ANY: return cp != '\n' && cp != '\r' && cp != 0x2028 && cp != 0x2029;
    case RX_CLASS: return class_match(&re->classes[in->a], cp);
    default: return 0;
    }
}

typedef struct rx_vm {
    const tg_regex *re;
    uint32_t *mark;  /* mark[pc] == gen: pc already in the list being built */
    uint32_t *stack;
    uint32_t gen;
} rx_vm;

/* Adds pc's epsilon closure at a position described by ctx to list (only the
 * consuming instructions are stored). Returns 1 if MATCH is reachable. */
static inline int add_thread(rx_vm *vm, uint32_t *list, uint32_t *n, uint32_t pc, const rx_ctx *ctx) {
    const rx_inst *prog = vm->re->prog;
    uint32_t *mark = vm->mark, *stack = vm->stack, sp = 0, gen = vm->gen;
#define RX_PUSH(x) do { uint32_t x_ = (x); if (mark[x_] != gen) { mark[x_] = gen; stack[sp++] = x_; } } while (0)
    RX_PUSH(pc);
    while (sp) {
        const rx_inst *in;
        pc = stack[--sp];
        in = &prog[pc];
        switch (in->op) {
        case RX_JMP: RX_PUSH(in->a); break;
        case RX_SPLIT: RX_PUSH(in->b); RX_PUSH(in->a); break;
        case RX_BOL: if (ctx->at_start) RX_PUSH(pc + 1); break;
        case RX_EOL: if (ctx->at_end) RX_PUSH(pc + 1); break;
        case RX_WORDB: if (ctx->prev_word != ctx->next_word) RX_PUSH(pc + 1); break;
        case RX_NWORDB: if (ctx->prev_word == ctx->next_word) RX_PUSH(pc + 1); break;
        case RX_MATCH: return 1;
        default: list[(*n)++] = pc; break;
        }
    }
#undef RX_PUSH
    return 0;
}

static inline void next_gen(rx_vm *vm) {
    if (++vm->gen == 0) { /* wrapped: forget every old mark */
        memset(vm->mark, 0, (size_t)vm->re->nprog * sizeof(uint32_t));
        vm->gen = 1;
    }
}

/* Pike VM from position pos, seeded with the epsilon closures of
 * seeds[0..nseeds) (instruction indices) at that position; at_start and
 * prev_word describe it. Used for whole searches and as the lazy DFA's
 * fallback when its cache thrashes. */
int rx_pike_run(const tg_regex *re, const unsigned char *s, size_t len, void *scratch, size_t pos,
                const uint32_t *seeds, uint32_t nseeds, int prev_word, uint64_t *budget);

/* Lazy DFA search; same contract as tg_regex_search. */
int rx_dfa_search(const tg_regex *re, const unsigned char *s, size_t len, void *scratch, uint64_t *budget);

/* The lazy DFA's cache lives in the caller's scratch after the Pike VM's
 * area: RX_DFA_STATES states, each with a transition per ASCII class. */
#ifndef RX_DFA_STATES
#define RX_DFA_STATES 128u
#endif
#define RX_DFA_HASH 256u /* power of two, > RX_DFA_STATES */
#ifndef RX_DFA_FALLBACK_MISSES
#define RX_DFA_FALLBACK_MISSES 256u /* misses before a thrashing cache gives way */
#endif
#ifndef RX_DFA_MIN_LEN
#define RX_DFA_MIN_LEN 32 /* shorter subjects go straight to the Pike VM */
#endif

static inline size_t rx_dfa_pool_words(const tg_regex *re) { return 2048 + 2 * ((size_t)re->nprog + 1); }
static inline size_t rx_dfa_words(const tg_regex *re) {
    return 8 + 3 * (size_t)RX_DFA_STATES + (size_t)RX_DFA_STATES * re->nascii_classes + RX_DFA_HASH +
           rx_dfa_pool_words(re);
}

/* uint32 words of scratch the Pike VM needs (the DFA's area follows). */
static inline size_t rx_pike_words(const tg_regex *re) { return 4 * (size_t)re->nprog; }

#endif
