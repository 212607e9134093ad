/**
 * The error of the relay stages: a stream that could not be decoded, was cut, or an event that
 * cannot be encoded.
 *
 * @module
 */
import { capMessage } from '../errors.ts';

/** Longest message of a {@link RelayError}: it quotes at most 30 characters of the wire, and is logged. */
const MAX_MESSAGE = 300;

/**
 * Why a relay stage failed.
 *
 * - `incomplete`: the input ended before the encoder's `end` event (or line): the connection was
 *   cut. Reconnect with {@link RelayError.lastEventId}.
 * - `invalid-data`: an event's data is not JSON, or not what the encoder writes.
 * - `not-sse`: a line that is not an SSE field or comment.
 * - `max-event-length`: an event (SSE) or line (NDJSON) grew beyond the decoder's limit.
 * - `after-end`: an event came after the `end` event.
 * - `invalid-event`: an event the encoder cannot write (its type is reserved, it holds a key
 *   `$errors`, a `BigInt`, a cycle).
 * - `invalid-last-event-id`: a `Last-Event-ID` that is not an id the encoder wrote.
 * - `invalid-input`: a chunk that is neither a string nor bytes.
 * - `max-depth`: a relayed path or value nested deeper than the decoder's `maxDepth`.
 */
export type RelayErrorCode =
  | 'incomplete'
  | 'invalid-data'
  | 'not-sse'
  | 'max-event-length'
  | 'after-end'
  | 'invalid-event'
  | 'invalid-last-event-id'
  | 'invalid-input'
  | 'max-depth';

/**
 * A relay stream could not be encoded or decoded, or was cut before its end. The message is at
 * most 300 characters; `lastEventId` is the id as read (whole: it is what a reconnect sends), and
 * goes to a page only when it is at most 256 characters.
 */
export class RelayError extends Error {
  override readonly name = 'RelayError';
  /** What went wrong; see {@link RelayErrorCode}. */
  readonly code: RelayErrorCode;
  /** The id of the last event decoded before the failure (SSE), for reconnecting; `undefined` if none. */
  readonly lastEventId: string | undefined;

  constructor(code: RelayErrorCode, message: string, options?: { lastEventId?: string | undefined; cause?: unknown }) {
    super(capMessage(message, MAX_MESSAGE), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.lastEventId = options?.lastEventId;
  }
}
