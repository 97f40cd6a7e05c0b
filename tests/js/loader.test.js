// loader.test.js - the module loads from every form a host has, and its
// import/export surface is exactly what the loader provides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { createToolRuntime, compileWasm, defaultWasmURL, ToolRuntime } from 'toolgate';
import * as core from 'toolgate/core';
import { wasmPath } from './helpers.js';

const echo = { name: 'echo', inputSchema: { type: 'object', properties: { x: {} }, required: ['x'] } };

async function roundTrip(rt) {
  rt.registerTool(echo, ({ x }) => ({ got: x }));
  const r = await rt.callTool('echo', '{"x":42}');
  assert.deepEqual(r.structuredContent, { got: 42 });
  rt.dispose();
}

test('loads from the default location, a path, a file URL, bytes and a compiled Module', async () => {
  const bytes = await readFile(wasmPath);
  await roundTrip(await createToolRuntime());
  await roundTrip(await createToolRuntime({ wasm: wasmPath }));
  await roundTrip(await createToolRuntime({ wasm: pathToFileURL(wasmPath) }));
  await roundTrip(await createToolRuntime({ wasm: bytes }));
  await roundTrip(await createToolRuntime({ wasm: new WebAssembly.Module(bytes) }));
  await roundTrip(await core.createToolRuntime({ wasm: await WebAssembly.compile(bytes) }));
});

test('a data: URL and a DataView load too; what is not the toolgate module is a typed error', async () => {
  const bytes = await readFile(wasmPath);
  for (const wasm of ['data:application/wasm;base64,' + bytes.toString('base64'), new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)]) {
    const rt = await createToolRuntime({ wasm });
    await roundTrip(rt);
    rt.dispose();
  }
  const wasi = wasmPath.replace(/toolgate\.wasm$/, 'toolgate-wasi.wasm');
  for (const wasm of [new Uint8Array([1, 2, 3]), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]), await readFile(wasi)]) {
    await assert.rejects(createToolRuntime({ wasm }), (e) => e instanceof core.ToolgateError && e.code === 'invalid_module');
  }
});

test('the core entry refuses to guess where the wasm is', async () => {
  await assert.rejects(core.createToolRuntime({}), /options\.wasm is required/);
});

test('the module imports only what the loader provides', async () => {
  const mod = new WebAssembly.Module(await readFile(wasmPath));
  const imports = WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`).sort();
  assert.deepEqual(imports, ['env.emscripten_notify_memory_growth', 'env.memory', 'toolgate.audit', 'toolgate.invoke', 'toolgate.now', 'toolgate.random']);
  const exports = WebAssembly.Module.exports(mod).map((e) => e.name);
  for (const name of ['tga_new', 'tga_free', 'tga_input', 'tga_register', 'tga_call_begin',
    'tga_call_complete', 'tga_check_json', 'tga_output_ptr', 'tga_error_ptr']) {
    assert.ok(exports.includes(name), `export ${name}`);
  }
});

test('the linear memory has a hard maximum: 256 MiB', async () => {
  const mod = new WebAssembly.Module(await readFile(wasmPath));
  const imports = (memory) => ({ toolgate: { invoke: () => 1, now: () => 0, random() {}, audit() {} }, env: { memory, emscripten_notify_memory_growth() {} } });
  // the module takes no memory that could grow past its cap
  assert.throws(() => new WebAssembly.Instance(mod, imports(new WebAssembly.Memory({ initial: 32 }))), WebAssembly.LinkError);
  assert.throws(() => new WebAssembly.Instance(mod, imports(new WebAssembly.Memory({ initial: 32, maximum: 4097 }))), WebAssembly.LinkError);
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 4096 });
  new WebAssembly.Instance(mod, imports(memory));
  assert.throws(() => memory.grow(4096), RangeError);
});

test('a disposed runtime refuses every use, and its memory serves the next runtime zeroed', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'secret_keeper', description: 'keeps TOP-SECRET-4711', inputSchema: { type: 'object' } }, () => 'ok');
  const size = rt.memorySize();
  rt.dispose();
  rt.dispose(); // twice is fine
  assert.throws(() => rt.listTools(), (e) => e.code === 'disposed');
  const r = await rt.callTool('secret_keeper', '{}'); // callTool answers with a result, never a throw
  assert.equal(r.isError, true);
  assert.equal(r._meta['dev.toolgate/error'].code, 'disposed');
  const next = await createToolRuntime();
  assert.equal(next.memorySize(), size); // the same memory, pages already touched
  const secret = new TextEncoder().encode('TOP-SECRET-4711');
  const bytes = new Uint8Array(next._memory().buffer);
  const at = bytes.findIndex((b, i) => b === secret[0] && secret.every((c, k) => bytes[i + k] === c));
  assert.equal(at, -1, 'nothing of the disposed runtime is left in the memory'); // it was zeroed
  assert.deepEqual(next.listTools().tools, []);
  next.registerTool({ name: 'other', inputSchema: { type: 'object' } }, () => 'ok');
  assert.equal((await next.callTool('other', '{}')).content[0].text, 'ok');
  next.dispose();
});

test('a wasm path or file: URL that cannot be read is a typed error (invalid_module), as every other unusable source', async () => {
  const missing = path.join(path.dirname(wasmPath), 'no-such-toolgate.wasm');
  for (const wasm of [missing, pathToFileURL(missing), pathToFileURL(missing).href, path.dirname(wasmPath)]) {
    await assert.rejects(createToolRuntime({ wasm }), (e) => e instanceof core.ToolgateError && e.code === 'invalid_module', String(wasm));
    await assert.rejects(compileWasm(wasm), (e) => e instanceof core.ToolgateError && e.code === 'invalid_module', String(wasm));
  }
});

test('the node entry\'s compileWasm takes what its createToolRuntime takes: a path, a file: URL, or nothing', async () => {
  for (const source of [undefined, defaultWasmURL, wasmPath, pathToFileURL(wasmPath).href]) {
    const mod = await compileWasm(source);
    assert.ok(mod instanceof WebAssembly.Module, String(source));
    await roundTrip(await createToolRuntime({ wasm: mod }));
    await roundTrip(new ToolRuntime(mod));
  }
});

test('new ToolRuntime(module, options) applies every option createToolRuntime does, or refuses it', async () => {
  const mod = await compileWasm();
  // a policy that grants nothing: the tool is denied, not run
  const strict = new ToolRuntime(mod, { policy: { version: 1, defaults: [], rules: [] } });
  strict.registerTool(echo, () => 'ran');
  const r = await strict.callTool('echo', '{"x":1}');
  assert.equal(r._meta?.['dev.toolgate/error']?.code, 'denied');
  strict.dispose();
  // configuration (capabilities, formats) and the approval key
  const configured = new ToolRuntime(mod, { capabilities: ['db'], formats: 'assert', approvalKey: 'k'.repeat(32), wasm: mod });
  configured.registerTool({ name: 'q', inputSchema: { type: 'object', properties: { d: { type: 'string', format: 'date' } } } }, () => 'ran', { requires: ['db'] });
  assert.equal((await configured.callTool('q', '{"d":"not a date"}'))._meta?.['dev.toolgate/error']?.code, 'invalid_arguments');
  configured.dispose();
  // what cannot be applied is refused, never dropped
  assert.throws(() => new ToolRuntime(mod, { policy: { version: 99 } }), (e) => e.code === 'invalid_policy');
  assert.throws(() => new ToolRuntime(mod, { approvalKey: 'short' }), (e) => e.code === 'invalid_request');
  assert.throws(() => new ToolRuntime(mod, { formats: 'sometimes' }), (e) => e.code === 'invalid_request');
  assert.throws(() => new ToolRuntime(mod, { wasm: wasmPath }), TypeError);
});

test('after dispose, the cleanup handles the runtime gave out are quiet, as dispose() is', async () => {
  const rt = await createToolRuntime();
  rt.registerTool(echo, () => 1);
  const snap = rt.snapshot();
  const stop = rt.onAudit(() => {});
  const v = rt.compileSchema({});
  rt.dispose();
  snap.release();
  stop();
  stop();
  v.dispose();
  rt.dispose();
  assert.throws(() => rt.snapshot(), (e) => e.code === 'disposed'); // (use is still refused)
});
