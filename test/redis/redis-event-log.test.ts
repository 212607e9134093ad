/**
 * RedisEventLog against a real redis-server started here on a free loopback port (no mock):
 * the EventLog contract (test/log/contract.ts), then the faults — Redis down at the start, Redis
 * killed and restarted mid-stream (with and without persistence), a producer process killed —
 * and what the log does on the wire: one blocking connection per instance, keys and expiry, no
 * command built from a hostile id (MONITOR).
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
import { RedisEventLog, type NodeRedisClientLike, type RedisEventLogOptions } from '../../src/bindings/redis.ts';
import { EventLogError, keepStream, newStreamId, serveStream, type EventLog, type EventLogProducer, type LogEntry } from '../../src/index.ts';
import { freePort, spawnGroup } from '../runtimes/harness.ts';
import { logContract } from '../log/contract.ts';
import { skipWithoutRedis, startRedis, type RedisServer } from './redis-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const skip = skipWithoutRedis();

async function connected(url: string) {
  const client = createClient({ url, socket: { connectTimeout: 1000 } });
  client.on('error', () => {}); // a restart in a test: the log reports it
  await client.connect();
  return client;
}

type Client = Awaited<ReturnType<typeof connected>>;

/** A client whose commands are counted (its duplicates' too). */
function counting(client: NodeRedisClientLike, counter: { n: number }): NodeRedisClientLike {
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === 'sendCommand') {
        return (args: readonly string[], options?: { timeout?: number }) => {
          counter.n++;
          return target.sendCommand(args, options);
        };
      }
      if (key === 'duplicate') return () => counting(target.duplicate(), counter);
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
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

function ids(list: readonly LogEntry[]): number[] {
  return list.flatMap((e) => (e.kind === 'event' ? [e.id] : []));
}

function consecutive(list: readonly LogEntry[]): boolean {
  return ids(list).every((id, i) => id === i + 1);
}

describe.skipIf(skip)('RedisEventLog on redis-server', () => {
  let server: RedisServer;
  /** Each log made by the harness: its client, prefix and command count. */
  const made = new Map<EventLog, { client: Client; prefix: string; counter: { n: number } }>();

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const { client } of made.values()) if (client.isOpen) client.destroy();
    await server?.stop();
  });

  async function makeLog(prefix: string, options: RedisEventLogOptions = {}): Promise<EventLog> {
    const client = await connected(server.url);
    const counter = { n: 0 };
    const log = new RedisEventLog(counting(client, counter), { prefix, commandTimeoutMs: 1000, ...options });
    // The harness's logs own their client.
    const owned: EventLog = {
      open: (id, o) => log.open(id, o),
      read: (id, after, o) => log.read(id, after, o),
      stop: (id) => log.stop(id),
      async close() {
        await log.close();
        if (client.isOpen) await client.close();
      },
    };
    made.set(owned, { client, prefix, counter });
    return owned;
  }

  logContract('RedisEventLog', {
    make: (options) => makeLog(`t${newStreamId().slice(0, 8)}`, options),
    peer: (log, options) => makeLog(made.get(log)!.prefix, options),
    abandon(producer: EventLogProducer) {
      // In process: stop renewing and writing, as a dead process does (a real one is killed below).
      (producer as unknown as { release(): void }).release();
    },
    commands: (log) => made.get(log)!.counter.n,
    leaseSlackMs: 600,
  });

  describe('on the wire', () => {
    it('keys are prefixed and hash-tagged per stream, expire ttlMs after the end, and ids are the entry ids 0-<n>', async () => {
      const log = await makeLog('wire', { ttlMs: 5_000 });
      const raw = await connected(server.url);
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        await producer.append({ type: 'a', text: 'é' });
        await producer.append({ value: 1 });
        const keys = (await raw.keys(`wire:{${id}}:*`)).sort();
        expect(keys).toEqual([`wire:{${id}}:e`, `wire:{${id}}:l`, `wire:{${id}}:m`]);
        const stream = await raw.sendCommand(['XRANGE', `wire:{${id}}:e`, '-', '+']);
        expect(stream).toEqual([
          ['0-1', ['t', 'a', 'd', '{"type":"a","text":"é"}']],
          ['0-2', ['d', '{"value":1}']],
        ]);
        // While the producer runs, its lease keeps the stream: ttl + lease.
        expect(Number(await raw.pTTL(`wire:{${id}}:e`))).toBeGreaterThan(5_000);
        await producer.end();
        expect(await raw.exists(`wire:{${id}}:l`)).toBe(0);
        const ttl = Number(await raw.pTTL(`wire:{${id}}:e`));
        expect(ttl).toBeGreaterThan(4_000);
        expect(ttl).toBeLessThanOrEqual(5_000);
        expect(await raw.sendCommand(['XRANGE', `wire:{${id}}:e`, '0-3', '0-3'])).toEqual([['0-3', ['x', 'end']]]);
      } finally {
        await log.close();
        raw.destroy();
      }
    });

    it('a stop (and a wake-up) leaves an instance\'s control stream with an expiry: a stop for an instance that is gone makes no key that stays', async () => {
      const producing = await makeLog('control', { blockMs: 1_000 });
      const stopping = await makeLog('control', { blockMs: 1_000 });
      const raw = await connected(server.url);
      try {
        const id = newStreamId();
        const producer = await producing.open(id);
        const owner = (await raw.hGet(`control:{${id}}:m`, 'owner')) as string;
        expect(owner).toMatch(/^control:c:[\w-]{22}$/);
        // The instance's control stream was never written (or expired): the stop writes it, with an expiry.
        await raw.del(owner);
        await stopping.stop(id);
        expect(await raw.exists(owner)).toBe(1);
        const ttl = Number(await raw.pTTL(owner));
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
        // And the producer's instance heard it there.
        for (let i = 0; i < 200 && !producer.signal.aborted; i++) await delay(10);
        expect(producer.signal.reason).toMatchObject({ code: 'stopped' });
        // A stop for a producer whose instance is gone: the control stream it writes expires too.
        const orphan = newStreamId();
        await producing.open(orphan);
        const gone = `control:c:${newStreamId()}`;
        await raw.hSet(`control:{${orphan}}:m`, 'owner', gone);
        await stopping.stop(orphan);
        expect(Number(await raw.pTTL(gone))).toBeGreaterThan(0);
        // A reader that joins wakes the blocking read through the same stream: an expiry again.
        const reader = stopping.read(orphan, 0, { follow: true });
        await delay(100);
        const controls = await raw.keys('control:c:*');
        expect(controls.length).toBeGreaterThanOrEqual(2);
        for (const key of controls) expect(Number(await raw.pTTL(key)), key).toBeGreaterThan(0);
        await (await reader).return?.();
      } finally {
        await producing.close();
        await stopping.close();
        raw.destroy();
      }
    });

    it('follows any number of streams on one blocking connection per instance, and a new reader wakes it at once', async () => {
      const log = await makeLog('conn', { blockMs: 10_000 });
      const raw = await connected(server.url);
      try {
        const before = String(await raw.sendCommand(['CLIENT', 'LIST'])).split('\n').filter((l) => l.includes('cmd=xread')).length;
        const streams = await Promise.all(Array.from({ length: 50 }, async () => {
          const id = newStreamId();
          const producing = await log.open(id);
          return { id, producing };
        }));
        const following = streams.map(({ id }) => log.read(id, 0).then(entries));
        await delay(200);
        const blocked = String(await raw.sendCommand(['CLIENT', 'LIST'])).split('\n').filter((l) => l.includes('cmd=xread')).length;
        expect(blocked - before).toBe(1);
        // A reader that joins while the read blocks (10 s) gets an event appended after it joined at once.
        const late = newStreamId();
        const producer = await log.open(late);
        const reader = log.read(late, 0).then(entries);
        await delay(50);
        const sent = Date.now();
        await producer.append({ type: 'now' });
        await producer.end();
        const got = await reader;
        expect(ids(got.entries)).toEqual([1]);
        expect(got.at - sent).toBeLessThan(500);
        for (const { producing } of streams) await producing.end();
        for (const result of await Promise.all(following)) expect(result.entries).toEqual([{ kind: 'end' }]);
      } finally {
        await log.close();
        raw.destroy();
      }
    });

    it('issues no command with a hostile stream id or Last-Event-ID in it (MONITOR)', async () => {
      const log = await makeLog('monitor');
      const monitor = await connected(server.url);
      const seen: string[] = [];
      try {
        await monitor.monitor((line: string) => seen.push(line));
        const marker = 'HOSTILEMARKER';
        const hostile = [`${marker}:{x}*`, `${marker}\r\nFLUSHALL`, `${marker}${'a'.repeat(200)}`];
        for (const id of hostile) {
          expect((await serveStream(log, id, new Request('http://relay/s'))).status).toBe(400);
          await expect(log.open(id)).rejects.toMatchObject({ code: 'invalid-id' });
        }
        const id = newStreamId();
        const producer = await log.open(id);
        for (const lastId of [`1${marker}`, '-1', '99999999999999999']) {
          expect((await serveStream(log, id, new Request(`http://relay/s?lastEventId=${encodeURIComponent(lastId)}`))).status).toBe(400);
        }
        await producer.end();
        await delay(100);
        expect(seen.some((line) => line.includes(id))).toBe(true); // MONITOR sees the log's commands
        expect(seen.filter((line) => line.includes(marker) || line.includes('99999999999999999'))).toEqual([]);
      } finally {
        monitor.destroy();
        await log.close();
      }
    });
  });

  describe('faults', () => {
    it('Redis down at the start: open, read, stop and serveStream fail with unavailable (503) within the command timeout; keepStream cancels its source, or never calls its source function', async () => {
      const port = await freePort(); // nothing listens there
      for (const connect of [true, false]) {
        const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { connectTimeout: 300 } });
        client.on('error', () => {});
        if (connect) client.connect().catch(() => {}); // retries forever in the background: the log must not wait for it
        const log = new RedisEventLog(client, { commandTimeoutMs: 500 });
        try {
          const id = newStreamId();
          for (const attempt of [() => log.open(id), () => log.read(id, 0), () => log.stop(id)]) {
            const started = Date.now();
            const error = await attempt().then(() => undefined, (e: unknown) => e);
            expect(error).toBeInstanceOf(EventLogError);
            expect((error as EventLogError).code).toBe('unavailable');
            expect(Date.now() - started).toBeLessThan(1_500);
          }
          const started = Date.now();
          const response = await serveStream(log, id, new Request('http://relay/s'));
          expect(response.status).toBe(503);
          expect(await response.text()).toMatch(/^unavailable: Redis did not read the stream/);
          expect(Date.now() - started).toBeLessThan(1_500);
          let cancelled: unknown;
          const source = new ReadableStream({ cancel: (reason) => void (cancelled = reason) });
          await expect(keepStream(log, id, source)).rejects.toMatchObject({ code: 'unavailable' });
          expect(cancelled).toMatchObject({ code: 'unavailable' });
          // Given the provider request as a function, keepStream never makes it.
          let asked = false;
          await expect(keepStream(log, id, () => ((asked = true), new ReadableStream()))).rejects.toMatchObject({ code: 'unavailable' });
          expect(asked).toBe(false);
        } finally {
          await log.close();
          client.destroy();
        }
      }
    });

    it('Redis killed and restarted mid-stream (append-only file): the producer retries, readers go on — every event once, no gap', async () => {
      const persistent = await startRedis({ persistent: true });
      const options = { prefix: 'restart', commandTimeoutMs: 500, leaseMs: 4_000, retryMs: 8_000 };
      const a = await connected(persistent.url);
      const b = await connected(persistent.url);
      const producerLog = new RedisEventLog(a, options);
      const readerLog = new RedisEventLog(b, options);
      try {
        const id = newStreamId();
        const events = Array.from({ length: 150 }, (_, i) => ({ type: 'field-delta', key: 'content', text: `line ${i + 1}\n`, index: 1 }));
        let i = 0;
        const source = new ReadableStream({
          async pull(controller) {
            await delay(8);
            if (i < events.length) controller.enqueue(events[i++]);
            else controller.close();
          },
        });
        const kept = await keepStream(producerLog, id, source);
        const early = readerLog.read(id, 0).then(entries);
        while (i < 40) await delay(5);
        await persistent.kill();
        await delay(400);
        await persistent.restart();
        const outcome = await kept.done;
        expect(outcome).toEqual({ status: 'ended' });
        const got = await early;
        expect(got.error).toBeUndefined();
        expect(ids(got.entries)).toEqual(events.map((_, n) => n + 1));
        expect(got.entries.at(-1)).toEqual({ kind: 'end' });
        // And a resume after it, at an id in the middle.
        const resumed = await entries(await readerLog.read(id, 75));
        expect(ids(resumed.entries)).toEqual(events.slice(75).map((_, n) => n + 76));
      } finally {
        await producerLog.close();
        await readerLog.close();
        a.destroy();
        b.destroy();
        await persistent.stop();
      }
    });

    it('Redis killed and restarted empty mid-stream: the producer and its readers fail with a typed error within a bound, never a silent end', async () => {
      const volatile = await startRedis();
      const options = { prefix: 'lost', commandTimeoutMs: 500, leaseMs: 2_000, retryMs: 4_000 };
      const a = await connected(volatile.url);
      const b = await connected(volatile.url);
      const producerLog = new RedisEventLog(a, options);
      const readerLog = new RedisEventLog(b, options);
      try {
        const id = newStreamId();
        let i = 0;
        let cancelled: unknown;
        const source = new ReadableStream({
          async pull(controller) {
            await delay(10);
            controller.enqueue({ type: 'n', i: ++i });
          },
          cancel: (reason) => void (cancelled = reason),
        });
        const kept = await keepStream(producerLog, id, source);
        const reader = readerLog.read(id, 0).then(entries);
        while (i < 30) await delay(5);
        await volatile.kill();
        const killed = Date.now();
        await delay(300);
        await volatile.restart();
        const outcome = await kept.done;
        expect(outcome.status).toBe('log-failed');
        expect(['producer-lost', 'unavailable', 'lost']).toContain((outcome as { error: EventLogError }).error.code);
        expect(cancelled).toBeInstanceOf(EventLogError);
        const got = await reader;
        expect(got.error).toBeInstanceOf(EventLogError);
        expect(['producer-lost', 'unavailable', 'lost']).toContain((got.error as EventLogError).code);
        expect(got.at - killed).toBeLessThan(options.retryMs + options.leaseMs);
        expect(consecutive(got.entries)).toBe(true);
        expect(got.entries.every((e) => e.kind === 'event')).toBe(true);
        // The stream is gone: a resume is a 404, not an empty success.
        expect((await serveStream(readerLog, id, new Request('http://relay/s', { headers: { 'last-event-id': '3' } }))).status).toBe(404);
      } finally {
        await producerLog.close();
        await readerLog.close();
        a.destroy();
        b.destroy();
        await volatile.stop();
      }
    });

    it('Redis hung (SIGSTOP) mid-stream: briefly, the stream goes on without a gap; beyond the retry bound, a typed error — never a hang', async () => {
      const hung = await startRedis();
      const options = { prefix: 'hung', commandTimeoutMs: 300, leaseMs: 6_000, retryMs: 2_000, blockMs: 1_000 };
      const a = await connected(hung.url);
      const b = await connected(hung.url);
      const producerLog = new RedisEventLog(a, options);
      const readerLog = new RedisEventLog(b, options);
      try {
        // A pause shorter than the retry bound: every event once, in order.
        const id = newStreamId();
        let i = 0;
        const source = new ReadableStream({
          async pull(controller) {
            await delay(10);
            if (i < 80) controller.enqueue({ type: 'n', i: ++i });
            else controller.close();
          },
        });
        const kept = await keepStream(producerLog, id, source);
        const reader = readerLog.read(id, 0).then(entries);
        while (i < 20) await delay(5);
        hung.pause();
        await delay(700);
        hung.resume();
        expect(await kept.done).toEqual({ status: 'ended' });
        const got = await reader;
        expect(got.error).toBeUndefined();
        expect(ids(got.entries)).toEqual(Array.from({ length: 80 }, (_, n) => n + 1));

        // A pause beyond it: the producer and the reader fail with unavailable within the bound.
        const id2 = newStreamId();
        let j = 0;
        let cancelled: unknown;
        const endless = new ReadableStream({
          async pull(controller) {
            await delay(10);
            controller.enqueue({ type: 'n', j: ++j });
          },
          cancel: (reason) => void (cancelled = reason),
        });
        const kept2 = await keepStream(producerLog, id2, endless);
        const reader2 = readerLog.read(id2, 0).then(entries);
        while (j < 20) await delay(5);
        hung.pause();
        const paused = Date.now();
        const outcome = await kept2.done;
        const got2 = await reader2;
        const took = Date.now() - paused;
        hung.resume();
        expect(outcome.status).toBe('log-failed');
        expect((outcome as { error: EventLogError }).error.code).toBe('unavailable');
        expect(cancelled).toMatchObject({ code: 'unavailable' });
        expect(got2.error).toMatchObject({ code: 'unavailable' });
        expect(consecutive(got2.entries)).toBe(true);
        expect(took).toBeLessThan(options.retryMs + options.blockMs + 2 * options.commandTimeoutMs + 1_500);
      } finally {
        hung.resume();
        await producerLog.close();
        await readerLog.close();
        a.destroy();
        b.destroy();
        await hung.stop();
      }
    });

    it('a producer process killed (SIGKILL) mid-stream is reported to readers as producer-lost within its lease', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'argstream-producer-'));
      const leaseMs = 1_500;
      const log = await makeLog('killed', { leaseMs });
      try {
        const script = join(dir, 'producer.cjs');
        await build({
          stdin: {
            contents: `
              import { createClient } from 'redis';
              import { RedisEventLog } from './src/bindings/redis.ts';
              (async () => {
                const [url, id, leaseMs] = process.argv.slice(2);
                const client = createClient({ url });
                client.on('error', () => {});
                await client.connect();
                const log = new RedisEventLog(client, { prefix: 'killed', leaseMs: Number(leaseMs) });
                const producer = await log.open(id);
                for (let i = 1; i <= 3; i++) await producer.append({ type: 'n', i });
                console.log('appended 3');
                setInterval(() => {}, 1000); // alive (renewing its lease) until killed
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
        const id = newStreamId();
        const child = spawnGroup(process.execPath, [script, server.url, id, String(leaseMs)]);
        try {
          const deadline = Date.now() + 10_000;
          while (!child.output().includes('appended 3')) {
            if (!child.alive() || Date.now() > deadline) throw new Error(`the producer did not start: ${child.output()}`);
            await delay(20);
          }
          const reader = log.read(id, 0).then(entries);
          // Alive: its lease is renewed past the lease time.
          await delay(leaseMs * 1.5);
          const killed = Date.now();
          await child.stop(); // SIGKILL to its process group
          const got = await reader;
          expect(ids(got.entries)).toEqual([1, 2, 3]);
          expect(got.error).toBeInstanceOf(EventLogError);
          expect((got.error as EventLogError).code).toBe('producer-lost');
          expect(got.at - killed).toBeLessThan(leaseMs * 1.25 + 500);
          // A resume after it: the events, then the error — as an event the page reads.
          const text = await (await serveStream(log, id, new Request('http://relay/s', { headers: { 'last-event-id': '1' } }))).text();
          // The two events kept after id 1 go as one record (the id of the last), then the error.
          expect(text).toMatch(/^id: 3\ndata: \[\[0\],\{"type":"n","i":2\},\{"type":"n","i":3\}\]\n\nevent: error\ndata: \{"name":"EventLogError","message":"[^"]*","code":"producer-lost"\}\n\n$/);
        } finally {
          await child.stop();
        }
      } finally {
        await log.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a lease check answered after the blocking read has brought newer events is no loss: the reader gets every event once, then the end', async () => {
      // A loaded instance: the answer to a lease check (on the command connection) comes after
      // the blocking read (on its own connection) has delivered events appended meanwhile.
      const client = await connected(server.url);
      const held: number[] = [];
      const slow = new Proxy(client as unknown as NodeRedisClientLike, {
        get(target, key, receiver) {
          if (key === 'sendCommand') {
            return async (args: readonly string[], options?: { timeout?: number }) => {
              const reply = await target.sendCommand(args, options);
              // The status script: two keys, the state and the lease.
              if (/^EVAL/.test(args[0] as string) && args[2] === '2' && args[3]?.endsWith(':m') && args[4]?.endsWith(':l')) {
                held.push(Date.now());
                await delay(300);
              }
              return reply;
            };
          }
          const value = Reflect.get(target, key, receiver) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const reading = new RedisEventLog(slow, { prefix: 'checked', leaseMs: 200, commandTimeoutMs: 2000 });
      const writing = await makeLog('checked', { leaseMs: 200 });
      try {
        const id = newStreamId();
        const producer = await writing.open(id);
        await producer.append({ type: 'n', i: 1 });
        const reader = reading.read(id, 0).then(entries);
        // Quiet for longer than a quarter lease: a check is sent, and its answer (last: 1) held.
        const deadline = Date.now() + 5_000;
        while (held.length === 0 && Date.now() < deadline) await delay(10);
        expect(held.length).toBeGreaterThan(0);
        for (let i = 2; i <= 5; i++) await producer.append({ type: 'n', i });
        await delay(400); // the held answer arrives after events 2–5 were read
        await producer.end();
        const got = await reader;
        expect(got.error).toBeUndefined();
        expect(ids(got.entries)).toEqual([1, 2, 3, 4, 5]);
        expect(got.entries.at(-1)).toEqual({ kind: 'end' });
      } finally {
        await reading.close();
        await writing.close();
        client.destroy();
      }
    });

    it('a producer whose answers come late keeps its lease: it counts the lease from when a write was sent, not from when its answer was read', async () => {
      // A loaded instance reads each answer 150 ms late; the lease is 300 ms.
      const client = await connected(server.url);
      const slow = new Proxy(client as unknown as NodeRedisClientLike, {
        get(target, key, receiver) {
          if (key === 'sendCommand') {
            return async (args: readonly string[], options?: { timeout?: number }) => {
              const reply = await target.sendCommand(args, options);
              await delay(150);
              return reply;
            };
          }
          const value = Reflect.get(target, key, receiver) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const writing = new RedisEventLog(slow, { prefix: 'late', leaseMs: 300, commandTimeoutMs: 2000 });
      const reading = await makeLog('late', { leaseMs: 300 });
      try {
        const id = newStreamId();
        const producer = await writing.open(id);
        await producer.append({ type: 'n', i: 1 });
        const reader = reading.read(id, 0).then(entries);
        await delay(1500); // quiet: only renewals keep the lease
        expect(producer.signal.aborted).toBe(false);
        await producer.append({ type: 'n', i: 2 });
        await producer.end();
        const got = await reader;
        expect(got.error).toBeUndefined();
        expect(ids(got.entries)).toEqual([1, 2]);
        expect(got.entries.at(-1)).toEqual({ kind: 'end' });
      } finally {
        await writing.close();
        await reading.close();
        client.destroy();
      }
    });
  });
});
