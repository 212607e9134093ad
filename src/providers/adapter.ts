import { ProviderError, type ProviderName } from '../errors.ts';
import type { EventMetadata, EventPart, StreamEvent } from '../types.ts';
import { isRecord, nonEmptyString, nonEmptyStringAt } from './json-access.ts';

/**
 * The synchronous core of one provider API: decoded records in, {@link StreamEvent}s out.
 *
 * A record is one SSE event's parsed `data` (with its `event:` name), one NDJSON line, one AWS
 * event-stream frame's payload (with its `:event-type`), or an object an official SDK yields
 * (then `event` is undefined and the adapter reads the type from the object itself).
 */
export interface ProviderAdapter {
  /** Translate one record. Throws `ProviderError` for an error the provider reports. */
  push(data: unknown, event?: string): StreamEvent[];
  /** The input ended: emit what is still open (a `finished` the provider never sent, …). */
  end(): StreamEvent[];
  /**
   * Whether the provider's terminal record has arrived, so that input ending now is a complete
   * stream (asked after `end()`). Without it, the adapter's `finished` event says so: a stream
   * that had records but no `finished` was cut (`ProviderEventDecoder` errors with `'truncated'`).
   */
  complete?(): boolean;
  /**
   * Whether the provider's terminal record has arrived, after which nothing belongs to the turn
   * (Anthropic `message_stop`, Responses `response.completed`, the AI SDK's `finish`): a later
   * record the adapter turns into events is refused by `ProviderEventDecoder` with a
   * `ProviderError` of type `'after-end'`, one it turns into nothing (a keep-alive) is ignored.
   * Without it, only `data: [DONE]` ends the stream so. Not the record that merely brings the
   * finish reason when more may follow it (OpenAI Chat's usage chunk comes after its
   * `finish_reason`).
   */
  ended?(): boolean;
}

/**
 * How a provider's input is framed: its SSE, NDJSON, AWS event-stream binary frames, or only
 * objects (no wire format: the AI SDK's stream parts, LangChain's objects). Internal.
 */
export type Framing = 'sse' | 'ndjson' | 'aws-event-stream' | 'objects';

/**
 * A provider as `ProviderEventStream`, `ProviderEventDecoder` and `fromResponse` accept it in
 * place of its name: what the name stands for, as a value. The providers of the main entry are
 * known by name everywhere; a provider at an entry point of its own (`AG_UI_PROVIDER` from
 * `argstream/ag-ui`, `LANGCHAIN_PROVIDER` from `argstream/langchain`,
 * `GEMINI_INTERACTIONS_PROVIDER` from `argstream/gemini-interactions`) is passed so where its name
 * cannot wait for its module (a `ProviderEventDecoder`), or to bundle it statically.
 *
 * Opaque: only argstream makes these. It is not an extension point (its members other than `name`
 * may change in any release); use the definitions argstream exports.
 */
export interface ProviderDefinition {
  /** The provider's name: the same as its string form, and `ProviderError.provider` of its errors. */
  readonly name: ProviderName;
  /** @internal */
  readonly framing: Framing;
  /** A new adapter for one stream. @internal */
  readonly create: () => ProviderAdapter;
  /**
   * What ends its stream, for the message of a stream cut before it: the record after which its
   * adapter emits `finished`. @internal
   */
  readonly terminal: string;
  /** For `objects` framing: what its objects are, for the message of text or bytes given instead. @internal */
  readonly objects?: string;
}

/**
 * Another library's part objects, read among argstream's events as a provider's records (the AI
 * SDK's `fullStream` parts, which `TurnBuilder` and `TurnStore` take directly). Internal.
 */
export interface PartReader {
  /** Whether `event` is one of its parts rather than an argstream event. */
  isPart(event: { readonly type: string }): boolean;
  /** A new reader of one stream of them. */
  create(): PartStream;
}

/**
 * One stream of another library's parts: `push(part) → events`; `end()` yields what is still open,
 * then throws when the stream was cut before its end (see {@link PartReader}). Internal.
 */
export interface PartStream {
  push(part: unknown): StreamEvent[];
  end(): Iterable<StreamEvent>;
}

/** A `part` event, with a `metadata` key only when there is metadata. */
export function partEvent(index: number, part: EventPart, metadata?: EventMetadata): StreamEvent {
  return metadata === undefined ? { type: 'part', index, part } : { type: 'part', index, part, metadata };
}

/**
 * The {@link ProviderError} of an error body sent inside a stream: `{message, code, <type>}` (the
 * type read from the first of `typeKeys` present), or a bare string.
 */
export function providerErrorOf(provider: ProviderName, body: unknown, typeKeys: readonly string[], fallbackMessage: string): ProviderError {
  if (!isRecord(body)) return new ProviderError(provider, 'error', nonEmptyString(body) ?? fallbackMessage, { cause: body });
  const message = nonEmptyStringAt(body, 'message') ?? fallbackMessage;
  let type = 'error';
  for (const key of typeKeys) {
    const value = nonEmptyStringAt(body, key);
    if (value !== undefined) {
      type = value;
      break;
    }
  }
  const code = body['code'] === undefined || body['code'] === null ? undefined : String(body['code']);
  return new ProviderError(provider, type, message, { code, cause: body });
}
