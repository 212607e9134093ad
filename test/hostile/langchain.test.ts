/**
 * Hostile LangChain objects through `ProviderEventStream({ provider: 'langchain' })`: huge
 * arguments (whole and in a hundred thousand chunks), argument text held for a call that never
 * gets its name beyond its bound, chunks that fight over one index, envelopes nested without end,
 * `__proto__` members, and thousands of empty blocks. Each ends in the exact arguments or a typed
 * error, in time and memory proportional to the input.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { settle, streamOf } from '../helpers.ts';

const STOP = { response_metadata: { finish_reason: 'stop' } };

/** A chunk of one message, as a LangGraph server sends it. */
function chunk(fields: Record<string, unknown>): object {
  return { type: 'ai', content: '', tool_call_chunks: [], ...fields };
}

function turnOf(objects: readonly object[]) {
  return collectTurn(streamOf(objects).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
}

function runOf(objects: readonly object[]) {
  return settle(streamOf(objects).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
}

/** 1 MB of arguments: an object whose string holds escapes, non-ASCII text and emoji. */
const BIG = { path: 'big.txt', content: 'line "quoted" \\ é ✓ 🚀\n'.repeat(40_000) };
const BIG_JSON = JSON.stringify(BIG);

describe('ProviderEventStream (langchain) on hostile objects', () => {
  it('ProviderEventStream (langchain) reads 1 MB of arguments whole in one chunk, and in 100,000 chunks, exactly', async () => {
    expect(BIG_JSON.length).toBeGreaterThan(1_000_000);
    const whole = await turnOf([chunk({ tool_call_chunks: [{ index: 0, id: 'c', name: 'write', args: BIG_JSON }] }), chunk(STOP)]);
    expect(whole.toolCalls.map((call) => call.arguments)).toEqual([BIG]);
    const step = Math.floor(BIG_JSON.length / 100_000);
    const pieces: object[] = [chunk({ tool_call_chunks: [{ index: 0, id: 'c', name: 'write', args: '' }] })];
    for (let at = 0; at < BIG_JSON.length; at += step) pieces.push(chunk({ tool_call_chunks: [{ index: 0, id: '', args: BIG_JSON.slice(at, at + step) }] }));
    pieces.push(chunk(STOP));
    expect(pieces.length).toBeGreaterThan(100_000);
    const cut = await turnOf(pieces);
    expect(cut.toolCalls.map((call) => [call.toolCallId, call.arguments])).toEqual([['c', BIG]]);
  });

  it('ProviderEventStream (langchain) holds the text of a call without a name up to 16 MiB, then errors with max-buffered-bytes', async () => {
    const piece = 'x'.repeat(1024 * 1024);
    const objects = [chunk({ content: 'before' }), ...Array.from({ length: 17 }, () => chunk({ tool_call_chunks: [{ index: 0, args: piece }] }))];
    const { values, error } = await runOf(objects);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'langchain', type: 'invalid-stream', code: 'max-buffered-bytes' });
    expect(values).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'before' } }]);
  });

  it('ProviderEventStream (langchain) makes a call of each id that fights over one index, as concat does, and ends each', async () => {
    const objects = Array.from({ length: 5_000 }, (_, i) => chunk({ tool_call_chunks: [{ index: 0, id: `call_${i}`, name: 'f', args: `{"i":${i}}` }] }));
    const turn = await turnOf([...objects, chunk(STOP)]);
    expect(turn.toolCalls).toHaveLength(5_000);
    expect(turn.toolCalls[4_999]).toMatchObject({ toolCallId: 'call_4999', arguments: { i: 4_999 } });
  });

  it('ProviderEventStream (langchain) refuses stream parts nested without end in invalid-format, never a RangeError', async () => {
    let nested: unknown = chunk({ content: 'x' });
    for (let i = 0; i < 100_000; i++) nested = ['messages', nested];
    const { error } = await runOf([nested as object]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'langchain', type: 'invalid-format' });
    let wrapped: Record<string, unknown> = { type: 'thinking', thinking: 'deep' };
    for (let i = 0; i < 100_000; i++) wrapped = { type: 'non_standard', value: wrapped };
    const turn = await turnOf([chunk({ content: [wrapped], ...STOP })]);
    expect(turn.text).toBe('');
  });

  it('ProviderEventStream (langchain) reads a `__proto__` member of usage_metadata as no count, and keeps the prototype of nothing', async () => {
    const usage = JSON.parse('{"input_tokens": 3, "output_tokens": 2, "total_tokens": 5, "__proto__": {"input_tokens": 1000}}') as object;
    const turn = await turnOf([chunk({ content: 'a', usage_metadata: usage, ...STOP })]);
    expect([turn.usage?.inputTokens, turn.usage?.totalTokens]).toEqual([3, 5]);
    expect(Object.getPrototypeOf(turn.usage?.raw)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['input_tokens']).toBeUndefined();
  });

  it('ProviderEventStream (langchain) reads 100,000 empty text blocks and tool call chunks without a slot each', async () => {
    const blocks = Array.from({ length: 100_000 }, () => ({ type: 'text', text: '', index: 0 }));
    const calls = Array.from({ length: 100_000 }, () => ({ index: 1, args: '' }));
    const { values, error } = await runOf([chunk({ content: blocks, tool_call_chunks: calls }), chunk({ content: 'ok', ...STOP })]);
    expect(error).toBeUndefined();
    expect(values.filter((event) => event.type === 'part').map((event) => (event.type === 'part' ? event.part : undefined))).toEqual([{ type: 'message', text: 'ok' }]);
  });
});
