/**
 * `argstream/redis`: the event log on Redis, so that a client cut off mid-turn resumes on any
 * instance. Bring your own client: `createClient({ url })` from the `redis` package (node-redis,
 * an optional peer dependency).
 *
 * @module
 */
export { RedisEventLog } from '../log/redis-event-log.ts';
export type { RedisClientLike, RedisEventLogOptions } from '../log/redis-event-log.ts';
