// node.js - the Node entry (also Deno and Bun through the "node" condition):
// the core plus loading the wasm from a file path, defaulting to the
// package's own dist/toolgate.wasm.
import { createToolRuntime as createCore } from './index.js';

export * from './index.js';

export const defaultWasmURL = new URL('../../dist/toolgate.wasm', import.meta.url);

export async function createToolRuntime(options = {}) {
  let wasm = options.wasm ?? defaultWasmURL;
  // a path, unless it has a URL scheme (data:, blob:, https://; "C:\\x" is a path)
  if (typeof wasm === 'string' && !/^[a-z][a-z0-9+.-]+:/i.test(wasm)) wasm = await readFile(wasm);
  else if ((wasm instanceof URL || typeof wasm === 'string') && String(wasm).startsWith('file:')) wasm = await readFile(new URL(wasm));
  return createCore({ ...options, wasm });
}

async function readFile(path) {
  const fs = await import('node:fs/promises');
  return fs.readFile(path);
}
