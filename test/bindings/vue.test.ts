/**
 * `argstream/vue`: `useTurn` inside an `effectScope` (what a component's setup runs in): the source
 * is read while the scope lives and cancelled when it stops — a `ReadableStream`, a `Response` (and
 * its request), a source ref that changes — while a `TurnStore` given as the source is only shown,
 * never cancelled.
 */
import { effectScope, nextTick, shallowRef } from 'vue';
import { describe, expect, it } from 'vitest';
import { useTurn } from '../../src/bindings/vue.ts';
import { TurnStore, type PipelineEvent } from '../../src/index.ts';
import { fedSource, isUnmountReason, macrotask, message, NDJSON, ndjsonLine, settled } from './sources.ts';

function inScope<T>(run: () => T): { value: T; stop: () => void } {
  const scope = effectScope();
  const value = scope.run(run) as T;
  return { value, stop: () => scope.stop() };
}

describe('argstream/vue', () => {
  it('`useTurn` (Vue) reads a ReadableStream while its scope lives, and scope.stop() cancels it once, a macrotask later', async () => {
    const source = fedSource([message('a')]);
    const { value: turn, stop } = inScope(() => useTurn(source.stream, { schedule: 'sync' }));
    await settled();
    expect(turn.value).toMatchObject({ status: 'streaming', text: 'a' });
    source.push(message('b'));
    await settled();
    expect(turn.value.text).toBe('ab');
    expect(source.cancels).toEqual([]);
    stop();
    expect(source.cancels).toEqual([]);
    await settled();
    expect(source.cancels).toHaveLength(1);
    expect(isUnmountReason(source.cancels[0])).toBe(true);
    // The ref is no longer followed.
    const shown = turn.value;
    source.push(message('c'));
    await settled();
    expect(turn.value).toBe(shown);
  });

  it('`useTurn` (Vue) of a Response: scope.stop() cancels its body and aborts the request given', async () => {
    const source = fedSource([ndjsonLine(message('a'))]);
    const request = new AbortController();
    const response = new Response(source.stream, { headers: NDJSON });
    const { value: turn, stop } = inScope(() => useTurn(response, { schedule: 'sync', request }));
    await settled();
    expect(turn.value).toMatchObject({ status: 'streaming', text: 'a' });
    stop();
    await settled();
    expect(request.signal.aborted).toBe(true);
    expect(isUnmountReason(request.signal.reason)).toBe(true);
    expect(source.cancels).toHaveLength(1);
    expect(isUnmountReason(source.cancels[0])).toBe(true);
  });

  it('`useTurn` (Vue) of a Response with a relay body: the turn shows what it sends', async () => {
    const body = '{"type":"part","index":0,"part":{"type":"message","text":"hi"}}\n{"type":"flush","index":0}\n{"type":"end"}\n';
    const { value: turn, stop } = inScope(() => useTurn(new Response(body, { headers: NDJSON }), { schedule: 'sync' }));
    await settled();
    expect(turn.value).toMatchObject({ status: 'done', text: 'hi' });
    stop();
  });

  it('`useTurn` (Vue) of a TurnStore shows it and, when the scope stops, neither cancels what fills it nor ends it', async () => {
    const source = fedSource([message('a')]);
    const store = new TurnStore({ schedule: 'sync' });
    const consumed = store.consume(source.stream);
    const { value: turn, stop } = inScope(() => useTurn(store));
    await settled();
    expect(turn.value).toBe(store.getSnapshot());
    expect(turn.value.text).toBe('a');
    source.push(message('b'));
    await settled();
    expect(turn.value.text).toBe('ab');
    stop();
    await settled();
    expect(source.cancels).toEqual([]);
    source.push(message('c'));
    source.close();
    expect((await consumed).status).toBe('done');
    expect(store.getSnapshot().text).toBe('abc');
    expect(turn.value.text).toBe('ab');
  });

  it('`useTurn` (Vue) of a ref: a new source is a new turn, and the one before is cancelled', async () => {
    const first = fedSource([message('first')]);
    const second = fedSource([message('second')]);
    const source = shallowRef<ReadableStream<PipelineEvent>>(first.stream);
    const { value: turn, stop } = inScope(() => useTurn(source, { schedule: 'sync' }));
    await settled();
    expect(turn.value.text).toBe('first');
    source.value = second.stream;
    await nextTick();
    await settled();
    expect(turn.value.text).toBe('second');
    expect(first.cancels).toHaveLength(1);
    expect(isUnmountReason(first.cancels[0])).toBe(true);
    expect(second.cancels).toEqual([]);
    stop();
    await macrotask();
    await settled();
    expect(second.cancels).toHaveLength(1);
  });
});
