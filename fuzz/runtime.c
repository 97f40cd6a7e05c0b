/* fuzz/runtime.c - the public API end to end. Input: [flags] then fields
 * separated by 0 bytes:
 *   0 descriptor   1 options   2 batch request   3 policy   4 tool name
 *   5 args         6 ctx       7 result          8 config    9 listing request
 * Oracles: no sanitizer error or leak; a batch answers the same whether it
 * is read as built ("tools" last) or whole ("tools" first); every tg_output that is documented as
 * JSON and every audit event and tg_last_error is strict JSON; every
 * model-visible name in renderings matches ^[A-Za-z_][A-Za-z0-9_-]{0,63}$;
 * the change log (tg_source_changes) is lines of strict JSON, and what it
 * says each source holds is given back whole to a second runtime; a call is
 * refused by the policy exactly when tg_authorize, asked apart with the
 * same tool, arguments and context, denies it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "toolgate.h"
#include "json/json.h"
#include "oracle.h"


static const tg_allocator A = {tg_alloc_libc, NULL};


static cJSON *strict(tg_arena *a, const char *what, const char *t, size_t n) {
    tg_json_error e;
    tg_json_limits l = tg_json_default_limits();
    l.max_depth = 100000;
    cJSON *d = tg_json_parse(a, t, n, &l, &e);
    if (!d) fail("%s is not strict JSON (%s at %zu): %.*s", what, e.message, e.offset, (int)(n > 2000 ? 2000 : n), t);
    return d;
}

/* text[0..n) is strict JSON (checked in an arena of its own) */
static void strict_ok(const char *what, const char *t, size_t n) {
    tg_arena a;
    tg_arena_init(&a, A);
    strict(&a, what, t, n);
    tg_arena_free(&a);
}

/* tg_output, parsed strictly into a */
static cJSON *output_doc(tg_runtime *rt, tg_arena *a, const char *what) {
    size_t n;
    const char *o = tg_output(rt, &n);
    return strict(a, what, o, n);
}

static void out_json(tg_runtime *rt, const char *what) {
    size_t n;
    const char *o = tg_output(rt, &n);
    strict_ok(what, o, n);
}

static void err_json(tg_runtime *rt, const char *what) {
    size_t n;
    const char *o = tg_last_error(rt, &n);
    if (n) strict_ok(what, o, n);
}

/* 1 when s[0..n) holds z */
static int holds(const char *s, size_t n, const char *z) {
    size_t zl = strlen(z);
    for (size_t i = 0; i + zl <= n; i++)
        if (memcmp(s + i, z, zl) == 0) return 1;
    return 0;
}

/* tg_authorize asked for tool with the arguments' JSON text and the
 * members of `caller` (one named `skip` left out): 1 it denies, 0 it does
 * not, -1 it could not answer. Its output stays for the caller to read. */
static int authorize_denies(tg_runtime *rt, const char *tool, size_t tool_len, const char *args, size_t args_len,
                            const cJSON *caller, const char *skip) {
    tg_buf q;
    tg_buf_init(&q, A, 0);
    tg_buf_puts(&q, "{\"tool\":");
    tg_json_write_string(&q, tool, tool_len);
    tg_buf_puts(&q, ",\"args\":");
    tg_buf_append(&q, args, args_len);
    for (const cJSON *m = caller ? caller->child : NULL; m; m = m->next) {
        if (skip && tg_json_key_is(m, skip)) continue;
        tg_buf_putc(&q, ',');
        tg_json_write_string(&q, m->string, tg_json_strlen(m->string));
        tg_buf_putc(&q, ':');
        tg_json_write(&q, m);
    }
    tg_buf_putc(&q, '}');
    int r = -1;
    if (!q.failed && tg_authorize(rt, q.data, q.len) == TG_OK) {
        size_t n;
        const char *o = tg_output(rt, &n);
        r = holds(o, n, "\"decision\":\"deny\"");
    }
    tg_buf_free(&q);
    return r;
}

/* The policy's verdict on the call about to begin, asked apart (a dry
 * run of tg_authorize with the call's tool, arguments and context): 1
 * deny, 0 not deny, -1 not comparable (a context the harness cannot
 * restate: trusted values, approvals, a strict rendering, or a tool with
 * context parameters, whose arguments the call judges with them; a request
 * authorize refuses). */
static int denied_apart(tg_runtime *rt, const char *const *f, const size_t *fl) {
    static const char *const kept[] = {"principal", "mode", "tenant", "session", "source", "scheduler"};
    if (holds(f[1], fl[1], "context") || holds(f[2], fl[2], "context")) return -1;
    tg_arena a;
    tg_arena_init(&a, A);
    tg_json_error e;
    cJSON *ctx = fl[6] ? tg_json_parse(&a, f[6], fl[6], NULL, &e) : NULL;
    int r = -1;
    if (fl[6] && !cJSON_IsObject(ctx)) goto out;
    for (const cJSON *m = ctx ? ctx->child : NULL; m; m = m->next) {
        int ok = 0;
        for (size_t k = 0; k < sizeof kept / sizeof *kept; k++) ok |= tg_json_key_is(m, kept[k]);
        if (!ok) goto out;
    }
    r = authorize_denies(rt, f[4], fl[4], f[5], fl[5], ctx, NULL);
out:
    tg_arena_free(&a);
    return r;
}

/* A tool the listing for a caller leaves out is one that caller can never
 * call: tg_authorize, asked with the listing's caller and no arguments,
 * denies it. Checked for the called tool's name when the listing request
 * (field 9) is a whole MCP listing (no page, no snapshot) of a known tool. */
static void hidden_means_denied(tg_runtime *rt, const char *const *f, const size_t *fl) {
    static const char *const caller[] = {"principal", "mode", "tenant", "session", "source", "scheduler"};
    tg_arena a;
    tg_arena_init(&a, A);
    tg_json_error e;
    cJSON *req = tg_json_parse(&a, f[9], fl[9], NULL, &e);
    if (!cJSON_IsObject(req)) goto out;
    for (const cJSON *m = req->child; m; m = m->next) {
        int ok = tg_json_key_is(m, "format") && tg_json_string_is(m, "mcp");
        for (size_t k = 0; k < sizeof caller / sizeof *caller; k++) ok |= tg_json_key_is(m, caller[k]);
        if (!ok) goto out;
    }
    if (tg_list_tools(rt, f[9], fl[9]) != TG_OK) goto out;
    const cJSON *d = output_doc(rt, &a, "whole mcp listing"), *tools = tg_json_getz(d, "tools");
    const cJSON *report = tg_json_getz(d, "report");
    if (tg_json_getz(d, "nextCursor") || (report && report->child) || !cJSON_IsArray(tools)) goto out;
    for (const cJSON *t = tools->child; t; t = t->next) {
        const cJSON *n = tg_json_getz(t, "name");
        if (cJSON_IsString(n) && tg_json_strlen(n->valuestring) == fl[4] && memcmp(n->valuestring, f[4], fl[4]) == 0)
            goto out; /* (listed) */
    }
    if (authorize_denies(rt, f[4], fl[4], "{}", 2, req, "format") == 0) {
        size_t n;
        const char *o = tg_output(rt, &n);
        fail("tool '%.*s' is left out of the listing for %.*s, yet authorize answers %.*s", (int)fl[4], f[4], (int)fl[9], f[9],
             (int)(n > 300 ? 300 : n), o);
    }
out:
    tg_arena_free(&a);
}

static int name_ok(const char *s, size_t n) {
    if (n < 1 || n > 64) return 0;
    if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static void check_name(const cJSON *o, const char *fmt) {
    const cJSON *n = tg_json_getz(o, "name");
    if (!n) return;
    if (!cJSON_IsString(n)) fail("%s: name is not a string", fmt);
    if (!name_ok(n->valuestring, tg_json_strlen(n->valuestring)))
        fail("%s: model-visible name '%.*s' not provider-safe", fmt, (int)tg_json_strlen(n->valuestring), n->valuestring);
}

/* The listing in tg_output: strict JSON, names provider-safe; returns it
 * (parsed into a). */
static const cJSON *check_listing(tg_runtime *rt, tg_arena *a, const char *fmt) {
    const cJSON *d = output_doc(rt, a, fmt);
    const cJSON *tools = tg_json_getz(d, "tools");
    if (!cJSON_IsArray(tools)) fail("%s: no tools array", fmt);
    int strictnames = strcmp(fmt, "mcp") != 0;
    for (const cJSON *t = tools->child; t; t = t->next) {
        if (strictnames) check_name(t, fmt);
        const cJSON *f = tg_json_getz(t, "function");
        if (f) check_name(f, fmt);
        const cJSON *fd = tg_json_getz(t, "functionDeclarations");
        if (fd) for (const cJSON *x = fd->child; x; x = x->next) check_name(x, fmt);
        const cJSON *ts = tg_json_getz(t, "toolSpec");
        if (ts) check_name(ts, fmt);
    }
    return d;
}

static void check_listing_only(tg_runtime *rt, const char *fmt) {
    tg_arena a;
    tg_arena_init(&a, A);
    check_listing(rt, &a, fmt);
    tg_arena_free(&a);
}

typedef struct hoststate {
    uint32_t last_call;
    int invoked;
    int refuse;
    uint32_t handler;   /* the last dispatch's handler, and its arguments (a copy) */
    char *args;
    size_t args_len;
} hoststate;

static int h_invoke(void *ud, uint32_t handler, uint32_t call, const char *args, size_t len, double deadline) {
    (void)deadline;
    hoststate *h = ud;
    strict_ok("invoke args", args, len);
    h->last_call = call;
    h->invoked++;
    h->handler = handler;
    free(h->args);
    h->args = malloc(len ? len : 1);
    if (h->args) memcpy(h->args, args, len);
    h->args_len = h->args ? len : 0;
    return h->refuse;
}

/* The arguments a handler was given are valid against its tool's
 * inputSchema, compiled apart (tg_compile_schema): checked for the
 * descriptor of field 0 (handler 7), whose schema the harness knows. */
static void dispatched_args_valid(tg_runtime *rt, const char *const *f, const size_t *fl, const hoststate *h) {
    if (h->handler != 7 || !h->args) return;
    tg_arena a;
    tg_arena_init(&a, A);
    tg_json_error e;
    cJSON *d = tg_json_parse(&a, f[0], fl[0], NULL, &e);
    const cJSON *schema = d ? tg_json_getz(d, "inputSchema") : NULL;
    tg_buf s;
    tg_buf_init(&s, A, 0);
    uint32_t id = 0;
    if (schema && !tg_json_write(&s, schema) && tg_compile_schema(rt, s.data, s.len, NULL, 0, &id) == TG_OK) {
        int r = tg_validate(rt, id, h->args, h->args_len, 1);
        if (r != 1)
            fail("a handler was given arguments its tool's schema refuses (%d): %.*s", r,
                 (int)(h->args_len > 500 ? 500 : h->args_len), h->args);
        tg_schema_release(rt, id);
    }
    tg_buf_free(&s);
    tg_arena_free(&a);
}
static double h_now(void *ud) { (void)ud; return 1000.0; }
static void h_random(void *ud, void *buf, size_t n) {
    (void)ud;
    static unsigned x = 1;
    for (size_t i = 0; i < n; i++) ((unsigned char *)buf)[i] = (unsigned char)(x = x * 1103515245u + 12345u) >> 16;
}
static void h_audit(void *ud, const char *ev, size_t len) {
    (void)ud;
    strict_ok("audit event", ev, len);
}

#define NF 10
/* What the change log says the registry holds: the last put under each
 * (source, state, name) less what was deleted, as a host keeps it. */
typedef struct kept {
    char *key;  /* source \0 state \0 name \0 */
    size_t klen, slen;
    char *tool; /* the put's tool JSON */
    size_t tlen;
} kept;

static void take_log(tg_runtime *rt, kept **ks, size_t *nk) {
    size_t n;
    if (tg_source_changes(rt) != TG_OK) return;
    const char *o = tg_output(rt, &n);
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(o + at, '\n', n - at);
        if (!nl) fail("change log line without its end: %.*s", (int)(n - at > 300 ? 300 : n - at), o + at);
        const char *line = o + at, *tab = memchr(line, '\t', (size_t)(nl - line));
        size_t hl = (size_t)((tab ? tab : nl) - line);
        tg_arena a;
        tg_arena_init(&a, A);
        cJSON *h = strict(&a, "change log header", line, hl);
        const cJSON *op = tg_json_getz(h, "op"), *src = tg_json_getz(h, "source"), *st = tg_json_getz(h, "state"),
                    *nm = tg_json_getz(h, "name");
        if (!cJSON_IsString(op) || !cJSON_IsString(src) || !cJSON_IsString(st) || !cJSON_IsString(nm))
            fail("change log header without op/source/state/name: %.*s", (int)hl, line);
        int put = strcmp(op->valuestring, "put") == 0;
        if (put != (tab != NULL)) fail("a put without its tool, or a delete with one: %.*s", (int)hl, line);
        if (tab) strict_ok("change log tool", tab + 1, (size_t)(nl - tab - 1));
        size_t sl = tg_json_strlen(src->valuestring), tl = strlen(st->valuestring), nml = tg_json_strlen(nm->valuestring);
        size_t kl = sl + tl + nml + 3;
        char *key = malloc(kl);
        memcpy(key, src->valuestring, sl);
        key[sl] = 0;
        memcpy(key + sl + 1, st->valuestring, tl + 1);
        memcpy(key + sl + tl + 2, nm->valuestring, nml);
        key[kl - 1] = 0;
        for (size_t i = 0; i < *nk; i++)
            if ((*ks)[i].klen == kl && memcmp((*ks)[i].key, key, kl) == 0) {
                free((*ks)[i].key);
                free((*ks)[i].tool);
                (*ks)[i] = (*ks)[--*nk];
                break;
            }
        if (put) {
            *ks = realloc(*ks, (*nk + 1) * sizeof **ks);
            kept *k = &(*ks)[(*nk)++];
            k->key = key;
            k->klen = kl;
            k->slen = sl;
            k->tlen = (size_t)(nl - tab - 1);
            k->tool = malloc(k->tlen + 1);
            memcpy(k->tool, tab + 1, k->tlen);
        } else free(key);
        tg_arena_free(&a);
        at = (size_t)(nl - o) + 1;
    }
}

/* Each source's kept tools, given to a fresh runtime: none skipped. */
static void restore_kept(const tg_limits *lim, tg_host *host, kept *ks, size_t nk) {
    tg_runtime *rt2 = tg_runtime_new(lim, host, NULL, NULL);
    if (!rt2) return;
    for (size_t i = 0; i < nk; i++) {
        if (!ks[i].tool) continue; /* (given with an earlier one of its source) */
        tg_buf arr;
        tg_buf_init(&arr, A, 0);
        tg_buf_putc(&arr, '[');
        size_t count = 0;
        for (size_t j = i; j < nk; j++) {
            if (!ks[j].tool || ks[j].slen != ks[i].slen || memcmp(ks[j].key, ks[i].key, ks[i].slen)) continue;
            if (count++) tg_buf_putc(&arr, ',');
            tg_buf_append(&arr, ks[j].tool, ks[j].tlen);
            if (j != i) {
                free(ks[j].tool);
                ks[j].tool = NULL;
            }
        }
        tg_buf_putc(&arr, ']');
        tg_status st = tg_restore_source(rt2, ks[i].key, ks[i].slen, arr.data, arr.len, 0);
        if (st == TG_OK) {
            size_t n;
            const char *o = tg_output(rt2, &n);
            char want[64];
            int wl = snprintf(want, sizeof want, "{\"skipped\":0,\"done\":%zu}", count);
            if (n != (size_t)wl || memcmp(o, want, n) != 0)
                fail("restoring source '%.*s' skipped tools (or ran out of memory): %.*s", (int)ks[i].slen, ks[i].key, (int)n, o);
        } else if (st != TG_ERR_NOMEM) fail("restoring source '%.*s' failed (%d)", (int)ks[i].slen, ks[i].key, (int)st);
        tg_buf_free(&arr);
        free(ks[i].tool);
        ks[i].tool = NULL;
    }
    tg_runtime_free(rt2);
}

/* A fresh runtime set up as the main one is before its batch (config,
 * then the one descriptor), given `batch`; its status, and its output or
 * error text copied into *out. */
static tg_status batch_in_fresh(const char *const *f, const size_t *fl, const char *batch, size_t n, tg_buf *out) {
    hoststate hs = {0};
    tg_host host = {&hs, h_invoke, h_now, h_random, h_audit};
    tg_limits lim;
    tg_limits_default(&lim);
    lim.memory_bytes = 512u << 20;
    tg_runtime *rt = tg_runtime_new(&lim, &host, NULL, NULL);
    if (!rt) return TG_ERR_NOMEM;
    if (fl[8]) tg_configure(rt, f[8], fl[8]);
    tg_register_tool(rt, f[0], fl[0], f[1], fl[1], 7);
    tg_status st = tg_register_batch(rt, batch, n);
    size_t len;
    const char *o = st == TG_OK ? tg_output(rt, &len) : tg_last_error(rt, &len);
    if (o) tg_buf_append(out, o, len);
    tg_runtime_free(rt);
    return st;
}

/* The batch reader builds tools as it reads them when "tools" comes after
 * the batch's other members, and reads the batch whole otherwise
 * (src/runtime/batch.c); both must answer alike to the byte. The batch,
 * when it is a strict JSON object with "tools", is written twice, "tools"
 * last and "tools" first, and each is given to a fresh runtime. */
static void batch_orders_agree(const char *const *f, const size_t *fl) {
    enum { MEMBERS_MAX = 64 };
    tg_arena a;
    tg_json_error e;
    tg_arena_init(&a, A);
    cJSON *doc = tg_json_parse(&a, f[2], fl[2], NULL, &e);
    cJSON *m[MEMBERS_MAX], *tools = NULL;
    size_t n = 0, i, ti = 0;
    if (doc && cJSON_IsObject(doc)) {
        for (cJSON *c = doc->child; c && n < MEMBERS_MAX + 1; c = c->next) {
            if (n == MEMBERS_MAX) { n++; break; }
            if (!tools && c->string && strcmp(c->string, "tools") == 0 && tg_json_strlen(c->string) == 5) tools = c, ti = n;
            m[n++] = c;
        }
    }
    if (!tools || n > MEMBERS_MAX || n < 2) {
        tg_arena_free(&a);
        return;
    }
    tg_buf text[2], res[2];
    tg_status st[2];
    for (int k = 0; k < 2; k++) { /* k 0: tools last (read as built), 1: tools first (read whole) */
        cJSON *order[MEMBERS_MAX];
        size_t o = 0;
        if (k == 1) order[o++] = tools;
        for (i = 0; i < n; i++) if (i != ti) order[o++] = m[i];
        if (k == 0) order[o++] = tools;
        for (i = 0; i < o; i++) {
            order[i]->next = i + 1 < o ? order[i + 1] : NULL;
            order[i]->prev = i ? order[i - 1] : order[o - 1];
        }
        doc->child = order[0];
        tg_buf_init(&text[k], A, 0);
        tg_buf_init(&res[k], A, 0);
        tg_json_write(&text[k], doc);
        st[k] = batch_in_fresh(f, fl, text[k].data, text[k].len, &res[k]);
    }
    if (st[0] != TG_ERR_NOMEM && st[1] != TG_ERR_NOMEM &&
        (st[0] != st[1] || res[0].len != res[1].len || (res[0].len && memcmp(res[0].data, res[1].data, res[0].len))))
        fail("a batch answered differently read as built (%d: %.*s) and read whole (%d: %.*s)", (int)st[0],
             (int)(res[0].len > 1500 ? 1500 : res[0].len), res[0].data ? res[0].data : "", (int)st[1],
             (int)(res[1].len > 1500 ? 1500 : res[1].len), res[1].data ? res[1].data : "");
    for (int k = 0; k < 2; k++) {
        tg_buf_free(&text[k]);
        tg_buf_free(&res[k]);
    }
    tg_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 30000) return 0;
    g_data = data;
    g_size = size;
    uint8_t flags = data[0];
    const char *f[NF];
    size_t fl[NF];
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    for (int i = 0; i < NF; i++) {
        const char *z = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
        f[i] = p < end ? p : "";
        fl[i] = p < end ? (z ? (size_t)(z - p) : (size_t)(end - p)) : 0;
        p = z ? z + 1 : end;
    }
    hoststate hs = {.refuse = (flags >> 6) & 1};
    tg_host host = {&hs, h_invoke, h_now, h_random, h_audit};
    tg_limits lim;
    tg_limits_default(&lim);
    lim.memory_bytes = 512u << 20;
    tg_runtime *rt = tg_runtime_new(&lim, &host, NULL, NULL);
    if (!rt) return 0;
    tg_track_sources(rt, 1);
    kept *ks = NULL;
    size_t nk = 0;
    tg_status st;
    if (fl[8]) { tg_configure(rt, f[8], fl[8]); err_json(rt, "configure error"); }
    st = tg_register_tool(rt, f[0], fl[0], f[1], fl[1], 7);
    if (st == TG_OK) out_json(rt, "register_tool output"); else err_json(rt, "register_tool error");
    if (fl[2]) {
        st = tg_register_batch(rt, f[2], fl[2]);
        if (st == TG_OK) out_json(rt, "register_batch output"); else err_json(rt, "register_batch error");
        batch_orders_agree(f, fl);
    }
    if (fl[3]) {
        st = tg_set_policy(rt, f[3], fl[3]);
        err_json(rt, "set_policy error");
        if (flags & 1) {
            static const unsigned char key[32] = "0123456789abcdef0123456789abcdef";
            tg_set_approval_key(rt, key, sizeof key);
        }
    }
    uint32_t snap = 0;
    if (flags & 2) tg_snapshot(rt, &snap);
    /* a dry run */
    {
        tg_buf q;
        tg_buf_init(&q, A, 0);
        tg_buf_puts(&q, "{\"tool\":");
        tg_json_write_string(&q, f[4], fl[4]);
        tg_buf_puts(&q, ",\"explain\":true}");
        st = tg_authorize(rt, q.data, q.len);
        if (st == TG_OK) out_json(rt, "authorize output"); else err_json(rt, "authorize error");
        tg_buf_free(&q);
    }
    uint32_t cid = 0;
    int deny = denied_apart(rt, f, fl);
    st = tg_call_begin(rt, f[4], fl[4], f[5], fl[5], f[6], fl[6], &cid);
    if (st != TG_PENDING) out_json(rt, "call_begin output");
    err_json(rt, "call_begin error");
    if (st == TG_PENDING) dispatched_args_valid(rt, f, fl, &hs);
    /* the call is refused by the policy exactly when the policy, asked
     * apart, denies it (a call it denies never runs) */
    if (deny == 1 && (st == TG_PENDING || st == TG_PENDING_APPROVAL))
        fail("the policy denies the call, yet it was dispatched (status %d)", (int)st);
    if (deny == 0 && st == TG_ERR_DENIED) fail("the call was denied, yet the policy asked apart does not deny it");
    if (st == TG_PENDING_APPROVAL) {
        tg_arena a;
        tg_arena_init(&a, A);
        cJSON *d = output_doc(rt, &a, "pending approval");
        const cJSON *id = tg_json_getz(d, "approvalId");
        if (cJSON_IsString(id)) {
            static const char *answers[] = {"approve", "approve_session", "deny", "approve_token"};
            const char *ans = answers[(flags >> 2) & 3];
            st = tg_resolve_approval(rt, id->valuestring, tg_json_strlen(id->valuestring), ans);
            if (st == TG_OK) {
                if (!strcmp(ans, "approve_token")) out_json(rt, "approve_token output");
                tg_buf c;
                tg_buf_init(&c, A, 0);
                tg_buf_puts(&c, "{\"approval\":");
                tg_json_write_string(&c, id->valuestring, tg_json_strlen(id->valuestring));
                tg_buf_putc(&c, '}');
                st = tg_call_begin(rt, f[4], fl[4], f[5], fl[5], c.data, c.len, &cid);
                if (st != TG_PENDING) out_json(rt, "call_begin (approved) output");
                else dispatched_args_valid(rt, f, fl, &hs);
                tg_buf_free(&c);
            }
        }
        tg_arena_free(&a);
    }
    if (st == TG_PENDING) {
        switch ((flags >> 4) & 3) {
        case 0: st = tg_call_complete(rt, cid, f[7], fl[7], 0); break;
        case 1: st = tg_call_complete(rt, cid, f[7], fl[7], 1); break;
        case 2: st = tg_call_complete_text(rt, cid, f[7], fl[7]); break;
        case 3: st = tg_call_cancel(rt, cid, "timeout"); break;
        }
        if (st != TG_OK && st != TG_OK_TEXT) fail("completing a pending call gave %d", st);
        if (st == TG_OK_TEXT) { /* the host builds the result from its own text: nothing is written */
            size_t n;
            tg_output(rt, &n);
            if (n) fail("TG_OK_TEXT left %zu bytes of output", n);
        } else out_json(rt, "complete output");
        if (tg_call_complete(rt, cid, "1", 1, 0) != TG_ERR_UNKNOWN_CALL) fail("completed call completed again");
    }
    /* every format, whole list and paged */
    static const char *fmts[] = {"mcp", "anthropic", "openai", "openai-strict", "gemini", "bedrock"};
    for (int i = 0; i < 6; i++) {
        char req[160];
        int n = snprintf(req, sizeof req, "{\"format\":\"%s\"%s}", fmts[i], "");
        if (snap) n = snprintf(req, sizeof req, "{\"format\":\"%s\",\"snapshot\":%u}", fmts[i], snap);
        st = tg_list_tools(rt, req, (size_t)n);
        if (st != TG_OK) fail("list_tools %s gave %d", fmts[i], st);
        check_listing_only(rt, fmts[i]);
    }
    /* page through openai with limit 1 */
    {
        char cursor[512] = "";
        for (int page = 0; page < 8; page++) {
            tg_buf q;
            tg_buf_init(&q, A, 0);
            tg_buf_puts(&q, "{\"format\":\"openai\",\"limit\":1");
            if (cursor[0]) { tg_buf_puts(&q, ",\"cursor\":"); tg_json_write_string(&q, cursor, strlen(cursor)); }
            tg_buf_putc(&q, '}');
            st = tg_list_tools(rt, q.data, q.len);
            tg_buf_free(&q);
            if (st != TG_OK) break;
            tg_arena a;
            tg_arena_init(&a, A);
            const cJSON *nc = tg_json_getz(check_listing(rt, &a, "openai paged"), "nextCursor");
            int more = cJSON_IsString(nc) && tg_json_strlen(nc->valuestring) < sizeof cursor;
            if (more) memcpy(cursor, nc->valuestring, tg_json_strlen(nc->valuestring) + 1);
            tg_arena_free(&a);
            if (!more) break;
        }
    }
    if (fl[9]) {
        hidden_means_denied(rt, f, fl);
        st = tg_list_tools(rt, f[9], fl[9]);
        if (st == TG_OK) check_listing_only(rt, "fuzzed request"); else err_json(rt, "list_tools error");
        tg_buf q;
        tg_buf_init(&q, A, 0);
        tg_buf_puts(&q, "{\"tool\":");
        tg_json_write_string(&q, f[4], fl[4]);
        tg_buf_puts(&q, ",\"args\":");
        tg_buf_append(&q, f[5], fl[5]);
        tg_buf_puts(&q, ",\"explain\":true,\"principal\":");
        tg_json_write_string(&q, f[9], fl[9] > 64 ? 64 : fl[9]);
        tg_buf_putc(&q, '}');
        st = tg_authorize(rt, q.data, q.len);
        if (st == TG_OK) out_json(rt, "authorize(args) output"); else err_json(rt, "authorize(args) error");
        tg_buf_free(&q);
    }
    /* model name mapping: source = field 6 bytes, tool = field 4 */
    st = tg_model_name(rt, f[6], fl[6] > 200 ? 200 : fl[6], f[4], fl[4], NULL);
    if (st == TG_OK) {
        size_t n;
        const char *o = tg_output(rt, &n);
        if (!name_ok(o, n)) fail("tg_model_name gave '%.*s'", (int)n, o);
    }
    st = tg_save_policy_state(rt);
    if (st == TG_OK) {
        size_t n;
        const char *o = tg_output(rt, &n);
        char *copy = malloc(n + 1);
        memcpy(copy, o, n);
        if (n && tg_restore_policy_state(rt, copy, n) != TG_OK) fail("restoring saved policy state failed");
        free(copy);
    }
    if (snap) tg_snapshot_release(rt, snap);
    take_log(rt, &ks, &nk);
    restore_kept(&lim, &host, ks, nk);
    tg_remove_source(rt, f[6], fl[6]);
    take_log(rt, &ks, &nk);
    for (size_t i = 0; i < nk; i++) {
        free(ks[i].key);
        free(ks[i].tool);
    }
    free(ks);
    tg_runtime_free(rt);
    free(hs.args);
    return 0;
}
