/* runtime_test.c - the C API end to end with a native host: register, call,
 * complete; error values; limits; and SQLite's habit: make every allocation
 * of a whole session fail in turn and check nothing crashes or leaks. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toolgate.h"
#include "../../tests/tg_test.h"

typedef struct host_log {
    uint32_t handler, call;
    char args[256];
    int refuse;
    int invoked;
} host_log;

static int host_invoke(void *ud, uint32_t handler, uint32_t call, const char *args, size_t len, double deadline) {
    (void)deadline;
    host_log *h = ud;
    h->invoked++;
    if (h->refuse) return 1;
    h->handler = handler;
    h->call = call;
    snprintf(h->args, sizeof h->args, "%.*s", (int)len, args);
    return 0;
}

static const char *WEATHER =
    "{\"name\":\"get_weather\",\"description\":\"d\",\"inputSchema\":{\"type\":\"object\","
    "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}";

static const char *out(tg_runtime *rt) { return tg_output(rt, NULL); }
static const char *err(tg_runtime *rt) { return tg_last_error(rt, NULL); }

static tg_status call(tg_runtime *rt, const char *name, const char *args, uint32_t *id) {
    return tg_call_begin(rt, name, strlen(name), args, strlen(args), NULL, 0, id);
}

static void happy_path(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, NULL, NULL, NULL};
    tg_runtime *rt = tg_runtime_new(NULL, &host, NULL, NULL);
    CHECK(tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 7) == TG_OK);
    CHECK(strncmp(out(rt), "{\"name\":\"get_weather\",\"tool\":\"get_weather\",\"digest\":\"", 49) == 0);
    uint32_t id = 0;
    CHECK(call(rt, "get_weather", " {\"city\" : \"Oslo\", \"n\": 1.50} ", &id) == TG_PENDING);
    CHECK(id != 0 && h.call == id && h.handler == 7);
    /* checked in one pass: the handler gets the caller's bytes (from the value on) */
    CHECK_STR(h.args, "{\"city\" : \"Oslo\", \"n\": 1.50} ");
    uint32_t id2 = 0;
    /* 1e0 is beyond the one-pass check: parsed and validated as a tree, and
     * as nothing was put in or taken out, the handler gets the caller's
     * bytes all the same (they parse to the object validated) */
    CHECK(call(rt, "get_weather", " {\"city\" : \"Oslo\", \"n\": 1e0} ", &id2) == TG_PENDING);
    CHECK_STR(h.args, "{\"city\" : \"Oslo\", \"n\": 1e0} ");
    CHECK(tg_call_cancel(rt, id2, "cancelled") == TG_OK);
    const char *res = "{\"temp\":20}";
    CHECK(tg_call_complete(rt, id, res, strlen(res), 0) == TG_OK);
    CHECK_STR(out(rt), "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"temp\\\":20}\"}],\"structuredContent\":{\"temp\":20}}");
    CHECK(tg_call_complete(rt, id, res, strlen(res), 0) == TG_ERR_UNKNOWN_CALL); /* no replay */
    CHECK(strstr(err(rt), "\"code\":\"unknown_call\"") != NULL);
    tg_runtime_free(rt);
}

static void error_values(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, NULL, NULL, NULL};
    tg_runtime *rt = tg_runtime_new(NULL, &host, NULL, NULL);
    tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 1);
    uint32_t id;
    CHECK(tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 2) == TG_ERR_DUPLICATE_TOOL);
    CHECK(strstr(err(rt), "duplicate_tool") != NULL);
    CHECK(call(rt, "nope", "{}", &id) == TG_ERR_UNKNOWN_TOOL && id == 0);
    CHECK(strstr(out(rt), "\"isError\":true") && strstr(out(rt), "\"code\":\"unknown_tool\""));
    CHECK(call(rt, "get_weather", "{}", &id) == TG_ERR_INVALID_ARGUMENTS);
    CHECK(strstr(out(rt), "missing required property \\\"city\\\"") != NULL);
    CHECK(call(rt, "get_weather", "{\"city\":1,}", &id) == TG_ERR_JSON);
    CHECK(strstr(err(rt), "\"offset\":10") != NULL);
    CHECK(h.invoked == 0);
    h.refuse = 1;
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &id) == TG_ERR_HOST);
    h.refuse = 0;
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete(rt, id, "boom", 4, 1) == TG_OK);
    CHECK_STR(out(rt), "{\"content\":[{\"type\":\"text\",\"text\":\"Tool \\\"get_weather\\\" failed: boom\"}],\"isError\":true}");
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete(rt, id, "{not json", 9, 0) == TG_OK);
    CHECK(strstr(out(rt), "\"code\":\"invalid_result\"") != NULL);
    tg_runtime_free(rt);
}

static void limits(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, NULL, NULL, NULL};
    tg_limits l;
    memset(&l, 0, sizeof l);
    l.tools = 1;
    l.pending_calls = 2;
    tg_runtime *rt = tg_runtime_new(&l, &host, NULL, NULL);
    CHECK(tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 1) == TG_OK);
    const char *other = "{\"name\":\"b\",\"inputSchema\":{\"type\":\"object\"}}";
    CHECK(tg_register_tool(rt, other, strlen(other), NULL, 0, 2) == TG_ERR_LIMIT);
    uint32_t a, b, c;
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &a) == TG_PENDING);
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &b) == TG_PENDING);
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &c) == TG_ERR_LIMIT);
    CHECK(tg_call_complete(rt, a, "\"ok\"", 4, 0) == TG_OK);
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &c) == TG_PENDING && c != a && c != b);
    tg_runtime_free(rt);
}

static double fixed_clock(void *ud) {
    (void)ud;
    return 1000.0; /* (no refill is ever due: the limits below refill at 0) */
}

static tg_status call_ctx(tg_runtime *rt, const char *name, const char *args, const char *ctx, uint32_t *id) {
    return tg_call_begin(rt, name, strlen(name), args, strlen(args), ctx, strlen(ctx), id);
}

/* The policy's limits as saved (rate buckets, budget counts), to compare. */
static size_t saved_limits(tg_runtime *rt, char *buf, size_t cap) {
    size_t n = 0;
    CHECK(tg_save_policy_state(rt) == TG_OK);
    const char *o = tg_output(rt, &n);
    CHECK(n <= cap);
    if (n > cap) n = cap;
    memcpy(buf, o, n);
    return n;
}

/* A call's rate-limit token and session-budget count are taken when it is
 * dispatched, not when the policy allows it: a call refused for its
 * arguments (not JSON, invalid, a context value missing) or told to try
 * again later leaves every bucket and budget as it was, and so do dry-run
 * decisions; a call over a limit is still refused first, as rate_limited,
 * before its arguments are looked at. */
static void limits_are_charged_only_for_calls_that_run(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, fixed_clock, NULL, NULL};
    tg_runtime *rt = tg_runtime_new(NULL, &host, NULL, NULL);
    const char *one = "{\"concurrency\":1}";
    CHECK(tg_register_tool(rt, WEATHER, strlen(WEATHER), one, strlen(one), 1) == TG_OK);
    const char *lookup = "{\"name\":\"lookup\",\"inputSchema\":{\"type\":\"object\","
                         "\"properties\":{\"tenant_id\":{\"type\":\"string\"}},\"required\":[\"tenant_id\"]}}";
    const char *ctxp = "{\"context\":{\"tenant_id\":\"tenant\"}}";
    CHECK(tg_register_tool(rt, lookup, strlen(lookup), ctxp, strlen(ctxp), 2) == TG_OK);
    const char *policy =
        "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[{\"id\":\"all\",\"effect\":\"allow\",\"tools\":[\"*\"]}],"
        "\"rate_limits\":[{\"id\":\"w\",\"tools\":[\"get_weather\"],\"capacity\":2,\"refill_per_second\":0}],"
        "\"session_budgets\":[{\"id\":\"calls\",\"tools\":[\"*\"],\"max_calls\":3}]}";
    CHECK(tg_set_policy(rt, policy, strlen(policy)) == TG_OK);
    char before[4096], after[4096];
    size_t nb = saved_limits(rt, before, sizeof before);
    uint32_t id = 0, first = 0;
    for (int i = 0; i < 4; i++) {
        CHECK(call(rt, "get_weather", "{}", &id) == TG_ERR_INVALID_ARGUMENTS);
        CHECK(call(rt, "get_weather", "{\"city\":", &id) == TG_ERR_JSON);
        CHECK(call(rt, "lookup", "{}", &id) == TG_ERR_MISSING_CONTEXT);
        const char *q = "{\"tool\":\"get_weather\",\"explain\":true}";
        CHECK(tg_authorize(rt, q, strlen(q)) == TG_OK && strstr(out(rt), "\"decision\":\"allow\""));
    }
    size_t na = saved_limits(rt, after, sizeof after);
    CHECK(na == nb && memcmp(before, after, nb) == 0); /* not a bucket made, not a token or call counted */
    CHECK(h.invoked == 0);

    CHECK(call(rt, "get_weather", "{\"city\":\"a\"}", &first) == TG_PENDING);
    CHECK(call(rt, "get_weather", "{\"city\":\"b\"}", &id) == TG_ERR_LIMIT); /* concurrency 1: try again later */
    CHECK(tg_call_complete(rt, first, "\"ok\"", 4, 0) == TG_OK);
    CHECK(call(rt, "get_weather", "{\"city\":\"c\"}", &id) == TG_PENDING); /* the second token */
    CHECK(tg_call_complete(rt, id, "\"ok\"", 4, 0) == TG_OK);
    /* both tokens taken: refused before the arguments are looked at */
    CHECK(call(rt, "get_weather", "{\"city\":\"d\"}", &id) == TG_ERR_RATE_LIMITED);
    CHECK(call(rt, "get_weather", "{}", &id) == TG_ERR_RATE_LIMITED);
    CHECK(strstr(out(rt), "\"code\":\"rate_limited\"") && strstr(out(rt), "rate limit 'w' exhausted"));
    /* two calls of three counted: one more runs, then the budget refuses */
    const char *t1 = "{\"context\":{\"tenant\":\"t1\"}}";
    CHECK(call_ctx(rt, "lookup", "{\"x\":1}", t1, &id) == TG_PENDING);
    CHECK(tg_call_complete(rt, id, "\"ok\"", 4, 0) == TG_OK);
    CHECK(call_ctx(rt, "lookup", "{}", t1, &id) == TG_ERR_RATE_LIMITED);
    CHECK(strstr(out(rt), "session budget 'calls' used up (3 of 3 calls)") != NULL);
    CHECK(h.invoked == 3);
    tg_runtime_free(rt);
}

typedef struct failing {
    long countdown;
    size_t live;
} failing;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    failing *f = ud;
    if (nsize == 0) {
        if (ptr) f->live--;
        free(ptr);
        return NULL;
    }
    if (f->countdown-- <= 0) return NULL;
    void *p = realloc(ptr, nsize);
    if (p && !ptr) f->live++;
    (void)osize;
    return p;
}

static void allocation_failures(void) {
    int completed_at = -1;
    for (long n = 0; n < 5000 && completed_at < 0; n++) {
        failing f = {n, 0};
        host_log h = {0};
        tg_host host = {&h, host_invoke, NULL, NULL, NULL};
        tg_runtime *rt = tg_runtime_new(NULL, &host, failing_alloc, &f);
        int ok = 0;
        if (rt) {
            uint32_t id = 0;
            tg_status s1 = tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 1);
            CHECK(s1 == TG_OK || s1 == TG_ERR_NOMEM);
            tg_status s2 = call(rt, "get_weather", "{\"city\":\"Oslo\",\"tags\":[1,2,3]}", &id);
            CHECK_MSG(s2 == TG_PENDING || s2 == TG_ERR_NOMEM || (s1 != TG_OK && s2 == TG_ERR_UNKNOWN_TOOL), "status %d at %ld", (int)s2, n);
            tg_status s3 = s2 == TG_PENDING ? tg_call_complete(rt, id, "{\"a\":[1]}", 9, 0) : TG_ERR_NOMEM;
            CHECK(s3 == TG_OK || s3 == TG_ERR_NOMEM);
            ok = s1 == TG_OK && s2 == TG_PENDING && s3 == TG_OK && strstr(out(rt), "structuredContent");
            tg_runtime_free(rt);
        }
        CHECK_MSG(f.live == 0, "failure at allocation %ld leaked %zu blocks", n, f.live);
        if (ok) completed_at = (int)n;
    }
    CHECK_MSG(completed_at > 5, "session completed after %d allocations", completed_at);
}

static void memory_budget(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, NULL, NULL, NULL};
    tg_limits l;
    memset(&l, 0, sizeof l);
    l.memory_bytes = 3u << 20;
    l.args_bytes = 16u << 20;
    tg_runtime *rt = tg_runtime_new(&l, &host, NULL, NULL);
    CHECK(rt != NULL);
    size_t n = 4000000;
    char *big = malloc(n + 64);
    strcpy(big, "{\"city\":\"");
    memset(big + 9, 'x', n);
    strcpy(big + 9 + n, "\"}");
    CHECK(tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 1) == TG_OK);
    uint32_t id;
    /* checked in one pass, the arguments are never copied: within the cap */
    CHECK(call(rt, "get_weather", big, &id) == TG_PENDING);
    CHECK(tg_memory_used(rt) <= l.memory_bytes);
    CHECK(tg_call_cancel(rt, id, "cancelled") == TG_OK);
    /* a tree of them is over the cap (a duplicate key sends the call to the tree reader) */
    strcpy(big + 9 + n, "\",\"city\":\"y\"}");
    CHECK(call(rt, "get_weather", big, &id) == TG_ERR_NOMEM);
    CHECK(tg_memory_used(rt) <= l.memory_bytes);
    CHECK(call(rt, "get_weather", "{\"city\":\"x\"}", &id) == TG_PENDING);
    free(big);
    tg_runtime_free(rt);
}

/* tg_call_complete_text: plain text becomes the text result as it is
 * (TG_OK_TEXT), anything else the result tg_call_complete would give */
/* 1 when text is strict JSON (tg_check_json of a runtime of its own). */
static int strict_json(const char *text) {
    tg_runtime *checker = tg_runtime_new(NULL, NULL, NULL, NULL);
    int ok = text && tg_check_json(checker, text, strlen(text), 0) == TG_OK;
    tg_runtime_free(checker);
    return ok;
}

static int last_audit_json;
static void audit_json(void *ud, const char *event, size_t len) {
    (void)ud;
    char copy[1024];
    if (len >= sizeof copy) len = sizeof copy - 1;
    memcpy(copy, event, len);
    copy[len] = '\0';
    last_audit_json = strict_json(copy);
}

/* Whatever bytes a model's tool name or a handler's error text holds, what
 * the runtime writes (the result for the model, the last error, the audit
 * event) is strict JSON. */
static void outputs_stay_json(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, NULL, NULL, audit_json};
    tg_runtime *rt = tg_runtime_new(NULL, &host, NULL, NULL);
    CHECK(tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 1) == TG_OK);
    char long_name[200] = "a";
    for (int i = 0; i < 80; i++) strcat(long_name, "\xc3\xa9");
    const char *names[] = {"a\xff", long_name};
    for (int i = 0; i < 2; i++) {
        uint32_t id;
        last_audit_json = 0;
        CHECK(tg_call_begin(rt, names[i], strlen(names[i]), "{}", 2, NULL, 0, &id) == TG_ERR_UNKNOWN_TOOL);
        CHECK(strict_json(out(rt)));
        CHECK(strict_json(tg_last_error(rt, NULL)));
        CHECK(last_audit_json);
    }
    uint32_t id = 0;
    CHECK(call(rt, "get_weather", "{\"city\":\"Oslo\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete(rt, id, "oops \xff\xfe", 7, 1) == TG_OK);
    CHECK(strict_json(out(rt)));
    CHECK(tg_accept_change(rt, "oops \xff\xfe", 7, NULL, 0) == TG_ERR_UNKNOWN_TOOL);
    CHECK(strict_json(tg_last_error(rt, NULL)));
    tg_runtime_free(rt);
}

/* limits.descriptor_bytes bounds each tool of a batch (a tools/list), as it
 * bounds tg_register_tool's one descriptor */
static void batch_entries_bounded(void) {
    tg_limits l;
    tg_limits_default(&l);
    l.descriptor_bytes = 200;
    tg_runtime *rt = tg_runtime_new(&l, NULL, NULL, NULL);
    char big[400], batch[800];
    snprintf(big, sizeof big, "{\"name\":\"big\",\"inputSchema\":{\"type\":\"object\"},\"_meta\":{\"x\":\"%0250d\"}}", 0);
    CHECK(tg_register_tool(rt, big, strlen(big), NULL, 0, 1) == TG_ERR_TOO_LARGE);
    snprintf(batch, sizeof batch, "{\"source\":\"s\",\"tools\":[{\"tool\":%s,\"handler\":1},"
             "{\"tool\":{\"name\":\"small\",\"inputSchema\":{\"type\":\"object\"}},\"handler\":2}]}", big);
    CHECK(tg_register_batch(rt, batch, strlen(batch)) == TG_OK);
    CHECK(strstr(out(rt), "\"rejected\":[{\"tool\":\"big\"") != NULL);
    CHECK(strstr(out(rt), "too_large") != NULL);
    CHECK(strstr(out(rt), "\"registered\":[{\"name\":\"mcp__s__small\"") != NULL);
    tg_runtime_free(rt);
}

/* Appends ,"k<i>":0 (or "k<i>" in a list) for i in [from, to) stepping by step. */
static size_t put_keys(char *p, long from, long to, long step, int members) {
    size_t o = 0;
    for (long i = from; i != to; i += step)
        o += (size_t)sprintf(p + o, members ? "%s\"k%ld\":0" : "%s\"k%ld\"", o ? "," : "", i);
    return o;
}

/* Work that grew as names x members (required, dependentRequired) or as
 * members squared (an object compared with its reordered copy: uniqueItems,
 * const) ends promptly: seconds each before, with 40,000 members. */
static void quadratic_work_bounded(void) {
    enum { N = 40000 };
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    char *schema = malloc(N * 12 + 200), *inst = malloc(2 * N * 16 + 100);
    uint32_t id;
    size_t o;
    /* required: every name present */
    o = (size_t)sprintf(schema, "{\"type\":\"object\",\"required\":[");
    o += put_keys(schema + o, 0, N, 1, 0);
    strcpy(schema + o, "]}");
    o = (size_t)sprintf(inst, "{");
    o += put_keys(inst + o, N - 1, -1, -1, 1);
    strcpy(inst + o, "}");
    CHECK(tg_compile_schema(rt, schema, strlen(schema), NULL, 0, &id) == TG_OK);
    clock_t t0 = clock();
    CHECK(tg_validate(rt, id, inst, strlen(inst), 1) == 1);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_MSG(secs < tg_test_seconds(1.0), "required: took %.3f s", secs);
    /* uniqueItems: an object and the same object with its members reversed */
    o = (size_t)sprintf(inst, "[{");
    o += put_keys(inst + o, 0, N, 1, 1);
    o += (size_t)sprintf(inst + o, "},{");
    o += put_keys(inst + o, N - 1, -1, -1, 1);
    strcpy(inst + o, "}]");
    CHECK(tg_compile_schema(rt, "{\"uniqueItems\":true}", 20, NULL, 0, &id) == TG_OK);
    t0 = clock();
    CHECK(tg_validate(rt, id, inst, strlen(inst), 1) == 0);
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_MSG(secs < tg_test_seconds(1.0), "uniqueItems: took %.3f s", secs);
    free(schema);
    free(inst);
    tg_runtime_free(rt);
}

/* A member whose key holds U+0000 ("name\u0000x") is not the field "name":
 * a change to it is a change of the definition, held for review. */
static void keys_with_nul_are_members(void) {
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    static const char *const V[] = {
        "{\"source\":\"s\",\"replace\":true,\"tools\":[{\"tool\":{\"name\":\"t\",\"name\\u0000x\":\"a\","
        "\"inputSchema\":{\"type\":\"object\"}},\"handler\":1}]}",
        "{\"source\":\"s\",\"replace\":true,\"tools\":[{\"tool\":{\"name\":\"t\",\"name\\u0000x\":\"read ~/.ssh\","
        "\"inputSchema\":{\"type\":\"object\"}},\"handler\":1}]}"};
    CHECK(tg_register_batch(rt, V[0], strlen(V[0])) == TG_OK && strstr(out(rt), "\"registered\":[{") != NULL);
    CHECK(tg_register_batch(rt, V[1], strlen(V[1])) == TG_OK);
    CHECK(strstr(out(rt), "\"changed\":[{\"name\":\"mcp__s__t\",\"fields\":[\"other\"]") != NULL);
    tg_runtime_free(rt);
}

static void text_results(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, NULL, NULL, NULL};
    tg_limits l;
    tg_limits_default(&l);
    l.result_bytes = 64;
    tg_runtime *rt = tg_runtime_new(&l, &host, NULL, NULL);
    static const char *const STRUCTURED =
        "{\"name\":\"stats\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}}";
    CHECK(tg_register_tool(rt, WEATHER, strlen(WEATHER), NULL, 0, 1) == TG_OK);
    CHECK(tg_register_tool(rt, STRUCTURED, strlen(STRUCTURED), NULL, 0, 2) == TG_OK);
    uint32_t id = 0;
    CHECK(call(rt, "get_weather", "{\"city\":\"Oslo\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete_text(rt, id, "sunny \"and\" 20\xc2\xb0", 16) == TG_OK_TEXT);
    CHECK_STR(out(rt), ""); /* (the host builds that result from its text) */
    /* at the cap exactly, as JSON: 64 bytes with the quotes and the escape */
    char at_cap[62];
    memset(at_cap, 'y', sizeof at_cap);
    at_cap[0] = '\n';
    CHECK(call(rt, "get_weather", "{\"city\":\"Oslo\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete_text(rt, id, at_cap, sizeof at_cap - 1) == TG_OK_TEXT);
    CHECK(call(rt, "get_weather", "{\"city\":\"Oslo\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete_text(rt, id, at_cap, sizeof at_cap) == TG_OK);
    CHECK(strstr(out(rt), "\"too_large\"") != NULL);
    CHECK(tg_call_complete_text(rt, id, "again", 5) == TG_ERR_UNKNOWN_CALL); /* finished once */
    /* invalid UTF-8: an error result, not TG_OK_TEXT */
    CHECK(call(rt, "get_weather", "{\"city\":\"Oslo\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete_text(rt, id, "bad \xff", 5) == TG_OK);
    CHECK(strstr(out(rt), "\"isError\":true") != NULL);
    /* over result_bytes once written as JSON */
    char big[80];
    memset(big, 'x', sizeof big);
    CHECK(call(rt, "get_weather", "{\"city\":\"Oslo\"}", &id) == TG_PENDING);
    CHECK(tg_call_complete_text(rt, id, big, sizeof big) == TG_OK);
    CHECK(strstr(out(rt), "\"isError\":true") != NULL);
    /* a structured result under the cap as the handler wrote it, over it as
     * the caller would get it (the value again, escaped, as its text) */
    CHECK(call(rt, "stats", "{}", &id) == TG_PENDING);
    static const char QUOTES[] = "{\"a\":\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\"}";
    CHECK(sizeof QUOTES - 1 <= 64);
    CHECK(tg_call_complete(rt, id, QUOTES, sizeof QUOTES - 1, 0) == TG_OK);
    CHECK(strstr(out(rt), "\"too_large\"") != NULL);
    /* a tool that promises structured output cannot answer with text */
    CHECK(call(rt, "stats", "{}", &id) == TG_PENDING);
    CHECK(tg_call_complete_text(rt, id, "ok", 2) == TG_OK);
    CHECK(strstr(out(rt), "outputSchema") != NULL && strstr(out(rt), "\"isError\":true") != NULL);
    tg_runtime_free(rt);
}

/* A dialect's metaschema is compiled when its first schema shows up, then
 * kept: creating a runtime compiles none. */
static void metaschemas_on_first_use(void) {
    tg_host host = {NULL, host_invoke, NULL, NULL, NULL};
    tg_runtime *rt = tg_runtime_new(NULL, &host, NULL, NULL);
    static const char *const S7 = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\"}";
    size_t m0 = tg_memory_used(rt), m1, m2;
    uint32_t id;
    CHECK(tg_compile_schema(rt, S7, strlen(S7), NULL, 0, &id) == TG_OK);
    CHECK(tg_schema_release(rt, id) == TG_OK);
    m1 = tg_memory_used(rt);
    CHECK(m1 > m0 + 10000); /* the draft-07 metaschema, compiled now and kept */
    CHECK(tg_compile_schema(rt, S7, strlen(S7), NULL, 0, &id) == TG_OK);
    CHECK(tg_schema_release(rt, id) == TG_OK);
    m2 = tg_memory_used(rt);
    CHECK(m2 == m1); /* not compiled twice */
    tg_runtime_free(rt);
}

/* A new runtime with schema s compiled as *id. */
static tg_runtime *with_schema(const char *s, uint32_t *id) {
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    CHECK(tg_compile_schema(rt, s, strlen(s), NULL, 0, id) == TG_OK);
    return rt;
}

/* tg_validate's errors as JSON, and as records (tg_validate_records): the
 * same errors, fields back to back with their UTF-16 lengths; the first
 * error comes from the one pass or the evaluator alike. */
static void validation_errors(void) {
    static const char *const S =
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},\"s\":{\"maxLength\":2}},"
        "\"required\":[\"n\"],\"additionalProperties\":false}";
    uint32_t id = 0;
    size_t n = 0;
    tg_runtime *rt = with_schema(S, &id);
    CHECK(tg_validate(rt, id, "{\"n\":1}", 7, 20) == 1 && tg_output_lengths(rt, &n) == NULL && n == 0);
    /* first error: "n" is a string; a key of an astral character (2 UTF-16 units) is not allowed */
    const char *bad = "{\"n\":\"5\",\"\xf0\x9f\x98\x80/~\":1}";
    CHECK(tg_validate(rt, id, bad, strlen(bad), 1) == 0);
    CHECK_STR(out(rt), "[{\"instanceLocation\":\"/n\",\"keywordLocation\":\"/properties/n/type\","
                       "\"message\":\"expected integer, got string \\\"5\\\"\"}]");
    CHECK(tg_validate(rt, id, bad, strlen(bad), 20) == 0);
    CHECK(strstr(out(rt), "\"instanceLocation\":\"/\xf0\x9f\x98\x80~1~0\",\"keywordLocation\":\"/additionalProperties\"") != NULL);
    CHECK(tg_validate_records(rt, id, bad, strlen(bad), 20) == 0);
    const uint32_t *lens = tg_output_lengths(rt, &n);
    size_t len = 0;
    const char *rec = tg_output(rt, &len);
    static const char R[] = "/n/properties/n/typeexpected integer, got string \"5\""
                            "/\xf0\x9f\x98\x80~1~0/additionalPropertiesproperty \"\xf0\x9f\x98\x80/~\" is not allowed";
    static const uint32_t L[] = {2, 18, 32, 7, 21, 30};
    CHECK(n == 6 && lens && len == sizeof R - 1 && memcmp(rec, R, len) == 0);
    for (size_t i = 0; lens && i < 6 && n == 6; i++) CHECK_MSG(lens[i] == L[i], "length %zu: %u", i, lens[i]);
    /* the first error alone, as a record, from the one pass */
    CHECK(tg_validate_records(rt, id, bad, strlen(bad), 1) == 0);
    lens = tg_output_lengths(rt, &n);
    rec = tg_output(rt, &len);
    CHECK(n == 3 && len == 2 + 18 + 32 && memcmp(rec, R, len) == 0);
    /* missing "n" comes first: required precedes properties */
    CHECK(tg_validate_records(rt, id, "{\"s\":\"abc\"}", 11, 1) == 0);
    rec = tg_output(rt, &len);
    CHECK(len == strlen("/requiredmissing required property \"n\"") &&
          memcmp(rec, "/requiredmissing required property \"n\"", len) == 0);
    /* not JSON: an error, no records */
    CHECK(tg_validate_records(rt, id, "{\"n\":", 5, 1) == TG_ERR_JSON && tg_output_lengths(rt, &n) == NULL);
    tg_runtime_free(rt);
}

/* tg_validate_first: a first error whose message is fixed words and one
 * part of the text comes back as a code (offsets into the text, the site
 * of its fixed words); tg_schema_site gives those words with 0x01 where the
 * part goes; any other first error comes back as a record. */
static void coded_first_errors(void) {
    static const char *const S =
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
        "\"list\":{\"items\":{\"maxLength\":2}}},\"required\":[\"n\"],\"additionalProperties\":false}";
    uint32_t id = 0;
    size_t n = 0, len = 0;
    tg_runtime *rt = with_schema(S, &id);
    /* the value's part: /n is a string, bytes 6..7 of the text */
    const char *bad = "{\"n\":\"5\"}";
    CHECK(tg_validate_first(rt, id, bad, strlen(bad)) == 0);
    const uint32_t *c = tg_output_codes(rt, &n);
    CHECK(c && n == TG_SCODE_PATH + 2 && tg_output_lengths(rt, NULL) == NULL);
    if (!c || n != TG_SCODE_PATH + 2) { tg_runtime_free(rt); return; }
    CHECK(c[TG_SCODE_DYN] == TG_SDYN_VALUE && c[TG_SCODE_VKIND] == TG_SVAL_STRING);
    CHECK(c[TG_SCODE_VSTART] == 6 && c[TG_SCODE_VEND] == 7);
    CHECK(c[TG_SCODE_DEPTH] == 1 && c[TG_SCODE_PATH] == 2 && c[TG_SCODE_PATH + 1] == 1); /* "n" */
    uint32_t site = c[TG_SCODE_SITE], variant = c[TG_SCODE_VARIANT];
    CHECK(tg_schema_site(rt, id, site, variant) == TG_OK);
    const char *rec = tg_output(rt, &len);
    const uint32_t *lens = tg_output_lengths(rt, &n);
    static const char W[] = "/properties/n/typeexpected integer, got \x01";
    CHECK(n == 2 && lens && lens[0] == 18 && len == sizeof W - 1 && memcmp(rec, W, len) == 0);
    /* a count and an array index: /list/1 is 3 characters long */
    const char *longer = "{\"n\":1,\"list\":[\"ab\",\"abc\"]}";
    CHECK(tg_validate_first(rt, id, longer, strlen(longer)) == 0);
    c = tg_output_codes(rt, &n);
    CHECK(c && c[TG_SCODE_DYN] == TG_SDYN_COUNT && c[TG_SCODE_COUNT] == 3 && c[TG_SCODE_DEPTH] == 2);
    CHECK(c && c[TG_SCODE_PATH + 2] == TG_SCODE_INDEX && c[TG_SCODE_PATH + 3] == 1);
    /* a member additionalProperties refuses: its name's part */
    const char *extra = "{\"n\":1,\"zz\":0}";
    CHECK(tg_validate_first(rt, id, extra, strlen(extra)) == 0);
    c = tg_output_codes(rt, &n);
    CHECK(c && c[TG_SCODE_DYN] == TG_SDYN_KEY && c[TG_SCODE_KSTART] == 8 && c[TG_SCODE_KLEN] == 2 && c[TG_SCODE_DEPTH] == 0);
    if (c) CHECK(tg_schema_site(rt, id, c[TG_SCODE_SITE], c[TG_SCODE_VARIANT]) == TG_OK);
    rec = tg_output(rt, &len);
    static const char K[] = "/additionalPropertiesproperty \x01 is not allowed";
    CHECK(len == sizeof K - 1 && memcmp(rec, K, len) == 0);
    /* an escaped string has no rule: a record, as tg_validate_records leaves it */
    const char *esc = "{\"n\":\"\\u0035\"}";
    CHECK(tg_validate_first(rt, id, esc, strlen(esc)) == 0);
    CHECK(tg_output_codes(rt, &n) == NULL && n == 0 && tg_output_lengths(rt, &n) != NULL && n == 3);
    /* a site that is not one: refused by name */
    CHECK(tg_schema_site(rt, id, 100000, 0) == TG_ERR_UNKNOWN_TOOL);
    CHECK(tg_schema_site(rt, id + 1, site, variant) == TG_ERR_UNKNOWN_TOOL);
    tg_runtime_free(rt);
}

/* Allocations of 256..512 fresh bytes refused while *ud is set: the first
 * buffer of a coded error (and nothing else the call below allocates). */
static void *refuse_small_fresh(void *ud, void *p, size_t os, size_t ns) {
    (void)os;
    if (ns == 0) { free(p); return NULL; }
    if (*(int *)ud && !p && ns >= 256 && ns <= 512) return NULL;
    return realloc(p, ns);
}

/* A coded error whose words found no memory fails that call alone: the
 * next validations, coded or not, are judged (the failed write was kept
 * and every later validation said out of memory, valid ones included). */
static void coded_error_out_of_memory(void) {
    int refuse = 0;
    tg_runtime *rt = tg_runtime_new(NULL, NULL, refuse_small_fresh, &refuse);
    uint32_t sid = 0, nid = 0;
    const char *S = "{\"properties\":{\"a\":{\"type\":\"integer\"}}}";
    const char *N = "{\"not\":{\"type\":\"string\"}}"; /* (not: the evaluator's, never the one pass's) */
    const char *bad = "{\"a\":\"x\"}";
    CHECK(tg_compile_schema(rt, S, strlen(S), NULL, 0, &sid) == TG_OK);
    CHECK(tg_compile_schema(rt, N, strlen(N), NULL, 0, &nid) == TG_OK);
    CHECK(tg_validate_records(rt, sid, bad, strlen(bad), 1) == 0); /* (the other buffers warmed) */
    refuse = 1;
    /* (the code cannot be written, nor the words the evaluator would
     * write instead: that call fails, and never says valid) */
    CHECK(tg_validate_first(rt, sid, bad, strlen(bad)) < 0 && tg_output_codes(rt, NULL) == NULL);
    refuse = 0;
    CHECK(tg_validate(rt, nid, "1", 1, 0) == 1);
    CHECK(tg_validate_records(rt, sid, bad, strlen(bad), 5) == 0);
    size_t n = 0;
    CHECK(tg_validate_first(rt, sid, bad, strlen(bad)) == 0 && tg_output_codes(rt, &n) != NULL && n > 0);
    tg_runtime_free(rt);
}

/* A source registered under a template of its own: tg_model_name and
 * tg_model_name_key answer under that template when given it (the host
 * passes the template the source was listed with), under the default when
 * not, and the name is the one the registry gave. */
static void model_names_under_templates(void) {
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    static const char B[] = "{\"source\":\"github\",\"nameTemplate\":\"gh_{tool}\",\"tools\":[{\"tool\":"
                            "{\"name\":\"Delete-Repo\",\"inputSchema\":{\"type\":\"object\"}},\"handler\":1}]}";
    CHECK(tg_register_batch(rt, B, strlen(B)) == TG_OK && strstr(out(rt), "\"name\":\"gh_Delete-Repo\""));
    CHECK(tg_model_name(rt, "github", 6, "Delete-Repo", 11, "gh_{tool}") == TG_OK && strcmp(out(rt), "gh_Delete-Repo") == 0);
    CHECK(tg_model_name(rt, "github", 6, "Delete-Repo", 11, NULL) == TG_OK &&
          strcmp(out(rt), "mcp__github__Delete-Repo") == 0);
    CHECK(tg_model_name_key(rt, "github", 6, "Delete-Repo", 11, "gh_{tool}") == TG_OK);
    CHECK_STR(out(rt), "gh_delete_repo");
    CHECK(tg_model_name_key(rt, "github", 6, "Delete-Repo", 11, NULL) == TG_OK);
    CHECK_STR(out(rt), "mcp__glthub__delete_repo"); /* ("i" and "l" are one letter to the key) */
    tg_runtime_free(rt);
}

/* Schema options that are not strict JSON (resources the host gave as
 * text) are a JSON error that says why, not "must be an object". */
static void schema_options_read_strictly(void) {
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    uint32_t id;
    static const char O[] = "{\"resources\":{\"urn:s\":{\"type\":\"string\",\"type\":\"integer\"}}}";
    CHECK(tg_compile_schema(rt, "{\"$ref\":\"urn:s\"}", strlen("{\"$ref\":\"urn:s\"}"), O, strlen(O), &id) == TG_ERR_JSON);
    CHECK_MSG(strstr(err(rt), "schema options:") != NULL, "%s", err(rt));
    CHECK(tg_compile_schema(rt, "{}", 2, "[]", 2, &id) == TG_ERR_INVALID_REQUEST);
    tg_runtime_free(rt);
}

/* A snapshot pinned before a tool's options gained a context parameter
 * lists it as the options say now (the parameter hidden), as its calls
 * already judge it; the pinned set's other tools come from its cache. */
static int holds(const char *from, const char *to, const char *word) {
    const char *at = strstr(from, word);
    return at && at < to;
}

static void pinned_listing_follows_new_options(void) {
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    const char *v1 = "{\"source\":\"p\",\"tools\":["
                     "{\"tool\":{\"name\":\"search\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
                     "{\"q\":{\"type\":\"string\"},\"tenant_id\":{\"type\":\"string\"}},\"required\":[\"q\",\"tenant_id\"]}},\"handler\":1},"
                     "{\"tool\":{\"name\":\"other\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
                     "{\"tenant_id\":{\"type\":\"string\"}}}},\"handler\":2}]}";
    CHECK(tg_register_batch(rt, v1, strlen(v1)) == TG_OK);
    uint32_t snap = 0;
    CHECK(tg_snapshot(rt, &snap) == TG_OK && snap);
    char req[64];
    snprintf(req, sizeof req, "{\"snapshot\":%u,\"format\":\"anthropic\"}", snap);
    CHECK(tg_list_tools(rt, req, strlen(req)) == TG_OK); /* (fills the pinned set's cache) */
    char *v2 = malloc(strlen(v1) + 64);
    const char *at = strstr(v1, ",\"handler\":1}");
    size_t head = (size_t)(at - v1);
    sprintf(v2, "%.*s,\"options\":{\"context\":{\"tenant_id\":\"tenant\"}}%s", (int)head, v1, at);
    CHECK(tg_register_batch(rt, v2, strlen(v2)) == TG_OK && strstr(out(rt), "\"updated\":[\"mcp__p__search\"]"));
    for (int pass = 0; pass < 2; pass++) { /* (the second from the cache again) */
        CHECK(tg_list_tools(rt, req, strlen(req)) == TG_OK);
        const char *search = strstr(out(rt), "\"name\":\"mcp__p__search\"");
        const char *other = strstr(out(rt), "\"name\":\"mcp__p__other\"");
        CHECK_MSG(search && other, "%s", out(rt));
        /* search (listed last) hides tenant_id now; other (options unchanged) still shows its own */
        CHECK_MSG(other && search && other < search && holds(other, search, "tenant_id"), "%s", out(rt));
        const char *end = search ? strstr(search, "\"report\"") : NULL;
        CHECK_MSG(end && !holds(search, end, "tenant_id"), "%s", out(rt));
    }
    CHECK(tg_list_tools(rt, "{\"format\":\"anthropic\"}", 22) == TG_OK);
    const char *live = strstr(out(rt), "\"name\":\"mcp__p__search\""), *live_end = live ? strstr(live, "\"report\"") : NULL;
    CHECK(live_end && !holds(live, live_end, "tenant_id"));
    free(v2);
    tg_runtime_free(rt);
}

/* A source's tools come back from their states under any json_depth: the
 * two levels a state adds are added without wrapping past SIZE_MAX (which
 * read as a limit of 1 and refused every state). */
static void restore_under_the_largest_depth(void) {
    host_log h = {0};
    tg_host host = {&h, host_invoke, NULL, NULL, NULL};
    tg_limits l;
    tg_limits_default(&l);
    l.json_depth = SIZE_MAX;
    tg_runtime *a = tg_runtime_new(&l, &host, NULL, NULL), *b = tg_runtime_new(&l, &host, NULL, NULL);
    CHECK(a && b);
    if (!a || !b) return;
    tg_track_sources(a, 1);
    const char *batch = "{\"source\":\"gh\",\"replace\":true,\"tools\":[{\"tool\":{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}},\"handler\":1}]}";
    CHECK(tg_register_batch(a, batch, strlen(batch)) == TG_OK);
    CHECK(tg_source_changes(a) == TG_OK);
    size_t n;
    const char *log = tg_output(a, &n);
    const char *tab = memchr(log, '\t', n), *end = tab ? memchr(tab, '\n', n - (size_t)(tab - log)) : NULL;
    CHECK(tab && end);
    if (tab && end) {
        char state[4096];
        int sl = snprintf(state, sizeof state, "[%.*s]", (int)(end - tab - 1), tab + 1);
        CHECK(tg_restore_source(b, "gh", 2, state, (size_t)sl, 0) == TG_OK);
        CHECK(strstr(tg_output(b, NULL), "\"skipped\":0,\"done\":1") != NULL);
    }
    tg_runtime_free(a);
    tg_runtime_free(b);
}

/* A batch whose tools come last is built tool by tool as it is read
 * (src/runtime/batch.c); one in any other order is read whole and built
 * after. Both give the same result to the byte, and every refusal of the
 * one is the other's: a member after "tools" is heard, never the value it
 * had (none) while the tools were read. */
static void batch_read_in_any_order(void) {
    static const char TOOLS[] =
        "\"tools\":[{\"tool\":{\"name\":\"a.b\",\"description\":\"x\\u200by\",\"inputSchema\":{\"type\":\"object\","
        "\"properties\":{\"n\":{\"type\":\"integer\"}}}},\"handler\":1},"
        "{\"tool\":{\"name\":\"bad\",\"inputSchema\":{\"type\":\"object\",\"minLength\":-1}},\"handler\":2},"
        "{\"tool\":{\"name\":\"c\",\"inputSchema\":{\"type\":\"object\"}},\"handler\":3,\"options\":{\"readOnly\":true}}]";
    static const char *const HEAD[] = {"\"source\":\"gh\",\"replace\":true", "\"source\":\"gh\",\"replace\":true,\"nameTemplate\":\"t_{tool}\""};
    char first[2048], second[2048];
    for (int k = 0; k < 2; k++) {
        /* k: the same parts, "tools" last (streamed) and first (read whole) */
        tg_runtime *a = tg_runtime_new(NULL, NULL, NULL, NULL), *b = tg_runtime_new(NULL, NULL, NULL, NULL);
        snprintf(first, sizeof first, "{%s,%s}", HEAD[k], TOOLS);
        snprintf(second, sizeof second, "{%s,%s}", TOOLS, HEAD[k]);
        CHECK(tg_register_batch(a, first, strlen(first)) == TG_OK && tg_register_batch(b, second, strlen(second)) == TG_OK);
        size_t la = 0, lb = 0;
        const char *oa = tg_output(a, &la), *ob = tg_output(b, &lb);
        CHECK(la == lb && memcmp(oa, ob, la) == 0);
        CHECK(strstr(oa, k ? "\"name\":\"t_a_b\"" : "\"name\":\"mcp__gh__a_b\"") && strstr(oa, "\"code\":\"invalid_schema\""));
        tg_runtime_free(a);
        tg_runtime_free(b);
    }
    /* members after the tools that change how they are named: the later word holds */
    static const char *const LATE[][2] = {{"{\"source\":\"gh\",", ",\"replace\":true}"},
                                          {"{\"source\":\"gh\",", ",\"nameTemplate\":\"t_{tool}\"}"},
                                          {"{\"nameTemplate\":\"t_{tool}\",", ",\"source\":\"gh\"}"}};
    for (int k = 0; k < 3; k++) {
        tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
        snprintf(first, sizeof first, "%s%s%s", LATE[k][0], TOOLS, LATE[k][1]);
        CHECK_MSG(tg_register_batch(rt, first, strlen(first)) == TG_OK, "%s", err(rt));
        CHECK(strstr(out(rt), k ? "\"name\":\"t_a_b\"" : "\"name\":\"mcp__gh__a_b\"") != NULL);
        tg_runtime_free(rt);
    }
    /* refusals, streamed or not: a malformed entry, a source that would not read back */
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    static const char *const REFUSED[] = {
        "{\"source\":\"gh\",\"tools\":[{\"tool\":{\"name\":\"a\",\"inputSchema\":{}},\"handler\":1},{\"handler\":2}]}",
        "{\"tools\":[{\"tool\":{\"name\":\"a\",\"inputSchema\":{}},\"handler\":1},{\"handler\":2}],\"source\":\"gh\"}",
        "{\"source\":\"g__h\",\"tools\":[{\"tool\":{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}},\"handler\":1}]}",
        "{\"tools\":[{\"tool\":{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}},\"handler\":1}],\"source\":\"g__h\"}",
        "{\"source\":\"g\\u0000h\",\"tools\":[{\"tool\":{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}},\"handler\":1}]}",
    };
    for (size_t i = 0; i < sizeof REFUSED / sizeof REFUSED[0]; i++) {
        CHECK_MSG(tg_register_batch(rt, REFUSED[i], strlen(REFUSED[i])) == TG_ERR_INVALID_REQUEST, "%s", REFUSED[i]);
        CHECK(strstr(err(rt), i < 2 ? "each entry needs" : i < 4 ? "must not hold \\\"__\\\"" : "U+0000"));
    }
    CHECK(tg_list_tools(rt, "{}", 2) == TG_OK && strstr(out(rt), "\"tools\":[]"));
    tg_runtime_free(rt);
}

int main(void) {
    happy_path();
    restore_under_the_largest_depth();
    error_values();
    limits();
    limits_are_charged_only_for_calls_that_run();
    allocation_failures();
    memory_budget();
    text_results();
    outputs_stay_json();
    batch_entries_bounded();
    quadratic_work_bounded();
    keys_with_nul_are_members();
    metaschemas_on_first_use();
    validation_errors();
    coded_first_errors();
    coded_error_out_of_memory();
    model_names_under_templates();
    schema_options_read_strictly();
    pinned_listing_follows_new_options();
    batch_read_in_any_order();
    return tg_test_finish("runtime");
}
