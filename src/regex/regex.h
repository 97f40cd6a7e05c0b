/* regex.h - ECMA-262 `pattern` matching (JSON Schema pattern /
 * patternProperties) in linear time.
 *
 * Patterns compile to a Thompson NFA that a Pike VM runs over the subject's
 * code points, so a search costs O(program_size * subject_length) and never
 * backtracks. Syntax is ECMA-262 in Unicode mode (the `u` flag). Constructs
 * that need backtracking (backreferences, lookahead, lookbehind) are refused
 * at compile time with a diagnostic naming them. Search semantics: the
 * pattern may match anywhere unless anchored with ^ / $. */
#ifndef TG_REGEX_REGEX_H
#define TG_REGEX_REGEX_H

#include <stddef.h>

#include "../base/alloc.h"

typedef struct tg_regex tg_regex;

typedef struct tg_regex_limits {
    size_t max_pattern_bytes; /* default 4096 */
    size_t max_states;        /* default 10000: NFA instructions after {n,m} expansion */
} tg_regex_limits;

typedef struct tg_regex_error {
    size_t offset;     /* byte offset into the pattern */
    char message[160]; /* NUL-terminated */
} tg_regex_error;

tg_regex_limits tg_regex_default_limits(void);

/* 0 on success with *out owned by the caller (free with tg_regex_free); -1
 * with err filled (syntax, unsupported construct, over a limit, or out of
 * memory). limits may be NULL for the defaults; err may be NULL. */
int tg_regex_compile(const tg_allocator *alloc, const char *pattern, size_t len,
                     const tg_regex_limits *limits, tg_regex **out, tg_regex_error *err);

/* Scratch memory one search needs; the caller provides it so a search
 * allocates nothing. */
size_t tg_regex_scratch_size(const tg_regex *re);

/* 1 if the pattern matches somewhere in subject[0..len) (UTF-8), 0 if not.
 * scratch has tg_regex_scratch_size(re) bytes, 8-byte aligned. Invalid UTF-8
 * bytes in subject are treated as U+FFFD. */
int tg_regex_search(const tg_regex *re, const char *subject, size_t len, void *scratch);

void tg_regex_free(tg_regex *re);

/* Number of NFA instructions in the compiled program (for tests/diagnostics). */
size_t tg_regex_program_size(const tg_regex *re);

#endif
