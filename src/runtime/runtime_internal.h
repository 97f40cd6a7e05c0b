/* runtime_internal.h - the runtime handle's layout, shared by the files that
 * implement toolgate.h (src/runtime, src/router). Like Lua's lstate.h: the
 * one struct all state hangs off. Modules below it (json, registry, schema,
 * regex) never see it; they get an allocator and their own handles. */
#ifndef TG_RUNTIME_INTERNAL_H
#define TG_RUNTIME_INTERNAL_H

#include "toolgate.h"
#include "../base/arena.h"
#include "../base/buf.h"
#include "../registry/registry.h"
#include "../router/router.h"
#include "../policy/policy.h"

typedef struct tg_budget {
    tg_alloc_hook fn;
    void *ud;
    size_t used, limit;
} tg_budget;

typedef struct tg_snapshot_slot {
    uint32_t id; /* 0: free */
    tg_toolset *set;
} tg_snapshot_slot;

struct tg_runtime {
    int token_spent;    /* the last tg_call_begin redeemed an approval token */
    tg_budget budget;
    tg_allocator alloc; /* allocates through budget */
    tg_limits limits;
    tg_host host;
    tg_registry *registry;
    tg_registry_config reg_cfg;
    tg_arena cfg_arena;          /* what tg_configure keeps (capabilities) */
    tg_snapshot_slot *snapshots; /* pinned sets */
    size_t n_snapshots, snapshots_cap;
    uint32_t next_snapshot;
    int tracking; /* tg_track_sources: the registry logs its changes */
    tg_policy *policy;        /* NULL: every registered tool is allowed */
    unsigned char approval_key[1024];
    size_t approval_key_len;  /* 0: no approval tokens */
    double approval_ttl_ms;   /* how long a pending approval lives */
    tg_schema *metaschemas[6]; /* by tg_dialect, compiled on first use (tg_schema_options.metaschema_cache) */
    tg_schema **validators; /* tg_compile_schema: id = index + 1 */
    size_t validators_cap;
    tg_pending *pending;
    tg_arena call_arena; /* reset at the start of every API call */
    tg_arena compile_arena; /* the schema compiler's working memory, one chunk kept */
    tg_buf out;          /* tg_output */
    tg_buf lens;         /* tg_output_lengths (tg_validate_records) */
    tg_buf codes;        /* tg_output_codes (tg_validate_first) */
    tg_buf err;          /* tg_last_error */
};

/* Records a failure in rt->err ({"code","message"[,"offset"]}) and returns status. */
tg_status tg_rt_fail(tg_runtime *rt, tg_status status, const char *message, long long offset);
/* Starts an API call: clears output and error, resets the call arena. */
void tg_rt_begin(tg_runtime *rt);
/* The set a call or listing sees: the pinned snapshot `id`, or the current
 * set when id is 0. NULL with rt->err set when unknown or out of memory. */
tg_toolset *tg_rt_toolset(tg_runtime *rt, uint32_t id, tg_status *status);
/* A tool found in toolset set, as a call, decision or listing through it
 * must see it. Outside the live set (a pinned snapshot): the live tool of
 * that name when its definition is the same, so host options changed since
 * (needsApproval, tenant, privileged, ...) hold at once; the snapshot's own
 * when no live tool has the name; NULL, with TG_ERR_UNKNOWN_SNAPSHOT
 * recorded, when the live tool's definition differs (the snapshot's copy
 * is stale: the session lists the tools again). */
const tg_tool *tg_rt_pinned(tg_runtime *rt, const tg_toolset *set, const tg_tool *t);
/* Parses one input of the API (what: its name in messages) into the call
 * arena under max bytes and the runtime's depth; on failure records the
 * error (with offset) and returns its status. */
tg_status tg_rt_parse(tg_runtime *rt, const char *what, const char *text, size_t len, size_t max, cJSON **out);
/* tg_rt_parse for an input that nests its parts `levels` deeper than the
 * runtime's depth counts them (a tool's state wraps its descriptor). */
tg_status tg_rt_parse_nested(tg_runtime *rt, const char *what, const char *text, size_t len, size_t max, size_t levels,
                             cJSON **out);
/* Applies a batch (tg_registry_apply) and writes its result to rt->out;
 * single: one host tool, whose rejection becomes the status. */
tg_status tg_rt_apply(tg_runtime *rt, const tg_batch *b, int single);
/* The name template of a source without one of its own: imported tools
 * "mcp__{source}__{tool}", the host's own (source "") the bare name. */
const char *tg_rt_default_template(size_t source_len);
/* Records the reader's refusal of input `what` (its message after "what: ",
 * its offset) and returns its status. */
tg_status tg_rt_json_fail(tg_runtime *rt, const char *what, const tg_json_error *jerr);
/* Maps a json reader status to the API's. */
tg_status tg_rt_json_status(tg_json_status s);
/* JSON limits for one kind of input. */
static inline tg_json_limits tg_rt_json_limits(const tg_runtime *rt, size_t max_bytes) {
    tg_json_limits jl = {max_bytes, rt->limits.json_depth, 0}; /* duplicates refused */
    return jl;
}

#endif
