# config.capnp - workerd config for the toolgate edge smoke test
# (tests/js/runtimes.test.js). Paths are relative to this file. The worker
# imports the package's worker entry and the wasm as a compiled module: workerd
# forbids compiling wasm bytes at run time and forbids eval.
#   npx workerd serve tests/runtimes/workerd/config.capnp --socket-addr http=127.0.0.1:8787
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .toolgateWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const toolgateWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    # the package's web-standard files, named so that their relative imports
    # resolve: ./js/src/worker.js -> ./index.js -> ./load.js, ./runtime.js,
    # ./validator.js, ./errors.js, and what runtime.js imports (a file left
    # out here fails the test: "No such module")
    (name = "js/src/worker.js", esModule = embed "../../../js/src/worker.js"),
    (name = "js/src/index.js", esModule = embed "../../../js/src/index.js"),
    (name = "js/src/load.js", esModule = embed "../../../js/src/load.js"),
    (name = "js/src/runtime.js", esModule = embed "../../../js/src/runtime.js"),
    (name = "js/src/errors.js", esModule = embed "../../../js/src/errors.js"),
    (name = "js/src/text.js", esModule = embed "../../../js/src/text.js"),
    (name = "js/src/first-error.js", esModule = embed "../../../js/src/first-error.js"),
    (name = "js/src/bytes.js", esModule = embed "../../../js/src/bytes.js"),
    (name = "js/src/write-parts.js", esModule = embed "../../../js/src/write-parts.js"),
    (name = "js/src/memory-pool.js", esModule = embed "../../../js/src/memory-pool.js"),
    (name = "js/src/options.js", esModule = embed "../../../js/src/options.js"),
    (name = "js/src/request.js", esModule = embed "../../../js/src/request.js"),
    (name = "js/src/call-info.js", esModule = embed "../../../js/src/call-info.js"),
    (name = "js/src/batch-checks.js", esModule = embed "../../../js/src/batch-checks.js"),
    (name = "js/src/list-cache.js", esModule = embed "../../../js/src/list-cache.js"),
    (name = "js/src/validator.js", esModule = embed "../../../js/src/validator.js"),
    # the README's spelling: import wasm from 'toolgate/toolgate.wasm'
    (name = "toolgate/toolgate.wasm", wasm = embed "../../../dist/toolgate.wasm"),
  ],
  compatibilityDate = "2025-09-01",
);
