/**
 * The relay's web-standard handlers on Node's `http` through a maintained adapter
 * (`@hono/node-server`, srvx), over real HTTP: docs/relay.md's Node snippet serving the resume
 * recipe on a real redis-server, and a client that goes away mid-stream (it aborts, or its socket
 * is destroyed). The body is cancelled, `request.signal` aborts, the log's reader ends (its
 * iterator returns, and Redis's blocking read no longer names the stream), and the turn goes on in
 * the log for a resume.
 */
import { connect } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import * as hono from '@hono/node-server';
import * as srvx from 'srvx';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as argstream from '../../src/index.ts';
import { collectTurn, EventStreamDecoder, type EventLog, type LogEntry } from '../../src/index.ts';
import * as argstreamRedis from '../../src/bindings/redis.ts';
import { RedisEventLog } from '../../src/bindings/redis.ts';
import { freePort } from '../runtimes/harness.ts';
import { runSnippet, snippetsOf, type Snippet } from '../docs/snippets.ts';
import { skipWithoutRedis, startRedis, type RedisServer } from './redis-server.ts';

const skip = skipWithoutRedis();
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An Anthropic turn of `n` text deltas, one network read every `everyMs`: a model still writing for n × everyMs. */
function slowTurn(n: number, everyMs: number): Response {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const records = [
    event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: n }, (_, i) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `${i} ` } })),
    event('content_block_stop', { index: 0 }),
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: n } }),
    event('message_stop', {}),
  ];
  let i = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (i > 0) await delay(everyMs);
        if (i < records.length) controller.enqueue(new TextEncoder().encode(records[i++]));
        else controller.close();
      },
    }),
  );
}

const turnText = (n: number) => Array.from({ length: n }, (_, i) => `${i} `).join('');

/** A log whose readers are counted: `readers()` is how many of its iterators have not finished. */
function countingLog(log: EventLog): EventLog & { readers(): number } {
  let live = 0;
  return {
    readers: () => live,
    open: (id, options) => log.open(id, options),
    async read(id, after, options) {
      const inner = await log.read(id, after, options);
      live++;
      let done = false;
      const finish = () => {
        if (!done) live--;
        done = true;
      };
      const iterator: AsyncIterableIterator<LogEntry> = {
        async next() {
          try {
            const result = await inner.next();
            if (result.done === true) finish();
            return result;
          } catch (error) {
            finish();
            throw error;
          }
        },
        async return(value?: unknown) {
          finish();
          return (await inner.return?.(value)) ?? { done: true, value: undefined };
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },
    stop: (id) => log.stop(id),
    close: () => log.close(),
  };
}

/** Read `response`'s body until `records` event records (`id:` lines) have come: the text so far. */
async function readRecords(reader: ReadableStreamDefaultReader<Uint8Array>, records: number): Promise<string> {
  const utf8 = new TextDecoder();
  let text = '';
  while ((text.match(/^id: /gm) ?? []).length < records) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += utf8.decode(chunk.value, { stream: true });
  }
  return text;
}

/** Poll `check` every 10 ms for at most `ms`. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await delay(10);
  }
  return true;
}

describe.skipIf(skip)('the relay on Node\'s http through a maintained adapter', () => {
  let redis: RedisServer;
  const clients: Array<{ destroy(): void; isOpen: boolean }> = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const client of clients) if (client.isOpen) client.destroy();
    await redis?.stop();
  });

  const snippet = (contains: string): Snippet => {
    const found = snippetsOf('docs/relay.md').find((s) => s.code.includes(contains));
    if (found === undefined) throw new Error(`docs/relay.md has no snippet with ${contains}`);
    return found;
  };

  it('docs/relay.md\'s Node server (@hono/node-server) serves the resume recipe; a client that leaves mid-stream ends the log\'s reader and its blocking read, and the turn goes on for a resume', async () => {
    const n = 150;
    const port = await freePort();
    // The recipe's log, its readers counted (the snippet builds it: the module it imports is given a counting class).
    const logs: Array<EventLog & { readers(): number }> = [];
    class CountedRedisEventLog extends RedisEventLog {
      readonly #counted: EventLog & { readers(): number };
      constructor(...args: ConstructorParameters<typeof RedisEventLog>) {
        super(...args);
        this.#counted = countingLog({ open: (id, o) => super.open(id, o), read: (id, a, o) => super.read(id, a, o), stop: (id) => super.stop(id), close: () => super.close() });
        logs.push(this.#counted);
      }
      override read(id: string, after: number, options?: argstream.ReadOptions) {
        return this.#counted.read(id, after, options);
      }
    }
    const redisModule = { createClient: (options: object) => clients[clients.push(createClient(options)) - 1] as never };
    let asked = 0;
    const handlers = (
      await runSnippet(snippet('new RedisEventLog(client,').code, {
        modules: { argstream, 'argstream/redis': { ...argstreamRedis, RedisEventLog: CountedRedisEventLog }, redis: redisModule },
        scope: { headers: {}, body: '{}', fetch: async () => (asked++, slowTurn(n, 10)), process: { env: { REDIS_URL: redis.url } } },
      })
    ).exports as { chat(request: Request): Promise<Response>; resume(request: Request, id: string): Promise<Response>; stop(id: string): Promise<Response> };
    // The request.signal the handler saw, and whether its body was cancelled: the recipe's handlers, observed.
    const seen: { signal?: AbortSignal; cancelled: boolean } = { cancelled: false };
    const chat = async (request: Request) => {
      seen.signal = request.signal;
      const response = await handlers.chat(request);
      const reader = response.body!.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = await reader.read();
          if (chunk.done) controller.close();
          else controller.enqueue(chunk.value);
        },
        async cancel(reason) {
          seen.cancelled = true;
          await reader.cancel(reason);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const { server } = (await runSnippet(snippet("from '@hono/node-server'").code, {
      modules: { '@hono/node-server': hono as unknown as Record<string, unknown> },
      scope: { chat, resume: handlers.resume, stop: handlers.stop, process: { env: { PORT: String(port) } } },
    })).exports as { server: ReturnType<typeof honoServe> };
    const monitor = createClient({ url: redis.url });
    monitor.on('error', () => {});
    await monitor.connect();
    const xreads: Array<{ at: number; line: string }> = [];
    await monitor.monitor((line: string) => {
      if (line.includes('"XREAD"')) xreads.push({ at: Date.now(), line });
    });
    try {
      await until(() => server.listening, 5_000);
      const log = logs[0]!;
      const base = `http://127.0.0.1:${port}/api/chat`;
      expect((await fetch(`${base}/x/y/z`)).status).toBe(404);
      expect((await fetch(base)).status).toBe(405);

      const leaving = new AbortController();
      const first = await fetch(base, { method: 'POST', body: '{}', signal: leaving.signal });
      expect(first.status).toBe(200);
      const streamId = first.headers.get('x-stream-id') ?? '';
      expect(streamId).toMatch(/^[\w-]{22}$/);
      const reader = first.body!.getReader();
      const got = await readRecords(reader, 3);
      expect(log.readers()).toBe(1);
      await until(() => xreads.some(({ line }) => line.includes(`{${streamId}}:e`)), 2_000);
      const left = Date.now();
      leaving.abort();
      // The adapter cancels the body and aborts request.signal; serveStream's reader of the log ends…
      expect(await until(() => seen.cancelled && log.readers() === 0, 2_000)).toBe(true);
      expect(seen.signal?.aborted).toBe(true);
      // …and the instance's blocking read stops naming the stream, while the turn is still being written.
      expect(await until(() => {
        const after = xreads.filter(({ at }) => at > left);
        return after.length > 0 && !(after.at(-1) as { line: string }).line.includes(`{${streamId}}:e`);
      }, 3_000)).toBe(true);
      // The turn goes on without the page: a resume from the last event it read gets the rest, then the end.
      const lastId = [...got.matchAll(/^id: (\d+)$/gm)].at(-1)?.[1] ?? '0';
      const rest = await fetch(`${base}/${streamId}`, { headers: { 'last-event-id': lastId } });
      expect(rest.status).toBe(200);
      const decoder = new EventStreamDecoder();
      const resumed = await collectTurn(rest.body!.pipeThrough(decoder));
      const start = await collectTurn(new Response(`${got}event: end\ndata: {}\n\n`).body!.pipeThrough(new EventStreamDecoder()));
      expect(start.text + resumed.text).toBe(turnText(n));
      expect(asked).toBe(1);
      expect(await until(() => log.readers() === 0, 1_000)).toBe(true);
    } finally {
      await monitor.disconnect().catch(() => {});
      server.close();
      (server as unknown as { closeAllConnections?(): void }).closeAllConnections?.();
    }
  }, 30_000);

  for (const adapter of ['@hono/node-server', 'srvx'] as const) {
    it(`${adapter}: a client whose socket is destroyed mid-stream (a killed browser, a dropped network) ends the log's reader and aborts request.signal`, async () => {
      const log = countingLog(new argstream.MemoryEventLog());
      const id = argstream.newStreamId();
      const kept = await argstream.keepStream(log, id, argstream.fromResponse(slowTurn(200, 10), { provider: 'anthropic' }));
      let signal: AbortSignal | undefined;
      const fetch = (request: Request) => {
        signal = request.signal;
        return argstream.serveStream(log, id, request);
      };
      let port: number;
      let close: () => Promise<void>;
      if (adapter === 'srvx') {
        const server = srvx.serve({ fetch, port: 0, hostname: '127.0.0.1', silent: true });
        await server.ready();
        port = Number(new URL(server.url!).port);
        close = () => server.close(true);
      } else {
        port = await freePort();
        const server = honoServe({ fetch, port, hostname: '127.0.0.1' });
        await until(() => server.listening, 5_000);
        close = () => new Promise<void>((resolve) => {
          (server as unknown as { closeAllConnections(): void }).closeAllConnections();
          server.close(() => resolve());
        });
      }
      try {
        const socket = connect(port, '127.0.0.1');
        await new Promise((resolve) => socket.on('connect', resolve));
        let text = '';
        socket.on('data', (data: Buffer) => (text += data.toString()));
        socket.write(`GET /s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        expect(await until(() => (text.match(/^id: /gm) ?? []).length >= 3, 5_000)).toBe(true);
        expect(text).toMatch(/^HTTP\/1\.1 200/);
        expect(log.readers()).toBe(1);
        socket.destroy();
        expect(await until(() => log.readers() === 0, 2_000)).toBe(true);
        expect(signal?.aborted).toBe(true);
        // The producer was not cancelled by the page leaving: the turn ends in the log.
        expect(await kept.done).toEqual({ status: 'ended' });
        const turn = await collectTurn((await argstream.serveStream(log, id, new Request('http://relay/s'))).body!.pipeThrough(new EventStreamDecoder()));
        expect(turn.text).toBe(turnText(200));
      } finally {
        await close();
        await log.close();
      }
    }, 20_000);
  }
});
