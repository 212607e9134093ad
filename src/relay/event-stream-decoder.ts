/**
 * The browser side of a relay: an event stream written by `EventStreamEncoder` back to the same
 * events.
 *
 * @module
 */
import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';
import type { PipelineEvent } from '../types.ts';
import { ChunkText, decoderTransformer, maxEventLength, maxRelayDepth, type DecoderCore, type RelayDecoderOptions } from './relay-decoder.ts';
import { RelayError } from '../errors.ts';
import { BatchReader } from './batch-reader.ts';
import { errorClasses, expandSnapshot, readError, readEvent, snapshotOf, type ErrorClass } from './wire.ts';

/** Options of {@link EventStreamDecoder}. */
export interface EventStreamDecoderOptions extends RelayDecoderOptions {
  /**
   * Where this response starts: the `Last-Event-ID` its request was sent with (`0` or nothing for a
   * first request). The decoder's {@link EventStreamDecoder.lastEventId} starts there (so a resume
   * that is cut before its first event still knows where it is), and with a decimal id the first
   * record's id is checked to continue it — a server that skips or repeats events from the start
   * is a `RelayError` `out-of-sequence`, as one that does so later is. Without it, the first
   * record sets the position, and the ids after it are checked.
   * @default undefined
   */
  readonly lastEventId?: string | number | undefined;
}

/** An id the decoder can count with: a decimal integer, as argstream's encoders and logs write them. */
const COUNTED_ID = /^\d{1,16}$/;

/** The decoding, without a stream. Internal (`TurnStore.consume` reads a body with it). */
export class EventStreamDecoderCore<T> implements DecoderCore<T> {
  readonly #classes: ReadonlyMap<string, ErrorClass>;
  readonly #max: number;
  readonly #text = new ChunkText();
  readonly #parser: EventSourceParser;
  #out: T[] | undefined;
  #lastEventId: string | undefined;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #closed = false;
  readonly #batches: BatchReader;
  readonly #maxDepth: number;
  /** The id of the last event, as a number, while ids are counted (decimal); `undefined` before the first or once they are not. */
  #position: number | undefined;
  /** Whether ids are counted: until an id that is not a decimal integer, or an event without one (another server's). */
  #counting = true;

  constructor(options: EventStreamDecoderOptions) {
    this.#classes = errorClasses(options.errorClasses);
    this.#maxDepth = maxRelayDepth(options, 'EventStreamDecoder');
    this.#batches = new BatchReader(this.#classes, this.#maxDepth);
    this.#max = maxEventLength(options, 'EventStreamDecoder');
    this.#parser = createParser({
      onEvent: (message) => this.#event(message),
      onError: (error) => this.#parseError(error),
      maxBufferSize: this.#max,
    });
    const start = options.lastEventId;
    if (start !== undefined) {
      const text = String(start);
      if (typeof start === 'number' && !(Number.isSafeInteger(start) && start >= 0)) throw new RangeError(`EventStreamDecoder: lastEventId ${text}`);
      if (text !== '' && text !== '0') this.#lastEventId = text;
      if (COUNTED_ID.test(text)) this.#position = Number(text);
      else if (text !== '') this.#counting = false;
    }
  }

  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  push(chunk: string | Uint8Array, out: T[]): T[] {
    this.#run(out, () => {
      const text = this.#text.text(chunk, 'EventStreamDecoder');
      if (text !== '') this.#parser.feed(text);
    });
    return out;
  }

  end(out: T[]): T[] {
    this.#run(out, () => {
      const text = this.#text.end();
      if (text !== '') this.#parser.feed(text);
      this.#closed = true;
      if (!this.#ended) {
        throw new RelayError(
          'incomplete',
          `the event stream ended without its end event: the connection was cut ${this.#lastEventId === undefined ? 'before the first event' : `after event ${this.#lastEventId}`}; reconnect with Last-Event-ID to get the rest`,
          { lastEventId: this.#lastEventId },
        );
      }
    });
    return out;
  }

  #run(out: T[], step: () => void): void {
    if (this.#failure !== undefined) throw this.#failure.error;
    if (this.#closed) throw new TypeError('EventStreamDecoder: input already ended');
    this.#out = out;
    try {
      step();
    } catch (error) {
      this.#failure = { error };
      throw error;
    } finally {
      this.#out = undefined;
    }
  }

  #event(message: EventSourceMessage): void {
    // The encoder's end and error records carry no id; every event does.
    if (message.id === undefined && message.event === 'end') {
      this.#ended = true;
      return;
    }
    if (message.id === undefined && message.event === 'error') throw readError(message.data, this.#classes);
    if (this.#ended) {
      throw new RelayError('after-end', `an event came after the end event${message.id === undefined ? '' : ` (id ${message.id})`}`, { lastEventId: this.#lastEventId });
    }
    let event: unknown;
    let events: unknown[] | undefined;
    /** How many ids the record stands for: a batch one per event, a single event one; a snapshot any number. */
    let count: number | undefined = 1;
    try {
      event = readEvent(message.data, this.#classes);
      // A batch: the events one network read made, keys and paths by reference.
      if (Array.isArray(event)) {
        this.#batches.read(event, (events = []));
        // A snapshot's batch is its compacted events: its id says which events it stands for.
        count = message.event === 'snapshot' ? undefined : events.length;
      } else if (message.event === 'snapshot' || snapshotOf(event) !== undefined) {
        // Many events as one (the turn so far, to a client that resumed far behind): its events, in its place.
        expandSnapshot(event, (events = []), this.#maxDepth);
        count = undefined;
      }
    } catch (error) {
      if (error instanceof RelayError) throw new RelayError(error.code, `${error.message}${message.id === undefined ? '' : ` (event ${message.id})`}`, { lastEventId: this.#lastEventId, cause: error.cause });
      throw error;
    }
    if (message.id === undefined) this.#counting = false;
    else {
      this.#count(message.id, count);
      this.#lastEventId = message.id;
    }
    if (events !== undefined) {
      for (const inner of events) this.#out?.push(inner as T);
      return;
    }
    this.#out?.push(event as T);
  }

  /**
   * Check a record's id against the last: ids count one per event, and a record's id is its last
   * event's, so a record of `count` events after id p carries p + count (a snapshot: any id after
   * p). Its events are not delivered otherwise: a page never shows a turn with a hole in it, or a
   * piece twice.
   */
  #count(id: string, count: number | undefined): void {
    if (!this.#counting) return;
    // Another server's ids (not decimal): nothing to count with from here on.
    if (!COUNTED_ID.test(id)) return void (this.#counting = false);
    const n = Number(id);
    const last = this.#position;
    const expected = last === undefined || count === undefined ? undefined : last + count;
    if (last !== undefined && (expected === undefined ? n <= last : n !== expected)) {
      throw new RelayError('out-of-sequence', `event ids out of sequence: ${count ?? 'a snapshot of'} events up to ${id} after event ${last}, ${n > (expected ?? last) ? 'a gap' : 'a step back'}`, { lastEventId: this.#lastEventId });
    }
    this.#position = n;
  }

  #parseError(error: ParseError): void {
    if (error.type === 'max-buffer-size-exceeded') {
      throw new RelayError('max-event-length', `an event grew beyond maxEventLength (${this.#max}) without ending`, { lastEventId: this.#lastEventId, cause: error });
    }
    if (error.type === 'unknown-field') {
      const line = error.line ?? '';
      throw new RelayError('not-sse', `a line that is not an SSE field: "${line.length > 30 ? `${line.slice(0, 30)}…` : line}"`, { lastEventId: this.#lastEventId, cause: error });
    }
    // An invalid `retry:` value: reconnection hints are the application's business.
  }
}

/**
 * Decodes an event stream written by {@link EventStreamEncoder} (bytes or text, cut anywhere)
 * back to the same events: deep-equal to those encoded, errors inside events (a
 * `tool-call-failed` event's `error`) given back as instances of their class with the same fields.
 *
 * - An `event: error` errors the stream with the error it carries, as an instance of its class
 *   (`ProviderError`, `ToolCallArgumentsError`, `ArgumentValidationError`, …; see
 *   `errorClasses`), after every event before it has been read.
 * - Input that ends without the `end` event errors the stream with a {@link RelayError} `incomplete`:
 *   the connection was cut. {@link EventStreamDecoder.lastEventId} says where to resume.
 * - An `event: snapshot` (`data: {"events":[…]}`: the turn so far, sent to a client that resumed
 *   far behind) gives out its events in its place, as if each had come; its id (that of the last
 *   event it stands for) becomes {@link EventStreamDecoder.lastEventId}.
 * - Ids are checked: they count one per event and a record's `id` is its last event's, so a record
 *   that skips events (a gap) or repeats some (a step back) errors the stream with a
 *   {@link RelayError} `out-of-sequence` — its events not delivered, `lastEventId` the last good
 *   one — never a clean end. With the `lastEventId` option, the first record is checked too.
 * - Events from another server decode too: those without `id` count as events (unless named
 *   `end` or `error`), `retry` is ignored, comments (keep-alive) are skipped; ids that are not
 *   decimal, or an event without one, end the checking of ids.
 *
 * @typeParam T - the events the server sends; argstream's {@link PipelineEvent}s by default.
 * @example
 * ```ts
 * const response = await fetch('/api/chat', { method: 'POST', body: JSON.stringify({ prompt }) });
 * const decoder = new EventStreamDecoder();
 * // iterate(): Safari has no `for await` over a ReadableStream.
 * for await (const event of iterate(response.body!.pipeThrough(decoder))) {
 *   if (event.type === 'field-delta' && event.key === 'content') pre.append(event.text);
 * }
 * // On a RelayError with code 'incomplete': fetch again with
 * // headers: { 'last-event-id': decoder.lastEventId } and go on reading.
 * ```
 */
export class EventStreamDecoder<T = PipelineEvent> extends TransformStream<string | Uint8Array, T> {
  readonly #core: EventStreamDecoderCore<T>;

  /** @throws {RangeError} for a `maxEventLength` that is not positive. */
  constructor(options: EventStreamDecoderOptions = {}) {
    const core = new EventStreamDecoderCore<T>(options);
    super(decoderTransformer(core));
    this.#core = core;
  }

  /**
   * The `id` of the last event decoded so far (`undefined` before the first): what to send as
   * `Last-Event-ID` when reconnecting after a cut. When the stream errors with `incomplete`, every
   * event up to this one has been delivered.
   */
  get lastEventId(): string | undefined {
    return this.#core.lastEventId;
  }
}
