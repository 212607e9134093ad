/**
 * The AI SDK's repair of a cut JSON text (`fixJson` in `ai`, which `parsePartialJson` parses when
 * `JSON.parse` fails), followed as a scanner that reads each character once: how much of the text
 * it keeps (up to the last character it marks as kept) and what it closes the kept text with (the
 * states left on its stack). The repair is lenient — it skips what it does not expect — so its
 * stack says how to close the text, not whether the result is JSON: partial-json-parser.ts reads
 * the kept text strictly.
 *
 * This follows `ai` 7. `ai` 5 keeps a `\u` escape as soon as its `u` is read, `ai` 6 keeps the
 * character after an array's `[` whatever it is; docs/partial-json.md has what that changes.
 *
 * @module
 */
import { ARRAY, LITERALS, OBJECT, type StackListener } from './partial-json-reader.ts';

// The repair's states, in the AI SDK's order.
const ROOT = 0;
const FINISH = 1;
export const IN_STRING = 2;
export const IN_ESCAPE = 3;
export const IN_UNICODE_ESCAPE = 4;
export const IN_LITERAL = 5;
const IN_NUMBER = 6;
// Objects and arrays: every state from here on is a container's.
const OBJECT_START = 7;
const OBJECT_KEY = 8;
const OBJECT_AFTER_KEY = 9;
const OBJECT_BEFORE_VALUE = 10;
const OBJECT_AFTER_VALUE = 11;
const OBJECT_AFTER_COMMA = 12;
const ARRAY_START = 13;
const ARRAY_AFTER_VALUE = 14;
const ARRAY_AFTER_COMMA = 15;

/** The AI SDK's repair scanner. Positions are absolute, as in {@link JsonPrefixReader.read}. */
export class RepairScanner {
  /** The repair's stack; the containers' states are at 1 … {@link depth}. */
  readonly stack: number[] = [ROOT];
  /** Containers on the stack. */
  depth = 0;
  /** Absolute position of the last character kept (the AI SDK's `lastValidIndex`); -1: none. */
  kept = -1;
  /** The literal being read (its first character's position, its word). */
  literalStart = 0;
  word = '';
  #digits = 0;

  constructor(readonly listener: StackListener) {}

  /** The state on top of the stack. */
  get state(): number {
    return this.stack[this.stack.length - 1] as number;
  }

  /** The kind ({@link OBJECT} or {@link ARRAY}) of the container at `level` (0: the outermost). */
  kindAt(level: number): number {
    return (this.stack[level + 1] as number) >= ARRAY_START ? ARRAY : OBJECT;
  }

  /** Read `piece[from, to)`, whose first character is at absolute position `base`. */
  scan(piece: string, from: number, to: number, base: number): void {
    const stack = this.stack;
    let i = from;
    while (i < to) {
      const top = stack.length - 1;
      const c = piece.charCodeAt(i);
      switch (stack[top]) {
        case FINISH:
          return; // nothing after the root value is kept
        case ROOT:
          this.#valueStart(c, base + i, FINISH);
          break;
        case OBJECT_START:
          if (c === 34) stack[top] = OBJECT_KEY;
          else if (c === 125) this.#close(base + i);
          break;
        case OBJECT_AFTER_COMMA:
          if (c === 34) stack[top] = OBJECT_KEY;
          break;
        case OBJECT_KEY: {
          // A key ends at the next quote (the repair does not read escapes in keys).
          const end = piece.indexOf('"', i);
          if (end < 0 || end >= to) return;
          stack[top] = OBJECT_AFTER_KEY;
          i = end + 1;
          continue;
        }
        case OBJECT_AFTER_KEY:
          if (c === 58) stack[top] = OBJECT_BEFORE_VALUE;
          break;
        case OBJECT_BEFORE_VALUE:
          this.#valueStart(c, base + i, OBJECT_AFTER_VALUE);
          break;
        case OBJECT_AFTER_VALUE:
          this.#afterObjectValue(c, base + i);
          break;
        case IN_STRING: {
          // Every character but a quote or a backslash is kept: a run in one go.
          let j = i;
          while (j < to) {
            const d = piece.charCodeAt(j);
            if (d === 34 || d === 92) break;
            j++;
          }
          if (j > i) this.kept = base + j - 1;
          if (j === to) return;
          if (piece.charCodeAt(j) === 34) {
            stack.pop();
            this.kept = base + j;
          } else stack.push(IN_ESCAPE);
          i = j + 1;
          continue;
        }
        case ARRAY_START:
          if (c === 93) this.#close(base + i);
          else this.#valueStart(c, base + i, ARRAY_AFTER_VALUE);
          break;
        case ARRAY_AFTER_VALUE:
          if (c === 44) stack[top] = ARRAY_AFTER_COMMA;
          else if (c === 93) this.#close(base + i);
          else this.kept = base + i;
          break;
        case ARRAY_AFTER_COMMA:
          this.#valueStart(c, base + i, ARRAY_AFTER_VALUE);
          break;
        case IN_ESCAPE:
          stack.pop();
          if (c === 117) {
            this.#digits = 0;
            stack.push(IN_UNICODE_ESCAPE);
          } else this.kept = base + i;
          break;
        case IN_UNICODE_ESCAPE:
          // Anything but a hex digit is skipped; the fourth digit ends the escape.
          if (((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)) && ++this.#digits === 4) {
            stack.pop();
            this.kept = base + i;
          }
          break;
        case IN_NUMBER:
          if (c >= 48 && c <= 57) this.kept = base + i;
          else if (c !== 101 && c !== 69 && c !== 45 && c !== 46) {
            stack.pop();
            const below = stack[top - 1];
            if (below === ARRAY_AFTER_VALUE ? c === 44 || c === 93 : below === OBJECT_AFTER_VALUE && (c === 44 || c === 125)) {
              this.#afterValue(c, base + i);
            }
          }
          break;
        case IN_LITERAL: {
          const matched = base + i - this.literalStart;
          if (matched < this.word.length && c === this.word.charCodeAt(matched)) this.kept = base + i;
          else {
            stack.pop();
            this.#afterValue(c, base + i);
          }
          break;
        }
      }
      i++;
    }
  }

  /** Where a value may begin: `swap` replaces the state on top when one does. */
  #valueStart(c: number, at: number, swap: number): void {
    const literal = LITERALS[c];
    const next =
      c === 34 ? IN_STRING : literal !== undefined ? IN_LITERAL : c === 45 || (c >= 48 && c <= 57) ? IN_NUMBER : c === 123 ? OBJECT_START : c === 91 ? ARRAY_START : -1;
    if (next < 0) return;
    const stack = this.stack;
    if (c !== 45) this.kept = at; // a lone minus is not kept
    stack[stack.length - 1] = swap;
    stack.push(next);
    if (literal !== undefined) {
      this.literalStart = at;
      this.word = literal[0];
    }
    if (next >= OBJECT_START) this.listener.opened(this.depth++, next === OBJECT_START ? OBJECT : ARRAY);
  }

  /** After a value in an object or an array: `,` or the container's end; anything else is skipped. */
  #afterValue(c: number, at: number): void {
    const stack = this.stack;
    const top = stack[stack.length - 1];
    if (top === OBJECT_AFTER_VALUE) this.#afterObjectValue(c, at);
    else if (top === ARRAY_AFTER_VALUE) {
      if (c === 44) stack[stack.length - 1] = ARRAY_AFTER_COMMA;
      else if (c === 93) this.#close(at);
    }
  }

  #afterObjectValue(c: number, at: number): void {
    if (c === 44) this.stack[this.stack.length - 1] = OBJECT_AFTER_COMMA;
    else if (c === 125) this.#close(at);
  }

  /** The container on top ends here (its end is kept). */
  #close(at: number): void {
    this.kept = at;
    this.stack.pop();
    this.listener.closed(--this.depth);
  }
}
