// node.js - the Node entry (also Deno and Bun through the "node" condition):
// the core plus loading the wasm from a file path, defaulting to the
// package's own dist/toolgate.wasm.
import { createToolRuntime as createCore, compileWasm as compileCore, ToolgateError } from './index.js';

export * from './index.js';

export const defaultWasmURL = new URL('../../dist/toolgate.wasm', import.meta.url);

export async function createToolRuntime(options = {}) {
  return createCore({ ...options, wasm: await fromFile(options.wasm ?? defaultWasmURL) });
}

/** The core's compileWasm, taking what this entry's createToolRuntime takes
 * too: a file path, a file: URL, or nothing for the package's own module
 * (compile it once, share it between runtimes). */
export async function compileWasm(source = defaultWasmURL) {
  return compileCore(await fromFile(source));
}

/** The bytes of a wasm given as a file path or file: URL; any other source
 * as it is. A file that cannot be read is ToolgateError('invalid_module'),
 * as every other unusable wasm source is. */
async function fromFile(wasm) {
  // a path, unless it has a URL scheme (data:, blob:, https://; "C:\\x" is a path)
  const path = typeof wasm === 'string' && !/^[a-z][a-z0-9+.-]+:/i.test(wasm);
  if (!path && !((wasm instanceof URL || typeof wasm === 'string') && String(wasm).startsWith('file:'))) return wasm;
  const fs = await import('node:fs/promises');
  try {
    return await fs.readFile(path ? wasm : new URL(wasm));
  } catch (e) {
    throw new ToolgateError('invalid_module', `the wasm could not be read from ${String(wasm)}: ${e?.message ?? e}`);
  }
}
