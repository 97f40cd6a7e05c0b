/* crypto_test.c - SHA-256 (FIPS 180-2 vectors), BLAKE2s-256 (RFC 7693
 * appendix B, and lengths around its block edges checked against Python's
 * hashlib.blake2s), HMAC-SHA256 (RFC 4231 cases 1-7), constant-time compare
 * and strict base64url. */
#include <stdio.h>
#include <string.h>

#include "base64url.h"
#include "blake2s.h"
#include "hmac.h"
#include "sha256.h"
#include "../../tests/tg_test.h"

static void hex(const unsigned char *p, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
}

static void sha_is(const void *data, size_t len, const char *expect) {
    unsigned char d[32];
    char h[65];
    tg_sha256(data, len, d);
    hex(d, 32, h);
    CHECK_STR(h, expect);
}

static void test_sha256_fips(void) {
    sha_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha_is(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* one million 'a', fed in uneven pieces through the incremental API */
    unsigned char chunk[997];
    memset(chunk, 'a', sizeof chunk);
    tg_sha256_ctx c;
    tg_sha256_init(&c);
    size_t left = 1000000;
    size_t step = 1;
    while (left) {
        size_t n = step < left ? step : left;
        if (n > sizeof chunk) n = sizeof chunk;
        tg_sha256_update(&c, chunk, n);
        left -= n;
        step = step * 3 + 1;
    }
    unsigned char d[32];
    char h[65];
    tg_sha256_final(&c, d);
    hex(d, 32, h);
    CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_sha256_boundaries(void) {
    /* lengths around the padding edge (55, 56, 63, 64 bytes) agree between
     * one-shot and byte-at-a-time */
    unsigned char msg[130];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (unsigned char)(i * 7 + 1);
    for (size_t len = 50; len < sizeof msg; len++) {
        unsigned char a[32], b[32];
        tg_sha256(msg, len, a);
        tg_sha256_ctx c;
        tg_sha256_init(&c);
        for (size_t i = 0; i < len; i++) tg_sha256_update(&c, msg + i, 1);
        tg_sha256_final(&c, b);
        CHECK_MSG(memcmp(a, b, 32) == 0, "length %zu", len);
    }
}

static void blake2s_is(const void *data, size_t len, const char *expect) {
    unsigned char d[TG_BLAKE2S_SIZE];
    char h[65];
    tg_blake2s(data, len, d);
    hex(d, 32, h);
    CHECK_MSG(strcmp(h, expect) == 0, "length %zu: %s", len, h);
}

static void test_blake2s(void) {
    blake2s_is("abc", 3, "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"); /* RFC 7693 B */
    blake2s_is("", 0, "69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9");
    /* byte i is i*7+3: one byte, around one and two blocks (the last block,
     * even a full one, is the one with the final flag), and many blocks */
    static const struct { size_t len; const char *hex; } v[] = {
        {1, "a28ac19d6bcbe2cd1d7de183485768d598e996b07889b9b11f418cb1b4a4fb0d"},
        {55, "691697264a9ff7f6f5605335fc509f137845246ce7169d30fbf71574102ffb63"},
        {56, "5cbb7d8e7b6c8e857af099e6b539e63e1df9185042fb3543ba0d18c1e2834093"},
        {63, "de27df0e375d83c49f1af9ca8270f9f2fe7b70bf800fc01672db0e9746021ebf"},
        {64, "5377e4ff957bda4d4535f4879876b71a61056c4cec31e78397c66ec47a86a130"},
        {65, "19b1b26fba093f4a670d8913e1b71cbb2916dfa701018cc6b05785c966593374"},
        {127, "6846f99493436241d0a6f289c9a911b1d0f4860db8f2b5df5295ffd37d03a3c4"},
        {128, "83470c75afa23d90cd7659906e4b47daa278131fbb225241dd37a40fd5355ac7"},
        {129, "26fd8892ab0a5f12d4acbff1efd7dcd92b99e2d377f888f07e3cb81b232b11cf"},
        {1000, "02a016193469710efadf8fb005ca19b509331cb847df5598cc0794bded669681"},
    };
    unsigned char msg[1000];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (unsigned char)(i * 7 + 3);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) blake2s_is(msg, v[i].len, v[i].hex);
}

static void hmac_is(const unsigned char *key, size_t klen, const void *data, size_t dlen, const char *expect) {
    unsigned char d[32];
    char h[65];
    tg_hmac_sha256(key, klen, data, dlen, d);
    hex(d, 32, h);
    h[strlen(expect)] = '\0'; /* case 5 compares a truncated MAC */
    CHECK_STR(h, expect);
}

static void test_hmac_rfc4231(void) {
    unsigned char k[131], data[50];
    memset(k, 0x0b, 20);
    hmac_is(k, 20, "Hi There", 8, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    hmac_is((const unsigned char *)"Jefe", 4, "what do ya want for nothing?", 28,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    memset(k, 0xaa, 20);
    memset(data, 0xdd, 50);
    hmac_is(k, 20, data, 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    for (int i = 0; i < 25; i++) k[i] = (unsigned char)(i + 1);
    memset(data, 0xcd, 50);
    hmac_is(k, 25, data, 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    memset(k, 0x0c, 20);
    hmac_is(k, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b");
    memset(k, 0xaa, 131);
    const char *d6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    hmac_is(k, 131, d6, strlen(d6), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    const char *d7 = "This is a test using a larger than block-size key and a larger than block-size data. "
                     "The key needs to be hashed before being used by the HMAC algorithm.";
    hmac_is(k, 131, d7, strlen(d7), "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");

    /* incremental equals one-shot */
    unsigned char a[32], b[32];
    tg_hmac_sha256(k, 131, d7, strlen(d7), a);
    tg_hmac_sha256_ctx c;
    tg_hmac_sha256_init(&c, k, 131);
    tg_hmac_sha256_update(&c, d7, 10);
    tg_hmac_sha256_update(&c, d7 + 10, strlen(d7) - 10);
    tg_hmac_sha256_final(&c, b);
    CHECK(memcmp(a, b, 32) == 0);
}

static void test_ct_equal(void) {
    CHECK(tg_ct_equal("abcd", "abcd", 4) == 1);
    CHECK(tg_ct_equal("abcd", "abce", 4) == 0);
    CHECK(tg_ct_equal("xbcd", "abcd", 4) == 0);
    CHECK(tg_ct_equal("", "", 0) == 1);
}

static void test_base64url(void) {
    /* RFC 4648 section 10 vectors, unpadded */
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *out[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char enc[16];
        size_t n = tg_b64url_encode(in[i], strlen(in[i]), enc);
        enc[n] = '\0';
        CHECK_STR(enc, out[i]);
        CHECK(n == tg_b64url_encoded_len(strlen(in[i])));
        unsigned char dec[16];
        long m = tg_b64url_decode(out[i], strlen(out[i]), dec);
        CHECK(m == (long)strlen(in[i]) && memcmp(dec, in[i], (size_t)m) == 0);
    }
    unsigned char bytes[3] = {0xfb, 0xff, 0xbf};
    char enc[8];
    size_t n = tg_b64url_encode(bytes, 3, enc);
    enc[n] = '\0';
    CHECK_STR(enc, "-_-_");
    unsigned char dec[16];
    CHECK(tg_b64url_decode("Zg==", 4, dec) == -1);  /* padding */
    CHECK(tg_b64url_decode("Zh", 2, dec) == -1);    /* non-zero trailing bits */
    CHECK(tg_b64url_decode("Zm8", 3, dec) == 2);
    CHECK(tg_b64url_decode("Zm9", 3, dec) == -1); /* non-canonical spelling of "fo" */
    CHECK(tg_b64url_decode("Zm+v", 4, dec) == -1);  /* standard alphabet */
    CHECK(tg_b64url_decode("Z", 1, dec) == -1);
    CHECK(tg_b64url_decode("Zm 9", 4, dec) == -1);
}

int main(void) {
    test_sha256_fips();
    test_sha256_boundaries();
    test_blake2s();
    test_hmac_rfc4231();
    test_ct_equal();
    test_base64url();
    return tg_test_finish("crypto");
}
