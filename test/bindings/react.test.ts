/**
 * `argstream/react` in Chromium, with React 19 (the root's) and React 18 (test/frameworks/react18):
 * test/bindings/react-page.ts mounts `useTurn` with `react-dom/client` under `StrictMode` and
 * unmounts it. A `ReadableStream` source, and a `Response`'s body and its request, are cancelled
 * once, after the unmount and not at StrictMode's extra one; a new source cancels the old one; a
 * `TurnStore` given as the source is never cancelled.
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

const PAGE = fileURLToPath(new URL('./react-page.ts', import.meta.url));
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

/** A loopback server for the pages' bundles, and Chromium: started once, for every variant. */
async function browser(): Promise<{ session: BrowserSession; base: string }> {
  if (server === undefined) {
    // `/React19` is the page, `/React19.js` its bundle.
    server = createServer((request, response) => {
      const url = request.url ?? '/';
      const script = pages.get(url.slice(1).replace(/\.js$/, ''));
      if (script === undefined) response.writeHead(404).end();
      else if (url.endsWith('.js')) response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><meta charset="utf-8"><title>argstream/react</title><script type="module" src="${url}.js"></script>`);
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

interface Observed {
  react: string;
  stream: { first: string; second: string; cancelsWhileMounted: string[]; cancelsAtUnmount: string[]; cancels: string[] };
  response: { first: string; cancelsWhileMounted: string[]; abortedWhileMounted: boolean; cancels: string[]; request: string[] };
  store: { first: string; cancels: string[]; status: string; text: string };
  newSource: { first: string; second: string; oneCancels: string[]; twoCancels: string[]; twoCancelsAfterUnmount: string[] };
}

describe('argstream/react in Chromium', () => {
  for (const variant of VARIANTS) {
    it(`\`useTurn\` with ${variant.name} under StrictMode: unmount cancels a ReadableStream, a Response's body and its request, once; a new source cancels the old; a TurnStore source is never cancelled`, async (context) => {
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
      const result = (await page.evaluate(() => (window as unknown as { argstreamChecks(): Promise<unknown> }).argstreamChecks())) as Observed;
      expect(result.react.startsWith(variant.major)).toBe(true);
      // StrictMode's extra unmount and mount do not cut the turn; the real unmount cancels once, a macrotask later.
      expect(result.stream).toEqual({ first: 'streaming:a', second: 'streaming:ab', cancelsWhileMounted: [], cancelsAtUnmount: [], cancels: ['unmount'] });
      expect(result.response).toEqual({ first: 'streaming:a', cancelsWhileMounted: [], abortedWhileMounted: false, cancels: ['unmount'], request: ['unmount'] });
      expect(result.store).toEqual({ first: 'streaming:a', cancels: [], status: 'done', text: 'ab' });
      expect(result.newSource).toEqual({ first: 'streaming:one', second: 'streaming:two', oneCancels: ['unmount'], twoCancels: [], twoCancelsAfterUnmount: ['unmount'] });
    });
  }
});
