/* jsontestsuite_test.c - RFC 8259 conformance of tg_json_parse against
 * JSONTestSuite (test_parsing): every y_ accepted, every n_ rejected with an
 * offset inside the input, and the i_ cases as toolgate decides them:
 * numbers beyond a double accepted with their exact text kept; invalid
 * UTF-8, lone surrogates, a BOM and 500-deep nesting (over the default 256)
 * rejected. The suite's path comes from TG_TESTDATA. */
#include <dirent.h>
#include <stdlib.h>

#include "../../src/json/json.h"
#include "../tg_test.h"

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

int main(void) {
    const char *root = getenv("TG_TESTDATA");
    if (!root || !*root) root = "../shared/testdata";
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/JSONTestSuite/test_parsing", root);
    DIR *d = opendir(dir);
    if (!d) {
        printf("JSONTestSuite not found at %s (set TG_TESTDATA): skipped\n", dir);
        return 77;
    }
    int y = 0, n = 0, i_acc = 0, i_rej = 0, y_ok = 0, n_ok = 0;
    tg_allocator alloc = {tg_alloc_libc, NULL};
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (strlen(name) < 3 || name[1] != '_') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t len;
        char *text = slurp(path, &len);
        CHECK_MSG(text != NULL, "cannot read %s", path);
        if (!text) continue;
        tg_arena arena;
        tg_arena_init(&arena, alloc);
        tg_json_error err;
        /* The grammar check allows duplicate keys (RFC 8259 says SHOULD be
         * unique, not MUST); toolgate's default rejects them, checked below. */
        tg_json_limits grammar = tg_json_default_limits();
        grammar.allow_duplicate_keys = 1;
        cJSON *doc = tg_json_parse(&arena, text, len, &grammar, &err);
        if (doc && strstr(name, "duplicated_key")) {
            tg_json_error derr;
            CHECK_MSG(tg_json_parse(&arena, text, len, NULL, &derr) == NULL && derr.status == TG_JSON_DUPLICATE_KEY,
                      "%s: duplicate key not reported by default", name);
        }
        if (name[0] == 'y') {
            y++;
            y_ok += doc != NULL;
            CHECK_MSG(doc != NULL, "%s rejected: %s", name, err.message);
            if (doc) { /* canonical output must itself be strict JSON */
                tg_buf out;
                tg_buf_init(&out, alloc, 0);
                CHECK(tg_json_write(&out, doc) == 0);
                tg_arena again;
                tg_arena_init(&again, alloc);
                CHECK_MSG(tg_json_parse(&again, out.data, out.len, &grammar, &err) != NULL, "%s: rewritten text rejected", name);
                tg_arena_free(&again);
                tg_buf_free(&out);
            }
        } else if (name[0] == 'n') {
            n++;
            n_ok += doc == NULL;
            CHECK_MSG(doc == NULL, "%s accepted", name);
            CHECK_MSG(doc != NULL || (err.offset <= len && err.message[0]), "%s: no offset/message", name);
        } else {
            int is_number = strncmp(name, "i_number_", 9) == 0;
            if (doc) i_acc++;
            else i_rej++;
            CHECK_MSG((doc != NULL) == is_number, "%s %s", name, doc ? "accepted" : "rejected");
            if (doc && is_number) { /* exact lexeme kept */
                tg_buf out;
                tg_buf_init(&out, alloc, 0);
                tg_json_write(&out, doc);
                CHECK_MSG(strstr(text, out.data + 1) != NULL, "%s: lexeme changed to %s", name, out.data);
                tg_buf_free(&out);
            }
        }
        tg_arena_free(&arena);
        free(text);
    }
    closedir(d);
    printf("JSONTestSuite: y_ %d/%d accepted, n_ %d/%d rejected, i_ %d accepted (numbers) %d rejected\n", y_ok, y,
           n_ok, n, i_acc, i_rej);
    CHECK(y == 95 && n == 188);
    return tg_test_finish("jsontestsuite");
}
