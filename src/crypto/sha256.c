/* sha256.c - SHA-256 compression and padding (FIPS 180-4 section 6.2). */
#include "sha256.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define BSIG0(x) (ROR(x, 2) ^ ROR(x, 13) ^ ROR(x, 22))
#define BSIG1(x) (ROR(x, 6) ^ ROR(x, 11) ^ ROR(x, 25))
#define SSIG0(x) (ROR(x, 7) ^ ROR(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (ROR(x, 17) ^ ROR(x, 19) ^ ((x) >> 10))
/* One round with the eight working variables named in their rotated order,
 * so eight rounds in a row move no variable (about half the instructions
 * of the textbook loop that shifts all eight every round). */
#define ROUND(a, b, c, d, e, f, g, h, i)                                  \
    do {                                                                  \
        uint32_t t1_ = (h) + BSIG1(e) + CH(e, f, g) + K[i] + w[i];        \
        (d) += t1_;                                                       \
        (h) = t1_ + BSIG0(a) + MAJ(a, b, c);                              \
    } while (0)

static void compress(uint32_t hs[8], const unsigned char *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
               (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) w[i] = SSIG1(w[i - 2]) + w[i - 7] + SSIG0(w[i - 15]) + w[i - 16];
    uint32_t a = hs[0], b = hs[1], c = hs[2], d = hs[3], e = hs[4], f = hs[5], g = hs[6], h = hs[7];
    for (int i = 0; i < 64; i += 8) {
        ROUND(a, b, c, d, e, f, g, h, i);
        ROUND(h, a, b, c, d, e, f, g, i + 1);
        ROUND(g, h, a, b, c, d, e, f, i + 2);
        ROUND(f, g, h, a, b, c, d, e, i + 3);
        ROUND(e, f, g, h, a, b, c, d, i + 4);
        ROUND(d, e, f, g, h, a, b, c, i + 5);
        ROUND(c, d, e, f, g, h, a, b, i + 6);
        ROUND(b, c, d, e, f, g, h, a, i + 7);
    }
    hs[0] += a;
    hs[1] += b;
    hs[2] += c;
    hs[3] += d;
    hs[4] += e;
    hs[5] += f;
    hs[6] += g;
    hs[7] += h;
}

void tg_sha256_init(tg_sha256_ctx *c) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->bytes = 0;
    c->fill = 0;
}

void tg_sha256_update(tg_sha256_ctx *c, const void *data, size_t len) {
    const unsigned char *p = data;
    c->bytes += len;
    if (c->fill) {
        size_t take = TG_SHA256_BLOCK - c->fill;
        if (take > len) take = len;
        memcpy(c->block + c->fill, p, take);
        c->fill += take;
        p += take;
        len -= take;
        if (c->fill < TG_SHA256_BLOCK) return;
        compress(c->h, c->block);
        c->fill = 0;
    }
    while (len >= TG_SHA256_BLOCK) {
        compress(c->h, p);
        p += TG_SHA256_BLOCK;
        len -= TG_SHA256_BLOCK;
    }
    if (len) {
        memcpy(c->block, p, len);
        c->fill = len;
    }
}

void tg_sha256_final(tg_sha256_ctx *c, unsigned char out[TG_SHA256_SIZE]) {
    uint64_t bits = c->bytes * 8;
    c->block[c->fill++] = 0x80;
    if (c->fill > 56) {
        memset(c->block + c->fill, 0, TG_SHA256_BLOCK - c->fill);
        compress(c->h, c->block);
        c->fill = 0;
    }
    memset(c->block + c->fill, 0, 56 - c->fill);
    for (int i = 0; i < 8; i++) c->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    compress(c->h, c->block);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(c->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)c->h[i];
    }
    memset(c, 0, sizeof *c);
}

void tg_sha256(const void *data, size_t len, unsigned char out[TG_SHA256_SIZE]) {
    tg_sha256_ctx c;
    tg_sha256_init(&c);
    tg_sha256_update(&c, data, len);
    tg_sha256_final(&c, out);
}
