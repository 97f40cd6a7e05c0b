/* json_index.h - many lookups into the same large JSON containers.
 *
 * tg_json_get scans an object's members and an array's items are reached
 * by walking ->next, so R lookups into a container of M children cost
 * R x M: 8,000 $refs into one $defs of 16,000 ("#/$defs/k..."), or 8,000
 * subschemas each requiring one name of a 16,000-member object, run for
 * seconds. A tg_json_index keeps, per container node, its members sorted
 * by key (tg_json_members_sorted) or its items in an array, made the first
 * time a container of more than TG_JSON_INDEX_FROM children is looked up;
 * each lookup after that is a binary search (an array index for items).
 * Smaller containers are scanned as before: an index would cost more than
 * it saves.
 *
 * Everything lives in the arena given to tg_json_index_init (the caller
 * must not rewind it past that while the index is in use), and the indexed
 * containers must not change while it is (it is keyed by node address).
 * Lookups answer what tg_json_get and the ->next walk answer, duplicate
 * keys included (the first member of that name in document order). When
 * the arena refuses, lookups fall back to the scans. */
#ifndef TG_JSON_INDEX_H
#define TG_JSON_INDEX_H

#include "json.h"

enum { TG_JSON_INDEX_FROM = 16 }; /* children a container has before it is indexed */

typedef struct tg_json_index_slot {
    const cJSON *node;  /* the container, NULL: a free slot */
    const cJSON **v;    /* members by key (first of equal keys in document order) or items in order */
    size_t n;
} tg_json_index_slot;

typedef struct tg_json_index {
    tg_arena *arena;
    tg_json_index_slot *slots; /* open addressing by node address, at most half full */
    size_t cap, n;
    size_t probes;             /* children looked at or keys compared (for tests: the work done) */
} tg_json_index;

void tg_json_index_init(tg_json_index *ix, tg_arena *arena);
/* tg_json_get(obj, key, keylen); ix NULL: that, plainly. */
const cJSON *tg_json_index_get(tg_json_index *ix, const cJSON *obj, const char *key, size_t keylen);
/* arr's item i (0-based), or NULL; ix NULL: the walk. */
const cJSON *tg_json_index_item(tg_json_index *ix, const cJSON *arr, size_t i);
/* tg_json_pointer_ref with its lookups through ix (NULL: plain). */
const cJSON *tg_json_pointer_ref_in(tg_json_index *ix, const cJSON *doc, const char *ref, size_t len);

#endif
