/* schema_patterns.c - patternProperties: which patterns a member name
 * meets. A schema with many patterns that each name one property
 * ("^k12$") ran every pattern over every member name, P x N searches a
 * call (1,600 patterns over 16,000 names: 2.6e7, beyond the step budget).
 * Those patterns are indexed by name here once, at compile time; and so are
 * properties whose names were made to collide in their hash table. */
#include <stdlib.h>

#include "schema_internal.h"
#include "../json/json.h"

static int exact_cmp(const void *x, const void *y) {
    const struct tg_sexact *a = x, *b = y;
    int c = tg_json_key_cmp(a->s, a->len, b->s, b->len);
    return c ? c : a->j < b->j ? -1 : a->j > b->j;
}

int tg_spat_index(tg_arena *arena, tg_sprops *P, tg_regex *const *regexes) {
    uint32_t j, ne = 0;
    const char *lit;
    size_t len;
    if (P->n_patterns <= TG_SEXACT_FROM) return 0;
    for (j = 0; j < P->n_patterns; j++) ne += (uint32_t)tg_regex_exact(regexes[P->patterns[j].re], &lit, &len);
    if (!ne) return 0;
    P->exact = tg_arena_alloc(arena, ne * sizeof *P->exact);
    P->others = tg_arena_alloc(arena, (P->n_patterns - ne + 1) * sizeof *P->others);
    if (!P->exact || !P->others) {
        P->exact = NULL;
        return -1;
    }
    P->n_exact = P->n_others = 0;
    for (j = 0; j < P->n_patterns; j++) {
        if (tg_regex_exact(regexes[P->patterns[j].re], &lit, &len)) {
            struct tg_sexact *x = &P->exact[P->n_exact++];
            x->s = lit;
            x->len = len;
            x->j = j;
        } else P->others[P->n_others++] = j;
    }
    qsort(P->exact, P->n_exact, sizeof *P->exact, exact_cmp);
    return 0;
}

/* The first of v[0..n) (sorted by exact_cmp) whose name is not below k. */
static uint32_t lower_bound(const struct tg_sexact *v, uint32_t n, const char *k, size_t kl) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tg_json_key_cmp(v[mid].s, v[mid].len, k, kl) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void tg_spat_begin(tg_spat_it *it, const tg_sprops *P, const char *k, size_t kl) {
    it->P = P;
    it->j = it->oth = it->ex = it->ex_end = 0;
    if (!P->exact) return;
    /* the run of exact patterns naming k: [ex, ex_end) */
    uint32_t lo = lower_bound(P->exact, P->n_exact, k, kl);
    it->ex = it->ex_end = lo;
    while (it->ex_end < P->n_exact && P->exact[it->ex_end].len == kl &&
           (kl == 0 || memcmp(P->exact[it->ex_end].s, k, kl) == 0))
        it->ex_end++;
}

int tg_sprops_sort(tg_arena *arena, tg_sprops *P) {
    P->by_name = tg_arena_alloc(arena, (P->n_props ? P->n_props : 1) * sizeof *P->by_name);
    if (!P->by_name) return -1;
    for (uint32_t x = 0; x < P->n_props; x++) {
        P->by_name[x].s = P->props[x].name.s;
        P->by_name[x].len = P->props[x].name.len;
        P->by_name[x].j = x;
    }
    qsort(P->by_name, P->n_props, sizeof *P->by_name, exact_cmp);
    P->table = NULL;
    return 0;
}

const tg_sprop *tg_sfind_sorted(const tg_sprops *P, const char *k, size_t kl) {
    /* the first entry of that name: the lowest index among equal names, as the table finds */
    uint32_t lo = lower_bound(P->by_name, P->n_props, k, kl);
    if (lo < P->n_props && P->by_name[lo].len == kl && (kl == 0 || memcmp(P->by_name[lo].s, k, kl) == 0))
        return &P->props[P->by_name[lo].j];
    return NULL;
}
