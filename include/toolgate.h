/* toolgate.h - the public C API of the toolgate core.
 *
 * Everything hangs off one tg_runtime handle; there is no global state, so a
 * process may hold many isolated runtimes. Byte ranges cross the API as
 * (pointer, length) UTF-8; the runtime never keeps a pointer the caller
 * passed in. Text the runtime hands back (tg_output, tg_last_error) is owned
 * by the runtime and valid until the next call on the same handle.
 *
 * Errors are values: every fallible function returns a tg_status, and
 * tg_last_error describes the latest failure as JSON
 * {"code":"...","message":"...","offset":N} with a stable code string. */
#ifndef TOOLGATE_H
#define TOOLGATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tg_runtime tg_runtime;

typedef enum tg_status {
    TG_OK = 0,
    TG_PENDING = 1,                  /* the call went to the host's handler; finish it with tg_call_complete */
    TG_PENDING_APPROVAL = 2,         /* the policy asks a person first: tg_output holds the pending approval */
    TG_OK_TEXT = 3,                  /* tg_call_complete_text: the result is exactly the text given; tg_output is empty (see there) */
    TG_ERR_NOMEM = -1,               /* the memory budget or the allocator refused */
    TG_ERR_JSON = -2,                /* input is not strict JSON (RFC 8259, UTF-8, no duplicate keys) */
    TG_ERR_TOO_LARGE = -3,           /* input over its size or depth limit */
    TG_ERR_INVALID_DESCRIPTOR = -4,  /* a tool descriptor is not of the MCP Tool shape */
    TG_ERR_DUPLICATE_TOOL = -5,      /* a tool of that name is registered already */
    TG_ERR_UNKNOWN_TOOL = -6,        /* no tool of that name */
    TG_ERR_INVALID_ARGUMENTS = -7,   /* arguments do not satisfy the tool's inputSchema */
    TG_ERR_UNKNOWN_CALL = -8,        /* no pending call with that id (finished, or never begun) */
    TG_ERR_HOST = -9,                /* the host refused to run the handler */
    TG_ERR_LIMIT = -10,              /* a count limit (tools, pending calls) is reached */
    TG_ERR_INVALID_SCHEMA = -11,     /* a schema does not compile */
    TG_ERR_NAME_COLLISION = -12,     /* the model-visible name collides (case, look-alikes) with another tool */
    TG_ERR_MISSING_CAPABILITY = -13, /* the tool requires a capability the runtime was not given */
    TG_ERR_INVALID_REQUEST = -14,    /* a request or options object is malformed */
    TG_ERR_MISSING_CONTEXT = -15,    /* a context parameter has no value in the call's context */
    TG_ERR_UNKNOWN_SNAPSHOT = -16,   /* no pinned snapshot with that id */
    TG_ERR_DENIED = -17,             /* the policy denies the call */
    TG_ERR_APPROVAL = -18,           /* an approval (id or token) was refused: unknown, denied, expired, used, other call */
    TG_ERR_RATE_LIMITED = -19,       /* a rate limit or session budget is spent */
    TG_ERR_INVALID_POLICY = -20,     /* a policy document does not compile */
    TG_ERR_DIGEST_MISMATCH = -21     /* the held change is not the definition the host reviewed */
} tg_status;

/* The stable code string of a status ("ok", "pending", "unknown_tool", ...). */
const char *tg_status_code(tg_status status);

/* Every limit in one place (SQLite's habit). tg_limits_default fills the
 * defaults named beside each field; 0 in a field passed to tg_runtime_new
 * means "the default". */
typedef struct tg_limits {
    size_t memory_bytes;         /* 192 MiB: the runtime's allocation budget; past it, TG_ERR_NOMEM */
    size_t json_depth;           /* 256: arrays/objects open at once in any input */
    size_t args_bytes;           /* 1 MiB: one call's arguments */
    size_t descriptor_bytes;     /* 1 MiB: one tool descriptor, schemas included */
    size_t result_bytes;         /* 4 MiB: one handler result */
    size_t error_text_bytes;     /* 4 KiB: handler error text kept in a result */
    size_t tools;                /* 10,000 registered tools */
    size_t pending_calls;        /* 1,024 calls in flight */
    size_t timeout_ms;           /* 60,000: a call's deadline unless its tool sets timeoutMs */
} tg_limits;

void tg_limits_default(tg_limits *limits);

/* What the module asks of its host. Every member may be NULL except invoke.
 * invoke: run handler `handler_id` for call `call_id` with the call's
 *   validated arguments (JSON text, valid only during invoke: the caller's
 *   own bytes, from the value on, unless context parameters were put in or
 *   strict-mode nulls taken out, else the canonical writing of the parsed
 *   object; both parse to exactly the object that was validated) and its
 *   deadline (ms on the host clock); must not re-enter the runtime; returns
 *   0 when it accepted the call, which the host later finishes with
 *   tg_call_complete (or tg_call_cancel).
 * now_ms: the host clock in milliseconds (deadlines, rate limits, expiry);
 *   without it time stands still at 0.
 * random: fill buf with n unpredictable bytes (approval ids, token nonces).
 * audit: receive one event (JSON, valid only during the call) per decision
 *   and outcome. */
typedef struct tg_host {
    void *ud;
    int (*invoke)(void *ud, uint32_t handler_id, uint32_t call_id, const char *args, size_t args_len,
                  double deadline_ms);
    double (*now_ms)(void *ud);
    void (*random)(void *ud, void *buf, size_t n);
    void (*audit)(void *ud, const char *event, size_t len);
} tg_host;

/* Lua-style allocation hook: malloc when ptr is NULL, free when nsize is 0. */
typedef void *(*tg_alloc_hook)(void *ud, void *ptr, size_t osize, size_t nsize);

/* Creates a runtime. limits may be NULL (defaults); alloc may be NULL (libc).
 * Returns NULL only when the first allocation fails. The caller owns the
 * handle and frees it with tg_runtime_free. */
tg_runtime *tg_runtime_new(const tg_limits *limits, const tg_host *host, tg_alloc_hook alloc, void *alloc_ud);

/* Frees the runtime and everything it owns; pending calls are dropped. */
void tg_runtime_free(tg_runtime *rt);

/* Sets runtime-wide options from a JSON object (any subset):
 * {"capabilities":[names], "descriptionBytes":N, "schemaBytes":N,
 *  "toolsPerSource":N, "formats":"annotate"|"assert"}. Call it before
 * registering tools. TG_ERR_INVALID_REQUEST on a malformed object. */
tg_status tg_configure(tg_runtime *rt, const char *config, size_t len);

/* Registers one of the host's own tools from its MCP Tool descriptor (JSON
 * text; `name` and an object `inputSchema` are required; the model-visible
 * name is the tool's name mapped to a provider-safe one) and the host's
 * options (JSON object text, or len 0): needsApproval, privileged, readOnly,
 * edit, timeoutMs, tenant (1-128 bytes without control characters, as a
 * context's tenant), requires (capabilities), context (parameter ->
 * context key), contextParams ("reject"|"drop"). handler_id is the host's key
 * for the handler. A context parameter is removed from every model-visible
 * schema where that is exact (src/export/hidden.h); an inputSchema where the
 * parameter could still reach the model (named under if/not, a key of
 * dependentRequired/dependentSchemas, an in-place $ref other than "#/..." or
 * "#anchor", $dynamicRef) is refused with TG_ERR_INVALID_DESCRIPTOR. On TG_OK, tg_output holds the registration record
 * {"name":"<model-visible name>","tool","digest"[,"sanitized"]}. Errors:
 * TG_ERR_JSON, TG_ERR_TOO_LARGE, TG_ERR_INVALID_DESCRIPTOR,
 * TG_ERR_INVALID_SCHEMA, TG_ERR_DUPLICATE_TOOL, TG_ERR_NAME_COLLISION,
 * TG_ERR_MISSING_CAPABILITY, TG_ERR_LIMIT, TG_ERR_NOMEM; the registry is
 * unchanged on any error. */
tg_status tg_register_tool(tg_runtime *rt, const char *descriptor, size_t len, const char *options, size_t options_len,
                           uint32_t handler_id);

/* Registers a batch (JSON):
 *   {"source":"github","nameTemplate":"mcp__{source}__{tool}","atomic":false,
 *    "replace":true,"tools":[{"tool":{MCP Tool},"handler":N,"options":{...}}]}
 * "atomic": all or nothing (plugins; a tool left out for a capability the
 * runtime was not given, missing_capability, does not stop the rest). "replace": the list is the source's
 * whole tools/list (imports): tools it no longer lists are removed, and a
 * tool whose definition changed is held out of new snapshots until
 * tg_accept_change; the same definition with other options or handler
 * replaces the live tool at once ("updated"). Every member of a descriptor
 * is part of its definition (_meta, icons, execution and unknown members
 * too; member order is not, a number spelled otherwise, 10.0 for 10, is). tg_output holds {"applied",
 * "epoch","registered","unchanged","updated","changed","held","removed","rejected"}
 * ("held": changes listed again as they are held, still waiting for
 * tg_accept_change, with the host options and handler of this listing; a
 * held change is never registered as a new tool, nor is a tool the source
 * dropped from a listing and lists again changed: the registry remembers
 * each dropped tool's last definition per source until tg_remove_source,
 * forgetting none, and a source with toolsPerSource of them remembered gets
 * no new tool (limit_reached; a tool whose change is held is not dropped);
 * a held change keeps its name from other sources (name_collision) and
 * counts against the tools limit and toolsPerSource; one listed
 * back to the accepted definition is live again and the change goes;
 * "changed" fields are told against the definition accepted last)
 * (see registry.h). TG_OK even when tools were rejected; errors only for a
 * malformed request, memory, or (TG_ERR_INVALID_REQUEST) a source name that
 * holds "__" or ends in "_" after mapping (all of it, however long) under a
 * template with "{source}__" (its tools would read as another source's).
 * toolsPerSource counts a batch that does not replace with the tools its
 * source holds already (held changes too); the tools limit counts what the
 * registry holds after the batch (a replacing list frees only what it no
 * longer names, held changes too).
 * A name over 64 characters is written with its last pairs rn/vv as m/w
 * when that fits, else cut (never to end in '_' or '-') and given a hash
 * of its collision key: either way up to its collision key alone
 * (src/registry/names.h). A batch whose "source", "nameTemplate" and
 * "replace" come before "tools" is built tool by tool as it is read, never
 * holding every tool's nodes at once; in any other order it is read whole
 * first, with the same result (src/runtime/batch.c). */
tg_status tg_register_batch(tg_runtime *rt, const char *request, size_t len);

/* The model-visible name a tool of source would get (template NULL: the
 * default, "mcp__{source}__{tool}", or "{tool}" for source ""), written to
 * tg_output as text; what hosts match their own per-tool settings against
 * (an upstream naming its tool "Deploy" or with look-alike letters meets
 * the host's "deploy" there). TG_OK. */
tg_status tg_model_name(tg_runtime *rt, const char *source, size_t source_len, const char *tool, size_t tool_len,
                        const char *tmpl);

/* The collision key of that name (under tmpl, NULL: the default template),
 * written to tg_output as text: names with the same key (case, '-' for '_',
 * look-alike letters and digits, rn for m) are one tool to the registry, so
 * host settings per tool must be matched by it (a "deploy" entry must meet
 * an upstream's "dep1oy" or "Deploy"). TG_OK. */
tg_status tg_model_name_key(tg_runtime *rt, const char *source, size_t source_len, const char *tool, size_t tool_len,
                            const char *tmpl);

/* Lets a held (changed) definition into new snapshots. digest (digest_len
 * 0: any) is the one the host reviewed (from "changed"): a definition held
 * since under the name is refused with TG_ERR_DIGEST_MISMATCH. On TG_OK
 * tg_output is {"source": its source, "handler": its handler id};
 * TG_ERR_UNKNOWN_TOOL when no change is held under name,
 * TG_ERR_NAME_COLLISION when it now collides with a live tool, TG_ERR_LIMIT
 * when the live tools are at the tools limit, or its source's at
 * toolsPerSource. */
tg_status tg_accept_change(tg_runtime *rt, const char *name, size_t len, const char *digest, size_t digest_len);

/* Removes every tool of a source; tg_output holds {"removed":N}. */
tg_status tg_remove_source(tg_runtime *rt, const char *source, size_t len);

/* From now on (on) the registry logs each change to a source's tools
 * (live, held, remembered), for a runtime that replaces this one (the JS
 * layer's recovery from a trap); 0 stops it. TG_OK. */
tg_status tg_track_sources(tg_runtime *rt, int on);

/* Writes to tg_output the changes logged since the last call, in order, one
 * a line: {"op":"put"|"del","source","state","name"}, and for a put a tab and
 * the tool as tg_restore_source takes it (JSON text, numbers as spelled); a
 * host that keeps, per source, the last put under (state, name) less what was
 * deleted holds what tg_restore_source needs. TG_ERR_NOMEM when a change
 * could not be logged (the log is not whole then). */
tg_status tg_source_changes(tg_runtime *rt);

/* Puts tools of a source back as tg_source_changes logged them (a JSON array
 * of the tools, of another runtime), as they were: registration's checks
 * are not made again. Unless append, the source's tools are dropped first.
 * tg_output holds {"skipped": N, "done": D}: D entries were handled, of
 * which N were not put back (malformed, or their place taken); D short of
 * the array's length means memory ran out there (the rest were not read:
 * give them again, fewer at a time). TG_ERR_INVALID_REQUEST when state is
 * not such an array, TG_ERR_NOMEM when it could not be read (nothing was
 * put back). */
tg_status tg_restore_source(tg_runtime *rt, const char *source, size_t len, const char *state, size_t state_len,
                            int append);

/* The registry's epoch now (it moves on with every change to the tools). */
double tg_registry_epoch_of(tg_runtime *rt);

/* Moves this runtime's registry epoch past `epoch` and its snapshot ids
 * past `snapshot`: what a runtime it replaces handed out (tools/list
 * cursors, snapshot ids) is refused here, never read as its own. Its call
 * ids go on after `call`, the last one that runtime handed out (0: from 1),
 * so an audit log never sees one id for two calls. */
void tg_restore_counters(tg_runtime *rt, double epoch, double snapshot, double call);

/* Pins the current tool set: calls and listings that name the snapshot see
 * exactly that set until it is released. *id is never 0. */
tg_status tg_snapshot(tg_runtime *rt, uint32_t *id);
tg_status tg_snapshot_release(tg_runtime *rt, uint32_t id);

/* Begins a call: resolves the tool (in the snapshot the context names, else
 * the current set), parses the arguments strictly, asks the policy (a deny
 * refuses here), refuses or drops context parameters the model supplied,
 * injects them from the context, checks the arguments against the tool's
 * compiled inputSchema, turns an "ask" into a pending approval (valid
 * arguments only), checks the limits of calls in flight, spends an approval
 * the context redeems or charges the policy's rate limits and session
 * budgets (judged when the policy decides, where a spent one refuses the
 * call, but charged only here: a call refused for its arguments or its
 * calls in flight spends none), and hands the validated arguments to
 * host.invoke. When no step needs the
 * parsed tree (no argument conditions in the policy, no context parameters,
 * no approval to redeem, no strict-mode nulls, arguments not audited), the
 * text is parsed and validated in one pass and handed on as given; anything
 * that pass does not decide, every invalid call among them, is parsed and
 * explained by the evaluator. ctx is JSON text or len 0:
 * {"snapshot":id,"context":{"tenant_id":"t1",...},"principal","mode",
 *  "scheduler","source","tenant","session","format","approval","approvalToken"};
 * any other member ("schedular") is refused (TG_ERR_INVALID_REQUEST, naming
 * it), never ignored.
 * TG_PENDING_APPROVAL: the policy asks first; tg_output holds
 * {"status":"pending_approval","approvalId","tool","args","argsText","definition"[,"contextDigest"],"reason","rule",
 * "expiresAt"} ("args": the arguments without the tool's context parameters; "argsText" their exact bytes,
 * "definition" the tool's definition digest and, for a tool with context parameters, "contextDigest" the SHA-256 of
 * the context values they take: what the approval is bound to, and what tg_restore_approval takes back; the context
 * values themselves are never written). TG_PENDING: *call_id is set and the call waits for
 * tg_call_complete. Any other status: tg_output holds the CallToolResult to
 * give the model ({"content":[...],"isError":true,"_meta":{...}}) and
 * tg_last_error the same failure for the host. */
tg_status tg_call_begin(tg_runtime *rt, const char *name, size_t name_len, const char *args, size_t args_len,
                        const char *ctx, size_t ctx_len, uint32_t *call_id);

/* Finishes a pending call with the handler's outcome: result is JSON text
 * (a string, a CallToolResult object, or any other JSON value), or, when
 * is_error is set, the error text the handler threw (any bytes; cut to
 * limits.error_text_bytes). On TG_OK tg_output holds the normalized
 * CallToolResult. TG_ERR_UNKNOWN_CALL when call_id is not pending. A result
 * that is not JSON or over limits.result_bytes becomes an error result; so
 * does a CallToolResult with a content block MCP would refuse (a member its
 * type needs, or its "annotations": audience, priority 0..1, lastModified),
 * as "invalid_result" naming the block and the field. */
tg_status tg_call_complete(tg_runtime *rt, uint32_t call_id, const char *result, size_t len, int is_error);

/* Finishes a pending call whose handler returned plain text (UTF-8 bytes,
 * not JSON): the same as tg_call_complete with that text as a JSON string,
 * but it answers TG_OK_TEXT when the CallToolResult is exactly
 * {"content":[{"type":"text","text":text}]}, which the host then builds
 * itself from the text it gave (tg_output is left empty: writing a large
 * text as JSON here would be work the host throws away). Invalid UTF-8, a result
 * over limits.result_bytes, a tool with an outputSchema or a passed
 * deadline give TG_OK with the error result in tg_output, as there. */
tg_status tg_call_complete_text(tg_runtime *rt, uint32_t call_id, const char *text, size_t len);

/* Checks that text[0..len) is strict JSON under the runtime's limits
 * (depth, args_bytes), rejecting duplicate keys unless allow_duplicate_keys.
 * TG_OK, or TG_ERR_JSON / TG_ERR_TOO_LARGE / TG_ERR_NOMEM with tg_last_error
 * giving the message and byte offset. */
tg_status tg_check_json(tg_runtime *rt, const char *text, size_t len, int allow_duplicate_keys);

/* Renders the tool list (JSON request, or len 0 for MCP of the current set):
 * {"format":"mcp"|"anthropic"|"openai"|"openai-strict"|"gemini"|"bedrock",
 *  "snapshot":id, "cursor":"...", "limit":N, "principal", "mode",
 *  "scheduler", "source", "tenant", "session", "filter":bool}; given a
 * principal (or mode, tenant, scheduler, source, or filter true) with a
 * policy set, only the tools it could call. Any other member is refused
 * (TG_ERR_INVALID_REQUEST), never ignored. tg_output holds
 * {"tools":<the provider's list>,"nextCursor"?,"report":[...],"epoch":N}:
 * for mcp the tools/list result's tools (with nextCursor when limit cut the
 * page), for anthropic the Messages API `tools`, for openai function tools,
 * for gemini [{"functionDeclarations":[...]}]. "report" lists every lossy
 * conversion ({"tool","path","issue"}) and, for openai-strict, the optional
 * properties made nullable ({"tool","path","nullable":true}). Renderings are
 * cached per snapshot and format. */
tg_status tg_list_tools(tg_runtime *rt, const char *request, size_t len);

/* ---- permissions ---- */

/* Replaces the policy (JSON document; see docs/policy.md). The new policy
 * takes over the old one's state (rate buckets, budgets, session rules,
 * approvals). TG_ERR_INVALID_POLICY with diagnostics pointing into the
 * document (a tool-name pattern that can match no model-visible name, e.g.
 * one over 64 bytes or starting with a digit, among them); the old policy
 * then stays. Without a policy every registered tool is allowed. */
tg_status tg_set_policy(tg_runtime *rt, const char *policy, size_t len);

/* Sets the HMAC-SHA256 key for self-contained approval tokens (16-1024
 * bytes); with a key, every pending approval also carries a token. */
tg_status tg_set_approval_key(tg_runtime *rt, const unsigned char *key, size_t len);

/* Decides without calling (a dry run: no rate or budget is charged). request:
 * {"tool","args"?,"principal"?,"mode"?,"scheduler"?,"source"?,"tenant"?,
 *  "session"?,"snapshot"?,"context"?,"explain"?} ("context": the values of
 * the tool's context parameters, as a call's); any other member is refused
 * (TG_ERR_INVALID_REQUEST), never ignored. tg_output holds
 * {"decision","rule","reason"[,"trace"]}. With no policy set every tool is
 * allowed but what the host restricted: a needs-approval tool is denied
 * (nothing holds approvals) and plan mode allows only read-only tools. */
tg_status tg_authorize(tg_runtime *rt, const char *request, size_t len);

/* A person's answer to a pending approval: "approve", "approve_session"
 * (also allow this tool for the rest of the session) or "deny". After an
 * approve, begin the call again with {"approval":"<id>"} in its context: it
 * runs once, with exactly the approved arguments, principal and session, and
 * the same values for the tool's context parameters (other context keys may
 * differ); anything else is refused (TG_ERR_APPROVAL) and leaves it unspent.
 * "approve_token" (an approval key set) approves it to run elsewhere: the id
 * is spent and tg_output holds {"token","expiresAt"}, redeemable once (its
 * "approvalToken" in a call's context) on any instance with the key. A
 * token exists only once a person approved. */
tg_status tg_resolve_approval(tg_runtime *rt, const char *id, size_t len, const char *answer);

/* 1 when approval id was approved and has not run its call yet (a deny, a
 * rate limit or budget, invalid arguments, or the tool's concurrency or the
 * pending_calls limit refused the call when it came back and left it
 * unspent, so it can be used again), unexpired; else 0. */
int tg_approval_unspent(tg_runtime *rt, const char *id, size_t len);

/* Re-creates a pending (or approved, not yet used) approval in this runtime,
 * e.g. in a replacement instance after a trap: {"id","tool","argsText","definition",
 * "contextDigest"?,"principal"?,"session"?,"expiresAt","approved"?,"forSession"?}
 * (the pending approval's own fields; without "contextDigest" it is bound to
 * no context values, so a tool that takes some is refused it). "answered":
 * "denied" | "used" | "token" restores one already answered (denied, its
 * call run, issued as a token; "argsText" may then be ""), so that it is
 * refused with the reason the old instance gave, not as an unknown id. The
 * id is kept, so the host's references stay valid. */
tg_status tg_restore_approval(tg_runtime *rt, const char *record, size_t len);

/* Records an approval token redeemed on an earlier instance as used here (a
 * runtime rebuilt after a trap must not let it run a second call). An
 * expired token, or one with no policy set, needs no record: TG_OK.
 * TG_ERR_APPROVAL when it is not a token of the key set (or the used-token
 * set is full). */
tg_status tg_restore_spent_token(tg_runtime *rt, const char *token, size_t len);

/* 1 when the last tg_call_begin redeemed the approval token of its context
 * (it is single use from then on), else 0: a host that keeps spent tokens
 * for a replacement instance records exactly these. */
int tg_call_spent_token(const tg_runtime *rt);

/* Writes the policy's rate buckets, session budgets, session rules and
 * spent approval tokens to
 * tg_output as bytes for tg_restore_policy_state (native to this build; empty
 * with no policy). Safe to call on an instance that trapped: entries are
 * checked as they are read; TG_ERR_NOMEM when one looks damaged or memory
 * ran out (the output is then not usable). */
tg_status tg_save_policy_state(tg_runtime *rt);

/* Loads what tg_save_policy_state wrote into this runtime's policy (set it
 * first), replacing entries with the same key, so a replacement instance
 * keeps the limits already spent. The bytes are copied. TG_ERR_INVALID_REQUEST
 * when there is no policy, a record is malformed (nothing is loaded) or a
 * state map is full (the records before it are kept). */
tg_status tg_restore_policy_state(tg_runtime *rt, const void *state, size_t len);

/* Ends a session: its budgets and session rules are forgotten. */
tg_status tg_end_session(tg_runtime *rt, const char *session, size_t len);

/* ---- the validator on its own ---- */

/* Compiles a JSON Schema (JSON text) with options (JSON object text, or len
 * 0): {"dialect":"2020-12"|"2019-09"|"draft-07"|"draft-06"|"draft-04",
 * "formats":"annotate"|"assert", "resources":{"<uri>":<schema>,...}}.
 * On TG_OK *id names the compiled schema (never 0) until
 * tg_schema_release; on TG_ERR_INVALID_SCHEMA tg_last_error's message
 * points into the schema. */
tg_status tg_compile_schema(tg_runtime *rt, const char *schema, size_t len, const char *options, size_t options_len,
                            uint32_t *id);

/* Validates instance (JSON text) against compiled schema id. Returns 1
 * valid, 0 invalid, or a negative tg_status (TG_ERR_JSON etc. when the text
 * is not strict JSON; tg_last_error has message and offset). When invalid
 * and max_errors > 0, tg_output holds the errors as a JSON array
 * [{"instanceLocation","keywordLocation","message"}] (at most max_errors);
 * with max_errors 0 it stops at the first error and writes nothing. */
int tg_validate(tg_runtime *rt, uint32_t id, const char *instance, size_t len, size_t max_errors);

/* tg_validate with the errors as records, for hosts that slice instead of
 * parsing JSON (the JS layer): when invalid and max_errors > 0, tg_output
 * holds each error's instanceLocation, keywordLocation and message back to
 * back, unquoted, and tg_output_lengths their lengths in UTF-16 code units,
 * three per error. Returns and errors as tg_validate. */
int tg_validate_records(tg_runtime *rt, uint32_t id, const char *instance, size_t len, size_t max_errors);

/* The field lengths tg_validate_records left (three per error; NULL when
 * none), owned by rt until its next call; *n receives how many. */
const uint32_t *tg_output_lengths(const tg_runtime *rt, size_t *n);

/* tg_validate_records with max_errors 1, for a host that holds the
 * instance as text whose UTF-16 offsets are its byte offsets (ASCII): when
 * the first error's message is fixed words and at most one part read from
 * the text (the value, a count, a member name), it is left as a code rather
 * than words (not when a member name on its path holds '~' or '/', or the
 * path is deeper than 32): tg_output_codes gives its TG_SCODE_* words, tg_output and
 * tg_output_lengths stay empty, and tg_schema_site gives the fixed words
 * (once per site: the host keeps them). Any other error is left as records,
 * as tg_validate_records leaves it. Returns and errors as tg_validate. */
int tg_validate_first(tg_runtime *rt, uint32_t id, const char *instance, size_t len);

/* The words of a coded first error: the site and variant that name its
 * fixed words, what the rest of the message is (TG_SDYN_*), then the
 * instance path: TG_SCODE_DEPTH pairs of a member name's byte offset in the
 * text and its length (names in a code are never escaped, in the text or
 * as JSON Pointer tokens: no '~' or '/'), or
 * TG_SCODE_INDEX and an array index. */
enum {
    TG_SCODE_SITE,     /* the instruction: tg_schema_site's site */
    TG_SCODE_VARIANT,  /* tg_schema_site's variant */
    TG_SCODE_DYN,      /* TG_SDYN_*: the part read from the text */
    TG_SCODE_COUNT,    /* TG_SDYN_COUNT: the count, written in decimal */
    TG_SCODE_VKIND,    /* TG_SDYN_VALUE: TG_SVAL_* (written as "null", "boolean true",
                        * "boolean false", "object", "array", "string " with the
                        * string's text quoted, cut after 40 bytes and "..." added,
                        * or "integer " and the number's text) */
    TG_SCODE_VSTART,   /* ... the string's bytes in the text (without quotes; never
                        * escaped), the integer's text (its sign and digits) */
    TG_SCODE_VEND,
    TG_SCODE_KSTART,   /* TG_SDYN_KEY: the member's name in the text, written quoted; */
    TG_SCODE_KLEN,     /* the instance location gains it as a last token */
    TG_SCODE_DEPTH,
    TG_SCODE_PATH
};
#define TG_SCODE_INDEX 0xFFFFFFFFu
enum { TG_SDYN_NONE, TG_SDYN_VALUE, TG_SDYN_COUNT, TG_SDYN_KEY };
enum { TG_SVAL_NULL, TG_SVAL_TRUE, TG_SVAL_FALSE, TG_SVAL_OBJECT, TG_SVAL_ARRAY, TG_SVAL_STRING, TG_SVAL_INTEGER };

/* The words tg_validate_first left as a code (NULL when none), owned by rt
 * until its next call; *n receives how many. */
const uint32_t *tg_output_codes(const tg_runtime *rt, size_t *n);

/* The fixed words of a coded error of compiled schema id, as one record
 * in tg_output / tg_output_lengths: its keywordLocation, then its message
 * with byte 0x01 where the part read from the text goes (the same words
 * tg_validate_records writes around it). TG_ERR_UNKNOWN_TOOL for an id or
 * site that names none, TG_ERR_NOMEM. */
tg_status tg_schema_site(tg_runtime *rt, uint32_t id, uint32_t site, uint32_t variant);

tg_status tg_schema_release(tg_runtime *rt, uint32_t id);

/* Ends a pending call without a result: reason "timeout", "cancelled", or
 * "too_large" (the host did not copy in a result whose size alone is over
 * limits.result_bytes).
 * tg_output holds the error CallToolResult; a late tg_call_complete for it
 * gets TG_ERR_UNKNOWN_CALL. */
tg_status tg_call_cancel(tg_runtime *rt, uint32_t call_id, const char *reason);

/* tg_call_cancel for a call whose handler is still running (the host
 * answers its caller now, and cannot stop the handler): tg_output holds the
 * same error result, but the call keeps its place in limits.pending_calls
 * and in its tool's concurrency until tg_call_settled, so a caller that
 * cancels and calls again cannot run more handlers at once than the limits
 * allow. TG_ERR_UNKNOWN_CALL when call_id is not pending. */
tg_status tg_call_abandon(tg_runtime *rt, uint32_t call_id, const char *reason);

/* The handler of a call tg_call_abandon answered has stopped: its place is
 * given back. TG_ERR_UNKNOWN_CALL when call_id is no abandoned call. */
tg_status tg_call_settled(tg_runtime *rt, uint32_t call_id);

/* Output of the last call on rt (JSON text); *len receives its length. */
const char *tg_output(const tg_runtime *rt, size_t *len);

/* The last failure as JSON {"code","message"[,"offset"]}, or "" after a
 * success; *len receives its length. */
const char *tg_last_error(const tg_runtime *rt, size_t *len);

/* Replaces the host's audit hook (NULL: no events are built at all). */
void tg_set_audit(tg_runtime *rt, void (*audit)(void *ud, const char *event, size_t len));

/* Bytes currently allocated by the runtime (for leak and growth checks). */
size_t tg_memory_used(const tg_runtime *rt);

/* Gives back the working memory kept between calls (the per-call and
 * compiler arenas, the output buffers), so that it counts against the
 * memory budget no more: for a runtime filled to its budget after one large
 * call (a replaced instance given its tools back). Never fails. */
void tg_trim(tg_runtime *rt);

#ifdef __cplusplus
}
#endif
#endif
