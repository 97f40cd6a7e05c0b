// registry.mjs - the registry beside @modelcontextprotocol/sdk's McpServer,
// in one process: importing 1,000 real-looking tools (schemas compiled),
// tools/list of them (in process and over the MCP wire), each provider
// format, and 10,000 tools. Run: node bench/registry.mjs   (--quick: short)
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createToolRuntime } from 'toolgate';
import { serveTools } from 'toolgate/mcp';
import { measure, once, table, fmtNs } from './harness.mjs';
import { measureAsync, onceAsync } from './lib-async.mjs';
import { header, median, ratio, figure } from './lib-report.mjs';
import { makeTools, sdkVersion } from './lib-tools.mjs';

const quick = process.argv.includes('--quick');
const budget = quick ? 100 : 400;
const reps = quick ? 2 : 5; // fresh registries per one-shot figure (median)
const N = 1000;
const FORMATS = ['mcp', 'anthropic', 'openai', 'openai-strict', 'gemini'];
const ms = (x) => x * 1e6; // ms -> ns for table()
const handler = async () => ({ content: [{ type: 'text', text: 'ok' }] });
const call = () => 'ok';

header('toolgate registry benchmark: import, tools/list and provider formats beside the MCP SDK McpServer');
const tools = makeTools(N);
const bytes = JSON.stringify(tools).length;
console.log(`${N} generated tools, ${(bytes / 1024).toFixed(0)} KB of descriptors (${(bytes / N).toFixed(0)} bytes each), e.g. ${tools[17].name}`);
console.log(`@modelcontextprotocol/sdk ${sdkVersion()}, zod ${z.config ? 'v4' : '?'} (z.fromJSONSchema for JSON Schema -> zod)`);

// ---------------------------------------------------------------- 1 import
// toolgate: each rep imports into a new runtime, then renders each format
// once (the "first" listing of that tool set); the last runtime is kept for
// the cached figures below. The first rep is the process's first runtime:
// its linear memory is fresh (a page fault per 4 KiB touched, most of its
// time here); every later one gets the memory a disposed runtime left
// (zeroed), as a host that makes runtimes per session or tenant would.
const tgImport = [];
const tgFirst = Object.fromEntries(FORMATS.map((f) => [f, []]));
let rt;
let imported;
let usedAfterImport = 0;
for (let r = 0; r < reps; r++) {
  rt?.dispose();
  rt = await createToolRuntime();
  tgImport.push(once(() => { imported = rt.importTools('gh', tools, { call }); }));
  usedAfterImport = rt.memoryUsed();
  for (const f of FORMATS) tgFirst[f].push(once(() => rt.listTools({ format: f })));
}
if (imported.registered.length !== N) throw new Error(`toolgate rejected ${N - imported.registered.length} tools: ${JSON.stringify(imported.rejected[0])}`);

// the SDK: JSON Schema -> zod (z.fromJSONSchema), then McpServer.registerTool
const convMs = [];
const regMs = [];
let shapes;
let server;
for (let r = 0; r < reps; r++) {
  convMs.push(once(() => { shapes = tools.map((t) => z.fromJSONSchema(t.inputSchema)); }));
  if (!shapes.every((s) => s instanceof z.ZodObject)) throw new Error('z.fromJSONSchema gave a non-object schema');
  server = new McpServer({ name: 'bench', version: '1.0.0' });
  regMs.push(once(() => {
    for (let i = 0; i < N; i++) server.registerTool(tools[i].name, { description: tools[i].description, inputSchema: shapes[i].shape }, handler);
  }));
}
const tgImportFresh = tgImport[0];
const tgImportMs = median(tgImport.slice(1));
const sdkReg = median(regMs);
const sdkConv = median(convMs);
table(`register ${N} tools (total; median of ${reps - 1} new toolgate runtimes after the first, ${reps} McpServers)`, [
  ['toolgate', ms(tgImportMs), "rt.importTools('gh', tools, { call }): checked, named, schemas compiled"],
  ['toolgate, first runtime', ms(tgImportFresh), "the process's first: fresh linear memory, code still tiering up"],
  ['McpServer.registerTool (zod ready)', ms(sdkReg), 'zod shapes built beforehand; nothing compiled'],
  ['McpServer: fromJSONSchema+register', ms(sdkConv + sdkReg), 'what a gateway holding JSON Schemas pays'],
  ['z.fromJSONSchema alone', ms(sdkConv)],
]);
figure(`toolgate: import ${N} tools with schemas compiled`, ms(tgImportMs), '< 20 ms');
figure(`toolgate: the same, the process's first runtime`, ms(tgImportFresh), '< 20 ms');
figure('toolgate: per tool', ms(tgImportMs) / N);
ratio('McpServer.registerTool (zod ready) / toolgate import', sdkReg, tgImportMs, 'issue measured the SDK at 104 ms');
ratio('z.fromJSONSchema + McpServer.registerTool / toolgate import', sdkConv + sdkReg, tgImportMs);
console.log(`  toolgate memory: ${(usedAfterImport / 2 ** 20).toFixed(1)} MiB used in the module after import (${(usedAfterImport / N / 1024).toFixed(1)} KiB per tool, ${(bytes / N / 1024).toFixed(1)} KiB of descriptor JSON each); ${(rt.memoryUsed() / 2 ** 20).toFixed(1)} MiB with the 5 formats rendered; linear memory ${(rt.memorySize() / 2 ** 20).toFixed(0)} MiB`);
// where the import time goes, apart: the request's JSON.stringify (done in
// JS by registerBatch) and compiling the same schemas one by one
{
  const request = tools.map((t, i) => ({ tool: t, handler: i + 1 }));
  const strMs = median(Array.from({ length: reps }, () => once(() => JSON.stringify({ source: 'gh', atomic: false, replace: true, tools: request }))));
  const compMs = median(Array.from({ length: reps }, () => once(() => { for (const t of tools) rt.compileSchema(t.inputSchema).dispose(); })));
  console.log(`  of which, measured apart: JSON.stringify of the import request ${strMs.toFixed(1)} ms; rt.compileSchema of the same ${N} schemas ${compMs.toFixed(1)} ms`);
  // a server's list_changed with nothing changed: every tool is read,
  // cleaned and digested again, and the live tools (programs and all) kept
  const again = median(Array.from({ length: reps }, () => once(() => {
    const res = rt.importTools('gh', tools, { call });
    if (res.unchanged.length !== N) throw new Error('the re-import changed tools');
  })));
  figure(`toolgate: re-import ${N} unchanged tools (list_changed)`, ms(again));
}

// ------------------------------------------------------------- 2 tools/list
const listOf = (res) => res.tools.length;
const tgCached = measure(() => rt.listTools({ format: 'mcp' }), { budgetMs: budget });
const tgText = rt.listTools({ format: 'mcp' });
if (listOf(tgText) !== N) throw new Error('toolgate listed the wrong number of tools');

// the SDK's handler alone: McpServer's tools/list request handler as the
// Protocol class stores it (server.server._requestHandlers, a private Map:
// request schema parse + the handler that turns every zod schema into JSON
// Schema on each call); no JSON-RPC, no transport.
const sdkHandler = server.server._requestHandlers.get('tools/list');
const listReq = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const sdkHandlerNs = sdkHandler ? await measureAsync(() => sdkHandler(listReq, {}), { budgetMs: budget, minSamples: 3 }) : null;
if (sdkHandler && listOf(await sdkHandler(listReq, {})) !== N) throw new Error('the SDK listed the wrong number of tools');

// the SDK over the wire: McpServer + Client over InMemoryTransport
const [sa, ca] = InMemoryTransport.createLinkedPair();
await server.connect(sa);
const sdkClient = new Client({ name: 'bench', version: '1.0.0' });
await sdkClient.connect(ca);
if (listOf(await sdkClient.listTools()) !== N) throw new Error('the SDK client listed the wrong number of tools');
const sdkWireNs = await measureAsync(() => sdkClient.listTools(), { budgetMs: budget, minSamples: 3 });

// toolgate over the wire: serveTools(rt, low-level Server) + Client, paged
async function gateway(pageSize) {
  const gw = new Server({ name: 'toolgate', version: '1.0.0' }, { capabilities: { tools: {} } });
  serveTools(rt, gw, { pageSize });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await gw.connect(a);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(b);
  const listAll = async () => {
    let n = 0;
    let cursor;
    do {
      const res = await client.listTools(cursor ? { cursor } : {});
      n += res.tools.length;
      cursor = res.nextCursor;
    } while (cursor);
    return n;
  };
  if ((await listAll()) !== N) throw new Error('the gateway listed the wrong number of tools');
  const handlerFn = gw._requestHandlers.get('tools/list');
  const handlerAll = async () => {
    let cursor;
    do cursor = (await handlerFn({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor ? { cursor } : {} }, {})).nextCursor;
    while (cursor);
  };
  const wire = await measureAsync(listAll, { budgetMs: budget, minSamples: 3 });
  const handlerNs = await measureAsync(handlerAll, { budgetMs: budget, minSamples: 3 });
  await client.close();
  return { wire, handlerNs };
}
const gw100 = await gateway(100);
const gw1000 = await gateway(N);

const tgFirstMcp = median(tgFirst.mcp);
table(`tools/list of ${N} tools (per complete listing)`, [
  ['toolgate', tgCached, 'rt.listTools({ format: "mcp" }), cached: parsed result objects'],
  ['toolgate, first listing', ms(tgFirstMcp), `renders and caches per snapshot; median of ${reps}`],
  ['McpServer handler alone', sdkHandlerNs, "server.server._requestHandlers.get('tools/list')"],
  ['serveTools handler, 10 pages', gw100.handlerNs, 'SDK Server request handler, pageSize 100 (default)'],
  ['serveTools handler, 1 page', gw1000.handlerNs, `pageSize ${N}`],
  ['SDK: McpServer + client.listTools', sdkWireNs, 'InMemoryTransport, JSON-RPC, result parse'],
  ['serveTools + client, 10 pages', gw100.wire, 'same SDK Client and transport'],
  ['serveTools + client, 1 page', gw1000.wire, `pageSize ${N}`],
]);
ratio('McpServer handler / rt.listTools (cached)', sdkHandlerNs, tgCached, '>= 100x (issue: SDK 64 ms per tools/list)');
ratio('McpServer handler / rt.listTools (first)', sdkHandlerNs, ms(tgFirstMcp));
ratio('McpServer handler / serveTools handler (10 pages)', sdkHandlerNs, gw100.handlerNs);
ratio('SDK client.listTools / toolgate serveTools, 10 pages', sdkWireNs, gw100.wire, '>= 100x');
ratio('SDK client.listTools / toolgate serveTools, 1 page', sdkWireNs, gw1000.wire, '>= 100x');
await sdkClient.close();

// --------------------------------------------------------- 3 provider formats
const fmtRows = [];
for (const f of FORMATS) {
  const cached = measure(() => rt.listTools({ format: f }), { budgetMs: quick ? 50 : 200 });
  const size = JSON.stringify(rt.listTools({ format: f }).tools).length;
  fmtRows.push([f, median(tgFirst[f]), cached, size, rt.listTools({ format: f }).report.length]);
}
console.log(`\nrender ${N} tools per provider format (toolgate; first = first listing of a fresh tool set, median of ${reps})`);
console.log(`  ${'format'.padEnd(16)} ${'first'.padStart(10)} ${'cached'.padStart(10)} ${'output'.padStart(10)}  report entries`);
for (const [f, first, cached, size, rep] of fmtRows) {
  console.log(`  ${f.padEnd(16)} ${fmtNs(ms(first)).padStart(10)} ${fmtNs(cached).padStart(10)} ${`${(size / 1024).toFixed(0)} KB`.padStart(10)}  ${rep}`);
}

// where the cached listing's time goes: the JSON text crossing out of the
// module and JSON.parse of it (the result is handed back as objects)
const listText = JSON.stringify(tgText);
const parseNs = measure(() => JSON.parse(listText), { budgetMs: quick ? 50 : 200 });
console.log(`  (of the cached mcp listing: JSON.parse of its ${(listText.length / 1024).toFixed(0)} KB alone takes ${fmtNs(parseNs)})`);
rt.dispose();

// ------------------------------------------------------------- 4 10,000 tools
const SOURCES = quick ? 3 : 10; // --quick: 3,000 tools (importing 10,000 takes ~15 s here)
console.log(`\n${SOURCES * N} tools: ${SOURCES} sources of ${N} (distinct tools), one runtime`);
{
  const lists = Array.from({ length: SOURCES }, (_, j) => makeTools(N, (j + 1) * N));
  // the runtime's default budget (64 MiB) holds about 2,000 of these tools; ask for the most the module allows
  const big = await createToolRuntime({ limits: { memoryBytes: 255 * 2 ** 20 } });
  let total = 0;
  let count = 0;
  let failure = null;
  const perSource = [];
  for (let j = 0; j < SOURCES && !failure; j++) {
    try {
      const t = once(() => { const res = big.importTools(`src${j}`, lists[j], { call }); count += res.registered.length; if (res.rejected.length) failure = `${res.rejected.length} rejected: ${res.rejected[0].code} ${res.rejected[0].message}`; });
      total += t;
      perSource.push(`${t.toFixed(0)}`);
    } catch (e) {
      failure = `source ${j + 1} failed: ${e.code ?? ''} ${e.message}`;
    }
  }
  console.log(`  toolgate import: ${count} tools in ${total.toFixed(0)} ms (${fmtNs(ms(total) / Math.max(1, count))} per tool); module memory ${(big.memoryUsed() / 2 ** 20).toFixed(0)} MiB used, linear memory ${(big.memorySize() / 2 ** 20).toFixed(0)} MiB`);
  console.log(`  per source of ${N}, in order (ms): ${perSource.join(', ')}`);
  if (failure) console.log(`  toolgate stopped: ${failure}`);
  if (count) {
    let first;
    try {
      first = once(() => big.listTools({ format: 'mcp' }));
      const cached = measure(() => big.listTools({ format: 'mcp' }), { budgetMs: quick ? 50 : 300 });
      const paged = measure(() => big.listTools({ format: 'mcp', limit: 100 }), { budgetMs: quick ? 50 : 200 });
      console.log(`  toolgate tools/list of ${count}: first ${fmtNs(ms(first))}, cached ${fmtNs(cached)}, one page of 100 (cached) ${fmtNs(paged)}`);
    } catch (e) {
      console.log(`  toolgate tools/list of ${count} failed: ${e.code ?? ''} ${e.message}`);
    }
  }
  big.dispose();
  if (!quick) {
    const all = lists.flat();
    const conv = once(() => { shapes = all.map((t) => z.fromJSONSchema(t.inputSchema)); });
    const s = new McpServer({ name: 'bench', version: '1.0.0' });
    const reg = once(() => { all.forEach((t, i) => s.registerTool(t.name, { description: t.description, inputSchema: shapes[i].shape }, handler)); });
    const h = s.server._requestHandlers.get('tools/list');
    const list = await onceAsync(() => h(listReq, {}));
    const list2 = await onceAsync(() => h(listReq, {}));
    console.log(`  SDK McpServer: z.fromJSONSchema ${conv.toFixed(0)} ms + registerTool ${reg.toFixed(0)} ms; tools/list handler ${list.toFixed(0)} ms, again ${list2.toFixed(0)} ms`);
  } else console.log('  SDK McpServer at 10,000 tools: skipped under --quick');
}
