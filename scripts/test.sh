#!/usr/bin/env bash
# test.sh - every test: the C tests under ASan/UBSan (ctest), the same tests
# under valgrind, then the JS tests against the real wasm build (node --test).
# Test data: TG_TESTDATA, default ../shared/testdata beside the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
export TG_TESTDATA="${TG_TESTDATA:-$(cd .. && pwd)/shared/testdata}"
[ -d "$TG_TESTDATA" ] || echo "test: no test data at $TG_TESTDATA: the conformance suites will say they were skipped"
jobs=$(nproc 2>/dev/null || echo 2)
[ -f dist/toolgate.wasm ] || bash scripts/build.sh

echo "== generated sources match their generators"
python3 src/schema/gen_flat_meta.py --check

echo "== C tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs" >/dev/null
# TG_TIME_SCALE: the "ends promptly" bounds of the C tests, widened for the
# slower instrumented runs (tests/tg_test.h)
TG_TIME_SCALE=4 ctest --preset asan -j "$jobs"

echo "== C tests under valgrind"
cmake --preset native >/dev/null
cmake --build --preset native -j "$jobs" >/dev/null
for t in $(ctest --test-dir build/native -N | awk '/Test +#/ {print $3}'); do
  TG_TIME_SCALE=30 valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    "build/native/$t" >/dev/null || { echo "valgrind: $t failed"; exit 1; }
  echo "valgrind: $t clean"
done

echo "== JS tests against dist/toolgate.wasm"
node --test --test-reporter=spec tests/js/
