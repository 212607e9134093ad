import type { JsonScalar, StreamFragment } from '../types.ts';
import { OBJECT, JsonScanner, type JsonLimits, type JsonVisitor, type KindCode } from './scanner.ts';
import { DeepFragment, EAGER_DEPTH, newStep, type PathStep } from './deep-fragment.ts';

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

  /** The path's steps, outermost first, as far as {@link DeepFragment}s needed them. */
  readonly #steps: PathStep[] = [];
  /** How many of `#steps` are current. */
  #current = 0;

  #emit(leaf: StreamFragment): void {
    const { kinds, keys, indices } = this.scanner;
    const depth = kinds.length;
    // Only the innermost step can have changed since the last fragment at this depth or deeper:
    // a key or an index changes between the elements of its container, and the element's own
    // first fragment comes before any deeper one.
    if (this.#current >= depth) this.#current = depth - 1;
    if (depth > EAGER_DEPTH) {
      const steps = this.#steps;
      for (let d = Math.max(this.#current, 0); d < depth; d++) {
        const up = d === 0 ? undefined : steps[d - 1];
        const key = kinds[d] === OBJECT ? (keys[d] as string) : undefined;
        const index = key === undefined ? (indices[d] as number) : -1;
        const step = steps[d];
        if (step === undefined || step.up !== up || step.key !== key || step.index !== index) steps[d] = newStep(up, key, index);
      }
      this.#current = depth;
      this.deliver(new DeepFragment(steps[0] as PathStep, steps[depth - 1] as PathStep, leaf, depth) as unknown as StreamFragment);
      return;
    }
    let fragment = leaf;
    for (let d = depth - 1; d >= 0; d--) {
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
 * - **Linear**: every character is scanned once; state is O(depth). A fragment nested more than
 *   8 levels down is built lazily (its inner wrappers on first access of `value`, see
 *   `DeepFragment`), so a fragment costs O(1) whatever the depth unless it is walked.
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
