import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { JsonScanner, type JsonLimits } from '../json/scanner.ts';
import { SharedSnapshots } from '../json/shared-snapshot.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import { newPlace, placeOf } from '../json/deep-fragment.ts';
import type { JsonValue, StreamFragment } from '../types.ts';
import { type PushCore, Stage } from './stage.ts';

/** A value emitted by {@link JsonValueStream} and {@link FragmentValueStream}. */
export interface ValueSnapshot {
  /**
   * The value so far; once `complete`, the final value. Live (later input mutates it) unless the
   * stage was made with `immutableSnapshots`.
   */
  readonly value: JsonValue;
  /** True for the final value of the document. */
  readonly complete: boolean;
}

/** Options of {@link JsonValueStream}. */
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

/** Options of {@link FragmentValueStream}. */
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
 * JSON text → the value (and, on request, progressive snapshots) in one stream hop: the scanner
 * drives the value builder directly, without materialising fragments.
 *
 * The final value is enqueued as soon as the root value completes. `flush` then checks the rest
 * of the input: trailing non-whitespace or an incomplete document errors the stream with a
 * `JsonStreamError`. Snapshots are live objects, mutated by later chunks (so a snapshot costs
 * O(1)): read them when they arrive, or clone them to keep them.
 *
 * @example
 * ```ts
 * const response = await fetch('/arguments.json');
 * const values = response.body!.pipeThrough(new JsonValueStream({ snapshots: true }));
 * for await (const { value, complete } of values) render(value, complete);
 * ```
 */
export class JsonValueStream extends Stage<string | Uint8Array, ValueSnapshot> {
  constructor(options: JsonValueStreamOptions = {}) {
    super(new JsonValueCore(options));
  }
}

/**
 * The core of {@link JsonValueStream}: `push(chunk) → snapshots`, `end() → snapshots`; the
 * scanner drives the value builder directly.
 */
export class JsonValueCore implements PushCore<string | Uint8Array, ValueSnapshot> {
  readonly #builder = new ValueBuilder();
  readonly #scanner: JsonScanner;
  readonly #snapshots: boolean;
  readonly #shared: SharedSnapshots | undefined;
  #emitted = false;
  #version = 0;

  constructor(options: JsonValueStreamOptions = {}) {
    this.#scanner = new JsonScanner(this.#builder, options);
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
 * {@link StreamFragment}s → the value (and, on request, progressive snapshots), through a
 * {@link FragmentAggregator}. `flush` errors the stream with a `TypeError` if the fragments
 * ended before the root value was complete.
 *
 * @example
 * ```ts
 * const values = response.body!
 *   .pipeThrough(new JsonFragmentStream())
 *   .pipeThrough(new FragmentValueStream({ snapshots: true }));
 * ```
 */
export class FragmentValueStream extends Stage<StreamFragment, ValueSnapshot> {
  constructor(options: FragmentValueStreamOptions = {}) {
    super(new FragmentValueCore(options));
  }
}

/** The core of {@link FragmentValueStream}: `push(fragment) → snapshots`, `end() → []`. */
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
