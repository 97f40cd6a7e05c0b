/* hmac.h - HMAC-SHA256 (RFC 2104, test vectors of RFC 4231) and a
 * constant-time comparison for MACs and digests.
 *
 * Keys of any length (longer than a block are hashed first, as the RFC
 * says). No allocation, no global state. */
#ifndef TG_CRYPTO_HMAC_H
#define TG_CRYPTO_HMAC_H

#include <stddef.h>

#include "sha256.h"

typedef struct tg_hmac_sha256_ctx {
    tg_sha256_ctx inner, outer;
} tg_hmac_sha256_ctx;

void tg_hmac_sha256_init(tg_hmac_sha256_ctx *c, const void *key, size_t key_len);
void tg_hmac_sha256_update(tg_hmac_sha256_ctx *c, const void *data, size_t len);
void tg_hmac_sha256_final(tg_hmac_sha256_ctx *c, unsigned char out[TG_SHA256_SIZE]);
void tg_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    unsigned char out[TG_SHA256_SIZE]);

/* 1 when a[0..n) == b[0..n); the time taken depends only on n. */
int tg_ct_equal(const void *a, const void *b, size_t n);

#endif
