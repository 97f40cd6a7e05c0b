/* call.c - the call pipeline, top to bottom. Each step is a call into the
 * module that owns it:
 *   1 resolve    registry: name -> tool in the call's snapshot
 *   2 parse      json: strict, depth- and size-limited, no duplicate keys
 *   3 prepare    router/args: context parameters refused/injected, then the
 *                compiled inputSchema (schema module)
 *   4 dispatch   host.invoke(handler, call id, canonical arguments)
 *   5 complete   result: outputSchema vs structuredContent, CallToolResult
 *                shape, size caps */
#include "../runtime/runtime_internal.h"

#include <stdio.h>
#include <string.h>

#define MAX_ARG_ERRORS 20

/* A failure the model should see: a CallToolResult in out, the error in err. */
static tg_status call_fail(tg_runtime *rt, tg_status status, const char *text, size_t len, long long offset) {
    tg_buf_reset(&rt->out);
    tg_result_gate_error(&rt->out, tg_status_code(status), text, len);
    char msg[512];
    snprintf(msg, sizeof msg, "%.*s", (int)(len < sizeof msg ? len : sizeof msg - 1), text);
    return tg_rt_fail(rt, status, msg, offset);
}

static tg_status call_failf(tg_runtime *rt, tg_status status, long long offset, const char *fmt, const char *a,
                            const char *b) {
    char line[400];
    int n = snprintf(line, sizeof line, fmt, a, b);
    return call_fail(rt, status, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, offset);
}

tg_status tg_call_begin(tg_runtime *rt, const char *name, size_t name_len, const char *args, size_t args_len,
                        const char *ctx_text, size_t ctx_len, uint32_t *call_id) {
    tg_rt_begin(rt);
    if (call_id) *call_id = 0;
    tg_json_error jerr;

    /* 0 the host's context: which snapshot, which trusted values */
    const cJSON *ctx = NULL, *context = NULL;
    uint32_t snapshot = 0;
    int strict_nulls = 0;
    if (ctx_len) {
        tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
        ctx = tg_json_parse(&rt->call_arena, ctx_text, ctx_len, &jl, &jerr);
        if (!cJSON_IsObject(ctx)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "the call context must be a JSON object", -1);
        const cJSON *s = tg_json_getz(ctx, "snapshot");
        if (cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble <= 4294967295.0) snapshot = (uint32_t)s->valuedouble;
        context = tg_json_getz(ctx, "context");
        const cJSON *f = tg_json_getz(ctx, "format");
        strict_nulls = cJSON_IsString(f) && strcmp(f->valuestring, "openai-strict") == 0;
        if (context && !cJSON_IsObject(context))
            return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"context\" must be a JSON object", -1);
    }

    /* 1 resolve */
    tg_status st;
    tg_toolset *set = tg_rt_toolset(rt, snapshot, &st);
    if (!set) return st;
    const tg_tool *tool = tg_toolset_find(set, name, name_len);
    if (!tool) {
        char shown[140];
        tg_buf q;
        tg_buf_init(&q, rt->alloc, sizeof shown - 1);
        tg_json_write_string(&q, name, name_len < 100 ? name_len : 100);
        snprintf(shown, sizeof shown, "%s", q.data ? q.data : "\"\"");
        tg_buf_free(&q);
        return call_failf(rt, TG_ERR_UNKNOWN_TOOL, -1, "Unknown tool %s. Call one of the tools you were given.%s",
                          shown, "");
    }

    /* 2 parse */
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
    cJSON *parsed = tg_json_parse(&rt->call_arena, args, args_len, &jl, &jerr);
    if (!parsed)
        return call_failf(rt, tg_rt_json_status(jerr.status), (long long)jerr.offset,
                          "Arguments for tool \"%s\" are not valid JSON: %s", tool->name, jerr.message);

    /* 2b a model that saw the OpenAI strict rendering sends null for optional properties */
    if (strict_nulls && cJSON_IsObject(parsed) && tg_strict_strip_nulls(rt, set, tool, parsed))
        return call_fail(rt, TG_ERR_NOMEM, "out of memory", 13, -1);

    /* 3 prepare: context parameters, then the full schema */
    tg_buf msg;
    tg_buf_init(&msg, rt->alloc, 16384);
    tg_args_status as = tg_args_prepare(&rt->call_arena, tool, parsed, context, MAX_ARG_ERRORS, &msg);
    if (as != TG_ARGS_OK) {
        tg_buf text;
        tg_buf_init(&text, rt->alloc, 20000);
        tg_status s;
        if (as == TG_ARGS_MISSING_CONTEXT) {
            tg_buf_printf(&text, "Tool \"%s\" cannot run: ", tool->name);
            tg_buf_append(&text, msg.data, msg.len);
            s = TG_ERR_MISSING_CONTEXT;
        } else if (as == TG_ARGS_NOMEM) {
            tg_buf_puts(&text, "out of memory");
            s = TG_ERR_NOMEM;
        } else {
            tg_buf_printf(&text, "Invalid arguments for tool \"%s\":\n", tool->name);
            tg_buf_append(&text, msg.data, msg.len);
            tg_buf_puts(&text, "Fix the arguments and call the tool again.");
            s = as == TG_ARGS_LIMIT ? TG_ERR_TOO_LARGE : TG_ERR_INVALID_ARGUMENTS;
        }
        s = call_fail(rt, s, text.data ? text.data : "out of memory", text.len, -1);
        tg_buf_free(&text);
        tg_buf_free(&msg);
        return s;
    }
    tg_buf_free(&msg);

    /* 4 dispatch: the handler sees exactly the validated object, written canonically */
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
        char lim[32];
        snprintf(lim, sizeof lim, "%zu", rt->limits.pending_calls);
        return call_failf(rt, TG_ERR_LIMIT, -1, "Too many calls in flight (limit %s). Try again later.%s", lim, "");
    }
    int accepted = rt->host.invoke ? rt->host.invoke(rt->host.ud, tool->handler_id, id, canon.data, canon.len) : -1;
    tg_buf_free(&canon);
    if (accepted != 0) {
        tg_tool_release(tg_pending_take(rt->pending, id));
        return call_failf(rt, TG_ERR_HOST, -1, "The host could not run tool \"%s\".%s", tool->name, "");
    }
    if (call_id) *call_id = id;
    return TG_PENDING;
}

/* The handler threw: its text, bounded to whole code points. */
static void error_result(tg_runtime *rt, const tg_tool *tool, const char *text, size_t len) {
    size_t keep = len < rt->limits.error_text_bytes ? len : rt->limits.error_text_bytes;
    while (keep > 0 && keep < len && ((unsigned char)text[keep] & 0xC0) == 0x80) keep--;
    tg_buf t;
    tg_buf_init(&t, rt->alloc, 0);
    tg_buf_printf(&t, "Tool \"%s\" failed: ", tool->name);
    tg_buf_append(&t, text, keep);
    if (keep < len) tg_buf_puts(&t, " [truncated]");
    tg_buf_puts(&rt->out, "{\"content\":[{\"type\":\"text\",\"text\":");
    tg_json_write_string(&rt->out, t.data ? t.data : "", t.len);
    tg_buf_puts(&rt->out, "}],\"isError\":true}");
    tg_buf_free(&t);
}

static tg_status complete(tg_runtime *rt, const tg_tool *tool, const char *result, size_t len, int is_error) {
    char why[300];
    if (is_error) {
        error_result(rt, tool, result, len);
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
    /* structured results are checked against the tool's outputSchema */
    const cJSON *content = cJSON_IsObject(value) ? tg_json_getz(value, "content") : NULL;
    const cJSON *structured = content ? tg_json_getz(value, "structuredContent") : (cJSON_IsObject(value) ? value : NULL);
    const cJSON *is_err = content ? tg_json_getz(value, "isError") : NULL;
    if (tool->output && !cJSON_IsTrue(is_err)) {
        tg_buf msg;
        tg_buf_init(&msg, rt->alloc, 8192);
        tg_args_status os = structured ? tg_check_schema(&rt->call_arena, tool->output, structured, MAX_ARG_ERRORS, &msg)
                                       : TG_ARGS_INVALID;
        if (!structured) tg_buf_puts(&msg, "- (root): the tool declares an outputSchema but returned no structuredContent\n");
        if (os != TG_ARGS_OK) {
            tg_buf text;
            tg_buf_init(&text, rt->alloc, 12000);
            tg_buf_printf(&text, "Tool \"%s\" returned a result that does not match its outputSchema:\n", tool->name);
            tg_buf_append(&text, msg.data, msg.len);
            tg_result_gate_error(&rt->out, "invalid_result", text.data ? text.data : "", text.len);
            tg_buf_free(&text);
            tg_buf_free(&msg);
            return rt->out.failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
        }
        tg_buf_free(&msg);
    }
    char bad[120];
    if (tg_result_normalize(&rt->out, value, bad, sizeof bad)) {
        tg_buf_reset(&rt->out);
        int n = snprintf(why, sizeof why, "Tool \"%s\" returned a malformed CallToolResult: %s", tool->name, bad);
        tg_result_gate_error(&rt->out, "invalid_result", why, (size_t)n < sizeof why ? (size_t)n : sizeof why - 1);
    }
    return rt->out.failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
}

tg_status tg_call_complete(tg_runtime *rt, uint32_t call_id, const char *result, size_t len, int is_error) {
    tg_rt_begin(rt);
    const tg_tool *tool = tg_pending_take(rt->pending, call_id);
    if (!tool) return tg_rt_fail(rt, TG_ERR_UNKNOWN_CALL, "no pending call with that id", -1);
    tg_status s = complete(rt, tool, result, len, is_error);
    tg_tool_release(tool);
    return s;
}
