// digest.test.js - the shipped module's digests of tool definitions are
// BLAKE2s-256 of their canonical text, byte for byte as Node's own BLAKE2s
// computes it, around block edges and over many blocks: digests are compared
// across runs, machines and engines (runtimes.test.js checks one in each
// engine), so the wasm build must give the RFC 7693 digest that the native
// build's crypto_test checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createToolRuntime } from 'toolgate';

// The canonical text the registry hashes (src/registry/descriptor.c): the
// model-relevant fields, one a line, then every other member, objects with
// their keys in order. ASCII keys only here, where JS's sort is byte order.
const FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'];
const canon = (v) => (Array.isArray(v) ? `[${v.map(canon).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`
    : JSON.stringify(v));
const canonicalText = (def) => FIELDS.map((f) => `${f}=${f in def ? canon(def[f]) : ''}\n`).join('')
  + `rest={${Object.keys(def).filter((k) => !FIELDS.includes(k)).sort().map((k) => `${JSON.stringify(k)}:${canon(def[k])}`).join(',')}}\n`;

test('the shipped module digests definitions as BLAKE2s-256 does, around block edges and over many blocks', async () => {
  const rt = await createToolRuntime();
  // texts of 2 to 63 blocks, and one byte either side of a block's end (the
  // last block, even a full one, is the one with the final flag)
  for (const [i, len] of [127, 128, 129, 191, 192, 193, 1000, 4032].entries()) {
    const def = { name: `t${i}`, description: '', inputSchema: { type: 'object' }, _meta: { n: i } };
    const pad = len - Buffer.byteLength(canonicalText(def));
    for (let k = 0; k < pad; k++) def.description += String.fromCharCode(33 + ((k * 7 + i) % 94)).replace(/["\\]/, 'q');
    const text = canonicalText(def);
    assert.equal(Buffer.byteLength(text), len);
    const reg = rt.registerTool(def, () => 'ok');
    assert.equal(reg.digest, createHash('blake2s256').update(text).digest('hex'), `a ${len}-byte text`);
  }
  rt.dispose();
});
