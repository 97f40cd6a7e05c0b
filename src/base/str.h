/* str.h - bounded C-string copies: what snprintf(dst, cap, "%s", src) does,
 * without parsing a format on a path every call takes. */
#ifndef TG_BASE_STR_H
#define TG_BASE_STR_H

#include <stddef.h>
#include <string.h>

/* Copies src into dst[0..cap) (cap > 0), cut to cap - 1 bytes, always
 * NUL-terminated; returns the bytes copied. */
static inline size_t tg_strcopy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}

#endif
