/**
 * RedisEventLog under a loaded event loop, against a real redis-server: a relay whose event loop
 * stalls (a long synchronous task, a machine at load 10) for longer than the command timeout
 * while its commands are in flight keeps its turns — the timeout counts the time the process
 * could read Redis's answer, not the stall — and a producer whose whole process stalls (SIGSTOP)
 * keeps its lease for 5/8 of it at least; stalled beyond the lease, it is reported `producer-lost`
 * (to readers, and to itself when it runs again), never silently.
 *
 * Skipped, with what to install, where redis-server is missing; in CI it fails instead.
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisEventLog } from '../../src/bindings/redis.ts';
import { EventStreamDecoder, keepStream, newStreamId, serveStream, type LogEntry } from '../../src/index.ts';
import { settle } from '../helpers.ts';
import { spawnGroup, type GroupProcess } from '../runtimes/harness.ts';
import { skipWithoutRedis, startRedis, type RedisServer } from './redis-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const skip = skipWithoutRedis();
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Block this process's event loop for `ms`: nothing runs meanwhile — no timer, no socket read. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: a long synchronous task
  }
}

async function entries(iterator: AsyncIterableIterator<LogEntry>): Promise<{ entries: LogEntry[]; error: unknown; at: number }> {
  const out: LogEntry[] = [];
  try {
    for await (const entry of iterator) out.push(entry);
    return { entries: out, error: undefined, at: Date.now() };
  } catch (error) {
    return { entries: out, error, at: Date.now() };
  }
}

const ids = (list: readonly LogEntry[]) => list.flatMap((e) => (e.kind === 'event' ? [e.id] : []));

describe.skipIf(skip)('RedisEventLog under a loaded event loop', () => {
  let server: RedisServer;
  const clients: Array<{ isOpen: boolean; destroy(): void }> = [];

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const client of clients) if (client.isOpen) client.destroy();
    await server?.stop();
  });

  async function connected() {
    const client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    clients.push(client);
    return client;
  }

  it('an event loop stalled for 2.5× the command timeout while a command is in flight (its answer came meanwhile): open, append, serveStream\'s read, the end — no unavailable, every event once', async () => {
    const commandTimeoutMs = 500;
    const stallMs = 1_250;
    const producing = new RedisEventLog(await connected(), { prefix: 'stall', commandTimeoutMs, leaseMs: 5_000 });
    const reading = new RedisEventLog(await connected(), { prefix: 'stall', commandTimeoutMs, leaseMs: 5_000 });
    /** A stall just after the command now being issued is written (on the turn node-redis writes it): its answer waits unread. */
    const stallSoon = () => setImmediate(() => stall(stallMs));
    try {
      // Every script once, so that what follows goes to Redis at once (no SHA-1 to compute first).
      const warm = newStreamId();
      await (await keepStream(producing, warm, new ReadableStream({ start: (c) => (c.enqueue({ type: 'n' }), c.close()) }))).done;
      await (await serveStream(reading, warm, new Request('http://relay/s'))).text();

      const id = newStreamId();
      const opening = producing.open(id);
      stallSoon();
      const producer = await opening;
      const follower = reading.read(id, 0).then(entries);
      for (let i = 1; i <= 30; i++) {
        const appending = producer.append({ type: 'n', i });
        if (i % 10 === 0) stallSoon();
        expect(await appending).toBe(i);
      }
      const page = serveStream(reading, id, new Request('http://relay/s'), { snapshot: false });
      stallSoon();
      const response = await page;
      expect(response.status).toBe(200);
      const ending = producer.end();
      stallSoon();
      await ending;
      const { values, error } = await settle(response.body!.pipeThrough(new EventStreamDecoder()));
      expect(error).toBeUndefined();
      expect(values).toEqual(Array.from({ length: 30 }, (_, n) => ({ type: 'n', i: n + 1 })));
      const followed = await follower;
      expect(followed.error).toBeUndefined();
      expect(ids(followed.entries)).toEqual(Array.from({ length: 30 }, (_, n) => n + 1));
    } finally {
      await producing.close();
      await reading.close();
    }
  }, 30_000);

  it('a Redis that does not answer is still unavailable after the command timeout, stall or not', async () => {
    const hung = await startRedis();
    const client = createClient({ url: hung.url });
    client.on('error', () => {});
    await client.connect();
    const log = new RedisEventLog(client, { commandTimeoutMs: 500 });
    try {
      hung.pause();
      const started = Date.now();
      const opening = log.open(newStreamId()).then(() => undefined, (e: unknown) => e);
      stall(800); // given back: the timeout runs on after it
      const error = await opening;
      const took = Date.now() - started;
      expect(error).toMatchObject({ name: 'EventLogError', code: 'unavailable', message: 'Redis did not open the stream within 500 ms' });
      expect(took).toBeGreaterThanOrEqual(800 + 500 - 50);
      expect(took).toBeLessThan(800 + 500 + 1_000);
    } finally {
      hung.resume();
      await log.close();
      client.destroy();
      await hung.stop();
    }
  });

  describe('a producer whose process stalls (SIGSTOP)', () => {
    const leaseMs = 2_000;
    let dir: string;
    let script: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'argstream-stall-'));
      script = join(dir, 'producer.cjs');
      // A producer that appends 5 events 50 ms apart, thinks for `idleMs` (only its renewals keep
      // its lease), then goes on, and says what each append did.
      await build({
        stdin: {
          contents: `
            import { createClient } from 'redis';
            import { RedisEventLog } from './src/bindings/redis.ts';
            (async () => {
              const [url, id, leaseMs, idleMs] = process.argv.slice(2);
              const client = createClient({ url });
              client.on('error', () => {});
              await client.connect();
              const log = new RedisEventLog(client, { prefix: 'stalled', leaseMs: Number(leaseMs) });
              const producer = await log.open(id);
              for (let i = 1; ; i++) {
                try {
                  await producer.append({ type: 'n', i });
                  console.log('appended ' + i);
                } catch (error) {
                  console.log('failed ' + error.code);
                  return;
                }
                await new Promise((resolve) => setTimeout(resolve, i === 5 ? Number(idleMs) : 50));
              }
            })();`,
          resolveDir: ROOT,
          loader: 'ts',
        },
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        outfile: script,
        logLevel: 'silent',
      });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function producing(id: string, idleMs: number): Promise<GroupProcess> {
      const child = spawnGroup(process.execPath, [script, server.url, id, String(leaseMs), String(idleMs)]);
      const deadline = Date.now() + 10_000;
      while (!child.output().includes('appended 5')) {
        if (!child.alive() || Date.now() > deadline) throw new Error(`the producer did not start: ${child.output()}`);
        await delay(20);
      }
      return child;
    }

    const appended = (child: GroupProcess) => Math.max(0, ...[...child.output().matchAll(/appended (\d+)/g)].map((m) => Number(m[1])));

    it('stalled again and again for 0.6 of its lease while it thinks (no event: only renewals keep its lease): it keeps its lease, and the stream goes on for its readers', async () => {
      const log = new RedisEventLog(await connected(), { prefix: 'stalled', leaseMs });
      const id = newStreamId();
      // Quiet for 5 s after its 5th event; stalled three times meanwhile, each time at another point of its renewals.
      const child = await producing(id, 5_000);
      try {
        const reader = log.read(id, 0).then(entries);
        for (let round = 0; round < 3; round++) {
          process.kill(child.pid, 'SIGSTOP');
          await delay(leaseMs * 0.6);
          process.kill(child.pid, 'SIGCONT');
          await delay(leaseMs * 0.1 + round * 70);
        }
        // Its readers saw no producer-lost meanwhile: it was alive.
        const deadline = Date.now() + 8_000;
        while (appended(child) < 15 && Date.now() < deadline) await delay(20);
        expect(appended(child)).toBeGreaterThanOrEqual(15);
        expect(child.output()).not.toContain('failed');
        // Then it dies: only now do its readers learn producer-lost, after every event it wrote.
        const last = appended(child);
        await child.stop();
        const got = await reader;
        expect(got.error).toMatchObject({ code: 'producer-lost' });
        expect(ids(got.entries).length).toBeGreaterThanOrEqual(last);
        expect(ids(got.entries)).toEqual(Array.from({ length: ids(got.entries).length }, (_, n) => n + 1));
      } finally {
        await child.stop();
        await log.close();
      }
    }, 20_000);

    it('stalled beyond its lease: its readers get producer-lost within 1.25 leases, and the producer learns it (producer-lost) at its next append when it runs again', async () => {
      const log = new RedisEventLog(await connected(), { prefix: 'stalled', leaseMs });
      const id = newStreamId();
      const child = await producing(id, 50);
      try {
        const reader = log.read(id, 0).then(entries);
        process.kill(child.pid, 'SIGSTOP');
        const stopped = Date.now();
        const got = await reader;
        expect(got.error).toMatchObject({ name: 'EventLogError', code: 'producer-lost' });
        expect(got.at - stopped).toBeLessThan(leaseMs * 1.25 + 500);
        process.kill(child.pid, 'SIGCONT');
        const deadline = Date.now() + 5_000;
        while (!child.output().includes('failed') && Date.now() < deadline) await delay(20);
        expect(child.output()).toMatch(/failed producer-lost/);
        // A page that asks now gets the events, then producer-lost: never an end.
        const text = await (await serveStream(log, id, new Request('http://relay/s'), { snapshot: false })).text();
        expect(text).toMatch(/event: error\ndata: \{"name":"EventLogError","message":"[^"]*","code":"producer-lost"\}\n\n$/);
      } finally {
        await child.stop();
        await log.close();
      }
    }, 20_000);
  });
});
