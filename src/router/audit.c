/* audit.c - audit events as JSON for the host's audit import. */
#include "audit.h"
#include "../runtime/runtime_internal.h"

#include <string.h>

static void field(tg_buf *b, const char *k, const char *v) {
    if (!v) return;
    tg_buf_puts(b, ",\"");
    tg_buf_puts(b, k);
    tg_buf_puts(b, "\":");
    tg_json_write_string(b, v, strlen(v));
}

/* The arguments with every context parameter's value replaced. */
static void redacted_args(tg_buf *b, const tg_tool *t, const cJSON *args) {
    if (!cJSON_IsObject(args) || !t->opts.context) {
        tg_json_write(b, args);
        return;
    }
    tg_buf_putc(b, '{');
    for (const cJSON *c = args->child; c; c = c->next) {
        if (c != args->child) tg_buf_putc(b, ',');
        tg_json_write_string(b, c->string, tg_json_strlen(c->string));
        tg_buf_putc(b, ':');
        if (tg_json_get(t->opts.context, c->string, tg_json_strlen(c->string))) tg_buf_puts(b, "\"[context]\"");
        else tg_json_write(b, c);
    }
    tg_buf_putc(b, '}');
}

void tg_audit_emit(struct tg_runtime *rt, const tg_audit_event *ev) {
    if (!rt->host.audit) return;
    tg_buf b;
    tg_buf_init(&b, rt->alloc, 1 << 20);
    tg_buf_puts(&b, "{\"phase\":");
    tg_json_write_string(&b, ev->phase, strlen(ev->phase));
    if (ev->call_id) tg_buf_printf(&b, ",\"callId\":%u", ev->call_id);
    tg_buf_puts(&b, ",\"tool\":");
    if (ev->tool) tg_json_write_string(&b, ev->tool->name, ev->tool->name_len);
    else tg_json_write_string(&b, ev->name, ev->name_len < 128 ? ev->name_len : 128);
    if (ev->tool) field(&b, "source", ev->tool->source);
    field(&b, "principal", ev->principal && *ev->principal ? ev->principal : NULL);
    field(&b, "decision", ev->decision);
    field(&b, "rule", ev->rule && *ev->rule ? ev->rule : NULL);
    field(&b, "validation", ev->validation);
    field(&b, "outcome", ev->outcome);
    if (ev->duration_ms >= 0) tg_buf_printf(&b, ",\"durationMs\":%.3f", ev->duration_ms);
    if (ev->args && ev->tool && ev->tool->opts.audit_args) {
        tg_buf_puts(&b, ",\"args\":");
        redacted_args(&b, ev->tool, ev->args);
    }
    tg_buf_putc(&b, '}');
    if (!b.failed) rt->host.audit(rt->host.ud, b.data, b.len);
    tg_buf_free(&b);
}
