// policy_decide.test.js - the policy's decision side through the real wasm
// module: a rule judged once however many of its patterns match (what the
// trace says it did, not how long it took: the cost is bench/policy.mjs's),
// limits and large equals decided right, the rule reported when several deny
// rules match, dry runs against full state tables, and explain traces of
// large policies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createToolRuntime } from 'toolgate';

const obj = { type: 'object', properties: {} };

test('a rule is judged once per decision, however many of its patterns match', async () => {
  // (judged by what the decision did, as its trace tells, not by time: a
  // rule's principals and conditions were read again for every pattern)
  const rt = await createToolRuntime({ clock: () => 1e6 });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  rt.setPolicy({ version: 1, defaults: ['*'], rules: [
    { id: 'x', effect: 'allow', tools: Array(600).fill('*'), principals: Array(600).fill('zz') },
    { id: 'all', effect: 'allow', tools: ['*'] }] });
  const a = rt.authorize({ tool: 'tool_x', principal: 'p', explain: true });
  assert.equal(a.rule, 'rule:all');
  const seen = a.trace.steps.find((s) => s.step === 'rules').considered.filter((c) => c.rule === 'x');
  assert.deepEqual([seen.filter((c) => c.judged === 'above').length, seen.filter((c) => c.why === 'principal not listed').length], [599, 1]);
  rt.dispose();
});

test('thousands of matching limits each count once a call', async () => {
  const rt = await createToolRuntime({ clock: () => 1e6 });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  const session_budgets = [];
  for (let i = 0; i < 4000; i++) session_budgets.push({ id: 'b' + i, tools: ['*', 'tool_*'], max_calls: i === 2500 ? 2 : 1e9 });
  rt.setPolicy({ version: 1, defaults: ['*'], rules: [{ effect: 'allow', tools: ['*'] }], session_budgets });
  for (let i = 0; i < 2; i++) assert.equal((await rt.callTool('tool_x', {})).content[0].text, 'ran');
  assert.deepEqual([rt.authorize({ tool: 'tool_x' }).decision, rt.authorize({ tool: 'tool_x' }).rule], ['deny', 'budget:b2500']);
  rt.dispose();
});

test('equals on large objects compares members, not their order', async () => {
  const rt = await createToolRuntime({ clock: () => 1e6 });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  const o = {}, o2 = {};
  for (let i = 0; i < 32000; i++) o['k' + String(i).padStart(6, '0')] = i;
  for (let i = 31999; i >= 0; i--) o2['k' + String(i).padStart(6, '0')] = i;
  rt.setPolicy({ version: 1, defaults: ['*'], rules: [
    { id: 'd', effect: 'deny', tools: ['tool_x'], args: { o: { equals: o } } }, { id: 'all', effect: 'allow', tools: ['*'] }] });
  assert.equal(rt.authorize({ tool: 'tool_x', args: JSON.stringify({ o: o2 }) }).rule, 'rule:d'); // same members, other order
  o2.k031999 = -1;
  assert.equal(rt.authorize({ tool: 'tool_x', args: JSON.stringify({ o: o2 }) }).rule, 'rule:all');
  rt.dispose();
});

test('several matching deny rules: authorize, explain and the call all report the first', async () => {
  const rt = await createToolRuntime({ clock: () => 1e6, policy: { version: 1, defaults: ['*'], rules: [
    { id: 'A', effect: 'deny', tools: ['mcp__*'], reason: 'reason A' },
    { id: 'B', effect: 'deny', tools: ['mcp__x__delete'], reason: 'reason B' },
    { id: 'all', effect: 'allow', tools: ['*'] }] } });
  rt.registerTool({ name: 'mcp__x__delete', inputSchema: obj }, () => 'ran');
  assert.equal(rt.authorize({ tool: 'mcp__x__delete' }).rule, 'rule:A');
  assert.equal(rt.authorize({ tool: 'mcp__x__delete', explain: true }).rule, 'rule:A');
  const call = await rt.callTool('mcp__x__delete', {});
  assert.equal(call.isError, true);
  assert.match(call.content[0].text, /reason A/);
  rt.dispose();
});

test('authorize reports the refusal a call gets when the rate or budget table is full', async () => {
  const rt = await createToolRuntime({ clock: () => 1e6, policy: { version: 1, defaults: ['*'],
    rules: [{ id: 'all', effect: 'allow', tools: ['*'] }],
    rate_limits: [{ id: 'r', tools: ['*'], capacity: 10, refill_per_second: 0.001 }],
    session_budgets: [{ id: 'b', tools: ['*'], max_calls: 100 }],
    limits: { max_rate_buckets: 1, max_budget_entries: 1 } } });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  await rt.callTool('tool_x', {}, { principal: 'a', session: 's1' }); // fills both tables
  assert.equal(rt.authorize({ tool: 'tool_x', principal: 'a', session: 's1' }).decision, 'allow');
  for (const [ctx, rule] of [[{ principal: 'b', session: 's1' }, 'rate:r'], [{ principal: 'a', session: 's2' }, 'budget:b']]) {
    const a = rt.authorize({ tool: 'tool_x', ...ctx });
    assert.deepEqual([a.decision, a.rule], ['deny', rule]);
    const r = await rt.callTool('tool_x', {}, ctx);
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /state is full/);
  }
  rt.dispose();
});

test('explain on a policy too large to list in full returns a truncated trace, not cut JSON', async () => {
  const rules = [];
  for (let i = 0; i < 20000; i++) rules.push({ id: 'r' + i, effect: 'allow', tools: ['*'] });
  const rt = await createToolRuntime({ clock: () => 1e6, policy: { version: 1, defaults: ['*'], rules } });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  const a = rt.authorize({ tool: 'tool_x', explain: true });
  assert.deepEqual([a.decision, a.rule], ['allow', 'rule:r0']);
  assert.equal(a.trace.rule, 'rule:r0');
  const rulesStep = a.trace.steps.find((s) => s.step === 'rules');
  assert.equal(rulesStep.truncated, true);
  assert.equal(rulesStep.considered.length + rulesStep.omitted, 20000);
  rt.dispose();
});

test('a URL spelling a parser reads as a denied URL never runs, and what runs is judged as its parser reads it', async () => {
  // fetch and new URL read "https:///h", "https:h", a tab anywhere,
  // "http://2852039166/" as the denied URL: a deny prefix must hold for
  // every spelling that reaches the handler (judged by the handler's own
  // new URL), and canonical URLs must still be judged as before
  const rt = await createToolRuntime();
  const fetched = [];
  rt.registerTool({ name: 'fetch_url', inputSchema: { type: 'object', properties: { url: { type: 'string' } } } },
    (a) => { fetched.push(a.url); return 'fetched'; });
  rt.setPolicy({ version: 1, defaults: ['*'], rules: [
    { id: 'no-internal', effect: 'deny', tools: ['fetch_url'], args: { url: { prefix: 'https://internal.example.com/' } } },
    { id: 'no-metadata', effect: 'deny', tools: ['fetch_url'], args: { url: { prefix: 'http://169.254.169.254/' } } },
    { id: 'all', effect: 'allow', tools: ['*'] }] });
  const hosts = ['internal.example.com', 'INTERNAL.example.com', 'internal.example.com.', 'inter\tnal.example.com',
    'evil@internal.example.com', '%69nternal.example.com', '\uff49nternal.example.com', 'internal.example.com:443',
    'internal.example.com:', '169.254.169.254', '169.254.169.254.', '2852039166', '0xA9.0xFE.0xA9.0xFE', '0xa9fea9fe',
    '169.254.43518', '0251.0376.0251.0376', '169.254.169.254:80', '169.254.169.254:080', '[::ffff:169.254.169.254]',
    'api.example.com', '10.0.0.1', 'internal.example.com.evil'];
  const urls = [];
  for (const scheme of ['https', 'http', 'HTTPS', 'ht\ttps']) {
    for (const sep of ['//', '/', '', '///', '\\\\', '/\\']) {
      for (const host of hosts) for (const rest of ['/x', '', '?q', '\\x', '/a/%2e%2e/x']) urls.push(`${scheme}:${sep}${host}${rest}`);
    }
  }
  for (const u of ['https://internal.example.com/x', 'http://169.254.169.254/latest']) urls.push(` ${u}`, `${u}\n`, `\u0001${u}`);
  const denied = (href) => href.startsWith('https://internal.example.com/') || href.startsWith('http://169.254.169.254/');
  let refused = 0;
  for (const url of urls) {
    const r = await rt.callTool('fetch_url', { url });
    if (r.isError) refused++;
  }
  const escaped = fetched.filter((url) => { try { return denied(new URL(url).href); } catch { return false; } });
  assert.deepEqual(escaped, []);
  assert.ok(refused > 0 && fetched.length > 0);
  // canonical URLs: judged as before
  for (const url of ['https://api.example.com/v1/x?y=1', 'https://api.example.com', 'http://10.0.0.1/x', 'https://[2001:db8::1]/x']) {
    assert.equal((await rt.callTool('fetch_url', { url })).content[0].text, 'fetched', url);
  }
  for (const url of ['https://internal.example.com/x', 'https://internal.example.com', 'HTTPS://Internal.example.com/x']) {
    assert.equal(rt.authorize({ tool: 'fetch_url', args: { url } }).rule, 'rule:no-internal', url);
  }
  rt.dispose();
});
