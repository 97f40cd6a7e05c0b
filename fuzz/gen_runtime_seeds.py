#!/usr/bin/env python3
"""Seeds for fuzz/runtime.c: [flags] descriptor\0options\0batch\0policy\0name\0args\0ctx\0result\0config"""
import json, os, hashlib, itertools, sys
out = sys.argv[2]; os.makedirs(out, exist_ok=True)
W = {"name": "get_weather", "description": "Weather for a city", "inputSchema": {"type": "object",
     "properties": {"city": {"type": "string", "minLength": 1}, "units": {"enum": ["c", "f"]},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7}}, "required": ["city"]}}
W2 = {"name": "deploy.prod", "title": "Deploy", "inputSchema": {"type": "object", "$defs": {"e": {"type": "string", "format": "email"}},
      "properties": {"who": {"$ref": "#/$defs/e"}, "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                     "opt": {"anyOf": [{"type": "null"}, {"type": "number", "multipleOf": 0.5}]}},
      "additionalProperties": False}, "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}
W3 = {"name": "Ωmega-tool with spaces", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "pattern": "^/[a-z]+"}},
      "patternProperties": {"^x-": {"type": "string"}}, "if": {"required": ["path"]}, "then": {"properties": {"n": {"const": 1}}}}}
batch = {"source": "fs", "tools": [{"tool": {"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}, "handler": 2},
                                    {"tool": {"name": "move_file", "inputSchema": {"type": "object"}}, "handler": 3, "options": {"needsApproval": True}},
                                    {"tool": W2, "handler": 4, "options": {"readOnly": True, "context": {"tenant": "tenant_id"}}}]}
batch2 = {"source": "gh", "nameTemplate": "{source}_{tool}", "atomic": True, "replace": True, "tools": [{"tool": W3, "handler": 9}]}
policy = json.load(open('examples/gateway-policy.json'))
policy2 = {"version": 1, "defaults": ["*"], "rules": [{"id": "ask", "effect": "ask", "tools": ["get_weather"], "args": {"city": {"prefix": "O"}}}],
           "rate_limits": [{"id": "r", "tools": ["*"], "capacity": 2, "refill_per_second": 1}],
           "session_budgets": [{"id": "b", "tools": ["*"], "max_calls": 3}]}
opts = [{}, {"needsApproval": True}, {"timeoutMs": 10, "requires": ["net"], "context": {"city": "city_key"}, "contextParams": "drop"}, {"privileged": True, "tenant": "acme"}]
calls = [("get_weather", {"city": "Oslo", "days": 3}, {}), ("get_weather", {"city": ""}, {"context": {"city_key": "Bergen"}, "session": "s1"}),
         ("mcp__fs__read_file", {"path": "/x/.env"}, {"principal": "reader-agent"}), ("mcp__fs__move_file", {}, {"session": "s", "mode": "plan"}),
         ("mcp__fs__deploy_prod", {"who": "a@b.c", "tags": ["a", "a"], "opt": 1.5}, {"context": {"tenant_id": "t1"}}),
         ("gh_mega-tool_with_spaces", {"path": "/abc", "x-1": "y", "n": 1}, {"source": "gh"})]
results = ['{"content":[{"type":"text","text":"hi"}],"structuredContent":{"ok":true}}', '"plain"', '{"temp":20}', 'not json', '[1,2]']
configs = ['', '{"capabilities":["net"],"formats":"assert"}', '{"descriptionBytes":10,"schemaBytes":100000,"toolsPerSource":2}']
n = 0
for i, (d, o, b, p, c, r, cfg) in enumerate(itertools.product([W, W2, W3], opts, [None, batch, batch2], [None, policy, policy2], calls, results[:2], configs[:2])):
    if i % 7: continue
    name, args, ctx = c
    fields = [json.dumps(d, ensure_ascii=False), json.dumps(o) if o else '', json.dumps(b, ensure_ascii=False) if b else '', json.dumps(p) if p else '',
              name, json.dumps(args), json.dumps(ctx) if ctx else '', r, cfg]
    blob = bytes([i % 256]) + b'\0'.join(x.encode() for x in fields)
    open(os.path.join(out, hashlib.sha1(blob).hexdigest()), 'wb').write(blob); n += 1
print(n)
