#!/usr/bin/env python3
"""Emit [flags]pattern\0subject seeds: patterns from the JSON-Schema-Test-Suite
(pattern, patternProperties, format regex tests) and regex_test.c literals."""
import json, glob, os, hashlib, re, sys
data, out = sys.argv[1], sys.argv[2]; os.makedirs(out, exist_ok=True)
pairs = []
def walk(x, subjects):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == 'pattern' and isinstance(v, str): yield v
            if k == 'patternProperties' and isinstance(v, dict): yield from v.keys()
            yield from walk(v, subjects)
    elif isinstance(x, list):
        for v in x: yield from walk(v, subjects)
for f in glob.glob(f'{data}/JSON-Schema-Test-Suite/tests/draft2020-12/**/*.json', recursive=True):
    try: groups = json.load(open(f, encoding='utf-8'))
    except Exception: continue
    for g in groups:
        subs = [t['data'] for t in g['tests'] if isinstance(t['data'], str)]
        for t in g['tests']:
            if isinstance(t['data'], dict): subs += list(t['data'].keys())
        pats = list(walk(g['schema'], None))
        if 'format' in f and g['schema'].get('format') == 'regex' if isinstance(g['schema'], dict) else False:
            pats += subs
        for p in pats:
            for s in (subs or ['']):
                pairs.append((p, s))
src = open('src/regex/regex_test.c', encoding='utf-8').read()
for m in re.finditer(r'\b[MNE]\("((?:[^"\\]|\\.)*)"(?:,\s*"((?:[^"\\]|\\.)*)")?', src):
    try:
        p = bytes(m.group(1), 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')
        s = bytes(m.group(2) or '', 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')
    except Exception: continue
    pairs.append((p, s))
n = 0
for i, (p, s) in enumerate(pairs):
    blob = bytes([i % 256]) + p.encode('utf-8', 'surrogatepass') + b'\0' + s.encode('utf-8', 'surrogatepass')
    if len(blob) > 8192: continue
    open(os.path.join(out, hashlib.sha1(blob).hexdigest()), 'wb').write(blob); n += 1
print(n)
