// call-info.js - what a handler gets beside its arguments (CallInfo), and
// the timer that ends an awaited call at its deadline.

/** setTimeout's longest delay: a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const PROGRESS_MESSAGE_MAX = 1024; // UTF-16 units of a progress message passed on
// progress passed on per call: a burst, then a steady rate; the rest are
// dropped (MCP: both parties SHOULD rate-limit progress notifications, so
// no upstream can make the gate relay a flood)
const PROGRESS_BURST = 20;
const PROGRESS_PER_SECOND = 10;

/** What a handler gets beside its arguments. The AbortSignal is made only
 * when the handler reads it. deadline: when the call's time is up, in ms on
 * the runtime's clock; remainingMs: the time left now (what a handler that
 * forwards the call gives its own request as a timeout). */
export class CallInfo {
  #abort = null;
  #deadline;
  #clock;
  #onProgress;
  #lastProgress = -Infinity;
  #tokens = PROGRESS_BURST;
  #refilled = undefined; // the clock when #tokens was last topped up
  constructor(callId, tool, context, deadline, clock, onProgress) {
    this.callId = callId;
    this.tool = tool;
    this.context = context;
    this.#deadline = deadline;
    this.#clock = clock;
    this.#onProgress = onProgress;
  }
  get signal() { return (this.#abort ??= new AbortController()).signal; }
  get deadline() { return this.#deadline; }
  get remainingMs() { return Math.max(0, this.#deadline - this.#clock()); }
  /** Tells the caller how far the call has come ({ progress, total?,
   * message? }, as MCP's notifications/progress), when the caller asked
   * (callTool's ctx.onProgress); ignored once the call has ended. At most 20
   * at once, then 10 a second, are passed on; the rest are dropped. */
  progress(p) {
    const to = this.#onProgress;
    // MCP: progress MUST increase with each notification; what does not (a
    // repeat, a step back, NaN) is not passed on, so no upstream makes the
    // gate break that rule or relay a flood of repeats
    if (!to || !Number.isFinite(p?.progress) || !(p.progress > this.#lastProgress)) return;
    const now = this.#clock(); // (a clock that is not a number refills nothing: the burst alone passes)
    if (now > this.#refilled) this.#tokens = Math.min(PROGRESS_BURST, this.#tokens + (now - this.#refilled) * PROGRESS_PER_SECOND / 1000);
    if (this.#refilled === undefined || now > this.#refilled) this.#refilled = now;
    if (this.#tokens < 1) return; // (dropped: the next one passed on still exceeds the last one passed on)
    this.#tokens--;
    this.#lastProgress = p.progress;
    const out = { progress: p.progress };
    if (Number.isFinite(p.total)) out.total = p.total;
    // a message is text for a person: bounded, without controls or hidden (format) characters
    if (typeof p.message === 'string') out.message = p.message.slice(0, PROGRESS_MESSAGE_MAX).replace(/[\p{Cc}\p{Cf}]/gu, '');
    try { to(out); } catch { /* (the caller's listener cannot fail the handler) */ }
  }
  /** @internal the call ended: its signal aborts (reason given) and progress stops */
  _end(reason) {
    this.#onProgress = undefined;
    if (reason !== undefined) this.#abort?.abort(reason);
  }
}

/** Arms an awaited call's deadline, `left` ms away. setTimeout takes at
 * most MAX_TIMER_MS (~24.8 days; a longer delay fires at once), so a later
 * deadline is reached in steps: a clamped timer firing is not the deadline. */
export function armDeadline(flight, left) {
  flight.timer = left > MAX_TIMER_MS ? setTimeout(armDeadline, MAX_TIMER_MS, flight, left - MAX_TIMER_MS)
    : setTimeout(flight.settle, left, 'timeout');
}
