/* policy_approval.c - pending approvals bound to a tool and an argument
 * digest, and self-contained HMAC-SHA256 approval tokens with a bounded
 * replay set. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policy_internal.h"
#include "../crypto/base64url.h"
#include "../crypto/hmac.h"
#include "../crypto/sha256.h"

enum { AP_PENDING = 0, AP_APPROVED, AP_DENIED, AP_USED, AP_MINTED /* used: it travels as a token */ };

typedef struct tg_approval {
    int state;
    int for_session;
    double expires_ms;
    unsigned char digest[32];
    uint32_t tool_len, principal_len, session_len, def_len; /* the strings follow, each NUL-terminated:
                                                                tool, principal, session, definition digest */
} tg_approval;

#define MAX_STR 1024

static void say(char *why, size_t len, const char *msg) {
    if (why && len) snprintf(why, len, "%s", msg);
}

int tg_policy_args_digest(const tg_allocator *a, const cJSON *args, unsigned char out[32]) {
    tg_buf b;
    tg_buf_init(&b, *a, 0);
    if (args) tg_json_write(&b, args);
    else tg_buf_puts(&b, "{}");
    if (b.failed) {
        tg_buf_free(&b);
        return -1;
    }
    tg_sha256(b.data, b.len, out);
    tg_buf_free(&b);
    return 0;
}

static const char *ap_tool(tg_approval *ap) { return (const char *)(ap + 1); }
static const char *ap_principal(tg_approval *ap) { return ap_tool(ap) + ap->tool_len + 1; }
static const char *ap_session(tg_approval *ap) { return ap_principal(ap) + ap->principal_len + 1; }
static const char *ap_definition(tg_approval *ap) { return ap_session(ap) + ap->session_len + 1; }

int tg_approval_create(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req,
                       const char *args_canonical, size_t args_len, double expires_ms,
                       const unsigned char nonce[16], char id_out[40]) {
    id_out[0] = '\0';
    if (!tool || !tg_policy_name_ok(tool->name, tool->name_len) || !(expires_ms > req->now_ms)) return -1;
    const char *pr = req->principal ? req->principal : "", *se = req->session ? req->session : "";
    const char *df = tool->digest ? tool->digest : "";
    size_t pl = strlen(pr), sl = strlen(se), dl = strlen(df);
    if (pl > MAX_STR || sl > MAX_STR || dl > MAX_STR) return -1;
    unsigned char raw[16];
    if (nonce) {
        memcpy(raw, nonce, 16);
    } else {
        uint64_t n = ++p->state->counter;
        memset(raw, 0, 16);
        for (int i = 0; i < 8; i++) raw[15 - i] = (unsigned char)(n >> (8 * i));
    }
    char id[40];
    memcpy(id, "ap_", 3);
    for (int i = 0; i < 16; i++) snprintf(id + 3 + 2 * i, 3, "%02x", raw[i]);
    size_t idl = 3 + 32;
    if (tg_smap_find(&p->state->approvals, id, idl)) return -1;
    /* one principal's unanswered asks hold at most its share of the table
     * (asks are rare: the count is a scan) */
    size_t mine = 0;
    const tg_smap *m = &p->state->approvals;
    for (size_t b = 0; b < m->cap; b++)
        for (tg_sent *e = m->tab[b]; e; e = e->next) {
            tg_approval *o = tg_sent_val(e);
            if (o->state == AP_PENDING && o->expires_ms > req->now_ms && o->principal_len == pl &&
                memcmp(ap_principal(o), pr, pl) == 0)
                mine++;
        }
    if (mine >= p->limits.approvals_per_principal) return -1;
    size_t vsize = sizeof(tg_approval) + tool->name_len + pl + sl + dl + 4;
    tg_sent *e = tg_smap_insert(&p->state->approvals, id, idl, vsize, expires_ms, req->now_ms);
    if (!e) return -1;
    tg_approval *ap = tg_sent_val(e);
    ap->state = AP_PENDING;
    ap->expires_ms = expires_ms;
    tg_sha256(args_canonical, args_len, ap->digest);
    ap->tool_len = (uint32_t)tool->name_len;
    ap->principal_len = (uint32_t)pl;
    ap->session_len = (uint32_t)sl;
    ap->def_len = (uint32_t)dl;
    char *s = (char *)(ap + 1);
    memcpy(s, tool->name, tool->name_len);
    s[tool->name_len] = '\0';
    memcpy(s + tool->name_len + 1, pr, pl + 1);
    memcpy(s + tool->name_len + 1 + pl + 1, se, sl + 1);
    memcpy(s + tool->name_len + 1 + pl + 1 + sl + 1, df, dl + 1);
    memcpy(id_out, id, idl + 1);
    return 0;
}

static tg_approval *lookup(tg_policy *p, const char *id, double now, char *why, size_t why_len) {
    tg_sent *e = id ? tg_smap_find(&p->state->approvals, id, strlen(id)) : NULL;
    if (!e) {
        say(why, why_len, "unknown approval id (never issued, or expired and forgotten)");
        return NULL;
    }
    tg_approval *ap = tg_sent_val(e);
    if (now >= ap->expires_ms) {
        say(why, why_len, "approval expired");
        return NULL;
    }
    return ap;
}

int tg_approval_open(tg_policy *p, const char *id, double now_ms) {
    tg_sent *e = id ? tg_smap_find(&p->state->approvals, id, strlen(id)) : NULL;
    if (!e) return 0;
    const tg_approval *ap = tg_sent_val(e);
    return ap->state == AP_APPROVED && now_ms < ap->expires_ms;
}

/* The approval id names, when it is still waiting for a person's answer. */
static tg_approval *unanswered(tg_policy *p, const char *id, double now_ms, char *why, size_t why_len) {
    tg_approval *ap = lookup(p, id, now_ms, why, why_len);
    if (ap && ap->state != AP_PENDING) {
        say(why, why_len,
            ap->state == AP_DENIED ? "approval was denied; ask again for a new one" : "approval already resolved");
        return NULL;
    }
    return ap;
}

int tg_approval_resolve(tg_policy *p, const char *id, int approve, int for_session, double now_ms, char *why,
                        size_t why_len) {
    tg_approval *ap = unanswered(p, id, now_ms, why, why_len);
    if (!ap) return -1;
    if (!approve) {
        ap->state = AP_DENIED;
        return 0;
    }
    if (for_session &&
        tg_session_rule_add(p, ap_session(ap), ap_principal(ap), ap_tool(ap), ap->tool_len, ap_definition(ap), now_ms) != 0) {
        say(why, why_len, "session-rule table is full (max_session_rules) or out of memory");
        return -1;
    }
    ap->state = AP_APPROVED;
    ap->for_session = for_session;
    return 0;
}

int tg_approval_restore_answer(tg_policy *p, const char *id, const char *answer, double now_ms) {
    int state = strcmp(answer, "denied") == 0 ? AP_DENIED
                : strcmp(answer, "used") == 0 ? AP_USED
                : strcmp(answer, "token") == 0 ? AP_MINTED
                                               : -1;
    tg_approval *ap = state < 0 ? NULL : unanswered(p, id, now_ms, NULL, 0);
    if (!ap) return -1;
    ap->state = state;
    return 0;
}

int tg_approval_consume(tg_policy *p, const char *id, const char *tool, size_t tool_len,
                        const char *args_canonical, size_t args_len, const char *principal, const char *session,
                        double now_ms, char *why, size_t why_len) {
    tg_approval *ap = lookup(p, id, now_ms, why, why_len);
    if (!ap) return 0;
    switch (ap->state) {
    case AP_PENDING: say(why, why_len, "approval is still pending"); return 0;
    case AP_DENIED: say(why, why_len, "approval was denied"); return 0;
    case AP_USED: say(why, why_len, "approval was already used (one approval runs one call)"); return 0;
    case AP_MINTED: say(why, why_len, "approval was issued as a token; call with the token"); return 0;
    default: break;
    }
    if (!tool || tool_len != ap->tool_len || memcmp(tool, ap_tool(ap), tool_len) != 0) {
        say(why, why_len, "approval is for another tool");
        return 0;
    }
    unsigned char d[32];
    tg_sha256(args_canonical, args_len, d);
    if (!tg_ct_equal(d, ap->digest, 32)) {
        say(why, why_len,
            "arguments differ from the approved ones (or their context values, or the tool was redefined since); a new "
            "approval is needed");
        return 0;
    }
    /* (absent is "", as when the approval was asked for) */
    if (strcmp(ap_principal(ap), principal ? principal : "") != 0) {
        say(why, why_len, "approval is for another principal");
        return 0;
    }
    if (strcmp(ap_session(ap), session ? session : "") != 0) {
        say(why, why_len, "approval is for another session");
        return 0;
    }
    ap->state = AP_USED;
    return 1;
}

int tg_approval_id_nonce(const char *id, unsigned char nonce[16]) {
    for (int i = 0; i < 16; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char ch = id[3 + 2 * i + k];
            v = v * 16 + (unsigned)(ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : 99);
        }
        if (v > 255) return -1;
        nonce[i] = (unsigned char)v;
    }
    return 0;
}

int tg_approval_resolve_token(tg_policy *p, const char *id, const unsigned char *key, size_t key_len, double now_ms,
                              tg_buf *token_out, double *expires_ms, char *why, size_t why_len) {
    tg_approval *ap = unanswered(p, id, now_ms, why, why_len);
    if (!ap) return -1;
    if (!key_len) {
        say(why, why_len, "no approval key is set (setApprovalKey)");
        return -1;
    }
    tg_approval_claims c;
    memset(&c, 0, sizeof c);
    c.tool = ap_tool(ap);
    c.tool_len = ap->tool_len;
    c.principal = ap_principal(ap);
    c.session = ap_session(ap);
    c.expires_ms = ap->expires_ms;
    memcpy(c.args_digest, ap->digest, 32);
    (void)tg_approval_id_nonce(id, c.nonce); /* (an id of this table: well formed) */
    if (tg_approval_token_mint(key, key_len, &c, token_out)) {
        say(why, why_len, "the token could not be written");
        return -1;
    }
    ap->state = AP_MINTED; /* it travels as the token now: not also runnable by its id */
    *expires_ms = ap->expires_ms;
    return 0;
}

/* ---- tokens ---- */

#define TOKEN_PREFIX "tga1."
#define PAYLOAD_MAX (1 + 8 + 16 + 32 + 3 * (2 + MAX_STR))

static size_t put_str(unsigned char *b, const char *s, size_t n) {
    b[0] = (unsigned char)(n >> 8);
    b[1] = (unsigned char)n;
    if (n) memcpy(b + 2, s, n);
    return 2 + n;
}

int tg_approval_token_mint(const unsigned char *key, size_t key_len, const tg_approval_claims *claims,
                           tg_buf *token_out) {
    const char *pr = claims->principal ? claims->principal : "", *se = claims->session ? claims->session : "";
    size_t pl = strlen(pr), sl = strlen(se);
    if (!key_len || !claims->tool || claims->tool_len > MAX_STR || pl > MAX_STR || sl > MAX_STR) return -1;
    if (!(claims->expires_ms >= 0 && claims->expires_ms < 9e15)) return -1;
    unsigned char pay[PAYLOAD_MAX];
    size_t n = 0;
    pay[n++] = 1;
    uint64_t exp = (uint64_t)floor(claims->expires_ms);
    for (int i = 7; i >= 0; i--) pay[n++] = (unsigned char)(exp >> (8 * i));
    memcpy(pay + n, claims->nonce, 16);
    n += 16;
    memcpy(pay + n, claims->args_digest, 32);
    n += 32;
    n += put_str(pay + n, claims->tool, claims->tool_len);
    n += put_str(pay + n, pr, pl);
    n += put_str(pay + n, se, sl);
    char enc[(PAYLOAD_MAX + 2) / 3 * 4 + 8];
    size_t start = token_out->len;
    tg_buf_puts(token_out, TOKEN_PREFIX);
    size_t el = tg_b64url_encode(pay, n, enc);
    tg_buf_append(token_out, enc, el);
    if (token_out->failed) return -1;
    unsigned char mac[32];
    tg_hmac_sha256(key, key_len, token_out->data + start, token_out->len - start, mac);
    tg_buf_putc(token_out, '.');
    el = tg_b64url_encode(mac, 32, enc);
    tg_buf_append(token_out, enc, el);
    return token_out->failed ? -1 : 0;
}

static int get_str(const unsigned char *b, size_t n, size_t *pos, const char **s, size_t *len) {
    if (*pos + 2 > n) return -1;
    size_t l = (size_t)b[*pos] << 8 | b[*pos + 1];
    if (l > MAX_STR || *pos + 2 + l > n) return -1;
    *s = (const char *)b + *pos + 2;
    *len = l;
    *pos += 2 + l;
    return 0;
}

static int str_eq(const char *a, size_t al, const char *b) {
    size_t bl = strlen(b);
    return al == bl && memcmp(a, b, al) == 0;
}

/* A token's signed claims: the MAC checked, the payload decoded into pay
 * (PAYLOAD_MAX + 3 bytes); 0, or -1 with why. */
typedef struct token_claims {
    uint64_t exp;
    const unsigned char *nonce, *digest;
    const char *tool, *principal, *session;
    size_t tool_len, principal_len, session_len;
} token_claims;

static int token_open(const unsigned char *key, size_t key_len, const char *token, size_t token_len,
                      unsigned char *pay, token_claims *c, char *why, size_t why_len) {
    size_t pre = sizeof TOKEN_PREFIX - 1;
    if (!key_len) {
        say(why, why_len, "no token key configured");
        return -1;
    }
    if (!token || token_len < pre + 2 || memcmp(token, TOKEN_PREFIX, pre) != 0) {
        say(why, why_len, "malformed token");
        return -1;
    }
    const char *dot = memchr(token + pre, '.', token_len - pre);
    size_t signed_len = dot ? (size_t)(dot - token) : 0;
    size_t mac_len = dot ? token_len - signed_len - 1 : 0;
    if (!dot || mac_len != 43 || signed_len - pre > (PAYLOAD_MAX + 2) / 3 * 4) {
        say(why, why_len, "malformed token");
        return -1;
    }
    unsigned char mac[33], want[32];
    if (tg_b64url_decode(dot + 1, mac_len, mac) != 32) {
        say(why, why_len, "malformed token");
        return -1;
    }
    tg_hmac_sha256(key, key_len, token, signed_len, want);
    if (!tg_ct_equal(mac, want, 32)) {
        say(why, why_len, "token signature does not verify (forged or altered)");
        return -1;
    }
    long pn = tg_b64url_decode(token + pre, signed_len - pre, pay);
    if (pn < 1 + 8 + 16 + 32 || pay[0] != 1) {
        say(why, why_len, "malformed token claims");
        return -1;
    }
    size_t n = (size_t)pn, pos = 1;
    c->exp = 0;
    for (int i = 0; i < 8; i++) c->exp = c->exp << 8 | pay[pos++];
    c->nonce = pay + pos;
    pos += 16;
    c->digest = pay + pos;
    pos += 32;
    if (get_str(pay, n, &pos, &c->tool, &c->tool_len) || get_str(pay, n, &pos, &c->principal, &c->principal_len) ||
        get_str(pay, n, &pos, &c->session, &c->session_len) || pos != n) {
        say(why, why_len, "malformed token claims");
        return -1;
    }
    return 0;
}

int tg_approval_token_spent(tg_policy *p, const unsigned char *key, size_t key_len, const char *token, size_t token_len,
                            double now_ms) {
    unsigned char pay[PAYLOAD_MAX + 3];
    token_claims c;
    char why[80];
    if (token_open(key, key_len, token, token_len, pay, &c, why, sizeof why)) return -1;
    if (now_ms >= (double)c.exp || tg_smap_find(&p->state->used, c.nonce, 16)) return 0; /* (nothing to hold) */
    return tg_smap_insert(&p->state->used, c.nonce, 16, 0, (double)c.exp, now_ms) ? 0 : -1;
}

int tg_approval_token_verify(tg_policy *p, const unsigned char *key, size_t key_len, const char *token,
                             size_t token_len, const char *tool, size_t tool_len, const char *args_canonical,
                             size_t args_len, const char *principal, const char *session, double now_ms, char *why,
                             size_t why_len) {
    unsigned char pay[PAYLOAD_MAX + 3];
    token_claims c;
    if (token_open(key, key_len, token, token_len, pay, &c, why, why_len)) return 0;
    uint64_t exp = c.exp;
    const unsigned char *nonce = c.nonce, *digest = c.digest;
    const char *t = c.tool, *pr = c.principal, *se = c.session;
    size_t tl = c.tool_len, pl = c.principal_len, sl = c.session_len;
    if (now_ms >= (double)exp) {
        say(why, why_len, "token expired");
        return 0;
    }
    if (!tool || tl != tool_len || memcmp(t, tool, tl) != 0) {
        say(why, why_len, "token is for another tool");
        return 0;
    }
    unsigned char d[32];
    tg_sha256(args_canonical, args_len, d);
    if (!tg_ct_equal(d, digest, 32)) {
        say(why, why_len, "arguments differ from the approved ones (or their context values, or the tool was redefined since)");
        return 0;
    }
    if (principal && !str_eq(pr, pl, principal)) {
        say(why, why_len, "token is for another principal");
        return 0;
    }
    if (session && !str_eq(se, sl, session)) {
        say(why, why_len, "token is for another session");
        return 0;
    }
    if (tg_smap_find(&p->state->used, nonce, 16)) {
        say(why, why_len, "token already used (replay)");
        return 0;
    }
    if (!tg_smap_insert(&p->state->used, nonce, 16, 0, (double)exp, now_ms)) {
        say(why, why_len, "used-token set is full (max_used_tokens); refusing");
        return 0;
    }
    return 1;
}

void tg_approvals_end_session(tg_policy *p, const char *session, double now_ms) {
    tg_smap *m = &p->state->approvals;
    size_t sl = strlen(session);
    for (size_t i = 0; i < m->cap; i++) {
        tg_sent *e = m->tab[i];
        while (e) {
            tg_sent *nx = e->next;
            tg_approval *ap = tg_sent_val(e);
            if (ap->session_len == sl && memcmp(ap_session(ap), session, sl) == 0) {
                /* a token this instance minted for the session is spent with it
                 * (if the used set is full it still expires at its own time) */
                unsigned char nonce[16];
                (void)tg_approval_id_nonce(tg_sent_key(e), nonce);
                if (ap->state == AP_MINTED && !tg_smap_find(&p->state->used, nonce, 16))
                    tg_smap_insert(&p->state->used, nonce, 16, 0, ap->expires_ms, now_ms);
                tg_smap_remove(m, e);
            }
            e = nx;
        }
    }
}
