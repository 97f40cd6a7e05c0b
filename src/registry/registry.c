/* registry.c - descriptor checks and the name -> tool hash table. */
#include "registry.h"

#include <stdio.h>
#include <string.h>

struct tg_registry {
    tg_allocator alloc;
    size_t max_tools;
    size_t count;
    size_t cap;       /* slots, a power of two */
    tg_tool **slots;  /* open addressing, linear probing */
};

static uint64_t name_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

tg_registry *tg_registry_new(const tg_allocator *alloc, size_t max_tools) {
    tg_registry *r = tg_malloc(alloc, sizeof *r);
    if (!r) return NULL;
    r->alloc = *alloc;
    r->max_tools = max_tools;
    r->count = 0;
    r->cap = 0;
    r->slots = NULL;
    return r;
}

static void tool_free(tg_registry *r, tg_tool *t) {
    tg_arena a = t->arena; /* the tool lives in its own arena */
    tg_arena_free(&a);
    (void)r;
}

void tg_registry_free(tg_registry *r) {
    if (!r) return;
    for (size_t i = 0; i < r->cap; i++)
        if (r->slots[i]) tool_free(r, r->slots[i]);
    tg_free(&r->alloc, r->slots, r->cap * sizeof *r->slots);
    tg_free(&r->alloc, r, sizeof *r);
}

static size_t find_slot(tg_tool *const *slots, size_t cap, const char *name, size_t len) {
    size_t i = (size_t)name_hash(name, len) & (cap - 1);
    while (slots[i] && !(slots[i]->name_len == len && memcmp(slots[i]->name, name, len) == 0)) i = (i + 1) & (cap - 1);
    return i;
}

static int grow(tg_registry *r) {
    size_t ncap = r->cap ? r->cap * 2 : 64;
    tg_tool **ns = tg_malloc(&r->alloc, ncap * sizeof *ns);
    if (!ns) return -1;
    memset(ns, 0, ncap * sizeof *ns);
    for (size_t i = 0; i < r->cap; i++)
        if (r->slots[i]) ns[find_slot(ns, ncap, r->slots[i]->name, r->slots[i]->name_len)] = r->slots[i];
    tg_free(&r->alloc, r->slots, r->cap * sizeof *r->slots);
    r->slots = ns;
    r->cap = ncap;
    return 0;
}

const tg_tool *tg_registry_find(const tg_registry *r, const char *name, size_t len) {
    if (!r->cap) return NULL;
    return r->slots[find_slot(r->slots, r->cap, name, len)];
}

size_t tg_registry_count(const tg_registry *r) { return r->count; }

static tg_registry_status invalid(tg_registry_error *err, const char *msg) {
    if (err) {
        err->status = TG_REG_INVALID;
        snprintf(err->message, sizeof err->message, "%s", msg);
    }
    return TG_REG_INVALID;
}

/* MCP: tool names are 1-128 characters of [A-Za-z0-9_.-]. */
static int valid_mcp_name(const char *s, size_t n) {
    if (n == 0 || n > 128) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return 0;
    }
    return 1;
}

tg_registry_status tg_registry_add(tg_registry *r, const cJSON *d, uint32_t handler_id, const tg_tool **out,
                                   tg_registry_error *err) {
    if (err) err->status = TG_REG_OK, err->message[0] = '\0';
    if (!cJSON_IsObject(d)) return invalid(err, "a tool descriptor must be a JSON object");
    const cJSON *name = tg_json_getz(d, "name");
    if (!cJSON_IsString(name)) return invalid(err, "descriptor.name must be a string");
    size_t nlen = tg_json_strlen(name->valuestring);
    if (!valid_mcp_name(name->valuestring, nlen))
        return invalid(err, "descriptor.name must be 1-128 characters of A-Z a-z 0-9 _ - .");
    const cJSON *schema = tg_json_getz(d, "inputSchema");
    if (!cJSON_IsObject(schema)) return invalid(err, "descriptor.inputSchema must be a JSON Schema object");
    const cJSON *type = tg_json_getz(schema, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "object") != 0)
        return invalid(err, "descriptor.inputSchema must have \"type\": \"object\"");
    const cJSON *required = tg_json_getz(schema, "required");
    if (required) {
        if (!cJSON_IsArray(required)) return invalid(err, "inputSchema.required must be an array of strings");
        for (const cJSON *q = required->child; q; q = q->next)
            if (!cJSON_IsString(q)) return invalid(err, "inputSchema.required must be an array of strings");
    }
    const cJSON *desc = tg_json_getz(d, "description");
    if (desc && !cJSON_IsString(desc)) return invalid(err, "descriptor.description must be a string");

    if (tg_registry_find(r, name->valuestring, nlen)) {
        if (err) {
            err->status = TG_REG_DUPLICATE;
            snprintf(err->message, sizeof err->message, "a tool named \"%s\" is registered already", name->valuestring);
        }
        return TG_REG_DUPLICATE;
    }
    if (r->count >= r->max_tools) {
        if (err) {
            err->status = TG_REG_FULL;
            snprintf(err->message, sizeof err->message, "the registry holds its limit of %zu tools", r->max_tools);
        }
        return TG_REG_FULL;
    }
    if ((r->count + 1) * 2 > r->cap && grow(r)) goto nomem;

    tg_arena a;
    tg_arena_init(&a, r->alloc);
    tg_tool *t = tg_arena_calloc(&a, 1, sizeof *t);
    cJSON *copy = t ? tg_json_clone(&a, d) : NULL;
    if (!copy) {
        tg_arena_free(&a);
        goto nomem;
    }
    const cJSON *cname = tg_json_getz(copy, "name");
    t->name = cname->valuestring;
    t->name_len = nlen;
    t->handler_id = handler_id;
    t->descriptor = copy;
    t->input_schema = tg_json_getz(copy, "inputSchema");
    t->required = tg_json_getz(t->input_schema, "required");
    t->arena = a;
    r->slots[find_slot(r->slots, r->cap, t->name, nlen)] = t;
    r->count++;
    if (out) *out = t;
    return TG_REG_OK;
nomem:
    if (err) {
        err->status = TG_REG_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    return TG_REG_NOMEM;
}
