/* router.h - the parts of the call pipeline that are not another module's:
 * the table of calls waiting for their handler, the first check of
 * arguments against a tool's inputSchema, and the shaping of every outcome
 * into an MCP CallToolResult. The pipeline itself (tg_call_begin,
 * tg_call_complete) is in call.c and reads top to bottom. */
#ifndef TG_ROUTER_H
#define TG_ROUTER_H

#include <stdint.h>

#include "toolgate.h"
#include "../base/alloc.h"
#include "../base/buf.h"
#include "../json/json.h"
#include "../registry/registry.h"
#include "../policy/policy.h"

/* ---- pending calls: a fixed table, O(1) by call id ---- */
typedef struct tg_pending tg_pending;

/* NULL when the allocator refuses. capacity >= 1. */
tg_pending *tg_pending_new(const tg_allocator *alloc, size_t capacity);
void tg_pending_free(tg_pending *p);
/* What the table keeps of a call in flight. */
typedef struct tg_call_info {
    const tg_tool *tool;
    double started_ms, deadline_ms;
    char principal[64];
} tg_call_info;

/* Records a call (retaining its tool); returns its id (never 0), or 0 when
 * the table is full. */
uint32_t tg_pending_add(tg_pending *p, const tg_call_info *info);
/* Removes the call and copies out what was kept; the tool's reference passes
 * to the caller (tg_tool_release it). 0, or -1 when id is not pending. */
int tg_pending_take(tg_pending *p, uint32_t id, tg_call_info *out);

/* Marks the call answered while its handler still runs (cancelled, timed
 * out): it keeps its slot, its tool's concurrency count and its tool
 * reference until tg_pending_settle; tg_pending_take no longer finds it.
 * Copies out what was kept (the reference stays with the slot). 0, or -1
 * when id is not pending or answered already. */
int tg_pending_answer(tg_pending *p, uint32_t id, tg_call_info *out);
/* Frees an answered call's slot once its handler has stopped. 0, or -1 when
 * id is not an answered call. */
int tg_pending_settle(tg_pending *p, uint32_t id);

size_t tg_pending_count(const tg_pending *p);
/* 1 when tg_pending_add would refuse (the table is full). */
int tg_pending_full(const tg_pending *p);
/* The next id handed out follows `last` (a replaced runtime's last id): an
 * audit log pairs a call's events by id, so none is handed out twice. */
void tg_pending_resume_after(tg_pending *p, uint32_t last);

/* ---- arguments ---- */
typedef enum tg_args_status { TG_ARGS_OK = 0, TG_ARGS_INVALID, TG_ARGS_MISSING_CONTEXT, TG_ARGS_NOMEM, TG_ARGS_LIMIT } tg_args_status;

/* Prepares args for tool: refuses (or, by the tool's option, drops) context
 * parameters the model supplied, injects them from context (an object or
 * NULL), then validates against the compiled inputSchema. On TG_ARGS_INVALID
 * msg holds one "- <pointer>: <problem>" line per error (at most
 * max_errors); on TG_ARGS_MISSING_CONTEXT it names the parameter.
 * known_invalid: the one-pass check refused these arguments already, so
 * only their errors are collected (no second verdict). */
/* The arguments the handler would receive, as the policy's argument
 * conditions must judge them: a copy of args (in arena) in which each
 * context parameter the context has a value for holds that value, as
 * tg_args_prepare will put it (a model's value for it removed). args itself when the tool has no context parameters
 * or args is not an object; NULL out of memory. */
const cJSON *tg_args_judged(tg_arena *arena, const tg_tool *tool, const cJSON *args, const cJSON *context);
/* The arguments a person asked to approve is shown, and the approval is
 * bound to: a copy of args (in arena) without the tool's context
 * parameters: a model's value for one never runs (dropped, or the call
 * refused), and the context's value is the host's, never shown. args itself
 * when the tool has no context parameters or args is not an object; NULL
 * out of memory. */
const cJSON *tg_args_shown(tg_arena *arena, const tg_tool *tool, const cJSON *args);
/* The members of the arguments' object (text: strict JSON the one-pass
 * check accepted, so no key is escaped or repeated) that the policy's
 * argument conditions read (tg_policy_reads_member), parsed into a new
 * object in arena: what a decision judges, without a tree of the rest (a
 * file's content beside the path a rule checks). NULL: out of memory, or a
 * text this reader does not take (an escaped key): parse it whole. */
cJSON *tg_args_members(tg_arena *arena, const char *text, size_t len, const tg_policy *policy,
                       const tg_json_limits *limits);
/* The SHA-256 (64 lowercase hex digits and a NUL, in hex) of the context
 * values the tool's context parameters take from context: what an approval
 * is bound to beside the arguments it shows, so the same arguments for
 * another tenant are another call. 1 when written, 0 when the tool has no
 * context parameters (hex ""), -1 out of memory. */
int tg_args_context_digest(const tg_tool *tool, const cJSON *context, const tg_allocator *alloc, char hex[65]);
tg_args_status tg_args_prepare(tg_arena *arena, const tg_tool *tool, cJSON *args, const cJSON *context,
                               int known_invalid, size_t max_errors, tg_buf *msg);

/* Validates value against schema, writing problems as lines to msg; errors
 * at or under a member named in `hidden` (an object whose keys are the
 * context parameters; may be NULL) are withheld as one line. */
tg_args_status tg_check_schema(tg_arena *arena, const tg_schema *schema, const cJSON *value, size_t max_errors,
                               const cJSON *hidden, tg_buf *msg);
/* The errors of a value known to be invalid against schema, as lines in msg
 * (hidden as for tg_check_schema). */
tg_args_status tg_schema_error_lines(tg_arena *arena, const tg_schema *schema, const cJSON *value,
                                     size_t max_errors, const cJSON *hidden, tg_buf *msg);

/* ---- OpenAI strict mode ---- */
/* A model given a tool's strict rendering sends null for the properties that
 * were optional; before validation against the original schema those nulls
 * are removed again, wherever the schema reaches (through $ref, branches,
 * items): a null stays where the property is required or takes null. */
void tg_strict_strip_nulls(const tg_tool *tool, cJSON *args);

/* ---- the call's context and its authorization (authorize.c) ---- */
typedef struct tg_call_request {
    uint32_t snapshot;
    const cJSON *context; /* trusted values for context parameters */
    int strict_nulls;     /* the model saw the OpenAI strict rendering */
    const char *principal, *mode, *source, *tenant, *session;
    int scheduler;
    const char *approval;       /* approval id to redeem */
    const char *approval_token; /* self-contained approval to redeem */
    size_t approval_token_len;
} tg_call_request;

typedef struct tg_authz_outcome {
    const char *decision; /* "allow" | "ask" | "deny" */
    char rule[160];
    char reason[320]; /* an ask's reason, for the pending approval */
    int ask;          /* the policy asks: tg_call_ask once the arguments are valid */
    int redeem;       /* an approval to spend: tg_call_redeem once nothing else refuses */
    int charge;       /* an allowed call's rate limits and budgets: tg_call_charge once nothing else refuses */
} tg_authz_outcome;

/* The host-set facts about a tool that the policy may judge (never
 * descriptor hints). */
tg_tool_facts tg_tool_facts_of(const tg_tool *t);

/* Which request a context comes in: a call's context, an authorize
 * request or a listing request (each takes its own members). */
typedef enum tg_request_kind { TG_REQUEST_CALL, TG_REQUEST_AUTHORIZE, TG_REQUEST_LIST } tg_request_kind;

/* Reads the host's call context; -1 with rt's error set when malformed,
 * or when it has a member that kind of request does not take (refused,
 * never ignored). */
int tg_call_request_read(struct tg_runtime *rt, const cJSON *ctx, tg_request_kind kind, tg_call_request *req);
/* What holds with no policy set: the absence of a policy never widens what
 * the host itself stated. A tool the host marks as needing approval is
 * refused (no policy could hold the approval: it never runs unasked), and in
 * plan mode only tools the host marked read-only run. NULL when the call may
 * go on; else the reason, with *rule naming what refused. (The tenant scope
 * is checked with or without a policy, before this.) */
const char *tg_no_policy_refusal(const tg_tool *tool, const tg_call_request *req, const char **rule);

/* Step 2 of the pipeline: the policy's decision, with no side effect
 * that a later refusal would have to undo: rate limits and budgets are
 * judged as they stand (a call over one is refused here) and charged by
 * neither. TG_OK to go on (allowed, with out->charge when the policy has
 * limits to charge; or out->ask: the policy asks a person; or out->redeem:
 * an approved call that the policy in force now does not deny and whose
 * rate limits and budgets have room); otherwise rt's output holds the
 * error result.
 * judged: what the policy's argument conditions see (tg_args_judged: the
 * arguments as the handler will get them). */
tg_status tg_call_authorize(struct tg_runtime *rt, const tg_tool *tool, const cJSON *judged,
                            const tg_call_request *req, double now_ms, tg_authz_outcome *out);
/* out->ask, for arguments already prepared and valid: records a pending
 * approval bound to the tool's definition and `shown` (tg_args_shown: the
 * arguments without the tool's context parameters, so no context value is
 * shown or bound, and no model's value for one either) and writes it to
 * rt's output. TG_PENDING_APPROVAL, or a refusal. shown may be NULL when
 * the call was checked in one pass: text[0..text_len) is then parsed. */
tg_status tg_call_ask(struct tg_runtime *rt, const tg_tool *tool, const cJSON *shown, const char *text,
                      size_t text_len, const tg_call_request *req, double now_ms, tg_authz_outcome *out);
/* out->redeem, once nothing but the approval can refuse the call (the
 * arguments valid, a concurrency and a pending-call slot free): spends the
 * approval id or token bound to `shown` (as tg_call_ask bound it) and
 * charges the rate limits and budgets (tg_call_charge). TG_OK, or a
 * refusal. */
tg_status tg_call_redeem(struct tg_runtime *rt, const tg_tool *tool, const cJSON *shown, const tg_call_request *req,
                         double now_ms, tg_authz_outcome *out);
/* out->charge, at the same point for an allowed call: takes a token from
 * each of its rate buckets and counts it against its session budgets,
 * which tg_call_authorize found with room (so it refuses, rate_limited,
 * only when a state table is full: failing closed). TG_OK, or a refusal. */
tg_status tg_call_charge(struct tg_runtime *rt, const tg_tool *tool, const tg_call_request *req, double now_ms,
                         tg_authz_outcome *out);

/* ---- results ---- */
/* Writes {"content":[{"type":"text","text":text}],"isError":true,
 * "_meta":{"dev.toolgate/error":{"code":code}}} to out. */
int tg_result_gate_error(tg_buf *out, const char *code, const char *text, size_t text_len);
/* The "content" array that makes value a CallToolResult, or NULL (a plain
 * value: {"path": ..., "content": "text"} is data, not a malformed result). */
const cJSON *tg_result_content(const cJSON *value);
/* Normalizes a handler's JSON value into a CallToolResult written to out:
 * a string becomes text content; an object with a "content" array is
 * checked as a CallToolResult and kept; any other value becomes text content
 * (objects also become structuredContent, and with any_structured, set for a
 * tool that declares an outputSchema, so does every value but a string;
 * structuredContent may then be any JSON value, as outputSchema may have any
 * root type since MCP 2026-07-28). Returns 0, or -1 with a reason in why
 * when the value claims to be a CallToolResult but is malformed (a bad
 * content block's reason starts "content[i]: " and names the field, e.g.
 * "annotations.priority"; 120 bytes of why hold any reason). */
int tg_result_normalize(tg_buf *out, const cJSON *value, int any_structured, char *why, size_t why_len);

#endif
