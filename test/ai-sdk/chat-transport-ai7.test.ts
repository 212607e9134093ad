/**
 * `ArgstreamChatTransport` with the real `ai` 7 (the transport's `ai` import served by `ai7`): the
 * AI SDK's own ai 7 recordings through the transport, as with ai 5 (chat-transport.test.ts), and
 * ai 7's resume: `resumeStreamIsReplay` (true by default) — a resumed stream replays the response
 * from its start and the snapshot starts over with it, so the partial input never doubles.
 */
import { readFileSync } from 'node:fs';
import { AbstractChat, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai7';
import { describe, expect, it, vi } from 'vitest';
import { readAll } from '../helpers.ts';
import { chatTests, type ChatTestSetup, chunksOf, continuingResumeTests, DIR, MemoryChatState, recordings, SEND, streamOfItems, transportOptions } from './transport-helpers.ts';

vi.mock('ai', async () => await import('ai7'));
const { ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts');

const RECORDINGS = recordings('ai7-');


async function lastMessage(chunks: readonly UIMessageChunk[]): Promise<UIMessage | undefined> {
  let message: UIMessage | undefined;
  const stream = streamOfItems(chunks);
  for await (const next of readUIMessageStream({ stream, onError: () => undefined })) message = next;
  return message;
}



function transportFor(sse: () => string) {
  return new ArgstreamChatTransport(transportOptions(sse));
}

/** The AI SDK's own Chat (what useChat runs), with the state in memory. */
class Chat extends AbstractChat<UIMessage> {
  constructor(options: Omit<ConstructorParameters<typeof AbstractChat<UIMessage>>[0], 'state'>) {
    super({ ...options, state: new MemoryChatState<UIMessage>() });
  }
}

const SETUP: ChatTestSetup = {
  prefix: 'ai7-',
  transport: (options) => new ArgstreamChatTransport({ ...options, schedule: 'sync' }),
  chat: (options) => new Chat(options as never) as never,
};

describe('ArgstreamChatTransport with ai 7', () => {
  it('extends ai 7 itself: it says resumed streams replay, as DefaultChatTransport does', () => {
    expect(transportFor(() => '').resumeStreamIsReplay).toBe(true);
  });

  for (const name of RECORDINGS) {
    it(`${name}: the AI SDK ends with the same message without the deltas; the snapshot has the calls' inputs`, async () => {
      const sse = readFileSync(new URL(name, DIR), 'utf8');
      const original = chunksOf<UIMessageChunk>(sse);
      const transport = transportFor(() => sse);
      const routed = (await readAll(await transport.sendMessages(SEND))) as UIMessageChunk[];
      expect(routed.filter((chunk) => chunk.type !== 'tool-input-delta')).toEqual(original.filter((chunk) => chunk.type !== 'tool-input-delta'));
      const expected = await lastMessage(original);
      expect((await lastMessage(routed))?.parts).toEqual(expected?.parts);
      for (const part of expected?.parts ?? []) {
        if (!('toolCallId' in part) || (part.state !== 'input-available' && part.state !== 'output-available')) continue;
        expect(transport.getSnapshot().calls.find((c) => c.toolCallId === part.toolCallId)?.input, part.toolCallId).toEqual(part.input);
      }
    });
  }

  it('a resume replays from the start and the snapshot starts over with it: the partial input never doubles', async () => {
    const sse = readFileSync(new URL('ai7-reasoning-text-write-file.sse', DIR), 'utf8');
    const events = sse.split(/(?<=\n\n)/);
    const cut = events.findIndex((event) => event.includes('tool-input-delta')) + 2;
    let part = 0;
    const transport = transportFor(() => (part++ === 0 ? events.slice(0, cut).join('') : sse));
    await readAll(await transport.sendMessages(SEND));
    const cutSnapshot = transport.getSnapshot();
    expect(cutSnapshot.calls[0]?.status).toBe('streaming');
    await readAll((await transport.reconnectToStream({ chatId: 'chat' }))!);
    const whole = transportFor(() => sse);
    await readAll(await whole.sendMessages(SEND));
    expect(transport.getSnapshot()).not.toBe(cutSnapshot);
    expect(transport.getSnapshot().calls.map((c) => [c.status, c.input])).toEqual(whole.getSnapshot().calls.map((c) => [c.status, c.input]));
  });
});

describe("ArgstreamChatTransport with ai 7's Chat, over HTTP", () => {
  chatTests(SETUP);
});

describe('ArgstreamChatTransport with ai 7 and resumeStreamIsReplay: false', () => {
  continuingResumeTests({ ...SETUP, replay: false });
});
