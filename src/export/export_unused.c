/* export_unused.c - definitions the rendering added to the root that no
 * $ref names any more, dropped. */
#include <string.h>

#include "export_internal.h"
#include "hidden.h"

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
    const cJSON *t = tg_ex_resolve_ref(h->doc, ref);
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
        else if (tg_ex_in_list(kw, k_schema_one)) reach_schema(h, kw, depth + 1);
        else if (tg_kw_is_map(kw) && cJSON_IsObject(kw))
            for (const cJSON *m = kw->child; m; m = m->next) reach_schema(h, m, depth + 1);
        else reach_any(h, kw, depth + 1);
    }
}

void tg_ex_drop_unused_added(cJSON *s, const cJSON *in) {
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
