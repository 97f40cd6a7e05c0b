// mcp.js - the MCP adapter entry ('toolgate/mcp'): import an upstream
// server's tools through an official SDK Client, and serve a runtime's
// tools through an official SDK Server. The SDK is the caller's (a peer of
// this entry); the core entry never loads it.
import { ListToolsRequestSchema, CallToolRequestSchema, CallToolResultSchema, ResultSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ToolgateError, unknownKey } from './errors.js';
import { utf8Length } from './text.js';

/**
 * Lists every page of a server's tools (following nextCursor) within bounds,
 * then imports them under `source`: each tool is registered or rejected on
 * its own; calls are forwarded to the client.
 * @param {import('./runtime.js').ToolRuntime} rt
 * @param {string} source
 * @param {{ listTools(params?: object): Promise<{tools: object[], nextCursor?: string}>, callTool(params: object): Promise<object> }} client
 * @param {{ maxPages?: number, maxTools?: number, maxBytes?: number, timeoutMs?: number, options?: object|Function }} [opts]
 *   timeoutMs bounds the whole listing (every page), 60 s by default: a slow
 *   server cannot hold an import for the SDK's 60 s a page.
 */
export async function importFromClient(rt, source, client, { maxPages = 50, maxTools = 1000, maxBytes = 8 << 20, timeoutMs = 60_000, options } = {}) {
  const tools = [];
  let cursor;
  let bytes = 0;
  const deadline = Date.now() + timeoutMs;
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw boundError(`more than ${maxPages} pages of tools`);
    const left = deadline - Date.now();
    if (left <= 0) throw tooSlow(timeoutMs);
    let res;
    try {
      // (a timeoutMs of 2^31 ms or more, or Infinity, is the longest timer
      // Node can set, not one that fires at once)
      res = await listPage(client, cursor, { timeout: Math.min(MAX_TIMER_MS, left) });
    } catch (e) {
      // the SDK's request timeout was the time the listing had left (its
      // timer can fire a millisecond before Date.now() reads the deadline)
      if ((e?.code === ErrorCode.RequestTimeout && left <= MAX_TIMER_MS) || Date.now() >= deadline) throw tooSlow(timeoutMs);
      throw e;
    }
    // (MCP: a tools/list result holds a tools array; one without is not an
    // empty listing, which would take the source's tools away)
    if (!Array.isArray(res?.tools)) throw new ToolgateError('invalid_result', 'the server\'s tools/list gave no "tools" array; nothing was imported');
    const listed = res.tools;
    // counted before they are gathered: a page of 150,000 tools is over the
    // bound, not a stack overflow in push(...page)
    if (tools.length + listed.length > maxTools) throw boundError(`more than ${maxTools} tools`);
    bytes += utf8Length(JSON.stringify(listed));
    if (bytes > maxBytes) throw boundError(`tool list larger than ${maxBytes} bytes`);
    for (const t of listed) tools.push(t);
    if (!res.nextCursor) break;
    if (typeof res.nextCursor !== 'string') throw new ToolgateError('invalid_result', 'the server\'s tools/list gave a nextCursor that is not a string; nothing was imported');
    cursor = res.nextCursor;
  }
  // A tool the server will run only as a task (MCP 2025-11-25 execution.
  // taskSupport "required") cannot be called through client.callTool, which
  // the SDK refuses for it before anything is sent: it is not registered
  // (the model would be shown a tool that always fails) but rejected, with
  // the reason, as the registry rejects a tool.
  const callable = [];
  const taskOnly = [];
  for (const t of tools) (t?.execution?.taskSupport === 'required' ? taskOnly : callable).push(t);
  const res = rt.importTools(source, callable, { options, call: (name, args, info) => callUpstream(client, name, args, requestOptions(info)) });
  if (!taskOnly.length) return res;
  return {
    ...res,
    rejected: [...res.rejected, ...taskOnly.map((t) => ({
      tool: String(t.name),
      code: 'missing_capability',
      message: `"${t.name}" runs only as an MCP task (execution.taskSupport "required"), and toolgate forwards plain tools/call requests: it was not imported`,
    }))],
  };
}

/* What the upstream sends is read as plain results (the SDK's ResultSchema:
 * any object), never through Client.listTools / Client.callTool: those parse
 * every tool with the SDK's strict schema (one tool it refuses, or one
 * outputSchema its ajv cannot compile, fails the whole listing, where the
 * registry rejects that tool on its own) and check structuredContent with
 * ajv, whose patterns run on a backtracking engine: an upstream's
 * "^(a+)+$" would block the process far past the call's deadline. The
 * registry and the gate check the same things with the linear-time
 * validator. A client without request() (a stand-in) is asked as before. */
function listPage(client, cursor, opts) {
  const params = cursor ? { cursor } : {};
  if (typeof client.request !== 'function') return client.listTools(params, opts);
  return client.request({ method: 'tools/list', params }, ResultSchema, opts);
}

function callUpstream(client, name, args, opts) {
  const params = { name, arguments: args };
  if (typeof client.request !== 'function') return client.callTool(params, undefined, opts);
  return client.request({ method: 'tools/call', params }, ResultSchema, opts);
}

/** The SDK's request timeout would cut a call at its own 60 s default,
 * whatever the tool's toolgate deadline (timeoutMs) says: the forwarded
 * request is given the time the call has left, and a little more, so the
 * runtime's deadline governs (its timeout result, with its code, wins the
 * race, and its AbortSignal then cancels the request upstream). */
const SDK_TIMEOUT_GRACE_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1; // (setTimeout fires at once past this)

function requestOptions(info) {
  if (!info) return undefined;
  const opts = {};
  if (info.signal) opts.signal = info.signal;
  // the upstream's progress goes on to whoever called through the gate
  if (typeof info.progress === 'function') opts.onprogress = (p) => info.progress(p);
  const left = info.remainingMs;
  if (typeof left === 'number' && left >= 0) {
    opts.timeout = Math.min(MAX_TIMER_MS, Math.ceil(left) + SDK_TIMEOUT_GRACE_MS);
    opts.maxTotalTimeout = opts.timeout; // (bounds it too should progress ever reset the timeout)
  }
  return opts;
}

function boundError(what) {
  return new ToolgateError('limit_reached', `the server lists ${what}; nothing was imported`);
}

function tooSlow(timeoutMs) {
  return new ToolgateError('timeout', `the server took more than ${timeoutMs} ms to list its tools; nothing was imported`);
}


/** The first MCP revision in which an outputSchema may have any root (not
 * only type "object") and structuredContent may be any JSON value. */
const ANY_STRUCTURED_ROOT = '2026-07-28';

/**
 * Serves rt's tools from an official SDK (low-level) Server: tools/list from
 * the runtime's MCP rendering (paged), tools/call through the gate with the
 * client's cancellation (extra.signal). Call it before server.connect().
 *
 * Each request runs as the caller callContext(extra) names: { principal,
 * mode, scheduler, source, tenant, session, snapshot, context }, for
 * tools/list (what that principal can call) and tools/call alike; any other
 * key fails the request (the client gets an error, nothing runs). The session is
 * extra.sessionId (a Streamable HTTP session) unless callContext gives one,
 * so each MCP session has its own budgets and session approvals. context
 * (extra) gives the call's context values (it wins over callContext's).
 *
 * What is served fits the protocol version the client negotiated: before
 * 2026-07-28 an outputSchema must have type "object" at its root and
 * structuredContent must be an object, and the SDK's clients refuse a whole
 * tools/list for one tool that breaks this. Such a client gets those tools
 * without their outputSchema, and their results without a structuredContent
 * that is not an object (the content blocks are kept; when there are none,
 * its JSON text is given as one). A 2026-07-28 client is served them as
 * they are once the SDK's Server can send such a result (1.x cannot: it
 * checks results against 2025-11-25's schema, so every client is served the
 * adapted rendering). execution.taskSupport is never served: calls here are
 * plain tools/call requests, never tasks.
 *
 * A call the policy answers with "ask" is never reported as done:
 * onApproval(pending, extra) may collect the answer and return
 * rt.resolveApproval's result (a CallToolResult is sent as it is; any other
 * answer, or none, as an error result saying the call was not run); without
 * it the client gets an error result saying a person's approval is needed.
 * @param {import('./runtime.js').ToolRuntime} rt
 * @param {import('@modelcontextprotocol/sdk/server/index.js').Server} server
 * @param {{ pageSize?: number, context?: (extra: object) => object, callContext?: (extra: object) => object|Promise<object>, onApproval?: (pending: object, extra: object) => unknown }} [opts]
 */
export function serveTools(rt, server, { pageSize = 100, context, callContext, onApproval } = {}) {
  const version = negotiatedVersion(server);
  const sessions = endSessionsOnClose(rt, server);
  const caller = async (extra) => {
    const c = callContext ? await callContext(extra) : undefined;
    // a key it does not take ("schedular", "Mode") is the host's mistake:
    // refused (the request fails), never dropped, which would run the call
    // without the scheduler block or plan mode the host meant
    try {
      unknownKey('key', c ?? {}, CALLER_KEYS);
    } catch (e) {
      throw new TypeError(`callContext: ${e.message}`);
    }
    const who = {};
    for (const k of CALLER_FIELDS) if (c?.[k] !== undefined) who[k] = c[k];
    if (who.session === undefined && typeof extra?.sessionId === 'string' && extra.sessionId) {
      who.session = extra.sessionId;
      sessions.add(extra.sessionId);
    }
    if (context) who.context = context(extra);
    return who;
  };
  server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => {
    const { context: _, ...who } = await caller(extra);
    let page;
    try {
      page = rt.listTools({ format: 'mcp', cursor: req.params?.cursor, limit: pageSize, ...who });
    } catch (e) { // a cursor this server never gave, or one of an earlier list: invalid params (MCP)
      if (e instanceof ToolgateError && e.code === 'invalid_request') throw new McpError(ErrorCode.InvalidParams, e.message);
      throw e;
    }
    const anyRoot = servesAnyRoot(version(extra));
    const tools = page.tools.map((t) => servedTool(t, anyRoot));
    return page.nextCursor ? { tools, nextCursor: page.nextCursor } : { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const ctx = { ...(await caller(extra)), signal: extra?.signal };
    // a client that asked for progress (a progressToken) is told what the handler reports
    const token = req.params?._meta?.progressToken;
    if ((typeof token === 'string' || typeof token === 'number') && typeof extra?.sendNotification === 'function') {
      ctx.onProgress = (p) => { extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...p } }).catch(() => {}); };
    }
    const res = await rt.callTool(req.params.name, req.params.arguments ?? {}, ctx);
    const anyRoot = () => servesAnyRoot(version(extra));
    if (res.status !== 'pending_approval') return servedResult(res, anyRoot());
    if (!onApproval) return approvalRequired(res);
    // the approved call runs with this client's cancellation and progress,
    // as any call served here: whether onApproval answers with the person's
    // answer (resolved here) or calls rt.resolveApproval itself
    const run = { signal: ctx.signal, onProgress: ctx.onProgress };
    let answer = await rt._awaitApproval(res.approvalId, run, async () => {
      const a = await onApproval(res, extra);
      return a === 'approve' || a === 'approve_session' || a === 'deny' ? rt.resolveApproval(res.approvalId, a, run) : a;
    });
    return servedResult(approvalAnswer(res, answer), anyRoot());
  });
}

/** What callContext may set for a request (the signal is the client's). */
const CALLER_FIELDS = ['principal', 'mode', 'scheduler', 'tenant', 'session', 'source', 'snapshot', 'context'];
const CALLER_KEYS = new Set(CALLER_FIELDS);

/** The MCP sessions serveTools named after the transport's sessionId end
 * in the runtime (rt.endSession: their budgets, session rules, approvals)
 * when the Server closes: a client that opens and drops sessions must not
 * fill the runtime's session tables. (Sessions callContext names are the
 * host's to end.) Wraps the SDK Server's own close handler on that
 * instance (a private method; without it, nothing is ended here). */
function endSessionsOnClose(rt, server) {
  const sessions = new Set();
  const own = server?._onclose;
  if (typeof own === 'function') {
    server._onclose = function (...args) {
      try {
        return own.apply(this, args);
      } finally {
        for (const s of sessions) {
          try { rt.endSession(s); } catch { /* (a disposed runtime has no sessions left) */ }
        }
        sessions.clear();
      }
    };
  }
  return sessions;
}

/**
 * The protocol version the server agreed with its client. The SDK's Server
 * (1.x) does not keep it: it answers initialize in _oninitialize and keeps
 * only the client's info and capabilities. Its answer is read on the way
 * out; a request over Streamable HTTP also says it (the MCP-Protocol-Version
 * header, which the transport has checked), which is all a stateless server,
 * one Server a request, ever sees. Unknown: undefined (served as for the
 * older revisions, which every client can read).
 */
function negotiatedVersion(server) {
  const own = server?._oninitialize;
  if (typeof own === 'function' && !own[TRACKED]) {
    const tracked = async function (...args) {
      const result = await own.apply(this, args);
      if (typeof result?.protocolVersion === 'string') agreedVersions.set(this, result.protocolVersion);
      return result;
    };
    tracked[TRACKED] = true;
    server._oninitialize = tracked;
  }
  return (extra) => {
    const header = extra?.requestInfo?.headers?.['mcp-protocol-version'];
    return agreedVersions.get(server) ?? (typeof header === 'string' ? header : undefined);
  };
}
const TRACKED = Symbol('toolgate.trackedInitialize');
const agreedVersions = new WeakMap(); // Server -> the version its initialize answered

function servesAnyRoot(version) {
  return typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= ANY_STRUCTURED_ROOT && sdkSendsAnyRoot();
}

/** Whether the SDK's Server can send a structuredContent that is not an
 * object: it checks every tools/call result against its own
 * CallToolResultSchema, which in SDK 1.x is 2025-11-25's (an object only,
 * and anything else is answered with -32602). Until it can, every client is
 * served the adapted rendering: a tool listed with an array outputSchema
 * whose results could never carry the array would fail every call. */
function sdkSendsAnyRoot() {
  if (sdkAnyRoot === undefined) {
    try { sdkAnyRoot = CallToolResultSchema.safeParse({ content: [], structuredContent: [1] }).success === true; } catch { sdkAnyRoot = false; }
  }
  return sdkAnyRoot;
}
let sdkAnyRoot;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One tool of the MCP rendering as this client may be sent it (the
 * rendering is frozen and shared: a changed tool is a copy). */
function servedTool(t, anyRoot) {
  const dropSchema = t.outputSchema !== undefined &&
    ((!anyRoot && !(isObject(t.outputSchema) && t.outputSchema.type === 'object')) || !unicodePatterns(t.outputSchema));
  const dropTask = isObject(t.execution) && t.execution.taskSupport !== undefined;
  if (!dropSchema && !dropTask) return t;
  const { outputSchema, execution, ...rest } = t;
  const out = { ...rest };
  if (!dropSchema) out.outputSchema = outputSchema;
  if (execution !== undefined) {
    if (!dropTask) out.execution = execution;
    else {
      const { taskSupport, ...other } = execution;
      if (Object.keys(other).length) out.execution = other;
    }
  }
  return out;
}

/** Whether every pattern in a schema (pattern, patternProperties' keys) is a
 * regular expression with the u flag. The SDK's Client compiles each listed
 * outputSchema with ajv, which reads patterns with it, and one it cannot
 * compile fails the whole tools/list; toolgate reads patterns as real
 * servers write them (an identity escape such as \# or \_ included), so a
 * tool whose outputSchema has such a pattern is served without it (the gate
 * still checks its results). Cached per schema (listings share them). */
function unicodePatterns(schema) {
  let ok = patternsChecked.get(schema);
  if (ok !== undefined) return ok;
  ok = true;
  const todo = [schema];
  const valid = (p) => { try { new RegExp(p, 'u'); return true; } catch { return false; } };
  while (ok && todo.length) {
    const x = todo.pop();
    if (x === null || typeof x !== 'object') continue;
    if (Array.isArray(x)) { for (const v of x) todo.push(v); continue; }
    for (const [k, v] of Object.entries(x)) {
      if (k === 'pattern' && typeof v === 'string' && !valid(v)) ok = false;
      if (k === 'patternProperties' && isObject(v) && !Object.keys(v).every(valid)) ok = false;
      todo.push(v);
    }
  }
  if (typeof schema === 'object' && schema !== null) patternsChecked.set(schema, ok);
  return ok;
}
const patternsChecked = new WeakMap();

/** A CallToolResult as this client may be sent it: before 2026-07-28,
 * structuredContent only as an object (the content blocks carry the rest). */
function servedResult(res, anyRoot) {
  if (anyRoot || res.structuredContent === undefined || isObject(res.structuredContent)) return res;
  const { structuredContent, ...rest } = res;
  const content = Array.isArray(rest.content) && rest.content.length ? rest.content
    : [{ type: 'text', text: JSON.stringify(structuredContent) }];
  return { ...rest, content };
}

/** onApproval's answer as a CallToolResult: a result is sent as it is; a
 * call that was not run here (denied, asked again, approved to run
 * elsewhere, no answer) is an error result that never reads as done. */
function approvalAnswer(p, answer) {
  if (isObject(answer) && Array.isArray(answer.content)) return answer;
  if (isObject(answer) && answer.status === 'pending_approval') return approvalRequired(answer);
  if (isObject(answer) && answer.status === 'denied') {
    return { content: [{ type: 'text', text: `A person denied the call to tool "${p.tool}". Do not retry the same call.` }], isError: true,
      _meta: { 'dev.toolgate/error': { code: 'denied' } } };
  }
  const text = `The call to tool "${p.tool}" was not run here (${isObject(answer) && answer.status === 'approved' ? 'it was approved, but this server does not hold the call' : 'no answer was given'}). ` +
    'Tell the user what you wanted to do and why; do not retry the same call.';
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'dev.toolgate/error': { code: 'pending_approval', approvalId: p.approvalId } } };
}

/** The error result an MCP client gets for a call waiting on a person's
 * approval that this server cannot collect: the model is told not to retry. */
export function approvalRequired(p) {
  const text = `The call to tool "${p.tool}" needs a person's approval before it can run (${p.reason}). ` +
    'This gateway cannot collect approvals over MCP, so the call was not made. ' +
    'Tell the user what you wanted to do and why; do not retry the same call.';
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'dev.toolgate/error': { code: 'pending_approval', approvalId: p.approvalId } } };
}
