/* sanitize.h - untrusted text from descriptors (descriptions, titles) made
 * safe to show a model or a person: bounded, and without the characters
 * that hide or reorder text. */
#ifndef TG_REGISTRY_SANITIZE_H
#define TG_REGISTRY_SANITIZE_H

#include <stddef.h>

#include "../json/json.h"

/* Copies valid UTF-8 s[0..len) to out (room for max_bytes + 4 bytes),
 * dropping C0 controls other than tab and newline, DEL and C1 controls,
 * bidirectional controls (U+061C, U+200E-200F, U+202A-202E, U+2066-2069),
 * zero-width and invisible characters (U+200B-200D, U+2060-2064, U+FEFF,
 * U+180E, U+00AD) and Unicode tag characters (U+E0000-E007F, used to smuggle
 * hidden ASCII). Text past max_bytes is cut at a code point boundary and
 * ends in "…", within max_bytes (when max_bytes >= 3). Returns the length
 * written; *changed is set when anything
 * was dropped or cut. */
size_t tg_sanitize_text(const char *s, size_t len, size_t max_bytes, char *out, int *changed);

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
 * memory. Nesting is bounded by the JSON reader's depth limit. */
int tg_sanitize_schema(tg_arena *arena, cJSON *schema, size_t description_cap, size_t title_cap, int *changed,
                       char *why, size_t why_cap);

#endif
