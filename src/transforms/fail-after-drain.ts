/**
 * Deliver what a transform stream already enqueued before it errors: erroring a readable stream
 * discards its queue, which would lose the events that came before the error. Internal to the
 * stream shells.
 *
 * @module
 */

/**
 * How long a drain waits for a reader that takes nothing. A reader that is reading drains the
 * queue within milliseconds; one that took nothing for this long has most likely gone away, and
 * neither a server nor the CPU should be kept busy for it: the drain stops, and the stream errors
 * with what it still holds (the error is reported, the chunks never taken are dropped). Each chunk
 * the reader takes starts the wait again, so a slow reader still gets everything. The timers stay
 * referenced: an unref'd timer would let Node or Deno exit in the middle of a drain (a script
 * awaiting `collectTurn` ends silently, its error never reported); this bound is what ends them.
 */
const IDLE_MS = 10_000;

/**
 * Resolve once the readable side's queue is empty (its `desiredSize` is no longer negative), or
 * once the reader took nothing for {@link IDLE_MS}. Polls with a delay growing to 50 ms: a
 * transform stream tells its transformer nothing when its reader reads.
 */
export async function drained(controller: TransformStreamDefaultController<never>): Promise<void> {
  let delay = 1;
  let idle = 0;
  let size = controller.desiredSize ?? 0;
  while (size < 0 && idle < IDLE_MS) {
    await new Promise<void>((resolve) => setTimeout(resolve, delay));
    const now = controller.desiredSize ?? 0;
    idle = now > size ? 0 : idle + delay;
    size = now;
    delay = Math.min(delay * 2, 50);
  }
}

/**
 * Error a transform stream only once its reader has taken every chunk already enqueued. Returned
 * from `transform` or `flush`, the rejected promise errors both ends of the stream.
 */
export async function failAfterDrain(controller: TransformStreamDefaultController<never>, error: unknown): Promise<never> {
  await drained(controller);
  throw error;
}
