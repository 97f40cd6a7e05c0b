// index.js - the core entry: web-standard APIs only, no runtime
// dependencies. Give it the wasm as a WebAssembly.Module, bytes, a Response
// or a URL; the node and browser entries fill in a default location.
import { compileWasm } from './load.js';
import { ToolRuntime } from './runtime.js';
import { ToolgateError } from './errors.js';

export { ToolRuntime } from './runtime.js';
export { Validator } from './validator.js';
export { ToolgateError, STATUS } from './errors.js';
export { compileWasm } from './load.js';

/** True when callTool returned a pending approval instead of a result. */
export function isPendingApproval(result) {
  return result?.status === 'pending_approval';
}

/**
 * @param {object} options
 * @param {WebAssembly.Module|ArrayBuffer|ArrayBufferView|Response|URL|string} options.wasm
 * @param {object} [options.limits] memoryBytes, jsonDepth, argsBytes, descriptorBytes, resultBytes, tools, pendingCalls
 * @param {boolean} [options.exposeStack] put handler stack traces in error results
 * @param {() => number} [options.clock] the host clock in ms (default Date.now)
 * @param {string[]} [options.capabilities] capabilities tools may require
 * @param {object} [options.policy] a policy document (see docs/policy.md)
 * @param {ArrayBuffer|ArrayBufferView|string} [options.approvalKey] HMAC key for approval tokens (16-1024 bytes)
 * (and capabilities, descriptionBytes, schemaBytes, toolsPerSource, formats:
 * each option is applied or refused, as the ToolRuntime constructor does)
 */
export async function createToolRuntime(options = {}) {
  if (!options.wasm) throw new TypeError('createToolRuntime: options.wasm is required by the core entry');
  let module;
  try {
    module = await compileWasm(options.wasm);
  } catch (e) {
    throw new ToolgateError('invalid_module', `the wasm could not be loaded or compiled: ${e?.message ?? e}`);
  }
  // (the constructor applies every other option: one that took a Module
  // alone would run without the policy, key and configuration)
  const { wasm, ...rest } = options;
  return new ToolRuntime(module, rest);
}
