/* regex_unicode.h - Unicode property range tables for \p{...} (generated
 * into regex_unicode.c by gen_unicode_tables.py). */
#ifndef TG_REGEX_UNICODE_H
#define TG_REGEX_UNICODE_H

#include <stddef.h>
#include <stdint.h>

enum { TG_UPROP_GC = 1, TG_UPROP_BINARY = 2, TG_UPROP_SCRIPT = 3 };

typedef struct tg_uprop {
    const char *name;
    int kind;               /* TG_UPROP_* */
    const uint32_t *ranges; /* sorted, disjoint, non-adjacent [lo, hi] pairs */
    uint32_t count;         /* number of pairs */
} tg_uprop;

/* Exact (case-sensitive) name lookup within one kind; NULL if unknown. */
const tg_uprop *tg_uprop_lookup(int kind, const char *name, size_t len);

#endif
