/**
 * Coalescing as a stream: a thin shell over {@link Coalescer} that adds the timer.
 *
 * @module
 */
import {
  Coalescer,
  DEFAULT_MAX_CHARS,
  DEFAULT_MAX_DELAY_MS,
  checkOption,
  type CoalesceInput,
  type CoalesceStreamOptions,
} from '../views/coalescer.ts';

export type { CoalesceInput, CoalesceStreamOptions };

/**
 * Merges streamed text pieces bound for the same target, so an interface re-renders a few
 * times a second instead of once per token. Items pass through unchanged except that runs of
 * mergeable pieces become one item carrying their joined text (the first piece's item with its
 * text replaced).
 *
 * **Mergeable pieces** and their targets:
 * - a `string` fragment (plain fragments): its path;
 * - a `tool-call-progress` / `structured-progress` event whose fragment is a string piece: the
 *   slot, the call's identity and the path;
 * - a `field-delta`: the slot, the call and the key;
 * - a `partial-string` path update: its document (the slot and the call); the merged update keeps
 *   the first piece's `path`, so relative paths still resolve;
 * - a `streaming-tool-call` delta (not the completion, not an empty announcement): the call;
 * - a `part` with `message`, `reasoning`, `tool-call-arguments` or `structured` text and no
 *   metadata: the slot and the part type.
 *
 * **Everything else is a boundary** (`start`, `scalar`, `done`, `field-start`, `field-end`,
 * every other path update, `flush`, `finished`, conversation events, parts with metadata, items
 * it does not know): it
 * first emits everything held, then itself. Nothing crosses a boundary, and each target's text
 * stays in order; between two boundaries the pieces of every target merge, even when pieces for
 * other targets come between them (a view passes each progress event on before the field event
 * or update it makes of it; parallel calls alternate), and the merged items go out in the order
 * of their first pieces.
 *
 * Held text is emitted when it reaches `maxChars`, `maxDelayMs` after its first piece (a timer,
 * cleared whenever the held text goes out some other way), at a boundary, and at the end of
 * input (`flush` emits everything held; no timer outlives the stream). If the stream is
 * cancelled or errored while text is held, the held text is dropped when its timer fires (within
 * `maxDelayMs`); an error from upstream reaches the reader at once, as through any
 * `TransformStream`. (No `cancel` hook: in workerd a transformer that has one ends a turn later
 * than a plain `TransformStream`.)
 *
 * @throws {RangeError} from the constructor for a `maxChars` < 1 or infinite, or a negative `maxDelayMs`.
 * @example
 * ```ts
 * const updates = fromResponse(response, { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false }))
 *   .pipeThrough(new CoalesceStream({ maxDelayMs: 50 }));
 * // iterate(): every engine, Safari too (no `for await` over a stream there)
 * for await (const event of iterate(updates)) render(event); // ≈ 20 renders a second at most per field
 * ```
 */
export class CoalesceStream<T = CoalesceInput> extends TransformStream<T, T> {
  constructor(options: CoalesceStreamOptions = {}) {
    const maxChars = checkOption('maxChars', options.maxChars, DEFAULT_MAX_CHARS, 1, false);
    const maxDelayMs = checkOption('maxDelayMs', options.maxDelayMs, DEFAULT_MAX_DELAY_MS, 0, true);
    const core = new Coalescer<T>(maxChars);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const clear = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    const expire = (controller: TransformStreamDefaultController<T>): void => {
      timer = undefined;
      const held = core.flush();
      try {
        for (const item of held) controller.enqueue(item);
      } catch {
        // The stream was cancelled or errored while the text was held: nobody takes it any more.
      }
    };
    super({
      transform: (item, controller) => {
        for (const out of core.push(item)) controller.enqueue(out);
        if (!core.pending) clear();
        else if (timer === undefined && maxDelayMs !== Infinity) {
          timer = setTimeout(() => expire(controller), maxDelayMs);
        }
      },
      flush: (controller) => {
        clear();
        for (const item of core.flush()) controller.enqueue(item);
      },
    } as Transformer<T, T>);
  }
}
