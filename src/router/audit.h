/* audit.h - one event per decision and per outcome, handed to the host's
 * audit import as JSON. Events name the tool, principal, decision and rule,
 * validation result, outcome and duration; they carry arguments only when the
 * tool opts in (auditArgs), and then never a context parameter's value. */
#ifndef TG_ROUTER_AUDIT_H
#define TG_ROUTER_AUDIT_H

#include "../json/json.h"
#include "../registry/registry.h"

struct tg_runtime;

typedef struct tg_audit_event {
    const char *phase;    /* "decision" or "outcome" */
    uint32_t call_id;     /* 0 when the call never got one */
    const tg_tool *tool;  /* NULL for an unknown tool */
    const char *name;     /* the name asked for */
    size_t name_len;
    const char *principal;
    const char *decision; /* "allow" | "ask" | "deny" | NULL */
    const char *rule;
    const char *validation; /* "ok" | "invalid" | "skipped" */
    const char *outcome;    /* "dispatched", "ok", "error", "timeout", or a gate error code */
    double duration_ms;     /* < 0: not known */
    const cJSON *args;      /* only written when the tool opts in */
} tg_audit_event;

void tg_audit_emit(struct tg_runtime *rt, const tg_audit_event *ev);

#endif
