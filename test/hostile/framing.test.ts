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
import { ProviderError, type ProviderName } from '../../src/errors.ts';
import { ProviderEventDecoder, type ProviderEventStreamInput } from '../../src/providers/provider-event-decoder.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { settle, streamOf } from '../helpers.ts';
import { eventFrame } from '../providers/event-stream-helpers.ts';

const encoder = new TextEncoder();

/** Generous: linear reading of these inputs takes well under 100 ms. */
const DEADLINE_MS = 2000;

/**
 * Feed `chunks` to a decoder until they run out or the deadline passes; whether they all went in
 * before it, and the events.
 */
function feedWithin(provider: ProviderName, chunks: Iterable<ProviderEventStreamInput>): { inTime: boolean; events: StreamEvent[] } {
  const decoder = new ProviderEventDecoder({ provider });
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
