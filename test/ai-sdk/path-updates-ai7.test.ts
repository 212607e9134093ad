/**
 * `UIMessageStreamEncoder({ major: 7, toolInputs: 'path-updates' })` with the real `ai` 7: an
 * argstream server sends a `write_file` call's input as transient path updates, and
 *
 * - ai 7 itself accepts every chunk (`parseJsonEventStream` with its chunk schema, as its HTTP
 *   transport reads a response) and ends with the same message as with deltas, the call's part
 *   never holding a partial input (nothing for it to re-parse);
 * - `ArgstreamChatTransport` extending ai 7's `HttpChatTransport` (its `ai` import served by `ai7`),
 *   under `@ai-sdk/react` 4's `Chat` (the class `useChat` runs): the snapshot's content grows by
 *   prefixes of the input and ends with it exactly, and the chat's message ends with the exact input;
 * - a resume replays the response from its start (`resumeStreamIsReplay`): the snapshot starts over
 *   and the content never doubles.
 *
 * The call is the example's recorded Anthropic stream (examples/ai-sdk/recordings/write-file.sse:
 * a Rust file whose input arrives in 3–11-character pieces, with escapes and non-ASCII text); the
 * oracle is `JSON.parse` of its pieces joined.
 */
import { readFileSync } from 'node:fs';
import { Chat } from '@ai-sdk/react';
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai7';
import { describe, expect, it, vi } from 'vitest';
import { UIMessageStreamEncoder } from '../../src/ai-sdk/ui-message-stream-encoder.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { pacedStreamOf, readAll, streamOf } from '../helpers.ts';
import { paced, SEND } from './transport-helpers.ts';

vi.mock('ai', async () => await import('ai7'));
const { ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts');

const RECORDING = readFileSync(new URL('../../examples/ai-sdk/recordings/write-file.sse', import.meta.url));

/** The call's input: its recorded pieces joined, parsed. */
const EXPECTED = JSON.parse(
  new TextDecoder()
    .decode(RECORDING)
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; delta?: { type: string; partial_json?: string } })
    .flatMap((event) => (event.type === 'content_block_delta' && event.delta?.type === 'input_json_delta' ? [event.delta.partial_json ?? ''] : []))
    .join(''),
) as { path: string; content: string };

/** argstream's server on the recording: the SSE text of its response. */
async function encoded(toolInputs: 'deltas' | 'path-updates'): Promise<string> {
  // One SSE record per read, as a live model arrives (the encoder joins the deltas of one read).
  const records = new TextDecoder().decode(RECORDING).split(/(?<=\n\n)/).map((record) => new TextEncoder().encode(record));
  const bytes = await readAll(
    pacedStreamOf(records)
      .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
      .pipeThrough(new UIMessageStreamEncoder({ major: 7, toolInputs })),
  );
  const decoder = new TextDecoder();
  return bytes.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

/** The chunks ai 7's HTTP transport reads from the SSE text; any it refuses fails the test. */
async function parsedByAi7(sse: string): Promise<UIMessageChunk[]> {
  const results = await readAll(parseJsonEventStream({ stream: streamOf([new TextEncoder().encode(sse)]), schema: uiMessageChunkSchema() }));
  expect(results.filter((result) => !result.success)).toEqual([]);
  return results.flatMap((result) => (result.success ? [result.value] : []));
}

/** Every message `readUIMessageStream` of ai 7 publishes for the chunks (what `useChat` renders in turn). */
async function messagesOf(chunks: readonly UIMessageChunk[]): Promise<UIMessage[]> {
  const messages: UIMessage[] = [];
  for await (const message of readUIMessageStream({ stream: streamOf(chunks), onError: (error) => expect.unreachable(String(error)) })) messages.push(structuredClone(message));
  return messages;
}

const writeFilePart = (message: UIMessage | undefined) => message?.parts.find((part) => part.type === 'tool-write_file') as { state: string; input?: unknown } | undefined;

/** A transport on ai 7 whose every request is answered with the next of `bodies`, one SSE event per read. */
function transportAnswering(bodies: string[], contents: string[]) {
  const transport = new ArgstreamChatTransport({
    api: 'http://127.0.0.1/api/chat',
    schedule: 'sync',
    fetch: async () => new Response(paced(bodies.shift() ?? ''), { headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' } }),
  });
  transport.subscribe(() => {
    const input = transport.getSnapshot().calls[0]?.input as { content?: string } | undefined;
    if (input?.content !== undefined && input.content !== contents.at(-1)) contents.push(input.content);
  });
  return transport;
}

/** Each content seen is a prefix of the final one, and none is shorter than the one before (a restart aside). */
function expectGrowingPrefixes(contents: readonly string[], restarts = 0): void {
  for (const content of contents) expect(EXPECTED.content.startsWith(content), JSON.stringify(content.slice(-40))).toBe(true);
  const shrinks = contents.filter((content, i) => i > 0 && content.length < contents[i - 1]!.length).length;
  expect(shrinks).toBe(restarts);
}

describe("UIMessageStreamEncoder({ major: 7, toolInputs: 'path-updates' }) with ai 7", () => {
  it('ai 7 accepts every chunk and ends with the message it ends with from deltas; the part never holds a partial input', async () => {
    const updates = await parsedByAi7(await encoded('path-updates'));
    const deltas = await parsedByAi7(await encoded('deltas'));
    expect(updates.filter((chunk) => chunk.type === 'tool-input-delta')).toEqual([]);
    const data = updates.filter((chunk) => chunk.type === 'data-argstream-tool-input');
    expect(data.length).toBeGreaterThan(20);
    expect(data.every((chunk) => (chunk as { transient?: boolean }).transient === true)).toBe(true);
    expect(deltas.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeGreaterThan(20);

    const fromUpdates = await messagesOf(updates);
    const fromDeltas = await messagesOf(deltas);
    expect(fromUpdates.at(-1)?.parts).toEqual(fromDeltas.at(-1)?.parts);
    expect(writeFilePart(fromUpdates.at(-1))).toMatchObject({ state: 'input-available', input: EXPECTED });
    // While the call streams, the part has no input: ai 7 had nothing to re-parse.
    const streaming = fromUpdates.map(writeFilePart).filter((part) => part?.state === 'input-streaming');
    expect(streaming.length).toBeGreaterThan(0);
    expect(streaming.map((part) => part?.input)).toEqual(streaming.map(() => undefined));
    // With deltas, ai 7 re-parses a growing input at each one.
    expect(fromDeltas.map(writeFilePart).filter((part) => part?.state === 'input-streaming' && part.input !== undefined).length).toBeGreaterThan(20);
  });

  it("ArgstreamChatTransport (ai 7) under @ai-sdk/react 4's Chat: the snapshot's content grows by prefixes and ends exactly; the chat's message has the exact input", async () => {
    const contents: string[] = [];
    const transport = transportAnswering([await encoded('path-updates')], contents);
    // TypeScript types the transport by `ai` 5 (it does not see vi.mock): ai 7's Chat takes it as its own.
    const chat = new Chat({ transport: transport as unknown as NonNullable<NonNullable<ConstructorParameters<typeof Chat>[0]>['transport']> });
    await chat.sendMessage({ text: 'Write a word counter in Rust to src/main.rs' });
    expect(chat.status).toBe('ready');
    expect(chat.error).toBeUndefined();
    expect(writeFilePart(chat.messages.at(-1) as UIMessage)).toMatchObject({ state: 'input-available', input: EXPECTED });
    expect(transport.getSnapshot().calls.map((call) => [call.toolName, call.status, call.input])).toEqual([['write_file', 'complete', EXPECTED]]);
    expect(contents.length).toBeGreaterThan(20);
    expectGrowingPrefixes(contents);
    expect(contents.at(-1)).toBe(EXPECTED.content);
  });

  it('a resume replays the response from its start: the snapshot starts over, the content never doubles, and ends exactly', async () => {
    const sse = await encoded('path-updates');
    const events = sse.split(/(?<=\n\n)/);
    // Cut in the middle of the content: some path updates of the call arrived, not all.
    const updates = events.flatMap((event, i) => (event.includes('"data-argstream-tool-input"') ? [i] : []));
    const cut = updates[Math.floor(updates.length / 2)]! + 1;
    const contents: string[] = [];
    const transport = transportAnswering([events.slice(0, cut).join(''), sse], contents);
    expect(transport.resumeStreamIsReplay).toBe(true);
    await readAll(await transport.sendMessages(SEND));
    const before = contents.at(-1)!;
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(EXPECTED.content.length);
    expect(transport.getSnapshot().calls[0]?.status).toBe('streaming');

    await readAll((await transport.reconnectToStream({ chatId: 'chat' }))!);
    // The replay went through the same prefixes again, from the start: one restart, no doubled text.
    expectGrowingPrefixes(contents, 1);
    expect(contents.at(-1)).toBe(EXPECTED.content);
    expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual([['complete', EXPECTED]]);
  });
});
