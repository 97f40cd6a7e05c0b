/* schema_enum.h - enum's values indexed by a hash that agrees with JSON
 * Schema equality (tg_json_equal), so checking one value against an enum
 * costs about one comparison, not one per listed value.
 *
 * Without it a large enum is quadratic in the input: an upstream schema
 * with 50,000 enum values under "items" and a model's 50,000-item argument
 * took 6.4 s to validate, 100,000 of each 15 s. The hash is not secret, so
 * values can be made to collide: every probe past the first is a step of
 * the validation's budget (max_eval_steps), and a build whose values
 * collide too much gives up the index (the enum is then scanned, each
 * comparison a step): the worst case is a bounded error, never a stall. */
#ifndef TG_SCHEMA_ENUM_H
#define TG_SCHEMA_ENUM_H

#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"
#include "../json/json.h"

/* Enums of at most this many values are scanned (as fast, and no table). */
#define TG_SENUM_SCAN_MAX 16

/* An enum's table (schema_enum.c), in the schema's arena. */
typedef struct tg_senum tg_senum;

/* The hash of v, equal for values tg_json_equal holds equal: numbers by
 * their double (-0 as 0), objects whatever their members' order. */
uint64_t tg_svalue_hash(const cJSON *v);
/* tg_svalue_hash of a string whose (unescaped) bytes are s[0..len). */
uint64_t tg_svalue_hash_str(const char *s, size_t len);
/* tg_svalue_hash of true, false or null (cJSON_True, cJSON_False, cJSON_NULL). */
uint64_t tg_svalue_hash_lit(int type);

/* The index of enum's values (a JSON array), in a; NULL when the enum has
 * at most TG_SENUM_SCAN_MAX values, when a is out of memory, or when its
 * values collide so much that the table would cost more than a scan (more
 * than 8 probes a value, on average, to place them). */
const tg_senum *tg_senum_build(tg_arena *a, const cJSON *list);

/* 1 when the index holds a value equal to v (tg_json_equal_in, which
 * uses scratch), else 0. Adds to *steps one per probe past the first. */
int tg_senum_has(const tg_senum *ix, const cJSON *v, tg_arena *scratch, size_t *steps);
/* The same for a string given as its unescaped bytes, and for a literal. */
int tg_senum_has_str(const tg_senum *ix, const char *s, size_t len, size_t *steps);
int tg_senum_has_lit(const tg_senum *ix, int type, size_t *steps);

#endif
