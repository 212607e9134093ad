/**
 * The shell every fusable stage shares: a `TransformStream` over synchronous push cores, which
 * fuses with the argstream stage piped after it, so that a chain of stages costs one stream hop
 * per input chunk instead of one per stage and per event. Internal.
 *
 * @module
 */
import { joinAdjacentText } from './batch.ts';
import { drainingTransformer, failAfterDrain } from './fail-after-drain.ts';
import { retainHiddenClass } from '../retain.ts';
import type { PushCore, StageCore } from '../core.ts';

export type { PushCore, StageCore } from '../core.ts';

/** Everything a fusion needs from a stage; keyed by the stage, out of users' sight. Internal. */
export interface Fusion {
  /** The cores of this stage and of the stages fused after it, in order. */
  readonly cores: StageCore<unknown, unknown>[];
  /** Set once the readable side has enqueued a chunk or the input ended: from then on nothing can be fused. */
  started: boolean;
  /** This stage was fused into another one: its own streams are unused. */
  absorbed: boolean;
}

const fusions = new WeakMap<object, Fusion>();
/** The fusion behind each stage's readable side, to know whether a readable can take a stage. */
const readables = new WeakMap<ReadableStream<unknown>, Fusion>();

/**
 * Whether `readable.pipeThrough(stage)` would fuse `stage` into the stage that made `readable`
 * (no extra hop): it is a stage's readable side, unread and unlocked. Internal.
 */
export function canFuse(readable: ReadableStream<unknown>): boolean {
  const fusion = readables.get(readable);
  return fusion !== undefined && !fusion.started && !fusion.absorbed && !readable.locked;
}

const nativePipeThrough = ReadableStream.prototype.pipeThrough;

/** Work a stage still waits for: only a core that answered with a promise makes any. */
type Pending = Promise<void> | undefined;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** What the last core returned: its outputs (nothing to wait for), or a promise of them. */
function settled(result: unknown, out: unknown[]): Pending {
  return result === out || !isThenable(result) ? undefined : Promise.resolve(result).then(() => undefined);
}

/**
 * The engine of a fused chain: `push` feeds an input to the first core and what each core produces
 * to the next; `end` ends the cores in order, each after everything before it was passed on. The
 * list of cores may grow while it runs (a stage fusing). Synchronous unless a core answers with a
 * promise; a core that throws still passes on what it produced before the error. Internal: used by
 * `Stage` and by sources that run a decoder themselves (`fromResponse`).
 *
 * A class, not closures made per chain: V8's optimised code for a method outlives any one stream,
 * while a closure's dies with the last closure of its kind at a full GC (see retain.ts).
 */
export class ChainRunner {
  readonly #cores: readonly StageCore<unknown, unknown>[];
  /** One scratch array per core after the first, reused: a level's array is empty between uses. */
  readonly #scratch: unknown[][] = [];

  constructor(cores: readonly StageCore<unknown, unknown>[]) {
    this.#cores = cores;
  }

  push(input: unknown, out: unknown[]): Promise<void> | undefined {
    return this.#feed(0, input, out);
  }

  end(out: unknown[]): Promise<void> | undefined {
    return this.#endFrom(0, out);
  }

  /**
   * Feed `item` to core `level` and what it produces to the cores after it; `out` gets the last
   * core's outputs. Synchronous unless a core answers with a promise (an async validator): then
   * the rest waits for it, and a promise is returned.
   */
  #feed(level: number, item: unknown, out: unknown[]): Pending {
    const cores = this.#cores;
    const core = cores[level] as StageCore<unknown, unknown>;
    if (level === cores.length - 1) return settled(core.push(item, out), out);
    const buffer = (this.#scratch[level] ??= []);
    // Written out, not through `#after`: this runs for every event at every level.
    let result: unknown;
    try {
      result = core.push(item, buffer);
    } catch (error) {
      return this.#failed(level, buffer, out, error);
    }
    return result === buffer ? this.#forward(level, buffer, out, 0) : this.#later(level, result, buffer, out);
  }

  /** Run one step of core `level` into `buffer`, then pass what it made on, even if it threw. */
  #after(level: number, step: () => unknown, buffer: unknown[], out: unknown[]): Pending {
    let result: unknown;
    try {
      result = step();
    } catch (error) {
      return this.#failed(level, buffer, out, error);
    }
    return result === buffer ? this.#forward(level, buffer, out, 0) : this.#later(level, result, buffer, out);
  }

  /** Core `level` threw: what it made before the error still goes on, then the error. */
  #failed(level: number, buffer: unknown[], out: unknown[], error: unknown): Pending {
    const rest = this.#forward(level, buffer, out, 0);
    if (rest === undefined) throw error;
    return rest.then(() => Promise.reject(error));
  }

  /** Core `level` answered with a promise (or something else than its buffer). */
  #later(level: number, result: unknown, buffer: unknown[], out: unknown[]): Pending {
    if (!isThenable(result)) return this.#forward(level, buffer, out, 0);
    return Promise.resolve(result).then(
      () => this.#forward(level, buffer, out, 0),
      (error: unknown) => (this.#forward(level, buffer, out, 0) ?? Promise.resolve()).then(() => Promise.reject(error)),
    );
  }

  /** Pass what core `level` produced (from index `from`) to the next core, then empty the buffer. */
  #forward(level: number, buffer: unknown[], out: unknown[], from: number): Pending {
    try {
      for (let i = from; i < buffer.length; i++) {
        const pending = this.#feed(level + 1, buffer[i], out);
        if (pending !== undefined) {
          return pending.then(
            () => this.#forward(level, buffer, out, i + 1),
            (error: unknown) => {
              buffer.length = 0;
              throw error;
            },
          );
        }
      }
    } catch (error) {
      buffer.length = 0;
      throw error;
    }
    buffer.length = 0;
    return undefined;
  }

  /** End the cores from `level` on, each after everything before it has ended and been passed on. */
  #endFrom(level: number, out: unknown[]): Pending {
    const cores = this.#cores;
    for (; level < cores.length; level++) {
      const core = cores[level] as StageCore<unknown, unknown>;
      if (level === cores.length - 1) return settled(core.end(out), out);
      const buffer = (this.#scratch[level] ??= []);
      const pending = this.#after(level, () => core.end(buffer), buffer, out);
      if (pending !== undefined) {
        const next = level + 1;
        return pending.then(() => this.#endFrom(next, out));
      }
    }
    return undefined;
  }
}

/**
 * The transformer of a {@link Stage}: runs each chunk (and the end) through the chain, then
 * enqueues what it produced — all of it, also when a core failed — then fails. Methods, for the
 * same reason as {@link ChainRunner}.
 */
class StageTransformer<I, O> {
  readonly #fusion: Fusion;
  readonly #runner: ChainRunner;

  constructor(fusion: Fusion, runner: ChainRunner) {
    this.#fusion = fusion;
    this.#runner = runner;
  }

  transform(chunk: I, controller: TransformStreamDefaultController<O>): Promise<void> | undefined {
    const out: unknown[] = [];
    let pending: Pending;
    try {
      pending = this.#runner.push(chunk, out);
    } catch (error) {
      return this.#enqueue(controller, out, { error });
    }
    return this.#settle(controller, out, pending);
  }

  flush(controller: TransformStreamDefaultController<O>): Promise<void> | undefined {
    // Ended: a stage fused from now on would never be ended itself.
    this.#fusion.started = true;
    const out: unknown[] = [];
    let pending: Pending;
    try {
      pending = this.#runner.end(out);
    } catch (error) {
      return this.#enqueue(controller, out, { error });
    }
    return this.#settle(controller, out, pending);
  }

  #settle(controller: TransformStreamDefaultController<O>, out: unknown[], pending: Pending): Promise<void> | undefined {
    if (pending === undefined) return this.#enqueue(controller, out, undefined);
    return pending.then(
      () => this.#enqueue(controller, out, undefined),
      (error: unknown) => this.#enqueue(controller, out, { error }),
    );
  }

  #enqueue(controller: TransformStreamDefaultController<O>, out: unknown[], failure: { error: unknown } | undefined): Promise<void> | undefined {
    if (out.length > 0) this.#fusion.started = true;
    joinAdjacentText(out);
    for (let i = 0; i < out.length; i++) controller.enqueue(out[i] as O);
    return failure === undefined ? undefined : failAfterDrain(controller as TransformStreamDefaultController<never>, failure.error);
  }
}

/** A fusion that takes nothing, for the idle instances kept for their hidden classes. Internal. */
export const idleFusion: Fusion = { cores: [], started: true, absorbed: true };

// An idle transformer and its chain runner, so that their hidden classes outlive every stream
// (see retain.ts).
retainHiddenClass(new StageTransformer(idleFusion, new ChainRunner([])));

/**
 * A `TransformStream` over a chain of push cores.
 *
 * **Fusion.** `stage.readable.pipeThrough(next)`, where `next` is another `Stage` that nothing
 * has touched yet and no pipe options are given, does not add a stream hop: `next`'s core is
 * appended to this stage's chain, and the same readable is returned (it is also what
 * `next.readable` returns from then on; `next.writable` is locked, as a pipe would lock it). Each
 * input chunk then runs through every core in one `transform` call, and only the last core's
 * outputs are enqueued. Backpressure, cancellation and errors are those of one stage. Anything
 * else — pipe options, a stage already read from, a foreign `TransformStream` — is an ordinary
 * pipe.
 *
 * **One chunk per place and input chunk.** Before they are enqueued, the outputs of one input
 * chunk go through {@link joinAdjacentText}: adjacent pieces of text for the same place are one
 * chunk.
 */
export class Stage<I, O> extends TransformStream<I, O> {
  constructor(core: StageCore<I, O>) {
    const fusion: Fusion = { cores: [core as StageCore<unknown, unknown>], started: false, absorbed: false };
    const transformer = new StageTransformer<I, O>(fusion, new ChainRunner(fusion.cores));
    super(
      drainingTransformer<I, O>({
        transform: transformer.transform.bind(transformer),
        flush: transformer.flush.bind(transformer),
      }),
    );
    fusions.set(this, fusion);
    installFusion(this.readable as ReadableStream<unknown>, fusion);
  }
}

/**
 * Make `readable` take the argstream stages piped after it into `fusion`'s chain of cores, as a
 * stage's readable side does: `readable.pipeThrough(stage)` appends the stage's core to
 * `fusion.cores` and returns `readable` when the fusion is possible, and pipes as usual
 * otherwise. Whoever runs the cores sets `fusion.started` once it produced output. Internal: used
 * by `Stage` and by sources that run a provider decoder themselves (`fromResponse`).
 */
export function installFusion(readable: ReadableStream<unknown>, fusion: Fusion): void {
  const cores = fusion.cores;
  readables.set(readable, fusion);
  Object.defineProperty(readable, 'pipeThrough', {
    configurable: true,
    writable: true,
    value: function pipeThrough<T>(
      this: ReadableStream<unknown>,
      transform: ReadableWritablePair<T, unknown>,
      options?: StreamPipeOptions,
    ): ReadableStream<T> {
      const next = transform instanceof Stage ? fusions.get(transform) : undefined;
      if (
        next === undefined ||
        options !== undefined ||
        this !== readable ||
        fusion.started ||
        fusion.absorbed ||
        readable.locked ||
        next.absorbed ||
        next.started ||
        next.cores.length !== 1 ||
        (transform as Stage<unknown, unknown>).writable.locked ||
        (transform as Stage<unknown, unknown>).readable.locked
      ) {
        return nativePipeThrough.call(this, transform, options) as ReadableStream<T>;
      }
      cores.push(next.cores[0] as StageCore<unknown, unknown>);
      next.absorbed = true;
      // As a pipe would: the absorbed stage's writable side is locked, and its output is ours.
      (transform as Stage<unknown, unknown>).writable.getWriter();
      Object.defineProperty(transform, 'readable', { configurable: true, get: () => readable });
      return readable as unknown as ReadableStream<T>;
    },
  });
}

/**
 * Two cores as one: what `first` produces goes to `second`. Used by the views that parse raw
 * argument text themselves when no progress stage came before them.
 */
export class ChainedCore<I, M, O> implements PushCore<I, O> {
  readonly #first: PushCore<I, M>;
  readonly #second: PushCore<M, O>;
  readonly #buffer: M[] = [];

  constructor(first: PushCore<I, M>, second: PushCore<M, O>) {
    this.#first = first;
    this.#second = second;
  }

  push(input: I, out: O[] = []): O[] {
    const buffer = this.#buffer;
    let failure: { error: unknown } | undefined;
    try {
      this.#first.push(input, buffer);
    } catch (error) {
      failure = { error };
    }
    this.#forward(buffer, out);
    if (failure !== undefined) throw failure.error;
    return out;
  }

  end(out: O[] = []): O[] {
    const buffer = this.#buffer;
    let failure: { error: unknown } | undefined;
    try {
      this.#first.end(buffer);
    } catch (error) {
      failure = { error };
    }
    this.#forward(buffer, out);
    if (failure !== undefined) throw failure.error;
    this.#second.end(out);
    return out;
  }

  #forward(buffer: M[], out: O[]): void {
    try {
      for (let i = 0; i < buffer.length; i++) this.#second.push(buffer[i] as M, out);
    } finally {
      buffer.length = 0;
    }
  }
}
