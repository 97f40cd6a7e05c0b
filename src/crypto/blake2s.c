/* blake2s.c - BLAKE2s-256 (RFC 7693 sections 2 and 3), unkeyed. */
#include "blake2s.h"

#include <stdint.h>
#include <string.h>

static const uint32_t IV[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                               0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};

static const unsigned char SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define G(a, b, c, d, x, y)         \
    do {                            \
        a += b + (x);               \
        d = ROTR(d ^ a, 16);        \
        c += d;                     \
        b = ROTR(b ^ c, 12);        \
        a += b + (y);               \
        d = ROTR(d ^ a, 8);         \
        c += d;                     \
        b = ROTR(b ^ c, 7);         \
    } while (0)

#define ROUND(r)                                                   \
    do {                                                           \
        G(v0, v4, v8, v12, m[SIGMA[r][0]], m[SIGMA[r][1]]);        \
        G(v1, v5, v9, v13, m[SIGMA[r][2]], m[SIGMA[r][3]]);        \
        G(v2, v6, v10, v14, m[SIGMA[r][4]], m[SIGMA[r][5]]);       \
        G(v3, v7, v11, v15, m[SIGMA[r][6]], m[SIGMA[r][7]]);       \
        G(v0, v5, v10, v15, m[SIGMA[r][8]], m[SIGMA[r][9]]);       \
        G(v1, v6, v11, v12, m[SIGMA[r][10]], m[SIGMA[r][11]]);     \
        G(v2, v7, v8, v13, m[SIGMA[r][12]], m[SIGMA[r][13]]);      \
        G(v3, v4, v9, v14, m[SIGMA[r][14]], m[SIGMA[r][15]]);      \
    } while (0)

static uint32_t load32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* F: one 64-byte block; t the byte count so far, last the final flag */
static void compress(uint32_t h[8], const unsigned char *block, uint64_t t, int last) {
    uint32_t m[16], v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15;
    for (int i = 0; i < 16; i++) m[i] = load32(block + 4 * i);
    v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3], v4 = h[4], v5 = h[5], v6 = h[6], v7 = h[7];
    v8 = IV[0], v9 = IV[1], v10 = IV[2], v11 = IV[3];
    v12 = IV[4] ^ (uint32_t)t, v13 = IV[5] ^ (uint32_t)(t >> 32);
    v14 = last ? ~IV[6] : IV[6], v15 = IV[7];
    /* the ten rounds written out: each SIGMA index is a constant, so the
     * message words are read straight from m (a loop reads the table first) */
    ROUND(0); ROUND(1); ROUND(2); ROUND(3); ROUND(4);
    ROUND(5); ROUND(6); ROUND(7); ROUND(8); ROUND(9);
    h[0] ^= v0 ^ v8, h[1] ^= v1 ^ v9, h[2] ^= v2 ^ v10, h[3] ^= v3 ^ v11;
    h[4] ^= v4 ^ v12, h[5] ^= v5 ^ v13, h[6] ^= v6 ^ v14, h[7] ^= v7 ^ v15;
}

void tg_blake2s(const void *data, size_t len, unsigned char out[TG_BLAKE2S_SIZE]) {
    const unsigned char *p = data;
    uint32_t h[8];
    unsigned char last[64];
    uint64_t t = 0;
    memcpy(h, IV, sizeof h);
    h[0] ^= 0x01010000u ^ TG_BLAKE2S_SIZE; /* parameter block: digest length, no key, fanout and depth 1 */
    /* every full block but the last one (the last, even if full, carries the final flag) */
    while (len > 64) {
        t += 64;
        compress(h, p, t, 0);
        p += 64;
        len -= 64;
    }
    memset(last, 0, sizeof last);
    if (len) memcpy(last, p, len);
    compress(h, last, t + len, 1);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)h[i];
        out[4 * i + 1] = (unsigned char)(h[i] >> 8);
        out[4 * i + 2] = (unsigned char)(h[i] >> 16);
        out[4 * i + 3] = (unsigned char)(h[i] >> 24);
    }
}
