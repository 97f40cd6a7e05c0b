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

/** Prints rows [label, ns] with each peer's time as a multiple of toolgate's. */
export function table(title, rows, baseLabel = 'toolgate') {
  const base = rows.find((r) => r[0] === baseLabel)?.[1];
  console.log(`\n${title}`);
  for (const [label, ns, note] of rows) {
    const ratio = base && ns && label !== baseLabel ? `  ${(ns / base).toFixed(1)}x toolgate's time` : '';
    console.log(`  ${label.padEnd(34)} ${ns == null ? 'n/a'.padStart(10) : fmtNs(ns).padStart(10)}${ratio}${note ? `  (${note})` : ''}`);
  }
}
