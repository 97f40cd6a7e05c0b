/* export_rehome.c - a rendering's "#..." $refs pointed at copies of their
 * targets once root normalisation (or hidden parameters) moved them. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "export_internal.h"
#include "hidden.h"

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
    return tg_ex_str(c, key, strlen(key));
}

/* The "#/$defs/<key>" text for ref r, copying its target on first use; NULL
 * when r resolves nowhere (or on out-of-memory). */
static cJSON *rehomed(ex_ctx *c, rehome *h, cJSON *s, const cJSON *ref) {
    const char *r = ref->valuestring;
    const cJSON *key = tg_json_getz(h->made, r);
    if (!key) {
        const cJSON *t = tg_ex_resolve_ref(c->doc, ref);
        if (!t) t = tg_ex_resolve_ref(h->orig, ref);
        if (!t) return NULL;
        if (!h->defs && !(h->defs = tg_ex_put(c, s, "$defs", tg_ex_new(c, cJSON_Object)))) return NULL;
        cJSON *k = fresh_key(c, h, r), *copy = tg_ex_clone(c, t);
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
            for (int i = 0; k_resource[i]; i++) tg_ex_remove(copy, k_resource[i]);
        }
        if (tg_hidden_unname_copy(copy)) {
            c->over = 3;
            c->oom = 1;
            return NULL;
        }
        tg_json_append(h->defs, copy);
        if (!(key = tg_ex_putn(c, h->made, r, tg_json_strlen(r), k))) return NULL;
    }
    char text[96];
    snprintf(text, sizeof text, "#/$defs/%s", key->valuestring);
    return tg_ex_str(c, text, strlen(text));
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
        if (!cJSON_IsObject(s) || !is_local_pointer_ref(m) || (h->only_dangling && tg_ex_resolve_ref(doc, m))) {
            rehome_at(c, h, doc, m, p, depth + 1);
            continue;
        }
        cJSON *to = rehomed(c, h, doc, m);
        if (to) tg_ex_replace(s, m, to);
        else if (!c->oom) {
            tg_ex_notes(c, p, "$ref \"%.*s\" resolves to nothing in this rendering; dropped", m->valuestring,
                        tg_json_strlen(m->valuestring));
            tg_json_detach(s, m);
        }
    }
}

void tg_ex_rehome_refs(ex_ctx *c, cJSON *s, const cJSON *orig, const ex_path *root, int only_dangling) {
    cJSON *defs = tg_json_getz(s, "$defs");
    rehome h = {cJSON_IsObject(defs) ? defs : NULL, tg_ex_new(c, cJSON_Object), orig, root, only_dangling};
    if (!h.made) return;
    rehome_at(c, &h, s, s, root, 0);
    /* the copies made, whose own refs the walk may have passed (a copy made
     * while walking makes its entry after this one) */
    for (const cJSON *k = h.made->child; k && !c->oom; k = k->next)
        rehome_at(c, &h, s, tg_json_getz(h.defs, k->valuestring), root, 1);
}
