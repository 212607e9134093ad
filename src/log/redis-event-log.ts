/**
 * The event log on Redis: streams kept in Redis Streams, so that a client resumes on any
 * instance. The entry point `argstream/redis`.
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
import { APPEND, CONTROL, FINISH, OPEN, READ, RENEW, STATUS, STOP } from './redis-scripts.ts';
import type { PageErrorOptions } from '../relay/error-record.ts';
import { writeError } from '../relay/wire.ts';

/**
 * What `RedisEventLog` needs of a Redis client: a node-redis client (`createClient({ url })`
 * from the `redis` package, version 5 or later) has it. Commands go through `sendCommand`, with
 * node-redis's per-command `timeout`. Use a client without `keyPrefix` (the log has its own
 * `prefix`), speaking RESP2 or RESP3.
 */
export interface RedisClientLike {
  /** Whether `connect()` was called (and `close()`/`destroy()` not since). */
  readonly isOpen: boolean;
  /** Whether the connection is up and commands are sent at once. */
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand<T = unknown>(args: ReadonlyArray<string>, options?: { timeout?: number }): Promise<T>;
  /** A new client with the same options, not connected. */
  duplicate(): RedisClientLike;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(): void;
}

/** Options of {@link RedisEventLog}. */
export interface RedisEventLogOptions {
  /**
   * What every key of this log starts with, so that applications sharing a Redis do not meet:
   * `<prefix>:{<streamId>}:e` (the events), `:m` (the state), `:l` (the lease), `:s` (a stop
   * request), and `<prefix>:c:<instance>` (an instance's control stream).
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
   * @default 16_777_216 (16 MiB)
   */
  readonly maxBytes?: number;
  /**
   * The producer's lease, in milliseconds: it renews it every third of this while it runs (and
   * at each append). A producer that dies stops renewing: readers report `producer-lost` at most
   * a quarter of this after the lease runs out — so within 1.25 × `leaseMs` of its death.
   * @default 10_000
   */
  readonly leaseMs?: number;
  /**
   * How long one Redis command may take (connecting included) before it counts as failed:
   * milliseconds. Redis down at the start of a request is `unavailable` after this.
   * @default 2_000
   */
  readonly commandTimeoutMs?: number;
  /**
   * How long a producer goes on retrying a write, and a reader re-reading, while Redis cannot be
   * reached (a restart), in milliseconds; after it, the producer's stream and its readers fail
   * with `unavailable`. Retries never duplicate an event (ids are explicit and checked).
   * @default the lease time
   */
  readonly retryMs?: number;
  /**
   * How long one blocking read (`XREAD BLOCK`) waits at most before it is issued again, in
   * milliseconds. New events end it at once; this only bounds a read that nothing ends.
   * @default 5_000
   */
  readonly blockMs?: number;
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

/**
 * `promise`, or a rejection after `ms`. node-redis's own `timeout` ends only a command still
 * waiting to be sent: one sent to a server that stopped answering (a partition, a paused
 * process) would wait forever. The command itself goes on; the log's writes are idempotent, so a
 * late reply is harmless.
 */
function deadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NoAnswer(ms)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
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

/**
 * `unavailable`, in the log's own words: what it asked of Redis, and for how long when the log's
 * deadline ran out. Never the failure's text — a client's connection error names Redis's address
 * (`connect ECONNREFUSED 10.0.0.5:6379`), a reply error may quote the command, its keys or a
 * cluster node's address — since the message reaches pages (the 503 body, an `event: error`
 * record); the failure stays on the error's `cause`, on the server, for logs.
 */
function unavailable(what: string, cause: unknown): EventLogError {
  const within = cause instanceof NoAnswer ? ` within ${cause.ms} ms` : '';
  return new EventLogError('unavailable', `Redis did not ${what}${within}`, { cause });
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

/** `XREAD`'s reply, RESP2 (`[[key, entries], …]`) or RESP3 (a map): [key, entries] pairs. */
function streamsOf(reply: unknown): Array<[string, unknown[]]> {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) return reply.map((item) => [String((item as unknown[])[0]), (item as unknown[])[1] as unknown[]]);
  if (reply instanceof Map) return [...reply].map(([key, value]) => [String(key), value as unknown[]]);
  return Object.entries(reply as Record<string, unknown[]>);
}

/**
 * An {@link EventLog} on Redis (≥ 6.2; Redis 7 in the tests), for a relay that runs on several
 * instances: a client that reconnects lands anywhere and resumes from the log.
 *
 * - **Layout.** Each stream is a Redis Stream `<prefix>:{<id>}:e` whose entry `0-<n>` is event
 *   n, written with an explicit id (`XADD … 0-<n>`), so the relay's SSE ids are the log's ids and
 *   a retried write can never add an event twice. Next to it: a hash of its state (`:m`), the
 *   producer's lease (`:l`, `SET NX PX`-style, renewed while it runs) and a stop request
 *   (`:s`). Writes are Lua scripts: atomic, one round trip each; appends made while one is in
 *   flight go in the next script together. Keys expire (`PEXPIRE`) `ttlMs` after the stream ends
 *   or its producer stops renewing.
 * - **Live tail.** Readers that follow streams share one blocking `XREAD BLOCK` over all the
 *   streams they follow, on a connection of its own — a duplicate of the client given. A
 *   blocking command holds its connection until it returns, and node-redis sends every command
 *   of a client over one connection in order: on the client given, each `XREAD BLOCK` would hold
 *   up every other command of the application (and of the log) behind it. The same read also
 *   follows this instance's control stream, where a new reader wakes it and where a stop from
 *   another instance reaches a producer at once.
 * - **Faults.** Every command has a timeout (`commandTimeoutMs`): Redis down is `unavailable`,
 *   never a hang. A producer retries across a Redis restart for `retryMs`, without duplicates;
 *   readers check that ids are consecutive and report a gap as `unavailable`; a producer that dies
 *   is reported as `producer-lost` when its lease runs out.
 * - **One primary, not Cluster.** A stream's keys share a hash tag, but the one blocking read of
 *   an instance spans several streams and its control stream: keys in different hash slots, which
 *   Redis Cluster refuses. Runtimes: Node ≥ 20, Bun, Deno (see `argstream/redis`).
 *
 * The log does not own the client: `close()` closes the connection it made (the blocking one)
 * and leaves the client given open.
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { RedisEventLog } from 'argstream/redis';
 *
 * const client = createClient({ url: process.env.REDIS_URL });
 * client.on('error', (error) => console.error('redis', error.message));
 * await client.connect();
 * const log = new RedisEventLog(client, { prefix: 'chat' });
 * ```
 */
export class RedisEventLog implements EventLog {
  readonly #client: RedisClientLike;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #leaseMs: number;
  readonly #timeoutMs: number;
  readonly #retryMs: number;
  readonly #tail: Tail;
  #closed = false;

  /** @throws {RangeError} for a bad prefix or a limit that is not a positive integer. */
  constructor(client: RedisClientLike, options: RedisEventLogOptions = {}) {
    this.#client = client;
    this.#prefix = checkPrefix(options.prefix ?? 'argstream');
    this.#ttlMs = positive(options.ttlMs ?? 600_000, 'RedisEventLog: ttlMs');
    this.#maxBytes = positive(options.maxBytes ?? 16 * 1024 * 1024, 'RedisEventLog: maxBytes');
    this.#leaseMs = positive(options.leaseMs ?? 10_000, 'RedisEventLog: leaseMs');
    this.#timeoutMs = positive(options.commandTimeoutMs ?? 2_000, 'RedisEventLog: commandTimeoutMs');
    this.#retryMs = positive(options.retryMs ?? this.#leaseMs, 'RedisEventLog: retryMs');
    const blockMs = positive(options.blockMs ?? 5_000, 'RedisEventLog: blockMs');
    this.#tail = new Tail(this, `${this.#prefix}:c:${newStreamId()}`, blockMs, this.#leaseMs, this.#retryMs, this.#timeoutMs);
  }

  /** @internal The keys of a stream (its id checked already). */
  keys(streamId: string): Keys {
    const base = `${this.#prefix}:{${streamId}}`;
    return { events: `${base}:e`, meta: `${base}:m`, lease: `${base}:l`, stop: `${base}:s` };
  }

  /** @internal The client given. */
  get client(): RedisClientLike {
    return this.#client;
  }

  /** @internal A command on the client given, with the timeout; a failure is `unavailable`. */
  async command<T = unknown>(args: readonly string[], what: string): Promise<T> {
    this.#open();
    try {
      return await deadline(this.#client.sendCommand<T>(args, { timeout: this.#timeoutMs }), this.#timeoutMs);
    } catch (error) {
      throw this.#unavailable(error, what);
    }
  }

  /** @internal Run a script (EVALSHA, then EVAL when Redis does not have it); a failure is `unavailable`. */
  async eval(name: keyof typeof SCRIPTS, keys: readonly string[], args: readonly string[], what: string): Promise<unknown> {
    this.#open();
    const s = SCRIPTS[name];
    s.sha ??= sha1(s.source);
    const argv = [String(keys.length), ...keys, ...args];
    try {
      try {
        return await deadline(this.#client.sendCommand(['EVALSHA', await s.sha, ...argv], { timeout: this.#timeoutMs }), this.#timeoutMs);
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
        return await deadline(this.#client.sendCommand(['EVAL', s.source, ...argv], { timeout: this.#timeoutMs }), this.#timeoutMs);
      }
    } catch (error) {
      throw this.#unavailable(error, what);
    }
  }

  #unavailable(error: unknown, what: string): EventLogError {
    return error instanceof EventLogError ? error : unavailable(what, error);
  }

  /** Connect the client given if nobody has (commands then wait in its queue, within their timeout). */
  #open(): void {
    if (this.#closed) throw new EventLogError('unavailable', 'the event log is closed');
    if (!this.#client.isOpen) this.#client.connect().catch(() => {});
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
    const producer = new RedisProducer(this, this.#tail, streamId, keys, token, this.#leaseMs, this.#retryMs);
    return producer;
  }

  async read(streamId: string, after: number, options: ReadOptions = {}): Promise<AsyncIterableIterator<LogEntry>> {
    checkStreamId(streamId);
    if (!Number.isSafeInteger(after) || after < 0) throw new EventLogError('invalid-id', `an event id is a non-negative integer, got ${String(after)}`);
    const keys = this.keys(streamId);
    const first = await this.#page(streamId, keys, after);
    if (first === undefined) throw new EventLogError('not-found', `no stream ${streamId}: it never existed or it expired`);
    if (after > first.last) throw new EventLogError('invalid-id', `the stream ${streamId} has ${first.last} events so far: there is no event ${after}`);
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
          this.#tail.wake();
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
 * The blocking reads of one `RedisEventLog`: one `XREAD BLOCK` at a time, on a connection of its
 * own, over this instance's control stream and every stream a follower waits on. A new follower
 * (or one that caught up) ends the read in flight by writing to the control stream; a stop for a
 * producer of this instance arrives there too. While followers wait, their producers' leases are
 * checked every quarter lease.
 */
class Tail {
  readonly controlKey: string;
  readonly #log: RedisEventLog;
  readonly #blockMs: number;
  readonly #leaseMs: number;
  readonly #retryMs: number;
  readonly #timeoutMs: number;
  readonly #followers = new Map<string, Set<Follower>>();
  readonly #producers = new Map<string, RedisProducer>();
  /** The position per key of the read in flight, to know whether a new follower needs a new read. */
  readonly #reading = new Map<string, number>();
  #controlId = '0-0';
  #connection: RedisClientLike | undefined;
  #running: Promise<void> | undefined;
  #inFlight = false;
  #woken = false;
  #checks: ReturnType<typeof setInterval> | undefined;
  #checking = false;
  #closed = false;

  constructor(log: RedisEventLog, controlKey: string, blockMs: number, leaseMs: number, retryMs: number, timeoutMs: number) {
    this.#log = log;
    this.controlKey = controlKey;
    this.#blockMs = blockMs;
    this.#leaseMs = leaseMs;
    this.#retryMs = retryMs;
    this.#timeoutMs = timeoutMs;
  }

  /** How long a control stream lives after its last message: well beyond a blocking read. */
  get controlTtlMs(): number {
    return Math.max(60_000, this.#blockMs * 4);
  }

  add(follower: Follower): void {
    let set = this.#followers.get(follower.keys.events);
    if (set === undefined) this.#followers.set(follower.keys.events, (set = new Set()));
    set.add(follower);
    this.#checks ??= setInterval(() => void this.#checkLeases(), Math.max(25, Math.floor(this.#leaseMs / 4)));
    this.#start();
    const reading = this.#reading.get(follower.keys.events);
    if (reading === undefined || reading > follower.fetched) this.wake();
  }

  remove(follower: Follower): void {
    const set = this.#followers.get(follower.keys.events);
    if (set === undefined) return;
    set.delete(follower);
    if (set.size === 0) this.#followers.delete(follower.keys.events);
    if (this.#followers.size === 0 && this.#checks !== undefined) {
      clearInterval(this.#checks);
      this.#checks = undefined;
    }
  }

  addProducer(producer: RedisProducer): void {
    this.#producers.set(producer.streamId, producer);
    this.#start();
  }

  removeProducer(producer: RedisProducer): void {
    if (this.#producers.get(producer.streamId) === producer) this.#producers.delete(producer.streamId);
  }

  /** End the blocking read in flight (a follower joined or caught up). */
  wake(): void {
    if (!this.#inFlight) {
      this.#woken = true;
      return;
    }
    if (this.#woken) return;
    this.#woken = true;
    this.#log.eval('control', [this.controlKey], [String(this.controlTtlMs), 'w', '1'], 'wake a reader').catch(() => {});
  }

  #start(): void {
    if (this.#running !== undefined || this.#closed) return;
    this.#running = this.#run()
      .catch((error: unknown) => {
        // Not expected: fail the readers rather than leave them waiting.
        const failure = error instanceof EventLogError ? error : new EventLogError('unavailable', 'the blocking reads failed', { cause: error });
        for (const set of [...this.#followers.values()]) for (const follower of [...set]) follower.fail(failure);
      })
      .finally(() => {
        this.#running = undefined;
        // Something joined while the loop was ending.
        if (!this.#closed && (this.#followers.size > 0 || this.#producers.size > 0)) this.#start();
      });
  }

  async #connect(): Promise<RedisClientLike> {
    if (this.#connection === undefined) {
      const connection = this.#log.client.duplicate();
      // Without a listener an 'error' event would throw; the failures show in the reads.
      connection.on('error', () => {});
      connection.connect().catch(() => {});
      this.#connection = connection;
    }
    return this.#connection;
  }

  async #run(): Promise<void> {
    let failingSince: number | undefined;
    let backoff = 50;
    while (!this.#closed && (this.#followers.size > 0 || this.#producers.size > 0)) {
      const keys = [this.controlKey];
      const ids = [this.#controlId];
      this.#reading.clear();
      const round = this.#reading;
      for (const [key, set] of this.#followers) {
        let from = Infinity;
        for (const follower of set) if (!follower.paused && !follower.finished) from = Math.min(from, follower.fetched);
        if (from === Infinity) continue;
        keys.push(key);
        ids.push(`0-${from}`);
        this.#reading.set(key, from);
      }
      this.#woken = false;
      this.#inFlight = true;
      let reply: unknown;
      try {
        const connection = await this.#connect();
        reply = await deadline(
          connection.sendCommand(['XREAD', 'COUNT', String(PAGE), 'BLOCK', String(this.#blockMs), 'STREAMS', ...keys, ...ids], { timeout: this.#blockMs + this.#timeoutMs }),
          this.#blockMs + this.#timeoutMs,
        );
        failingSince = undefined;
        backoff = 50;
      } catch (error) {
        this.#inFlight = false;
        if (this.#closed) return;
        if (error instanceof NoAnswer) {
          // A server that stopped answering: a new connection, rather than a read queued behind the stuck one.
          this.#connection?.destroy();
          this.#connection = undefined;
        }
        const now = Date.now();
        failingSince ??= now;
        if (now - failingSince > this.#retryMs) {
          const failure = new EventLogError('unavailable', `Redis could not be read for ${now - failingSince} ms`, { cause: error });
          for (const set of [...this.#followers.values()]) for (const follower of [...set]) follower.fail(failure);
          failingSince = undefined;
        }
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 1000);
        continue;
      }
      this.#inFlight = false;
      for (const [key, raw] of streamsOf(reply)) {
        if (key === this.controlKey) {
          this.#control(raw);
          continue;
        }
        let entries: Array<{ id: number; entry: LogEntry }>;
        try {
          entries = raw.map(toEntry);
        } catch (error) {
          for (const follower of [...(this.#followers.get(key) ?? [])]) follower.fail(error);
          continue;
        }
        // Only to the followers this read covered: one that joined behind its position gets the next read.
        const from = round.get(key) ?? Infinity;
        for (const follower of [...(this.#followers.get(key) ?? [])]) if (follower.fetched >= from) follower.take(entries);
      }
    }
  }

  /** Messages on the control stream: wake-ups (nothing to do) and stops. */
  #control(raw: unknown[]): void {
    for (const item of raw) {
      const [id, fields] = item as [unknown, unknown];
      this.#controlId = String(id);
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
      await this.#checkEach();
    } finally {
      this.#checking = false;
    }
  }

  async #checkEach(): Promise<void> {
    const quiet = Date.now() - Math.max(25, Math.floor(this.#leaseMs / 4));
    // One script per quiet stream, all sent at once (node-redis pipelines them).
    await Promise.all([...this.#followers.values()].map((set) => this.#check([...set].filter((f) => !f.finished && !f.paused && f.lastEntryAt <= quiet))));
  }

  async #check(waiting: readonly Follower[]): Promise<void> {
    const first = waiting[0];
    if (first === undefined) return;
    // What each follower had read when the check was sent: the blocking reads go on meanwhile on
    // the other connection, and may bring entries written after the script ran.
    const seen = waiting.map((follower) => follower.fetched);
    let reply: unknown;
    try {
      reply = await this.#log.eval('status', [first.keys.meta, first.keys.lease], [], `check the producer of ${first.streamId}`);
    } catch {
      return; // Redis unreachable: the blocking read's retry bound reports it.
    }
    if (reply === null || reply === undefined || reply === false) {
      for (const follower of waiting) follower.fail(new EventLogError('lost', `the stream ${follower.streamId} is gone from Redis after event ${follower.fetched} (Redis lost it, or it expired)`));
      return;
    }
    const [lastRaw, state, leased] = reply as [unknown, unknown, unknown];
    const last = Number(lastRaw);
    for (const [i, follower] of waiting.entries()) {
      const fetched = seen[i] as number;
      if (fetched > last + (state === 'open' ? 0 : 1)) {
        follower.fail(new EventLogError('lost', `the stream ${follower.streamId} holds ${last} events in Redis but ${fetched} were read: Redis lost events`));
      } else if (state === 'open' && Number(leased) !== 1 && fetched >= last) {
        follower.fail(new EventLogError('producer-lost', `the producer of stream ${follower.streamId} stopped before the stream's end (its lease ran out)`));
      } else if (follower.fetched < last + (state === 'open' ? 0 : 1)) {
        this.wake(); // entries it has not read yet: a read is due
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#checks !== undefined) clearInterval(this.#checks);
    this.#checks = undefined;
    const closed = new EventLogError('unavailable', 'the event log was closed');
    for (const set of [...this.#followers.values()]) for (const follower of [...set]) follower.fail(closed);
    for (const producer of [...this.#producers.values()]) producer.release();
    this.#connection?.destroy();
    this.#connection = undefined;
    await this.#running?.catch(() => {});
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

  constructor(log: RedisEventLog, tail: Tail, streamId: string, keys: Keys, token: string, leaseMs: number, retryMs: number) {
    this.#log = log;
    this.#tail = tail;
    this.streamId = streamId;
    this.#keys = keys;
    this.#token = token;
    this.#leaseMs = leaseMs;
    this.#retryMs = retryMs;
    tail.addProducer(this);
    this.#renewal = setInterval(() => void this.#renew(), Math.max(10, Math.floor(leaseMs / 3)));
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
        const args = [this.#token, String(this.#leaseMs), String(first), String(batch.length), this.#tooLarge];
        for (const pending of batch) args.push(pending.type, pending.data);
        let reply: unknown[];
        // The lease runs from when the script runs: at the earliest when it is sent, not when its answer is read.
        const sent = Date.now();
        try {
          reply = (await this.#retrying(() => this.#log.eval('append', [this.#keys.events, this.#keys.meta, this.#keys.lease, this.#keys.stop], args, `append to the stream ${this.streamId}`))) as unknown[];
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
              ? new EventLogError('lost', `Redis holds fewer events of stream ${this.streamId} than the ${first - 1} written: Redis lost events`)
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

  /** Run a write, retrying while Redis cannot be reached, for at most `retryMs`. */
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
    if (this.#finished || Date.now() - this.#lastWrite < this.#leaseMs / 3 - 5) return;
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
    const reply = await this.#retrying(() =>
      this.#log.eval('finish', [this.#keys.events, this.#keys.meta, this.#keys.lease], [this.#token, kind, data], `${kind === 'end' ? 'end' : 'fail'} the stream ${this.streamId}`),
    ).catch((error: unknown) => {
      this.#lose(error);
      throw error;
    });
    if (reply === 'lost') {
      const error = new EventLogError('producer-lost', `the lease of the producer of stream ${this.streamId} ran out (or Redis lost the stream)`);
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
