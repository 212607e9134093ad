/**
 * One relay process of test/relay/resume-browser.test.ts (it starts two, on one Redis): the
 * README's relay that resumes on any instance, and the page that reads it.
 *
 * - `GET /`: the page; `GET /page.mjs`: its bundle (PAGE_BUNDLE).
 * - `POST /api/chat`: a paced Anthropic write_file turn (the model: TURN_SSE, one record every
 *   PACE_MS), kept in the log with `keepStream` and served with `serveStream` (snapshots off: the
 *   test compares the page's events with the log's one by one); the stream id in `x-stream-id`.
 * - `GET /api/chat/:id` with `Last-Event-ID`: `serveStream`.
 *
 * Environment: REDIS_URL, PAGE_BUNDLE, TURN_SSE (a file), PACE_MS, NAME. Prints `listening <port>`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { RedisEventLog } from '../../src/bindings/redis.ts';
import { eventLogErrorResponse, FieldEventStream, fromResponse, keepStream, newStreamId, serveStream } from '../../src/index.ts';

const env = process.env;
const NAME = env['NAME'] ?? 'relay';
const PACE_MS = Number(env['PACE_MS'] ?? 5);
const TURN = readFileSync(env['TURN_SSE'] as string, 'utf8').split(/(?<=\n\n)/);
const PAGE = `<!doctype html><meta charset="utf-8"><title>resume</title><script type="module" src="/page.mjs"></script>`;

const client = createClient({ url: env['REDIS_URL'] as string });
client.on('error', () => undefined);
await client.connect();
const log = new RedisEventLog(client as never, { prefix: 'resume-test', leaseMs: 3_000, ttlMs: 120_000 });

function model(): Response {
  const encoder = new TextEncoder();
  let i = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (i >= TURN.length) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, PACE_MS));
        controller.enqueue(encoder.encode(TURN[i++]));
      },
    }),
  );
}

async function handle(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === '/') return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  if (url.pathname === '/page.mjs') return new Response(readFileSync(env['PAGE_BUNDLE'] as string), { headers: { 'content-type': 'text/javascript' } });
  try {
    if (request.method === 'POST' && url.pathname === '/api/chat') {
      const streamId = newStreamId();
      console.log(`stream ${streamId}`);
      await keepStream(log, streamId, async () => fromResponse(model(), { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false })));
      const response = await serveStream(log, streamId, request, { snapshot: false });
      response.headers.set('x-stream-id', streamId);
      response.headers.set('x-relay', NAME);
      return response;
    }
    const match = /^\/api\/chat\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && match !== null) {
      const response = await serveStream(log, decodeURIComponent(match[1] as string), request, { snapshot: false });
      response.headers.set('x-relay', NAME);
      return response;
    }
  } catch (error) {
    return eventLogErrorResponse(error);
  }
  return new Response('not found\n', { status: 404 });
}

createServer((req: IncomingMessage, res: ServerResponse) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : Buffer.concat(chunks);
    const response = await handle(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, body }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) return void res.end();
    const reader = response.body.getReader();
    res.on('close', () => void reader.cancel().catch(() => undefined));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  })().catch(() => res.destroy());
}).listen(0, '127.0.0.1', function (this: import('node:http').Server) {
  console.log(`listening ${(this.address() as AddressInfo).port}`);
});
