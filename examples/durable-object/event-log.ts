/**
 * argstream's `EventLog` on Cloudflare Durable Objects: one object per stream (`idFromName(id)`)
 * keeps its events in the object's storage and serves them; any Worker instance reads and follows
 * them. The same contract as `MemoryEventLog` and `RedisEventLog`: ids 1, 2, 3 … (the relay's SSE
 * ids), the live tail until `end` or `error` (readers woken by each append, no polling), one
 * producer per stream with a lease, a stop from any instance, an expiry and a size limit.
 *
 * - `StreamLog` is the Durable Object class (export it from the Worker module, bind it in
 *   `wrangler.toml`).
 * - `DurableObjectEventLog` is the `EventLog` a Worker uses: `new DurableObjectEventLog(env.STREAMS)`.
 */
import { checkStreamId, encodeError, encodeEvent, EventLogError, newStreamId, type EventLog, type EventLogErrorCode, type EventLogProducer, type LogEntry, type OpenOptions, type PageErrorOptions, type ReadOptions } from 'argstream';

// ---------------------------------------------------------------------------------------------
// The little of the Workers runtime types used here (or take them from @cloudflare/workers-types).

export interface DurableObjectStorage {
  get<T>(key: string): Promise<T | undefined>;
  list<T>(options: { prefix: string }): Promise<Map<string, T>>;
  put(entries: Record<string, unknown>): Promise<void>;
  deleteAll(): Promise<void>;
  setAlarm(time: number): Promise<void>;
}
export interface DurableObjectState {
  readonly storage: DurableObjectStorage;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}
export interface DurableObjectStub {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}
export interface DurableObjectNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): DurableObjectStub;
}

// ---------------------------------------------------------------------------------------------
// The Durable Object: one stream

/** What the object keeps besides its entries (key `meta`). */
interface Meta {
  last: number;
  bytes: number;
  maxBytes: number;
  ttlMs: number;
  leaseMs: number;
  state: 'open' | 'ended' | 'failed';
  token: string;
  /** When the producer's lease runs out (renewed by its writes). */
  leaseUntil: number;
  /** When the stream may be forgotten: `ttlMs` after its end, or after its lease ran out. */
  expiresAt: number;
  stopped: boolean;
  terminal: (LogEntry & { kind: 'end' | 'error' }) | undefined;
}

const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
const entryKey = (id: number) => `e${String(id).padStart(16, '0')}`;
/** The most key-value pairs one `storage.put()` takes (Cloudflare's limit). */
const MAX_PUT = 128;

/**
 * One stream's log, as a Durable Object. Its HTTP interface is internal (the `DurableObjectEventLog`
 * speaks it): `POST /open`, `/append`, `/finish`, `/renew`, `/stop`; `GET /read?after=n&follow=1`
 * streams the entries as NDJSON lines, then the end, the error, or a `failure` line
 * (`producer-lost` when the lease runs out before the end).
 */
export class StreamLog {
  readonly #state: DurableObjectState;
  #meta: Meta | undefined;
  readonly #entries: Array<LogEntry & { kind: 'event' }> = [];
  /** Readers waiting for the next entry. */
  readonly #waiters = new Set<() => void>();
  #loaded: Promise<void> | undefined;

  constructor(state: DurableObjectState) {
    this.#state = state;
  }

  /** The stream from storage, once per instance of the object. */
  #load(): Promise<void> {
    this.#loaded ??= this.#state.blockConcurrencyWhile(async () => {
      this.#meta = await this.#state.storage.get<Meta>('meta');
      if (this.#meta === undefined) return;
      for (const entry of (await this.#state.storage.list<LogEntry & { kind: 'event' }>({ prefix: 'e' })).values()) this.#entries.push(entry);
    });
    return this.#loaded;
  }

  /** The stream, unless it expired (then it is forgotten). */
  async #current(): Promise<Meta | undefined> {
    await this.#load();
    const meta = this.#meta;
    if (meta !== undefined && meta.expiresAt <= Date.now()) {
      this.#meta = undefined;
      this.#entries.length = 0;
      await this.#state.storage.deleteAll();
      return undefined;
    }
    return meta;
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const waiter of waiters) waiter();
  }

  /**
   * Write `entries` and the meta. One `put()` takes at most {@link MAX_PUT} key-value pairs, so a
   * batch is written in several; they are made without an `await` between them, and a Durable
   * Object's storage writes such calls as one atomic write (write coalescing): no reader, and no
   * restart, sees entries without the meta that counts them, or the reverse.
   */
  async #save(entries: Record<string, unknown> = {}): Promise<void> {
    const meta = this.#meta as Meta;
    const storage = this.#state.storage;
    const pairs = Object.entries(entries);
    const writes: Array<Promise<void>> = [];
    for (let i = 0; i < pairs.length; i += MAX_PUT) writes.push(storage.put(Object.fromEntries(pairs.slice(i, i + MAX_PUT))));
    writes.push(storage.put({ meta }));
    // Forgotten at its expiry even if nobody asks again.
    writes.push(storage.setAlarm(meta.expiresAt));
    await Promise.all(writes);
  }

  async alarm(): Promise<void> {
    await this.#current();
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const body = request.method === 'POST' && request.headers.get('content-type') === 'application/json' ? ((await request.json()) as Record<string, unknown>) : {};
    const meta = await this.#current();
    const now = Date.now();
    switch (url.pathname) {
      case '/open': {
        if (meta !== undefined) return json({ status: 'exists' }, 409);
        const { token, ttlMs, maxBytes, leaseMs } = body as { token: string; ttlMs: number; maxBytes: number; leaseMs: number };
        this.#meta = { last: 0, bytes: 0, maxBytes, ttlMs, leaseMs, state: 'open', token, leaseUntil: now + leaseMs, expiresAt: now + leaseMs + ttlMs, stopped: false, terminal: undefined };
        this.#entries.length = 0;
        await this.#save();
        return json({ status: 'ok' });
      }
      case '/append': {
        if (meta === undefined) return json({ status: 'lost' });
        const { token, first, entries, tooLarge } = body as { token: string; first: number; entries: Array<{ type: string | null; data: string }>; tooLarge: string };
        const final = first + entries.length - 1;
        if (meta.last >= final) return json({ status: this.#entries[final - 1]?.data === entries[entries.length - 1]?.data ? 'dup' : 'conflict' });
        if (meta.state !== 'open') return json({ status: 'closed' });
        if (meta.token !== token || meta.leaseUntil <= now) return json({ status: 'lost' });
        if (first !== meta.last + 1) return json({ status: 'gap', last: meta.last });
        const added: Record<string, unknown> = {};
        let appended = 0;
        for (const { type, data } of entries) {
          const size = new TextEncoder().encode(data).length;
          if (meta.bytes + size > meta.maxBytes) {
            this.#finish(meta, { kind: 'error', data: tooLarge }, 'failed', now);
            await this.#save(added);
            this.#wake();
            return json({ status: 'too-large', appended });
          }
          const entry: LogEntry & { kind: 'event' } = { kind: 'event', id: meta.last + 1, type: type ?? undefined, data };
          meta.last = entry.id;
          meta.bytes += size;
          this.#entries.push(entry);
          added[entryKey(entry.id)] = entry;
          appended++;
        }
        meta.leaseUntil = now + meta.leaseMs;
        meta.expiresAt = meta.leaseUntil + meta.ttlMs;
        await this.#save(added);
        this.#wake();
        return json({ status: 'ok', stop: meta.stopped });
      }
      case '/finish': {
        if (meta === undefined) return json({ status: 'lost' });
        const { token, kind, data } = body as { token: string; kind: 'end' | 'error'; data: string };
        if (meta.state !== 'open') return json({ status: `done-${meta.state}` });
        if (meta.token !== token || meta.leaseUntil <= now) return json({ status: 'lost' });
        this.#finish(meta, kind === 'end' ? { kind: 'end' } : { kind: 'error', data }, kind === 'end' ? 'ended' : 'failed', now);
        await this.#save();
        this.#wake();
        return json({ status: 'ok' });
      }
      case '/renew': {
        if (meta === undefined || meta.state !== 'open' || meta.token !== body['token'] || meta.leaseUntil <= now) return json({ status: 'lost' });
        meta.leaseUntil = now + meta.leaseMs;
        meta.expiresAt = meta.leaseUntil + meta.ttlMs;
        await this.#save();
        return json({ status: meta.stopped ? 'stop' : 'ok' });
      }
      case '/stop': {
        if (meta === undefined) return json({ status: 'not-found' }, 404);
        if (meta.state === 'open' && !meta.stopped) {
          meta.stopped = true;
          await this.#save();
        }
        return json({ status: 'ok' });
      }
      case '/read': {
        if (meta === undefined) return json({ status: 'not-found' }, 404);
        const after = Number(url.searchParams.get('after'));
        if (after > meta.last) return json({ status: 'invalid-id', last: meta.last }, 400);
        return new Response(this.#read(after, url.searchParams.get('follow') === '1'), { headers: { 'content-type': 'application/x-ndjson' } });
      }
      default:
        return json({ status: 'not-found' }, 404);
    }
  }

  #finish(meta: Meta, terminal: LogEntry & { kind: 'end' | 'error' }, state: 'ended' | 'failed', now: number): void {
    meta.terminal = terminal;
    meta.state = state;
    meta.token = '';
    meta.expiresAt = now + meta.ttlMs;
  }

  /** The entries after `after` as NDJSON lines; with `follow`, then the tail, woken by each append. */
  #read(after: number, follow: boolean): ReadableStream<Uint8Array> {
    const utf8 = new TextEncoder();
    let next = after;
    let cancelled = false;
    let wake: (() => void) | undefined;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        for (;;) {
          if (cancelled) return;
          const meta = this.#meta;
          if (meta === undefined) {
            controller.enqueue(utf8.encode(`${JSON.stringify({ kind: 'failure', code: 'unavailable', message: 'the stream is gone (it expired)' })}\n`));
            controller.close();
            return;
          }
          if (next < this.#entries.length) {
            let text = '';
            while (next < this.#entries.length && text.length < 65_536) text += `${JSON.stringify(this.#entries[next++])}\n`;
            controller.enqueue(utf8.encode(text));
            return;
          }
          if (meta.terminal !== undefined) {
            controller.enqueue(utf8.encode(`${JSON.stringify(meta.terminal)}\n`));
            controller.close();
            return;
          }
          if (!follow) {
            controller.close();
            return;
          }
          const now = Date.now();
          if (meta.leaseUntil <= now) {
            controller.enqueue(utf8.encode(`${JSON.stringify({ kind: 'failure', code: 'producer-lost', message: "the producer stopped before the stream's end (its lease ran out)" })}\n`));
            controller.close();
            return;
          }
          // Until an append, the end, or the lease running out.
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, meta.leaseUntil - now + 5);
            function done() {
              clearTimeout(timer);
              resolve();
            }
            wake = done;
            this.#waiters.add(done);
          });
          if (wake !== undefined) this.#waiters.delete(wake);
        }
      },
      cancel: () => {
        cancelled = true;
        wake?.();
      },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The EventLog a Worker uses

/** Options of {@link DurableObjectEventLog}. */
export interface DurableObjectEventLogOptions {
  /** @default 600_000 */
  readonly ttlMs?: number;
  /** @default 16_777_216 */
  readonly maxBytes?: number;
  /** The producer's lease: renewed every third of it, and by each append. @default 10_000 */
  readonly leaseMs?: number;
}

function failed(code: EventLogErrorCode, message: string, cause?: unknown): EventLogError {
  return new EventLogError(code, message, cause === undefined ? undefined : { cause });
}

/** An `EventLog` whose streams are Durable Objects of the namespace given (bound to `StreamLog`). */
export class DurableObjectEventLog implements EventLog {
  readonly #namespace: DurableObjectNamespace;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #leaseMs: number;

  constructor(namespace: DurableObjectNamespace, options: DurableObjectEventLogOptions = {}) {
    this.#namespace = namespace;
    this.#ttlMs = options.ttlMs ?? 600_000;
    this.#maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.#leaseMs = options.leaseMs ?? 10_000;
  }

  /**
   * @internal A request to the stream's object; a failure to reach it is `unavailable`, in the
   * log's own words (which request went unanswered), never the failure's text: the message reaches
   * pages (the 503 body, an `event: error` record), and a runtime's error may name internals. The
   * failure stays on the error's `cause`, on the server, for logs.
   */
  async call(streamId: string, path: string, body?: unknown): Promise<Response> {
    const stub = this.#namespace.get(this.#namespace.idFromName(streamId));
    try {
      return await stub.fetch(`https://stream-log${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    } catch (error) {
      const request = path.slice(1).split('?')[0];
      throw failed('unavailable', `the stream's Durable Object did not answer the ${request} request`, error);
    }
  }

  async open(streamId: string, options: OpenOptions = {}): Promise<EventLogProducer> {
    checkStreamId(streamId);
    const token = newStreamId();
    const response = await this.call(streamId, '/open', { token, ttlMs: options.ttlMs ?? this.#ttlMs, maxBytes: options.maxBytes ?? this.#maxBytes, leaseMs: this.#leaseMs });
    if (response.status === 409) throw failed('exists', `the stream ${streamId} exists: it has a producer already`);
    if (!response.ok) throw failed('unavailable', `the stream's Durable Object answered ${response.status}`);
    return new DurableObjectProducer(this, streamId, token, this.#leaseMs);
  }

  async read(streamId: string, after: number, options: ReadOptions = {}): Promise<AsyncIterableIterator<LogEntry>> {
    checkStreamId(streamId);
    if (!Number.isSafeInteger(after) || after < 0) throw failed('invalid-id', `an event id is a non-negative integer, got ${String(after)}`);
    const response = await this.call(streamId, `/read?after=${after}&follow=${options.follow === false ? 0 : 1}`);
    if (response.status === 404) throw failed('not-found', `no stream ${streamId}: it never existed or it expired`);
    if (response.status === 400) throw failed('invalid-id', `the stream ${streamId} has no event ${after}`);
    if (!response.ok || response.body === null) throw failed('unavailable', `the stream's Durable Object answered ${response.status}`);
    return entries(response.body, after, options.signal);
  }

  async stop(streamId: string): Promise<void> {
    checkStreamId(streamId);
    const response = await this.call(streamId, '/stop', {});
    if (response.status === 404) throw failed('not-found', `no stream ${streamId}: it never existed or it expired`);
  }

  async close(): Promise<void> {}
}

/** NDJSON lines of entries → entries, their ids checked to be consecutive. */
async function* entries(body: ReadableStream<Uint8Array>, after: number, signal: AbortSignal | undefined): AsyncGenerator<LogEntry> {
  const reader = body.getReader();
  const utf8 = new TextDecoder();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', cancel);
  let buffer = '';
  let at = after;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        if (signal?.aborted === true) return;
        if (buffer === '') return; // the end of a read without follow
        throw failed('unavailable', 'the stream was cut');
      }
      buffer += utf8.decode(value, { stream: true });
      let line: number;
      while ((line = buffer.indexOf('\n')) !== -1) {
        const record = JSON.parse(buffer.slice(0, line)) as LogEntry | { kind: 'failure'; code: EventLogErrorCode; message: string };
        buffer = buffer.slice(line + 1);
        if (record.kind === 'failure') throw failed(record.code, record.message);
        if (record.kind === 'event') {
          if (record.id !== at + 1) throw failed('unavailable', `the log skipped from event ${at} to ${record.id}`);
          at = record.id;
          yield record;
        } else {
          yield record;
          return;
        }
      }
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    cancel();
  }
}

/** The producer of a stream: appends batched while one is in flight, the lease renewed, the stop heard. */
class DurableObjectProducer implements EventLogProducer {
  readonly streamId: string;
  readonly #log: DurableObjectEventLog;
  readonly #token: string;
  readonly #stop = new AbortController();
  readonly #queue: Array<{ id: number; type: string | undefined; data: string; resolve: (id: number) => void; reject: (error: unknown) => void }> = [];
  #flushing: Promise<void> | undefined;
  #nextId = 0;
  #lastId = 0;
  #failure: unknown;
  #finished = false;
  readonly #renewal: ReturnType<typeof setInterval>;
  #tooLarge: string | undefined;

  constructor(log: DurableObjectEventLog, streamId: string, token: string, leaseMs: number) {
    this.#log = log;
    this.streamId = streamId;
    this.#token = token;
    this.#renewal = setInterval(() => void this.#renew(), Math.max(10, Math.floor(leaseMs / 3)));
  }

  get lastId(): number {
    return this.#lastId;
  }

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Stop renewing and writing without ending the stream: what a Worker that dies does (the tests use it). */
  release(): void {
    this.#done();
  }

  #done(): void {
    this.#finished = true;
    clearInterval(this.#renewal);
  }

  #lose(error: unknown): void {
    this.#failure ??= error;
    for (const pending of this.#queue.splice(0)) pending.reject(this.#failure);
    if (!this.#stop.signal.aborted) this.#stop.abort(this.#failure);
    this.#done();
  }

  #stopRequested(): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(failed('stopped', `the stream ${this.streamId} was stopped`));
  }

  async #renew(): Promise<void> {
    if (this.#finished) return;
    try {
      const { status } = (await (await this.#log.call(this.streamId, '/renew', { token: this.#token })).json()) as { status: string };
      if (status === 'lost') this.#lose(failed('producer-lost', `the lease of the producer of stream ${this.streamId} ran out`));
      else if (status === 'stop') this.#stopRequested();
    } catch {
      // The next renewal or append tries again; the lease says when it is too late.
    }
  }

  append(event: unknown): Promise<number> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#finished) return Promise.reject(failed('unavailable', `the stream ${this.streamId} has ended already`));
    const { type, data } = encodeEvent(event);
    const id = ++this.#nextId;
    const result = new Promise<number>((resolve, reject) => this.#queue.push({ id, type, data, resolve, reject }));
    this.#flushing ??= this.#flush();
    return result;
  }

  async #flush(): Promise<void> {
    try {
      await Promise.resolve();
      while (this.#queue.length > 0 && this.#failure === undefined) {
        const batch = this.#queue.splice(0, 256);
        const first = (batch[0] as { id: number }).id;
        let reply: { status: string; appended?: number; stop?: boolean; last?: number };
        try {
          const response = await this.#log.call(this.streamId, '/append', {
            token: this.#token,
            first,
            entries: batch.map(({ type, data }) => ({ type: type ?? null, data })),
            tooLarge: (this.#tooLarge ??= encodeError(failed('too-large', `the stream ${this.streamId} would hold more than its size limit of event data`))),
          });
          reply = (await response.json()) as typeof reply;
        } catch (error) {
          for (const pending of batch) pending.reject(error);
          this.#lose(error);
          return;
        }
        if (reply.status === 'ok' || reply.status === 'dup') {
          this.#lastId = (batch[batch.length - 1] as { id: number }).id;
          for (const pending of batch) pending.resolve(pending.id);
          if (reply.stop === true) this.#stopRequested();
          continue;
        }
        const error =
          reply.status === 'too-large'
            ? failed('too-large', `the stream ${this.streamId} would hold more than its size limit of event data`)
            : reply.status === 'lost'
              ? failed('producer-lost', `the lease of the producer of stream ${this.streamId} ran out`)
              : failed('unavailable', `the stream ${this.streamId} cannot be appended to (${reply.status})`);
        const appended = reply.status === 'too-large' ? (reply.appended ?? 0) : 0;
        batch.forEach((pending, i) => (i < appended ? pending.resolve(pending.id) : pending.reject(error)));
        if (appended > 0) this.#lastId = (batch[appended - 1] as { id: number }).id;
        this.#lose(error);
        return;
      }
    } finally {
      // In the tick the queue was last found empty (not ticks later, as a .finally() would): an
      // append made after it starts a new flush instead of waiting in the queue forever.
      this.#flushing = undefined;
    }
  }

  async #finishWith(kind: 'end' | 'error', data: string): Promise<void> {
    while (this.#flushing !== undefined) await this.#flushing;
    if (this.#failure !== undefined) {
      if (kind === 'error' && (this.#failure as EventLogError).code === 'too-large') return; // failed with it already
      throw this.#failure;
    }
    if (this.#finished) return;
    const { status } = (await (await this.#log.call(this.streamId, '/finish', { token: this.#token, kind, data })).json()) as { status: string };
    if (status === 'lost') {
      const error = failed('producer-lost', `the lease of the producer of stream ${this.streamId} ran out`);
      this.#lose(error);
      throw error;
    }
    this.#done();
  }

  end(): Promise<void> {
    return this.#finishWith('end', '');
  }

  fail(error: unknown, options?: PageErrorOptions): Promise<void> {
    return this.#finishWith('error', encodeError(error, options));
  }
}
