/* regex_bounds_test.c - what compiling a hostile pattern may cost: \p{..}
 * sets decoded once (in a class, and outside classes), the class ranges a
 * pattern keeps bounded by tg_regex_limits.max_ranges. Work is measured by
 * counts (ranges kept, the allocator's peak), never by time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "regex_unicode.h"
#include "../../tests/tg_test.h"

/* Tracks live and peak bytes. */
typedef struct peak {
    long live, peak;
} peak;

static void *peak_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
    peak *c = ud;
    if (nsize == 0) {
        c->live -= (long)osize;
        free(ptr);
        return NULL;
    }
    ptr = realloc(ptr, nsize);
    if (ptr) c->live += (long)nsize - (long)osize;
    if (c->live > c->peak) c->peak = c->live;
    return ptr;
}

static peak g_peak;
static const tg_allocator g_alloc = {peak_fn, &g_peak};

/* Compiles pat with limits (NULL: defaults); the program or NULL, err set. */
static tg_regex *compile(const char *pat, const tg_regex_limits *l, tg_regex_error *err) {
    tg_regex *re = NULL;
    g_peak.peak = g_peak.live;
    if (tg_regex_compile(&g_alloc, pat, strlen(pat), l, &re, err) != 0) return NULL;
    return re;
}

static int matches(const tg_regex *re, const char *s) {
    size_t n = tg_regex_scratch_size(re);
    void *scratch = malloc(n ? n : 1);
    int r = tg_regex_search(re, s, strlen(s), scratch);
    free(scratch);
    return r;
}

static size_t ranges_of(int kind, const char *name) {
    return tg_uprop_count(tg_uprop_lookup(kind, name, strlen(name)));
}

/* [\p{Cn}\p{Cn}...A] within 4 KiB: the set is decoded once, not 666 times
 * (each appended ~700 ranges, 3.7 MB sorted in one qsort). */
static void test_class_decodes_a_repeated_property_once(void) {
    char pat[4100];
    size_t n = 0, i;
    tg_regex_error err;
    tg_regex *re;
    pat[n++] = '[';
    for (i = 0; i < 666; i++) { memcpy(pat + n, "\\p{Cn}", 6); n += 6; }
    memcpy(pat + n, "A]", 3);
    re = compile(pat, NULL, &err);
    CHECK_MSG(re != NULL, "%s", err.message);
    if (!re) return;
    CHECK(tg_regex_range_count(re) <= ranges_of(TG_UPROP_GC, "Cn") + 1);
    CHECK_MSG(g_peak.peak - g_peak.live < 64 * 1024, "peak %ld bytes above the program", g_peak.peak - g_peak.live);
    CHECK(matches(re, "A") && matches(re, "\xcd\xb8") && !matches(re, "B")); /* U+0378 is unassigned */
    tg_regex_free(re);
}

/* \p{..} atoms outside classes, 12 distinct properties in turn (past any
 * small cache): the pattern keeps each set once, not once an atom. */
static void test_pattern_keeps_each_property_once(void) {
    static const char *gc[] = {"L", "Lu", "Ll", "Lo", "Cn", "N", "M", "C", "So", "Mn", "P"};
    char pat[4100];
    size_t n = 0, k, want = ranges_of(TG_UPROP_SCRIPT, "Latn");
    tg_regex_error err;
    tg_regex *re;
    for (k = 0; k < 11; k++) want += ranges_of(TG_UPROP_GC, gc[k]);
    for (k = 0; n < 3900; k++) {
        const char *name = k % 12 == 11 ? "Script=Latn" : gc[k % 12];
        n += (size_t)snprintf(pat + n, sizeof pat - n, "\\%c{%s}", k % 5 == 4 ? 'P' : 'p', name);
    }
    re = compile(pat, NULL, &err);
    CHECK_MSG(re != NULL, "%s", err.message);
    if (!re) return;
    CHECK_MSG(tg_regex_range_count(re) == want, "%zu ranges kept, want %zu", tg_regex_range_count(re), want);
    tg_regex_free(re);
    /* \P{L} shares \p{L}'s ranges, and an alias (Letter) names the same set */
    re = compile("\\p{L}\\P{L}\\p{Letter}[\\p{L}]", NULL, &err);
    CHECK(re && tg_regex_range_count(re) == 2 * ranges_of(TG_UPROP_GC, "L"));
    if (re) CHECK(matches(re, "a1bc") && !matches(re, "abbc"));
    tg_regex_free(re);
}

/* The class ranges one pattern keeps are bounded (max_ranges, default
 * 32,768): 290 classes of [\p{Gr_Base}] would keep 262k (2 MiB). */
static void test_max_ranges(void) {
    tg_regex_limits l = tg_regex_default_limits();
    char pat[4100];
    size_t n = 0;
    tg_regex_error err;
    tg_regex *re;
    CHECK(l.max_ranges == 32768);
    while (n + 15 < 4096) { memcpy(pat + n, "[\\p{Gr_Base}]", 13); n += 13; }
    pat[n] = 0;
    re = compile(pat, NULL, &err);
    CHECK(re == NULL && strstr(err.message, "character classes hold") && strstr(err.message, "over the limit of 32768"));
    CHECK(!err.nomem);
    tg_regex_free(re);
    l.max_ranges = 500;
    re = compile("[\\p{L}]", &l, &err);
    CHECK(re == NULL && strstr(err.message, "over the limit of 500"));
    re = compile("\\p{L}", &l, &err);
    CHECK(re == NULL && strstr(err.message, "over the limit of 500"));
    re = compile("[\\p{Cn}\\p{L}\\p{N}]", &l, &err); /* refused as the class grows too */
    CHECK(re == NULL && strstr(err.message, "over the limit of 500"));
    re = compile("[a-z]\\d\\w", &l, &err); /* \d \w outside classes keep nothing */
    CHECK(re != NULL && tg_regex_range_count(re) == 1);
    tg_regex_free(re);
    CHECK(g_peak.live == 0);
}

int main(void) {
    test_class_decodes_a_repeated_property_once();
    test_pattern_keeps_each_property_once();
    test_max_ranges();
    return tg_test_finish("regex_bounds");
}
