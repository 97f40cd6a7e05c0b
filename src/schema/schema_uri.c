/* schema_uri.c - RFC 3986 reference resolution for $id and $ref. */
#include <string.h>

#include "schema_internal.h"

typedef struct uri_parts {
    const char *scheme; size_t scheme_len; int has_scheme;
    const char *auth; size_t auth_len; int has_auth;
    const char *path; size_t path_len;
    const char *query; size_t query_len; int has_query;
    const char *frag; size_t frag_len; int has_frag;
} uri_parts;

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static void uri_parse(const char *s, size_t n, uri_parts *p) {
    size_t i = 0, j;
    memset(p, 0, sizeof *p);
    if (n && is_alpha(s[0])) {
        for (j = 1; j < n; j++) {
            char c = s[j];
            if (c == ':') {
                p->has_scheme = 1; p->scheme = s; p->scheme_len = j; i = j + 1;
                break;
            }
            if (!(is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) break;
        }
    }
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
        p->has_auth = 1; i += 2; p->auth = s + i;
        while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#') i++;
        p->auth_len = (size_t)(s + i - p->auth);
    }
    p->path = s + i;
    while (i < n && s[i] != '?' && s[i] != '#') i++;
    p->path_len = (size_t)(s + i - p->path);
    if (i < n && s[i] == '?') {
        p->has_query = 1; i++; p->query = s + i;
        while (i < n && s[i] != '#') i++;
        p->query_len = (size_t)(s + i - p->query);
    }
    if (i < n && s[i] == '#') {
        p->has_frag = 1; i++; p->frag = s + i; p->frag_len = n - i;
    }
}

/* remove_dot_segments (RFC 3986 5.2.4) of in[0..n) into out; returns length. */
static size_t remove_dots(const char *in, size_t n, char *out) {
    size_t o = 0, i = 0;
    while (i < n) {
        if (n - i >= 3 && !memcmp(in + i, "../", 3)) { i += 3; continue; }
        if (n - i >= 2 && !memcmp(in + i, "./", 2)) { i += 2; continue; }
        if (n - i >= 3 && !memcmp(in + i, "/./", 3)) { i += 2; continue; }
        if (n - i == 2 && !memcmp(in + i, "/.", 2)) { i += 1; out[o++] = '/'; i += 1; continue; }
        if ((n - i >= 4 && !memcmp(in + i, "/../", 4)) || (n - i == 3 && !memcmp(in + i, "/..", 3))) {
            int last = (n - i == 3);
            i += 3;
            while (o > 0 && out[o - 1] != '/') o--;
            if (o > 0) o--;
            if (last) { out[o++] = '/'; }
            continue;
        }
        if ((n - i == 1 && in[i] == '.') || (n - i == 2 && !memcmp(in + i, "..", 2))) break;
        /* move the first segment */
        if (in[i] == '/') out[o++] = in[i++];
        while (i < n && in[i] != '/') out[o++] = in[i++];
    }
    return o;
}

char *tg_suri_resolve(tg_arena *a, const char *base, const char *ref, size_t reflen) {
    uri_parts b, r;
    size_t blen = base ? strlen(base) : 0;
    size_t cap = blen + reflen + 8;
    char *out = tg_arena_alloc(a, cap), *tmp;
    size_t o = 0, pl;
    const char *q = NULL; size_t ql = 0; int hq = 0;
    if (!out) return NULL;
    tmp = tg_arena_alloc(a, cap);
    if (!tmp) return NULL;
    uri_parse(base ? base : "", blen, &b);
    uri_parse(ref, reflen, &r);
#define PUT(p, l) do { memcpy(out + o, (p), (l)); o += (l); } while (0)
    if (r.has_scheme) {
        PUT(r.scheme, r.scheme_len); out[o++] = ':';
        if (r.has_auth) { PUT("//", 2); PUT(r.auth, r.auth_len); }
        o += remove_dots(r.path, r.path_len, out + o);
        q = r.query; ql = r.query_len; hq = r.has_query;
    } else {
        if (b.has_scheme) { PUT(b.scheme, b.scheme_len); out[o++] = ':'; }
        if (r.has_auth) {
            PUT("//", 2); PUT(r.auth, r.auth_len);
            o += remove_dots(r.path, r.path_len, out + o);
            q = r.query; ql = r.query_len; hq = r.has_query;
        } else {
            if (b.has_auth) { PUT("//", 2); PUT(b.auth, b.auth_len); }
            if (r.path_len == 0) {
                PUT(b.path, b.path_len);
                if (r.has_query) { q = r.query; ql = r.query_len; hq = 1; }
                else { q = b.query; ql = b.query_len; hq = b.has_query; }
            } else {
                if (r.path[0] == '/') {
                    o += remove_dots(r.path, r.path_len, out + o);
                } else {
                    size_t t = 0, k;
                    if (b.has_auth && b.path_len == 0) tmp[t++] = '/';
                    else {
                        for (k = b.path_len; k > 0 && b.path[k - 1] != '/'; k--) {}
                        memcpy(tmp + t, b.path, k); t += k;
                    }
                    memcpy(tmp + t, r.path, r.path_len); t += r.path_len;
                    pl = remove_dots(tmp, t, out + o);
                    o += pl;
                }
                q = r.query; ql = r.query_len; hq = r.has_query;
            }
        }
    }
    if (hq) { out[o++] = '?'; PUT(q, ql); }
    if (r.has_frag && r.frag_len) { out[o++] = '#'; PUT(r.frag, r.frag_len); }
#undef PUT
    out[o] = 0;
    return out;
}

size_t tg_suri_nofrag_len(const char *uri) {
    const char *h = strchr(uri, '#');
    return h ? (size_t)(h - uri) : strlen(uri);
}

static int hexv(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *tg_suri_pct_decode(tg_arena *a, const char *s, size_t len, size_t *outlen) {
    char *out = tg_arena_alloc(a, len + 1);
    size_t i, o = 0;
    if (!out) return NULL;
    for (i = 0; i < len; i++) {
        if (s[i] == '%') {
            int h, l;
            if (i + 2 >= len) return NULL;
            h = hexv(s[i + 1]); l = hexv(s[i + 2]);
            if (h < 0 || l < 0) return NULL;
            out[o++] = (char)(h * 16 + l);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = 0;
    *outlen = o;
    return out;
}
