/* hidden.c - context parameters stripped from a schema, and the fail-closed
 * check that nothing of them is left where it applies to the root instance
 * (see hidden.h). One walk serves both: it visits every subschema that
 * applies in place to the root instance, following local $refs once each.
 *
 * A $ref target the root uses in place may be used elsewhere as well (a
 * pydantic definition the root is, nesting itself under a property): there
 * it describes another value, whose own field of that name the validator
 * still requires. Stripping therefore runs the walk three times: the first
 * collects the in-place targets, the second reads every other use (what is
 * not in place, from the root or through any $ref) and marks the targets it
 * reaches as shared, the third strips: a shared target is copied and the
 * in-place $ref pointed at the stripped copy, the original is left as it is
 * for the other uses; a target used only in place is stripped where it is.
 *
 * The root itself and what applies in place with it without a $ref (its
 * allOf/anyOf/oneOf branches, then/else, ...: its "region") are the
 * rendering, stripped where they are. Another use of them (a recursive
 * root's "items": {"$ref": "#"}, a property that is "#/allOf/0") describes
 * a nested value the validator checks against the original root: for it an
 * unstripped copy of the root is made before the strip, and after it every
 * $ref that does not apply in place and names the region is pointed into the
 * copy (the copy's own "#" included). */
#include "hidden.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* what one walk does */
enum { HW_STRIP, HW_CHECK, HW_TARGETS, HW_USES };

#define HW_USES_DEPTH (4 * TG_HIDDEN_MAX_DEPTH) /* nesting a read of other uses follows (past it: all shared) */

typedef struct hw {
    cJSON *doc;
    const cJSON *hidden;
    tg_arena *a; /* (strip: the copies) */
    int mode;
    const cJSON *seen[TG_HIDDEN_MAX_TARGETS]; /* $ref targets walked already */
    unsigned char seen_strip[TG_HIDDEN_MAX_TARGETS]; /* ... and whether stripped there */
    int nseen;
    /* in-place targets (HW_TARGETS) and which another use shares (HW_USES) */
    const cJSON *inplace[TG_HIDDEN_MAX_TARGETS];
    unsigned char shared[TG_HIDDEN_MAX_TARGETS];
    int ninplace;
    int all_shared; /* a use this read could not follow: every target counts as shared */
    int root_shared; /* another use reaches the root's region (or may: all_shared) */
    const cJSON *used[TG_HIDDEN_MAX_TARGETS]; /* targets of other uses read already */
    int nused;
    /* stripped copies made (HW_STRIP): original -> copy, and the $ref text naming it */
    const cJSON *orig[TG_HIDDEN_MAX_TARGETS];
    cJSON *copy[TG_HIDDEN_MAX_TARGETS];
    const char *copy_ref[TG_HIDDEN_MAX_TARGETS];
    int ncopies;
    /* the root's unstripped copy for its other uses, where it is, the $ref
     * text naming it, the definitions made to hold copies (NULL: there were
     * some), and whether a $ref outside the copy was pointed into it */
    cJSON *root_copy;
    cJSON *root_home;
    const char *root_ref;
    cJSON *made_home;
    int root_named;
    const char *anchor[8]; /* anchors looked up once a walk (a schema may name one many times) */
    cJSON *anchor_at[8];
    int nanchors;
    char *why;
    size_t why_n;
    int refused;
    int oom;
    int lost_copy; /* a copy was needed and could not be placed (tg_hidden_strip: 1) */
    char path[256]; /* JSON Pointer of the subschema walked (cut when longer) */
    size_t plen;
} hw;


/* ---------------------------------------------------------------- path */

/* Appends "/" and seg (escaped as a JSON Pointer token); returns the length
 * to pop back to. A path that does not fit is cut. */
static size_t path_push(hw *w, const char *seg) {
    size_t at = w->plen, end = sizeof w->path - 1, i = at;
    if (i < end) w->path[i++] = '/';
    for (const char *c = seg; *c && i < end; c++) {
        if (*c != '~' && *c != '/') {
            w->path[i++] = *c;
        } else if (i + 1 < end) {
            w->path[i++] = '~';
            w->path[i++] = *c == '~' ? '0' : '1';
        } else break;
    }
    w->path[i] = '\0';
    w->plen = i;
    return at;
}

static void path_pop(hw *w, size_t at) {
    w->plen = at;
    w->path[at] = '\0';
}

/* The walk refuses (check mode only): the first reason is kept. */
static void refuse(hw *w, const char *name, const char *what) {
    if (w->mode != HW_CHECK || w->refused) return;
    w->refused = 1;
    snprintf(w->why, w->why_n, "context parameter \"%s\" could stay visible to the model: %s at %s%s%s", name, what,
             w->plen ? "\"" : "the root", w->path, w->plen ? "\"" : "");
}

static void refuse_all(hw *w, const char *what) {
    const cJSON *h = w->hidden->child;
    refuse(w, cJSON_IsString(h) ? h->valuestring : "?", what);
}

/* ---------------------------------------------------------------- names */

static int list_has(const cJSON *arr, const char *name) {
    for (const cJSON *e = cJSON_IsArray(arr) ? arr->child : NULL; e; e = e->next)
        if (tg_json_string_is(e, name)) return 1;
    return 0;
}

static void list_remove(cJSON *arr, const char *name) {
    for (cJSON *e = cJSON_IsArray(arr) ? arr->child : NULL; e;) {
        cJSON *next = e->next;
        if (tg_json_string_is(e, name)) tg_json_detach(arr, e);
        e = next;
    }
}

/* Takes name out of an argument object given as an annotation's value. */
static void drop_member(cJSON *o, const char *name) {
    cJSON *x = cJSON_IsObject(o) ? tg_json_getz(o, name) : NULL;
    if (x) tg_json_detach(o, x);
}

/* Removes name from s where that is exact: properties, required, the name
 * lists of dependentRequired / dependencies, and the argument objects of
 * the annotations default / examples / example (a sample value shown to
 * the model is not its to see). */
static void drop_samples(cJSON *s, const char *name) {
    drop_member(tg_json_getz(s, "default"), name);
    drop_member(tg_json_getz(s, "example"), name);
    cJSON *ex = tg_json_getz(s, "examples");
    for (cJSON *e = cJSON_IsArray(ex) ? ex->child : NULL; e; e = e->next) drop_member(e, name);
}

static void strip_name(cJSON *s, const char *name) {
    cJSON *props = tg_json_getz(s, "properties");
    cJSON *x = cJSON_IsObject(props) ? tg_json_getz(props, name) : NULL;
    if (x) tg_json_detach(props, x);
    drop_samples(s, name);
    list_remove(tg_json_getz(s, "required"), name);
    static const char *const deps[] = {"dependentRequired", "dependencies"};
    for (int i = 0; i < 2; i++) {
        cJSON *d = tg_json_getz(s, deps[i]);
        for (cJSON *m = cJSON_IsObject(d) ? d->child : NULL; m; m = m->next) list_remove(m, name);
    }
}

/* 1 when a string anywhere in v (a key or a value) contains name. */
static int mentions(const cJSON *v, const char *name, int depth) {
    if (!v || depth > TG_HIDDEN_MAX_DEPTH) return depth > TG_HIDDEN_MAX_DEPTH;
    if (v->string && strstr(v->string, name)) return 1;
    if (cJSON_IsString(v) && strstr(v->valuestring, name)) return 1;
    for (const cJSON *c = (cJSON_IsObject(v) || cJSON_IsArray(v)) ? v->child : NULL; c; c = c->next)
        if (mentions(c, name, depth + 1)) return 1;
    return 0;
}

/* Where name still applies in s itself, or NULL. */
static const char *name_left(const cJSON *s, const char *name) {
    const cJSON *props = tg_json_getz(s, "properties");
    if (cJSON_IsObject(props) && tg_json_getz(props, name)) return "declared in \"properties\"";
    /* a pattern may match the name (not decided here: any pattern counts),
     * and names the model may use may spell it out; a value the arguments
     * must equal holds it for validation (removing it would change that) */
    const cJSON *pp = tg_json_getz(s, "patternProperties");
    if (cJSON_IsObject(pp) && pp->child) return "\"patternProperties\" (a pattern may match it)";
    if (mentions(tg_json_getz(s, "propertyNames"), name, 0)) return "named in \"propertyNames\"";
    static const char *const vals[] = {"const", "enum"};
    for (int i = 0; i < 2; i++)
        if (mentions(tg_json_getz(s, vals[i]), name, 0)) return "a value of \"const\" or \"enum\"";
    if (list_has(tg_json_getz(s, "required"), name)) return "listed in \"required\"";
    static const char *const deps[] = {"dependentRequired", "dependentSchemas", "dependencies"};
    for (int i = 0; i < 3; i++) {
        const cJSON *d = tg_json_getz(s, deps[i]);
        if (!cJSON_IsObject(d)) continue;
        if (tg_json_getz(d, name)) return "a key of \"dependentRequired\", \"dependentSchemas\" or \"dependencies\"";
        for (const cJSON *m = d->child; m; m = m->next)
            if (list_has(m, name)) return "listed in \"dependentRequired\" or \"dependencies\"";
    }
    return NULL;
}

static void visit_names(hw *w, cJSON *s, int strip_here) {
    for (const cJSON *h = w->hidden->child; h && !w->refused; h = h->next) {
        if (!cJSON_IsString(h)) continue;
        if (w->mode == HW_STRIP) {
            if (strip_here) strip_name(s, h->valuestring);
            continue;
        }
        if (w->mode != HW_CHECK) return;
        const char *left = name_left(s, h->valuestring);
        if (left) refuse(w, h->valuestring, left);
    }
}

/* ---------------------------------------------------------------- $ref */

/* The subschema of doc's own resource declaring "$anchor": name, or NULL:
 * schemas only (not the values of default, examples, const, enum), not into
 * an embedded resource (its own "$id"), depth-bounded. */
static cJSON *find_anchor(cJSON *s, const char *name, int depth) {
    if (depth > TG_HIDDEN_MAX_DEPTH || !(cJSON_IsObject(s) || cJSON_IsArray(s))) return NULL;
    if (cJSON_IsObject(s)) {
        if (depth && tg_json_getz(s, "$id")) return NULL;
        const cJSON *a = tg_json_getz(s, "$anchor");
        if (tg_json_string_is(a, name)) return s;
    }
    for (cJSON *m = s->child; m; m = m->next) {
        if (cJSON_IsObject(s) && (tg_json_key_is(m, "enum") || tg_json_key_is(m, "const") || tg_json_key_is(m, "default") ||
                                  tg_json_key_is(m, "examples")))
            continue; /* (values, not schemas) */
        cJSON *hit = find_anchor(m, name, depth + 1);
        if (hit) return hit;
    }
    return NULL;
}

/* The target of a "#/pointer" or "#anchor" ref in w->doc, or NULL. */
static cJSON *ref_target(hw *w, const cJSON *ref) {
    if (!cJSON_IsString(ref)) return NULL;
    const char *r = ref->valuestring;
    if (!r[0]) return w->doc; /* ("" is the document itself, as "#" is) */
    if (r[0] != '#') return NULL;
    if (!r[1] || r[1] == '/') return (cJSON *)tg_json_pointer_ref(w->doc, r, tg_json_strlen(r));
    for (int i = 0; i < w->nanchors; i++)
        if (strcmp(w->anchor[i], r + 1) == 0) return w->anchor_at[i];
    cJSON *t = find_anchor(w->doc, r + 1, 0);
    if (w->nanchors < 8) {
        w->anchor[w->nanchors] = r + 1;
        w->anchor_at[w->nanchors++] = t;
    }
    return t;
}

/* 1 when target needs walking (again) with strip_here; records it. -1 when
 * the record is full. */
static int first_visit(hw *w, const cJSON *target, int strip_here) {
    for (int i = 0; i < w->nseen; i++) {
        if (w->seen[i] != target) continue;
        if (w->seen_strip[i] >= strip_here) return 0;
        w->seen_strip[i] = (unsigned char)strip_here;
        return 1;
    }
    if (w->nseen == TG_HIDDEN_MAX_TARGETS) return -1;
    w->seen[w->nseen] = target;
    w->seen_strip[w->nseen++] = (unsigned char)strip_here;
    return 1;
}

/* ---------------------------------------------------------------- region */

/* 1 when the schemas of s's member kw apply in place with s (as the walk
 * strips them; "if" and "not" are kept as they are). */
static int in_place_kw(const cJSON *kw) {
    return tg_json_key_is(kw, "allOf") || tg_json_key_is(kw, "anyOf") || tg_json_key_is(kw, "oneOf") ||
           tg_json_key_is(kw, "then") || tg_json_key_is(kw, "else") || tg_json_key_is(kw, "dependentSchemas") ||
           tg_json_key_is(kw, "dependencies");
}

#define HW_CHAIN (2 * TG_HIDDEN_MAX_DEPTH + 4)

/* 1 when t is r or a subschema that applies in place with r without a $ref
 * (r's region), with the members leading from r to t in chain[0..*n). */
static int region_path(const cJSON *r, const cJSON *t, const cJSON **chain, int *n, int depth) {
    if (r == t) return 1;
    if (!cJSON_IsObject(r) || depth > TG_HIDDEN_MAX_DEPTH) return 0;
    for (const cJSON *kw = r->child; kw; kw = kw->next) {
        if (!in_place_kw(kw)) continue;
        chain[(*n)++] = kw;
        if (tg_json_key_is(kw, "then") || tg_json_key_is(kw, "else")) {
            if (region_path(kw, t, chain, n, depth + 1)) return 1;
        } else if (cJSON_IsArray(kw) || cJSON_IsObject(kw)) {
            for (const cJSON *b = kw->child; b; b = b->next) {
                chain[(*n)++] = b;
                if (region_path(b, t, chain, n, depth + 1)) return 1;
                (*n)--;
            }
        }
        (*n)--;
    }
    return 0;
}

static int in_region(const cJSON *r, const cJSON *t) {
    const cJSON *chain[HW_CHAIN];
    int n = 0;
    return region_path(r, t, chain, &n, 0);
}

/* ---------------------------------------------------------------- other uses */

int tg_kw_is_value(const cJSON *kw) {
    return tg_json_key_is(kw, "enum") || tg_json_key_is(kw, "const") || tg_json_key_is(kw, "default") ||
           tg_json_key_is(kw, "examples") || tg_json_key_is(kw, "example");
}

int tg_kw_is_map(const cJSON *kw) {
    return tg_json_key_is(kw, "properties") || tg_json_key_is(kw, "patternProperties") ||
           tg_json_key_is(kw, "dependentSchemas") || tg_json_key_is(kw, "dependencies");
}

int tg_kw_is_defs(const cJSON *kw) {
    return tg_json_key_is(kw, "$defs") || tg_json_key_is(kw, "definitions");
}

static void use_schema(hw *w, const cJSON *s, int depth);

/* One keyword of a schema read as a use: its schemas (anything unknown is
 * read as schemas too: a target reached for nothing is only copied). */
static void use_member(hw *w, const cJSON *kw, int depth) {
    if (tg_kw_is_value(kw) || tg_kw_is_defs(kw)) return;
    if (tg_kw_is_map(kw) && cJSON_IsObject(kw)) {
        for (const cJSON *m = kw->child; m; m = m->next) use_schema(w, m, depth + 1);
        return;
    }
    use_schema(w, kw, depth + 1);
}

/* A use of target, read once: each in-place target whose region holds it
 * is shared; so is the root, when its region does, and then all of the root
 * is read as a use too (its copy uses what it names). */
static void use_target(hw *w, const cJSON *t, int depth) {
    for (int i = 0; i < w->nused; i++)
        if (w->used[i] == t) return;
    if (w->nused == TG_HIDDEN_MAX_TARGETS) {
        w->all_shared = 1;
        return;
    }
    w->used[w->nused++] = t;
    for (int i = 0; i < w->ninplace; i++)
        if (!w->shared[i] && in_region(w->inplace[i], t)) w->shared[i] = 1;
    if (in_region(w->doc, t)) {
        w->root_shared = 1;
        use_target(w, w->doc, depth);
    }
    use_schema(w, t, depth + 1);
}

static cJSON *ref_target(hw *w, const cJSON *ref);

/* s is used as it is (not in place, or under "if"/"not"): each in-place
 * target in it, or reached from it by any $ref, is shared. */
static void use_schema(hw *w, const cJSON *s, int depth) {
    if (!(cJSON_IsObject(s) || cJSON_IsArray(s)) || w->all_shared) return;
    if (depth > HW_USES_DEPTH) {
        w->all_shared = 1;
        return;
    }
    if (cJSON_IsArray(s)) {
        for (const cJSON *e = s->child; e; e = e->next) use_schema(w, e, depth + 1);
        return;
    }
    for (int i = 0; i < w->ninplace; i++)
        if (w->inplace[i] == s) w->shared[i] = 1;
    for (const cJSON *kw = s->child; kw && !w->all_shared; kw = kw->next) {
        if (tg_json_key_is(kw, "$dynamicRef") || tg_json_key_is(kw, "$recursiveRef")) {
            w->all_shared = 1; /* (resolved where it is used: not followed here) */
        } else if (tg_json_key_is(kw, "$ref") && cJSON_IsString(kw)) {
            const cJSON *t = ref_target(w, kw);
            if (t) use_target(w, t, depth);
        } else {
            use_member(w, kw, depth);
        }
    }
}

/* 1 when in-place target t must stay as it is for another use. */
static int is_shared(const hw *w, const cJSON *t) {
    if (in_region(w->doc, t)) return 0; /* (the root's region is the rendering: never copied) */
    if (w->all_shared) return 1;
    for (int i = 0; i < w->ninplace; i++)
        if (w->inplace[i] == t) return w->shared[i];
    return 1; /* (not seen in place before: copied, to be safe) */
}

/* ---------------------------------------------------------------- copies */

/* 1 when ref (a $ref, $dynamicRef or $recursiveRef value) is an absolute
 * URI ("scheme:..."): it means the same whatever the base URI. */
static int absolute_ref(const char *r) {
    if (!isalpha((unsigned char)r[0])) return 0;
    for (const char *p = r; *p; p++) {
        if (*p == ':') return 1;
        if (!(isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')) return 0;
    }
    return 0;
}

/* 1 when s has a reference that is resolved against its base URI (so
 * depends on an enclosing "$id"). */
static int has_relative_ref(const cJSON *s, int depth) {
    if (!(cJSON_IsObject(s) || cJSON_IsArray(s))) return 0;
    if (depth > HW_USES_DEPTH) return 1; /* (not looked at: assumed) */
    for (const cJSON *kw = s->child; kw; kw = kw->next) {
        if (cJSON_IsObject(s) && tg_kw_is_value(kw)) continue;
        if (cJSON_IsObject(s) && cJSON_IsString(kw) &&
            (tg_json_key_is(kw, "$ref") || tg_json_key_is(kw, "$dynamicRef") || tg_json_key_is(kw, "$recursiveRef"))) {
            if (!absolute_ref(kw->valuestring)) return 1;
        } else if (has_relative_ref(kw, depth + 1))
            return 1;
    }
    return 0;
}

/* Takes "$anchor" / "$dynamicAnchor" out of a copy (an anchor names one
 * subschema, the original), and each nested "$id" (one URI names one
 * resource, the original) whose resource resolves no reference against it
 * (else that "$id" stays: a duplicate tg_hidden_check refuses, and the
 * export leaves out). Returns the number of "$id"s left. */
static int drop_anchors(cJSON *s, int depth) {
    if (!(cJSON_IsObject(s) || cJSON_IsArray(s)) || depth > HW_USES_DEPTH) return 0;
    int kept = 0;
    for (cJSON *kw = s->child, *next; kw; kw = next) {
        next = kw->next;
        if (cJSON_IsArray(s)) kept += drop_anchors(kw, depth + 1);
        else if ((tg_json_key_is(kw, "$anchor") || tg_json_key_is(kw, "$dynamicAnchor")) && cJSON_IsString(kw))
            tg_json_detach(s, kw);
        else if (tg_json_key_is(kw, "$id") && cJSON_IsString(kw)) {
            if (has_relative_ref(s, depth)) kept++;
            else tg_json_detach(s, kw);
        } else if ((tg_kw_is_map(kw) || tg_kw_is_defs(kw)) && cJSON_IsObject(kw))
            for (cJSON *m = kw->child; m; m = m->next) kept += drop_anchors(m, depth + 1);
        else if (!tg_kw_is_value(kw))
            kept += drop_anchors(kw, depth + 1);
    }
    return kept;
}

int tg_hidden_unname_copy(cJSON *copy) { return drop_anchors(copy, 0); }

/* The root's definitions (its "$defs", else its "definitions", else new
 * ones under the name its dialect uses), where copies go; NULL when one is
 * there but no object. */
static cJSON *copies_home(hw *w, const char **kw) {
    cJSON *d = tg_json_getz(w->doc, "$defs"), *d7 = tg_json_getz(w->doc, "definitions");
    const cJSON *dialect = tg_json_getz(w->doc, "$schema");
    *kw = "$defs";
    if (d) return cJSON_IsObject(d) ? d : NULL;
    if (d7 || (cJSON_IsString(dialect) && strstr(dialect->valuestring, "draft-0"))) *kw = "definitions";
    if (d7) return cJSON_IsObject(d7) ? d7 : NULL;
    d = tg_json_new(w->a, cJSON_Object);
    if (!d || tg_json_set_key(w->a, d, *kw, strlen(*kw))) {
        w->oom = 1;
        return NULL;
    }
    tg_json_append(w->doc, d);
    w->made_home = d;
    return d;
}

/* 1 when the root's definitions have an entry named key. */
static int name_taken(const hw *w, const char *key) {
    const cJSON *d = tg_json_getz(w->doc, "$defs"), *d7 = tg_json_getz(w->doc, "definitions");
    return (cJSON_IsObject(d) && tg_json_getz(d, key)) || (cJSON_IsObject(d7) && tg_json_getz(d7, key));
}

/* The stripped copy of target the in-place $ref ref uses (ref pointed at
 * it), made on first use: "<last token of the ref>_in_place" in the root's
 * definitions, "_2", "_3", ... when a definition has that name. target
 * itself when it is not shared (or no copy can be placed). */
static cJSON *in_place_copy(hw *w, cJSON *ref, cJSON *target) {
    for (int i = 0; i < w->ncopies; i++) {
        if (w->copy[i] == target) return target; /* (a ref pointed at a copy already) */
        if (w->orig[i] != target) continue;
        ref->valuestring = (char *)w->copy_ref[i];
        return w->copy[i];
    }
    if (!is_shared(w, target)) return target;
    const char *kwname;
    cJSON *home = w->ncopies < TG_HIDDEN_MAX_TARGETS ? copies_home(w, &kwname) : NULL;
    if (!home) {
        if (!w->oom) w->lost_copy = 1; /* (stripped in place: the other uses would lose the name too) */
        return target;
    }
    char base[48], key[80], text[96];
    const char *r = ref->valuestring, *tok = strrchr(r, '/');
    tok = tok ? tok + 1 : r + 1;
    size_t n = 0;
    for (; *tok && n < sizeof base - 1; tok++)
        base[n++] = (isalnum((unsigned char)*tok) || *tok == '_' || *tok == '.' || *tok == '-') ? *tok : '_';
    base[n] = '\0';
    snprintf(key, sizeof key, "%s_in_place", n ? base : "def");
    for (int i = 2; name_taken(w, key); i++) snprintf(key, sizeof key, "%s_in_place_%d", n ? base : "def", i);
    int tn = snprintf(text, sizeof text, "#/%s/%s", kwname, key);
    cJSON *copy = tg_json_clone(w->a, target), *rs = tg_json_new_string(w->a, text, (size_t)tn);
    if (!copy || !rs || tg_json_set_key(w->a, copy, key, strlen(key))) {
        w->oom = 1;
        return target;
    }
    drop_anchors(copy, 0);
    tg_json_append(home, copy);
    w->orig[w->ncopies] = target;
    w->copy[w->ncopies] = copy;
    w->copy_ref[w->ncopies++] = rs->valuestring;
    ref->valuestring = rs->valuestring;
    return copy;
}

/* The context parameters' sample values taken out of s and what applies in
 * place with it (what strip_name takes from a sample). */
static void copy_samples(hw *w, cJSON *s, int depth) {
    if (!cJSON_IsObject(s) || depth > TG_HIDDEN_MAX_DEPTH) return;
    for (const cJSON *h = w->hidden->child; h; h = h->next)
        if (cJSON_IsString(h)) drop_samples(s, h->valuestring);
    for (cJSON *kw = s->child; kw; kw = kw->next) {
        if (!in_place_kw(kw)) continue;
        if (tg_json_key_is(kw, "then") || tg_json_key_is(kw, "else")) copy_samples(w, kw, depth + 1);
        else if (cJSON_IsArray(kw) || cJSON_IsObject(kw))
            for (cJSON *b = kw->child; b; b = b->next) copy_samples(w, b, depth + 1);
    }
}

/* The unstripped copy of the root the other uses of its region take, made
 * before the strip: "root" in its definitions ("root_2", ... when taken).
 * Left out: the definitions (the copy's $refs name the root's), what makes
 * the root a resource ($id, $schema, $vocabulary: the copy is resolved as
 * part of the root's), anchors (they name the original) and the context
 * parameters' sample values (the arguments', not the nested value's). */
static void make_root_copy(hw *w) {
    const char *kwname;
    cJSON *home = copies_home(w, &kwname);
    if (!home) {
        if (!w->oom) w->lost_copy = 1;
        return;
    }
    char key[32], text[64];
    snprintf(key, sizeof key, "root");
    for (int i = 2; name_taken(w, key); i++) snprintf(key, sizeof key, "root_%d", i);
    const cJSON *dialect = tg_json_getz(w->doc, "$schema");
    int d4 = cJSON_IsString(dialect) && strstr(dialect->valuestring, "draft-04"); /* (its "id" is "$id") */
    int tn = snprintf(text, sizeof text, "#/%s/%s", kwname, key);
    cJSON *copy = tg_json_new(w->a, cJSON_Object), *rs = tg_json_new_string(w->a, text, (size_t)tn);
    if (!copy || !rs || tg_json_set_key(w->a, copy, key, strlen(key))) {
        w->oom = 1;
        return;
    }
    for (const cJSON *m = w->doc->child; m; m = m->next) {
        if (tg_kw_is_defs(m) || tg_json_key_is(m, "$id") || tg_json_key_is(m, "$schema") || tg_json_key_is(m, "$vocabulary") ||
            (d4 && tg_json_key_is(m, "id")))
            continue;
        cJSON *x = tg_json_clone(w->a, m);
        if (!x) {
            w->oom = 1;
            return;
        }
        tg_json_append(copy, x);
    }
    drop_anchors(copy, 0);
    copy_samples(w, copy, 0);
    tg_json_append(home, copy);
    w->root_home = home;
    w->root_copy = copy;
    w->root_ref = rs->valuestring;
}

/* Appends JSON Pointer token k[0..n) to buf[*len..cap) ("~0", "~1", and
 * "%XX" for what a fragment decodes: '%' and control bytes); 0 when it does
 * not fit. */
static int put_token(char *buf, size_t cap, size_t *len, const char *k, size_t n) {
    if (*len + 1 >= cap) return 0;
    buf[(*len)++] = '/';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)k[i];
        char esc[4];
        size_t el = 1;
        if (ch == '~' || ch == '/') {
            esc[0] = '~';
            esc[1] = ch == '~' ? '0' : '1';
            el = 2;
        } else if (ch == '%' || ch < 0x20) {
            snprintf(esc, sizeof esc, "%%%02X", ch);
            el = 3;
        } else {
            esc[0] = (char)ch;
        }
        if (*len + el >= cap) return 0;
        memcpy(buf + *len, esc, el);
        *len += el;
    }
    buf[*len] = '\0';
    return 1;
}

/* ref, which does not apply in place, pointed into the root's copy when it
 * names the root's region: "#/allOf/0" as "#/$defs/root/allOf/0", an anchor
 * there by its pointer. */
static void retarget(hw *w, cJSON *ref, int in_copy) {
    const char *r = ref->valuestring;
    size_t rn = tg_json_strlen(r);
    if (!rn) r = "#", rn = 1; /* ("" names the root, as "#" does) */
    if (r[0] != '#' || !strncmp(r, "#/$defs/", 8) || !strncmp(r, "#/definitions/", 14)) return; /* (no region there) */
    const cJSON *t = ref_target(w, ref), *chain[HW_CHAIN];
    int n = 0;
    if (!t || !region_path(w->doc, t, chain, &n, 0)) return;
    char anchor_path[512];
    const char *tail = r + 1;
    size_t tn = rn - 1;
    if (r[1] && r[1] != '/') { /* (an anchor: the copy has none) */
        tn = 0;
        anchor_path[0] = '\0';
        for (int i = 0; i < n; i++) {
            char idx[24];
            const char *k = chain[i]->string;
            size_t kn = k ? tg_json_strlen(k) : 0;
            if (i && cJSON_IsArray(chain[i - 1])) { /* (an array's member: its index) */
                int at = 0;
                for (const cJSON *e = chain[i - 1]->child; e && e != chain[i]; e = e->next) at++;
                kn = (size_t)snprintf(idx, sizeof idx, "%d", at);
                k = idx;
            } else if (!k) {
                return;
            }
            if (!put_token(anchor_path, sizeof anchor_path, &tn, k, kn)) return;
        }
        tail = anchor_path;
    }
    if (tn) {
        size_t bn = strlen(w->root_ref);
        char *text = tg_arena_alloc(w->a, bn + tn);
        if (text) {
            memcpy(text, w->root_ref, bn);
            memcpy(text + bn, tail, tn);
        }
        cJSON *rs = text ? tg_json_new_string(w->a, text, bn + tn) : NULL;
        if (!rs) {
            w->oom = 1;
            return;
        }
        ref->valuestring = rs->valuestring;
    } else {
        ref->valuestring = (char *)w->root_ref;
    }
    if (!in_copy) w->root_named = 1;
}

/* Every $ref in s (in_place: s applies in place to the root instance) that
 * does not apply in place and names the root's region, pointed into the
 * copy; not into a resource of its own, whose "#" is its own. What applies
 * in place is what the strip walked: the root's region and the targets it
 * stripped (w->seen), with theirs. */
static void rewrite(hw *w, cJSON *s, int in_place, int in_copy, int depth) {
    if (w->oom || depth > HW_USES_DEPTH) return;
    if (cJSON_IsArray(s)) {
        for (cJSON *e = s->child; e; e = e->next) rewrite(w, e, in_place, in_copy, depth + 1);
        return;
    }
    if (!cJSON_IsObject(s) || (s == w->root_copy && !in_copy)) return; /* (the copy last: see point_into_copy) */
    if (s != w->doc && tg_json_getz(s, "$id")) return;
    for (int i = 0; i < w->nseen && !in_place; i++) in_place = w->seen[i] == s;
    for (cJSON *kw = s->child; kw; kw = kw->next) {
        if (tg_kw_is_value(kw)) continue;
        if (tg_json_key_is(kw, "$ref") && cJSON_IsString(kw)) {
            if (!in_place) retarget(w, kw, in_copy);
        } else if ((tg_kw_is_map(kw) || tg_kw_is_defs(kw)) && cJSON_IsObject(kw)) {
            for (cJSON *m = kw->child; m; m = m->next) rewrite(w, m, in_place && in_place_kw(kw), in_copy, depth + 1);
        } else {
            rewrite(w, kw, in_place && in_place_kw(kw), in_copy, depth + 1);
        }
    }
}

/* After the strip: the other uses of the root's region pointed into its
 * copy, then the copy's own; a copy nothing outside it names is taken out
 * again (a use this module could not follow made it, to be safe). */
static void point_into_copy(hw *w) {
    rewrite(w, w->doc, 1, 0, 0);
    if (w->oom) return;
    if (w->root_named) {
        rewrite(w, w->root_copy, 0, 1, 1);
        return;
    }
    cJSON *home = w->root_home;
    tg_json_detach(home, w->root_copy);
    if (home == w->made_home && !home->child) tg_json_detach(w->doc, home);
    w->root_copy = NULL;
}

/* ---------------------------------------------------------------- walk */

static void walk(hw *w, cJSON *s, int strip_here, int depth);

static void walk_ref(hw *w, cJSON *s, int strip_here, int depth) {
    static const char *const dyn[] = {"$dynamicRef", "$recursiveRef"};
    for (int i = 0; i < 2; i++)
        if (tg_json_getz(s, dyn[i])) refuse_all(w, "a dynamic reference (which this check does not follow)");
    const cJSON *ref = tg_json_getz(s, "$ref");
    if (!ref) return;
    cJSON *target = ref_target(w, ref);
    if (!target) {
        refuse_all(w, "a $ref other than a \"#/pointer\" or \"#anchor\" into the schema itself (which this check "
                      "does not follow)");
        return;
    }
    if (w->mode == HW_STRIP) target = in_place_copy(w, (cJSON *)ref, target);
    if (w->oom) return;
    int first = first_visit(w, target, strip_here);
    if (first < 0) refuse_all(w, "more $ref targets than this check follows");
    if (first <= 0) return;
    char saved[sizeof w->path];
    size_t saved_len = w->plen;
    memcpy(saved, w->path, saved_len + 1);
    const char *r = ref->valuestring; /* (a string: ref_target resolved it) */
    int len = snprintf(w->path, sizeof w->path, "%s", r[0] && r[1] == '/' ? r + 1 : r);
    w->plen = len < 0 || (size_t)len >= sizeof w->path ? sizeof w->path - 1 : (size_t)len;
    walk(w, target, strip_here, depth + 1);
    memcpy(w->path, saved, saved_len + 1);
    w->plen = saved_len;
}

static void walk_sub(hw *w, cJSON *s, const char *seg, int strip_here, int depth) {
    size_t at = path_push(w, seg);
    walk(w, s, strip_here, depth + 1);
    path_pop(w, at);
}

static void walk(hw *w, cJSON *s, int strip_here, int depth) {
    if (!cJSON_IsObject(s) || w->refused || w->oom) return;
    if (!strip_here && w->mode != HW_CHECK) { /* (under "if"/"not": kept as it is, a use of its own) */
        if (w->mode == HW_USES) use_schema(w, s, 0);
        return;
    }
    if (depth > TG_HIDDEN_MAX_DEPTH) {
        refuse_all(w, "schema nesting deeper than this check follows");
        return;
    }
    if (s != w->doc && tg_json_getz(s, "$id"))
        refuse_all(w, "a subschema with its own \"$id\" (a resource this check does not follow)");
    visit_names(w, s, strip_here);
    walk_ref(w, s, strip_here, depth);
    for (cJSON *kw = s->child; kw && !w->refused; kw = kw->next) {
        int list = tg_json_key_is(kw, "allOf") || tg_json_key_is(kw, "anyOf") || tg_json_key_is(kw, "oneOf");
        int map = tg_json_key_is(kw, "dependentSchemas") || tg_json_key_is(kw, "dependencies");
        int one = tg_json_key_is(kw, "then") || tg_json_key_is(kw, "else");
        int keep = tg_json_key_is(kw, "if") || tg_json_key_is(kw, "not"); /* (removing a name there is not exact) */
        if (!list && !map && !one && !keep) {
            /* (not in place: a use of what it reaches, which keeps it as it is) */
            if (w->mode == HW_USES && !tg_json_key_is(kw, "$ref") && !tg_json_key_is(kw, "$dynamicRef") &&
                !tg_json_key_is(kw, "$recursiveRef"))
                use_member(w, kw, depth);
            continue;
        }
        size_t at = path_push(w, kw->string);
        if (one || keep) walk(w, kw, strip_here && one, depth + 1);
        else if (cJSON_IsArray(kw) || cJSON_IsObject(kw)) {
            int i = 0;
            for (cJSON *b = kw->child; b; b = b->next, i++) {
                char seg[24];
                if (list) snprintf(seg, sizeof seg, "%d", i);
                walk_sub(w, b, list ? seg : b->string, strip_here, depth + 1);
            }
        }
        path_pop(w, at);
    }
}

/* ---------------------------------------------------------------- API */

static void init(hw *w, tg_arena *a, cJSON *doc, const cJSON *hidden, int mode) {
    memset(w, 0, sizeof *w);
    w->a = a;
    w->doc = doc;
    w->hidden = hidden;
    w->mode = mode;
}

/* The next walk of the same document, in mode: what it has found so far
 * (and anchors looked up) is kept, the $ref targets walked start again. */
static void again(hw *w, int mode) {
    w->mode = mode;
    w->nseen = 0;
    w->plen = 0;
    w->path[0] = '\0';
}

static int usable(const cJSON *doc, const cJSON *hidden) {
    return cJSON_IsObject(doc) && cJSON_IsArray(hidden) && hidden->child;
}

int tg_hidden_strip(tg_arena *a, cJSON *doc, const cJSON *hidden) {
    if (!usable(doc, hidden)) return 0;
    hw w;
    init(&w, a, doc, hidden, HW_TARGETS);
    walk(&w, doc, 1, 0);
    for (int i = 0; i < w.nseen; i++) /* (a walk here stops at what is not stripped) */
        w.inplace[w.ninplace++] = w.seen[i];
    again(&w, HW_USES);
    walk(&w, doc, 1, 0);
    if (w.all_shared) w.root_shared = 1;
    if (w.root_shared && !w.oom) make_root_copy(&w);
    again(&w, HW_STRIP);
    walk(&w, doc, 1, 0);
    if (w.root_copy && !w.oom) point_into_copy(&w);
    return w.oom ? -1 : w.lost_copy ? 1 : 0;
}

/* The first "$id" value found twice in s (a copy that had to keep one, see
 * drop_anchors), or NULL. ids[0..*n) holds those seen (up to 256). */
static const char *twice_id(const cJSON *s, const char **ids, int *n, int depth) {
    if (!(cJSON_IsObject(s) || cJSON_IsArray(s)) || depth > HW_USES_DEPTH) return NULL;
    for (const cJSON *kw = s->child; kw; kw = kw->next) {
        if (cJSON_IsObject(s) && tg_kw_is_value(kw)) continue;
        if (cJSON_IsObject(s) && tg_json_key_is(kw, "$id") && cJSON_IsString(kw)) {
            for (int i = 0; i < *n; i++)
                if (!strcmp(ids[i], kw->valuestring)) return kw->valuestring;
            if (*n < 256) ids[(*n)++] = kw->valuestring;
        } else {
            const char *t = twice_id(kw, ids, n, depth + 1);
            if (t) return t;
        }
    }
    return NULL;
}

/* The first reference in s that can reach the root other than by a "#..."
 * pointer or anchor (the copies that keep a nested value's own context
 * parameter cover only those): a $dynamicRef or $recursiveRef, or a $ref by
 * the root's $id URI (root_id, NULL when none), absolute or relative. */
static const cJSON *root_by_uri(const cJSON *s, const char *root_id, int depth) {
    if (!(cJSON_IsObject(s) || cJSON_IsArray(s)) || depth > HW_USES_DEPTH) return NULL;
    for (const cJSON *kw = s->child; kw; kw = kw->next) {
        if (cJSON_IsObject(s) && tg_kw_is_value(kw)) continue;
        if (cJSON_IsObject(s) && (tg_json_key_is(kw, "$dynamicRef") || tg_json_key_is(kw, "$recursiveRef"))) return kw;
        if (cJSON_IsObject(s) && tg_json_key_is(kw, "$ref") && cJSON_IsString(kw) && root_id && kw->valuestring[0] != '#') {
            size_t n = strlen(root_id);
            while (n && root_id[n - 1] == '#') n--;
            if (n && !strncmp(kw->valuestring, root_id, n) && (!kw->valuestring[n] || kw->valuestring[n] == '#')) return kw;
            if (!absolute_ref(kw->valuestring)) return kw; /* (relative to the root's $id: may name it) */
            continue;
        }
        const cJSON *r = root_by_uri(kw, root_id, depth + 1);
        if (r) return r;
    }
    return NULL;
}

int tg_hidden_check(const cJSON *doc, const cJSON *hidden, char *why, size_t n) {
    if (!usable(doc, hidden)) return 0;
    hw w;
    init(&w, NULL, (cJSON *)doc, hidden, HW_CHECK); /* (check mode writes nothing) */
    w.why = why;
    w.why_n = n;
    walk(&w, w.doc, 1, 0);
    if (w.refused) return 1;
    const cJSON *rid = tg_json_getz(doc, "$id");
    const cJSON *uri = root_by_uri(doc, cJSON_IsString(rid) ? rid->valuestring : NULL, 0);
    if (uri) {
        snprintf(why, n,
                 "%s \"%.80s\" can reach the root from a nested value, whose own context parameter would then be "
                 "hidden: not supported (use a \"#\" or \"#/...\" $ref)",
                 uri->string, cJSON_IsString(uri) ? uri->valuestring : "");
        return 1;
    }
    const char *ids[256];
    int nids = 0;
    const char *twice = twice_id(doc, ids, &nids, 0);
    if (twice) {
        snprintf(why, n,
                 "the copy hiding a context parameter needs would hold a second \"$id\" \"%.80s\" (its resource "
                 "resolves references against it): not supported",
                 twice);
        return 1;
    }
    return 0;
}
