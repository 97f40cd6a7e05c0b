#!/usr/bin/env python3
"""gen_flat_meta.py - writes schema_meta_flat.c: the 2020-12 and 2019-09
metaschemas flattened into one document each, for the verdict of the
metaschema check (schema_check.c). Run from anywhere; reads the embedded
official documents out of schema_meta.c. With --check it only tells whether
the committed file is what it would write (scripts/test.sh runs that).

Why: the official 2020-12 metaschema is an allOf of seven vocabulary
metaschemas, each "type": ["object", "boolean"] plus a "properties" table,
whose subschemas point back with "$dynamicRef": "#meta" (2019-09:
"$recursiveRef": "#"). Checked from its root, every such reference lands on
the root itself (the outermost resource in the dynamic scope with that
anchor), so the whole is exactly one schema: that type, the union of the
properties tables (their names are disjoint; checked here), and the
references turned into "$ref": "#". The evaluator then visits one node per
subschema instead of eight. The official documents still explain a
failure: only the verdict comes from the flat one, and
tests/conformance/flat_meta_test.c holds the two to the same verdicts over
every schema and instance of the JSON-Schema-Test-Suite.

What the flat documents keep: assertions only. Annotations ("title",
"$comment", "default", "deprecated") change no verdict and are dropped;
"format" stays (the check runs with formats as annotations, as the official
run does)."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ANNOTATIONS = {"title", "$comment", "default", "deprecated", "description", "examples"}
# what a vocabulary metaschema may hold for the flattening to be exact
VOCAB_KEYS = {"$schema", "$id", "$vocabulary", "$dynamicAnchor", "$recursiveAnchor", "title", "type",
              "properties", "$defs", "$comment"}


def official_docs():
    text = open(os.path.join(HERE, "schema_meta.c"), encoding="utf-8").read()
    lit = r'"(?:[^"\\]|\\.)*"'
    docs = {}
    for m in re.finditer(r"\{\s*(" + lit + r")\s*,\s*((?:" + lit + r"\s*)+)\}", text):
        uri = json.loads(m.group(1))
        body = "".join(json.loads(s) for s in re.findall(lit, m.group(2)))
        docs[uri] = json.loads(body)
    return docs


def flatten(docs, root_uri, dyn_key, dyn_value):
    root = docs[root_uri]
    base = root_uri.rsplit("/", 1)[0] + "/"  # .../draft/2020-12/
    defs = {}

    def vocab_name(uri):
        return uri.rsplit("/", 1)[1]

    def rewrite(node, here):
        """here: the vocabulary (or 'schema') whose document node is in."""
        if isinstance(node, list):
            return [rewrite(x, here) for x in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for k, v in node.items():
            if k in ANNOTATIONS:
                continue
            if k == dyn_key:
                if v != dyn_value:
                    sys.exit(f"gen_flat_meta: unexpected {dyn_key} {v!r}")
                out["$ref"] = "#"
            elif k == "$ref":
                out["$ref"] = ref_target(v, here)
            elif k in ("properties", "$defs", "patternProperties", "dependentSchemas"):
                out[k] = {name: rewrite(s, here) for name, s in v.items()}
            else:
                out[k] = rewrite(v, here)
        return out

    def ref_target(ref, here):
        doc, _, frag = ref.partition("#")
        where = vocab_name(doc) if doc else here
        if not frag.startswith("/$defs/") or "/" in frag[len("/$defs/"):]:
            sys.exit(f"gen_flat_meta: unexpected $ref {ref!r} in {here}")
        name = frag[len("/$defs/"):]
        key = f"{where}_{name}"
        if key not in defs:
            src = docs[base + "meta/" + where] if where != "schema" else root
            defs[key] = None  # (reserved: recursion)
            defs[key] = rewrite(src["$defs"][name], where)
        return "#/$defs/" + key

    props = {}
    vocab_refs = [s["$ref"] for s in root["allOf"]]
    for ref in vocab_refs:
        name = vocab_name(ref)
        doc = docs[base + ref]
        extra = set(doc) - VOCAB_KEYS
        if extra:
            sys.exit(f"gen_flat_meta: {name} holds {sorted(extra)}: the flattening would not be exact")
        if doc.get("type") != ["object", "boolean"]:
            sys.exit(f"gen_flat_meta: {name} has type {doc.get('type')!r}")
        for k, s in doc.get("properties", {}).items():
            if k in props:
                sys.exit(f"gen_flat_meta: property {k!r} appears twice")
            props[k] = rewrite(s, name)
    extra = set(root) - VOCAB_KEYS - {"allOf"}
    if extra or root.get("type") != ["object", "boolean"]:
        sys.exit(f"gen_flat_meta: the root holds {sorted(extra)}")
    for k, s in root.get("properties", {}).items():
        if k in props:
            sys.exit(f"gen_flat_meta: property {k!r} appears twice")
        props[k] = rewrite(s, "schema")
    return {"$schema": root_uri, "type": ["object", "boolean"], "properties": props, "$defs": defs}


def c_string(text, width=110):
    body = json.dumps(text)[1:-1]
    parts = []
    while body:
        cut = min(width, len(body))
        while body[cut - 1] == "\\" and cut < len(body):  # never split an escape
            cut += 1
        parts.append(body[:cut])
        body = body[cut:]
    return "\n".join(f'    "{p}"' for p in parts)


def main():
    docs = official_docs()
    flat = [
        ("TG_DIALECT_2020_12", flatten(docs, "https://json-schema.org/draft/2020-12/schema", "$dynamicRef", "#meta")),
        ("TG_DIALECT_2019_09", flatten(docs, "https://json-schema.org/draft/2019-09/schema", "$recursiveRef", "#")),
    ]
    out = ["/* schema_meta_flat.c - GENERATED by gen_flat_meta.py from schema_meta.c; do not edit.",
           " * The 2020-12 and 2019-09 metaschemas as one document each, for the",
           " * verdict of the metaschema check (why and how: gen_flat_meta.py). */",
           '#include "schema_internal.h"', "",
           "const char *tg_smeta_flat(tg_dialect d) {",
           "    switch (d) {"]
    for name, doc in flat:
        text = json.dumps(doc, separators=(",", ":"))
        out.append(f"    case {name}:")
        out.append("        return")
        out.append(c_string(text) + ";")
    out += ["    default: return NULL;", "    }", "}", ""]
    text = "\n".join(out)
    path = os.path.join(HERE, "schema_meta_flat.c")
    if "--check" in sys.argv:  # scripts/test.sh: the committed file is what this writes
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit("gen_flat_meta: schema_meta_flat.c is not what gen_flat_meta.py writes: run it")
        print("gen_flat_meta: schema_meta_flat.c is up to date")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
