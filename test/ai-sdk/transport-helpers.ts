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
