import { describe, expect, it } from 'vitest';
import { iterate, JsonValueStream } from '../../src/index.ts';
import { readerIterator } from '../../src/sinks/iterate.ts';

/** A pull source of `values` that logs what its consumer did; errors with `failWith` after them when given. */
function logged(values: readonly number[], failWith?: Error) {
  const log: string[] = [];
  let i = 0;
  const stream = new ReadableStream<number>(
    {
      pull(controller) {
        log.push(`pull ${i}`);
        if (i < values.length) controller.enqueue(values[i++] as number);
        else if (failWith !== undefined) controller.error(failWith);
        else controller.close();
      },
      cancel(reason) {
        log.push(`cancel ${String(reason)}`);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, log };
}

const implementations = [
  // Node has ReadableStream.prototype.values: iterate hands back the platform's own iterator.
  ['iterate (the platform iterator)', iterate],
  // What iterate does where there is none (WebKit): the portable suite runs it there.
  ['iterate (over a reader, where the platform has no values())', readerIterator],
] as const;

describe.each(implementations)('%s', (_, iterateStream) => {
  it('iterate gives every chunk, ends when the stream closes, and releases the lock', async () => {
    const { stream, log } = logged([1, 2, 3]);
    const seen: number[] = [];
    for await (const value of iterateStream(stream)) seen.push(value);
    expect(seen).toEqual([1, 2, 3]);
    expect(stream.locked).toBe(false);
    expect(log).toEqual(['pull 0', 'pull 1', 'pull 2', 'pull 3']);
  });

  it("iterate locks the stream at once, and throws a TypeError for a locked one", () => {
    const { stream } = logged([1]);
    iterateStream(stream);
    expect(stream.locked).toBe(true);
    expect(() => iterateStream(stream)).toThrow(TypeError);
  });

  it("iterate throws the stream's error in the loop, after the chunks before it, and releases the lock", async () => {
    const failure = new Error('boom');
    const { stream } = logged([1, 2], failure);
    const seen: number[] = [];
    let caught: unknown;
    try {
      for await (const value of iterateStream(stream)) seen.push(value);
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([1, 2]);
    expect(caught).toBe(failure);
    expect(stream.locked).toBe(false);
  });

  it('iterate: a break cancels the stream (the source is cancelled) and releases the lock', async () => {
    const { stream, log } = logged([1, 2, 3]);
    for await (const value of iterateStream(stream)) if (value === 1) break;
    expect(log).toEqual(['pull 0', 'cancel undefined']);
    expect(stream.locked).toBe(false);
  });

  it('iterate: a throw in the loop body cancels the stream, and the loop throws it', async () => {
    const { stream, log } = logged([1, 2, 3]);
    const failure = new Error('render failed');
    await expect(
      (async () => {
        for await (const _ of iterateStream(stream)) throw failure;
      })(),
    ).rejects.toBe(failure);
    expect(log).toEqual(['pull 0', 'cancel undefined']);
  });

  it('iterate with preventCancel: a break leaves the stream open and unlocked, for a reader to go on', async () => {
    const { stream, log } = logged([1, 2, 3]);
    for await (const value of iterateStream(stream, { preventCancel: true })) if (value === 1) break;
    expect(stream.locked).toBe(false);
    expect(log).toEqual(['pull 0']);
    const rest: number[] = [];
    for await (const value of iterateStream(stream)) rest.push(value);
    expect(rest).toEqual([2, 3]);
  });

  it('iterate: return(reason) cancels with that reason; next() after the end is done', async () => {
    const { stream, log } = logged([1, 2, 3]);
    const iterator = iterateStream(stream);
    expect(await iterator.next()).toEqual({ done: false, value: 1 });
    expect(await iterator.return!('enough')).toEqual({ done: true, value: 'enough' });
    expect(log).toEqual(['pull 0', 'cancel enough']);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('iterate: calls made without waiting run one after another, in order', async () => {
    const { stream } = logged([1, 2, 3]);
    const iterator = iterateStream(stream);
    const results = await Promise.all([iterator.next(), iterator.next(), iterator.next(), iterator.next()]);
    expect(results).toEqual([
      { done: false, value: 1 },
      { done: false, value: 2 },
      { done: false, value: 3 },
      { done: true, value: undefined },
    ]);
  });

  it("iterate reads a stage's output as it comes: JsonValueStream's values", async () => {
    const text = new ReadableStream<string>({
      start(controller) {
        for (const chunk of ['{"a":', '[1,', '2]}']) controller.enqueue(chunk);
        controller.close();
      },
    });
    const values: unknown[] = [];
    for await (const value of iterateStream(text.pipeThrough(new JsonValueStream()))) values.push(value);
    expect(values).toEqual([{ value: { a: [1, 2] }, complete: true }]);
  });
});

it('iterate uses the platform iterator where there is one (ReadableStream.prototype.values)', () => {
  const stream = new ReadableStream();
  const native = (stream as unknown as { values(): unknown }).values();
  expect(Object.getPrototypeOf(iterate(new ReadableStream()))).toBe(Object.getPrototypeOf(native));
});
