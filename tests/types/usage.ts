// usage.ts - type-checked (never run) by tests/js/types.test.js: the public
// surface as a host writes it must compile against js/types.
import { createToolRuntime, compileWasm, isPendingApproval, ToolgateError, ToolRuntime, type CallToolResult, type ErrorCode,
  type PendingApproval } from 'toolgate';
import { importFromClient, serveTools } from 'toolgate/mcp';

export async function usage(client: Parameters<typeof importFromClient>[2]): Promise<string> {
  const rt = await createToolRuntime({ limits: { argsBytes: 1 << 20, timeoutMs: 5000 }, capabilities: ['db'], approvalKey: 'k'.repeat(32) });
  rt.setPolicy({ version: 1, defaults: ['*'], rules: [{ id: 'all', effect: 'allow', tools: ['*'] }] });
  const reg = rt.registerTool({ name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } },
    async (args: { a: number }, info) => { info.signal.throwIfAborted(); return args.a + 1 + info.deadline * 0 + Math.min(info.remainingMs, 0); },
    { readOnly: true, timeoutMs: 1000, context: { tenant_id: 'tenant' } });
  const imported = await importFromClient(rt, 'fs', client, { maxPages: 10 });
  const batch = rt.registerBatch('plugin', [{ descriptor: { name: 'p', inputSchema: { type: 'object' } }, handler: () => 'x' }]);
  const snap = rt.snapshot();
  const list = rt.listTools({ format: 'openai-strict', snapshot: snap, principal: 'agent', mode: 'plan' });
  // deep-frozen and shared: read-only in the types too; a copy may be changed
  // @ts-expect-error the list's tools are read-only
  list.tools[0].cache_control = { type: 'ephemeral' };
  // @ts-expect-error so is the list
  list.tools.push({});
  const tools = structuredClone(list.tools) as unknown as Record<string, unknown>[];
  tools[tools.length - 1].cache_control = { type: 'ephemeral' };
  // serveTools: who each request runs as; onApproval returns resolveApproval's answer as it is
  serveTools(rt, {}, {
    callContext: (extra) => ({ principal: extra.authInfo?.clientId ?? 'anonymous', session: extra.sessionId, mode: 'default' }),
    onApproval: async (pending) => rt.resolveApproval(pending.approvalId, pending.reason.length > 0 ? 'approve' : 'deny'),
  });
  const decision = rt.authorize({ tool: 'add', args: { a: 1 }, principal: 'agent', explain: true });
  const stop = rt.onAudit((e) => { if (e.phase === 'outcome') console.log(e.tool, e.outcome, e.durationMs); });
  const r: CallToolResult | PendingApproval = await rt.callTool('add', '{"a":1}', { principal: 'agent', snapshot: snap, signal: AbortSignal.timeout(100) });
  if (isPendingApproval(r)) await rt.resolveApproval(r.approvalId, 'approve');
  const v = rt.compileSchema({ type: 'integer' }, { dialect: 'draft-07', formats: 'assert' });
  const res = v.validate('5', { maxErrors: 1 });
  const bad = res.valid ? '' : res.errors.map((e) => `${e.instanceLocation}: ${e.message}`).join('\n');
  try { rt.registerTool({ name: 'add', inputSchema: { type: 'object' } }, () => 0); } catch (e) {
    if (e instanceof ToolgateError && e.code === 'duplicate_tool') console.log(e.diagnostics);
  }
  // a result's content blocks may carry MCP annotations (checked when a handler returns them)
  const noted: CallToolResult = { content: [{ type: 'text', text: 'x', annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-12T15:00:58Z' } }] };
  // @ts-expect-error an audience holds roles only
  const misnoted: CallToolResult = { content: [{ type: 'text', text: 'x', annotations: { audience: ['system'] } }] };
  console.log(noted, misnoted);
  stop();
  snap.release();
  rt.dispose();
  return `${reg.name} ${imported.registered.length} ${batch.applied} ${list.tools.length} ${decision.decision} ${bad}`;
}

/** An exhaustive switch over every code the package emits (a batch entry's misspelled option, an MCP approval). */
export function describe(code: ErrorCode): string {
  switch (code) {
    case 'invalid_options': return 'a misspelled tool option';
    case 'pending_approval': return 'waits for a person';
    default: return code;
  }
}

/** One compiled module, a runtime per tenant, each built with the options createToolRuntime takes. */
export async function perTenant(policy: object): Promise<string> {
  const mod = await compileWasm();
  const fromPath = await compileWasm('./dist/toolgate.wasm');
  const rt = new ToolRuntime(mod, { policy, approvalKey: new DataView(new ArrayBuffer(32)), limits: { argsBytes: 0 } });
  const other = new ToolRuntime(fromPath);
  other.setApprovalKey(new Uint16Array(16));
  const v = rt.compileSchema(new TextEncoder().encode('{"type":"string"}'), { resources: { 'urn:x': new Uint8Array(2) } });
  const res = v.validate('"x"');
  res.errors.push({ instanceLocation: '', keywordLocation: '', message: 'a note of the host' }); // (fresh: the caller's)
  const name = rt.modelName('github', 'delete_repo', 'gh_{tool}') + rt.modelNameKey('github', 'delete_repo', 'gh_{tool}');
  rt.dispose();
  other.dispose();
  return `${name} ${res.errors.length}`;
}
