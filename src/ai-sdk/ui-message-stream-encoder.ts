/**
 * argstream's events as the AI SDK's UI message stream: what an AI SDK server sends to `useChat`
 * (`ai` 5 to 7), so that a page built on `useChat` works unchanged against an argstream server,
 * for every provider argstream reads.
 *
 * @module
 */
import { clear } from '../core.ts';
import { ProviderError } from '../errors.ts';
import type { FinishReason, JsonValue, PathUpdate, PipelineEvent } from '../types.ts';
import { pageErrorMessage, type PageErrorOptions } from '../relay/error-record.ts';
import { RelayEncoder, type RelayFramer } from '../relay/relay-encoder.ts';
import { TurnWireCore, type CallState } from '../relay/turn-wire-core.ts';
import { TOOL_INPUT_UPDATES } from '../providers/ai-sdk-ui.ts';

// One definition, with the adapter that reads these chunks: the chat transport imports it from
// there, and a page bundles no encoder for it.
export { TOOL_INPUT_UPDATES };

/**
 * The response headers of a UI message stream, the values of the AI SDK's own
 * `UI_MESSAGE_STREAM_HEADERS` (`ai` 5 to 7): an event stream, not cached, kept alive, marked as a
 * UI message stream of version 1, not buffered by nginx.
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
});

/** The finish reasons every major of the AI SDK's UI message stream accepts (5: also `unknown`; 7: also `interrupted`; 6: these alone). */
export type UIMessageFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' | 'unknown';

/**
 * A chunk of the AI SDK's UI message stream, as {@link UIMessageChunkEncoder} writes it: only the
 * types and fields that `ai` 5, 6 and 7 all accept (their chunk schemas), plus `reason` on `abort`
 * (6's and 7's; ai 5 accepts it and ignores it).
 */
export type UIMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string }
  | { readonly type: 'start-step' }
  | { readonly type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; readonly id: string }
  | { readonly type: 'text-delta' | 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'tool-input-start'; readonly toolCallId: string; readonly toolName: string; readonly providerExecuted?: true }
  | { readonly type: 'tool-input-delta'; readonly toolCallId: string; readonly inputTextDelta: string }
  | { readonly type: 'tool-input-available'; readonly toolCallId: string; readonly toolName: string; readonly input: JsonValue; readonly providerExecuted?: true }
  | {
      readonly type: 'tool-input-error';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly errorText: string;
      readonly providerExecuted?: true;
    }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: JsonValue; readonly providerExecuted: true }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string; readonly providerExecuted: true }
  | { readonly type: 'data-refusal'; readonly id: string; readonly data: { readonly text: string } }
  | {
      readonly type: typeof TOOL_INPUT_UPDATES;
      readonly data: { readonly toolCallId: string; readonly updates: readonly PathUpdate[] };
      readonly transient: true;
    }
  | { readonly type: 'finish-step' }
  | { readonly type: 'finish'; readonly finishReason?: UIMessageFinishReason }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'abort'; readonly reason?: string };

/**
 * Options of {@link UIMessageChunkEncoder} and {@link UIMessageStreamEncoder}. `onError` (and
 * `errorClasses`) choose the text of the `error` chunk, of a call's `tool-input-error` and of an
 * `abort`'s reason, as for argstream's other encoders: by default argstream's message for the
 * error's page record — never a cause, a URL, a header, or the text of an error not argstream's.
 */
export interface UIMessageStreamEncoderOptions extends PageErrorOptions {
  /**
   * The major version of the `ai` package the page runs. Each validates the chunks it receives
   * (its HTTP transport refuses a chunk type or a finish reason it does not know); every chunk
   * written is one all three accept, and the major changes only this: a stream that ends without
   * argstream's `finished` (the provider's turn was cut) finishes with `unknown` for 5 (what the
   * AI SDK's own providers send there; 6 and 7 do not know it), `other` otherwise; and `abort`
   * carries its `reason` except for 5 (6 and 7 have it).
   * @default undefined (what `ai` 5, 6 and 7 all accept)
   */
  readonly major?: 5 | 6 | 7;
  /**
   * The id of the assistant message, sent in the `start` chunk (the AI SDK's
   * `generateMessageId`); without it the page makes one.
   * @default undefined
   */
  readonly messageId?: string;
  /**
   * Send the `start` chunk. `false` when this stream continues a message begun by an earlier
   * response (a server that runs the tools and asks the model again: each response is a step).
   * @default true
   */
  readonly sendStart?: boolean;
  /**
   * Send the `finish` chunk. `false` when another response will continue the message; every
   * stream still ends its own step (`finish-step`).
   * @default true
   */
  readonly sendFinish?: boolean;
  /**
   * The `errorText` sent for an error: of the stream before (a `ProviderError`, …) as an `error`
   * chunk, and of a call whose arguments were invalid as its `tool-input-error`.
   * @deprecated Use `onError` (the same function; `undefined` from it sends argstream's message).
   * Used when `onError` is not given.
   * @default undefined (argstream's message for the error's page record)
   */
  readonly errorText?: (error: unknown) => string;
  /**
   * How a call's input streams. `'deltas'`: as the AI SDK sends it, `tool-input-delta`s of its
   * text — an unchanged `useChat` page re-parses the whole input at each one (quadratic: seconds
   * for a 200 KB input). `'path-updates'`: instead, transient `data-argstream-tool-input` chunks
   * carrying the `PathUpdate`s of each piece, which `useChat` hands to `onData` without touching
   * the message, and which `ArgstreamChatTransport` (and so `useTurn(transport)`) applies in linear
   * time; the call's part then gets its input whole at `tool-input-available`. An unchanged page
   * shows the call without a partial input, and never freezes.
   *
   * A path update costs a JSON object (40–70 bytes) even for a one-character number, so each call's
   * update chunks stay within a budget: their characters (the updates, the call's id and 64 per
   * chunk) at most 3 × the call's input text so far + 384 per piece the provider sent (per read, for text rebuilt from a
   * stage's progress) + 32. Updates
   * that do not fit wait and go with the next piece's in one chunk once the text has paid for them;
   * past 4,096 characters waiting, the call gets no more updates. Its input still comes whole at
   * `tool-input-available`, so every page ends with the exact input, and the relay sends at most 4
   * times the provider's bytes. Calls streamed in pieces get every update; a document of many small
   * scalars sent in a few pieces gets some or none.
   * @default 'deltas'
   */
  readonly toolInputs?: 'deltas' | 'path-updates';
  /**
   * {@link UIMessageStreamEncoder} only: write an SSE comment (`: keep-alive`) after this many
   * milliseconds without output, so that proxies do not close an idle connection while the model
   * thinks (the AI SDK's parser skips comments).
   * @default undefined (no keep-alive)
   */
  readonly keepAliveMs?: number;
}

/** The text parts (and reasoning parts) open, by content slot. */
interface TextState {
  readonly id: string;
  readonly kind: 'text' | 'reasoning';
}

/** argstream's finish reason as the UI stream's (`refusal` is `content-filter`, as the AI SDK's Anthropic provider maps it). */
function finishReasonOf(reason: FinishReason): UIMessageFinishReason {
  return reason === 'refusal' ? 'content-filter' : reason;
}

/** What {@link UIMessageChunkEncoder} does, for it and for the relay's shell: the UI message stream's own chunks. */
class UIMessageChunkCore extends TurnWireCore<UIMessageChunk> {
  readonly #major: 5 | 6 | 7 | undefined;
  readonly #messageId: string | undefined;
  readonly #sendStart: boolean;
  readonly #sendFinish: boolean;
  /** What a page may see of an error: `onError` (or the deprecated `errorText`) and `errorClasses`. */
  readonly #page: PageErrorOptions;
  readonly #texts = new Map<number, TextState>();
  #finishReason: FinishReason | undefined;

  constructor(options: UIMessageStreamEncoderOptions) {
    if (options.major !== undefined && options.major !== 5 && options.major !== 6 && options.major !== 7) {
      throw new RangeError(`UIMessageStreamEncoder: major must be 5, 6 or 7, got ${String(options.major)}`);
    }
    // The input goes whole at the end as JSON; a piece that stops parsing still sends the updates it made.
    super('UIMessageStreamEncoder', options.toolInputs, false, true);
    this.#major = options.major;
    this.#messageId = options.messageId;
    this.#sendStart = options.sendStart !== false;
    this.#sendFinish = options.sendFinish !== false;
    const onError = options.onError ?? options.errorText;
    this.#page = { ...(onError === undefined ? {} : { onError }), ...(options.errorClasses === undefined ? {} : { errorClasses: options.errorClasses }) };
  }

  protected begin(out: UIMessageChunk[]): void {
    if (this.#sendStart) out.push(this.#messageId === undefined ? { type: 'start' } : { type: 'start', messageId: this.#messageId });
    out.push({ type: 'start-step' });
  }

  protected finish(out: UIMessageChunk[]): void {
    out.push({ type: 'finish-step' });
    if (this.#sendFinish) {
      const reason = this.#finishReason === undefined ? (this.#major === 5 ? 'unknown' : 'other') : finishReasonOf(this.#finishReason);
      out.push({ type: 'finish', finishReason: reason });
    }
  }

  protected fail(reason: unknown, out: UIMessageChunk[]): void {
    if (isAbort(reason)) {
      out.push(this.#major === 5 ? { type: 'abort' } : { type: 'abort', reason: pageErrorMessage(reason, this.#page) });
      return;
    }
    out.push({ type: 'error', errorText: pageErrorMessage(reason, this.#page) });
    out.push({ type: 'finish-step' });
    if (this.#sendFinish) out.push({ type: 'finish', finishReason: 'error' });
  }

  protected newCall(index: number): CallState {
    return { index, toolCallId: '', toolName: '', providerExecuted: false, started: false, raw: false, held: '', writer: undefined, inputUpdates: undefined };
  }

  /** A call without an id waits for one: the AI SDK cannot name it. */
  protected unnamedCallId(): string {
    return '';
  }

  /** `tool-input-start`: the AI SDK names the part after the tool at its start. */
  protected writeStart(call: CallState, out: UIMessageChunk[]): void {
    out.push(
      call.providerExecuted
        ? { type: 'tool-input-start', toolCallId: call.toolCallId, toolName: call.toolName, providerExecuted: true }
        : { type: 'tool-input-start', toolCallId: call.toolCallId, toolName: call.toolName },
    );
  }

  /** A piece of a started call's input text, as a delta or as its path updates. */
  protected input(call: CallState, text: string, out: UIMessageChunk[]): void {
    if (!this.pathUpdates) {
      out.push({ type: 'tool-input-delta', toolCallId: call.toolCallId, inputTextDelta: text });
      return;
    }
    const ready = this.inputUpdates(call, text);
    if (ready !== undefined) out.push({ type: TOOL_INPUT_UPDATES, data: { toolCallId: call.toolCallId, updates: ready }, transient: true });
  }

  #openText(index: number, kind: 'text' | 'reasoning', out: UIMessageChunk[]): TextState {
    let text = this.#texts.get(index);
    if (text === undefined) {
      text = { id: `${kind === 'text' ? 'text' : 'reasoning'}-${index}`, kind };
      this.#texts.set(index, text);
      out.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: text.id });
    }
    return text;
  }

  /** A slot's text is complete: its end, or the whole text when no piece of it went out. */
  #closeText(index: number, kind: 'text' | 'reasoning', text: string, out: UIMessageChunk[]): void {
    const open = this.#texts.get(index);
    if (open === undefined) {
      const state = this.#openText(index, kind, out);
      if (text !== '') out.push({ type: kind === 'text' ? 'text-delta' : 'reasoning-delta', id: state.id, delta: text });
    }
    const state = this.#texts.get(index) as TextState;
    this.#texts.delete(index);
    out.push({ type: state.kind === 'text' ? 'text-end' : 'reasoning-end', id: state.id });
  }

  #available(index: number, type: 'tool-call' | 'provider-tool-call', toolCallId: string, toolName: string, input: JsonValue, out: UIMessageChunk[]): void {
    this.dropCall(index);
    const providerExecuted = type === 'provider-tool-call';
    this.announced.add(toolCallId);
    out.push(
      providerExecuted
        ? { type: 'tool-input-available', toolCallId, toolName, input, providerExecuted: true }
        : { type: 'tool-input-available', toolCallId, toolName, input },
    );
  }

  #inputError(index: number, toolCallId: string, toolName: string, providerExecuted: boolean, errorText: string, out: UIMessageChunk[]): void {
    this.dropCall(index);
    this.announced.add(toolCallId);
    out.push(
      providerExecuted
        ? { type: 'tool-input-error', toolCallId, toolName, errorText, providerExecuted: true }
        : { type: 'tool-input-error', toolCallId, toolName, errorText },
    );
  }

  protected write(event: PipelineEvent, out: UIMessageChunk[]): void {
    switch (event.type) {
      case 'part': {
        const part = event.part;
        switch (part.type) {
          case 'message':
          case 'structured': {
            const text = part.type === 'message' ? part.text : part.json;
            if (text === '') break;
            const state = this.#openText(event.index, 'text', out);
            out.push({ type: 'text-delta', id: state.id, delta: text });
            break;
          }
          case 'reasoning': {
            if (part.text === '') break;
            const state = this.#openText(event.index, 'reasoning', out);
            out.push({ type: 'reasoning-delta', id: state.id, delta: part.text });
            break;
          }
          default:
            // refusal text and provider results: written whole from their conversation events.
            break;
        }
        break;
      }
      case 'message':
      case 'reasoning':
        this.#closeText(event.index, event.type === 'message' ? 'text' : 'reasoning', event.text, out);
        break;
      case 'structured':
        this.#closeText(event.index, 'text', JSON.stringify(event.data), out);
        break;
      case 'refusal':
        if (this.#texts.has(event.index)) this.#closeText(event.index, 'text', event.text, out);
        else out.push({ type: 'data-refusal', id: `refusal-${event.index}`, data: { text: event.text } });
        break;
      case 'tool-call':
      case 'provider-tool-call':
        this.#available(event.index, event.type, event.toolCallId, event.toolName, event.arguments, out);
        break;
      case 'tool-call-failed':
        this.#inputError(event.index, event.toolCallId, event.toolName, event.providerExecuted === true, pageErrorMessage(event.error, this.#page), out);
        break;
      case 'tool-call-incomplete': {
        // Cut off (max_tokens, a stream that stopped): the call stays `input-streaming` with the
        // input that streamed, as the AI SDK's server leaves it. One that never went out is
        // started with its partial arguments as its only delta.
        const call = this.call(event.index);
        this.dropCall(event.index);
        if (call.started) break;
        call.toolCallId ||= event.toolCallId;
        call.toolName ||= event.toolName;
        if (event.providerExecuted === true) call.providerExecuted = true;
        if (call.held === '' && event.partialArguments !== undefined) call.held = JSON.stringify(event.partialArguments);
        this.startCall(call, out);
        break;
      }
      case 'provider-tool-result': {
        // The AI SDK refuses an output for a call it has not seen.
        if (!this.announced.has(event.toolCallId)) break;
        if (event.isError === true) {
          const errorText = typeof event.result === 'string' ? event.result : JSON.stringify(event.result);
          out.push({ type: 'tool-output-error', toolCallId: event.toolCallId, errorText, providerExecuted: true });
        } else out.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: event.result, providerExecuted: true });
        break;
      }
      case 'finished':
        this.#finishReason = event.reason;
        break;
      default:
        // flushes, field events, path updates, validation errors, …: nothing of the message.
        break;
    }
  }
}
/**
 * The synchronous core of {@link UIMessageStreamEncoder}: argstream's events in (the output of
 * any stage), UI message stream chunks out, as objects. Also what to write into the AI SDK's own
 * `createUIMessageStream` (`writer.write(chunk)` for each chunk).
 *
 * - `start` (with `messageId` when given) and `start-step` come before everything else.
 * - Text and reasoning stream as they come: `text-start` at a slot's first piece, a
 *   `text-delta` per piece, `text-end` when the slot completes (its `message` event); a message
 *   that arrives whole (a `message` event of a stage that kept no parts) is one start, delta and
 *   end. Structured output is text (the AI SDK has no structured part), and a refusal sent as
 *   text (OpenAI's) a `data-refusal` part `{text}` (the AI SDK drops it; a page can show it).
 * - A tool call: `tool-input-start` once its id and name are known, then each raw argument chunk
 *   as a `tool-input-delta` (what the AI SDK sends by default; argument text rebuilt from the
 *   progress of a stage before when no raw text comes), then `tool-input-available` with the
 *   exact arguments (`providerExecuted: true` for a call the provider runs). A call that arrives
 *   whole (its `tool-call` event alone) is `tool-input-available` alone, as the AI SDK sends calls
 *   that did not stream. A call whose arguments were invalid (`tool-call-failed`) is a
 *   `tool-input-error` with the error's text; one cut off (`tool-call-incomplete`: `max_tokens`,
 *   a stream that stopped) gets nothing more, so the page's part stays `input-streaming` with the
 *   input that streamed, as the AI SDK's server leaves it.
 * - The result of a provider-run call: `tool-output-available` (or `tool-output-error` with
 *   `isError`), once its call has gone out.
 * - At the end: the slots still open complete (as `collectTurn` closes them), then
 *   `finish-step` and `finish` with the finish reason (`refusal` is `content-filter`).
 * - {@link UIMessageChunkEncoder.error}: an `error` chunk, then `finish-step` and `finish`
 *   (`error`), as the AI SDK's server ends a failed stream; an `AbortError` (the request's signal)
 *   is an `abort` chunk instead.
 *
 * Every other event (fields, path updates, validation errors, passed-on chunks) writes nothing.
 * Arguments that only raw chunks carry are parsed once, incrementally, by an embedded turn
 * builder; a stage before that already reported a call is not parsed again.
 */
export class UIMessageChunkEncoder {
  readonly #core: UIMessageChunkCore;

  /** @throws {RangeError} for a `major` other than 5, 6 or 7. */
  constructor(options: UIMessageStreamEncoderOptions = {}) {
    this.#core = new UIMessageChunkCore(options);
  }

  /** The chunks one event makes (appended to `out`, returned). */
  push(event: PipelineEvent, out: UIMessageChunk[] = []): UIMessageChunk[] {
    return this.#core.push(event, out);
  }

  /** The events ended: the slots still open, then `finish-step` and `finish`. */
  end(out: UIMessageChunk[] = []): UIMessageChunk[] {
    return this.#core.end(out);
  }

  /**
   * The stream before failed with `reason`: an `error` chunk (the page's message for the reason:
   * `onError`'s, else argstream's), then `finish-step` and `finish` with `error`; for an
   * `AbortError`, an `abort` chunk alone (its reason the page's message too). Nothing more is
   * written after it.
   */
  error(reason: unknown, out: UIMessageChunk[] = []): UIMessageChunk[] {
    return this.#core.error(reason, out);
  }
}

/**
 * A cancellation by the request's signal: `AbortError` (a `DOMException`, or an error named so);
 * or the AI SDK's `abort` (a UI message stream's chunk read by the `ai-sdk-ui` adapter, a
 * `fullStream` part read by the `ai-sdk` one), which goes on as one.
 */
function isAbort(reason: unknown): boolean {
  if (reason instanceof ProviderError) return (reason.provider === 'ai-sdk-ui' || reason.provider === 'ai-sdk') && reason.type === 'aborted';
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'AbortError';
}

/** One SSE record per chunk, as the AI SDK's `JsonToSseTransformStream` writes them. */
function sse(chunks: readonly UIMessageChunk[], end: boolean): string {
  let text = '';
  for (const chunk of chunks) text += `data: ${JSON.stringify(chunk)}\n\n`;
  return end ? `${text}data: [DONE]\n\n` : text;
}

/**
 * Encodes argstream's events (the output of any stage: `ProviderEventStream`, `fromResponse`,
 * `ConversationEventStream`, the views, …) as the AI SDK's UI message stream — SSE records
 * `data: <chunk JSON>`, ending with `data: [DONE]` — for a `Response` with
 * {@link UI_MESSAGE_STREAM_HEADERS}, read by an unchanged `useChat` page (`ai` 5 to 7). The
 * chunks are {@link UIMessageChunkEncoder}'s: text and reasoning as they stream, each call's
 * input deltas then `tool-input-available` with the exact arguments, the results of provider-run
 * calls, the finish reason.
 *
 * When the stream before fails (an HTTP error status, a provider error in the stream), the
 * error goes out as an `error` chunk (then `finish-step`, `finish` with `error` and `[DONE]`),
 * and the response ends normally, so `useChat` shows the error; an `AbortError` goes out as
 * `abort`. Like argstream's `EventStreamEncoder`, a `{ writable, readable }` pair used with
 * `pipeThrough` (one chunk of bytes per burst of events: what one read made), or the last stage
 * of `fromResponse` or `chain` (one chunk of bytes per network read, no stream hop): backpressure
 * is kept, a read's adjacent deltas of one part go as one chunk, and cancelling the readable side
 * (the page went away) cancels the source, so the provider request stops.
 *
 * @example
 * ```ts
 * import { fromResponse } from 'argstream';
 * import { UI_MESSAGE_STREAM_HEADERS, UIMessageStreamEncoder } from 'argstream/ai-sdk';
 *
 * export async function POST(request: Request): Promise<Response> {
 *   const upstream = await fetch('https://api.anthropic.com/v1/messages', { method: 'POST', headers, body, signal: request.signal });
 *   const body = fromResponse(upstream, { provider: 'anthropic' }, new UIMessageStreamEncoder());
 *   return new Response(body, { headers: UI_MESSAGE_STREAM_HEADERS });
 * }
 * ```
 */
export class UIMessageStreamEncoder extends RelayEncoder<PipelineEvent> {
  /** @throws {RangeError} for a `major` other than 5, 6 or 7, or a bad `keepAliveMs`. */
  constructor(options: UIMessageStreamEncoderOptions = {}) {
    super(new UIMessageFramer(new UIMessageChunkCore(options)), options, 'UIMessageStreamEncoder');
  }
}

/** The own enumerable members of a chunk, counted without making an array of them (`Object.keys`). */
function memberCount(chunk: object): number {
  let count = 0;
  for (const key in chunk) if (Object.hasOwn(chunk, key)) count++;
  return count;
}

/** The UI message stream's records, for the relay's shell (backpressure, keep-alive, the last record). */
class UIMessageFramer implements RelayFramer<PipelineEvent> {
  readonly keepAlive = ': keep-alive\n\n';
  readonly #core: UIMessageChunkCore;
  /** What the core made of the event being taken (reused). */
  readonly #made: UIMessageChunk[] = [];
  /** The records of the chunks taken since the last `take`, but the delta being joined. */
  #text = '';
  /**
   * The delta chunk being made: adjacent deltas of one part, joined (a part's id goes out once per
   * read). Three fields rather than an object: one is made per read.
   */
  #deltaType: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' | undefined;
  #deltaOwner = '';
  #deltaText = '';
  /** The last owner written and its JSON text: a part's deltas, read after read, have the same. */
  #ownerWritten = '';
  #ownerJson = '""';

  constructor(core: UIMessageChunkCore) {
    this.#core = core;
  }

  get size(): number {
    return this.#text.length + (this.#deltaType === undefined ? 0 : this.#deltaText.length + 64);
  }

  event(event: PipelineEvent): void {
    const made = this.#made;
    try {
      this.#core.push(event, made);
    } finally {
      // What an event made before it failed goes out before the error.
      for (let i = 0; i < made.length; i++) this.#add(made[i] as UIMessageChunk);
      clear(made);
    }
  }

  take(): string {
    this.#core.endRead();
    this.#endDelta();
    const text = this.#text;
    this.#text = '';
    return text;
  }

  #add(chunk: UIMessageChunk): void {
    const type = chunk.type;
    if (type === 'text-delta' || type === 'reasoning-delta' || type === 'tool-input-delta') {
      const fields = chunk as { id?: unknown; toolCallId?: unknown; delta?: unknown; inputTextDelta?: unknown };
      const owner = type === 'tool-input-delta' ? fields.toolCallId : fields.id;
      const text = type === 'tool-input-delta' ? fields.inputTextDelta : fields.delta;
      // Only the plain form: a chunk with more (provider metadata) is written whole.
      if (typeof owner === 'string' && typeof text === 'string' && memberCount(chunk) === 3) {
        if (this.#deltaType === type && this.#deltaOwner === owner) this.#deltaText += text;
        else {
          this.#endDelta();
          this.#deltaType = type;
          this.#deltaOwner = owner;
          this.#deltaText = text;
        }
        return;
      }
    }
    this.#endDelta();
    this.#text += `data: ${JSON.stringify(chunk)}\n\n`;
  }

  /** The delta being joined, as its record: a template of its known parts, in the chunk's member order. */
  #endDelta(): void {
    const type = this.#deltaType;
    if (type === undefined) return;
    const owner = this.#deltaOwner;
    const text = this.#deltaText;
    this.#deltaType = undefined;
    this.#deltaOwner = '';
    this.#deltaText = '';
    if (owner !== this.#ownerWritten) {
      this.#ownerWritten = owner;
      this.#ownerJson = JSON.stringify(owner);
    }
    this.#text +=
      type === 'tool-input-delta'
        ? `data: {"type":"tool-input-delta","toolCallId":${this.#ownerJson},"inputTextDelta":${JSON.stringify(text)}}\n\n`
        : `data: {"type":"${type}","id":${this.#ownerJson},"delta":${JSON.stringify(text)}}\n\n`;
  }

  end(): string {
    return this.#last((out) => this.#core.end(out));
  }

  error(reason: unknown): string {
    return this.take() + this.#last((out) => this.#core.error(reason, out));
  }

  /** The last chunks (the end, or an error), then `[DONE]`. */
  #last(step: (out: UIMessageChunk[]) => UIMessageChunk[]): string {
    let text: string;
    try {
      text = sse(step([]), true);
    } catch (error) {
      text = sse(this.#core.error(error, []), true);
    }
    return text;
  }
}

