/**
 * `readRelay`: a relayed turn read over real loopback HTTP from `serveStream`, through a TCP proxy
 * that cuts connections — mid-record, between records, before the first byte, while the POST is
 * in flight — and a relay that answers 5xx, 4xx or a final log error. Whatever the cuts, the page
 * gets every event exactly once and in order (compared with the log's own events), or a final
 * typed error.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  collectTurn,
  EventLogError,
  eventLogErrorResponse,
  FieldEventStream,
  fromResponse,
  keepStream,
  MemoryEventLog,
  newStreamId,
  ProviderError,
  readRelay,
  RelayError,
  serveStream,
  type PipelineEvent,
} from '../../src/index.ts';
import { readAll, settle } from '../helpers.ts';
import { anthropicWriteFile, proxy } from './relay-helpers.ts';

/** A provider response that sends `sse` a record at a time, `delayMs` apart. */
function paced(sse: string, delayMs: number): Response {
  const records = sse.split(/(?<=\n\n)/);
  const encoder = new TextEncoder();
  let i = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (i >= records.length) return controller.close();
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        controller.enqueue(encoder.encode(records[i++]!));
      },
    }),
  );
}

type Handler = (request: Request) => Promise<Response>;

/** Node's http under a web-standard handler: the body is cancelled when the client goes away. */
function listen(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = req.method === 'GET' || req.method === 'HEAD' ? null : Buffer.concat(chunks);
      const response = await handler(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, body, signal: controller.signal }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) return void res.end();
      const reader = response.body.getReader();
      res.on('close', () => void reader.cancel().catch(() => undefined));
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
        }
        res.end();
      } catch {
        res.destroy();
      }
    })().catch(() => res.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** The README's relay: POST /api/chat keeps the turn in the log and serves it; GET /api/chat/:id resumes. */
async function relay(sse: string, options: { delayMs?: number; snapshot?: boolean } = {}) {
  const log = new MemoryEventLog();
  const ids: string[] = [];
  const handler: Handler = async (request) => {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/api/chat') {
      const streamId = newStreamId();
      ids.push(streamId);
      try {
        await keepStream(log, streamId, async () => fromResponse(paced(sse, options.delayMs ?? 0), { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false })));
      } catch (error) {
        return eventLogErrorResponse(error);
      }
      const response = await serveStream(log, streamId, request, options.snapshot === false ? { snapshot: false } : {});
      response.headers.set('x-stream-id', streamId);
      return response;
    }
    const match = /^\/api\/chat\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && match !== null) {
      try {
        return await serveStream(log, decodeURIComponent(match[1]!), request, options.snapshot === false ? { snapshot: false } : {});
      } catch (error) {
        return eventLogErrorResponse(error);
      }
    }
    return new Response('not found', { status: 404 });
  };
  const { url, server } = await listen(handler);
  closers.push(() => server.close());
  return { url, log, ids, handler };
}

const POST = { method: 'POST', body: JSON.stringify({ prompt: 'write it' }) } as const;
const FAST = { initialDelayMs: 1, maxDelayMs: 5 } as const;

/** What the log holds for a stream, read whole and uncut (the reference). */
async function reference(url: string, streamId: string): Promise<PipelineEvent[]> {
  return readAll(readRelay(`${url}/api/chat/${streamId}`, { method: 'GET' }, { resumeUrl: () => `${url}/api/chat/${streamId}` }));
}

describe('readRelay over real HTTP', () => {
  it('reads a relayed turn to its end: the same turn as the provider stream itself', async () => {
    const sse = anthropicWriteFile(20_000, 200);
    const { url } = await relay(sse);
    const events = await readAll(readRelay(`${url}/api/chat`, POST));
    const turn = await collectTurn(new ReadableStream({ start: (c) => (events.forEach((e) => c.enqueue(e)), c.close()) }));
    const direct = await collectTurn(fromResponse(new Response(sse), { provider: 'anthropic' }));
    expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(direct.toolCalls.map((call) => [call.toolName, call.arguments]));
    expect(turn.text).toBe('Writing the file.');
  });

  // Cut after these many bytes of each connection's answer: inside the headers, inside a record, at many places.
  for (const cuts of [[700], [1500, 3000], [5000, 20, 9000], [300, 300, 300, 300, 300, 300]] as const) {
    it(`a proxy cuts the connections after ${cuts.join(', ')} bytes: every event exactly once, in order (snapshots off)`, async () => {
      const { url, ids } = await relay(anthropicWriteFile(20_000, 200), { delayMs: 1, snapshot: false });
      const cutter = await proxy(url, cuts);
      closers.push(() => cutter.server.close());
      const retries: unknown[] = [];
      const events = await readAll(readRelay(`${cutter.url}/api/chat`, POST, { ...FAST, onRetry: (_attempt, error) => retries.push(error) }));
      expect(ids).toHaveLength(1); // the POST was never sent twice: the cuts came after it answered
      expect(events).toEqual(await reference(url, ids[0]!));
      expect(retries.length).toBe(cuts.length);
      // A network failure surfaces as 'incomplete', the engine's error as its cause.
      for (const error of retries) expect(error).toBeInstanceOf(RelayError);
      expect(cutter.connections()).toBe(cuts.length + 1);
    });
  }

  it('a page reopening a stream it knows (GET /api/chat/<id>, answered with no x-stream-id) resumes at that URL: every event once, in order', async () => {
    const { url, ids } = await relay(anthropicWriteFile(20_000, 200), { delayMs: 1, snapshot: false });
    // The POST's page went away at once; the model goes on in the log.
    const first = await fetch(`${url}/api/chat`, POST);
    await first.body?.cancel();
    const streamId = ids[0]!;
    const cutter = await proxy(url, [1200, 2500, 40]);
    closers.push(() => cutter.server.close());
    const retries: unknown[] = [];
    const events = await readAll(readRelay(`${cutter.url}/api/chat/${streamId}`, {}, { ...FAST, onRetry: (_attempt, error) => retries.push(error) }));
    expect(events).toEqual(await reference(url, streamId));
    expect(retries).toHaveLength(3);
    expect(cutter.connections()).toBe(4);
    expect(ids).toHaveLength(1);
  });

  it('with snapshots (the default), a resume far behind gets the turn so far as one snapshot: the same turn, the partial input never doubled', async () => {
    const sse = anthropicWriteFile(50_000, 500);
    const { url } = await relay(sse, { delayMs: 0 });
    const cutter = await proxy(url, [2000, 100]);
    closers.push(() => cutter.server.close());
    const events = await readAll(readRelay(`${cutter.url}/api/chat`, POST, FAST));
    const turn = await collectTurn(new ReadableStream({ start: (c) => (events.forEach((e) => c.enqueue(e)), c.close()) }));
    const direct = await collectTurn(fromResponse(new Response(sse), { provider: 'anthropic' }));
    expect(turn.toolCalls.map((call) => call.arguments)).toEqual(direct.toolCalls.map((call) => call.arguments));
    expect(turn.text).toBe(direct.text);
  });

  it('a cut before the stream id is known (the POST never answered, or its headers were cut) sends the POST again; retryRequest: false makes it final', async () => {
    const { url, ids } = await relay(anthropicWriteFile(2_000, 20), { snapshot: false });
    const cutter = await proxy(url, [0, 40]);
    closers.push(() => cutter.server.close());
    const events = await readAll(readRelay(`${cutter.url}/api/chat`, POST, FAST));
    expect(cutter.connections()).toBe(3);
    // The page saw the last stream only, whole: the one whose answer came through.
    expect(events).toEqual(await reference(url, ids.at(-1)!));
    const refused = await proxy(url, [0]);
    closers.push(() => refused.server.close());
    const { error } = await settle(readRelay(`${refused.url}/api/chat`, POST, { ...FAST, retryRequest: false }));
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).code).toBe('incomplete');
    expect((error as RelayError).cause).toBeInstanceOf(Error);
    expect(ids.length).toBeGreaterThanOrEqual(1);
  });

  it('a relay that is gone: maxAttempts tries, then RelayError incomplete with the network error as its cause', async () => {
    const { url, server } = await listen(async () => new Response('x'));
    server.close();
    const attempts: number[] = [];
    const { values, error } = await settle(readRelay(`${url}/api/chat`, POST, { ...FAST, maxAttempts: 3, onRetry: (attempt) => attempts.push(attempt) }));
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).code).toBe('incomplete');
    expect((error as RelayError).message).toMatch(/3 attempts/);
    expect((error as RelayError).cause).toBeInstanceOf(RelayError);
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('maxReconnectMs bounds the time spent: it gives up within it', async () => {
    const { url, server } = await listen(async () => new Response('x'));
    server.close();
    const started = Date.now();
    const { error } = await settle(readRelay(`${url}/api/chat`, POST, { initialDelayMs: 20, maxDelayMs: 40, maxAttempts: 1000, maxReconnectMs: 300 }));
    expect((error as RelayError).code).toBe('incomplete');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('5xx answers are retried, 4xx are final (RelayError invalid-input), a final log error is an EventLogError', async () => {
    let calls = 0;
    const flaky = await listen(async () => (++calls < 3 ? new Response('busy', { status: 503 }) : new Response('nope', { status: 403 })));
    closers.push(() => flaky.server.close());
    const { error } = await settle(readRelay(`${flaky.url}/api/chat`, POST, FAST));
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).code).toBe('invalid-input');
    expect((error as RelayError).message).toMatch(/403/);

    const lost = await listen(async () => eventLogErrorResponse(new EventLogError('producer-lost', 'the producer stopped renewing its lease')));
    closers.push(() => lost.server.close());
    const final = await settle(readRelay(`${lost.url}/api/chat`, POST, FAST));
    expect(final.error).toBeInstanceOf(EventLogError);
    expect((final.error as EventLogError).code).toBe('producer-lost');

    let unavailable = 0;
    const down = await listen(async () => (++unavailable < 2 ? eventLogErrorResponse(new EventLogError('unavailable', 'the log is down')) : new Response('gone', { status: 410 })));
    closers.push(() => down.server.close());
    await settle(readRelay(`${down.url}/api/chat`, POST, FAST));
    expect(unavailable).toBe(2); // 'unavailable' (503) was asked again
  });

  it("the relay's own error (a ProviderError in the stream) is final and comes after the events before it", async () => {
    const error = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const sse = anthropicWriteFile(1_000, 10).split('event: content_block_stop')[0]! + error;
    const { url } = await relay(sse);
    const { values, error: failure } = await settle(readRelay(`${url}/api/chat`, POST, FAST));
    expect(failure).toBeInstanceOf(ProviderError);
    expect(values.some((event) => event.type === 'part' || event.type === 'field-delta' || event.type === 'field-start')).toBe(true);
  });

  it('cancelling the stream aborts the request in flight and any wait', async () => {
    let aborted = false;
    const hanging = await listen(async (request) => {
      request.signal.addEventListener('abort', () => (aborted = true));
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('id: 1\ndata: {"type":"finished","reason":"stop"}\n\n')) }), { headers: { 'content-type': 'text/event-stream', 'x-stream-id': 's1' } });
    });
    closers.push(() => hanging.server.close());
    const reader = readRelay(`${hanging.url}/api/chat`, POST, FAST).getReader();
    await reader.read();
    await reader.cancel(new Error('left the page'));
    for (let i = 0; i < 50 && !aborted; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted).toBe(true);

    const gone = await listen(async () => new Response('x', { status: 503 }));
    closers.push(() => gone.server.close());
    const waiting = readRelay(`${gone.url}/api/chat`, POST, { initialDelayMs: 60_000, maxDelayMs: 60_000 }).getReader();
    const read = waiting.read();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await waiting.cancel();
    await expect(read).resolves.toEqual({ done: true, value: undefined });
  });

  it('an aborted signal stops it with its reason', async () => {
    const { url } = await relay(anthropicWriteFile(2_000, 20), { delayMs: 20 });
    const controller = new AbortController();
    const stream = readRelay(`${url}/api/chat`, POST, { signal: controller.signal });
    const reader = stream.getReader();
    await reader.read();
    controller.abort(new Error('stop'));
    let failure: unknown;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeDefined();
  });

  it('bad options are RangeErrors', () => {
    expect(() => readRelay('http://127.0.0.1/x', {}, { maxAttempts: 0 })).toThrow(RangeError);
    expect(() => readRelay('http://127.0.0.1/x', {}, { initialDelayMs: -1 })).toThrow(RangeError);
    expect(() => readRelay('http://127.0.0.1/x', {}, { maxReconnectMs: Number.NaN })).toThrow(RangeError);
  });
});
