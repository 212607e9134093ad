// @ts-check
/**
 * Serves one of the framework examples (examples/react, examples/vue, examples/svelte) on
 * 127.0.0.1: its page (index.html, the shared style.css), an esbuild bundle of its code at
 * /app.js (the framework, the page's components and argstream with its binding), POST /api/chat,
 * which runs the edge function of examples/edge-function in this Node process (bundled on the fly
 * with esbuild, as a deployment would bundle it), and POST /api/openai/chat, which runs its
 * counterpart for OpenAI's Chat Completions API (openai-relay.ts) the same way — the page reads it
 * when opened with `?endpoint=/api/openai/chat`.
 *
 *   npm run build && node examples/react/serve.mjs             # scripted turns, no API key
 *   ANTHROPIC_API_KEY=sk-ant-… node examples/vue/serve.mjs     # the real model
 *   OPENAI_API_KEY=sk-… node examples/svelte/serve.mjs         # OpenAI's, at /?endpoint=/api/openai/chat
 *
 * Each example's serve.mjs is this module's command line for its framework. Without an API key
 * (or a URL) for a provider, its model is a local server that replays a scripted turn with
 * model-like pacing: a sentence, then two write_file calls — one after the other in Anthropic's
 * format, at the same time (their fragments interleaved) in OpenAI's.
 */
import { build } from 'esbuild';
import esbuildSvelte from 'esbuild-svelte';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { scriptedOpenAITurn, scriptedTurn, serveWeb, startScriptedModel } from './node-server.mjs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { vueSfc } from './vue-sfc.mjs';

// esbuild-svelte is CommonJS (`module.exports = plugin`) with types that say `export default`: in
// Node the default import is the plugin itself.
const sveltePlugin = /** @type {typeof import('esbuild-svelte').default} */ (/** @type {unknown} */ (esbuildSvelte));

const EXAMPLES = fileURLToPath(new URL('../', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EDGE_FUNCTION = join(EXAMPLES, 'edge-function', 'index.ts');
const OPENAI_RELAY = join(EXAMPLES, 'shared', 'openai-relay.ts');

/** @typedef {'react' | 'vue' | 'svelte'} Framework */

/** Each framework's entry module (next to its index.html). */
const ENTRIES = /** @type {const} */ ({ react: 'main.tsx', vue: 'main.ts', svelte: 'main.ts' });

/**
 * @typedef {object} FrameworkExampleOptions
 * @property {Framework} framework which example
 * @property {'package' | 'src'} [argstream] `package` (default): `argstream` and its bindings as
 *   the package exports them (`dist/`, after `npm run build`); `src`: the TypeScript sources (the tests)
 * @property {string} [reactDir] a folder whose node_modules has the `react` and `react-dom` to
 *   bundle instead of the root's (the tests bundle the React example with React 18 this way)
 * @property {'development' | 'production'} [mode] the frameworks' build (default development:
 *   React's StrictMode checks and Vue's warnings are on)
 * @property {boolean} [minify] minify the page's bundle (default: in production mode only; a
 *   profile of an unminified production bundle names its functions)
 * @property {string} [host] where to listen (default 127.0.0.1: loopback only)
 * @property {number} [port] default 0 (a free port)
 * @property {string} [anthropicUrl] the Messages endpoint the edge function calls (default: the scripted turn, or Anthropic's API when `apiKey` is set)
 * @property {string} [apiKey] an Anthropic API key
 * @property {string} [openaiUrl] the Chat Completions endpoint `/api/openai/chat` calls (default:
 *   its scripted turn, or OpenAI's API when `openaiApiKey` is set)
 * @property {string} [openaiApiKey] an OpenAI API key
 * @property {number} [delayMs] pacing of the scripted turn, per event (default 25)
 */

/**
 * @typedef {object} FrameworkExample
 * @property {string} url where the page is, without a trailing slash
 * @property {() => Promise<void>} close
 */

// ---------------------------------------------------------------------------------------------
// The scripted turn: a sentence, then two write_file calls, in Anthropic's wire format

const MAIN_RS = `use std::io::{self, BufRead};

/// Counts the words on standard input, like \`wc -w\`.
fn main() {
    let mut words = 0usize;
    for line in io::stdin().lock().lines() {
        words += line.expect("read error").split_whitespace().count();
    }
    println!("{words} words — \\"done\\" ✓");
}
`;

const README_MD = `# wc

Counts the words on standard input:

    echo "one two three" | cargo run
`;

const SENTENCE = "I'll write the word counter to src/main.rs, and a README beside it.";
const FILES = [
  { path: 'src/main.rs', content: MAIN_RS },
  { path: 'README.md', content: README_MD },
];

/** The scripted turn as Anthropic SSE events. */
const scriptedEvents = () => scriptedTurn(SENTENCE, FILES);

/** The scripted turn as OpenAI Chat Completions SSE events, the two calls interleaved. */
const scriptedOpenAIEvents = () => scriptedOpenAITurn(SENTENCE, FILES);

// ---------------------------------------------------------------------------------------------
// The bundles

/**
 * Where `argstream` and `argstream/<binding>` come from: the package as it is published (its
 * exports, dist/), or the sources.
 * @param {'package' | 'src'} from
 * @returns {import('esbuild').Plugin}
 */
function argstreamFrom(from) {
  return {
    name: 'argstream',
    setup(build) {
      build.onResolve({ filter: /^argstream(\/(react|vue|svelte))?$/ }, (args) => {
        const binding = args.path.split('/')[1];
        if (from === 'src') return { path: join(ROOT, 'src', binding === undefined ? 'index.ts' : `bindings/${binding}.ts`) };
        const path = fileURLToPath(import.meta.resolve(args.path));
        if (!existsSync(path)) return { errors: [{ text: `${path} is missing: run \`npm run build\` first` }] };
        return { path };
      });
    },
  };
}

/**
 * `react`, `react-dom` and their subpaths (`react/jsx-runtime`, `react-dom/client`) from the
 * node_modules of `dir`, for every importer (the page and `argstream/react` alike).
 * @param {string} dir
 * @returns {import('esbuild').Plugin}
 */
export function reactFrom(dir) {
  return {
    name: 'react-from',
    setup(build) {
      build.onResolve({ filter: /^react(-dom)?(\/.*)?$/ }, async (args) => {
        if (args.pluginData === 'react-from') return undefined;
        const result = await build.resolve(args.path, { kind: args.kind, resolveDir: dir, pluginData: 'react-from' });
        return result.errors.length > 0 ? { errors: result.errors } : { path: result.path };
      });
    },
  };
}

/**
 * The page's bundle for one framework.
 * @param {FrameworkExampleOptions} options
 * @returns {Promise<string>}
 */
export async function bundlePage(options) {
  const dir = join(EXAMPLES, options.framework);
  const mode = options.mode ?? 'development';
  /** @type {import('esbuild').Plugin[]} */
  const plugins = [argstreamFrom(options.argstream ?? 'package')];
  if (options.reactDir !== undefined) plugins.push(reactFrom(options.reactDir));
  if (options.framework === 'vue') plugins.push(vueSfc());
  if (options.framework === 'svelte') plugins.push(sveltePlugin({ compilerOptions: { css: 'injected', dev: mode === 'development' } }));
  const result = await build({
    entryPoints: [join(dir, ENTRIES[options.framework])],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    jsx: 'automatic',
    minify: options.minify ?? mode === 'production',
    conditions: options.framework === 'svelte' ? ['svelte', mode] : [mode],
    define: {
      'process.env.NODE_ENV': JSON.stringify(mode),
      __VUE_OPTIONS_API__: 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    plugins,
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * A relay's handler (the edge function, or openai-relay.ts), bundled with the same `argstream` as the page.
 * @param {string} entry
 * @param {'package' | 'src'} from
 * @returns {Promise<{ handleRequest(request: Request, env: Record<string, string | undefined>): Promise<Response> }>}
 */
async function relayHandlerOf(entry, from) {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    plugins: [argstreamFrom(from)],
  });
  return import(`data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0]?.text ?? '').toString('base64')}`);
}

// ---------------------------------------------------------------------------------------------
// The server

/**
 * Build the bundles and start serving.
 * @param {FrameworkExampleOptions} options
 * @returns {Promise<FrameworkExample>}
 */
export async function startFrameworkExample(options) {
  const from = options.argstream ?? 'package';
  const [appJs, relayHandler, openaiHandler] = await Promise.all([bundlePage(options), relayHandlerOf(EDGE_FUNCTION, from), relayHandlerOf(OPENAI_RELAY, from)]);
  const scripted = options.anthropicUrl === undefined && options.apiKey === undefined ? await startScriptedModel(scriptedEvents, options.delayMs ?? 25) : undefined;
  const scriptedOpenAI = options.openaiUrl === undefined && options.openaiApiKey === undefined ? await startScriptedModel(scriptedOpenAIEvents, options.delayMs ?? 25) : undefined;
  const env = { ANTHROPIC_URL: options.anthropicUrl ?? scripted?.url, ANTHROPIC_API_KEY: options.apiKey };
  const openaiEnv = { OPENAI_URL: options.openaiUrl ?? scriptedOpenAI?.url, OPENAI_API_KEY: options.openaiApiKey };
  const dir = join(EXAMPLES, options.framework);
  /** @type {Record<string, [string, string]>} */
  const files = {
    '/': [join(dir, 'index.html'), 'text/html; charset=utf-8'],
    '/index.html': [join(dir, 'index.html'), 'text/html; charset=utf-8'],
    '/style.css': [join(EXAMPLES, 'shared', 'style.css'), 'text/css; charset=utf-8'],
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    try {
      const file = files[url.pathname];
      if (request.method === 'GET' && file !== undefined) {
        response.writeHead(200, { 'content-type': file[1] }).end(await readFile(file[0]));
      } else if (request.method === 'GET' && url.pathname === '/app.js') {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(appJs);
      } else if (url.pathname === '/api/chat') {
        await serveWeb((webRequest) => relayHandler.handleRequest(webRequest, env), request, response);
      } else if (url.pathname === '/api/openai/chat') {
        await serveWeb((webRequest) => openaiHandler.handleRequest(webRequest, openaiEnv), request, response);
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  });

  await new Promise((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await scripted?.close();
      await scriptedOpenAI?.close();
    },
  };
}

/**
 * The command line of an example's serve.mjs: `node examples/<framework>/serve.mjs`, with PORT
 * (default 8787), HOST, ANTHROPIC_URL, ANTHROPIC_API_KEY, OPENAI_URL, OPENAI_API_KEY and
 * NODE_ENV=production from the environment.
 * @param {Framework} framework
 */
export async function serveFromCommandLine(framework) {
  const example = await startFrameworkExample({
    framework,
    port: Number(process.env['PORT'] ?? 8787),
    ...(process.env['HOST'] === undefined ? {} : { host: process.env['HOST'] }),
    ...(process.env['NODE_ENV'] === 'production' ? { mode: 'production' } : {}),
    ...(process.env['ANTHROPIC_URL'] === undefined ? {} : { anthropicUrl: process.env['ANTHROPIC_URL'] }),
    ...(process.env['ANTHROPIC_API_KEY'] === undefined ? {} : { apiKey: process.env['ANTHROPIC_API_KEY'] }),
    ...(process.env['OPENAI_URL'] === undefined ? {} : { openaiUrl: process.env['OPENAI_URL'] }),
    ...(process.env['OPENAI_API_KEY'] === undefined ? {} : { openaiApiKey: process.env['OPENAI_API_KEY'] }),
  });
  console.log(`the ${framework} example is at ${example.url}/ (Anthropic's API), ${example.url}/?endpoint=/api/openai/chat (OpenAI's); Ctrl-C to stop`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const framework = process.argv[2];
  if (framework !== 'react' && framework !== 'vue' && framework !== 'svelte') {
    console.error('usage: node examples/shared/serve.mjs react|vue|svelte');
    process.exit(2);
  }
  await serveFromCommandLine(framework);
}
