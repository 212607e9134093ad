/**
 * The vocabulary shared by every stage: JSON values, the recursive fragments of the incremental
 * parser (RFD 043), the typed streaming events of the provider adapters (RFD 012), the
 * conversation events of a finished turn, and the events of the views (field events, path
 * updates, raw argument deltas, validation errors). Every layer reads it; it imports nothing.
 *
 * @module
 */

/** A JSON value, as `JSON.parse` returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object, as `JSON.parse` returns it. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The value of a `scalar` fragment. */
export type JsonScalar = null | boolean | number;

/** What a `start` fragment opens. */
export type ValueKind = 'object' | 'array' | 'string';

/**
 * One fragment of an incrementally parsed JSON document (RFD 043, with `start` added).
 *
 * Nesting encodes the path from the root to the leaf: `entry` for an object member, `item` for an
 * array element. Every value ends with a `done` at its path; a scalar is one `scalar` fragment
 * followed by `done`.
 */
export type StreamFragment =
  | StartFragment
  | StringFragment
  | ScalarFragment
  | EntryFragment
  | ItemFragment
  | DoneFragment;

/** An object, array or string value begins at this path. */
export interface StartFragment {
  readonly type: 'start';
  readonly kind: ValueKind;
}

/** A piece of decoded string data (escapes resolved, never empty, never half a surrogate pair). */
export interface StringFragment {
  readonly type: 'string';
  readonly text: string;
}

/** A complete `null`, boolean or number. */
export interface ScalarFragment {
  readonly type: 'scalar';
  readonly value: JsonScalar;
  /** The literal as written, for numbers (so integers beyond 2^53 are not lost). */
  readonly raw?: string;
}

/** A fragment inside the object member `key` (the key is complete and decoded). */
export interface EntryFragment {
  readonly type: 'entry';
  readonly key: string;
  readonly value: StreamFragment;
}

/** A fragment inside the array element at `index`. */
export interface ItemFragment {
  readonly type: 'item';
  readonly index: number;
  readonly value: StreamFragment;
}

/** The value at this path is complete. */
export interface DoneFragment {
  readonly type: 'done';
}

// ---------------------------------------------------------------------------------------------
// Streaming events (RFD 012)

/**
 * A chunk of streamed content for one content slot.
 *
 * - `refusal`: text of a refusal the provider sends apart from the message (OpenAI's
 *   `refusal`); its slot becomes a `refusal` event.
 * - `tool-call-start` with `providerExecuted: true`: a call the provider runs itself (Anthropic
 *   `server_tool_use`, a Responses `web_search_call`, …). Its arguments stream like any call's,
 *   and its slot becomes a `provider-tool-call` event, never a `tool-call`.
 * - `provider-tool-result`: the result of a provider-run call, sent whole; its slot becomes a
 *   `provider-tool-result` event.
 */
export type EventPart =
  | { readonly type: 'message'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'refusal'; readonly text: string }
  | { readonly type: 'structured'; readonly json: string }
  | ToolCallStartPart
  | { readonly type: 'tool-call-arguments'; readonly chunk: string }
  | ProviderToolResultPart;

/** A tool call's identity, as far as it is known. */
export interface ToolCallStartPart {
  readonly type: 'tool-call-start';
  readonly toolCallId: string;
  readonly toolName: string;
  /** The provider runs this call itself: it is not the application's to run. */
  readonly providerExecuted?: true;
}

/** The whole result of a call the provider ran (a web search's results, code execution output). */
export interface ProviderToolResultPart {
  readonly type: 'provider-tool-result';
  /** The id of the provider-run call this is the result of. */
  readonly toolCallId: string;
  /** The call's tool name, where the provider says it. */
  readonly toolName?: string;
  /** The result as the provider sent it (a result block's `content`, a hosted item's outputs). */
  readonly result: JsonValue;
  /** The provider reports the call failed. */
  readonly isError?: true;
}

/** Provider metadata attached to a part or a flush (reasoning signatures, item ids, …). */
export type EventMetadata = Readonly<Record<string, unknown>>;

/**
 * Normalized reason a response ended. `refusal`: the provider's stop reason says the model
 * declined (Anthropic `stop_reason: "refusal"`); a refusal sent as text (OpenAI's `refusal`) ends
 * with the provider's own reason, usually `stop`, and shows as a `refusal` event.
 */
export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'refusal' | 'error' | 'other';

/** Token usage, as far as the provider reports it. */
export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
  readonly reasoningTokens?: number;
  readonly cachedInputTokens?: number;
  /** The provider's own usage object, untouched. */
  readonly raw?: unknown;
}

/** Streaming data for content slot `index`, accumulated until its `flush`. */
export interface PartEvent {
  readonly type: 'part';
  readonly index: number;
  readonly part: EventPart;
  readonly metadata?: EventMetadata;
}

/** Content slot `index` is complete. */
export interface FlushEvent {
  readonly type: 'flush';
  readonly index: number;
  readonly metadata?: EventMetadata;
}

/**
 * The OpenAI Responses stream skipped from `expected - 1` to `received` in its `sequence_number`:
 * events `expected` to `received - 1` never arrived (a proxy dropped them). The adapter
 * recovered what they carried from the `.done` events, `output_item.done` and the terminal
 * event's `output` (the turn's texts and arguments are whole); had it not been able to, the
 * stream would have errored instead.
 */
export interface SequenceGapWarning {
  readonly type: 'sequence-gap';
  /** The `sequence_number` that was due. */
  readonly expected: number;
  /** The `sequence_number` that came instead. */
  readonly received: number;
}

/**
 * Something a stream got over without losing anything of the turn, but that its consumer may
 * want to log or show (a flaky proxy). Carried by the `finished` event and by the turn that
 * `collectTurn` returns.
 */
export type StreamWarning = SequenceGapWarning;

/** The response is complete. */
export interface FinishedEvent {
  readonly type: 'finished';
  readonly reason: FinishReason;
  /** The provider's own stop/finish reason, e.g. `"tool_use"` or `"MAX_TOKENS"`. */
  readonly rawReason?: string;
  readonly usage?: Usage;
  /** What went wrong on the way and was recovered from, in the order it happened; absent when nothing did. */
  readonly warnings?: readonly StreamWarning[];
  readonly metadata?: EventMetadata;
}

/** What a provider adapter emits. */
export type StreamEvent = PartEvent | FlushEvent | FinishedEvent;

/** The fragments of one tool call's arguments, with the call's identity (ephemeral). */
export interface ToolCallArgumentProgress {
  readonly type: 'tool-call-progress';
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /** The call is run by the provider (see {@link ProviderToolCallEvent}). */
  readonly providerExecuted?: true;
  readonly fragment: StreamFragment;
}

/** The fragments of a structured-output document, with its content slot (ephemeral). */
export interface StructuredProgress {
  readonly type: 'structured-progress';
  readonly index: number;
  readonly fragment: StreamFragment;
}

// ---------------------------------------------------------------------------------------------
// Conversation events (what a finished content slot becomes)

/** A complete assistant message. */
export interface AssistantMessageEvent {
  readonly type: 'message';
  readonly index: number;
  readonly text: string;
  readonly metadata?: EventMetadata;
}

/** Complete reasoning, with the provider's signature where it sends one. */
export interface ReasoningEvent {
  readonly type: 'reasoning';
  readonly index: number;
  readonly text: string;
  readonly signature?: string;
  readonly metadata?: EventMetadata;
}

/**
 * A complete refusal: the model declined, and the provider sent why as text of its own (OpenAI's
 * `refusal`). Not part of the turn's message text.
 */
export interface RefusalEvent {
  readonly type: 'refusal';
  readonly index: number;
  readonly text: string;
  readonly metadata?: EventMetadata;
}

/** A complete structured-output document. */
export interface StructuredEvent {
  readonly type: 'structured';
  readonly index: number;
  readonly data: JsonValue;
  readonly metadata?: EventMetadata;
}

/**
 * A tool call whose arguments are a complete JSON document — or, only when the caller asked for
 * `repair`, a truncated one closed where it stopped (`truncated: true`: do not execute it
 * blindly).
 */
export interface ToolCallEvent extends CompleteToolCall {
  readonly type: 'tool-call';
}

/** What the event of a call with complete arguments holds, whoever runs the call. */
export interface CompleteToolCall {
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly arguments: JsonValue;
  /** Only with `repair`: the arguments were cut and closed where they stopped. */
  readonly truncated?: true;
  readonly metadata?: EventMetadata;
}

/**
 * A call the provider ran itself (a web search, code execution, an MCP call), with complete
 * arguments: shown for what the model did, never run by the application. Its result, where the
 * stream carries it, is a {@link ProviderToolResultEvent} with the same `toolCallId`.
 */
export interface ProviderToolCallEvent extends CompleteToolCall {
  readonly type: 'provider-tool-call';
}

/** The result of a call the provider ran, as the stream carried it. */
export interface ProviderToolResultEvent {
  readonly type: 'provider-tool-result';
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName?: string;
  readonly result: JsonValue;
  readonly isError?: true;
  readonly metadata?: EventMetadata;
}

/**
 * A tool call whose arguments stopped before their JSON document was complete. With
 * `providerExecuted: true` it is a call the provider runs (cut, so its arguments are partial).
 */
export interface IncompleteToolCallEvent {
  readonly type: 'tool-call-incomplete';
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /** The call is run by the provider, not the application. */
  readonly providerExecuted?: true;
  /** What had arrived, as a snapshot (partial strings, open containers); `undefined` if nothing. */
  readonly partialArguments: JsonValue | undefined;
  /** JSON Pointer of the value that was open when the arguments stopped. */
  readonly path: string;
  /** The provider's stop reason (e.g. `max_tokens`, `length`), if the stream said one. */
  readonly stopReason: string | undefined;
  readonly metadata?: EventMetadata;
}

/**
 * A tool call whose arguments were not valid JSON (reported when errors are isolated). With
 * `providerExecuted: true` it is a call the provider runs.
 */
export interface FailedToolCallEvent {
  readonly type: 'tool-call-failed';
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /** The call is run by the provider, not the application. */
  readonly providerExecuted?: true;
  readonly error: Error;
  readonly metadata?: EventMetadata;
}

/** What a content slot becomes when it is flushed. */
export type ConversationEvent =
  | AssistantMessageEvent
  | ReasoningEvent
  | RefusalEvent
  | StructuredEvent
  | ToolCallEvent
  | ProviderToolCallEvent
  | ProviderToolResultEvent
  | IncompleteToolCallEvent
  | FailedToolCallEvent;

// ---------------------------------------------------------------------------------------------
// The views of a streaming tool call: field events (axio's ToolArgStream), path updates (the
// JsonFragment protocol), raw argument deltas (the streaming tool-call event) and validation
// errors. Their cores are in views/; the events are here because every stage and sink after a
// view reads them, and the turn builder reads the raw deltas.

/**
 * The identity of the tool call (or structured-output slot) a field event belongs to: present
 * when the field events were made from `tool-call-progress` (or `structured-progress`) events,
 * absent when they were made from plain fragments.
 */
export interface FieldEventSource {
  /** The content slot. */
  readonly index?: number;
  readonly toolCallId?: string;
  readonly toolName?: string;
}

/** A top-level member's key is complete; its value begins. */
export interface FieldStartEvent extends FieldEventSource {
  readonly type: 'field-start';
  /** The member's decoded key; `''` for a root that is not an object. */
  readonly key: string;
  /**
   * The value is a string, so the field's deltas are decoded text. Said by `FieldEventStream` (and
   * `FieldEventParser.pushFragment`), where a field starts with its value's first fragment; a
   * `FieldEventParser` fed text announces a field at its key, before the value begins, and never
   * says it: `field-end` does.
   */
  readonly string?: true;
}

/**
 * A piece of a top-level member's value: decoded text for a string (no quotes, escapes
 * resolved), JSON text for any other value. The deltas of one field concatenate to the string,
 * or to JSON text that parses to the value.
 */
export interface FieldDeltaEvent extends FieldEventSource {
  readonly type: 'field-delta';
  readonly key: string;
  /** Never empty. */
  readonly text: string;
}

/** A top-level member's value is complete. */
export interface FieldEndEvent extends FieldEventSource {
  readonly type: 'field-end';
  readonly key: string;
  /** True when the value was a string (its deltas are decoded text, not JSON). */
  readonly string: boolean;
}

/** Field-level events for the top-level members of a document. */
export type FieldEvent = FieldStartEvent | FieldDeltaEvent | FieldEndEvent;

/**
 * A raw argument delta of a tool call, exactly as the provider sent it (never repaired), or the
 * call's completion (`isComplete: true`, `argumentsDelta: ''`). The `argumentsDelta`s of one call
 * concatenate to its raw argument text.
 */
export interface StreamingToolCallEvent {
  readonly type: 'streaming-tool-call';
  /** The content slot of the call. */
  readonly index: number;
  /** The call id as known so far (`''` until the provider sends it). */
  readonly toolCallId: string;
  /** The tool name as known so far (`''` until the provider sends it). */
  readonly toolName: string;
  /** The call is run by the provider, not the application (its start part said so). */
  readonly providerExecuted?: true;
  /** This delta of the raw argument text (`''` on a start or completion event). */
  readonly argumentsDelta: string;
  /** True on the one final event of the call, at its flush. */
  readonly isComplete: boolean;
  /** The message the call belongs to, when the stage was given one. */
  readonly messageId?: string;
  /** The provider metadata of the parts this event replaced (a call's `caller`, item ids, …). */
  readonly metadata?: EventMetadata;
}

/** What a {@link PathUpdate} says happened at its `path`. */
export type PathUpdateKind = PathUpdate['kind'];

/**
 * Fields every path update has. Updates are plain JSON objects: `JSON.parse(JSON.stringify(u))`
 * gives an update that rebuilds the same value (numbers through `raw`, so `-0` and integers
 * beyond 2^53 survive).
 */
export interface PathUpdateBase {
  readonly type: 'path-update';
  /**
   * JSON Pointer (RFC 6901) of the value concerned: `""` is the root, `/files/0/path` the `path`
   * member of the first element of `files`; `~` is written `~0` and `/` is written `~1`. By
   * default it is relative to the previous update's path when the two share their first step (it
   * then begins with a digit: see `PathUpdateEncoderOptions.relativePaths`);
   * `relativePaths: false` makes every path absolute.
   */
  readonly path: string;
  /** The tool call's id, when the update was made from a `tool-call-progress` event (may be `""`). */
  readonly toolCallId?: string;
  /**
   * The content slot, when the update was made from a `tool-call-progress` (the tool call's) or a
   * `structured-progress` event (the structured-output document's).
   */
  readonly index?: number;
  /** The update is of a structured-output document (made from a `structured-progress` event). */
  readonly structured?: true;
}

/** A container or string begins (`start-*`) or a container ends (`end-*`) at `path`. */
export interface PathUpdateMark extends PathUpdateBase {
  readonly kind: 'start-object' | 'end-object' | 'start-array' | 'end-array' | 'start-string';
}

/**
 * An object member's key is complete. `path` is the member's own pointer (the parent's pointer
 * plus the escaped key), the same path its value's updates carry; `textValue` is the decoded key.
 * It is sent just before the member's value begins.
 */
export interface PathUpdateKey extends PathUpdateBase {
  readonly kind: 'key';
  readonly textValue: string;
}

/** The next piece of the string at `path`: decoded text (escapes resolved), never empty. */
export interface PathUpdatePartialString extends PathUpdateBase {
  readonly kind: 'partial-string';
  readonly textValue: string;
}

/**
 * The string at `path` is complete. It carries no text: the string is the `partial-string`
 * pieces since its `start-string`, joined (an empty string has none), so a long string crosses
 * the wire once.
 */
export interface PathUpdateCompleteString extends PathUpdateBase {
  readonly kind: 'complete-string';
}

/** A complete number: `value` as `JSON.parse` reads it, `raw` the literal as written. */
export interface PathUpdateNumber extends PathUpdateBase {
  readonly kind: 'complete-number';
  readonly value: number;
  /** The literal (`-0`, `1e400`, `12345678901234567890`): what a rebuilder reads, as `value` may not survive JSON. */
  readonly raw?: string;
}

/** A complete `true` or `false`. */
export interface PathUpdateBoolean extends PathUpdateBase {
  readonly kind: 'complete-boolean';
  readonly value: boolean;
}

/** A complete `null`. */
export interface PathUpdateNull extends PathUpdateBase {
  readonly kind: 'complete-null';
  readonly value: null;
}

/** The whole document is complete (always at path `""`, after the root's own update). */
export interface PathUpdateJsonComplete extends PathUpdateBase {
  readonly kind: 'json-complete';
}

/**
 * One flat update of the JsonFragment protocol. A document's updates, in order:
 * `start-object` / `start-array` … `end-object` / `end-array` around containers; `key` then the
 * value for each object member; `start-string`, `partial-string`*, `complete-string` for a string;
 * one `complete-number` / `complete-boolean` / `complete-null` for a scalar; finally
 * `json-complete` at `""`.
 */
export type PathUpdate =
  | PathUpdateMark
  | PathUpdateKey
  | PathUpdatePartialString
  | PathUpdateCompleteString
  | PathUpdateNumber
  | PathUpdateBoolean
  | PathUpdateNull
  | PathUpdateJsonComplete;

/** An issue, with its path from the root of the arguments (JSON-serialisable). */
export interface ArgumentIssue {
  readonly message: string;
  readonly path: ReadonlyArray<string | number>;
}

/** A tool call's arguments failed validation: a field as soon as it completed, or the whole. */
export interface ArgumentValidationErrorEvent {
  readonly type: 'validation-error';
  /** The content slot of the call. */
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /**
   * JSON Pointer of the top-level field that failed (`/path`), reported when that field
   * completed; `""` when the complete arguments failed (then `issues` holds what was not
   * reported for a field already: a failure is reported once).
   */
  readonly path: string;
  readonly issues: readonly ArgumentIssue[];
  /**
   * The document is structured output (checked with the `structured` schema), not a tool call's
   * arguments; `toolCallId` and `toolName` are then `""`.
   */
  readonly structured?: true;
}

/**
 * Many events as one: the turn so far, for a client that resumes far behind (see
 * `resumeEventStream`'s `snapshot`). `events` are events of the other kinds, in their own
 * vocabulary — usually `compactEvents` of the events it stands for — and a consumer applies them
 * as if it had seen every event they stand for: `EventStreamDecoder` and `NdjsonDecoder` give
 * them out in its place, and the turn builder (so `collectTurn`, every stage built on it, and
 * `TurnStore`) reads them in its place.
 */
export interface SnapshotEvent {
  readonly type: 'snapshot';
  /** The events it stands for (compacted): what a consumer reads in its place. */
  readonly events: readonly PipelineEvent[];
  /**
   * For `EventStreamEncoder`: the id of the last event it stands for, written as the snapshot's
   * SSE `id` (the next event is `lastId + 1`), so that a client cut after it resumes after those
   * events. Without it, the snapshot counts as one event of the stream.
   */
  readonly lastId?: number;
}

/**
 * Every event a stage of the pipeline can emit: the provider's streaming events, the progress of
 * tool-call arguments and structured output, conversation events, field events, path updates,
 * raw argument deltas and validation errors — and a snapshot of several of them. Every event
 * stage accepts all of them, acts on the ones it owns and passes the others through unchanged and
 * in order; `collectTurn` reads any of them.
 */
export type PipelineEvent =
  | StreamEvent
  | ToolCallArgumentProgress
  | StructuredProgress
  | ConversationEvent
  | FieldEvent
  | PathUpdate
  | StreamingToolCallEvent
  | ArgumentValidationErrorEvent
  | SnapshotEvent;
