#!/usr/bin/env bash
# build.sh - builds the libFuzzer harnesses (clang-14, ASan + UBSan, every
# core source compiled in) into build/fuzz/, and their seed corpora.
# usage: fuzz/build.sh [name...]   (default: json schema regex runtime)
# run:   build/fuzz/schema build/fuzz/corpus/schema -max_total_time=600 -timeout=3 -rss_limit_mb=2048 -dict=fuzz/dict.json
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/fuzz
mkdir -p "$out"
srcs=$(find src -name '*.c' ! -name '*_test.c' | sort)
for n in "${@:-json schema regex runtime}"; do
  for h in $n; do
    clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
      -Wall -Wextra -Wno-unused-parameter -I include -I src "fuzz/$h.c" $srcs -lcjson -lm -o "$out/$h"
    echo "fuzz: $out/$h"
  done
done
# seeds: the JSON-Schema-Test-Suite and the JSONTestSuite (TG_TESTDATA, default ../shared/testdata)
data="${TG_TESTDATA:-$(cd .. && pwd)/shared/testdata}"
for s in schema regex runtime; do mkdir -p "$out/corpus/$s"; python3 "fuzz/gen_${s}_seeds.py" "$data" "$out/corpus/$s" >/dev/null; done
mkdir -p "$out/corpus/json"
cp "$data"/JSONTestSuite/test_parsing/*.json "$out/corpus/json/" 2>/dev/null || true
# batch-shaped documents, for the stream reader's "tools" (tg_json_parse_each)
printf '%s' '{"source":"a","tools":[{"tool":{"name":"x"}},1,[2,{"a":null}],"s\u0041"],"after":true}' > "$out/corpus/json/tools_mixed.json"
printf '%s' '{"tools":[]}' > "$out/corpus/json/tools_empty.json"
printf '%s' '{"tools":[1,2' > "$out/corpus/json/tools_cut.json"
printf '%s' '{"x":{"tools":[1]},"tools":[{"k":[[[]]]},{"k":1,"k":2}]}' > "$out/corpus/json/tools_nested_dup.json"
