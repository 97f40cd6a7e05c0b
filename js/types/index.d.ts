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

/** JSON text as UTF-8 bytes: any buffer or view of one (read as text, never written as a JS value). */
export type JSONBytes = ArrayBuffer | SharedArrayBuffer | ArrayBufferView;

/** A content block's MCP annotations. A handler's result whose block carries malformed ones (audience other than
 * these roles, priority outside 0..1, lastModified not an ISO 8601 date-time such as '2025-01-12T15:00:58Z') is
 * refused as invalid_result; other members are kept. */
export interface ContentAnnotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
  [k: string]: unknown;
}

export type ContentBlock =
  | { type: 'text'; text: string; annotations?: ContentAnnotations; [k: string]: unknown }
  | { type: 'image' | 'audio'; data: string; mimeType: string; annotations?: ContentAnnotations; [k: string]: unknown }
  | { type: 'resource_link'; uri: string; name: string; annotations?: ContentAnnotations; [k: string]: unknown }
  | { type: 'resource'; resource: Record<string, unknown>; annotations?: ContentAnnotations; [k: string]: unknown };

/** An MCP CallToolResult. Gate errors carry _meta['dev.toolgate/error'].code. */
export interface CallToolResult {
  content: ContentBlock[];
  /** Any JSON value when the tool declares an outputSchema (any root type since MCP 2026-07-28); else an object. */
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: { 'dev.toolgate/error'?: { code: ErrorCode }; [k: string]: unknown };
  [field: string]: unknown;
}

export type ErrorCode =
  | 'out_of_memory' | 'invalid_json' | 'too_large' | 'invalid_descriptor' | 'duplicate_tool'
  | 'unknown_tool' | 'invalid_arguments' | 'unknown_call' | 'host_refused' | 'limit_reached'
  | 'invalid_schema' | 'invalid_result' | 'name_collision' | 'missing_capability' | 'invalid_request'
  | 'missing_context' | 'unknown_snapshot' | 'denied' | 'approval_refused' | 'rate_limited'
  | 'invalid_policy' | 'digest_mismatch' | 'timeout' | 'cancelled' | 'module_trap' | 'disposed' | 'reentrant' | 'invalid_module'
  /** A batch or import entry with a misspelled tool option (BatchResult.rejected). */
  | 'invalid_options'
  /** toolgate/mcp's approvalRequired(): a call that waits for a person, told to an MCP client. */
  | 'pending_approval';

export interface HandlerInfo {
  /** The module's id for this call. */
  callId: number;
  /** The model-visible name of the tool called. */
  tool: string;
  /** The trusted context values given to callTool (ctx.context). */
  context: Record<string, unknown>;
  /** Aborted when the call's deadline passes or the caller cancels. */
  readonly signal: AbortSignal;
  /** When the call's time is up: ms on the runtime's clock (RuntimeOptions.clock, default Date.now). */
  readonly deadline: number;
  /** The time left until the deadline, in ms (0 once passed), read when asked: a handler that
   * forwards the call gives it to its own request as the timeout (importFromClient does). */
  readonly remainingMs: number;
  /** Tells the caller how far the call has come (MCP's notifications/progress fields), when it
   * asked (CallContext.onProgress); ignored once the call has ended. Each must exceed the last
   * passed on; 20 at once, then 10 a second, are passed on, the rest dropped. */
  progress(p: Progress): void;
}

/** How far a call has come, as MCP's notifications/progress carries it. */
export interface Progress { progress: number; total?: number; message?: string }

/** Host-only facts about a tool; no descriptor field can set them. */
export interface ToolOptions {
  needsApproval?: boolean;
  privileged?: boolean;
  /** Host-marked read-only (plan mode); an upstream readOnlyHint is only a hint. */
  readOnly?: boolean;
  /** Auto-allowed in acceptEdits mode where the policy would ask. */
  edit?: boolean;
  /** Deadline of a call (default: limits.timeoutMs, 60,000). */
  timeoutMs?: number;
  /** Calls of this tool in flight at once. A cancelled call keeps its place
   * until its handler stops or its deadline passes; a timed-out one gives it
   * back when it is answered (README, Limits). */
  concurrency?: number;
  /** Only visible and callable in this tenant's context: 1-128 bytes without control characters, as a
   * context's tenant (anything else is refused: invalid_request / invalid_options). */
  tenant?: string;
  /** Capabilities the runtime must have been given, else the tool is not registered. */
  requires?: string[];
  /** Parameters that come from the trusted context: parameter name -> context key. */
  context?: Record<string, string>;
  /** What happens when the model supplies a context parameter anyway (default 'reject'). */
  contextParams?: 'reject' | 'drop';
  /** Audit events carry the arguments (context parameters redacted). */
  auditArgs?: boolean;
}

export interface Registration { name: string; tool: string; digest: string; sanitized?: string[] }

export interface BatchResult {
  applied: boolean;
  epoch: number;
  registered: Registration[];
  /** Listed again as held: definition, handler and options the same. */
  unchanged: string[];
  /** The same definition with other options (or handler): the new options take effect at once. */
  updated: string[];
  /** A new definition under a held name (a possible rug pull): held out of new snapshots until acceptChange. */
  /** fields: title, description, inputSchema, outputSchema, annotations, name, icons, execution, _meta, other (any other member),
   * against the definition accepted last; never empty. */
  changed: { name: string; fields: string[]; digest: string }[];
  /** changes listed again as they are held: still waiting for acceptChange, with this listing's options and handler */
  held: string[];
  removed: string[];
  rejected: { tool: string; name?: string; code: ErrorCode; message: string }[];
}

export interface Snapshot { id: number; epoch: number; tools: number; release(): void }

export type ExportFormat = 'mcp' | 'anthropic' | 'openai' | 'openai-strict' | 'gemini' | 'bedrock';

/** Who is asking, for policy decisions and filtered lists. A call's context, an authorize() request and a
 * listTools() request take only the keys their types name: any other one ("schedular", "Mode") is refused
 * (invalid_request), never read as "not given". */
export interface Principal {
  principal?: string;
  mode?: 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan';
  /** No human present: blocked tools are removed and every ask becomes deny. */
  scheduler?: boolean;
  source?: string;
  tenant?: string;
  session?: string;
}

export interface CallContext extends Principal {
  /** Values for context parameters (tenant id, user id, ...). */
  context?: Record<string, unknown>;
  snapshot?: Snapshot | number;
  /** 'openai-strict' when the model saw that rendering: its nulls for optional properties are dropped. */
  format?: ExportFormat;
  signal?: AbortSignal;
  /** Called with each progress the handler reports (HandlerInfo.progress) while the call runs. */
  onProgress?: (p: Progress) => void;
  approval?: string;
  approvalToken?: string;
}

export interface PendingApproval {
  status: 'pending_approval';
  approvalId: string;
  tool: string;
  args: unknown;
  reason: string;
  rule: string;
  expiresAt: number;
}

/** resolveApproval's answer when this runtime does not hold the pending call (another
 * instance made it): the answer is recorded, the call is not run here. */
export interface ApprovalOutcome { status: 'approved' | 'denied'; approvalId: string }

/** A JSON value as listTools gives it: deep-frozen (and shared between calls), so read-only at
 * every level. Copy it (structuredClone) to change it, e.g. to add Anthropic's cache_control. */
export type FrozenJSON = null | boolean | number | string | readonly FrozenJSON[] | { readonly [key: string]: FrozenJSON };

/** One tool of a listTools() result, in the format asked for (deep-frozen). */
export type ListedTool = { readonly [field: string]: FrozenJSON };

/** resolveApproval(id, 'approve_token'): redeemable once, as { approvalToken } in a call's context, on any instance holding the key. */
export interface ApprovalToken { status: 'approved'; approvalId: string; token: string; expiresAt: number }

export interface Decision { decision: 'allow' | 'ask' | 'deny'; rule: string; reason: string; trace?: unknown }

export interface AuditEvent {
  phase: 'decision' | 'outcome';
  callId?: number;
  tool: string;
  source?: string;
  principal?: string;
  decision?: 'allow' | 'ask' | 'deny';
  rule?: string;
  validation?: 'ok' | 'invalid' | 'skipped';
  outcome: string;
  durationMs?: number;
  args?: unknown;
}

export interface ValidationError { instanceLocation: string; keywordLocation: string; message: string }
/** A fresh object each call (valid or not): the caller's to annotate or change. */
export interface ValidationResult {
  valid: boolean;
  errors: ValidationError[];
  /** The instance was not judged (then valid is false): not strict JSON, or bytes whose buffer was
   * detached (invalid_json), or over a limit (too_large: size, nesting, evaluation steps). */
  jsonError?: { code: 'invalid_json' | 'too_large'; message: string; offset: number };
}

export declare class Validator {
  validate(instance: string | JSONBytes | unknown, options?: { maxErrors?: number; output?: 'basic' | 'flag' }): ValidationResult;
  dispose(): void;
}

/** A tool handler: receives the validated arguments; may be async. A string
 * or any JSON value is normalized into a CallToolResult; throwing yields an
 * error result. */
export type ToolHandler = (args: any, info: HandlerInfo) => unknown | Promise<unknown>;

/** Every limit of a runtime; omitted fields (or 0) take the defaults shown, a number above 2^32-1
 * reads as 2^32-1 and a fraction is cut to a whole number. A limit that is not a number (TypeError) or
 * is below 0 or NaN (RangeError) is refused when the runtime is created. */
export interface Limits {
  /** 192 MiB: the runtime's allocation budget inside the module (past it, out_of_memory). */
  memoryBytes?: number;
  /** 256: arrays/objects open at once in any input. */
  jsonDepth?: number;
  /** 1 MiB: one call's arguments. */
  argsBytes?: number;
  /** 1 MiB: one descriptor. */
  descriptorBytes?: number;
  /** 4 MiB: one result, as the handler wrote it and as the caller gets it (a structured result also written as text counts twice). */
  resultBytes?: number;
  /** 10,000 registered tools. */
  tools?: number;
  /** 1,024 calls in flight. */
  pendingCalls?: number;
  /** 60,000: a call's deadline unless its tool sets timeoutMs. */
  timeoutMs?: number;
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
  /** The host clock in ms (default Date.now). One that throws or returns what is not a number (a
   * BigInt) reads as NaN: the policy denies on a clock it cannot read, and a call's deadline has passed. */
  clock?: () => number;
  /** Capabilities tools may require. */
  capabilities?: string[];
  descriptionBytes?: number;
  schemaBytes?: number;
  /** The tools one source holds (default 1,000), its held changes included: a plugin's batches count with what it holds already; a re-listing counts what it lists. */
  toolsPerSource?: number;
  /** Formats in tool schemas: annotations (default) or assertions. */
  formats?: 'annotate' | 'assert';
  /** A policy document (docs/policy.md). */
  policy?: object | string;
  /** HMAC key for approval tokens (16-1024 bytes), as setApprovalKey takes it. */
  approvalKey?: ApprovalKey;
}

/** An approval token key: a string (its UTF-8 bytes) or bytes (any buffer or view, read as its
 * bytes, copied); anything else is refused (invalid_request), as is a key of fewer than 16 or more
 * than 1024 bytes. */
export type ApprovalKey = string | ArrayBuffer | SharedArrayBuffer | ArrayBufferView;

export type JSONCheck = { ok: true } | { ok: false; code: ErrorCode; message: string; offset?: number };

export declare class ToolRuntime {
  /** A runtime of a compiled module (compileWasm: compile once, one runtime per tenant). Applies every
   * option createToolRuntime does (a policy, key or configuration is applied, or the constructor
   * throws as setPolicy / setApprovalKey / configure would), so each runtime is the same either way;
   * options.wasm, if given, must be that module. */
  constructor(module: WebAssembly.Module, options?: RuntimeOptions);
  /** Runtime-wide options; only while the registry holds no tool (none live, held or remembered: before registering, or once every source is removed). */
  configure(config: { capabilities?: string[]; descriptionBytes?: number; schemaBytes?: number; toolsPerSource?: number; formats?: 'annotate' | 'assert' }): void;
  /** Registers a host tool; throws ToolgateError when refused (the registry is then unchanged). */
  registerTool(descriptor: ToolDescriptor | string, handler: ToolHandler, options?: ToolOptions): Registration;
  /** A batch from one source: atomic (plugins, default) or per tool; replace: the source's whole list. */
  registerBatch(source: string, entries: { descriptor: ToolDescriptor; handler: ToolHandler; options?: ToolOptions }[],
    opts?: { atomic?: boolean; replace?: boolean; nameTemplate?: string }): BatchResult;
  /** An upstream server's tools/list (all pages); call forwards a call upstream. Each tool is registered or
   * rejected on its own: one the strict JSON reader refuses (a lone surrogate, nesting past jsonDepth) too. */
  importTools(source: string, tools: ToolDescriptor[], opts: { call: (toolName: string, args: any, info: HandlerInfo) => unknown;
    options?: ToolOptions | ((tool: ToolDescriptor) => ToolOptions); nameTemplate?: string }): BatchResult;
  /** The model-visible name a tool of source gets: what host settings per tool should be matched against.
   * The name the registry gave it when it holds it; else the name a listing would give it: under
   * nameTemplate when given, else under the template the source was last registered or imported with,
   * else the default ("mcp__{source}__{tool}", the bare name for source ''). */
  modelName(source: string, tool: string, nameTemplate?: string): string;
  /** Its collision key: names with the same key (case, '-' for '_', look-alike letters and digits) are one tool
   * to the registry; match per-tool host settings by it. */
  modelNameKey(source: string, tool: string, nameTemplate?: string): string;
  /** Lets a held change live. digest: the one reviewed (from BatchResult.changed); a change held since is refused (digest_mismatch). */
  acceptChange(name: string, digest?: string): void;
  removeSource(source: string): number;
  snapshot(): Snapshot;
  /** The result is deep-frozen and shared: the same request returns the same object until a tool or the policy changes (or newer listings push it out of the cache: 64 requests, 8 MiB of their text, the newest always kept). */
  listTools(opts?: { format?: ExportFormat; snapshot?: Snapshot | number; cursor?: string; limit?: number } & Principal):
    { readonly tools: readonly ListedTool[]; readonly nextCursor?: string;
      readonly report: readonly { readonly tool: string; readonly path: string; readonly issue?: string; readonly nullable?: boolean }[]; readonly epoch: number };
  setPolicy(policy: object | string): void;
  /** Throws ToolgateError('invalid_request') for a key that is not a string or bytes, or not 16-1024 bytes. */
  setApprovalKey(key: ApprovalKey): void;
  /** args are judged as a call's would be: with `context`, each context parameter holds the context's value. */
  authorize(request: { tool: string; args?: unknown; context?: Record<string, unknown>; explain?: boolean; snapshot?: Snapshot | number } & Principal): Decision;
  resolveApproval(approvalId: string, answer: 'approve_token'): Promise<ApprovalToken | CallToolResult>;
  /** run: the approved call's own AbortSignal and progress listener (the stored call context has none). */
  resolveApproval(approvalId: string, answer: 'approve' | 'approve_session' | 'deny', run?: { signal?: AbortSignal; onProgress?: (p: { progress: number; total?: number; message?: string }) => void }): Promise<CallToolResult | ApprovalOutcome>;
  /** Ends a session: its budgets, session rules and approval ids not yet used are forgotten, and the approval tokens this runtime issued for it are spent (another runtime sharing the key, which never saw the session end, takes them until they expire). */
  endSession(session: string): void;
  /** Subscribes to audit events (one per decision and outcome). Events are
   * delivered in order once the module call that made them has returned (in a
   * microtask, before the call's own promise settles), so a listener may call
   * back into the runtime. The calls dispose() ends while their handlers are
   * awaited get their outcome event ('disposed') in a microtask after it
   * returned (calling back then throws 'disposed'). Returns the unsubscribe
   * function (safe after dispose() too). */
  onAudit(listener: (event: AuditEvent) => void): () => void;
  /** Calls a tool through the gate. Never rejects for the call's own failures (argument bytes whose
   * buffer was detached are an invalid_json result). */
  callTool(name: string, args?: string | JSONBytes | Record<string, unknown>, ctx?: CallContext): Promise<CallToolResult | PendingApproval>;
  /** schema: a JS value, JSON text or its UTF-8 bytes (read as text, as validate reads them); each
   * resources value likewise a JS value, JSON text or UTF-8 bytes (a string is JSON text; a resource
   * that is not a schema, an object or a boolean, is refused: invalid_schema). */
  compileSchema(schema: object | string | boolean | JSONBytes, options?: { dialect?: '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04';
    formats?: 'annotate' | 'assert'; resources?: Record<string, unknown> }): Validator;
  /** Checks JSON with the module's strict reader. A text over limits.argsBytes is too_large (refused
   * before it is copied in); bytes whose buffer was detached are invalid_json. */
  checkJSON(text: string | JSONBytes, options?: { allowDuplicateKeys?: boolean }): JSONCheck;
  memoryUsed(): number;
  memorySize(): number;
  /** How many times a trapped instance was replaced. */
  readonly restarts: number;
  /** Tools replaced instances could not be given back (memory ran out while restoring): 0 unless the registry after a trap may miss tools (calls to them are refused, never run unreviewed). */
  readonly lostRestores: number;
  /** Frees the runtime; its linear memory (zeroed first) serves the next
   * runtime created. Later use throws ToolgateError('disposed'); callTool
   * answers with an isError result of that code. */
  dispose(): void;
}

export declare class ToolgateError extends Error {
  readonly code: ErrorCode;
  readonly diagnostics: { offset?: number; [k: string]: unknown };
  constructor(code: ErrorCode, message: string, diagnostics?: object);
}

export declare const STATUS: Readonly<Record<number, string>>;
/** Compiles the module once (to share it between runtimes: new ToolRuntime(module, options) or
 * createToolRuntime({ wasm: module })). The node entry also takes a file path or a file: URL (an
 * unreadable file is ToolgateError('invalid_module')); the node and browser entries take no source
 * for the package's own module (defaultWasmURL). */
export declare function compileWasm(source?: WasmSource): Promise<WebAssembly.Module>;
export declare function createToolRuntime(options?: RuntimeOptions): Promise<ToolRuntime>;
/** Node and browser entries: the default location of the module. */
export declare const defaultWasmURL: URL;

/** True when callTool returned a pending approval instead of a result. */
export declare function isPendingApproval(result: CallToolResult | PendingApproval): result is PendingApproval;
