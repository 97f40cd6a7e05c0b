/* descriptor.c - one tool from an untrusted MCP descriptor and the host's
 * options: shape checks, cleaned text, schema compilation, digest. */
#include "registry_internal.h"

#include <stdio.h>
#include <string.h>

#include "../crypto/base64url.h"
#include "../crypto/blake2s.h"
#include "../base/utf8.h"
#include "../export/hidden.h"
#include "sanitize.h"

#define TITLE_BYTES 256

static int fail(tg_tool_error *e, const char *code, const char *msg) {
    snprintf(e->code, sizeof e->code, "%s", code);
    snprintf(e->message, sizeof e->message, "%s", msg);
    return -1;
}

/* s[0..n), up to a NUL and cut to cap - 1 bytes, as C text in out (what
 * snprintf's "%.*s" writes, without the formatting). */
static void put_text(char *out, size_t cap, const char *s, size_t n) {
    const char *nul = memchr(s, '\0', n);
    if (nul) n = (size_t)(nul - s);
    if (n > cap - 1) n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static int is_bool_or_absent(const cJSON *o, const char *k) {
    const cJSON *v = tg_json_getz(o, k);
    return !v || cJSON_IsBool(v);
}

/* The MCP Tool shape (2025-11-25 and 2026-07-28). Unknown fields are data. */
static int check_shape(const cJSON *d, tg_tool_error *e) {
    if (!cJSON_IsObject(d)) return fail(e, "invalid_descriptor", "a tool descriptor must be a JSON object");
    const cJSON *name = tg_json_getz(d, "name");
    if (!cJSON_IsString(name)) return fail(e, "invalid_descriptor", "\"name\" must be a string");
    size_t nlen = tg_json_strlen(name->valuestring);
    if (nlen == 0 || tg_utf8_count((const unsigned char *)name->valuestring, nlen) > 128)
        return fail(e, "invalid_descriptor", "\"name\" must be 1 to 128 characters");
    for (size_t i = 0; i < nlen; i++)
        if ((unsigned char)name->valuestring[i] < 0x20 || name->valuestring[i] == 0x7F)
            return fail(e, "invalid_descriptor", "\"name\" must not contain control characters");
    const cJSON *v;
    if ((v = tg_json_getz(d, "title")) && !cJSON_IsString(v)) return fail(e, "invalid_descriptor", "\"title\" must be a string");
    if ((v = tg_json_getz(d, "description")) && !cJSON_IsString(v))
        return fail(e, "invalid_descriptor", "\"description\" must be a string");
    const cJSON *in = tg_json_getz(d, "inputSchema");
    if (!cJSON_IsObject(in)) return fail(e, "invalid_descriptor", "\"inputSchema\" must be a JSON Schema object");
    const cJSON *type = tg_json_getz(in, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "object") != 0)
        return fail(e, "invalid_descriptor", "\"inputSchema\" must have \"type\": \"object\" at its root");
    if ((v = tg_json_getz(d, "outputSchema")) && !cJSON_IsObject(v) && !cJSON_IsBool(v))
        return fail(e, "invalid_descriptor", "\"outputSchema\" must be a JSON Schema");
    if ((v = tg_json_getz(d, "annotations"))) {
        if (!cJSON_IsObject(v)) return fail(e, "invalid_descriptor", "\"annotations\" must be an object");
        if (!is_bool_or_absent(v, "readOnlyHint") || !is_bool_or_absent(v, "destructiveHint") ||
            !is_bool_or_absent(v, "idempotentHint") || !is_bool_or_absent(v, "openWorldHint"))
            return fail(e, "invalid_descriptor", "annotation hints must be booleans");
        const cJSON *t = tg_json_getz(v, "title");
        if (t && !cJSON_IsString(t)) return fail(e, "invalid_descriptor", "\"annotations.title\" must be a string");
    }
    if ((v = tg_json_getz(d, "icons")) && !cJSON_IsArray(v)) return fail(e, "invalid_descriptor", "\"icons\" must be an array");
    if ((v = tg_json_getz(d, "execution"))) {
        if (!cJSON_IsObject(v)) return fail(e, "invalid_descriptor", "\"execution\" must be an object");
        const cJSON *ts = tg_json_getz(v, "taskSupport"); /* (a client's reader refuses any other value) */
        if (ts && !(cJSON_IsString(ts) && (strcmp(ts->valuestring, "forbidden") == 0 ||
                                           strcmp(ts->valuestring, "optional") == 0 ||
                                           strcmp(ts->valuestring, "required") == 0)))
            return fail(e, "invalid_descriptor",
                        "\"execution.taskSupport\" must be \"forbidden\", \"optional\" or \"required\"");
    }
    if ((v = tg_json_getz(d, "_meta")) && !cJSON_IsObject(v)) return fail(e, "invalid_descriptor", "\"_meta\" must be an object");
    return 0;
}

int tg_context_name_ok(const char *s, size_t len) {
    if (len < 1 || len > 128) return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7F) return 0;
    return 1;
}

/* Host options -> tg_tool_opts (strings point into the tool's arena copy). */
static int read_options(const cJSON *o, tg_tool_opts *opts, const cJSON *caps, tg_tool_error *e) {
    memset(opts, 0, sizeof *opts);
    if (!o) return 0;
    if (!cJSON_IsObject(o)) return fail(e, "invalid_options", "tool options must be an object");
    /* the facts the policy trusts: a misspelled one ("needsAproval") is
     * refused, never ignored (it would leave the tool unguarded) */
    static const char *const KNOWN[] = {"needsApproval", "privileged", "readOnly", "edit", "auditArgs", "timeoutMs",
                                        "concurrency", "tenant", "requires", "context", "contextParams"};
    for (const cJSON *m = o->child; m; m = m->next) {
        size_t k = 0;
        /* (by the whole key: "needsApproval\u0000" is no option, and would be ignored) */
        while (k < sizeof KNOWN / sizeof KNOWN[0] && !tg_json_key_is(m, KNOWN[k])) k++;
        if (k == sizeof KNOWN / sizeof KNOWN[0]) {
            char msg[320];
            snprintf(msg, sizeof msg, "unknown tool option \"%.64s\" (the options are needsApproval, privileged, readOnly, "
                     "edit, auditArgs, timeoutMs, concurrency, tenant, requires, context, contextParams)", m->string);
            return fail(e, "invalid_options", msg);
        }
    }
    const cJSON *v;
#define FLAG(key, field)                                                                            \
    if ((v = tg_json_getz(o, key))) {                                                               \
        if (!cJSON_IsBool(v)) return fail(e, "invalid_options", "option \"" key "\" must be a boolean"); \
        opts->field = cJSON_IsTrue(v);                                                              \
    }
    FLAG("needsApproval", needs_approval)
    FLAG("privileged", privileged)
    FLAG("readOnly", read_only)
    FLAG("edit", edit)
    FLAG("auditArgs", audit_args)
#undef FLAG
    if ((v = tg_json_getz(o, "timeoutMs"))) {
        if (!cJSON_IsNumber(v) || v->valuedouble <= 0) return fail(e, "invalid_options", "\"timeoutMs\" must be a positive number");
        opts->timeout_ms = v->valuedouble;
    }
    if ((v = tg_json_getz(o, "concurrency"))) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e6 || !tg_json_is_integer(v))
            return fail(e, "invalid_options", "\"concurrency\" must be a positive integer");
        opts->concurrency = (size_t)v->valuedouble;
    }
    if ((v = tg_json_getz(o, "tenant"))) {
        /* the rule a call's context tenant is held to: the scope is compared
         * as C text, so "acme\u0000evil" would be tenant "acme"'s tool */
        if (!cJSON_IsString(v) || !tg_context_name_ok(v->valuestring, tg_json_strlen(v->valuestring)))
            return fail(e, "invalid_options", "\"tenant\" must be a string of 1-128 bytes without control characters");
        opts->tenant = v->valuestring;
    }
    if ((v = tg_json_getz(o, "requires"))) {
        if (!cJSON_IsArray(v)) return fail(e, "invalid_options", "\"requires\" must be an array of capability names");
        for (const cJSON *c = v->child; c; c = c->next) {
            if (!cJSON_IsString(c)) return fail(e, "invalid_options", "\"requires\" must be an array of capability names");
            int have = 0;
            for (const cJSON *g = caps ? caps->child : NULL; g && !have; g = g->next)
                have = tg_json_equal(g, c);
            if (!have) {
                char msg[200];
                snprintf(msg, sizeof msg, "requires capability \"%.100s\", which this runtime was not given", c->valuestring);
                return fail(e, "missing_capability", msg);
            }
        }
    }
    if ((v = tg_json_getz(o, "context"))) {
        if (!cJSON_IsObject(v)) return fail(e, "invalid_options", "\"context\" must map parameter names to context keys");
        for (const cJSON *c = v->child; c; c = c->next)
            if (!cJSON_IsString(c)) return fail(e, "invalid_options", "\"context\" must map parameter names to context keys");
        opts->context = v;
    }
    if ((v = tg_json_getz(o, "contextParams"))) {
        if (!cJSON_IsString(v) || (strcmp(v->valuestring, "reject") && strcmp(v->valuestring, "drop")))
            return fail(e, "invalid_options", "\"contextParams\" must be \"reject\" or \"drop\"");
        opts->context_drop = strcmp(v->valuestring, "drop") == 0;
    }
    return 0;
}

/* Replaces a string value by its cleaned copy (cut to cap bytes), or,
 * with a NULL arena, leaves it as it is; sets *changed when cleaning
 * changes it. Anything but a string is left alone. -1 when memory ran
 * out. */
static int clean_value(tg_arena *a, cJSON *v, size_t cap, int *changed) {
    return cJSON_IsString(v) ? tg_sanitize_value(a, v, cap, changed) : 0;
}

/* Notes in sanitized that cleaning changed a field (label), when it
 * cleans (a set); sets *changed. */
static int note(tg_arena *a, cJSON *sanitized, const char *label, int *changed) {
    *changed = 1;
    if (!a) return 0;
    cJSON *n = tg_json_new_string(a, label, strlen(label));
    if (!n) return -1;
    tg_json_append(sanitized, n);
    return 0;
}

static int clean_field(tg_arena *a, cJSON *obj, const char *key, size_t cap, const char *label, cJSON *sanitized,
                       int *changed) {
    int cut = 0;
    if (clean_value(a, tg_json_getz(obj, key), cap, &cut)) return -1;
    return cut ? note(a, sanitized, label, changed) : 0;
}

/* MCP says an icon's src is an HTTP(S) URL or a data: URI: an icon with
 * another (javascript:, file:, a relative path, hidden characters) or none is dropped; its
 * other strings are cleaned as a title is (a client shows them). Each
 * change is noted once, as "icons". */
/* 1 when an icon has the MCP Icon shape a client's reader accepts (src a
 * string; mimeType a string; sizes strings; theme "light" or "dark") and
 * its src is an HTTP(S) URL or a data: URI written in printable ASCII (no
 * spaces, controls, bidi or other hidden characters: a URL has none). */
static int icon_ok(const cJSON *icon) {
    const cJSON *v;
    if (!cJSON_IsObject(icon)) return 0;
    if ((v = tg_json_getz(icon, "mimeType")) && !cJSON_IsString(v)) return 0;
    if ((v = tg_json_getz(icon, "theme")) && !(cJSON_IsString(v) && (strcmp(v->valuestring, "light") == 0 ||
                                                                      strcmp(v->valuestring, "dark") == 0)))
        return 0;
    if ((v = tg_json_getz(icon, "sizes"))) {
        if (!cJSON_IsArray(v)) return 0;
        for (const cJSON *sz = v->child; sz; sz = sz->next)
            if (!cJSON_IsString(sz)) return 0;
    }
    const cJSON *src = tg_json_getz(icon, "src");
    static const char *const SCHEMES[] = {"https:", "http:", "data:"};
    if (!cJSON_IsString(src)) return 0;
    const char *s = src->valuestring;
    size_t len = tg_json_strlen(s);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7F) return 0;
    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(SCHEMES[k]), i = 0;
        while (i < n && i < len && (s[i] | 0x20) == SCHEMES[k][i]) i++;
        if (i == n) return 1;
    }
    return 0;
}

static int clean_icons(tg_arena *a, cJSON *d, cJSON *sanitized, int *changed) {
    cJSON *icons = tg_json_getz(d, "icons");
    if (!cJSON_IsArray(icons)) return 0; /* (check_shape refused any other) */
    int cut = 0;
    for (cJSON *icon = icons->child, *next; icon; icon = next) {
        next = icon->next;
        if (!icon_ok(icon)) {
            if (a) tg_json_detach(icons, icon);
            cut = 1;
            continue;
        }
        /* (theme is light or dark: nothing to clean) */
        if (clean_value(a, tg_json_getz(icon, "mimeType"), TITLE_BYTES, &cut)) return -1;
        cJSON *sizes = tg_json_getz(icon, "sizes");
        for (cJSON *sz = cJSON_IsArray(sizes) ? sizes->child : NULL; sz; sz = sz->next)
            if (clean_value(a, sz, TITLE_BYTES, &cut)) return -1;
    }
    return cut ? note(a, sanitized, "icons", changed) : 0;
}

/* Cleans the text of d that reaches a model or a person (description,
 * titles, icons, the schemas' own text), noting each field it changes in
 * sanitized; with a NULL arena d is only read: *changed tells whether
 * cleaning would change it. 0, 1 refused (e filled), -1 out of memory. */
static int clean(tg_arena *a, const tg_registry_config *cfg, cJSON *d, cJSON *sanitized, int *changed,
                 tg_tool_error *e) {
    if (clean_field(a, d, "description", cfg->description_bytes, "description", sanitized, changed) ||
        clean_field(a, d, "title", TITLE_BYTES, "title", sanitized, changed))
        return -1;
    cJSON *ann = tg_json_getz(d, "annotations");
    if (ann && clean_field(a, ann, "title", TITLE_BYTES, "annotations.title", sanitized, changed)) return -1;
    if (clean_icons(a, d, sanitized, changed)) return -1;
    /* the schemas' own text reaches the model too (every format shows it) */
    static const char *const SCHEMAS[] = {"inputSchema", "outputSchema"};
    for (int i = 0; i < 2; i++) {
        cJSON *sch = tg_json_getz(d, SCHEMAS[i]);
        char why[sizeof e->message - 16];
        int cut = 0, r = sch ? tg_sanitize_schema(a, sch, cfg->description_bytes, TITLE_BYTES, &cut, why, sizeof why) : 0;
        if (r < 0) return -1;
        if (r > 0) {
            char msg[sizeof e->message];
            snprintf(msg, sizeof msg, "%s: %s", SCHEMAS[i], why);
            fail(e, "invalid_descriptor", msg);
            return 1;
        }
        if (cut && note(a, sanitized, SCHEMAS[i], changed)) return -1;
    }
    return 0;
}

/* The canonical text's fields, in its order. */
#define FIELD(key) {key, sizeof key - 1}
static const struct field {
    const char *key;
    size_t len;
} FIELDS[] = {FIELD("name"), FIELD("title"), FIELD("description"), FIELD("inputSchema"), FIELD("outputSchema"),
              FIELD("annotations")};
#undef FIELD
enum { N_FIELDS = sizeof FIELDS / sizeof FIELDS[0] };

/* The field m is (its index in FIELDS), or N_FIELDS for another member. */
static size_t field_of(const cJSON *m) {
    size_t n = tg_json_strlen(m->string), i = 0;
    while (i < N_FIELDS && !(n == FIELDS[i].len && memcmp(m->string, FIELDS[i].key, n) == 0)) i++;
    return i;
}

/* The descriptor's text, as tg_json_write writes it (the definition's text
 * while cleaning changes nothing), to text, and its digest: BLAKE2s-256
 * over the canonical text of the whole descriptor: the model-relevant
 * fields first, then every other member (_meta, icons, execution, unknown
 * ones: a client may show any of them to a model or a person, so a change
 * to any is held for review), each in key order (member order is a
 * writer's habit, not a change). Both are written in one
 * walk (tg_json_write_split). The canonical sizes of inputSchema and
 * outputSchema come back in sizes[0..1], the whole descriptor's (the text
 * less its labels and line ends) in sizes[2] (the size limits are checked
 * on them: the text is written once). */
static int digest(tg_arena *a, const cJSON *d, tg_buf *text, char hex[65], size_t sizes[3]) {
    size_t n = 0;
    for (const cJSON *m = d->child; m; m = m->next) n++;
    tg_json_span *span = tg_arena_alloc(a, (n ? n : 1) * sizeof *span);
    tg_buf vals, b;
    tg_buf_init(&vals, a->alloc, 0);
    tg_buf_init(&b, a->alloc, 0);
    (void)tg_buf_reserve(&vals, 4096); /* (hints: the buffers grow past them) */
    if (!span || tg_json_write_split(text, &vals, d, span)) {
        tg_buf_free(&vals);
        return -1;
    }
    /* the fields' values, then the other members as one object in key
     * order (the member a field's key names first is the field: spans in
     * key order keep equal keys in document order) */
    tg_json_span field[N_FIELDS];
    size_t rest = 0;
    for (size_t i = 0; i < N_FIELDS; i++) field[i].member = NULL;
    for (size_t k = 0; k < n; k++) {
        size_t f = field_of(span[k].member);
        if (f == N_FIELDS) span[rest++] = span[k];
        else if (!field[f].member) field[f] = span[k];
    }
    (void)tg_buf_reserve(&b, vals.len + 128);
    sizes[0] = sizes[1] = 0;
    size_t labels = 0; /* "name=", "\n", ...: not the descriptor's bytes */
    for (size_t i = 0; i < N_FIELDS; i++) {
        tg_buf_append(&b, FIELDS[i].key, FIELDS[i].len);
        tg_buf_putc(&b, '=');
        labels += FIELDS[i].len + 2;
        if (field[i].member) {
            tg_buf_append(&b, vals.data + field[i].val, field[i].end - field[i].val);
            if (i == 3 || i == 4) sizes[i - 3] = field[i].end - field[i].val;
        }
        tg_buf_putc(&b, '\n');
    }
    tg_buf_puts(&b, "rest={");
    labels += 6;
    for (size_t k = 0; k < rest; k++) {
        if (k) tg_buf_putc(&b, ',');
        tg_buf_append(&b, vals.data + span[k].at, span[k].end - span[k].at);
    }
    tg_buf_puts(&b, "}\n");
    tg_buf_free(&vals);
    if (b.failed) {
        tg_buf_free(&b);
        return -1;
    }
    unsigned char h[TG_BLAKE2S_SIZE];
    sizes[2] = b.len - labels;
    tg_blake2s(b.data, b.len, h);
    tg_buf_free(&b);
    tg_hex_encode(h, sizeof h, hex);
    return 0;
}

static int compile(const tg_registry_config *cfg, const tg_allocator *alloc, const cJSON *schema, size_t size,
                   const char *which, tg_schema **out, tg_tool_error *e) {
    if (cfg->schema_bytes && size > cfg->schema_bytes) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s is larger than the limit of %zu bytes", which, cfg->schema_bytes);
        return fail(e, "too_large", msg);
    }
    tg_buf diag;
    tg_buf_init(&diag, *alloc, 2048);
    /* the program keeps its own copy of the schema, without what validation
     * never reads (examples, default, annotations: the definition's text
     * has them for renderings), in an arena of its own: grown from the
     * program's size, not from the tool's text beside it */
    tg_schema_options so = cfg->schema;
    so.borrow_document = 0;
    so.prune_document = 1;
    so.arena = NULL;
    int rc = tg_schema_compile(alloc, schema, &so, out, &diag);
    if (rc == 0) {
        tg_buf_free(&diag);
        return 0;
    }
    char msg[sizeof e->message];
    int oom = rc == -2;
    snprintf(msg, sizeof msg, "%s does not compile: %s", which, diag.data ? diag.data : "out of memory");
    tg_buf_free(&diag);
    return fail(e, oom ? "out_of_memory" : "invalid_schema", msg);
}

/* Context parameters are kept out of what the model sees by removing them
 * from the schema every format renders (export/hidden.h); a schema where
 * that removal cannot be exact would show one to the model, so the tool is
 * refused here, at registration, instead of rendering leaky. 0 when fine, -1
 * with e set. The scratch copy goes with a rewind of a. */
static int check_context(tg_arena *a, const cJSON *in, const cJSON *hidden, tg_tool_error *e) {
    tg_arena_mark m = tg_arena_save(a);
    cJSON *copy = tg_json_clone(a, in);
    if (!copy) {
        tg_arena_rewind(a, m);
        return fail(e, "out_of_memory", "out of memory");
    }
    char why[sizeof e->message - 40];
    int sr = tg_hidden_strip(a, copy, hidden);
    if (sr < 0) {
        tg_arena_rewind(a, m);
        return fail(e, "out_of_memory", "out of memory");
    }
    int refused = sr > 0 ? 1 : tg_hidden_check(copy, hidden, why, sizeof why);
    if (sr > 0)
        snprintf(why, sizeof why, "a definition the root uses in place is used elsewhere too, and the copy that would hide "
                 "the context parameter only where it applies cannot be placed (the root's \"$defs\" or "
                 "\"definitions\" is not an object, or too many shared definitions)");
    tg_arena_rewind(a, m);
    if (!refused) return 0;
    char msg[sizeof e->message];
    snprintf(msg, sizeof msg, "inputSchema: %s", why);
    return fail(e, "invalid_descriptor", msg);
}

/* A copy of d's nodes in a whose strings and keys are d's (valid while d
 * is): what cleaning works on. Cleaning puts a new string in place of one,
 * never writes into one, so a 1 MB description is read, never copied.
 * NULL when a refuses. */
static cJSON *nodes_of(tg_arena *a, const cJSON *d) {
    cJSON *n = tg_json_new(a, d->type & 0xFF);
    if (!n) return NULL;
    n->valuestring = d->valuestring;
    n->valuedouble = d->valuedouble;
    n->valueint = d->valueint;
    n->string = d->string;
    for (const cJSON *c = d->child; c; c = c->next) {
        cJSON *cc = nodes_of(a, c);
        if (!cc) return NULL;
        tg_json_append(n, cc);
    }
    return n;
}

void tg_tool_error_of(tg_tool_error *e, const cJSON *descriptor) {
    e->code[0] = e->message[0] = '\0';
    e->name[0] = '\0';
    const cJSON *dname = cJSON_IsObject(descriptor) ? tg_json_getz(descriptor, "name") : NULL;
    if (cJSON_IsString(dname))
        put_text(e->tool, sizeof e->tool, dname->valuestring, tg_json_strlen(dname->valuestring) < 128 ? tg_json_strlen(dname->valuestring) : 128);
    else
        e->tool[0] = '\0';
}

tg_tool *tg_tool_build(const tg_registry_config *cfg, const tg_allocator *alloc, const char *source, size_t source_len,
                       const char *tmpl, const tg_tool_entry *entry, tg_tool_error *e, tg_tool_tree *keep) {
    if (keep) {
        tg_arena_init(&keep->arena, *alloc);
        keep->doc = NULL;
    }
    tg_tool_error_of(e, entry->descriptor);
    if (check_shape(entry->descriptor, e)) return NULL;

    /* scratch: the cleaned copy and the canonical texts; the tool keeps
     * only the definition's text, that of the cleaned copy */
    tg_arena s;
    tg_arena_init(&s, *alloc);
    tg_buf text;
    tg_buf_init(&text, *alloc, 0);
    (void)tg_buf_reserve(&text, 4096);
    tg_tool *t = NULL;
    tg_tool_opts opts;
    char hex[65];
    size_t sizes[3];
    if (digest(&s, entry->descriptor, &text, hex, sizes)) goto nomem; /* of what the source sent, before cleaning */
    /* (the whole descriptor, as written canonically: a batch, which a
     * tools/list fills, holds many, and each is bounded alone) */
    if (cfg->descriptor_bytes && sizes[2] > cfg->descriptor_bytes) {
        char msg[160];
        snprintf(msg, sizeof msg, "the descriptor is larger than the limit of %zu bytes", cfg->descriptor_bytes);
        fail(e, "too_large", msg);
        goto fail;
    }
    if (read_options(entry->options, &opts, cfg->capabilities, e)) goto fail; /* (read again from the tool's copy) */
    /* cleaning works on a copy of the descriptor's nodes, made when it
     * changes something (most descriptors are clean: read, not copied) */
    const cJSON *d = entry->descriptor;
    cJSON *sanitized = tg_json_new(&s, cJSON_Array);
    if (!sanitized) goto nomem;
    int changes = 0, r = clean(NULL, cfg, (cJSON *)d, NULL, &changes, e); /* (only read) */
    if (!r && changes) {
        cJSON *copy = nodes_of(&s, d);
        r = copy ? clean(&s, cfg, copy, sanitized, &changes, e) : -1;
        d = copy;
    }
    if (r < 0) goto nomem;
    if (r > 0) goto fail;

    const cJSON *name = tg_json_getz(d, "name");
    size_t nlen = tg_json_strlen(name->valuestring);
    char mapped[TG_NAME_MAX + 1];
    size_t mlen = tg_name_map(tmpl, source, source_len, name->valuestring, nlen, mapped);
    put_text(e->name, sizeof e->name, mapped, mlen);
    cJSON *hidden = NULL;
    if (opts.context) {
        if (!(hidden = tg_json_new(&s, cJSON_Array))) goto nomem;
        for (const cJSON *c = opts.context->child; c; c = c->next) {
            cJSON *h = tg_json_new_string(&s, c->string, tg_json_strlen(c->string));
            if (!h) goto nomem;
            tg_json_append(hidden, h);
        }
        const cJSON *in = tg_json_getz(d, "inputSchema");
        if (in && check_context(&s, in, hidden, e)) goto fail;
    }
    /* (the text digest wrote is the cleaned copy's while cleaning changed nothing) */
    if (sanitized->child) {
        tg_buf_reset(&text);
        if (tg_json_write(&text, d) || text.failed) goto nomem;
    }

    /* the tool, in one chunk of what it keeps (its programs come with
     * tg_tool_compile): no node of the descriptor, its text */
    size_t more = TG_TEXT_BYTES(text.len) + TG_TEXT_BYTES(nlen) + TG_TEXT_BYTES(mlen) + TG_TEXT_BYTES(source_len + 1 + mlen) +
                  tg_json_clone_size(sanitized) + (hidden ? tg_json_clone_size(hidden) : 0) +
                  (entry->options ? tg_json_clone_size(entry->options) : 0);
    if (!(t = tg_tool_new(alloc, source, source_len, more))) goto nomem;
    if (!(t->definition = tg_arena_strndup(&t->arena, text.data, text.len))) goto nomem;
    t->definition_len = text.len;
    t->tool_name = tg_arena_strndup(&t->arena, name->valuestring, nlen); /* (no NUL: check_shape refuses controls) */
    t->sanitized = tg_json_clone(&t->arena, sanitized);
    t->hidden = hidden ? tg_json_clone(&t->arena, hidden) : NULL;
    t->options_doc = entry->options ? tg_json_clone(&t->arena, entry->options) : NULL;
    if (!t->tool_name || !t->sanitized || (hidden && !t->hidden) || (entry->options && !t->options_doc) ||
        tg_tool_set_name(t, mapped, mlen))
        goto nomem;
    (void)read_options(t->options_doc, &t->opts, cfg->capabilities, e); /* (read above: its strings now the copy's) */
    memcpy(t->digest, hex, sizeof hex);
    t->handler_id = entry->handler_id;
    t->schema_bytes[0] = sizes[0];
    t->schema_bytes[1] = sizes[1];
    t->flight = tg_malloc(alloc, sizeof *t->flight);
    if (!t->flight) goto nomem;
    t->flight->n = 0;
    t->flight->refs = 1;
    t->flight->alloc = *alloc;
    tg_buf_free(&text);
    if (keep) { /* the scratch arena and the cleaned descriptor (the copy in it, or entry's) go to the caller */
        keep->arena = s;
        keep->doc = d;
    } else
        tg_arena_free(&s);
    return t;
nomem:
    fail(e, "out_of_memory", "out of memory");
fail:
    if (t) tg_tool_free(t);
    tg_buf_free(&text);
    tg_arena_free(&s);
    return NULL;
}

int tg_tool_compile(const tg_registry_config *cfg, tg_tool *t, const cJSON *doc, tg_tool_error *e) {
    /* the schemas whole (as built, else from the definition's text), for
     * the compiler's metaschema check; the programs keep copies of what
     * validation reads */
    tg_arena s;
    tg_arena_init(&s, t->arena.alloc);
    const cJSON *d = doc ? doc : tg_tool_definition_tree(t, &s, cfg->json_depth);
    int rc = -1;
    if (!d) fail(e, "out_of_memory", "out of memory");
    else if (!compile(cfg, &t->arena.alloc, tg_json_getz(d, "inputSchema"), t->schema_bytes[0], "inputSchema", &t->input, e)) {
        const cJSON *out = tg_json_getz(d, "outputSchema");
        rc = out ? compile(cfg, &t->arena.alloc, out, t->schema_bytes[1], "outputSchema", &t->output, e) : 0;
    }
    if (t->input) t->input_schema = tg_schema_document(t->input);
    if (t->output) t->output_schema = tg_schema_document(t->output);
    tg_arena_free(&s);
    return rc;
}
