import type {
  ConversationEvent,
  StreamEvent,
  StreamFragment,
  StructuredProgress,
  ToolCallArgumentProgress,
} from '../types.ts';
import type { FieldEvent, StreamingToolCallEvent } from '../view-types.ts';
import { newPlace, placeOf, withLeaf } from '../json/deep-fragment.ts';
import { drained } from './fail-after-drain.ts';
import type { PushCore } from './stage.ts';

/** What {@link CoalesceStream} understands; anything else passes through as a boundary. */
export type CoalesceInput =
  | StreamFragment
  | ToolCallArgumentProgress
  | StructuredProgress
  | StreamEvent
  | ConversationEvent
  | FieldEvent
  | StreamingToolCallEvent;

/** Options of {@link CoalesceStream}. */
export interface CoalesceStreamOptions {
  /**
   * Emit what is held once it reaches this many UTF-16 code units. A
   * piece longer than this goes out at once. Finite: it is the cap on what the stage holds.
   * @default 1024
   */
  readonly maxChars?: number;
  /**
   * Emit what is held at most this long after its first piece arrived, in milliseconds (one
   * animation frame by default). `Infinity`: no timer; only size and boundaries emit.
   * @default 16
   */
  readonly maxDelayMs?: number;
}

const DEFAULT_MAX_CHARS = 1024;
const DEFAULT_MAX_DELAY_MS = 16;

/** The text pieces held for one target, and the first piece's item (the template). */
interface Lane<T> {
  readonly first: T;
  readonly texts: string[];
}

/** A mergeable piece: its target and its text. */
interface Piece {
  readonly target: string;
  readonly text: string;
}

/**
 * `"/k\"a\"/i0"`: an unambiguous key for a fragment's path, and its leaf. A deep fragment's path
 * is named by its innermost step's identity (`#12`), so it is not written out per fragment.
 */
function fragmentPiece(fragment: StreamFragment, prefix: string): Piece | undefined {
  const { leaf, step } = placeOf(fragment, place);
  if (leaf.type !== 'string') return undefined;
  if (step !== undefined) return { target: prefix + '#' + step.id, text: leaf.text };
  let target = prefix;
  for (let wrapper = fragment; wrapper.type === 'entry' || wrapper.type === 'item'; wrapper = wrapper.value) {
    target += wrapper.type === 'entry' ? '/k' + JSON.stringify(wrapper.key) : '/i' + wrapper.index;
  }
  return { target, text: leaf.text };
}

const place = /* @__PURE__ */ newPlace();

function withText(fragment: StreamFragment, text: string): StreamFragment {
  return withLeaf(fragment, { type: 'string', text });
}

/** The target and text of a mergeable item; `undefined` for a boundary. */
function pieceOf(item: CoalesceInput): Piece | undefined {
  switch (item.type) {
    case 'string':
    case 'entry':
    case 'item':
      return fragmentPiece(item, 'f');
    case 'tool-call-progress':
      return fragmentPiece(item.fragment, `p${item.index}\u0000${item.toolCallId}\u0000${item.toolName}\u0000`);
    case 'structured-progress':
      return fragmentPiece(item.fragment, `s${item.index}\u0000`);
    case 'field-delta':
      return { target: `d${item.index ?? ''}\u0000${item.toolCallId ?? ''}\u0000${item.toolName ?? ''}\u0000${item.key}`, text: item.text };
    case 'streaming-tool-call':
      if (item.isComplete || item.argumentsDelta === '') return undefined;
      return { target: `c${item.index}\u0000${item.toolCallId}\u0000${item.toolName}\u0000${item.messageId ?? ''}`, text: item.argumentsDelta };
    case 'part': {
      // Metadata would be lost in a merge: a part that carries some is a boundary.
      if (item.metadata !== undefined) return undefined;
      const part = item.part;
      if (part.type === 'message' || part.type === 'reasoning') return { target: `m${item.index}\u0000${part.type}`, text: part.text };
      if (part.type === 'tool-call-arguments') return { target: `a${item.index}`, text: part.chunk };
      if (part.type === 'structured') return { target: `j${item.index}`, text: part.json };
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The first item of a lane with its text replaced by the lane's whole text. */
function merge<T>(first: T, text: string): T {
  const item = first as CoalesceInput;
  switch (item.type) {
    case 'string':
    case 'entry':
    case 'item':
      return withText(item, text) as T;
    case 'tool-call-progress':
    case 'structured-progress':
      return { ...item, fragment: withText(item.fragment, text) } as T;
    case 'field-delta':
      return { ...item, text } as T;
    case 'streaming-tool-call':
      return { ...item, argumentsDelta: text } as T;
    case 'part': {
      const part = item.part;
      if (part.type === 'tool-call-arguments') return { ...item, part: { ...part, chunk: text } } as T;
      if (part.type === 'structured') return { ...item, part: { ...part, json: text } } as T;
      return { ...item, part: { ...part, text } } as T;
    }
    default:
      throw new TypeError('CoalesceStream: not a mergeable item');
  }
}

/**
 * The synchronous core of {@link CoalesceStream}: `push(item) → outputs`, `flush() → outputs`
 * (what is held, now), `end() → outputs` (the same, at the end of input). It knows no time: the
 * stream calls `flush` when `maxDelayMs` is spent; without streams, call it once per frame.
 *
 * @example
 * ```ts
 * const coalescer = new Coalescer();
 * const ready: PipelineEvent[] = [];
 * for (const event of events) coalescer.push(event, ready); // text for one place waits inside
 * render(coalescer.flush(ready.splice(0)));                 // once per frame: all, in order
 * ```
 */
export class Coalescer<T> implements PushCore<T, T> {
  readonly #maxChars: number;
  /** The pieces held: a run of adjacent pieces for one target. */
  #lane: (Lane<T> & { readonly target: string }) | undefined;
  #held = 0;

  constructor(maxChars = DEFAULT_MAX_CHARS) {
    this.#maxChars = checkOption('maxChars', maxChars, DEFAULT_MAX_CHARS, 1, false);
  }

  /** True while pieces are held. */
  get pending(): boolean {
    return this.#lane !== undefined;
  }

  push(item: T, out: T[] = []): T[] {
    const piece = item !== null && typeof item === 'object' ? pieceOf(item as unknown as CoalesceInput) : undefined;
    if (piece === undefined || piece.text === '') {
      this.flush(out);
      out.push(item);
      return out;
    }
    // A piece for another target ends the run: merging across it would reorder the stream.
    if (this.#lane !== undefined && this.#lane.target !== piece.target) this.flush(out);
    if (this.#lane === undefined) this.#lane = { target: piece.target, first: item, texts: [piece.text] };
    else this.#lane.texts.push(piece.text);
    this.#held += piece.text.length;
    if (this.#held >= this.#maxChars) this.flush(out);
    return out;
  }

  /** The input ended: emit what is held. */
  end(out: T[] = []): T[] {
    return this.flush(out);
  }

  /** Emit the held run as one item. */
  flush(out: T[] = []): T[] {
    const lane = this.#lane;
    if (lane !== undefined) out.push(lane.texts.length === 1 ? lane.first : merge(lane.first, lane.texts.join('')));
    this.#lane = undefined;
    this.#held = 0;
    return out;
  }
}

function checkOption(name: string, value: number | undefined, fallback: number, min: number, infinite: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (!infinite && value === Infinity)) {
    throw new RangeError(`CoalesceStream: ${name} must be a number ≥ ${min}${infinite ? ' or Infinity' : ''}, got ${String(value)}`);
  }
  return value;
}

/**
 * Merges streamed text pieces bound for the same target, so an interface re-renders a few
 * times a second instead of once per token. Items pass through unchanged except that runs of
 * mergeable pieces become one item carrying their joined text (the first piece's item with its
 * text replaced).
 *
 * **Mergeable pieces** and their targets:
 * - a `string` fragment (plain fragments): its path;
 * - a `tool-call-progress` / `structured-progress` event whose fragment is a string piece: the
 *   slot, the call's identity and the path;
 * - a `field-delta`: the slot, the call and the key;
 * - a `streaming-tool-call` delta (not the completion, not an empty announcement): the call;
 * - a `part` with `message`, `reasoning`, `tool-call-arguments` or `structured` text and no
 *   metadata: the slot and the part type.
 *
 * **Everything else is a boundary** (`start`, `scalar`, `done`, `field-start`, `field-end`,
 * `flush`, `finished`, conversation events, parts with metadata, items it does not know): it
 * first emits everything held, then itself. Only *adjacent* pieces for the same target merge: a
 * piece for another target is a boundary too, so the stream is never reordered. Feed it the
 * events you render: after `ToolCallProgressStream` or a view, the pieces of one string are
 * adjacent (the raw argument parts are gone); after `ConversationEventStream({ passthrough: true,
 * progress: true })` the raw parts sit between them, so filter them out first.
 *
 * Held text is emitted when it reaches `maxChars`, `maxDelayMs` after its first piece (a timer,
 * cleared whenever the held text goes out some other way), at a boundary, and at the end of
 * input (`flush` emits everything held; no timer outlives the stream). If the stream is
 * cancelled or errored while text is held, the held text is dropped and the timer cleared; what
 * was already emitted still reaches the reader before an error from upstream.
 *
 * @throws {RangeError} from the constructor for a `maxChars` < 1 or infinite, or a negative `maxDelayMs`.
 * @example
 * ```ts
 * const updates = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new ToolCallProgressStream())
 *   .pipeThrough(new FieldEventStream())
 *   .pipeThrough(new CoalesceStream({ maxDelayMs: 50 }));
 * for await (const event of updates) render(event); // ≈ 20 renders a second at most per field
 * ```
 */
export class CoalesceStream<T = CoalesceInput> extends TransformStream<T, T> {
  constructor(options: CoalesceStreamOptions = {}) {
    const maxChars = checkOption('maxChars', options.maxChars, DEFAULT_MAX_CHARS, 1, false);
    const maxDelayMs = checkOption('maxDelayMs', options.maxDelayMs, DEFAULT_MAX_DELAY_MS, 0, true);
    const core = new Coalescer<T>(maxChars);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const clear = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    const expire = (controller: TransformStreamDefaultController<T>): void => {
      timer = undefined;
      // An errored or cancelled stream takes nothing more (desiredSize is null): drop the text.
      if (controller.desiredSize === null) {
        core.flush();
        return;
      }
      for (const item of core.flush()) controller.enqueue(item);
    };
    let readable: TransformStreamDefaultController<T> | undefined;
    super({
      start: (controller) => {
        readable = controller;
      },
      transform: (item, controller) => {
        for (const out of core.push(item)) controller.enqueue(out);
        if (!core.pending) clear();
        else if (timer === undefined && maxDelayMs !== Infinity) {
          timer = setTimeout(() => expire(controller), maxDelayMs);
        }
      },
      flush: (controller) => {
        clear();
        for (const item of core.flush()) controller.enqueue(item);
      },
      // Runtimes that call a transformer's `cancel` (the readable side was cancelled, or the
      // writable side aborted) clear the timer at once; on the others, `expire` sees the error.
      // An abort (the stage before failed) then waits until the reader has taken what was
      // already emitted, as the other stages do.
      cancel: () => {
        clear();
        core.flush();
        return readable === undefined ? undefined : drained(readable as TransformStreamDefaultController<never>);
      },
    } as Transformer<T, T>);
  }
}
