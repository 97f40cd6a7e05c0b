#!/usr/bin/env bash
# build.sh - builds the wasm module the JS package ships (Emscripten) and the
# WASI reactor into dist/. Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs # Debian's emscripten needs its acorn
jobs=$(nproc 2>/dev/null || echo 2)
for preset in wasm wasi; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs" | grep -Ev '^\[|^(gmake|make)' || true
  test "${PIPESTATUS[0]}" -eq 0
done
mkdir -p dist
cp build/wasm/toolgate.wasm dist/toolgate.wasm
cp build/wasi/toolgate.wasm dist/toolgate-wasi.wasm
echo "build: dist/toolgate.wasm $(stat -c %s dist/toolgate.wasm) bytes, dist/toolgate-wasi.wasm $(stat -c %s dist/toolgate-wasi.wasm) bytes"
