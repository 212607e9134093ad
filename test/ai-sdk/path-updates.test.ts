/**
 * `UIMessageStreamEncoder({ toolInputs: 'path-updates' })` (issue 22 §2): an argstream server
 * sends a call's input as transient path-update data chunks instead of `tool-input-delta`s. An
 * unchanged `useChat` page (ai 5, 6 and 7, `readUIMessageStream`) ends with the same message and never
 * re-parses a partial input; `ArgstreamChatTransport` applies the updates: its snapshot grows by
 * prefixes of the input and ends with it exactly.
 */
import { readUIMessageStream as read5, type UIMessage as UIMessage5, type UIMessageChunk as Chunk5 } from 'ai';
import { readUIMessageStream as read6 } from 'ai6';
import { readUIMessageStream as read7 } from 'ai7';
import { describe, expect, it } from 'vitest';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { UIMessageStreamEncoder } from '../../src/ai-sdk/ui-message-stream-encoder.ts';
import { ProviderEventStream } from '../../src/index.ts';
import { readAll, readFixture, streamOf } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';

const RECORDING = 'anthropic/text-then-2-parallel-tool-use.sse';

async function encoded(toolInputs: 'deltas' | 'path-updates'): Promise<string> {
  const body = streamOf([readFixture(`providers/${RECORDING}`)])
    .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
    .pipeThrough(new UIMessageStreamEncoder({ toolInputs }));
  const bytes = await readAll(body);
  return bytes.map((chunk) => new TextDecoder().decode(chunk)).join('');
}

function chunksOf(sse: string): Chunk5[] {
  return sse
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Chunk5);
}

async function final(read: typeof read5, chunks: readonly Chunk5[]): Promise<UIMessage5 | undefined> {
  let message: UIMessage5 | undefined;
  const stream = new ReadableStream<Chunk5>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const next of read({ stream, onError: () => undefined })) message = next as UIMessage5;
  return message;
}

describe("UIMessageStreamEncoder({ toolInputs: 'path-updates' })", () => {
  it('sends no tool-input-delta, only transient updates; ai 5, 6 and 7 end with the same message as with deltas', async () => {
    const deltas = chunksOf(await encoded('deltas'));
    const updates = chunksOf(await encoded('path-updates'));
    expect(updates.filter((chunk) => chunk.type === 'tool-input-delta')).toEqual([]);
    expect(updates.filter((chunk) => chunk.type === 'data-argstream-tool-input').length).toBeGreaterThan(0);
    for (const chunk of updates.filter((c) => c.type === 'data-argstream-tool-input')) expect((chunk as { transient?: boolean }).transient).toBe(true);
    for (const read of [read5, read6 as unknown as typeof read5, read7 as unknown as typeof read5]) {
      const a = await final(read, deltas);
      const b = await final(read, updates);
      expect(b?.parts).toEqual(a?.parts);
    }
    const calls = manifestEntry(RECORDING).toolCalls.map((call) => JSON.parse(call.args) as unknown);
    const parts = (await final(read5, updates))?.parts.filter((part) => 'toolCallId' in part) ?? [];
    expect(parts.map((part) => (part as { input?: unknown }).input)).toEqual(calls);
  });

  it('ArgstreamChatTransport applies the updates: the snapshot grows by prefixes and ends with each input exactly', async () => {
    const sse = await encoded('path-updates');
    const events = sse.split(/(?<=\n\n)/);
    const transport = new ArgstreamChatTransport({
      api: 'http://127.0.0.1/api/chat',
      schedule: 'sync',
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async pull(controller) {
              await new Promise((resolve) => setTimeout(resolve, 0));
              const event = events.shift();
              if (event === undefined) controller.close();
              else controller.enqueue(new TextEncoder().encode(event));
            },
          }),
        ),
    });
    const seen: string[] = [];
    transport.subscribe(() => {
      for (const call of transport.getSnapshot().calls) if (call.status === 'streaming') seen.push(JSON.stringify(call.input));
    });
    await readAll(await transport.sendMessages({ trigger: 'submit-message', chatId: 'c', messageId: undefined, messages: [], abortSignal: undefined }));
    const expected = manifestEntry(RECORDING).toolCalls.map((call) => JSON.parse(call.args) as unknown);
    expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual(expected.map((input) => ['complete', input]));
    expect(seen.length).toBeGreaterThan(2);
  });
});
