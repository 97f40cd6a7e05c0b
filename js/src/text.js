// text.js - JS strings and JSON text as the module reads them: UTF-8
// sizes, lone surrogates (refused: not Unicode text), JSON writing and
// nesting depth.
import { ToolgateError } from './errors.js';

/** The one encoder of the package's strings (stateless: shared). */
export const encoder = new TextEncoder();

/** UTF-8 bytes of a JS string as TextEncoder writes it: 2 for U+0080-07FF,
 * 3 for the rest of the BMP and for a lone surrogate (written as U+FFFD),
 * 4 for a surrogate pair. One pass; no copy. */
export function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xD800 && c < 0xDC00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xFC00) === 0xDC00) {
      n += 2; // (the pair's two units count 2 already: 4 in all)
      i++;
    } else n += 2;
  }
  return n;
}

/** False for a string holding a lone surrogate: not Unicode text, so not
 * UTF-8, and encoding it would silently turn it into U+FFFD (the module would
 * then judge other text than the caller's). Checked where a caller's string
 * enters (arguments, instances, schemas, descriptors, policies); text made
 * by JSON.stringify never holds one. */
export function wellFormed(p) { return typeof p !== 'string' || p.isWellFormed?.() !== false; }

export const LONE_SURROGATE = 'the text holds a lone surrogate (a JS string that is not Unicode text), so it cannot be UTF-8 JSON';

/** Text the host gave as a string, refused when it holds a lone surrogate. */
export function checkedText(s) {
  if (!wellFormed(s)) throw new ToolgateError('invalid_json', LONE_SURROGATE);
  return s;
}

/** The UTF-8 byte offset of a string's first lone surrogate. */
export function loneSurrogateOffset(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { i++; continue; }
    if ((c & 0xf800) === 0xd800) return encoder.encode(s.slice(0, i)).length;
  }
  return 0;
}

/** A host value as JSON text, or a ToolgateError(code) saying why it cannot be
 * (undefined, a function, a BigInt, a cycle, a throwing toJSON). */
export function jsonText(value, code, what) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new ToolgateError(code, `${what} cannot be written as JSON: ${String(e?.message ?? e)}`);
  }
  if (text === undefined) throw new ToolgateError(code, `${what} cannot be written as JSON`);
  return text;
}

/** JSON text (as JSON.stringify writes it) holds a \ud800-\udfff escape:
 * JSON.stringify escapes a surrogate only when it is alone. */
export function hasLoneSurrogateEscape(text) {
  for (const m of text.matchAll(/(\\+)u[dD][89a-fA-F]/g)) if (m[1].length % 2 === 1) return true;
  return false;
}

/** The most arrays and objects open at once in JSON text. */
export function jsonDepth(text) {
  let depth = 0, max = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // '\\': the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) { if (++depth > max) max = depth; }
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}
