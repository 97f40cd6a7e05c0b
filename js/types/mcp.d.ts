import type { ToolRuntime, ToolDescriptor } from './index.js';

export interface ImportResult {
  applied: boolean;
  epoch: number;
  registered: { name: string; tool: string; digest: string; sanitized?: string[] }[];
  unchanged: string[];
  updated: string[];
  changed: { name: string; fields: string[]; digest: string }[];
  removed: string[];
  rejected: { tool: string; name?: string; code: string; message: string }[];
}

/** Lists every page of a server's tools (bounded) and imports them under source. */
export declare function importFromClient(
  rt: ToolRuntime,
  source: string,
  client: { listTools(params?: object): Promise<{ tools: ToolDescriptor[]; nextCursor?: string }>; callTool(params: object, ...rest: unknown[]): Promise<unknown> },
  opts?: { maxPages?: number; maxTools?: number; maxBytes?: number; options?: object | ((tool: ToolDescriptor) => object) },
): Promise<ImportResult>;

/** Serves rt's tools from an official SDK low-level Server. */
export declare function serveTools(rt: ToolRuntime, server: unknown, opts?: { pageSize?: number; context?: (extra: unknown) => Record<string, unknown> }): void;
