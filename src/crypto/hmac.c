/* hmac.c - HMAC-SHA256 over the incremental SHA-256. */
#include "hmac.h"

#include <string.h>

void tg_hmac_sha256_init(tg_hmac_sha256_ctx *c, const void *key, size_t key_len) {
    unsigned char k[TG_SHA256_BLOCK], pad[TG_SHA256_BLOCK];
    memset(k, 0, sizeof k);
    if (key_len > TG_SHA256_BLOCK) tg_sha256(key, key_len, k);
    else if (key_len) memcpy(k, key, key_len);
    for (size_t i = 0; i < TG_SHA256_BLOCK; i++) pad[i] = k[i] ^ 0x36;
    tg_sha256_init(&c->inner);
    tg_sha256_update(&c->inner, pad, sizeof pad);
    for (size_t i = 0; i < TG_SHA256_BLOCK; i++) pad[i] = k[i] ^ 0x5c;
    tg_sha256_init(&c->outer);
    tg_sha256_update(&c->outer, pad, sizeof pad);
    memset(k, 0, sizeof k);
    memset(pad, 0, sizeof pad);
}

void tg_hmac_sha256_update(tg_hmac_sha256_ctx *c, const void *data, size_t len) {
    tg_sha256_update(&c->inner, data, len);
}

void tg_hmac_sha256_final(tg_hmac_sha256_ctx *c, unsigned char out[TG_SHA256_SIZE]) {
    unsigned char ih[TG_SHA256_SIZE];
    tg_sha256_final(&c->inner, ih);
    tg_sha256_update(&c->outer, ih, sizeof ih);
    tg_sha256_final(&c->outer, out);
    memset(ih, 0, sizeof ih);
}

void tg_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    unsigned char out[TG_SHA256_SIZE]) {
    tg_hmac_sha256_ctx c;
    tg_hmac_sha256_init(&c, key, key_len);
    tg_hmac_sha256_update(&c, data, len);
    tg_hmac_sha256_final(&c, out);
}

int tg_ct_equal(const void *a, const void *b, size_t n) {
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++) d |= (unsigned char)(x[i] ^ y[i]);
    return d == 0;
}
