/**
 * Serve a module worker with workerd on a free loopback port, with text bindings and loopback
 * network access for its `fetch` (workerd's default outbound allows public addresses only), until
 * `close()`. Used by the example tests (the portable suite has its own runner in run.ts).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fetchWhenUp, freePort, localBin, notInstalled } from '../harness.ts';

/** A running workerd. */
export interface ServedWorker {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** What workerd printed so far. */
  output(): string;
  close(): Promise<void>;
}

/** Why workerd cannot run here, or `undefined`. */
export function workerdMissing(): string | undefined {
  return localBin('workerd') === undefined ? notInstalled('workerd') : undefined;
}

/** A capnp string literal. */
function capnpText(text: string): string {
  return JSON.stringify(text);
}

/**
 * Serve `modulePath` (an ES module bundle whose default export has `fetch`), written next to a
 * generated config; `bindings` become the `env` of `fetch(request, env)`.
 */
export async function serveModuleWorker(modulePath: string, bindings: Readonly<Record<string, string>>): Promise<ServedWorker> {
  const bin = localBin('workerd');
  if (bin === undefined) throw new Error(notInstalled('workerd'));
  const dir = dirname(modulePath);
  const name = modulePath.slice(dir.length + 1);
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8080", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = ${capnpText(name)}, esModule = embed ${capnpText(name)})],
  compatibilityDate = "2026-10-01",
  bindings = [${Object.entries(bindings).map(([key, value]) => `(name = ${capnpText(key)}, text = ${capnpText(value)})`).join(', ')}],
  globalOutbound = "loopback",
);
`;
  writeFileSync(`${dir}/example.capnp`, config);
  const port = await freePort();
  const server = spawn(bin, ['serve', 'example.capnp', '--socket-addr', `http=127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  server.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  let exited = false;
  const exit = new Promise<void>((resolve) => server.once('exit', () => ((exited = true), resolve())));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (!exited) {
      server.kill('SIGTERM');
      await exit;
    }
  };
  try {
    // Any answer means it listens (a GET is refused by the handler with 405).
    await fetchWhenUp(url, 20_000, () => !exited);
  } catch (error) {
    await close();
    throw new Error(`${String(error)}\n--- workerd output\n${output.slice(-3000)}`);
  }
  return { url, output: () => output, close };
}
