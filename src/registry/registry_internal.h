/* registry_internal.h - shared by the registry's own files. */
#ifndef TG_REGISTRY_INTERNAL_H
#define TG_REGISTRY_INTERNAL_H

#include "registry.h"

/* An arena's bytes for a copy of n bytes of text and its NUL. */
#define TG_TEXT_BYTES(n) (((n) + 1 + 7u) & ~(size_t)7u)

/* A new tool (refs = 1) in an arena of its own, one chunk holding it, its
 * copy of source and `more` bytes (what it copies in next). NULL when
 * memory ran out. */
tg_tool *tg_tool_new(const tg_allocator *alloc, const char *source, size_t source_len, size_t more);
/* The cleaned descriptor tg_tool_build wrote the tool's text from, kept
 * for tg_tool_compile so that the text need not be read back (doc lives in
 * arena, which the caller frees, or, when cleaning changed nothing, is the
 * entry's descriptor itself; doc is NULL when the build failed). */
typedef struct tg_tool_tree {
    tg_arena arena;
    const cJSON *doc;
} tg_tool_tree;

/* e emptied, naming the tool as descriptor does (its "name", up to 128
 * bytes and a NUL), for a refusal of it. */
void tg_tool_error_of(tg_tool_error *e, const cJSON *descriptor);
/* Builds one tool (refs = 1), its schemas not yet compiled, or returns NULL
 * with e filled. keep (may be NULL): given the cleaned descriptor on
 * success; always initialized, to be freed with tg_arena_free(&keep->arena). */
tg_tool *tg_tool_build(const tg_registry_config *cfg, const tg_allocator *alloc, const char *source, size_t source_len,
                       const char *tmpl, const tg_tool_entry *entry, tg_tool_error *e, tg_tool_tree *keep);
/* Compiles t's schemas (programs in arenas of their own): 0, or -1 with e filled (the caller
 * frees t). doc: t's cleaned descriptor as tg_tool_build kept it, or NULL
 * to read it back from t's text. */
int tg_tool_compile(const tg_registry_config *cfg, tg_tool *t, const cJSON *doc, tg_tool_error *e);
void tg_tool_free(tg_tool *t);
/* Gives t the model-visible name[0..len) and the keys that follow from it
 * (skeleton, gone_key), in its arena; -1 when memory ran out. */
int tg_tool_set_name(tg_tool *t, const char *name, size_t len);
/* What the registry remembers of t once its source drops it (refs = 1):
 * its names, digest, handler, cleaning notes and definition text; no
 * programs, options or flight. Its own arena, about the size of the text.
 * NULL when memory ran out. */
tg_tool *tg_tool_record(const tg_tool *t);
/* to counts its calls in flight with from's from now on (to replaces from). */
void tg_tool_share_flight(tg_tool *to, const tg_tool *from);

#endif
