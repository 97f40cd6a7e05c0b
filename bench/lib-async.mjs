// lib-async.mjs - timing for async operations (tool calls, MCP round trips):
// runs batches of N sequentially awaited calls until a time budget is spent;
// the median batch gives ns per operation. Same shape as harness.mjs's
// measure(), which times synchronous work.
import { summarize, schedule } from './harness.mjs';

/** @returns {Promise<number>} median ns per op */
export async function measureAsync(fn, { budgetMs = 300, minBatch = 1, minSamples = 5, batchMs = 10, warmMs = Math.min(100, budgetMs / 3) } = {}) {
  // warm up (JIT, caches) before timing anything
  for (let i = 0, end = performance.now() + warmMs; performance.now() < end; i++) await fn(i);
  // calibrate a batch size that takes ~batchMs (this also warms up)
  let n = minBatch;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    const dt = performance.now() - t0;
    if (dt >= batchMs || n >= 1 << 22) break;
    n *= dt < batchMs / 10 ? 8 : 2;
  }
  const samples = [];
  const end = performance.now() + budgetMs;
  while (performance.now() < end || samples.length < minSamples) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    samples.push(((performance.now() - t0) * 1e6) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

/** Times one run of an async fn. @returns {Promise<number>} ms */
export async function onceAsync(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * interleave() (harness.mjs) for async cases: rounds of one batch of every
 * case, the order rotating, so ratios come from batches milliseconds apart.
 */
export async function interleaveAsync(cases, { budgetMs = 300, batchMs = 5, minRounds = 7 } = {}) {
  const live = cases.filter(([, fn]) => fn);
  const batch = [];
  for (const [, fn] of live) batch.push(await calibrateAsync(fn, batchMs));
  const samples = live.map(() => []);
  for (const k of schedule(live.length, budgetMs, minRounds)) {
    const fn = live[k][1], n = batch[k];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    samples[k].push(((performance.now() - t0) * 1e6) / n);
  }
  return summarize(live, samples, cases);
}

async function calibrateAsync(fn, batchMs) {
  for (let i = 0, end = performance.now() + Math.max(50, batchMs * 5); performance.now() < end; i++) await fn(i);
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    const dt = performance.now() - t0;
    if (dt >= batchMs || n >= 1 << 22) return n;
    n *= dt < batchMs / 10 ? 8 : 2;
  }
}
