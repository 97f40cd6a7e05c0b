// call.mjs - the whole per-call overhead of a tool call whose ~200-byte
// argument arrives as JSON text (what providers return), with a trivial
// handler, beside the MCP SDK (McpServer + Client over InMemoryTransport)
// and the bare minimum a JS host can do, in one process.
// Run: node bench/call.mjs   (--quick: short budgets)
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createToolRuntime } from 'toolgate';
import { serveTools } from 'toolgate/mcp';
import { table } from './harness.mjs';
import { interleaveAsync } from './lib-async.mjs';
import { header, ratio } from './lib-report.mjs';
import { callSchema, validArgs } from './schemas.mjs';
import { sdkVersion } from './lib-tools.mjs';

const quick = process.argv.includes('--quick');
const budget = quick ? 150 : 600;
const NAME = 'create_issue';
const DESCRIPTION = 'Create an issue in a GitHub repository.';
const RESULT = 'ok';

header('toolgate call benchmark: per-call overhead beside the MCP SDK and a bare JS host');
console.log(`argument: ${validArgs.length} bytes of JSON text; handler returns the constant string "${RESULT}"; @modelcontextprotocol/sdk ${sdkVersion()}`);
const argValue = JSON.parse(validArgs);
const fail = (who, r) => { throw new Error(`${who} call failed: ${JSON.stringify(r)}`); };

// --- toolgate, in process
const rt = await createToolRuntime();
rt.registerTool({ name: NAME, description: DESCRIPTION, inputSchema: callSchema }, () => RESULT);
{
  const r = await rt.callTool(NAME, validArgs);
  if (r.isError || r.content[0].text !== RESULT) fail('toolgate', r);
}

// --- toolgate under a gateway's kind of policy: a deny and an ask by name
// pattern, a deny that reads an argument (the arguments are then parsed
// into a tree for it), allow the rest
const POLICY = {
  version: 1,
  defaults: ['*'],
  rules: [
    { id: 'no-deletes', effect: 'deny', tools: ['*delete*'] },
    { id: 'confirm-deploys', effect: 'ask', tools: ['*deploy*'] },
    { id: 'no-secret-repos', effect: 'deny', tools: [NAME], args: { repo: { suffix: '-secret' } } },
    { id: 'the-rest', effect: 'allow', tools: ['*'] },
  ],
};
const rtPolicy = await createToolRuntime({ policy: POLICY });
rtPolicy.registerTool({ name: NAME, description: DESCRIPTION, inputSchema: callSchema }, () => RESULT);
{
  const r = await rtPolicy.callTool(NAME, validArgs);
  if (r.isError || r.content[0].text !== RESULT) fail('toolgate under the policy', r);
}

// --- the bare minimum: Map lookup, JSON.parse, one ajv check, await the handler
const ajv = new Ajv2020({ strict: false });
const bare = new Map([[NAME, { validate: ajv.compile(callSchema), handler: async () => RESULT }]]);
async function bareCall(name, text) {
  const t = bare.get(name);
  if (!t) return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
  const args = JSON.parse(text);
  if (!t.validate(args)) return { content: [{ type: 'text', text: ajv.errorsText(t.validate.errors) }], isError: true };
  return { content: [{ type: 'text', text: await t.handler(args) }] };
}
if ((await bareCall(NAME, validArgs)).content[0].text !== RESULT) fail('bare', {});

// --- the floor of any design that checks the text in the module: the
// module's verdict on the text, then what the bare host does after its
// check (no lookup, policy, limits, deadline, cancellation, audit or
// completion); toolgate's distance above this is the gate's own work
const moduleCheck = rt.compileSchema(callSchema);
const handlerOnly = async () => RESULT;
async function floorCall(text) {
  if (!moduleCheck.validate(text, { output: 'flag' }).valid) return { content: [{ type: 'text', text: 'invalid' }], isError: true };
  return { content: [{ type: 'text', text: await handlerOnly(JSON.parse(text)) }] };
}
if ((await floorCall(validArgs)).content[0].text !== RESULT) fail('floor', {});

// --- the SDK: McpServer with the equivalent zod shape, Client over InMemoryTransport
const mcp = new McpServer({ name: 'bench', version: '1.0.0' });
mcp.registerTool(NAME, { description: DESCRIPTION, inputSchema: z.fromJSONSchema(callSchema).shape },
  async () => ({ content: [{ type: 'text', text: RESULT }] }));
const [sa, ca] = InMemoryTransport.createLinkedPair();
await mcp.connect(sa);
const sdkClient = new Client({ name: 'bench', version: '1.0.0' });
await sdkClient.connect(ca);
{
  const r = await sdkClient.callTool({ name: NAME, arguments: JSON.parse(validArgs) });
  if (r.isError || r.content[0].text !== RESULT) fail('SDK', r);
}
// its tools/call request handler alone (Protocol's private handler map): zod
// request parse + McpServer's lookup, zod validation, handler; no JSON-RPC
const sdkCallHandler = mcp.server._requestHandlers.get('tools/call');
const sdkCallReq = () => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: NAME, arguments: JSON.parse(validArgs) } });
const sdkExtra = { signal: new AbortController().signal, requestId: 1, sendNotification: async () => {}, sendRequest: async () => {} };
{
  const r = await sdkCallHandler(sdkCallReq(), sdkExtra);
  if (r.isError || r.content[0].text !== RESULT) fail('SDK handler', r);
}

// --- toolgate as the gateway: serveTools(rt, SDK Server) + the same Client and transport
const gw = new Server({ name: 'toolgate', version: '1.0.0' }, { capabilities: { tools: {} } });
serveTools(rt, gw);
const [ga, gb] = InMemoryTransport.createLinkedPair();
await gw.connect(ga);
const gwClient = new Client({ name: 'bench', version: '1.0.0' });
await gwClient.connect(gb);
{
  const r = await gwClient.callTool({ name: NAME, arguments: JSON.parse(validArgs) });
  if (r.isError || r.content[0].text !== RESULT) fail('gateway', r);
}
const gwCallHandler = gw._requestHandlers.get('tools/call');

// interleaved: every ratio below is taken between batches milliseconds apart
const timed = await interleaveAsync([
  ['toolgate', () => rt.callTool(NAME, validArgs)],
  ['toolgate, JS value argument', () => rt.callTool(NAME, argValue)],
  ['toolgate under a 4-rule policy', () => rtPolicy.callTool(NAME, validArgs)],
  ['bare JS host', () => bareCall(NAME, validArgs)],
  ['module verdict + JSON.parse + await', () => floorCall(validArgs)],
  ['JSON.parse + await handler only', async () => { JSON.parse(validArgs); return RESULT; }],
  ['McpServer tools/call handler', () => sdkCallHandler(sdkCallReq(), sdkExtra)],
  ['serveTools tools/call handler', () => gwCallHandler(sdkCallReq(), sdkExtra)],
  ['SDK: McpServer + Client', () => sdkClient.callTool({ name: NAME, arguments: JSON.parse(validArgs) })],
  ['toolgate: serveTools + Client', () => gwClient.callTool({ name: NAME, arguments: JSON.parse(validArgs) })],
], { budgetMs: budget });
table(`one tool call, ${validArgs.length}-byte argument as JSON text, trivial handler (per call; ${timed.rounds} interleaved rounds)`, timed.rows({
  toolgate: 'await rt.callTool(name, jsonText)',
  'toolgate, JS value argument': 'rt.callTool(name, object): JSON.stringify first',
  'toolgate under a 4-rule policy': 'deny/ask by pattern, one rule reads an argument',
  'bare JS host': 'Map lookup, JSON.parse, Ajv2020 check, await handler',
  'module verdict + JSON.parse + await': 'the module checks the text, then as the bare host: no gate',
  'JSON.parse + await handler only': 'no check at all',
  'McpServer tools/call handler': 'JSON.parse + request handler, no transport',
  'serveTools tools/call handler': 'the same through toolgate',
  'SDK: McpServer + Client': 'InMemoryTransport, JSON-RPC, zod',
  'toolgate: serveTools + Client': 'the same Client and transport',
}), 'toolgate', timed);
// ratio() prints peer / toolgate from two times: the paired ratio is handed in as (ratio, 1)
const paired = (label, a, b, target) => ratio(label, timed.ratio(a, b), 1, target);
paired('SDK McpServer + Client / toolgate rt.callTool', 'SDK: McpServer + Client', 'toolgate', '>= 10x (issue: SDK 23.5 us per call)');
paired('McpServer tools/call handler / rt.callTool', 'McpServer tools/call handler', 'toolgate');
paired('SDK McpServer + Client / toolgate serveTools + Client', 'SDK: McpServer + Client', 'toolgate: serveTools + Client');
paired('toolgate rt.callTool / bare JS host', 'toolgate', 'bare JS host', '<= 1.5x (issue: bare minimum about 2 us)');
paired('toolgate under the policy / bare JS host', 'toolgate under a 4-rule policy', 'bare JS host');
paired('module verdict + JSON.parse + await / bare JS host', 'module verdict + JSON.parse + await', 'bare JS host');
paired('toolgate rt.callTool / module verdict + JSON.parse + await', 'toolgate', 'module verdict + JSON.parse + await');
rtPolicy.dispose();
await sdkClient.close();
await gwClient.close();

// --- memory across many calls: flat after warm-up
const CALLS = quick ? 20_000 : 200_000;
const WARM = 10_000;
for (let i = 0; i < WARM; i++) await rt.callTool(NAME, validArgs);
const size0 = rt.memorySize();
const used0 = rt.memoryUsed();
const t0 = performance.now();
let errors = 0;
for (let i = 0; i < CALLS; i++) if ((await rt.callTool(NAME, validArgs)).isError) errors++;
const dt = performance.now() - t0;
console.log(`\nwasm memory across ${CALLS.toLocaleString('en')} calls after ${WARM.toLocaleString('en')} warm-up calls (${(dt * 1e3 / CALLS).toFixed(2)} us per call, ${errors} errors)`);
console.log(`  linear memory: ${(size0 / 2 ** 20).toFixed(2)} MiB before, ${(rt.memorySize() / 2 ** 20).toFixed(2)} MiB after`);
console.log(`  used in the module: ${used0.toLocaleString('en')} bytes before, ${rt.memoryUsed().toLocaleString('en')} bytes after`);
rt.dispose();
