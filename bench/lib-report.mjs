// lib-report.mjs - the header and ratio lines the benchmarks print beside
// harness.mjs's table(). Benchmarks inform; nothing here passes or fails.
import { fmtNs } from './harness.mjs';

export function header(title) {
  const quick = process.argv.includes('--quick');
  console.log(`${title}`);
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${new Date().toISOString()}${quick ? ', --quick (short budgets)' : ''}`);
}

/** median of numbers */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/**
 * Prints "label: peer / toolgate = Nx" (how many times toolgate's time the
 * peer takes), with the target beside it when there is one.
 */
export function ratio(label, peerNs, toolgateNs, target) {
  if (peerNs == null || toolgateNs == null) {
    console.log(`  ${label.padEnd(58)} n/a`);
    return;
  }
  const r = peerNs / toolgateNs;
  const shown = r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toFixed(2);
  console.log(`  ${label.padEnd(58)} ${`${shown}x`.padStart(8)}${target ? `   (target: ${target})` : ''}`);
}

/** Prints "label: value" with a target beside it. */
export function figure(label, ns, target) {
  console.log(`  ${label.padEnd(58)} ${fmtNs(ns).padStart(10)}${target ? `   (target: ${target})` : ''}`);
}
