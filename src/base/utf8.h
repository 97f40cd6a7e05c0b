/* utf8.h - UTF-8 decoding as RFC 3629 defines it: no overlongs, no
 * surrogates, nothing above U+10FFFF. */
#ifndef TG_BASE_UTF8_H
#define TG_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one code point at s[0..len). Returns the byte length (1-4) and
 * stores the code point, or returns 0 when the bytes are not valid UTF-8. */
size_t tg_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);
/* Writes cp as UTF-8 into out (4 bytes room); returns the byte length. */
size_t tg_utf8_encode(uint32_t cp, unsigned char *out);
/* Number of code points in valid UTF-8 s[0..len). */
size_t tg_utf8_count(const unsigned char *s, size_t len);
/* Number of UTF-16 code units the same text takes (what a JS string's
 * length counts). */
size_t tg_utf16_length(const unsigned char *s, size_t len);

/* 1 when s[0..len) is valid UTF-8. */
int tg_utf8_valid(const unsigned char *s, size_t len);

#endif
