import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/errors.ts';
import { createAnthropicAdapter } from '../../../src/transforms/providers/anthropic.ts';
import { createBedrockAdapter } from '../../../src/transforms/providers/bedrock.ts';
import { assemble, runAdapter, type WireRecord } from './event-stream-helpers.ts';

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
