#!/usr/bin/env bash
# build.sh - builds the wasm module the JS package ships (Emscripten) and the
# WASI reactor into dist/. Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs # Debian's emscripten needs its acorn
jobs=$(nproc 2>/dev/null || echo 2)
for preset in wasm wasi; do
  cmake --preset "$preset" >/dev/null
  if ! cmake --build --preset "$preset" -j "$jobs" >"build/$preset.log" 2>&1; then
    grep -E 'error|warning' "build/$preset.log" | head -40 || cat "build/$preset.log"
    echo "build: the $preset build failed (full log: build/$preset.log)"
    exit 1
  fi
done
mkdir -p dist
cp build/wasm/toolgate.wasm dist/toolgate.wasm
cp build/wasi/toolgate.wasm dist/toolgate-wasi.wasm
echo "build: dist/toolgate.wasm $(stat -c %s dist/toolgate.wasm) bytes, dist/toolgate-wasi.wasm $(stat -c %s dist/toolgate-wasi.wasm) bytes"
