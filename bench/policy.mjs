// policy.mjs - policy decisions per second for 10, 1,000 and 10,000 rules
// over 10,000 registered tools, beside @cedar-policy/cedar-wasm evaluating
// the equivalent policy set in the same process (the mapping is described in
// lib-policy.mjs), printed as ratios. Also splits toolgate's per-decision
// time into the JS<->wasm call itself and the rest.
// Run: node bench/policy.mjs   (--quick: short budgets, ~10 s)
//
// Cedar API used: preparsePolicySet(id, { staticPolicies }) once per rule
// set, then statefulIsAuthorized({ principal, action, resource, context,
// entities, preparsedPolicySetId }) per decision: the policies are parsed
// once and cached inside the module, the fastest path cedar-wasm offers for
// repeated decisions. isAuthorized (which parses the policy text on every
// call) is shown for 10 rules only, for reference.
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { createToolRuntime } from 'toolgate';
import { measure, table, fmtNs } from './harness.mjs';
import { header, ratio } from './lib-report.mjs';
import { toolNames, makeRules, toolgatePolicy, cedarPolicies, makeRequests, cedarDecision } from './lib-policy.mjs';

const quick = process.argv.includes('--quick');
const budget = quick ? 250 : 1500;
const SIZES = [10, 1000, 10000];
const REQS = 1024; // the fixed request list both engines cycle through
// requests whose decisions (and deciding rule) the two engines must agree on;
// cedar takes ~40 ms a decision at 10,000 rules, so --quick checks fewer
const PROBES = quick ? 40 : 100;
const perSec = (ns) => { const d = 1e9 / ns; return d >= 1e6 ? `${(d / 1e6).toFixed(2)} M decisions/s` : d >= 1e3 ? `${(d / 1e3).toFixed(1)} k decisions/s` : `${d.toFixed(0)} decisions/s`; };
const PRINCIPAL = 'agent';

header('toolgate policy benchmark: decisions per second beside @cedar-policy/cedar-wasm');
console.log(`@cedar-policy/cedar-wasm ${cedar.getCedarSDKVersion?.() ?? '?'} (Cedar ${cedar.getCedarVersion()}, language ${cedar.getCedarLangVersion?.() ?? '?'}); API: preparsePolicySet + statefulIsAuthorized`);

// ---- 10,000 registered tools (registration is not measured)
const rt = await createToolRuntime({ limits: { memoryBytes: 255 * 2 ** 20 } });
const sources = toolNames();
const allNames = sources.flatMap((s) => s.names);
const schema = { type: 'object', properties: { path: { type: 'string' }, mode: { type: 'string' } } };
let registered = 0;
let regMs = performance.now();
for (const { source, names } of sources) {
  if (source === 'local') {
    // the host's own tools keep their names
    for (const name of names) rt.registerTool({ name, description: `bench tool ${name}`, inputSchema: schema }, () => 'ok');
    registered += names.length;
    continue;
  }
  // an upstream MCP server's tools: importTools names them mcp__<source>__<tool>
  const prefix = `mcp__${source}__`;
  const res = rt.importTools(source, names.map((name) => ({ name: name.slice(prefix.length), description: `bench tool ${name}`, inputSchema: schema })), { call: () => 'ok' });
  if (res.rejected.length) throw new Error(`toolgate rejected ${res.rejected.length} tools: ${JSON.stringify(res.rejected[0])}`);
  const got = res.registered.map((r) => r.name ?? r);
  if (got.some((g, i) => g !== names[i])) throw new Error(`unexpected registered names: ${JSON.stringify(got.slice(0, 3))}`);
  registered += res.registered.length;
}
regMs = performance.now() - regMs;
console.log(`${registered.toLocaleString('en')} tools registered in ${regMs.toFixed(0)} ms, not timed below (tool_0..tool_4999 and mcp__srv<0-19>__<read|write|delete|list|search>_<0-49>); ${REQS} precomputed requests per rule set, cycled by both engines`);

const cedarRequest = (tool, args, psetId) => ({
  principal: { type: 'Agent', id: PRINCIPAL },
  action: { type: 'Action', id: 'call' },
  resource: { type: 'Tool', id: tool },
  context: { args },
  entities: [{ uid: { type: 'Tool', id: tool }, attrs: { name: tool }, parents: [] }],
  preparsedPolicySetId: psetId,
});

const summary = [];
let trivialNs;
for (const n of SIZES) {
  const rules = makeRules(n);
  const counts = { allow: 0, deny: 0, ask: 0, args: 0, globs: 0 };
  for (const r of rules) { counts[r.effect]++; if (r.args) counts.args++; if (r.tools[0].includes('*')) counts.globs++; }

  // toolgate: compile the document
  let t0 = performance.now();
  rt.setPolicy(toolgatePolicy(rules));
  const tgCompileMs = performance.now() - t0;

  // cedar: preparse the equivalent policy set
  const staticPolicies = cedarPolicies(rules);
  const psetId = `bench-${n}`;
  t0 = performance.now();
  const parsed = cedar.preparsePolicySet(psetId, { staticPolicies });
  const cedarParseMs = performance.now() - t0;
  if (parsed.type !== 'success') throw new Error(`cedar rejected the policy set: ${JSON.stringify(parsed.errors.slice(0, 3))}`);

  // the same requests for both: tool name, args; toolgate's request object
  // and cedar's call object are built beforehand (neither engine pays for that)
  const reqs = makeRequests(REQS, rules, allNames);
  const tgReqs = reqs.map(({ tool, args }) => ({ tool, args, principal: PRINCIPAL }));
  const cdReqs = reqs.map(({ tool, args }) => cedarRequest(tool, args, psetId));

  // ---- agreement on PROBES requests before timing
  let agreed = 0;
  const seen = { allow: 0, ask: 0, deny: 0 };
  const mismatches = [];
  for (let i = 0; i < PROBES; i++) {
    const tg = rt.authorize(tgReqs[i]);
    const ans = cedar.statefulIsAuthorized(cdReqs[i]);
    const cd = cedarDecision(ans);
    // toolgate names the deciding rule; it must be among cedar's determining policies
    const ruleOk = !tg.rule.startsWith('rule:') || ans.response.diagnostics.reason.includes(tg.rule.slice(5));
    if (tg.decision === cd && ruleOk) agreed++;
    else mismatches.push({ req: reqs[i], toolgate: tg, cedar: cd, cedarReason: ans.response.diagnostics.reason });
    seen[tg.decision]++;
  }
  // and agreement over the whole request list, decisions only (skipped where
  // cedar would take more than a few seconds for it)
  let agreedAll = 0;
  const whole = n <= 1000 ? REQS : 0;
  for (let i = 0; i < whole; i++) if (rt.authorize(tgReqs[i]).decision === cedarDecision(cedar.statefulIsAuthorized(cdReqs[i]))) agreedAll++;

  console.log(`\n${n.toLocaleString('en')} rules (${counts.allow} allow, ${counts.deny} deny, ${counts.ask} ask; ${counts.globs} glob patterns; ${counts.args} with an argument condition)`);
  console.log(`  compile: toolgate rt.setPolicy ${tgCompileMs.toFixed(1)} ms; cedar preparsePolicySet ${cedarParseMs.toFixed(1)} ms`);
  console.log(`  agreement: ${agreed}/${PROBES} probe requests (decision and deciding rule)${whole ? `, ${agreedAll}/${whole} over the whole request list (decision)` : ''}; toolgate decided ${seen.allow} allow, ${seen.ask} ask, ${seen.deny} deny on the probes`);
  for (const m of mismatches.slice(0, 3)) console.log(`  MISMATCH ${JSON.stringify(m)}`);
  if (agreed !== PROBES || agreedAll !== whole) process.exitCode = 1;

  // ---- timing
  const mask = REQS - 1;
  const tgNs = measure((i) => rt.authorize(tgReqs[i & mask]), { budgetMs: budget });
  const cdNs = measure((i) => cedar.statefulIsAuthorized(cdReqs[i & mask]), { budgetMs: budget });
  const rows = [
    ['toolgate', tgNs, `rt.authorize({ tool, args, principal }); ${perSec(tgNs)}`],
    ['cedar-wasm statefulIsAuthorized', cdNs, `preparsed policy set; ${perSec(cdNs)}`],
  ];
  if (n === 10) {
    const plain = cdReqs.map(({ preparsedPolicySetId, ...r }) => ({ ...r, policies: { staticPolicies } }));
    if (cedarDecision(cedar.isAuthorized(plain[0])) !== cedarDecision(cedar.statefulIsAuthorized(cdReqs[0]))) throw new Error('isAuthorized disagrees');
    const isNs = measure((i) => cedar.isAuthorized(plain[i & mask]), { budgetMs: budget });
    rows.push(['cedar-wasm isAuthorized', isNs, `parses the policy text on every call; ${perSec(isNs)}`]);
  }
  table(`${n.toLocaleString('en')} rules: one decision over a random mix of ${REQS} requests (per decision)`, rows);

  // ---- where toolgate's time goes
  trivialNs ??= measure(() => rt.checkJSON('{}'), { budgetMs: budget });
  // the JS-side JSON work rt.authorize does around the wasm call: stringify
  // the request, parse the result ({ decision, rule, reason })
  const resTexts = tgReqs.map((q) => JSON.stringify(rt.authorize(q)));
  const strNs = measure((i) => JSON.stringify(tgReqs[i & mask]), { budgetMs: quick ? 100 : 400 });
  const parseNs = measure((i) => JSON.parse(resTexts[i & mask]), { budgetMs: quick ? 100 : 400 });
  const rest = Math.max(0, tgNs - trivialNs - strNs - parseNs);
  console.log(`  toolgate split of ${fmtNs(tgNs)}: a trivial rt call, rt.checkJSON('{}') ${fmtNs(trivialNs)} (JS<->wasm crossing, copy in, status back); JSON.stringify of the request ${fmtNs(strNs)}; JSON.parse of the result (${Math.round(resTexts.reduce((a, t) => a + t.length, 0) / REQS)} bytes on average) ${fmtNs(parseNs)}; the rest, inside the module (request JSON parse, name lookup, the decision, result JSON written, copied out) ${fmtNs(rest)}`);
  ratio(`${n.toLocaleString('en')} rules: cedar statefulIsAuthorized / toolgate authorize`, cdNs, tgNs);
  summary.push([n, tgNs, cdNs]);
}

console.log('\ndecisions per second (same process, same requests)');
console.log(`  ${'rules'.padStart(7)} ${'toolgate'.padStart(14)} ${'cedar-wasm'.padStart(14)}   cedar time / toolgate time`);
for (const [n, tg, cd] of summary) {
  console.log(`  ${n.toLocaleString('en').padStart(7)} ${Math.round(1e9 / tg).toLocaleString('en').padStart(14)} ${Math.round(1e9 / cd).toLocaleString('en').padStart(14)}   ${(cd / tg).toFixed(1)}x`);
}

// ---- hostile documents: a decision's cost as the document grows 8x
// (linear work costs ~8x; the reviewer measured 48-65x before these paths
// were made linear: a rule's filters read per pattern, limits de-duplicated
// pairwise, equals on objects compared member by member)
{
  const hostile = await createToolRuntime({ clock: () => 1e6, limits: { memoryBytes: 255 * 2 ** 20 } });
  hostile.registerTool({ name: 'tool_x', inputSchema: { type: 'object' } }, () => 'ran');
  const per = (f) => measure(f, { budgetMs: quick ? 100 : 400 });
  const cases = [
    ['a rule with n tool patterns and n principals', 500, (n) => {
      hostile.setPolicy({ version: 1, defaults: ['*'], rules: [
        { id: 'x', effect: 'allow', tools: Array(n).fill('*'), principals: Array(n).fill('zz') }, { id: 'all', effect: 'allow', tools: ['*'] }] });
      return () => hostile.authorize({ tool: 'tool_x', principal: 'p' });
    }],
    ['n session budgets matching the tool', 1000, (n) => {
      const session_budgets = Array.from({ length: n }, (_, i) => ({ id: 'b' + i, tools: ['*', 'tool_*'], max_calls: 1e9 }));
      hostile.setPolicy({ version: 1, defaults: ['*'], rules: [{ effect: 'allow', tools: ['*'] }], session_budgets });
      return () => hostile.authorize({ tool: 'tool_x' });
    }],
    ['equals on an object of n members (arguments in reverse order)', 2000, (n) => {
      const o = {}, o2 = {};
      for (let i = 0; i < n; i++) o['k' + String(i).padStart(6, '0')] = 1;
      for (let i = n - 1; i >= 0; i--) o2['k' + String(i).padStart(6, '0')] = 1;
      hostile.setPolicy({ version: 1, defaults: ['*'], rules: [
        { id: 'd', effect: 'deny', tools: ['tool_x'], args: { o: { equals: o } } }, { id: 'all', effect: 'allow', tools: ['*'] }] });
      const args = JSON.stringify({ o: o2 });
      return () => hostile.authorize({ tool: 'tool_x', args });
    }],
  ];
  const rows = [];
  for (const [what, n, make] of cases) {
    const a = per(make(n)), b = per(make(n * 8));
    rows.push([`${what}: n = ${n} -> ${n * 8}`, b, `${fmtNs(a)} -> ${fmtNs(b)}: ${(b / a).toFixed(1)}x for 8x the input (linear: ~8x)`]);
  }
  table('hostile policy documents: one decision as the document grows (per decision)', rows);
  hostile.dispose();
}
rt.dispose();
