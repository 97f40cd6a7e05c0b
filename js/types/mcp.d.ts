import type { ToolRuntime, ToolDescriptor, CallToolResult, PendingApproval } from './index.js';

export interface ImportResult {
  applied: boolean;
  epoch: number;
  registered: { name: string; tool: string; digest: string; sanitized?: string[] }[];
  unchanged: string[];
  updated: string[];
  changed: { name: string; fields: string[]; digest: string }[];
  /** changes listed again as they are held: still waiting for acceptChange */
  held: string[];
  removed: string[];
  rejected: { tool: string; name?: string; code: string; message: string }[];
}

/** Lists every page of a server's tools (bounded) and imports them under source. */
export declare function importFromClient(
  rt: ToolRuntime,
  source: string,
  client: { listTools(params?: object, options?: { timeout?: number }): Promise<{ tools: ToolDescriptor[]; nextCursor?: string }>; callTool(params: object, ...rest: unknown[]): Promise<unknown> },
  /** timeoutMs: the whole listing, every page (default 60,000); past it, ToolgateError timeout. */
  opts?: { maxPages?: number; maxTools?: number; maxBytes?: number; timeoutMs?: number; options?: object | ((tool: ToolDescriptor) => object) },
): Promise<ImportResult>;

/** Serves rt's tools from an official SDK low-level Server. */
/** tools/list and tools/call (with the client's cancellation) through the gate. A call the policy
 * answers with "ask" goes to onApproval when given, else the client gets an error result (never a success). */
export declare function serveTools(rt: ToolRuntime, server: unknown, opts?: {
  pageSize?: number;
  context?: (extra: unknown) => Record<string, unknown>;
  onApproval?: (pending: PendingApproval, extra: unknown) => CallToolResult | Promise<CallToolResult>;
}): void;
/** The error result for a call that waits on an approval this server cannot collect. */
export declare function approvalRequired(pending: PendingApproval): CallToolResult;
