/* policy_compile.c - a policy document checked (policy JSON Schema, then
 * structure and references) and compiled into indexed pattern sets. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "../schema/schema.h"

#define MAX_DIAG_LINES 32

typedef struct cc {
    tg_policy *p;
    tg_arena scratch;
    tg_buf *diag;
    size_t diag_start; /* diag->len before this document's lines */
    int errors;
    int oom;           /* out of memory: the one line said, nothing more */
} cc;

typedef struct pvec {
    tg_pat_in *v;
    uint32_t n, cap;
} pvec;

static void diag_line(cc *c, const char *ptr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void diag_line(cc *c, const char *ptr, const char *fmt, ...) {
    c->errors++;
    if (!c->diag || c->oom || c->errors > MAX_DIAG_LINES) return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tg_buf_puts(c->diag, ptr[0] ? ptr : "/");
    tg_buf_puts(c->diag, ": ");
    tg_buf_puts(c->diag, msg);
    tg_buf_putc(c->diag, '\n');
}

/* Running out of memory is one line, whatever else was found before or
 * after: every later step fails for the same reason, and none of it points
 * into the document. */
static void oom(cc *c) {
    c->errors++;
    if (c->oom) return;
    c->oom = 1;
    if (!c->diag) return;
    c->diag->len = c->diag_start;
    if (c->diag->data) c->diag->data[c->diag_start] = '\0';
    tg_buf_puts(c->diag, "/: out of memory (compiling this policy needs more memory than the runtime allows)\n");
}

/* JSON Pointer of base + "/" + key (escaped per RFC 6901), cut to fit. */
static void ptr_key(char *out, size_t cap, const char *base, const char *key, size_t klen) {
    size_t n = strlen(base);
    if (n >= cap) n = cap - 1;
    memmove(out, base, n);
    if (n + 1 < cap) out[n++] = '/';
    for (size_t i = 0; i < klen && n + 2 < cap; i++) {
        char ch = key[i];
        if (ch == '~') {
            out[n++] = '~';
            out[n++] = '0';
        } else if (ch == '/') {
            out[n++] = '~';
            out[n++] = '1';
        } else if (ch == '\0') {
            break;
        } else {
            out[n++] = ch;
        }
    }
    out[n] = '\0';
}

static void ptr_idx(char *out, size_t cap, const char *base, size_t i) {
    char k[32];
    int kl = snprintf(k, sizeof k, "%zu", i);
    ptr_key(out, cap, base, k, (size_t)kl);
}

static size_t keylen(const cJSON *item) { return tg_json_strlen(item->string); }

static int pvec_push(cc *c, pvec *v, const char *s, size_t len, uint32_t owner) {
    if (v->n == v->cap) {
        uint32_t ncap = v->cap ? v->cap * 2 : 16;
        tg_pat_in *nv = tg_arena_alloc(&c->scratch, ncap * sizeof *nv);
        if (!nv) {
            oom(c);
            return -1;
        }
        if (v->n) memcpy(nv, v->v, v->n * sizeof *nv);
        v->v = nv;
        v->cap = ncap;
    }
    v->v[v->n].s = s;
    v->v[v->n].len = len;
    v->v[v->n].owner = owner;
    v->n++;
    return 0;
}

static const char *keep(cc *c, const char *s, size_t len) {
    char *r = tg_arena_strndup(&c->p->arena, s, len);
    if (!r) oom(c);
    return r;
}

static const char *type_name(const cJSON *v) {
    if (cJSON_IsObject(v)) return "object";
    if (cJSON_IsArray(v)) return "array";
    if (cJSON_IsString(v)) return "string";
    if (cJSON_IsNumber(v)) return "number";
    if (cJSON_IsBool(v)) return "boolean";
    return "null";
}

static int expect_type(cc *c, const cJSON *v, int type, const char *ptr, const char *what) {
    if ((v->type & 0xff) == type || (type == cJSON_True && cJSON_IsBool(v))) return 1;
    diag_line(c, ptr, "must be %s, got %s", what, type_name(v));
    return 0;
}

/* Rejects keys outside allowed (NULL-terminated). */
static void only_keys(cc *c, const cJSON *obj, const char *ptr, const char *const *allowed) {
    for (const cJSON *k = obj->child; k; k = k->next) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (keylen(k) == strlen(allowed[i]) && memcmp(k->string, allowed[i], keylen(k)) == 0) ok = 1;
        if (!ok) {
            char p[512];
            ptr_key(p, sizeof p, ptr, k->string, keylen(k));
            diag_line(c, p, "unknown member (allowed: see docs/policy.schema.json)");
        }
    }
}

/* Names (principals, bundles, sources, tenants, ids): 1-128 bytes, no
 * control characters. */
static int name_ok(const char *s, size_t len) {
    if (len == 0 || len > 128) return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
    return 1;
}

static int tool_pattern_ok(const char *s, size_t len) {
    if (len == 0 || len > 256) return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '.' || ch == '-' || ch == '*'))
            return 0;
    }
    return 1;
}

static size_t stars(const char *s, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == '*';
    return k;
}

/* 1 when pattern s[0..len) (a tool_pattern_ok one, with no '.' if exact)
 * can match some model-visible tool name; else 0 with why in msg (cap
 * bytes) and the pattern shown in it. Those names are 1-64 bytes of
 * [A-Za-z0-9_-] starting with a letter or '_': the registry writes no
 * other (src/registry/names.c: a '_' goes before any other first
 * character, and a longer name is cut to 55 characters, '_' and 8 hex
 * digits of a hash), so a pattern spelled as the host or an upstream
 * spelled the tool can miss it. Only what the pattern's own characters
 * settle is judged, since '*' can stand for anything: those other than
 * '*' must fit in 64 bytes, and a first one that is not '*' must be able
 * to start a name. exact: matched as exact bytes (grants, bundles,
 * defaults, allow rules). Else the pattern restricts and matches folded
 * (build_restrictive_set): '0' and '1' start a name as 'o' and 'l', '-'
 * and '.' as '_', so only '2'-'9' cannot; and the pair fold (rn as m, vv
 * as w) can make a pattern match a shorter name, so its length is the
 * shorter of its two folds. whose follows the pattern in msg. */
static int can_match_a_name(const char *s, size_t len, int exact, const char *whose, char *msg, size_t cap) {
    size_t raw = len - stars(s, len), fixed = raw;
    if (!exact) {
        char pairs[257]; /* (patterns are at most 256 bytes) */
        size_t n = tg_name_fold(s, len, pairs, len, 1);
        if (n - stars(pairs, n) < fixed) fixed = n - stars(pairs, n);
    }
    /* a long pattern is shown by its start: the pointer says which it is */
    int shown = len > 80 ? 60 : (int)len;
    const char *more = len > 80 ? "..." : "";
    if (fixed > TG_NAME_MAX) {
        snprintf(msg, cap,
                 "\"%.*s%s\"%s can never match: %s %zu bytes, and model-visible tool names are at most %d (the "
                 "registry cuts a longer name to 55 characters, '_' and 8 hex digits of a hash: list the tools to "
                 "see the name it got)",
                 shown, s, more, whose, memchr(s, '*', len) ? "its characters other than '*' alone are" : "it is",
                 raw, TG_NAME_MAX);
        return 0;
    }
    char c0 = s[0];
    if (c0 == '*' || (c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_' ||
        (!exact && (c0 == '0' || c0 == '1' || c0 == '-' || c0 == '.')))
        return 1;
    int n = snprintf(msg, cap,
                     "\"%.*s%s\"%s can never match: model-visible tool names start with a letter or '_' (the "
                     "registry puts a '_' before any other first character)%s",
                     shown, s, more, whose, exact ? ", and grants, defaults and allow rules match exact bytes" : "");
    if (fixed < TG_NAME_MAX && !*more && n > 0 && (size_t)n < cap)
        snprintf(msg + n, cap - (size_t)n, "; write \"_%s\"", s);
    return 0;
}

/* An array of tool patterns; each kept in the policy arena and pushed to v
 * with owner. A pattern that could never match a model-visible tool name is
 * refused rather than left to do nothing (can_match_a_name): a deny, or a
 * limit, that holds nothing looks the same as one that holds. exact: the
 * patterns let calls through (grants, bundles, defaults, allow rules) and
 * match exact bytes, so one with a '.' could never match either: a
 * model-visible tool name never holds one (the registry maps '.' to '_').
 * (Restricting patterns fold '.' as '_', as the registry's collision key
 * does: tg_policy_fold.) whose: "" or what the patterns belong to, for the
 * diagnostics (" in rule \"x\""). Returns the count or -1. */
static long tool_patterns(cc *c, const cJSON *arr, const char *ptr, pvec *v, uint32_t owner, int min_items,
                          int exact, const char *whose) {
    if (!expect_type(c, arr, cJSON_Array, ptr, "an array of tool-name patterns")) return -1;
    long n = 0;
    int bad = 0;
    for (const cJSON *it = arr->child; it; it = it->next, n++) {
        char p[512];
        ptr_idx(p, sizeof p, ptr, (size_t)n);
        if (!cJSON_IsString(it)) {
            diag_line(c, p, "must be a string (a tool-name pattern), got %s", type_name(it));
            bad = 1;
            continue;
        }
        size_t len = tg_json_strlen(it->valuestring);
        if (!tool_pattern_ok(it->valuestring, len)) {
            diag_line(c, p,
                      "tool-name pattern must be 1-256 characters of A-Z a-z 0-9 _ . - and * (grants and allow "
                      "rules match exact bytes; what restricts matches up to ASCII case)");
            bad = 1;
            continue;
        }
        if (exact && memchr(it->valuestring, '.', len)) {
            char fixed[257];
            memcpy(fixed, it->valuestring, len);
            fixed[len] = '\0';
            for (size_t q = 0; q < len; q++)
                if (fixed[q] == '.') fixed[q] = '_';
            diag_line(c, p,
                      "\"%s\"%s can never match: model-visible tool names have no '.' (the registry maps it to "
                      "'_'), and grants, defaults and allow rules match exact bytes; write \"%s\"",
                      it->valuestring, whose, fixed);
            bad = 1;
            continue;
        }
        char why[640];
        if (!can_match_a_name(it->valuestring, len, exact, whose, why, sizeof why)) {
            diag_line(c, p, "%s", why);
            bad = 1;
            continue;
        }
        const char *s = keep(c, it->valuestring, len);
        if (!s) return -1;
        if (v && pvec_push(c, v, s, len, owner) != 0) return -1;
    }
    if (n < min_items) {
        diag_line(c, ptr, "must name at least %d pattern", min_items);
        return -1;
    }
    return bad ? -1 : n;
}

static int name_list(cc *c, const cJSON *arr, const char *ptr, tg_strlist *out, int min_items) {
    memset(out, 0, sizeof *out);
    if (!expect_type(c, arr, cJSON_Array, ptr, "an array of names")) return -1;
    uint32_t n = (uint32_t)cJSON_GetArraySize(arr);
    if ((int)n < min_items) {
        diag_line(c, ptr, "must not be empty");
        return -1;
    }
    out->s = tg_arena_calloc(&c->p->arena, n ? n : 1, sizeof *out->s);
    if (!out->s) {
        oom(c);
        return -1;
    }
    uint32_t i = 0;
    int bad = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        char p[512];
        ptr_idx(p, sizeof p, ptr, i);
        if (!cJSON_IsString(it) || !name_ok(it->valuestring, tg_json_strlen(it->valuestring))) {
            diag_line(c, p, "must be a name: a string of 1-128 bytes without control characters");
            bad = 1;
            continue;
        }
        out->s[out->n] = keep(c, it->valuestring, tg_json_strlen(it->valuestring));
        if (!out->s[out->n]) return -1;
        out->n++;
    }
    return bad ? -1 : 0;
}

static int get_bool(cc *c, const cJSON *obj, const char *key, const char *ptr, int *out) {
    const cJSON *v = tg_json_getz(obj, key);
    if (!v) return 0;
    char p[512];
    ptr_key(p, sizeof p, ptr, key, strlen(key));
    if (!expect_type(c, v, cJSON_True, p, "a boolean")) return -1;
    *out = cJSON_IsTrue(v);
    return 0;
}

static int get_number(cc *c, const cJSON *obj, const char *key, const char *ptr, double lo, double hi, int integer,
                      double *out) {
    const cJSON *v = tg_json_getz(obj, key);
    if (!v) return 0;
    char p[512];
    ptr_key(p, sizeof p, ptr, key, strlen(key));
    if (!expect_type(c, v, cJSON_Number, p, integer ? "an integer" : "a number")) return -1;
    if (integer && !tg_json_is_integer(v)) {
        diag_line(c, p, "must be an integer");
        return -1;
    }
    if (!(v->valuedouble >= lo && v->valuedouble <= hi)) {
        diag_line(c, p, "must be between %g and %g", lo, hi);
        return -1;
    }
    *out = v->valuedouble;
    return 1;
}

/* ---- bundles ---- */

typedef struct bundle {
    const char *name;
    pvec pats;
    tg_grantset *gs; /* compiled once (policy arena), shared by the principals given it */
} bundle;

typedef struct bundles {
    bundle *b;
    uint32_t n;
    tg_patset index; /* literal */
} bundles;

/* tg_patset_build, with running out of memory recorded. -1 on failure. */
static int build_set(cc *c, tg_arena *a, const tg_pat_in *v, uint32_t n, int literal, tg_patset *out) {
    if (tg_patset_build(a, v, n, literal, out) == 0) return 0;
    oom(c);
    return -1;
}

/* v[0..n) with each pattern pair-folded (rn as m, vv as w) into a copy in a. */
static tg_pat_in *pair_folded(cc *c, tg_arena *a, const tg_pat_in *v, uint32_t n) {
    tg_pat_in *w = tg_arena_calloc(&c->scratch, n ? n : 1, sizeof *w);
    if (!w) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        char *s = tg_arena_alloc(a, v[i].len + 1);
        if (!s) return NULL;
        w[i].s = s;
        w[i].len = tg_name_fold(v[i].s, v[i].len, s, v[i].len, 1);
        tg_dot_fold(s, w[i].len);
        w[i].owner = v[i].owner;
    }
    return w;
}

/* build_set for patterns that restrict (deny and ask rules, privileged,
 * scheduler.blocked, tenants, rate limits, budgets): they match tool names
 * up to case and look-alike characters, as the registry tells tools apart,
 * so a source naming its tool "Delete_Repo", "de1ete-repo", "deIete_repo"
 * or "rernove_repo" cannot dodge "mcp__*__delete_*" / "mcp__*__remove_*"
 * (tg_rpatset: the character fold or the pair fold). Patterns that let
 * calls through (grants, defaults, allow rules) stay exact bytes: doubt
 * moves a decision towards deny, never towards allow. The patterns are this
 * policy's own copies (keep): folded in place. */
static int build_restrictive_set(cc *c, tg_arena *a, tg_pat_in *v, uint32_t n, tg_rpatset *out) {
    tg_pat_in *pairs = pair_folded(c, a, v, n);
    if (!pairs) {
        oom(c);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) v[i].len = tg_policy_fold((char *)v[i].s, v[i].len);
    return build_set(c, a, v, n, 0, &out->chars) || build_set(c, a, pairs, n, 0, &out->pairs) ? -1 : 0;
}

/* The first token of a condition's argument as arg_value reads it (a name,
 * or a JSON Pointer's first token) into tok; its length, or -1 when
 * arg_value can never find it. */
static long first_token(const tg_cond *cd, char tok[256]) {
    if (cd->arg_len == 0 || cd->arg[0] != '/') {
        if (cd->arg_len > 256) return -1;
        memcpy(tok, cd->arg, cd->arg_len);
        return (long)cd->arg_len;
    }
    size_t i = 0;
    return tg_pointer_token(cd->arg, cd->arg_len, &i, tok);
}

/* p->arg_members: every top-level argument a condition reads. */
static int arg_members(cc *c) {
    tg_policy *p = c->p;
    pvec v = {0};
    for (uint32_t k = 0; k < p->n_rules; k++)
        for (uint32_t j = 0; j < p->rules[k].n_conds; j++) {
            char tok[256];
            long tl = first_token(&p->rules[k].conds[j], tok);
            if (tl < 0) continue;
            const char *s = keep(c, tok, (size_t)tl);
            if (!s || pvec_push(c, &v, s, (size_t)tl, k) != 0) return -1;
        }
    return build_set(c, &p->arena, v.v, v.n, 1, &p->arg_members) ? -1 : 0;
}

static int compile_bundles(cc *c, const cJSON *obj, const char *ptr, const char *kind, bundles *out) {
    memset(out, 0, sizeof *out);
    if (!obj) return 0;
    if (!expect_type(c, obj, cJSON_Object, ptr, "an object of named bundles")) return -1;
    uint32_t n = (uint32_t)cJSON_GetArraySize(obj);
    out->b = tg_arena_calloc(&c->scratch, n ? n : 1, sizeof *out->b);
    pvec idx = {0};
    if (!out->b) {
        oom(c);
        return -1;
    }
    for (const cJSON *k = obj->child; k; k = k->next) {
        char p[512];
        ptr_key(p, sizeof p, ptr, k->string, keylen(k));
        if (!name_ok(k->string, keylen(k))) {
            diag_line(c, p, "bundle name must be 1-128 bytes without control characters");
            continue;
        }
        bundle *b = &out->b[out->n];
        b->name = keep(c, k->string, keylen(k));
        if (!b->name) return -1;
        if (tool_patterns(c, k, p, &b->pats, 0, 0, 1, "") < 0) continue;
        char label[200];
        snprintf(label, sizeof label, "%s:%s", kind, b->name);
        b->gs = tg_arena_calloc(&c->p->arena, 1, sizeof *b->gs);
        if (!b->gs) {
            oom(c);
            return -1;
        }
        if (!(b->gs->from = keep(c, label, strlen(label)))) return -1;
        for (uint32_t j = 0; j < b->pats.n; j++) b->pats.v[j].owner = j;
        if (build_set(c, &c->p->arena, b->pats.v, b->pats.n, 0, &b->gs->set) != 0) return -1;
        if (pvec_push(c, &idx, b->name, keylen(k), out->n) != 0) return -1;
        out->n++;
    }
    if (build_set(c, &c->scratch, idx.v, idx.n, 1, &out->index)) return -1;
    return 0;
}

/* ---- principals ---- */

/* The bundles a principal names under key: their shared sets appended to
 * sets (and their patterns counted in *n_pats), their labels to labels. */
static int add_bundle_refs(cc *c, const cJSON *pobj, const char *key, const char *ptr, const bundles *bs,
                           const char *kind, const tg_grantset **sets, uint32_t *n_sets, uint32_t *n_pats,
                           tg_strlist *labels) {
    const cJSON *arr = tg_json_getz(pobj, key);
    if (!arr) return 0;
    char p[512];
    ptr_key(p, sizeof p, ptr, key, strlen(key));
    tg_strlist names;
    if (name_list(c, arr, p, &names, 0) != 0) return -1;
    for (uint32_t i = 0; i < names.n; i++) {
        const tg_pat *hit = tg_patset_exact(&bs->index, names.s[i], strlen(names.s[i]));
        if (!hit) {
            char pi[512];
            ptr_idx(pi, sizeof pi, p, i);
            diag_line(c, pi, "no %s bundle named \"%s\" (define it under /%ss)", kind, names.s[i], kind);
            continue;
        }
        const bundle *b = &bs->b[hit->owner];
        labels->s[labels->n++] = b->gs->from;
        sets[(*n_sets)++] = b->gs;
        *n_pats += b->pats.n;
    }
    return 0;
}

static int compile_principals(cc *c, const cJSON *obj, const bundles *skills, const bundles *projects) {
    tg_policy *p = c->p;
    if (!obj) return 0;
    if (!expect_type(c, obj, cJSON_Object, "/principals", "an object of principals")) return -1;
    uint32_t n = (uint32_t)cJSON_GetArraySize(obj);
    p->principals = tg_arena_calloc(&p->arena, n ? n : 1, sizeof *p->principals);
    pvec idx = {0};
    if (!p->principals) {
        oom(c);
        return -1;
    }
    static const char *const allowed[] = {"grants", "skills", "projects", NULL};
    for (const cJSON *k = obj->child; k; k = k->next) {
        char ptr[512];
        ptr_key(ptr, sizeof ptr, "/principals", k->string, keylen(k));
        if (!name_ok(k->string, keylen(k))) {
            diag_line(c, ptr, "principal name must be 1-128 bytes without control characters");
            continue;
        }
        if (!expect_type(c, k, cJSON_Object, ptr, "an object (grants, skills, projects)")) continue;
        only_keys(c, k, ptr, allowed);
        tg_principal *pr = &p->principals[p->n_principals];
        pr->name = keep(c, k->string, keylen(k));
        if (!pr->name) return -1;
        uint32_t nb = 0;
        const cJSON *sk = tg_json_getz(k, "skills"), *pj = tg_json_getz(k, "projects");
        nb = (uint32_t)((sk && cJSON_IsArray(sk) ? cJSON_GetArraySize(sk) : 0) +
                        (pj && cJSON_IsArray(pj) ? cJSON_GetArraySize(pj) : 0));
        pr->bundles.s = tg_arena_calloc(&p->arena, nb ? nb : 1, sizeof(char *));
        const tg_grantset **sets = tg_arena_calloc(&p->arena, nb + 1, sizeof *sets);
        if (!pr->bundles.s || !sets) {
            oom(c);
            return -1;
        }
        pr->sets = sets;
        const cJSON *g = tg_json_getz(k, "grants");
        if (g) {
            char gp[512];
            ptr_key(gp, sizeof gp, ptr, "grants", 6);
            pvec grants = {0};
            if (tool_patterns(c, g, gp, &grants, 0, 0, 1, "") >= 0 && grants.n) {
                tg_grantset *own = tg_arena_calloc(&p->arena, 1, sizeof *own);
                if (!own) {
                    oom(c);
                    return -1;
                }
                own->from = "grants";
                for (uint32_t i = 0; i < grants.n; i++) grants.v[i].owner = i;
                if (build_set(c, &p->arena, grants.v, grants.n, 0, &own->set) != 0) return -1;
                sets[pr->n_sets++] = own;
                pr->n_grants += grants.n;
            }
        }
        if (add_bundle_refs(c, k, "skills", ptr, skills, "skill", sets, &pr->n_sets, &pr->n_grants, &pr->bundles) != 0 ||
            add_bundle_refs(c, k, "projects", ptr, projects, "project", sets, &pr->n_sets, &pr->n_grants,
                            &pr->bundles) != 0)
            continue;
        if (pvec_push(c, &idx, pr->name, keylen(k), p->n_principals)) return -1;
        p->n_principals++;
    }
    if (build_set(c, &p->arena, idx.v, idx.n, 1, &p->principal_index)) return -1;
    return 0;
}

/* ---- rules ---- */

static int compile_condition(cc *c, const cJSON *arg, const char *ptr, tg_cond *out, uint32_t *n) {
    if (!expect_type(c, arg, cJSON_Object, ptr, "an object of conditions (equals, one_of, prefix, suffix)"))
        return -1;
    if (!arg->child) {
        diag_line(c, ptr, "must hold at least one condition (equals, one_of, prefix, suffix)");
        return -1;
    }
    size_t alen = keylen(arg);
    const char *aname = keep(c, arg->string, alen);
    if (!aname) return -1;
    if (memchr(arg->string, '\0', alen)) {
        diag_line(c, ptr, "argument name must not contain U+0000");
        return -1;
    }
    /* a JSON Pointer key the decision could not follow would read as
     * "argument absent" and never match: refused here, not at call time */
    if (alen && arg->string[0] == '/') {
        size_t seg = 0;
        for (size_t i = 1; i <= alen; i++) {
            if (i == alen || arg->string[i] == '/') {
                if (seg > 255) {
                    diag_line(c, ptr, "a JSON Pointer segment is longer than 255 bytes");
                    return -1;
                }
                seg = 0;
                continue;
            }
            if (arg->string[i] == '~') {
                if (i + 1 >= alen || (arg->string[i + 1] != '0' && arg->string[i + 1] != '1')) {
                    diag_line(c, ptr, "invalid JSON Pointer escape: \"~\" must be followed by 0 or 1 (RFC 6901)");
                    return -1;
                }
                i++;
            }
            seg++;
        }
    }
    for (const cJSON *k = arg->child; k; k = k->next) {
        char p[512];
        ptr_key(p, sizeof p, ptr, k->string, keylen(k));
        tg_cond *cd = &out[*n];
        memset(cd, 0, sizeof *cd);
        cd->arg = aname;
        cd->arg_len = alen;
        const char *key = k->string;
        size_t kl = keylen(k);
        if (kl == 6 && memcmp(key, "equals", 6) == 0) {
            cd->op = TG_OP_EQUALS;
            cd->value = tg_json_clone(&c->p->arena, k);
            if (!cd->value) {
                oom(c);
                return -1;
            }
        } else if (kl == 6 && memcmp(key, "one_of", 6) == 0) {
            if (!expect_type(c, k, cJSON_Array, p, "an array of values")) continue;
            if (!k->child) {
                diag_line(c, p, "must not be empty");
                continue;
            }
            cd->op = TG_OP_ONE_OF;
            cd->value = tg_json_clone(&c->p->arena, k);
            if (!cd->value) {
                oom(c);
                return -1;
            }
        } else if ((kl == 6 && memcmp(key, "prefix", 6) == 0) || (kl == 6 && memcmp(key, "suffix", 6) == 0)) {
            if (!expect_type(c, k, cJSON_String, p, "a string")) continue;
            size_t sl = tg_json_strlen(k->valuestring);
            if (sl == 0 || memchr(k->valuestring, '\0', sl)) {
                diag_line(c, p, "must be a non-empty string without U+0000");
                continue;
            }
            cd->op = key[0] == 'p' ? TG_OP_PREFIX : TG_OP_SUFFIX;
            cd->str = keep(c, k->valuestring, sl);
            cd->str_len = sl;
            if (!cd->str) return -1;
        } else {
            diag_line(c, p, "unknown condition (allowed: equals, one_of, prefix, suffix)");
            continue;
        }
        (*n)++;
    }
    return 0;
}

static const char *const mode_names[TG_MODE_COUNT] = {"default", "acceptEdits", "bypassPermissions", "plan"};

/* A required "tools" member: patterns owned by entry i, which diagnostics
 * name as `kind "id"` when it has an id of its own (id NULL: its pointer
 * says which it is). */
static void required_tools(cc *c, const cJSON *r, const char *ptr, pvec *tools, uint32_t i, int exact,
                           const char *kind, const char *id) {
    char p2[512], whose[200] = "";
    const cJSON *v = tg_json_getz(r, "tools");
    ptr_key(p2, sizeof p2, ptr, "tools", 5);
    if (id) snprintf(whose, sizeof whose, " in %s \"%s\"", kind, id);
    if (!v) diag_line(c, ptr, "missing required member \"tools\"");
    else tool_patterns(c, v, p2, tools, i, 1, exact, whose);
}

/* What rate limits and budgets (kind) share: a required "id" (a name, kept
 * in *id) and "tools". -1 out of memory. */
static int id_and_tools(cc *c, const cJSON *r, const char *ptr, uint32_t i, const char *kind, const char **id,
                        pvec *tools) {
    char p2[512];
    const cJSON *v = tg_json_getz(r, "id");
    if (!v || !cJSON_IsString(v) || !name_ok(v->valuestring, tg_json_strlen(v->valuestring))) {
        ptr_key(p2, sizeof p2, ptr, "id", 2);
        diag_line(c, v ? p2 : ptr, v ? "must be a name" : "missing required member \"id\"");
    } else if (!(*id = keep(c, v->valuestring, tg_json_strlen(v->valuestring)))) {
        return -1;
    }
    required_tools(c, r, ptr, tools, i, 0, kind, *id);
    return 0;
}

/* An array member at ptr (a list of what): *out gets one zeroed element of
 * `size` bytes per entry in the policy arena, *n their count. -1 on a wrong
 * type (reported) or out of memory. */
static int entries_of(cc *c, const cJSON *arr, const char *ptr, const char *what, size_t size, void **out,
                      uint32_t *n) {
    if (!expect_type(c, arr, cJSON_Array, ptr, what)) return -1;
    *n = (uint32_t)cJSON_GetArraySize(arr);
    *out = tg_arena_calloc(&c->p->arena, *n ? *n : 1, size);
    if (!*out) {
        oom(c);
        return -1;
    }
    return 0;
}

static int compile_rules(cc *c, const cJSON *arr) {
    tg_policy *p = c->p;
    uint32_t n;
    void *rules;
    pvec tools = {0}, ids = {0};
    if (!arr) return 0;
    if (entries_of(c, arr, "/rules", "an array of rules", sizeof *p->rules, &rules, &n)) return -1;
    p->rules = rules;
    static const char *const allowed[] = {"id",    "effect", "tools",  "principals", "sources",
                                          "tenants", "modes", "args",  "reason",     NULL};
    uint32_t i = 0;
    for (const cJSON *r = arr->child; r; r = r->next, i++) {
        char ptr[512], p2[512];
        ptr_idx(ptr, sizeof ptr, "/rules", i);
        tg_rule *rule = &p->rules[i];
        if (!expect_type(c, r, cJSON_Object, ptr, "a rule object")) continue;
        only_keys(c, r, ptr, allowed);
        const cJSON *v = tg_json_getz(r, "id");
        if (v) {
            ptr_key(p2, sizeof p2, ptr, "id", 2);
            if (!cJSON_IsString(v) || !name_ok(v->valuestring, tg_json_strlen(v->valuestring))) {
                diag_line(c, p2, "must be a name: a string of 1-128 bytes without control characters");
            } else {
                rule->id = keep(c, v->valuestring, tg_json_strlen(v->valuestring));
                if (!rule->id || pvec_push(c, &ids, rule->id, strlen(rule->id), i) != 0) return -1;
            }
        }
        const char *own_id = rule->id; /* (NULL: its default id is ptr) */
        if (!rule->id) {
            rule->id = keep(c, ptr, strlen(ptr));
            if (!rule->id) return -1;
        }
        v = tg_json_getz(r, "effect");
        ptr_key(p2, sizeof p2, ptr, "effect", 6);
        if (!v) diag_line(c, ptr, "missing required member \"effect\"");
        else if (tg_json_string_is(v, "allow")) rule->effect = TG_ALLOW;
        else if (tg_json_string_is(v, "ask")) rule->effect = TG_ASK;
        else if (tg_json_string_is(v, "deny")) rule->effect = TG_DENY;
        else diag_line(c, p2, "must be one of \"allow\", \"ask\", \"deny\"");
        required_tools(c, r, ptr, &tools, i, rule->effect == TG_ALLOW && v && cJSON_IsString(v), "rule", own_id);
        static const char *const lists[3] = {"principals", "sources", "tenants"};
        tg_strlist *dst[3] = {&rule->principals, &rule->sources, &rule->tenants};
        for (int l = 0; l < 3; l++) {
            v = tg_json_getz(r, lists[l]);
            if (!v) continue;
            ptr_key(p2, sizeof p2, ptr, lists[l], strlen(lists[l]));
            name_list(c, v, p2, dst[l], 1);
        }
        v = tg_json_getz(r, "modes");
        if (v) {
            ptr_key(p2, sizeof p2, ptr, "modes", 5);
            if (expect_type(c, v, cJSON_Array, p2, "an array of modes")) {
                if (!v->child) diag_line(c, p2, "must not be empty");
                uint32_t mi = 0;
                for (const cJSON *m = v->child; m; m = m->next, mi++) {
                    int found = -1;
                    for (int k = 0; k < TG_MODE_COUNT; k++)
                        if (cJSON_IsString(m) && strcmp(m->valuestring, mode_names[k]) == 0 &&
                            tg_json_strlen(m->valuestring) == strlen(mode_names[k]))
                            found = k;
                    char p3[512];
                    ptr_idx(p3, sizeof p3, p2, mi);
                    if (found < 0)
                        diag_line(c, p3, "must be one of \"default\", \"acceptEdits\", \"bypassPermissions\", \"plan\"");
                    else rule->modes |= 1u << found;
                }
            }
        }
        v = tg_json_getz(r, "args");
        if (v) {
            ptr_key(p2, sizeof p2, ptr, "args", 4);
            if (expect_type(c, v, cJSON_Object, p2, "an object: argument name -> conditions")) {
                if (!v->child) diag_line(c, p2, "must name at least one argument");
                uint32_t max = 0;
                for (const cJSON *a = v->child; a; a = a->next) max += (uint32_t)cJSON_GetArraySize(a) + 1;
                rule->conds = tg_arena_calloc(&p->arena, max ? max : 1, sizeof *rule->conds);
                if (!rule->conds) {
                    oom(c);
                    return -1;
                }
                for (const cJSON *a = v->child; a; a = a->next) {
                    char p3[512];
                    ptr_key(p3, sizeof p3, p2, a->string, keylen(a));
                    if (keylen(a) == 0) {
                        diag_line(c, p3, "argument name must not be empty");
                        continue;
                    }
                    compile_condition(c, a, p3, rule->conds, &rule->n_conds);
                }
            }
        }
        v = tg_json_getz(r, "reason");
        if (v) {
            ptr_key(p2, sizeof p2, ptr, "reason", 6);
            if (!cJSON_IsString(v) || tg_json_strlen(v->valuestring) > 300 ||
                memchr(v->valuestring, '\0', tg_json_strlen(v->valuestring)))
                diag_line(c, p2, "must be a string of at most 300 bytes");
            else if (!(rule->reason = keep(c, v->valuestring, tg_json_strlen(v->valuestring))))
                return -1;
        }
    }
    p->n_rules = n;
    p->rule_mark = tg_arena_calloc(&p->arena, n ? n : 1, sizeof *p->rule_mark);
    p->rule_verdict = tg_arena_calloc(&p->arena, n ? n : 1, 1);
    if (!p->rule_mark || !p->rule_verdict) {
        oom(c);
        return -1;
    }
    for (uint32_t k = 0; k < n; k++)
        if (p->rules[k].n_conds) p->uses_args = 1;
    if (p->uses_args && arg_members(c)) return -1;
    /* allow rules' patterns exact, deny and ask rules' folded (build_restrictive_set) */
    pvec lets = {0}, holds = {0}, cond_lets = {0}, cond_holds = {0};
    for (uint32_t k = 0; k < tools.n; k++) {
        const tg_rule *rule = &p->rules[tools.v[k].owner];
        pvec *to = rule->effect == TG_ALLOW ? &lets : &holds;
        if (pvec_push(c, to, tools.v[k].s, tools.v[k].len, tools.v[k].owner) != 0) return -1;
        if (!rule->n_conds) continue;
        /* (a copy: building a restrictive set folds its patterns in place) */
        const char *copy = keep(c, tools.v[k].s, tools.v[k].len);
        to = rule->effect == TG_ALLOW ? &cond_lets : &cond_holds;
        if (!copy || pvec_push(c, to, copy, tools.v[k].len, tools.v[k].owner) != 0) return -1;
    }
    if (build_set(c, &p->arena, lets.v, lets.n, 0, &p->rule_tools) ||
        build_restrictive_set(c, &p->arena, holds.v, holds.n, &p->rule_tools_fold) ||
        build_set(c, &p->arena, cond_lets.v, cond_lets.n, 0, &p->cond_tools) ||
        build_restrictive_set(c, &p->arena, cond_holds.v, cond_holds.n, &p->cond_tools_fold))
        return -1;
    /* duplicate ids make traces ambiguous */
    tg_patset idset;
    if (build_set(c, &c->scratch, ids.v, ids.n, 1, &idset)) return -1;
    for (uint32_t k = 0; k < ids.n; k++) {
        const tg_pat *first = tg_patset_exact(&idset, ids.v[k].s, ids.v[k].len);
        if (first && first->owner != ids.v[k].owner) {
            char ptr[512], p2[512];
            ptr_idx(ptr, sizeof ptr, "/rules", ids.v[k].owner);
            ptr_key(p2, sizeof p2, ptr, "id", 2);
            diag_line(c, p2, "duplicate rule id \"%s\" (also /rules/%u)", ids.v[k].s, first->owner);
        }
    }
    /* ... and so does an id equal to another rule's default id (its JSON
     * Pointer, "/rules/<n>"), when that rule has no id of its own */
    unsigned char *named = tg_arena_calloc(&c->scratch, n ? n : 1, 1);
    if (!named) {
        oom(c);
        return -1;
    }
    for (uint32_t k = 0; k < ids.n; k++) named[ids.v[k].owner] = 1;
    for (uint32_t k = 0; k < ids.n; k++) {
        const char *s = ids.v[k].s;
        size_t len = ids.v[k].len;
        if (len <= 7 || len > 17 || memcmp(s, "/rules/", 7) != 0 || (s[7] == '0' && len > 8)) continue;
        uint64_t j = 0;
        size_t q = 7;
        while (q < len && s[q] >= '0' && s[q] <= '9') j = j * 10 + (uint64_t)(s[q++] - '0');
        if (q != len || j >= n || j == ids.v[k].owner || named[j]) continue;
        char ptr[512], p2[512];
        ptr_idx(ptr, sizeof ptr, "/rules", ids.v[k].owner);
        ptr_key(p2, sizeof p2, ptr, "id", 2);
        diag_line(c, p2, "duplicate rule id \"%s\": it is the default id of /rules/%u, which has no id of its own "
                  "(give one of them another id)", s, (unsigned)j);
    }
    return 0;
}

/* ---- the rest ---- */

static int compile_named_patterns(cc *c, const cJSON *obj, const char *ptr, const char ***names, uint32_t *count,
                                  tg_rpatset *set) {
    if (!obj) return 0;
    if (!expect_type(c, obj, cJSON_Object, ptr, "an object: name -> tool-name patterns")) return -1;
    uint32_t n = (uint32_t)cJSON_GetArraySize(obj);
    *names = tg_arena_calloc(&c->p->arena, n ? n : 1, sizeof **names);
    pvec v = {0};
    if (!*names) {
        oom(c);
        return -1;
    }
    for (const cJSON *k = obj->child; k; k = k->next) {
        char p[512];
        ptr_key(p, sizeof p, ptr, k->string, keylen(k));
        if (!name_ok(k->string, keylen(k))) {
            diag_line(c, p, "name must be 1-128 bytes without control characters");
            continue;
        }
        (*names)[*count] = keep(c, k->string, keylen(k));
        if (!(*names)[*count]) return -1;
        tool_patterns(c, k, p, &v, *count, 0, 0, "");
        (*count)++;
    }
    if (build_restrictive_set(c, &c->p->arena, v.v, v.n, set)) return -1; /* (tenants) */
    return 0;
}

static int compile_sources(cc *c, const cJSON *obj) {
    tg_policy *p = c->p;
    if (!obj) return 0;
    if (!expect_type(c, obj, cJSON_Object, "/sources", "an object: source name -> settings")) return -1;
    uint32_t n = (uint32_t)cJSON_GetArraySize(obj);
    p->sources = tg_arena_calloc(&p->arena, n ? n : 1, sizeof *p->sources);
    pvec idx = {0};
    if (!p->sources) {
        oom(c);
        return -1;
    }
    static const char *const allowed[] = {"full_set", "privileged", NULL};
    for (const cJSON *k = obj->child; k; k = k->next) {
        char ptr[512];
        ptr_key(ptr, sizeof ptr, "/sources", k->string, keylen(k));
        if (!name_ok(k->string, keylen(k))) {
            diag_line(c, ptr, "source name must be 1-128 bytes without control characters");
            continue;
        }
        if (!expect_type(c, k, cJSON_Object, ptr, "an object (full_set, privileged)")) continue;
        only_keys(c, k, ptr, allowed);
        tg_source_cfg *s = &p->sources[p->n_sources];
        s->name = keep(c, k->string, keylen(k));
        if (!s->name) return -1;
        get_bool(c, k, "full_set", ptr, &s->full_set);
        get_bool(c, k, "privileged", ptr, &s->privileged);
        if (pvec_push(c, &idx, s->name, keylen(k), p->n_sources) != 0) return -1;
        p->n_sources++;
    }
    if (build_set(c, &p->arena, idx.v, idx.n, 1, &p->source_index)) return -1;
    return 0;
}

typedef struct named {
    const char *id;
    uint32_t i;
} named;

static int by_id(const void *a, const void *b) {
    const named *x = a, *y = b;
    int r = strcmp(x->id, y->id);
    return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* Two limits with one id would share one counter (and a tool matched by
 * both be charged twice): each id once. ids[k] is entry k's (NULL when its
 * own diagnostic was written). */
static int unique_ids(cc *c, const char *base, const char *const *ids, size_t stride, uint32_t n) {
    named *v = tg_arena_alloc(&c->scratch, (n ? n : 1) * sizeof *v);
    uint32_t m = 0;
    if (!v) return -1;
    for (uint32_t k = 0; k < n; k++) {
        const char *id = *(const char *const *)(const void *)((const char *)ids + k * stride);
        if (id) v[m++] = (named){id, k};
    }
    qsort(v, m, sizeof *v, by_id);
    for (uint32_t k = 1; k < m; k++)
        if (strcmp(v[k].id, v[k - 1].id) == 0) {
            char ptr[512];
            ptr_idx(ptr, sizeof ptr, base, v[k].i);
            diag_line(c, ptr, "duplicate id \"%s\" (also %s/%u)", v[k].id, base, v[k - 1].i);
        }
    return 0;
}

static int compile_rates(cc *c, const cJSON *arr) {
    tg_policy *p = c->p;
    uint32_t n;
    void *rates;
    pvec tools = {0};
    if (!arr) return 0;
    if (entries_of(c, arr, "/rate_limits", "an array of rate limits", sizeof *p->rates, &rates, &n)) return -1;
    p->rates = rates;
    static const char *const allowed[] = {"id", "tools", "principals", "capacity", "refill_per_second", NULL};
    uint32_t i = 0;
    for (const cJSON *r = arr->child; r; r = r->next, i++) {
        char ptr[512], p2[512];
        ptr_idx(ptr, sizeof ptr, "/rate_limits", i);
        if (!expect_type(c, r, cJSON_Object, ptr, "a rate limit object")) continue;
        only_keys(c, r, ptr, allowed);
        tg_rate_limit *rl = &p->rates[i];
        if (id_and_tools(c, r, ptr, i, "rate limit", &rl->id, &tools)) return -1;
        const cJSON *v = tg_json_getz(r, "principals");
        if (v) {
            ptr_key(p2, sizeof p2, ptr, "principals", 10);
            name_list(c, v, p2, &rl->principals, 1);
        }
        double per_s = 0;
        if (get_number(c, r, "capacity", ptr, 1, 1e9, 0, &rl->capacity) == 0)
            diag_line(c, ptr, "missing required member \"capacity\"");
        if (get_number(c, r, "refill_per_second", ptr, 0, 1e9, 0, &per_s) == 0)
            diag_line(c, ptr, "missing required member \"refill_per_second\"");
        rl->per_ms = per_s / 1000.0;
    }
    p->n_rates = n;
    if (unique_ids(c, "/rate_limits", &p->rates[0].id, sizeof *p->rates, n)) return -1;
    p->rate_hits = tg_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->rate_hits);
    p->rate_ents = tg_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->rate_ents);
    p->rate_mark = tg_arena_calloc(&p->arena, n ? n : 1, sizeof *p->rate_mark);
    if (!p->rate_hits || !p->rate_ents || !p->rate_mark) return -1;
    if (build_restrictive_set(c, &p->arena, tools.v, tools.n, &p->rate_tools)) return -1;
    return 0;
}

static int compile_budgets(cc *c, const cJSON *arr) {
    tg_policy *p = c->p;
    uint32_t n;
    void *budgets;
    pvec tools = {0};
    if (!arr) return 0;
    if (entries_of(c, arr, "/session_budgets", "an array of session budgets", sizeof *p->budgets, &budgets, &n))
        return -1;
    p->budgets = budgets;
    static const char *const allowed[] = {"id", "tools", "max_calls", NULL};
    uint32_t i = 0;
    for (const cJSON *r = arr->child; r; r = r->next, i++) {
        char ptr[512];
        ptr_idx(ptr, sizeof ptr, "/session_budgets", i);
        if (!expect_type(c, r, cJSON_Object, ptr, "a session budget object")) continue;
        only_keys(c, r, ptr, allowed);
        tg_budget *b = &p->budgets[i];
        if (id_and_tools(c, r, ptr, i, "session budget", &b->id, &tools)) return -1;
        if (get_number(c, r, "max_calls", ptr, 0, 1e9, 1, &b->max_calls) == 0)
            diag_line(c, ptr, "missing required member \"max_calls\"");
    }
    p->n_budgets = n;
    if (unique_ids(c, "/session_budgets", &p->budgets[0].id, sizeof *p->budgets, n)) return -1;
    p->budget_hits = tg_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->budget_hits);
    p->budget_ents = tg_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->budget_ents);
    p->budget_mark = tg_arena_calloc(&p->arena, n ? n : 1, sizeof *p->budget_mark);
    if (!p->budget_hits || !p->budget_ents || !p->budget_mark) return -1;
    if (build_restrictive_set(c, &p->arena, tools.v, tools.n, &p->budget_tools)) return -1;
    return 0;
}

/* Into set (exact bytes), or with set NULL into rset (restricting). */
static int compile_plain_patterns(cc *c, const cJSON *arr, const char *ptr, tg_patset *set, const char ***list,
                                  tg_rpatset *rset) {
    if (!arr) return 0;
    pvec v = {0};
    if (tool_patterns(c, arr, ptr, &v, 0, 0, set != NULL, "") < 0) return -1;
    for (uint32_t i = 0; i < v.n; i++) v.v[i].owner = i;
    if (list) {
        *list = tg_arena_calloc(&c->p->arena, v.n ? v.n : 1, sizeof **list);
        if (!*list) {
            oom(c);
            return -1;
        }
        for (uint32_t i = 0; i < v.n; i++) (*list)[i] = v.v[i].s;
    }
    return set ? build_set(c, &c->p->arena, v.v, v.n, 0, set) : build_restrictive_set(c, &c->p->arena, v.v, v.n, rset);
}

static void compile_doc(cc *c, const cJSON *doc) {
    tg_policy *p = c->p;
    if (!cJSON_IsObject(doc)) {
        diag_line(c, "", "a policy document must be an object, got %s", type_name(doc));
        return;
    }
    static const char *const allowed[] = {"version",    "description", "defaults",           "privileged",
                                          "skills",     "projects",    "principals",         "unknown_principals",
                                          "sources",    "tenants",     "scheduler",          "rules",
                                          "rate_limits", "session_budgets", "limits",        NULL};
    only_keys(c, doc, "", allowed);
    const cJSON *v = tg_json_getz(doc, "version");
    if (!v) diag_line(c, "", "missing required member \"version\" (1)");
    else if (!cJSON_IsNumber(v) || v->valuedouble != 1 || !tg_json_is_integer(v))
        diag_line(c, "/version", "must be 1");
    v = tg_json_getz(doc, "description");
    if (v && !cJSON_IsString(v)) diag_line(c, "/description", "must be a string");

    compile_plain_patterns(c, tg_json_getz(doc, "defaults"), "/defaults", &p->defaults, &p->default_list, NULL);
    compile_plain_patterns(c, tg_json_getz(doc, "privileged"), "/privileged", NULL, NULL, &p->privileged);

    bundles skills, projects;
    if (compile_bundles(c, tg_json_getz(doc, "skills"), "/skills", "skill", &skills) != 0) memset(&skills, 0, sizeof skills);
    if (compile_bundles(c, tg_json_getz(doc, "projects"), "/projects", "project", &projects) != 0)
        memset(&projects, 0, sizeof projects);
    compile_principals(c, tg_json_getz(doc, "principals"), &skills, &projects);

    v = tg_json_getz(doc, "unknown_principals");
    if (v) {
        if (tg_json_string_is(v, "deny")) p->unknown_deny = 1;
        else if (!tg_json_string_is(v, "default"))
            diag_line(c, "/unknown_principals", "must be \"default\" or \"deny\"");
    }
    compile_sources(c, tg_json_getz(doc, "sources"));
    compile_named_patterns(c, tg_json_getz(doc, "tenants"), "/tenants", &p->tenant_names, &p->n_tenants,
                           &p->tenant_tools);
    v = tg_json_getz(doc, "scheduler");
    if (v && expect_type(c, v, cJSON_Object, "/scheduler", "an object (blocked, auto_modes)")) {
        static const char *const sallowed[] = {"blocked", "auto_modes", NULL};
        only_keys(c, v, "/scheduler", sallowed);
        compile_plain_patterns(c, tg_json_getz(v, "blocked"), "/scheduler/blocked", NULL, NULL, &p->sched_blocked);
        get_bool(c, v, "auto_modes", "/scheduler", &p->sched_auto_modes);
    }
    compile_rules(c, tg_json_getz(doc, "rules"));
    compile_rates(c, tg_json_getz(doc, "rate_limits"));
    compile_budgets(c, tg_json_getz(doc, "session_budgets"));

    p->limits.approvals = 1024;
    p->limits.approvals_per_principal = 64;
    p->limits.used_tokens = 65536;
    p->limits.rate_buckets = 65536;
    p->limits.budget_entries = 65536;
    p->limits.session_rules = 65536;
    v = tg_json_getz(doc, "limits");
    if (v && expect_type(c, v, cJSON_Object, "/limits", "an object")) {
        static const char *const lallowed[] = {"max_approvals",      "max_used_tokens",   "max_rate_buckets",
                                               "max_budget_entries", "max_session_rules", "max_approvals_per_principal",
                                               NULL};
        only_keys(c, v, "/limits", lallowed);
        size_t *dst[6] = {&p->limits.approvals, &p->limits.used_tokens, &p->limits.rate_buckets,
                          &p->limits.budget_entries, &p->limits.session_rules, &p->limits.approvals_per_principal};
        double hi[6] = {1e6, 1e7, 1e7, 1e7, 1e7, 1e6};
        for (int i = 0; i < 6; i++) {
            double d;
            if (get_number(c, v, lallowed[i], "/limits", 1, hi[i], 1, &d) == 1) *dst[i] = (size_t)d;
        }
    }
}

/* 1 valid, 0 invalid (diagnostics written), -1 the validator is unavailable. */
static int schema_check(cc *c, const tg_allocator *a, const cJSON *doc) {
    tg_arena *s = &c->scratch;
    tg_json_error jerr;
#ifdef TG_POLICY_SKIP_SCHEMA
    (void)a, (void)doc, (void)s, (void)jerr;
    return -1; /* structural checks only (to test them alone) */
#endif
    cJSON *schema = tg_json_parse(s, tg_policy_schema_json, strlen(tg_policy_schema_json), NULL, &jerr);
    if (!schema) return -1;
    tg_schema_options opts = tg_schema_default_options();
    tg_schema *compiled = NULL;
    if (tg_schema_compile(a, schema, &opts, &compiled, NULL) != 0) return -1;
    tg_buf errs;
    tg_buf_init(&errs, *a, 0);
    int r = tg_schema_validate(compiled, doc, s, TG_OUTPUT_BASIC, MAX_DIAG_LINES, &errs);
    tg_schema_free(compiled);
    if (r == 1) {
        tg_buf_free(&errs);
        return 1;
    }
    if (r < 0 || errs.failed || !errs.data) {
        tg_buf_free(&errs);
        return -1;
    }
    cJSON *arr = tg_json_parse(s, errs.data, errs.len, NULL, &jerr);
    tg_buf_free(&errs);
    if (!arr || !cJSON_IsArray(arr) || !arr->child) return -1;
    for (const cJSON *e = arr->child; e; e = e->next) {
        const cJSON *il = tg_json_getz(e, "instanceLocation"), *kl = tg_json_getz(e, "keywordLocation"),
                    *msg = tg_json_getz(e, "message");
        diag_line(c, il && cJSON_IsString(il) ? il->valuestring : "", "%s (schema %s)",
                  msg && cJSON_IsString(msg) ? msg->valuestring : "invalid",
                  kl && cJSON_IsString(kl) ? kl->valuestring : "");
    }
    return 0;
}

int tg_policy_compile(const tg_allocator *a, const cJSON *doc, tg_policy **out, tg_buf *diag) {
    *out = NULL;
    tg_policy *p = tg_malloc(a, sizeof *p);
    if (!p) {
        if (diag) tg_buf_puts(diag, "/: out of memory\n");
        return -1;
    }
    memset(p, 0, sizeof *p);
    p->alloc = *a;
    tg_arena_init(&p->arena, *a);
    cc c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.diag = diag;
    c.diag_start = diag ? diag->len : 0;
    tg_arena_init(&c.scratch, *a);
    int sr = doc ? schema_check(&c, a, doc) : -1;
    if (sr != 0) {
        /* valid per schema (or no validator available): structural checks and
         * compilation, which also catch what a schema cannot say (references
         * to undefined bundles, duplicate rule ids) */
        if (doc) compile_doc(&c, doc);
        else diag_line(&c, "", "no policy document");
    }
    if (!c.errors) {
        p->state = tg_pstate_new(a, &p->limits);
        if (!p->state) oom(&c);
    }
    if (c.errors > MAX_DIAG_LINES && diag && !c.oom) tg_buf_printf(diag, "... %d more\n", c.errors - MAX_DIAG_LINES);
    tg_arena_free(&c.scratch);
    if (c.errors) {
        tg_policy_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

void tg_policy_free(tg_policy *p) {
    if (!p) return;
    tg_allocator a = p->alloc;
    tg_pstate_free(&a, p->state);
    tg_arena_free(&p->arena);
    tg_free(&a, p, sizeof *p);
}

const char *tg_decision_name(tg_decision d) {
    return d == TG_ALLOW ? "allow" : d == TG_ASK ? "ask" : "deny";
}
