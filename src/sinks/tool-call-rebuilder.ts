/**
 * Rebuilds the arguments of many interleaved tool calls on the client: from path updates where a
 * call has them, from its raw argument text where it has not (an older server).
 *
 * @module
 */
import { JsonStreamError, ToolCallArgumentsError } from '../errors.ts';
import { IncrementalJsonValueParser } from '../json/incremental-json-value-parser.ts';
import type { JsonLimits } from '../json/scanner.ts';
import type {
  FailedToolCallEvent,
  IncompleteToolCallEvent,
  JsonValue,
  PathUpdate,
  PipelineEvent,
  ProviderToolCallEvent,
  StreamEvent,
  ToolCallEvent,
} from '../types.ts';
import { JsonFragmentRebuilder } from './json-fragment-rebuilder.ts';

/** Options of {@link ToolCallRebuilder}: the limits of the parsers used for raw argument text. */
export interface ToolCallRebuilderOptions extends JsonLimits {}

/** What a {@link ToolCallRebuilder} accepts: path updates, stream events, anything else (ignored). */
export type ToolCallRebuilderInput = PipelineEvent | { readonly type: string };

/**
 * Where a call stands:
 * - `streaming`: arguments are arriving;
 * - `complete`: the arguments are a complete JSON document (`value` is final);
 * - `truncated`: the slot was flushed (or the input ended) before the document was complete;
 * - `failed`: the raw text was not valid JSON or an update was out of order (see `error`).
 */
export type RebuiltToolCallState = 'streaming' | 'complete' | 'truncated' | 'failed';

/** One tool call as the {@link ToolCallRebuilder} sees it. A live view: it changes as input arrives. */
export interface RebuiltToolCall {
  /** The call's id (`""` while none is known; some providers send none). */
  readonly toolCallId: string;
  /** The call's content slot, when known. */
  readonly index: number | undefined;
  /** The tool's name, from the `tool-call-start` part (`""` if none arrived). */
  readonly toolName: string;
  /**
   * The provider runs this call itself (a web search, code execution): shown, never run by the
   * application. From the start part's `providerExecuted`, or a `provider-tool-call` event.
   */
  readonly providerExecuted: boolean;
  /** The arguments so far (live), `undefined` before any value began; `{}` for a call flushed with no arguments. */
  readonly value: JsonValue | undefined;
  /**
   * What the value is built from: path updates, raw argument text parsed incrementally, or the
   * call's `tool-call` event (a call that came with neither, e.g. without arguments).
   */
  readonly source: 'updates' | 'text' | 'event' | undefined;
  readonly state: RebuiltToolCallState;
  /** Why the call failed: a `ToolCallArgumentsError` (raw text) or a `RelayError` `'invalid-data'` (updates out of order or malformed). */
  readonly error: Error | undefined;
  /** True once the arguments are complete. */
  isComplete(): boolean;
}

const ROOT_STARTS: ReadonlySet<string> = new Set([
  'start-object',
  'start-array',
  'start-string',
  'complete-number',
  'complete-boolean',
  'complete-null',
]);

const WHITESPACE_ONLY = /^[ \t\n\r]*$/;

class Call implements RebuiltToolCall {
  toolCallId: string;
  index: number | undefined;
  toolName = '';
  providerExecuted = false;
  source: 'updates' | 'text' | 'event' | undefined;
  state: RebuiltToolCallState = 'streaming';
  error: Error | undefined;
  rebuilder: JsonFragmentRebuilder | undefined;
  parser: IncrementalJsonValueParser | undefined;
  /** Text other than whitespace was parsed: a value was begun (`tr` is cut, not no arguments). */
  begun = false;
  /** Raw argument chunks held until the source is decided (normally just the first one). */
  pending: string[] = [];
  /** Flushed without any argument value: the arguments are `{}`. */
  empty = false;
  /** The arguments of the call's `tool-call` event, for a call that came with no updates or text. */
  final: JsonValue | undefined;

  constructor(toolCallId: string, index: number | undefined) {
    this.toolCallId = toolCallId;
    this.index = index;
  }

  get value(): JsonValue | undefined {
    if (this.rebuilder !== undefined) return this.rebuilder.value;
    if (this.parser !== undefined) return this.parser.snapshot();
    if (this.final !== undefined) return this.final;
    return this.empty ? {} : undefined;
  }

  isComplete(): boolean {
    return this.state === 'complete';
  }
}

/**
 * Follows many interleaved tool calls and rebuilds each one's arguments as a live value — the
 * `ToolsAggregateMessageHandler` of the JsonFragment protocol, as a synchronous core.
 *
 * **Keys.** A call is keyed by its `toolCallId`, with its content slot `index` as the fallback
 * when the id is `""` or absent (Gemini, Mistral, some compatible servers). An id that arrives
 * later for a call known by its index is adopted; a different id at a known slot is another call.
 * Look calls up with `get(id)` or `get(index)`.
 *
 * **Sources.** Each call has one source. A call whose first update at its root (`path: ""`)
 * arrives before or right after its first non-blank `tool-call-arguments` chunk (as a
 * {@link PathUpdateStream} emits them after a stage that keeps the raw parts: the updates a chunk
 * makes, then the chunk) is rebuilt from its
 * {@link PathUpdate}s, and its raw text is ignored. Otherwise — an older server, a relay that
 * strips updates — the raw text is the source, parsed with an incremental parser: each chunk is
 * parsed once, never the whole buffer again. So that the first chunk is not parsed in vain, it is
 * held until the next input decides: a text-only call's value starts one input late. Updates for
 * a text-sourced call, or that start mid-call, are ignored.
 *
 * **Lifetime.** A call opens with its `tool-call-start` part or its first update or argument
 * chunk, and is released — dropped from the rebuilder, so state never accumulates — at
 * `json-complete` (updates), at its slot's `flush` (`complete`; `truncated` if the document is
 * open; `{}` if no arguments came at all, as `collectTurn` reads them — unless the flush says
 * `endOfInput`: then, as at `end()`, the call was cut before its first byte and is `truncated`),
 * or at `end()`. A failed
 * call stays `failed` (ignoring the rest of its input) until then. Whitespace after a released
 * call's document opens nothing. `push` returns the call the input concerned — the final view
 * when the input released it — so the application sees every call's end.
 *
 * @throws {TypeError} from `push` for a path update with neither a `toolCallId` nor an `index`
 *   (use a {@link JsonFragmentRebuilder} for a single document).
 * @example
 * ```ts
 * const calls = new ToolCallRebuilder();
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
 *   .pipeThrough(new ToolCallProgressStream())
 *   .pipeThrough(new PathUpdateStream());
 * for await (const event of iterate(events)) { // iterate(): Safari has no `for await` over a ReadableStream
 *   const call = calls.push(event);
 *   if (call !== undefined) render(call.toolCallId, call.toolName, call.value, call.state);
 * }
 * ```
 */
export class ToolCallRebuilder {
  readonly #options: ToolCallRebuilderOptions;
  readonly #byId = new Map<string, Call>();
  readonly #byIndex = new Map<number, Call>();
  readonly #open = new Set<Call>();
  /** The call whose first non-blank chunk was the last input: its source is decided by this one. */
  #undecided: Call | undefined;
  /**
   * Slots whose call completed from its updates: raw text that still follows for them (a stage
   * that passes raw parts on after their progress) belongs to that call, not to a new one.
   */
  readonly #completedSlots = new Set<number>();

  constructor(options: ToolCallRebuilderOptions = {}) {
    this.#options = options;
  }

  /** Number of open calls (calls not yet released). */
  get size(): number {
    return this.#open.size;
  }

  /** The open calls, in the order they opened. */
  calls(): RebuiltToolCall[] {
    return [...this.#open];
  }

  /** An open call by its id (a string) or its content slot (a number). */
  get(key: string | number): RebuiltToolCall | undefined {
    return typeof key === 'string' ? this.#byId.get(key) : this.#byIndex.get(key);
  }

  /** Apply one input; returns the call it concerned, if any. */
  push(input: ToolCallRebuilderInput): RebuiltToolCall | undefined {
    const undecided = this.#undecided;
    if (undecided !== undefined) {
      const update = input.type === 'path-update' ? (input as PathUpdate) : undefined;
      if (update === undefined || this.#find(update.toolCallId, update.index, false) !== undecided) this.#useText(undecided);
    }
    switch (input.type) {
      case 'path-update':
        return this.#update(input as PathUpdate);
      case 'part': {
        const { index, part } = input as Extract<StreamEvent, { type: 'part' }>;
        if (part.type === 'tool-call-start') {
          this.#completedSlots.delete(index);
          const call = this.#find(part.toolCallId, index, true) as Call;
          if (call.toolName === '' && part.toolName) call.toolName = part.toolName;
          if (part.providerExecuted === true) call.providerExecuted = true;
          return call;
        }
        if (part.type === 'tool-call-arguments') return this.#text(index, part.chunk);
        return undefined;
      }
      case 'flush': {
        const flush = input as Extract<StreamEvent, { type: 'flush' }>;
        const call = this.#find(undefined, flush.index, false);
        if (call !== undefined) this.#close(call, flush.metadata?.['endOfInput'] === true);
        return call;
      }
      // After ToolCallProgressStream (or a view that parsed the arguments), a call ends with its
      // conversation event instead of its flush.
      case 'tool-call':
      case 'provider-tool-call': {
        const event = input as ToolCallEvent | ProviderToolCallEvent;
        const call = this.#find(event.toolCallId, event.index, false);
        if (call === undefined) return undefined;
        if (call.toolName === '') call.toolName = event.toolName;
        if (event.type === 'provider-tool-call') call.providerExecuted = true;
        if (call.state === 'streaming' && call.rebuilder === undefined && call.parser === undefined) {
          call.source = 'event';
          call.pending = [];
          call.final = event.arguments;
          call.state = event.truncated === true ? 'truncated' : 'complete';
          this.#release(call);
        } else this.#close(call);
        return call;
      }
      case 'tool-call-incomplete': {
        const event = input as IncompleteToolCallEvent;
        const call = this.#find(event.toolCallId, event.index, false);
        if (call !== undefined) this.#close(call, true);
        return call;
      }
      case 'tool-call-failed': {
        const event = input as FailedToolCallEvent;
        const call = this.#find(event.toolCallId, event.index, false);
        if (call !== undefined) {
          if (call.state === 'streaming') {
            call.state = 'failed';
            call.error = event.error;
          }
          this.#release(call);
        }
        return call;
      }
      default:
        return undefined;
    }
  }

  /** The input ended: release every open call (ending raw-text parsers) and return them. */
  end(): RebuiltToolCall[] {
    const open = [...this.#open];
    for (const call of open) this.#close(call, true);
    return open;
  }

  #find(toolCallId: string | undefined, index: number | undefined, create: boolean): Call | undefined {
    const id = toolCallId ?? '';
    let call = id !== '' ? this.#byId.get(id) : undefined;
    if (call === undefined && index !== undefined) {
      const atIndex = this.#byIndex.get(index);
      // A different id at the same slot is another call (a slot reused by a later response).
      if (atIndex !== undefined && (id === '' || atIndex.toolCallId === '' || atIndex.toolCallId === id)) call = atIndex;
    }
    if (call === undefined) {
      if (!create) return undefined;
      call = new Call(id, index);
      this.#open.add(call);
      if (id !== '') this.#byId.set(id, call);
      if (index !== undefined) this.#byIndex.set(index, call);
      return call;
    }
    if (id !== '' && call.toolCallId === '') {
      call.toolCallId = id;
      this.#byId.set(id, call);
    }
    if (index !== undefined && call.index === undefined) {
      call.index = index;
      this.#byIndex.set(index, call);
    }
    return call;
  }

  #update(update: PathUpdate): Call {
    const index = update.index;
    if (!update.toolCallId && index === undefined) {
      throw new TypeError(
        'ToolCallRebuilder: a path update without toolCallId or index; use JsonFragmentRebuilder for the updates of a single document',
      );
    }
    const call = this.#find(update.toolCallId, index, true) as Call;
    if (call.source === 'text' || call.state !== 'streaming') return call;
    if (call.rebuilder === undefined) {
      if (update.path !== '' || !ROOT_STARTS.has(update.kind)) {
        // Updates that join midway cannot rebuild the value: the raw text stays the source.
        this.#useText(call);
        return call;
      }
      call.rebuilder = new JsonFragmentRebuilder();
      call.source = 'updates';
      call.pending = [];
      if (this.#undecided === call) this.#undecided = undefined;
    }
    try {
      call.rebuilder.push(update);
    } catch (error) {
      call.error = error as Error;
      call.state = 'failed';
      return call;
    }
    if (call.rebuilder.isComplete()) {
      call.state = 'complete';
      if (call.index !== undefined) this.#completedSlots.add(call.index);
      this.#release(call);
    }
    return call;
  }

  #text(index: number, chunk: string): Call | undefined {
    let call = this.#find(undefined, index, false);
    if (call === undefined) {
      if (this.#completedSlots.has(index)) return undefined;
      if (WHITESPACE_ONLY.test(chunk)) return undefined;
      call = this.#find(undefined, index, true) as Call;
    }
    if (call.source === 'updates' || call.state !== 'streaming' || chunk === '') return call;
    if (call.source === 'text') {
      this.#parse(call, chunk);
      return call;
    }
    call.pending.push(chunk);
    if (!WHITESPACE_ONLY.test(chunk)) this.#undecided = call;
    return call;
  }

  /** Decide for the raw text: parse what was held. */
  #useText(call: Call): void {
    if (this.#undecided === call) this.#undecided = undefined;
    if (call.source !== undefined || call.state !== 'streaming') return;
    call.source = 'text';
    const pending = call.pending;
    call.pending = [];
    for (const chunk of pending) if (call.state === 'streaming') this.#parse(call, chunk);
  }

  #parse(call: Call, chunk: string): void {
    call.parser ??= new IncrementalJsonValueParser(this.#options);
    if (!call.begun) call.begun = !WHITESPACE_ONLY.test(chunk);
    try {
      call.parser.push(chunk);
    } catch (error) {
      this.#fail(call, error);
    }
  }

  /** The call's slot is flushed (or the input ended): settle its state and release it. */
  /** `endOfInput`: the input ended with the call open, so no arguments at all means it was cut. */
  #close(call: Call, endOfInput = false): void {
    if (call.source === undefined && call.pending.some((chunk) => !WHITESPACE_ONLY.test(chunk))) this.#useText(call);
    if (this.#undecided === call) this.#undecided = undefined;
    if (call.state === 'streaming') {
      if (call.rebuilder !== undefined) call.state = 'truncated';
      else if (call.parser !== undefined) {
        try {
          call.parser.end();
          call.state = 'complete';
        } catch (error) {
          if (!(error instanceof JsonStreamError) || error.code !== 'unexpected-end') this.#fail(call, error);
          else if (call.begun || call.parser.snapshot() !== undefined) call.state = 'truncated';
          else {
            // Only whitespace: no arguments, as collectTurn reads it (cut, at the end of input).
            call.parser = undefined;
            this.#noArguments(call, endOfInput);
          }
        }
      } else this.#noArguments(call, endOfInput);
    }
    this.#release(call);
  }

  /** A call closed without any argument value: `{}`, unless the input ended before its first byte. */
  #noArguments(call: Call, endOfInput: boolean): void {
    call.empty = !endOfInput;
    call.state = endOfInput ? 'truncated' : 'complete';
  }

  #fail(call: Call, error: unknown): void {
    if (!(error instanceof JsonStreamError)) throw error;
    call.error = new ToolCallArgumentsError(call.toolCallId, call.toolName, call.index ?? -1, error);
    call.state = 'failed';
  }

  #release(call: Call): void {
    if (this.#undecided === call) this.#undecided = undefined;
    this.#open.delete(call);
    if (this.#byId.get(call.toolCallId) === call) this.#byId.delete(call.toolCallId);
    if (call.index !== undefined && this.#byIndex.get(call.index) === call) this.#byIndex.delete(call.index);
  }
}
