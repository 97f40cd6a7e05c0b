import type { ToolRuntime, ToolDescriptor, CallToolResult, PendingApproval, ApprovalOutcome, ApprovalToken, Principal, Snapshot } from './index.js';

export interface ImportResult {
  applied: boolean;
  epoch: number;
  registered: { name: string; tool: string; digest: string; sanitized?: string[] }[];
  unchanged: string[];
  updated: string[];
  changed: { name: string; fields: string[]; digest: string }[];
  /** changes listed again as they are held: still waiting for acceptChange, with this listing's options */
  held: string[];
  removed: string[];
  rejected: { tool: string; name?: string; code: string; message: string }[];
}

/** Lists every page of a server's tools (bounded) and imports them under source. */
export declare function importFromClient(
  rt: ToolRuntime,
  source: string,
  /** An SDK Client (asked with request(); a stand-in without request() is asked with listTools/callTool). */
  client: { request?(req: { method: string; params?: object }, resultSchema: unknown, options?: object): Promise<unknown>; listTools(params?: object, options?: { timeout?: number }): Promise<{ tools: ToolDescriptor[]; nextCursor?: string }>; callTool(params: object, ...rest: unknown[]): Promise<unknown> },
  /** timeoutMs: the whole listing, every page (default 60,000); past it, ToolgateError timeout. */
  opts?: { maxPages?: number; maxTools?: number; maxBytes?: number; timeoutMs?: number; options?: object | ((tool: ToolDescriptor) => object) },
): Promise<ImportResult>;

/** What a request handler of the SDK's Server is given (the members serveTools' hooks read). */
export interface RequestExtra {
  /** The transport's session (Streamable HTTP), if it has one. */
  sessionId?: string;
  /** Set by the SDK's auth middleware for an authenticated request. */
  authInfo?: { token: string; clientId: string; scopes: string[]; expiresAt?: number; extra?: Record<string, unknown>; [k: string]: unknown };
  /** The HTTP request's headers (HTTP transports). */
  requestInfo?: { headers: Record<string, string | string[] | undefined>; [k: string]: unknown };
  signal: AbortSignal;
  [k: string]: unknown;
}

/** Who a served request runs as: tools/list shows what it can call, tools/call is decided for it. */
export interface ServedCallContext extends Principal {
  snapshot?: Snapshot | number;
  /** Values for context parameters (the `context` option's, when given, win). */
  context?: Record<string, unknown>;
}

/** What onApproval may answer: the person's answer ('approve', 'approve_session', 'deny': serveTools resolves
 * it, and an approved call runs with the client's cancellation and progress), or resolveApproval's result (a
 * CallToolResult is sent as it is; a call not run here, or no answer, becomes an error result that never reads
 * as done). */
export type ApprovalAnswer = 'approve' | 'approve_session' | 'deny' | CallToolResult | PendingApproval | ApprovalOutcome | ApprovalToken | undefined | void;

/** Serves rt's tools from an official SDK low-level Server (call it before server.connect()): tools/list and
 * tools/call (with the client's cancellation) through the gate. What is served fits the protocol version the
 * client negotiated: before 2026-07-28 a tool whose outputSchema root is not type "object" is listed without
 * it, and a structuredContent that is not an object is left out of results (the content blocks carry it).
 * A call the policy answers with "ask" goes to onApproval when given, else the client gets an error result
 * (never a success). */
export declare function serveTools(rt: ToolRuntime, server: unknown, opts?: {
  pageSize?: number;
  /** The call's context values (for context parameters). */
  context?: (extra: RequestExtra) => Record<string, unknown>;
  /** Who each request runs as (principal, mode, scheduler, source, tenant, session, snapshot, context; any other
   * key fails the request, never ignored). The session defaults to extra.sessionId, so each MCP session has its
   * own budgets and session approvals. */
  callContext?: (extra: RequestExtra) => ServedCallContext | Promise<ServedCallContext>;
  onApproval?: (pending: PendingApproval, extra: RequestExtra) => ApprovalAnswer | Promise<ApprovalAnswer>;
}): void;
/** The error result for a call that waits on an approval this server cannot collect. */
export declare function approvalRequired(pending: PendingApproval): CallToolResult;
