// lib-policy.mjs - deterministic tool sets, rule sets and requests for
// bench/policy.mjs, written once as a toolgate policy document and once as
// the equivalent Cedar policy set.
//
// Mapping toolgate -> Cedar (one Cedar policy per toolgate rule):
//   tools ["tool_123"]            resource == Tool::"tool_123"
//   tools ["mcp__srv7__*"]        resource.name like "mcp__srv7__*"   (the Tool
//                                 entity carries its name as an attribute;
//                                 `*` means the same in both: any run of bytes)
//   effect deny                   forbid (...)
//   effect allow                  permit (...)
//   effect ask                    permit (...) with @effect("ask") and a policy
//                                 id starting "ask-". Cedar has only permit and
//                                 forbid; toolgate's precedence is deny > ask >
//                                 allow > unmatched (deny). Cedar's forbid
//                                 overrides permit and no match is deny, so a
//                                 Cedar "allow" is toolgate's "ask" exactly when
//                                 a satisfied ask-permit is among the
//                                 determining policies (response.diagnostics
//                                 .reason lists every satisfied permit), else
//                                 "allow". One Cedar call per decision, like
//                                 one rt.authorize.
//   args { path: { prefix: "/work/" } }
//                                 when { context.args has path &&
//                                        context.args.path like "/work/*" }
//   args { mode: { equals: "fast" } }
//                                 when { context.args has mode &&
//                                        context.args.mode == "fast" }
//                                 (`has` guards keep an absent argument a plain
//                                 non-match, as in toolgate, instead of a Cedar
//                                 evaluation error)
// Not mapped (kept out of the requests so the two engines agree): toolgate's
// fail-closed handling of `..` path segments and non-string values under
// prefix, its grants step (the principal here is granted "*"), modes, tenants.

/** small deterministic PRNG (mulberry32) */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SERVERS = 20;
export const VERBS = ['read', 'write', 'delete', 'list', 'search'];
const PER = 50; // tools per (server, verb)

/**
 * 10,000 tool names: tool_0 .. tool_4999 and mcp__srv<s>__<verb>_<k>
 * (20 servers x 5 verbs x 50). Returned grouped by source for importTools.
 */
export function toolNames() {
  const bySource = [{ source: 'local', names: Array.from({ length: 5000 }, (_, i) => `tool_${i}`) }];
  for (let s = 0; s < SERVERS; s++) {
    const names = [];
    for (const v of VERBS) for (let k = 0; k < PER; k++) names.push(`mcp__srv${s}__${v}_${k}`);
    bySource.push({ source: `srv${s}`, names });
  }
  return bySource;
}

const CONDS = [
  ['path', { prefix: '/work/' }],
  ['path', { prefix: '/srv/secrets/' }],
  ['mode', { equals: 'fast' }],
];

/**
 * n rules: ~65% exact names, ~27% per-server globs, ~8% cross-server globs;
 * effects ~60% allow, ~25% deny, ~15% ask; ~30% carry one argument condition.
 */
export function makeRules(n, seed = 42) {
  const r = rng(seed + n);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const rules = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    let tool;
    if (x < 0.45) tool = `tool_${Math.floor(r() * 5000)}`;
    else if (x < 0.65) tool = `mcp__srv${Math.floor(r() * SERVERS)}__${pick(VERBS)}_${Math.floor(r() * PER)}`;
    else if (x < 0.92) {
      const s = Math.floor(r() * SERVERS);
      const y = r();
      tool = y < 0.3 ? `mcp__srv${s}__*` : y < 0.7 ? `mcp__srv${s}__${pick(VERBS)}_*` : `mcp__srv${s}__${pick(VERBS)}_${Math.floor(r() * 5)}*`;
    } else tool = r() < 0.5 ? `mcp__*__${pick(VERBS)}_*` : `mcp__*__${pick(VERBS)}_${Math.floor(r() * PER)}`;
    const e = r();
    const effect = e < 0.6 ? 'allow' : e < 0.85 ? 'deny' : 'ask';
    const rule = { id: `${effect}-${i}`, effect, tools: [tool] };
    if (r() < 0.3) {
      const [arg, cond] = pick(CONDS);
      rule.args = { [arg]: cond };
    }
    rules.push(rule);
  }
  return rules;
}

export function toolgatePolicy(rules) {
  return {
    version: 1,
    description: `bench: ${rules.length} rules`,
    principals: { agent: { grants: ['*'] } },
    unknown_principals: 'deny',
    rules,
  };
}

const cedarStr = (s) => JSON.stringify(s); // our strings are plain ASCII, no escapes needed beyond JSON's
// a `like` pattern literal: `*` is the wildcard (as in toolgate patterns); the
// generated names and prefixes hold no `*`, `\\` or `"` to escape
const likeLit = (s) => { if (/[\\"]/.test(s)) throw new Error(`unexpected character in ${s}`); return `"${s}"`; };

function cedarCondition(args) {
  if (!args) return '';
  const parts = [];
  for (const [arg, cond] of Object.entries(args)) {
    if ('prefix' in cond) parts.push(`context.args has ${arg} && context.args.${arg} like ${likeLit(`${cond.prefix}*`)}`);
    if ('equals' in cond) parts.push(`context.args has ${arg} && context.args.${arg} == ${cedarStr(cond.equals)}`);
  }
  return ` when { ${parts.join(' && ')} }`;
}

/** The same rules as a Cedar static policy set: { [policyId]: text }. */
export function cedarPolicies(rules) {
  const out = {};
  for (const rule of rules) {
    const [tool] = rule.tools;
    const res = tool.includes('*') ? `resource is Tool` : `resource == Tool::${cedarStr(tool)}`;
    const like = tool.includes('*') ? ` when { resource.name like ${likeLit(tool)} }` : '';
    const head = rule.effect === 'deny' ? 'forbid' : 'permit';
    const ann = rule.effect === 'ask' ? '@effect("ask") ' : '';
    out[rule.id] = `${ann}${head} (principal, action == Action::"call", ${res})${like}${cedarCondition(rule.args)};`;
  }
  return out;
}

const ARGS = [
  {},
  { path: '/work/src/main.c' },
  { path: '/srv/secrets/key.pem' },
  { path: '/tmp/out.txt' },
  { path: '/tmp/out.txt', mode: 'fast' },
  { mode: 'slow' },
];

/**
 * count requests, half naming a tool some rule names exactly (or a tool a
 * glob covers), half any registered tool; a fixed argument mix.
 */
export function makeRequests(count, rules, allNames, seed = 7) {
  const r = rng(seed + rules.length);
  const exact = rules.map((x) => x.tools[0]).filter((t) => !t.includes('*'));
  const reqs = [];
  for (let i = 0; i < count; i++) {
    const tool = exact.length && r() < 0.5 ? exact[Math.floor(r() * exact.length)] : allNames[Math.floor(r() * allNames.length)];
    reqs.push({ tool, args: ARGS[Math.floor(r() * ARGS.length)] });
  }
  return reqs;
}

/** Cedar's answer mapped back to allow / ask / deny (see the mapping above). */
export function cedarDecision(answer) {
  if (answer.type !== 'success') throw new Error(`cedar failed: ${JSON.stringify(answer.errors)}`);
  const { decision, diagnostics } = answer.response;
  if (diagnostics.errors.length) throw new Error(`cedar evaluation errors: ${JSON.stringify(diagnostics.errors[0])}`);
  if (decision === 'deny') return 'deny';
  return diagnostics.reason.some((id) => id.startsWith('ask-')) ? 'ask' : 'allow';
}
