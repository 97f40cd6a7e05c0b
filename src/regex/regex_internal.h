/* regex_internal.h - the compiled program shared by regex_parse.c (which
 * builds it) and regex_exec.c (which runs it). Not a public header. */
#ifndef TG_REGEX_INTERNAL_H
#define TG_REGEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "regex.h"

enum {
    RX_CHAR,   /* a = code point */
    RX_CLASS,  /* a = class index */
    RX_ANY,    /* any code point but \n \r U+2028 U+2029 */
    RX_SPLIT,  /* epsilon to a and b */
    RX_JMP,    /* epsilon to a */
    RX_BOL,    /* ^: subject start */
    RX_EOL,    /* $: subject end */
    RX_WORDB,  /* \b */
    RX_NWORDB, /* \B */
    RX_MATCH
};

typedef struct rx_inst {
    uint32_t op;
    uint32_t a, b;
} rx_inst;

typedef struct rx_class {
    const uint32_t *ranges; /* sorted disjoint [lo, hi] pairs */
    uint32_t count;         /* pairs */
    uint32_t negate;        /* match the complement */
    uint8_t ascii[16];      /* bitmap for U+0000..U+007F, negation applied */
} rx_class;

enum {
    RX_FAST_NONE,     /* run the Pike VM */
    RX_FAST_LITERAL,  /* lit occurs anywhere */
    RX_FAST_PREFIX,   /* ^lit */
    RX_FAST_SUFFIX,   /* lit$ */
    RX_FAST_EXACT,    /* ^lit$ */
    RX_FAST_RUN       /* ^X{min,max}$ for one code point test X (char, class, '.') */
};

struct tg_regex {
    tg_allocator alloc;
    rx_inst *prog;
    uint32_t nprog;
    uint32_t start;       /* entry instruction */
    rx_class *classes;
    uint32_t nclasses;
    uint32_t *pool;       /* owned range storage the classes point into */
    size_t npool;         /* uint32 count of pool */
    int anchored;         /* every match must begin at subject start */
    int fast;             /* RX_FAST_* */
    unsigned char *lit;   /* literal bytes for the fast paths (UTF-8) */
    size_t nlit;
    size_t litcap;        /* bytes allocated for lit */
    rx_inst run;          /* RX_FAST_RUN: the test, and its bounds in code points */
    uint32_t run_min, run_max;
    int use_firstbyte;    /* firstbyte[] filters where a match can start */
    uint8_t ascii_class[128]; /* ASCII code points the program cannot tell apart share a class */
    uint32_t nascii_classes;
    uint8_t firstbyte[32];
};

#endif
