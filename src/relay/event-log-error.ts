/**
 * The error of an event log. It lives with the relay, below the logs, so that a page's decoder
 * gives it back as its own class (`instanceof` holds without `errorClasses`); `event-log.ts` and the
 * package's entry export it from here.
 *
 * @module
 */

/**
 * Why an event log operation failed, and what an HTTP handler answers.
 *
 * - `unavailable`: the backend (Redis) cannot be reached, did not answer within its timeout, or
 *   lost data (it restarted without persistence): 503.
 * - `not-found`: no stream has that id — it never existed, or it expired: 404.
 * - `exists`: a producer asked for a stream id that is (or was, within its expiry) in use: 409.
 * - `producer-lost`: the stream's producer stopped renewing its lease before it ended the stream:
 *   its process died (or lost the backend for longer than the lease). Readers get it instead of
 *   waiting forever; a producer whose lease was lost gets it on its next write.
 * - `invalid-id`: a stream id that does not match `STREAM_ID_PATTERN`, or a `Last-Event-ID`
 *   that is not an id of the stream: 400. Checked before any backend command is built.
 * - `too-large`: the stream grew beyond its size limit; it was failed with this error: 413.
 * - `stopped`: the stream was stopped by `EventLog.stop` (a user's stop button): 409.
 * - `lost`: the log does not hold what it acknowledged or gave out: events a producer wrote or a
 *   reader read are missing (a Redis failover that lost writes not yet replicated, a restart
 *   without persistence), or a log gave ids out of sequence (a gap, or a step back). Final: the
 *   stream cannot be served whole again: 500.
 */
export type EventLogErrorCode = 'unavailable' | 'not-found' | 'exists' | 'producer-lost' | 'invalid-id' | 'too-large' | 'stopped' | 'lost';

const STATUS: Readonly<Record<EventLogErrorCode, number>> = {
  unavailable: 503,
  'not-found': 404,
  exists: 409,
  'producer-lost': 502,
  'invalid-id': 400,
  'too-large': 413,
  stopped: 409,
  lost: 500,
};

/** An event log operation failed; {@link EventLogError.code} says why and {@link EventLogError.status} what to answer. */
export class EventLogError extends Error {
  override readonly name = 'EventLogError';
  /** What went wrong; see {@link EventLogErrorCode}. */
  readonly code: EventLogErrorCode;

  constructor(code: EventLogErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** The HTTP status a handler answers with for this error (400, 404, 409, 413, 500, 502, 503). */
  get status(): number {
    return STATUS[this.code];
  }
}

/** Whether `code` is one of {@link EventLogErrorCode}. */
export function isEventLogErrorCode(code: unknown): code is EventLogErrorCode {
  return typeof code === 'string' && Object.hasOwn(STATUS, code);
}

/** Whether `error` is an {@link EventLogError}, by shape too (one written by the relay and decoded on a page has the name and code). */
export function isEventLogError(error: unknown, code?: EventLogErrorCode): error is EventLogError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; code?: unknown };
  return e.name === 'EventLogError' && isEventLogErrorCode(e.code) && (code === undefined || e.code === code);
}
