# workerd configuration for the portable checks: one module worker (the bundle of worker.ts,
# written next to this file by the runner) behind one HTTP socket. The runner passes the real
# address with `--socket-addr http=127.0.0.1:<port>`.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "portable", worker = .portableWorker)],
  sockets = [(name = "http", address = "127.0.0.1:8080", http = (), service = "portable")],
);

const portableWorker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "2026-10-01",
);
