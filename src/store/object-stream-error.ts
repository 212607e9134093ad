/**
 * `ObjectStreamError`: why an `ObjectStore` (and `useObject`) could not read a structured-output
 * response, or why its complete object did not pass the schema.
 *
 * @module
 */
import { capMessage, type JsonStreamErrorCode } from '../errors.ts';
import type { StandardSchemaIssue } from '../views/argument-validation-core.ts';

/**
 * What went wrong, as the `code` of an {@link ObjectStreamError}:
 *
 * - `http-error`: the server answered with a status outside 200–299 (`status`); the message is the
 *   text of its body (what the AI SDK's `useObject` shows), or `the server answered <status>` when
 *   it had none.
 * - `no-body`: a successful response without a body.
 * - `fetch-failed`: the request failed or the body's read did (a network error, a `fetch` that
 *   threw); the error is the `cause`.
 * - `invalid-json`, `unexpected-end` (the body ended before the document did), `max-depth`,
 *   `max-string-length`, `max-length`: the body is not one JSON document within the limits; the
 *   `cause` is the parser's `JsonStreamError` (its `offset`, `path` and `excerpt`).
 * - `max-bytes`: the body grew beyond `maxBytes`; the request was ended.
 * - `invalid-object`: the complete document does not pass the schema (`issues`); given to
 *   `onFinish` only, as the AI SDK gives its validation error there, never in the snapshot's `error`.
 */
export type ObjectStreamErrorCode = 'http-error' | 'no-body' | 'fetch-failed' | 'max-bytes' | 'invalid-object' | Exclude<JsonStreamErrorCode, 'closed'>;

/** The longest message: a server's error body is cut there. */
const MAX_OBJECT_MESSAGE = 1000;

/**
 * A structured-output response could not be read (see {@link ObjectStreamErrorCode}), or its
 * object does not pass the schema. The message is at most 1000 characters.
 */
export class ObjectStreamError extends Error {
  override readonly name = 'ObjectStreamError';
  /** What went wrong; see {@link ObjectStreamErrorCode}. */
  readonly code: ObjectStreamErrorCode;
  /** The HTTP status, for `http-error`. */
  readonly status: number | undefined;
  /** The schema's issues, for `invalid-object` with a Standard Schema. */
  readonly issues: readonly StandardSchemaIssue[] | undefined;

  constructor(code: ObjectStreamErrorCode, message: string, options?: { status?: number; issues?: readonly StandardSchemaIssue[]; cause?: unknown }) {
    super(capMessage(message, MAX_OBJECT_MESSAGE), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options?.status;
    this.issues = options?.issues;
  }
}
