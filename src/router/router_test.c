/* router_test.c - the call pipeline's order through the C API: a deny
 * before the arguments' errors, an ask only for arguments that can run, an
 * approval spent only once nothing else refuses its call, what a pending
 * approval shows and binds for a tool with context parameters (the
 * arguments, and the context values they run with), approvals restored
 * as they were answered, the content blocks (and their annotations) a
 * handler's CallToolResult may hold, and request members no request takes. */
#include <stdio.h>
#include <string.h>

#include "toolgate.h"
#include "router.h"
#include "../../tests/tg_test.h"

typedef struct host_log {
    uint32_t call;
    char args[256];
    int invoked;
} host_log;

static int host_invoke(void *ud, uint32_t handler, uint32_t call, const char *args, size_t len, double deadline) {
    (void)handler, (void)deadline;
    host_log *h = ud;
    h->invoked++;
    h->call = call;
    snprintf(h->args, sizeof h->args, "%.*s", (int)len, args);
    return 0;
}

static const char *out(tg_runtime *rt) { return tg_output(rt, NULL); }

static tg_status call_ctx(tg_runtime *rt, const char *name, const char *args, const char *ctx, uint32_t *id) {
    return tg_call_begin(rt, name, strlen(name), args, strlen(args), ctx, ctx ? strlen(ctx) : 0, id);
}

/* The approval id of the pending approval in rt's output ("" if none). */
static void approval_id(tg_runtime *rt, char id[40]) {
    const char *p = strstr(out(rt), "\"approvalId\":\"");
    id[0] = '\0';
    if (p) snprintf(id, 40, "%.35s", p + 14);
}

/* The "argsText" string's JSON text as written in rt's output ("" if none). */
static void shown_args(tg_runtime *rt, char *buf, size_t n) {
    const char *p = strstr(out(rt), "\"args\":"), *e = p ? strstr(p, ",\"argsText\"") : NULL;
    buf[0] = '\0';
    if (p && e) snprintf(buf, n, "%.*s", (int)(e - p - 7), p + 7);
}

static tg_runtime *runtime(host_log *h, const tg_limits *l, const char *policy) {
    tg_host host = {h, host_invoke, NULL, NULL, NULL};
    tg_runtime *rt = tg_runtime_new(l, &host, NULL, NULL);
    CHECK(rt != NULL);
    if (policy) CHECK(tg_set_policy(rt, policy, strlen(policy)) == TG_OK);
    return rt;
}

static const char *const ASK_DEPLOY =
    "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[{\"id\":\"ask-deploy\",\"effect\":\"ask\",\"tools\":[\"deploy\"]},"
    "{\"id\":\"rest\",\"effect\":\"allow\",\"tools\":[\"*\"]}]}";
static const char *const DEPLOY =
    "{\"name\":\"deploy\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"env\":{\"type\":\"string\"}},"
    "\"required\":[\"env\"],\"additionalProperties\":false}}";

/* An approved call that a limit of calls in flight refuses ("Try again
 * later") keeps its approval: the same approval runs it once there is room. */
static void approval_outlives_flight_limits(void) {
    host_log h = {0};
    tg_runtime *rt = runtime(&h, NULL, ASK_DEPLOY);
    CHECK(tg_register_tool(rt, DEPLOY, strlen(DEPLOY), "{\"concurrency\":1}", 17, 1) == TG_OK);
    const char *ctx = "{\"principal\":\"u\",\"session\":\"s\"}";
    char id1[40], id2[40], ctx1[160], ctx2[160];
    uint32_t c1 = 0, c2 = 0;
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"first\"}", ctx, &c1) == TG_PENDING_APPROVAL);
    approval_id(rt, id1);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"second\"}", ctx, &c2) == TG_PENDING_APPROVAL);
    approval_id(rt, id2);
    CHECK(tg_resolve_approval(rt, id1, strlen(id1), "approve") == TG_OK);
    CHECK(tg_resolve_approval(rt, id2, strlen(id2), "approve") == TG_OK);
    snprintf(ctx1, sizeof ctx1, "{\"principal\":\"u\",\"session\":\"s\",\"approval\":\"%s\"}", id1);
    snprintf(ctx2, sizeof ctx2, "{\"principal\":\"u\",\"session\":\"s\",\"approval\":\"%s\"}", id2);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"first\"}", ctx1, &c1) == TG_PENDING); /* holds the only slot */
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"second\"}", ctx2, &c2) == TG_ERR_LIMIT);
    CHECK(strstr(out(rt), "Try again later") != NULL);
    CHECK(tg_approval_unspent(rt, id2, strlen(id2)) == 1);
    CHECK(tg_call_complete(rt, c1, "\"ok\"", 4, 0) == TG_OK);
    CHECK(tg_approval_unspent(rt, id1, strlen(id1)) == 0); /* (it ran) */
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"second\"}", ctx2, &c2) == TG_PENDING);
    CHECK_STR(h.args, "{\"env\":\"second\"}");
    CHECK(tg_approval_unspent(rt, id2, strlen(id2)) == 0);
    CHECK(tg_call_complete(rt, c2, "\"ok\"", 4, 0) == TG_OK);
    /* ...and once it ran, never again */
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"second\"}", ctx2, &c2) == TG_ERR_APPROVAL);
    tg_runtime_free(rt);

    /* the runtime's table of calls in flight (pendingCalls) alike */
    tg_limits l;
    tg_limits_default(&l);
    l.pending_calls = 1;
    rt = runtime(&h, &l, ASK_DEPLOY);
    const char *other = "{\"name\":\"other\",\"inputSchema\":{\"type\":\"object\"}}";
    CHECK(tg_register_tool(rt, DEPLOY, strlen(DEPLOY), NULL, 0, 1) == TG_OK);
    CHECK(tg_register_tool(rt, other, strlen(other), NULL, 0, 2) == TG_OK);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", ctx, &c2) == TG_PENDING_APPROVAL);
    approval_id(rt, id2);
    CHECK(tg_resolve_approval(rt, id2, strlen(id2), "approve") == TG_OK);
    snprintf(ctx2, sizeof ctx2, "{\"principal\":\"u\",\"session\":\"s\",\"approval\":\"%s\"}", id2);
    CHECK(call_ctx(rt, "other", "{}", ctx, &c1) == TG_PENDING);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", ctx2, &c2) == TG_ERR_LIMIT);
    CHECK(strstr(out(rt), "Too many calls in flight") != NULL);
    CHECK(tg_approval_unspent(rt, id2, strlen(id2)) == 1);
    CHECK(tg_call_complete(rt, c1, "\"ok\"", 4, 0) == TG_OK);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", ctx2, &c2) == TG_PENDING);
    CHECK(tg_approval_unspent(rt, id2, strlen(id2)) == 0);
    tg_runtime_free(rt);
}

/* A deny still comes before the arguments' errors; an ask becomes a pending
 * approval only for arguments that validate (and whose context is there):
 * the others are the usual error result, and no person is asked. */
static void ask_only_for_valid_arguments(void) {
    host_log h = {0};
    const char *policy =
        "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[{\"id\":\"no-drop\",\"effect\":\"deny\",\"tools\":[\"drop\"]},"
        "{\"id\":\"ask\",\"effect\":\"ask\",\"tools\":[\"deploy\",\"scoped\"]},{\"id\":\"rest\",\"effect\":\"allow\",\"tools\":[\"*\"]}]}";
    tg_runtime *rt = runtime(&h, NULL, policy);
    const char *drop = "{\"name\":\"drop\",\"inputSchema\":{\"type\":\"object\",\"required\":[\"table\"]}}";
    const char *scoped = "{\"name\":\"scoped\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"string\"}}}}";
    CHECK(tg_register_tool(rt, DEPLOY, strlen(DEPLOY), NULL, 0, 1) == TG_OK);
    CHECK(tg_register_tool(rt, drop, strlen(drop), NULL, 0, 2) == TG_OK);
    CHECK(tg_register_tool(rt, scoped, strlen(scoped), "{\"context\":{\"t\":\"tenant\"}}", 26, 3) == TG_OK);
    uint32_t id = 0;
    /* one pass (an object of text) and tree alike */
    const char *bad[] = {"{\"env\":7}", "{\"env\":\"x\",\"evil\":true}", "{}", "[1,2]", "\"x\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_MSG(call_ctx(rt, "deploy", bad[i], NULL, &id) == TG_ERR_INVALID_ARGUMENTS, "%s", bad[i]);
        CHECK(strstr(out(rt), "\"code\":\"invalid_arguments\"") != NULL && strstr(out(rt), "approvalId") == NULL);
    }
    /* a context parameter the model set, or a context without its value */
    CHECK(call_ctx(rt, "scoped", "{\"t\":\"mine\"}", "{\"context\":{\"tenant\":\"a\"}}", &id) == TG_ERR_INVALID_ARGUMENTS);
    CHECK(call_ctx(rt, "scoped", "{}", NULL, &id) == TG_ERR_MISSING_CONTEXT);
    CHECK(strstr(out(rt), "approvalId") == NULL);
    /* a denied tool tells nothing of its arguments' errors */
    CHECK(call_ctx(rt, "drop", "{\"nope\":1}", NULL, &id) == TG_ERR_DENIED);
    CHECK(strstr(out(rt), "required") == NULL);
    /* valid arguments are asked about; no handler ran before */
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", NULL, &id) == TG_PENDING_APPROVAL);
    CHECK(call_ctx(rt, "scoped", "{}", "{\"context\":{\"tenant\":\"a\"}}", &id) == TG_PENDING_APPROVAL);
    CHECK(h.invoked == 0);
    tg_runtime_free(rt);
}

/* contextParams "drop": the model's value for a context parameter never
 * runs, so the person asked is not shown it and the approval is not bound
 * to it; the approved call runs with the context's value. */
static void approval_shows_what_runs(void) {
    host_log h = {0};
    const char *policy =
        "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[{\"id\":\"ask-sql\",\"effect\":\"ask\",\"tools\":[\"sql\"]},"
        "{\"id\":\"rest\",\"effect\":\"allow\",\"tools\":[\"*\"]}]}";
    const char *sql = "{\"name\":\"sql\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"db\":{\"type\":\"string\"},"
                      "\"q\":{\"type\":\"string\"}},\"required\":[\"db\",\"q\"]}}";
    const char *opts = "{\"context\":{\"db\":\"db\"},\"contextParams\":\"drop\"}";
    tg_runtime *rt = runtime(&h, NULL, policy);
    CHECK(tg_register_tool(rt, sql, strlen(sql), opts, strlen(opts), 1) == TG_OK);
    const char *ctx = "{\"principal\":\"agent\",\"context\":{\"db\":\"prod\"}}";
    uint32_t c = 0;
    char id[40], shown[200], ctx2[200];
    CHECK(call_ctx(rt, "sql", "{\"db\":\"scratch-sandbox\",\"q\":\"DROP TABLE users\"}", ctx, &c) == TG_PENDING_APPROVAL);
    shown_args(rt, shown, sizeof shown);
    CHECK_STR(shown, "{\"q\":\"DROP TABLE users\"}");
    CHECK(strstr(out(rt), "scratch-sandbox") == NULL && strstr(out(rt), "prod") == NULL);
    approval_id(rt, id);
    CHECK(tg_resolve_approval(rt, id, strlen(id), "approve") == TG_OK);
    snprintf(ctx2, sizeof ctx2, "{\"principal\":\"agent\",\"context\":{\"db\":\"prod\"},\"approval\":\"%s\"}", id);
    /* the model's dropped value does not count when the approval is redeemed either */
    CHECK(call_ctx(rt, "sql", "{\"db\":\"other\",\"q\":\"DROP TABLE users\"}", ctx2, &c) == TG_PENDING);
    CHECK_STR(h.args, "{\"q\":\"DROP TABLE users\",\"db\":\"prod\"}");
    CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);
    /* other arguments are still other arguments */
    CHECK(call_ctx(rt, "sql", "{\"q\":\"SELECT 1\"}", ctx, &c) == TG_PENDING_APPROVAL);
    approval_id(rt, id);
    CHECK(tg_resolve_approval(rt, id, strlen(id), "approve") == TG_OK);
    snprintf(ctx2, sizeof ctx2, "{\"principal\":\"agent\",\"context\":{\"db\":\"prod\"},\"approval\":\"%s\"}", id);
    CHECK(call_ctx(rt, "sql", "{\"q\":\"DROP TABLE users\"}", ctx2, &c) == TG_ERR_APPROVAL);
    CHECK(call_ctx(rt, "sql", "{\"q\":\"SELECT 1\"}", ctx2, &c) == TG_PENDING);
    tg_runtime_free(rt);
}

/* The "contextDigest" member of rt's output ("" if none). */
static void context_digest(tg_runtime *rt, char hex[65]) {
    const char *p = strstr(out(rt), "\"contextDigest\":\"");
    hex[0] = '\0';
    if (p) snprintf(hex, 65, "%.64s", p + 17);
}

/* An approval is bound to the context values the tool's context parameters
 * take, beside the arguments it shows: approved for tenant A, the call is
 * refused for tenant B (by id, by token, and restored after a trap), while
 * context keys the tool does not take may differ. */
static void approval_bound_to_context(void) {
    host_log h = {0};
    const char *policy =
        "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[{\"id\":\"ask\",\"effect\":\"ask\",\"tools\":[\"wipe\"]}]}";
    const char *wipe = "{\"name\":\"wipe\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"string\"},"
                       "\"what\":{\"type\":\"string\"}}}}";
    const char *opts = "{\"context\":{\"t\":\"tenant\"}}";
    const char *key = "0123456789abcdef0123456789abcdef";
    tg_runtime *rt = runtime(&h, NULL, policy);
    CHECK(tg_register_tool(rt, wipe, strlen(wipe), opts, strlen(opts), 1) == TG_OK);
    CHECK(tg_set_approval_key(rt, (const unsigned char *)key, 32) == TG_OK);
    const char *args = "{\"what\":\"all\"}";
    uint32_t c = 0;
    char id[40], hex[65], ctx[600], record[600];
    CHECK(call_ctx(rt, "wipe", args, "{\"principal\":\"p\",\"context\":{\"tenant\":\"A\"}}", &c) == TG_PENDING_APPROVAL);
    CHECK(strstr(out(rt), "\"A\"") == NULL); /* (a digest: the value is the host's) */
    approval_id(rt, id);
    context_digest(rt, hex);
    CHECK(strlen(hex) == 64);
    CHECK(tg_resolve_approval(rt, id, strlen(id), "approve") == TG_OK);
    snprintf(ctx, sizeof ctx, "{\"principal\":\"p\",\"context\":{\"tenant\":\"B\"},\"approval\":\"%s\"}", id);
    CHECK(call_ctx(rt, "wipe", args, ctx, &c) == TG_ERR_APPROVAL);
    CHECK_MSG(strstr(out(rt), "context values") != NULL, "%s", out(rt));
    CHECK(h.invoked == 0 && tg_approval_unspent(rt, id, strlen(id)) == 1);
    /* other keys of the context are not the tool's: they may differ */
    snprintf(ctx, sizeof ctx, "{\"principal\":\"p\",\"context\":{\"request\":\"r2\",\"tenant\":\"A\"},\"approval\":\"%s\"}", id);
    CHECK(call_ctx(rt, "wipe", args, ctx, &c) == TG_PENDING);
    CHECK_STR(h.args, "{\"what\":\"all\",\"t\":\"A\"}");
    CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);

    /* a token carries the binding to any instance holding the key */
    CHECK(call_ctx(rt, "wipe", args, "{\"principal\":\"p\",\"context\":{\"tenant\":\"A\"}}", &c) == TG_PENDING_APPROVAL);
    approval_id(rt, id);
    CHECK(tg_resolve_approval(rt, id, strlen(id), "approve_token") == TG_OK);
    char token[400];
    const char *t = strstr(out(rt), "\"token\":\"");
    CHECK(t != NULL);
    snprintf(token, sizeof token, "%.*s", (int)(strchr(t + 9, '"') - (t + 9)), t + 9);
    snprintf(ctx, sizeof ctx, "{\"principal\":\"p\",\"context\":{\"tenant\":\"B\"},\"approvalToken\":\"%s\"}", token);
    CHECK(call_ctx(rt, "wipe", args, ctx, &c) == TG_ERR_APPROVAL);
    snprintf(ctx, sizeof ctx, "{\"principal\":\"p\",\"context\":{\"tenant\":\"A\"},\"approvalToken\":\"%s\"}", token);
    CHECK(call_ctx(rt, "wipe", args, ctx, &c) == TG_PENDING);
    CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);

    /* a record restored in another runtime (a trap's replacement) keeps it */
    CHECK(call_ctx(rt, "wipe", args, "{\"principal\":\"p\",\"context\":{\"tenant\":\"A\"}}", &c) == TG_PENDING_APPROVAL);
    approval_id(rt, id);
    context_digest(rt, hex);
    const char *d = strstr(out(rt), "\"definition\":\"");
    CHECK(d != NULL);
    tg_runtime *rt2 = runtime(&h, NULL, policy);
    CHECK(tg_register_tool(rt2, wipe, strlen(wipe), opts, strlen(opts), 1) == TG_OK);
    snprintf(record, sizeof record,
             "{\"id\":\"%s\",\"tool\":\"wipe\",\"argsText\":\"{\\\"what\\\":\\\"all\\\"}\",\"definition\":\"%.64s\","
             "\"contextDigest\":\"%s\",\"principal\":\"p\",\"expiresAt\":1e12,\"approved\":true}",
             id, d + 14, hex);
    CHECK_MSG(tg_restore_approval(rt2, record, strlen(record)) == TG_OK, "%s", record);
    snprintf(ctx, sizeof ctx, "{\"principal\":\"p\",\"context\":{\"tenant\":\"B\"},\"approval\":\"%s\"}", id);
    CHECK(call_ctx(rt2, "wipe", args, ctx, &c) == TG_ERR_APPROVAL);
    snprintf(ctx, sizeof ctx, "{\"principal\":\"p\",\"context\":{\"tenant\":\"A\"},\"approval\":\"%s\"}", id);
    CHECK(call_ctx(rt2, "wipe", args, ctx, &c) == TG_PENDING);
    CHECK(tg_call_complete(rt2, c, "\"ok\"", 4, 0) == TG_OK);
    /* a digest that is not one is refused, never read as "no context" */
    const char *bad = "{\"id\":\"ap_00000000000000000000000000000001\",\"tool\":\"wipe\",\"argsText\":\"{}\","
                      "\"definition\":\"0000000000000000000000000000000000000000000000000000000000000000\","
                      "\"contextDigest\":\"A\",\"expiresAt\":1e12}";
    CHECK(tg_restore_approval(rt2, bad, strlen(bad)) == TG_ERR_INVALID_REQUEST);
    tg_runtime_free(rt2);
    tg_runtime_free(rt);
}

/* What answering and redeeming approval id say in rt: the last error of
 * answering it again, and the result of a call that names it. */
static void refusals(tg_runtime *rt, const char *id, char *answer, char *call, size_t n) {
    char ctx[160];
    uint32_t c = 0;
    CHECK(tg_resolve_approval(rt, id, strlen(id), "approve") == TG_ERR_APPROVAL);
    snprintf(answer, n, "%s", tg_last_error(rt, NULL));
    snprintf(ctx, sizeof ctx, "{\"principal\":\"u\",\"session\":\"s\",\"approval\":\"%s\"}", id);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", ctx, &c) == TG_ERR_APPROVAL);
    snprintf(call, n, "%s", out(rt));
}

/* An approval answered already (denied, its call run, issued as a token)
 * is restored answered: the replacing runtime refuses it with the reason
 * the old one gave, never as an unknown id. */
static void answered_approvals_restored(void) {
    host_log h = {0};
    tg_runtime *rt = runtime(&h, NULL, ASK_DEPLOY), *rt2 = runtime(&h, NULL, ASK_DEPLOY);
    CHECK(tg_register_tool(rt, DEPLOY, strlen(DEPLOY), NULL, 0, 1) == TG_OK);
    CHECK(tg_register_tool(rt2, DEPLOY, strlen(DEPLOY), NULL, 0, 1) == TG_OK);
    CHECK(tg_set_approval_key(rt, (const unsigned char *)"0123456789abcdef", 16) == TG_OK);
    const char *ctx = "{\"principal\":\"u\",\"session\":\"s\"}";
    static const char *const ANSWERS[] = {"deny", "approve", "approve_token"}, *const STATES[] = {"denied", "used", "token"};
    for (int i = 0; i < 3; i++) {
        char id[40], def[65], ctx2[160], record[400], a1[400], c1[800], a2[400], c2[800];
        uint32_t c = 0;
        CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", ctx, &c) == TG_PENDING_APPROVAL);
        approval_id(rt, id);
        snprintf(def, sizeof def, "%.64s", strstr(out(rt), "\"definition\":\"") + 14);
        CHECK(tg_resolve_approval(rt, id, strlen(id), ANSWERS[i]) == TG_OK);
        if (i == 1) { /* its call runs */
            snprintf(ctx2, sizeof ctx2, "{\"principal\":\"u\",\"session\":\"s\",\"approval\":\"%s\"}", id);
            CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", ctx2, &c) == TG_PENDING);
            CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);
        }
        refusals(rt, id, a1, c1, 400);
        snprintf(record, sizeof record,
                 "{\"id\":\"%s\",\"tool\":\"deploy\",\"argsText\":\"\",\"definition\":\"%s\",\"principal\":\"u\","
                 "\"session\":\"s\",\"expiresAt\":1e12,\"answered\":\"%s\"}",
                 id, def, STATES[i]);
        CHECK_MSG(tg_restore_approval(rt2, record, strlen(record)) == TG_OK, "%s", record);
        refusals(rt2, id, a2, c2, 400);
        CHECK_MSG(strstr(a1, "unknown") == NULL && strcmp(a1, a2) == 0, "%s: %s / %s", STATES[i], a1, a2);
        CHECK_MSG(strcmp(c1, c2) == 0, "%s: %s / %s", STATES[i], c1, c2);
    }
    CHECK(h.invoked == 1);
    const char *bad = "{\"id\":\"ap_00000000000000000000000000000009\",\"tool\":\"deploy\",\"argsText\":\"\","
                      "\"definition\":\"0000000000000000000000000000000000000000000000000000000000000000\","
                      "\"expiresAt\":1e12,\"answered\":\"approved\"}";
    CHECK(tg_restore_approval(rt2, bad, strlen(bad)) == TG_ERR_INVALID_REQUEST);
    CHECK(tg_resolve_approval(rt2, "ap_00000000000000000000000000000009", 35, "approve") == TG_ERR_APPROVAL);
    CHECK(strstr(tg_last_error(rt2, NULL), "unknown approval id") != NULL); /* (refused before it was made) */
    tg_runtime_free(rt2);
    tg_runtime_free(rt);
}

/* Each content block has the members MCP requires of its type; a malformed
 * one makes the result invalid_result, as other garbage results are. */
static void content_blocks_checked(void) {
    host_log h = {0};
    tg_runtime *rt = runtime(&h, NULL, NULL);
    const char *t = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}";
    CHECK(tg_register_tool(rt, t, strlen(t), NULL, 0, 1) == TG_OK);
    static const char *const BAD[] = {
        "{\"content\":[{\"type\":\"resource\",\"resource\":{}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a.txt\"}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":7,\"text\":\"hi\"}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"text\":\"hi\"}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"u\",\"text\":1}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"u\",\"blob\":\"not base64!\"}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"u\",\"text\":\"x\",\"mimeType\":1}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":\"file:///a\"}]}",
        "{\"content\":[{\"type\":\"resource\"}]}",
        "{\"content\":[{\"type\":\"image\",\"data\":\"%%%\",\"mimeType\":\"image/png\"}]}",
        "{\"content\":[{\"type\":\"audio\",\"data\":\"QUJD=\",\"mimeType\":\"audio/wav\"}]}",
        "{\"content\":[{\"type\":\"image\",\"data\":\"A\",\"mimeType\":\"image/png\"}]}",
        "{\"content\":[{\"type\":\"text\",\"text\":\"x\",\"_meta\":[]}]}",
        "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"resource\",\"resource\":{}}]}",
    };
    static const char *const GOOD[] = {
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a.txt\",\"text\":\"hi\"}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a.bin\",\"mimeType\":\"application/octet-stream\",\"blob\":\"AAEC\"}}]}",
        "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"u\",\"blob\":\"\"}}]}",
        "{\"content\":[{\"type\":\"image\",\"data\":\"iVBO Rw0K\\nGgo=\",\"mimeType\":\"image/png\"}]}",
        "{\"content\":[{\"type\":\"audio\",\"data\":\"QUJDRA==\",\"mimeType\":\"audio/wav\"}]}",
        "{\"content\":[{\"type\":\"image\",\"data\":\"QUI\",\"mimeType\":\"image/png\"}]}",
        "{\"content\":[{\"type\":\"resource_link\",\"uri\":\"file:///a\",\"name\":\"a\"}]}",
        "{\"content\":[{\"type\":\"text\",\"text\":\"x\",\"_meta\":{\"k\":1}}]}",
    };
    uint32_t c = 0;
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        CHECK(tg_call_begin(rt, "t", 1, "{}", 2, NULL, 0, &c) == TG_PENDING);
        CHECK(tg_call_complete(rt, c, BAD[i], strlen(BAD[i]), 0) == TG_OK);
        CHECK_MSG(strstr(out(rt), "\"code\":\"invalid_result\"") != NULL && strstr(out(rt), "malformed CallToolResult"),
                  "%s -> %s", BAD[i], out(rt));
    }
    for (size_t i = 0; i < sizeof GOOD / sizeof *GOOD; i++) {
        CHECK(tg_call_begin(rt, "t", 1, "{}", 2, NULL, 0, &c) == TG_PENDING);
        CHECK(tg_call_complete(rt, c, GOOD[i], strlen(GOOD[i]), 0) == TG_OK);
        CHECK_MSG(strcmp(out(rt), GOOD[i]) == 0, "%s -> %s", GOOD[i], out(rt));
    }
    tg_runtime_free(rt);
}

/* A content block's "annotations" are checked as MCP says (audience an
 * array of "user"/"assistant", priority a number from 0 to 1, lastModified
 * a date-time a client's SDK reads), on every block type; a bad one makes
 * the result invalid_result naming the block and the field. Unknown
 * members stay as data, as elsewhere in a block. */
static void content_annotations_checked(void) {
    host_log h = {0};
    tg_runtime *rt = runtime(&h, NULL, NULL);
    const char *t = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}";
    CHECK(tg_register_tool(rt, t, strlen(t), NULL, 0, 1) == TG_OK);
    /* each bad annotations value, on each block type, as the second block */
    static const char *const BLOCKS[] = {
        "{\"type\":\"text\",\"text\":\"x\",\"annotations\":%s}",
        "{\"type\":\"image\",\"data\":\"QUJD\",\"mimeType\":\"image/png\",\"annotations\":%s}",
        "{\"type\":\"audio\",\"data\":\"QUJD\",\"mimeType\":\"audio/wav\",\"annotations\":%s}",
        "{\"type\":\"resource_link\",\"uri\":\"file:///a\",\"name\":\"a\",\"annotations\":%s}",
        "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a\",\"text\":\"hi\"},\"annotations\":%s}",
    };
    static const struct { const char *value, *field; } BAD[] = {
        {"[]", "\"annotations\" must be an object"},
        {"null", "\"annotations\" must be an object"},
        {"\"user\"", "\"annotations\" must be an object"},
        {"{\"audience\":\"user\"}", "\"annotations.audience\""},
        {"{\"audience\":[\"user\",\"system\"]}", "\"annotations.audience\""},
        {"{\"audience\":[\"user\\u0000\"]}", "\"annotations.audience\""},
        {"{\"audience\":[null]}", "\"annotations.audience\""},
        {"{\"priority\":1.5}", "\"annotations.priority\""},
        {"{\"priority\":-0.1}", "\"annotations.priority\""},
        {"{\"priority\":\"0.5\"}", "\"annotations.priority\""},
        {"{\"priority\":1e400}", "\"annotations.priority\""},
        {"{\"lastModified\":\"yesterday\"}", "\"annotations.lastModified\""},
        {"{\"lastModified\":1736694058}", "\"annotations.lastModified\""},
        {"{\"lastModified\":\"2025-01-12\"}", "\"annotations.lastModified\""},
        {"{\"lastModified\":\"2025-01-12T15:00Z\"}", "\"annotations.lastModified\""},
        {"{\"lastModified\":\"2025-01-12T15:00:58\"}", "\"annotations.lastModified\""},
        {"{\"lastModified\":\"2025-02-30T15:00:58Z\"}", "\"annotations.lastModified\""},
        /* RFC 3339 allows these; the TypeScript SDK's check does not */
        {"{\"lastModified\":\"2025-01-12t15:00:58Z\"}", "\"annotations.lastModified\""},
        {"{\"lastModified\":\"2025-01-12T15:00:58z\"}", "\"annotations.lastModified\""},
        {"{\"lastModified\":\"2016-12-31T23:59:60Z\"}", "\"annotations.lastModified\""},
    };
    char res[512], want[160];
    uint32_t c = 0;
    for (size_t b = 0; b < sizeof BLOCKS / sizeof *BLOCKS; b++)
        for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
            char block[256];
            snprintf(block, sizeof block, BLOCKS[b], BAD[i].value);
            snprintf(res, sizeof res, "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"},%s]}", block);
            snprintf(want, sizeof want, "malformed CallToolResult: content[1]: %s", BAD[i].field);
            for (char *q = want; *q; q++) /* (as the result's JSON text writes it) */
                if (*q == '"') memmove(q + 1, q, strlen(q) + 1), *q++ = '\\';
            CHECK(tg_call_begin(rt, "t", 1, "{}", 2, NULL, 0, &c) == TG_PENDING);
            CHECK(tg_call_complete(rt, c, res, strlen(res), 0) == TG_OK);
            CHECK_MSG(strstr(out(rt), "\"code\":\"invalid_result\"") != NULL && strstr(out(rt), want) != NULL,
                      "%s -> %s", res, out(rt));
        }
    /* good ones come back as they were, unknown members and all */
    static const char *const GOOD[] = {
        "{}",
        "{\"audience\":[]}",
        "{\"audience\":[\"user\",\"assistant\",\"user\"]}",
        "{\"priority\":0}",
        "{\"priority\":1}",
        "{\"priority\":0.25,\"audience\":[\"assistant\"]}",
        "{\"lastModified\":\"2025-01-12T15:00:58Z\"}",
        "{\"lastModified\":\"2024-02-29T23:59:59.123456+05:30\"}",
        "{\"priority\":1.0,\"x-rank\":{\"by\":[1,2]},\"title\":7}",
    };
    for (size_t b = 0; b < sizeof BLOCKS / sizeof *BLOCKS; b++)
        for (size_t i = 0; i < sizeof GOOD / sizeof *GOOD; i++) {
            char block[256];
            snprintf(block, sizeof block, BLOCKS[b], GOOD[i]);
            snprintf(res, sizeof res, "{\"content\":[%s]}", block);
            CHECK(tg_call_begin(rt, "t", 1, "{}", 2, NULL, 0, &c) == TG_PENDING);
            CHECK(tg_call_complete(rt, c, res, strlen(res), 0) == TG_OK);
            CHECK_MSG(strcmp(out(rt), res) == 0, "%s -> %s", res, out(rt));
        }
    /* an embedded resource's contents carry no annotations in MCP: such a
     * member there is data like any other unknown one */
    const char *inner = "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"u\",\"text\":\"x\",\"annotations\":7}}]}";
    CHECK(tg_call_begin(rt, "t", 1, "{}", 2, NULL, 0, &c) == TG_PENDING);
    CHECK(tg_call_complete(rt, c, inner, strlen(inner), 0) == TG_OK);
    CHECK_MSG(strcmp(out(rt), inner) == 0, "%s", out(rt));
    tg_runtime_free(rt);
}

/* A request member no request of that kind takes ("schedular", "Mode",
 * a key with a NUL in it) is refused naming it, never ignored: read as
 * "not given" it lifted the scheduler block and plan mode. */
static void unknown_context_keys_refused(void) {
    host_log h = {0};
    const char *policy = "{\"version\":1,\"defaults\":[\"*\"],\"scheduler\":{\"blocked\":[\"deploy\"]},"
                         "\"rules\":[{\"id\":\"all\",\"effect\":\"allow\",\"tools\":[\"*\"]}]}";
    tg_runtime *rt = runtime(&h, NULL, policy);
    CHECK(tg_register_tool(rt, DEPLOY, strlen(DEPLOY), NULL, 0, 1) == TG_OK);
    uint32_t id = 0;
    static const char *const bad[] = {"{\"principal\":\"cron\",\"schedular\":true}", "{\"Scheduler\":true}",
                                      "{\"Mode\":\"plan\"}", "{\"scheduler\\u0000x\":true}", "{\"tool\":\"deploy\"}",
                                      "{\"cursor\":\"1:0\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_MSG(call_ctx(rt, "deploy", "{\"env\":\"x\"}", bad[i], &id) == TG_ERR_INVALID_REQUEST, "%s", bad[i]);
        CHECK_MSG(strstr(out(rt), "\"code\":\"invalid_request\"") != NULL && strstr(out(rt), "unknown context key \\\"") != NULL,
                  "%s", out(rt));
    }
    CHECK(strstr(tg_last_error(rt, NULL), "scheduler, source") != NULL); /* (the message lists the keys) */
    CHECK(h.invoked == 0);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"x\"}", "{\"scheduler\":true}", &id) == TG_ERR_DENIED);
    /* authorize and listing: their own members, and the context's, only */
    static const char *const bad_authz[] = {"{\"tool\":\"deploy\",\"schedular\":true}", "{\"tool\":\"deploy\",\"Mode\":\"plan\"}",
                                            "{\"tool\":\"deploy\",\"approval\":\"ap_x\"}", "{\"tool\":\"deploy\",\"cursor\":\"1:0\"}"};
    for (size_t i = 0; i < sizeof bad_authz / sizeof *bad_authz; i++) {
        CHECK_MSG(tg_authorize(rt, bad_authz[i], strlen(bad_authz[i])) == TG_ERR_INVALID_REQUEST, "%s", bad_authz[i]);
        CHECK_MSG(strstr(tg_last_error(rt, NULL), "unknown request key") != NULL, "%s", tg_last_error(rt, NULL));
    }
    const char *ok = "{\"tool\":\"deploy\",\"args\":{\"env\":\"x\"},\"scheduler\":true,\"explain\":false,\"context\":{}}";
    CHECK(tg_authorize(rt, ok, strlen(ok)) == TG_OK && strstr(out(rt), "\"decision\":\"deny\"") != NULL);
    static const char *const bad_list[] = {"{\"principal\":\"cron\",\"schedular\":true}", "{\"tool\":\"deploy\"}",
                                           "{\"context\":{}}"};
    for (size_t i = 0; i < sizeof bad_list / sizeof *bad_list; i++) {
        CHECK_MSG(tg_list_tools(rt, bad_list[i], strlen(bad_list[i])) == TG_ERR_INVALID_REQUEST, "%s", bad_list[i]);
        CHECK_MSG(strstr(tg_last_error(rt, NULL), "unknown request key") != NULL, "%s", tg_last_error(rt, NULL));
    }
    /* a request past its 64 KiB (a long cursor) is too large, said as such; not JSON is not JSON */
    {
        char *big = malloc(70000);
        int n = snprintf(big, 70000, "{\"cursor\":\"");
        memset(big + n, 'x', 69000 - (size_t)n);
        snprintf(big + 69000, 1000, "\"}");
        CHECK(tg_list_tools(rt, big, strlen(big)) == TG_ERR_TOO_LARGE);
        CHECK_MSG(strstr(tg_last_error(rt, NULL), "over the limit of 65536") != NULL, "%s", tg_last_error(rt, NULL));
        free(big);
        CHECK(tg_list_tools(rt, "{\"format\":", 11) == TG_ERR_JSON);
        CHECK(tg_list_tools(rt, "[]", 2) == TG_ERR_INVALID_REQUEST);
    }
    const char *list = "{\"format\":\"mcp\",\"limit\":10,\"principal\":\"cron\",\"scheduler\":true,\"filter\":true}";
    CHECK(tg_list_tools(rt, list, strlen(list)) == TG_OK && strstr(out(rt), "deploy") == NULL);
    tg_runtime_free(rt);
}

/* An abandoned call (its caller answered, its handler still running)
 * keeps its places in the tool's concurrency and in pending_calls until
 * tg_call_settled; its late result is discarded, and it settles once. */
static void abandoned_calls_keep_their_place(void) {
    host_log h = {0};
    tg_limits l;
    tg_limits_default(&l);
    l.pending_calls = 2;
    tg_runtime *rt = runtime(&h, &l, NULL);
    CHECK(tg_register_tool(rt, DEPLOY, strlen(DEPLOY), "{\"concurrency\":1}", 17, 1) == TG_OK);
    const char *other = "{\"name\":\"other\",\"inputSchema\":{\"type\":\"object\"}}";
    CHECK(tg_register_tool(rt, other, strlen(other), NULL, 0, 2) == TG_OK);
    uint32_t c1 = 0, c2 = 0, c3 = 0;
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"a\"}", "", &c1) == TG_PENDING);
    CHECK(tg_call_abandon(rt, c1, "cancelled") == TG_OK);
    CHECK(strstr(out(rt), "\"cancelled\"") != NULL);
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"b\"}", "", &c2) == TG_ERR_LIMIT); /* the tool's one place */
    CHECK(call_ctx(rt, "other", "{}", "", &c2) == TG_PENDING);
    CHECK(call_ctx(rt, "other", "{}", "", &c3) == TG_ERR_LIMIT);                  /* pending_calls: 2 */
    CHECK(tg_call_complete(rt, c1, "\"late\"", 6, 0) == TG_ERR_UNKNOWN_CALL);      /* answered already */
    CHECK(tg_call_abandon(rt, c1, "cancelled") == TG_ERR_UNKNOWN_CALL);
    CHECK(tg_call_settled(rt, c2) == TG_ERR_UNKNOWN_CALL);                         /* not abandoned */
    CHECK(tg_call_settled(rt, c1) == TG_OK);
    CHECK(tg_call_settled(rt, c1) == TG_ERR_UNKNOWN_CALL);                         /* once */
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"b\"}", "", &c3) == TG_PENDING);
    CHECK(tg_call_complete(rt, c3, "\"ok\"", 4, 0) == TG_OK);
    CHECK(tg_call_complete(rt, c2, "\"ok\"", 4, 0) == TG_OK);
    /* one still abandoned when the runtime goes: freed with it (ASan: no leak) */
    CHECK(call_ctx(rt, "deploy", "{\"env\":\"c\"}", "", &c1) == TG_PENDING);
    CHECK(tg_call_abandon(rt, c1, "timeout") == TG_OK);
    tg_runtime_free(rt);
}

/* A runtime whose policy allows every tool but for `rules` (a JSON list's
 * members, after an allow-all rule), with tool "q" (handler 1) taking
 * `properties`. */
static tg_runtime *q_runtime(host_log *h, const char *rules, const char *properties) {
    char policy[1024], q[1024];
    snprintf(policy, sizeof policy,
             "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[{\"id\":\"all\",\"effect\":\"allow\",\"tools\":[\"*\"]},%s]}",
             rules);
    snprintf(q, sizeof q, "{\"name\":\"q\",\"inputSchema\":{\"type\":\"object\",\"properties\":%s}}", properties);
    tg_runtime *rt = runtime(h, NULL, policy);
    CHECK(tg_register_tool(rt, q, strlen(q), NULL, 0, 1) == TG_OK);
    return rt;
}

/* The handler gets the caller's own bytes (from the value on) whenever the
 * tree validated is that text's: checked in one pass, or parsed for a
 * policy's argument conditions or past what one pass decides; the tree
 * written canonically only when something was put in or taken out
 * (strict-mode nulls, context parameters). */
static void handler_text_is_the_callers_unless_changed(void) {
    host_log h = {0};
    tg_runtime *rt = q_runtime(&h, "{\"id\":\"no-prod\",\"effect\":\"deny\",\"tools\":[\"q\"],\"args\":{\"db\":{\"equals\":\"prod\"}}}",
                               "{\"db\":{\"type\":\"string\"},\"n\":{\"type\":\"number\"}}");
    uint32_t c = 0;
    /* the policy reads the arguments (a tree), and the handler gets the caller's text */
    CHECK(call_ctx(rt, "q", " {\"db\" : \"dev\", \"n\": 1e0}", NULL, &c) == TG_PENDING);
    CHECK_STR(h.args, "{\"db\" : \"dev\", \"n\": 1e0}");
    CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);
    CHECK(call_ctx(rt, "q", "{\"db\":\"prod\"}", NULL, &c) == TG_ERR_DENIED);
    /* strict-mode nulls (an optional property the model was shown as
     * nullable) are taken out: the tree is written */
    CHECK(call_ctx(rt, "q", "{\"db\" : \"dev\", \"n\": null}", "{\"format\":\"openai-strict\"}", &c) == TG_PENDING);
    CHECK_STR(h.args, "{\"db\":\"dev\"}");
    CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);
    tg_runtime_free(rt);
}

/* A text checked in one pass under a policy whose conditions read some
 * arguments: the decision sees those members (by name, or under a JSON
 * Pointer's first token) as the whole tree would show them; an escaped key
 * takes the tree path, and is judged the same. */
static void conditions_judge_the_members_they_read(void) {
    host_log h = {0};
    tg_runtime *rt = q_runtime(&h,
                               "{\"id\":\"no-prod\",\"effect\":\"deny\",\"tools\":[\"q\"],\"args\":{\"db\":{\"equals\":\"prod\"}}},"
                               "{\"id\":\"no-drop\",\"effect\":\"deny\",\"tools\":[\"q\"],\"args\":{\"/opts/mode\":{\"equals\":\"drop\"}}}",
                               "{\"db\":{\"type\":\"string\"},\"opts\":{\"type\":\"object\"},\"blob\":{\"type\":\"string\"},"
                               "\"n\":{\"type\":\"array\"}}");
    uint32_t c = 0;
    CHECK(call_ctx(rt, "q", "{\"blob\":\"}]\\\"{\",\"opts\":{\"x\":[1,{}],\"mode\":\"drop\"}}", NULL, &c) == TG_ERR_DENIED);
    CHECK(strstr(out(rt), "no-drop") != NULL);
    CHECK(call_ctx(rt, "q", " { \"n\" : [ 1 , { \"a\" : \"}\" } ] , \"db\" : \"prod\" } ", NULL, &c) == TG_ERR_DENIED);
    CHECK(strstr(out(rt), "no-prod") != NULL);
    CHECK(call_ctx(rt, "q", "{\"d\\u0062\":\"prod\"}", NULL, &c) == TG_ERR_DENIED); /* (escaped: the tree path) */
    const char *fine = "{\"db\":\"dev\",\"opts\":{\"mode\":\"keep\"},\"n\":[1,{\"a\":\"}\"}],\"blob\":\"x\"}";
    CHECK(call_ctx(rt, "q", fine, NULL, &c) == TG_PENDING);
    CHECK_STR(h.args, fine);
    CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);
    tg_runtime_free(rt);
}

/* A random JSON value (depth-bounded) into b: strings with the bytes that
 * end values ('}', ']', ',', '"' escaped, '\\'), numbers, literals,
 * nested arrays and objects, and white space between tokens. */
static void random_value(tg_buf *b, uint32_t *x, int depth) {
    static const char *const atoms[] = {"1", "-2.5e3", "0", "true", "false", "null", "\"}\"", "\"]\"", "\",\"",
                                        "\"\\\"\"", "\"\\\\\"", "\"plain\"", "\"\\u0041\"", "\"\""};
    *x = *x * 1103515245u + 12345u;
    unsigned k = (*x >> 16) % (depth > 2 ? 14 : 18);
    if (k < 14) {
        tg_buf_puts(b, atoms[k]);
        return;
    }
    int obj = k >= 16;
    tg_buf_putc(b, obj ? '{' : '[');
    int n = (int)((*x >> 8) % 4);
    for (int i = 0; i < n; i++) {
        if (i) tg_buf_puts(b, (*x >> (i + 3)) & 1 ? " , " : ",");
        if (obj) tg_buf_printf(b, "\"k%d\" : ", i);
        random_value(b, x, depth + 1);
    }
    tg_buf_putc(b, obj ? '}' : ']');
}

/* tg_args_members against the whole tree, over generated objects: each
 * member a condition reads is the same value in both (by name, or under a
 * pointer's first token, "d/e" for "/d~1e/x"); no other member is there. */
static void members_read_are_the_trees(void) {
    const char *doc = "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[{\"id\":\"r\",\"effect\":\"deny\","
                      "\"tools\":[\"q\"],\"args\":{\"a\":{\"equals\":1},\"/c/x\":{\"prefix\":\"p\"},"
                      "\"/d~1e/x\":{\"equals\":2}}},{\"id\":\"s\",\"effect\":\"ask\",\"tools\":[\"*\"],"
                      "\"args\":{\"b\":{\"suffix\":\"z\"}}}]}";
    static const char *const keys[] = {"a", "b", "c", "d/e", "zz", "a2", "x"};
    tg_allocator A = {tg_alloc_libc, NULL};
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_json_error err;
    cJSON *d = tg_json_parse(&ar, doc, strlen(doc), NULL, &err);
    tg_policy *p = NULL;
    CHECK(d && tg_policy_compile(&A, d, &p, NULL) == 0);
    if (!p) return;
    uint32_t x = 7;
    int compared = 0;
    for (int round = 0; round < 400; round++) {
        tg_buf b;
        tg_buf_init(&b, A, 0);
        tg_buf_puts(&b, round & 1 ? " { " : "{");
        int n = 1 + round % 6;
        for (int i = 0; i < n; i++) {
            if (i) tg_buf_puts(&b, round & 2 ? " ,\n" : ",");
            x = x * 1103515245u + 12345u;
            tg_buf_printf(&b, "\"%s\"%s", keys[(x >> 16) % 7], round & 4 ? " : " : ":");
            random_value(&b, &x, 0);
        }
        tg_buf_puts(&b, round & 1 ? " } " : "}");
        tg_arena sc;
        tg_arena_init(&sc, A);
        tg_json_limits lim = tg_json_default_limits();
        lim.allow_duplicate_keys = 1; /* (generated keys repeat; the one pass never passes such a text on) */
        cJSON *whole = tg_json_parse(&sc, b.data, b.len, &lim, &err);
        cJSON *members = tg_args_members(&sc, b.data, b.len, p, &lim);
        CHECK_MSG(whole && members, "%s", b.data);
        for (size_t k = 0; whole && members && k < sizeof keys / sizeof *keys; k++) {
            const cJSON *w = tg_json_get(whole, keys[k], strlen(keys[k])), *m = tg_json_get(members, keys[k], strlen(keys[k]));
            int read = tg_policy_reads_member(p, keys[k], strlen(keys[k]));
            CHECK_MSG(read ? (w == NULL ? m == NULL : m != NULL && tg_json_same(w, m)) : m == NULL, "%s in %s", keys[k], b.data);
            compared++;
        }
        tg_arena_free(&sc);
        tg_buf_free(&b);
    }
    CHECK(compared > 2000 && tg_policy_reads_member(p, "d/e", 3) && !tg_policy_reads_member(p, "zz", 2));
    tg_policy_free(p);
    tg_arena_free(&ar);
}

/* A tool's tenant scope holds with or without a policy, in a call and in
 * tg_authorize asked apart alike (the fuzzer's decision oracle found the
 * dry run allowing, without a policy, a call the runtime then denied). */
static void tenant_scope_without_a_policy(void) {
    host_log h = {0};
    tg_runtime *rt = runtime(&h, NULL, NULL);
    const char *t = "{\"name\":\"crm\",\"inputSchema\":{\"type\":\"object\"}}", *opts = "{\"tenant\":\"acme\"}";
    CHECK(tg_register_tool(rt, t, strlen(t), opts, strlen(opts), 1) == TG_OK);
    uint32_t c = 0;
    CHECK(call_ctx(rt, "crm", "{}", NULL, &c) == TG_ERR_DENIED);
    const char *q = "{\"tool\":\"crm\",\"args\":{}}";
    CHECK(tg_authorize(rt, q, strlen(q)) == TG_OK);
    CHECK_MSG(strstr(out(rt), "\"decision\":\"deny\",\"rule\":\"tenant\"") != NULL, "%s", out(rt));
    q = "{\"tool\":\"crm\",\"tenant\":\"acme\"}";
    CHECK(tg_authorize(rt, q, strlen(q)) == TG_OK && strstr(out(rt), "\"decision\":\"allow\"") != NULL);
    CHECK(call_ctx(rt, "crm", "{}", "{\"tenant\":\"acme\"}", &c) == TG_PENDING);
    CHECK(tg_call_complete(rt, c, "\"ok\"", 4, 0) == TG_OK);
    tg_runtime_free(rt);
}

int main(void) {
    abandoned_calls_keep_their_place();
    approval_outlives_flight_limits();
    ask_only_for_valid_arguments();
    approval_shows_what_runs();
    approval_bound_to_context();
    answered_approvals_restored();
    content_blocks_checked();
    content_annotations_checked();
    unknown_context_keys_refused();
    handler_text_is_the_callers_unless_changed();
    conditions_judge_the_members_they_read();
    members_read_are_the_trees();
    tenant_scope_without_a_policy();
    return tg_test_finish("router");
}
