/* export_internal.h - what the files of src/export share while rendering one
 * tool: its context, report paths, and each file's entry points. Not for use
 * outside src/export. */
#ifndef TG_EXPORT_INTERNAL_H
#define TG_EXPORT_INTERNAL_H

#include <stddef.h>

#include "export.h"

/* Every walk over a schema stops this deep (a renderer reports the cut). */
#define EX_MAX_DEPTH 64

/* A JSON Pointer built up the C stack as a walk descends: each level links
 * to the one above it, and tg_ex_path_text writes the whole pointer only
 * when a report entry needs it. */
typedef struct ex_path {
    const struct ex_path *up;
    const char *s;
    size_t n;
    int raw; /* s is already an escaped pointer fragment starting with '/' */
} ex_path;

/* One tool's rendering in one format (tg_export_tool makes it fresh). */
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

/* ---- nodes, report, $ref, keywords and types (export_nodes.c) ----
 * Node makers return NULL with c->oom set when out of memory or past the
 * per-tool bound; the put functions take a NULL through (and return NULL). */
int tg_ex_step(ex_ctx *c);
cJSON *tg_ex_new(ex_ctx *c, int type);
cJSON *tg_ex_str(ex_ctx *c, const char *s, size_t n);
cJSON *tg_ex_clone(ex_ctx *c, const cJSON *x);
cJSON *tg_ex_putn(ex_ctx *c, cJSON *obj, const char *key, size_t klen, cJSON *item);
cJSON *tg_ex_put(ex_ctx *c, cJSON *obj, const char *key, cJSON *item);
cJSON *tg_ex_putclone(ex_ctx *c, cJSON *obj, const cJSON *item);
void tg_ex_prepend(ex_ctx *c, cJSON *obj, const char *key, cJSON *item);
void tg_ex_remove(cJSON *obj, const char *key);
void tg_ex_replace(cJSON *parent, cJSON *old, cJSON *nw);
int tg_ex_in_list(const cJSON *item, const char *const *list);
int tg_ex_arr_has(const cJSON *arr, const cJSON *v);
int tg_ex_arr_len(const cJSON *arr);
int tg_ex_is_true_schema(const cJSON *s);

char *tg_ex_path_text(ex_ctx *c, const ex_path *p, size_t *out_len);
void tg_ex_add_issue(ex_ctx *c, cJSON *to, const ex_path *p, const char *fmt, const char *arg, size_t arg_len);
void tg_ex_note(ex_ctx *c, const ex_path *p, const char *msg);
void tg_ex_notek(ex_ctx *c, const ex_path *p, const char *fmt, const cJSON *kw);
void tg_ex_notes(ex_ctx *c, const ex_path *p, const char *fmt, const char *s, size_t n);
int tg_ex_too_deep(ex_ctx *c, const ex_path *p, int depth);

const cJSON *tg_ex_resolve_ref(const cJSON *doc, const cJSON *ref);

extern const char *const tg_ex_annotations[];
int tg_ex_type_has(const cJSON *t, const char *name);
const char *tg_ex_value_type(const cJSON *v);
cJSON *tg_ex_infer_type(ex_ctx *c, const cJSON *s);

/* ---- allOf merging (export_merge.c) ----
 * a := a AND b, in place (a is an arena clone); 1 when exact, every inexact
 * step reported at p. */
int tg_ex_merge(ex_ctx *c, cJSON *a, const cJSON *b, const ex_path *p, int depth);

/* ---- the root every format but MCP starts from ----
 * An older dialect's root rewritten as 2020-12 (export_dialect.c). */
void tg_ex_upgrade_root(ex_ctx *c, cJSON *s);
/* Each local $ref in s that does not name a definition itself, pointed at a
 * copy of its original target put in s's $defs (export_rehome.c);
 * only_dangling: just those that resolve nowhere in s. */
void tg_ex_rehome_refs(ex_ctx *c, cJSON *s, const cJSON *orig, const ex_path *root, int only_dangling);
/* Definitions s has and in does not that no $ref names, dropped
 * (export_unused.c). */
void tg_ex_drop_unused_added(cJSON *s, const cJSON *in);
/* inputSchema `in` as the object root providers accept, hidden parameters
 * stripped (export_root.c); NULL out of memory. Sets c->doc to it. */
cJSON *tg_ex_normalize_root(ex_ctx *c, const cJSON *in, const cJSON *hidden, const ex_path *root);

/* ---- OpenAI strict (export_openai.c) ----
 * The strict rendering of the normalized root, or NULL: out of memory
 * (c->oom), or strict mode impossible (the reasons go to report). */
cJSON *tg_ex_openai_strict(ex_ctx *c, const cJSON *schema, const ex_path *root, cJSON *report);

/* ---- Gemini (export_gemini.c) ----
 * The parameters schema for the normalized root (NULL out of memory), and
 * whether Gemini accepts a parameter name. */
cJSON *tg_ex_gemini_schema(ex_ctx *c, const cJSON *schema, const ex_path *root);
int tg_ex_gemini_name_ok(const char *s, size_t n);

#endif
