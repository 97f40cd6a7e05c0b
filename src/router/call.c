/* call.c - the call pipeline, top to bottom. Each step is a call into the
 * module that owns it:
 *   0 context    the host's call context: snapshot, principal, trusted values
 *   1 resolve    registry: name -> tool in the call's snapshot
 *   2 parse      json: strict, depth- and size-limited, no duplicate keys
 *                (before authorizing: argument conditions need the tree)
 *   3 authorize  policy: allow | ask | deny (see authorize.c); a deny
 *                refuses before any schema error is told
 *   4 prepare    router/args: context parameters refused/injected, then the
 *                compiled inputSchema (schema module)
 *   5 ask        an ask becomes a pending approval, for valid arguments only
 *   6 dispatch   the limits of calls in flight, then an approval spent or
 *                an allowed call's rate limits and budgets charged, then
 *                host.invoke(handler, call id, canonical arguments, deadline)
 *   7 complete   deadline, outputSchema vs structuredContent,
 *                CallToolResult shape, size caps
 *   8 audit      one event per decision and outcome (audit.c) */
#include "../runtime/runtime_internal.h"
#include "audit.h"
#include "../base/utf8.h"

#include <stdio.h>
#include <string.h>

#define MAX_ARG_ERRORS 20

static double now(tg_runtime *rt) { return rt->host.now_ms ? rt->host.now_ms(rt->host.ud) : 0; }

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

/* Emits the decision event of a call that ends at begin (refused). */
static tg_status refused(tg_runtime *rt, tg_audit_event *ev, tg_status st) {
    ev->outcome = tg_status_code(st);
    tg_audit_emit(rt, ev);
    return st;
}

/* refused() for a failure recorded by tg_rt_fail (an invalid context, an
 * unknown snapshot): its message becomes the caller's error result too, so
 * every refusal at begin leaves a result to read. */
static tg_status refused_recorded(tg_runtime *rt, tg_audit_event *ev, tg_status st) {
    size_t n;
    const char *e = tg_last_error(rt, &n);
    tg_json_error jerr;
    const cJSON *j = tg_json_parse(&rt->call_arena, e, n, NULL, &jerr);
    const cJSON *m = j ? tg_json_getz(j, "message") : NULL;
    const char *text = cJSON_IsString(m) ? m->valuestring : tg_status_code(st);
    call_fail(rt, st, text, strlen(text), -1);
    return refused(rt, ev, st);
}

/* Step 4 on the tree: context parameters refused / injected, then the
 * inputSchema; on failure rt's output holds the model's error result. */
static tg_status prepare(tg_runtime *rt, const tg_tool *tool, cJSON *parsed, const tg_call_request *req,
                         int known_invalid, tg_audit_event *ev) {
    tg_status st;
    tg_buf msg;
    tg_buf_init(&msg, rt->alloc, 16384);
    tg_args_status as = tg_args_prepare(&rt->call_arena, tool, parsed, req->context, known_invalid, MAX_ARG_ERRORS, &msg);
    ev->validation = as == TG_ARGS_OK ? "ok" : "invalid";
    if (as != TG_ARGS_OK) {
        tg_buf text;
        tg_buf_init(&text, rt->alloc, 20000);
        if (as == TG_ARGS_MISSING_CONTEXT) {
            tg_buf_printf(&text, "Tool \"%s\" cannot run: ", tool->name);
            tg_buf_append(&text, msg.data, msg.len);
            st = TG_ERR_MISSING_CONTEXT;
        } else if (as == TG_ARGS_NOMEM) {
            tg_buf_puts(&text, "out of memory");
            st = TG_ERR_NOMEM;
        } else {
            tg_buf_printf(&text, "Invalid arguments for tool \"%s\":\n", tool->name);
            tg_buf_append(&text, msg.data, msg.len);
            tg_buf_puts(&text, "Fix the arguments and call the tool again.");
            st = as == TG_ARGS_LIMIT ? TG_ERR_TOO_LARGE : TG_ERR_INVALID_ARGUMENTS;
        }
        st = call_fail(rt, st, text.data ? text.data : "out of memory", text.len, -1);
        tg_buf_free(&text);
        tg_buf_free(&msg);
        return st;
    }
    tg_buf_free(&msg);
    return TG_OK;
}

tg_status tg_call_begin(tg_runtime *rt, const char *name, size_t name_len, const char *args, size_t args_len,
                        const char *ctx_text, size_t ctx_len, uint32_t *call_id) {
    tg_rt_begin(rt);
    if (call_id) *call_id = 0;
    rt->token_spent = 0;
    double started = now(rt);
    tg_json_error jerr;
    tg_call_request req;
    memset(&req, 0, sizeof req);
    tg_audit_event ev = {"decision", 0, NULL, name, name_len, NULL, NULL, NULL, "skipped", NULL, -1, NULL};

    /* 0 the host's context: snapshot, principal, mode, trusted values */
    if (ctx_len) {
        tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
        const cJSON *ctx = tg_json_parse(&rt->call_arena, ctx_text, ctx_len, &jl, &jerr);
        if (!ctx) {
            tg_rt_fail(rt, tg_rt_json_status(jerr.status), jerr.message, (long long)jerr.offset);
            return refused_recorded(rt, &ev, TG_ERR_INVALID_REQUEST);
        }
        if (tg_call_request_read(rt, ctx, TG_REQUEST_CALL, &req)) return refused_recorded(rt, &ev, TG_ERR_INVALID_REQUEST);
    }
    ev.principal = req.principal;

    /* 1 resolve */
    tg_status st;
    tg_toolset *set = tg_rt_toolset(rt, req.snapshot, &st);
    if (!set) return refused_recorded(rt, &ev, st);
    const tg_tool *tool = tg_toolset_find(set, name, name_len);
    if (tool && req.snapshot && !(tool = tg_rt_pinned(rt, set, tool))) return refused_recorded(rt, &ev, TG_ERR_UNKNOWN_SNAPSHOT);
    if (!tool) {
        char shown[140];
        tg_buf q;
        tg_buf_init(&q, rt->alloc, sizeof shown - 1);
        tg_json_write_string(&q, name, name_len < 100 ? name_len : 100);
        snprintf(shown, sizeof shown, "%s", q.data ? q.data : "\"\"");
        tg_buf_free(&q);
        return refused(rt, &ev, call_failf(rt, TG_ERR_UNKNOWN_TOOL, -1,
                                           "Unknown tool %s. Call one of the tools you were given.%s", shown, ""));
    }
    ev.tool = tool;

    /* 2 parse (before authorizing: argument conditions need the arguments).
     * When nothing before dispatch needs the tree (context parameters, an
     * approval to match, strict-mode nulls or audited arguments), the
     * one-pass check validates the text as it reads it and the handler gets
     * that very text; argument conditions that can match the tool get the
     * members they read, parsed alone. An invalid or undecided text takes
     * the tree path, which explains it (without deciding again what the one
     * pass refused). */
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
    cJSON *parsed = NULL;
    size_t lead = 0;
    while (lead < args_len && (args[lead] == ' ' || args[lead] == '\n' || args[lead] == '\r' || args[lead] == '\t')) lead++;
    /* (only a rule that can match this tool makes its arguments matter to the policy) */
    tg_tool_facts facts;
    int policy_reads = tg_policy_uses_args(rt->policy) && (facts = tg_tool_facts_of(tool), tg_policy_reads_args(rt->policy, &facts));
    int one_pass = lead < args_len && args[lead] == '{' && !req.strict_nulls && !tool->opts.context && !req.approval &&
                           !req.approval_token && !tool->opts.audit_args
                       ? tg_schema_check_text(tool->input, args, args_len, &jl, &rt->call_arena, NULL)
                       : -1;
    int checked = one_pass == 1;
    /* a text checked in one pass that the policy's conditions read: the
     * members they read, parsed (the rest never becomes a tree); else the
     * whole tree, as for a text the one pass did not accept */
    const cJSON *members = NULL;
    if (checked && policy_reads && !(members = tg_args_members(&rt->call_arena, args, args_len, rt->policy, &jl)))
        checked = 0, one_pass = -1;
    if (!checked) {
        parsed = tg_json_parse(&rt->call_arena, args, args_len, &jl, &jerr);
        if (!parsed)
            return refused(rt, &ev, call_failf(rt, tg_rt_json_status(jerr.status), (long long)jerr.offset,
                                               "Arguments for tool \"%s\" are not valid JSON: %s", tool->name, jerr.message));
        /* a model that saw the OpenAI strict rendering sends null for optional properties */
        if (req.strict_nulls && cJSON_IsObject(parsed)) tg_strict_strip_nulls(tool, parsed);
    }

    /* 3 authorize: a deny comes first (a denied call learns nothing of its
     * arguments' errors), a spent rate limit or budget among them; an ask
     * waits for step 5, and an approval is spent, or the limits charged,
     * only at step 6, once nothing else can refuse the call */
    tg_authz_outcome az;
    /* argument conditions judge what the handler will get: context
     * parameters in, a model's value for one out */
    const cJSON *judged = checked ? members : parsed;
    if (parsed && tool->opts.context && policy_reads &&
        !(judged = tg_args_judged(&rt->call_arena, tool, parsed, req.context)))
        return refused(rt, &ev, call_fail(rt, TG_ERR_NOMEM, "out of memory", 13, -1));
    st = tg_call_authorize(rt, tool, judged, &req, started, &az);
    ev.decision = az.decision;
    ev.rule = az.rule;
    if (st != TG_OK) return refused(rt, &ev, st); /* denied, or rate limited */
    /* what an approval shows and is bound to: the arguments without the
     * tool's context parameters (taken before step 4 puts the context's in) */
    const cJSON *shown = parsed;
    if ((az.ask || az.redeem) && parsed && !(shown = tg_args_shown(&rt->call_arena, tool, parsed)))
        return refused(rt, &ev, call_fail(rt, TG_ERR_NOMEM, "out of memory", 13, -1));

    /* 4 prepare: context parameters, then the full schema (done already
     * for a checked text) */
    ev.validation = "ok";
    if (!checked) {
        tg_status pst = prepare(rt, tool, parsed, &req, one_pass == 0, &ev);
        if (pst != TG_OK) return refused(rt, &ev, pst);
    }
    /* 5 ask: a pending approval only for arguments that can run */
    if (az.ask) return refused(rt, &ev, tg_call_ask(rt, tool, shown, args, args_len, &req, started, &az));

    /* 6 dispatch: the handler sees exactly the validated object: the
     * caller's own text when the tree is that text's (checked in one pass,
     * or parsed and nothing put in or taken out: no context parameters, no
     * strict-mode nulls), which parses to the same object; else the tree
     * written canonically. The limits of calls in flight refuse before an
     * approval is spent or a rate limit charged ("Try again later" costs
     * nothing) */
    if (tool->opts.concurrency && tool->flight->n >= tool->opts.concurrency) {
        char lim[32];
        snprintf(lim, sizeof lim, "%zu", tool->opts.concurrency);
        return refused(rt, &ev, call_failf(rt, TG_ERR_LIMIT, -1,
                                           "Tool \"%s\" already has %s calls in flight. Try again later.", tool->name, lim));
    }
    if (tg_pending_full(rt->pending)) {
        char lim[32];
        snprintf(lim, sizeof lim, "%zu", rt->limits.pending_calls);
        return refused(rt, &ev, call_failf(rt, TG_ERR_LIMIT, -1, "Too many calls in flight (limit %s). Try again later.%s", lim, ""));
    }
    int as_given = checked || (args[lead] == '{' && !req.strict_nulls && !tool->opts.context);
    tg_buf canon;
    tg_buf_init(&canon, rt->alloc, 0);
    if (!as_given) tg_json_write(&canon, parsed);
    if (canon.failed) {
        tg_buf_free(&canon);
        return refused(rt, &ev, call_fail(rt, TG_ERR_NOMEM, "out of memory", 13, -1));
    }
    st = az.redeem ? tg_call_redeem(rt, tool, shown, &req, started, &az)
         : az.charge ? tg_call_charge(rt, tool, &req, started, &az)
                     : TG_OK;
    if (st != TG_OK) {
        tg_buf_free(&canon);
        ev.decision = az.decision;
        return refused(rt, &ev, st);
    }
    tg_call_info info;
    memset(&info, 0, sizeof info);
    info.tool = tool;
    info.started_ms = started;
    info.deadline_ms = started + (tool->opts.timeout_ms > 0 ? tool->opts.timeout_ms : (double)rt->limits.timeout_ms);
    if (req.principal) { /* no printf on the hot path */
        size_t pl = strlen(req.principal);
        if (pl >= sizeof info.principal) pl = sizeof info.principal - 1;
        memcpy(info.principal, req.principal, pl);
        info.principal[pl] = '\0';
    }
    uint32_t id = tg_pending_add(rt->pending, &info); /* (a free slot: checked above) */
    if (!id) {
        tg_buf_free(&canon);
        char lim[32];
        snprintf(lim, sizeof lim, "%zu", rt->limits.pending_calls);
        return refused(rt, &ev, call_failf(rt, TG_ERR_LIMIT, -1, "Too many calls in flight (limit %s). Try again later.%s", lim, ""));
    }
    ev.call_id = id;
    ev.args = parsed;
    int accepted = as_given ? rt->host.invoke(rt->host.ud, tool->handler_id, id, args + lead, args_len - lead, info.deadline_ms)
                            : rt->host.invoke(rt->host.ud, tool->handler_id, id, canon.data, canon.len, info.deadline_ms);
    tg_buf_free(&canon);
    if (accepted != 0) {
        tg_call_info gone;
        if (tg_pending_take(rt->pending, id, &gone) == 0) tg_tool_release(gone.tool);
        return refused(rt, &ev, call_failf(rt, TG_ERR_HOST, -1, "The host could not run tool \"%s\".%s", tool->name, ""));
    }
    ev.outcome = "dispatched";
    tg_audit_emit(rt, &ev);
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

/* A result over limits.result_bytes, whichever side saw it. */
static void too_large_result(tg_runtime *rt, const tg_tool *tool) {
    char line[240];
    int n = snprintf(line, sizeof line, "Tool \"%s\" returned a result larger than the limit of %zu bytes.", tool->name,
                     rt->limits.result_bytes);
    tg_result_gate_error(&rt->out, "too_large", line, (size_t)n);
}

/* Shapes the handler's outcome into rt->out; returns the audit outcome. */
static const char *complete(tg_runtime *rt, const tg_tool *tool, const char *result, size_t len, int is_error) {
    char why[300];
    if (is_error) {
        error_result(rt, tool, result, len);
        return "error";
    }
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.result_bytes);
    tg_json_error jerr;
    cJSON *value = tg_json_parse(&rt->call_arena, result, len, &jl, &jerr);
    if (!value && jerr.status == TG_JSON_TOO_LARGE && len > rt->limits.result_bytes) {
        too_large_result(rt, tool);
        return "too_large";
    }
    if (!value && jerr.status == TG_JSON_NOMEM) { /* the module's memory, not the handler's fault */
        int n = snprintf(why, sizeof why, "Tool \"%s\" returned a result the module had no memory to read", tool->name);
        tg_result_gate_error(&rt->out, "out_of_memory", why, (size_t)n < sizeof why ? (size_t)n : sizeof why - 1);
        return "out_of_memory";
    }
    if (!value) {
        int n = snprintf(why, sizeof why, "Tool \"%s\" returned an unusable result: %s", tool->name, jerr.message);
        tg_result_gate_error(&rt->out, "invalid_result", why, (size_t)n < sizeof why ? (size_t)n : sizeof why - 1);
        return "invalid_result";
    }
    /* structured results are checked against the tool's outputSchema */
    const cJSON *content = tg_result_content(value);
    const cJSON *structured = content                                                     ? tg_json_getz(value, "structuredContent")
                              : cJSON_IsObject(value) || (tool->output && !cJSON_IsString(value)) ? value
                                                                                                  : NULL;
    const cJSON *is_err = content ? tg_json_getz(value, "isError") : NULL;
    if (tool->output && !cJSON_IsTrue(is_err)) {
        tg_buf msg;
        tg_buf_init(&msg, rt->alloc, 8192);
        tg_args_status os = structured ? tg_check_schema(&rt->call_arena, tool->output, structured, MAX_ARG_ERRORS, NULL, &msg)
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
            return "invalid_result";
        }
        tg_buf_free(&msg);
    }
    char bad[120] = "";
    if (tg_result_normalize(&rt->out, value, tool->output != NULL, bad, sizeof bad)) {
        tg_buf_reset(&rt->out);
        /* no reason given: the result could not be written (memory) */
        const char *code = bad[0] ? "invalid_result" : "out_of_memory";
        int n = bad[0] ? snprintf(why, sizeof why, "Tool \"%s\" returned a malformed CallToolResult: %s", tool->name, bad)
                       : snprintf(why, sizeof why, "Tool \"%s\" returned a result the module had no memory to write", tool->name);
        tg_result_gate_error(&rt->out, code, why, (size_t)n < sizeof why ? (size_t)n : sizeof why - 1);
        return code;
    }
    /* the cap is on what the caller receives: a structured result is also
     * written out as text (MCP's fallback for older clients), which escapes
     * it again, so a value just under the cap would come back at 2-3 times */
    if (rt->out.len > rt->limits.result_bytes + 64) {
        tg_buf_reset(&rt->out);
        too_large_result(rt, tool);
        return "too_large";
    }
    return cJSON_IsTrue(is_err) ? "error" : "ok";
}

static void outcome_event(tg_runtime *rt, uint32_t id, const tg_call_info *info, const char *outcome, double t) {
    tg_audit_event ev = {"outcome", id, info->tool, NULL, 0, info->principal, NULL, NULL, NULL, outcome,
                         t - info->started_ms, NULL};
    tg_audit_emit(rt, &ev);
}

/* A plain-text result the host builds itself when it can be (*plain set,
 * rt->out left empty): no outputSchema to satisfy, valid UTF-8, within the
 * cap on the result's JSON text. Otherwise the text goes through complete()
 * as the JSON string it stands for. Returns the audit outcome. */
static const char *complete_text(tg_runtime *rt, const tg_tool *tool, const char *text, size_t len, int *plain) {
    if (!tg_utf8_valid((const unsigned char *)text, len)) { /* (never passed on with U+FFFD in it: garbage) */
        char why[300];
        int n = snprintf(why, sizeof why, "Tool \"%s\" returned an unusable result: text that is not valid UTF-8", tool->name);
        tg_result_gate_error(&rt->out, "invalid_result", why, (size_t)n < sizeof why ? (size_t)n : sizeof why - 1);
        return "invalid_result";
    }
    /* the host has the text and builds that result itself: only its size
     * as JSON is needed here (writing a 500 KB file's text took ~1 ms) */
    if (!tool->output && tg_json_string_size(text, len) <= rt->limits.result_bytes) {
        *plain = 1;
        return "ok";
    }
    tg_buf j;
    tg_buf_init(&j, rt->alloc, 0);
    tg_json_write_string(&j, text, len);
    const char *outcome = j.failed ? (tg_result_gate_error(&rt->out, "out_of_memory", "out of memory", 13), "invalid_result")
                                   : complete(rt, tool, j.data, j.len, 0);
    tg_buf_free(&j);
    return outcome;
}

enum { FINISH_RESULT, FINISH_ERROR, FINISH_TEXT, FINISH_CANCEL, FINISH_TIMEOUT, FINISH_TOO_LARGE };

/* Takes call_id off the pending table and shapes its end into rt->out: a
 * passed deadline first, then the handler's outcome (kind). */
/* running: the handler has not stopped (an abandoned call): its slots stay
 * taken until tg_call_settled. */
static tg_status finish(tg_runtime *rt, uint32_t call_id, const char *result, size_t len, int kind, int running) {
    tg_rt_begin(rt);
    tg_call_info info;
    if (running ? tg_pending_answer(rt->pending, call_id, &info) : tg_pending_take(rt->pending, call_id, &info))
        return tg_rt_fail(rt, TG_ERR_UNKNOWN_CALL, "no pending call with that id", -1);
    double t = now(rt);
    const char *outcome;
    int plain = 0;
    if (kind == FINISH_TIMEOUT || (kind != FINISH_CANCEL && t > info.deadline_ms)) {
        /* the deadline passed first: a late result is discarded */
        char line[200];
        int n = snprintf(line, sizeof line, "Tool \"%s\" did not finish before its deadline.", info.tool->name);
        tg_result_gate_error(&rt->out, "timeout", line, (size_t)n);
        outcome = "timeout";
    } else if (kind == FINISH_TOO_LARGE) { /* the host did not copy it in: its size alone is over the cap */
        too_large_result(rt, info.tool);
        outcome = "too_large";
    } else if (kind == FINISH_CANCEL) {
        char line[200];
        int n = snprintf(line, sizeof line, "The call to tool \"%s\" was cancelled.", info.tool->name);
        tg_result_gate_error(&rt->out, "cancelled", line, (size_t)n);
        outcome = "cancelled";
    } else if (kind == FINISH_TEXT) {
        outcome = complete_text(rt, info.tool, result, len, &plain);
    } else {
        outcome = complete(rt, info.tool, result, len, kind == FINISH_ERROR);
    }
    outcome_event(rt, call_id, &info, outcome, t);
    if (!running) tg_tool_release(info.tool); /* (else the slot keeps it) */
    if (rt->out.failed) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    return plain ? TG_OK_TEXT : TG_OK;
}

tg_status tg_call_complete(tg_runtime *rt, uint32_t call_id, const char *result, size_t len, int is_error) {
    return finish(rt, call_id, result, len, is_error ? FINISH_ERROR : FINISH_RESULT, 0);
}

tg_status tg_call_complete_text(tg_runtime *rt, uint32_t call_id, const char *text, size_t len) {
    return finish(rt, call_id, text, len, FINISH_TEXT, 0);
}

static int cancel_kind(const char *reason) {
    return !reason                            ? FINISH_CANCEL
           : strcmp(reason, "timeout") == 0   ? FINISH_TIMEOUT
           : strcmp(reason, "too_large") == 0 ? FINISH_TOO_LARGE
                                              : FINISH_CANCEL;
}

tg_status tg_call_cancel(tg_runtime *rt, uint32_t call_id, const char *reason) {
    return finish(rt, call_id, NULL, 0, cancel_kind(reason), 0);
}

tg_status tg_call_abandon(tg_runtime *rt, uint32_t call_id, const char *reason) {
    return finish(rt, call_id, NULL, 0, cancel_kind(reason), 1);
}

tg_status tg_call_settled(tg_runtime *rt, uint32_t call_id) {
    tg_rt_begin(rt);
    if (tg_pending_settle(rt->pending, call_id))
        return tg_rt_fail(rt, TG_ERR_UNKNOWN_CALL, "no abandoned call with that id", -1);
    return TG_OK;
}
