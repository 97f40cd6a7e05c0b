/* utf8_test.c - the UTF-8 helpers against a byte-at-a-time reference:
 * code points and UTF-16 units of texts of every width and alignment (the
 * counters read eight bytes a step, so the seams between steps matter),
 * decoding limits (overlongs, surrogates, past U+10FFFF) and validity. */
#include <stdint.h>
#include <string.h>

#include "utf8.h"
#include "../../tests/tg_test.h"

/* One code point at a time, the slow and obvious way. */
static void reference(const unsigned char *s, size_t len, size_t *cps, size_t *units) {
    *cps = *units = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = tg_utf8_decode(s + i, len - i, &cp);
        if (!n) return;
        (*cps)++;
        *units += cp > 0xFFFF ? 2 : 1;
        i += n;
    }
}

static size_t xorshift(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return (size_t)*x;
}

static void test_counts_match_reference(void) {
    static const uint32_t samples[] = {'a', '~', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF};
    unsigned char buf[160];
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int bad = 0;
    for (int round = 0; round < 20000 && bad < 5; round++) {
        size_t len = 0, lead = xorshift(&seed) % 9; /* some ASCII first: every alignment */
        for (size_t k = 0; k < lead; k++) buf[len++] = 'x';
        while (len < sizeof buf - 4 && xorshift(&seed) % 24) {
            uint32_t cp = samples[xorshift(&seed) % (sizeof samples / sizeof samples[0])];
            /* mostly ASCII, as real messages are */
            if (xorshift(&seed) % 3) cp = 'a' + (uint32_t)(xorshift(&seed) % 26);
            len += tg_utf8_encode(cp, buf + len);
        }
        size_t cps, units;
        reference(buf, len, &cps, &units);
        if (tg_utf8_count(buf, len) != cps || tg_utf16_length(buf, len) != units) bad++;
        CHECK(tg_utf8_valid(buf, len));
    }
    CHECK_MSG(bad == 0, "%d texts counted wrong", bad);
}

static void test_counts_of_known_texts(void) {
    const char *ascii = "/properties/owner/pattern";
    CHECK(tg_utf16_length((const unsigned char *)ascii, strlen(ascii)) == strlen(ascii));
    /* "héllo €" then U+1F600 (a surrogate pair in UTF-16): 7 + 2 units, 8 code points */
    const char *mixed = "h\xC3\xA9llo \xE2\x82\xAC\xF0\x9F\x98\x80";
    CHECK(tg_utf8_count((const unsigned char *)mixed, strlen(mixed)) == 8);
    CHECK(tg_utf16_length((const unsigned char *)mixed, strlen(mixed)) == 9);
    /* eight four-byte sequences in a row: every byte of each step is non-ASCII */
    unsigned char emoji[32];
    for (int i = 0; i < 8; i++) tg_utf8_encode(0x1F600 + (uint32_t)i, emoji + 4 * i);
    CHECK(tg_utf8_count(emoji, 32) == 8);
    CHECK(tg_utf16_length(emoji, 32) == 16);
    CHECK(tg_utf16_length(emoji, 0) == 0);
}

static void test_decode_refuses_what_rfc3629_forbids(void) {
    uint32_t cp;
    CHECK(tg_utf8_decode((const unsigned char *)"\xC0\xAF", 2, &cp) == 0);         /* overlong '/' */
    CHECK(tg_utf8_decode((const unsigned char *)"\xE0\x80\xAF", 3, &cp) == 0);     /* overlong, three bytes */
    CHECK(tg_utf8_decode((const unsigned char *)"\xED\xA0\x80", 3, &cp) == 0);     /* U+D800, a surrogate */
    CHECK(tg_utf8_decode((const unsigned char *)"\xF4\x90\x80\x80", 4, &cp) == 0); /* past U+10FFFF */
    CHECK(tg_utf8_decode((const unsigned char *)"\xE2\x82", 2, &cp) == 0);         /* cut short */
    CHECK(tg_utf8_decode((const unsigned char *)"\xF4\x8F\xBF\xBF", 4, &cp) == 4 && cp == 0x10FFFF);
    CHECK(!tg_utf8_valid((const unsigned char *)"abcdefgh\xFF", 9));
    CHECK(tg_utf8_valid((const unsigned char *)"abcdefgh\xC3\xA9", 10));
}

int main(void) {
    test_counts_match_reference();
    test_counts_of_known_texts();
    test_decode_refuses_what_rfc3629_forbids();
    return tg_test_finish("utf8");
}
