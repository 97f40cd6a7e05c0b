/* pending.c - calls waiting for their handler. A call id maps to slot
 * id % capacity, so lookup is one probe; ids are handed out so that their
 * slot is free, and never repeat within 2^32 calls. */
#include "router.h"

#include <string.h>

typedef struct slot {
    uint32_t id;   /* 0: free */
    int answered;  /* its caller was answered (cancelled, timed out) while its handler still runs */
    tg_call_info info;
} slot;

struct tg_pending {
    tg_allocator alloc;
    size_t cap, count;
    uint32_t next_id;
    slot *slots;
};

tg_pending *tg_pending_new(const tg_allocator *alloc, size_t capacity) {
    if (capacity == 0) capacity = 1;
    tg_pending *p = tg_malloc(alloc, sizeof *p);
    if (!p) return NULL;
    p->slots = tg_malloc(alloc, capacity * sizeof *p->slots);
    if (!p->slots) {
        tg_free(alloc, p, sizeof *p);
        return NULL;
    }
    memset(p->slots, 0, capacity * sizeof *p->slots);
    p->alloc = *alloc;
    p->cap = capacity;
    p->count = 0;
    p->next_id = 1;
    return p;
}

void tg_pending_free(tg_pending *p) {
    if (!p) return;
    for (size_t i = 0; i < p->cap; i++)
        if (p->slots[i].id) {
            p->slots[i].info.tool->flight->n--;
            tg_tool_release(p->slots[i].info.tool);
        }
    tg_free(&p->alloc, p->slots, p->cap * sizeof *p->slots);
    tg_free(&p->alloc, p, sizeof *p);
}

uint32_t tg_pending_add(tg_pending *p, const tg_call_info *info) {
    if (p->count >= p->cap) return 0;
    for (;;) {
        uint32_t id = p->next_id++;
        if (id == 0) continue;
        slot *s = &p->slots[id % p->cap];
        if (s->id) continue; /* slot busy: try the next id (bounded: a free slot exists) */
        s->id = id;
        s->info = *info;
        tg_tool_retain(info->tool);
        info->tool->flight->n++;
        p->count++;
        return id;
    }
}

int tg_pending_take(tg_pending *p, uint32_t id, tg_call_info *out) {
    if (id == 0) return -1;
    slot *s = &p->slots[id % p->cap];
    if (s->id != id || s->answered) return -1;
    *out = s->info;
    s->info.tool->flight->n--;
    memset(s, 0, sizeof *s);
    p->count--;
    return 0;
}

int tg_pending_answer(tg_pending *p, uint32_t id, tg_call_info *out) {
    if (id == 0) return -1;
    slot *s = &p->slots[id % p->cap];
    if (s->id != id || s->answered) return -1;
    *out = s->info;
    s->answered = 1;
    return 0;
}

int tg_pending_settle(tg_pending *p, uint32_t id) {
    if (id == 0) return -1;
    slot *s = &p->slots[id % p->cap];
    if (s->id != id || !s->answered) return -1;
    tg_call_info info = s->info;
    info.tool->flight->n--;
    memset(s, 0, sizeof *s);
    p->count--;
    tg_tool_release(info.tool);
    return 0;
}

size_t tg_pending_count(const tg_pending *p) { return p->count; }

int tg_pending_full(const tg_pending *p) { return p->count >= p->cap; }

void tg_pending_resume_after(tg_pending *p, uint32_t last) { p->next_id = last + 1; /* (0 is skipped by tg_pending_add) */ }
