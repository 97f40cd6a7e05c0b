/* policy_url.c - how a URL parser reads a prefix or suffix condition's
 * argument that is a URL of a special scheme (http, https, ws, wss, ftp,
 * file): the WHATWG URL Standard's parser, which fetch, new URL and browsers
 * use, accepts many spellings of one URL ("https:/h/x", "https:///h/x",
 * "https://h:443/x", "http://2852039166/" for 169.254.169.254, a tab
 * anywhere), and a byte comparison takes each for another string.
 *
 * The engine does not rewrite URLs (a canonicalizer that disagrees with the
 * tool's parser in one corner is a bypass of its own): it takes a value in
 * the one spelling that parser writes back, up to what a restricting rule
 * folds anyway (ASCII case, '\' for '/'), and calls any other spelling
 * undecidable (docs/policy.md). */
#include <string.h>

#include "policy_internal.h"

static int is_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int is_hex(unsigned char c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }
static int tab_or_newline(char c) { return c == '\t' || c == '\n' || c == '\r'; }

/* s[0..n) is z up to ASCII case */
static int same_ci(const char *s, size_t n, const char *z) {
    if (strlen(z) != n) return 0;
    for (size_t k = 0; k < n; k++)
        if ((s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]) != z[k]) return 0;
    return 1;
}

/* The special schemes and their default ports (a port the parser drops);
 * file has none. */
static const struct {
    const char *name;
    unsigned port;
} SPECIAL[] = {{"http", 80}, {"https", 443}, {"ws", 80}, {"wss", 443}, {"ftp", 21}, {"file", 0}};
enum { N_SPECIAL = sizeof SPECIAL / sizeof SPECIAL[0], FILE_SCHEME = N_SPECIAL - 1 };

/* The special scheme a parser reads at the start of s, as it reads it:
 * leading C0 controls and spaces skipped, tab and newline removed, ASCII
 * case folded. Its index in SPECIAL, or -1 (not a URL of a special scheme).
 * *colon: where its ':' is. */
static int special_scheme(const char *s, size_t n, size_t *colon) {
    char name[6];
    size_t len = 0, i = 0;
    while (i < n && (unsigned char)s[i] <= 0x20) i++;
    for (; i < n && s[i] != ':'; i++) {
        unsigned char c = (unsigned char)s[i];
        if (tab_or_newline(s[i])) continue;
        if (!is_alpha(c) || len == sizeof name) return -1; /* (no special scheme has another byte, or more) */
        name[len++] = (char)(c | 0x20);
    }
    if (i == n) return -1;
    for (int k = 0; k < N_SPECIAL; k++)
        if (strlen(SPECIAL[k].name) == len && memcmp(SPECIAL[k].name, name, len) == 0) {
            *colon = i;
            return k;
        }
    return -1;
}

/* An IPv6 address (between the brackets) as the parser writes it back:
 * lower-case hex pieces without leading zeros, the first longest run of two
 * or more zero pieces as "::", no IPv4 part. Compared up to ASCII case (a
 * restricting rule folds it); 1 when s[0..n) is that. */
static int ipv6_canonical(const char *s, size_t n) {
    unsigned piece[8];
    int count = 0, compress = -1;
    size_t i = 0;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        compress = 0;
        i = 2;
    }
    while (i < n) {
        if (count == 8) return 0;
        if (s[i] == ':') {
            if (compress >= 0) return 0;
            compress = count;
            i++;
            continue;
        }
        unsigned v = 0;
        size_t d = 0;
        for (; d < 4 && i < n && is_hex((unsigned char)s[i]); d++, i++)
            v = v * 16 + (unsigned)(is_digit((unsigned char)s[i]) ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
        if (d == 0) return 0; /* ('.': an IPv4 part, never written back) */
        if (i < n && (s[i] != ':' || ++i == n)) return 0;
        piece[count++] = v;
    }
    if (compress < 0 && count != 8) return 0;
    if (compress >= 0) { /* the pieces after "::" go to the end */
        int moved = count - compress;
        memmove(piece + 8 - moved, piece + compress, (size_t)moved * sizeof piece[0]);
        for (int k = compress; k < 8 - moved; k++) piece[k] = 0;
    }
    int run_at = -1, run_len = 1;
    for (int k = 0; k < 8;) {
        int e = k;
        while (e < 8 && piece[e] == 0) e++;
        if (e - k > run_len) run_at = k, run_len = e - k;
        k = e > k ? e : k + 1;
    }
    char out[48];
    size_t o = 0;
    for (int k = 0; k < 8; k++) {
        if (k == run_at) {
            out[o++] = ':';
            if (k == 0) out[o++] = ':';
            k += run_len - 1;
            if (k == 7) break;
            continue;
        }
        static const char HEX[] = "0123456789abcdef";
        int started = 0;
        for (int sh = 12; sh >= 0; sh -= 4) {
            unsigned h = (piece[k] >> sh) & 15;
            if (h || started || sh == 0) out[o++] = HEX[h], started = 1;
        }
        if (k != 7) out[o++] = ':';
    }
    out[o] = '\0';
    return same_ci(s, n, out);
}

/* The parser reads a host whose last label is a number ("1", "0x7f") as an
 * IPv4 address, in any of its notations (2852039166, 0xA9.0xFE.43518,
 * 0251.0376.0251.0376). */
static int ends_in_number(const char *h, size_t n) {
    size_t b = n;
    while (b > 0 && h[b - 1] != '.') b--;
    const char *l = h + b;
    size_t m = n - b, k = 0;
    if (m >= 2 && l[0] == '0' && (l[1] | 0x20) == 'x') {
        for (k = 2; k < m && is_hex((unsigned char)l[k]); k++) {}
        return k == m;
    }
    for (k = 0; k < m && is_digit((unsigned char)l[k]); k++) {}
    return m > 0 && k == m;
}

/* Four decimal numbers of 0-255 without leading zeros: how it is written back. */
static int ipv4_canonical(const char *h, size_t n) {
    size_t i = 0;
    for (int part = 1;; part++) {
        size_t d = 0;
        unsigned v = 0;
        for (; d < 4 && i < n && is_digit((unsigned char)h[i]); d++, i++) v = v * 10 + (unsigned)(h[i] - '0');
        if (d == 0 || d > 3 || v > 255 || (d > 1 && h[i - d] == '0')) return 0;
        if (i == n) return part == 4;
        if (h[i] != '.' || part == 4) return 0;
        i++;
    }
}

/* A port the parser keeps as written: 1-5 digits without a leading zero,
 * at most 65535, not the scheme's default (dropped: "https://h:443/" is
 * "https://h/"). */
static int port_canonical(const char *p, size_t n, unsigned dflt) {
    unsigned v = 0;
    if (n == 0 || n > 5 || (n > 1 && p[0] == '0')) return 0;
    for (size_t k = 0; k < n; k++) {
        if (!is_digit((unsigned char)p[k])) return 0;
        v = v * 10 + (unsigned)(p[k] - '0');
    }
    return v <= 65535 && v != dflt;
}

/* The authority a[0..n) (after "//", before the path): why it is not as
 * the parser writes it back, or NULL. */
static const char *authority_check(const char *a, size_t n, int scheme) {
    for (size_t k = 0; k < n; k++) {
        if (a[k] == '@') return "argument is a URL with a user name before its host (the host is what follows '@')";
        if (a[k] == '%') return "argument is a URL with a percent-encoded host";
        if ((unsigned char)a[k] >= 0x80) return "argument is a URL whose host is not ASCII (a URL parser maps it to another)";
    }
    const char *port = NULL;
    size_t hn = n;
    if (n && a[0] == '[') {
        const char *rb = memchr(a, ']', n);
        if (!rb || !ipv6_canonical(a + 1, (size_t)(rb - a) - 1))
            return "argument is a URL with an IPv6 address not written as a URL parser writes it back";
        hn = (size_t)(rb - a) + 1;
        if (hn < n && a[hn] != ':') return "argument is a URL with bytes after its IPv6 address";
    } else {
        const char *c = memchr(a, ':', n);
        if (c) hn = (size_t)(c - a);
        if (hn == 0) return "argument is a URL without a host";
        if (a[hn - 1] == '.') return "argument is a URL whose host ends in '.' (the same host to DNS)";
        if (ends_in_number(a, hn) && !ipv4_canonical(a, hn))
            return "argument is a URL with an IPv4 address not written as four decimal numbers 0-255";
    }
    if (hn < n) port = a + hn + 1;
    if (scheme == FILE_SCHEME) {
        if (port) return "argument is a file URL with a ':' in its host (a drive letter or a port)";
        if (same_ci(a, n, "localhost")) return "argument is a file URL naming localhost (the parser drops it)";
    } else if (port && !port_canonical(port, n - hn - 1, SPECIAL[scheme].port)) {
        return "argument is a URL with an empty or default port, or one with leading zeros";
    }
    return NULL;
}

const char *tg_url_check(const char *s, size_t n, tg_url_form *u) {
    size_t k;
    u->path = 0;
    u->bare = 0;
    u->raw = 0;
    int scheme = special_scheme(s, n, &k);
    if (scheme < 0) return NULL;
    /* the parser skips leading and trailing C0 controls and spaces, and
     * removes tabs and newlines anywhere ("inter<TAB>nal.example.com") */
    if ((unsigned char)s[0] <= 0x20 || (unsigned char)s[n - 1] <= 0x20) goto white;
    for (size_t i = 0; i < n; i++)
        if (tab_or_newline(s[i])) goto white;
    size_t seps = 0, i = k + 1;
    while (i + seps < n && tg_path_sep(s[i + seps])) seps++;
    /* "https:h", "https:/h", "https:///h" are all "https://h"; "file:///x"
     * has an empty host */
    if (scheme == FILE_SCHEME ? seps < 2 : seps != 2)
        return "argument is a URL whose host does not follow exactly two slashes after the scheme";
    i += 2;
    size_t end = i;
    while (end < n && !tg_path_sep(s[end]) && s[end] != '?' && s[end] != '#') end++;
    if (scheme == FILE_SCHEME) {
        /* "file:///C|/x" is file:///C:/x, and a file URL's path is read
         * percent-decoded (fileURLToPath) */
        if (memchr(s, '|', n) || memchr(s, '%', n)) return "argument is a file URL with '|' or a percent-encoded byte";
        if (end == i && (end == n || !tg_path_sep(s[end]))) return "argument is a file URL without a path";
    }
    if (end > i || scheme != FILE_SCHEME) {
        const char *why = authority_check(s + i, end - i, scheme);
        if (why) return why;
    }
    /* what the parser percent-encodes when it writes the URL back (node's
     * sets, per part): told to the caller, since it only matters to a
     * pattern that could hold its encoding (eval_cond) */
    int part = 0; /* 0 path, 1 query, 2 fragment */
    for (size_t j = end; j < n && !u->raw; j++) {
        unsigned char c = (unsigned char)s[j];
        if (c == '?' && part == 0) part = 1;
        else if (c == '#' && part < 2) part = 2;
        else if (c <= 0x20 || c >= 0x7f || c == '"' || c == '<' || c == '>' || (part != 1 && c == '`') ||
                 (part == 0 && (c == '{' || c == '}')) || (part == 1 && c == '\''))
            u->raw = 1;
    }
    u->path = end;
    u->bare = end == n || s[end] == '?' || s[end] == '#'; /* "https://h?q" is "https://h/?q" */
    return NULL;
white:
    return "argument is a URL with white space or control characters that a URL parser drops";
}
