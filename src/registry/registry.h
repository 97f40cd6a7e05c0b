/* registry.h - where tools from everywhere meet: the host's own handlers,
 * plugins, and whole MCP servers imported through tools/list.
 *
 * A tool belongs to a source ("" for the host) and gets a model-visible,
 * provider-safe name from a template ("{tool}" for the host's own,
 * "mcp__{source}__{tool}" for imports). Descriptors are untrusted data:
 * their shape is checked, their text bounded and cleaned, their schemas
 * compiled, and nothing in them is ever interpreted as a grant.
 *
 * Every change makes a new epoch. The registry materializes an immutable
 * tool set per epoch (tg_toolset) on demand; sets and tools are reference
 * counted, so a pinned set keeps working while the registry moves on.
 *
 * Ownership: the registry owns its tools; a caller that keeps a set or a tool
 * past the next registry change retains it and releases it later. */
#ifndef TG_REGISTRY_H
#define TG_REGISTRY_H

#include <stdint.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../json/json.h"
#include "../schema/schema.h"
#include "names.h"

typedef struct tg_registry tg_registry;
typedef struct tg_toolset tg_toolset;

/* Host-only facts about a tool: no descriptor field can set them. */
typedef struct tg_tool_opts {
    int needs_approval;
    int privileged;
    int read_only; /* host-marked; an upstream readOnlyHint is only a hint */
    int edit;
    double timeout_ms;    /* 0: the runtime default */
    size_t concurrency;   /* calls in flight at once; 0: no limit of its own */
    const char *tenant;   /* NULL: every tenant */
    const cJSON *context; /* object: parameter name -> context key, or NULL */
    int context_drop;     /* 1: a model-supplied context parameter is dropped; 0: rejected */
    int audit_args;       /* 1: audit events carry the arguments (context parameters redacted) */
} tg_tool_opts;

/* A count of calls in flight, shared by a tool and the versions that
 * replace it (updated options, an accepted change), so a concurrency limit
 * counts calls still running on the version before. */
typedef struct tg_flight {
    size_t n, refs;
    tg_allocator alloc;
} tg_flight;

typedef struct tg_tool {
    const char *name; /* model-visible, provider-safe, NUL-terminated */
    size_t name_len;
    const char *source;    /* "" for the host's own tools */
    const char *tool_name; /* the name the descriptor gave */
    char skeleton[TG_NAME_MAX + 1];
    /* the name folded character by character (tg_name_fold without pairs):
     * with the skeleton, the two folds a policy's restricting patterns
     * match (tg_tool_facts.fold_chars / fold_pairs), made once */
    char folded[TG_NAME_MAX + 1];
    const char *gone_key;  /* source, 0x1F, skeleton: its key when remembered (tg_tool_set_name) */
    size_t gone_key_len;
    uint32_t handler_id;
    /* The cleaned descriptor (title and descriptions bounded, hidden
     * characters gone, icons checked) as canonical JSON text: what every
     * listing renders (read back per rendering, cached per set) and
     * changes are told against. Text, not nodes: a tree costs ~30 times
     * the bytes of a schema's "examples" or "default", which nothing but a
     * rendering reads. The 1 MB description a source sent is not kept:
     * the digest below is of it, the text has what is shown. */
    const char *definition;
    size_t definition_len;
    const cJSON *options_doc; /* copy of the host's options object, or NULL */
    const cJSON *input_schema;  /* the program's copy of inputSchema, without what validation never
                                 * reads (annotations, examples, default: tg_schema_options.prune_document);
                                 * NULL until tg_tool_compile */
    const cJSON *output_schema; /* the same of outputSchema; NULL when absent */
    const cJSON *hidden;        /* array of context parameter names, or NULL */
    const cJSON *sanitized;     /* array of fields whose text was cleaned or cut */
    tg_schema *input;           /* compiled inputSchema */
    tg_schema *output;          /* compiled outputSchema, or NULL */
    size_t schema_bytes[2];     /* canonical sizes of inputSchema, outputSchema (limits) */
    tg_tool_opts opts;
    char digest[65]; /* hex BLAKE2s-256 of the canonical definition */
    size_t refs;
    int listed;     /* scratch mark while a batch is applied */
    struct tg_flight *flight; /* calls waiting for their handler: shared by the versions of
                               * a tool that replace one another (tg_tool_share_flight) */
    struct tg_tool *record; /* what the registry will remember of it once dropped (tg_tool_record),
                             * made before a batch changes anything; else NULL */
    tg_arena arena; /* owns everything above */
} tg_tool;

typedef struct tg_registry_config {
    size_t max_tools;            /* all sources together */
    size_t max_tools_per_source;
    size_t description_bytes;    /* cap for description (title: 256) */
    size_t schema_bytes;         /* cap for each schema's canonical text */
    size_t descriptor_bytes;     /* cap for a whole descriptor's canonical text (0: none) */
    size_t json_depth;           /* nesting descriptors were read with (a definition's text is read again with it) */
    tg_schema_options schema;    /* how schemas compile */
    const cJSON *capabilities;   /* array of strings the runtime was given, or NULL */
} tg_registry_config;

void tg_registry_default_config(tg_registry_config *cfg);

/* NULL when the allocator refuses. The config is copied (capabilities too). */
tg_registry *tg_registry_new(const tg_allocator *alloc, const tg_registry_config *cfg);
void tg_registry_free(tg_registry *r);

/* 1 when s[0..len) is a name a call's context may give (principal, tenant,
 * session, source) and a tool's tenant option may hold: 1-128 bytes without
 * control characters (docs/policy.md), so the text compared as C text is
 * all of it. */
int tg_context_name_ok(const char *s, size_t len);

/* One tool of a batch: its MCP descriptor, the host's options object
 * (needsApproval, privileged, readOnly, edit, timeoutMs, concurrency, tenant,
 * requires, context, contextParams: "reject"|"drop", auditArgs; may be NULL) and handler id. */
typedef struct tg_tool_entry {
    const cJSON *descriptor;
    const cJSON *options;
    uint32_t handler_id;
} tg_tool_entry;

typedef struct tg_batch {
    const char *source; /* "" for the host */
    size_t source_len;
    const char *name_template; /* "{tool}", "mcp__{source}__{tool}", ... */
    int atomic;                /* all of the batch or none of it */
    int replace_source;        /* the batch is the source's whole list: tools it no longer lists are removed */
    const tg_tool_entry *entries;
    size_t n;
    /* NULL, or the n entries built ahead (tg_registry_build): entries is
     * then not read, and tg_registry_apply takes the tools over */
    struct tg_batch_built *built;
} tg_batch;

/* Why a tool was refused: what a batch's result lists under "rejected". */
typedef struct tg_tool_error {
    char tool[130];  /* the descriptor's name, if it had one */
    char name[TG_NAME_MAX + 1]; /* the mapped name, once known */
    char code[32];
    char message[400];
} tg_tool_error;

/* One entry of a batch built ahead of tg_registry_apply, as its first step
 * builds each: the tool (schemas compiled; or the live tool its source lists
 * again unchanged, retained), else NULL with err saying why. */
typedef struct tg_batch_built {
    tg_tool *tool;
    tg_tool_error err;
} tg_batch_built;

/* Builds entry e of batch bt (its source, template and replace flag; not
 * its entries) into *out: what a reader streaming a tools/list does as each
 * tool is read, so no tool's nodes outlive it. built_ok: how many entries
 * before it built (a tool); a whole listing past twice its source's limit
 * refuses the rest unbuilt (limit_reached). */
void tg_registry_build(tg_registry *r, const tg_batch *bt, const tg_tool_entry *e, size_t built_ok, tg_batch_built *out);

/* Lets go of n built entries of a batch that will not be applied. */
void tg_registry_unbuild(tg_batch_built *built, size_t n);

/* Applies a batch. Each tool is registered, left unchanged (same digest,
 * same handler and options), updated (same digest, other handler or
 * options: the new settings take effect at once), held (same name, new
 * digest: a possible rug pull, kept out of new sets until
 * tg_registry_accept; its "fields" told against the definition accepted
 * last; listed again as held, it takes the handler and options of the
 * listing; listed back as the accepted definition, it is registered again
 * and the change goes), or rejected with a code and a message (a tool
 * under the collision key of another source's held change collides with
 * it; held changes count against max_tools and their source's
 * max_tools_per_source; a source with max_tools_per_source dropped tools
 * remembered gets no new one, a tool whose change is held not counted). Writes the
 * outcome to result as JSON:
 *   {"applied":true|false,"epoch":N,
 *    "registered":[{"name","tool","digest"[,"sanitized":[fields]]}],
 *    "unchanged":[names],"updated":[names],"changed":[{"name","fields":[...]}],"removed":[names],
 *    "rejected":[{"tool","name"?,"code","message"}]}
 * An atomic batch with any rejection applies nothing ("applied":false).
 * Returns 0, or -1 when memory ran out (the registry is then unchanged). */
int tg_registry_apply(tg_registry *r, const tg_batch *batch, tg_buf *result);

/* Lets a held (changed) tool in. 0, -1 when no change is held under name,
 * -2 when it now collides, -4 when the live tools are at max_tools or its
 * source's at max_tools_per_source (held changes count against both, so
 * only when tools were put back past them: tg_registry_source_restore), -3
 * out of memory (message in why). */
int tg_registry_accept(tg_registry *r, const char *name, size_t len, char *why, size_t why_len);
/* Another source whose name maps to the same model-visible prefix as
 * source[0..len) (after mapping, up to case and look-alike characters:
 * "g.h" and "g_h", "gh" and fullwidth "ｇｈ"), or NULL: a policy pattern
 * written for one would reach the other's tools. */
const char *tg_registry_source_clash(tg_registry *r, const char *source, size_t len);

/* The source of the changed definition held under name, or NULL. */
const tg_tool *tg_registry_held(tg_registry *r, const char *name, size_t len);

/* Logs every change to the live tools, held changes and remembered
 * definitions from now on (on), or stops (0); either way clears the log. */
void tg_registry_track(tg_registry *r, int on);
/* Writes the changes logged since the last take, in order, one a line:
 * {"op":"put"|"del","source","state","name"}, and for a put a tab and the
 * tool as tg_registry_source_restore reads it; clears the log. -1 when a
 * change could not be logged (memory): the log is not whole. */
int tg_registry_take_changes(tg_registry *r, tg_buf *out);
/* Puts a source's tools back as logged (of another registry: a replaced
 * instance): {"state": "live"|"held"|"gone", "name", "digest", "handler",
 * "descriptor" (cleaned), "options"?, "sanitized"?} each, as they were:
 * registration's checks are not made again; an entry that does not read as
 * one, or whose place is taken, is skipped (*skipped counts them). Unless
 * append, the source's tools are dropped first. Starts a new epoch. -1 when
 * memory ran out: the first *done entries were handled (put back or
 * skipped), the rest not. */
int tg_registry_source_restore(tg_registry *r, const char *source, size_t len, const cJSON *list, int append,
                               size_t *skipped, size_t *done);
/* 1 when the registry holds no tool: none live, held or remembered. */
int tg_registry_empty(const tg_registry *r);
/* Moves the epoch to at least `epoch` (a new epoch when it moves): a
 * replaced instance's cursors and epochs never name this registry's. */
void tg_registry_epoch_at_least(tg_registry *r, uint64_t epoch);

/* Removes every tool of a source (and its held changes); returns the count. */
size_t tg_registry_remove_source(tg_registry *r, const char *source, size_t len);

uint64_t tg_registry_epoch(const tg_registry *r);
size_t tg_registry_count(const tg_registry *r);

/* The set of the current epoch, materialized on first use after a change;
 * borrowed (valid until the next change) unless retained. NULL: no memory. */
tg_toolset *tg_registry_current(tg_registry *r);
void tg_toolset_retain(tg_toolset *s);
void tg_toolset_release(tg_toolset *s);
uint64_t tg_toolset_epoch(const tg_toolset *s);
size_t tg_toolset_count(const tg_toolset *s);
/* Tools sorted by model-visible name. */
const tg_tool *tg_toolset_at(const tg_toolset *s, size_t i);
const tg_tool *tg_toolset_find(const tg_toolset *s, const char *name, size_t len);
/* A per-set cache slot for renderings (the router's export cache); the set
 * frees it with free_fn when it is released or the slot is set again. */
void *tg_toolset_get_cache(const tg_toolset *s);
void tg_toolset_set_cache(tg_toolset *s, void *cache, void (*free_fn)(void *));

/* t's definition read back into nodes in arena (the cleaned descriptor, as
 * listings render it), nested up to max_depth (what the runtime reads
 * JSON with); NULL when arena refuses. */
cJSON *tg_tool_definition_tree(const tg_tool *t, tg_arena *arena, size_t max_depth);

void tg_tool_retain(const tg_tool *t);
void tg_tool_release(const tg_tool *t);

#endif
