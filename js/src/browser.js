// browser.js - the browser entry: the core plus a default of fetching
// dist/toolgate.wasm next to the package (streaming compile when served as
// application/wasm).
import { createToolRuntime as createCore, compileWasm as compileCore } from './index.js';

export * from './index.js';

export const defaultWasmURL = new URL('../../dist/toolgate.wasm', import.meta.url);

export function createToolRuntime(options = {}) {
  return createCore({ ...options, wasm: options.wasm ?? defaultWasmURL });
}

/** The core's compileWasm, with the same default as createToolRuntime. */
export function compileWasm(source = defaultWasmURL) {
  return compileCore(source);
}
