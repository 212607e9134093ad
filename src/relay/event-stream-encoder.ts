/**
 * The server side of a relay: any stage's events as a `text/event-stream` (Server-Sent Events),
 * ready for `new Response(…)` in an edge function, a Worker, Deno, Bun or Node.
 *
 * @module
 */
import type { PipelineEvent } from '../types.ts';
import { RelayEncoder, type RelayEncoderOptions, type RelayFramer } from './relay-encoder.ts';
import type { PageErrorOptions } from './error-record.ts';
import { RelayError } from '../errors.ts';
import { BatchWriter } from './batch-writer.ts';
import { snapshotOf, writeError } from './wire.ts';

/**
 * The response headers of an event stream: the content type, no caching or transformation by
 * proxies (compression would hold events back), and no buffering by nginx.
 */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/** Options of {@link EventStreamEncoder}. */
export interface EventStreamEncoderOptions extends RelayEncoderOptions {
  /**
   * The `id` of the first event; the next ones count up by one. A server resuming a stream after
   * `Last-Event-ID: n` passes `n + 1` (see `resumeEventStream`). Ids are consecutive integers —
   * not an option — so an id always says how many events came before it.
   * @default 1
   */
  readonly firstId?: number;
}

/**
 * Encodes events as Server-Sent Events, the events of one network read as one record, one UTF-8
 * chunk:
 *
 * ```
 * id: 7
 * data: [[0],[2,1,"toolu_01","write_file"],[5,[1,0,1,28,null],"path",1],[11,"src/"],…]
 *
 * ```
 *
 * `id` is the id of the record's last event: ids count one per event from `firstId`, so a client
 * that resumes after a record resumes after all its events. `data` is their batch in the relay's
 * wire form (`src/relay/wire-batch.ts`): a call's identity, a field's key and a JSON path go on the
 * wire once and by number after, so what a relay sends stays within a few times what the provider
 * sent; an event the form does not know (your own types) goes whole, as JSON, with `Error` objects
 * inside it (a `tool-call-failed` event's `error`) written as their page records listed in a
 * `"$errors"` member, which {@link EventStreamDecoder} turns back into errors of the same class. A
 * burst of events — what one read made, which a pipe hands over a few microtask turns apart —
 * ends when no event came for 16 microtask turns, or at 64 Ki characters; the encoder holds 64 KiB
 * before a write waits for its reader.
 *
 * A `snapshot` event (many events as one: the turn so far, for a client that resumed far behind)
 * goes out as a record of its own, `id: <its lastId>`, `event: snapshot`, its events as the batch:
 * its id is that of the last event it stands for, so the events after it go on from `lastId + 1`
 * and a client cut after it resumes after all of them ({@link EventStreamDecoder} gives out its
 * events in its place). Without `lastId` it counts as one event. A `lastId` below the next id (ids
 * never go back) is a {@link RelayError} `invalid-event`.
 *
 * When the events end, a last `event: end` (no id) says the stream is complete, so the client
 * can tell it from a cut connection. When the stream before errors (or an event cannot be
 * written), the error goes as a last `event: error` (no id) carrying its page record — its class,
 * code and the fields of argstream's error classes, and a message argstream writes (`onError` to
 * choose it), never its cause, stack or the provider's own words — and the stream closes
 * normally. With `keepAliveMs`, an idle stream gets `: keep-alive` comments.
 *
 * Not a `TransformStream` but a `{ writable, readable }` pair, usable with `pipeThrough` like one:
 * a `TransformStream` drops its queue and errors its output when its input is aborted, and the
 * browser would only see a broken connection. Cancelling the readable side (the client went
 * away) errors the writable side, so the pipe cancels its source: the provider request stops.
 *
 * @typeParam T - the events: any JSON-able objects (and errors); argstream's {@link PipelineEvent}s by default.
 * @example
 * ```ts
 * export default {
 *   async fetch(request: Request): Promise<Response> {
 *     const upstream = await fetch(PROVIDER_URL, { method: 'POST', headers, body });
 *     const events = upstream.body!
 *       .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *       .pipeThrough(new FieldEventStream())
 *       .pipeThrough(new EventStreamEncoder());
 *     return new Response(events, { headers: EVENT_STREAM_HEADERS });
 *   },
 * };
 * ```
 */
export class EventStreamEncoder<T = PipelineEvent> extends RelayEncoder<T> {
  /** @throws {RangeError} for a `firstId` that is not a non-negative safe integer, or a bad `keepAliveMs`. */
  constructor(options: EventStreamEncoderOptions = {}) {
    const firstId = options.firstId ?? 1;
    if (!Number.isSafeInteger(firstId) || firstId < 0) {
      throw new RangeError(`EventStreamEncoder: firstId must be a non-negative integer, got ${String(firstId)}`);
    }
    super(new EventStreamFramer<T>(firstId, () => END_RECORD), options, 'EventStreamEncoder');
  }
}

/** The record that ends a complete stream. Internal. */
export const END_RECORD = 'event: end\ndata: {}\n\n';

/**
 * The Server-Sent Events records of {@link EventStreamEncoder}, numbered from `firstId`: the events
 * taken between two `take`s as one record, `id:` the last one's, `data:` their batch (see
 * `wire-batch.ts`). `end` gives the record that closes the stream: `resumeEventStream` gives none
 * for kept events that ran out before their terminal, so that the client sees a cut stream.
 * A class, not an object literal: V8 keeps an object literal that has a getter (`size`) in
 * dictionary mode, and every read of a relay looks its members up. Internal.
 */
export class EventStreamFramer<T> implements RelayFramer<T> {
  readonly keepAlive = ': keep-alive\n\n';
  readonly end: () => string | undefined;
  #nextId: number;
  readonly #writer = new BatchWriter();
  /** Records made whole already (a batch cut by a snapshot, the snapshot itself). */
  #records = '';

  constructor(firstId: number, end: () => string | undefined) {
    this.#nextId = firstId;
    this.end = end;
  }

  #batch(): string {
    const writer = this.#writer;
    return writer.count === 0 ? '' : `id: ${this.#nextId - 1}\ndata: ${writer.take() as string}\n\n`;
  }

  event(event: T): void {
    const snapshot = snapshotOf(event);
    if (snapshot !== undefined) {
      const nextId = this.#nextId;
      const lastId = snapshot.lastId ?? nextId;
      if (typeof lastId !== 'number' || !Number.isSafeInteger(lastId) || lastId < nextId) {
        throw new RelayError('invalid-event', `EventStreamEncoder: a snapshot's lastId must be an integer ≥ the next id (${nextId}), got ${String(lastId)}`);
      }
      // A snapshot is a record of its own, named so (the events after it go on from lastId + 1).
      this.#records += this.#batch();
      this.#writer.write({ type: 'snapshot', events: snapshot.events });
      this.#records += `id: ${lastId}\nevent: snapshot\ndata: ${this.#writer.take() as string}\n\n`;
      this.#nextId = lastId + 1;
      return;
    }
    this.#writer.write(event);
    this.#nextId++;
  }

  take(): string {
    const text = this.#records + this.#batch();
    this.#records = '';
    return text;
  }

  get size(): number {
    return this.#writer.size + this.#records.length;
  }

  error(reason: unknown, options?: PageErrorOptions): string {
    return `event: error\ndata: ${writeError(reason, options)}\n\n`;
  }
}
