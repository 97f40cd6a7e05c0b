/* json_test.c - the strict reader and canonical writer, case by case. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "json.h"
#include "json_index.h"
#include "../../tests/tg_test.h"

static tg_allocator libc_alloc = {tg_alloc_libc, NULL};

static cJSON *parse(tg_arena *a, const char *s, tg_json_error *err) {
    return tg_json_parse(a, s, strlen(s), NULL, err);
}

/* in written by `write` is expect. */
static void written(const char *in, const char *expect, int (*write)(tg_buf *, const cJSON *)) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    cJSON *d = parse(&a, in, &err);
    CHECK_MSG(d != NULL, "%s: %s", in, err.message);
    if (d) {
        tg_buf b;
        tg_buf_init(&b, libc_alloc, 0);
        CHECK(write(&b, d) == 0);
        CHECK_STR(b.data, expect);
        tg_buf_free(&b);
    }
    tg_arena_free(&a);
}

static void roundtrip(const char *in, const char *expect) { written(in, expect, tg_json_write); }
static void sorted(const char *in, const char *expect) { written(in, expect, tg_json_write_sorted); }

static void rejects(const char *in, tg_json_status st, size_t offset, const char *msg_part) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    CHECK_MSG(parse(&a, in, &err) == NULL, "accepted %s", in);
    CHECK_MSG(err.status == st, "%s: status %d", in, (int)err.status);
    CHECK_MSG(err.offset == offset, "%s: offset %zu, expected %zu", in, err.offset, offset);
    CHECK_MSG(strstr(err.message, msg_part) != NULL, "%s: message '%s'", in, err.message);
    tg_arena_free(&a);
}

static int integer(const char *num) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    cJSON *d = parse(&a, num, &err);
    int r = d ? tg_json_is_integer(d) : -1;
    tg_arena_free(&a);
    return r;
}

static int equal(const char *x, const char *y) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    int r = tg_json_equal(parse(&a, x, &err), parse(&a, y, &err));
    tg_arena_free(&a);
    return r;
}

static int same(const char *x, const char *y) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    cJSON *dx = parse(&a, x, &err), *dy = parse(&a, y, &err);
    int r = tg_json_same(dx, dy);
    /* a clone is the same document */
    if (dx && !tg_json_same(dx, tg_json_clone(&a, dx))) r = -1;
    tg_arena_free(&a);
    return r;
}

/* tg_json_same: the same text to the byte, where tg_json_equal is JSON
 * Schema's equality (the registry tells an unchanged re-listing by it) */
static void sameness(void) {
    CHECK(same("{\"a\":[1,\"x\",{\"b\":null}],\"c\":true}", " { \"a\" : [ 1 , \"x\" , { \"b\" : null } ] , \"c\" : true } ") == 1);
    CHECK(same("{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}") == 0); /* order: equal, not the same */
    CHECK(equal("{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}") == 1);
    CHECK(same("[1]", "[1.0]") == 0 && equal("[1]", "[1.0]") == 1); /* lexemes */
    CHECK(same("\"a\\u0000b\"", "\"a\\u0000c\"") == 0);       /* past a NUL */
    CHECK(same("\"a\\u0000b\"", "\"a\\u0000b\"") == 1);
    CHECK(same("\"\\u00e9\"", "\"\xc3\xa9\"") == 1);             /* the value, not the escape */
    CHECK(same("[1,2]", "[1,2,3]") == 0 && same("{\"a\":1}", "{\"a\":1,\"b\":1}") == 0);
    CHECK(same("{\"a\":1}", "{\"b\":1}") == 0 && same("[true]", "[false]") == 0 && same("null", "{}") == 0);
    CHECK(tg_json_same(NULL, NULL) == 1);
}

static void canonical_writing(void) {
    roundtrip(" { \"a\" : [ 1 , 2.50 , -0 , 1E+400 ] , \"b\" : null } ", "{\"a\":[1,2.50,-0,1E+400],\"b\":null}");
    roundtrip("\"\\u00e9\\n\\u0001\\/\\\"\"", "\"\xc3\xa9\\n\\u0001/\\\"\"");
    roundtrip("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\"");
    roundtrip("{\"z\":1,\"a\":2}", "{\"z\":1,\"a\":2}"); /* document order kept */
    roundtrip("[true,false,{}]", "[true,false,{}]");
    /* sorted: the same text whatever order a writer chose, at any depth */
    sorted("{\"b\":1,\"a\":{\"d\":[{\"z\":1,\"y\":2}],\"c\":2}}", "{\"a\":{\"c\":2,\"d\":[{\"y\":2,\"z\":1}]},\"b\":1}");
    sorted("{\"ab\":1,\"a\":2,\"\":3,\"\u00e9\":4,\"B\":5}", "{\"\":3,\"B\":5,\"a\":2,\"ab\":1,\"\xc3\xa9\":4}");
    sorted("{\"a\":1,\"b\":[2,1]}", "{\"a\":1,\"b\":[2,1]}"); /* arrays keep their order */
    sorted("{\"t\":0,\"s\":0,\"r\":0,\"q\":0,\"p\":0,\"o\":0,\"n\":0,\"m\":0,\"l\":0,\"k\":0,\"j\":0,\"i\":0,"
           "\"h\":0,\"g\":0,\"f\":0,\"e\":0,\"d\":0,\"c\":0,\"b\":0,\"a\":0}", /* more members than the stack holds */
           "{\"a\":0,\"b\":0,\"c\":0,\"d\":0,\"e\":0,\"f\":0,\"g\":0,\"h\":0,\"i\":0,\"j\":0,\"k\":0,\"l\":0,"
           "\"m\":0,\"n\":0,\"o\":0,\"p\":0,\"q\":0,\"r\":0,\"s\":0,\"t\":0}");
}

static void strictness(void) {
    rejects("", TG_JSON_SYNTAX, 0, "empty input");
    rejects("[1,]", TG_JSON_SYNTAX, 3, "expected a JSON value");
    rejects("-01", TG_JSON_SYNTAX, 2, "leading zeros");
    rejects("2.", TG_JSON_SYNTAX, 2, "after the decimal point");
    rejects("[2.e3]", TG_JSON_SYNTAX, 3, "after the decimal point");
    rejects("\"a\tb\"", TG_JSON_SYNTAX, 2, "raw control character");
    rejects("\"\\u12G4\"", TG_JSON_SYNTAX, 1, "four hex digits");
    rejects("\f[]", TG_JSON_SYNTAX, 0, "byte 0x0C");
    rejects("\xef\xbb\xbf{}", TG_JSON_SYNTAX, 0, "byte 0xEF");
    rejects("[\"\xc0\xaf\"]", TG_JSON_UTF8, 2, "invalid UTF-8");
    rejects("\"\\udc00\"", TG_JSON_UTF8, 1, "lone low surrogate");
    rejects("\"\\ud800x\"", TG_JSON_UTF8, 1, "without a low surrogate");
    rejects("{} x", TG_JSON_SYNTAX, 3, "end of input");
    rejects("nul", TG_JSON_SYNTAX, 0, "a JSON value");
    rejects("{\"a\" 1}", TG_JSON_SYNTAX, 5, "':'");
}

static void duplicate_keys(void) {
    rejects("{\"a\":1,\"b\":2,\"a\":3}", TG_JSON_DUPLICATE_KEY, 0, "duplicate key \"a\"");
    /* the hash path (more than 12 keys) and keys that differ only after a NUL */
    char big[512] = "{";
    for (int i = 0; i < 30; i++) snprintf(big + strlen(big), sizeof big - strlen(big), "\"k%d\":%d,", i, i);
    strcat(big, "\"k7\":0}");
    rejects(big, TG_JSON_DUPLICATE_KEY, 0, "duplicate key \"k7\"");
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    cJSON *d = parse(&a, "{\"a\\u0000b\":1,\"a\\u0000c\":2,\"a\":3}", &err);
    CHECK_MSG(d != NULL, "%s", err.message);
    CHECK(d && tg_json_get(d, "a\0c", 3) && tg_json_get(d, "a\0c", 3)->valueint == 2);
    CHECK(d && tg_json_get(d, "a", 1) && tg_json_get(d, "a", 1)->valueint == 3);
    CHECK(d && tg_json_strlen(d->child->string) == 3);
    rejects("{\"a\\u0000b\":1,\"a\\u0000b\":2}", TG_JSON_DUPLICATE_KEY, 0, "duplicate key \"a?b\"");
    tg_json_limits lim = tg_json_default_limits();
    lim.allow_duplicate_keys = 1;
    CHECK(tg_json_parse(&a, "{\"a\":1,\"a\":2}", 13, &lim, &err) != NULL);
    tg_arena_free(&a);
}

/* FNV-1a 64, the reader's key hash (json_read.c), to choose keys that
 * share its low bits: the table gives way to a sort, which must name the
 * same key the table would (of the keys repeating an earlier one, the
 * first in the document). */
static uint64_t fnv(const char *k, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
    return h;
}

static void duplicate_keys_made_to_collide(void) {
    enum { N = 3000 }; /* (a table of 8,192 slots: 13 low bits alike) */
    char (*keys)[16] = malloc(N * sizeof *keys);
    int found = 0;
    for (unsigned i = 0; found < N; i++) {
        char k[16];
        int n = snprintf(k, sizeof k, "c%u", i);
        if ((fnv(k, (size_t)n) & 8191) == 0) memcpy(keys[found++], k, (size_t)n + 1);
    }
    size_t cap = (size_t)N * 24 + 256, o;
    char *text = malloc(cap);
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    /* distinct: read, every member kept */
    o = (size_t)snprintf(text, cap, "{");
    for (int i = 0; i < N; i++) o += (size_t)snprintf(text + o, cap - o, "%s\"%s\":%d", i ? "," : "", keys[i], i);
    snprintf(text + o, cap - o, "}");
    cJSON *d = tg_json_parse(&a, text, strlen(text), &lim, &err);
    CHECK_MSG(d != NULL, "%s", err.message);
    CHECK(d && tg_json_get(d, keys[N - 1], strlen(keys[N - 1])) && tg_json_get(d, keys[N - 1], strlen(keys[N - 1]))->valueint == N - 1);
    /* repeats: keys[500] again at 2,000, and keys[7] twice later; the first
     * repeat in the document is keys[500]'s */
    o = (size_t)snprintf(text, cap, "{");
    for (int i = 0; i < N; i++) {
        const char *k = i == 2000 ? keys[500] : i == 2500 || i == 2600 ? keys[7] : keys[i];
        o += (size_t)snprintf(text + o, cap - o, "%s\"%s\":%d", i ? "," : "", k, i);
    }
    snprintf(text + o, cap - o, "}");
    char want[64];
    snprintf(want, sizeof want, "duplicate key \"%s\"", keys[500]);
    CHECK(tg_json_parse(&a, text, strlen(text), &lim, &err) == NULL && err.status == TG_JSON_DUPLICATE_KEY);
    CHECK_MSG(strstr(err.message, want) != NULL, "%s", err.message);
    tg_arena_free(&a);
    free(keys);
    free(text);
}

static void limits(void) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    lim.max_depth = 3;
    CHECK(tg_json_parse(&a, "[[[1]]]", 7, &lim, &err) != NULL);
    CHECK(tg_json_parse(&a, "[[[[1]]]]", 9, &lim, &err) == NULL && err.status == TG_JSON_DEPTH && err.offset == 3);
    lim.max_depth = 256;
    lim.max_bytes = 8;
    CHECK(tg_json_parse(&a, "[1,2,3,4,5]", 11, &lim, &err) == NULL && err.status == TG_JSON_TOO_LARGE);
    tg_arena_free(&a);
    /* ten million open brackets: refused at the depth limit, promptly */
    size_t n = 10000000;
    char *deep = malloc(n);
    memset(deep, '[', n);
    clock_t t0 = clock();
    tg_arena_init(&a, libc_alloc);
    CHECK(tg_json_parse(&a, deep, n, NULL, &err) == NULL && err.status == TG_JSON_DEPTH && err.offset == 256);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_MSG(secs < tg_test_seconds(0.5), "took %.3f s", secs);
    CHECK(a.used < 64 * 1024);
    tg_arena_free(&a);
    free(deep);
}

static void numbers(void) {
    CHECK(integer("1") == 1);
    CHECK(integer("-0") == 1);
    CHECK(integer("1.0") == 1);
    CHECK(integer("1.50e1") == 1);
    CHECK(integer("1e400") == 1);
    CHECK(integer("12300e-2") == 1);
    CHECK(integer("1.5") == 0);
    CHECK(integer("1e-400") == 0);
    CHECK(integer("0.0e-999") == 1);
    CHECK(integer("123e-3") == 0);
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    cJSON *big = parse(&a, "123456789012345678901234567890", &err);
    CHECK(big && isfinite(big->valuedouble) && big->valuedouble > 1.2e29);
    cJSON *huge = parse(&a, "-1e400", &err);
    CHECK(huge && isinf(huge->valuedouble) && huge->valuedouble < 0);
    CHECK(huge && strcmp(huge->valuestring, "-1e400") == 0);
    tg_arena_free(&a);
}

static void equality(void) {
    CHECK(equal("1", "1.0"));
    CHECK(equal("{\"a\":1,\"b\":[1,2]}", "{\"b\":[1,2.0],\"a\":1}"));
    CHECK(!equal("[1,2]", "[2,1]"));
    CHECK(!equal("\"a\\u0000b\"", "\"a\\u0000c\""));
    CHECK(!equal("0", "false"));
    CHECK(!equal("{\"a\":1}", "{\"a\":1,\"b\":2}"));
    /* numbers by exact value, not by double */
    CHECK(!equal("9007199254740993", "9007199254740992"));
    CHECK(!equal("1234567890123456789", "1234567890123456800"));
    CHECK(!equal("0.1", "0.10000000000000000001"));
    CHECK(equal("9007199254740993", "9007199254740993.000"));
    CHECK(equal("9007199254740993", "90071992547409930e-1"));
    CHECK(equal("1e400", "10E399"));
    CHECK(!equal("1e400", "-1e400"));
    CHECK(!equal("1e400", "2e400"));
    CHECK(equal("-0", "0.0e7"));
    CHECK(equal("100", "1e2"));
    CHECK(equal("0.00012", "1.2e-4"));
    CHECK(!equal("12", "1.2"));
    CHECK(equal("[9007199254740993]", "[9.007199254740993e15]"));
}

/* References into one document, read as the schema compiler reads them
 * (RFC 6901 section 6): percent-decoding comes before the split at '/'. */
static void pointers(void) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    const char *doc = "{\"a\":{\"b\":1},\"a/b\":2,\"%\":3,\"~\":4,\"l\":[5,6],\"~x\":7}";
    tg_json_error e;
    cJSON *d = tg_json_parse(&a, doc, strlen(doc), NULL, &e);
    static const struct { const char *ref; double want; } cases[] = {
        {"#/a/b", 1}, {"#/a%2Fb", 1}, {"#/a~1b", 2}, {"#/a%7E1b", 2}, {"#/a%7e1b", 2}, {"#/%25", 3},
        {"#/~0", 4}, {"#/%7E0", 4}, {"#/l/1", 6}, {"#/l%2F0", 5}, {"#/~x", 7},
    };
    for (size_t i = 0; d && i < sizeof cases / sizeof cases[0]; i++) {
        const cJSON *n = tg_json_pointer_ref(d, cases[i].ref, strlen(cases[i].ref));
        CHECK_MSG(n && cJSON_IsNumber(n) && n->valuedouble == cases[i].want, "%s", cases[i].ref);
    }
    static const char *none[] = {"#/a%2", "#/a%zz", "#/a%2Fc", "#/l/2", "#/l/x", "a", "#a", "#/%"};
    for (size_t i = 0; d && i < sizeof none / sizeof none[0]; i++)
        CHECK_MSG(tg_json_pointer_ref(d, none[i], strlen(none[i])) == NULL, "%s", none[i]);
    CHECK(d && tg_json_pointer_ref(d, "#", 1) == d);
    tg_arena_free(&a);
}

static void building(void) {
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    cJSON *o = tg_json_new(&a, cJSON_Object);
    cJSON *s = tg_json_new_string(&a, "x\"y", 3);
    tg_json_set_key(&a, s, "k", 1);
    tg_json_append(o, s);
    cJSON *n = tg_json_new_number(&a, 0.5);
    tg_json_set_key(&a, n, "n", 1);
    tg_json_append(o, n);
    cJSON *i = tg_json_new_number(&a, 3);
    tg_json_set_key(&a, i, "i", 1);
    tg_json_append(o, i);
    cJSON *c = tg_json_clone(&a, o);
    tg_buf b;
    tg_buf_init(&b, libc_alloc, 0);
    tg_json_write(&b, c);
    CHECK_STR(b.data, "{\"k\":\"x\\\"y\",\"n\":0.5,\"i\":3}");
    CHECK(cJSON_GetArraySize(c) == 3); /* cJSON's own readers work on our nodes */
    tg_buf_free(&b);
    tg_buf_init(&b, libc_alloc, 4);
    CHECK(tg_json_write(&b, c) == -1 && b.failed);
    tg_buf_free(&b);
    tg_arena_free(&a);
}

/* Every allocation of a parse fails in turn: an error, never a crash or leak. */
typedef struct failing {
    int countdown;
} failing;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    failing *f = ud;
    if (nsize && f->countdown-- <= 0) return NULL;
    return tg_alloc_libc(NULL, ptr, osize, nsize);
}

static void allocation_failures(void) {
    const char *doc = "{\"a\":[1,2,{\"b\":\"\\u00e9x\"}],\"c\":\"d\",\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,"
                      "\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k10\":10,\"k11\":11}";
    int ok_at = -1;
    for (int n = 0; n < 100 && ok_at < 0; n++) {
        failing f = {n};
        tg_allocator al = {failing_alloc, &f};
        tg_arena a;
        tg_arena_init(&a, al);
        tg_json_error err;
        cJSON *d = tg_json_parse(&a, doc, strlen(doc), NULL, &err);
        if (d) ok_at = n;
        else CHECK_MSG(err.status == TG_JSON_NOMEM, "failure %d gave status %d", n, (int)err.status);
        tg_arena_free(&a);
    }
    CHECK(ok_at > 0);
}

/* tg_json_write_split writes what tg_json_write and tg_json_write_sorted
 * write, in one walk: the document's text, and its members in key order,
 * each as the sorted writer writes it; a buffer that refuses is an error. */
static void split_writing(void) {
    static const char *const DOCS[] = {
        "{}",
        "{\"b\":1,\"a\":{\"d\":[{\"z\":1,\"y\":2}],\"c\":2}}",
        "{\"ab\":1,\"a\":2,\"\":3,\"\u00e9\":4,\"B\":5,\"a\\u0000\":[[{\"y\":{},\"x\":[]}]]}",
        "{\"z\":{\"t\":0,\"s\":0,\"r\":0,\"q\":0,\"p\":0,\"o\":0,\"n\":0,\"m\":0,\"l\":0,\"k\":0,\"j\":0,"
        "\"i\":0,\"h\":0,\"g\":0,\"f\":0,\"e\":0,\"d\":0,\"c\":0,\"b\":0,\"a\":{\"2\":\"x\\\"y\",\"1\":null}},"
        "\"y\":[1,\"a\\n\",true,{\"q\":1}],\"x\":{\"only\":{\"b\":1,\"a\":2}}}",
    };
    for (size_t i = 0; i < sizeof DOCS / sizeof DOCS[0]; i++) {
        tg_arena a;
        tg_arena_init(&a, libc_alloc);
        tg_json_error err;
        cJSON *d = parse(&a, DOCS[i], &err);
        CHECK_MSG(d != NULL, "%s: %s", DOCS[i], err.message);
        if (!d) continue;
        tg_buf doc, sorted, want, joined;
        tg_buf_init(&doc, libc_alloc, 0);
        tg_buf_init(&sorted, libc_alloc, 0);
        tg_buf_init(&want, libc_alloc, 0);
        tg_buf_init(&joined, libc_alloc, 0);
        tg_json_span span[8];
        CHECK(tg_json_write_split(&doc, &sorted, d, span) == 0);
        tg_json_write(&want, d);
        CHECK_STR(doc.data, want.data);
        tg_buf_reset(&want);
        tg_json_write_sorted(&want, d);
        /* the members, joined, are the sorted text; each value its own */
        tg_buf_append(&joined, "{", 1);
        size_t n = (size_t)cJSON_GetArraySize(d);
        for (size_t k = 0; k < n; k++) {
            if (k) tg_buf_append(&joined, ",", 1);
            tg_buf_append(&joined, sorted.data + span[k].at, span[k].end - span[k].at);
            tg_buf v;
            tg_buf_init(&v, libc_alloc, 0);
            tg_json_write_sorted(&v, span[k].member);
            CHECK(span[k].end - span[k].val == v.len && memcmp(sorted.data + span[k].val, v.data, v.len) == 0);
            tg_buf_free(&v);
        }
        tg_buf_append(&joined, "}", 1);
        CHECK_STR(joined.data, want.data);
        tg_buf_free(&doc);
        tg_buf_free(&sorted);
        tg_buf_free(&want);
        tg_buf_free(&joined);
        tg_arena_free(&a);
    }
    /* every allocation failing in turn: -1, never a crash or a leak */
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_json_error err;
    cJSON *d = parse(&a, DOCS[3], &err);
    int ok_at = -1;
    for (int n = 0; n < 100 && ok_at < 0 && d; n++) {
        failing f = {n};
        tg_allocator al = {failing_alloc, &f};
        tg_buf doc, sorted;
        tg_buf_init(&doc, al, 0);
        tg_buf_init(&sorted, al, 0);
        tg_json_span span[3];
        if (tg_json_write_split(&doc, &sorted, d, span) == 0) ok_at = n;
        tg_buf_free(&doc);
        tg_buf_free(&sorted);
    }
    CHECK(ok_at > 0);
    tg_arena_free(&a);
}

/* Keys and values of up to 16 bytes take a short way (tested a word at a
 * time): whatever byte sits wherever in them, and however full the
 * buffer, what is written is what tg_json_write_string writes. */
static void short_strings(void) {
    static const char SPECIAL[] = {'"', '\\', '\n', 0x01, 0x1F, 0x7F, (char)0xC3, (char)0xFF, 'a'};
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    for (size_t len = 0; len <= 18; len++)
        for (size_t at = 0; at < (len ? len : 1); at++)
            for (size_t k = 0; k < sizeof SPECIAL; k++) {
                char s[20];
                memset(s, 'x', sizeof s);
                if (len) s[at] = SPECIAL[k];
                cJSON *v = tg_json_new_string(&a, s, len);
                tg_buf want, got;
                tg_buf_init(&want, libc_alloc, 0);
                tg_json_write_string(&want, s, len);
                /* after p bytes of a 256-byte buffer (room to spare, then
                 * less than a word's), with no cap or one it meets or passes */
                for (size_t p = 200; p < 256; p += 3)
                    for (size_t over = 0; over < 3; over++) {
                        tg_buf_init(&got, libc_alloc, 0);
                        char pad[256];
                        memset(pad, '-', sizeof pad);
                        tg_buf_append(&got, pad, 255);
                        tg_buf_reset(&got);
                        tg_buf_append(&got, pad, p);
                        got.max = over == 0 ? 0 : over == 1 ? p + want.len : p + want.len - 1;
                        int rc = tg_json_write(&got, v);
                        CHECK_MSG(rc == (over == 2 ? -1 : 0), "len %zu at %zu byte %02x", len, at, (unsigned char)SPECIAL[k]);
                        if (!rc)
                            CHECK_MSG(got.len == p + want.len && memcmp(got.data + p, want.data, want.len) == 0 &&
                                          got.data[got.len] == '\0',
                                      "len %zu at %zu byte %02x", len, at, (unsigned char)SPECIAL[k]);
                        tg_buf_free(&got);
                    }
                tg_buf_free(&want);
            }
    tg_arena_free(&a);
}

/* Whatever bytes a string holds, what is written is strict JSON: a byte
 * that starts no valid UTF-8 sequence becomes U+FFFD; valid text is kept. */
static void strings_of_any_bytes(void) {
    static const struct { const char *in; size_t len; const char *out; } C[] = {
        {"a\xff", 2, "\"a\xef\xbf\xbd\""},
        {"oops \xff\xfe", 7, "\"oops \xef\xbf\xbd\xef\xbf\xbd\""},
        {"caf\xc3\xa9 \"x\"", 9, "\"caf\xc3\xa9 \\\"x\\\"\""},
        {"\xc3", 1, "\"\xef\xbf\xbd\""},                       /* a sequence cut short */
        {"\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* a surrogate */
        {"\xc0\xaf\n", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\\n\""},   /* an overlong */
        {"\xf0\x9f\x98\x80 ok", 7, "\"\xf0\x9f\x98\x80 ok\""},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        tg_buf b;
        tg_buf_init(&b, libc_alloc, 0);
        CHECK(tg_json_write_string(&b, C[i].in, C[i].len) == 0);
        CHECK_STR(b.data, C[i].out);
        CHECK(tg_json_string_size(C[i].in, C[i].len) == b.len);
        tg_arena a;
        tg_arena_init(&a, libc_alloc);
        tg_json_error err;
        CHECK_MSG(parse(&a, b.data, &err) != NULL, "case %zu: %s", i, err.message);
        tg_arena_free(&a);
        tg_buf_free(&b);
    }
}

/* tg_json_string_size is the length tg_json_write_string writes, for
 * every kind of byte: generated strings of escapes, controls, non-ASCII,
 * bytes that start no valid sequence, in runs long and short (the 8-byte
 * scan and the byte loop). */
static void string_sizes(void) {
    static const char *const PIECES[] = {"a", "plain text ", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f",
                                         "\xc3\xa9", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\xff", "\xc3", "\xed\xa0\x80",
                                         "0123456789abcdef"};
    enum { NP = sizeof PIECES / sizeof PIECES[0] };
    uint32_t seed = 7;
    char s[600];
    for (int round = 0; round < 2000; round++) {
        size_t len = 0;
        int parts = 1 + round % 40;
        for (int k = 0; k < parts; k++) {
            seed = seed * 1664525u + 1013904223u;
            const char *p = PIECES[(seed >> 16) % NP];
            size_t pl = strlen(p);
            if (len + pl > sizeof s) break;
            memcpy(s + len, p, pl);
            len += pl;
        }
        tg_buf b;
        tg_buf_init(&b, libc_alloc, 0);
        CHECK(tg_json_write_string(&b, s, len) == 0);
        CHECK_MSG(tg_json_string_size(s, len) == b.len, "round %d: %zu, written %zu", round, tg_json_string_size(s, len), b.len);
        tg_buf_free(&b);
    }
    CHECK(tg_json_string_size("", 0) == 2);
}

/* tg_json_index answers what tg_json_get and the ->next walk answer
 * (duplicate keys: the first in document order; absent keys; items past
 * the end), and many lookups into one large container cost a binary search
 * each, not a scan: 2,000 lookups into 4,000 members took 4 million
 * comparisons by scanning. */
static void indexes(void) {
    enum { M = 4000 };
    tg_arena a;
    tg_arena_init(&a, libc_alloc);
    tg_buf b;
    tg_buf_init(&b, libc_alloc, 0);
    /* keys of one length and first byte (each comparison a memcmp), the
     * last ones named twice, and an array of M items */
    tg_buf_puts(&b, "{\"o\":{");
    for (int i = 0; i < M; i++) tg_buf_printf(&b, "%s\"k%05d\":%d", i ? "," : "", i, i);
    for (int i = M - 5; i < M; i++) tg_buf_printf(&b, ",\"k%05d\":-1", i);
    tg_buf_puts(&b, "},\"a\":[");
    for (int i = 0; i < M; i++) tg_buf_printf(&b, "%s%d", i ? "," : "", i);
    tg_buf_puts(&b, "],\"s\":{\"x\":1,\"x\":2}}");
    tg_json_limits lim = tg_json_default_limits();
    lim.allow_duplicate_keys = 1;
    tg_json_error err;
    cJSON *d = tg_json_parse(&a, b.data, b.len, &lim, &err);
    CHECK_MSG(d != NULL, "%s", err.message);
    if (!d) goto out;
    const cJSON *o = tg_json_getz(d, "o"), *arr = tg_json_getz(d, "a");
    tg_arena ia;
    tg_arena_init(&ia, libc_alloc);
    tg_json_index ix;
    tg_json_index_init(&ix, &ia);
    int same = 1;
    char key[16];
    for (int i = 0; i < M + 10; i++) {
        snprintf(key, sizeof key, "k%05d", i);
        same &= tg_json_index_get(&ix, o, key, 6) == tg_json_get(o, key, 6);
        same &= tg_json_index_item(&ix, arr, (size_t)i) == tg_json_index_item(NULL, arr, (size_t)i);
    }
    CHECK(same);
    snprintf(key, sizeof key, "k%05d", M - 1);
    const cJSON *dup = tg_json_index_get(&ix, o, key, 6);
    CHECK(dup && dup->valuedouble == M - 1); /* the first of the two */
    CHECK(tg_json_index_get(&ix, o, "k0", 2) == NULL && tg_json_index_get(&ix, o, "", 0) == NULL);
    CHECK(tg_json_index_get(&ix, arr, "k00001", 6) == NULL && tg_json_index_item(&ix, o, 0) == NULL);
    const cJSON *x = tg_json_index_get(&ix, tg_json_getz(d, "s"), "x", 1); /* small: scanned */
    CHECK(x && x->valuedouble == 1);
    CHECK(ix.n == 2); /* o and a, once each */

    /* the work: R lookups cost about R (16 + log2 M), not R x M / 2 */
    tg_json_index_init(&ix, &ia);
    for (int i = 0; i < M / 2; i++) {
        snprintf(key, sizeof key, "k%05d", M - 1 - (i % 50));
        (void)tg_json_index_get(&ix, o, key, 6);
        (void)tg_json_index_item(&ix, arr, (size_t)(M - 1 - i));
    }
    CHECK_MSG(ix.probes < (size_t)M / 2 * 2 * 40, "%zu probes", ix.probes);

    /* pointers through an index resolve as without one */
    static const char *const refs[] = {"#/o/k03999", "#/a/3999", "#/a/17", "#/o/k00003", "#/a/4000", "#/o/nope",
                                       "#/s/x", "#/o/k0399%39", "#/a/01"};
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++)
        CHECK_MSG(tg_json_pointer_ref_in(&ix, d, refs[i], strlen(refs[i])) ==
                      tg_json_pointer_ref(d, refs[i], strlen(refs[i])),
                  "%s", refs[i]);
    CHECK(tg_json_pointer_ref_in(&ix, d, "#/o/k03998", 10) != NULL);
    tg_arena_free(&ia);
out:
    tg_buf_free(&b);
    tg_arena_free(&a);
}

/* tg_json_parse_each: what one element callback saw. */
typedef struct seen {
    tg_buf texts;        /* each element written, then '|' */
    int source_first;    /* the root held "source" when the first element came */
    size_t calls;
    int stop_at;         /* 1-based call that returns -1; 0 never */
} seen;

static int note_element(void *ud, const cJSON *root, const cJSON *element) {
    seen *s = ud;
    if (!s->calls) s->source_first = tg_json_getz(root, "source") != NULL;
    s->calls++;
    tg_json_write(&s->texts, element);
    tg_buf_putc(&s->texts, '|');
    return s->stop_at && s->calls == (size_t)s->stop_at ? -1 : 0;
}

/* Two arenas (the tree's, the elements' scratch) and a callback noting
 * what it is given. */
typedef struct each_case {
    tg_arena a, scratch;
    seen s;
    tg_json_each each;
} each_case;

static void each_open(each_case *c) {
    tg_arena_init(&c->a, libc_alloc);
    tg_arena_init(&c->scratch, libc_alloc);
    memset(&c->s, 0, sizeof c->s);
    tg_buf_init(&c->s.texts, libc_alloc, 0);
    c->each = (tg_json_each){"tools", &c->scratch, note_element, &c->s};
}

static void each_close(each_case *c) {
    tg_buf_free(&c->s.texts);
    tg_arena_free(&c->scratch);
    tg_arena_free(&c->a);
}

/* The elements of the root's "tools" reach the callback one by one, each
 * whole, in order, with the members before them in the root; the tree
 * keeps "tools" empty and everything else; scratch ends as it began. */
static void parse_each_hands_elements_over(void) {
    each_case c;
    each_open(&c);
    const char *in = "{\"source\":\"gh\",\"tools\":[{\"tool\":{\"name\":\"a\",\"k\":[1,{\"x\":null}]}},7,\"s\",[],{}],"
                     "\"other\":[{\"not\":\"an element\"}],\"nested\":{\"tools\":[1]}}";
    tg_json_error err;
    (void)tg_arena_reserve(&c.scratch, 256); /* (a small first chunk: the elements overflow it) */
    tg_arena_mark before = tg_arena_save(&c.scratch);
    cJSON *d = tg_json_parse_each(&c.a, in, strlen(in), NULL, &err, &c.each);
    CHECK_MSG(d != NULL, "%s", err.message);
    CHECK(c.s.calls == 5 && c.s.source_first);
    CHECK_STR(c.s.texts.data ? c.s.texts.data : "", "{\"tool\":{\"name\":\"a\",\"k\":[1,{\"x\":null}]}}|7|\"s\"|[]|{}|");
    tg_arena_mark after = tg_arena_save(&c.scratch);
    CHECK(after.chunk == before.chunk && after.pos == before.pos);
    if (d) {
        tg_buf b;
        tg_buf_init(&b, libc_alloc, 0);
        tg_json_write(&b, d);
        CHECK_STR(b.data, "{\"source\":\"gh\",\"tools\":[],\"other\":[{\"not\":\"an element\"}],\"nested\":{\"tools\":[1]}}");
        tg_buf_free(&b);
    }
    /* a callback that stops the reading: out of memory */
    tg_buf_reset(&c.s.texts);
    c.s.calls = 0;
    c.s.stop_at = 2;
    CHECK(tg_json_parse_each(&c.a, in, strlen(in), NULL, &err, &c.each) == NULL && err.status == TG_JSON_NOMEM);
    CHECK(c.s.calls == 2);
    each_close(&c);
}

/* Malformed or over-limit text is refused by tg_json_parse_each exactly as
 * by tg_json_parse (status, offset, message), wherever the fault lies:
 * before, inside or after the elements handed over. */
static void parse_each_refuses_as_parse_does(void) {
    static const char *const BAD[] = {
        "{\"source\":\"x\",\"tools\":[{\"a\":1,\"a\":2}]}",         /* duplicate inside an element */
        "{\"tools\":[{\"tool\":{}}],\"tools\":[]}",                 /* duplicate member of the root */
        "{\"tools\":[{\"t\":[[[[[[1]]]]]]}]}",                      /* deeper than the limit inside an element */
        "{\"tools\":[{\"t\":\"\\ud800\"}]}",                        /* a lone surrogate escape */
        "{\"tools\":[{\"t\":1},]}",                                 /* a trailing comma */
        "{\"tools\":[{\"t\":1}],\"source\":tru}",                   /* a fault after the elements */
        "{\"tools\":[{\"t\":\"\xC3\"}]}",                           /* invalid UTF-8 */
        "{\"tools\":[01]}",
        "{\"tools\":[{\"t\":1}]",
    };
    tg_json_limits lim = tg_json_default_limits();
    lim.max_depth = 6;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        each_case c;
        each_open(&c);
        tg_json_error e1, e2;
        cJSON *d1 = tg_json_parse(&c.a, BAD[i], strlen(BAD[i]), &lim, &e1);
        cJSON *d2 = tg_json_parse_each(&c.a, BAD[i], strlen(BAD[i]), &lim, &e2, &c.each);
        CHECK_MSG(!d1 && !d2 && e1.status == e2.status && e1.offset == e2.offset && strcmp(e1.message, e2.message) == 0,
                  "%s: %s / %s", BAD[i], e1.message, e2.message);
        each_close(&c);
    }
}

int main(void) {
    strings_of_any_bytes();
    string_sizes();
    canonical_writing();
    strictness();
    duplicate_keys();
    duplicate_keys_made_to_collide();
    limits();
    numbers();
    equality();
    sameness();
    pointers();
    indexes();
    building();
    allocation_failures();
    parse_each_hands_elements_over();
    parse_each_refuses_as_parse_does();
    split_writing();
    short_strings();
    return tg_test_finish("json");
}
