/* export.h - render one registry tool (an MCP Tool descriptor) in the tool
 * format of an LLM provider.
 *
 * Each provider accepts a different subset of JSON Schema. The renderer is
 * exact where it can be; every place where the model-visible schema is
 * loosened (a constraint dropped or weakened) is appended to `report`. That
 * is safe because toolgate validates every call against the FULL original
 * inputSchema anyway; the report exists so nothing is lost silently.
 *
 * Report entries (appended to `report` when it is not NULL), two kinds:
 *   - a loss:     {"tool": name, "path": "/inputSchema/properties/x/oneOf",
 *                  "issue": "human sentence"}
 *                 path is a JSON Pointer into the descriptor (for the
 *                 OpenAI strict rendering it is "/inputSchema" + the pointer
 *                 in the rendered schema, which mirrors the original except
 *                 where a root allOf/anyOf was merged or oneOf became anyOf).
 *   - a nullable: {"tool": name, "path": "/properties/a/properties/b",
 *                  "nullable": true}   (TG_EXPORT_OPENAI_STRICT only)
 *                 The property whose subschema sits at `path` was optional in
 *                 the original; strict mode lists every property in
 *                 "required", so it was made nullable instead. Here `path` is
 *                 a JSON Pointer into the rendered "parameters" schema (no
 *                 "/inputSchema" prefix; it may run through "/$defs/N",
 *                 "/items", "/anyOf/i"). The call path must walk the
 *                 arguments alongside the rendered schema and delete such a
 *                 property when its value is null before validating against
 *                 the original schema. An optional property that already
 *                 accepted null is NOT listed (null is passed through, and a
 *                 loss entry says the model can no longer omit it).
 *                 Nullable entries are only emitted when the strict
 *                 rendering succeeded (*strict_ok == 1).
 *
 * What each format does is described at tg_export_format. Schemas nested
 * deeper than 64 levels are cut at that depth (reported). */
#ifndef TG_EXPORT_EXPORT_H
#define TG_EXPORT_EXPORT_H

#include <stddef.h>

#include "../json/json.h"

/* What one tool's rendering may take from the arena (working copies, report
 * entries and the output: the output's JSON text is smaller still). A tool
 * whose rendering needs more (a small schema whose $ref expansion or merging
 * amplifies, e.g. Gemini's inlining or strict mode's allOf merging through a
 * recursive root) is left out of that format's list, reported; so is one
 * whose rendering runs out of memory: never the whole list. */
#define TG_EXPORT_MAX_BYTES ((size_t)8 << 20)
#define TG_EXPORT_MAX_BYTES_TEXT "8 MiB"
/* ... and as many schema nodes rendered or merged (the work bound). */
#define TG_EXPORT_MAX_STEPS 200000ul
#define TG_EXPORT_MAX_STEPS_TEXT "200,000"

typedef enum tg_export_format {
    /* The descriptor itself with "name" replaced and hidden properties
     * removed; every other field kept (title, outputSchema, annotations,
     * icons, execution, _meta, unknown fields). Never lossy. */
    TG_EXPORT_MCP,
    /* {"name","description","input_schema"}; input_schema is the root
     * normalised (see below), nested schemas untouched. A tool whose root
     * has a property name outside ^[a-zA-Z0-9_.-]{1,64}$ (which Anthropic
     * refuses, failing the whole request) renders as JSON null: left out of
     * the list, with a report entry. */
    TG_EXPORT_ANTHROPIC,
    /* {"type":"function","function":{"name","description","parameters",
     * "strict":false}} with the normalised root. */
    TG_EXPORT_OPENAI,
    /* Same shape with "strict":true when the schema can be made strict:
     * every object gets "additionalProperties":false and all its properties
     * in "required"; optional properties become nullable (nullable entries
     * above). Otherwise falls back to the TG_EXPORT_OPENAI rendering with
     * "strict":false, *strict_ok = 0 and report entries saying why. */
    TG_EXPORT_OPENAI_STRICT,
    /* {"name","description","parameters"} in Gemini's OpenAPI 3.0 subset;
     * "parameters" omitted when the tool takes no arguments; every array
     * schema carries "items" ({} when unconstrained: Gemini refuses one
     * without). A tool with a parameter name Gemini refuses renders as JSON
     * null: left out, with a report entry. */
    TG_EXPORT_GEMINI,
    /* Amazon Bedrock's Converse API: {"toolSpec":{"name","description",
     * "inputSchema":{"json": the normalised root}}}; "description" left out
     * when empty (Bedrock wants at least one character); property names
     * held to Anthropic's rule, as for TG_EXPORT_ANTHROPIC (Claude on
     * Bedrock refuses the same). */
    TG_EXPORT_BEDROCK
} tg_export_format;

/* Root normalisation (Anthropic, OpenAI, Gemini): providers reject a root
 * that is not "type":"object" or that carries oneOf/anyOf/allOf.
 *   - a root local "$ref" is inlined (exact);
 *   - root allOf branches are merged into the root (exact when properties,
 *     required, types and bounds combine; a property defined differently in
 *     two branches becomes {"allOf":[a,b]} inside the property, exact);
 *   - a single-branch anyOf/oneOf is merged the same way (exact);
 *   - a multi-branch anyOf/oneOf is loosened (reported), never narrower than
 *     a branch: the root lists every property a branch declares, each with
 *     what the branches together allow for it (the definition they share
 *     when every branch that allows it defines it identically; an anyOf of
 *     their definitions when they differ; no constraint, title/description
 *     kept, when a branch lets any value through: it declares the property
 *     true/{} or leaves it open, i.e. not in its own "properties" and no
 *     additionalProperties false; a branch that declares it false, or has
 *     additionalProperties false and no patternProperties, takes no part),
 *     and requires only what every branch requires; a root property keeps
 *     the root's own definition. Each property shown looser than a branch
 *     defines it is reported at that definition
 *     ("/inputSchema/anyOf/0/properties/p", or the $ref target's);
 *   - missing root type becomes "object"; a non-object root becomes
 *     {"type":"object"} (reported); root not/enum/const are dropped
 *     (reported);
 *   - a "#" or "#/..." $ref anywhere in the rendering that points outside
 *     $defs/definitions (into what the steps above removed or changed, e.g.
 *     "#/allOf/0/properties/home") points instead at a copy of its original
 *     target added to "$defs" (key from the pointer: "allOf_0_properties_home",
 *     "root" for "#"; exact); one that resolves nowhere is dropped
 *     (reported). No rendering holds a dangling $ref. */

/* Renders one tool. name[0..name_len): the model-visible name (already
 * provider-safe). descriptor: the MCP Tool object. hidden: NULL or an array
 * of context parameter names removed from the inputSchema where that is
 * exact (hidden.h; the registry refuses a schema tg_hidden_check flags).
 * report: NULL or an array node that receives the entries described above.
 * strict_ok: may be NULL; for TG_EXPORT_OPENAI_STRICT set to 1 when the
 * output says "strict":true, else 0; for other formats set to 0.
 * Returns the rendered node (owned by arena; a JSON null when the tool is
 * left out of this format, reported: a name the provider refuses, a
 * rendering past TG_EXPORT_MAX_BYTES / TG_EXPORT_MAX_STEPS or out of memory
 * (what it took from arena is given back), a copy that would repeat a
 * nested "$id" its resource resolves references against) or NULL when
 * even that report entry could not be allocated. */
cJSON *tg_export_tool(tg_arena *arena, tg_export_format fmt, const char *name, size_t name_len,
                      const cJSON *descriptor, const cJSON *hidden, cJSON *report, int *strict_ok);

/* Renders n tools (descriptors[i] named names[i][0..name_lens[i]), no hidden
 * properties) and appends the provider's list JSON text to out:
 *   MCP {"tools":[...]}, Anthropic [...], OpenAI [...] (both OpenAI formats),
 *   Gemini [{"functionDeclarations":[...]}].
 * Returns 0, or -1 on out-of-memory (arena or buffer). */
int tg_export_list(tg_arena *arena, tg_export_format fmt, const cJSON *const *descriptors,
                   const char *const *names, const size_t *name_lens, size_t n, tg_buf *out,
                   cJSON *report);

#endif
