/* json_lex.c - the rare cases of the string lexer (json_lex.h): escapes and
 * non-ASCII bytes, checked and decoded. */
#include "json_lex.h"
#include "../base/utf8.h"

static int hex4(const unsigned char *p, uint32_t *out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return -1;
    }
    *out = v;
    return 0;
}

static int bad(tg_json_lexstr *out, tg_json_status st, size_t at, const char *what) {
    out->status = st;
    out->err_at = at;
    out->what = what;
    return -1;
}

int tg_json__lex_string_slow(const unsigned char *s, size_t len, size_t start, size_t i, tg_json_lexstr *out) {
    int escapes = 0, ascii = 1;
    for (;;) {
        while (i < len && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\') i++;
        if (i >= len) return bad(out, TG_JSON_SYNTAX, start - 1, "unterminated string");
        unsigned char c = s[i];
        if (c == '"') break;
        if (c < 0x20) return bad(out, TG_JSON_SYNTAX, i, "raw control character in string (escape it)");
        if (c == '\\') {
            escapes = 1;
            if (i + 1 >= len) return bad(out, TG_JSON_SYNTAX, i, "unterminated escape");
            unsigned char e = s[i + 1];
            if (e == 'u') {
                uint32_t cp;
                if (i + 6 > len || hex4(s + i + 2, &cp))
                    return bad(out, TG_JSON_SYNTAX, i, "\\u must be followed by four hex digits");
                if (cp >= 0xDC00 && cp <= 0xDFFF) return bad(out, TG_JSON_UTF8, i, "lone low surrogate escape");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    uint32_t lo;
                    if (i + 12 > len || s[i + 6] != '\\' || s[i + 7] != 'u' || hex4(s + i + 8, &lo) || lo < 0xDC00 ||
                        lo > 0xDFFF)
                        return bad(out, TG_JSON_UTF8, i, "high surrogate escape without a low surrogate");
                    i += 12;
                } else {
                    i += 6;
                }
                if (cp >= 0x80) ascii = 0;
                continue;
            }
            switch (e) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': i += 2; continue;
            default: return bad(out, TG_JSON_SYNTAX, i, "invalid escape in string");
            }
        }
        uint32_t cp;
        size_t n = tg_utf8_decode(s + i, len - i, &cp);
        if (!n) return bad(out, TG_JSON_UTF8, i, "invalid UTF-8 in string");
        ascii = 0;
        i += n;
    }
    out->end = i;
    out->escapes = escapes;
    out->ascii = ascii;
    return 0;
}

size_t tg_json_unescape(const unsigned char *body, size_t n, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = body[i];
        if (c != '\\') {
            out[o++] = (char)c;
            i++;
            continue;
        }
        unsigned char e = body[i + 1];
        uint32_t cp = 0; /* (hex4 sets it: the lexer checked the escape) */
        switch (e) {
        case 'b': out[o++] = '\b'; i += 2; continue;
        case 'f': out[o++] = '\f'; i += 2; continue;
        case 'n': out[o++] = '\n'; i += 2; continue;
        case 'r': out[o++] = '\r'; i += 2; continue;
        case 't': out[o++] = '\t'; i += 2; continue;
        case 'u':
            hex4(body + i + 2, &cp);
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo = 0xDC00;
                hex4(body + i + 2, &lo);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            o += tg_utf8_encode(cp, (unsigned char *)out + o);
            continue;
        default: out[o++] = (char)e; i += 2; continue;
        }
    }
    return o;
}
