/* names.h - model-visible tool names. Every provider (Anthropic, OpenAI,
 * Gemini, Bedrock) accepts ^[A-Za-z_][A-Za-z0-9_-]{0,63}$; MCP allows more.
 * The mapping is deterministic: same input, same name, on every machine. */
#ifndef TG_REGISTRY_NAMES_H
#define TG_REGISTRY_NAMES_H

#include <stddef.h>

#define TG_NAME_MAX 64

/* Expands template ("{source}" and "{tool}" placeholders; other text kept)
 * and maps the result into out (TG_NAME_MAX+1 bytes): ASCII letters,
 * digits, '_' and '-' are kept; common look-alikes of ASCII letters
 * (Cyrillic, Greek, fullwidth forms) become those letters; anything else,
 * '.' first among them, becomes '_'. A name that does not start with a
 * letter or '_' gets a '_' in front. A name longer than 64 whose
 * collision key fits in 64 (its pairs rn and vv read as the one letter m,
 * w) has its last pairs written as those letters, as many as it takes to
 * fit: whether a name gets a hash is up to its key alone, so a name kept
 * whole and its look-alike one character longer share a key. Any other
 * name longer than 64 is cut to at most 55 characters (each 'm' or 'w'
 * counted twice, as it may fold from "rn" or "vv"; never inside such a
 * pair; no '_' or '-' at the end, so the
 * cut never makes "__" with the '_' that follows: "mcp__{source}" cut after
 * a '_' of the source would read as the namespace of the source before
 * it), then '_' and 8 hex digits of a 32-bit FNV-1a hash of its collision
 * key (the whole mapped text folded as tg_name_fold folds, pairs
 * included). Names with the same collision key are cut alike and get the
 * same hash, so their shortened names share a collision key too.
 * Returns the length. */
size_t tg_name_map(const char *tmpl, const char *source, size_t source_len, const char *tool, size_t tool_len,
                   char *out);

/* 1 when the mapping of s[0..n) (all of it, however long) holds "__" or
 * ends in '_': a source name that "mcp__{source}__{tool}" would not keep
 * apart from another source's namespace. */
int tg_name_splits(const char *s, size_t n);

/* 1 when name[0..len) already is a provider-safe name. */
int tg_name_is_safe(const char *name, size_t len);

/* The collision key of a mapped name (TG_NAME_MAX+1 bytes): lower case,
 * '-' as '_', and ASCII look-alikes folded (0->o, 1/i/| ->l, rn->m, vv->w),
 * so names that differ only by case or confusables share a key. */
size_t tg_name_skeleton(const char *name, size_t len, char *out);

/* The same folding of s[0..n) into out, at most cap bytes and a NUL (out
 * may be s: it never writes ahead of what it reads), for names of any
 * length. pairs 0 leaves out the two-letter look-alikes (rn, vv): then
 * every character folds on its own ('*' and '.' kept), so a glob pattern
 * and a name folded alike still match where their raw forms did (the
 * policy's restricting patterns try this fold and the pair fold, either
 * matching: "transfer*" must keep "transferNow").
 * Returns the length written. */
size_t tg_name_fold(const char *s, size_t n, char *out, size_t cap, int pairs);

#endif
