/** Helpers for the consumer-view tests: provider recordings as `StreamEvent` streams. */
import { ProviderEventStream, type ProviderName, type StreamEvent } from '../../src/index.ts';
import { readFixture, streamOf } from '../helpers.ts';
import { readManifest, type ManifestRecording } from '../manifest.ts';

const PROVIDERS: Readonly<Record<string, ProviderName>> = {
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
 * The recordings a provider adapter reads without an error in the stream (`cohere/` has no
 * adapter; a `.decoded.jsonl` file is the twin of an `.eventstream` capture).
 */
export function readableRecordings(): ManifestRecording[] {
  return readManifest().filter((r) => PROVIDERS[r.dir] !== undefined && r.errors === undefined && !r.file.endsWith('.decoded.jsonl'));
}

/** A recording as `StreamEvent`s: its bytes (or, for a `.jsonl` file, its SDK objects) through `ProviderEventStream`. */
export function recordingEvents(recording: ManifestRecording): ReadableStream<StreamEvent> {
  const provider = PROVIDERS[recording.dir] as ProviderName;
  const bytes = readFixture(`providers/${recording.file}`);
  if (recording.file.endsWith('.jsonl')) {
    const objects = new TextDecoder()
      .decode(bytes)
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as object);
    return streamOf(objects).pipeThrough(new ProviderEventStream({ provider }));
  }
  return streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider }));
}

/** The manifest's value for a call's arguments (`''` means `{}`). */
export function expectedArguments(args: string): unknown {
  return args === '' ? {} : JSON.parse(args);
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
