/* base64url.c - strict base64url (RFC 4648 section 5, no padding). */
#include "base64url.h"

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t tg_b64url_encoded_len(size_t n) { return n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0); }

size_t tg_b64url_encode(const void *in, size_t n, char *out) {
    const unsigned char *p = in;
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        out[o++] = ALPHABET[v >> 18];
        out[o++] = ALPHABET[(v >> 12) & 63];
        out[o++] = ALPHABET[(v >> 6) & 63];
        out[o++] = ALPHABET[v & 63];
    }
    if (n - i == 1) {
        unsigned v = (unsigned)p[i] << 16;
        out[o++] = ALPHABET[v >> 18];
        out[o++] = ALPHABET[(v >> 12) & 63];
    } else if (n - i == 2) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;
        out[o++] = ALPHABET[v >> 18];
        out[o++] = ALPHABET[(v >> 12) & 63];
        out[o++] = ALPHABET[(v >> 6) & 63];
    }
    return o;
}

static int value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

long tg_b64url_decode(const char *s, size_t len, unsigned char *out) {
    if (len % 4 == 1) return -1;
    size_t o = 0, i = 0;
    for (; i + 4 <= len; i += 4) {
        int a = value(s[i]), b = value(s[i + 1]), c = value(s[i + 2]), d = value(s[i + 3]);
        if ((a | b | c | d) < 0) return -1;
        unsigned v = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6 | (unsigned)d;
        out[o++] = (unsigned char)(v >> 16);
        out[o++] = (unsigned char)(v >> 8);
        out[o++] = (unsigned char)v;
    }
    size_t rest = len - i;
    if (rest == 2) {
        int a = value(s[i]), b = value(s[i + 1]);
        if ((a | b) < 0 || (b & 15)) return -1;
        out[o++] = (unsigned char)((unsigned)a << 2 | (unsigned)b >> 4);
    } else if (rest == 3) {
        int a = value(s[i]), b = value(s[i + 1]), c = value(s[i + 2]);
        if ((a | b | c) < 0 || (c & 3)) return -1;
        unsigned v = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6;
        out[o++] = (unsigned char)(v >> 16);
        out[o++] = (unsigned char)(v >> 8);
    }
    return (long)o;
}

void tg_hex_encode(const unsigned char *in, size_t n, char *out) {
    static const char x[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) out[2 * i] = x[in[i] >> 4], out[2 * i + 1] = x[in[i] & 15];
    out[2 * n] = '\0';
}
