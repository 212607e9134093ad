/**
 * What the `argstream/react` page tests share: React 19 (the root's) and React 18
 * (test/frameworks/react18) as variants, a page of test/bindings bundled with one of them, and a
 * loopback server for the bundles with one Chromium for every variant of a file.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { afterAll, type TestContext } from 'vitest';
import { chromiumMissing, launchChromium } from '../runtimes/chromium/run.ts';
import { waitInPage, type BrowserSession } from '../runtimes/harness.ts';
import { IN_CI } from './sources.ts';
import { reactFrom } from '../../examples/shared/serve.mjs';

const REACT18 = fileURLToPath(new URL('../frameworks/react18/', import.meta.url));

function react18Missing(): string | undefined {
  const manifest = `${REACT18}node_modules/react-dom/package.json`;
  if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version.startsWith('18.')) return undefined;
  return 'React 18 is missing from test/frameworks/react18/node_modules: run `npm test` (it installs it) or `node test/frameworks/install.mjs`';
}

export interface ReactVariant {
  readonly name: string;
  /** How the version React reports starts. */
  readonly major: string;
  readonly plugins: Plugin[];
  missing(): string | undefined;
}

export const VARIANTS: readonly ReactVariant[] = [
  { name: 'React 19', major: '19.', plugins: [], missing: () => undefined },
  { name: 'React 18', major: '18.', plugins: [reactFrom(REACT18)], missing: react18Missing },
];

/**
 * The pages of `page` (a module of test/bindings), one per variant, served on loopback and opened
 * in one Chromium (started with the first page, closed after the file's tests).
 */
export function reactPages(page: string, title: string): { open(variant: ReactVariant, context: TestContext): Promise<BrowserSession> } {
  const entry = fileURLToPath(new URL(page, import.meta.url));
  const pages = new Map<string, string>();
  let server: Server | undefined;
  let session: BrowserSession | undefined;
  afterAll(async () => {
    await session?.close();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  });
  return {
    /** The variant's page, loaded (`argstreamChecks` defined), or the test skipped with what to install (failed in CI). */
    async open(variant, context) {
      const why = chromiumMissing() ?? variant.missing();
      if (why !== undefined) {
        if (IN_CI) throw new Error(why);
        context.skip(why);
      }
      const name = variant.name.replace(' ', '');
      const result = await build({
        entryPoints: [entry],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        write: false,
        logLevel: 'silent',
        define: { 'process.env.NODE_ENV': '"development"' },
        plugins: variant.plugins,
      });
      pages.set(name, result.outputFiles[0]!.text);
      if (server === undefined) {
        // `/React19` is the page, `/React19.js` its bundle.
        server = createServer((request, response) => {
          const url = request.url ?? '/';
          const script = pages.get(url.slice(1).replace(/\.js$/, ''));
          if (script === undefined) response.writeHead(404).end();
          else if (url.endsWith('.js')) response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
          else response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><meta charset="utf-8"><title>${title}</title><script type="module" src="${url}.js"></script>`);
        });
        await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      }
      session ??= await launchChromium();
      await session.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`);
      await waitInPage(session, () => 'argstreamChecks' in window, 15_000, `the ${variant.name} page`);
      return session;
    },
  };
}
