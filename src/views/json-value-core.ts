/**
 * The value view's cores: JSON text or fragments → the value, and progressive snapshots on
 * request.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { JsonScanner, type JsonLimits } from '../json/scanner.ts';
import { findRun } from '../json/scanner-runs.ts';
import { SharedSnapshots } from '../json/shared-snapshot.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import { newPlace, placeOf } from '../json/deep-fragment.ts';
import type { JsonValue, StreamFragment } from '../types.ts';

/** A value emitted by `JsonValueStream` and `FragmentValueStream` (and their cores). */
export interface ValueSnapshot {
  /**
   * The value so far; once `complete`, the final value. Live (later input mutates it) unless the
   * stage was made with `immutableSnapshots`.
   */
  readonly value: JsonValue;
  /** True for the final value of the document. */
  readonly complete: boolean;
}

/** Options of `JsonValueStream` and {@link JsonValueCore}. */
export interface JsonValueStreamOptions extends JsonLimits {
  /**
   * Emit `{value, complete: false}` after every input chunk that changed the value, before the
   * final `{value, complete: true}`.
   * @default false
   */
  readonly snapshots?: boolean;
  /**
   * Make each snapshot a new object, never changed afterwards, that shares every unchanged object and array with the
   * previous snapshot (only the containers on changed paths are new), so a UI's change detection
   * (`Object.is` per path, React's `useSyncExternalStore`, memoised components) re-renders exactly
   * what changed. Costs O(size of the changed containers) per snapshot: meant for snapshots once
   * per coalesced tick, not per token.
   * @default false (snapshots are the live value)
   */
  readonly immutableSnapshots?: boolean;
}

/** Options of `FragmentValueStream` and {@link FragmentValueCore}. */
export interface FragmentValueStreamOptions {
  /**
   * Emit `{value, complete: false}` after every fragment that changed the value.
   * @default false
   */
  readonly snapshots?: boolean;
  /** As {@link JsonValueStreamOptions.immutableSnapshots}. @default false */
  readonly immutableSnapshots?: boolean;
}

/**
 * The core of `JsonValueStream`: `push(chunk) → snapshots`, `end() → snapshots`; the scanner
 * drives the value builder directly.
 *
 * @throws {JsonStreamError} from `push` for invalid text, from `end` for an incomplete document
 *   or trailing text.
 * @example
 * ```ts
 * const core = new JsonValueCore({ snapshots: true });
 * for (const chunk of ['{"a":', '[1,2]}']) for (const { value, complete } of core.push(chunk)) render(value, complete);
 * core.end();
 * ```
 */
export class JsonValueCore implements PushCore<string | Uint8Array, ValueSnapshot> {
  readonly #builder = new ValueBuilder();
  readonly #scanner: JsonScanner;
  readonly #snapshots: boolean;
  readonly #shared: SharedSnapshots | undefined;
  #emitted = false;
  #version = 0;

  constructor(options: JsonValueStreamOptions = {}) {
    this.#scanner = new JsonScanner(this.#builder, options, findRun);
    this.#snapshots = options.snapshots === true;
    this.#shared = options.immutableSnapshots === true ? new SharedSnapshots() : undefined;
  }

  push(chunk: string | Uint8Array, out: ValueSnapshot[] = []): ValueSnapshot[] {
    try {
      this.#scanner.push(chunk);
    } finally {
      this.#report(out);
    }
    return out;
  }

  end(out: ValueSnapshot[] = []): ValueSnapshot[] {
    this.#scanner.end();
    this.#report(out);
    return out;
  }

  #report(out: ValueSnapshot[]): void {
    if (this.#emitted) return;
    const builder = this.#builder;
    if (builder.complete) {
      this.#emitted = true;
      out.push({ value: builder.value(), complete: true });
    } else if (this.#snapshots && builder.version !== this.#version && builder.started) {
      this.#version = builder.version;
      const value = this.#shared === undefined ? builder.snapshot() : this.#shared.take(builder);
      out.push({ value: value as JsonValue, complete: false });
    }
  }
}

/**
 * The core of `FragmentValueStream`: `push(fragment) → snapshots`, `end() → []`.
 *
 * @throws {TypeError} from `end` when the fragments ended before the value was complete.
 * @example
 * ```ts
 * const core = new FragmentValueCore();
 * for (const fragment of new IncrementalJsonParser().push('[true]')) for (const snapshot of core.push(fragment)) use(snapshot.value);
 * ```
 */
export class FragmentValueCore implements PushCore<StreamFragment, ValueSnapshot> {
  readonly #aggregator: FragmentAggregator;
  readonly #snapshots: boolean;

  constructor(options: FragmentValueStreamOptions = {}) {
    this.#aggregator = new FragmentAggregator({ immutableSnapshots: options.immutableSnapshots === true });
    this.#snapshots = options.snapshots === true;
  }

  push(fragment: StreamFragment, out: ValueSnapshot[] = []): ValueSnapshot[] {
    const aggregator = this.#aggregator;
    const value = aggregator.push(fragment);
    if (value !== undefined) out.push({ value, complete: true });
    else if (this.#snapshots && !(fragment.type === 'done' || isWrappedDone(fragment))) {
      out.push({ value: aggregator.snapshot() as JsonValue, complete: false });
    }
    return out;
  }

  end(out: ValueSnapshot[] = []): ValueSnapshot[] {
    if (!this.#aggregator.complete) {
      throw new TypeError('FragmentValueStream: the fragments ended before the value was complete');
    }
    return out;
  }
}

/** A `done` that closes a nested value changes nothing a snapshot shows. */
function isWrappedDone(fragment: StreamFragment): boolean {
  return placeOf(fragment, place).leaf.type === 'done';
}

const place = /* @__PURE__ */ newPlace();
