/**
 * The page side of a relay that keeps its turns in an event log: one stream of the turn's events
 * that survives cut connections by itself.
 *
 * @module
 */
import { RelayError } from '../errors.ts';
import type { PipelineEvent } from '../types.ts';
import { EventStreamDecoderCore } from './event-stream-decoder.ts';
import { EventLogError, type EventLogErrorCode } from './event-log-error.ts';
import { NdjsonDecoderCore } from './ndjson.ts';
import type { DecoderCore, RelayDecoderOptions } from './relay-decoder.ts';
import { RetryPolicy, type RetryOptions } from './retry-policy.ts';

/**
 * How {@link readRelay} reconnects: the bounds and waits of {@link RetryOptions} (an attempt
 * brings something new when it brings an event), and the relay's resume URL.
 */
export interface ReadRelayOptions extends RelayDecoderOptions, RetryOptions {
  /**
   * Where a resume goes, given the stream id the first response named in `x-stream-id` (see
   * `streamIdHeader`): a `GET` with `Last-Event-ID`. Return a URL, or a `Request` to set its
   * method and headers yourself (`Last-Event-ID` is added).
   * @default `${url of the first request}/${streamId}` (the README's `/api/chat/<id>`); a first
   * request that is a `GET` (a page reopening a stream it knows: `readRelay('/api/chat/<id>')`)
   * resumes at its own URL, named stream or not
   */
  readonly resumeUrl?: (streamId: string) => string | URL | Request;
  /**
   * The response header that names the stream a resume asks for.
   * @default 'x-stream-id'
   */
  readonly streamIdHeader?: string;
  /**
   * Whether the first request is sent again when it failed before any response (a network error,
   * or a 5xx that named no stream). The model may then have been asked twice: the first request
   * can have reached the server before the connection failed. `false` makes such a failure final.
   * A body given as a `ReadableStream` cannot be sent twice: give a string, bytes or `FormData`.
   * @default true
   */
  readonly retryRequest?: boolean;
  /** Stops reading, and any wait or request, with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What ends the reading for good: the relay's answer cannot change by asking again. */
const FINAL_LOG_ERRORS: ReadonlySet<EventLogErrorCode> = new Set(['not-found', 'producer-lost', 'invalid-id', 'too-large', 'stopped', 'exists', 'lost']);

/**
 * Read a relayed turn that survives cuts: the events of the relay's response to `input`/`init`
 * (an `EventStreamEncoder`'s SSE, as `serveStream` writes it; NDJSON is read but cannot resume),
 * as one stream of pipeline events for `TurnStore.consume`, `useTurn` or a `for await`.
 *
 * On any cut — a network error, a response that ends without its end event (`RelayError`
 * `'incomplete'`), a 5xx, a relay that vanished mid-stream — it asks the stream's resume URL with
 * the id of the last event it has received (every event up to it is already in this stream, read
 * or queued: never one twice, never a gap), after a wait that doubles with jitter. Nothing was
 * received yet: it asks with id 0, and gets the turn so far. It stops, erroring the stream, on an
 * answer that asking again cannot change: the relay's own error (`ProviderError`, …), an event
 * log error that is final (`producer-lost`, `lost`, `not-found`, `stopped`, …, as an `EventLogError`), a
 * 4xx (`RelayError` `'invalid-input'`), or once `maxAttempts` or `maxReconnectMs` ran out
 * (`RelayError` `'incomplete'`, the last failure as `cause`). A network error always surfaces as a
 * `RelayError` `'incomplete'` whose `cause` is the engine's own error (`TypeError: terminated`,
 * `NetworkError when attempting to fetch resource`, …).
 *
 * Cancelling the stream aborts the request in flight.
 *
 * @example
 * ```ts
 * import { readRelay, TurnStore } from 'argstream';
 *
 * const events = readRelay('/api/chat', { method: 'POST', body: JSON.stringify({ prompt }) });
 * const turn = await new TurnStore().consume(events); // or useTurn(events, { tools })
 * ```
 * @throws {RangeError} for a bad option (not a positive number where one is needed).
 */
export function readRelay(input: string | URL | Request, init: RequestInit = {}, options: ReadRelayOptions = {}): ReadableStream<PipelineEvent> {
  const retries = new RetryPolicy(options, 'readRelay');
  const header = options.streamIdHeader ?? 'x-stream-id';
  // The first request as given (a relative URL works in a page); a Request is cloned per attempt.
  const firstHeaders = new Headers(input instanceof Request ? input.headers : init.headers);
  let base: string | undefined;
  // A GET is its own resume (as an EventSource's): asked again at its URL, with Last-Event-ID.
  const reopens = (input instanceof Request ? input.method : (init.method ?? 'GET')).toUpperCase() === 'GET' && options.resumeUrl === undefined;
  const decoderOptions: RelayDecoderOptions = pick(options);

  let controller = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let core: DecoderCore<PipelineEvent> | undefined;
  let sse: EventStreamDecoderCore<PipelineEvent> | undefined;
  let streamId: string | undefined;
  let lastId: string | undefined;
  let resumable = true;
  let cancelled = false;
  let received = false;
  let failure: { error: unknown } | undefined;
  const out: PipelineEvent[] = [];

  const abortWith = (reason: unknown): void => {
    cancelled = true;
    controller.abort(reason);
    retries.interrupt();
  };
  options.signal?.addEventListener('abort', () => abortWith(options.signal?.reason), { once: true });

  /** Open the first response, or a resume; throws what failed. */
  const open = async (): Promise<void> => {
    if (options.signal?.aborted === true) throw options.signal.reason;
    controller = new AbortController();
    let response: Response;
    try {
      if (reopens ? lastId === undefined : streamId === undefined) response = await fetch(input instanceof Request ? input.clone() : input, { ...init, signal: controller.signal });
      else {
        const first = base ?? String(input instanceof Request ? input.url : input);
        const target = reopens ? first : (options.resumeUrl?.(streamId as string) ?? `${first.replace(/\/+$/, '')}/${encodeURIComponent(streamId as string)}`);
        const headers = new Headers(target instanceof Request ? target.headers : firstHeaders);
        headers.delete('content-type');
        headers.delete('content-length');
        headers.set('last-event-id', lastId ?? '0');
        response = await fetch(
          target instanceof Request ? new Request(target, { headers }) : target,
          target instanceof Request ? { signal: controller.signal } : { method: 'GET', headers, cache: 'no-store', signal: controller.signal, ...(init.credentials === undefined ? {} : { credentials: init.credentials }) },
        );
      }
    } catch (error) {
      throw cancelled ? error : networkError(error, lastId);
    }
    // Where the first answer came from, absolute: the resume URL's base.
    if (streamId === undefined && response.url !== '') base = response.url;
    streamId ??= response.headers.get(header) ?? undefined;
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw statusError(response, text, lastId);
    }
    if (response.body === null) throw new RelayError('invalid-input', 'the relay response has no body', { lastEventId: lastId });
    const type = response.headers.get('content-type') ?? '';
    if (/ndjson|jsonl|json-seq/i.test(type)) {
      resumable = false;
      core = new NdjsonDecoderCore<PipelineEvent>(decoderOptions);
      sse = undefined;
    } else {
      // Where this response starts: its first record is checked to continue what the page has.
      sse = new EventStreamDecoderCore<PipelineEvent>({ ...decoderOptions, lastEventId: lastId });
      core = sse;
    }
    reader = response.body.getReader();
  };

  /** Whether `error` ends the reading for good, whatever the attempts left. */
  const isFinal = (error: unknown): boolean => {
    if (cancelled) return true;
    if (error instanceof RetryableStatus) return false;
    if (error instanceof EventLogError) return FINAL_LOG_ERRORS.has(error.code);
    if (error instanceof RelayError) return error.code !== 'incomplete';
    return true; // the relay's own error (a ProviderError, …): asking again gives it again
  };

  /** Wait before the next attempt, or throw why there is none. */
  const backoff = async (error: unknown): Promise<void> => {
    // Without a stream id, only a request that brought nothing can be sent again (else events twice).
    const canAsk = reopens || streamId !== undefined ? resumable : options.retryRequest !== false && !received;
    if (isFinal(error) || !canAsk) throw unwrap(error);
    const step = retries.next(unwrap(error));
    if ('exhausted' in step) {
      const { attempts, elapsedMs } = step.exhausted;
      throw new RelayError('incomplete', `the relay could not be reached again: ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} in ${elapsedMs} ms`, { lastEventId: lastId, cause: unwrap(error) });
    }
    await retries.sleep(step.delayMs);
    if (cancelled) throw options.signal?.reason ?? new DOMException('the read was cancelled', 'AbortError');
  };

  /** Read until some events are ready, reconnecting as needed. */
  const fill = async (): Promise<'events' | 'done'> => {
    for (;;) {
      try {
        if (reader === undefined) await open();
        const { done, value } = await (reader as ReadableStreamDefaultReader<Uint8Array>).read().catch((error: unknown) => {
          throw cancelled ? error : networkError(error, lastId);
        });
        if (done) (core as DecoderCore<PipelineEvent>).end(out);
        else (core as DecoderCore<PipelineEvent>).push(value, out);
        if (sse !== undefined && sse.lastEventId !== undefined) lastId = sse.lastEventId;
        if (out.length > 0) {
          received = true;
          retries.progress();
        }
        if (done) return 'done';
        if (out.length > 0) return 'events';
      } catch (error) {
        // What the decoder made before the failure is the turn's: it goes out, the failure after.
        if (sse !== undefined && sse.lastEventId !== undefined) lastId = sse.lastEventId;
        const previous = reader;
        reader = undefined;
        core = undefined;
        sse = undefined;
        previous?.cancel().catch(() => undefined);
        controller.abort();
        if (out.length > 0) {
          received = true;
          retries.progress();
        }
        await backoff(error);
      }
    }
  };

  return new ReadableStream<PipelineEvent>(
    {
      async pull(stream) {
        if (failure !== undefined) throw failure.error;
        let state: 'events' | 'done' | undefined;
        try {
          state = await fill();
        } catch (error) {
          failure = { error };
        }
        const events = out.splice(0);
        for (const event of events) stream.enqueue(event);
        // Events decoded before a failure are the turn's: read first, the failure at the next pull.
        if (failure !== undefined && events.length === 0) throw failure.error;
        if (state === 'done') stream.close();
      },
      cancel(reason) {
        abortWith(reason);
        const previous = reader;
        reader = undefined;
        return previous?.cancel(reason).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** A status that may be worth asking again: 5xx (and 408, 425, 429). */
class RetryableStatus extends Error {
  readonly named: boolean;
  constructor(message: string, named: boolean, cause: unknown) {
    super(message, { cause });
    this.named = named;
  }
}

function statusError(response: Response, text: string, lastId: string | undefined): Error {
  const line = text.split('\n', 1)[0] ?? '';
  const colon = line.indexOf(':');
  const code = colon > 0 ? line.slice(0, colon) : '';
  // The log's own answer (`eventLogErrorResponse`: `<code>: <message>`), as its class.
  if (isLogCode(code)) {
    const error = new EventLogError(code, line.slice(colon + 1).trim().slice(0, 300));
    if (!FINAL_LOG_ERRORS.has(code)) return new RetryableStatus(`the relay answered ${response.status}`, false, error);
    return error;
  }
  const status = `the relay answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  if (response.status >= 500 || response.status === 408 || response.status === 425 || response.status === 429) {
    return new RetryableStatus(status, response.headers.has('x-stream-id'), new RelayError('incomplete', status, { lastEventId: lastId }));
  }
  return new RelayError('invalid-input', status, { lastEventId: lastId });
}

const LOG_CODES: ReadonlySet<string> = new Set<EventLogErrorCode>(['unavailable', 'not-found', 'exists', 'producer-lost', 'invalid-id', 'too-large', 'stopped', 'lost']);
function isLogCode(code: string): code is EventLogErrorCode {
  return LOG_CODES.has(code);
}

/** The error a page sees for what a retryable status stood for. */
function unwrap(error: unknown): unknown {
  return error instanceof RetryableStatus ? error.cause : error;
}

function networkError(error: unknown, lastId: string | undefined): unknown {
  if (error instanceof RelayError || error instanceof EventLogError) return error;
  if (error instanceof DOMException && error.name === 'AbortError') return error;
  return new RelayError('incomplete', `the connection to the relay failed${lastId === undefined ? '' : ` after event ${lastId}`}`, { lastEventId: lastId, cause: error });
}

function pick(options: ReadRelayOptions): RelayDecoderOptions {
  const picked: { -readonly [K in keyof RelayDecoderOptions]: RelayDecoderOptions[K] } = {};
  if (options.errorClasses !== undefined) picked.errorClasses = options.errorClasses;
  if (options.maxEventLength !== undefined) picked.maxEventLength = options.maxEventLength;
  if (options.maxDepth !== undefined) picked.maxDepth = options.maxDepth;
  return picked;
}
