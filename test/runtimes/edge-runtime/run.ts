/**
 * edge-runtime runner (`edge-runtime` npm package, Vercel's Edge Functions runtime): evaluates the
 * edge bundle in an `EdgeRuntime` (a VM context with only the edge globals), serves it with
 * `runServer` on a free loopback port and calls it once, as a deployed Edge Function is called.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Report } from '../report.ts';
import { notInstalled, type Runner } from '../harness.ts';

const require = createRequire(import.meta.url);

/**
 * The part of the `edge-runtime` package this runner uses. The package is a devDependency of
 * test/runtimes/package.json, installed by `npm test` on first run; typing it here (and importing
 * it by a computed name) keeps the type-check and this module's loading independent of that
 * install, so a machine without it skips the runtime instead of failing to compile.
 */
interface EdgeRuntimeModule {
  EdgeRuntime: new (options: { initialCode: string }) => object;
  runServer(options: { runtime: object; port: number; host: string }): Promise<{ url: string; close(): Promise<void> }>;
}

const PACKAGE = 'edge-runtime';

function installed(): boolean {
  try {
    require.resolve(PACKAGE);
    return true;
  } catch {
    return false;
  }
}

export const edgeRuntime: Runner = {
  missing: () => (installed() ? undefined : notInstalled('the edge-runtime package')),
  async run(bundlesDir) {
    const { EdgeRuntime, runServer } = (await import(PACKAGE)) as EdgeRuntimeModule;
    const { version } = require(`${PACKAGE}/package.json`) as { version: string };
    const runtime = new EdgeRuntime({ initialCode: readFileSync(join(bundlesDir, 'edge.js'), 'utf8') });
    const server = await runServer({ runtime, port: 0, host: '127.0.0.1' });
    try {
      const response = await fetch(server.url);
      if (!response.ok) throw new Error(`edge-runtime answered ${response.status}: ${(await response.text()).slice(0, 2000)}`);
      return { version: `edge-runtime ${version} on Node ${process.versions.node}`, report: (await response.json()) as Report, smoke: [] };
    } finally {
      await server.close();
    }
  },
};
