/**
 * The LangChain benchmark: what it costs to show one streaming `write_file` call's arguments while
 * a LangChain.js chat model streams it. The call is the pipeline benchmark's (the long-string
 * workload's `{"path", "content"}` at ~20 KB, ~200 KB and ~1 MB of JSON, cut into the same seeded
 * 10–40-character deltas), as the `AIMessageChunk`s a chat model's `.stream()` yields: the first
 * with the call's id and name, one per delta with `{index: 0, id: '', args}` (OpenAI's
 * continuations), the last with its `finish_reason`. The chunks are made by `@langchain/core`
 * before timing. Each row ends with the call's arguments, checked against `JSON.parse`:
 *
 * - `concat`: LangChain's own aggregation, as an application that shows the call while it streams
 *   writes it: `message = message.concat(chunk)` per chunk, then `message.tool_calls` (whose getter
 *   joins the call's chunks and runs `parsePartialJson` on the whole argument text: the re-parse
 *   langchain-ai/langchainjs#11148 measured at 15.5 s for one large call).
 * - `parse-partial-json`: the hand-written form: the call's argument text kept as a string
 *   (`+=` per chunk) and `parsePartialJson(text)` from `@langchain/core/output_parsers` per chunk.
 * - `argstream/stream`: the chunks through `new ProviderEventStream({ provider: 'langchain' })` into
 *   a `WritableStream` that does nothing: the least argstream does before a UI gets anything.
 * - `argstream/store`: each chunk through `new ProviderEventDecoder({ provider: LANGCHAIN_PROVIDER })` and its
 *   events into `new TurnStore({ schedule: 'sync' })` (`push`), a listener reading `getSnapshot()`
 *   (the call's partial input) at every notification: synchronous per chunk, no stream between,
 *   like for like with the LangChain rows' loop and the partial arguments they make per chunk.
 *
 * Cell ids: `langchain/<bytes>/<row>` (`--filter langchain/` runs only these). The re-parsing rows
 * grow with the square of the call: at 1 MB they run only with `--langchain-1mb` (about 20 and 3
 * minutes a run), and print "not run" without it.
 *
 * @module
 */
import { AIMessageChunk } from '@langchain/core/messages';
import { parsePartialJson } from '@langchain/core/output_parsers';
import { ProviderEventDecoder, ProviderEventStream, TurnStore, type JsonValue, type StreamEvent } from '../src/index.ts';
import { LANGCHAIN_PROVIDER } from '../src/bindings/langchain.ts';
import { clockNow, measureGroup, type MeasureOptions } from './measure.ts';
import { TOOL_NAME } from './pipeline.ts';
import { uiWriteFileCall } from './ui.ts';

export const LANGCHAIN_BYTES_QUICK = [20_000, 200_000] as const;
export const LANGCHAIN_BYTES_FULL = [20_000, 200_000, 1_000_000] as const;

export type LangChainRowId = 'concat' | 'parse-partial-json' | 'argstream/stream' | 'argstream/store';
export const LANGCHAIN_ROWS: readonly LangChainRowId[] = ['concat', 'parse-partial-json', 'argstream/stream', 'argstream/store'];
/** The re-parsing rows: seconds at 200 KB, a few runs. */
const REPARSE_ROWS: readonly LangChainRowId[] = ['concat', 'parse-partial-json'];

const ROW_LABELS: Readonly<Record<LangChainRowId, string>> = {
  concat: 'LangChain: `message.concat(chunk)`, then `message.tool_calls` (`parsePartialJson` of the whole text) per chunk',
  'parse-partial-json': 'LangChain: the argument text `+=` per chunk, then `parsePartialJson(text)` (`@langchain/core/output_parsers`)',
  'argstream/stream': "`ProviderEventStream({ provider: 'langchain' })` → a `WritableStream` that does nothing",
  'argstream/store': "`ProviderEventDecoder({ provider: LANGCHAIN_PROVIDER })` per chunk → `TurnStore({ schedule: 'sync' }).push`, `getSnapshot()` per notification",
};

/** Argstream's store ÷ LangChain's `concat` at 200 KB: at least this many times faster. */
export const LANGCHAIN_OVER_STORE_TARGET = 100;
export const LANGCHAIN_OVER_STORE_AT = 200_000;
/** Argstream's store at 1 MB ÷ at 200 KB (linear: the size ratio, about 5). */
export const STORE_SCALING_TARGET = 6;

export function langChainCellId(bytes: number, row: LangChainRowId): string {
  return `langchain/${bytes}/${row}`;
}

const CALL_ID = 'call_bench_write_file';

/** The call as a chat model's `.stream()` yields it, made by `@langchain/core`. */
export function langChainChunks(deltas: readonly string[]): AIMessageChunk[] {
  const chunks = [new AIMessageChunk({ content: '', id: 'chatcmpl-bench', tool_call_chunks: [{ index: 0, id: CALL_ID, name: TOOL_NAME, args: '', type: 'tool_call_chunk' }] })];
  for (const args of deltas) chunks.push(new AIMessageChunk({ content: '', id: 'chatcmpl-bench', tool_call_chunks: [{ index: 0, id: '', args, type: 'tool_call_chunk' }] }));
  chunks.push(new AIMessageChunk({ content: '', id: 'chatcmpl-bench', response_metadata: { finish_reason: 'tool_calls' } }));
  return chunks;
}

function arrayStream<T>(items: readonly T[]): ReadableStream<T> {
  let next = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (next < items.length) controller.enqueue(items[next++] as T);
      else controller.close();
    },
  });
}

/** Each row's work: the arguments it ends with. */
function rowWork(row: LangChainRowId, chunks: readonly AIMessageChunk[]): () => JsonValue | Promise<JsonValue> {
  switch (row) {
    case 'concat':
      return () => {
        let message: AIMessageChunk | undefined;
        let args: unknown;
        for (const chunk of chunks) {
          message = message === undefined ? chunk : message.concat(chunk);
          args = message.tool_calls?.[0]?.args;
        }
        return args as JsonValue;
      };
    case 'parse-partial-json':
      return () => {
        let text = '';
        let args: unknown;
        for (const chunk of chunks) {
          const delta = chunk.tool_call_chunks?.[0]?.args;
          if (delta === undefined) continue;
          text += delta;
          args = parsePartialJson(text);
        }
        return args as JsonValue;
      };
    case 'argstream/stream':
      return async () => {
        let args: JsonValue = null;
        await arrayStream(chunks)
          .pipeThrough(new ProviderEventStream({ provider: 'langchain' }))
          .pipeTo(
            new WritableStream({
              write(event) {
                if (event.type === 'part' && event.part.type === 'tool-call-arguments') args = event.part.chunk;
              },
            }),
          );
        // The last argument text, checked below by its length only: the stream hands on the text.
        return args;
      };
    case 'argstream/store':
      return () => {
        const store = new TurnStore({ schedule: 'sync' });
        let input: unknown;
        store.subscribe(() => {
          input = store.getSnapshot().calls[0]?.input;
        });
        const decoder = new ProviderEventDecoder({ provider: LANGCHAIN_PROVIDER });
        const events: StreamEvent[] = [];
        const apply = (): void => {
          for (const event of events) void store.push(event);
          events.length = 0;
        };
        for (const chunk of chunks) {
          decoder.push(chunk, events);
          apply();
        }
        decoder.end(events);
        apply();
        void store.end();
        return input as JsonValue;
      };
  }
}

export interface LangChainResults {
  /** Median ms per call, by cell id. */
  readonly medians: Map<string, number>;
  readonly runs: Map<string, number>;
  /** UTF-8 size of each call's JSON, by target size. */
  readonly bytes: Map<number, number>;
  readonly chunks: Map<number, number>;
  readonly sizes: readonly number[];
}

export interface LangChainBenchOptions {
  readonly quick: boolean;
  /** The re-parsing rows at 1 MB too (`--langchain-1mb`: about 20 and 3 minutes a run). */
  readonly reparse1mb: boolean;
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  readonly check: (what: string, actual: JsonValue, expected: JsonValue) => void;
}

/** Runs the selected LangChain cells; `undefined` when none is. */
export async function runLangChainBench(options: LangChainBenchOptions): Promise<LangChainResults | undefined> {
  const sizes = options.quick ? LANGCHAIN_BYTES_QUICK : LANGCHAIN_BYTES_FULL;
  const results: LangChainResults = { medians: new Map(), runs: new Map(), bytes: new Map(), chunks: new Map(), sizes };
  let any = false;
  for (const bytes of sizes) {
    const rows = LANGCHAIN_ROWS.filter(
      (row) => options.selected(langChainCellId(bytes, row)) && (bytes < 1_000_000 || options.reparse1mb || !REPARSE_ROWS.includes(row)),
    );
    if (rows.length === 0) continue;
    any = true;
    const call = uiWriteFileCall(bytes);
    const chunks = langChainChunks(call.deltas);
    results.bytes.set(bytes, call.bytes);
    results.chunks.set(bytes, chunks.length);
    options.progress(`langchain: one write_file call, ${call.bytes} bytes of arguments in ${chunks.length} AIMessageChunks`);
    const lastDelta = call.deltas[call.deltas.length - 1] as string;
    const expectedOf = (row: LangChainRowId): JsonValue => (row === 'argstream/stream' ? lastDelta : call.expected);
    // The gate: argstream's rows end with the call's arguments (the stream row, with its last
    // delta) before they are timed; the re-parsers, whose one run takes minutes at 1 MB, after.
    for (const row of rows) if (!REPARSE_ROWS.includes(row)) options.check(langChainCellId(bytes, row), await rowWork(row, chunks)(), expectedOf(row));
    const groups: Array<[readonly LangChainRowId[], MeasureOptions]> = [
      [rows.filter((row) => REPARSE_ROWS.includes(row)), bytes >= 1_000_000 ? { warmupRuns: 0, maxRuns: 1, minRuns: 1, budgetMs: 0 } : { warmupRuns: bytes > 20_000 ? 0 : 1, maxRuns: options.quick ? 2 : 3, minRuns: 1, budgetMs: 3_000 }],
      // Warm-up matters: the first runs of a stream pipeline take several times the later ones.
      [rows.filter((row) => !REPARSE_ROWS.includes(row)), { warmupRuns: options.quick ? 3 : 8, maxRuns: options.quick ? 5 : 15, minRuns: 3, budgetMs: options.quick ? 1_000 : 3_000 }],
    ];
    for (const [group, settings] of groups) {
      if (group.length === 0) continue;
      if (bytes >= 1_000_000 && group.some((row) => REPARSE_ROWS.includes(row))) {
        // One run of a re-parser at 1 MB takes many minutes: timed once, without the re-warming
        // run measureGroup makes before each sample (its JIT is warm after the first seconds).
        for (const row of group) {
          const id = langChainCellId(bytes, row);
          globalThis.gc?.();
          const started = clockNow();
          const value = await rowWork(row, chunks)();
          const elapsed = clockNow() - started;
          options.check(id, value, expectedOf(row));
          results.medians.set(id, elapsed);
          results.runs.set(id, 1);
          options.progress(`  ${id.padEnd(52)} ${elapsed.toFixed(2).padStart(10)} ms  (one run)`);
        }
        continue;
      }
      const samples = await measureGroup(
        group.map((row) => ({ work: rowWork(row, chunks), isAsync: true })),
        settings,
      );
      group.forEach((row, i) => {
        const sample = samples[i];
        if (sample === undefined) return;
        const id = langChainCellId(bytes, row);
        options.check(id, sample.value, expectedOf(row));
        results.medians.set(id, sample.medianMs);
        results.runs.set(id, sample.runs);
        options.progress(`  ${id.padEnd(52)} ${sample.medianMs.toFixed(2).padStart(10)} ms  (median of ${sample.runs})`);
      });
    }
  }
  return any ? results : undefined;
}

function ms(value: number | undefined): string {
  if (value === undefined) return 'not run';
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value >= 10 ? 1 : 2)} ms`;
}

/** The LangChain table, its ratios and its targets, as markdown. */
export function printLangChainReport(results: LangChainResults | undefined, out: (line?: string) => void = (line = '') => process.stdout.write(`${line}\n`)): void {
  if (results === undefined) return;
  const { sizes } = results;
  out('');
  out('### LangChain: one streaming `write_file` call, its arguments shown as they stream');
  out('');
  out(
    `The call of the pipeline tables as the \`AIMessageChunk\`s a LangChain chat model's \`.stream()\` yields (one per 10–40-character delta; ${sizes
      .map((bytes) => `${results.chunks.get(bytes) ?? '?'} chunks at ~${bytes / 1000} KB`)
      .join(', ')}), made by \`@langchain/core\` before timing. Median time per call; every row ends with the call's arguments, checked against \`JSON.parse\`.`,
  );
  out('');
  out(`| row | ${sizes.map((bytes) => `~${bytes / 1000} KB`).join(' | ')} | growth ${sizes.length > 2 ? `${sizes[2]! / sizes[1]!}×` : ''} |`);
  out(`|---|${sizes.map(() => '---:').join('|')}|---:|`);
  for (const row of LANGCHAIN_ROWS) {
    const cells = sizes.map((bytes) => results.medians.get(langChainCellId(bytes, row)));
    const growth = sizes.length > 2 && cells[1] !== undefined && cells[2] !== undefined ? `${(cells[2] / cells[1]).toFixed(1)}×` : '';
    out(`| ${ROW_LABELS[row]} | ${cells.map(ms).join(' | ')} | ${growth} |`);
  }
  out('');
  const store = (bytes: number) => results.medians.get(langChainCellId(bytes, 'argstream/store'));
  for (const row of REPARSE_ROWS) {
    const ratios = sizes.map((bytes) => {
      const theirs = results.medians.get(langChainCellId(bytes, row));
      const ours = store(bytes);
      return theirs === undefined || ours === undefined ? 'not run' : `${(theirs / ours).toFixed(0)}×`;
    });
    out(`- \`${row}\` ÷ argstream's store: ${sizes.map((bytes, i) => `${ratios[i]} at ~${bytes / 1000} KB`).join(', ')}`);
  }
  const at = store(LANGCHAIN_OVER_STORE_AT);
  const concat = results.medians.get(langChainCellId(LANGCHAIN_OVER_STORE_AT, 'concat'));
  if (at !== undefined && concat !== undefined) {
    const ratio = concat / at;
    out(`- target: LangChain's \`concat\` ÷ argstream's store ≥ ${LANGCHAIN_OVER_STORE_TARGET}× at ~${LANGCHAIN_OVER_STORE_AT / 1000} KB: ${ratio.toFixed(0)}× ${ratio >= LANGCHAIN_OVER_STORE_TARGET ? '✓' : '✗'}`);
  }
  const large = sizes[2] === undefined ? undefined : store(sizes[2]);
  if (large !== undefined && at !== undefined) {
    const growth = large / at;
    out(`- target: argstream's store at ~1 MB ÷ at ~200 KB ≤ ${STORE_SCALING_TARGET}: ${growth.toFixed(1)} ${growth <= STORE_SCALING_TARGET ? '✓' : '✗'}`);
  }
}
