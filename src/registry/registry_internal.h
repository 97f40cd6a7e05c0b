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

/* Builds one tool (refs = 1), its schemas not yet compiled, or returns NULL
 * with e filled. */
tg_tool *tg_tool_build(const tg_registry_config *cfg, const tg_allocator *alloc, const char *source, size_t source_len,
                       const char *tmpl, const tg_tool_entry *entry, tg_tool_error *e);
/* Compiles t's schemas into its arena: 0, or -1 with e filled (the caller
 * frees t). A tool whose definition the registry holds already skips it. */
int tg_tool_compile(const tg_registry_config *cfg, tg_tool *t, tg_tool_error *e);
void tg_tool_free(tg_tool *t);
/* to counts its calls in flight with from's from now on (to replaces from). */
void tg_tool_share_flight(tg_tool *to, const tg_tool *from);

#endif
