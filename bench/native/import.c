/* import.c - REPS imports of one tools/list batch (tg_register_batch), each
 * into a new runtime: run under callgrind for the module's instructions an
 * import. Make the batch with bench/native/import-request.mjs.
 * usage: import REQUEST.json REPS */
#include "toolgate.h"
#include "common.h"

int main(int argc, char **argv) {
    if (argc < 2) return fprintf(stderr, "usage: import REQUEST.json [REPS]\n"), 2;
    size_t n;
    char *req = slurp(argv[1], &n);
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    tg_limits lim;
    tg_limits_default(&lim);
    lim.memory_bytes = 255u << 20;
    for (int r = 0; r < reps; r++) {
        tg_runtime *rt = tg_runtime_new(&lim, NULL, NULL, NULL);
        if (!rt) return 1;
        tg_status st = tg_register_batch(rt, req, n);
        if (st != TG_OK) return fprintf(stderr, "the batch was refused (%d)\n", st), 1;
        if (r == reps - 1) printf("%zu bytes used in the runtime\n", tg_memory_used(rt));
        tg_runtime_free(rt);
    }
    free(req);
    return 0;
}
