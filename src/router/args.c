/* args.c - the first check of a call's arguments: a JSON object holding
 * every property the inputSchema requires. (The full JSON Schema check
 * comes from src/schema once a tool's schema is compiled there.) */
#include "router.h"

#include <string.h>

size_t tg_args_check(const tg_tool *tool, const cJSON *args, tg_buf *msg) {
    if (!cJSON_IsObject(args)) {
        tg_buf_puts(msg, "- (root): expected an object of arguments\n");
        return 1;
    }
    size_t problems = 0;
    if (!tool->required) return 0;
    for (const cJSON *q = tool->required->child; q; q = q->next) {
        size_t len = tg_json_strlen(q->valuestring);
        if (tg_json_get(args, q->valuestring, len)) continue;
        tg_buf_puts(msg, "- (root): missing required property ");
        tg_json_write_string(msg, q->valuestring, len);
        tg_buf_putc(msg, '\n');
        problems++;
    }
    return problems;
}
