/* tool.c - what a registered tool keeps, and for how long: one arena a
 * tool (sized to what it copies in: never a node of its descriptor, the
 * definition's text), its names and keys, the record the registry keeps of
 * a tool its source dropped, and the count of calls its versions share. */
#include "registry_internal.h"

#include <string.h>

tg_tool *tg_tool_new(const tg_allocator *alloc, const char *source, size_t source_len, size_t more) {
    tg_arena a;
    tg_arena_init(&a, *alloc);
    /* and room for what restore_moved gives it later: a name, its key, the
     * notes of what cleaning changed */
    size_t later = TG_TEXT_BYTES(TG_NAME_MAX) + TG_TEXT_BYTES(source_len + 1 + TG_NAME_MAX) + 512;
    /* (a refusal is left to the allocations) */
    (void)tg_arena_reserve(&a, sizeof(tg_tool) + TG_TEXT_BYTES(source_len) + more + later);
    tg_tool *t = tg_arena_calloc(&a, 1, sizeof *t);
    if (!t) {
        tg_arena_free(&a);
        return NULL;
    }
    t->arena = a; /* (its arena holds it: allocations go through t->arena from here on) */
    t->source = tg_arena_strndup(&t->arena, source, source_len);
    t->refs = 1;
    if (!t->source) {
        tg_tool_free(t);
        return NULL;
    }
    return t;
}

int tg_tool_set_name(tg_tool *t, const char *name, size_t len) {
    char *n = tg_arena_strndup(&t->arena, name, len);
    if (!n) return -1;
    t->name = n;
    t->name_len = len;
    tg_name_skeleton(n, len, t->skeleton);
    tg_name_fold(n, len, t->folded, TG_NAME_MAX, 0);
    /* the remembered set's key: source, 0x1F, collision key (a skeleton
     * has no 0x1F: the last one splits them) */
    size_t sl = strlen(t->source), kl = strlen(t->skeleton);
    char *k = tg_arena_alloc(&t->arena, sl + kl + 2);
    if (!k) return -1;
    memcpy(k, t->source, sl);
    k[sl] = 0x1F;
    memcpy(k + sl + 1, t->skeleton, kl + 1);
    t->gone_key = k;
    t->gone_key_len = sl + 1 + kl;
    return 0;
}

cJSON *tg_tool_definition_tree(const tg_tool *t, tg_arena *a, size_t max_depth) {
    tg_json_limits lim = tg_json_default_limits();
    lim.max_depth = max_depth; /* (what the descriptor it was written from was read with) */
    lim.allow_duplicate_keys = 1; /* (the module's own text: none) */
    tg_json_error err;
    return tg_json_parse(a, t->definition, t->definition_len, &lim, &err);
}

/* (no options: a remembered tool is never run; it is told against, and
 * moved to a replaced instance as it is) */
tg_tool *tg_tool_record(const tg_tool *t) {
    size_t more = TG_TEXT_BYTES(t->definition_len) + TG_TEXT_BYTES(t->name_len) + TG_TEXT_BYTES(strlen(t->tool_name)) +
                  TG_TEXT_BYTES(t->gone_key_len) + (t->sanitized ? tg_json_clone_size(t->sanitized) : 0);
    tg_tool *g = tg_tool_new(&t->arena.alloc, t->source, strlen(t->source), more);
    if (!g) return NULL;
    g->definition = tg_arena_strndup(&g->arena, t->definition, t->definition_len);
    g->definition_len = t->definition_len;
    g->tool_name = tg_arena_strndup(&g->arena, t->tool_name, strlen(t->tool_name));
    g->sanitized = t->sanitized ? tg_json_clone(&g->arena, t->sanitized) : NULL;
    if (!g->definition || !g->tool_name || (t->sanitized && !g->sanitized) || tg_tool_set_name(g, t->name, t->name_len)) {
        tg_tool_free(g);
        return NULL;
    }
    g->handler_id = t->handler_id;
    memcpy(g->digest, t->digest, sizeof g->digest);
    memcpy(g->schema_bytes, t->schema_bytes, sizeof g->schema_bytes);
    return g;
}

static void flight_release(tg_flight *f) {
    if (f && --f->refs == 0) {
        tg_allocator a = f->alloc;
        tg_free(&a, f, sizeof *f);
    }
}

void tg_tool_share_flight(tg_tool *to, const tg_tool *from) {
    if (!from->flight || to->flight == from->flight) return;
    flight_release(to->flight);
    to->flight = from->flight;
    to->flight->refs++;
}

void tg_tool_free(tg_tool *t) {
    if (t->record) tg_tool_release(t->record);
    flight_release(t->flight);
    if (t->input) tg_schema_free(t->input);
    if (t->output) tg_schema_free(t->output);
    tg_arena a = t->arena;
    tg_arena_free(&a);
}
