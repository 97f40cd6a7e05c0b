/* schema_enum.c - enum's values indexed by a hash that agrees with JSON
 * Schema equality (schema_enum.h). */
#include <string.h>

#include "schema_enum.h"
#include "schema_internal.h"

typedef struct tg_senum_slot {
    uint64_t h;
    const cJSON *v; /* NULL: empty */
} tg_senum_slot;

struct tg_senum {
    tg_senum_slot *slots;
    size_t mask; /* slots - 1, a power of two minus one */
};

#define TYPE_SEED(type) ((uint64_t)(type) * 0x9E3779B97F4A7C15ull)

/* Every bit of x moves every bit of the result (MurmurHash3's fmix64): a
 * number's bits or a product's low bits alone leave integers (whose doubles
 * end in zero bits) in one bucket. */
static uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    return x ^ (x >> 33);
}

uint64_t tg_svalue_hash_str(const char *s, size_t len) {
    return mix64(TYPE_SEED(cJSON_String) ^ tg_shash(s, len));
}

uint64_t tg_svalue_hash_lit(int type) { return TYPE_SEED(type); }

uint64_t tg_svalue_hash(const cJSON *v) {
    uint64_t h = TYPE_SEED(v->type & 0xFF);
    const cJSON *c;
    if (tg_sj_IsNumber(v)) {
        double d = v->valuedouble;
        uint64_t bits;
        if (d == 0) d = 0; /* -0 == 0 */
        memcpy(&bits, &d, sizeof bits);
        return mix64(h ^ bits);
    }
    if (tg_sj_IsString(v)) return tg_svalue_hash_str(v->valuestring, tg_json_strlen(v->valuestring));
    if (tg_sj_IsArray(v)) {
        for (c = v->child; c; c = c->next) h = mix64(h ^ tg_svalue_hash(c));
        return h;
    }
    if (tg_sj_IsObject(v)) {
        uint64_t sum = 0;
        for (c = v->child; c; c = c->next) sum += mix64(tg_shash(c->string, tg_json_strlen(c->string)) ^ tg_svalue_hash(c));
        return mix64(h ^ sum);
    }
    return h; /* true, false, null */
}

const tg_senum *tg_senum_build(tg_arena *a, const cJSON *list) {
    size_t n = 0, cap, probes = 0, j;
    const cJSON *it;
    tg_senum *ix;
    for (it = list->child; it; it = it->next) n++;
    if (n <= TG_SENUM_SCAN_MAX) return NULL;
    for (cap = 32; cap < n * 2; cap *= 2) {}
    tg_arena_mark am = tg_arena_save(a);
    ix = tg_arena_alloc(a, sizeof *ix);
    if (!ix || !(ix->slots = tg_arena_calloc(a, cap, sizeof *ix->slots))) return NULL;
    ix->mask = cap - 1;
    for (it = list->child; it; it = it->next) {
        uint64_t h = tg_svalue_hash(it);
        for (j = (size_t)h & ix->mask; ix->slots[j].v; j = (j + 1) & ix->mask)
            if (++probes > 8 * n) { /* made to collide: scanned instead */
                tg_arena_rewind(a, am);
                return NULL;
            }
        ix->slots[j].h = h;
        ix->slots[j].v = it;
    }
    return ix;
}

/* The slots holding hash h, from its bucket to the first empty slot:
 * EACH_CANDIDATE(ix, h, steps, slot) { ... }, *steps counting the probes
 * past the first. */
#define EACH_CANDIDATE(ix, h, steps, sl)                                                        \
    for (size_t j_ = (size_t)(h) & (ix)->mask; ((sl) = &(ix)->slots[j_])->v; j_ = (j_ + 1) & (ix)->mask, ++*(steps)) \
        if ((sl)->h == (h))

int tg_senum_has(const tg_senum *ix, const cJSON *v, tg_arena *scratch, size_t *steps) {
    const uint64_t h = tg_svalue_hash(v);
    const tg_senum_slot *sl;
    EACH_CANDIDATE(ix, h, steps, sl) {
        if (tg_json_equal_in(sl->v, v, scratch, 0)) return 1;
    }
    return 0;
}

int tg_senum_has_str(const tg_senum *ix, const char *s, size_t len, size_t *steps) {
    const uint64_t h = tg_svalue_hash_str(s, len);
    const tg_senum_slot *sl;
    EACH_CANDIDATE(ix, h, steps, sl) {
        if ((sl->v->type & 0xFF) == cJSON_String && tg_json_strlen(sl->v->valuestring) == len &&
            tg_json_same_bytes(sl->v->valuestring, s, len))
            return 1;
    }
    return 0;
}

int tg_senum_has_lit(const tg_senum *ix, int type, size_t *steps) {
    const uint64_t h = tg_svalue_hash_lit(type);
    const tg_senum_slot *sl;
    EACH_CANDIDATE(ix, h, steps, sl) {
        if ((sl->v->type & 0xFF) == type) return 1;
    }
    return 0;
}
