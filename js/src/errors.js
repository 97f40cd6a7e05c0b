// errors.js - the status codes of the C core and the one error class the
// package throws for caller mistakes (bad descriptor, duplicate tool).

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
