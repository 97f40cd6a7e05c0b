/* schema.h - JSON Schema (2020-12, 2019-09, draft-07, draft-06, draft-04)
 * compiled once into a compact program, then evaluated against instances.
 *
 * The compiler (schema_compile.c + schema_resolve.c, schema_emit.c,
 * schema_check.c) resolves every $ref/$dynamicRef/$recursiveRef to a program
 * node, interns property names, precompiles regexes and checks the schema
 * against its dialect's metaschema. The evaluator (schema_eval.c) runs the
 * program through one dispatch, in two modes sharing the program: FLAG
 * (verdict only, stops at the first error, writes nothing) and BASIC (errors
 * with locations).
 *
 * Nothing is ever fetched: $ref reaches only the schema itself, the
 * registered resources and the embedded official metaschemas. A compiled
 * tg_schema is immutable: any number of validations may share it.
 * Unknown keywords and unknown formats are ignored; "dependencies" is also
 * honoured in 2019-09/2020-12 for compatibility. A $schema that names
 * neither a known dialect nor a registered resource is treated as absent. */
#ifndef TG_SCHEMA_SCHEMA_H
#define TG_SCHEMA_SCHEMA_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "../base/alloc.h"
#include "../base/arena.h"
#include "../base/buf.h"
#include "../json/json.h"
#include "toolgate.h" /* (TG_SCODE_*: the words of a coded error) */

typedef struct tg_schema tg_schema;

typedef enum tg_dialect {
    TG_DIALECT_AUTO = 0,
    TG_DIALECT_2020_12,
    TG_DIALECT_2019_09,
    TG_DIALECT_DRAFT7,
    TG_DIALECT_DRAFT6,
    TG_DIALECT_DRAFT4
} tg_dialect;

/* A document $ref may reach, under its absolute URI. */
typedef struct tg_schema_resource {
    const char *uri;
    const cJSON *schema;
} tg_schema_resource;

/* Every limit of the module, each with a safe default
 * (tg_schema_default_options):
 *   max_depth      128    nesting of subschemas in a schema document
 *                         (compile error); evaluation nesting (subschema
 *                         applications along one path, through refs too) is
 *                         bounded by 2 * max_depth (validate -1)
 *   max_subschemas 10000  compiled subschemas; compile error
 *   max_ref_depth  64     with max_subschemas, bounds the in-place
 *                         expansion of one subschema (allOf/anyOf/oneOf/not/
 *                         if/$ref... applied to the same instance location):
 *                         more than max_subschemas * max_ref_depth
 *                         applications is a reference bomb; compile error.
 *                         In-place reference cycles are compile errors too.
 *   max_regex_bytes 4096  bytes of one pattern; compile error
 *   max_regex_states 200000  NFA instructions of all the schema's patterns
 *                         together (each pattern also has 10,000 of its own,
 *                         tg_regex_limits); compile error
 *   max_regex_ranges 131072  class ranges all the schema's patterns keep
 *                         together (32,768 a pattern); compile error. With
 *                         max_regex_states: what one schema's patterns may
 *                         hold, ~2.4 MB + ~1 MB, however many it has.
 *   max_eval_steps 10^7   subschema applications in one validation (bounds
 *                         the time any schema x instance pair can take);
 *                         validate -1
 * A zero field means its default. */
typedef struct tg_schema_limits {
    size_t max_depth;
    size_t max_subschemas;
    size_t max_ref_depth;
    size_t max_regex_bytes;
    size_t max_regex_states;
    size_t max_regex_ranges;
    size_t max_eval_steps;
} tg_schema_limits;

typedef struct tg_schema_options {
    /* AUTO: from the root's $schema, else 2020-12 (as MCP says). An explicit
     * dialect applies to every resource that has no (known) $schema; a known
     * $schema in a resource always wins. */
    tg_dialect dialect;
    int format_assert;           /* 0: formats are annotations (default); 1: assert */
    const tg_schema_resource *resources;
    size_t n_resources;
    tg_schema_limits limits;
    int skip_metaschema_check;   /* 1: do not validate the schema against its metaschema */
    /* 1: the program points into the root `schema` document instead of
     * copying it, so the document must stay unchanged and outlive the
     * program (for callers that keep it anyway).
     * Resources and metaschemas are still copied. */
    int borrow_document;
    /* 1 (with borrow_document 0): the program's copy of the root document
     * leaves out what evaluation never reads: the annotations "title",
     * "description", "$comment", "default" and "examples" and the "x-"
     * extension members of every subschema (those under the keywords that
     * hold subschemas), unless a reference's JSON Pointer names such a
     * member ("#/examples/0": a $ref may point anywhere). A tool's schema may
     * hold most of its bytes there, which as nodes cost ~30 times their
     * text for the program's whole life. The metaschema check still judges
     * `schema` as given (read during the call only). tg_schema_document
     * gives the copy. */
    int prune_document;
    /* Optional, indexed by tg_dialect: programs from tg_schema_compile_metaschema
     * reused by the metaschema check (borrowed, must outlive the call). Without
     * them every compile parses and compiles the official metaschema again
     * (~0.1 ms natively). Custom metaschemas (a $schema naming a resource) are
     * always compiled. */
    const tg_schema *metaschemas[6];
    /* Optional, indexed by tg_dialect, owned by the caller (who frees what it
     * holds with tg_schema_free): where metaschemas[] has no program for a
     * dialect, the first compile that needs it compiles it into this cache,
     * so a runtime pays only for the dialects its schemas use, and only
     * when one first shows up. */
    tg_schema **metaschema_cache;
    /* Optional: working memory for the compiler (tens of KiB a schema),
     * left as it was found. A caller compiling many schemas keeps one, so
     * each compile allocates nothing there; without it every compile
     * allocates and frees its own. */
    tg_arena *scratch;
    /* Optional: where the program lives, instead of an arena of its own
     * (a registry puts it beside its tool's copy of the descriptor: one
     * block a tool). The arena must outlive the program; tg_schema_free
     * then releases only what the program holds outside it (regexes). */
    tg_arena *arena;
    /* Optional (tests): increased by the members and items the $ref JSON
     * pointers of a successful compile looked at or compared keys with
     * (json_index.h), so a test can tell that resolving them stays
     * O(log M) per token in containers of M children. */
    size_t *ref_probes;
} tg_schema_options;

tg_schema_options tg_schema_default_options(void);

/* Compiles schema (any cJSON from json.h; the program copies what it needs
 * and keeps no pointers into `schema` or the resources, unless
 * opts->borrow_document). Returns 0 with *out
 * owned by the caller (tg_schema_free), or -1 with a diagnostic appended to
 * diag (may be NULL): a JSON Pointer into the schema and a message, e.g.
 * "/properties/a/$ref: cannot resolve 'foo.json#/x'". Unresolvable $ref,
 * invalid regex, a schema invalid against its metaschema, a limit exceeded
 * and out of memory are all errors; out of memory returns -2 (the schema may
 * be fine: callers report it as memory, not as an invalid schema). */
int tg_schema_compile(const tg_allocator *alloc, const cJSON *schema, const tg_schema_options *opts,
                      tg_schema **out, tg_buf *diag);

void tg_schema_free(tg_schema *s);

/* Compiles the official metaschema of dialect (AUTO: 2020-12) for
 * tg_schema_options.metaschemas: compile it once per runtime, pass it to
 * every tg_schema_compile. For 2020-12 and 2019-09 the program holds a flat
 * twin that gives the check's verdicts (schema_meta_flat.c); the official
 * program explains failures. 0 ok (*out owned by the caller, twin and all;
 * tg_schema_free frees both), -1 with diag. */
int tg_schema_compile_metaschema(const tg_allocator *alloc, tg_dialect dialect, tg_schema **out, tg_buf *diag);

typedef enum tg_output_mode { TG_OUTPUT_FLAG = 0, TG_OUTPUT_BASIC = 1 } tg_output_mode;

/* Validates instance. scratch: an arena the evaluator may use (the caller
 * rewinds it). A validation takes from it ~20 bytes * 2 * max_depth (the
 * instance path and dynamic scope stacks, ~5 KiB by default), the largest
 * regex scratch, and only where needed: one bit per member of the objects/
 * arrays an unevaluated* keyword looks at, and a 24-byte-per-slot hash table
 * for uniqueItems on arrays of more than 16 items. Nothing else allocates on
 * the success path; BASIC error messages are built with the schema's
 * allocator. FLAG: stops at the first error, writes
 * nothing. BASIC: collects up to max_errors (0 means 1) errors and appends
 * them to `errors` as a JSON array text:
 * [{"instanceLocation":"/a/0","keywordLocation":"/properties/a/items/type",
 *   "message":"expected integer, got string \"5\""}]
 * ("[]" when valid). Returns 1 valid, 0 invalid, -1 out of memory or an
 * evaluation limit (2 * max_depth nesting, max_eval_steps) reached. */
int tg_schema_validate(const tg_schema *s, const cJSON *instance, tg_arena *scratch, tg_output_mode mode,
                       size_t max_errors, tg_buf *errors);

/* Where BASIC errors go. out: a JSON array, as tg_schema_validate writes
 * it; with lens set, records instead: each error's instance location,
 * keyword location and message back to back in out, unquoted, and their
 * lengths in UTF-16 code units appended to lens (three uint32_t per error),
 * so a JS host slices one decoded string instead of parsing JSON. */
typedef struct tg_schema_errors {
    tg_buf *out;
    tg_buf *lens;
    /* set (with lens), for tg_schema_check_text's first error: when its
     * message is static words and at most one part read from the text, a code of
     * TG_SCODE_* words (toolgate.h) goes here instead of a record (out
     * and lens untouched) */
    tg_buf *codes;
} tg_schema_errors;

/* Renders the static part of a coded error of s (tg_sreport_site) into
 * to's out and lens as one record: keyword location, then the message with
 * byte 0x01 where the instance's part goes (a member refused by
 * properties, TG_SDYN_KEY, is located at its additionalProperties).
 * 0; -1 no such site or not a coded one; -2 out of memory. */
int tg_schema_site_words(const tg_schema *s, uint32_t site, uint32_t variant, tg_arena *scratch,
                         const tg_schema_errors *to);

/* tg_schema_validate in BASIC mode into `to`. */
int tg_schema_validate_into(const tg_schema *s, const cJSON *instance, tg_arena *scratch, size_t max_errors,
                            const tg_schema_errors *to);

/* The fast path of validation: parses text[0..len) and checks it against s
 * in one pass, building no tree. 1: the text is strict JSON within limits
 * (as tg_json_parse would accept it, duplicate keys refused) and valid
 * against s; 0: strict JSON, invalid against s (tg_schema_validate says
 * which keywords fail); -1: not decided here (malformed, or beyond the
 * one-pass check: a keyword it does not cover, escaped keys, numbers it
 * leaves to the evaluator, deep nesting): parse and validate. Its 1 and 0
 * are always tg_schema_validate's verdict. Takes a few KiB from scratch
 * (the caller resets it). first_error (may be NULL): on 0, when this pass
 * can tell the error tg_schema_validate would report first, it is appended
 * there as with max_errors 1 ("[{...}]", or one record); otherwise nothing
 * is appended (ask the evaluator). */
int tg_schema_check_text(const tg_schema *s, const char *text, size_t len, const tg_json_limits *limits,
                         tg_arena *scratch, const tg_schema_errors *first_error);

/* The root document as the program holds it: the caller's (borrow_document),
 * or the program's copy (pruned with prune_document). Lives as long as s. */
const cJSON *tg_schema_document(const tg_schema *s);

/* The dialect the root resource was compiled with. */
tg_dialect tg_schema_dialect(const tg_schema *s);

/* Format checks, exposed for reuse and tests: 1 valid, 0 invalid, -1 the
 * format is unknown (then it is never asserted). */
int tg_schema_check_format(const char *format, const char *s, size_t len);

#endif
