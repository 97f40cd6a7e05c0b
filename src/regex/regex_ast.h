/* regex_ast.h - the parser's AST and state, shared by regex_parse.c
 * (pattern -> AST) and regex_compile.c (AST -> program). Not public. */
#ifndef TG_REGEX_AST_H
#define TG_REGEX_AST_H

#include <stddef.h>
#include <stdint.h>

#include "regex_internal.h"

#define RX_MAX_DEPTH 64          /* group nesting */
#define RX_INF UINT32_MAX        /* unbounded quantifier max */
#define RX_COUNT_CAP 1000000u    /* larger quantifier numbers are refused */
#define RX_MAX_POOL (1u << 22)   /* uint32s of class ranges a pattern may own (hard cap) */
#define RX_MERGE_SLACK 4096      /* unmerged range pairs a class may collect before a merge */

enum { N_EMPTY, N_CHAR, N_CLASS, N_ANY, N_BOL, N_EOL, N_WORDB, N_NWORDB, N_CAT, N_ALT, N_REP };

typedef struct rx_node {
    uint32_t type;
    uint32_t a;        /* N_CHAR: code point; N_CLASS: class index */
    int32_t child;     /* N_CAT/N_ALT: first child; N_REP: the body */
    int32_t next;      /* next sibling */
    uint32_t min, max; /* N_REP */
    uint64_t size;     /* instructions this node emits (saturated) */
} rx_node;

typedef struct rx_cls_build {
    const uint32_t *ext; /* static table, or NULL when the ranges are in the pool */
    uint32_t off, count, negate;
    uint32_t uprop;      /* outside [...]: the \p{..} set decoded into it (uprop_key without negation), else 0 */
} rx_cls_build;

typedef struct rx_parser {
    const tg_allocator *al;
    const unsigned char *s;
    size_t len, pos;
    int depth;
    tg_regex_error *err;
    int failed;
    rx_node *nodes;
    uint32_t nnodes, capnodes;
    rx_cls_build *cls;
    uint32_t ncls, capcls;
    uint32_t *pool; /* class ranges */
    size_t npool, cappool;
    uint32_t *tmp;  /* ranges of the class under construction */
    size_t ntmp, captmp;
    size_t max_pool;  /* uint32s of ranges the pool may keep (tg_regex_limits.max_ranges) */
    uint32_t *cprops; /* the \p{..} sets of the class under construction (uprop_key) */
    size_t ncprops, capcprops;
    int count_overflow; /* a quantifier number exceeded RX_COUNT_CAP */
    size_t *names;  /* (offset, length) of each group name */
    uint32_t nnames;
    size_t capnames;
    /* syntax only (tg_regex_syntax_ok): backreferences and lookaround are
     * read as ECMA-262 `u` mode reads them, and nothing is compiled */
    int syntax_only;
    int group_assert;   /* the group just parsed was a lookaround */
    uint32_t ngroups;   /* capturing groups so far */
    uint32_t max_ref;   /* the largest \N seen, and where */
    size_t max_ref_off;
    size_t *krefs;      /* (offset, length) of each \k<name> */
    uint32_t nkrefs;
    size_t capkrefs;
} rx_parser;

/* Records the first error (offset, printf-style message); returns -1. */
int rx_fail(rx_parser *p, size_t off, const char *fmt, ...);
/* rx_fail for memory the allocator refused (tg_regex_error.nomem). */
int rx_nomem(rx_parser *p, size_t off);
/* Marks the failure about to be reported as a limit of this engine (size,
 * nesting, counts, states, class ranges, memory), not an error of the
 * pattern (tg_regex_error.limit): call it right before rx_fail. */
static inline void rx_over(rx_parser *p) {
    if (!p->failed && p->err) p->err->limit = 1;
}
/* Parses the whole pattern; the root node index, or -1 with the error set.
 * With syntax_only, also checks that every \N and \k<name> names a group. */
int32_t rx_parse(rx_parser *p);
/* Frees the parser's arrays (not the compiled program). */
void rx_parser_release(rx_parser *p);

#endif
