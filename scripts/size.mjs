#!/usr/bin/env node
// `npm run size`: what a browser bundle of some of argstream's exports weighs, minified and
// gzipped (esbuild, then gzip -9, as test/size.test.ts measures its budgets), and which modules
// make up the minified bytes of each. `--modules` lists them. A page's row counts what the page
// loads before anything it loads later (a dynamic import: a chunk of its own), with the page's own
// dependencies (`ai`, `react`, …) left out; `+ relay decoders` adds the chunks a relay page loads
// to read.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const sets = [
  ['parser + aggregator', ['IncrementalJsonParser', 'FragmentAggregator']],
  ['fused engine', ['IncrementalJsonValueParser']],
  ['JSON engine and its streams', ['IncrementalJsonParser', 'FragmentAggregator', 'IncrementalJsonValueParser', 'JsonFragmentStream', 'JsonValueStream']],
  ['browser relay client', ['EventStreamDecoder', 'NdjsonDecoder']],
  ['UI page', ['TurnStore', 'defineTools']],
];

/** Pages: what they import, and the chunks they load later that count (none: only what loads first). */
const PAGE_EXTERNALS = ['ai', 'react', 'react-dom', '@ai-sdk/*'];
/** A `useChat` page has eventsource-parser already (`ai` reads its stream with it). */
const AI_SDK_PAGE_EXTERNALS = [...PAGE_EXTERNALS, 'eventsource-parser'];
const TO_TURN = `export { ProviderEventStream, ConversationEventStream, collectTurn } from './src/index.ts';`;
const pages = [
  // The providers at entry points of their own are chunks a pipeline loads when it reads one by name.
  ['provider to turn (ProviderEventStream, ConversationEventStream, collectTurn)', TO_TURN, []],
  ['provider to turn + the ag-ui provider', TO_TURN, ['ag-ui.ts']],
  ['provider to turn + the langchain provider', TO_TURN, ['langchain.ts']],
  ['provider to turn + the gemini-interactions provider', TO_TURN, ['gemini-interactions.ts']],
  ['argstream/ag-ui (AgUiEncoder, AG_UI_PROVIDER, …)', `export * from './src/bindings/ag-ui.ts';`, []],
  ['argstream/langchain (LANGCHAIN_PROVIDER)', `export * from './src/bindings/langchain.ts';`, []],
  ['argstream/gemini-interactions (GEMINI_INTERACTIONS_PROVIDER)', `export * from './src/bindings/gemini-interactions.ts';`, []],
  ['page: AI SDK chat transport + useTurn', `export { ArgstreamChatTransport } from './src/bindings/ai-sdk/index.ts'; export { useTurn } from './src/bindings/react.ts';`, [], AI_SDK_PAGE_EXTERNALS],
  ['page: AI SDK chat transport + useTurn + the reader of path updates', `export { ArgstreamChatTransport } from './src/bindings/ai-sdk/index.ts'; export { useTurn } from './src/bindings/react.ts';`, ['./chat-path-updates.ts'], AI_SDK_PAGE_EXTERNALS],
  ['page: useTurn of a relay', `export { useTurn } from './src/bindings/react.ts';`, []],
  ['page: useTurn of a relay + relay decoders', `export { useTurn } from './src/bindings/react.ts';`, ['relay-response.ts', 'field-fragments.ts', 'fragments.ts', 'fragment-input.ts', 'consume.ts', 'events-before.ts']],
  ['argstream/partial-json (createPartialJsonParser)', `export { createPartialJsonParser } from './src/bindings/partial-json.ts';`, []],
];

/**
 * `contents` bundled; for a page, with `external` left out and every dynamic import but those of a
 * module in `loaded` left out (the chunks a page loads later).
 */
async function measure(contents, { external = [], loaded } = {}) {
  /** @type {import('esbuild').Plugin[]} */
  const plugins =
    loaded === undefined
      ? []
      : [
          {
            name: 'later-chunks',
            setup(builder) {
              builder.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' && !loaded.some((name) => args.path.endsWith(name)) ? { path: args.path, external: true } : undefined));
            },
          },
        ];
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external,
    plugins,
  });
  const bytes = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  return {
    minified: bytes.length,
    gzipped: gzipSync(bytes, { level: 9 }).length,
    modules: Object.entries(inputs)
      .map(([file, { bytesInOutput }]) => [file, bytesInOutput])
      .filter(([, size]) => size > 0)
      .sort((a, b) => b[1] - a[1]),
  };
}

const kb = (n) => (n / 1024).toFixed(2);
const listModules = process.argv.includes('--modules');
console.log('| exports | minified KB | min+gz KB |');
console.log('|---|--:|--:|');
const rows = [
  // As a bundler that splits chunks makes them (test/size.test.ts measures so): a provider read by
  // name is a chunk loaded later, and without splitting esbuild would also wrap the modules it shares.
  ...sets.map(([label, names]) => [`${label} (${names.join(', ')})`, `export { ${names.join(', ')} } from './src/index.ts';`, { loaded: [] }]),
  ...pages.map(([label, contents, loaded, external = PAGE_EXTERNALS]) => [label, contents, { external, loaded }]),
];
for (const [label, contents, options] of rows) {
  const { minified, gzipped, modules } = await measure(contents, options);
  console.log(`| ${label} | ${kb(minified)} | ${kb(gzipped)} |`);
  if (listModules) for (const [file, size] of modules) console.log(`|   ${file} | ${kb(size)} | |`);
}
