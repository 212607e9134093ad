/**
 * Hostile input on the provider framings (SSE, NDJSON, Gemini's JSON array, AWS event stream):
 * each is linear in its input and holds at most `maxBufferedBytes` of a record, refusing a longer
 * one with the same typed error whatever the framing and however the record is cut.
 *
 * Linearity is asserted with a deadline far beyond what linear reading needs (tens of
 * milliseconds) and far below what the quadratic reading took (minutes): the loop stops feeding
 * at the deadline, so a regression fails in seconds instead of hanging.
 */
import { describe, expect, it } from 'vitest';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { ProviderError, type ProviderName } from '../../src/errors.ts';
import { ProviderEventDecoder, type ProviderEventStreamInput } from '../../src/providers/provider-event-decoder.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { settle, streamOf } from '../helpers.ts';
import { SEND } from '../ai-sdk/transport-helpers.ts';
import { eventFrame, decoderProvider } from '../providers/event-stream-helpers.ts';

const encoder = new TextEncoder();

/** Generous: linear reading of these inputs takes well under 100 ms. */
const DEADLINE_MS = 2000;

/**
 * Feed `chunks` to a decoder until they run out or the deadline passes; whether they all went in
 * before it, and the events.
 */
function feedWithin(provider: ProviderName, chunks: Iterable<ProviderEventStreamInput>): { inTime: boolean; events: StreamEvent[] } {
  const decoder = new ProviderEventDecoder({ provider: decoderProvider(provider) });
  const events: StreamEvent[] = [];
  const start = performance.now();
  for (const chunk of chunks) {
    if (performance.now() - start > DEADLINE_MS) return { inTime: false, events };
    decoder.push(chunk, events);
  }
  decoder.end(events);
  return { inTime: performance.now() - start <= DEADLINE_MS, events };
}

function* slices(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** A Gemini response whose one text part is `length` characters long, and its finish. */
function geminiRecord(length: number): string {
  return JSON.stringify({
    candidates: [{ content: { parts: [{ text: 'x'.repeat(length) }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  });
}

function messageText(events: readonly StreamEvent[]): string {
  return events.map((event) => (event.type === 'part' && event.part.type === 'message' ? event.part.text : '')).join('');
}

describe('ProviderEventDecoder linear framing', () => {
  it('ProviderEventDecoder reads a 2 MB Gemini JSON-array record cut in 1 KB chunks in linear time', () => {
    // The element used to be joined again at every chunk: 2048 copies of up to 2 MB (minutes).
    const body = encoder.encode(`[${geminiRecord(2 * 1024 * 1024)}]`);
    const { inTime, events } = feedWithin('gemini', slices(body, 1024));
    expect(inTime).toBe(true);
    expect(messageText(events).length).toBe(2 * 1024 * 1024);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'stop' });
  });

  it('ProviderEventDecoder reads a Gemini JSON-array string full of escapes cut in 1 KB chunks in linear time', () => {
    const text = '\\"'.repeat(256 * 1024);
    const record = `{"candidates":[{"content":{"parts":[{"text":"${text}"}]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":2}}`;
    const { inTime, events } = feedWithin('gemini', slices(encoder.encode(`[${record},${record}]`), 1024));
    expect(inTime).toBe(true);
    expect(messageText(events)).toBe('"'.repeat(512 * 1024));
  });

  it('ProviderEventDecoder reads SSE whose chunks mix one CR into many LF lines in linear time', () => {
    // eventsource-parser looks for both the next CR and the next LF at every line of a chunk that
    // holds a CR: one CR at the end of 512 K short lines made each line scan the rest of the
    // chunk (1.7 s a chunk).
    const chunk = `${':\n'.repeat(512 * 1024)}:\r`;
    const tail = 'data: {"type":"message_stop"}\n\n';
    const { inTime } = feedWithin('anthropic', [...Array.from({ length: 4 }, () => chunk), `\n${tail}`]);
    expect(inTime).toBe(true);
  });

  it('ProviderEventDecoder reads SSE whose chunks mix one LF into many CR lines in linear time', () => {
    const chunk = `${':\r'.repeat(512 * 1024)}:\n`;
    const { inTime } = feedWithin('anthropic', [...Array.from({ length: 4 }, () => chunk), 'data: {"type":"message_stop"}\r\n\r\n']);
    expect(inTime).toBe(true);
  });

  it('ProviderEventDecoder reads SSE with CR, CR LF and LF line breaks, a CR LF split between chunks, as one stream', async () => {
    const lf = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\n';
    const chunks = [
      lf.replace(/\n/g, '\r'),
      lf.replace(/\n/g, '\r\n').slice(0, -1),
      `\n${lf}`,
      'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"}}\r',
      '\n\r',
      '\ndata: {"type":"message_stop"}\r\n\r\n',
    ];
    const events = new ProviderEventDecoder({ provider: 'anthropic' }).push(chunks.join(''));
    const cut: StreamEvent[] = [];
    const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
    for (const chunk of chunks) decoder.push(chunk, cut);
    decoder.end(cut);
    expect(messageText(cut)).toBe('aaa');
    expect(cut).toEqual(events);
    expect(cut.at(-1)).toMatchObject({ type: 'finished', reason: 'stop' });
  });
});

/** A provider's input holding one record of about `length` characters, and how to cut it. */
interface OversizedCase {
  readonly name: string;
  readonly provider: ProviderName;
  readonly body: (length: number) => Uint8Array;
}

const OVERSIZED: readonly OversizedCase[] = [
  { name: 'an SSE event', provider: 'anthropic', body: (n) => encoder.encode(`data: {"type":"ping","pad":"${'x'.repeat(n)}"}\n\n`) },
  { name: 'an NDJSON line', provider: 'ollama', body: (n) => encoder.encode(`{"done":false,"pad":"${'x'.repeat(n)}"}\n`) },
  { name: 'an element of the JSON array', provider: 'gemini', body: (n) => encoder.encode(`[${geminiRecord(n)}]`) },
  { name: 'an AWS event-stream frame', provider: 'bedrock', body: (n) => eventFrame('messageStart', { role: 'assistant', p: 'x'.repeat(n) }) },
];

const MAX = 4096;

async function errorOf(provider: ProviderName, chunks: readonly Uint8Array[]): Promise<unknown> {
  const { error } = await settle(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider, maxBufferedBytes: MAX })));
  return error;
}

describe('ProviderEventStream maxBufferedBytes on every framing', () => {
  for (const { name, provider, body } of OVERSIZED) {
    it(`ProviderEventStream refuses ${name} longer than maxBufferedBytes with max-buffered-bytes, whole or cut (${provider})`, async () => {
      const bytes = body(2 * MAX);
      const expected = {
        provider,
        type: 'invalid-stream',
        code: 'max-buffered-bytes',
        message: expect.stringMatching(new RegExp(`^${provider}: ${name} grew beyond maxBufferedBytes \\(${MAX}\\)`)) as unknown,
      };
      const whole = await errorOf(provider, [bytes]);
      expect(whole).toBeInstanceOf(ProviderError);
      expect(whole).toMatchObject(expected);
      const cut = await errorOf(provider, [...slices(bytes, 256)]);
      expect(cut).toBeInstanceOf(ProviderError);
      expect(cut).toMatchObject(expected);
    });

    it(`ProviderEventStream reads ${name} just within maxBufferedBytes (${provider})`, async () => {
      const error = await errorOf(provider, [body(MAX / 2)]);
      expect((error as { code?: unknown } | undefined)?.code).not.toBe('max-buffered-bytes');
    });
  }
});

/** A transport whose response body is `chunks`, one per read. */
function transportOf(chunks: readonly string[], maxBufferedBytes?: number): ArgstreamChatTransport {
  const body = streamOf(chunks.map((chunk) => encoder.encode(chunk)));
  return new ArgstreamChatTransport({
    api: 'http://127.0.0.1/api/chat',
    schedule: 'sync',
    ...(maxBufferedBytes === undefined ? {} : { maxBufferedBytes }),
    fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' } }),
  });
}

/** What the AI SDK's stream of a transport's response delivered, and its error. */
async function sendOf(transport: ArgstreamChatTransport): Promise<{ values: unknown[]; error: unknown }> {
  return settle(await transport.sendMessages(SEND));
}

const UI_START = 'data: {"type":"start"}\n\ndata: {"type":"start-step"}\n\ndata: {"type":"text-start","id":"t"}\n\n';
const UI_END = 'data: {"type":"text-end","id":"t"}\n\ndata: {"type":"finish-step"}\n\ndata: {"type":"finish"}\n\n';

describe('ArgstreamChatTransport SSE framing', () => {
  it('ArgstreamChatTransport errors with max-buffered-bytes on an SSE line longer than maxBufferedBytes, cut over reads', async () => {
    const line = `data: {"type":"text-delta","id":"t","delta":"${'x'.repeat(3 * MAX)}`;
    const transport = transportOf([UI_START, ...Array.from({ length: line.length / 1024 + 1 }, (_, i) => line.slice(i * 1024, (i + 1) * 1024))], MAX);
    const { error } = await sendOf(transport);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      provider: 'ai-sdk-ui',
      type: 'invalid-stream',
      code: 'max-buffered-bytes',
      message: `ai-sdk-ui: an SSE event grew beyond maxBufferedBytes (${MAX})`,
    });
    expect(transport.getSnapshot().status).toBe('error');
  });

  it('ArgstreamChatTransport errors with max-buffered-bytes on an SSE event longer than maxBufferedBytes that arrives whole', async () => {
    const event = `data: {"type":"text-delta","id":"t","delta":"${'x'.repeat(2 * MAX)}"}\n\n`;
    const { error } = await sendOf(transportOf([UI_START + event + UI_END], MAX));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'ai-sdk-ui', type: 'invalid-stream', code: 'max-buffered-bytes' });
  });

  it('ArgstreamChatTransport reads an event within maxBufferedBytes, and refuses one that is not positive', async () => {
    const event = `data: {"type":"text-delta","id":"t","delta":"${'x'.repeat(MAX / 2)}"}\n\n`;
    const { values, error } = await sendOf(transportOf([UI_START, event, UI_END], MAX));
    expect(error).toBeUndefined();
    expect(values).toContainEqual({ type: 'text-delta', id: 't', delta: 'x'.repeat(MAX / 2) });
    expect(() => transportOf([], 0)).toThrow(RangeError);
  });

  it('ArgstreamChatTransport errors with a typed not-json error on SSE data that is not JSON', async () => {
    const { error } = await sendOf(transportOf([UI_START, 'data: {"type":\n\n', UI_END]));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'ai-sdk-ui', type: 'invalid-stream', code: 'not-json', message: 'ai-sdk-ui: SSE data is not JSON: "{"type":"' });
  });

  it('ArgstreamChatTransport reads a response whose reads mix one CR into many LF lines in linear time', async () => {
    const chunk = `${':\n'.repeat(512 * 1024)}:\r`;
    const start = performance.now();
    const { values, error } = await sendOf(transportOf([UI_START, chunk, chunk, chunk, chunk, `\n${UI_END}`]));
    expect(error).toBeUndefined();
    expect(values).toContainEqual({ type: 'finish' });
    expect(performance.now() - start).toBeLessThan(DEADLINE_MS);
  });
});
