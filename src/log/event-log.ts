/**
 * The event log: where a relayed stream's events are kept while they are produced and for a while
 * after, so that a client cut off mid-turn can resume on any instance with `Last-Event-ID`.
 *
 * The interface and what every implementation shares: validating ids before they reach a
 * backend, encoding events once (as the relay writes them), and the errors.
 *
 * @module
 */
import { EventLogError } from '../relay/event-log-error.ts';
import type { PageErrorOptions } from '../relay/error-record.ts';
import { writeError, writeEvent } from '../relay/wire.ts';

export { EventLogError, isEventLogError, type EventLogErrorCode } from '../relay/event-log-error.ts';

/**
 * What a stream id must look like: 16 to 128 characters of `A–Z a–z 0–9 _ -` (base64url; a UUID
 * fits). Nothing else reaches a backend key: no `:`, `{`, `}`, spaces or control characters.
 */
export const STREAM_ID_PATTERN: RegExp = /^[A-Za-z0-9_-]{16,128}$/;

/** What a key prefix may be: 1 to 64 characters of `A–Z a–z 0–9 _ - . :` (no hash-tag braces). */
const PREFIX_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The largest event id: 2^53 (ids are JavaScript numbers; Redis stream ids `0-<n>` hold them). */
export const MAX_EVENT_ID = 2 ** 53;

/** Line breaks, C0 and C1 controls, DEL, and the bidi controls that reorder what follows them. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character escaped as `\uXXXX`: an error message that reaches a page,
 * a log line or a terminal cannot move a cursor, start an escape sequence or reorder the text.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A client's value in an error message: quoted, at most 30 characters of it (with its length when
 * it is cut), control characters escaped — a 400 never reflects a hostile id whole.
 */
function shown(value: string): string {
  if (value.length <= 30) return printable(JSON.stringify(value));
  return `${printable(JSON.stringify(value.slice(0, 30)).slice(0, -1))}…" (${value.length} characters)`;
}

/**
 * A stream id, checked: {@link STREAM_ID_PATTERN}.
 * @throws {EventLogError} `invalid-id`.
 */
export function checkStreamId(streamId: unknown): string {
  if (typeof streamId !== 'string' || !STREAM_ID_PATTERN.test(streamId)) {
    throw new EventLogError('invalid-id', `a stream id is 16 to 128 characters of A-Z a-z 0-9 _ -, got ${typeof streamId === 'string' ? shown(streamId) : typeof streamId}`);
  }
  return streamId;
}

/**
 * An event id given by a client (`Last-Event-ID`, `?lastEventId=`): a decimal integer from 0 to
 * 2^53, at most 16 digits. `0` (or nothing) means from the start.
 * @throws {EventLogError} `invalid-id`.
 */
export function parseEventId(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value <= MAX_EVENT_ID) return value;
    throw new EventLogError('invalid-id', `an event id is an integer from 0 to 2^53, got ${String(value)}`);
  }
  const text = value.trim();
  if (text === '') return 0;
  if (!/^\d{1,16}$/.test(text) || Number(text) > MAX_EVENT_ID) {
    throw new EventLogError('invalid-id', `an event id is a decimal integer from 0 to 2^53, got ${shown(text)}`);
  }
  return Number(text);
}

/** A key prefix, checked. @throws {RangeError} */
export function checkPrefix(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) throw new RangeError(`an event log prefix is 1 to 64 characters of A-Z a-z 0-9 _ - . :, got ${shown(prefix)}`);
  return prefix;
}

/**
 * A new stream id: 128 random bits (`crypto.getRandomValues`), base64url (22 characters).
 * Unguessable, so knowing a stream id is a capability; still check that the caller may read it
 * (see {@link serveStream}).
 */
export function newStreamId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A positive whole number of milliseconds or bytes, checked. @throws {RangeError} */
export function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${what} must be a positive integer, got ${String(value)}`);
  return value;
}

// ---------------------------------------------------------------------------------------------

/**
 * One entry of a stream, as it is stored: already encoded, so that serving it is writing text.
 *
 * - `event`: the event of id `id` (1, 2, 3 …: the relay's SSE ids); `type` is its SSE event
 *   name (`undefined` when it has none) and `data` its JSON as the relay writes it (errors inside
 *   listed in `"$errors"`).
 * - `end`: the stream is complete.
 * - `error`: the stream failed; `data` is the error's record as the relay writes it.
 */
export type LogEntry =
  | { readonly kind: 'event'; readonly id: number; readonly type: string | undefined; readonly data: string }
  | { readonly kind: 'end' }
  | { readonly kind: 'error'; readonly data: string };

/** Options of {@link EventLog.open}: the stream's limits. */
export interface OpenOptions {
  /**
   * How long the stream is kept once it is ended, failed or abandoned (and between writes, while
   * its producer runs the lease keeps it): milliseconds. A resumer after that gets `not-found`.
   * Defaults to the log's.
   */
  readonly ttlMs?: number;
  /** The most bytes of event data (UTF-8 JSON) the stream may hold; beyond it the stream is failed with `too-large`. Defaults to the log's. */
  readonly maxBytes?: number;
}

/** Options of {@link EventLog.read}. */
export interface ReadOptions {
  /**
   * Follow the live tail: wait for new events until the stream's `end` or `error` (default).
   * With `false`, yield what the stream holds now and return (with the terminal entry when there
   * is one).
   * @default true
   */
  readonly follow?: boolean;
  /** Stops the reading: the iterator returns. */
  readonly signal?: AbortSignal;
}

/**
 * The one writer of a stream, from {@link EventLog.open}. Appends are kept in order; each
 * resolves with the event's id once the log holds it.
 */
export interface EventLogProducer {
  readonly streamId: string;
  /** The id of the last event appended (and accepted) so far: 0 before the first. */
  readonly lastId: number;
  /**
   * Aborted when the producer must stop: a stop was requested ({@link EventLog.stop}, from any
   * instance; reason: `EventLogError` `stopped`), its lease was lost (`producer-lost`), the
   * backend stayed unreachable beyond the log's retry bound (`unavailable`), or the stream grew
   * too large (`too-large`). Cancel the source (the provider request) on it.
   */
  readonly signal: AbortSignal;
  /**
   * Append one event (any JSON-able object, errors inside kept as the relay keeps them).
   * @returns its id.
   * @throws {EventLogError} `too-large`, `producer-lost`, `unavailable`, `stopped` (after a stop, the
   * stream is failed with it), or the `RelayError` `invalid-event` of an event the relay cannot write.
   */
  append(event: unknown): Promise<number>;
  /** End the stream: readers get the events and then `end`. */
  end(): Promise<void>;
  /**
   * Fail the stream with `error`: readers get the events and then the error, as the relay writes
   * it for a page ({@link encodeError}: `options.onError` chooses its message).
   */
  fail(error: unknown, options?: PageErrorOptions): Promise<void>;
}

/**
 * A shared log of event streams. Ids are the relay's SSE ids (1, 2, 3 … per stream), so a
 * client's `Last-Event-ID` is a position in the log.
 *
 * Implementations: {@link MemoryEventLog} (one process), `RedisEventLog` (`argstream/redis`: any
 * instance), a Cloudflare Durable Object (`examples/durable-object/`). They pass the same
 * contract tests (`test/log/contract.ts`): in process, against a real redis-server, and with the
 * Durable Object under workerd.
 */
export interface EventLog {
  /**
   * Start the stream `streamId`, as its one producer.
   * @throws {EventLogError} `invalid-id`; `exists` when the id is (or was, within its expiry) in
   * use — a second producer is refused; `unavailable`.
   */
  open(streamId: string, options?: OpenOptions): Promise<EventLogProducer>;
  /**
   * The entries of stream `streamId` after event id `after` (0: from the first), in order and
   * each once, then (with `follow`) the live tail until `end` or `error` — the last entry the
   * iterator yields. The promise settles once the stream is known to exist.
   *
   * Ids are checked to be consecutive: a gap or a repeat is an `unavailable` error, never data.
   * @throws {EventLogError} `invalid-id` (also for `after` beyond the stream's last event),
   * `not-found`, `unavailable` — from the promise, or from the iterator while following, with
   * `producer-lost` when the producer's lease runs out before the stream's end.
   */
  read(streamId: string, after: number, options?: ReadOptions): Promise<AsyncIterableIterator<LogEntry>>;
  /**
   * Ask the producer of `streamId` to stop (a user's stop button), from any instance: its
   * {@link EventLogProducer.signal} aborts; `keepStream` cancels the source and fails the stream
   * with `stopped`. Stopping a stream that has ended does nothing.
   * @throws {EventLogError} `invalid-id`, `not-found`, `unavailable`.
   */
  stop(streamId: string): Promise<void>;
  /** Let go of what the log holds open (connections, timers). The backend's data stays. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Encoding, shared by the implementations

/** An event's SSE event name as `EventStreamEncoder` writes it: its `type`, when a string without line breaks. */
function eventName(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const type = (event as { type?: unknown }).type;
  return typeof type === 'string' && type !== '' && !/[\r\n]/.test(type) ? type : undefined;
}

/** The UTF-8 length of a string, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: 4 bytes for 2 code units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * An event as a log stores it — its SSE event name and its JSON as the relay writes them (errors
 * inside as records listed in `"$errors"`) — for an {@link EventLog} of your own (KV, SQL, …): an
 * {@link LogEntry} of kind `event` holds these.
 * @throws {RelayError} `invalid-event` for what the relay cannot write (a `BigInt`, a cycle).
 */
export function encodeEvent(event: unknown): { readonly type: string | undefined; readonly data: string } {
  return { type: eventName(event), data: writeEvent(event) };
}

/**
 * An error as a log stores it (the `data` of an {@link LogEntry} of kind `error`): its record as
 * the relay writes it for a page — its class, code and call, and a message argstream writes (or
 * `onError`'s), never its cause, stack, or an unknown error's message (see `EventStreamEncoder`).
 * The record is made when the error is stored: every resumer gets the same.
 */
export function encodeError(error: unknown, options?: PageErrorOptions): string {
  return writeError(error, options);
}
