// log.js - what upstreams write, as lines of the gateway's log (and of lint's
// report): their text escaped and bounded, and their stderr relayed line by
// line. Upstreams are MCP servers nobody vetted: nothing they write may drive
// the operator's terminal, pass for the gateway's own lines ("toolgate: ..."),
// or fill the log without bound.
import { utf8Length } from './text.js';

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** Text from an upstream (a tool's name, a rejection, an error message) as
 * part of one log line: control (C0, DEL, C1), bidi, zero-width and other
 * format characters, line separators and lone surrogates are written as
 * \u{...} escapes (a tab too, unless tab is set), and it is cut at max
 * UTF-16 units with "... (cut)", so that an upstream cannot write lines that
 * read as the gateway's own, send terminal escape sequences, reorder what is
 * shown, or flood the log. */
export const LOG_TEXT_MAX = 512;

export function logText(s, { max = LOG_TEXT_MAX, tab = false } = {}) {
  let out = '';
  for (const ch of String(s)) {
    const piece = UNPRINTABLE.test(ch) && !(tab && ch === '\t') ? `\\u{${ch.codePointAt(0).toString(16)}}` : ch;
    if (out.length + piece.length > max) return `${out}... (cut)`;
    out += piece;
  }
  return out;
}

/** Terminal escape sequences, removed whole (what is left of them would be
 * noise): ESC [ ... final (CSI: colours, cursor moves, erasing), ESC ] P X ^ _
 * ... up to BEL or ST (OSC: titles, hyperlinks, clipboard writes; DCS, SOS,
 * PM, APC), or ESC with its intermediates and final (charsets, resets); an
 * unfinished one to the end of the line. What remains of a control character
 * (a lone ESC is gone; C1 CSI U+009B...) logText escapes. */
const ESCAPE_SEQUENCE = /\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?|[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|[\x20-\x2f]*[\x30-\x7e]?)/g;

/** What one upstream's stderr may put in the log. A line is cut after
 * lineBytes of what the upstream wrote. In a window of windowMs (from the
 * first line after the last window ended), at most windowLines lines or
 * windowBytes bytes of log (UTF-8, prefix included) are relayed; the rest of
 * that window's output is read and counted, not shown. */
export const STDERR_LIMITS = Object.freeze({ lineBytes: 4096, windowMs: 60_000, windowLines: 1000, windowBytes: 1 << 20 });

/**
 * Relays an upstream's stderr (a readable stream of bytes) to log, one call
 * per line: "[upstream NAME] text", the text decoded as UTF-8 with
 * replacement, escape sequences removed, other control and format characters
 * escaped (tabs kept), cut at limits.lineBytes with "... (cut: a line of N
 * bytes)". Past the window's limits one line says the rest is suppressed, and
 * the first line relayed after it (or the stream's end) says how many bytes
 * were. A partial line is relayed when the stream ends.
 *
 * The stream is always read at once, whatever is shown: a pipe nobody reads
 * fills (64 KiB) and stalls the upstream writing to it. Output is counted
 * per chunk while suppressed, so a flood costs no per-line work.
 *
 * @param {import('node:stream').Readable} stream
 * @param {string} name the upstream's name (escaped in the prefix)
 * @param {(line: string) => void} log
 * @param {{ now?: () => number, limits?: typeof STDERR_LIMITS }} [options] now: the clock, in ms
 */
export function relayStderr(stream, name, log, { now = Date.now, limits = STDERR_LIMITS } = {}) {
  const who = logText(name);
  const prefix = `[upstream ${who}] `;
  let parts = []; // the current line's bytes, up to lineBytes of them
  let kept = 0;
  let seen = 0; // ...and how many it has in all
  let windowStart = -Infinity;
  let lines = 0;
  let bytes = 0;
  let suppressing = false;
  let suppressed = 0; // bytes not shown since the notice
  let midLine = false; // (while suppressing: the last chunk did not end a line)

  let lastCR = false; // the line so far ends with '\r' (a CRLF's, once its '\n' comes)
  const add = (chunk, from, to) => {
    if (to > from) lastCR = chunk[to - 1] === 0x0d;
    seen += to - from;
    const take = Math.min(to, from + limits.lineBytes - kept);
    if (take > from) { parts.push(chunk.subarray(from, take)); kept += take - from; }
  };
  const endLine = (newline) => {
    // a CRLF's '\r' is the line's end, not its text: not counted towards the cut
    const cr = newline && lastCR ? 1 : 0;
    lastCR = false;
    if (cr) {
      if (seen === kept) {
        const l = parts.length - 1;
        parts[l] = parts[l].subarray(0, parts[l].length - 1);
        kept--;
      }
      seen--;
    }
    const cut = seen > kept;
    const raw = parts.length === 1 ? parts[0] : Buffer.concat(parts, kept);
    // (a cut line's last character may be split: streaming leaves it out)
    const decoded = new TextDecoder().decode(raw, { stream: cut });
    const text = `${prefix}${logText(decoded.replace(/\r$/, '').replace(ESCAPE_SEQUENCE, ''), { max: Infinity, tab: true })}${cut ? `... (cut: a line of ${seen} bytes)` : ''}`;
    const size = seen;
    parts = []; kept = 0; seen = 0;
    const t = now();
    if (t - windowStart >= limits.windowMs) { windowStart = t; lines = 0; bytes = 0; }
    const n = utf8Length(text) + 1;
    if (lines + 1 > limits.windowLines || bytes + n > limits.windowBytes) {
      suppressing = true;
      suppressed = size + cr + newline;
      log(`toolgate: upstream ${who}: over ${limits.windowLines} lines or ${limits.windowBytes} bytes of stderr in ${limits.windowMs / 1000} s; further output of upstream ${who} suppressed`);
      return;
    }
    lines++; bytes += n;
    log(text);
  };
  const resumed = () => {
    suppressing = false;
    log(`toolgate: upstream ${who}: ${suppressed} bytes of its stderr were suppressed`);
  };

  stream.on('data', (chunk) => {
    let i = 0;
    if (suppressing) {
      if (now() - windowStart < limits.windowMs) { suppressed += chunk.length; midLine = chunk[chunk.length - 1] !== 0x0a; return; }
      // a new window: relay again from the next whole line
      if (midLine) {
        const nl = chunk.indexOf(0x0a);
        if (nl === -1) { suppressed += chunk.length; return; }
        suppressed += nl + 1;
        i = nl + 1;
      }
      resumed();
    }
    while (i < chunk.length) {
      const nl = chunk.indexOf(0x0a, i);
      add(chunk, i, nl === -1 ? chunk.length : nl);
      if (nl === -1) return;
      endLine(1);
      i = nl + 1;
      if (suppressing) {
        suppressed += chunk.length - i;
        midLine = i < chunk.length && chunk[chunk.length - 1] !== 0x0a;
        return;
      }
    }
  });
  const end = () => {
    if (!suppressing && seen > 0) endLine(0);
    if (suppressing && suppressed > 0) resumed();
    suppressed = 0;
  };
  stream.once('end', end);
  stream.on('error', end); // (an error is the end of it, not a crash of the gateway)
}
