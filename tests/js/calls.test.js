// calls.test.js - one call end to end through the real wasm module:
// registration, strict parsing, the required check, async handlers,
// handler failures and results shaped as MCP CallToolResult.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createToolRuntime, ToolgateError } from 'toolgate';

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const gateCode = (r) => r._meta?.['dev.toolgate/error']?.code;

test('a call reaches the handler with the validated arguments and returns a CallToolResult', async () => {
  const rt = await createToolRuntime();
  let seen;
  const reg = rt.registerTool(weather, async (args, info) => {
    seen = { args, info };
    await new Promise((r) => setTimeout(r, 1));
    return { city: args.city, tempC: 20 };
  });
  assert.equal(reg.name, 'get_weather');
  assert.match(reg.digest, /^[0-9a-f]{64}$/);
  const r = await rt.callTool('get_weather', '{ "city" : "Oslo" }');
  assert.deepEqual(seen.args, { city: 'Oslo' });
  assert.equal(typeof seen.info.callId, 'number');
  assert.deepEqual(r, {
    content: [{ type: 'text', text: '{"city":"Oslo","tempC":20}' }],
    structuredContent: { city: 'Oslo', tempC: 20 },
  });
  assert.equal(r.isError, undefined);
  rt.dispose();
});

test('arguments may be JSON text, UTF-8 bytes (any buffer or view) or a JS value', async () => {
  const rt = await createToolRuntime();
  rt.registerTool(weather, ({ city }) => city);
  const utf8 = new TextEncoder().encode('  {"city":"Zürich"}');
  const inner = utf8.subarray(2); // (a view that does not start at its buffer's start)
  const bytes = [inner, inner.slice().buffer, new DataView(utf8.buffer, 2), new Int8Array(utf8.buffer, 2)];
  for (const args of ['{"city":"Zürich"}', ...bytes, { city: 'Zürich' }]) {
    assert.deepEqual(await rt.callTool('get_weather', args), { content: [{ type: 'text', text: 'Zürich' }] }, Object.prototype.toString.call(args));
  }
  // bytes are JSON text: never a JS value written as JSON ("{}" for a buffer)
  const notJson = new TextEncoder().encode('this is not JSON').buffer;
  assert.equal(gateCode(await rt.callTool('get_weather', notJson)), 'invalid_json');
  const v = rt.compileSchema({ type: 'object' });
  assert.equal(v.validate(notJson).valid, false);
  assert.equal(v.validate(new DataView(notJson)).jsonError.code, 'invalid_json');
  assert.equal(rt.checkJSON(notJson).ok, false);
  assert.equal(rt.authorize({ tool: 'get_weather', args: inner.slice().buffer }).decision, 'allow');
  rt.dispose();
});

test('a host value JSON cannot hold is a ToolgateError, or one rejected entry of an import', async () => {
  const rt = await createToolRuntime();
  const cyclic = { name: 'loop', inputSchema: { type: 'object' } };
  cyclic.self = cyclic;
  const big = { name: 'big', inputSchema: { type: 'object' }, _meta: { n: 1n } };
  const fine = { name: 'fine', inputSchema: { type: 'object' } };
  const r = rt.importTools('up', [fine, big, cyclic], { call: () => 'x' });
  assert.deepEqual(r.registered.map((t) => t.name), ['mcp__up__fine']);
  assert.deepEqual(r.rejected.map((t) => [t.tool, t.code]), [['big', 'invalid_descriptor'], ['loop', 'invalid_descriptor']]);
  assert.match(r.rejected[0].message, /cannot be written as JSON/);
  const typed = (f) => assert.throws(f, (e) => e instanceof ToolgateError, String(f));
  typed(() => rt.registerBatch('plugin', [{ descriptor: fine, handler: () => 1 }, { descriptor: big, handler: () => 1 }]));
  typed(() => rt.registerBatch('plugin', [{ descriptor: fine, handler: () => 1, options: { timeoutMs: 1n } }]));
  typed(() => rt.configure({ toolsPerSource: 10n }));
  typed(() => rt.listTools({ principal: 1n }));
  typed(() => rt.authorize({ tool: 'fine', context: { tenant: 1n } }));
  assert.equal(rt.listTools().tools.length, 1); // (the atomic batches changed nothing)
  // and after a trap the import replays to the same registry
  assert.throws(() => rt._selftestTrap(), (e) => e.code === 'module_trap');
  assert.deepEqual(rt.listTools().tools.map((t) => t.name), ['mcp__up__fine']);
  rt.dispose();
});

test('results: strings, values, CallToolResults, undefined, and malformed results', async () => {
  const rt = await createToolRuntime();
  const returns = [];
  rt.registerTool({ name: 't', inputSchema: { type: 'object' } }, () => returns.shift());
  const call = () => rt.callTool('t', '{}');
  returns.push('plain', 42, [1, 2], undefined,
    { content: [{ type: 'text', text: 'x' }], isError: false, structuredContent: { a: 1 } },
    { content: 'not an array' }, { content: [{ type: 'image' }] }, 10n);
  assert.deepEqual(await call(), { content: [{ type: 'text', text: 'plain' }] });
  assert.deepEqual(await call(), { content: [{ type: 'text', text: '42' }] });
  assert.deepEqual(await call(), { content: [{ type: 'text', text: '[1,2]' }] });
  assert.deepEqual(await call(), { content: [] });
  assert.deepEqual(await call(), { content: [{ type: 'text', text: 'x' }], isError: false, structuredContent: { a: 1 } });
  // "content" that is not an array makes a value, not a malformed CallToolResult (a file tool's {path, content})
  assert.deepEqual(await call(), { content: [{ type: 'text', text: '{"content":"not an array"}' }], structuredContent: { content: 'not an array' } });
  let r = await call();
  assert.equal(gateCode(r), 'invalid_result');
  assert.match(r.content[0].text, /needs string "data" and "mimeType"/);
  r = await call(); // BigInt cannot be JSON
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /BigInt/);
  rt.dispose();
});

test('content blocks must have the members MCP requires (an embedded resource its uri and text or base64 blob)', async () => {
  const rt = await createToolRuntime();
  let next;
  rt.registerTool({ name: 't', inputSchema: { type: 'object' } }, () => next);
  const bad = [
    { type: 'resource', resource: {} },
    { type: 'resource', resource: { uri: 'file:///a.txt' } },
    { type: 'resource', resource: { uri: 7, text: 'hi' } },
    { type: 'resource', resource: { text: 'hi' } },
    { type: 'resource', resource: { uri: 'u', blob: 'not base64!' } },
    { type: 'resource', resource: { uri: 'u', text: 'x', mimeType: 1 } },
    { type: 'image', data: '%%%', mimeType: 'image/png' },
    { type: 'text', text: 'x', _meta: [] },
  ];
  for (const block of bad) {
    next = { content: [{ type: 'text', text: 'fine' }, block] };
    const r = await rt.callTool('t', {});
    assert.equal(gateCode(r), 'invalid_result', JSON.stringify(block));
    assert.match(r.content[0].text, /malformed CallToolResult/);
  }
  const good = [
    { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hi' } },
    { type: 'resource', resource: { uri: 'file:///a.bin', blob: Buffer.from([0, 1, 2]).toString('base64') } },
    { type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' },
    { type: 'resource_link', uri: 'file:///a', name: 'a' },
  ];
  for (const block of good) {
    next = { content: [block] };
    assert.deepEqual(await rt.callTool('t', {}), next);
  }
  rt.dispose();
});

test('content block annotations are checked as MCP says, as a client SDK reads them; unknown members are kept', async () => {
  const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const rt = await createToolRuntime();
  let next;
  rt.registerTool({ name: 't', inputSchema: { type: 'object' } }, () => next);
  const blocks = [
    { type: 'text', text: 'x' },
    { type: 'image', data: 'QUJD', mimeType: 'image/png' },
    { type: 'audio', data: 'QUJD', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///a', name: 'a' },
    { type: 'resource', resource: { uri: 'file:///a', text: 'hi' } },
  ];
  const bad = [
    [[], /"annotations" must be an object/], [null, /"annotations" must be an object/],
    [{ audience: 'user' }, /"annotations\.audience"/], [{ audience: ['user', 'system'] }, /"annotations\.audience"/],
    [{ priority: 1.5 }, /"annotations\.priority"/], [{ priority: -0.01 }, /"annotations\.priority"/],
    [{ priority: '1' }, /"annotations\.priority"/],
    [{ lastModified: 'yesterday' }, /"annotations\.lastModified"/], [{ lastModified: 1736694058 }, /"annotations\.lastModified"/],
    [{ lastModified: '2025-01-12T15:00' }, /"annotations\.lastModified"/],
    [{ lastModified: '2025-01-12t15:00:58z' }, /"annotations\.lastModified"/],
    [{ lastModified: '2016-12-31T23:59:60Z' }, /"annotations\.lastModified"/],
  ];
  const good = [{}, { audience: [] }, { audience: ['assistant', 'user'], priority: 0 }, { priority: 1 },
    { lastModified: '2025-01-12T15:00:58Z' }, { lastModified: '2025-01-12T15:00:58.5-08:00', priority: 0.3 },
    { priority: 0.5, 'x-rank': [1, 2], title: 7 }];
  for (const block of blocks) {
    for (const [annotations, field] of bad) {
      next = { content: [{ type: 'text', text: 'fine' }, { ...block, annotations }] };
      // what a client's SDK would do with it: refuse the whole result
      assert.equal(CallToolResultSchema.safeParse(next).success, false, JSON.stringify(next));
      const r = await rt.callTool('t', {});
      assert.equal(gateCode(r), 'invalid_result', JSON.stringify(next));
      assert.match(r.content[0].text, /malformed CallToolResult: content\[1\]: /);
      assert.match(r.content[0].text, field);
    }
    for (const annotations of good) {
      next = { content: [{ ...block, annotations }] };
      assert.equal(CallToolResultSchema.safeParse(next).success, true, JSON.stringify(next));
      assert.deepEqual(await rt.callTool('t', {}), next); // (kept as they were, unknown members too)
    }
  }
  rt.dispose();
});

test('a handler that throws or rejects yields isError and the runtime keeps working', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'boom', inputSchema: { type: 'object' } }, () => { throw new Error('disk full'); });
  rt.registerTool({ name: 'reject', inputSchema: { type: 'object' } }, async () => { throw 'plain string'; });
  rt.registerTool(weather, ({ city }) => city);
  const a = await rt.callTool('boom', '{}');
  assert.deepEqual(a, { content: [{ type: 'text', text: 'Tool "boom" failed: disk full' }], isError: true });
  assert.doesNotMatch(a.content[0].text, /at .*\.js/); // no stack trace unless asked
  const b = await rt.callTool('reject', '{}');
  assert.equal(b.isError, true);
  assert.match(b.content[0].text, /plain string/);
  assert.deepEqual(await rt.callTool('get_weather', '{"city":"Rome"}'), { content: [{ type: 'text', text: 'Rome' }] });
  rt.dispose();
});

test('a handler that calls tools from its synchronous part, each call inside the last, is stopped at 32 deep with a result, not a stack overflow', async () => {
  // with pendingCalls raised, a handler calling its own tool before it
  // returns nested until the JS stack ran out: a RangeError thrown mid-call,
  // read as a module trap, and a callTool promise rejected instead of answered
  const rt = await createToolRuntime({ limits: { pendingCalls: 100_000 } });
  const inner = [];
  let depth = 0, deepest = 0;
  rt.registerTool({ name: 'again', inputSchema: { type: 'object' } }, () => {
    deepest = Math.max(deepest, ++depth);
    inner.push(rt.callTool('again', {}));
    depth--;
    return 'ok';
  });
  assert.deepEqual(await rt.callTool('again', {}), { content: [{ type: 'text', text: 'ok' }] });
  const results = await Promise.all(inner); // (none rejects)
  assert.equal(deepest, 32);
  // (the deepest call's promise is pushed first: each push follows its call)
  assert.deepEqual(results.map((r) => gateCode(r) ?? r.content[0].text), ['limit_reached', ...Array(31).fill('ok')]);
  assert.match(results[0].content[0].text, /inside 32 handlers/);
  // nothing was lost: no trap, and calls run on
  assert.equal(rt.restarts, 0);
  rt.registerTool(weather, ({ city }) => city);
  assert.deepEqual(await rt.callTool('get_weather', '{"city":"Oslo"}'), { content: [{ type: 'text', text: 'Oslo' }] });
  rt.dispose();
});

test('handler error text is bounded', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'loud', inputSchema: { type: 'object' } }, () => { throw new Error('é'.repeat(100000)); });
  const r = await rt.callTool('loud', '{}');
  assert.ok(r.content[0].text.length < 4200, `length ${r.content[0].text.length}`);
  assert.match(r.content[0].text, /\[truncated\]$/);
  assert.doesNotMatch(r.content[0].text, /\uFFFD/); // cut on a code point boundary
  rt.dispose();
});

test('an unknown tool is an error value with a stable code', async () => {
  const rt = await createToolRuntime();
  const r = await rt.callTool('nope', '{}');
  assert.equal(r.isError, true);
  assert.equal(gateCode(r), 'unknown_tool');
  assert.match(r.content[0].text, /Unknown tool "nope"/);
  rt.dispose();
});

test('invalid JSON, duplicate keys, non-objects and missing required properties are refused before the handler', async () => {
  const rt = await createToolRuntime();
  let calls = 0;
  rt.registerTool(weather, () => { calls++; return 'ran'; });
  const cases = [
    ['{"city":"Oslo",}', 'invalid_json', /found '}' at offset 15/],
    ['{"city":"a","city":"b"}', 'invalid_json', /duplicate key "city"/],
    ['{"city":"\\ud800"}', 'invalid_json', /surrogate/],
    [new Uint8Array([0x7b, 0x22, 0x63, 0x69, 0x74, 0x79, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 'invalid_json', /UTF-8/],
    ['{"city":01}', 'invalid_json', /leading zeros/],
    ['[]', 'invalid_arguments', /expected an object/],
    ['{}', 'invalid_arguments', /missing required property "city"/],
    ['', 'invalid_json', /empty input/],
  ];
  for (const [args, code, re] of cases) {
    const r = await rt.callTool('get_weather', args);
    assert.equal(gateCode(r), code, String(args));
    assert.match(r.content[0].text, re);
  }
  assert.equal(calls, 0);
  rt.dispose();
});

test('own properties only: "__proto__" and "constructor" are ordinary keys', async () => {
  const rt = await createToolRuntime();
  let seen;
  rt.registerTool({ name: 'p', inputSchema: { type: 'object', required: ['constructor'] } }, (a) => { seen = a; return 'ok'; });
  assert.equal(gateCode(await rt.callTool('p', '{}')), 'invalid_arguments');
  assert.equal(gateCode(await rt.callTool('p', '{"__proto__":{"constructor":1}}')), 'invalid_arguments');
  const r = await rt.callTool('p', '{"constructor":1,"__proto__":{"x":1}}');
  assert.equal(r.isError, undefined);
  assert.ok(Object.hasOwn(seen, '__proto__'));
  assert.equal(Object.getPrototypeOf(seen), Object.prototype);
  rt.dispose();
});

test('10,000,000-deep nesting is refused promptly, not by a stack overflow', async () => {
  const rt = await createToolRuntime({ limits: { argsBytes: 20_000_000 } });
  rt.registerTool(weather, () => 'ran');
  const r = await rt.callTool('get_weather', '['.repeat(10_000_000));
  assert.equal(gateCode(r), 'too_large');
  assert.match(r.content[0].text, /nesting deeper than the limit of 256/);
  rt.dispose();
});

test('oversized arguments are refused by size before parsing', async () => {
  const rt = await createToolRuntime({ limits: { argsBytes: 1024 } });
  rt.registerTool(weather, () => 'ran');
  const r = await rt.callTool('get_weather', JSON.stringify({ city: 'x'.repeat(2000) }));
  assert.equal(gateCode(r), 'too_large');
  assert.match(r.content[0].text, /over the limit of 1024/);
  rt.dispose();
});

test('names are mapped to what every provider accepts', async () => {
  const rt = await createToolRuntime();
  assert.equal(rt.registerTool({ name: 'files.read', inputSchema: { type: 'object' } }, () => 'x').name, 'files_read');
  assert.equal(rt.registerTool({ name: 'has space', inputSchema: { type: 'object' } }, () => 'x').name, 'has_space');
  assert.deepEqual(await rt.callTool('files_read', '{}'), { content: [{ type: 'text', text: 'x' }] });
  rt.dispose();
});

test('registration errors throw ToolgateError with a stable code and leave the registry unchanged', async () => {
  const rt = await createToolRuntime();
  rt.registerTool(weather, () => 'first');
  const bad = [
    [weather, 'duplicate_tool'],
    [{ name: 'get-weather', inputSchema: { type: 'object' } }, 'name_collision'],
    [{ name: 'GET_WEATHER', inputSchema: { type: 'object' } }, 'name_collision'],
    [{ name: 'bad_schema', inputSchema: { type: 'object', properties: { a: { type: 'int' } } } }, 'invalid_schema'],
    [{ name: 'bad_regex', inputSchema: { type: 'object', properties: { a: { pattern: '(a)\\1' } } } }, 'invalid_schema'],
    [{ name: 'x'.repeat(129), inputSchema: { type: 'object' } }, 'invalid_descriptor'],
    [{ name: 'noschema' }, 'invalid_descriptor'],
    [{ name: 'arr', inputSchema: { type: 'array' } }, 'invalid_descriptor'],
    [{ name: 'task', inputSchema: { type: 'object' }, execution: { taskSupport: 'sometimes' } }, 'invalid_descriptor'],
    [{ name: 'task2', inputSchema: { type: 'object' }, execution: { taskSupport: true } }, 'invalid_descriptor'],
    ['{"name":"dup","name":"dup2","inputSchema":{"type":"object"}}', 'invalid_json'],
    ['{"name":', 'invalid_json'],
  ];
  for (const [d, code] of bad) {
    assert.throws(() => rt.registerTool(d, () => 'x'), (e) => e instanceof ToolgateError && e.code === code, JSON.stringify(d));
  }
  assert.deepEqual(await rt.callTool('get_weather', '{"city":"a"}'), { content: [{ type: 'text', text: 'first' }] });
  rt.dispose();
});

test('running out of the memory budget is an error, and the runtime keeps working', async () => {
  const rt = await createToolRuntime({ limits: { memoryBytes: 2 * 1024 * 1024 } });
  rt.registerTool(weather, () => 'ok');
  const huge = { name: 'huge', inputSchema: { type: 'object', properties: {} } };
  for (let i = 0; i < 12000; i++) huge.inputSchema.properties[`p${i}`] = { type: 'string', description: 'x'.repeat(20) };
  assert.throws(() => rt.registerTool(huge, () => 'x'), (e) => e.code === 'out_of_memory');
  const pad = JSON.stringify({ city: 'c', pad: Array(30000).fill({ a: [1, 2, 3] }) });
  // checked in one pass as they are read, these arguments need no memory of their own
  assert.deepEqual(await rt.callTool('get_weather', pad), { content: [{ type: 'text', text: 'ok' }] });
  // a tree of them does not fit (a duplicate key sends them to the tree reader)
  const r = await rt.callTool('get_weather', pad.slice(0, -1) + ',"city":"d"}');
  assert.equal(gateCode(r), 'out_of_memory');
  assert.deepEqual(await rt.callTool('get_weather', '{"city":"still here"}'), { content: [{ type: 'text', text: 'ok' }] });
  rt.dispose();
});

test('memory stays flat over many calls', async () => {
  const rt = await createToolRuntime();
  rt.registerTool(weather, ({ city }) => ({ city }));
  const args = JSON.stringify({ city: 'Lisbon', note: 'x'.repeat(150) });
  for (let i = 0; i < 200; i++) await rt.callTool('get_weather', args);
  const used = rt.memoryUsed();
  const size = rt.memorySize();
  for (let i = 0; i < 5000; i++) await rt.callTool('get_weather', args);
  assert.equal(rt.memoryUsed(), used);
  assert.equal(rt.memorySize(), size);
  rt.dispose();
});

test('concurrent async calls complete independently', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'sleep', inputSchema: { type: 'object', required: ['ms'] } },
    async ({ ms }) => { await new Promise((r) => setTimeout(r, ms)); return `slept ${ms}`; });
  const results = await Promise.all([30, 5, 15].map((ms) => rt.callTool('sleep', { ms })));
  assert.deepEqual(results.map((r) => r.content[0].text), ['slept 30', 'slept 5', 'slept 15']);
  rt.dispose();
});

test('argument bytes whose buffer was detached: callTool answers invalid_json, authorize throws it; nothing runs', async () => {
  const rt = await createToolRuntime();
  let ran = 0;
  rt.registerTool(weather, () => { ran++; return 'ran'; });
  const detach = (buffer) => structuredClone(buffer, { transfer: [buffer] });
  const forms = {
    Uint8Array: () => { const u = new TextEncoder().encode('{"city":"x"}'); detach(u.buffer); return u; },
    DataView: () => { const u = new TextEncoder().encode('{"city":"x"}'); const d = new DataView(u.buffer); detach(u.buffer); return d; },
    Int16Array: () => { const a = new Int16Array(6); detach(a.buffer); return a; },
    ArrayBuffer: () => { const b = new TextEncoder().encode('{"city":"x"}').buffer; detach(b); return b; },
  };
  for (const [kind, make] of Object.entries(forms)) {
    const r = await rt.callTool('get_weather', make());
    assert.equal(gateCode(r), 'invalid_json', kind);
    assert.match(r.content[0].text, /detached/);
    assert.throws(() => rt.authorize({ tool: 'get_weather', args: make() }), (e) => e instanceof ToolgateError && e.code === 'invalid_json', kind);
  }
  assert.equal(ran, 0);
  // and the runtime goes on
  assert.equal((await rt.callTool('get_weather', new TextEncoder().encode('{"city":"y"}'))).content[0].text, 'ran');
  rt.dispose();
});

test('limits: 0 (or omitted) is the default on both sides of the module; a negative or non-number is refused up front', async () => {
  for (const limits of [{ argsBytes: 0 }, { resultBytes: 0 }, { argsBytes: 0, resultBytes: 0, timeoutMs: 0, memoryBytes: 0 }, { argsBytes: null }]) {
    const rt = await createToolRuntime({ limits });
    rt.registerTool(weather, ({ city }) => city.repeat(1000));
    const r = await rt.callTool('get_weather', { city: 'Oslo' });
    assert.equal(r.isError, undefined, `${JSON.stringify(limits)}: ${r.content[0].text}`);
    // the defaults hold: 1 MiB of arguments
    assert.equal(gateCode(await rt.callTool('get_weather', { city: 'x'.repeat(1 << 20) })), 'too_large');
    rt.dispose();
  }
  for (const limits of [{ argsBytes: -1 }, { resultBytes: -4096 }, { tools: NaN }]) {
    await assert.rejects(createToolRuntime({ limits }), RangeError, JSON.stringify(limits));
  }
  for (const limits of [{ argsBytes: '1024' }, { timeoutMs: 10n }, { jsonDepth: {} }]) {
    await assert.rejects(createToolRuntime({ limits }), TypeError, String(Object.values(limits)[0]));
  }
});

test('a misspelled runtime option or limit is refused, never ignored (an ignored policy or limit leaves the runtime open)', async () => {
  for (const options of [{ polcy: { version: 1 } }, { limit: { argsBytes: 10 } }, { approvalkey: 'k'.repeat(32) }]) {
    await assert.rejects(createToolRuntime(options), (e) => e instanceof TypeError && e.message.includes(`"${Object.keys(options)[0]}"`), JSON.stringify(options));
  }
  for (const limits of [{ argBytes: 10 }, { maxTools: 5 }]) {
    await assert.rejects(createToolRuntime({ limits }), (e) => e instanceof TypeError && e.message.includes(`"${Object.keys(limits)[0]}"`), JSON.stringify(limits));
  }
  await assert.rejects(createToolRuntime({ limits: 5 }), TypeError);
  // every documented one is taken
  const rt = await createToolRuntime({
    exposeStack: false, clock: Date.now, capabilities: ['x'], descriptionBytes: 2048, schemaBytes: 1 << 16, toolsPerSource: 10, formats: 'assert',
    limits: { memoryBytes: 0, jsonDepth: 64, argsBytes: 1 << 16, descriptorBytes: 1 << 16, resultBytes: 1 << 16, tools: 100, pendingCalls: 10, timeoutMs: 1000 },
  });
  rt.dispose();
});

test('a clock that answers with what is not a number (a BigInt) reads as NaN: callTool still answers', async () => {
  for (const clock of [() => process.hrtime.bigint() / 1_000_000n, () => '1000', () => undefined]) {
    const rt = await createToolRuntime({ clock });
    rt.registerTool(weather, ({ city }) => city);
    const r = await rt.callTool('get_weather', { city: 'Oslo' });
    assert.equal(typeof r, 'object');
    assert.ok(Array.isArray(r.content), JSON.stringify(r));
    rt.dispose();
  }
});
