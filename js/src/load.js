// load.js - turns whatever the host has (a precompiled WebAssembly.Module,
// bytes, a Response, a URL) into a WebAssembly.Module using web-standard
// APIs only. File paths are the Node entry's job (node.js).

/**
 * @param {WebAssembly.Module|ArrayBuffer|ArrayBufferView|Response|URL|string} source
 * @returns {Promise<WebAssembly.Module>}
 */
export async function compileWasm(source) {
  if (source instanceof WebAssembly.Module) return source; // workerd: an imported module
  if (source instanceof ArrayBuffer) return WebAssembly.compile(source);
  // (any view, a DataView too: WebAssembly.compile takes typed arrays)
  if (ArrayBuffer.isView(source)) return WebAssembly.compile(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
  if (typeof Response !== 'undefined' && source instanceof Response) return compileResponse(source);
  if (source instanceof URL || typeof source === 'string') {
    return compileResponse(await fetch(source));
  }
  throw new TypeError('wasm must be a WebAssembly.Module, bytes, a Response or a URL');
}

async function compileResponse(res) {
  if (!res.ok) throw new Error(`cannot load toolgate.wasm: HTTP ${res.status}`);
  if (typeof WebAssembly.compileStreaming === 'function' &&
      (res.headers.get('content-type') || '').startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(res);
  }
  return WebAssembly.compile(await res.arrayBuffer());
}
