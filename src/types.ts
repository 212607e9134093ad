/**
 * The vocabulary shared by every stage: JSON values, the recursive fragments of the incremental
 * parser (RFD 043), the typed streaming events of the provider adapters (RFD 012) and the
 * conversation events of a finished turn.
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
