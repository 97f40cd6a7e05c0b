/* blake2s.h - BLAKE2s-256 (RFC 7693), unkeyed, one-shot.
 *
 * The digest of a tool definition: a cryptographic hash (an upstream server
 * must not find a changed definition with its old digest) that costs about
 * half of SHA-256 per byte in wasm, where no SHA instructions exist. No
 * allocation, no global state. */
#ifndef TG_CRYPTO_BLAKE2S_H
#define TG_CRYPTO_BLAKE2S_H

#include <stddef.h>

#define TG_BLAKE2S_SIZE 32

void tg_blake2s(const void *data, size_t len, unsigned char out[TG_BLAKE2S_SIZE]);

#endif
