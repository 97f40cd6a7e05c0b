/* schema_format.c - the "format" checks asserted on request.
 *
 * Each check reads s[0..len) (UTF-8, may contain NUL) and allocates
 * nothing. "regex" is checked by the evaluator (it needs the regex
 * compiler); unknown formats are never asserted. */
#include <string.h>

#include "schema_internal.h"
#include "../base/utf8.h"

enum {
    F_DATE_TIME, F_DATE, F_TIME, F_DURATION, F_EMAIL, F_IDN_EMAIL, F_HOSTNAME, F_IDN_HOSTNAME, F_IPV4, F_IPV6,
    F_URI, F_URI_REFERENCE, F_IRI, F_IRI_REFERENCE, F_UUID, F_JSON_POINTER, F_RELATIVE_JSON_POINTER, F_REGEX,
    F_URI_TEMPLATE, F_COUNT
};

static const char *const names[F_COUNT] = {
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
    "uri", "uri-reference", "iri", "iri-reference", "uuid", "json-pointer", "relative-json-pointer", "regex",
    "uri-template"};

int tg_sformat_id(const char *name, size_t len) {
    int i;
    for (i = 0; i < F_COUNT; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], name, len)) return i;
    return -1;
}

int tg_sformat_is_regex(int id) { return id == F_REGEX; }

static int dig(char c) { return c >= '0' && c <= '9'; }
static int hex(char c) { return dig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static int num(const char *s, size_t n) {
    int v = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        if (!dig(s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ---- dates and times (RFC 3339) ---- */

static int check_date(const char *s, size_t n) {
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, m, d, md;
    if (n != 10 || s[4] != '-' || s[7] != '-') return 0;
    y = num(s, 4); m = num(s + 5, 2); d = num(s + 8, 2);
    if (y < 0 || m < 1 || m > 12 || d < 1) return 0;
    md = mdays[m - 1];
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) md = 29;
    return d <= md;
}

static int check_time(const char *s, size_t n) {
    int h, mi, sec, oh = 0, om = 0, sign = 0;
    size_t i = 8;
    if (n < 9 || s[2] != ':' || s[5] != ':') return 0;
    h = num(s, 2); mi = num(s + 3, 2); sec = num(s + 6, 2);
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60) return 0;
    if (s[i] == '.') {
        size_t k = ++i;
        while (i < n && dig(s[i])) i++;
        if (i == k) return 0;
    }
    if (i >= n) return 0;
    if (s[i] == 'Z' || s[i] == 'z') {
        if (i + 1 != n) return 0;
    } else if (s[i] == '+' || s[i] == '-') {
        sign = s[i] == '+' ? 1 : -1;
        if (n - i != 6 || s[i + 3] != ':') return 0;
        oh = num(s + i + 1, 2); om = num(s + i + 4, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59) return 0;
    } else return 0;
    if (sec == 60) {
        int utc = h * 60 + mi - sign * (oh * 60 + om);
        utc = ((utc % 1440) + 1440) % 1440;
        if (utc != 23 * 60 + 59) return 0;
    }
    return 1;
}

static int check_date_time(const char *s, size_t n) {
    if (n < 20 || (s[10] != 'T' && s[10] != 't')) return 0;
    return check_date(s, 10) && check_time(s + 11, n - 11);
}

static int check_duration(const char *s, size_t n) {
    static const char date_units[] = "YMD", time_units[] = "HMS";
    size_t i = 1;
    int last = -1, any = 0;
    if (n < 2 || s[0] != 'P') return 0;
    /* week form */
    if (s[n - 1] == 'W') {
        for (i = 1; i < n - 1; i++) if (!dig(s[i])) return 0;
        return n > 2;
    }
    while (i < n && s[i] != 'T') {
        size_t k = i;
        const char *u;
        while (i < n && dig(s[i])) i++;
        if (i == k || i >= n) return 0;
        u = strchr(date_units, s[i]);
        if (!u || !s[i]) return 0;
        if (last >= 0 && (int)(u - date_units) != last + 1) return 0;
        last = (int)(u - date_units);
        any = 1;
        i++;
    }
    if (i < n && s[i] == 'T') {
        int tl = -1, tany = 0;
        i++;
        while (i < n) {
            size_t k = i;
            const char *u;
            while (i < n && dig(s[i])) i++;
            if (i == k || i >= n) return 0;
            u = strchr(time_units, s[i]);
            if (!u || !s[i]) return 0;
            if (tl >= 0 && (int)(u - time_units) != tl + 1) return 0;
            tl = (int)(u - time_units);
            tany = 1;
            i++;
        }
        if (!tany) return 0;
        any = 1;
    }
    return any && i == n;
}

/* ---- IP addresses ---- */

static int check_ipv4(const char *s, size_t n) {
    size_t i = 0;
    int parts = 0;
    while (parts < 4) {
        size_t k = i;
        int v = 0;
        while (i < n && dig(s[i]) && i - k < 4) v = v * 10 + (s[i++] - '0');
        if (i == k || i - k > 3 || v > 255 || (i - k > 1 && s[k] == '0')) return 0;
        parts++;
        if (parts < 4) {
            if (i >= n || s[i] != '.') return 0;
            i++;
        }
    }
    return i == n;
}

static int check_ipv6(const char *s, size_t n) {
    size_t i = 0;
    int groups = 0, dbl = 0;
    if (n < 2) return 0;
    if (s[0] == ':') {
        if (s[1] != ':') return 0;
        dbl = 1;
        i = 2;
        if (i == n) return 1;
    }
    while (i < n) {
        size_t k = i;
        while (i < n && hex(s[i]) && i - k < 5) i++;
        if (i < n && s[i] == '.') {
            /* trailing IPv4 */
            if (!check_ipv4(s + k, n - k)) return 0;
            groups += 2;
            i = n;
            break;
        }
        if (i == k || i - k > 4) return 0;
        groups++;
        if (i == n) break;
        if (s[i] != ':') return 0;
        i++;
        if (i < n && s[i] == ':') {
            if (dbl) return 0;
            dbl = 1;
            i++;
            if (i == n) break;
        } else if (i == n) return 0;
    }
    return dbl ? groups <= 7 : groups == 8;
}

/* ---- hostnames ---- */

static size_t cp_at(const char *s, size_t n, size_t i, uint32_t *cp) {
    return tg_utf8_decode((const unsigned char *)s + i, n - i, cp);
}

/* RFC 3492 decoding into out (max 64 code points); -1 on error. */
static int puny_decode(const char *in, size_t n, uint32_t *out, size_t max) {
    size_t b = 0, j, o = 0, i0;
    uint32_t nn = 128, bias = 72, i = 0;
    for (j = 0; j < n; j++) if (in[j] == '-') b = j;
    if (b) {
        for (j = 0; j < b; j++) {
            if ((unsigned char)in[j] >= 0x80 || o >= max) return -1;
            out[o++] = (unsigned char)in[j];
        }
        i0 = b + 1;
    } else i0 = 0;
    j = i0;
    while (j < n) {
        uint32_t oldi = i, w = 1, k;
        for (k = 36;; k += 36) {
            uint32_t digit, t;
            char c;
            if (j >= n) return -1;
            c = in[j++];
            if (c >= '0' && c <= '9') digit = (uint32_t)(c - '0') + 26;
            else if (c >= 'a' && c <= 'z') digit = (uint32_t)(c - 'a');
            else if (c >= 'A' && c <= 'Z') digit = (uint32_t)(c - 'A');
            else return -1;
            if (digit > (0x7fffffffu - i) / w) return -1;
            i += digit * w;
            t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
            if (digit < t) break;
            if (w > 0x7fffffffu / (36 - t)) return -1;
            w *= 36 - t;
        }
        {
            uint32_t delta = oldi == 0 ? (i - oldi) / 700 : (i - oldi) / 2, kk = 0, len1 = (uint32_t)o + 1;
            delta += delta / len1;
            while (delta > 455) { delta /= 35; kk += 36; }
            bias = kk + (36 * delta) / (delta + 38);
            if (i / len1 > 0x10FFFF - nn) return -1;
            nn += i / len1;
            i %= len1;
        }
        if (o >= max || nn > 0x10FFFF || (nn >= 0xD800 && nn <= 0xDFFF)) return -1;
        memmove(out + i + 1, out + i, (o - i) * sizeof *out);
        out[i++] = nn;
        o++;
    }
    return (int)o;
}

/* Length of the Punycode encoding of cps (RFC 3492), for the 63-octet rule. */
static size_t puny_len(const uint32_t *cps, size_t n) {
    size_t basic = 0, h, j, out;
    uint32_t nn = 128, delta = 0, bias = 72, m;
    for (j = 0; j < n; j++) if (cps[j] < 128) basic++;
    out = basic + (basic ? 1 : 0);
    h = basic;
    while (h < n) {
        m = 0x7fffffff;
        for (j = 0; j < n; j++) if (cps[j] >= nn && cps[j] < m) m = cps[j];
        delta += (m - nn) * (uint32_t)(h + 1);
        nn = m;
        for (j = 0; j < n; j++) {
            if (cps[j] < nn) delta++;
            if (cps[j] == nn) {
                uint32_t q = delta, k;
                for (k = 36;; k += 36) {
                    uint32_t t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
                    if (q < t) break;
                    out++;
                    q = (q - t) / (36 - t);
                }
                out++;
                {
                    uint32_t d = delta, kk = 0;
                    d = (h == basic) ? d / 700 : d / 2;
                    d += d / (uint32_t)(h + 1);
                    while (d > 455) { d /= 35; kk += 36; }
                    bias = kk + (36 * d) / (d + 38);
                }
                delta = 0;
                h++;
            }
        }
        delta++;
        nn++;
    }
    return out + 4; /* "xn--" */
}

static int is_mark(uint32_t c) {
    return (c >= 0x300 && c <= 0x36F) || (c >= 0x483 && c <= 0x489) || (c >= 0x591 && c <= 0x5BD) ||
           (c >= 0x900 && c <= 0x903) || (c >= 0x93A && c <= 0x94F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
           (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F);
}
static int is_virama(uint32_t c) {
    return c == 0x94D || c == 0x9CD || c == 0xA4D || c == 0xACD || c == 0xB4D || c == 0xBCD || c == 0xC4D ||
           c == 0xCCD || c == 0xD4D || c == 0xDCA || c == 0xE3A || c == 0x1039 || c == 0x17D2;
}
static int is_rtl(uint32_t c) { return (c >= 0x590 && c <= 0x8FF) || (c >= 0xFB1D && c <= 0xFDFF) || (c >= 0xFE70 && c <= 0xFEFF); }

/* Checks one U-label given as code points (IDNA 2008 essentials). */
static int check_ulabel(const uint32_t *c, size_t n) {
    size_t i;
    int arabic = 0, ext = 0, kata_ok = 0, has_kata_dot = 0, rtl = 0, ltr_letter = 0;
    if (!n || n > 63) return 0;
    if (c[0] == '-' || c[n - 1] == '-') return 0;
    if (n >= 4 && c[2] == '-' && c[3] == '-') return 0;
    if (is_mark(c[0])) return 0;
    for (i = 0; i < n; i++) {
        uint32_t x = c[i];
        if (x < 128) {
            if (!(alpha((char)x) || dig((char)x) || x == '-')) return 0;
            if (alpha((char)x)) ltr_letter = 1;
            continue;
        }
        if (x == 0x302E || x == 0x302F || (x >= 0x3031 && x <= 0x3035) || x == 0x303B || x == 0x640 || x == 0x7FA) return 0;
        if (x >= 0xFF01 && x <= 0xFF5E) return 0;
        if (x == 0x212A || x == 0x2126) return 0;
        if (x < 0xC0 && x != 0xB7) return 0;
        if (x == 0xD7 || x == 0xF7) return 0;
        if (x >= 0xC0 && x <= 0x24F) ltr_letter = 1;
        if (x == 0xB7 && !(i > 0 && c[i - 1] == 'l' && i + 1 < n && c[i + 1] == 'l')) return 0;
        if (x == 0x375 && !(i + 1 < n && c[i + 1] >= 0x370 && c[i + 1] <= 0x3FF)) return 0;
        if ((x == 0x5F3 || x == 0x5F4) && !(i > 0 && c[i - 1] >= 0x590 && c[i - 1] <= 0x5FF)) return 0;
        if (x == 0x200D && !(i > 0 && is_virama(c[i - 1]))) return 0;
        if (x == 0x200C && !(i > 0 && is_virama(c[i - 1]))) {
            int before = i > 0 && c[i - 1] >= 0x620 && c[i - 1] <= 0x64A;
            int after = i + 1 < n && c[i + 1] >= 0x620 && c[i + 1] <= 0x64A;
            if (!(before && after)) return 0;
        }
        if (x == 0x30FB) has_kata_dot = 1;
        else if ((x >= 0x3040 && x <= 0x30FF) || (x >= 0x3400 && x <= 0x4DBF) || (x >= 0x4E00 && x <= 0x9FFF)) kata_ok = 1;
        if (x >= 0x660 && x <= 0x669) arabic = 1;
        if (x >= 0x6F0 && x <= 0x6F9) ext = 1;
        if (is_rtl(x)) rtl = 1;
    }
    if (has_kata_dot && !kata_ok) return 0;
    if (arabic && ext) return 0;
    if (rtl) for (i = 0; i < n; i++) if (c[i] < 128 && dig((char)c[i]) && arabic) return 0;
    if (rtl && (ltr_letter || dig((char)(c[0] < 128 ? c[0] : 'x')))) return 0;
    return 1;
}

static int check_label(const char *s, size_t n, int idn) {
    uint32_t cps[64];
    size_t i, k = 0;
    int ascii = 1;
    if (!n) return 0;
    for (i = 0; i < n; i++) if ((unsigned char)s[i] >= 0x80) ascii = 0;
    if (ascii) {
        if (n > 63) return 0;
        for (i = 0; i < n; i++) if (!(alpha(s[i]) || dig(s[i]) || s[i] == '-')) return 0;
        if (s[0] == '-' || s[n - 1] == '-') return 0;
        if (n >= 4 && (s[0] == 'x' || s[0] == 'X') && (s[1] == 'n' || s[1] == 'N') && s[2] == '-' && s[3] == '-') {
            int m = puny_decode(s + 4, n - 4, cps, 63);
            int nonascii = 0;
            if (m <= 0) return 0;
            for (i = 0; i < (size_t)m; i++) if (cps[i] >= 128) nonascii = 1;
            if (!nonascii) return 0;
            if (puny_len(cps, (size_t)m) != n) return 0;
            return check_ulabel(cps, (size_t)m);
        }
        if (n >= 4 && s[2] == '-' && s[3] == '-') return 0;
        return 1;
    }
    if (!idn) return 0;
    for (i = 0; i < n;) {
        uint32_t cp;
        size_t l = cp_at(s, n, i, &cp);
        if (!l || k >= 63) return 0;
        cps[k++] = cp;
        i += l;
    }
    if (puny_len(cps, k) > 63) return 0;
    return check_ulabel(cps, k);
}

static int check_hostname(const char *s, size_t n, int idn) {
    size_t i = 0, start = 0, total = 0, cps = 0;
    int bidi = 0;
    if (!n) return 0;
    if (idn) {
        for (i = 0; i < n;) {
            uint32_t cp;
            size_t l = cp_at(s, n, i, &cp);
            if (!l) return 0;
            if (is_rtl(cp)) bidi = 1;
            cps++;
            i += l;
        }
        if (cps > 253) return 0;
        i = 0;
    }
    while (i <= n) {
        size_t sep = 0;
        if (i < n) {
            if (s[i] == '.') sep = 1;
            else if (idn && n - i >= 3 && (!memcmp(s + i, "\xE3\x80\x82", 3) || !memcmp(s + i, "\xEF\xBC\x8E", 3) ||
                                           !memcmp(s + i, "\xEF\xBD\xA1", 3))) sep = 3;
        }
        if (i == n || sep) {
            if (!check_label(s + start, i - start, idn)) return 0;
            if (bidi && i > start && dig(s[start])) return 0;
            total += i - start + 1;
            if (i == n) break;
            i += sep;
            start = i;
            continue;
        }
        i++;
    }
    return idn ? 1 : total - 1 <= 253;
}

/* ---- email ---- */

static int atext(unsigned char c, int idn) {
    return alpha((char)c) || dig((char)c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c)) || (idn && c >= 0x80);
}

static int check_email(const char *s, size_t n, int idn) {
    size_t at, i;
    const char *d;
    size_t dl;
    for (at = n; at > 0 && s[at - 1] != '@'; at--) {}
    if (!at) return 0;
    at--;
    if (at == 0 || at + 1 >= n || (!idn && at > 64)) return 0; /* RFC 5321 4.5.3.1.1: a local part of 64 octets at most */
    if (s[0] == '"') {
        if (at < 2 || s[at - 1] != '"') return 0;
        for (i = 1; i < at - 1; i++) {
            if (s[i] == '\\') { i++; continue; }
            if (s[i] == '"' || (unsigned char)s[i] < 0x20) return 0;
        }
    } else {
        if (s[0] == '.' || s[at - 1] == '.') return 0;
        for (i = 0; i < at; i++) {
            if (s[i] == '.') { if (s[i + 1] == '.') return 0; continue; }
            if (!atext((unsigned char)s[i], idn)) return 0;
        }
    }
    d = s + at + 1;
    dl = n - at - 1;
    if (d[0] == '[') {
        if (d[dl - 1] != ']') return 0;
        if (dl > 6 && !memcmp(d + 1, "IPv6:", 5)) return check_ipv6(d + 6, dl - 7);
        return check_ipv4(d + 1, dl - 2);
    }
    return check_hostname(d, dl, idn);
}

/* ---- URIs (RFC 3986 / 3987) ---- */

static int unreserved(unsigned char c, int iri) {
    return alpha((char)c) || dig((char)c) || c == '-' || c == '.' || c == '_' || c == '~' || (iri && c >= 0x80);
}
static int subdelim(unsigned char c) { return c && strchr("!$&'()*+,;=", c) != NULL; }

/* Chars allowed in a component; extra: additional allowed ASCII chars. */
static int comp_ok(const char *s, size_t n, const char *extra, int iri) {
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            if (i + 2 >= n || !hex(s[i + 1]) || !hex(s[i + 2])) return 0;
            i += 2;
            continue;
        }
        if (unreserved(c, iri) || subdelim(c) || (c && strchr(extra, c))) continue;
        return 0;
    }
    return 1;
}

static int check_authority(const char *s, size_t n, int iri) {
    size_t at = n, i, hs, he;
    for (i = 0; i < n; i++) if (s[i] == '@') { if (at != n) return 0; at = i; }
    if (at != n) {
        if (!comp_ok(s, at, ":", iri)) return 0;
        hs = at + 1;
    } else hs = 0;
    he = n;
    if (hs < n && s[hs] == '[') {
        size_t close = hs;
        while (close < n && s[close] != ']') close++;
        if (close == n) return 0;
        if (!check_ipv6(s + hs + 1, close - hs - 1)) {
            /* IPvFuture */
            if (!(close - hs > 3 && (s[hs + 1] == 'v' || s[hs + 1] == 'V'))) return 0;
        }
        he = close + 1;
        if (he < n && s[he] != ':') return 0;
    } else {
        for (i = hs; i < n && s[i] != ':'; i++) {}
        he = i;
        if (!comp_ok(s + hs, he - hs, "", iri)) return 0;
    }
    if (he < n) {
        for (i = he + 1; i < n; i++) if (!dig(s[i])) return 0;
    }
    return 1;
}

/* Whole (absolute or relative) reference. */
static int check_uri_any(const char *s, size_t n, int iri, int need_scheme) {
    size_t i = 0, pe, qe;
    int has_scheme = 0;
    for (i = 0; i < n; i++) if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7F) return 0;
    i = 0;
    if (n && alpha(s[0])) {
        size_t j = 1;
        while (j < n && (alpha(s[j]) || dig(s[j]) || s[j] == '+' || s[j] == '-' || s[j] == '.')) j++;
        if (j < n && s[j] == ':') { has_scheme = 1; i = j + 1; }
    }
    if (need_scheme && !has_scheme) return 0;
    if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
        size_t a = i + 2, ae = a;
        while (ae < n && s[ae] != '/' && s[ae] != '?' && s[ae] != '#') ae++;
        if (!check_authority(s + a, ae - a, iri)) return 0;
        i = ae;
    } else if (!has_scheme) {
        /* path-noscheme: no ':' in the first segment */
        size_t j = i;
        while (j < n && s[j] != '/' && s[j] != '?' && s[j] != '#') {
            if (s[j] == ':') return 0;
            j++;
        }
    }
    for (pe = i; pe < n && s[pe] != '?' && s[pe] != '#'; pe++) {}
    if (!comp_ok(s + i, pe - i, ":@/", iri)) return 0;
    qe = pe;
    if (qe < n && s[qe] == '?') {
        for (qe = pe + 1; qe < n && s[qe] != '#'; qe++) {}
        if (!comp_ok(s + pe + 1, qe - pe - 1, ":@/?", iri)) return 0;
    }
    if (qe < n && s[qe] == '#') {
        if (!comp_ok(s + qe + 1, n - qe - 1, ":@/?", iri)) return 0;
    }
    return 1;
}

static int check_uuid(const char *s, size_t n) {
    size_t i;
    if (n != 36) return 0;
    for (i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) { if (s[i] != '-') return 0; }
        else if (!hex(s[i])) return 0;
    }
    return 1;
}

static int check_json_pointer(const char *s, size_t n) {
    size_t i;
    if (n && s[0] != '/') return 0;
    for (i = 0; i < n; i++)
        if (s[i] == '~' && (i + 1 >= n || (s[i + 1] != '0' && s[i + 1] != '1'))) return 0;
    return 1;
}

static int check_rel_json_pointer(const char *s, size_t n) {
    size_t i = 0;
    while (i < n && dig(s[i])) i++;
    if (i == 0 || (i > 1 && s[0] == '0')) return 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        size_t k = ++i;
        while (i < n && dig(s[i])) i++;
        if (i == k || (i - k > 1 && s[k] == '0') || (s[k - 1] == '-' && i - k == 1 && s[k] == '0')) return 0;
    }
    if (i == n) return 1;
    if (s[i] == '#') return i + 1 == n;
    return check_json_pointer(s + i, n - i);
}

static int check_uri_template(const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '{') {
            size_t j = i + 1;
            int first = 1;
            if (j < n && strchr("+#./;?&=,!@|", s[j]) && s[j]) j++;
            for (;;) {
                size_t k = j;
                /* varname */
                while (j < n) {
                    if (alpha(s[j]) || dig(s[j]) || s[j] == '_') j++;
                    else if (s[j] == '%' && j + 2 < n && hex(s[j + 1]) && hex(s[j + 2])) j += 3;
                    else if (s[j] == '.' && j > k && j + 1 < n && s[j + 1] != '.' && s[j + 1] != '}' && s[j + 1] != ',' && s[j + 1] != ':' && s[j + 1] != '*') j++;
                    else break;
                }
                if (j == k) return 0;
                if (j < n && s[j] == ':') {
                    size_t d0 = ++j;
                    while (j < n && dig(s[j])) j++;
                    if (j == d0 || j - d0 > 4 || s[d0] == '0') return 0;
                } else if (j < n && s[j] == '*') j++;
                (void)first;
                first = 0;
                if (j < n && s[j] == ',') { j++; continue; }
                break;
            }
            if (j >= n || s[j] != '}') return 0;
            i = j + 1;
            continue;
        }
        if (c == '}' || c < 0x21 || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' ||
            c == '`' || c == '|' || c == 0x7F)
            return 0;
        if (c == '%') {
            if (i + 2 >= n || !hex(s[i + 1]) || !hex(s[i + 2])) return 0;
            i += 3;
            continue;
        }
        i++;
    }
    return 1;
}

int tg_sformat_check(int id, const char *s, size_t n) {
    switch (id) {
    case F_DATE_TIME: return check_date_time(s, n);
    case F_DATE: return check_date(s, n);
    case F_TIME: return check_time(s, n);
    case F_DURATION: return check_duration(s, n);
    case F_EMAIL: return check_email(s, n, 0);
    case F_IDN_EMAIL: return check_email(s, n, 1);
    case F_HOSTNAME: return check_hostname(s, n, 0);
    case F_IDN_HOSTNAME: return check_hostname(s, n, 1);
    case F_IPV4: return check_ipv4(s, n);
    case F_IPV6: return check_ipv6(s, n);
    case F_URI: return check_uri_any(s, n, 0, 1);
    case F_URI_REFERENCE: return check_uri_any(s, n, 0, 0);
    case F_IRI: return check_uri_any(s, n, 1, 1);
    case F_IRI_REFERENCE: return check_uri_any(s, n, 1, 0);
    case F_UUID: return check_uuid(s, n);
    case F_JSON_POINTER: return check_json_pointer(s, n);
    case F_RELATIVE_JSON_POINTER: return check_rel_json_pointer(s, n);
    case F_URI_TEMPLATE: return check_uri_template(s, n);
    default: return -1;
    }
}

int tg_schema_check_format(const char *format, const char *s, size_t len) {
    int id = tg_sformat_id(format, strlen(format));
    if (id < 0 || id == F_REGEX) return -1;
    return tg_sformat_check(id, s, len);
}
