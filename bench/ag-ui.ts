/**
 * The AG-UI benchmark: what it costs an AG-UI client to follow one streaming `write_file` call's
 * arguments, per `TOOL_CALL_ARGS` event. The call is the UI benchmark's (`bench/ui.ts`: the
 * long-string workload's `{"path", "content"}`, here at ~20 KB, ~200 KB and ~1 MB of JSON, cut
 * into the same seeded 10–40-character deltas), as the AG-UI event objects a client gets:
 * `RUN_STARTED`, `TOOL_CALL_START`, one `TOOL_CALL_ARGS` per delta, `TOOL_CALL_END`, `RUN_FINISHED`.
 *
 * - `copilotkit`: CopilotKit's `partialJSONParse` per `TOOL_CALL_ARGS` — the buffer so far through
 *   `partial-json`'s `parse` (`{}` when it throws) — then `JSON.parse` of the whole at
 *   `TOOL_CALL_END`. Quadratic.
 * - `ag-ui-client`: what `@ag-ui/client` 1.0 runs per `TOOL_CALL_ARGS` for a subscriber's
 *   `partialToolCallArgs`: `untruncate-json` on the buffer so far (before the delta), and the
 *   `JSON.parse` a page needs to read it; `JSON.parse` of the whole at `TOOL_CALL_END`. Quadratic.
 * - `argstream`: the same event objects through `ProviderEventDecoder({ provider: AG_UI_PROVIDER })`,
 *   each call's argument text into an `IncrementalJsonValueParser`, its `snapshot()` read after
 *   every `TOOL_CALL_ARGS` (a partial value per event, like for like), `end()` at the call's end.
 *   Linear.
 *
 * Every row's final arguments must equal `JSON.parse` of the call's text, before and after timing.
 *
 * @module
 */
import * as PartialJSON from 'partial-json';
import untruncateModule from 'untruncate-json';
import { IncrementalJsonValueParser, ProviderEventDecoder, type JsonValue, type StreamEvent } from '../src/index.ts';
import { AG_UI_PROVIDER } from '../src/bindings/ag-ui.ts';
import { measureGroup, type MeasureOptions } from './measure.ts';
import { argumentDeltas, TOOL_NAME } from './pipeline.ts';
import { makeWorkload } from './workloads.ts';

export type AgUiRowId = 'copilotkit' | 'ag-ui-client' | 'argstream';
export const AG_UI_ROWS: readonly AgUiRowId[] = ['copilotkit', 'ag-ui-client', 'argstream'];
export const AG_UI_ROW_LABELS: Readonly<Record<AgUiRowId, string>> = {
  copilotkit: "CopilotKit's `partialJSONParse` (`partial-json` `parse`) of the buffer per `TOOL_CALL_ARGS`",
  'ag-ui-client': '`@ag-ui/client`: `untruncate-json` of the buffer per `TOOL_CALL_ARGS`, `JSON.parse`d',
  argstream: "`ProviderEventDecoder({ provider: AG_UI_PROVIDER })` → `IncrementalJsonValueParser`, `snapshot()` per `TOOL_CALL_ARGS`",
};
/** The sizes of the call's arguments (UTF-8 bytes of JSON text). `--quick`: no 1 MB. */
export const AG_UI_BYTES_FULL = [20_000, 200_000, 1_000_000] as const;
export const AG_UI_BYTES_QUICK = [20_000, 200_000] as const;

const TOOL_CALL_ID = 'toolu_01Bq7yVZ3hTgS8c4xRkLmN2p';

/** The AG-UI events of one run with the call: what `@ag-ui/client` yields to a page. */
export function agUiEvents(deltas: readonly string[]): object[] {
  return [
    { type: 'RUN_STARTED', threadId: 'thread_1', runId: 'run_1' },
    { type: 'TOOL_CALL_START', toolCallId: TOOL_CALL_ID, toolCallName: TOOL_NAME, parentMessageId: 'msg_1' },
    ...deltas.map((delta) => ({ type: 'TOOL_CALL_ARGS', toolCallId: TOOL_CALL_ID, delta })),
    { type: 'TOOL_CALL_END', toolCallId: TOOL_CALL_ID },
    { type: 'RUN_FINISHED', threadId: 'thread_1', runId: 'run_1' },
  ];
}

type AgUiEvent = { readonly type: string; readonly delta?: string };

/**
 * `untruncate-json`'s function. The package is CommonJS with `exports.default`: a bundler (what a
 * page runs) hands `@ag-ui/client` the function, Node's ESM loader the module object — there the
 * client's call throws, it catches, and the partial arguments are `{}` (no re-parse at all).
 * The bench measures what a page runs.
 */
const untruncateJson = ((untruncateModule as unknown as { default?: (json: string) => string }).default ?? untruncateModule) as (json: string) => string;

/** CopilotKit's partial parse: the buffer through `partial-json`, `{}` when it throws. */
function partialJSONParse(json: string): unknown {
  try {
    return PartialJSON.parse(json);
  } catch {
    return {};
  }
}

/** A client that re-parses the buffer per `TOOL_CALL_ARGS` with `partial`, and parses the whole at the end. */
function reparser(partial: (buffer: string) => unknown, before: boolean): (events: readonly object[]) => JsonValue {
  return (events) => {
    let buffer = '';
    let final: JsonValue = null;
    let seen: unknown;
    for (const event of events as readonly AgUiEvent[]) {
      if (event.type === 'TOOL_CALL_ARGS') {
        // `@ag-ui/client` reads the buffer before the delta is applied; CopilotKit after.
        if (before) seen = partial(buffer);
        buffer += event.delta as string;
        if (!before) seen = partial(buffer);
      } else if (event.type === 'TOOL_CALL_END') final = JSON.parse(buffer) as JsonValue;
    }
    if (seen === undefined) throw new Error('no partial arguments were read');
    return final;
  };
}

/** argstream: the events decoded, the arguments parsed once, a snapshot per event. */
function argstream(events: readonly object[]): JsonValue {
  const decoder = new ProviderEventDecoder({ provider: AG_UI_PROVIDER });
  const out: StreamEvent[] = [];
  let parser: IncrementalJsonValueParser | undefined;
  let final: JsonValue = null;
  const read = (list: readonly StreamEvent[]) => {
    for (const event of list) {
      if (event.type === 'part' && event.part.type === 'tool-call-arguments') {
        (parser ??= new IncrementalJsonValueParser()).push(event.part.chunk);
        parser.snapshot();
      } else if (event.type === 'flush' && parser !== undefined) {
        final = parser.end() as JsonValue;
        parser = undefined;
      }
    }
    out.length = 0;
  };
  for (const event of events) read(decoder.push(event, out));
  read(decoder.end(out));
  return final;
}

const RUN: Readonly<Record<AgUiRowId, (events: readonly object[]) => JsonValue>> = {
  copilotkit: reparser(partialJSONParse, false),
  'ag-ui-client': reparser((buffer) => {
    try {
      return JSON.parse(untruncateJson(buffer)) as unknown;
    } catch {
      return {};
    }
  }, true),
  argstream,
};

export interface AgUiResults {
  /** Per `<bytes>/<row>`: the median ms and the runs. */
  readonly timings: Map<string, { readonly medianMs: number; readonly runs: number }>;
  readonly bytes: readonly number[];
  /** The number of `TOOL_CALL_ARGS` events per size. */
  readonly events: Map<number, number>;
}

export interface AgUiBenchOptions {
  readonly quick: boolean;
  /** Also the re-parse rows at 1 MB (minutes each: they grow with the square of the size). */
  readonly reparse1mb: boolean;
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  readonly check: (what: string, actual: JsonValue, expected: JsonValue) => void;
}

/** The re-parsers take seconds at 200 KB and minutes at 1 MB: few runs. */
const REPARSE_RUNS: MeasureOptions = { warmupRuns: 0, maxRuns: 3, minRuns: 1, budgetMs: 10_000, gcEachSample: true };
const LINEAR_RUNS: MeasureOptions = { warmupRuns: 3, maxRuns: 30, minRuns: 5, budgetMs: 3_000, gcEachSample: true };

/** Runs the AG-UI rows (cell ids `agui/<bytes>/<row>`) that `selected` keeps. */
export async function runAgUiBench(options: AgUiBenchOptions): Promise<AgUiResults | undefined> {
  const sizes = options.quick ? AG_UI_BYTES_QUICK : AG_UI_BYTES_FULL;
  const results: AgUiResults = { timings: new Map(), bytes: sizes, events: new Map() };
  let any = false;
  for (const bytes of sizes) {
    const rows = AG_UI_ROWS.filter((row) => options.selected(`agui/${bytes}/${row}`) && (row === 'argstream' || bytes < 1_000_000 || options.reparse1mb));
    if (rows.length === 0) continue;
    any = true;
    const text = makeWorkload('long-string', bytes).text;
    const expected = JSON.parse(text) as JsonValue;
    const deltas = argumentDeltas(text);
    const events = agUiEvents(deltas);
    results.events.set(bytes, deltas.length);
    options.progress(`ag-ui: one write_file call, ${bytes} bytes of arguments in ${deltas.length} TOOL_CALL_ARGS events`);
    for (const row of rows) {
      // Gate before timing: a fast wrong answer is not a result.
      if (bytes === sizes[0]) options.check(`agui/${row}`, RUN[row](events), expected);
      const [sample] = await measureGroup([{ work: () => RUN[row](events), isAsync: false }], row === 'argstream' ? LINEAR_RUNS : REPARSE_RUNS);
      options.check(`agui/${bytes}/${row}`, sample!.value, expected);
      results.timings.set(`${bytes}/${row}`, { medianMs: sample!.medianMs, runs: sample!.runs });
      options.progress(`  ${`agui/${bytes}/${row}`.padEnd(52)} ${sample!.medianMs.toFixed(2).padStart(10)} ms  (median of ${sample!.runs})`);
    }
  }
  return any ? results : undefined;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

/** The AG-UI table: per size, each row's time per call and its ratio to argstream's. */
export function printAgUiReport(results: AgUiResults | undefined): void {
  if (results === undefined) return;
  const lines = [
    '',
    '### AG-UI: one streaming call, per `TOOL_CALL_ARGS` (`npm run bench -- --filter agui/`)',
    '',
    'Time of a client following one `write_file` call\'s arguments as AG-UI events (10–40-character deltas), a partial value read after every `TOOL_CALL_ARGS`. Re-parsers: 1 to 3 timed runs (the median), at 1 MB only with `--ag-ui-1mb` (minutes); argstream: the median of up to 30.',
    '',
    `| row | what runs | ${results.bytes.map((bytes) => `${bytes / 1000} KB`).join(' | ')} |`,
    `|---|---|${results.bytes.map(() => '--:').join('|')}|`,
  ];
  for (const row of AG_UI_ROWS) {
    const cells = results.bytes.map((bytes) => {
      const timing = results.timings.get(`${bytes}/${row}`);
      const own = results.timings.get(`${bytes}/argstream`);
      if (timing === undefined) return row === 'argstream' ? '–' : 'not run';
      return row === 'argstream' || own === undefined ? formatMs(timing.medianMs) : `${formatMs(timing.medianMs)} (${(timing.medianMs / own.medianMs).toFixed(0)}×)`;
    });
    lines.push(`| \`${row}\` | ${AG_UI_ROW_LABELS[row]} | ${cells.join(' | ')} |`);
  }
  lines.push('', `Events per call: ${results.bytes.map((bytes) => `${results.events.get(bytes) ?? '–'} at ${bytes / 1000} KB`).join(', ')}.`, '');
  process.stdout.write(`${lines.join('\n')}\n`);
}
