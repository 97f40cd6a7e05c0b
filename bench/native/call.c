/* call.c - REPS tool calls (tg_call_begin + tg_call_complete_text) of the
 * benchmarks' 195-byte argument against its schema, under POLICY if given:
 * run under callgrind for the module's instructions a call.
 * usage: call REPS [POLICY.json]   (from the repository root) */
#include <string.h>

#include "toolgate.h"
#include "common.h"

static int invoke(void *ud, uint32_t handler, uint32_t call_id, const char *args, size_t len, double deadline) {
    (void)ud, (void)handler, (void)call_id, (void)args, (void)len, (void)deadline;
    return 0;
}
static double now(void *ud) { (void)ud; return 1000.0; }

int main(int argc, char **argv) {
    size_t sl, al, pl;
    char *schema = slurp("bench/native/data/call-schema.json", &sl), *args = slurp("bench/native/data/valid.json", &al);
    int reps = argc > 1 ? atoi(argv[1]) : 1, ok = 0;
    tg_host host = {0};
    host.invoke = invoke;
    host.now_ms = now;
    tg_runtime *rt = tg_runtime_new(NULL, &host, NULL, NULL);
    if (!rt) return 1;
    if (argc > 2) {
        char *policy = slurp(argv[2], &pl);
        if (tg_set_policy(rt, policy, pl) != TG_OK) return fprintf(stderr, "the policy was refused\n"), 1;
        free(policy);
    }
    char desc[4096];
    snprintf(desc, sizeof desc, "{\"name\":\"create_issue\",\"description\":\"x\",\"inputSchema\":%s}", schema);
    if (tg_register_tool(rt, desc, strlen(desc), NULL, 0, 1) != TG_OK) return fprintf(stderr, "not registered\n"), 1;
    for (int i = 0; i < reps; i++) {
        uint32_t id;
        tg_status st = tg_call_begin(rt, "create_issue", 12, args, al, NULL, 0, &id);
        if (st != TG_PENDING) return fprintf(stderr, "the call was refused (%d)\n", st), 1;
        if (tg_call_complete_text(rt, id, "ok", 2) == TG_OK_TEXT) ok++;
    }
    printf("%d calls completed\n", ok);
    tg_runtime_free(rt);
    free(schema);
    free(args);
    return ok == reps ? 0 : 1;
}
