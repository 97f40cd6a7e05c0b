/* policy.h - the permission engine: who may call which tool, when a person
 * must approve, and why.
 *
 * A policy document (JSON, schema in docs/policy.schema.json, guide in
 * docs/policy.md) is validated and compiled once into a tg_policy: tool-name
 * patterns go into hash-indexed matchers (exact names hashed, globs grouped by
 * their literal prefix), so a decision costs about the same against 10 rules
 * as against 1,000. The tg_policy also holds the mutable state decisions need:
 * rate buckets, session budgets, session rules ("allow for the rest of this
 * session"), pending approvals and the used-token set. All of it hangs off the
 * handle; there is no global state and no clock: time comes in as now_ms.
 *
 * A decision runs these steps, each able to end it (see docs/policy.md):
 *   1 name       the tool must be known (facts non-NULL) and its name 1-128
 *                bytes of [A-Za-z0-9_.-]; anything else is denied
 *   2 grants     the tool must be in the principal's effective set (base
 *                grants + skill and project bundles, else the defaults; a
 *                full-set trusted source gives every tool); privileged tools
 *                only by an exact-name grant
 *   3 tenant     a tenant-scoped tool only in that tenant's context
 *   4 scheduler  scheduler sessions lose the configured blocked set
 *   5 plan       plan mode keeps only tools the host marked read_only
 *   6 rules      deny > ask > allow among matching rules; nothing matched:
 *                deny; needs_approval turns allow into ask
 *   7 session    a session rule turns ask into allow
 *   8 mode       acceptEdits (edit tools) / bypassPermissions turn ask into
 *                allow; scheduler sessions turn every remaining ask into deny
 *   9 limits     rate buckets and session budgets, charged on allow only
 *                (unless dry_run: the router charges a call with
 *                tg_policy_limits once it is dispatched)
 *
 * Only host-set facts about a tool enter a decision (tg_tool_facts); nothing
 * an upstream server says about its own tools (annotations such as
 * readOnlyHint, descriptions, _meta) can widen what the policy allows. */
#ifndef TG_POLICY_POLICY_H
#define TG_POLICY_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "../base/alloc.h"
#include "../base/buf.h"

typedef struct tg_policy tg_policy;

typedef enum tg_decision { TG_ALLOW = 0, TG_ASK = 1, TG_DENY = 2 } tg_decision;

/* "allow" | "ask" | "deny". */
const char *tg_decision_name(tg_decision d);

/* What the host knows about a tool. Set by the host only (registry flags,
 * configuration), never copied from an upstream descriptor's hints.
 * name[0..name_len) is the exact model-visible name; strings may be NULL. */
typedef struct tg_tool_facts {
    const char *name;
    size_t name_len;
    const char *source;   /* upstream server / namespace, informational (explain) */
    int read_only;        /* allowed in plan mode */
    int edit;             /* auto-allowed in acceptEdits mode where it would ask */
    int privileged;       /* needs an exact-name grant (the policy may add more) */
    int needs_approval;   /* an allow becomes ask */
    const char *tenant;   /* only callable in this tenant's context (NULL: any) */
    const char *digest;   /* the registered definition's digest (NUL-terminated; NULL: ""): a session
                             rule holds only for the definition a person approved */
    /* the name folded as restricting patterns match it (by character, and
     * with the pair look-alikes too; NUL-terminated), when the caller has
     * them: the registry keeps both of each tool's name. NULL: each
     * decision folds the name itself. */
    const char *fold_chars, *fold_pairs;
} tg_tool_facts;

/* One request. Every string may be NULL (principal NULL: the unknown
 * principal; mode NULL: "default"). args may be NULL (no arguments).
 * dry_run: decide without charging rate buckets or budgets (for
 * authorize-as-a-query and listing). */
typedef struct tg_authz_request {
    const char *principal;
    const char *mode;     /* "default" | "acceptEdits" | "bypassPermissions" | "plan"; others deny */
    int scheduler;        /* 1: no human present (a scheduler started the session) */
    const char *source;   /* who started the session, e.g. "web-ui" (matches "sources") */
    const char *tenant;   /* the tenant context, set by the host */
    const char *session;  /* session id for budgets and session rules (NULL: none) */
    const cJSON *args;    /* the call's arguments (an object), for rule conditions */
    double now_ms;        /* host clock */
    int dry_run;
} tg_authz_request;

typedef struct tg_authz_result {
    tg_decision decision;
    char rule[160];    /* what decided: "rule:<id>", "grants", "tenant", "scheduler", "plan",
                          "unmatched", "unknown_tool", "invalid_name", "tool:needs_approval",
                          "session:<tool>", "mode:<mode>", "rate:<id>", "budget:<id>", ... */
    char reason[320];  /* for people (and models): why */
} tg_authz_result;

/* Compiles doc (any cJSON from json.h; nothing is kept pointing into it).
 * The document is first checked against the policy JSON Schema with the
 * schema module, then structurally (references to bundles, patterns; a
 * tool-name pattern that can match no model-visible name is refused).
 * Returns 0 with *out owned by the caller (tg_policy_free), or -1 with one
 * line per problem appended to diag (may be NULL): "<JSON Pointer>: message",
 * e.g. "/rules/2/effect: must be one of \"allow\", \"ask\", \"deny\"" (at most
 * 32 lines). Out of memory is -1 with "/: out of memory". */
int tg_policy_compile(const tg_allocator *a, const cJSON *doc, tg_policy **out, tg_buf *diag);
void tg_policy_free(tg_policy *p);

/* Moves the mutable state (rate buckets, budgets, session rules, approvals,
 * used tokens) from `from` into `to`, e.g. when the host replaces the
 * policy; `from` is left with empty state. Rate buckets and budgets are keyed
 * by their ids, so a bucket carries over when its id stays. */
void tg_policy_adopt_state(tg_policy *to, tg_policy *from);

/* Appends the rate buckets, session budgets, session rules and used token
 * nonces to out as
 * records that tg_policy_state_load reads back (on another instance of the
 * same build: the bytes are native). Reads the state defensively (it may
 * come from an instance that trapped): -1 when an entry looks damaged or
 * out ran out of memory. */
int tg_policy_state_save(const tg_policy *p, tg_buf *out);

/* Adds saved records to p's state, replacing entries with the same key;
 * checks every record (map, sizes, finite non-negative values) before it
 * stores any: -1 and nothing stored when one fails; -1 when a map is full
 * (the records before that one are stored). */
int tg_policy_state_load(tg_policy *p, const void *data, size_t len, double now);

/* Decides one call. tool NULL means the name did not resolve to a registered
 * tool (always deny). res is filled whatever the outcome (may be NULL).
 * explain non-NULL: the whole trace is appended as one JSON object (see
 * docs/policy.md "Explain"). Unless req->dry_run, an allow charges the
 * matching rate buckets and session budgets. Bounded state that is full
 * (rate buckets) fails closed: deny. */
tg_decision tg_policy_authorize(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req,
                                tg_authz_result *res, tg_buf *explain);

/* The rate limits and session budgets alone, for a call about to run: one
 * a person approved (the rules asked, so tg_policy_authorize neither
 * checked nor charged them), or one a dry-run decision allowed (the router
 * decides so and charges here once the call is dispatched, so that a call
 * refused after the decision, for its arguments say, spends nothing):
 * TG_ALLOW when every matching bucket has a token and every budget
 * room, charging them unless req->dry_run; else TG_DENY with res telling
 * which (rule "rate:<id>" / "budget:<id>"), or a full state map (fails
 * closed). */
tg_decision tg_policy_limits(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req,
                             tg_authz_result *res);

/* For tool listing: 1 when the principal could ever call the tool in this
 * context (same steps as authorize; rule conditions on arguments are assumed
 * to be able to match for allow/ask rules and not to match for deny rules;
 * rate and budget state ignored; req->args ignored). */
int tg_policy_visible(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req);

/* Ends a session: forgets its budgets, session rules and approvals not yet
 * used (a call approved in it cannot run after it ended), and spends the
 * tokens this policy minted for it (tg_approval_resolve_token), as of now_ms. */
void tg_policy_end_session(tg_policy *p, const char *session, double now_ms);

/* ---- approvals ----
 *
 * An ask becomes a pending approval bound to the exact tool name, the
 * principal, the session and the SHA-256 of the exact argument bytes (the
 * canonical JSON the router hands to the handler: tg_json_write output, see
 * tg_policy_args_digest), with an expiry. At most `max_approvals` (policy
 * "limits", default 1,024) exist at once; expired ones are swept when full. */

/* 1 when some rule looks at a call's arguments (conditions): only then
 * does a decision need them parsed. */
int tg_policy_uses_args(const tg_policy *p);
/* 1 when a rule whose tool patterns match tool has argument conditions (or
 * tool is NULL or its name unchecked, and some rule has any): only then
 * does a decision for it read the arguments. */
int tg_policy_reads_args(const tg_policy *p, const tg_tool_facts *tool);
/* 1 when some argument condition reads the top-level argument `name` (by
 * its name, or its JSON Pointer's first token): a decision judges the
 * arguments' other members never. */
int tg_policy_reads_member(const tg_policy *p, const char *name, size_t len);

/* 1 when the policy has rate limits or session budgets: only then has an
 * allowed call anything for tg_policy_limits to charge. */
int tg_policy_has_limits(const tg_policy *p);

/* SHA-256 of tg_json_write(args) (args NULL: of "{}"). 0, or -1 out of memory. */
int tg_policy_args_digest(const tg_allocator *a, const cJSON *args, unsigned char out[32]);

/* Creates a pending approval. nonce: 16 host random bytes that make the id
 * unguessable (NULL: a counter, for tests). id_out receives "ap_" + 32 hex
 * digits + NUL. Returns 0, or -1 (table full of unexpired approvals, out of
 * memory, expires_ms <= now_ms). */
int tg_approval_create(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req,
                       const char *args_canonical, size_t args_len, double expires_ms,
                       const unsigned char nonce[16], char id_out[40]);

/* A person's answer. approve 0: denied for good (the id can never be used).
 * approve 1 + for_session 1: also adds a session rule so later calls of the
 * same tool (name and definition digest, tool->digest at the ask) by the
 * same principal in the same session are allowed without asking (deny
 * rules still win); a redefined tool asks again. Returns 0, or -1 with `why` filled (unknown
 * id, expired, already resolved). */
/* The random bytes of an approval id ("ap_" + 32 lowercase hex digits, as
 * tg_approval_create writes it): 0, or -1 when it is not such an id. */
int tg_approval_id_nonce(const char *id, unsigned char nonce[16]);
/* 1 when approval id was approved and has not run its call yet (a deny
 * or a limit in force when it came back left it unspent), unexpired. */
int tg_approval_open(tg_policy *p, const char *id, double now_ms);
int tg_approval_resolve(tg_policy *p, const char *id, int approve, int for_session, double now_ms, char *why,
                        size_t why_len);

/* A restored approval (tg_approval_create, in an instance replacing the one
 * that held it) answered as it was there: answer "denied", "used" (its call
 * ran) or "token" (issued as a token), so it is refused with the same reason
 * as there, never read as unknown. 0, or -1 (unknown, expired or answered
 * id, or another answer). */
int tg_approval_restore_answer(tg_policy *p, const char *id, const char *answer, double now_ms);

/* The approved call is about to run. Returns 1 when id is approved, not
 * expired, not used, and tool name, argument bytes, principal and session
 * (NULL is "") are exactly those approved: the approval is used up (a
 * second consume is refused). Returns 0 with `why` otherwise (pending,
 * denied, expired, used, other tool, arguments, principal or session,
 * unknown id). */
int tg_approval_consume(tg_policy *p, const char *id, const char *tool, size_t tool_len,
                        const char *args_canonical, size_t args_len, const char *principal, const char *session,
                        double now_ms, char *why, size_t why_len);

/* ---- approval tokens ----
 *
 * A self-contained approval any instance holding the HMAC key can verify:
 *   "tga1." base64url(claims) "." base64url(HMAC-SHA256(key, "tga1." base64url(claims)))
 * claims are binary: version, expiry (ms), 16-byte nonce, args digest, tool,
 * principal, session. Verification refuses a bad MAC, a malformed token, an
 * expired one, another tool or other arguments (or principal/session when
 * given), and a nonce already used on this tg_policy (the used set keeps each
 * nonce until its token expires, at most `max_used_tokens`, default 65,536;
 * when full of unexpired nonces, verification fails closed). */
typedef struct tg_approval_claims {
    const char *tool;
    size_t tool_len;
    const char *principal;  /* NULL: "" */
    const char *session;    /* NULL: "" */
    unsigned char args_digest[32];
    double expires_ms;
    unsigned char nonce[16]; /* host random bytes */
} tg_approval_claims;

/* Appends the token text to token_out. 0, or -1 (buffer refused, key empty,
 * a string over 1,024 bytes). */
int tg_approval_token_mint(const unsigned char *key, size_t key_len, const tg_approval_claims *claims,
                           tg_buf *token_out);

/* A person approved pending approval id, to be redeemed as a token (on any
 * instance holding key) rather than by the id: appends the token (bound to
 * the approval's tool, argument digest, principal, session and expiry; its
 * nonce is the id's) to token_out and spends the id, so the one approval
 * runs one call. 0, or -1 with why (unknown, expired, already answered, no
 * key). Tokens exist only for approved calls. */
int tg_approval_resolve_token(tg_policy *p, const char *id, const unsigned char *key, size_t key_len, double now_ms,
                              tg_buf *token_out, double *expires_ms, char *why, size_t why_len);

/* Records a token redeemed before as used again (a runtime rebuilt after a
 * trap): its MAC is checked, and an expired one needs no record. 0, or -1
 * (not a token of this key, or the used-token set is full). */
int tg_approval_token_spent(tg_policy *p, const unsigned char *key, size_t key_len, const char *token, size_t token_len,
                            double now_ms);

/* 1: valid, unexpired, for exactly this tool, these argument bytes (and this
 * principal/session when non-NULL), and never seen before on p: its nonce is
 * now recorded as used. 0: refused, with why. */
int tg_approval_token_verify(tg_policy *p, const unsigned char *key, size_t key_len, const char *token,
                             size_t token_len, const char *tool, size_t tool_len, const char *args_canonical,
                             size_t args_len, const char *principal, const char *session, double now_ms, char *why,
                             size_t why_len);

/* The embedded policy JSON Schema (docs/policy.schema.json), NUL-terminated. */
extern const char tg_policy_schema_json[];

#endif
