// static_server.mjs - a tiny read-only static file server over the repo root
// for the browser smoke test (tests/js/runtimes.test.js). Loopback only, GET
// and HEAD only, no directory listings, nothing outside the root.
//   node tests/runtimes/static_server.mjs [port]   # then open
//   http://127.0.0.1:<port>/tests/runtimes/browser/index.html
import http from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

/**
 * Starts the server on 127.0.0.1 (port 0 = a free one).
 * @returns {Promise<{ port: number, url: string, log: Array<{method:string,path:string,status:number,type:string|null}>, close: () => Promise<void> }>}
 */
export async function startStaticServer({ root = repoRoot, port = 0 } = {}) {
  const base = path.resolve(root);
  const log = [];
  const server = http.createServer(async (req, res) => {
    const entry = { method: req.method, path: req.url, status: 0, type: null };
    log.push(entry);
    const send = (status, type, body) => {
      entry.status = status;
      entry.type = type;
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    let rel;
    try { rel = decodeURIComponent(new URL(req.url, 'http://x').pathname); } catch { return send(400, 'text/plain', 'bad path\n'); }
    const file = path.resolve(base, '.' + rel);
    if (file !== base && !file.startsWith(base + path.sep)) return send(403, 'text/plain', 'forbidden\n');
    const type = TYPES[path.extname(file).toLowerCase()];
    let st;
    try { st = await stat(file); } catch { return send(404, 'text/plain', 'not found\n'); }
    if (!st.isFile() || !type) return send(404, 'text/plain', 'not found\n');
    entry.status = 200;
    entry.type = type;
    res.writeHead(200, { 'content-type': type, 'content-length': st.size, 'cache-control': 'no-store' });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = server.address().port;
  return {
    port: actual,
    url: `http://127.0.0.1:${actual}`,
    log,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    }),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const s = await startStaticServer({ port: Number(process.argv[2] ?? 0) });
  console.log(`serving ${repoRoot} at ${s.url}/tests/runtimes/browser/index.html`);
}
