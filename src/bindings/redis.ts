/**
 * `argstream/redis`: the event log on Redis, so that a client cut off mid-turn resumes on any
 * instance. Bring your own client: `createClient({ url })` from the `redis` package (node-redis,
 * Redis's own client; an optional peer dependency, version 5 or 6) — nothing here imports it.
 *
 * Runtimes: Node ≥ 20, Bun and Deno (through their Node compatibility) — wherever node-redis
 * runs; tested on all three against a real redis-server. Not edge runtimes (Cloudflare Workers,
 * Vercel Edge) or browsers: the log holds a blocking connection per instance and renews leases
 * from timers beyond any one request (on Workers, `examples/durable-object/` is the log). One
 * Redis primary: Redis Cluster is not supported (an instance's one blocking `XREAD` spans keys in
 * different hash slots). Why this client, and more: docs/relay.md, "Redis: the client, the
 * runtimes, Cluster".
 *
 * @module
 */
export { RedisEventLog } from '../log/redis-event-log.ts';
export type { RedisClientLike, RedisEventLogOptions } from '../log/redis-event-log.ts';
