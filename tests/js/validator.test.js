// validator.test.js - Validator.validate's results through the wasm build:
// the errors' three fields (sliced out of the module's records by their
// UTF-16 lengths), the first error whichever path found it, and the input
// forms (text, bytes, JS values).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createToolRuntime } from 'toolgate';

const rt = await createToolRuntime();

const tool = rt.compileSchema({
  type: 'object',
  properties: {
    owner: { type: 'string', pattern: '^[a-z-]+$' },
    n: { type: 'integer', maximum: 5 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
  },
  required: ['owner'],
  additionalProperties: false,
});

test('errors carry instanceLocation, keywordLocation and a message a model can act on', () => {
  const r = tool.validate('{"owner":"Ab","n":"5","tags":["x",7]}');
  assert.equal(r.valid, false);
  assert.deepEqual(r.errors, [
    { instanceLocation: '/owner', keywordLocation: '/properties/owner/pattern', message: 'string "Ab" does not match the pattern' },
    { instanceLocation: '/n', keywordLocation: '/properties/n/type', message: 'expected integer, got string "5"' },
    { instanceLocation: '/tags/1', keywordLocation: '/properties/tags/items/type', message: 'expected string, got integer 7' },
  ]);
  assert.deepEqual(tool.validate('{"owner":"ab"}'), { valid: true, errors: [] });
  assert.deepEqual(tool.validate('{"owner":"Ab"}', { output: 'flag' }).errors, []);
});

test('non-ASCII names and values come back whole: astral characters, escapes, "/" and "~" in pointers', () => {
  const key = 'k\u{1F600}/~é';
  const r = tool.validate(JSON.stringify({ owner: 'ab', [key]: 1, n: 'ü\u{1F680}"\n' }));
  assert.deepEqual(r.errors, [
    { instanceLocation: '/k\u{1F600}~1~0é', keywordLocation: '/additionalProperties', message: `property "${key}" is not allowed` },
    { instanceLocation: '/n', keywordLocation: '/properties/n/type', message: 'expected integer, got string "ü\u{1F680}\\"\\n"' },
  ]);
  // a schema value shown in a message is cut on a character boundary: the records after it stay whole
  const cut = rt.compileSchema({ propertyNames: { enum: [{ c: 'x'.repeat(48) + '\u{1F600}\u{1F600}' }] } }).validate('{"a":1,"b":2}');
  assert.deepEqual(cut.errors.map((e) => [e.instanceLocation, e.keywordLocation]), [['/a', '/propertyNames/enum'], ['/b', '/propertyNames/enum']]);
  assert.ok(cut.errors.every((e) => e.message.startsWith('expected one of [{"c":"xxx') && !e.message.includes('\uFFFD')));
});

test('keywordLocation follows the evaluation path through $ref, $dynamicRef and registered resources', () => {
  const local = rt.compileSchema({ properties: { a: { $ref: '#/$defs/A' }, list: { items: { $ref: '#/$defs/B' } } },
    $defs: { A: { type: 'string' }, B: { properties: { v: { $ref: '#/$defs/A' } } } } });
  for (const maxErrors of [1, 20]) {
    assert.deepEqual(local.validate('{"a":1,"list":[{"v":2}]}', { maxErrors }).errors.map((e) => [e.instanceLocation, e.keywordLocation]),
      [['/a', '/properties/a/$ref/type'], ['/list/0/v', '/properties/list/items/$ref/properties/v/$ref/type']].slice(0, maxErrors));
  }
  const remote = rt.compileSchema({ $ref: 'http://x/s' }, { resources: { 'http://x/s': { $defs: { A: { type: 'string' } }, $ref: '#/$defs/A' } } });
  assert.equal(remote.validate('1').errors[0].keywordLocation, '/$ref/$ref/type');
  const recursive = rt.compileSchema({ properties: { child: { $ref: '#' }, v: { type: 'integer' } } });
  assert.equal(recursive.validate('{"child":{"child":{"v":"x"}}}').errors[0].keywordLocation, '/properties/child/$ref/properties/child/$ref/properties/v/type');
});

test('maxErrors: 1 gives the first of all the errors, whether one pass or the evaluator found it', () => {
  const union = rt.compileSchema({ anyOf: [{ type: 'string' }, { type: 'object', required: ['a'] }] });
  const cases = [
    [tool, '{"owner":"Ab","n":7}'], // one pass: a member's keyword
    [tool, '{"n":7}'], // required precedes properties: the container's error first
    [tool, '{"owner":"ab","zz":1,"n":9}'], // additionalProperties: false
    [tool, '{"owner":"ab","tags":["a","b","c"]}'], // maxItems, counted after the items
    [tool, '[1]'], // type of the root
    [union, '{"b":1}'], // a union: the evaluator names it
    [tool, '{"owner":"ab","n":1e1}'], // an exponent: left to the evaluator
  ];
  for (const [v, text] of cases) {
    const all = v.validate(text);
    const first = v.validate(text, { maxErrors: 1 });
    assert.equal(first.valid, false, text);
    assert.equal(first.errors.length, 1, text);
    assert.deepEqual(first.errors[0], all.errors[0], text);
  }
  assert.deepEqual(tool.validate('{"n":7}', { maxErrors: 1 }).errors[0],
    { instanceLocation: '', keywordLocation: '/required', message: 'missing required property "owner"' });
});

test('text, UTF-8 bytes and JS values validate alike; malformed text is a jsonError, not a throw', () => {
  const value = { owner: 'Ab', n: 9 };
  const text = JSON.stringify(value);
  const fromText = tool.validate(text);
  assert.deepEqual(tool.validate(new TextEncoder().encode(text)), fromText);
  assert.deepEqual(tool.validate(value), fromText);
  const bad = tool.validate('{"owner":');
  assert.equal(bad.valid, false);
  assert.equal(typeof bad.jsonError.message, 'string');
  assert.equal(bad.jsonError.offset, 9);
  assert.equal(bad.jsonError.code, 'invalid_json');
  // well-formed JSON past a limit is told apart from malformed JSON
  const deep = tool.validate('['.repeat(10_000) + ']'.repeat(10_000));
  assert.equal(deep.valid, false);
  assert.equal(deep.jsonError.code, 'too_large');
});

test('numbers compare by exact value in const, enum and uniqueItems, and in policy conditions', async () => {
  // 9007199254740993 and 9007199254740992 are one double: a JS value cannot tell them apart, JSON text can
  const id = rt.compileSchema('{"const": 9007199254740993}');
  assert.equal(id.validate('9007199254740993').valid, true);
  assert.equal(id.validate('9007199254740993.0').valid, true);
  assert.equal(id.validate('9007199254740992').valid, false);
  assert.equal(rt.compileSchema('{"enum": [1234567890123456789]}').validate('1234567890123456800').valid, false);
  assert.equal(rt.compileSchema({ uniqueItems: true }).validate('[9007199254740993, 9007199254740992]').valid, true);
  assert.equal(rt.compileSchema({ uniqueItems: true }).validate('[1e2, 100.0]').valid, false);
  // ... and so do minimum/maximum where two values share a double, and multipleOf past the doubles
  assert.equal(rt.compileSchema({ maximum: 9007199254740992 }).validate('9007199254740993').valid, false);
  assert.equal(rt.compileSchema('{"exclusiveMinimum": 0}').validate('1e-400').valid, true);
  assert.equal(rt.compileSchema('{"exclusiveMaximum": 1}').validate('0.99999999999999999').valid, true);
  assert.equal(rt.compileSchema('{"maximum": 5}').validate('5').valid, true);
  assert.equal(rt.compileSchema('{"multipleOf": 1e400}').validate('1').valid, false);
  const gate = await createToolRuntime();
  gate.setPolicy('{"version": 1, "defaults": ["*"], "rules": [{"id": "one-account", "effect": "allow", "tools": ["pay"], "args": {"account": {"one_of": [1234567890123456789]}}}]}');
  let paid = 0;
  gate.registerTool({ name: 'pay', inputSchema: { type: 'object', properties: { account: { type: 'integer' } } } }, () => { paid++; return 'paid'; });
  assert.equal((await gate.callTool('pay', '{"account":1234567890123456789}')).content[0].text, 'paid');
  assert.equal((await gate.callTool('pay', '{"account":1234567890123456800}'))._meta['dev.toolgate/error'].code, 'denied');
  assert.equal(paid, 1);
  gate.dispose();
});

test('the verdicts agree with ajv, an independent validator, on 5,000 mutated tool arguments', async () => {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const schema = {
    type: 'object',
    properties: {
      owner: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' },
      title: { type: 'string', maxLength: 8 },
      labels: { type: 'array', items: { type: 'string' }, maxItems: 3, uniqueItems: true },
      priority: { type: 'integer', minimum: 1, maximum: 5 },
      ratio: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.25 },
      kind: { enum: ['bug', 'feature', null] },
      draft: { type: 'boolean' },
    },
    required: ['owner', 'title'],
    additionalProperties: false,
  };
  const ours = rt.compileSchema(schema);
  const theirs = new Ajv2020({ strict: false }).compile(schema);
  // deterministic: a small LCG, values at and around every limit
  let seed = 20261123;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const values = [0, -1, 0.25, 0.3, 1, 1.0, 5, 5.5, 6, 1e3, '', 'a', 'tool-gate', 'tool gate', 'x'.repeat(8), 'x'.repeat(9),
    '😀'.repeat(8), '😀'.repeat(9), 'é'.repeat(8), true, false, null, [], ['a'], ['a', 'a'], ['a', 'b', 'c', 'd'], ['a', 1],
    {}, { a: 1 }, 'bug', 'feature', 'Bug'];
  const keys = [...Object.keys(schema.properties), 'extra', '__proto__', 'constructor'];
  let disagreements = 0, valid = 0;
  for (let i = 0; i < 5000; i++) {
    const o = { owner: 'toolgate', title: 'fix' };
    for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
      const key = pick(keys);
      if (rnd() < 0.2) delete o[key];
      else Object.defineProperty(o, key, { value: pick(values), enumerable: true, writable: true, configurable: true });
    }
    const text = JSON.stringify(o);
    const a = theirs(JSON.parse(text));
    const t = ours.validate(text).valid;
    valid += t;
    if (a !== t && disagreements++ < 3) console.log('disagree:', { ajv: a, toolgate: t, text });
  }
  assert.equal(disagreements, 0);
  assert.ok(valid > 500 && valid < 4500, `both sides exercised (${valid} valid)`);
});

test('the input area is written right after the module grows its memory or moves the area', async () => {
  const own = await createToolRuntime({ limits: { argsBytes: 64 << 20 } });
  const v = own.compileSchema({ type: 'object', properties: { s: { type: 'string', maxLength: 40 } } });
  const size0 = own.memorySize();
  const small = (c) => JSON.stringify({ s: c.repeat(40) }); // (longer than what put() copies by hand)
  const verdicts = [];
  for (let mb = 1; mb <= 16; mb *= 2) {
    verdicts.push(v.validate(small('a')).valid, v.validate(small('é')).valid);
    // a bigger input each round: a new input area, and memory grown for it
    const big = JSON.stringify({ s: 'x'.repeat(mb << 20) });
    assert.equal(v.validate(big).valid, false);
    verdicts.push(v.validate(small('b')).valid, v.validate(JSON.stringify({ s: 'b'.repeat(41) })).valid);
    own.registerTool({ name: `t${mb}`, inputSchema: { type: 'object', properties: { q: { type: 'string', maxLength: 40 } } } }, (a) => a.q);
    assert.equal((await own.callTool(`t${mb}`, JSON.stringify({ q: 'y'.repeat(40) }))).content[0].text, 'y'.repeat(40));
  }
  assert.ok(own.memorySize() >= size0 + (16 << 20), 'the memory grew');
  assert.deepEqual(verdicts, Array.from({ length: 5 }, () => [true, true, true, false]).flat());
  own.dispose();
});

test('$ref array indexes are read as RFC 6901 says: no leading zeros', () => {
  const own = rt;
  const items = (n) => Array.from({ length: n }, (_, i) => ({ const: i }));
  for (const n of [3, 40]) { // (below and above the size where pointers use an index)
    assert.throws(() => own.compileSchema({ $defs: { list: { prefixItems: items(n) } }, $ref: '#/$defs/list/prefixItems/01' }), (e) => e.code === 'invalid_schema');
    const v = own.compileSchema({ $defs: { list: { prefixItems: items(n) } }, $ref: '#/$defs/list/prefixItems/1' });
    assert.deepEqual([v.validate('1').valid, v.validate('2').valid], [true, false]);
  }
});

test('literal patterns cost one step a search: a long string is checked, however the pattern is written', () => {
  const s = JSON.stringify('x'.repeat(1_000_000) + 'abc');
  for (const pattern of ['abc', 'a(?:bc)']) {
    const v = rt.compileSchema({ allOf: Array.from({ length: 11 }, () => ({ pattern })) });
    assert.equal(v.validate(s).valid, true, pattern);
  }
});

/** UTF-8 bytes whose ArrayBuffer was transferred away (detached), in each form. */
function detachedForms(text = '{}') {
  const detach = (buffer) => structuredClone(buffer, { transfer: [buffer] });
  const u = new TextEncoder().encode(text), d = new TextEncoder().encode(text), b = new TextEncoder().encode(text).buffer;
  const view = new DataView(d.buffer);
  detach(u.buffer);
  detach(d.buffer);
  detach(b);
  return { Uint8Array: u, DataView: view, ArrayBuffer: b };
}

test('a schema (and a resource) given as UTF-8 bytes is read as its JSON text, never as an object of byte keys', () => {
  const text = '{"type":"string","maxLength":3}';
  const u8 = new TextEncoder().encode(text);
  for (const schema of [u8, u8.slice().buffer, new DataView(u8.slice().buffer), new Uint16Array(u8.slice(0, 30).buffer)]) {
    const v = rt.compileSchema(schema instanceof Uint16Array ? new TextEncoder().encode(text.slice(0, 29) + '3}') : schema);
    assert.deepEqual([v.validate('42').valid, v.validate('"abc"').valid, v.validate('"abcd"').valid], [false, true, false]);
    v.dispose();
  }
  // the caller's bytes may change afterwards: the validator keeps its own copy (to compile again after a trap)
  const own = new TextEncoder().encode('{"type":"integer"}');
  const v = rt.compileSchema(own);
  own.fill(32);
  assert.equal(v.validate('"x"').valid, false);
  // a resource $ref reaches, as bytes too; its text is one JSON value, read strictly by the module
  const res = (bytes) => rt.compileSchema({ $ref: 'urn:s' }, { resources: { 'urn:s': bytes } });
  const r = res(new TextEncoder().encode('{"type":"string"}'));
  assert.deepEqual([r.validate('"a"').valid, r.validate('1').valid], [true, false]);
  // beside resources given as values (one JSON leaves out, left out as before)
  const mixed = rt.compileSchema({ $ref: 'urn:s', allOf: [{ $ref: 'urn:t' }] },
    { dialect: '2020-12', resources: { 'urn:s': new TextEncoder().encode('{"type":"string"}').buffer, 'urn:t': { maxLength: 2 }, 'urn:u': undefined } });
  assert.deepEqual([mixed.validate('"ab"').valid, mixed.validate('"abc"').valid, mixed.validate('1').valid], [true, false, false]);
  assert.throws(() => res(new TextEncoder().encode('{"type":"string"}, "urn:t": {}')), (e) => e.code === 'invalid_json');
  assert.throws(() => res(new TextEncoder().encode('{"type":"string","type":"integer"}')), (e) => e.code === 'invalid_schema' || e.code === 'invalid_json');
  assert.throws(() => res(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), (e) => e.code === 'invalid_json'); // (a BOM)
  // bytes that are not strict JSON are refused as the text would be
  assert.throws(() => rt.compileSchema(new TextEncoder().encode('{"type":')), (e) => e.code === 'invalid_json');
  // bytes whose buffer was detached cannot be read: a typed error
  for (const [kind, bytes] of Object.entries(detachedForms('{"type":"string"}'))) {
    assert.throws(() => rt.compileSchema(bytes), (e) => e.code === 'invalid_json' && /detached/.test(e.message), kind);
  }
});

test('bytes whose buffer was detached: validate and checkJSON answer with their results, never a TypeError', () => {
  for (const [kind, bytes] of Object.entries(detachedForms())) {
    const r = tool.validate(bytes);
    assert.deepEqual([r.valid, r.jsonError?.code], [false, 'invalid_json'], kind);
    assert.match(r.jsonError.message, /detached/);
    const c = rt.checkJSON(bytes);
    assert.deepEqual([c.ok, c.code], [false, 'invalid_json'], kind);
  }
  // an empty view that is not detached is empty JSON text, as before
  assert.equal(tool.validate(new Uint8Array(0)).jsonError.code, 'invalid_json');
  assert.equal(rt.checkJSON(new DataView(new ArrayBuffer(0))).code, 'invalid_json');
});

test('checkJSON refuses a text over the size limit before copying it in: too_large, the memory not grown', async () => {
  const own = await createToolRuntime({ limits: { argsBytes: 1024 } });
  own.checkJSON('"warm"');
  const before = own.memorySize();
  const text = `"${'a'.repeat(8 << 20)}"`;
  const r = own.checkJSON(text);
  assert.deepEqual([r.ok, r.code, r.offset], [false, 'too_large', 1024]);
  assert.match(r.message, /over the limit of 1024/);
  assert.equal(own.checkJSON(new TextEncoder().encode(text.slice(0, 2000))).code, 'too_large');
  assert.equal(own.memorySize(), before, 'a refused text is not copied into the module');
  assert.deepEqual(own.checkJSON(`"${'a'.repeat(1000)}"`), { ok: true });
  own.dispose();
});

test('every result of validate is the caller\'s own: a valid one too is fresh and may be changed', () => {
  const v = rt.compileSchema({ type: 'integer' });
  const a = v.validate('1'), b = v.validate(2);
  assert.notEqual(a, b);
  assert.notEqual(a.errors, b.errors);
  a.checkedAt = 1;
  a.errors.push({ instanceLocation: '', keywordLocation: '', message: 'note' });
  assert.deepEqual(v.validate('3'), { valid: true, errors: [] });
  assert.deepEqual(b, { valid: true, errors: [] });
});

test('bytes the runtime keeps are its own copies (a Node Buffer\'s slice is a view): a key or schema the host wipes or reuses after a trap changes nothing', async () => {
  const schema = Buffer.from('{"type":"string"}');
  const secret = 'k'.repeat(32);
  const key = Buffer.from(secret);
  const policy = { version: 1, defaults: ['*'], rules: [{ id: 'ask', effect: 'ask', tools: ['send'] }] };
  const rt = await createToolRuntime({ policy, approvalKey: key });
  const v = rt.compileSchema(schema);
  key.fill(0);
  schema.write('{"type":"number"}'); // (the same length: the buffer reused)
  rt.registerTool({ name: 'send', inputSchema: { type: 'object' } }, () => 'sent');
  assert.throws(() => rt._selftestTrap());
  assert.equal(v.validate('"x"').valid, true, 'judged by the schema it was given');
  const ask = await rt.callTool('send', {}, { principal: 'p', session: 's' });
  const tok = await rt.resolveApproval(ask.approvalId, 'approve_token');
  rt.dispose();
  const redeems = async (k) => {
    const other = await createToolRuntime({ policy, approvalKey: k });
    other.registerTool({ name: 'send', inputSchema: { type: 'object' } }, () => 'sent');
    const r = await other.callTool('send', {}, { principal: 'p', session: 's', approvalToken: tok.token });
    other.dispose();
    return r.content?.[0]?.text === 'sent';
  };
  assert.equal(await redeems(secret), true, 'signed with the key given');
  assert.equal(await redeems(new Uint8Array(32)), false, 'not with the wiped one');
});

test('a view its resizable buffer shrank out from under is unreadable bytes (invalid_json), never a bare TypeError', async () => {
  const rt = await createToolRuntime();
  const v = rt.compileSchema({});
  const rab = new ArrayBuffer(16, { maxByteLength: 64 });
  const view = new DataView(rab, 8, 4);
  rab.resize(4);
  assert.equal(v.validate(view).jsonError?.code, 'invalid_json');
  assert.equal(rt.checkJSON(view).code, 'invalid_json');
  rt.dispose();
});

test('authorize refuses arguments over argsBytes before copying them into the module (a model cannot grow the memory for good)', async () => {
  const rt = await createToolRuntime({ limits: { argsBytes: 1024 } });
  rt.registerTool({ name: 't', inputSchema: { type: 'object' } }, () => 'ok');
  rt.authorize({ tool: 't', args: '{}' });
  const before = rt.memorySize();
  const big = `{"a":"${'x'.repeat(4 << 20)}"}`;
  for (const args of [big, new TextEncoder().encode(big)]) {
    assert.throws(() => rt.authorize({ tool: 't', args }), (e) => e.code === 'too_large');
  }
  assert.equal(rt.memorySize(), before);
  rt.dispose();
});

test('a resource is a schema: JSON text is read as text, anything else (a string value, 5, null, [1]) is refused by name, and one a $ref reaches is checked against its metaschema', () => {
  const schema = { type: 'object', properties: { p: { $ref: 'http://x/str' } } };
  const withRes = (res) => rt.compileSchema(schema, { resources: { 'http://x/str': res } });
  // JSON text, as the schema itself may be: never a JSON string resource
  const text = withRes('{"type":"string"}');
  assert.deepEqual([text.validate('{"p":"s"}').valid, text.validate('{"p":{}}').valid], [true, false]);
  assert.throws(() => withRes('hello'), (e) => e.code === 'invalid_json' && /http:\/\/x\/str/.test(e.message));
  assert.throws(() => withRes('{"type":"string"} {}'), (e) => e.code === 'invalid_json');
  // not a schema: refused, naming it (a $ref to it resolved to the referring root, so {"p":{}} passed)
  for (const res of [5, null, [1], '"hello"', new TextEncoder().encode('[1]')]) {
    assert.throws(() => withRes(res), (e) => e.code === 'invalid_schema' && /resource 'http:\/\/x\/str' is not a schema/.test(e.message), JSON.stringify(res));
  }
  // also when no $ref reaches it
  assert.throws(() => rt.compileSchema({}, { resources: { 'urn:n': 5 } }), (e) => e.code === 'invalid_schema' && /urn:n/.test(e.message));
  // checked against the metaschema as the root is, the diagnostic naming the resource
  assert.throws(() => withRes({ minLength: -1 }), (e) => e.code === 'invalid_schema' && /^resource 'http:\/\/x\/str': \/minLength: /.test(e.message));
  assert.throws(() => withRes({ $schema: 'http://json-schema.org/draft-07/schema#', items: [{ type: 5 }] }),
    (e) => e.code === 'invalid_schema' && /^resource 'http:\/\/x\/str': .*\/items\/0\/type.*draft-07/.test(e.message));
  // a boolean is a schema
  assert.equal(withRes(false).validate('{"p":1}').valid, false);
  assert.equal(withRes(true).validate('{"p":1}').valid, true);
});
