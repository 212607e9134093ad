/**
 * The paced provider of the resume bench, in a process of its own: `POST /v1/messages` replays
 * the Anthropic recording named by `x-recording`, one SSE event every PACE_MS; it records each
 * request cancelled before its end (by client index, with the relay that made it). `GET /stats`:
 * `{ started, completed, cancelled: [[client, relay], …] }`.
 *
 * Environment: RECORDINGS_DIR, RECORDINGS (comma-separated), PACE_MS. Prints `listening <port>`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const env = process.env;
const PACE_MS = Number(env['PACE_MS'] ?? 25);
const events = new Map<string, Buffer[]>();
for (const name of (env['RECORDINGS'] ?? '').split(',')) {
  const text = readFileSync(join(env['RECORDINGS_DIR'] as string, name), 'utf8');
  events.set(name, text.split(/(?<=\n\n)/).filter((e) => e.trim() !== '').map((e) => Buffer.from(e)));
}
let started = 0;
let completed = 0;
const cancelled = new Map<number, string>();

const server = createServer((req, res) => {
  req.resume();
  if (req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ started, completed, cancelled: [...cancelled] }));
    return;
  }
  const list = events.get(String(req.headers['x-recording']));
  if (list === undefined) {
    res.writeHead(404).end();
    return;
  }
  const who = Number(req.headers['x-client']);
  const relay = String(req.headers['x-relay']);
  started++;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  let i = 0;
  let finished = false;
  const timer = setInterval(() => {
    if (i < list.length) res.write(list[i++]);
    else {
      clearInterval(timer);
      finished = true;
      completed++;
      res.end();
    }
  }, PACE_MS);
  res.on('close', () => {
    clearInterval(timer);
    if (!finished) cancelled.set(who, relay);
  });
});
server.keepAliveTimeout = 60_000;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => console.log(`listening ${(server.address() as AddressInfo).port}`));
