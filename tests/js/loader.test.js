// loader.test.js - the module loads from every form a host has, and its
// import/export surface is exactly what the loader provides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { createToolRuntime } from 'toolgate';
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

test('the core entry refuses to guess where the wasm is', async () => {
  await assert.rejects(core.createToolRuntime({}), /options\.wasm is required/);
});

test('the module imports only what the loader provides', async () => {
  const mod = new WebAssembly.Module(await readFile(wasmPath));
  const imports = WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`).sort();
  assert.deepEqual(imports, ['env.emscripten_notify_memory_growth', 'toolgate.audit', 'toolgate.invoke', 'toolgate.now', 'toolgate.random']);
  const exports = WebAssembly.Module.exports(mod).map((e) => e.name);
  for (const name of ['memory', 'tga_new', 'tga_free', 'tga_input', 'tga_register', 'tga_call_begin',
    'tga_call_complete', 'tga_check_json', 'tga_output_ptr', 'tga_error_ptr']) {
    assert.ok(exports.includes(name), `export ${name}`);
  }
});

test('the linear memory has a hard maximum', async () => {
  const rt = await createToolRuntime();
  const mod = new WebAssembly.Module(await readFile(wasmPath));
  const inst = new WebAssembly.Instance(mod, { toolgate: { invoke: () => 1, now: () => 0, random() {}, audit() {} }, env: { emscripten_notify_memory_growth() {} } });
  const pages = inst.exports.memory.buffer.byteLength / 65536;
  assert.throws(() => inst.exports.memory.grow(65536 - pages), RangeError); // 4 GiB is past the 256 MiB cap
  rt.dispose();
});
