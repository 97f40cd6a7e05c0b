// mcp.js - the MCP adapter entry ('toolgate/mcp'): import an upstream
// server's tools through an official SDK Client, and serve a runtime's
// tools through an official SDK Server. The SDK is the caller's (a peer of
// this entry); the core entry never loads it.
import { ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ToolgateError } from './errors.js';

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
      res = await client.listTools(cursor ? { cursor } : {}, { timeout: left });
    } catch (e) {
      if (Date.now() >= deadline) throw tooSlow(timeoutMs);
      throw e;
    }
    const listed = Array.isArray(res.tools) ? res.tools : [];
    // counted before they are gathered: a page of 150,000 tools is over the
    // bound, not a stack overflow in push(...page)
    if (tools.length + listed.length > maxTools) throw boundError(`more than ${maxTools} tools`);
    bytes += utf8Length(JSON.stringify(listed));
    if (bytes > maxBytes) throw boundError(`tool list larger than ${maxBytes} bytes`);
    for (const t of listed) tools.push(t);
    if (!res.nextCursor) break;
    cursor = res.nextCursor;
  }
  return rt.importTools(source, tools, {
    options,
    call: (name, args, info) => client.callTool({ name, arguments: args }, undefined, info?.signal ? { signal: info.signal } : undefined),
  });
}

function boundError(what) {
  return new ToolgateError('limit_reached', `the server lists ${what}; nothing was imported`);
}

function tooSlow(timeoutMs) {
  return new ToolgateError('timeout', `the server took more than ${timeoutMs} ms to list its tools; nothing was imported`);
}

/** UTF-8 bytes of a JS string (the bound is on bytes, as the module counts). */
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // 2 bytes for U+0080-07FF, 3 for the rest of the BMP, 4 for a surrogate pair (2 units)
    if (c >= 0x80) n += c < 0x800 ? 1 : c >= 0xDC00 && c < 0xE000 ? 0 : 2;
  }
  return n;
}

/**
 * Serves rt's tools from an official SDK (low-level) Server: tools/list from
 * the runtime's MCP rendering (paged), tools/call through the gate with the
 * client's cancellation (extra.signal). A call the policy answers with "ask"
 * is never reported as done: onApproval(pending, extra) may collect the
 * answer (and return rt.resolveApproval's result); without it the client
 * gets an error result saying a person's approval is needed.
 * @param {import('./runtime.js').ToolRuntime} rt
 * @param {import('@modelcontextprotocol/sdk/server/index.js').Server} server
 * @param {{ pageSize?: number, context?: (extra: object) => object, onApproval?: (pending: object, extra: object) => object|Promise<object> }} [opts]
 */
export function serveTools(rt, server, { pageSize = 100, context, onApproval } = {}) {
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    let page;
    try {
      page = rt.listTools({ format: 'mcp', cursor: req.params?.cursor, limit: pageSize });
    } catch (e) { // a cursor this server never gave, or one of an earlier list: invalid params (MCP)
      if (e instanceof ToolgateError && e.code === 'invalid_request') throw new McpError(ErrorCode.InvalidParams, e.message);
      throw e;
    }
    const { tools, nextCursor } = page;
    return nextCursor ? { tools, nextCursor } : { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const res = await rt.callTool(req.params.name, req.params.arguments ?? {},
      context ? { context: context(extra), signal: extra?.signal } : { signal: extra?.signal });
    if (res.status !== 'pending_approval') return res;
    return onApproval ? onApproval(res, extra) : approvalRequired(res);
  });
}

/** The error result an MCP client gets for a call waiting on a person's
 * approval that this server cannot collect: the model is told not to retry. */
export function approvalRequired(p) {
  const text = `The call to tool "${p.tool}" needs a person's approval before it can run (${p.reason}). ` +
    'This gateway cannot collect approvals over MCP, so the call was not made. ' +
    'Tell the user what you wanted to do and why; do not retry the same call.';
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'dev.toolgate/error': { code: 'pending_approval', approvalId: p.approvalId } } };
}
