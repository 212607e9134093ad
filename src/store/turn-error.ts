/**
 * What can end a turn in error, and what can fail a call, in a `TurnSnapshot`.
 *
 * @module
 */
import type { JsonStreamError, ProviderError, RelayError, ToolCallArgumentsError } from '../errors.ts';
import type { TaggedToolCallError } from '../turn/tagged-tool-call-extractor.ts';
import type { ArgumentValidationError } from '../views/argument-validation-core.ts';

/**
 * Why a turn failed (`TurnSnapshot.error`), the error as it came: tell the kinds apart with
 * `instanceof` (their `name` says the class too).
 *
 * - `ProviderError`: the provider's (an error in its stream, its HTTP error read by `decoder`, a
 *   stream cut between two records: code `truncated`), also when it crossed a relay (an
 *   `event: error` gives back the provider's error class);
 * - `RelayError`: a relay that answered an HTTP error, sent what its decoder cannot read, or was cut
 *   before its end (code `incomplete`);
 * - `ToolCallArgumentsError`, `ArgumentValidationError`, `TaggedToolCallError`, `JsonStreamError`:
 *   a stage before the store that errors its stream on bad input (one without `isolateErrors`, a
 *   validation stage that errors on invalid arguments, …);
 * - what the turn builder under the store refuses: two calls with one non-empty id
 *   (`TaggedToolCallError`, code `'duplicate-tool-call-id'`), an event of the wrong shape
 *   (`RelayError`, code `'invalid-data'`), one nested beyond `maxDepth` (`JsonStreamError`, code
 *   `'max-depth'`);
 * - `DOMException` (`AbortError`): reading stopped — a `signal` aborted without a reason of its own,
 *   or a binding whose component went away;
 * - any other `Error`: what a source failed with, as it is (a network `TypeError`, an abort's own
 *   reason, an application's error), or an `Error` whose `cause` is a reason that was not one.
 *
 * The union names the errors argstream makes; the last member keeps it honest about the rest.
 */
export type TurnError =
  | ProviderError
  | RelayError
  | ToolCallArgumentsError
  | ArgumentValidationError
  | TaggedToolCallError
  | JsonStreamError
  | DOMException
  | Error;

/**
 * Why a call failed (`error` of a call whose status is `failed`): its arguments were cut
 * (`IncompleteToolCallError`), were not JSON (`ToolCallArgumentsError`), its schema threw (that
 * error), or the turn failed (its `TurnError`, the same object as the snapshot's `error`).
 */
export type ToolCallError = IncompleteToolCallError | ToolCallArgumentsError | TurnError;

/** A call was cut before its arguments were complete (the stream ended, or the model hit its limit). */
export class IncompleteToolCallError extends Error {
  override readonly name = 'IncompleteToolCallError';
  readonly toolCallId: string;
  readonly toolName: string;
  /** The provider's stop reason, when it said one (`max_tokens`, `length`). */
  readonly stopReason: string | undefined;

  constructor(toolCallId: string, toolName: string, stopReason: string | undefined) {
    super(`the arguments of ${toolName || 'a tool call'}${toolCallId ? ` (${toolCallId})` : ''} were cut off${stopReason ? ` (${stopReason})` : ''}`);
    this.toolCallId = toolCallId;
    this.toolName = toolName;
    this.stopReason = stopReason;
  }
}
