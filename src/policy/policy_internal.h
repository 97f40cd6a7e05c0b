/* policy_internal.h - the compiled policy and its mutable state, shared by
 * the files of src/policy only. */
#ifndef TG_POLICY_INTERNAL_H
#define TG_POLICY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "../registry/names.h"
#include "../base/arena.h"
#include "../json/json.h"

#define TG_NONE UINT32_MAX

/* ---- pattern sets (policy_patset.c) ----
 * Tool-name patterns: exact bytes, `*` matches any run of bytes (also none),
 * no other metacharacter, case-sensitive. Exact patterns are hashed by the
 * whole name; globs by their literal prefix (the bytes before the first
 * `*`), and a lookup probes one hash per distinct prefix length, so its cost
 * depends on how many patterns share the name's prefixes, not on the size of
 * the set. */
typedef struct tg_pat {
    const char *s;
    uint32_t len;
    uint32_t plen;   /* literal prefix length (== len for exact patterns) */
    uint32_t owner;  /* what the pattern belongs to (rule, grant, tenant...) */
    uint32_t next;   /* next pattern in the same hash chain */
    uint8_t glob;
} tg_pat;

typedef struct tg_pat_in {
    const char *s;
    size_t len;
    uint32_t owner;
} tg_pat_in;

typedef struct tg_patset {
    tg_pat *pats;
    uint32_t n;
    uint32_t *exact;      /* heads of chains of exact patterns, by hash */
    uint32_t exact_mask;
    uint32_t *pre;        /* heads of chains of globs, by hash of the literal prefix */
    uint32_t pre_mask;
    uint32_t *pre_lens;   /* distinct literal prefix lengths of globs, ascending */
    uint32_t n_pre_lens;
} tg_patset;

/* Builds from in[0..n) into arena (strings are not copied: they must live
 * in the arena already). literal: every pattern is exact, `*` included.
 * 0, or -1 out of memory. */
int tg_patset_build(tg_arena *arena, const tg_pat_in *in, uint32_t n, int literal, tg_patset *out);
/* Calls cb for every pattern matching name, until cb returns nonzero (then
 * returns that value); 0 when all were visited. */
typedef int (*tg_pat_cb)(void *ud, const tg_pat *pat);
int tg_patset_each(const tg_patset *set, const char *name, size_t len, tg_pat_cb cb, void *ud);
/* The first matching pattern found (exact ones first), or NULL. */
const tg_pat *tg_patset_find(const tg_patset *set, const char *name, size_t len);
/* The FNV-1a states after each of a name's first k bytes, k = 0..len, into
 * h[0..len]: a name matched against many sets is hashed once. */
void tg_prefix_hashes(const char *name, size_t len, uint64_t *h);
/* tg_patset_each / tg_patset_find given the name's tg_prefix_hashes. */
int tg_patset_each_h(const tg_patset *set, const char *name, size_t len, const uint64_t *prefix, tg_pat_cb cb,
                     void *ud);
const tg_pat *tg_patset_find_h(const tg_patset *set, const char *name, size_t len, const uint64_t *prefix);
/* 1 when some pattern matches name (which one does not matter). */
int tg_patset_any(const tg_patset *set, const char *name, size_t len);
/* An exact (no `*`) pattern equal to name, or NULL. */
const tg_pat *tg_patset_exact(const tg_patset *set, const char *name, size_t len);
/* Glob match of pattern p against s (exact bytes). */
/* Tool names are told apart up to case and look-alike characters (the
 * registry's skeleton), so the patterns that restrict match them so
 * (policy_compile.c), folded character by character (lower case, '-' as
 * '_', 0/o, 1/i/l): a glob keeps matching what its raw form matched. In
 * place; the length does not change. */
/* '.' folds as '_' as well: the registry maps '.' to '_' in every
 * model-visible name and so tells "tool.x" and "tool_x" apart by neither,
 * and a restricting pattern written as the host spelled the tool
 * ("github.delete_repo") must catch it. tg_dot_fold on a folded string. */
static inline void tg_dot_fold(char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.') s[i] = '_';
}
static inline size_t tg_policy_fold(char *s, size_t n) {
    size_t m = tg_name_fold(s, n, s, n, 0);
    tg_dot_fold(s, m);
    return m;
}
int tg_glob_match(const char *p, size_t plen, const char *s, size_t slen);

/* A restricting pattern set: its patterns folded character by character
 * (chars) and, apart, with the registry's pair look-alikes too (rn as m, vv
 * as w: pairs), pattern i the same one in both. A name matches a pattern
 * when its character fold matches the pattern's character fold OR its pair
 * fold matches the pattern's pair fold: the pair fold alone breaks glob
 * boundaries ("transfer*" against "transfemow"), the character fold alone
 * misses "rernove_files" for "remove_*", and either can only restrict more. */
typedef struct tg_rpatset {
    tg_patset chars, pairs;
} tg_rpatset;

/* A tool name (1-128 bytes) folded both ways: into its own buffers
 * (tg_rkey_set), or the folds the registry keeps (tg_rkey_use). */
typedef struct tg_rkey {
    const char *chars, *pairs;
    size_t chars_len, pairs_len;
    int hashed;                          /* chars_h and pairs_h are made (on first use) */
    uint64_t chars_h[129], pairs_h[129]; /* their tg_prefix_hashes */
    char chars_buf[129], pairs_buf[129];
} tg_rkey;

/* The JSON Pointer token of name[*i..len) (*i at its '/'), ~0 and ~1
 * undone, into tok (at most 256 bytes); *i moved to the next '/' or len.
 * Its length, or -1 when it is malformed or too long (no argument has it). */
static inline long tg_pointer_token(const char *name, size_t len, size_t *i, char tok[256]) {
    size_t k = *i + 1, tl = 0; /* (past the '/') */
    while (k < len && name[k] != '/') {
        char ch = name[k];
        if (ch == '~') {
            if (k + 1 >= len || (name[k + 1] != '0' && name[k + 1] != '1')) return -1;
            ch = name[k + 1] == '0' ? '~' : '/';
            k++;
        }
        if (tl >= 256) return -1;
        tok[tl++] = ch;
        k++;
    }
    *i = k;
    return (long)tl;
}

void tg_rkey_set(tg_rkey *k, const char *name, size_t len);
/* The key of a name whose folds were made beforehand, as tg_rkey_set makes
 * them (NUL-terminated; they must outlive k). */
void tg_rkey_use(tg_rkey *k, const char *chars, const char *pairs);
/* tg_patset_each over both folds, each pattern visited at most once. */
int tg_rpatset_each(const tg_rpatset *set, tg_rkey *key, tg_pat_cb cb, void *ud);
const tg_pat *tg_rpatset_find(const tg_rpatset *set, tg_rkey *key);
uint64_t tg_hash_bytes(const void *p, size_t n);

/* A path separator to a file system or a URL parser ('\\' to Windows and
 * to a URL of a special scheme). */
static inline int tg_path_sep(char c) { return c == '/' || c == '\\'; }

/* ---- URL arguments (policy_url.c) ---- */
typedef struct tg_url_form {
    size_t path; /* where the path starts after the host; 0: not a URL of a special scheme */
    int bare;    /* no path: the parser reads "https://h?q" as "https://h/?q" */
    int raw;     /* its path, query or fragment holds a byte the parser writes back
                  * percent-encoded (a space, '"', a non-ASCII character) */
} tg_url_form;

/* For a prefix or suffix condition's argument s[0..n) that a WHATWG URL
 * parser (fetch, new URL) reads as a URL of a special scheme (http, https,
 * ws, wss, ftp, file): why it is not spelled as that parser writes it back
 * (up to ASCII case and '\\' for '/', which restricting rules fold), when a
 * byte comparison could miss what it names; NULL when it is (with *u set)
 * or is no such URL (u->path 0). Its path's segments are left to the
 * caller. */
const char *tg_url_check(const char *s, size_t n, tg_url_form *u);

/* ---- compiled document (policy_compile.c) ---- */
enum { TG_OP_EQUALS, TG_OP_ONE_OF, TG_OP_PREFIX, TG_OP_SUFFIX };
enum { TG_MODE_DEFAULT, TG_MODE_ACCEPT_EDITS, TG_MODE_BYPASS, TG_MODE_PLAN, TG_MODE_COUNT };

typedef struct tg_cond {
    const char *arg;     /* property name, or a JSON Pointer when it starts with '/' */
    size_t arg_len;
    int op;
    const cJSON *value;  /* equals / one_of (in the policy arena) */
    const char *str;     /* prefix / suffix */
    size_t str_len;
} tg_cond;

typedef struct tg_strlist {
    const char **s;
    uint32_t n;
} tg_strlist;

typedef struct tg_rule {
    const char *id;
    const char *reason;  /* NULL: generated */
    tg_decision effect;
    tg_strlist principals; /* globs; n 0: any */
    tg_strlist sources;    /* exact; n 0: any */
    tg_strlist tenants;    /* exact; n 0: any */
    unsigned modes;        /* bit per TG_MODE_*; 0: any */
    tg_cond *conds;
    uint32_t n_conds;
} tg_rule;

/* A set of granted patterns and where they come from: a principal's own
 * "grants", or a bundle ("skill:<name>", "project:<name>"). A bundle's set
 * is compiled once and shared by every principal given it, so a document
 * costs memory in proportion to its size, not principals x bundle size. */
typedef struct tg_grantset {
    tg_patset set;
    const char *from;
} tg_grantset;

typedef struct tg_principal {
    const char *name;
    uint32_t n_grants;   /* patterns over all sets (0: the default set applies) */
    const tg_grantset **sets; /* own grants first, then bundles in document order */
    uint32_t n_sets;
    tg_strlist bundles;  /* "skill:x", "project:y" (explain) */
} tg_principal;

/* A pattern of the principal's effective set matching name (exact patterns
 * of every set before any glob; exact_only: exact ones only), its set's
 * label in *from; NULL when none. */
const tg_pat *tg_principal_find(const tg_principal *pr, const char *name, size_t len, int exact_only,
                                const char **from);

typedef struct tg_source_cfg {
    const char *name;
    int full_set, privileged;
} tg_source_cfg;

typedef struct tg_rate_limit {
    const char *id;
    tg_strlist principals;
    double capacity, per_ms;
} tg_rate_limit;

typedef struct tg_budget {
    const char *id;
    double max_calls;
} tg_budget;

/* ---- mutable state (policy_state.c) ----
 * A chained hash map of byte keys to fixed-size values; entries are
 * allocated one by one through the allocator and carry an expiry so a full
 * map can drop what no longer matters. */
typedef struct tg_sent {
    struct tg_sent *next;
    uint64_t hash;
    size_t klen, vsize;
    double expires;      /* sweepable when expires <= now */
} tg_sent;

typedef struct tg_smap {
    tg_allocator alloc;
    tg_sent **tab;
    size_t cap, n, max;
} tg_smap;

void tg_smap_init(tg_smap *m, tg_allocator alloc, size_t max);
void tg_smap_free(tg_smap *m);
tg_sent *tg_smap_find(const tg_smap *m, const void *key, size_t klen);
/* Inserts a new entry (value zero-filled). Full: sweeps entries expired at
 * now, then fails. NULL: full or out of memory. */
tg_sent *tg_smap_insert(tg_smap *m, const void *key, size_t klen, size_t vsize, double expires, double now);
/* Whether need new entries would fit (tg_smap_insert, one after another,
 * none of them expired at now), without changing anything: what a dry run
 * asks. Full: O(entries), as the sweep of the insert it stands for. */
int tg_smap_room(const tg_smap *m, size_t need, double now);
void tg_smap_remove(tg_smap *m, tg_sent *e);
void tg_smap_sweep(tg_smap *m, double now);
static inline const char *tg_sent_key(const tg_sent *e) { return (const char *)(e + 1); }
static inline void *tg_sent_val(tg_sent *e) {
    return (char *)(e + 1) + ((e->klen + 7) & ~(size_t)7);
}

typedef struct tg_pstate {
    tg_smap rates;      /* rate id \0 principal \0 tool -> tg_bucket */
    tg_smap budgets;    /* budget id \0 session -> double count */
    tg_smap session;    /* session \0 principal \0 tool \0 definition digest -> nothing */
    tg_smap approvals;  /* id -> tg_approval */
    tg_smap used;       /* token nonce -> nothing, until the token's expiry */
    uint64_t counter;   /* approval ids without host nonce */
} tg_pstate;

typedef struct tg_plimits {
    size_t approvals, used_tokens, rate_buckets, budget_entries, session_rules;
    size_t approvals_per_principal; /* unanswered ones: one principal cannot fill the table for all */
} tg_plimits;

struct tg_policy {
    tg_allocator alloc;
    tg_arena arena;        /* the compiled document */
    tg_pstate *state;

    tg_patset defaults;     /* owner: index into default_list */
    const char **default_list;
    tg_rpatset privileged;
    tg_principal *principals;
    uint32_t n_principals;
    tg_patset principal_index;  /* literal, owner: principal index */
    int unknown_deny;
    tg_source_cfg *sources;
    uint32_t n_sources;
    tg_patset source_index;     /* literal */
    const char **tenant_names;
    uint32_t n_tenants;
    tg_rpatset tenant_tools;    /* owner: tenant index */
    tg_rpatset sched_blocked;
    int sched_auto_modes;
    tg_rule *rules;
    uint32_t n_rules;
    tg_patset rule_tools;       /* allow rules' patterns, exact (owner: rule index) */
    tg_rpatset rule_tools_fold; /* deny and ask rules' patterns, folded (owner: rule index) */
    tg_patset cond_tools;       /* the same two, of rules with argument conditions only */
    tg_rpatset cond_tools_fold; /* (tg_policy_reads_args: a few patterns, most policies none) */
    tg_patset arg_members;      /* the top-level argument each condition reads (its name, or its
                                 * pointer's first token), exact: tg_policy_reads_member */
    tg_rate_limit *rates;
    uint32_t n_rates;
    tg_rpatset rate_tools;      /* owner: rate index */
    tg_budget *budgets;
    uint32_t n_budgets;
    /* a decision's scratch for the limits that match a tool (one of each
     * per limit: every matching bucket is checked and charged, none dropped) */
    uint32_t *rate_hits, *budget_hits;
    struct tg_sent **rate_ents, **budget_ents;
    /* a decision's marks: a rule or limit is judged, or collected, once a
     * decision however many of its patterns match (mark == the decision's
     * stamp; the rule's verdict beside it), with no allocation and no
     * look-up cost: one slot each, stamped anew by every decision */
    uint32_t *rule_mark, *rate_mark, *budget_mark;
    uint8_t *rule_verdict;
    uint32_t stamp;
    tg_rpatset budget_tools;    /* owner: budget index */
    tg_plimits limits;
    int uses_args;              /* some rule has argument conditions */
};

tg_pstate *tg_pstate_new(const tg_allocator *a, const tg_plimits *lim);
void tg_pstate_free(const tg_allocator *a, tg_pstate *s);

/* Joins parts with NUL separators into buf (cap bytes); returns the length
 * or 0 when it does not fit. */
size_t tg_state_key(char *buf, size_t cap, const char *const *parts, int n);

typedef struct tg_bucket {
    double tokens, last_ms;
} tg_bucket;

/* Forgets the approvals (pending or approved, not yet used) of a session
 * (policy_approval.c): an ended session's calls are not run later. */
void tg_approvals_end_session(tg_policy *p, const char *session, double now_ms);

/* Session rules (policy_state.c): bound to the tool's name and the digest
 * of the definition approved (NULL: ""), so a redefined tool asks again. */
int tg_session_rule_add(tg_policy *p, const char *session, const char *principal, const char *tool, size_t tool_len,
                        const char *digest, double now);
int tg_session_rule_has(const tg_policy *p, const char *session, const char *principal, const char *tool,
                        size_t tool_len, const char *digest);

/* Tool names a decision accepts: 1-128 bytes of [A-Za-z0-9_.-]. */
int tg_policy_name_ok(const char *name, size_t len);

#endif
