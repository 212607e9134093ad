/**
 * `ArgstreamChatTransport` (issue 22 §1) with the real `ai` 5: the AI SDK's own recordings of UI
 * message streams go through the transport; what reaches the AI SDK is every chunk but the tool
 * input deltas, and `readUIMessageStream` ends with the same message as on the original chunks; the
 * transport's snapshot holds each call's input as it streams and at the end; a new request starts
 * a new snapshot, a resume continues it (ai 5) without doubling.
 */
import { readFileSync } from 'node:fs';
import { AbstractChat, DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { readAll } from '../helpers.ts';
import { chatTests, type ChatTestSetup, chunksOf, continuingResumeTests, DIR, eventsOf, gatedFetch, MemoryChatState, recordings, selfResumeTests, SEND, streamOfItems, transportOptions } from './transport-helpers.ts';

const RECORDINGS = recordings('ai5-');



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
  prefix: 'ai5-',
  transport: (options) => new ArgstreamChatTransport({ ...options, schedule: 'sync' }),
  defaultTransport: (options) => new DefaultChatTransport(options),
  chat: (options) => new Chat(options as never) as never,
};

describe('ArgstreamChatTransport with ai 5', () => {
  for (const name of RECORDINGS) {
    it(`${name}: the AI SDK gets every chunk but the input deltas and ends with the same message; the snapshot has the calls' inputs`, async () => {
      const sse = readFileSync(new URL(name, DIR), 'utf8');
      const original = chunksOf<UIMessageChunk>(sse);
      const transport = transportFor(() => sse);
      const seen: unknown[] = [];
      transport.subscribe(() => {
        const call = transport.getSnapshot().calls[0];
        if (call?.status === 'streaming') seen.push(call.input);
      });
      const routed = await readAll(await transport.sendMessages(SEND));
      // Every chunk but the deltas, in order; a call cut by an abort or an error gets its text so far as one delta.
      expect(routed.filter((chunk) => chunk.type !== 'tool-input-delta')).toEqual(original.filter((chunk) => chunk.type !== 'tool-input-delta'));
      const openAtStops = new Set(original.filter((chunk) => chunk.type === 'tool-input-start').map((chunk) => (chunk as { toolCallId: string }).toolCallId));
      for (const chunk of original) if (chunk.type === 'tool-input-available' || chunk.type === 'tool-input-error') openAtStops.delete(chunk.toolCallId);
      expect(routed.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeLessThanOrEqual(openAtStops.size);
      const expected = await lastMessage(original);
      const actual = await lastMessage(routed);
      // The AI SDK's message: the same parts (a call's `input` only once it is available).
      expect(actual?.parts).toEqual(expected?.parts);
      const snapshot = transport.getSnapshot();
      for (const part of expected?.parts ?? []) {
        if (!('toolCallId' in part) || part.state !== 'input-available' && part.state !== 'output-available') continue;
        const call = snapshot.calls.find((c) => c.toolCallId === part.toolCallId);
        expect(call?.input, part.toolCallId).toEqual(part.input);
      }
      if (original.some((chunk) => chunk.type === 'tool-input-delta')) expect(seen.length).toBeGreaterThan(0);
    });
  }

  it('while a call streams, the snapshot grows by prefixes of its input; a new request starts a new snapshot', async () => {
    const sse = readFileSync(new URL('ai5-reasoning-text-write-file.sse', DIR), 'utf8');
    const transport = transportFor(() => sse);
    const contents: string[] = [];
    transport.subscribe(() => {
      const call = transport.getSnapshot().calls[0];
      const content = (call?.input as { content?: string } | undefined)?.content;
      if (call?.status === 'streaming' && typeof content === 'string') contents.push(content);
    });
    await readAll(await transport.sendMessages(SEND));
    const final = (transport.getSnapshot().calls[0]?.input as { content: string }).content;
    expect(contents.length).toBeGreaterThan(1);
    for (const content of contents) expect(final.startsWith(content)).toBe(true);
    const first = transport.getSnapshot();
    await readAll(await transport.sendMessages(SEND));
    expect(transport.getSnapshot()).not.toBe(first);
    expect(transport.getSnapshot().calls).toHaveLength(first.calls.length);
  });

  it('a resume continues the snapshot (ai 5 continues its message): the partial input never doubles', async () => {
    const sse = readFileSync(new URL('ai5-reasoning-text-write-file.sse', DIR), 'utf8');
    const events = sse.split(/(?<=\n\n)/);
    const cut = events.findIndex((event) => event.includes('tool-input-delta')) + 2;
    let part = 0;
    const transport = transportFor(() => (part++ === 0 ? events.slice(0, cut).join('') : events.slice(cut).join('')));
    await readAll(await transport.sendMessages(SEND)).catch(() => undefined);
    // Cut: the call is still streaming, with what had arrived.
    expect(transport.getSnapshot().calls[0]?.status).toBe('streaming');
    const resumed = await transport.reconnectToStream({ chatId: 'chat' });
    await readAll(resumed!);
    const whole = transportFor(() => sse);
    await readAll(await whole.sendMessages(SEND));
    expect(transport.getSnapshot().calls.map((c) => c.input)).toEqual(whole.getSnapshot().calls.map((c) => c.input));
  });
  it('once the snapshot can no longer follow (an error chunk mid-call), the AI SDK gets the text so far as one delta, then every delta: its message shows what it shows without argstream', async () => {
    const deltas = ['{"path":"a.txt","con', 'tent":"one ', 'two ', 'three"}'];
    const chunks = [
      { type: 'start', messageId: 'm1' },
      { type: 'start-step' },
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 'write_file' },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: deltas[0] },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: deltas[1] },
      { type: 'error', errorText: 'the tool input stream hiccuped' },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: deltas[2] },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: deltas[3] },
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'write_file', input: { path: 'a.txt', content: 'one two three' } },
      { type: 'finish-step' },
      { type: 'finish' },
    ];
    const sse = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
    const transport = transportFor(() => sse);
    const routed = await readAll(await transport.sendMessages(SEND));
    /** The call's input in each message the AI SDK yields, repeats left out. */
    const inputs = async (stream: readonly UIMessageChunk[]) => {
      const seen: unknown[] = [];
      for await (const message of readUIMessageStream({ stream: streamOfItems(stream), onError: () => undefined })) {
        const input = (message.parts.find((part) => 'toolCallId' in part) as { input?: unknown } | undefined)?.input;
        if (input !== undefined && JSON.stringify(input) !== JSON.stringify(seen.at(-1))) seen.push(input);
      }
      return seen;
    };
    const original = await inputs(chunks as UIMessageChunk[]);
    // Before the error the deltas went to argstream: the AI SDK starts at the text so far.
    expect(await inputs(routed)).toEqual(original.slice(1));
    expect(original.slice(1)).toEqual([
      { path: 'a.txt', content: 'one ' },
      { path: 'a.txt', content: 'one two ' },
      { path: 'a.txt', content: 'one two three' },
    ]);
    expect(routed.filter((chunk) => chunk.type !== 'tool-input-delta')).toEqual(chunks.filter((chunk) => chunk.type !== 'tool-input-delta'));
    // The snapshot stays as the error left it.
    const snapshot = transport.getSnapshot();
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toMatchObject({ provider: 'ai-sdk-ui', type: 'error', message: 'the tool input stream hiccuped' });
    expect(snapshot.calls).toEqual([expect.objectContaining({ toolCallId: 'c1', status: 'failed', input: { path: 'a.txt', content: 'one ' } })]);
  });

  it('decides at each call what its response is: a send made while a resume waits is a new turn, and the resume goes on with its own', async () => {
    const sse = readFileSync(new URL('ai5-reasoning-text-write-file.sse', DIR), 'utf8');
    const other = readFileSync(new URL('ai5-whole-tool-calls.sse', DIR), 'utf8');
    const events = eventsOf(sse);
    const cut = events.findIndex((event) => event.includes('tool-input-delta')) + 2;
    const turnOf = async (recording: string) => {
      const whole = transportFor(() => recording);
      await readAll(await whole.sendMessages(SEND));
      return summary(whole.getSnapshot());
    };
    const cutTurn = await turnOf(sse);
    const otherTurn = await turnOf(other);
    for (const first of ['the send', 'the resume'] as const) {
      const gate = gatedFetch();
      const transport = new ArgstreamChatTransport({ api: 'http://127.0.0.1/api/chat', schedule: 'sync', reconnect: false, fetch: gate.fetch });
      const sent = transport.sendMessages(SEND);
      (await gate.next()).answer(events.slice(0, cut).join(''));
      await readAll(await sent);
      expect(transport.getSnapshot().calls[0]?.status).toBe('streaming');
      // A resume, then a new request while the resume waits for its response.
      const resumed = transport.reconnectToStream({ chatId: 'chat' });
      const resume = await gate.next();
      const next = transport.sendMessages(SEND);
      const send = await gate.next();
      const answerSend = async () => {
        send.answer(other);
        await readAll(await next);
        expect(summary(transport.getSnapshot()), first).toEqual(otherTurn);
      };
      const answerResume = async () => {
        resume.answer(events.slice(cut).join(''));
        await readAll((await resumed)!);
        expect(summary(transport.getSnapshot()), first).toEqual(cutTurn);
      };
      if (first === 'the send') {
        await answerSend();
        await answerResume();
      } else {
        await answerResume();
        await answerSend();
      }
    }
  });
});

/** What a snapshot says of a turn: its status, text and calls. */
function summary(snapshot: { status: string; text: string; calls: readonly { toolCallId: string; status: string; input: unknown }[] }) {
  return { status: snapshot.status, text: snapshot.text, calls: snapshot.calls.map((call) => [call.toolCallId, call.status, call.input]) };
}

describe("ArgstreamChatTransport with ai 5's Chat, over HTTP", () => {
  chatTests(SETUP);
  continuingResumeTests(SETUP);
});

describe("ArgstreamChatTransport resumes a cut response by itself, with ai 5's Chat over HTTP", () => {
  selfResumeTests(SETUP);
});
