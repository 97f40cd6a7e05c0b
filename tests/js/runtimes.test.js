// runtimes.test.js - the package and dist/toolgate.wasm in the runtimes it
// ships entries for, for real: Chromium (the browser entry, fetching the
// wasm), workerd (the worker entry, the wasm imported as a compiled module),
// Deno and Bun (the package's self-reference -> the node entry, and the core
// entry given bytes). Everything runs on loopback from node_modules and the
// Debian chromium; nothing is downloaded. A runtime that is missing fails its
// test with a message naming what to install (npm run setup installs them all).
// The helpers live in tests/runtimes/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './helpers.js';
import { startStaticServer } from '../runtimes/static_server.mjs';

const CHROMIUM = process.env.TG_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const artifacts = path.join(repoRoot, 'tests', 'artifacts');
const wasmFile = path.join(repoRoot, 'dist', 'toolgate.wasm');

const children = new Set();
process.on('exit', () => { for (const c of children) try { c.kill('SIGKILL'); } catch {} });

/** node_modules/.bin/<name> (what `npx <name>` runs), or a clear failure. */
function bin(name) {
  const file = path.join(repoRoot, 'node_modules', '.bin', name);
  if (!existsSync(file)) assert.fail(`${name} is not installed (no ${file}): run \`npm run setup\` (it is a devDependency)`);
  return file;
}

function requireWasm() {
  if (!existsSync(wasmFile)) assert.fail(`no ${wasmFile}: run \`npm run build\` first`);
}

function spawnTracked(cmd, args, opts) {
  const child = spawn(cmd, args, { cwd: repoRoot, ...opts });
  children.add(child);
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
    children.delete(child);
    resolve({ code, signal });
  }));
  return child;
}

/** Stops a child: SIGTERM, then SIGKILL if it lingers. */
async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await child.exited;
  clearTimeout(timer);
}

/** Runs a command to completion (bounded), collecting its output. */
async function run(cmd, args, { timeout = 30000, env } = {}) {
  const child = spawnTracked(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
  const { code, signal } = await child.exited;
  clearTimeout(timer);
  return { code, signal, stdout, stderr };
}

const gateCode = (r) => r?._meta?.['dev.toolgate/error']?.code;
// get_weather's digests (BLAKE2s-256 of its canonical text, as Node's crypto
// computes it: tests/js/digest.test.js): digests are compared across runs and
// machines, so every engine must compute the same ones
const DIGEST = {
  'Weather for a city': '74de57555210ef373890e7addc1b4a0cf23057a8b085efef1730712be31b6012',
  'Current weather for a city': '26af34aa26f8c01069acd0f661a0390a27baaf94b0585d31039d896b7a5b0335',
};
const weatherOk = (city) => ({
  content: [{ type: 'text', text: JSON.stringify({ city, tempC: 21 }) }],
  structuredContent: { city, tempC: 21 },
});

// --- Deno and Bun: tests/runtimes/deno_bun_smoke.mjs prints one JSON line ---

function assertSmokeLine(stdout, runtime) {
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one line of output, got:\n${stdout}`);
  const out = JSON.parse(lines[0]);
  assert.equal(out.error, undefined, `the script failed under ${runtime}: ${out.error}`);
  assert.equal(out.runtime, runtime);
  // import 'toolgate' from inside the repo resolves by self-reference to the node entry
  assert.equal(out.entry, pathToFileURL(path.join(repoRoot, 'js', 'src', 'node.js')).href);
  for (const via of ['package', 'core']) {
    const r = out[via];
    assert.ok(r, `${via} results`);
    assert.deepEqual(r.ok, weatherOk('Oslo'), `${via}: a successful call`);
    assert.deepEqual(r.handled, ['Oslo'], `${via}: the handler ran once, for the valid call only`);
    assert.equal(r.missing.isError, true);
    assert.equal(r.missing.code, 'invalid_arguments', `${via}: a missing required property`);
    assert.match(r.missing.text, /missing required property "city"/);
    assert.deepEqual(r.badJson, { isError: true, code: 'invalid_json' }, `${via}: a trailing comma`);
    assert.deepEqual(r.unknown, { isError: true, code: 'unknown_tool' }, `${via}: an unknown tool`);
    assert.deepEqual(r.thrown, { isError: true, text: 'Tool "boom" failed: disk full' }, `${via}: a handler that throws`);
    assert.deepEqual(r.duplicate, { isToolgateError: true, code: 'duplicate_tool' }, `${via}: a duplicate registration throws`);
    assert.equal(r.digest, DIGEST['Weather for a city'], `${via}: the definition's digest`);
  }
  return out;
}

const smokeScript = path.join(repoRoot, 'tests', 'runtimes', 'deno_bun_smoke.mjs');

test('deno: the package and the core entry run calls through the wasm', { timeout: 60000 }, async () => {
  requireWasm();
  const deno = bin('deno');
  const r = await run(deno, ['run', '--no-prompt', '--no-lock', '--cached-only', `--allow-read=${repoRoot}`, smokeScript],
    { env: { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } });
  assert.equal(r.code, 0, `deno exited ${r.code ?? r.signal}\n${r.stderr}`);
  const out = assertSmokeLine(r.stdout, 'deno');
  assert.match(out.version, /^\d+\.\d+\.\d+/);
});

test('bun: the package and the core entry run calls through the wasm', { timeout: 60000 }, async () => {
  requireWasm();
  const bun = bin('bun');
  const r = await run(bun, [smokeScript], { env: { NO_COLOR: '1', DO_NOT_TRACK: '1' } });
  assert.equal(r.code, 0, `bun exited ${r.code ?? r.signal}\n${r.stderr}`);
  const out = assertSmokeLine(r.stdout, 'bun');
  assert.match(out.version, /^\d+\.\d+\.\d+/);
});

// --- workerd: tests/runtimes/workerd/{config.capnp,worker.js} ---

/** Starts workerd on 127.0.0.1:<free port>; the port comes back on --control-fd. */
async function startWorkerd() {
  const workerd = bin('workerd');
  const config = path.join(repoRoot, 'tests', 'runtimes', 'workerd', 'config.capnp');
  const child = spawnTracked(workerd, ['serve', config, '--socket-addr', 'http=127.0.0.1:0', '--control-fd', '3'],
    { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stderr += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  child.output = () => stderr;
  const port = await new Promise((resolve, reject) => {
    let ctl = '';
    const timer = setTimeout(() => reject(new Error(`workerd did not listen within 20 s\n${stderr}`)), 20000);
    child.stdio[3].setEncoding('utf8').on('data', (d) => {
      ctl += d;
      for (const line of ctl.split('\n').slice(0, -1)) {
        const m = JSON.parse(line);
        if (m.event === 'listen' && m.socket === 'http') { clearTimeout(timer); resolve(m.port); }
      }
    });
    child.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`workerd exited (${code ?? signal}) before listening\n${stderr}`));
    });
  }).catch(async (e) => { await stop(child); throw e; });
  child.base = `http://127.0.0.1:${port}`;
  return child;
}

async function getJSON(base, pathAndQuery) {
  const res = await fetch(base + pathAndQuery, { signal: AbortSignal.timeout(10000) });
  assert.equal(res.status, 200, `${pathAndQuery}: HTTP ${res.status} ${await res.clone().text()}`);
  assert.match(res.headers.get('content-type'), /^application\/json/);
  return res.json();
}

test('workerd: a worker answers requests by calling tools, with the wasm imported as a module', { timeout: 60000 }, async () => {
  requireWasm();
  const wd = await startWorkerd();
  try {
    // it said it listens; still poll until the worker itself answers (bounded)
    const deadline = Date.now() + 20000;
    let info;
    for (;;) {
      try { info = await getJSON(wd.base, '/info'); break; } catch (e) {
        if (Date.now() > deadline) throw new Error(`workerd never answered /info: ${e.message}\n${wd.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.equal(info.userAgent, 'Cloudflare-Workers');
    assert.equal(info.wasmIsModule, true);
    assert.deepEqual(info.wasmImports, ['env.emscripten_notify_memory_growth', 'env.memory', 'toolgate.audit', 'toolgate.invoke', 'toolgate.now', 'toolgate.random']);
    // the constraint the worker entry exists for: no compiling bytes, no eval
    assert.match(info.compileFromBytes, /^refused: .*disallowed/);
    assert.match(info.evalCode, /^refused: .*disallowed/);
    assert.deepEqual(info.duplicate, { isToolgateError: true, code: 'duplicate_tool' });
    assert.equal(info.handled, 0);
    assert.equal(info.digest, DIGEST['Current weather for a city']);

    assert.deepEqual(await getJSON(wd.base, '/?city=Oslo'), {
      content: [{ type: 'text', text: '{"city":"Oslo","tempC":21,"sky":"clear"}' }],
      structuredContent: { city: 'Oslo', tempC: 21, sky: 'clear' },
    });
    assert.equal((await getJSON(wd.base, `/?city=${encodeURIComponent('Zürich')}`)).structuredContent.city, 'Zürich');

    const missing = await getJSON(wd.base, '/');
    assert.equal(missing.isError, true);
    assert.equal(gateCode(missing), 'invalid_arguments');
    assert.match(missing.content[0].text, /missing required property "city"/);

    const unknown = await getJSON(wd.base, `/?tool=delete_everything&args=${encodeURIComponent('{}')}`);
    assert.equal(unknown.isError, true);
    assert.equal(gateCode(unknown), 'unknown_tool');
    assert.match(unknown.content[0].text, /Unknown tool "delete_everything"/);

    const dup = await getJSON(wd.base, `/?args=${encodeURIComponent('{"city":"a","city":"b"}')}`);
    assert.equal(gateCode(dup), 'invalid_json');
    assert.match(dup.content[0].text, /duplicate key "city"/);

    // the runtime persists across requests and the handler ran only for valid calls
    assert.equal((await getJSON(wd.base, '/info')).handled, 2);
  } finally {
    await stop(wd);
  }
});

// --- Chromium: tests/runtimes/browser/index.html over a loopback static server ---

test('chromium: the browser entry fetches the wasm and a page calls a tool', { timeout: 60000 }, async () => {
  requireWasm();
  if (!existsSync(CHROMIUM)) assert.fail(`no Chromium at ${CHROMIUM}: install the Debian package (\`npm run setup\` does) or set TG_CHROMIUM`);
  let chromium;
  try { ({ chromium } = await import('playwright-core')); } catch (e) {
    assert.fail(`playwright-core is not installed (${e.message}): run \`npm run setup\``);
  }
  const server = await startStaticServer({ root: repoRoot });
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30000 });
    const page = await browser.newPage({ viewport: { width: 1000, height: 480 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));

    await page.goto(`${server.url}/tests/runtimes/browser/index.html`, { timeout: 15000 });
    await page.waitForSelector('#results[data-status="done"]', { state: 'attached', timeout: 20000 });
    const out = JSON.parse(await page.textContent('#results'));

    assert.equal(out.error, undefined, `the page failed: ${out.error}`);
    assert.match(out.userAgent, /Chrome\//);
    assert.equal(out.wasmURL, `${server.url}/dist/toolgate.wasm`);
    assert.deepEqual(out.calls.success, {
      content: [{ type: 'text', text: '{"city":"Oslo","tempC":21,"sky":"clear"}' }],
      structuredContent: { city: 'Oslo', tempC: 21, sky: 'clear' },
    });
    assert.equal(out.calls.missing.isError, true);
    assert.equal(gateCode(out.calls.missing), 'invalid_arguments');
    assert.match(out.calls.missing.content[0].text, /missing required property "city"/);
    assert.equal(gateCode(out.calls.unknown), 'unknown_tool');
    assert.deepEqual(out.handled, ['Oslo']);
    assert.deepEqual(out.duplicate, { isToolgateError: true, code: 'duplicate_tool' });
    assert.equal(out.digest, DIGEST['Current weather for a city']);

    // what a person sees: one row per call, outcomes spelled out
    const rows = await page.$$eval('#rows tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.equal(rows.length, 3);
    assert.deepEqual(rows.map((r) => r[2]), ['ok', 'error (invalid_arguments)', 'error (unknown_tool)']);
    assert.match(await page.textContent('#status'), /^done: 3 calls/);

    // the wasm came from the package's default location, as application/wasm (streaming compile)
    const wasmReq = server.log.filter((e) => e.path === '/dist/toolgate.wasm');
    assert.deepEqual(wasmReq.map((e) => [e.status, e.type]), [[200, 'application/wasm']]);
    assert.deepEqual(problems, []);

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, 'browser.png'), fullPage: true });
  } finally {
    await browser?.close();
    await server.close();
  }
});
