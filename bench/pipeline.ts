/**
 * The pipeline benchmark: one `write_file` tool call (20 KB, 200 KB and 1 MB of source code as its
 * `content`) streamed the way a provider streams it, as Anthropic Messages SSE and as OpenAI Chat
 * Completions SSE built in memory, fed as network reads (one SSE event per read, or 16 KiB
 * reads) to every way of getting the arguments out:
 *
 * - the no-view limit: `eventsource-parser` on the decoded text, the argument deltas collected,
 *   one `JSON.parse` at the end;
 * - argstream's synchronous cores, no streams (decoder → turn builder, and the view cores);
 * - argstream's streams as the README chains them (`chain(…)` from the body, `fromResponse` with
 *   stages), and, to show what a hop per stage and event costs, plain `pipeThrough` of separate
 *   stages; read with `for await` / `collectTurn`, exactly as a user writes them;
 * - the official SDKs' own (non-partial) paths, `@anthropic-ai/sdk` and `openai`, given the same
 *   reads through a custom `fetch` (no network, no server);
 * - the argument JSON text alone (no provider) through the JSON streams and their cores.
 *
 * Plus the heap cost of one open streaming call. Every path's final arguments must equal the
 * generated object: checked once before timing (not in `--quick`) and on the last timed run.
 *
 * @module
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createParser } from 'eventsource-parser';
import {
  chain,
  ConversationEventStream,
  FieldEventParser,
  FieldEventStream,
  FragmentAggregator,
  FragmentValueStream,
  IncrementalJsonParser,
  IncrementalJsonValueParser,
  JsonFragmentStream,
  JsonValueStream,
  PathUpdateEncoder,
  PathUpdateStream,
  ProviderEventDecoder,
  ProviderEventStream,
  ToolCallProgressStream,
  collectTurn,
  fromResponse,
  type FieldEvent,
  type JsonValue,
  type PathUpdate,
  type StreamEvent,
  type StreamFragment,
} from '../src/index.ts';
// The turn builder core (formerly the internal `EventBuilder` of src/turn/event-builder.ts). It
// is imported here only, so a rename or a move is a one-line change.
import { TurnBuilder } from '../src/index.ts';
import { measureGroup, type MeasureOptions, type Sample, type Task, type Timing } from './measure.ts';
import { makeWorkload } from './workloads.ts';

// ---------------------------------------------------------------------------------------------
// What is measured

export type PipelineProvider = 'anthropic' | 'openai-chat';
export const PIPELINE_PROVIDERS: readonly PipelineProvider[] = ['anthropic', 'openai-chat'];
export const PROVIDER_LABELS: Readonly<Record<PipelineProvider, string>> = {
  anthropic: 'Anthropic Messages SSE',
  'openai-chat': 'OpenAI Chat Completions SSE',
};

/** How the response body's bytes arrive: one SSE event per read (a live stream), or 16 KiB reads. */
export type Feeding = 'event' | '16k';
export const FEEDINGS: readonly Feeding[] = ['event', '16k'];
export const FEEDING_LABELS: Readonly<Record<Feeding, string>> = {
  event: 'one SSE event per read',
  '16k': '16 KiB reads',
};
const READ_BYTES = 16 * 1024;

/** The size of the `write_file` arguments (UTF-8 bytes of JSON text): 20 KB and 200 KB always, 1 MB in the full run. */
export const PIPELINE_BYTES_QUICK = [20_000, 200_000] as const;
export const PIPELINE_BYTES_FULL = [20_000, 200_000, 1_000_000] as const;

/** The paths run on a provider's bytes, in table order. */
export type ProviderPathId =
  | 'limit'
  | 'core-turn'
  | 'body-core-turn'
  | 'hop-core-turn'
  | 'stream-turn'
  | 'pipe-turn'
  | 'collect-turn'
  | 'response-turn'
  | 'response-collect'
  | 'core-fields'
  | 'stream-fields'
  | 'core-paths'
  | 'stream-paths'
  | 'sdk';
export const PROVIDER_PATHS: readonly ProviderPathId[] = [
  'limit',
  'core-turn',
  'body-core-turn',
  'hop-core-turn',
  'stream-turn',
  'pipe-turn',
  'collect-turn',
  'response-turn',
  'response-collect',
  'core-fields',
  'stream-fields',
  'core-paths',
  'stream-paths',
  'sdk',
];

/** The paths run on the argument JSON text alone, in table order. */
export type TextPathId =
  | 'limit'
  | 'core-fields'
  | 'stream-fields'
  | 'core-snapshots'
  | 'hop-core-snapshots'
  | 'stream-snapshots'
  | 'core-values'
  | 'stream-values';
export const TEXT_PATHS: readonly TextPathId[] = [
  'limit',
  'core-fields',
  'stream-fields',
  'core-snapshots',
  'hop-core-snapshots',
  'stream-snapshots',
  'core-values',
  'stream-values',
];

export const PROVIDER_PATH_LABELS: Readonly<Record<ProviderPathId, string>> = {
  limit: 'limit: `eventsource-parser` + argument deltas + one `JSON.parse`',
  'core-turn': 'core: `ProviderEventDecoder` → `TurnBuilder({progress})`',
  'body-core-turn': 'the same core, the reads taken from the body with `for await` (no stage)',
  'hop-core-turn': 'the same core behind one identity `TransformStream` (the runtime\'s floor for any stage)',
  'stream-turn': 'stream (README): body → `chain(ProviderEventStream, ConversationEventStream({progress: true}))`',
  'pipe-turn': 'stream, plain `pipeThrough` of the separate stages `ProviderEventStream` → `ConversationEventStream({progress: true})` (a hop per stage and event)',
  'collect-turn': 'stream: `collectTurn(ProviderEventStream)` (no progress)',
  'response-turn': 'from a `Response` (README): `fromResponse(response, {provider}, ConversationEventStream({progress: true}))` (no stream hop)',
  'response-collect': 'from a `Response`: `collectTurn(fromResponse(…))`',
  'core-fields': 'core: decoder → progress builder → `FieldEventParser` per call',
  'stream-fields': 'stream: `chain(ProviderEventStream, ToolCallProgressStream, FieldEventStream)`',
  'core-paths': 'core: decoder → progress builder → `PathUpdateEncoder` per call',
  'stream-paths': 'stream: `chain(ProviderEventStream, ToolCallProgressStream, PathUpdateStream)`',
  sdk: 'official SDK, non-partial',
};

export const SDK_LABELS: Readonly<Record<PipelineProvider, string>> = {
  anthropic: '`@anthropic-ai/sdk` `messages.stream().finalMessage()`',
  'openai-chat': '`openai` `chat.completions.stream().finalChatCompletion()` + `JSON.parse`',
};

export const TEXT_PATH_LABELS: Readonly<Record<TextPathId, string>> = {
  limit: '`JSON.parse` of the joined text',
  'core-fields': 'core: `IncrementalJsonParser` → `FieldEventParser.pushFragment`',
  'stream-fields': 'stream: `chain(JsonFragmentStream, FieldEventStream)`',
  'core-snapshots': 'core: `IncrementalJsonValueParser` + `snapshot()` per chunk',
  'hop-core-snapshots': 'the same core behind one identity `TransformStream` (the runtime\'s floor for any stage)',
  'stream-snapshots': 'stream: `JsonValueStream({snapshots: true})`',
  'core-values': 'core: `IncrementalJsonParser` → `FragmentAggregator`',
  'stream-values': 'stream: `chain(JsonFragmentStream, FragmentValueStream)`',
};

/** A view measured as a stream and as its cores: the pair of the "stream ÷ core" table. */
export interface View {
  readonly label: string;
  readonly core: string;
  readonly stream: string;
  /** `provider`: measured per provider and feeding; `text`: on the argument text alone. */
  readonly input: 'provider' | 'text';
  /** The core behind one identity `TransformStream`: the least any stream stage costs. */
  readonly hop?: string;
}
export const VIEWS: readonly View[] = [
  { label: 'turn with progress', core: 'core-turn', stream: 'stream-turn', input: 'provider', hop: 'hop-core-turn' },
  { label: 'fields', core: 'core-fields', stream: 'stream-fields', input: 'provider' },
  { label: 'path updates', core: 'core-paths', stream: 'stream-paths', input: 'provider' },
  { label: 'values/snapshots from text', core: 'core-snapshots', stream: 'stream-snapshots', input: 'text', hop: 'hop-core-snapshots' },
  { label: 'fields from text', core: 'core-fields', stream: 'stream-fields', input: 'text' },
  { label: 'fragment values from text', core: 'core-values', stream: 'stream-values', input: 'text' },
];

/** Cell ids: `pipeline/<bytes>/<provider>/<feeding>/<path>`, `pipeline/<bytes>/text/<path>`, `pipeline/memory/<provider>`. */
export function providerCellId(bytes: number, provider: PipelineProvider, feeding: Feeding, path: string): string {
  return `pipeline/${bytes}/${provider}/${feeding}/${path}`;
}
export function textCellId(bytes: number, path: string): string {
  return `pipeline/${bytes}/text/${path}`;
}
export function memoryCellId(provider: PipelineProvider): string {
  return `pipeline/memory/${provider}`;
}

/** The open-call memory test: pipelines kept open at once, argument text fed to each. */
export const OPEN_CALLS = 200;
export const OPEN_CALL_ARGUMENT_CHARS = 2_048;
/** The targets. */
export const STREAM_OVER_CORE_TARGET = 1.3;
export const TURN_OVER_LIMIT_TARGET = 2;
/** The paths of "turn with progress" the README shows, held to {@link TURN_OVER_LIMIT_TARGET} at every size. */
export const README_TURN_PATHS: readonly ProviderPathId[] = ['stream-turn', 'response-turn'];
export const OPEN_CALL_KB_TARGET = 12;

// ---------------------------------------------------------------------------------------------
// Results

export interface WireSize {
  readonly bytes: number;
  readonly reads: number;
}

export interface OpenCallMemory {
  readonly calls: number;
  /** For scale: heapUsed per response body read by the same consumer, with no stage at all. */
  readonly bodyOnlyBytesPerCall: number;
  /** For scale: heapUsed per body piped through one identity `TransformStream`, same consumer. */
  readonly identityBytesPerCall: number;
  /** heapUsed per pipeline fed only the start of the call (no argument text yet). */
  readonly startOnlyBytesPerCall: number;
  /** heapUsed after − before, ÷ calls. */
  readonly grossBytesPerCall: number;
  /** The argument text each call holds (the partial value), in V8's bytes (1 per Latin-1 character, else 2). */
  readonly heldTextBytes: number;
  readonly argumentChars: number;
  /** gross − held. */
  readonly bytesPerCall: number;
}

export interface PipelineResults {
  readonly sizes: readonly number[];
  /** The exact UTF-8 size of the arguments per target size. */
  readonly argumentBytes: Map<number, number>;
  readonly deltas: Map<number, number>;
  /** `<bytes>/<provider>/<feeding>` → the size of the SSE body and the number of reads. */
  readonly wire: Map<string, WireSize>;
  readonly timings: Map<string, Timing>;
  readonly memory: Map<PipelineProvider, OpenCallMemory>;
  /** The settings per argument size. */
  readonly settings: Map<number, PipelineSettings>;
}

export interface PipelineSettings {
  /** Warm-up runs, rounds and budget, as for the other tables (`bench/measure.ts`). */
  readonly measure: MeasureOptions;
  /**
   * Check every path once before timing (to fail fast). The value of the last timed run is
   * checked after timing in any case, so a broken path never gets a time.
   */
  readonly gate: boolean;
  /**
   * Runs per sample, back to back (the time is their total ÷ this), after as many untimed runs.
   * At 20 KB a run takes a millisecond or two: ten runs amortise the young-generation collections
   * that happen to fall in one of them.
   */
  readonly repeat: number;
}

/*
 * The pipeline's samples are not preceded by a full GC (`gcEachSample: false`): the garbage is
 * collected as it comes, as in a server answering calls back to back. A forced full GC before
 * every sample drops V8's optimised code and hidden classes, and one untimed run after it does not
 * get them back: with a GC and two untimed runs before each sample, the decoder → turn builder core
 * of this checkout took 29–33 ms of CPU for a 200 KB call against 21.5 ms with no forced GC, and
 * 19 ms against 2.2 ms for a 20 KB one (the build before issue 19 kept its hidden classes alive
 * through every GC, src/retain.ts, and did not pay it: 21–22 and 6.4 ms). The first run after a
 * full GC is not a target any more (issue 19); the steady state is what is measured.
 */

/** The full run at 20 KB: a run takes about a millisecond, so more rounds for a steady median. */
export const PIPELINE_FULL_SMALL: PipelineSettings = {
  measure: { warmupRuns: 1, maxRuns: 9, minRuns: 5, budgetMs: 3_000, gcEachSample: false },
  gate: true,
  repeat: 10,
};
/** The full run at 200 KB. */
export const PIPELINE_FULL: PipelineSettings = {
  measure: { warmupRuns: 1, maxRuns: 7, minRuns: 3, budgetMs: 3_000, gcEachSample: false },
  gate: true,
  repeat: 1,
};
/** The full run at 1 MB: a run of the slowest paths takes a second or more. */
export const PIPELINE_FULL_LARGE: PipelineSettings = {
  measure: { warmupRuns: 0, maxRuns: 5, minRuns: 2, budgetMs: 3_000, gcEachSample: false },
  gate: true,
  repeat: 1,
};
/**
 * `--quick`: no separate gate or warm-up run (each timed sample follows an untimed one anyway,
 * and the last timed value is checked), and a group stops after ~0.5 s of timed work.
 */
export const PIPELINE_QUICK: PipelineSettings = {
  measure: { warmupRuns: 0, maxRuns: 3, minRuns: 1, budgetMs: 500, gcEachSample: false },
  gate: false,
  repeat: 1,
};
/** `--quick` at 20 KB. */
export const PIPELINE_QUICK_SMALL: PipelineSettings = {
  measure: { warmupRuns: 0, maxRuns: 3, minRuns: 3, budgetMs: 500, gcEachSample: false },
  gate: false,
  repeat: 10,
};

function pipelineSettings(bytes: number, quick: boolean): PipelineSettings {
  if (bytes <= 20_000) return quick ? PIPELINE_QUICK_SMALL : PIPELINE_FULL_SMALL;
  if (quick) return PIPELINE_QUICK;
  return bytes > 200_000 ? PIPELINE_FULL_LARGE : PIPELINE_FULL;
}

export interface PipelineOptions {
  readonly quick: boolean;
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  /** Throws (failing the run) when `actual` is not `expected`. */
  readonly check: (what: string, actual: JsonValue, expected: JsonValue) => void;
}

// ---------------------------------------------------------------------------------------------
// The workload: one write_file call, cut into deltas, framed as each provider frames it

/** mulberry32: the same deltas every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts `text` into 10–40-character deltas (seeded), never between the halves of a surrogate pair. */
export function argumentDeltas(text: string, seed = 0x5eed_0101): string[] {
  const random = prng(seed);
  const deltas: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + 10 + Math.floor(random() * 31), text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    deltas.push(text.slice(start, end));
    start = end;
  }
  return deltas;
}

export const TOOL_NAME = 'write_file';
export const ANTHROPIC_TOOL_ID = 'toolu_01Bq7yVZ3hTgS8c4xRkLmN2p';
const OPENAI_TOOL_ID = 'call_7f3KqP2xWvN8mR4tY6uZ1aBc';

/** The SSE events of an Anthropic Messages stream with one tool_use block. */
function anthropicEvents(deltas: readonly string[], complete = true): string[] {
  const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const events = [
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_01HmXq3vRk8T2bNc5YwPz9Ls',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-5-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 1843,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
          service_tier: 'standard',
        },
      },
    }),
    event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: ANTHROPIC_TOOL_ID, name: TOOL_NAME, input: {} },
    }),
    'event: ping\ndata: {"type": "ping"}\n\n',
    event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } }),
  ];
  for (const delta of deltas) {
    events.push(
      event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: delta } }),
    );
  }
  if (!complete) return events;
  events.push(
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: Math.ceil(deltas.length * 1.1) },
    }),
    event('message_stop', { type: 'message_stop' }),
  );
  return events;
}

/** The SSE events of an OpenAI Chat Completions stream with one tool call (with usage and obfuscation). */
function openaiEvents(deltas: readonly string[], complete = true): string[] {
  const random = prng(0x5eed_0102);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const obfuscation = (): string => {
    let text = '';
    for (let n = 1 + Math.floor(random() * 14); n > 0; n--) text += alphabet[Math.floor(random() * alphabet.length)];
    return text;
  };
  const chunk = (delta: unknown, finishReason: string | null): string =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-CbQx7Tn2VkR9pLm4Wz8Hs3Jd6Fy1A',
      object: 'chat.completion.chunk',
      created: 1767225600,
      model: 'gpt-4.1-2025-04-14',
      service_tier: 'default',
      system_fingerprint: 'fp_b3f1157249',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      usage: null,
      obfuscation: obfuscation(),
    })}\n\n`;
  const events = [
    chunk(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: OPENAI_TOOL_ID, type: 'function', function: { name: TOOL_NAME, arguments: '' } }],
        refusal: null,
      },
      null,
    ),
  ];
  for (const delta of deltas) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: delta } }] }, null));
  if (!complete) return events;
  events.push(
    chunk({}, 'tool_calls'),
    `data: ${JSON.stringify({
      id: 'chatcmpl-CbQx7Tn2VkR9pLm4Wz8Hs3Jd6Fy1A',
      object: 'chat.completion.chunk',
      created: 1767225600,
      model: 'gpt-4.1-2025-04-14',
      service_tier: 'default',
      system_fingerprint: 'fp_b3f1157249',
      choices: [],
      usage: {
        prompt_tokens: 1843,
        completion_tokens: Math.ceil(deltas.length * 1.1),
        total_tokens: 1843 + Math.ceil(deltas.length * 1.1),
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      obfuscation: obfuscation(),
    })}\n\n`,
    'data: [DONE]\n\n',
  );
  return events;
}

export function sseEvents(provider: PipelineProvider, deltas: readonly string[], complete = true): string[] {
  return provider === 'anthropic' ? anthropicEvents(deltas, complete) : openaiEvents(deltas, complete);
}

/** The network reads of a body: one per event, or the concatenated bytes cut every 16 KiB (splitting characters). */
export function readsOf(events: readonly string[], feeding: Feeding): Uint8Array[] {
  const encoder = new TextEncoder();
  if (feeding === 'event') return events.map((event) => encoder.encode(event));
  const all = encoder.encode(events.join(''));
  const reads: Uint8Array[] = [];
  for (let at = 0; at < all.length; at += READ_BYTES) reads.push(all.subarray(at, Math.min(at + READ_BYTES, all.length)));
  return reads;
}

/** A response body: a pull source that hands out one read per pull, as a socket would. */
export function bodyOf(reads: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < reads.length) controller.enqueue(reads[next++] as Uint8Array);
      else controller.close();
    },
  });
}

function textSourceOf(chunks: readonly string[]): ReadableStream<string> {
  let next = 0;
  return new ReadableStream<string>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++] as string);
      else controller.close();
    },
  });
}

// ---------------------------------------------------------------------------------------------
// The cores, as a user drives them without streams

/**
 * `ProviderEventDecoder` is changing from `push(chunk, emit)` / `end(emit)` (events to a
 * callback) to `push(chunk) → StreamEvent[]` / `end() → StreamEvent[]`. This works with either:
 * the callback is passed only to the two-parameter (`push`) / one-parameter (`end`) shape, and a
 * returned array is used unless the callback already received the events.
 */
interface LooseDecoder {
  push(chunk: unknown, emit?: (event: StreamEvent) => void): unknown;
  end(emit?: (event: StreamEvent) => void): unknown;
}

function decoderPush(decoder: LooseDecoder, chunk: Uint8Array, sink: (event: StreamEvent) => void): void {
  let called = false;
  const result =
    decoder.push.length >= 2
      ? decoder.push(chunk, (event) => {
          called = true;
          sink(event);
        })
      : decoder.push(chunk);
  if (!called && Array.isArray(result)) for (const event of result as StreamEvent[]) sink(event);
}

function decoderEnd(decoder: LooseDecoder, sink: (event: StreamEvent) => void): void {
  let called = false;
  const result =
    decoder.end.length >= 1
      ? decoder.end((event) => {
          called = true;
          sink(event);
        })
      : decoder.end();
  if (!called && Array.isArray(result)) for (const event of result as StreamEvent[]) sink(event);
}

/** Every output of the turn builder, loosely: the bench reads `type` and a few fields. */
interface AnyEvent {
  readonly type: string;
}
interface ToolCallLike extends AnyEvent {
  readonly toolName: string;
  readonly arguments: JsonValue;
}
interface ProgressLike extends AnyEvent {
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly fragment: StreamFragment;
}

/**
 * The builder's options, for the EventBuilder that is becoming `TurnBuilder`: `conversation`
 * (the old builder's switch; the new one always builds the turn) and `progress`.
 */
const TURN_OPTIONS = { conversation: true, progress: true };
/** As `ToolCallProgressStream` configures it: progress only (old builder), no message events (new one). */
const PROGRESS_OPTIONS = { conversation: false, progress: true, messages: false };

interface BuilderLike {
  push(event: AnyEvent, out?: AnyEvent[]): AnyEvent[];
  end(out?: AnyEvent[]): AnyEvent[];
}

function newBuilder(options: object): BuilderLike {
  return new TurnBuilder(options as ConstructorParameters<typeof TurnBuilder>[0]) as unknown as BuilderLike;
}

/** Collects what a turn consumer needs: the tool call, and that progress arrived. */
class TurnSink {
  progress = 0;
  call: ToolCallLike | undefined;

  add(event: AnyEvent): void {
    if (event.type === 'tool-call-progress') this.progress++;
    else if (event.type === 'tool-call') this.call = event as ToolCallLike;
  }

  value(progressExpected: boolean): JsonValue {
    if (this.call === undefined) throw new Error('no tool-call event');
    if (this.call.toolName !== TOOL_NAME) throw new Error(`tool-call of ${this.call.toolName}, expected ${TOOL_NAME}`);
    if (progressExpected && this.progress === 0) throw new Error('no tool-call-progress event');
    return this.call.arguments;
  }
}

/** What a field consumer does: each top-level member's value from its field events. */
class FieldSink {
  readonly #result: Record<string, JsonValue> = {};
  #parts: string[] = [];
  #fields = 0;

  add(event: AnyEvent): void {
    switch (event.type) {
      case 'field-start':
        this.#parts = [];
        break;
      case 'field-delta':
        this.#parts.push((event as FieldEvent & { type: 'field-delta' }).text);
        break;
      case 'field-end': {
        const end = event as FieldEvent & { type: 'field-end' };
        const text = this.#parts.join('');
        this.#result[end.key] = end.string ? text : (JSON.parse(text) as JsonValue);
        this.#fields++;
        break;
      }
    }
  }

  value(): JsonValue {
    if (this.#fields === 0) throw new Error('no field-end event');
    return this.#result;
  }
}

/**
 * What a relay's client does: rebuild the value from the path updates (a minimal
 * `ToolCallRebuilder`). A member is placed under the key of the `key` update just before it, so
 * absolute and relative paths (the default) both work.
 */
class PathSink {
  #root: JsonValue | undefined;
  #key = '';
  readonly #open: (Record<string, JsonValue> | JsonValue[])[] = [];
  #parts: string[] = [];
  #complete = false;

  add(event: AnyEvent): void {
    if (event.type !== 'path-update') return;
    const update = event as PathUpdate;
    switch (update.kind) {
      case 'start-object': {
        const object: Record<string, JsonValue> = {};
        this.#place(update.path, object);
        this.#open.push(object);
        break;
      }
      case 'start-array': {
        const array: JsonValue[] = [];
        this.#place(update.path, array);
        this.#open.push(array);
        break;
      }
      case 'end-object':
      case 'end-array':
        this.#open.pop();
        break;
      case 'start-string':
        this.#parts = [];
        break;
      case 'partial-string':
        this.#parts.push(update.textValue);
        break;
      case 'complete-string':
        this.#place(update.path, this.#parts.join(''));
        break;
      case 'complete-number':
      case 'complete-boolean':
      case 'complete-null':
        this.#place(update.path, update.value);
        break;
      case 'json-complete':
        this.#complete = true;
        break;
      case 'key':
        this.#key = update.textValue;
        break;
    }
  }

  #place(path: string, value: JsonValue): void {
    const parent = this.#open[this.#open.length - 1];
    if (parent === undefined) {
      this.#root = value;
      return;
    }
    if (Array.isArray(parent)) parent.push(value);
    else parent[this.#key] = value;
  }

  value(): JsonValue {
    if (!this.#complete || this.#root === undefined) throw new Error('no json-complete update');
    return this.#root;
  }
}

/** Feeds every read to a fresh decoder; `each` gets every `StreamEvent`. */
function decodeAll(provider: PipelineProvider, reads: readonly Uint8Array[], each: (event: StreamEvent) => void): void {
  const decoder = new ProviderEventDecoder({ provider }) as unknown as LooseDecoder;
  for (let i = 0; i < reads.length; i++) decoderPush(decoder, reads[i] as Uint8Array, each);
  decoderEnd(decoder, each);
}

/** Core: decoder → turn builder with progress. */
function coreTurn(provider: PipelineProvider, reads: readonly Uint8Array[]): JsonValue {
  const builder = newBuilder(TURN_OPTIONS);
  const sink = new TurnSink();
  const out: AnyEvent[] = [];
  const drain = (): void => {
    for (let i = 0; i < out.length; i++) sink.add(out[i] as AnyEvent);
    out.length = 0;
  };
  decodeAll(provider, reads, (event) => {
    builder.push(event, out);
    drain();
  });
  builder.end(out);
  drain();
  return sink.value(true);
}

/**
 * Core: decoder → progress builder → one view core per call over the progress fragments, as
 * `FieldEventStream` / `PathUpdateStream` keep them (created at the call's first fragment,
 * released when the document completes or the call ends).
 */
function coreView<C>(
  provider: PipelineProvider,
  reads: readonly Uint8Array[],
  create: () => C,
  push: (core: C, progress: ProgressLike, out: AnyEvent[]) => boolean,
  sink: { add(event: AnyEvent): void },
): void {
  const builder = newBuilder(PROGRESS_OPTIONS);
  const calls = new Map<number, C>();
  const built: AnyEvent[] = [];
  const out: AnyEvent[] = [];
  decodeAll(provider, reads, (event) => {
    builder.push(event, built);
    for (let i = 0; i < built.length; i++) {
      const item = built[i] as AnyEvent;
      if (item.type === 'tool-call-progress') {
        const progress = item as ProgressLike;
        let core = calls.get(progress.index);
        if (core === undefined) {
          core = create();
          calls.set(progress.index, core);
        }
        if (push(core, progress, out)) calls.delete(progress.index);
        for (let j = 0; j < out.length; j++) sink.add(out[j] as AnyEvent);
        out.length = 0;
      } else if (item.type === 'flush' || item.type === 'tool-call') calls.delete((item as ProgressLike).index);
    }
    built.length = 0;
  });
  builder.end(built);
}

function coreFields(provider: PipelineProvider, reads: readonly Uint8Array[]): JsonValue {
  const sink = new FieldSink();
  coreView(
    provider,
    reads,
    () => new FieldEventParser(),
    (parser, progress, out) => {
      const source = parser.source;
      if (source.toolCallId !== progress.toolCallId || source.toolName !== progress.toolName) {
        parser.source = { index: progress.index, toolCallId: progress.toolCallId, toolName: progress.toolName };
      }
      parser.pushFragment(progress.fragment, out as FieldEvent[]);
      return parser.complete;
    },
    sink,
  );
  return sink.value();
}

function corePaths(provider: PipelineProvider, reads: readonly Uint8Array[]): JsonValue {
  const sink = new PathSink();
  coreView(
    provider,
    reads,
    () => new PathUpdateEncoder(),
    (encoder, progress, out) => {
      encoder.push(progress.fragment, out as PathUpdate[], progress);
      return encoder.complete;
    },
    sink,
  );
  return sink.value();
}

/** The no-view limit: SSE parsing, the argument deltas collected, one `JSON.parse`. */
function limit(provider: PipelineProvider, reads: readonly Uint8Array[]): JsonValue {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  const parser = createParser({
    onEvent:
      provider === 'anthropic'
        ? (message) => {
            const record = JSON.parse(message.data) as { type: string; delta?: { type: string; partial_json?: string } };
            if (record.type === 'content_block_delta' && record.delta?.type === 'input_json_delta') {
              parts.push(record.delta.partial_json as string);
            }
          }
        : (message) => {
            if (message.data === '[DONE]') return;
            const record = JSON.parse(message.data) as {
              choices: { delta?: { tool_calls?: { function?: { arguments?: string } }[] } }[];
            };
            const delta = record.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments;
            if (delta !== undefined) parts.push(delta);
          },
  });
  for (let i = 0; i < reads.length; i++) parser.feed(decoder.decode(reads[i], { stream: true }));
  parser.feed(decoder.decode());
  return JSON.parse(parts.join('')) as JsonValue;
}

/**
 * The same core, but the reads come from the response body (`for await` over the
 * `ReadableStream`) instead of an array: the stream paths pay for that read too, so this row
 * tells the cost of reading a body apart from the cost of the stages.
 */
async function bodyCoreTurn(provider: PipelineProvider, reads: readonly Uint8Array[], hop = false): Promise<JsonValue> {
  const decoder = new ProviderEventDecoder({ provider }) as unknown as LooseDecoder;
  const builder = newBuilder(TURN_OPTIONS);
  const sink = new TurnSink();
  const out: AnyEvent[] = [];
  const each = (event: StreamEvent): void => {
    builder.push(event, out);
    for (let i = 0; i < out.length; i++) sink.add(out[i] as AnyEvent);
    out.length = 0;
  };
  const body = hop ? bodyOf(reads).pipeThrough(new TransformStream<Uint8Array, Uint8Array>()) : bodyOf(reads);
  for await (const read of body) decoderPush(decoder, read, each);
  decoderEnd(decoder, each);
  builder.end(out);
  for (let i = 0; i < out.length; i++) sink.add(out[i] as AnyEvent);
  return sink.value(true);
}

// ---------------------------------------------------------------------------------------------
// The streams, as a user writes them

/** As the README chains it: one `TransformStream` for both stages, one hop per read. */
async function streamTurn(provider: PipelineProvider, reads: readonly Uint8Array[]): Promise<JsonValue> {
  const events = bodyOf(reads).pipeThrough(chain(new ProviderEventStream({ provider }), new ConversationEventStream({ progress: true })));
  const sink = new TurnSink();
  for await (const event of events as ReadableStream<AnyEvent>) sink.add(event);
  return sink.value(true);
}

/** Plain `pipeThrough` of separate stages: a standard hop per stage and per event. */
async function pipeTurn(provider: PipelineProvider, reads: readonly Uint8Array[]): Promise<JsonValue> {
  const events = bodyOf(reads)
    .pipeThrough(new ProviderEventStream({ provider }))
    .pipeThrough(new ConversationEventStream({ progress: true }));
  const sink = new TurnSink();
  for await (const event of events as ReadableStream<AnyEvent>) sink.add(event);
  return sink.value(true);
}

async function streamCollectTurn(provider: PipelineProvider, reads: readonly Uint8Array[]): Promise<JsonValue> {
  const turn = await collectTurn(bodyOf(reads).pipeThrough(new ProviderEventStream({ provider })));
  const call = turn.toolCalls[0];
  if (call === undefined || call.toolName !== TOOL_NAME) throw new Error('collectTurn: no write_file call');
  return call.arguments;
}

/** `fromResponse` reads the body itself: the stages given to it run in its read, with no stream hop. */
async function responseTurn(provider: PipelineProvider, reads: readonly Uint8Array[]): Promise<JsonValue> {
  const events = fromResponse(new Response(bodyOf(reads)), { provider }, new ConversationEventStream({ progress: true }));
  const sink = new TurnSink();
  for await (const event of events as ReadableStream<AnyEvent>) sink.add(event);
  return sink.value(true);
}

async function responseCollectTurn(provider: PipelineProvider, reads: readonly Uint8Array[]): Promise<JsonValue> {
  const turn = await collectTurn(fromResponse(new Response(bodyOf(reads)), { provider }));
  const call = turn.toolCalls[0];
  if (call === undefined || call.toolName !== TOOL_NAME) throw new Error('collectTurn(fromResponse): no write_file call');
  return call.arguments;
}

async function streamFields(provider: PipelineProvider, reads: readonly Uint8Array[]): Promise<JsonValue> {
  const events = bodyOf(reads).pipeThrough(chain(new ProviderEventStream({ provider }), new ToolCallProgressStream(), new FieldEventStream()));
  const sink = new FieldSink();
  for await (const event of events as ReadableStream<AnyEvent>) sink.add(event);
  return sink.value();
}

async function streamPaths(provider: PipelineProvider, reads: readonly Uint8Array[]): Promise<JsonValue> {
  const events = bodyOf(reads).pipeThrough(chain(new ProviderEventStream({ provider }), new ToolCallProgressStream(), new PathUpdateStream()));
  const sink = new PathSink();
  for await (const event of events as ReadableStream<AnyEvent>) sink.add(event);
  return sink.value();
}

// ---------------------------------------------------------------------------------------------
// The official SDKs, fed the same reads through a custom fetch

const TOOL_SCHEMA = {
  type: 'object' as const,
  properties: {
    path: { type: 'string', description: 'The path of the file to write, relative to the repository root' },
    content: { type: 'string', description: 'The complete new content of the file' },
  },
  required: ['path', 'content'],
};

function fakeFetch(reads: readonly Uint8Array[]): (input: unknown, init?: unknown) => Promise<Response> {
  return async () =>
    new Response(bodyOf(reads), { status: 200, headers: { 'content-type': 'text/event-stream', 'request-id': 'req_bench' } });
}

function sdkPath(provider: PipelineProvider, reads: readonly Uint8Array[]): () => Promise<JsonValue> {
  if (provider === 'anthropic') {
    const client = new Anthropic({ apiKey: 'bench-no-network', fetch: fakeFetch(reads) as never, maxRetries: 0 });
    return async () => {
      const message = await client.messages
        .stream({
          model: 'claude-sonnet-5-5',
          max_tokens: 64_000,
          tools: [{ name: TOOL_NAME, description: 'Write a file', input_schema: TOOL_SCHEMA }],
          messages: [{ role: 'user', content: 'Write src/services/session-store.ts' }],
        })
        .finalMessage();
      const block = message.content.find((item) => item.type === 'tool_use');
      if (block === undefined || block.type !== 'tool_use' || block.name !== TOOL_NAME) throw new Error('SDK: no tool_use block');
      return block.input as JsonValue;
    };
  }
  const client = new OpenAI({ apiKey: 'bench-no-network', fetch: fakeFetch(reads) as never, maxRetries: 0 });
  return async () => {
    const completion = await client.chat.completions
      .stream({
        model: 'gpt-4.1-2025-04-14',
        tools: [{ type: 'function', function: { name: TOOL_NAME, description: 'Write a file', parameters: TOOL_SCHEMA } }],
        messages: [{ role: 'user', content: 'Write src/services/session-store.ts' }],
      })
      .finalChatCompletion();
    const call = completion.choices[0]?.message.tool_calls?.[0];
    if (call === undefined || call.type !== 'function' || call.function.name !== TOOL_NAME) throw new Error('SDK: no function tool call');
    return JSON.parse(call.function.arguments) as JsonValue;
  };
}

// ---------------------------------------------------------------------------------------------
// The argument text alone

function textLimit(chunks: readonly string[]): JsonValue {
  return JSON.parse(chunks.join('')) as JsonValue;
}

function coreTextFields(chunks: readonly string[]): JsonValue {
  const parser = new IncrementalJsonParser();
  const fields = new FieldEventParser();
  const sink = new FieldSink();
  const out: FieldEvent[] = [];
  const take = (fragments: StreamFragment[]): void => {
    for (let i = 0; i < fragments.length; i++) fields.pushFragment(fragments[i] as StreamFragment, out);
    for (let i = 0; i < out.length; i++) sink.add(out[i] as FieldEvent);
    out.length = 0;
  };
  for (let i = 0; i < chunks.length; i++) take(parser.push(chunks[i] as string));
  take(parser.end());
  return sink.value();
}

async function streamTextFields(chunks: readonly string[]): Promise<JsonValue> {
  const events = textSourceOf(chunks).pipeThrough(chain(new JsonFragmentStream(), new FieldEventStream()));
  const sink = new FieldSink();
  for await (const event of events as ReadableStream<AnyEvent>) sink.add(event);
  return sink.value();
}

function coreTextSnapshots(chunks: readonly string[]): JsonValue {
  const parser = new IncrementalJsonValueParser();
  let snapshots = 0;
  for (let i = 0; i < chunks.length; i++) {
    parser.push(chunks[i] as string);
    if (parser.snapshot() !== undefined) snapshots++;
  }
  const value = parser.end();
  if (snapshots === 0) throw new Error('no snapshot');
  return value;
}

/** The core fed through one identity `TransformStream`: what any stage costs at least. */
async function hopCoreTextSnapshots(chunks: readonly string[]): Promise<JsonValue> {
  const parser = new IncrementalJsonValueParser();
  let snapshots = 0;
  for await (const chunk of textSourceOf(chunks).pipeThrough(new TransformStream<string, string>())) {
    parser.push(chunk);
    if (parser.snapshot() !== undefined) snapshots++;
  }
  const value = parser.end();
  if (snapshots === 0) throw new Error('no snapshot');
  return value;
}

async function streamTextSnapshots(chunks: readonly string[]): Promise<JsonValue> {
  let snapshots = 0;
  let final: JsonValue | undefined;
  for await (const { value, complete } of textSourceOf(chunks).pipeThrough(new JsonValueStream({ snapshots: true }))) {
    if (complete) final = value;
    else snapshots++;
  }
  if (snapshots === 0 || final === undefined) throw new Error('JsonValueStream: no snapshot or no final value');
  return final;
}

function coreTextValues(chunks: readonly string[]): JsonValue {
  const parser = new IncrementalJsonParser();
  const aggregator = new FragmentAggregator();
  let root: JsonValue | undefined;
  const take = (fragments: StreamFragment[]): void => {
    for (let i = 0; i < fragments.length; i++) {
      const value = aggregator.push(fragments[i] as StreamFragment);
      if (value !== undefined) root = value;
    }
  };
  for (let i = 0; i < chunks.length; i++) take(parser.push(chunks[i] as string));
  take(parser.end());
  if (root === undefined) throw new Error('FragmentAggregator produced no root value');
  return root;
}

async function streamTextValues(chunks: readonly string[]): Promise<JsonValue> {
  let final: JsonValue | undefined;
  for await (const { value, complete } of textSourceOf(chunks).pipeThrough(chain(new JsonFragmentStream(), new FragmentValueStream()))) {
    if (complete) final = value;
  }
  if (final === undefined) throw new Error('FragmentValueStream: no final value');
  return final;
}

// ---------------------------------------------------------------------------------------------
// Measuring

const fullGc: () => void =
  typeof globalThis.gc === 'function'
    ? (globalThis.gc as () => void)
    : () => {
        /* no --expose-gc */
      };

interface Cell {
  readonly id: string;
  readonly task: Task;
}

/** Gate, time (`measureGroup`: interleaved rounds, a full GC and one run before each timed run), check again; stores the timings. */
async function measureCells(
  cells: readonly Cell[],
  expected: JsonValue,
  options: PipelineOptions,
  settings: PipelineSettings,
  results: PipelineResults,
): Promise<void> {
  const chosen = cells.filter((cell) => options.selected(cell.id));
  if (chosen.length === 0) return;
  // The gate: every path must produce exactly the generated arguments before it is timed.
  if (settings.gate) for (const cell of chosen) options.check(cell.id, await cell.task.work(), expected);
  const samples = await measureGroup(
    chosen.map((cell) => repeated(cell.task, settings.repeat)),
    settings.measure,
  );
  chosen.forEach((cell, index) => {
    const { value, medianMs, minMs, runs } = samples[index] as Sample;
    options.check(cell.id, value, expected);
    // Keep the times only (per run): retained values would make every later GC slower.
    const timing: Timing = { medianMs: medianMs / settings.repeat, minMs: minMs / settings.repeat, runs };
    results.timings.set(cell.id, timing);
    options.progress(`  ${cell.id.padEnd(52)} ${timing.medianMs.toFixed(2).padStart(10)} ms  (median of ${timing.runs})`);
  });
}

/** `task` run `times` times back to back; the value is the last run's. */
function repeated(task: Task, times: number): Task {
  if (times === 1) return task;
  if (task.isAsync) {
    return {
      isAsync: true,
      work: async () => {
        let value = await task.work();
        for (let i = 1; i < times; i++) value = await task.work();
        return value;
      },
    };
  }
  return {
    isAsync: false,
    work: () => {
      let value = task.work();
      for (let i = 1; i < times; i++) value = task.work();
      return value;
    },
  };
}

function providerCells(bytes: number, provider: PipelineProvider, feeding: Feeding, reads: readonly Uint8Array[]): Cell[] {
  const sync = (work: () => JsonValue): Task => ({ work, isAsync: false });
  const async = (work: () => Promise<JsonValue>): Task => ({ work, isAsync: true });
  const tasks: Record<ProviderPathId, Task> = {
    limit: sync(() => limit(provider, reads)),
    'core-turn': sync(() => coreTurn(provider, reads)),
    'body-core-turn': async(() => bodyCoreTurn(provider, reads)),
    'hop-core-turn': async(() => bodyCoreTurn(provider, reads, true)),
    'stream-turn': async(() => streamTurn(provider, reads)),
    'pipe-turn': async(() => pipeTurn(provider, reads)),
    'collect-turn': async(() => streamCollectTurn(provider, reads)),
    'response-turn': async(() => responseTurn(provider, reads)),
    'response-collect': async(() => responseCollectTurn(provider, reads)),
    'core-fields': sync(() => coreFields(provider, reads)),
    'stream-fields': async(() => streamFields(provider, reads)),
    'core-paths': sync(() => corePaths(provider, reads)),
    'stream-paths': async(() => streamPaths(provider, reads)),
    sdk: async(sdkPath(provider, reads)),
  };
  return PROVIDER_PATHS.map((path) => ({ id: providerCellId(bytes, provider, feeding, path), task: tasks[path] }));
}

function textCells(bytes: number, chunks: readonly string[]): Cell[] {
  const tasks: Record<TextPathId, Task> = {
    limit: { work: () => textLimit(chunks), isAsync: false },
    'core-fields': { work: () => coreTextFields(chunks), isAsync: false },
    'stream-fields': { work: () => streamTextFields(chunks), isAsync: true },
    'core-snapshots': { work: () => coreTextSnapshots(chunks), isAsync: false },
    'hop-core-snapshots': { work: () => hopCoreTextSnapshots(chunks), isAsync: true },
    'stream-snapshots': { work: () => streamTextSnapshots(chunks), isAsync: true },
    'core-values': { work: () => coreTextValues(chunks), isAsync: false },
    'stream-values': { work: () => streamTextValues(chunks), isAsync: true },
  };
  return TEXT_PATHS.map((path) => ({ id: textCellId(bytes, path), task: tasks[path] }));
}

/** V8 keeps a string in one byte per character when every character is Latin-1, else two. */
function v8StringBytes(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return text.length * 2;
  return text.length;
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The heap held by `OPEN_CALLS` independent open pipelines (`ProviderEventStream` →
 * `ConversationEventStream({progress: true})`), each given `reads` (one SSE event per read) and
 * read by a consumer that drops what it reads; nothing is ended, so everything stays open. The
 * reads are shared and made before the baseline, so only what the pipelines hold is counted.
 * Returns heapUsed after − before, ÷ `OPEN_CALLS`.
 */
async function openPipelinesHeap(
  provider: PipelineProvider | 'body-only' | 'identity',
  reads: readonly Uint8Array[],
  progressExpected: boolean,
): Promise<number> {
  const open = (): { cancel: () => Promise<void>; progress: () => number } => {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // The reads so far; then the call stays open (the pull promise never settles: no more data yet).
        if (next < reads.length) controller.enqueue(reads[next++] as Uint8Array);
        else return new Promise<void>(() => undefined);
        return undefined;
      },
    });
    // For scale: the body read directly, and the body through one identity TransformStream.
    const events = (
      provider === 'body-only'
        ? body
        : provider === 'identity'
          ? body.pipeThrough(new TransformStream<Uint8Array, AnyEvent>())
          : body.pipeThrough(chain(new ProviderEventStream({ provider }), new ConversationEventStream({ progress: true })))
    ) as ReadableStream<AnyEvent>;
    const reader = events.getReader();
    let progress = 0;
    const consume = async (): Promise<void> => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value.type === 'tool-call-progress') progress++;
      }
    };
    const consuming = consume().catch(() => undefined);
    return {
      cancel: async () => {
        await reader.cancel();
        await consuming;
      },
      progress: () => progress,
    };
  };

  fullGc();
  fullGc();
  const before = process.memoryUsage().heapUsed;
  const pipelines: ReturnType<typeof open>[] = [];
  for (let i = 0; i < OPEN_CALLS; i++) pipelines.push(open());
  // Everything in flight is microtasks: one macrotask turn later, every read has been processed.
  for (let i = 0; i < 5; i++) await settle();
  fullGc();
  fullGc();
  const after = process.memoryUsage().heapUsed;
  // The references stay alive until here. Everything fed must have been parsed: every pipeline
  // made the same progress (and some, when argument text was fed).
  const counts = pipelines.map((pipeline) => pipeline.progress());
  const first = counts[0] ?? 0;
  if ((progressExpected && first === 0) || counts.some((count) => count !== first)) {
    throw new Error(`open-call memory: the pipelines did not all parse what they were fed (${counts.slice(0, 5).join(', ')}, …)`);
  }
  for (const pipeline of pipelines) await pipeline.cancel();
  return (after - before) / OPEN_CALLS;
}

/**
 * The heap cost of one open streaming call: pipelines fed the start of a call and ~2 KB of
 * argument text, minus the text a call must hold; and, for scale, pipelines fed only the start.
 */
async function openCallMemory(provider: PipelineProvider, argumentText: string): Promise<OpenCallMemory> {
  const deltas = argumentDeltas(argumentText.slice(0, OPEN_CALL_ARGUMENT_CHARS));
  const fed = deltas.join('');
  const startReads = readsOf(sseEvents(provider, [], false), 'event');
  const bodyOnly = await openPipelinesHeap('body-only', startReads, false);
  const identity = await openPipelinesHeap('identity', startReads, false);
  const startOnly = await openPipelinesHeap(provider, startReads, false);
  const grossBytesPerCall = await openPipelinesHeap(provider, readsOf(sseEvents(provider, deltas, false), 'event'), true);
  const heldTextBytes = v8StringBytes(fed);
  return {
    calls: OPEN_CALLS,
    bodyOnlyBytesPerCall: bodyOnly,
    identityBytesPerCall: identity,
    startOnlyBytesPerCall: startOnly,
    grossBytesPerCall,
    heldTextBytes,
    argumentChars: fed.length,
    bytesPerCall: grossBytesPerCall - heldTextBytes,
  };
}

/** Runs the whole pipeline benchmark (the cells `selected` lets through). */
export async function runPipelineBench(options: PipelineOptions): Promise<PipelineResults> {
  const sizes = options.quick ? PIPELINE_BYTES_QUICK : PIPELINE_BYTES_FULL;
  const results: PipelineResults = {
    sizes,
    argumentBytes: new Map(),
    deltas: new Map(),
    wire: new Map(),
    timings: new Map(),
    memory: new Map(),
    settings: new Map(),
  };
  for (const bytes of sizes) {
    const settings = pipelineSettings(bytes, options.quick);
    results.settings.set(bytes, settings);
    const ids = [
      ...PIPELINE_PROVIDERS.flatMap((provider) =>
        FEEDINGS.flatMap((feeding) => PROVIDER_PATHS.map((path) => providerCellId(bytes, provider, feeding, path))),
      ),
      ...TEXT_PATHS.map((path) => textCellId(bytes, path)),
    ];
    if (!ids.some(options.selected)) continue;
    const workload = makeWorkload('long-string', bytes);
    const expected = JSON.parse(workload.text) as JsonValue;
    const deltas = argumentDeltas(workload.text);
    results.argumentBytes.set(bytes, workload.bytes);
    results.deltas.set(bytes, deltas.length);
    options.progress(`pipeline: one write_file call, ${workload.bytes} bytes of arguments in ${deltas.length} deltas of 10–40 characters`);
    for (const provider of PIPELINE_PROVIDERS) {
      const events = sseEvents(provider, deltas);
      for (const feeding of FEEDINGS) {
        const reads = readsOf(events, feeding);
        const wireBytes = reads.reduce((sum, read) => sum + read.length, 0);
        results.wire.set(`${bytes}/${provider}/${feeding}`, { bytes: wireBytes, reads: reads.length });
        options.progress(`${provider}, ${FEEDING_LABELS[feeding]}: ${wireBytes} bytes of SSE in ${reads.length} reads`);
        await measureCells(providerCells(bytes, provider, feeding, reads), expected, options, settings, results);
      }
    }
    options.progress(`argument text alone in the same ${deltas.length} chunks`);
    await measureCells(textCells(bytes, deltas), expected, options, settings, results);
  }
  for (const provider of PIPELINE_PROVIDERS) {
    if (!options.selected(memoryCellId(provider))) continue;
    const memory = await openCallMemory(provider, makeWorkload('long-string', 10_000).text);
    results.memory.set(provider, memory);
    options.progress(
      `  ${memoryCellId(provider).padEnd(52)} ${(memory.bytesPerCall / 1024).toFixed(2).padStart(10)} KB per open call ` +
        `(${(memory.grossBytesPerCall / 1024).toFixed(2)} KB gross − ${(memory.heldTextBytes / 1024).toFixed(2)} KB argument text)`,
    );
  }
  return results;
}
