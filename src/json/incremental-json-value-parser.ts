import type { JsonValue } from '../types.ts';
import { JsonScanner, type JsonLimits } from './scanner.ts';
import { ValueBuilder } from './value-builder.ts';
import { retainHiddenClass } from './retain.ts';

/** Options of {@link IncrementalJsonValueParser}. */
export interface IncrementalJsonValueParserOptions extends JsonLimits {}

/**
 * The fused engine: JSON text in chunks → the value, without materialising fragments. Same
 * exactness, promptness, limits and errors as {@link IncrementalJsonParser}; O(1) work per
 * event whatever the depth.
 *
 * `snapshot()` returns the value so far, live (later chunks mutate it), with the invariants of
 * {@link FragmentAggregator}.
 *
 * @throws {JsonStreamError} from `push` and `end`.
 * @example
 * ```ts
 * const parser = new IncrementalJsonValueParser();
 * parser.push('{"path":"src/ma');
 * parser.snapshot(); // { path: 'src/ma' }
 * parser.push('in.rs"}');
 * parser.end();      // { path: 'src/main.rs' }
 * ```
 */
export class IncrementalJsonValueParser {
  readonly #builder = new ValueBuilder();
  readonly #scanner: JsonScanner;

  constructor(options: IncrementalJsonValueParserOptions = {}) {
    this.#scanner = new JsonScanner(this.#builder, options);
  }

  /** Parse the next chunk. */
  push(chunk: string | Uint8Array): void {
    this.#scanner.push(chunk);
  }

  /** The value so far (live), or `undefined` before any value began. */
  snapshot(): JsonValue | undefined {
    return this.#builder.snapshot();
  }

  /** True once the root value is complete (trailing whitespace may still follow). */
  get complete(): boolean {
    return this.#builder.complete;
  }

  /** The input is complete: returns the value, or throws `unexpected-end`. */
  end(): JsonValue {
    this.#scanner.end();
    return this.#builder.value();
  }

  /** The JSON Pointer of the value being parsed (`""` at the root). */
  get path(): string {
    return this.#scanner.path();
  }
}

retainHiddenClass(new IncrementalJsonValueParser());
