/* permissions.c - the policy's side of the C API: setting a policy, the
 * approval key, dry-run decisions with explain, answering approvals. */
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

tg_status tg_set_policy(tg_runtime *rt, const char *policy, size_t len) {
    tg_rt_begin(rt);
    cJSON *doc;
    tg_status st0 = tg_rt_parse(rt, "policy", policy, len, 8u << 20, &doc);
    if (st0 != TG_OK) return st0;
    tg_buf diag;
    tg_buf_init(&diag, rt->alloc, 4096);
    tg_policy *p;
    if (tg_policy_compile(&rt->alloc, doc, &p, &diag)) {
        tg_status st = tg_rt_fail(rt, TG_ERR_INVALID_POLICY, diag.data ? diag.data : "out of memory", -1);
        tg_buf_free(&diag);
        return st;
    }
    tg_buf_free(&diag);
    if (rt->policy) {
        tg_policy_adopt_state(p, rt->policy);
        tg_policy_free(rt->policy);
    }
    rt->policy = p;
    return TG_OK;
}

tg_status tg_set_approval_key(tg_runtime *rt, const unsigned char *key, size_t len) {
    tg_rt_begin(rt);
    if (len < 16 || len > sizeof rt->approval_key)
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "the approval key must be 16 to 1024 bytes", -1);
    memcpy(rt->approval_key, key, len);
    rt->approval_key_len = len;
    return TG_OK;
}

static double now(tg_runtime *rt) { return rt->host.now_ms ? rt->host.now_ms(rt->host.ud) : 0; }

tg_status tg_authorize(tg_runtime *rt, const char *request, size_t len) {
    tg_rt_begin(rt);
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes);
    tg_json_error jerr;
    cJSON *q = tg_json_parse(&rt->call_arena, request, len, &jl, &jerr);
    tg_call_request req;
    memset(&req, 0, sizeof req);
    if (!q) return tg_rt_fail(rt, tg_rt_json_status(jerr.status), jerr.message, (long long)jerr.offset);
    if (tg_call_request_read(rt, q, TG_REQUEST_AUTHORIZE, &req)) return TG_ERR_INVALID_REQUEST;
    const cJSON *name = tg_json_getz(q, "tool");
    if (!cJSON_IsString(name)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"tool\" must be a string", -1);
    const cJSON *args = tg_json_getz(q, "args");
    int explain = cJSON_IsTrue(tg_json_getz(q, "explain"));
    tg_status st;
    tg_toolset *set = tg_rt_toolset(rt, req.snapshot, &st);
    if (!set) return st;
    const tg_tool *t = tg_toolset_find(set, name->valuestring, tg_json_strlen(name->valuestring));
    if (t && req.snapshot && !(t = tg_rt_pinned(rt, set, t))) return TG_ERR_UNKNOWN_SNAPSHOT;
    tg_buf *o = &rt->out;
    if (!rt->policy) {
        const char *rule = NULL, *why = t ? tg_no_policy_refusal(t, &req, &rule) : NULL;
        if (why) {
            tg_buf_puts(o, "{\"decision\":\"deny\",\"rule\":");
            tg_json_write_string(o, rule, strlen(rule));
            tg_buf_puts(o, ",\"reason\":");
            tg_json_write_string(o, why, strlen(why));
            tg_buf_putc(o, '}');
        } else
            tg_buf_puts(o, t ? "{\"decision\":\"allow\",\"rule\":\"no_policy\",\"reason\":\"no policy is set: every registered tool is allowed, as the host marked it\"}"
                             : "{\"decision\":\"deny\",\"rule\":\"unknown_tool\",\"reason\":\"no tool of that name\"}");
        return TG_OK;
    }
    tg_tool_facts f;
    if (t) f = tg_tool_facts_of(t);
    /* as a call would be judged: with the tool's context parameters from "context" */
    if (t && args && !(args = tg_args_judged(&rt->call_arena, t, args, req.context)))
        return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    tg_authz_request ar = {req.principal, req.mode, req.scheduler, req.source, req.tenant, req.session, args, now(rt), 1};
    tg_authz_result res;
    tg_buf trace;
    tg_buf_init(&trace, rt->alloc, 1 << 20);
    tg_decision d = tg_policy_authorize(rt->policy, t ? &f : NULL, &ar, &res, explain ? &trace : NULL);
    tg_buf_puts(o, "{\"decision\":\"");
    tg_buf_puts(o, tg_decision_name(d));
    tg_buf_puts(o, "\",\"rule\":");
    tg_json_write_string(o, res.rule, strlen(res.rule));
    tg_buf_puts(o, ",\"reason\":");
    tg_json_write_string(o, res.reason, strlen(res.reason));
    if (explain && trace.len && !trace.failed) {
        tg_buf_puts(o, ",\"trace\":");
        tg_buf_append(o, trace.data, trace.len);
    } else if (explain) {
        /* the trace elides rules considered past its cap and should fit; if
         * it did not, cut JSON is never passed on */
        tg_buf_puts(o, ",\"trace\":{\"truncated\":true,\"error\":\"the trace does not fit in 1 MiB\"}");
    }
    tg_buf_putc(o, '}');
    tg_buf_free(&trace);
    return o->failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
}

tg_status tg_resolve_approval(tg_runtime *rt, const char *id, size_t len, const char *answer) {
    tg_rt_begin(rt);
    if (!rt->policy) return tg_rt_fail(rt, TG_ERR_APPROVAL, "no policy is set", -1);
    int approve = strcmp(answer, "approve") == 0 || strcmp(answer, "approve_session") == 0;
    int token = strcmp(answer, "approve_token") == 0;
    if (!approve && !token && strcmp(answer, "deny") != 0)
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST,
                          "answer \"approve\", \"approve_session\", \"approve_token\" or \"deny\"", -1);
    char idz[64], why[200];
    if (len >= sizeof idz || len != 35 || memcmp(id, "ap_", 3) != 0) return tg_rt_fail(rt, TG_ERR_APPROVAL, "unknown approval id", -1);
    memcpy(idz, id, len);
    idz[len] = '\0';
    if (token) { /* approved, to be redeemed on any instance holding the key: {"token","expiresAt"} */
        double expires;
        tg_buf_puts(&rt->out, "{\"token\":\"");
        if (tg_approval_resolve_token(rt->policy, idz, rt->approval_key, rt->approval_key_len, now(rt), &rt->out, &expires,
                                      why, sizeof why))
            return tg_rt_fail(rt, TG_ERR_APPROVAL, why, -1);
        tg_buf_printf(&rt->out, "\",\"expiresAt\":%.0f}", expires);
        return rt->out.failed ? tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1) : TG_OK;
    }
    if (tg_approval_resolve(rt->policy, idz, approve, strcmp(answer, "approve_session") == 0, now(rt), why, sizeof why))
        return tg_rt_fail(rt, TG_ERR_APPROVAL, why, -1);
    return TG_OK;
}

tg_status tg_end_session(tg_runtime *rt, const char *session, size_t len) {
    tg_rt_begin(rt);
    char s[256];
    if (len >= sizeof s) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "session id too long", -1);
    memcpy(s, session, len);
    s[len] = '\0';
    if (rt->policy) tg_policy_end_session(rt->policy, s, now(rt));
    return TG_OK;
}

tg_status tg_restore_spent_token(tg_runtime *rt, const char *token, size_t len) {
    tg_rt_begin(rt);
    if (!rt->policy) return TG_OK;
    if (tg_approval_token_spent(rt->policy, rt->approval_key, rt->approval_key_len, token, len, now(rt)))
        return tg_rt_fail(rt, TG_ERR_APPROVAL, "not an approval token of this key, or the used-token set is full", -1);
    return TG_OK;
}

int tg_approval_unspent(tg_runtime *rt, const char *id, size_t len) {
    char idz[64];
    if (!rt->policy || len >= sizeof idz) return 0;
    memcpy(idz, id, len);
    idz[len] = '\0';
    return tg_approval_open(rt->policy, idz, now(rt));
}

tg_status tg_restore_approval(tg_runtime *rt, const char *record, size_t len) {
    tg_rt_begin(rt);
    if (!rt->policy) return tg_rt_fail(rt, TG_ERR_APPROVAL, "no policy is set", -1);
    tg_json_limits jl = tg_rt_json_limits(rt, rt->limits.args_bytes * 2);
    tg_json_error jerr;
    cJSON *q = tg_json_parse(&rt->call_arena, record, len, &jl, &jerr);
    const cJSON *id = tg_json_getz(q, "id"), *tool = tg_json_getz(q, "tool"), *args = tg_json_getz(q, "argsText");
    const cJSON *exp = tg_json_getz(q, "expiresAt"), *def = tg_json_getz(q, "definition");
    if (!cJSON_IsString(id) || tg_json_strlen(id->valuestring) != 35 || strncmp(id->valuestring, "ap_", 3) ||
        !cJSON_IsString(tool) || !cJSON_IsString(args) || !cJSON_IsNumber(exp) || !cJSON_IsString(def) ||
        tg_json_strlen(def->valuestring) != 64)
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "an approval record needs id, tool, argsText, definition and expiresAt", -1);
    unsigned char nonce[16];
    if (tg_approval_id_nonce(id->valuestring, nonce)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "malformed approval id", -1);
    /* the digest of the context values it runs with, when its tool takes any
     * (64 lowercase hex digits, as tg_call_ask wrote it) */
    const cJSON *cd = tg_json_getz(q, "contextDigest");
    size_t cdl = cJSON_IsString(cd) ? tg_json_strlen(cd->valuestring) : 0;
    if (cd && !(cdl == 64 && strspn(cd->valuestring, "0123456789abcdef") == 64))
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "an approval record's contextDigest must be 64 lowercase hex digits", -1);
    const cJSON *answered = tg_json_getz(q, "answered");
    if (answered && !(cJSON_IsString(answered) && (strcmp(answered->valuestring, "denied") == 0 ||
                                                   strcmp(answered->valuestring, "used") == 0 ||
                                                   strcmp(answered->valuestring, "token") == 0)))
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "\"answered\" must be \"denied\", \"used\" or \"token\"", -1);
    const cJSON *pr = tg_json_getz(q, "principal"), *se = tg_json_getz(q, "session");
    /* (the definition too: a session rule this record adds holds for it alone) */
    tg_tool_facts f = {tool->valuestring, tg_json_strlen(tool->valuestring), NULL, 0, 0, 0, 0, NULL, def->valuestring,
                       NULL, NULL};
    tg_authz_request ar = {cJSON_IsString(pr) ? pr->valuestring : NULL, NULL, 0, NULL, NULL,
                           cJSON_IsString(se) ? se->valuestring : NULL, NULL, now(rt), 1};
    char out_id[40], why[200];
    tg_buf bound; /* as the router binds it: definition digest, '\n', arguments[, '\n', context digest] */
    tg_buf_init(&bound, rt->alloc, 0);
    tg_buf_append(&bound, def->valuestring, 64);
    tg_buf_putc(&bound, '\n');
    tg_buf_append(&bound, args->valuestring, tg_json_strlen(args->valuestring));
    if (cd) {
        tg_buf_putc(&bound, '\n');
        tg_buf_append(&bound, cd->valuestring, 64);
    }
    int bad = bound.failed || tg_approval_create(rt->policy, &f, &ar, bound.data, bound.len, exp->valuedouble, nonce, out_id);
    tg_buf_free(&bound);
    if (bad) return tg_rt_fail(rt, TG_ERR_APPROVAL, "the approval could not be restored (expired, or the table is full)", -1);
    /* answered already: refused as it was (its digest no longer matters) */
    if (answered && tg_approval_restore_answer(rt->policy, out_id, answered->valuestring, now(rt)))
        return tg_rt_fail(rt, TG_ERR_APPROVAL, "the approval could not be restored as answered", -1);
    if (answered) return TG_OK;
    if (cJSON_IsTrue(tg_json_getz(q, "approved")) &&
        tg_approval_resolve(rt->policy, out_id, 1, cJSON_IsTrue(tg_json_getz(q, "forSession")), now(rt), why, sizeof why))
        return tg_rt_fail(rt, TG_ERR_APPROVAL, why, -1);
    return TG_OK;
}

tg_status tg_save_policy_state(tg_runtime *rt) {
    tg_rt_begin(rt);
    if (!rt->policy) return TG_OK;
    if (tg_policy_state_save(rt->policy, &rt->out))
        return tg_rt_fail(rt, TG_ERR_NOMEM, "the policy state could not be read (damaged or out of memory)", -1);
    return TG_OK;
}

tg_status tg_restore_policy_state(tg_runtime *rt, const void *state, size_t len) {
    tg_rt_begin(rt);
    if (!len) return TG_OK;
    if (!rt->policy) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "no policy is set to take the state", -1);
    if (tg_policy_state_load(rt->policy, state, len, now(rt)))
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "not policy state saved by this build, or a state map is full", -1);
    return TG_OK;
}
