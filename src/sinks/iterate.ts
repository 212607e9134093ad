/**
 * A `ReadableStream` as an async iterable on every runtime, Safari's included.
 *
 * @module
 */

/** Options of {@link iterate}: those of the standard `ReadableStream.prototype.values()`. */
export interface IterateOptions {
  /**
   * Leave the stream uncancelled when the loop ends early (`break`, `return`, a `throw` in its
   * body); the lock is released either way.
   * @default false
   */
  readonly preventCancel?: boolean;
}

/**
 * The chunks of a stream as an async iterable, for `for await`: the stream's own async iterator
 * (`stream.values(options)`) where the platform has one, else the same behaviour over a reader —
 * WebKit (Safari, every browser on iOS) has no async iteration of `ReadableStream`, so a
 * `for await` over a stream throws a `TypeError` there.
 *
 * As with the standard iterator, the stream is locked from the call on; the loop ends when the
 * stream closes, throws the stream's error when it errors, and a loop left early (`break`,
 * `return`, a `throw` in its body) cancels the stream (the cancel reaches the source, and the
 * provider's request with it) unless `preventCancel`. The lock is released when the loop ends.
 *
 * @throws {TypeError} when the stream is locked (a reader, a pipe or another loop holds it).
 *
 * @example
 * ```ts
 * const response = await fetch('/api/chat', { method: 'POST', body: JSON.stringify({ prompt }) });
 * const events = response.body!.pipeThrough(new EventStreamDecoder());
 * for await (const event of iterate(events)) {
 *   if (event.type === 'field-delta' && event.key === 'content') pre.append(event.text);
 * }
 * ```
 */
export function iterate<T>(stream: ReadableStream<T>, options: IterateOptions = {}): AsyncIterableIterator<T> {
  const values = (stream as { values?: (options: IterateOptions) => AsyncIterableIterator<T> }).values;
  if (typeof values === 'function') return values.call(stream, { preventCancel: options.preventCancel === true });
  return readerIterator(stream, options);
}

/**
 * The reader-based iterator of {@link iterate}, for platforms without `ReadableStream.prototype.values`:
 * the standard's async iterator (Streams, "ReadableStream async iterator"), calls queued one
 * after another as there. Internal.
 */
export function readerIterator<T>(stream: ReadableStream<T>, options: IterateOptions = {}): AsyncIterableIterator<T> {
  const reader = stream.getReader();
  const preventCancel = options.preventCancel === true;
  let finished = false;
  let ongoing: Promise<unknown> = Promise.resolve();
  const queue = <R>(step: () => Promise<R>): Promise<R> => {
    const result = ongoing.then(step, step);
    ongoing = result.catch(() => undefined);
    return result;
  };
  const next = async (): Promise<IteratorResult<T>> => {
    if (finished) return { done: true, value: undefined };
    try {
      const result = await reader.read();
      if (!result.done) return { done: false, value: result.value };
    } catch (error) {
      finished = true;
      reader.releaseLock();
      throw error;
    }
    finished = true;
    reader.releaseLock();
    return { done: true, value: undefined };
  };
  const end = async (value: unknown): Promise<IteratorResult<T>> => {
    if (!finished) {
      finished = true;
      const cancelled = preventCancel ? undefined : reader.cancel(value);
      reader.releaseLock();
      await cancelled;
    }
    return { done: true, value };
  };
  const iterator: AsyncIterableIterator<T> = {
    next: () => queue(next),
    return: (value?: unknown) => queue(() => end(value)),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
