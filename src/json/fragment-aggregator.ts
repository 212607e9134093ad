import type { JsonValue, StreamFragment } from '../types.ts';
import { ARRAY, OBJECT, STRING } from './scanner.ts';
import { ValueBuilder } from './value-builder.ts';
import { SharedSnapshots } from './shared-snapshot.ts';
import { newPlace, placeOf } from './deep-fragment.ts';

const KIND = { object: OBJECT, array: ARRAY, string: STRING } as const;

/** Options of {@link FragmentAggregator}. */
export interface FragmentAggregatorOptions {
  /**
   * Make `snapshot()` return values that are never mutated afterwards instead of the live value:
   * a new root whenever anything changed since the previous `snapshot()` (the same root
   * otherwise), in which every object and array whose content did not change is the very object
   * of the previous snapshot, so a UI that compares by identity (React, Vue, Svelte) re-renders
   * exactly the changed subtrees. Containers still open are copied; completed ones are shared
   * with the live value, which never changes them again. Costs O(size of the containers that
   * changed) per snapshot: an open array of n elements is copied whole (O(n)) at each snapshot
   * that changed it. Treat snapshots as read-only: they share objects with each other.
   * @default false
   */
  readonly immutableSnapshots?: boolean;
}

/**
 * Turns {@link StreamFragment}s back into values (RFD 043's aggregator).
 *
 * `push` returns the root value when the root `done` arrives; `snapshot()` returns the value so
 * far. A snapshot is live — the same object, mutated by later fragments; clone it to keep it —
 * and costs O(1). Snapshots only ever grow: a value's type never changes; strings only grow;
 * arrays only append or change their last element; objects only add a key or change the latest
 * (a duplicate key, which `JSON.parse` resolves to the last value, is the one exception: it
 * replaces the earlier member in place, as `JSON.parse` does). `__proto__` becomes an own
 * property.
 *
 * With `immutableSnapshots: true`, `snapshot()` instead returns values that are never mutated
 * afterwards and share every unchanged object and array with the previous snapshot (see
 * {@link FragmentAggregatorOptions.immutableSnapshots}). The value `push` returns at the end is
 * still the live value: equal to a snapshot taken then, sharing its completed objects and arrays
 * with the snapshots (and the same root if no snapshot saw the root open), so do not mutate it
 * while snapshots are still rendered.
 *
 * @throws {TypeError} from `push` when fragments arrive out of order (not from one parser).
 * @example
 * ```ts
 * const parser = new IncrementalJsonParser();
 * const aggregator = new FragmentAggregator();
 * for (const chunk of ['{"a":[1,', '"x"]}']) {
 *   for (const fragment of parser.push(chunk)) aggregator.push(fragment);
 *   console.log(aggregator.snapshot()); // { a: [1] }, then { a: [1, 'x'] }
 * }
 * ```
 */
export class FragmentAggregator {
  readonly #builder = new ValueBuilder();
  readonly #shared: SharedSnapshots | undefined;
  #finished = false;
  readonly #place = newPlace();

  constructor(options: FragmentAggregatorOptions = {}) {
    this.#shared = options.immutableSnapshots === true ? new SharedSnapshots() : undefined;
  }

  /** Apply one fragment; returns the root value once it is complete, otherwise `undefined`. */
  push(fragment: StreamFragment): JsonValue | undefined {
    const builder = this.#builder;
    if (this.#finished) throw new TypeError('FragmentAggregator: the root value is already complete');
    const { leaf, depth, key, index } = placeOf(fragment, this.#place);
    const open = builder.depth;
    switch (leaf.type) {
      case 'start':
      case 'scalar':
        if (depth !== open || builder.inString || (depth === 0 && builder.started)) return misplaced(fragment);
        if (depth > 0) {
          if (builder.topIsArray() ? index !== builder.nextIndex() : key === undefined) return misplaced(fragment);
          if (key !== undefined) builder.key(key);
        }
        if (leaf.type === 'start') builder.open(KIND[leaf.kind]);
        else builder.scalar(leaf.value);
        break;
      case 'string':
        if (depth !== open || !builder.inString) return misplaced(fragment);
        builder.text(leaf.text);
        break;
      case 'done':
        // Closes the open string at this depth or the container one level up; after a scalar it
        // only confirms what is already placed.
        if (builder.inString ? depth === open : depth === open - 1) builder.close();
        else if (depth !== open) return misplaced(fragment);
        break;
      default:
        return leaf satisfies never;
    }
    // The root's own `done` completes the value (after a root scalar, it follows the scalar).
    if (leaf.type === 'done' && depth === 0 && builder.complete) {
      this.#finished = true;
      return builder.value();
    }
    return undefined;
  }

  /**
   * The value so far, or `undefined` before the first fragment: live, or with `immutableSnapshots`
   * never mutated afterwards and structurally shared with the previous snapshot.
   */
  snapshot(): JsonValue | undefined {
    return this.#shared === undefined ? this.#builder.snapshot() : this.#shared.take(this.#builder);
  }

  /** True once the root value is complete. */
  get complete(): boolean {
    return this.#finished;
  }
}

function misplaced(fragment: StreamFragment): never {
  throw new TypeError(`FragmentAggregator: fragment out of order: ${JSON.stringify(fragment).slice(0, 80)}`);
}
