// @ts-check
/**
 * Serves the AI SDK example on 127.0.0.1, in one of its two directions and for one major of the
 * AI SDK (`ai` 5 with `@ai-sdk/react` 2, `ai` 6 with `@ai-sdk/react` 3, or `ai` 7 with
 * `@ai-sdk/react` 4):
 *
 * - `ai-sdk`: the server is the AI SDK's own, of the same major as the page (server/ai-sdk-5.mjs:
 *   `streamText` of `ai` 5 with `@ai-sdk/anthropic` 2, `toUIMessageStreamResponse()`;
 *   server/ai-sdk-6.mjs: `streamText` of `ai` 6 with `@ai-sdk/anthropic` 3,
 *   `toUIMessageStreamResponse()`; server/ai-sdk-7.mjs: `streamText` of `ai` 7 with
 *   `@ai-sdk/anthropic` 4, `toUIMessageStream` → `createUIMessageStreamResponse`), the page is
 *   `useChat` with argstream's `ArgstreamChatTransport` (argstream-client/);
 * - `argstream`: the server is argstream (server/argstream.ts: the provider's stream through
 *   `UIMessageStreamEncoder`), the page is a plain `useChat` page on the AI SDK's own
 *   `DefaultChatTransport` (ai-sdk-client/);
 * - `argstream` with `path-updates`: argstream's server sends each call's input as path updates
 *   (`UIMessageStreamEncoder({ toolInputs: 'path-updates' })`), which only argstream's transport
 *   reads as they come: the page is argstream-client/.
 *
 *   npm run build && node examples/ai-sdk/serve.mjs ai-sdk 7      # a recorded model, no API key
 *   node examples/ai-sdk/serve.mjs ai-sdk 6
 *   ANTHROPIC_API_KEY=sk-ant-… node examples/ai-sdk/serve.mjs argstream 5
 *   node examples/ai-sdk/serve.mjs argstream 7 path-updates
 *
 * Routes: the page (index.html, the shared style.css, chat.css), an esbuild bundle of its code at
 * /app.js, POST /api/chat (the server's chat handler) and GET /api/chat/:id/stream, the AI SDK's
 * reconnect endpoint: each chat's latest response is read to its end here whatever happens to the
 * page's connection (kept in memory, as the `resumable-stream` package keeps it in Redis), and the
 * reconnect sends it again — from its start for `ai` 7 (`resumeStreamIsReplay`: `useChat` starts
 * the message over), from where the page's connection was cut for `ai` 5 and for `ai` 6's
 * `@ai-sdk/react` 3 (whose `useChat` continues the message it kept: it does not hand the
 * transport's `resumeStreamIsReplay` to its `Chat`) — or 204 when there is nothing left to send.
 *
 * Without an API key (or ANTHROPIC_URL) the model is model.mjs: a recorded Anthropic stream of a
 * `write_file` call, replayed at a model's pace.
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordedAnthropicFetch } from './model.mjs';

const HERE = fileURLToPath(new URL('./', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(join(ROOT, 'package.json'));

/** @typedef {'ai-sdk' | 'argstream'} ServerKind */
/** @typedef {5 | 6 | 7} Major */

/** @typedef {'argstream-client' | 'ai-sdk-client'} Page */
/** @typedef {'deltas' | 'path-updates'} ToolInputs */

/**
 * The page a server goes with: argstream's transport in front of the AI SDK's server, or of an
 * argstream server that sends path updates; a plain `useChat` page in front of an argstream server
 * that sends the AI SDK's deltas.
 * @param {ServerKind} server
 * @param {ToolInputs} [toolInputs]
 * @returns {Page}
 */
export function pageOf(server, toolInputs) {
  return server === 'ai-sdk' || toolInputs === 'path-updates' ? 'argstream-client' : 'ai-sdk-client';
}

/**
 * @typedef {object} AiSdkExampleOptions
 * @property {ServerKind} server `ai-sdk`: the AI SDK's server and the argstream transport; `argstream`: argstream's server and a plain `useChat` page
 * @property {Major} major the AI SDK of the page (`ai` 5 with `@ai-sdk/react` 2, `ai` 6 with
 *   `@ai-sdk/react` 3, or `ai` 7 with `@ai-sdk/react` 4) and of the AI SDK's server (`ai` 5 with
 *   `@ai-sdk/anthropic` 2, `ai` 6 with 3, or `ai` 7 with 4)
 * @property {ToolInputs} [toolInputs] how argstream's server sends a call's input (default `deltas`,
 *   as the AI SDK does; `path-updates`: transient path updates, the page on argstream's transport)
 * @property {Readonly<Record<string, object>>} [moreTools] tools the AI SDK's server declares
 *   besides `write_file` (name → input JSON schema), for a model that calls others
 * @property {'package' | 'src'} [argstream] `package` (default): `argstream` and its entry points
 *   as the package exports them (dist/, after `npm run build`); `src`: the TypeScript sources (the tests)
 * @property {'development' | 'production'} [mode] React's build (default development: StrictMode's checks are on)
 * @property {string} [host] where to listen (default 127.0.0.1: loopback only)
 * @property {number} [port] default 0 (a free port)
 * @property {string} [anthropicUrl] the Messages endpoint the server calls (default: the recorded model, or Anthropic's API when `apiKey` is set)
 * @property {string} [apiKey] an Anthropic API key
 * @property {number} [delayMs] pacing of the recorded model, per event (default 20)
 */

/**
 * @typedef {object} AiSdkExample
 * @property {string} url where the page is, without a trailing slash
 * @property {Array<{ method: string; path: string; body: any }>} requests what the page sent to /api/chat (bodies parsed), in order
 * @property {any[]} modelRequests what the server sent to the model (the Messages API's request bodies), in order
 * @property {Uint8Array[][]} responses the body of each response to a POST /api/chat, as the chat
 *   handler wrote it (whatever reached the page), in order; each grows while its response streams
 * @property {Array<string | null>} modelUserAgents the `user-agent` of each of those requests (the
 *   AI SDK's provider packages name themselves and their version there)
 * @property {() => number} cut drop the connections that are sending a response to the page now,
 *   as a network would (the response goes on being read here, for a reconnect); how many there were
 * @property {() => Promise<void>} close
 */

// ---------------------------------------------------------------------------------------------
// The bundles

/**
 * Where `argstream` and `argstream/<entry>` come from: the package as it is published (its
 * exports, dist/), or the sources.
 * @param {'package' | 'src'} from
 * @returns {import('esbuild').Plugin}
 */
function argstreamFrom(from) {
  return {
    name: 'argstream',
    setup(build) {
      build.onResolve({ filter: /^argstream(\/(react|ai-sdk|ai-sdk\/server))?$/ }, (args) => {
        const entry = args.path.slice('argstream/'.length);
        if (from === 'src') {
          if (entry === '') return { path: join(ROOT, 'src', 'index.ts') };
          const file = join(ROOT, 'src', 'bindings', `${entry}.ts`);
          return { path: existsSync(file) ? file : join(ROOT, 'src', 'bindings', entry, 'index.ts') };
        }
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

/** The `@ai-sdk/react` of each major, as installed in this repository. */
const HOOK_OF_MAJOR = { 5: 'ai-sdk-react2', 6: 'ai-sdk-react3', 7: '@ai-sdk/react' };

/**
 * One major of the AI SDK for the whole bundle: `@ai-sdk/react` is the hook of that major (2 and 3
 * are installed as `ai-sdk-react2` and `ai-sdk-react3`), and `ai` — for every importer: the page,
 * argstream's transport, the hook itself — is the `ai` that hook depends on, so that the page
 * carries one `ai` (argstream's transport would work beside a second one, as the page's own
 * imports would: the bundle would only be larger).
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
 * @param {Pick<AiSdkExampleOptions, 'server' | 'major' | 'argstream' | 'mode' | 'toolInputs'>} options
 * @returns {Promise<string>}
 */
export async function bundlePage(options) {
  const mode = options.mode ?? 'development';
  const result = await build({
    entryPoints: [join(HERE, pageOf(options.server, options.toolInputs), 'main.tsx')],
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
    define: { 'process.env.NODE_ENV': JSON.stringify(mode), __AI_MAJOR__: String(options.major), __SERVER__: JSON.stringify(options.server) },
    plugins: [argstreamFrom(options.argstream ?? 'package'), aiSdkMajor(options.major)],
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * What the AI SDK's server of `major` imports, by package name, in this repository: ai 6 and 7 and
 * their Anthropic providers are installed under other names (`ai` is ai 5 here).
 * @type {Record<Major, Record<string, string>>}
 */
const AI_SDK_SERVER_PACKAGES = { 5: {}, 6: { ai: 'ai6', '@ai-sdk/anthropic': 'ai-sdk-anthropic3' }, 7: { ai: 'ai7', '@ai-sdk/anthropic': 'ai-sdk-anthropic4' } };

/**
 * The AI SDK's chat handler of `major` (server/ai-sdk-5.mjs, -6.mjs or -7.mjs), its imports
 * linked to that major's packages: the file as an application of that major writes it (`import …
 * from 'ai'`), each package it imports resolved here and loaded from node_modules, not bundled.
 * @param {Major} major
 * @returns {Promise<typeof import('./server/ai-sdk-5.mjs')>}
 */
async function aiSdkServer(major) {
  const packages = AI_SDK_SERVER_PACKAGES[major];
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
 * argstream's chat handler (server/argstream.ts), bundled with the same `argstream` as the page
 * would be: an edge function's code (no Node API, no `ai`), run here in Node.
 * @param {'package' | 'src'} from
 * @returns {Promise<typeof import('./server/argstream.ts')>}
 */
async function argstreamServer(from) {
  const bundle = await build({
    entryPoints: [join(HERE, 'server', 'argstream.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    plugins: [argstreamFrom(from)],
  });
  return import(`data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0]?.text ?? '').toString('base64')}`);
}

// ---------------------------------------------------------------------------------------------
// Responses kept for the reconnect endpoint

/** A chat's latest response, read to its end whatever happens to the connections sending it. */
class KeptResponse {
  /** @type {Uint8Array[]} */
  chunks = [];
  done = false;
  /** How many chunks some connection has sent whole to the page. */
  delivered = 0;
  /** @type {Set<() => void>} */
  #waiting = new Set();

  /** @param {ReadableStream<Uint8Array>} body */
  constructor(body) {
    void this.#read(body);
  }

  /** @param {ReadableStream<Uint8Array>} body */
  async #read(body) {
    const reader = body.getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        this.chunks.push(read.value);
        this.#wake();
      }
    } catch {
      // The handler's stream failed: what came is what there is.
    } finally {
      this.done = true;
      this.#wake();
    }
  }

  #wake() {
    for (const wake of this.#waiting) wake();
    this.#waiting.clear();
  }

  /**
   * The chunks from `start` on, then each as it comes, to the end.
   * @param {number} start
   */
  async *from(start) {
    for (let i = start; ; ) {
      while (i < this.chunks.length) yield /** @type {Uint8Array} */ (this.chunks[i++]);
      if (this.done) return;
      await new Promise((resolve) => this.#waiting.add(() => resolve(undefined)));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The server

/**
 * Build the bundles and start serving.
 * @param {AiSdkExampleOptions} options
 * @returns {Promise<AiSdkExample>}
 */
export async function startAiSdkExample(options) {
  const from = options.argstream ?? 'package';
  /** @type {any[]} */
  const modelRequests = [];
  /** @type {Array<string | null>} */
  const modelUserAgents = [];
  const recorded = options.anthropicUrl === undefined && options.apiKey === undefined ? recordedAnthropicFetch({ delayMs: options.delayMs ?? 20 }) : undefined;
  /** The model's fetch: every request body kept, sent to ANTHROPIC_URL, Anthropic or the recording. @type {typeof fetch} */
  const modelFetch = async (input, init) => {
    modelRequests.push(JSON.parse(String(init?.body ?? 'null')));
    modelUserAgents.push(new Headers(init?.headers).get('user-agent'));
    if (recorded !== undefined) return recorded(input, init);
    return fetch(options.anthropicUrl ?? input, init);
  };
  const [appJs, handleChat] = await Promise.all([
    bundlePage({ ...options, argstream: from }),
    options.server === 'ai-sdk'
      ? aiSdkServer(options.major).then((module) => module.aiSdkChatHandler({ fetch: modelFetch, apiKey: options.apiKey, moreTools: options.moreTools }))
      : argstreamServer(from).then(
          (module) => (/** @type {Request} */ request) => module.handleChat(request, { fetch: modelFetch, apiKey: options.apiKey, toolInputs: options.toolInputs ?? 'deltas' }),
        ),
  ]);
  /**
   * ai 7's `useChat` expects a reconnect to replay the response; ai 5's to continue it, and so does
   * @ai-sdk/react 3's (ai 6's `Chat` would replay, but that `useChat` does not pass the transport's
   * `resumeStreamIsReplay` on to it).
   */
  const replay = options.major === 7;
  /** @type {Map<string, KeptResponse>} */
  const kept = new Map();
  /** The connections sending a response now. @type {Set<{ response: import('node:http').ServerResponse; kept: KeptResponse; sent: number }>} */
  const sending = new Set();
  /** @type {AiSdkExample['requests']} */
  const requests = [];
  /** @type {AiSdkExample['responses']} */
  const responses = [];

  /** @type {Record<string, [string, string]>} */
  const files = {
    '/': [join(HERE, 'index.html'), 'text/html; charset=utf-8'],
    '/index.html': [join(HERE, 'index.html'), 'text/html; charset=utf-8'],
    '/style.css': [join(HERE, '..', 'shared', 'style.css'), 'text/css; charset=utf-8'],
    '/chat.css': [join(HERE, 'chat.css'), 'text/css; charset=utf-8'],
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    try {
      const file = files[url.pathname];
      const reconnect = /^\/api\/chat\/([^/]+)\/stream$/.exec(url.pathname);
      if (request.method === 'GET' && file !== undefined) {
        response.writeHead(200, { 'content-type': file[1] }).end(await readFile(file[0]));
      } else if (request.method === 'GET' && url.pathname === '/app.js') {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(appJs);
      } else if (request.method === 'POST' && url.pathname === '/api/chat') {
        await chat(request, response);
      } else if (request.method === 'GET' && reconnect !== null) {
        const id = decodeURIComponent(reconnect[1] ?? '');
        requests.push({ method: 'GET', path: url.pathname, body: null });
        const latest = kept.get(id);
        if (latest === undefined || (latest.done && latest.delivered === latest.chunks.length)) return void response.writeHead(204).end();
        await send(response, latest, replay ? 0 : latest.delivered, {});
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  });

  /**
   * POST /api/chat: the chat handler's Response, kept for reconnects, sent to the page.
   * @param {import('node:http').IncomingMessage} request
   * @param {import('node:http').ServerResponse} response
   */
  async function chat(request, response) {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const parsed = JSON.parse(body.toString('utf8'));
    requests.push({ method: 'POST', path: '/api/chat', body: parsed });
    /** @type {Record<string, string>} */
    const headers = {};
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
    // No signal: the response is read to its end even if the page goes away, for a reconnect.
    const webResponse = await handleChat(new Request(`http://127.0.0.1${request.url}`, { method: 'POST', headers, body }));
    if (webResponse.body === null || !webResponse.ok) {
      response.writeHead(webResponse.status, Object.fromEntries(webResponse.headers)).end(Buffer.from(await webResponse.arrayBuffer()));
      return;
    }
    const latest = new KeptResponse(webResponse.body);
    kept.set(String(parsed.id), latest);
    responses.push(latest.chunks);
    await send(response, latest, 0, Object.fromEntries(webResponse.headers));
  }

  /**
   * Send a kept response from chunk `start` on, to its end or until the connection is cut.
   * @param {import('node:http').ServerResponse} response
   * @param {KeptResponse} latest
   * @param {number} start
   * @param {Record<string, string>} headers
   */
  async function send(response, latest, start, headers) {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-vercel-ai-ui-message-stream': 'v1', ...headers });
    // The headers now, as an event stream's server sends them, not with the first chunk: a resume
    // whose rest has not come yet is still a response (ai 6's Chat leaves its error until then).
    response.flushHeaders();
    const connection = { response, kept: latest, sent: start };
    sending.add(connection);
    try {
      for await (const chunk of latest.from(start)) {
        if (response.destroyed) return;
        await new Promise((resolve) => response.write(chunk, () => resolve(undefined)));
        connection.sent++;
        latest.delivered = Math.max(latest.delivered, connection.sent);
      }
      response.end();
    } finally {
      sending.delete(connection);
    }
  }

  await new Promise((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    requests,
    responses,
    modelRequests,
    modelUserAgents,
    cut() {
      const cut = [...sending];
      for (const connection of cut) {
        sending.delete(connection);
        connection.response.destroy();
      }
      return cut.length;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * The command line: `node examples/ai-sdk/serve.mjs ai-sdk|argstream 5|6|7 [path-updates]`, with
 * PORT (default 8787), HOST, ANTHROPIC_URL, ANTHROPIC_API_KEY and NODE_ENV=production from the
 * environment.
 */
async function main() {
  const [server, major, toolInputs, ...rest] = process.argv.slice(2);
  if ((server !== 'ai-sdk' && server !== 'argstream') || (major !== '5' && major !== '6' && major !== '7') || (toolInputs !== undefined && (server !== 'argstream' || toolInputs !== 'path-updates')) || rest.length > 0) {
    console.error('usage: node examples/ai-sdk/serve.mjs ai-sdk|argstream 5|6|7, or argstream 5|6|7 path-updates');
    process.exit(2);
  }
  const example = await startAiSdkExample({
    server,
    major: major === '5' ? 5 : major === '6' ? 6 : 7,
    ...(toolInputs === undefined ? {} : { toolInputs }),
    port: Number(process.env['PORT'] ?? 8787),
    ...(process.env['HOST'] === undefined ? {} : { host: process.env['HOST'] }),
    ...(process.env['NODE_ENV'] === 'production' ? { mode: 'production' } : {}),
    ...(process.env['ANTHROPIC_URL'] === undefined ? {} : { anthropicUrl: process.env['ANTHROPIC_URL'] }),
    ...(process.env['ANTHROPIC_API_KEY'] === undefined ? {} : { apiKey: process.env['ANTHROPIC_API_KEY'] }),
  });
  console.log(`the AI SDK example (${server} server${toolInputs === undefined ? '' : ` sending ${toolInputs}`}, ai ${major}) is at ${example.url}/ (Ctrl-C to stop)`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
