/**
 * Path updates (the JsonFragment protocol): the recursive fragments of a JSON document flattened
 * into self-contained updates `{path, kind, …}` with a JSON Pointer `path`, for a client that
 * rebuilds the value (a browser receiving them over SSE).
 *
 * @module
 */
import { newPlace, placeOf } from '../json/deep-fragment.ts';
import { escapeToken } from '../json/json-pointer.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { FINAL_EVENTS, TurnBuilder } from '../turn/turn-builder.ts';
import type { StreamFragment, ValueKind } from '../types.ts';
import type { PipelineEvent } from '../view-types.ts';
import { retainLast } from '../retain.ts';
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
   * member of the first element of `files`; `~` is written `~0` and `/` is written `~1`. By
   * default it is relative to the previous update's path when the two share their first step (it
   * then begins with a digit: see {@link PathUpdateEncoderOptions.relativePaths});
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
 * updates out. State is the stack of open values, O(depth); each fragment costs O(1) (relative
 * paths) plus the steps its path writes.
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
  /** Send paths relative to the previous update's (see {@link PathUpdateEncoderOptions}). */
  readonly #relative: boolean;
  /** Open objects, arrays and (on top) strings, outermost first. */
  readonly #open: ValueKind[] = [];
  /** The step (key or index) of the current element of each open container, outermost first. */
  readonly #steps: (string | number)[] = [];
  /** Absolute mode: the pointer of the steps up to each depth, each built from the one above. */
  readonly #pointers: string[] = [];
  /** Relative mode: the previous update's path length, and the first step changed since. */
  #previous = 0;
  #changed = 0;
  /** A scalar was just sent: its `done` only confirms it. */
  #afterScalar = false;
  #started = false;
  #complete = false;
  readonly #place = newPlace();

  constructor(options: PathUpdateEncoderOptions = {}) {
    this.#relative = options.relativePaths !== false;
  }

  /** True once `json-complete` has been produced. */
  get complete(): boolean {
    return this.#complete;
  }

  /** The path of an update `depth` steps down: absolute, or relative to the previous update's. */
  #path(depth: number): string {
    if (!this.#relative) return depth === 0 ? '' : (this.#pointers[depth - 1] as string);
    const common = Math.min(this.#previous, depth, this.#changed);
    const up = this.#previous - common;
    this.#previous = depth;
    this.#changed = depth;
    let pointer = '';
    for (let d = common; d < depth; d++) pointer += '/' + token(this.#steps[d] as string | number);
    return common === 0 ? pointer : String(up) + pointer;
  }

  /** The element `step` of the container at `depth - 1` begins. */
  #enter(depth: number, step: string | number): void {
    this.#steps[depth - 1] = step;
    if (this.#relative) {
      if (this.#changed > depth - 1) this.#changed = depth - 1;
    } else this.#pointers[depth - 1] = (depth === 1 ? '' : (this.#pointers[depth - 2] as string)) + '/' + token(step);
  }

  /**
   * Apply one fragment; appends its updates to `out` (returned). `call`, when given, is copied
   * into every update. O(1) per fragment, plus the steps a relative path writes.
   */
  push(fragment: StreamFragment, out: PathUpdate[] = [], call?: CallIdentity): PathUpdate[] {
    if (this.#complete) throw new TypeError('PathUpdateEncoder: the document is already complete');
    // Fragments come in document order, so only the innermost step can be new: the steps above
    // it are the ones this encoder keeps.
    const { leaf, depth, key, index } = placeOf(fragment, this.#place);
    const open = this.#open;
    const steps = this.#steps;
    const top = open[open.length - 1];
    const containers = top === 'string' ? open.length - 1 : open.length;
    const step = key ?? index;
    switch (leaf.type) {
      case 'start':
      case 'scalar': {
        if (this.#afterScalar || top === 'string' || depth !== containers || (depth === 0 && this.#started)) misplaced(fragment);
        if (depth > 0) {
          // An `entry` belongs in an object, an `item` (the next index) in an array.
          const inObject = open[depth - 1] === 'object';
          if (inObject ? key === undefined : index !== (steps[depth - 1] === undefined ? 0 : (steps[depth - 1] as number) + 1)) misplaced(fragment);
          this.#enter(depth, step);
          if (inObject) out.push(make({ kind: 'key', path: this.#path(depth), textValue: key as string }, call));
        }
        this.#started = true;
        const path = this.#path(depth);
        if (leaf.type === 'start') {
          out.push(make({ kind: START_KIND[leaf.kind], path }, call));
          open.push(leaf.kind);
          if (leaf.kind !== 'string') steps.length = open.length - 1;
        } else {
          const value = leaf.value;
          if (typeof value === 'number') {
            out.push(make(leaf.raw === undefined ? { kind: 'complete-number', path, value } : { kind: 'complete-number', path, value, raw: leaf.raw }, call));
          } else if (typeof value === 'boolean') out.push(make({ kind: 'complete-boolean', path, value }, call));
          else out.push(make({ kind: 'complete-null', path, value: null }, call));
          this.#afterScalar = true;
        }
        break;
      }
      case 'string':
        if (this.#afterScalar || top !== 'string' || depth !== containers || (depth > 0 && step !== steps[depth - 1])) misplaced(fragment);
        out.push(make({ kind: 'partial-string', path: this.#path(depth), textValue: leaf.text }, call));
        break;
      case 'done':
        if (depth > 0 && step !== steps[depth - 1]) misplaced(fragment);
        if (this.#afterScalar) {
          if (depth !== containers) misplaced(fragment);
          this.#afterScalar = false;
        } else {
          if (top === undefined || depth !== open.length - 1) misplaced(fragment);
          open.pop();
          steps.length = depth;
          out.push(make({ kind: END_KIND[top], path: this.#path(depth) }, call));
        }
        if (open.length === 0) {
          this.#complete = true;
          out.push(make({ kind: 'json-complete', path: '' }, call));
          // Done, holding no keys: kept so that a full GC leaves the encoder's code optimised for
          // the next document (see retain.ts).
          this.#pointers.length = 0;
          retainLast(PathUpdateEncoder, this);
        }
        break;
      default:
        return leaf satisfies never;
    }
    return out;
  }
}

/** A step as a JSON Pointer token. */
function token(step: string | number): string {
  return typeof step === 'number' ? String(step) : escapeToken(step);
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
   * share their first step: a Relative JSON Pointer, `N` then a pointer, meaning "drop the last N
   * tokens of the previous path, then append the pointer" (`0` is the same path, `1/5` the next
   * sibling of `/a/4`). A document's relayed size then stays proportional to its text, however long
   * its keys and however deep (absolute paths repeat every key in every update below it: a 100 KB
   * key over 10,000 numbers is 1 GB of paths). The first update of a document and `json-complete`
   * are absolute (`""`). `JsonFragmentRebuilder`, `ToolCallRebuilder` and `TerminalSink` read both
   * forms; `false` gives every update its absolute pointer (each the same string object as its
   * parent's plus one token, so cheap in memory, but not on the wire).
   * @default true
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
    const { keepProgress = false, relativePaths = true, ...progress } = options;
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
