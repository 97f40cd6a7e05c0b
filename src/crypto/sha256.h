/* sha256.h - SHA-256 (FIPS 180-4), incremental and one-shot.
 *
 * No allocation, no global state: the context lives wherever the caller puts
 * it. Inputs of any length (the bit count wraps past 2^64 bits, as the
 * standard's limit says). */
#ifndef TG_CRYPTO_SHA256_H
#define TG_CRYPTO_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define TG_SHA256_SIZE 32
#define TG_SHA256_BLOCK 64

typedef struct tg_sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;                       /* message length so far */
    unsigned char block[TG_SHA256_BLOCK]; /* pending partial block */
    size_t fill;                          /* bytes in block */
} tg_sha256_ctx;

void tg_sha256_init(tg_sha256_ctx *c);
void tg_sha256_update(tg_sha256_ctx *c, const void *data, size_t len);
/* Writes the digest; the context must be re-initialised before reuse. */
void tg_sha256_final(tg_sha256_ctx *c, unsigned char out[TG_SHA256_SIZE]);
void tg_sha256(const void *data, size_t len, unsigned char out[TG_SHA256_SIZE]);

#endif
