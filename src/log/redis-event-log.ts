/**
 * The event log on Redis: streams kept in Redis Streams, so that a client resumes on any
 * instance — on one Redis or a Redis Cluster, through node-redis or ioredis. The entry point
 * `argstream/redis`.
 *
 * @module
 */
import {
  checkPrefix,
  checkStreamId,
  encodeEvent,
  EventLogError,
  newStreamId,
  positive,
  type EventLog,
  type EventLogProducer,
  type LogEntry,
  type OpenOptions,
  type ReadOptions,
} from './event-log.ts';
import { redisEventLogClient, type RedisClientLike, type RedisConnection, type RedisEventLogClient } from './redis-client.ts';
import { APPEND, CONTROL, FINISH, OPEN, READ, RENEW, STATUS, STOP } from './redis-scripts.ts';
import type { PageErrorOptions } from '../relay/error-record.ts';
import { writeError } from '../relay/wire.ts';

/** Options of {@link RedisEventLog}. */
export interface RedisEventLogOptions {
  /**
   * What every key of this log starts with, so that applications sharing a Redis do not meet:
   * `<prefix>:{<streamId>}:e` (the events), `:m` (the state), `:l` (the lease), `:s` (a stop
   * request), `:w:<instance>` (a wake-up for an instance's blocking read of the stream, on a
   * cluster), and `<prefix>:c:<instance>` (an instance's control stream).
   * @default 'argstream'
   */
  readonly prefix?: string;
  /**
   * How long a stream is kept after it ended, failed or its producer died, in milliseconds.
   * While the producer runs, its lease keeps the stream.
   * @default 600_000 (10 minutes)
   */
  readonly ttlMs?: number;
  /**
   * The most bytes of event data (UTF-8 JSON) a stream may hold; an append beyond it fails the
   * stream with `too-large` (readers get that error after the events that fit).
   * @default 16 MiB (16 777 216)
   */
  readonly maxBytes?: number;
  /**
   * The producer's lease, in milliseconds: each append extends it, and while no event comes the
   * producer renews it every quarter of this. A producer that dies stops renewing: readers report
   * `producer-lost` at most a quarter of this after the lease runs out — so within 1.25 ×
   * `leaseMs` of its death. A producer whose process stalls (a blocked event loop, a paused VM)
   * keeps its lease for 5/8 of this at least (6.25 s by default), and is not reported lost while
   * it does; stalled beyond the lease, it is (and learns it, `producer-lost`, when it runs again).
   * On a cluster, make it longer than a failover (see `retryMs`).
   * @default 10_000
   */
  readonly leaseMs?: number;
  /**
   * How long Redis may take to answer one command before it counts as failed, in milliseconds of
   * time this process could hear the answer: a stall of the event loop (a long synchronous task, a
   * loaded machine) does not count, so a reply that came during it is read, not timed out. Redis
   * down at the start of a request is `unavailable` after this.
   * @default 2_000
   */
  readonly commandTimeoutMs?: number;
  /**
   * How long a producer goes on retrying a write, and a reader re-reading, while Redis cannot be
   * reached (a restart; on a cluster, a failover: `cluster-node-timeout` and the election, then
   * the client finding the new master), in milliseconds; after it, the producer's stream and its
   * readers fail with `unavailable`. Retries never duplicate an event (ids are explicit and
   * checked).
   * @default the lease time
   */
  readonly retryMs?: number;
  /**
   * How long one blocking read (`XREAD BLOCK`) waits at most before it is issued again, in
   * milliseconds. New events end it at once; this only bounds a read that nothing ends.
   * @default 5_000
   */
  readonly blockMs?: number;
  /**
   * How many replicas must hold a write before it counts as done: after each write the producer
   * sends `WAIT <replicas>`, and an append resolves only once that many replicas acknowledged it.
   * Redis replicates asynchronously: without this, a write a master acknowledged can be lost when
   * a replica takes over (the producer then fails with `lost`, readers get `lost` — never a
   * silent hole). With it, what was acknowledged survives a failover to one of those replicas; a
   * write whose replicas do not acknowledge it within `retryMs` (a replica down, a master left
   * without one after a failover) fails the stream with `unavailable`. `0`: no `WAIT`.
   * @default 0
   */
  readonly replicas?: number;
}

/** A script with its SHA-1, for `EVALSHA`. */
interface Script {
  readonly source: string;
  sha: Promise<string> | undefined;
}

function script(source: string): Script {
  return { source, sha: undefined };
}

const SCRIPTS: Readonly<Record<'open' | 'append' | 'finish' | 'renew' | 'stop' | 'read' | 'status' | 'control', Script>> = {
  open: script(OPEN),
  append: script(APPEND),
  finish: script(FINISH),
  renew: script(RENEW),
  stop: script(STOP),
  read: script(READ),
  status: script(STATUS),
  control: script(CONTROL),
};

async function sha1(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text)));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Deadlines that a stalled event loop does not eat

/** How often the stall clock ticks while commands wait. */
const TICK_MS = 50;
/** A timer this late (or a tick this much later than due) was held up by a stall. */
const STALL_SLACK_MS = 20;

/**
 * The time this process's event loop spent stalled — when no reply could be read — as a timer
 * ticking every 50 ms sees it (how much later than due each tick ran). It ticks only while
 * commands wait.
 */
const stalls = {
  total: 0,
  lastTick: 0,
  waiting: 0,
  timer: undefined as ReturnType<typeof setInterval> | undefined,
  start(): void {
    if (this.waiting++ > 0) return;
    this.lastTick = Date.now();
    this.timer = setInterval(() => {
      const now = Date.now();
      const late = now - this.lastTick - TICK_MS;
      if (late > STALL_SLACK_MS) this.total += late;
      this.lastTick = now;
    }, TICK_MS);
  },
  stop(): void {
    if (--this.waiting > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  },
};

/**
 * `promise`, or a rejection (`NoAnswer`) after `ms` of time the process could have read its
 * reply. A timer fires as soon as a stalled event loop runs again, before the loop reads the
 * sockets: a reply that came during the stall would wait behind it, and a command queued before
 * it (node-redis writes on the next turn) was sent only after it. So the time the loop was stalled
 * while the command waited is given back, and the deadline moves on by as much — the command had
 * `ms` of time it could be answered in. node-redis's own `timeout` only ends a command not yet
 * sent: one sent to a server that stopped answering (a partition, a paused process) would wait
 * forever. The command itself goes on; the log's writes are idempotent, so a late reply is
 * harmless.
 */
function deadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    stalls.start();
    const finish = () => {
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      stalls.stop();
    };
    const arm = (wait: number) => {
      const due = Date.now() + wait;
      const stalledBefore = stalls.total;
      timer = setTimeout(() => {
        if (done) return;
        const given = Math.max(stalls.total - stalledBefore, Date.now() - due);
        if (given > STALL_SLACK_MS) {
          arm(Math.min(given, ms));
          return;
        }
        finish();
        reject(new NoAnswer(ms));
      }, wait);
    };
    arm(ms);
    promise.then(
      (value) => {
        if (done) return;
        finish();
        resolve(value);
      },
      (error: unknown) => {
        if (done) return;
        finish();
        reject(error);
      },
    );
  });
}

/** The log's own deadline ran out: Redis did not answer a command in time. */
class NoAnswer extends Error {
  override readonly name = 'NoAnswer';
  readonly ms: number;

  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.ms = ms;
  }
}

/** What Redis's error says, when it is one of the replies that mean the log was given the wrong client. */
function misconfigured(cause: unknown): string | undefined {
  const message = cause instanceof Error ? cause.message : '';
  if (/^(MOVED|ASK|CROSSSLOT|CLUSTERDOWN) /.test(message)) return 'is a Redis Cluster: the log needs a cluster client (createCluster from redis, or Cluster from ioredis)';
  return undefined;
}

/**
 * `unavailable`, in the log's own words: what it asked of Redis, and for how long when the log's
 * deadline ran out. Never the failure's text — a client's connection error names Redis's address
 * (`connect ECONNREFUSED 10.0.0.5:6379`), a reply error may quote the command, its keys or a
 * cluster node's address — since the message reaches pages (the 503 body, an `event: error`
 * record); the failure stays on the error's `cause`, on the server, for logs.
 */
function unavailable(what: string, cause: unknown, cluster = false): EventLogError {
  const within = cause instanceof NoAnswer ? ` within ${cause.ms} ms` : '';
  // A cluster client meets these replies in a failover (CLUSTERDOWN) or a resharding: not a misconfiguration.
  const wrong = cluster ? undefined : misconfigured(cause);
  return new EventLogError('unavailable', wrong === undefined ? `Redis did not ${what}${within}` : `Redis did not ${what}: it ${wrong}`, { cause });
}

/** Why the append script refused a batch, for the statuses not handled on their own (Redis's reply is never quoted). */
const APPEND_REFUSED: Readonly<Record<string, string>> = { closed: 'it has ended', conflict: 'its events were written by another producer' };

/** Entries per page of a read, and per stream of a blocking read. */
const PAGE = 512;
/** Events per append script. */
const BATCH = 256;
/** Bytes per append script (the batch closes at the first event beyond). */
const BATCH_BYTES = 512 * 1024;
/** A follower whose reader lags this many entries is left out of the blocking reads until it catches up. */
const FOLLOWER_HIGH_WATER = 1024;
/** The longest `WAIT` for replicas, in milliseconds (it is repeated within `retryMs`). */
const MAX_WAIT_MS = 1_000;

/** The keys of one stream. */
interface Keys {
  readonly events: string;
  readonly meta: string;
  readonly lease: string;
  readonly stop: string;
}

/** A stream entry as Redis gives it: `[id, [field, value, …]]` → a log entry. */
function toEntry(raw: unknown): { id: number; entry: LogEntry } {
  const [rawId, rawFields] = raw as [unknown, unknown];
  const id = String(rawId);
  const n = id.startsWith('0-') ? Number(id.slice(2)) : Number.NaN;
  let type: string | undefined;
  let data: string | undefined;
  let terminal: string | undefined;
  const fields = Array.isArray(rawFields) ? rawFields : Object.entries(rawFields as Record<string, unknown>).flat();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const field = String(fields[i]);
    const value = String(fields[i + 1]);
    if (field === 't') type = value;
    else if (field === 'd') data = value;
    else if (field === 'x') terminal = value;
  }
  // What Redis holds is not quoted: the log's own words only reach a page.
  if (!Number.isSafeInteger(n) || n < 1) throw new EventLogError('unavailable', 'an entry of the log has an id the log does not write');
  if (terminal === 'end') return { id: n, entry: { kind: 'end' } };
  if (terminal === 'error') return { id: n, entry: { kind: 'error', data: data ?? '{"name":"Error","message":""}' } };
  if (data === undefined) throw new EventLogError('unavailable', `the log entry of event ${n} has no data`);
  return { id: n, entry: { kind: 'event', id: n, type, data } };
}

/**
 * `XREAD`'s reply, RESP2 (`[[key, entries], …]`) or RESP3 (a map; ioredis gives a map as a flat
 * array, `[key, entries, key, entries, …]`): [key, entries] pairs.
 */
function streamsOf(reply: unknown): Array<[string, unknown[]]> {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    if (reply.length > 0 && !Array.isArray(reply[0])) {
      const pairs: Array<[string, unknown[]]> = [];
      for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([String(reply[i]), reply[i + 1] as unknown[]]);
      return pairs;
    }
    return reply.map((item) => [String((item as unknown[])[0]), (item as unknown[])[1] as unknown[]]);
  }
  if (reply instanceof Map) return [...reply].map(([key, value]) => [String(key), value as unknown[]]);
  return Object.entries(reply as Record<string, unknown[]>);
}

/**
 * An {@link EventLog} on Redis (≥ 6.2; Redis 7 in the tests) or a Redis Cluster, for a relay that
 * runs on several instances: a client that reconnects lands anywhere and resumes from the log.
 *
 * - **Clients.** node-redis (`createClient`, `createCluster`), ioredis (`new Redis`, `new
 *   Cluster`), or anything implementing `RedisEventLogClient` (another client, a Valkey client):
 *   each is recognised by its shape at construction, and anything else is a `TypeError` saying
 *   what to pass.
 * - **Layout.** Each stream is a Redis Stream `<prefix>:{<id>}:e` whose entry `0-<n>` is event
 *   n, written with an explicit id (`XADD … 0-<n>`), so the relay's SSE ids are the log's ids and
 *   a retried write can never add an event twice. Next to it: a hash of its state (`:m`), the
 *   producer's lease (`:l`, renewed while it runs) and a stop request (`:s`). All of a stream's
 *   keys share the hash tag `{<id>}`, so they live in one slot of a cluster. Writes are Lua
 *   scripts over one stream's keys: atomic, one round trip each; appends made while one is in
 *   flight go in the next script together. Keys expire (`PEXPIRE`) `ttlMs` after the stream ends
 *   or its producer stops renewing.
 * - **Live tail.** A blocking read (`XREAD BLOCK`) holds its connection until it returns, so it
 *   goes on a connection of the log's own, never on the client given (where it would hold up
 *   every other command of the application, and of the log). On one Redis, readers that follow
 *   streams share one blocking read over all of them and this instance's control stream (where a
 *   new reader wakes it, and a stop from another instance reaches a producer at once). On a
 *   cluster, one command may only name keys of one slot (else `CROSSSLOT`): each stream followed
 *   has a blocking read (and a connection) of its own, and the control stream another.
 * - **Faults.** Every command has a deadline (`commandTimeoutMs`): Redis down is `unavailable`,
 *   never a hang. A producer retries across a Redis restart or a failover for `retryMs`, without
 *   duplicates; readers check that ids are consecutive, and report events Redis lost (a failover
 *   before replication, a restart without persistence) as `lost`; a producer that dies is
 *   reported as `producer-lost` when its lease runs out. With `replicas`, what an append
 *   acknowledged survives a failover.
 *
 * Runtimes: Node ≥ 20, Bun, Deno (see `argstream/redis`). The log does not own the client:
 * `close()` closes the connections it made (the blocking ones) and leaves the client given open.
 * @throws {TypeError} (constructor) for a client the log cannot use, saying what to pass.
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { RedisEventLog } from 'argstream/redis';
 *
 * const client = createClient({ url: process.env.REDIS_URL });
 * client.on('error', (error) => console.error('redis', error.message));
 * await client.connect();
 * const log = new RedisEventLog(client, { prefix: 'chat' });
 * // A cluster: createCluster({ rootNodes: [{ url }] }), and { replicas: 1 } to keep what was acknowledged across a failover.
 * ```
 */
export class RedisEventLog implements EventLog {
  readonly #redis: RedisEventLogClient;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #leaseMs: number;
  readonly #timeoutMs: number;
  readonly #retryMs: number;
  readonly #replicas: number;
  readonly #tail: Tail;
  #closed = false;

  /**
   * @throws {TypeError} for a client the log cannot use (not a node-redis or ioredis client, nor a
   * `RedisEventLogClient`; an ioredis client with a `keyPrefix`), saying what to pass.
   * @throws {RangeError} for a bad prefix or a limit that is not a positive integer.
   */
  constructor(client: RedisClientLike, options: RedisEventLogOptions = {}) {
    this.#redis = redisEventLogClient(client);
    this.#prefix = checkPrefix(options.prefix ?? 'argstream');
    this.#ttlMs = positive(options.ttlMs ?? 600_000, 'RedisEventLog: ttlMs');
    this.#maxBytes = positive(options.maxBytes ?? 16 * 1024 * 1024, 'RedisEventLog: maxBytes');
    this.#leaseMs = positive(options.leaseMs ?? 10_000, 'RedisEventLog: leaseMs');
    this.#timeoutMs = positive(options.commandTimeoutMs ?? 2_000, 'RedisEventLog: commandTimeoutMs');
    this.#retryMs = positive(options.retryMs ?? this.#leaseMs, 'RedisEventLog: retryMs');
    const replicas = options.replicas ?? 0;
    if (!Number.isSafeInteger(replicas) || replicas < 0) throw new RangeError(`RedisEventLog: replicas must be a non-negative integer, got ${String(replicas)}`);
    this.#replicas = replicas;
    const blockMs = positive(options.blockMs ?? 5_000, 'RedisEventLog: blockMs');
    const instance = newStreamId();
    this.#tail = new Tail(this, this.#prefix, instance, blockMs, this.#leaseMs, this.#retryMs, this.#timeoutMs);
  }

  /** @internal The keys of a stream (its id checked already). */
  keys(streamId: string): Keys {
    const base = `${this.#prefix}:{${streamId}}`;
    return { events: `${base}:e`, meta: `${base}:m`, lease: `${base}:l`, stop: `${base}:s` };
  }

  /** @internal The client, adapted. */
  get redis(): RedisEventLogClient {
    return this.#redis;
  }

  /** @internal Run a script (EVALSHA, then EVAL when Redis does not have it); a failure is `unavailable`. */
  async eval(name: keyof typeof SCRIPTS, keys: readonly string[], args: readonly string[], what: string): Promise<unknown> {
    if (this.#closed) throw new EventLogError('unavailable', 'the event log is closed');
    const s = SCRIPTS[name];
    s.sha ??= sha1(s.source);
    const key = keys[0] as string;
    const argv = [String(keys.length), ...keys, ...args];
    const options = { timeoutMs: this.#timeoutMs };
    try {
      try {
        return await deadline(this.#redis.send(key, ['EVALSHA', await s.sha, ...argv], options), this.#timeoutMs);
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
        return await deadline(this.#redis.send(key, ['EVAL', s.source, ...argv], options), this.#timeoutMs);
      }
    } catch (error) {
      throw error instanceof EventLogError ? error : unavailable(what, error, this.#redis.cluster);
    }
  }

  /**
   * @internal With `replicas`: wait until that many replicas hold the writes made so far to
   * `key`'s node (`WAIT`, repeated within the retry bound by the caller).
   * @throws {EventLogError} `unavailable` when fewer acknowledged them.
   */
  async replicated(key: string, what: string): Promise<void> {
    if (this.#replicas === 0) return;
    const waitMs = Math.min(this.#timeoutMs, MAX_WAIT_MS);
    let acknowledged: number;
    try {
      acknowledged = Number(await deadline(this.#redis.send(key, ['WAIT', String(this.#replicas), String(waitMs)], { timeoutMs: waitMs + this.#timeoutMs }), waitMs + this.#timeoutMs));
    } catch (error) {
      throw unavailable(what, error, this.#redis.cluster);
    }
    if (!(acknowledged >= this.#replicas)) {
      throw new EventLogError('unavailable', `Redis did not ${what} on ${this.#replicas} replica${this.#replicas === 1 ? '' : 's'} within ${waitMs} ms (${acknowledged} acknowledged)`);
    }
  }

  async open(streamId: string, options: OpenOptions = {}): Promise<EventLogProducer> {
    checkStreamId(streamId);
    const ttlMs = positive(options.ttlMs ?? this.#ttlMs, 'open: ttlMs');
    const maxBytes = positive(options.maxBytes ?? this.#maxBytes, 'open: maxBytes');
    if (maxBytes > 2 ** 40) throw new RangeError(`open: maxBytes must be at most 2^40, got ${maxBytes}`);
    const keys = this.keys(streamId);
    const token = newStreamId();
    const reply = await this.eval('open', [keys.events, keys.meta, keys.lease], [token, String(this.#leaseMs), String(ttlMs), String(maxBytes), this.#tail.controlKey], 'open the stream');
    if (reply === 'exists') throw new EventLogError('exists', `the stream ${streamId} exists: it has a producer already`);
    if (reply !== 'ok') throw new EventLogError('unavailable', 'Redis gave an answer the event log does not write, to open the stream');
    await this.replicated(keys.events, 'open the stream');
    return new RedisProducer(this, this.#tail, streamId, keys, token, this.#leaseMs, this.#retryMs);
  }

  async read(streamId: string, after: number, options: ReadOptions = {}): Promise<AsyncIterableIterator<LogEntry>> {
    checkStreamId(streamId);
    if (!Number.isSafeInteger(after) || after < 0) throw new EventLogError('invalid-id', `an event id is a non-negative integer, got ${String(after)}`);
    const keys = this.keys(streamId);
    const first = await this.#page(streamId, keys, after);
    if (first === undefined) throw new EventLogError('not-found', `no stream ${streamId}: it never existed or it expired`);
    if (after > first.last) {
      // A stream failed after Redis lost events a page had read (a failover): the page resumes
      // from beyond what is left, and learns why the stream failed rather than a 400.
      if (first.state === 'failed') {
        const terminal = (await this.#page(streamId, keys, first.last))?.entries[0]?.entry;
        if (terminal?.kind === 'error') return (async function* () {
          yield terminal;
        })();
      }
      throw new EventLogError('invalid-id', `the stream ${streamId} has ${first.last} events so far: there is no event ${after}`);
    }
    return this.#entries(streamId, keys, after, first, options.follow ?? true, options.signal);
  }

  /** One page of a stream after `after`, with its state; `undefined` when there is no such stream. */
  async #page(streamId: string, keys: Keys, after: number): Promise<{ last: number; state: string; leased: boolean; entries: Array<{ id: number; entry: LogEntry }> } | undefined> {
    const reply = await this.eval('read', [keys.meta, keys.events, keys.lease], [String(after), String(PAGE)], `read the stream ${streamId}`);
    if (reply === null || reply === undefined || reply === false) return undefined;
    const [last, state, leased, entries] = reply as [unknown, unknown, unknown, unknown[]];
    return { last: Number(last), state: String(state), leased: Number(leased) === 1, entries: entries.map(toEntry) };
  }

  async *#entries(
    streamId: string,
    keys: Keys,
    after: number,
    firstPage: { last: number; state: string; leased: boolean; entries: Array<{ id: number; entry: LogEntry }> },
    follow: boolean,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LogEntry> {
    let at = after;
    let page: typeof firstPage | undefined = firstPage;
    // The entries there are now, page by page.
    for (;;) {
      if (page === undefined) throw new EventLogError('lost', `the stream ${streamId} is gone from Redis after event ${at} (Redis lost it, or it expired)`);
      for (const { id, entry } of page.entries) {
        if (id !== at + 1) throw new EventLogError('lost', `the log of stream ${streamId} skipped from event ${at} to ${id}`);
        if (entry.kind !== 'event') {
          yield entry;
          return;
        }
        at = id;
        yield entry;
        if (signal?.aborted === true) return;
      }
      if (page.entries.length < PAGE) break;
      page = await this.#page(streamId, keys, at);
    }
    if (!follow || signal?.aborted === true) return;
    if (page.state === 'open' && !page.leased && at >= page.last) {
      throw new EventLogError('producer-lost', `the producer of stream ${streamId} stopped before the stream's end (its lease ran out)`);
    }
    // The live tail.
    const follower = new Follower(this.#tail, streamId, keys, at);
    const onAbort = () => follower.close();
    signal?.addEventListener('abort', onAbort);
    try {
      yield* follower.entries();
    } finally {
      signal?.removeEventListener('abort', onAbort);
      follower.close();
    }
  }

  async stop(streamId: string): Promise<void> {
    checkStreamId(streamId);
    const keys = this.keys(streamId);
    const reply = (await this.eval('stop', [keys.meta, keys.stop], [], `stop the stream ${streamId}`)) as unknown[];
    if (reply[0] === 'not-found') throw new EventLogError('not-found', `no stream ${streamId}: it never existed or it expired`);
    if (reply[0] !== 'ok') return;
    const owner = String(reply[1]);
    // The producer's instance is told at once on its control stream; the flag set by the script
    // reaches it at its next write or lease renewal in any case. The message gives the control
    // stream an expiry: for an instance that is gone, it would otherwise make a key that stays.
    if (!owner.startsWith(`${this.#prefix}:c:`)) return;
    await this.eval('control', [owner], [String(this.#tail.controlTtlMs), 's', streamId], `stop the stream ${streamId}`).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#tail.close();
  }

  /** @internal Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }
}

// ---------------------------------------------------------------------------------------------

/** A reader following a stream's live tail. */
class Follower {
  readonly streamId: string;
  readonly keys: Keys;
  /** The id of the last entry taken from Redis. */
  fetched: number;
  readonly #tail: Tail;
  readonly #queue: LogEntry[] = [];
  #finished = false;
  #error: unknown;
  #notify: (() => void) | undefined;
  /** Left out of the blocking reads while its reader lags. */
  paused = false;
  /** When an entry last came (for the lease checks). */
  lastEntryAt = Date.now();

  constructor(tail: Tail, streamId: string, keys: Keys, after: number) {
    this.#tail = tail;
    this.streamId = streamId;
    this.keys = keys;
    this.fetched = after;
    tail.add(this);
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Entries from a blocking read: those after `fetched`, checked to be consecutive. */
  take(entries: ReadonlyArray<{ id: number; entry: LogEntry }>): void {
    if (this.#finished) return;
    for (const { id, entry } of entries) {
      if (id <= this.fetched) continue; // read for another follower of the stream that is behind
      if (id !== this.fetched + 1) {
        this.fail(new EventLogError('lost', `the log of stream ${this.streamId} skipped from event ${this.fetched} to ${id}`));
        return;
      }
      this.fetched = id;
      this.#queue.push(entry);
      this.lastEntryAt = Date.now();
      if (entry.kind !== 'event') {
        this.#finish();
        break;
      }
    }
    if (this.#queue.length >= FOLLOWER_HIGH_WATER) this.paused = true;
    this.#wake();
  }

  fail(error: unknown): void {
    if (this.#finished) return;
    this.#error = error;
    this.#finish();
    this.#wake();
  }

  close(): void {
    if (!this.#finished) this.#finish();
    this.#wake();
  }

  #finish(): void {
    this.#finished = true;
    this.#tail.remove(this);
  }

  #wake(): void {
    const notify = this.#notify;
    this.#notify = undefined;
    notify?.();
  }

  async *entries(): AsyncGenerator<LogEntry> {
    for (;;) {
      while (this.#queue.length > 0) {
        yield this.#queue.shift() as LogEntry;
        if (this.paused && this.#queue.length < FOLLOWER_HIGH_WATER / 4) {
          this.paused = false;
          this.#tail.wake(this);
        }
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.#finished) return;
      await new Promise<void>((resolve) => {
        this.#notify = resolve;
      });
    }
  }
}

/**
 * One blocking read loop (`XREAD BLOCK`, one at a time) on a connection of its own, over the
 * streams of its followers and its own keys: the control stream (stops for this instance's
 * producers) and a wake-up key (a reader that joins behind the read in flight, or catches up,
 * writes there to end it). On one Redis a single group reads everything; on a cluster each
 * stream followed has its group (its keys and wake-up key in the stream's slot), and the control
 * stream one of its own.
 */
class Group {
  readonly #tail: Tail;
  /** The key that routes the group's connection (to the node of its slot). */
  readonly #route: string;
  /** Where a wake-up is written: a stream in the read, on the group's slot. */
  readonly wakeKey: string | undefined;
  /** Whether the group reads the control stream (and lives while this instance has producers). */
  readonly #control: boolean;
  /** Whether an error means the node may have changed (a cluster): a new connection then. */
  readonly #reconnectOnError: boolean;
  /** A stream's group on a cluster: gone (with its connection) once nobody follows the stream. */
  readonly disposable: boolean;
  readonly followers = new Map<string, Set<Follower>>();
  /** The position per key of the read in flight, to know whether a new follower needs a new read. */
  readonly #reading = new Map<string, number>();
  /** The last id read of each of the group's own streams (control, wake-up). */
  readonly #ownIds = new Map<string, string>();
  #connection: Promise<RedisConnection> | undefined;
  #running: Promise<void> | undefined;
  #inFlight = false;
  #woken = false;
  #closed = false;

  constructor(tail: Tail, route: string, wakeKey: string | undefined, control: boolean, cluster: boolean) {
    this.#tail = tail;
    this.#route = route;
    this.wakeKey = wakeKey;
    this.#control = control;
    this.#reconnectOnError = cluster;
    this.disposable = cluster && !control;
    if (control) this.#ownIds.set(tail.controlKey, '0-0');
    if (wakeKey !== undefined && wakeKey !== tail.controlKey) this.#ownIds.set(wakeKey, '0-0');
  }

  get active(): boolean {
    return !this.#closed && (this.followers.size > 0 || (this.#control && this.#tail.producing));
  }

  add(follower: Follower): void {
    let set = this.followers.get(follower.keys.events);
    if (set === undefined) this.followers.set(follower.keys.events, (set = new Set()));
    set.add(follower);
    this.start();
    const reading = this.#reading.get(follower.keys.events);
    if (reading === undefined || reading > follower.fetched) this.wake();
  }

  /** Whether the group has no followers left. */
  remove(follower: Follower): boolean {
    const set = this.followers.get(follower.keys.events);
    if (set !== undefined) {
      set.delete(follower);
      if (set.size === 0) this.followers.delete(follower.keys.events);
    }
    return this.followers.size === 0;
  }

  /** End the blocking read in flight (a follower joined or caught up). */
  wake(): void {
    if (!this.#inFlight) {
      this.#woken = true;
      return;
    }
    if (this.#woken || this.wakeKey === undefined) return;
    this.#woken = true;
    this.#tail.log.eval('control', [this.wakeKey], [String(this.#tail.controlTtlMs), 'w', '1'], 'wake a reader').catch(() => {});
  }

  start(): void {
    if (this.#running !== undefined || !this.active) return;
    this.#running = this.#run()
      .catch((error: unknown) => {
        // Not expected: fail the readers rather than leave them waiting.
        const failure = error instanceof EventLogError ? error : new EventLogError('unavailable', 'the blocking reads failed', { cause: error });
        this.failAll(failure);
      })
      .finally(() => {
        this.#running = undefined;
        if (this.active) this.start(); // something joined while the loop was ending
        else this.#tail.ended(this);
      });
  }

  failAll(failure: unknown): void {
    for (const set of [...this.followers.values()]) for (const follower of [...set]) follower.fail(failure);
  }

  #dropConnection(): void {
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.then((c) => c.close(), () => {});
  }

  async #run(): Promise<void> {
    let failingSince: number | undefined;
    let backoff = 50;
    const blockMs = this.#tail.blockMs;
    const timeoutMs = this.#tail.timeoutMs;
    while (this.active) {
      const keys: string[] = [];
      const ids: string[] = [];
      for (const [key, id] of this.#ownIds) {
        keys.push(key);
        ids.push(id);
      }
      this.#reading.clear();
      const round = this.#reading;
      for (const [key, set] of this.followers) {
        let from = Infinity;
        for (const follower of set) if (!follower.paused && !follower.finished) from = Math.min(from, follower.fetched);
        if (from === Infinity) continue;
        keys.push(key);
        ids.push(`0-${from}`);
        this.#reading.set(key, from);
      }
      if (keys.length === 0) {
        // Nothing to read (every follower paused, no control stream): wait to be woken.
        this.#woken = false;
        await sleep(25);
        continue;
      }
      this.#woken = false;
      this.#inFlight = true;
      let reply: unknown;
      try {
        let connection: RedisConnection;
        try {
          this.#connection ??= this.#tail.log.redis.connection(this.#route);
          connection = await deadline(this.#connection, timeoutMs);
        } catch (error) {
          this.#dropConnection();
          throw error;
        }
        reply = await deadline(connection.send(['XREAD', 'COUNT', String(PAGE), 'BLOCK', String(blockMs), 'STREAMS', ...keys, ...ids]), blockMs + timeoutMs);
        failingSince = undefined;
        backoff = 50;
      } catch (error) {
        this.#inFlight = false;
        if (this.#closed || !this.active) return;
        // A server that stopped answering: a new connection, rather than a read queued behind the
        // stuck one; on a cluster, after any error (the slot's master may have changed).
        if (error instanceof NoAnswer || this.#reconnectOnError) this.#dropConnection();
        const now = Date.now();
        failingSince ??= now;
        if (now - failingSince > this.#tail.retryMs) {
          this.failAll(new EventLogError('unavailable', `Redis could not be read for ${now - failingSince} ms`, { cause: error }));
          failingSince = undefined;
        }
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 1000);
        continue;
      }
      this.#inFlight = false;
      for (const [key, raw] of streamsOf(reply)) {
        const own = this.#ownIds.get(key);
        if (own !== undefined) {
          const last = raw.at(-1) as [unknown, unknown] | undefined;
          if (last !== undefined) this.#ownIds.set(key, String(last[0]));
          if (key === this.#tail.controlKey) this.#tail.control(raw);
          continue;
        }
        let entries: Array<{ id: number; entry: LogEntry }>;
        try {
          entries = raw.map(toEntry);
        } catch (error) {
          for (const follower of [...(this.followers.get(key) ?? [])]) follower.fail(error);
          continue;
        }
        // Only to the followers this read covered: one that joined behind its position gets the next read.
        const from = round.get(key) ?? Infinity;
        for (const follower of [...(this.followers.get(key) ?? [])]) if (follower.fetched >= from) follower.take(entries);
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#dropConnection();
    await this.#running?.catch(() => {});
  }

  /** A stream's group that nobody follows any more lets go of its connection at once (its read in flight is abandoned). */
  release(): void {
    if (this.disposable && !this.active) this.#dropConnection();
  }
}

/**
 * The blocking reads of one `RedisEventLog`: its groups ({@link Group}), the followers and the
 * producers of this instance. While followers wait, their producers' leases are checked every
 * quarter lease.
 */
class Tail {
  readonly controlKey: string;
  readonly log: RedisEventLog;
  readonly blockMs: number;
  readonly retryMs: number;
  readonly timeoutMs: number;
  readonly #prefix: string;
  readonly #instance: string;
  readonly #leaseMs: number;
  /** One Redis: the one group; a cluster: the control stream's group, and one per stream followed. */
  readonly #groups = new Map<string, Group>();
  readonly #producers = new Map<string, RedisProducer>();
  #checks: ReturnType<typeof setInterval> | undefined;
  #checking = false;
  #closed = false;

  constructor(log: RedisEventLog, prefix: string, instance: string, blockMs: number, leaseMs: number, retryMs: number, timeoutMs: number) {
    this.log = log;
    this.#prefix = prefix;
    this.#instance = instance;
    this.controlKey = `${prefix}:c:${instance}`;
    this.blockMs = blockMs;
    this.#leaseMs = leaseMs;
    this.retryMs = retryMs;
    this.timeoutMs = timeoutMs;
  }

  /** How long a control stream (or a wake-up key) lives after its last message: well beyond a blocking read. */
  get controlTtlMs(): number {
    return Math.max(60_000, this.blockMs * 4);
  }

  /** Whether this instance has producers (whose stops arrive on the control stream). */
  get producing(): boolean {
    return !this.#closed && this.#producers.size > 0;
  }

  get #cluster(): boolean {
    return this.log.redis.cluster;
  }

  /** The group that reads the control stream (on one Redis: the one group). */
  #controlGroup(): Group {
    const name = this.#cluster ? 'control' : 'all';
    let group = this.#groups.get(name);
    if (group === undefined) this.#groups.set(name, (group = new Group(this, this.controlKey, this.controlKey, true, this.#cluster)));
    return group;
  }

  #groupOf(follower: Follower): Group {
    if (!this.#cluster) return this.#controlGroup();
    const name = follower.keys.events;
    let group = this.#groups.get(name);
    if (group === undefined) {
      // The wake-up key shares the stream's hash tag: one slot, one read.
      const wakeKey = `${this.#prefix}:{${follower.streamId}}:w:${this.#instance}`;
      this.#groups.set(name, (group = new Group(this, follower.keys.events, wakeKey, false, true)));
    }
    return group;
  }

  add(follower: Follower): void {
    if (this.#closed) {
      follower.fail(new EventLogError('unavailable', 'the event log is closed'));
      return;
    }
    this.#groupOf(follower).add(follower);
    this.#checks ??= setInterval(() => void this.#checkLeases(), Math.max(25, Math.floor(this.#leaseMs / 4)));
  }

  remove(follower: Follower): void {
    const group = this.#cluster ? this.#groups.get(follower.keys.events) : this.#groups.get('all');
    if (group !== undefined && group.remove(follower)) group.release();
    if (this.#followerCount() === 0 && this.#checks !== undefined) {
      clearInterval(this.#checks);
      this.#checks = undefined;
    }
  }

  #followerCount(): number {
    let n = 0;
    for (const group of this.#groups.values()) n += group.followers.size;
    return n;
  }

  /** A group's loop ended with nothing left to read: a stream's group (on a cluster) goes with its connection; the others keep theirs for the next reads. */
  ended(group: Group): void {
    if (!group.disposable || group.active) return;
    group.release();
    for (const [name, g] of this.#groups) if (g === group) this.#groups.delete(name);
  }

  addProducer(producer: RedisProducer): void {
    this.#producers.set(producer.streamId, producer);
    if (!this.#closed) this.#controlGroup().start();
  }

  removeProducer(producer: RedisProducer): void {
    if (this.#producers.get(producer.streamId) === producer) this.#producers.delete(producer.streamId);
  }

  /** End the blocking read in flight that `follower` needs (it joined behind it, or caught up). */
  wake(follower: Follower): void {
    (this.#cluster ? this.#groups.get(follower.keys.events) : this.#groups.get('all'))?.wake();
  }

  /** Messages on the control stream: wake-ups (nothing to do) and stops. */
  control(raw: unknown[]): void {
    for (const item of raw) {
      const [, fields] = item as [unknown, unknown];
      const list = Array.isArray(fields) ? fields : Object.entries(fields as Record<string, unknown>).flat();
      for (let i = 0; i + 1 < list.length; i += 2) {
        if (String(list[i]) === 's') this.#producers.get(String(list[i + 1]))?.stopRequested();
      }
    }
  }

  /** For streams whose followers have waited a while: is the producer still there? */
  async #checkLeases(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      const quiet = Date.now() - Math.max(25, Math.floor(this.#leaseMs / 4));
      // One script per quiet stream, all sent at once (the clients pipeline them).
      const checks: Array<Promise<void>> = [];
      for (const group of this.#groups.values()) {
        for (const set of group.followers.values()) checks.push(this.#check([...set].filter((f) => !f.finished && !f.paused && f.lastEntryAt <= quiet)));
      }
      await Promise.all(checks);
    } finally {
      this.#checking = false;
    }
  }

  async #check(waiting: readonly Follower[]): Promise<void> {
    const first = waiting[0];
    if (first === undefined) return;
    // What each follower had read when the check was sent: the blocking reads go on meanwhile on
    // the other connection, and may bring entries written after the script ran.
    const seen = waiting.map((follower) => follower.fetched);
    let reply: unknown;
    try {
      reply = await this.log.eval('status', [first.keys.meta, first.keys.lease], [], `check the producer of ${first.streamId}`);
    } catch {
      return; // Redis unreachable: the blocking read's retry bound reports it.
    }
    if (reply === null || reply === undefined || reply === false) {
      for (const follower of waiting) follower.fail(new EventLogError('lost', `the stream ${follower.streamId} is gone from Redis after event ${follower.fetched} (Redis lost it, or it expired)`));
      return;
    }
    const [lastRaw, state, leasedRaw] = reply as [unknown, unknown, unknown];
    const last = Number(lastRaw);
    const leased = Number(leasedRaw) === 1;
    for (const [i, follower] of waiting.entries()) {
      const fetched = seen[i] as number;
      if (fetched > last + (state === 'open' ? 0 : 1)) {
        // Redis holds fewer events than were read (a failover before they were replicated). A
        // producer that holds its lease writes them again (its batch is retried until it is
        // acknowledged): wait for it. Without one, they are gone.
        if (state === 'open' && leased) continue;
        follower.fail(new EventLogError('lost', `the stream ${follower.streamId} holds ${last} events in Redis but ${fetched} were read: Redis lost events`));
      } else if (state === 'open' && !leased && fetched >= last) {
        follower.fail(new EventLogError('producer-lost', `the producer of stream ${follower.streamId} stopped before the stream's end (its lease ran out)`));
      } else if (follower.fetched < last + (state === 'open' ? 0 : 1)) {
        this.wake(follower); // entries it has not read yet: a read is due
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#checks !== undefined) clearInterval(this.#checks);
    this.#checks = undefined;
    const closed = new EventLogError('unavailable', 'the event log was closed');
    for (const group of this.#groups.values()) group.failAll(closed);
    for (const producer of [...this.#producers.values()]) producer.release();
    await Promise.all([...this.#groups.values()].map((group) => group.close()));
    this.#groups.clear();
  }
}

// ---------------------------------------------------------------------------------------------

interface Pending {
  readonly id: number;
  readonly type: string;
  readonly data: string;
  readonly resolve: (id: number) => void;
  readonly reject: (error: unknown) => void;
}

/** The producer of one stream on Redis: appends batched, retried across outages, lease renewed. */
class RedisProducer implements EventLogProducer {
  readonly streamId: string;
  readonly #log: RedisEventLog;
  readonly #tail: Tail;
  readonly #keys: Keys;
  readonly #token: string;
  readonly #leaseMs: number;
  readonly #retryMs: number;
  readonly #stop = new AbortController();
  readonly #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #nextId = 0;
  #lastId = 0;
  /** Why this producer may write no more. */
  #failure: unknown;
  #finished = false;
  #renewal: ReturnType<typeof setInterval> | undefined;
  #lastWrite = Date.now();
  #tooLarge: string | undefined;
  #lostRecord: string | undefined;

  constructor(log: RedisEventLog, tail: Tail, streamId: string, keys: Keys, token: string, leaseMs: number, retryMs: number) {
    this.#log = log;
    this.#tail = tail;
    this.streamId = streamId;
    this.#keys = keys;
    this.#token = token;
    this.#leaseMs = leaseMs;
    this.#retryMs = retryMs;
    tail.addProducer(this);
    // Every quarter lease, unless a write went out in the last eighth: the lease is extended at
    // least every 3/8 of it, so a process that stalls keeps its lease for 5/8 of it at least.
    this.#renewal = setInterval(() => void this.#renew(), Math.max(10, Math.floor(leaseMs / 4)));
  }

  get lastId(): number {
    return this.#lastId;
  }

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** A stop arrived on this instance's control stream. */
  stopRequested(): void {
    if (!this.#stop.signal.aborted && !this.#finished) this.#stop.abort(new EventLogError('stopped', `the stream ${this.streamId} was stopped`));
  }

  /** Stop renewing and writing, without ending the stream (the log is closing). */
  release(): void {
    this.#finish();
  }

  #finish(): void {
    this.#finished = true;
    if (this.#renewal !== undefined) clearInterval(this.#renewal);
    this.#renewal = undefined;
    this.#tail.removeProducer(this);
  }

  /** This producer may write no more: reject what waits, abort the signal. */
  #lose(error: unknown): void {
    this.#failure ??= error;
    for (const pending of this.#queue.splice(0)) pending.reject(this.#failure);
    if (!this.#stop.signal.aborted) this.#stop.abort(this.#failure);
    this.#finish();
  }

  async append(event: unknown): Promise<number> {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#finished) throw new EventLogError('unavailable', `the stream ${this.streamId} has ended already`);
    const { type, data } = encodeEvent(event);
    const id = ++this.#nextId;
    const result = new Promise<number>((resolve, reject) => this.#queue.push({ id, type: type ?? '', data, resolve, reject }));
    this.#flushing ??= this.#flush();
    return result;
  }

  async #flush(): Promise<void> {
    try {
      // Appends made while a batch is written go together in the next one.
      await Promise.resolve();
      while (this.#queue.length > 0 && this.#failure === undefined) {
        const batch: Pending[] = [];
        let bytes = 0;
        while (batch.length < BATCH && bytes < BATCH_BYTES && this.#queue.length > 0) {
          const next = this.#queue.shift() as Pending;
          batch.push(next);
          bytes += next.data.length;
        }
        const first = (batch[0] as Pending).id;
        // What the script writes when the batch goes beyond the size limit (made once: an error is not free).
        this.#tooLarge ??= writeError(new EventLogError('too-large', `the stream ${this.streamId} would hold more than its size limit of event data`));
        const args = [this.#token, String(this.#leaseMs), String(first), String(batch.length), this.#tooLarge, this.#lost()];
        for (const pending of batch) args.push(pending.type, pending.data);
        let reply: unknown[];
        // The lease runs from when the script runs: at the earliest when it is sent, not when its answer is read.
        let sent = Date.now();
        const what = `append to the stream ${this.streamId}`;
        try {
          // With `replicas`, a batch counts as written once replicas hold it: until then it is
          // written again after a failure (the new master of a failover may not have it; `dup`
          // when it has).
          reply = (await this.#retrying(async () => {
            sent = Date.now();
            const answer = (await this.#log.eval('append', [this.#keys.events, this.#keys.meta, this.#keys.lease, this.#keys.stop], args, what)) as unknown[];
            const status = String(answer[0]);
            if (status === 'ok' || status === 'dup' || status === 'too-large') await this.#log.replicated(this.#keys.events, `keep events ${first} to ${first + batch.length - 1} of the stream ${this.streamId}`);
            return answer;
          })) as unknown[];
        } catch (error) {
          for (const pending of batch) pending.reject(error);
          this.#lose(error);
          return;
        }
        this.#lastWrite = Math.max(this.#lastWrite, sent);
        const status = String(reply[0]);
        if (status === 'ok' || status === 'dup') {
          this.#lastId = (batch[batch.length - 1] as Pending).id;
          for (const pending of batch) pending.resolve(pending.id);
          if (status === 'ok' && Number(reply[1]) === 1) this.stopRequested();
          continue;
        }
        if (status === 'too-large') {
          const appended = Number(reply[1]);
          const error = new EventLogError('too-large', `the stream ${this.streamId} would hold more than its size limit of event data`);
          for (const [i, pending] of batch.entries()) {
            if (i < appended) pending.resolve(pending.id);
            else pending.reject(error);
          }
          if (appended > 0) this.#lastId = (batch[appended - 1] as Pending).id;
          this.#lose(error);
          return;
        }
        const error =
          status === 'lost'
            ? new EventLogError('producer-lost', `the lease of the producer of stream ${this.streamId} ran out (or Redis lost the stream)`)
            : status === 'gap'
              ? this.#lostError(Number(reply[1]), first - 1)
              : new EventLogError('unavailable', `the stream ${this.streamId} cannot be appended to: ${APPEND_REFUSED[status] ?? 'Redis gave an answer the event log does not write'}`);
        for (const pending of batch) pending.reject(error);
        this.#lose(error);
        return;
      }
    } finally {
      // In the tick the queue was last found empty (not ticks later, as a .finally() would): an
      // append made after it starts a new flush instead of waiting in the queue forever.
      this.#flushing = undefined;
    }
  }

  /** What Redis lost: written, acknowledged, then gone (a failover before replication). The stream was failed with it. */
  #lostError(held: number, written: number): EventLogError {
    return new EventLogError('lost', `Redis holds ${held} events of stream ${this.streamId} but ${written} were written: Redis lost events (a failover before they were replicated)`);
  }

  /** The record a stream that lost events is failed with (made once). */
  #lost(): string {
    this.#lostRecord ??= writeError(new EventLogError('lost', `the stream ${this.streamId} lost events in Redis`));
    return this.#lostRecord;
  }

  /** Run a write, retrying while Redis cannot be reached (or replicas do not acknowledge), for at most `retryMs`. */
  async #retrying<T>(write: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#retryMs;
    let backoff = 25;
    for (;;) {
      try {
        return await write();
      } catch (error) {
        if (!(error instanceof EventLogError && error.code === 'unavailable') || Date.now() + backoff > deadline || this.#log.closed) throw error;
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 500);
      }
    }
  }

  async #renew(): Promise<void> {
    if (this.#finished || Date.now() - this.#lastWrite < this.#leaseMs / 8) return;
    let reply: unknown;
    const sent = Date.now();
    try {
      reply = await this.#log.eval('renew', [this.#keys.meta, this.#keys.lease, this.#keys.stop, this.#keys.events], [this.#token, String(this.#leaseMs)], `renew the lease of ${this.streamId}`);
    } catch (error) {
      if (Date.now() - this.#lastWrite > this.#retryMs) this.#lose(error);
      return;
    }
    if (this.#finished) return;
    this.#lastWrite = Math.max(this.#lastWrite, sent);
    if (reply === 'lost') this.#lose(new EventLogError('producer-lost', `the lease of the producer of stream ${this.streamId} ran out (or Redis lost the stream)`));
    else if (reply === 'stop') this.stopRequested();
  }

  async #finishWith(kind: 'end' | 'error', data: string): Promise<void> {
    // Every append first (a failed one fails this too).
    while (this.#flushing !== undefined) await this.#flushing;
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#finished) return;
    const what = `${kind === 'end' ? 'end' : 'fail'} the stream ${this.streamId}`;
    const reply = await this.#retrying(async () => {
      const answer = await this.#log.eval('finish', [this.#keys.events, this.#keys.meta, this.#keys.lease], [this.#token, kind, data, String(this.#lastId), this.#lost()], what);
      if (answer !== 'lost') await this.#log.replicated(this.#keys.events, what);
      return answer;
    }).catch((error: unknown) => {
      this.#lose(error);
      throw error;
    });
    if (reply === 'lost' || reply === 'gap') {
      const error = reply === 'gap' ? new EventLogError('lost', `Redis holds fewer events of stream ${this.streamId} than the ${this.#lastId} written: Redis lost events (a failover before they were replicated)`) : new EventLogError('producer-lost', `the lease of the producer of stream ${this.streamId} ran out (or Redis lost the stream)`);
      this.#lose(error);
      throw error;
    }
    // 'done-…': a first try went through before the connection broke.
    this.#finish();
  }

  async end(): Promise<void> {
    await this.#finishWith('end', '');
  }

  async fail(error: unknown, options?: PageErrorOptions): Promise<void> {
    if (this.#failure !== undefined && (this.#failure as EventLogError).code === 'too-large') return; // failed with it already
    await this.#finishWith('error', writeError(error, options));
  }
}
