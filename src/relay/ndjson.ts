/**
 * A relay as newline-delimited JSON: one event a line, for clients that read lines rather than
 * Server-Sent Events (a CLI, a `fetch` in a script, a log).
 *
 * @module
 */
import type { PipelineEvent } from '../types.ts';
import { ChunkText, decoderTransformer, maxEventLength, maxRelayDepth, type DecoderCore, type RelayDecoderOptions } from './relay-decoder.ts';
import { RelayEncoder, type RelayEncoderOptions, type RelayFramer } from './relay-encoder.ts';
import type { PageErrorOptions } from './error-record.ts';
import { RelayError } from '../errors.ts';
import { BatchReader } from './batch-reader.ts';
import { BatchWriter } from './batch-writer.ts';
import { errorClasses, expandSnapshot, readError, readEvent, snapshotOf, writeError, type ErrorClass } from './wire.ts';

/** The response headers of an NDJSON relay: its content type, no caching, no proxy buffering. */
export const NDJSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/x-ndjson; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/** Options of {@link NdjsonEncoder}. */
export type NdjsonEncoderOptions = RelayEncoderOptions;

/** Options of {@link NdjsonDecoder}. */
export type NdjsonDecoderOptions = RelayDecoderOptions;

/** The type of the end and error lines; an event cannot have it. */
function reservedType(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const type = (event as { type?: unknown }).type;
  return type === 'end' || type === 'error' ? type : undefined;
}

/**
 * Encodes events as NDJSON, the events of one network read as one line, one UTF-8 chunk: their
 * batch, as `EventStreamEncoder` writes its `data` (identities once and by number after; a
 * `snapshot`'s events in its place: NDJSON has no ids), then `{"type":"end"}` when the events
 * end, or `{"type":"error","error":{…}}` (its page record) when the stream before errors (then
 * the stream closes normally). With `keepAliveMs`, an idle stream gets empty lines.
 *
 * Events with the type `end` or `error` (none of argstream's) cannot be written: the stream
 * errors with a {@link RelayError} `invalid-event`, and the client gets that error.
 *
 * @typeParam T - the events; argstream's {@link PipelineEvent}s by default.
 * @example
 * ```ts
 * const body = upstream.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
 *   .pipeThrough(new ConversationEventStream({ progress: true }))
 *   .pipeThrough(new NdjsonEncoder());
 * return new Response(body, { headers: NDJSON_HEADERS });
 * ```
 */
export class NdjsonEncoder<T = PipelineEvent> extends RelayEncoder<T> {
  /** @throws {RangeError} for a bad `keepAliveMs`. */
  constructor(options: NdjsonEncoderOptions = {}) {
    super(new NdjsonFramer<T>(), options, 'NdjsonEncoder');
  }
}

/**
 * The NDJSON lines of {@link NdjsonEncoder}. A class, not an object literal: V8 keeps an object
 * literal that has a getter (`size`) in dictionary mode, and every read looks its members up.
 */
class NdjsonFramer<T> implements RelayFramer<T> {
  readonly keepAlive = '\n';
  readonly #writer = new BatchWriter();

  event(event: T): void {
    const reserved = reservedType(event);
    if (reserved !== undefined) {
      throw new RelayError('invalid-event', `NdjsonEncoder: an event of type "${reserved}" cannot be written: the type marks the stream's ${reserved} line`);
    }
    // NDJSON has no ids: a snapshot is its events.
    const snapshot = snapshotOf(event);
    this.#writer.write(snapshot === undefined ? event : { type: 'snapshot', events: snapshot.events });
  }

  take(): string {
    return this.#writer.count === 0 ? '' : `${this.#writer.take() as string}\n`;
  }

  get size(): number {
    return this.#writer.size;
  }

  end(): string {
    return '{"type":"end"}\n';
  }

  error(reason: unknown, options?: PageErrorOptions): string {
    return `{"type":"error","error":${writeError(reason, options)}}\n`;
  }
}

/** The decoding, without a stream. Internal (`TurnStore.consume` reads a body with it). */
export class NdjsonDecoderCore<T> implements DecoderCore<T> {
  readonly #classes: ReadonlyMap<string, ErrorClass>;
  readonly #max: number;
  readonly #text = new ChunkText();
  #line = '';
  #lines = 0;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #closed = false;
  readonly #batches: BatchReader;
  readonly #maxDepth: number;

  constructor(options: NdjsonDecoderOptions) {
    this.#classes = errorClasses(options.errorClasses);
    this.#max = maxEventLength(options, 'NdjsonDecoder');
    this.#maxDepth = maxRelayDepth(options, 'NdjsonDecoder');
    this.#batches = new BatchReader(this.#classes, this.#maxDepth);
  }

  push(chunk: string | Uint8Array, out: T[]): T[] {
    this.#run(() => this.#feed(this.#text.text(chunk, 'NdjsonDecoder'), out));
    return out;
  }

  end(out: T[]): T[] {
    this.#run(() => {
      this.#feed(this.#text.end(), out);
      this.#closed = true;
      if (this.#line !== '') {
        // A last line without its newline is complete only if it is the end line.
        const line = this.#line;
        this.#line = '';
        this.#lineOf(line, out, true);
      }
      if (!this.#ended) {
        throw new RelayError('incomplete', `the NDJSON stream ended without its end line: the connection was cut after ${this.#lines} events`);
      }
    });
    return out;
  }

  #run(step: () => void): void {
    if (this.#failure !== undefined) throw this.#failure.error;
    if (this.#closed) throw new TypeError('NdjsonDecoder: input already ended');
    try {
      step();
    } catch (error) {
      this.#failure = { error };
      throw error;
    }
  }

  #feed(text: string, out: T[]): void {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const line = this.#line + text.slice(start, newline);
      this.#line = '';
      start = newline + 1;
      this.#lineOf(line, out, false);
    }
    this.#line += text.slice(start);
    if (this.#line.length > this.#max) {
      throw new RelayError('max-event-length', `an NDJSON line grew beyond maxEventLength (${this.#max}) without ending`);
    }
  }

  #lineOf(rawLine: string, out: T[], last: boolean): void {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === '') return;
    let event: unknown;
    try {
      event = readEvent(line, this.#classes);
    } catch (error) {
      if (last && error instanceof RelayError && error.code === 'invalid-data') {
        throw new RelayError('incomplete', `the NDJSON stream ended inside a line: the connection was cut after ${this.#lines} events`, { cause: error });
      }
      throw error;
    }
    if (Array.isArray(event)) {
      // A batch: the events one network read made, keys and paths by reference.
      if (this.#ended) throw new RelayError('after-end', 'a line came after the end line');
      if (last) throw new RelayError('incomplete', `the NDJSON stream ended inside a line: the connection was cut after ${this.#lines} events`);
      const before = out.length;
      this.#batches.read(event, out as unknown[]);
      this.#lines += out.length - before;
      return;
    }
    const type = reservedType(event);
    if (type === 'end') {
      this.#ended = true;
      return;
    }
    if (type === 'error') throw readError(JSON.stringify((event as { error?: unknown }).error ?? {}), this.#classes);
    if (this.#ended) throw new RelayError('after-end', 'a line came after the end line');
    if (last) {
      // A whole event without its newline: the cut came right before it.
      throw new RelayError('incomplete', `the NDJSON stream ended inside a line: the connection was cut after ${this.#lines} events`);
    }
    this.#lines++;
    if (snapshotOf(event) !== undefined) {
      // Many events as one: its events, in its place.
      expandSnapshot(event, out, this.#maxDepth);
      return;
    }
    out.push(event as T);
  }
}

/**
 * Decodes NDJSON written by {@link NdjsonEncoder} (bytes or text, cut anywhere) back to the same
 * events: errors inside events given back as instances of their class, a `snapshot` line as the
 * events it holds (in its place), the error line as the
 * error the stream errors with (after every event before it), and input that ends without the end
 * line as a {@link RelayError} `incomplete`. Empty lines (keep-alive) are skipped; `\r\n` line
 * ends are read too.
 *
 * @typeParam T - the events; argstream's {@link PipelineEvent}s by default.
 * @example
 * ```ts
 * const response = await fetch('/api/chat.ndjson', { method: 'POST', body });
 * for await (const event of iterate(response.body!.pipeThrough(new NdjsonDecoder()))) render(event); // iterate(): Safari too
 * ```
 */
export class NdjsonDecoder<T = PipelineEvent> extends TransformStream<string | Uint8Array, T> {
  /** @throws {RangeError} for a `maxEventLength` that is not positive. */
  constructor(options: NdjsonDecoderOptions = {}) {
    super(decoderTransformer(new NdjsonDecoderCore<T>(options)));
  }
}
