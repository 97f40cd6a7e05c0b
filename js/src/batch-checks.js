// batch-checks.js - the entries of a registerBatch batch refused before the
// module reads it: not JSON, over descriptorBytes, or what its strict
// reader would refuse; each replaced by a null descriptor.
import { ToolgateError, safeMessage } from './errors.js';
import { hasLoneSurrogateEscape, jsonDepth } from './text.js';

/** The entries of a batch whose descriptor or options JSON cannot hold:
 * each is replaced by a null descriptor (the module rejects it) and its
 * rejection returned by index; throws invalid_descriptor when the batch is
 * atomic (all or none). */
export function unwritableEntries(tools, atomic) {
  const out = new Map();
  tools.forEach((t, i) => {
    let what = 'the descriptor';
    try {
      if (JSON.stringify(t.tool) === undefined) throw new TypeError('it is not a JSON value');
      what = 'the options';
      JSON.stringify(t.options);
    } catch (e) {
      let name = '';
      try { if (typeof t.tool?.name === 'string') name = t.tool.name; } catch { /* (a throwing getter: no name) */ }
      const message = `${what} of ${name ? `tool "${name}"` : `entry ${i}`} cannot be written as JSON: ${safeMessage(e)}`;
      if (atomic) throw new ToolgateError('invalid_descriptor', message);
      out.set(i, { tool: name, code: 'invalid_descriptor', message });
      t.tool = null;
      delete t.options;
    }
  });
  return out;
}

/** A batch's text past this many UTF-16 units is searched for entries over
 * descriptorBytes before it goes in (a listing of 1,000 tools is ~1 MB). */
export const BATCH_CHECKED_FROM = 8 << 20;

/** The entries whose descriptor's JSON text alone is longer than limit
 * bytes (each character at least one byte): refused on their own, as the
 * module would refuse them, but before the batch is parsed (the whole batch
 * when it is atomic: ToolgateError too_large). */
export function oversizedEntries(tools, limit, atomic) {
  const out = new Map();
  tools.forEach((t, i) => {
    const n = JSON.stringify(t.tool)?.length ?? 0;
    if (n <= limit) return;
    let name = '';
    try { if (typeof t.tool?.name === 'string') name = t.tool.name.slice(0, 200); } catch { /* (a throwing getter: no name) */ }
    const message = `${name ? `tool "${name}"` : `entry ${i}`}: its descriptor is larger than the limit of ${limit} bytes (descriptorBytes)`;
    if (atomic) throw new ToolgateError('too_large', message);
    out.set(i, { tool: name, code: 'too_large', message });
    t.tool = null;
    delete t.options;
  });
  return out;
}

/** The entries of a batch (not atomic) whose descriptor or options the
 * module's strict reader would refuse, though JSON.stringify writes them:
 * a lone surrogate (written as a \udXXX escape) or nesting deeper than
 * depthLimit counted as the batch nests it (the request object and its
 * "tools" array hold the entry). Each is replaced by a null descriptor (the
 * module rejects it) and its rejection returned by index. */
export function unreadableEntries(tools, depthLimit) {
  const out = new Map();
  tools.forEach((t, i) => {
    if (t.tool === null) return; // (refused already: unwritableEntries)
    let why = null;
    for (const [what, value] of [['descriptor', t.tool], ['options', t.options]]) {
      let text;
      try { text = value === undefined ? undefined : JSON.stringify(value); } catch { /* (written once already: a getter that throws now is left to the module) */ }
      if (text === undefined) continue;
      if (hasLoneSurrogateEscape(text)) why = ['invalid_json', `its ${what} holds a lone surrogate (a JS string that is not Unicode text), so it cannot be UTF-8 JSON`];
      // (the entry object adds one level, the request and its array two)
      else if (jsonDepth(text) + 3 > depthLimit) why = ['too_large', `its ${what} nests deeper than the limit of ${depthLimit} (jsonDepth, counted within the batch)`];
      if (why) break;
    }
    if (!why) return;
    let name = '';
    try { if (typeof t.tool?.name === 'string') name = t.tool.name; } catch { /* (a throwing getter: no name) */ }
    out.set(i, { tool: name, code: why[0], message: `${name ? `tool "${name}"` : `entry ${i}`}: ${why[1]}` });
    t.tool = null;
    delete t.options;
  });
  return out;
}
