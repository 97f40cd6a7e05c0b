/* schema_suite_test.c - runs the official JSON-Schema-Test-Suite against
 * src/schema. Required tests of draft2020-12, draft2019-09 and draft7 must
 * all pass (both the FLAG and the BASIC path, which must agree); the
 * optional format tests (with format assertion on) and ecmascript-regex are
 * reported but do not fail the run. Data: $TG_TESTDATA (default
 * ../shared/testdata) + /JSON-Schema-Test-Suite; absent data skips (77).
 * TG_VERBOSE=1 prints the BASIC errors of failing tests; TG_SKIP_META=1
 * compiles without the metaschema check (for debugging). An argument
 * (e.g. draft7) runs only that draft.
 *
 * Beside the suite's own verdicts: the flat twins of the 2020-12 and
 * 2019-09 metaschemas (schema_meta_flat.c, which give the verdict of every
 * compile's metaschema check) must agree with the official metaschemas on
 * every schema and every instance of the suite. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/schema/schema.h"
#include "../../src/schema/schema_internal.h"
#include "../../src/json/json.h"

typedef struct counts { size_t pass, fail; } counts;
/* cases the one-pass checker (tg_schema_check_text) decided: its verdicts
 * must be the evaluator's */
static size_t one_pass_decided = 0, one_pass_cases = 0, one_pass_told = 0;

static const tg_allocator A = {tg_alloc_libc, NULL};
static int verbose = 0;

/* The official metaschemas (each holding its flat twin), compiled on first
 * use, and how many values both judged. */
static tg_schema *metas[TG_DIALECT_DRAFT4 + 1];
static size_t flat_checked = 0, flat_disagreed = 0;

/* 1 when the flat twin of dialect d's metaschema gives the official
 * verdict on v (or d has no twin). */
static int flat_agrees(tg_dialect d, const cJSON *v, tg_arena *scratch) {
    tg_arena_mark mk = tg_arena_save(scratch);
    int official, flat;
    if (d != TG_DIALECT_2020_12 && d != TG_DIALECT_2019_09) return 1;
    if (!metas[d] && tg_schema_compile_metaschema(&A, d, &metas[d], NULL) != 0) return 0;
    if (!metas[d]->flat) return 0;
    official = tg_sval(metas[d], v, scratch, TG_OUTPUT_FLAG, 0, NULL, 0);
    tg_arena_rewind(scratch, mk);
    flat = tg_sval(metas[d]->flat, v, scratch, TG_OUTPUT_FLAG, 0, NULL, 0);
    tg_arena_rewind(scratch, mk);
    flat_checked++;
    if (official >= 0 && official == flat) return 1;
    flat_disagreed++; /* (fails the run whichever part of the suite it came from) */
    return 0;
}

typedef struct remotes {
    tg_schema_resource *r;
    size_t n, cap;
    tg_arena arena;
} remotes;

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (n + 65536 > cap) {
            char *nb;
            cap = cap ? cap * 2 : 131072;
            nb = A.fn(NULL, buf, 0, cap);
            if (!nb) { A.fn(NULL, buf, 0, 0); fclose(f); return NULL; }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static cJSON *parse_file(tg_arena *arena, const char *path) {
    size_t len = 0;
    char *text = read_file(path, &len);
    tg_json_error err;
    tg_json_limits lim = tg_json_default_limits();
    cJSON *doc;
    if (!text) return NULL;
    doc = tg_json_parse(arena, text, len, &lim, &err);
    if (!doc) fprintf(stderr, "%s: parse error at %zu: %s\n", path, err.offset, err.message);
    A.fn(NULL, text, 0, 0);
    return doc;
}

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names in dir (caller frees with free_names). */
static char **list_dir(const char *dir, size_t *n) {
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d) return NULL;
    while ((de = readdir(d))) {
        size_t l;
        if (de->d_name[0] == '.') continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            names = A.fn(NULL, names, 0, cap * sizeof *names);
        }
        l = strlen(de->d_name);
        names[*n] = A.fn(NULL, NULL, 0, l + 1);
        memcpy(names[*n], de->d_name, l + 1);
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(names, *n, sizeof *names, cmpstr);
    return names;
}

static void free_names(char **names, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) A.fn(NULL, names[i], 0, 0);
    A.fn(NULL, names, 0, 0);
}

static void load_remotes(remotes *rm, const char *dir, const char *rel) {
    size_t n, i;
    char **names = list_dir(dir, &n);
    for (i = 0; i < n; i++) {
        char path[1024], rp[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(rp, sizeof rp, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        if (is_dir(path)) { load_remotes(rm, path, rp); continue; }
        if (strlen(names[i]) < 5 || strcmp(names[i] + strlen(names[i]) - 5, ".json")) continue;
        {
            cJSON *doc = parse_file(&rm->arena, path);
            char uri[1100];
            size_t ul;
            if (!doc) continue;
            if (rm->n == rm->cap) {
                rm->cap = rm->cap ? rm->cap * 2 : 64;
                rm->r = A.fn(NULL, rm->r, 0, rm->cap * sizeof *rm->r);
            }
            ul = (size_t)snprintf(uri, sizeof uri, "http://localhost:1234/%s", rp);
            rm->r[rm->n].uri = tg_arena_strndup(&rm->arena, uri, ul);
            rm->r[rm->n].schema = doc;
            rm->n++;
        }
    }
    free_names(names, n);
}

/* Runs one suite file; adds to counts. */
static void run_file(const char *path, const char *label, tg_dialect dialect, int format_assert, const remotes *rm,
                     counts *c) {
    tg_arena arena, scratch;
    cJSON *doc, *group;
    tg_arena_init(&arena, A);
    tg_arena_init(&scratch, A);
    doc = parse_file(&arena, path);
    if (!doc) { c->fail++; printf("FAIL %s: cannot read\n", path); goto out; }
    for (group = doc->child; group; group = group->next) {
        const cJSON *schema = tg_json_getz(group, "schema"), *tests = tg_json_getz(group, "tests"), *t;
        const cJSON *gd = tg_json_getz(group, "description");
        tg_schema_options o = tg_schema_default_options();
        tg_schema *s = NULL;
        tg_buf diag;
        o.dialect = dialect;
        o.format_assert = format_assert;
        o.skip_metaschema_check = getenv("TG_SKIP_META") != NULL;
        o.resources = rm->r;
        o.n_resources = rm->n;
        tg_buf_init(&diag, A, 0);
        if (!flat_agrees(dialect, schema, &scratch)) {
            c->fail++;
            printf("FAIL %s %s | %s: the flat metaschema's verdict on the schema is not the official one's\n", label,
                   path, gd ? gd->valuestring : "?");
        }
        if (tg_schema_compile(&A, schema, &o, &s, &diag) != 0) {
            size_t k = 0;
            for (t = tests ? tests->child : NULL; t; t = t->next) k++;
            c->fail += k;
            tg_buf_putc(&diag, 0);
            printf("FAIL %s %s | %s: compile error: %s\n", label, path, gd ? gd->valuestring : "?", diag.data);
            tg_buf_free(&diag);
            continue;
        }
        tg_buf_free(&diag);
        /* the same schema pruned of what evaluation never reads
         * (prune_document, as a registry keeps a tool's): the same verdicts
         * and the same errors, every one */
        tg_schema *pruned = NULL;
        o.prune_document = 1;
        if (tg_schema_compile(&A, schema, &o, &pruned, NULL) != 0) {
            c->fail++;
            printf("FAIL %s %s | %s: compiles, but not pruned\n", label, path, gd ? gd->valuestring : "?");
        }
        for (t = tests ? tests->child : NULL; t; t = t->next) {
            const cJSON *data = tg_json_getz(t, "data"), *valid = tg_json_getz(t, "valid");
            const cJSON *td = tg_json_getz(t, "description");
            int expect = cJSON_IsTrue(valid), r1, r2, ok;
            tg_buf errs;
            tg_arena_mark mk = tg_arena_save(&scratch);
            tg_buf_init(&errs, A, 0);
            r1 = tg_schema_validate(s, data, &scratch, TG_OUTPUT_FLAG, 0, NULL);
            tg_arena_rewind(&scratch, mk);
            r2 = tg_schema_validate(s, data, &scratch, TG_OUTPUT_BASIC, 20, &errs);
            tg_arena_rewind(&scratch, mk);
            ok = r1 == expect && r2 == expect;
            if (pruned) {
                tg_buf perrs;
                tg_buf_init(&perrs, A, 0);
                int p1 = tg_schema_validate(pruned, data, &scratch, TG_OUTPUT_FLAG, 0, NULL);
                tg_arena_rewind(&scratch, mk);
                int p2 = tg_schema_validate(pruned, data, &scratch, TG_OUTPUT_BASIC, 20, &perrs);
                tg_arena_rewind(&scratch, mk);
                if (p1 != r1 || p2 != r2 || perrs.len != errs.len || (errs.len && memcmp(perrs.data, errs.data, errs.len))) {
                    ok = 0;
                    printf("FAIL %s %s | %s: pruned, flag %d basic %d %.*s\n", label, path, td ? td->valuestring : "?",
                           p1, p2, (int)perrs.len, perrs.data ? perrs.data : "");
                }
                tg_buf_free(&perrs);
            }
            if (!flat_agrees(dialect, data, &scratch)) {
                ok = 0;
                printf("FAIL %s %s | %s: the flat metaschema's verdict on the data is not the official one's\n", label,
                       path, td ? td->valuestring : "?");
            }
            {
                tg_buf text;
                int r3;
                tg_buf_init(&text, A, 0);
                tg_json_write(&text, data);
                r3 = tg_schema_check_text(s, text.data ? text.data : "", text.len, NULL, &scratch, NULL);
                tg_arena_rewind(&scratch, mk);
                one_pass_cases++;
                if (r3 >= 0) one_pass_decided++;
                if (r3 >= 0 && r3 != r1) { /* it must agree with the evaluator */
                    ok = 0;
                    printf("FAIL %s %s | %s: the one-pass check said %d, the evaluator %d\n", label, path,
                           td ? td->valuestring : "?", r3, r1);
                }
                if (r3 == 0) { /* the first error it tells must be the evaluator's */
                    tg_buf mine, theirs;
                    tg_buf_init(&mine, A, 0);
                    tg_buf_init(&theirs, A, 0);
                    tg_schema_errors to = {&mine, NULL, NULL};
                    r3 = tg_schema_check_text(s, text.data ? text.data : "", text.len, NULL, &scratch, &to);
                    tg_arena_rewind(&scratch, mk);
                    if (mine.len) {
                        one_pass_told++;
                        tg_schema_validate(s, data, &scratch, TG_OUTPUT_BASIC, 1, &theirs);
                        tg_arena_rewind(&scratch, mk);
                        if (r3 != 0 || mine.len != theirs.len || memcmp(mine.data, theirs.data, mine.len) != 0) {
                            ok = 0;
                            printf("FAIL %s %s | %s: one pass's first error %.*s, the evaluator's %.*s\n", label, path,
                                   td ? td->valuestring : "?", (int)mine.len, mine.data, (int)theirs.len,
                                   theirs.data ? theirs.data : "");
                        }
                    }
                    tg_buf_free(&mine);
                    tg_buf_free(&theirs);
                }
                tg_buf_free(&text);
            }
            if (ok) {
                /* the BASIC output must be a JSON array, empty exactly when valid */
                tg_json_error je;
                tg_json_limits lim = tg_json_default_limits();
                cJSON *arr = tg_json_parse(&scratch, errs.data ? errs.data : "", errs.len, &lim, &je);
                if (!arr || !cJSON_IsArray(arr) || (expect ? arr->child != NULL : arr->child == NULL)) ok = 0;
                tg_arena_rewind(&scratch, mk);
            }
            if (ok) c->pass++;
            else {
                c->fail++;
                printf("FAIL %s %s | %s | %s: expected %s, flag %d basic %d %.*s\n", label, path,
                       gd ? gd->valuestring : "?", td ? td->valuestring : "?", expect ? "valid" : "invalid", r1, r2,
                       verbose ? (int)errs.len : 0, errs.data ? errs.data : "");
            }
            tg_buf_free(&errs);
        }
        tg_schema_free(pruned);
        tg_schema_free(s);
    }
out:
    tg_arena_free(&scratch);
    tg_arena_free(&arena);
}

static void run_dir(const char *dir, const char *label, tg_dialect d, int fa, const remotes *rm, counts *c) {
    size_t n, i;
    char **names = list_dir(dir, &n);
    for (i = 0; i < n; i++) {
        char path[1024];
        size_t l = strlen(names[i]);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (l < 5 || strcmp(names[i] + l - 5, ".json") || is_dir(path)) continue;
        run_file(path, label, d, fa, rm, c);
    }
    free_names(names, n);
}

int main(int argc, char **argv) {
    const char *td = getenv("TG_TESTDATA");
    static const struct { const char *name; tg_dialect d; } drafts[] = {
        {"draft2020-12", TG_DIALECT_2020_12}, {"draft2019-09", TG_DIALECT_2019_09}, {"draft7", TG_DIALECT_DRAFT7}};
    char root[1024], path[1200];
    remotes rm;
    size_t i;
    counts total = {0, 0};
    const char *only = argc > 1 ? argv[1] : NULL;
    if (getenv("TG_VERBOSE")) verbose = 1;
    if (!td || !*td) td = "../shared/testdata";
    snprintf(root, sizeof root, "%s/JSON-Schema-Test-Suite", td);
    if (!is_dir(root)) {
        printf("schema_suite: skipped, no test data at %s\n", root);
        printf("schema_suite: 0 passed, 0 failed\n");
        return 77;
    }
    memset(&rm, 0, sizeof rm);
    tg_arena_init(&rm.arena, A);
    snprintf(path, sizeof path, "%s/remotes", root);
    load_remotes(&rm, path, "");
    for (i = 0; i < sizeof drafts / sizeof drafts[0]; i++) {
        counts req = {0, 0}, fmt = {0, 0}, re = {0, 0}, other = {0, 0};
        if (only && strcmp(only, drafts[i].name)) continue;
        snprintf(path, sizeof path, "%s/tests/%s", root, drafts[i].name);
        run_dir(path, drafts[i].name, drafts[i].d, 0, &rm, &req);
        snprintf(path, sizeof path, "%s/tests/%s/optional/format", root, drafts[i].name);
        run_dir(path, "optional", drafts[i].d, 1, &rm, &fmt);
        snprintf(path, sizeof path, "%s/tests/%s/optional/ecmascript-regex.json", root, drafts[i].name);
        run_file(path, "optional", drafts[i].d, 0, &rm, &re);
        {
            /* the other optional files, informational */
            size_t n, k;
            char **names;
            snprintf(path, sizeof path, "%s/tests/%s/optional", root, drafts[i].name);
            names = list_dir(path, &n);
            for (k = 0; k < n; k++) {
                char fp[1400];
                size_t l = strlen(names[k]);
                if (l < 5 || strcmp(names[k] + l - 5, ".json") || !strcmp(names[k], "ecmascript-regex.json")) continue;
                snprintf(fp, sizeof fp, "%s/%s", path, names[k]);
                run_file(fp, "optional", drafts[i].d, 0, &rm, &other);
            }
            free_names(names, n);
        }
        printf("%s: required %zu/%zu passed; optional/format %zu/%zu; optional/ecmascript-regex %zu/%zu; "
               "other optional %zu/%zu\n",
               drafts[i].name, req.pass, req.pass + req.fail, fmt.pass, fmt.pass + fmt.fail, re.pass,
               re.pass + re.fail, other.pass, other.pass + other.fail);
        total.pass += req.pass;
        total.fail += req.fail;
    }
    /* draft-06 and draft-04 are supported too; their results are informational */
    {
        static const struct { const char *name; tg_dialect d; } extra[] = {
            {"draft6", TG_DIALECT_DRAFT6}, {"draft4", TG_DIALECT_DRAFT4}};
        for (i = 0; i < sizeof extra / sizeof extra[0]; i++) {
            counts req = {0, 0};
            if (only && strcmp(only, extra[i].name)) continue;
            snprintf(path, sizeof path, "%s/tests/%s", root, extra[i].name);
            run_dir(path, "informational", extra[i].d, 0, &rm, &req);
            printf("%s (informational): required %zu/%zu passed\n", extra[i].name, req.pass, req.pass + req.fail);
        }
    }
    A.fn(NULL, rm.r, 0, 0);
    tg_arena_free(&rm.arena);
    printf("schema_suite: the one-pass check decided %zu of %zu cases as the evaluator did (and told the evaluator's "
           "first error for %zu); it left the rest to it\n", one_pass_decided, one_pass_cases, one_pass_told);
    printf("schema_suite: the flat metaschemas gave the official verdict on %zu of %zu schemas and instances\n",
           flat_checked - flat_disagreed, flat_checked);
    total.fail += flat_disagreed;
    for (i = 0; i < sizeof metas / sizeof metas[0]; i++) tg_schema_free(metas[i]);
    printf("schema_suite: %zu passed, %zu failed\n", total.pass, total.fail);
    return total.fail ? 1 : 0;
}
