/**
 * One relay process of the resume bench (bench/resume/main.ts starts two): a Node HTTP server
 * with the two calls of a relay that resumes on any instance, on a RedisEventLog shared with the
 * other process.
 *
 * - `POST /chat` `{ turn, pace, client }`: the provider request (a paced replay of that turn),
 *   kept in the log with `keepStream` — not tied to this client: only a stop cancels it — then
 *   served with `serveStream`; the stream id in `x-stream-id`, this process in `x-relay`.
 * - `GET /chat/:id` (`Last-Event-ID`): `serveStream` — a resume, or a reloaded page's first
 *   response (named in `x-stream-id` too: readRelay resumes only a stream a response named).
 * - `POST /chat/:id/stop`: `stopStream`.
 * - `GET /stats[?gc][?brief]`: CPU time, heap (after a GC with `?gc`), bytes sent to clients,
 *   event streams open now and at most; `?brief`: only the streams open.
 * - `POST /cut` (`x-client: <n>`): the connections of client n's event streams are destroyed
 *   mid-stream, as a proxy or a load balancer that drops them would (the bench's cut).
 *
 * Environment: REDIS_URL (one redis-server) or REDIS_CLUSTER (a Redis Cluster: its nodes' URLs,
 * comma-separated), REPLICAS (the log's `replicas`), PROVIDER_URL, NAME, LEASE_MS. Prints
 * `listening <port>` when ready.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance as nodePerformance } from 'node:perf_hooks';
import { createClient, createCluster } from 'redis';
import { RedisEventLog } from '../../src/bindings/redis.ts';
import { eventLogErrorResponse, FieldEventStream, fromResponse, keepStream, newStreamId, serveStream, stopStream } from '../../src/index.ts';

const env = process.env;
const NAME = env['NAME'] ?? 'relay';
/** How many failures of each kind the Redis client reported (a failover makes many: they are counted, not printed). */
const redisErrors: Record<string, number> = {};
const onRedisError = (error: Error) => {
  const kind = error.message.replace(/\d+\.\d+\.\d+\.\d+:\d+/g, '<node>').slice(0, 80);
  if ((redisErrors[kind] = (redisErrors[kind] ?? 0) + 1) === 1) console.error(`${NAME}: redis: ${kind}`);
};
// REDIS_CLUSTER: the cluster's nodes (comma-separated URLs); else REDIS_URL, one redis-server.
const cluster = env['REDIS_CLUSTER'];
let client;
if (cluster !== undefined && cluster !== '') {
  const nodes = createCluster({ rootNodes: cluster.split(',').map((url) => ({ url })) });
  nodes.on('error', onRedisError);
  await nodes.connect();
  client = nodes;
} else {
  const one = createClient({ url: env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' });
  one.on('error', onRedisError);
  await one.connect();
  client = one;
}
const leaseMs = Number(env['LEASE_MS'] ?? 2000);
const log = new RedisEventLog(client, { prefix: 'bench', leaseMs, ttlMs: 120_000, commandTimeoutMs: 5_000, replicas: Number(env['REPLICAS'] ?? 0) });

const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
/** The event loop's utilization each second (`Date.now()` at its end, 0–1): how busy the process was, not only how late its timers were. */
const busy: Array<[number, number]> = [];
let busyBefore = nodePerformance.eventLoopUtilization();
setInterval(() => {
  const now = nodePerformance.eventLoopUtilization();
  busy.push([Date.now(), nodePerformance.eventLoopUtilization(now, busyBefore).utilization]);
  busyBefore = now;
}, 1000).unref();
let bytesOut = 0;
/** Event-stream responses being sent now, and the most at once. */
let open = 0;
let openPeak = 0;
const serveTimes: number[] = [];
/** A first request's two parts: the stream opened in the log (keepStream), then served (serveStream). */
const openTimes: number[] = [];
const postServeTimes: number[] = [];
/** A resume's way in: from the client's send (its `x-sent-at`) to this process's handler, and from there to the headers written. */
const transitTimes: number[] = [];
const headTimes: number[] = [];
let kept = 0;
/** The event streams being sent, by the client that asked (its `x-client` header): what `POST /cut` cuts. */
const streamsOf = new Map<string, Set<ServerResponse>>();
/** How the streams kept here finished: `ended`, `stopped: stopped`, `log-failed: producer-lost` … */
const keptOutcomes: Record<string, number> = {};

async function handle(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (request.method === 'POST' && url.pathname === '/chat') {
    const { turn, pace, client: who } = (await request.json()) as { turn: string; pace: number; client: number };
    const id = newStreamId();
    let keeping;
    const opening = performance.now();
    try {
      // As docs/relay.md's recipe: the provider is asked only once the stream is open in the log
      // (a log that cannot open it — Redis down, a failover — is a 503, and no provider request),
      // with the producer's signal (a stop cancels it). Not tied to this request: the generation
      // goes on when the client leaves.
      keeping = await keepStream(log, id, async (signal) => {
        const upstream = await fetch(env['PROVIDER_URL'] as string, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-client': String(who), 'x-turn': turn, 'x-pace-ms': String(pace), 'x-relay': NAME },
          body: '{}',
          signal,
        });
        return fromResponse(upstream, { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false }));
      });
    } catch (error) {
      return eventLogErrorResponse(error);
    }
    kept++;
    openTimes.push(performance.now() - opening);
    const serving = performance.now();
    void keeping.done.then((outcome) => {
      const key = outcome.status === 'ended' ? 'ended' : `${outcome.status}: ${(outcome.error as { code?: string }).code ?? String(outcome.error)}`;
      keptOutcomes[key] = (keptOutcomes[key] ?? 0) + 1;
      if (outcome.status === 'log-failed') console.error(`${NAME}: stream ${id} (client ${who}): ${String(outcome.error)}`);
    });
    const response = await serveStream(log, id, request, { keepAliveMs: 15_000 });
    postServeTimes.push(performance.now() - serving);
    response.headers.set('x-stream-id', id);
    response.headers.set('x-relay', NAME);
    return response;
  }
  const match = /^\/chat\/([^/]+)(\/stop)?$/.exec(url.pathname);
  if (match !== null) {
    const id = decodeURIComponent(match[1] as string);
    if (match[2] !== undefined && request.method === 'POST') return stopStream(log, id);
    if (request.method === 'GET') {
      // The relay's part of a resume: the stream found and what it holds read from Redis.
      const started = performance.now();
      const response = await serveStream(log, id, request, { keepAliveMs: 15_000 });
      serveTimes.push(performance.now() - started);
      // A page that opens a stream it knows (a reload) resumes only if the response names it.
      response.headers.set('x-stream-id', id);
      return response;
    }
  }
  if (url.pathname === '/stats') {
    if (url.searchParams.has('brief')) return Response.json({ open });
    if (url.searchParams.has('gc')) (globalThis as { gc?: () => void }).gc?.();
    return Response.json({ name: NAME, cpu: process.cpuUsage(), memory: process.memoryUsage(), bytesOut, kept, keptOutcomes, open, openPeak, lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6, serveTimes, openTimes, postServeTimes, transitTimes, headTimes, busy, redisErrors });
  }
  return new Response('not found\n', { status: 404 });
}

/** Node's request → a web Request; the Response → Node's response, cancelled when the client goes. */
async function adapt(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const who = req.headers['x-client'];
  const client = typeof who === 'string' ? who : undefined;
  if (req.method === 'POST' && req.url === '/cut') {
    req.resume();
    let cut = 0;
    for (const stream of streamsOf.get(client ?? '') ?? []) {
      stream.socket?.destroy();
      cut++;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(cut));
    return;
  }
  const arrived = performance.timeOrigin + performance.now();
  const sentAt = Number(req.headers['x-sent-at']);
  const resume = req.method === 'GET' && req.url?.startsWith('/chat/') === true;
  if (resume && sentAt > 0) transitTimes.push(arrived - sentAt);
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const request = new Request(`http://${req.headers.host ?? 'relay'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
    signal: gone.signal,
  });
  let response: Response;
  try {
    response = await handle(request);
  } catch (error) {
    console.error(`${NAME}: ${String((error as Error).stack ?? error)}`);
    response = new Response('internal error\n', { status: 500 });
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  // The status and headers at once (an event stream's first event may come later).
  res.flushHeaders();
  if (resume) headTimes.push(performance.timeOrigin + performance.now() - arrived);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
  if (streaming) openPeak = Math.max(openPeak, ++open);
  if (streaming && client !== undefined) {
    let set = streamsOf.get(client);
    if (set === undefined) streamsOf.set(client, (set = new Set()));
    set.add(res);
  }
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytesOut += value.byteLength;
      if (!res.write(value)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) break;
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    if (streaming) open--;
    const set = client === undefined ? undefined : streamsOf.get(client);
    if (set !== undefined && set.delete(res) && set.size === 0) streamsOf.delete(client as string);
  }
}

const server = createServer((req, res) => void adapt(req, res));
server.keepAliveTimeout = 60_000;
// A killed relay's clients all reconnect here at once: Node's default backlog (511) overflows and
// the kernel drops their SYNs (retried after 1, 3, 7 s).
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => process.exit(0));
