/**
 * What the store tests share: the recordings, and each form in which a page or a script may hand
 * a `TurnStore` a recording (the output of every stage, and relays of them).
 */
import {
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  NdjsonDecoder,
  NdjsonEncoder,
  PathUpdateStream,
  ProviderEventStream,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  type PipelineEvent,
  type ProviderName,
  type StreamEvent,
} from '../../src/index.ts';
import { streamOf } from '../helpers.ts';
import { readManifest, type ManifestRecording } from '../manifest.ts';
import { PROVIDER_OF_DIR, readableRecordings, recordingInput } from '../providers/event-stream-helpers.ts';

/** The recordings a provider adapter reads without an error in the stream. */
export const RECORDINGS = readableRecordings();

/** Every recording a provider adapter reads, those whose stream carries an error too. */
export const ALL_RECORDINGS = readManifest().filter((r) => PROVIDER_OF_DIR[r.dir] !== undefined && !r.file.endsWith('.decoded.jsonl'));

export function providerOf(recording: ManifestRecording): ProviderName {
  return PROVIDER_OF_DIR[recording.dir] as ProviderName;
}

/** A recording's provider events, from its input as `recordingInput` gives it (or from `input`). */
export function events(recording: ManifestRecording, input: ReadonlyArray<Uint8Array | object> = recordingInput(recording)): ReadableStream<StreamEvent> {
  return streamOf(input).pipeThrough(new ProviderEventStream({ provider: providerOf(recording) }));
}

/** The relay: SSE bytes and back, as a page gets them. */
export function relayed<T>(stream: ReadableStream<T>): ReadableStream<PipelineEvent> {
  return stream
    .pipeThrough(new EventStreamEncoder() as unknown as TransformStream<T, Uint8Array>)
    .pipeThrough(new EventStreamDecoder() as unknown as TransformStream<Uint8Array, PipelineEvent>);
}

/** The NDJSON relay and back. */
export function relayedNdjson<T>(stream: ReadableStream<T>): ReadableStream<PipelineEvent> {
  return stream
    .pipeThrough(new NdjsonEncoder() as unknown as TransformStream<T, Uint8Array>)
    .pipeThrough(new NdjsonDecoder() as unknown as TransformStream<Uint8Array, PipelineEvent>);
}

/** The stages after `ProviderEventStream` a store may be given the output of, by name. */
export const STAGES: Readonly<Record<string, (events: ReadableStream<StreamEvent>) => ReadableStream<unknown>>> = {
  'provider events': (e) => e,
  'progress events': (e) => e.pipeThrough(new ToolCallProgressStream()),
  'conversation events with progress': (e) => e.pipeThrough(new ConversationEventStream({ progress: true })),
  'conversation events': (e) => e.pipeThrough(new ConversationEventStream()),
  'field events (keepProgress: false)': (e) => e.pipeThrough(new FieldEventStream({ keepProgress: false })),
  'path updates (keepProgress: false)': (e) => e.pipeThrough(new PathUpdateStream({ keepProgress: false })),
  'raw argument deltas': (e) => e.pipeThrough(new ToolCallDeltaStream()),
  'relayed field events': (e) => relayed(e.pipeThrough(new FieldEventStream({ keepProgress: false }))),
  'relayed path updates': (e) => relayed(e.pipeThrough(new PathUpdateStream({ keepProgress: false }))),
  'relayed provider events (NDJSON)': (e) => relayedNdjson(e),
};

/** Each way a page or a script may hand the store a recording. */
export const FORMS: Readonly<Record<string, (recording: ManifestRecording) => ReadableStream<unknown>>> = Object.fromEntries(
  Object.entries(STAGES).map(([name, stage]) => [name, (recording: ManifestRecording) => stage(events(recording))]),
);
