/**
 * Serve a module worker bundle (default export with `fetch(request, env)`) with `Bun.serve` on a
 * free loopback port, `env` given as the worker's bindings, until `close()`. Used by the example
 * tests.
 */
import { spawnServer, type ServedProcess } from '../deno/serve-process.ts';
import { localBin, notInstalled } from '../harness.ts';

/** Why Bun cannot run here, or `undefined`. */
export function bunMissing(): string | undefined {
  return localBin('bun') === undefined ? notInstalled('bun') : undefined;
}

/** Serve `modulePath` with Bun. */
export function serveModuleWithBun(modulePath: string, env: Readonly<Record<string, string>>): Promise<ServedProcess> {
  const bin = localBin('bun');
  if (bin === undefined) throw new Error(notInstalled('bun'));
  const entry = `import worker from ${JSON.stringify(modulePath)};
const env = JSON.parse(process.env.WORKER_ENV);
Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), idleTimeout: 0, fetch: (request) => worker.fetch(request, env) });
console.log('listening');
`;
  return spawnServer(bin, ['run', '-'], entry, env, 'bun');
}
