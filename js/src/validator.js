// validator.js - Validator, a compiled schema (the runtime judges for it:
// _validate, _releaseSchema), and compileSchema's options as JSON.
import { ToolgateError, safeMessage } from './errors.js';
import { checkedText } from './text.js';
import { bytesOf } from './bytes.js';

/** A compiled schema. validate() takes JSON text, UTF-8 bytes or a JS value. */
export class Validator {
  #rt;
  constructor(rt, id, text, optText, generation) {
    this.#rt = rt;
    this.id = id;
    this.text = text;
    this.optText = optText;
    this.generation = generation;
    this._sites = null; // (internal) coded errors' fixed words (first-error.js), by site
    this._lastSite = -1; // the site of the last coded error, and its words
    this._lastWords = null;
  }

  /**
   * @param {string|Uint8Array|unknown} instance
   * @param {{ maxErrors?: number, output?: 'basic'|'flag' }} [options] maxErrors
   *   bounds the errors collected (default 20; 1 stops at the first error);
   *   output 'flag' gives only the verdict.
   * @returns {{ valid: boolean, errors: {instanceLocation: string, keywordLocation: string, message: string}[],
   *   jsonError?: { code: 'invalid_json'|'too_large', message: string, offset: number } }}
   *   jsonError: the instance was not judged: not strict JSON (invalid_json),
   *   or over a limit (too_large: its size, nesting, evaluation steps)
   */
  validate(instance, options) {
    if (!this.id) throw new ToolgateError('disposed', 'this validator was disposed');
    const max = options?.output === 'flag' ? 0 : Math.max(0, Math.min(1000, options?.maxErrors ?? 20));
    return this.#rt._validate(this, instance, max);
  }

  dispose() {
    if (this.id) this.#rt._releaseSchema(this);
    this.id = 0;
  }
}

/** compileSchema's options as JSON when a resource is given as JSON text or
 * its UTF-8 bytes (as the schema may be): each such one spliced in as the
 * JSON text it holds (checked to be one JSON value, so it cannot add members
 * of its own; the module then reads it strictly). A string is text, never a
 * JSON string resource (the module refuses one: not a schema). optText (the
 * options written as JSON) is returned as it is when none is. */
export function resourcesText(opts, optText) {
  const entries = Object.entries(opts.resources);
  if (!entries.some(([, v]) => typeof v === 'string' || bytesOf(v) !== null)) return optText;
  const parts = [];
  for (const [uri, v] of entries) {
    const bytes = typeof v === 'string' ? null : bytesOf(v);
    if (typeof v === 'string') {
      try {
        JSON.parse(checkedText(v));
      } catch (e) {
        throw new ToolgateError('invalid_json', `resource "${uri}" is not one JSON value: ${e.message}`);
      }
      parts.push(`${JSON.stringify(uri)}:${v}`);
      continue;
    }
    if (bytes === null) {
      let value;
      try { value = JSON.stringify(v); } catch (e) { throw new ToolgateError('invalid_request', `resource "${uri}" cannot be written as JSON: ${safeMessage(e)}`); }
      if (value !== undefined) parts.push(`${JSON.stringify(uri)}:${value}`); // (left out, as JSON.stringify leaves it)
      continue;
    }
    let text;
    try {
      text = strictDecoder.decode(bytes);
      JSON.parse(text);
    } catch (e) {
      throw new ToolgateError('invalid_json', `resource "${uri}" is not one JSON value: ${e.message}`);
    }
    parts.push(`${JSON.stringify(uri)}:${text}`);
  }
  const { resources, ...rest } = opts;
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"resources":{${parts.join(',')}}}`;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }); // (a BOM is not JSON: kept, and refused)
