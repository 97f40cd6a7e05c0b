/* json_internal.h - helpers shared by the json module's files only. */
#ifndef TG_JSON_INTERNAL_H
#define TG_JSON_INTERNAL_H

#include "json.h"

/* A length-prefixed, NUL-terminated copy of s[0..len) in the arena. */
char *tg_json__str(tg_arena *a, const char *s, size_t len);
/* cJSON's valueint convention: the double saturated to int. */
int tg_json__saturate(double v);

#endif
