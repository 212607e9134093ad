/**
 * RedisEventLog through each client it takes — node-redis and ioredis, on one redis-server and on
 * a real Redis Cluster (three masters with a replica each, started here: six redis-server
 * processes joined by `redis-cli --cluster create`) — against the EventLog contract
 * (test/log/contract.ts); node-redis on one server runs it in redis-event-log.test.ts. Then what
 * only a cluster shows: a stream's keys in one slot, streams spread over the masters and
 * followed at once without CROSSSLOT, and a client the log cannot use refused at construction.
 *
 * Skipped, with what to install, where redis-server is missing; in CI it fails instead.
 */
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisEventLog, type RedisEventLogClient, type RedisEventLogOptions } from '../../src/bindings/redis.ts';
import { hashSlot, redisEventLogClient } from '../../src/log/redis-client.ts';
import { EventLogError, keepStream, newStreamId, serveStream, type EventLog, type EventLogProducer, type LogEntry } from '../../src/index.ts';
import { logContract } from '../log/contract.ts';
import { skipWithoutCluster, startCluster, type RedisCluster } from './redis-cluster.ts';
import { startRedis, type RedisServer } from './redis-server.ts';

const skip = skipWithoutCluster();
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Kind = 'node-redis single' | 'node-redis cluster' | 'ioredis single' | 'ioredis cluster';

/** A connected client of `kind`, and how to let it go. */
async function connect(kind: Kind, server: RedisServer, cluster: RedisCluster): Promise<{ client: unknown; close(): Promise<void> }> {
  switch (kind) {
    case 'node-redis single': {
      const client = createClient({ url: server.url, socket: { connectTimeout: 1000 } });
      client.on('error', () => {});
      await client.connect();
      return { client, close: async () => client.destroy() };
    }
    case 'node-redis cluster': {
      const client = createCluster({ rootNodes: cluster.rootNodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })), defaults: { socket: { connectTimeout: 1000 } } });
      client.on('error', () => {});
      await client.connect();
      return { client, close: async () => client.destroy() };
    }
    case 'ioredis single': {
      const client = new Redis(server.port, '127.0.0.1', { connectTimeout: 1000 });
      client.on('error', () => {});
      await new Promise((resolve, reject) => client.once('ready', resolve).once('error', reject));
      return { client, close: async () => client.disconnect() };
    }
    case 'ioredis cluster': {
      const client = new Cluster(cluster.rootNodes.map(({ host, port }) => ({ host, port })), { redisOptions: { connectTimeout: 1000 } });
      client.on('error', () => {});
      await new Promise((resolve, reject) => client.once('ready', resolve).once('error', reject));
      return { client, close: async () => client.disconnect() };
    }
  }
}

/** The client adapted, its commands (and its blocking connections') counted. */
function counting(client: unknown, counter: { n: number }): RedisEventLogClient {
  const adapted = redisEventLogClient(client);
  return {
    cluster: adapted.cluster,
    send: (key, args, options) => {
      counter.n++;
      return adapted.send(key, args, options);
    },
    async connection(key) {
      const connection = await adapted.connection(key);
      return {
        send: (args) => {
          counter.n++;
          return connection.send(args);
        },
        close: () => connection.close(),
      };
    },
  };
}

async function entries(iterator: AsyncIterableIterator<LogEntry>): Promise<{ entries: LogEntry[]; error: unknown }> {
  const out: LogEntry[] = [];
  try {
    for await (const entry of iterator) out.push(entry);
    return { entries: out, error: undefined };
  } catch (error) {
    return { entries: out, error };
  }
}

const ids = (list: readonly LogEntry[]) => list.flatMap((e) => (e.kind === 'event' ? [e.id] : []));

describe.skipIf(skip)('RedisEventLog through node-redis and ioredis, on one Redis and on a Redis Cluster', () => {
  let server: RedisServer;
  let cluster: RedisCluster;
  const made = new Map<EventLog, { kind: Kind; prefix: string; counter: { n: number } }>();
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    [server, cluster] = await Promise.all([startRedis(), startCluster({ masters: 3, replicas: 1 })]);
  }, 60_000);
  afterAll(async () => {
    for (const close of closers) await close().catch(() => {});
    await Promise.all([server?.stop(), cluster?.stop()]);
  });

  async function makeLog(kind: Kind, prefix: string, options: RedisEventLogOptions = {}): Promise<EventLog> {
    const { client, close } = await connect(kind, server, cluster);
    closers.push(close);
    const counter = { n: 0 };
    const log = new RedisEventLog(counting(client, counter), { prefix, commandTimeoutMs: 1000, ...options });
    const owned: EventLog = {
      open: (id, o) => log.open(id, o),
      read: (id, after, o) => log.read(id, after, o),
      stop: (id) => log.stop(id),
      async close() {
        await log.close();
        await close();
      },
    };
    made.set(owned, { kind, prefix, counter });
    return owned;
  }

  for (const kind of ['node-redis cluster', 'ioredis single', 'ioredis cluster'] as const) {
    logContract(`RedisEventLog (${kind})`, {
      make: (options) => makeLog(kind, `t${newStreamId().slice(0, 8)}`, options),
      peer: (log, options) => makeLog(kind, made.get(log)!.prefix, options),
      abandon(producer: EventLogProducer) {
        (producer as unknown as { release(): void }).release();
      },
      commands: (log) => made.get(log)!.counter.n,
      leaseSlackMs: 600,
    });
  }

  describe('on the cluster', () => {
    for (const kind of ['node-redis cluster', 'ioredis cluster'] as const) {
      it(`${kind}: a stream's keys share its slot; streams spread over the three masters; one instance follows 30 at once (no CROSSSLOT), each whole`, async () => {
        const log = await makeLog(kind, 'spread');
        const other = await makeLog(kind, 'spread');
        try {
          const streams = Array.from({ length: 30 }, () => newStreamId());
          const producers = await Promise.all(streams.map((id) => log.open(id)));
          const readers = streams.map(async (id) => entries(await other.read(id, 0)));
          await delay(100);
          for (let i = 1; i <= 5; i++) await Promise.all(producers.map((p) => p.append({ type: 'n', i })));
          await Promise.all(producers.map((p) => p.end()));
          for (const got of await Promise.all(readers)) {
            expect(got.error).toBeUndefined();
            expect(ids(got.entries)).toEqual([1, 2, 3, 4, 5]);
            expect(got.entries.at(-1)).toEqual({ kind: 'end' });
          }
          // Every key of a stream in its slot, on the master that serves it.
          // (30 random ids miss one of three masters once in 60,000 runs.)
          const masters = new Set<number>();
          for (const id of streams) masters.add((await cluster.masterOf(`spread:{${id}}:e`)).port);
          for (const id of streams.slice(0, 10)) {
            const master = await cluster.masterOf(`spread:{${id}}:e`);
            const keys = (await cluster.cli(master.port, 'KEYS', `spread:{${id}}:*`)).trim().split('\n').sort();
            expect(keys).toEqual([`spread:{${id}}:e`, `spread:{${id}}:m`]);
            for (const key of keys) expect(hashSlot(key)).toBe(Number((await cluster.cli(master.port, 'CLUSTER', 'KEYSLOT', key)).trim()));
          }
          expect(masters.size).toBe(3);
        } finally {
          await log.close();
          await other.close();
        }
      }, 30_000);
    }

    it('a client of one node of the cluster (createClient): the log says to pass a cluster client, in a typed error that names no address', async () => {
      const node = cluster.nodes[0]!;
      const client = createClient({ url: node.url });
      client.on('error', () => {});
      await client.connect();
      const log = new RedisEventLog(client, { commandTimeoutMs: 1000 });
      try {
        // Some stream ids land on this node's slots: try until one is elsewhere.
        let error: unknown;
        for (let i = 0; i < 20 && error === undefined; i++) error = await log.open(newStreamId()).then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(EventLogError);
        expect(error).toMatchObject({ code: 'unavailable' });
        expect((error as Error).message).toMatch(/^Redis did not open the stream: it is a Redis Cluster: the log needs a cluster client \(createCluster from redis, or Cluster from ioredis\)$/);
        expect((error as Error).message).not.toMatch(/127\.0\.0\.1|MOVED|\d{4,5}/);
      } finally {
        await log.close();
        client.destroy();
      }
    });
  });

  describe('a client the log cannot use is a TypeError at construction, saying what to pass', () => {
    it('not a Redis client: a URL, an options object, a Map, a plain function, null', () => {
      for (const bad of ['redis://127.0.0.1:6379', { url: 'redis://127.0.0.1:6379' }, new Map(), () => {}, null, undefined, 42]) {
        expect(() => new RedisEventLog(bad as never)).toThrow(TypeError);
        expect(() => new RedisEventLog(bad as never)).toThrow(/pass a node-redis client \(createClient\(\) or createCluster\(\) from the redis package, version 5 or later\), an ioredis client \(new Redis\(\) or new Cluster\(\)\), or an object implementing RedisEventLogClient/);
      }
    });

    it('a client of another shape (a sendCommand without the rest), and a half-implemented RedisEventLogClient', () => {
      expect(() => new RedisEventLog({ sendCommand: async () => null } as never)).toThrow(/a Redis client the log does not know/);
      expect(() => new RedisEventLog({ cluster: true, send: async () => null } as never)).toThrow(TypeError);
    });

    it('an ioredis client (or cluster) with a keyPrefix: the log\'s own prefix instead', () => {
      const prefixed = new Redis({ lazyConnect: true, keyPrefix: 'app:' });
      const prefixedCluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true, keyPrefix: 'app:' });
      try {
        for (const client of [prefixed, prefixedCluster]) expect(() => new RedisEventLog(client)).toThrow(/keyPrefix: pass a client without one, and the log's own option instead \(new RedisEventLog\(client, \{ prefix \}\)\)/);
      } finally {
        prefixed.disconnect();
        prefixedCluster.disconnect();
      }
    });

    it('each client the log takes is recognised without a command sent (lazy clients stay unconnected)', () => {
      const lazy = [new Redis({ lazyConnect: true }), new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true }), createClient(), createCluster({ rootNodes: [{ url: 'redis://127.0.0.1:1' }] })];
      expect(lazy.map((client) => redisEventLogClient(client).cluster)).toEqual([false, true, false, true]);
      for (const client of lazy) new RedisEventLog(client);
      expect((lazy[0] as Redis).status).toBe('wait');
      expect((lazy[2] as ReturnType<typeof createClient>).isOpen).toBe(false);
      (lazy[0] as Redis).disconnect();
      (lazy[1] as Cluster).disconnect();
    });
  });

  it('serveStream through every client: a turn kept by one client is served whole by the others', async () => {
    const kinds: Kind[] = ['node-redis cluster', 'ioredis cluster'];
    const [a, b] = await Promise.all(kinds.map((kind) => makeLog(kind, 'across')));
    try {
      const id = newStreamId();
      const kept = await keepStream(a!, id, new ReadableStream({ start(c) { for (let i = 1; i <= 20; i++) c.enqueue({ type: 'n', i }); c.close(); } }));
      expect(await kept.done).toEqual({ status: 'ended' });
      const text = await (await serveStream(b!, id, new Request('http://relay/s'), { snapshot: false })).text();
      expect(text).toMatch(/^id: 20\ndata: \[\[0\],.*\]\n\nevent: end\ndata: \{\}\n\n$/s);
    } finally {
      await a!.close();
      await b!.close();
    }
  });
});
