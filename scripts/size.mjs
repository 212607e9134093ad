#!/usr/bin/env node
// `npm run size`: what a browser bundle of some of argstream's exports weighs, minified and
// gzipped (esbuild, then gzip -9, as test/size.test.ts measures its budgets), and which modules
// make up the minified bytes of each. `--modules` lists them.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const sets = [
  ['parser + aggregator', ['IncrementalJsonParser', 'FragmentAggregator']],
  ['fused engine', ['IncrementalJsonValueParser']],
  ['JSON engine and its streams', ['IncrementalJsonParser', 'FragmentAggregator', 'IncrementalJsonValueParser', 'JsonFragmentStream', 'JsonValueStream']],
  ['provider to turn', ['ProviderEventStream', 'ConversationEventStream', 'collectTurn']],
  ['browser relay client', ['EventStreamDecoder', 'NdjsonDecoder']],
  // An entry point of its own (the third element: the module, else the root).
  ['argstream/partial-json', ['createPartialJsonParser'], './src/bindings/partial-json.ts'],
];

async function measure(names, entry = './src/index.ts') {
  const result = await build({
    stdin: { contents: `export { ${names.join(', ')} } from '${entry}';`, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
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
for (const [label, names, entry] of sets) {
  const { minified, gzipped, modules } = await measure(names, entry);
  console.log(`| ${label} (${names.join(', ')}) | ${kb(minified)} | ${kb(gzipped)} |`);
  if (listModules) for (const [file, size] of modules) console.log(`|   ${file} | ${kb(size)} | |`);
}
