/**
 * Stream-citizen checks shared by the stage tests: what a stage delivers to a slow reader when
 * the stage before it fails after some chunks.
 */
import { settle, streamOf } from '../helpers.ts';

/** Read with a macrotask after every value (a reader slower than the pipe): the values, and the error. */
async function readSlowly<T>(stream: ReadableStream<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { values, error: undefined };
      values.push(value);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } catch (error) {
    return { values, error };
  }
}

/**
 * Pipe `chunks` through the stage `make()` builds twice: from a source that closes after them
 * (`expected`: what it delivered before it ended or failed), and from a source that errors after them, read slowly (`values`, `error`). As any
 * `TransformStream`, a stage aborted by its pipe drops what its reader had not taken yet: `values`
 * is a prefix of `expected`, then the reader gets `upstream` itself.
 */
export async function afterUpstreamError<I, O>(
  chunks: readonly I[],
  make: () => TransformStream<I, O>,
): Promise<{ expected: O[]; values: O[]; error: unknown; upstream: Error }> {
  const upstream = new Error('connection reset');
  let next = 0;
  const failing = new ReadableStream<I>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++] as I);
      else controller.error(upstream);
    },
  });
  const { values, error } = await readSlowly(failing.pipeThrough(make()));
  return { expected: (await settle(streamOf(chunks).pipeThrough(make()))).values, values, error, upstream };
}
