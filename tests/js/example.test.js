// example.test.js - the README's main job prints what happened to each call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { repoRoot } from './helpers.js';

test('examples/quickstart.mjs shows success, a thrown handler, bad JSON and a missing property', () => {
  const out = execFileSync(process.execPath, ['examples/quickstart.mjs'], { cwd: repoRoot, encoding: 'utf8' });
  assert.match(out, /a successful call.*\n  -> ok: \{"city":"Lisbon"/);
  assert.match(out, /a handler that throws.*\n  -> error: Tool "send_sms" failed: SMS gateway unreachable/);
  assert.match(out, /invalid JSON arguments.*\n  -> error \(invalid_json\)/);
  assert.match(out, /a missing required property.*\n  -> error \(invalid_arguments\).*\n.*body/);
  assert.match(out, /a call the policy denies.*\n  -> error \(denied\)/);
  assert.match(out, /a call that needs approval.*\n  -> pending_approval: a person confirms outgoing mail.*\n  -> after a person approved: ok: sent to ceo@example.com/);
});
