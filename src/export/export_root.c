/* export_root.c - the root every non-MCP format starts from: hidden
 * parameters stripped, the dialect upgraded, root $ref/allOf merged,
 * anyOf/oneOf merged or loosened into one object schema, the keywords a
 * root may not carry dropped, type object first, $refs rehomed (the root
 * rules of export.c's provider list). */
#include <stdio.h>
#include <string.h>

#include "export_internal.h"
#include "hidden.h"

#define EX_MAX_REF_HOPS 16

/* Follows a chain of root-only $refs; returns the target or s. *via (may
 * be NULL) gets the last $ref followed, NULL when none. */
static const cJSON *deref(ex_ctx *c, const cJSON *s, const cJSON **via) {
    if (via) *via = NULL;
    for (int hops = 0; hops < EX_MAX_REF_HOPS && cJSON_IsObject(s); hops++) {
        const cJSON *ref = tg_json_getz(s, "$ref");
        if (!ref || tg_ex_arr_len(s) != 1) break;
        const cJSON *t = tg_ex_resolve_ref(c->doc, ref);
        if (!t) break;
        s = t;
        if (via) *via = ref;
    }
    return s;
}

/* A branch of a root anyOf/oneOf as the merge below reads it: the target
 * of its root-only $refs, and whether it lets any value through for a
 * property it does not declare in its own "properties" (it is not false
 * and does not close its members with additionalProperties: false and no
 * patternProperties). A definition it keeps elsewhere (an allOf, a $ref
 * beside other keywords) counts as none: that can only show more than the
 * branch allows, never less. */
typedef struct ex_branch {
    const cJSON *s;   /* the branch, through root-only $refs */
    const cJSON *via; /* the last such $ref, or NULL */
    int open;
} ex_branch;

/* One branch's definition of one property; decls of a name are linked in
 * branch order. */
typedef struct ex_decl {
    const cJSON *def;
    int branch, next;
} ex_decl;

/* Reports a loss at name[0..n) in branch i's properties (or, through its
 * $ref, in the target's). */
static void note_branch_prop(ex_ctx *c, const ex_path *p, const ex_branch *br, int i, const char *name, size_t n,
                             const char *msg) {
    char ib[24];
    int ibn = snprintf(ib, sizeof ib, "%d", i);
    const char *rs = br->via ? br->via->valuestring : NULL;
    ex_path at = {p, ib, (size_t)ibn, 0}, via = {p->up, rs ? rs + 1 : "", rs ? tg_json_strlen(rs) - 1 : 0, 1};
    ex_path props = {rs ? &via : &at, "properties", 10, 0}, prop = {&props, name, n, 0};
    tg_ex_note(c, &prop, msg);
}

/* Multi-branch anyOf/oneOf at the root: the root lists every property a
 * branch declares, each with what the branches together allow for it: the
 * one definition they share; an anyOf of theirs when they differ; no
 * constraint when a branch allows any value there (declares it true/{}, or
 * is open and does not declare it); a branch that declares it false or is
 * closed takes no part. Only what every branch requires is required. Each
 * property shown looser than a branch defines it is reported there; the
 * root's own definitions stay (they apply whatever the branch), reported
 * when a branch narrows them. Work: one pass over the branches'
 * declarations (each name looked up among those found so far), then per
 * name its own declarations and the open branches up to the first that
 * does not declare it: never names x branches. */
static void loosen_root_union(ex_ctx *c, cJSON *s, const cJSON *arr, const ex_path *p, const char *kw) {
    cJSON *props = tg_json_getz(s, "properties");
    cJSON *added = tg_ex_new(c, cJSON_Object); /* name -> a slot: null, valueint = the name's first declaration */
    cJSON *req_all = NULL;
    int nb = tg_ex_arr_len(arr), nd = 0, n_open = 0;
    ex_branch *brs = added ? tg_arena_alloc(c->a, (size_t)nb * sizeof *brs) : NULL;
    int *opens = brs ? tg_arena_alloc(c->a, (size_t)nb * sizeof *opens) : NULL;
    if (!opens) {
        c->oom = 1;
        return;
    }
    int i = 0;
    for (const cJSON *b0 = arr->child; b0; b0 = b0->next, i++) {
        const cJSON *b = brs[i].s = deref(c, b0, &brs[i].via);
        brs[i].open = !cJSON_IsFalse(b) && !(cJSON_IsObject(b) && cJSON_IsFalse(tg_json_getz(b, "additionalProperties")) &&
                                             !tg_json_getz(b, "patternProperties"));
        if (brs[i].open) opens[n_open++] = i;
        const cJSON *bp = cJSON_IsObject(b) ? tg_json_getz(b, "properties") : NULL;
        nd += cJSON_IsObject(bp) ? tg_ex_arr_len(bp) : 0;
    }
    ex_decl *decls = tg_arena_alloc(c->a, ((size_t)nd + 1) * sizeof *decls);
    int *tails = tg_arena_alloc(c->a, ((size_t)nd + 1) * sizeof *tails); /* per first declaration: the name's last */
    if (!decls || !tails) {
        c->oom = 1;
        return;
    }
    /* every declaration, linked to the first of its name */
    int k = 0;
    for (i = 0; i < nb && !c->oom; i++) {
        const cJSON *b = brs[i].s;
        const cJSON *bp = cJSON_IsObject(b) ? tg_json_getz(b, "properties") : NULL;
        for (const cJSON *pr = cJSON_IsObject(bp) ? bp->child : NULL; pr && !c->oom && !tg_ex_step(c); pr = pr->next, k++) {
            decls[k] = (ex_decl){pr, i, -1};
            size_t kn = tg_json_strlen(pr->string);
            cJSON *slot = tg_json_get(added, pr->string, kn);
            if (slot) {
                decls[tails[slot->valueint]].next = k;
                tails[slot->valueint] = k;
            } else if ((slot = tg_ex_putn(c, added, pr->string, kn, tg_ex_new(c, cJSON_NULL))) != NULL) {
                slot->valueint = tails[k] = k;
            }
        }
        const cJSON *br = cJSON_IsObject(b) ? tg_json_getz(b, "required") : NULL;
        if (i == 0) req_all = cJSON_IsArray(br) ? tg_ex_clone(c, br) : tg_ex_new(c, cJSON_Array);
        else if (req_all) {
            for (cJSON *r = req_all->child; r;) {
                cJSON *next = r->next;
                if (!tg_ex_arr_has(br, r)) tg_json_detach(req_all, r);
                r = next;
            }
        }
    }
    if (c->oom) return;
    char msg[300];
    for (cJSON *x = added->child; x && !c->oom;) {
        cJSON *next = x->next;
        size_t kn = tg_json_strlen(x->string);
        const cJSON *own = tg_json_get(props, x->string, kn);
        if (own) { /* the root's definition stays: reported where a branch narrows it */
            for (k = x->valueint; k >= 0; k = decls[k].next) {
                const cJSON *def = decls[k].def;
                if (cJSON_IsFalse(def) || tg_ex_is_true_schema(def) || tg_json_equal(def, own)) continue;
                snprintf(msg, sizeof msg, "the top-level %s's branch %d defines this property too: only the root's own "
                         "definition is shown", kw, decls[k].branch);
                note_branch_prop(c, p, &brs[decls[k].branch], decls[k].branch, x->string, kn, msg);
                break;
            }
            tg_json_detach(added, x);
            x = next;
            continue;
        }
        /* the definitions (distinct), and the first branch that allows any value */
        cJSON *defs = tg_ex_new(c, cJSON_Array);
        int any_at = nb, first_at = -1;
        for (k = x->valueint; k >= 0 && defs; k = decls[k].next) {
            const cJSON *def = decls[k].def;
            if (cJSON_IsFalse(def)) continue;
            if (tg_ex_is_true_schema(def)) {
                if (decls[k].branch < any_at) any_at = decls[k].branch;
                continue;
            }
            if (first_at < 0) first_at = decls[k].branch;
            if (tg_ex_arr_has(defs, def)) continue;
            cJSON *d = tg_ex_clone(c, def);
            if (!d) break;
            d->string = NULL;
            tg_json_append(defs, d);
        }
        k = x->valueint;
        for (int o = 0; o < n_open && opens[o] < any_at; o++) { /* (declarations come in branch order) */
            while (k >= 0 && decls[k].branch < opens[o]) k = decls[k].next;
            if (k >= 0 && decls[k].branch == opens[o]) continue;
            any_at = opens[o];
        }
        if (c->oom) return;
        cJSON *shown;
        int looser = 0; /* shown looser than a branch's definition */
        if (any_at < nb) { /* no constraint, the first definition's words kept */
            shown = tg_ex_new(c, cJSON_Object);
            static const char *const words[] = {"title", "description", NULL};
            for (int w = 0; words[w] && shown && defs->child; w++) {
                const cJSON *t = cJSON_IsObject(defs->child) ? tg_json_getz(defs->child, words[w]) : NULL;
                if (t) tg_ex_putclone(c, shown, t);
            }
            snprintf(msg, sizeof msg, "shown without constraints: the top-level %s's branch %d allows any value for this "
                     "property", kw, any_at);
            looser = first_at >= 0; /* (no branch defines it: {} is exact) */
        } else if (tg_ex_arr_len(defs) > 1) {
            shown = tg_ex_new(c, cJSON_Object);
            tg_ex_put(c, shown, "anyOf", defs);
            snprintf(msg, sizeof msg, "the top-level %s's branches define this property differently: shown as an anyOf of "
                     "their %d definitions (which one goes with which other properties is not shown)", kw, tg_ex_arr_len(defs));
            looser = 1;
        } else if (defs->child) { /* one definition, the same in every branch that allows the property: exact */
            shown = defs->child;
            tg_json_detach(defs, shown);
        } else shown = tg_ex_new(c, cJSON_False); /* (every branch refuses it) */
        if (!shown || c->oom) return;
        if (looser) note_branch_prop(c, p, &brs[first_at], first_at, x->string, kn, msg);
        tg_ex_replace(added, x, shown);
        x = next;
    }
    if (c->oom) return;
    if (added->child) {
        if (!props) props = tg_ex_put(c, s, "properties", tg_ex_new(c, cJSON_Object));
        for (cJSON *x = added->child; x && props;) {
            cJSON *next = x->next;
            tg_json_append(props, x);
            x = next;
        }
    }
    if (req_all && req_all->child) {
        cJSON *req = tg_json_getz(s, "required");
        if (!req) req = tg_ex_put(c, s, "required", tg_ex_new(c, cJSON_Array));
        for (cJSON *r = req_all->child; r && req;) {
            cJSON *next = r->next;
            if (!tg_ex_arr_has(req, r)) tg_json_append(req, r);
            r = next;
        }
    }
    snprintf(msg, sizeof msg,
             "top-level %s with %d branches is not accepted by this provider: the root shows the union of the "
             "branches' properties and requires only what every branch requires%s",
             kw, nb, !strcmp(kw, "oneOf") ? " (that exactly one branch must match is not shown)" : "");
    tg_ex_note(c, p, msg);
}

cJSON *tg_ex_normalize_root(ex_ctx *c, const cJSON *in, const cJSON *hidden, const ex_path *root) {
    cJSON *s;
    if (!in || cJSON_IsTrue(in)) {
        if (!in) tg_ex_note(c, root, "inputSchema missing: shown as an object schema without properties");
        s = tg_ex_new(c, cJSON_Object);
    } else if (!cJSON_IsObject(in)) {
        tg_ex_note(c, root, "inputSchema is not an object schema: shown as an object schema without properties");
        s = tg_ex_new(c, cJSON_Object);
    } else s = tg_ex_clone(c, in);
    if (!s) return NULL;
    s->string = NULL;
    /* (every in-place branch and $ref target: what is merged below comes
     * stripped; before the upgrade, on the form registration checked, where
     * its $refs resolve: "#/items/0" names nothing once items is prefixItems) */
    if (tg_hidden_strip(c->a, s, hidden)) {
        c->oom = 1;
        return NULL;
    }
    tg_ex_upgrade_root(c, s);
    /* $refs resolve against the schema as it was before the root changes
     * below (merged branches go away); tg_ex_rehome_refs points the
     * rendering's refs into it back at copies */
    c->doc = s;
    s = tg_ex_clone(c, s);
    if (!s) return NULL;

    /* root $ref and allOf: merged into the root */
    cJSON *ref = tg_json_getz(s, "$ref");
    cJSON *all = tg_json_getz(s, "allOf");
    if (ref || all) {
        if (ref) tg_json_detach(s, ref);
        if (all) tg_json_detach(s, all);
        ex_path pa = {root, "allOf", 5, 0};
        if (ref) {
            cJSON *b = tg_ex_new(c, cJSON_Object);
            if (!b) return NULL;
            tg_ex_putclone(c, b, ref);
            ex_path pr = {root, "$ref", 4, 0};
            tg_ex_merge(c, s, b, &pr, 1);
        }
        for (const cJSON *br = cJSON_IsArray(all) ? all->child : NULL; br; br = br->next)
            tg_ex_merge(c, s, br, &pa, 1);
    }
    /* anyOf / oneOf */
    static const char *const comb[] = {"anyOf", "oneOf"};
    for (int i = 0; i < 2 && !c->oom; i++) {
        cJSON *arr = tg_json_getz(s, comb[i]);
        if (!arr) continue;
        tg_json_detach(s, arr);
        ex_path pc = {root, comb[i], strlen(comb[i]), 0};
        if (!cJSON_IsArray(arr) || !arr->child) continue;
        if (!arr->child->next) tg_ex_merge(c, s, arr->child, &pc, 1);
        else loosen_root_union(c, s, arr, &pc, comb[i]);
    }
    /* keywords a root may not carry */
    static const char *const bad[] = {"not", "enum", "const", NULL};
    for (int i = 0; bad[i]; i++) {
        cJSON *x = tg_json_getz(s, bad[i]);
        if (!x) continue;
        ex_path pk = {root, bad[i], strlen(bad[i]), 0};
        tg_ex_notek(c, &pk, "top-level \"%.*s\" is not accepted by this provider; dropped", x);
        tg_json_detach(s, x);
    }
    /* type object, first */
    cJSON *t = tg_json_getz(s, "type");
    if (t && s->child != t) {
        tg_json_detach(s, t);
        t->string = NULL;
        tg_ex_prepend(c, s, "type", t);
    }
    if (!t) tg_ex_prepend(c, s, "type", tg_ex_str(c, "object", 6));
    else if (!tg_json_string_is(t, "object")) {
        if (tg_ex_type_has(t, "object")) {
            cJSON *o = tg_ex_str(c, "object", 6);
            if (o) tg_ex_replace(s, t, o);
        } else {
            ex_path pt = {root, "type", 4, 0};
            tg_ex_note(c, &pt, "the root schema does not describe an object: shown as an object schema without properties");
            cJSON *keep = tg_json_getz(s, "$defs"), *keep2 = tg_json_getz(s, "definitions");
            s = tg_ex_new(c, cJSON_Object);
            tg_ex_put(c, s, "type", tg_ex_str(c, "object", 6));
            if (keep) tg_ex_putclone(c, s, keep);
            if (keep2) tg_ex_putclone(c, s, keep2);
        }
    }
    tg_ex_rehome_refs(c, s, in, root, 0);
    if (!c->oom) tg_ex_drop_unused_added(s, in);
    c->doc = s; /* (what the renderers below resolve against) */
    return c->oom ? NULL : s;
}
