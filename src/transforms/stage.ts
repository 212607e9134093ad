/**
 * The shell every fusable stage shares: a `TransformStream` over synchronous push cores, which
 * fuses with the argstream stage piped after it, so that a chain of stages costs one stream hop
 * per input chunk instead of one per stage and per event. Internal.
 *
 * @module
 */
import { joinAdjacentText } from './batch.ts';
import { drained, failAfterDrain } from './fail-after-drain.ts';

/**
 * The shape of every stage's synchronous core: `push(input) → outputs` and `end() → outputs`, no
 * stream and no I/O. Outputs are appended to `out` when it is given (and returned), so a caller
 * that chains cores allocates nothing per call. When `push` or `end` throws, `out` holds what was
 * produced before the error.
 */
export interface PushCore<I, O> {
  push(input: I, out?: O[]): O[];
  end(out?: O[]): O[];
}

/** Everything a fusion needs from a stage; keyed by the stage, out of users' sight. */
interface Fusion {
  /** The cores of this stage and of the stages fused after it, in order. */
  readonly cores: PushCore<unknown, unknown>[];
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
  constructor(core: PushCore<I, O>) {
    const fusion: Fusion = { cores: [core as PushCore<unknown, unknown>], started: false, absorbed: false };
    const cores = fusion.cores;
    /** One scratch array per core after the first, reused: a level's array is empty between uses. */
    const scratch: unknown[][] = [];

    /** Feed `item` to core `level` and what it produces to the cores after it; `out` gets the last core's outputs. */
    const feed = (level: number, item: unknown, out: unknown[]): void => {
      const core = cores[level] as PushCore<unknown, unknown>;
      if (level === cores.length - 1) {
        core.push(item, out);
        return;
      }
      const buffer = (scratch[level] ??= []);
      let failure: { error: unknown } | undefined;
      try {
        core.push(item, buffer);
      } catch (error) {
        failure = { error };
      }
      forward(level, buffer, out);
      if (failure !== undefined) throw failure.error;
    };

    /** Pass what core `level` produced to the next core, then empty the buffer. */
    const forward = (level: number, buffer: unknown[], out: unknown[]): void => {
      try {
        for (let i = 0; i < buffer.length; i++) feed(level + 1, buffer[i], out);
      } finally {
        buffer.length = 0;
      }
    };

    const enqueue = (controller: TransformStreamDefaultController<O>, out: unknown[], failure: { error: unknown } | undefined) => {
      if (out.length > 0) fusion.started = true;
      joinAdjacentText(out);
      for (let i = 0; i < out.length; i++) controller.enqueue(out[i] as O);
      return failure === undefined ? undefined : failAfterDrain(controller as TransformStreamDefaultController<never>, failure.error);
    };

    let readableController: TransformStreamDefaultController<O> | undefined;
    const transformer: Transformer<I, O> & { cancel(reason: unknown): Promise<void> | undefined } = {
      start(controller) {
        readableController = controller;
      },
      transform(chunk, controller) {
        const out: unknown[] = [];
        let failure: { error: unknown } | undefined;
        try {
          if (cores.length === 1) (cores[0] as PushCore<unknown, unknown>).push(chunk, out);
          else feed(0, chunk, out);
        } catch (error) {
          failure = { error };
        }
        return enqueue(controller, out, failure);
      },
      flush(controller) {
        // Ended: a stage fused from now on would never be ended itself.
        fusion.started = true;
        const out: unknown[] = [];
        let failure: { error: unknown } | undefined;
        try {
          // Each core ends after everything before it has ended and been passed on.
          for (let level = 0; level < cores.length; level++) {
            const core = cores[level] as PushCore<unknown, unknown>;
            if (level === cores.length - 1) {
              core.end(out);
              break;
            }
            const buffer = (scratch[level] ??= []);
            let error: { error: unknown } | undefined;
            try {
              core.end(buffer);
            } catch (caught) {
              error = { error: caught };
            }
            forward(level, buffer, out);
            if (error !== undefined) throw error.error;
          }
        } catch (error) {
          failure = { error };
        }
        return enqueue(controller, out, failure);
      },
      // The readable side keeps its queue when the writable side is aborted (the stage before
      // failed): the abort waits until the reader has taken what was produced. See
      // fail-after-drain.ts.
      cancel: () =>
        readableController === undefined || (readableController.desiredSize ?? 0) >= 0
          ? undefined
          : drained(readableController as TransformStreamDefaultController<never>),
    };
    super(transformer);
    fusions.set(this, fusion);
    const readable = this.readable;
    readables.set(readable, fusion);
    Object.defineProperty(readable, 'pipeThrough', {
      configurable: true,
      writable: true,
      value: function pipeThrough<T>(
        this: ReadableStream<O>,
        transform: ReadableWritablePair<T, O>,
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
        cores.push(next.cores[0] as PushCore<unknown, unknown>);
        next.absorbed = true;
        // As a pipe would: the absorbed stage's writable side is locked, and its output is ours.
        (transform as Stage<unknown, unknown>).writable.getWriter();
        Object.defineProperty(transform, 'readable', { configurable: true, get: () => readable });
        return readable as unknown as ReadableStream<T>;
      },
    });
  }
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
