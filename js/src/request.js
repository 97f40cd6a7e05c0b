// request.js - what a request gives beside its tool: the keys a call's
// context, authorize() and listTools() take, the context read once, a
// snapshot's id, and an approval token's expiry.
import { ToolgateError, unknownKey } from './errors.js';

/** The keys a call's context, an authorize() request and a listTools()
 * request take (the module takes the same): a misspelled one ("schedular",
 * "Mode") is refused, never read as "not given", which would lift a
 * scheduler block or plan mode. */
const CONTEXT_KEYS = new Set(['principal', 'mode', 'scheduler', 'source', 'tenant', 'session', 'context', 'snapshot',
  'format', 'approval', 'approvalToken', 'signal', 'onProgress']);
export const AUTHORIZE_KEYS = new Set(['tool', 'args', 'principal', 'mode', 'scheduler', 'source', 'tenant', 'session', 'context',
  'snapshot', 'explain']);
export const LIST_KEYS = new Set(['format', 'snapshot', 'cursor', 'limit', 'principal', 'mode', 'scheduler', 'source', 'tenant',
  'session']);

/** unknownKey for a request the module would refuse: invalid_request. */
export function unknownRequestKey(what, obj, known) {
  try {
    unknownKey(what, obj ?? {}, known);
  } catch (e) {
    throw new ToolgateError('invalid_request', e.message);
  }
}

/** callTool's context as plain data: each field the call uses read once
 * (the snapshot as its id). Throws a TypeError when it cannot be used. */
export function readContext(ctx) {
  if (typeof ctx !== 'object') throw new TypeError('it is not an object');
  unknownKey('context key', ctx, CONTEXT_KEYS);
  const c = pick({
    principal: ctx.principal, mode: ctx.mode, scheduler: ctx.scheduler, source: ctx.source, tenant: ctx.tenant,
    session: ctx.session, context: ctx.context, format: ctx.format, approval: ctx.approval, approvalToken: ctx.approvalToken,
    snapshot: snapshotId(ctx.snapshot), signal: ctx.signal, onProgress: ctx.onProgress,
  });
  if (c.signal !== undefined && !isAbortSignal(c.signal)) throw new TypeError('its signal is not an AbortSignal');
  if (c.onProgress !== undefined && typeof c.onProgress !== 'function') throw new TypeError('its onProgress is not a function');
  return c;
}

/** The module's JSON of a readContext() result (the signal and the
 * progress listener stay here). */
export function contextText(c) {
  if (c.signal === undefined && c.onProgress === undefined) return Object.keys(c).length ? JSON.stringify(c) : '';
  const { signal, onProgress, ...rest } = c;
  return Object.keys(rest).length ? JSON.stringify(rest) : '';
}

/** A snapshot's id as the module reads it: a snapshot() object or its id;
 * anything else goes as it is and is refused there (invalid_request), never
 * dropped, which would read as "no snapshot: the live tools". undefined
 * when none is given. */
export function snapshotId(s) {
  if (s === undefined || s === null) return undefined;
  return typeof s === 'object' ? (s.id ?? 'no id') : s;
}

/** o without its undefined members: only what was given goes to the module. */
export function pick(o) {
  const r = {};
  for (const k in o) if (o[k] !== undefined) r[k] = o[k];
  return r;
}

/** An AbortSignal, or something that acts as one (another realm's). This
 * realm's are told by instanceof: a property read on signals made per
 * request (as an MCP server's are) misses V8's caches, and the three reads
 * of the duck test took ~0.8 µs a call where instanceof takes ~15 ns. */
function isAbortSignal(s) {
  if (NativeAbortSignal !== undefined && s instanceof NativeAbortSignal) return true;
  return typeof s === 'object' && s !== null && typeof s.aborted === 'boolean' &&
    typeof s.addEventListener === 'function' && typeof s.removeEventListener === 'function';
}
const NativeAbortSignal = typeof AbortSignal === 'function' ? AbortSignal : undefined;

/** The expiry (ms) in an approval token's claims; Infinity when unreadable
 * (kept: the module decides what it is). */
export function tokenExpiry(token) {
  try {
    const b64 = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, '='));
    let exp = 0;
    for (let i = 1; i <= 8; i++) exp = exp * 256 + bytes.charCodeAt(i);
    return exp;
  } catch {
    return Infinity;
  }
}
