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
export type EventStreamDecoderOptions = RelayDecoderOptions;

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
    let snapshot: unknown[] | undefined;
    try {
      event = readEvent(message.data, this.#classes);
      // A batch: the events one network read made, keys and paths by reference.
      if (Array.isArray(event)) this.#batches.read(event, (snapshot = []));
      // Many events as one (the turn so far, to a client that resumed far behind): its events, in its place.
      else if (message.event === 'snapshot' || snapshotOf(event) !== undefined) expandSnapshot(event, (snapshot = []), this.#maxDepth);
    } catch (error) {
      if (error instanceof RelayError) throw new RelayError(error.code, `${error.message}${message.id === undefined ? '' : ` (event ${message.id})`}`, { lastEventId: this.#lastEventId, cause: error.cause });
      throw error;
    }
    if (message.id !== undefined) this.#lastEventId = message.id;
    if (snapshot !== undefined) {
      for (const inner of snapshot) this.#out?.push(inner as T);
      return;
    }
    this.#out?.push(event as T);
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
 * - Events from another server decode too: those without `id` count as events (unless named
 *   `end` or `error`), `retry` is ignored, comments (keep-alive) are skipped.
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
