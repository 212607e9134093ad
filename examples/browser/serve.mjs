// @ts-check
/**
 * Serves the browser example on 127.0.0.1: the page (index.html, app.mjs), an ESM bundle of
 * argstream at /argstream.js (the page's import map points there), and POST /api/chat, which runs
 * the edge function of examples/edge-function in this Node process (bundled on the fly with
 * esbuild, as a deployment would bundle it).
 *
 *   npm run build && node examples/browser/serve.mjs            # a scripted write_file turn, no API key
 *   ANTHROPIC_API_KEY=sk-ant-… node examples/browser/serve.mjs  # the real model
 *
 * then open http://127.0.0.1:8787/ (PORT=… to change it) and press Send. Without an API key (or
 * ANTHROPIC_URL) the model is a local server that replays a scripted turn with model-like pacing.
 */
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { scriptedTurn, serveWeb, startScriptedModel } from '../shared/node-server.mjs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = new URL('./', import.meta.url);
const EDGE_FUNCTION = fileURLToPath(new URL('../edge-function/index.ts', import.meta.url));

/**
 * @typedef {object} BrowserExampleOptions
 * @property {string} [host] where to listen (default 127.0.0.1: loopback only)
 * @property {number} [port] default 0 (a free port)
 * @property {string} [argstreamEntry] the module to bundle as `argstream` (default: the package, `dist/`)
 * @property {string} [anthropicUrl] the Messages endpoint the edge function calls (default: the scripted turn, or Anthropic's API when `apiKey` is set)
 * @property {string} [apiKey] an Anthropic API key
 * @property {number} [delayMs] pacing of the scripted turn, per event (default 25)
 */

/**
 * @typedef {object} BrowserExample
 * @property {string} url where the page is, without a trailing slash
 * @property {() => Promise<void>} close
 */

// ---------------------------------------------------------------------------------------------
// The scripted turn: a text, then a write_file call, in Anthropic's wire format

const FILE = `use std::io::{self, BufRead};

/// Counts the words on standard input, like \`wc -w\`.
fn main() {
    let mut words = 0usize;
    for line in io::stdin().lock().lines() {
        words += line.expect("read error").split_whitespace().count();
    }
    println!("{words} words — \\"done\\" ✓");
}
`;

/** The scripted turn as Anthropic SSE events. */
const scriptedEvents = () => scriptedTurn("I'll write the word counter to src/main.rs.", [{ path: 'src/main.rs', content: FILE }]);

// ---------------------------------------------------------------------------------------------
// The server

/**
 * Build the bundles and start serving.
 * @param {BrowserExampleOptions} [options]
 * @returns {Promise<BrowserExample>}
 */
export async function startBrowserExample(options = {}) {
  const argstreamEntry = options.argstreamEntry ?? fileURLToPath(import.meta.resolve('argstream'));
  const common = /** @type {const} */ ({ bundle: true, format: 'esm', write: false, target: 'es2022', logLevel: 'silent', legalComments: 'none' });
  const [pageBundle, edgeBundle] = await Promise.all([
    build({ ...common, entryPoints: [argstreamEntry], platform: 'browser' }),
    build({ ...common, entryPoints: [EDGE_FUNCTION], platform: 'browser', alias: { argstream: argstreamEntry } }),
  ]);
  const argstreamJs = pageBundle.outputFiles[0]?.text ?? '';
  const edgeJs = edgeBundle.outputFiles[0]?.text ?? '';
  /** @type {{ handleRequest(request: Request, env: Record<string, string | undefined>): Promise<Response> }} */
  const edgeFunction = await import(`data:text/javascript;base64,${Buffer.from(edgeJs).toString('base64')}`);

  const scripted = options.anthropicUrl === undefined && options.apiKey === undefined ? await startScriptedModel(scriptedEvents, options.delayMs ?? 25) : undefined;
  const env = { ANTHROPIC_URL: options.anthropicUrl ?? scripted?.url, ANTHROPIC_API_KEY: options.apiKey };
  const files = {
    '/': ['index.html', 'text/html; charset=utf-8'],
    '/index.html': ['index.html', 'text/html; charset=utf-8'],
    '/app.mjs': ['app.mjs', 'text/javascript; charset=utf-8'],
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    try {
      const file = /** @type {Record<string, string[]>} */ (files)[url.pathname];
      if (request.method === 'GET' && file !== undefined) {
        response.writeHead(200, { 'content-type': file[1] ?? '' }).end(await readFile(new URL(file[0] ?? '', HERE)));
      } else if (request.method === 'GET' && url.pathname === '/argstream.js') {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(argstreamJs);
      } else if (url.pathname === '/api/chat') {
        await relay(request, response);
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  });

  /**
   * Run the edge function on a Node request.
   * @param {import('node:http').IncomingMessage} request
   * @param {import('node:http').ServerResponse} response
   */
  const relay = (request, response) => serveWeb((webRequest) => edgeFunction.handleRequest(webRequest, env), request, response);

  await new Promise((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await scripted?.close();
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const example = await startBrowserExample({
    port: Number(process.env['PORT'] ?? 8787),
    ...(process.env['ANTHROPIC_URL'] === undefined ? {} : { anthropicUrl: process.env['ANTHROPIC_URL'] }),
    ...(process.env['ANTHROPIC_API_KEY'] === undefined ? {} : { apiKey: process.env['ANTHROPIC_API_KEY'] }),
  });
  console.log(`the browser example is at ${example.url}/ (Ctrl-C to stop)`);
}
