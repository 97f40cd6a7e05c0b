/* list.c - tools/list and every provider's tool list, rendered from a tool
 * set. Each tool is rendered once per set and format (src/export) and kept
 * in the set's cache, so a listing is a concatenation of cached spans. */
#include "../runtime/runtime_internal.h"
#include "../export/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_FORMATS 6

typedef struct span {
    size_t off, len;
} span;

typedef struct rendering {
    int done;
    tg_buf text;    /* every tool's rendering, back to back */
    tg_buf reports; /* every tool's report entries, back to back (comma-joined per tool) */
    span *tools, *report;
} rendering;

/* A tool rendered for one listing rather than from the set's cache. */
typedef struct own_rendering {
    int on;
    span text, report;
} own_rendering;

typedef struct render_cache {
    tg_allocator alloc;
    size_t n;
    rendering fmt[N_FORMATS];
} render_cache;

static void cache_free(void *p) {
    render_cache *c = p;
    for (int f = 0; f < N_FORMATS; f++) {
        tg_buf_free(&c->fmt[f].text);
        tg_buf_free(&c->fmt[f].reports);
        tg_free(&c->alloc, c->fmt[f].tools, c->n * sizeof(span));
        tg_free(&c->alloc, c->fmt[f].report, c->n * sizeof(span));
    }
    tg_free(&c->alloc, c, sizeof *c);
}

static int format_of(const char *s, tg_export_format *f) {
    static const char *const NAMES[N_FORMATS] = {"mcp", "anthropic", "openai", "openai-strict", "gemini", "bedrock"};
    for (int i = 0; i < N_FORMATS; i++)
        if (strcmp(s, NAMES[i]) == 0) {
            *f = (tg_export_format)i;
            return 0;
        }
    return -1;
}

/* One tool's rendering in fmt appended to text (nothing when the format
 * leaves it out), its report entries (comma-joined) to reports, and where
 * each lies to *ts and *rs. a is reset first. The tool's definition is
 * read back from its text into a (a tool keeps no nodes of it); when that
 * runs out of memory the tool is left out of this format, reported, as
 * when its rendering does. -1 when memory ran out. */
static int render_tool(tg_arena *a, size_t max_depth, tg_export_format fmt, const tg_tool *t, tg_buf *text,
                       tg_buf *reports, span *ts, span *rs) {
    tg_arena_reset(a);
    cJSON *report = tg_json_new(a, cJSON_Array);
    if (!report) return -1;
    const cJSON *d = tg_tool_definition_tree(t, a, max_depth);
    cJSON *out = d ? tg_export_tool(a, fmt, t->name, t->name_len, d, t->hidden, report, NULL) : NULL;
    if (!out && d) return -1;
    ts->off = text->len;
    if (out && !cJSON_IsNull(out)) tg_json_write(text, out); /* (null: left out of this format; len 0) */
    ts->len = text->len - ts->off;
    rs->off = reports->len;
    if (!d) {
        tg_buf_puts(reports, "{\"tool\":");
        tg_json_write_string(reports, t->name, t->name_len);
        tg_buf_puts(reports, ",\"path\":\"/inputSchema\",\"issue\":\"out of memory rendering the tool for this format: "
                             "the tool is left out of this list\"}");
    }
    for (const cJSON *e = report->child; e; e = e->next) {
        if (e != report->child) tg_buf_putc(reports, ',');
        tg_json_write(reports, e);
    }
    rs->len = reports->len - rs->off;
    return text->failed || reports->failed ? -1 : 0;
}

/* The most rendered text one format's list holds (and at most an eighth of
 * the runtime's memory budget). */
#define LIST_RENDER_MAX ((size_t)32 << 20)

/* qsort: the longer rendering first, then the earlier tool (a stable,
 * deterministic choice of what a bounded list leaves out). */
static int longer_first(const void *x, const void *y) {
    const span *a = x, *b = y;
    if (a->len != b->len) return a->len < b->len ? 1 : -1;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* Renders every tool of set in fmt into the set's cache (once). */
static rendering *render(tg_runtime *rt, tg_toolset *set, tg_export_format fmt) {
    render_cache *c = tg_toolset_get_cache(set);
    if (!c) {
        c = tg_malloc(&rt->alloc, sizeof *c);
        if (!c) return NULL;
        memset(c, 0, sizeof *c);
        c->alloc = rt->alloc;
        c->n = tg_toolset_count(set);
        for (int f = 0; f < N_FORMATS; f++) {
            tg_buf_init(&c->fmt[f].text, rt->alloc, 0);
            tg_buf_init(&c->fmt[f].reports, rt->alloc, 0);
        }
        tg_toolset_set_cache(set, c, cache_free);
    }
    rendering *r = &c->fmt[fmt];
    if (r->done) return r;
    size_t n = c->n ? c->n : 1;
    if (!r->tools) r->tools = tg_malloc(&rt->alloc, n * sizeof(span));
    if (!r->report) r->report = tg_malloc(&rt->alloc, n * sizeof(span));
    if (!r->tools || !r->report) return NULL;
    tg_buf_reset(&r->text);
    tg_buf_reset(&r->reports);
    tg_arena a;
    tg_arena_init(&a, rt->alloc);
    /* the whole list is bounded too (each tool is, by the renderer): many
     * small tools that each amplify within their bound must not take the
     * module's memory and fail the list for every tool. When the list would
     * be over the bound, the largest renderings are left out of this format
     * (a report entry each, as for a tool over its own bound) until the rest
     * fits: so one upstream's amplifying tools go, not whichever tools sort
     * last. (Measured in a first pass that keeps nothing; rendered again.) */
    size_t list_max = rt->limits.memory_bytes / 8 < LIST_RENDER_MAX ? rt->limits.memory_bytes / 8 : LIST_RENDER_MAX;
    unsigned char *drop = NULL;
    for (int pass = 0; pass < 2; pass++) {
        int over = 0;
        tg_buf_reset(&r->text);
        tg_buf_reset(&r->reports);
        for (size_t i = 0; i < c->n; i++) {
            if (drop && drop[i]) { /* left out: its report says why */
                r->tools[i].off = r->text.len, r->tools[i].len = 0;
                r->report[i].off = r->reports.len;
                tg_buf_puts(&r->reports, "{\"tool\":");
                tg_json_write_string(&r->reports, tg_toolset_at(set, i)->name, tg_toolset_at(set, i)->name_len);
                tg_buf_printf(&r->reports, ",\"path\":\"\",\"issue\":\"this format's list would be over its bound of %zu "
                                           "bytes of rendered tools: the largest are left out of this list, this one among them\"}",
                              list_max);
                r->report[i].len = r->reports.len - r->report[i].off;
                continue;
            }
            if (render_tool(&a, rt->limits.json_depth, fmt, tg_toolset_at(set, i), &r->text, &r->reports, &r->tools[i],
                            &r->report[i])) {
                tg_free(&rt->alloc, drop, c->n);
                tg_arena_free(&a);
                return NULL;
            }
            if (r->text.len > list_max) over = 1;
            if (over) r->text.len = r->tools[i].off; /* (measured, not kept) */
        }
        if (!over || drop) break;
        /* the largest first, until what is left fits */
        size_t total = 0;
        for (size_t i = 0; i < c->n; i++) total += r->tools[i].len;
        drop = tg_malloc(&rt->alloc, c->n);
        if (!drop) {
            tg_arena_free(&a);
            return NULL;
        }
        memset(drop, 0, c->n);
        span *by_len = tg_malloc(&rt->alloc, c->n * sizeof *by_len); /* (off: the tool's index) */
        if (!by_len) {
            tg_free(&rt->alloc, drop, c->n);
            tg_arena_free(&a);
            return NULL;
        }
        for (size_t i = 0; i < c->n; i++) by_len[i].off = i, by_len[i].len = r->tools[i].len;
        qsort(by_len, c->n, sizeof *by_len, longer_first);
        for (size_t k = 0; k < c->n && total > list_max; k++) {
            drop[by_len[k].off] = 1;
            total -= by_len[k].len;
        }
        tg_free(&rt->alloc, by_len, c->n * sizeof *by_len);
    }
    tg_free(&rt->alloc, drop, c->n);
    if (r->text.failed || r->reports.failed) {
        tg_arena_free(&a);
        return NULL;
    }
    tg_arena_free(&a);
    r->done = 1;
    return r;
}

/* The decimal number at s (1 to 19 digits, nothing else: no sign, space or
 * exponent) into *out; returns where it ends, NULL when there is none. A
 * cursor is "epoch:index" exactly as this server wrote it. */
static const char *cursor_number(const char *s, uint64_t *out) {
    uint64_t n = 0;
    size_t i = 0;
    if (s[0] == '0' && s[1] >= '0' && s[1] <= '9') return NULL; /* (never written with a leading zero) */
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        if (i == 19) return NULL;
        n = n * 10 + (uint64_t)(s[i] - '0');
    }
    if (!i) return NULL;
    *out = n;
    return s + i;
}

tg_status tg_list_tools(tg_runtime *rt, const char *request, size_t len) {
    tg_rt_begin(rt);
    tg_export_format fmt = TG_EXPORT_MCP;
    uint32_t snapshot = 0;
    size_t start = 0, limit = 0;
    uint64_t cursor_epoch = 0, start_at = 0;
    int has_cursor = 0;
    tg_call_request who;
    memset(&who, 0, sizeof who);
    int filter = 0;
    if (len) {
        tg_json_error jerr;
        tg_json_limits jl = tg_rt_json_limits(rt, 65536);
        cJSON *q = tg_json_parse(&rt->call_arena, request, len, &jl, &jerr);
        /* (a request past 64 KiB, a cursor of that size: too_large, as said) */
        if (!q) return tg_rt_json_fail(rt, "the listing request", &jerr);
        if (!cJSON_IsObject(q)) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "a listing request must be a JSON object", -1);
        const cJSON *v;
        if ((v = tg_json_getz(q, "format")) && (!cJSON_IsString(v) || format_of(v->valuestring, &fmt)))
            return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST,
                              "\"format\" must be mcp, anthropic, openai, openai-strict, gemini or bedrock", -1);
        if ((v = tg_json_getz(q, "limit")) && cJSON_IsNumber(v) && v->valuedouble >= 1)
            limit = v->valuedouble >= 1e9 ? (size_t)1000000000 : (size_t)v->valuedouble; /* (no more tools than that) */
        if (tg_call_request_read(rt, q, TG_REQUEST_LIST, &who)) return TG_ERR_INVALID_REQUEST;
        snapshot = who.snapshot; /* (read strictly there, with the call's other fields) */
        filter = rt->policy && (who.principal || who.mode || who.tenant || who.scheduler || who.source ||
                                cJSON_IsTrue(tg_json_getz(q, "filter")));
        if ((v = tg_json_getz(q, "cursor")) && !cJSON_IsNull(v)) {
            const char *c = cJSON_IsString(v) ? v->valuestring : NULL;
            /* (its whole text: a NUL in it does not end it) */
            const char *c_end = c ? c + tg_json_strlen(c) : NULL;
            if (!c || !(c = cursor_number(c, &cursor_epoch)) || *c++ != ':' || !(c = cursor_number(c, &start_at)) ||
                c != c_end || (uint64_t)(size_t)start_at != start_at) /* (an index past size_t on wasm32) */
                return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "invalid cursor (not one this server gave)", -1);
            has_cursor = 1;
            start = (size_t)start_at;
        }
    }
    tg_status st;
    tg_toolset *set = tg_rt_toolset(rt, snapshot, &st);
    if (!set) return st;
    if (has_cursor && cursor_epoch != tg_toolset_epoch(set))
        return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "the cursor belongs to another epoch: list again from the start", -1);
    rendering *r = render(rt, set, fmt);
    if (!r) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory rendering the tool list", -1);
    size_t n = tg_toolset_count(set);
    /* (a cursor is written only while positions follow it in its epoch) */
    if (has_cursor && start >= n) return tg_rt_fail(rt, TG_ERR_INVALID_REQUEST, "invalid cursor (not one this server gave)", -1);
    /* a model is never shown a tool it can never call: the policy filters the
     * list for the principal and context given; the cursor counts positions
     * in the whole (sorted) set, so pages stay stable */
    unsigned char *shown = tg_arena_alloc(&rt->call_arena, n ? n : 1);
    if (!shown) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory", -1);
    /* a pinned tool whose host options changed since (same definition) is
     * rendered for this listing as they say now: the set's cached rendering
     * has the old context parameters hidden (its other tools' stay cached) */
    own_rendering *own = NULL; /* per position: such a tool's rendering, in fresh */
    tg_buf fresh, fresh_reports;
    tg_buf_init(&fresh, rt->alloc, 0);
    tg_buf_init(&fresh_reports, rt->alloc, 0);
    tg_arena scratch;
    tg_arena_init(&scratch, rt->alloc);
    int nomem = 0;
    size_t end = start, count = 0;
    for (; end < n && (!limit || count < limit); end++) {
        const tg_tool *pinned = tg_toolset_at(set, end), *t = pinned;
        /* in a pinned snapshot, the host's options in force now (a tool
         * redefined since is not shown: its calls are refused) */
        if (snapshot && !(t = tg_rt_pinned(rt, set, t))) {
            shown[end] = 0;
            continue;
        }
        size_t shown_len = r->tools[end].len;
        if (t != pinned && !tg_json_same(t->hidden, pinned->hidden)) {
            if (!own) own = tg_arena_calloc(&rt->call_arena, n, sizeof *own);
            if (!own || render_tool(&scratch, rt->limits.json_depth, fmt, t, &fresh, &fresh_reports, &own[end].text,
                                     &own[end].report)) {
                nomem = 1;
                break;
            }
            own[end].on = 1;
            shown_len = own[end].text.len;
        }
        /* tenant scope holds with or without a policy */
        int ok = !t->opts.tenant || (who.tenant && strcmp(who.tenant, t->opts.tenant) == 0);
        const char *rule;
        if (ok && !rt->policy) ok = tg_no_policy_refusal(t, &who, &rule) == NULL; /* what the host restricted */
        if (ok && filter) {
            tg_tool_facts f = tg_tool_facts_of(t);
            tg_authz_request ar = {who.principal, who.mode, who.scheduler, who.source, who.tenant, who.session, NULL, 0, 1};
            ok = tg_policy_visible(rt->policy, &f, &ar);
        }
        /* 1 listed; 2 visible but left out by the format (rendered empty):
         * its report entry says why */
        shown[end] = (unsigned char)(ok ? (shown_len ? 1 : 2) : 0);
        count += (size_t)(shown[end] == 1);
    }
    tg_arena_free(&scratch);
    if (nomem) {
        tg_buf_free(&fresh);
        tg_buf_free(&fresh_reports);
        return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory rendering the tool list", -1);
    }

    tg_buf *o = &rt->out;
    tg_buf_puts(o, fmt == TG_EXPORT_GEMINI ? "{\"tools\":[{\"functionDeclarations\":[" : "{\"tools\":[");
    int first = 1;
    for (size_t i = start; i < end; i++) {
        if (shown[i] != 1) continue;
        if (!first) tg_buf_putc(o, ',');
        first = 0;
        if (own && own[i].on) tg_buf_append(o, fresh.data + own[i].text.off, own[i].text.len);
        else tg_buf_append(o, r->text.data + r->tools[i].off, r->tools[i].len);
    }
    tg_buf_puts(o, fmt == TG_EXPORT_GEMINI ? "]}]" : "]");
    if (end < n) tg_buf_printf(o, ",\"nextCursor\":\"%llu:%zu\"", (unsigned long long)tg_toolset_epoch(set), end);
    tg_buf_puts(o, ",\"report\":[");
    first = 1;
    for (size_t i = start; i < end; i++) {
        const char *from = own && own[i].on ? fresh_reports.data : r->reports.data;
        span at = own && own[i].on ? own[i].report : r->report[i];
        if (!shown[i] || !at.len) continue;
        if (!first) tg_buf_putc(o, ',');
        first = 0;
        tg_buf_append(o, from + at.off, at.len);
    }
    tg_buf_printf(o, "],\"epoch\":%llu}", (unsigned long long)tg_toolset_epoch(set));
    tg_buf_free(&fresh);
    tg_buf_free(&fresh_reports);
    if (o->failed) return tg_rt_fail(rt, TG_ERR_NOMEM, "out of memory writing the tool list", -1);
    return TG_OK;
}

/* The schema s's local "$ref" ("#" + JSON Pointer) names in root; NULL
 * without one, or for a reference this walk does not follow (an anchor, a
 * remote document), *unfollowed set then. In 2020-12 a $ref applies beside
 * its sibling keywords: callers treat it as one more allOf branch. */
static const cJSON *ref_of(const cJSON *root, const cJSON *s, int *unfollowed) {
    const cJSON *ref = cJSON_IsObject(s) ? tg_json_getz(s, "$ref") : NULL;
    const cJSON *at =
        cJSON_IsString(ref) ? tg_json_pointer_ref(root, ref->valuestring, tg_json_strlen(ref->valuestring)) : NULL;
    *unfollowed = ref && (!at || at == s);
    return at == s ? NULL : at;
}

/* s lets null through as a value (so a null the model sent may mean null);
 * in doubt (too deep, a reference not followed), it does. */
static int takes_null(const cJSON *root, const cJSON *s, int depth) {
    int unfollowed;
    const cJSON *target = ref_of(root, s, &unfollowed);
    if (unfollowed || depth > 16) return 1;
    if (target && !takes_null(root, target, depth + 1)) return 0; /* (and the siblings, below) */
    if (!cJSON_IsObject(s)) return !cJSON_IsFalse(s);
    const cJSON *t = tg_json_getz(s, "type"), *v;
    /* allOf: null must pass every member (pydantic's described $ref is an allOf of one) */
    if ((v = tg_json_getz(s, "allOf")) && cJSON_IsArray(v))
        for (v = v->child; v; v = v->next)
            if (!takes_null(root, v, depth + 1)) return 0;
    if (!t && !tg_json_getz(s, "anyOf") && !tg_json_getz(s, "oneOf") && !tg_json_getz(s, "enum") && !tg_json_getz(s, "const"))
        return 1;
    if (tg_json_string_is(t, "null")) return 1;
    if (cJSON_IsArray(t))
        for (v = t->child; v; v = v->next)
            if (tg_json_string_is(v, "null")) return 1;
    if (t) return 0; /* (a type without "null" refuses it, whatever enum or const say) */
    if ((v = tg_json_getz(s, "const")) && cJSON_IsNull(v)) return 1;
    if ((v = tg_json_getz(s, "enum")) && cJSON_IsArray(v))
        for (v = v->child; v; v = v->next)
            if (cJSON_IsNull(v)) return 1;
    for (const char *const *k = (const char *const[]){"anyOf", "oneOf", NULL}; *k; k++)
        if ((v = tg_json_getz(s, *k)) && cJSON_IsArray(v))
            for (v = v->child; v; v = v->next)
                if (takes_null(root, v, depth + 1)) return 1;
    return 0;
}

/* (key: a member's, which may hold U+0000: compared by its whole length) */
static int in_required(const cJSON *s, const char *key) {
    const cJSON *req = tg_json_getz(s, "required");
    size_t n = tg_json_strlen(key);
    if (cJSON_IsArray(req))
        for (const cJSON *r = req->child; r; r = r->next)
            if (cJSON_IsString(r) && tg_json_strlen(r->valuestring) == n && memcmp(r->valuestring, key, n) == 0) return 1;
    return 0;
}

/* A model that saw the OpenAI strict rendering must send every property,
 * null for one the tool leaves optional; that null means "absent": drop it
 * where the original schema (through $ref and its siblings, allOf/anyOf/oneOf branches,
 * items and prefixItems, at any depth) declares the property optional and
 * not taking null. */
static void strip_nulls(const cJSON *root, const cJSON *s, cJSON *inst, int depth, size_t *fan) {
    if (!cJSON_IsObject(s) || depth > 64) return;
    int unfollowed;
    const cJSON *target = ref_of(root, s, &unfollowed);
    if (target && ++*fan <= 256) strip_nulls(root, target, inst, depth + 1, fan); /* (then the siblings) */
    if (cJSON_IsObject(inst)) {
        const cJSON *props = tg_json_getz(s, "properties");
        for (cJSON *m = inst->child, *next; m; m = next) {
            next = m->next;
            const cJSON *ps = cJSON_IsObject(props) ? tg_json_get(props, m->string, tg_json_strlen(m->string)) : NULL;
            if (!ps) continue;
            if (cJSON_IsNull(m)) {
                if (!in_required(s, m->string) && !takes_null(root, ps, 0)) tg_json_detach(inst, m);
            } else {
                size_t f = 0;
                strip_nulls(root, ps, m, depth + 1, &f);
            }
        }
    } else if (cJSON_IsArray(inst)) {
        const cJSON *items = tg_json_getz(s, "items"), *prefix = tg_json_getz(s, "prefixItems");
        const cJSON *p = cJSON_IsArray(prefix) ? prefix->child : NULL;
        for (cJSON *e = inst->child; e; e = e->next) {
            if (p) {
                size_t f = 0;
                strip_nulls(root, p, e, depth + 1, &f);
                p = p->next;
            } else if (items) {
                size_t f = 0;
                strip_nulls(root, items, e, depth + 1, &f);
            }
        }
    } else {
        return;
    }
    for (const char *const *k = (const char *const[]){"allOf", "anyOf", "oneOf", NULL}; *k; k++) {
        const cJSON *br = tg_json_getz(s, *k);
        if (cJSON_IsArray(br))
            for (const cJSON *b = br->child; b; b = b->next) {
                /* bounded per value: branches over the same value (anyOf of
                 * refs back to one schema) would fan out exponentially */
                if (++*fan > 256) return;
                strip_nulls(root, b, inst, depth + 1, fan);
            }
    }
}

void tg_strict_strip_nulls(const tg_tool *tool, cJSON *args) {
    const cJSON *schema = tool->input_schema; /* (pruned of annotations and examples: what is read here is kept) */
    size_t fan = 0;
    if (schema) strip_nulls(schema, schema, args, 0, &fan);
}
