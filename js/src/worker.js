// worker.js - the edge-worker entry (workerd, Cloudflare Workers, Vercel
// Edge). Those runtimes forbid compiling wasm bytes at run time, so the
// worker imports toolgate.wasm as a module and passes it in:
//   import wasm from 'toolgate/toolgate.wasm';
//   const rt = await createToolRuntime({ wasm });
export * from './index.js';
