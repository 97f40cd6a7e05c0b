// index.js - the core entry: web-standard APIs only, no runtime
// dependencies. Give it the wasm as a WebAssembly.Module, bytes, a Response
// or a URL; the node and browser entries fill in a default location.
import { compileWasm } from './load.js';
import { ToolRuntime } from './runtime.js';

export { ToolRuntime } from './runtime.js';
export { ToolgateError, STATUS } from './errors.js';
export { compileWasm } from './load.js';

/**
 * @param {object} options
 * @param {WebAssembly.Module|ArrayBuffer|ArrayBufferView|Response|URL|string} options.wasm
 * @param {object} [options.limits] memoryBytes, jsonDepth, argsBytes, descriptorBytes, resultBytes, tools, pendingCalls
 * @param {boolean} [options.exposeStack] put handler stack traces in error results
 */
export async function createToolRuntime(options = {}) {
  if (!options.wasm) throw new TypeError('createToolRuntime: options.wasm is required by the core entry');
  const module = await compileWasm(options.wasm);
  let rt = null;
  const instance = await WebAssembly.instantiate(module, ToolRuntime.imports(() => rt));
  rt = new ToolRuntime(instance, options);
  const config = {};
  for (const k of ['capabilities', 'descriptionBytes', 'schemaBytes', 'toolsPerSource', 'formats']) {
    if (options[k] !== undefined) config[k] = options[k];
  }
  if (Object.keys(config).length) rt.configure(config);
  return rt;
}
