/**
 * What the transport tests of every major share: a recording's chunks, a body paced one SSE event
 * per read, the request of a send, a loopback chat server, the tests run with the real `Chat` of
 * each major, and the suites of the majors whose resume replays (6 and 7), each registered by a
 * file of its own that serves the transport's `ai` import with that major (`vi.mock('ai', …)`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { UIMessageStreamEncoder } from '../../src/ai-sdk/ui-message-stream-encoder.ts';
import { IncompleteToolCallError } from '../../src/store/turn-store.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { RelayError } from '../../src/errors.ts';
import { pacedStreamOf, readAll, streamOf } from '../helpers.ts';
import { anthropicWriteFile, proxy } from '../relay/relay-helpers.ts';

/** A part of a `UIMessage` as the tests read it (both majors' shapes). */
export interface UIPart {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  providerExecuted?: boolean;
}

export const DIR = new URL('../fixtures/ai-sdk-ui/', import.meta.url);

/** The prefix of one major's recordings. */
export type RecordingPrefix = 'ai5-' | 'ai6-' | 'ai7-';

/** The recordings of one major (`ai5-…`, `ai6-…`, `ai7-…`). */
export function recordings(prefix: RecordingPrefix): string[] {
  return readdirSync(DIR).filter((name) => name.startsWith(prefix) && name.endsWith('.sse'));
}

/** The chunk objects of a recording, as the AI SDK's own transport parses them. */
export function chunksOf<T>(sse: string): T[] {
  return sse
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as T);
}

/** A stream of `items`, then its end. */
export function streamOfItems<T>(items: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

/** A body that sends the SSE events one per read, a macrotask apart. */
export function paced(sse: string): ReadableStream<Uint8Array> {
  return pacedStreamOf(sse.split(/(?<=\n\n)/).map((event) => new TextEncoder().encode(event)));
}

/**
 * The options of a transport whose every request answers the next `sse()`, paced; a response
 * cut short stays cut (`reconnect: false`), for the test to resume it or not.
 */
export function transportOptions(sse: () => string) {
  return {
    api: 'http://127.0.0.1/api/chat',
    schedule: 'sync' as const,
    reconnect: false,
    fetch: async () => new Response(paced(sse()), { headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' } }),
  };
}

/** A send's options, as `useChat` gives them. */
export const SEND = { trigger: 'submit-message' as const, chatId: 'chat', messageId: undefined, messages: [], abortSignal: undefined };

// ---------------------------------------------------------------------------------------------
// A real HTTP server on the loopback interface, for the AI SDK's `Chat` over real `fetch`.

/** What the server answers one request with. */
export interface Reply {
  /** The SSE events to send, one per write. */
  readonly events: readonly string[];
  /** After that many events, wait: for `release()` (then send the rest), or for the client to leave. */
  readonly holdAfter?: number;
  /** After that many events, cut the connection (a network failure: the socket is destroyed). */
  readonly dropAfter?: number;
  /** Answer with this status instead (no events; a 4xx or 5xx says so in its body). */
  readonly status?: number;
}

/** One request the server got. */
export interface ServedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  /** Send the rest of a held reply. */
  release(): void;
  /** Settles when the exchange is over: `'ended'` (the reply was sent whole) or `'left'` (the client went away first). */
  readonly done: Promise<'ended' | 'left'>;
}

export interface ChatServer {
  /** `http://127.0.0.1:<port>/api/chat` */
  readonly api: string;
  /** The requests so far, in order. */
  readonly requests: ServedRequest[];
  /** Resolves with the `index`th request once it has arrived. */
  request(index: number): Promise<ServedRequest>;
  close(): Promise<void>;
}

/** The SSE events of a recording, each with its blank line. */
export function eventsOf(sse: string): string[] {
  return sse.split(/(?<=\n\n)/);
}

/**
 * A server whose every request (`POST /api/chat`, `GET /api/chat/<id>/stream`) is answered by the
 * next of `replies` (a function of the request's number), as an AI SDK server answers: SSE with
 * the UI message stream headers, one event per write.
 */
export async function chatServer(replies: (index: number, method: string) => Reply): Promise<ChatServer> {
  const { createServer } = await import('node:http');
  const requests: ServedRequest[] = [];
  const waiting = new Map<number, (request: ServedRequest) => void>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => void (body += piece));
    req.on('end', () => {
      const index = requests.length;
      const reply = replies(index, req.method ?? 'GET');
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let left = false;
      const done = new Promise<'ended' | 'left'>((resolve) => {
        res.on('close', () => {
          left = !res.writableFinished;
          resolve(left ? 'left' : 'ended');
        });
      });
      const request: ServedRequest = { method: req.method ?? '', url: req.url ?? '', body, release, done };
      requests.push(request);
      waiting.get(index)?.(request);
      if (reply.status !== undefined) {
        res.writeHead(reply.status, { 'content-type': 'text/plain' });
        res.end(reply.status === 204 ? undefined : `answered ${reply.status}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-vercel-ai-ui-message-stream': 'v1' });
      void (async () => {
        for (let at = 0; at < reply.events.length; at++) {
          if (left) return;
          if (at === reply.holdAfter) await Promise.race([released, done]);
          if (at === reply.dropAfter) {
            req.socket.destroy();
            return;
          }
          if (left) return;
          res.write(reply.events[at]);
          await new Promise((resolve) => setImmediate(resolve));
        }
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    api: `http://127.0.0.1:${port}/api/chat`,
    requests,
    request: (index) => (requests[index] !== undefined ? Promise.resolve(requests[index]) : new Promise((resolve) => waiting.set(index, resolve))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves once `test` holds for the store-like `source`'s snapshot (checked now and at every change). */
export function until<S>(source: { subscribe(listener: () => void): () => void; getSnapshot(): S }, test: (snapshot: S) => boolean): Promise<S> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const snapshot = source.getSnapshot();
      if (!test(snapshot)) return false;
      resolve(snapshot);
      return true;
    };
    if (check()) return;
    const unsubscribe = source.subscribe(() => {
      if (check()) unsubscribe();
    });
  });
}

/** A `ChatState` in memory: what `AbstractChat` needs to run outside a framework. */
export class MemoryChatState<M> {
  status: 'submitted' | 'streaming' | 'ready' | 'error' = 'ready';
  error: Error | undefined = undefined;
  messages: M[] = [];
  pushMessage = (message: M): void => void this.messages.push(message);
  popMessage = (): void => void this.messages.pop();
  replaceMessage = (index: number, message: M): void => {
    this.messages[index] = message;
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** A request of a {@link gatedFetch}, waiting for the test to answer it. */
export interface GatedRequest {
  readonly method: string;
  /** Answer with `sse`, paced. */
  answer(sse: string): void;
}

/**
 * A `fetch` whose responses the test gives, in any order: each request waits in `requests` until
 * answered (`next()` resolves with the next one to arrive).
 */
export function gatedFetch() {
  const requests: GatedRequest[] = [];
  const waiting: Array<(request: GatedRequest) => void> = [];
  let taken = 0;
  const fetch = (_url: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve) => {
      const request: GatedRequest = {
        method: init?.method ?? 'GET',
        answer: (sse) => resolve(new Response(paced(sse), { headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' } })),
      };
      requests.push(request);
      waiting.shift()?.(request);
    });
  const next = (): Promise<GatedRequest> => {
    const index = taken++;
    return requests[index] !== undefined ? Promise.resolve(requests[index]) : new Promise((resolve) => waiting.push(resolve));
  };
  return { fetch, next };
}

// ---------------------------------------------------------------------------------------------
// The tests with the AI SDK's own `Chat` (its `AbstractChat`, as useChat runs it), for each major.

/** What the tests use of an `AbstractChat`. */
export interface ChatLike {
  readonly status: string;
  readonly error: Error | undefined;
  readonly messages: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  sendMessage(message: { text: string }): Promise<void>;
  resumeStream(): Promise<void>;
  stop(): Promise<void>;
}

/** A transport as the tests see it (the class of `src/`, whatever `ai` it extends). */
export interface TransportLike {
  subscribe(listener: () => void): () => void;
  getSnapshot(): {
    status: string;
    text: string;
    error: Error | undefined;
    calls: readonly { toolCallId: string; toolName: string; status: string; input: unknown; error?: Error }[];
  };
  sendMessages(options: Omit<typeof SEND, 'abortSignal'> & { abortSignal: AbortSignal | undefined }): Promise<ReadableStream<unknown>>;
}

export interface ChatTestSetup {
  readonly prefix: RecordingPrefix;
  readonly transport: (options: { api: string; resumeStreamIsReplay?: boolean; reconnect?: boolean | { maxAttempts?: number; maxReconnectMs?: number; initialDelayMs?: number; maxDelayMs?: number; onRetry?: (attempt: number, error: unknown, delayMs: number) => void } }) => TransportLike;
  /** The AI SDK's own `DefaultChatTransport` of the major. */
  readonly defaultTransport: (options: { api: string }) => unknown;
  readonly chat: (options: { transport: unknown; onToolCall?: (options: { toolCall: { toolCallId: string; toolName: string; input: unknown } }) => void }) => ChatLike;
}

/** The events of a recording, and where its write_file call has had two deltas. */
function writeFile(prefix: string): { events: string[]; cut: number; partial: { path: string; content: string } } {
  const events = eventsOf(readFileSync(new URL(`${prefix}reasoning-text-write-file.sse`, DIR), 'utf8'));
  return { events, cut: events.findIndex((event) => event.includes('tool-input-delta')) + 2, partial: { path: 'src/main.rs', content: 'fn main() {\n' } };
}

const INPUT = { path: 'src/main.rs', content: 'fn main() {\n    println!("héllo, \\"wörld\\" 🚀");\n}\n' };

/** Registers the tests of the transport with the AI SDK's `Chat` of one major, over real HTTP. */
export function chatTests(setup: ChatTestSetup): void {
  const { events, cut, partial } = writeFile(setup.prefix);
  const cutCall = (snapshot: ReturnType<TransportLike['getSnapshot']>) => snapshot.calls[0]?.status === 'streaming' && (snapshot.calls[0].input as { content?: string }).content === partial.content;

  for (const name of recordings(setup.prefix)) {
    it(`${name}: onToolCall fires as with the AI SDK's own transport, with each call's exact input; the chat ends with the same message`, async () => {
      const sse = readFileSync(new URL(name, DIR), 'utf8');
      const server = await chatServer(() => ({ events: eventsOf(sse) }));
      try {
        const run = async (transport: unknown) => {
          const toolCalls: unknown[] = [];
          const chat = setup.chat({ transport, onToolCall: ({ toolCall }) => void toolCalls.push(toolCall) });
          await chat.sendMessage({ text: 'write it' });
          return { toolCalls, status: chat.status, error: chat.error?.message, parts: chat.messages.at(-1)?.parts };
        };
        const expected = await run(setup.defaultTransport({ api: server.api }));
        const transport = setup.transport({ api: server.api });
        expect(await run(transport)).toEqual(expected);
        for (const toolCall of expected.toolCalls as Array<{ toolCallId: string; input: unknown }>) {
          expect(transport.getSnapshot().calls.find((call) => call.toolCallId === toolCall.toolCallId)?.input).toEqual(toolCall.input);
        }
        if (name.includes('write-file')) expect(expected.toolCalls).toEqual([expect.objectContaining({ toolCallId: 'call_1', toolName: 'write_file', input: INPUT })]);
      } finally {
        await server.close();
      }
    });
  }

  it("a call whose deltas stop short of tool-input-available's input (the AI SDK's OpenAI Responses provider takes it from output_item.done): the snapshot ends with that input, complete, as the chat and onToolCall have it with the AI SDK's own transport", async () => {
    // The last delta is lost: the deltas stop inside `content`; the input is whole.
    const last = events.map((event) => event.includes('tool-input-delta')).lastIndexOf(true);
    const server = await chatServer(() => ({ events: events.filter((_, at) => at !== last) }));
    try {
      const run = async (transport: unknown) => {
        const toolCalls: unknown[] = [];
        const chat = setup.chat({ transport, onToolCall: ({ toolCall }) => void toolCalls.push(toolCall.input) });
        await chat.sendMessage({ text: 'write it' });
        return { toolCalls, status: chat.status, parts: chat.messages.at(-1)?.parts };
      };
      const expected = await run(setup.defaultTransport({ api: server.api }));
      expect(expected.toolCalls).toEqual([INPUT]);
      const transport = setup.transport({ api: server.api });
      expect(await run(transport)).toEqual(expected);
      expect(transport.getSnapshot().calls).toEqual([expect.objectContaining({ toolCallId: 'call_1', status: 'complete', input: INPUT })]);
    } finally {
      await server.close();
    }
  });

  it("stop() mid-call ends the snapshot as stopped: done, the call cut mid-input failed with what had arrived; the request ends, the chat is ready", async () => {
    const server = await chatServer(() => ({ events, holdAfter: cut }));
    try {
      const transport = setup.transport({ api: server.api });
      const chat = setup.chat({ transport });
      const sending = chat.sendMessage({ text: 'write it' });
      await until(transport, cutCall);
      await chat.stop();
      await sending;
      const snapshot = transport.getSnapshot();
      expect(snapshot).toMatchObject({ status: 'done', error: undefined, text: "I'll write the file now." });
      expect(snapshot.calls).toEqual([expect.objectContaining({ toolCallId: 'call_1', status: 'failed', input: partial, error: expect.any(IncompleteToolCallError) })]);
      expect([chat.status, chat.error]).toEqual(['ready', undefined]);
      expect(await (await server.request(0)).done).toBe('left');
    } finally {
      await server.close();
    }
  });

  it("the server's abort chunk ends the snapshot as stopped, as the chat ends (ready, no error), the cut call with what had arrived", async () => {
    const server = await chatServer(() => ({ events: eventsOf(readFileSync(new URL(`${setup.prefix}abort-mid-call.sse`, DIR), 'utf8')) }));
    try {
      const transport = setup.transport({ api: server.api });
      const chat = setup.chat({ transport });
      await chat.sendMessage({ text: 'write it' });
      expect([chat.status, chat.error]).toEqual(['ready', undefined]);
      // The abort is the response's end: the transport does not resume after it.
      expect(server.requests).toHaveLength(1);
      const snapshot = transport.getSnapshot();
      expect(snapshot).toMatchObject({ status: 'done', error: undefined, text: 'Writing.' });
      expect(snapshot.calls).toEqual([expect.objectContaining({ toolCallId: 'call_1', status: 'failed', input: partial, error: expect.any(IncompleteToolCallError) })]);
    } finally {
      await server.close();
    }
  });

  it("aborting the request's signal ends the snapshot as stopped, and the stream with an AbortError", async () => {
    const server = await chatServer(() => ({ events, holdAfter: cut }));
    try {
      const transport = setup.transport({ api: server.api });
      const controller = new AbortController();
      const reader = (await transport.sendMessages({ ...SEND, abortSignal: controller.signal })).getReader();
      const reading = (async () => {
        for (;;) if ((await reader.read()).done) return undefined;
      })().catch((error: unknown) => error);
      await until(transport, cutCall);
      controller.abort();
      expect(await reading).toMatchObject({ name: 'AbortError' });
      const snapshot = transport.getSnapshot();
      expect(snapshot.status).toBe('done');
      expect(snapshot.calls).toEqual([expect.objectContaining({ status: 'failed', input: partial, error: expect.any(IncompleteToolCallError) })]);
      expect(await (await server.request(0)).done).toBe('left');
    } finally {
      await server.close();
    }
  });

  it('without reconnect, a connection that breaks mid-call fails the snapshot with its error, the one the chat shows', async () => {
    const server = await chatServer(() => ({ events, dropAfter: cut }));
    try {
      const transport = setup.transport({ api: server.api, reconnect: false });
      const chat = setup.chat({ transport });
      await chat.sendMessage({ text: 'write it' });
      expect(chat.status).toBe('error');
      const snapshot = transport.getSnapshot();
      expect(snapshot.status).toBe('error');
      expect(snapshot.error).toBe(chat.error);
      expect(snapshot.error).toBeInstanceOf(TypeError);
      expect(snapshot.calls).toEqual([expect.objectContaining({ status: 'failed', input: partial, error: snapshot.error })]);
    } finally {
      await server.close();
    }
  });
}

/**
 * Registers the tests of a resume that continues the turn (ai 5; ai 7 with `resumeStreamIsReplay:
 * false`): the server's resume sends what follows the cut.
 */
export function continuingResumeTests(setup: ChatTestSetup & { readonly replay?: false }): void {
  const { events, cut, partial } = writeFile(setup.prefix);
  // The page resumes (resumeStream()): the transport does not by itself.
  const options = (api: string) => (setup.replay === false ? { api, resumeStreamIsReplay: false, reconnect: false } : { api, reconnect: false });

  for (const how of ['the connection broke', 'the user stopped'] as const) {
    it(`after ${how} mid-call, resumeStream() goes on with the snapshot: the whole input, never doubled`, async () => {
      const server = await chatServer((index) => (index === 0 ? (how === 'the connection broke' ? { events, dropAfter: cut } : { events, holdAfter: cut }) : { events: events.slice(cut) }));
      try {
        const transport = setup.transport(options(server.api));
        const chat = setup.chat({ transport });
        const sending = chat.sendMessage({ text: 'write it' });
        if (how === 'the user stopped') {
          await until(transport, (snapshot) => (snapshot.calls[0]?.input as { content?: string } | undefined)?.content === partial.content);
          await chat.stop();
        }
        await sending;
        expect(transport.getSnapshot().calls[0]).toMatchObject({ status: 'failed', input: partial });
        await chat.resumeStream();
        expect((await server.request(1)).method).toBe('GET');
        const snapshot = transport.getSnapshot();
        expect(snapshot).toMatchObject({ status: 'done', error: undefined, text: "I'll write the file now." });
        expect(snapshot.calls).toEqual([expect.objectContaining({ toolCallId: 'call_1', status: 'complete', input: INPUT })]);
        const parts = chat.messages.at(-1)?.parts.filter((part) => part['type'] === 'tool-write_file');
        expect(parts).toEqual([expect.objectContaining({ toolCallId: 'call_1', state: 'input-available', input: INPUT })]);
      } finally {
        await server.close();
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The suites of the majors whose resume replays the response (ai 6 from 6.0.304, ai 7).

/** A message as the suites read it (any major's `UIMessage`). */
export interface MessageLike {
  readonly parts: ReadonlyArray<{ readonly type: string; readonly state?: string; readonly toolCallId?: string; readonly input?: unknown }>;
}

/** A chunk as the suites read it (any major's `UIMessageChunk`). */
export type ChunkLike = { readonly type: string; readonly [key: string]: unknown };

/** One major of `ai`, for {@link replayingTransportTests} and {@link pathUpdateTests}. */
export interface ReplayingMajor extends ChatTestSetup {
  readonly major: 6 | 7;
  /** `ArgstreamChatTransport`, its `ai` import served by the major (its types are `ai` 5's: `vi.mock` is not seen by TypeScript). */
  readonly Transport: typeof ArgstreamChatTransport;
  /** The major's `HttpChatTransport`, which the transport must extend. */
  readonly HttpChatTransport: AiPackage['HttpChatTransport'];
  /** The major's `readUIMessageStream`. */
  readonly readUIMessageStream: (options: { stream: ReadableStream<never>; onError?: (error: unknown) => void }) => AsyncIterable<MessageLike>;
  /** The major's `parseJsonEventStream` with its `uiMessageChunkSchema()`, as its HTTP transport reads a response. */
  readonly parse: (bytes: ReadableStream<Uint8Array>) => ReadableStream<{ success: boolean; value?: unknown }>;
  /** The `Chat` of the major's `@ai-sdk/react` (the class `useChat` runs), with its `dispose()` where it has one (ai 7). */
  readonly reactChat: (transport: unknown) => ChatLike & { dispose?: () => Promise<void> | void };
}

/** What {@link replayingMajor} uses of a major's `ai` package. */
export interface AiPackage {
  readonly AbstractChat: abstract new (options: never) => unknown;
  readonly HttpChatTransport: abstract new (options: never) => unknown;
  readonly DefaultChatTransport: new (options: { api: string }) => unknown;
  readonly readUIMessageStream: unknown;
  readonly parseJsonEventStream: unknown;
  readonly uiMessageChunkSchema: () => unknown;
}

/**
 * The setup of a major for the suites: its `ai` package, the `Chat` of its `@ai-sdk/react`, and
 * `ArgstreamChatTransport` as the test file imported it after serving its `ai` import with the
 * major (`vi.mock('ai', …)`, which only a test file can do).
 */
export function replayingMajor(major: 6 | 7, ai: AiPackage, ReactChat: new (options: { transport: never }) => unknown, Transport: typeof ArgstreamChatTransport): ReplayingMajor {
  /** The AI SDK's own Chat (what useChat runs), with the state in memory. */
  class Chat extends (ai.AbstractChat as abstract new (options: object) => object) {
    constructor(options: object) {
      super({ ...options, state: new MemoryChatState<unknown>() });
    }
  }
  const parse = ai.parseJsonEventStream as (options: { stream: ReadableStream<Uint8Array>; schema: unknown }) => ReadableStream<{ success: boolean; value?: unknown }>;
  return {
    major,
    prefix: `ai${major}-`,
    Transport,
    HttpChatTransport: ai.HttpChatTransport,
    transport: (options) => new Transport({ ...options, schedule: 'sync' }),
    defaultTransport: (options) => new ai.DefaultChatTransport(options),
    chat: (options) => new Chat(options) as unknown as ChatLike,
    readUIMessageStream: ai.readUIMessageStream as ReplayingMajor['readUIMessageStream'],
    parse: (bytes) => parse({ stream: bytes, schema: ai.uiMessageChunkSchema() }),
    reactChat: (transport) => new ReactChat({ transport: transport as never }) as ReturnType<ReplayingMajor['reactChat']>,
  };
}

async function lastMessage(setup: ReplayingMajor, chunks: readonly unknown[]): Promise<MessageLike | undefined> {
  let message: MessageLike | undefined;
  for await (const next of setup.readUIMessageStream({ stream: streamOfItems(chunks as never[]), onError: () => undefined })) message = next;
  return message;
}

/**
 * `ArgstreamChatTransport` with the real `ai` of a major whose resume replays: the AI SDK's own
 * recordings of that major through the transport, as with ai 5 (chat-transport.test.ts); the
 * resume — `resumeStreamIsReplay` (true by default): a resumed stream replays the response from its
 * start and the snapshot starts over with it, so the partial input never doubles; the major's `Chat`
 * over HTTP; and `close()`.
 */
export function replayingTransportTests(setup: ReplayingMajor): void {
  const { Transport, major } = setup;
  const transportFor = (sse: () => string) => new Transport(transportOptions(sse));

  describe(`ArgstreamChatTransport with ai ${major}`, () => {
    it(`extends ai ${major} itself: it says resumed streams replay, as DefaultChatTransport does`, () => {
      expect(Object.getPrototypeOf(Transport.prototype)).toBe(setup.HttpChatTransport.prototype);
      expect(transportFor(() => '').resumeStreamIsReplay).toBe(true);
      expect((setup.defaultTransport({ api: '/api/chat' }) as { resumeStreamIsReplay?: boolean }).resumeStreamIsReplay).toBe(true);
    });

    for (const name of recordings(setup.prefix)) {
      it(`${name}: the AI SDK ends with the same message without the deltas; the snapshot has the calls' inputs`, async () => {
        const sse = readFileSync(new URL(name, DIR), 'utf8');
        const original = chunksOf<ChunkLike>(sse);
        const transport = transportFor(() => sse);
        const routed = (await readAll(await transport.sendMessages<ChunkLike>(SEND))) as ChunkLike[];
        expect(routed.filter((chunk) => chunk.type !== 'tool-input-delta')).toEqual(original.filter((chunk) => chunk.type !== 'tool-input-delta'));
        const expected = await lastMessage(setup, original);
        expect((await lastMessage(setup, routed))?.parts).toEqual(expected?.parts);
        for (const part of expected?.parts ?? []) {
          if (part.toolCallId === undefined || (part.state !== 'input-available' && part.state !== 'output-available')) continue;
          expect(transport.getSnapshot().calls.find((c) => c.toolCallId === part.toolCallId)?.input, part.toolCallId).toEqual(part.input);
        }
      });
    }

    it('a resume replays from the start and the snapshot starts over with it: the partial input never doubles', async () => {
      const sse = readFileSync(new URL(`${setup.prefix}reasoning-text-write-file.sse`, DIR), 'utf8');
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

  describe(`ArgstreamChatTransport with ai ${major}'s Chat, over HTTP`, () => {
    chatTests(setup);
  });

  describe(`ArgstreamChatTransport resumes a cut response by itself, with ai ${major}'s Chat over HTTP`, () => {
    selfResumeTests(setup);
  });

  describe(`ArgstreamChatTransport with ai ${major} and resumeStreamIsReplay: false`, () => {
    continuingResumeTests({ ...setup, replay: false });
  });

  describe(`ArgstreamChatTransport's close() with ai ${major}${major === 7 ? " (ai 7's ChatTransport.close)" : ''}`, () => {
    const { events, cut, partial } = writeFile(setup.prefix);
    const cutCall = (snapshot: { calls: readonly { status: string; input: unknown }[] }) =>
      snapshot.calls[0]?.status === 'streaming' && (snapshot.calls[0].input as { content?: string }).content === partial.content;

    if (major === 7) {
      it("is what Chat.dispose() calls after stop(): the snapshot ends stopped, the request ends; a later chat on the transport streams, its listeners told", async () => {
        const server = await chatServer((index) => (index === 0 ? { events, holdAfter: cut } : { events }));
        try {
          const transport = new Transport({ api: server.api, schedule: 'sync' });
          const close = vi.spyOn(transport, 'close');
          const statuses: string[] = [];
          transport.subscribe(() => statuses.push(transport.getSnapshot().status));
          const chat = setup.reactChat(transport);
          const sending = chat.sendMessage({ text: 'write it' });
          await until(transport, cutCall);
          await chat.dispose?.();
          await sending;
          expect(close).toHaveBeenCalledTimes(1);
          expect(transport.getSnapshot().status).toBe('done');
          expect(transport.getSnapshot().calls).toEqual([expect.objectContaining({ status: 'failed', input: partial, error: expect.any(IncompleteToolCallError) })]);
          expect(await (await server.request(0)).done).toBe('left');
          statuses.length = 0;
          await setup.reactChat(transport).sendMessage({ text: 'again' });
          expect(statuses.at(-1)).toBe('done');
          expect(statuses).toContain('streaming');
          expect(transport.getSnapshot().calls).toEqual([expect.objectContaining({ status: 'complete', input: expect.objectContaining({ path: 'src/main.rs' }) })]);
        } finally {
          await server.close();
        }
      });
    } else {
      it(`ai ${major}'s Chat has no dispose() (its ChatTransport no close): the transport's close() is the page's to call`, () => {
        expect(setup.reactChat(new Transport({ api: '/api/chat' })).dispose).toBeUndefined();
      });
    }

    it('ends a response still being read: the stream errors with an AbortError, the request ends, the snapshot ends stopped', async () => {
      const server = await chatServer(() => ({ events, holdAfter: cut }));
      try {
        const transport = new Transport({ api: server.api, schedule: 'sync' });
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
}

// ---------------------------------------------------------------------------------------------
// Path updates (UIMessageStreamEncoder's toolInputs: 'path-updates') with a major's own `ai`.

/** The example's recorded Anthropic stream: a Rust file whose input arrives in 3–11-character pieces, with escapes and non-ASCII text. */
const WRITE_FILE_RECORDING = readFileSync(new URL('../../examples/ai-sdk/recordings/write-file.sse', import.meta.url));

/** The call's input: its recorded pieces joined, parsed. */
const WRITE_FILE_EXPECTED = JSON.parse(
  new TextDecoder()
    .decode(WRITE_FILE_RECORDING)
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; delta?: { type: string; partial_json?: string } })
    .flatMap((event) => (event.type === 'content_block_delta' && event.delta?.type === 'input_json_delta' ? [event.delta.partial_json ?? ''] : []))
    .join(''),
) as { path: string; content: string };

/** argstream's server on the example's recording, for the page of `major`: the SSE text of its response. */
async function encodedFor(major: 6 | 7, toolInputs: 'deltas' | 'path-updates'): Promise<string> {
  // One SSE record per read, as a live model arrives (the encoder joins the deltas of one read).
  const records = new TextDecoder().decode(WRITE_FILE_RECORDING).split(/(?<=\n\n)/).map((record) => new TextEncoder().encode(record));
  const bytes = await readAll(
    pacedStreamOf(records)
      .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
      .pipeThrough(new UIMessageStreamEncoder({ major, toolInputs })),
  );
  const decoder = new TextDecoder();
  return bytes.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

const writeFilePart = (message: MessageLike | undefined) => message?.parts.find((part) => part.type === 'tool-write_file');

/** Each content seen is a prefix of the final one, and none is shorter than the one before (a restart aside). */
function expectGrowingPrefixes(contents: readonly string[], restarts = 0): void {
  for (const content of contents) expect(WRITE_FILE_EXPECTED.content.startsWith(content), JSON.stringify(content.slice(-40))).toBe(true);
  const shrinks = contents.filter((content, i) => i > 0 && content.length < contents[i - 1]!.length).length;
  expect(shrinks).toBe(restarts);
}

/**
 * `UIMessageStreamEncoder({ major, toolInputs: 'path-updates' })` with the real `ai` of the major:
 * an argstream server sends a `write_file` call's input as transient path updates, and
 *
 * - the major's `ai` accepts every chunk (`parseJsonEventStream` with its chunk schema, as its HTTP
 *   transport reads a response) and ends with the same message as with deltas, the call's part
 *   never holding a partial input (nothing for it to re-parse);
 * - `ArgstreamChatTransport` extending the major's `HttpChatTransport`, under its `@ai-sdk/react`'s
 *   `Chat` (the class `useChat` runs): the snapshot's content grows by prefixes of the input and ends
 *   with it exactly, and the chat's message ends with the exact input;
 * - a resume replays the response from its start (`resumeStreamIsReplay`): the snapshot starts over
 *   and the content never doubles.
 *
 * The call is the example's recorded Anthropic stream (examples/ai-sdk/recordings/write-file.sse);
 * the oracle is `JSON.parse` of its pieces joined.
 */
export function pathUpdateTests(setup: ReplayingMajor): void {
  const { major, Transport } = setup;

  /** The chunks the major's HTTP transport reads from the SSE text; any it refuses fails the test. */
  async function parsedBy(sse: string): Promise<ChunkLike[]> {
    const results = await readAll(setup.parse(streamOf([new TextEncoder().encode(sse)])));
    expect(results.filter((result) => !result.success)).toEqual([]);
    return results.flatMap((result) => (result.success ? [result.value as ChunkLike] : []));
  }

  /** Every message `readUIMessageStream` publishes for the chunks (what `useChat` renders in turn). */
  async function messagesOf(chunks: readonly ChunkLike[]): Promise<MessageLike[]> {
    const messages: MessageLike[] = [];
    for await (const message of setup.readUIMessageStream({ stream: streamOf(chunks as never[]), onError: (error) => expect.unreachable(String(error)) })) messages.push(structuredClone(message));
    return messages;
  }

  /** A transport whose every request is answered with the next of `bodies`, one SSE event per read. */
  function transportAnswering(bodies: string[], contents: string[]) {
    const transport = new Transport({
      api: 'http://127.0.0.1/api/chat',
      schedule: 'sync',
      reconnect: false,
      fetch: async () => new Response(paced(bodies.shift() ?? ''), { headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' } }),
    });
    transport.subscribe(() => {
      const input = transport.getSnapshot().calls[0]?.input as { content?: string } | undefined;
      if (input?.content !== undefined && input.content !== contents.at(-1)) contents.push(input.content);
    });
    return transport;
  }

  describe(`UIMessageStreamEncoder({ major: ${major}, toolInputs: 'path-updates' }) with ai ${major}`, () => {
    it(`ai ${major} accepts every chunk and ends with the message it ends with from deltas; the part never holds a partial input`, async () => {
      const updates = await parsedBy(await encodedFor(major, 'path-updates'));
      const deltas = await parsedBy(await encodedFor(major, 'deltas'));
      expect(updates.filter((chunk) => chunk.type === 'tool-input-delta')).toEqual([]);
      const data = updates.filter((chunk) => chunk.type === 'data-argstream-tool-input');
      expect(data.length).toBeGreaterThan(20);
      expect(data.every((chunk) => chunk['transient'] === true)).toBe(true);
      expect(deltas.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeGreaterThan(20);

      const fromUpdates = await messagesOf(updates);
      const fromDeltas = await messagesOf(deltas);
      expect(fromUpdates.at(-1)?.parts).toEqual(fromDeltas.at(-1)?.parts);
      expect(writeFilePart(fromUpdates.at(-1))).toMatchObject({ state: 'input-available', input: WRITE_FILE_EXPECTED });
      // While the call streams, the part has no input: the AI SDK had nothing to re-parse.
      const streaming = fromUpdates.map(writeFilePart).filter((part) => part?.state === 'input-streaming');
      expect(streaming.length).toBeGreaterThan(0);
      expect(streaming.map((part) => part?.input)).toEqual(streaming.map(() => undefined));
      // With deltas, the AI SDK re-parses a growing input at each one.
      expect(fromDeltas.map(writeFilePart).filter((part) => part?.state === 'input-streaming' && part.input !== undefined).length).toBeGreaterThan(20);
    });

    it(`ArgstreamChatTransport (ai ${major}) under @ai-sdk/react ${major - 3}'s Chat: the snapshot's content grows by prefixes and ends exactly; the chat's message has the exact input`, async () => {
      const contents: string[] = [];
      const transport = transportAnswering([await encodedFor(major, 'path-updates')], contents);
      const chat = setup.reactChat(transport);
      await chat.sendMessage({ text: 'Write a word counter in Rust to src/main.rs' });
      expect(chat.status).toBe('ready');
      expect(chat.error).toBeUndefined();
      expect(writeFilePart(chat.messages.at(-1) as MessageLike | undefined)).toMatchObject({ state: 'input-available', input: WRITE_FILE_EXPECTED });
      expect(transport.getSnapshot().calls.map((call) => [call.toolName, call.status, call.input])).toEqual([['write_file', 'complete', WRITE_FILE_EXPECTED]]);
      expect(contents.length).toBeGreaterThan(20);
      expectGrowingPrefixes(contents);
      expect(contents.at(-1)).toBe(WRITE_FILE_EXPECTED.content);
    });

    it('a resume replays the response from its start: the snapshot starts over, the content never doubles, and ends exactly', async () => {
      const sse = await encodedFor(major, 'path-updates');
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
      expect(before.length).toBeLessThan(WRITE_FILE_EXPECTED.content.length);
      expect(transport.getSnapshot().calls[0]?.status).toBe('streaming');

      await readAll((await transport.reconnectToStream({ chatId: 'chat' }))!);
      // The replay went through the same prefixes again, from the start: one restart, no doubled text.
      expectGrowingPrefixes(contents, 1);
      expect(contents.at(-1)).toBe(WRITE_FILE_EXPECTED.content);
      expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual([['complete', WRITE_FILE_EXPECTED]]);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The transport's own resume (`reconnect`): a response cut mid-stream, with each major's `Chat`.

/**
 * argstream's server on an Anthropic write_file call of `size` characters in `pieces` deltas, for
 * the page of `major`: the SSE events of its UI message stream, and the call's input.
 */
export async function writeFileUiStream(major: 5 | 6 | 7, size: number, pieces: number): Promise<{ events: string[]; input: { path: string; content: string } }> {
  const sse = anthropicWriteFile(size, pieces);
  const records = sse.split(/(?<=\n\n)/).map((record) => new TextEncoder().encode(record));
  const bytes = await readAll(
    pacedStreamOf(records)
      .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
      .pipeThrough(new UIMessageStreamEncoder({ major })),
  );
  const decoder = new TextDecoder();
  const text = bytes.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
  const content = Array.from({ length: size }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
  return { events: eventsOf(text), input: { path: 'src/main.rs', content } };
}

/**
 * Registers the tests of the transport's own resume with the AI SDK's `Chat` of one major, over
 * real loopback HTTP: a response cut mid-stream (by a TCP proxy, or a server that closes early)
 * ends, with no `resumeStream()` from the page, with the message of the uncut response; the
 * resumes are the AI SDK's `GET ${api}/${chatId}/stream`; a 4xx, a 204, the bounds and the user's
 * stop end it.
 */
export function selfResumeTests(setup: ChatTestSetup): void {
  const major = Number(setup.prefix.slice(2, 3)) as 5 | 6 | 7;
  const FAST = { initialDelayMs: 1, maxDelayMs: 5 } as const;
  let made: ReturnType<typeof writeFileUiStream> | undefined;
  /** 6 000 characters in 60 deltas: about 9 KB of UI message stream. */
  const writeFile = () => (made ??= writeFileUiStream(major, 6_000, 60));
  const RESUME_URL = /^\/api\/chat\/[^/]+\/stream$/;

  /** A chat's run on `transport`: what it ends with, and whether the page's `resumeStream()` was called. */
  async function chatRun(transport: unknown) {
    const toolCalls: unknown[] = [];
    const chat = setup.chat({ transport, onToolCall: ({ toolCall }) => void toolCalls.push(toolCall.input) });
    const resumeStream = vi.spyOn(chat, 'resumeStream');
    await chat.sendMessage({ text: 'write it' });
    return { toolCalls, status: chat.status, error: chat.error, parts: chat.messages.at(-1)?.parts, resumeStreamCalls: resumeStream.mock.calls.length };
  }

  /** What the AI SDK's own transport ends with on the uncut response. */
  async function uncut(events: readonly string[]) {
    const server = await chatServer(() => ({ events }));
    try {
      return await chatRun(setup.defaultTransport({ api: server.api }));
    } finally {
      await server.close();
    }
  }

  /** Where the write_file call has had `deltas` deltas. */
  const afterDeltas = (events: readonly string[], deltas: number) => events.findIndex((event) => event.includes('tool-input-delta')) + deltas;

  it(`a TCP proxy cuts the response twice mid-stream: the chat ends with the uncut message, the exact input, with no resumeStream() call; each resume is the AI SDK's GET`, async () => {
    const { events, input } = await writeFile();
    const expected = await uncut(events);
    expect(expected.toolCalls).toEqual([input]);
    const server = await chatServer(() => ({ events }));
    const origin = new URL(server.api).origin;
    const cutter = await proxy(origin, [1_500, 3_000, undefined]);
    try {
      const retries: unknown[] = [];
      const transport = setup.transport({ api: `${cutter.url}/api/chat`, reconnect: { ...FAST, onRetry: (_attempt, error) => retries.push(error) } });
      const reconnectToStream = vi.spyOn(transport as unknown as { reconnectToStream: () => unknown }, 'reconnectToStream');
      const run = await chatRun(transport);
      expect(run).toEqual(expected);
      expect(run.resumeStreamCalls).toBe(0);
      expect(reconnectToStream).not.toHaveBeenCalled();
      expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET', 'GET']);
      expect(server.requests.slice(1).every((request) => RESUME_URL.test(request.url))).toBe(true);
      expect(retries).toHaveLength(2);
      expect(retries.every((error) => error instanceof TypeError)).toBe(true);
      expect(transport.getSnapshot()).toMatchObject({ status: 'done', error: undefined, text: 'Writing the file.' });
      expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual([['complete', input]]);
    } finally {
      cutter.server.close();
      await server.close();
    }
  });

  it('a response that ends cleanly before its finish (the server closed it): resumed the same way, the same message', async () => {
    const { events, input } = await writeFile();
    const expected = await uncut(events);
    const server = await chatServer((index) => (index === 0 ? { events: events.slice(0, afterDeltas(events, 20)) } : { events }));
    try {
      const transport = setup.transport({ api: server.api, reconnect: FAST });
      expect(await chatRun(transport)).toEqual(expected);
      expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET']);
      expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual([['complete', input]]);
    } finally {
      await server.close();
    }
  });

  it('resumeStreamIsReplay: false — the resume continues where the cut was, and all of it is appended', async () => {
    const { events, input } = await writeFile();
    const expected = await uncut(events);
    const cut = afterDeltas(events, 20);
    const server = await chatServer((index) => (index === 0 ? { events, dropAfter: cut } : { events: events.slice(cut) }));
    try {
      const transport = setup.transport({ api: server.api, resumeStreamIsReplay: false, reconnect: FAST });
      expect(await chatRun(transport)).toEqual(expected);
      expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual([['complete', input]]);
    } finally {
      await server.close();
    }
  });

  it('a 5xx and a network error on the resumes are tried again, each wait a random 50–100 % of a doubling delay capped by maxDelayMs', async () => {
    const { events, input } = await writeFile();
    const expected = await uncut(events);
    const cut = afterDeltas(events, 10);
    const replies: Reply[] = [{ events, dropAfter: cut }, { events, status: 503 }, { events, dropAfter: 0 }, { events }];
    const server = await chatServer((index) => replies[index] ?? { events, status: 500 });
    try {
      const retries: Array<[number, unknown, number]> = [];
      const transport = setup.transport({ api: server.api, reconnect: { initialDelayMs: 8, maxDelayMs: 20, onRetry: (...retry) => retries.push(retry) } });
      expect(await chatRun(transport)).toEqual(expected);
      expect(retries.map(([attempt]) => attempt)).toEqual([1, 2, 3]);
      for (const [attempt, , delayMs] of retries) {
        const delay = Math.min(20, 8 * 2 ** (attempt - 1));
        expect(delayMs).toBeGreaterThanOrEqual(delay / 2);
        expect(delayMs).toBeLessThanOrEqual(delay);
      }
      expect(retries[1]?.[1]).toBeInstanceOf(Error);
      expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual([['complete', input]]);
    } finally {
      await server.close();
    }
  });

  for (const [status, code] of [
    [404, 'invalid-input'],
    [403, 'invalid-input'],
    [204, 'incomplete'],
  ] as const) {
    it(`a ${status} on the resume is final: the chat errors with RelayError '${code}', the snapshot with it and the input so far, no more requests`, async () => {
      const { events, input } = await writeFile();
      const cut = afterDeltas(events, 20);
      const server = await chatServer((index) => (index === 0 ? { events, dropAfter: cut } : { events, status }));
      try {
        const transport = setup.transport({ api: server.api, reconnect: FAST });
        const run = await chatRun(transport);
        expect(run.status).toBe('error');
        expect(run.error).toBeInstanceOf(RelayError);
        expect(run.error).toMatchObject({ code });
        expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET']);
        const snapshot = transport.getSnapshot();
        expect(snapshot.status).toBe('error');
        expect(snapshot.error).toBe(run.error);
        const content = (snapshot.calls[0]?.input as { content: string }).content;
        expect(content.length).toBeGreaterThan(0);
        expect(input.content.startsWith(content) && content.length < input.content.length).toBe(true);
      } finally {
        await server.close();
      }
    });
  }

  it('the first request is not sent again: a POST that failed before any response is the chat\'s error, with no resume', async () => {
    const { events } = await writeFile();
    const server = await chatServer(() => ({ events, dropAfter: 0 }));
    try {
      const transport = setup.transport({ api: server.api, reconnect: FAST });
      const run = await chatRun(transport);
      expect(run.status).toBe('error');
      expect(run.error).toBeInstanceOf(TypeError);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.requests.map((request) => request.method)).toEqual(['POST']);
    } finally {
      await server.close();
    }
  });

  it('bounds that are not positive numbers are RangeErrors at construction', () => {
    for (const reconnect of [{ maxAttempts: 0 }, { initialDelayMs: -1 }, { maxReconnectMs: Number.NaN }, { maxDelayMs: 0 }]) {
      expect(() => setup.transport({ api: '/api/chat', reconnect })).toThrow(RangeError);
    }
    expect(() => setup.transport({ api: '/api/chat', reconnect: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 1, maxReconnectMs: 1 } })).not.toThrow();
  });

  it('maxAttempts bounds the resumes: then RelayError incomplete, the last network error as its cause', async () => {
    const { events } = await writeFile();
    const server = await chatServer((index) => (index === 0 ? { events, dropAfter: afterDeltas(events, 5) } : { events, dropAfter: 0 }));
    try {
      const transport = setup.transport({ api: server.api, reconnect: { ...FAST, maxAttempts: 3 } });
      const run = await chatRun(transport);
      expect(run.status).toBe('error');
      expect(run.error).toMatchObject({ name: 'RelayError', code: 'incomplete' });
      expect((run.error as Error).cause).toBeInstanceOf(TypeError);
      expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET', 'GET', 'GET']);
    } finally {
      await server.close();
    }
  });

  it('maxReconnectMs bounds the resumes in time, whatever maxAttempts allows', async () => {
    const { events } = await writeFile();
    const server = await chatServer((index) => (index === 0 ? { events, dropAfter: afterDeltas(events, 5) } : { events, status: 503 }));
    try {
      const transport = setup.transport({ api: server.api, reconnect: { initialDelayMs: 20, maxDelayMs: 40, maxAttempts: 1_000, maxReconnectMs: 200 } });
      const run = await chatRun(transport);
      expect(run.error).toMatchObject({ name: 'RelayError', code: 'incomplete' });
      expect(server.requests.length).toBeGreaterThan(1);
      expect(server.requests.length).toBeLessThan(20);
    } finally {
      await server.close();
    }
  });

  it("the user's stop() while a resume waits: none follows, the chat is ready, the snapshot done", async () => {
    const { events } = await writeFile();
    const server = await chatServer(() => ({ events, dropAfter: afterDeltas(events, 10) }));
    try {
      let waiting!: () => void;
      const waits = new Promise<void>((resolve) => (waiting = resolve));
      const transport = setup.transport({ api: server.api, reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000, onRetry: () => waiting() } });
      const chat = setup.chat({ transport });
      const sending = chat.sendMessage({ text: 'write it' });
      await waits;
      await chat.stop();
      await sending;
      expect([chat.status, chat.error]).toEqual(['ready', undefined]);
      expect(transport.getSnapshot().status).toBe('done');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("the user's stop() while a resumed response streams: it ends, and no resume follows", async () => {
    const { events } = await writeFile();
    const cut = afterDeltas(events, 10);
    const server = await chatServer((index) => (index === 0 ? { events, dropAfter: cut } : { events, holdAfter: cut + 10 }));
    try {
      const transport = setup.transport({ api: server.api, reconnect: FAST });
      const chat = setup.chat({ transport });
      const sending = chat.sendMessage({ text: 'write it' });
      const resume = await server.request(1);
      // The resume brought something new: the call's input grew past the cut.
      await until(transport, (snapshot) => ((snapshot.calls[0]?.input as { content?: string } | undefined)?.content?.length ?? 0) > 1_000);
      await chat.stop();
      await sending;
      expect([chat.status, chat.error]).toEqual(['ready', undefined]);
      expect(await resume.done).toBe('left');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.requests).toHaveLength(2);
      expect(transport.getSnapshot().status).toBe('done');
    } finally {
      await server.close();
    }
  });

  for (const how of ['continues instead of replaying', 'replays another response'] as const) {
    it(`a resume that ${how} (resumeStreamIsReplay: true) is RelayError 'out-of-sequence': nothing of it reaches the chat`, async () => {
      const { events, input } = await writeFile();
      const cut = afterDeltas(events, 20);
      const other = events.map((event) => event.replaceAll('toolu_1', 'toolu_2'));
      const server = await chatServer((index) => (index === 0 ? { events, dropAfter: cut } : { events: how === 'continues instead of replaying' ? events.slice(cut) : other }));
      try {
        const transport = setup.transport({ api: server.api, reconnect: FAST });
        const run = await chatRun(transport);
        expect(run.status).toBe('error');
        expect(run.error).toMatchObject({ name: 'RelayError', code: 'out-of-sequence' });
        const content = (transport.getSnapshot().calls[0]?.input as { content: string }).content;
        expect(input.content.startsWith(content) && content.length < input.content.length).toBe(true);
        expect(JSON.stringify(run.parts)).not.toContain('toolu_2');
      } finally {
        await server.close();
      }
    });
  }
}
