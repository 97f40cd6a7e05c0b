#!/usr/bin/env python3
"""Emit [flags]schema\0instance seed files from the JSON-Schema-Test-Suite."""
import json, os, glob, hashlib, sys
root = f'{sys.argv[1]}/JSON-Schema-Test-Suite/tests'
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
dirs = {'draft2020-12': 1, 'draft2019-09': 2, 'draft7': 3, 'draft6': 4, 'draft4': 5}
n = 0
for d, code in dirs.items():
    for f in glob.glob(f'{root}/{d}/**/*.json', recursive=True):
        fmt = 8 if 'format' in f else 0
        try:
            groups = json.load(open(f, encoding='utf-8'))
        except Exception:
            continue
        for gi, g in enumerate(groups):
            s = json.dumps(g['schema'], separators=(',', ':'), ensure_ascii=False).encode()
            for ti, t in enumerate(g['tests']):
                inst = json.dumps(t['data'], separators=(',', ':'), ensure_ascii=False).encode()
                flags = code | fmt | (0x40 if (gi + ti) % 4 == 0 else 0)
                blob = bytes([flags]) + s + b'\0' + inst
                if len(blob) > 20000: continue
                open(os.path.join(out, hashlib.sha1(blob).hexdigest()), 'wb').write(blob)
                n += 1
print(n)
