import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import type { FinishReason, StreamEvent } from '../../src/types.ts';
import { cuttings } from '../helpers.ts';
import { manifestRecordings } from '../manifest.ts';
import { assembleEvents, bytesOf, eventsOf, runStream, sseObjects, splitSse, textOf, unflushedSlots } from './event-stream-helpers.ts';


/** Anthropic's stop reasons and what they normalize to (from the API reference). */
const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  refusal: 'refusal',
  pause_turn: 'other',
};

/**
 * Test-side oracle for the texts of a recording: the concatenated `text_delta` / `thinking_delta`
 * / `signature_delta` per block index, read with a splitter independent of the library.
 */
function blockTexts(text: string): Map<number, { text: string; thinking: string; signature: string }> {
  const blocks = new Map<number, { text: string; thinking: string; signature: string }>();
  for (const data of sseObjects(text) as Array<{ type: string; index?: number; delta?: Record<string, string> }>) {
    if (data.type !== 'content_block_delta' || data.index === undefined || !data.delta) continue;
    const block = blocks.get(data.index) ?? { text: '', thinking: '', signature: '' };
    blocks.set(data.index, block);
    if (data.delta.type === 'text_delta') block.text += data.delta.text;
    if (data.delta.type === 'thinking_delta') block.thinking += data.delta.thinking;
    if (data.delta.type === 'signature_delta') block.signature += data.delta.signature;
  }
  return blocks;
}

describe('ProviderEventStream with provider anthropic, on every recording', () => {
  const recordings = manifestRecordings('anthropic');

  it('ProviderEventStream covers every Anthropic recording of the manifest', () => {
    expect(recordings).toHaveLength(12);
  });

  for (const recording of recordings) {
    describe(recording.file, () => {
      const bytes = bytesOf(recording.file);

      for (const seed of [1, 2, 3]) {
        for (const [cutting, chunks] of cuttings(bytes, seed)) {
          if (seed > 1 && cutting !== `random cuts (seed ${seed})`) continue;
          it(`ProviderEventStream assembles the manifest's tool calls, texts and finish (${cutting})`, async () => {
            const events = await eventsOf('anthropic', chunks);
            const assembly = assembleEvents(events);
            expect(unflushedSlots(assembly)).toEqual([]);

            expect(assembly.toolCalls.map((c) => ({ id: c.id, name: c.name, index: c.index, args: c.args }))).toEqual(
              recording.toolCalls.map((c) => ({ id: c.id, name: c.name, index: c.index, args: c.args })),
            );
            for (const [i, expected] of recording.toolCalls.entries()) {
              if (expected.args === '') expect(assembly.toolCalls[i]?.argumentChunks).toBe(0);
            }
            // A server tool call is marked on its start part, and its result block is a part of its own.
            expect(assembly.providerToolCalls.map((c) => ({ id: c.id, name: c.name, index: c.index, args: c.args }))).toEqual(
              recording.providerToolCalls.map((c) => ({ id: c.id, name: c.name, index: c.index, args: c.args })),
            );
            const results = assembly.slots.flatMap((s) => (s.result === undefined ? [] : [s.result.toolCallId]));
            expect(results).toEqual(recording.providerToolCalls.map((c) => c.id));

            const rawReason = JSON.parse(recording.finish) as string;
            expect(assembly.finished).toMatchObject({ reason: FINISH[rawReason], rawReason });

            for (const [index, block] of blockTexts(textOf(recording.file))) {
              const slot = assembly.slots.find((s) => s.index === index);
              if (block.text !== '' || block.thinking !== '') expect(slot).toBeDefined();
              expect(slot?.text ?? '').toBe(block.text);
              expect(slot?.reasoning ?? '').toBe(block.thinking);
              expect(slot?.flushMetadata?.signature).toBe(block.signature === '' ? undefined : block.signature);
            }
          });
        }
      }

      it('ProviderEventStream gives the same events for the SDK event objects as for the bytes', async () => {
        const fromBytes = await eventsOf('anthropic', [bytes]);
        const fromObjects = await eventsOf('anthropic', sseObjects(textOf(recording.file)) as object[]);
        expect(fromObjects).toEqual(fromBytes);
      });

      it('ProviderEventStream gives the same events for CRLF and CR line endings', async () => {
        const fromBytes = await eventsOf('anthropic', [bytes]);
        const text = textOf(recording.file).replace(/\r\n|\r|\n/g, '\n');
        expect(await eventsOf('anthropic', [text.replace(/\n/g, '\r\n')])).toEqual(fromBytes);
        expect(await eventsOf('anthropic', [text.replace(/\n/g, '\r')])).toEqual(fromBytes);
      });
    });
  }
});

describe('ProviderEventStream with provider anthropic, details', () => {
  it('ProviderEventStream emits text, the tool call and the finish of text-then-tool-use exactly', async () => {
    const events = await eventsOf('anthropic', [bytesOf('anthropic/text-then-tool-use.sse')]);
    const expected: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'message', text: 'I' } },
      { type: 'part', index: 0, part: { type: 'message', text: "'ll check the current weather in Paris for you." } },
      { type: 'flush', index: 0 },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', toolName: 'get_weather' } },
      { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: '{"locati' } },
      { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: 'on": "P' } },
      { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: 'ar' } },
      { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: 'is"}' } },
      { type: 'flush', index: 1 },
    ];
    expect(events.slice(0, -1)).toEqual(expected);
    expect(events.at(-1)).toEqual({
      type: 'finished',
      reason: 'tool-calls',
      rawReason: 'tool_use',
      usage: {
        inputTokens: 377,
        outputTokens: 65,
        totalTokens: 442,
        cachedInputTokens: 0,
        raw: {
          input_tokens: 377,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 65,
          service_tier: 'standard',
        },
      },
      metadata: { messageId: 'msg_019Q1hrJbZG26Fb9BQhrkHEr', model: 'claude-opus-4-8' },
    });
  });

  it('ProviderEventStream emits the blocks message_start carries as if streamed, and its stop_reason as the finish', async () => {
    const file = 'anthropic/handmade-message-start-content-programmatic-tool-use.sse';
    const events = await eventsOf('anthropic', [bytesOf(file)]);
    expect(events).toEqual([
      { type: 'part', index: 0, part: { type: 'reasoning', text: "The script needs the West region's rows: call query_database from the code." } },
      { type: 'flush', index: 0, metadata: { signature: 'EqQBCkYIBxgCKkBhandmadeSignatureForTheRecordingOnlyZ2V0X3Jvd3M=' } },
      { type: 'part', index: 1, part: { type: 'message', text: "I'll query each region from the script." } },
      { type: 'flush', index: 1 },
      {
        type: 'part',
        index: 2,
        part: { type: 'tool-call-start', toolCallId: 'toolu_01HandMadeQdb8Kx2Wm5Lr7N', toolName: 'query_database' },
        metadata: { caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_01HandMadeExec3Vn6Tq9Jc2P' } },
      },
      {
        type: 'part',
        index: 2,
        part: { type: 'tool-call-arguments', chunk: `{"sql":"SELECT region, SUM(revenue) AS revenue FROM sales WHERE region = 'West' GROUP BY region"}` },
      },
      { type: 'flush', index: 2 },
      {
        type: 'finished',
        reason: 'tool-calls',
        rawReason: 'tool_use',
        usage: {
          inputTokens: 3150,
          outputTokens: 212,
          totalTokens: 3362,
          cachedInputTokens: 0,
          raw: { input_tokens: 3150, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 212, service_tier: 'standard' },
        },
        metadata: { messageId: 'msg_01PtcHandMade7x9QmZr2Vd4K', model: 'claude-sonnet-4-5-20250929' },
      },
    ]);
  });

  it('ProviderEventStream marks an error result and an mcp_tool_use call, and ends a refusal with reason refusal', async () => {
    const events = await eventsOf('anthropic', [
      { type: 'message_start', message: { id: 'm', content: [] } },
      { type: 'content_block_start', index: 0, content_block: { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'echo', server_name: 'tools', input: { text: 'hi' } } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: true, content: [{ type: 'text', text: 'down' }] } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_2', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'refusal' } },
      { type: 'message_stop' },
    ]);
    expect(events.filter((e) => e.type === 'part')).toEqual([
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'mcptoolu_1', toolName: 'echo', providerExecuted: true }, metadata: { blockType: 'mcp_tool_use', serverName: 'tools' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"text":"hi"}' } },
      { type: 'part', index: 1, part: { type: 'provider-tool-result', toolCallId: 'mcptoolu_1', toolName: 'echo', result: [{ type: 'text', text: 'down' }], isError: true } },
      { type: 'part', index: 2, part: { type: 'provider-tool-result', toolCallId: 'srvtoolu_2', result: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' }, isError: true } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'refusal', rawReason: 'refusal' });
  });

  it('ProviderEventStream gives a server tool call and its result carried in message_start as provider-run, like streamed ones', async () => {
    const call = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'code_execution', input: { code: 'print(1)' } };
    const result = { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'code_execution_result', stdout: '1\n' } };
    const whole = await eventsOf('anthropic', [
      { type: 'message_start', message: { id: 'm', content: [call, result], stop_reason: 'end_turn' } },
      { type: 'message_stop' },
    ]);
    const streamed = await eventsOf('anthropic', [
      { type: 'message_start', message: { id: 'm', content: [], stop_reason: null } },
      { type: 'content_block_start', index: 0, content_block: call },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: result },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
      { type: 'message_stop' },
    ]);
    expect(whole).toEqual(streamed);
    expect(whole[0]).toMatchObject({ part: { type: 'tool-call-start', toolCallId: 'srvtoolu_1', providerExecuted: true } });
    expect(whole).toContainEqual(expect.objectContaining({ part: expect.objectContaining({ type: 'provider-tool-result', toolCallId: 'srvtoolu_1' }) }));
  });

  it('ProviderEventStream lets message_delta override the stop_reason of message_start', async () => {
    const events = await eventsOf('anthropic', [
      { type: 'message_start', message: { id: 'm', content: [], stop_reason: 'tool_use' } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'hi' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
      { type: 'message_stop' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'stop', rawReason: 'end_turn' });
  });

  it('ProviderEventStream reports thinking tokens and keeps the thinking signature in the flush', async () => {
    const file = 'anthropic/thinking-signature-then-tool-use-no-args.sse';
    const { slots, finished } = assembleEvents(await eventsOf('anthropic', [bytesOf(file)]));
    expect(slots[0]?.kinds).toEqual(['reasoning']);
    expect(slots[0]?.flushMetadata?.signature).toMatch(/^E/);
    expect(finished?.usage).toMatchObject({ inputTokens: 598, outputTokens: 92, totalTokens: 690, reasoningTokens: 53 });
  });

  it('ProviderEventStream gives a server tool call providerExecuted and its result block a provider-tool-result part', async () => {
    const file = 'anthropic/server-tool-use-code-execution-escapes-emoji.sse';
    const events = await eventsOf('anthropic', [bytesOf(file)]);
    expect(events.filter((e) => e.type === 'part' && e.index === 3)).toEqual([
      {
        type: 'part',
        index: 3,
        part: {
          type: 'provider-tool-result',
          toolCallId: 'srvtoolu_01MwXaweAHve88x6s3Fc8x6Q',
          toolName: 'bash_code_execution',
          result: { type: 'bash_code_execution_result', stdout: '-428330955.97745\n', stderr: '', return_code: 0, content: [] },
        },
      },
    ]);
    expect(events.find((e) => e.type === 'flush' && e.index === 3)?.metadata).toEqual({ blockType: 'bash_code_execution_tool_result' });
    const { slots } = assembleEvents(events);
    expect(slots.find((s) => s.index === 2)?.providerExecuted).toBe(true);
    expect(slots.find((s) => s.index === 2)?.partMetadata).toMatchObject({ blockType: 'server_tool_use' });
    // The keycap emoji split over two deltas is whole once concatenated.
    expect(slots.find((s) => s.index === 4)?.text).toContain('1\uFE0F\u20E3');
    expect(slots.find((s) => s.index === 4)?.text).not.toContain('\uFFFD');
  });

  it('ProviderEventStream flushes the truncated tool block at message_stop, with arguments that are not JSON', async () => {
    const events = await eventsOf('anthropic', [bytesOf('anthropic/tool-use-truncated-max-tokens.sse')]);
    const flushAt = events.findIndex((e) => e.type === 'flush' && e.index === 1);
    expect(flushAt).toBe(events.length - 2);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'length', rawReason: 'max_tokens' });
    const call = assembleEvents(events).toolCalls[0];
    expect(() => JSON.parse(call?.args ?? '')).toThrow();
  });

  it('ProviderEventStream ignores pings and unknown event types', async () => {
    const text = textOf('anthropic/text-then-tool-use.sse');
    const padded = text.replace(
      'event: content_block_stop',
      'event: ping\ndata: {"type": "ping"}\n\nevent: future_thing\ndata: {"type":"future_thing","index":0}\n\nevent: content_block_stop',
    );
    expect(padded).not.toBe(text);
    expect(await eventsOf('anthropic', [padded])).toEqual(await eventsOf('anthropic', [text]));
  });

  it('ProviderEventStream delivers the events before an error event, then errors with the provider error', async () => {
    const records = splitSse(textOf('anthropic/text-then-tool-use.sse'));
    const text =
      records
        .slice(0, 5)
        .map((r) => `event: ${r.event}\ndata: ${r.data}\n\n`)
        .join('') + 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const { events, error } = await runStream('anthropic', [text]);
    expect(events).toEqual([
      { type: 'part', index: 0, part: { type: 'message', text: 'I' } },
      { type: 'part', index: 0, part: { type: 'message', text: "'ll check the current weather in Paris for you." } },
    ]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'anthropic', type: 'overloaded_error', message: 'Overloaded' });
  });

  it('ProviderEventStream flushes every open block and emits no finished when the stream stops between events, then errors with truncated', async () => {
    const records = splitSse(textOf('anthropic/text-then-tool-use.sse'));
    const text = records
      .slice(0, 9)
      .map((r) => `event: ${r.event}\ndata: ${r.data}\n\n`)
      .join('');
    const { events, error } = await runStream('anthropic', [text]);
    expect(error).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'truncated', message: expect.stringContaining('the last "content_block_delta"') });
    expect(events.at(-1)).toEqual({ type: 'flush', index: 1, metadata: { endOfInput: true } });
    expect(events.some((e) => e.type === 'finished')).toBe(false);
    expect(assembleEvents(events).toolCalls[0]?.args).toBe('{"locati');
  });

  it('ProviderEventStream emits finished at the end when message_delta came without message_stop', async () => {
    const text = textOf('anthropic/text-then-tool-use.sse').replace(/event: message_stop\ndata: .*\n/, '');
    const events = await eventsOf('anthropic', [text]);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'tool-calls', rawReason: 'tool_use' });
  });

  it('ProviderEventStream emits a non-empty id or name once and never overwrites it with an empty one', async () => {
    const objects = [
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: '', name: 'lookup', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_x', name: 'whole', input: { a: 1 } } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_stop' },
    ];
    expect(await eventsOf('anthropic', objects)).toEqual([
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: '', toolName: 'lookup' } },
      { type: 'flush', index: 0 },
      { type: 'flush', index: 1, metadata: { redactedThinking: 'opaque' } },
      { type: 'part', index: 2, part: { type: 'tool-call-start', toolCallId: 'toolu_x', toolName: 'whole' } },
      { type: 'part', index: 2, part: { type: 'tool-call-arguments', chunk: '{"a":1}' } },
      { type: 'flush', index: 2 },
    ]);
  });
});
