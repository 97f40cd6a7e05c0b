#include "utf8.h"

#include <string.h>

size_t tg_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp) {
    if (len == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2) return 0; /* continuation byte or overlong 2-byte lead */
    if (c < 0xE0) {
        if (len < 2 || (s[1] & 0xC0) != 0x80) return 0;
        *cp = ((c & 0x1Fu) << 6) | (s[1] & 0x3Fu);
        return 2;
    }
    if (c < 0xF0) {
        if (len < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0; /* surrogate */
        *cp = ((c & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
        return 3;
    }
    if (c < 0xF5) {
        if (len < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0; /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0; /* above U+10FFFF */
        *cp = ((c & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) | (s[3] & 0x3Fu);
        return 4;
    }
    return 0;
}

size_t tg_utf8_encode(uint32_t cp, unsigned char *out) {
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t tg_utf8_count(const unsigned char *s, size_t len) {
    size_t i = 0, n = 0;
    for (; i + 8 <= len; i += 8) { /* eight bytes a step */
        uint64_t v, c;
        memcpy(&v, s + i, 8);
        c = (v & ~(v << 1)) & 0x8080808080808080ull; /* continuation bytes: 10xxxxxx */
        c = ((c >> 7) * 0x0101010101010101ull) >> 56;  /* how many (<= 8) */
        n += 8 - (size_t)c;
    }
    for (; i < len; i++) n += (s[i] & 0xC0) != 0x80;
    return n;
}

size_t tg_utf16_length(const unsigned char *s, size_t len) {
    const uint64_t HI = 0x8080808080808080ull, ONES = 0x0101010101010101ull;
    size_t i = 0, n = 0;
    for (; i + 8 <= len; i += 8) { /* eight bytes a step; ASCII ones count as they are */
        uint64_t v, cont, four;
        memcpy(&v, s + i, 8);
        if (!(v & HI)) {
            n += 8;
            continue;
        }
        cont = (v & ~(v << 1)) & HI;                    /* 10xxxxxx: no unit of its own */
        four = (v & (v << 1) & (v << 2) & (v << 3)) & HI; /* 1111xxxx: a surrogate pair, two */
        n += 8 - (size_t)(((cont >> 7) * ONES) >> 56) + (size_t)(((four >> 7) * ONES) >> 56);
    }
    for (; i < len; i++) n += ((s[i] & 0xC0) != 0x80) + (s[i] >= 0xF0);
    return n;
}

int tg_utf8_valid(const unsigned char *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint64_t w;
        if (len - i >= 8 && (memcpy(&w, s + i, 8), (w & 0x8080808080808080ull) == 0)) {
            i += 8; /* eight ASCII bytes */
            continue;
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = tg_utf8_decode(s + i, len - i, &cp);
        if (!n) return 0;
        i += n;
    }
    return 1;
}
