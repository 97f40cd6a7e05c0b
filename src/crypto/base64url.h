/* base64url.h - base64url without padding (RFC 4648 section 5), the
 * encoding of approval tokens; and lowercase hex, the digests' spelling.
 *
 * Decoding is strict: only [A-Za-z0-9_-], no padding, no white space, and
 * the unused low bits of the last character must be zero, so every byte
 * string has exactly one encoding (a token cannot be altered into another
 * spelling that decodes the same). */
#ifndef TG_CRYPTO_BASE64URL_H
#define TG_CRYPTO_BASE64URL_H

#include <stddef.h>

/* Characters needed to encode n bytes (no NUL). */
size_t tg_b64url_encoded_len(size_t n);
/* Writes tg_b64url_encoded_len(n) characters to out (no NUL); returns it. */
size_t tg_b64url_encode(const void *in, size_t n, char *out);
/* Decodes s[0..len) into out (room for len * 3 / 4 bytes). Returns the
 * decoded length, or -1 when s is not canonical base64url. */
long tg_b64url_decode(const char *s, size_t len, unsigned char *out);

/* Writes 2n lowercase hex digits of in[0..n) and a NUL to out. */
void tg_hex_encode(const unsigned char *in, size_t n, char *out);

#endif
