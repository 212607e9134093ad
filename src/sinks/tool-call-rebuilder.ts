/**
 * Rebuilds the arguments of many interleaved tool calls on the client: from path updates where a
 * call has them, from its raw argument text where it has not (an older server).
 *
 * @module
 */
import { JsonStreamError, ToolCallArgumentsError } from '../errors.ts';
import { IncrementalJsonValueParser } from '../json/incremental-json-value-parser.ts';
import type { JsonLimits } from '../json/scanner.ts';
import type { PathUpdate } from '../transforms/path-update-stream.ts';
import type { JsonValue, StreamEvent } from '../types.ts';
import { JsonFragmentRebuilder } from './json-fragment-rebuilder.ts';

/** Options of {@link ToolCallRebuilder}: the limits of the parsers used for raw argument text. */
export interface ToolCallRebuilderOptions extends JsonLimits {}

/** What a {@link ToolCallRebuilder} accepts: path updates, stream events, anything else (ignored). */
export type ToolCallRebuilderInput = PathUpdate | StreamEvent | { readonly type: string };

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
  /** The arguments so far (live), `undefined` before any value began; `{}` for a call flushed with no arguments. */
  readonly value: JsonValue | undefined;
  /** What the value is built from: path updates, or raw argument text parsed incrementally. */
  readonly source: 'updates' | 'text' | undefined;
  readonly state: RebuiltToolCallState;
  /** Why the call failed: a `ToolCallArgumentsError` (raw text) or a `TypeError` (updates). */
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
  source: 'updates' | 'text' | undefined;
  state: RebuiltToolCallState = 'streaming';
  error: Error | undefined;
  rebuilder: JsonFragmentRebuilder | undefined;
  parser: IncrementalJsonValueParser | undefined;
  /** Flushed without any argument value: the arguments are `{}`. */
  empty = false;

  constructor(toolCallId: string, index: number | undefined) {
    this.toolCallId = toolCallId;
    this.index = index;
  }

  get value(): JsonValue | undefined {
    if (this.rebuilder !== undefined) return this.rebuilder.value;
    if (this.parser !== undefined) return this.parser.snapshot();
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
 * later for a call known by its index is adopted. Look calls up with `get(id)` or `get(index)`.
 *
 * **Sources.** A call's value comes from its {@link PathUpdate}s once an update at the call's root
 * (`path: ""`) arrives; until then — and for good, for a call that never gets updates — its raw
 * `tool-call-arguments` text is parsed with an incremental parser (linear: each chunk is parsed
 * once, never the whole buffer again). Raw text is ignored for a call that has updates; updates
 * that start mid-call (not at the root) are ignored, the text stays the source.
 *
 * **Lifetime.** A call opens with its `tool-call-start` part or its first update or argument
 * chunk, and is released — dropped from the rebuilder, so state never accumulates — as soon as
 * it is complete (`json-complete`, or the raw text's document closed), or at its slot's `flush`
 * (then `truncated` if incomplete; with no arguments at all its value is `{}`, as `collectTurn`
 * reads it), or when it failed. Whitespace-only argument text for a slot with no open call (what
 * follows a document) is ignored. `push` returns the call the input concerned — the final view
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
 * for await (const event of events) {
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
    switch (input.type) {
      case 'path-update':
        return this.#update(input as PathUpdate);
      case 'part': {
        const { index, part } = input as Extract<StreamEvent, { type: 'part' }>;
        if (part.type === 'tool-call-start') {
          const call = this.#find(part.id, index, true) as Call;
          if (call.toolName === '' && part.name) call.toolName = part.name;
          return call;
        }
        if (part.type === 'tool-call-arguments') return this.#text(index, part.chunk);
        return undefined;
      }
      case 'flush': {
        const call = this.#find(undefined, (input as Extract<StreamEvent, { type: 'flush' }>).index, false);
        if (call !== undefined) this.#close(call);
        return call;
      }
      default:
        return undefined;
    }
  }

  /** The input ended: release every open call (ending raw-text parsers) and return them. */
  end(): RebuiltToolCall[] {
    const open = [...this.#open];
    for (const call of open) this.#close(call);
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
    if (call.rebuilder === undefined) {
      if (update.path !== '' || !ROOT_STARTS.has(update.kind)) return call;
      call.rebuilder = new JsonFragmentRebuilder();
      call.parser = undefined;
      call.source = 'updates';
    }
    try {
      call.rebuilder.push(update);
    } catch (error) {
      call.error = error as Error;
      call.state = 'failed';
      this.#release(call);
      return call;
    }
    if (call.rebuilder.isComplete()) {
      call.state = 'complete';
      this.#release(call);
    }
    return call;
  }

  #text(index: number, chunk: string): Call | undefined {
    let call = this.#find(undefined, index, false);
    if (call === undefined) {
      if (WHITESPACE_ONLY.test(chunk)) return undefined;
      call = this.#find(undefined, index, true) as Call;
    }
    if (call.rebuilder !== undefined || chunk === '') return call;
    if (call.parser === undefined) {
      call.parser = new IncrementalJsonValueParser(this.#options);
      call.source = 'text';
    }
    const parser = call.parser;
    try {
      parser.push(chunk);
      if (parser.complete) {
        parser.end();
        call.state = 'complete';
        this.#release(call);
      }
    } catch (error) {
      this.#fail(call, error);
    }
    return call;
  }

  /** The call's slot is flushed (or the input ended): settle its state and release it. */
  #close(call: Call): void {
    if (call.state === 'streaming') {
      if (call.rebuilder !== undefined) call.state = 'truncated';
      else if (call.parser !== undefined) {
        try {
          call.parser.end();
          call.state = 'complete';
        } catch (error) {
          if (!(error instanceof JsonStreamError) || error.code !== 'unexpected-end') this.#fail(call, error);
          else if (call.parser.snapshot() !== undefined) call.state = 'truncated';
          else {
            // Only whitespace: no arguments, as collectTurn reads it.
            call.parser = undefined;
            call.empty = true;
            call.state = 'complete';
          }
        }
      } else {
        call.empty = true;
        call.state = 'complete';
      }
    }
    this.#release(call);
  }

  #fail(call: Call, error: unknown): void {
    if (!(error instanceof JsonStreamError)) throw error;
    call.error = new ToolCallArgumentsError(call.toolCallId, call.toolName, call.index ?? -1, error);
    call.state = 'failed';
    this.#release(call);
  }

  #release(call: Call): void {
    this.#open.delete(call);
    if (this.#byId.get(call.toolCallId) === call) this.#byId.delete(call.toolCallId);
    if (call.index !== undefined && this.#byIndex.get(call.index) === call) this.#byIndex.delete(call.index);
  }
}
