/* policy_test.c - the permission engine, one behaviour per function: grants
 * and bundles, privileged tools, modes, scheduler sessions, argument
 * conditions (path traversal too), tenants, rate limits, budgets, approvals
 * and tokens, name tricks, invalid documents, explain, listing, speed, and
 * allocation failure at every call site. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "policy.h"
#include "policy_internal.h"
#include "../crypto/sha256.h"
#include "../json/json.h"
#include "../registry/names.h"
#include "../../tests/tg_test.h"

/* ---- a counting allocator that can fail the n-th allocation ---- */

typedef struct counting {
    size_t live;
    long allocs, fail_at; /* fail_at 0: never */
} counting;

static void *count_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    counting *c = ud;
    if (nsize == 0) {
        if (ptr) {
            c->live -= osize;
            free(ptr);
        }
        return NULL;
    }
    if (c->fail_at && ++c->allocs >= c->fail_at) return NULL;
    void *r = realloc(ptr, nsize);
    if (r) c->live += nsize - (ptr ? osize : 0);
    return r;
}

static counting counter;
static tg_allocator A; /* set in main: {count_alloc, &counter} */

/* JSON written with ' for " to keep the documents readable. */
static cJSON *doc_from(tg_arena *ar, const char *text) {
    size_t n = strlen(text);
    char *s = malloc(n + 1);
    for (size_t i = 0; i <= n; i++) s[i] = text[i] == '\'' ? '"' : text[i];
    tg_json_error err;
    cJSON *d = tg_json_parse(ar, s, n, NULL, &err);
    if (!d && !counter.fail_at) fprintf(stderr, "test document does not parse: %s at %zu\n%s\n", err.message, err.offset, s);
    free(s);
    return d;
}

static tg_policy *compile(const char *text) {
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_buf diag;
    tg_buf_init(&diag, A, 0);
    tg_policy *p = NULL;
    cJSON *d = doc_from(&ar, text);
    int r = d ? tg_policy_compile(&A, d, &p, &diag) : -1;
    CHECK_MSG(r == 0, "policy rejected:\n%s", diag.data ? diag.data : "");
    tg_buf_free(&diag);
    tg_arena_free(&ar);
    return p;
}

/* Compiles a bad document; returns the diagnostics (caller frees). */
static char *rejected(const char *text) {
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_buf diag;
    tg_buf_init(&diag, A, 0);
    tg_policy *p = NULL;
    cJSON *d = doc_from(&ar, text);
    int r = tg_policy_compile(&A, d, &p, &diag);
    CHECK_MSG(r == -1 && p == NULL, "accepted: %s", text);
    if (p) tg_policy_free(p);
    const char *src = diag.data ? diag.data : "";
    char *out = malloc(strlen(src) + 1);
    memcpy(out, src, strlen(src) + 1);
    tg_buf_free(&diag);
    tg_arena_free(&ar);
    return out;
}

static tg_tool_facts tool(const char *name) {
    tg_tool_facts t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.name_len = strlen(name);
    return t;
}

static tg_authz_request req(const char *principal) {
    tg_authz_request r;
    memset(&r, 0, sizeof r);
    r.principal = principal;
    return r;
}

static tg_decision decide(tg_policy *p, const char *principal, const char *name, tg_authz_result *res) {
    tg_tool_facts t = tool(name);
    tg_authz_request r = req(principal);
    return tg_policy_authorize(p, &t, &r, res, NULL);
}

#define EXPECT(p, principal, name, dec, rule_prefix)                                                      \
    do {                                                                                                  \
        tg_authz_result res_;                                                                             \
        tg_decision d_ = decide(p, principal, name, &res_);                                               \
        CHECK_MSG(d_ == (dec) && strncmp(res_.rule, rule_prefix, strlen(rule_prefix)) == 0,               \
                  "%s as %s: %s by %s (%s)", name, principal ? principal : "(none)", tg_decision_name(d_), \
                  res_.rule, res_.reason);                                                                \
    } while (0)

/* ---- grants ---- */

static const char *GRANTS =
    "{'version':1,"
    " 'defaults':['read_*','search','deploy_*','admin_*'],"
    " 'privileged':['deploy_prod'],"
    " 'skills':{'github':['mcp__github__*'],'prod':['deploy_prod']},"
    " 'projects':{'webapp':['deploy_staging','web_*']},"
    " 'principals':{"
    "   'bob':{},"
    "   'ops':{'grants':['deploy_prod']},"
    "   'dev':{'grants':['deploy_*','*'],'skills':['github']},"
    "   'alice':{'grants':['read_file'],'skills':['github'],'projects':['webapp']},"
    "   'releaser':{'skills':['prod']}},"
    " 'rules':[{'effect':'allow','tools':['*']}]}";

static void default_set_has_no_privileged_tools(void) {
    tg_policy *p = compile(GRANTS);
    if (!p) return;
    EXPECT(p, "nobody", "read_file", TG_ALLOW, "rule:");  /* unknown principal: defaults */
    EXPECT(p, "bob", "search", TG_ALLOW, "rule:");        /* no grants: defaults */
    EXPECT(p, "bob", "write_file", TG_DENY, "grants");
    EXPECT(p, "bob", "deploy_staging", TG_ALLOW, "rule:");
    EXPECT(p, "bob", "deploy_prod", TG_DENY, "privileged"); /* in defaults by glob, privileged by policy */
    EXPECT(p, NULL, "deploy_prod", TG_DENY, "privileged");
    /* privileged by host fact */
    tg_tool_facts t = tool("admin_reset");
    t.privileged = 1;
    tg_authz_request r = req("bob");
    tg_authz_result res;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
    CHECK(strstr(res.reason, "never in the default set") != NULL);
    tg_policy_free(p);
}

static void explicit_grant_reaches_privileged_tool(void) {
    tg_policy *p = compile(GRANTS);
    if (!p) return;
    EXPECT(p, "ops", "deploy_prod", TG_ALLOW, "rule:");
    EXPECT(p, "releaser", "deploy_prod", TG_ALLOW, "rule:"); /* exact name in a skill bundle */
    EXPECT(p, "ops", "deploy_staging", TG_DENY, "grants");   /* ops has grants: no defaults */
    tg_tool_facts t = tool("admin_reset");
    t.privileged = 1;
    tg_authz_request r = req("ops");
    CHECK(tg_policy_authorize(p, &t, &r, NULL, NULL) == TG_DENY);
    tg_policy_free(p);
}

static void wildcard_grant_never_reaches_privileged_tool(void) {
    tg_policy *p = compile(GRANTS);
    if (!p) return;
    EXPECT(p, "dev", "deploy_staging", TG_ALLOW, "rule:");
    EXPECT(p, "dev", "anything_else", TG_ALLOW, "rule:");
    tg_authz_result res;
    CHECK(decide(p, "dev", "deploy_prod", &res) == TG_DENY);
    CHECK_STR(res.rule, "privileged");
    CHECK_MSG(strstr(res.reason, "wildcard") != NULL, "%s", res.reason);
    tg_tool_facts t = tool("admin_reset");
    t.privileged = 1;
    tg_authz_request r = req("dev");
    CHECK(tg_policy_authorize(p, &t, &r, NULL, NULL) == TG_DENY);
    tg_policy_free(p);
}

static void bundles_union_with_base_grants(void) {
    tg_policy *p = compile(GRANTS);
    if (!p) return;
    EXPECT(p, "alice", "read_file", TG_ALLOW, "rule:");             /* base */
    EXPECT(p, "alice", "mcp__github__create_issue", TG_ALLOW, "rule:"); /* skill */
    EXPECT(p, "alice", "deploy_staging", TG_ALLOW, "rule:");        /* project */
    EXPECT(p, "alice", "web_publish", TG_ALLOW, "rule:");           /* project glob */
    EXPECT(p, "alice", "read_secrets", TG_DENY, "grants");          /* not read_* : only read_file */
    EXPECT(p, "alice", "deploy_prod", TG_DENY, "privileged");
    tg_buf ex;
    tg_buf_init(&ex, A, 0);
    tg_tool_facts t = tool("web_publish");
    tg_authz_request r = req("alice");
    tg_policy_authorize(p, &t, &r, NULL, &ex);
    CHECK_MSG(strstr(ex.data, "\"granted_by\":\"project:webapp\"") != NULL, "%s", ex.data);
    CHECK(strstr(ex.data, "\"bundles\":[\"skill:github\",\"project:webapp\"]") != NULL);
    tg_buf_free(&ex);
    tg_policy_free(p);
}

/* ---- modes and scheduler ---- */

static const char *MODES =
    "{'version':1,'defaults':['*'],"
    " 'scheduler':{'blocked':['send_email','mcp__*__write_*']},"
    " 'rules':["
    "   {'id':'no-deletes','effect':'deny','tools':['mcp__*__delete_*']},"
    "   {'id':'confirm-create','effect':'ask','tools':['mcp__github__create_*']},"
    "   {'id':'confirm-writes','effect':'ask','tools':['write_file','edit_file']},"
    "   {'id':'everything','effect':'allow','tools':['*']}]}";

static tg_decision decide_mode(tg_policy *p, tg_tool_facts *t, const char *mode, int scheduler, tg_authz_result *res) {
    tg_authz_request r = req("agent");
    r.mode = mode;
    r.scheduler = scheduler;
    return tg_policy_authorize(p, t, &r, res, NULL);
}

static void scheduler_blocks_and_turns_ask_into_deny(void) {
    tg_policy *p = compile(MODES);
    if (!p) return;
    tg_authz_result res;
    tg_tool_facts mail = tool("send_email"), create = tool("mcp__github__create_issue"),
                  wr = tool("mcp__fs__write_file"), rd = tool("read_file");
    CHECK(decide_mode(p, &mail, NULL, 0, &res) == TG_ALLOW);
    CHECK(decide_mode(p, &mail, NULL, 1, &res) == TG_DENY);
    CHECK_STR(res.rule, "scheduler");
    CHECK(decide_mode(p, &wr, NULL, 1, &res) == TG_DENY);
    CHECK(decide_mode(p, &create, NULL, 0, &res) == TG_ASK);
    CHECK_STR(res.rule, "rule:confirm-create");
    CHECK(decide_mode(p, &create, NULL, 1, &res) == TG_DENY);
    CHECK_STR(res.rule, "scheduler:ask");
    /* no mode turns a scheduler ask into allow unless configured */
    CHECK(decide_mode(p, &create, "bypassPermissions", 1, &res) == TG_DENY);
    CHECK(decide_mode(p, &rd, NULL, 1, &res) == TG_ALLOW);
    /* listing: blocked and ask-only tools are not offered in scheduler sessions */
    tg_authz_request r = req("agent");
    r.scheduler = 1;
    CHECK(tg_policy_visible(p, &mail, &r) == 0);
    CHECK(tg_policy_visible(p, &create, &r) == 0);
    CHECK(tg_policy_visible(p, &rd, &r) == 1);
    r.scheduler = 0;
    CHECK(tg_policy_visible(p, &create, &r) == 1);
    tg_policy_free(p);
}

static void plan_mode_keeps_only_read_only_tools(void) {
    tg_policy *p = compile(MODES);
    if (!p) return;
    tg_authz_result res;
    tg_tool_facts rd = tool("read_file"), wr = tool("write_file");
    rd.read_only = 1;
    CHECK(decide_mode(p, &rd, "plan", 0, &res) == TG_ALLOW);
    CHECK(decide_mode(p, &wr, "plan", 0, &res) == TG_DENY);
    CHECK_STR(res.rule, "plan");
    /* a deny rule still beats read-only */
    tg_tool_facts del = tool("mcp__x__delete_all");
    del.read_only = 1;
    CHECK(decide_mode(p, &del, "plan", 0, &res) == TG_DENY);
    CHECK(decide_mode(p, &rd, "planning", 0, &res) == TG_DENY); /* unknown mode: fail closed */
    CHECK_STR(res.rule, "mode");
    tg_policy_free(p);
}

static void bypass_asks_nothing_but_honours_deny(void) {
    tg_policy *p = compile(MODES);
    if (!p) return;
    tg_authz_result res;
    tg_tool_facts create = tool("mcp__github__create_issue"), del = tool("mcp__github__delete_repo"),
                  na = tool("run_shell");
    na.needs_approval = 1;
    CHECK(decide_mode(p, &create, "bypassPermissions", 0, &res) == TG_ALLOW);
    CHECK_STR(res.rule, "mode:bypassPermissions");
    CHECK(decide_mode(p, &na, "bypassPermissions", 0, &res) == TG_ALLOW);
    CHECK(decide_mode(p, &na, "default", 0, &res) == TG_ASK);
    CHECK_STR(res.rule, "tool:needs_approval");
    CHECK(decide_mode(p, &del, "bypassPermissions", 0, &res) == TG_DENY);
    CHECK_STR(res.rule, "rule:no-deletes");
    tg_policy_free(p);
}

static void accept_edits_allows_only_edit_tools_that_would_ask(void) {
    tg_policy *p = compile(MODES);
    if (!p) return;
    tg_authz_result res;
    tg_tool_facts wr = tool("write_file"), create = tool("mcp__github__create_issue"),
                  del = tool("mcp__fs__delete_file"), na = tool("apply_patch");
    wr.edit = 1;
    del.edit = 1;
    na.edit = 1;
    na.needs_approval = 1;
    CHECK(decide_mode(p, &wr, "default", 0, &res) == TG_ASK);
    CHECK(decide_mode(p, &wr, "acceptEdits", 0, &res) == TG_ALLOW);
    CHECK_STR(res.rule, "mode:acceptEdits");
    CHECK(decide_mode(p, &na, "acceptEdits", 0, &res) == TG_ALLOW);
    CHECK(decide_mode(p, &create, "acceptEdits", 0, &res) == TG_ASK); /* not an edit tool */
    CHECK(decide_mode(p, &del, "acceptEdits", 0, &res) == TG_DENY);   /* deny stays deny */
    tg_policy_free(p);
}

static void trusted_source_gets_full_set_but_not_privileged(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['read_*'],'privileged':['deploy_prod'],"
        " 'sources':{'web-ui':{'full_set':true},'console':{'full_set':true,'privileged':true}},"
        " 'rules':[{'effect':'deny','tools':['drop_db']},{'effect':'allow','tools':['*']}]}");
    if (!p) return;
    tg_authz_result res;
    tg_tool_facts w = tool("write_file"), prod = tool("deploy_prod"), drop = tool("drop_db");
    tg_authz_request r = req("someone");
    CHECK(tg_policy_authorize(p, &w, &r, &res, NULL) == TG_DENY);
    r.source = "web-ui";
    CHECK(tg_policy_authorize(p, &w, &r, &res, NULL) == TG_ALLOW);
    CHECK(tg_policy_authorize(p, &prod, &r, &res, NULL) == TG_DENY);
    CHECK(tg_policy_authorize(p, &drop, &r, &res, NULL) == TG_DENY); /* deny still wins */
    r.source = "console";
    CHECK(tg_policy_authorize(p, &prod, &r, &res, NULL) == TG_ALLOW);
    CHECK(tg_policy_authorize(p, &drop, &r, &res, NULL) == TG_DENY);
    r.source = "Web-UI"; /* exact bytes */
    CHECK(tg_policy_authorize(p, &w, &r, &res, NULL) == TG_DENY);
    tg_policy_free(p);
}

/* ---- argument conditions ---- */

static const char *ARGS =
    "{'version':1,'defaults':['*'],"
    " 'rules':["
    "   {'id':'no-secrets','effect':'deny','tools':['read_file'],'args':{'path':{'prefix':'/secrets/'}}},"
    "   {'id':'reads','effect':'allow','tools':['read_file']},"
    "   {'id':'ws','effect':'allow','tools':['write_file'],'args':{'path':{'prefix':'/work/'}}},"
    "   {'id':'mail','effect':'allow','tools':['send_email'],'args':{'to':{'suffix':'@example.com'}}},"
    "   {'id':'modes','effect':'allow','tools':['set_mode'],'args':{'mode':{'one_of':['fast','safe']}}},"
    "   {'id':'main','effect':'ask','tools':['git_push'],'args':{'branch':{'equals':'main'}}},"
    "   {'id':'push','effect':'allow','tools':['git_push']},"
    "   {'id':'nested','effect':'allow','tools':['copy'],'args':{'/opts/dest':{'prefix':'/tmp/'},'/opts/n':{'equals':1}}},"
    "   {'id':'api','effect':'allow','tools':['fetch'],'args':{'url':{'prefix':'https://api.example.com/'}}}]}";

static tg_decision with_args(tg_policy *p, const char *name, const char *args_json, tg_authz_result *res) {
    tg_arena ar;
    tg_arena_init(&ar, A);
    cJSON *args = doc_from(&ar, args_json);
    tg_tool_facts t = tool(name);
    tg_authz_request r = req("agent");
    r.args = args;
    tg_decision d = tg_policy_authorize(p, &t, &r, res, NULL);
    tg_arena_free(&ar);
    return d;
}

#define ARGS_EXPECT(p, name, args, dec)                                                                   \
    do {                                                                                                  \
        tg_authz_result r_;                                                                               \
        tg_decision d_ = with_args(p, name, args, &r_);                                                   \
        CHECK_MSG(d_ == (dec), "%s %s: %s by %s (%s)", name, args, tg_decision_name(d_), r_.rule, r_.reason); \
    } while (0)

static void argument_conditions(void) {
    tg_policy *p = compile(ARGS);
    if (!p) return;
    ARGS_EXPECT(p, "write_file", "{'path':'/work/a.txt'}", TG_ALLOW);
    ARGS_EXPECT(p, "write_file", "{'path':'/work/sub/x..y/a.txt'}", TG_ALLOW); /* '..' inside a name is fine */
    ARGS_EXPECT(p, "write_file", "{'path':'/etc/passwd'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/workspace/a'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':7}", TG_DENY);
    ARGS_EXPECT(p, "send_email", "{'to':'bob@example.com'}", TG_ALLOW);
    ARGS_EXPECT(p, "send_email", "{'to':'bob@example.com.evil.org'}", TG_DENY);
    ARGS_EXPECT(p, "send_email", "{'to':'bob@EXAMPLE.com'}", TG_DENY); /* exact bytes */
    ARGS_EXPECT(p, "set_mode", "{'mode':'safe'}", TG_ALLOW);
    ARGS_EXPECT(p, "set_mode", "{'mode':'unsafe'}", TG_DENY);
    ARGS_EXPECT(p, "set_mode", "{'mode':['safe']}", TG_DENY);
    ARGS_EXPECT(p, "git_push", "{'branch':'main'}", TG_ASK);
    ARGS_EXPECT(p, "git_push", "{'branch':'feature'}", TG_ALLOW);
    ARGS_EXPECT(p, "copy", "{'opts':{'dest':'/tmp/x','n':1.0}}", TG_ALLOW);
    ARGS_EXPECT(p, "copy", "{'opts':{'dest':'/tmp/x','n':2}}", TG_DENY);
    ARGS_EXPECT(p, "copy", "{'opts':{'dest':'/var/x','n':1}}", TG_DENY);
    ARGS_EXPECT(p, "read_file", "{'path':'/public/a'}", TG_ALLOW);
    ARGS_EXPECT(p, "read_file", "{'path':'/secrets/key'}", TG_DENY);
    tg_policy_free(p);
}

/* A handler reads numbers as doubles (JSON.parse): 100.00000000000000001
 * reaches it as 100, so a deny or ask rule on 100 must hold for it; an
 * allow rule still needs the exact value (either reading restricts). */
static void number_conditions_judge_the_handlers_double(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['*'],'rules':["
        " {'id':'no-100','effect':'deny','tools':['transfer'],'args':{'amount':{'equals':100}}},"
        " {'id':'ports','effect':'deny','tools':['open_port'],'args':{'port':{'one_of':[22,3389]}}},"
        " {'id':'zero','effect':'ask','tools':['scale'],'args':{'/opts':{'equals':{'by':[0]}}}},"
        " {'id':'exact','effect':'allow','tools':['pay'],'args':{'amount':{'equals':5}}},"
        " {'id':'rest','effect':'allow','tools':['transfer','open_port','scale']}]}");
    if (!p) return;
    ARGS_EXPECT(p, "transfer", "{'amount':100}", TG_DENY);
    ARGS_EXPECT(p, "transfer", "{'amount':100.00000000000000001}", TG_DENY);
    ARGS_EXPECT(p, "transfer", "{'amount':99.9999999999999999999}", TG_DENY);
    ARGS_EXPECT(p, "transfer", "{'amount':1e2}", TG_DENY);
    ARGS_EXPECT(p, "transfer", "{'amount':100.0000000001}", TG_ALLOW); /* another double */
    ARGS_EXPECT(p, "open_port", "{'port':22.000000000000001}", TG_DENY);
    ARGS_EXPECT(p, "open_port", "{'port':3389.0000000000000001}", TG_DENY);
    ARGS_EXPECT(p, "open_port", "{'port':23}", TG_ALLOW);
    ARGS_EXPECT(p, "scale", "{'opts':{'by':[1e-400]}}", TG_ASK); /* nested, and 0 as a double */
    ARGS_EXPECT(p, "scale", "{'opts':{'by':[-0.0]}}", TG_ASK);
    ARGS_EXPECT(p, "scale", "{'opts':{'by':[1e-300]}}", TG_ALLOW);
    ARGS_EXPECT(p, "pay", "{'amount':5.0}", TG_ALLOW);
    ARGS_EXPECT(p, "pay", "{'amount':5.000000000000000001}", TG_DENY); /* allow: the exact value only */
    tg_policy_free(p);
}

static void path_traversal_never_passes_a_prefix(void) {
    tg_policy *p = compile(ARGS);
    if (!p) return;
    tg_authz_result res;
    ARGS_EXPECT(p, "write_file", "{'path':'/work/../etc/passwd'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/work/a/../../etc/passwd'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/work/..'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/work/..\\\\..\\\\etc'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/work/a\\u0000/../../etc'}", TG_DENY);
    /* "." and empty segments fold away too ("//secrets" is "/secrets"):
     * undecidable, so they never pass an allow prefix nor dodge a deny */
    ARGS_EXPECT(p, "write_file", "{'path':'/work/./a.txt'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/work//a.txt'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/work/.'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'/work/a/'}", TG_ALLOW); /* a trailing separator folds nothing */
    ARGS_EXPECT(p, "write_file", "{'path':'/work/.hidden'}", TG_ALLOW); /* a name that starts with '.' */
    ARGS_EXPECT(p, "read_file", "{'path':'//secrets/key'}", TG_DENY);
    ARGS_EXPECT(p, "read_file", "{'path':'/./secrets/key'}", TG_DENY);
    ARGS_EXPECT(p, "read_file", "{'path':'\\\\.\\\\secrets'}", TG_DENY); /* a Windows-style "." segment */
    /* URLs: the scheme's "//" is not a segment; one after it is */
    ARGS_EXPECT(p, "fetch", "{'url':'https://api.example.com/v1/x'}", TG_ALLOW);
    ARGS_EXPECT(p, "fetch", "{'url':'https://api.example.com//v1/x'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'https://api.example.com/./v1'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'https://evil.example/api.example.com/'}", TG_DENY);
    /* fail closed the other way too: a deny rule's prefix that cannot be
     * judged matches, so traversal cannot dodge a deny */
    CHECK(with_args(p, "read_file", "{'path':'/public/../secrets/key'}", &res) == TG_DENY);
    CHECK_STR(res.rule, "rule:no-secrets");
    tg_buf ex;
    tg_buf_init(&ex, A, 0);
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_tool_facts t = tool("write_file");
    tg_authz_request r = req("agent");
    r.args = doc_from(&ar, "{'path':'/work/../etc/passwd'}");
    tg_policy_authorize(p, &t, &r, NULL, &ex);
    CHECK_MSG(strstr(ex.data, "\"result\":\"undecidable\",\"why\":\"argument has a '..' path segment\"") != NULL,
              "%s", ex.data);
    tg_arena_free(&ar);
    tg_buf_free(&ex);
    tg_policy_free(p);
}

/* ---- tenants ---- */

static void tenant_scoped_tools_only_in_their_tenant(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['*'],'tenants':{'acme':['acme_crm_*']},"
        " 'rules':[{'effect':'allow','tools':['*']}]}");
    if (!p) return;
    tg_tool_facts crm = tool("acme_crm_lookup"), db = tool("globex_db"), any = tool("search");
    db.tenant = "globex";
    tg_authz_request r = req("agent");
    tg_authz_result res;
    r.tenant = "acme";
    CHECK(tg_policy_authorize(p, &crm, &r, &res, NULL) == TG_ALLOW);
    CHECK(tg_policy_authorize(p, &db, &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "tenant");
    CHECK(tg_policy_visible(p, &crm, &r) == 1 && tg_policy_visible(p, &db, &r) == 0);
    r.tenant = "globex";
    CHECK(tg_policy_authorize(p, &crm, &r, &res, NULL) == TG_DENY);
    CHECK(tg_policy_authorize(p, &db, &r, &res, NULL) == TG_ALLOW);
    CHECK(tg_policy_visible(p, &crm, &r) == 0 && tg_policy_visible(p, &db, &r) == 1);
    r.tenant = NULL;
    CHECK(tg_policy_authorize(p, &crm, &r, &res, NULL) == TG_DENY);
    CHECK(tg_policy_authorize(p, &db, &r, &res, NULL) == TG_DENY);
    CHECK(tg_policy_authorize(p, &any, &r, &res, NULL) == TG_ALLOW);
    r.tenant = "acme2"; /* no prefix games */
    CHECK(tg_policy_authorize(p, &crm, &r, &res, NULL) == TG_DENY);
    tg_policy_free(p);
}

/* ---- rate limits and budgets ---- */

static tg_decision at(tg_policy *p, const char *principal, const char *name, const char *session, double now,
                      tg_authz_result *res) {
    tg_tool_facts t = tool(name);
    tg_authz_request r = req(principal);
    r.session = session;
    r.now_ms = now;
    return tg_policy_authorize(p, &t, &r, res, NULL);
}

static void rate_limit_exhausts_and_refills(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['*'],'rules':[{'effect':'allow','tools':['*']}],"
        " 'rate_limits':[{'id':'gh','tools':['mcp__github__*'],'capacity':2,'refill_per_second':1}]}");
    if (!p) return;
    tg_authz_result res;
    const char *t = "mcp__github__search";
    CHECK(at(p, "a", t, NULL, 0, &res) == TG_ALLOW);
    CHECK(at(p, "a", t, NULL, 10, &res) == TG_ALLOW);
    CHECK(at(p, "a", t, NULL, 20, &res) == TG_DENY);
    CHECK_STR(res.rule, "rate:gh");
    CHECK_MSG(strstr(res.reason, "next call in 980 ms") != NULL, "%s", res.reason);
    CHECK(at(p, "b", t, NULL, 20, &res) == TG_ALLOW);           /* per principal */
    CHECK(at(p, "a", "mcp__github__other", NULL, 20, &res) == TG_ALLOW); /* per tool */
    CHECK(at(p, "a", "read_file", NULL, 20, &res) == TG_ALLOW); /* not limited */
    CHECK(at(p, "a", t, NULL, 500, &res) == TG_DENY);
    CHECK(at(p, "a", t, NULL, 1010, &res) == TG_ALLOW); /* one token back */
    CHECK(at(p, "a", t, NULL, 1020, &res) == TG_DENY);
    CHECK(at(p, "a", t, NULL, 100000, &res) == TG_ALLOW); /* capped at capacity: 2 */
    CHECK(at(p, "a", t, NULL, 100000, &res) == TG_ALLOW);
    CHECK(at(p, "a", t, NULL, 100000, &res) == TG_DENY);
    CHECK(at(p, "a", t, NULL, 50, &res) == TG_DENY); /* clock going back refills nothing */
    /* a dry run checks without charging */
    tg_tool_facts f = tool(t);
    tg_authz_request r = req("c");
    r.dry_run = 1;
    for (int i = 0; i < 5; i++) CHECK(tg_policy_authorize(p, &f, &r, &res, NULL) == TG_ALLOW);
    CHECK(at(p, "c", t, NULL, 0, &res) == TG_ALLOW);
    tg_policy_free(p);
}

static void session_budget_caps_calls(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['*'],'rules':[{'effect':'allow','tools':['*']}],"
        " 'session_budgets':[{'id':'calls','tools':['*'],'max_calls':3},{'id':'mail','tools':['send_*'],'max_calls':1}]}");
    if (!p) return;
    tg_authz_result res;
    CHECK(at(p, "a", "send_email", "s1", 0, &res) == TG_ALLOW);
    CHECK(at(p, "a", "send_email", "s1", 0, &res) == TG_DENY);
    CHECK_STR(res.rule, "budget:mail");
    CHECK(at(p, "a", "search", "s1", 0, &res) == TG_ALLOW);
    CHECK(at(p, "a", "search", "s1", 0, &res) == TG_ALLOW);
    CHECK(at(p, "a", "search", "s1", 0, &res) == TG_DENY);
    CHECK_STR(res.rule, "budget:calls");
    CHECK(at(p, "a", "search", "s2", 0, &res) == TG_ALLOW);
    tg_policy_end_session(p, "s1", 0);
    CHECK(at(p, "a", "search", "s1", 0, &res) == TG_ALLOW);
    CHECK(at(p, "a", "search", "s2", 0, &res) == TG_ALLOW);
    tg_policy_free(p);
}

static void bounded_rate_state_sweeps_and_fails_closed(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['*'],'rules':[{'effect':'allow','tools':['*']}],'limits':{'max_rate_buckets':2},"
        " 'rate_limits':[{'id':'a','tools':['t*'],'capacity':1,'refill_per_second':1},"
        "                {'id':'b','tools':['t*'],'capacity':5,'refill_per_second':1}]}");
    if (!p) return;
    tg_authz_result res;
    CHECK(at(p, "x", "t1", NULL, 0, &res) == TG_ALLOW);   /* two buckets: full */
    CHECK(at(p, "x", "t2", NULL, 0, &res) == TG_DENY);    /* no room, nothing expired: fail closed */
    CHECK_MSG(strstr(res.reason, "full") != NULL, "%s", res.reason);
    CHECK(at(p, "x", "t2", NULL, 5000, &res) == TG_ALLOW); /* t1's buckets refilled: swept */
    CHECK(at(p, "x", "t2", NULL, 5001, &res) == TG_DENY);  /* capacity 1 used */
    CHECK_STR(res.rule, "rate:a");
    tg_policy_free(p);
}

static void adopted_state_survives_a_policy_change(void) {
    const char *doc = "{'version':1,'defaults':['*'],'rules':[{'effect':'ask','tools':['*']}],"
                      " 'session_budgets':[{'id':'calls','tools':['*'],'max_calls':1}]}";
    tg_policy *p = compile(doc), *q = compile(doc);
    if (!p || !q) return;
    tg_tool_facts t = tool("x");
    tg_authz_request r = req("agent");
    r.session = "s";
    char id[40], why[128];
    CHECK(tg_approval_create(p, &t, &r, "{}", 2, 1000, NULL, id) == 0);
    CHECK(tg_approval_resolve(p, id, 1, 1, 0, why, sizeof why) == 0);
    tg_authz_result res;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW); /* session rule; budget 1 used */
    tg_policy_adopt_state(q, p);
    tg_policy_free(p);
    CHECK(tg_policy_authorize(q, &t, &r, &res, NULL) == TG_DENY); /* budget carried over */
    CHECK_STR(res.rule, "budget:calls");
    CHECK(tg_approval_consume(q, id, "x", 1, "{}", 2, "agent", "s", 10, why, sizeof why) == 1);
    tg_policy_free(q);
}

/* Saved state loads into a fresh policy (a replaced instance): buckets,
 * budgets and session rules carry over; damaged bytes are refused. */
static void saved_state_loads_into_a_fresh_policy(void) {
    const char *doc = "{'version':1,'defaults':['*'],'rules':[{'effect':'ask','tools':['mail']},{'effect':'allow','tools':['*']}],"
                      " 'rate_limits':[{'id':'gh','tools':['search'],'capacity':2,'refill_per_second':1}],"
                      " 'session_budgets':[{'id':'calls','tools':['read'],'max_calls':1}]}";
    tg_policy *p = compile(doc), *q = compile(doc), *r = compile(doc);
    if (!p || !q || !r) return;
    tg_authz_result res;
    CHECK(at(p, "a", "search", NULL, 0, &res) == TG_ALLOW);
    CHECK(at(p, "a", "search", NULL, 0, &res) == TG_ALLOW);
    CHECK(at(p, "a", "read", "s", 0, &res) == TG_ALLOW);
    tg_tool_facts mail = tool("mail");
    mail.digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    tg_authz_request mr = req("a");
    mr.session = "s";
    char id[40], why[128];
    CHECK(tg_approval_create(p, &mail, &mr, "{}", 2, 1e9, NULL, id) == 0);
    CHECK(tg_approval_resolve(p, id, 1, 1, 0, why, sizeof why) == 0); /* for the session */
    tg_buf b;
    tg_buf_init(&b, A, 0);
    CHECK(tg_policy_state_save(p, &b) == 0);
    CHECK(tg_policy_state_load(q, b.data, b.len, 0) == 0);
    CHECK(at(q, "a", "search", NULL, 10, &res) == TG_DENY);  /* the bucket came along empty */
    CHECK_STR(res.rule, "rate:gh");
    CHECK(at(q, "a", "search", NULL, 1010, &res) == TG_ALLOW); /* and refills from its saved time */
    CHECK(at(q, "a", "read", "s", 10, &res) == TG_DENY);     /* the budget came along spent */
    CHECK_STR(res.rule, "budget:calls");
    CHECK(tg_policy_authorize(q, &mail, &mr, &res, NULL) == TG_ALLOW); /* the session rule came along */
    tg_tool_facts mail2 = mail;
    mail2.digest = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
    CHECK(tg_policy_authorize(q, &mail2, &mr, &res, NULL) == TG_ASK); /* with its definition */
    CHECK(tg_policy_authorize(r, &mail, &mr, &res, NULL) == TG_ASK);
    /* damaged: a short tail, an unknown map, a wrong size, a negative count */
    CHECK(tg_policy_state_load(r, b.data, b.len - 1, 0) == -1);
    unsigned char bad[17 + 8] = {1};
    uint32_t kl = 0, vs = 8;
    double neg = -1;
    memcpy(bad + 1, &kl, 4);
    memcpy(bad + 5, &vs, 4);
    memcpy(bad + 17, &neg, 8);
    CHECK(tg_policy_state_load(r, bad, sizeof bad, 0) == -1);
    bad[0] = 7;
    CHECK(tg_policy_state_load(r, bad, sizeof bad, 0) == -1);
    bad[0] = 2; /* session rules hold no value */
    CHECK(tg_policy_state_load(r, bad, sizeof bad, 0) == -1);
    CHECK(at(r, "a", "search", NULL, 10, &res) == TG_ALLOW);
    tg_buf_free(&b);
    tg_policy_free(p);
    tg_policy_free(q);
    tg_policy_free(r);
}

/* The limits alone (an approved call): checked without charging on a dry
 * run, charged otherwise, and denied by name once spent. */
static void limits_alone_check_and_charge(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':[{'effect':'ask','tools':['*']}],"
                           " 'rate_limits':[{'id':'r','tools':['mail'],'capacity':1,'refill_per_second':0}],"
                           " 'session_budgets':[{'id':'b','tools':['*'],'max_calls':2}]}");
    if (!p) return;
    tg_tool_facts t = tool("mail"), u = tool("read");
    tg_authz_request r = req("a");
    r.session = "s";
    tg_authz_result res;
    r.dry_run = 1;
    for (int i = 0; i < 3; i++) CHECK(tg_policy_limits(p, &t, &r, &res) == TG_ALLOW);
    r.dry_run = 0;
    CHECK(tg_policy_limits(p, &t, &r, &res) == TG_ALLOW);
    CHECK(tg_policy_limits(p, &t, &r, &res) == TG_DENY);
    CHECK_STR(res.rule, "rate:r");
    CHECK(tg_policy_limits(p, &u, &r, &res) == TG_ALLOW);
    CHECK(tg_policy_limits(p, &u, &r, &res) == TG_DENY); /* two calls in the session */
    CHECK_STR(res.rule, "budget:b");
    CHECK(tg_policy_authorize(p, &u, &r, &res, NULL) == TG_ASK); /* the rules still ask */
    r.now_ms = NAN;
    CHECK(tg_policy_limits(p, &u, &r, &res) == TG_DENY);
    CHECK_STR(res.rule, "clock");
    tg_policy_free(p);
}

/* ---- approvals ---- */

static const char *ASKS =
    "{'version':1,'defaults':['*'],"
    " 'rules':[{'effect':'ask','tools':['send_email','run_shell']},"
    "          {'id':'no-rm','effect':'deny','tools':['run_shell'],'args':{'cmd':{'prefix':'rm '}}},"
    "          {'effect':'allow','tools':['*']}]}";

/* One principal's unanswered asks fill only its share of the table. */
static void approvals_per_principal_are_bounded(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':[{'effect':'ask','tools':['*']}],"
                           " 'limits':{'max_approvals_per_principal':3}}");
    if (!p) return;
    tg_tool_facts t = tool("x");
    tg_authz_request a = req("mallory"), b = req("alice");
    char id[40], why[128];
    for (int i = 0; i < 3; i++) CHECK(tg_approval_create(p, &t, &a, "{}", 2, 1000, NULL, id) == 0);
    CHECK(tg_approval_create(p, &t, &a, "{}", 2, 1000, NULL, id) == -1); /* its share is used */
    CHECK(tg_approval_create(p, &t, &b, "{}", 2, 1000, NULL, id) == 0);  /* another's is not */
    CHECK(tg_approval_resolve(p, id, 0, 0, 0, why, sizeof why) == 0);
    a.now_ms = 2000; /* expired ones do not count */
    CHECK(tg_approval_create(p, &t, &a, "{}", 2, 3000, NULL, id) == 0);
    tg_policy_free(p);
}

static void approval_bound_to_arguments_and_used_once(void) {
    tg_policy *p = compile(ASKS);
    if (!p) return;
    tg_tool_facts t = tool("send_email");
    tg_authz_request r = req("agent");
    r.session = "s1";
    r.now_ms = 1000;
    tg_authz_result res;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    const char *a1 = "{\"to\":\"a@example.com\",\"body\":\"hi\"}";
    const char *a2 = "{\"to\":\"evil@example.org\",\"body\":\"hi\"}";
    char id[40], why[128];
    CHECK(tg_approval_create(p, &t, &r, a1, strlen(a1), 61000, NULL, id) == 0);
    CHECK(strncmp(id, "ap_", 3) == 0 && strlen(id) == 35);
    CHECK(tg_approval_consume(p, id, "send_email", 10, a1, strlen(a1), "agent", "s1", 2000, why, sizeof why) == 0);
    CHECK_STR(why, "approval is still pending");
    CHECK(tg_approval_resolve(p, id, 1, 0, 2000, why, sizeof why) == 0);
    CHECK(tg_approval_resolve(p, id, 1, 0, 2000, why, sizeof why) == -1); /* once */
    CHECK(tg_approval_consume(p, id, "send_email", 10, a2, strlen(a2), "agent", "s1", 3000, why, sizeof why) == 0);
    CHECK_MSG(strstr(why, "arguments differ") != NULL, "%s", why);
    CHECK(tg_approval_consume(p, id, "run_shell", 9, a1, strlen(a1), "agent", "s1", 3000, why, sizeof why) == 0);
    CHECK_STR(why, "approval is for another tool");
    CHECK(tg_approval_consume(p, id, "send_email", 10, a1, strlen(a1), "mallory", "s1", 3000, why, sizeof why) == 0);
    CHECK_STR(why, "approval is for another principal");
    CHECK(tg_approval_consume(p, id, "send_email", 10, a1, strlen(a1), "agent", NULL, 3000, why, sizeof why) == 0);
    CHECK_STR(why, "approval is for another session");
    CHECK(tg_approval_consume(p, id, "send_email", 10, a1, strlen(a1), "agent", "s1", 3000, why, sizeof why) == 1);
    CHECK(tg_approval_consume(p, id, "send_email", 10, a1, strlen(a1), "agent", "s1", 3000, why, sizeof why) == 0);
    CHECK_MSG(strstr(why, "already used") != NULL, "%s", why);
    /* approving did not change the decision for the next call */
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    /* host nonce makes the id */
    unsigned char nonce[16];
    for (int i = 0; i < 16; i++) nonce[i] = (unsigned char)(0xa0 + i);
    CHECK(tg_approval_create(p, &t, &r, a1, strlen(a1), 61000, nonce, id) == 0);
    CHECK_STR(id, "ap_a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    CHECK(tg_approval_create(p, &t, &r, a1, strlen(a1), 61000, nonce, id) == -1); /* same id twice */
    CHECK(tg_approval_consume(p, "ap_nope", "send_email", 10, a1, strlen(a1), "agent", "s1", 3000, why, sizeof why) == 0);
    tg_policy_free(p);
}

static void expired_and_denied_approvals_cannot_be_replayed(void) {
    tg_policy *p = compile(ASKS);
    if (!p) return;
    tg_tool_facts t = tool("send_email");
    tg_authz_request r = req("agent");
    r.now_ms = 0;
    const char *a = "{}";
    char id[40], why[128];
    CHECK(tg_approval_create(p, &t, &r, a, 2, 1000, NULL, id) == 0);
    CHECK(tg_approval_resolve(p, id, 1, 0, 1000, why, sizeof why) == -1);
    CHECK_STR(why, "approval expired");
    CHECK(tg_approval_consume(p, id, "send_email", 10, a, 2, "agent", NULL, 1001, why, sizeof why) == 0);
    /* approved in time but used late */
    CHECK(tg_approval_create(p, &t, &r, a, 2, 1000, NULL, id) == 0);
    CHECK(tg_approval_resolve(p, id, 1, 0, 500, why, sizeof why) == 0);
    CHECK(tg_approval_consume(p, id, "send_email", 10, a, 2, "agent", NULL, 1000, why, sizeof why) == 0);
    CHECK_STR(why, "approval expired");
    /* denied */
    CHECK(tg_approval_create(p, &t, &r, a, 2, 100000, NULL, id) == 0);
    CHECK(tg_approval_resolve(p, id, 0, 0, 10, why, sizeof why) == 0);
    CHECK(tg_approval_consume(p, id, "send_email", 10, a, 2, "agent", NULL, 20, why, sizeof why) == 0);
    CHECK_STR(why, "approval was denied");
    CHECK(tg_approval_resolve(p, id, 1, 0, 30, why, sizeof why) == -1);
    CHECK(tg_approval_consume(p, id, "send_email", 10, a, 2, "agent", NULL, 40, why, sizeof why) == 0);
    CHECK(tg_approval_create(p, &t, &r, a, 2, 0, NULL, id) == -1); /* already expired */
    tg_policy_free(p);
}

static void allow_for_session_adds_a_session_rule(void) {
    tg_policy *p = compile(ASKS);
    if (!p) return;
    tg_tool_facts t = tool("run_shell");
    t.digest = "d1";
    tg_authz_request r = req("agent");
    r.session = "s1";
    tg_authz_result res;
    tg_arena ar;
    tg_arena_init(&ar, A);
    r.args = doc_from(&ar, "{'cmd':'ls'}");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    char id[40], why[128];
    CHECK(tg_approval_create(p, &t, &r, "{\"cmd\":\"ls\"}", 12, 1000, NULL, id) == 0);
    CHECK(tg_approval_resolve(p, id, 1, 1, 0, why, sizeof why) == 0);
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    CHECK_STR(res.rule, "session:run_shell");
    /* the rule holds for the definition approved: a redefined tool asks */
    t.digest = "d2";
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    t.digest = NULL;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    t.digest = "d1";
    r.args = doc_from(&ar, "{'cmd':'rm -rf /'}");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY); /* deny rules still win */
    r.args = doc_from(&ar, "{'cmd':'ls'}");
    r.session = "s2";
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    r.session = "s1";
    r.principal = "other";
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    r.principal = "agent";
    tg_policy_end_session(p, "s1", 0);
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ASK);
    tg_arena_free(&ar);
    tg_policy_free(p);
}

/* ---- tokens ---- */

static void mint(const unsigned char *key, size_t klen, const char *tool_name, const char *args, double exp,
                 unsigned char nonce_byte, tg_buf *out) {
    tg_approval_claims c;
    memset(&c, 0, sizeof c);
    c.tool = tool_name;
    c.tool_len = strlen(tool_name);
    c.principal = "agent";
    c.session = "s1";
    tg_sha256(args, strlen(args), c.args_digest);
    c.expires_ms = exp;
    memset(c.nonce, nonce_byte, 16);
    tg_buf_reset(out);
    CHECK(tg_approval_token_mint(key, klen, &c, out) == 0);
}

static int verify(tg_policy *p, const unsigned char *key, const char *tok, size_t len, const char *tool_name,
                  const char *args, double now, char *why) {
    return tg_approval_token_verify(p, key, 32, tok, len, tool_name, strlen(tool_name), args, strlen(args), "agent",
                                    "s1", now, why, 128);
}

static void approval_tokens_refuse_forgery_tampering_expiry_and_replay(void) {
    tg_policy *p = compile("{'version':1,'rules':[],'limits':{'max_used_tokens':2}}");
    tg_policy *q = compile("{'version':1}"); /* another instance of the server */
    if (!p || !q) return;
    unsigned char key[32], other[32];
    for (int i = 0; i < 32; i++) {
        key[i] = (unsigned char)i;
        other[i] = (unsigned char)(i + 1);
    }
    const char *args = "{\"to\":\"a@example.com\"}";
    tg_buf tok;
    tg_buf_init(&tok, A, 0);
    char why[128];
    mint(key, 32, "send_email", args, 10000, 1, &tok);
    CHECK(strncmp(tok.data, "tga1.", 5) == 0);
    /* wrong tool, args, principal: refused without burning the nonce */
    CHECK(verify(p, key, tok.data, tok.len, "send_mail", args, 0, why) == 0);
    CHECK_STR(why, "token is for another tool");
    CHECK(verify(p, key, tok.data, tok.len, "send_email", "{\"to\":\"b@example.com\"}", 0, why) == 0);
    CHECK_STR(why, "arguments differ from the approved ones (or their context values, or the tool was redefined since)");
    CHECK(tg_approval_token_verify(p, key, 32, tok.data, tok.len, "send_email", 10, args, strlen(args), "mallory",
                                   NULL, 0, why, sizeof why) == 0);
    /* forged with another key */
    CHECK(tg_approval_token_verify(p, other, 32, tok.data, tok.len, "send_email", 10, args, strlen(args), NULL, NULL,
                                   0, why, sizeof why) == 0);
    CHECK_MSG(strstr(why, "signature") != NULL, "%s", why);
    /* altered: every single-character change is refused */
    int altered_ok = 0;
    for (size_t i = 0; i < tok.len; i++) {
        char *copy = malloc(tok.len);
        memcpy(copy, tok.data, tok.len);
        copy[i] = copy[i] == 'A' ? 'B' : 'A';
        if (verify(p, key, copy, tok.len, "send_email", args, 0, why)) altered_ok++;
        free(copy);
    }
    CHECK_MSG(altered_ok == 0, "%d altered tokens verified", altered_ok);
    CHECK(verify(p, key, tok.data, tok.len - 1, "send_email", args, 0, why) == 0); /* truncated */
    /* valid once, on any instance: the other instance's used set is its own,
     * so a fleet shares replay protection only through the host (docs) */
    CHECK(verify(q, key, tok.data, tok.len, "send_email", args, 0, why) == 1);
    CHECK(verify(p, key, tok.data, tok.len, "send_email", args, 0, why) == 1);
    CHECK(verify(p, key, tok.data, tok.len, "send_email", args, 1, why) == 0);
    CHECK_STR(why, "token already used (replay)");
    /* expired */
    mint(key, 32, "send_email", args, 10000, 2, &tok);
    CHECK(verify(p, key, tok.data, tok.len, "send_email", args, 10000, why) == 0);
    CHECK_STR(why, "token expired");
    /* forged claims with a made-up MAC */
    tg_buf forged;
    tg_buf_init(&forged, A, 0);
    mint(other, 32, "send_email", args, 10000, 3, &forged);
    CHECK(verify(p, key, forged.data, forged.len, "send_email", args, 0, why) == 0);
    tg_buf_free(&forged);
    /* the used set is bounded: full of live nonces, verification fails closed;
     * entries leave when their tokens expire */
    mint(key, 32, "send_email", args, 20000, 4, &tok);
    CHECK(verify(p, key, tok.data, tok.len, "send_email", args, 0, why) == 1);
    mint(key, 32, "send_email", args, 20000, 5, &tok);
    CHECK(verify(p, key, tok.data, tok.len, "send_email", args, 0, why) == 0);
    CHECK_MSG(strstr(why, "full") != NULL, "%s", why);
    CHECK(verify(p, key, tok.data, tok.len, "send_email", args, 10500, why) == 1); /* nonce 1 expired at 10000 */
    tg_buf_free(&tok);
    tg_policy_free(p);
    tg_policy_free(q);
}

/* A token exists only once a person approved, and spends its approval id:
 * one approval, one call, by id or by token. */
static void approval_tokens_are_issued_on_approval(void) {
    tg_policy *p = compile(ASKS);
    if (!p) return;
    unsigned char key[32];
    memset(key, 7, sizeof key);
    tg_tool_facts t = tool("send_email");
    tg_authz_request r = req("agent");
    r.session = "s";
    const char *a = "{\"to\":\"x\"}";
    char id[40], why[128];
    double exp = 0;
    tg_buf tok;
    tg_buf_init(&tok, A, 0);
    CHECK(tg_approval_create(p, &t, &r, a, strlen(a), 60000, NULL, id) == 0);
    CHECK(tg_approval_resolve_token(p, id, key, 0, 10, &tok, &exp, why, sizeof why) == -1); /* no key */
    CHECK(tg_approval_resolve_token(p, id, key, 32, 10, &tok, &exp, why, sizeof why) == 0 && exp == 60000);
    CHECK(tg_approval_consume(p, id, "send_email", 10, a, strlen(a), "agent", "s", 20, why, sizeof why) == 0);
    CHECK(tg_approval_resolve(p, id, 1, 0, 20, why, sizeof why) == -1); /* answered already */
    CHECK(tg_approval_token_verify(p, key, 32, tok.data, tok.len, "send_email", 10, a, strlen(a), "agent", "", 30, why,
                                   sizeof why) == 0);
    CHECK_STR(why, "token is for another session");
    CHECK(tg_approval_token_verify(p, key, 32, tok.data, tok.len, "send_email", 10, a, strlen(a), "agent", "s", 30, why,
                                   sizeof why) == 1);
    CHECK(tg_approval_token_verify(p, key, 32, tok.data, tok.len, "send_email", 10, a, strlen(a), "agent", "s", 30, why,
                                   sizeof why) == 0);
    /* denied: no token */
    tg_buf_reset(&tok);
    CHECK(tg_approval_create(p, &t, &r, a, strlen(a), 60000, NULL, id) == 0);
    CHECK(tg_approval_resolve(p, id, 0, 0, 10, why, sizeof why) == 0);
    CHECK(tg_approval_resolve_token(p, id, key, 32, 10, &tok, &exp, why, sizeof why) == -1 && tok.len == 0);
    tg_buf_free(&tok);
    tg_policy_free(p);
}

/* Ending a session spends the tokens minted for it here: a token is an
 * approval, and a session's approvals end with it. Another session's
 * token is untouched. */
static void ending_a_session_spends_its_tokens(void) {
    tg_policy *p = compile(ASKS);
    if (!p) return;
    unsigned char key[32];
    memset(key, 7, sizeof key);
    tg_tool_facts t = tool("send_email");
    tg_authz_request r = req("agent");
    const char *a = "{\"to\":\"x\"}";
    char id[40], why[128];
    double exp = 0;
    tg_buf tok, tok2;
    tg_buf_init(&tok, A, 0);
    tg_buf_init(&tok2, A, 0);
    r.session = "s";
    CHECK(tg_approval_create(p, &t, &r, a, strlen(a), 60000, NULL, id) == 0);
    CHECK(tg_approval_resolve_token(p, id, key, 32, 10, &tok, &exp, why, sizeof why) == 0);
    r.session = "s2";
    CHECK(tg_approval_create(p, &t, &r, a, strlen(a), 60000, NULL, id) == 0);
    CHECK(tg_approval_resolve_token(p, id, key, 32, 10, &tok2, &exp, why, sizeof why) == 0);
    tg_policy_end_session(p, "s", 20);
    CHECK(tg_approval_token_verify(p, key, 32, tok.data, tok.len, "send_email", 10, a, strlen(a), "agent", "s", 30, why,
                                   sizeof why) == 0);
    CHECK_MSG(strstr(why, "already used") != NULL, "%s", why);
    CHECK(tg_approval_token_verify(p, key, 32, tok2.data, tok2.len, "send_email", 10, a, strlen(a), "agent", "s2", 30,
                                   why, sizeof why) == 1);
    tg_buf_free(&tok);
    tg_buf_free(&tok2);
    tg_policy_free(p);
}

/* ---- names ---- */

/* The registry's part, played here: exact-byte lookup of registered names. */
static const char *REGISTERED[] = {"mcp__github__delete_repo", "mcp__github__list_repos", "read_file", NULL};

static const tg_tool_facts *resolve(const char *name, tg_tool_facts *out) {
    for (int i = 0; REGISTERED[i]; i++)
        if (strlen(REGISTERED[i]) == strlen(name) && memcmp(REGISTERED[i], name, strlen(name)) == 0) {
            *out = tool(REGISTERED[i]);
            return out;
        }
    return NULL;
}

static void confusable_and_normalized_names_never_reach_a_denied_tool(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['mcp__github__*','read_file'],"
        " 'principals':{'alice':{'grants':['*']}},"
        " 'rules':[{'id':'no-delete','effect':'deny','tools':['mcp__github__delete_repo']},"
        "          {'id':'gh','effect':'allow','tools':['mcp__github__*','read_file']}]}");
    if (!p) return;
    const char *tricks[] = {
        "mcp__github__Delete_repo",        /* case */
        "mcp__github__d\xd0\xb5lete_repo", /* Cyrillic ie */
        "mcp__github__delete_repo ",       /* trailing space */
        "mcp__github__delete_repo\xe2\x80\x8b", /* zero-width space */
        "MCP__github__delete_repo",
        "mcp__github__delete-repo",
        "mcp__github__delete_repo\n",
        "mcp_\xef\xbc\xbfgithub__delete_repo", /* fullwidth low line */
    };
    tg_authz_result res;
    for (size_t i = 0; i < sizeof tricks / sizeof *tricks; i++) {
        tg_tool_facts f;
        tg_authz_request r = req("agent");
        /* through the registry: unknown name, denied */
        CHECK_MSG(tg_policy_authorize(p, resolve(tricks[i], &f), &r, &res, NULL) == TG_DENY, "%s", tricks[i]);
        CHECK_STR(res.rule, "unknown_tool");
        /* even if a host passed the bytes straight in: odd bytes are refused,
         * and ASCII variants are different tools under exact-byte rules */
        tg_tool_facts raw = tool(tricks[i]);
        tg_decision d = tg_policy_authorize(p, &raw, &r, &res, NULL);
        int ascii = tg_policy_visible(p, &raw, &r) || d != TG_DENY;
        int odd = 0;
        for (const char *s = tricks[i]; *s; s++)
            if ((unsigned char)*s >= 0x80 || *s == ' ' || *s == '\n') odd = 1;
        if (odd) {
            CHECK_MSG(d == TG_DENY && strcmp(res.rule, "invalid_name") == 0, "%s: %s", tricks[i], res.rule);
        } else {
            (void)ascii; /* e.g. Delete_repo: a different (unregistered) tool; the registry refuses it above */
        }
    }
    /* the real name is denied by its rule, both ways */
    tg_tool_facts f;
    tg_authz_request r = req("agent");
    CHECK(tg_policy_authorize(p, resolve("mcp__github__delete_repo", &f), &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "rule:no-delete");
    CHECK(tg_policy_authorize(p, resolve("mcp__github__list_repos", &f), &r, &res, NULL) == TG_ALLOW);
    /* patterns are case-sensitive exact bytes: a deny on one spelling does not
     * cover another, and an allow does not leak either */
    EXPECT(p, "agent", "MCP__GITHUB__LIST_REPOS", TG_DENY, "grants");
    /* principals: exact bytes; a Cyrillic 'a' is not alice (gets the defaults, not alice's grants) */
    EXPECT(p, "alice", "write_file", TG_DENY, "unmatched");
    EXPECT(p, "\xd0\xb0lice", "write_file", TG_DENY, "grants");
    EXPECT(p, "Alice", "write_file", TG_DENY, "grants");
    tg_policy_free(p);
}

/* ---- invalid documents ---- */

static void has_line(const char *diag, const char *pointer) {
    /* a line "<pointer>: ..." or "<pointer>/<deeper>: ..." */
    size_t pl = strcmp(pointer, "/") == 0 ? 0 : strlen(pointer);
    int found = 0;
    for (const char *line = diag; *line && !found; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        if (strncmp(line, pointer, pl) == 0 && (line[pl] == ':' || line[pl] == '/')) found = 1;
    }
    CHECK_MSG(found, "no diagnostic at %s in:\n%s", pointer, diag);
}

static void invalid_documents_are_rejected_with_pointers(void) {
    struct {
        const char *doc, *pointer;
    } cases[] = {
        {"[1]", "/"},
        {"{'rules':[]}", "/"},
        {"{'version':2}", "/version"},
        {"{'version':1,'rules':[{'effect':'allow','tools':['a']},{'effect':'permit','tools':['b']}]}",
         "/rules/1/effect"},
        {"{'version':1,'rules':[{'effect':'deny','tools':['bad name!']}]}", "/rules/0/tools/0"},
        {"{'version':1,'rules':[{'effect':'deny','tools':['x'],'args':{'path':{'regex':'.*'}}}]}",
         "/rules/0/args/path"},
        {"{'version':1,'rules':[{'effect':'deny','tools':[]}]}", "/rules/0/tools"},
        {"{'version':1,'rules':[{'effect':'deny'}]}", "/rules/0"},
        {"{'version':1,'principals':{'alice':{'grants':['x'],'skills':['nope']}}}", "/principals/alice/skills/0"},
        {"{'version':1,'principals':{'a/b':{'grants':[7]}}}", "/principals/a~1b/grants/0"},
        {"{'version':1,'rate_limits':[{'id':'r','tools':['x'],'refill_per_second':1}]}", "/rate_limits/0"},
        {"{'version':1,'rate_limits':[{'id':'r','tools':['x'],'capacity':0,'refill_per_second':1}]}",
         "/rate_limits/0/capacity"},
        {"{'version':1,'session_budgets':[{'id':'b','tools':['x'],'max_calls':1.5}]}", "/session_budgets/0/max_calls"},
        {"{'version':1,'rules':[{'id':'x','effect':'allow','tools':['a']},{'id':'x','effect':'deny','tools':['b']}]}",
         "/rules/1/id"},
        {"{'version':1,'unknown_principals':'allow'}", "/unknown_principals"},
        {"{'version':1,'scheduler':{'blocked':'x'}}", "/scheduler/blocked"},
        {"{'version':1,'rules':[{'effect':'allow','tools':['a'],'modes':['yolo']}]}", "/rules/0/modes/0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *diag = rejected(cases[i].doc);
        has_line(diag, cases[i].pointer);
        free(diag);
    }
    char *diag = rejected("{'version':1,'rulez':[]}");
    CHECK_MSG(strstr(diag, "rulez") != NULL, "%s", diag);
    free(diag);
}

static void embedded_schema_matches_docs(void) {
    /* src/policy/policy_test.c -> docs/policy.schema.json */
    char path[1024];
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    if (slash) snprintf(slash, sizeof path - (size_t)(slash - path), "/../../docs/policy.schema.json");
    else snprintf(path, sizeof path, "../../docs/policy.schema.json");
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("policy: docs/policy.schema.json not found beside the sources (%s); sync check skipped\n", path);
        return;
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    CHECK_MSG(strcmp(buf, tg_policy_schema_json) == 0,
              "src/policy/policy_schema.c is out of date: run python3 src/policy/gen_policy_schema.py");
}

/* ---- explain ---- */

static void explain_returns_the_whole_trace_as_json(void) {
    tg_policy *p = compile(ARGS);
    if (!p) return;
    tg_buf ex;
    tg_buf_init(&ex, A, 0);
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_tool_facts t = tool("git_push");
    tg_authz_request r = req("agent");
    r.args = doc_from(&ar, "{'branch':'main'}");
    tg_authz_result res;
    CHECK(tg_policy_authorize(p, &t, &r, &res, &ex) == TG_ASK);
    tg_json_error err;
    cJSON *j = tg_json_parse(&ar, ex.data, ex.len, NULL, &err);
    CHECK_MSG(j != NULL, "explain is not JSON: %s\n%s", err.message, ex.data);
    if (j) {
        cJSON *dec = tg_json_getz(j, "decision"), *rule = tg_json_getz(j, "rule"), *steps = tg_json_getz(j, "steps");
        CHECK(dec && cJSON_IsString(dec) && strcmp(dec->valuestring, "ask") == 0);
        CHECK(rule && cJSON_IsString(rule) && strcmp(rule->valuestring, "rule:main") == 0);
        CHECK(steps && cJSON_IsArray(steps) && cJSON_GetArraySize(steps) >= 4);
        CHECK(strstr(ex.data, "{\"rule\":\"push\",\"effect\":\"allow\",\"pattern\":\"git_push\",\"matched\":true}") != NULL);
    }
    /* every decision kind writes valid JSON */
    const char *names[] = {"write_file", "copy", "nope", "bad name"};
    for (int i = 0; i < 4; i++) {
        tg_buf_reset(&ex);
        tg_tool_facts f = tool(names[i]);
        tg_policy_authorize(p, i == 2 ? NULL : &f, &r, &res, &ex);
        CHECK_MSG(tg_json_parse(&ar, ex.data, ex.len, NULL, &err) != NULL, "%s", ex.data);
    }
    tg_arena_free(&ar);
    tg_buf_free(&ex);
    tg_policy_free(p);
}

static void listing_ignores_argument_conditions_that_could_match(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['*'],"
        " 'rules':[{'effect':'deny','tools':['rm'],'args':{'path':{'prefix':'/'}}},"
        "          {'effect':'allow','tools':['rm','write_file'],'args':{'path':{'prefix':'/work/'}}},"
        "          {'effect':'ask','tools':['mail'],'args':{'to':{'suffix':'@x.org'}}},"
        "          {'effect':'deny','tools':['drop']}]}");
    if (!p) return;
    tg_authz_request r = req("agent");
    tg_tool_facts rm = tool("rm"), wr = tool("write_file"), mail = tool("mail"), drop = tool("drop"),
                  other = tool("other");
    CHECK(tg_policy_visible(p, &rm, &r) == 1);
    CHECK(tg_policy_visible(p, &wr, &r) == 1);
    CHECK(tg_policy_visible(p, &mail, &r) == 1);
    CHECK(tg_policy_visible(p, &drop, &r) == 0);
    CHECK(tg_policy_visible(p, &other, &r) == 0);
    CHECK(tg_policy_visible(p, NULL, &r) == 0);
    tg_policy_free(p);
}

static void descriptor_hints_cannot_widen(void) {
    /* The engine's only inputs about a tool are tg_tool_facts, set by the
     * host. An upstream tool that claims readOnlyHint has read_only 0 unless
     * the host says otherwise: plan mode refuses it. */
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':[{'effect':'allow','tools':['*']}]}");
    if (!p) return;
    tg_tool_facts t = tool("mcp__evil__wipe"); /* descriptor said readOnlyHint: true; host did not mark it */
    tg_authz_request r = req("agent");
    r.mode = "plan";
    CHECK(tg_policy_authorize(p, &t, &r, NULL, NULL) == TG_DENY);
    tg_policy_free(p);
}

/* ---- speed ---- */

static tg_policy *big_policy(int nrules) {
    tg_buf b;
    tg_buf_init(&b, A, 0);
    tg_buf_puts(&b, "{\"version\":1,\"defaults\":[\"*\"],\"rules\":[");
    for (int i = 0; i < nrules; i++) {
        if (i) tg_buf_putc(&b, ',');
        const char *eff = i % 7 == 0 ? "deny" : i % 5 == 0 ? "ask" : "allow";
        switch (i % 4) {
        case 0: tg_buf_printf(&b, "{\"effect\":\"%s\",\"tools\":[\"svc%d__tool%d\"]}", eff, i % 1000, i); break;
        case 1: tg_buf_printf(&b, "{\"effect\":\"%s\",\"tools\":[\"svc%d__*\"]}", eff, i); break;
        case 2:
            tg_buf_printf(&b, "{\"effect\":\"%s\",\"tools\":[\"mcp__s%d__*_delete\"],\"args\":{\"p\":{\"prefix\":\"/w/\"}}}",
                          eff, i);
            break;
        default: tg_buf_printf(&b, "{\"effect\":\"%s\",\"tools\":[\"svc%d__tool*\",\"x%d\"]}", eff, i % 1000, i); break;
        }
    }
    tg_buf_puts(&b, ",{\"effect\":\"allow\",\"tools\":[\"*\"]}]}");
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_json_error err;
    cJSON *d = tg_json_parse(&ar, b.data, b.len, NULL, &err);
    tg_policy *p = NULL;
    tg_buf diag;
    tg_buf_init(&diag, A, 0);
    if (!d || tg_policy_compile(&A, d, &p, &diag) != 0) fprintf(stderr, "big policy: %s\n", diag.data ? diag.data : err.message);
    tg_buf_free(&diag);
    tg_buf_free(&b);
    tg_arena_free(&ar);
    return p;
}

/* clock(), except on WASI where only wall clocks exist */
static double cpu_seconds(void) {
#ifdef __wasi__
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static double ns_per_decision(tg_policy *p, char (*names)[32], int ntools, long n) {
    tg_authz_request r = req("agent");
    r.dry_run = 1;
    tg_authz_result res;
    volatile int sink = 0;
    double t0 = cpu_seconds();
    for (long i = 0; i < n; i++) {
        const char *nm = names[(i * 7919) % ntools];
        tg_tool_facts t = tool(nm);
        sink += tg_policy_authorize(p, &t, &r, &res, NULL);
    }
    double t1 = cpu_seconds();
    (void)sink;
    return (t1 - t0) * 1e9 / (double)n;
}

static void decision_cost_does_not_grow_with_rules(void) {
    enum { NTOOLS = 10000 };
    static char names[NTOOLS][32];
    for (int k = 0; k < NTOOLS; k++) {
        if (k % 3 == 0) snprintf(names[k], 32, "svc%d__tool%d", k % 1000, k);
        else if (k % 3 == 1) snprintf(names[k], 32, "mcp__s%d__x_delete", k % 2000);
        else snprintf(names[k], 32, "tool_%d", k);
    }
    int sizes[3] = {10, 1000, 10000};
    double ns[3] = {0, 0, 0};
    long n = getenv("TG_POLICY_BENCH_N") ? atol(getenv("TG_POLICY_BENCH_N")) : 200000;
    for (int s = 0; s < 3; s++) {
        tg_policy *p = big_policy(sizes[s]);
        CHECK(p != NULL);
        if (!p) return;
        ns_per_decision(p, names, NTOOLS, n / 10); /* warm up */
        ns[s] = ns_per_decision(p, names, NTOOLS, n);
        tg_policy_free(p);
    }
    printf("policy: ns/decision over %d tools: %.0f (10 rules), %.0f (1,000 rules), %.0f (10,000 rules)\n", NTOOLS,
           ns[0], ns[1], ns[2]);
    CHECK_MSG(ns[1] < ns[0] * 10 + 200, "1,000 rules: %.0f ns vs %.0f ns", ns[1], ns[0]);
    CHECK_MSG(ns[2] < ns[0] * 30 + 500, "10,000 rules: %.0f ns vs %.0f ns", ns[2], ns[0]);
}

/* ---- allocation failure at every call site ---- */

static int session_under_failure(void) {
    /* returns 1 when everything succeeded */
    tg_arena ar;
    tg_arena_init(&ar, A);
    cJSON *d = doc_from(&ar, GRANTS);
    tg_policy *p = NULL;
    tg_buf diag;
    tg_buf_init(&diag, A, 0);
    int ok = d && tg_policy_compile(&A, d, &p, &diag) == 0;
    tg_buf_free(&diag);
    if (ok) {
        tg_tool_facts t = tool("read_file");
        tg_authz_request r = req("alice");
        r.session = "s";
        tg_buf ex;
        tg_buf_init(&ex, A, 0);
        tg_policy_authorize(p, &t, &r, NULL, &ex);
        ok = !ex.failed;
        tg_buf_free(&ex);
        char id[40], why[128];
        if (tg_approval_create(p, &t, &r, "{}", 2, 10, NULL, id) != 0) ok = 0;
        else if (tg_approval_resolve(p, id, 1, 1, 0, why, sizeof why) != 0) ok = 0;
        tg_policy_free(p);
    }
    tg_arena_free(&ar);
    return ok;
}

static void allocation_failure_everywhere_is_clean(void) {
    int completed = 0;
    for (long k = 1; k < 5000 && !completed; k++) {
        counter.allocs = 0;
        counter.fail_at = k;
        size_t before = counter.live;
        completed = session_under_failure();
        CHECK_MSG(counter.live == before, "leak with allocation %ld failing: %zu bytes", k, counter.live - before);
    }
    counter.fail_at = 0;
    CHECK(completed);
}

/* A source may register its tool as "Drop_Table": what restricts (deny and
 * ask rules, privileged, scheduler.blocked, tenants, limits) matches names
 * up to case and look-alike characters, so the variant cannot dodge it; what lets a call through
 * (grants, defaults, allow rules) stays exact bytes. */
static const char *RESTRICTING =
    "{'version':1,'defaults':['*'],'privileged':['deploy_*'],'scheduler':{'blocked':['send_*']},"
    " 'principals':{'ops':{'grants':['deploy_prod','*']}},"
    " 'tenants':{'acme':['crm_*']},"
    " 'rules':[{'id':'no-drop','effect':'deny','tools':['drop_*']},"
    "          {'id':'confirm','effect':'ask','tools':['wire_money']},"
    "          {'id':'reads','effect':'allow','tools':['read_file']},"
    "          {'id':'ops','effect':'allow','tools':['deploy_*','send_*','crm_*']}],"
    " 'rate_limits':[{'id':'crm','tools':['crm_*'],'capacity':1,'refill_per_second':0}]}";

/* The folds a registry keeps of a tool's name (tg_tool_facts.fold_chars /
 * fold_pairs, made once) decide exactly as the folds a decision makes
 * itself: same decision, rule and reason, look-alike names and limits too. */
static void registry_folds_decide_as_folding_does(void) {
    const char *const docs[] = {
        RESTRICTING,
        "{'version':1,'defaults':['*'],'rules':[{'id':'t','effect':'deny','tools':['transfer*']},"
        "{'id':'v','effect':'ask','tools':['*_v*']},{'id':'all','effect':'allow','tools':['*']}],"
        " 'rate_limits':[{'id':'crm','tools':['crm_*'],'capacity':1,'refill_per_second':0}]}",
    };
    static const char *const names[] = {"drop_table", "Drop_Table", "drop-table", "dr0p_table", "drop_tab1e",
                                        "WIRE-M0NEY", "Wire_Money", "read_file", "Read_File", "deploy_prod",
                                        "Deploy_Prod", "Send_Mail", "CRM_Export", "crm_export", "transferNow",
                                        "get_vvalue", "rernove_files", "x"};
    for (size_t di = 0; di < sizeof docs / sizeof *docs; di++) {
        tg_policy *a = compile(docs[di]), *b = compile(docs[di]);
        if (!a || !b) return;
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            char chars[TG_NAME_MAX + 1], pairs[TG_NAME_MAX + 1];
            tg_tool_facts plain = tool(names[i]), kept = tool(names[i]);
            tg_name_fold(names[i], strlen(names[i]), chars, TG_NAME_MAX, 0);
            tg_name_skeleton(names[i], strlen(names[i]), pairs);
            kept.fold_chars = chars;
            kept.fold_pairs = pairs;
            for (int round = 0; round < 2; round++) { /* (the second: a rate limit's state after the first) */
                tg_authz_request r = req(round ? "ops" : "agent");
                tg_authz_result ra, rb;
                tg_decision da = tg_policy_authorize(a, &plain, &r, &ra, NULL);
                tg_decision db = tg_policy_authorize(b, &kept, &r, &rb, NULL);
                CHECK_MSG(da == db && strcmp(ra.rule, rb.rule) == 0 && strcmp(ra.reason, rb.reason) == 0,
                          "%s: %s/%s vs %s/%s", names[i], tg_decision_name(da), ra.rule, tg_decision_name(db), rb.rule);
            }
        }
        tg_policy_free(a);
        tg_policy_free(b);
    }
}

/* Whether a decision for a tool reads its arguments: only when a rule that
 * can match it (deny and ask up to look-alikes, allow exactly) has
 * conditions. */
static void reads_args_only_for_tools_a_conditioned_rule_names(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':["
                           "{'id':'fs','effect':'deny','tools':['fs_*'],'args':{'path':{'prefix':'/etc/'}}},"
                           "{'id':'dep','effect':'ask','tools':['deploy*']},"
                           "{'id':'mail','effect':'allow','tools':['send_mail'],'args':{'to':{'suffix':'@acme.test'}}},"
                           "{'id':'all','effect':'allow','tools':['*']}]}");
    if (!p) return;
    tg_tool_facts t;
    t = tool("fs_read");
    CHECK(tg_policy_reads_args(p, &t) == 1);
    t = tool("FS-read"); /* (a deny holds up to look-alikes) */
    CHECK(tg_policy_reads_args(p, &t) == 1);
    t = tool("send_mail");
    CHECK(tg_policy_reads_args(p, &t) == 1);
    t = tool("Send_Mail"); /* (an allow is exact bytes: it cannot match) */
    CHECK(tg_policy_reads_args(p, &t) == 0);
    t = tool("deploy_prod");
    CHECK(tg_policy_reads_args(p, &t) == 0);
    t = tool("get_weather");
    CHECK(tg_policy_reads_args(p, &t) == 0);
    CHECK(tg_policy_reads_args(p, NULL) == 1);
    t = tool("bad name");
    CHECK(tg_policy_reads_args(p, &t) == 1);
    tg_policy_free(p);
    p = compile("{'version':1,'defaults':['*'],'rules':[{'id':'all','effect':'allow','tools':['*']}]}");
    if (!p) return;
    t = tool("fs_read");
    CHECK(tg_policy_reads_args(p, &t) == 0 && tg_policy_reads_args(NULL, &t) == 0);
    tg_policy_free(p);
}

/* The property tg_policy_reads_args promises, over generated policies,
 * names and arguments: for a tool it says no to, the decision is the same
 * whatever the arguments (a call may then skip parsing them for the
 * policy). Patterns include globs, look-alikes and allow rules that match
 * only exactly; rules with and without conditions, in every effect. */
static void reads_args_says_no_only_when_arguments_cannot_matter(void) {
    static const char *const pats[] = {"fs_*", "FS-*", "*_file", "read_fi1e", "deploy*", "*", "send_mail",
                                       "Send_Mail", "rm", "r*n", "*vv*", "get_*_x"};
    static const char *const names[] = {"fs_read", "FS_read", "read_file", "read_fi1e", "deploy_prod", "send_mail",
                                        "Send_Mail", "rm", "rn", "vvw", "get_a_x", "other", "fs-wr1te", "rnail"};
    static const char *const argsets[] = {"{}", "{'path':'/etc/passwd','to':'x@acme.test','n':3}",
                                          "{'path':'/home/a','to':'x@evil.test','n':30}", "{'path':7}"};
    static const char *const conds[] = {"{'path':{'prefix':'/etc/'}}", "{'to':{'suffix':'@acme.test'}}",
                                        "{'n':{'one_of':[3,4]}}"};
    static const char *const effects[] = {"allow", "deny", "ask"};
    uint32_t x = 12345;
    int checked = 0, said_no = 0;
    for (int round = 0; round < 60; round++) {
        char doc[2048];
        size_t o = (size_t)snprintf(doc, sizeof doc, "{'version':1,'defaults':['*'],'rules':[");
        int nrules = 1 + (int)((x = x * 1103515245u + 12345u) >> 16) % 5;
        for (int r = 0; r < nrules; r++) {
            x = x * 1103515245u + 12345u;
            const char *pat = pats[(x >> 16) % (sizeof pats / sizeof *pats)];
            x = x * 1103515245u + 12345u;
            const char *eff = effects[(x >> 16) % 3];
            x = x * 1103515245u + 12345u;
            unsigned c = (x >> 16) % 5; /* 0-2: a condition, else none */
            o += (size_t)snprintf(doc + o, sizeof doc - o, "%s{'id':'r%d','effect':'%s','tools':['%s']%s%s}",
                                  r ? "," : "", r, eff, pat, c < 3 ? ",'args':" : "", c < 3 ? conds[c] : "");
        }
        snprintf(doc + o, sizeof doc - o, "]}");
        tg_policy *p = compile(doc);
        if (!p) return;
        tg_arena ar;
        tg_arena_init(&ar, A);
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            tg_tool_facts t = tool(names[i]);
            if (tg_policy_reads_args(p, &t)) continue;
            said_no++;
            tg_authz_request r = req("agent");
            r.dry_run = 1;
            tg_authz_result none, with;
            tg_decision d0 = tg_policy_authorize(p, &t, &r, &none, NULL);
            for (size_t a = 0; a < sizeof argsets / sizeof *argsets; a++) {
                r.args = doc_from(&ar, argsets[a]);
                tg_decision d1 = tg_policy_authorize(p, &t, &r, &with, NULL);
                CHECK_MSG(d0 == d1 && strcmp(none.rule, with.rule) == 0, "%s under %s with %s: %s/%s vs %s/%s", names[i],
                          doc, argsets[a], tg_decision_name(d0), none.rule, tg_decision_name(d1), with.rule);
                checked++;
            }
        }
        tg_arena_free(&ar);
        tg_policy_free(p);
    }
    CHECK(checked > 500 && said_no > 100); /* (the property was put to the test) */
}

/* The name check and the glob matcher, against their definitions. */
static void name_check_and_globs(void) {
    for (int c = 0; c < 256; c++) {
        char s[1] = {(char)c};
        int want = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c == '.' || c == '-';
        CHECK_MSG(tg_policy_name_ok(s, 1) == want, "byte %d", c);
    }
    CHECK(!tg_policy_name_ok("", 0) && tg_policy_name_ok("a.b-c_D9", 8) && !tg_policy_name_ok("a b", 3));
    CHECK(tg_glob_match("*", 1, "", 0) && tg_glob_match("*", 1, "anything", 8));
    CHECK(tg_glob_match("a*", 2, "abc", 3) && !tg_glob_match("a*", 2, "bc", 2));
    CHECK(tg_glob_match("*c", 2, "abc", 3) && !tg_glob_match("*c", 2, "abd", 3));
    CHECK(tg_glob_match("a*b*c", 5, "aXbYc", 5) && !tg_glob_match("a*b*c", 5, "aXcYb", 5));
    CHECK(tg_glob_match("**", 2, "x", 1) && !tg_glob_match("x", 1, "", 0));
}

static void restricting_patterns_match_up_to_look_alikes(void) {
    tg_policy *p = compile(RESTRICTING);
    if (!p) return;
    EXPECT(p, "agent", "drop_table", TG_DENY, "rule:no-drop");
    EXPECT(p, "agent", "Drop_Table", TG_DENY, "rule:no-drop");
    EXPECT(p, "agent", "DROP_TABLE", TG_DENY, "rule:no-drop");
    /* and up to the look-alikes the registry folds: '-' for '_', 1/I/l, 0/O, rn/m */
    EXPECT(p, "agent", "drop-table", TG_DENY, "rule:no-drop");
    EXPECT(p, "agent", "dr0p_table", TG_DENY, "rule:no-drop");
    EXPECT(p, "agent", "drop_tab1e", TG_DENY, "rule:no-drop");
    EXPECT(p, "agent", "WIRE-M0NEY", TG_ASK, "rule:confirm");
    tg_policy_free(p);
    /* folded character by character: a glob still matches what it matched raw */
    p = compile("{'version':1,'defaults':['*'],'rules':[{'id':'t','effect':'deny','tools':['transfer*']},"
                "{'id':'v','effect':'ask','tools':['*_v*']},{'id':'all','effect':'allow','tools':['*']}]}");
    if (!p) return;
    EXPECT(p, "agent", "transferNow", TG_DENY, "rule:t");
    EXPECT(p, "agent", "TRANSFER_now", TG_DENY, "rule:t");
    EXPECT(p, "agent", "get_vvalue", TG_ASK, "rule:v");
    tg_policy_free(p);
    p = compile(RESTRICTING);
    if (!p) return;
    EXPECT(p, "agent", "Wire_Money", TG_ASK, "rule:confirm");
    EXPECT(p, "agent", "read_file", TG_ALLOW, "rule:reads");
    EXPECT(p, "agent", "Read_File", TG_DENY, "unmatched"); /* an allow is exact bytes */
    EXPECT(p, "ops", "deploy_prod", TG_ALLOW, "rule:ops");
    EXPECT(p, "ops", "Deploy_Prod", TG_DENY, "privileged"); /* privileged up to case; its grant must be exact */
    tg_tool_facts t = tool("Send_Mail");
    tg_authz_request r = req("agent");
    tg_authz_result res;
    r.scheduler = 1;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "scheduler") == 0);
    t = tool("CRM_Export");
    r = req("agent");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "tenant") == 0);
    r.tenant = "acme"; /* in its tenant: past the scope, and then no allow rule names it exactly */
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "unmatched") == 0);
    tg_policy_free(p);
    /* a rate limit holds a tool of any spelling */
    p = compile("{'version':1,'defaults':['*'],'rules':[{'id':'all','effect':'allow','tools':['*']}],"
                " 'rate_limits':[{'id':'crm','tools':['crm_*'],'capacity':1,'refill_per_second':0}]}");
    if (!p) return;
    t = tool("CRM_Export");
    r = req("agent");
    r.now_ms = 1000;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "rate:crm") == 0);
    tg_policy_free(p);
}

/* The registry's pair look-alikes (rn as m, vv as w) restrict too: a name
 * is caught when its character fold OR its pair fold matches (a pair fold
 * alone would break "transfer*" for "transferNow"); allow rules stay exact. */
static void restricting_patterns_match_pair_look_alikes(void) {
    tg_policy *p = compile(
        "{'version':1,'defaults':['*'],'privileged':['*_rnount'],'tenants':{'acme':['crm_*']},"
        " 'scheduler':{'blocked':['mcp__*__remove_*']},"
        " 'rules':[{'id':'no-destruction','effect':'deny','tools':['mcp__*__remove_*','mcp__*__wipe_*']},"
        "  {'id':'t','effect':'deny','tools':['transfer*']},{'id':'ok','effect':'allow','tools':['remove_cache']},"
        "  {'id':'all','effect':'allow','tools':['*']}],"
        " 'rate_limits':[{'id':'rm','tools':['remove_*'],'capacity':1,'refill_per_second':0}]}");
    if (!p) return;
    EXPECT(p, "agent", "mcp__up__rernove_files", TG_DENY, "rule:no-destruction");
    EXPECT(p, "agent", "mcp__up__vvipe_disk", TG_DENY, "rule:no-destruction");
    EXPECT(p, "agent", "mcp__up__VVIPE-disk", TG_DENY, "rule:no-destruction");
    EXPECT(p, "agent", "mcp__up__wipe_disk", TG_DENY, "rule:no-destruction");
    EXPECT(p, "agent", "transferNow", TG_DENY, "rule:t"); /* the character fold keeps the glob */
    EXPECT(p, "agent", "tranfser", TG_ALLOW, "rule:all");
    EXPECT(p, "agent", "disk_mount", TG_DENY, "privileged"); /* '*_rnount' pair-folds to '*_mount' */
    EXPECT(p, "agent", "crrn_export", TG_DENY, "tenant");    /* 'crm_*' */
    EXPECT(p, "agent", "rernove_cache", TG_ALLOW, "rule:all"); /* the allow rule did not match: exact bytes */
    tg_policy_free(p);
    tg_authz_result res;
    tg_tool_facts t = tool("mcp__up__rernove_files");
    tg_authz_request r;
    p = compile("{'version':1,'defaults':['*'],'scheduler':{'blocked':['mcp__*__remove_*']},"
                " 'rules':[{'id':'all','effect':'allow','tools':['*']}],"
                " 'rate_limits':[{'id':'rm','tools':['remove_*'],'capacity':1,'refill_per_second':0}]}");
    if (!p) return;
    r = req("agent");
    r.scheduler = 1;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "scheduler") == 0);
    r.scheduler = 0;
    r.now_ms = 1000;
    t = tool("remove_files");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    t = tool("rernove_files"); /* held by the limit, and by the same bucket */
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "rate:rm") == 0);
    tg_policy_free(p);
}

/* A bucket is keyed by the name folded as the patterns match it: a tool
 * re-listed as Send_Email, send-email or SEND_EMAIL draws on one bucket;
 * another tool keeps its own. */
static void rate_bucket_is_shared_by_every_spelling(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':[{'id':'all','effect':'allow','tools':['*']}],"
                           " 'rate_limits':[{'id':'mail','tools':['send_*'],'capacity':1,'refill_per_second':0}]}");
    if (!p) return;
    static const char *const spellings[] = {"Send_Email", "send-email", "SEND_EMAIL", "sEnd_eMaiI"};
    tg_authz_request r = req("agent");
    tg_authz_result res;
    r.now_ms = 1000;
    tg_tool_facts t = tool("send_email");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
        t = tool(spellings[i]);
        CHECK_MSG(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "rate:mail") == 0,
                  "%s: %s", spellings[i], res.rule);
        CHECK(tg_policy_limits(p, &t, &r, &res) == TG_DENY);
    }
    t = tool("send_sms");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    tg_policy_free(p);
}

/* ---- compile-side review fixes ---- */

/* The registry maps '.' to '_' in model-visible names ("github.delete_repo"
 * registers as github_delete_repo, and refuses tool.x beside tool_x): a
 * restricting pattern spelled with the host's '.' must catch the tool, and
 * an exact (allow-side) one, which never could, is refused. */
static void dotted_patterns_fold_or_are_refused(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'privileged':['ops.deploy'],"
                           " 'scheduler':{'blocked':['mail.send_*']},"
                           " 'rules':[{'id':'no-deletes','effect':'deny','tools':['github.delete_repo']},"
                           "          {'id':'ask-push','effect':'ask','tools':['git.push*']},"
                           "          {'id':'all','effect':'allow','tools':['*']}]}");
    if (p) {
        EXPECT(p, "agent", "github_delete_repo", TG_DENY, "rule:no-deletes");
        EXPECT(p, "agent", "Github-Delete_Repo", TG_DENY, "rule:no-deletes");
        EXPECT(p, "agent", "git_push_main", TG_ASK, "rule:ask-push");
        EXPECT(p, "agent", "ops_deploy", TG_DENY, "privileged");
        EXPECT(p, "agent", "github_list_repos", TG_ALLOW, "rule:all");
        tg_authz_result res;
        tg_tool_facts t = tool("mail_send_now");
        tg_authz_request r = req("agent");
        r.scheduler = 1;
        CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
        tg_policy_free(p);
    }
    static const char *const refused[][2] = {
        {"{'version':1,'defaults':['github.*'],'rules':[]}", "/defaults/0: \"github.*\" can never match"},
        {"{'version':1,'principals':{'a':{'grants':['x','github.list']}},'rules':[]}",
         "/principals/a/grants/1: \"github.list\" can never match"},
        {"{'version':1,'skills':{'s':['a.b']},'rules':[]}", "/skills/s/0: \"a.b\" can never match"},
        {"{'version':1,'rules':[{'effect':'allow','tools':['fs.read']}]}", "/rules/0/tools/0: \"fs.read\" can never match"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *d = rejected(refused[i][0]);
        CHECK_MSG(strstr(d, refused[i][1]) != NULL, "%s", d);
        free(d);
    }
}

/* Model-visible tool names are 1-64 bytes starting with a letter or '_'
 * (the registry puts '_' before a digit and cuts a longer name to 55
 * characters and a hash): a pattern whose own characters rule every such
 * name out can never match, and is refused naming the rule, the pattern
 * and why, instead of a deny or limit that silently holds nothing.
 * Restricting patterns match folded, so what a fold can still match
 * ('0pen' as 'open', a 66-byte run of "rn" as 33 'm's) is kept. */
static void patterns_that_can_never_match_are_refused(void) {
    char a65[66], a64[65], lit[200], rn[67], m33[34], doc[1200];
    memset(a65, 'a', 65), a65[65] = '\0';
    memset(a64, 'a', 64), a64[64] = '\0';
    snprintf(lit, sizeof lit, "mcp__%.60s*", a65); /* a literal prefix of 65 bytes */
    for (int i = 0; i < 33; i++) rn[2 * i] = 'r', rn[2 * i + 1] = 'n';
    rn[66] = '\0';
    memset(m33, 'm', 33), m33[33] = '\0';
    /* (the registry's own mapping: what the suggestion below rests on) */
    char mapped[TG_NAME_MAX + 1];
    tg_name_map("{tool}", "", 0, "2fa_reset", 9, mapped);
    CHECK_STR(mapped, "_2fa_reset");
    tg_name_map("{tool}", "", 0, a65, 65, mapped);
    CHECK(strlen(mapped) == TG_NAME_MAX && strcmp(mapped, a65) != 0);

    struct {
        const char *fmt, *arg, *diag;
    } refused[] = {
        {"{'version':1,'defaults':['*'],'rules':[{'id':'no-long','effect':'deny','tools':['x','%s']},"
         "{'effect':'allow','tools':['*']}]}",
         a65, "/rules/0/tools/1: \"aaaaa"},
        {"{'version':1,'defaults':['*'],'rules':[{'id':'no-2fa','effect':'deny','tools':['%s']},"
         "{'effect':'allow','tools':['*']}]}",
         "2fa_reset",
         "/rules/0/tools/0: \"2fa_reset\" in rule \"no-2fa\" can never match: model-visible tool names start with "
         "a letter or '_' (the registry puts a '_' before any other first character); write \"_2fa_reset\""},
        {"{'version':1,'defaults':['*'],'rules':[{'effect':'ask','tools':['%s']},{'effect':'allow','tools':['*']}]}",
         "9*", "/rules/0/tools/0: \"9*\" can never match: model-visible tool names start with a letter or '_'"},
        /* exact bytes: '0', '1' and '-' fold for nothing */
        {"{'version':1,'principals':{'a':{'grants':['%s']}},'rules':[]}", "0day",
         "/principals/a/grants/0: \"0day\" can never match: model-visible tool names start with a letter or '_' "
         "(the registry puts a '_' before any other first character), and grants, defaults and allow rules match "
         "exact bytes; write \"_0day\""},
        {"{'version':1,'defaults':['*'],'rules':[{'id':'ok','effect':'allow','tools':['%s']}]}", "-x",
         "/rules/0/tools/0: \"-x\" in rule \"ok\" can never match"},
        {"{'version':1,'skills':{'s':['%s']},'rules':[]}", a65,
         "/skills/s/0: \"aaaaa"},
        /* globs: what their fixed characters settle */
        {"{'version':1,'defaults':['*'],'scheduler':{'blocked':['%s']},'rules':[]}", lit,
         "/scheduler/blocked/0: \"mcp__aaaa"},
        {"{'version':1,'defaults':['*'],'privileged':['%s'],'rules':[]}", "3*x",
         "/privileged/0: \"3*x\" can never match"},
        {"{'version':1,'tenants':{'acme':['%s']},'rules':[]}", "4acme_*", "/tenants/acme/0: \"4acme_*\" can never match"},
        {"{'version':1,'rate_limits':[{'id':'gh','tools':['%s'],'capacity':1,'refill_per_second':1}],'rules':[]}",
         "5*", "/rate_limits/0/tools/0: \"5*\" in rate limit \"gh\" can never match"},
        {"{'version':1,'session_budgets':[{'id':'all','tools':['%s'],'max_calls':1}],'rules':[]}",
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa*bbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
         "in session budget \"all\" can never match: its characters other than '*' alone are 70 bytes, and "
         "model-visible tool names are at most 64"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(doc, sizeof doc, refused[i].fmt, refused[i].arg);
        char *d = rejected(doc);
        CHECK_MSG(strstr(d, refused[i].diag) != NULL, "%s\n-> %s", doc, d);
        free(d);
    }
    char *d = rejected("{'version':1,'defaults':['*'],'rules':[{'id':'r','effect':'deny','tools':['" /* both lengths */
                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                       "']},{'effect':'allow','tools':['*']}]}");
    CHECK_MSG(strstr(d, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" in rule \"r\" can never "
                        "match: it is 98 bytes, and model-visible tool names are at most 64") != NULL,
              "%s", d);
    free(d);

    /* what some name can match is kept, and matches it */
    snprintf(doc, sizeof doc,
             "{'version':1,'defaults':['*'],'rules':["
             "{'id':'fold0','effect':'deny','tools':['0pen_file','1ist_dir','-hidden','.dot']},"
             "{'id':'pairs','effect':'deny','tools':['%s']},"
             "{'id':'edge','effect':'ask','tools':['%s','*2fa','_2fa_*']},"
             "{'id':'all','effect':'allow','tools':['%.32s*%.32s']}]}",
             rn, a64, a64, a64);
    tg_policy *p = compile(doc);
    if (!p) return;
    EXPECT(p, "agent", "open_file", TG_DENY, "rule:fold0");
    EXPECT(p, "agent", "list_dir", TG_DENY, "rule:fold0");
    EXPECT(p, "agent", "_hidden", TG_DENY, "rule:fold0");
    EXPECT(p, "agent", "_dot", TG_DENY, "rule:fold0");
    EXPECT(p, "agent", m33, TG_DENY, "rule:pairs");
    EXPECT(p, "agent", a64, TG_ASK, "rule:edge");
    EXPECT(p, "agent", "x_2fa", TG_ASK, "rule:edge");
    EXPECT(p, "agent", "_2fa_reset", TG_ASK, "rule:edge");
    tg_policy_free(p);
}

/* "C://Windows/x" is a drive letter and a doubled separator, not a URL: the
 * path checks hold (one letter is never a URL scheme here). */
static void drive_letter_is_not_a_url_scheme(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],"
                           " 'rules':[{'id':'no-windows','effect':'deny','tools':['write_file'],"
                           "           'args':{'path':{'prefix':'C:/Windows/'}}},"
                           "          {'id':'web','effect':'allow','tools':['fetch'],"
                           "           'args':{'url':{'prefix':'ws://h/'}}},"
                           "          {'id':'all','effect':'allow','tools':['write_file']}]}");
    if (!p) return;
    ARGS_EXPECT(p, "write_file", "{'path':'C:/Windows/x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'C://Windows/x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'C://Windows./x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'c:\\\\\\\\Windows\\\\x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'D:/data/x'}", TG_ALLOW);
    ARGS_EXPECT(p, "fetch", "{'url':'ws://h/x'}", TG_ALLOW); /* two letters: a scheme */
    tg_policy_free(p);
}

/* Windows reads '\' and '/' alike, as a URL parser does in http(s) URLs:
 * a deny or ask rule's prefix or suffix matches with either, as it matches
 * up to case; an allow rule's stays exact bytes, never broader. */
static void separators_fold_in_restricting_rules(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':["
                           " {'id':'no-windows','effect':'deny','tools':['write_file'],'args':{'path':{'prefix':'C:/Windows/'}}},"
                           " {'id':'no-secrets','effect':'deny','tools':['write_file'],'args':{'path':{'prefix':'D:\\\\Secrets\\\\'}}},"
                           " {'id':'env','effect':'ask','tools':['write_file'],'args':{'path':{'suffix':'/.env'}}},"
                           " {'id':'all','effect':'allow','tools':['write_file']},"
                           " {'id':'work','effect':'allow','tools':['save'],'args':{'path':{'prefix':'C:/work/'}}}]}");
    if (!p) return;
    ARGS_EXPECT(p, "write_file", "{'path':'C:/Windows/x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'C:\\\\Windows\\\\System32\\\\x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'c:\\\\windows\\\\x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'C:/Windows\\\\x'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'D:/Secrets/key.pem'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'d:\\\\secrets/key.pem'}", TG_DENY);
    ARGS_EXPECT(p, "write_file", "{'path':'C:\\\\app\\\\.env'}", TG_ASK);
    ARGS_EXPECT(p, "write_file", "{'path':'C:\\\\app\\\\x.env'}", TG_ALLOW);
    ARGS_EXPECT(p, "write_file", "{'path':'C:\\\\Windowsx\\\\a'}", TG_ALLOW);
    ARGS_EXPECT(p, "save", "{'path':'C:/work/a'}", TG_ALLOW);
    ARGS_EXPECT(p, "save", "{'path':'C:\\\\work\\\\a'}", TG_DENY); /* allow: exact bytes */
    ARGS_EXPECT(p, "save", "{'path':'C:/work\\\\a'}", TG_DENY);
    tg_policy_free(p);
}

/* A URL parser (fetch, new URL) reads many spellings as one URL; each
 * spelling of an http(s), ws(s), ftp or file URL other than the one it
 * writes back is undecidable (a deny or ask rule matches, an allow rule
 * does not), and a URL without a path is read with its "/". */
/* Bytes the parser writes back percent-encoded (a space, a non-ASCII
 * character, "'" in a query): a deny written in the encoded spelling
 * catches the raw one; a pattern without '%' judges the raw text as
 * before; "%2e" is a dot in any URL ("s3://b/pub/%2e%2e/x" is "s3://b/x"). */
static void url_bytes_written_back_encoded(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':["
                           " {'id':'private','effect':'deny','tools':['fetch'],'args':{'url':{'prefix':'https://wiki.example.com/private%20notes/'}}},"
                           " {'id':'cafe','effect':'deny','tools':['fetch'],'args':{'url':{'prefix':'https://wiki.example.com/caf%C3%A9/'}}},"
                           " {'id':'q','effect':'deny','tools':['fetch'],'args':{'url':{'prefix':'https://wiki.example.com/s?q=it%27s'}}},"
                           " {'id':'secret','effect':'deny','tools':['fetch'],'args':{'url':{'prefix':'s3://bucket/secret/'}}},"
                           " {'id':'all','effect':'allow','tools':['fetch']},"
                           " {'id':'api','effect':'allow','tools':['get'],'args':{'url':{'prefix':'https://api.example.com/'}}},"
                           " {'id':'enc','effect':'allow','tools':['put'],'args':{'url':{'prefix':'https://api.example.com/a%20b/'}}},"
                           " {'id':'pub','effect':'allow','tools':['ssh'],'args':{'url':{'prefix':'ssh://git.example.com/pub/'}}}]}");
    if (!p) return;
    ARGS_EXPECT(p, "fetch", "{'url':'https://wiki.example.com/private notes/keys'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'https://wiki.example.com/caf\u00e9/menu'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'https://wiki.example.com/s?q=it\\u0027s'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'https://wiki.example.com/private%20notes/keys'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'s3://bucket/pub/%2e%2e/secret/x'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'s3://bucket/pub/%2E./secret/x'}", TG_DENY);
    ARGS_EXPECT(p, "fetch", "{'url':'https://wiki.example.com/public notes/x'}", TG_DENY); /* (a '%' rule cannot tell) */
    ARGS_EXPECT(p, "fetch", "{'url':'https://other.example.com/x'}", TG_ALLOW);
    /* a prefix without '%' judges the raw text: no broader, no narrower */
    ARGS_EXPECT(p, "get", "{'url':'https://api.example.com/wiki/Caf\u00e9'}", TG_ALLOW);
    ARGS_EXPECT(p, "get", "{'url':'https://api.example.com/search?q=it\\u0027s here'}", TG_ALLOW);
    ARGS_EXPECT(p, "get", "{'url':'https://apix.example.com/wiki/Caf\u00e9'}", TG_DENY);
    /* an allow with '%' is never broader: the raw spelling does not pass it */
    ARGS_EXPECT(p, "put", "{'url':'https://api.example.com/a%20b/x'}", TG_ALLOW);
    ARGS_EXPECT(p, "put", "{'url':'https://api.example.com/a b/x'}", TG_DENY);
    ARGS_EXPECT(p, "ssh", "{'url':'ssh://git.example.com/pub/x'}", TG_ALLOW);
    ARGS_EXPECT(p, "ssh", "{'url':'ssh://git.example.com/pub/%2e%2e/secret'}", TG_DENY);
    tg_policy_free(p);
}

static void url_spellings_cannot_dodge_a_deny(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':["
                           " {'id':'internal','effect':'deny','tools':['fetch'],'args':{'url':{'prefix':'https://internal.example.com/'}}},"
                           " {'id':'metadata','effect':'deny','tools':['fetch'],'args':{'url':{'prefix':'http://169.254.169.254/'}}},"
                           " {'id':'all','effect':'allow','tools':['fetch']},"
                           " {'id':'api','effect':'allow','tools':['get'],'args':{'url':{'prefix':'https://api.example.com/'}}}]}");
    if (!p) return;
    static const char *const denied[] = {
        "https://internal.example.com/x", "https:///internal.example.com/x", "https:/internal.example.com/x",
        "https:internal.example.com/x", "https:\\\\\\\\internal.example.com\\\\x", "https:\\\\/internal.example.com/x",
        "HTTPS://INTERNAL.example.com/x", "https://inter\\tnal.example.com/x", "ht\\ttps://internal.example.com/x",
        " https://internal.example.com/x", "\\u0001https://internal.example.com/x", "https://internal.example.com/x\\n",
        "https://internal.example.com/x ", "https://evil@internal.example.com/x", "https://a:b@internal.example.com/x",
        "https://%69nternal.example.com/x", "https://internal.example.com./x", "https://internal.example.com:443/x",
        "https://internal.example.com:/x", "https://internal.example.com:0443/x", "https://internal.example.com",
        "https://internal.example.com?x=1", "https://internal.example.com#x", "https://\xef\xbd\x89nternal.example.com/",
        "https://internal.example.com\\\\x", "http://169.254.169.254/latest", "http://169.254.169.254./latest",
        "http://2852039166/latest", "http://0xA9.0xFE.0xA9.0xFE/", "http://0xa9fea9fe/", "http://169.254.43518/",
        "http://0251.0376.0251.0376/", "http://169.254.169.0254/", "http://169.254.169.254:80/",
        "http://[::ffff:169.254.169.254]/", "http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "http://[::FFFF:a9fe:a9fe]:80/",
        "http://[::1", "wss://internal.example.com:443/x", "https://internal.example.com/a/%2e%2e/x"};
    char args[256];
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        snprintf(args, sizeof args, "{'url':'%s'}", denied[i]);
        ARGS_EXPECT(p, "fetch", args, TG_DENY);
    }
    /* canonical spellings are judged as before */
    static const char *const allowed[] = {
        "https://api.example.com/v1/x?y=1", "https://api.example.com", "https://api.example.com?q=1",
        "https://api.example.com:8443/x", "http://10.0.0.1/x", "http://169.254.169.25/x", "https://[2001:db8::1]/x",
        "http://[::ffff:a9fe:a9fe]/", "https://[::1]:8443/", "ws://h:443/", "https://internal.example.com.evil/x",
        "file:///tmp/x", "file://host/share/x", "https://xn--nxasmq6b.example/", "https://1x.example/",
        "https://api.example.com/a b", "ssh://internal.example.com:22/x", "https://api.example.com/v1/x.json"};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        snprintf(args, sizeof args, "{'url':'%s'}", allowed[i]);
        ARGS_EXPECT(p, "fetch", args, TG_ALLOW);
    }
    /* an allow rule never gets broader: exact bytes, and no spelling that
     * is not written back passes it */
    ARGS_EXPECT(p, "get", "{'url':'https://api.example.com/v1/x?y=1'}", TG_ALLOW);
    static const char *const not_allowed[] = {
        "https://api.example.com", "https://api.example.com?q=1", "HTTPS://api.example.com/x",
        "https:\\\\\\\\api.example.com\\\\x", "https://api.example.com/%2e%2e/admin", "https://api.example.com/a/.%2E/b",
        "https://api.example.com/x\\ty", "https://api.example.com/x\\n", "https://api.example.com:443/x",
        "https:///api.example.com/x"};
    for (size_t i = 0; i < sizeof not_allowed / sizeof not_allowed[0]; i++) {
        snprintf(args, sizeof args, "{'url':'%s'}", not_allowed[i]);
        ARGS_EXPECT(p, "get", args, TG_DENY);
    }
    /* the trace says why */
    tg_buf ex;
    tg_buf_init(&ex, A, 0);
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_tool_facts t = tool("fetch");
    tg_authz_request r = req("agent");
    r.args = doc_from(&ar, "{'url':'http://2852039166/'}");
    tg_policy_authorize(p, &t, &r, NULL, &ex);
    CHECK_MSG(strstr(ex.data, "\"result\":\"undecidable\",\"why\":\"argument is a URL with an IPv4 address") != NULL,
              "%s", ex.data);
    tg_arena_free(&ar);
    tg_buf_free(&ex);
    tg_policy_free(p);
}

/* An explicit id equal to another rule's default id (its JSON Pointer)
 * would make two rules report one id. */
static void explicit_id_cannot_shadow_a_default_id(void) {
    char *d = rejected("{'version':1,'defaults':['*'],'rules':["
                       "{'id':'/rules/2','effect':'deny','tools':['w']},"
                       "{'id':'other','effect':'ask','tools':['n']},"
                       "{'effect':'allow','tools':['*']}]}");
    CHECK_MSG(strstr(d, "/rules/0/id: duplicate rule id \"/rules/2\"") != NULL, "%s", d);
    free(d);
    /* its own pointer, or another rule's when that rule has an id, is fine */
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':["
                           "{'id':'/rules/0','effect':'deny','tools':['w']},"
                           "{'id':'/rules/2','effect':'ask','tools':['n']},"
                           "{'id':'x','effect':'allow','tools':['*']},"
                           "{'id':'/rules/03','effect':'allow','tools':['*']}]}");
    if (p) tg_policy_free(p);
}

/* Principals share a bundle's compiled set: memory grows with the document,
 * not principals x bundle size; running out of memory is one line. */
static void bundles_are_shared_not_copied(void) {
    enum { N = 1000, M = 2000 };
    tg_buf doc;
    tg_buf_init(&doc, A, 0);
    tg_buf_puts(&doc, "{'version':1,'skills':{'s':[");
    for (int i = 0; i < M; i++) tg_buf_printf(&doc, "%s't%d'", i ? "," : "", i);
    tg_buf_puts(&doc, "],'t*x':['q*']},'principals':{");
    for (int i = 0; i < N; i++) tg_buf_printf(&doc, "%s'p%d':{'skills':['s']}", i ? "," : "", i);
    tg_buf_puts(&doc, ",'g':{'grants':['own'],'skills':['s','t*x']}},'rules':[{'effect':'allow','tools':['*']}]}");
    size_t before = counter.live;
    tg_policy *p = compile(doc.data);
    size_t used = counter.live - before;
    CHECK_MSG(used < 8u << 20, "compiled policy holds %zu bytes", used);
    if (p) {
        EXPECT(p, "p7", "t1999", TG_ALLOW, "rule:");
        EXPECT(p, "p7", "t2000", TG_DENY, "grants");
        EXPECT(p, "g", "own", TG_ALLOW, "rule:");
        EXPECT(p, "g", "t5", TG_ALLOW, "rule:");
        EXPECT(p, "g", "qq", TG_ALLOW, "rule:");
        EXPECT(p, "p7", "qq", TG_DENY, "grants");
        tg_policy_free(p);
    }
    /* out of memory at any point of compiling: one line, no other */
    tg_arena ar;
    tg_arena_init(&ar, A);
    cJSON *d = doc_from(&ar, doc.data);
    counting dc = {0, 0, 0};
    tg_allocator DA = {count_alloc, &dc};
    for (long k = 1; k < 400 && d; k += 7) {
        tg_buf diag;
        tg_buf_init(&diag, DA, 0);
        counter.allocs = 0;
        counter.fail_at = k;
        tg_policy *q = NULL;
        int r = tg_policy_compile(&A, d, &q, &diag);
        counter.fail_at = 0;
        if (r == 0) {
            tg_policy_free(q);
        } else {
            const char *t = diag.data ? diag.data : "";
            const char *nl = strchr(t, '\n');
            CHECK_MSG(strncmp(t, "/: out of memory", 16) == 0 && nl && nl[1] == '\0', "failing at %ld:\n%s", k, t);
        }
        tg_buf_free(&diag);
    }
    tg_arena_free(&ar);
    tg_buf_free(&doc);
}

/* ---- the decision side: the rule reported, dry runs, large inputs ---- */

/* Several deny rules match: the first in document order is reported, with
 * a trace or without (patterns are visited exact ones first, so the later
 * exact-name rule is found before the earlier glob). */
static void first_matching_deny_in_document_order_is_reported(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':["
                           " {'id':'A','effect':'deny','tools':['mcp__*'],'reason':'reason A'},"
                           " {'id':'B','effect':'deny','tools':['mcp__x__delete'],'reason':'reason B'},"
                           " {'id':'C','effect':'ask','tools':['mcp__x__delete']},"
                           " {'id':'all','effect':'allow','tools':['*']}]}");
    if (!p) return;
    tg_tool_facts t = tool("mcp__x__delete");
    tg_authz_request r = req("agent");
    tg_authz_result res;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "rule:A");
    CHECK_STR(res.reason, "reason A");
    r.dry_run = 1;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "rule:A");
    tg_buf ex;
    tg_buf_init(&ex, A, 0);
    CHECK(tg_policy_authorize(p, &t, &r, &res, &ex) == TG_DENY);
    CHECK_STR(res.rule, "rule:A");
    tg_buf_free(&ex);
    tg_policy_free(p);
    /* a rule with conditions after a matched deny does not change it either */
    p = compile("{'version':1,'defaults':['*'],'rules':["
                " {'id':'early','effect':'deny','tools':['x*'],'args':{'a':{'equals':1}}},"
                " {'id':'late','effect':'deny','tools':['xy']},"
                " {'id':'all','effect':'allow','tools':['*']}]}");
    if (!p) return;
    tg_arena ar;
    tg_arena_init(&ar, A);
    t = tool("xy");
    r.args = doc_from(&ar, "{'a':1}");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "rule:early");
    r.args = doc_from(&ar, "{'a':2}");
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "rule:late");
    tg_arena_free(&ar);
    tg_policy_free(p);
}

/* A rule with many patterns that match is judged once: same decisions as
 * with one pattern, and the trace marks the repeats. */
static void a_rule_with_many_matching_patterns_is_judged_once(void) {
    tg_buf doc;
    tg_buf_init(&doc, A, 0);
    tg_buf_puts(&doc, "{'version':1,'defaults':['*'],'rules':[{'id':'x','effect':'deny','tools':[");
    for (int i = 0; i < 300; i++) tg_buf_puts(&doc, i ? ",'*','t*'" : "'*','t*'");
    tg_buf_puts(&doc, "],'principals':[");
    for (int i = 0; i < 300; i++) tg_buf_printf(&doc, "%s'p%d'", i ? "," : "", i);
    tg_buf_puts(&doc, "]},{'id':'all','effect':'allow','tools':['*']}]}");
    tg_policy *p = compile(doc.data);
    tg_buf_free(&doc);
    if (!p) return;
    EXPECT(p, "p299", "tool_x", TG_DENY, "rule:x");
    EXPECT(p, "p0", "tool_x", TG_DENY, "rule:x");
    EXPECT(p, "q", "tool_x", TG_ALLOW, "rule:all");
    tg_buf ex;
    tg_buf_init(&ex, A, 0);
    tg_tool_facts t = tool("tool_x");
    tg_authz_request r = req("q");
    CHECK(tg_policy_authorize(p, &t, &r, NULL, &ex) == TG_ALLOW);
    size_t judged = 0, repeats = 0;
    for (const char *at = ex.data; (at = strstr(at, "\"applies\":false")) != NULL; at++) judged++;
    for (const char *at = ex.data; (at = strstr(at, "\"judged\":\"above\"")) != NULL; at++) repeats++;
    CHECK_MSG(judged == 1 && repeats == 599, "judged %zu, repeats %zu", judged, repeats);
    tg_buf_free(&ex);
    tg_policy_free(p);
}

/* Many limits on one tool: each kept once (here every one of 3 patterns
 * matches), each checked and charged. */
static void many_limits_on_one_tool_each_count_once(void) {
    tg_buf doc;
    tg_buf_init(&doc, A, 0);
    tg_buf_puts(&doc, "{'version':1,'defaults':['*'],'rules':[{'effect':'allow','tools':['*']}],'session_budgets':[");
    for (int i = 0; i < 200; i++) tg_buf_printf(&doc, "%s{'id':'b%d','tools':['*','tool_*','t*'],'max_calls':%d}", i ? "," : "", i, i == 150 ? 2 : 5);
    tg_buf_puts(&doc, "]}");
    tg_policy *p = compile(doc.data);
    tg_buf_free(&doc);
    if (!p) return;
    tg_tool_facts t = tool("tool_x");
    tg_authz_request r = req("agent");
    r.session = "s";
    r.now_ms = 1000;
    tg_authz_result res;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY); /* charged once per call, not per pattern */
    CHECK_STR(res.rule, "budget:b150");
    tg_policy_free(p);
}

/* equals on objects: member order does not matter, at any size (large
 * ones are compared sorted, in the decision's scratch) */
static void equals_on_large_objects_ignores_member_order(void) {
    tg_buf doc, args, args2;
    tg_buf_init(&doc, A, 0);
    tg_buf_init(&args, A, 0);
    tg_buf_init(&args2, A, 0);
    tg_buf_puts(&doc, "{'version':1,'defaults':['*'],'rules':[{'id':'d','effect':'deny','tools':['tool_x'],'args':{'o':{'equals':{");
    tg_buf_puts(&args, "{'o':{");
    tg_buf_puts(&args2, "{'o':{");
    for (int i = 0; i < 500; i++) {
        tg_buf_printf(&doc, "%s'k%d':{'n':%d}", i ? "," : "", i, i);
        tg_buf_printf(&args, "%s'k%d':{'n':%d}", i ? "," : "", 499 - i, 499 - i);
        tg_buf_printf(&args2, "%s'k%d':{'n':%d}", i ? "," : "", 499 - i, i == 7 ? 0 : 499 - i);
    }
    tg_buf_puts(&doc, "}}}},{'id':'all','effect':'allow','tools':['*']}]}");
    tg_buf_puts(&args, "}}");
    tg_buf_puts(&args2, "}}");
    tg_policy *p = compile(doc.data);
    if (p) {
        tg_arena ar;
        tg_arena_init(&ar, A);
        tg_tool_facts t = tool("tool_x");
        tg_authz_request r = req("agent");
        tg_authz_result res;
        r.args = doc_from(&ar, args.data);
        CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
        CHECK_STR(res.rule, "rule:d");
        r.args = doc_from(&ar, args2.data);
        CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
        tg_arena_free(&ar);
        tg_policy_free(p);
    }
    tg_buf_free(&doc);
    tg_buf_free(&args);
    tg_buf_free(&args2);
}

/* A dry run answers what the call would get when the state tables are
 * full: refused, as the call is; allowed again once an entry expires. */
static void dry_run_reports_full_state_as_the_call_would(void) {
    tg_policy *p = compile("{'version':1,'defaults':['*'],'rules':[{'id':'all','effect':'allow','tools':['*']}],"
                           " 'rate_limits':[{'id':'r','tools':['*'],'capacity':10,'refill_per_second':1}],"
                           " 'session_budgets':[{'id':'b','tools':['*'],'max_calls':100}],"
                           " 'limits':{'max_rate_buckets':1,'max_budget_entries':1}}");
    if (!p) return;
    tg_tool_facts t = tool("tool_x");
    tg_authz_request r = req("a");
    tg_authz_result res;
    r.session = "s1";
    r.now_ms = 1000;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW); /* fills both tables */
    r.dry_run = 1;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW); /* its own entries exist */
    r.principal = "b"; /* a new bucket: no room */
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "rate:r");
    CHECK(tg_policy_limits(p, &t, &r, &res) == TG_DENY);
    r.dry_run = 0;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "rate:r") == 0);
    r.principal = "a";
    r.session = "s2"; /* a new budget entry: no room */
    r.dry_run = 1;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY);
    CHECK_STR(res.rule, "budget:b");
    r.dry_run = 0;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_DENY && strcmp(res.rule, "budget:b") == 0);
    /* once a's bucket has refilled (expired), b's dry run and call agree: allowed */
    r.session = "s1";
    r.principal = "b";
    r.now_ms = 1000 + 60000;
    r.dry_run = 1;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    r.dry_run = 0;
    CHECK(tg_policy_authorize(p, &t, &r, &res, NULL) == TG_ALLOW);
    tg_policy_free(p);
}

/* A capped trace buffer still gets one JSON object: past its room the
 * rules considered are counted, not listed. */
static void capped_trace_stays_json(void) {
    tg_buf doc;
    tg_buf_init(&doc, A, 0);
    tg_buf_puts(&doc, "{'version':1,'defaults':['*'],'rules':[");
    for (int i = 0; i < 20000; i++) tg_buf_printf(&doc, "%s{'id':'r%d','effect':'allow','tools':['*']}", i ? "," : "", i);
    tg_buf_puts(&doc, "]}");
    tg_policy *p = compile(doc.data);
    tg_buf_free(&doc);
    if (!p) return;
    tg_buf ex;
    tg_buf_init(&ex, A, 1 << 20);
    tg_tool_facts t = tool("tool_x");
    tg_authz_request r = req("agent");
    tg_authz_result res;
    CHECK(tg_policy_authorize(p, &t, &r, &res, &ex) == TG_ALLOW);
    CHECK(!ex.failed && ex.len <= (1u << 20));
    tg_arena ar;
    tg_arena_init(&ar, A);
    tg_json_error err;
    cJSON *j = ex.failed ? NULL : tg_json_parse(&ar, ex.data, ex.len, NULL, &err);
    CHECK_MSG(j != NULL, "capped trace is not JSON");
    if (j) {
        const cJSON *rule = tg_json_getz(j, "rule");
        CHECK(rule && cJSON_IsString(rule) && strcmp(rule->valuestring, "rule:r0") == 0);
        CHECK(strstr(ex.data, "\"truncated\":true,\"omitted\":") != NULL);
    }
    tg_arena_free(&ar);
    tg_buf_free(&ex);
    tg_policy_free(p);
}

int main(void) {
    A.fn = count_alloc;
    A.ud = &counter;
    default_set_has_no_privileged_tools();
    explicit_grant_reaches_privileged_tool();
    wildcard_grant_never_reaches_privileged_tool();
    bundles_union_with_base_grants();
    scheduler_blocks_and_turns_ask_into_deny();
    plan_mode_keeps_only_read_only_tools();
    bypass_asks_nothing_but_honours_deny();
    accept_edits_allows_only_edit_tools_that_would_ask();
    trusted_source_gets_full_set_but_not_privileged();
    argument_conditions();
    number_conditions_judge_the_handlers_double();
    path_traversal_never_passes_a_prefix();
    tenant_scoped_tools_only_in_their_tenant();
    rate_limit_exhausts_and_refills();
    session_budget_caps_calls();
    bounded_rate_state_sweeps_and_fails_closed();
    adopted_state_survives_a_policy_change();
    saved_state_loads_into_a_fresh_policy();
    limits_alone_check_and_charge();
    approval_bound_to_arguments_and_used_once();
    approvals_per_principal_are_bounded();
    expired_and_denied_approvals_cannot_be_replayed();
    allow_for_session_adds_a_session_rule();
    approval_tokens_refuse_forgery_tampering_expiry_and_replay();
    approval_tokens_are_issued_on_approval();
    ending_a_session_spends_its_tokens();
    confusable_and_normalized_names_never_reach_a_denied_tool();
    restricting_patterns_match_up_to_look_alikes();
    registry_folds_decide_as_folding_does();
    name_check_and_globs();
    reads_args_only_for_tools_a_conditioned_rule_names();
    reads_args_says_no_only_when_arguments_cannot_matter();
    rate_bucket_is_shared_by_every_spelling();
    restricting_patterns_match_pair_look_alikes();
    invalid_documents_are_rejected_with_pointers();
    embedded_schema_matches_docs();
    explain_returns_the_whole_trace_as_json();
    first_matching_deny_in_document_order_is_reported();
    a_rule_with_many_matching_patterns_is_judged_once();
    many_limits_on_one_tool_each_count_once();
    equals_on_large_objects_ignores_member_order();
    dry_run_reports_full_state_as_the_call_would();
    capped_trace_stays_json();
    listing_ignores_argument_conditions_that_could_match();
    descriptor_hints_cannot_widen();
    allocation_failure_everywhere_is_clean();
    CHECK_MSG(counter.live == 0, "%zu bytes still allocated", counter.live);
    decision_cost_does_not_grow_with_rules();
    dotted_patterns_fold_or_are_refused();
    patterns_that_can_never_match_are_refused();
    drive_letter_is_not_a_url_scheme();
    separators_fold_in_restricting_rules();
    url_spellings_cannot_dodge_a_deny();
    url_bytes_written_back_encoded();
    explicit_id_cannot_shadow_a_default_id();
    bundles_are_shared_not_copied();
    CHECK_MSG(counter.live == 0, "%zu bytes still allocated", counter.live);
    return tg_test_finish("policy");
}
