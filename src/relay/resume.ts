/**
 * Resuming an event stream after a cut: `Last-Event-ID` read from a request, and the events after
 * it served from what the application kept.
 *
 * @module
 */
import type { PipelineEvent, SnapshotEvent } from '../types.ts';
import { compactEvents } from './compact.ts';
import { EventStreamEncoder, type EventStreamEncoderOptions } from './event-stream-encoder.ts';
import { RelayError } from './relay-error.ts';

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
 * A stream of the values of an iterable, skipping the first `skip`; pulled one at a time. For an
 * array, `first` (a snapshot standing for the values up to `skip`) comes before them.
 */
function streamFrom<T>(events: Iterable<T> | AsyncIterable<T>, skip: number, first?: T): ReadableStream<T> {
  if (Array.isArray(events)) {
    const list = events as readonly T[];
    let i = skip;
    let head = first !== undefined;
    return new ReadableStream<T>({
      pull(controller) {
        if (head) {
          head = false;
          controller.enqueue(first as T);
        } else if (i < list.length) controller.enqueue(list[i++] as T);
        else controller.close();
      },
    });
  }
  const iterator: Iterator<T> | AsyncIterator<T> =
    Symbol.asyncIterator in events ? (events as AsyncIterable<T>)[Symbol.asyncIterator]() : (events as Iterable<T>)[Symbol.iterator]();
  let skipped = 0;
  return new ReadableStream<T>({
    async pull(controller) {
      for (;;) {
        const result = await iterator.next();
        if (result.done === true) {
          controller.close();
          return;
        }
        if (skipped < skip) {
          skipped++;
          continue;
        }
        controller.enqueue(result.value);
        return;
      }
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

/**
 * The event stream a reconnecting client asks for: the events after its `Last-Event-ID`, encoded
 * with the ids they had (`firstId` is that id + 1), then `end` — so its
 * {@link EventStreamDecoder} goes on as if the connection had never been cut.
 *
 * `events` are all the events of the stream, from the first (id 1), as the application kept them:
 * an array, or an (async) iterable that may go on yielding events as they come (read from its own
 * store). If it throws, the client gets the error as an `event: error`.
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
 * @param events - every event of the stream, from the first.
 * @param lastId - the request (its `Last-Event-ID` header is read with {@link lastEventId}), or
 * the number of events the client has.
 * @throws {RelayError} `invalid-last-event-id` for a header that is not an id.
 * @example
 * ```ts
 * const kept: PipelineEvent[] = []; // filled while the first response streamed
 * // GET /api/chat/:id with Last-Event-ID: n
 * return new Response(resumeEventStream(kept, request), { headers: EVENT_STREAM_HEADERS });
 * ```
 */
export function resumeEventStream<T>(
  events: Iterable<T> | AsyncIterable<T>,
  lastId: Request | Headers | string | number | null | undefined,
  options: ResumeEventStreamOptions = {},
): ReadableStream<Uint8Array> {
  const after = typeof lastId === 'number' ? lastId : lastEventId(lastId);
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new RelayError('invalid-last-event-id', `the last event id must be a non-negative integer, got ${String(after)}`);
  }
  const { snapshot: wanted, snapshotThreshold, ...encoderOptions } = options;
  const threshold = snapshotThreshold ?? 64;
  if (!(threshold >= 0)) throw new RangeError(`resumeEventStream: snapshotThreshold must be a non-negative number, got ${String(snapshotThreshold)}`);
  const encoder = new EventStreamEncoder<T>({ ...encoderOptions, firstId: after + 1 });
  if (wanted === true) {
    if (!Array.isArray(events)) throw new TypeError('resumeEventStream: a snapshot needs the kept events as an array');
    // What the client lacks: events after+1..kept (ids), kept = the last event kept now.
    const kept = events.length;
    // One event is sent as itself: a snapshot of it would only add its wrapper.
    if (kept - after > Math.max(after === 0 ? 1 : threshold, 1)) {
      const snapshot: SnapshotEvent = { type: 'snapshot', events: compactEvents((events as readonly PipelineEvent[]).slice(after, kept)), lastId: kept };
      return streamFrom(events, kept, snapshot as T).pipeThrough(encoder);
    }
  }
  return streamFrom(events, after).pipeThrough(encoder);
}
