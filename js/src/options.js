// options.js - the options a runtime takes and its limits: names checked
// (a misspelled one refused), limits read as tga_new's arguments.
import { unknownKey } from './errors.js';

/** The options a runtime takes (RuntimeOptions) and the limits (Limits): a
 * misspelled one ("argBytes", "polcy") is refused, never ignored, since an
 * ignored limit or policy leaves the runtime wider open than its host wrote. */
export const RUNTIME_OPTIONS = new Set(['wasm', 'limits', 'exposeStack', 'clock', 'capabilities', 'descriptionBytes',
  'schemaBytes', 'toolsPerSource', 'formats', 'policy', 'approvalKey']);
const LIMITS = ['memoryBytes', 'jsonDepth', 'argsBytes', 'descriptorBytes', 'resultBytes', 'tools', 'pendingCalls', 'timeoutMs'];

/** tga_new's limit arguments: each a whole number of at most 2^32-1, 0 (or
 * omitted, or null) for its default (include/toolgate.h). A limit that is
 * not a number of at least 0 (a negative, NaN, a string) is refused: read as
 * the default it would be dropped unnoticed. */
export function limitArgs(limits) {
  limits ??= {};
  if (typeof limits !== 'object') throw new TypeError(`limits must be an object, not a ${typeof limits}`);
  unknownKey('limit', limits, new Set(LIMITS));
  const n = (k) => {
    const v = limits[k];
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number') throw new TypeError(`limits.${k} must be a number (0: the default), not a ${typeof v}`);
    if (!(v >= 0)) throw new RangeError(`limits.${k} must be at least 0 (0: the default), not ${v}`);
    return Math.min(0xffffffff, Math.floor(v));
  };
  return LIMITS.map(n); // (tga_new's order)
}
