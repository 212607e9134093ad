import { describe, expect, it } from 'vitest';
import { fromAsyncIterable, iterableStream } from '../../src/sources/iterable.ts';
import { readAll, settle } from '../helpers.ts';

/** An async iterable that logs what its consumer did with it. */
function logged(values: number[], failAt?: number) {
  const log: string[] = [];
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        async next() {
          log.push(`next ${i}`);
          if (i === failAt) throw new Error(`failed at ${i}`);
          return i < values.length ? { done: false, value: values[i++] as number } : { done: true, value: undefined };
        },
        async return(value?: unknown) {
          log.push(`return ${String(value)}`);
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { iterable, log };
}

const implementations = [
  ['fromAsyncIterable', fromAsyncIterable],
  ['the pull-based fallback', iterableStream],
] as const;

describe.each(implementations)('%s', (_, from) => {
  it('fromAsyncIterable yields every value of an async iterable, a generator and a sync iterable (awaiting its promises)', async () => {
    expect(await readAll(from(logged([1, 2, 3]).iterable))).toEqual([1, 2, 3]);
    async function* generate() {
      yield 'a';
      yield 'b';
    }
    expect(await readAll(from(generate()))).toEqual(['a', 'b']);
    expect(await readAll(from([Promise.resolve(1), 2]))).toEqual([1, 2]);
  });

  it('fromAsyncIterable reads nothing ahead, and cancel calls return() on the iterator', async () => {
    const { iterable, log } = logged([1, 2, 3, 4]);
    const reader = from(iterable).getReader();
    expect(await reader.read()).toEqual({ done: false, value: 1 });
    expect(log).toEqual(['next 0']);
    await reader.cancel('stop');
    expect(log.at(-1)).toMatch(/^return/);
    expect(log.filter((entry) => entry.startsWith('next'))).toEqual(['next 0']);
  });

  it('fromAsyncIterable errors the stream with what the iterator throws, after the values before it', async () => {
    const { values, error } = await settle(from(logged([1, 2, 3], 2).iterable));
    expect(values).toEqual([1, 2]);
    expect(error).toEqual(new Error('failed at 2'));
  });

  it('fromAsyncIterable refuses what is not iterable with a TypeError', () => {
    expect(() => from(42 as never)).toThrow(TypeError);
    expect(() => from({} as never)).toThrow(TypeError);
  });
});
