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
  #sourceHandlers = new Map();
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

  /** Applies runtime-wide options (capabilities, descriptionBytes, schemaBytes, toolsPerSource, formats). */
  configure(config) {
    const [len] = this.#write(JSON.stringify(config));
    const status = this.#exports.tga_configure(this.#handle, len);
    if (status !== TG_OK) throw this.#lastError(status);
  }

  /**
   * Registers one of the host's own tools. descriptor: an MCP Tool (object
   * or JSON text). handler(args, info) may be async. options are host-only
   * facts no descriptor can set: needsApproval, privileged, readOnly, edit,
   * timeoutMs, tenant, requires (capabilities), context (parameter ->
   * context key), contextParams ('reject' | 'drop'). Throws ToolgateError
   * (invalid_descriptor, invalid_schema, duplicate_tool, name_collision,
   * missing_capability, ...); the registry is then unchanged.
   * @returns {{ name: string, tool: string, digest: string, sanitized?: string[] }}
   */
  registerTool(descriptor, handler, options) {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    const text = typeof descriptor === 'string' ? descriptor : JSON.stringify(descriptor);
    const id = this.#nextHandler++;
    const [len, optLen] = this.#write(text, options === undefined ? '' : JSON.stringify(options));
    const status = this.#exports.tga_register(this.#handle, len, optLen, id);
    if (status !== TG_OK) throw this.#lastError(status);
    this.#handlers.set(id, handler);
    return this.#output();
  }

  /**
   * Registers a batch of tools from one source in one step.
   * entries: [{ descriptor, handler, options }]. atomic: all or none (the
   * default, for plugins). replace: the entries are the source's whole list.
   * @returns {{ applied: boolean, epoch: number, registered: object[], unchanged: string[],
   *   changed: {name: string, fields: string[]}[], removed: string[], rejected: {tool: string, name?: string, code: string, message: string}[] }}
   */
  registerBatch(source, entries, { atomic = true, replace = false, nameTemplate } = {}) {
    // handler ids are stable per (source, tool name): re-listing a source reuses them
    let ids = this.#sourceHandlers.get(source);
    if (!ids) this.#sourceHandlers.set(source, (ids = new Map()));
    const staged = [];
    const tools = entries.map((e) => {
      if (typeof e.handler !== 'function') throw new TypeError('each entry needs a handler function');
      const key = String(e.descriptor?.name ?? '');
      let id = ids.get(key);
      if (id === undefined) id = this.#nextHandler++;
      staged.push([key, id, e.handler]);
      return { tool: e.descriptor, handler: id, ...(e.options ? { options: e.options } : {}) };
    });
    const request = { source: String(source), atomic, replace, tools, ...(nameTemplate ? { nameTemplate } : {}) };
    const [len] = this.#write(JSON.stringify(request));
    const status = this.#exports.tga_register_batch(this.#handle, len);
    if (status !== TG_OK) throw this.#lastError(status);
    const result = this.#output();
    if (result.applied) {
      if (replace) {
        for (const [key, id] of ids) if (!staged.some(([k]) => k === key)) { ids.delete(key); this.#handlers.delete(id); }
      }
      for (const [key, id, fn] of staged) { ids.set(key, id); this.#handlers.set(id, fn); }
    }
    return result;
  }

  /**
   * Imports an upstream MCP server's tools (what tools/list returned, all
   * pages). Each tool is registered or rejected on its own; the list
   * replaces the source's earlier one, and a tool whose definition changed
   * is held out of new snapshots until acceptChange(name).
   * call(toolName, args, info) forwards a call upstream.
   */
  importTools(source, tools, { call, options, nameTemplate } = {}) {
    if (typeof call !== 'function') throw new TypeError('importTools needs a call(toolName, args, info) function');
    const entries = tools.map((t) => ({
      descriptor: t,
      handler: (args, info) => call(t.name, args, info),
      ...(options ? { options: typeof options === 'function' ? options(t) : options } : {}),
    }));
    return this.registerBatch(source, entries, { atomic: false, replace: true, nameTemplate });
  }

  /** Lets a held (changed) tool definition into new snapshots. */
  acceptChange(name) {
    const [len] = this.#write(String(name));
    const status = this.#exports.tga_accept_change(this.#handle, len);
    if (status !== TG_OK) throw this.#lastError(status);
  }

  /** Removes every tool of a source. @returns {number} how many */
  removeSource(source) {
    const [len] = this.#write(String(source));
    this.#exports.tga_remove_source(this.#handle, len);
    return this.#output().removed;
  }

  /**
   * Pins the current tool set. Pass { snapshot: s.id } to callTool and
   * listTools; release() when the session moves on.
   * @returns {{ id: number, epoch: number, tools: number, release(): void }}
   */
  snapshot() {
    const id = this.#exports.tga_snapshot(this.#handle);
    if (!id) throw this.#lastError(-1);
    const info = this.#output();
    return { id, epoch: info.epoch, tools: info.tools, release: () => { this.#exports.tga_snapshot_release(this.#handle, id); } };
  }

  /**
   * The tool list for a model. format: 'mcp' (default; a tools/list result,
   * paged with cursor/limit) | 'anthropic' | 'openai' | 'openai-strict' |
   * 'gemini'. snapshot: a pinned snapshot (or its id). Every lossy
   * conversion is listed in report.
   * @returns {{ tools: object[], nextCursor?: string, report: object[], epoch: number }}
   */
  listTools({ format = 'mcp', snapshot, cursor, limit } = {}) {
    const req = { format };
    if (snapshot) req.snapshot = snapshot.id ?? snapshot;
    if (cursor) req.cursor = cursor;
    if (limit) req.limit = limit;
    const [len] = this.#write(JSON.stringify(req));
    const status = this.#exports.tga_list_tools(this.#handle, len);
    if (status !== TG_OK) throw this.#lastError(status);
    return this.#output();
  }

  #output() { return JSON.parse(this.#text('tga_output_ptr', 'tga_output_len')); }

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
    const ctxText = ctx.snapshot || ctx.context || ctx.format
      ? JSON.stringify({ snapshot: ctx.snapshot?.id ?? ctx.snapshot ?? 0, context: ctx.context ?? {}, ...(ctx.format ? { format: ctx.format } : {}) })
      : '';
    const [nameLen, argsLen, ctxLen] = this.#write(String(name), argBytes, ctxText);
    this.#invoked = null;
    const status = this.#exports.tga_call_begin(this.#handle, nameLen, argsLen, ctxLen);
    if (status !== TG_PENDING) return JSON.parse(this.#text('tga_output_ptr', 'tga_output_len'));
    const job = this.#invoked;
    this.#invoked = null;
    const handler = this.#handlers.get(job.handlerId);
    let resultText;
    let isError = 0;
    try {
      const value = await handler(JSON.parse(job.args), { callId: job.callId, tool: String(name), context: ctx.context ?? {} });
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
   * Compiles a JSON Schema once. schema: object or JSON text. options:
   * dialect ('2020-12' default, as MCP says | '2019-09' | 'draft-07' |
   * 'draft-06' | 'draft-04'; a $schema in the document wins), formats
   * ('annotate' default | 'assert'), resources ({ uri: schema } that $ref
   * may reach; nothing is ever fetched). Throws ToolgateError
   * (invalid_schema, with the place in the schema) when it does not compile.
   * @returns {Validator}
   */
  compileSchema(schema, options = {}) {
    const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
    const opts = {};
    if (options.dialect) opts.dialect = options.dialect;
    if (options.formats) opts.formats = options.formats;
    if (options.resources) opts.resources = options.resources;
    const [len, optLen] = this.#write(text, Object.keys(opts).length ? JSON.stringify(opts) : '');
    const id = this.#exports.tga_schema_compile(this.#handle, len, optLen);
    if (!id) throw this.#lastError(-11);
    return new Validator(this, id);
  }

  /** @internal validates through compiled schema `id`. */
  _validate(id, instance, maxErrors) {
    let input = instance;
    if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
      input = JSON.stringify(input);
      if (input === undefined) return { valid: false, errors: [], jsonError: { message: 'the value cannot be written as JSON', offset: 0 } };
    }
    const [len] = this.#write(input);
    const r = this.#exports.tga_validate(this.#handle, id, len, maxErrors);
    if (r === 1) return VALID;
    if (r === 0) return { valid: false, errors: maxErrors ? this.#output() : [] };
    const e = this.#lastError(r);
    if (e.code === 'invalid_json' || e.code === 'too_large') {
      return { valid: false, errors: [], jsonError: { message: e.message, offset: e.diagnostics.offset ?? 0 } };
    }
    throw e;
  }

  /** @internal */
  _releaseSchema(id) { this.#exports.tga_schema_release(this.#handle, id); }

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

const VALID = Object.freeze({ valid: true, errors: Object.freeze([]) });

/** A compiled schema. validate() takes JSON text, UTF-8 bytes or a JS value. */
export class Validator {
  #rt;
  #id;
  constructor(rt, id) { this.#rt = rt; this.#id = id; }

  /**
   * @param {string|Uint8Array|unknown} instance
   * @param {{ maxErrors?: number, output?: 'basic'|'flag' }} [options] maxErrors
   *   bounds the errors collected (default 20; 1 stops at the first error);
   *   output 'flag' gives only the verdict.
   * @returns {{ valid: boolean, errors: {instanceLocation: string, keywordLocation: string, message: string}[],
   *   jsonError?: { message: string, offset: number } }}
   */
  validate(instance, options) {
    if (!this.#id) throw new ToolgateError('disposed', 'this validator was disposed');
    const max = options?.output === 'flag' ? 0 : Math.max(0, Math.min(1000, options?.maxErrors ?? 20));
    return this.#rt._validate(this.#id, instance, max);
  }

  dispose() {
    if (this.#id) this.#rt._releaseSchema(this.#id);
    this.#id = 0;
  }
}

function gateError(code, text) {
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'dev.toolgate/error': { code } } };
}
