// serve.test.js - toolgate/mcp against the real SDK: serveTools serves what
// the client's negotiated protocol version allows, runs each request as its
// MCP session (or the caller the host names), turns any onApproval answer
// into a CallToolResult; importFromClient gives a forwarded call the
// toolgate deadline (not the SDK's 60 s) and refuses task-only tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListToolsRequestSchema, CallToolRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { createToolRuntime } from 'toolgate';
import { importFromClient, serveTools } from 'toolgate/mcp';

const gateCode = (r) => r._meta?.['dev.toolgate/error']?.code;
const NEW = '2026-07-28';

/** A served SDK Server and an SDK Client on it (sessionId: what a Streamable HTTP transport sets). */
async function served(rt, opts, sessionId) {
  const server = new Server({ name: 'gw', version: '1' }, { capabilities: { tools: {} } });
  serveTools(rt, server, opts);
  const [a, b] = InMemoryTransport.createLinkedPair();
  if (sessionId) a.sessionId = sessionId;
  const client = new Client({ name: 'c', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}

/** The SDK (1.32) knows no revision past 2025-11-25: a client that asks for
 * 2026-07-28 is answered with it only while the SDK lists it as supported. */
async function withNewRevision(fn) {
  SUPPORTED_PROTOCOL_VERSIONS.unshift(NEW);
  try { return await fn(); } finally { SUPPORTED_PROTOCOL_VERSIONS.splice(SUPPORTED_PROTOCOL_VERSIONS.indexOf(NEW), 1); }
}

/** JSON-RPC by hand over InMemoryTransport to a served Server: a client of
 * the 2026-07-28 revision (the SDK's Client would refuse what it may get). */
async function rawClient(rt, version) {
  const server = new Server({ name: 'gw', version: '1' }, { capabilities: { tools: {} } });
  serveTools(rt, server);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const waiting = new Map();
  b.onmessage = (m) => { waiting.get(m.id)?.(m); waiting.delete(m.id); };
  await server.connect(a);
  await b.start();
  let id = 0;
  const request = (method, params) => new Promise((resolve) => {
    waiting.set(++id, resolve);
    b.send({ jsonrpc: '2.0', id, method, params });
  });
  const init = await request('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  await b.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { agreed: init.result.protocolVersion, request, close: () => b.close() };
}

async function structuredRuntime() {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'get_weather', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { tempC: { type: 'number' } } } },
    () => ({ tempC: 21 }));
  rt.registerTool({ name: 'list_ids', inputSchema: { type: 'object' }, outputSchema: { type: 'array', items: { type: 'integer' } } }, () => [1, 2]);
  rt.registerTool({ name: 'maybe', inputSchema: { type: 'object' }, outputSchema: { anyOf: [{ type: 'object' }, { type: 'null' }] } },
    () => ({ content: [], structuredContent: null }));
  rt.registerTool({ name: 'bare', inputSchema: { type: 'object' }, outputSchema: { properties: { n: { type: 'integer' } } } },
    () => ({ content: [{ type: 'text', text: 'n is 3' }], structuredContent: { n: 3 } }));
  return rt;
}

test('serveTools: a 2025-11-25 client (the SDK\'s) gets every tool; what that revision cannot say is left out, exactly', async () => {
  const rt = await structuredRuntime();
  const client = await served(rt);
  assert.equal(client.getServerVersion()?.name, 'gw');
  const { tools } = await client.listTools(); // the SDK refused the whole list for one array-rooted outputSchema
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(byName).sort(), ['bare', 'get_weather', 'list_ids', 'maybe']);
  assert.deepEqual(byName.get_weather.outputSchema, { type: 'object', properties: { tempC: { type: 'number' } } }); // an object root is kept
  for (const name of ['list_ids', 'maybe', 'bare']) assert.equal(byName[name].outputSchema, undefined, name);
  // results: structuredContent only as an object; the content blocks carry the rest
  assert.deepEqual(await client.callTool({ name: 'get_weather', arguments: {} }),
    { content: [{ type: 'text', text: '{"tempC":21}' }], structuredContent: { tempC: 21 } });
  assert.deepEqual(await client.callTool({ name: 'list_ids', arguments: {} }), { content: [{ type: 'text', text: '[1,2]' }] });
  assert.deepEqual(await client.callTool({ name: 'maybe', arguments: {} }), { content: [{ type: 'text', text: 'null' }] });
  assert.deepEqual(await client.callTool({ name: 'bare', arguments: {} }), { content: [{ type: 'text', text: 'n is 3' }], structuredContent: { n: 3 } });
  // the runtime's own rendering is untouched (it is frozen and shared)
  assert.deepEqual(rt.listTools().tools.find((t) => t.name === 'list_ids').outputSchema, { type: 'array', items: { type: 'integer' } });
  await client.close();
  rt.dispose();
});

test('serveTools: a client that negotiated 2026-07-28 is still served what this SDK\'s Server can send', async () => {
  // The version is read from the initialize answer, or (stateless Streamable
  // HTTP) the MCP-Protocol-Version header. But the SDK 1.x Server checks each
  // tools/call result against its 2025-11-25 schema (structuredContent an
  // object) and answers -32602 for any other, so listing an array outputSchema
  // would list a tool whose every call fails: the adapted rendering is served.
  const rt = await structuredRuntime();
  const check = async (request) => {
    const { result } = await request('tools/list', {});
    assert.equal(result.tools.find((t) => t.name === 'list_ids').outputSchema, undefined);
    assert.deepEqual(result.tools.find((t) => t.name === 'get_weather').outputSchema.type, 'object');
    assert.deepEqual((await request('tools/call', { name: 'list_ids', arguments: {} })).result, { content: [{ type: 'text', text: '[1,2]' }] });
  };
  await withNewRevision(async () => {
    const c = await rawClient(rt, NEW);
    assert.equal(c.agreed, NEW);
    await check(c.request);
    await c.close();
    // stateless: a Server and transport per request, never initialized
    await check(async (method, params) => {
      const server = new Server({ name: 'gw', version: '1' }, { capabilities: { tools: {} } });
      serveTools(rt, server);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      const res = await transport.handleRequest(new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': NEW },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }));
      const body = await res.json();
      await server.close();
      return body;
    });
  });
  rt.dispose();
});

test('serveTools: a boolean property subschema reaches SDK clients in its exact object form', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'get_weather', inputSchema: { type: 'object' } }, () => 'sunny');
  rt.registerTool({ name: 'store', inputSchema: { type: 'object', properties: { key: { type: 'string' }, value: true, never: false }, required: ['key'] },
    outputSchema: { type: 'object', properties: { ok: true } } }, ({ value }) => ({ ok: value }));
  const client = await served(rt);
  const store = (await client.listTools()).tools.find((t) => t.name === 'store'); // a boolean there failed the whole list
  assert.deepEqual(store.inputSchema.properties, { key: { type: 'string' }, value: {}, never: { not: {} } });
  assert.deepEqual(store.outputSchema.properties, { ok: {} });
  assert.deepEqual((await client.callTool({ name: 'store', arguments: { key: 'k', value: [1] } })).structuredContent, { ok: [1] });
  assert.equal(gateCode(await client.callTool({ name: 'store', arguments: { key: 'k', never: 1 } })), 'invalid_arguments');
  await client.close();
  rt.dispose();
});

test('serveTools: each MCP session is its own session; callContext names the caller for tools/list and tools/call', async () => {
  const policy = {
    version: 1, defaults: ['*'],
    rules: [{ id: 'admin-only', effect: 'deny', tools: ['drop_table'], principals: ['guest'] }, { id: 'rest', effect: 'allow', tools: ['*'] }],
    session_budgets: [{ id: 'per-session', tools: ['search'], max_calls: 2 }],
  };
  const rt = await createToolRuntime({ policy });
  rt.registerTool({ name: 'search', inputSchema: { type: 'object' } }, () => 'results');
  rt.registerTool({ name: 'drop_table', inputSchema: { type: 'object' } }, () => 'dropped');
  const A = await served(rt, undefined, 'session-A');
  const B = await served(rt, undefined, 'session-B');
  for (let i = 0; i < 2; i++) assert.equal((await A.callTool({ name: 'search', arguments: {} })).isError, undefined);
  assert.equal(gateCode(await A.callTool({ name: 'search', arguments: {} })), 'rate_limited');
  assert.equal((await B.callTool({ name: 'search', arguments: {} })).isError, undefined, 'B spends its own budget, not A\'s');
  // the host names the caller (e.g. from extra.authInfo); its session wins over the transport's
  const seen = [];
  const guest = await served(rt, { callContext: (extra) => { seen.push(extra.sessionId); return { principal: 'guest', session: 'guest-1' }; } }, 'session-A');
  assert.deepEqual((await guest.listTools()).tools.map((t) => t.name), ['search']);
  assert.equal(gateCode(await guest.callTool({ name: 'drop_table', arguments: {} })), 'denied');
  assert.equal((await guest.callTool({ name: 'search', arguments: {} })).isError, undefined, 'session guest-1, not session-A');
  assert.ok(seen.length >= 3 && seen.every((s) => s === 'session-A'));
  assert.deepEqual((await A.listTools()).tools.map((t) => t.name).sort(), ['drop_table', 'search']);
  for (const c of [A, B, guest]) await c.close();
  rt.dispose();
});

test('serveTools: a callContext key it does not take fails the request, never dropped', async () => {
  // dropped, "schedular": true ran a tool the scheduler blocks
  const rt = await createToolRuntime({ policy: { version: 1, defaults: ['*'], scheduler: { blocked: ['send_email'] },
    rules: [{ id: 'rest', effect: 'allow', tools: ['*'] }] } });
  let sent = 0;
  rt.registerTool({ name: 'send_email', inputSchema: { type: 'object' } }, () => { sent++; return 'sent'; });
  for (const who of [{ principal: 'cron', schedular: true }, { principal: 'cron', signal: null }, { approval: 'ap_x' }]) {
    const client = await served(rt, { callContext: () => who });
    await assert.rejects(client.listTools(), new RegExp(`unknown key "${Object.keys(who).at(-1)}"`));
    await assert.rejects(client.callTool({ name: 'send_email', arguments: {} }), /unknown key/);
    await client.close();
  }
  assert.equal(sent, 0);
  const cron = await served(rt, { callContext: () => ({ principal: 'cron', scheduler: true, source: undefined }) });
  assert.equal(gateCode(await cron.callTool({ name: 'send_email', arguments: {} })), 'denied');
  assert.deepEqual((await cron.listTools()).tools, []);
  await cron.close();
  rt.dispose();
});

test('serveTools: whatever onApproval answers, the client gets a CallToolResult that never reads as done unless it ran', async () => {
  const rt = await createToolRuntime({ policy: { version: 1, defaults: ['*'], rules: [{ id: 'confirm', effect: 'ask', tools: ['deploy'] }, { id: 'rest', effect: 'allow', tools: ['*'] }] } });
  let deployed = 0;
  rt.registerTool({ name: 'deploy', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } }, () => { deployed++; return ['v2']; });
  const answers = [
    ['approve', (p) => rt.resolveApproval(p.approvalId, 'approve'), (r) => { assert.deepEqual(r, { content: [{ type: 'text', text: '["v2"]' }] }); }],
    ['deny', (p) => rt.resolveApproval(p.approvalId, 'deny'), (r) => { assert.equal(gateCode(r), 'denied'); }],
    ['no answer', () => undefined, (r) => { assert.equal(gateCode(r), 'pending_approval'); assert.match(r.content[0].text, /not run here/); }],
    ['approved elsewhere', (p) => ({ status: 'approved', approvalId: p.approvalId }), (r) => { assert.equal(gateCode(r), 'pending_approval'); }],
    ['denied elsewhere', (p) => ({ status: 'denied', approvalId: p.approvalId }), (r) => { assert.equal(gateCode(r), 'denied'); }],
  ];
  for (const [what, onApproval, check] of answers) {
    const client = await served(rt, { onApproval });
    const r = await client.callTool({ name: 'deploy', arguments: {} });
    if (what !== 'approve') assert.equal(r.isError, true, what);
    check(r);
    await client.close();
  }
  assert.equal(deployed, 1);
  rt.dispose();
});

test('serveTools: a handler\'s malformed embedded resource reaches the client as an error result, not a JSON-RPC error', async () => {
  const rt = await createToolRuntime();
  const results = { empty: { type: 'resource', resource: {} }, no_text: { type: 'resource', resource: { uri: 'file:///a.txt' } },
    ok: { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hi' } } };
  for (const [name, block] of Object.entries(results)) rt.registerTool({ name, inputSchema: { type: 'object' } }, () => ({ content: [block] }));
  const client = await served(rt);
  for (const name of ['empty', 'no_text']) assert.equal(gateCode(await client.callTool({ name, arguments: {} })), 'invalid_result');
  assert.deepEqual((await client.callTool({ name: 'ok', arguments: {} })).content, [results.ok]);
  await client.close();
  rt.dispose();
});

test('importFromClient: a forwarded call gets the toolgate deadline as its SDK timeout, not the SDK\'s 60 s', async () => {
  let clock = 1_000_000;
  const rt = await createToolRuntime({ clock: () => clock });
  rt.registerTool({ name: 'info', inputSchema: { type: 'object' } }, (_, info) => {
    const before = info.remainingMs;
    clock += 400;
    return JSON.stringify([info.deadline, before, info.remainingMs]);
  }, { timeoutMs: 1000 });
  assert.equal((await rt.callTool('info', {})).content[0].text, JSON.stringify([1_001_000, 1000, 600]));

  const up = new McpServer({ name: 'up', version: '1' });
  let aborted = 0;
  up.registerTool('long_job', { inputSchema: {} }, async (_a, extra) => {
    await new Promise((resolve) => { const t = setTimeout(resolve, 300); extra.signal.addEventListener('abort', () => { clearTimeout(t); aborted++; resolve(); }); });
    return { content: [{ type: 'text', text: 'job done' }] };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const sdk = new Client({ name: 'host', version: '1' });
  await Promise.all([up.server.connect(a), sdk.connect(b)]);
  // the real client, with each request's options seen on the way through
  const options = [];
  const client = { listTools: (...args) => sdk.listTools(...args), callTool: (params, schema, opts) => { options.push(opts); return sdk.callTool(params, schema, opts); } };
  const rt2 = await createToolRuntime();
  await importFromClient(rt2, 'jobs', client, { options: (t) => ({ timeoutMs: t.name === 'long_job' ? 120_000 : 60_000 }) });
  assert.equal((await rt2.callTool('mcp__jobs__long_job', {})).content[0].text, 'job done');
  const { timeout, maxTotalTimeout, signal } = options[0];
  assert.ok(timeout > 120_000 && timeout <= 121_000, `timeout ${timeout}`); // was none: the SDK's 60,000
  assert.equal(maxTotalTimeout, timeout);
  assert.ok(signal instanceof AbortSignal);
  // a shorter deadline governs too: the gate's timeout (with its code), and the upstream is told to stop
  await importFromClient(rt2, 'jobs', client, { options: { timeoutMs: 100 } });
  const cut = await rt2.callTool('mcp__jobs__long_job', {});
  assert.equal(gateCode(cut), 'timeout');
  assert.ok(options[1].timeout <= 1100);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(aborted, 1);
  await sdk.close();
  rt.dispose();
  rt2.dispose();
});

test('importFromClient: a listing bound past the longest timer (2^31 ms, Infinity) still lists, and a short one is a ToolgateError timeout', async () => {
  const up = new Server({ name: 'up', version: '1' }, { capabilities: { tools: {} } });
  up.setRequestHandler(ListToolsRequestSchema, async () => {
    await new Promise((r) => setTimeout(r, 50));
    return { tools: [{ name: 'a', inputSchema: { type: 'object' } }] };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'c', version: '1' });
  await Promise.all([up.connect(a), client.connect(b)]);
  const rt = await createToolRuntime();
  const warnings = process.listeners('warning');
  process.removeAllListeners('warning'); // (a TimeoutOverflowWarning is what the unclamped timer gave)
  try {
    for (const [i, timeoutMs] of [2 ** 31, 30 * 86_400_000, Infinity].entries()) {
      const r = await importFromClient(rt, `s${i}`, client, { timeoutMs });
      assert.deepEqual(r.registered.map((t) => t.name), [`mcp__s${i}__a`], `timeoutMs ${timeoutMs}`);
    }
  } finally {
    for (const w of warnings) process.on('warning', w);
  }
  await assert.rejects(importFromClient(rt, 'slow', client, { timeoutMs: 10 }), (e) => e.name === 'ToolgateError' && e.code === 'timeout');
  await client.close();
  rt.dispose();
});

test('importFromClient: a tool the server runs only as a task is rejected with its reason, not listed as a tool that always fails', async () => {
  const up = new Server({ name: 'up', version: '1' }, { capabilities: { tools: {} } });
  up.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
    { name: 'render_video', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
    { name: 'render_frame', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
  ] }));
  up.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: `${req.params.name} done` }] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'gate', version: '1' });
  await Promise.all([up.connect(a), client.connect(b)]);
  const rt = await createToolRuntime();
  const res = await importFromClient(rt, 'media', client);
  assert.deepEqual(res.registered.map((r) => r.name), ['mcp__media__render_frame']);
  assert.equal(res.rejected.length, 1);
  assert.equal(res.rejected[0].tool, 'render_video');
  assert.equal(res.rejected[0].code, 'missing_capability');
  assert.match(res.rejected[0].message, /only as an MCP task/);
  assert.deepEqual(rt.listTools().tools.map((t) => t.name), ['mcp__media__render_frame']);
  assert.equal((await rt.callTool('mcp__media__render_frame', {})).content[0].text, 'render_frame done');
  // served on, it is a plain tool: serveTools answers tools/call, never a task
  const downstream = await served(rt);
  const [frame] = (await downstream.listTools()).tools;
  assert.equal(frame.execution, undefined);
  assert.equal((await downstream.callTool({ name: frame.name, arguments: {} })).content[0].text, 'render_frame done');
  await downstream.close();
  await client.close();
  rt.dispose();
});

test('progress goes through the gate both ways: an upstream\'s notifications reach the client that asked, and stop at the result', async () => {
  // the upstream: a real McpServer whose tool reports progress three times
  const up = new McpServer({ name: 'up', version: '1' });
  up.registerTool('render', { inputSchema: {} }, async (_a, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= 3; i++) {
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3, message: `step ${i}` } });
      await new Promise((r) => setTimeout(r, 5));
    }
    return { content: [{ type: 'text', text: 'rendered' }] };
  });
  const [ua, ub] = InMemoryTransport.createLinkedPair();
  const upClient = new Client({ name: 'gw', version: '1' });
  await Promise.all([up.server.connect(ua), upClient.connect(ub)]);
  const rt = await createToolRuntime();
  await importFromClient(rt, 'up', upClient);
  // a host tool reporting progress itself, and once more after its result (dropped)
  let late;
  rt.registerTool({ name: 'local', inputSchema: { type: 'object' } }, async (_a, info) => {
    info.progress({ progress: 1, total: 2 });
    info.progress({ progress: 'x' }); // (not a number: not sent)
    late = () => info.progress({ progress: 2, total: 2 });
    return 'done';
  });
  const client = await served(rt);
  const seen = [];
  const r = await client.callTool({ name: 'mcp__up__render', arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
  assert.equal(r.content[0].text, 'rendered');
  assert.deepEqual(seen, [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
  const local = [];
  assert.equal((await client.callTool({ name: 'local', arguments: {} }, undefined, { onprogress: (p) => local.push(p) })).content[0].text, 'done');
  late();
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(local, [{ progress: 1, total: 2 }]);
  // without a progressToken nothing is sent, and a handler's reports are no-ops
  assert.equal((await client.callTool({ name: 'mcp__up__render', arguments: {} })).content[0].text, 'rendered');
  // in process: ctx.onProgress
  const direct = [];
  await rt.callTool('local', {}, { onProgress: (p) => direct.push(p) });
  assert.deepEqual(direct, [{ progress: 1, total: 2 }]);
  assert.equal((await rt.callTool('local', {}, { onProgress: 7 }))._meta['dev.toolgate/error'].code, 'invalid_request');
  await upClient.close();
  rt.dispose();
});

test('progress is rate-limited per call: 20 at once, then 10 a second; a flood from a handler or an upstream is not relayed', async () => {
  let now = 1_000_000;
  const rt = await createToolRuntime({ clock: () => now });
  rt.registerTool({ name: 'flood', inputSchema: { type: 'object' } }, async (_a, info) => {
    for (let i = 1; i <= 10_000; i++) info.progress({ progress: i });
    now += 1000; // a second later: 10 more pass
    for (let i = 10_001; i <= 20_000; i++) info.progress({ progress: i });
    await new Promise((r) => setTimeout(r, 5));
    return 'done';
  });
  const seen = [];
  assert.equal((await rt.callTool('flood', {}, { onProgress: (p) => seen.push(p.progress) })).content[0].text, 'done');
  assert.deepEqual(seen, [...Array.from({ length: 20 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => 10_001 + i)]);
  // through serveTools to an SDK client: the same 30
  const client = await served(rt);
  const got = [];
  await client.callTool({ name: 'flood', arguments: {} }, undefined, { onprogress: (p) => got.push(p.progress) });
  assert.equal(got.length, 30);
  assert.ok(got.every((p, i) => i === 0 || p > got[i - 1]), 'increasing');
  rt.dispose();
});

test('serveTools ends the sessions it named when their Server closes: closed sessions hold no budget', async () => {
  const rt = await createToolRuntime();
  rt.setPolicy({ version: 1, defaults: ['*'], rules: [{ id: 'all', effect: 'allow', tools: ['*'] }],
    session_budgets: [{ id: 'calls', tools: ['*'], max_calls: 100 }], limits: { max_budget_entries: 3 } });
  rt.registerTool({ name: 'ping', inputSchema: { type: 'object' } }, () => 'pong');
  const results = [];
  for (let i = 0; i < 6; i++) {
    const server = new Server({ name: 'gw', version: '1' }, { capabilities: { tools: {} } });
    serveTools(rt, server);
    const [a, b] = InMemoryTransport.createLinkedPair();
    a.sessionId = `session-${i}`; // (what a Streamable HTTP transport sets)
    const client = new Client({ name: 'c', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    results.push((await client.callTool({ name: 'ping', arguments: {} })).content[0].text);
    await client.close();
    await server.close();
  }
  assert.deepEqual(results, Array(6).fill('pong'));
  rt.dispose();
});

test('progress passed on only as MCP allows it: increasing, finite, a bounded message without hidden characters', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'steps', inputSchema: { type: 'object' } }, async (_a, info) => {
    for (const p of [10, 5, 1, 1, NaN, Infinity, 11]) info.progress({ progress: p, total: NaN, message: `at ${p}\u202E\u0007` + 'm'.repeat(5000) });
    return 'done';
  });
  const seen = [];
  await rt.callTool('steps', {}, { onProgress: (p) => seen.push(p) });
  assert.deepEqual(seen.map((p) => p.progress), [10, 11]);
  assert.equal('total' in seen[0], false);
  assert.ok(seen.every((p) => p.message.length <= 1024 && !/[\u202E\u0007]/.test(p.message)), 'bounded and cleaned');
  // through serveTools to an SDK client: its schema accepts every one
  const client = await served(rt);
  const got = [];
  await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: (p) => got.push(p.progress) });
  assert.deepEqual(got, [10, 11]);
  rt.dispose();
});

/** An SDK Server upstream with these tools (and a tools/call answer), and an SDK Client linked to it. */
async function upstreamWith(tools, answer) {
  const up = new Server({ name: 'up', version: '1' }, { capabilities: { tools: {} } });
  up.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  up.setRequestHandler(CallToolRequestSchema, async () => answer);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'c', version: '1' });
  await Promise.all([up.connect(a), client.connect(b)]);
  return client;
}

test('importFromClient: an upstream\'s outputSchema is judged by the gate (linear-time regex), not by the SDK client\'s ajv (backtracking)', async () => {
  // "^(a+)+$" against a's and "!" is exponential for a backtracking engine;
  // the gate answers its own invalid_result (the SDK's check would throw its
  // own error first, and at 40 a's never finish)
  const client = await upstreamWith([{ name: 'evil', inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } }],
  { content: [], structuredContent: { s: 'a'.repeat(18) + '!' } });
  const rt = await createToolRuntime();
  await importFromClient(rt, 'up', client);
  const r = await rt.callTool('mcp__up__evil', {});
  assert.equal(r._meta?.['dev.toolgate/error']?.code, 'invalid_result', JSON.stringify(r));
  rt.dispose();
  await client.close();
});

test('importFromClient: a tool the SDK client would refuse (or whose outputSchema its ajv cannot compile) is rejected on its own, the rest imported', async () => {
  const good = { name: 'read', inputSchema: { type: 'object' } };
  for (const bad of [
    { name: 'list', inputSchema: { type: 'array' } },
    { name: 'color', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { hex: { type: 'string', pattern: '^\\#[0-9a-f]{6}$' } } } },
    { name: 'titled', title: 42, inputSchema: { type: 'object' } },
  ]) {
    const client = await upstreamWith([good, bad], { content: [{ type: 'text', text: 'ok' }] });
    const rt = await createToolRuntime();
    const r = await importFromClient(rt, 'up', client);
    assert.ok(r.registered.some((t) => t.name === 'mcp__up__read'), `${bad.name}: ${JSON.stringify(r)}`);
    assert.equal((await rt.callTool('mcp__up__read', {})).content[0].text, 'ok');
    rt.dispose();
    await client.close();
  }
});

test('serveTools onApproval answering "approve", or calling rt.resolveApproval itself: the approved call runs with this client\'s progress and cancellation', async () => {
  for (const style of ['answer', 'resolve']) await approvedCallFollowsClient(style);
});

async function approvedCallFollowsClient(style) {
  const rt = await createToolRuntime({ policy: { version: 1, defaults: ['*'], rules: [{ id: 'confirm', effect: 'ask', tools: ['deploy'] }] } });
  let started = 0;
  rt.registerTool({ name: 'deploy', inputSchema: { type: 'object' } }, async (args, info) => {
    started++;
    info.progress({ progress: 1, total: 2 });
    return 'deployed';
  });
  const server = new Server({ name: 'gw', version: '1' }, { capabilities: { tools: {} } });
  serveTools(rt, server, { callContext: () => ({ session: 's1' }), onApproval: async (p, extra) => {
    // the person answers once the client has given up, when it does
    if (p.args?.wait) await new Promise((r) => extra.signal.addEventListener('abort', r, { once: true }));
    return style === 'answer' ? 'approve' : rt.resolveApproval(p.approvalId, 'approve');
  } });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'c', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  let progress = 0;
  const r = await client.callTool({ name: 'deploy', arguments: {} }, undefined, { onprogress: () => progress++ });
  assert.equal(r.content[0].text, 'deployed');
  assert.equal(progress, 1, `${style}: the handler's progress reached the client`);
  started = 0;
  const ac = new AbortController();
  const cancelled = client.callTool({ name: 'deploy', arguments: { wait: true } }, undefined, { signal: ac.signal }).then(() => 'answered', () => 'cancelled');
  setTimeout(() => ac.abort('never mind'), 20);
  assert.equal(await cancelled, 'cancelled');
  await new Promise((r) => setTimeout(r, 50)); // (the server side ends the call)
  assert.equal(started, 0, `${style}: a call its client cancelled is not run once approved`);
  await client.close();
  rt.dispose();
}

test('serveTools: a tool whose outputSchema has a pattern the SDK client cannot compile (an identity escape, not valid with the u flag) is served without it, so the client can read the list', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'color', inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { hex: { type: 'string', pattern: '^\\#[0-9a-f]{6}$' } }, patternProperties: { '^x\\_': {} } } },
  () => ({ content: [], structuredContent: { hex: '#00ff00' } }));
  rt.registerTool({ name: 'weather', inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { t: { type: 'number' }, id: { type: 'string', pattern: '^[a-z]+$' } } } }, () => ({ content: [], structuredContent: { t: 3 } }));
  const server = new Server({ name: 'gw', version: '1' }, { capabilities: { tools: {} } });
  serveTools(rt, server);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'c', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => [t.name, t.outputSchema !== undefined]), [['color', false], ['weather', true]]);
  assert.deepEqual((await client.callTool({ name: 'color', arguments: {} })).structuredContent, { hex: '#00ff00' });
  // the gate still judges the result by the whole schema
  assert.equal(rt.listTools().tools.find((t) => t.name === 'color').outputSchema.properties.hex.pattern, '^\\#[0-9a-f]{6}$');
  await client.close();
  rt.dispose();
});
