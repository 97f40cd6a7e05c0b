/* sanitize.c - bounding and cleaning untrusted descriptor text. */
#include "sanitize.h"

#include <stdint.h>
#include <string.h>

#include "../base/utf8.h"

static int hidden(uint32_t c) {
    if (c < 0x20) return c != '\t' && c != '\n';
    if (c >= 0x7F && c <= 0x9F) return 1;
    if (c == 0x00AD || c == 0x061C || c == 0x180E || c == 0xFEFF) return 1;
    if (c >= 0x200B && c <= 0x200F) return 1;
    if (c >= 0x202A && c <= 0x202E) return 1;
    if (c >= 0x2060 && c <= 0x2069) return 1;
    if (c >= 0xE0000 && c <= 0xE007F) return 1;
    return 0;
}

size_t tg_sanitize_text(const char *s, size_t len, size_t max_bytes, char *out, int *changed) {
    const unsigned char *u = (const unsigned char *)s;
    size_t w = 0;
    *changed = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t k = tg_utf8_decode(u + i, len - i, &cp);
        if (!k) { /* not reachable for text from the strict reader; drop the byte */
            i++;
            *changed = 1;
            continue;
        }
        if (hidden(cp)) {
            i += k;
            *changed = 1;
            continue;
        }
        if (w + k > max_bytes) {
            memcpy(out + w, "\xE2\x80\xA6", 3); /* … */
            w += 3;
            *changed = 1;
            break;
        }
        memcpy(out + w, s + i, k);
        w += k;
        i += k;
    }
    return w;
}
