// mcp.js - the MCP adapter entry ('toolgate/mcp'): import an upstream
// server's tools through an official SDK Client, and serve a runtime's
// tools through an official SDK Server. The SDK is the caller's (a peer of
// this entry); the core entry never loads it.
import { ListToolsRequestSchema, CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * Lists every page of a server's tools (following nextCursor) within bounds,
 * then imports them under `source`: each tool is registered or rejected on
 * its own; calls are forwarded to the client.
 * @param {import('./runtime.js').ToolRuntime} rt
 * @param {string} source
 * @param {{ listTools(params?: object): Promise<{tools: object[], nextCursor?: string}>, callTool(params: object): Promise<object> }} client
 * @param {{ maxPages?: number, maxTools?: number, maxBytes?: number, options?: object|Function }} [opts]
 */
export async function importFromClient(rt, source, client, { maxPages = 50, maxTools = 1000, maxBytes = 8 << 20, options } = {}) {
  const tools = [];
  let cursor;
  let bytes = 0;
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw boundError(`more than ${maxPages} pages of tools`);
    const res = await client.listTools(cursor ? { cursor } : {});
    bytes += JSON.stringify(res.tools ?? []).length;
    if (bytes > maxBytes) throw boundError(`tool list larger than ${maxBytes} bytes`);
    tools.push(...(res.tools ?? []));
    if (tools.length > maxTools) throw boundError(`more than ${maxTools} tools`);
    if (!res.nextCursor) break;
    cursor = res.nextCursor;
  }
  return rt.importTools(source, tools, {
    options,
    call: (name, args, info) => client.callTool({ name, arguments: args }, undefined, info?.signal ? { signal: info.signal } : undefined),
  });
}

function boundError(what) {
  const e = new Error(`the server lists ${what}; nothing was imported`);
  e.code = 'limit_reached';
  return e;
}

/**
 * Serves rt's tools from an official SDK (low-level) Server: tools/list from
 * the runtime's MCP rendering (paged), tools/call through the gate.
 * @param {import('./runtime.js').ToolRuntime} rt
 * @param {import('@modelcontextprotocol/sdk/server/index.js').Server} server
 * @param {{ pageSize?: number, context?: (extra: object) => object }} [opts]
 */
export function serveTools(rt, server, { pageSize = 100, context } = {}) {
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const { tools, nextCursor } = rt.listTools({ format: 'mcp', cursor: req.params?.cursor, limit: pageSize });
    return nextCursor ? { tools, nextCursor } : { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) =>
    rt.callTool(req.params.name, req.params.arguments ?? {}, context ? { context: context(extra) } : {}));
}
