/**
 * What the transport tests of both majors share: a recording's chunks, a body paced one SSE event
 * per read, the request of a send, a loopback chat server, and the tests run with the real `Chat`
 * of each major.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { IncompleteToolCallError } from '../../src/store/turn-store.ts';
import { pacedStreamOf } from '../helpers.ts';

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

/** The recordings of one major (`ai5-…`, `ai7-…`). */
export function recordings(prefix: 'ai5-' | 'ai7-'): string[] {
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

/** The options of a transport whose every request answers the next `sse()`, paced. */
export function transportOptions(sse: () => string) {
  return {
    api: 'http://127.0.0.1/api/chat',
    schedule: 'sync' as const,
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
  readonly prefix: 'ai5-' | 'ai7-';
  readonly transport: (options: { api: string; resumeStreamIsReplay?: boolean }) => TransportLike;
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

  it('a connection that breaks mid-call fails the snapshot with its error, the one the chat shows', async () => {
    const server = await chatServer(() => ({ events, dropAfter: cut }));
    try {
      const transport = setup.transport({ api: server.api });
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
  const options = (api: string) => (setup.replay === false ? { api, resumeStreamIsReplay: false } : { api });

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
