/**
 * Resuming an event stream after a cut: `Last-Event-ID` read from a request, and the events after
 * it served from what the application kept.
 *
 * @module
 */
import { EventStreamEncoder, type EventStreamEncoderOptions } from './event-stream-encoder.ts';
import { RelayError } from './relay-error.ts';

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

/** A stream of the values of an iterable, skipping the first `skip`; pulled one at a time. */
function streamFrom<T>(events: Iterable<T> | AsyncIterable<T>, skip: number): ReadableStream<T> {
  if (Array.isArray(events)) {
    const list = events as readonly T[];
    let i = skip;
    return new ReadableStream<T>({
      pull(controller) {
        if (i < list.length) controller.enqueue(list[i++] as T);
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
  options: Omit<EventStreamEncoderOptions, 'firstId'> = {},
): ReadableStream<Uint8Array> {
  const after = typeof lastId === 'number' ? lastId : lastEventId(lastId);
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new RelayError('invalid-last-event-id', `the last event id must be a non-negative integer, got ${String(after)}`);
  }
  return streamFrom(events, after).pipeThrough(new EventStreamEncoder<T>({ ...options, firstId: after + 1 }));
}
