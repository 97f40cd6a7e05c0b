/* validate.c - REPS validations of FILE against the benchmarks' call schema:
 * MODE 0 the verdict, 1 the first error (coded, as the JS layer asks).
 * usage: validate FILE MODE REPS   (from the repository root) */
#include <string.h>

#include "toolgate.h"
#include "common.h"

int main(int argc, char **argv) {
    if (argc < 4) return fprintf(stderr, "usage: validate FILE MODE REPS\n"), 2;
    size_t sl, il;
    char *schema = slurp("bench/native/data/call-schema.json", &sl), *inst = slurp(argv[1], &il);
    int mode = atoi(argv[2]), reps = atoi(argv[3]), valid = 0;
    tg_runtime *rt = tg_runtime_new(NULL, NULL, NULL, NULL);
    uint32_t id;
    if (!rt || tg_compile_schema(rt, schema, sl, NULL, 0, &id) != TG_OK) return fprintf(stderr, "no schema\n"), 1;
    for (int i = 0; i < reps; i++) {
        int r = mode ? tg_validate_first(rt, id, inst, il) : tg_validate(rt, id, inst, il, 0);
        if (r == 1) valid++;
    }
    printf("%d of %d valid\n", valid, reps);
    tg_runtime_free(rt);
    free(schema);
    free(inst);
    return 0;
}
