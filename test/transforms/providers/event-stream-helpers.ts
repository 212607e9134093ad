/**
 * Helpers of the `ProviderEventStream` tests: run chunks through the stream, assemble the events
 * the way a downstream builder would (checking the event protocol on the way), and independent
 * test-side decoders of the wire formats (a minimal SSE splitter, an AWS event-stream frame
 * encoder using node's zlib CRC-32) to build SDK-style objects and malformed inputs.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import type { ProviderName } from '../../../src/errors.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../../src/transforms/provider-event-stream.ts';
import type { EventMetadata, FinishedEvent, StreamEvent } from '../../../src/types.ts';
import { readAll, readFixture, streamOf } from '../../helpers.ts';

/** The events a stream delivered, and the error it ended with, if any. */
export interface StreamRun {
  readonly events: StreamEvent[];
  readonly error?: unknown;
}

/** Pipe `chunks` through a `ProviderEventStream`, reading every event and catching the error. */
export async function runStream(provider: ProviderName, chunks: readonly ProviderEventStreamInput[]): Promise<StreamRun> {
  const events: StreamEvent[] = [];
  const reader = streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { events };
      events.push(value);
    }
  } catch (error) {
    return { events, error };
  }
}

/** Like {@link runStream}, for inputs that must not error. */
export async function eventsOf(provider: ProviderName, chunks: readonly ProviderEventStreamInput[]): Promise<StreamEvent[]> {
  return readAll(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
}

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
  /** Metadata of the parts, merged in order. */
  readonly partMetadata: Record<string, unknown>;
  /** Metadata of the flush. */
  flushMetadata: EventMetadata | undefined;
  flushes: number;
}

export interface Assembly {
  /** Slots in order of first appearance (a part or a flush). */
  readonly slots: Slot[];
  readonly toolCalls: Slot[];
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
      case 'structured':
        slot.text += part.json;
        break;
      case 'tool-call-start':
        if (slot.id === '') slot.id = part.id;
        if (slot.name === '') slot.name = part.name;
        break;
      case 'tool-call-arguments':
        if (slot.id === '' && slot.name === '') throw new Error(`arguments for slot ${event.index} before its identity`);
        slot.args += part.chunk;
        slot.argumentChunks++;
        break;
    }
    const tool = slot.kinds.some((k) => k.startsWith('tool-call'));
    const text = slot.kinds.some((k) => k === 'message' || k === 'reasoning');
    if (tool && text) throw new Error(`slot ${event.index} mixes a tool call and text`);
  }
  const ordered = [...slots.values()];
  return {
    slots: ordered,
    toolCalls: ordered.filter((s) => s.kinds.includes('tool-call-start')),
    finished,
  };
}

/** Every slot flushed exactly once (what a stream that ended without error guarantees). */
export function unflushedSlots(assembly: Assembly): number[] {
  return assembly.slots.filter((s) => s.flushes !== 1).map((s) => s.index);
}

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

/** The JSON objects of an SSE recording, as an SDK yields them (`[DONE]` dropped). */
export function sseObjects(text: string): unknown[] {
  return splitSse(text)
    .filter((r) => r.data !== '[DONE]')
    .map((r) => JSON.parse(r.data) as unknown);
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

/** The provider API each recording folder of the manifest is read with (`cohere/` has none). */
export const PROVIDER_OF_DIR: Readonly<Record<string, ProviderName>> = {
  anthropic: 'anthropic',
  'openai-chat': 'openai-chat',
  'openai-compatible': 'openai-chat',
  mistral: 'openai-chat',
  'openai-responses': 'openai-responses',
  gemini: 'gemini',
  ollama: 'ollama',
  bedrock: 'bedrock',
};

/**
 * The decoded objects of a recording, as an official SDK yields them: the parsed `data` of each
 * SSE event (`[DONE]` dropped), each NDJSON line, or `{ <eventType>: payload }` per AWS frame (read
 * from the `.decoded.jsonl` twin of an `.eventstream` capture; a `.jsonl` file is SDK-shaped as is).
 */
export function sdkObjectsOf(file: string): object[] {
  const text = (name: string): string => new TextDecoder().decode(readFixture(`providers/${name}`));
  if (file.endsWith('.sse')) return sseObjects(text(file)) as object[];
  if (file.endsWith('.eventstream') || file.endsWith('.decoded.jsonl')) {
    return decodedFrames(text(file.replace(/\.eventstream$/, '.decoded.jsonl'))).map((frame) => ({
      [frame.headers[':event-type'] as string]: frame.payload,
    }));
  }
  return text(file)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as object);
}
