import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url).pathname;

/** Minified, gzipped size of what a browser bundle of `names` from the root pulls in. */
async function bundledSize(names: readonly string[]): Promise<number> {
  const result = await build({
    stdin: { contents: `export { ${names.join(', ')} } from './src/index.ts';`, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

// Budgets, not measurements: a change that needs more says so here, in the diff.
describe('bundle size', () => {
  // The core a user of the JSON engine alone pulls in: at or under 7.8 KB since issue 19 (7.77 KB
  // measured then); anything new goes to its own module or entry point, not into these two.
  it('the parser and the aggregator stay at or under 7.8 KB (minified, gzipped)', async () => {
    expect(await bundledSize(['IncrementalJsonParser', 'FragmentAggregator'])).toBeLessThanOrEqual(7.8 * 1024);
  });

  // 8.5 KB since error messages are bounded (paths shortened to 60 characters, messages capped):
  // 8.06 KB measured then. 9.5 KB since deep fragments are lazy (+0.73 KB: hostile depth costs
  // what flat input costs) and the fused engine hands runs of complete values to JSON.parse
  // (+0.55 KB: 1.5-4.5x json-ext at every chunk size): 9.12 KB measured then (`npm run size`);
  // 9.45 KB once runs find their end by reading the chunk when the guess fails (+0.27 KB).
  it('the JSON engine and its streams stay under 9.5 KB (minified, gzipped)', async () => {
    expect(await bundledSize(['IncrementalJsonParser', 'FragmentAggregator', 'IncrementalJsonValueParser', 'JsonFragmentStream', 'JsonValueStream'])).toBeLessThan(9.5 * 1024);
  });

  // 26 KB since the 'ai-sdk' provider and the parsing of HTTP error bodies (+1.9 KB): every
  // provider's adapter is in ProviderEventStream's table, so a new one costs every pipeline.
  // The whole library: 46 KB since the terminal sink (+3.1 KB), the relay stages (+3.8 KB) and
  // fromResponse with the 'ai-sdk' provider (+1.9 KB) were added; a user pays for what they import.
  // 30 and 50 KB since the provider-fidelity round (provider-to-turn 25.5 → 28.8 KB, the whole
  // 43.8 → 47.7 KB): provider-run calls and refusals in the vocabulary, the turn builder and
  // collectTurn (+0.5 KB), Responses hosted and custom calls (+0.9 KB), Gemini code execution
  // (+0.2 KB); the Cohere adapter, Gemini's JSON-array stream, structured output and the checked
  // final texts the rest. 31 KB since the first run after a full GC keeps its optimised code
  // (src/retain.ts, +95 B) and native runs find their end by reading the chunk when the guess fails
  // (+0.27 KB): 30.27 KB measured then. The whole library: 50.6 KB before issue 19, 51.9 KB after
  // it (the Responses sequence-gap recovery, chain(), views that complete a call they only saw end,
  // the reading helper for engines without async iteration of streams): 53 KB. 56 KB with the
  // store of a turn for UIs (TurnStore, defineTools: 54.4 KB measured then). 33 KB and 64 KB since
  // the AI SDK's UI message stream became a provider (its adapter is in every pipeline's table,
  // +1.4 KB), a turn cut between two records became an error (+0.15 KB), and the main entry gained
  // the event log a relay resumes from (MemoryEventLog, keepStream, serveStream) and
  // compactEvents: 32.2 KB and 61.1 KB measured then. 38 KB and 76 KB since issue 28 (hostile
  // input): every adapter checks the members of the records it knows and serializes whole arguments
  // guarded, the turn builder checks the events it did not make (duplicate ids, shapes, depth),
  // content after the terminal record is refused (provider-to-turn 32.4 → 37.5 KB); the relay's
  // batch writer and reader and the page error records (the whole library 75.4 KB measured then).
  // The whole library under 79 KB since issue 29: an encoder ends a chain or `fromResponse`, runs
  // of entries made from earlier ones in the relay's batches (78.2 KB measured then). 40 KB and
  // 81 KB since issue 31: the Gemini Interactions adapter is in every pipeline's table (+1.75 KB:
  // provider-to-turn 37.61 → 39.36 KB measured then).
  it('the provider-to-turn pipeline stays under 40 KB, the whole library under 81 KB', async () => {
    expect(await bundledSize(['ProviderEventStream', 'ConversationEventStream', 'collectTurn'])).toBeLessThan(40 * 1024);
    const { readFileSync } = await import('node:fs');
    const all = [...readFileSync(new URL('../src/index.ts', import.meta.url), 'utf8').matchAll(/^export \{([^}]*)\}/gm)].flatMap((m) => m[1]!.split(',').map((n) => n.trim()).filter(Boolean));
    expect(await bundledSize(all)).toBeLessThan(81 * 1024);
  });

  // What a page that shows a relayed turn with a framework binding pulls in (the bindings add a few
  // hundred bytes): the turn builder, the relay decoders and the store, no provider's adapter
  // (18.8 KB measured when it was added). 26.5 KB since issue 28: the batch reader of the relay's
  // wire form, the page error records, the checks of events of the wrong shape (25.9 KB measured).
  // 27 KB since issue 29: the runs of the batches (26.6 KB measured).
  it('a UI page (TurnStore, defineTools) stays under 27 KB', async () => {
    expect(await bundledSize(['TurnStore', 'defineTools'])).toBeLessThan(27 * 1024);
  });

  // 9 KB since issue 28: the batch reader (2.5 KB), the page error records and EventLogError (8.7 KB measured).
  // 9.5 KB since issue 29: runs of repeated entries (9.1 KB measured).
  it('a browser relay client (EventStreamDecoder, NdjsonDecoder) stays under 9.5 KB', async () => {
    expect(await bundledSize(['EventStreamDecoder', 'NdjsonDecoder'])).toBeLessThan(9.5 * 1024);
  });
});
