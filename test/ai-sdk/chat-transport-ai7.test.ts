/**
 * `ArgstreamChatTransport` with the real `ai` 7 (the transport's `ai` import served by `ai7`): the
 * AI SDK's own ai 7 recordings through the transport, as with ai 5 (chat-transport.test.ts), and
 * ai 7's resume: `resumeStreamIsReplay` (true by default) — a resumed stream replays the response
 * from its start and the snapshot starts over with it, so the partial input never doubles.
 */
import { readFileSync } from 'node:fs';
import { AbstractChat, DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai7';
import { describe, expect, it, vi } from 'vitest';
import { readAll } from '../helpers.ts';
import { chatServer, chatTests, type ChatTestSetup, chunksOf, continuingResumeTests, DIR, eventsOf, MemoryChatState, recordings, SEND, streamOfItems, transportOptions, until } from './transport-helpers.ts';
import { IncompleteToolCallError } from '../../src/store/turn-store.ts';

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
  defaultTransport: (options) => new DefaultChatTransport(options),
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

describe("ArgstreamChatTransport's close() (ai 7's ChatTransport.close)", () => {
  const events = eventsOf(readFileSync(new URL('ai7-reasoning-text-write-file.sse', DIR), 'utf8'));
  const cut = events.findIndex((event) => event.includes('tool-input-delta')) + 2;
  const partial = { path: 'src/main.rs', content: 'fn main() {\n' };
  const cutCall = (snapshot: { calls: readonly { status: string; input: unknown }[] }) =>
    snapshot.calls[0]?.status === 'streaming' && (snapshot.calls[0].input as { content?: string }).content === partial.content;

  it("is what Chat.dispose() calls after stop(): the snapshot ends stopped, the request ends; a later chat on the transport streams, its listeners told", async () => {
    const server = await chatServer((index) => (index === 0 ? { events, holdAfter: cut } : { events }));
    try {
      const transport = new ArgstreamChatTransport({ api: server.api, schedule: 'sync' });
      const close = vi.spyOn(transport, 'close');
      const statuses: string[] = [];
      transport.subscribe(() => statuses.push(transport.getSnapshot().status));
      // The transport's class extends the `ai` the types see (5); at run time it is ai 7's.
      const chat = new Chat({ transport: transport as never });
      const sending = chat.sendMessage({ text: 'write it' });
      await until(transport, cutCall);
      await chat.dispose();
      await sending;
      expect(close).toHaveBeenCalledTimes(1);
      expect(transport.getSnapshot().status).toBe('done');
      expect(transport.getSnapshot().calls).toEqual([expect.objectContaining({ status: 'failed', input: partial, error: expect.any(IncompleteToolCallError) })]);
      expect(await (await server.request(0)).done).toBe('left');
      statuses.length = 0;
      await new Chat({ transport: transport as never }).sendMessage({ text: 'again' });
      expect(statuses.at(-1)).toBe('done');
      expect(statuses).toContain('streaming');
      expect(transport.getSnapshot().calls).toEqual([expect.objectContaining({ status: 'complete', input: expect.objectContaining({ path: 'src/main.rs' }) })]);
    } finally {
      await server.close();
    }
  });

  it('ends a response still being read: the stream errors with an AbortError, the request ends, the snapshot ends stopped', async () => {
    const server = await chatServer(() => ({ events, holdAfter: cut }));
    try {
      const transport = new ArgstreamChatTransport({ api: server.api, schedule: 'sync' });
      const reader = (await transport.sendMessages(SEND)).getReader();
      const reading = (async () => {
        for (;;) if ((await reader.read()).done) return undefined;
      })().catch((error: unknown) => error);
      await until(transport, cutCall);
      transport.close();
      expect(await reading).toMatchObject({ name: 'AbortError' });
      expect(await (await server.request(0)).done).toBe('left');
      expect(transport.getSnapshot().status).toBe('done');
      expect(transport.getSnapshot().calls).toEqual([expect.objectContaining({ status: 'failed', input: partial })]);
    } finally {
      await server.close();
    }
  });

  it('ends a snapshot kept streaming for a resume (a response that ended before its finish) as stopped', async () => {
    const transport = transportFor(() => events.slice(0, cut).join(''));
    await readAll(await transport.sendMessages(SEND));
    expect(transport.getSnapshot().status).toBe('streaming');
    transport.close();
    expect(transport.getSnapshot().status).toBe('done');
    expect(transport.getSnapshot().calls).toEqual([expect.objectContaining({ status: 'failed', input: partial })]);
  });
});
