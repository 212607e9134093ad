/**
 * `createPartialJsonParser()`: what the AI SDK's `parsePartialJson(text)` returns, for every
 * text, with work proportional to the new characters when each text extends the one before.
 *
 * `parsePartialJson(text)` tries `JSON.parse(text)` ('successful-parse'), then `JSON.parse` of
 * the repaired text ('repaired-parse'), else 'failed-parse'; both parses are the AI SDK's secure
 * parse, which refuses a `__proto__` member and a `constructor` whose value has a `prototype`. The
 * repaired text is a prefix of the text (what the repair keeps) followed by what closes it. Here,
 * three readers go along the text, each reading every character once:
 *
 * - the repair scanner (partial-json-repair.ts) says where the kept prefix ends and what closes it;
 * - a strict reader builds the values of the kept prefix (it never reads past it);
 * - a strict reader without values says whether the whole text is JSON as it stands.
 *
 * The repaired text is JSON exactly when the strict reader of the prefix can take the closing
 * characters: an open string's quote, the rest of a literal, then one bracket per open container
 * (which the two stacks agree on, level by level: {@link PartialJsonEngine}'s `#agree`). Its value
 * is then the prefix's values, copied along the path of open containers (a copy per call, so a
 * value handed out is never changed afterwards; what is complete is shared).
 *
 * @module
 */
import type { JsonValue } from '../types.ts';
import {
  AFTER,
  ARRAY,
  ARRAY_FIRST,
  DONE,
  ERROR,
  EXPONENT,
  FRACTION,
  INTEGER,
  JsonPrefixReader,
  LITERAL,
  LITERALS,
  OBJECT_FIRST,
  STRING,
  ZERO,
  type StackListener,
} from './partial-json-reader.ts';
import { IN_ESCAPE, IN_LITERAL, IN_STRING, IN_UNICODE_ESCAPE, RepairScanner } from './partial-json-repair.ts';

/** How the AI SDK's `parsePartialJson` got its value. */
export type PartialJsonState = 'undefined-input' | 'successful-parse' | 'repaired-parse' | 'failed-parse';

/**
 * The result of {@link PartialJsonParser.parse} and {@link PartialJsonParser.push}: the AI SDK's
 * `parsePartialJson` result, `{ value, state }`, for the same text.
 */
export type PartialJsonResult =
  | { readonly value: JsonValue; readonly state: 'successful-parse' | 'repaired-parse' }
  | { readonly value: undefined; readonly state: 'undefined-input' | 'failed-parse' };

/**
 * Parses a JSON text that grows, the way the AI SDK's `parsePartialJson` does, in time
 * proportional to the new characters. Made by {@link createPartialJsonParser}.
 */
export interface PartialJsonParser {
  /**
   * What `parsePartialJson(text)` returns — the same value after repair and the same state —
   * synchronously. When `text` starts with the previous text, only the new characters are read,
   * after one comparison of `text` with the previous text (a block compare, gigabytes a second,
   * but of the whole text at every call: {@link PartialJsonParser.push} has none); otherwise the
   * parser starts again from `text`'s first character. `undefined` gives
   * `{ value: undefined, state: 'undefined-input' }` and leaves the parser as it was.
   *
   * A value returned is never changed afterwards: later values share what did not change.
   *
   * @throws {TypeError} when `text` is neither a string nor `undefined`.
   * @example
   * ```ts
   * const parser = createPartialJsonParser();
   * parser.parse('{"path":"a.txt","content":"hel'); // { value: { path: 'a.txt', content: 'hel' }, state: 'repaired-parse' }
   * parser.parse('{"path":"a.txt","content":"hello"}'); // { value: { path: 'a.txt', content: 'hello' }, state: 'successful-parse' }
   * ```
   */
  parse(text: string | undefined): PartialJsonResult;
  /**
   * Append `delta` to the text and return what `parsePartialJson(text)` returns for the whole
   * text so far: for a buffer you would otherwise build with `+=`. Nothing is compared and
   * nothing already read is read again. Strings in the values it returns may be ropes (pieces
   * joined without copying): reading one all the way costs its length, once.
   *
   * @throws {TypeError} when `delta` is not a string.
   * @example
   * ```ts
   * const parser = createPartialJsonParser();
   * parser.push('{"tags":["a"'); // { value: { tags: ['a'] }, state: 'repaired-parse' }
   * parser.push(',"b"]}'); // { value: { tags: ['a', 'b'] }, state: 'successful-parse' }
   * ```
   */
  push(delta: string): PartialJsonResult;
}

/** No value: the repaired text is not JSON, or the secure parse refuses it. */
const REFUSED: unique symbol = Symbol('refused');
/** No value in progress inside the innermost container. */
const NONE: unique symbol = Symbol('none');

const FAILED: PartialJsonResult = { value: undefined, state: 'failed-parse' };

/** Whether a reader's mode is a number that may end where it stands. */
function numberMayEnd(mode: number): boolean {
  return mode === ZERO || mode === INTEGER || mode === FRACTION || mode === EXPONENT;
}

/**
 * The AI SDK's secure parse of a text that is JSON: the value, or {@link REFUSED} when an object
 * in it has a `__proto__` member or a `constructor` that is an object with a `prototype` member.
 * Breadth first, no recursion.
 */
function secureParse(text: string): unknown {
  const value: unknown = JSON.parse(text);
  let next = [value];
  while (next.length > 0) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (node === null || typeof node !== 'object') continue;
      if (Object.hasOwn(node, '__proto__')) return REFUSED;
      if (Object.hasOwn(node, 'constructor')) {
        const constructor = (node as { constructor: unknown }).constructor;
        if (typeof constructor === 'object' && constructor !== null && Object.hasOwn(constructor, 'prototype')) return REFUSED;
      }
      for (const key in node) next.push((node as Record<string, unknown>)[key]);
    }
  }
  return value;
}

/** The three readers of one text, and what they have read. */
class PartialJsonEngine {
  /** Everything read so far (after `push`, pieces joined without copying). */
  #text = '';
  /** The text the value reader reads from, from absolute position `#pieceBase` on. */
  #piece = '';
  #pieceBase = 0;
  #repair!: RepairScanner;
  #reader!: JsonPrefixReader;
  #validator!: JsonPrefixReader;
  /**
   * How many levels, from the outermost, the repair's stack and the reader's agree on (the same
   * kind of container at each): the repair's closing brackets fit the reader when this is both
   * depths.
   */
  #agree = 0;
  /** The result for `#text`. */
  #result: PartialJsonResult = FAILED;
  /** The value of a valid whole text that the reader of the prefix could not give (rare). */
  #whole: unknown = NONE;
  // The last copy made of each open container, and what it was made from.
  #copies: unknown[] = [];
  #copiedFrom: unknown[] = [];
  #copiedVersion: number[] = [];
  #copiedChild: unknown[] = [];

  constructor() {
    this.#reset();
  }

  #reset(): void {
    this.#text = '';
    this.#piece = '';
    this.#pieceBase = 0;
    this.#agree = 0;
    this.#whole = NONE;
    this.#copies = [];
    this.#copiedFrom = [];
    this.#copiedVersion = [];
    this.#copiedChild = [];
    const repairListener: StackListener = {
      opened: (level, kind) => {
        if (this.#agree === level && this.#reader.depth > level && this.#reader.kinds[level] === kind) this.#agree = level + 1;
      },
      closed: (level) => {
        if (this.#agree > level) this.#agree = level;
      },
    };
    const readerListener: StackListener = {
      opened: (level, kind) => {
        if (this.#agree === level && this.#repair.depth > level && this.#repair.kindAt(level) === kind) this.#agree = level + 1;
      },
      closed: repairListener.closed,
    };
    this.#repair = new RepairScanner(repairListener);
    this.#reader = new JsonPrefixReader(true, readerListener);
    this.#validator = new JsonPrefixReader(false);
  }

  parse(text: string | undefined): PartialJsonResult {
    if (text === undefined) return { value: undefined, state: 'undefined-input' };
    if (typeof text !== 'string') {
      throw new TypeError(`parse() takes the whole text so far as a string (or undefined), not ${text === null ? 'null' : typeof text}`);
    }
    const previous = this.#text;
    if (text.length === previous.length && text === previous) return this.#copy();
    // The one look at what was read before: slice-and-compare runs as a block compare in V8
    // (`startsWith` compares character by character, tens of times slower).
    if (text.length < previous.length || text.slice(0, previous.length) !== previous) this.#reset();
    const from = this.#text.length;
    this.#text = text;
    this.#piece = text;
    this.#pieceBase = 0;
    this.#advance(text, from, text.length, 0);
    return this.#copy();
  }

  push(delta: string): PartialJsonResult {
    if (typeof delta !== 'string') throw new TypeError(`push() takes the next piece of the text as a string, not ${delta === null ? 'null' : typeof delta}`);
    if (delta.length === 0) return this.#copy();
    const from = this.#text.length;
    this.#text += delta;
    const reader = this.#reader;
    if (reader.mode !== ERROR) {
      // Keep only what the value reader has not read (usually nothing), so that nothing is copied twice.
      reader.detach(this.#piece, this.#pieceBase);
      this.#piece = reader.position === from ? delta : this.#piece.slice(reader.position - this.#pieceBase) + delta;
      this.#pieceBase = reader.position;
    }
    this.#advance(delta, 0, delta.length, from);
    return this.#copy();
  }

  /** A result object of its own for the caller: the value inside is shared, never changed. */
  #copy(): PartialJsonResult {
    const { value, state } = this.#result;
    return { value, state } as PartialJsonResult;
  }

  /** Read the new characters `piece[from, to)` (`piece[0]` is at absolute position `base`). */
  #advance(piece: string, from: number, to: number, base: number): void {
    const reader = this.#reader;
    if (reader.mode !== ERROR) {
      this.#repair.scan(piece, from, to, base);
      if (this.#validator.mode !== ERROR) this.#validator.read(piece, from, to, base);
      const end = this.#repair.kept + 1;
      if (end > reader.position) reader.read(this.#piece, reader.position - this.#pieceBase, end - this.#pieceBase, this.#pieceBase);
    }
    this.#result = this.#compute();
  }

  #compute(): PartialJsonResult {
    const reader = this.#reader;
    // The kept prefix is not the start of any JSON text: neither it repaired nor the whole text is JSON.
    if (reader.mode === ERROR) return FAILED;
    const validator = this.#validator;
    if (validator.mode === DONE || (validator.depth === 0 && numberMayEnd(validator.mode))) {
      // The whole text is JSON. Its value is the kept prefix's, unless the repair kept less than
      // the whole value (a root number with `e+`, a key with an escaped quote): then JSON.parse it.
      let value: unknown;
      if (reader.mode === DONE) value = reader.refusalsOf(reader.root) > 0 ? REFUSED : reader.root;
      else {
        // Once the validator is done, only whitespace can follow: the value stays.
        value = this.#whole !== NONE ? this.#whole : secureParse(this.#text);
        if (validator.mode === DONE) this.#whole = value;
      }
      if (value !== REFUSED) return { value: value as JsonValue, state: 'successful-parse' };
    }
    const value = this.#repaired();
    return value === REFUSED ? FAILED : { value: value as JsonValue, state: 'repaired-parse' };
  }

  /** The value of the repaired text, or {@link REFUSED}. */
  #repaired(): unknown {
    const reader = this.#reader;
    const repair = this.#repair;
    const depth = reader.depth;
    if (this.#agree !== depth || repair.depth !== depth) return REFUSED;
    // What the repair closes the kept prefix with, before the brackets.
    const top = repair.state;
    const quote = top === IN_STRING || top === IN_ESCAPE || top === IN_UNICODE_ESCAPE;
    const rest = top === IN_LITERAL ? repair.word.slice(this.#text.length - repair.literalStart) : '';
    const bare = !quote && rest === '';
    let child: unknown = NONE;
    switch (reader.mode) {
      case DONE:
        if (!bare) return REFUSED;
        child = reader.root;
        break;
      case ZERO:
      case INTEGER:
      case FRACTION:
      case EXPONENT:
        if (!bare) return REFUSED;
        child = Number(reader.tokenText(this.#piece, this.#pieceBase));
        break;
      case LITERAL:
        if (quote || rest !== reader.word.slice(reader.matched)) return REFUSED;
        child = (LITERALS[reader.word.charCodeAt(0)] as readonly [string, boolean | null])[1];
        break;
      case STRING:
        if (!quote || reader.inKey) return REFUSED;
        child = reader.tokenText(this.#piece, this.#pieceBase);
        break;
      case ARRAY_FIRST:
      case OBJECT_FIRST:
      case AFTER:
        if (!bare) return REFUSED;
        break;
      default:
        // A value, a key or a colon is due; or inside an escape: no closing character fits.
        return REFUSED;
    }
    if (depth === 0 ? reader.refusalsOf(child) > 0 : reader.refusals(child !== NONE) > 0) return REFUSED;
    return this.#copyPath(child);
  }

  /**
   * The open containers, innermost first, each copied with the value in progress inside it; a
   * container whose members and inner value are as at the last call gives its last copy.
   */
  #copyPath(child: unknown): unknown {
    const reader = this.#reader;
    let value = child;
    for (let level = reader.depth - 1; level >= 0; level--) {
      const members = reader.containers[level];
      const version = reader.versions[level] as number;
      if (this.#copiedFrom[level] === members && this.#copiedVersion[level] === version && Object.is(this.#copiedChild[level], value)) {
        value = this.#copies[level];
        continue;
      }
      this.#copiedFrom[level] = members;
      this.#copiedVersion[level] = version;
      this.#copiedChild[level] = value;
      let copy: unknown;
      if (reader.kinds[level] === ARRAY) {
        const items = (members as unknown[]).slice();
        if (value !== NONE) items.push(value);
        copy = items;
      } else {
        // Object.assign, not a spread: V8 gives a spread that then gets a member a slow path (1 µs).
        // No setter runs: an object with a `__proto__` member is refused before it is copied.
        const object: Record<string, unknown> = Object.assign({}, members as Record<string, unknown>);
        if (value !== NONE) object[reader.keys[level] as string] = value;
        copy = object;
      }
      this.#copies[level] = copy;
      value = copy;
    }
    return value;
  }
}

/**
 * A parser that returns, for each text, exactly what the AI SDK's `parsePartialJson(text)`
 * returns (`ai` 7: the same value after repair, the same state), reading only the new characters
 * when a text extends the previous one: the one-line replacement for
 * `await parsePartialJson(buffer)` on every delta, which re-parses the whole buffer each time.
 * One parser per growing text (a tool call's arguments, a structured output).
 *
 * Differences from `ai` 5 and 6 (cut `\u` escapes, arrays that begin with `-`):
 * docs/partial-json.md.
 *
 * @example
 * ```ts
 * const parser = createPartialJsonParser();
 * let buffer = '';
 * for (const delta of ['{"city":"Par', 'is","days":3', '}']) {
 *   buffer += delta;
 *   const { value, state } = parser.parse(buffer); // was: await parsePartialJson(buffer)
 *   // or, without the buffer: parser.push(delta)
 * }
 * ```
 */
export function createPartialJsonParser(): PartialJsonParser {
  const engine = new PartialJsonEngine();
  return {
    parse: (text) => engine.parse(text),
    push: (delta) => engine.push(delta),
  };
}
