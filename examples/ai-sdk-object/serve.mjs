// @ts-check
/**
 * Serves the structured-output example on 127.0.0.1: the AI SDK's own route of one major
 * (server/ai-sdk-6.mjs: `streamText` with `Output.object` → `toTextStreamResponse()`;
 * server/ai-sdk-7.mjs: the same → `createTextStreamResponse(toTextStream(…))`), and a page on one
 * `useObject`: the AI SDK's (`ai-sdk`: `@ai-sdk/react` 3 for ai 6, 4 for ai 7) or argstream's
 * (`argstream`) — the same page, the import changed.
 *
 *   npm run build && node examples/ai-sdk-object/serve.mjs argstream 7   # the stand-in model, no API key
 *   ANTHROPIC_API_KEY=sk-ant-… node examples/ai-sdk-object/serve.mjs ai-sdk 6
 *
 * Routes: the page (index.html, the shared style.css), an esbuild bundle of its code at /app.js,
 * and POST /api/recipe, the route handler: its web `Request`'s signal aborts when the page's
 * connection closes (a Stop), as a serverless platform's does.
 *
 * Without an API key (or ANTHROPIC_URL) the model is model.mjs: a stand-in that writes a recipe.
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { standInAnthropicFetch } from './model.mjs';

const HERE = fileURLToPath(new URL('./', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(join(ROOT, 'package.json'));

/** @typedef {'ai-sdk' | 'argstream'} Client */
/** @typedef {6 | 7} Major */

/**
 * @typedef {object} ObjectExampleOptions
 * @property {Client} client whose `useObject` the page uses
 * @property {Major} major the AI SDK of the server (and of the page's hook, for `ai-sdk`)
 * @property {'package' | 'src'} [argstream] `package` (default): `argstream/react` as the package
 *   exports it (dist/, after `npm run build`); `src`: the TypeScript sources (the tests)
 * @property {'development' | 'production'} [mode] React's build (default development: StrictMode's checks are on)
 * @property {string} [host] where to listen (default 127.0.0.1: loopback only)
 * @property {number} [port] default 0 (a free port)
 * @property {string | undefined} [anthropicUrl] the Messages endpoint the server calls (default: the stand-in model, or Anthropic's API when `apiKey` is set)
 * @property {string | undefined} [apiKey] an Anthropic API key
 * @property {number} [delayMs] pacing of the stand-in model, per event (default 30)
 */

/**
 * @typedef {object} ObjectExample
 * @property {string} url where the page is, without a trailing slash
 * @property {unknown[]} requests the bodies the page POSTed to /api/recipe, parsed, in order
 * @property {any[]} modelRequests what the server sent to the model (the Messages API's request bodies), in order
 * @property {Array<string | null>} modelUserAgents the `user-agent` of each of those requests (the AI SDK's provider names its version there)
 * @property {() => Promise<void>} close
 */

/**
 * Where `argstream/react` comes from: the package as it is published (dist/), or the sources.
 * @param {'package' | 'src'} from
 * @returns {import('esbuild').Plugin}
 */
function argstreamFrom(from) {
  return {
    name: 'argstream',
    setup(build) {
      build.onResolve({ filter: /^argstream(\/react)?$/ }, (args) => {
        if (from === 'src') return { path: join(ROOT, 'src', args.path === 'argstream' ? 'index.ts' : 'bindings/react.ts') };
        let path;
        try {
          path = fileURLToPath(import.meta.resolve(args.path));
        } catch (error) {
          return { errors: [{ text: `${args.path} is not an entry point of the package (package.json "exports"): ${String(error)}` }] };
        }
        if (!existsSync(path)) return { errors: [{ text: `${path} is missing: run \`npm run build\` first` }] };
        return { path };
      });
    },
  };
}

/** The `@ai-sdk/react` of each major, as this repository installs it. */
const HOOK_OF_MAJOR = { 6: 'ai-sdk-react3', 7: '@ai-sdk/react' };

/**
 * One major of the AI SDK for the page: `@ai-sdk/react` is that major's, and `ai` — for the page
 * and the hook — the `ai` that hook depends on.
 * @param {Major} major
 * @returns {import('esbuild').Plugin}
 */
function aiSdkMajor(major) {
  const hook = HOOK_OF_MAJOR[major];
  const hookDir = dirname(require.resolve(`${hook}/package.json`));
  return {
    name: 'ai-sdk-major',
    setup(build) {
      build.onResolve({ filter: /^(ai|@ai-sdk\/react)(\/.*)?$/ }, async (args) => {
        if (args.pluginData === 'ai-sdk-major') return undefined;
        const [path, resolveDir] = args.path.startsWith('@ai-sdk/react') ? [args.path.replace('@ai-sdk/react', hook), ROOT] : [args.path, hookDir];
        const result = await build.resolve(path, { kind: args.kind, resolveDir, pluginData: 'ai-sdk-major' });
        return result.errors.length > 0 ? { errors: result.errors } : { path: result.path };
      });
    },
  };
}

/**
 * The page's bundle.
 * @param {Pick<ObjectExampleOptions, 'client' | 'major' | 'argstream' | 'mode'>} options
 * @returns {Promise<string>}
 */
export async function bundlePage(options) {
  const mode = options.mode ?? 'development';
  const result = await build({
    entryPoints: [join(HERE, `${options.client}-client`, 'main.tsx')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    jsx: 'automatic',
    minify: mode === 'production',
    conditions: [mode],
    define: { 'process.env.NODE_ENV': JSON.stringify(mode), __RECIPE_AI_MAJOR__: String(options.major) },
    plugins: [argstreamFrom(options.argstream ?? 'package'), aiSdkMajor(options.major)],
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * What the route of `major` imports, by package name, in this repository: ai 6 and 7 and their
 * Anthropic providers are installed under other names.
 * @type {Record<Major, Record<string, string>>}
 */
const SERVER_PACKAGES = { 6: { ai: 'ai6', '@ai-sdk/anthropic': 'ai-sdk-anthropic3' }, 7: { ai: 'ai7', '@ai-sdk/anthropic': 'ai-sdk-anthropic4' } };

/** The web Requests of the responses still open (see `recipe`). */
const live = new Set();

/**
 * The route of `major` (server/ai-sdk-6.mjs or server/ai-sdk-7.mjs), its packages linked to that
 * major's and loaded from node_modules, not bundled.
 * @param {Major} major
 * @returns {Promise<typeof import('./server/ai-sdk-7.mjs')>}
 */
async function routeOf(major) {
  const packages = SERVER_PACKAGES[major];
  const bundle = await build({
    entryPoints: [join(HERE, 'server', `ai-sdk-${major}.mjs`)],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'ai-sdk-server-packages',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            const [, name = args.path, rest = ''] = /^((?:@[^/]+\/)?[^/]+)(.*)$/.exec(args.path) ?? [];
            return { path: import.meta.resolve(`${packages[name] ?? name}${rest}`), external: true };
          });
        },
      },
    ],
  });
  return import(`data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0]?.text ?? '').toString('base64')}`);
}

/**
 * Build the bundles and start serving.
 * @param {ObjectExampleOptions} options
 * @returns {Promise<ObjectExample>}
 */
export async function startObjectExample(options) {
  /** @type {any[]} */
  const modelRequests = [];
  /** @type {Array<string | null>} */
  const modelUserAgents = [];
  /** @type {unknown[]} */
  const requests = [];
  const standIn = options.anthropicUrl === undefined && options.apiKey === undefined ? standInAnthropicFetch({ delayMs: options.delayMs ?? 30 }) : undefined;
  /** The model's fetch: every request body kept, sent to ANTHROPIC_URL, Anthropic or the stand-in. @type {typeof fetch} */
  const modelFetch = async (input, init) => {
    modelRequests.push(JSON.parse(String(init?.body ?? 'null')));
    modelUserAgents.push(new Headers(init?.headers).get('user-agent'));
    if (standIn !== undefined) return standIn(input, init);
    return fetch(options.anthropicUrl ?? input, init);
  };
  const [appJs, route] = await Promise.all([bundlePage(options), routeOf(options.major)]);
  const handle = route.recipeHandler({ fetch: modelFetch, apiKey: options.apiKey });

  /** @type {Record<string, [string, string]>} */
  const files = {
    '/': [join(HERE, 'index.html'), 'text/html; charset=utf-8'],
    '/index.html': [join(HERE, 'index.html'), 'text/html; charset=utf-8'],
    '/style.css': [join(HERE, '..', 'shared', 'style.css'), 'text/css; charset=utf-8'],
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    try {
      const file = files[url.pathname];
      if (request.method === 'GET' && file !== undefined) {
        response.writeHead(200, { 'content-type': file[1] }).end(await readFile(file[0]));
      } else if (request.method === 'GET' && url.pathname === '/app.js') {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(appJs);
      } else if (request.method === 'POST' && url.pathname === '/api/recipe') {
        await recipe(request, response);
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  });

  /**
   * POST /api/recipe: the route's Response, written to the page as it comes; the request's signal
   * aborts when the page's connection closes first.
   * @param {import('node:http').IncomingMessage} request
   * @param {import('node:http').ServerResponse} response
   */
  async function recipe(request, response) {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    requests.push(JSON.parse(body.toString('utf8')));
    const gone = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) gone.abort(new DOMException('the page closed the connection', 'AbortError'));
    });
    /** @type {Record<string, string>} */
    const headers = {};
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
    const webRequest = new Request(`http://127.0.0.1${request.url}`, { method: 'POST', headers, body, signal: gone.signal });
    // Held until the page's connection closes: the route keeps only `request.signal`, and Node's
    // Request holds what makes that signal follow `gone` (a Request collected early would leave the
    // signal unaborted, and the model's request running, after a Stop).
    live.add(webRequest);
    response.on('close', () => live.delete(webRequest));
    const webResponse = await handle(webRequest);
    response.writeHead(webResponse.status, Object.fromEntries(webResponse.headers));
    if (webResponse.body === null) return void response.end();
    const reader = webResponse.body.getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        if (gone.signal.aborted) break;
        await new Promise((resolve) => response.write(read.value, resolve));
      }
    } catch {
      // The route's stream failed (its model request was aborted, or failed): the page sees the body end.
    } finally {
      void reader.cancel().catch(() => undefined);
      response.end();
    }
  }

  await new Promise((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    requests,
    modelRequests,
    modelUserAgents,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// `node examples/ai-sdk-object/serve.mjs [ai-sdk|argstream] [6|7]`
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = process.argv[2] === 'ai-sdk' ? 'ai-sdk' : 'argstream';
  const major = process.argv[3] === '6' ? 6 : 7;
  const example = await startObjectExample({
    client,
    major,
    apiKey: process.env['ANTHROPIC_API_KEY'],
    anthropicUrl: process.env['ANTHROPIC_URL'],
    port: Number(process.env['PORT'] ?? 3000),
  });
  console.log(`${example.url}/  (${client === 'ai-sdk' ? "the AI SDK's useObject" : "argstream's useObject"}, ai ${major} server${process.env['ANTHROPIC_API_KEY'] ? '' : ', the stand-in model'})`);
}
