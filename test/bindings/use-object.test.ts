/**
 * `useObject` of `argstream/react` in Chromium, with React 19 (the root's) and React 18
 * (test/frameworks/react18): test/bindings/use-object-page.ts mounts it under `StrictMode` on a fake
 * `fetch`. A submit from a mount effect survives StrictMode's extra unmount and mount (its second
 * run stops the first before any request: one request, which ends with the object); the real
 * unmount aborts
 * the request a macrotask later; options are the latest render's; stop, a new submit, clear and an
 * invalid body do what `ObjectStore` does.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../runtimes/chromium/run.ts';
import { waitInPage, type BrowserSession } from '../runtimes/harness.ts';
import { IN_CI } from './sources.ts';
import { reactFrom } from '../../examples/shared/serve.mjs';

const PAGE = fileURLToPath(new URL('./use-object-page.ts', import.meta.url));
const REACT18 = fileURLToPath(new URL('../frameworks/react18/', import.meta.url));

function react18Missing(): string | undefined {
  const manifest = `${REACT18}node_modules/react-dom/package.json`;
  if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version.startsWith('18.')) return undefined;
  return 'React 18 is missing from test/frameworks/react18/node_modules: run `npm test` (it installs it) or `node test/frameworks/install.mjs`';
}

const VARIANTS = [
  { name: 'React 19', major: '19.', plugins: [] as Plugin[], missing: (): string | undefined => undefined },
  { name: 'React 18', major: '18.', plugins: [reactFrom(REACT18)], missing: react18Missing },
];

async function bundle(plugins: Plugin[]): Promise<string> {
  const result = await build({
    entryPoints: [PAGE],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"development"' },
    plugins,
  });
  return result.outputFiles[0]!.text;
}

let server: Server | undefined;
let session: BrowserSession | undefined;
const pages = new Map<string, string>();

async function browser(): Promise<{ session: BrowserSession; base: string }> {
  if (server === undefined) {
    server = createServer((request, response) => {
      const url = request.url ?? '/';
      const script = pages.get(url.slice(1).replace(/\.js$/, ''));
      if (script === undefined) response.writeHead(404).end();
      else if (url.endsWith('.js')) response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><meta charset="utf-8"><title>useObject</title><script type="module" src="${url}.js"></script>`);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  }
  session ??= await launchChromium();
  return { session, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

afterAll(async () => {
  await session?.close();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
});

const state = (object: unknown, isLoading: boolean, error: string | null) => JSON.stringify({ object, isLoading, error });

describe('useObject (argstream/react) in Chromium', () => {
  for (const variant of VARIANTS) {
    it(`with ${variant.name} under StrictMode: a mount-time submit ends with the object, unmount aborts the request, options are the latest render's, stop / submit / clear`, async (context) => {
      const why = chromiumMissing() ?? variant.missing();
      if (why !== undefined) {
        if (IN_CI) throw new Error(why);
        context.skip(why);
      }
      const name = variant.name.replace(' ', '');
      pages.set(name, await bundle(variant.plugins));
      const { session: page, base } = await browser();
      await page.goto(`${base}/${name}`);
      await waitInPage(page, () => 'argstreamChecks' in window, 15_000, `the ${variant.name} page`);
      const result = (await page.evaluate(() => (window as unknown as { argstreamChecks(): Promise<unknown> }).argstreamChecks())) as {
        react: string;
        submitOnMount: { loading: string; done: string; calls: Array<{ body: unknown; aborted: boolean | null }> };
        unmount: { partial: string; abortedWhileMounted: boolean; abortedAtUnmount: boolean; aborted: boolean; bodyOpen: boolean };
        latestOptions: { finished: string[]; urls: string[] };
        stopSubmitClear: { stopped: string; stoppedAborted: boolean; supersededAborted: boolean; invalid: string; cleared: string };
      };
      expect(result.react.startsWith(variant.major)).toBe(true);
      // StrictMode runs the mount effect twice, at once: the second submit stops the first before
      // its request is made; one request, which ends with the object.
      expect(result.submitOnMount).toEqual({
        loading: state(null, true, null),
        done: state({ title: 'Crêpes', steps: ['Whisk'] }, false, null),
        calls: [{ body: { dish: 'on mount' }, aborted: false }],
      });
      expect(result.unmount).toEqual({ partial: state({ title: 'Cr' }, true, null), abortedWhileMounted: false, abortedAtUnmount: false, aborted: true, bodyOpen: false });
      expect(result.latestOptions).toEqual({ finished: ['second:One', 'second:Two'], urls: ['/api/one', '/api/two'] });
      expect(result.stopSubmitClear).toEqual({
        stopped: state({ title: 'On' }, false, null),
        stoppedAborted: true,
        supersededAborted: true,
        invalid: state(null, false, 'invalid-json'),
        cleared: state(null, false, null),
      });
      expect(page.problems()).toEqual([]);
    });
  }
});
