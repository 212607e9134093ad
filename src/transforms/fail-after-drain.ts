/**
 * Error a transform stream only once its reader has taken every chunk already enqueued: erroring
 * a readable stream discards its queue, which would lose what came before the error. Returned
 * from `transform` or `flush`, the rejected promise errors both ends of the stream.
 *
 * Internal to the stream shells.
 */
export async function failAfterDrain(controller: TransformStreamDefaultController<never>, error: unknown): Promise<never> {
  let delay = 1;
  while ((controller.desiredSize ?? 0) < 0) {
    await new Promise<void>((resolve) => {
      const timer: unknown = setTimeout(resolve, delay);
      // Do not keep a server process alive for a reader that went away (Node and Deno timers).
      (timer as { unref?: () => void } | null)?.unref?.();
    });
    delay = Math.min(delay * 2, 50);
  }
  throw error;
}

/**
 * Run one step of a synchronous core, then enqueue what it produced — all of it, even when the
 * step threw, before the stream errors.
 */
export function runStep<T>(
  controller: TransformStreamDefaultController<T>,
  step: (out: T[]) => void,
): Promise<never> | undefined {
  const out: T[] = [];
  let failure: { error: unknown } | undefined;
  try {
    step(out);
  } catch (error) {
    failure = { error };
  }
  for (const chunk of out) controller.enqueue(chunk);
  return failure === undefined ? undefined : failAfterDrain(controller as TransformStreamDefaultController<never>, failure.error);
}
