/**
 * MCP Apps (`npm run bench -- --filter mcp-apps/`): what a host costs to tell an app's view a
 * streaming call's input — `ui/notifications/tool-input-partial` notifications, each with the whole
 * arguments so far, then `ui/notifications/tool-input` — for one `write_file` call of 20 KB,
 * 200 KB and 1 MB arriving in the pipeline benchmark's 10–40-character deltas. Every row makes the
 * notifications and serializes each one (`JSON.stringify`: the bytes a transport writes or
 * `postMessage` clones), except the one row marked "not serialized".
 *
 * - `partial-json` / `ai-sdk`: what a host does today — append the delta, re-parse the whole
 *   buffer with a healing parser (`partial-json`'s `parse`, the AI SDK's `parsePartialJson`), send
 *   a partial per delta.
 * - `argstream-every`: `ToolInputNotificationCore` with `minGrowth: 0`, a partial per delta: the
 *   parse is linear, the bytes are not (the spec's partial is the whole arguments).
 * - `argstream-every-unsent`: the same, the partials made but not serialized: the parse alone.
 * - `argstream`: `ToolInputNotificationCore` as it comes (`minGrowth` 1/16).
 * - `partial-json-throttled`: the re-parse, but only where argstream's default sends a partial
 *   (the arguments grown by 1/16 since the last one): what the throttle alone buys a host.
 *
 * The linear rows (`argstream`, `argstream-every-unsent`, `partial-json-throttled`) are timed warm,
 * in a group of their own (ten warm-up runs, no collection between samples), as a server runs them
 * call after call. The quadratic rows are timed in another group, each run long enough to warm
 * itself; at 1 MB they take minutes a run and are timed once (no warm-up), the AI SDK's only with
 * `--mcp-apps-1mb`. Every row's final arguments are checked against
 * `JSON.parse`, and every partial is an object.
 *
 * @module
 */
import { parsePartialJson } from 'ai';
import { parse as partialJsonParse } from 'partial-json';
import { ToolInputNotificationCore, type ToolInputNotification } from '../src/bindings/mcp-apps.ts';
import type { JsonValue, StreamEvent } from '../src/types.ts';
import { clockNow, measureGroup, type MeasureOptions, type Task } from './measure.ts';
import { uiWriteFileCall, type UiWriteFileCall } from './ui.ts';

export const MCP_APPS_BYTES = [20_000, 200_000, 1_000_000] as const;

export type McpAppsRowId = 'partial-json' | 'ai-sdk' | 'argstream-every' | 'argstream-every-unsent' | 'argstream' | 'partial-json-throttled';

export const MCP_APPS_ROWS: readonly McpAppsRowId[] = ['partial-json', 'ai-sdk', 'argstream-every', 'argstream-every-unsent', 'argstream', 'partial-json-throttled'];

const LABELS: Readonly<Record<McpAppsRowId, string>> = {
  'partial-json': 'today: `partial-json` re-parse, a partial per delta',
  'ai-sdk': "today: the AI SDK's `parsePartialJson` re-parse, a partial per delta",
  'argstream-every': '`ToolInputNotificationCore({ minGrowth: 0 })`, a partial per delta',
  'argstream-every-unsent': 'the same, partials made but not serialized',
  argstream: '`ToolInputNotificationCore()` (throttled: `minGrowth` 1/16)',
  'partial-json-throttled': '`partial-json` re-parse, only where argstream sends a partial',
};

/** The rows whose cost grows with the square of the call: timed once at 1 MB. */
const QUADRATIC: ReadonlySet<McpAppsRowId> = new Set(['partial-json', 'ai-sdk', 'argstream-every']);

const GROWTH = 1 / 16;
const PARTIAL = 'ui/notifications/tool-input-partial';
const INPUT = 'ui/notifications/tool-input';

export function mcpAppsCellId(bytes: number, row: McpAppsRowId): string {
  return `mcp-apps/${bytes}/${row}`;
}

/** What one run of a row sent. */
interface Sent {
  partials: number;
  bytes: number;
}

interface Row {
  readonly task: Task;
  readonly sent: Sent;
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A host's send: the notification's JSON text (what a transport writes), counted. */
function send(sent: Sent, method: string, args: JsonValue, serialize: boolean): void {
  if (method === PARTIAL) sent.partials++;
  if (serialize) sent.bytes += JSON.stringify({ jsonrpc: '2.0', method, params: { arguments: args } }).length;
}

/** The re-parse host: every delta appended, the buffer parsed again, a partial sent when `due`. */
function reparse(call: UiWriteFileCall, sent: Sent, due: (length: number) => boolean): JsonValue {
  sent.partials = 0;
  sent.bytes = 0;
  let buffer = '';
  for (const delta of call.deltas) {
    buffer += delta;
    if (!due(buffer.length)) continue;
    let value: unknown;
    try {
      value = partialJsonParse(buffer);
    } catch {
      continue; // a prefix it cannot heal: no partial this time
    }
    if (isObject(value)) send(sent, PARTIAL, value, true);
  }
  const final = JSON.parse(buffer) as JsonValue;
  send(sent, INPUT, final, true);
  return final;
}

function rows(call: UiWriteFileCall): Record<McpAppsRowId, Row> {
  const events: StreamEvent[] = [
    { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'toolu_1', toolName: 'write_file' } },
    ...call.deltas.map((chunk): StreamEvent => ({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk } })),
    { type: 'flush', index: 0 },
    { type: 'finished', reason: 'tool-calls', rawReason: 'tool_use' },
  ];
  const argstream = (minGrowth: number | undefined, serialize: boolean, sent: Sent): JsonValue => {
    sent.partials = 0;
    sent.bytes = 0;
    const core = new ToolInputNotificationCore(minGrowth === undefined ? {} : { minGrowth });
    const out: ToolInputNotification[] = [];
    let final: JsonValue | undefined;
    const take = (): void => {
      for (const notification of out) {
        if (notification.method === 'ui/notifications/tool-cancelled') throw new Error(`cancelled: ${notification.params.reason}`);
        if (!isObject(notification.params.arguments)) throw new Error('a partial that is not an object');
        send(sent, notification.method, notification.params.arguments, serialize);
        if (notification.method === INPUT) final = notification.params.arguments;
      }
      out.length = 0;
    };
    for (const event of events) {
      core.push(event, out);
      take();
    }
    core.end(out);
    take();
    if (final === undefined) throw new Error('no tool-input');
    return final;
  };
  const make = (work: (sent: Sent) => JsonValue | Promise<JsonValue>, isAsync = false): Row => {
    const sent: Sent = { partials: 0, bytes: 0 };
    return { task: { work: () => work(sent), isAsync }, sent };
  };
  /** Where argstream's default sends: the text grown by 1/16 since the last partial. */
  const throttled = () => {
    let last = -1;
    return (length: number): boolean => {
      if (last >= 0 && length < last * (1 + GROWTH)) return false;
      last = length;
      return true;
    };
  };
  return {
    'partial-json': make((sent) => reparse(call, sent, () => true)),
    'ai-sdk': make(async (sent) => {
      sent.partials = 0;
      sent.bytes = 0;
      let buffer = '';
      for (const delta of call.deltas) {
        buffer += delta;
        const result = await parsePartialJson(buffer);
        if (result.state !== 'failed-parse' && isObject(result.value)) send(sent, PARTIAL, result.value as JsonValue, true);
      }
      const final = JSON.parse(buffer) as JsonValue;
      send(sent, INPUT, final, true);
      return final;
    }, true),
    'argstream-every': make((sent) => argstream(0, true, sent)),
    'argstream-every-unsent': make((sent) => argstream(0, false, sent)),
    argstream: make((sent) => argstream(undefined, true, sent)),
    'partial-json-throttled': make((sent) => reparse(call, sent, throttled())),
  };
}

export interface McpAppsCell {
  readonly medianMs: number;
  readonly runs: number;
  readonly partials: number;
  readonly bytes: number;
}

export interface McpAppsResults {
  readonly cells: Map<string, McpAppsCell>;
  readonly sizes: Map<number, number>;
}

export interface McpAppsBenchOptions {
  readonly quick: boolean;
  /** The AI SDK's row at 1 MB too (minutes a run). */
  readonly aiSdk1mb: boolean;
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  readonly check: (what: string, actual: JsonValue, expected: JsonValue) => void;
}

/** The quadratic rows: each run is long enough to warm itself. */
const OPTIONS: MeasureOptions = { warmupRuns: 1, maxRuns: 5, minRuns: 2, budgetMs: 3_000 };
const QUICK_OPTIONS: MeasureOptions = { warmupRuns: 0, maxRuns: 2, minRuns: 1, budgetMs: 500 };
/**
 * The linear rows, timed warm as a server runs them call after call: a run of a 20 KB call is
 * about a millisecond, too short for the engine to optimise the core's code in the one run after a
 * full collection that the other groups get (it would time the interpreter).
 */
const WARM_OPTIONS: MeasureOptions = { warmupRuns: 10, maxRuns: 25, minRuns: 7, budgetMs: 2_000, gcEachSample: false };
const QUICK_WARM_OPTIONS: MeasureOptions = { warmupRuns: 5, maxRuns: 7, minRuns: 3, budgetMs: 500, gcEachSample: false };

/** Time every selected row at every size; `undefined` when no cell is selected. */
export async function runMcpAppsBench(options: McpAppsBenchOptions): Promise<McpAppsResults | undefined> {
  const ids = MCP_APPS_BYTES.flatMap((bytes) => MCP_APPS_ROWS.map((row) => mcpAppsCellId(bytes, row)));
  if (!ids.some(options.selected)) return undefined;
  const results: McpAppsResults = { cells: new Map(), sizes: new Map() };
  for (const targetBytes of options.quick ? MCP_APPS_BYTES.slice(0, 2) : MCP_APPS_BYTES) {
    const call = uiWriteFileCall(targetBytes);
    results.sizes.set(targetBytes, call.bytes);
    const all = rows(call);
    const chosen = MCP_APPS_ROWS.filter((row) => options.selected(mcpAppsCellId(targetBytes, row)) && (row !== 'ai-sdk' || targetBytes < 1_000_000 || options.aiSdk1mb));
    if (chosen.length === 0) continue;
    options.progress(`mcp-apps: a ${call.bytes}-byte write_file call in ${call.deltas.length} deltas`);
    const once = targetBytes >= 1_000_000 ? chosen.filter((row) => QUADRATIC.has(row)) : [];
    const grouped = chosen.filter((row) => QUADRATIC.has(row) && !once.includes(row));
    const warm = chosen.filter((row) => !QUADRATIC.has(row));
    const record = (row: McpAppsRowId, medianMs: number, runs: number, value: JsonValue): void => {
      options.check(mcpAppsCellId(targetBytes, row), value, call.expected);
      const { partials, bytes } = all[row].sent;
      results.cells.set(mcpAppsCellId(targetBytes, row), { medianMs, runs, partials, bytes });
      options.progress(`  ${mcpAppsCellId(targetBytes, row).padEnd(44)} ${medianMs.toFixed(1).padStart(10)} ms  ${String(partials).padStart(6)} partials  ${(bytes / 1e6).toFixed(1).padStart(9)} MB sent  (${runs} run${runs === 1 ? '' : 's'})`);
    };
    for (const [rowsOfGroup, settings] of [
      [warm, options.quick ? QUICK_WARM_OPTIONS : WARM_OPTIONS],
      [grouped, options.quick ? QUICK_OPTIONS : OPTIONS],
    ] as const) {
      if (rowsOfGroup.length === 0) continue;
      const samples = await measureGroup(rowsOfGroup.map((row) => all[row].task), settings);
      rowsOfGroup.forEach((row, i) => {
        const sample = samples[i] as { medianMs: number; runs: number; value: JsonValue };
        // The last run's counts are every run's: the work is the same each time.
        record(row, sample.medianMs, sample.runs, sample.value);
      });
    }
    for (const row of once) {
      options.progress(`  ${mcpAppsCellId(targetBytes, row)}: one run (quadratic: minutes)…`);
      const start = clockNow();
      const value = await all[row].task.work();
      record(row, clockNow() - start, 1, value);
    }
  }
  return results;
}

function formatMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

function formatBytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(0)} KB`;
}

/** The table, markdown, on stdout. */
export function printMcpAppsReport(results: McpAppsResults | undefined): void {
  if (results === undefined) return;
  const lines = [
    '',
    '## MCP Apps: a streaming call\'s partial input for its view',
    '',
    'One `write_file` call in 10–40-character deltas; each row makes the `tool-input-partial` notifications and the final `tool-input`, and serializes each (the bytes a transport writes), but the row marked so. Time per call, median: the linear rows warm, the quadratic rows at 1 MB one run.',
    '',
    `| row | ${[...results.sizes.values()].map((bytes) => `${(bytes / 1000).toFixed(0)} KB: time · partials · sent`).join(' | ')} |`,
    `|---|${[...results.sizes.keys()].map(() => '---').join('|')}|`,
  ];
  for (const row of MCP_APPS_ROWS) {
    const cells = [...results.sizes.keys()].map((bytes) => {
      const cell = results.cells.get(mcpAppsCellId(bytes, row));
      if (cell === undefined) return row === 'ai-sdk' && bytes >= 1_000_000 ? 'not run (`--mcp-apps-1mb`)' : '–';
      return `${formatMs(cell.medianMs)} · ${cell.partials} · ${row === 'argstream-every-unsent' ? 'not serialized' : formatBytes(cell.bytes)}`;
    });
    if (cells.every((cell) => cell === '–')) continue;
    lines.push(`| ${LABELS[row]} | ${cells.join(' | ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
