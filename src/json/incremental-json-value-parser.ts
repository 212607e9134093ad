import type { JsonValue } from '../types.ts';
import { JsonScanner, type JsonLimits } from './scanner.ts';
import { findRun } from './scanner-runs.ts';
import { ValueBuilder } from './value-builder.ts';
import { SharedSnapshots } from './shared-snapshot.ts';

/** Options of {@link IncrementalJsonValueParser}. */
export interface IncrementalJsonValueParserOptions extends JsonLimits {
  /**
   * Make `snapshot()` return values that are never mutated afterwards and share every unchanged
   * object and array with the previous snapshot, instead of the live value: see
   * {@link FragmentAggregatorOptions.immutableSnapshots}. `end()` still returns the live value.
   * @default false
   */
  readonly immutableSnapshots?: boolean;
}

/**
 * The fused engine: JSON text in chunks → the value, without materialising fragments. Same
 * exactness, promptness, limits and errors as {@link IncrementalJsonParser}; O(1) work per
 * event whatever the depth.
 *
 * `snapshot()` returns the value so far, live (later chunks mutate it), with the invariants of
 * {@link FragmentAggregator}; with `immutableSnapshots: true`, values never mutated afterwards
 * that share every unchanged object and array with the previous snapshot.
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
  readonly #shared: SharedSnapshots | undefined;

  constructor(options: IncrementalJsonValueParserOptions = {}) {
    this.#scanner = new JsonScanner(this.#builder, options, findRun);
    this.#shared = options.immutableSnapshots === true ? new SharedSnapshots() : undefined;
  }

  /** Parse the next chunk. */
  push(chunk: string | Uint8Array): void {
    this.#scanner.push(chunk);
  }

  /**
   * The value so far, or `undefined` before any value began: live, or with `immutableSnapshots`
   * never mutated afterwards and structurally shared with the previous snapshot.
   */
  snapshot(): JsonValue | undefined {
    return this.#shared === undefined ? this.#builder.snapshot() : this.#shared.take(this.#builder);
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
