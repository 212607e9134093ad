/**
 * What a provider's decoding does once a record is framed: the record through one adapter, the
 * checks of the turn's end, with no framing and no table of providers. `ProviderEventDecoder`
 * frames a provider's wire format into records for it; a reader that frames records itself (the
 * AI SDK chat transport) uses it alone and bundles one adapter. Internal.
 *
 * @module
 */
import { ProviderError, type ProviderName, excerpt } from '../errors.ts';
import type { StreamEvent } from '../types.ts';
import type { ProviderAdapter } from './adapter.ts';
import { isRecord } from './json-access.ts';

/**
 * Why a stream was refused before any provider semantics: the `code` of a `ProviderError` whose
 * `type` is `'invalid-stream'`.
 *
 * - `not-json`: a record (SSE `data`, NDJSON line, frame payload) is not JSON.
 * - `not-sse`: a line that is not an SSE field or comment, or text with no SSE event at all (an
 *   HTML error page served with status 200, a proxy's response), or a complete non-streaming
 *   response (a request without `stream: true`).
 * - `truncated`: the input ended inside an SSE event, an NDJSON line, a JSON array or an AWS
 *   frame; or it ended cleanly between two records, after some records but before the provider's
 *   terminal one (see {@link ProviderEventDecoder.end}): a proxy or the network cut the turn.
 * - `max-buffered-bytes`: see {@link ProviderEventStreamOptions.maxBufferedBytes}.
 * - `crc-mismatch`, `invalid-frame`: a corrupt AWS event-stream frame.
 * - `invalid-input`: a chunk of the wrong kind (text for Bedrock, text or bytes for `'ai-sdk'` and `'langchain'`,
 *   `null`, a number).
 */
export type InvalidStreamCode =
  | 'not-json'
  | 'not-sse'
  | 'truncated'
  | 'max-buffered-bytes'
  | 'crc-mismatch'
  | 'invalid-frame'
  | 'invalid-input';

/** What becomes of each event an adapter makes: appended to `out`, as it is or changed. */
export type EventConversion = (event: StreamEvent, out: StreamEvent[]) => void;

/**
 * Records in (decoded objects), {@link StreamEvent}s out, through one provider's adapter. An
 * error is sticky: every later call throws it again.
 */
export class AdapterDecoder {
  readonly provider: ProviderName;
  readonly #adapter: ProviderAdapter;
  /** What ends the provider's stream, for the message of a stream cut before it. */
  readonly #terminal: string;
  /** Where each event goes: `out`, or through a conversion (`ProviderEventStream`'s `structuredOutput`). */
  readonly #convert: EventConversion | undefined;
  /** How many records were read. */
  records = 0;
  /** The input said it is complete: `[DONE]`. */
  done = false;
  /** The adapter emitted `finished`: the provider's terminal record arrived. */
  #finished = false;
  /** What the last record was (its event name or `type`), for the message of a truncation. */
  #lastRecord: string | undefined;
  /** The terminal record (its type, or `[DONE]`) once it arrived: nothing of the turn comes after it. */
  endRecord: string | undefined;
  /** Where the events of the call at hand go. */
  #out: StreamEvent[] | undefined;
  #failure: unknown;
  #closed = false;

  constructor(provider: ProviderName, adapter: ProviderAdapter, terminal: string, convert?: EventConversion) {
    this.provider = provider;
    this.#adapter = adapter;
    this.#terminal = terminal;
    this.#convert = convert;
  }

  /** One record (an object already decoded); appends what it makes to `out` (returned). */
  push(record: object, out: StreamEvent[] = []): StreamEvent[] {
    this.run(out, this.#pushRecord, record);
    return out;
  }

  /** {@link push}'s step, made once (not a closure per record). */
  readonly #pushRecord = (record: object): void => {
    this.records++;
    this.record(record);
  };

  /** The input ended: the adapter flushes what is open, and a stream cut before its end throws. */
  end(out: StreamEvent[] = []): StreamEvent[] {
    this.run(
      out,
      () => {
        this.finish();
        this.#closed = true;
      },
      undefined,
    );
    return out;
  }

  /** Run `step(arg)` with `out` as the output; what it throws is thrown by every later call. */
  run<A>(out: StreamEvent[], step: (arg: A) => void, arg: A): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#closed) throw new TypeError('ProviderEventDecoder: input already ended');
    this.#out = out;
    try {
      step(arg);
    } catch (error) {
      this.#failure = error;
      throw error;
    } finally {
      this.#out = undefined;
    }
  }

  /** Mark the input ended (after `step` of {@link run}): later calls throw. */
  close(): void {
    this.#closed = true;
  }

  /**
   * One record to the adapter (not counted: the framing counts what it reads).
   * @throws {ProviderError} type `'invalid-format'` for a record that is not a JSON object (every
   * provider's records are; only an `error` event's data may be a bare message, its adapter's to read).
   */
  record(record: unknown, event?: string): void {
    // LangChain's stream parts are tuples too (`[chunk, metadata]`): its adapter reads arrays.
    if (!isRecord(record) && event !== 'error' && !(this.provider === 'langchain' && Array.isArray(record))) {
      const kind = record === null ? 'null' : Array.isArray(record) ? 'an array' : `a ${typeof record}`;
      throw new ProviderError(this.provider, 'invalid-format', `${this.provider}: expected a record object, got ${kind}`, { cause: record });
    }
    this.#lastRecord = event ?? recordType(record);
    const events = this.#adapter.push(record, event);
    if (this.endRecord !== undefined && events.length > 0) {
      // Content or a call after the terminal record: the turn was over (see ProviderAdapter.ended).
      throw new ProviderError(
        this.provider,
        'after-end',
        `${this.provider}: ${this.#lastRecord === undefined ? 'a record' : `a "${excerpt(this.#lastRecord)}" record`} came after the end of the stream ("${excerpt(this.endRecord)}"); nothing is added to a finished turn`,
        { cause: record },
      );
    }
    for (const streamEvent of events) this.#emit(streamEvent);
    if (this.endRecord === undefined && this.#adapter.ended?.() === true) this.endRecord = this.#lastRecord ?? 'its terminal record';
  }

  /**
   * The adapter flushes its open slots (marked `endOfInput`); a stream that had records but whose
   * terminal record never came throws `'truncated'`, after them.
   */
  finish(): void {
    for (const event of this.#adapter.end()) {
      // A slot the provider never closed is flushed here, at the end of input: say so, so that a
      // call cut before its first argument byte is not taken for a call without arguments.
      // An adapter that knows says it itself (LangGraph's messages end with its stream: `false`).
      const said = event.type === 'flush' && event.metadata?.['endOfInput'] !== undefined;
      this.#emit(event.type === 'flush' && !said ? { ...event, metadata: { ...event.metadata, endOfInput: true } } : event);
    }
    if (this.records > 0 && !this.done && !(this.#adapter.complete?.() ?? this.#finished)) {
      const count = `${this.records} record${this.records === 1 ? '' : 's'}`;
      throw this.invalid(
        'truncated',
        `the stream ended before ${this.#terminal}: it was cut between two records (after ${count}, the last ${this.#lastRecord === undefined ? 'one without a type' : `"${excerpt(this.#lastRecord)}"`}), so the turn is incomplete`,
      );
    }
  }

  /** Append an adapter's event (converted, if there is a conversion). */
  #emit(event: StreamEvent): void {
    if (event.type === 'finished') this.#finished = true;
    const out = this.#out;
    if (out === undefined) return;
    if (this.#convert === undefined) out.push(event);
    else this.#convert(event, out);
  }

  /** A `ProviderError` of type `'invalid-stream'` with `code`. */
  invalid(code: InvalidStreamCode, message: string, cause?: unknown): ProviderError {
    return new ProviderError(this.provider, 'invalid-stream', `${this.provider}: ${message}`, { code, cause });
  }
}

/**
 * A record's kind for a message: its `type` (or an OpenAI Chat chunk's `object`), an Ollama
 * line's `done: false`, an AWS SDK event object's one member, else its first members' names.
 */
function recordType(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const { type, object, done } = record as { type?: unknown; object?: unknown; done?: unknown };
  if (typeof type === 'string') return type;
  if (typeof object === 'string') return object;
  if (done === false) return '{"done": false, …}';
  const keys = Object.keys(record);
  if (keys.length === 1) return keys[0];
  return keys.length === 0 ? undefined : `{${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''}}`;
}
