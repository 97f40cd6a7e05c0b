/* schema_props_test.c - tables keyed by a public hash, given keys chosen
 * to collide. A properties table: 2,000 names sharing the low 12 bits of
 * their hashes made one run of 2,000 slots, walked by every lookup; it gives
 * way to a binary search by name, and every reader still finds each name,
 * the first of its name, and nothing else. The compiler's URI table
 * ($id, $anchor): the same run slowed compiling 15x; it gives way to sorted
 * keys, and still resolves each anchor and refuses one defined twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "schema_internal.h"
#include "../json/json.h"
#include "../../tests/tg_test.h"

static const tg_allocator A = {tg_alloc_libc, NULL};

static tg_schema *compile(tg_arena *a, const char *text) {
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    lim.max_bytes = 16u << 20;
    tg_schema *s = NULL;
    cJSON *doc = tg_json_parse(a, text, strlen(text), &lim, &err);
    return doc && tg_schema_compile(&A, doc, NULL, &s, NULL) == 0 ? s : NULL;
}

/* The one pass's verdict (-1 undecided) and the evaluator's on inst. */
static void judge(const tg_schema *s, const char *inst, int *one, int *ev) {
    tg_arena a;
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    lim.max_bytes = 16u << 20;
    tg_arena_init(&a, A);
    *one = tg_schema_check_text(s, inst, strlen(inst), &lim, &a, NULL);
    *ev = tg_schema_validate(s, tg_json_parse(&a, inst, strlen(inst), &lim, &err), &a, TG_OUTPUT_FLAG, 0, NULL);
    tg_arena_free(&a);
}

/* The properties of the program's first properties instruction. */
static const tg_sprops *first_props(const tg_schema *s) {
    for (size_t i = 0; i < s->n_ins; i++)
        if (s->ins[i].op == TG_OP_PROPS) return s->ins[i].u.props;
    return NULL;
}

/* n names "<prefix><i>" whose hashes (of the name after `hashed`, "#" for
 * a URI's fragment) share their low 12 bits, found by trying; malloc'd. */
static char (*colliding(int n, const char *prefix, const char *hashed))[16] {
    char (*names)[16] = malloc((size_t)n * sizeof *names);
    char k[24];
    size_t hl = strlen(hashed);
    memcpy(k, hashed, hl);
    for (unsigned i = 0, found = 0; (int)found < n; i++) {
        int len = snprintf(k + hl, sizeof k - hl, "%s%u", prefix, i);
        if ((tg_shash(k, hl + (size_t)len) & 4095) == 0) memcpy(names[found++], k + hl, (size_t)len + 1);
    }
    return names;
}

static void test_colliding_names(void) {
    enum { N = 2000 };
    char (*names)[16] = colliding(N, "p", "");
    size_t cap = (size_t)N * 40 + 64, o = 0;
    char *schema = malloc(cap), *inst = malloc(cap);
    o += (size_t)snprintf(schema + o, cap - o, "{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < N; i++) o += (size_t)snprintf(schema + o, cap - o, "%s\"%s\":{\"type\":\"integer\"}", i ? "," : "", names[i]);
    snprintf(schema + o, cap - o, "},\"additionalProperties\":{\"type\":\"string\"}}");
    tg_arena a;
    tg_arena_init(&a, A);
    tg_schema *s = compile(&a, schema);
    CHECK(s != NULL);
    const tg_sprops *P = s ? first_props(s) : NULL;
    CHECK(P && P->n_props == N && P->table == NULL && P->by_name != NULL);
    /* every name found (an integer each), in reverse order (no member read
     * by compare in the schema's order): valid in both readers */
    int one, ev;
    o = 0;
    o += (size_t)snprintf(inst + o, cap - o, "{");
    for (int i = N - 1; i >= 0; i--) o += (size_t)snprintf(inst + o, cap - o, "\"%s\":%d%s", names[i], i, i ? "," : "");
    snprintf(inst + o, cap - o, "}");
    judge(s, inst, &one, &ev); /* (the one pass leaves an object of so many keys to the evaluator) */
    CHECK_MSG(one != 0 && ev == 1, "all listed: one pass %d, evaluator %d", one, ev);
    /* a listed name with a string is refused (found); names not listed take additionalProperties */
    char one_bad[64];
    snprintf(one_bad, sizeof one_bad, "{\"%s\":\"x\"}", names[N / 2]);
    judge(s, one_bad, &one, &ev);
    CHECK_MSG(one == 0 && ev == 0, "listed, wrong type: one pass %d, evaluator %d", one, ev);
    judge(s, "{\"p\":\"x\",\"q0\":\"y\",\"\":\"z\"}", &one, &ev);
    CHECK_MSG(one == 1 && ev == 1, "not listed: one pass %d, evaluator %d", one, ev);
    judge(s, "{\"q0\":1}", &one, &ev);
    CHECK_MSG(one == 0 && ev == 0, "not listed, not a string: one pass %d, evaluator %d", one, ev);
    /* a table of ordinary names stays a table */
    tg_schema_free(s);
    s = compile(&a, "{\"properties\":{\"a\":{},\"b\":{},\"c\":{},\"d\":{},\"e\":{},\"f\":{},\"g\":{},\"h\":{},\"i\":{},\"j\":{}}}");
    P = s ? first_props(s) : NULL;
    CHECK(P && P->table != NULL && P->by_name == NULL);
    tg_schema_free(s);
    tg_arena_free(&a);
    free(names);
    free(schema);
    free(inst);
}

/* {"$defs":{"A<i>":{"$anchor":"A<i>","const":i}...},"$ref":"#<target>"}
 * over n anchors whose URIs ("#A<i>") share the low 12 bits of their
 * hashes; dup: the first anchor's name given twice. */
static char *anchors(char (*names)[16], int n, const char *target, int dup) {
    size_t cap = (size_t)n * 64 + 128, o = 0;
    char *t = malloc(cap);
    o += (size_t)snprintf(t + o, cap - o, "{\"$defs\":{");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(t + o, cap - o, "%s\"d%d\":{\"$anchor\":\"%s\",\"const\":%d}", i ? "," : "", i,
                              dup && i == n - 1 ? names[0] : names[i], i);
    snprintf(t + o, cap - o, "},\"$ref\":\"#%s\"}", target);
    return t;
}

static void test_colliding_anchors(void) {
    enum { N = 2000 };
    char (*names)[16] = colliding(N, "A", "#"); /* (the map keys "#A<i>") */
    tg_arena a;
    tg_arena_init(&a, A);
    int one, ev;
    for (int t = 0; t < 3; t++) { /* the first, a middle and the last anchor */
        int at = t == 0 ? 0 : t == 1 ? N / 2 : N - 1;
        char *text = anchors(names, N, names[at], 0), inst[16];
        tg_schema *s = compile(&a, text);
        CHECK_MSG(s != NULL, "anchor %d", at);
        snprintf(inst, sizeof inst, "%d", at);
        if (s) judge(s, inst, &one, &ev);
        CHECK_MSG(s && ev == 1, "#%s holds %d: evaluator %d", names[at], at, ev);
        snprintf(inst, sizeof inst, "%d", at + 1);
        if (s) judge(s, inst, &one, &ev);
        CHECK_MSG(s && ev == 0, "#%s is not %d: evaluator %d", names[at], at + 1, ev);
        tg_schema_free(s);
        free(text);
    }
    /* an anchor defined twice is refused as it is in a table that never gave way */
    char *text = anchors(names, N, names[1], 1);
    tg_buf d;
    tg_buf_init(&d, A, 0);
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    lim.max_bytes = 16u << 20;
    tg_schema *s = NULL;
    CHECK(tg_schema_compile(&A, tg_json_parse(&a, text, strlen(text), &lim, &err), NULL, &s, &d) != 0);
    CHECK_MSG(d.data && strstr(d.data, "identifies two schemas"), "%.*s", (int)d.len, d.data ? d.data : "");
    tg_schema_free(s);
    tg_buf_free(&d);
    free(text);
    tg_arena_free(&a);
    free(names);
}

int main(void) {
    test_colliding_names();
    test_colliding_anchors();
    return tg_test_finish("schema_props");
}
