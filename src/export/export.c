/* export.c - one MCP Tool descriptor rendered for each provider's tool format.
 *
 * Provider rules this follows (checked 2025):
 *  - Anthropic Messages API rejects the whole request when a tool's
 *    input_schema has oneOf/allOf/anyOf at the top level ("input_schema does
 *    not support oneOf, allOf, or anyOf at the top level"); the root must be
 *    type object. Nested schemas may use full JSON Schema.
 *  - OpenAI function parameters: root type object, no top-level
 *    anyOf/oneOf/allOf/enum/not. Structured Outputs (strict:true): every
 *    object has additionalProperties:false and lists all properties in
 *    required (optional -> union with null); supported: type, properties,
 *    required, additionalProperties:false, items, anyOf (not at root), enum,
 *    const, $ref/$defs (recursion allowed), description, title, string
 *    pattern/format (date-time, time, date, duration, email, hostname, ipv4,
 *    ipv6, uuid), numeric minimum/maximum/exclusive*, multipleOf, array
 *    minItems/maxItems; not supported: allOf, oneOf, not, if/then/else,
 *    dependent*, patternProperties, propertyNames, unevaluated*,
 *    min/maxProperties, contains, uniqueItems, min/maxLength.
 *  - Gemini FunctionDeclaration.parameters: a select subset of the OpenAPI
 *    3.0 Schema object: type, format (per type: string date-time/enum,
 *    integer int32/int64, number float/double), description, nullable, enum (strings),
 *    properties, required, items, min/maxItems, minimum/maximum,
 *    min/maxLength, pattern, anyOf; no $ref, oneOf, allOf, const,
 *    additionalProperties; "for function with no parameters, this can be
 *    left unset"; parameter names match [A-Za-z_][A-Za-z0-9_]{0,63}.
 *
 * Recursion is bounded by EX_MAX_DEPTH; $ref expansion (Gemini) by a
 * recursion stack kept on the C stack plus a global expansion budget. */
#include "export.h"

#include "hidden.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define EX_MAX_DEPTH 64
#define EX_MAX_EXPANSIONS 2000
#define EX_MAX_REF_HOPS 16

typedef struct ex_path {
    const struct ex_path *up;
    const char *s;
    size_t n;
    int raw; /* s is already an escaped pointer fragment starting with '/' */
} ex_path;

typedef struct ex_ctx {
    tg_arena *a;
    const char *name;
    size_t name_len;
    cJSON *report;    /* loss entries go here (may be NULL) */
    cJSON *fails;     /* strict: why it cannot be strict (may be NULL) */
    const cJSON *doc; /* the original inputSchema, for $ref resolution */
    int oom;
    int fail;
    int deep_noted;
    int over;          /* past TG_EXPORT_MAX_BYTES (c->oom is set as well) */
    size_t used0;      /* c->a->used when this tool's rendering started */
    unsigned long steps; /* schema nodes rendered or merged (TG_EXPORT_MAX_STEPS) */
    unsigned expansions;
} ex_ctx;

/* The per-tool bound: once this rendering has taken TG_EXPORT_MAX_BYTES of
 * the arena, every further allocation is refused as if out of memory (the
 * oom path unwinds everything) and the tool is left out (tg_export_tool). */
static int over_budget(ex_ctx *c) {
    if (c->a->used - c->used0 <= TG_EXPORT_MAX_BYTES) return 0;
    c->over = 1;
    c->oom = 1;
    return 1;
}
/* One unit of work (a node rendered or merged); past TG_EXPORT_MAX_STEPS
 * the same as past the memory bound. */
static int step(ex_ctx *c) {
    if (++c->steps <= TG_EXPORT_MAX_STEPS) return 0;
    c->over = 2;
    c->oom = 1;
    return 1;
}

typedef struct ex_refs {
    const cJSON *target;
    const struct ex_refs *up;
} ex_refs;

/* ---------------------------------------------------------------- nodes */

static cJSON *jnew(ex_ctx *c, int type) {
    if (over_budget(c)) return NULL;
    cJSON *n = tg_json_new(c->a, type);
    if (!n) c->oom = 1;
    return n;
}

static cJSON *jstr(ex_ctx *c, const char *s, size_t n) {
    if (over_budget(c)) return NULL;
    cJSON *r = tg_json_new_string(c->a, s, n);
    if (!r) c->oom = 1;
    return r;
}

/* Roughly what cloning x takes, counted only up to `left` (a clone would
 * pass the bound midway: it is refused before it starts). */
static size_t clone_size(const cJSON *x, size_t left) {
    size_t n = 0;
    for (; x && n <= left; x = x->next) {
        n += sizeof(cJSON) + 8;
        if (x->string) n += tg_json_strlen(x->string) + 8;
        if (cJSON_IsString(x) && x->valuestring) n += tg_json_strlen(x->valuestring) + 8;
        if (x->child) n += clone_size(x->child, left - (n <= left ? n : left));
    }
    return n;
}

static cJSON *jclone(ex_ctx *c, const cJSON *x) {
    if (x && over_budget(c)) return NULL;
    if (x && x->child) {
        size_t left = TG_EXPORT_MAX_BYTES - (c->a->used - c->used0);
        size_t need = sizeof(cJSON) + clone_size(x->child, left); /* (x alone, not its siblings) */
        if (need > left) {
            c->over = 1;
            c->oom = 1;
            return NULL;
        }
    }
    cJSON *r = x ? tg_json_clone(c->a, x) : NULL;
    if (x && !r) c->oom = 1;
    return r;
}

/* Appends item under key to obj; returns item (NULL when anything is NULL). */
static cJSON *jputn(ex_ctx *c, cJSON *obj, const char *key, size_t klen, cJSON *item) {
    if (!obj || !item) return NULL;
    if (tg_json_set_key(c->a, item, key, klen)) {
        c->oom = 1;
        return NULL;
    }
    tg_json_append(obj, item);
    return item;
}

static cJSON *jput(ex_ctx *c, cJSON *obj, const char *key, cJSON *item) {
    return jputn(c, obj, key, strlen(key), item);
}

/* Appends a clone of item keeping its own key. */
static cJSON *jputclone(ex_ctx *c, cJSON *obj, const cJSON *item) {
    return jputn(c, obj, item->string, tg_json_strlen(item->string), jclone(c, item));
}

static void jprepend(ex_ctx *c, cJSON *obj, const char *key, cJSON *item) {
    if (!obj || !item) return;
    if (tg_json_set_key(c->a, item, key, strlen(key))) {
        c->oom = 1;
        return;
    }
    if (!obj->child) {
        tg_json_append(obj, item);
        return;
    }
    item->prev = obj->child->prev;
    item->next = obj->child;
    obj->child->prev = item;
    obj->child = item;
}


static void jremove(cJSON *obj, const char *key) {
    cJSON *x = obj ? tg_json_getz(obj, key) : NULL;
    if (x) tg_json_detach(obj, x);
}

/* Puts nw where old is (keeping old's key). */
static void jreplace(cJSON *parent, cJSON *old, cJSON *nw) {
    nw->string = old->string;
    nw->next = old->next;
    nw->prev = (old->prev == old) ? nw : old->prev;
    if (parent->child == old) parent->child = nw;
    else old->prev->next = nw;
    if (old->next) old->next->prev = nw;
    else parent->child->prev = nw;
}



static int in_list(const cJSON *item, const char *const *list) {
    for (; *list; list++)
        if (tg_json_key_is(item, *list)) return 1;
    return 0;
}

static int arr_has(const cJSON *arr, const cJSON *v) {
    for (const cJSON *x = arr ? arr->child : NULL; x; x = x->next)
        if (tg_json_equal(x, v)) return 1;
    return 0;
}

static int arr_len(const cJSON *arr) {
    int n = 0;
    for (const cJSON *x = arr ? arr->child : NULL; x; x = x->next) n++;
    return n;
}

/* 1 for true, {} and absence-equivalent schemas (no constraint). */
static int is_true_schema(const cJSON *s) {
    return cJSON_IsTrue(s) || (cJSON_IsObject(s) && !s->child);
}

/* ---------------------------------------------------------------- report */

static char *path_text(ex_ctx *c, const ex_path *p, size_t *out_len) {
    size_t len = 0;
    for (const ex_path *q = p; q; q = q->up) {
        if (q->raw) len += q->n;
        else {
            len += 1 + q->n;
            for (size_t i = 0; i < q->n; i++)
                if (q->s[i] == '~' || q->s[i] == '/') len++;
        }
    }
    char *buf = tg_arena_alloc(c->a, len + 1);
    if (!buf) {
        c->oom = 1;
        return NULL;
    }
    size_t at = len;
    buf[len] = '\0';
    for (const ex_path *q = p; q; q = q->up) {
        if (q->raw) {
            at -= q->n;
            memcpy(buf + at, q->s, q->n);
        } else {
            for (size_t i = q->n; i-- > 0;) {
                char ch = q->s[i];
                if (ch == '~' || ch == '/') {
                    buf[--at] = ch == '~' ? '0' : '1';
                    buf[--at] = '~';
                } else buf[--at] = ch;
            }
            buf[--at] = '/';
        }
    }
    *out_len = len;
    return buf;
}

static cJSON *entry(ex_ctx *c, const ex_path *p) {
    size_t plen;
    char *ptext = path_text(c, p, &plen);
    if (!ptext) return NULL;
    cJSON *e = jnew(c, cJSON_Object);
    jput(c, e, "tool", jstr(c, c->name, c->name_len));
    jput(c, e, "path", jstr(c, ptext, plen));
    return c->oom ? NULL : e;
}

static void add_issue(ex_ctx *c, cJSON *to, const ex_path *p, const char *fmt, const char *arg, size_t arg_len) {
    if (!to) return;
    char msg[320];
    if (arg) snprintf(msg, sizeof msg, fmt, (int)(arg_len > 64 ? 64 : arg_len), arg);
    else snprintf(msg, sizeof msg, "%s", fmt);
    cJSON *e = entry(c, p);
    if (!e) return;
    jput(c, e, "issue", jstr(c, msg, strlen(msg)));
    tg_json_append(to, e);
}

/* A loss: the model-visible schema is looser than the original here. */
static void note(ex_ctx *c, const ex_path *p, const char *msg) { add_issue(c, c->report, p, msg, NULL, 0); }
/* Same with one "%.*s" argument: a keyword or a $ref. */
static void notek(ex_ctx *c, const ex_path *p, const char *fmt, const cJSON *kw) {
    add_issue(c, c->report, p, fmt, kw->string, tg_json_strlen(kw->string));
}
static void notes(ex_ctx *c, const ex_path *p, const char *fmt, const char *s, size_t n) {
    add_issue(c, c->report, p, fmt, s, n);
}
/* Strict mode impossible here. */
static void strict_fail(ex_ctx *c, const ex_path *p, const char *fmt, const char *arg, size_t n) {
    c->fail++;
    add_issue(c, c->fails, p, fmt, arg, n);
}

static int too_deep(ex_ctx *c, const ex_path *p, int depth) {
    if (depth <= EX_MAX_DEPTH) return 0;
    if (!c->deep_noted) {
        c->deep_noted = 1;
        note(c, p, "schema nested deeper than 64 levels: the deeper part is not rendered");
    }
    return 1;
}

/* ---------------------------------------------------------------- $ref */

/* Resolves a local JSON Pointer fragment ("#", "#/$defs/X") against doc. */
static const cJSON *resolve_ref(const cJSON *doc, const cJSON *ref) {
    return cJSON_IsString(ref) ? tg_json_pointer_ref(doc, ref->valuestring, tg_json_strlen(ref->valuestring)) : NULL;
}

/* ---------------------------------------------------------------- merge */

static const char *const k_annotations[] = {"description", "title", "$comment", "examples", "default",
                                            "deprecated", "readOnly", "writeOnly", "$schema", "$id",
                                            "$anchor", "$dynamicAnchor", "$vocabulary", "example", NULL};
static const char *const k_min[] = {"minimum", "exclusiveMinimum", "minLength", "minItems",
                                    "minProperties", "minContains", NULL};
static const char *const k_max[] = {"maximum", "exclusiveMaximum", "maxLength", "maxItems",
                                    "maxProperties", "maxContains", NULL};

static int type_has(const cJSON *t, const char *name) {
    if (cJSON_IsString(t)) return tg_json_string_is(t, name);
    for (const cJSON *x = t ? t->child : NULL; x; x = x->next)
        if (tg_json_string_is(x, name)) return 1;
    return 0;
}

/* Intersection of two "type" values; NULL when empty. */
static cJSON *type_meet(ex_ctx *c, const cJSON *ta, const cJSON *tb) {
    static const char *const all[] = {"null", "boolean", "object", "array", "number", "string", "integer", NULL};
    cJSON *out = jnew(c, cJSON_Array);
    if (!out) return NULL;
    int n = 0;
    for (int i = 0; all[i]; i++) {
        const char *t = all[i];
        int ina = type_has(ta, t) || (!strcmp(t, "integer") && type_has(ta, "number"));
        int inb = type_has(tb, t) || (!strcmp(t, "integer") && type_has(tb, "number"));
        if (!strcmp(t, "integer") && type_has(ta, "number") && type_has(tb, "number")) continue;
        if (ina && inb) {
            tg_json_append(out, jstr(c, t, strlen(t)));
            n++;
        }
    }
    if (c->oom || n == 0) return NULL;
    if (n == 1) {
        cJSON *one = out->child;
        one->prev = one->next = NULL;
        return one;
    }
    return out;
}

static cJSON *wrap_allof(ex_ctx *c, const cJSON *x, const cJSON *y) {
    cJSON *w = jnew(c, cJSON_Object);
    cJSON *arr = jput(c, w, "allOf", jnew(c, cJSON_Array));
    if (!arr) return NULL;
    cJSON *cx = jclone(c, x), *cy = jclone(c, y);
    if (!cx || !cy) return NULL;
    cx->string = cy->string = NULL;
    tg_json_append(arr, cx);
    tg_json_append(arr, cy);
    return w;
}

/* Keys of b.properties all declared in a.properties? */
/* b's properties and patternProperties are all a's too */
static int props_subset(const cJSON *b, const cJSON *a) {
    static const char *const KW[] = {"properties", "patternProperties"};
    for (int k = 0; k < 2; k++) {
        const cJSON *bp = tg_json_getz(b, KW[k]), *ap = tg_json_getz(a, KW[k]);
        for (const cJSON *x = cJSON_IsObject(bp) ? bp->child : NULL; x; x = x->next)
            if (!tg_json_get(ap, x->string, tg_json_strlen(x->string))) return 0;
    }
    return 1;
}

/* s refuses members it does not declare itself: merged with another
 * branch, the other's members would escape it */
static int closes_props(const cJSON *s) {
    const cJSON *ap = tg_json_getz(s, "additionalProperties"), *up = tg_json_getz(s, "unevaluatedProperties");
    return (ap && !is_true_schema(ap)) || (up && !is_true_schema(up));
}

/* a := a AND b, in place (a is an arena clone). Returns 1 when exact; every
 * inexact step is reported at p. */
static int merge_schema(ex_ctx *c, cJSON *a, const cJSON *b, const ex_path *p, int depth) {
    if (c->oom || step(c)) return 0;
    if (too_deep(c, p, depth)) return 0;
    if (cJSON_IsTrue(b)) return 1;
    if (cJSON_IsFalse(b)) {
        note(c, p, "allOf contains false (no value is valid); not shown to the model");
        return 0;
    }
    if (!cJSON_IsObject(b)) return 1;
    int exact = 1;
    const cJSON *ref = tg_json_getz(b, "$ref");
    if (ref) {
        const cJSON *t = resolve_ref(c->doc, ref);
        if (!t) {
            notes(c, p, "$ref \"%.*s\" cannot be resolved locally; not merged", cJSON_IsString(ref) ? ref->valuestring : "",
                  cJSON_IsString(ref) ? tg_json_strlen(ref->valuestring) : 0);
            exact = 0;
        } else exact &= merge_schema(c, a, t, p, depth + 1);
    }
    /* additionalProperties of one side stops applying to the other's properties */
    if ((closes_props(a) && !props_subset(b, a)) || (closes_props(b) && !props_subset(a, b))) {
        note(c, p, "allOf: additionalProperties/unevaluatedProperties of one branch no longer excludes the properties another "
                   "branch declares");
        exact = 0;
    }
    for (const cJSON *kw = b->child; kw && !c->oom; kw = kw->next) {
        cJSON *have = tg_json_get(a, kw->string, tg_json_strlen(kw->string));
        if (tg_json_key_is(kw, "$ref")) continue;
        if (tg_json_key_is(kw, "allOf")) {
            for (const cJSON *br = cJSON_IsArray(kw) ? kw->child : NULL; br; br = br->next)
                exact &= merge_schema(c, a, br, p, depth + 1);
            continue;
        }
        if (in_list(kw, k_annotations)) {
            if (!have && (tg_json_key_is(kw, "description") || tg_json_key_is(kw, "title"))) jputclone(c, a, kw);
            continue;
        }
        if (!have) {
            jputclone(c, a, kw);
            continue;
        }
        if (tg_json_equal(have, kw)) continue;
        if (tg_json_key_is(kw, "$defs") || tg_json_key_is(kw, "definitions")) {
            for (const cJSON *d = kw->child; d; d = d->next)
                if (!tg_json_get(have, d->string, tg_json_strlen(d->string))) jputclone(c, have, d);
            continue;
        }
        if (tg_json_key_is(kw, "type")) {
            cJSON *m = type_meet(c, have, kw);
            if (m) jreplace(a, have, m);
            else if (!c->oom) {
                note(c, p, "allOf: branches allow no common type (nothing is valid); the first type is shown");
                exact = 0;
            }
            continue;
        }
        if ((tg_json_key_is(kw, "properties") || tg_json_key_is(kw, "patternProperties")) && cJSON_IsObject(have) && cJSON_IsObject(kw)) {
            for (const cJSON *pr = kw->child; pr; pr = pr->next) {
                cJSON *hp = tg_json_get(have, pr->string, tg_json_strlen(pr->string));
                if (!hp) jputclone(c, have, pr);
                else if (!tg_json_equal(hp, pr)) {
                    cJSON *w = wrap_allof(c, hp, pr);
                    if (w) jreplace(have, hp, w);
                }
            }
            continue;
        }
        if (tg_json_key_is(kw, "required") && cJSON_IsArray(have) && cJSON_IsArray(kw)) {
            for (const cJSON *r = kw->child; r; r = r->next)
                if (!arr_has(have, r)) tg_json_append(have, jclone(c, r));
            continue;
        }
        if (tg_json_key_is(kw, "enum") && cJSON_IsArray(have) && cJSON_IsArray(kw)) {
            cJSON *m = jnew(c, cJSON_Array);
            for (const cJSON *v = have->child; v && m; v = v->next)
                if (arr_has(kw, v)) tg_json_append(m, jclone(c, v));
            if (!m) continue;
            if (!m->child) {
                note(c, p, "allOf: the branches' enums have no common value (nothing is valid); the first enum is shown");
                exact = 0;
            } else jreplace(a, have, m);
            continue;
        }
        if ((in_list(kw, k_min) || in_list(kw, k_max)) && cJSON_IsNumber(have) && cJSON_IsNumber(kw)) {
            int want_max = in_list(kw, k_min);
            if (want_max ? kw->valuedouble > have->valuedouble : kw->valuedouble < have->valuedouble) {
                cJSON *m = jclone(c, kw);
                if (m) jreplace(a, have, m);
            }
            continue;
        }
        if (tg_json_key_is(kw, "uniqueItems") && cJSON_IsBool(kw)) {
            if (cJSON_IsTrue(kw)) {
                cJSON *m = jclone(c, kw);
                if (m) jreplace(a, have, m);
            }
            continue;
        }
        if (tg_json_key_is(kw, "items") || tg_json_key_is(kw, "additionalProperties") || tg_json_key_is(kw, "propertyNames") ||
            tg_json_key_is(kw, "unevaluatedProperties") || tg_json_key_is(kw, "unevaluatedItems") || tg_json_key_is(kw, "contentSchema")) {
            if ((cJSON_IsObject(have) || cJSON_IsBool(have)) && (cJSON_IsObject(kw) || cJSON_IsBool(kw))) {
                cJSON *w = wrap_allof(c, have, kw);
                if (w) jreplace(a, have, w);
                continue;
            }
        }
        notek(c, p, "allOf: conflicting \"%.*s\" in two branches; only the first is shown", kw);
        exact = 0;
    }
    return exact;
}

/* Follows a chain of root-only $refs; returns the target or s. *via (may
 * be NULL) gets the last $ref followed, NULL when none. */
static const cJSON *deref(ex_ctx *c, const cJSON *s, const cJSON **via) {
    if (via) *via = NULL;
    for (int hops = 0; hops < EX_MAX_REF_HOPS && cJSON_IsObject(s); hops++) {
        const cJSON *ref = tg_json_getz(s, "$ref");
        if (!ref || arr_len(s) != 1) break;
        const cJSON *t = resolve_ref(c->doc, ref);
        if (!t) break;
        s = t;
        if (via) *via = ref;
    }
    return s;
}

/* ---------------------------------------------------------------- dialect */

/* Provider schemas are 2020-12 (Anthropic refuses a whole request whose
 * schema is not: "must match JSON Schema draft 2020-12"); a tool schema
 * written for draft-04/06/07 or 2019-09 is rewritten into it, losslessly:
 * tuple items -> prefixItems (additionalItems -> items), draft-04's boolean
 * exclusiveMinimum/Maximum -> the numbers, dependencies -> dependentRequired
 * / dependentSchemas. */
static void rename_key(ex_ctx *c, cJSON *x, const char *k) {
    if (tg_json_set_key(c->a, x, k, strlen(k))) c->oom = 1;
}

static void upgrade(ex_ctx *c, cJSON *s, int d4, int pre2019, int depth) {
    if (!cJSON_IsObject(s) || depth > 64 || c->oom) return;
    cJSON *items = tg_json_getz(s, "items"), *more = tg_json_getz(s, "additionalItems");
    if (cJSON_IsArray(items)) {
        rename_key(c, items, "prefixItems");
        if (more) rename_key(c, more, "items");
    } else if (more) {
        tg_json_detach(s, more); /* (without tuple items it never applied) */
    }
    if (d4) {
        static const char *const pairs[2][2] = {{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}};
        for (int i = 0; i < 2; i++) {
            cJSON *ex = tg_json_getz(s, pairs[i][0]), *bound = tg_json_getz(s, pairs[i][1]);
            if (!cJSON_IsBool(ex)) continue;
            if (cJSON_IsTrue(ex) && cJSON_IsNumber(bound)) {
                tg_json_detach(s, ex);
                rename_key(c, bound, pairs[i][0]);
            } else {
                tg_json_detach(s, ex);
            }
        }
    }
    if (pre2019) { /* not keywords before 2019-09: nothing enforced them, so they must not reach a model */
        cJSON *x;
        if ((x = tg_json_getz(s, "dependentRequired"))) tg_json_detach(s, x);
        if ((x = tg_json_getz(s, "dependentSchemas"))) tg_json_detach(s, x);
    }
    cJSON *deps = tg_json_getz(s, "dependencies");
    if (cJSON_IsObject(deps)) {
        /* into the schema's own dependentRequired / dependentSchemas (2019-09,
         * where both apply: a name in both keeps both, required lists joined
         * and schemas under allOf) */
        cJSON *req = tg_json_getz(s, "dependentRequired"), *sch = tg_json_getz(s, "dependentSchemas");
        int new_req = !cJSON_IsObject(req), new_sch = !cJSON_IsObject(sch);
        if (new_req && !(req = jnew(c, cJSON_Object))) return;
        if (new_sch && !(sch = jnew(c, cJSON_Object))) return;
        for (cJSON *d = deps->child; d;) {
            cJSON *next = d->next;
            cJSON *to = cJSON_IsArray(d) ? req : sch;
            tg_json_detach(deps, d);
            cJSON *have = tg_json_get(to, d->string, tg_json_strlen(d->string));
            if (!have) {
                tg_json_append(to, d);
            } else if (cJSON_IsArray(d) && cJSON_IsArray(have)) {
                for (cJSON *e = d->child; e;) {
                    cJSON *en = e->next;
                    if (!arr_has(have, e)) {
                        tg_json_detach(d, e);
                        tg_json_append(have, e);
                    }
                    e = en;
                }
            } else if (!cJSON_IsArray(d) && !cJSON_IsArray(have)) {
                cJSON *both = jnew(c, cJSON_Object), *all = both ? jput(c, both, "allOf", jnew(c, cJSON_Array)) : NULL;
                if (!all) return;
                jreplace(to, have, both);
                have->string = NULL;
                tg_json_append(all, have);
                d->string = NULL;
                tg_json_append(all, d);
            }
            d = next;
        }
        tg_json_detach(s, deps);
        if (new_req && req->child) {
            cJSON *old = tg_json_getz(s, "dependentRequired");
            if (old) tg_json_detach(s, old); /* (not an object: replaced) */
            jput(c, s, "dependentRequired", req);
        }
        if (new_sch && sch->child) {
            cJSON *old = tg_json_getz(s, "dependentSchemas");
            if (old) tg_json_detach(s, old);
            jput(c, s, "dependentSchemas", sch);
        }
    }
    static const char *const one[] = {"additionalProperties", "items", "contains", "not", "if", "then", "else",
                                      "propertyNames", "unevaluatedProperties", "unevaluatedItems", NULL};
    static const char *const many[] = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                                       "prefixItems", "allOf", "anyOf", "oneOf", NULL};
    for (const char *const *k = one; *k; k++) upgrade(c, tg_json_getz(s, *k), d4, pre2019, depth + 1);
    for (const char *const *k = many; *k; k++) {
        cJSON *m = tg_json_getz(s, *k);
        if (cJSON_IsObject(m) || cJSON_IsArray(m))
            for (cJSON *x = m->child; x; x = x->next) upgrade(c, x, d4, pre2019, depth + 1);
    }
}

/* A root that declares an older dialect, rewritten as 2020-12 (its
 * $schema goes: what is left is 2020-12). */
static void upgrade_root(ex_ctx *c, cJSON *s) {
    cJSON *decl = tg_json_getz(s, "$schema");
    if (!cJSON_IsString(decl)) return;
    const char *v = decl->valuestring;
    int d4 = strstr(v, "draft-04") != NULL;
    if (!d4 && !strstr(v, "draft-06") && !strstr(v, "draft-07") && !strstr(v, "2019-09")) return;
    upgrade(c, s, d4, d4 || strstr(v, "draft-06") || strstr(v, "draft-07"), 0);
    tg_json_detach(s, decl); /* (lossless: nothing to report) */
}

/* ---------------------------------------------------------------- rehome */

/* A rendering's "#..." $refs resolve against the rendering. Root
 * normalisation removes or changes what some pointed at ("#/allOf/0/...",
 * "#/properties/x" after a merge, "#" itself), and a renderer may reshape a
 * definition (strict merges its allOf), so each ref that points anywhere
 * but at a definition itself ("#/$defs/X") is pointed instead at a copy of its
 * original target (c->doc, the schema before the root changes; failing
 * that orig, the inputSchema as given, for a target hidden properties
 * took away) placed in the rendering's "$defs": exact, and one copy per
 * ref text. A ref found in neither is dropped (reported): no rendering
 * holds a dangling $ref. */
typedef struct rehome {
    cJSON *defs;     /* the rendering's $defs (made when needed) */
    cJSON *made;     /* ref text -> $defs key, for each copy made */
    const cJSON *orig;
    const ex_path *root;
    int only_dangling; /* (MCP) only the refs that resolve nowhere in the rendering */
} rehome;

/* The definition name in r after "#/$defs/" or "#/definitions/", or NULL. */
static const char *defs_tail(const char *r) {
    return !strncmp(r, "#/$defs/", 8) ? r + 8 : !strncmp(r, "#/definitions/", 14) ? r + 14 : NULL;
}

/* r names a definition itself (not a place inside one). */
static int points_at_def(const char *r) {
    const char *t = defs_tail(r);
    return t && !strchr(t, '/');
}

/* A fresh $defs key from the pointer: "#/allOf/0/properties/home" ->
 * "allOf_0_properties_home", "#/$defs/root/allOf/0" -> "root_allOf_0"
 * (characters outside [A-Za-z0-9_.-] as "_"), "root" for "#", with "_2",
 * "_3", ... when taken. */
static cJSON *fresh_key(ex_ctx *c, rehome *h, const char *r) {
    char base[64], key[80];
    size_t n = 0;
    const char *in_def = defs_tail(r);
    for (const char *p = in_def ? in_def : r[1] && r[2] ? r + 2 : "root"; *p && n < sizeof base - 1; p++)
        base[n++] = (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-') ? *p : '_';
    base[n] = '\0';
    snprintf(key, sizeof key, "%s", base);
    for (int i = 2; tg_json_getz(h->defs, key); i++) snprintf(key, sizeof key, "%s_%d", base, i);
    return jstr(c, key, strlen(key));
}

/* The "#/$defs/<key>" text for ref r, copying its target on first use; NULL
 * when r resolves nowhere (or on out-of-memory). */
static cJSON *rehomed(ex_ctx *c, rehome *h, cJSON *s, const cJSON *ref) {
    const char *r = ref->valuestring;
    const cJSON *key = tg_json_getz(h->made, r);
    if (!key) {
        const cJSON *t = resolve_ref(c->doc, ref);
        if (!t) t = resolve_ref(h->orig, ref);
        if (!t) return NULL;
        if (!h->defs && !(h->defs = jput(c, s, "$defs", jnew(c, cJSON_Object)))) return NULL;
        cJSON *k = fresh_key(c, h, r), *copy = jclone(c, t);
        if (!k || !copy || tg_json_set_key(c->a, copy, k->valuestring, tg_json_strlen(k->valuestring))) {
            c->oom = 1;
            return NULL;
        }
        /* one URI or anchor names one schema, the original: the copy of
         * the root leaves out what makes it a resource and its definitions
         * (its $refs name the rendering's own), and every copy its anchors
         * and nested $ids, unless a nested resource resolves references
         * against its $id: then the tool is left out (not exact) */
        if (!r[1]) {
            static const char *const k_resource[] = {"$id", "$schema", "$vocabulary", "$defs", "definitions", NULL};
            for (int i = 0; k_resource[i]; i++) jremove(copy, k_resource[i]);
        }
        if (tg_hidden_unname_copy(copy)) {
            c->over = 3;
            c->oom = 1;
            return NULL;
        }
        tg_json_append(h->defs, copy);
        if (!(key = jputn(c, h->made, r, tg_json_strlen(r), k))) return NULL;
    }
    char text[96];
    snprintf(text, sizeof text, "#/$defs/%s", key->valuestring);
    return jstr(c, text, strlen(text));
}

static int is_local_pointer_ref(const cJSON *m) {
    return tg_json_key_is(m, "$ref") && cJSON_IsString(m) && m->valuestring[0] == '#' &&
           (!m->valuestring[1] || m->valuestring[1] == '/') && !points_at_def(m->valuestring);
}

static void rehome_at(ex_ctx *c, rehome *h, cJSON *doc, cJSON *s, const ex_path *p, int depth) {
    if (!(cJSON_IsObject(s) || cJSON_IsArray(s)) || depth > EX_MAX_DEPTH || c->oom) return;
    for (cJSON *m = s->child, *next; m && !c->oom; m = next) {
        next = m->next;
        if (cJSON_IsObject(s) && (tg_json_key_is(m, "enum") || tg_json_key_is(m, "const") || tg_json_key_is(m, "default") ||
                                  tg_json_key_is(m, "examples")))
            continue; /* (values, not schemas) */
        if (!cJSON_IsObject(s) || !is_local_pointer_ref(m) || (h->only_dangling && resolve_ref(doc, m))) {
            rehome_at(c, h, doc, m, p, depth + 1);
            continue;
        }
        cJSON *to = rehomed(c, h, doc, m);
        if (to) jreplace(s, m, to);
        else if (!c->oom) {
            notes(c, p, "$ref \"%.*s\" resolves to nothing in this rendering; dropped", m->valuestring,
                  tg_json_strlen(m->valuestring));
            tg_json_detach(s, m);
        }
    }
}

static void rehome_refs(ex_ctx *c, cJSON *s, const cJSON *orig, const ex_path *root, int only_dangling) {
    cJSON *defs = tg_json_getz(s, "$defs");
    rehome h = {cJSON_IsObject(defs) ? defs : NULL, jnew(c, cJSON_Object), orig, root, only_dangling};
    if (!h.made) return;
    rehome_at(c, &h, s, s, root, 0);
    /* the copies made, whose own refs the walk may have passed (a copy made
     * while walking makes its entry after this one) */
    for (const cJSON *k = h.made->child; k && !c->oom; k = k->next)
        rehome_at(c, &h, s, tg_json_getz(h.defs, k->valuestring), root, 1);
}

/* ---------------------------------------------------------------- unused copies */

/* The stripped copies context parameters take for the root's in-place $refs
 * (hidden.h) are merged into the root with the rest of what applies in place
 * to it, and then may be named by nothing: a definition the rendering added
 * that no $ref names, from the root or from what stays (every definition of
 * the inputSchema stays, used or not), is dropped. */
#define EX_MAX_ADDED 64
#define EX_MAX_REACHED 256

typedef struct reach {
    const cJSON *doc;
    cJSON *added[EX_MAX_ADDED]; /* definitions the rendering added */
    cJSON *home[EX_MAX_ADDED];  /* ... the object each is in */
    unsigned char used[EX_MAX_ADDED];
    int nadded;
    const cJSON *seen[EX_MAX_REACHED]; /* $ref targets read */
    int nseen;
    int lost; /* more than this follows: nothing is dropped */
} reach;

static const char *const k_schema_one[] = {"items", "additionalItems", "additionalProperties", "contains", "propertyNames",
                                           "if", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties",
                                           "contentSchema", "allOf", "anyOf", "oneOf", "prefixItems", NULL};

/* 1 when ref text r[0..rn) names definition def of home (key kw) or a place in it. */
static int names_def(const char *r, size_t rn, const char *kw, const cJSON *def) {
    size_t kn = strlen(kw), dn = tg_json_strlen(def->string);
    if (rn < 3 + kn + dn || strncmp(r, "#/", 2) || memcmp(r + 2, kw, kn) || r[2 + kn] != '/' ||
        memcmp(r + 3 + kn, def->string, dn))
        return 0;
    return rn == 3 + kn + dn || r[3 + kn + dn] == '/';
}

static void reach_schema(reach *h, const cJSON *s, int depth);

static void reach_ref(reach *h, const cJSON *ref, int depth) {
    size_t rn = tg_json_strlen(ref->valuestring);
    for (int i = 0; i < h->nadded; i++)
        if (!h->used[i] && names_def(ref->valuestring, rn, h->home[i]->string, h->added[i])) {
            h->used[i] = 1; /* (all of it stays: all it names is read) */
            reach_schema(h, h->added[i], depth + 1);
        }
    const cJSON *t = resolve_ref(h->doc, ref);
    if (!t) return;
    for (int i = 0; i < h->nseen; i++)
        if (h->seen[i] == t) return;
    if (h->nseen == EX_MAX_REACHED) {
        h->lost = 1;
        return;
    }
    h->seen[h->nseen++] = t;
    reach_schema(h, t, depth + 1);
}

/* Anything (an unknown keyword's value): every "$ref" in it is read. */
static void reach_any(reach *h, const cJSON *v, int depth) {
    if (!(cJSON_IsObject(v) || cJSON_IsArray(v)) || h->lost) return;
    if (depth > EX_MAX_DEPTH * 4) {
        h->lost = 1;
        return;
    }
    for (const cJSON *m = v->child; m; m = m->next) {
        if (cJSON_IsObject(v) && tg_json_key_is(m, "$ref") && cJSON_IsString(m)) reach_ref(h, m, depth);
        else reach_any(h, m, depth + 1);
    }
}

static void reach_schema(reach *h, const cJSON *s, int depth) {
    if (!(cJSON_IsObject(s) || cJSON_IsArray(s)) || h->lost) return;
    if (depth > EX_MAX_DEPTH * 4) {
        h->lost = 1;
        return;
    }
    if (cJSON_IsArray(s)) {
        for (const cJSON *b = s->child; b; b = b->next) reach_schema(h, b, depth + 1);
        return;
    }
    for (const cJSON *kw = s->child; kw; kw = kw->next) {
        if (tg_kw_is_value(kw) || tg_kw_is_defs(kw)) continue;
        if (tg_json_key_is(kw, "$ref") && cJSON_IsString(kw)) reach_ref(h, kw, depth);
        else if (in_list(kw, k_schema_one)) reach_schema(h, kw, depth + 1);
        else if (tg_kw_is_map(kw) && cJSON_IsObject(kw))
            for (const cJSON *m = kw->child; m; m = m->next) reach_schema(h, m, depth + 1);
        else reach_any(h, kw, depth + 1);
    }
}

static void drop_unused_added(cJSON *s, const cJSON *in) {
    reach h;
    memset(&h, 0, sizeof h);
    h.doc = s;
    static const char *const homes[] = {"$defs", "definitions"};
    for (int k = 0; k < 2; k++) {
        cJSON *home = tg_json_getz(s, homes[k]);
        const cJSON *had = cJSON_IsObject(in) ? tg_json_getz(in, homes[k]) : NULL;
        for (cJSON *d = cJSON_IsObject(home) ? home->child : NULL; d && h.nadded < EX_MAX_ADDED; d = d->next)
            if (!(cJSON_IsObject(had) && tg_json_get(had, d->string, tg_json_strlen(d->string)))) {
                h.home[h.nadded] = home;
                h.added[h.nadded++] = d;
            }
    }
    if (!h.nadded) return;
    reach_schema(&h, s, 0);
    for (int k = 0; k < 2; k++) {
        const cJSON *home = tg_json_getz(s, homes[k]);
        for (const cJSON *d = cJSON_IsObject(home) ? home->child : NULL; d && !h.lost; d = d->next) {
            int added = 0;
            for (int i = 0; i < h.nadded && !added; i++) added = h.added[i] == d;
            if (!added) reach_schema(&h, d, 1);
        }
    }
    if (h.lost) return;
    for (int i = 0; i < h.nadded; i++) {
        if (h.used[i]) continue;
        cJSON *home = h.home[i];
        tg_json_detach(home, h.added[i]);
        if (!home->child && !(cJSON_IsObject(in) && tg_json_get(in, home->string, tg_json_strlen(home->string)))) tg_json_detach(s, home);
    }
}

/* ---------------------------------------------------------------- root */

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
    note(c, &prop, msg);
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
    cJSON *added = jnew(c, cJSON_Object); /* name -> a slot: null, valueint = the name's first declaration */
    cJSON *req_all = NULL;
    int nb = arr_len(arr), nd = 0, n_open = 0;
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
        nd += cJSON_IsObject(bp) ? arr_len(bp) : 0;
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
        for (const cJSON *pr = cJSON_IsObject(bp) ? bp->child : NULL; pr && !c->oom && !step(c); pr = pr->next, k++) {
            decls[k] = (ex_decl){pr, i, -1};
            size_t kn = tg_json_strlen(pr->string);
            cJSON *slot = tg_json_get(added, pr->string, kn);
            if (slot) {
                decls[tails[slot->valueint]].next = k;
                tails[slot->valueint] = k;
            } else if ((slot = jputn(c, added, pr->string, kn, jnew(c, cJSON_NULL))) != NULL) {
                slot->valueint = tails[k] = k;
            }
        }
        const cJSON *br = cJSON_IsObject(b) ? tg_json_getz(b, "required") : NULL;
        if (i == 0) req_all = cJSON_IsArray(br) ? jclone(c, br) : jnew(c, cJSON_Array);
        else if (req_all) {
            for (cJSON *r = req_all->child; r;) {
                cJSON *next = r->next;
                if (!arr_has(br, r)) tg_json_detach(req_all, r);
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
                if (cJSON_IsFalse(def) || is_true_schema(def) || tg_json_equal(def, own)) continue;
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
        cJSON *defs = jnew(c, cJSON_Array);
        int any_at = nb, first_at = -1;
        for (k = x->valueint; k >= 0 && defs; k = decls[k].next) {
            const cJSON *def = decls[k].def;
            if (cJSON_IsFalse(def)) continue;
            if (is_true_schema(def)) {
                if (decls[k].branch < any_at) any_at = decls[k].branch;
                continue;
            }
            if (first_at < 0) first_at = decls[k].branch;
            if (arr_has(defs, def)) continue;
            cJSON *d = jclone(c, def);
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
            shown = jnew(c, cJSON_Object);
            static const char *const words[] = {"title", "description", NULL};
            for (int w = 0; words[w] && shown && defs->child; w++) {
                const cJSON *t = cJSON_IsObject(defs->child) ? tg_json_getz(defs->child, words[w]) : NULL;
                if (t) jputclone(c, shown, t);
            }
            snprintf(msg, sizeof msg, "shown without constraints: the top-level %s's branch %d allows any value for this "
                     "property", kw, any_at);
            looser = first_at >= 0; /* (no branch defines it: {} is exact) */
        } else if (arr_len(defs) > 1) {
            shown = jnew(c, cJSON_Object);
            jput(c, shown, "anyOf", defs);
            snprintf(msg, sizeof msg, "the top-level %s's branches define this property differently: shown as an anyOf of "
                     "their %d definitions (which one goes with which other properties is not shown)", kw, arr_len(defs));
            looser = 1;
        } else if (defs->child) { /* one definition, the same in every branch that allows the property: exact */
            shown = defs->child;
            tg_json_detach(defs, shown);
        } else shown = jnew(c, cJSON_False); /* (every branch refuses it) */
        if (!shown || c->oom) return;
        if (looser) note_branch_prop(c, p, &brs[first_at], first_at, x->string, kn, msg);
        jreplace(added, x, shown);
        x = next;
    }
    if (c->oom) return;
    if (added->child) {
        if (!props) props = jput(c, s, "properties", jnew(c, cJSON_Object));
        for (cJSON *x = added->child; x && props;) {
            cJSON *next = x->next;
            tg_json_append(props, x);
            x = next;
        }
    }
    if (req_all && req_all->child) {
        cJSON *req = tg_json_getz(s, "required");
        if (!req) req = jput(c, s, "required", jnew(c, cJSON_Array));
        for (cJSON *r = req_all->child; r && req;) {
            cJSON *next = r->next;
            if (!arr_has(req, r)) tg_json_append(req, r);
            r = next;
        }
    }
    snprintf(msg, sizeof msg,
             "top-level %s with %d branches is not accepted by this provider: the root shows the union of the "
             "branches' properties and requires only what every branch requires%s",
             kw, nb, !strcmp(kw, "oneOf") ? " (that exactly one branch must match is not shown)" : "");
    note(c, p, msg);
}

static cJSON *normalize_root(ex_ctx *c, const cJSON *in, const cJSON *hidden, const ex_path *root) {
    cJSON *s;
    if (!in || cJSON_IsTrue(in)) {
        if (!in) note(c, root, "inputSchema missing: shown as an object schema without properties");
        s = jnew(c, cJSON_Object);
    } else if (!cJSON_IsObject(in)) {
        note(c, root, "inputSchema is not an object schema: shown as an object schema without properties");
        s = jnew(c, cJSON_Object);
    } else s = jclone(c, in);
    if (!s) return NULL;
    s->string = NULL;
    /* (every in-place branch and $ref target: what is merged below comes
     * stripped; before the upgrade, on the form registration checked, where
     * its $refs resolve: "#/items/0" names nothing once items is prefixItems) */
    if (tg_hidden_strip(c->a, s, hidden)) {
        c->oom = 1;
        return NULL;
    }
    upgrade_root(c, s);
    /* $refs resolve against the schema as it was before the root changes
     * below (merged branches go away); rehome_refs points the rendering's
     * refs into it back at copies */
    c->doc = s;
    s = jclone(c, s);
    if (!s) return NULL;

    /* root $ref and allOf: merged into the root */
    cJSON *ref = tg_json_getz(s, "$ref");
    cJSON *all = tg_json_getz(s, "allOf");
    if (ref || all) {
        if (ref) tg_json_detach(s, ref);
        if (all) tg_json_detach(s, all);
        ex_path pa = {root, "allOf", 5, 0};
        if (ref) {
            cJSON *b = jnew(c, cJSON_Object);
            if (!b) return NULL;
            jputclone(c, b, ref);
            ex_path pr = {root, "$ref", 4, 0};
            merge_schema(c, s, b, &pr, 1);
        }
        for (const cJSON *br = cJSON_IsArray(all) ? all->child : NULL; br; br = br->next)
            merge_schema(c, s, br, &pa, 1);
    }
    /* anyOf / oneOf */
    static const char *const comb[] = {"anyOf", "oneOf"};
    for (int i = 0; i < 2 && !c->oom; i++) {
        cJSON *arr = tg_json_getz(s, comb[i]);
        if (!arr) continue;
        tg_json_detach(s, arr);
        ex_path pc = {root, comb[i], strlen(comb[i]), 0};
        if (!cJSON_IsArray(arr) || !arr->child) continue;
        if (!arr->child->next) merge_schema(c, s, arr->child, &pc, 1);
        else loosen_root_union(c, s, arr, &pc, comb[i]);
    }
    /* keywords a root may not carry */
    static const char *const bad[] = {"not", "enum", "const", NULL};
    for (int i = 0; bad[i]; i++) {
        cJSON *x = tg_json_getz(s, bad[i]);
        if (!x) continue;
        ex_path pk = {root, bad[i], strlen(bad[i]), 0};
        notek(c, &pk, "top-level \"%.*s\" is not accepted by this provider; dropped", x);
        tg_json_detach(s, x);
    }
    /* type object, first */
    cJSON *t = tg_json_getz(s, "type");
    if (t && s->child != t) {
        tg_json_detach(s, t);
        t->string = NULL;
        jprepend(c, s, "type", t);
    }
    if (!t) jprepend(c, s, "type", jstr(c, "object", 6));
    else if (!tg_json_string_is(t, "object")) {
        if (type_has(t, "object")) {
            cJSON *o = jstr(c, "object", 6);
            if (o) jreplace(s, t, o);
        } else {
            ex_path pt = {root, "type", 4, 0};
            note(c, &pt, "the root schema does not describe an object: shown as an object schema without properties");
            cJSON *keep = tg_json_getz(s, "$defs"), *keep2 = tg_json_getz(s, "definitions");
            s = jnew(c, cJSON_Object);
            jput(c, s, "type", jstr(c, "object", 6));
            if (keep) jputclone(c, s, keep);
            if (keep2) jputclone(c, s, keep2);
        }
    }
    rehome_refs(c, s, in, root, 0);
    if (!c->oom) drop_unused_added(s, in);
    c->doc = s; /* (what the renderers below resolve against) */
    return c->oom ? NULL : s;
}

/* OpenAI and Gemini refuse an array schema without "items", at any depth
 * and in a type union ("array schema missing items": the whole request
 * fails): each
 * such schema of a rendering gets "items": {} (exact: any item). Only the
 * places that hold schemas are walked, never enum/const/default values. */
static void fill_items(ex_ctx *c, cJSON *s, int depth) {
    static const char *const one[] = {"items", "not", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
                                      "additionalItems", "contains", "propertyNames", "if", "then", "else", NULL};
    static const char *const list[] = {"anyOf", "oneOf", "allOf", "prefixItems", "items", NULL};
    static const char *const map[] = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", NULL};
    if (!cJSON_IsObject(s) || depth > EX_MAX_DEPTH || c->oom) return;
    const cJSON *t = tg_json_getz(s, "type");
    if ((tg_json_string_is(t, "array") || (cJSON_IsArray(t) && type_has(t, "array"))) && !tg_json_getz(s, "items"))
        jput(c, s, "items", jnew(c, cJSON_Object));
    for (cJSON *kw = s->child; kw; kw = kw->next) {
        if (in_list(kw, one) && cJSON_IsObject(kw)) fill_items(c, kw, depth + 1);
        else if (in_list(kw, list) && cJSON_IsArray(kw))
            for (cJSON *b = kw->child; b; b = b->next) fill_items(c, b, depth + 1);
        else if (in_list(kw, map) && cJSON_IsObject(kw))
            for (cJSON *b = kw->child; b; b = b->next) fill_items(c, b, depth + 1);
    }
}

/* ---------------------------------------------------------------- OpenAI strict */

static const char *const k_strict_fail[] = {"patternProperties", "propertyNames", "if", "then", "else", "not",
                                            "dependentSchemas", "dependentRequired", "dependencies",
                                            "prefixItems", "additionalItems", "unevaluatedItems",
                                            "$dynamicRef", "$recursiveRef", NULL};
static const char *const k_strict_keep[] = {"description", "title", "pattern", "minimum", "maximum",
                                            "multipleOf", "minItems", "maxItems", "enum", "const", NULL};
static const char *const k_strict_drop_loss[] = {"minLength", "maxLength", "uniqueItems", "contains",
                                                 "minContains", "maxContains", "minProperties",
                                                 "maxProperties", NULL};
static const char *const k_strict_formats[] = {"date-time", "time", "date", "duration", "email", "hostname",
                                               "ipv4", "ipv6", "uuid", NULL};

/* Infers "type" from enum/const values; NULL when mixed or impossible. */
static const char *value_type(const cJSON *v) {
    switch (v->type & 0xFF) {
    case cJSON_String: return "string";
    case cJSON_Number: return tg_json_is_integer(v) ? "integer" : "number";
    case cJSON_True:
    case cJSON_False: return "boolean";
    case cJSON_NULL: return "null";
    case cJSON_Array: return "array";
    default: return "object";
    }
}

static cJSON *infer_type(ex_ctx *c, const cJSON *s) {
    const cJSON *cst = tg_json_getz(s, "const"), *en = tg_json_getz(s, "enum");
    if (cst) return jstr(c, value_type(cst), strlen(value_type(cst)));
    if (cJSON_IsArray(en) && en->child) {
        cJSON *arr = jnew(c, cJSON_Array);
        int ints_only = 1, has_num = 0;
        for (const cJSON *v = en->child; v; v = v->next) {
            const char *t = value_type(v);
            if (!strcmp(t, "integer") || !strcmp(t, "number")) {
                has_num = 1;
                if (strcmp(t, "integer")) ints_only = 0;
            }
        }
        for (const cJSON *v = en->child; v && arr; v = v->next) {
            const char *t = value_type(v);
            if (!strcmp(t, "integer") || !strcmp(t, "number")) t = ints_only ? "integer" : "number";
            cJSON *ts = jstr(c, t, strlen(t));
            if (!ts) return NULL;
            if (!arr_has(arr, ts)) tg_json_append(arr, ts);
        }
        (void)has_num;
        if (arr && arr->child && !arr->child->next) {
            cJSON *one = arr->child;
            one->prev = one->next = NULL;
            return one;
        }
        return arr;
    }
    if (tg_json_getz(s, "properties")) return jstr(c, "object", 6);
    if (tg_json_getz(s, "items")) return jstr(c, "array", 5);
    return NULL;
}

/* Makes a rendered strict schema also accept null. Returns the schema to use
 * (maybe a new anyOf wrapper); *already = 1 when it accepted null before. */
static cJSON *make_nullable(ex_ctx *c, cJSON *x, int *already) {
    *already = 0;
    cJSON *t = tg_json_getz(x, "type"), *en = tg_json_getz(x, "enum"), *any = tg_json_getz(x, "anyOf");
    cJSON *nul = jnew(c, cJSON_NULL);
    if (!nul) return x;
    if (tg_json_getz(x, "const") || tg_json_getz(x, "$ref") || (!t && !any)) {
        if (cJSON_IsNull(tg_json_getz(x, "const"))) {
            *already = 1;
            return x;
        }
        cJSON *w = jnew(c, cJSON_Object);
        cJSON *arr = jput(c, w, "anyOf", jnew(c, cJSON_Array));
        cJSON *nt = jnew(c, cJSON_Object);
        jput(c, nt, "type", jstr(c, "null", 4));
        if (!arr || !nt) return x;
        x->string = NULL;
        tg_json_append(arr, x);
        tg_json_append(arr, nt);
        return w;
    }
    if (t) {
        if (type_has(t, "null")) {
            *already = 1;
            return x;
        }
        if (cJSON_IsString(t)) {
            cJSON *arr = jnew(c, cJSON_Array);
            cJSON *t1 = jclone(c, t);
            if (!arr || !t1) return x;
            t1->string = NULL;
            tg_json_append(arr, t1);
            jreplace(x, t, arr);
            t = arr;
        }
        tg_json_append(t, jstr(c, "null", 4));
        if (cJSON_IsArray(en) && !arr_has(en, nul)) tg_json_append(en, nul);
        return x;
    }
    /* anyOf without type */
    for (const cJSON *b = any->child; b; b = b->next)
        if (type_has(tg_json_getz(b, "type"), "null")) {
            *already = 1;
            return x;
        }
    cJSON *nt = jnew(c, cJSON_Object);
    jput(c, nt, "type", jstr(c, "null", 4));
    if (nt) tg_json_append(any, nt);
    return x;
}

static void nullable_entry(ex_ctx *c, cJSON *to, const ex_path *rendered) {
    if (!to) return;
    size_t plen;
    char *ptext = path_text(c, rendered, &plen);
    cJSON *e = jnew(c, cJSON_Object);
    if (!ptext || !e) return;
    jput(c, e, "tool", jstr(c, c->name, c->name_len));
    jput(c, e, "path", jstr(c, ptext, plen));
    jput(c, e, "nullable", jnew(c, cJSON_True));
    tg_json_append(to, e);
}

/* Rendered pointer (for nullable entries) and report pointer ("/inputSchema"
 * + rendered pointer) travel together. */
typedef struct ex_spath {
    const ex_path *rep; /* report path */
    const ex_path *out; /* rendered path (NULL = root) */
} ex_spath;

static cJSON *strict_node(ex_ctx *c, const cJSON *s, ex_spath p, int depth, int is_root, cJSON *nullables);

static cJSON *strict_sub(ex_ctx *c, const cJSON *s, ex_spath p, const char *k, size_t kn, int depth,
                         cJSON *nullables) {
    ex_path r = {p.rep, k, kn, 0}, o = {p.out, k, kn, 0};
    ex_spath q = {&r, &o};
    return strict_node(c, s, q, depth + 1, 0, nullables);
}

static cJSON *strict_node(ex_ctx *c, const cJSON *s, ex_spath p, int depth, int is_root, cJSON *nullables) {
    if (c->oom || step(c)) return NULL;
    if (depth > EX_MAX_DEPTH) {
        strict_fail(c, p.rep, "schema nested deeper than 64 levels", NULL, 0);
        return jnew(c, cJSON_Object);
    }
    if (!cJSON_IsObject(s) || !s->child) {
        strict_fail(c, p.rep, cJSON_IsFalse(s) ? "schema false (nothing allowed) cannot be expressed in strict mode"
                                               : "unconstrained schema (any JSON value) cannot be expressed in strict mode",
                    NULL, 0);
        return jnew(c, cJSON_Object);
    }
    if (tg_json_getz(s, "$ref")) {
        /* OpenAI refuses any keyword beside $ref ("$ref cannot have keywords"):
         * annotations are dropped (exact); a constraint beside it cannot be
         * rendered without changing what is valid */
        for (const cJSON *kw = s->child; kw; kw = kw->next)
            if (!tg_json_key_is(kw, "$ref") && !in_list(kw, k_annotations) && !tg_json_key_is(kw, "$defs") && !tg_json_key_is(kw, "definitions")) {
                ex_path rk = {p.rep, kw->string, tg_json_strlen(kw->string), 0};
                strict_fail(c, &rk, "\"%.*s\" beside $ref cannot be expressed in strict mode (OpenAI allows no keyword beside $ref)",
                            kw->string, tg_json_strlen(kw->string));
            }
        if (!is_root) {
            cJSON *out = jnew(c, cJSON_Object);
            jputclone(c, out, tg_json_getz(s, "$ref"));
            if (!resolve_ref(c->doc, tg_json_getz(s, "$ref")))
                strict_fail(c, p.rep, "$ref is not a local reference into this schema", NULL, 0);
            return c->oom ? NULL : out;
        }
    }
    cJSON *tmp = NULL;
    if (tg_json_getz(s, "allOf")) {
        tmp = jclone(c, s);
        if (!tmp) return NULL;
        cJSON *all = tg_json_getz(tmp, "allOf");
        tg_json_detach(tmp, all);
        ex_path pa = {p.rep, "allOf", 5, 0};
        int exact = 1;
        for (const cJSON *b = cJSON_IsArray(all) ? all->child : NULL; b; b = b->next)
            exact &= merge_schema(c, tmp, b, &pa, depth + 1);
        if (!exact) strict_fail(c, &pa, "allOf could not be merged exactly (allOf is not supported in strict mode)", NULL, 0);
        s = tmp;
    }
    cJSON *out = jnew(c, cJSON_Object);
    if (!out) return NULL;
    const cJSON *type = tg_json_getz(s, "type");
    const cJSON *props = tg_json_getz(s, "properties");
    int is_object = type ? type_has(type, "object") : props != NULL;
    if (!type) {
        if (!tg_json_getz(s, "$ref") && !tg_json_getz(s, "anyOf") && !tg_json_getz(s, "oneOf")) {
            cJSON *t = infer_type(c, s);
            if (t) jput(c, out, "type", t);
            else if (!c->oom) strict_fail(c, p.rep, "schema without a type cannot be expressed in strict mode", NULL, 0);
        }
    }
    int has_any = tg_json_getz(s, "anyOf") != NULL;
    for (const cJSON *kw = s->child; kw && !c->oom; kw = kw->next) {
        size_t kn = tg_json_strlen(kw->string);
        ex_path rk = {p.rep, kw->string, kn, 0};
        if (tg_json_key_is(kw, "type")) jputclone(c, out, kw);
        else if (tg_json_key_is(kw, "properties") || tg_json_key_is(kw, "required")) continue;
        else if (tg_json_key_is(kw, "additionalProperties") || tg_json_key_is(kw, "unevaluatedProperties")) {
            if (!cJSON_IsFalse(kw))
                strict_fail(c, &rk, cJSON_IsTrue(kw) || is_true_schema(kw)
                                        ? "\"%.*s\" allows extra keys (open map); strict mode needs false"
                                        : "\"%.*s\" schema (a map with free keys) is not supported in strict mode",
                            kw->string, kn);
        } else if (in_list(kw, k_strict_fail))
            strict_fail(c, &rk, "\"%.*s\" is not supported in strict mode", kw->string, kn);
        else if (tg_json_key_is(kw, "items")) {
            if (cJSON_IsArray(kw)) strict_fail(c, &rk, "tuple \"items\" (an array of schemas) is not supported in strict mode", NULL, 0);
            else jput(c, out, "items", strict_sub(c, kw, p, "items", 5, depth, nullables));
        } else if (tg_json_key_is(kw, "anyOf") || tg_json_key_is(kw, "oneOf")) {
            if (!cJSON_IsArray(kw) || !kw->child) {
                strict_fail(c, &rk, "empty \"%.*s\"", kw->string, kn);
                continue;
            }
            /* an object's own properties beside a union of objects: strict
             * mode closes each on its own (additionalProperties: false), and
             * no value could then match both (the root's union is merged
             * before, in normalize_root) */
            if (!is_root && tg_json_getz(s, "properties")) {
                int objects = 0;
                for (const cJSON *b = kw->child; b; b = b->next) {
                    const cJSON *bt = cJSON_IsObject(b) ? tg_json_getz(b, "type") : NULL;
                    objects |= cJSON_IsObject(b) && (tg_json_getz(b, "properties") != NULL ||
                                                     (cJSON_IsString(bt) && strcmp(bt->valuestring, "object") == 0));
                }
                if (objects) {
                    strict_fail(c, &rk, "\"%.*s\" of objects beside \"properties\" cannot be expressed in strict mode "
                                        "(each would be closed on its own)", kw->string, kn);
                    continue;
                }
            }
            if (tg_json_key_is(kw, "oneOf")) {
                if (has_any) {
                    strict_fail(c, &rk, "oneOf next to anyOf cannot be expressed in strict mode", NULL, 0);
                    continue;
                }
                if (kw->child->next) note(c, &rk, "oneOf rendered as anyOf: that exactly one branch must match is not shown");
            }
            cJSON *arr = jput(c, out, "anyOf", jnew(c, cJSON_Array));
            ex_path ra = {p.rep, "anyOf", 5, 0}, oa = {p.out, "anyOf", 5, 0};
            ex_spath pa = {&ra, &oa};
            char idx[24];
            int i = 0;
            for (const cJSON *b = kw->child; b && arr; b = b->next, i++) {
                int n = snprintf(idx, sizeof idx, "%d", i);
                cJSON *x = strict_sub(c, b, pa, idx, (size_t)n, depth, nullables);
                if (x) tg_json_append(arr, x);
            }
        } else if (tg_json_key_is(kw, "$ref")) {
            if (!resolve_ref(c->doc, kw))
                strict_fail(c, &rk, "$ref is not a local reference into this schema", NULL, 0);
            jputclone(c, out, kw);
        } else if (tg_json_key_is(kw, "$defs") || tg_json_key_is(kw, "definitions")) {
            if (!cJSON_IsObject(kw)) continue;
            cJSON *defs = jputn(c, out, kw->string, kn, jnew(c, cJSON_Object));
            ex_path rd = {p.rep, kw->string, kn, 0}, od = {p.out, kw->string, kn, 0};
            ex_spath pd = {&rd, &od};
            for (const cJSON *d = kw->child; d && defs; d = d->next)
                jputn(c, defs, d->string, tg_json_strlen(d->string),
                      strict_sub(c, d, pd, d->string, tg_json_strlen(d->string), depth, nullables));
        } else if (tg_json_key_is(kw, "format")) {
            int ok = 0;
            for (int i = 0; k_strict_formats[i]; i++)
                if (tg_json_string_is(kw, k_strict_formats[i])) ok = 1;
            if (ok) jputclone(c, out, kw);
            else notes(c, &rk, "format \"%.*s\" is not supported in strict mode; dropped",
                       cJSON_IsString(kw) ? kw->valuestring : "?", cJSON_IsString(kw) ? tg_json_strlen(kw->valuestring) : 1);
        } else if (tg_json_key_is(kw, "exclusiveMinimum") || tg_json_key_is(kw, "exclusiveMaximum")) {
            if (cJSON_IsNumber(kw)) jputclone(c, out, kw);
            else notek(c, &rk, "draft-04 boolean \"%.*s\" dropped (the bound is shown inclusive)", kw);
        } else if (in_list(kw, k_strict_keep)) jputclone(c, out, kw);
        else if (in_list(kw, k_strict_drop_loss))
            notek(c, &rk, "\"%.*s\" is not supported in strict mode; dropped", kw);
        /* annotations and unknown keywords: dropped (they do not constrain) */
    }
    if (type && type_has(type, "array") && !tg_json_getz(s, "items"))
        strict_fail(c, p.rep, "array without \"items\" cannot be expressed in strict mode (any item)", NULL, 0);
    if (is_object && !c->oom) {
        cJSON *np = jput(c, out, "properties", jnew(c, cJSON_Object));
        cJSON *req = jnew(c, cJSON_Array);
        const cJSON *oreq = tg_json_getz(s, "required");
        const cJSON *ap = tg_json_getz(s, "additionalProperties");
        if (!is_root && (!cJSON_IsObject(props) || !props->child) && !cJSON_IsFalse(ap) && !ap)
            strict_fail(c, p.rep, "object without declared properties (free-form object) is not supported in strict mode", NULL, 0);
        ex_path rp = {p.rep, "properties", 10, 0}, op = {p.out, "properties", 10, 0};
        ex_spath pp = {&rp, &op};
        for (const cJSON *pr = cJSON_IsObject(props) ? props->child : NULL; pr && np && req; pr = pr->next) {
            size_t kn = tg_json_strlen(pr->string);
            cJSON *x = strict_sub(c, pr, pp, pr->string, kn, depth, nullables);
            if (!x) return NULL;
            cJSON *name = jstr(c, pr->string, kn);
            if (!name) return NULL;
            if (!arr_has(oreq, name)) {
                int already;
                x = make_nullable(c, x, &already);
                ex_path rx = {&rp, pr->string, kn, 0}, ox = {&op, pr->string, kn, 0};
                if (already) note(c, &rx, "optional property that already accepts null: strict mode lists it as required, so the model can no longer omit it (null is passed through)");
                else nullable_entry(c, nullables, &ox);
            }
            jputn(c, np, pr->string, kn, x);
            tg_json_append(req, name);
        }
        for (const cJSON *r = cJSON_IsArray(oreq) ? oreq->child : NULL; r; r = r->next)
            if (cJSON_IsString(r) && !(cJSON_IsObject(props) && tg_json_get(props, r->valuestring, tg_json_strlen(r->valuestring)))) {
                ex_path rr = {p.rep, "required", 8, 0};
                notes(c, &rr, "required names \"%.*s\", which is not a declared property; not shown in strict mode",
                      r->valuestring, tg_json_strlen(r->valuestring));
            }
        jput(c, out, "required", req);
        jput(c, out, "additionalProperties", jnew(c, cJSON_False));
    }
    return c->oom ? NULL : out;
}

/* OpenAI's documented limits on a strict schema (Structured Outputs,
 * "supported schemas"): a request past one is refused, so such a tool
 * falls back to strict:false with the reason reported. */
typedef struct strict_count {
    size_t props, enums, text;
    int deepest;
    int big_enum; /* one string enum of more than 250 values and 15,000 characters */
} strict_count;

static void count_strict(const cJSON *s, int level, strict_count *n) {
    if (!cJSON_IsObject(s) || level > 64) return;
    const cJSON *props = tg_json_getz(s, "properties"), *v;
    if (cJSON_IsObject(props)) {
        if (level > n->deepest) n->deepest = level;
        for (const cJSON *m = props->child; m; m = m->next) {
            n->props++;
            n->text += tg_json_strlen(m->string);
            count_strict(m, level + 1, n);
        }
    }
    if ((v = tg_json_getz(s, "enum")) && cJSON_IsArray(v)) {
        size_t count = 0, chars = 0;
        for (const cJSON *e = v->child; e; e = e->next, count++)
            if (cJSON_IsString(e)) chars += tg_json_strlen(e->valuestring);
        n->enums += count;
        n->text += chars;
        if (count > 250 && chars > 15000) n->big_enum = 1;
    }
    if ((v = tg_json_getz(s, "const")) && cJSON_IsString(v)) n->text += tg_json_strlen(v->valuestring);
    if ((v = tg_json_getz(s, "items"))) count_strict(v, level, n);
    static const char *const lists[] = {"anyOf", "$defs", "definitions", NULL};
    for (const char *const *k = lists; *k; k++)
        if ((v = tg_json_getz(s, *k)) && (cJSON_IsArray(v) || cJSON_IsObject(v)))
            for (const cJSON *m = v->child; m; m = m->next) {
                if (cJSON_IsObject(v)) n->text += tg_json_strlen(m->string); /* definition names */
                count_strict(m, level, n);
            }
}

static void strict_limits(ex_ctx *c, const cJSON *st, const ex_path *root) {
    strict_count n = {0, 0, 0, 0, 0};
    count_strict(st, 1, &n);
    char why[160];
    if (n.props > 5000) snprintf(why, sizeof why, "%zu object properties (OpenAI's strict limit is 5,000)", n.props);
    else if (n.deepest > 10) snprintf(why, sizeof why, "objects nested %d levels (OpenAI's strict limit is 10)", n.deepest);
    else if (n.enums > 1000) snprintf(why, sizeof why, "%zu enum values (OpenAI's strict limit is 1,000 in all)", n.enums);
    else if (n.text > 120000)
        snprintf(why, sizeof why, "%zu characters of property names, definition names, enum and const values (OpenAI's "
                                  "strict limit is 120,000)", n.text);
    else if (n.big_enum) snprintf(why, sizeof why, "a string enum of more than 250 values and 15,000 characters (OpenAI's strict limit)");
    else return;
    strict_fail(c, root, "%.*s", why, strlen(why));
}

/* ---------------------------------------------------------------- Gemini */

static int in_list_str(const cJSON *v, const char *const *list) {
    for (; *list; list++)
        if (tg_json_string_is(v, *list)) return 1;
    return 0;
}

/* The formats Gemini accepts on a node of one type (type: the rendering's,
 * NULL when none or several; "only 'enum' and 'date-time' are supported for
 * STRING type"): anything else fails the whole request. */
static int gem_format_ok(const cJSON *format, const cJSON *type) {
    static const char *const STRING[] = {"date-time", "enum", NULL}, *const INTEGER[] = {"int32", "int64", NULL},
                             *const NUMBER[] = {"float", "double", NULL};
    const char *const *ok = !type                      ? NULL
                            : tg_json_string_is(type, "string")  ? STRING
                            : tg_json_string_is(type, "integer") ? INTEGER
                            : tg_json_string_is(type, "number")  ? NUMBER
                                                      : NULL;
    return ok && in_list_str(format, ok);
}

static const char *const k_gem_keep[] = {"format", "description", "minimum", "maximum", "minLength",
                                         "maxLength", "pattern", "minItems", "maxItems", NULL};
static const char *const k_gem_drop_loss[] = {"multipleOf", "uniqueItems", "contains", "minContains",
                                              "maxContains", "minProperties", "maxProperties",
                                              "patternProperties", "propertyNames", "not", "if", "then",
                                              "else", "dependentSchemas", "dependentRequired",
                                              "dependencies", "$dynamicRef", "$recursiveRef", NULL};

static int is_null_branch(const cJSON *b) {
    if (!cJSON_IsObject(b)) return 0;
    const cJSON *t = tg_json_getz(b, "type"), *cst = tg_json_getz(b, "const"), *en = tg_json_getz(b, "enum");
    int n = arr_len(b);
    if (t && n == 1) return tg_json_string_is(t, "null") || (cJSON_IsArray(t) && arr_len(t) == 1 && tg_json_string_is(t->child, "null"));
    if (cst && n == 1) return cJSON_IsNull(cst);
    if (en && n == 1) return cJSON_IsArray(en) && arr_len(en) == 1 && cJSON_IsNull(en->child);
    return 0;
}

static int only_annotations(const cJSON *s, const char *except1, const char *except2) {
    for (const cJSON *kw = s->child; kw; kw = kw->next)
        if (!in_list(kw, k_annotations) && !tg_json_key_is(kw, except1) && !tg_json_key_is(kw, except2)) return 0;
    return 1;
}

static cJSON *gem_node(ex_ctx *c, const cJSON *s, const ex_path *p, int depth, const ex_refs *stack);

static cJSON *gem_sub(ex_ctx *c, const cJSON *s, const ex_path *p, const char *k, size_t kn, int depth,
                      const ex_refs *stack) {
    ex_path q = {p, k, kn, 0};
    return gem_node(c, s, &q, depth + 1, stack);
}

static void set_bool(ex_ctx *c, cJSON *obj, const char *key) {
    cJSON *x = tg_json_getz(obj, key);
    if (x) tg_json_detach(obj, x);
    jput(c, obj, key, jnew(c, cJSON_True));
}

static cJSON *gem_node(ex_ctx *c, const cJSON *s, const ex_path *p, int depth, const ex_refs *stack) {
    if (c->oom || step(c)) return NULL;
    if (too_deep(c, p, depth)) return jnew(c, cJSON_Object);
    if (cJSON_IsFalse(s)) note(c, p, "schema false (nothing is valid) shown as an unconstrained value");
    if (!cJSON_IsObject(s)) return jnew(c, cJSON_Object);

    /* $ref: inlined (with its siblings merged in) unless recursive */
    const cJSON *ref = tg_json_getz(s, "$ref");
    if (ref) {
        const cJSON *t = resolve_ref(c->doc, ref);
        const char *rs = cJSON_IsString(ref) ? ref->valuestring : "";
        size_t rn = cJSON_IsString(ref) ? tg_json_strlen(ref->valuestring) : 0;
        ex_path rp = {p, "$ref", 4, 0};
        if (!t) {
            notes(c, &rp, "$ref \"%.*s\" cannot be resolved locally: shown as an unconstrained value", rs, rn);
            cJSON *rest = jclone(c, s);
            if (!rest) return NULL;
            jremove(rest, "$ref");
            return gem_node(c, rest, p, depth + 1, stack);
        }
        int recursive = 0;
        for (const ex_refs *r = stack; r; r = r->up)
            if (r->target == t) recursive = 1;
        if (recursive || ++c->expansions > EX_MAX_EXPANSIONS) {
            const cJSON *tt = cJSON_IsObject(t) ? tg_json_getz(t, "type") : NULL;
            const char *ty = cJSON_IsString(tt) && !tg_json_string_is(tt, "null") ? tt->valuestring : "object";
            notes(c, &rp, recursive ? "recursive $ref \"%.*s\" cannot be inlined: shown as {\"type\":\"object\"} without its structure"
                                    : "$ref \"%.*s\" not inlined (too many $ref expansions): shown without its structure",
                  rs, rn);
            cJSON *o = jnew(c, cJSON_Object);
            jput(c, o, "type", jstr(c, ty, strlen(ty)));
            const cJSON *d = tg_json_getz(s, "description");
            if (!d && cJSON_IsObject(t)) d = tg_json_getz(t, "description");
            if (cJSON_IsString(d)) jputclone(c, o, d);
            return o;
        }
        cJSON *merged = jclone(c, s);
        if (!merged) return NULL;
        jremove(merged, "$ref");
        merge_schema(c, merged, t, &rp, depth + 1);
        ex_refs here = {t, stack};
        /* report paths follow the target when $ref stands alone */
        ex_path root = {NULL, "/inputSchema", 12, 1};
        ex_path tp = {&root, rs + 1, rn - 1, 1};
        return gem_node(c, merged, only_annotations(s, "$ref", "$ref") ? &tp : p, depth + 1, &here);
    }
    /* allOf: merged */
    if (tg_json_getz(s, "allOf")) {
        cJSON *merged = jclone(c, s);
        if (!merged) return NULL;
        cJSON *all = tg_json_getz(merged, "allOf");
        tg_json_detach(merged, all);
        ex_path pa = {p, "allOf", 5, 0};
        for (const cJSON *b = cJSON_IsArray(all) ? all->child : NULL; b; b = b->next)
            merge_schema(c, merged, b, &pa, depth + 1);
        return gem_node(c, merged, p, depth + 1, stack);
    }

    int nullable = 0;
    /* anyOf / oneOf: null branches become nullable; one branch is inlined */
    const cJSON *any = tg_json_getz(s, "anyOf"), *one = tg_json_getz(s, "oneOf");
    const cJSON *alts = cJSON_IsArray(any) ? any : cJSON_IsArray(one) ? one : NULL;
    if (cJSON_IsArray(any) && cJSON_IsArray(one)) {
        ex_path po = {p, "oneOf", 5, 0};
        note(c, &po, "oneOf next to anyOf cannot be shown (one anyOf per schema): oneOf dropped");
    }
    int n_alts = 0;
    const cJSON *single = NULL;
    for (const cJSON *b = alts ? alts->child : NULL; b; b = b->next) {
        if (is_null_branch(b)) nullable = 1;
        else {
            n_alts++;
            single = b;
        }
    }
    if (alts == one && n_alts >= 2) {
        ex_path po = {p, "oneOf", 5, 0};
        note(c, &po, "oneOf rendered as anyOf: that exactly one branch must match is not shown");
    }
    if (alts && n_alts == 1 && only_annotations(s, "anyOf", alts == one ? "oneOf" : "anyOf")) {
        int idx = 0;
        for (const cJSON *b = alts->child; b != single; b = b->next) idx++;
        char ib[24];
        int ibn = snprintf(ib, sizeof ib, "%d", idx);
        ex_path pk = {p, alts->string, tg_json_strlen(alts->string), 0};
        cJSON *r = gem_sub(c, single, &pk, ib, (size_t)ibn, depth, stack);
        if (!r) return NULL;
        const cJSON *d = tg_json_getz(s, "description");
        if (cJSON_IsString(d)) {
            jremove(r, "description");
            jputclone(c, r, d);
        }
        if (nullable) set_bool(c, r, "nullable");
        return c->oom ? NULL : r;
    }

    cJSON *out = jnew(c, cJSON_Object);
    if (!out) return NULL;
    /* type */
    const cJSON *type = tg_json_getz(s, "type");
    cJSON *ttmp = NULL;
    if (!type && !alts) type = ttmp = infer_type(c, s);
    if (c->oom) return NULL;
    int n_types = 0;
    const cJSON *only_type = NULL;
    if (cJSON_IsString(type)) {
        if (tg_json_string_is(type, "null")) nullable = 1;
        else n_types = 1, only_type = type;
    } else if (cJSON_IsArray(type)) {
        for (const cJSON *t = type->child; t; t = t->next) {
            if (tg_json_string_is(t, "null")) nullable = 1;
            else if (cJSON_IsString(t)) n_types++, only_type = t;
        }
    }
    if (n_types == 1) jput(c, out, "type", jstr(c, only_type->valuestring, tg_json_strlen(only_type->valuestring)));
    else if (n_types == 0 && type && !alts) {
        ex_path pt = {p, "type", 4, 0};
        note(c, &pt, "type null alone is not expressible: shown as a nullable value of any type");
    }
    int has_string_type = n_types == 0 || type_has(type, "string");
    (void)ttmp;

    for (const cJSON *kw = s->child; kw && !c->oom; kw = kw->next) {
        size_t kn = tg_json_strlen(kw->string);
        ex_path rk = {p, kw->string, kn, 0};
        if (tg_json_key_is(kw, "type")) {
            if (n_types >= 2 && !alts) {
                cJSON *arr = jput(c, out, "anyOf", jnew(c, cJSON_Array));
                for (const cJSON *t = kw->child; t && arr; t = t->next) {
                    if (tg_json_string_is(t, "null") || !cJSON_IsString(t)) continue;
                    cJSON *b = jnew(c, cJSON_Object);
                    jput(c, b, "type", jclone(c, t));
                    if (b) tg_json_append(arr, b);
                }
            } else if (n_types >= 2) {
                note(c, &rk, "a type union next to anyOf cannot be shown: type dropped");
            }
        } else if (tg_json_key_is(kw, "properties")) {
            if (!cJSON_IsObject(kw) || !kw->child) continue;
            cJSON *np = jput(c, out, "properties", jnew(c, cJSON_Object));
            for (const cJSON *pr = kw->child; pr && np; pr = pr->next) {
                size_t pn = tg_json_strlen(pr->string);
                jputn(c, np, pr->string, pn, gem_sub(c, pr, &rk, pr->string, pn, depth, stack));
            }
            if (!tg_json_getz(out, "type") && !type) jprepend(c, out, "type", jstr(c, "object", 6));
        } else if (tg_json_key_is(kw, "required")) {
            const cJSON *props = tg_json_getz(s, "properties");
            cJSON *req = jnew(c, cJSON_Array);
            for (const cJSON *r = cJSON_IsArray(kw) ? kw->child : NULL; r && req; r = r->next) {
                if (!cJSON_IsString(r)) continue;
                if (tg_json_get(props, r->valuestring, tg_json_strlen(r->valuestring))) tg_json_append(req, jclone(c, r));
                else notes(c, &rk, "required names \"%.*s\", which is not a declared property; not shown",
                           r->valuestring, tg_json_strlen(r->valuestring));
            }
            if (req && req->child) jput(c, out, "required", req);
        } else if (tg_json_key_is(kw, "items") || tg_json_key_is(kw, "prefixItems")) {
            /* one item schema: a tuple's positions and the items after them
             * (2020-12 "items" beside "prefixItems") become one anyOf, all
             * at the first of the two keywords; "items": false after a
             * tuple adds nothing (no further items), and true or {} makes
             * any item possible */
            const cJSON *tuple = tg_json_getz(s, "prefixItems"), *rest = tg_json_getz(s, "items");
            if (cJSON_IsArray(rest)) tuple = rest, rest = tg_json_getz(s, "additionalItems"); /* (draft-07 tuple items left as written) */
            if (!cJSON_IsArray(tuple) || !tuple->child) tuple = NULL;
            if (!rest) rest = tg_json_getz(s, "unevaluatedItems"); /* (what the items after the tuple meet, if anything) */
            if (tg_json_getz(out, "items")) continue;
            if (tuple) {
                /* no schema for the items after the positions: any item may follow */
                int open = !rest || cJSON_IsTrue(rest) || (cJSON_IsObject(rest) && !rest->child);
                int more = rest && !cJSON_IsFalse(rest) && !open;
                ex_path tk = {p, tuple->string, tg_json_strlen(tuple->string), 0};
                if (open) notek(c, &tk, "tuple \"%.*s\" followed by any items: shown as an array of any items", tuple);
                else if (more) notek(c, &tk, "tuple \"%.*s\" shown as one item schema (anyOf of the positions and of \"items\")", tuple);
                else notek(c, &tk, "tuple \"%.*s\" shown as one item schema (anyOf of the positions)", tuple);
                cJSON *fake = jnew(c, cJSON_Object);
                cJSON *arr = open ? NULL : jput(c, fake, "anyOf", jnew(c, cJSON_Array));
                for (const cJSON *b = tuple->child; b && arr; b = b->next)
                    if (!arr_has(arr, b)) tg_json_append(arr, jclone(c, b));
                if (more && arr && !arr_has(arr, rest)) tg_json_append(arr, jclone(c, rest));
                jput(c, out, "items", gem_node(c, fake, &tk, depth + 1, stack));
            } else if (tg_json_key_is(kw, "items")) {
                jput(c, out, "items", gem_sub(c, kw, p, "items", 5, depth, stack));
            }
            if (!type && !tg_json_getz(out, "type")) jprepend(c, out, "type", jstr(c, "array", 5));
        } else if (tg_json_key_is(kw, "anyOf") || tg_json_key_is(kw, "oneOf")) {
            if (kw != alts) continue;
            cJSON *arr = jput(c, out, "anyOf", jnew(c, cJSON_Array));
            int i = 0;
            for (const cJSON *b = kw->child; b && arr; b = b->next, i++) {
                if (is_null_branch(b)) continue;
                char ib[24];
                int ibn = snprintf(ib, sizeof ib, "%d", i);
                cJSON *x = gem_sub(c, b, &rk, ib, (size_t)ibn, depth, stack);
                if (x) tg_json_append(arr, x);
            }
        } else if (tg_json_key_is(kw, "enum")) {
            int bad = 0;
            cJSON *en = jnew(c, cJSON_Array);
            for (const cJSON *v = cJSON_IsArray(kw) ? kw->child : NULL; v && en; v = v->next) {
                if (cJSON_IsNull(v)) nullable = 1;
                else if (cJSON_IsString(v)) tg_json_append(en, jclone(c, v));
                else bad = 1;
            }
            if (bad || !has_string_type) notek(c, &rk, "\"%.*s\" with non-string values is not supported by Gemini; dropped", kw);
            else if (en && en->child) {
                jput(c, out, "enum", en);
                if (!tg_json_getz(out, "type")) jprepend(c, out, "type", jstr(c, "string", 6));
            }
        } else if (tg_json_key_is(kw, "const")) {
            if (cJSON_IsString(kw) && has_string_type) {
                cJSON *en = jnew(c, cJSON_Array);
                cJSON *v = jclone(c, kw);
                if (!en || !v) return NULL;
                v->string = NULL;
                tg_json_append(en, v);
                jput(c, out, "enum", en);
                if (!tg_json_getz(out, "type")) jprepend(c, out, "type", jstr(c, "string", 6));
            } else if (cJSON_IsNull(kw)) {
                nullable = 1;
                note(c, &rk, "const null is not expressible: shown as a nullable value");
            } else {
                notes(c, &rk, "const of type %.*s is not supported by Gemini (string enums only); dropped",
                      value_type(kw), strlen(value_type(kw)));
            }
        } else if (tg_json_key_is(kw, "exclusiveMinimum") || tg_json_key_is(kw, "exclusiveMaximum")) {
            int is_min = tg_json_key_is(kw, "exclusiveMinimum");
            const char *incl = is_min ? "minimum" : "maximum";
            if (cJSON_IsNumber(kw)) {
                const cJSON *inc = tg_json_getz(s, incl);
                int use = !cJSON_IsNumber(inc) || (is_min ? kw->valuedouble >= inc->valuedouble : kw->valuedouble <= inc->valuedouble);
                if (use) {
                    jremove(out, incl);
                    jput(c, out, incl, jclone(c, kw));
                }
            }
            notek(c, &rk, "\"%.*s\" shown as an inclusive bound", kw);
        } else if (tg_json_key_is(kw, "minimum") || tg_json_key_is(kw, "maximum")) {
            if (!tg_json_get(out, kw->string, tg_json_strlen(kw->string))) {
                const cJSON *ex = tg_json_getz(s, tg_json_key_is(kw, "minimum") ? "exclusiveMinimum" : "exclusiveMaximum");
                int mn = tg_json_key_is(kw, "minimum");
                if (cJSON_IsNumber(ex) && (mn ? ex->valuedouble >= kw->valuedouble : ex->valuedouble <= kw->valuedouble)) continue;
                jputclone(c, out, kw);
            }
        } else if (tg_json_key_is(kw, "nullable")) {
            /* (OpenAPI's keyword: JSON Schema ignores it, so the call's check
             * refuses null all the same; Gemini's nullable comes from a null
             * in the type or an anyOf branch only) */
        } else if (tg_json_key_is(kw, "format") && !gem_format_ok(kw, n_types == 1 ? only_type : NULL)) {
            notes(c, &rk, "format \"%.*s\" is not accepted by Gemini for this type (strings: date-time, enum; integers: "
                          "int32, int64; numbers: float, double); dropped", cJSON_IsString(kw) ? kw->valuestring : "",
                  cJSON_IsString(kw) ? tg_json_strlen(kw->valuestring) : 0);
        } else if (in_list(kw, k_gem_keep)) {
            jputclone(c, out, kw);
        } else if (tg_json_key_is(kw, "additionalProperties") || tg_json_key_is(kw, "unevaluatedProperties") ||
                   tg_json_key_is(kw, "additionalItems") || tg_json_key_is(kw, "unevaluatedItems")) {
            if (!cJSON_IsBool(kw) && !is_true_schema(kw))
                notek(c, &rk, "\"%.*s\" schema is not supported by Gemini; dropped", kw);
            else if (cJSON_IsFalse(kw)) /* (the call is still checked against the whole schema) */
                notek(c, &rk, "\"%.*s\": false is not supported by Gemini; dropped", kw);
        } else if (in_list(kw, k_gem_drop_loss)) {
            notek(c, &rk, "\"%.*s\" is not supported by Gemini; dropped", kw);
        }
        /* $schema, $id, $defs, definitions, title, default, examples,
         * $comment and unknown keywords: dropped (they do not constrain) */
    }
    if (nullable) set_bool(c, out, "nullable");
    return c->oom ? NULL : out;
}

/* ---------------------------------------------------------------- API */

static int gemini_name_ok(const char *s, size_t n) {
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (i > 0 && ch >= '0' && ch <= '9');
        if (!ok) return 0;
    }
    return 1;
}

/* Anthropic's (and Bedrock's) rule for the keys of input_schema.properties:
 * ^[a-zA-Z0-9_.-]{1,64}$ (one key outside it fails the whole request). */
static int anthropic_key_ok(const char *s, size_t n) {
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '.' || ch == '-'))
            return 0;
    }
    return 1;
}

/* 1 when a root property name fails ok (a provider refuses the whole
 * request for one), reported at its place with msg. */
static int refused_name(ex_ctx *c, const cJSON *props, const ex_path *root, int (*ok)(const char *, size_t),
                        const char *msg) {
    for (const cJSON *pr = cJSON_IsObject(props) ? props->child : NULL; pr; pr = pr->next)
        if (!ok(pr->string, tg_json_strlen(pr->string))) {
            ex_path pp = {root, "properties", 10, 0};
            ex_path px = {&pp, pr->string, tg_json_strlen(pr->string), 0};
            note(c, &px, msg);
            return 1;
        }
    return 0;
}

static void move_all(cJSON *from, cJSON *to) {
    if (!from) return;
    for (cJSON *x = from->child; x;) {
        cJSON *next = x->next;
        if (to) tg_json_append(to, x);
        x = next;
    }
    from->child = NULL;
}

/* MCP's Tool type holds each root "properties" value of inputSchema and
 * outputSchema as an object ({[key: string]: object}), and the SDK's clients
 * refuse a whole tools/list for one boolean there. A boolean subschema has an
 * exact object form: true is {} and false is {"not": {}}. */
static void object_properties(ex_ctx *c, cJSON *schema) {
    cJSON *props = cJSON_IsObject(schema) ? tg_json_getz(schema, "properties") : NULL;
    if (!cJSON_IsObject(props)) return;
    for (cJSON *p = props->child; p; p = p->next) {
        if (!cJSON_IsBool(p)) continue;
        cJSON *o = jnew(c, cJSON_Object);
        if (!o || (cJSON_IsFalse(p) && !jput(c, o, "not", jnew(c, cJSON_Object)))) return;
        jreplace(props, p, o);
        p = o;
    }
}

static cJSON *render_mcp(ex_ctx *c, const cJSON *d, const cJSON *hidden) {
    cJSON *out = jclone(c, d);
    if (!out) return NULL;
    out->string = NULL;
    cJSON *nm = jstr(c, c->name, c->name_len);
    if (!nm) return NULL;
    cJSON *old = tg_json_getz(out, "name");
    if (old) jreplace(out, old, nm);
    else jprepend(c, out, "name", nm);
    cJSON *is = tg_json_getz(out, "inputSchema");
    if (is && tg_hidden_strip(c->a, is, hidden)) c->oom = 1;
    /* a nested $ref to a context parameter's own schema
     * ("#/properties/tenant_id") would dangle: pointed at a copy of its
     * original target, as in the other formats */
    ex_path root = {NULL, "/inputSchema", 12, 1};
    if (cJSON_IsObject(is) && cJSON_IsArray(hidden) && hidden->child && !c->oom) rehome_refs(c, is, c->doc, &root, 1);
    object_properties(c, is);
    object_properties(c, tg_json_getz(out, "outputSchema"));
    return c->oom ? NULL : out;
}

static void put_description(ex_ctx *c, cJSON *out, const cJSON *d) {
    const cJSON *desc = tg_json_getz(d, "description");
    if (cJSON_IsString(desc)) jputclone(c, out, desc);
}

/* OpenAI refuses a whole request whose function description is over 1,024
 * characters (string_above_max_length): cut to 1,023 UTF-16 units and "…". */
#define OPENAI_DESCRIPTION_MAX 1024
static void put_openai_description(ex_ctx *c, cJSON *out, const cJSON *d) {
    const cJSON *desc = tg_json_getz(d, "description");
    if (!cJSON_IsString(desc)) return;
    const unsigned char *s = (const unsigned char *)desc->valuestring;
    size_t n = tg_json_strlen(desc->valuestring), i = 0, units = 0;
    while (i < n) {
        size_t k = s[i] < 0x80 ? 1 : s[i] < 0xE0 ? 2 : s[i] < 0xF0 ? 3 : 4;
        size_t u = k == 4 ? 2 : 1;
        if (units + u > OPENAI_DESCRIPTION_MAX - 1) break;
        units += u;
        i += k;
    }
    if (i >= n) {
        jputclone(c, out, desc);
        return;
    }
    char *cut = tg_arena_alloc(c->a, i + 4);
    if (!cut) {
        c->oom = 1;
        return;
    }
    memcpy(cut, s, i);
    memcpy(cut + i, "\xE2\x80\xA6", 3);
    ex_path p = {NULL, "/description", 12, 1};
    note(c, &p, "description cut to OpenAI's limit of 1,024 characters");
    jput(c, out, "description", jstr(c, cut, i + 3));
}

static cJSON *render_tool(ex_ctx *c, tg_export_format fmt, const cJSON *descriptor, const cJSON *hidden,
                          cJSON *report, int *strict_ok) {
    if (strict_ok) *strict_ok = 0;
    if (!cJSON_IsObject(descriptor)) descriptor = NULL;
    const cJSON *in = descriptor ? tg_json_getz(descriptor, "inputSchema") : NULL;
    c->doc = in;
    ex_path root = {NULL, "/inputSchema", 12, 1};

    if (fmt == TG_EXPORT_MCP) {
        if (!descriptor) {
            cJSON *o = jnew(c, cJSON_Object);
            jput(c, o, "name", jstr(c, c->name, c->name_len));
            cJSON *is = jput(c, o, "inputSchema", jnew(c, cJSON_Object));
            jput(c, is, "type", jstr(c, "object", 6));
            note(c, &root, "descriptor is not an object: rendered as a tool without arguments");
            return c->oom ? NULL : o;
        }
        return render_mcp(c, descriptor, hidden);
    }

    cJSON *schema = normalize_root(c, in, hidden, &root);
    if (!schema) return NULL;
    cJSON *out = jnew(c, cJSON_Object);
    if (!out) return NULL;

    if (fmt == TG_EXPORT_ANTHROPIC || fmt == TG_EXPORT_BEDROCK) {
        /* a key Anthropic refuses would fail every tool of the request: this
         * one is left out (a JSON null), and the report says why */
        if (refused_name(c, tg_json_getz(schema, "properties"), &root, anthropic_key_ok,
                         "property name is not accepted by Anthropic (^[a-zA-Z0-9_.-]{1,64}$, and one such name fails "
                         "the whole request): the tool is left out of this list"))
            return c->oom ? NULL : jnew(c, cJSON_NULL);
        if (fmt == TG_EXPORT_BEDROCK) {
            cJSON *spec = jput(c, out, "toolSpec", jnew(c, cJSON_Object));
            if (!spec) return NULL;
            jput(c, spec, "name", jstr(c, c->name, c->name_len));
            const cJSON *desc = tg_json_getz(descriptor, "description");
            if (cJSON_IsString(desc) && desc->valuestring[0]) jputclone(c, spec, desc); /* (at least 1 character) */
            cJSON *is = jput(c, spec, "inputSchema", jnew(c, cJSON_Object));
            if (!is) return NULL;
            jput(c, is, "json", schema);
            return c->oom ? NULL : out;
        }
        jput(c, out, "name", jstr(c, c->name, c->name_len));
        put_description(c, out, descriptor);
        jput(c, out, "input_schema", schema);
    } else if (fmt == TG_EXPORT_OPENAI || fmt == TG_EXPORT_OPENAI_STRICT) {
        cJSON *params = schema;
        int strict = 0;
        if (fmt == TG_EXPORT_OPENAI_STRICT) {
            cJSON *pending = jnew(c, cJSON_Array), *fails = jnew(c, cJSON_Array), *nulls = jnew(c, cJSON_Array);
            if (!pending || !fails || !nulls) return NULL;
            c->report = pending;
            c->fails = fails;
            ex_spath sp = {&root, NULL};
            cJSON *st = strict_node(c, schema, sp, 0, 1, nulls);
            if (st && c->fail == 0 && !c->oom) strict_limits(c, st, &root);
            c->report = report;
            if (c->oom) return NULL;
            if (c->fail == 0 && st) {
                strict = 1;
                params = st;
                move_all(pending, report);
                move_all(nulls, report);
            } else {
                move_all(fails, report);
            }
            if (strict_ok) *strict_ok = strict;
        }
        if (!strict) fill_items(c, params, 0);
        jput(c, out, "type", jstr(c, "function", 8));
        cJSON *fn = jput(c, out, "function", jnew(c, cJSON_Object));
        jput(c, fn, "name", jstr(c, c->name, c->name_len));
        put_openai_description(c, fn, descriptor);
        jput(c, fn, "parameters", params);
        jput(c, fn, "strict", jnew(c, strict ? cJSON_True : cJSON_False));
    } else if (fmt == TG_EXPORT_GEMINI) {
        jput(c, out, "name", jstr(c, c->name, c->name_len));
        put_description(c, out, descriptor);
        cJSON *g = gem_node(c, schema, &root, 0, NULL);
        if (!g) return NULL;
        fill_items(c, g, 0); /* Gemini refuses an array without items too ("...items: missing field") */
        const cJSON *props = tg_json_getz(g, "properties");
        if (refused_name(c, props, &root, gemini_name_ok,
                         "parameter name is not accepted by Gemini (letters, digits and underscores, up to 64, not "
                         "starting with a digit): the tool is left out of this list"))
            return c->oom ? NULL : jnew(c, cJSON_NULL);
        /* no arguments: parameters omitted */
        int empty = !props;
        for (const cJSON *kw = g->child; kw && empty; kw = kw->next)
            if (!tg_json_key_is(kw, "type") && !tg_json_key_is(kw, "description")) empty = 0;
        if (!empty) jput(c, out, "parameters", g);
    } else {
        return NULL;
    }
    return c->oom ? NULL : out;
}

/* A rendering's context, fresh: the tool name its report entries carry. */
static void ctx_init(ex_ctx *c, tg_arena *arena, const char *name, size_t name_len, cJSON *report) {
    memset(c, 0, sizeof *c);
    c->a = arena;
    c->name = name ? name : "";
    c->name_len = name ? name_len : 0;
    c->report = report;
    c->used0 = arena->used;
}

cJSON *tg_export_tool(tg_arena *arena, tg_export_format fmt, const char *name, size_t name_len,
                      const cJSON *descriptor, const cJSON *hidden, cJSON *report, int *strict_ok) {
    ex_ctx c;
    ctx_init(&c, arena, name, name_len, report);
    /* what this rendering adds (to the arena and to the report) can be taken
     * back when the tool is left out */
    tg_arena_mark mark = tg_arena_save(arena);
    cJSON *last = report && report->child ? report->child->prev : NULL;
    cJSON *out = render_tool(&c, fmt, descriptor, hidden, report, strict_ok);
    if (out) return out;
    /* Out of memory or past the per-tool bound: one tool must not fail the
     * whole list, so it is left out of this format with one entry saying
     * why (its partial entries go with the rendering's memory). */
    if (strict_ok) *strict_ok = 0;
    if (report) {
        if (last) {
            last->next = NULL;
            report->child->prev = last;
        } else report->child = NULL;
    }
    tg_arena_rewind(arena, mark);
    int over = c.over;
    ctx_init(&c, arena, name, name_len, report);
    ex_path root = {NULL, "/inputSchema", 12, 1};
    note(&c, &root,
         over == 1   ? "rendering the tool for this format would take more than " TG_EXPORT_MAX_BYTES_TEXT
                  " ($ref expansion or allOf merging amplifies it): the tool is left out of this list"
         : over == 2 ? "rendering the tool for this format would take more than " TG_EXPORT_MAX_STEPS_TEXT
                  " schema nodes ($ref expansion or allOf merging amplifies it): the tool is left out of this list"
         : over == 3 ? "a copy of a $ref target this format needs would repeat a nested \"$id\" whose resource "
                       "resolves references against it: the tool is left out of this list"
                     : "out of memory rendering the tool for this format: the tool is left out of this list");
    return c.oom ? NULL : jnew(&c, cJSON_NULL);
}

int tg_export_list(tg_arena *arena, tg_export_format fmt, const cJSON *const *descriptors,
                   const char *const *names, const size_t *name_lens, size_t n, tg_buf *out,
                   cJSON *report) {
    cJSON *arr = tg_json_new(arena, cJSON_Array);
    if (!arr) return -1;
    for (size_t i = 0; i < n; i++) {
        int ok;
        cJSON *t = tg_export_tool(arena, fmt, names[i], name_lens[i], descriptors[i], NULL, report, &ok);
        if (!t) return -1;
        if (!cJSON_IsNull(t)) tg_json_append(arr, t); /* (null: left out, reported) */
    }
    cJSON *top = arr;
    if (fmt == TG_EXPORT_MCP || fmt == TG_EXPORT_GEMINI) {
        cJSON *wrap = tg_json_new(arena, cJSON_Object);
        if (!wrap) return -1;
        if (tg_json_set_key(arena, arr, fmt == TG_EXPORT_MCP ? "tools" : "functionDeclarations",
                            fmt == TG_EXPORT_MCP ? 5 : 20))
            return -1;
        tg_json_append(wrap, arr);
        top = wrap;
        if (fmt == TG_EXPORT_GEMINI) {
            top = tg_json_new(arena, cJSON_Array);
            if (!top) return -1;
            tg_json_append(top, wrap);
        }
    }
    return tg_json_write(out, top);
}
