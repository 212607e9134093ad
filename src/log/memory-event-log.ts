/**
 * The event log of one process: streams in memory, readers woken by each append (no polling).
 *
 * @module
 */
import {
  checkStreamId,
  encodeEvent,
  EventLogError,
  positive,
  utf8Length,
  type EventLog,
  type EventLogProducer,
  type LogEntry,
  type OpenOptions,
  type ReadOptions,
} from './event-log.ts';
import type { PageErrorOptions } from '../relay/error-record.ts';
import { writeError } from '../relay/wire.ts';

/** Options of {@link MemoryEventLog}. */
export interface MemoryEventLogOptions {
  /**
   * How long a stream is kept after it ended, failed or was abandoned, in milliseconds.
   * @default 600_000 (10 minutes)
   */
  readonly ttlMs?: number;
  /**
   * The most bytes of event data (UTF-8 JSON) one stream may hold.
   * @default 16 MiB (16 777 216)
   */
  readonly maxBytes?: number;
  /**
   * How long readers wait for a producer that let go of its stream without ending it before they
   * report `producer-lost`, in milliseconds. (In one process a producer does not die alone; this
   * is what happens to a producer dropped without `end` or `fail`, and what the contract tests
   * check with `abandonProducer` (internal: the tests).)
   * @default 10_000
   */
  readonly leaseMs?: number;
}

type State = 'open' | 'ended' | 'failed';

interface Stream {
  readonly entries: Array<LogEntry & { kind: 'event' }>;
  terminal: (LogEntry & { kind: 'end' | 'error' }) | undefined;
  state: State;
  bytes: number;
  readonly maxBytes: number;
  readonly ttlMs: number;
  /** When the stream may be forgotten: set when it ends, fails or is abandoned. */
  expiresAt: number;
  /** When an abandoned producer's lease runs out (readers report `producer-lost` after it). */
  leaseEndsAt: number;
  /** Readers waiting for the next entry. */
  readonly waiters: Set<() => void>;
  readonly stop: AbortController;
}

/** Abandons a producer: what a crashed process does. Internal: the contract tests' hook. */
export const ABANDON: unique symbol = Symbol('argstream.abandonProducer');

/**
 * Let a producer go without ending its stream, as a process that dies does: readers report
 * `producer-lost` once its lease runs out. For tests of readers (the contract tests use it on
 * every implementation that has it).
 */
export function abandonProducer(producer: EventLogProducer): void {
  const abandon = (producer as { [ABANDON]?: () => void })[ABANDON];
  if (abandon === undefined) throw new TypeError('abandonProducer: this producer cannot be abandoned in process');
  abandon.call(producer);
}

/**
 * An {@link EventLog} in this process's memory: the default of one process, tests and
 * `npm start`. Readers wait on a promise that each append resolves — no polling. Streams are
 * forgotten `ttlMs` after they end (checked when streams are opened or read).
 *
 * For several instances (a resume that lands on another process), use `RedisEventLog` from
 * `argstream/redis`; on Cloudflare, a Durable Object (`examples/durable-object/`).
 * @example
 * ```ts
 * const log = new MemoryEventLog();
 * const id = newStreamId();
 * await keepStream(log, id, events);
 * return serveStream(log, id, request);
 * ```
 */
export class MemoryEventLog implements EventLog {
  readonly #streams = new Map<string, Stream>();
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #leaseMs: number;
  #lastSweep = 0;

  /** @throws {RangeError} for a limit that is not a positive integer. */
  constructor(options: MemoryEventLogOptions = {}) {
    this.#ttlMs = positive(options.ttlMs ?? 600_000, 'MemoryEventLog: ttlMs');
    this.#maxBytes = positive(options.maxBytes ?? 16 * 1024 * 1024, 'MemoryEventLog: maxBytes');
    this.#leaseMs = positive(options.leaseMs ?? 10_000, 'MemoryEventLog: leaseMs');
  }

  /** Forget the streams past their expiry (at most once a second). */
  #sweep(now: number): void {
    if (now - this.#lastSweep < 1000) return;
    this.#lastSweep = now;
    for (const [id, stream] of this.#streams) if (stream.expiresAt <= now) this.#streams.delete(id);
  }

  /** The stream, if it exists and has not expired. */
  #get(streamId: string): Stream | undefined {
    const stream = this.#streams.get(streamId);
    if (stream !== undefined && stream.expiresAt <= Date.now()) {
      this.#streams.delete(streamId);
      return undefined;
    }
    return stream;
  }

  async open(streamId: string, options: OpenOptions = {}): Promise<EventLogProducer> {
    checkStreamId(streamId);
    const ttlMs = positive(options.ttlMs ?? this.#ttlMs, 'open: ttlMs');
    const maxBytes = positive(options.maxBytes ?? this.#maxBytes, 'open: maxBytes');
    const now = Date.now();
    this.#sweep(now);
    if (this.#get(streamId) !== undefined) throw new EventLogError('exists', `the stream ${streamId} exists: it has a producer already`);
    const stream: Stream = {
      entries: [],
      terminal: undefined,
      state: 'open',
      bytes: 0,
      maxBytes,
      ttlMs,
      expiresAt: Infinity,
      leaseEndsAt: Infinity,
      waiters: new Set(),
      stop: new AbortController(),
    };
    this.#streams.set(streamId, stream);
    return new MemoryProducer(streamId, stream, this.#leaseMs);
  }

  async read(streamId: string, after: number, options: ReadOptions = {}): Promise<AsyncIterableIterator<LogEntry>> {
    checkStreamId(streamId);
    if (!Number.isSafeInteger(after) || after < 0) throw new EventLogError('invalid-id', `an event id is a non-negative integer, got ${String(after)}`);
    const stream = this.#get(streamId);
    if (stream === undefined) throw new EventLogError('not-found', `no stream ${streamId}: it never existed or it expired`);
    if (after > stream.entries.length) {
      throw new EventLogError('invalid-id', `the stream ${streamId} has ${stream.entries.length} events so far: there is no event ${after}`);
    }
    return readStream(streamId, stream, after, options.follow ?? true, options.signal);
  }

  async stop(streamId: string): Promise<void> {
    checkStreamId(streamId);
    const stream = this.#get(streamId);
    if (stream === undefined) throw new EventLogError('not-found', `no stream ${streamId}: it never existed or it expired`);
    if (stream.state !== 'open') return;
    stream.stop.abort(new EventLogError('stopped', `the stream ${streamId} was stopped`));
  }

  async close(): Promise<void> {}
}

/** Whether the reading was stopped (a function: the signal changes across `yield`). */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function wake(stream: Stream): void {
  const waiters = [...stream.waiters];
  stream.waiters.clear();
  for (const waiter of waiters) waiter();
}

async function* readStream(streamId: string, stream: Stream, after: number, follow: boolean, signal: AbortSignal | undefined): AsyncGenerator<LogEntry> {
  let next = after; // index of the next entry to give
  for (;;) {
    if (signal?.aborted === true) return;
    while (next < stream.entries.length) {
      const entry = stream.entries[next] as LogEntry & { kind: 'event' };
      if (entry.id !== next + 1) throw new EventLogError('unavailable', `the stream ${streamId} skipped from event ${next} to ${entry.id}`);
      next++;
      yield entry;
      if (isAborted(signal)) return;
    }
    if (stream.terminal !== undefined) {
      yield stream.terminal;
      return;
    }
    if (!follow) return;
    const now = Date.now();
    if (stream.leaseEndsAt <= now) throw new EventLogError('producer-lost', `the producer of stream ${streamId} stopped before the stream's end (its lease ran out)`);
    if (stream.expiresAt <= now) throw new EventLogError('not-found', `the stream ${streamId} expired`);
    // Wait for an append, the end, the lease running out, or the reader's signal.
    await new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        stream.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      stream.waiters.add(done);
      signal?.addEventListener('abort', done);
      if (stream.leaseEndsAt !== Infinity) timer = setTimeout(done, Math.max(0, stream.leaseEndsAt - now) + 1);
    });
  }
}

class MemoryProducer implements EventLogProducer {
  readonly streamId: string;
  readonly #stream: Stream;
  readonly #leaseMs: number;
  #abandoned = false;
  /** Why this producer may write no more. */
  #closed: unknown;

  constructor(streamId: string, stream: Stream, leaseMs: number) {
    this.streamId = streamId;
    this.#stream = stream;
    this.#leaseMs = leaseMs;
  }

  get lastId(): number {
    return this.#stream.entries.length;
  }

  get signal(): AbortSignal {
    return this.#stream.stop.signal;
  }

  #check(): void {
    if (this.#abandoned) throw new EventLogError('producer-lost', `the producer of stream ${this.streamId} was abandoned`);
    if (this.#closed !== undefined) throw this.#closed;
    if (this.#stream.state !== 'open') throw new EventLogError('unavailable', `the stream ${this.streamId} has ended already`);
  }

  async append(event: unknown): Promise<number> {
    this.#check();
    const stream = this.#stream;
    const { type, data } = encodeEvent(event);
    const bytes = utf8Length(data);
    if (stream.bytes + bytes > stream.maxBytes) {
      const error = new EventLogError('too-large', `the stream ${this.streamId} would hold more than ${stream.maxBytes} bytes of events`);
      this.#finish({ kind: 'error', data: writeError(error) }, 'failed');
      this.#closed = error;
      if (!stream.stop.signal.aborted) stream.stop.abort(error);
      throw error;
    }
    stream.bytes += bytes;
    const id = stream.entries.length + 1;
    stream.entries.push({ kind: 'event', id, type, data });
    wake(stream);
    return id;
  }

  #finish(terminal: LogEntry & { kind: 'end' | 'error' }, state: State): void {
    const stream = this.#stream;
    stream.terminal = terminal;
    stream.state = state;
    stream.expiresAt = Date.now() + stream.ttlMs;
    wake(stream);
  }

  async end(): Promise<void> {
    this.#check();
    this.#finish({ kind: 'end' }, 'ended');
  }

  async fail(error: unknown, options?: PageErrorOptions): Promise<void> {
    if (this.#abandoned) throw new EventLogError('producer-lost', `the producer of stream ${this.streamId} was abandoned`);
    if (this.#stream.state !== 'open') return;
    this.#finish({ kind: 'error', data: writeError(error, options) }, 'failed');
  }

  [ABANDON](): void {
    if (this.#abandoned || this.#stream.state !== 'open') return;
    this.#abandoned = true;
    const now = Date.now();
    this.#stream.leaseEndsAt = now + this.#leaseMs;
    this.#stream.expiresAt = now + this.#leaseMs + this.#stream.ttlMs;
    wake(this.#stream);
  }
}
