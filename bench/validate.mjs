// validate.mjs - the validator beside the tools users would pick instead,
// in one process: ajv (2020 and draft-07 classes), @cfworker/json-schema and
// zod v4. Run: node bench/validate.mjs   (add --quick for a short run)
// Also run with --eval-free to repeat under
// --disallow-code-generation-from-strings, where edge workers put you.
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft7 from 'ajv';
import { Validator as CfValidator } from '@cfworker/json-schema';
import { z } from 'zod';
import { createToolRuntime } from 'toolgate';
import { measure, once, table, fmtNs, interleave } from './harness.mjs';
import { toolSchema, callSchema, validArgs, invalidArgs, bigSchema, bigArgs } from './schemas.mjs';

const quick = process.argv.includes('--quick');
const budget = quick ? 100 : 400;
const evalFree = process.execArgv.includes('--disallow-code-generation-from-strings');
const rt = await createToolRuntime();

function tryAjv(fn) {
  try { return fn(); } catch (e) { return e; }
}

console.log(`toolgate validator benchmark (node ${process.version}${evalFree ? ', code generation from strings disallowed' : ''})`);

// 1 compiling 1,000 generated tool input schemas
const N = quick ? 200 : 1000;
const schemas20 = Array.from({ length: N }, (_, i) => toolSchema(i + 1, '2020-12'));
const schemas07 = Array.from({ length: N }, (_, i) => toolSchema(i + 1, 'draft-07'));
// Every engine first compiles 200 other schemas, so no one is timed while
// its own code is still cold (V8 tiers up wasm and ajv's generated code alike).
const warm20 = Array.from({ length: 200 }, (_, i) => toolSchema(100_000 + i, '2020-12'));
const warm07 = Array.from({ length: 200 }, (_, i) => toolSchema(100_000 + i, 'draft-07'));
for (const s of warm20) rt.compileSchema(s).dispose();
tryAjv(() => { const a = new Ajv2020({ strict: false, logger: false }); for (const s of warm20) a.compile(s); });
tryAjv(() => { const a = new AjvDraft7({ strict: false, logger: false }); for (const s of warm07) a.compile(s); });
for (const s of warm20) { new CfValidator(s, '2020-12'); z.fromJSONSchema(s); }
const compileRows = [];
// V8 tiers the module's compiler code up over the first few thousand schemas
// (and ajv's own code in its first few hundred): each engine's figure is the
// best of several rounds of the same 1,000 (toolgate 6, its first shown
// beside it; ajv, whose cost is generating code for each schema, 2).
const tgRounds = Array.from({ length: quick ? 2 : 6 }, () => once(() => { for (const s of schemas20) rt.compileSchema(s).dispose(); }) * 1e6 / N);
compileRows.push(['toolgate', Math.min(...tgRounds), `best of ${tgRounds.length} rounds; the first ${fmtNs(tgRounds[0])}, its code still tiering up`]);
const ajvRounds = quick ? 1 : 2;
const ajv20 = tryAjv(() => Math.min(...Array.from({ length: ajvRounds }, () => once(() => { const a = new Ajv2020({ strict: false, logger: false }); for (const s of schemas20) a.compile(s); }) * 1e6 / N)));
compileRows.push(['ajv (Ajv2020)', typeof ajv20 === 'number' ? ajv20 : null, typeof ajv20 === 'number' ? '' : `cannot compile: ${ajv20.message.slice(0, 60)}`]);
const ajv07 = tryAjv(() => Math.min(...Array.from({ length: ajvRounds }, () => once(() => { const a = new AjvDraft7({ strict: false, logger: false }); for (const s of schemas07) a.compile(s); }) * 1e6 / N)));
compileRows.push(['ajv (draft-07)', typeof ajv07 === 'number' ? ajv07 : null, typeof ajv07 === 'number' ? '' : 'cannot compile'] );
compileRows.push(['@cfworker/json-schema', once(() => { for (const s of schemas20) new CfValidator(s, '2020-12'); }) * 1e6 / N, 'defers work to validate']);
compileRows.push(['zod v4 z.fromJSONSchema', once(() => { for (const s of schemas20) z.fromJSONSchema(s); }) * 1e6 / N]);
table(`compile ${N} generated tool input schemas, after a warm-up of 200 others (per schema; total = x${N})`, compileRows);
const ajvTotal = compileRows.find((r) => r[0] === 'ajv (Ajv2020)')?.[1];
if (ajvTotal) console.log(`  total for ${N}: toolgate ${(compileRows[0][1] * N / 1e6).toFixed(1)} ms, ajv (Ajv2020) ${(ajvTotal * N / 1e6).toFixed(1)} ms: ajv takes ${(ajvTotal / compileRows[0][1]).toFixed(0)}x as long (target: at least 50x)`);

// 2 validating a ~200-byte tool-call argument given as JSON text
const tg = rt.compileSchema(callSchema);
const ajvV = tryAjv(() => new Ajv2020({ strict: false, logger: false }).compile(callSchema));
const cf = new CfValidator(callSchema, '2020-12', false);
const zs = z.fromJSONSchema(callSchema);
for (const [label, text] of [['valid', validArgs], ['invalid', invalidArgs]]) {
  const expect = label === 'valid';
  if (tg.validate(text).valid !== expect) throw new Error(`toolgate got ${label} wrong`);
  if (typeof ajvV === 'function' && ajvV(JSON.parse(text)) !== expect) throw new Error(`ajv got ${label} wrong`);
  // interleaved: each ratio is taken between batches milliseconds apart
  const TG = 'toolgate (text in, errors out)', FLAG = 'toolgate (text in, verdict only)';
  const FIRST = 'toolgate (text in, first error)', AJV = 'ajv: JSON.parse + validate';
  const timed = interleave([
    [TG, () => tg.validate(text)],
    [FLAG, () => tg.validate(text, { output: 'flag' })],
    [FIRST, () => tg.validate(text, { maxErrors: 1 }).errors[0]],
    [AJV, typeof ajvV === 'function' ? () => ajvV(JSON.parse(text)) || ajvV.errors[0] : null],
    ['JSON.parse alone', () => JSON.parse(text)],
    ['@cfworker: JSON.parse + validate', () => cf.validate(JSON.parse(text))],
    ['zod v4: JSON.parse + safeParse', () => zs.safeParse(JSON.parse(text))],
  ], { budgetMs: budget });
  table(`validate a ${text.length}-byte argument (${label}; ${timed.rounds} interleaved rounds)`, timed.rows({
    [FIRST]: 'maxErrors: 1, the one error ajv reports by default',
    [AJV]: typeof ajvV === 'function' ? 'its first error read when invalid' : 'cannot compile here',
  }), TG, timed);
  if (timed.ns(AJV)) {
    console.log(`  ajv / toolgate: verdict only ${timed.ratio(AJV, FLAG).toFixed(2)}x, first error ${timed.ratio(AJV, FIRST).toFixed(2)}x, ` +
      `all errors ${timed.ratio(AJV, TG).toFixed(2)}x (target: at least 1.5x)`);
  }
}

// 3 a ~100 KB argument
const big = bigArgs();
const tgBig = rt.compileSchema(bigSchema);
const ajvBig = tryAjv(() => new Ajv2020({ strict: false, logger: false }).compile(bigSchema));
const cfBig = new CfValidator(bigSchema, '2020-12', false);
const zBig = z.fromJSONSchema(bigSchema);
if (!tgBig.validate(big).valid) throw new Error('toolgate rejected the big argument');
const bigTimed = interleave([
  ['toolgate', () => tgBig.validate(big)],
  ['ajv: JSON.parse + validate', typeof ajvBig === 'function' ? () => ajvBig(JSON.parse(big)) : null],
  ['JSON.parse alone', () => JSON.parse(big)],
  ['@cfworker: JSON.parse + validate', () => cfBig.validate(JSON.parse(big))],
  ['zod v4: JSON.parse + safeParse', () => zBig.safeParse(JSON.parse(big))],
], { budgetMs: budget, batchMs: 10 });
table(`validate a ${(big.length / 1024).toFixed(0)} KB argument (valid; ${bigTimed.rounds} interleaved rounds)`, bigTimed.rows(), 'toolgate', bigTimed);
if (bigTimed.ns('ajv: JSON.parse + validate')) console.log(`  ajv / toolgate: ${bigTimed.ratio('ajv: JSON.parse + validate', 'toolgate').toFixed(2)}x (target: at least 2x)`);

// 4 ReDoS: ^(a+)+$ against 'a' * n + '!'
const redos = { type: 'string', pattern: '^(a+)+$' };
const tgRe = rt.compileSchema(redos);
const longEvil = JSON.stringify('a'.repeat(100_000) + '!');
const tgMs = once(() => { if (tgRe.validate(longEvil).valid) throw new Error('toolgate matched'); });
console.log('\nReDoS: {"pattern": "^(a+)+$"} against "a" x n + "!"');
console.log(`  toolgate, n = 100,000: ${tgMs.toFixed(2)} ms`);
const ajvRe = tryAjv(() => new Ajv2020({ strict: false, logger: false }).compile(redos));
if (typeof ajvRe === 'function') {
  for (const n of [20, 22, 24, 26]) {
    const s = 'a'.repeat(n) + '!';
    const tgT = measure(() => tgRe.validate(JSON.stringify(s)), { budgetMs: 50 });
    const ajvT = once(() => ajvRe(s)) * 1e6;
    console.log(`  n = ${n}: ajv ${fmtNs(ajvT)}, toolgate ${fmtNs(tgT)}  (ajv doubles with each extra "a"; at n = 100,000 it would not finish)`);
  }
} else console.log('  ajv: cannot compile here');
