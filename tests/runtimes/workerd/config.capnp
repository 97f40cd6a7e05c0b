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
    # resolve: ./js/src/worker.js -> ./index.js -> ./load.js, ./runtime.js, ./errors.js, ./text.js, ./first-error.js
    (name = "js/src/worker.js", esModule = embed "../../../js/src/worker.js"),
    (name = "js/src/index.js", esModule = embed "../../../js/src/index.js"),
    (name = "js/src/load.js", esModule = embed "../../../js/src/load.js"),
    (name = "js/src/runtime.js", esModule = embed "../../../js/src/runtime.js"),
    (name = "js/src/errors.js", esModule = embed "../../../js/src/errors.js"),
    (name = "js/src/text.js", esModule = embed "../../../js/src/text.js"),
    (name = "js/src/first-error.js", esModule = embed "../../../js/src/first-error.js"),
    # the README's spelling: import wasm from 'toolgate/toolgate.wasm'
    (name = "toolgate/toolgate.wasm", wasm = embed "../../../dist/toolgate.wasm"),
  ],
  compatibilityDate = "2025-09-01",
);
