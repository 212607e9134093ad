import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { JsonScanner, type JsonLimits } from '../json/scanner.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import type { JsonValue, StreamFragment } from '../types.ts';
import { runStep } from './fail-after-drain.ts';

/** A value emitted by {@link JsonValueStream} and {@link FragmentValueStream}. */
export interface ValueSnapshot {
  /** The value so far; once `complete`, the final value. Live: later input mutates it. */
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
}

/** Options of {@link FragmentValueStream}. */
export interface FragmentValueStreamOptions {
  /**
   * Emit `{value, complete: false}` after every fragment that changed the value.
   * @default false
   */
  readonly snapshots?: boolean;
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
export class JsonValueStream extends TransformStream<string | Uint8Array, ValueSnapshot> {
  constructor(options: JsonValueStreamOptions = {}) {
    const builder = new ValueBuilder();
    const scanner = new JsonScanner(builder, options);
    const snapshots = options.snapshots === true;
    let emitted = false;
    let version = 0;
    const report = (out: ValueSnapshot[]): void => {
      if (emitted) return;
      if (builder.complete) {
        emitted = true;
        out.push({ value: builder.value(), complete: true });
      } else if (snapshots && builder.version !== version && builder.started) {
        version = builder.version;
        out.push({ value: builder.snapshot() as JsonValue, complete: false });
      }
    };
    super({
      transform: (chunk, controller) => runStep(controller, (out) => {
        try {
          scanner.push(chunk);
        } finally {
          report(out);
        }
      }),
      flush: (controller) => runStep(controller, (out) => {
        scanner.end();
        report(out);
      }),
    });
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
export class FragmentValueStream extends TransformStream<StreamFragment, ValueSnapshot> {
  constructor(options: FragmentValueStreamOptions = {}) {
    const aggregator = new FragmentAggregator();
    const snapshots = options.snapshots === true;
    super({
      transform(fragment, controller) {
        const value = aggregator.push(fragment);
        if (value !== undefined) controller.enqueue({ value, complete: true });
        else if (snapshots && !(fragment.type === 'done' || isWrappedDone(fragment))) {
          controller.enqueue({ value: aggregator.snapshot() as JsonValue, complete: false });
        }
      },
      flush() {
        if (!aggregator.complete) throw new TypeError('FragmentValueStream: the fragments ended before the value was complete');
      },
    });
  }
}

/** A `done` that closes a nested value changes nothing a snapshot shows. */
function isWrappedDone(fragment: StreamFragment): boolean {
  let leaf = fragment;
  while (leaf.type === 'entry' || leaf.type === 'item') leaf = leaf.value;
  return leaf.type === 'done';
}
