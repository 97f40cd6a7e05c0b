// cli.js - the `toolgate` command: `lint` checks tool descriptors, JSON
// Schemas and policies with the wasm module; `gateway` serves a
// policy-enforcing MCP server (stdio) in front of upstream MCP servers.
// The MCP SDK (a peer dependency) is loaded only by `gateway`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createToolRuntime, defaultWasmURL } from './node.js';
import { compileWasm } from './load.js';
import { logText, relayStderr } from './log.js';
import { ToolgateError } from './errors.js';

const FORMATS = ['mcp', 'anthropic', 'openai', 'openai-strict', 'gemini', 'bedrock'];
const GATEWAY_FLAGS = new Set(['--config', '--policy', '--principal', '--mode', '--source', '--session']);

const HELP = `toolgate - a tool runtime for LLM agents

Usage:
  toolgate lint [--json] [--strict] [--schema|--policy] [--dialect D] [--source NAME] <file...>
  toolgate gateway --config <gateway.json>
  toolgate gateway --policy <policy.json> [--principal NAME] [--mode MODE]
                   [--session ID] --source NAME=command [args...] [--source ...]
  toolgate --help | --version

lint     Each file holds an MCP Tool, an array of tools, a tools/list result,
         a JSON Schema (--schema) or a policy (--policy; also detected: an
         object with "version" and "rules" or "defaults").
         Exit 0: clean; 1: something was rejected or invalid (with --strict
         also sanitized fields and lossy conversions); 2: usage error.
gateway  An MCP server on stdio that imports every upstream's tools and
         enforces the policy on every call. See docs/cli.md.
`;

class UsageError extends Error {}

/**
 * Runs the CLI. Resolves to the exit code (gateway: when its client goes away).
 * @param {string[]} argv process.argv.slice(2)
 */
export async function main(argv, { stdout = process.stdout, stderr = process.stderr } = {}) {
  const out = (s) => stdout.write(s + '\n');
  const err = (s) => stderr.write(s + '\n');
  try {
    const [cmd, ...rest] = argv;
    if (!cmd) { err(HELP); return 2; }
    if (cmd === '--help' || cmd === '-h' || cmd === 'help') { out(HELP); return 0; }
    if (cmd === '--version' || cmd === '-v') { out(await version()); return 0; }
    const help = (a) => a === '--help' || a === '-h';
    if (help(rest[0]) || (cmd === 'lint' && rest.some(help))) { out(HELP); return 0; } // a gateway upstream may take --help
    if (cmd === 'lint') return await lint(rest, out);
    if (cmd === 'gateway') {
      // a log nobody reads any more (the host closed our stderr: EPIPE) is
      // no reason to die with the upstreams left running: logging stops
      let logging = true;
      stderr.on?.('error', () => { logging = false; });
      return await gateway(rest, (s) => { if (logging) err(s); });
    }
    throw new UsageError(`unknown command "${cmd}"`);
  } catch (e) {
    if (e instanceof UsageError) { err(`toolgate: ${e.message}\n(try toolgate --help)`); return 2; }
    err(`toolgate: ${e.message}`);
    return 1;
  }
}

async function version() {
  return JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).version;
}

// ---------------------------------------------------------------- lint

function parseLintArgs(args) {
  const o = { json: false, strict: false, kind: null, dialect: undefined, source: 'lint', files: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') o.json = true;
    else if (a === '--strict') o.strict = true;
    else if (a === '--schema' || a === '--policy') o.kind = a.slice(2);
    else if (a === '--dialect' || a === '--source') {
      if (i + 1 >= args.length) throw new UsageError(`${a} needs a value`);
      o[a.slice(2)] = args[++i];
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option "${a}"`);
    else o.files.push(a);
  }
  if (!o.files.length) throw new UsageError('lint needs at least one file');
  return o;
}

async function lint(args, out) {
  const o = parseLintArgs(args);
  const wasm = await compileWasm(await readFile(defaultWasmURL)); // compiled once, one fresh runtime per file
  const results = [];
  for (const file of o.files) results.push(await lintFile(file, o, wasm));
  const failed = results.some((r) => !r.ok || (o.strict && r.warnings));
  if (o.json) out(JSON.stringify({ ok: !failed, files: results.map(({ warnings, ...r }) => r) }, null, 2));
  else for (const r of results) printResult(r, out);
  return failed ? 1 : 0;
}

async function lintFile(file, o, wasm) {
  const rt = await createToolRuntime({ wasm, limits: { descriptorBytes: 64 << 20, argsBytes: 64 << 20 } });
  try {
    let bytes;
    try { bytes = file === '-' ? await readStdin() : await readFile(file); } catch (e) {
      return { file, kind: 'unknown', ok: false, error: { code: 'unreadable', message: e.message } };
    }
    // the module's strict RFC 8259 reader over the bytes, as upstream input is read
    const strict = rt.checkJSON(bytes);
    if (!strict.ok) return { file, kind: 'unknown', ok: false, error: { code: strict.code, message: strict.message, offset: strict.offset } };
    const doc = JSON.parse(utf8.decode(bytes)); // (strict JSON is UTF-8: this decodes)
    const kind = o.kind ?? detectKind(doc);
    if (kind === 'schema') return { file, kind, ...lintSchema(rt, doc, o) };
    if (kind === 'policy') return { file, kind, ...lintPolicy(rt, doc) };
    if (kind === 'tools') return { file, kind, ...lintTools(rt, Array.isArray(doc) ? doc : doc.tools ?? [doc], o) };
    return { file, kind: 'unknown', ok: false, error: { code: 'unknown_kind', message: 'not a tool, a tool array, a tools/list result or a policy; use --schema or --policy' } };
  } finally {
    rt.dispose();
  }
}

function detectKind(doc) {
  if (Array.isArray(doc)) return 'tools';
  if (!doc || typeof doc !== 'object') return null;
  if ('version' in doc && ('rules' in doc || 'defaults' in doc)) return 'policy';
  if (Array.isArray(doc.tools)) return 'tools';
  if ('name' in doc || 'inputSchema' in doc) return 'tools';
  return null;
}

function lintTools(rt, tools, o) {
  let res;
  try {
    res = rt.importTools(o.source, tools, { call: () => null });
  } catch (e) { // the list as a whole refused (more tools than a registry holds)
    if (!(e instanceof ToolgateError)) throw e;
    return { ok: false, error: { code: e.code, message: e.message } };
  }
  const registered = res.registered.map((r) => ({ tool: r.tool, name: r.name, ...(r.sanitized ? { sanitized: r.sanitized } : {}) }));
  const rejected = res.rejected.map((r) => ({ tool: r.tool, code: r.code, message: r.message }));
  const lossy = [];
  for (const format of FORMATS) for (const entry of rt.listTools({ format }).report ?? []) lossy.push({ format, ...entry });
  const warnings = registered.some((r) => r.sanitized) || lossy.length > 0;
  return { ok: rejected.length === 0, warnings, registered, rejected, lossy };
}

function lintSchema(rt, doc, o) {
  try {
    rt.compileSchema(doc, { dialect: o.dialect }).dispose();
    return { ok: true };
  } catch (e) {
    return { ok: false, error: { code: e.code, message: e.message, ...e.diagnostics } };
  }
}

function lintPolicy(rt, doc) {
  try {
    rt.setPolicy(doc);
    return { ok: true };
  } catch (e) {
    // one line per problem: "<JSON Pointer>: <message>" (docs/policy.md)
    const diagnostics = String(e.message).split('\n').filter(Boolean).map((line) => {
      const m = /^(\/\S*): (.*)$/.exec(line);
      return m ? { pointer: m[1], message: m[2] } : { message: line };
    });
    return { ok: false, error: { code: e.code, message: e.message }, diagnostics };
  }
}

/** The text report: what a file says (names, messages quoting it) is
 * escaped and bounded as the gateway logs upstream text. */
function printResult(r, out) {
  const t = logText;
  const head = `${t(r.file)} (${r.kind})`;
  if (r.error && !r.diagnostics) { out(`${head}: ${r.error.code}: ${t(r.error.message)}${r.error.offset !== undefined ? ` (offset ${r.error.offset})` : ''}`); return; }
  if (r.kind === 'schema' || r.kind === 'policy') {
    out(r.ok ? `${head}: OK` : `${head}: ${r.error.code}`);
    for (const d of r.diagnostics ?? []) out(`  ${d.pointer ? `${t(d.pointer)}: ` : ''}${t(d.message)}`);
    return;
  }
  out(`${head}: ${r.registered.length} registered, ${r.rejected.length} rejected`);
  for (const x of r.registered) out(`  registered  ${t(x.tool)} -> ${t(x.name)}${x.sanitized ? ` (sanitized: ${x.sanitized.join(', ')})` : ''}`);
  for (const x of r.rejected) out(`  rejected    ${x.tool == null ? '(no name)' : t(x.tool)}: ${x.code}: ${t(x.message)}`);
  for (const l of r.lossy) out(`  lossy       ${l.format}: ${t(l.tool ?? '')}${l.path ? ` ${t(l.path)}` : ''}: ${t(lossyText(l))}`);
}

function lossyText({ format, tool, path: at, issue, nullable, ...rest }) {
  if (issue) return issue;
  if (nullable) return 'optional property made required and nullable (strict mode lists every property)';
  return JSON.stringify(rest);
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks);
}

// Files are read as their bytes and judged by the module's strict reader as
// bytes: decoded as UTF-8 by Node first, an invalid byte would become U+FFFD
// and the file would pass for what it is not (a name "n\xFF" read as "n\uFFFD").
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A file's text, refused (UsageError) unless it is UTF-8. */
async function strictText(file) {
  const bytes = await readFile(file);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new UsageError(`${file}: not UTF-8 text`);
  }
}

// ---------------------------------------------------------------- gateway

/** What a gateway.json may hold (docs/cli.md): a misspelled key ("principle")
 * must not leave the gateway running as nobody in particular. */
const FACTS = {
  type: 'object',
  additionalProperties: false, // (a misspelled "needsAproval" would leave the tool unguarded)
  properties: {
    needsApproval: { type: 'boolean' }, privileged: { type: 'boolean' }, readOnly: { type: 'boolean' },
    edit: { type: 'boolean' }, auditArgs: { type: 'boolean' }, timeoutMs: { type: 'number', exclusiveMinimum: 0 },
    concurrency: { type: 'integer', minimum: 1 }, tenant: { type: 'string' },
    requires: { type: 'array', items: { type: 'string' } },
    context: { type: 'object', additionalProperties: { type: 'string' } }, contextParams: { enum: ['reject', 'drop'] },
  },
};
const GATEWAY_CONFIG = {
  type: 'object',
  additionalProperties: false,
  properties: {
    policy: { type: ['string', 'object'] },
    principal: { type: 'string', minLength: 1 },
    mode: { enum: ['default', 'acceptEdits', 'bypassPermissions', 'plan'] },
    session: { type: 'string', minLength: 1 },
    upstreams: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['command'],
        properties: {
          command: { type: 'string', minLength: 1 },
          args: { type: 'array', items: { type: 'string' } },
          env: { type: 'object', additionalProperties: { type: 'string' } },
          cwd: { type: 'string' },
          startupTimeoutMs: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 }, // (the longest timer Node sets)
          options: FACTS,
          tools: { type: 'object', additionalProperties: FACTS },
        },
      },
    },
  },
};

/** A gateway.json read as toolgate reads untrusted JSON: strict (duplicate
 * keys refused), and checked against GATEWAY_CONFIG with its own validator. */
async function strictConfig(file) {
  const text = await strictText(file);
  const rt = await createToolRuntime();
  try {
    const r = rt.compileSchema(GATEWAY_CONFIG).validate(text);
    if (r.jsonError) throw new UsageError(`${file}: not strict JSON: ${r.jsonError.message} (at byte ${r.jsonError.offset})`);
    if (!r.valid) {
      throw new UsageError(`${file}: ${r.errors.map((e) => `${e.instanceLocation || '/'}: ${e.message}`).join('; ')}`);
    }
  } finally {
    rt.dispose();
  }
  return JSON.parse(text);
}

/** --config file first, then flags; --source NAME=cmd takes args up to the next gateway flag. */
async function parseGatewayArgs(args) {
  const cfg = { upstreams: {} };
  const flags = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!GATEWAY_FLAGS.has(a)) throw new UsageError(`unexpected argument "${a}"`);
    if (i + 1 >= args.length) throw new UsageError(`${a} needs a value`);
    const value = args[++i];
    if (a !== '--source') { flags[a.slice(2)] = value; continue; }
    const m = /^([^=]+)=(.+)$/.exec(value);
    if (!m) throw new UsageError(`--source wants NAME=command [args...], got "${value}"`);
    const sourceArgs = [];
    while (i + 1 < args.length && !GATEWAY_FLAGS.has(args[i + 1])) sourceArgs.push(args[++i]);
    if (flags.sources && Object.hasOwn(flags.sources, m[1])) throw new UsageError(`--source ${m[1]} is given twice`);
    flags.sources = { ...flags.sources, [m[1]]: { command: m[2], args: sourceArgs } };
  }
  // a flag is held to what the config file is: a misspelled mode would run a
  // gateway that lists nothing and denies every call
  const modes = GATEWAY_CONFIG.properties.mode.enum;
  if (flags.mode && !modes.includes(flags.mode)) throw new UsageError(`--mode must be one of ${modes.join(', ')}, not "${flags.mode}"`);
  let base = process.cwd();
  if (flags.config) {
    Object.assign(cfg, await strictConfig(flags.config));
    base = path.dirname(path.resolve(flags.config));
    for (const up of Object.values(cfg.upstreams ?? {})) if (up.cwd) up.cwd = path.resolve(base, up.cwd);
  }
  if (flags.policy) { cfg.policy = flags.policy; base = process.cwd(); }
  // a policy file goes to the module as its text: strict JSON (a second
  // "rules" key is refused, not read as the last one), as lint reads it
  if (typeof cfg.policy === 'string') cfg.policy = await strictText(path.resolve(base, cfg.policy));
  for (const k of ['principal', 'mode', 'session']) if (flags[k]) cfg[k] = flags[k];
  // --source adds an upstream; it never stands in for one of the config's,
  // whose "tools" and "options" facts (needsApproval...) would be dropped
  // with it and leave its tools unguarded
  for (const name of Object.keys(flags.sources ?? {})) {
    if (cfg.upstreams && Object.hasOwn(cfg.upstreams, name)) {
      throw new UsageError(`--source ${name}: ${flags.config} already has an upstream "${name}" (--source adds upstreams; change it in the config, or use another name)`);
    }
  }
  cfg.upstreams = { ...cfg.upstreams, ...flags.sources };
  if (!cfg.policy) throw new UsageError('gateway needs a policy (--policy or "policy" in --config)');
  if (!Object.keys(cfg.upstreams).length) throw new UsageError('gateway needs at least one upstream (--source or "upstreams" in --config)');
  return cfg;
}

async function gateway(args, log) {
  const cfg = await parseGatewayArgs(args);
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const types = await import('@modelcontextprotocol/sdk/types.js');
  const { importFromClient, serveTools } = await import('./mcp.js');

  const ver = await version();
  const rt = await createToolRuntime({ policy: cfg.policy });
  const who = { principal: cfg.principal, mode: cfg.mode, session: cfg.session ?? randomUUID() };
  const server = new Server({ name: 'toolgate-gateway', version: ver }, { capabilities: { tools: { listChanged: true } } });
  const clients = new Map(); // source -> its client, once connected
  const started = []; // every upstream spawned, connected or not: each is closed on the way out
  let serving = false;

  // SIGINT/SIGTERM are handled before the first upstream is spawned: a
  // signal while upstreams start (an npx install, a slow tools/list) would
  // otherwise kill the gateway and orphan those already running.
  let stopped = false;
  let stop;
  const stopping = new Promise((resolve) => { stop = () => { stopped = true; resolve(); }; });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const report = (name, res) => {
    log(`toolgate: ${name}: ${res.registered.length} tools registered, ${res.rejected.length} rejected`);
    for (const r of res.rejected) log(`toolgate: ${name}: rejected ${logText(r.tool)}: ${logText(r.code)}: ${logText(r.message)}`);
    for (const c of res.changed ?? []) log(`toolgate: ${name}: ${logText(c.name)} changed (${logText(c.fields.join(', '))}); held out until accepted`);
  };
  // one import at a time per upstream (its first one included), and at most
  // one waiting: a burst of list_changed while one waits adds nothing (the
  // waiting import lists what is there when it runs), so an upstream cannot
  // queue unbounded work. Nor can it keep the gateway importing: a re-import
  // starts at least REIMPORT_GAP_MS after the last import ended (an upstream
  // that says list_changed after every listing is imported twice a second,
  // not back to back)
  const imports = new Map(); // source -> the chain of its imports
  const waiting = new Map(); // source -> the import queued behind the running one
  const lastImport = new Map(); // source -> when its last import ended (Date.now() ms)
  const markEnd = async (name, work) => { // (the import work, and when it ended)
    try {
      return await work;
    } finally {
      lastImport.set(name, Date.now());
    }
  };
  const reimport = (name) => {
    if (waiting.has(name)) return waiting.get(name);
    const next = (imports.get(name) ?? Promise.resolve()).then(async () => {
      const wait = (lastImport.get(name) ?? -Infinity) + REIMPORT_GAP_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      waiting.delete(name); // (a notification from here on queues the next one)
      if (!clients.has(name) || stopped) return; // its first import failed, or it is gone
      report(name, await markEnd(name, importFromClient(rt, name, clients.get(name), { options: toolOptions(rt, name, cfg.upstreams[name]) })));
      if (serving) await server.sendToolListChanged();
    }).catch((e) => log(`toolgate: ${name}: re-import failed: ${logText(e.message)}`));
    imports.set(name, next);
    waiting.set(name, next);
    return next;
  };

  const closeAll = async () => {
    clients.clear(); // so onclose below does not report a shutdown as a lost upstream
    await Promise.all(started.splice(0).map(closeUpstream));
  };

  // every upstream is spawned and initialized at once (an npx install, a
  // slow start, each costs its own time, not the sum of all), then imported
  // one after another in the config's order, so that which of two colliding
  // names is refused never depends on which upstream answered first
  const connect = (name, up) => {
    const transport = new StdioClientTransport({
      command: up.command, args: up.args ?? [], cwd: up.cwd,
      env: { ...getDefaultEnvironment(), ...up.env }, stderr: 'pipe',
    });
    // its stderr is the upstream's to write, the log is ours: relayed line by
    // line, prefixed, cleaned and bounded (log.js), never passed through raw
    relayStderr(transport.stderr, name, log);
    const client = new Client({ name: 'toolgate-gateway', version: ver });
    let exited;
    const upstream = { client, transport, exited: new Promise((resolve) => { exited = resolve; }) };
    client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => reimport(name));
    client.onclose = () => {
      exited();
      if (!clients.delete(name)) return;
      log(`toolgate: upstream ${name} closed; its tools are removed`);
      rt.removeSource(name);
      if (serving) server.sendToolListChanged().catch(() => {});
    };
    started.push(upstream);
    return client.connect(transport, { timeout: startupTimeout(up) }).then(() => client, (e) => {
      throw new Error(`${name}: ${e.message}`);
    });
  };
  const startAll = async () => {
    const ups = Object.entries(cfg.upstreams);
    const connecting = ups.map(([name, up]) => connect(name, up));
    for (const c of connecting) c.catch(() => {}); // (the first failure is the one told)
    for (let i = 0; i < ups.length; i++) {
      const [name, up] = ups[i];
      const client = await connecting[i];
      if (stopped) return;
      clients.set(name, client);
      // on the chain: a list_changed sent while this first import runs
      // re-imports after it, with the newer list applied last
      const first = markEnd(name, importFromClient(rt, name, client, { options: toolOptions(rt, name, up), timeoutMs: startupTimeout(up) }));
      imports.set(name, first.catch(() => {}));
      report(name, await first.catch((e) => { throw new Error(`${name}: ${e.message}`); }));
    }
  };

  try {
    const startup = startAll();
    try {
      await Promise.race([startup, stopping]);
    } catch (e) {
      await closeAll();
      throw new Error(`cannot start the upstreams: ${logText(e.message)}`);
    } finally {
      startup.catch(() => {}); // (stopped first: the closed upstreams fail their imports)
    }

    if (!stopped) {
      // the same handlers as any host's (a bad cursor is invalid params, -32602;
      // what is served fits the client's protocol version), as this gateway's
      // principal, mode and session
      serveTools(rt, server, { pageSize: 100, callContext: () => who });
      server.onclose = stop;
      process.stdin.once('end', stop); // the client went away
      // ...or its end of our stdout is gone: a write (a progress notification,
      // a result) then fails with EPIPE, which is the client going away too,
      // not an uncaught error that would leave the upstreams running
      process.stdout.on('error', stop);
      await server.connect(new StdioServerTransport());
      serving = true;
      await stopping;
      await server.close();
    }
    await closeAll();
    rt.dispose();
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** Upstreams are closed together and quickly: an MCP host that closes this
 * gateway as the SDK's StdioClientTransport does (stdin end, 2 s, SIGTERM,
 * 2 s, SIGKILL) must find every upstream gone before it escalates, and the
 * SDK's own close gives each upstream up to 4 s. So each gets its stdin
 * closed, then SIGTERM, then SIGKILL, CLOSE_STEP_MS apart. */
const CLOSE_STEP_MS = 400;

/** How long an upstream may take to answer initialize, and then to list its
 * tools, unless its config says (startupTimeoutMs): the SDK's own default. */
const STARTUP_TIMEOUT_MS = 60_000;
const startupTimeout = (up) => up.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;

/** The least time between the end of an upstream's import and the start of
 * the re-import its list_changed asks for. */
const REIMPORT_GAP_MS = 500;

async function closeUpstream({ client, transport, exited }) {
  const pid = transport.pid; // (read first: the SDK's close forgets its process)
  client.close().catch(() => {});
  const within = (ms) => {
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(resolve, ms, false); });
    return Promise.race([exited.then(() => true), late]).finally(() => clearTimeout(timer));
  };
  for (const signal of ['SIGTERM', 'SIGKILL']) {
    if (!pid || await within(CLOSE_STEP_MS)) return;
    try { process.kill(pid, signal); } catch { return; } // (already gone)
  }
  await within(CLOSE_STEP_MS);
}

/** Host-only facts per tool from the config: "options" for all, "tools": {
 * name: {...} } per tool, matched by the collision key of the model-visible
 * name the tool gets (the registry's: case, '-' for '_', look-alike letters
 * and digits): an upstream that names its tool "Deploy", "dep1oy" or
 * "delete-repo" still meets the host's "deploy" or "delete_repo" entry. */
function toolOptions(rt, source, up) {
  if (!up.options && !up.tools) return undefined;
  const key = (name) => rt.modelNameKey(source, String(name));
  const byKey = new Map();
  for (const [name, facts] of Object.entries(up.tools ?? {})) {
    const k = key(name);
    byKey.set(k, { ...byKey.get(k), ...facts });
  }
  return (t) => ({ ...up.options, ...byKey.get(key(t.name)) });
}

