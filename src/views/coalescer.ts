/**
 * The coalescing view's core: adjacent pieces of streamed text bound for the same target merged
 * into one item, so an interface re-renders a few times a second instead of once per token.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import { newPlace, placeOf, withLeaf } from '../json/deep-fragment.ts';
import type {
  ConversationEvent,
  FieldEvent,
  PathUpdate,
  StreamEvent,
  StreamFragment,
  StreamingToolCallEvent,
  StructuredProgress,
  ToolCallArgumentProgress,
} from '../types.ts';

/** What `CoalesceStream` understands; anything else passes through as a boundary. */
export type CoalesceInput =
  | StreamFragment
  | ToolCallArgumentProgress
  | StructuredProgress
  | StreamEvent
  | ConversationEvent
  | FieldEvent
  | PathUpdate
  | StreamingToolCallEvent;

/** Options of `CoalesceStream`. */
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

/** The defaults of {@link CoalesceStreamOptions}. Internal. */
export const DEFAULT_MAX_CHARS = 1024;
export const DEFAULT_MAX_DELAY_MS = 16;

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
    case 'path-update':
      // Between two boundaries (every other update is one), the pieces of one document are of one
      // string: the merged piece keeps the first one's path, absolute or relative.
      if (item.kind !== 'partial-string') return undefined;
      return { target: `u${item.index ?? ''}\u0000${item.toolCallId ?? ''}\u0000${item.structured === true ? 's' : ''}`, text: item.textValue };
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
    case 'path-update':
      return { ...item, textValue: text } as T;
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
 * The synchronous core of `CoalesceStream`: `push(item) → outputs`, `flush() → outputs`
 * (what is held, now), `end() → outputs` (the same, at the end of input). It knows no time: the
 * stream calls `flush` when `maxDelayMs` is spent; without streams, call it once per frame.
 *
 * Between two boundaries it holds one run per target, so pieces for different targets that
 * alternate — a progress event and the field delta a view made of it, parallel calls — each merge;
 * the runs go out at the next boundary (or flush) in the order of their first pieces.
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
  /** The pieces held since the last boundary, one run per target, in the order of their first pieces. */
  readonly #lanes = new Map<string, Lane<T>>();
  #held = 0;

  constructor(maxChars = DEFAULT_MAX_CHARS) {
    this.#maxChars = checkOption('maxChars', maxChars, DEFAULT_MAX_CHARS, 1, false);
  }

  /** True while pieces are held. */
  get pending(): boolean {
    return this.#held > 0;
  }

  push(item: T, out: T[] = []): T[] {
    const piece = item !== null && typeof item === 'object' ? pieceOf(item as unknown as CoalesceInput) : undefined;
    if (piece === undefined || piece.text === '') {
      this.flush(out);
      out.push(item);
      return out;
    }
    const lane = this.#lanes.get(piece.target);
    if (lane === undefined) this.#lanes.set(piece.target, { first: item, texts: [piece.text] });
    else lane.texts.push(piece.text);
    this.#held += piece.text.length;
    if (this.#held >= this.#maxChars) this.flush(out);
    return out;
  }

  /** The input ended: emit what is held. */
  end(out: T[] = []): T[] {
    return this.flush(out);
  }

  /** Emit each held run as one item, in the order of their first pieces. */
  flush(out: T[] = []): T[] {
    if (this.#held === 0) return out;
    for (const lane of this.#lanes.values()) out.push(lane.texts.length === 1 ? lane.first : merge(lane.first, lane.texts.join('')));
    this.#lanes.clear();
    this.#held = 0;
    return out;
  }
}

/** A numeric option, checked: `fallback` when not given. Internal. */
export function checkOption(name: string, value: number | undefined, fallback: number, min: number, infinite: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (!infinite && value === Infinity)) {
    throw new RangeError(`CoalesceStream: ${name} must be a number ≥ ${min}${infinite ? ' or Infinity' : ''}, got ${String(value)}`);
  }
  return value;
}
