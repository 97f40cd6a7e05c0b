// hostile.test.js - untrusted input at its worst, each with a bounded,
// clear error: a 1 GB argument, a hostile regex, a $ref bomb, invalid UTF-8,
// duplicate keys, deep nesting, and a runtime where eval is forbidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createToolRuntime, ToolgateError } from 'toolgate';
import { repoRoot } from './helpers.js';

const obj = (properties = {}, required = []) => ({ type: 'object', properties, required });
const gateCode = (r) => r._meta?.['dev.toolgate/error']?.code;

test('a 1 GB argument (bytes) and a 512 MB string are refused by size, promptly, before any copy', async () => {
  const rt = await createToolRuntime();
  let ran = false;
  rt.registerTool({ name: 'echo', inputSchema: obj() }, () => { ran = true; });
  const gig = new Uint8Array(1 << 30);
  let t0 = performance.now();
  let r = await rt.callTool('echo', gig);
  assert.equal(gateCode(r), 'too_large');
  assert.ok(performance.now() - t0 < 100);
  const huge = '"' + 'x'.repeat((1 << 29) - 64) + '"';
  t0 = performance.now();
  r = await rt.callTool('echo', huge);
  assert.equal(gateCode(r), 'too_large');
  assert.ok(performance.now() - t0 < 100);
  assert.equal(ran, false);
  assert.ok(rt.memorySize() < 64 << 20, `module memory ${rt.memorySize()}`);
  const v = rt.compileSchema({ type: 'string' });
  assert.equal(v.validate(huge).valid, false);
  assert.match(v.validate(huge).jsonError.message, /over the limit/);
  rt.dispose();
});

test('a hostile regex cannot stall the host: ^(a+)+$ against 100,000 "a"s and "!"', async () => {
  const rt = await createToolRuntime();
  const v = rt.compileSchema({ type: 'string', pattern: '^(a+)+$' });
  const t0 = performance.now();
  const r = v.validate(JSON.stringify('a'.repeat(100_000) + '!'));
  const ms = performance.now() - t0;
  assert.equal(r.valid, false);
  assert.ok(ms < 250, `${ms} ms`);
  assert.throws(() => rt.compileSchema({ type: 'string', pattern: '(?<=a)b' }), (e) => e.code === 'invalid_schema' && /lookbehind/.test(e.message));
  assert.throws(() => rt.compileSchema({ type: 'string', pattern: '(a)\\1' }), (e) => e.code === 'invalid_schema' && /backreference/.test(e.message));
  rt.dispose();
});

test('uniqueItems over 60,000 model-written items stays within the step budget (no quadratic probing)', async () => {
  // Every probe of the uniqueness table is a step of the 10^7 budget, so a
  // hash that put integers (whose doubles end in zero bits) in one bucket
  // fails here with too_large instead of taking seconds (120,000 took 15 s)
  const rt = await createToolRuntime();
  const v = rt.compileSchema({ type: 'array', uniqueItems: true });
  const n = 60_000;
  const ints = Array.from({ length: n }, (_, i) => i);
  for (const [label, items] of [['integers', ints], ['halves', ints.map((i) => i + 0.5)], ['[i]', ints.map((i) => [i])],
    ['{k: i}', ints.map((i) => ({ k: i }))], ['strings', ints.map((i) => `s${i}`)], ['2^a x odd', ints.map((i) => 2 ** (i % 50) * (2 * Math.floor(i / 50) + 1))]]) {
    assert.deepEqual(v.validate(JSON.stringify(items)), { valid: true, errors: [] }, label);
    const dup = JSON.stringify([...items, items[n >> 1]]);
    const r = v.validate(dup, { maxErrors: 1 });
    assert.equal(r.valid, false, label);
    assert.match(r.errors[0].message, new RegExp(`items ${n >> 1} and ${n} are equal`), label);
  }
  rt.dispose();
});

test('a 50,000-value enum under items against a 50,000-item argument stays within the step budget (enum values indexed)', async () => {
  // An upstream's enum of n values and a model's n items was n^2/2
  // comparisons (50,000 of each took 6.4 s, 100,000 took 15 s); each one
  // of a long enum scanned is now a step of the 10^7 budget, so without
  // the index this fails with too_large instead of taking seconds
  const rt = await createToolRuntime();
  const n = 50_000;
  const ints = Array.from({ length: n }, (_, i) => i);
  for (const [label, values] of [['strings', ints.map((i) => `v${i}`)], ['integers', ints], ['{k: i}', ints.map((i) => ({ k: i }))]]) {
    const v = rt.compileSchema({ type: 'array', items: { enum: values } });
    const items = [...values].reverse();
    assert.deepEqual(v.validate(JSON.stringify(items)), { valid: true, errors: [] }, label);
    const stray = JSON.stringify([...items, label === 'strings' ? 'v-1' : label === 'integers' ? -1 : { k: -1 }]);
    const r = v.validate(stray, { maxErrors: 1 });
    assert.equal(r.jsonError, undefined, label);
    assert.equal(r.valid, false, label);
    assert.equal(r.errors[0].instanceLocation, `/${n}`, label);
    assert.match(r.errors[0].message, /^expected one of /, label);
    v.dispose();
  }
  rt.dispose();
});

test('a pattern whose linear-time match is still huge ends in a bounded error, not minutes of work', async () => {
  // 3,000 NFA states over 300,000 characters is 10^9 steps of a linear-time
  // matcher (it took a minute); its steps count against the evaluation's budget
  const rt = await createToolRuntime();
  let ran = false;
  rt.registerTool({ name: 'q', inputSchema: obj({ q: { type: 'string', pattern: '[\\s\\S]{0,3000}!' } }) }, () => { ran = true; return 'ran'; });
  const r = await rt.callTool('q', JSON.stringify({ q: 'a'.repeat(300_000) }));
  assert.equal(gateCode(r), 'too_large');
  assert.match(r.content[0].text, /within the limits/);
  assert.equal(ran, false);
  const v = rt.compileSchema({ type: 'string', pattern: '(?:.{100}){30}!' }).validate(JSON.stringify('b'.repeat(100_000)));
  assert.equal(v.valid, false);
  assert.match(v.jsonError.message, /evaluation steps/);
  // what patterns usually are still answers over long text
  assert.equal(rt.compileSchema({ type: 'string', pattern: '^[a-z]+$' }).validate(JSON.stringify('b'.repeat(500_000))).valid, true);
  assert.equal(rt.compileSchema({ type: 'string', pattern: '[\\s\\S]{0,3000}!' }).validate(JSON.stringify('a'.repeat(2000) + '!')).valid, true);
  rt.dispose();
});

test('a schema whose patterns together pass the per-schema regex budget is rejected alone, invalid_schema, with the limit named', async () => {
  // 3,000 patterns like .{9000}, each within the per-pattern limits, made the
  // whole importTools throw out_of_memory (400 held 43 MiB).
  const rt = await createToolRuntime();
  const counted = {};
  for (let i = 0; i < 3000; i++) counted['p' + i] = { pattern: `.{${9000 + (i % 900)}}` };
  const u0 = rt.memoryUsed();
  const r = rt.importTools('up', [{ name: 'big', inputSchema: obj(counted) }, { name: 'ok', inputSchema: obj() }], { call: () => 1 });
  assert.deepEqual(r.registered.map((t) => t.name ?? t), ['mcp__up__ok']);
  assert.equal(r.rejected.length, 1);
  assert.equal(r.rejected[0].code, 'invalid_schema');
  assert.match(r.rejected[0].message, /\/pattern: the schema's patterns need \d+ NFA states together, over the limit of 200000 a schema/);
  assert.ok(rt.memoryUsed() - u0 < 8 << 20, `held ${rt.memoryUsed() - u0} bytes`);
  // class ranges: [\p{Gr_Base}] keeps 904, so 145 of them pass 131,072
  const classes = {};
  for (let i = 0; i < 145; i++) classes['p' + i] = { pattern: '[\\p{Gr_Base}]' + i };
  const c = rt.importTools('cls', [{ name: 'c', inputSchema: obj(classes) }], { call: () => 1 });
  assert.equal(c.rejected[0]?.code, 'invalid_schema');
  assert.match(c.rejected[0].message, /class ranges together, over the limit of 131072 a schema/);
  rt.dispose();
});

test('a $ref bomb is refused at compile time or evaluated without expansion', async () => {
  const rt = await createToolRuntime();
  const defs = { a0: { type: 'string' } };
  for (let i = 1; i <= 40; i++) defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i - 1}` }, { $ref: `#/$defs/a${i - 1}` }] };
  const t0 = performance.now();
  let outcome;
  try {
    const v = rt.compileSchema({ $defs: defs, $ref: '#/$defs/a40' });
    outcome = v.validate('1').valid ? 'valid?!' : 'rejected instance';
  } catch (e) {
    outcome = e.code;
  }
  assert.ok(['invalid_schema', 'rejected instance'].includes(outcome), outcome);
  assert.ok(performance.now() - t0 < 1000);
  rt.dispose();
});

test('invalid UTF-8, lone surrogates, duplicate keys and 10,000-deep nesting are refused with offsets', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'echo', inputSchema: obj() }, () => 'ran');
  const cases = [
    [new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), /invalid UTF-8 in string at offset 6/],
    ['{"a":"\\udc00"}', /lone low surrogate escape at offset 6/],
    ['{"cmd":"ls","cmd":"rm -rf /"}', /duplicate key "cmd"/],
    ['{"a":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}', /nesting deeper than the limit of 256 at offset 260/],
  ];
  for (const [args, re] of cases) {
    const r = await rt.callTool('echo', args);
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, re);
  }
  rt.dispose();
});

test('a JS string holding a lone surrogate is refused at the boundary, never judged as U+FFFD', async () => {
  const rt = await createToolRuntime();
  const got = [];
  rt.registerTool({ name: 'echo', inputSchema: obj({ a: { type: 'string', maxLength: 1 } }) }, (args) => { got.push(args); return 'ran'; });
  const text = '{"a":"\ud800"}'; // a raw lone surrogate in the string, not an escape
  const r = await rt.callTool('echo', text);
  assert.equal(r.isError, true);
  assert.equal(r._meta['dev.toolgate/error'].code, 'invalid_json');
  assert.match(r.content[0].text, /lone surrogate/);
  assert.deepEqual(got, []);
  // the validator: not "equal to U+FFFD", but not JSON text at all, with the byte offset
  const v = rt.compileSchema({ const: '\ufffd' });
  assert.deepEqual(v.validate('"\ud800"'), { valid: false, errors: [], jsonError: { code: 'invalid_json', message: 'the text holds a lone surrogate (a JS string that is not Unicode text), so it cannot be UTF-8 JSON', offset: 1 } });
  assert.equal(v.validate('"\ud800"'.replace('\ud800', '\ufffd')).valid, true);
  assert.deepEqual(rt.checkJSON('["é", "\udc00"]').offset, 8); // after 2 bytes of é
  // a pair is fine, and so is every escape the strict reader allows
  assert.equal((await rt.callTool('echo', '{"a":"\ud83d\ude00"}')).content[0].text, 'ran');
  assert.deepEqual(got, [{ a: '\u{1F600}' }]);
  rt.dispose();
});

test('host mistakes come back as ToolgateErrors or values with codes, not stray TypeErrors', async () => {
  const rt = await createToolRuntime();
  const code = (c) => (e) => e instanceof ToolgateError && e.code === c;
  assert.throws(() => rt.compileSchema(undefined), code('invalid_schema'));
  assert.throws(() => rt.compileSchema({ n: 10n }), code('invalid_schema'));
  assert.throws(() => rt.registerTool(undefined, () => 1), code('invalid_descriptor'));
  assert.throws(() => rt.registerTool({ name: 't', inputSchema: obj() }, () => 1, { timeoutMs: 10n }), code('invalid_request'));
  assert.throws(() => rt.setPolicy(undefined), code('invalid_policy'));
  const cyclic = {};
  cyclic.self = cyclic;
  assert.match(rt.compileSchema({}).validate(10n).jsonError.message, /cannot be written as JSON/);
  assert.match(rt.compileSchema({}).validate(cyclic).jsonError.message, /cannot be written as JSON/);
  assert.deepEqual(rt.checkJSON(undefined), { ok: false, code: 'invalid_request', message: 'checkJSON takes JSON text or its UTF-8 bytes' });
  assert.throws(() => rt.importTools('s', null, { call: () => 1 }), TypeError);
  // and the runtime still works
  rt.registerTool({ name: 'ok', inputSchema: obj() }, () => 'fine');
  assert.equal((await rt.callTool('ok', '{}')).content[0].text, 'fine');
  rt.dispose();
});

test('everything works where code generation from strings is forbidden (as in edge workers)', () => {
  const script = `
    import { createToolRuntime } from 'toolgate';
    let evalBlocked = false;
    try { new Function('return 1'); } catch { evalBlocked = true; }
    const rt = await createToolRuntime();
    const v = rt.compileSchema({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    rt.registerTool({ name: 't', inputSchema: { type: 'object', required: ['n'] } }, ({ n }) => String(n * 2));
    const r = await rt.callTool('t', '{"n":21}');
    console.log(JSON.stringify({ evalBlocked, valid: v.validate('{"n":1}').valid, invalid: v.validate('{"n":"1"}').valid, call: r.content[0].text }));
  `;
  const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { evalBlocked: true, valid: true, invalid: false, call: '42' });
});

test('an instance the module has no memory for is answered, not thrown: jsonError too_large', async () => {
  // (past the module's 256 MiB of linear memory, whatever argsBytes allows)
  const rt = await createToolRuntime({ limits: { argsBytes: 400 << 20 } });
  const v = rt.compileSchema({ type: 'string' });
  const r = v.validate(`"${'x'.repeat(280 << 20)}"`);
  assert.equal(r.valid, false);
  assert.equal(r.jsonError?.code, 'too_large', JSON.stringify(r).slice(0, 300));
  assert.equal(v.validate('"ok"').valid, true, 'and the runtime goes on');
  rt.dispose();
});

test('one hostile instance\'s many long errors do not hold the module\'s memory after the call', async () => {
  const rt = await createToolRuntime();
  let inst = '{' + Array.from({ length: 1000 }, (_, i) => `"p${i}":1`).join(',') + '}';
  for (let i = 0; i < 100; i++) inst = `{"${'k'.repeat(7000)}${i}":${inst}}`;
  const base = rt.memoryUsed();
  const v = rt.compileSchema({ additionalProperties: { $ref: '#' }, type: ['object', 'string'] });
  v.validate(inst, { maxErrors: 1000 });
  v.dispose();
  rt.checkJSON('{}');
  const kept = rt.memoryUsed() - base;
  assert.ok(kept < 8 << 20, `${(kept / 2 ** 20).toFixed(1)} MiB kept`);
  rt.dispose();
});

test('one huge tool in a listing is refused on its own (too_large), before the batch is parsed: the other tools are imported', async () => {
  const rt = await createToolRuntime();
  const tools = [
    { name: 'read', inputSchema: { type: 'object' } },
    { name: 'huge', description: 'x'.repeat(12 << 20), inputSchema: { type: 'object' } },
    { name: 'write', inputSchema: { type: 'object' } },
  ];
  const r = rt.importTools('up', tools, { call: () => 'ok' });
  assert.deepEqual(r.registered.map((t) => t.tool), ['read', 'write']);
  assert.deepEqual(r.rejected.map((t) => [t.tool, t.code]), [['huge', 'too_large']]);
  assert.ok(rt.memoryUsed() < 16 << 20, `${rt.memoryUsed()} bytes used`);
  // a plugin's atomic batch: all or none, so the whole batch is refused
  assert.throws(() => rt.registerBatch('plugin', tools.map((t) => ({ descriptor: t, handler: () => 'ok' }))), (e) => e.code === 'too_large' && /huge/.test(e.message));
  rt.dispose();
});

test('what a tool keeps is bounded by what it shows: a 1 MB description and a schema of examples cost about their shown bytes, live and once dropped', async () => {
  // A 1 MB description (within descriptorBytes) shown cut to 4 KiB kept
  // ~2.9 MiB a tool, also once the source dropped it; an inputSchema of
  // 185 KiB, most of it "examples", kept ~5.5 MiB (its nodes, ~30 bytes a
  // byte of text). Ten such upstream tools took a tenth of the budget.
  const rt = await createToolRuntime();
  // (a call first: the working memory the last call kept is reused by the
  // next, so each figure is what the registry holds beside it)
  const used = () => { rt.checkJSON('{}'); return rt.memoryUsed(); };
  const call = () => 1;
  const n = 10;
  const long = Array.from({ length: n }, (_, i) => ({ name: `d${i}`, description: 'y'.repeat(1_000_000), inputSchema: { type: 'object' } }));
  rt.importTools('descs', long, { call });
  const live = used();
  const shown = rt.listTools().tools.find((t) => t.name === 'mcp__descs__d0').description;
  assert.ok(shown.length <= 4096 && shown.startsWith('yyyy'), `${shown.length} characters shown`);
  rt.importTools('descs', [], { call }); // the server drops them: remembered for review if they come back
  const dropped = used();
  // back changed past the cut: the digest is of what was sent, so it is held, and the field is named
  const back = rt.importTools('descs', [{ ...long[0], description: 'y'.repeat(999_999) + 'z' }], { call });
  assert.deepEqual([back.registered, back.changed.map((c) => [c.name, c.fields])], [[], [['mcp__descs__d0', ['description']]]]);
  rt.removeSource('descs');
  const none = used();
  const perLive = (live - none) / n, perDropped = (dropped - none) / n;
  assert.ok(perLive < 32 << 10, `a live tool with a 1 MB description keeps ${perLive} bytes`);
  assert.ok(perDropped < 16 << 10, `a dropped one keeps ${perDropped} bytes`);

  const ex = Array.from({ length: 5 }, (_, i) => ({
    name: `e${i}`,
    inputSchema: { type: 'object', properties: { k: { type: 'integer', default: 0, 'x-ui': { widget: 'spin' } } }, examples: Array.from({ length: 25000 }, (_, k) => [k]) },
  }));
  const bytes = JSON.stringify(ex[0]).length;
  rt.importTools('examples', ex, { call });
  const exLive = used();
  rt.importTools('examples', [], { call });
  const exDropped = used();
  rt.importTools('examples', ex, { call }); // (listed again as it was: live again)
  // shown as sent, and judged as before
  const listed = rt.listTools().tools.find((t) => t.name === 'mcp__examples__e0').inputSchema;
  assert.deepEqual([listed.examples.length, listed.examples[24999], listed.properties.k], [25000, [24999], ex[0].inputSchema.properties.k]);
  assert.equal((await rt.callTool('mcp__examples__e0', { k: 'x' })).isError, true);
  assert.ok(!(await rt.callTool('mcp__examples__e0', { k: 1 })).isError);
  rt.removeSource('examples');
  const exNone = used();
  assert.ok((exLive - exNone) / 5 < 2 * bytes, `a ${bytes}-byte descriptor, most of it examples, keeps ${(exLive - exNone) / 5} bytes`);
  assert.ok((exDropped - exNone) / 5 < 2 * bytes, `dropped, ${(exDropped - exNone) / 5} bytes`);
  rt.dispose();
});

test('a descriptor or policy over its limit is refused (too_large) before it is copied into the module', async () => {
  const rt = await createToolRuntime();
  const before = rt.memorySize();
  assert.throws(() => rt.registerTool({ name: 'big', description: 'x'.repeat(20 << 20), inputSchema: { type: 'object' } }, () => 'ok'), (e) => e.code === 'too_large');
  assert.throws(() => rt.setPolicy({ version: 1, rules: [{ id: 'x'.repeat(20 << 20), effect: 'allow', tools: ['*'] }] }), (e) => e.code === 'too_large');
  assert.equal(rt.memorySize(), before, 'the memory did not grow');
  rt.dispose();
});

test('a tool\'s tenant option is held to the rule a call\'s context tenant is: "acme\\u0000evil" is refused, never read as "acme"', async () => {
  const rt = await createToolRuntime();
  let ran = false;
  for (const tenant of ['acme\u0000evil', 'acme\nx', '', 'a'.repeat(129)]) {
    assert.throws(() => rt.registerTool({ name: 'secret', inputSchema: { type: 'object' } }, () => { ran = true; }, { tenant }),
      (e) => e.code === 'invalid_request' && /"tenant" must be/.test(e.message), JSON.stringify(tenant));
  }
  const r = rt.importTools('up', [{ name: 'secret', inputSchema: { type: 'object' } }], { call: () => { ran = true; }, options: { tenant: 'acme\u0000evil' } });
  assert.deepEqual(r.rejected.map((t) => t.code), ['invalid_options']);
  assert.equal(rt.listTools({ tenant: 'acme' }).tools.length, 0);
  const res = await rt.callTool('mcp__up__secret', '{}', { tenant: 'acme' });
  assert.ok(res.isError && !ran);
  // the longest name a context may give is a tool's tenant too
  rt.registerTool({ name: 'own', inputSchema: { type: 'object' } }, () => 'ok', { tenant: 't'.repeat(128) });
  assert.deepEqual(rt.listTools({ tenant: 't'.repeat(128) }).tools.map((t) => t.name), ['own']);
  rt.dispose();
});

test('multipleOf with a divisor of 19 or more digits is exact: 1e400 is no multiple of 9999999999999999999, and a call with it is refused', async () => {
  const rt = await createToolRuntime();
  let ran = 0;
  // (as text: the JS number 9999999999999999999 is 1e19)
  rt.registerTool('{"name":"pay","inputSchema":{"type":"object","properties":{"units":{"type":"integer","multipleOf":9999999999999999999}},"required":["units"]}}',
    () => { ran++; return 'ran'; });
  const v = rt.compileSchema('{"multipleOf":9999999999999999999}');
  assert.deepEqual(['1e20', '1e31', '1e400', '7e5000', '29999999999999999997'].map((n) => v.validate(n).valid), [false, false, false, false, true]);
  const big = rt.compileSchema('{"multipleOf":1234567890123456789012345}');
  assert.deepEqual(['2469135780246913578024690', '2469135780246913578024691', '1e400'].map((n) => big.validate(n).valid), [true, false, false]);
  // an exact answer past the evaluation steps: not checked, never "a multiple"
  const far = big.validate('1e99999999');
  assert.equal(far.valid, false);
  assert.equal(far.jsonError?.code, 'too_large');
  const r = await rt.callTool('pay', '{"units":1e400}');
  assert.equal(gateCode(r), 'invalid_arguments');
  assert.equal(ran, 0);
  rt.dispose();
});

test('a schema naming one $anchor or $id twice is refused (invalid_schema, naming it), never read as the first', async () => {
  const rt = await createToolRuntime();
  const dups = {
    '#x': { type: 'object', $defs: { a: { $anchor: 'x', type: 'string' }, b: { $anchor: 'x', type: 'integer' } }, properties: { p: { $ref: '#x' } } },
    'http://x/a': { type: 'object', $defs: { a: { $id: 'http://x/a', type: 'string' }, b: { $id: 'http://x/a', type: 'integer' } }, properties: { p: { $ref: 'http://x/a' } } },
  };
  for (const [uri, s] of Object.entries(dups)) {
    const named = (e) => e.code === 'invalid_schema' && e.message.includes(`'${uri}' identifies two schemas`);
    assert.throws(() => rt.compileSchema(s), named, uri);
    assert.throws(() => rt.registerTool({ name: 'dup', inputSchema: s }, () => 'ran'), (e) => e.code === 'invalid_schema' && e.message.includes(uri), uri);
  }
  // one name in two resources, or $anchor and $dynamicAnchor on one node, is no duplicate
  const ok = rt.compileSchema({ $defs: { a: { $id: 'http://x/a', $anchor: 'x', type: 'string' }, b: { $id: 'http://x/b', $anchor: 'x' } }, $ref: 'http://x/a#x' });
  assert.deepEqual([ok.validate('"s"').valid, ok.validate('1').valid], [true, false]);
  // a context parameter's stripped copies of an anchored branch name nothing twice: the tool registers and runs
  const base = { type: 'object', properties: { tenant_id: { type: 'string' }, q: { type: 'string' } }, required: ['tenant_id', 'q'] };
  rt.registerTool({ name: 'scoped', inputSchema: { type: 'object', allOf: [{ $anchor: 'args', ...base }], properties: { sub: { $ref: '#args' } } } },
    (a) => JSON.stringify(a), { context: { tenant_id: 'tenant' } });
  const r = await rt.callTool('scoped', { q: 'a', sub: { tenant_id: 'mine', q: 'b' } }, { context: { tenant: 't1' } });
  assert.ok(!r.isError, JSON.stringify(r));
  rt.dispose();
});

test('a schema over 4 x schemaBytes is refused (too_large) before it is copied into the module', async () => {
  const rt = await createToolRuntime();
  const before = rt.memorySize();
  const text = `{"type":"object","description":"${'x'.repeat(20 << 20)}"}`;
  assert.throws(() => rt.compileSchema(text), (e) => e.code === 'too_large' && /over the limit of 1048576/.test(e.message));
  assert.equal(rt.memorySize(), before, 'the memory did not grow');
  rt.dispose();
  const wide = await createToolRuntime({ schemaBytes: 8 << 20 });
  assert.equal(wide.compileSchema(`{"description":"${'x'.repeat(2 << 20)}"}`).validate('1').valid, true, 'the limit follows schemaBytes');
  wide.dispose();
});

test('a format\'s whole list is bounded: past it the largest renderings are left out (reported), not the list failed or the tools that sort last', async () => {
  const rt = await createToolRuntime({ limits: { memoryBytes: 32 << 20 } }); // (the list's bound: an eighth of it, 4 MiB)
  const defs = { a0: { type: 'string' } };
  for (let i = 1; i <= 15; i++) defs['a' + i] = { type: 'object', properties: { x: { $ref: `#/$defs/a${i - 1}` }, y: { $ref: `#/$defs/a${i - 1}` } } };
  rt.importTools('up', Array.from({ length: 200 }, (_, i) => ({ name: 'b' + i, inputSchema: { type: 'object', $defs: defs, properties: { r: { $ref: '#/$defs/a15' } } } })), { call: () => 1 });
  rt.registerTool({ name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, () => 'sunny');
  const l = rt.listTools({ format: 'gemini' });
  const names = l.tools[0].functionDeclarations.map((d) => d.name);
  assert.ok(names.includes('weather'), 'the small tool that sorts last is listed');
  const out = l.report.filter((r) => /over its bound/.test(r.issue)).map((r) => r.tool);
  assert.ok(out.length > 0 && out.every((n) => !names.includes(n)), `${out.length} left out`);
  assert.ok(JSON.stringify(l.tools).length <= 4 << 20);
  assert.equal(names.length + out.length, 201);
  rt.dispose();
});

test('a long text past the room first guessed for it (mostly 2- and 3-byte characters) is counted and written whole', async () => {
  // past 1 Mi UTF-16 units the module first reserves the length and 1/32
  // more (what JSON of mostly ASCII needs); these need 2x and 3x that
  const rt = await createToolRuntime({ limits: { argsBytes: 16 << 20 } });
  const n = (1 << 20) + 5;
  for (const ch of ['é', '€', '😀']) {
    const units = n * ch.length;
    const fits = rt.compileSchema({ type: 'string', maxLength: n });
    const short = rt.compileSchema({ type: 'string', maxLength: n - 1 });
    const text = `"${ch.repeat(n)}"`;
    assert.deepEqual(fits.validate(text), { valid: true, errors: [] }, `${ch}: ${units} units`);
    assert.equal(short.validate(text, { output: 'flag' }).valid, false, `${ch}: one code point over`);
    assert.equal(fits.validate(`"${'a'.repeat(n - 1)}${ch}"`).valid, true, `${ch}: ASCII and one wide character`);
  }
  rt.dispose();
});

test('an option or policy word with U+0000 in it is no known word: "needsApproval\\u0000" is refused, never ignored', async () => {
  const rt = await createToolRuntime();
  let ran = false;
  const tool = { name: 'wire_money', inputSchema: { type: 'object' } };
  assert.throws(() => rt.registerTool(tool, () => { ran = true; }, { 'needsApproval\u0000': true }),
    (e) => e instanceof ToolgateError && /unknown tool option/.test(e.message));
  const r = rt.importTools('bank', [tool], { call: () => { ran = true; }, options: { 'needsApproval\u0000x': true } });
  assert.deepEqual(r.rejected.map((t) => t.code), ['invalid_options']);
  assert.equal(rt.listTools().tools.length, 0);
  assert.ok((await rt.callTool('mcp__bank__wire_money', '{}')).isError && !ran);
  for (const policy of [{ version: 1, rules: [{ id: 'r', effect: 'allow\u0000', tools: ['*'] }] },
    { version: 1, unknown_principals: 'deny\u0000', rules: [] }]) {
    assert.throws(() => rt.setPolicy(policy), (e) => e instanceof ToolgateError && e.code === 'invalid_policy', JSON.stringify(policy));
  }
  assert.throws(() => rt.compileSchema({ type: 'string' }, { formats: 'assert\u0000' }), (e) => e instanceof ToolgateError);
  rt.dispose();
});

test('a long argument text past its guessed room is written again, also when an earlier input left the input area larger', async () => {
  // the first input grows the area; the second (two-byte characters) fits
  // that area but not the room guessed for it, and the name and context
  // follow it: written past its room they would have run past the area
  const rt = await createToolRuntime({ limits: { argsBytes: 64 << 20 } });
  rt.registerTool({ name: 't', inputSchema: { type: 'object' } }, (args, info) => `${args.s.length} ${info.context.pad.length}`);
  const a1 = JSON.stringify({ s: 'x'.repeat(3_000_000) });
  await rt.callTool('t', a1, { context: { pad: '' } });
  const C = a1.length + (a1.length >> 5) + 3;
  for (let i = 0; i < 50; i++) rt.registerTool({ name: `tool${i}`, description: 'd'.repeat(2000), inputSchema: { type: 'object' } }, () => 'ok');
  const m = 1_600_000, k = (C - 1) - m;
  const cl = Math.floor((C - Math.floor(m * 33 / 32) - 10) / 3) - 40;
  const r = await rt.callTool('t', JSON.stringify({ s: 'é'.repeat(k) + 'y'.repeat(m - 8 - k) }), { context: { pad: 'z'.repeat(cl) } });
  assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 300));
  assert.equal(r.content[0].text, `${m - 8} ${cl}`);
  rt.dispose();
});
