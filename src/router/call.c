/* call.c - the call pipeline, top to bottom. Each step is a call into the
 * module that owns it:
 *   1 resolve    registry: name -> tool
 *   2 parse      json: strict, depth- and size-limited, no duplicate keys
 *   3 validate   router/args (schema module once compiled schemas land)
 *   4 dispatch   host.invoke(handler, call id, canonical arguments)
 *   5 complete   result: normalize into a CallToolResult, size caps */
#include "../runtime/runtime_internal.h"

#include <stdio.h>
#include <string.h>

/* A failure the model should see: a CallToolResult in out, the error in err. */
static tg_status call_fail(tg_runtime *rt, tg_status status, const char *text, size_t len, long long offset) {
    tg_buf_reset(&rt->out);
    tg_result_gate_error(&rt->out, tg_status_code(status), text, len);
    char msg[512];
    snprintf(msg, sizeof msg, "%.*s", (int)(len < sizeof msg ? len : sizeof msg - 1), text);
    return tg_rt_fail(rt, status, msg, offset);
}

tg_status tg_call_begin(tg_runtime *rt, const char *name, size_t name_len, const char *args, size_t args_len,
                        uint32_t *call_id) {
    tg_rt_begin(rt);
    if (call_id) *call_id = 0;
    tg_buf msg;
    tg_buf_init(&msg, rt->alloc, 8192);
    char line[300];

    /* 1 resolve */
    const tg_tool *tool = tg_registry_find(rt->registry, name, name_len);
    if (!tool) {
        tg_buf_puts(&msg, "Unknown tool ");
        tg_json_write_string(&msg, name, name_len < 128 ? name_len : 128);
        tg_buf_puts(&msg, ". Call one of the tools you were given.");
        tg_status s = call_fail(rt, TG_ERR_UNKNOWN_TOOL, msg.data, msg.len, -1);
        tg_buf_free(&msg);
        return s;
    }

    /* 2 parse */
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
    tg_json_error jerr;
    cJSON *parsed = tg_json_parse(&rt->call_arena, args, args_len, &jl, &jerr);
    if (!parsed) {
        tg_status st = jerr.status == TG_JSON_NOMEM ? TG_ERR_NOMEM
                       : (jerr.status == TG_JSON_TOO_LARGE || jerr.status == TG_JSON_DEPTH) ? TG_ERR_TOO_LARGE
                                                                                              : TG_ERR_JSON;
        int n = snprintf(line, sizeof line, "Arguments for tool \"%s\" are not valid JSON: %s", tool->name,
                         jerr.message);
        tg_buf_free(&msg);
        return call_fail(rt, st, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, (long long)jerr.offset);
    }

    /* 3 validate */
    if (tg_args_check(tool, parsed, &msg)) {
        tg_buf text;
        tg_buf_init(&text, rt->alloc, 16384);
        tg_buf_printf(&text, "Invalid arguments for tool \"%s\":\n", tool->name);
        tg_buf_append(&text, msg.data, msg.len);
        tg_buf_puts(&text, "Fix the arguments and call the tool again.");
        tg_status s = call_fail(rt, TG_ERR_INVALID_ARGUMENTS, text.data ? text.data : "", text.len, -1);
        tg_buf_free(&text);
        tg_buf_free(&msg);
        return s;
    }
    tg_buf_free(&msg);

    /* 4 dispatch: the handler sees exactly the validated object, re-written canonically */
    tg_buf canon;
    tg_buf_init(&canon, rt->alloc, 0);
    tg_json_write(&canon, parsed);
    if (canon.failed) {
        tg_buf_free(&canon);
        return call_fail(rt, TG_ERR_NOMEM, "out of memory", 13, -1);
    }
    uint32_t id = tg_pending_add(rt->pending, tool);
    if (!id) {
        tg_buf_free(&canon);
        int n = snprintf(line, sizeof line, "Too many calls in flight (limit %zu). Try again later.",
                         rt->limits.pending_calls);
        return call_fail(rt, TG_ERR_LIMIT, line, (size_t)n, -1);
    }
    int accepted = rt->host.invoke ? rt->host.invoke(rt->host.ud, tool->handler_id, id, canon.data, canon.len) : -1;
    tg_buf_free(&canon);
    if (accepted != 0) {
        tg_pending_take(rt->pending, id);
        int n = snprintf(line, sizeof line, "The host could not run tool \"%s\".", tool->name);
        return call_fail(rt, TG_ERR_HOST, line, (size_t)n, -1);
    }
    if (call_id) *call_id = id;
    return TG_PENDING;
}

tg_status tg_call_complete(tg_runtime *rt, uint32_t call_id, const char *result, size_t len, int is_error) {
    tg_rt_begin(rt);
    const tg_tool *tool = tg_pending_take(rt->pending, call_id);
    if (!tool) return tg_rt_fail(rt, TG_ERR_UNKNOWN_CALL, "no pending call with that id", -1);
    char why[200];

    if (is_error) { /* the handler threw: its text, bounded, as an error result */
        size_t keep = len < rt->limits.error_text_bytes ? len : rt->limits.error_text_bytes;
        while (keep > 0 && keep < len && ((unsigned char)result[keep] & 0xC0) == 0x80) keep--; /* whole code points */
        tg_buf text;
        tg_buf_init(&text, rt->alloc, 0);
        tg_buf_printf(&text, "Tool \"%s\" failed: ", tool->name);
        tg_buf_append(&text, result, keep);
        if (keep < len) tg_buf_puts(&text, " [truncated]");
        tg_buf_puts(&rt->out, "{\"content\":[{\"type\":\"text\",\"text\":");
        tg_json_write_string(&rt->out, text.data ? text.data : "", text.len);
        tg_buf_puts(&rt->out, "}],\"isError\":true}");
        tg_buf_free(&text);
        return rt->out.failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
    }

    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.result_bytes);
    tg_json_error jerr;
    cJSON *value = tg_json_parse(&rt->call_arena, result, len, &jl, &jerr);
    if (!value) {
        int n = snprintf(why, sizeof why, "Tool \"%s\" returned an unusable result: %s", tool->name, jerr.message);
        tg_result_gate_error(&rt->out, "invalid_result", why, (size_t)n < sizeof why ? (size_t)n : sizeof why - 1);
        return TG_OK;
    }
    char bad[120];
    if (tg_result_normalize(&rt->out, value, bad, sizeof bad)) {
        tg_buf_reset(&rt->out);
        int n = snprintf(why, sizeof why, "Tool \"%s\" returned a malformed CallToolResult: %s", tool->name, bad);
        tg_result_gate_error(&rt->out, "invalid_result", why, (size_t)n < sizeof why ? (size_t)n : sizeof why - 1);
    }
    if (rt->out.failed) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    return TG_OK;
}
