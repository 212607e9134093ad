// The other side of `bench/relay-peers.ts`, in a process of its own so that the benchmark
// process's `process.cpuUsage()` measures the relays alone: a replay provider (Anthropic Messages
// SSE on `POST /<shape>/v1/messages`) and the clients that drain the relays' responses
// (node:http, one new connection per request), timing each response's first body byte.
//
// The provider writes one SSE event per socket write. The events before the first argument delta
// (`message_start`, `content_block_start`, `ping`, an empty delta) go out back to back, a
// `setImmediate` turn apart, as the API sends them; then each stream gets its next event every
// `intervalMs` (a clock of 1 ms; the streams' times spread over one interval), and its end after
// the last: a fixed pace, as a model's tokens arrive, so that a relay that keeps up reads one event
// per network read (writing as fast as the sockets took them made the relays read 2 to 70 events
// at once). A socket whose buffer is full waits for its `drain`; a stream that fell behind goes on
// from now, never in a burst. A shape with `intervalMs: 0` (the correctness gate's) has no clock:
// each event a `setImmediate` turn after the last.
//
// Started by `bench/relay-peers.ts` with `fork`; talks over IPC:
//   → { type: 'init', shapes: { [shape]: { events: string[], intervalMs } } }
//   ← { type: 'ready', port }                                the provider listens on 127.0.0.1:port
//   → { type: 'run', id, url, streams, keep }                `streams` concurrent POSTs to `url`, all at once
//   ← { type: 'done', id, results: [{ status, bytes, ttfbMs, tail, error?, body? }], provider, cpuUs }
//   → { type: 'exit' }
// `body` (base64) is kept for the first stream when `keep` is set, for the correctness gate.
import { createServer, request } from 'node:http';

/** @type {Map<string, { events: Buffer[], preamble: number, intervalMs: number, started: number, streams: Set<object>, timer: NodeJS.Timeout | undefined }>} */
const shapes = new Map();
/** What the provider did since the last `run` reply: streams started, finished, cut by the relay. */
let provider = { started: 0, completed: 0, cancelled: 0 };

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The clock, every millisecond: each stream whose time has come gets its next event (or its end),
 * one write, and its next time is `intervalMs` on. A stream that fell behind (its socket full, the
 * process late) is not caught up in a burst: it goes on from now.
 */
function clock(shape) {
  const now = performance.now();
  for (const stream of shape.streams) {
    if (stream.closed) {
      shape.streams.delete(stream);
      provider.cancelled++;
      continue;
    }
    if (stream.waiting || stream.due > now) continue;
    stream.due = Math.max(stream.due + shape.intervalMs, now);
    if (stream.next < shape.events.length) {
      if (!stream.res.write(shape.events[stream.next++])) {
        stream.waiting = true;
        stream.res.once('drain', () => {
          stream.waiting = false;
        });
      }
    } else {
      stream.res.end();
      shape.streams.delete(stream);
      provider.completed++;
    }
  }
  if (shape.streams.size === 0) {
    clearInterval(shape.timer);
    shape.timer = undefined;
  }
}

async function replay(shape, res) {
  provider.started++;
  const stream = { res, next: 0, due: 0, waiting: false, closed: false };
  res.on('close', () => {
    stream.closed = true;
  });
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  // The preamble, back to back (a turn apart: one write each).
  while (stream.next < shape.preamble) {
    if (stream.closed) {
      provider.cancelled++;
      return;
    }
    res.write(shape.events[stream.next++]);
    await turn();
  }
  if (shape.intervalMs > 0) {
    // Spread over one interval, so that the events of all streams do not come in one burst.
    stream.due = performance.now() + shape.intervalMs * (1 + (shape.started++ % 16) / 16);
    shape.streams.add(stream);
    shape.timer ??= setInterval(clock, 1, shape);
    return;
  }
  // No clock (the correctness gate's shapes): as fast as the socket takes them, a turn apart.
  while (stream.next < shape.events.length) {
    if (stream.closed) {
      provider.cancelled++;
      return;
    }
    if (!res.write(shape.events[stream.next++])) await new Promise((resolve) => res.once('drain', resolve));
    else await turn();
  }
  res.end();
  provider.completed++;
}

const server = createServer((req, res) => {
  const match = /^\/([^/]+)\/v1\/messages$/.exec(req.url ?? '');
  const shape = match === null ? undefined : shapes.get(match[1]);
  if (shape === undefined || req.method !== 'POST') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"no such shape"}}');
    return;
  }
  req.resume();
  req.on('end', () => void replay(shape, res));
});
server.keepAliveTimeout = 60_000;

const requestBody = Buffer.from(JSON.stringify({ prompt: 'Write src/main.ts.' }));

/** One client: POST, read the response to its end; the time to its first body byte. */
function client(url, keep) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': requestBody.length } },
      (res) => {
        let bytes = 0;
        let ttfbMs;
        const chunks = keep ? [] : undefined;
        let last = Buffer.alloc(0);
        res.on('data', (chunk) => {
          if (ttfbMs === undefined) ttfbMs = performance.now() - started;
          bytes += chunk.length;
          chunks?.push(chunk);
          last = chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            bytes,
            ttfbMs: ttfbMs ?? -1,
            // The end of the response (its last read, at most 512 bytes), to check how it ended.
            tail: last.subarray(Math.max(0, last.length - 512)).toString('utf8'),
            ...(chunks ? { body: Buffer.concat(chunks).toString('base64') } : {}),
          }),
        );
        res.on('error', (error) => resolve({ status: res.statusCode, bytes, ttfbMs: ttfbMs ?? -1, error: String(error) }));
      },
    );
    req.on('error', (error) => resolve({ status: 0, bytes: 0, ttfbMs: -1, error: String(error) }));
    req.end(requestBody);
  });
}

process.on('message', async (message) => {
  if (message.type === 'init') {
    for (const [id, { events, intervalMs }] of Object.entries(message.shapes)) {
      // The preamble: every event up to the first argument delta with text.
      const preamble = events.findIndex((event) => event.includes('"input_json_delta"') && !event.includes('"partial_json":""'));
      shapes.set(id, { events: events.map((event) => Buffer.from(event, 'utf8')), preamble, intervalMs, started: 0, streams: new Set(), timer: undefined });
    }
    server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
  } else if (message.type === 'run') {
    provider = { started: 0, completed: 0, cancelled: 0 };
    const cpu = process.cpuUsage();
    const clients = [];
    for (let i = 0; i < message.streams; i++) clients.push(client(message.url, message.keep && i === 0));
    const results = await Promise.all(clients);
    // The provider's streams end before the relay's responses do; let a cut one be counted.
    await turn();
    const used = process.cpuUsage(cpu);
    process.send({ type: 'done', id: message.id, results, provider, cpuUs: used.user + used.system });
  } else if (message.type === 'exit') {
    server.close();
    process.disconnect();
  }
});
