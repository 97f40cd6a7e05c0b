/* policy_patset.c - tool-name pattern sets: exact names in a hash table,
 * globs grouped by literal prefix. */
#include <string.h>

#include "policy_internal.h"

/* FNV-1a 64 with a final mix: keys are policy and host strings, not
 * attacker-chosen at a volume that matters (tool names are registered).
 * Incremental, so a lookup hashes every prefix of a name in one pass. */
#define FNV_INIT 0xcbf29ce484222325ull
static inline uint64_t fnv_step(uint64_t h, unsigned char c) { return (h ^ c) * 0x100000001b3ull; }
static inline uint64_t fnv_mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

uint64_t tg_hash_bytes(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = FNV_INIT;
    for (size_t i = 0; i < n; i++) h = fnv_step(h, s[i]);
    return fnv_mix(h);
}

int tg_glob_match(const char *p, size_t plen, const char *s, size_t slen) {
    if (plen == 1 && p[0] == '*') return 1; /* (what "mcp__fs__*" leaves once its prefix matched) */
    size_t pi = 0, si = 0, star = (size_t)-1, mark = 0;
    while (si < slen) {
        if (pi < plen && p[pi] == '*') {
            star = pi++;
            mark = si;
        } else if (pi < plen && p[pi] == s[si]) {
            pi++;
            si++;
        } else if (star != (size_t)-1) {
            pi = star + 1;
            si = ++mark;
        } else {
            return 0;
        }
    }
    while (pi < plen && p[pi] == '*') pi++;
    return pi == plen;
}

static uint32_t table_size(uint32_t n) {
    uint32_t c = 8;
    while (c < n * 2 && c < (1u << 30)) c <<= 1;
    return c;
}

int tg_patset_build(tg_arena *arena, const tg_pat_in *in, uint32_t n, int literal, tg_patset *out) {
    memset(out, 0, sizeof *out);
    if (n == 0) return 0;
    out->pats = tg_arena_calloc(arena, n, sizeof *out->pats);
    uint32_t n_exact = 0, n_glob = 0;
    if (!out->pats) return -1;
    for (uint32_t i = 0; i < n; i++) {
        tg_pat *t = &out->pats[i];
        t->s = in[i].s;
        t->len = (uint32_t)in[i].len;
        t->owner = in[i].owner;
        t->next = TG_NONE;
        const char *star = literal ? NULL : memchr(in[i].s, '*', in[i].len);
        t->glob = star != NULL;
        t->plen = star ? (uint32_t)(star - in[i].s) : t->len;
        if (t->glob) n_glob++;
        else n_exact++;
    }
    out->n = n;
    uint32_t ec = table_size(n_exact), gc = table_size(n_glob);
    out->exact = tg_arena_alloc(arena, ec * sizeof(uint32_t));
    out->pre = tg_arena_alloc(arena, gc * sizeof(uint32_t));
    out->pre_lens = tg_arena_alloc(arena, (n_glob + 1) * sizeof(uint32_t));
    if (!out->exact || !out->pre || !out->pre_lens) return -1;
    memset(out->exact, 0xff, ec * sizeof(uint32_t));
    memset(out->pre, 0xff, gc * sizeof(uint32_t));
    out->exact_mask = ec - 1;
    out->pre_mask = gc - 1;
    /* insert back to front so chains list patterns in document order */
    for (uint32_t k = n; k-- > 0;) {
        tg_pat *t = &out->pats[k];
        uint32_t *head = t->glob ? &out->pre[tg_hash_bytes(t->s, t->plen) & out->pre_mask]
                                 : &out->exact[tg_hash_bytes(t->s, t->len) & out->exact_mask];
        t->next = *head;
        *head = k;
        if (t->glob) {
            uint32_t j = 0;
            while (j < out->n_pre_lens && out->pre_lens[j] < t->plen) j++;
            if (j == out->n_pre_lens || out->pre_lens[j] != t->plen) {
                memmove(out->pre_lens + j + 1, out->pre_lens + j, (out->n_pre_lens - j) * sizeof(uint32_t));
                out->pre_lens[j] = t->plen;
                out->n_pre_lens++;
            }
        }
    }
    return 0;
}

void tg_prefix_hashes(const char *name, size_t len, uint64_t *h) {
    h[0] = FNV_INIT;
    for (size_t k = 0; k < len; k++) h[k + 1] = fnv_step(h[k], (unsigned char)name[k]);
}

/* 1 when pattern t matches name[0..len) */
static inline int pat_matches(const tg_pat *t, const char *name, size_t len) {
    if (!t->glob) return t->len == len && memcmp(t->s, name, len) == 0;
    return t->plen <= len && memcmp(t->s, name, t->plen) == 0 &&
           tg_glob_match(t->s + t->plen, t->len - t->plen, name + t->plen, len - t->plen);
}

/* tg_patset_each, given the hash of the name's whole and of each glob
 * prefix length it has (pre_h[j]: of its first pre_lens[j] bytes, the np
 * lengths it is at least as long as) */
static int each_hashed(const tg_patset *set, const char *name, size_t len, uint64_t h, const uint64_t *pre_h,
                       uint32_t np, tg_pat_cb cb, void *ud) {
    for (uint32_t i = set->exact[h & set->exact_mask]; i != TG_NONE; i = set->pats[i].next) {
        const tg_pat *t = &set->pats[i];
        if (t->len == len && memcmp(t->s, name, len) == 0) {
            int r = cb(ud, t);
            if (r) return r;
        }
    }
    for (uint32_t j = 0; j < np; j++) {
        uint32_t pl = set->pre_lens[j];
        for (uint32_t i = set->pre[pre_h[j] & set->pre_mask]; i != TG_NONE; i = set->pats[i].next) {
            const tg_pat *t = &set->pats[i];
            if (t->plen == pl && pat_matches(t, name, len)) {
                int r = cb(ud, t);
                if (r) return r;
            }
        }
    }
    return 0;
}

int tg_patset_each(const tg_patset *set, const char *name, size_t len, tg_pat_cb cb, void *ud) {
    if (!set->n) return 0;
    /* one pass over the name: the hash of every glob prefix length (at most
     * 257 distinct: patterns are at most 256 bytes) and of the whole name */
    const unsigned char *u = (const unsigned char *)name;
    uint64_t pre_h[257];
    uint32_t np = 0;
    uint64_t h = FNV_INIT;
    for (size_t k = 0;; k++) {
        while (np < set->n_pre_lens && set->pre_lens[np] == k) pre_h[np++] = fnv_mix(h);
        if (k == len) break;
        h = fnv_step(h, u[k]);
    }
    return each_hashed(set, name, len, fnv_mix(h), pre_h, np, cb, ud);
}

int tg_patset_each_h(const tg_patset *set, const char *name, size_t len, const uint64_t *prefix, tg_pat_cb cb,
                     void *ud) {
    if (!set->n) return 0;
    uint64_t pre_h[257];
    uint32_t np = 0;
    while (np < set->n_pre_lens && set->pre_lens[np] <= len) {
        pre_h[np] = fnv_mix(prefix[set->pre_lens[np]]);
        np++;
    }
    return each_hashed(set, name, len, fnv_mix(prefix[len]), pre_h, np, cb, ud);
}

typedef struct find_ud {
    const tg_pat *found;
} find_ud;

static int find_cb(void *ud, const tg_pat *pat) {
    ((find_ud *)ud)->found = pat;
    return 1;
}

const tg_pat *tg_patset_find(const tg_patset *set, const char *name, size_t len) {
    find_ud f = {NULL};
    tg_patset_each(set, name, len, find_cb, &f);
    return f.found;
}

const tg_pat *tg_patset_find_h(const tg_patset *set, const char *name, size_t len, const uint64_t *prefix) {
    find_ud f = {NULL};
    tg_patset_each_h(set, name, len, prefix, find_cb, &f);
    return f.found;
}

/* (a set of a few patterns is scanned: fewer than a name's hash costs) */
enum { FEW = 8 };

int tg_patset_any(const tg_patset *set, const char *name, size_t len) {
    if (set->n > FEW) return tg_patset_find(set, name, len) != NULL;
    for (uint32_t i = 0; i < set->n; i++)
        if (pat_matches(&set->pats[i], name, len)) return 1;
    return 0;
}

const tg_pat *tg_patset_exact(const tg_patset *set, const char *name, size_t len) {
    if (!set->n) return NULL;
    if (set->n <= FEW) { /* (document order, as the hash chains list equal names) */
        for (uint32_t i = 0; i < set->n; i++) {
            const tg_pat *t = &set->pats[i];
            if (!t->glob && t->len == len && memcmp(t->s, name, len) == 0) return t;
        }
        return NULL;
    }
    for (uint32_t i = set->exact[tg_hash_bytes(name, len) & set->exact_mask]; i != TG_NONE; i = set->pats[i].next) {
        const tg_pat *t = &set->pats[i];
        if (t->len == len && memcmp(t->s, name, len) == 0) return t;
    }
    return NULL;
}

void tg_rkey_set(tg_rkey *k, const char *name, size_t len) {
    if (len > 128) len = 128; /* (checked names only) */
    k->chars_len = tg_name_fold(name, len, k->chars_buf, len, 0);
    k->pairs_len = tg_name_fold(name, len, k->pairs_buf, len, 1);
    tg_dot_fold(k->chars_buf, k->chars_len);
    tg_dot_fold(k->pairs_buf, k->pairs_len);
    k->chars = k->chars_buf;
    k->pairs = k->pairs_buf;
    k->hashed = 0;
}

void tg_rkey_use(tg_rkey *k, const char *chars, const char *pairs) {
    k->chars = chars;
    k->chars_len = strlen(chars);
    k->pairs = pairs;
    k->pairs_len = strlen(pairs);
    k->hashed = 0;
}

/* k, its prefix hashes made on first use (a set with patterns to match) */
static const tg_rkey *hashed(tg_rkey *k) {
    if (!k->hashed) {
        tg_prefix_hashes(k->chars, k->chars_len, k->chars_h);
        tg_prefix_hashes(k->pairs, k->pairs_len, k->pairs_h);
        k->hashed = 1;
    }
    return k;
}

typedef struct pairs_ud {
    const tg_rpatset *set;
    const tg_rkey *key;
    tg_pat_cb cb;
    void *ud;
} pairs_ud;

/* A pattern the pair fold matched, unless its character fold matched too
 * (then it was visited already). */
static int pairs_cb(void *ud, const tg_pat *pat) {
    const pairs_ud *u = ud;
    const tg_pat *twin = &u->set->chars.pats[pat - u->set->pairs.pats];
    if (tg_glob_match(twin->s, twin->len, u->key->chars, u->key->chars_len)) return 0;
    return u->cb(u->ud, pat);
}

int tg_rpatset_each(const tg_rpatset *set, tg_rkey *k, tg_pat_cb cb, void *ud) {
    if (!set->chars.n) return 0; /* (the two folds of one list of patterns) */
    const tg_rkey *key = hashed(k);
    int r = tg_patset_each_h(&set->chars, key->chars, key->chars_len, key->chars_h, cb, ud);
    if (r) return r;
    pairs_ud u = {set, key, cb, ud};
    return tg_patset_each_h(&set->pairs, key->pairs, key->pairs_len, key->pairs_h, pairs_cb, &u);
}

const tg_pat *tg_rpatset_find(const tg_rpatset *set, tg_rkey *k) {
    if (!set->chars.n) return NULL;
    const tg_rkey *key = hashed(k);
    const tg_pat *p = tg_patset_find_h(&set->chars, key->chars, key->chars_len, key->chars_h);
    return p ? p : tg_patset_find_h(&set->pairs, key->pairs, key->pairs_len, key->pairs_h);
}

int tg_policy_name_ok(const char *name, size_t len) {
    if (!name || len == 0 || len > 128) return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
            return 0;
    }
    return 1;
}

const tg_pat *tg_principal_find(const tg_principal *pr, const char *name, size_t len, int exact_only,
                                const char **from) {
    for (uint32_t i = 0; i < pr->n_sets; i++) {
        const tg_pat *g = tg_patset_exact(&pr->sets[i]->set, name, len);
        if (g) {
            *from = pr->sets[i]->from;
            return g;
        }
    }
    for (uint32_t i = 0; !exact_only && i < pr->n_sets; i++) {
        const tg_pat *g = tg_patset_find(&pr->sets[i]->set, name, len);
        if (g) {
            *from = pr->sets[i]->from;
            return g;
        }
    }
    return NULL;
}
