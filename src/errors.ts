/**
 * The error classes of argstream: {@link JsonStreamError} for JSON text, {@link ProviderError}
 * for errors a provider reports (an HTTP error status, or an error inside its stream),
 * {@link ToolCallArgumentsError} for a tool call's invalid arguments, and {@link RelayError} for a
 * relay that could not be encoded or decoded (and an event of the wrong shape).
 *
 * @module
 */

/** Why JSON input was refused. */
export type JsonStreamErrorCode =
  | 'invalid-json'
  | 'unexpected-end'
  | 'max-depth'
  | 'max-string-length'
  | 'max-length'
  | 'closed';

/** Longest piece of input quoted in an error message: model output must not leak into logs. */
const MAX_EXCERPT = 30;

/** Quote at most 30 characters of input for an error message. */
export function excerpt(text: string): string {
  return text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT)}…` : text;
}

/**
 * Longest message of a {@link JsonStreamError}: an error's message is logged, and must cost what
 * any log line costs, whatever the input.
 */
const MAX_MESSAGE = 200;

/**
 * Longest message of a {@link ProviderError}: the provider's own text is kept as sent up to this
 * (provider messages run to a few hundred characters); the whole body stays on `cause`.
 */
const MAX_PROVIDER_MESSAGE = 500;

/** Longest message of a {@link ToolCallArgumentsError}: a short id and name, then its cause's. */
const MAX_ARGUMENTS_MESSAGE = 300;

/** Longest JSON Pointer quoted in an error message; the whole one stays on `error.path`. */
const MAX_PATH = 60;

/**
 * A JSON Pointer shortened for an error message: at most 60 characters, its start and its end
 * (the innermost tokens, which say the most) around an ellipsis.
 */
export function shortPath(path: string): string {
  if (path.length <= MAX_PATH) return path;
  return `${path.slice(0, 20)}…${path.slice(path.length - (MAX_PATH - 21))}`;
}

/** A message cut to at most `max` characters, an ellipsis marking the cut (never half a surrogate pair). */
export function capMessage(message: string, max: number): string {
  if (message.length <= max) return message;
  let end = max - 1;
  // Never half a surrogate pair.
  const last = message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${message.slice(0, end)}…`;
}

/**
 * A JSON text was invalid, ended early, or exceeded a limit.
 *
 * `offset` counts UTF-16 code units of the decoded text from the start of the document, and does
 * not depend on how the input was cut into chunks. `path` is the JSON Pointer of the value being
 * parsed when the error happened (`""` for the root). The message is at most 200 characters: it
 * quotes at most 30 characters of input and a shortened path (the whole path is `path`).
 */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
  readonly code: JsonStreamErrorCode;
  readonly offset: number;
  readonly path: string;
  /** The input from `offset` on, at most 30 characters (what the chunk at hand held of it). */
  readonly excerpt: string | undefined;

  constructor(
    code: JsonStreamErrorCode,
    message: string,
    offset: number,
    path: string,
    options?: { cause?: unknown; excerpt?: string | undefined },
  ) {
    super(capMessage(message, MAX_MESSAGE), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.offset = offset;
    this.path = path;
    this.excerpt = options?.excerpt;
  }
}

/**
 * The provider APIs argstream decodes. `'ai-sdk'` is not a wire format but the parts of the AI
 * SDK's `streamText(…).fullStream`; `'ai-sdk-ui'` is the AI SDK's UI message stream (what an AI
 * SDK server sends to `useChat`); `'ag-ui'` is AG-UI's event stream (what an AG-UI agent sends its
 * UI); `'langchain'` is not a wire format either but LangChain.js's stream objects
 * (`AIMessageChunk`s, LangGraph's `[chunk, metadata]` tuples, `streamEvents`);
 * `'gemini-interactions'` is Gemini's Interactions API. `'ag-ui'`, `'langchain'` and
 * `'gemini-interactions'` are at entry points of their own: by name, a stream loads their module
 * before it decodes (see `ProviderEventStreamOptions.provider`).
 */
export type ProviderName =
  | 'anthropic'
  | 'openai-chat'
  | 'openai-responses'
  | 'gemini'
  | 'ollama'
  | 'bedrock'
  | 'cohere'
  | 'ai-sdk'
  | 'ai-sdk-ui'
  | 'ag-ui'
  | 'langchain'
  | 'gemini-interactions';

/**
 * A provider answered with an HTTP error status (then `status` is set; `type`, `code` and the
 * message are the provider's own, read from its JSON error body), reported an error inside a
 * stream that had started (HTTP 200), or sent something that is not its wire format (`type`
 * `'invalid-stream'`). Everything before the error has been delivered. The message is at most
 * 500 characters; the provider's whole error body, where there is one, is `cause`.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  /** The provider API whose stream failed. */
  readonly provider: ProviderName;
  /**
   * The provider's error type (`overloaded_error`, `server_error`, `ThrottlingException`, …), or
   * argstream's: `'invalid-stream'` (not the provider's wire format), `'invalid-format'` (a record
   * of the wrong shape), `'text-mismatch'` (OpenAI Responses: a call's final arguments do not
   * continue the streamed ones), `'http-error'` (an HTTP error body with no provider error).
   * The AI SDK's UI message stream (`'ai-sdk-ui'`) has `'error'` (an `error` chunk),
   * `'tool-input-error'` and `'aborted'` (an `abort` chunk: the server's request was aborted).
   * `'unavailable'`: the module of a provider read by name (`'ag-ui'`, `'langchain'`,
   * `'gemini-interactions'`, each at an entry point of its own) could not be loaded; the import's
   * error is the `cause`.
   */
  readonly type: string;
  /** The provider's error code, where it sends one apart from the type. */
  readonly code: string | undefined;
  /** The HTTP status of the response, when the error is an HTTP error (4xx, 5xx). */
  readonly status: number | undefined;

  constructor(
    provider: ProviderName,
    type: string,
    message: string,
    options?: { code?: string | undefined; status?: number | undefined; cause?: unknown },
  ) {
    super(capMessage(message, MAX_PROVIDER_MESSAGE), options?.cause === undefined ? undefined : { cause: options.cause });
    this.provider = provider;
    this.type = type;
    this.code = options?.code;
    this.status = options?.status;
  }
}

/**
 * A tool call's arguments (or a structured-output document) were not valid JSON, or exceeded a
 * limit. `cause` is the {@link JsonStreamError}; `offset` is its offset within the arguments.
 * The message (at most 300 characters) quotes at most 30 characters of the call's id and name.
 */
export class ToolCallArgumentsError extends Error {
  override readonly name = 'ToolCallArgumentsError';
  readonly toolCallId: string;
  readonly toolName: string;
  /** The content slot of the call. */
  readonly index: number;
  readonly offset: number;
  readonly code: JsonStreamErrorCode;
  override readonly cause: JsonStreamError;

  constructor(toolCallId: string, toolName: string, index: number, cause: JsonStreamError) {
    const id = excerpt(toolCallId) || `#${index}`;
    super(capMessage(`Invalid arguments for tool call ${id}${toolName ? ` (${excerpt(toolName)})` : ''}: ${cause.message}`, MAX_ARGUMENTS_MESSAGE), { cause });
    this.toolCallId = toolCallId;
    this.toolName = toolName;
    this.index = index;
    this.offset = cause.offset;
    this.code = cause.code;
    this.cause = cause;
  }
}

/** Longest message of a {@link RelayError}: it quotes at most 30 characters of the wire, and is logged. */
const MAX_RELAY_MESSAGE = 300;

/**
 * Why a relay stage failed.
 *
 * - `incomplete`: the input ended before the encoder's `end` event (or line): the connection was
 *   cut. Reconnect with {@link RelayError.lastEventId}.
 * - `invalid-data`: an event's data is not JSON, or not what the encoder writes (also: an event
 *   of the wrong shape given to the turn builder or a store).
 * - `not-sse`: a line that is not an SSE field or comment.
 * - `max-event-length`: an event (SSE) or line (NDJSON) grew beyond the decoder's limit.
 * - `after-end`: an event came after the `end` event.
 * - `invalid-event`: an event the encoder cannot write (its type is reserved, it holds a key
 *   `$errors`, a `BigInt`, a cycle).
 * - `invalid-last-event-id`: a `Last-Event-ID` that is not an id the encoder wrote.
 * - `invalid-input`: a chunk that is neither a string nor bytes.
 * - `max-depth`: a relayed path or value nested deeper than the decoder's `maxDepth`.
 * - `out-of-sequence`: an event's id is not the one after the last (ids count one per event): the
 *   stream skipped events (a gap) or repeated some (a step back). Not a cut: resuming from
 *   {@link RelayError.lastEventId} asks the server again for what follows the last good event.
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
  | 'max-depth'
  | 'out-of-sequence';

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
    super(capMessage(message, MAX_RELAY_MESSAGE), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.lastEventId = options?.lastEventId;
  }
}
