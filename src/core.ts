/**
 * The shape every synchronous core of the pipeline shares. Internal to `src/`; `PushCore` is
 * exported from the package root.
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
}
