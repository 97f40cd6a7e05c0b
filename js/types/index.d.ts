// Type declarations for the toolgate package (all entries share them).

/** An MCP Tool descriptor (revisions 2025-11-25 and 2026-07-28). */
export interface ToolDescriptor {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; [keyword: string]: unknown };
  outputSchema?: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  icons?: unknown[];
  execution?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [field: string]: unknown;
}

export type ContentBlock =
  | { type: 'text'; text: string; [k: string]: unknown }
  | { type: 'image' | 'audio'; data: string; mimeType: string; [k: string]: unknown }
  | { type: 'resource_link'; uri: string; name: string; [k: string]: unknown }
  | { type: 'resource'; resource: Record<string, unknown>; [k: string]: unknown };

/** An MCP CallToolResult. Gate errors carry _meta['dev.toolgate/error'].code. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: { 'dev.toolgate/error'?: { code: ErrorCode }; [k: string]: unknown };
  [field: string]: unknown;
}

export type ErrorCode =
  | 'out_of_memory' | 'invalid_json' | 'too_large' | 'invalid_descriptor' | 'duplicate_tool'
  | 'unknown_tool' | 'invalid_arguments' | 'unknown_call' | 'host_refused' | 'limit_reached'
  | 'invalid_schema' | 'invalid_result';

export interface HandlerInfo {
  /** The module's id for this call. */
  callId: number;
  /** The ctx given to callTool. */
  context: Record<string, unknown>;
}

/** A tool handler: receives the validated arguments; may be async. A string
 * or any JSON value is normalized into a CallToolResult; throwing yields an
 * error result. */
export type ToolHandler = (args: any, info: HandlerInfo) => unknown | Promise<unknown>;

/** Every limit of a runtime; omitted fields take the defaults shown. */
export interface Limits {
  /** 64 MiB: the runtime's allocation budget inside the module. */
  memoryBytes?: number;
  /** 256: arrays/objects open at once in any input. */
  jsonDepth?: number;
  /** 1 MiB: one call's arguments. */
  argsBytes?: number;
  /** 1 MiB: one descriptor. */
  descriptorBytes?: number;
  /** 4 MiB: one handler result. */
  resultBytes?: number;
  /** 10,000 registered tools. */
  tools?: number;
  /** 1,024 calls in flight. */
  pendingCalls?: number;
}

export type WasmSource = WebAssembly.Module | ArrayBuffer | ArrayBufferView | Response | URL | string;

export interface RuntimeOptions {
  /** Where the module is. Required by the core and worker entries; the node
   * and browser entries default to the package's dist/toolgate.wasm. A
   * string is a file path in Node, a URL elsewhere. */
  wasm?: WasmSource;
  limits?: Limits;
  /** Put handler stack traces into error results (default false). */
  exposeStack?: boolean;
}

export type JSONCheck = { ok: true } | { ok: false; code: ErrorCode; message: string; offset?: number };

export declare class ToolRuntime {
  /** Registers a tool; throws ToolgateError (invalid_descriptor,
   * duplicate_tool, invalid_json, too_large, limit_reached, out_of_memory). */
  registerTool(descriptor: ToolDescriptor | string, handler: ToolHandler): { name: string };
  /** Calls a tool through the gate. Never rejects for the call's own
   * failures: they come back as CallToolResult with isError. */
  callTool(name: string, args?: string | Uint8Array | Record<string, unknown>, ctx?: Record<string, unknown>): Promise<CallToolResult>;
  /** Checks JSON with the module's strict reader. */
  checkJSON(text: string | Uint8Array, options?: { allowDuplicateKeys?: boolean }): JSONCheck;
  /** Bytes the runtime has allocated inside the module. */
  memoryUsed(): number;
  /** Size of the module's linear memory. */
  memorySize(): number;
  dispose(): void;
}

export declare class ToolgateError extends Error {
  readonly code: ErrorCode;
  readonly diagnostics: { offset?: number; [k: string]: unknown };
  constructor(code: ErrorCode, message: string, diagnostics?: object);
}

export declare const STATUS: Readonly<Record<number, string>>;
export declare function compileWasm(source: WasmSource): Promise<WebAssembly.Module>;
export declare function createToolRuntime(options?: RuntimeOptions): Promise<ToolRuntime>;
/** Node and browser entries: the default location of the module. */
export declare const defaultWasmURL: URL;
