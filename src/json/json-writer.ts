/**
 * The serializer: {@link StreamFragment}s → JSON text, piece by piece. Internal core shared by
 * `JsonTextStream` (a whole document) and `FieldEventStream` (the raw text of one field's value).
 *
 * @module
 */
import { JsonStreamError, shortPath } from '../errors.ts';
import type { JsonScalar, StreamFragment } from '../types.ts';
import { newPlace, placeOf } from './deep-fragment.ts';

interface Frame {
  readonly object: boolean;
  /** Members written so far. */
  count: number;
  /** Key of the latest member (objects). */
  key: string;
}

function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** JSON text of a scalar: the number as written when the parser kept it (`raw`). */
export function scalarText(value: JsonScalar, raw: string | undefined): string {
  if (raw !== undefined) return raw;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`JsonWriter: ${value} is not a JSON number`);
    return Object.is(value, -0) ? '-0' : String(value);
  }
  return String(value);
}

/**
 * Writes JSON text for the fragments of one document, in the order a parser emits them. Each
 * `push` returns the text that fragment completes, at once: a string piece as soon as it
 * arrives (escaped), a member's key with its value's first fragment (never half a key), a
 * closer with its `done`. No whitespace is written. Work and output are O(fragment); state is
 * O(depth).
 *
 * Strings are escaped by `JSON.stringify`, so lone surrogates come out as `\uXXXX` escapes
 * (well-formed JSON text) and `JSON.parse` of the output gives back the same value.
 *
 * @throws {TypeError} from `push` for a fragment out of order (not from one parser), or a number
 *   that JSON cannot write (`NaN`, `Infinity`).
 */
export class JsonWriter {
  readonly #frames: Frame[] = [];
  #inString = false;
  /** A scalar was written at this depth and waits for its `done` (−1: none). */
  #scalarDepth = -1;
  #started = false;
  #complete = false;
  #written = 0;
  readonly #place = newPlace();

  /**
   * The text that one fragment completes (possibly `''`). With `outer`, the fragment's first
   * `outer` wrappers are the path to the document this writer writes (a field's value inside the
   * arguments), so deep fragments are read without building their wrappers.
   */
  push(fragment: StreamFragment, outer = 0): string {
    if (this.#complete) throw new TypeError('JsonWriter: the document is already complete');
    const frames = this.#frames;
    const at = placeOf(fragment, this.#place);
    const { leaf, key, index } = at;
    const depth = at.depth - outer;
    let text: string;
    switch (leaf.type) {
      case 'start':
      case 'scalar': {
        if (depth !== frames.length || this.#inString || this.#scalarDepth !== -1 || (depth === 0 && this.#started)) {
          return misplaced(fragment);
        }
        text = '';
        if (depth > 0) {
          const frame = frames[depth - 1] as Frame;
          if (frame.object ? key === undefined : index !== frame.count) return misplaced(fragment);
          if (frame.count > 0) text = ',';
          if (frame.object) {
            frame.key = key as string;
            text += JSON.stringify(key) + ':';
          }
          frame.count++;
        }
        this.#started = true;
        if (leaf.type === 'scalar') {
          text += scalarText(leaf.value, leaf.raw);
          this.#scalarDepth = depth;
        } else if (leaf.kind === 'string') {
          text += '"';
          this.#inString = true;
        } else {
          const object = leaf.kind === 'object';
          frames.push({ object, count: 0, key: '' });
          text += object ? '{' : '[';
        }
        break;
      }
      case 'string':
        if (!this.#inString || depth !== frames.length) return misplaced(fragment);
        text = JSON.stringify(leaf.text);
        text = text.slice(1, text.length - 1);
        break;
      case 'done':
        if (this.#inString && depth === frames.length) {
          this.#inString = false;
          text = '"';
        } else if (this.#scalarDepth === depth) {
          this.#scalarDepth = -1;
          text = '';
        } else if (!this.#inString && this.#scalarDepth === -1 && depth === frames.length - 1) {
          text = (frames.pop() as Frame).object ? '}' : ']';
        } else return misplaced(fragment);
        if (depth === 0) this.#complete = true;
        break;
      default:
        return leaf satisfies never;
    }
    this.#written += text.length;
    return text;
  }

  /** True once the root value's `done` has been written. */
  get complete(): boolean {
    return this.#complete;
  }

  /** True once the root value has begun. */
  get started(): boolean {
    return this.#started;
  }

  /** UTF-16 code units written so far. */
  get length(): number {
    return this.#written;
  }

  /**
   * JSON Pointer of the innermost value still open (`""` for the root): the open string, or the
   * open container whose members are complete. Meaningful while the document is incomplete.
   */
  get path(): string {
    const frames = this.#frames;
    // A pending scalar is complete: its container is what stays open.
    const members = this.#inString ? frames.length : frames.length - 1;
    let pointer = '';
    for (let d = 0; d < members; d++) {
      const frame = frames[d] as Frame;
      pointer += '/' + (frame.object ? pointerToken(frame.key) : String(frame.count - 1));
    }
    return pointer;
  }

  /**
   * The text that closes what is open — a quote for an open string, then `}`/`]` for each open
   * container — so the output so far parses to the aggregator's snapshot. `''` when the
   * document is complete or has not begun. Does not change the writer.
   */
  closing(): string {
    let text = this.#inString ? '"' : '';
    for (let d = this.#frames.length - 1; d >= 0; d--) text += (this.#frames[d] as Frame).object ? '}' : ']';
    return text;
  }

  /**
   * The input ended: throws `unexpected-end` unless the document is complete. The error's
   * offset is the length of the text written, its path the innermost open value.
   */
  end(): void {
    if (this.#complete) return;
    const what = this.#started ? `'${this.closing().charAt(0)}'` : 'a value';
    throw new JsonStreamError(
      'unexpected-end',
      `Unexpected end of fragments after ${this.#written} characters of JSON text${this.#started && this.path !== '' ? ` in ${shortPath(this.path)}` : ''}: expected ${what}`,
      this.#written,
      this.#started ? this.path : '',
    );
  }
}

function misplaced(fragment: StreamFragment): never {
  throw new TypeError(`JsonWriter: fragment out of order: ${JSON.stringify(fragment).slice(0, 80)}`);
}
