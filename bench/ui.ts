/**
 * The UI benchmark: what it costs on the client's main thread to turn one streaming `write_file`
 * tool call into something a UI renders. The call is the pipeline benchmark's (`bench/pipeline.ts`:
 * the long-string workload's `{"path", "content"}` at ~46 KB, ~200 KB and ~1 MB of JSON, cut into
 * the same seeded 10–40-character deltas), and each row gets it in the form its client receives:
 *
 * - `ai-sdk/<major>`: the AI SDK's own client processing. The UI message stream chunks the AI SDK
 *   server sends for this call (`start`, `start-step`, `tool-input-start`, one `tool-input-delta`
 *   per delta, `tool-input-available`, `finish-step`, `finish`) as a `ReadableStream` of chunk
 *   objects, read with `readUIMessageStream({ stream })` of `ai` 7 (`ai7`) and of `ai` 5, every
 *   message it yields read: what `useChat` does per chunk (it re-parses the whole input text with
 *   `parsePartialJson` on every `tool-input-delta`, and copies the message). Quadratic.
 * - `decoder`: the call as Anthropic Messages SSE bytes, one SSE event per read, through
 *   `new ProviderEventStream({ provider: 'anthropic' })` into a `WritableStream` whose `write`
 *   does nothing: the least argstream does before a UI gets anything.
 * - `store`: the same bytes as a `Response`, read by
 *   `new TurnStore({ schedule: 'sync' }).consume(response, { decoder: new ProviderEventDecoder({ provider: 'anthropic' }) })` (the body
 *   decoded and applied per read, no stream between), with a listener that reads a snapshot at every
 *   notification (`schedule: 'sync'`: one notification per change, the worst case — a frame per
 *   event at a provider's pace).
 *
 * The transport rows get the call as a `useChat` page does: the UI message stream's SSE bytes
 * (`data: <chunk JSON>\n\n` per chunk, then `data: [DONE]\n\n`, one SSE event per read), and
 * turn them into the messages `useChat` renders:
 *
 * - `transport/ai-sdk/<major>`: `DefaultChatTransport`'s `processResponseStream(bytes)` (its SSE
 *   parsing and per-chunk schema validation), then `readUIMessageStream` of the same package,
 *   every message read: the whole client cost of a `useChat` page with the AI SDK's own transport.
 * - `transport/argstream/<major>`: `ArgstreamChatTransport({ schedule: 'sync' })` built against
 *   that major's `ai` (see {@link loadArgstreamTransport}), a listener reading
 *   `transport.getSnapshot()` at every notification, its `processResponseStream(bytes)`, then
 *   `readUIMessageStream` of the same package over its output, every message read.
 *
 * {@link uiMessageChunks} builds the AI SDK chunks of a call of any size, for other benchmarks.
 *
 * @module
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  DefaultChatTransport as DefaultChatTransport5,
  readUIMessageStream as readUIMessageStream5,
  type UIMessage as UIMessage5,
  type UIMessageChunk as UIMessageChunk5,
} from 'ai';
import {
  DefaultChatTransport as DefaultChatTransport7,
  readUIMessageStream as readUIMessageStream7,
  type UIMessage as UIMessage7,
  type UIMessageChunk as UIMessageChunk7,
} from 'ai7';
import type { ArgstreamChatTransport } from '../src/ai-sdk/chat-transport.ts';
import { ProviderEventDecoder, ProviderEventStream, TurnStore, type JsonValue, type StreamEvent, type TurnSnapshot } from '../src/index.ts';
import { clockName, clockNow } from './measure.ts';
import { ANTHROPIC_TOOL_ID, TOOL_NAME, argumentDeltas, bodyOf, readsOf, sseEvents } from './pipeline.ts';
import { makeWorkload } from './workloads.ts';

// ---------------------------------------------------------------------------------------------
// What is measured

/** The sizes of the `write_file` arguments (UTF-8 bytes of JSON text). `--quick`: no 1 MB. */
export const UI_BYTES_QUICK = [46_000, 200_000] as const;
export const UI_BYTES_FULL = [46_000, 200_000, 1_000_000] as const;

/** The AI SDK's chunk objects through `readUIMessageStream`. */
export type UiReadRowId = 'ai-sdk/5' | 'ai-sdk/7';
/** The UI message stream's SSE bytes through the AI SDK's transport, then `readUIMessageStream`. */
export type UiTransportAiSdkRowId = 'transport/ai-sdk/5' | 'transport/ai-sdk/7';
/** The UI message stream's SSE bytes through `ArgstreamChatTransport`, then `readUIMessageStream`. */
export type UiTransportArgstreamRowId = 'transport/argstream/5' | 'transport/argstream/7';
export type UiTransportRowId = UiTransportAiSdkRowId | UiTransportArgstreamRowId;
export type UiRowId = UiReadRowId | 'decoder' | 'store' | UiTransportRowId;
export const UI_ROWS: readonly UiRowId[] = [
  'ai-sdk/5',
  'ai-sdk/7',
  'decoder',
  'store',
  'transport/ai-sdk/5',
  'transport/ai-sdk/7',
  'transport/argstream/5',
  'transport/argstream/7',
];
/** The rows read with `readUIMessageStream` from chunk objects (compared with the store). */
export const READ_ROWS: readonly UiReadRowId[] = ['ai-sdk/5', 'ai-sdk/7'];
/** The AI SDK's transport rows (compared with argstream's transport of the same major). */
export const TRANSPORT_AI_SDK_ROWS: readonly UiTransportAiSdkRowId[] = ['transport/ai-sdk/5', 'transport/ai-sdk/7'];
export const TRANSPORT_ARGSTREAM_ROWS: readonly UiTransportArgstreamRowId[] = ['transport/argstream/5', 'transport/argstream/7'];
/** The quadratic rows (seconds at 200 KB): few runs, and at 1 MB only with `--ai-sdk-1mb`. */
export const AI_SDK_ROWS: readonly UiRowId[] = [...READ_ROWS, ...TRANSPORT_AI_SDK_ROWS];
/** The rows of the transport table. */
export const TRANSPORT_ROWS: readonly UiTransportRowId[] = [...TRANSPORT_AI_SDK_ROWS, ...TRANSPORT_ARGSTREAM_ROWS];

export const UI_ROW_LABELS: Readonly<Record<UiRowId, string>> = {
  'ai-sdk/5': '`ai` 5 `readUIMessageStream` (what `useChat` runs per chunk)',
  'ai-sdk/7': '`ai` 7 `readUIMessageStream` (what `useChat` runs per chunk)',
  decoder: '`ProviderEventStream` → a `WritableStream` that does nothing',
  store: '`TurnStore({ schedule: \'sync\' }).consume(response, { decoder: new ProviderEventDecoder({ provider: \'anthropic\' }) })`, a snapshot read per notification',
  'transport/ai-sdk/5': '`ai` 5 `DefaultChatTransport` `processResponseStream(bytes)` → `readUIMessageStream`',
  'transport/ai-sdk/7': '`ai` 7 `DefaultChatTransport` `processResponseStream(bytes)` → `readUIMessageStream`',
  'transport/argstream/5':
    '`ArgstreamChatTransport({ schedule: \'sync\' })` on `ai` 5 `processResponseStream(bytes)` → `readUIMessageStream`, `getSnapshot()` per notification',
  'transport/argstream/7':
    '`ArgstreamChatTransport({ schedule: \'sync\' })` on `ai` 7 `processResponseStream(bytes)` → `readUIMessageStream`, `getSnapshot()` per notification',
};

/** What a row hands a UI per call, for the "renders" column. */
const RENDER_UNITS: Readonly<Record<UiRowId, string>> = {
  'ai-sdk/5': 'messages yielded',
  'ai-sdk/7': 'messages yielded',
  decoder: 'events written',
  store: 'notifications',
  'transport/ai-sdk/5': 'messages yielded',
  'transport/ai-sdk/7': 'messages yielded',
  'transport/argstream/5': 'messages yielded',
  'transport/argstream/7': 'messages yielded',
};

/** The `ai` major of a transport row. */
function majorOf(row: UiTransportRowId): 5 | 7 {
  return row.endsWith('/7') ? 7 : 5;
}

/** Cell ids: `ui/<bytes>/<row>` (`--filter ui/` runs only the UI rows). */
export function uiCellId(bytes: number, row: UiRowId): string {
  return `ui/${bytes}/${row}`;
}

/** The targets. */
export const AI_SDK_OVER_STORE_TARGET = 300;
export const AI_SDK_OVER_STORE_AT = 200_000;
export const STORE_OVER_DECODER_TARGET = 1.5;
export const STORE_SCALING_TARGET = 6;
/** The AI SDK's transport ÷ argstream's, both then through `readUIMessageStream` (issue 22 §4), per major. */
export const TRANSPORT_RATIO_TARGET = 300;
export const TRANSPORT_RATIO_AT = 200_000;
/** Argstream's transport at 1 MB ÷ at 200 KB (linear growth: the size ratio, about 5). */
export const TRANSPORT_SCALING_TARGET = 6;

// ---------------------------------------------------------------------------------------------
// The workload, as the AI SDK's server sends it

/** One `write_file` call: its argument text, that text's deltas, and the arguments `JSON.parse` gives. */
export interface UiWriteFileCall {
  /** The size asked for. */
  readonly targetBytes: number;
  /** The exact UTF-8 size of {@link text}. */
  readonly bytes: number;
  readonly text: string;
  /** The seeded 10–40-character deltas of the pipeline benchmark. */
  readonly deltas: readonly string[];
  readonly expected: JsonValue;
}

/** The pipeline benchmark's `write_file` call at about `targetBytes` of JSON (the same text and deltas). */
export function uiWriteFileCall(targetBytes: number): UiWriteFileCall {
  const workload = makeWorkload('long-string', targetBytes);
  return {
    targetBytes,
    bytes: workload.bytes,
    text: workload.text,
    deltas: argumentDeltas(workload.text),
    expected: JSON.parse(workload.text) as JsonValue,
  };
}

/**
 * The UI message stream chunks used here: the members of `UIMessageChunk` (of `ai` 5 and of `ai`
 * 7, which agree on them) that the AI SDK server sends for one tool call the client runs.
 */
export type UiMessageChunk =
  | { type: 'start' }
  | { type: 'start-step' }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'finish-step' }
  | { type: 'finish'; finishReason: 'tool-calls' };

// The chunks must be chunks of both majors (checked by `npm run typecheck`).
type Assignable<T, U> = [T] extends [U] ? true : never;
const chunksOfAi5: Assignable<UiMessageChunk, UIMessageChunk5> = true;
const chunksOfAi7: Assignable<UiMessageChunk, UIMessageChunk7> = true;
void chunksOfAi5;
void chunksOfAi7;

/**
 * The UI message stream chunks the AI SDK server (`toUIMessageStream`) sends for the pipeline
 * benchmark's `write_file` call at about `targetBytes` of JSON: `start`, `start-step`,
 * `tool-input-start`, one `tool-input-delta` per argument delta, `tool-input-available` with the
 * parsed input, `finish-step`, `finish`. A static (not dynamic) tool, run by the client. Pass
 * `call` to reuse one already built ({@link uiWriteFileCall}); the `input` of
 * `tool-input-available` is its own object, not `call.expected`.
 */
export function uiMessageChunks(targetBytes: number, call: UiWriteFileCall = uiWriteFileCall(targetBytes)): UiMessageChunk[] {
  const toolCallId = ANTHROPIC_TOOL_ID;
  const chunks: UiMessageChunk[] = [
    { type: 'start' },
    { type: 'start-step' },
    { type: 'tool-input-start', toolCallId, toolName: TOOL_NAME },
  ];
  for (const delta of call.deltas) chunks.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: delta });
  chunks.push(
    { type: 'tool-input-available', toolCallId, toolName: TOOL_NAME, input: JSON.parse(call.text) as unknown },
    { type: 'finish-step' },
    { type: 'finish', finishReason: 'tool-calls' },
  );
  return chunks;
}

/** The chunks as the transport hands them to `readUIMessageStream`: a pull source, one chunk per pull. */
export function uiMessageChunkStream(chunks: readonly UiMessageChunk[]): ReadableStream<UiMessageChunk> {
  let next = 0;
  return new ReadableStream<UiMessageChunk>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++] as UiMessageChunk);
      else controller.close();
    },
  });
}

/**
 * The UI message stream as an AI SDK server sends it (`createUIMessageStreamResponse`'s
 * `JsonToSseTransformStream`): one SSE event per chunk, `data: <chunk JSON>\n\n`, then
 * `data: [DONE]\n\n`. One string per event (one read each, with `readsOf(…, 'event')`).
 */
export function uiMessageStreamSse(chunks: readonly UiMessageChunk[]): string[] {
  const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  events.push('data: [DONE]\n\n');
  return events;
}

// ---------------------------------------------------------------------------------------------
// The transports

/** The AI SDK's own transport of each major, its `protected processResponseStream` made callable. */
class AiSdkTransport5 extends DefaultChatTransport5<UIMessage5> {
  process(stream: ReadableStream<Uint8Array>): ReadableStream<UiMessageChunk> {
    return this.processResponseStream(stream) as unknown as ReadableStream<UiMessageChunk>;
  }
}
class AiSdkTransport7 extends DefaultChatTransport7<UIMessage7> {
  process(stream: ReadableStream<Uint8Array>): ReadableStream<UiMessageChunk> {
    return this.processResponseStream(stream) as unknown as ReadableStream<UiMessageChunk>;
  }
}
const AI_SDK_TRANSPORTS: Readonly<Record<5 | 7, new () => { process(stream: ReadableStream<Uint8Array>): ReadableStream<UiMessageChunk> }>> = {
  5: AiSdkTransport5,
  7: AiSdkTransport7,
};

/** `ArgstreamChatTransport` as the bench uses it: its `protected processResponseStream` is called by name. */
export type ArgstreamTransportClass = typeof ArgstreamChatTransport;
interface ArgstreamTransportLike {
  processResponseStream(stream: ReadableStream<Uint8Array>): ReadableStream<UiMessageChunk>;
  subscribe(listener: () => void): () => void;
  getSnapshot(): TurnSnapshot;
}

/** The repository's root: the nearest folder up from this module with `src/ai-sdk/chat-transport.ts` (bench/ or the bundle's cache folder). */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'src', 'ai-sdk', 'chat-transport.ts'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('bench/ui.ts: no src/ai-sdk/chat-transport.ts above this module');
    dir = up;
  }
}

const transportClasses = new Map<5 | 7, Promise<ArgstreamTransportClass>>();

/**
 * `ArgstreamChatTransport` built against `ai` of that major. `src/ai-sdk/chat-transport.ts`
 * imports `HttpChatTransport` and `DefaultChatTransport` from `'ai'` (ai 5 at the repository's
 * root): each major gets its own bundle of that module (and of the argstream modules it imports),
 * made here with esbuild as `bench/run.mjs` bundles the benchmark (`target: node20`, packages
 * external), for ai 7 with `alias: { ai: 'ai7' }` — what the tests do with `vi.mock('ai', () =>
 * import('ai7'))`. Both majors are built the same way, so the two rows run the same code apart
 * from the `ai` they extend. The bundle is written next to the benchmark's bundle
 * (`node_modules/.cache/argstream-bench/`), imported, and removed unless the process is profiled
 * (`--cpu-prof`: `bench/profile-summary.mjs` reads a bundle's module comments).
 */
export function loadArgstreamTransport(major: 5 | 7): Promise<ArgstreamTransportClass> {
  let loading = transportClasses.get(major);
  if (loading === undefined) {
    loading = buildArgstreamTransport(major);
    transportClasses.set(major, loading);
  }
  return loading;
}

async function buildArgstreamTransport(major: 5 | 7): Promise<ArgstreamTransportClass> {
  const { build } = await import('esbuild');
  const root = repositoryRoot();
  const dir = join(root, 'node_modules', '.cache', 'argstream-bench');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `chat-transport-ai${major}-${process.pid}.mjs`);
  await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'src', 'ai-sdk', 'chat-transport.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    ...(major === 7 ? { alias: { ai: 'ai7' } } : {}),
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  try {
    const module = (await import(pathToFileURL(outfile).href)) as { ArgstreamChatTransport: ArgstreamTransportClass };
    return module.ArgstreamChatTransport;
  } finally {
    if (!process.execArgv.some((flag) => flag.startsWith('--cpu-prof'))) {
      rmSync(outfile, { force: true });
      rmSync(`${outfile}.map`, { force: true });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The rows

/** What one run of a row gives: the final arguments (when the row has them) and how many renders. */
interface Outcome {
  readonly value: JsonValue | undefined;
  readonly renders: number;
  /** Argstream's transport: the final snapshot's `calls[0].input`, checked too, and its notifications. */
  readonly snapshotValue?: JsonValue;
  readonly notifications?: number;
}

/** The part of a UI message the check reads. */
interface MessageLike {
  readonly parts: readonly { readonly type: string; readonly state?: string; readonly input?: unknown }[];
}

type ReadUIMessageStream = (options: { stream: ReadableStream<UiMessageChunk>; terminateOnError?: boolean }) => AsyncIterable<MessageLike>;
const READERS: Readonly<Record<'ai-sdk/5' | 'ai-sdk/7', ReadUIMessageStream>> = {
  'ai-sdk/5': readUIMessageStream5 as unknown as ReadUIMessageStream,
  'ai-sdk/7': readUIMessageStream7 as unknown as ReadUIMessageStream,
};

/** `readUIMessageStream` over the chunks, every message it yields read; the tool part's final input. */
async function aiSdkRow(read: ReadUIMessageStream, chunks: readonly UiMessageChunk[]): Promise<Outcome> {
  let last: MessageLike | undefined;
  let renders = 0;
  for await (const message of read({ stream: uiMessageChunkStream(chunks), terminateOnError: true })) {
    last = message;
    renders++;
  }
  const part = last?.parts.find((item) => item.type === `tool-${TOOL_NAME}`);
  if (part === undefined) throw new Error(`readUIMessageStream: no tool-${TOOL_NAME} part in the last message`);
  if (part.state !== 'input-available') throw new Error(`readUIMessageStream: the tool part is ${part.state}, not input-available`);
  return { value: part.input as JsonValue, renders };
}

/** The tool part's final input in the last message `readUIMessageStream` yielded. */
function finalInput(what: string, last: MessageLike | undefined): JsonValue {
  const part = last?.parts.find((item) => item.type === `tool-${TOOL_NAME}`);
  if (part === undefined) throw new Error(`${what}: no tool-${TOOL_NAME} part in the last message`);
  if (part.state !== 'input-available') throw new Error(`${what}: the tool part is ${part.state}, not input-available`);
  return part.input as JsonValue;
}

/** The AI SDK's transport: `DefaultChatTransport`'s `processResponseStream(bytes)`, then `readUIMessageStream`, every message read. */
async function aiSdkTransportRow(major: 5 | 7, read: ReadUIMessageStream, reads: readonly Uint8Array[]): Promise<Outcome> {
  const transport = new AI_SDK_TRANSPORTS[major]();
  let last: MessageLike | undefined;
  let renders = 0;
  for await (const message of read({ stream: transport.process(bodyOf(reads)), terminateOnError: true })) {
    last = message;
    renders++;
  }
  return { value: finalInput(`transport/ai-sdk/${major}`, last), renders };
}

/**
 * Argstream's transport: `ArgstreamChatTransport({ schedule: 'sync' })`, a listener reading the
 * snapshot at every notification, `processResponseStream(bytes)`, then `readUIMessageStream` of
 * the same `ai`, every message read. The AI SDK's final input and the final snapshot's.
 */
async function argstreamTransportRow(
  major: 5 | 7,
  Transport: ArgstreamTransportClass,
  read: ReadUIMessageStream,
  reads: readonly Uint8Array[],
): Promise<Outcome> {
  const transport = new Transport({ schedule: 'sync' }) as unknown as ArgstreamTransportLike;
  let notifications = 0;
  let snapshot: TurnSnapshot | undefined;
  const unsubscribe = transport.subscribe(() => {
    snapshot = transport.getSnapshot();
    notifications++;
  });
  let last: MessageLike | undefined;
  let renders = 0;
  for await (const message of read({ stream: transport.processResponseStream(bodyOf(reads)), terminateOnError: true })) {
    last = message;
    renders++;
  }
  unsubscribe();
  const what = `transport/argstream/${major}`;
  if (snapshot === undefined) throw new Error(`${what}: no notification`);
  if (snapshot !== transport.getSnapshot()) throw new Error(`${what}: the last notified snapshot is not the final one`);
  const call = snapshot.calls[0];
  if (call === undefined || call.toolName !== TOOL_NAME) throw new Error(`${what}: no ${TOOL_NAME} call in the final snapshot`);
  if (call.status !== 'complete') throw new Error(`${what}: the snapshot's call is ${call.status}, not complete`);
  return { value: finalInput(what, last), renders, snapshotValue: call.input as JsonValue, notifications };
}

/** The bare decoder into a sink that does nothing (timed), or into one that collects the arguments (the gate). */
async function decoderRow(reads: readonly Uint8Array[], collect: boolean): Promise<Outcome> {
  const events = bodyOf(reads).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));
  if (!collect) {
    await events.pipeTo(
      new WritableStream<StreamEvent>({
        write() {
          /* a UI that renders nothing */
        },
      }),
    );
    return { value: undefined, renders: 0 };
  }
  const parts: string[] = [];
  let renders = 0;
  await events.pipeTo(
    new WritableStream<StreamEvent>({
      write(event) {
        renders++;
        if (event.type === 'part' && event.part.type === 'tool-call-arguments') parts.push(event.part.chunk);
      },
    }),
  );
  return { value: JSON.parse(parts.join('')) as JsonValue, renders };
}

/** The store, a snapshot read at every notification (`sync`: one per change); the final snapshot's call. */
async function storeRow(reads: readonly Uint8Array[]): Promise<Outcome> {
  const turn = new TurnStore({ schedule: 'sync' });
  let renders = 0;
  let snapshot: TurnSnapshot | undefined;
  const unsubscribe = turn.subscribe(() => {
    snapshot = turn.getSnapshot();
    renders++;
  });
  await turn.consume(new Response(bodyOf(reads)), { decoder: new ProviderEventDecoder({ provider: 'anthropic' }) });
  unsubscribe();
  if (snapshot === undefined) throw new Error('TurnStore: no notification');
  if (snapshot !== turn.getSnapshot()) throw new Error('TurnStore: the last notified snapshot is not the final one');
  const call = snapshot.calls[0];
  if (call === undefined || call.toolName !== TOOL_NAME) throw new Error(`TurnStore: no ${TOOL_NAME} call in the final snapshot`);
  if (call.status !== 'complete') throw new Error(`TurnStore: the call is ${call.status}, not complete`);
  return { value: call.input as JsonValue, renders };
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** How one size is timed. */
export interface UiSettings {
  /** Rounds of the argstream rows: at least `minRounds`, at most `maxRounds`, no more once they used `budgetMs`. */
  readonly minRounds: number;
  readonly maxRounds: number;
  readonly budgetMs: number;
  /** An argstream sample is this many runs back to back (after as many untimed runs), its time ÷ this. */
  readonly repeat: number;
  /** Timed runs of each AI SDK row, spread over the first `minRounds` rounds. */
  readonly aiSdkRuns: number;
  /** One untimed run of the AI SDK row before each of its timed runs (not at 200 KB and above: seconds each). */
  readonly aiSdkUntimed: boolean;
}

export const UI_FULL_SMALL: UiSettings = { minRounds: 5, maxRounds: 9, budgetMs: 3_000, repeat: 5, aiSdkRuns: 3, aiSdkUntimed: true };
export const UI_FULL: UiSettings = { minRounds: 3, maxRounds: 7, budgetMs: 3_000, repeat: 1, aiSdkRuns: 1, aiSdkUntimed: false };
export const UI_FULL_LARGE: UiSettings = { minRounds: 5, maxRounds: 9, budgetMs: 8_000, repeat: 1, aiSdkRuns: 1, aiSdkUntimed: false };
export const UI_QUICK_SMALL: UiSettings = { minRounds: 3, maxRounds: 3, budgetMs: 500, repeat: 5, aiSdkRuns: 1, aiSdkUntimed: true };
export const UI_QUICK: UiSettings = { minRounds: 1, maxRounds: 3, budgetMs: 500, repeat: 1, aiSdkRuns: 1, aiSdkUntimed: false };

function uiSettings(bytes: number, quick: boolean): UiSettings {
  if (bytes < 100_000) return quick ? UI_QUICK_SMALL : UI_FULL_SMALL;
  if (quick) return UI_QUICK;
  return bytes > 200_000 ? UI_FULL_LARGE : UI_FULL;
}

/** One cell's result. */
export interface UiTiming {
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
  /** The median wall time of the same samples (with `--cpu-time`, shown beside the CPU time). */
  readonly wallMs: number;
  /** Renders per call (see {@link RENDER_UNITS}); for the decoder, from the gate run. */
  readonly renders: number;
  /** Argstream's transport: the snapshot's notifications per call. */
  readonly notifications?: number;
}

export interface UiResults {
  readonly sizes: readonly number[];
  readonly argumentBytes: Map<number, number>;
  readonly deltas: Map<number, number>;
  /** `<bytes>` → the Anthropic SSE body: its size and reads (one event per read). */
  readonly wire: Map<number, { readonly bytes: number; readonly reads: number }>;
  /** `<bytes>` → the UI message stream's SSE body (the transport rows' input): its size and reads. */
  readonly uiWire: Map<number, { readonly bytes: number; readonly reads: number }>;
  readonly chunks: Map<number, number>;
  readonly timings: Map<string, UiTiming>;
  /** Cells selected but not run, with the reason shown in their place. */
  readonly skipped: Map<string, string>;
  readonly settings: Map<number, UiSettings>;
}

export interface UiOptions {
  readonly quick: boolean;
  /** Run the AI SDK rows at 1 MB too (minutes; only in the full run). */
  readonly aiSdk1mb: boolean;
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  /** Throws (failing the run) when `actual` is not `expected`. */
  readonly check: (what: string, actual: JsonValue, expected: JsonValue) => void;
}

interface UiTask {
  readonly id: string;
  readonly row: UiRowId;
  readonly run: () => Promise<Outcome>;
  /** The gate's run (the decoder's collects the arguments); the timed runs are checked when they give a value. */
  readonly gate: () => Promise<Outcome>;
}

const fullGc: () => void =
  typeof globalThis.gc === 'function'
    ? (globalThis.gc as () => void)
    : () => {
        /* no --expose-gc */
      };

/**
 * Times the cells of one size in interleaved rounds (A B C D, B C D A, …), with no forced GC
 * between samples (one before the rounds), as the pipeline does. The argstream rows run every
 * round, each sample after one untimed sample; each AI SDK row runs `aiSdkRuns` times, spread over
 * the first `minRounds` rounds, so the seconds it takes at 200 KB fall between argstream samples.
 */
async function measureSize(
  tasks: readonly UiTask[],
  expected: JsonValue,
  settings: UiSettings,
  options: UiOptions,
  results: UiResults,
): Promise<void> {
  const isAiSdk = (task: UiTask): boolean => AI_SDK_ROWS.includes(task.row);
  // The gate (and the argstream rows' warm-up): every row must give exactly the generated
  // arguments. The AI SDK rows at 200 KB and above are not run twice: their timed run is checked.
  const renders = new Map<string, number>();
  const notifications = new Map<string, number>();
  const checkOutcome = (what: string, outcome: Outcome): void => {
    if (outcome.value !== undefined) options.check(what, outcome.value, expected);
    if (outcome.snapshotValue !== undefined) options.check(`${what}: getSnapshot().calls[0].input`, outcome.snapshotValue, expected);
  };
  for (const task of tasks) {
    if (isAiSdk(task) && !settings.aiSdkUntimed) continue;
    const outcome = await task.gate();
    if (outcome.value === undefined) throw new Error(`${task.id} (gate): no arguments`);
    checkOutcome(`${task.id} (gate)`, outcome);
    renders.set(task.id, outcome.renders);
    if (outcome.notifications !== undefined) notifications.set(task.id, outcome.notifications);
  }
  const aiSdkRounds = new Set<number>();
  for (let k = 0; k < settings.aiSdkRuns; k++) aiSdkRounds.add(Math.floor(((k + 0.5) * settings.minRounds) / settings.aiSdkRuns));
  const times: number[][] = tasks.map(() => []);
  const walls: number[][] = tasks.map(() => []);
  let spent = 0;
  fullGc();
  for (let round = 0; round < settings.maxRounds && (round < settings.minRounds || spent < settings.budgetMs); round++) {
    for (let k = 0; k < tasks.length; k++) {
      const t = (k + round) % tasks.length;
      const task = tasks[t] as UiTask;
      const aiSdk = isAiSdk(task);
      if (aiSdk && !aiSdkRounds.has(round)) continue;
      const repeat = aiSdk ? 1 : settings.repeat;
      if (!aiSdk || settings.aiSdkUntimed) for (let i = 0; i < repeat; i++) await task.run();
      let outcome: Outcome | undefined;
      const start = clockNow();
      const wallStart = performance.now();
      for (let i = 0; i < repeat; i++) outcome = await task.run();
      const wall = performance.now() - wallStart;
      const elapsed = clockNow() - start;
      (times[t] as number[]).push(elapsed / repeat);
      (walls[t] as number[]).push(wall / repeat);
      if (!aiSdk) spent += elapsed;
      const { renders: count, notifications: notified } = outcome as Outcome;
      checkOutcome(task.id, outcome as Outcome);
      if (!renders.has(task.id) || count > 0) renders.set(task.id, count);
      if (notified !== undefined) notifications.set(task.id, notified);
      if (aiSdk) options.progress(`  ${task.id.padEnd(52)} ${(elapsed / 1000).toFixed(2).padStart(10)} s   (timed run ${(times[t] as number[]).length} of ${settings.aiSdkRuns}, round ${round + 1})`);
    }
  }
  tasks.forEach((task, t) => {
    const series = (times[t] as number[]).sort((a, b) => a - b);
    const medianMs = median(series);
    const wallMs = median((walls[t] as number[]).sort((a, b) => a - b));
    const notified = notifications.get(task.id);
    const timing: UiTiming = {
      medianMs,
      minMs: series[0] as number,
      runs: series.length,
      wallMs,
      renders: renders.get(task.id) ?? 0,
      ...(notified === undefined ? {} : { notifications: notified }),
    };
    results.timings.set(task.id, timing);
    options.progress(`  ${task.id.padEnd(52)} ${medianMs.toFixed(2).padStart(10)} ms  (median of ${series.length})`);
  });
}

/** The median of sorted numbers. */
function median(sorted: readonly number[]): number {
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Runs the UI benchmark (the cells `selected` lets through). */
export async function runUiBench(options: UiOptions): Promise<UiResults> {
  const sizes = options.quick ? UI_BYTES_QUICK : UI_BYTES_FULL;
  const results: UiResults = {
    sizes,
    argumentBytes: new Map(),
    deltas: new Map(),
    wire: new Map(),
    uiWire: new Map(),
    chunks: new Map(),
    timings: new Map(),
    skipped: new Map(),
    settings: new Map(),
  };
  for (const bytes of sizes) {
    const ids = UI_ROWS.map((row) => uiCellId(bytes, row)).filter(options.selected);
    if (ids.length === 0) continue;
    const settings = uiSettings(bytes, options.quick);
    results.settings.set(bytes, settings);
    const call = uiWriteFileCall(bytes);
    const chunks = uiMessageChunks(bytes, call);
    const reads = readsOf(sseEvents('anthropic', call.deltas), 'event');
    const wireBytes = reads.reduce((sum, read) => sum + read.length, 0);
    const uiReads = readsOf(uiMessageStreamSse(chunks), 'event');
    const uiWireBytes = uiReads.reduce((sum, read) => sum + read.length, 0);
    results.argumentBytes.set(bytes, call.bytes);
    results.deltas.set(bytes, call.deltas.length);
    results.wire.set(bytes, { bytes: wireBytes, reads: reads.length });
    results.uiWire.set(bytes, { bytes: uiWireBytes, reads: uiReads.length });
    results.chunks.set(bytes, chunks.length);
    options.progress(
      `ui: one write_file call, ${call.bytes} bytes of arguments in ${call.deltas.length} deltas; ` +
        `${chunks.length} UI message chunks (${uiWireBytes} bytes of SSE in ${uiReads.length} reads); ` +
        `${wireBytes} bytes of Anthropic SSE in ${reads.length} reads`,
    );
    const tasks: UiTask[] = [];
    for (const row of UI_ROWS) {
      const id = uiCellId(bytes, row);
      if (!options.selected(id)) continue;
      if (AI_SDK_ROWS.includes(row) && bytes > 200_000 && !options.aiSdk1mb) {
        results.skipped.set(id, 'not run (takes minutes; `--ai-sdk-1mb`)');
        continue;
      }
      if (row === 'ai-sdk/5' || row === 'ai-sdk/7') {
        const read = READERS[row];
        const run = (): Promise<Outcome> => aiSdkRow(read, chunks);
        tasks.push({ id, row, run, gate: run });
      } else if (row === 'transport/ai-sdk/5' || row === 'transport/ai-sdk/7') {
        const major = majorOf(row);
        const read = READERS[`ai-sdk/${major}`];
        const run = (): Promise<Outcome> => aiSdkTransportRow(major, read, uiReads);
        tasks.push({ id, row, run, gate: run });
      } else if (row === 'transport/argstream/5' || row === 'transport/argstream/7') {
        const major = majorOf(row);
        const read = READERS[`ai-sdk/${major}`];
        const Transport = await loadArgstreamTransport(major);
        const run = (): Promise<Outcome> => argstreamTransportRow(major, Transport, read, uiReads);
        tasks.push({ id, row, run, gate: run });
      } else if (row === 'decoder') {
        tasks.push({ id, row, run: () => decoderRow(reads, false), gate: () => decoderRow(reads, true) });
      } else {
        const run = (): Promise<Outcome> => storeRow(reads);
        tasks.push({ id, row, run, gate: run });
      }
    }
    for (const [id, reason] of results.skipped) if (id.startsWith(`ui/${bytes}/`)) options.progress(`  ${id.padEnd(52)} ${reason}`);
    if (tasks.length > 0) await measureSize(tasks, call.expected, settings, options, results);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// The report

/** A target line of the report's target check, in its format. */
export interface UiTarget {
  readonly label: string;
  readonly measured: number | undefined;
  readonly comparison: '≥' | '≤';
  readonly threshold: number;
}

function formatRatio(value: number | undefined): string {
  if (value === undefined) return '–';
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 10 ? 1 : 2)} ms`;
}

function sizeLabel(bytes: number): string {
  return bytes >= 1_000_000 ? `${bytes / 1_000_000} MB` : `${bytes / 1000} KB`;
}

/** The target check's line for `target`: `- **PASS** label: 1.23× (target ≤ 1.5×)`. */
export function formatUiTarget(target: UiTarget): string {
  const verdict =
    target.measured === undefined
      ? 'n/a (not measured)'
      : (target.comparison === '≥' ? target.measured >= target.threshold : target.measured <= target.threshold)
        ? 'PASS'
        : 'MISS';
  return `- **${verdict}** ${target.label}: ${formatRatio(target.measured)} (target ${target.comparison} ${target.threshold}×)`;
}

/** The UI tables: per size, every row's time and the ratios; then the scaling. Returns the UI targets. */
export function uiSection(ui: UiResults, out: (line?: string) => void): UiTarget[] {
  const targets: UiTarget[] = [];
  const measuredSizes = ui.sizes.filter((bytes) => ui.settings.has(bytes));
  if (measuredSizes.length === 0) return targets;
  const ms = (bytes: number, row: UiRowId): number | undefined => ui.timings.get(uiCellId(bytes, row))?.medianMs;
  const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined || b === undefined ? undefined : a / b;
  const cpu = clockName() === 'cpu';
  const unit = cpu ? 'CPU ms per call' : 'ms per call (wall)';

  out(`### UI: one streaming \`write_file\` call turned into what a UI renders (the client's main thread)`);
  out();
  out(
    `The pipeline's \`write_file\` call (\`{"path", "content"}\`, source code in seeded 10–40-character deltas), as each ` +
      `client receives it: the AI SDK rows get the UI message stream chunks its server sends (\`start\`, \`start-step\`, ` +
      `\`tool-input-start\`, a \`tool-input-delta\` per delta, \`tool-input-available\`, \`finish-step\`, \`finish\`) as a ` +
      `\`ReadableStream\` of objects, read with \`readUIMessageStream\`, every message it yields read (what \`useChat\` ` +
      `does per chunk: \`parsePartialJson\` of the whole input text on every delta, and a copy of the message); ` +
      `argstream's \`decoder\` and \`store\` rows get the Anthropic Messages SSE bytes, one SSE event per read. ` +
      `The transport rows (the second table of each size) get what a \`useChat\` page receives: the UI message stream's ` +
      `SSE bytes as an AI SDK server sends them (\`data: <chunk JSON>\\n\\n\` per chunk, then \`data: [DONE]\`, one SSE ` +
      `event per read), through the AI SDK's \`DefaultChatTransport\` (its SSE parsing and per-chunk schema validation) or ` +
      `argstream's \`ArgstreamChatTransport({ schedule: 'sync' })\` (built against that \`ai\` major, a listener reading ` +
      `\`getSnapshot()\` at every notification), each's \`processResponseStream(bytes)\` then \`readUIMessageStream\` of ` +
      `the same package, every message read: the whole client cost of a \`useChat\` page. ` +
      `${cpu ? 'Times are the **CPU time** of the process (`process.cpuUsage()`, every thread: V8\'s GC helpers too), with the wall time of the same samples beside it.' : 'Times are wall time (`--cpu-time` for CPU time).'} ` +
      `Rows interleaved in rounds, no forced GC between samples; argstream's rows: the median of their rounds, each ` +
      `sample after one untimed sample. The AI SDK rows run fewer times (they take seconds): the number of timed runs ` +
      `is in the table, and a single run is a single run, not a median. Every row's final arguments must equal the ` +
      `generated object: the AI SDK's tool part \`input\` (state \`input-available\`; for argstream's transport also its ` +
      `\`getSnapshot().calls[0].input\`, status \`complete\`), the store's ` +
      `\`calls[0].input\` (status \`complete\`), and for the decoder the argument deltas of a gate run joined and parsed.`,
  );
  out();
  for (const bytes of measuredSizes) {
    const settings = ui.settings.get(bytes) as UiSettings;
    const wire = ui.wire.get(bytes);
    const store = ms(bytes, 'store');
    out(
      `#### ${sizeLabel(bytes)}: ${ui.argumentBytes.get(bytes)} bytes of arguments in ${ui.deltas.get(bytes)} deltas ` +
        `(${ui.chunks.get(bytes)} UI message chunks; ${wire === undefined ? '–' : `${(wire.bytes / 1e6).toFixed(2)} MB of Anthropic SSE in ${wire.reads} reads`})`,
    );
    out();
    out(
      `argstream rows: ${settings.minRounds}–${settings.maxRounds} rounds (no more once they used ${settings.budgetMs / 1000} s)` +
        `${settings.repeat > 1 ? `, a sample is ${settings.repeat} runs back to back, its time ÷ ${settings.repeat}` : ''}; ` +
        `AI SDK rows: ${settings.aiSdkRuns === 1 ? '**a single timed run**' : `${settings.aiSdkRuns} timed runs (the median)`}` +
        `${settings.aiSdkUntimed ? `, ${settings.aiSdkRuns === 1 ? 'after' : 'each after'} one untimed run` : ' (no untimed run: it takes seconds)'}.`,
    );
    out();
    const shown = (row: UiRowId): boolean => ui.timings.has(uiCellId(bytes, row)) || ui.skipped.has(uiCellId(bytes, row));
    const nonTransport = UI_ROWS.filter((row) => !(TRANSPORT_ROWS as readonly UiRowId[]).includes(row));
    if (nonTransport.some(shown)) {
      out(`| row | what runs | ${unit} |${cpu ? ' wall ms per call |' : ''} timed runs | renders per call | ÷ store |`);
      out(`|---|---|--:|${cpu ? '--:|' : ''}--:|--:|--:|`);
    }
    for (const row of nonTransport) {
      const id = uiCellId(bytes, row);
      const timing = ui.timings.get(id);
      const skipped = ui.skipped.get(id);
      if (timing === undefined && skipped === undefined) continue;
      out(
        `| \`${row}\` | ${UI_ROW_LABELS[row]} | ${timing === undefined ? (skipped as string) : formatMs(timing.medianMs)} | ` +
          `${cpu ? `${formatMs(timing?.wallMs)} | ` : ''}` +
          `${timing?.runs ?? '–'} | ${timing === undefined ? '–' : `${timing.renders} ${RENDER_UNITS[row]}`} | ` +
          `${row === 'store' && timing !== undefined ? '1×' : formatRatio(ratio(timing?.medianMs, store))} |`,
      );
    }
    if (nonTransport.some(shown)) out();
    const lines: string[] = [];
    for (const row of READ_ROWS) {
      const value = ratio(ms(bytes, row), store);
      if (value !== undefined) lines.push(`**AI SDK ${row.slice('ai-sdk/'.length)} ÷ store** ${formatRatio(value)}`);
    }
    for (const row of READ_ROWS) {
      const value = ratio(ms(bytes, row), ms(bytes, 'decoder'));
      if (value !== undefined) lines.push(`AI SDK ${row.slice('ai-sdk/'.length)} ÷ decoder ${formatRatio(value)}`);
    }
    const storeOverDecoder = ratio(store, ms(bytes, 'decoder'));
    if (storeOverDecoder !== undefined) lines.push(`**store ÷ decoder** ${formatRatio(storeOverDecoder)}`);
    if (lines.length > 0) {
      out(lines.join('; '));
      out();
    }
    for (const row of READ_ROWS) {
      if (bytes !== AI_SDK_OVER_STORE_AT) continue;
      targets.push({
        label: `ui: AI SDK ${row.slice('ai-sdk/'.length)} (\`readUIMessageStream\`) ÷ argstream \`TurnStore\`, ${sizeLabel(bytes)}`,
        measured: ratio(ms(bytes, row), store),
        comparison: '≥',
        threshold: AI_SDK_OVER_STORE_TARGET,
      });
    }
    if (storeOverDecoder !== undefined || (ui.timings.has(uiCellId(bytes, 'store')) || ui.timings.has(uiCellId(bytes, 'decoder')))) {
      targets.push({
        label: `ui: \`TurnStore\` (sync, a snapshot per notification) ÷ the bare decoder, ${sizeLabel(bytes)}`,
        measured: storeOverDecoder,
        comparison: '≤',
        threshold: STORE_OVER_DECODER_TARGET,
      });
    }

    // The transports: the UI message stream's SSE bytes → the messages useChat renders.
    if (TRANSPORT_ROWS.some(shown)) {
      const uiWire = ui.uiWire.get(bytes);
      out(
        `##### ${sizeLabel(bytes)}, transports: the UI message stream's SSE bytes → \`readUIMessageStream\` ` +
          `(${uiWire === undefined ? '–' : `${(uiWire.bytes / 1e6).toFixed(2)} MB of SSE in ${uiWire.reads} reads`})`,
      );
      out();
      out(`| row | what runs | ${unit} |${cpu ? ' wall ms per call |' : ''} timed runs | renders per call | ÷ argstream's transport (same \`ai\`) |`);
      out(`|---|---|--:|${cpu ? '--:|' : ''}--:|--:|--:|`);
      for (const row of TRANSPORT_ROWS) {
        const id = uiCellId(bytes, row);
        const timing = ui.timings.get(id);
        const skipped = ui.skipped.get(id);
        if (timing === undefined && skipped === undefined) continue;
        const own = ms(bytes, `transport/argstream/${majorOf(row)}`);
        const renders =
          timing === undefined
            ? '–'
            : `${timing.renders} ${RENDER_UNITS[row]}${timing.notifications === undefined ? '' : `, ${timing.notifications} notifications`}`;
        out(
          `| \`${row}\` | ${UI_ROW_LABELS[row]} | ${timing === undefined ? (skipped as string) : formatMs(timing.medianMs)} | ` +
            `${cpu ? `${formatMs(timing?.wallMs)} | ` : ''}` +
            `${timing?.runs ?? '–'} | ${renders} | ` +
            `${row.startsWith('transport/argstream/') && timing !== undefined ? '1×' : formatRatio(ratio(timing?.medianMs, own))} |`,
        );
      }
      out();
      const transportLines: string[] = [];
      for (const row of TRANSPORT_AI_SDK_ROWS) {
        const major = majorOf(row);
        const value = ratio(ms(bytes, row), ms(bytes, `transport/argstream/${major}`));
        if (value !== undefined) transportLines.push(`**AI SDK ${major} transport ÷ argstream transport ${major}** ${formatRatio(value)}`);
      }
      for (const row of TRANSPORT_AI_SDK_ROWS) {
        const major = majorOf(row);
        const value = ratio(ms(bytes, row), ms(bytes, `ai-sdk/${major}`));
        if (value !== undefined) transportLines.push(`AI SDK ${major} transport ÷ its \`readUIMessageStream\` of chunk objects ${formatRatio(value)}`);
      }
      for (const row of TRANSPORT_ARGSTREAM_ROWS) {
        const value = ratio(ms(bytes, row), store);
        if (value !== undefined) transportLines.push(`argstream transport ${majorOf(row)} ÷ store ${formatRatio(value)}`);
      }
      if (transportLines.length > 0) {
        out(transportLines.join('; '));
        out();
      }
      if (bytes === TRANSPORT_RATIO_AT) {
        for (const row of TRANSPORT_AI_SDK_ROWS) {
          const major = majorOf(row);
          targets.push({
            label: `ui: AI SDK ${major} transport (\`DefaultChatTransport\` → \`readUIMessageStream\`) ÷ \`ArgstreamChatTransport\` → \`readUIMessageStream\`, ${sizeLabel(bytes)}`,
            measured: ratio(ms(bytes, row), ms(bytes, `transport/argstream/${major}`)),
            comparison: '≥',
            threshold: TRANSPORT_RATIO_TARGET,
          });
        }
      }
    }
  }

  // Growth with the size: linear is the size ratio; re-parsing per delta is about its square.
  const pairs = measuredSizes.slice(1).map((bytes, i) => [measuredSizes[i] as number, bytes] as const);
  if (pairs.length > 0) {
    out(`#### UI: time growth with the size (linear ≈ the size ratio; re-parsing per delta ≈ its square)`);
    out();
    const sizeRatio = (a: number, b: number): number => (ui.argumentBytes.get(b) ?? b) / (ui.argumentBytes.get(a) ?? a);
    out(`| row | ${pairs.map(([a, b]) => `${sizeLabel(b)} ÷ ${sizeLabel(a)} (bytes ${formatRatio(sizeRatio(a, b))})`).join(' | ')} |`);
    out(`|---|${pairs.map(() => '--:|').join('')}`);
    for (const row of UI_ROWS) {
      const cells = pairs.map(([a, b]) => formatRatio(ratio(ms(b, row), ms(a, row))));
      if (cells.every((cell) => cell === '–')) continue;
      out(`| \`${row}\` | ${cells.join(' | ')} |`);
    }
    out();
  }
  const both = (row: UiRowId): boolean => ui.timings.has(uiCellId(200_000, row)) || ui.timings.has(uiCellId(1_000_000, row));
  if (ui.settings.has(200_000) && ui.settings.has(1_000_000)) {
    if (both('store')) {
      targets.push({
        label: `ui: \`TurnStore\` time for 1 MB ÷ time for 200 KB`,
        measured: ratio(ms(1_000_000, 'store'), ms(200_000, 'store')),
        comparison: '≤',
        threshold: STORE_SCALING_TARGET,
      });
    }
    for (const row of TRANSPORT_ARGSTREAM_ROWS) {
      if (!both(row)) continue;
      targets.push({
        label: `ui: \`ArgstreamChatTransport\` (\`ai\` ${majorOf(row)}) → \`readUIMessageStream\` time for 1 MB ÷ time for 200 KB`,
        measured: ratio(ms(1_000_000, row), ms(200_000, row)),
        comparison: '≤',
        threshold: TRANSPORT_SCALING_TARGET,
      });
    }
  }
  // In the target check: the AI SDK's targets (readUIMessageStream, then the transports), then
  // store ÷ decoder per size, then the scaling.
  const order = (target: UiTarget): number =>
    target.label.startsWith('ui: AI SDK') ? (target.label.includes('transport') ? 1 : 0) : target.label.includes('÷ the bare decoder') ? 2 : 3;
  return targets.sort((a, b) => order(a) - order(b));
}

/**
 * The UI section as printed after the main report (`printReport` in `bench/report.ts` has no
 * place for it): the tables, then the UI targets in the target check's format.
 */
export function printUiReport(ui: UiResults): void {
  const lines: string[] = [];
  const out = (line = ''): void => {
    lines.push(line);
  };
  const targets = uiSection(ui, out);
  if (lines.length === 0) return;
  out(`#### UI target check`);
  out();
  for (const target of targets) out(formatUiTarget(target));
  out();
  process.stdout.write(`\n${lines.join('\n')}`);
}
