/* hidden.h - context parameters (values the host injects, such as a tenant
 * id) kept out of every model-visible schema.
 *
 * A hidden name is removed exactly where removing it is exact: from
 * "properties" and "required" (and the lists of "dependentRequired" and
 * draft-07 "dependencies") of every subschema that applies in place to the
 * root instance: the root, its allOf/anyOf/oneOf branches, then/else, the
 * values of dependentSchemas/dependencies, and the target of each local
 * $ref ("#/pointer" or "#anchor") from those, at any depth up to
 * TG_HIDDEN_MAX_DEPTH. It is not removed under "if" or "not" (there removing
 * it would change which instances pass), nor as a key of dependentRequired /
 * dependentSchemas / dependencies.
 *
 * tg_hidden_check then tells whether what is left could still name a hidden
 * parameter to the model (fail closed): the tool is refused at registration
 * rather than rendered leaky. */
#ifndef TG_EXPORT_HIDDEN_H
#define TG_EXPORT_HIDDEN_H

#include <stddef.h>

#include "../json/json.h"

#define TG_HIDDEN_MAX_DEPTH 64  /* in-place nesting (applicators and $ref hops) followed */
#define TG_HIDDEN_MAX_TARGETS 256 /* distinct $ref targets followed in one walk */

/* Removes the hidden names (an array of strings; NULL or empty: nothing) from
 * schema doc in place, as described above. doc is the document $refs
 * resolve against (the caller's own copy: it is edited). A $ref target used
 * in place that is also used elsewhere (a nested property, under "if" or
 * "not", any $ref from there) describes another value there, whose own
 * field of that name stays: the in-place $ref is pointed instead at a
 * stripped copy, added to doc's "$defs" (its "definitions" when it has only
 * those) as "<last token of the $ref>_in_place" ("_2", "_3", ... when that
 * name is taken), without the original's anchors and nested "$id"s. A target used only in
 * place is stripped where it is. The root and what applies in place with it
 * without a $ref (its branches, then/else, ...) are stripped where they are;
 * a $ref that does not apply in place and names one of them ("#" in a
 * recursive root's "items", "#/allOf/0" as a property) is pointed instead
 * into an unstripped copy of the root, added as "root" ("root_2", ...) with
 * neither definitions, $id, $schema, anchors nor the hidden names' sample
 * values, where the copy's own such refs point as well. Copies are allocated
 * from a. 0; 1 when a copy was needed and could not be placed (the root's
 * "$defs" / "definitions" is no object, or more shared targets than
 * TG_HIDDEN_MAX_TARGETS): doc is then not a faithful rendering and the tool
 * must be refused; -1 when the allocator refused (doc then half done). */
int tg_hidden_strip(tg_arena *a, cJSON *doc, const cJSON *hidden);

/* After tg_hidden_strip(a, doc, hidden): 0 when no hidden name can apply to the
 * root instance any more; 1 when one still can, with a sentence naming the
 * parameter and the schema location (a JSON Pointer into doc) in why[0..n).
 * Refused (1) as well: an in-place $ref this module cannot resolve exactly
 * (not "#/pointer" or "#anchor" into doc), any in-place $dynamicRef or
 * $recursiveRef, an in-place subschema that starts its own resource ("$id")
 * below the root, and a walk that passes TG_HIDDEN_MAX_DEPTH or
 * TG_HIDDEN_MAX_TARGETS; also, anywhere in doc, a $dynamicRef or
 * $recursiveRef, or a $ref by the root's $id URI (a nested value could reach
 * the root that way and lose its own field of a hidden name), and an "$id"
 * found twice (a copy that had to keep one). Allocates nothing. */
int tg_hidden_check(const cJSON *doc, const cJSON *hidden, char *why, size_t n);

/* Takes out of copy (a copy of a subschema added to the document) every
 * "$anchor" and "$dynamicAnchor", and every "$id" whose resource resolves
 * no reference against it (one URI, one anchor names one schema: the
 * original). Returns how many "$id"s had to stay (a copy then duplicates
 * them: tg_hidden_check refuses such a schema; the export leaves the tool
 * out). */
int tg_hidden_unname_copy(cJSON *copy);

/* Keyword classes the strip and the export's walks share: a keyword whose
 * value is data, not schemas (enum, const, default, examples, example);
 * one whose members, by any name, are schemas (properties,
 * patternProperties, dependentSchemas, dependencies); the definitions
 * ($defs, definitions), which apply only through a $ref. */
int tg_kw_is_value(const cJSON *kw);
int tg_kw_is_map(const cJSON *kw);
int tg_kw_is_defs(const cJSON *kw);

#endif
