/**
 * A strict JSON reader for `argstream/partial-json`: reads a text that arrives in pieces, one
 * character at a time and never twice, and knows after each piece whether what it has read is
 * still the beginning of some JSON text (else it is in {@link ERROR} for good). It runs twice in
 * each parser: once over the part of the text the AI SDK's repair keeps (building the values, see
 * partial-json-parser.ts), once over the whole text without building anything (is it valid JSON
 * as it stands?). Plain loops and arrays, no recursion: depth costs memory, not stack.
 *
 * @module
 */

/** A container's kind, as stored on the stacks. */
export const OBJECT = 0;
export const ARRAY = 1;

// The reader's modes. Between tokens: what may come next.
/** A value: at the root, after `:`, after `,` in an array. */
const VALUE = 0;
/** After `[`: a value or `]`. */
export const ARRAY_FIRST = 1;
/** After `{`: a key or `}`. */
export const OBJECT_FIRST = 2;
/** After `,` in an object: a key. */
const KEY = 3;
/** After a key: `:`. */
const COLON = 4;
/** After a value in a container: `,` or the container's end. */
export const AFTER = 5;
/** The root value is complete: whitespace only. */
export const DONE = 6;
// Inside a token.
export const STRING = 7;
const ESCAPE = 8;
const UNICODE = 9;
const MINUS = 10;
export const ZERO = 11;
export const INTEGER = 12;
const DOT = 13;
export const FRACTION = 14;
const EXPONENT_MARK = 15;
const EXPONENT_SIGN = 16;
export const EXPONENT = 17;
export const LITERAL = 18;
/** Not the beginning of any JSON text: nothing that follows can change that. */
export const ERROR = 19;

/** `true`, `false`, `null`, by their first character. */
export const LITERALS: Readonly<Record<number, readonly [string, boolean | null]>> = {
  116: ['true', true],
  102: ['false', false],
  110: ['null', null],
};

/** The value of each one-character escape, by the character after the backslash. */
const ESCAPES: Readonly<Record<number, string>> = { 34: '"', 92: '\\', 47: '/', 98: '\b', 102: '\f', 110: '\n', 114: '\r', 116: '\t' };

/** Told when the reader opens or closes a container: the parser keeps its two stacks in step. */
export interface StackListener {
  opened(level: number, kind: number): void;
  closed(level: number): void;
}

/** A JSON value being built: a container's members so far (never handed out while open). */
type Container = Record<string, unknown> | unknown[];

/** Whether `value` is an object with an own `prototype` member: the AI SDK refuses it as a `constructor`. */
function hasOwnPrototype(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype');
}

/**
 * The reader. `build`: make the values (else only validate). Positions are absolute: the index
 * in the whole text of the piece's first character is passed with each piece.
 */
export class JsonPrefixReader {
  mode = VALUE;
  /** Open containers. */
  depth = 0;
  /** Absolute position of the next character to read. */
  position = 0;
  readonly kinds: number[] = [];
  /** The members of each open container (build only). */
  readonly containers: Container[] = [];
  /** The key of each open object's member in progress (build only). */
  readonly keys: string[] = [];
  /**
   * What the AI SDK's secure parse refuses (see {@link refusals}), in the complete members of each
   * open container; kept once {@link suspicious}.
   */
  readonly sums: number[] = [];
  /** Bumped whenever a member is added to the container: snapshots made before are stale. */
  readonly versions: number[] = [];
  /** The complete root value, in {@link DONE}. */
  root: unknown;
  /**
   * A `__proto__` or a `constructor` member has begun: from here on, the refusals of the secure
   * parse are counted (before, there are none).
   */
  suspicious = false;
  /** The refusals inside each complete container that has any. */
  readonly #refused = new WeakMap<object, number>();
  /** In a string: it is a key. */
  inKey = false;
  /** In a token: its text (strings: decoded) before `segment`. */
  parts = '';
  /** In a token: absolute start of the raw run not yet in `parts`. */
  segment = 0;
  /** `\u` escape: hex digits read, value so far. */
  #digits = 0;
  #code = 0;
  /** Literal: its word and how many characters matched. */
  word = '';
  matched = 0;

  constructor(
    readonly build: boolean,
    readonly listener?: StackListener,
  ) {}

  /**
   * Read `piece[from, to)`, whose first character is at absolute position `base`. Stops for good
   * at the first character that no JSON text can have there ({@link ERROR}).
   */
  read(piece: string, from: number, to: number, base: number): void {
    let i = from;
    while (i < to && this.mode !== ERROR) {
      const c = piece.charCodeAt(i);
      switch (this.mode) {
        case STRING: {
          // A run of plain characters in one go: the common case, and most of the text.
          let j = i;
          while (j < to) {
            const d = piece.charCodeAt(j);
            if (d === 34 || d === 92 || d < 32) break;
            j++;
          }
          if (j === to) {
            i = j;
            continue;
          }
          const d = piece.charCodeAt(j);
          if (d === 34) {
            i = j + 1;
            const text = this.build ? this.parts + piece.slice(this.segment - base, j) : '';
            this.parts = '';
            if (!this.inKey) this.#complete(text);
            else {
              if (this.build) this.keys[this.depth - 1] = text;
              this.mode = COLON;
            }
            continue;
          }
          if (d === 92) {
            if (this.build) this.parts += piece.slice(this.segment - base, j);
            this.mode = ESCAPE;
            i = j + 1;
            continue;
          }
          this.mode = ERROR; // a raw control character
          i = j;
          continue;
        }
        case ESCAPE: {
          const decoded = ESCAPES[c];
          if (decoded !== undefined) {
            if (this.build) this.parts += decoded;
            this.mode = STRING;
            this.segment = base + i + 1;
          } else if (c === 117) {
            this.mode = UNICODE;
            this.#digits = 0;
            this.#code = 0;
          } else this.mode = ERROR;
          break;
        }
        case UNICODE: {
          const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
          if (digit < 0) {
            this.mode = ERROR;
            break;
          }
          this.#code = this.#code * 16 + digit;
          if (++this.#digits === 4) {
            if (this.build) this.parts += String.fromCharCode(this.#code);
            this.mode = STRING;
            this.segment = base + i + 1;
          }
          break;
        }
        case MINUS:
          this.mode = c === 48 ? ZERO : c >= 49 && c <= 57 ? INTEGER : ERROR;
          break;
        case ZERO:
        case INTEGER:
        case FRACTION:
        case EXPONENT:
          if (c >= 48 && c <= 57 && this.mode !== ZERO) break;
          if (c === 46 && this.mode <= INTEGER) this.mode = DOT;
          else if ((c === 101 || c === 69) && this.mode !== EXPONENT) this.mode = EXPONENT_MARK;
          else {
            // The number ends before this character, which is read again in the new mode.
            this.#complete(this.build ? Number(this.parts + piece.slice(this.segment - base, i)) : undefined);
            continue;
          }
          break;
        case DOT:
          this.mode = c >= 48 && c <= 57 ? FRACTION : ERROR;
          break;
        case EXPONENT_MARK:
          this.mode = c === 43 || c === 45 ? EXPONENT_SIGN : c >= 48 && c <= 57 ? EXPONENT : ERROR;
          break;
        case EXPONENT_SIGN:
          this.mode = c >= 48 && c <= 57 ? EXPONENT : ERROR;
          break;
        case LITERAL:
          if (c !== this.word.charCodeAt(this.matched)) this.mode = ERROR;
          else if (++this.matched === this.word.length) this.#complete((LITERALS[this.word.charCodeAt(0)] as readonly [string, boolean | null])[1]);
          break;
        default:
          if (c === 32 || c === 10 || c === 13 || c === 9) break;
          this.#structure(c, base + i);
      }
      i++;
    }
    this.position = base + i;
  }

  /** The text of the number being read, up to the current position (build only). */
  tokenText(piece: string, base: number): string {
    return this.parts + piece.slice(this.segment - base, this.position - base);
  }

  /**
   * Move the raw run of the token being read into `parts`: `piece` (from `base`) is about to be
   * dropped. The token's text then no longer refers to it.
   */
  detach(piece: string, base: number): void {
    if (this.build && this.mode >= STRING && this.mode <= EXPONENT && this.mode !== ESCAPE && this.mode !== UNICODE) {
      this.parts += piece.slice(this.segment - base, this.position - base);
      this.segment = this.position;
    }
  }

  /** A character outside any token: punctuation, or the first character of a value. */
  #structure(c: number, at: number): void {
    const mode = this.mode;
    if (mode === AFTER) {
      const kind = this.kinds[this.depth - 1];
      if (c === 44) this.mode = kind === ARRAY ? VALUE : KEY;
      else if (c === (kind === ARRAY ? 93 : 125)) this.#close();
      else this.mode = ERROR;
    } else if (mode === COLON) {
      this.mode = c === 58 ? VALUE : ERROR;
    } else if (mode === OBJECT_FIRST || mode === KEY) {
      if (c === 34) {
        this.mode = STRING;
        this.inKey = true;
        this.parts = '';
        this.segment = at + 1;
      } else if (c === 125 && mode === OBJECT_FIRST) this.#close();
      else this.mode = ERROR;
    } else if (mode === VALUE || mode === ARRAY_FIRST) {
      if (c === 93 && mode === ARRAY_FIRST) return this.#close();
      const literal = LITERALS[c];
      const next =
        c === 34 ? STRING : c === 123 || c === 91 ? c : c === 45 ? MINUS : c === 48 ? ZERO : c >= 49 && c <= 57 ? INTEGER : literal !== undefined ? LITERAL : ERROR;
      if (next === ERROR) {
        this.mode = ERROR;
        return;
      }
      if (this.build && this.depth > 0 && this.kinds[this.depth - 1] === OBJECT) {
        const key = this.keys[this.depth - 1];
        if (key === '__proto__' || key === 'constructor') this.suspicious = true;
      }
      if (next === 123 || next === 91) return this.#open(next === 123 ? OBJECT : ARRAY);
      this.mode = next;
      this.parts = '';
      this.segment = next === STRING ? at + 1 : at;
      this.inKey = false;
      if (literal !== undefined) {
        this.word = literal[0];
        this.matched = 1;
      }
    } else this.mode = ERROR; // DONE: nothing after the root value
  }

  #open(kind: number): void {
    const level = this.depth++;
    this.kinds[level] = kind;
    if (this.build) {
      this.containers[level] = kind === OBJECT ? {} : [];
      this.keys[level] = '';
      this.sums[level] = 0;
      this.versions[level] = 0;
    }
    this.mode = kind === OBJECT ? OBJECT_FIRST : ARRAY_FIRST;
    this.listener?.opened(level, kind);
  }

  #close(): void {
    const level = --this.depth;
    this.listener?.closed(level);
    const container = this.containers[level] as Container;
    if (this.suspicious) {
      const refusals = this.#refusalsAt(level, false);
      if (refusals > 0) this.#refused.set(container, refusals);
    }
    this.#complete(container);
  }

  /** What the secure parse refuses inside `value`, a complete value. */
  refusalsOf(value: unknown): number {
    return typeof value === 'object' && value !== null ? (this.#refused.get(value) ?? 0) : 0;
  }

  /**
   * What the AI SDK's secure parse refuses in the value the open containers make with their
   * values in progress (`innermostOpen`: the innermost container has one): objects with an own
   * `__proto__` member, and objects whose `constructor` is an object with a `prototype` member.
   * A member replaced by a later one of the same key (JSON.parse keeps the last) takes its
   * refusals with it.
   */
  refusals(innermostOpen: boolean): number {
    if (!this.suspicious) return 0;
    let count = 0;
    for (let level = 0; level < this.depth; level++) count += this.#refusalsAt(level, level < this.depth - 1 || innermostOpen);
    return count;
  }

  /** The refusals of the container at `level`, its member in progress (when `open`) included. */
  #refusalsAt(level: number, open: boolean): number {
    let count = this.sums[level] as number;
    if (this.kinds[level] === ARRAY) return count;
    const members = this.containers[level] as Record<string, unknown>;
    const key = this.keys[level] as string;
    if (open && Object.hasOwn(members, key)) count -= this.refusalsOf(members[key]);
    if (Object.hasOwn(members, '__proto__') || (open && key === '__proto__')) count++;
    if (open && key === 'constructor') {
      // The constructor is the value in progress: an open object inside, whose own `prototype`
      // may be complete or in progress.
      const inner = level + 1;
      if (inner < this.depth && this.kinds[inner] === OBJECT) {
        const innerOpen = inner < this.depth - 1 || (this.mode !== AFTER && this.mode !== OBJECT_FIRST);
        if (Object.hasOwn(this.containers[inner] as object, 'prototype') || (innerOpen && this.keys[inner] === 'prototype')) count++;
      }
    } else if (Object.hasOwn(members, 'constructor') && hasOwnPrototype(members['constructor'])) count++;
    return count;
  }

  /** A value is complete: it becomes the root or the innermost container's member. */
  #complete(value: unknown): void {
    const level = this.depth - 1;
    if (level < 0) {
      this.root = value;
      this.mode = DONE;
      return;
    }
    this.mode = AFTER;
    if (!this.build) return;
    const container = this.containers[level] as Container;
    if (this.suspicious) this.sums[level] = (this.sums[level] as number) + this.refusalsOf(value);
    if (this.kinds[level] === ARRAY) (container as unknown[]).push(value);
    else {
      const key = this.keys[level] as string;
      if (this.suspicious && Object.hasOwn(container, key)) this.sums[level] = (this.sums[level] as number) - this.refusalsOf((container as Record<string, unknown>)[key]);
      // JSON.parse makes `__proto__` an own member, not the prototype.
      if (key === '__proto__') Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
      else (container as Record<string, unknown>)[key] = value;
    }
    this.versions[level] = (this.versions[level] as number) + 1;
  }
}
