// write-parts.js - the parts (strings, bytes) ToolRuntime's #write copies
// into linear memory: the room each needs, and the copy itself.
import { encoder, utf8Length } from './text.js';

/** Room to reserve for a part: a string's UTF-16 length times 3 bounds its
 * UTF-8 bytes, and costs nothing to know; past EXACT_FROM units it is
 * counted, so a 50 MB text does not ask for 150 MB (the module's memory is
 * at most 256 MiB). */
export function size(p) {
  if (typeof p !== 'string') return p.length;
  return p.length > EXACT_FROM ? utf8Length(p) : p.length * 3;
}
const EXACT_FROM = 1 << 20;

/** The room first reserved for the first part of a write: size(), but a
 * long text gets its length and 1/32 more, which most long texts (JSON of
 * mostly ASCII) fit; #write counts one that does not and writes it again.
 * Counting first (utf8Length) took ~5 ms of a 1.2 MB import; encodeInto
 * takes 0.3. */
export function room(p) {
  return typeof p === 'string' && p.length > EXACT_FROM ? p.length + (p.length >> 5) : size(p);
}

/** Strings of at most this many UTF-16 units are copied by hand (put). */
export const SHORT = 32;

/** Writes one part at mem[at]; returns its byte length. Short ASCII
 * strings (tool names, short results) are copied by hand: cheaper than
 * encodeInto's view and result object. */
export function put(mem, at, p) {
  if (typeof p !== 'string') {
    mem.set(p, at);
    return p.length;
  }
  const n = p.length;
  if (n <= SHORT) {
    let i = 0;
    for (; i < n; i++) {
      const c = p.charCodeAt(i);
      if (c >= 0x80) break;
      mem[at + i] = c;
    }
    if (i === n) return n;
  }
  return n ? encoder.encodeInto(p, mem.subarray(at, at + n * 3)).written : 0;
}
