// policy_decide.test.js - the policy's decision side through the real wasm
// module: cost that grows linearly with the parts of a document a decision
// reads (asserted on growth ratios with wide margins, never on absolute
// time), the rule reported when several deny rules match, dry runs against
// full state tables, and explain traces of large policies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createToolRuntime } from 'toolgate';

const obj = { type: 'object', properties: {} };

/* The median time of `rounds` batches of `batch` calls of f. */
function median(f, rounds = 7, batch = 5) {
  const ts = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) f();
    ts.push(performance.now() - t0);
  }
  ts.sort((a, b) => a - b);
  return ts[rounds >> 1];
}

/* 8x the input: linear costs ~8x, quadratic ~64x; fail past 24x. */
const GROWTH = 8, LIMIT = 24;

test('a rule is judged once per decision, however many of its patterns match', async () => {
  const rt = await createToolRuntime({ clock: () => 1e6 });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  const cost = (n) => {
    rt.setPolicy({ version: 1, defaults: ['*'], rules: [
      { id: 'x', effect: 'allow', tools: Array(n).fill('*'), principals: Array(n).fill('zz') },
      { id: 'all', effect: 'allow', tools: ['*'] }] });
    assert.equal(rt.authorize({ tool: 'tool_x', principal: 'p' }).rule, 'rule:all');
    return median(() => rt.authorize({ tool: 'tool_x', principal: 'p' }));
  };
  cost(200);
  const a = cost(500), b = cost(500 * GROWTH);
  rt.dispose();
  assert.ok(b / a < LIMIT, `${GROWTH}x patterns and principals: ${a.toFixed(2)} ms -> ${b.toFixed(2)} ms (${(b / a).toFixed(1)}x)`);
});

test('matching limits are collected in linear time', async () => {
  const rt = await createToolRuntime({ clock: () => 1e6 });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  const cost = (n) => {
    const session_budgets = [];
    for (let i = 0; i < n; i++) session_budgets.push({ id: 'b' + i, tools: ['*', 'tool_*'], max_calls: 1e9 });
    rt.setPolicy({ version: 1, defaults: ['*'], rules: [{ effect: 'allow', tools: ['*'] }], session_budgets });
    return median(() => rt.authorize({ tool: 'tool_x' }), 7, 2);
  };
  cost(1000);
  const a = cost(2000), b = cost(2000 * GROWTH);
  rt.dispose();
  assert.ok(b / a < LIMIT, `${GROWTH}x budgets: ${a.toFixed(2)} ms -> ${b.toFixed(2)} ms (${(b / a).toFixed(1)}x)`);
});

test('equals on large objects is not quadratic in their members', async () => {
  const rt = await createToolRuntime({ clock: () => 1e6 });
  rt.registerTool({ name: 'tool_x', inputSchema: obj }, () => 'ran');
  const cost = (n) => {
    const o = {}, o2 = {};
    for (let i = 0; i < n; i++) o['k' + String(i).padStart(6, '0')] = 1;
    for (let i = n - 1; i >= 0; i--) o2['k' + String(i).padStart(6, '0')] = 1;
    rt.setPolicy({ version: 1, defaults: ['*'], rules: [
      { id: 'd', effect: 'deny', tools: ['tool_x'], args: { o: { equals: o } } }, { id: 'all', effect: 'allow', tools: ['*'] }] });
    const args = JSON.stringify({ o: o2 });
    assert.equal(rt.authorize({ tool: 'tool_x', args }).rule, 'rule:d'); // same members, other order
    // the rest of the call (parsing the arguments) is linear: measured with
    // one member fewer, where the comparison stops at the count
    const o3 = { ...o2 };
    delete o3.k000000;
    const other = JSON.stringify({ o: o3 });
    const eq = median(() => rt.authorize({ tool: 'tool_x', args }), 5, 1);
    const base = median(() => rt.authorize({ tool: 'tool_x', args: other }), 5, 1);
    return Math.max(eq - base, 0.05);
  };
  cost(500);
  const a = cost(2000), b = cost(2000 * GROWTH);
  rt.dispose();
  assert.ok(b / a < LIMIT, `${GROWTH}x members: ${a.toFixed(2)} ms -> ${b.toFixed(2)} ms (${(b / a).toFixed(1)}x)`);
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
