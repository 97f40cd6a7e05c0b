// recovery_random.test.js - random sequences of registry, policy, approval
// and call operations over a tiny universe of colliding names, each run with
// and without traps at random steps (tests/js/trap_fuzz.mjs): every
// observable after the first trap must be the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate, diff } from './trap_fuzz.mjs';

test('random operation sequences end the same with traps at random steps as without (seeds 1-80)', async () => {
  const differing = [];
  for (let seed = 1; seed <= 80; seed++) {
    const d = await diff(generate(seed));
    if (d) differing.push({ seed, step: d.step, op: d.op, plain: d.plain?.slice(0, 300), trapped: d.trapped?.slice(0, 300) });
  }
  assert.deepEqual(differing, []);
});
