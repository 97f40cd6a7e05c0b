/* export_nodes.c - what every stage of a rendering builds and reports with:
 * arena nodes bounded per tool (TG_EXPORT_MAX_BYTES, TG_EXPORT_MAX_STEPS),
 * report entries at a JSON Pointer path, local $ref resolution, and the
 * keyword and type readings the renderers share. */
#include <stdio.h>
#include <string.h>

#include "export_internal.h"

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
int tg_ex_step(ex_ctx *c) {
    if (++c->steps <= TG_EXPORT_MAX_STEPS) return 0;
    c->over = 2;
    c->oom = 1;
    return 1;
}

/* ---------------------------------------------------------------- nodes */

cJSON *tg_ex_new(ex_ctx *c, int type) {
    if (over_budget(c)) return NULL;
    cJSON *n = tg_json_new(c->a, type);
    if (!n) c->oom = 1;
    return n;
}

cJSON *tg_ex_str(ex_ctx *c, const char *s, size_t n) {
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

cJSON *tg_ex_clone(ex_ctx *c, const cJSON *x) {
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
cJSON *tg_ex_putn(ex_ctx *c, cJSON *obj, const char *key, size_t klen, cJSON *item) {
    if (!obj || !item) return NULL;
    if (tg_json_set_key(c->a, item, key, klen)) {
        c->oom = 1;
        return NULL;
    }
    tg_json_append(obj, item);
    return item;
}

cJSON *tg_ex_put(ex_ctx *c, cJSON *obj, const char *key, cJSON *item) {
    return tg_ex_putn(c, obj, key, strlen(key), item);
}

/* Appends a clone of item keeping its own key. */
cJSON *tg_ex_putclone(ex_ctx *c, cJSON *obj, const cJSON *item) {
    return tg_ex_putn(c, obj, item->string, tg_json_strlen(item->string), tg_ex_clone(c, item));
}

void tg_ex_prepend(ex_ctx *c, cJSON *obj, const char *key, cJSON *item) {
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

void tg_ex_remove(cJSON *obj, const char *key) {
    cJSON *x = obj ? tg_json_getz(obj, key) : NULL;
    if (x) tg_json_detach(obj, x);
}

/* Puts nw where old is (keeping old's key). */
void tg_ex_replace(cJSON *parent, cJSON *old, cJSON *nw) {
    nw->string = old->string;
    nw->next = old->next;
    nw->prev = (old->prev == old) ? nw : old->prev;
    if (parent->child == old) parent->child = nw;
    else old->prev->next = nw;
    if (old->next) old->next->prev = nw;
    else parent->child->prev = nw;
}

int tg_ex_in_list(const cJSON *item, const char *const *list) {
    for (; *list; list++)
        if (tg_json_key_is(item, *list)) return 1;
    return 0;
}

int tg_ex_arr_has(const cJSON *arr, const cJSON *v) {
    for (const cJSON *x = arr ? arr->child : NULL; x; x = x->next)
        if (tg_json_equal(x, v)) return 1;
    return 0;
}

int tg_ex_arr_len(const cJSON *arr) {
    int n = 0;
    for (const cJSON *x = arr ? arr->child : NULL; x; x = x->next) n++;
    return n;
}

/* 1 for true, {} and absence-equivalent schemas (no constraint). */
int tg_ex_is_true_schema(const cJSON *s) {
    return cJSON_IsTrue(s) || (cJSON_IsObject(s) && !s->child);
}

/* ---------------------------------------------------------------- report */

char *tg_ex_path_text(ex_ctx *c, const ex_path *p, size_t *out_len) {
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
    char *ptext = tg_ex_path_text(c, p, &plen);
    if (!ptext) return NULL;
    cJSON *e = tg_ex_new(c, cJSON_Object);
    tg_ex_put(c, e, "tool", tg_ex_str(c, c->name, c->name_len));
    tg_ex_put(c, e, "path", tg_ex_str(c, ptext, plen));
    return c->oom ? NULL : e;
}

void tg_ex_add_issue(ex_ctx *c, cJSON *to, const ex_path *p, const char *fmt, const char *arg, size_t arg_len) {
    if (!to) return;
    char msg[320];
    if (arg) snprintf(msg, sizeof msg, fmt, (int)(arg_len > 64 ? 64 : arg_len), arg);
    else snprintf(msg, sizeof msg, "%s", fmt);
    cJSON *e = entry(c, p);
    if (!e) return;
    tg_ex_put(c, e, "issue", tg_ex_str(c, msg, strlen(msg)));
    tg_json_append(to, e);
}

/* A loss: the model-visible schema is looser than the original here. */
void tg_ex_note(ex_ctx *c, const ex_path *p, const char *msg) { tg_ex_add_issue(c, c->report, p, msg, NULL, 0); }
/* Same with one "%.*s" argument: a keyword or a $ref. */
void tg_ex_notek(ex_ctx *c, const ex_path *p, const char *fmt, const cJSON *kw) {
    tg_ex_add_issue(c, c->report, p, fmt, kw->string, tg_json_strlen(kw->string));
}
void tg_ex_notes(ex_ctx *c, const ex_path *p, const char *fmt, const char *s, size_t n) {
    tg_ex_add_issue(c, c->report, p, fmt, s, n);
}

int tg_ex_too_deep(ex_ctx *c, const ex_path *p, int depth) {
    if (depth <= EX_MAX_DEPTH) return 0;
    if (!c->deep_noted) {
        c->deep_noted = 1;
        tg_ex_note(c, p, "schema nested deeper than 64 levels: the deeper part is not rendered");
    }
    return 1;
}

/* ---------------------------------------------------------------- $ref */

/* Resolves a local JSON Pointer fragment ("#", "#/$defs/X") against doc. */
const cJSON *tg_ex_resolve_ref(const cJSON *doc, const cJSON *ref) {
    return cJSON_IsString(ref) ? tg_json_pointer_ref(doc, ref->valuestring, tg_json_strlen(ref->valuestring)) : NULL;
}

/* ---------------------------------------------------------------- keywords and types */

/* Keywords that only annotate (they never change what is valid). */
const char *const tg_ex_annotations[] = {"description", "title", "$comment", "examples", "default",
                                         "deprecated", "readOnly", "writeOnly", "$schema", "$id",
                                         "$anchor", "$dynamicAnchor", "$vocabulary", "example", NULL};

int tg_ex_type_has(const cJSON *t, const char *name) {
    if (cJSON_IsString(t)) return tg_json_string_is(t, name);
    for (const cJSON *x = t ? t->child : NULL; x; x = x->next)
        if (tg_json_string_is(x, name)) return 1;
    return 0;
}

/* The JSON Schema type name of a value. */
const char *tg_ex_value_type(const cJSON *v) {
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

/* Infers "type" from enum/const values; NULL when mixed or impossible. */
cJSON *tg_ex_infer_type(ex_ctx *c, const cJSON *s) {
    const cJSON *cst = tg_json_getz(s, "const"), *en = tg_json_getz(s, "enum");
    if (cst) return tg_ex_str(c, tg_ex_value_type(cst), strlen(tg_ex_value_type(cst)));
    if (cJSON_IsArray(en) && en->child) {
        cJSON *arr = tg_ex_new(c, cJSON_Array);
        int ints_only = 1;
        for (const cJSON *v = en->child; v; v = v->next) {
            const char *t = tg_ex_value_type(v);
            if (!strcmp(t, "number")) ints_only = 0;
        }
        for (const cJSON *v = en->child; v && arr; v = v->next) {
            const char *t = tg_ex_value_type(v);
            if (!strcmp(t, "integer") || !strcmp(t, "number")) t = ints_only ? "integer" : "number";
            cJSON *ts = tg_ex_str(c, t, strlen(t));
            if (!ts) return NULL;
            if (!tg_ex_arr_has(arr, ts)) tg_json_append(arr, ts);
        }
        if (arr && arr->child && !arr->child->next) {
            cJSON *one = arr->child;
            one->prev = one->next = NULL;
            return one;
        }
        return arr;
    }
    if (tg_json_getz(s, "properties")) return tg_ex_str(c, "object", 6);
    if (tg_json_getz(s, "items")) return tg_ex_str(c, "array", 5);
    return NULL;
}
