/**
 * The shell every stage shares: a standard `TransformStream` over a chain of synchronous push
 * cores. A stage is one core; {@link chain} makes one stage of several, so that a chain costs one
 * stream hop per input chunk instead of one per stage and per event. Nothing here touches a
 * platform object: `pipeThrough` is the runtime's own. Internal.
 *
 * @module
 */
import { joinAdjacentText } from './batch.ts';
import { failAfterDrain } from './fail-after-drain.ts';
import { clear, type StageCore } from '../core.ts';

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

  /** Feed all of `items` to core `level` (which has `pushAll`) and what it produces onwards. */
  #feedAll(level: number, core: StageCore<unknown, unknown>, items: readonly unknown[], out: unknown[]): Pending {
    const pushAll = core.pushAll as (inputs: readonly unknown[], out: unknown[]) => unknown[];
    if (level === this.#cores.length - 1) {
      pushAll.call(core, items, out);
      return undefined;
    }
    const buffer = (this.#scratch[level] ??= []);
    return this.#after(level, () => pushAll.call(core, items, buffer), buffer, out);
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
    const next = this.#cores[level + 1] as StageCore<unknown, unknown>;
    if (from === 0 && buffer.length > 1 && next.pushAll !== undefined) {
      // A core that takes a batch at once (adjacent argument text parsed as one piece).
      try {
        return this.#feedAll(level + 1, next, buffer, out);
      } finally {
        clear(buffer);
      }
    }
    try {
      for (let i = from; i < buffer.length; i++) {
        const pending = this.#feed(level + 1, buffer[i], out);
        if (pending !== undefined) {
          return pending.then(
            () => this.#forward(level, buffer, out, i + 1),
            (error: unknown) => {
              clear(buffer);
              throw error;
            },
          );
        }
      }
    } catch (error) {
      clear(buffer);
      throw error;
    }
    clear(buffer);
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

/** What {@link chain} needs of a stage: its cores, and whether anything ran through them. */
interface StageState {
  /** The cores the stage runs, in order; {@link extendStage} appends to it before any use. */
  readonly cores: StageCore<unknown, unknown>[];
  used: boolean;
}

/**
 * The transformer of a {@link Stage}: runs each chunk (and the end) through the chain, then
 * enqueues what it produced — all of it, also when a core failed — then fails.
 */
class StageTransformer<I, O> {
  readonly #state: StageState;
  readonly #runner: ChainRunner;

  constructor(state: StageState) {
    this.#state = state;
    this.#runner = new ChainRunner(state.cores);
  }

  transform(chunk: I, controller: TransformStreamDefaultController<O>): Promise<void> | undefined {
    this.#state.used = true;
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
    this.#state.used = true;
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
    joinAdjacentText(out);
    for (let i = 0; i < out.length; i++) controller.enqueue(out[i] as O);
    return failure === undefined ? undefined : failAfterDrain(controller as TransformStreamDefaultController<never>, failure.error);
  }
}

/** Each stage's state, out of users' sight (a `WeakMap`: nothing here outlives a stage). */
const states = new WeakMap<object, StageState>();

/**
 * A standard `TransformStream` over a chain of push cores: each input chunk runs through every
 * core in one `transform` call, and only the last core's outputs are enqueued.
 *
 * **One chunk per place and input chunk.** Before they are enqueued, adjacent pieces of text
 * that one input chunk made for the same place (a string at one path of one call, one field, one
 * path update) are joined into one chunk: they were known at the same instant. What a provider
 * sent (`part` events, raw argument deltas) stays cut as it came.
 */
export class Stage<I, O> extends TransformStream<I, O> {
  /** @param cores - one core, or (from {@link chain}) the cores of several stages in order. */
  constructor(cores: StageCore<I, O> | readonly StageCore<unknown, unknown>[]) {
    const state: StageState = { cores: Array.isArray(cores) ? [...cores] : [cores as StageCore<unknown, unknown>], used: false };
    const transformer = new StageTransformer<I, O>(state);
    super({
      transform: transformer.transform.bind(transformer),
      flush: transformer.flush.bind(transformer),
    });
    states.set(this, state);
  }
}

/**
 * Make `stage` (checked unused, not locked) run `cores` after its own, and return it: {@link chain}
 * extends its first stage instead of making one more `TransformStream`, whose construction costs
 * more than a small call's parsing. Internal.
 */
export function extendStage<I, O>(stage: Stage<I, unknown>, cores: readonly StageCore<unknown, unknown>[]): Stage<I, O> {
  const state = states.get(stage) as StageState;
  for (let i = 0; i < cores.length; i++) state.cores.push(cores[i] as StageCore<unknown, unknown>);
  return stage as unknown as Stage<I, O>;
}

/**
 * The cores of `stage`, for a composition. With `check`, only checks that it can be composed;
 * otherwise locks both its sides, so that it cannot be used on its own any more. Internal: used
 * by `chain` and `fromResponse`.
 * @throws {TypeError} for a stream that is not an argstream stage, or a stage already in use.
 */
export function takeCores(stage: unknown, caller: string, position: number, check: boolean): readonly StageCore<unknown, unknown>[] {
  const state = typeof stage === 'object' && stage !== null ? states.get(stage) : undefined;
  const which = `${caller}: stage ${position + 1} (${describe(stage)})`;
  if (state === undefined) {
    throw new TypeError(`${which} is not an argstream stage; compose only argstream stages, and pipe any other stream with pipeThrough`);
  }
  const pair = stage as Stage<unknown, unknown>;
  if (state.used || pair.writable.locked || pair.readable.locked) {
    throw new TypeError(`${which} is already in use (piped, locked, written to or composed before); pass a new stage`);
  }
  if (!check) {
    pair.writable.getWriter();
    pair.readable.getReader();
    state.used = true;
  }
  return state.cores;
}

function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return value === null ? 'null' : typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'an object';
}

/**
 * What a stream that ends a chain gives a source that runs it in its own read (`fromResponse`):
 * the events one input chunk made in, one output chunk out. Internal: the relay encoders are the
 * streams that end chains (they register with {@link registerChainEnd}).
 */
export interface StageTail {
  /**
   * The output of `events` (what one input chunk made) as one chunk, `undefined` when they make none.
   * @throws what the format refuses (a `RelayError` `invalid-event`): call `fail` then, with no events.
   */
  chunk(events: readonly unknown[]): Uint8Array | undefined;
  /** The output of the last `events`, then the record that says the stream is complete, as one chunk. */
  end(events: readonly unknown[]): Uint8Array | undefined;
  /** The output of the last `events`, then the record that carries `reason` (as a page may see it), as one chunk. */
  fail(events: readonly unknown[], reason: unknown): Uint8Array;
  /** How long an idle output waits before a keep-alive (`undefined`: never). */
  readonly keepAliveMs: number | undefined;
  /** A keep-alive record. */
  keepAlive(): Uint8Array;
}

/** A stream that can end a chain (a relay encoder), as `chain` and `fromResponse` see it. Internal. */
export interface ChainEnd {
  /** Throws a `TypeError` when the stream is in use (piped, locked, written to, or taken). */
  check(caller: string, position: number): void;
  /** Run `cores` before the stream's own work, on what its writable side is given (`chain`). */
  prepend(cores: readonly StageCore<unknown, unknown>[]): void;
  /**
   * Lock both sides of the stream and give its work to a source that runs it itself
   * (`fromResponse`): the cores `chain` put before it, then its tail.
   */
  take(): { readonly cores: readonly StageCore<unknown, unknown>[]; readonly tail: StageTail };
}

const chainEnds = new WeakMap<object, ChainEnd>();

/** Make `stream` one that can end a chain. Internal: the relay encoders. */
export function registerChainEnd(stream: object, end: ChainEnd): void {
  chainEnds.set(stream, end);
}

/** The chain end `value` is, if it is one. Internal. */
export function chainEndOf(value: unknown): ChainEnd | undefined {
  return typeof value === 'object' && value !== null ? chainEnds.get(value) : undefined;
}

/** The `TypeError` of a chain end that is in use. Internal. */
export function chainEndInUse(caller: string, position: number, stream: unknown): TypeError {
  return new TypeError(`${caller}: stage ${position + 1} (${describe(stream)}) is already in use (piped, locked, written to or composed before); pass a new one`);
}
