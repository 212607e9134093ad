import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonFragmentStream } from '../../src/index.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** A fragment stream that produced output, then failed, with a reader that took only the first chunk. */
async function failedUnread() {
  const stage = new JsonFragmentStream();
  const reader = stage.readable.getReader();
  const writer = stage.writable.getWriter();
  // `[1,2,3,4,5` makes fragments; `x` is invalid: the stage errors once its output is taken.
  const written = writer.write('[1,2,3,4,5,x').catch((error: unknown) => error);
  // A transform stream runs `transform` only once its reader asks for something.
  expect((await reader.read()).done).toBe(false);
  return { reader, written };
}

describe('a stage that failed while its reader does not read', () => {
  it('stops waiting for the reader after a bounded time: no timer is left and the error is reported', async () => {
    vi.useFakeTimers();
    const { reader, written } = await failedUnread();
    await vi.advanceTimersByTimeAsync(5_000);
    // Still waiting for the reader: its chunks are kept.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(await written).toMatchObject({ name: 'JsonStreamError' });
    await expect(reader.read()).rejects.toMatchObject({ name: 'JsonStreamError' });
  });

  it('a reader that keeps reading, however slowly, gets every chunk before the error', async () => {
    vi.useFakeTimers();
    const { reader } = await failedUnread();
    const got: unknown[] = [];
    let error: unknown;
    for (;;) {
      // Slower than any poll, within the idle limit between reads, longer than it in all.
      await vi.advanceTimersByTimeAsync(4_000);
      try {
        const { done, value } = await reader.read();
        if (done) break;
        got.push(value);
      } catch (caught) {
        error = caught;
        break;
      }
    }
    // More than 10 s of reading: every fragment came (one was read before the loop).
    expect(got.length).toBeGreaterThanOrEqual(4);
    expect(error).toMatchObject({ name: 'JsonStreamError' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
