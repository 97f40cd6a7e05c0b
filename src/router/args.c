/* args.c - a call's arguments made ready for the handler: context
 * parameters refused or dropped, then injected from the trusted context,
 * then the whole object checked against the tool's compiled inputSchema. */
#include "router.h"
#include "../crypto/base64url.h"
#include "../crypto/sha256.h"
#include "../json/json_lex.h"

#include <string.h>

/* 1 when JSON Pointer ptr is, or lies under, the member `name`. */
static int under_member(const char *ptr, size_t len, const char *name) {
    size_t i = 1, n = strlen(name);
    if (len < 1 || ptr[0] != '/') return 0; /* ("/" is the member named "") */
    for (size_t k = 0; k < n; k++) {
        const char *esc = name[k] == '~' ? "~0" : name[k] == '/' ? "~1" : NULL;
        size_t el = esc ? 2 : 1;
        if (i + el > len || (esc ? memcmp(ptr + i, esc, 2) != 0 : ptr[i] != name[k])) return 0;
        i += el;
    }
    return i == len || ptr[i] == '/';
}

/* Turns the evaluator's BASIC output into lines a model can act on. An
 * error at or under a member of `hidden` (the context parameters: values
 * the host supplies) names the value it refuses: it becomes one line that
 * shows neither the value nor the hidden name. */
static void errors_to_lines(tg_arena *arena, const char *json, size_t len, const cJSON *hidden, tg_buf *msg) {
    tg_json_error err;
    cJSON *arr = tg_json_parse(arena, json, len, NULL, &err);
    int withheld = 0;
    for (const cJSON *e = arr ? arr->child : NULL; e; e = e->next) {
        const cJSON *at = tg_json_getz(e, "instanceLocation"), *kw = tg_json_getz(e, "keywordLocation");
        const cJSON *m = tg_json_getz(e, "message");
        size_t al = cJSON_IsString(at) ? tg_json_strlen(at->valuestring) : 0;
        int host = 0;
        for (const cJSON *p = hidden ? hidden->child : NULL; p && !host; p = p->next)
            host = under_member(at->valuestring, al, p->string);
        if (host) {
            if (!withheld++)
                tg_buf_puts(msg, "- (a value the host supplies): it does not satisfy the tool's schema; not shown, and "
                                 "not for the arguments to fix\n");
            continue;
        }
        tg_buf_puts(msg, "- ");
        if (al) tg_buf_append(msg, at->valuestring, al);
        else tg_buf_puts(msg, "(root)");
        tg_buf_puts(msg, ": ");
        if (cJSON_IsString(m)) tg_buf_append(msg, m->valuestring, tg_json_strlen(m->valuestring));
        if (cJSON_IsString(kw)) { /* (the root schema's own location is "": shown as "/") */
            tg_buf_puts(msg, " (schema ");
            if (tg_json_strlen(kw->valuestring)) tg_buf_append(msg, kw->valuestring, tg_json_strlen(kw->valuestring));
            else tg_buf_putc(msg, '/');
            tg_buf_putc(msg, ')');
        }
        tg_buf_putc(msg, '\n');
    }
}

tg_args_status tg_check_schema(tg_arena *arena, const tg_schema *schema, const cJSON *value, size_t max_errors,
                               const cJSON *hidden, tg_buf *msg) {
    tg_arena_mark m = tg_arena_save(arena);
    int v = tg_schema_validate(schema, value, arena, TG_OUTPUT_FLAG, 0, NULL);
    tg_arena_rewind(arena, m);
    if (v == 1) return TG_ARGS_OK;
    if (v < 0) {
        tg_buf_puts(msg, "- (root): the value could not be checked within the limits (nesting depth, evaluation steps, memory)\n");
        return TG_ARGS_LIMIT;
    }
    return tg_schema_error_lines(arena, schema, value, max_errors, hidden, msg);
}

tg_args_status tg_schema_error_lines(tg_arena *arena, const tg_schema *schema, const cJSON *value,
                                     size_t max_errors, const cJSON *hidden, tg_buf *msg) {
    tg_arena_mark m = tg_arena_save(arena);
    tg_buf errors;
    tg_buf_init(&errors, msg->alloc, 0);
    int v = tg_schema_validate(schema, value, arena, TG_OUTPUT_BASIC, max_errors, &errors);
    if (errors.failed) {
        tg_buf_free(&errors);
        return TG_ARGS_NOMEM;
    }
    errors_to_lines(arena, errors.data ? errors.data : "[]", errors.len, hidden, msg);
    tg_buf_free(&errors);
    tg_arena_rewind(arena, m);
    return v == 0 ? TG_ARGS_INVALID : v < 0 ? TG_ARGS_LIMIT : TG_ARGS_OK;
}

const cJSON *tg_args_judged(tg_arena *arena, const tg_tool *tool, const cJSON *args, const cJSON *context) {
    const cJSON *ctxmap = tool->opts.context;
    if (!ctxmap || !cJSON_IsObject(args)) return args;
    cJSON *j = tg_json_clone(arena, args);
    if (!j) return NULL;
    for (const cJSON *p = ctxmap->child; p; p = p->next) {
        const cJSON *val = context ? tg_json_get(context, p->valuestring, tg_json_strlen(p->valuestring)) : NULL;
        /* without the context's value a call is refused (tg_args_prepare);
         * tg_authorize then judges what it was given */
        if (!val) continue;
        cJSON *given = tg_json_get(j, p->string, tg_json_strlen(p->string));
        if (given) tg_json_detach(j, given); /* a model's value never counts (dropped, or the call refused) */
        cJSON *copy = tg_json_clone(arena, val);
        if (!copy || tg_json_set_key(arena, copy, p->string, tg_json_strlen(p->string))) return NULL;
        tg_json_append(j, copy);
    }
    return j;
}

const cJSON *tg_args_shown(tg_arena *arena, const tg_tool *tool, const cJSON *args) {
    const cJSON *ctxmap = tool->opts.context;
    if (!ctxmap || !cJSON_IsObject(args)) return args;
    cJSON *j = tg_json_clone(arena, args);
    if (!j) return NULL;
    for (const cJSON *p = ctxmap->child; p; p = p->next) {
        cJSON *given = tg_json_get(j, p->string, tg_json_strlen(p->string));
        if (given) tg_json_detach(j, given);
    }
    return j;
}

int tg_args_context_digest(const tg_tool *tool, const cJSON *context, const tg_allocator *alloc, char hex[65]) {
    const cJSON *ctxmap = tool->opts.context;
    hex[0] = '\0';
    if (!ctxmap) return 0;
    /* {"parameter":value,...} in the tool's order of its context parameters,
     * each value with its members sorted: the same values, however the host
     * ordered them, are the same call */
    tg_buf b;
    tg_buf_init(&b, *alloc, 0);
    tg_buf_putc(&b, '{');
    int first = 1;
    for (const cJSON *p = ctxmap->child; p; p = p->next) {
        const cJSON *val = context ? tg_json_get(context, p->valuestring, tg_json_strlen(p->valuestring)) : NULL;
        if (!val) continue; /* (refused before an approval is asked or redeemed: tg_args_prepare) */
        if (!first) tg_buf_putc(&b, ',');
        first = 0;
        tg_json_write_string(&b, p->string, tg_json_strlen(p->string));
        tg_buf_putc(&b, ':');
        tg_json_write_sorted(&b, val);
    }
    tg_buf_putc(&b, '}');
    if (b.failed) {
        tg_buf_free(&b);
        return -1;
    }
    unsigned char h[TG_SHA256_SIZE];
    tg_sha256(b.data, b.len, h);
    tg_buf_free(&b);
    tg_hex_encode(h, sizeof h, hex);
    return 1;
}

tg_args_status tg_args_prepare(tg_arena *arena, const tg_tool *tool, cJSON *args, const cJSON *context,
                               int known_invalid, size_t max_errors, tg_buf *msg) {
    if (!cJSON_IsObject(args)) {
        tg_buf_puts(msg, "- (root): expected an object of arguments\n");
        return TG_ARGS_INVALID;
    }
    const cJSON *ctxmap = tool->opts.context;
    if (ctxmap) {
        /* 1 the model may not set a context parameter */
        size_t refused = 0;
        for (const cJSON *p = ctxmap->child; p; p = p->next) {
            cJSON *given = tg_json_get(args, p->string, tg_json_strlen(p->string));
            if (!given) continue;
            if (tool->opts.context_drop) {
                tg_json_detach(args, given);
                continue;
            }
            tg_buf_puts(msg, "- /");
            tg_buf_append(msg, p->string, tg_json_strlen(p->string));
            tg_buf_puts(msg, ": this parameter is set by the host and must not be supplied\n");
            refused++;
        }
        if (refused) return TG_ARGS_INVALID;
        /* 2 inject from the trusted context */
        for (const cJSON *p = ctxmap->child; p; p = p->next) {
            const cJSON *val = context ? tg_json_get(context, p->valuestring, tg_json_strlen(p->valuestring)) : NULL;
            if (!val) {
                tg_buf_puts(msg, "the call's context has no value for \"");
                tg_buf_append(msg, p->valuestring, tg_json_strlen(p->valuestring));
                tg_buf_puts(msg, "\" (parameter \"");
                tg_buf_append(msg, p->string, tg_json_strlen(p->string));
                tg_buf_puts(msg, "\")");
                return TG_ARGS_MISSING_CONTEXT;
            }
            cJSON *copy = tg_json_clone(arena, val);
            if (!copy || tg_json_set_key(arena, copy, p->string, tg_json_strlen(p->string))) return TG_ARGS_NOMEM;
            tg_json_append(args, copy);
        }
    }
    /* 3 the full schema, context parameters included (their values withheld from its errors) */
    return known_invalid ? tg_schema_error_lines(arena, tool->input, args, max_errors, ctxmap, msg)
                         : tg_check_schema(arena, tool->input, args, max_errors, ctxmap, msg);
}

/* Where the value starting at s[i] ends, in strict JSON (the one pass read
 * it: no error to find here); len when it does not. */
static size_t value_end(const char *s, size_t len, size_t i) {
    const unsigned char *u = (const unsigned char *)s;
    size_t depth = 0;
    do {
        if (i >= len) return len;
        unsigned char c = u[i];
        if (c == '"') {
            tg_json_lexstr ls;
            if (tg_json_lex_string(u, len, i + 1, &ls)) return len;
            i = ls.end + 1;
        } else if (c == '{' || c == '[') {
            depth++;
            i++;
        } else if (c == '}' || c == ']') {
            depth--;
            i++;
        } else if (depth == 0) {
            /* a number or a literal, alone */
            while (i < len && u[i] != ',' && u[i] != '}' && u[i] != ']' && u[i] != ' ' && u[i] != '\t' && u[i] != '\n' &&
                   u[i] != '\r')
                i++;
            return i;
        } else {
            i++;
        }
    } while (depth);
    return i;
}

static size_t skip_space(const char *s, size_t len, size_t i) {
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

cJSON *tg_args_members(tg_arena *arena, const char *text, size_t len, const tg_policy *policy,
                       const tg_json_limits *limits) {
    cJSON *obj = tg_json_new(arena, cJSON_Object);
    size_t i = skip_space(text, len, 0);
    if (!obj || i >= len || text[i] != '{') return NULL;
    i = skip_space(text, len, i + 1);
    if (i < len && text[i] == '}') return obj;
    while (i < len && text[i] == '"') {
        tg_json_lexstr ls;
        if (tg_json_lex_string((const unsigned char *)text, len, i + 1, &ls) || ls.escapes) return NULL;
        const char *key = text + i + 1;
        size_t klen = ls.end - (i + 1);
        i = skip_space(text, len, ls.end + 1);
        if (i >= len || text[i] != ':') return NULL;
        size_t vs = skip_space(text, len, i + 1), ve = value_end(text, len, vs);
        if (ve >= len) return NULL; /* (an object's member is followed by ',' or '}') */
        if (tg_policy_reads_member(policy, key, klen)) {
            tg_json_error err;
            cJSON *v = tg_json_parse(arena, text + vs, ve - vs, limits, &err);
            if (!v || tg_json_set_key(arena, v, key, klen)) return NULL;
            tg_json_append(obj, v);
        }
        i = skip_space(text, len, ve);
        if (i < len && text[i] == '}') return obj;
        if (i >= len || text[i] != ',') return NULL;
        i = skip_space(text, len, i + 1);
    }
    return NULL;
}
