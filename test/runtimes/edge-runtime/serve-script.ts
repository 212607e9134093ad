/**
 * Serve a classic script with a `fetch` event listener in an `EdgeRuntime` (Vercel's Edge runtime)
 * on a free loopback port, with `process.env` set as Vercel sets it, until `close()`. Used by the
 * example tests (the portable suite has its own runner in run.ts).
 */
import { createRequire } from 'node:module';
import { notInstalled } from '../harness.ts';

const require = createRequire(import.meta.url);

/** The part of the `edge-runtime` package used here (typed locally, as run.ts does). */
interface EdgeRuntimeModule {
  EdgeRuntime: new (options: { initialCode: string; extend?: (context: Record<string, unknown>) => Record<string, unknown> }) => object;
  runServer(options: { runtime: object; port: number; host: string }): Promise<{ url: string; close(): Promise<void> }>;
}

const PACKAGE = 'edge-runtime';

/** Why edge-runtime cannot run here, or `undefined`. */
export function edgeRuntimeMissing(): string | undefined {
  try {
    require.resolve(PACKAGE);
    return undefined;
  } catch {
    return notInstalled('the edge-runtime package');
  }
}

/** A running edge-runtime server. */
export interface ServedEdgeScript {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  close(): Promise<void>;
}

/** Serve `code` (a classic script that adds a `fetch` listener) with `env` as `process.env`. */
export async function serveEdgeScript(code: string, env: Readonly<Record<string, string>>): Promise<ServedEdgeScript> {
  const { EdgeRuntime, runServer } = (await import(PACKAGE)) as EdgeRuntimeModule;
  const runtime = new EdgeRuntime({
    initialCode: code,
    extend: (context) => Object.assign(context, { process: { env: { ...env } } }),
  });
  const server = await runServer({ runtime, port: 0, host: '127.0.0.1' });
  return { url: server.url.replace(/\/$/, ''), close: () => server.close() };
}
