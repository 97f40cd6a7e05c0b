/* abi.c - the wasm module's C ABI: the exports the JS layer calls and the
 * imports it supplies. Built into both the Emscripten module and the WASI
 * reactor; the native build does not use it.
 *
 * Byte ranges cross as (pointer, length) in linear memory. The host writes
 * its input into the runtime's input area (tga_input) and then calls an
 * operation naming the lengths it wrote; output and error text stay owned by
 * the runtime and are valid until the next operation on it.
 *
 * Imports (module "toolgate"):
 *   invoke(handler_id, call_id, args_ptr, args_len, deadline_ms) -> i32   0: accepted
 *   now() -> f64                 the host clock, ms
 *   random(ptr, len)             fill with unpredictable bytes
 *   audit(ptr, len)              one audit event (JSON)
 * A handler may be async: invoke only queues the call on the host side, and
 * the host finishes it later with tga_call_complete. Nothing re-enters the
 * module during invoke. */
#include <stdlib.h>
#include <string.h>

#include "toolgate.h"

#define TG_EXPORT(name) __attribute__((export_name(#name)))

#define TG_IMPORT(name) __attribute__((import_module("toolgate"), import_name(#name)))
TG_IMPORT(invoke) extern int tga_host_invoke(uint32_t handler_id, uint32_t call_id, const char *args, size_t args_len,
                                             double deadline_ms);
TG_IMPORT(now) extern double tga_host_now(void);
TG_IMPORT(random) extern void tga_host_random(void *buf, size_t n);
TG_IMPORT(audit) extern void tga_host_audit(const char *event, size_t len);

/* One wasm-side handle: the runtime plus the host's input area. */
typedef struct tga_handle {
    tg_runtime *rt;
    char *input;
    size_t input_cap;
    double now;   /* the host clock as the caller passed it, while has_now */
    int has_now;
    /* Where the output of the last hot export (validate, call begin,
     * complete) lies: text pointer, length, record lengths' pointer, their
     * count, a coded error's words' pointer, their count. The host reads
     * these six words in place (tga_out_place) instead of asking with six
     * calls. */
    uint32_t out[6];
} tga_handle;

static void publish(tga_handle *h) {
    size_t n = 0, nl = 0, nc = 0;
    const char *p = tg_output(h->rt, &n);
    const uint32_t *l = tg_output_lengths(h->rt, &nl);
    h->out[0] = (uint32_t)(uintptr_t)p;
    h->out[1] = p ? (uint32_t)n : 0;
    h->out[2] = (uint32_t)(uintptr_t)l;
    h->out[3] = l ? (uint32_t)nl : 0;
    const uint32_t *c = tg_output_codes(h->rt, &nc);
    h->out[4] = (uint32_t)(uintptr_t)c;
    h->out[5] = c ? (uint32_t)nc : 0;
}

static int host_invoke(void *ud, uint32_t handler_id, uint32_t call_id, const char *args, size_t len, double deadline) {
    (void)ud;
    return tga_host_invoke(handler_id, call_id, args, len, deadline);
}
/* The hot operations pass the host clock in (cheaper than an import call
 * each time it is read); the others ask the host. */
static double host_now(void *ud) {
    const tga_handle *h = ud;
    return h->has_now ? h->now : tga_host_now();
}
static void host_random(void *ud, void *buf, size_t n) {
    (void)ud;
    tga_host_random(buf, n);
}
static void host_audit(void *ud, const char *event, size_t len) {
    (void)ud;
    tga_host_audit(event, len);
}

/* Creates a runtime. Limits are given as numbers (0: default). Returns a
 * handle, or 0 when memory is short. */
TG_EXPORT(tga_new)
tga_handle *tga_new(uint32_t memory_bytes, uint32_t json_depth, uint32_t args_bytes, uint32_t descriptor_bytes,
                    uint32_t result_bytes, uint32_t tools, uint32_t pending_calls, uint32_t timeout_ms, uint32_t audit) {
    tga_handle *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    tg_limits l;
    memset(&l, 0, sizeof l);
    l.memory_bytes = memory_bytes;
    l.json_depth = json_depth;
    l.args_bytes = args_bytes;
    l.descriptor_bytes = descriptor_bytes;
    l.result_bytes = result_bytes;
    l.tools = tools;
    l.pending_calls = pending_calls;
    l.timeout_ms = timeout_ms;
    tg_host host = {h, host_invoke, host_now, host_random, audit ? host_audit : NULL};
    h->rt = tg_runtime_new(&l, &host, NULL, NULL);
    if (!h->rt) {
        free(h);
        return NULL;
    }
    return h;
}

TG_EXPORT(tga_free)
void tga_free(tga_handle *h) {
    if (!h) return;
    tg_runtime_free(h->rt);
    free(h->input);
    free(h);
}

/* Returns a pointer to at least n writable bytes for the next operation's
 * input, or 0 when memory is short. Calling it may grow memory: views of
 * memory.buffer taken before it must be renewed. */
TG_EXPORT(tga_input)
char *tga_input(tga_handle *h, uint32_t n) {
    if (n > h->input_cap || !h->input) {
        size_t cap = n < 4096 ? 4096 : n;
        char *p = malloc(cap);
        if (!p) return NULL;
        free(h->input);
        h->input = p;
        h->input_cap = cap;
    }
    return h->input;
}

/* Input: the descriptor's JSON (len bytes) then the options' JSON
 * (options_len bytes, may be 0). Returns a tg_status. */
TG_EXPORT(tga_register)
int tga_register(tga_handle *h, uint32_t len, uint32_t options_len, uint32_t handler_id) {
    return tg_register_tool(h->rt, h->input, len, h->input + len, options_len, handler_id);
}

/* Input: a batch request (JSON). */
TG_EXPORT(tga_register_batch)
int tga_register_batch(tga_handle *h, uint32_t len) { return tg_register_batch(h->rt, h->input, len); }

/* Input: runtime options (JSON). */
TG_EXPORT(tga_configure)
int tga_configure(tga_handle *h, uint32_t len) { return tg_configure(h->rt, h->input, len); }

/* Input: a tool name (len bytes), then the digest reviewed (digest_len bytes, 0: any). */
TG_EXPORT(tga_accept_change)
int tga_accept_change(tga_handle *h, uint32_t len, uint32_t digest_len) {
    return tg_accept_change(h->rt, h->input, len, h->input + len, digest_len);
}

/* Input: a source name (source_len bytes), a tool name (tool_len bytes),
 * then a name template and a NUL byte (tmpl_len bytes, the NUL counted; 0:
 * the default template). key: its collision key instead
 * (tg_model_name_key). TG_ERR_INVALID_REQUEST when the template's last byte
 * is not the NUL. */
TG_EXPORT(tga_model_name)
int tga_model_name(tga_handle *h, uint32_t source_len, uint32_t tool_len, uint32_t key, uint32_t tmpl_len) {
    const char *tmpl = tmpl_len ? h->input + source_len + tool_len : NULL;
    if (tmpl && tmpl[tmpl_len - 1] != '\0') return TG_ERR_INVALID_REQUEST;
    if (key) return tg_model_name_key(h->rt, h->input, source_len, h->input + source_len, tool_len, tmpl);
    return tg_model_name(h->rt, h->input, source_len, h->input + source_len, tool_len, tmpl);
}

/* Input: a source name. */
TG_EXPORT(tga_remove_source)
int tga_remove_source(tga_handle *h, uint32_t len) { return tg_remove_source(h->rt, h->input, len); }

/* on: log every change to a source's tools (tg_track_sources). */
TG_EXPORT(tga_track_sources)
int tga_track_sources(tga_handle *h, uint32_t on) { return tg_track_sources(h->rt, (int)on); }

/* Output: the changes logged since the last call (tg_source_changes). */
TG_EXPORT(tga_source_changes)
int tga_source_changes(tga_handle *h) { return tg_source_changes(h->rt); }

/* Input: a source name (len bytes), then a JSON array of its tools as
 * tga_source_changes logged them (state_len bytes). append: 0 drops the
 * source's tools first. */
TG_EXPORT(tga_restore_source)
int tga_restore_source(tga_handle *h, uint32_t len, uint32_t state_len, uint32_t append) {
    return tg_restore_source(h->rt, h->input, len, h->input + len, state_len, (int)append);
}

/* The registry's epoch now. */
TG_EXPORT(tga_epoch)
double tga_epoch(tga_handle *h) { return tg_registry_epoch_of(h->rt); }

/* The highest epoch and snapshot id a replaced instance handed out, and
 * its last call id. */
TG_EXPORT(tga_restore_counters)
void tga_restore_counters(tga_handle *h, double epoch, double snapshot, double call) {
    tg_restore_counters(h->rt, epoch, snapshot, call);
}


/* Pins the current tool set; returns its id (0 on failure). */
TG_EXPORT(tga_snapshot)
uint32_t tga_snapshot(tga_handle *h) {
    uint32_t id;
    return tg_snapshot(h->rt, &id) == TG_OK ? id : 0;
}

TG_EXPORT(tga_snapshot_release)
int tga_snapshot_release(tga_handle *h, uint32_t id) { return tg_snapshot_release(h->rt, id); }

/* Input: the arguments' JSON (args_len bytes: first, where the host keeps a
 * view), the tool name (name_len bytes), then the call context's JSON
 * (ctx_len bytes, may be 0). now_ms:
 * the host clock. Returns a tg_status; TG_PENDING means invoke was called
 * with the call id. */
TG_EXPORT(tga_call_begin)
int tga_call_begin(tga_handle *h, uint32_t args_len, uint32_t name_len, uint32_t ctx_len, double now_ms) {
    uint32_t id;
    h->now = now_ms;
    h->has_now = 1;
    int st = tg_call_begin(h->rt, h->input + args_len, name_len, h->input, args_len, h->input + args_len + name_len,
                           ctx_len, &id);
    h->has_now = 0;
    if (st != TG_PENDING) publish(h); /* (a dispatched call has no output to read) */
    return st;
}

/* Input: the handler's result JSON; its error text when kind is 1; plain
 * text it returned when kind is 2 (tg_call_complete_text: TG_OK_TEXT).
 * now_ms: the host clock. */
TG_EXPORT(tga_call_complete)
int tga_call_complete(tga_handle *h, uint32_t call_id, uint32_t len, uint32_t kind, double now_ms) {
    int st;
    h->now = now_ms;
    h->has_now = 1;
    if (kind == 2) st = tg_call_complete_text(h->rt, call_id, h->input, len);
    else st = tg_call_complete(h->rt, call_id, h->input, len, (int)kind);
    h->has_now = 0;
    if (st != TG_OK_TEXT) publish(h); /* (the host builds a plain text result itself) */
    return st;
}

/* Input: JSON text to check for strictness. Returns a tg_status. */
TG_EXPORT(tga_check_json)
int tga_check_json(tga_handle *h, uint32_t len, uint32_t allow_duplicate_keys) {
    return tg_check_json(h->rt, h->input, len, (int)allow_duplicate_keys);
}

/* Input: a listing request (JSON, may be empty). */
TG_EXPORT(tga_list_tools)
int tga_list_tools(tga_handle *h, uint32_t len) { return tg_list_tools(h->rt, h->input, len); }

/* Input: the schema's JSON (len bytes) then the options' JSON (options_len
 * bytes, may be 0). Returns the compiled schema's id, or 0 on failure. */
TG_EXPORT(tga_schema_compile)
uint32_t tga_schema_compile(tga_handle *h, uint32_t len, uint32_t options_len) {
    uint32_t id;
    return tg_compile_schema(h->rt, h->input, len, h->input + len, options_len, &id) == TG_OK ? id : 0;
}

/* Input: the instance's JSON. Returns 1 valid, 0 invalid (errors in the
 * output when max_errors > 0), or a negative tg_status. */
/* Errors as records: the JS layer slices them out of one decoded string. */
TG_EXPORT(tga_validate)
int tga_validate(tga_handle *h, uint32_t id, uint32_t len, uint32_t max_errors) {
    int r = tg_validate_records(h->rt, id, h->input, len, max_errors);
    if (r == 0) publish(h);
    return r;
}

/* The first error, coded when it can be (tg_validate_first): the host
 * says the text is ASCII, so the code's byte offsets are its own. Returns
 * as tga_validate. */
TG_EXPORT(tga_validate_first)
int tga_validate_first(tga_handle *h, uint32_t id, uint32_t len) {
    int r = tg_validate_first(h->rt, id, h->input, len);
    if (r == 0) publish(h);
    return r;
}

/* The fixed words of a coded error's site, as one record (tg_schema_site). */
TG_EXPORT(tga_schema_site)
int tga_schema_site(tga_handle *h, uint32_t id, uint32_t site, uint32_t variant) {
    int r = tg_schema_site(h->rt, id, site, variant);
    if (r == TG_OK) publish(h);
    return r;
}

/* The address of the six words publish() fills (fixed for the handle). */
TG_EXPORT(tga_out_place) const uint32_t *tga_out_place(tga_handle *h) { return h->out; }

TG_EXPORT(tga_schema_release)
int tga_schema_release(tga_handle *h, uint32_t id) { return tg_schema_release(h->rt, id); }

/* Input: a policy document (JSON). */
TG_EXPORT(tga_set_policy)
int tga_set_policy(tga_handle *h, uint32_t len) { return tg_set_policy(h->rt, h->input, len); }

/* Input: the approval key's bytes. */
TG_EXPORT(tga_set_approval_key)
int tga_set_approval_key(tga_handle *h, uint32_t len) {
    return tg_set_approval_key(h->rt, (const unsigned char *)h->input, len);
}

/* Input: an authorization request (JSON). */
TG_EXPORT(tga_authorize)
int tga_authorize(tga_handle *h, uint32_t len) { return tg_authorize(h->rt, h->input, len); }

/* Input: the approval id. answer: 0 deny, 1 approve, 2 approve for the
 * session, 3 approve as a token (tg_output: {"token","expiresAt"}). */
TG_EXPORT(tga_resolve_approval)
int tga_resolve_approval(tga_handle *h, uint32_t len, uint32_t answer) {
    static const char *const ANSWERS[] = {"deny", "approve", "approve_session", "approve_token"};
    return tg_resolve_approval(h->rt, h->input, len, answer < 4 ? ANSWERS[answer] : "");
}

/* Input: an approval record (JSON). */
TG_EXPORT(tga_restore_approval)
int tga_restore_approval(tga_handle *h, uint32_t len) { return tg_restore_approval(h->rt, h->input, len); }

/* Input: an approval token redeemed before (a replaced instance). */
TG_EXPORT(tga_restore_spent_token)
int tga_restore_spent_token(tga_handle *h, uint32_t len) { return tg_restore_spent_token(h->rt, h->input, len); }

/* 1 when the last call redeemed its approval token. */
TG_EXPORT(tga_call_spent_token)
int tga_call_spent_token(tga_handle *h) { return tg_call_spent_token(h->rt); }

/* Output: the policy's limit and session state (bytes); see tg_save_policy_state. */
TG_EXPORT(tga_save_policy_state)
int tga_save_policy_state(tga_handle *h) { return tg_save_policy_state(h->rt); }

/* Input: bytes from tga_save_policy_state (of a trapped instance). */
TG_EXPORT(tga_restore_policy_state)
int tga_restore_policy_state(tga_handle *h, uint32_t len) { return tg_restore_policy_state(h->rt, h->input, len); }

/* Input: a session id. */
/* Input: an approval id. 1 when it was approved and its call has not run. */
TG_EXPORT(tga_approval_unspent)
int tga_approval_unspent(tga_handle *h, uint32_t len) { return tg_approval_unspent(h->rt, h->input, len); }

TG_EXPORT(tga_end_session)
int tga_end_session(tga_handle *h, uint32_t len) { return tg_end_session(h->rt, h->input, len); }

/* Turns audit events on (1) or off (0): events cost nothing when no one listens. */
TG_EXPORT(tga_set_audit)
void tga_set_audit(tga_handle *h, uint32_t on) { tg_set_audit(h->rt, on ? host_audit : NULL); }

/* reason: 0 cancelled, 1 timeout, 2 too_large (a result the host did not copy in). */
TG_EXPORT(tga_call_cancel)
int tga_call_cancel(tga_handle *h, uint32_t call_id, uint32_t reason) {
    return tg_call_cancel(h->rt, call_id, reason == 2 ? "too_large" : reason ? "timeout" : "cancelled");
}

/* reason: 0 cancelled, 1 timeout; the handler still runs (tg_call_abandon). */
TG_EXPORT(tga_call_abandon)
int tga_call_abandon(tga_handle *h, uint32_t call_id, uint32_t reason) {
    return tg_call_abandon(h->rt, call_id, reason ? "timeout" : "cancelled");
}

TG_EXPORT(tga_call_settled)
int tga_call_settled(tga_handle *h, uint32_t call_id) { return tg_call_settled(h->rt, call_id); }

/* Traps on purpose: the JS layer's tests use it to prove that a trapped
 * instance is replaced and its registry, policy and approvals restored. */
TG_EXPORT(tga_selftest_trap)
void tga_selftest_trap(void) { __builtin_trap(); }

TG_EXPORT(tga_output_ptr) const char *tga_output_ptr(tga_handle *h) { return tg_output(h->rt, NULL); }
TG_EXPORT(tga_output_len) uint32_t tga_output_len(tga_handle *h) {
    size_t n;
    tg_output(h->rt, &n);
    return (uint32_t)n;
}
/* tg_output_lengths: the address of the uint32 lengths (0 when none) and their count */
TG_EXPORT(tga_output_lens_ptr) const uint32_t *tga_output_lens_ptr(tga_handle *h) { return tg_output_lengths(h->rt, NULL); }
TG_EXPORT(tga_output_lens_count) uint32_t tga_output_lens_count(tga_handle *h) {
    size_t n;
    tg_output_lengths(h->rt, &n);
    return (uint32_t)n;
}
TG_EXPORT(tga_error_ptr) const char *tga_error_ptr(tga_handle *h) { return tg_last_error(h->rt, NULL); }
TG_EXPORT(tga_error_len) uint32_t tga_error_len(tga_handle *h) {
    size_t n;
    tg_last_error(h->rt, &n);
    return (uint32_t)n;
}
TG_EXPORT(tga_memory_used) uint32_t tga_memory_used(tga_handle *h) { return (uint32_t)tg_memory_used(h->rt); }
TG_EXPORT(tga_trim) void tga_trim(tga_handle *h) { tg_trim(h->rt); }
