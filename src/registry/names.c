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

/* A name's collision key, folded as tg_name_fold (pairs) folds, a
 * character at a time, into a hash: the shortened name of a long one (any
 * length: the whole text counts, not only what fits a buffer). pend holds
 * a character that may start a pair (rn, vv) with the next. */
typedef struct key_hash {
    uint32_t h;
    char pend;
} key_hash;

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* The look-alike one character folds to on its own (lower case already). */
static char fold1(char c) {
    switch (c) {
    case '-': return '_';
    case '0': return 'o';
    case '1': case 'i': case '|': return 'l';
    default: return c;
    }
}

/* The letter a pair of lower-case letters reads as in a collision key ('m'
 * for rn, 'w' for vv), or 0: the one rule the key's hash, the shortener and
 * tg_name_fold share, so that names that look alike collide. */
static char pair_letter(char a, char b) { return a == 'r' && b == 'n' ? 'm' : a == 'v' && b == 'v' ? 'w' : 0; }

static void key_emit(key_hash *k, char c) { k->h = (k->h ^ (unsigned char)c) * 16777619u; }

static void key_feed(key_hash *k, char c) {
    c = lower(c);
    if (k->pend) {
        char p = k->pend;
        k->pend = 0;
        char l = pair_letter(p, c);
        if (l) {
            key_emit(k, l);
            return;
        }
        key_emit(k, fold1(p));
    }
    k->pend = c;
}

static uint32_t key_end(key_hash *k) {
    if (k->pend) key_emit(k, fold1(k->pend));
    k->pend = 0;
    return k->h;
}

/* The mapping of the character at u[*i] (of n bytes), *i moved past it. */
static char map_next(const unsigned char *u, size_t n, size_t *i) {
    uint32_t cp = u[*i];
    size_t len = 1;
    if (cp >= 0x80 && !(len = tg_utf8_decode(u + *i, n - *i, &cp))) { /* (ASCII is itself) */
        cp = 0xFFFD;
        len = 1;
    }
    *i += len;
    return fold_cp(cp);
}

/* Appends the mapping of s[0..n) to out at *o (bounded by cap); what
 * passes cap is fed to the collision key's hash, after what out holds
 * (only a long name's key is needed: the text out holds is fed when it
 * is, see tg_name_map). */
static void map_into(const char *s, size_t n, char *out, size_t *o, size_t cap, key_hash *k) {
    for (size_t i = 0; i < n;) {
        char c = map_next((const unsigned char *)s, n, &i);
        if (*o < cap) out[*o] = c;
        else {
            if (*o == cap)
                for (size_t j = 0; j < cap; j++) key_feed(k, out[j]);
            key_feed(k, c);
        }
        (*o)++;
    }
}

/* 1 when full[i], full[i + 1] is a pair (rn, vv) the collision key reads
 * as one letter (m, w). */
static inline int pair_at(const char *full, size_t len, size_t i) {
    return pair_letter(lower(full[i]), i + 1 < len ? lower(full[i + 1]) : 0) != 0;
}

/* How many pairs the collision key of full[0..len) reads, from the start
 * (the 'v's of "vvv" are one pair and a 'v'). */
static size_t pairs_in(const char *full, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (pair_at(full, len, i)) {
            n++;
            i++;
        }
    return n;
}

/* Writes full[0..len) to out with the last fold of its pairs (pairs in
 * all, as pairs_in reads them) as the letter the key reads each as, 'm' or
 * 'w' in the case of its first letter: fold characters shorter, with the
 * same collision key (such a letter never makes a pair with a neighbour).
 * out has room for len - fold characters. Returns that length. */
static size_t write_folding(const char *full, size_t len, size_t fold, size_t pairs, char *out) {
    size_t w = 0, seen = 0;
    for (size_t i = 0; i < len;) {
        if (!pair_at(full, len, i)) {
            out[w++] = full[i++];
            continue;
        }
        if (seen++ < pairs - fold) {
            out[w++] = full[i];
            out[w++] = full[i + 1];
        } else {
            char l = pair_letter(lower(full[i]), lower(full[i + 1]));
            out[w++] = full[i] >= 'A' && full[i] <= 'Z' ? (char)(l - 'a' + 'A') : l;
        }
        i += 2;
    }
    return w;
}

/* How much of the mapped text full[0..len) a shortened name keeps: at most
 * budget characters, cut where names with the same collision key are cut
 * alike (so their shortened names share a key too), never inside a pair
 * (rn, vv), and with no '_' or '-' at the end, so the kept text and the
 * '_' before the hash never make "__": "mcp__{source}" cut after a '_' of
 * the source would read as the namespace of the source before it. The
 * cut counts folded characters and each 'm' and 'w' twice (one may be a
 * pair), which depends on the collision key alone. */
static size_t kept_length(const char *full, size_t len, size_t budget) {
    size_t i = 0, cost = 0, cut = 0;
    while (i < len) {
        char c = lower(full[i]);
        int pair = pair_at(full, len, i);
        char f = pair ? pair_letter(c, lower(full[i + 1])) : fold1(c);
        cost += (f == 'm' || f == 'w') ? 2 : 1;
        if (cost > budget) break;
        i += pair ? 2 : 1;
        if (f != '_') cut = i; /* ('_' is what '_' and '-' fold to) */
    }
    return cut;
}

size_t tg_name_map(const char *tmpl, const char *source, size_t source_len, const char *tool, size_t tool_len,
                   char *out) {
    enum { CAP = 512 };
    char full[CAP];
    size_t o = 0;
    key_hash k = {2166136261u, 0};
    for (const char *t = tmpl; *t;) {
        if (strncmp(t, "{source}", 8) == 0) {
            map_into(source, source_len, full, &o, CAP, &k);
            t += 8;
        } else if (strncmp(t, "{tool}", 6) == 0) {
            map_into(tool, tool_len, full, &o, CAP, &k);
            t += 6;
        } else {
            size_t n = 1;
            while (t[n] && t[n] != '{') n++;
            map_into(t, n, full, &o, CAP, &k);
            t += n;
        }
    }
    size_t len = o < CAP ? o : CAP;
    int lead_fix =
        len == 0 || !((full[0] >= 'a' && full[0] <= 'z') || (full[0] >= 'A' && full[0] <= 'Z') || full[0] == '_');
    size_t w = 0;
    if (lead_fix) out[w++] = '_';
    size_t pairs = o <= CAP ? pairs_in(full, len) : 0;
    if (o <= CAP && len - pairs + w <= TG_NAME_MAX) {
        /* kept whole when it fits; else, as its collision key fits, with
         * its last pairs (rn, vv) as the letters they look like (m, w),
         * enough of them to fit. Whether a name gets a hash is up to its
         * key alone: "remove_..." of 64 characters kept whole and its
         * look-alike "rernove_..." of 65 with a hash would have two keys
         * and both register */
        size_t fold = len + w > TG_NAME_MAX ? len + w - TG_NAME_MAX : 0;
        w += write_folding(full, len, fold, pairs, out + w);
    } else {
        /* the hash is of the collision key, not of the text: names that
         * differ only by case or look-alikes get the same hash and are cut
         * alike, so their shortened names differ only so too and collide,
         * as short ones do (and a renamed look-alike is a held change) */
        static const char hex[] = "0123456789abcdef";
        for (size_t j = 0; o <= CAP && j < o; j++) key_feed(&k, full[j]); /* (else fed while mapped) */
        uint32_t h = key_end(&k);
        size_t keep = kept_length(full, len, 55 - w);
        memcpy(out + w, full, keep);
        w += keep;
        out[w++] = '_';
        for (int i = 7; i >= 0; i--) out[w++] = hex[(h >> (i * 4)) & 15];
    }
    out[w] = '\0';
    return w;
}

/* 1 when the mapping of s[0..n) holds "__" or ends in '_' (the whole of it,
 * however long: what a name built from it would show of it). */
int tg_name_splits(const char *s, size_t n) {
    char prev = 0;
    for (size_t i = 0; i < n;) {
        char c = map_next((const unsigned char *)s, n, &i);
        if (c == '_' && prev == '_') return 1;
        prev = c;
    }
    return prev == '_';
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
        char c = lower(s[i]);
        /* (only r and v start a pair: the next character is read for them alone) */
        if (pairs && (c == 'r' || c == 'v') && i + 1 < n) {
            char l = pair_letter(c, lower(s[i + 1]));
            if (l) {
                out[w++] = l;
                i++;
                continue;
            }
        }
        out[w++] = fold1(c);
    }
    out[w] = '\0';
    return w;
}
