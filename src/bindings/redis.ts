/**
 * `argstream/redis`: the event log on Redis or a Redis Cluster, so that a client cut off mid-turn
 * resumes on any instance. Bring your own client: node-redis (`createClient`, `createCluster`
 * from the `redis` package, version 5 or 6) or ioredis (`new Redis()`, `new Cluster()`; tested
 * with version 6) — optional peer dependencies; nothing here imports them — or anything
 * implementing {@link RedisEventLogClient} (another client, a Valkey client).
 *
 * Runtimes: Node ≥ 20, Bun and Deno (through their Node compatibility) — wherever those clients
 * run; tested on all three against a real redis-server, and on Node against a real Redis Cluster.
 * Not edge runtimes (Cloudflare Workers, Vercel Edge) or browsers: the log holds blocking
 * connections per instance and renews leases from timers beyond any one request (on Workers,
 * `examples/durable-object/` is the log). Why these clients, Cluster, failover, and more:
 * docs/relay.md, "Redis: the clients, the runtimes, Cluster".
 *
 * @module
 */
export { RedisEventLog } from '../log/redis-event-log.ts';
export type { RedisEventLogOptions } from '../log/redis-event-log.ts';
export { hashSlot } from '../log/redis-client.ts';
export type {
  IoRedisClusterLike,
  IoRedisLike,
  NodeRedisClientLike,
  NodeRedisClusterLike,
  RedisClientLike,
  RedisConnection,
  RedisEventLogClient,
  SendOptions,
} from '../log/redis-client.ts';
