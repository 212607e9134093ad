/**
 * What the transport tests of both majors share: a recording's chunks, a body paced one SSE event
 * per read, the request of a send.
 */
import { readdirSync } from 'node:fs';

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
  const events = sse.split(/(?<=\n\n)/);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      const event = events.shift();
      if (event === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(event));
    },
  });
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
