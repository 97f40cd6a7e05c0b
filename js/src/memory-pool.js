// memory-pool.js - the linear memories runtimes run in: made, grown ahead
// of the module's needs, and kept for reuse once a runtime is disposed.

// The module's linear memory is the host's (env.memory), so a disposed
// runtime's memory can serve the next one: the first touch of a fresh page
// is a page fault, most of what a first import of 1,000 tools costs; a
// reused memory's pages are warm. A memory is zeroed before reuse, so
// nothing of one runtime reaches another. Limits match the link flags
// (CMakeLists.txt: INITIAL_MEMORY 2 MiB, MAXIMUM_MEMORY 256 MiB).
const PAGE = 65536;
const MEMORY = { initial: (2 << 20) / PAGE, maximum: (256 << 20) / PAGE };
const POOL_MAX = 2; // memories kept
const POOL_BYTES_MAX = 64 << 20; // a larger one is left to the garbage collector
const memoryPool = [];

export function takeMemory() {
  const m = memoryPool.pop();
  if (!m) return new WebAssembly.Memory(MEMORY);
  new Uint8Array(m.buffer).fill(0);
  return m;
}

// The module grows its memory by just what one allocation needs (Emscripten's
// standalone sbrk), and each grow of a host memory costs ~0.2 ms here; told of
// a grow, the host adds a quarter more (at least 4 MiB) so the next
// allocations fit. Untouched pages cost nothing until used.
export function growAhead(m) {
  const pages = m.buffer.byteLength / PAGE;
  const more = Math.min(MEMORY.maximum - pages, Math.max((4 << 20) / PAGE, pages >> 2));
  if (more > 0) {
    try { m.grow(more); } catch { /* refused: the module grows as it needs */ }
  }
}

export function giveMemory(m) {
  if (m && memoryPool.length < POOL_MAX && m.buffer.byteLength <= POOL_BYTES_MAX) memoryPool.push(m);
}
