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
    }
    return "unknown_status";
}

void tg_limits_default(tg_limits *l) {
    l->memory_bytes = 64u << 20;
    l->json_depth = 256;
    l->args_bytes = 1u << 20;
    l->descriptor_bytes = 1u << 20;
    l->result_bytes = 4u << 20;
    l->error_text_bytes = 4096;
    l->tools = 10000;
    l->pending_calls = 1024;
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
        TG_TAKE(result_bytes); TG_TAKE(error_text_bytes); TG_TAKE(tools); TG_TAKE(pending_calls);
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
    tg_buf_init(&rt->err, rt->alloc, 8192);
    rt->registry = tg_registry_new(&rt->alloc, l.tools);
    rt->pending = tg_pending_new(&rt->alloc, l.pending_calls);
    if (!rt->registry || !rt->pending) {
        tg_runtime_free(rt);
        return NULL;
    }
    return rt;
}

void tg_runtime_free(tg_runtime *rt) {
    if (!rt) return;
    tg_registry_free(rt->registry);
    tg_pending_free(rt->pending);
    tg_arena_free(&rt->call_arena);
    tg_buf_free(&rt->out);
    tg_buf_free(&rt->err);
    rt->budget.fn(rt->budget.ud, rt, sizeof *rt, 0);
}

void tg_rt_begin(tg_runtime *rt) {
    tg_buf_reset(&rt->out);
    tg_buf_reset(&rt->err);
    tg_arena_reset(&rt->call_arena);
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

tg_json_limits tg_rt_json_limits(const tg_runtime *rt, size_t max_bytes) {
    tg_json_limits jl = tg_json_default_limits();
    jl.max_depth = rt->limits.json_depth;
    jl.max_bytes = max_bytes;
    return jl;
}

static tg_status json_status(tg_json_status s) {
    switch (s) {
    case TG_JSON_NOMEM: return TG_ERR_NOMEM;
    case TG_JSON_TOO_LARGE:
    case TG_JSON_DEPTH: return TG_ERR_TOO_LARGE;
    default: return TG_ERR_JSON;
    }
}

tg_status tg_register_tool(tg_runtime *rt, const char *descriptor, size_t len, uint32_t handler_id) {
    tg_rt_begin(rt);
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.descriptor_bytes);
    tg_json_error jerr;
    cJSON *d = tg_json_parse(&rt->call_arena, descriptor, len, &jl, &jerr);
    if (!d) {
        char msg[200];
        snprintf(msg, sizeof msg, "descriptor: %s", jerr.message);
        return tg_rt_fail(rt, json_status(jerr.status), msg, (long long)jerr.offset);
    }
    const tg_tool *tool;
    tg_registry_error rerr;
    switch (tg_registry_add(rt->registry, d, handler_id, &tool, &rerr)) {
    case TG_REG_OK: break;
    case TG_REG_DUPLICATE: return tg_rt_fail(rt, TG_ERR_DUPLICATE_TOOL, rerr.message, -1);
    case TG_REG_FULL: return tg_rt_fail(rt, TG_ERR_LIMIT, rerr.message, -1);
    case TG_REG_NOMEM: return tg_rt_fail(rt, TG_ERR_NOMEM, rerr.message, -1);
    default: return tg_rt_fail(rt, TG_ERR_INVALID_DESCRIPTOR, rerr.message, -1);
    }
    tg_buf_puts(&rt->out, "{\"name\":");
    tg_json_write_string(&rt->out, tool->name, tool->name_len);
    tg_buf_putc(&rt->out, '}');
    if (rt->out.failed) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory writing the output", -1);
    return TG_OK;
}

const char *tg_output(const tg_runtime *rt, size_t *len) {
    if (len) *len = rt->out.len;
    return rt->out.data ? rt->out.data : "";
}

const char *tg_last_error(const tg_runtime *rt, size_t *len) {
    if (len) *len = rt->err.len;
    return rt->err.data ? rt->err.data : "";
}

size_t tg_memory_used(const tg_runtime *rt) { return rt->budget.used + sizeof *rt; }

tg_status tg_check_json(tg_runtime *rt, const char *text, size_t len, int allow_duplicate_keys) {
    tg_rt_begin(rt);
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
    jl.allow_duplicate_keys = allow_duplicate_keys;
    tg_json_error jerr;
    if (tg_json_parse(&rt->call_arena, text, len, &jl, &jerr)) return TG_OK;
    return tg_rt_fail(rt, json_status(jerr.status), jerr.message, (long long)jerr.offset);
}
