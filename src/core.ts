/**
 * The shape every synchronous core of the pipeline shares, and the one way to join two cores.
 * Internal to `src/`; `PushCore` is exported from the package root.
 *
 * @module
 */

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

/**
 * What a stage runs: a push core, or one whose outputs may come later (`ArgumentValidationCore`
 * with an async validator answers with a promise; the stage then waits for it before anything
 * else goes through). Internal.
 */
export interface StageCore<I, O> {
  push(input: I, out?: O[]): O[] | Promise<O[]>;
  end(out?: O[]): O[] | Promise<O[]>;
  /**
   * Push several inputs at once (what one input chunk of the stage made before this core), with
   * the outputs `push` each would give up to how text is cut: a core that has it may parse
   * adjacent pieces of text as one (`TurnBuilder`). Synchronous. Internal.
   */
  pushAll?(inputs: readonly I[], out: O[]): O[];
}

/**
 * Two cores as one: what `first` produces goes to `second`; when `first` throws, what it made
 * before the error still goes to `second`, then the error. Used by the views that parse raw
 * argument text themselves when no progress stage came before them. Internal.
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
    this.#through((buffer) => this.#first.end(buffer), out);
    this.#second.end(out);
    return out;
  }

  /**
   * Push each of `inputs` in order, as `push` each would. A first core that can take several
   * inputs at once (the turn builder, which parses a slot's adjacent argument text as one piece)
   * gets them at once: the outputs then say the same with text cut into fewer, longer pieces.
   */
  pushAll(inputs: readonly I[], out: O[] = []): O[] {
    const first = this.#first as StageCore<I, M>;
    const pushAll = first.pushAll;
    if (pushAll === undefined) {
      for (let i = 0; i < inputs.length; i++) this.push(inputs[i] as I, out);
      return out;
    }
    return this.#through((buffer) => pushAll.call(first, inputs, buffer), out);
  }

  /**
   * Run one step of the first core into the buffer, then pass what it made to the second — also
   * when it threw — and rethrow. (`push` does the same written out: it runs for every event.)
   */
  #through(step: (buffer: M[]) => unknown, out: O[]): O[] {
    const buffer = this.#buffer;
    let failure: { error: unknown } | undefined;
    try {
      step(buffer);
    } catch (error) {
      failure = { error };
    }
    this.#forward(buffer, out);
    if (failure !== undefined) throw failure.error;
    return out;
  }

  #forward(buffer: M[], out: O[]): void {
    try {
      for (let i = 0; i < buffer.length; i++) this.#second.push(buffer[i] as M, out);
    } finally {
      clear(buffer);
    }
  }
}

/**
 * Empties an array that is filled again at once (a core's `out`, a read's events), keeping its
 * storage: `array.length = 0` gives V8's backing store back, so the next `push` allocates a new
 * one — per read, on the relay's hot path. Internal.
 */
export function clear(array: unknown[]): void {
  while (array.length > 0) array.pop();
}
