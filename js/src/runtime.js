// runtime.js - ToolRuntime: the JS face of the wasm module. It moves bytes
// in and out of linear memory, runs handlers, keeps time; every judgement
// (parsing, checking, deciding, shaping results) happens in the module.
//
// Robustness: every call into the module goes through #call. A wasm trap
// there replaces the instance with a fresh one and gives it what the old one
// held: the configuration, policy and approval key (a small journal), every
// source's tools as they were (the module's change log, #takeChanges), the
// epoch, snapshot and call id counters, pending approvals (and answered ones,
// refused as they were), spent tokens and policy state, so the host keeps
// working; the operation that trapped fails with code 'module_trap'.
import { STATUS, ToolgateError, unknownKey, safeMessage } from './errors.js';
import { encoder, wellFormed, LONE_SURROGATE, checkedText, loneSurrogateOffset, jsonText } from './text.js';
import { bytesOf, copyOf } from './bytes.js';
import { size, room, put, SHORT } from './write-parts.js';
import { codedError, siteWordsOf } from './first-error.js';
import { takeMemory, growAhead, giveMemory } from './memory-pool.js';
import { RUNTIME_OPTIONS, limitArgs } from './options.js';
import { AUTHORIZE_KEYS, LIST_KEYS, unknownRequestKey, readContext, contextText, snapshotId, pick, tokenExpiry } from './request.js';
import { CallInfo, armDeadline, MAX_TIMER_MS } from './call-info.js';
import { ListCache } from './list-cache.js';
import { BATCH_CHECKED_FROM, oversizedEntries, unwritableEntries, unreadableEntries } from './batch-checks.js';
import { Validator, resourcesText } from './validator.js';

const TG_OK = 0;
const TG_PENDING = 1;
const TG_PENDING_APPROVAL = 2;
const TG_OK_TEXT = 3;
const NO_CONTEXT = Object.freeze({});
const decoder = new TextDecoder('utf-8', { fatal: false });
const APPROVALS_SWEEP_AT = 1024; // pending approvals held before the expired ones are dropped
const RESTORE_CHUNK = 64; // tools given back to a replaced instance in one call
const PENDING_CHANGES_BYTES = 8 << 20; // change log kept unapplied before it is applied anyway (#takeChanges)
// calls begun from inside a handler's synchronous part, each inside the
// last: past this a call is refused (limit_reached) before it is begun,
// rather than run the host's stack out (a RangeError mid-call)
const MAX_HANDLER_NESTING = 32;
const ERROR_TEXT_COPY = 1 << 16; // handler error text copied in (the module keeps 4 KiB of it)
const POLICY_BYTES = 8 << 20; // the most policy text the module reads (tg_set_policy)

function gateError(code, text) {
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'dev.toolgate/error': { code } } };
}

export class ToolRuntime {
  #module;
  #options;
  #limits; // tga_new's limit arguments, read once (limitArgs): every instance gets the same
  #clock;
  #exports;
  #memory;
  #u8 = null;
  #u32 = null;
  #place = 0; // word index of the four words where hot exports leave their output (tga_out_place)
  #handle = 0;
  #generation = 0;
  #handlers = new Map();
  #heldHandlers = new Map(); // handler id -> the handler listed with a held change (live at acceptChange)
  #retired = new Set(); // handler ids no tool holds any more, kept while a snapshot is pinned (#retire)
  #pinned = new Set(); // ids of this instance's snapshots not released
  #sourceNames = new Map(); // source -> (tool name as listed -> model-visible name)
  #sourceTemplates = new Map(); // source -> the nameTemplate of its last applied batch (modelName)
  #sourceHandlers = new Map();
  #nextHandler = 1;
  #invoked = null; // set by the invoke import during tga_call_begin
  #journal = [];
  #approvals = new Map(); // approvalId -> { record, name, argsText, ctx }
  #schemaBytes = 256 << 10; // the configured schemaBytes (compileSchema's text may be 4x it)
  #answered = new Map(); // approvalId -> the record of one answered (#answer), for a replaced instance
  #waiters = new Map(); // approvalId -> { signal, onProgress } of the caller waiting on it (_awaitApproval)
  #auditSubscribers = new Set();
  #auditQueue = []; // events of module calls still on the stack (#onAudit)
  #inModule = 0; // 1 while a module call runs: a call from inside it (a clock option) is refused
  #nesting = 0; // handlers running synchronously, one inside another (MAX_HANDLER_NESTING)
  #recovering = false; // while #recover gives a new instance what the old one held
  #inFlight = new Map(); // callId -> { timer, settle, job, name, ctx }: calls whose handler is awaited
  #restarts = 0;
  #argsLimit;
  #resultLimit;
  #descriptorLimit;
  #depthLimit;
  #version = 0; // bumped by every change to tools or policy: keys the list cache
  #listCache = new ListCache(); // listTools' results by request (bounded: list-cache.js)
  #spentTokens = new Map(); // approval tokens presented to the module -> expiry (ms), for a replaced instance
  #sourceStates = new Map(); // source -> Map(state \0 name -> the tool's JSON as logged, UTF-8 bytes): what the registry holds, for a replaced instance (read through #states)
  #stateBytes = 0; // the tools' bytes #sourceStates holds
  #pendingChanges = []; // change logs taken from the module, in order, not yet applied to #sourceStates (#takeChanges)
  #pendingBytes = 0;
  #lostRestores = 0; // tools a replaced instance could not be given back (memory)
  #lastEpoch = 0; // the registry's epoch at the last change, and the highest snapshot id handed out:
  #lastSnapshot = 0; // a replaced instance's are never reused (cursors, snapshots)
  #lastCallId = 0; // the last call id handed out: a replaced instance's go on after it (audit events pair by id)
  #beginAt = 0; // the clock when the call being begun began (a trapped call's audited duration)
  #mintedTokens = new Map(); // tokens resolveApproval issued -> their session, spent by endSession in any instance
  #lens = [0, 0, 0];
  #validateFn = null; // the hot exports, looked up once per instance
  #firstFn = null;
  #beginFn = null;
  #completeFn = null;
  #argsGiven = null; // during tga_call_begin: the caller's argument string and where it lies
  #argsAt = 0;
  #argsLen = 0;
  #inPtr = 0; // the module's input area, reused while big enough
  #inCap = 0;
  #inView = null; // a view of it, kept: encodeInto into a fresh subarray costs twice as much

  /** Use createToolRuntime(); this constructor takes a compiled module and
   * applies every option createToolRuntime does (all but wasm, which the
   * module is): a policy or key given here and dropped would leave the
   * runtime open. Throws what configure, setPolicy and setApprovalKey throw
   * (the instance is freed first). */
  constructor(module, options) {
    options ??= {};
    if (typeof options !== 'object') throw new TypeError(`options must be an object, not a ${typeof options}`);
    unknownKey('option', options, RUNTIME_OPTIONS);
    if (options.wasm !== undefined && options.wasm !== module) {
      throw new TypeError('options.wasm is for createToolRuntime; this constructor takes the compiled module as its first argument');
    }
    this.#module = module;
    this.#options = options;
    // the host's clock, read where a throw must not strand a dispatched call:
    // one that throws, or answers with what is not a number (a BigInt of
    // hrtime), reads as NaN (the policy denies on a clock it cannot read, and
    // a deadline that cannot be judged has passed)
    const clock = options.clock;
    if (clock !== undefined && clock !== null && typeof clock !== 'function') throw new TypeError('options.clock must be a function returning milliseconds');
    this.#clock = clock ? () => { try { const t = clock(); return typeof t === 'number' ? t : NaN; } catch { return NaN; } } : Date.now;
    // read as the module reads them (limitArgs: 0 is the default), so both
    // sides bound a call alike
    const limits = this.#limits = limitArgs(options.limits);
    this.#argsLimit = limits[2] || 1 << 20;
    this.#resultLimit = limits[4] || 4 << 20;
    this.#descriptorLimit = limits[3] || 1 << 20;
    this.#depthLimit = limits[1] || 256;
    this.#instantiate();
    this.#applyOptions(options);
  }

  /** The options applied through the runtime's own methods (journaled, so a
   * replaced instance has them too). */
  #applyOptions(options) {
    const config = {};
    for (const k of ['capabilities', 'descriptionBytes', 'schemaBytes', 'toolsPerSource', 'formats']) {
      if (options[k] !== undefined) config[k] = options[k];
    }
    try {
      if (Object.keys(config).length) this.configure(config);
      // (an empty text is a bad policy, refused as setPolicy refuses it: only
      // an absent one means none)
      if (options.policy !== undefined && options.policy !== null) this.setPolicy(options.policy);
      if (options.approvalKey !== undefined && options.approvalKey !== null) this.setApprovalKey(options.approvalKey);
    } catch (e) {
      this.dispose(); // (the instance and its memory go back)
      throw e;
    }
  }

  #instantiate() {
    const self = this;
    const imports = {
      toolgate: {
        invoke: (h, c, p, n, d) => self.#onInvoke(h, c, p, n, d),
        now: () => self.#clock(), // the hot operations pass the clock in instead
        random: (p, n) => crypto.getRandomValues(self.#bytes().subarray(p, p + n)),
        audit: (p, n) => self.#onAudit(p, n),
      },
      env: { memory: takeMemory(), emscripten_notify_memory_growth: () => growAhead(imports.env.memory) },
    };
    let instance;
    try {
      instance = new WebAssembly.Instance(this.#module, imports);
      if (typeof instance.exports.tga_new !== 'function') throw new Error('it has no tga_new export');
    } catch (e) {
      giveMemory(imports.env.memory);
      // another module (the WASI build, a wasm that is not toolgate's) is a typed error too
      throw e instanceof ToolgateError ? e : new ToolgateError('invalid_module', `not the toolgate module this package loads: ${e.message}`);
    }
    this.#exports = instance.exports;
    this.#validateFn = instance.exports.tga_validate;
    this.#firstFn = instance.exports.tga_validate_first;
    this.#beginFn = instance.exports.tga_call_begin;
    this.#completeFn = instance.exports.tga_call_complete;
    this.#memory = imports.env.memory;
    this.#u8 = null;
    this.#u32 = null;
    this.#inPtr = 0;
    this.#inCap = 0;
    this.#inView = null;
    if (typeof this.#exports._initialize === 'function') this.#exports._initialize();
    this.#handle = this.#exports.tga_new(...this.#limits, this.#auditSubscribers.size > 0 ? 1 : 0);
    if (!this.#handle) throw new ToolgateError('out_of_memory', 'the module could not create a runtime');
    this.#place = this.#exports.tga_out_place(this.#handle) >>> 2;
    this.#exports.tga_track_sources(this.#handle, 1); // (#takeChanges)
    this.#generation++;
  }

  /** Calls export `fn`; a trap replaces the instance and throws module_trap. */
  #call(fn, a, b, c, d) {
    return this.#hot(this.#exports[fn], a, b, c, d); // extra arguments are ignored by wasm
  }

  /** Calls a hot export held by reference (no lookup by name), as #call. */
  #hot(fn, a, b, c, d) {
    if (this.#inModule) throw reentered();
    this.#inModule = 1;
    let r;
    try {
      r = fn(this.#handle, a, b, c, d);
    } catch (e) {
      this.#inModule = 0;
      return this.#trapped(e);
    }
    this.#inModule = 0;
    return r;
  }

  /** A call into the module threw: a trap replaces the instance. Throws. */
  #trapped(e) {
    if (!(e instanceof WebAssembly.RuntimeError) && !(e instanceof RangeError)) throw e;
    this.#recover();
    throw new ToolgateError('module_trap', `the module trapped (${e.message}); it was replaced and its registry, policy and approvals restored`);
  }

  /** Gives a replaced instance one source's tools back, a few a call so
   * that putting them back takes little more memory than holding them;
   * where memory runs out, the rest go again fewer at a time, and only a
   * tool that does not fit alone is lost (counted in lostRestores). */
  #restoreSource(source, all) {
    let at = 0, size = RESTORE_CHUNK;
    while (at < all.length) {
      const chunk = all.slice(at, at + size);
      let done = 0;
      try {
        const [len, textLen] = this.#write(source, `[${chunk.map((b) => decoder.decode(b)).join(',')}]`);
        if (this.#exports.tga_restore_source(this.#handle, len, textLen, 1) === TG_OK) {
          const out = this.#output();
          done = out.done;
          this.#lostRestores += out.skipped;
        }
      } catch (e) {
        if (!(e instanceof ToolgateError)) throw e; // (no room even for the text)
      }
      at += done;
      if (done === chunk.length) { size = Math.min(RESTORE_CHUNK, size * 2); continue; }
      this.#exports.tga_trim(this.#handle); // (what the larger try kept, given back before a smaller one)
      if (size > 1) size = Math.max(1, Math.floor((chunk.length - done) / 2));
      else if (!done) { this.#lostRestores++; at++; } // (this one does not fit alone)
    }
  }

  #recover() {
    this.#recovering = true;
    try {
      this.#restore();
    } finally {
      this.#recovering = false;
    }
  }

  #restore() {
    this.#restarts++;
    this.#listCache.clear();
    this.#pinned.clear(); // (snapshots do not survive a trap: what only they could reach goes)
    this.#releaseRetired();
    this.#endInFlight('trap'); // (their handlers are told; the new instance knows no such calls)
    const limits = this.#savedPolicyState();
    giveMemory(this.#memory); // (zeroed before anyone uses it again)
    this.#instantiate();
    for (const entry of this.#journal) this.#replay(entry);
    // every source's tools as they were: live, held and remembered, not
    // registered again (replaying listings would judge them again, in
    // another order, against another history)
    this.#exports.tga_restore_counters(this.#handle, this.#lastEpoch, this.#lastSnapshot, this.#lastCallId);
    // (not logged: what restoring changes is what the host holds already, and
    // a log of every tool's text would take the memory the tools need)
    this.#exports.tga_track_sources(this.#handle, 0);
    for (const [source, tools] of this.#states()) this.#restoreSource(source, [...tools.values()]);
    this.#exports.tga_track_sources(this.#handle, 1);
    this.#exports.tga_trim(this.#handle); // (the working memory of putting them back: not kept)
    this.#lastEpoch = this.#exports.tga_epoch(this.#handle);
    // spent rate limits and budgets, and session grants, carry over (read
    // back from the trapped instance; unreadable, they start afresh)
    if (limits?.length) this.#exports.tga_restore_policy_state(this.#handle, this.#write(limits)[0]);
    for (const a of this.#approvals.values()) {
      const len = this.#write(JSON.stringify(a.record))[0];
      this.#exports.tga_restore_approval(this.#handle, len);
    }
    // and the answered ones, refused as they were (after those still to run:
    // they matter more where the table is short)
    for (const r of this.#answered.values()) this.#exports.tga_restore_approval(this.#handle, this.#write(JSON.stringify(r))[0]);
    // single use survives too: tokens redeemed before are used here as well
    for (const token of this.#spentTokens.keys()) this.#exports.tga_restore_spent_token(this.#handle, this.#write(token)[0]);
  }

  /** The trapped instance's rate buckets, budgets and session rules, copied
   * out, or null when it cannot tell them (it checks what it reads). */
  #savedPolicyState() {
    try {
      if (this.#exports.tga_save_policy_state(this.#handle) !== 0) return null;
      const ptr = this.#exports.tga_output_ptr(this.#handle), len = this.#exports.tga_output_len(this.#handle);
      return this.#bytes().slice(ptr, ptr + len);
    } catch {
      return null; // trapped again: the limits restart
    }
  }

  /** #write for a list of parts: their lengths, in an array of their own. */
  #writeParts(parts) {
    return this.#write(parts[0], parts[1], parts[2]).slice(0, parts.length); // (at most three)
  }

  #replay({ op, parts, args = [] }) {
    this.#exports[op](this.#handle, ...this.#writeParts(parts), ...args);
  }

  /** Runs an op and journals it when it changed the runtime; an entry with
   * a key replaces the entries with that key. (Configuration, policy and the
   * approval key: the registry's tools are carried over by #takeChanges.) */
  #journaled(op, parts, args = [], key) {
    const status = this.#changing(op, parts, args);
    if (status === TG_OK) {
      if (key) this.#journal = this.#journal.filter((e) => e.key !== key);
      this.#journal.push({ op, parts, args, key });
    }
    return status;
  }

  /** Runs an op that may change tools or policy; returns its status (its
   * output stays to be read: the change log is read after it). */
  #changing(op, parts, args = []) {
    const all = [...this.#writeParts(parts), ...args];
    const status = this.#call(op, all[0], all[1], all[2], all[3]);
    if (status === TG_OK) {
      this.#version++;
      this.#listCache.clear();
    }
    return status;
  }

  /** #check for an op that may have changed the registry before it failed
   * (memory ran out writing its result): what it changed is taken before
   * the error is thrown, or a replaced instance would not be given it. */
  #settled(status) {
    if (status === TG_OK) return;
    const e = this.#lastError(status);
    this.#takeChanges();
    throw e;
  }

  /** Keeps what the registry holds of each source, for an instance that
   * replaces this one: the module logs every put and delete of a tool
   * (live, held, remembered), and the host keeps the log, to apply to its
   * copy (#states). Only the changes cross, so a registration costs what it
   * changed, not the size of its source. */
  #takeChanges() {
    if (this.#call('tga_source_changes') !== TG_OK) { // (a change the module could not log: not whole)
      this.#lostRestores++;
      return;
    }
    const ptr = this.#exports.tga_output_ptr(this.#handle), len = this.#exports.tga_output_len(this.#handle);
    this.#lastEpoch = this.#exports.tga_epoch(this.#handle);
    if (!len) return;
    // copied out now (the module reuses its memory), and read only when
    // #sourceStates is (a trap, a batch that failed half-way): decoding and
    // applying a 1,000-tool listing's log (~1.3 MB) took ~2 ms of every
    // import. A runtime whose sources change for days would keep every log,
    // so the logs are applied once they outgrow what they would be applied
    // to (or 8 MiB): at most about as much again as #sourceStates held.
    this.#pendingChanges.push(this.#bytes().slice(ptr, ptr + len));
    this.#pendingBytes += len;
    if (this.#pendingBytes > Math.max(PENDING_CHANGES_BYTES, this.#stateBytes)) this.#states();
  }

  /** #sourceStates, with every log taken so far applied first, in the
   * order taken: what the registry holds of each source now. */
  #states() {
    const logs = this.#pendingChanges;
    if (logs.length) {
      this.#pendingChanges = [];
      this.#pendingBytes = 0;
      for (const log of logs) this.#applyChanges(log);
    }
    return this.#sourceStates;
  }

  /** Applies one log to #sourceStates: one change a line, its header, and
   * for a put a tab and the tool's JSON, kept as its UTF-8 bytes (numbers
   * as the module spelled them: read as text only when an instance is
   * replaced). */
  #applyChanges(log) {
    const len = log.length;
    for (let at = 0, end; at < len; at = end + 1) {
      end = log.indexOf(10, at);
      if (end < 0) end = len;
      const line = log.subarray(at, end);
      if (!line.length) continue;
      const tab = line.indexOf(9); // (within the line: a delete has none, and the log may hold a thousand)
      const { op, source, state, name } = JSON.parse(decoder.decode(tab < 0 ? line : line.subarray(0, tab)));
      let tools = this.#sourceStates.get(source);
      const key = `${state}\0${name}`;
      const was = tools?.get(key);
      if (was !== undefined) this.#stateBytes -= was.length;
      if (op === 'put') {
        if (!tools) this.#sourceStates.set(source, (tools = new Map()));
        // (a copy: a view would keep the whole log alive while any one of
        // its tools is held, and #stateBytes would undercount what is held)
        const text = line.slice(tab + 1);
        tools.set(key, text);
        this.#stateBytes += text.length;
      } else if (tools) {
        tools.delete(key);
        if (!tools.size) this.#sourceStates.delete(source);
      }
    }
  }

  #onInvoke(handlerId, callId, ptr, len, deadline) {
    if (!this.#handlers.has(handlerId)) return 1;
    // Arguments the module checked in one pass come back as the caller's own
    // bytes, in place (after any leading white space): the caller's string
    // then parses to the same object, with no copy out of the module.
    const given = this.#argsGiven;
    const args = given !== null && ptr >= this.#argsAt && ptr + len === this.#argsAt + this.#argsLen
      ? given : decoder.decode(this.#bytes().subarray(ptr, ptr + len));
    this.#lastCallId = callId;
    this.#invoked = { handlerId, callId, deadline, args, started: this.#beginAt };
    return 0;
  }

  /** An audit event from inside a module call: read now (the bytes are the
   * module's), delivered once that call has returned and its caller has read
   * its output, so a subscriber may call back into the runtime (the module is
   * not re-entrant: a call from inside it would overwrite the call's output). */
  #onAudit(ptr, len) {
    if (!this.#auditSubscribers.size) return;
    this.#queueAudit(JSON.parse(decoder.decode(this.#bytes().subarray(ptr, ptr + len))));
  }

  #queueAudit(event) {
    if (this.#auditQueue.push(event) === 1) queueMicrotask(() => this.#deliverAudit());
  }

  /** A call refused here, before the module saw it (arguments or context
   * JSON cannot hold, over the size bound, cancelled already): its result,
   * and the audit event the module would have sent. */
  #refusedHere(name, ctx, code, message) {
    if (this.#auditSubscribers.size) {
      const event = { phase: 'decision', tool: String(name), validation: 'skipped', outcome: code };
      if (typeof ctx.principal === 'string') event.principal = ctx.principal;
      this.#queueAudit(event);
    }
    return gateError(code, message);
  }

  #deliverAudit() {
    const events = this.#auditQueue;
    this.#auditQueue = [];
    for (const event of events) {
      for (const fn of this.#auditSubscribers) {
        try { fn(event); } catch { /* a subscriber cannot break a call */ }
      }
    }
  }

  #bytes() {
    // memory.grow detaches the old buffer, and a view of it reads as empty
    if (!this.#u8 || this.#u8.length === 0) this.#u8 = new Uint8Array((this.#memory ?? disposed()).buffer);
    return this.#u8;
  }

  #words() {
    if (!this.#u32 || this.#u32.length === 0) this.#u32 = new Uint32Array((this.#memory ?? disposed()).buffer);
    return this.#u32;
  }

  /** Writes strings/bytes back to back into the input area; returns their
   * byte lengths (in an array reused by the next write: read it at once).
   * The first part goes through a kept view of the whole area: put it first
   * when it is the long one. Each part must end within the room reserved
   * for it (the area may be larger, from an earlier input: a first part past
   * its room would leave the others past the area's end). */
  #write(a, b, c, exact = false) {
    if (this.#inModule) throw reentered(); // (tga_input may move the input the running call reads)
    const n = c !== undefined ? 3 : b !== undefined ? 2 : 1;
    const first = exact ? size(a) : room(a);
    const max = first + (n > 1 ? size(b) : 0) + (n > 2 ? size(c) : 0);
    if (max > this.#inCap) {
      // through #hot, as every call into the module: a trap while it allocates
      // replaces the instance and throws module_trap, which every caller that
      // promises typed results turns into one. (While a new instance is given
      // what the old one held, a trap is not recovered from again.)
      const ptr = this.#recovering ? this.#exports.tga_input(this.#handle, max) : this.#hot(this.#exports.tga_input, max);
      if (!ptr) throw new ToolgateError('out_of_memory', 'the module has no room for this input');
      this.#inPtr = ptr;
      this.#inCap = Math.max(max, 4096); // tga_input allocates at least 4 KiB
      this.#inView = null;
    }
    const mem = this.#bytes();
    // (memory.grow detaches the buffer under a kept view: it reads as empty)
    if (this.#inView === null || this.#inView.length === 0) this.#inView = mem.subarray(this.#inPtr, this.#inPtr + this.#inCap);
    const lens = this.#lens;
    let at = this.#inPtr;
    if (typeof a === 'string' && a.length > SHORT) {
      const r = encoder.encodeInto(a, this.#inView);
      // a long text past its guessed room (room), whether or not the area
      // had more: counted, and written again
      if (r.read < a.length || r.written > first) return this.#write(a, b, c, true);
      at += lens[0] = r.written;
    } else at += lens[0] = put(mem, at, a);
    if (n > 1) at += lens[1] = put(mem, at, b);
    if (n > 2) lens[2] = put(mem, at, c);
    return lens;
  }

  #text(ptrFn, lenFn) {
    const ptr = this.#exports[ptrFn](this.#handle);
    const len = this.#exports[lenFn](this.#handle);
    return decoder.decode(this.#bytes().subarray(ptr, ptr + len));
  }

  #output() { return JSON.parse(this.#text('tga_output_ptr', 'tga_output_len')); }

  /** The output of the last hot export (validate, call begin, complete),
   * read where the module left its place: no call back in to ask. */
  #hotText() {
    const w = this.#words(), ptr = w[this.#place];
    return decoder.decode(this.#bytes().subarray(ptr, ptr + w[this.#place + 1]));
  }

  #hotOutput() { return JSON.parse(this.#hotText()); }

  /** Validation errors left as records (tg_validate_records): one decoded
   * string sliced by the UTF-16 lengths beside it, three fields an error. */
  #errorRecords() {
    const f = this.#records();
    const errors = [];
    for (let i = 0; i + 2 < f.length; i += 3) errors.push({ instanceLocation: f[i], keywordLocation: f[i + 1], message: f[i + 2] });
    return errors;
  }

  /** The fields the last hot export left as records, in order. */
  #records() {
    const text = this.#hotText();
    const w = this.#words();
    const fields = [];
    for (let i = 0, at = 0, l = w[this.#place + 2] >>> 2, n = w[this.#place + 3]; i < n; i++, l++) fields.push(text.slice(at, at += w[l]));
    return fields;
  }

  #lastError(status) {
    const text = this.#text('tga_error_ptr', 'tga_error_len');
    const e = text ? JSON.parse(text) : { code: STATUS[status] ?? 'unknown', message: 'failed' };
    const { code, message, ...diagnostics } = e;
    return new ToolgateError(code, message, diagnostics);
  }

  #check(status) {
    if (status !== TG_OK) throw this.#lastError(status);
  }

  // ---- configuration and registry ----

  /** Applies runtime-wide options (capabilities, descriptionBytes, schemaBytes, toolsPerSource, formats). */
  configure(config) {
    this.#check(this.#journaled('tga_configure', [jsonText(config, 'invalid_request', 'the configuration')]));
    if (typeof config?.schemaBytes === 'number') this.#schemaBytes = config.schemaBytes; // (as the module took it)
    this.#takeChanges(); // (a new registry: its epoch)
  }

  /**
   * Registers one of the host's own tools. descriptor: an MCP Tool (object
   * or JSON text). handler(args, info) may be async; info has callId, tool,
   * context and an AbortSignal (signal) that fires on timeout or cancel.
   * options are host-only facts no descriptor can set: needsApproval,
   * privileged, readOnly, edit, timeoutMs, concurrency, tenant, requires
   * (capabilities), context (parameter -> context key), contextParams
   * ('reject' | 'drop'), auditArgs. A context parameter the schema could
   * still show the model (README, Context parameters) is invalid_descriptor.
   * Throws ToolgateError (invalid_descriptor,
   * invalid_schema, duplicate_tool, name_collision, missing_capability, ...);
   * the registry is then unchanged.
   * @returns {{ name: string, tool: string, digest: string, sanitized?: string[] }}
   */
  registerTool(descriptor, handler, options) {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    const text = typeof descriptor === 'string' ? checkedText(descriptor) : jsonText(descriptor, 'invalid_descriptor', 'the descriptor');
    // refused before it is copied in (each character is at least one byte)
    const limit = this.#descriptorLimit;
    if (text.length > limit) throw new ToolgateError('too_large', `the descriptor is larger than the limit of ${limit} bytes (descriptorBytes)`);
    const id = this.#nextHandler++;
    this.#settled(this.#changing('tga_register', [text, options === undefined ? '' : jsonText(options, 'invalid_request', 'the options')], [id]));
    this.#handlers.set(id, handler);
    const out = this.#output();
    this.#takeChanges();
    // and its handler goes with it (as a batch's do)
    let ids = this.#sourceHandlers.get('');
    if (!ids) this.#sourceHandlers.set('', (ids = new Map()));
    let names = this.#sourceNames.get('');
    if (!names) this.#sourceNames.set('', (names = new Map()));
    ids.set(out.tool, id);
    names.set(out.tool, out.name);
    return out;
  }

  /**
   * Registers a batch of tools from one source in one step.
   * entries: [{ descriptor, handler, options }]. atomic: all or none (the
   * default, for plugins). replace: the entries are the source's whole list.
   */
  registerBatch(source, entries, { atomic = true, replace = false, nameTemplate } = {}) {
    return this.#registerBatch(source, entries, { atomic, replace, nameTemplate }, false);
  }

  /** registerBatch; upstream: the handlers are importTools' forwarders (a
   * new closure each listing, the same upstream), so a tool keeps its id;
   * a plugin's new handler function for a tool is a new id, which the
   * module reports as "updated". A snapshot pinned before runs the new
   * handler too (the module runs a pinned tool through the live one while
   * its definition is the same), so the old one is released (#retire). */
  #registerBatch(source, entries, { atomic = true, replace = false, nameTemplate } = {}, upstream) {
    // handler ids are stable per (source, tool name): re-listing a source reuses them
    let ids = this.#sourceHandlers.get(source);
    if (!ids) this.#sourceHandlers.set(source, (ids = new Map()));
    // each entry's key (its tool's name), handler id and handler, in order
    // (three arrays, not an array an entry: a listing has a thousand)
    const keys = [], given = [], fns = [];
    const staged = { keys, ids: given, fns };
    const tools = entries.map((e) => {
      if (typeof e.handler !== 'function') throw new TypeError('each entry needs a handler function');
      const key = String(e.descriptor?.name ?? '');
      let id = ids.get(key);
      if (id !== undefined && !upstream && (this.#heldHandlers.get(id) ?? this.#handlers.get(id)) !== e.handler) id = undefined;
      if (id === undefined) id = this.#nextHandler++;
      keys.push(key);
      given.push(id);
      fns.push(e.handler);
      // (an undefined descriptor is written as null: refused on its own, as
      // null is, where a missing "tool" would fail the whole batch)
      const tool = { tool: e.descriptor === undefined ? null : e.descriptor, handler: id };
      if (e.options) tool.options = e.options;
      return tool;
    });
    // (the tools last: the module builds each tool as it reads it when the
    // batch's source and template come first, never holding all of them: src/runtime/batch.c)
    const request = nameTemplate ? { source: String(source), atomic, replace, nameTemplate, tools } : { source: String(source), atomic, replace, tools };
    let text;
    try { text = JSON.stringify(request); } catch { text = undefined; }
    // an entry JSON cannot hold (a BigInt, a cycle, a throwing toJSON):
    // found only when the whole request cannot be written, and refused on
    // its own (the whole batch when it is atomic)
    let unwritable = text === undefined ? unwritableEntries(tools, atomic) : null;
    // a batch far past a listing's usual size: an entry over descriptorBytes
    // on its own is refused here, never parsed with the rest (one 50 MB
    // description would take the module's memory and fail every tool)
    if (text !== undefined && text.length > BATCH_CHECKED_FROM) {
      const over = oversizedEntries(tools, this.#descriptorLimit, atomic);
      if (over.size) unwritable = over;
    }
    if (unwritable) text = jsonText(request, 'invalid_request', 'the batch');
    let status = this.#changing('tga_register_batch', [text]);
    if (status !== TG_OK && !atomic) {
      // the module reads the batch as one JSON text: an entry its strict
      // reader refuses (a lone surrogate, which JSON.stringify writes as a
      // \udXXX escape; nesting past jsonDepth) fails all of it. Those are
      // found only then (no cost to a batch that reads) and refused on their
      // own, and the rest is sent again
      const e = this.#lastError(status);
      const bad = (e.code === 'invalid_json' || e.code === 'too_large') && e.message.startsWith('batch: ')
        ? unreadableEntries(tools, this.#depthLimit) : null;
      if (bad?.size) {
        unwritable = new Map([...(unwritable ?? []), ...bad]);
        status = this.#changing('tga_register_batch', [jsonText(request, 'invalid_request', 'the batch')]);
      }
    }
    try {
      this.#settled(status);
    } catch (e) { // (memory ran out, maybe after tools went in: they keep their handlers)
      this.#adoptHandlers(String(source), staged, ids);
      throw e;
    }
    const result = this.#output();
    const states = result.states;
    delete result.states;
    result.removed?.sort(); // (the module lists them in its table's order, which a replaced instance does not share)
    if (unwritable) {
      for (let i = 0, k = 0; i < states.length; i++) {
        if (states[i] !== 'rejected') continue;
        if (unwritable.has(i)) result.rejected[k] = unwritable.get(i);
        k++;
      }
    }
    if (!result.applied) return result; // (an unapplied batch changed nothing)
    this.#takeChanges();
    let names = this.#sourceNames.get(source);
    if (!names) this.#sourceNames.set(source, (names = new Map()));
    // (what the source's next tool would be named: modelName)
    if (nameTemplate) this.#sourceTemplates.set(source, nameTemplate);
    else this.#sourceTemplates.delete(source);
    if (replace && ids.size) this.#dropUnlisted(ids, names, keys, states, result.removed);
    let ci = 0, ri = 0;
    for (let i = 0; i < keys.length; i++) {
      const state = states[i];
      // a rejected entry leaves the registry as it was; a held change
      // listed again takes this listing's handler (the module's held tool
      // has its id now: the host's settings, never held for review)
      if (state === 'rejected') continue;
      const key = keys[i], id = given[i], fn = fns[i];
      // each entry's model-visible name ("changed" and "registered" follow the request's order)
      if (state === 'changed') names.set(key, result.changed[ci++].name);
      else if (state === 'registered') names.set(key, result.registered[ri++].name);
      const prev = ids.get(key);
      if (prev !== id) { // (a tool listed again keeps its id: nothing to change)
        ids.set(key, id);
        if (prev !== undefined) this.#retire(prev);
      }
      // a held change's handler waits with it until acceptChange (the tool
      // is out of the live set; snapshots pinned before run it as pinned)
      if (state === 'changed' || state === 'held') this.#heldHandlers.set(id, fn);
      else { this.#handlers.set(id, fn); this.#heldHandlers.delete(id); }
    }
    return result;
  }

  /** A replacing listing applied: a tool the list no longer names loses its
   * handler once the registry removed it: one renamed to a look-alike is
   * held as a change of it, and sessions pinned to it still run it (a
   * snapshot pinned before still lists a removed tool, so its handler is
   * kept while one is: #retire). Runs before the listing's own keys are
   * given their ids and names (it reads neither: a listed key is kept). */
  #dropUnlisted(ids, names, keys, states, removedNames) {
    const listed = new Set();
    for (let i = 0; i < keys.length; i++) if (states[i] !== 'rejected') listed.add(keys[i]);
    let removed = null;
    for (const [key, id] of ids) {
      if (listed.has(key)) continue;
      const name = names.get(key);
      if (name !== undefined && !(removed ??= new Set(removedNames)).has(name)) continue;
      ids.delete(key);
      names.delete(key);
      this.#retire(id);
    }
  }

  /** A batch that failed after it changed the registry (memory ran out
   * writing its result): the entries the module now holds, live or held
   * (as its change log says), get their handlers, so that a tool the model
   * is shown can run. */
  #adoptHandlers(source, staged, ids) {
    const tools = this.#states().get(source);
    if (!tools) return;
    const live = new Set(), held = new Set();
    for (const [key, text] of tools) {
      const state = key.slice(0, key.indexOf('\0'));
      if (state !== 'gone') (state === 'live' ? live : held).add(JSON.parse(decoder.decode(text)).handler);
    }
    for (let i = 0; i < staged.keys.length; i++) {
      const key = staged.keys[i], id = staged.ids[i], fn = staged.fns[i];
      if (!live.has(id) && !held.has(id)) continue;
      const prev = ids.get(key);
      ids.set(key, id);
      if (prev !== undefined && prev !== id) this.#retire(prev); // (as #registerBatch)
      if (live.has(id)) { this.#handlers.set(id, fn); this.#heldHandlers.delete(id); }
      else this.#heldHandlers.set(id, fn);
    }
  }

  /** Drops a handler no tool of the registry holds any more (its tool was
   * given another, or its held change another). A snapshot pinned before
   * may still reach it: a pinned tool whose name is not live (its change
   * held for review) runs as pinned. So it is kept while any snapshot is
   * pinned, and released when none is (#releaseRetired). */
  #retire(id) {
    if (this.#pinned.size) {
      this.#retired.add(id);
      return;
    }
    this.#handlers.delete(id);
    this.#heldHandlers.delete(id);
  }

  #releaseRetired() {
    for (const id of this.#retired) {
      this.#handlers.delete(id);
      this.#heldHandlers.delete(id);
    }
    this.#retired.clear();
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
    if (!Array.isArray(tools)) throw new TypeError('importTools needs the array of tools a tools/list returned');
    // each handler holds the upstream name, read once here, and never the
    // descriptor: a runtime that held every listed object (its schemas and
    // all) for as long as the tool lived kept ~3 KB of the host's heap a tool
    const forward = (t) => {
      const name = t?.name;
      return (args, info) => call(name, args, info);
    };
    const entries = tools.map(options
      ? (t) => ({ descriptor: t, handler: forward(t), options: typeof options === 'function' ? options(t) : options })
      : (t) => ({ descriptor: t, handler: forward(t) }));
    return this.#registerBatch(source, entries, { atomic: false, replace: true, nameTemplate }, true);
  }

  /** The model-visible name a tool of `source` gets: the name the registry
   * gave it when it holds it, else the name a listing of the source would
   * give it: under nameTemplate when given, else under the template the
   * source was last registered or imported with, else the default
   * ("mcp__{source}__{tool}"; the bare name for the host's own, source '').
   * The name to match host settings against, since an upstream may spell its
   * tool "Deploy" or with look-alike letters. */
  modelName(source, tool, nameTemplate) { return this.#modelName(source, tool, nameTemplate, 0); }

  /** The collision key of that model-visible name: names with the same key
   * (case, '-' for '_', look-alike letters and digits) are one tool to the
   * registry, so per-tool host settings are matched by it. */
  modelNameKey(source, tool, nameTemplate) { return this.#modelName(source, tool, nameTemplate, 1); }

  #modelName(source, tool, nameTemplate, key) {
    if (nameTemplate !== undefined && typeof nameTemplate !== 'string') throw new TypeError('nameTemplate must be a string');
    const named = nameTemplate === undefined ? this.#sourceNames.get(source)?.get(String(tool)) : undefined;
    if (named !== undefined && !key) return named;
    // (a name the registry gave is a template that maps to itself: it is
    // provider-safe, with no "{"; '' is the default, as in a batch)
    const tmpl = named ?? nameTemplate ?? this.#sourceTemplates.get(source) ?? '';
    const [sl, tl, ml] = this.#write(String(source), String(tool), tmpl ? `${checkedText(tmpl)}\0` : '');
    this.#check(this.#call('tga_model_name', sl, tl, key, ml));
    return this.#text('tga_output_ptr', 'tga_output_len');
  }

  /** Lets a held (changed) tool definition into new snapshots, with the
   * handler and options it was listed with last. digest: the one reviewed (BatchResult.changed);
   * a change held since is refused (digest_mismatch). */
  acceptChange(name, digest) {
    this.#settled(this.#changing('tga_accept_change', [String(name), digest === undefined ? '' : String(digest)]));
    const { handler } = this.#output();
    this.#takeChanges();
    if (this.#heldHandlers.has(handler)) {
      this.#handlers.set(handler, this.#heldHandlers.get(handler));
      this.#heldHandlers.delete(handler);
    }
  }

  /** Removes every tool of a source. @returns {number} how many */
  removeSource(source) {
    this.#settled(this.#changing('tga_remove_source', [String(source)]));
    const removed = this.#output().removed;
    this.#takeChanges();
    // the source's handlers go with its tools (as a re-listing drops those it
    // no longer lists), once no snapshot pinned before can still call them (#retire)
    const ids = this.#sourceHandlers.get(source);
    if (ids) for (const id of ids.values()) this.#retire(id);
    this.#sourceHandlers.delete(source);
    this.#sourceNames.delete(source);
    this.#sourceTemplates.delete(source);
    return removed;
  }

  /**
   * Pins the current tool set. Pass { snapshot } to callTool and listTools;
   * release() when the session moves on. (Snapshots do not survive a module
   * trap: calls naming one then get unknown_snapshot and the session lists
   * again.)
   */
  snapshot() {
    const id = this.#call('tga_snapshot');
    if (!id) throw this.#lastError(-1);
    const info = this.#output();
    const generation = this.#generation;
    if (id > this.#lastSnapshot) this.#lastSnapshot = id;
    this.#pinned.add(id);
    return {
      id, epoch: info.epoch, tools: info.tools,
      release: () => {
        // (after a trap the id is gone with its instance; after dispose, all
        // is: quiet, as dispose() is when called again)
        if (generation !== this.#generation || !this.#handle) return;
        this.#call('tga_snapshot_release', id);
        this.#listCache.clear();
        if (this.#pinned.delete(id) && !this.#pinned.size) this.#releaseRetired();
      },
    };
  }

  /**
   * The tool list for a model. format: 'mcp' (default; a tools/list result,
   * paged with cursor/limit) | 'anthropic' | 'openai' | 'openai-strict' |
   * 'gemini' | 'bedrock' (Converse toolSpec). Given a principal (and mode, tenant, scheduler, source), the
   * policy filters out tools that principal can never call. The result is
   * frozen and shared: the same request returns the same object until a
   * tool or the policy changes (or, past 64 requests or 8 MiB of listings
   * kept, until newer ones push it out: list-cache.js).
   * @returns {{ tools: object[], nextCursor?: string, report: object[], epoch: number }}
   */
  listTools(request = {}) {
    request ??= {}; // (null: no request, as callTool reads a null context)
    unknownRequestKey('listing request key', request, LIST_KEYS);
    const { format = 'mcp', snapshot, cursor, limit, principal, mode, tenant, scheduler, source, session } = request;
    const req = { format };
    const id = snapshotId(snapshot);
    if (id !== undefined) req.snapshot = id;
    if (cursor !== undefined && cursor !== null) req.cursor = cursor; // ('' or 7: refused as a cursor, not read as none)
    if (limit) req.limit = limit;
    Object.assign(req, pick({ principal, mode, tenant, scheduler, source, session }));
    const text = jsonText(req, 'invalid_request', 'the listing request');
    const hit = this.#listCache.get(text);
    if (hit) return hit;
    const len = this.#write(text)[0];
    this.#check(this.#call('tga_list_tools', len));
    const listing = this.#text('tga_output_ptr', 'tga_output_len');
    const out = deepFreeze(JSON.parse(listing));
    this.#listCache.set(text, out, listing.length);
    return out;
  }

  // ---- permissions ----

  /** Sets the policy document (see docs/policy.md). Throws invalid_policy with diagnostics. */
  setPolicy(policy) {
    const text = typeof policy === 'string' ? checkedText(policy) : jsonText(policy, 'invalid_policy', 'the policy');
    // refused before it is copied in: the module reads at most 8 MiB of policy
    if (text.length > POLICY_BYTES) throw new ToolgateError('too_large', `the policy is larger than the limit of ${POLICY_BYTES} bytes`);
    this.#check(this.#journaled('tga_set_policy', [text], [], 'policy'));
  }

  /** Sets the HMAC key for self-contained approval tokens (16-1024 bytes):
   * a string (its UTF-8 bytes) or bytes (any buffer or view, read as its
   * bytes). Anything else is refused (invalid_request): a number read as
   * that many zero bytes, or an array cut to bytes, is a key anyone holds. */
  setApprovalKey(key) {
    let bytes;
    try {
      bytes = typeof key === 'string' ? null : copyOf(bytesOf(key)); // (a copy: the journal replays it)
    } catch {
      throw new ToolgateError('invalid_request', 'the approval key cannot be read: its ArrayBuffer was detached (transferred away)');
    }
    // (a string holding a lone surrogate is refused, not encoded as U+FFFD: two such keys would be one)
    if (typeof key === 'string') bytes = encoder.encode(checkedText(key));
    if (!bytes) throw new ToolgateError('invalid_request', 'the approval key must be a string or bytes (an ArrayBuffer or a view of one)');
    this.#check(this.#journaled('tga_set_approval_key', [bytes], [], 'key'));
  }

  /**
   * Decides without calling (no rate or budget is charged). args are judged
   * as a call's would be: given context, each of the tool's context
   * parameters holds the context's value.
   * @returns {{ decision: 'allow'|'ask'|'deny', rule: string, reason: string, trace?: object }}
   */
  authorize(request = {}) {
    unknownRequestKey('request key', request, AUTHORIZE_KEYS);
    const { tool, args, principal, mode, source, tenant, session, scheduler, explain, snapshot, context } = request;
    const req = { tool: String(tool), ...pick({ principal, mode, source, tenant, session, scheduler, explain, context, snapshot: snapshotId(snapshot) }) };
    let text = jsonText(req, 'invalid_request', 'the request');
    // arguments as a call takes them: JSON text (or its UTF-8 bytes) is the
    // arguments, not a string argument; a JS value is written as JSON
    if (args !== undefined) {
      const bytes = typeof args === 'string' ? null : bytesOf(args); // (detached: throws invalid_json)
      // refused before any copy into the module, as a call's arguments are:
      // a model's oversized arguments must not grow the memory for good
      const size = typeof args === 'string' ? args.length : bytes?.length ?? 0;
      if (size > this.#argsLimit) throw new ToolgateError('too_large', `the arguments: input of at least ${size} bytes is over the limit of ${this.#argsLimit}`);
      const given = typeof args === 'string' || bytes !== null;
      const argsText = typeof args === 'string' ? checkedText(args)
        : given ? decoder.decode(bytes) : jsonText(args, 'invalid_request', 'the arguments');
      // given text must be one JSON value, or '{}, "principal": "admin"' would add a member to the request
      if (given) {
        try { JSON.parse(argsText); } catch (e) { throw new ToolgateError('invalid_json', `the arguments are not one JSON value: ${e.message}`); }
      }
      text = `${text.slice(0, -1)},"args":${argsText}}`;
    }
    const len = this.#write(text)[0];
    this.#check(this.#call('tga_authorize', len));
    try {
      return this.#output();
    } catch (e) {
      // (the module writes one JSON object; never hand on a bare SyntaxError)
      if (e instanceof SyntaxError) throw new ToolgateError('too_large', `the decision and its trace could not be read: ${e.message}`);
      throw e;
    }
  }

  /**
   * A person's answer to a pending approval: 'approve' runs that exact call
   * once and returns its CallToolResult; 'approve_session' also allows the
   * tool for the rest of the session; 'deny' refuses it for good;
   * 'approve_token' (with setApprovalKey) approves it to run on any
   * instance holding the key: returns { status: 'approved', approvalId,
   * token, expiresAt }, and the call runs once, given { approvalToken:
   * token } in its context (same principal and session).
   */
  async resolveApproval(approvalId, answer, run) {
    const code = { deny: 0, approve: 1, approve_session: 2, approve_token: 3 }[answer];
    if (code === undefined) throw new TypeError("answer must be 'approve', 'approve_session', 'approve_token' or 'deny'");
    const pending = this.#approvals.get(approvalId);
    let status;
    try {
      status = this.#call('tga_resolve_approval', this.#write(String(approvalId))[0], code);
    } catch (e) { // disposed, a trap (the instance was replaced), a bad id
      if (e instanceof ToolgateError) return gateError(e.code, e.message);
      return gateError('invalid_request', `The approval id cannot be read: ${safeMessage(e)}`);
    }
    if (status !== TG_OK) {
      const e = this.#lastError(status);
      return gateError(e.code, `The approval cannot be used: ${e.message}`);
    }
    if (code === 3) { // approved to run elsewhere: the token is the approval now
      this.#answer(approvalId, 'token');
      const { token, expiresAt } = this.#output();
      this.#minted(token, pending?.record.session ?? '');
      return { status: 'approved', approvalId, token, expiresAt };
    }
    if (!pending) return code ? { status: 'approved', approvalId } : { status: 'denied', approvalId };
    if (!code) {
      this.#answer(approvalId, 'denied');
      return gateError('denied', `A person denied the call to tool "${pending.name}".`);
    }
    pending.record.approved = true;
    pending.record.forSession = code === 2;
    if (code === 2) this.#listCache.clear(); // (the session may now be shown the tool)
    // spent as it starts: a trap while it runs must not give a new instance the approval again
    this.#answer(approvalId, 'used');
    // the run's own signal and progress listener (the caller waiting for it
    // now, as serveTools' client): the approval's stored context has none
    run ??= this.#waiters.get(approvalId); // (serveTools' client, waiting while onApproval asks)
    const ctx = { ...pending.ctx, approval: approvalId };
    if (run?.signal !== undefined) ctx.signal = run.signal;
    if (run?.onProgress !== undefined) ctx.onProgress = run.onProgress;
    const result = await this.callTool(pending.name, pending.argsText, ctx);
    // refused before it ran (a deny or a limit in force now): the module keeps
    // the approval for another try, and a replaced instance must be given it
    if (this.#approvalUnspent(approvalId)) {
      this.#answered.delete(approvalId);
      this.#approvals.set(approvalId, pending);
    }
    return result;
  }

  /** @internal While fn runs (serveTools' onApproval), resolveApproval of
   * approvalId without run options runs the call with run's signal and
   * progress: the client waiting for the answer is the one that cancels. */
  async _awaitApproval(approvalId, run, fn) {
    this.#waiters.set(approvalId, run);
    try {
      return await fn();
    } finally {
      this.#waiters.delete(approvalId);
    }
  }

  /** An approval answered for good (denied, issued as a token) or whose
   * call runs: out of the approvals still to run, and kept without its
   * arguments until it expires, so that a replaced instance is given it
   * answered and refuses it with the reason this one gives (not as an
   * unknown id). */
  #answer(id, answered) {
    const pending = this.#approvals.get(id);
    this.#approvals.delete(id);
    if (!pending) return;
    if (this.#answered.size >= APPROVALS_SWEEP_AT) {
      const now = this.#clock();
      for (const [k, r] of this.#answered) if (!(r.expiresAt > now)) this.#answered.delete(k);
    }
    const { tool, definition, principal, session, expiresAt } = pending.record;
    this.#answered.set(id, { id, tool, argsText: '', definition, principal, session, expiresAt, answered });
  }

  /** Remembers a token the module may have spent (its expiry read from its
   * claims: tga1.<base64url(1, exp u64 big-endian, ...)>.<mac>); expired
   * ones go once there are many. */
  #spent(token) {
    if (typeof token !== 'string' || this.#spentTokens.has(token)) return;
    if (this.#spentTokens.size >= APPROVALS_SWEEP_AT) {
      const now = this.#clock();
      for (const [t, exp] of this.#spentTokens) if (!(exp > now)) this.#spentTokens.delete(t);
    }
    this.#spentTokens.set(token, tokenExpiry(token));
  }

  /** Remembers which session a token was issued for, so that endSession can
   * spend it even in an instance that replaced the one that minted it. */
  #minted(token, session) {
    if (this.#mintedTokens.size >= APPROVALS_SWEEP_AT) {
      const now = this.#clock();
      for (const [t, m] of this.#mintedTokens) if (!(m.expiresAt > now)) this.#mintedTokens.delete(t);
    }
    this.#mintedTokens.set(token, { session, expiresAt: tokenExpiry(token) });
  }

  /** Whether the module holds approval id approved and unspent. */
  #approvalUnspent(id) {
    try {
      return this.#generation && this.#exports.tga_approval_unspent(this.#handle, this.#write(String(id))[0]) === 1;
    } catch {
      return false; // (disposed, or an id that cannot be written: nothing to keep)
    }
  }

  #sweepApprovals() {
    const now = this.#clock();
    for (const [id, a] of this.#approvals) if (!(a.record.expiresAt > now)) this.#approvals.delete(id);
  }

  /** @internal how many entries a replaced instance would replay (tests of its bound). */
  _journalLength() { return this.#journal.length; }

  /** @internal bytes of change log taken but not yet applied (tests of their bound: #takeChanges). */
  _pendingChangeBytes() { return this.#pendingBytes; }

  /** @internal how many handlers the host side holds, live or held (tests of their bound). */
  _handlerCount() { return new Set([...this.#handlers.keys(), ...this.#heldHandlers.keys()]).size; }

  /** @internal how many pending approvals the host side holds (tests of their bound). */
  _pendingApprovals() { return this.#approvals.size; }

  /** @internal how many answered approvals the host side keeps for a replaced instance (tests of their bound). */
  _answeredApprovals() { return this.#answered.size; }

  /** Ends a session: its budgets, session rules and approval ids not yet
   * used are forgotten (a later resolveApproval of one is refused), and the
   * tokens this runtime issued for it are spent. (A token is self-contained:
   * another runtime that shares the key, and never saw this session end,
   * still takes it until it expires.) */
  endSession(session) {
    const len = this.#write(String(session))[0];
    this.#call('tga_end_session', len);
    for (const [token, m] of this.#mintedTokens) {
      if (m.session !== String(session)) continue;
      this.#mintedTokens.delete(token);
      // (an instance that replaced the one that minted it never saw it minted)
      this.#exports.tga_restore_spent_token(this.#handle, this.#write(token)[0]);
      this.#spent(token);
    }
    for (const [id, a] of this.#approvals) if ((a.record.session ?? '') === String(session)) this.#approvals.delete(id);
    for (const [id, r] of this.#answered) if ((r.session ?? '') === String(session)) this.#answered.delete(id);
    this.#listCache.clear(); // (what the session was shown may change)
  }

  /** Subscribes to audit events (one per decision and outcome), delivered in
   * order once the module call that made them has returned (a microtask, before
   * the call's promise settles), so a listener may call back into the runtime.
   * Calls that dispose() ends have their outcome ('disposed') delivered after
   * it returned: calling back then throws 'disposed'.
   * @returns {() => void} unsubscribe (a no-op for the module once disposed) */
  onAudit(fn) {
    this.#auditSubscribers.add(fn);
    if (this.#auditSubscribers.size === 1) this.#call('tga_set_audit', 1);
    return () => { // (after dispose() too: there is no module to tell then)
      if (this.#auditSubscribers.delete(fn) && this.#auditSubscribers.size === 0 && this.#handle) this.#call('tga_set_audit', 0);
    };
  }

  // ---- calls ----

  /**
   * Calls a tool through the gate. args: JSON text (what providers return),
   * UTF-8 bytes, or a JS value. ctx: { principal, mode, scheduler, source,
   * tenant, session, context (values for context parameters), snapshot,
   * format ('openai-strict' when the model saw that rendering), signal
   * (AbortSignal to cancel), approvalToken }. Never throws for the call's
   * own failures: unknown tools, denials, bad arguments, timeouts and
   * handler errors come back as a CallToolResult with isError: true (gate
   * errors carry _meta['dev.toolgate/error'].code). When the policy asks a
   * person first the result is { status: 'pending_approval', approvalId,
   * tool, args, reason, expiresAt, token? }.
   */
  async callTool(name, args = {}, ctx = NO_CONTEXT) {
    try {
      name = String(name);
    } catch (e) {
      return this.#refusedHere('', NO_CONTEXT, 'invalid_request', `The tool name cannot be read as text: ${safeMessage(e)}`);
    }
    if (this.#nesting >= MAX_HANDLER_NESTING) {
      return this.#refusedHere(name, NO_CONTEXT, 'limit_reached', `The call to tool "${name}" was made inside ${MAX_HANDLER_NESTING} handlers, each called from the last one's synchronous code; a call nested deeper is refused.`);
    }
    let ctxText = '';
    let cancelled = false;
    if (ctx === null) ctx = NO_CONTEXT;
    if (ctx !== NO_CONTEXT) {
      // the host's context read once, into plain data: a getter that throws or
      // answers differently the second time cannot fail the call half-way
      // (after the module dispatched it, its slots would stay taken)
      try {
        ctx = readContext(ctx);
        cancelled = ctx.signal?.aborted; // (the signal is the host's object: read where a throw is a refusal)
      } catch (e) {
        return this.#refusedHere(name, NO_CONTEXT, 'invalid_request', `The call's context cannot be used: ${safeMessage(e)}`);
      }
      try { ctxText = contextText(ctx); } catch (e) { // a BigInt, a cycle, a throwing toJSON in the host's context
        return this.#refusedHere(name, ctx, 'invalid_request', `The call's context cannot be written as JSON: ${e.message}`);
      }
    }
    let argBytes;
    if (typeof args === 'string') {
      // (JSON.stringify never makes a lone surrogate; a caller's string may)
      if (!wellFormed(args)) return this.#refusedHere(name, ctx, 'invalid_json', `Arguments for tool "${name}" are not valid JSON: ${LONE_SURROGATE}`);
      argBytes = args;
    } else {
      // UTF-8 bytes (an ArrayBuffer, a DataView or a typed array over one),
      // else a JS value written as JSON; bytes detached (transferred away)
      // are arguments that cannot be read: invalid_json, as a value JSON
      // cannot hold
      try {
        argBytes = bytesOf(args) ?? JSON.stringify(args) ?? 'null';
      } catch (e) {
        return this.#refusedHere(name, ctx, 'invalid_json', e instanceof ToolgateError
          ? `Arguments for tool "${name}" are not valid JSON: ${e.message}` : `Arguments cannot be written as JSON: ${safeMessage(e)}`);
      }
    }
    if (cancelled) return this.#refusedHere(name, ctx, 'cancelled', `The call to tool "${name}" was cancelled.`);
    // refused before any copy into the module: every character is at least one byte
    if (argBytes.length > this.#argsLimit) {
      return this.#refusedHere(name, ctx, 'too_large', `Arguments for tool "${name}" are not valid JSON: input of at least ${argBytes.length} bytes is over the limit of ${this.#argsLimit}`);
    }
    let status;
    try {
      const lens = this.#write(argBytes, name, ctxText);
      const argsLen = lens[0], nameLen = lens[1], ctxLen = lens[2];
      this.#invoked = null;
      if (typeof argBytes === 'string') {
        this.#argsGiven = argBytes;
        this.#argsAt = this.#inPtr;
        this.#argsLen = argsLen;
      }
      try {
        status = this.#hot(this.#beginFn, argsLen, nameLen, ctxLen, this.#beginAt = this.#clock());
      } finally {
        this.#argsGiven = null;
      }
    } catch (e) {
      if (e instanceof ToolgateError) return gateError(e.code, e.message);
      throw e;
    }
    if (ctx.approvalToken !== undefined && this.#exports.tga_call_spent_token(this.#handle)) this.#spent(ctx.approvalToken);
    // an approval kept for another try is forgotten here once it ran
    // (only an approved one: a pending id named too early is still the person's to answer)
    if (ctx.approval !== undefined && this.#approvals.get(ctx.approval)?.record.approved && !this.#approvalUnspent(ctx.approval)) this.#answer(ctx.approval, 'used');
    if (status === TG_PENDING_APPROVAL) {
      const out = this.#hotOutput();
      const record = { id: out.approvalId, tool: out.tool, argsText: out.argsText, definition: out.definition,
        contextDigest: out.contextDigest, principal: ctx.principal, session: ctx.session, expiresAt: out.expiresAt };
      // kept to run the call once approved (and to restore it after a trap):
      // the expired ones go once there are many, so approvals nobody answers
      // (each holding its arguments) cannot pile up in the host
      if (this.#approvals.size >= APPROVALS_SWEEP_AT) this.#sweepApprovals();
      this.#approvals.set(out.approvalId, { record, name: out.tool, argsText: out.argsText, ctx: { ...ctx, signal: undefined, onProgress: undefined } });
      delete out.argsText;
      delete out.definition;
      delete out.contextDigest;
      return out;
    }
    if (status !== TG_PENDING) {
      const text = this.#hotText();
      if (text) return JSON.parse(text);
      const e = this.#lastError(status); // (every refusal leaves a result; this is a second line)
      return gateError(e.code, e.message);
    }
    const job = this.#invoked;
    this.#invoked = null;
    return this.#run(job, name, ctx);
  }

  /** Runs the handler. A synchronous result completes at once; a promise
   * races the deadline and the caller's AbortSignal. The handler's own
   * AbortSignal is made only if the handler asks for it. */
  #run(job, name, ctx) {
    const handler = this.#handlers.get(job.handlerId);
    const info = new CallInfo(job.callId, name, ctx.context ?? NO_CONTEXT, job.deadline, this.#clock, ctx.onProgress);
    // the instance the call was dispatched in: a handler may trap the module
    // (through a call of its own), and its call id then means another call
    // in the replacement
    const generation = this.#generation;
    let value;
    let thenable;
    this.#nesting++;
    try {
      value = handler(JSON.parse(job.args), info);
      thenable = !!value && typeof value.then === 'function'; // (a getter may throw too)
    } catch (e) {
      this.#nesting--;
      info._end();
      return this.#finish(job, name, ctx, this.#errorText(e), 1, generation);
    }
    this.#nesting--;
    if (!thenable) {
      info._end();
      return this.#finish(job, name, ctx, value, 0, generation);
    }
    return this.#await(job, name, ctx, value, info, generation);
  }

  async #await(job, name, ctx, promise, info, generation) {
    let settle;
    const early = new Promise((resolve) => { settle = resolve; });
    const flight = { timer: undefined, settle, job, name, ctx };
    // disposed, or the module replaced, while the handler's synchronous part
    // ran: #endInFlight came before the call was listed, so it ends here
    if (!this.#handle) {
      this.#hostOutcome(job, name, ctx, 'disposed');
      settle('disposed');
    } else if (generation !== this.#generation) settle('trap');
    else {
      armDeadline(flight, Math.max(0, job.deadline - this.#clock()));
      this.#inFlight.set(job.callId, flight);
    }
    const signal = ctx.signal;
    const onCancel = () => settle('cancelled');
    if (signal !== undefined) {
      // the caller's signal (an AbortSignal look-alike passes for one) used
      // after the dispatch: a throw here must still end the call in the
      // module. One that cannot be watched or read could not cancel the
      // call, so the call ends as cancelled rather than run unstoppable.
      try {
        signal.addEventListener('abort', onCancel, { once: true });
        if (signal.aborted) settle('cancelled'); // (aborted while the handler's synchronous part ran)
      } catch {
        settle('cancelled');
      }
    }
    // a promise of our own adopts any thenable safely: a then() that throws,
    // answers twice or calls back at once settles it only once. (Not
    // Promise.resolve: given a native promise it reads its constructor, and
    // a getter that throws there would fail the call after its dispatch.)
    const work = new Promise((resolve) => resolve(promise)).then((v) => ({ v, isError: 0 }), (e) => ({ v: this.#errorText(e), isError: 1 }));
    const first = await Promise.race([work, early]);
    if (typeof first !== 'string') info._end(); // (the result is in: no progress after it)
    clearTimeout(flight.timer);
    if (signal !== undefined) {
      try { signal.removeEventListener('abort', onCancel); } catch { /* (left listening: it can only settle a call that ended) */ }
    }
    // (after a trap a new instance may have given the id to another call)
    if (this.#inFlight.get(job.callId) === flight) this.#inFlight.delete(job.callId);
    if (typeof first === 'string') { // timeout, cancelled, trap or disposed: the handler's late result is discarded
      info._end(new Error({ timeout: 'deadline passed', cancelled: 'cancelled', trap: 'the module was replaced', disposed: 'the runtime was disposed' }[first]));
      if (first === 'disposed') return gateError('disposed', `The runtime was disposed while tool "${name}" ran.`);
      if (generation !== this.#generation) return this.#trappedCall(job, name, ctx, `The module was replaced while tool "${name}" ran.`);
      try {
        if (first === 'timeout') return this.#endCall(job, 1);
        // cancelled: the caller is answered now, but the handler may still
        // run (JS cannot stop it), so the call keeps its place in the limits
        // until it stops or its deadline passes, whichever is first (a
        // caller that cancels and calls again gains nothing; a handler that
        // never stops holds its place no longer than a timed-out one)
        const out = this.#endCall(job, 0, true);
        let stopped = false;
        const stop = () => {
          if (stopped) return;
          stopped = true;
          clearTimeout(timer);
          this.#handlerStopped(job, generation);
        };
        const left = job.deadline - this.#clock();
        const timer = setTimeout(stop, left > 0 ? Math.min(left, MAX_TIMER_MS) : 0);
        timer.unref?.(); // (a process may exit with such a handler running)
        work.then(stop);
        return out;
      } catch (e) {
        if (e instanceof ToolgateError && e.code === 'unknown_call') return gateError(first, `The call to tool "${name}" ended: ${first}.`);
        if (e instanceof ToolgateError && e.code === 'module_trap') return this.#trappedCall(job, name, ctx, e.message);
        if (e instanceof ToolgateError) return gateError(e.code, e.message);
        throw e;
      }
    }
    return this.#finish(job, name, ctx, first.v, first.isError, generation);
  }

  /** Ends every awaited call at once (a trap replaced the module, or the
   * runtime was disposed): its caller gets a result and its handler's
   * signal aborts, rather than a promise that never settles. A disposed
   * call's outcome event is queued here, while dispose() runs (delivered in
   * a microtask after it, as every event); a trapped call's once its caller
   * is told (#trappedCall). */
  #endInFlight(why) {
    const calls = [...this.#inFlight.values()];
    this.#inFlight.clear();
    for (const { timer, settle, job, name, ctx } of calls) {
      clearTimeout(timer);
      if (why === 'disposed') this.#hostOutcome(job, name, ctx, 'disposed');
      settle(why);
    }
  }

  /** The text of what a handler threw, whatever it threw: a value that
   * cannot become text (Object.create(null), a throwing toString or getter)
   * must still end the call as an error result, not leave it pending. */
  #errorText(e) {
    try {
      return e instanceof Error ? String(this.#options.exposeStack && e.stack ? e.stack : e.message) : String(e);
    } catch {
      return 'the handler threw a value that cannot be shown as text';
    }
  }

  /** Hands the handler's outcome to the module; returns the CallToolResult. */
  #finish(job, name, ctx, value, isError, generation) {
    if (generation !== this.#generation) {
      return this.#trappedCall(job, name, ctx, `The module was replaced while tool "${name}" ran; its result was discarded.`);
    }
    // kind 0: result JSON, 1: error text, 2: a string that comes back as the
    // text result it is, unless the module says otherwise (an outputSchema,
    // a cap): then its result is read back
    let text = value;
    let kind = isError ? 1 : 0;
    if (!isError && typeof value === 'string' && value.isWellFormed?.()) kind = 2;
    else if (!isError) {
      try {
        text = value === undefined ? '{"content":[]}' : JSON.stringify(value);
        if (text === undefined) throw new TypeError('the handler returned a value JSON cannot hold');
      } catch (e) {
        text = this.#errorText(e);
        kind = 1;
      }
    }
    // error text is cut in the module to a few KiB: a longer one need not be copied in
    if (kind === 1 && text.length > ERROR_TEXT_COPY) text = text.slice(0, ERROR_TEXT_COPY);
    try {
      // a text of more UTF-16 units than the cap has more bytes too: refused
      // unread, and ended in the module (its slots freed) all the same
      if (kind !== 1 && text.length > this.#resultLimit) return this.#endCall(job, 2);
      let len;
      try {
        len = this.#write(text)[0];
      } catch (e) {
        if (e instanceof ToolgateError && e.code === 'out_of_memory') return this.#endCall(job, 2);
        throw e;
      }
      const done = this.#hot(this.#completeFn, job.callId, len, kind, this.#clock());
      if (done === TG_OK_TEXT) return { content: [{ type: 'text', text: value }] };
      if (done !== TG_OK) throw this.#lastError(done);
      return this.#hotOutput();
    } catch (e) {
      if (e instanceof ToolgateError && e.code === 'module_trap') return this.#trappedCall(job, name, ctx, e.message);
      if (e instanceof ToolgateError) return gateError(e.code, e.message);
      throw e;
    }
  }

  /** A dispatched call that a trap ended: the trapped instance took the
   * call with it, and the new one never knew it, so neither tells its
   * outcome; the host sends the audit event the module would have, so no
   * "dispatched" decision is left without its end. Returns the result. */
  #trappedCall(job, name, ctx, message) {
    this.#hostOutcome(job, name, ctx, 'module_trap');
    return gateError('module_trap', message);
  }

  /** Queues the outcome event of a dispatched call that the module cannot
   * end (a trap took it, or the runtime was disposed), as the module writes one. */
  #hostOutcome(job, name, ctx, outcome) {
    if (!this.#auditSubscribers.size) return;
    const event = { phase: 'outcome', callId: job.callId, tool: name };
    const source = this.#sourceOf(job.handlerId);
    if (source !== undefined) event.source = source;
    if (typeof ctx.principal === 'string' && ctx.principal) event.principal = ctx.principal;
    event.outcome = outcome;
    event.durationMs = this.#clock() - job.started;
    this.#queueAudit(event);
  }

  /** The source whose tool runs handler `id` (a scan: for the rare trapped call). */
  #sourceOf(id) {
    for (const [source, ids] of this.#sourceHandlers) for (const h of ids.values()) if (h === id) return source;
    return undefined;
  }

  /** An abandoned call's handler stopped: its place is given back (in the
   * instance that dispatched it; a replaced or disposed one has none). */
  #handlerStopped(job, generation) {
    if (!this.#handle || generation !== this.#generation) return;
    try { this.#call('tga_call_settled', job.callId); } catch { /* (a trap here is recovered from like any other) */ }
  }

  /** Ends a dispatched call in the module without its result (reason: 0
   * cancelled, 1 timeout, 2 too large): every call the module dispatched is
   * ended there, or its pending and concurrency slots would stay taken.
   * running: its handler has not stopped (tga_call_abandon), so the call
   * keeps those slots until #handlerStopped. */
  #endCall(job, reason, running = false) {
    const status = this.#call(running ? 'tga_call_abandon' : 'tga_call_cancel', job.callId, reason);
    if (status !== TG_OK) throw this.#lastError(status);
    return this.#output();
  }

  // ---- the validator on its own ----

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
    // JSON text, its UTF-8 bytes (read as text, as validate and callTool
    // read them: written as a JS value, a Uint8Array is an object of unknown
    // keywords that accepts everything) or a JS value
    const text = typeof schema === 'string' ? checkedText(schema) : copyOf(bytesOf(schema)) ?? jsonText(schema, 'invalid_schema', 'the schema');
    const opts = pick({ dialect: options.dialect, formats: options.formats, resources: options.resources });
    let optText = Object.keys(opts).length ? jsonText(opts, 'invalid_request', 'the options') : '';
    if (opts.resources !== null && typeof opts.resources === 'object') optText = resourcesText(opts, optText);
    const id = this.#compileSchema(text, optText);
    return new Validator(this, id, text, optText, this.#generation);
  }

  #compileSchema(text, optText) {
    // refused before it is copied in (each character at least one byte), as
    // the module would refuse it: a schema's text is at most 4 x schemaBytes
    const limit = 4 * this.#schemaBytes;
    if (text.length > limit) throw new ToolgateError('too_large', `schema: input of at least ${text.length} bytes is over the limit of ${limit}`);
    const [len, optLen] = this.#write(text, optText);
    const id = this.#call('tga_schema_compile', len, optLen);
    if (!id) throw this.#lastError(-11);
    return id;
  }

  /** @internal validates through compiled schema `v`. */
  _validate(v, instance, maxErrors) {
    if (v.generation !== this.#generation) { v.id = this.#compileSchema(v.text, v.optText); v.generation = this.#generation; v._sites = null; v._lastSite = -1; }
    let input;
    try {
      input = typeof instance === 'string' ? instance : bytesOf(instance) ?? instance;
    } catch (e) { // (bytes whose buffer was detached: nothing to judge)
      if (!(e instanceof ToolgateError)) throw e;
      return { valid: false, errors: [], jsonError: { code: e.code, message: e.message, offset: 0 } };
    }
    if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
      try {
        input = jsonText(input, 'invalid_json', 'the value');
      } catch (e) { // undefined, a BigInt, a cycle, a throwing toJSON: not JSON, so not valid
        return { valid: false, errors: [], jsonError: { code: 'invalid_json', message: e.message, offset: 0 } };
      }
    }
    if (input.length > this.#argsLimit) {
      return { valid: false, errors: [], jsonError: { code: 'too_large', message: `input of at least ${input.length} bytes is over the limit of ${this.#argsLimit}`, offset: this.#argsLimit } };
    }
    if (!wellFormed(input)) return { valid: false, errors: [], jsonError: { code: 'invalid_json', message: LONE_SURROGATE, offset: loneSurrogateOffset(input) } };
    let len;
    try {
      len = this.#write(input)[0];
    } catch (e) {
      if (e instanceof ToolgateError && e.code === 'out_of_memory') return unjudged(e);
      throw e;
    }
    // the first error of a text whose bytes are its characters (ASCII: as
    // many bytes as UTF-16 units) may come back coded, to be written here
    // from the text itself (first-error.js)
    const coded = maxErrors === 1 && len === input.length && typeof input === 'string';
    const r = coded ? this.#hot(this.#firstFn, v.id, len) : this.#hot(this.#validateFn, v.id, len, maxErrors);
    if (r === 1) return { valid: true, errors: [] }; // (the caller's to change: a fresh object costs nothing next to the call)
    if (r === 0) {
      if (!maxErrors) return { valid: false, errors: [] };
      const w = this.#words();
      if (coded && w[this.#place + 5]) {
        const e = this.#codedError(v, w, input);
        if (e) return { valid: false, errors: [e] };
        // (no memory for the site's words: the module writes the error itself)
        if (this.#hot(this.#validateFn, v.id, len, 1) !== 0) return unjudged(new ToolgateError('out_of_memory', 'no memory to write the error'));
      }
      return { valid: false, errors: this.#errorRecords() };
    }
    const e = this.#lastError(r);
    if (e.code === 'invalid_json' || e.code === 'too_large') {
      return { valid: false, errors: [], jsonError: { code: e.code, message: e.message, offset: e.diagnostics.offset ?? 0 } };
    }
    if (e.code === 'out_of_memory') return unjudged(e);
    throw e;
  }

  /** The coded first error the module left (words w) over `text`, written
   * with its site's fixed words: asked of the module once per site (after
   * the code's words are copied out: the asking overwrites them) and kept
   * on v (a schema has as many sites as keywords). null when the module
   * has no memory to write them. */
  #codedError(v, w, text) {
    const at = w[this.#place + 4] >>> 2, site = w[at], variant = w[at + 1];
    const key = variant < 1024 && site < 0x100000 ? variant * 0x100000 + site : `${site}:${variant}`;
    if (v._lastSite === key) return codedError(w, at, text, v._lastWords); // (the same error again: no lookup)
    const words = v._sites?.get(key);
    if (words !== undefined) {
      v._lastSite = key;
      v._lastWords = words;
      return codedError(w, at, text, words);
    }
    const code = w.slice(at, at + w[this.#place + 5]);
    if (this.#call('tga_schema_site', v.id, site, variant) !== TG_OK) return null; // (out of memory: a site the module coded is one)
    const [loc, template] = this.#records();
    const made = siteWordsOf(loc, template);
    (v._sites ??= new Map()).set(key, made);
    return codedError(code, 0, text, made);
  }

  /** @internal */
  _releaseSchema(v) { if (this.#handle && v.generation === this.#generation) this.#call('tga_schema_release', v.id); }

  /**
   * Checks JSON text (or UTF-8 bytes) with the module's strict reader.
   * @returns {{ ok: true } | { ok: false, code: string, message: string, offset?: number }}
   */
  checkJSON(text, { allowDuplicateKeys = false } = {}) {
    if (typeof text !== 'string') {
      try {
        text = bytesOf(text) ?? text;
      } catch (e) { // (bytes whose buffer was detached)
        if (!(e instanceof ToolgateError)) throw e;
        return { ok: false, code: e.code, message: e.message };
      }
    }
    if (typeof text !== 'string' && !(text instanceof Uint8Array)) {
      return { ok: false, code: 'invalid_request', message: 'checkJSON takes JSON text or its UTF-8 bytes' };
    }
    // refused before any copy into the module (every character is at least
    // one byte), as _validate does: a copy of a text past the limit would
    // grow the memory for good, or find no room (out_of_memory)
    if (text.length > this.#argsLimit) {
      return { ok: false, code: 'too_large', message: `input of at least ${text.length} bytes is over the limit of ${this.#argsLimit}`, offset: this.#argsLimit };
    }
    if (!wellFormed(text)) return { ok: false, code: 'invalid_json', message: LONE_SURROGATE, offset: loneSurrogateOffset(text) };
    const len = this.#write(text)[0];
    const status = this.#call('tga_check_json', len, allowDuplicateKeys ? 1 : 0);
    if (status === TG_OK) return { ok: true };
    const e = this.#lastError(status);
    return { ok: false, code: e.code, message: e.message, ...e.diagnostics };
  }

  /** Bytes the runtime has allocated inside the module. */
  memoryUsed() { return this.#exports.tga_memory_used(this.#handle); }

  /** Size of the module's linear memory in bytes. */
  memorySize() { return this.#memory ? this.#memory.buffer.byteLength : 0; }

  /** How many times a trapped instance was replaced. */
  get restarts() { return this.#restarts; }

  /** How many tools replaced instances could not be given back (memory ran
   * out while restoring, or a change could not be logged): 0 unless the
   * registry after a trap may miss tools (calls to them are refused:
   * unknown_tool, never run unreviewed). */
  get lostRestores() { return this.#lostRestores; }

  /** @internal the linear memory (tests of its reuse). */
  _memory() { return this.#memory; }

  /** @internal forces a trap (tests of recovery). */
  _selftestTrap() { this.#call('tga_selftest_trap'); }

  /** Frees the runtime inside the module and gives its memory to the next
   * runtime; any later use throws ToolgateError('disposed'). */
  dispose() {
    if (!this.#handle) return;
    this.#endInFlight('disposed');
    this.#listCache.clear();
    const memory = this.#memory;
    this.#handle = 0;
    this.#exports = DISPOSED_EXPORTS;
    this.#validateFn = this.#beginFn = this.#completeFn = disposed;
    this.#memory = null;
    this.#u8 = null;
    this.#u32 = null;
    giveMemory(memory);
  }
}

function disposed() { throw new ToolgateError('disposed', 'this runtime was disposed'); }

function reentered() {
  return new ToolgateError('reentrant', 'a runtime method was called from inside a call into the module (from the clock option?); the module is not re-entrant');
}
// an instance the module has no memory to hold or judge (a large text with
// argsBytes raised) is not judged: too_large, a result like the evaluator's
// own bounds give, never a throw (_validate)
const unjudged = (e) => ({ valid: false, errors: [], jsonError: { code: 'too_large', message: `the instance could not be checked: ${e.message}`, offset: 0 } });

/** What a disposed runtime calls instead of its exports: every call throws. */
const DISPOSED_EXPORTS = new Proxy({}, { get: () => disposed });

function deepFreeze(v) {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k in v) deepFreeze(v[k]);
  }
  return v;
}
