/**
 * A provider read by name whose module cannot be loaded (a page's chunk the network lost): the
 * stream errors typed, a stream never read leaves no unhandled rejection (vitest fails a run that
 * has one), and the next stream tries the load again. The module is made to fail with `vi.doMock`,
 * on a module graph of its own.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFixture, settle, streamOf } from '../helpers.ts';

const MODULE = '../../src/providers/gemini-interactions.ts';
const RECORDING = readFixture('providers/gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse');

afterEach(() => {
  vi.doUnmock(MODULE);
  vi.resetModules();
});

async function freshLibrary() {
  vi.resetModules();
  vi.doMock(MODULE, () => {
    throw new Error('Failed to fetch dynamically imported module: https://example.test/assets/gemini-interactions-3f9a.js');
  });
  const [{ ProviderEventStream }, { ProviderError }, { fromResponse }, { collectTurn }] = await Promise.all([
    import('../../src/transforms/provider-event-stream.ts'),
    import('../../src/errors.ts'),
    import('../../src/sources/response.ts'),
    import('../../src/sinks/collect-turn.ts'),
  ]);
  return { ProviderEventStream, ProviderError, fromResponse, collectTurn };
}

describe('a provider whose module cannot be loaded', () => {
  it("ProviderEventStream by name errors with ProviderError 'unavailable' (the import's error as its cause, no URL in the message); the next stream loads it again", async () => {
    const { ProviderEventStream, ProviderError, collectTurn } = await freshLibrary();
    // Never read: its failed load must not surface as an unhandled rejection.
    new ProviderEventStream({ provider: 'gemini-interactions' });
    const { values, error } = await settle(streamOf([RECORDING]).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    const failure = error as InstanceType<typeof ProviderError>;
    expect([failure.provider, failure.type, failure.message]).toEqual(['gemini-interactions', 'unavailable', "gemini-interactions: the provider's module could not be loaded"]);
    // The import's error (here as vitest wraps a failed mock) stays the cause, off the message.
    expect(failure.cause).toBeInstanceOf(Error);
    expect(failure.message).not.toContain('example.test');
    // An empty stream fails the same way at its end.
    const empty = await settle(streamOf<Uint8Array>([]).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
    expect((empty.error as InstanceType<typeof ProviderError>).type).toBe('unavailable');

    vi.doUnmock(MODULE);
    const turn = await collectTurn(streamOf([RECORDING]).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
    expect(turn.toolCalls.map((call) => call.toolName)).toEqual(['write_file']);
  });

  it("fromResponse by name errors its stream with ProviderError 'unavailable' and cancels the response body", async () => {
    const { ProviderError, fromResponse } = await freshLibrary();
    let cancelled: unknown = 'not cancelled';
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(RECORDING);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const { values, error } = await settle(fromResponse(new Response(body), { provider: 'gemini-interactions' }));
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as InstanceType<typeof ProviderError>).type).toBe('unavailable');
    expect(cancelled).toBe(error);
  });
});
