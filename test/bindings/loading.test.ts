/**
 * What a binding's store reads beyond argstream's events is loaded when a source needs it (a
 * dynamic import: a chunk of its own in a page): the AI SDK's `fullStream` parts for a
 * `ReadableStream`, a relay's decoders for a `Response` without `decoder`, and with each, and alone
 * for a `Response` with its `decoder`, the reader of field events. The turn reads the same
 * as `TurnStore` reads it, a load that fails puts its error in the snapshot, and the next source
 * tries the load again.
 */
import { effectScope } from 'vue';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fedSource, NDJSON, settled } from './sources.ts';

/** A stream of `chunks`, then its end. */
function streamOf(chunks: readonly unknown[]): ReadableStream<unknown> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** The AI SDK's `fullStream` parts of a turn: text, then a call of `write_file`, then `finish`. */
const AI_SDK_TURN: readonly object[] = [
  { type: 'start' },
  { type: 'start-step' },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', text: 'Writing' },
  { type: 'text-end', id: 't' },
  { type: 'tool-input-start', id: 'c1', toolName: 'write_file' },
  { type: 'tool-input-delta', id: 'c1', delta: '{"path":"/a",' },
  { type: 'tool-input-delta', id: 'c1', delta: '"content":"x"}' },
  { type: 'tool-input-end', id: 'c1' },
  { type: 'tool-call', toolCallId: 'c1', toolName: 'write_file', input: { path: '/a', content: 'x' } },
  { type: 'finish-step', finishReason: 'tool-calls', usage: {} },
  { type: 'finish', finishReason: 'tool-calls', totalUsage: {} },
];

/**
 * `useTurn` from a fresh copy of the bindings (nothing loaded yet), and the error classes of that
 * copy. A test waits for a load with `loaded`, then lets the turn be read (`settled`).
 */
async function fresh(): Promise<{ useTurn: typeof import('../../src/bindings/vue.ts')['useTurn']; errors: typeof import('../../src/errors.ts') }> {
  vi.resetModules();
  return { useTurn: (await import('../../src/bindings/vue.ts')).useTurn, errors: await import('../../src/errors.ts') };
}

/** Wait until the module a binding loads for its source is loaded (or failed to load). */
async function loaded(path: '../../src/store/relay-response.ts' | '../../src/providers/ai-sdk.ts' | '../../src/store/field-fragments.ts'): Promise<void> {
  await import(path).catch(() => undefined);
  await settled();
}

function inScope<T>(run: () => T): { value: T; stop: () => void } {
  const scope = effectScope();
  const value = scope.run(run) as T;
  return { value, stop: () => scope.stop() };
}

afterEach(() => {
  vi.doUnmock('../../src/store/relay-response.ts');
  vi.resetModules();
});

/** A call of `write_file` streamed as field events (`FieldEventStream`'s), cut before its conversation event. */
const FIELD_EVENTS: readonly object[] = [
  { type: 'field-start', index: 0, toolCallId: 'c1', toolName: 'write_file', key: 'path', string: true },
  { type: 'field-delta', index: 0, toolCallId: 'c1', toolName: 'write_file', key: 'path', text: '/a' },
  { type: 'field-end', index: 0, toolCallId: 'c1', toolName: 'write_file', key: 'path', string: true },
  { type: 'field-start', index: 0, toolCallId: 'c1', toolName: 'write_file', key: 'mode' },
  { type: 'field-delta', index: 0, toolCallId: 'c1', toolName: 'write_file', key: 'mode', text: '[1,2]' },
  { type: 'field-end', index: 0, toolCallId: 'c1', toolName: 'write_file', key: 'mode', string: false },
];

/** A decoder of NDJSON lines (a `Response`'s own `decoder`), one record per line. */
function lineDecoder(): { push(bytes: Uint8Array, out: unknown[]): unknown[]; end(out: unknown[]): unknown[] } {
  const text = new TextDecoder();
  let rest = '';
  return {
    push(bytes, out) {
      const lines = (rest + text.decode(bytes, { stream: true })).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line !== '') out.push(JSON.parse(line));
      return out;
    },
    end(out) {
      if (rest !== '') out.push(JSON.parse(rest));
      return out;
    },
  };
}

describe('what a binding loads for its source', () => {
  it('`useTurn` of field events, in a ReadableStream, a Response read by its `decoder` or a `snapshot` event: the call\'s input is built from them (their readers loaded for it)', async () => {
    const { useTurn } = await fresh();
    const body = FIELD_EVENTS.map((event) => JSON.stringify(event)).join('\n');
    const stream = inScope(() => useTurn(streamOf(FIELD_EVENTS), { schedule: 'sync' }));
    const response = inScope(() => useTurn(new Response(body), { schedule: 'sync', decoder: lineDecoder }));
    // A resumed relay's turn so far comes as one `snapshot` event: read by the reader of the events
    // of a stage before, loaded with the rest.
    const snapshot = inScope(() => useTurn(streamOf([{ type: 'snapshot', events: FIELD_EVENTS }]), { schedule: 'sync' }));
    await loaded('../../src/providers/ai-sdk.ts');
    await loaded('../../src/store/field-fragments.ts');
    for (const turn of [stream.value, response.value, snapshot.value]) {
      expect(turn.value.status).toBe('done');
      expect(turn.value.calls).toHaveLength(1);
      // No conversation event came: the call was cut, with the input its fields gave.
      const call = turn.value.calls[0];
      expect(call).toMatchObject({ toolCallId: 'c1', status: 'failed', input: { path: '/a', mode: [1, 2] } });
      expect(call?.status === 'failed' && call.error.name).toBe('IncompleteToolCallError');
    }
    stream.stop();
    response.stop();
    snapshot.stop();
  });


  it('`useTurn` of a ReadableStream of the AI SDK\'s fullStream parts reads them as TurnStore does (the parts adapter loaded for it)', async () => {
    const { useTurn } = await fresh();
    const { value: turn, stop } = inScope(() => useTurn(streamOf(AI_SDK_TURN), { schedule: 'sync' }));
    await loaded('../../src/providers/ai-sdk.ts');
    expect(turn.value).toMatchObject({ status: 'done', text: 'Writing', finishReason: 'tool-calls' });
    expect(turn.value.calls).toHaveLength(1);
    expect(turn.value.calls[0]).toMatchObject({ toolCallId: 'c1', toolName: 'write_file', status: 'complete', input: { path: '/a', content: 'x' } });
    stop();
  });

  it('`useTurn` of AI SDK parts cut before their `finish`: the turn ends in a ProviderError `truncated`, after the text', async () => {
    const { useTurn, errors } = await fresh();
    const { value: turn, stop } = inScope(() => useTurn(streamOf(AI_SDK_TURN.slice(0, 4)), { schedule: 'sync' }));
    await loaded('../../src/providers/ai-sdk.ts');
    expect(turn.value).toMatchObject({ status: 'error', text: 'Writing' });
    expect(turn.value.error).toBeInstanceOf(errors.ProviderError);
    expect((turn.value.error as InstanceType<typeof errors.ProviderError>).code).toBe('truncated');
    stop();
  });

  it('`useTurn` of a relay Response that answered 500: a RelayError `invalid-input` in the snapshot (the relay decoders loaded for it)', async () => {
    const { useTurn, errors } = await fresh();
    const { value: turn, stop } = inScope(() => useTurn(new Response('oops', { status: 500, statusText: 'Internal Server Error' }), { schedule: 'sync' }));
    await loaded('../../src/store/relay-response.ts');
    expect(turn.value.status).toBe('error');
    expect(turn.value.error).toBeInstanceOf(errors.RelayError);
    expect((turn.value.error as InstanceType<typeof errors.RelayError>).code).toBe('invalid-input');
    expect(turn.value.error?.message).toBe('the relay answered 500 Internal Server Error');
    stop();
  });

  it('a relay decoder that fails to load: its error is in the snapshot, the body is cancelled with it, and the next Response loads it again and reads', async () => {
    const lost = new TypeError('Failed to fetch dynamically imported module: relay-response.js');
    vi.resetModules();
    vi.doMock('../../src/store/relay-response.ts', () => {
      throw lost;
    });
    const { useTurn } = await import('../../src/bindings/vue.ts');
    const body = '{"type":"part","index":0,"part":{"type":"message","text":"hi"}}\n{"type":"flush","index":0}\n{"type":"end"}\n';
    const unread = fedSource<Uint8Array>([new TextEncoder().encode(body)]);
    const first = inScope(() => useTurn(new Response(unread.stream, { headers: NDJSON }), { schedule: 'sync' }));
    await loaded('../../src/store/relay-response.ts');
    expect(first.value.value.status).toBe('error');
    // The response is not left downloading: its body is cancelled with the error.
    expect(unread.cancels).toEqual([first.value.value.error]);
    // Vitest wraps what the module threw; a browser rejects the import with it as it is.
    const error = first.value.value.error as Error;
    expect(error === lost || error.cause === lost).toBe(true);
    first.stop();
    vi.doUnmock('../../src/store/relay-response.ts');
    const second = inScope(() => useTurn(new Response(body, { headers: NDJSON }), { schedule: 'sync' }));
    await loaded('../../src/store/relay-response.ts');
    expect(second.value.value).toMatchObject({ status: 'done', text: 'hi' });
    second.stop();
  });
});
