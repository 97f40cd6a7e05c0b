/* regex_unicode.h - the Unicode property sets behind \p{...} (generated
 * into regex_unicode.c by gen_unicode_tables.mjs from one version of the
 * Unicode Character Database; tg_unicode_version names it). */
#ifndef TG_REGEX_UNICODE_H
#define TG_REGEX_UNICODE_H

#include <stddef.h>
#include <stdint.h>

/* What a name is looked up as: a General_Category value (also the lone
 * \p{X} form), a binary property (lone form), a Script value (sc=, Script=)
 * or a Script_Extensions value (scx=, Script_Extensions=). */
enum { TG_UPROP_GC = 1, TG_UPROP_BINARY = 2, TG_UPROP_SCRIPT = 3, TG_UPROP_SCX = 4 };

typedef struct tg_uprop {
    const char *name;
    uint16_t kind; /* TG_UPROP_* */
    uint16_t set;  /* which encoded set (aliases share one) */
} tg_uprop;

/* "17.0.0": the Unicode version of every table. */
extern const char tg_unicode_version[];

/* Exact (case-sensitive) name lookup within one kind; NULL if unknown. */
const tg_uprop *tg_uprop_lookup(int kind, const char *name, size_t len);
/* Number of [lo, hi] ranges in u's set (at most 0x88000). */
uint32_t tg_uprop_count(const tg_uprop *u);
/* Writes u's set to out[0 .. 2 * tg_uprop_count(u)) as sorted, disjoint,
 * non-adjacent [lo, hi] pairs. */
void tg_uprop_decode(const tg_uprop *u, uint32_t *out);
/* The names of one kind (for tests): writes up to max of them to out and
 * returns how many there are. */
size_t tg_uprop_names(int kind, const char **out, size_t max);

#endif
