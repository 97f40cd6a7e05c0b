/* result.c - every outcome of a call, shaped as an MCP CallToolResult. */
#include "router.h"

#include <stdio.h>
#include <string.h>

int tg_result_gate_error(tg_buf *out, const char *code, const char *text, size_t text_len) {
    tg_buf_puts(out, "{\"content\":[{\"type\":\"text\",\"text\":");
    tg_json_write_string(out, text, text_len);
    tg_buf_puts(out, "}],\"isError\":true,\"_meta\":{\"dev.toolgate/error\":{\"code\":\"");
    tg_buf_puts(out, code);
    return tg_buf_puts(out, "\"}}}");
}

static int text_content(tg_buf *out, const char *s, size_t n) {
    tg_buf_puts(out, "{\"type\":\"text\",\"text\":");
    tg_json_write_string(out, s, n);
    return tg_buf_putc(out, '}');
}

/* 1 when s is base64 as a client's atob() reads it (WHATWG forgiving-base64,
 * which MCP SDKs check "data" and "blob" with): ASCII white space ignored,
 * one or two '=' of padding only where they complete a group of four, and
 * no group of one character left over. */
static int base64_ok(const char *s, size_t n) {
    size_t len = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r') continue;
        if (c == '=') {
            if (++pad > 2) return 0;
            len++;
            continue;
        }
        if (pad) return 0; /* (data after padding) */
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
            return 0;
        len++;
    }
    if (pad && len % 4) return 0;
    return (len - pad) % 4 != 1;
}

static int is_base64(const cJSON *v) {
    return cJSON_IsString(v) && base64_ok(v->valuestring, tg_json_strlen(v->valuestring));
}

/* 1 when v is absent or a string. */
static int optional_string(const cJSON *v) { return !v || cJSON_IsString(v); }

/* An embedded resource's contents: a string "uri", and a string "text" or
 * base64 "blob" (MCP TextResourceContents | BlobResourceContents). */
static const char *check_resource_contents(const cJSON *r) {
    if (!cJSON_IsObject(r)) return "resource content needs an object \"resource\"";
    if (!cJSON_IsString(tg_json_getz(r, "uri"))) return "an embedded resource needs a string \"uri\"";
    if (!optional_string(tg_json_getz(r, "mimeType"))) return "an embedded resource's \"mimeType\" must be a string";
    const cJSON *meta = tg_json_getz(r, "_meta");
    if (meta && !cJSON_IsObject(meta)) return "an embedded resource's \"_meta\" must be an object";
    const cJSON *text = tg_json_getz(r, "text"), *blob = tg_json_getz(r, "blob");
    if (cJSON_IsString(text) || is_base64(blob)) return NULL;
    return blob ? "an embedded resource's \"blob\" must be a base64 string"
                : "an embedded resource needs a string \"text\" or a base64 \"blob\"";
}

/* 1 when v is a date-time as MCP SDKs read "lastModified": the TypeScript
 * SDK checks it as an RFC 3339 date-time but refuses a lower-case "t"/"z"
 * and a leap second (":60"), which RFC 3339 allows; a client refuses the
 * whole result for one it cannot read, so those are refused here too. */
static int last_modified_ok(const cJSON *v) {
    if (!cJSON_IsString(v)) return 0;
    const char *s = v->valuestring;
    size_t n = tg_json_strlen(s);
    if (tg_schema_check_format("date-time", s, n) != 1) return 0;
    /* (a checked date-time is at least "YYYY-MM-DDTHH:MM:SSZ": s[17..18] are the seconds) */
    return s[10] == 'T' && s[n - 1] != 'z' && s[17] != '6';
}

/* A content block's "annotations" (MCP Annotations, every member
 * optional): "audience" an array of roles ("user", "assistant"),
 * "priority" a number from 0 to 1, "lastModified" a date-time. Other
 * members are kept as they are, like unknown members elsewhere in a
 * block. */
static const char *check_annotations(const cJSON *an) {
    if (!cJSON_IsObject(an)) return "\"annotations\" must be an object";
    const cJSON *aud = tg_json_getz(an, "audience");
    if (aud) {
        int ok = cJSON_IsArray(aud);
        for (const cJSON *r = ok ? aud->child : NULL; r && ok; r = r->next)
            ok = tg_json_string_is(r, "user") || tg_json_string_is(r, "assistant");
        if (!ok) return "\"annotations.audience\" must be an array of \"user\" and \"assistant\"";
    }
    const cJSON *pri = tg_json_getz(an, "priority");
    if (pri && !(cJSON_IsNumber(pri) && pri->valuedouble >= 0 && pri->valuedouble <= 1))
        return "\"annotations.priority\" must be a number from 0 to 1";
    const cJSON *lm = tg_json_getz(an, "lastModified");
    if (lm && !last_modified_ok(lm))
        return "\"annotations.lastModified\" must be an ISO 8601 date-time such as 2025-01-12T15:00:58Z";
    return NULL;
}

/* MCP content blocks: text, image, audio, resource_link, resource, each
 * with the members MCP requires of it (a client's SDK refuses the whole
 * result for one malformed block). */
static const char *check_block_members(const cJSON *b) {
    if (!cJSON_IsObject(b)) return "each content block must be an object";
    const cJSON *type = tg_json_getz(b, "type");
    if (!cJSON_IsString(type)) return "each content block needs a string \"type\"";
    const char *t = type->valuestring;
    const cJSON *meta = tg_json_getz(b, "_meta");
    if (meta && !cJSON_IsObject(meta)) return "a content block's \"_meta\" must be an object";
    if (strcmp(t, "text") == 0) return cJSON_IsString(tg_json_getz(b, "text")) ? NULL : "text content needs a string \"text\"";
    if (strcmp(t, "image") == 0 || strcmp(t, "audio") == 0) {
        if (!cJSON_IsString(tg_json_getz(b, "data")) || !cJSON_IsString(tg_json_getz(b, "mimeType")))
            return "image/audio content needs string \"data\" and \"mimeType\"";
        return is_base64(tg_json_getz(b, "data")) ? NULL : "image/audio content needs base64 \"data\"";
    }
    if (strcmp(t, "resource_link") == 0)
        return cJSON_IsString(tg_json_getz(b, "uri")) && cJSON_IsString(tg_json_getz(b, "name"))
                   ? NULL
                   : "resource_link content needs string \"uri\" and \"name\"";
    if (strcmp(t, "resource") == 0) return check_resource_contents(tg_json_getz(b, "resource"));
    return "unknown content block type";
}

/* ... and the "annotations" any of them may carry (on the block itself: an
 * embedded resource's contents have none in MCP). */
static const char *check_content_block(const cJSON *b) {
    const char *bad = check_block_members(b);
    const cJSON *an = bad ? NULL : tg_json_getz(b, "annotations");
    return an ? check_annotations(an) : bad;
}

const cJSON *tg_result_content(const cJSON *v) {
    const cJSON *c = cJSON_IsObject(v) ? tg_json_getz(v, "content") : NULL;
    return cJSON_IsArray(c) ? c : NULL;
}

int tg_result_normalize(tg_buf *out, const cJSON *v, int any_structured, char *why, size_t why_len) {
    if (cJSON_IsString(v)) {
        tg_buf_puts(out, "{\"content\":[");
        text_content(out, v->valuestring, tg_json_strlen(v->valuestring));
        return tg_buf_puts(out, "]}");
    }
    const cJSON *content = tg_result_content(v);
    if (content) {
        const char *bad = NULL;
        size_t at = 0; /* (the bad block's index, which the message names) */
        for (const cJSON *b = content->child; b && !bad; b = b->next, at++)
            bad = check_content_block(b);
        if (bad) {
            snprintf(why, why_len, "content[%zu]: %s", at - 1, bad);
            return -1;
        }
        const cJSON *is_error = tg_json_getz(v, "isError");
        if (!bad && is_error && !cJSON_IsBool(is_error)) bad = "\"isError\" must be a boolean";
        const cJSON *sc = tg_json_getz(v, "structuredContent");
        if (!bad && sc && !any_structured && !cJSON_IsObject(sc))
            bad = "\"structuredContent\" must be an object (the tool declares no outputSchema)";
        const cJSON *meta = tg_json_getz(v, "_meta");
        if (!bad && meta && !cJSON_IsObject(meta)) bad = "\"_meta\" must be an object";
        if (bad) {
            snprintf(why, why_len, "%s", bad);
            return -1;
        }
        /* the CallToolResult members only: another top-level member (an
         * upstream's "status":"pending_approval" would pass for the gate's
         * own answer) is dropped, and so is the gate's own _meta key, which
         * only the gate sets */
        tg_buf_puts(out, "{\"content\":");
        tg_json_write(out, content);
        if (sc) {
            tg_buf_puts(out, ",\"structuredContent\":");
            tg_json_write(out, sc);
        }
        if (is_error) tg_buf_puts(out, cJSON_IsTrue(is_error) ? ",\"isError\":true" : ",\"isError\":false");
        if (meta) {
            static const char GATE_KEY[] = "dev.toolgate/error";
            int first = 1;
            tg_buf_puts(out, ",\"_meta\":{");
            for (const cJSON *m = meta->child; m; m = m->next) {
                size_t kl = tg_json_strlen(m->string);
                if (kl == sizeof GATE_KEY - 1 && memcmp(m->string, GATE_KEY, kl) == 0) continue;
                if (!first) tg_buf_putc(out, ',');
                first = 0;
                tg_json_write_string(out, m->string, kl);
                tg_buf_putc(out, ':');
                tg_json_write(out, m);
            }
            tg_buf_putc(out, '}');
        }
        return tg_buf_putc(out, '}');
    }
    /* any other value: its JSON text as content; objects are structured too,
     * and so is any value but a string when the tool declares an outputSchema */
    tg_buf text;
    tg_buf_init(&text, out->alloc, out->max);
    tg_json_write(&text, v);
    if (text.failed) {
        tg_buf_free(&text);
        snprintf(why, why_len, "result too large");
        return -1;
    }
    tg_buf_puts(out, "{\"content\":[");
    text_content(out, text.data, text.len);
    tg_buf_putc(out, ']');
    if (cJSON_IsObject(v) || (any_structured && !cJSON_IsString(v))) {
        tg_buf_puts(out, ",\"structuredContent\":");
        tg_buf_append(out, text.data, text.len);
    }
    tg_buf_free(&text);
    return tg_buf_putc(out, '}');
}
