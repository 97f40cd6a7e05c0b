/* registry_internal.h - shared by the registry's own files. */
#ifndef TG_REGISTRY_INTERNAL_H
#define TG_REGISTRY_INTERNAL_H

#include "registry.h"

typedef struct tg_tool_error {
    char tool[130];  /* the descriptor's name, if it had one */
    char name[TG_NAME_MAX + 1]; /* the mapped name, once known */
    char code[32];
    char message[400];
} tg_tool_error;

/* An arena's bytes for a copy of n bytes of text and its NUL. */
#define TG_TEXT_BYTES(n) (((n) + 1 + 7u) & ~(size_t)7u)

/* A new tool (refs = 1) in an arena of its own, one chunk holding it, its
 * copy of source and `more` bytes (what it copies in next). NULL when
 * memory ran out. */
tg_tool *tg_tool_new(const tg_allocator *alloc, const char *source, size_t source_len, size_t more);
/* Builds one tool (refs = 1), its schemas not yet compiled, or returns NULL
 * with e filled. */
tg_tool *tg_tool_build(const tg_registry_config *cfg, const tg_allocator *alloc, const char *source, size_t source_len,
                       const char *tmpl, const tg_tool_entry *entry, tg_tool_error *e);
/* Compiles t's schemas into its arena: 0, or -1 with e filled (the caller
 * frees t). A tool whose definition the registry holds already skips it. */
int tg_tool_compile(const tg_registry_config *cfg, tg_tool *t, tg_tool_error *e);
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
