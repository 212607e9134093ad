import type { JsonScalar, StreamFragment } from '../types.ts';
import { OBJECT, JsonScanner, type JsonLimits, type JsonVisitor, type KindCode } from './scanner.ts';
import { retainHiddenClass } from './retain.ts';

/** Options of {@link IncrementalJsonParser}. */
export interface IncrementalJsonParserOptions extends JsonLimits {}

const START: readonly StreamFragment[] = [
  { type: 'start', kind: 'object' },
  { type: 'start', kind: 'array' },
  { type: 'start', kind: 'string' },
];
const DONE: StreamFragment = { type: 'done' };

/**
 * Internal: wraps each leaf in the `entry`/`item` fragments of the scanner's open containers and
 * collects them in `out` (which keeps what was found before an error, for the stream shells).
 */
export class FragmentCollector implements JsonVisitor {
  out: StreamFragment[] = [];
  scanner!: JsonScanner;

  /** Receives each wrapped fragment: collects it in `out`, unless a subclass routes it elsewhere. */
  protected deliver(fragment: StreamFragment): void {
    this.out.push(fragment);
  }

  #emit(leaf: StreamFragment): void {
    const { kinds, keys, indices } = this.scanner;
    let fragment = leaf;
    for (let d = kinds.length - 1; d >= 0; d--) {
      fragment =
        kinds[d] === OBJECT
          ? { type: 'entry', key: keys[d] as string, value: fragment }
          : { type: 'item', index: indices[d] as number, value: fragment };
    }
    this.deliver(fragment);
  }

  key(_key: string): void {}

  open(kind: KindCode): void {
    this.#emit(START[kind] as StreamFragment);
  }

  text(text: string): void {
    this.#emit({ type: 'string', text });
  }

  scalar(value: JsonScalar, raw: string | undefined): void {
    this.#emit(raw === undefined ? { type: 'scalar', value } : { type: 'scalar', value, raw });
    this.#emit(DONE);
  }

  close(): void {
    this.#emit(DONE);
  }
}

/**
 * The incremental JSON parser: JSON text in arbitrary chunks → {@link StreamFragment}s (RFD 043,
 * with `start` fragments), exactly as `JSON.parse` would read the whole text.
 *
 * - **Exact**: accepts what `JSON.parse` accepts and nothing more, whatever the cutting.
 * - **Prompt**: after every `push`, all string data up to the last complete character has been
 *   emitted; only an incomplete escape or half a surrogate pair is held back. Keys are emitted
 *   complete (inside `entry` fragments); a scalar as soon as its terminator arrives (a root
 *   number at `end()` or at following whitespace).
 * - **Linear**: every character is scanned once; state is O(depth). Each fragment carries one
 *   wrapper object per nesting level (the path), so deep documents cost O(depth) per fragment:
 *   use {@link IncrementalJsonValueParser} when only values are wanted.
 *
 * `Uint8Array` chunks are UTF-8, cut anywhere (decoded as `TextDecoder` does, invalid sequences
 * becoming U+FFFD). Do not mix byte and string chunks within a code point.
 *
 * @throws {JsonStreamError} from `push` and `end`: `invalid-json`, `unexpected-end`,
 *   `max-depth`, `max-string-length`, `max-length`. After an error every call throws it again.
 * @example
 * ```ts
 * const parser = new IncrementalJsonParser();
 * parser.push('{"path":"src/ma');   // start object, entry path → start string, entry path → string "src/ma"
 * parser.push('in.rs","n":1}');      // … string "in.rs", done, entry n → scalar 1, done, done
 * parser.end();
 * ```
 */
export class IncrementalJsonParser {
  readonly #collector = new FragmentCollector();
  readonly #scanner: JsonScanner;

  constructor(options: IncrementalJsonParserOptions = {}) {
    this.#scanner = new JsonScanner(this.#collector, options);
    this.#collector.scanner = this.#scanner;
  }

  /**
   * Parse the next chunk; returns the fragments it completes (possibly none), appended to `out`
   * when it is given. If it throws, `out` holds the fragments found before the error.
   */
  push(chunk: string | Uint8Array, out: StreamFragment[] = []): StreamFragment[] {
    this.#collector.out = out;
    this.#scanner.push(chunk);
    return out;
  }

  /** The input is complete: returns the last fragments, or throws `unexpected-end`. */
  end(out: StreamFragment[] = []): StreamFragment[] {
    this.#collector.out = out;
    this.#scanner.end();
    return out;
  }

  /** True once the root value is complete. */
  get complete(): boolean {
    return this.#scanner.complete;
  }

  /** The JSON Pointer of the value being parsed (`""` at the root). */
  get path(): string {
    return this.#scanner.path();
  }
}

retainHiddenClass(new IncrementalJsonParser());
