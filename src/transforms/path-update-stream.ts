/**
 * Path updates (the JsonFragment protocol): the recursive fragments of a JSON document flattened
 * into self-contained updates `{path, kind, …}` with a JSON Pointer `path`, for a client that
 * rebuilds the value (a browser receiving them over SSE).
 *
 * @module
 */
import { escapeToken } from '../json/json-pointer.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { FINAL_EVENTS, TurnBuilder } from '../turn/turn-builder.ts';
import type { StreamFragment, ValueKind } from '../types.ts';
import type { PipelineEvent } from '../view-types.ts';
import { ChainedCore, type PushCore, Stage } from './stage.ts';

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
   * member of the first element of `files`; `~` is written `~0` and `/` is written `~1`. With
   * `relativePaths`, it may instead be relative to the previous update's path (it then begins
   * with a digit: see {@link PathUpdateEncoderOptions.relativePaths}).
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

/** The identity a tool call's updates carry. */
interface CallIdentity {
  readonly toolCallId: string;
  readonly index: number;
  readonly structured?: true;
}

const START_KIND = { object: 'start-object', array: 'start-array', string: 'start-string' } as const;
const END_KIND = { object: 'end-object', array: 'end-array', string: 'complete-string' } as const;

type Body =
  | Omit<PathUpdateMark, 'type'>
  | Omit<PathUpdateKey, 'type'>
  | Omit<PathUpdatePartialString, 'type'>
  | Omit<PathUpdateCompleteString, 'type'>
  | Omit<PathUpdateNumber, 'type'>
  | Omit<PathUpdateBoolean, 'type'>
  | Omit<PathUpdateNull, 'type'>
  | Omit<PathUpdateJsonComplete, 'type'>;

function make(body: Body, call: CallIdentity | undefined): PathUpdate {
  return (call === undefined
    ? { type: 'path-update', ...body }
    : call.structured
      ? { type: 'path-update', index: call.index, structured: true, ...body }
      : { type: 'path-update', toolCallId: call.toolCallId, index: call.index, ...body }) as PathUpdate;
}

/**
 * The synchronous core of {@link PathUpdateStream} for one JSON document: fragments in, path
 * updates out. State is the stack of open values, O(depth); each fragment costs O(its path).
 *
 * @throws {TypeError} from `push` when fragments arrive out of order (not from one parser) or
 *   after the document is complete.
 * @example
 * ```ts
 * const parser = new IncrementalJsonParser();
 * const encoder = new PathUpdateEncoder();
 * for (const fragment of parser.push('{"a":[true]}')) console.log(encoder.push(fragment));
 * // start-object "", key "/a", start-array "/a", complete-boolean "/a/0", end-array "/a", end-object "", json-complete ""
 * ```
 */
export class PathUpdateEncoder {
  /** Send paths relative to the previous update's when shorter (see {@link PathUpdateEncoderOptions}). */
  readonly #relative: boolean;
  /** The keys and indices of the previous update's path (relative mode only). */
  #previous: (string | number)[] = [];
  /** Open objects, arrays and (on top) strings, outermost first. */
  readonly #open: ValueKind[] = [];
  /** A scalar was just sent: its `done` only confirms it. */
  #afterScalar = false;
  #started = false;
  #complete = false;

  constructor(options: PathUpdateEncoderOptions = {}) {
    this.#relative = options.relativePaths === true;
  }

  /** True once `json-complete` has been produced. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * The path to send for an update at `steps` (keys and indices): without `relativePaths`, the
   * absolute pointer `full`; with it, relative to the previous update's path when the two share
   * their first step (keys are compared as the parser gave them, the same string each time).
   */
  #at(steps: (string | number)[], full: string): string {
    if (!this.#relative) return full;
    const previous = this.#previous;
    this.#previous = steps;
    let common = 0;
    while (common < steps.length && common < previous.length && steps[common] === previous[common]) common++;
    if (common === 0) return pointerOf(steps, 0);
    return String(previous.length - common) + pointerOf(steps, common);
  }

  /**
   * Apply one fragment; appends its updates to `out` (returned). `call`, when given, is copied
   * into every update.
   */
  push(fragment: StreamFragment, out: PathUpdate[] = [], call?: CallIdentity): PathUpdate[] {
    if (this.#complete) throw new TypeError('PathUpdateEncoder: the document is already complete');
    const relative = this.#relative;
    // Relative paths need only the steps; the absolute pointer is then made for what differs.
    let full = '';
    const tokens: (string | number)[] = [];
    let leaf = fragment;
    let key: string | undefined;
    let depth = 0;
    while (leaf.type === 'entry' || leaf.type === 'item') {
      if (leaf.type === 'entry') {
        key = leaf.key;
        if (relative) tokens.push(key);
        else full += '/' + escapeToken(key);
      } else {
        key = undefined;
        if (relative) tokens.push(leaf.index);
        else full += '/' + String(leaf.index);
      }
      leaf = leaf.value;
      depth++;
    }
    // Each update's own path: relative to the update before it, when asked for and shorter.
    let path = full;
    const open = this.#open;
    const top = open[open.length - 1];
    const containers = top === 'string' ? open.length - 1 : open.length;
    switch (leaf.type) {
      case 'start':
      case 'scalar':
        if (this.#afterScalar || top === 'string' || depth !== containers || (depth === 0 && this.#started)) misplaced(fragment);
        // An `entry` belongs in an object, an `item` in an array.
        if (depth > 0 && (key !== undefined) !== (open[depth - 1] === 'object')) misplaced(fragment);
        this.#started = true;
        if (key !== undefined && depth > 0) out.push(make({ kind: 'key', path: (path = this.#at(tokens, full)), textValue: key }, call));
        if (leaf.type === 'start') {
          out.push(make({ kind: START_KIND[leaf.kind], path: (path = this.#at(tokens, full)) }, call));
          open.push(leaf.kind);
        } else {
          const value = leaf.value;
          if (relative) path = this.#at(tokens, full);
          if (typeof value === 'number') {
            out.push(make(leaf.raw === undefined ? { kind: 'complete-number', path, value } : { kind: 'complete-number', path, value, raw: leaf.raw }, call));
          } else if (typeof value === 'boolean') out.push(make({ kind: 'complete-boolean', path, value }, call));
          else out.push(make({ kind: 'complete-null', path, value: null }, call));
          this.#afterScalar = true;
        }
        break;
      case 'string':
        if (this.#afterScalar || top !== 'string' || depth !== containers) misplaced(fragment);
        out.push(make({ kind: 'partial-string', path: this.#at(tokens, full), textValue: leaf.text }, call));
        break;
      case 'done':
        if (this.#afterScalar) {
          if (depth !== containers) misplaced(fragment);
          this.#afterScalar = false;
        } else {
          if (top === undefined || depth !== open.length - 1) misplaced(fragment);
          open.pop();
          out.push(make({ kind: END_KIND[top], path: this.#at(tokens, full) }, call));
        }
        if (open.length === 0) {
          this.#complete = true;
          this.#previous = [];
          out.push(make({ kind: 'json-complete', path: '' }, call));
        }
        break;
      default:
        return leaf satisfies never;
    }
    return out;
  }
}

/** The JSON Pointer of `steps` from `from` on. */
function pointerOf(steps: readonly (string | number)[], from: number): string {
  let pointer = '';
  for (let i = from; i < steps.length; i++) {
    const step = steps[i] as string | number;
    pointer += '/' + (typeof step === 'number' ? String(step) : escapeToken(step));
  }
  return pointer;
}

function misplaced(fragment: StreamFragment): never {
  throw new TypeError(`PathUpdateEncoder: fragment out of order: ${JSON.stringify(fragment).slice(0, 80)}`);
}

const FRAGMENT_TYPES: ReadonlySet<string> = new Set(['start', 'string', 'scalar', 'entry', 'item', 'done']);

/** What {@link PathUpdateStream} accepts: fragments of one document, or any pipeline event. */
export type PathUpdateStreamInput = StreamFragment | PipelineEvent;

/** What {@link PathUpdateStream} emits: updates, and every event it does not own. */
export type PathUpdateStreamOutput = PathUpdate | PipelineEvent;

/** Options of {@link PathUpdateStream} and {@link PathUpdateCore}. */
export interface PathUpdateStreamOptions extends JsonLimits, PathUpdateEncoderOptions {
  /**
   * Keep the `tool-call-progress` (and `structured-progress`) events in the output, each before
   * its updates (to chain another view after this one).
   * @default false
   */
  readonly keepProgress?: boolean;
  /** As `ToolCallProgressStream`'s, for the arguments this stage parses itself. @default false */
  readonly isolateErrors?: boolean;
  /** As `ToolCallProgressStream`'s, for the arguments this stage parses itself. @default false */
  readonly repair?: boolean;
}

/** Options of {@link PathUpdateEncoder}. */
export interface PathUpdateEncoderOptions {
  /**
   * Send an update's `path` relative to the previous update's (of the same document) when the two
   * share their first step: a Relative JSON Pointer, `N` then a pointer, meaning "drop the last N tokens of the
   * previous path, then append the pointer" (`0` is the same path, `1/5` the next sibling of
   * `/a/4`). A document's relayed size then stays proportional to its text, however long its keys
   * (absolute paths repeat every key in every update below it). The first update of a document
   * and `json-complete` stay absolute (`""`). `JsonFragmentRebuilder` and `ToolCallRebuilder`
   * read both forms.
   * @default false
   */
  readonly relativePaths?: boolean;
}

/** Progress and fragments → path updates; one {@link PathUpdateEncoder} per call. */
class PathUpdateSplitter implements PushCore<PathUpdateStreamInput, PathUpdateStreamOutput> {
  #document: PathUpdateEncoder | undefined;
  readonly #calls = new Map<number, PathUpdateEncoder>();
  readonly #keepProgress: boolean;
  readonly #encoder: PathUpdateEncoderOptions;

  constructor(keepProgress: boolean, encoder: PathUpdateEncoderOptions) {
    this.#keepProgress = keepProgress;
    this.#encoder = encoder;
  }

  push(input: PathUpdateStreamInput, out: PathUpdateStreamOutput[] = []): PathUpdateStreamOutput[] {
    if (input.type === 'tool-call-progress' || input.type === 'structured-progress') {
      if (this.#keepProgress) out.push(input);
      let encoder = this.#calls.get(input.index);
      if (encoder === undefined) {
        encoder = new PathUpdateEncoder(this.#encoder);
        this.#calls.set(input.index, encoder);
      }
      encoder.push(input.fragment, out as PathUpdate[], input.type === 'tool-call-progress' ? input : { toolCallId: '', index: input.index, structured: true });
      if (encoder.complete) this.#calls.delete(input.index);
    } else if (FRAGMENT_TYPES.has(input.type)) {
      this.#document ??= new PathUpdateEncoder(this.#encoder);
      this.#document.push(input as StreamFragment, out as PathUpdate[]);
    } else {
      if (input.type === 'flush' || FINAL_EVENTS.has(input.type)) this.#calls.delete((input as { readonly index: number }).index);
      out.push(input as PipelineEvent);
    }
    return out;
  }

  end(out: PathUpdateStreamOutput[] = []): PathUpdateStreamOutput[] {
    return out;
  }
}

/**
 * The core of {@link PathUpdateStream}: `push(input) → outputs`, `end() → outputs`. Argument text
 * that no stage before it parsed is parsed here first, as `ToolCallProgressStream` would.
 */
export class PathUpdateCore extends ChainedCore<PathUpdateStreamInput, PathUpdateStreamInput, PathUpdateStreamOutput> {
  constructor(options: PathUpdateStreamOptions = {}) {
    const { keepProgress = false, relativePaths = false, ...progress } = options;
    super(
      new TurnBuilder({ ...progress, progress: true, messages: false }) as PushCore<PathUpdateStreamInput, PathUpdateStreamInput>,
      new PathUpdateSplitter(keepProgress, { relativePaths }),
    );
  }
}

/**
 * Fragments or pipeline events → flat {@link PathUpdate}s with JSON Pointer paths.
 *
 * - A stream of bare {@link StreamFragment}s is one document; its updates carry no call identity.
 * - `tool-call-progress` events are replaced by their updates, each carrying the call's
 *   `toolCallId` (as known when the fragment was made, possibly `""` at first) and `index`;
 *   calls interleave freely. Raw argument parts with no progress stage before are parsed here
 *   first. `structured-progress` events (structured output) likewise, their updates carrying
 *   `index` and `structured: true` instead of a `toolCallId`. Every other event (text and reasoning parts, `tool-call-start`, the call's `tool-call`
 *   event, `finished`, …) passes through unchanged and in place, so a downstream
 *   {@link ToolCallRebuilder} still sees tool names and the end of each call, and a relay sends
 *   the updates and the text without raw argument chunks.
 *
 * A `key` update is sent when its member's value begins (the fragments reveal the key then),
 * immediately before the value's first update. Per-call state, O(depth), is released at the
 * call's `json-complete` or its conversation event.
 *
 * `flush` emits nothing of its own: a document that is still open simply ends without
 * `json-complete` (the call's `tool-call-incomplete` says so). Fragments out of order error the
 * stream with a `TypeError`, after the updates made before it have been delivered.
 *
 * @example
 * ```ts
 * const updates = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new PathUpdateStream());
 * for await (const update of updates) sse.send(JSON.stringify(update)); // a ToolCallRebuilder in the browser
 * ```
 */
export class PathUpdateStream extends Stage<PathUpdateStreamInput, PathUpdateStreamOutput> {
  constructor(options: PathUpdateStreamOptions = {}) {
    super(new PathUpdateCore(options));
  }
}
