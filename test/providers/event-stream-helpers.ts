/**
 * Helpers of the provider tests (`ProviderEventStream`, the adapters, and the tests that replay the
 * provider recordings through later stages):
 * - the recordings: which provider reads each folder, their text, bytes and SDK objects, the ones
 *   that read without an error, and the cuttings they are replayed under;
 * - independent test-side readers of the wire formats (a minimal SSE splitter, an NDJSON reader, an
 *   AWS event-stream frame encoder using node's zlib CRC-32): the oracle, so they never use `src/`'s
 *   decoders;
 * - running chunks through the stream or records through an adapter, catching the error;
 * - assembling events the way a downstream builder would, checking the event protocol on the way.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import type { ProviderName } from '../../src/errors.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import type { ProviderAdapter, ProviderDefinition } from '../../src/providers/adapter.ts';
import { AG_UI_PROVIDER } from '../../src/bindings/ag-ui.ts';
import { GEMINI_INTERACTIONS_PROVIDER } from '../../src/bindings/gemini-interactions.ts';
import { LANGCHAIN_PROVIDER } from '../../src/bindings/langchain.ts';
import type { EventMetadata, FinishedEvent, ProviderToolResultPart, StreamEvent } from '../../src/types.ts';
import { cuttings, randomCuts, readAll, readFixture, rng, settle, streamOf } from '../helpers.ts';
import { readManifest, type ManifestRecording } from '../manifest.ts';

/**
 * What a synchronous `ProviderEventDecoder` is given for `name`: the name, or for a provider at an
 * entry point of its own (which the decoder cannot load by name) its definition from there.
 */
export function decoderProvider(name: ProviderName): ProviderName | ProviderDefinition {
  return name === 'ag-ui' ? AG_UI_PROVIDER : name === 'langchain' ? LANGCHAIN_PROVIDER : name === 'gemini-interactions' ? GEMINI_INTERACTIONS_PROVIDER : name;
}

// ---------------------------------------------------------------------------------------------
// The recordings.

/** The provider API each recording folder of the manifest is read with. */
export const PROVIDER_OF_DIR: Readonly<Record<string, ProviderName>> = {
  anthropic: 'anthropic',
  'openai-chat': 'openai-chat',
  'openai-compatible': 'openai-chat',
  mistral: 'openai-chat',
  'openai-responses': 'openai-responses',
  gemini: 'gemini',
  ollama: 'ollama',
  bedrock: 'bedrock',
  cohere: 'cohere',
  'ag-ui': 'ag-ui',
  // LangChain.js objects, one a line (`.jsonl`), made from six of the recordings above.
  langchain: 'langchain',
  'gemini-interactions': 'gemini-interactions',
};

/** The text of a recording under `fixtures/providers/`. */
export function textOf(file: string): string {
  return new TextDecoder().decode(readFixture(`providers/${file}`));
}

/** The bytes of a recording under `fixtures/providers/`. */
export function bytesOf(file: string): Uint8Array {
  return readFixture(`providers/${file}`);
}

/**
 * The recordings a provider adapter reads without an error in the stream (a `.decoded.jsonl`
 * file is the twin of an `.eventstream` capture).
 */
export function readableRecordings(): ManifestRecording[] {
  return readManifest().filter((r) => PROVIDER_OF_DIR[r.dir] !== undefined && r.errors === undefined && !r.file.endsWith('.decoded.jsonl'));
}

/**
 * What a recording is fed to `ProviderEventStream` as: its bytes, or for a `.jsonl` file its SDK
 * objects (Bedrock's SDK-shaped lines, `{"contentBlockDelta": {...}}`, are what an SDK yields).
 */
export function recordingInput(recording: ManifestRecording): Array<Uint8Array | object> {
  const bytes = bytesOf(recording.file);
  if (!recording.file.endsWith('.jsonl')) return [bytes];
  return ndjsonObjects(new TextDecoder().decode(bytes));
}

/** A recording as `StreamEvent`s: its {@link recordingInput} through `ProviderEventStream`. */
export function recordingEvents(recording: ManifestRecording): ReadableStream<StreamEvent> {
  const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
  return streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider }));
}

/**
 * The decoded objects of a recording, as an official SDK yields them: the parsed `data` of each
 * SSE event (`[DONE]` dropped), each NDJSON line, or `{ <eventType>: payload }` per AWS frame (read
 * from the `.decoded.jsonl` twin of an `.eventstream` capture; a `.jsonl` file is SDK-shaped as is).
 */
export function sdkObjectsOf(file: string): object[] {
  if (file.endsWith('.sse') || file.endsWith('.json')) return sseObjects(textOf(file)) as object[];
  if (file.endsWith('.eventstream') || file.endsWith('.decoded.jsonl')) {
    return decodedFrames(textOf(file.replace(/\.eventstream$/, '.decoded.jsonl'))).map((frame) => ({
      [frame.headers[':event-type'] as string]: frame.payload,
    }));
  }
  return ndjsonObjects(textOf(file));
}

/** The manifest's value for a call's arguments (`''` means `{}`). */
export function expectedArguments(args: string): unknown {
  return args === '' ? {} : JSON.parse(args);
}

/**
 * The expected error of a manifest `Errors in stream` entry: its first `message` and `code`,
 * read from the text (which the manifest may truncate).
 */
export function manifestError(errors: string): { message: string; code?: string; type?: string } {
  try {
    const parsed: unknown = JSON.parse(errors);
    if (Array.isArray(parsed)) {
      const first: unknown = parsed[0];
      if (typeof first === 'string') return { message: first };
      if (typeof first === 'object' && first !== null && 'message' in first) {
        const { message, code, type } = first as { message: string; code?: unknown; type?: unknown };
        return {
          message,
          ...(code === undefined ? {} : { code: String(code) }),
          ...(typeof type === 'string' ? { type } : {}),
        };
      }
    }
  } catch {
    // Truncated: read the fields one by one.
  }
  const message = /"message": "((?:[^"\\]|\\.)*)"/.exec(errors);
  const code = /"code": (?:"((?:[^"\\]|\\.)*)"|(\d+))/.exec(errors);
  const type = /"type": "((?:[^"\\]|\\.)*)"/.exec(errors);
  if (!message?.[1]) throw new Error(`cannot read the manifest error: ${errors.slice(0, 60)}`);
  const result: { message: string; code?: string; type?: string } = { message: JSON.parse(`"${message[1]}"`) as string };
  const codeText = code?.[1] ?? code?.[2];
  if (codeText !== undefined) result.code = codeText;
  if (type?.[1] !== undefined) result.type = JSON.parse(`"${type[1]}"`) as string;
  return result;
}

/**
 * The cuttings a recording is replayed under through `ProviderEventStream`: bytes whole, byte by
 * byte and at random cuts (three seeds), and decoded text at random cuts.
 */
export function streamCuttings(bytes: Uint8Array): Array<[string, Array<string | Uint8Array>]> {
  const text = new TextDecoder().decode(bytes);
  return [
    ...cuttings(bytes, 1).map(([label, chunks]): [string, Array<string | Uint8Array>] => [`bytes ${label}`, chunks]),
    ...[2, 3].map((seed): [string, Array<string | Uint8Array>] => [`bytes random cuts (seed ${seed})`, randomCuts(bytes, rng(seed))]),
    [`text random cuts (seed 4)`, randomCuts(text, rng(4), 16)],
  ];
}

/**
 * Cut `bytes` in the middle of its last line that carries a JSON record (not `data: [DONE]`): the
 * input ends inside the event that would have completed the response.
 */
export function cutInsideLastLine(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  // A line of a JSON array's punctuation only (`]`, `,`) carries no record.
  const lines = [...text.matchAll(/[^\r\n]+/g)].filter((m) => m[0].trim() !== 'data: [DONE]' && /[\w"]/.test(m[0]));
  const last = lines.at(-1);
  if (last?.index === undefined) throw new Error('no line to cut');
  const cut = last.index + Math.floor(last[0].length / 2);
  return new TextEncoder().encode(text.slice(0, cut));
}

// ---------------------------------------------------------------------------------------------
// Test-side readers of the wire formats: the oracle, independent of the library's decoders.

/** One SSE event as a test-side splitter reads it. */
export interface SseRecord {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * A minimal SSE splitter, independent of the library: lines end with CRLF, LF or CR; a blank line
 * ends an event; comments skipped; one leading space of a value stripped.
 */
export function splitSse(text: string): SseRecord[] {
  const out: SseRecord[] = [];
  let event: string | undefined;
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) out.push({ event, data: data.join('\n') });
      event = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  if (data.length > 0) out.push({ event, data: data.join('\n') });
  return out;
}

/**
 * The JSON objects of an SSE recording, as an SDK yields them (`[DONE]` dropped); for Gemini's
 * JSON-array form (text that begins with `[`), the array's elements.
 */
export function sseObjects(text: string): unknown[] {
  if (text.trimStart().startsWith('[')) return JSON.parse(text) as unknown[];
  return splitSse(text)
    .filter((r) => r.data !== '[DONE]')
    .map((r) => JSON.parse(r.data) as unknown);
}

/** One decoded record: the SSE event name (if any) and the parsed `data`. */
export interface WireRecord {
  readonly event?: string;
  readonly data: unknown;
}

/**
 * Split SSE text into records: blank-line separated, any line ending, comments and `[DONE]`
 * skipped; Gemini's JSON-array form (text that begins with `[`) gives one record an element.
 */
export function sseRecords(text: string): WireRecord[] {
  if (text.trimStart().startsWith('[')) return (JSON.parse(text) as unknown[]).map((data) => ({ data }));
  return splitSse(text)
    .filter((r) => r.data !== '[DONE]')
    .map((r) => (r.event === undefined ? { data: JSON.parse(r.data) as unknown } : { event: r.event, data: JSON.parse(r.data) as unknown }));
}

/** The JSON objects of NDJSON text, one a non-blank line. */
export function ndjsonObjects(text: string): object[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as object);
}

/** Split NDJSON text into records. */
export function ndjsonRecords(text: string): WireRecord[] {
  return ndjsonObjects(text).map((data) => ({ data }));
}

/** An AWS event-stream header value for {@link encodeFrame}: strings only (all Bedrock sends). */
export type FrameHeaders = Readonly<Record<string, string>>;

/** Encode one AWS event-stream frame (string headers), with CRCs from node's zlib. */
export function encodeFrame(headers: FrameHeaders, payload: Uint8Array): Uint8Array {
  const encoder = new TextEncoder();
  const headerBytes: number[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = encoder.encode(name);
    const valueBytes = encoder.encode(value);
    headerBytes.push(nameBytes.length, ...nameBytes, 7, valueBytes.length >> 8, valueBytes.length & 0xff, ...valueBytes);
  }
  return frameOf(headerBytes, payload);
}

/** One AWS event-stream frame around already encoded header bytes, with CRCs from node's zlib. */
export function frameOf(headerBytes: readonly number[], payload: Uint8Array): Uint8Array {
  const total = 12 + headerBytes.length + payload.length + 4;
  const frame = new Uint8Array(total);
  const view = new DataView(frame.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headerBytes.length);
  view.setUint32(8, zlibCrc32(frame.subarray(0, 8)));
  frame.set(headerBytes, 12);
  frame.set(payload, 12 + headerBytes.length);
  view.setUint32(total - 4, zlibCrc32(frame.subarray(0, total - 4)));
  return frame;
}

/** An event frame as Bedrock sends it. */
export function eventFrame(eventType: string, payload: unknown): Uint8Array {
  return encodeFrame(
    { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
    new TextEncoder().encode(JSON.stringify(payload)),
  );
}

/** Concatenate byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Read the frames of an AWS event-stream body the simple way (lengths only, no CRC checks): the
 * test-side reference for where frames begin.
 */
export function frameOffsets(body: Uint8Array): number[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const offsets: number[] = [];
  for (let at = 0; at < body.length; at += view.getUint32(at)) offsets.push(at);
  return offsets;
}

/** A `.decoded.jsonl` line of the Bedrock captures. */
export interface DecodedFrame {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: unknown;
}

export function decodedFrames(text: string): DecodedFrame[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as DecodedFrame);
}

// ---------------------------------------------------------------------------------------------
// Running input through the stream or an adapter.

/** The events a stream delivered, and the error it ended with, if any. */
export interface StreamRun {
  readonly events: StreamEvent[];
  readonly error?: unknown;
}

/** Pipe `chunks` through a `ProviderEventStream`, reading every event and catching the error. */
export async function runStream(provider: ProviderName, chunks: readonly ProviderEventStreamInput[]): Promise<StreamRun> {
  const { values: events, error } = await settle(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
  return error === undefined ? { events } : { events, error };
}

/** Like {@link runStream}, for inputs that must not error. */
export async function eventsOf(provider: ProviderName, chunks: readonly ProviderEventStreamInput[]): Promise<StreamEvent[]> {
  return readAll(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
}

/** Push every record, then `end()`; an error from `push` stops the run (as the stream shell does). */
export function runAdapter(adapter: ProviderAdapter, records: readonly WireRecord[]): StreamRun {
  const events: StreamEvent[] = [];
  try {
    for (const record of records) events.push(...adapter.push(record.data, record.event));
  } catch (error) {
    return { events, error };
  }
  events.push(...adapter.end());
  return { events };
}

// ---------------------------------------------------------------------------------------------
// Assembling events, checking the event protocol on the way. Two views: \`assembleEvents\` per slot
// in order of appearance (kinds, both metadata kinds, flush counts), \`assemble\` tool calls and texts
// by slot number (which also refuses a flush of a slot that had no part).

/** One content slot, as assembled from its events. */
export interface Slot {
  readonly index: number;
  /** The part types seen, in order of first appearance. */
  readonly kinds: string[];
  /** First non-empty id / name of the `tool-call-start`s. */
  id: string;
  name: string;
  /** Concatenated `tool-call-arguments` chunks. */
  args: string;
  argumentChunks: number;
  /** Concatenated `message` text. */
  text: string;
  /** Concatenated `reasoning` text. */
  reasoning: string;
  /** Concatenated `refusal` text. */
  refusal: string;
  /** A `tool-call-start` said the provider runs the call. */
  providerExecuted: boolean;
  /** The `provider-tool-result` part of the slot, if any. */
  result: ProviderToolResultPart | undefined;
  /** Metadata of the parts, merged in order. */
  readonly partMetadata: Record<string, unknown>;
  /** Metadata of the flush. */
  flushMetadata: EventMetadata | undefined;
  flushes: number;
}

export interface Assembly {
  /** Slots in order of first appearance (a part or a flush). */
  readonly slots: Slot[];
  /** The calls the application runs. */
  readonly toolCalls: Slot[];
  /** The calls the provider runs (`providerExecuted` on their start). */
  readonly providerToolCalls: Slot[];
  readonly finished: FinishedEvent | undefined;
}

/**
 * Assemble events per slot: id/name first non-empty, arguments and texts concatenated. Throws if
 * the protocol is broken: a part after its slot's flush, a second flush, a second `finished`, an
 * event after `finished`, arguments before any identity, a slot mixing tool call and text.
 */
export function assembleEvents(events: readonly StreamEvent[]): Assembly {
  const slots = new Map<number, Slot>();
  let finished: FinishedEvent | undefined;
  for (const event of events) {
    if (finished !== undefined) throw new Error(`event after finished: ${JSON.stringify(event)}`);
    if (event.type === 'finished') {
      finished = event;
      continue;
    }
    let slot = slots.get(event.index);
    if (slot === undefined) {
      slot = {
        index: event.index,
        kinds: [],
        id: '',
        name: '',
        args: '',
        argumentChunks: 0,
        text: '',
        reasoning: '',
        refusal: '',
        providerExecuted: false,
        result: undefined,
        partMetadata: {},
        flushMetadata: undefined,
        flushes: 0,
      };
      slots.set(event.index, slot);
    }
    if (slot.flushes > 0) throw new Error(`${event.type} for slot ${event.index} after its flush`);
    if (event.type === 'flush') {
      slot.flushes++;
      slot.flushMetadata = event.metadata;
      continue;
    }
    const part = event.part;
    if (!slot.kinds.includes(part.type)) slot.kinds.push(part.type);
    Object.assign(slot.partMetadata, event.metadata);
    switch (part.type) {
      case 'message':
        slot.text += part.text;
        break;
      case 'reasoning':
        slot.reasoning += part.text;
        break;
      case 'refusal':
        slot.refusal += part.text;
        break;
      case 'provider-tool-result':
        if (slot.result !== undefined) throw new Error(`a second result for slot ${event.index}`);
        slot.result = part;
        break;
      case 'structured':
        slot.text += part.json;
        break;
      case 'tool-call-start':
        if (slot.id === '') slot.id = part.toolCallId;
        if (slot.name === '') slot.name = part.toolName;
        if (part.providerExecuted === true) slot.providerExecuted = true;
        break;
      case 'tool-call-arguments':
        if (slot.id === '' && slot.name === '') throw new Error(`arguments for slot ${event.index} before its identity`);
        slot.args += part.chunk;
        slot.argumentChunks++;
        break;
    }
    const tool = slot.kinds.some((k) => k.startsWith('tool-call'));
    const text = slot.kinds.some((k) => k === 'message' || k === 'reasoning' || k === 'refusal');
    if (tool && text) throw new Error(`slot ${event.index} mixes a tool call and text`);
  }
  const ordered = [...slots.values()];
  return {
    slots: ordered,
    toolCalls: ordered.filter((s) => s.kinds.includes('tool-call-start') && !s.providerExecuted),
    providerToolCalls: ordered.filter((s) => s.kinds.includes('tool-call-start') && s.providerExecuted),
    finished,
  };
}

/** Every slot flushed exactly once (what a stream that ended without error guarantees). */
export function unflushedSlots(assembly: Assembly): number[] {
  return assembly.slots.filter((s) => s.flushes !== 1).map((s) => s.index);
}

export interface AssembledToolCall {
  readonly slot: number;
  readonly id: string;
  readonly name: string;
  /** Concatenated argument chunks. */
  readonly args: string;
  readonly chunks: number;
  readonly metadata: Record<string, unknown>;
}

export interface AssembledText {
  readonly slot: number;
  readonly kind: 'message' | 'reasoning' | 'refusal';
  readonly text: string;
  readonly metadata: Record<string, unknown>;
}

export interface Assembled {
  /** The calls the application runs. */
  readonly toolCalls: AssembledToolCall[];
  /** The calls the provider runs (`providerExecuted` on a start part). */
  readonly providerToolCalls: AssembledToolCall[];
  /** The `provider-tool-result` parts, in slot order. */
  readonly providerToolResults: ProviderToolResultPart[];
  readonly texts: AssembledText[];
  readonly finished: FinishedEvent | undefined;
  /** Slots that had parts and no flush. */
  readonly unflushed: number[];
}

interface SlotState {
  kind: 'message' | 'reasoning' | 'refusal' | 'tool-call' | 'provider-tool-result' | undefined;
  providerExecuted: boolean;
  result: ProviderToolResultPart | undefined;
  id: string;
  name: string;
  content: string;
  chunks: number;
  flushed: boolean;
  metadata: Record<string, unknown>;
}

/** Assemble events the way a downstream builder would, checking the event protocol on the way. */
export function assemble(events: readonly StreamEvent[]): Assembled {
  const slots = new Map<number, SlotState>();
  let finished: FinishedEvent | undefined;
  for (const event of events) {
    if (finished) throw new Error(`event after finished: ${JSON.stringify(event)}`);
    if (event.type === 'finished') {
      finished = event;
      continue;
    }
    let slot = slots.get(event.index);
    if (!slot) {
      if (event.type === 'flush') throw new Error(`flush of slot ${event.index}, which had no part`);
      slot = { kind: undefined, providerExecuted: false, result: undefined, id: '', name: '', content: '', chunks: 0, flushed: false, metadata: {} };
      slots.set(event.index, slot);
    }
    if (slot.flushed) throw new Error(`${event.type} for slot ${event.index} after its flush`);
    Object.assign(slot.metadata, event.metadata);
    if (event.type === 'flush') {
      slot.flushed = true;
      continue;
    }
    const part = event.part;
    const kind =
      part.type === 'message' || part.type === 'reasoning' || part.type === 'refusal' || part.type === 'provider-tool-result'
        ? part.type
        : part.type === 'structured'
          ? 'message'
          : 'tool-call';
    if (slot.kind !== undefined && slot.kind !== kind) throw new Error(`slot ${event.index} mixes ${slot.kind} and ${kind}`);
    slot.kind = kind;
    switch (part.type) {
      case 'message':
      case 'reasoning':
      case 'refusal':
        slot.content += part.text;
        break;
      case 'provider-tool-result':
        if (slot.result !== undefined) throw new Error(`a second result for slot ${event.index}`);
        slot.result = part;
        break;
      case 'structured':
        slot.content += part.json;
        break;
      case 'tool-call-start':
        // First non-empty value wins per field (RFD 012).
        if (slot.id === '') slot.id = part.toolCallId;
        if (slot.name === '') slot.name = part.toolName;
        if (part.providerExecuted === true) slot.providerExecuted = true;
        break;
      case 'tool-call-arguments':
        if (slot.id === '' && slot.name === '') throw new Error(`arguments for slot ${event.index} before its tool-call-start`);
        slot.content += part.chunk;
        slot.chunks++;
        break;
    }
  }
  const ordered = [...slots.entries()].sort((a, b) => a[0] - b[0]);
  return {
    toolCalls: ordered
      .filter(([, s]) => s.kind === 'tool-call' && !s.providerExecuted)
      .map(([slot, s]) => ({ slot, id: s.id, name: s.name, args: s.content, chunks: s.chunks, metadata: s.metadata })),
    providerToolCalls: ordered
      .filter(([, s]) => s.kind === 'tool-call' && s.providerExecuted)
      .map(([slot, s]) => ({ slot, id: s.id, name: s.name, args: s.content, chunks: s.chunks, metadata: s.metadata })),
    providerToolResults: ordered.flatMap(([, s]) => (s.result === undefined ? [] : [s.result])),
    texts: ordered
      .filter(([, s]) => s.kind === 'message' || s.kind === 'reasoning' || s.kind === 'refusal')
      .map(([slot, s]) => ({ slot, kind: s.kind as 'message' | 'reasoning' | 'refusal', text: s.content, metadata: s.metadata })),
    finished,
    unflushed: ordered.filter(([, s]) => !s.flushed).map(([slot]) => slot),
  };
}

/** Slot numbers must be assigned in order of first appearance: 0, 1, 2, … */
export function slotsInOrderOfAppearance(events: readonly StreamEvent[]): boolean {
  let next = 0;
  const seen = new Set<number>();
  for (const event of events) {
    if (event.type !== 'part' || seen.has(event.index)) continue;
    if (event.index !== next) return false;
    seen.add(event.index);
    next++;
  }
  return true;
}

/** The content slots that carry tool calls, in the order their flushes arrive (unflushed ones last). */
export function toolSlotsInFlushOrder(events: ReadonlyArray<{ readonly type: string; readonly index?: number; readonly part?: { readonly type: string } }>): number[] {
  const tools = new Set<number>();
  for (const e of events) if (e.type === 'part' && (e.part?.type === 'tool-call-start' || e.part?.type === 'tool-call-arguments')) tools.add(e.index as number);
  const order: number[] = [];
  for (const e of events) if (e.type === 'flush' && tools.has(e.index as number) && !order.includes(e.index as number)) order.push(e.index as number);
  for (const index of tools) if (!order.includes(index)) order.push(index);
  return order;
}
