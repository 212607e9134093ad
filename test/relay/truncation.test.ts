/**
 * A truncated turn never looks complete (issue 23 §3): a provider stream that closes cleanly
 * between two records, before the provider's terminal one (a proxy cutting the connection), is a
 * `ProviderError` `'invalid-stream'` / `'truncated'` — from `ProviderEventDecoder`,
 * `ProviderEventStream`, `fromResponse`, through the relay (`EventStreamEncoder` →
 * `EventStreamDecoder`, NDJSON too), for `collectTurn` and for `TurnStore` — after everything that
 * arrived before it. Every recording, uncut, still completes.
 */
import { describe, expect, it } from 'vitest';
import {
  collectTurn,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  fromResponse,
  NdjsonDecoder,
  NdjsonEncoder,
  ProviderError,
  ProviderEventDecoder,
  ProviderEventStream,
  TurnStore,
  type PipelineEvent,
  type ProviderName,
  type StreamEvent,
} from '../../src/index.ts';
import { settle, streamOf } from '../helpers.ts';
import type { ManifestRecording } from '../manifest.ts';
import { bytesOf as recordingBytes, PROVIDER_OF_DIR, readableRecordings, decoderProvider } from '../providers/event-stream-helpers.ts';
import { bytesOf } from './relay-helpers.ts';

// ---------------------------------------------------------------------------------------------
// The recordings cut into records, with a test-side oracle of each provider's terminal record.

/** One record of a recording (or a block with no record: an SSE comment), as the wire carried it. */
interface WireBlock {
  readonly bytes: Uint8Array;
  /** The parsed record (`'[DONE]'` for that marker); `undefined` for a comment or blank block. */
  readonly record: unknown;
  /** The AWS event type, for Bedrock frames. */
  readonly event?: string;
}

const utf8 = new TextEncoder();

/** Bytes a `Response` takes (on an `ArrayBuffer`). */
const body = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

function sseBlocks(text: string): WireBlock[] {
  const blocks = text.split(/(?<=\n\n|\r\n\r\n)/);
  expect(blocks.join('')).toBe(text);
  return blocks.map((block) => {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    const record = data.trim() === '' ? undefined : data.trim() === '[DONE]' ? '[DONE]' : (JSON.parse(data) as unknown);
    return { bytes: utf8.encode(block), record };
  });
}

function ndjsonBlocks(text: string): WireBlock[] {
  const lines = text.split(/(?<=\n)/);
  return lines.map((line) => ({ bytes: utf8.encode(line), record: line.trim() === '' ? undefined : (JSON.parse(line) as unknown) }));
}

/** AWS event-stream frames: a 4-byte big-endian total length, headers, payload, CRC. */
function frameBlocks(bytes: Uint8Array): WireBlock[] {
  const blocks: WireBlock[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; ) {
    const length = view.getUint32(at);
    const frame = bytes.subarray(at, at + length);
    const headersLength = view.getUint32(at + 4);
    // The headers are read by name only: `:event-type` is what says the record's kind.
    const headers = new TextDecoder('latin1').decode(frame.subarray(12, 12 + headersLength));
    const event = /:event-type\x07..([A-Za-z]+)/s.exec(headers)?.[1];
    const payload = new TextDecoder().decode(frame.subarray(12 + headersLength, length - 4));
    blocks.push({ bytes: frame, record: payload.trim() === '' ? {} : (JSON.parse(payload) as unknown), ...(event === undefined ? {} : { event }) });
    at += length;
  }
  return blocks;
}

function blocksOf(recording: ManifestRecording): WireBlock[] | undefined {
  const bytes = recordingBytes(recording.file);
  if (recording.file.endsWith('.sse')) return sseBlocks(new TextDecoder().decode(bytes));
  if (recording.file.endsWith('.ndjson')) return ndjsonBlocks(new TextDecoder().decode(bytes));
  if (recording.file.endsWith('.eventstream')) return frameBlocks(bytes);
  // A Gemini JSON array cut anywhere before its `]` is refused already (`truncated`, inside the
  // array); SDK-shaped `.jsonl` objects are cut below, as objects.
  return undefined;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The test's own rule of each provider's terminal record (after which the turn is whole). */
function isTerminal(provider: ProviderName, block: WireBlock): boolean {
  const record = block.record;
  if (record === '[DONE]') return true;
  if (provider === 'langchain') return isLangChainTerminal(record);
  if (!isObject(record)) return false;
  switch (provider) {
    case 'anthropic':
      return record['type'] === 'message_stop' || (record['type'] === 'message_delta' && isObject(record['delta']) && typeof record['delta']['stop_reason'] === 'string');
    case 'openai-chat':
      return Array.isArray(record['choices']) && record['choices'].some((c) => isObject(c) && typeof c['finish_reason'] === 'string' && c['finish_reason'] !== '');
    case 'openai-responses':
      return ['response.completed', 'response.incomplete', 'response.failed'].includes(record['type'] as string);
    case 'gemini':
      return Array.isArray(record['candidates']) && record['candidates'].some((c) => isObject(c) && typeof c['finishReason'] === 'string');
    case 'ollama':
      return record['done'] === true;
    case 'bedrock':
      return block.event === 'messageStop' || isObject(record['messageStop']);
    case 'cohere':
      return record['type'] === 'message-end';
    case 'ag-ui':
      return record['type'] === 'RUN_FINISHED';
    case 'gemini-interactions':
      return record['event_type'] === 'interaction.completed' || record['event_type'] === 'interaction.complete';
    default:
      throw new Error(`no terminal rule for ${provider}`);
  }
}

/**
 * A LangChain object after which its message is whole: a chunk with a finish reason, the end of a
 * `streamEvents` run, `message-finish`. A LangGraph `[chunk, metadata]` tuple is always: the
 * messages of a graph's stream end with it (some integrations' finish reasons do not reach it).
 */
function isLangChainTerminal(record: unknown): boolean {
  if (Array.isArray(record)) {
    if (isObject(record[1]) && typeof record[1]['langgraph_step'] === 'number' && !('event' in Object(record[0]))) return true;
    return isLangChainTerminal(record[0]);
  }
  if (!isObject(record)) return false;
  if (record['event'] === 'on_chat_model_end' || record['event'] === 'message-finish') return true;
  const chunk = record['event'] === 'on_chat_model_stream' && isObject(record['data']) ? record['data']['chunk'] : record;
  if (!isObject(chunk)) return false;
  const metadata = isObject(chunk['response_metadata']) ? chunk['response_metadata'] : {};
  const kwargs = isObject(chunk['additional_kwargs']) ? chunk['additional_kwargs'] : {};
  return typeof (metadata['finish_reason'] ?? metadata['stop_reason'] ?? kwargs['stop_reason']) === 'string' || (metadata['object'] === 'response' && metadata['status'] === 'completed');
}

function join(blocks: readonly WireBlock[]): Uint8Array {
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.bytes.length, 0));
  let at = 0;
  for (const block of blocks) {
    out.set(block.bytes, at);
    at += block.bytes.length;
  }
  return out;
}

function runDecoder(provider: ProviderName, chunks: readonly unknown[]): { events: StreamEvent[]; error: unknown } {
  const decoder = new ProviderEventDecoder({ provider: decoderProvider(provider) });
  const events: StreamEvent[] = [];
  try {
    for (const chunk of chunks) decoder.push(chunk as Uint8Array, events);
    decoder.end(events);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const parts = (events: readonly StreamEvent[]) => events.filter((e) => e.type === 'part');

const RECORDINGS = readableRecordings();

describe('every recording: whole, it completes; cut between two records, it is truncated exactly until its terminal record', () => {
  it('covers every provider with a wire format', () => {
    const providers = new Set(RECORDINGS.map((r) => PROVIDER_OF_DIR[r.dir]));
    expect([...providers].sort()).toEqual(['ag-ui', 'anthropic', 'bedrock', 'cohere', 'gemini', 'gemini-interactions', 'langchain', 'ollama', 'openai-chat', 'openai-responses']);
  });

  for (const recording of RECORDINGS) {
    const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
    it(`${recording.file}`, () => {
      const sdkObjects = recording.file.endsWith('.jsonl');
      const whole = sdkObjects
        ? runDecoder(provider, new TextDecoder().decode(recordingBytes(recording.file)).split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as object))
        : runDecoder(provider, [recordingBytes(recording.file)]);
      expect(whole.error, 'the whole recording').toBeUndefined();
      expect(whole.events.some((e) => e.type === 'finished'), 'the whole recording finishes').toBe(true);

      const blocks: WireBlock[] | undefined = sdkObjects
        ? new TextDecoder().decode(recordingBytes(recording.file)).split('\n').filter((l) => l.trim() !== '').map((l) => ({ bytes: new Uint8Array(), record: JSON.parse(l) as unknown }))
        : blocksOf(recording);
      if (blocks === undefined) return;
      expect(blocks.some((b) => isTerminal(provider, b)), 'the recording has a terminal record').toBe(true);
      let records = 0;
      let terminal = false;
      let truncations = 0;
      for (let k = 0; k <= blocks.length; k++) {
        const cut = blocks.slice(0, k);
        if (k > 0) {
          const last = blocks[k - 1] as WireBlock;
          // LangGraph's checkpoint envelope (`{id, step, source}`) is no record of a turn.
          const envelope = provider === 'langchain' && isObject(last.record) && typeof last.record['step'] === 'number';
          if (last.record !== undefined && last.record !== '[DONE]' && !envelope) records++;
          if (isTerminal(provider, last)) terminal = true;
        }
        const run = sdkObjects ? runDecoder(provider, cut.map((b) => b.record)) : runDecoder(provider, [join(cut)]);
        const how = `cut after block ${k} of ${blocks.length}`;
        if (records > 0 && !terminal) {
          expect(run.error, how).toBeInstanceOf(ProviderError);
          expect(run.error, how).toMatchObject({ provider, type: 'invalid-stream', code: 'truncated' });
          expect((run.error as Error).message, how).toMatch(/the stream ended before .*: it was cut between two records \(after \d+ records?, the last .*\), so the turn is incomplete$/);
          truncations++;
        } else {
          expect(run.error, how).toBeUndefined();
        }
        // What was delivered is what the whole stream delivers first.
        expect(parts(run.events), how).toEqual(parts(whole.events).slice(0, parts(run.events).length));
      }
      // A recording of one record (Gemini's whole answer in one chunk) cannot be cut before it.
      const first = blocks.findIndex((b) => b.record !== undefined);
      if (blocks.findIndex((b) => isTerminal(provider, b)) > first) expect(truncations).toBeGreaterThan(0);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// End to end: one recording per provider, cut right before its terminal record.

/** The first recording of each provider with a tool call, else its first (of those with records before the terminal one). */
function pick(provider: ProviderName): ManifestRecording {
  const mine = RECORDINGS.filter((r) => {
    if (PROVIDER_OF_DIR[r.dir] !== provider || r.file.endsWith('.jsonl')) return false;
    const blocks = blocksOf(r);
    return blocks !== undefined && blocks.findIndex((b) => isTerminal(provider, b)) > blocks.findIndex((b) => b.record !== undefined);
  });
  return (mine.find((r) => r.toolCalls.length > 0) ?? mine[0]) as ManifestRecording;
}

/** The recording's bytes up to (not including) its first terminal record. */
function cutBeforeTerminal(recording: ManifestRecording): Uint8Array {
  const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
  const blocks = blocksOf(recording) as WireBlock[];
  const terminal = blocks.findIndex((b) => isTerminal(provider, b));
  expect(terminal).toBeGreaterThan(0);
  return join(blocks.slice(0, terminal));
}

function expectTruncated(error: unknown, provider: ProviderName, message?: string): void {
  expect(error).toBeInstanceOf(ProviderError);
  expect(error).toMatchObject({ name: 'ProviderError', provider, type: 'invalid-stream', code: 'truncated' });
  if (message !== undefined) expect((error as Error).message).toBe(message);
}

const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock', 'cohere', 'gemini-interactions'];

describe('a provider stream cut between two records, before its terminal one, end to end', () => {
  for (const provider of PROVIDERS) {
    const recording = pick(provider);
    it(`${provider} (${recording.file}): ProviderEventStream, fromResponse, the relay (SSE and NDJSON), collectTurn and TurnStore all fail with truncated`, async () => {
      const cut = cutBeforeTerminal(recording);
      const core = runDecoder(provider, [cut]);
      expectTruncated(core.error, provider);
      const message = (core.error as Error).message;
      expect(message.startsWith(`${provider}: the stream ended before `)).toBe(true);

      // ProviderEventStream, the bytes cut in pieces: the same events, then the same error.
      const pieces = [cut.subarray(0, 7), cut.subarray(7, Math.floor(cut.length / 2)), cut.subarray(Math.floor(cut.length / 2))];
      const stream = await settle(streamOf(pieces).pipeThrough(new ProviderEventStream({ provider })));
      expect(stream.values).toEqual(core.events);
      expectTruncated(stream.error, provider, message);

      // fromResponse.
      const response = await settle(fromResponse(new Response(body(cut)), { provider }));
      expect(response.values).toEqual(core.events);
      expectTruncated(response.error, provider, message);

      // Through the relay: an `event: error`, never `event: end`; the page's decoder errors with
      // the same class and code, after the same events, and the message argstream writes for a page.
      const onPage = `${provider}: the stream ended before its last record: it was cut, so the turn is incomplete`;
      const relayed = await bytesOf(fromResponse(new Response(body(cut)), { provider }, new FieldEventStream({ keepProgress: false })).pipeThrough(new EventStreamEncoder()));
      const sse = new TextDecoder().decode(relayed);
      expect(sse).toMatch(/event: error\ndata: \{"name":"ProviderError".*"code":"truncated".*\}\n\n$/);
      expect(sse).not.toContain('event: end');
      const direct = await settle(fromResponse(new Response(body(cut)), { provider }, new FieldEventStream({ keepProgress: false })));
      const decoded = await settle(streamOf([relayed]).pipeThrough(new EventStreamDecoder()));
      expect(decoded.values).toEqual(direct.values);
      expectTruncated(decoded.error, provider, onPage);
      await expect(collectTurn(streamOf([relayed]).pipeThrough(new EventStreamDecoder()))).rejects.toMatchObject({ name: 'ProviderError', code: 'truncated', message: onPage });

      const ndjson = await bytesOf(fromResponse(new Response(body(cut)), { provider }).pipeThrough(new NdjsonEncoder()));
      expect(new TextDecoder().decode(ndjson)).not.toContain('{"type":"end"}');
      const fromNdjson = await settle(streamOf([ndjson]).pipeThrough(new NdjsonDecoder()));
      expect(fromNdjson.values).toEqual(core.events);
      expectTruncated(fromNdjson.error, provider, onPage);

      // collectTurn rejects with it.
      const turn = collectTurn(fromResponse(new Response(body(cut)), { provider }));
      await expect(turn).rejects.toBeInstanceOf(ProviderError);
      await expect(collectTurn(fromResponse(new Response(body(cut)), { provider }))).rejects.toMatchObject({ code: 'truncated', message });

      // TurnStore: from the provider's response, and from the relay's.
      const store = new TurnStore({ schedule: 'sync' });
      const snapshot = await store.consume(new Response(body(cut)), { decoder: new ProviderEventDecoder({ provider: decoderProvider(provider) }) });
      expect(snapshot.status).toBe('error');
      expectTruncated(snapshot.error, provider, message);
      expect(snapshot.finishReason).toBeUndefined();
      for (const call of snapshot.calls) expect(call.status === 'failed' || call.status === 'complete', call.toolName).toBe(true);
      const relayStore = new TurnStore({ schedule: 'sync' });
      const relayedSnapshot = await relayStore.consume(new Response(body(relayed), { headers: { 'content-type': 'text/event-stream' } }));
      expect(relayedSnapshot.status).toBe('error');
      expectTruncated(relayedSnapshot.error, provider, onPage);
      expect(relayedSnapshot.text).toBe(snapshot.text);
    });

    it(`${provider} (${recording.file}): uncut, the same pipelines complete`, async () => {
      const whole = recordingBytes(recording.file);
      const relayed = await bytesOf(fromResponse(new Response(body(whole)), { provider }, new FieldEventStream({ keepProgress: false })).pipeThrough(new EventStreamEncoder()));
      expect(new TextDecoder().decode(relayed)).toMatch(/event: end\ndata: \{\}\n\n$/);
      const turn = await collectTurn(streamOf([relayed]).pipeThrough(new EventStreamDecoder()));
      expect(turn.finishReason).toBeDefined();
      expect(turn.toolCalls.length + turn.providerToolCalls.length).toBe(recording.toolCalls.length + recording.providerToolCalls.length);
      const direct = await collectTurn(fromResponse(new Response(body(whole)), { provider }));
      expect(direct.finishReason).toBe(turn.finishReason);
      const snapshot = await new TurnStore({ schedule: 'sync' }).consume(new Response(body(whole)), { decoder: new ProviderEventDecoder({ provider: decoderProvider(provider) }) });
      expect([snapshot.status, snapshot.error]).toEqual(['done', undefined]);
      const relayedSnapshot = await new TurnStore({ schedule: 'sync' }).consume(new Response(body(relayed), { headers: { 'content-type': 'text/event-stream' } }));
      expect([relayedSnapshot.status, relayedSnapshot.error]).toEqual(['done', undefined]);
    });
  }
});

describe("the AI SDK's parts (objects): cut before `finish`, truncated; an `abort` is an error of its own", () => {
  const parts = [
    { type: 'start' },
    { type: 'start-step', request: {}, warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', text: 'Writing it.' },
    { type: 'text-end', id: 't' },
    { type: 'tool-input-start', id: 'call_1', toolName: 'write_file' },
    { type: 'tool-input-delta', id: 'call_1', delta: '{"path":"a.txt",' },
    { type: 'tool-input-delta', id: 'call_1', delta: '"content":"hi"}' },
    { type: 'tool-input-end', id: 'call_1' },
    { type: 'tool-call', toolCallId: 'call_1', toolName: 'write_file', input: { path: 'a.txt', content: 'hi' } },
    { type: 'finish-step', response: {}, usage: {}, finishReason: 'tool-calls' },
    { type: 'finish', finishReason: 'tool-calls', totalUsage: {} },
  ];

  it('ProviderEventStream and collectTurn (through ProviderEventStream or reading the parts itself) reject every cut before `finish`', async () => {
    for (let k = 1; k < parts.length; k++) {
      const cut = parts.slice(0, k);
      const stream = await settle(streamOf<object>(cut).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
      expectTruncated(stream.error, 'ai-sdk');
      expect((stream.error as Error).message).toContain(`the last "${cut.at(-1)?.type}"`);
      await expect(collectTurn(streamOf<object>(cut).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })))).rejects.toMatchObject({ code: 'truncated' });
      // collectTurn reads `fullStream` parts itself (TurnBuilder): the same rule.
      await expect(collectTurn(streamOf<{ type: string }>(cut)), `cut at ${k}`).rejects.toMatchObject({ name: 'ProviderError', provider: 'ai-sdk', type: 'invalid-stream', code: 'truncated' });
    }
    const whole = await collectTurn(streamOf<{ type: string }>(parts));
    expect([whole.finishReason, whole.toolCalls.map((c) => c.arguments)]).toEqual(['tool-calls', [{ path: 'a.txt', content: 'hi' }]]);
    // An abort ends the parts without `finish`: a ProviderError 'aborted', not 'truncated', and no turn.
    await expect(collectTurn(streamOf<{ type: string }>([...parts.slice(0, 7), { type: 'abort' }]))).rejects.toMatchObject({ name: 'ProviderError', provider: 'ai-sdk', type: 'aborted' });
  });
});

describe('what a truncated stream still delivers', () => {
  it('the events before the cut reach the reader first, and a call cut between records is never a complete call', async () => {
    const recording = RECORDINGS.find((r) => r.file === 'anthropic/text-then-tool-use.sse') as ManifestRecording;
    const blocks = blocksOf(recording) as WireBlock[];
    // Cut inside the call's arguments, between two deltas.
    const k = blocks.findIndex((b) => isObject(b.record) && isObject(b.record['delta']) && b.record['delta']['type'] === 'input_json_delta') + 2;
    const cut = join(blocks.slice(0, k));
    const { values, error } = await settle(fromResponse(new Response(body(cut)), { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false })));
    expectTruncated(error, 'anthropic');
    const text = values.map((e) => {
      const event = e as PipelineEvent;
      return event.type === 'part' && event.part.type === 'message' ? event.part.text : '';
    });
    expect(text.join('')).toBe("I'll check the current weather in Paris for you.");
    expect(values.some((e) => (e as PipelineEvent).type === 'tool-call')).toBe(false);
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(new Response(body(cut)), { decoder: new ProviderEventDecoder({ provider: 'anthropic' }) });
    expect(snapshot.calls.map((c) => [c.toolName, c.status, c.status === 'failed' && c.error === snapshot.error])).toEqual([['get_weather', 'failed', true]]);
    expect(snapshot.text).toBe("I'll check the current weather in Paris for you.");
  });

  it('an empty body is no record: not refused (nothing arrived to be cut)', async () => {
    expect(runDecoder('anthropic', [new Uint8Array()]).error).toBeUndefined();
    expect(runDecoder('anthropic', [': keep-alive\n\n']).error).toBeUndefined();
  });
});
