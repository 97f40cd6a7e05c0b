/* runtime.c - the runtime handle: limits, memory budget, output and error
 * text, and tool registration. */
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

const char *tg_status_code(tg_status s) {
    switch (s) {
    case TG_OK: return "ok";
    case TG_PENDING: return "pending";
    case TG_ERR_NOMEM: return "out_of_memory";
    case TG_ERR_JSON: return "invalid_json";
    case TG_ERR_TOO_LARGE: return "too_large";
    case TG_ERR_INVALID_DESCRIPTOR: return "invalid_descriptor";
    case TG_ERR_DUPLICATE_TOOL: return "duplicate_tool";
    case TG_ERR_UNKNOWN_TOOL: return "unknown_tool";
    case TG_ERR_INVALID_ARGUMENTS: return "invalid_arguments";
    case TG_ERR_UNKNOWN_CALL: return "unknown_call";
    case TG_ERR_HOST: return "host_refused";
    case TG_ERR_LIMIT: return "limit_reached";
    case TG_ERR_INVALID_SCHEMA: return "invalid_schema";
    case TG_ERR_NAME_COLLISION: return "name_collision";
    case TG_ERR_MISSING_CAPABILITY: return "missing_capability";
    case TG_ERR_INVALID_REQUEST: return "invalid_request";
    case TG_ERR_MISSING_CONTEXT: return "missing_context";
    case TG_ERR_UNKNOWN_SNAPSHOT: return "unknown_snapshot";
    case TG_PENDING_APPROVAL: return "pending_approval";
    case TG_OK_TEXT: return "ok";
    case TG_ERR_DENIED: return "denied";
    case TG_ERR_APPROVAL: return "approval_refused";
    case TG_ERR_RATE_LIMITED: return "rate_limited";
    case TG_ERR_INVALID_POLICY: return "invalid_policy";
    case TG_ERR_DIGEST_MISMATCH: return "digest_mismatch";
    }
    return "unknown_status";
}

void tg_limits_default(tg_limits *l) {
    l->memory_bytes = 192u << 20;
    l->json_depth = 256;
    l->args_bytes = 1u << 20;
    l->descriptor_bytes = 1u << 20;
    l->result_bytes = 4u << 20;
    l->error_text_bytes = 4096;
    l->tools = 10000;
    l->pending_calls = 1024;
    l->timeout_ms = 60000;
}

/* The budgeted allocator every module of this runtime allocates through. */
static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    tg_budget *b = ud;
    if (nsize == 0) {
        if (ptr) b->used -= osize;
        return b->fn(b->ud, ptr, osize, 0);
    }
    size_t old = ptr ? osize : 0;
    if (nsize > old && nsize - old > b->limit - b->used) return NULL;
    void *p = b->fn(b->ud, ptr, osize, nsize);
    if (p) b->used = b->used - old + nsize;
    return p;
}

tg_runtime *tg_runtime_new(const tg_limits *limits, const tg_host *host, tg_alloc_hook alloc, void *alloc_ud) {
    tg_limits l;
    tg_limits_default(&l);
    if (limits) {
#define TG_TAKE(f) if (limits->f) l.f = limits->f
        TG_TAKE(memory_bytes); TG_TAKE(json_depth); TG_TAKE(args_bytes); TG_TAKE(descriptor_bytes);
        TG_TAKE(result_bytes); TG_TAKE(error_text_bytes); TG_TAKE(tools); TG_TAKE(pending_calls); TG_TAKE(timeout_ms);
#undef TG_TAKE
    }
    if (!alloc) alloc = tg_alloc_libc;
    if (l.memory_bytes < sizeof(tg_runtime)) return NULL;
    tg_runtime *rt = alloc(alloc_ud, NULL, 0, sizeof *rt);
    if (!rt) return NULL;
    memset(rt, 0, sizeof *rt);
    rt->budget.fn = alloc;
    rt->budget.ud = alloc_ud;
    rt->budget.limit = l.memory_bytes - sizeof *rt;
    rt->alloc.fn = budget_alloc;
    rt->alloc.ud = &rt->budget;
    rt->limits = l;
    if (host) rt->host = *host;
    tg_arena_init(&rt->call_arena, rt->alloc);
    tg_buf_init(&rt->out, rt->alloc, 0);
    tg_buf_init(&rt->lens, rt->alloc, 0);
    tg_buf_init(&rt->codes, rt->alloc, 0);
    tg_buf_init(&rt->err, rt->alloc, 8192);
    tg_arena_init(&rt->cfg_arena, rt->alloc);
    tg_registry_default_config(&rt->reg_cfg);
    rt->reg_cfg.max_tools = l.tools;
    rt->reg_cfg.descriptor_bytes = l.descriptor_bytes; /* (each entry of a batch too) */
    rt->reg_cfg.json_depth = l.json_depth;
    rt->reg_cfg.schema.limits.max_depth = l.json_depth < rt->reg_cfg.schema.limits.max_depth
                                              ? l.json_depth
                                              : rt->reg_cfg.schema.limits.max_depth;
    rt->next_snapshot = 1;
    rt->approval_ttl_ms = 10 * 60 * 1000;
    /* every schema is checked against its dialect's metaschema: each is
     * compiled once, when the first schema of its dialect shows up */
    rt->reg_cfg.schema.metaschema_cache = rt->metaschemas;
    tg_arena_init(&rt->compile_arena, rt->alloc);
    rt->reg_cfg.schema.scratch = &rt->compile_arena;
    rt->registry = tg_registry_new(&rt->alloc, &rt->reg_cfg);
    rt->pending = tg_pending_new(&rt->alloc, l.pending_calls);
    if (!rt->registry || !rt->pending) {
        tg_runtime_free(rt);
        return NULL;
    }
    return rt;
}

void tg_runtime_free(tg_runtime *rt) {
    if (!rt) return;
    tg_pending_free(rt->pending); /* releases the tools of calls in flight */
    for (size_t i = 0; i < rt->snapshots_cap; i++)
        if (rt->snapshots[i].id) tg_toolset_release(rt->snapshots[i].set);
    tg_free(&rt->alloc, rt->snapshots, rt->snapshots_cap * sizeof *rt->snapshots);
    for (size_t i = 0; i < rt->validators_cap; i++)
        if (rt->validators[i]) tg_schema_free(rt->validators[i]);
    tg_free(&rt->alloc, rt->validators, rt->validators_cap * sizeof *rt->validators);
    tg_registry_free(rt->registry);
    for (int d = 0; d < 6; d++)
        if (rt->metaschemas[d]) tg_schema_free(rt->metaschemas[d]);
    tg_policy_free(rt->policy);
    tg_arena_free(&rt->cfg_arena);
    tg_arena_free(&rt->call_arena);
    tg_buf_free(&rt->out);
    tg_buf_free(&rt->lens);
    tg_buf_free(&rt->codes);
    tg_arena_free(&rt->compile_arena);
    tg_buf_free(&rt->err);
    rt->budget.fn(rt->budget.ud, rt, sizeof *rt, 0);
}

void tg_rt_begin(tg_runtime *rt) {
    /* what one call needed past 4 MiB (a whole tools/list's tree, a hostile
     * instance's many long errors) is given back, not kept for good */
    tg_buf_reset_max(&rt->out, 4u << 20);
    tg_buf_reset_max(&rt->lens, 4u << 20);
    tg_buf_reset(&rt->codes); /* (a code's words are few: the buffer is kept; a failed write is forgotten) */
    tg_buf_reset_max(&rt->err, 4u << 20);
    tg_arena_reset_max(&rt->call_arena, 4u << 20);
}

tg_status tg_rt_fail(tg_runtime *rt, tg_status status, const char *message, long long offset) {
    tg_buf_reset(&rt->err);
    tg_buf_puts(&rt->err, "{\"code\":\"");
    tg_buf_puts(&rt->err, tg_status_code(status));
    tg_buf_puts(&rt->err, "\",\"message\":");
    tg_json_write_string(&rt->err, message, strlen(message));
    if (offset >= 0) tg_buf_printf(&rt->err, ",\"offset\":%lld", offset);
    tg_buf_putc(&rt->err, '}');
    return status;
}


tg_status tg_rt_json_status(tg_json_status s) {
    switch (s) {
    case TG_JSON_NOMEM: return TG_ERR_NOMEM;
    case TG_JSON_TOO_LARGE:
    case TG_JSON_DEPTH: return TG_ERR_TOO_LARGE;
    default: return TG_ERR_JSON;
    }
}

/* Status of a registry rejection code. */
static tg_status rejection_status(const char *code) {
    static const struct { const char *code; tg_status st; } MAP[] = {
        {"duplicate_tool", TG_ERR_DUPLICATE_TOOL}, {"name_collision", TG_ERR_NAME_COLLISION},
        {"invalid_schema", TG_ERR_INVALID_SCHEMA}, {"missing_capability", TG_ERR_MISSING_CAPABILITY},
        {"limit_reached", TG_ERR_LIMIT},           {"too_large", TG_ERR_TOO_LARGE},
        {"out_of_memory", TG_ERR_NOMEM},           {"invalid_options", TG_ERR_INVALID_REQUEST},
    };
    for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++)
        if (strcmp(MAP[i].code, code) == 0) return MAP[i].st;
    return TG_ERR_INVALID_DESCRIPTOR;
}

tg_status tg_rt_parse(tg_runtime *rt, const char *what, const char *text, size_t len, size_t max, cJSON **out) {
    return tg_rt_parse_nested(rt, what, text, len, max, 0, out);
}

tg_status tg_rt_parse_nested(tg_runtime *rt, const char *what, const char *text, size_t len, size_t max, size_t levels,
                             cJSON **out) {
    tg_json_limits jl = tg_rt_json_limits(rt, max);
    jl.max_depth = jl.max_depth <= SIZE_MAX - levels ? jl.max_depth + levels : SIZE_MAX;
    tg_json_error jerr;
    *out = tg_json_parse(&rt->call_arena, text, len, &jl, &jerr);
    return *out ? TG_OK : tg_rt_json_fail(rt, what, &jerr);
}

tg_status tg_rt_json_fail(tg_runtime *rt, const char *what, const tg_json_error *jerr) {
    char msg[220];
    snprintf(msg, sizeof msg, "%s: %s", what, jerr->message);
    return tg_rt_fail(rt, tg_rt_json_status(jerr->status), msg, (long long)jerr->offset);
}

tg_status tg_rt_apply(tg_runtime *rt, const tg_batch *b, int single) {
    tg_buf res;
    tg_buf_init(&res, rt->alloc, 0);
    if (tg_registry_apply(rt->registry, b, &res)) {
        tg_buf_free(&res);
        return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory while registering", -1);
    }
    tg_status st = TG_OK;
    tg_json_error jerr;
    cJSON *doc = tg_json_parse(&rt->call_arena, res.data, res.len, NULL, &jerr);
    if (!doc) st = tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory while registering", -1);
    else if (single) {
        cJSON *rej = tg_json_getz(doc, "rejected");
        cJSON *reg = tg_json_getz(doc, "registered");
        if (rej && rej->child) {
            cJSON *code = tg_json_getz(rej->child, "code"), *msg = tg_json_getz(rej->child, "message");
            st = tg_rt_fail(rt, rejection_status(code->valuestring), msg->valuestring, -1);
        } else if (reg && reg->child) {
            tg_json_write(&rt->out, reg->child);
        }
    } else {
        tg_buf_append(&rt->out, res.data, res.len);
    }
    tg_buf_free(&res);
    if (st == TG_OK && rt->out.failed) st = tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory writing the output", -1);
    return st;
}

tg_status tg_register_tool(tg_runtime *rt, const char *descriptor, size_t len, const char *options, size_t options_len,
                           uint32_t handler_id) {
    tg_rt_begin(rt);
    cJSON *d, *o = NULL;
    tg_status st = tg_rt_parse(rt, "descriptor", descriptor, len, rt->limits.descriptor_bytes, &d);
    if (st == TG_OK && options_len) st = tg_rt_parse(rt, "options", options, options_len, 65536, &o);
    if (st != TG_OK) return st;
    tg_tool_entry e = {d, o, handler_id};
    tg_batch b = {"", 0, "{tool}", 1, 0, &e, 1, NULL};
    return tg_rt_apply(rt, &b, 1);
}

const char *tg_rt_default_template(size_t source_len) { return source_len ? "mcp__{source}__{tool}" : "{tool}"; }

/* The model-visible name, or (key) its collision key, to rt->out. */
static tg_status model_name(tg_runtime *rt, const char *source, size_t source_len, const char *tool, size_t tool_len,
                            const char *tmpl, int key) {
    tg_rt_begin(rt);
    char name[TG_NAME_MAX + 1], skeleton[TG_NAME_MAX + 1];
    size_t n = tg_name_map(tmpl ? tmpl : tg_rt_default_template(source_len), source, source_len, tool, tool_len, name);
    if (key) tg_buf_append(&rt->out, skeleton, tg_name_skeleton(name, n, skeleton));
    else tg_buf_append(&rt->out, name, n);
    return rt->out.failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
}

tg_status tg_model_name(tg_runtime *rt, const char *source, size_t source_len, const char *tool, size_t tool_len,
                        const char *tmpl) {
    return model_name(rt, source, source_len, tool, tool_len, tmpl, 0);
}

tg_status tg_model_name_key(tg_runtime *rt, const char *source, size_t source_len, const char *tool, size_t tool_len,
                            const char *tmpl) {
    return model_name(rt, source, source_len, tool, tool_len, tmpl, 1);
}

tg_status tg_accept_change(tg_runtime *rt, const char *name, size_t len, const char *digest, size_t digest_len) {
    tg_rt_begin(rt);
    char why[200];
    const tg_tool *held = tg_registry_held(rt->registry, name, len);
    /* the host accepts what it reviewed: a change listed since is not it */
    if (held && digest_len && !(digest_len == strlen(held->digest) && memcmp(digest, held->digest, digest_len) == 0))
        return tg_rt_fail(rt, TG_ERR_DIGEST_MISMATCH,
                          "the definition held now is not the one reviewed (its digest differs): review the change again", -1);
    const char *src = held ? held->source : "";
    tg_buf_puts(&rt->out, "{\"source\":"); /* (the host journals the accept with its source's imports) */
    tg_json_write_string(&rt->out, src, strlen(src));
    tg_buf_printf(&rt->out, ",\"handler\":%u}", held ? (unsigned)held->handler_id : 0u);
    int rc = tg_registry_accept(rt->registry, name, len, why, sizeof why);
    if (rc == 0) return rt->out.failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
    return tg_rt_fail(rt, rc == -1 ? TG_ERR_UNKNOWN_TOOL : rc == -2 ? TG_ERR_NAME_COLLISION : rc == -4 ? TG_ERR_LIMIT : TG_ERR_NOMEM,
                      why, -1);
}

tg_status tg_remove_source(tg_runtime *rt, const char *source, size_t len) {
    tg_rt_begin(rt);
    if (memchr(source, 0, len)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "a source name cannot hold U+0000", -1);
    size_t n = tg_registry_remove_source(rt->registry, source, len);
    tg_buf_printf(&rt->out, "{\"removed\":%zu}", n);
    return TG_OK;
}

tg_status tg_track_sources(tg_runtime *rt, int on) {
    tg_rt_begin(rt);
    rt->tracking = on != 0;
    tg_registry_track(rt->registry, rt->tracking);
    return TG_OK;
}

tg_status tg_source_changes(tg_runtime *rt) {
    tg_rt_begin(rt);
    if (tg_registry_take_changes(rt->registry, &rt->out))
        return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory: the changes could not all be logged", -1);
    return TG_OK;
}

tg_status tg_restore_source(tg_runtime *rt, const char *source, size_t len, const char *state, size_t state_len,
                            int append) {
    tg_rt_begin(rt);
    /* a tool's state nests its descriptor two levels down (the list, the
     * state object): a descriptor registered at the depth limit comes back */
    cJSON *tools;
    tg_status st = tg_rt_parse_nested(rt, "a source's tools", state, state_len, SIZE_MAX, 2, &tools);
    if (st != TG_OK) return st;
    if (!cJSON_IsArray(tools)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "a source's tools must be an array", -1);
    size_t skipped, done;
    (void)tg_registry_source_restore(rt->registry, source, len, tools, append, &skipped, &done);
    tg_buf_printf(&rt->out, "{\"skipped\":%zu,\"done\":%zu}", skipped, done);
    return rt->out.failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
}

double tg_registry_epoch_of(tg_runtime *rt) { return (double)tg_registry_epoch(rt->registry); }

void tg_restore_counters(tg_runtime *rt, double epoch, double snapshot, double call) {
    if (epoch >= 0 && epoch < 9007199254740992.0) tg_registry_epoch_at_least(rt->registry, (uint64_t)epoch + 1);
    if (snapshot >= rt->next_snapshot && snapshot < UINT32_MAX) rt->next_snapshot = (uint32_t)snapshot + 1;
    if (call >= 1 && call <= UINT32_MAX) tg_pending_resume_after(rt->pending, (uint32_t)call);
}

tg_status tg_configure(tg_runtime *rt, const char *config, size_t len) {
    tg_rt_begin(rt);
    cJSON *c;
    tg_status st = tg_rt_parse(rt, "config", config, len, 1 << 20, &c);
    if (st != TG_OK) return st;
    if (!cJSON_IsObject(c)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "config must be an object", -1);
    tg_registry_config cfg = rt->reg_cfg;
    const cJSON *v;
    if ((v = tg_json_getz(c, "capabilities"))) {
        if (!cJSON_IsArray(v)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"capabilities\" must be an array", -1);
        for (const cJSON *x = v->child; x; x = x->next)
            if (!cJSON_IsString(x))
                return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"capabilities\" must be an array of strings", -1);
        cfg.capabilities = v;
    }
#define TG_SIZE(key, field)                                                                               \
    if ((v = tg_json_getz(c, key))) {                                                                     \
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e9)                             \
            return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"" key "\" must be a positive number", -1); \
        cfg.field = (size_t)v->valuedouble;                                                               \
    }
    TG_SIZE("descriptionBytes", description_bytes)
    TG_SIZE("schemaBytes", schema_bytes)
    TG_SIZE("toolsPerSource", max_tools_per_source)
#undef TG_SIZE
    if ((v = tg_json_getz(c, "formats"))) {
        if (!tg_json_string_is(v, "annotate") && !tg_json_string_is(v, "assert"))
            return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"formats\" must be \"annotate\" or \"assert\"", -1);
        cfg.schema.format_assert = tg_json_string_is(v, "assert");
    }
    /* (held changes and remembered definitions too: a registry made afresh
     * would forget what waits for review) */
    if (!tg_registry_empty(rt->registry))
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST,
                          "configure the runtime before registering tools (or once every source is removed)", -1);
    tg_registry *nr = tg_registry_new(&rt->alloc, &cfg); /* copies capabilities */
    if (!nr) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    /* its epochs go on from the old one's: a cursor of the old list is refused */
    tg_registry_epoch_at_least(nr, tg_registry_epoch(rt->registry) + 1);
    tg_registry_track(nr, rt->tracking);
    tg_registry_free(rt->registry);
    rt->registry = nr;
    cfg.capabilities = NULL; /* the registry keeps its own copy */
    rt->reg_cfg = cfg;
    return TG_OK;
}

tg_status tg_snapshot(tg_runtime *rt, uint32_t *id) {
    tg_rt_begin(rt);
    *id = 0;
    tg_toolset *set = tg_registry_current(rt->registry);
    if (!set) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    size_t slot = rt->snapshots_cap;
    for (size_t i = 0; i < rt->snapshots_cap; i++)
        if (!rt->snapshots[i].id) {
            slot = i;
            break;
        }
    if (slot == rt->snapshots_cap) {
        size_t ncap = rt->snapshots_cap ? rt->snapshots_cap * 2 : 8;
        if (ncap > 4096) return tg_rt_fail(rt, TG_ERR_LIMIT, "too many pinned snapshots (4096); release some", -1);
        tg_snapshot_slot *ns = tg_realloc(&rt->alloc, rt->snapshots, rt->snapshots_cap * sizeof *ns, ncap * sizeof *ns);
        if (!ns) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
        memset(ns + rt->snapshots_cap, 0, (ncap - rt->snapshots_cap) * sizeof *ns);
        rt->snapshots = ns;
        rt->snapshots_cap = ncap;
    }
    tg_toolset_retain(set);
    if (!rt->next_snapshot) rt->next_snapshot = 1;
    rt->snapshots[slot].id = rt->next_snapshot++;
    rt->snapshots[slot].set = set;
    rt->n_snapshots++;
    *id = rt->snapshots[slot].id;
    tg_buf_printf(&rt->out, "{\"snapshot\":%u,\"epoch\":%llu,\"tools\":%zu}", *id,
                  (unsigned long long)tg_toolset_epoch(set), tg_toolset_count(set));
    return TG_OK;
}

tg_status tg_snapshot_release(tg_runtime *rt, uint32_t id) {
    tg_rt_begin(rt);
    for (size_t i = 0; i < rt->snapshots_cap; i++)
        if (id && rt->snapshots[i].id == id) {
            tg_toolset_release(rt->snapshots[i].set);
            rt->snapshots[i].id = 0;
            rt->snapshots[i].set = NULL;
            rt->n_snapshots--;
            return TG_OK;
        }
    return tg_rt_fail(rt, TG_ERR_UNKNOWN_SNAPSHOT, "no pinned snapshot with that id", -1);
}

tg_toolset *tg_rt_toolset(tg_runtime *rt, uint32_t id, tg_status *status) {
    *status = TG_OK;
    if (id == 0) {
        tg_toolset *s = tg_registry_current(rt->registry);
        if (!s) *status = tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
        return s;
    }
    for (size_t i = 0; i < rt->snapshots_cap; i++)
        if (rt->snapshots[i].id == id) return rt->snapshots[i].set;
    *status = tg_rt_fail(rt, TG_ERR_UNKNOWN_SNAPSHOT, "no pinned snapshot with that id", -1);
    return NULL;
}

const tg_tool *tg_rt_pinned(tg_runtime *rt, const tg_toolset *set, const tg_tool *t) {
    tg_toolset *live = tg_registry_current(rt->registry);
    if (!live) {
        tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
        return NULL;
    }
    if (live == set) return t;
    const tg_tool *now = tg_toolset_find(live, t->name, t->name_len);
    if (!now || now == t) return t;
    if (strcmp(now->digest, t->digest) == 0) return now;
    tg_rt_fail(rt, TG_ERR_UNKNOWN_SNAPSHOT,
               "the tool was redefined after this snapshot was pinned: list the tools again (pin a new snapshot)", -1);
    return NULL;
}

const char *tg_output(const tg_runtime *rt, size_t *len) {
    if (len) *len = rt->out.len;
    return rt->out.data ? rt->out.data : "";
}

const uint32_t *tg_output_lengths(const tg_runtime *rt, size_t *n) {
    if (n) *n = rt->lens.len / sizeof(uint32_t);
    return rt->lens.len ? (const uint32_t *)(const void *)rt->lens.data : NULL;
}

const uint32_t *tg_output_codes(const tg_runtime *rt, size_t *n) {
    if (n) *n = rt->codes.len / sizeof(uint32_t);
    return rt->codes.len ? (const uint32_t *)(const void *)rt->codes.data : NULL;
}

const char *tg_last_error(const tg_runtime *rt, size_t *len) {
    if (len) *len = rt->err.len;
    return rt->err.data ? rt->err.data : "";
}

void tg_trim(tg_runtime *rt) {
    tg_arena_free(&rt->call_arena);
    tg_arena_free(&rt->compile_arena);
    tg_buf_free(&rt->out);
    tg_buf_free(&rt->lens);
    tg_buf_free(&rt->codes);
    tg_buf_free(&rt->err);
}

size_t tg_memory_used(const tg_runtime *rt) { return rt->budget.used + sizeof *rt; }

tg_status tg_check_json(tg_runtime *rt, const char *text, size_t len, int allow_duplicate_keys) {
    tg_rt_begin(rt);
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
    jl.allow_duplicate_keys = allow_duplicate_keys;
    tg_json_error jerr;
    if (tg_json_parse(&rt->call_arena, text, len, &jl, &jerr)) return TG_OK;
    return tg_rt_fail(rt, tg_rt_json_status(jerr.status), jerr.message, (long long)jerr.offset);
}

void tg_set_audit(tg_runtime *rt, void (*audit)(void *ud, const char *event, size_t len)) { rt->host.audit = audit; }

int tg_call_spent_token(const tg_runtime *rt) { return rt->token_spent; }
