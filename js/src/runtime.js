// runtime.js - ToolRuntime: the JS face of one wasm instance. It moves bytes
// in and out of linear memory and runs handlers; every judgement (parsing,
// checking, shaping results) happens in the module.
import { STATUS, ToolgateError } from './errors.js';

const TG_OK = 0;
const TG_PENDING = 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

function limitArgs(limits = {}) {
  const n = (v) => (v === undefined ? 0 : Math.max(0, Math.min(0xffffffff, Math.floor(v))));
  return [n(limits.memoryBytes), n(limits.jsonDepth), n(limits.argsBytes), n(limits.descriptorBytes),
    n(limits.resultBytes), n(limits.tools), n(limits.pendingCalls)];
}

export class ToolRuntime {
  #exports;
  #memory;
  #u8 = null;
  #handle;
  #handlers = new Map();
  #nextHandler = 1;
  #invoked = null; // set by the invoke import during tga_call_begin
  #exposeStack;

  /** Use createToolRuntime(); this constructor takes an instantiated module. */
  constructor(instance, options) {
    this.#exports = instance.exports;
    this.#memory = instance.exports.memory;
    this.#exposeStack = Boolean(options.exposeStack);
    if (typeof this.#exports._initialize === 'function') this.#exports._initialize();
    this.#handle = this.#exports.tga_new(...limitArgs(options.limits));
    if (!this.#handle) throw new ToolgateError('out_of_memory', 'the module could not create a runtime');
  }

  /** The imports the module needs; `self` receives invoke calls. */
  static imports(getSelf) {
    return {
      toolgate: {
        invoke: (handlerId, callId, ptr, len) => getSelf().#onInvoke(handlerId, callId, ptr, len),
      },
      env: { emscripten_notify_memory_growth: () => {} },
    };
  }

  #onInvoke(handlerId, callId, ptr, len) {
    if (!this.#handlers.has(handlerId)) return 1;
    this.#invoked = { handlerId, callId, args: decoder.decode(this.#bytes().subarray(ptr, ptr + len)) };
    return 0;
  }

  #bytes() {
    if (!this.#u8 || this.#u8.buffer !== this.#memory.buffer) this.#u8 = new Uint8Array(this.#memory.buffer);
    return this.#u8;
  }

  /** Writes strings/bytes back to back into the input area; returns their byte lengths. */
  #write(...parts) {
    let max = 0;
    for (const p of parts) max += typeof p === 'string' ? p.length * 3 : p.length;
    const ptr = this.#exports.tga_input(this.#handle, max);
    if (!ptr) throw new ToolgateError('out_of_memory', 'the module has no room for this input');
    const mem = this.#bytes();
    const lens = [];
    let at = ptr;
    for (const p of parts) {
      let n;
      if (typeof p === 'string') n = encoder.encodeInto(p, mem.subarray(at, at + p.length * 3)).written;
      else { mem.set(p, at); n = p.length; }
      lens.push(n);
      at += n;
    }
    return lens;
  }

  #text(ptrFn, lenFn) {
    const ptr = this.#exports[ptrFn](this.#handle);
    const len = this.#exports[lenFn](this.#handle);
    return decoder.decode(this.#bytes().subarray(ptr, ptr + len));
  }

  #lastError(status) {
    const text = this.#text('tga_error_ptr', 'tga_error_len');
    const e = text ? JSON.parse(text) : { code: STATUS[status] ?? 'unknown', message: 'failed' };
    const { code, message, ...diagnostics } = e;
    return new ToolgateError(code, message, diagnostics);
  }

  /**
   * Registers a tool. descriptor: an MCP Tool (object or JSON text).
   * handler(args, { callId }) may be async. Throws ToolgateError on a bad
   * descriptor or a name already taken; the registry is then unchanged.
   * @returns {{ name: string }}
   */
  registerTool(descriptor, handler) {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    const text = typeof descriptor === 'string' ? descriptor : JSON.stringify(descriptor);
    const id = this.#nextHandler++;
    const [len] = this.#write(text);
    const status = this.#exports.tga_register(this.#handle, len, id);
    if (status !== TG_OK) throw this.#lastError(status);
    this.#handlers.set(id, handler);
    return JSON.parse(this.#text('tga_output_ptr', 'tga_output_len'));
  }

  /**
   * Calls a tool through the gate. args: JSON text (what providers return),
   * UTF-8 bytes, or a JS value. Never throws for the call's own failures:
   * unknown tools, bad arguments and handler errors come back as a
   * CallToolResult with isError: true (gate errors carry
   * _meta['dev.toolgate/error'].code).
   * @returns {Promise<object>} MCP CallToolResult
   */
  async callTool(name, args = {}, ctx = {}) {
    let argBytes;
    if (typeof args === 'string' || args instanceof Uint8Array) argBytes = args;
    else {
      try { argBytes = JSON.stringify(args) ?? 'null'; } catch (e) {
        return gateError('invalid_json', `Arguments cannot be written as JSON: ${e.message}`);
      }
    }
    const [nameLen, argsLen] = this.#write(String(name), argBytes);
    this.#invoked = null;
    const status = this.#exports.tga_call_begin(this.#handle, nameLen, argsLen);
    if (status !== TG_PENDING) return JSON.parse(this.#text('tga_output_ptr', 'tga_output_len'));
    const job = this.#invoked;
    this.#invoked = null;
    const handler = this.#handlers.get(job.handlerId);
    let resultText;
    let isError = 0;
    try {
      const value = await handler(JSON.parse(job.args), { callId: job.callId, context: ctx });
      resultText = value === undefined ? '{"content":[]}' : JSON.stringify(value);
      if (resultText === undefined) throw new TypeError('the handler returned a value JSON cannot hold');
    } catch (e) {
      isError = 1;
      resultText = e instanceof Error ? (this.#exposeStack && e.stack ? e.stack : e.message) : String(e);
    }
    const [len] = this.#write(resultText);
    const done = this.#exports.tga_call_complete(this.#handle, job.callId, len, isError);
    if (done !== TG_OK) throw this.#lastError(done);
    return JSON.parse(this.#text('tga_output_ptr', 'tga_output_len'));
  }

  /**
   * Checks JSON text (or UTF-8 bytes) with the module's strict reader.
   * @returns {{ ok: true } | { ok: false, code: string, message: string, offset?: number }}
   */
  checkJSON(text, { allowDuplicateKeys = false } = {}) {
    const [len] = this.#write(text);
    const status = this.#exports.tga_check_json(this.#handle, len, allowDuplicateKeys ? 1 : 0);
    if (status === TG_OK) return { ok: true };
    const e = this.#lastError(status);
    return { ok: false, code: e.code, message: e.message, ...e.diagnostics };
  }

  /** Bytes the runtime has allocated inside the module. */
  memoryUsed() { return this.#exports.tga_memory_used(this.#handle); }

  /** Size of the module's linear memory in bytes. */
  memorySize() { return this.#memory.buffer.byteLength; }

  /** Frees the runtime inside the module. */
  dispose() {
    if (this.#handle) this.#exports.tga_free(this.#handle);
    this.#handle = 0;
  }
}

function gateError(code, text) {
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'dev.toolgate/error': { code } } };
}
