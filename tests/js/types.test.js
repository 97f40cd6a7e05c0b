// types.test.js - the TypeScript declarations cover the public surface:
// tests/types/usage.ts, written as a host would, must type-check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers.js';

test('TypeScript declarations type-check a host program under --strict', () => {
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--types', 'node', 'tests/types/usage.ts'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(out.trim(), '');
});

test('the declared defaults of Limits are the module\'s (include/toolgate.h)', () => {
  const h = readFileSync(path.join(repoRoot, 'include', 'toolgate.h'), 'utf8');
  const header = h.slice(h.indexOf('typedef struct tg_limits {'), h.indexOf('} tg_limits;'));
  const dts = readFileSync(path.join(repoRoot, 'js', 'types', 'index.d.ts'), 'utf8');
  const limits = dts.match(/export interface Limits \{([\s\S]*?)\n\}/)[1];
  // each default as written first in a field's comment: "192 MiB", "10,000", "1,024"
  const DEFAULT = /^\s*([\d,]+(?: [KMG]iB)?)/;
  const declared = new Map([...limits.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+)\?:/g)].map((m) => [m[2], m[1].match(DEFAULT)?.[1]]));
  const camel = (s) => s.replace(/_(\w)/g, (_, c) => c.toUpperCase());
  let compared = 0;
  for (const [, field, comment] of header.matchAll(/size_t (\w+);\s*\/\*([^*]*)\*\//g)) {
    const value = comment.match(DEFAULT)?.[1];
    if (!declared.has(camel(field))) continue;
    assert.equal(declared.get(camel(field)), value, camel(field));
    compared++;
  }
  assert.equal(compared, declared.size, 'every declared limit is one of the module\'s');
});

test('ErrorCode declares every code the module gives a status (tg_status_code)', () => {
  const runtime = readFileSync(path.join(repoRoot, 'src', 'runtime', 'runtime.c'), 'utf8');
  const fn = runtime.slice(runtime.indexOf('const char *tg_status_code('));
  const codes = [...fn.slice(0, fn.indexOf('\n}')).matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
  const dts = readFileSync(path.join(repoRoot, 'js', 'types', 'index.d.ts'), 'utf8');
  const union = new Set([...dts.match(/export type ErrorCode =([^;]+);/)[1].matchAll(/'([a-z_]+)'/g)].map((m) => m[1]));
  const missing = codes.filter((c) => !['ok', 'pending', 'unknown_status'].includes(c) && !union.has(c));
  assert.ok(codes.length > 20, 'the codes were read');
  assert.deepEqual(missing, []);
});
