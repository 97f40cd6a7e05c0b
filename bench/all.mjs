// all.mjs - every benchmark, one after another, each in its own node
// process: node bench/all.mjs   (--quick passes through for a short smoke run)
// ajv's "unknown format ... ignored" warnings (one per schema with a format,
// from validate.mjs's ajv instances) are counted instead of printed.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const pass = process.argv.slice(2).filter((a) => a === '--quick');
const scripts = ['validate.mjs', 'registry.mjs', 'call.mjs', 'policy.mjs'].filter((f) => existsSync(here(f)));
const NOISE = /^unknown format ".*" ignored in schema at path/;

function run(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [here(file), ...pass], { stdio: ['ignore', 'inherit', 'pipe'] });
    let hidden = 0;
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => { if (NOISE.test(line)) hidden++; else process.stderr.write(`${line}\n`); });
    child.on('close', (code, signal) => lines.close() ?? resolve({ code, signal, hidden }));
  });
}

console.log(`toolgate benchmarks: ${scripts.join(', ')}${pass.length ? ' (--quick)' : ''}; node ${process.version}, ${new Date().toISOString()}`);
const started = performance.now();
const failed = [];
for (const f of scripts) {
  console.log(`\n==== ${f} ${'='.repeat(Math.max(0, 60 - f.length))}`);
  const t0 = performance.now();
  const { code, signal, hidden } = await run(f);
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  if (code !== 0) failed.push(`${f} (${signal ?? `exit ${code}`})`);
  console.log(`==== ${f}: ${secs} s${code !== 0 ? `, exited ${signal ?? code}` : ''}${hidden ? ` (${hidden} ajv "unknown format" warnings not shown)` : ''}`);
}
console.log(`\nall benchmarks: ${((performance.now() - started) / 1000).toFixed(1)} s${failed.length ? `; did not finish: ${failed.join(', ')}` : ''}`);
process.exitCode = failed.length ? 1 : 0;
