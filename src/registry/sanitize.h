/* sanitize.h - untrusted text from descriptors (descriptions, titles) made
 * safe to show a model or a person: bounded, and without the characters
 * that hide or reorder text. */
#ifndef TG_REGISTRY_SANITIZE_H
#define TG_REGISTRY_SANITIZE_H

#include <stddef.h>

#include "../json/json.h"

/* Copies valid UTF-8 s[0..len) to out (room for max_bytes + 4 bytes),
 * dropping C0 controls other than tab and newline, DEL and C1 controls,
 * and every Default_Ignorable code point (rendered as nothing, so text can
 * hide in them): bidirectional controls (U+061C, U+200E-200F, U+202A-202E,
 * U+2066-2069), zero-width characters (U+200B-200D, U+2060-2064, U+FEFF),
 * variation selectors (U+FE00-FE0F, U+E0100-E01EF: one can carry a byte),
 * tag characters (U+E0000-E007F, used to smuggle hidden ASCII), Hangul
 * fillers, U+00AD, U+034F, U+180B-180F, U+17B4-17B5, U+1BCA0-1BCA3,
 * U+1D173-1D17A; also the interlinear annotation marks U+FFF9-FFFB. Text
 * past max_bytes is cut at a code point boundary and ends in "…", within
 * max_bytes (a cap under 3 bytes gets no "…"). Returns the length
 * written; *changed is set when anything
 * was dropped or cut. */
size_t tg_sanitize_text(const char *s, size_t len, size_t max_bytes, char *out, int *changed);

/* 1 when tg_sanitize_text(s, len, max_bytes, ...) would change s (it is
 * longer than max_bytes, or holds what is dropped), 0 when it would copy
 * it as it is. */
int tg_sanitize_changes(const char *s, size_t len, size_t max_bytes);

/* Cleans the string value v (a string of this JSON module's, as the
 * reader makes them) in place as tg_sanitize_text does, cut to cap bytes:
 * a changed text becomes a new string from a, and *changed is set. With a
 * NULL arena v is left as it is and *changed is set when cleaning would
 * change it. Returns 0, or -1 when memory ran out. */
int tg_sanitize_value(tg_arena *a, cJSON *v, size_t cap, int *changed);

/* The length of the printable ASCII (0x20..0x7E) s[0..len) starts with:
 * text tg_sanitize_text leaves as it is (within its cap). */
size_t tg_plain_prefix(const char *s, size_t len);

/* The text inside a tool's schema (inputSchema, outputSchema), which every
 * format shows the model. Annotations in schema places ("description",
 * "title", "$comment" strings) are cleaned in place as tg_sanitize_text
 * does (description_cap / title_cap bytes; new strings from arena).
 * Everything else a model sees and must reproduce or that validation reads
 * cannot be cleaned without changing the tool: object keys (property
 * names), enum / const / default / examples data, patterns, refs, unknown
 * keywords' values. One of those holding a character tg_sanitize_text would
 * drop (ZWJ and ZWNJ aside: they join emoji and some scripts) refuses the
 * tool. Returns 0 (*changed set when an annotation was cleaned), 1 refused
 * (why: a sentence naming the place, up to why_cap bytes), -1 out of
 * memory. With a NULL arena nothing is cleaned (schema is only read):
 * *changed tells whether cleaning would change it, the refusals are the
 * same. Nesting is bounded by the JSON reader's depth limit. */
int tg_sanitize_schema(tg_arena *arena, cJSON *schema, size_t description_cap, size_t title_cap, int *changed,
                       char *why, size_t why_cap);

#endif
