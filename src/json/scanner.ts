/**
 * The incremental JSON scanner: a push-driven state machine that validates JSON text arriving in
 * arbitrary chunks and reports what it finds to a {@link JsonVisitor}. It never recurses, never
 * re-scans input, and keeps O(depth) state. Both the fragment parser and the fused value parser
 * are visitors over this one scanner.
 *
 * @module
 */
import { JsonStreamError, excerpt, shortPath, type JsonStreamErrorCode } from '../errors.ts';
import type { JsonObject, JsonScalar, JsonValue } from '../types.ts';

/** Container and value kinds, as numbers on the hot path. */
export const OBJECT = 0;
export const ARRAY = 1;
export const STRING = 2;
export type KindCode = typeof OBJECT | typeof ARRAY | typeof STRING;

/**
 * Receives what the scanner finds, in document order. The scanner calls `open` before it pushes a
 * container and `close` after it pops one, so at every call the scanner's stack holds exactly the
 * containers that enclose the value concerned.
 */
export interface JsonVisitor {
  /** A member key of the innermost object is complete; its value follows. */
  key(key: string): void;
  /** An object, array or string value begins. */
  open(kind: KindCode): void;
  /** Decoded data of the open string (never empty, never ending in half a surrogate pair). */
  text(text: string): void;
  /**
   * Optional: a visitor that has this gets the data of value strings (not keys) as validated raw
   * JSON string content instead — escapes still written, only whole escapes, never empty — and
   * decodes it when it needs the text (e.g. `JSON.parse('"' + raw + '"')` once per snapshot). It
   * saves decoding every chunk when nothing reads the pieces. `units` is the decoded length: when
   * it equals `raw.length`, the piece holds no escape and is its own text.
   */
  rawText?(raw: string, units: number): void;
  /**
   * Optional: a value string (not a key) that is complete in one chunk, instead of `open`, `text`
   * and `close`.
   */
  string?(text: string): void;
  /** `false` when {@link scalar} needs no literal text for numbers (it saves a slice per number). */
  readonly numberText?: boolean;
  /** A complete scalar; `raw` is the literal text of a number (unless `numberText` is `false`). */
  scalar(value: JsonScalar, raw: string | undefined): void;
  /** The innermost open object, array or string is complete. */
  close(): void;
  /**
   * Optional: several complete elements or members of the innermost open container at once, as
   * `JSON.parse` made them from a run of the text: for an array, its next elements in order; for
   * an object, an object whose own members (in its key order) are to be set on it, later members
   * replacing earlier ones of the same key. A visitor that has this lets the scanner take runs of
   * complete values natively (see `JsonScanner.#run`); one that needs every token (the fragment
   * collector) leaves it out and gets `key`, `open`, `scalar`… for each of them.
   */
  values?(parsed: JsonValue[] | JsonObject): void;
}

/**
 * Runs of complete values shorter than this are scanned token by token: below it a call of
 * `JSON.parse` costs more than it saves.
 */
export const RUN_MIN = 128;

/**
 * What a {@link RunFinder} keeps between its calls in one chunk, and what it found. Internal.
 */
export interface RunSearch {
  /** What runs may still spend in this chunk on work that ends in no run, in characters. */
  budget: number;
  /** The values of the run found, when the finder returns past `i`. */
  parsed?: JsonValue[] | JsonObject | undefined;
}

/**
 * Finds a run of complete values of the innermost container C, which starts at `i`, just after a
 * comma (`object`: C is an object; `levels`: how much deeper than C values may nest): returns the
 * comma after the run, its values in `search.parsed`, or `i` if there is none worth taking.
 * `scanner-runs.ts` has the one there is: a scanner is given it by those of its users that build
 * values, so that a bundle that only needs fragments does not hold it. Internal.
 */
export type RunFinder = (search: RunSearch, s: string, i: number, n: number, object: boolean, levels: number, maxStringLength: number) => number;

/** Limits every parser accepts. */
export interface JsonLimits {
  /**
   * Deepest nesting of objects and arrays.
   * @default 256
   */
  readonly maxDepth?: number;
  /**
   * Longest string or key, in decoded UTF-16 code units.
   * @default 67108864 (64 Mi)
   */
  readonly maxStringLength?: number;
  /**
   * Longest document, in decoded UTF-16 code units (whitespace included).
   * @default 268435456 (256 Mi)
   */
  readonly maxLength?: number;
}

const DEFAULT_MAX_DEPTH = 256;
const DEFAULT_MAX_STRING_LENGTH = 64 * 1024 * 1024;
const DEFAULT_MAX_LENGTH = 256 * 1024 * 1024;

// Scanner states.
const S_VALUE = 0; // a value must follow
const S_ARRAY_FIRST = 1; // after '[': a value or ']'
const S_OBJECT_FIRST = 2; // after '{': a key or '}'
const S_KEY = 3; // after ',' in an object: a key
const S_COLON = 4; // after a key: ':'
const S_AFTER = 5; // after a member or element: ',' or the closer
const S_STRING = 6;
const S_KEY_STRING = 7;
const S_NUMBER = 8;
const S_LITERAL = 9;
const S_END = 10; // the root value is complete: whitespace only

// Number sub-states; the ones marked final may end the number.
const N_MINUS = 0;
const N_ZERO = 1; // final
const N_INT = 2; // final
const N_DOT = 3;
const N_FRAC = 4; // final
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7; // final

/** The first character in a string that needs attention: a quote, a backslash, a control character. */
const STRING_SPECIAL = /["\\\u0000-\u001f]/g;
const CONTROL = /[\u0000-\u001f]/;
/** 1 for the characters that may follow a backslash in a two-character escape. */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

/**
 * Decode a run of string content that holds no unescaped quote and ends on an escape boundary;
 * `undefined` if it is not valid JSON string content. `JSON.parse` does the decoding: it accepts
 * exactly the JSON string grammar and runs at native speed.
 */
function decodePart(run: string): string | undefined {
  if (run.indexOf('\\') === -1) {
    // Short runs are checked by a loop, long ones by a native regex search.
    if (run.length < 32) {
      for (let k = 0; k < run.length; k++) if (run.charCodeAt(k) < 0x20) return undefined;
      return run;
    }
    return CONTROL.test(run) ? undefined : run;
  }
  try {
    return JSON.parse('"' + run + '"') as string;
  } catch {
    return undefined;
  }
}

/**
 * Longest part of a run decoded by one `JSON.parse`. Why: the quoted copy `JSON.parse` reads and
 * the string it makes are, beyond ~64 K two-byte characters, large objects for V8 (allocated
 * apart, one by one); a 64 KiB chunk of a long string decoded whole cost 1.8× as much as in four
 * parts (1 MB: 3.8 ms against 2.1 ms).
 */
const DECODE_PART = 16384;

/** {@link decodePart} of `s[i, end)`, in parts of at most {@link DECODE_PART} cut between escapes. */
function decodeRun(s: string, i: number, end: number): string | undefined {
  if (end - i <= DECODE_PART) return decodePart(s.slice(i, end));
  let text = '';
  while (i < end) {
    const cut = end - i <= DECODE_PART ? end : completeEnd(s, i, i + DECODE_PART);
    const part = decodePart(s.slice(i, cut));
    if (part === undefined) return undefined;
    text += part;
    i = cut;
  }
  return text;
}

/** Powers of ten that are exact doubles. */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * The value of the number literal `s[start, end)` computed here when that is exact, or NaN: with at
 * most 15 digits and no exponent, the digits make an exact integer and dividing it by an exact
 * power of ten is one correctly rounded operation, so the result is what `JSON.parse` gives
 * (Clinger's fast path). Saves a slice and a string-to-number conversion per number.
 */
function shortNumber(s: string, start: number, end: number): number {
  let k = start;
  const negative = s.charCodeAt(k) === 45; /* - */
  if (negative) k++;
  const length = end - k;
  if (length > 16) return NaN;
  let mantissa = 0;
  let decimals = -1;
  for (; k < end; k++) {
    const c = s.charCodeAt(k);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      if (decimals >= 0) decimals++;
    } else if (c === 46 /* . */) decimals = 0;
    else return NaN; // an exponent
  }
  if (length - (decimals >= 0 ? 1 : 0) > 15) return NaN;
  const value = decimals > 0 ? mantissa / (POW10[decimals] as number) : mantissa;
  return negative ? -value : value;
}

/** `end`, or where a high surrogate (a raw one, or a whole `\uD800`–`\uDBFF` escape) ending `s[i, end)` begins. */
function beforeHighSurrogate(s: string, i: number, end: number): number {
  if (end <= i) return end;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) return end - 1;
  const p = end - 6;
  if (p < i || s.charCodeAt(p) !== 92 || s.charCodeAt(p + 1) !== 117) return end;
  let unit = 0;
  for (let h = p + 2; h < end; h++) {
    const v = hexValue(s.charCodeAt(h));
    if (v < 0) return end;
    unit = (unit << 4) | v;
  }
  if (unit < 0xd800 || unit > 0xdbff) return end;
  let b = p - 1;
  while (b >= i && s.charCodeAt(b) === 92) b--;
  return ((p - b) & 1) === 1 ? p : end; // the backslash at p starts an escape
}

/**
 * Validate raw string content `s[i, end)` (no unescaped quote, whole escapes only) and count the
 * code units it decodes to; -1 if it is not valid JSON string content.
 */
function rawUnits(s: string, i: number, end: number): number {
  let units = end - i;
  for (let k = i; k < end; k++) {
    const c = s.charCodeAt(k);
    if (c === 92) {
      const e = s.charCodeAt(k + 1);
      if (e === 117 /* u */) {
        for (let h = k + 2; h < k + 6; h++) if (hexValue(s.charCodeAt(h)) < 0) return -1;
        units -= 5;
        k += 5;
      } else if (SHORT_ESCAPE[e] === 1) {
        units -= 1;
        k += 1;
      } else return -1;
    } else if (c < 0x20) return -1;
  }
  return units;
}

/** Where string data in `s[i, n)` stops being complete: before an escape cut by the chunk's end. */
function completeEnd(s: string, i: number, n: number): number {
  // A cut escape starts within the last 5 characters (`\uXXX`); a backslash there that ends an
  // odd run of backslashes starts an escape.
  for (let p = n - 1; p >= i && p >= n - 5; p--) {
    if (s.charCodeAt(p) !== 92) continue;
    let b = p - 1;
    while (b >= i && s.charCodeAt(b) === 92) b--;
    if (((p - b) & 1) === 0) return n; // `\\`: a complete escape, and nothing after it is cut
    const length = p + 1 < n && s.charCodeAt(p + 1) === 117 /* u */ ? 6 : 2;
    return p + length > n ? p : n;
  }
  return n;
}

/** Runs shorter than this are scanned by one loop ({@link JsonScanner.#shortString}), longer ones natively. */
const SHORT_RUN = 64;

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const EXPECTED: Readonly<Record<number, string>> = {
  [S_VALUE]: 'a value',
  [S_ARRAY_FIRST]: "a value or ']'",
  [S_OBJECT_FIRST]: "a string key or '}'",
  [S_KEY]: 'a string key',
  [S_COLON]: "':'",
  [S_STRING]: 'the rest of the string',
  [S_KEY_STRING]: 'the rest of the key',
  [S_NUMBER]: 'a digit',
  [S_LITERAL]: 'the rest of the literal',
  [S_END]: 'the end of the input',
};

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  c |= 0x20; // fold to lower case
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

function describe(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff)) {
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${char}'`;
}

function pointerToken(token: string | number): string {
  return typeof token === 'number' ? String(token) : token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Whether the quote at `q` in `s` follows an odd run of backslashes (stopping at `from`): escaped. */
export function escapedQuote(s: string, q: number, from: number): boolean {
  let b = q - 1;
  while (b >= from && s.charCodeAt(b) === 92) b--;
  return ((q - 1 - b) & 1) === 1;
}

/** The push-driven JSON state machine. Internal: the public parsers wrap it. */
export class JsonScanner {
  /** Kind (OBJECT or ARRAY) of each open container, outermost first. */
  readonly kinds: number[] = [];
  /** Current member key of each open object (unused slots for arrays). */
  readonly keys: string[] = [];
  /** Current element index of each open array (unused slots for objects). */
  readonly indices: number[] = [];

  readonly #visitor: JsonVisitor;
  /** The visitor takes a whole string in one call (see {@link JsonVisitor.string}). */
  readonly #wholeString: boolean;
  /** The visitor wants the literal text of numbers (see {@link JsonVisitor.numberText}). */
  readonly #wantNumberText: boolean;
  /** The visitor takes value strings raw (see {@link JsonVisitor.rawText}). */
  readonly #raw: boolean;
  /** Finds runs of complete values, for a visitor that takes them (see {@link JsonVisitor.values}). */
  readonly #findRun: RunFinder | undefined;
  /** The finder's state in this chunk. */
  readonly #search: RunSearch = { budget: 0 };
  /** Decoded code units in `#piece` when it holds raw text. */
  #pieceUnits = 0;
  readonly #maxDepth: number;
  readonly #maxStringLength: number;
  readonly #maxLength: number;

  #state = S_VALUE;
  /** Global offset (decoded code units) of the first character of the text being scanned. */
  #offset = 0;
  /** Raw text of an incomplete escape at the end of the last chunk, scanned again with the next. */
  #pending = '';
  /** A decoded high surrogate held back until we know whether its low half follows. */
  #carry = '';
  /** Decoded code units of the current string emitted so far. */
  #stringLength = 0;
  #keyText = '';
  #numberText = '';
  #numberState = N_MINUS;
  #literal = '';
  #literalValue: JsonScalar = null;
  #literalPos = 0;
  #decoder: TextDecoder | undefined;
  #error: JsonStreamError | undefined;

  /**
   * `findRun`: how runs of complete values are found for a visitor that takes them
   * (`findRun` of `scanner-runs.ts`); without it such a visitor gets every token too, and the same
   * values.
   */
  constructor(visitor: JsonVisitor, limits: JsonLimits = {}, findRun?: RunFinder) {
    this.#visitor = visitor;
    this.#raw = typeof visitor.rawText === 'function';
    this.#wantNumberText = visitor.numberText !== false;
    this.#wholeString = typeof visitor.string === 'function';
    this.#findRun = typeof visitor.values === 'function' ? findRun : undefined;
    this.#maxDepth = checkLimit('maxDepth', limits.maxDepth, DEFAULT_MAX_DEPTH);
    this.#maxStringLength = checkLimit('maxStringLength', limits.maxStringLength, DEFAULT_MAX_STRING_LENGTH);
    this.#maxLength = checkLimit('maxLength', limits.maxLength, DEFAULT_MAX_LENGTH);
  }

  /** True once the root value is complete (only whitespace may follow). */
  get complete(): boolean {
    return this.#state === S_END;
  }

  /** Scan the next chunk. Throws {@link JsonStreamError}; after an error, every call throws it again. */
  push(chunk: string | Uint8Array): void {
    if (this.#error !== undefined) throw this.#error;
    let text: string;
    if (typeof chunk === 'string') {
      text = this.#decoder === undefined ? chunk : this.#decoder.decode() + chunk;
      this.#decoder = undefined;
    } else if (ArrayBuffer.isView(chunk)) {
      // `isView` rather than `instanceof`: byte arrays from another realm (a worker, an iframe) count.
      this.#decoder ??= new TextDecoder();
      text = this.#decoder.decode(chunk, { stream: true });
    } else {
      throw new TypeError(`push() takes a string or a Uint8Array, not ${chunk === null ? 'null' : typeof chunk}`);
    }
    try {
      this.#scan(text);
    } catch (error) {
      throw this.#fail(error);
    }
  }

  /** The input is complete. Throws `unexpected-end` if the document is not. */
  end(): void {
    if (this.#error !== undefined) throw this.#error;
    try {
      if (this.#decoder !== undefined) {
        const rest = this.#decoder.decode();
        this.#decoder = undefined;
        if (rest !== '') this.#scan(rest);
      }
      if (this.#state === S_NUMBER) this.#endNumber(this.#numberText, this.#offset);
      if (this.#state !== S_END) {
        const expected = EXPECTED[this.#state] ?? this.#afterExpectation();
        throw this.#error_('unexpected-end', `Unexpected end of input at offset ${this.#offset}${this.#where()}: expected ${expected}`, this.#offset);
      }
    } catch (error) {
      throw this.#fail(error);
    }
  }

  /** The JSON Pointer of the value being parsed. */
  path(): string {
    const kinds = this.kinds;
    let depth = kinds.length;
    // Between members the innermost container's current member is not (or no longer) the subject.
    const s = this.#state;
    if (s === S_AFTER || s === S_KEY || s === S_KEY_STRING || s === S_OBJECT_FIRST || s === S_ARRAY_FIRST) depth--;
    let pointer = '';
    for (let d = 0; d < depth; d++) {
      pointer += '/' + pointerToken(kinds[d] === OBJECT ? (this.keys[d] as string) : (this.indices[d] as number));
    }
    return pointer;
  }

  #fail(error: unknown): unknown {
    if (error instanceof JsonStreamError) this.#error = error;
    return error;
  }

  #where(): string {
    const path = this.path();
    return path === '' ? '' : ` in ${shortPath(path)}`;
  }

  #afterExpectation(): string {
    return this.kinds[this.kinds.length - 1] === OBJECT ? "',' or '}'" : "',' or ']'";
  }

  #error_(code: JsonStreamErrorCode, message: string, offset: number, input?: string): JsonStreamError {
    return new JsonStreamError(code, message, offset, this.path(), input === undefined ? undefined : { excerpt: excerpt(input) });
  }

  #unexpected(s: string, i: number, expected?: string): JsonStreamError {
    const offset = this.#offset + i;
    const what = expected ?? EXPECTED[this.#state] ?? this.#afterExpectation();
    return this.#error_('invalid-json', `Unexpected ${describe(s.charAt(i))} at offset ${offset}${this.#where()}: expected ${what}`, offset, s.slice(i));
  }

  #scan(chunk: string): void {
    let s = chunk;
    if (this.#pending !== '') {
      s = this.#pending + chunk;
      this.#offset -= this.#pending.length;
      this.#pending = '';
    }
    let n = s.length;
    let overflow = false;
    if (this.#offset + n > this.#maxLength) {
      n = this.#maxLength - this.#offset;
      overflow = true;
    }
    const kinds = this.kinds;
    this.#search.budget = n;
    let i = 0;
    while (i < n) {
      switch (this.#state) {
        case S_STRING:
        case S_KEY_STRING:
          i = n - i < SHORT_RUN ? this.#shortString(s, i, n) : this.#string(s, i, n);
          continue;
        case S_NUMBER:
          i = this.#number(s, i, n);
          continue;
        case S_LITERAL:
          i = this.#literalChars(s, i, n);
          continue;
      }
      let c = s.charCodeAt(i);
      // JSON whitespace: space, tab, line feed, carriage return.
      while (c === 32 || c === 10 || c === 13 || c === 9) {
        if (++i === n) break;
        c = s.charCodeAt(i);
      }
      if (i === n) break;
      switch (this.#state) {
        case S_VALUE:
          i = this.#value(s, i, n, c);
          break;
        case S_AFTER: {
          const top = kinds[kinds.length - 1];
          if (c === 44 /* , */) {
            if (top === OBJECT) this.#state = S_KEY;
            else {
              this.indices[kinds.length - 1]!++;
              this.#state = S_VALUE;
            }
            i++;
            if (this.#findRun !== undefined && n - i >= RUN_MIN && this.#search.budget > 0) i = this.#run(s, i, n);
          } else if ((c === 125 /* } */ && top === OBJECT) || (c === 93 /* ] */ && top === ARRAY)) {
            this.#closeContainer();
            i++;
          } else throw this.#unexpected(s, i);
          break;
        }
        case S_ARRAY_FIRST:
          if (c === 93 /* ] */) {
            this.#closeContainer();
            i++;
          } else {
            this.#state = S_VALUE;
            i = this.#value(s, i, n, c);
          }
          break;
        case S_OBJECT_FIRST:
        case S_KEY:
          if (c === 34 /* " */) {
            // Most keys are short, plain and whole in the chunk: take them in one step. (This loop
            // and the one in #value stay written out: as a shared function, not inlined into this
            // large method, small objects parsed 1.6× slower.)
            let k = i + 1;
            for (; k < n; k++) {
              const d = s.charCodeAt(k);
              if (d === 34 || d === 92 || d < 0x20) break;
            }
            if (k < n && s.charCodeAt(k) === 34 && k - i - 1 <= this.#maxStringLength) {
              const key = s.slice(i + 1, k);
              this.keys[kinds.length - 1] = key;
              this.#visitor.key(key);
              this.#state = S_COLON;
              i = k + 1;
              break;
            }
            this.#state = S_KEY_STRING;
            this.#keyText = '';
            this.#startString();
            i++;
          } else if (c === 125 /* } */ && this.#state === S_OBJECT_FIRST) {
            this.#closeContainer();
            i++;
          } else throw this.#unexpected(s, i);
          break;
        case S_COLON:
          if (c !== 58 /* : */) throw this.#unexpected(s, i);
          this.#state = S_VALUE;
          i++;
          break;
        case S_END:
          throw this.#unexpected(s, i);
      }
    }
    if (this.#state === S_STRING) this.#flushString();
    else if (this.#state === S_KEY_STRING) {
      this.#keyText += this.#piece;
      this.#piece = '';
    } else if (this.#state === S_NUMBER) this.#numberText += s.slice(this.#numberStart, n);
    this.#numberStart = 0;
    this.#offset += n;
    if (overflow) {
      throw this.#error_('max-length', `Input exceeds maxLength (${this.#maxLength} characters) at offset ${this.#maxLength}`, this.#maxLength);
    }
  }

  /**
   * A run of complete values of the innermost container C, when the scanner was given a finder
   * ({@link RunFinder}): handed to the visitor's {@link JsonVisitor.values}. Called just after a
   * comma inside C. Returns where the scanner goes on: `i`, or the comma after the run (state:
   * after a value).
   */
  #run(s: string, i: number, n: number): number {
    const depth = this.kinds.length;
    const object = this.kinds[depth - 1] === OBJECT;
    const search = this.#search;
    const end = (this.#findRun as RunFinder)(search, s, i, n, object, this.#maxDepth - depth, this.#maxStringLength);
    if (end === i) return i;
    const parsed = search.parsed as JsonValue[] | JsonObject;
    search.parsed = undefined;
    (this.#visitor.values as (parsed: JsonValue[] | JsonObject) => void)(parsed);
    if (!object) this.indices[depth - 1]! += (parsed as JsonValue[]).length - 1;
    this.#state = S_AFTER;
    return end;
  }

  #startString(): void {
    this.#stringLength = 0;
    this.#piece = '';
    this.#carry = '';
  }

  /** Decoded text of the current string gathered during this chunk. */
  #piece = '';
  /** `#piece` is known not to end in a high surrogate (see #string). */
  #noHighTail = false;
  /** Where the current number began in this chunk. */
  #numberStart = 0;

  #value(s: string, i: number, n: number, c: number): number {
    const visitor = this.#visitor;
    if (c === 34 /* " */) {
      if (this.#wholeString) {
        // A short plain string whole in the chunk is one step for a visitor that takes it so.
        let k = i + 1;
        for (; k < n; k++) {
          const d = s.charCodeAt(k);
          if (d === 34 || d === 92 || d < 0x20) break;
        }
        if (k < n && s.charCodeAt(k) === 34 && k - i - 1 <= this.#maxStringLength) {
          (visitor.string as (text: string) => void)(s.slice(i + 1, k));
          this.#afterValue();
          return k + 1;
        }
      }
      visitor.open(STRING);
      this.#state = S_STRING;
      this.#startString();
      return i + 1;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      const kinds = this.kinds;
      if (kinds.length >= this.#maxDepth) {
        const offset = this.#offset + i;
        throw this.#error_('max-depth', `Nesting deeper than maxDepth (${this.#maxDepth}) at offset ${offset}${this.#where()}`, offset);
      }
      const kind = c === 123 ? OBJECT : ARRAY;
      visitor.open(kind);
      const depth = kinds.length;
      kinds.push(kind);
      if (kind === OBJECT) {
        this.keys[depth] = '';
        this.#state = S_OBJECT_FIRST;
      } else {
        this.indices[depth] = 0;
        this.#state = S_ARRAY_FIRST;
      }
      return i + 1;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      this.#state = S_NUMBER;
      this.#numberState = N_MINUS;
      this.#numberText = '';
      this.#numberStart = i;
      return this.#number(s, i, n);
    }
    if (c === 116 /* t */) this.#startLiteral('true', true);
    else if (c === 102 /* f */) this.#startLiteral('false', false);
    else if (c === 110 /* n */) this.#startLiteral('null', null);
    else throw this.#unexpected(s, i);
    return i;
  }

  #startLiteral(literal: string, value: JsonScalar): void {
    this.#state = S_LITERAL;
    this.#literal = literal;
    this.#literalValue = value;
    this.#literalPos = 0;
  }

  #literalChars(s: string, i: number, n: number): number {
    const literal = this.#literal;
    let pos = this.#literalPos;
    while (i < n) {
      if (s.charCodeAt(i) !== literal.charCodeAt(pos)) throw this.#unexpected(s, i, `'${literal}'`);
      i++;
      if (++pos === literal.length) {
        this.#visitor.scalar(this.#literalValue, undefined);
        this.#afterValue();
        return i;
      }
    }
    this.#literalPos = pos;
    return i;
  }

  #number(s: string, i: number, n: number): number {
    let state = this.#numberState;
    const start = this.#numberStart;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      const digit = c >= 48 && c <= 57;
      switch (state) {
        case N_MINUS:
          if (c === 45 && this.#numberText === '' && i === start) continue; // the sign itself
          if (digit) {
            state = c === 48 ? N_ZERO : N_INT;
            continue;
          }
          break;
        case N_ZERO:
        case N_INT:
          if (digit && state === N_INT) continue;
          if (c === 46 /* . */) {
            state = N_DOT;
            continue;
          }
          if (c === 101 || c === 69 /* e E */) {
            state = N_E;
            continue;
          }
          break;
        case N_DOT:
          if (digit) {
            state = N_FRAC;
            continue;
          }
          break;
        case N_FRAC:
          if (digit) continue;
          if (c === 101 || c === 69) {
            state = N_E;
            continue;
          }
          break;
        case N_E:
          if (c === 43 || c === 45 /* + - */) {
            state = N_E_SIGN;
            continue;
          }
          if (digit) {
            state = N_EXP;
            continue;
          }
          break;
        case N_E_SIGN:
        case N_EXP:
          if (digit) {
            state = N_EXP;
            continue;
          }
          break;
      }
      // `c` does not continue the number: it ends it, or the number is incomplete.
      this.#numberState = state;
      this.#numberStart = 0;
      if (state !== N_ZERO && state !== N_INT && state !== N_FRAC && state !== N_EXP) throw this.#unexpected(s, i);
      const value = this.#numberText === '' ? shortNumber(s, start, i) : NaN;
      if (value === value) {
        this.#visitor.scalar(value, this.#wantNumberText ? s.slice(start, i) : undefined);
      } else {
        const raw = this.#numberText + s.slice(start, i);
        this.#numberText = '';
        this.#visitor.scalar(+raw, raw);
      }
      this.#afterValue();
      return i;
    }
    this.#numberState = state;
    return i;
  }

  /** End of input while in a number: complete it if it is whole. */
  #endNumber(raw: string, offset: number): void {
    const state = this.#numberState;
    if (state === N_ZERO || state === N_INT || state === N_FRAC || state === N_EXP) {
      this.#numberText = '';
      this.#visitor.scalar(+raw, raw);
      this.#afterValue();
    } else {
      throw this.#error_('unexpected-end', `Unexpected end of input at offset ${offset}${this.#where()}: expected a digit`, offset);
    }
  }

  #afterValue(): void {
    this.#state = this.kinds.length === 0 ? S_END : S_AFTER;
  }

  #closeContainer(): void {
    this.kinds.pop();
    this.#visitor.close();
    this.#afterValue();
  }

  /**
   * Scan string data from `i` until the closing quote or `n`, adding the decoded text to `#piece`.
   * The fast path finds the closing quote with `indexOf`, holds back an incomplete trailing escape,
   * and decodes the run natively; any doubt (an invalid run, a limit) goes to {@link #stringExact},
   * which finds the exact offset of the problem.
   */
  #string(s: string, i: number, n: number): number {
    let close = s.indexOf('"', i);
    while (close !== -1 && close < n && escapedQuote(s, close, i)) close = s.indexOf('"', close + 1);
    const closed = close !== -1 && close < n;
    const cut = closed ? close : completeEnd(s, i, n);
    // A cut `\uXX…` whose digits are already wrong is an error now, whatever follows.
    for (let k = cut + 2; k < n && !closed; k++) if (hexValue(s.charCodeAt(k)) < 0) return this.#stringExact(s, i, n);
    const raw = this.#raw && this.#state === S_STRING;
    // Raw text keeps a trailing high surrogate back too, escaped or not: never half a pair.
    const end = raw && !closed ? beforeHighSurrogate(s, i, cut) : cut;
    // The surrogate held back is one code unit: it counts against maxStringLength now, as it does
    // for a visitor that takes decoded text, so both engines fail at the same character.
    const held = end < cut ? 1 : 0;
    // Short runs go raw (validated here, decoded by the visitor once per snapshot); long ones are
    // decoded natively right away, which costs less than validating them by hand.
    if (end > i && raw && end - i < 64) {
      const units = rawUnits(s, i, end);
      if (units < 0 || this.#stringLength + this.#pieceUnits + units + held > this.#maxStringLength) return this.#stringExact(s, i, n);
      this.#piece += s.slice(i, end);
      this.#pieceUnits += units;
    } else if (end > i) {
      const decoded = decodeRun(s, i, end);
      const budget = this.#maxStringLength - (this.#state === S_KEY_STRING ? this.#keyText.length : this.#stringLength);
      if (decoded === undefined || this.#piece.length + decoded.length + held > budget) return this.#stringExact(s, i, n);
      this.#piece += decoded;
      // Raw mode held a trailing high surrogate back above: #flushString need not look for one
      // (reading the last character of a long decoded run, a rope of parts, would copy it).
      this.#noHighTail = raw && !closed;
    } else if (held === 1 && this.#stringLength + this.#pieceUnits + 1 > this.#maxStringLength) return this.#stringExact(s, i, n);
    if (closed) {
      this.#closeString();
      return end + 1;
    }
    if (end < n) this.#pending = s.slice(end, n);
    return n;
  }

  /**
   * {@link #string} for a short run (most chunks of a stream): one pass finds the closing quote,
   * checks every escape and control character, counts the decoded length and stops at an escape
   * cut by the chunk's end; on so few characters that costs less than native searches. A raw
   * visitor gets the run as it is; otherwise a run with escapes is decoded by `JSON.parse`.
   * Anything wrong goes to {@link #stringExact} for the exact error.
   */
  #shortString(s: string, i: number, n: number): number {
    const raw = this.#raw && this.#state === S_STRING;
    let shrink = 0; // code units the escapes save: decoded length = raw length - shrink
    let highAt = -1; // raw mode: where the last high surrogate (raw or escaped) begins…
    let highEnd = -1; // …and ends
    let closed = false;
    let k = i;
    for (; k < n; k++) {
      const c = s.charCodeAt(k);
      if (c === 34 /* " */) {
        closed = true;
        break;
      }
      if (c === 92 /* \ */) {
        if (k + 1 === n) break; // a cut escape, held back
        const e = s.charCodeAt(k + 1);
        if (e === 117 /* u */) {
          const last = k + 6 <= n ? k + 6 : n;
          let unit = 0;
          for (let h = k + 2; h < last; h++) {
            const v = hexValue(s.charCodeAt(h));
            if (v < 0) return this.#stringExact(s, i, n);
            unit = (unit << 4) | v;
          }
          if (last < k + 6) break; // a cut `\uXX…`, held back
          if (unit >= 0xd800 && unit <= 0xdbff) {
            highAt = k;
            highEnd = k + 6;
          }
          shrink += 5;
          k += 5;
        } else {
          if (e >= 128 || SHORT_ESCAPE[e] === 0) return this.#stringExact(s, i, n);
          shrink += 1;
          k += 1;
        }
      } else if (c < 0x20) return this.#stringExact(s, i, n);
      else if (c >= 0xd800 && c <= 0xdbff) {
        highAt = k;
        highEnd = k + 1;
      }
    }
    let end = k;
    if (raw) {
      // Never half a pair: a trailing high surrogate waits for the next chunk, but counts against
      // maxStringLength now (see #string).
      let held = 0;
      if (!closed && highEnd === end && end > i) {
        if (end - highAt === 6) shrink -= 5;
        end = highAt;
        held = 1;
      }
      const units = end - i - shrink;
      if (this.#stringLength + this.#pieceUnits + units + held > this.#maxStringLength) return this.#stringExact(s, i, n);
      if (end > i) {
        this.#piece += s.slice(i, end);
        this.#pieceUnits += units;
      }
    } else if (end > i) {
      // Validated above, so the native decoder cannot fail; it decodes a run with escapes faster
      // than slicing it up here would, and makes a flat string.
      const run = s.slice(i, end);
      const text = shrink === 0 ? run : (JSON.parse('"' + run + '"') as string);
      const budget = this.#maxStringLength - (this.#state === S_KEY_STRING ? this.#keyText.length : this.#stringLength);
      if (this.#piece.length + text.length > budget) return this.#stringExact(s, i, n);
      this.#piece += text;
    }
    if (closed) {
      this.#closeString();
      return k + 1;
    }
    if (end < n) this.#pending = s.slice(end, n);
    return n;
  }

  /** The exact, slower string scanner: same result as {@link #string}, or the precise error. */
  #stringExact(s: string, i: number, n: number): number {
    let piece = this.#piece;
    const budget = this.#maxStringLength - (this.#state === S_KEY_STRING ? this.#keyText.length : this.#stringLength);
    const special = STRING_SPECIAL;
    for (;;) {
      special.lastIndex = i;
      const found = special.test(s);
      let j = found ? special.lastIndex - 1 : n;
      if (j > n) j = n;
      if (piece.length + (j - i) > budget) {
        throw this.#tooLong(i + (budget - piece.length));
      }
      if (j > i) piece += s.slice(i, j);
      if (j === n) {
        this.#piece = piece;
        return n;
      }
      const c = s.charCodeAt(j);
      if (c === 34 /* " */) {
        this.#piece = piece;
        this.#closeString();
        return j + 1;
      }
      if (c !== 92 /* \ */) {
        throw this.#unexpected(s, j, 'a character other than a raw control character (escape it)');
      }
      // An escape sequence.
      if (j + 1 >= n) return this.#holdBack(s, j, n, piece);
      const e = s.charAt(j + 1);
      if (e !== 'u') {
        const decoded = ESCAPES[e];
        if (decoded === undefined) throw this.#unexpected(s, j + 1, 'an escape character (one of "\\/bfnrtu)');
        if (piece.length + 1 > budget) throw this.#tooLong(j);
        piece += decoded;
        i = j + 2;
        continue;
      }
      let unit = 0;
      const last = Math.min(j + 6, n);
      for (let k = j + 2; k < last; k++) {
        const h = hexValue(s.charCodeAt(k));
        if (h < 0) throw this.#unexpected(s, k, 'a hexadecimal digit');
        unit = (unit << 4) | h;
      }
      if (j + 6 > n) return this.#holdBack(s, j, n, piece);
      if (piece.length + 1 > budget) throw this.#tooLong(j);
      piece += String.fromCharCode(unit);
      i = j + 6;
    }
  }

  /** Keep an incomplete escape for the next chunk, which is scanned after it. */
  #holdBack(s: string, j: number, n: number, piece: string): number {
    this.#pending = s.slice(j, n);
    this.#piece = piece;
    return n;
  }

  #tooLong(i: number): JsonStreamError {
    const offset = this.#offset + i;
    return this.#error_('max-string-length', `String longer than maxStringLength (${this.#maxStringLength}) at offset ${offset}${this.#where()}`, offset);
  }

  /** Emit the string data gathered in this chunk, holding back a trailing high surrogate. */
  #flushString(): void {
    const fresh = this.#piece;
    this.#piece = '';
    const units = this.#pieceUnits;
    if (units > 0) {
      this.#stringLength += units;
      this.#pieceUnits = 0;
      // A high surrogate carried from a decoded run goes first, as itself: raw string content
      // may hold it unescaped, and the raw piece never ends in half a pair.
      const carry = this.#carry;
      this.#carry = '';
      (this.#visitor.rawText as (raw: string, units: number) => void)(carry + fresh, units + carry.length);
      return;
    }
    this.#stringLength += fresh.length;
    let text = this.#carry + fresh;
    this.#carry = '';
    const last = this.#noHighTail ? 0 : text.charCodeAt(text.length - 1);
    this.#noHighTail = false;
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#carry = text.charAt(text.length - 1);
      text = text.slice(0, -1);
    }
    if (text !== '') this.#visitor.text(text);
  }

  #closeString(): void {
    const fresh = this.#piece;
    const piece = this.#carry + fresh;
    this.#piece = '';
    this.#carry = '';
    if (this.#state === S_KEY_STRING) {
      const key = this.#keyText + piece;
      this.#keyText = '';
      this.keys[this.kinds.length - 1] = key;
      this.#visitor.key(key);
      this.#state = S_COLON;
      return;
    }
    const units = this.#pieceUnits;
    if (units > 0) {
      this.#stringLength += units;
      this.#pieceUnits = 0;
      (this.#visitor.rawText as (raw: string, units: number) => void)(piece, units + piece.length - fresh.length);
    } else {
      this.#stringLength += fresh.length;
      if (piece !== '') this.#visitor.text(piece);
    }
    this.#visitor.close();
    this.#afterValue();
  }
}

function checkLimit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 1) {
    throw new RangeError(`${name} must be a positive number or Infinity, got ${String(value)}`);
  }
  return value;
}
