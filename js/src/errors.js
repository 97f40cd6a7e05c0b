// errors.js - the status codes of the C core, the one error class the
// package throws for caller mistakes (bad descriptor, duplicate tool), the
// check that refuses a misspelled key in what a caller gives, and the
// message of any thrown value.

/** tg_status values (include/toolgate.h) -> stable code strings. */
export const STATUS = Object.freeze({
  0: 'ok',
  1: 'pending',
  [-1]: 'out_of_memory',
  [-2]: 'invalid_json',
  [-3]: 'too_large',
  [-4]: 'invalid_descriptor',
  [-5]: 'duplicate_tool',
  [-6]: 'unknown_tool',
  [-7]: 'invalid_arguments',
  [-8]: 'unknown_call',
  [-9]: 'host_refused',
  [-10]: 'limit_reached',
  [-11]: 'invalid_schema',
  [-12]: 'name_collision',
  [-13]: 'missing_capability',
  [-14]: 'invalid_request',
  [-15]: 'missing_context',
  [-16]: 'unknown_snapshot',
  2: 'pending_approval',
  [-17]: 'denied',
  [-18]: 'approval_refused',
  [-19]: 'rate_limited',
  [-20]: 'invalid_policy',
  [-21]: 'digest_mismatch',
});

export class ToolgateError extends Error {
  /**
   * @param {string} code stable machine-readable code
   * @param {string} message for people
   * @param {object} [diagnostics] bounded details (offset, ...)
   */
  constructor(code, message, diagnostics = {}) {
    super(message);
    this.name = 'ToolgateError';
    this.code = code;
    this.diagnostics = diagnostics;
  }
}

/** Refuses (TypeError) a key of obj that is not in known: a misspelled
 * option, limit or context key is never read as "not given". */
export function unknownKey(what, obj, known) {
  // (a Map's or an array's entries are no keys: it would pass as empty)
  if (obj instanceof Map || obj instanceof Set || Array.isArray(obj)) throw new TypeError(`${what}s are given as a plain object, not a ${obj.constructor.name}`);
  // (for...in: inherited keys too, since the values are read through the
  // prototype chain: an inherited "schedular" is as misspelled as an own one)
  for (const k in obj) if (!known.has(k)) throw new TypeError(`unknown ${what} "${k}" (known: ${[...known].join(', ')})`);
}

/** What a thrown value says, whatever it is. */
export function safeMessage(e) {
  try { return String(e?.message ?? e); } catch { return 'it could not be read'; }
}
