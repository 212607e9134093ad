/**
 * The path-update core for one JSON document (the JsonFragment protocol): its recursive fragments
 * flattened into self-contained updates `{path, kind, …}` with a JSON Pointer `path`, for a client
 * that rebuilds the value (a browser receiving them over SSE).
 *
 * @module
 */
import { newPlace, placeOf } from '../json/deep-fragment.ts';
import { escapeToken } from '../json/json-pointer.ts';
import type {
  PathUpdate,
  PathUpdateBoolean,
  PathUpdateCompleteString,
  PathUpdateJsonComplete,
  PathUpdateKey,
  PathUpdateMark,
  PathUpdateNull,
  PathUpdateNumber,
  PathUpdatePartialString,
  StreamFragment,
  ValueKind,
} from '../types.ts';

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

/** The identity a tool call's path updates carry (`structured` for a structured-output document). */
export interface PathUpdateCallIdentity {
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

function make(body: Body, call: PathUpdateCallIdentity | undefined): PathUpdate {
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
  push(fragment: StreamFragment, out: PathUpdate[] = [], call?: PathUpdateCallIdentity): PathUpdate[] {
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
          this.#pointers.length = 0;
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
