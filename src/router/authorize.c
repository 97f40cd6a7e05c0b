/* authorize.c - the host's call context and the policy's part in a call:
 * the decision (step 3 of call.c), an ask turned into a pending approval
 * once the arguments are valid (step 5), an approval spent, or an allowed
 * call's rate limits and budgets charged, once nothing else refuses the
 * call (step 6). */
#include "../runtime/runtime_internal.h"
#include "../base/str.h"

#include <stdio.h>
#include <string.h>

/* A name of the call's context (principal, tenant, session, source): absent
 * or null, or a string of 1-128 bytes without control characters (policy.md),
 * so what the policy compares as C text is all that was sent: "admin\u0000x"
 * must never be read as "admin". 0, or -1 with the error set. */
static int name_of(tg_runtime *rt, const cJSON *ctx, const char *key, const char **out) {
    const cJSON *v = tg_json_getz(ctx, key);
    char msg[120];
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return 0;
    if (cJSON_IsString(v) && tg_context_name_ok(v->valuestring, tg_json_strlen(v->valuestring))) {
        *out = v->valuestring;
        return 0;
    }
    snprintf(msg, sizeof msg, "\"%s\" must be a string of 1-128 bytes without control characters", key);
    tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, msg, -1);
    return -1;
}

/* An optional string (mode, format, approval): absent, null or a string
 * without U+0000. */
static int text_of(tg_runtime *rt, const cJSON *ctx, const char *key, const char **out) {
    const cJSON *v = tg_json_getz(ctx, key);
    char msg[120];
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return 0;
    if (cJSON_IsString(v) && strlen(v->valuestring) == tg_json_strlen(v->valuestring)) {
        *out = v->valuestring;
        return 0;
    }
    snprintf(msg, sizeof msg, "\"%s\" must be a string without U+0000", key);
    tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, msg, -1);
    return -1;
}

/* The members each request may have (include/toolgate.h). */
static const char *const CALL_KEYS[] = {"principal", "mode", "scheduler", "source", "tenant", "session", "context",
                                        "snapshot", "format", "approval", "approvalToken", NULL};
static const char *const AUTHORIZE_KEYS[] = {"tool", "args", "principal", "mode", "scheduler", "source", "tenant",
                                             "session", "context", "snapshot", "explain", NULL};
static const char *const LIST_KEYS[] = {"format", "snapshot", "cursor", "limit", "filter", "principal", "mode",
                                        "scheduler", "source", "tenant", "session", NULL};

/* A member the request does not take is refused, never ignored: a host's
 * "schedular": true or "Mode": "plan" read as "not given" would lift a
 * scheduler block or plan mode, as a misspelled tool option would leave
 * the tool unguarded. 0, or -1 with the error set, naming the key. */
static int known_keys(tg_runtime *rt, const cJSON *ctx, tg_request_kind kind) {
    const char *const *keys = kind == TG_REQUEST_CALL ? CALL_KEYS : kind == TG_REQUEST_AUTHORIZE ? AUTHORIZE_KEYS : LIST_KEYS;
    for (const cJSON *m = ctx->child; m; m = m->next) {
        size_t k = 0;
        while (keys[k] && !tg_json_key_is(m, keys[k])) k++;
        if (keys[k]) continue;
        tg_buf msg;
        tg_buf_init(&msg, rt->alloc, 0);
        tg_buf_puts(&msg, kind == TG_REQUEST_CALL ? "unknown context key " : "unknown request key ");
        size_t kl = tg_json_strlen(m->string);
        tg_json_write_string(&msg, m->string, kl < 64 ? kl : 64); /* (as JSON: the key may hold any byte) */
        tg_buf_puts(&msg, " (the keys are ");
        for (k = 0; keys[k]; k++) {
            if (k) tg_buf_puts(&msg, ", ");
            tg_buf_puts(&msg, keys[k]);
        }
        tg_buf_putc(&msg, ')');
        tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, msg.data ? msg.data : "unknown context key", -1);
        tg_buf_free(&msg);
        return -1;
    }
    return 0;
}

int tg_call_request_read(struct tg_runtime *rt, const cJSON *ctx, tg_request_kind kind, tg_call_request *req) {
    if (!cJSON_IsObject(ctx)) {
        tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "the call context must be a JSON object", -1);
        return -1;
    }
    if (known_keys(rt, ctx, kind)) return -1;
    /* a snapshot id of the wrong type is refused, never read as "none": the
     * session would run the live tool set instead of the one it pinned */
    const cJSON *s = tg_json_getz(ctx, "snapshot");
    if (s && !cJSON_IsNull(s)) {
        if (!cJSON_IsNumber(s) || !(s->valuedouble >= 1 && s->valuedouble <= 4294967295.0) ||
            s->valuedouble != (double)(uint32_t)s->valuedouble) {
            tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"snapshot\" must be a snapshot id (an integer from snapshot())", -1);
            return -1;
        }
        req->snapshot = (uint32_t)s->valuedouble;
    }
    req->context = tg_json_getz(ctx, "context");
    if (req->context && !cJSON_IsObject(req->context)) {
        tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"context\" must be a JSON object", -1);
        return -1;
    }
    const char *f;
    /* a value of the wrong type is refused, never read as "not given": a
     * scheduler of 1 or a mode of ["plan"] would otherwise lift a block */
    if (text_of(rt, ctx, "format", &f) || text_of(rt, ctx, "mode", &req->mode) ||
        text_of(rt, ctx, "approval", &req->approval) || name_of(rt, ctx, "principal", &req->principal) ||
        name_of(rt, ctx, "source", &req->source) || name_of(rt, ctx, "tenant", &req->tenant) ||
        name_of(rt, ctx, "session", &req->session))
        return -1;
    req->strict_nulls = f && strcmp(f, "openai-strict") == 0;
    const cJSON *sch = tg_json_getz(ctx, "scheduler");
    if (sch && !cJSON_IsBool(sch) && !cJSON_IsNull(sch)) {
        tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"scheduler\" must be true or false", -1);
        return -1;
    }
    req->scheduler = cJSON_IsTrue(sch);
    const cJSON *tok = tg_json_getz(ctx, "approvalToken");
    if (tok && !cJSON_IsNull(tok) && !cJSON_IsString(tok)) {
        tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"approvalToken\" must be a string", -1);
        return -1;
    }
    if (cJSON_IsString(tok)) {
        req->approval_token = tok->valuestring;
        req->approval_token_len = tg_json_strlen(tok->valuestring);
    }
    return 0;
}

const char *tg_no_policy_refusal(const tg_tool *tool, const tg_call_request *req, const char **rule) {
    /* (a tool's tenant scope holds with or without a policy: as tg_call_authorize) */
    if (tool->opts.tenant && !(req->tenant && strcmp(req->tenant, tool->opts.tenant) == 0)) {
        *rule = "tenant";
        return "the tool belongs to another tenant";
    }
    if (tool->opts.needs_approval) {
        *rule = "tool:needs_approval";
        return "the host marks it as needing a person's approval, and no policy is set to ask one (set a policy first)";
    }
    if (req->mode && strcmp(req->mode, "plan") == 0 && !tool->opts.read_only) {
        *rule = "plan";
        return "plan mode allows only tools the host marked read-only";
    }
    if (req->mode && strcmp(req->mode, "plan") != 0 && strcmp(req->mode, "default") != 0 &&
        strcmp(req->mode, "acceptEdits") != 0 && strcmp(req->mode, "bypassPermissions") != 0) {
        *rule = "mode"; /* as with a policy: "Plan" or "plan " must not read as the default mode */
        return "unknown permission mode (default, acceptEdits, bypassPermissions, plan)";
    }
    return NULL;
}

tg_tool_facts tg_tool_facts_of(const tg_tool *t) {
    tg_tool_facts f = {t->name, t->name_len, t->source, t->opts.read_only, t->opts.edit, t->opts.privileged,
                       t->opts.needs_approval, t->opts.tenant, t->digest, NULL, NULL};
    /* the registry's folds are the policy's for a name it folds whole and
     * without dots (a model-visible name: at most 64 bytes of [A-Za-z0-9_-]) */
    if (t->name_len <= TG_NAME_MAX && !memchr(t->name, '.', t->name_len)) {
        f.fold_chars = t->folded;
        f.fold_pairs = t->skeleton;
    }
    return f;
}

static tg_authz_request request_of(const tg_call_request *req, const cJSON *args, double now_ms) {
    tg_authz_request r = {req->principal, req->mode, req->scheduler, req->source, req->tenant, req->session,
                          args, now_ms, 0};
    return r;
}

/* Writes an error result for the model and records the error. */
static tg_status refuse(tg_runtime *rt, tg_status st, const tg_tool *tool, const char *why) {
    char text[600];
    int n = snprintf(text, sizeof text, "%s \"%s\": %s",
                     st == TG_ERR_RATE_LIMITED ? "Rate limit reached for tool"
                     : st == TG_ERR_APPROVAL   ? "The approval does not allow this call to tool"
                                               : "Permission denied for tool",
                     tool->name, why);
    tg_buf_reset(&rt->out);
    tg_result_gate_error(&rt->out, tg_status_code(st), text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    return tg_rt_fail(rt, st, text, -1);
}

/* What an approval is bound to: the digest of the tool's definition (a
 * tool redefined since the ask is not the call a person approved), a line
 * feed, the arguments' canonical JSON (which holds no line feed), and for a
 * tool with context parameters a line feed and the digest of the context
 * values they take (ctx_hex, tg_args_context_digest): arguments a person
 * approved for tenant A are not a call for tenant B. */
static void bound_bytes(tg_buf *b, const tg_tool *tool, const cJSON *args, const char *ctx_hex) {
    tg_buf_append(b, tool->digest, sizeof tool->digest - 1);
    tg_buf_putc(b, '\n');
    tg_json_write(b, args);
    if (ctx_hex[0]) {
        tg_buf_putc(b, '\n');
        tg_buf_append(b, ctx_hex, 64);
    }
}

/* The policy denied (res): outcome recorded, refused as rate_limited when a
 * rate limit or budget said no, else denied. */
static tg_status refuse_denied(struct tg_runtime *rt, tg_authz_outcome *out, const tg_tool *tool,
                               const tg_authz_result *res) {
    int limited = strncmp(res->rule, "rate:", 5) == 0 || strncmp(res->rule, "budget:", 7) == 0;
    out->decision = "deny";
    tg_strcopy(out->rule, sizeof out->rule, res->rule);
    return refuse(rt, limited ? TG_ERR_RATE_LIMITED : TG_ERR_DENIED, tool, res->reason);
}

tg_status tg_call_authorize(struct tg_runtime *rt, const tg_tool *tool, const cJSON *judged,
                            const tg_call_request *req, double now_ms, tg_authz_outcome *out) {
    out->decision = "allow";
    out->rule[0] = '\0';
    out->reason[0] = '\0';
    out->ask = out->redeem = out->charge = 0;
    /* tenant scope holds with or without a policy */
    if (tool->opts.tenant && !(req->tenant && strcmp(req->tenant, tool->opts.tenant) == 0)) {
        out->decision = "deny";
        tg_strcopy(out->rule, sizeof out->rule, "tenant");
        return refuse(rt, TG_ERR_DENIED, tool, "the tool belongs to another tenant");
    }
    if (!rt->policy) {
        const char *rule, *why = tg_no_policy_refusal(tool, req, &rule);
        if (why) {
            out->decision = "deny";
            tg_strcopy(out->rule, sizeof out->rule, rule);
            return refuse(rt, TG_ERR_DENIED, tool, why);
        }
        tg_strcopy(out->rule, sizeof out->rule, "no_policy");
        return TG_OK;
    }
    tg_tool_facts facts = tg_tool_facts_of(tool);

    /* an approved call comes back with its approval: exactly that call, once */
    if (req->approval || req->approval_token) {
        /* an approval answers an ask; it never lifts a deny of the policy in
         * force now (one set since the ask, perhaps): decided first, without
         * charging limits, and the approval is left unspent */
        tg_authz_request now_req = request_of(req, judged, now_ms);
        tg_authz_result now_res;
        now_req.dry_run = 1;
        if (tg_policy_authorize(rt->policy, &facts, &now_req, &now_res, NULL) == TG_DENY)
            return refuse_denied(rt, out, tool, &now_res);
        /* an approved call counts against rate limits and budgets like any
         * other: checked here, before the approval is spent (so it can be
         * used again once there is room); spent and charged by
         * tg_call_redeem once nothing else can refuse the call */
        if (tg_policy_limits(rt->policy, &facts, &now_req, &now_res) == TG_DENY)
            return refuse_denied(rt, out, tool, &now_res);
        tg_strcopy(out->rule, sizeof out->rule, "approval");
        out->redeem = 1;
        return TG_OK;
    }

    /* decided with the rate limits and budgets as they stand (a call over
     * one is refused here, before its arguments are looked at) but charged
     * only by tg_call_charge, once the call is dispatched: a call refused
     * for its arguments, or told to try again later, spends nothing (a
     * model fixing its arguments does not use up its limit) */
    tg_authz_request ar = request_of(req, judged, now_ms);
    ar.dry_run = 1;
    tg_authz_result res;
    tg_decision d = tg_policy_authorize(rt->policy, &facts, &ar, &res, NULL);
    out->decision = tg_decision_name(d);
    tg_strcopy(out->rule, sizeof out->rule, res.rule);
    if (d == TG_ALLOW) {
        out->charge = tg_policy_has_limits(rt->policy);
        return TG_OK;
    }
    if (d == TG_DENY) return refuse_denied(rt, out, tool, &res);
    /* ask: a person is asked only once the arguments are known to be valid
     * (tg_call_ask, after they are prepared) */
    tg_strcopy(out->reason, sizeof out->reason, res.reason);
    out->ask = 1;
    return TG_OK;
}

tg_status tg_call_charge(struct tg_runtime *rt, const tg_tool *tool, const tg_call_request *req, double now_ms,
                         tg_authz_outcome *out) {
    tg_tool_facts facts = tg_tool_facts_of(tool);
    tg_authz_request ar = request_of(req, NULL, now_ms);
    tg_authz_result res;
    if (tg_policy_limits(rt->policy, &facts, &ar, &res) == TG_DENY) /* (a full state map) */
        return refuse_denied(rt, out, tool, &res);
    return TG_OK;
}

tg_status tg_call_redeem(struct tg_runtime *rt, const tg_tool *tool, const cJSON *shown, const tg_call_request *req,
                         double now_ms, tg_authz_outcome *out) {
    char why[300];
    tg_buf canon;
    tg_buf_init(&canon, rt->alloc, 0);
    char ctx_hex[65];
    int ctx_ok = tg_args_context_digest(tool, req->context, &rt->alloc, ctx_hex) >= 0;
    if (shown && ctx_ok) bound_bytes(&canon, tool, shown, ctx_hex); /* (always a tree: an approval turns the one pass off) */
    int ok;
    if (canon.failed || !shown || !ctx_ok) ok = 0, snprintf(why, sizeof why, "out of memory");
    else if (req->approval)
        ok = tg_approval_consume(rt->policy, req->approval, tool->name, tool->name_len, canon.data, canon.len,
                                 req->principal, req->session, now_ms, why, sizeof why);
    else
        ok = rt->approval_key_len &&
             tg_approval_token_verify(rt->policy, rt->approval_key, rt->approval_key_len, req->approval_token,
                                      req->approval_token_len, tool->name, tool->name_len, canon.data, canon.len,
                                      req->principal ? req->principal : "", req->session ? req->session : "",
                                      now_ms, why, sizeof why); /* (absent is "": never "any") */
    if (!ok && req->approval_token && !rt->approval_key_len) snprintf(why, sizeof why, "no approval key is set");
    tg_buf_free(&canon);
    if (!ok) {
        out->decision = "deny";
        tg_strcopy(out->rule, sizeof out->rule, "approval");
        return refuse(rt, TG_ERR_APPROVAL, tool, why);
    }
    if (req->approval_token) rt->token_spent = 1; /* (its nonce is in the used set now) */
    /* a person approved it; deny rules decided before the ask, and an
     * approval is bound to this tool, these arguments (and context values), this principal */
    return tg_call_charge(rt, tool, req, now_ms, out);
}

tg_status tg_call_ask(struct tg_runtime *rt, const tg_tool *tool, const cJSON *shown, const char *text,
                      size_t text_len, const tg_call_request *req, double now_ms, tg_authz_outcome *out) {
    tg_tool_facts facts = tg_tool_facts_of(tool);
    tg_authz_request ar = request_of(req, shown, now_ms);
    /* a pending approval bound to this tool and these exact arguments
     * (parsed here when the one-pass check let the call skip the tree) */
    if (!shown) {
        tg_json_limits jl = tg_rt_json_limits(rt, 0);
        tg_json_error jerr;
        if (!(shown = tg_json_parse(&rt->call_arena, text, text_len, &jl, &jerr)))
            return refuse(rt, TG_ERR_DENIED, tool, "approval needed, but the arguments could not be read again");
    }
    tg_buf canon;
    tg_buf_init(&canon, rt->alloc, 0);
    char ctx_hex[65];
    int ctx_ok = tg_args_context_digest(tool, req->context, &rt->alloc, ctx_hex) >= 0;
    if (ctx_ok) bound_bytes(&canon, tool, shown, ctx_hex);
    unsigned char nonce[16] = {0};
    if (rt->host.random) rt->host.random(rt->host.ud, nonce, sizeof nonce);
    char id[40];
    double expires = now_ms + rt->approval_ttl_ms;
    if (!ctx_ok || canon.failed ||
        tg_approval_create(rt->policy, &facts, &ar, canon.data, canon.len, expires, rt->host.random ? nonce : NULL, id)) {
        tg_buf_free(&canon);
        return refuse(rt, TG_ERR_DENIED, tool, "approval needed, but no approval could be recorded (too many pending: this principal's share, max_approvals_per_principal, or the whole table)");
    }
    tg_buf *o = &rt->out;
    tg_buf_reset(o);
    tg_buf_puts(o, "{\"status\":\"pending_approval\",\"approvalId\":\"");
    tg_buf_puts(o, id);
    tg_buf_puts(o, "\",\"tool\":");
    tg_json_write_string(o, tool->name, tool->name_len);
    /* canon: the definition's digest, '\n', the arguments' canonical text
     * (then '\n' and the context digest, for a tool with context parameters) */
    size_t ctx_len = ctx_hex[0] ? 65 : 0;
    const char *argtext = canon.data ? canon.data + sizeof tool->digest : "";
    size_t arglen = canon.len > sizeof tool->digest + ctx_len ? canon.len - sizeof tool->digest - ctx_len : 0;
    tg_buf_puts(o, ",\"args\":");
    tg_buf_append(o, argtext, arglen);
    tg_buf_puts(o, ",\"argsText\":"); /* the exact argument bytes the approval is bound to */
    tg_json_write_string(o, argtext, arglen);
    tg_buf_puts(o, ",\"definition\":\""); /* and the definition the person was shown */
    tg_buf_puts(o, tool->digest);
    tg_buf_putc(o, '"');
    if (ctx_hex[0]) { /* and the context values it runs with (their digest: the values stay the host's) */
        tg_buf_puts(o, ",\"contextDigest\":\"");
        tg_buf_puts(o, ctx_hex);
        tg_buf_putc(o, '"');
    }
    tg_buf_puts(o, ",\"reason\":");
    tg_json_write_string(o, out->reason, strlen(out->reason));
    tg_buf_puts(o, ",\"rule\":");
    tg_json_write_string(o, out->rule, strlen(out->rule));
    tg_buf_printf(o, ",\"expiresAt\":%.0f", expires);
    tg_buf_putc(o, '}');
    tg_buf_free(&canon);
    if (o->failed) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    tg_rt_fail(rt, TG_PENDING_APPROVAL, out->reason, -1);
    return TG_PENDING_APPROVAL;
}
