// bytes.js - bytes a host gives (an ArrayBuffer, any view of one) read as
// a Uint8Array, copied when kept, refused when their buffer was detached.
import { ToolgateError } from './errors.js';

/** Bytes given as an ArrayBuffer (or a shared one) or any view of one (a
 * DataView, a typed array), as a Uint8Array over the same memory; null
 * for anything else (a JS value, to be written as JSON). Bytes whose buffer
 * was detached (transferred away) cannot be read: a ToolgateError
 * 'invalid_json' (DETACHED), which each caller answers as its own result. */
export function bytesOf(x) {
  if (x instanceof Uint8Array) {
    // (a detached view reads as empty; only an empty one can be detached)
    if (x.length === 0 && detached(x.buffer)) throw new ToolgateError('invalid_json', DETACHED);
    return x;
  }
  if (x === null || typeof x !== 'object') return null;
  if (ArrayBuffer.isView(x)) {
    if (detached(x.buffer)) throw new ToolgateError('invalid_json', DETACHED); // (a DataView's byteOffset would throw)
    try {
      return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    } catch (e) { // (a view its resizable buffer shrank out from under: its byteOffset throws)
      throw new ToolgateError('invalid_json', `the bytes cannot be read: ${e.message}`);
    }
  }
  const tag = Object.prototype.toString.call(x); // (another realm's buffers too)
  if (tag !== '[object ArrayBuffer]' && tag !== '[object SharedArrayBuffer]') return null;
  if (detached(x)) throw new ToolgateError('invalid_json', DETACHED);
  return new Uint8Array(x);
}

/** A copy of bytes the runtime keeps (a key, a schema): never a view of the
 * caller's memory, which the caller may wipe or reuse. (Not .slice(): on a
 * Node Buffer that is a view of the same memory.) */
export function copyOf(bytes) {
  return bytes ? new Uint8Array(bytes) : null;
}

const DETACHED = 'the bytes cannot be read: their ArrayBuffer was detached (transferred away)';

/** Whether an ArrayBuffer was detached (a view over it cannot be made). */
function detached(buffer) {
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}
