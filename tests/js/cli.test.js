// cli.test.js - the `toolgate` command run as a child process: lint of
// tools, schemas and policies (text and --json, exit codes), and the
// gateway end to end: an official SDK client talks to `toolgate gateway`
// over stdio, which fronts the real filesystem MCP server (and a small SDK
// server that changes its tool list).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, writeFile, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot } from './helpers.js';

const bin = path.join(repoRoot, 'js/bin/toolgate.js');
const fsServer = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const gateCode = (r) => r._meta?.['dev.toolgate/error']?.code;
const obj = (properties = {}, required = []) => ({ type: 'object', properties, required });

/** Runs the CLI; resolves { code, stdout, stderr } (killed after 20 s). */
function run(args, { cwd } = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, timeout: 20000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr, killed: err?.killed });
    });
  });
}

async function tmp(files) {
  const dir = await mkdtemp(path.join(tmpdir(), 'tg-cli-'));
  for (const [name, value] of Object.entries(files)) {
    await writeFile(path.join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  }
  return dir;
}

test('--help, --version and usage errors', { timeout: 30000 }, async () => {
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /toolgate lint/);
  assert.match(help.stdout, /toolgate gateway/);
  const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8'));
  const v = await run(['--version']);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), pkg.version);
  assert.equal((await run([])).code, 2);
  assert.equal((await run(['frobnicate'])).code, 2);
  assert.equal((await run(['lint'])).code, 2);
  assert.equal((await run(['lint', '--bogus', 'x.json'])).code, 2);
  const gw = await run(['gateway', '--principal', 'a']);
  assert.equal(gw.code, 2);
  assert.match(gw.stderr, /needs a policy/);
  // a misspelled --mode is a usage error, as "mode" in a config file is
  const mode = await run(['gateway', '--policy', 'p.json', '--mode', 'bypasPermissions', '--source', 'x=true']);
  assert.equal(mode.code, 2, mode.stderr);
  assert.match(mode.stderr, /--mode must be one of .*bypassPermissions/);
});

test('lint: good tools are registered and clean (exit 0)', { timeout: 30000 }, async () => {
  const dir = await tmp({
    'one.json': { name: 'get_weather', description: 'Weather for a city', inputSchema: obj({ city: { type: 'string' } }, ['city']) },
    'list.json': { tools: [{ name: 'a', inputSchema: obj() }, { name: 'b', inputSchema: obj({ n: { type: 'integer' } }, ['n']) }] },
  });
  const r = await run(['lint', 'one.json', 'list.json'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /one\.json \(tools\): 1 registered, 0 rejected/);
  assert.match(r.stdout, /registered {2}get_weather -> mcp__lint__get_weather/);
  const j = await run(['lint', '--json', '--source', 'fs', 'list.json'], { cwd: dir });
  assert.equal(j.code, 0);
  const doc = JSON.parse(j.stdout);
  assert.equal(doc.ok, true);
  assert.deepEqual(doc.files[0].registered.map((t) => t.name), ['mcp__fs__a', 'mcp__fs__b']);
  await rm(dir, { recursive: true });
});

test('lint: bad tools are rejected with codes, hostile text sanitized, lossy conversions reported (exit 1)', { timeout: 30000 }, async () => {
  const dir = await tmp({
    'bad.json': [
      { name: 'fine', inputSchema: obj({ q: { type: 'string' } }) },
      { name: 'array_root', inputSchema: { type: 'array' } },
      { name: 'backref', inputSchema: obj({ a: { type: 'string', pattern: '^(a+)\\1$' } }) },
      { name: 'huge', description: 'Reads.\u202E\u200B' + 'y'.repeat(2 << 20), inputSchema: obj() },
      { name: 'either', inputSchema: { type: 'object', oneOf: [obj({ u: { type: 'string' } }, ['u']), obj({ f: { type: 'string' } }, ['f'])] } },
    ],
  });
  const r = await run(['lint', 'bad.json'], { cwd: dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /3 registered, 2 rejected/);
  assert.match(r.stdout, /rejected {4}array_root: invalid_descriptor: "inputSchema" must have "type": "object"/);
  assert.match(r.stdout, /rejected {4}backref: invalid_schema: .*backreference/);
  assert.match(r.stdout, /registered {2}huge -> mcp__lint__huge \(sanitized: description\)/);
  assert.match(r.stdout, /lossy {7}anthropic: mcp__lint__either .*oneOf/);
  const j = JSON.parse((await run(['lint', '--json', 'bad.json'], { cwd: dir })).stdout);
  const f = j.files[0];
  assert.equal(j.ok, false);
  assert.deepEqual(Object.fromEntries(f.rejected.map((t) => [t.tool, t.code])), { array_root: 'invalid_descriptor', backref: 'invalid_schema' });
  assert.deepEqual(f.registered.find((t) => t.tool === 'huge').sanitized, ['description']);
  assert.ok(f.lossy.some((l) => l.format === 'gemini' && l.tool === 'mcp__lint__either'));
  // sanitized fields and lossy conversions alone: exit 0, but 1 with --strict
  const warn = await tmp({ 'w.json': [{ name: 'either', inputSchema: { type: 'object', oneOf: [obj({ u: { type: 'string' } }, ['u']), obj({ f: { type: 'string' } }, ['f'])] } }] });
  assert.equal((await run(['lint', 'w.json'], { cwd: warn })).code, 0);
  assert.equal((await run(['lint', '--strict', 'w.json'], { cwd: warn })).code, 1);
  // not strict JSON (duplicate key): refused by the module's reader
  const dup = await tmp({ 'd.json': '{"name":"a","name":"b","inputSchema":{"type":"object"}}' });
  const d = await run(['lint', 'd.json'], { cwd: dup });
  assert.equal(d.code, 1);
  assert.match(d.stdout, /invalid_json: duplicate key "name"/);
  for (const x of [dir, warn, dup]) await rm(x, { recursive: true });
});

test('lint and gateway read files as bytes: a byte that is not UTF-8 is refused, never read as U+FFFD; a list past the registry is one refusal', { timeout: 30000 }, async () => {
  // a Latin-1 "é" in a description: Node's UTF-8 decoding made it U+FFFD and
  // the file linted clean (exit 0)
  const dir = await tmp({ 'latin1.json': '', 'many.json': { tools: Array.from({ length: 10_001 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: 'object' } })) } });
  await writeFile(path.join(dir, 'latin1.json'), Buffer.concat([Buffer.from('{"name":"cafe","description":"caf'), Buffer.from([0xe9]), Buffer.from('","inputSchema":{"type":"object"}}')]));
  const r = await run(['lint', 'latin1.json'], { cwd: dir });
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stdout, /latin1\.json \(unknown\): invalid_json: invalid UTF-8 in string at offset 33/);
  const m = await run(['lint', 'many.json'], { cwd: dir });
  assert.equal(m.code, 1, m.stdout + m.stderr);
  assert.match(m.stdout, /many\.json \(tools\): limit_reached: the batch lists more than 10000 tools/);
  // a policy file that is not UTF-8 stops the gateway before it starts
  await writeFile(path.join(dir, 'policy.json'), Buffer.from([0x7b, 0xff, 0x7d]));
  const g = await run(['gateway', '--policy', 'policy.json', '--source', 'a=' + process.execPath], { cwd: dir });
  assert.equal(g.code, 2);
  assert.match(g.stderr, /policy\.json: not UTF-8 text/);
  await rm(dir, { recursive: true });
});

test('lint: a policy with errors gives JSON Pointer diagnostics (exit 1); a good one is OK', { timeout: 30000 }, async () => {
  const dir = await tmp({
    'bad-policy.json': { version: 1, rules: [{ effect: 'allow', tools: ['*'] }, { effect: 'permit', tools: ['x'] }], rulez: true },
    'principal.json': { version: 1, principals: { alice: { skills: ['gh'] } }, rules: [] },
  });
  const r = await run(['lint', 'bad-policy.json'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /bad-policy\.json \(policy\): invalid_policy/);
  assert.match(r.stdout, /^ {2}\/rules\/1\/effect: expected one of \["allow","ask","deny"\]/m);
  assert.match(r.stdout, /^ {2}\/rulez: property "rulez" is not allowed/m);
  const j = JSON.parse((await run(['lint', '--json', '--policy', 'principal.json'], { cwd: dir })).stdout);
  assert.equal(j.files[0].kind, 'policy');
  assert.deepEqual(j.files[0].diagnostics.map((d) => d.pointer), ['/principals/alice/skills/0']);
  const ok = await run(['lint', path.join(repoRoot, 'examples/gateway-policy.json')]);
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(ok.stdout, /\(policy\): OK/);
  await rm(dir, { recursive: true });
});

test('lint --schema: compiles, or names the problem', { timeout: 30000 }, async () => {
  const dir = await tmp({
    'good.json': { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } }, $defs: { x: { type: 'integer' } } },
    'bad.json': { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' }, b: { $ref: '#/$defs/missing' } } },
    'meta.json': { type: 'object', minProperties: -1 },
  });
  const good = await run(['lint', '--schema', 'good.json'], { cwd: dir });
  assert.equal(good.code, 0, good.stdout);
  assert.match(good.stdout, /good\.json \(schema\): OK/);
  const bad = await run(['lint', '--schema', 'bad.json'], { cwd: dir });
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /invalid_schema/);
  const meta = JSON.parse((await run(['lint', '--schema', '--json', 'meta.json'], { cwd: dir })).stdout);
  assert.equal(meta.ok, false);
  assert.equal(meta.files[0].error.code, 'invalid_schema');
  await rm(dir, { recursive: true });
});

const testPolicy = {
  version: 1,
  defaults: ['mcp__fs__*', 'mcp__dyn__*'],
  rules: [
    { id: 'no-writes', effect: 'deny', tools: ['mcp__fs__write_file', 'mcp__fs__edit_file'], reason: 'writes are not allowed through this gateway' },
    { id: 'confirm-moves', effect: 'ask', tools: ['mcp__fs__move_file'], reason: 'moving files needs a person' },
    { id: 'reads', effect: 'allow', tools: ['mcp__fs__read_*', 'mcp__fs__list_*', 'mcp__fs__get_file_info', 'mcp__fs__search_files', 'mcp__fs__directory_tree', 'mcp__dyn__*'] },
  ],
};

/** Runs fn(client) against `toolgate gateway <args>`; its stderr joins a failure's message; dirs go after. */
async function withGateway(args, cwd, dirs, fn) {
  const { client, stderr } = await startGateway(args, cwd);
  try {
    await fn(client);
  } catch (e) {
    e.message += `\ngateway stderr:\n${stderr()}`;
    throw e;
  } finally {
    await client.close();
    for (const d of dirs) await rm(d, { recursive: true });
  }
}

/** Starts `toolgate gateway <args>` under an SDK client; returns the client and its stderr. */
async function startGateway(args, cwd) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'gateway', ...args], cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

test('gateway --config: fronts the real filesystem server and enforces the policy', { timeout: 60000 }, async () => {
  const dir = await tmp({ 'policy.json': testPolicy });
  const data = await tmp({ 'hello.txt': 'hello through the gate' });
  await writeFile(path.join(dir, 'gateway.json'), JSON.stringify({
    policy: 'policy.json', // relative to the config file
    principal: 'agent-1',
    upstreams: { fs: { command: process.execPath, args: [fsServer, data] } },
  }));
  const { client, stderr } = await startGateway(['--config', path.join(dir, 'gateway.json')], repoRoot);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('mcp__fs__read_text_file'), names.join(' '));
    assert.ok(names.includes('mcp__fs__list_directory'));
    assert.ok(!names.includes('mcp__fs__write_file'), 'a tool the principal can never call is not listed');
    assert.match(stderr(), /fs: \d+ tools registered, 0 rejected/);
    // a cursor the gateway never gave is invalid params (-32602), as the README says, not an internal error
    await assert.rejects(client.listTools({ cursor: 'not-a-cursor' }), (e) => e.code === -32602);

    const ok = await client.callTool({ name: 'mcp__fs__read_text_file', arguments: { path: path.join(data, 'hello.txt') } });
    assert.equal(ok.isError, undefined, JSON.stringify(ok));
    assert.match(ok.content[0].text, /hello through the gate/);

    const denied = await client.callTool({ name: 'mcp__fs__write_file', arguments: { path: path.join(data, 'x.txt'), content: 'x' } });
    assert.equal(denied.isError, true);
    assert.equal(gateCode(denied), 'denied');
    assert.match(denied.content[0].text, /writes are not allowed through this gateway/);
    await assert.rejects(readFile(path.join(data, 'x.txt')), /ENOENT/); // never reached the server

    const bad = await client.callTool({ name: 'mcp__fs__read_text_file', arguments: { path: 42 } });
    assert.equal(bad.isError, true);
    assert.equal(gateCode(bad), 'invalid_arguments');
    const wrongType = await client.callTool({ name: 'mcp__fs__read_text_file', arguments: { head: 'ten' } });
    assert.equal(gateCode(wrongType), 'invalid_arguments');

    const ask = await client.callTool({ name: 'mcp__fs__move_file', arguments: { source: path.join(data, 'hello.txt'), destination: path.join(data, 'moved.txt') } });
    assert.equal(ask.isError, true);
    assert.equal(gateCode(ask), 'pending_approval');
    assert.match(ask.content[0].text, /needs a person's approval/);
    assert.match(await readFile(path.join(data, 'hello.txt'), 'utf8'), /hello/); // not moved

    const unknown = await client.callTool({ name: 'mcp__fs__nope', arguments: {} });
    assert.equal(gateCode(unknown), 'unknown_tool');
  } finally {
    await client.close();
    await rm(dir, { recursive: true });
    await rm(data, { recursive: true });
  }
});

test('gateway --policy/--source: re-imports on upstream list_changed and tells its client', { timeout: 60000 }, async () => {
  const sdk = (p) => pathToFileURL(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href;
  // an upstream whose tool "grow" adds a tool "extra" and sends notifications/tools/list_changed
  const upstream = `
    import { Server } from '${sdk('server/index.js')}';
    import { StdioServerTransport } from '${sdk('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdk('types.js')}';
    const tools = [{ name: 'grow', inputSchema: { type: 'object' } }];
    const server = new Server({ name: 'dyn', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      if (req.params.name === 'grow' && tools.length === 1) {
        tools.push({ name: 'extra', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } });
        setTimeout(() => server.sendToolListChanged(), 10);
      }
      return { content: [{ type: 'text', text: req.params.name + ' ' + JSON.stringify(req.params.arguments) }] };
    });
    await server.connect(new StdioServerTransport());
  `;
  const dir = await tmp({ 'policy.json': testPolicy, 'dyn.mjs': upstream });
  await withGateway([
    '--policy', path.join(dir, 'policy.json'), '--source', 'dyn=' + process.execPath, path.join(dir, 'dyn.mjs'), '--principal', 'agent-2',
  ], dir, [dir], async (client) => {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['mcp__dyn__grow']);
    const changed = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
    assert.match((await client.callTool({ name: 'mcp__dyn__grow', arguments: {} })).content[0].text, /^grow/);
    await changed;
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['mcp__dyn__extra', 'mcp__dyn__grow']);
    const r = await client.callTool({ name: 'mcp__dyn__extra', arguments: { n: 3 } });
    assert.equal(r.content[0].text, 'extra {"n":3}');
    assert.equal(gateCode(await client.callTool({ name: 'mcp__dyn__extra', arguments: { n: 'three' } })), 'invalid_arguments');
  });
});

test('gateway: a burst of upstream list_changed is one re-import (plus the one running), not one each', { timeout: 60000 }, async () => {
  const sdk = (p) => pathToFileURL(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href;
  // an upstream whose tool "flood" sends 200 notifications/tools/list_changed at once;
  // "lists" answers how many tools/list requests it has served
  const upstream = `
    import { Server } from '${sdk('server/index.js')}';
    import { StdioServerTransport } from '${sdk('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdk('types.js')}';
    let lists = 0;
    const tools = [{ name: 'flood', inputSchema: { type: 'object' } }, { name: 'lists', inputSchema: { type: 'object' } }];
    const server = new Server({ name: 'noisy', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => { lists++; return { tools }; });
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      if (req.params.name === 'flood') for (let i = 0; i < 200; i++) server.sendToolListChanged();
      return { content: [{ type: 'text', text: String(lists) }] };
    });
    await server.connect(new StdioServerTransport());
  `;
  const dir = await tmp({ 'policy.json': testPolicy, 'noisy.mjs': upstream });
  await withGateway([
    '--policy', path.join(dir, 'policy.json'), '--source', 'dyn=' + process.execPath, path.join(dir, 'noisy.mjs'), '--principal', 'agent-2',
  ], dir, [dir], async (client) => {
    let told = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { told++; });
    const before = Number((await client.callTool({ name: 'mcp__dyn__lists', arguments: {} })).content[0].text);
    await client.callTool({ name: 'mcp__dyn__flood', arguments: {} });
    await new Promise((r) => setTimeout(r, 1500)); // (the re-imports run)
    const after = Number((await client.callTool({ name: 'mcp__dyn__lists', arguments: {} })).content[0].text);
    assert.ok(after - before <= 2, `${after - before} re-imports for 200 notifications`);
    assert.ok(after - before >= 1 && told >= 1 && told <= 2, `told the client ${told} times`);
  });
});

test('gateway: an upstream that says list_changed after every listing is re-imported at a bounded rate, not back to back', { timeout: 60000 }, async () => {
  // each tools/list answer is followed by notifications/tools/list_changed:
  // imported back to back this kept the gateway listing and importing all
  // the time (hundreds a second); "lists" answers how many it has served
  const upstream = `
    import { Server } from '${sdkURL('server/index.js')}';
    import { StdioServerTransport } from '${sdkURL('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdkURL('types.js')}';
    let lists = 0;
    const tools = [{ name: 'lists', inputSchema: { type: 'object' } }];
    const server = new Server({ name: 'restless', version: '1' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      lists++;
      setTimeout(() => server.sendToolListChanged(), 1);
      return { tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: String(lists) }] }));
    await server.connect(new StdioServerTransport());
  `;
  const dir = await tmp({ 'policy.json': allowAllPolicy, 'up.mjs': upstream });
  await withGateway(['--policy', path.join(dir, 'policy.json'), '--source', 'up=' + process.execPath, path.join(dir, 'up.mjs')], dir, [dir], async (client) => {
    const lists = async () => Number((await client.callTool({ name: 'mcp__up__lists', arguments: {} })).content[0].text);
    const t0 = Date.now();
    const before = await lists();
    await sleep(2000);
    const after = await lists();
    const seconds = (Date.now() - t0) / 1000;
    // at least 500 ms from one import's end to the next one's start
    assert.ok(after - before <= Math.ceil(seconds / 0.5) + 1, `${after - before} listings in ${seconds.toFixed(1)} s`);
    assert.ok(after > before, 'it is still re-imported');
  });
});

test('gateway: config and policy read strictly; facts per tool meet a renamed upstream tool', { timeout: 60000 }, async () => {
  const sdk = (p) => pathToFileURL(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href;
  // an upstream that spells its tools so that exact-name facts would miss them
  const upstream = `
    import { Server } from '${sdk('server/index.js')}';
    import { StdioServerTransport } from '${sdk('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdk('types.js')}';
    const tools = ['Deploy', 'Send_Email', 'd\\u0435lete_repo'].map((name) => ({ name, inputSchema: { type: 'object' } }));
    const server = new Server({ name: 'sly', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: req.params.name + ' ran' }] }));
    await server.connect(new StdioServerTransport());
  `;
  const allowAll = { version: 1, defaults: ['*'], rules: [{ id: 'all', effect: 'allow', tools: ['*'] }] };
  const up = { command: process.execPath, args: ['sly.mjs'], cwd: '.', tools: { deploy: { privileged: true }, send_email: { needsApproval: true }, delete_repo: { needsApproval: true } } };
  const dir = await tmp({ 'policy.json': allowAll, 'sly.mjs': upstream, 'gateway.json': { policy: 'policy.json', principal: 'agent', upstreams: { sly: up } } });
  // a duplicate key or a misspelled member stops the gateway before it starts
  const dup = path.join(dir, 'dup.json');
  await writeFile(dup, '{"policy": "policy.json", "principal": "agent", "principal": "admin", "upstreams": {}}');
  const r1 = await run(['gateway', '--config', dup]);
  assert.equal(r1.code, 2);
  assert.match(r1.stderr, /not strict JSON: duplicate key "principal"/);
  const typo = path.join(dir, 'typo.json');
  await writeFile(typo, JSON.stringify({ policy: 'policy.json', principle: 'agent', upstreams: { sly: up } }));
  const r2 = await run(['gateway', '--config', typo]);
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /property "principle" is not allowed/);
  // a misspelled fact for one tool is refused too: it would leave the tool unguarded
  const factTypo = path.join(dir, 'fact-typo.json');
  await writeFile(factTypo, JSON.stringify({ policy: 'policy.json', principal: 'agent', upstreams: { sly: { ...up, tools: { deploy: { needsAproval: true } } } } }));
  const r4 = await run(['gateway', '--config', factTypo]);
  assert.equal(r4.code, 2);
  assert.match(r4.stderr, /needsAproval/);
  const dupPolicy = path.join(dir, 'dup-policy.json');
  await writeFile(dupPolicy, '{"version": 1, "rules": [{"id": "no", "effect": "deny", "tools": ["*"]}], "rules": [{"id": "all", "effect": "allow", "tools": ["*"]}]}');
  const r3 = await run(['gateway', '--policy', dupPolicy, '--source', 'sly=' + process.execPath, path.join(dir, 'sly.mjs')]);
  assert.notEqual(r3.code, 0);
  assert.match(r3.stderr, /duplicate key "rules"/);
  await withGateway(['--config', path.join(dir, 'gateway.json')], dir, [dir], async (client) => {
    // "Deploy" is privileged now: not even listed for a principal without a grant for it
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(names.sort(), ['mcp__sly__Send_Email', 'mcp__sly__delete_repo']);
    // privileged with no grant for it, and needs approval: none of them ran (all three did)
    assert.equal(gateCode(await client.callTool({ name: 'mcp__sly__Deploy', arguments: {} })), 'denied');
    assert.equal(gateCode(await client.callTool({ name: 'mcp__sly__Send_Email', arguments: {} })), 'pending_approval');
    assert.equal(gateCode(await client.callTool({ name: 'mcp__sly__delete_repo', arguments: {} })), 'pending_approval');
  });
});

test('gateway: the example policy keeps .env files out, however the path or the tool asks', { timeout: 60000 }, async () => {
  const data = await tmp({ '.env': 'SECRET=hunter2', 'notes.txt': 'fine' });
  await withGateway(['--policy', path.join(repoRoot, 'examples/gateway-policy.json'), '--principal', 'reader-agent',
    '--source', 'fs=' + process.execPath, fsServer, data], repoRoot, [data], async (client) => {
    const env = path.join(data, '.env');
    assert.match((await client.callTool({ name: 'mcp__fs__read_text_file', arguments: { path: path.join(data, 'notes.txt') } })).content[0].text, /fine/);
    for (const [name, args] of [['mcp__fs__read_text_file', { path: env }], ['mcp__fs__read_text_file', { path: `${env}/` }],
      ['mcp__fs__read_text_file', { path: `${data}/./.env` }], ['mcp__fs__read_multiple_files', { paths: [env] }]]) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(gateCode(r), 'denied', `${name} ${JSON.stringify(args)}`);
      assert.doesNotMatch(JSON.stringify(r), /hunter2/);
    }
  });
});

// ---------------------------------------------------------------- gateway: lifecycle, arguments, logs

const sdkURL = (p) => pathToFileURL(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href;
const allowAllPolicy = { version: 1, defaults: ['*'], rules: [{ id: 'all', effect: 'allow', tools: ['*'] }] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isAlive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** An SDK upstream that writes its pid to pid-<argv[2]> and, like a server
 * with a poller, does not exit when its stdin closes (it gives up by itself
 * after 30 s); body adds its handlers (server, ListToolsRequestSchema,
 * CallToolRequestSchema are in scope). */
function stubbornUpstream(dir, body) {
  return `
    import { writeFileSync } from 'node:fs';
    import { Server } from '${sdkURL('server/index.js')}';
    import { StdioServerTransport } from '${sdkURL('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdkURL('types.js')}';
    writeFileSync(${JSON.stringify(dir)} + '/pid-' + process.argv[2], String(process.pid));
    setInterval(() => {}, 1000);
    setTimeout(() => process.exit(0), 30000);
    const server = new Server({ name: 'up', version: '1' }, { capabilities: { tools: {} } });
    ${body}
    await server.connect(new StdioServerTransport());
  `;
}

async function readPid(dir, name) {
  for (;;) {
    try { return Number(await readFile(path.join(dir, `pid-${name}`), 'utf8')); } catch { await sleep(20); }
  }
}

test('gateway: a list_changed sent during an upstream\'s first import re-imports after it, never beside it', { timeout: 60000 }, async () => {
  // the first tools/list is slow, and meanwhile the upstream adds a tool and
  // says so; "stats" answers how many listings ran and at most how many at once
  const upstream = `
    import { Server } from '${sdkURL('server/index.js')}';
    import { StdioServerTransport } from '${sdkURL('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdkURL('types.js')}';
    let lists = 0, inflight = 0, maxInflight = 0;
    const tools = [{ name: 'a', inputSchema: { type: 'object' } }, { name: 'stats', inputSchema: { type: 'object' } }];
    const server = new Server({ name: 'up', version: '1' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const n = ++lists; inflight++; maxInflight = Math.max(maxInflight, inflight);
      const snapshot = [...tools];
      if (n === 1) {
        tools.push({ name: 'added', inputSchema: { type: 'object' } });
        server.sendToolListChanged();
        await new Promise((r) => setTimeout(r, 800));
      }
      inflight--;
      return { tools: snapshot };
    });
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: JSON.stringify({ lists, maxInflight }) }] }));
    await server.connect(new StdioServerTransport());
  `;
  const dir = await tmp({ 'policy.json': allowAllPolicy, 'up.mjs': upstream });
  await withGateway(['--policy', path.join(dir, 'policy.json'), '--source', 'up=' + process.execPath, path.join(dir, 'up.mjs')], dir, [dir], async (client) => {
    let stats;
    for (let i = 0; i < 50; i++) { // (the re-import after the first one)
      stats = JSON.parse((await client.callTool({ name: 'mcp__up__stats', arguments: {} })).content[0].text);
      if (stats.lists >= 2) break;
      await sleep(100);
    }
    await sleep(200);
    assert.equal(stats.maxInflight, 1, 'one import at a time');
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['mcp__up__a', 'mcp__up__added', 'mcp__up__stats'], 'the newer list is the one applied');
  });
});

test('gateway: SIGTERM while the upstreams start closes those already running', { timeout: 60000 }, async () => {
  const dir = await tmp({ 'policy.json': allowAllPolicy });
  // its tools/list takes 5 s: the signal comes while the gateway lists
  await writeFile(path.join(dir, 'up.mjs'), stubbornUpstream(dir, `
    server.setRequestHandler(ListToolsRequestSchema, async () => { await new Promise((r) => setTimeout(r, 5000)); return { tools: [] }; });`));
  const gw = spawn(process.execPath, [bin, 'gateway', '--policy', path.join(dir, 'policy.json'), '--source', `up=${process.execPath}`, path.join(dir, 'up.mjs'), 'up'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise((r) => gw.on('exit', (code, signal) => r({ code, signal })));
  const pid = await readPid(dir, 'up');
  await sleep(300);
  try {
    gw.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null });
    assert.equal(isAlive(pid), false, 'the upstream was closed');
  } finally {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    gw.kill('SIGKILL');
    await rm(dir, { recursive: true });
  }
});

test('gateway: upstreams start together (one waiting for another does not stall), each within its startupTimeoutMs', { timeout: 60000 }, async () => {
  // "a" answers initialize only once "b" has started, and "b" only once "a"
  // has: started one after the other, the first would wait for ever
  const meeting = (me, other) => `
    import { existsSync, writeFileSync } from 'node:fs';
    import { Server } from '${sdkURL('server/index.js')}';
    import { StdioServerTransport } from '${sdkURL('server/stdio.js')}';
    import { ListToolsRequestSchema } from '${sdkURL('types.js')}';
    writeFileSync(process.argv[2] + '/started-${me}', '');
    while (!existsSync(process.argv[2] + '/started-${other}')) await new Promise((r) => setTimeout(r, 20));
    const server = new Server({ name: '${me}', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'from_${me}', inputSchema: { type: 'object' } }] }));
    await server.connect(new StdioServerTransport());`;
  const dir = await tmp({ 'policy.json': allowAllPolicy, 'a.mjs': meeting('a', 'b'), 'b.mjs': meeting('b', 'a') });
  await writeFile(path.join(dir, 'gateway.json'), JSON.stringify({
    policy: 'policy.json',
    upstreams: {
      a: { command: process.execPath, args: [path.join(dir, 'a.mjs'), dir], startupTimeoutMs: 20000 },
      b: { command: process.execPath, args: [path.join(dir, 'b.mjs'), dir], startupTimeoutMs: 20000 },
    },
  }));
  await withGateway(['--config', path.join(dir, 'gateway.json')], dir, [dir], async (client) => {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['mcp__a__from_a', 'mcp__b__from_b']);
  });

  // an upstream that never answers initialize fails the start once its own
  // startupTimeoutMs has passed (not the SDK's 60 s): exit 1, naming it, and
  // the other upstream, started beside it, is closed
  const dir2 = await tmp({ 'policy.json': allowAllPolicy });
  await writeFile(path.join(dir2, 'mute.mjs'), `
    import { writeFileSync } from 'node:fs';
    writeFileSync(process.argv[2] + '/pid-mute', String(process.pid));
    setInterval(() => {}, 1000);
    setTimeout(() => process.exit(0), 30000);`);
  await writeFile(path.join(dir2, 'up.mjs'), stubbornUpstream(dir2, `
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));`));
  await writeFile(path.join(dir2, 'gateway.json'), JSON.stringify({
    policy: 'policy.json',
    upstreams: {
      up: { command: process.execPath, args: [path.join(dir2, 'up.mjs'), 'up'] },
      mute: { command: process.execPath, args: [path.join(dir2, 'mute.mjs'), dir2], startupTimeoutMs: 300 },
    },
  }));
  try {
    const r = await run(['gateway', '--config', path.join(dir2, 'gateway.json')]);
    assert.ok(!r.killed, 'it gave up on its own');
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /cannot start the upstreams: mute: .*time/i);
    const pid = await readPid(dir2, 'up');
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(20);
    assert.equal(isAlive(pid), false, 'the upstream started beside it was closed');
    const mute = await readPid(dir2, 'mute');
    assert.equal(isAlive(mute), false, 'the mute one was closed too');
  } finally {
    for (const name of ['up', 'mute']) {
      const pid = await readFile(path.join(dir2, `pid-${name}`), 'utf8').then(Number, () => 0);
      if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await rm(dir2, { recursive: true });
  }

  const bad = await tmp({ 'policy.json': allowAllPolicy });
  await writeFile(path.join(bad, 'gateway.json'), JSON.stringify({ policy: 'policy.json', upstreams: { up: { command: 'x', startupTimeoutMs: 0 } } }));
  const r = await run(['gateway', '--config', path.join(bad, 'gateway.json')]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /startupTimeoutMs/);
  await rm(bad, { recursive: true });
});

test('gateway: a client gone mid-call (EPIPE on stdout) is a disconnect: upstreams closed, exit 0', { timeout: 60000 }, async () => {
  const dir = await tmp({ 'policy.json': allowAllPolicy });
  // "work" streams progress every 5 ms for 2 s
  await writeFile(path.join(dir, 'up.mjs'), stubbornUpstream(dir, `
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'work', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      for (let i = 1; i < 400; i++) {
        await new Promise((r) => setTimeout(r, 5));
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: req.params._meta.progressToken, progress: i } });
      }
      return { content: [{ type: 'text', text: 'done' }] };
    });`));
  try {
    for (let run = 0; run < 2; run++) {
      const gw = spawn(process.execPath, [bin, 'gateway', '--policy', path.join(dir, 'policy.json'), '--source', `up=${process.execPath}`, path.join(dir, 'up.mjs'), `up${run}`], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      gw.stderr.on('data', (d) => { stderr += d; });
      const exited = new Promise((r) => gw.on('exit', (code, signal) => r({ code, signal })));
      const send = (m) => gw.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      await new Promise((r) => gw.stdout.once('data', r));
      const pid = await readPid(dir, `up${run}`);
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: 'mcp__up__work', arguments: {}, _meta: { progressToken: 7 } } });
      await sleep(300);
      // the client dies: its reading end goes first, then its writing end
      gw.stdout.destroy();
      await sleep(20);
      gw.stdin.destroy();
      try {
        assert.deepEqual(await exited, { code: 0, signal: null }, stderr);
        assert.doesNotMatch(stderr, /EPIPE|Error/);
        assert.equal(isAlive(pid), false, 'the upstream was closed');
      } finally {
        if (isAlive(pid)) process.kill(pid, 'SIGKILL');
        gw.kill('SIGKILL');
      }
    }
  } finally {
    await rm(dir, { recursive: true });
  }
});

test('gateway: upstreams are closed together, before a host closing it as the SDK does would escalate', { timeout: 60000 }, async () => {
  const dir = await tmp({ 'policy.json': allowAllPolicy });
  // none exits when its stdin closes; "deaf" ignores SIGTERM as well
  await writeFile(path.join(dir, 'up.mjs'), stubbornUpstream(dir, `
    if (process.argv[2] === 'deaf') process.on('SIGTERM', () => {});
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }));`));
  const args = ['--policy', path.join(dir, 'policy.json')];
  for (const n of ['a', 'b', 'deaf']) args.push('--source', `${n}=${process.execPath}`, path.join(dir, 'up.mjs'), n);
  const { client } = await startGateway(args, dir);
  const pids = [];
  try {
    assert.equal((await client.listTools()).tools.length, 3);
    for (const n of ['a', 'b', 'deaf']) pids.push(await readPid(dir, n));
    const t0 = Date.now();
    await client.close(); // stdin end, then (after 2 s) SIGTERM, then (2 s more) SIGKILL
    const took = Date.now() - t0;
    assert.ok(took < 2000, `the gateway took ${took} ms to exit: the host sent it SIGTERM`);
    await sleep(100);
    assert.deepEqual(pids.filter(isAlive), [], 'every upstream is gone');
  } finally {
    for (const p of pids) if (isAlive(p)) process.kill(p, 'SIGKILL');
    await rm(dir, { recursive: true });
  }
});

test('gateway: --source may not take the name of a config upstream (its facts would be dropped) nor be given twice', { timeout: 30000 }, async () => {
  const up = { command: process.execPath, args: ['up.mjs'], tools: { delete_all: { needsApproval: true } } };
  const dir = await tmp({ 'policy.json': allowAllPolicy, 'gateway.json': { policy: 'policy.json', upstreams: { up } } });
  const clash = await run(['gateway', '--config', path.join(dir, 'gateway.json'), '--source', `up=${process.execPath}`, 'other.mjs']);
  assert.equal(clash.code, 2);
  assert.match(clash.stderr, /--source up: .*gateway\.json already has an upstream "up"/);
  const twice = await run(['gateway', '--policy', path.join(dir, 'policy.json'), '--source', 'x=a', '--source', 'x=b']);
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /--source x is given twice/);
  await rm(dir, { recursive: true });
});

test('gateway and lint: upstream text in the log is escaped and bounded: no forged lines, no terminal escapes', { timeout: 60000 }, async () => {
  const forged = 'x\ntoolgate: up: mcp__up__deploy changed (description); accepted by operator\n\u001b[2J\u001b]0;owned\u0007\u202e\u0085';
  const long = 'y\u0007' + 'y'.repeat(100_000);
  const tools = [{ name: 'ok', inputSchema: { type: 'object' } }, { name: forged, inputSchema: { type: 'object' } }, { name: long, inputSchema: { type: 'object' } }];
  const upstream = `
    import { Server } from '${sdkURL('server/index.js')}';
    import { StdioServerTransport } from '${sdkURL('server/stdio.js')}';
    import { ListToolsRequestSchema } from '${sdkURL('types.js')}';
    const server = new Server({ name: 'up', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: ${JSON.stringify(tools)} }));
    await server.connect(new StdioServerTransport());
  `;
  const dir = await tmp({ 'policy.json': allowAllPolicy, 'up.mjs': upstream, 'tools.json': tools });
  const clean = (text, what) => {
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/, `${what}: raw control or bidi characters`);
    assert.ok(!text.split('\n').some((l) => /^(toolgate: up: )?mcp__up__deploy changed/.test(l)), `${what}: a forged line`);
    assert.ok(text.split('\n').every((l) => l.length < 2000), `${what}: a line of ${Math.max(...text.split('\n').map((l) => l.length))} characters`);
  };
  const { client, stderr } = await startGateway(['--policy', path.join(dir, 'policy.json'), '--source', 'up=' + process.execPath, path.join(dir, 'up.mjs')], dir);
  try {
    await client.listTools();
    assert.match(stderr(), /rejected x\\u\{a\}toolgate: up: mcp__up__deploy changed/, 'the name is shown, escaped');
    clean(stderr(), 'gateway');
  } finally {
    await client.close();
  }
  const lint = await run(['lint', '--source', 'up', 'tools.json'], { cwd: dir });
  assert.equal(lint.code, 1);
  assert.match(lint.stdout, /rejected {4}x\\u\{a\}toolgate/);
  clean(lint.stdout, 'lint');
  await rm(dir, { recursive: true });
});

test('gateway: an upstream\'s stderr is relayed prefixed, cleaned and bounded, and drained while it floods', { timeout: 60000 }, async () => {
  // "up" writes terminal escapes, a line forged as the gateway's, bidi and
  // control characters, invalid UTF-8 and a 100 KB line as it starts, and
  // 20 MB when "flood" is called; "calm" writes a last line without its
  // newline and exits on "quit". Written as most servers write (blocking
  // once the pipe is full; Node's process.stderr would buffer it instead):
  // "flood" answers only if the gateway reads all of it.
  const upstream = `
    import { writeSync } from 'node:fs';
    import { Server } from '${sdkURL('server/index.js')}';
    import { StdioServerTransport } from '${sdkURL('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdkURL('types.js')}';
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const w = (s) => {
      const b = Buffer.from(s);
      for (let at = 0; at < b.length;) {
        try { at += writeSync(2, b, at); } catch (e) { if (e.code !== 'EAGAIN') throw e; Atomics.wait(pause, 0, 0, 1); }
      }
    };
    const me = process.argv[2];
    if (me === 'up') {
      w('\\x1b[2J\\x1b[H\\x1b[31mred\\x1b[0m \\x1b]8;;https://evil.example\\x07link\\x1b]8;;\\x07 \\x1b]52;c;ZXZpbA==\\x07\\x1b]0;title\\x1b\\\\ \\x1b[1A\\x1b[2Kend\\x1b\\n');
      w('toolgate: up: 99 tools registered, 0 rejected\\n');
      w('bidi \\u202eevil\\u202c \\u2066x\\u2069 zw\\u200b c1 \\u009b31m nul\\u0000 del\\u007f cr\\rover\\ttab\\r\\n');
      w(Buffer.from([0x62, 0x61, 0x64, 0x20, 0xff, 0xfe, 0xc3, 0x28, 0x20, 0x6f, 0x6b, 0x0a]));
      w('L' + 'y'.repeat(100000) + '\\n');
    }
    const server = new Server({ name: me, version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: ['flood', 'ping', 'quit'].map((name) => ({ name, inputSchema: { type: 'object' } })) }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      if (req.params.name === 'flood') { const line = 'f'.repeat(1023) + '\\n'; for (let i = 0; i < 20 * 1024; i++) w(line); }
      if (req.params.name === 'quit') { w('last words'); setTimeout(() => process.exit(0), 50); }
      return { content: [{ type: 'text', text: req.params.name + ' done' }] };
    });
    await server.connect(new StdioServerTransport());
  `;
  const dir = await tmp({ 'policy.json': allowAllPolicy, 'up.mjs': upstream });
  const source = (n) => ['--source', `${n}=${process.execPath}`, path.join(dir, 'up.mjs'), n];
  const { client, stderr } = await startGateway(['--policy', path.join(dir, 'policy.json'), ...source('up'), ...source('calm')], dir);
  try {
    assert.equal((await client.listTools()).tools.length, 6);
    const call = async (name) => (await client.callTool({ name, arguments: {} })).content[0].text;
    assert.equal(await call('mcp__up__flood'), 'flood done', 'the flood was read to its end');
    assert.equal(await call('mcp__up__ping'), 'ping done', 'and the upstream serves on');
    assert.equal(await call('mcp__calm__quit'), 'quit done');
    for (let i = 0; i < 500 && !/upstream calm closed/.test(stderr()); i++) await sleep(20);
    const text = stderr();
    const lines = text.split('\n');
    assert.ok(text.length < 2 << 20, `${text.length} characters of log: the flood was not bounded`);
    assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/, 'raw control, escape or bidi characters');
    assert.ok(lines.includes('[upstream up] red link  end'), 'escape sequences removed, the text between kept');
    assert.ok(lines.includes('[upstream up] toolgate: up: 99 tools registered, 0 rejected'), 'the forged line is the upstream\'s');
    assert.ok(!lines.some((l) => l.startsWith('toolgate: up: 99')), 'a forged gateway line');
    assert.ok(lines.includes('[upstream up] bidi \\u{202e}evil\\u{202c} \\u{2066}x\\u{2069} zw\\u{200b} c1 \\u{9b}31m nul\\u{0} del\\u{7f} cr\\u{d}over\ttab'), 'bidi, format and control characters escaped, a tab kept');
    assert.ok(lines.includes('[upstream up] bad \ufffd\ufffd\ufffd( ok'), 'invalid UTF-8 decoded with replacement');
    const long = lines.filter((l) => l.startsWith('[upstream up] Ly'));
    assert.equal(long.length, 1);
    assert.match(long[0], /^\[upstream up\] Ly+\.\.\. \(cut: a line of 100001 bytes\)$/);
    assert.ok(long[0].length < 4200, `a line of ${long[0].length}`);
    const flood = lines.filter((l) => l.startsWith('[upstream up] fff'));
    assert.ok(flood.length > 0 && flood.length <= 1000, `${flood.length} flood lines relayed`);
    assert.equal(lines.filter((l) => /further output of upstream up suppressed/.test(l)).length, 1, 'one notice');
    assert.ok(lines.includes('[upstream calm] last words'), 'a partial line at exit is relayed');
    assert.ok(lines.every((l) => l === '' || l.startsWith('toolgate: ') || /^\[upstream (up|calm)\] /.test(l)), 'every line is the gateway\'s or prefixed');
  } catch (e) {
    e.message += `\ngateway stderr (from its end):\n${stderr().slice(-4000)}`;
    throw e;
  } finally {
    await client.close();
    await rm(dir, { recursive: true });
  }
});

test('gateway: a host that stops reading its stderr (EPIPE) does not crash it: it serves on and closes its upstreams at the end', { timeout: 60000 }, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'tg-stderr-'));
  await writeFile(path.join(dir, 'policy.json'), JSON.stringify({ version: 1, defaults: ['*'], rules: [{ id: 'all', effect: 'allow', tools: ['*'] }] }));
  // an upstream that logs on every call and does not exit when its stdin closes
  await writeFile(path.join(dir, 'up.mjs'), `
    import { writeFileSync } from 'node:fs';
    import { Server } from '${sdkURL('server/index.js')}';
    import { StdioServerTransport } from '${sdkURL('server/stdio.js')}';
    import { ListToolsRequestSchema, CallToolRequestSchema } from '${sdkURL('types.js')}';
    writeFileSync(${JSON.stringify(dir)} + '/pid', String(process.pid));
    setInterval(() => {}, 1000);
    setTimeout(() => process.exit(0), 30000);
    const server = new Server({ name: 'up', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler(CallToolRequestSchema, async () => { process.stderr.write('upstream: a call\\n'); return { content: [{ type: 'text', text: 'ok' }] }; });
    await server.connect(new StdioServerTransport());
  `);
  const gw = spawn(process.execPath, [bin, 'gateway', '--policy', path.join(dir, 'policy.json'), '--source', `up=${process.execPath}`, path.join(dir, 'up.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let answered = '';
  gw.stdout.on('data', (b) => { answered += b; });
  const exited = new Promise((r) => gw.on('exit', (code, signal) => r({ code, signal })));
  const send = (m) => gw.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  let pid;
  try {
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    for (let i = 0; i < 250 && pid === undefined; i++) { try { pid = Number(await readFile(path.join(dir, 'pid'), 'utf8')); } catch { await sleep(20); } }
    send({ method: 'notifications/initialized' });
    await sleep(200);
    gw.stderr.destroy(); // the host's end of the gateway's log is gone
    await sleep(100);
    for (let i = 0; i < 3; i++) { send({ id: 10 + i, method: 'tools/call', params: { name: 'mcp__up__t', arguments: {} } }); await sleep(200); }
    for (let i = 0; i < 50 && !answered.includes('"id":12'); i++) await sleep(20);
    // (an answer: a result, or unknown_tool once the upstream died of its own EPIPE)
    assert.match(answered, /"jsonrpc":"2.0","id":12\}/, 'the gateway still serves');
    gw.stdin.end(); // the client goes away, as usual
    const end = await Promise.race([exited, sleep(5000).then(() => null)]);
    assert.deepEqual(end, { code: 0, signal: null });
    await sleep(300);
    assert.equal(isAlive(pid), false, 'its upstream is closed');
  } finally {
    gw.kill('SIGKILL');
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
