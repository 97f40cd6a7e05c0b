// ab-builds.mjs - two builds of toolgate side by side in one process, in
// alternating rounds (the order flipped each round; medians of rounds 3 on),
// so a change is measured against the build before it on the same VM
// minute: a 195-byte call (also under a gateway's kind of policy, one rule
// of which reads the call's arguments), its verdict and first error, a 98 KB
// validation, an import of 1,000 tools.
// Run: node bench/ab-builds.mjs OLD_CHECKOUT NEW_CHECKOUT   (each with its dist/ built,
// e.g. git worktree add /tmp/old <commit> && (cd /tmp/old && npm run build)),
// then again with the two swapped: here the build loaded first measured up
// to ~10% faster on the short operations (2026-11-24), so a difference
// smaller than that counts only when both orders show it.
import path from 'node:path';
import { bigSchema, bigArgs, callSchema, validArgs, invalidArgs } from './schemas.mjs';
import { makeTools } from './lib-tools.mjs';

const roots = process.argv.slice(2).map((r) => path.resolve(r));
if (roots.length < 2) {
  console.error('usage: node bench/ab-builds.mjs OLD_CHECKOUT NEW_CHECKOUT');
  process.exit(2);
}
const big = bigArgs();
const tools = makeTools(1000);
const POLICY = { version: 1, defaults: ['*'], rules: [
  { id: 'no-deletes', effect: 'deny', tools: ['*delete*'] }, { id: 'confirm-deploys', effect: 'ask', tools: ['*deploy*'] },
  { id: 'no-secret-repos', effect: 'deny', tools: ['c'], args: { repo: { suffix: '-secret' } } },
  { id: 'the-rest', effect: 'allow', tools: ['*'] }] };
const xs = [];
for (const root of roots) {
  const { createToolRuntime } = await import(`${root}/js/src/node.js`);
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'c', inputSchema: callSchema }, () => 'ok');
  const rp = await createToolRuntime({ policy: POLICY });
  rp.registerTool({ name: 'c', inputSchema: callSchema }, () => 'ok');
  xs.push({ root, createToolRuntime, rt, rp, v: rt.compileSchema(bigSchema), c: rt.compileSchema(callSchema) });
}
const acc = {};
const rec = (k, w, us) => ((acc[k] ??= {})[w] ??= []).push(us);
const timed = (n, f) => { const t0 = performance.now(); for (let i = 0; i < n; i++) f(); return (performance.now() - t0) * 1e3 / n; };
for (let round = 0; round < 14; round++) {
  for (const x of (round % 2 ? [...xs].reverse() : xs)) {
    const keep = round >= 2;
    const bigUs = timed(200, () => x.v.validate(big));
    let t0 = performance.now();
    for (let i = 0; i < 20000; i++) await x.rt.callTool('c', validArgs);
    const callUs = (performance.now() - t0) * 1e3 / 20000;
    t0 = performance.now();
    for (let i = 0; i < 20000; i++) await x.rp.callTool('c', validArgs);
    const policyUs = (performance.now() - t0) * 1e3 / 20000;
    const flagUs = timed(40000, () => x.c.validate(validArgs, { output: 'flag' }));
    const firstUs = timed(40000, () => x.c.validate(invalidArgs, { maxErrors: 1 }).errors[0]);
    const r2 = await x.createToolRuntime();
    t0 = performance.now();
    r2.importTools('gh', tools, { call: () => 1 });
    const importUs = (performance.now() - t0) * 1e3;
    r2.dispose();
    if (keep) {
      rec('validate 98 KB', x.root, bigUs);
      rec('call, 195 B', x.root, callUs);
      rec('call, 4-rule policy', x.root, policyUs);
      rec('verdict, 195 B', x.root, flagUs);
      rec('first error, 195 B', x.root, firstUs);
      rec('import 1,000 tools', x.root, importUs);
    }
  }
}
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(3)} us`);
console.log(`medians of ${acc['call, 195 B'][roots[0]].length} alternating rounds; ratio = ${roots[0]} / ${roots[1]}`);
for (const [k, m] of Object.entries(acc)) {
  const a = med(m[roots[0]]), b = med(m[roots[1]]);
  console.log(`  ${k.padEnd(20)} ${fmt(a).padStart(10)}  ${fmt(b).padStart(10)}  ${(a / b).toFixed(2)}x`);
}
