/**
 * Serve a module worker bundle (default export with `fetch(request, env)`) with `Deno.serve` on a
 * free loopback port, `env` given as the worker's bindings, until `close()`. Used by the example
 * tests.
 */
import { spawnServer, type ServedProcess } from './serve-process.ts';
import { localBin, notInstalled } from '../harness.ts';

/** Why Deno cannot run here, or `undefined`. */
export function denoMissing(): string | undefined {
  return localBin('deno') === undefined ? notInstalled('deno') : undefined;
}

/** Serve `modulePath` with Deno. */
export function serveModuleWithDeno(modulePath: string, env: Readonly<Record<string, string>>): Promise<ServedProcess> {
  const bin = localBin('deno');
  if (bin === undefined) throw new Error(notInstalled('deno'));
  const entry = `import worker from ${JSON.stringify(modulePath)};
const env = JSON.parse(Deno.env.get('WORKER_ENV'));
Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.env.get('PORT')), onListen: () => console.log('listening') }, (request) => worker.fetch(request, env));
`;
  return spawnServer(bin, ['run', '--no-lock', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env=PORT,WORKER_ENV', '--allow-read', '-'], entry, env, 'deno');
}
