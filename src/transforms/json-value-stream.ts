/**
 * The value streams: thin shells over {@link JsonValueCore} and {@link FragmentValueCore}.
 *
 * @module
 */
import type { StreamFragment } from '../types.ts';
import { Stage } from './stage.ts';
import {
  FragmentValueCore,
  JsonValueCore,
  type FragmentValueStreamOptions,
  type JsonValueStreamOptions,
  type ValueSnapshot,
} from '../views/json-value-core.ts';

export type { FragmentValueStreamOptions, JsonValueStreamOptions, ValueSnapshot };

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
 * for await (const { value, complete } of iterate(values)) render(value, complete); // iterate(): Safari too
 * ```
 */
export class JsonValueStream extends Stage<string | Uint8Array, ValueSnapshot> {
  constructor(options: JsonValueStreamOptions = {}) {
    super(new JsonValueCore(options));
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
