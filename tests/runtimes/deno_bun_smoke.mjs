// deno_bun_smoke.mjs - runs a few calls through the real dist/toolgate.wasm
// under Deno or Bun (also Node) and prints ONE JSON line with what happened;
// tests/js/runtimes.test.js runs it and asserts that line.
//   npx deno run --allow-read=<repo> tests/runtimes/deno_bun_smoke.mjs
//   npx bun tests/runtimes/deno_bun_smoke.mjs
//
// 'toolgate' resolves by package self-reference (package.json "name" +
// "exports"; both runtimes pick the "deno"/"bun" condition -> js/src/node.js,
// which reads dist/toolgate.wasm with node:fs). 'toolgate/core' is then given
// bytes read with the runtime's own file API (Deno.readFile / Bun.file).
import { createToolRuntime, ToolgateError } from 'toolgate';
import * as core from 'toolgate/core';

const runtime = typeof Deno !== 'undefined' ? 'deno' : typeof Bun !== 'undefined' ? 'bun' : 'node';
const version = runtime === 'deno' ? Deno.version.deno : runtime === 'bun' ? Bun.version : process.versions.node;

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const code = (r) => r._meta?.['dev.toolgate/error']?.code ?? null;

async function exercise(rt) {
  const handled = [];
  const { digest } = rt.registerTool(weather, async ({ city }) => {
    handled.push(city);
    await new Promise((r) => setTimeout(r, 1)); // an async handler crosses a tick
    return { city, tempC: 21 };
  });
  rt.registerTool({ name: 'boom', inputSchema: { type: 'object' } }, () => { throw new Error('disk full'); });
  let duplicate = null;
  try { rt.registerTool(weather, () => 'again'); } catch (e) {
    duplicate = { isToolgateError: e instanceof ToolgateError, code: e.code };
  }
  const ok = await rt.callTool('get_weather', '{"city":"Oslo"}');
  const missing = await rt.callTool('get_weather', '{}');
  const badJson = await rt.callTool('get_weather', '{"city":"Oslo",}');
  const unknown = await rt.callTool('delete_everything', '{}');
  const thrown = await rt.callTool('boom', '{}');
  rt.dispose();
  return {
    ok,
    missing: { isError: missing.isError, code: code(missing), text: missing.content[0].text },
    badJson: { isError: badJson.isError, code: code(badJson) },
    unknown: { isError: unknown.isError, code: code(unknown) },
    thrown: { isError: thrown.isError, text: thrown.content[0].text },
    duplicate,
    handled,
    digest,
  };
}

async function readWasmNatively() {
  const url = new URL('../../dist/toolgate.wasm', import.meta.url);
  if (runtime === 'deno') return Deno.readFile(url);
  if (runtime === 'bun') return new Uint8Array(await Bun.file(url).arrayBuffer());
  const fs = await import('node:fs/promises');
  return fs.readFile(url);
}

const out = { runtime, version, entry: import.meta.resolve('toolgate') };
try {
  out.package = await exercise(await createToolRuntime());
  const bytes = await readWasmNatively();
  out.core = await exercise(await core.createToolRuntime({ wasm: bytes }));
} catch (e) {
  out.error = String(e?.stack ?? e);
}
console.log(JSON.stringify(out));
