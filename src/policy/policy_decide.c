/* policy_decide.c - one decision, top to bottom: name, grants, tenant,
 * scheduler, plan, rules, session rules, mode, limits. The same function
 * answers tool listing (visibility) with argument conditions assumed to
 * go the permissive way for allow/ask rules and rate state ignored. */
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "policy_internal.h"
#include "../base/str.h"

enum { C_NOMATCH = 0, C_MATCH = 1, C_UNDECIDABLE = 2 };

typedef struct dctx {
    tg_policy *p;
    const tg_tool_facts *t;
    const tg_authz_request *r;
    tg_authz_result *res;
    tg_buf *ex;
    int visibility;
    int mode;
    int nsteps;
    const char *pname;        /* principal name or "" */
    const tg_principal *pr;   /* NULL: unknown */
    tg_arena scratch;         /* this decision's scratch (equality of large objects, the sets below); freed at its end */
    size_t ex_room;           /* the trace stops listing rules considered past this length (0: no cap) */
    uint32_t ex_omitted;      /* rules considered left out of the trace */
    int name_hashed;          /* name_h is made (name_hashes) */
    /* (last, and left out of dctx_init's clearing: set_key sets them) */
    tg_rkey key;              /* the tool's name folded both ways: what restricting patterns match */
    uint64_t name_h[129];     /* the tool's name's tg_prefix_hashes (a checked name: at most 128 bytes) */
} dctx;

/* Clears d up to its key and hashes (3 KiB that set_key fills as needed). */
static void dctx_clear(dctx *d) { memset(d, 0, offsetof(dctx, key)); }

/* d->key: the tool's name folded as restricting patterns are (a checked
 * name: at most 128 bytes) */
static void set_key(dctx *d) {
    if (d->t->fold_chars && d->t->fold_pairs) tg_rkey_use(&d->key, d->t->fold_chars, d->t->fold_pairs);
    else tg_rkey_set(&d->key, d->t->name, d->t->name_len);
    d->name_hashed = 0;
}

/* The tool's name's prefix hashes, made on first use (after set_key). */
static const uint64_t *name_hashes(dctx *d) {
    if (!d->name_hashed) {
        tg_prefix_hashes(d->t->name, d->t->name_len, d->name_h);
        d->name_hashed = 1;
    }
    return d->name_h;
}

/* A new stamp for a decision's marks (tg_policy.stamp): when the counter
 * wraps, every mark is cleared so no old one can equal it. */
static uint32_t next_stamp(tg_policy *p) {
    if (++p->stamp == 0) {
        if (p->rule_mark) memset(p->rule_mark, 0, (p->n_rules ? p->n_rules : 1) * sizeof *p->rule_mark);
        if (p->rate_mark) memset(p->rate_mark, 0, (p->n_rates ? p->n_rates : 1) * sizeof *p->rate_mark);
        if (p->budget_mark) memset(p->budget_mark, 0, (p->n_budgets ? p->n_budgets : 1) * sizeof *p->budget_mark);
        p->stamp = 1;
    }
    return p->stamp;
}

static void ex_str(tg_buf *b, const char *s) {
    if (s) tg_json_write_string(b, s, strlen(s));
    else tg_buf_puts(b, "null");
}

static void ex_strn(tg_buf *b, const char *s, size_t n) { tg_json_write_string(b, s, n); }

/* Opens a step object: {"step":name,"outcome":outcome  (caller closes with '}'). */
static void step(dctx *d, const char *name, const char *outcome) {
    if (!d->ex) return;
    if (d->nsteps++) tg_buf_putc(d->ex, ',');
    tg_buf_puts(d->ex, "{\"step\":");
    ex_str(d->ex, name);
    tg_buf_puts(d->ex, ",\"outcome\":");
    ex_str(d->ex, outcome);
}

static void step_simple(dctx *d, const char *name, const char *outcome, const char *detail) {
    if (!d->ex) return;
    step(d, name, outcome);
    if (detail) {
        tg_buf_puts(d->ex, ",\"detail\":");
        ex_str(d->ex, detail);
    }
    tg_buf_putc(d->ex, '}');
}

/* Bounded string building without printf (decisions are on the hot path). */
typedef struct sb {
    char *d;
    size_t cap, len;
} sb;

static void sb_init(sb *b, char *d, size_t cap) {
    b->d = d;
    b->cap = cap;
    b->len = 0;
    d[0] = '\0';
}

static void sb_putn(sb *b, const char *s, size_t n) {
    size_t room = b->cap - 1 - b->len;
    if (n > room) n = room;
    memcpy(b->d + b->len, s, n);
    b->len += n;
    b->d[b->len] = '\0';
}

static void sb_put(sb *b, const char *s) { sb_putn(b, s, strlen(s)); }

static tg_decision finish(dctx *d, tg_decision dec, const char *rule, const char *reason) {
    d->res->decision = dec;
    if (rule != d->res->rule) tg_strcopy(d->res->rule, sizeof d->res->rule, rule);
    if (reason != d->res->reason) tg_strcopy(d->res->reason, sizeof d->res->reason, reason);
    return dec;
}

/* ---- argument conditions ---- */

static const cJSON *arg_value(const cJSON *args, const char *name, size_t len) {
    if (!args || !cJSON_IsObject(args)) return NULL;
    if (name[0] != '/') return tg_json_get(args, name, len);
    const cJSON *cur = args;
    size_t i = 0;
    while (i < len) {
        char tok[256];
        long got = tg_pointer_token(name, len, &i, tok);
        if (got < 0) return NULL;
        size_t tl = (size_t)got;
        if (cJSON_IsObject(cur)) {
            cur = tg_json_get(cur, tok, tl);
        } else if (cJSON_IsArray(cur)) {
            if (tl == 0 || tl > 9 || (tl > 1 && tok[0] == '0')) return NULL;
            int idx = 0;
            for (size_t k = 0; k < tl; k++) {
                if (tok[k] < '0' || tok[k] > '9') return NULL;
                idx = idx * 10 + (tok[k] - '0');
            }
            cur = cJSON_GetArrayItem(cur, idx);
        } else {
            return NULL;
        }
        if (!cur) return NULL;
    }
    return cur;
}


/* How many dots a segment s[0..n) is when a resolver reads it as "." (1)
 * or ".." (2), else 0. In a URL "%2e" is a dot too, whatever its scheme:
 * the parser resolves "https://h/a/%2e%2e/x" to "https://h/x", and
 * "s3://b/a/%2e%2e/x" to "s3://b/x". */
static int dot_segment(const char *s, size_t n, int url) {
    int dots = 0;
    for (size_t i = 0; i < n; dots++) {
        if (s[i] == '.') i++;
        else if (url && n - i >= 3 && s[i] == '%' && s[i + 1] == '2' && (s[i + 2] | 0x20) == 'e') i += 3;
        else return 0;
    }
    return dots <= 2 ? dots : 0;
}

/* Why s[0..n) has a path segment that a file system or a URL resolver may
 * fold away, so a byte prefix cannot judge it: "..", ".", or an empty one
 * (two separators in a row: "/srv//secrets" is "/srv/secrets" to POSIX)
 * — past the host of a URL (url_path, from tg_url_check, for a special
 * scheme; past the "//" of another scheme, "ssh://"; a scheme of one
 * letter is a drive letter, "C://x" a path) — or, outside a URL, one
 * ending in '.' or ' ' ("C:\\Windows.\\x" is "C:\\Windows\\x" to Windows).
 * Separators '/' and '\\'. NULL when there is none. */
static const char *foldable_segment(const char *s, size_t n, size_t url_path) {
    size_t i = url_path, k = 0;
    if (!url_path && n && ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z')) { /* scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
        while (k < n && (((s[k] | 0x20) >= 'a' && (s[k] | 0x20) <= 'z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '+' ||
                         s[k] == '-' || s[k] == '.'))
            k++;
        /* a one-letter "scheme" is a drive letter: Windows reads "C://Windows./x"
         * as C:\\Windows\\x, so it stays a path (no URL scheme in use is
         * one letter, though RFC 3986 would allow it) */
        if (k >= 2 && k + 2 < n && s[k] == ':' && s[k + 1] == '/' && s[k + 2] == '/') i = k + 3;
    }
    const size_t start = i;
    while (i <= n) {
        size_t j = i;
        while (j < n && !tg_path_sep(s[j])) j++;
        int dots = dot_segment(s + i, j - i, start > 0); /* (past a scheme's "//": a URL) */
        if (dots == 2) return "argument has a '..' path segment";
        if (dots == 1) return "argument has a '.' path segment";
        if (j == i && i > start && i < n && tg_path_sep(s[i - 1])) return "argument has an empty path segment (two separators in a row)";
        if (j > i && (s[j - 1] == '.' || s[j - 1] == ' ') && start == 0) /* (not in a URL: "example.com." is a name) */
            return "argument has a path segment ending in '.' or ' ' (Windows drops them)";
        i = j + 1;
    }
    return NULL;
}

static const char *op_name(int op) {
    switch (op) {
    case TG_OP_EQUALS: return "equals";
    case TG_OP_ONE_OF: return "one_of";
    case TG_OP_PREFIX: return "prefix";
    default: return "suffix";
    }
}

/* A byte as a restricting rule compares it: ASCII case folded (a
 * case-insensitive file system reads "/SRV/" as "/srv/"), and '\\' as '/'
 * (Windows reads either as a separator, and a URL parser reads "https:\\\\h\\x"
 * as "https://h/x"). */
static unsigned char fold_byte(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return (unsigned char)(c + 32);
    return c == '\\' ? '/' : c;
}

/* s[0..n) equals t[0..n), up to fold_byte when fold */
static int same_bytes(const char *s, const char *t, size_t n, int fold) {
    if (!fold) return memcmp(s, t, n) == 0;
    for (size_t i = 0; i < n; i++)
        if (fold_byte((unsigned char)s[i]) != fold_byte((unsigned char)t[i])) return 0;
    return 1;
}

/* The n + 1 bytes of s[0..n) with a '/' put in at `at` (a URL with no
 * path, as the parser reads it: "https://h" is "https://h/"), from byte
 * `from` on, equal t[0..m) up to fold_byte. */
static int same_with_slash(const char *s, size_t at, size_t from, const char *t, size_t m) {
    for (size_t i = 0; i < m; i++) {
        size_t v = from + i;
        unsigned char c = (unsigned char)(v < at ? s[v] : v == at ? '/' : s[v - 1]);
        if (fold_byte(c) != fold_byte((unsigned char)t[i])) return 0;
    }
    return 1;
}

/* JSON equality. Numbers: a handler reads the argument as a double
 * (JSON.parse), so 100.00000000000000001 reaches it as 100. A restricting
 * rule matches when the exact decimal values are equal or the doubles are
 * (either reading restricts), inside arrays and objects too; an allow rule
 * only when the exact values are (which implies equal doubles), so neither
 * reading can let a call through that the other would stop. */
static int cond_equal(const cJSON *v, const cJSON *want, int restricting, tg_arena *scratch) {
    /* with scratch, objects of many members are compared sorted (n log n)
     * instead of member by member (n^2: the arguments are the model's) */
    return tg_json_equal_in(v, want, scratch, restricting);
}

/* fold: the rule restricts (deny, ask): prefix and suffix match up to ASCII
 * case and '\\' as '/' (fold_byte), and numbers match as doubles too
 * (cond_equal) */
static int eval_cond(const tg_cond *c, const cJSON *args, int fold, const char **why, tg_arena *scratch) {
    const cJSON *v = arg_value(args, c->arg, c->arg_len);
    *why = NULL;
    if (!v) {
        *why = "argument absent";
        return C_NOMATCH;
    }
    switch (c->op) {
    case TG_OP_EQUALS: return cond_equal(v, c->value, fold, scratch) ? C_MATCH : C_NOMATCH;
    case TG_OP_ONE_OF:
        for (const cJSON *e = c->value->child; e; e = e->next)
            if (cond_equal(v, e, fold, scratch)) return C_MATCH;
        return C_NOMATCH;
    default: break;
    }
    if (!cJSON_IsString(v)) {
        *why = "argument is not a string";
        return C_UNDECIDABLE;
    }
    size_t n = tg_json_strlen(v->valuestring);
    const char *s = v->valuestring;
    if (memchr(s, '\0', n)) {
        *why = "argument contains U+0000";
        return C_UNDECIDABLE;
    }
    /* a URL of a special scheme spelled otherwise than its parser writes
     * it back ("https:///h", "http://2852039166/") is undecidable, as is a
     * path segment a resolver folds away */
    tg_url_form url;
    if ((*why = tg_url_check(s, n, &url)) != NULL) return C_UNDECIDABLE;
    /* a byte the parser writes back percent-encoded ("/private notes/",
     * "/café/"): a prefix with no '%' matches the text as given exactly
     * when it matches it as written back (an encoding starts with '%'); a
     * prefix with one, or a suffix (which may end inside an encoding's hex
     * digits), cannot tell */
    if (url.raw && (c->op == TG_OP_SUFFIX || (c->str_len && memchr(c->str, '%', c->str_len)))) {
        *why = "argument is a URL with a byte a URL parser writes percent-encoded (a space, a quote, a non-ASCII character)";
        return C_UNDECIDABLE;
    }
    /* a restricting rule also matches the URL as its parser reads one with
     * no path: "https://h?q" as "https://h/?q" (either reading restricts) */
    int slash = fold && url.bare;
    if (c->op == TG_OP_PREFIX) {
        if ((*why = foldable_segment(s, n, url.path)) != NULL) return C_UNDECIDABLE;
        if (n >= c->str_len && same_bytes(s, c->str, c->str_len, fold)) return C_MATCH;
        return slash && n + 1 >= c->str_len && same_with_slash(s, url.path, 0, c->str, c->str_len) ? C_MATCH : C_NOMATCH;
    }
    /* suffix: a path may end in what resolvers drop ("/.env/", "/.env/.")
     * or hold folded segments: undecidable as for prefix */
    if (n && tg_path_sep(s[n - 1]) && !(c->str_len && tg_path_sep(c->str[c->str_len - 1]))) {
        *why = "argument ends in a path separator";
        return C_UNDECIDABLE;
    }
    if ((*why = foldable_segment(s, n, url.path)) != NULL) return C_UNDECIDABLE;
    if (n >= c->str_len && same_bytes(s + n - c->str_len, c->str, c->str_len, fold)) return C_MATCH;
    return slash && n + 1 >= c->str_len && same_with_slash(s, url.path, n + 1 - c->str_len, c->str, c->str_len) ? C_MATCH
                                                                                                              : C_NOMATCH;
}

static const char *cond_result_name(int r) {
    return r == C_MATCH ? "match" : r == C_NOMATCH ? "no_match" : "undecidable";
}

/* ---- rules ---- */

typedef struct rule_scan {
    dctx *d;
    uint32_t best[3];
    int cond_ask_possible;
    int nconsidered;
    uint32_t stamp;     /* this decision's (tg_policy.rule_mark: the rules judged) */
} rule_scan;

static int list_has(const tg_strlist *l, const char *s) {
    if (!s) return 0;
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->s[i], s) == 0) return 1;
    return 0;
}

static int principal_in(const tg_strlist *l, const char *name) {
    size_t n = strlen(name);
    for (uint32_t i = 0; i < l->n; i++)
        if (tg_glob_match(l->s[i], strlen(l->s[i]), name, n)) return 1;
    return 0;
}

static const char *rule_filter(const dctx *d, const tg_rule *rule) {
    if (rule->principals.n && !principal_in(&rule->principals, d->pname)) return "principal not listed";
    if (rule->sources.n && !list_has(&rule->sources, d->r->source)) return "source not listed";
    if (rule->tenants.n && !list_has(&rule->tenants, d->r->tenant)) return "tenant not listed";
    if (rule->modes && !(rule->modes & (1u << d->mode))) return "mode not listed";
    return NULL;
}

/* One matching pattern of a rule. A rule is judged (filters, conditions)
 * once per decision however many of its patterns match: its other
 * patterns reuse the verdict. The rule reported is the first in document
 * order among those of the winning effect, with or without a trace: a rule
 * that cannot change that (a later one of an effect already found, or
 * anything but deny once a deny matched) is not judged at all. */
static int rule_cb(void *ud, const tg_pat *pat) {
    rule_scan *s = ud;
    dctx *d = s->d;
    const tg_rule *rule = &d->p->rules[pat->owner];
    tg_buf *ex = d->ex;
    if (!ex && (pat->owner >= s->best[rule->effect] || (s->best[TG_DENY] != TG_NONE && rule->effect != TG_DENY)))
        return 0;
    if (ex && d->ex_room && ex->len > d->ex_room) ex = NULL, d->ex_omitted++; /* (the cap: judged, not listed) */
    int prior = d->p->rule_mark[pat->owner] == s->stamp ? d->p->rule_verdict[pat->owner] : -1;
    if (ex) {
        if (s->nconsidered++) tg_buf_putc(ex, ',');
        tg_buf_puts(ex, "{\"rule\":");
        ex_str(ex, rule->id);
        tg_buf_puts(ex, ",\"effect\":");
        ex_str(ex, tg_decision_name(rule->effect));
        tg_buf_puts(ex, ",\"pattern\":");
        ex_strn(ex, pat->s, pat->len);
        if (prior >= 0) tg_buf_puts(ex, prior ? ",\"judged\":\"above\",\"matched\":true}" : ",\"judged\":\"above\",\"matched\":false}");
    }
    if (prior >= 0) return 0; /* (judged at an earlier pattern: the same verdict) */
    const char *skip = rule_filter(d, rule);
    int matched = 0;
    if (skip) {
        if (ex) {
            tg_buf_puts(ex, ",\"applies\":false,\"why\":");
            ex_str(ex, skip);
        }
    } else if (rule->n_conds == 0) {
        matched = 1;
    } else if (d->visibility) {
        /* could match: allow counts; deny cannot be assumed; ask only when
         * nothing else would let the call through */
        if (rule->effect == TG_ALLOW) matched = 1;
        else if (rule->effect == TG_ASK) s->cond_ask_possible = 1;
        if (ex) tg_buf_puts(ex, ",\"conditions\":\"not evaluated (listing)\"");
    } else {
        int all = C_MATCH;
        if (ex) tg_buf_puts(ex, ",\"conditions\":[");
        for (uint32_t i = 0; i < rule->n_conds; i++) {
            const char *why;
            int r = eval_cond(&rule->conds[i], d->r->args, rule->effect != TG_ALLOW, &why, &d->scratch);
            if (r == C_NOMATCH) all = C_NOMATCH;
            else if (r == C_UNDECIDABLE && all == C_MATCH) all = C_UNDECIDABLE;
            if (ex) {
                if (i) tg_buf_putc(ex, ',');
                tg_buf_puts(ex, "{\"arg\":");
                ex_strn(ex, rule->conds[i].arg, rule->conds[i].arg_len);
                tg_buf_puts(ex, ",\"op\":");
                ex_str(ex, op_name(rule->conds[i].op));
                tg_buf_puts(ex, ",\"result\":");
                ex_str(ex, cond_result_name(r));
                if (why) {
                    tg_buf_puts(ex, ",\"why\":");
                    ex_str(ex, why);
                }
                tg_buf_putc(ex, '}');
            }
        }
        if (ex) tg_buf_putc(ex, ']');
        /* fail closed: what cannot be judged matches deny and ask rules and
         * never matches an allow rule */
        matched = all == C_MATCH || (all == C_UNDECIDABLE && rule->effect != TG_ALLOW);
    }
    if (ex) {
        tg_buf_puts(ex, ",\"matched\":");
        tg_buf_puts(ex, matched ? "true" : "false");
        tg_buf_putc(ex, '}');
    }
    if (matched && pat->owner < s->best[rule->effect]) s->best[rule->effect] = pat->owner;
    d->p->rule_mark[pat->owner] = s->stamp;
    d->p->rule_verdict[pat->owner] = (uint8_t)matched;
    return 0;
}

static tg_decision decide_rules(dctx *d) {
    const tg_tool_facts *t = d->t;
    rule_scan s;
    memset(&s, 0, sizeof s);
    s.d = d;
    s.best[0] = s.best[1] = s.best[2] = TG_NONE;
    s.stamp = next_stamp(d->p);
    if (d->ex) {
        if (d->nsteps++) tg_buf_putc(d->ex, ',');
        tg_buf_puts(d->ex, "{\"step\":\"rules\",\"considered\":[");
    }
    /* deny and ask rules up to case, first: after a matched deny or ask no
     * allow rule can change the outcome, so the allow rules (exact names)
     * are read only when it can (or for a trace, which lists every rule
     * considered). Patterns are not visited in document order (exact ones
     * first, then globs by prefix length), so a matched deny does not end
     * the scan: an earlier deny may follow (rule_cb judges only those). */
    tg_rpatset_each(&d->p->rule_tools_fold, &d->key, rule_cb, &s);
    if (d->p->rule_tools.n && (d->ex || (s.best[TG_DENY] == TG_NONE && s.best[TG_ASK] == TG_NONE)))
        tg_patset_each_h(&d->p->rule_tools, t->name, t->name_len, name_hashes(d), rule_cb, &s);
    static const char *const eff[3] = {"allow", "ask", "deny"};
    char *rule = d->res->rule, *reason = d->res->reason;
    sb rb, sr;
    sb_init(&rb, rule, sizeof d->res->rule);
    sb_init(&sr, reason, sizeof d->res->reason);
    tg_decision dec;
    int e = s.best[TG_DENY] != TG_NONE ? TG_DENY : s.best[TG_ASK] != TG_NONE ? TG_ASK
                                                 : s.best[TG_ALLOW] != TG_NONE ? TG_ALLOW : -1;
    if (e >= 0) {
        const tg_rule *r = &d->p->rules[s.best[e]];
        sb_put(&rb, "rule:");
        sb_put(&rb, r->id);
        if (r->reason) {
            sb_put(&sr, r->reason);
        } else {
            sb_put(&sr, "rule '");
            sb_put(&sr, r->id);
            sb_put(&sr, "' says ");
            sb_put(&sr, eff[e]);
            sb_put(&sr, " for '");
            sb_putn(&sr, t->name, t->name_len);
            sb_put(&sr, "'");
        }
        dec = (tg_decision)e;
    } else if (s.cond_ask_possible) {
        sb_put(&rb, "rules");
        sb_put(&sr, "an ask rule with argument conditions may apply");
        dec = TG_ASK;
    } else {
        sb_put(&rb, "unmatched");
        sb_put(&sr, "no rule allows '");
        sb_putn(&sr, t->name, t->name_len);
        sb_put(&sr, "' (a tool no rule matches is denied)");
        dec = TG_DENY;
    }
    if (d->ex) {
        tg_buf_putc(d->ex, ']');
        if (d->ex_omitted) tg_buf_printf(d->ex, ",\"truncated\":true,\"omitted\":%u", (unsigned)d->ex_omitted);
        tg_buf_puts(d->ex, ",\"outcome\":");
        ex_str(d->ex, eff[dec]);
        tg_buf_puts(d->ex, ",\"rule\":");
        ex_str(d->ex, rule);
        tg_buf_putc(d->ex, '}');
    }
    return finish(d, dec, rule, reason);
}

/* ---- grants ---- */

typedef struct tenant_scan {
    const tg_policy *p;
    const char *want;
    int scoped, ok;
    const char *first;
} tenant_scan;

static int tenant_cb(void *ud, const tg_pat *pat) {
    tenant_scan *s = ud;
    const char *name = s->p->tenant_names[pat->owner];
    if (!s->scoped) s->first = name;
    s->scoped = 1;
    if (s->want && strcmp(s->want, name) == 0) s->ok = 1;
    return 0;
}

static int decide_grants(dctx *d) {
    tg_policy *p = d->p;
    const tg_tool_facts *t = d->t;
    char reason[320];
    int privileged = t->privileged || tg_rpatset_find(&p->privileged, &d->key) != NULL;
    const tg_source_cfg *src = NULL;
    if (d->r->source) {
        const tg_pat *sp = tg_patset_exact(&p->source_index, d->r->source, strlen(d->r->source));
        if (sp) src = &p->sources[sp->owner];
    }
    const char *via = NULL, *pattern = NULL, *set = NULL;
    if (src && src->full_set && (!privileged || src->privileged)) {
        set = "source";
        via = src->name;
    } else if (d->pr && d->pr->n_grants) {
        set = "principal";
        const char *from = NULL;
        const tg_pat *g = tg_principal_find(d->pr, t->name, t->name_len, privileged, &from);
        if (g) {
            via = from;
            pattern = g->s;
        } else if (privileged && (g = tg_principal_find(d->pr, t->name, t->name_len, 0, &from)) != NULL) {
            snprintf(reason, sizeof reason,
                     "'%.*s' is privileged: only an exact-name grant reaches it, and '%s' (%s) is a wildcard",
                     (int)t->name_len, t->name, g->s, from);
        } else {
            snprintf(reason, sizeof reason, "'%.*s' is not granted to principal '%s'", (int)t->name_len, t->name,
                     d->pname);
        }
    } else {
        set = "defaults";
        if (privileged) {
            snprintf(reason, sizeof reason, "'%.*s' is privileged and privileged tools are never in the default set",
                     (int)t->name_len, t->name);
        } else {
            const tg_pat *g = p->defaults.n ? tg_patset_find_h(&p->defaults, t->name, t->name_len, name_hashes(d)) : NULL;
            if (g) {
                via = "defaults";
                pattern = g->s;
            } else {
                snprintf(reason, sizeof reason, "'%.*s' is not in the default set (principal '%s' has no grants)",
                         (int)t->name_len, t->name, d->pname);
            }
        }
    }
    if (d->ex) {
        step(d, "grants", via ? "pass" : "deny");
        tg_buf_puts(d->ex, ",\"set\":");
        ex_str(d->ex, set);
        tg_buf_puts(d->ex, ",\"principal_known\":");
        tg_buf_puts(d->ex, d->pr ? "true" : "false");
        tg_buf_puts(d->ex, ",\"bundles\":[");
        for (uint32_t i = 0; d->pr && i < d->pr->bundles.n; i++) {
            if (i) tg_buf_putc(d->ex, ',');
            ex_str(d->ex, d->pr->bundles.s[i]);
        }
        tg_buf_puts(d->ex, "],\"privileged\":");
        tg_buf_puts(d->ex, privileged ? "true" : "false");
        tg_buf_puts(d->ex, ",\"granted_by\":");
        ex_str(d->ex, via);
        tg_buf_puts(d->ex, ",\"pattern\":");
        ex_str(d->ex, pattern);
        tg_buf_putc(d->ex, '}');
    }
    if (!via && src && src->full_set && privileged)
        snprintf(reason, sizeof reason,
                 "'%.*s' is privileged: the full set of source '%s' excludes privileged tools, and no exact-name "
                 "grant names it",
                 (int)t->name_len, t->name, src->name);
    if (!via) {
        finish(d, TG_DENY, privileged ? "privileged" : "grants", reason);
        return 0;
    }
    return 1;
}

/* ---- limits ---- */

typedef struct hits {
    uint32_t *idx;  /* room for every limit of the policy: each one matching is kept */
    int n;
    uint32_t *mark; /* the policy's marks of these limits: a limit with several matching patterns is kept once */
    uint32_t stamp;
} hits;

static int hits_cb(void *ud, const tg_pat *pat) {
    hits *h = ud;
    if (h->mark[pat->owner] == h->stamp) return 0;
    h->mark[pat->owner] = h->stamp;
    h->idx[h->n++] = pat->owner;
    return 0;
}

static double bucket_level(const tg_rate_limit *rl, const tg_bucket *b, double now) {
    if (!b) return rl->capacity;
    double el = now - b->last_ms;
    if (el < 0) el = 0;
    double lv = b->tokens + el * rl->per_ms;
    return lv > rl->capacity ? rl->capacity : lv;
}

/* A limit whose state table has no room for the call's entry: refused,
 * failing closed (rule "rate:<id>" or "budget:<id>"). 0, as decide_limits. */
static int state_full(dctx *d, char *rule, size_t n, const char *kind, const char *id) {
    snprintf(rule, n, "%s:%s", kind, id);
    finish(d, TG_DENY, rule,
           kind[0] == 'r' ? "rate-limit state is full (max_rate_buckets); failing closed"
                          : "session-budget state is full (max_budget_entries); failing closed");
    step_simple(d, "limits", "deny", d->res->reason);
    return 0;
}

static int decide_limits(dctx *d) {
    tg_policy *p = d->p;
    const tg_tool_facts *t = d->t;
    const tg_authz_request *r = d->r;
    hits rh, bh;
    memset(&rh, 0, sizeof rh);
    memset(&bh, 0, sizeof bh);
    rh.idx = p->rate_hits;
    bh.idx = p->budget_hits;
    rh.mark = p->rate_mark;
    bh.mark = p->budget_mark;
    rh.stamp = bh.stamp = next_stamp(p);
    tg_rpatset_each(&p->rate_tools, &d->key, hits_cb, &rh);
    tg_rpatset_each(&p->budget_tools, &d->key, hits_cb, &bh);
    if (!rh.n && !bh.n) return 1;
    char tool[129]; /* (for people: the exact name) */
    memcpy(tool, t->name, t->name_len);
    tool[t->name_len] = '\0';
    char rule[160], reason[320];
    tg_sent **rent = p->rate_ents, **bent = p->budget_ents;
    char key[1024];
    int rnew = 0, bnew = 0; /* (dry run) entries the call would insert */
    /* look everything up (inserting unless dry_run), then check, then charge */
    for (int i = 0; i < rh.n; i++) {
        const tg_rate_limit *rl = &p->rates[rh.idx[i]];
        rent[i] = NULL;
        if (rl->principals.n && !principal_in(&rl->principals, d->pname)) {
            rh.idx[i] = TG_NONE;
            continue;
        }
        /* keyed by the folded name the patterns match (the pair fold, the
         * coarser of the two): a tool re-listed as "Send_Email",
         * "send-email" or "rernove_files" draws on the same bucket */
        const char *parts[3] = {rl->id, d->pname, d->key.pairs};
        size_t kl = tg_state_key(key, sizeof key, parts, 3);
        rent[i] = kl ? tg_smap_find(&p->state->rates, key, kl) : NULL;
        if (!rent[i] && r->dry_run) {
            /* a dry run answers what the call would get: refused when the
             * call could not insert the buckets it lacks */
            if (!kl || !tg_smap_room(&p->state->rates, (size_t)++rnew, r->now_ms)) {
                return state_full(d, rule, sizeof rule, "rate", rl->id);
            }
        } else if (!rent[i]) {
            /* a fresh bucket is full, so dropping it later loses nothing;
             * its expiry lies just after now so a sweep made by another
             * insert in this same decision cannot free it under us */
            rent[i] = kl ? tg_smap_insert(&p->state->rates, key, kl, sizeof(tg_bucket), r->now_ms + 1, r->now_ms)
                         : NULL;
            if (!rent[i]) {
                return state_full(d, rule, sizeof rule, "rate", rl->id);
            }
            tg_bucket *b = tg_sent_val(rent[i]);
            b->tokens = rl->capacity;
            b->last_ms = r->now_ms;
        }
    }
    for (int i = 0; i < bh.n; i++) {
        const tg_budget *bu = &p->budgets[bh.idx[i]];
        const char *parts[2] = {bu->id, r->session};
        size_t kl = tg_state_key(key, sizeof key, parts, 2);
        bent[i] = kl ? tg_smap_find(&p->state->budgets, key, kl) : NULL;
        if (!bent[i] && r->dry_run) {
            if (!kl || !tg_smap_room(&p->state->budgets, (size_t)++bnew, r->now_ms)) {
                return state_full(d, rule, sizeof rule, "budget", bu->id);
            }
        } else if (!bent[i]) {
            bent[i] = kl ? tg_smap_insert(&p->state->budgets, key, kl, sizeof(double), 1e300, r->now_ms) : NULL;
            if (!bent[i]) {
                return state_full(d, rule, sizeof rule, "budget", bu->id);
            }
        }
    }
    for (int i = 0; i < rh.n; i++) {
        if (rh.idx[i] == TG_NONE) continue;
        const tg_rate_limit *rl = &p->rates[rh.idx[i]];
        double lv = bucket_level(rl, rent[i] ? tg_sent_val(rent[i]) : NULL, r->now_ms);
        if (lv < 1.0) {
            snprintf(rule, sizeof rule, "rate:%s", rl->id);
            if (rl->per_ms > 0)
                snprintf(reason, sizeof reason, "rate limit '%s' exhausted for '%s' on '%s'; next call in %.0f ms",
                         rl->id, d->pname, tool, (1.0 - lv) / rl->per_ms);
            else
                snprintf(reason, sizeof reason, "rate limit '%s' exhausted for '%s' on '%s' (no refill)", rl->id,
                         d->pname, tool);
            finish(d, TG_DENY, rule, reason);
            step_simple(d, "limits", "deny", reason);
            return 0;
        }
    }
    for (int i = 0; i < bh.n; i++) {
        const tg_budget *bu = &p->budgets[bh.idx[i]];
        double used = bent[i] ? *(double *)tg_sent_val(bent[i]) : 0;
        if (used >= bu->max_calls) {
            snprintf(rule, sizeof rule, "budget:%s", bu->id);
            snprintf(reason, sizeof reason, "session budget '%s' used up (%.0f of %.0f calls)", bu->id, used,
                     bu->max_calls);
            finish(d, TG_DENY, rule, reason);
            step_simple(d, "limits", "deny", reason);
            return 0;
        }
    }
    if (!r->dry_run) {
        for (int i = 0; i < rh.n; i++) {
            if (rh.idx[i] == TG_NONE) continue;
            const tg_rate_limit *rl = &p->rates[rh.idx[i]];
            tg_bucket *b = tg_sent_val(rent[i]);
            b->tokens = bucket_level(rl, b, r->now_ms) - 1.0;
            if (r->now_ms > b->last_ms) b->last_ms = r->now_ms;
            rent[i]->expires = rl->per_ms > 0 ? b->last_ms + (rl->capacity - b->tokens) / rl->per_ms : 1e300;
        }
        for (int i = 0; i < bh.n; i++) *(double *)tg_sent_val(bent[i]) += 1;
    }
    step_simple(d, "limits", "pass", r->dry_run ? "checked, not charged (dry run)" : "charged");
    return 1;
}

/* ---- the pipeline ---- */

static int parse_mode(const char *m) {
    if (!m || strcmp(m, "default") == 0) return TG_MODE_DEFAULT;
    if (strcmp(m, "acceptEdits") == 0) return TG_MODE_ACCEPT_EDITS;
    if (strcmp(m, "bypassPermissions") == 0) return TG_MODE_BYPASS;
    if (strcmp(m, "plan") == 0) return TG_MODE_PLAN;
    return -1;
}

static tg_decision decide(dctx *d) {
    tg_policy *p = d->p;
    const tg_tool_facts *t = d->t;
    const tg_authz_request *r = d->r;
    char rule[160], reason[320];

    /* 1 name */
    if (!t) {
        step_simple(d, "name", "deny", "no registered tool of that name");
        return finish(d, TG_DENY, "unknown_tool", "no registered tool of that name");
    }
    if (!tg_policy_name_ok(t->name, t->name_len)) {
        step_simple(d, "name", "deny", "not 1-128 bytes of [A-Za-z0-9_.-]");
        return finish(d, TG_DENY, "invalid_name",
                      "tool names are matched on their registered bytes (1-128 of A-Z a-z 0-9 _ . -)");
    }
    set_key(d);
    /* limits, approvals and expiries run on the host's clock: a reading that
     * is not a finite time would turn them off (NaN compares false) */
    if (!isfinite(r->now_ms)) {
        step_simple(d, "clock", "deny", "the host clock gave no finite time");
        return finish(d, TG_DENY, "clock", "the host clock gave no finite time: limits and expiries cannot be judged");
    }
    d->mode = parse_mode(r->mode);
    if (d->mode < 0) {
        step_simple(d, "mode", "deny", "unknown mode");
        return finish(d, TG_DENY, "mode", "unknown permission mode (default, acceptEdits, bypassPermissions, plan)");
    }
    d->pname = r->principal ? r->principal : "";
    if (r->principal) {
        const tg_pat *pp = tg_patset_exact(&p->principal_index, r->principal, strlen(r->principal));
        if (pp) d->pr = &p->principals[pp->owner];
    }
    if (!d->pr && p->unknown_deny) {
        step_simple(d, "principal", "deny", "unknown principal");
        snprintf(reason, sizeof reason, "principal '%s' is not in the policy (unknown_principals: deny)", d->pname);
        return finish(d, TG_DENY, "principal", reason);
    }
    step_simple(d, "name", "pass", NULL);

    /* 2 grants */
    if (!decide_grants(d)) return d->res->decision;

    /* 3 tenant */
    tenant_scan ts = {p, r->tenant, 0, 0, NULL};
    tg_rpatset_each(&p->tenant_tools, &d->key, tenant_cb, &ts);
    if (t->tenant) {
        if (!r->tenant || strcmp(t->tenant, r->tenant) != 0) {
            snprintf(reason, sizeof reason, "'%.*s' belongs to tenant '%s', not to this context's tenant", (int)t->name_len,
                     t->name, t->tenant);
            step_simple(d, "tenant", "deny", reason);
            return finish(d, TG_DENY, "tenant", reason);
        }
    }
    if (ts.scoped && !ts.ok) {
        snprintf(reason, sizeof reason, "'%.*s' is scoped to tenant '%s' (policy /tenants), not to this context's tenant",
                 (int)t->name_len, t->name, ts.first);
        step_simple(d, "tenant", "deny", reason);
        return finish(d, TG_DENY, "tenant", reason);
    }
    step_simple(d, "tenant", "pass", ts.scoped || t->tenant ? "scoped, tenant matches" : "not scoped");

    /* 4 scheduler */
    if (r->scheduler) {
        const tg_pat *b = tg_rpatset_find(&p->sched_blocked, &d->key);
        if (b) {
            snprintf(reason, sizeof reason, "'%.*s' is blocked in scheduler sessions (pattern '%s')", (int)t->name_len,
                     t->name, b->s);
            step_simple(d, "scheduler", "deny", reason);
            return finish(d, TG_DENY, "scheduler", reason);
        }
        step_simple(d, "scheduler", "pass", "not in the blocked set");
    }

    /* 5 plan */
    if (d->mode == TG_MODE_PLAN) {
        if (!t->read_only) {
            step_simple(d, "plan", "deny", "not marked read-only by the host");
            snprintf(reason, sizeof reason, "plan mode allows only tools the host marked read-only; '%.*s' is not",
                     (int)t->name_len, t->name);
            return finish(d, TG_DENY, "plan", reason);
        }
        step_simple(d, "plan", "pass", "read-only");
    }

    /* 6 rules (+ the tool's own approval requirement) */
    tg_decision dec = decide_rules(d);
    if (dec == TG_DENY) return dec;
    if (dec == TG_ALLOW && t->needs_approval) {
        snprintf(reason, sizeof reason, "the host marks '%.*s' as needing approval", (int)t->name_len, t->name);
        step_simple(d, "tool", "ask", reason);
        dec = finish(d, TG_ASK, "tool:needs_approval", reason);
    }

    /* 7 session rules */
    if (dec == TG_ASK && r->session && tg_session_rule_has(p, r->session, d->pname, t->name, t->name_len, t->digest)) {
        snprintf(rule, sizeof rule, "session:%.*s", (int)t->name_len, t->name);
        snprintf(reason, sizeof reason, "approved for the rest of session '%s'", r->session);
        step_simple(d, "session", "allow", reason);
        dec = finish(d, TG_ALLOW, rule, reason);
    }

    /* 8 mode and scheduler */
    if (dec == TG_ASK) {
        int auto_ok = !r->scheduler || p->sched_auto_modes;
        if (auto_ok && d->mode == TG_MODE_ACCEPT_EDITS && t->edit) {
            step_simple(d, "mode", "allow", "acceptEdits: an edit tool that would ask");
            dec = finish(d, TG_ALLOW, "mode:acceptEdits", "acceptEdits mode allows edit tools that would ask");
        } else if (auto_ok && d->mode == TG_MODE_BYPASS) {
            step_simple(d, "mode", "allow", "bypassPermissions: nothing asks");
            dec = finish(d, TG_ALLOW, "mode:bypassPermissions", "bypassPermissions mode asks nothing");
        } else if (r->scheduler) {
            snprintf(reason, sizeof reason,
                     "no person is present to approve '%.*s' (in scheduler sessions every ask becomes deny)",
                     (int)t->name_len, t->name);
            step_simple(d, "scheduler", "deny", reason);
            return finish(d, TG_DENY, "scheduler:ask", reason);
        }
    }

    /* 9 limits */
    if (dec == TG_ALLOW && !d->visibility && !decide_limits(d)) return TG_DENY;
    return dec;
}

/* A decision's context (res NULL: into *local). */
static void dctx_init(dctx *d, tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req,
                      tg_authz_result *res, tg_authz_result *local) {
    dctx_clear(d);
    d->p = p;
    d->t = tool;
    d->r = req;
    d->res = res ? res : local;
    d->pname = req->principal ? req->principal : "";
    tg_arena_init(&d->scratch, p->alloc); /* (allocates nothing until used) */
}

/* What a trace keeps free for what follows the rules step (the later
 * steps, the decision: short texts) once the rules considered stop being
 * listed, so that a capped buffer still closes into one JSON object. */
enum { EX_TAIL_ROOM = 64 << 10 };

tg_decision tg_policy_authorize(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req,
                                tg_authz_result *res, tg_buf *explain) {
    tg_authz_result local;
    dctx d;
    dctx_init(&d, p, tool, req, res, &local);
    d.ex = explain;
    if (explain && explain->max)
        d.ex_room = explain->max > 2 * EX_TAIL_ROOM ? explain->max - EX_TAIL_ROOM : explain->max / 2;
    if (explain) {
        tg_buf_puts(explain, "{\"tool\":");
        if (tool && tool->name) ex_strn(explain, tool->name, tool->name_len);
        else tg_buf_puts(explain, "null");
        tg_buf_puts(explain, ",\"principal\":");
        ex_str(explain, req->principal);
        tg_buf_puts(explain, ",\"mode\":");
        ex_str(explain, req->mode ? req->mode : "default");
        tg_buf_puts(explain, req->scheduler ? ",\"scheduler\":true" : ",\"scheduler\":false");
        tg_buf_puts(explain, ",\"source\":");
        ex_str(explain, req->source);
        tg_buf_puts(explain, ",\"tenant\":");
        ex_str(explain, req->tenant);
        tg_buf_puts(explain, ",\"session\":");
        ex_str(explain, req->session);
        if (tool && tool->name) {
            tg_buf_printf(explain, ",\"facts\":{\"read_only\":%s,\"edit\":%s,\"privileged\":%s,\"needs_approval\":%s,\"tenant\":",
                          tool->read_only ? "true" : "false", tool->edit ? "true" : "false",
                          tool->privileged ? "true" : "false", tool->needs_approval ? "true" : "false");
            ex_str(explain, tool->tenant);
            tg_buf_puts(explain, ",\"source\":");
            ex_str(explain, tool->source);
            tg_buf_putc(explain, '}');
        }
        tg_buf_puts(explain, ",\"steps\":[");
    }
    tg_decision dec = decide(&d);
    if (explain) {
        tg_buf_puts(explain, "],\"decision\":");
        ex_str(explain, tg_decision_name(dec));
        tg_buf_puts(explain, ",\"rule\":");
        ex_str(explain, d.res->rule);
        tg_buf_puts(explain, ",\"reason\":");
        ex_str(explain, d.res->reason);
        tg_buf_putc(explain, '}');
    }
    tg_arena_free(&d.scratch);
    return dec;
}

int tg_policy_visible(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req) {
    tg_authz_result res;
    tg_authz_request r = *req;
    r.args = NULL;
    r.dry_run = 1;
    dctx d;
    dctx_clear(&d);
    d.p = p;
    d.t = tool;
    d.r = &r;
    d.res = &res;
    d.visibility = 1;
    tg_arena_init(&d.scratch, p->alloc);
    int vis = decide(&d) != TG_DENY;
    tg_arena_free(&d.scratch);
    return vis;
}

int tg_policy_uses_args(const tg_policy *p) { return p && p->uses_args; }

int tg_policy_reads_args(const tg_policy *p, const tg_tool_facts *tool) {
    if (!p || !p->uses_args) return 0;
    if (!tool || !tg_policy_name_ok(tool->name, tool->name_len)) return 1;
    /* the conditioned rules decide_rules would consider: deny and ask up
     * to look-alikes, allow exactly */
    if (tg_patset_any(&p->cond_tools, tool->name, tool->name_len)) return 1;
    if (!p->cond_tools_fold.chars.n) return 0;
    tg_rkey key;
    if (tool->fold_chars && tool->fold_pairs) tg_rkey_use(&key, tool->fold_chars, tool->fold_pairs);
    else tg_rkey_set(&key, tool->name, tool->name_len);
    return tg_patset_any(&p->cond_tools_fold.chars, key.chars, key.chars_len) ||
           tg_patset_any(&p->cond_tools_fold.pairs, key.pairs, key.pairs_len);
}

int tg_policy_reads_member(const tg_policy *p, const char *name, size_t len) {
    return p && tg_patset_exact(&p->arg_members, name, len) != NULL;
}

int tg_policy_has_limits(const tg_policy *p) { return p && (p->n_rates || p->n_budgets); }

tg_decision tg_policy_limits(tg_policy *p, const tg_tool_facts *tool, const tg_authz_request *req,
                             tg_authz_result *res) {
    tg_authz_result local;
    dctx d;
    dctx_init(&d, p, tool, req, res, &local);
    if (!tool || !tg_policy_name_ok(tool->name, tool->name_len))
        return finish(&d, TG_DENY, "invalid_name", "tool names are matched on their registered bytes");
    if (!isfinite(req->now_ms))
        return finish(&d, TG_DENY, "clock", "the host clock gave no finite time: limits and expiries cannot be judged");
    set_key(&d);
    int ok = decide_limits(&d);
    tg_arena_free(&d.scratch);
    if (!ok) return TG_DENY;
    return finish(&d, TG_ALLOW, "limits", req->dry_run ? "within the limits" : "within the limits; charged");
}
