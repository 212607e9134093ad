/**
 * The paced provider of the resume bench, in a process of its own: `POST /v1/messages` replays
 * the turn named by `x-turn` (bench/resume/turns.ts: a recording or a scripted `write_file`
 * call), one SSE event every `x-pace-ms` milliseconds. It records every request: the client
 * (`x-client`), the relay that made it (`x-relay`), when it started, and when and how it
 * finished — `completed` (every event sent) or `cancelled` (the relay closed it before the end:
 * a stop, or the relay's death). `GET /stats`: `{ requests: [{ client, relay, startedAt,
 * finishedAt, how }] }`, times in `Date.now()` milliseconds.
 *
 * Environment: FIXTURES (the Anthropic recordings' folder). Prints `listening <port>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadTurns, type ProviderRequest } from './turns.ts';

const turns = new Map([...loadTurns(process.env['FIXTURES'] as string)].map(([name, turn]) => [name, turn.events.map((e) => Buffer.from(e))]));

const requests: ProviderRequest[] = [];

const server = createServer((req, res) => {
  req.resume();
  if (req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests }));
    return;
  }
  const events = turns.get(String(req.headers['x-turn']));
  const pace = Number(req.headers['x-pace-ms']);
  if (events === undefined || !(pace > 0)) {
    res.writeHead(404).end();
    return;
  }
  const record: ProviderRequest = { client: Number(req.headers['x-client']), relay: String(req.headers['x-relay']), startedAt: Date.now(), finishedAt: undefined, how: 'running' };
  requests.push(record);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  let i = 0;
  const timer = setInterval(() => {
    if (i < events.length) res.write(events[i++]);
    else {
      clearInterval(timer);
      record.how = 'completed';
      record.finishedAt = Date.now();
      res.end();
    }
  }, pace);
  res.on('close', () => {
    clearInterval(timer);
    if (record.how === 'running') {
      record.how = 'cancelled';
      record.finishedAt = Date.now();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => process.exit(0));
