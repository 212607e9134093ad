/**
 * Resuming an event stream after a cut: `Last-Event-ID` read from a request, and the events after
 * it served from what the application kept.
 *
 * @module
 */
import type { PipelineEvent, SnapshotEvent } from '../types.ts';
import { compactEvents } from './compact.ts';
import { END_RECORD, type EventStreamEncoderOptions, EventStreamFramer } from './event-stream-encoder.ts';
import { RelayEncoder } from './relay-encoder.ts';
import { RelayError } from '../errors.ts';

/** Options of {@link resumeEventStream}. */
export interface ResumeEventStreamOptions extends Omit<EventStreamEncoderOptions, 'firstId'> {
  /**
   * Send the events the client lacks as one `snapshot` event (their {@link compactEvents}) when
   * it lacks more than {@link ResumeEventStreamOptions.snapshotThreshold} of them, or has none
   * (`Last-Event-ID` absent or 0: a new page, or one that lost its state) — never for a single
   * event; the events kept after the request came go on one by one. Needs the kept events as an
   * array.
   * @default false
   */
  readonly snapshot?: boolean;
  /**
   * With `snapshot`: how many events a client that has some may lack before it gets a snapshot.
   * @default 64
   */
  readonly snapshotThreshold?: number;
}

/**
 * The `Last-Event-ID` a client sent (the request, its headers, or the header's value), as the
 * number of events it already has: `0` when there is none.
 * @throws {RelayError} `invalid-last-event-id` for a value that is not an id `EventStreamEncoder`
 * writes (a non-negative integer): answer 400.
 * @example
 * ```ts
 * const after = lastEventId(request); // 0 on the first request
 * ```
 */
export function lastEventId(source: Request | Headers | string | null | undefined): number {
  // Headers-like by shape, not by class: a request may come from another realm (a VM, a framework's polyfill).
  const value =
    typeof source === 'string' || source === null || source === undefined
      ? source
      : ('headers' in source ? source.headers : source).get('last-event-id');
  if (value === null || value === undefined || value.trim() === '') return 0;
  const text = value.trim();
  const id = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) {
    throw new RelayError('invalid-last-event-id', `Last-Event-ID must be the id of an event (a non-negative integer), got "${text.length > 30 ? `${text.slice(0, 30)}…` : text}"`);
  }
  return id;
}

/**
 * The relay's own end of a stream, as an application keeps it after the events it sent (the
 * records `NdjsonEncoder` writes: `{"type":"end"}`, `{"type":"error","error":…}`): `end` when
 * the events ended, `error` with the error when the stream before failed. Kept events that end
 * with one are a finished stream; without one, the stream is still being produced (or was cut).
 */
export type RelayTerminal = { readonly type: 'end' } | { readonly type: 'error'; readonly error: unknown };

/** `value` as a terminal record, or `undefined` for an event. */
function terminalOf(value: unknown): RelayTerminal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  return type === 'end' || type === 'error' ? (value as RelayTerminal) : undefined;
}

/**
 * The refusal of a `Last-Event-ID` beyond the events kept: the client cannot hold an event that
 * was never sent (a forged id, or one from another stream), and serving `end` after nothing
 * would present a truncated turn as complete. Answer 400, as `serveStream` does.
 */
function beyondKept(lastId: number, kept: number): RelayError {
  return new RelayError('invalid-last-event-id', `Last-Event-ID ${lastId} is beyond the ${kept} events kept`);
}

/** How the events given ended: with a terminal, or (kept events without one) not yet. */
interface Ending {
  /** Kept events ran out before a terminal: the stream goes on elsewhere (or was cut). */
  truncated: boolean;
}

/**
 * A stream of the events of an iterable, skipping the first `skip`; pulled one at a time. For an
 * array, `first` (a snapshot standing for the events up to `skip`) comes before them. A terminal
 * ends it: `end` closes it, `error` errors it with its error. Kept events (an array, a synchronous
 * iterable) that run out without a terminal close it with `ending.truncated` set; an async
 * iterable that returns closes it (it could wait for more, so returning says the stream ended).
 */
function streamFrom<T>(events: Iterable<T | RelayTerminal> | AsyncIterable<T | RelayTerminal>, skip: number, ending: Ending, first?: T): ReadableStream<T> {
  let head = first !== undefined;
  let skipped = 0;
  /** Enqueue `value`, or end with it; whether the stream goes on. */
  const take = (controller: ReadableStreamDefaultController<T>, value: T | RelayTerminal): boolean => {
    const terminal = terminalOf(value);
    if (terminal === undefined) {
      if (skipped < skip) {
        skipped++;
        return true;
      }
      controller.enqueue(value as T);
      return false;
    }
    if (skipped < skip) controller.error(beyondKept(skip, skipped));
    else if (terminal.type === 'end') controller.close();
    else controller.error(terminal.error);
    return false;
  };
  if (Array.isArray(events)) {
    const list = events as ReadonlyArray<T | RelayTerminal>;
    // Skipped events are never terminals (a terminal is last): start at `skip`, unless it is beyond one.
    const end = list.length > 0 && terminalOf(list[list.length - 1]) !== undefined ? list.length - 1 : list.length;
    let i = Math.min(skip, end);
    skipped = skip;
    return new ReadableStream<T>({
      pull(controller) {
        if (head) {
          head = false;
          controller.enqueue(first as T);
          return;
        }
        for (;;) {
          if (i >= list.length) {
            ending.truncated = true;
            controller.close();
            return;
          }
          if (!take(controller, list[i++] as T | RelayTerminal)) return;
        }
      },
    });
  }
  const synchronous = !(Symbol.asyncIterator in events);
  const iterator: Iterator<T | RelayTerminal> | AsyncIterator<T | RelayTerminal> = synchronous
    ? (events as Iterable<T | RelayTerminal>)[Symbol.iterator]()
    : (events as AsyncIterable<T | RelayTerminal>)[Symbol.asyncIterator]();
  let done = false;
  return new ReadableStream<T>({
    async pull(controller) {
      for (;;) {
        const result = await iterator.next();
        if (result.done === true) {
          done = true;
          if (skipped < skip) controller.error(beyondKept(skip, skipped));
          else {
            if (synchronous) ending.truncated = true;
            controller.close();
          }
          return;
        }
        if (!take(controller, result.value)) {
          if (terminalOf(result.value) !== undefined) {
            done = true;
            await iterator.return?.();
          }
          return;
        }
      }
    },
    async cancel(reason) {
      if (!done) await iterator.return?.(reason);
    },
  });
}

/**
 * The event stream a reconnecting client asks for: the events after its `Last-Event-ID`, encoded
 * with the ids they had (`firstId` is that id + 1), then how the stream ended — so its
 * {@link EventStreamDecoder} goes on as if the connection had never been cut.
 *
 * `events` are all the events of the stream, from the first (id 1), as the application kept them,
 * followed by the stream's {@link RelayTerminal} once it has one: `{ type: 'end' }` when it
 * ended, `{ type: 'error', error }` when it failed.
 *
 * - An array (or a synchronous iterable) is what is kept now. It sends `end` only when it ends
 *   with `{ type: 'end' }`, and the error as `event: error` when it ends with `{ type: 'error' }`.
 *   Without a terminal the turn is still being produced (or its producer died), and the response
 *   closes without `end`: the client's decoder fails with `RelayError` `incomplete` and its
 *   `lastEventId`, as after a cut connection, and asks again later — a truncated turn never looks
 *   complete. A client should not wait on an array being filled: serve a turn still streaming
 *   from an event log (`keepStream`, `serveStream`), which follows the live tail.
 * - An async iterable may wait for events as they come (read from its own store): when it
 *   returns, the stream ended (`end`); when it throws, the client gets the error as
 *   `event: error`; a terminal it yields ends it the same way.
 *
 * **Snapshot** (`snapshot: true`, an array of events): a client that sends `Last-Event-ID: n` has
 * events 1..n — it built its state from them — and lacks n+1 onwards. So what it lacks is the
 * range n+1..m, m the last event kept when the request came: when that range is long (more than
 * `snapshotThreshold` events), or the client has nothing (n = 0: a new page, a reload, a client
 * that lost its state and asks from the start), it gets that range as one `snapshot` event —
 * `compactEvents(events n+1..m)`, written with id m — and then the events after m one by one,
 * with their own ids. The snapshot never stands for events 1..n: the client has them, and
 * applying them twice would double its text. Its decoder gives out the snapshot's events in its
 * place (so its consumers end up where the whole range would have brought them) and its
 * `lastEventId` becomes m, so a cut after it resumes after m. A client far behind then costs
 * what the turn's state weighs (a 1 MB file's text once), not the thousands of deltas that
 * streamed it.
 *
 * **A `Last-Event-ID` beyond the kept events** (n greater than the events kept, the terminal not
 * counted) is refused, as `serveStream` refuses it: a client cannot hold an event that was never
 * sent, and `end` after nothing would make a truncated turn look complete. For an array this is
 * checked at once (a `RelayError` thrown: answer 400); an iterable is only known to hold fewer
 * when it ends (a terminal, or its end) before event n, and the response then ends with that
 * `RelayError` as `event: error` instead of `end`: the client's decoder fails with it.
 *
 * @param events - every event of the stream, from the first, then its terminal once it has one.
 * @param lastId - the request (its `Last-Event-ID` header is read with {@link lastEventId}), or
 * the number of events the client has.
 * @throws {RelayError} `invalid-last-event-id` for a header that is not an id, or an id beyond
 * the events of an array (answer 400).
 * @example
 * ```ts
 * // A finished turn the application kept: each event it sent, then how the stream ended.
 * const kept: Array<PipelineEvent | RelayTerminal> = [...sent, { type: 'end' }];
 * // GET /api/chat/:id with Last-Event-ID: n
 * return new Response(resumeEventStream(kept, request, { snapshot: true }), { headers: EVENT_STREAM_HEADERS });
 * ```
 */
export function resumeEventStream<T>(
  events: Iterable<T | RelayTerminal> | AsyncIterable<T | RelayTerminal>,
  lastId: Request | Headers | string | number | null | undefined,
  options: ResumeEventStreamOptions = {},
): ReadableStream<Uint8Array> {
  const after = typeof lastId === 'number' ? lastId : lastEventId(lastId);
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new RelayError('invalid-last-event-id', `the last event id must be a non-negative integer, got ${String(after)}`);
  }
  if (Array.isArray(events)) {
    const list = events as ReadonlyArray<T | RelayTerminal>;
    const kept = list.length > 0 && terminalOf(list[list.length - 1]) !== undefined ? list.length - 1 : list.length;
    if (after > kept) throw beyondKept(after, kept);
  }
  const { snapshot: wanted, snapshotThreshold, ...encoderOptions } = options;
  const threshold = snapshotThreshold ?? 64;
  if (!(threshold >= 0)) throw new RangeError(`resumeEventStream: snapshotThreshold must be a non-negative number, got ${String(snapshotThreshold)}`);
  const ending: Ending = { truncated: false };
  // Kept events that ran out before their terminal close without `end`: the client's decoder then
  // sees a cut stream (RelayError 'incomplete', with the last id it got) and resumes later, as
  // after a cut connection — never a finished turn.
  const framer = new EventStreamFramer<T>(after + 1, () => (ending.truncated ? undefined : END_RECORD));
  const encoder = new RelayEncoder<T>(framer, encoderOptions, 'resumeEventStream');
  if (wanted === true) {
    if (!Array.isArray(events)) throw new TypeError('resumeEventStream: a snapshot needs the kept events as an array');
    const list = events as ReadonlyArray<T | RelayTerminal>;
    // What the client lacks: events after+1..kept (ids), kept = the last event kept now.
    const kept = list.length > 0 && terminalOf(list[list.length - 1]) !== undefined ? list.length - 1 : list.length;
    // One event is sent as itself: a snapshot of it would only add its wrapper.
    if (kept - after > Math.max(after === 0 ? 1 : threshold, 1)) {
      const snapshot: SnapshotEvent = { type: 'snapshot', events: compactEvents(list.slice(after, kept) as readonly PipelineEvent[]), lastId: kept };
      return streamFrom(list, kept, ending, snapshot as T).pipeThrough(encoder);
    }
  }
  return streamFrom(events, after, ending).pipeThrough(encoder);
}
