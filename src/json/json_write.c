/* json_write.c - canonical JSON writing. Recursion depth is bounded by the
 * depth of documents the reader accepted (tg_json_limits.max_depth). */
#include "json.h"

#include <string.h>

int tg_json_write_string(tg_buf *out, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    tg_buf_putc(out, '"');
    size_t run = 0; /* start of the pending unescaped run */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        tg_buf_append(out, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': tg_buf_append(out, "\\\"", 2); break;
        case '\\': tg_buf_append(out, "\\\\", 2); break;
        case '\b': tg_buf_append(out, "\\b", 2); break;
        case '\f': tg_buf_append(out, "\\f", 2); break;
        case '\n': tg_buf_append(out, "\\n", 2); break;
        case '\r': tg_buf_append(out, "\\r", 2); break;
        case '\t': tg_buf_append(out, "\\t", 2); break;
        default: {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            tg_buf_append(out, esc, 6);
        }
        }
    }
    tg_buf_append(out, s + run, len - run);
    return tg_buf_putc(out, '"');
}

int tg_json_write(tg_buf *out, const cJSON *item) {
    switch (item->type & 0xFF) {
    case cJSON_False: return tg_buf_append(out, "false", 5);
    case cJSON_True: return tg_buf_append(out, "true", 4);
    case cJSON_NULL: return tg_buf_append(out, "null", 4);
    case cJSON_Number: return tg_buf_append(out, item->valuestring, tg_json_strlen(item->valuestring));
    case cJSON_String: return tg_json_write_string(out, item->valuestring, tg_json_strlen(item->valuestring));
    case cJSON_Array:
    case cJSON_Object: {
        int obj = cJSON_IsObject(item);
        tg_buf_putc(out, obj ? '{' : '[');
        for (const cJSON *c = item->child; c; c = c->next) {
            if (c != item->child) tg_buf_putc(out, ',');
            if (obj) {
                tg_json_write_string(out, c->string, tg_json_strlen(c->string));
                tg_buf_putc(out, ':');
            }
            if (tg_json_write(out, c)) return -1;
        }
        return tg_buf_putc(out, obj ? '}' : ']');
    }
    default: return -1;
    }
}
