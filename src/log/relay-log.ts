/**
 * The two calls of a relay that resumes on any instance: keep a stream in an {@link EventLog}
 * while it is produced, and serve any request — the first one, or a resume with `Last-Event-ID`
 * on another instance — from the log.
 *
 * @module
 */
import { compactEvents } from '../relay/compact.ts';
import { EVENT_STREAM_HEADERS } from '../relay/event-stream-encoder.ts';
import type { PageErrorOptions } from '../relay/error-record.ts';
import { BatchWriter } from '../relay/batch-writer.ts';
import { errorClasses, readEvent, writeError, type ErrorClass } from '../relay/wire.ts';
import type { PipelineEvent } from '../types.ts';
import { checkStreamId, EventLogError, isEventLogError, parseEventId, printable, type EventLog, type LogEntry, type OpenOptions } from './event-log.ts';

/**
 * Options of {@link keepStream}. `onError` and `errorClasses` decide what the stream's error record
 * says to a page (as `EventStreamEncoder`'s options): it is made once, when the stream fails, and
 * every resumer gets the same.
 */
export interface KeepStreamOptions extends OpenOptions, PageErrorOptions {
  /**
   * Where the runtime lets work outlive the response: Cloudflare's `ctx.waitUntil`, Vercel's
   * `waitUntil` (from `@vercel/functions`), Deno Deploy's. It is handed the promise of the whole
   * keeping, so the generation goes on when the first client leaves. On a long-running server
   * (Node, Deno, Bun) nothing is needed.
   */
  readonly waitUntil?: (promise: Promise<unknown>) => void;
}

/** How a kept stream finished. */
export type KeepOutcome =
  | { readonly status: 'ended' }
  /** The source failed (a `ProviderError`, …): readers got the error. */
  | { readonly status: 'failed'; readonly error: unknown }
  /** A stop was requested: the source was cancelled and readers got the `stopped` error. */
  | { readonly status: 'stopped'; readonly error: EventLogError }
  /** The log failed (`unavailable`, `too-large`, `producer-lost`): the source was cancelled. */
  | { readonly status: 'log-failed'; readonly error: EventLogError };

/** A stream being kept: see {@link keepStream}. */
export interface KeptStream {
  readonly streamId: string;
  /** Settles (never rejects) when the stream is finished in the log, or could not be. */
  readonly done: Promise<KeepOutcome>;
}

/** Appends in flight at most before the source is read further. */
const IN_FLIGHT = 256;

/**
 * What {@link keepStream} keeps, made only once the stream is open in the log: a function that
 * starts the provider request and returns its events. `signal` is the producer's
 * (`EventLogProducer.signal`): it aborts on a stop, or when the log fails — pass it to `fetch`, so
 * that a stop also ends a request still waiting for its response headers.
 */
export type KeepStreamSource<T> = (signal: AbortSignal) => ReadableStream<T> | PromiseLike<ReadableStream<T>>;

/**
 * Keep `events` in `log` as the stream `streamId`, while they are produced: every event is
 * appended (ids 1, 2, 3 …), then the end — or the source's error. The keeping does not depend on
 * any client: serve the first response with {@link serveStream} like any resume, and the
 * generation goes on when that client leaves (with `waitUntil` where the runtime stops work
 * after the response). A stop ({@link stopStream}, from any instance) cancels `events` — the
 * provider request — and fails the stream with `EventLogError` `stopped`; so does a log failure
 * (the stream is then failed with it where the log can still be written).
 *
 * Pass `events` as a function ({@link KeepStreamSource}) that makes the provider request: it is
 * called only once the stream is open, so a log that is down (Redis unreachable) costs no
 * provider request — `keepStream` rejects with `unavailable` within the log's command timeout,
 * and the handler answers 503. A function that throws (or whose promise rejects: the provider
 * cannot be reached) fails the stream with that error, as a source that errors does.
 *
 * @param events - the events to keep: a function that starts the provider request and returns any
 * stage's output (`fromResponse(await fetch(…), …)`), or that output itself (the request is made
 * then, whatever the log's state). Read to its end.
 * @returns once the stream is open in the log (its id taken); the provider's response is not
 * waited for.
 * @throws {EventLogError} `invalid-id`, `exists` (a second producer), `unavailable` — answer
 * with {@link eventLogErrorResponse}: 400, 409, 503. `events` is not called then (a stream given
 * is cancelled).
 * @example
 * ```ts
 * const streamId = newStreamId();
 * try {
 *   await keepStream(log, streamId, async (signal) => fromResponse(await fetch(url, { method: 'POST', headers, body, signal }), { provider: 'anthropic' }, new FieldEventStream()), { waitUntil: ctx.waitUntil.bind(ctx) });
 * } catch (error) {
 *   return eventLogErrorResponse(error); // 503 when the log is down: the provider was not asked
 * }
 * return serveStream(log, streamId, request); // the page learns streamId to resume with (a header, its URL)
 * ```
 */
export async function keepStream<T = PipelineEvent>(log: EventLog, streamId: string, events: ReadableStream<T> | KeepStreamSource<T>, options: KeepStreamOptions = {}): Promise<KeptStream> {
  const { waitUntil, onError, errorClasses: classes, ...limits } = options;
  const page: PageErrorOptions = { ...(onError === undefined ? {} : { onError }), ...(classes === undefined ? {} : { errorClasses: classes }) };
  let producer;
  try {
    producer = await log.open(streamId, limits);
  } catch (error) {
    if (typeof events !== 'function') await events.cancel(error).catch(() => {});
    throw error;
  }
  const done = pump(producer, typeof events === 'function' ? start(events, producer.signal) : { stream: events }, page);
  waitUntil?.(done);
  return { streamId, done };
}

/** The source, started: its stream, or why it could not be made. */
type Started<T> = { readonly stream: ReadableStream<T> } | { readonly error: unknown };

/** Call `source` (at once: the provider request starts now), its failure kept as a value. */
function start<T>(source: KeepStreamSource<T>, signal: AbortSignal): Promise<Started<T>> {
  try {
    return Promise.resolve(source(signal)).then(
      (stream) => (stream instanceof ReadableStream ? { stream } : { error: new TypeError(`keepStream: the source function must return a ReadableStream, got ${typeof stream}`) }),
      (error: unknown) => ({ error }),
    );
  } catch (error) {
    return Promise.resolve({ error });
  }
}

type Producer = Awaited<ReturnType<EventLog['open']>>;

/** The outcome of a producer whose signal aborted: a stop, or the log's failure. */
async function aborted(producer: Producer, page: PageErrorOptions): Promise<KeepOutcome> {
  const reason = producer.signal.reason as unknown;
  const error = isEventLogError(reason) ? reason : new EventLogError('stopped', `the stream ${producer.streamId} was stopped`, { cause: reason });
  await producer.fail(error, page).catch(() => {});
  return error.code === 'stopped' ? { status: 'stopped', error } : { status: 'log-failed', error };
}

function logFailed(error: unknown): KeepOutcome {
  return { status: 'log-failed', error: isEventLogError(error) ? error : new EventLogError('unavailable', String(error), { cause: error }) };
}

async function pump<T>(producer: Producer, source: Started<T> | Promise<Started<T>>, page: PageErrorOptions): Promise<KeepOutcome> {
  const signal = producer.signal;
  const started = await source;
  if (!('stream' in started)) {
    // The provider request could not be made (or was stopped before its response).
    if (signal.aborted) return aborted(producer, page);
    try {
      await producer.fail(started.error, page);
      return { status: 'failed', error: started.error };
    } catch (error) {
      return logFailed(error);
    }
  }
  const reader = started.stream.getReader();
  const onAbort = () => {
    reader.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener('abort', onAbort);
  const inFlight: Array<Promise<number>> = [];
  let sourceError: { error: unknown } | undefined;
  try {
    try {
      if (signal.aborted) onAbort();
      for (;;) {
        let result: ReadableStreamReadResult<T>;
        try {
          result = await reader.read();
        } catch (error) {
          sourceError = { error };
          break;
        }
        if (result.done || signal.aborted) break;
        const appended = producer.append(result.value);
        appended.catch(() => {});
        inFlight.push(appended);
        if (inFlight.length >= IN_FLIGHT) await inFlight.shift();
      }
      for (const appended of inFlight) await appended;
    } catch (error) {
      // An append failed: the provider request stops.
      await reader.cancel(error).catch(() => {});
      if (!isEventLogError(error)) {
        // An event the relay cannot write (RelayError invalid-event): readers learn it.
        await producer.fail(error, page).catch(() => {});
        return { status: 'failed', error };
      }
      await producer.fail(error, page).catch(() => {});
      return { status: 'log-failed', error };
    }
    if (signal.aborted) return await aborted(producer, page);
    if (sourceError !== undefined) {
      await producer.fail(sourceError.error, page);
      return { status: 'failed', error: sourceError.error };
    }
    await producer.end();
    return { status: 'ended' };
  } catch (error) {
    return logFailed(error);
  } finally {
    signal.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Options of {@link serveStream}. `onError` chooses the message of an error `serveStream` itself
 * sends while following (the log failed: `EventLogError` `unavailable`, `producer-lost`); a
 * stream's own error record was made when it was kept ({@link KeepStreamOptions}).
 */
export interface ServeStreamOptions extends PageErrorOptions {
  /** Write a `: keep-alive` comment after this many milliseconds without output (as `EventStreamEncoder`'s option). */
  readonly keepAliveMs?: number;
  /**
   * Send the events a client lacks as one `snapshot` event (their `compactEvents`, with the id of
   * the last one) when it lacks more than `snapshotThreshold` of them, or has none (no
   * `Last-Event-ID`, or 0: a new page, a reload) — never for a single event; the events that come
   * after go one by one. As `resumeEventStream`'s option of that name, byte for byte: the client's
   * decoder (`EventStreamDecoder`, `TurnStore`, `collectTurn`) gives out the snapshot's events in
   * its place, so a resume costs what the turn's state weighs, not its history. `false`: every
   * event as it was (for a client that cannot read snapshots).
   * @default true
   */
  readonly snapshot?: boolean;
  /**
   * With `snapshot`: how many events a client that has some may lack before it gets a snapshot.
   * @default 64
   */
  readonly snapshotThreshold?: number;
  /**
   * Your own error classes, by name: to read the events a snapshot compacts (as
   * `EventStreamDecoder`'s option), and those that may go to a page (as `EventStreamEncoder`'s).
   * @default {}
   */
  readonly errorClasses?: Readonly<Record<string, ErrorClass>>;
}

const utf8 = new TextEncoder();

/** The end or error entry as `EventStreamEncoder` writes it. */
function frame(entry: LogEntry): string {
  if (entry.kind === 'end') return 'event: end\ndata: {}\n\n';
  if (entry.kind === 'error') return `event: error\ndata: ${entry.data}\n\n`;
  throw new TypeError('frame: an event entry goes through the batch writer');
}

/** Characters gathered at most in one record of the backlog: as `EventStreamEncoder` gathers them. */
const MAX_RECORD = 65_536;

/**
 * Kept events as `EventStreamEncoder` writes them — batches of compact entries, keys and paths
 * by reference (one writer per response) — up to 64 Ki characters a record (where
 * `EventStreamEncoder` cuts a burst, so that the two write the same bytes), `id:` the last one's.
 */
function eventRecords(writer: BatchWriter, entries: ReadonlyArray<LogEntry & { kind: 'event' }>, classes: ReadonlyMap<string, ErrorClass>, out: string[]): void {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as LogEntry & { kind: 'event' };
    writer.write(readEvent(entry.data, classes));
    if (writer.size >= MAX_RECORD || i === entries.length - 1) out.push(`id: ${entry.id}\ndata: ${writer.take() as string}\n\n`);
  }
}

function errorFrame(error: unknown, options: PageErrorOptions): string {
  return `event: error\ndata: ${writeError(error, options)}\n\n`;
}

/**
 * What a client that has events 1..`after` lacks of `backlog` (events after+1..m) as one snapshot
 * frame, as `resumeEventStream({ snapshot: true })` writes it; `undefined` when it lacks too few.
 */
function snapshotFrame(writer: BatchWriter, after: number, backlog: ReadonlyArray<LogEntry & { kind: 'event' }>, options: ServeStreamOptions): string | undefined {
  if (options.snapshot === false || backlog.length === 0) return undefined;
  const threshold = options.snapshotThreshold ?? 64;
  if (backlog.length <= Math.max(after === 0 ? 1 : threshold, 1)) return undefined;
  const classes = errorClasses(options.errorClasses);
  const events = backlog.map((entry) => readEvent(entry.data, classes) as PipelineEvent);
  const last = backlog[backlog.length - 1] as LogEntry & { kind: 'event' };
  writer.write({ type: 'snapshot', events: compactEvents(events) });
  return `id: ${last.id}\nevent: snapshot\ndata: ${writer.take() as string}\n\n`;
}

/**
 * Check that a log's entry is the event after `last`: any log's (a custom one too), so that a page
 * is never served a turn with a hole in it, or a piece twice, as if it were whole.
 * @throws {EventLogError} `lost`.
 */
function checkNext(streamId: string, last: number, id: number): void {
  if (id === last + 1) return;
  const what = Number.isSafeInteger(id) && id > last ? `skipped from event ${last} to ${id}` : `gave event ${printable(String(id))} after event ${last}`;
  throw new EventLogError('lost', `the log of stream ${streamId} ${what}: its ids are out of sequence`);
}

/**
 * Where a request resumes: its `Last-Event-ID` header, else its `?lastEventId=` query parameter
 * (for `fetch` callers that cannot set headers); 0 when neither.
 * @throws {EventLogError} `invalid-id`.
 */
export function resumeAfter(request: Request): number {
  const header = request.headers.get('last-event-id');
  if (header !== null && header.trim() !== '') return parseEventId(header);
  let query: string | null = null;
  try {
    query = new URL(request.url).searchParams.get('lastEventId');
  } catch {
    // A relative URL (some adapters): no query.
  }
  return parseEventId(query);
}

/** The most characters of an error response's line (`<code>: <message>`). */
const MAX_ERROR_LINE = 500;

/**
 * The answer to an event log error: its status (400, 404, 409, 413, 500, 502, 503) and a short plain
 * text body, `<code>: <message>` — the log's own wording (never its cause's: an address, a
 * command, a key), on one line of at most 500 characters with control characters escaped; 500
 * without details for any other error (its message stays on the server).
 */
export function eventLogErrorResponse(error: unknown): Response {
  const headers = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
  if (error instanceof EventLogError) {
    const line = printable(`${error.code}: ${error.message.replace(/[\r\n]/g, ' ')}`);
    const body = line.length > MAX_ERROR_LINE ? `${line.slice(0, MAX_ERROR_LINE - 1)}…` : line;
    return new Response(`${body}\n`, { status: error.status, headers });
  }
  return new Response('internal error\n', { status: 500, headers });
}

/**
 * Serve stream `streamId` from `log` to `request`: an event stream (`EVENT_STREAM_HEADERS`, the
 * wire format of `EventStreamEncoder`, ids the log's) of the events after the request's
 * `Last-Event-ID` (header, or `?lastEventId=`), each once and in order, then the live tail until
 * the stream's `end` or `error`. The first response is the same call with no id. A resume after
 * the end (within the log's expiry) gets the rest and the end. The first response and any number
 * of resumes concatenate to the stream's events; `EventStreamDecoder` reads them as one.
 *
 * A client that lacks many events (more than `snapshotThreshold`, or all of them) gets those the
 * stream holds when it asks as one `snapshot` event (`compactEvents`), then the rest one by one:
 * what the turn's state weighs, not its history (`snapshot: false` to send each event).
 *
 * A failure before the first byte is an HTTP status with a short body: 400 for a hostile stream
 * id or `Last-Event-ID` (`invalid-id`, checked before the log sees it), 404 for an unknown or
 * expired stream, 503 when the log's backend is down, 500 (`lost`) when the log's ids are out of
 * sequence. A failure while following (the producer died: `producer-lost`; the backend stayed
 * down: `unavailable`; the log skipped or repeated an id, or lost events: `lost`) is a last
 * `event: error` with the `EventLogError`, so the page stops instead of reconnecting forever.
 * Ids are checked whatever the log — one of your own too: each event is the one after the last
 * (after `Last-Event-ID` for the first), or the response ends with `lost`, never as if the turn
 * were whole.
 *
 * Whoever knows a stream id can read it (ids from `newStreamId` are unguessable): check that the
 * caller may read `streamId` — the user's session owns it — before calling this.
 * @example
 * ```ts
 * // GET /api/chat/:id — the first response, or a resume (Last-Event-ID) on any instance
 * if (!(await mayRead(session, id))) return new Response('forbidden', { status: 403 });
 * return serveStream(log, id, request, { keepAliveMs: 15_000 });
 * ```
 */
export async function serveStream(log: EventLog, streamId: string, request: Request, options: ServeStreamOptions = {}): Promise<Response> {
  const keepAliveMs = options.keepAliveMs;
  if (keepAliveMs !== undefined && !(keepAliveMs > 0 && keepAliveMs < 2 ** 31)) {
    throw new RangeError(`serveStream: keepAliveMs must be a positive number of milliseconds, got ${String(keepAliveMs)}`);
  }
  if (options.snapshotThreshold !== undefined && !(options.snapshotThreshold >= 0)) {
    throw new RangeError(`serveStream: snapshotThreshold must be a non-negative number, got ${String(options.snapshotThreshold)}`);
  }
  let after: number;
  const backlog: Array<LogEntry & { kind: 'event' }> = [];
  let terminal: LogEntry | undefined;
  try {
    checkStreamId(streamId);
    after = resumeAfter(request);
    // What the stream holds now: a snapshot may replace it. The 404 / 503 come from here.
    const now = await log.read(streamId, after, { follow: false, signal: request.signal });
    for await (const entry of now) {
      if (entry.kind === 'event') {
        checkNext(streamId, backlog.length > 0 ? (backlog[backlog.length - 1] as LogEntry & { kind: 'event' }).id : after, entry.id);
        backlog.push(entry);
      } else terminal = entry;
    }
  } catch (error) {
    return eventLogErrorResponse(error);
  }

  const frames: string[] = [];
  const classes = errorClasses(options.errorClasses);
  // One writer per response: a key or a path goes to this page once, then by reference.
  let writer = new BatchWriter();
  let snapshot: string | undefined;
  try {
    snapshot = snapshotFrame(writer, after, backlog, options);
  } catch {
    snapshot = undefined; // a compaction that fails sends the events themselves
    writer = new BatchWriter();
  }
  let failed = false;
  if (snapshot !== undefined) frames.push(snapshot);
  else {
    try {
      eventRecords(writer, backlog, classes, frames);
    } catch (error) {
      // Kept data this relay cannot read: the page learns that the stream failed.
      frames.push(errorFrame(error, options));
      failed = true;
    }
  }
  if (terminal !== undefined && !failed) frames.push(frame(terminal));
  let lastId = backlog.length > 0 ? (backlog[backlog.length - 1] as LogEntry & { kind: 'event' }).id : after;

  let tail: AsyncIterator<LogEntry> | undefined;
  let finished = terminal !== undefined || failed;
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let timer: ReturnType<typeof setInterval> | undefined;
  let lastWrite = Date.now();
  const reads = new AbortController();
  const stop = () => {
    finished = true;
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const write = (text: string) => {
    lastWrite = Date.now();
    output.enqueue(utf8.encode(text));
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        output = controller;
        if (keepAliveMs !== undefined) {
          timer = setInterval(() => {
            if (!finished && Date.now() - lastWrite >= keepAliveMs && (output.desiredSize ?? 0) > 0) write(': keep-alive\n\n');
          }, Math.max(10, Math.floor(keepAliveMs / 2)));
        }
      },
      async pull(controller) {
        if (frames.length > 0) {
          // The backlog in chunks of up to 64 KB.
          let text = '';
          while (frames.length > 0 && text.length < 65_536) text += frames.shift() as string;
          write(text);
          if (frames.length === 0 && finished) {
            stop();
            controller.close();
          }
          return;
        }
        if (finished) {
          stop();
          controller.close();
          return;
        }
        try {
          tail ??= await log.read(streamId, lastId, { follow: true, signal: reads.signal });
          const result = await tail.next();
          if (finished) return; // cancelled meanwhile
          if (result.done === true) {
            // The reading was stopped (the client went away): no end to write.
            stop();
            controller.close();
            return;
          }
          const entry = result.value;
          if (entry.kind === 'event') {
            checkNext(streamId, lastId, entry.id);
            lastId = entry.id;
            writer.write(readEvent(entry.data, classes));
            write(`id: ${entry.id}\ndata: ${writer.take() as string}\n\n`);
          } else write(frame(entry));
          if (entry.kind !== 'event') {
            stop();
            controller.close();
            // The log's reader is done with: whatever it holds for it (a follower, a connection) goes now.
            await tail.return?.();
          }
        } catch (error) {
          if (finished) return;
          write(errorFrame(error, options));
          stop();
          controller.close();
        }
      },
      async cancel() {
        stop();
        reads.abort();
        await tail?.return?.();
      },
    },
    { highWaterMark: 16 },
  );
  return new Response(body, { status: 200, headers: EVENT_STREAM_HEADERS });
}

/**
 * Stop the stream `streamId` (a user's stop button), from any instance: its producer cancels the
 * provider request and its readers get `EventLogError` `stopped`. Answers 204, or the status of
 * the error (400, 404, 503). Check that the caller may stop it first.
 */
export async function stopStream(log: EventLog, streamId: string): Promise<Response> {
  try {
    checkStreamId(streamId);
    await log.stop(streamId);
    return new Response(null, { status: 204 });
  } catch (error) {
    return eventLogErrorResponse(error);
  }
}
