/* registry.h - the tool table: descriptors in the MCP Tool shape, keyed by
 * model-visible name, each tool owning a copy of its descriptor.
 *
 * Ownership: the registry owns every tool and its memory; pointers it returns
 * stay valid until the tool is removed or the registry freed. Descriptors
 * passed in are copied, never kept. */
#ifndef TG_REGISTRY_H
#define TG_REGISTRY_H

#include <stdint.h>

#include "../base/arena.h"
#include "../json/json.h"

typedef struct tg_registry tg_registry;

typedef struct tg_tool {
    const char *name; /* model-visible name, NUL-terminated */
    size_t name_len;
    uint32_t handler_id;
    const cJSON *descriptor;   /* the tool's own copy */
    const cJSON *input_schema; /* inside descriptor */
    const cJSON *required;     /* inputSchema.required (array of strings) or NULL */
    tg_arena arena;            /* owns descriptor */
} tg_tool;

typedef enum tg_registry_status {
    TG_REG_OK = 0,
    TG_REG_INVALID,   /* not an MCP Tool descriptor */
    TG_REG_DUPLICATE, /* name taken */
    TG_REG_FULL,      /* max_tools reached */
    TG_REG_NOMEM
} tg_registry_status;

typedef struct tg_registry_error {
    tg_registry_status status;
    char message[256];
} tg_registry_error;

/* NULL when the allocator refuses. */
tg_registry *tg_registry_new(const tg_allocator *alloc, size_t max_tools);
void tg_registry_free(tg_registry *r);

/* Checks the descriptor's shape and adds a copy. On success *out (if given)
 * points at the new tool. On failure the registry is unchanged. */
tg_registry_status tg_registry_add(tg_registry *r, const cJSON *descriptor, uint32_t handler_id, const tg_tool **out,
                                   tg_registry_error *err);

/* The tool with that model-visible name, or NULL. */
const tg_tool *tg_registry_find(const tg_registry *r, const char *name, size_t len);

size_t tg_registry_count(const tg_registry *r);

#endif
