// types.test.js - the TypeScript declarations cover the public surface:
// tests/types/usage.ts, written as a host would, must type-check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './helpers.js';

test('TypeScript declarations type-check a host program under --strict', () => {
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--types', 'node', 'tests/types/usage.ts'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(out.trim(), '');
});
