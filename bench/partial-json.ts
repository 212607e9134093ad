/**
 * `argstream/partial-json` against the AI SDK's `parsePartialJson` on a growing buffer: the
 * long-string workload's `{"path":…,"content":…}` (a ~200 KB and a ~1 MB code string: quotes,
 * backslashes, tabs, newlines, CJK, an emoji) fed in 16-character steps (`chunkText`: never half a
 * surrogate pair), the way a tool call's arguments arrive. Rows, per size:
 *
 * - `parse`: `createPartialJsonParser()`, then `parser.parse(buffer)` at every step, where `buffer`
 *   is the text so far as a flat string (a slice of the whole text, made before timing: what a
 *   buffer is once something has read it; a `+=` rope costs its flattening on top, whoever reads it).
 * - `push`: `parser.push(delta)` at every step.
 * - `one-pass`: the floor of any exact `parse(buffer)`: at every step, compare the buffer with the
 *   previous one (`buffer.slice(0, previous.length) === previous`, the only way to know it extends
 *   it: V8's block compare) and read each new character once, decoding JSON string escapes into
 *   code units; it builds nothing (it counts the decoded units, checked against `JSON.parse`).
 * - `one-pass-decode`: the same reading of each new character, without the compare: the floor of
 *   `push(delta)`.
 * - `ai-7`: `await parsePartialJson(buffer)` (`ai` 7) at every step, one run. Quadratic: at 1 MB
 *   (and at 200 KB with `--quick`) it runs on every 64th step only and the total is estimated as
 *   64 times that (each sampled call stands for the 64 steps around it); at 200 KB in a full run
 *   both are measured, so the estimate's error is printed beside it.
 *
 * Every row's last value is checked against `JSON.parse` of the text; before timing, `parse`'s
 * results are checked against `parsePartialJson`'s (value and state) at every 64th step.
 *
 * @module
 */
import { parsePartialJson } from 'ai7';
import { createPartialJsonParser } from '../src/bindings/partial-json.ts';
import type { JsonValue } from '../src/types.ts';
import { clockNow, gcExposed, measureGroup, type MeasureOptions } from './measure.ts';
import { chunkText, makeWorkload } from './workloads.ts';

export const PARTIAL_JSON_BYTES = [200_000, 1_000_000] as const;
export const PARTIAL_JSON_STEP = 16;
/** `ai` 7's calls are sampled at one step in this many where it is estimated. */
const SAMPLE_EVERY = 64;
export const PARTIAL_JSON_ROWS = ['parse', 'push', 'one-pass', 'one-pass-decode', 'ai-7'] as const;
export type PartialJsonRow = (typeof PARTIAL_JSON_ROWS)[number];

const ROW_LABELS: Readonly<Record<PartialJsonRow, string>> = {
  parse: 'argstream `parser.parse(buffer)`',
  push: 'argstream `parser.push(delta)`',
  'one-pass': 'one pass: compare with the previous buffer + decode each new character',
  'one-pass-decode': 'one pass without the compare: decode each new character',
  'ai-7': '`ai` 7 `await parsePartialJson(buffer)`',
};

export const partialJsonCellId = (bytes: number, row: PartialJsonRow): string => `partial-json/${bytes}/${row}`;

export interface PartialJsonOptions {
  readonly quick: boolean;
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  readonly check: (what: string, actual: JsonValue, expected: JsonValue) => void;
  /** Other sizes than {@link PARTIAL_JSON_BYTES} (the second is the growth's; `ai-7` is estimated above the first). */
  readonly sizes?: readonly number[];
}

export interface PartialJsonResults {
  /** Per size: the JSON text's length in UTF-16 code units, and the steps. */
  readonly sizes: Map<number, { readonly units: number; readonly steps: number }>;
  /** Median milliseconds per cell id. */
  readonly medianMs: Map<string, number>;
  /** `ai-7` cells: how the time was had. */
  readonly aiSdk: Map<string, { readonly estimated: boolean; readonly sampledMs?: number; readonly measuredMs?: number }>;
}

const SETTINGS: MeasureOptions = { warmupRuns: 2, maxRuns: 9, minRuns: 5, budgetMs: 6_000 };
const QUICK_SETTINGS: MeasureOptions = { warmupRuns: 1, maxRuns: 3, minRuns: 2, budgetMs: 1_500 };

/** The decoded code units of every string (keys too) of a JSON value: what the one-pass rows count. */
function decodedUnits(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  let units = 0;
  for (const [key, member] of Object.entries(value)) units += (Array.isArray(value) ? 0 : key.length) + decodedUnits(member);
  return units;
}

/**
 * Reads `text[from, to)` once, decoding string escapes; `state` carries what a string and an
 * escape were at the end of the last piece. Returns the decoded code units of strings.
 */
function decode(text: string, from: number, to: number, state: { inString: boolean; escape: number }): number {
  let units = 0;
  let { inString, escape } = state;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (!inString) {
      if (c === 34) inString = true;
    } else if (escape === 1) {
      // After a backslash: `u` starts four hex digits, anything else is one code unit.
      if (c === 117) escape = 2;
      else {
        escape = 0;
        units++;
      }
    } else if (escape > 1) {
      if (++escape === 6) {
        escape = 0;
        units++;
      }
    } else if (c === 92) escape = 1;
    else if (c === 34) inString = false;
    else units++;
  }
  state.inString = inString;
  state.escape = escape;
  return units;
}

/** `ai` 7 on every `every`th buffer (every buffer when 1), awaited: the time and the last result. */
async function timeAiSdk(buffers: readonly string[], every: number): Promise<{ ms: number; value: unknown }> {
  if (gcExposed) (globalThis.gc as () => void)();
  let last: unknown;
  const start = clockNow();
  for (let i = every - 1; i < buffers.length; i += every) last = (await parsePartialJson(buffers[i])).value;
  return { ms: clockNow() - start, value: last };
}

export async function runPartialJsonBench(options: PartialJsonOptions): Promise<PartialJsonResults | undefined> {
  const results: PartialJsonResults = { sizes: new Map(), medianMs: new Map(), aiSdk: new Map() };
  const sizes = options.sizes ?? PARTIAL_JSON_BYTES;
  for (const bytes of sizes) {
    const ids = PARTIAL_JSON_ROWS.map((row) => partialJsonCellId(bytes, row));
    if (!ids.some(options.selected)) continue;
    const workload = makeWorkload('long-string', bytes);
    const text = workload.text;
    const expected = JSON.parse(text) as JsonValue;
    const deltas = chunkText(text, PARTIAL_JSON_STEP);
    const buffers: string[] = [];
    let end = 0;
    for (const delta of deltas) buffers.push(text.slice(0, (end += delta.length)));
    results.sizes.set(bytes, { units: text.length, steps: deltas.length });
    options.progress(`partial-json: ${text.length} characters of {"path","content"} in ${deltas.length} steps of ${PARTIAL_JSON_STEP}`);

    // The gate: argstream's parse() gives parsePartialJson's result (value and state).
    if (options.selected(partialJsonCellId(bytes, 'parse')) || options.selected(partialJsonCellId(bytes, 'push'))) {
      const parser = createPartialJsonParser();
      for (let i = 0; i < buffers.length; i++) {
        const ours = parser.parse(buffers[i]);
        if (i % SAMPLE_EVERY !== 0 && i !== buffers.length - 1) continue;
        const theirs = await parsePartialJson(buffers[i]);
        if (ours.state !== theirs.state) throw new Error(`partial-json gate: step ${i}: state ${ours.state}, parsePartialJson ${theirs.state}`);
        options.check(`partial-json ${bytes} parse() at step ${i}`, ours.value as JsonValue, theirs.value as JsonValue);
      }
    }

    const units = decodedUnits(expected);
    const tasks: { row: PartialJsonRow; work: () => JsonValue }[] = [
      {
        row: 'parse',
        work: () => {
          const parser = createPartialJsonParser();
          let value: unknown;
          for (const buffer of buffers) value = parser.parse(buffer).value;
          return value as JsonValue;
        },
      },
      {
        row: 'push',
        work: () => {
          const parser = createPartialJsonParser();
          let value: unknown;
          for (const delta of deltas) value = parser.push(delta).value;
          return value as JsonValue;
        },
      },
      {
        row: 'one-pass',
        work: () => {
          const state = { inString: false, escape: 0 };
          let previous = '';
          let count = 0;
          for (const buffer of buffers) {
            if (buffer.slice(0, previous.length) !== previous) throw new Error('one-pass: the buffer does not extend the previous one');
            count += decode(buffer, previous.length, buffer.length, state);
            previous = buffer;
          }
          return count;
        },
      },
      {
        row: 'one-pass-decode',
        work: () => {
          const state = { inString: false, escape: 0 };
          let count = 0;
          for (const delta of deltas) count += decode(delta, 0, delta.length, state);
          return count;
        },
      },
    ];
    const chosen = tasks.filter((task) => options.selected(partialJsonCellId(bytes, task.row)));
    if (chosen.length > 0) {
      const samples = await measureGroup(
        chosen.map((task) => ({ work: task.work, isAsync: false })),
        options.quick ? QUICK_SETTINGS : SETTINGS,
      );
      chosen.forEach((task, index) => {
        const sample = samples[index]!;
        const id = partialJsonCellId(bytes, task.row);
        options.check(id, sample.value, task.row.startsWith('one-pass') ? units : expected);
        results.medianMs.set(id, sample.medianMs);
        options.progress(`  ${id.padEnd(52)} ${sample.medianMs.toFixed(2).padStart(10)} ms  (median of ${sample.runs})`);
      });
    }

    const aiId = partialJsonCellId(bytes, 'ai-7');
    if (options.selected(aiId)) {
      const estimated = options.quick || bytes > (sizes[0] as number);
      // Warm: the first calls (short buffers, cheap) once untimed, so no timing includes compiling.
      for (let i = 0; i < Math.min(buffers.length, 4 * SAMPLE_EVERY); i++) await parsePartialJson(buffers[i]);
      let measured: { ms: number; value: unknown } | undefined;
      if (!estimated) {
        options.progress(`  ${aiId}: every step, one run (a minute or more)…`);
        measured = await timeAiSdk(buffers, 1);
        options.check(aiId, measured.value as JsonValue, expected);
      }
      const sampled = await timeAiSdk(buffers, SAMPLE_EVERY);
      const sampledMs = sampled.ms * SAMPLE_EVERY;
      results.medianMs.set(aiId, measured?.ms ?? sampledMs);
      results.aiSdk.set(aiId, measured === undefined ? { estimated, sampledMs } : { estimated, sampledMs, measuredMs: measured.ms });
      const how = measured === undefined ? 'estimated: 64 × every 64th step' : `one run; the 1-in-64 estimate: ${sampledMs.toFixed(0)} ms`;
      options.progress(`  ${aiId.padEnd(52)} ${(measured?.ms ?? sampledMs).toFixed(0).padStart(10)} ms  (${how})`);
    }
  }
  return results.sizes.size > 0 ? results : undefined;
}

interface Target {
  readonly label: string;
  readonly measured: number | undefined;
  readonly comparison: '≥' | '≤';
  readonly threshold: number;
}

const ratio = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const formatRatio = (value: number | undefined): string => (value === undefined ? '–' : `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`);
const formatMs = (ms: number | undefined): string => (ms === undefined ? '–' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** The table and the target check (markdown, to stdout). */
export function printPartialJsonReport(results: PartialJsonResults | undefined): void {
  if (results === undefined) return;
  const lines: string[] = [];
  const out = (line = ''): void => void lines.push(line);
  const sizes = [...results.sizes.keys()];
  const ms = (bytes: number, row: PartialJsonRow): number | undefined => results.medianMs.get(partialJsonCellId(bytes, row));
  out(`### argstream/partial-json: a growing buffer in ${PARTIAL_JSON_STEP}-character steps`);
  out();
  const sizeLabel = (bytes: number): string => (bytes >= 1_000_000 ? `${bytes / 1_000_000} MB` : `${bytes / 1000} KB`);
  out(`| row | ${sizes.map((bytes) => `${sizeLabel(bytes)} (${results.sizes.get(bytes)?.steps} steps), ms`).join(' | ')} | growth |`);
  out(`|---|${sizes.map(() => '--:').join('|')}|--:|`);
  for (const row of PARTIAL_JSON_ROWS) {
    const cells = sizes.map((bytes) => {
      const value = formatMs(ms(bytes, row));
      const how = results.aiSdk.get(partialJsonCellId(bytes, row));
      return how?.estimated === true ? `${value} (est.)` : value;
    });
    const growth = sizes.length === 2 ? formatRatio(ratio(ms(sizes[1]!, row), ms(sizes[0]!, row))) : '–';
    out(`| ${ROW_LABELS[row]} | ${cells.join(' | ')} | ${growth} |`);
  }
  out();
  for (const [id, how] of results.aiSdk) {
    if (how.measuredMs !== undefined && how.sampledMs !== undefined) {
      out(`${id}: measured ${formatMs(how.measuredMs)} ms at every step; 64 × every 64th step gives ${formatMs(how.sampledMs)} ms (${formatRatio(how.sampledMs / how.measuredMs)} of it).`);
    }
  }
  out();
  const [small = 0, large = 0] = sizes;
  const targets: Target[] = [
    { label: 'parse(buffer): parsePartialJson ÷ parse at 200 KB', measured: ratio(ms(small, 'ai-7'), ms(small, 'parse')), comparison: '≥', threshold: 50 },
    { label: 'push(delta): parsePartialJson ÷ push at 200 KB', measured: ratio(ms(small, 'ai-7'), ms(small, 'push')), comparison: '≥', threshold: 50 },
    { label: 'parse(buffer) ÷ one pass (compare + decode) at 200 KB', measured: ratio(ms(small, 'parse'), ms(small, 'one-pass')), comparison: '≤', threshold: 3 },
    { label: 'parse(buffer) ÷ one pass (compare + decode) at 1 MB', measured: ratio(ms(large, 'parse'), ms(large, 'one-pass')), comparison: '≤', threshold: 3 },
    { label: 'push(delta) ÷ one pass (compare + decode) at 1 MB', measured: ratio(ms(large, 'push'), ms(large, 'one-pass')), comparison: '≤', threshold: 3 },
    { label: 'push(delta): growth 1 MB ÷ 200 KB', measured: ratio(ms(large, 'push'), ms(small, 'push')), comparison: '≤', threshold: 6 },
    { label: 'parse(buffer): growth 1 MB ÷ 200 KB (the compare of each buffer with the last is quadratic)', measured: ratio(ms(large, 'parse'), ms(small, 'parse')), comparison: '≤', threshold: 6 },
  ];
  out('#### partial-json target check');
  out();
  for (const target of targets) {
    const verdict =
      target.measured === undefined
        ? 'n/a (not measured)'
        : (target.comparison === '≥' ? target.measured >= target.threshold : target.measured <= target.threshold)
          ? 'PASS'
          : 'MISS';
    out(`- **${verdict}** ${target.label}: ${formatRatio(target.measured)} (target ${target.comparison} ${target.threshold}×)`);
  }
  out(`- push(delta) ÷ one pass without the compare (decode only), 200 KB and 1 MB: ${sizes.map((bytes) => formatRatio(ratio(ms(bytes, 'push'), ms(bytes, 'one-pass-decode')))).join(', ')} (no target: the per-call work of a result — a value and a copy of the open containers — against a bare loop)`);
  out();
  process.stdout.write(`\n${lines.join('\n')}`);
}
