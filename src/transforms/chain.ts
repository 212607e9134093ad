/**
 * Several stages as one standard `TransformStream`: one stream hop per input chunk for the whole
 * chain.
 *
 * @module
 */
import type { StageCore } from '../core.ts';
import { Stage, chainEndOf, extendStage, takeCores } from './stage.ts';

/**
 * An argstream stage: any of the library's `…Stream` classes built on push cores
 * (`ProviderEventStream`, `ToolCallProgressStream`, `ConversationEventStream`, `FieldEventStream`,
 * `PathUpdateStream`, `JsonTextStream`, `ToolCallDeltaStream`, `ArgumentValidationStream`,
 * `TaggedToolCallStream`, `JsonFragmentStream`, `FragmentValueStream`, `JsonValueStream`), or
 * what {@link chain} returns. `CoalesceStream` (a timer) and the relay encoders and decoders are
 * not: pipe them with `pipeThrough`.
 */
export type ChainableStage<I, O> = Stage<I, O>;

/**
 * A relay encoder as the last stage of a {@link chain} or of `fromResponse`: `EventStreamEncoder`,
 * `NdjsonEncoder`, `UIMessageStreamEncoder`. Events of type `T` in, UTF-8 bytes out.
 */
export interface ChainEncoder<T> {
  readonly writable: WritableStream<T>;
  readonly readable: ReadableStream<Uint8Array>;
}

/**
 * Compose argstream stages into one standard `TransformStream` that runs their cores one after
 * the other inside a single `transform` call: what each stage produces goes straight to the next,
 * and only the last stage's output is enqueued. The result is what
 * `a.readable.pipeThrough(b).pipeThrough(c)` gives — the same turn, calls, texts and values — except
 * that the pieces of text one input chunk made for one place (a string of one call, one field)
 * arrive joined in one event, where separate hops may cut them finer. The cost is one stream hop
 * per input chunk instead of one per stage and per event (each hop costs microseconds per chunk in
 * every runtime, far more than most events' work).
 *
 * The result is the first stage itself, extended with the cores of the others: constructing one
 * more `TransformStream` would cost more than parsing a small call (tens of microseconds in Node
 * 20). It is an ordinary `TransformStream` in every observable way (locks, `pipeThrough` options,
 * cancellation, errors), and it is itself a stage, so it can be chained again. The other stages
 * are consumed: their own `writable` and `readable` are locked and never used.
 *
 * **Ending in a relay encoder.** With a relay encoder last (`EventStreamEncoder`, `NdjsonEncoder`,
 * `UIMessageStreamEncoder`), the result is that encoder, running the cores of the stages before it
 * in its own write: `body.pipeThrough(chain(new ProviderEventStream(…), new FieldEventStream(),
 * new EventStreamEncoder()))` gives the bytes for a page with one hop in all, and what one input
 * chunk (a network read) made leaves as one `Uint8Array`, at once, without waiting for a burst to
 * end. It keeps the encoder's contract: an upstream error becomes the last record and the stream
 * closes normally; cancelling the readable side cancels the source. An error of a stage is
 * written the same way, after what the stage made before it.
 *
 * Backpressure is the result's own; a stage whose core answers later (`ArgumentValidationStream`
 * with an asynchronous validator) holds back the chunks after it, as it would alone. An error in
 * any stage ends the result with that error once the events before it were read.
 *
 * @throws {TypeError} with no stage, for a stream that is not an argstream stage (a
 * `TextDecoderStream`, `CoalesceStream`: pipe those with `pipeThrough`), for a relay encoder
 * anywhere but last, or for a stage that is already in use (piped, locked, written to, or passed
 * to `chain` after its first place before).
 *
 * @example
 * ```ts
 * const events = response.body!.pipeThrough(
 *   chain(new ProviderEventStream({ provider: 'anthropic' }), new ConversationEventStream({ progress: true })),
 * );
 * for await (const event of events) if (event.type === 'tool-call') await run(event.toolName, event.arguments);
 * ```
 */
export function chain<A, B>(a: ChainableStage<A, B>, encoder: ChainEncoder<NoInfer<B>>): ChainEncoder<A>;
export function chain<A, B, C>(a: ChainableStage<A, B>, b: ChainableStage<NoInfer<B>, C>, encoder: ChainEncoder<NoInfer<C>>): ChainEncoder<A>;
export function chain<A, B, C, D>(
  a: ChainableStage<A, B>,
  b: ChainableStage<NoInfer<B>, C>,
  c: ChainableStage<NoInfer<C>, D>,
  encoder: ChainEncoder<NoInfer<D>>,
): ChainEncoder<A>;
export function chain<A, B, C, D, E>(
  a: ChainableStage<A, B>,
  b: ChainableStage<NoInfer<B>, C>,
  c: ChainableStage<NoInfer<C>, D>,
  d: ChainableStage<NoInfer<D>, E>,
  encoder: ChainEncoder<NoInfer<E>>,
): ChainEncoder<A>;
export function chain<A, B>(a: ChainableStage<A, B>): Stage<A, B>;
export function chain<A, B, C>(a: ChainableStage<A, B>, b: ChainableStage<NoInfer<B>, C>): Stage<A, C>;
export function chain<A, B, C, D>(a: ChainableStage<A, B>, b: ChainableStage<NoInfer<B>, C>, c: ChainableStage<NoInfer<C>, D>): Stage<A, D>;
export function chain<A, B, C, D, E>(
  a: ChainableStage<A, B>,
  b: ChainableStage<NoInfer<B>, C>,
  c: ChainableStage<NoInfer<C>, D>,
  d: ChainableStage<NoInfer<D>, E>,
): Stage<A, E>;
export function chain<A, B, C, D, E, F>(
  a: ChainableStage<A, B>,
  b: ChainableStage<NoInfer<B>, C>,
  c: ChainableStage<NoInfer<C>, D>,
  d: ChainableStage<NoInfer<D>, E>,
  e: ChainableStage<NoInfer<E>, F>,
): Stage<A, F>;
export function chain<A, B, C, D, E, F, G>(
  a: ChainableStage<A, B>,
  b: ChainableStage<NoInfer<B>, C>,
  c: ChainableStage<NoInfer<C>, D>,
  d: ChainableStage<NoInfer<D>, E>,
  e: ChainableStage<NoInfer<E>, F>,
  f: ChainableStage<NoInfer<F>, G>,
): Stage<A, G>;
export function chain(...stages: ChainableStage<unknown, unknown>[]): Stage<unknown, unknown>;
export function chain(...stages: ChainableStage<unknown, unknown>[]): Stage<unknown, unknown> | ChainEncoder<unknown> {
  if (stages.length === 0) throw new TypeError('chain: pass at least one stage');
  const last = stages[stages.length - 1];
  const end = chainEndOf(last);
  if (end !== undefined) {
    // The encoder runs the stages' cores in its own write.
    end.check('chain', stages.length - 1);
    end.prepend(composeCores(stages.slice(0, -1), 'chain'));
    return last as unknown as ChainEncoder<unknown>;
  }
  const first = stages[0] as Stage<unknown, unknown>;
  takeCores(first, 'chain', 0, true);
  return extendStage(first, composeCores(stages.slice(1), 'chain', 1, first));
}

/**
 * The cores of `stages`, in order, each stage locked. Every stage is checked before any is
 * locked, so a call that throws leaves them all as they were. Internal: `chain` and
 * `fromResponse`.
 */
export function composeCores(stages: readonly unknown[], caller: string, first = 0, before?: unknown): StageCore<unknown, unknown>[] {
  const cores: StageCore<unknown, unknown>[] = [];
  for (let i = 0; i < stages.length; i++) {
    if (chainEndOf(stages[i]) !== undefined) throw new TypeError(`${caller}: stage ${i + first + 1} is a relay encoder, which can only be the last stage`);
    const again = stages[i] === before ? -1 : stages.indexOf(stages[i]);
    if (again !== i) throw new TypeError(`${caller}: stage ${i + first + 1} is stage ${again + first + 1} again; pass a new stage`);
    cores.push(...takeCores(stages[i], caller, i + first, true));
  }
  for (let i = 0; i < stages.length; i++) takeCores(stages[i], caller, i + first, false);
  return cores;
}
