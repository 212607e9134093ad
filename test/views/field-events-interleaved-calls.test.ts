/**
 * Two calls whose argument fragments interleave (OpenAI Chat Completions tells parallel calls apart
 * by `tool_calls[].index` only, and a gateway may interleave them), all in one network read: in
 * one hop (`fromResponse` with the stage, `chain`) every call's events go into one list, and a
 * field's delta must not be joined to the previous event of another call's field of the same key.
 */
import { describe, expect, it } from 'vitest';
import { FieldEventStream, ProviderEventStream, chain, fromResponse, type FieldEvent } from '../../src/index.ts';

const chunk = (delta: object, finishReason: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`;
const start = (index: number, id: string) => chunk({ tool_calls: [{ index, id, type: 'function', function: { name: 'write_file', arguments: '' } }] });
const piece = (index: number, text: string) => chunk({ tool_calls: [{ index, function: { arguments: text } }] });

/** Each call's fragments in turn: a's path and content pieces, then b's, alternating. */
const SSE = [
  start(0, 'call_a'),
  piece(0, '{"path"'),
  start(1, 'call_b'),
  piece(1, '{"path"'),
  piece(0, ':"src/g'),
  piece(1, ':"tests'),
  piece(0, 'reet.rs'),
  piece(1, '/greet.'),
  piece(0, '","content":"fn a'),
  piece(1, 'rs","content":"fn b'),
  piece(0, '() {}"}'),
  piece(1, '() {}"}'),
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
].join('');

/** The deltas as [call, key, text], in order. */
async function deltas(events: ReadableStream<unknown>): Promise<Array<[string | undefined, string, string]>> {
  const out: Array<[string | undefined, string, string]> = [];
  for await (const event of events as unknown as AsyncIterable<FieldEvent | { type: string }>) {
    if (event.type === 'field-delta') {
      const delta = event as Extract<FieldEvent, { type: 'field-delta' }>;
      out.push([delta.toolCallId, delta.key, delta.text]);
    }
  }
  return out;
}

/** One read holds every fragment of both calls: each call's pieces stay its own. */
const EXPECTED: Array<[string, string, string]> = [
  ['call_a', 'path', 'src/g'],
  ['call_b', 'path', 'tests'],
  ['call_a', 'path', 'reet.rs'],
  ['call_b', 'path', '/greet.'],
  ['call_a', 'content', 'fn a'],
  ['call_b', 'path', 'rs'],
  ['call_b', 'content', 'fn b'],
  ['call_a', 'content', '() {}'],
  ['call_b', 'content', '() {}'],
];

const oneRead = () => new Response(new TextEncoder().encode(SSE));

describe('field events of calls interleaved within one read', () => {
  it('`FieldEventStream` in fromResponse keeps each call\'s deltas its own when the calls interleave within one read', async () => {
    expect(await deltas(fromResponse(oneRead(), { provider: 'openai-chat' }, new FieldEventStream({ keepProgress: false })))).toEqual(EXPECTED);
  });

  it('`FieldEventStream` chained after ProviderEventStream keeps each call\'s deltas its own when the calls interleave within one chunk', async () => {
    const stage = chain(new ProviderEventStream({ provider: 'openai-chat' }), new FieldEventStream({ keepProgress: false }));
    expect(await deltas(oneRead().body!.pipeThrough(stage))).toEqual(EXPECTED);
  });
});
