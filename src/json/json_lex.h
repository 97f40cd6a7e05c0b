/* json_lex.h - the strict lexer of RFC 8259 strings and numbers, shared by
 * the tree reader (json_read.c) and the schema module's one-pass checker
 * (schema_stream.c), so both accept exactly the same bytes.
 *
 * Positions are byte offsets into s[0..len). The fast paths are inline (the
 * callers run them for every string and number); the rare cases (escapes,
 * non-ASCII bytes) are out of line in json_lex.c. */
#ifndef TG_JSON_LEX_H
#define TG_JSON_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json.h"

typedef struct tg_json_lexstr {
    size_t end;          /* offset of the closing quote */
    int escapes;         /* the body holds backslash escapes (decode with tg_json_unescape) */
    int ascii;           /* every byte of the body is below 0x80 */
    /* on error: */
    tg_json_status status;
    size_t err_at;
    const char *what;
} tg_json_lexstr;

typedef struct tg_json_lexnum {
    size_t end;          /* offset after the number */
    double value;        /* valid when exact */
    int exact;           /* at most 15 significant digits and no exponent: value
                          * is the correctly rounded double (as strtod gives) */
    int has_frac, has_exp;
    /* on error: */
    size_t err_at;
    const char *what;
} tg_json_lexnum;

/* The general case of tg_json_lex_string: from i (the first byte the fast
 * scan did not accept) to the closing quote. */
int tg_json__lex_string_slow(const unsigned char *s, size_t len, size_t start, size_t i, tg_json_lexstr *out);

/* Nonzero when one of the 8 bytes of v is special to the lexer: below
 * 0x20, '"' or '\\' (it must be escaped in a JSON string), or 0x80 and
 * above (the fast path takes ASCII only). SWAR, exact for "any byte"; the
 * lowest flagged byte is the first such one, a false flag can only sit
 * above a true one: a byte below 0x80 gets its high bit from v - 0x20 or
 * (v ^ c) - 1 only when it matches or a borrow reaches it, and borrows
 * start at matches only (a byte of 0x80 and above is flagged by v itself,
 * so the usual "& ~x" of each test is not needed). The writer
 * (json_write.c) skips runs of plain bytes with it. */
static inline uint64_t tg_json__special8(uint64_t v) {
    const uint64_t ones = 0x0101010101010101ull;
    return ((v - ones * 0x20) | ((v ^ (ones * '"')) - ones) | ((v ^ (ones * '\\')) - ones) | v) & (ones * 0x80);
}

/* Lexes the string whose body starts at start (after the opening quote).
 * 0 with out->end at the closing quote, or -1 with out's error fields. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int tg_json_lex_string(const unsigned char *s, size_t len, size_t start, tg_json_lexstr *out) {
    size_t i = start;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (len - i >= 8) {
        uint64_t v, m;
        memcpy(&v, s + i, 8);
        if ((m = tg_json__special8(v))) {
            i += (size_t)__builtin_ctzll(m) >> 3;
            goto found;
        }
        i += 8;
    }
#endif
    while (i < len && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\') i++;
    goto found;
found:
    if (i < len && s[i] == '"') {
        out->end = i;
        out->escapes = 0;
        out->ascii = 1;
        return 0;
    }
    return tg_json__lex_string_slow(s, len, start, i, out);
}

/* Decodes the body of a string tg_json_lex_string accepted (n bytes) into
 * out (room for n bytes: decoding never lengthens); returns the length. */
size_t tg_json_unescape(const unsigned char *body, size_t n, char *out);

/* Lexes the number starting at pos. 0 with out filled, or -1 with out's
 * error fields (status TG_JSON_SYNTAX). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int tg_json_lex_number(const unsigned char *s, size_t len, size_t pos, tg_json_lexnum *out) {
    static const double pow10_tab[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                         1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    size_t i = pos;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i >= len) goto no_digit;
    size_t int_b = i;
    if (s[i] == '0') {
        i++;
        if (i < len && s[i] >= '0' && s[i] <= '9') {
            out->err_at = i;
            out->what = "leading zeros are not allowed in numbers";
            return -1;
        }
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    } else {
        goto no_digit;
    }
    size_t int_end = i, frac_b = i, frac_e = i;
    out->has_frac = out->has_exp = 0;
    if (i < len && s[i] == '.') {
        i++;
        if (i >= len || s[i] < '0' || s[i] > '9') {
            out->err_at = i;
            out->what = "expected a digit after the decimal point";
            return -1;
        }
        frac_b = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
        frac_e = i;
        out->has_frac = 1;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        out->has_exp = 1;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= len || s[i] < '0' || s[i] > '9') {
            out->err_at = i;
            out->what = "expected a digit in the exponent";
            return -1;
        }
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    }
    out->end = i;
    size_t frac_n = frac_e - frac_b;
    out->exact = !out->has_exp && (int_end - int_b) + frac_n <= 15;
    if (out->exact) {
        /* at most 15 digits: they are an exact double m, and m / 10^frac_n is
         * one correctly rounded division, the double strtod gives */
        uint64_t m = 0;
        for (size_t k = int_b; k < int_end; k++) m = m * 10 + (uint64_t)(s[k] - '0');
        for (size_t k = frac_b; k < frac_e; k++) m = m * 10 + (uint64_t)(s[k] - '0');
        double d = (double)m;
        if (frac_n) d /= pow10_tab[frac_n];
        out->value = neg ? -d : d;
    }
    return 0;
no_digit:
    out->err_at = i;
    out->what = "expected a digit";
    return -1;
}

#endif
