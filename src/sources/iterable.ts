/**
 * Any iterable or async iterable (an official SDK's stream object, a generator) as a
 * `ReadableStream`, on every runtime.
 *
 * @module
 */

type ReadableStreamFrom = <T>(iterable: AsyncIterable<T> | Iterable<T | PromiseLike<T>>) => ReadableStream<T>;

/**
 * A `ReadableStream` of the values of an async iterable (or of a sync iterable, whose promises are
 * awaited): what `pipeThrough(new ProviderEventStream(…))` needs from an SDK's stream object
 * (`client.messages.stream(…)`, `messages.create({stream: true})`,
 * `chat.completions.create({stream: true})`, `generateContentStream(…)`, the AI SDK's
 * `fullStream` when it is not already a stream).
 *
 * Uses `ReadableStream.from` where the runtime has it (Node ≥ 20.6, Deno, Bun, recent browsers),
 * else a pull-based stream: each read takes one value, nothing is read ahead, and cancelling the
 * stream calls the iterator's `return()` (the SDK then aborts its request). An error thrown by
 * the iterator errors the stream. Typed so that TypeScript with only the DOM library accepts it
 * (its `ReadableStream` has no `from`).
 *
 * @throws {TypeError} when the argument is neither an async iterable nor an iterable.
 *
 * @example
 * ```ts
 * const stream = client.messages.stream({ model, max_tokens: 1024, tools, messages });
 * const turn = await collectTurn(fromAsyncIterable(stream).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
 * ```
 */
export function fromAsyncIterable<T>(iterable: AsyncIterable<T> | Iterable<T | PromiseLike<T>>): ReadableStream<T> {
  const native = (ReadableStream as unknown as { from?: ReadableStreamFrom }).from;
  if (typeof native === 'function') return native.call(ReadableStream, iterable) as ReadableStream<T>;
  return iterableStream(iterable);
}

/** The pull-based stream of {@link fromAsyncIterable}, for runtimes without `ReadableStream.from`. Internal. */
export function iterableStream<T>(iterable: AsyncIterable<T> | Iterable<T | PromiseLike<T>>): ReadableStream<T> {
  const candidate = iterable as Partial<AsyncIterable<T> & Iterable<T>> | null | undefined;
  if (typeof candidate?.[Symbol.asyncIterator] !== 'function' && typeof candidate?.[Symbol.iterator] !== 'function') {
    throw new TypeError('fromAsyncIterable: the argument is neither an async iterable nor an iterable');
  }
  // Taken at once, as `ReadableStream.from` takes it: a cancel before the first read still reaches
  // the iterator's `return()`.
  const asyncMethod = (iterable as Partial<AsyncIterable<T>>)[Symbol.asyncIterator];
  const iterator: AsyncIterator<T> | Iterator<T | PromiseLike<T>> =
    typeof asyncMethod === 'function' ? asyncMethod.call(iterable) : (iterable as Iterable<T | PromiseLike<T>>)[Symbol.iterator]();
  return new ReadableStream<T>(
    {
      async pull(controller) {
        const result = await iterator.next();
        if (result.done) controller.close();
        else controller.enqueue(await result.value);
      },
      async cancel(reason) {
        await iterator.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
