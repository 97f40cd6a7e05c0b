// worker.js - a workerd (edge) worker that answers each HTTP request by
// calling a tool through toolgate. The wasm arrives as an imported, already
// compiled WebAssembly.Module (see config.capnp).
//   GET /?city=Oslo                      -> get_weather({"city":"Oslo"})
//   GET /?tool=NAME&args=<JSON text>     -> NAME(<JSON text>), the text as a model wrote it
//   GET /info                            -> what the worker sees of its environment
// Every tool call answers 200 with the CallToolResult as JSON.
import { createToolRuntime, ToolgateError } from './js/src/worker.js';
import wasm from 'toolgate/toolgate.wasm';

let runtime = null; // one runtime per isolate, created on the first request
let handled = 0;
let digest = null; // get_weather's, as this engine computed it

async function getRuntime() {
  if (runtime) return runtime;
  const rt = await createToolRuntime({ wasm });
  ({ digest } = rt.registerTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  }, async ({ city }) => {
    handled++;
    await new Promise((r) => setTimeout(r, 1)); // async handlers work in a request context
    return { city, tempC: 21, sky: 'clear' };
  }));
  runtime = rt;
  return rt;
}

// The smallest valid module ("\0asm", version 1): compiling it from bytes must
// be refused by workerd, which is why the worker entry takes a Module.
const EMPTY_WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

async function info() {
  let compileFromBytes;
  try { await WebAssembly.compile(EMPTY_WASM); compileFromBytes = 'allowed'; } catch (e) { compileFromBytes = `refused: ${e.message}`; }
  let evalCode;
  try { evalCode = `allowed: ${(0, eval)('1+1')}`; } catch (e) { evalCode = `refused: ${e.message}`; }
  let duplicate = null;
  try { (await getRuntime()).registerTool({ name: 'get_weather', inputSchema: { type: 'object' } }, () => 1); } catch (e) {
    duplicate = { isToolgateError: e instanceof ToolgateError, code: e.code };
  }
  return {
    userAgent: globalThis.navigator?.userAgent ?? null,
    wasmIsModule: wasm instanceof WebAssembly.Module,
    wasmImports: WebAssembly.Module.imports(wasm).map((i) => `${i.module}.${i.name}`).sort(),
    compileFromBytes,
    evalCode,
    duplicate,
    handled,
    digest,
  };
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const json = (value, status = 200) => new Response(JSON.stringify(value), {
      status, headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    try {
      if (url.pathname === '/info') return json(await info());
      if (url.pathname !== '/') return json({ error: 'not found' }, 404);
      const rt = await getRuntime();
      const tool = url.searchParams.get('tool') ?? 'get_weather';
      let args = url.searchParams.get('args');
      if (args === null) args = url.searchParams.has('city') ? { city: url.searchParams.get('city') } : {};
      return json(await rt.callTool(tool, args));
    } catch (e) {
      return json({ error: String(e?.stack ?? e) }, 500);
    }
  },
};
