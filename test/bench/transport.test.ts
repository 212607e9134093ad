/**
 * The UI benchmark's transport rows (`bench/ui.ts`): the UI message stream's SSE bytes are what the
 * AI SDK's own transport accepts, and `ArgstreamChatTransport` built by the benchmark against each
 * `ai` major extends that major's `HttpChatTransport` and gives the generated arguments, both
 * through `readUIMessageStream` and in its snapshot.
 */
import { describe, expect, it } from 'vitest';
import { DefaultChatTransport as Default5, HttpChatTransport as Http5, readUIMessageStream as read5, type UIMessageChunk } from 'ai';
import { DefaultChatTransport as Default7, HttpChatTransport as Http7, readUIMessageStream as read7 } from 'ai7';
import { bodyOf, readsOf } from '../../bench/pipeline.ts';
import { loadArgstreamTransport, uiMessageChunks, uiMessageStreamSse, uiWriteFileCall } from '../../bench/ui.ts';

const BYTES = 4_000;
const call = uiWriteFileCall(BYTES);
const chunks = uiMessageChunks(BYTES, call);
const reads = readsOf(uiMessageStreamSse(chunks), 'event');

type Message = { parts: { type: string; state?: string; input?: unknown }[] };
type Read = (options: { stream: ReadableStream<unknown>; terminateOnError: boolean }) => AsyncIterable<Message>;

async function lastMessage(read: Read, stream: ReadableStream<unknown>): Promise<{ last: Message | undefined; messages: number }> {
  let last: Message | undefined;
  let messages = 0;
  for await (const message of read({ stream, terminateOnError: true })) {
    last = message;
    messages++;
  }
  return { last, messages };
}

describe('bench/ui.ts: the transport rows', () => {
  it('frames the chunks as an AI SDK server does: data: <JSON> per chunk, then data: [DONE], one event per read', () => {
    const events = uiMessageStreamSse(chunks);
    expect(events).toHaveLength(chunks.length + 1);
    expect(events.at(-1)).toBe('data: [DONE]\n\n');
    expect(events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)) as unknown)).toEqual(chunks);
    expect(reads).toHaveLength(events.length);
  });

  for (const [major, Default, read] of [
    [5, Default5, read5],
    [7, Default7, read7],
  ] as const) {
    it(`ai ${major}: DefaultChatTransport's processResponseStream, then readUIMessageStream, gives the generated arguments`, async () => {
      const transport = new (Default as unknown as new () => { processResponseStream(stream: ReadableStream<Uint8Array>): ReadableStream<UIMessageChunk> })();
      const { last, messages } = await lastMessage(read as unknown as Read, transport.processResponseStream(bodyOf(reads)));
      expect(messages).toBeGreaterThan(call.deltas.length);
      const part = last?.parts.find((item) => item.type === 'tool-write_file');
      expect(part?.state).toBe('input-available');
      expect(part?.input).toEqual(call.expected);
    });
  }

  for (const [major, Http, OtherHttp, read] of [
    [5, Http5, Http7, read5],
    [7, Http7, Http5, read7],
  ] as const) {
    it(`ai ${major}: the ArgstreamChatTransport built for it extends its HttpChatTransport and gives the generated arguments (messages and snapshot)`, async () => {
      const Transport = await loadArgstreamTransport(major);
      expect(await loadArgstreamTransport(major)).toBe(Transport);
      const transport = new Transport({ schedule: 'sync' });
      expect(transport).toBeInstanceOf(Http);
      expect(transport).not.toBeInstanceOf(OtherHttp);
      let notifications = 0;
      transport.subscribe(() => {
        notifications++;
      });
      const stream = (transport as unknown as { processResponseStream(stream: ReadableStream<Uint8Array>): ReadableStream<unknown> }).processResponseStream(bodyOf(reads));
      const { last, messages } = await lastMessage(read as unknown as Read, stream);
      expect(messages).toBeLessThan(10);
      expect(notifications).toBeGreaterThan(call.deltas.length);
      const part = last?.parts.find((item) => item.type === 'tool-write_file');
      expect(part?.state).toBe('input-available');
      expect(part?.input).toEqual(call.expected);
      const snapshotCall = transport.getSnapshot().calls[0];
      expect(snapshotCall?.status).toBe('complete');
      expect(snapshotCall?.input).toEqual(call.expected);
    });
  }
});
