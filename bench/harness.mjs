// harness.mjs - timing shared by the benchmarks: each case runs in batches
// until a time budget is spent; the median batch gives ns per operation.
// Peers are measured in the same process and run, and results print as
// ratios against them (never as pass/fail).

/** @returns {number} median ns per op */
export function measure(fn, { budgetMs = 300, minBatch = 1 } = {}) {
  // calibrate a batch size that takes ~5 ms
  let n = minBatch;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    const dt = performance.now() - t0;
    if (dt >= 5 || n >= 1 << 24) break;
    n *= dt < 0.5 ? 8 : 2;
  }
  const samples = [];
  const end = performance.now() + budgetMs;
  while (performance.now() < end || samples.length < 5) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    samples.push(((performance.now() - t0) * 1e6) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

/** Times one run of fn (for work that is too slow to repeat). @returns ms */
export function once(fn) {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

export function fmtNs(ns) {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} us`;
  return `${ns.toFixed(0)} ns`;
}

/** Prints rows [label, ns] with each peer's time as a multiple of toolgate's
 * (given timed, an interleave() result: the paired ratio of the rounds). */
export function table(title, rows, baseLabel = 'toolgate', timed = null) {
  const base = rows.find((r) => r[0] === baseLabel)?.[1];
  console.log(`\n${title}`);
  for (const [label, ns, note] of rows) {
    const x = timed ? timed.ratio(label, baseLabel) : ns / base;
    const ratio = base && ns && label !== baseLabel ? `  ${x.toFixed(1)}x toolgate's time` : '';
    console.log(`  ${label.padEnd(34)} ${ns == null ? 'n/a'.padStart(10) : fmtNs(ns).padStart(10)}${ratio}${note ? `  (${note})` : ''}`);
  }
}

/**
 * Times several cases side by side: after a warm-up each gets a batch size
 * that takes about batchMs, then rounds run one batch of every case (the
 * order rotating each round) until the budget is spent. On a machine whose
 * speed drifts (a shared VM: steal time, frequency), cases timed minutes
 * apart can differ by 2x for no reason of their own; a ratio taken within
 * each round, between batches milliseconds apart, does not drift with it.
 * cases: [[label, fn | null]]; a null fn is carried as n/a.
 * @returns {{ ns: (label) => number|null, ratio: (a, b) => number|null, rows: (notes?) => Array }}
 *   ns: median ns per op; ratio(a, b): median over rounds of a's time / b's
 */
export function interleave(cases, { budgetMs = 300, batchMs = 2, minRounds = 7 } = {}) {
  const live = cases.filter(([, fn]) => fn);
  const batch = live.map(([, fn]) => calibrate(fn, batchMs));
  const samples = live.map(() => []);
  for (const k of schedule(live.length, budgetMs, minRounds)) {
    const fn = live[k][1], n = batch[k];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    samples[k].push(((performance.now() - t0) * 1e6) / n);
  }
  return summarize(live, samples, cases);
}

/** The case to time next: rounds of every case, the order rotating each
 * round, until the budget is spent and minRounds are done (also
 * lib-async.mjs's; only the timed batch differs, sync or awaited). */
export function* schedule(count, budgetMs, minRounds) {
  const end = performance.now() + budgetMs * count;
  for (let r = 0; performance.now() < end || r < minRounds; r++) {
    for (let j = 0; j < count; j++) yield (j + r) % count;
  }
}

function calibrate(fn, batchMs) {
  for (let i = 0, end = performance.now() + Math.max(20, batchMs * 5); performance.now() < end; i++) fn(i);
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    const dt = performance.now() - t0;
    if (dt >= batchMs || n >= 1 << 24) return n;
    n *= dt < batchMs / 10 ? 8 : 2;
  }
}

/** Medians and paired ratios of interleaved samples (also lib-async.mjs's). */
export function summarize(live, samples, cases) {
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
  const index = new Map(live.map(([label], k) => [label, k]));
  const ns = (label) => (index.has(label) ? med(samples[index.get(label)]) : null);
  const ratio = (a, b) => {
    if (!index.has(a) || !index.has(b)) return null;
    const sa = samples[index.get(a)], sb = samples[index.get(b)];
    return med(sa.map((x, i) => x / sb[i]));
  };
  const rows = (notes = {}) => cases.map(([label]) => [label, ns(label), notes[label]]);
  return { ns, ratio, rows, rounds: samples[0]?.length ?? 0 };
}
