/* registry.c - the live tool table, batches, held changes and the
 * per-epoch immutable tool sets. */
#include "registry_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small open-addressing map from a key string to a tool ---- */
typedef struct tmap {
    tg_tool **slots;
    size_t cap, count;
    int by_skeleton; /* key: skeleton instead of name; KEY_GONE: source and skeleton (gone_key) */
    int state;       /* the registry's live, held and gone maps: MOVE_* (what a change is logged as) */
    tg_buf *log;     /* tg_registry_track: each put and delete written here; NULL: not logged */
} tmap;

static void log_change(const tmap *m, const tg_tool *t, int put);

#define KEY_GONE 2

static uint64_t hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static const char *key_of(const tmap *m, const tg_tool *t, size_t *len) {
    if (m->by_skeleton == KEY_GONE) {
        *len = t->gone_key_len;
        return t->gone_key;
    }
    if (m->by_skeleton) {
        *len = strlen(t->skeleton);
        return t->skeleton;
    }
    *len = t->name_len;
    return t->name;
}

static size_t tmap_slot(const tmap *m, const char *k, size_t n) {
    size_t i = (size_t)hash(k, n) & (m->cap - 1);
    for (;; i = (i + 1) & (m->cap - 1)) {
        if (!m->slots[i]) return i;
        size_t kl;
        const char *kk = key_of(m, m->slots[i], &kl);
        if (kl == n && memcmp(kk, k, n) == 0) return i;
    }
}

static tg_tool *tmap_get(const tmap *m, const char *k, size_t n) {
    return m->cap ? m->slots[tmap_slot(m, k, n)] : NULL;
}

static int tmap_grow(tmap *m, const tg_allocator *a) {
    size_t ncap = m->cap ? m->cap * 2 : 32;
    tmap n = {tg_malloc(a, ncap * sizeof(tg_tool *)), ncap, 0, m->by_skeleton, m->state, m->log};
    if (!n.slots) return -1;
    memset(n.slots, 0, ncap * sizeof(tg_tool *));
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i]) {
            size_t kl;
            const char *k = key_of(m, m->slots[i], &kl);
            n.slots[tmap_slot(&n, k, kl)] = m->slots[i];
            n.count++;
        }
    tg_free(a, m->slots, m->cap * sizeof(tg_tool *));
    *m = n;
    return 0;
}

static int tmap_reserve(tmap *m, const tg_allocator *a, size_t more) {
    while ((m->count + more) * 2 >= m->cap)
        if (tmap_grow(m, a)) return -1;
    return 0;
}

/* Requires room (tmap_reserve). */
static void tmap_put(tmap *m, tg_tool *t) {
    size_t kl;
    const char *k = key_of(m, t, &kl);
    size_t i = tmap_slot(m, k, kl);
    if (!m->slots[i]) m->count++;
    m->slots[i] = t;
    if (m->log) log_change(m, t, 1);
}

static void tmap_del(tmap *m, const char *k, size_t n) {
    if (!m->cap) return;
    size_t i = tmap_slot(m, k, n);
    if (!m->slots[i]) return;
    if (m->log) log_change(m, m->slots[i], 0);
    m->slots[i] = NULL;
    m->count--;
    /* re-insert the rest of the cluster */
    for (size_t j = (i + 1) & (m->cap - 1); m->slots[j]; j = (j + 1) & (m->cap - 1)) {
        tg_tool *t = m->slots[j];
        m->slots[j] = NULL;
        size_t kl;
        const char *kk = key_of(m, t, &kl);
        m->slots[tmap_slot(m, kk, kl)] = t;
    }
}

/* Takes t out of m (under its own key) and releases m's reference. */
static void tmap_drop(tmap *m, tg_tool *t) {
    size_t kl;
    const char *k = key_of(m, t, &kl);
    tmap_del(m, k, kl);
    tg_tool_release(t);
}

/* ---- tool sets ---- */
struct tg_toolset {
    tg_allocator alloc;
    uint64_t epoch;
    size_t refs, count;
    tg_tool **sorted;
    size_t sorted_cap;
    tmap index;
    void *cache;
    void (*cache_free)(void *);
};

struct tg_registry {
    tg_allocator alloc;
    tg_registry_config cfg;
    tg_arena cfg_arena; /* capabilities copy */
    tmap live;          /* by name */
    tmap skeletons;     /* by skeleton */
    tmap held;          /* changed definitions waiting for the host, by name */
    tmap gone;          /* the last live definition of tools a source's list dropped, by skeleton */
    uint64_t epoch;
    tg_toolset *current; /* NULL when the live table changed since */
    tg_buf log;          /* tg_registry_track: the changes not yet taken */
};

void tg_registry_default_config(tg_registry_config *c) {
    c->max_tools = 10000;
    c->max_tools_per_source = 1000;
    c->description_bytes = 4096;
    c->schema_bytes = 256 * 1024;
    c->descriptor_bytes = 0;
    c->json_depth = 256;
    c->schema = tg_schema_default_options();
    c->capabilities = NULL;
}

tg_registry *tg_registry_new(const tg_allocator *alloc, const tg_registry_config *cfg) {
    tg_registry *r = tg_malloc(alloc, sizeof *r);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->alloc = *alloc;
    if (cfg) r->cfg = *cfg;
    else tg_registry_default_config(&r->cfg);
    r->skeletons.by_skeleton = 1;
    r->gone.by_skeleton = KEY_GONE;
    r->live.state = 0; /* MOVE_LIVE, MOVE_HELD, MOVE_GONE (below) */
    r->held.state = 1;
    r->gone.state = 2;
    tg_buf_init(&r->log, *alloc, 0);
    tg_arena_init(&r->cfg_arena, *alloc);
    if (r->cfg.capabilities) {
        r->cfg.capabilities = tg_json_clone(&r->cfg_arena, r->cfg.capabilities);
        if (!r->cfg.capabilities) {
            tg_registry_free(r);
            return NULL;
        }
    }
    return r;
}

void tg_tool_retain(const tg_tool *t) { ((tg_tool *)t)->refs++; }

void tg_tool_release(const tg_tool *t) {
    tg_tool *m = (tg_tool *)t;
    if (m && --m->refs == 0) tg_tool_free(m);
}

void tg_toolset_retain(tg_toolset *s) { s->refs++; }

void tg_toolset_release(tg_toolset *s) {
    if (!s || --s->refs) return;
    for (size_t i = 0; i < s->count; i++) tg_tool_release(s->sorted[i]);
    if (s->cache && s->cache_free) s->cache_free(s->cache);
    tg_free(&s->alloc, s->sorted, s->sorted_cap * sizeof *s->sorted);
    tg_free(&s->alloc, s->index.slots, s->index.cap * sizeof(tg_tool *));
    tg_free(&s->alloc, s, sizeof *s);
}

static void drop_map(tg_registry *r, tmap *m, int release) {
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i] && release) tg_tool_release(m->slots[i]);
    tg_free(&r->alloc, m->slots, m->cap * sizeof(tg_tool *));
    m->slots = NULL;
    m->cap = m->count = 0;
}

void tg_registry_free(tg_registry *r) {
    if (!r) return;
    if (r->current) tg_toolset_release(r->current);
    drop_map(r, &r->live, 1);
    drop_map(r, &r->skeletons, 0);
    drop_map(r, &r->held, 1);
    drop_map(r, &r->gone, 1);
    tg_buf_free(&r->log);
    tg_arena_free(&r->cfg_arena);
    tg_free(&r->alloc, r, sizeof *r);
}

uint64_t tg_registry_epoch(const tg_registry *r) { return r->epoch; }
size_t tg_registry_count(const tg_registry *r) { return r->live.count; }
uint64_t tg_toolset_epoch(const tg_toolset *s) { return s->epoch; }
size_t tg_toolset_count(const tg_toolset *s) { return s->count; }
const tg_tool *tg_toolset_at(const tg_toolset *s, size_t i) { return i < s->count ? s->sorted[i] : NULL; }
const tg_tool *tg_toolset_find(const tg_toolset *s, const char *name, size_t len) {
    return tmap_get(&s->index, name, len);
}
void *tg_toolset_get_cache(const tg_toolset *s) { return s->cache; }
void tg_toolset_set_cache(tg_toolset *s, void *cache, void (*free_fn)(void *)) {
    if (s->cache && s->cache_free) s->cache_free(s->cache);
    s->cache = cache;
    s->cache_free = free_fn;
}

static int by_name(const void *a, const void *b) {
    const tg_tool *x = *(tg_tool *const *)a, *y = *(tg_tool *const *)b;
    return strcmp(x->name, y->name);
}

static void changed(tg_registry *r) {
    r->epoch++;
    if (r->current) {
        tg_toolset_release(r->current);
        r->current = NULL;
    }
}

tg_toolset *tg_registry_current(tg_registry *r) {
    if (r->current) return r->current;
    tg_toolset *s = tg_malloc(&r->alloc, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->alloc = r->alloc;
    s->epoch = r->epoch;
    s->refs = 1;
    s->sorted_cap = r->live.count ? r->live.count : 1;
    s->sorted = tg_malloc(&r->alloc, s->sorted_cap * sizeof *s->sorted);
    if (!s->sorted || tmap_reserve(&s->index, &r->alloc, r->live.count + 1)) {
        tg_free(&r->alloc, s->sorted, s->sorted_cap * sizeof *s->sorted);
        tg_free(&r->alloc, s->index.slots, s->index.cap * sizeof(tg_tool *));
        tg_free(&r->alloc, s, sizeof *s);
        return NULL;
    }
    for (size_t i = 0; i < r->live.cap; i++)
        if (r->live.slots[i]) {
            tg_tool *t = r->live.slots[i];
            tg_tool_retain(t);
            s->sorted[s->count++] = t;
            tmap_put(&s->index, t);
        }
    qsort(s->sorted, s->count, sizeof *s->sorted, by_name);
    r->current = s;
    return s;
}

static int same_source(const tg_tool *t, const char *src, size_t len) {
    return strlen(t->source) == len && memcmp(t->source, src, len) == 0;
}

/* How many of m's tools source src has; *listed (when given) adds those the
 * batch being applied lists again. */
static size_t count_source(const tmap *m, const char *src, size_t len, size_t *listed) {
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++) {
        const tg_tool *t = m->slots[i];
        if (t && same_source(t, src, len)) {
            n++;
            if (listed) *listed += (size_t)t->listed;
        }
    }
    return n;
}

/* The definition the remembered set holds under t's source and collision
 * key (gone_key: keyed by source too, so one source dropping a look-alike
 * of another's tool cannot push the other's remembered definition out). */
static tg_tool *gone_get(tg_registry *r, const tg_tool *t) {
    return r->gone.count ? tmap_get(&r->gone, t->gone_key, t->gone_key_len) : NULL;
}

/* Remembers t, a live tool its source's list no longer names, as that
 * source's last reviewed definition under its collision key: listed again
 * later with another definition, it is a change held for the host, not a
 * new tool (else dropping a tool from one listing and bringing it back
 * changed would skip review). What is remembered is t's record (its
 * definition's text and digest, no programs: tg_tool_record), so a
 * dropped tool gives back what running it took, though a pinned set may
 * keep t itself. Never bounded here, never evicting: a source's count is
 * bounded by what it may add (remembered_full). Only when memory runs out
 * is t not remembered; tg_registry_apply makes its record and room
 * (remember_room) before it changes anything. */
static void remember_gone(tg_registry *r, tg_tool *t) {
    tg_tool *rec = t->record ? t->record : tg_tool_record(t);
    t->record = NULL;
    if (!rec) return;
    tg_tool *prev = gone_get(r, rec);
    if (prev) tmap_drop(&r->gone, prev);
    if (tmap_reserve(&r->gone, &r->alloc, 1)) {
        tg_tool_release(rec);
        return;
    }
    tmap_put(&r->gone, rec); /* (the map takes its one reference) */
}

/* The remembered definition a replace listing of t's source brings back. */
static tg_tool *gone_of(tg_registry *r, const tg_batch *bt, const tg_tool *t) {
    if (!bt->replace_source && !bt->source_len) return NULL;
    return gone_get(r, t); /* (t is of bt's source) */
}

/* Forgets the remembered definition t's source had under t's key: t is
 * live now. (Another source's is kept: it is not that source's tool.) */
static void drop_gone(tg_registry *r, const tg_tool *t) {
    tg_tool *g = gone_get(r, t);
    if (g) tmap_drop(&r->gone, g);
}

static void unlink_live(tg_registry *r, tg_tool *t) {
    tmap_del(&r->live, t->name, t->name_len);
    tmap_del(&r->skeletons, t->skeleton, strlen(t->skeleton));
    tg_tool_release(t);
}

/* Takes every tool of a source out of m (live: out of its collision keys
 * too); returns how many. */
static size_t drop_source(tg_registry *r, tmap *m, const char *source, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < m->cap;) {
        tg_tool *t = m->slots[i];
        if (t && same_source(t, source, len)) {
            if (m == &r->live) unlink_live(r, t);
            else tmap_drop(m, t);
            n++;
            continue; /* the slot was refilled by the cluster: look again */
        }
        i++;
    }
    return n;
}

size_t tg_registry_remove_source(tg_registry *r, const char *source, size_t len) {
    /* (a held change counts: it is one of the source's tools; the
     * remembered ones go unsaid: the host's removal starts a new import afresh) */
    size_t n = drop_source(r, &r->live, source, len) + drop_source(r, &r->held, source, len);
    drop_source(r, &r->gone, source, len);
    if (n) changed(r);
    return n;
}

/* ---- batches ---- */
enum { ST_NEW, ST_UNCHANGED, ST_UPDATED, ST_CHANGED, ST_HELD, ST_REJECTED };

typedef struct item {
    tg_tool *tool;
    tg_tool_error err;
    int state;
    tg_tool *old;  /* live tool of the same name and source */
    tg_tool *held; /* else its changed definition held for the host (ST_HELD: this very one) */
    tg_tool *gone; /* else the source's definition before it dropped the tool (remember_gone) */
    int back;      /* ST_NEW: the definition the source had last accepted, listed again (not a new tool;
                    * with held set, the held change it rolls back goes) */
} item;

static void put_str(tg_buf *b, const char *s) { tg_json_write_string(b, s, strlen(s)); }

/* The ',' before every member of a result list but its first. */
static void sep(tg_buf *out, int *first) {
    if (!*first) tg_buf_putc(out, ',');
    *first = 0;
}

/* ---- a source's tools, moved to another registry (a replaced instance) ---- */

enum { MOVE_LIVE, MOVE_HELD, MOVE_GONE };
static const char *const MOVE_STATES[] = {"live", "held", "gone"};

/* A tool's members as tg_registry_source_restore reads them back. */
static void write_moved(tg_buf *out, const tg_tool *t, int state) {
    tg_buf_printf(out, "\"state\":\"%s\",\"name\":", MOVE_STATES[state]);
    put_str(out, t->name);
    tg_buf_puts(out, ",\"digest\":");
    put_str(out, t->digest);
    tg_buf_printf(out, ",\"handler\":%u,\"descriptor\":", (unsigned)t->handler_id);
    tg_buf_append(out, t->definition, t->definition_len);
    if (t->options_doc) {
        tg_buf_puts(out, ",\"options\":");
        tg_json_write(out, t->options_doc);
    }
    if (t->sanitized && t->sanitized->child) { /* (what cleaning changed: a listing of the cleaned text is not the same) */
        tg_buf_puts(out, ",\"sanitized\":");
        tg_json_write(out, t->sanitized);
    }
}

/* One line of the change log: {"op","source","state","name"}, then for a
 * put a tab and the tool as tg_registry_source_restore reads it (JSON text
 * holds no raw tab or line end: the host splits lines and takes the tool's
 * text as it is, its numbers spelled as they were). */
static void log_change(const tmap *m, const tg_tool *t, int put) {
    tg_buf *b = m->log;
    tg_buf_puts(b, put ? "{\"op\":\"put\",\"source\":" : "{\"op\":\"del\",\"source\":");
    put_str(b, t->source);
    tg_buf_printf(b, ",\"state\":\"%s\",\"name\":", MOVE_STATES[m->state]);
    put_str(b, t->name);
    tg_buf_putc(b, '}');
    if (put) {
        tg_buf_puts(b, "\t{");
        write_moved(b, t, m->state);
        tg_buf_putc(b, '}');
    }
    tg_buf_putc(b, '\n');
}

void tg_registry_track(tg_registry *r, int on) {
    tmap *maps[] = {&r->live, &r->held, &r->gone};
    for (int m = 0; m < 3; m++) maps[m]->log = on ? &r->log : NULL;
    tg_buf_reset(&r->log);
}

int tg_registry_take_changes(tg_registry *r, tg_buf *out) {
    /* (a log that ran out of memory lost changes: the caller must not trust it) */
    int lost = r->log.failed;
    if (r->log.len && !out->len && !out->failed && (!out->max || r->log.len <= out->max))
        tg_buf_swap(out, &r->log); /* (a batch's log holds its definitions: a megabyte handed on, not copied) */
    else if (r->log.len) tg_buf_append(out, r->log.data, r->log.len); /* (an empty log may have no buffer yet) */
    tg_buf_reset_max(&r->log, 4u << 20); /* (one large batch's log is not held for good) */
    r->log.failed = 0;
    return lost || out->failed ? -1 : 0;
}

/* One tool back from what log_change wrote: built from its cleaned
 * descriptor (cleaning again changes nothing) and its options, under the
 * name and digest it had (the digest is of what the source first sent;
 * the name came from the template of its listing). It was registered once:
 * the checks of registration (limits, collisions, capabilities) are not
 * made again. 0 placed, 1 skipped (malformed, or its place taken), -1 memory. */
static int restore_moved(tg_registry *r, const char *source, size_t source_len, const cJSON *g) {
    const cJSON *state = tg_json_getz(g, "state"), *name = tg_json_getz(g, "name");
    const cJSON *dg = tg_json_getz(g, "digest"), *d = tg_json_getz(g, "descriptor");
    const cJSON *h = tg_json_getz(g, "handler"), *opts = tg_json_getz(g, "options");
    int m = -1;
    for (int k = MOVE_LIVE; k <= MOVE_GONE && cJSON_IsString(state); k++)
        if (strcmp(state->valuestring, MOVE_STATES[k]) == 0) m = k;
    if (m < 0 || !cJSON_IsString(name) || !cJSON_IsString(dg) || !cJSON_IsObject(d) || !cJSON_IsNumber(h) ||
        (opts && !cJSON_IsObject(opts)))
        return 1;
    size_t nl = tg_json_strlen(name->valuestring);
    if (tg_json_strlen(dg->valuestring) != 64 || !nl || nl > TG_NAME_MAX || !(h->valuedouble >= 0) ||
        h->valuedouble > UINT32_MAX)
        return 1;
    tg_tool_entry entry = {d, opts, (uint32_t)h->valuedouble};
    tg_registry_config cfg = r->cfg;
    cfg.capabilities = opts ? tg_json_getz(opts, "requires") : NULL; /* (what it required, it had) */
    /* (its schemas passed their metaschema when it was registered: checking
     * again would cost a replaced instance the metaschemas' memory too, and
     * a registry near its budget its tools) */
    cfg.schema.skip_metaschema_check = 1;
    tg_tool_error err;
    tg_tool *t = tg_tool_build(&cfg, &r->alloc, source, source_len, "{tool}", &entry, &err, NULL);
    if (!t) return strcmp(err.code, "out_of_memory") == 0 ? -1 : 1;
    if (tg_tool_set_name(t, name->valuestring, nl)) {
        tg_tool_free(t);
        return -1;
    }
    memcpy(t->digest, dg->valuestring, 65);
    const cJSON *san = tg_json_getz(g, "sanitized");
    if (cJSON_IsArray(san) && san->child) {
        cJSON *copy = tg_json_clone(&t->arena, san);
        if (!copy) {
            tg_tool_free(t);
            return -1;
        }
        t->sanitized = copy;
    }
    int rc = 1;
    if (m != MOVE_GONE && tg_tool_compile(&cfg, t, NULL, &err)) {
        if (strcmp(err.code, "out_of_memory") == 0) rc = -1;
    } else if (m == MOVE_LIVE) {
        if (tmap_reserve(&r->live, &r->alloc, 1) || tmap_reserve(&r->skeletons, &r->alloc, 1)) rc = -1;
        else if (!tmap_get(&r->live, t->name, nl) && !tmap_get(&r->skeletons, t->skeleton, strlen(t->skeleton))) {
            tmap_put(&r->live, t);
            tmap_put(&r->skeletons, t);
            return 0; /* (the tables own it now) */
        }
    } else if (m == MOVE_HELD) {
        if (tmap_reserve(&r->held, &r->alloc, 1)) rc = -1;
        else if (!tmap_get(&r->held, t->name, nl)) {
            tmap_put(&r->held, t);
            return 0;
        }
    } else if (!(t->record = tg_tool_record(t))) {
        rc = -1;
    } else {
        remember_gone(r, t);
        rc = 0;
    }
    tg_tool_release(t);
    return rc;
}

int tg_registry_source_restore(tg_registry *r, const char *source, size_t len, const cJSON *list, int append,
                               size_t *skipped, size_t *done) {
    if (!append) {
        drop_source(r, &r->live, source, len);
        drop_source(r, &r->held, source, len);
        drop_source(r, &r->gone, source, len);
    }
    int rc = 0;
    *skipped = *done = 0;
    for (const cJSON *g = cJSON_IsArray(list) ? list->child : NULL; g; g = g->next, ++*done) {
        if ((rc = restore_moved(r, source, len, g)) < 0) break;
        if (rc > 0) ++*skipped;
    }
    changed(r);
    return rc < 0 ? -1 : 0;
}

int tg_registry_empty(const tg_registry *r) { return !r->live.count && !r->held.count && !r->gone.count; }

void tg_registry_epoch_at_least(tg_registry *r, uint64_t epoch) {
    if (r->epoch < epoch) {
        r->epoch = epoch - 1;
        changed(r);
    }
}

/* The names of the items in state (unchanged: the live tool's; held: the
 * held change's), as members of a result list. */
static void put_names(tg_buf *out, const item *items, size_t n, int state) {
    int first = 1;
    for (size_t i = 0; i < n; i++)
        if (items[i].state == state) {
            sep(out, &first);
            put_str(out, (state == ST_HELD ? items[i].held : items[i].old)->name);
        }
}

static void reject(item *it, const char *code, const char *msg) {
    snprintf(it->err.code, sizeof it->err.code, "%s", code);
    snprintf(it->err.message, sizeof it->err.message, "%s", msg);
    it->state = ST_REJECTED;
}

/* Every change held, sorted by collision key (then source): what held_of
 * and held_elsewhere search (one scan of the held table a batch, not one a
 * tool). */
typedef struct held_index {
    tg_tool **v;
    size_t n;
} held_index;

static int by_skeleton(const void *a, const void *b) {
    const tg_tool *x = *(tg_tool *const *)a, *y = *(tg_tool *const *)b;
    int c = strcmp(x->skeleton, y->skeleton);
    return c ? c : strcmp(x->source, y->source);
}

static int held_index_build(tg_registry *r, held_index *hx) {
    hx->v = NULL;
    hx->n = 0;
    if (!r->held.count) return 0;
    hx->v = tg_malloc(&r->alloc, r->held.count * sizeof *hx->v);
    if (!hx->v) return -1;
    for (size_t i = 0; i < r->held.cap; i++)
        if (r->held.slots[i]) hx->v[hx->n++] = r->held.slots[i];
    qsort(hx->v, hx->n, sizeof *hx->v, by_skeleton);
    return 0;
}

static void held_index_free(tg_registry *r, held_index *hx) {
    if (hx->v) tg_free(&r->alloc, hx->v, hx->n * sizeof *hx->v);
    hx->v = NULL;
}

/* The first change held under t's collision key whose source is (mine) or
 * is not (!mine) the batch's, or NULL. */
static tg_tool *held_by_key(const tg_batch *bt, const held_index *hx, const tg_tool *t, int mine) {
    size_t lo = 0, hi = hx->n;
    while (lo < hi) { /* (the first of the run with t's key) */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(hx->v[mid]->skeleton, t->skeleton) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < hx->n && strcmp(hx->v[lo]->skeleton, t->skeleton) == 0; lo++)
        if (same_source(hx->v[lo], bt->source, bt->source_len) == mine) return hx->v[lo];
    return NULL;
}

/* The change held under t's name, or under a look-alike of it (Read_File
 * for read_file), when this batch lists t's source again (a whole list, or
 * a plugin's batch: either may bring the tool again). */
static tg_tool *held_of(tg_registry *r, const tg_batch *bt, const held_index *hx, const tg_tool *t) {
    if (!bt->replace_source && !bt->source_len) return NULL;
    tg_tool *h = tmap_get(&r->held, t->name, t->name_len);
    if (h && same_source(h, bt->source, bt->source_len)) return h;
    /* (another source's change under the name: go on looking) */
    return held_by_key(bt, hx, t, 1);
}

/* Another source's change held under t's collision key, or NULL: the name
 * stays that source's while the host reviews the change (its live tool is
 * out of the set meanwhile), so t collides with it as with a live tool. */
static tg_tool *held_elsewhere(const tg_batch *bt, const held_index *hx, const tg_tool *t) {
    return held_by_key(bt, hx, t, 0);
}

/* live tool `same` is t's earlier listing by the same source */
static int same_tool(const tg_tool *same, const tg_batch *bt, const tg_tool *t) {
    return same_source(same, bt->source, bt->source_len) && strcmp(same->name, t->name) == 0 &&
           strcmp(same->tool_name, t->tool_name) == 0 && (bt->replace_source || bt->source_len);
}

/* live tool t has these host settings (handler, options) */
static int has_host_settings(const tg_tool *t, uint32_t handler_id, const cJSON *options) {
    return t->handler_id == handler_id && tg_json_same(t->options_doc, options);
}

/* the host's own settings of two listings of a tool: handler and options */
static int same_host_settings(const tg_tool *a, const tg_tool *b) {
    return has_host_settings(a, b->handler_id, b->options_doc);
}

/* The definitions of two tools read back into scratch (NULL each when it
 * refuses). */
static void definitions(const tg_registry *r, const tg_tool *a, const tg_tool *b, tg_arena *scratch, cJSON **da,
                        cJSON **db) {
    *da = tg_tool_definition_tree(a, scratch, r->cfg.json_depth);
    *db = tg_tool_definition_tree(b, scratch, r->cfg.json_depth);
}

/* Two tools' definitions from a source, equal as JSON (members in any
 * order: a source may reorder a huge object to make the plain comparison
 * quadratic). The same text is the same definition; other text is read
 * back to be compared (memory refused: not the same, so the newer is
 * taken). */
static int same_descriptor(const tg_registry *r, const tg_tool *a, const tg_tool *b) {
    if (a->definition_len == b->definition_len && memcmp(a->definition, b->definition, a->definition_len) == 0)
        return 1;
    tg_arena scratch;
    tg_arena_init(&scratch, r->alloc);
    cJSON *da, *db;
    definitions(r, a, b, &scratch, &da, &db);
    int eq = da && db && tg_json_equal_in(da, db, &scratch, 0);
    tg_arena_free(&scratch);
    return eq;
}

/* t is listed again with the definition, metadata and host settings the
 * registry holds live: it stays "unchanged" and the live tool (programs and
 * all) is kept */
static int relisted(const tg_registry *r, const tg_batch *bt, const tg_tool *t) {
    const tg_tool *same = tmap_get(&r->skeletons, t->skeleton, strlen(t->skeleton));
    return same && same_tool(same, bt, t) && strcmp(same->digest, t->digest) == 0 && same_host_settings(same, t) &&
           same_descriptor(r, same, t);
}

/* 1 when d, written canonically, is text[0..len) to the byte (written no
 * further than len and a byte: a longer one differs). */
static int written_as(const tg_registry *r, const cJSON *d, const char *text, size_t len) {
    tg_buf b;
    tg_buf_init(&b, r->alloc, len + 1);
    int same = tg_json_write(&b, d) == 0 && !b.failed && b.len == len && memcmp(b.data, text, len) == 0;
    tg_buf_free(&b);
    return same;
}

/* The live tool a source lists again exactly as the registry holds it (the
 * same descriptor to the byte, none of it cleaned, the same options and
 * handler, the same model-visible name), retained; else NULL. Building a copy
 * only to find its digest unchanged (clone, canonical text, BLAKE2s) was
 * most of a list_changed re-import. Options naming capabilities take the
 * full path (the runtime's capabilities may have changed since). */
static tg_tool *relisted_exactly(const tg_registry *r, const tg_batch *bt, const tg_tool_entry *e) {
    const cJSON *name = cJSON_IsObject(e->descriptor) ? tg_json_getz(e->descriptor, "name") : NULL;
    if (!cJSON_IsString(name) || !(bt->replace_source || bt->source_len)) return NULL;
    if (e->options && tg_json_getz(e->options, "requires")) return NULL;
    char mapped[TG_NAME_MAX + 1], skeleton[TG_NAME_MAX + 1];
    size_t n = tg_name_map(bt->name_template, bt->source, bt->source_len, name->valuestring,
                           tg_json_strlen(name->valuestring), mapped);
    tg_name_skeleton(mapped, n, skeleton);
    tg_tool *same = tmap_get(&r->skeletons, skeleton, strlen(skeleton));
    if (!same || !same_source(same, bt->source, bt->source_len) || same->name_len != n ||
        memcmp(same->name, mapped, n) != 0 || !has_host_settings(same, e->handler_id, e->options) ||
        (same->sanitized && same->sanitized->child) || !written_as(r, e->descriptor, same->definition, same->definition_len))
        return NULL;
    tg_tool_retain(same);
    return same;
}

/* The fields fields_differing names one by one; any other member is "other". */
static const char *const FIELDS[] = {"title", "description", "inputSchema", "outputSchema", "annotations", "name",
                                     "icons", "execution", "_meta"};
enum { N_FIELDS = sizeof FIELDS / sizeof FIELDS[0] };

static int known_field(const cJSON *member) {
    for (size_t i = 0; i < N_FIELDS; i++)
        if (tg_json_key_is(member, FIELDS[i])) return 1;
    return 0;
}

/* x and y the same value (by_text: the same spelling too) */
static int same_value(const cJSON *x, const cJSON *y, int by_text, tg_arena *scratch) {
    return by_text ? tg_json_same(x, y) : tg_json_equal_in(x, y, scratch, 0);
}

/* The members of d outside FIELDS, sorted by key, into scratch; their count. */
static size_t others_of(const cJSON *d, tg_arena *scratch, const cJSON ***out) {
    size_t n = 0, i = 0;
    for (const cJSON *m = d ? d->child : NULL; m; m = m->next) n += !known_field(m);
    *out = n ? tg_arena_alloc(scratch, n * sizeof **out) : NULL;
    if (n && !*out) return (size_t)-1;
    for (const cJSON *m = d ? d->child : NULL; m; m = m->next)
        if (!known_field(m)) (*out)[i++] = m;
    if (n > 1) qsort(*out, n, sizeof **out, tg_json_member_cmp);
    return n;
}

/* 1 when any member outside FIELDS was added, removed or changed (sorted
 * by key, side by side: a descriptor may have 40,000 members of its own). */
static int others_differ(const cJSON *a, const cJSON *b, int by_text, tg_arena *scratch) {
    const cJSON **oa, **ob;
    size_t na = others_of(a, scratch, &oa), nb = others_of(b, scratch, &ob);
    if (na != nb || na == (size_t)-1) return 1; /* (no room to tell: "other" changed, the safe word) */
    for (size_t i = 0; i < na; i++)
        if (tg_json_member_cmp(&oa[i], &ob[i]) != 0 || !same_value(oa[i], ob[i], by_text, scratch)) return 1;
    return 0;
}

/* The members that differ between two descriptors, as bits (FIELDS, then
 * "other" at N_FIELDS). */
static unsigned fields_differing(const cJSON *old, const cJSON *nw, int by_text, tg_arena *scratch) {
    unsigned bits = 0;
    for (size_t i = 0; i < N_FIELDS; i++) {
        const cJSON *x = tg_json_getz(old, FIELDS[i]), *y = tg_json_getz(nw, FIELDS[i]);
        if ((x || y) && !(x && y && same_value(x, y, by_text, scratch))) bits |= 1u << i;
    }
    if (others_differ(old, nw, by_text, scratch)) bits |= 1u << N_FIELDS;
    return bits;
}

/* The fields whose text registration cleaned or cut in t, as bits (a note
 * of t->sanitized names one: "annotations.title" is annotations'). */
static unsigned fields_cleaned(const tg_tool *t) {
    unsigned bits = 0;
    for (const cJSON *note = t->sanitized ? t->sanitized->child : NULL; note; note = note->next) {
        if (!cJSON_IsString(note)) continue;
        size_t n = strcspn(note->valuestring, ".");
        for (size_t i = 0; i < N_FIELDS; i++)
            if (strlen(FIELDS[i]) == n && strncmp(FIELDS[i], note->valuestring, n) == 0) bits |= 1u << i;
    }
    return bits;
}

/* Writes the fields in which nw differs from old, as a JSON array. The
 * cleaned copies are compared, but the digest is of the text the source
 * sent: a change only in what cleaning removes (a zero-width character,
 * text past the cap) is a change too. A field cleaned in one of the two
 * and not the other had other text; when nothing else differs, a field
 * cleaned in either is where the change is (so a held change is never
 * told as no field; "other" if no field can be named). */
static void write_fields_changed(const tg_registry *r, tg_buf *b, const tg_tool *old, const tg_tool *nw) {
    tg_arena scratch;
    tg_arena_init(&scratch, r->alloc);
    /* by value; when only spelling differs (10.0 for 10), by the text (no
     * room to read them back: "other", the safe word) */
    cJSON *dold, *dnw;
    definitions(r, old, nw, &scratch, &dold, &dnw);
    unsigned bits = dold && dnw ? fields_differing(dold, dnw, 0, &scratch) : 1u << N_FIELDS;
    if (!bits) bits = fields_differing(dold, dnw, 1, &scratch);
    tg_arena_free(&scratch);
    unsigned a = fields_cleaned(old), c = fields_cleaned(nw);
    if (strcmp(old->digest, nw->digest) != 0) {
        bits |= a ^ c;
        if (!bits) bits = (a | c) ? (a | c) : 1u << N_FIELDS;
    }
    tg_buf_putc(b, '[');
    int first = 1;
    for (size_t i = 0; i <= N_FIELDS; i++)
        if (bits & (1u << i)) {
            sep(b, &first);
            put_str(b, i < N_FIELDS ? FIELDS[i] : "other");
        }
    tg_buf_putc(b, ']');
}

/* 1 when the item, applied, adds a tool to the live and held ones: a new
 * one, or a remembered one back changed (held); not one that takes a live
 * or held tool's place */
static int adds_tool(const item *it) {
    return (it->state == ST_NEW && !(it->back && it->held)) || (it->state == ST_CHANGED && it->gone);
}

/* The count of the batch source's remembered dropped tools when it has
 * reached max_tools_per_source and the batch brings a tool new to the
 * source; else 0. Nothing remembered is ever let go but by the host's
 * removal of the source (a definition forgotten could come back changed as
 * a new tool, unreviewed), so the bound is kept by giving a source that
 * has dropped that many no new tool: per source, so one source's dropping
 * costs no other its memory. The accepted definition remembered for a
 * tool whose change is held is no dropped tool (the source still lists
 * it, and its held changes are bounded with its tools): hx, the held
 * index, tells them apart. (The host's own tools ("") are not bounded:
 * only its own batches drop them.) */
static size_t remembered_full(const tg_registry *r, const tg_batch *bt, const item *items, const held_index *hx) {
    int fresh = 0;
    for (size_t i = 0; i < bt->n && !fresh; i++) fresh = items[i].state == ST_NEW && !items[i].back;
    if (!fresh || !bt->source_len || r->gone.count < r->cfg.max_tools_per_source) return 0;
    size_t n = 0;
    for (size_t i = 0; i < r->gone.cap; i++) {
        const tg_tool *g = r->gone.slots[i];
        if (g && same_source(g, bt->source, bt->source_len) && !held_by_key(bt, hx, g, 1)) n++;
    }
    return n >= r->cfg.max_tools_per_source ? n : 0;
}

/* Room for every live tool the batch takes out (one its source no longer
 * lists, one whose change is held) to be remembered, and its record, made
 * before anything changes: a tool dropped but not remembered could come
 * back changed as a new tool. 0, or -1 when memory ran out (forget_records
 * lets the records made go). */
static int remember_room(tg_registry *r, const tg_batch *bt, const item *items) {
    size_t n = 0;
    for (size_t i = 0; bt->replace_source && i < r->live.cap; i++) {
        tg_tool *t = r->live.slots[i];
        if (!t || !same_source(t, bt->source, bt->source_len) || t->listed) continue;
        n++;
        if (!t->record && !(t->record = tg_tool_record(t))) return -1;
    }
    for (size_t i = 0; i < bt->n; i++) {
        if (items[i].state != ST_CHANGED || !items[i].old) continue;
        n++;
        if (!items[i].old->record && !(items[i].old->record = tg_tool_record(items[i].old))) return -1;
    }
    return tmap_reserve(&r->gone, &r->alloc, n);
}

/* Lets go the records remember_room made for a batch not applied. */
static void forget_records(tg_registry *r) {
    for (size_t i = 0; i < r->live.cap; i++) {
        tg_tool *t = r->live.slots[i];
        if (t && t->record) {
            tg_tool_release(t->record);
            t->record = NULL;
        }
    }
}

/* A whole listing that has built more than twice its source's limit of
 * tools is over it whatever follows (tg_registry_apply refuses every tool
 * of it unless more than half of those collide): its further tools are
 * refused as they come, with the limit's own code and words, and never
 * built or compiled. An upstream listing 50,000 tools took the module's
 * memory to its maximum before any was refused. */
static int listing_past_limit(const tg_registry *r, const tg_batch *bt, size_t built_ok) {
    return bt->replace_source && bt->source_len && built_ok / 2 > r->cfg.max_tools_per_source;
}

static void refuse_unbuilt(const tg_registry *r, const tg_tool_entry *e, tg_batch_built *out) {
    tg_tool_error_of(&out->err, e->descriptor);
    snprintf(out->err.code, sizeof out->err.code, "limit_reached");
    snprintf(out->err.message, sizeof out->err.message, "the source lists more than the limit of %zu tools",
             r->cfg.max_tools_per_source);
}

void tg_registry_build(tg_registry *r, const tg_batch *bt, const tg_tool_entry *e, size_t built_ok, tg_batch_built *out) {
    memset(out, 0, sizeof *out);
    if (listing_past_limit(r, bt, built_ok)) {
        refuse_unbuilt(r, e, out);
        return;
    }
    tg_tool *kept = relisted_exactly(r, bt, e);
    tg_tool_tree built;
    memset(&built, 0, sizeof built);
    out->tool = kept ? kept
                     : tg_tool_build(&r->cfg, &r->alloc, bt->source, bt->source_len, bt->name_template, e, &out->err,
                                     &built);
    if (out->tool && !kept && !relisted(r, bt, out->tool) && tg_tool_compile(&r->cfg, out->tool, built.doc, &out->err)) {
        tg_tool_free(out->tool);
        out->tool = NULL;
    }
    if (!kept) tg_arena_free(&built.arena);
}

void tg_registry_unbuild(tg_batch_built *built, size_t n) {
    for (size_t i = 0; i < n; i++) {
        tg_tool_release(built[i].tool);
        built[i].tool = NULL;
    }
}

int tg_registry_apply(tg_registry *r, const tg_batch *bt, tg_buf *out) {
    item *items = tg_malloc(&r->alloc, (bt->n ? bt->n : 1) * sizeof *items);
    if (!items) {
        if (bt->built) tg_registry_unbuild(bt->built, bt->n);
        return -1;
    }
    memset(items, 0, (bt->n ? bt->n : 1) * sizeof *items);
    int rc = 0;

    /* 1 build every tool on its own (or take it as built while the batch
     * was read); its schemas compile unless the source lists it again
     * unchanged (re-listing keeps the live tool) */
    size_t n_ok = 0;
    for (size_t i = 0; i < bt->n; i++) {
        tg_batch_built b;
        if (bt->built) {
            b = bt->built[i];
            bt->built[i].tool = NULL; /* (the items own it now) */
        } else
            tg_registry_build(r, bt, &bt->entries[i], n_ok, &b);
        items[i].tool = b.tool;
        items[i].err = b.err;
        if (!items[i].tool) {
            if (strcmp(items[i].err.code, "out_of_memory") == 0) rc = -1;
            items[i].state = ST_REJECTED;
            continue;
        }
        items[i].state = ST_NEW;
        n_ok++;
    }
    if (rc) goto done;
    if (r->live.log) { /* the log's room for every tool it may put, taken at once (log_change) */
        size_t room = 0;
        for (size_t i = 0; i < bt->n; i++)
            if (items[i].tool) /* (its definition, name twice, source, digest and labels) */
                room += items[i].tool->definition_len + 2 * strlen(items[i].tool->name) + bt->source_len + 200;
        (void)tg_buf_reserve(&r->log, room);
    }

    /* 2 collisions inside the batch: every member of a colliding group is
     * rejected (a hash of collision keys, so a 1,000-tool list costs O(n)) */
    {
        size_t cap = 16;
        while (cap < bt->n * 2) cap <<= 1;
        size_t *slot = tg_malloc(&r->alloc, cap * sizeof *slot); /* item index + 1, 0 empty */
        if (!slot) {
            rc = -1;
            goto done;
        }
        memset(slot, 0, cap * sizeof *slot);
        for (size_t i = 0; i < bt->n; i++) {
            if (!items[i].tool) continue;
            const char *k = items[i].tool->skeleton;
            size_t h = (size_t)hash(k, strlen(k)) & (cap - 1);
            while (slot[h] && strcmp(items[slot[h] - 1].tool->skeleton, k) != 0) h = (h + 1) & (cap - 1);
            if (!slot[h]) {
                slot[h] = i + 1;
                continue;
            }
            item *first = &items[slot[h] - 1];
            char msg[400];
            snprintf(msg, sizeof msg, "tools \"%s\" and \"%s\" of this batch both map to the model-visible name \"%s\"%s",
                     first->tool->tool_name, items[i].tool->tool_name, items[i].tool->name,
                     strcmp(first->tool->name, items[i].tool->name) ? " (up to case or look-alike characters)" : "");
            reject(first, "name_collision", msg);
            reject(&items[i], "name_collision", msg);
        }
        tg_free(&r->alloc, slot, cap * sizeof *slot);
    }

    /* 3 against the live table and what is held */
    size_t src_count = 0;
    held_index hx;
    if (held_index_build(r, &hx)) {
        rc = -1;
        goto done;
    }
    for (size_t i = 0; i < bt->n; i++) {
        item *it = &items[i];
        if (it->state == ST_REJECTED) continue;
        tg_tool *t = it->tool;
        tg_tool *same = tmap_get(&r->skeletons, t->skeleton, strlen(t->skeleton)), *rival;
        if (same && same_tool(same, bt, t)) {
            it->old = same;
            same->listed = 1;
            /* the same definition with other host settings (options, handler)
             * replaces the live tool at once: the host's word, not the source's
             * (every member of the descriptor is in the digest: one written in
             * another key order is the same) */
            it->state = strcmp(same->digest, t->digest) != 0                                    ? ST_CHANGED
                        : same_host_settings(same, t) && same_descriptor(r, same, t) ? ST_UNCHANGED
                                                                                                    : ST_UPDATED;
        } else if (same && bt->replace_source && same_source(same, bt->source, bt->source_len) && !same->listed) {
            /* the source's list names the tool otherwise, up to case or
             * look-alike characters (read_file -> Read_File, read_fiIe): a
             * renamed definition is a change like any other, held for the
             * host, not a new tool that goes live at once */
            it->old = same;
            same->listed = 1;
            it->state = ST_CHANGED;
        } else if (!same && (rival = held_elsewhere(bt, &hx, t)) != NULL) {
            char msg[400];
            snprintf(msg, sizeof msg,
                     "\"%s\" (as \"%s\") collides with the registered tool \"%s\" (as \"%s\", source \"%s\"), whose "
                     "changed definition is held for review%s",
                     t->tool_name, t->name, rival->tool_name, rival->name, rival->source,
                     strcmp(rival->name, t->name) ? " (up to case or look-alike characters)" : "");
            reject(it, "name_collision", msg);
            continue;
        } else if (!same && (it->held = held_of(r, bt, &hx, t)) != NULL) {
            /* a change waiting for the host, listed again: it stays held (the
             * same definition, with the host's settings of this listing) or
             * is replaced by a newer one; it never comes back as a new tool,
             * which would skip the host's acceptance. Rolled back to the
             * definition the host accepted last (remembered when the change
             * was held), the tool is live again at once and the change goes:
             * nothing is left to review */
            it->held->listed = 1;
            tg_tool *accepted = gone_of(r, bt, t);
            if (strcmp(it->held->digest, t->digest) == 0) it->state = ST_HELD;
            else if (accepted && strcmp(accepted->digest, t->digest) == 0) it->back = 1;
            else it->state = ST_CHANGED;
        } else if (!same && (it->gone = gone_of(r, bt, t)) != NULL) {
            /* back after a listing without it: as it was, it is live again;
             * changed, it waits for the host like any change */
            if (strcmp(it->gone->digest, t->digest) == 0) {
                it->gone = NULL;
                it->back = 1;
            } else it->state = ST_CHANGED;
        } else if (same && !(bt->replace_source && same_source(same, bt->source, bt->source_len))) {
            char msg[400];
            snprintf(msg, sizeof msg, "\"%s\" (as \"%s\") collides with the registered tool \"%s\" (as \"%s\", source \"%s\")%s",
                     t->tool_name, t->name, same->tool_name, same->name, same->source,
                     strcmp(same->name, t->name) ? " up to case or look-alike characters" : "");
            int same_def_name = strcmp(same->tool_name, t->tool_name) == 0 && strcmp(same->source, t->source) == 0;
            reject(it, same_def_name ? "duplicate_tool" : "name_collision", msg);
            continue;
        }
        src_count++;
    }
    /* the source's live tools and held changes: a whole list (replace) keeps
     * only those it names again (marked listed above: a changed one stays
     * counted, its change held in its place); any other batch adds to all
     * of them */
    size_t src_live = 0, src_kept = 0, src_held = 0, held_kept = 0;
    if (bt->replace_source || bt->source_len) {
        src_live = count_source(&r->live, bt->source, bt->source_len, &src_kept);
        src_held = count_source(&r->held, bt->source, bt->source_len, &held_kept);
    }
    size_t adds = 0;
    for (size_t i = 0; i < bt->n; i++) adds += (size_t)adds_tool(&items[i]);
    /* per source: a whole list counts what it lists; a plugin's batches count
     * with what the source holds already (else batches of a few add any
     * number), its held changes too (accepted, each is a live tool) */
    if (bt->source_len &&
        (bt->replace_source ? src_count : src_live + src_held + adds) > r->cfg.max_tools_per_source) {
        for (size_t i = 0; i < bt->n; i++)
            if (bt->replace_source ? items[i].state != ST_REJECTED : adds_tool(&items[i])) {
                char msg[160];
                snprintf(msg, sizeof msg, "the source %s more than the limit of %zu tools",
                         bt->replace_source ? "lists" : "would hold", r->cfg.max_tools_per_source);
                reject(&items[i], "limit_reached", msg);
            }
    }
    /* all sources: a whole list removes only the live tools and held changes
     * it does not name again; a held change counts as a tool (accepting it
     * makes it live, and no other tool may have taken its place under the
     * limit meanwhile) */
    adds = 0;
    for (size_t i = 0; i < bt->n; i++) adds += (size_t)adds_tool(&items[i]);
    size_t removed_est = bt->replace_source ? (src_live - src_kept) + (src_held - held_kept) : 0;
    if (r->live.count + r->held.count - removed_est + adds > r->cfg.max_tools) {
        for (size_t i = 0; i < bt->n; i++)
            if (adds_tool(&items[i])) {
                char msg[160];
                snprintf(msg, sizeof msg, "the registry holds its limit of %zu tools", r->cfg.max_tools);
                reject(&items[i], "limit_reached", msg);
            }
    }
    size_t kept = remembered_full(r, bt, items, &hx);
    held_index_free(r, &hx);
    for (size_t i = 0; i < bt->n && kept; i++)
        if (items[i].state == ST_NEW && !items[i].back) {
            char msg[240];
            snprintf(msg, sizeof msg,
                     "the source has %zu dropped tools remembered (its limit is %zu): it gets no new tool until it "
                     "lists them again or the host removes the source",
                     kept, r->cfg.max_tools_per_source);
            reject(&items[i], "limit_reached", msg);
        }

    /* a tool that requires a capability this runtime was not given is left
     * out of an atomic batch too, and the rest applies: conditional
     * registration is how a plugin ships the tools it runs only where a
     * service exists, and it is no failure of the batch */
    int any_rejected = 0;
    for (size_t i = 0; i < bt->n; i++)
        any_rejected |= items[i].state == ST_REJECTED && strcmp(items[i].err.code, "missing_capability") != 0;
    int apply = !(bt->atomic && any_rejected);
    if (apply && (tmap_reserve(&r->live, &r->alloc, bt->n) || tmap_reserve(&r->skeletons, &r->alloc, bt->n) ||
                  tmap_reserve(&r->held, &r->alloc, bt->n) || remember_room(r, bt, items))) {
        forget_records(r);
        rc = -1;
        goto done;
    }

    /* 4 apply: removals first (a renamed tool may reuse a removed one's
     * collision key), then held changes, then new tools */
    int mutated = 0;
    tg_buf_puts(out, "{\"applied\":");
    tg_buf_puts(out, apply ? "true" : "false");
    tg_buf_puts(out, ",\"removed\":[");
    int first = 1;
    if (apply && bt->replace_source) {
        for (size_t i = 0; i < r->live.cap;) {
            tg_tool *t = r->live.slots[i];
            if (t && same_source(t, bt->source, bt->source_len) && !t->listed) {
                sep(out, &first);
                put_str(out, t->name);
                remember_gone(r, t);
                unlink_live(r, t);
                mutated = 1;
                continue; /* the slot was refilled from its cluster: look again */
            }
            i++;
        }
    }
    if (apply && bt->replace_source) { /* a held change the source no longer lists goes too */
        for (size_t i = 0; i < r->held.cap;) {
            tg_tool *t = r->held.slots[i];
            if (t && same_source(t, bt->source, bt->source_len) && !t->listed) {
                sep(out, &first);
                put_str(out, t->name);
                tmap_drop(&r->held, t);
                continue; /* the slot was refilled from its cluster: look again */
            }
            i++;
        }
    }
    tg_buf_puts(out, "],\"changed\":[");
    first = 1;
    for (size_t i = 0; i < bt->n && apply; i++) {
        item *it = &items[i];
        if (it->state != ST_CHANGED) continue;
        sep(out, &first);
        tg_buf_puts(out, "{\"name\":");
        put_str(out, it->tool->name);
        tg_buf_puts(out, ",\"fields\":");
        /* told against the definition the host accepted last (remembered
         * when a change was first held), not a change never reviewed */
        const tg_tool *base = it->old ? it->old : it->gone;
        if (!base) base = gone_of(r, bt, it->tool);
        if (!base) base = it->held; /* (not remembered: memory ran out) */
        write_fields_changed(r, out, base, it->tool);
        tg_buf_puts(out, ",\"digest\":");
        put_str(out, it->tool->digest);
        tg_buf_putc(out, '}');
        /* held out of new sets until the host accepts it, in place of the
         * change held before (under this name or a look-alike of it) */
        tg_tool *prev = it->held ? it->held : tmap_get(&r->held, it->tool->name, it->tool->name_len);
        if (prev) {
            tg_tool_share_flight(it->tool, prev);
            tmap_drop(&r->held, prev);
        }
        /* another source's change held under this exact name (its own was
         * found by collision key) goes too, as a new tool's name takes it:
         * put over it, it would be lost unreleased and unlogged */
        tg_tool *taken = tmap_get(&r->held, it->tool->name, it->tool->name_len);
        if (taken) tmap_drop(&r->held, taken);
        it->held = NULL; /* (released just above when it was the one held) */
        if (it->old) { /* (out of the live set while its change waits: its definition is remembered) */
            tg_tool_share_flight(it->tool, it->old);
            remember_gone(r, it->old);
            unlink_live(r, it->old);
        }
        it->old = NULL;
        tmap_put(&r->held, it->tool);
        it->tool = NULL;
        mutated = 1;
    }
    /* a held change listed again with other host settings (options,
     * handler) takes them at once, still held: they are the host's, never
     * held for review, so what the host accepts carries the ones it gave last */
    for (size_t i = 0; i < bt->n && apply; i++) {
        item *it = &items[i];
        if (it->state != ST_HELD || (same_host_settings(it->held, it->tool) &&
                                     same_descriptor(r, it->held, it->tool)))
            continue;
        tg_tool_share_flight(it->tool, it->held);
        it->held->listed = 0;
        tmap_drop(&r->held, it->held);
        tmap_put(&r->held, it->tool);
        it->held = it->tool; /* (its name is written below) */
        it->tool = NULL;
        mutated = 1;
    }
    tg_buf_puts(out, "],\"held\":[");
    if (apply) put_names(out, items, bt->n, ST_HELD);
    tg_buf_puts(out, "],\"updated\":[");
    first = 1;
    for (size_t i = 0; i < bt->n && apply; i++) {
        item *it = &items[i];
        if (it->state != ST_UPDATED) continue;
        sep(out, &first);
        put_str(out, it->tool->name);
        tg_tool_share_flight(it->tool, it->old);
        unlink_live(r, it->old);
        it->old = NULL;
        tmap_put(&r->live, it->tool);
        tmap_put(&r->skeletons, it->tool);
        it->tool = NULL; /* owned by the table now */
        mutated = 1;
    }
    tg_buf_puts(out, "],\"unchanged\":[");
    if (apply) put_names(out, items, bt->n, ST_UNCHANGED);
    tg_buf_puts(out, "],\"registered\":[");
    first = 1;
    for (size_t i = 0; i < bt->n && apply; i++) {
        item *it = &items[i];
        if (it->state != ST_NEW) continue;
        tg_tool *t = it->tool;
        if (it->held) { /* rolled back: the change held goes (under this name or a look-alike) */
            tg_tool_share_flight(t, it->held);
            tmap_drop(&r->held, it->held);
            it->held = NULL;
        }
        tmap_put(&r->live, t);
        tmap_put(&r->skeletons, t);
        tg_tool *stale = tmap_get(&r->held, t->name, t->name_len);
        if (stale) tmap_drop(&r->held, stale);
        drop_gone(r, t);
        it->tool = NULL; /* owned by the table now */
        mutated = 1;
        sep(out, &first);
        tg_buf_puts(out, "{\"name\":");
        put_str(out, t->name);
        tg_buf_puts(out, ",\"tool\":");
        put_str(out, t->tool_name);
        tg_buf_puts(out, ",\"digest\":");
        put_str(out, t->digest);
        if (t->sanitized && t->sanitized->child) {
            tg_buf_puts(out, ",\"sanitized\":");
            tg_json_write(out, t->sanitized);
        }
        tg_buf_putc(out, '}');
    }
    tg_buf_puts(out, "],\"rejected\":[");
    first = 1;
    for (size_t i = 0; i < bt->n; i++) {
        item *it = &items[i];
        if (it->state != ST_REJECTED) continue;
        sep(out, &first);
        tg_buf_puts(out, "{\"tool\":");
        put_str(out, it->err.tool);
        if (it->err.name[0]) {
            tg_buf_puts(out, ",\"name\":");
            put_str(out, it->err.name);
        }
        tg_buf_puts(out, ",\"code\":");
        put_str(out, it->err.code);
        tg_buf_puts(out, ",\"message\":");
        put_str(out, it->err.message);
        tg_buf_putc(out, '}');
    }
    /* each entry's outcome, in request order (the host keeps a held
     * change's handler apart until it is accepted) */
    tg_buf_puts(out, "],\"states\":[");
    for (size_t i = 0; i < bt->n; i++) {
        static const char *const NAMES[] = {"registered", "unchanged", "updated", "changed", "held", "rejected"};
        if (i) tg_buf_putc(out, ',');
        tg_buf_putc(out, '"');
        tg_buf_puts(out, apply ? NAMES[items[i].state] : "rejected");
        tg_buf_putc(out, '"');
    }
    if (mutated) changed(r);
    tg_buf_printf(out, "],\"epoch\":%llu}", (unsigned long long)r->epoch);
    if (out->failed) rc = -1;
done:
    for (size_t i = 0; i < bt->n; i++) {
        if (items[i].old) items[i].old->listed = 0;
        if (items[i].held) items[i].held->listed = 0;
        if (items[i].tool) tg_tool_release(items[i].tool);
    }
    tg_free(&r->alloc, items, (bt->n ? bt->n : 1) * sizeof *items);
    return rc;
}

/* The mapped, case- and look-alike-folded form of a source name. */
static void source_key(const char *source, size_t len, char out[TG_NAME_MAX + 1]) {
    char mapped[TG_NAME_MAX + 1];
    size_t ml = tg_name_map("{source}", source, len, "", 0, mapped);
    tg_name_skeleton(mapped, ml, out);
}

const char *tg_registry_source_clash(tg_registry *r, const char *source, size_t len) {
    char mine[TG_NAME_MAX + 1], theirs[TG_NAME_MAX + 1];
    const char *seen = NULL;
    if (!len) return NULL;
    source_key(source, len, mine);
    for (int pass = 0; pass < 2; pass++) {
        const tmap *m = pass ? &r->held : &r->live;
        for (size_t i = 0; i < m->cap; i++) {
            const tg_tool *t = m->slots[i];
            if (!t || !*t->source || same_source(t, source, len) || (seen && strcmp(seen, t->source) == 0)) continue;
            seen = t->source; /* (a source's tools mostly sit apart; this skips runs of one) */
            source_key(t->source, strlen(t->source), theirs);
            if (strcmp(mine, theirs) == 0) return t->source;
        }
    }
    return NULL;
}

const tg_tool *tg_registry_held(tg_registry *r, const char *name, size_t len) {
    return tmap_get(&r->held, name, len);
}

int tg_registry_accept(tg_registry *r, const char *name, size_t len, char *why, size_t why_len) {
    tg_tool *t = tmap_get(&r->held, name, len);
    if (!t) {
        snprintf(why, why_len, "no changed definition is held for \"%.*s\"", (int)(len > 64 ? 64 : len), name);
        return -1;
    }
    tg_tool *same = tmap_get(&r->skeletons, t->skeleton, strlen(t->skeleton));
    if (same) {
        snprintf(why, why_len, "\"%s\" now collides with \"%s\"", t->name, same->name);
        return -2;
    }
    /* (held changes count against the limit with the live tools, so this
     * is reached only when tools were put back past it unchecked: a
     * replaced instance's, tg_registry_source_restore) */
    if (r->live.count >= r->cfg.max_tools) {
        snprintf(why, why_len, "the registry holds its limit of %zu tools", r->cfg.max_tools);
        return -4;
    }
    /* (a source's held changes count against max_tools_per_source with its
     * live tools alike: past it too only after a restore) */
    size_t slen = strlen(t->source);
    if (slen && count_source(&r->live, t->source, slen, NULL) >= r->cfg.max_tools_per_source) {
        snprintf(why, why_len, "the source \"%.64s\" holds its limit of %zu tools", t->source,
                 r->cfg.max_tools_per_source);
        return -4;
    }
    if (tmap_reserve(&r->live, &r->alloc, 1) || tmap_reserve(&r->skeletons, &r->alloc, 1)) {
        snprintf(why, why_len, "out of memory");
        return -3;
    }
    tmap_del(&r->held, name, len);
    tmap_put(&r->live, t);
    tmap_put(&r->skeletons, t);
    drop_gone(r, t); /* (reviewed: the definition the source came back with is the live one now) */
    changed(r);
    return 0;
}
