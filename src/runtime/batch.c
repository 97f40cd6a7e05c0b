/* batch.c - tg_register_batch: a batch of tools (a plugin's, or a whole
 * tools/list) read, checked and applied.
 *
 * A thousand tools read into one tree are ~6 MB of nodes, all touched once
 * and let go at the end; in wasm each fresh page of them costs a fault. So
 * the reader hands each entry of "tools" over as soon as it is read
 * (tg_json_parse_each), and the entry is built at once (named, cleaned, its
 * schemas compiled: tg_registry_build) while its nodes are still in cache,
 * then its nodes go. That needs the batch's source, template and replace
 * flag before its tools, which is the order the JS layer writes them in.
 * When the text has another order (a C host's), or an entry is malformed,
 * the tools read so far are let go and the batch is read whole and built
 * after, as before: the outcome is the same either way, only slower. */
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

#define TOOLS_SCRATCH (64u << 10) /* one entry's nodes, reused entry after entry */

typedef struct reader {
    tg_runtime *rt;
    tg_batch b;            /* source, template and replace flag, from the members before "tools" */
    int mode;              /* 0 no entry yet, 1 building each entry, -1 not (the batch is read again whole) */
    int bad_entry;         /* an entry without "tool" or a numeric "handler": the batch is refused */
    tg_batch_built *built; /* the entries built, in order */
    size_t n, cap;
    size_t ok;             /* entries built into a tool */
    int too_many;          /* more entries than batch_cap: refused whole, the rest unread */
} reader;

/* The most entries a batch may list: what the registry holds in all, or
 * twice what one source may (a whole listing past that is refused anyway,
 * tg_registry_build). A batch past it is refused whole (TG_ERR_LIMIT)
 * before its tools are built: 150,000 tiny tools each refused with its
 * own record took the module's memory to its maximum. */
static size_t batch_cap(const tg_runtime *rt) {
    size_t per_source = rt->reg_cfg.max_tools_per_source;
    size_t twice = per_source <= SIZE_MAX / 2 ? 2 * per_source : SIZE_MAX;
    return twice > rt->reg_cfg.max_tools ? twice : rt->reg_cfg.max_tools;
}

static tg_status too_many(tg_runtime *rt) {
    char msg[200];
    snprintf(msg, sizeof msg, "the batch lists more than %zu tools (what the registry holds, or twice a source's limit); "
             "none was read", batch_cap(rt));
    return tg_rt_fail(rt, TG_ERR_LIMIT, msg, -1);
}

static const char BAD_ENTRY[] = "each entry needs \"tool\" and a numeric \"handler\"";

/* Entry t of "tools" as the registry takes it; -1 when it is malformed. */
static int entry_of(const cJSON *t, tg_tool_entry *e) {
    const cJSON *h = tg_json_getz(t, "handler");
    if (!cJSON_IsObject(t) || !tg_json_getz(t, "tool") || !cJSON_IsNumber(h) || h->valuedouble < 0 ||
        h->valuedouble > 4294967295.0)
        return -1;
    e->descriptor = tg_json_getz(t, "tool");
    e->options = tg_json_getz(t, "options");
    e->handler_id = (uint32_t)h->valuedouble;
    return 0;
}

/* The batch's parameters from the root's members, into b's (its entries
 * are left as they are); -1 when they are not a batch's (the checks after
 * the reading say why). */
static int params_of(const cJSON *root, tg_batch *b) {
    const cJSON *source = tg_json_getz(root, "source"), *tmpl = tg_json_getz(root, "nameTemplate");
    if (!cJSON_IsString(source) || (tmpl && !cJSON_IsString(tmpl))) return -1;
    size_t slen = tg_json_strlen(source->valuestring);
    /* (source names are C strings inside the registry: one holding U+0000
     * would read as the name before it, another source's) */
    if (memchr(source->valuestring, 0, slen)) return -1;
    b->source = source->valuestring;
    b->source_len = slen;
    b->name_template = tmpl ? tmpl->valuestring : tg_rt_default_template(slen);
    b->atomic = cJSON_IsTrue(tg_json_getz(root, "atomic"));
    b->replace_source = cJSON_IsTrue(tg_json_getz(root, "replace"));
    return 0;
}

/* tg_json_each: one entry of "tools", read whole. */
static int on_entry(void *ud, const cJSON *root, const cJSON *element) {
    reader *rd = ud;
    if (!rd->mode) rd->mode = params_of(root, &rd->b) == 0 ? 1 : -1;
    if (rd->mode < 0 || rd->bad_entry || rd->too_many) return 0;
    if (rd->n >= batch_cap(rd->rt)) {
        rd->too_many = 1;
        return 0;
    }
    tg_tool_entry e;
    if (entry_of(element, &e)) {
        rd->bad_entry = 1;
        return 0;
    }
    if (rd->n == rd->cap) {
        size_t cap = rd->cap ? rd->cap * 2 : 64;
        tg_batch_built *grown = tg_realloc(&rd->rt->alloc, rd->built, rd->cap * sizeof *grown, cap * sizeof *grown);
        if (!grown) { /* (read again whole, where memory runs out as it would have) */
            rd->mode = -1;
            return 0;
        }
        rd->built = grown;
        rd->cap = cap;
    }
    tg_registry_build(rd->rt->registry, &rd->b, &e, rd->ok, &rd->built[rd->n]);
    rd->ok += rd->built[rd->n++].tool != NULL;
    return 0;
}

/* The entries of "tools" in a tree read whole, into b; a status. */
static tg_status entries_of(tg_runtime *rt, const cJSON *tools, tg_batch *b) {
    size_t n = 0;
    for (const cJSON *t = tools->child; t; t = t->next) n++;
    if (n > batch_cap(rt)) return too_many(rt);
    tg_tool_entry *entries = tg_arena_calloc(&rt->call_arena, n ? n : 1, sizeof *entries);
    if (!entries) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    size_t i = 0;
    for (const cJSON *t = tools->child; t; t = t->next, i++)
        if (entry_of(t, &entries[i])) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, BAD_ENTRY, -1);
    b->entries = entries;
    b->n = n;
    return TG_OK;
}

/* The checks of a source's name that need no entry; a status. */
static tg_status source_checks(tg_runtime *rt, const tg_batch *b) {
    /* "mcp__{source}__{tool}" reads back only when the mapped source holds no
     * "__" and does not end in "_": else source "git" with tool "hub__x" and
     * source "git__hub" with tool "x" share a prefix, and a grant or deny
     * written for one namespace reaches the other. All of the mapped source
     * is judged, not its shortened form (a name shows more of it than that);
     * a name cut inside the source never ends the cut in '_' (tg_name_map) */
    if (b->source_len && strstr(b->name_template, "{source}__") && tg_name_splits(b->source, b->source_len))
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST,
                          "a source name must not hold \"__\" or end in \"_\" (after mapping): "
                          "mcp__{source}__{tool} would not tell its tools from another source's",
                          -1);
    const char *other = tg_registry_source_clash(rt->registry, b->source, b->source_len);
    if (other) {
        char msg[400];
        snprintf(msg, sizeof msg, "source \"%.*s\" maps to the same tool-name prefix as source \"%.100s\" (after mapping, "
                 "up to case and look-alike characters): a pattern written for one would reach the other's tools",
                 (int)(b->source_len > 100 ? 100 : b->source_len), b->source, other);
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, msg, -1);
    }
    return TG_OK;
}

/* The batch of root (read whole or streamed); a status. */
static tg_status batch_of(tg_runtime *rt, const cJSON *root, reader *rd, const char *request, size_t len, size_t max,
                          tg_batch *b) {
    const cJSON *source = tg_json_getz(root, "source"), *tmpl = tg_json_getz(root, "nameTemplate");
    const cJSON *tools = tg_json_getz(root, "tools");
    if (!cJSON_IsObject(root) || !cJSON_IsString(source) || !cJSON_IsArray(tools) || (tmpl && !cJSON_IsString(tmpl)))
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "a batch needs \"source\" (string) and \"tools\" (array)", -1);
    if (rd->bad_entry) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, BAD_ENTRY, -1);
    if (rd->too_many) return too_many(rt);
    /* built with what the whole text says (no member after "tools" changed it) */
    if (rd->mode == 1 && params_of(root, b) == 0 && b->source == rd->b.source &&
        strcmp(b->name_template, rd->b.name_template) == 0 && b->replace_source == rd->b.replace_source) {
        b->built = rd->built;
        b->n = rd->n;
        return TG_OK;
    }
    /* read again whole: the entries' nodes were let go */
    tg_registry_unbuild(rd->built, rd->n);
    rd->n = 0;
    cJSON *whole;
    tg_status st = tg_rt_parse(rt, "batch", request, len, max, &whole);
    if (st != TG_OK) return st;
    if ((st = entries_of(rt, tg_json_getz(whole, "tools"), b)) != TG_OK) return st;
    return params_of(whole, b) ? tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "a source name cannot hold U+0000", -1) : TG_OK;
}

tg_status tg_register_batch(tg_runtime *rt, const char *request, size_t len) {
    tg_rt_begin(rt);
    size_t max = rt->limits.descriptor_bytes * 64; /* a whole tools/list */
    reader rd;
    memset(&rd, 0, sizeof rd);
    rd.rt = rt;
    tg_arena scratch;
    tg_arena_init(&scratch, rt->alloc);
    (void)tg_arena_reserve(&scratch, TOOLS_SCRATCH); /* (a refusal is left to the reading) */
    tg_json_each each = {"tools", &scratch, on_entry, &rd};
    tg_json_limits jl = tg_rt_json_limits(rt, max);
    tg_json_error jerr;
    cJSON *root = tg_json_parse_each(&rt->call_arena, request, len, &jl, &jerr, &each);
    tg_arena_free(&scratch);
    tg_status st;
    tg_batch b;
    memset(&b, 0, sizeof b);
    if (!root)
        st = tg_rt_json_fail(rt, "batch", &jerr);
    else if ((st = batch_of(rt, root, &rd, request, len, max, &b)) == TG_OK &&
               (st = source_checks(rt, &b)) == TG_OK) {
        st = tg_rt_apply(rt, &b, 0); /* (it takes the built tools over) */
        rd.n = 0;
    }
    tg_registry_unbuild(rd.built, rd.n);
    tg_free(&rt->alloc, rd.built, rd.cap * sizeof *rd.built);
    return st;
}
