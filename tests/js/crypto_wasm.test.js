// crypto_wasm.test.js - the wasm builds' BLAKE2s: they compile it in SIMD128
// (src/crypto/blake2s.c), which the native crypto_test cannot reach. So
// crypto_test runs here as built for wasm by both toolchains (Emscripten and
// clang + wasi-libc, build/*/crypto_test.wasm, under node:wasi), and the
// shipped module's digests of tool definitions are checked against Node's
// own BLAKE2s of the same canonical text: digests are compared across runs
// and machines, so the SIMD code must give the scalar code's, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';
import { createToolRuntime } from 'toolgate';
import { repoRoot } from './helpers.js';

/** Runs a wasm crypto_test as a WASI command: its exit code and output. */
async function runWasiTest(file) {
  if (!existsSync(file)) assert.fail(`no ${file}: run \`npm run build\` first`);
  const dir = mkdtempSync(path.join(tmpdir(), 'tg-crypto-'));
  const outFile = path.join(dir, 'out.txt');
  const fd = openSync(outFile, 'w');
  try {
    const wasi = new WASI({ version: 'preview1', args: ['crypto_test'], env: {}, stdout: fd, stderr: fd, returnOnExit: true });
    const { instance } = await WebAssembly.instantiate(readFileSync(file), wasi.getImportObject());
    const code = wasi.start(instance);
    closeSync(fd);
    return { code, out: readFileSync(outFile, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const build of ['wasm', 'wasi']) {
  test(`crypto_test passes as built for wasm (${build} build, BLAKE2s in SIMD128)`, async () => {
    const file = path.join(repoRoot, 'build', build, 'crypto_test.wasm');
    const bytes = readFileSync(file);
    // the build this test is for: the SIMD code, not the scalar code again
    assert.ok(WebAssembly.validate(bytes) && hasSimd(bytes), `${file} has no SIMD128 code`);
    const { code, out } = await runWasiTest(file);
    assert.match(out, /^crypto: [1-9]\d* passed, 0 failed$/m, out);
    assert.equal(code, 0, out);
  });
}

/** Whether a module has BLAKE2s's rotation by 16 as SIMD code: an
 * i8x16.shuffle (0xfd 0x0d) with its 16 lane indices. */
function hasSimd(bytes) {
  const ror16 = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
  outer: for (let i = 0; i + 18 <= bytes.length; i++) {
    if (bytes[i] !== 0xfd || bytes[i + 1] !== 0x0d) continue;
    for (let k = 0; k < 16; k++) if (bytes[i + 2 + k] !== ror16[k]) continue outer;
    return true;
  }
  return false;
}

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
