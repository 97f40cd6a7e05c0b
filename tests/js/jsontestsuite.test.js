// jsontestsuite.test.js - the strict reader inside the wasm module against
// JSONTestSuite: 95/95 y_ accepted, 188/188 n_ rejected, i_ as documented
// (numbers accepted, invalid UTF-8 / lone surrogates / BOM / 500-deep rejected).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { createToolRuntime } from 'toolgate';
import { testdata } from './helpers.js';

const dir = path.join(testdata, 'JSONTestSuite', 'test_parsing');

test('JSONTestSuite in the wasm build', { skip: !existsSync(dir) && `no JSONTestSuite at ${dir}` }, async () => {
  const rt = await createToolRuntime();
  const counts = { y: [0, 0], n: [0, 0], i: [0, 0] };
  for (const name of (await readdir(dir)).sort()) {
    const kind = name[0];
    if (!'yni'.includes(kind) || name[1] !== '_') continue;
    const bytes = await readFile(path.join(dir, name));
    const res = rt.checkJSON(new Uint8Array(bytes), { allowDuplicateKeys: true });
    counts[kind][1]++;
    if (kind === 'y') {
      assert.ok(res.ok, `${name}: ${res.message}`);
      counts.y[0] += res.ok;
    } else if (kind === 'n') {
      assert.ok(!res.ok, `${name} accepted`);
      assert.ok(Number.isInteger(res.offset) && res.offset <= bytes.length, `${name}: offset ${res.offset}`);
      counts.n[0] += !res.ok;
    } else {
      const expectAccept = name.startsWith('i_number_');
      assert.equal(res.ok, expectAccept, `${name}: ${res.message}`);
      counts.i[0] += res.ok;
    }
  }
  assert.deepEqual([counts.y, counts.n], [[95, 95], [188, 188]]);
  console.log(`wasm JSONTestSuite: y_ ${counts.y[0]}/${counts.y[1]} accepted, n_ ${counts.n[0]}/${counts.n[1]} rejected, i_ ${counts.i[0]} accepted of ${counts.i[1]}`);
  rt.dispose();
});

test('duplicate keys are accepted by the grammar check only when asked', async () => {
  const rt = await createToolRuntime();
  assert.equal(rt.checkJSON('{"a":1,"a":2}').code, 'invalid_json');
  assert.ok(rt.checkJSON('{"a":1,"a":2}', { allowDuplicateKeys: true }).ok);
  rt.dispose();
});
