/* policy_state.c - the mutable side of a policy: bounded hash maps for rate
 * buckets, budgets, session rules, approvals and used token nonces. */
#include <string.h>

#include "policy_internal.h"

void tg_smap_init(tg_smap *m, tg_allocator alloc, size_t max) {
    memset(m, 0, sizeof *m);
    m->alloc = alloc;
    m->max = max;
}

static size_t entry_size(size_t klen, size_t vsize) {
    return sizeof(tg_sent) + ((klen + 7) & ~(size_t)7) + vsize;
}

void tg_smap_free(tg_smap *m) {
    for (size_t i = 0; i < m->cap; i++) {
        tg_sent *e = m->tab[i];
        while (e) {
            tg_sent *nx = e->next;
            tg_free(&m->alloc, e, entry_size(e->klen, e->vsize));
            e = nx;
        }
    }
    tg_free(&m->alloc, m->tab, m->cap * sizeof(tg_sent *));
    m->tab = NULL;
    m->cap = m->n = 0;
}

tg_sent *tg_smap_find(const tg_smap *m, const void *key, size_t klen) {
    if (!m->cap) return NULL;
    uint64_t h = tg_hash_bytes(key, klen);
    for (tg_sent *e = m->tab[h & (m->cap - 1)]; e; e = e->next)
        if (e->hash == h && e->klen == klen && memcmp(tg_sent_key(e), key, klen) == 0) return e;
    return NULL;
}

void tg_smap_remove(tg_smap *m, tg_sent *e) {
    tg_sent **pp = &m->tab[e->hash & (m->cap - 1)];
    while (*pp && *pp != e) pp = &(*pp)->next;
    if (!*pp) return;
    *pp = e->next;
    m->n--;
    tg_free(&m->alloc, e, entry_size(e->klen, e->vsize));
}

void tg_smap_sweep(tg_smap *m, double now) {
    for (size_t i = 0; i < m->cap; i++) {
        tg_sent **pp = &m->tab[i];
        while (*pp) {
            tg_sent *e = *pp;
            if (e->expires <= now) {
                *pp = e->next;
                m->n--;
                tg_free(&m->alloc, e, entry_size(e->klen, e->vsize));
            } else {
                pp = &e->next;
            }
        }
    }
}

static int grow(tg_smap *m) {
    size_t ncap = m->cap ? m->cap * 2 : 16;
    tg_sent **nt = tg_malloc(&m->alloc, ncap * sizeof *nt);
    if (!nt) return -1;
    memset(nt, 0, ncap * sizeof *nt);
    for (size_t i = 0; i < m->cap; i++) {
        tg_sent *e = m->tab[i];
        while (e) {
            tg_sent *nx = e->next;
            e->next = nt[e->hash & (ncap - 1)];
            nt[e->hash & (ncap - 1)] = e;
            e = nx;
        }
    }
    tg_free(&m->alloc, m->tab, m->cap * sizeof *m->tab);
    m->tab = nt;
    m->cap = ncap;
    return 0;
}

tg_sent *tg_smap_insert(tg_smap *m, const void *key, size_t klen, size_t vsize, double expires, double now) {
    if (m->max && m->n >= m->max) {
        tg_smap_sweep(m, now);
        if (m->n >= m->max) return NULL;
    }
    if (m->n >= m->cap && grow(m) != 0) return NULL;
    size_t sz = entry_size(klen, vsize);
    tg_sent *e = tg_malloc(&m->alloc, sz);
    if (!e) return NULL;
    memset(e, 0, sz);
    e->hash = tg_hash_bytes(key, klen);
    e->klen = klen;
    e->vsize = vsize;
    e->expires = expires;
    memcpy((char *)(e + 1), key, klen);
    tg_sent **head = &m->tab[e->hash & (m->cap - 1)];
    e->next = *head;
    *head = e;
    m->n++;
    return e;
}

int tg_smap_room(const tg_smap *m, size_t need, double now) {
    if (!m->max || m->n + need <= m->max) return 1;
    /* full: an insert sweeps what expired at now first (as tg_smap_insert) */
    size_t expired = 0;
    for (size_t i = 0; i < m->cap; i++)
        for (const tg_sent *e = m->tab[i]; e; e = e->next) expired += e->expires <= now;
    return m->n - expired + need <= m->max;
}

tg_pstate *tg_pstate_new(const tg_allocator *a, const tg_plimits *lim) {
    tg_pstate *s = tg_malloc(a, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    tg_smap_init(&s->rates, *a, lim->rate_buckets);
    tg_smap_init(&s->budgets, *a, lim->budget_entries);
    tg_smap_init(&s->session, *a, lim->session_rules);
    tg_smap_init(&s->approvals, *a, lim->approvals);
    tg_smap_init(&s->used, *a, lim->used_tokens);
    return s;
}

void tg_pstate_free(const tg_allocator *a, tg_pstate *s) {
    if (!s) return;
    tg_smap_free(&s->rates);
    tg_smap_free(&s->budgets);
    tg_smap_free(&s->session);
    tg_smap_free(&s->approvals);
    tg_smap_free(&s->used);
    tg_free(a, s, sizeof *s);
}

size_t tg_state_key(char *buf, size_t cap, const char *const *parts, int n) {
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        const char *s = parts[i] ? parts[i] : "";
        size_t l = strlen(s);
        if (len + l + 1 > cap) return 0;
        memcpy(buf + len, s, l);
        len += l;
        buf[len++] = '\0';
    }
    return len;
}

/* session \0 principal \0 tool \0 digest (a tool name has no NUL) */
static size_t session_key(char *buf, size_t cap, const char *session, const char *principal, const char *tool,
                          size_t tool_len, const char *digest) {
    const char *parts[2] = {session, principal};
    size_t n = tg_state_key(buf, cap, parts, 2);
    size_t dl = digest ? strlen(digest) : 0;
    if (!n || tool_len + 1 + dl > cap - n) return 0;
    memcpy(buf + n, tool, tool_len);
    buf[n + tool_len] = '\0';
    if (dl) memcpy(buf + n + tool_len + 1, digest, dl);
    return n + tool_len + 1 + dl;
}

int tg_session_rule_add(tg_policy *p, const char *session, const char *principal, const char *tool, size_t tool_len,
                        const char *digest, double now) {
    char key[1024];
    size_t kl = session_key(key, sizeof key, session, principal, tool, tool_len, digest);
    if (!kl) return -1;
    if (tg_smap_find(&p->state->session, key, kl)) return 0;
    /* session rules live until tg_policy_end_session; never swept by time */
    return tg_smap_insert(&p->state->session, key, kl, 0, 1e300, now) ? 0 : -1;
}

int tg_session_rule_has(const tg_policy *p, const char *session, const char *principal, const char *tool,
                        size_t tool_len, const char *digest) {
    char key[1024];
    size_t kl = session_key(key, sizeof key, session, principal, tool, tool_len, digest);
    return kl && tg_smap_find(&p->state->session, key, kl) != NULL;
}

static void drop_session(tg_smap *m, const char *prefix, size_t plen) {
    for (size_t i = 0; i < m->cap; i++) {
        tg_sent **pp = &m->tab[i];
        while (*pp) {
            tg_sent *e = *pp;
            if (e->klen >= plen && memcmp(tg_sent_key(e), prefix, plen) == 0) {
                *pp = e->next;
                m->n--;
                tg_free(&m->alloc, e, entry_size(e->klen, e->vsize));
            } else {
                pp = &e->next;
            }
        }
    }
}

void tg_policy_end_session(tg_policy *p, const char *session, double now_ms) {
    char key[1024];
    const char *parts[1] = {session};
    size_t kl = tg_state_key(key, sizeof key, parts, 1);
    if (!kl) return;
    drop_session(&p->state->session, key, kl);
    tg_approvals_end_session(p, session, now_ms);
    /* budgets: key is budget id \0 session \0 */
    tg_smap *m = &p->state->budgets;
    for (size_t i = 0; i < m->cap; i++) {
        tg_sent **pp = &m->tab[i];
        while (*pp) {
            tg_sent *e = *pp;
            const char *k = tg_sent_key(e);
            const char *z = memchr(k, '\0', e->klen);
            size_t idl = z ? (size_t)(z - k) : e->klen;
            if (idl + 1 + kl == e->klen && memcmp(k + idl + 1, key, kl) == 0) {
                *pp = e->next;
                m->n--;
                tg_free(&m->alloc, e, entry_size(e->klen, e->vsize));
            } else {
                pp = &e->next;
            }
        }
    }
}

void tg_policy_adopt_state(tg_policy *to, tg_policy *from) {
    tg_pstate *t = to->state;
    to->state = from->state;
    from->state = t;
    /* the new policy's limits apply from now on */
    to->state->rates.max = to->limits.rate_buckets;
    to->state->budgets.max = to->limits.budget_entries;
    to->state->session.max = to->limits.session_rules;
    to->state->approvals.max = to->limits.approvals;
    to->state->used.max = to->limits.used_tokens;
    tg_smap_free(&from->state->rates);
    tg_smap_free(&from->state->budgets);
    tg_smap_free(&from->state->session);
    tg_smap_free(&from->state->approvals);
    tg_smap_free(&from->state->used);
}

/* ---- carrying state to another instance (tg_policy_state_save/load) ----
 * Records, back to back: u8 map (0 rates, 1 budgets, 2 session rules,
 * 3 used token nonces), u32 key length, u32 value size, f64 expiry, the
 * key, the value. Approvals are restored by their own records
 * (tg_restore_approval). */
enum { SMAP_RATES, SMAP_BUDGETS, SMAP_SESSION, SMAP_USED, SMAP_COUNT };
static const size_t SMAP_VSIZE[SMAP_COUNT] = {sizeof(tg_bucket), sizeof(double), 0, 0};
#define STATE_KEY_MAX 1024

static tg_smap *smap_of(tg_pstate *s, unsigned i) {
    return i == SMAP_RATES ? &s->rates : i == SMAP_BUDGETS ? &s->budgets : i == SMAP_SESSION ? &s->session : &s->used;
}

int tg_policy_state_save(const tg_policy *p, tg_buf *out) {
    for (unsigned i = 0; i < SMAP_COUNT; i++) {
        const tg_smap *m = smap_of(p->state, i);
        size_t seen = 0;
        for (size_t b = 0; b < m->cap; b++)
            for (tg_sent *e = m->tab[b]; e; e = e->next) {
                /* read from an instance that trapped: trust nothing we write */
                if (++seen > m->n || e->klen > STATE_KEY_MAX || e->vsize != SMAP_VSIZE[i]) return -1;
                unsigned char map = (unsigned char)i;
                uint32_t kl = (uint32_t)e->klen, vs = (uint32_t)e->vsize;
                tg_buf_append(out, &map, 1);
                tg_buf_append(out, &kl, 4);
                tg_buf_append(out, &vs, 4);
                tg_buf_append(out, &e->expires, 8);
                tg_buf_append(out, tg_sent_key(e), e->klen);
                tg_buf_append(out, tg_sent_val(e), e->vsize);
            }
    }
    return out->failed ? -1 : 0;
}

/* A value is sound: finite, not negative (bucket tokens, times, counts). */
static int sound(const unsigned char *v, size_t vsize) {
    for (size_t o = 0; o + 8 <= vsize; o += 8) {
        double d;
        memcpy(&d, v + o, 8);
        if (!(d >= 0 && d <= 1e300)) return 0;
    }
    return 1;
}

/* One record at d[*at]: checked, and with m non-NULL, stored. */
static int load_record(tg_pstate *s, const unsigned char *d, size_t len, size_t *at, int store, double now) {
    unsigned char map;
    uint32_t kl, vs;
    double expires;
    if (len - *at < 17) return -1;
    map = d[*at];
    memcpy(&kl, d + *at + 1, 4);
    memcpy(&vs, d + *at + 5, 4);
    memcpy(&expires, d + *at + 9, 8);
    *at += 17;
    if (map >= SMAP_COUNT || vs != SMAP_VSIZE[map] || kl > STATE_KEY_MAX || len - *at < (size_t)kl + vs ||
        expires != expires || !sound(d + *at + kl, vs))
        return -1;
    if (store) {
        tg_smap *m = smap_of(s, map);
        tg_sent *e = tg_smap_find(m, d + *at, kl);
        if (!e) e = tg_smap_insert(m, d + *at, kl, vs, expires, now);
        if (!e) return -1;
        e->expires = expires;
        memcpy(tg_sent_val(e), d + *at + kl, vs);
    }
    *at += (size_t)kl + vs;
    return 0;
}

int tg_policy_state_load(tg_policy *p, const void *data, size_t len, double now) {
    for (int store = 0; store < 2; store++) /* every record checked before any is stored */
        for (size_t at = 0; at < len;)
            if (load_record(p->state, data, len, &at, store, now)) return -1;
    return 0;
}
