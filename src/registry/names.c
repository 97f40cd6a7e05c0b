/* names.c - mapping tool names to provider-safe names, and collision keys. */
#include "names.h"

#include <stdint.h>
#include <string.h>

#include "../base/utf8.h"

/* Look-alikes of ASCII letters and digits seen in homograph attacks. */
static const struct {
    uint32_t cp;
    char ascii;
} CONFUSABLES[] = {
    /* Cyrillic */
    {0x0410, 'A'}, {0x0412, 'B'}, {0x0415, 'E'}, {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'}, {0x041E, 'O'},
    {0x0420, 'P'}, {0x0421, 'C'}, {0x0422, 'T'}, {0x0425, 'X'}, {0x0430, 'a'}, {0x0435, 'e'}, {0x043E, 'o'},
    {0x0440, 'p'}, {0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'},
    {0x04BB, 'h'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'},
    /* Greek */
    {0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'}, {0x039A, 'K'},
    {0x039C, 'M'}, {0x039D, 'N'}, {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'}, {0x03A5, 'Y'}, {0x03A7, 'X'},
    {0x03B1, 'a'}, {0x03B9, 'i'}, {0x03BA, 'k'}, {0x03BD, 'v'}, {0x03BF, 'o'}, {0x03C1, 'p'}, {0x03C5, 'u'},
    /* Latin extras */
    {0x0131, 'i'}, {0x0269, 'i'}, {0x026A, 'i'}, {0x1D00, 'a'}, {0x0251, 'a'}, {0x0261, 'g'},
};

static char fold_cp(uint32_t cp) {
    if (cp < 0x80) {
        char c = (char)cp;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') return c;
        return '_';
    }
    if (cp >= 0xFF01 && cp <= 0xFF5E) return fold_cp(cp - 0xFF01 + 0x21); /* fullwidth ASCII */
    for (size_t i = 0; i < sizeof CONFUSABLES / sizeof CONFUSABLES[0]; i++)
        if (CONFUSABLES[i].cp == cp) return CONFUSABLES[i].ascii;
    return '_';
}

/* Appends the mapping of s[0..n) to out at *o (bounded by cap). */
static void map_into(const char *s, size_t n, char *out, size_t *o, size_t cap) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = tg_utf8_decode(u + i, n - i, &cp);
        if (!k) {
            cp = 0xFFFD;
            k = 1;
        }
        i += k;
        if (*o < cap) out[*o] = fold_cp(cp);
        (*o)++;
    }
}

static uint32_t fnv1a32(uint32_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

size_t tg_name_map(const char *tmpl, const char *source, size_t source_len, const char *tool, size_t tool_len,
                   char *out) {
    enum { CAP = 512 };
    char full[CAP];
    size_t o = 0;
    uint32_t h = 2166136261u;
    int lead_fix = 0;
    for (const char *t = tmpl; *t;) {
        if (strncmp(t, "{source}", 8) == 0) {
            map_into(source, source_len, full, &o, CAP);
            h = fnv1a32(h, "\x01", 1);
            h = fnv1a32(h, source, source_len);
            t += 8;
        } else if (strncmp(t, "{tool}", 6) == 0) {
            map_into(tool, tool_len, full, &o, CAP);
            h = fnv1a32(h, "\x02", 1);
            h = fnv1a32(h, tool, tool_len);
            t += 6;
        } else {
            size_t k = 1;
            while (t[k] && t[k] != '{') k++;
            map_into(t, k, full, &o, CAP);
            h = fnv1a32(h, t, k);
            t += k;
        }
    }
    size_t len = o < CAP ? o : CAP;
    if (len == 0 || !((full[0] >= 'a' && full[0] <= 'z') || (full[0] >= 'A' && full[0] <= 'Z') || full[0] == '_'))
        lead_fix = 1;
    size_t total = len + (size_t)lead_fix;
    size_t w = 0;
    if (lead_fix) out[w++] = '_';
    if (total <= TG_NAME_MAX && o <= CAP) {
        memcpy(out + w, full, len);
        w += len;
    } else {
        static const char hex[] = "0123456789abcdef";
        size_t keep = 55 - w;
        memcpy(out + w, full, keep);
        w += keep;
        out[w++] = '_';
        for (int i = 7; i >= 0; i--) out[w++] = hex[(h >> (i * 4)) & 15];
    }
    out[w] = '\0';
    return w;
}

int tg_name_is_safe(const char *s, size_t n) {
    if (n == 0 || n > TG_NAME_MAX) return 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

size_t tg_name_skeleton(const char *s, size_t n, char *out) { return tg_name_fold(s, n, out, TG_NAME_MAX, 1); }

size_t tg_name_fold(const char *s, size_t n, char *out, size_t cap, int pairs) {
    size_t w = 0;
    for (size_t i = 0; i < n && w < cap; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        char next = i + 1 < n ? s[i + 1] : 0;
        if (next >= 'A' && next <= 'Z') next = (char)(next - 'A' + 'a');
        if (pairs && c == 'r' && next == 'n') { out[w++] = 'm'; i++; continue; }
        if (pairs && c == 'v' && next == 'v') { out[w++] = 'w'; i++; continue; }
        switch (c) {
        case '-': c = '_'; break;
        case '0': c = 'o'; break;
        case '1': case 'i': case '|': c = 'l'; break;
        default: break;
        }
        out[w++] = c;
    }
    out[w] = '\0';
    return w;
}
