// trap_fuzz.mjs - randomized differential tester of toolgate's trap recovery
// (written by a reviewer; tests/js/recovery_random.test.js runs a fixed range of seeds).
// A seed gives a sequence of 20-80 operations over a tiny universe (so names,
// descriptions and definitions collide often). The sequence runs twice on
// fresh runtimes with a fake clock: plainly, and with rt._selftestTrap()
// before one or more steps. Every observable after the first trap must match.
//
//   node tests/js/trap_fuzz.mjs [firstSeed=1] [count=500] [--verbose] [--only=SEED]
//
// Expected differences that are neutralized, not reported:
//  - epochs, tools/list cursors' epoch part and snapshot ids (they move past a trap);
//  - snapshots taken before a trap are refused after it: at each trap point the
//    plain run releases every snapshot it holds, and both runs skip later ops
//    that name such a snapshot;
//  - approval ids and tokens are random: compared by order of first appearance;
//  - an approval already answered (denied, used, issued as a token) or expired is
//    refused after a trap as unknown rather than with its own reason (the same
//    code, nothing runs; README: left out): MASK_RESOLVED=0 shows those.
// Handlers are synchronous, so no call is in flight at a trap.
import { createToolRuntime } from 'toolgate';

// ---------- seeded PRNG ----------
function mulberry32(a) {
  return () => {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------- universe ----------
const SOURCES = [
  { name: 'a', template: '{tool}' },
  { name: 'b', template: undefined },
  { name: 'c', template: '{tool}' },
  { name: 'd', template: undefined },
  { name: 'A', template: '{tool}' }, // a case variant of 'a'
];
const NAMES = ['read_file', 'Read_File', 'read-file', 'read_fiIe', 'read_fi1e', 'rnodem', 'modem', 'x', 'X', 'send_email', 'vvipe', 'wipe'];
const DESCS = [undefined, 'Reads a file.', 'Reads a file.', 'Reads a file!', 'Reads\u200B a file.', '\u202EReads a file.', 'Sends mail. \u2066ignore\u2069', 'Deletes the table.'];
const PROPS = [
  () => ({ path: { type: 'string' } }),
  () => ({ path: { type: 'string', maxLength: 10 } }),
  () => ({ path: { type: 'string' }, tenant_id: { type: 'string' } }),
  () => ({ n: { type: 'number', maximum: 10 } }),
  () => ({}),
];
const NUM_SPELL = ['10', '10.0', '1e1', '9007199254740993', '10.5'];
const OPTIONS = [
  undefined, undefined, undefined,
  { needsApproval: true },
  { tenant: 'acme' },
  { readOnly: true },
  { timeoutMs: 5000 },
  { timeoutMs: 5000.0 },
  { context: { tenant_id: 'tenant' } },
  { needsApproval: true, readOnly: true },
  { context: { tenant_id: 'tenant' }, contextParams: 'drop' },
  { concurrency: 1, edit: true },
];
const POLICIES = [
  { version: 1, defaults: ['*'], rules: [{ id: 'all', effect: 'allow', tools: ['*'] }] },
  { version: 1, defaults: ['*'], rules: [{ id: 'ask-read', effect: 'ask', tools: ['*read_*'] }, { id: 'all', effect: 'allow', tools: ['*'] }],
    rate_limits: [{ id: 'rl', tools: ['*'], capacity: 2, refill_per_second: 0.5 }] },
  { version: 1, defaults: ['*'], rules: [{ id: 'deny-x', effect: 'deny', tools: ['x', 'mcp__*__x'] }, { id: 'ask-mail', effect: 'ask', tools: ['*send*', '*wipe*'] },
    { id: 'all', effect: 'allow', tools: ['*'] }], session_budgets: [{ id: 'b', tools: ['*'], max_calls: 3 }], tenants: { acme: ['*read*'] } },
  { version: 1, defaults: ['read_file', 'mcp__*'], principals: { p1: { grants: ['*'] } }, unknown_principals: 'default',
    rules: [{ id: 'ask-all', effect: 'ask', tools: ['*'] }], session_budgets: [{ id: 'b2', tools: ['*read*'], max_calls: 2 }] },
  { version: 1, rulez: [] }, // refused
];
const FORMATS = ['mcp', 'anthropic', 'openai', 'openai-strict', 'gemini', 'bedrock'];
const PRINCIPALS = [undefined, 'p1', 'p2'];
const SESSIONS = [undefined, 's1', 's2'];
const ARGS = [{}, { path: '/a' }, { path: '/etc/passwd' }, '{"path":"/a"}', '{"path": "/a", "path": "/b"}', { n: 10 }, { n: 11 }, '{"n":10.0}',
  { path: '/a', tenant_id: 't' }, { path: 'a-very-long-path' }];

// ---------- generation ----------
function genDescriptor(R, pick, name) {
  const d = { name };
  const desc = pick(DESCS);
  if (desc !== undefined) d.description = desc;
  d.inputSchema = { type: 'object', properties: pick(PROPS)() };
  if (R() < 0.15) d.annotations = { readOnlyHint: R() < 0.5 };
  if (R() < 0.08) d.title = pick(['T', 'T\u200D', 'Title']);
  if (R() < 0.06) d.outputSchema = { type: 'object', properties: { r: { type: 'string' } } };
  if (R() < 0.06) d.icons = [{ src: pick(['https://x.example/i.png', 'ftp://bad', 'data:image/png;base64,AA==']) }];
  if (R() < 0.06) d._meta = { k: pick([1, 1.5, 'v']) };
  if (R() < 0.05) d.extra = pick([1, 'two']);
  if (R() < 0.04) d.execution = { taskSupport: 'optional' };
  return d;
}

/** A descriptor as JSON text with a number spelled one of several ways. */
function genDescriptorText(R, pick, name) {
  const desc = pick(DESCS);
  return `{"name":${JSON.stringify(name)}${desc !== undefined ? `,"description":${JSON.stringify(desc)}` : ''},"inputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":${pick(NUM_SPELL)}}}}}`;
}

export function generate(seed) {
  const R = mulberry32(seed);
  const pick = (arr) => arr[Math.floor(R() * arr.length)];
  const subset = (arr, max) => { const out = []; for (const x of arr) if (R() < max / arr.length) out.push(x); return out; };
  const n = 20 + Math.floor(R() * 61);
  const ops = [];
  for (let i = 0; i < n; i++) {
    const r = R();
    if (r < 0.18) {
      const src = pick(SOURCES);
      const names = subset(NAMES, 3);
      const tools = names.map((nm) => genDescriptor(R, pick, nm));
      const opt = R() < 0.3 ? pick(OPTIONS) : undefined;
      ops.push({ op: 'import', source: src.name, template: R() < 0.9 ? src.template : pick(['{tool}', undefined]), tools, options: opt });
    } else if (r < 0.22) {
      // re-list the last listing of a source (identical): common in practice
      const prev = [...ops].reverse().find((o) => o.op === 'import');
      if (prev) ops.push({ ...prev });
      else i--;
    } else if (r < 0.28) {
      const nm = pick(NAMES);
      const asText = R() < 0.3;
      ops.push({ op: 'register', descriptor: asText ? genDescriptorText(R, pick, nm) : genDescriptor(R, pick, nm), options: pick(OPTIONS), sameHandler: R() < 0.5 });
    } else if (r < 0.34) {
      const src = R() < 0.6 ? 'p' : pick(SOURCES).name;
      const entries = subset(NAMES, 2.5).map((nm) => ({ descriptor: genDescriptor(R, pick, nm), options: R() < 0.3 ? pick(OPTIONS) : undefined }));
      ops.push({ op: 'batch', source: src, entries, atomic: R() < 0.5, replace: R() < 0.5, template: R() < 0.4 ? '{tool}' : undefined, sameHandler: R() < 0.6 });
    } else if (r < 0.42) {
      ops.push({ op: 'accept', ref: Math.floor(R() * 1000), withDigest: R() < 0.7, wrongDigest: R() < 0.1, held: R() < 0.75 });
    } else if (r < 0.45) {
      ops.push({ op: 'removeSource', source: pick([...SOURCES.map((s) => s.name), 'p', '']) });
    } else if (r < 0.47) {
      ops.push({ op: 'configure', config: pick([{ descriptionBytes: 64 }, { toolsPerSource: 3 }, { formats: 'assert' }]) });
    } else if (r < 0.51) {
      ops.push({ op: 'snapshot' });
    } else if (r < 0.53) {
      ops.push({ op: 'release', ref: Math.floor(R() * 1000) });
    } else if (r < 0.57) {
      ops.push({ op: 'setPolicy', policy: Math.floor(R() * POLICIES.length) });
    } else if (r < 0.58) {
      ops.push({ op: 'setKey' });
    } else if (r < 0.74) {
      ops.push({ op: 'call', name: R() < 0.85 ? { ref: Math.floor(R() * 1000) } : pick(NAMES), args: pick(ARGS),
        principal: pick(PRINCIPALS), session: pick(SESSIONS), tenant: R() < 0.15 ? 'acme' : undefined,
        context: R() < 0.2 ? { tenant: 'acme-tenant' } : undefined, mode: R() < 0.08 ? pick(['plan', 'acceptEdits', 'bypassPermissions']) : undefined,
        approval: R() < 0.15 ? Math.floor(R() * 1000) : undefined, token: R() < 0.1 ? Math.floor(R() * 1000) : undefined,
        snapshot: R() < 0.2 ? Math.floor(R() * 1000) : undefined, format: R() < 0.1 ? 'openai-strict' : undefined });
    } else if (r < 0.8) {
      ops.push({ op: 'resolve', ref: Math.floor(R() * 1000), answer: pick(['approve', 'approve', 'approve_session', 'deny', 'approve_token']) });
    } else if (r < 0.82) {
      ops.push({ op: 'endSession', session: pick(['s1', 's2', '']) });
    } else if (r < 0.94) {
      ops.push({ op: 'list', format: pick(FORMATS), principal: pick(PRINCIPALS), session: R() < 0.3 ? pick(SESSIONS) : undefined,
        tenant: R() < 0.15 ? 'acme' : undefined, mode: R() < 0.1 ? 'plan' : undefined, scheduler: R() < 0.05 ? true : undefined,
        snapshot: R() < 0.25 ? Math.floor(R() * 1000) : undefined, limit: R() < 0.2 ? 1 + Math.floor(R() * 3) : undefined });
    } else if (r < 0.97) {
      ops.push({ op: 'authorize', name: { ref: Math.floor(R() * 1000) }, args: pick(ARGS), principal: pick(PRINCIPALS), session: pick(SESSIONS) });
    } else {
      ops.push({ op: 'tick', ms: pick([0, 300, 2000, 100000, 3_700_000]) });
    }
  }
  const rtOptions = {};
  if (R() < 0.2) rtOptions.limits = { tools: 3 + Math.floor(R() * 5) };
  if (R() < 0.1) rtOptions.toolsPerSource = 2 + Math.floor(R() * 2);
  if (R() < 0.1) rtOptions.descriptionBytes = 8;
  if (R() < 0.1) rtOptions.formats = 'assert';
  if (R() < 0.5) ops.unshift({ op: 'setPolicy', policy: pick([1, 2, 3, 3]) });
  if (R() < 0.1) ops.unshift({ op: 'configure', config: pick([{ descriptionBytes: 64 }, { toolsPerSource: 3 }, { formats: 'assert' }]) });
  const traps = new Set();
  const k = R() < 0.6 ? 1 : 1 + Math.floor(R() * 3);
  for (let j = 0; j < k; j++) traps.add(Math.floor(R() * (n + 1)));
  return { ops, traps: [...traps].sort((x, y) => x - y), rtOptions };
}

// ---------- execution ----------
const errCode = (r) => r?._meta?.['dev.toolgate/error']?.code;

/** Runs ops; trapAt: steps before which a trap is forced (when doTrap) or snapshots released (plain). */
export async function run({ ops, traps, rtOptions = {} }, doTrap, { final = true } = {}) {
  let now = 1_000_000;
  const rt = await createToolRuntime({ clock: () => now, ...rtOptions });
  const log = [];
  const audit = [];
  rt.onAudit((e) => { const { callId, durationMs, ...rest } = e; audit.push(rest); });
  // what the sequence can refer to (same order in both runs when results agree)
  const seenNames = [];      // model-visible names seen in results
  const seenDigests = [];    // [name, digest]
  const seenChanged = [];    // [name, digest] of changes held
  const snaps = [];          // { snap, dead }
  const approvals = [];      // approval ids in order of appearance
  const tokens = [];         // approval tokens
  const answered = new Set(); // approval ids a resolve answered
  const idMap = new Map();   // approval id / token -> symbolic
  const sym = (prefix, v) => { if (!idMap.has(v)) idMap.set(v, `${prefix}#${idMap.size}`); return idMap.get(v); };
  const handlerFns = new Map(); // (for sameHandler: a plugin reusing its handler function)
  const addName = (n) => { if (typeof n === 'string' && !seenNames.includes(n)) seenNames.push(n); };
  const refName = (x) => (typeof x === 'string' ? x : seenNames.length ? seenNames[x.ref % seenNames.length] : 'read_file');
  const snapOf = (ref) => (snaps.length ? snaps[ref % snaps.length] : null);

  function norm(v) {
    // removes what legitimately differs across a trap; maps random ids to symbols
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === 'object') {
      const o = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === 'epoch') continue;
        if (k === 'nextCursor') { o[k] = String(x).replace(/^\d+:/, 'E:'); continue; }
        if (k === 'approvalId') { o[k] = sym('approval', x); continue; }
        if (k === 'token') { o[k] = sym('token', x); continue; }
        if (k === 'id' && typeof x === 'number') continue; // snapshot ids
        if (k === 'callId') continue;
        // (SORT_REMOVED: the order of BatchResult.removed follows the registry's hash map, which a restore refills in another order — finding 03)
        if (k === 'removed' && Array.isArray(x) && process.env.SORT_REMOVED === '1') { o[k] = [...x].sort(); continue; }
        o[k] = norm(x);
      }
      return o;
    }
    if (typeof v === 'string') {
      let s = v;
      for (const [id, sy] of idMap) if (id.length > 6 && s.includes(id)) s = s.split(id).join(sy);
      return s;
    }
    return v;
  }
  const harvest = (res) => {
    if (!res || typeof res !== 'object') return;
    for (const r of res.registered ?? []) { addName(r.name); seenDigests.push([r.name, r.digest]); }
    for (const c of res.changed ?? []) { addName(c.name); seenDigests.push([c.name, c.digest]); seenChanged.push([c.name, c.digest]); }
    if (res.name && res.digest) { addName(res.name); seenDigests.push([res.name, res.digest]); }
    if (res.status === 'pending_approval') { approvals.push(res.approvalId); sym('approval', res.approvalId); }
    if (res.status === 'approved' && res.token) { tokens.push(res.token); sym('token', res.token); }
  };
  const handlerFor = (label) => (args, info) => `${label}|${info.tool}|${JSON.stringify(args)}|${JSON.stringify(info.context)}`;

  for (let i = 0; i <= ops.length; i++) {
    if (traps.includes(i)) {
      if (doTrap) {
        let code = 'none';
        try { rt._selftestTrap(); } catch (e) { code = e.code; }
        log.push({ step: i, op: 'TRAP', out: code === 'module_trap' ? 'ok' : `unexpected ${code}` });
      } else {
        for (const s of snaps) if (!s.dead) s.snap.release();
        log.push({ step: i, op: 'TRAP', out: 'ok' });
      }
      for (const s of snaps) s.dead = true;
    }
    if (i === ops.length) break;
    const o = ops[i];
    let out;
    try {
      switch (o.op) {
        case 'import': {
          const opts = { call: (tool, args, info) => `imp:${o.source}@${i}|${tool}|${info.tool}|${JSON.stringify(args)}` };
          if (o.template) opts.nameTemplate = o.template;
          if (o.options) opts.options = o.options;
          out = rt.importTools(o.source, o.tools, opts);
          break;
        }
        case 'register': {
          const key = `host/${typeof o.descriptor === 'string' ? JSON.parse(o.descriptor).name : o.descriptor.name}`;
          let fn = o.sameHandler ? handlerFns.get(key) : undefined;
          if (!fn) { fn = handlerFor(`reg@${i}`); handlerFns.set(key, fn); }
          out = rt.registerTool(o.descriptor, fn, o.options);
          break;
        }
        case 'batch': {
          const entries = o.entries.map((e) => {
            const key = `${o.source}/${e.descriptor.name}`;
            let fn = o.sameHandler ? handlerFns.get(key) : undefined;
            if (!fn) { fn = handlerFor(`batch:${o.source}@${i}`); handlerFns.set(key, fn); }
            return { descriptor: e.descriptor, handler: fn, ...(e.options ? { options: e.options } : {}) };
          });
          out = rt.registerBatch(o.source, entries, { atomic: o.atomic, replace: o.replace, ...(o.template ? { nameTemplate: o.template } : {}) });
          break;
        }
        case 'accept': {
          const pool = o.held && seenChanged.length ? seenChanged : seenDigests;
          if (!pool.length) { out = 'skip'; break; }
          const [name, digest] = pool[o.ref % pool.length];
          rt.acceptChange(name, o.withDigest ? (o.wrongDigest ? digest.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) : digest) : undefined);
          out = { accepted: name };
          break;
        }
        case 'removeSource': out = rt.removeSource(o.source); break;
        case 'configure': rt.configure(o.config); out = 'ok'; break;
        case 'snapshot': {
          const s = rt.snapshot();
          snaps.push({ snap: s, dead: false });
          out = { tools: s.tools };
          break;
        }
        case 'release': {
          const s = snapOf(o.ref);
          if (!s || s.dead) { out = 'skip'; break; }
          s.snap.release(); s.dead = true; out = 'ok';
          break;
        }
        case 'setPolicy': rt.setPolicy(POLICIES[o.policy]); out = 'ok'; break;
        case 'setKey': rt.setApprovalKey('k'.repeat(32)); out = 'ok'; break;
        case 'call': {
          const ctx = {};
          for (const k of ['principal', 'session', 'tenant', 'context', 'mode', 'format']) if (o[k] !== undefined) ctx[k] = o[k];
          if (o.approval !== undefined && approvals.length) {
            const id = approvals[o.approval % approvals.length];
            // (SKIP_PENDING: a call naming a still-pending approval id makes the host forget it — finding 02)
            if (process.env.SKIP_PENDING !== '1' || answered.has(id)) ctx.approval = id;
          }
          if (o.token !== undefined && tokens.length) ctx.approvalToken = tokens[o.token % tokens.length];
          if (o.snapshot !== undefined) {
            const s = snapOf(o.snapshot);
            if (s && s.dead) { out = 'skip(dead snapshot)'; break; }
            if (s) ctx.snapshot = s.snap;
          }
          out = await rt.callTool(refName(o.name), o.args, ctx);
          break;
        }
        case 'resolve': {
          if (!approvals.length) { out = 'skip'; break; }
          const id = approvals[o.ref % approvals.length];
          out = await rt.resolveApproval(id, o.answer);
          break;
        }
        case 'endSession': rt.endSession(o.session); out = 'ok'; break;
        case 'list': {
          const req = {};
          for (const k of ['format', 'principal', 'session', 'tenant', 'mode', 'scheduler']) if (o[k] !== undefined) req[k] = o[k];
          if (o.snapshot !== undefined) {
            const s = snapOf(o.snapshot);
            if (s && s.dead) { out = 'skip(dead snapshot)'; break; }
            if (s) req.snapshot = s.snap;
          }
          if (o.limit && o.format === 'mcp') {
            // all pages in one step (a cursor never crosses a trap)
            const pages = [];
            let cursor;
            for (let p = 0; p < 50; p++) {
              const page = rt.listTools({ ...req, limit: o.limit, ...(cursor ? { cursor } : {}) });
              pages.push(page);
              if (!page.nextCursor) break;
              cursor = page.nextCursor;
            }
            out = pages;
          } else out = rt.listTools(req);
          break;
        }
        case 'authorize': {
          const req = { tool: refName(o.name), args: o.args };
          if (o.principal) req.principal = o.principal;
          if (o.session) req.session = o.session;
          out = rt.authorize(req);
          break;
        }
        case 'tick': now += o.ms; out = 'ok'; break;
        default: throw new Error(`op ${o.op}`);
      }
    } catch (e) {
      if (e && e.code) out = { threw: e.code, message: e.message };
      else out = { threwJS: String(e && e.stack || e) };
    }
    harvest(out);
    // (MASK_RESOLVED: an approval already resolved or denied is forgotten by a trap: refused with
    // another message, same code — finding 01; masked so the search goes on)
    if (process.env.MASK_RESOLVED !== '0' && errCode(out) === 'approval_refused' && /already resolved|was denied|unknown approval id|expired|issued as a token|already used/.test(out.content[0].text)) out = { refused: 'approval_refused(resolved-or-unknown)' };
    if (o.op === 'resolve' && errCode(out) !== 'approval_refused' && approvals.length) answered.add(approvals[o.ref % approvals.length]);
    if (out && typeof out === 'object' && !Array.isArray(out) && Array.isArray(out.tools)) for (const t of out.tools) addName(t.name ?? t.function?.name ?? t.toolSpec?.name);
    log.push({ step: i, op: o.op, out: JSON.stringify(norm(out)) });
  }
  // final probe: every format, every principal; a call to every name seen
  if (final) {
    const probe = {};
    for (const f of FORMATS) for (const p of PRINCIPALS) {
      try { probe[`${f}/${p}`] = norm(rt.listTools({ format: f, ...(p ? { principal: p } : {}) })); } catch (e) { probe[`${f}/${p}`] = e.code; }
    }
    for (const nm of seenNames.slice(0, 30)) {
      probe[`call ${nm}`] = norm(await rt.callTool(nm, { path: '/z' }, { principal: 'p1', session: 's9' }));
    }
    probe.lostRestores = rt.lostRestores;
    // held changes made visible: accept each name seen, then list again
    for (const nm of seenNames.slice(0, 30)) {
      try { rt.acceptChange(nm); probe[`accept ${nm}`] = 'ok'; } catch (e) { probe[`accept ${nm}`] = e.code; }
    }
    probe.afterAccept = norm(rt.listTools({ format: 'mcp' }));
    for (const nm of seenNames.slice(0, 30)) probe[`call2 ${nm}`] = norm(await rt.callTool(nm, { path: '/z' }, { principal: 'p1', session: 's9' }));
    log.push({ step: ops.length, op: 'PROBE', out: JSON.stringify(probe) });
  }
  log.push({ step: ops.length + 1, op: 'AUDIT', out: JSON.stringify(norm(audit.slice(-40))) });
  rt.dispose();
  return log;
}

/** Compares the two runs: returns the first differing entry at or after the first trap. */
export async function diff(seq) {
  const a = await run(seq, false);
  const b = await run(seq, true);
  for (let j = 0; j < Math.max(a.length, b.length); j++) {
    const x = a[j], y = b[j];
    if (!x || !y || x.out !== y.out) {
      if (x?.op === 'AUDIT') {
        // audit events around a trap: compared only when the rest agrees
        return { j, step: x?.step, op: x?.op, plain: x?.out, trapped: y?.out, auditOnly: true };
      }
      return { j, step: x?.step ?? y?.step, op: x?.op ?? y?.op, plain: x?.out, trapped: y?.out };
    }
  }
  return null;
}

// ---------- main ----------
if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const verbose = argv.includes('--verbose');
  const only = argv.find((a) => a.startsWith('--only='));
  const nums = argv.filter((a) => !a.startsWith('--')).map(Number);
  const first = only ? Number(only.slice(7)) : nums[0] ?? 1;
  const count = only ? 1 : nums[1] ?? 500;
  let failures = 0, opsRun = 0;
  const byOp = {};
  const t0 = Date.now();
  for (let seed = first; seed < first + count; seed++) {
    const seq = generate(seed);
    opsRun += seq.ops.length;
    let d;
    try { d = await diff(seq); } catch (e) { d = { crash: String(e.stack) }; }
    if (d) {
      failures++;
      const key = d.crash ? 'crash' : `${d.op}${d.auditOnly ? '(audit)' : ''}`;
      byOp[key] = (byOp[key] ?? 0) + 1;
      console.log(`seed ${seed}: step ${d.step} ${d.op}${d.crash ? ` CRASH ${d.crash}` : ''} traps=${seq.traps}`);
      if (verbose) {
        console.log('  op:', JSON.stringify(seq.ops[d.step])?.slice(0, 600));
        console.log('  plain  :', d.plain?.slice(0, 1500));
        console.log('  trapped:', d.trapped?.slice(0, 1500));
      }
    }
  }
  console.log(`seeds ${first}..${first + count - 1}: ${failures} differing, ${opsRun} ops, ${Date.now() - t0} ms`, byOp);
  process.exit(failures ? 1 : 0);
}
