import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { createAnthropicAdapter } from '../../src/providers/anthropic.ts';
import { createBedrockAdapter } from '../../src/providers/bedrock.ts';
import { createGeminiAdapter } from '../../src/providers/gemini.ts';
import { createOpenAIResponsesAdapter } from '../../src/providers/openai-responses.ts';
import { assemble, assembleEvents, runAdapter, sseRecords, textOf, type WireRecord } from './event-stream-helpers.ts';

function anthropicToolUse(index: number, id: string): WireRecord {
  return {
    data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: 'get_weather', input: {} } },
    event: 'content_block_start',
  };
}

function anthropicInput(index: number, partial: string): WireRecord {
  return { data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } }, event: 'content_block_delta' };
}

const anthropicStop = (index: number): WireRecord => ({ data: { type: 'content_block_stop', index }, event: 'content_block_stop' });
const anthropicStart: WireRecord = {
  data: { type: 'message_start', message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 1, output_tokens: 1 } } },
  event: 'message_start',
};

describe('a repeated block start (Anthropic, Bedrock)', () => {
  it('createAnthropicAdapter errors on a second content_block_start of an index, open or closed, after the events before it', () => {
    for (const closedFirst of [false, true]) {
      const input = [
        anthropicStart,
        anthropicToolUse(0, 'toolu_1'),
        ...(closedFirst ? [anthropicInput(0, '{"city":"Paris"}'), anthropicStop(0)] : []),
        anthropicToolUse(0, 'toolu_1'),
        anthropicInput(0, '{"city":"Paris"}'),
        anthropicStop(0),
      ];
      const { events, error } = runAdapter(createAnthropicAdapter(), input);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'duplicate' });
      const starts = events.filter((e) => e.type === 'part' && e.part.type === 'tool-call-start');
      expect(starts).toHaveLength(1);
    }
  });

  it('createAnthropicAdapter errors on a content_block_start for a block message_start carried whole', () => {
    const start: WireRecord = {
      data: { type: 'message_start', message: { id: 'm', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } }] } },
      event: 'message_start',
    };
    const { error } = runAdapter(createAnthropicAdapter(), [start, anthropicToolUse(0, 'toolu_1')]);
    expect(error).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'duplicate' });
  });

  it('createBedrockAdapter errors on a second contentBlockStart of an index, open or closed', () => {
    const start = { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } } };
    const delta = { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":"Paris"}' } } } };
    const stop = { contentBlockStop: { contentBlockIndex: 1 } };
    for (const closedFirst of [false, true]) {
      const input: WireRecord[] = [start, ...(closedFirst ? [delta, stop] : []), start, delta, stop].map((data) => ({ data }));
      const { events, error } = runAdapter(createBedrockAdapter(), input);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'bedrock', type: 'invalid-stream', code: 'duplicate' });
      expect(assemble(events).toolCalls.length).toBeLessThanOrEqual(1);
    }
  });

  it('createBedrockAdapter still opens text blocks from their first delta, and distinct indices each start once', () => {
    const input: WireRecord[] = [
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Hi' } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'a', name: 'f' } } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{}' } } } },
      { contentBlockStop: { contentBlockIndex: 1 } },
      { contentBlockStart: { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'b', name: 'f' } } } },
      { contentBlockStop: { contentBlockIndex: 2 } },
    ].map((data) => ({ data }));
    const { events, error } = runAdapter(createBedrockAdapter(), input);
    expect(error).toBeUndefined();
    expect(assemble(events).toolCalls.map((c) => c.id)).toEqual(['a', 'b']);
  });
});

describe('events out of order, duplicated or lost', () => {
  it('createAnthropicAdapter errors on a delta for a block that already stopped, after the events before it', () => {
    const text = (t: string): WireRecord => ({ data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } } });
    const input: WireRecord[] = [
      anthropicStart,
      { data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      text('Hello'),
      anthropicStop(0),
      text(' again'),
    ];
    const { events, error } = runAdapter(createAnthropicAdapter(), input);
    expect(error).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'out-of-order' });
    expect(assemble(events).texts.map((t) => t.text)).toEqual(['Hello']);

    const late = runAdapter(createAnthropicAdapter(), [anthropicStart, anthropicToolUse(1, 'toolu_1'), anthropicInput(1, '{}'), anthropicStop(1), anthropicInput(1, '{"a":1}')]);
    expect(late.error).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'out-of-order' });
    // A delta whose block never started still opens it (a recording cut at its start).
    const noStart = runAdapter(createAnthropicAdapter(), [anthropicStart, { data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } } }, anthropicStop(0)]);
    expect(noStart.error).toBeUndefined();
    expect(assemble(noStart.events).texts.map((t) => t.text)).toEqual(['Hi']);
  });

  it('createBedrockAdapter errors on a delta for a block that already stopped', () => {
    const input: WireRecord[] = [
      { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'a', name: 'f' } } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"x":1}' } } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"x":2}' } } } },
    ].map((data) => ({ data }));
    const { events, error } = runAdapter(createBedrockAdapter(), input);
    expect(error).toMatchObject({ provider: 'bedrock', type: 'invalid-stream', code: 'out-of-order' });
    expect(assemble(events).toolCalls.map((c) => c.args)).toEqual(['{"x":1}']);
  });

  it('createGeminiAdapter errors on partialArgs after the call ended, instead of dropping them', () => {
    const part = (functionCall: unknown): WireRecord => ({ data: { candidates: [{ content: { role: 'model', parts: [{ functionCall }] } }] } });
    const input = [
      part({ name: 'f', willContinue: true }),
      part({}),
      part({ partialArgs: [{ jsonPath: '$.city', stringValue: 'Paris' }], willContinue: true }),
    ];
    const { error } = runAdapter(createGeminiAdapter(), input);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'gemini', type: 'invalid-stream', code: 'out-of-order' });
    // A repeated end marker carries nothing and changes nothing.
    const twice = runAdapter(createGeminiAdapter(), [
      part({ name: 'f', willContinue: true }),
      part({ partialArgs: [{ jsonPath: '$.city', stringValue: 'Paris' }], willContinue: true }),
      part({}),
      part({}),
    ]);
    expect(twice.error).toBeUndefined();
    expect(assemble(twice.events).toolCalls.map((c) => c.args)).toEqual(['{"city":"Paris"}']);
  });

  it('createOpenAIResponsesAdapter checks that sequence_number goes up by one: a duplicate, a replay and a swap each error, a loss is a gap recovered from .done', () => {
    const records = sseRecords(textOf('openai-responses/reasoning-item-then-function-call.sse'));
    const sequence = (r: WireRecord | undefined): unknown => (r?.data as { sequence_number?: unknown } | undefined)?.sequence_number;
    // The recording as sent: consecutive from 0, no error.
    expect(records.map(sequence)).toEqual(records.map((_, i) => i));
    expect(runAdapter(createOpenAIResponsesAdapter(), records).error).toBeUndefined();
    const at = 7; // an argument delta
    const duplicated = [...records.slice(0, at + 1), records[at] as WireRecord, ...records.slice(at + 1)];
    const swapped = [...records.slice(0, at), records[at + 1] as WireRecord, records[at] as WireRecord, ...records.slice(at + 2)];
    const lost = [...records.slice(0, at), ...records.slice(at + 1)];
    const replayed = [...records.slice(0, at + 3), records[at] as WireRecord, ...records.slice(at + 3)];
    // The first event out of place is the one noticed. A swap shows as a gap (the later event
    // comes early, and the call's deltas are held back from there), then as the skipped event
    // coming late: out of order.
    const cases: [WireRecord[], string, number][] = [
      [duplicated, 'duplicate', at],
      [replayed, 'duplicate', at + 2],
      [swapped, 'out-of-order', at - 1],
    ];
    for (const [input, code, lastGood] of cases) {
      const { events, error } = runAdapter(createOpenAIResponsesAdapter(), input);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'openai-responses', type: 'invalid-stream', code });
      // Everything up to the event before the bad one was delivered, nothing after.
      const adapter = createOpenAIResponsesAdapter();
      const expected = records.slice(0, lastGood + 1).flatMap((r) => adapter.push(r.data, r.event));
      expect(events).toEqual(expected);
    }
    // A lost delta: the arguments come whole from .done, and the turn names the gap.
    const { events, error } = runAdapter(createOpenAIResponsesAdapter(), lost);
    expect(error).toBeUndefined();
    expect(assembleEvents(events).toolCalls.map((c) => c.args)).toEqual(['{"result":6666}']);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'tool-calls', warnings: [{ type: 'sequence-gap', expected: at, received: at + 1 }] });
  });

  it('createOpenAIResponsesAdapter takes the first sequence_number as the start (a resumed stream), and events without one as they come', () => {
    const records = sseRecords(textOf('openai-responses/reasoning-item-then-function-call.sse'));
    expect(runAdapter(createOpenAIResponsesAdapter(), records.slice(4)).error).toBeUndefined();
    const bare = records.map((r) => {
      const { sequence_number: _, ...data } = r.data as Record<string, unknown>;
      return { data };
    });
    expect(runAdapter(createOpenAIResponsesAdapter(), bare).error).toBeUndefined();
  });

  it('a call whose start was lost, or started twice, errors where the wire tells (Anthropic, Bedrock, Gemini)', () => {
    // Anthropic: arguments for a block that never started (text still opens the block it implies).
    const anthropic = runAdapter(createAnthropicAdapter(), [anthropicStart, anthropicInput(0, '{"a":1}'), anthropicStop(0)]);
    expect(anthropic.error).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'out-of-order' });
    expect(anthropic.events).toEqual([]);
    // Bedrock: a toolUse delta before its contentBlockStart.
    const bedrock = runAdapter(createBedrockAdapter(), [{ data: { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"a":1}' } } } } }]);
    expect(bedrock.error).toMatchObject({ provider: 'bedrock', type: 'invalid-stream', code: 'out-of-order' });
    // Gemini: a repeated start while the call streams (a streamed call ends with its end marker first).
    const part = (functionCall: unknown): WireRecord => ({ data: { candidates: [{ content: { role: 'model', parts: [{ functionCall }] } }] } });
    const gemini = runAdapter(createGeminiAdapter(), [
      part({ name: 'getWeather', willContinue: true }),
      part({ name: 'getWeather', willContinue: true }),
      part({ partialArgs: [{ jsonPath: '$.location', stringValue: 'Boston' }], willContinue: true }),
      part({}),
    ]);
    expect(gemini.error).toMatchObject({ provider: 'gemini', type: 'invalid-stream', code: 'out-of-order' });
    expect(gemini.events.filter((e) => e.type === 'part' && e.part.type === 'tool-call-start')).toHaveLength(1);
  });
});
