import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { EventStreamDecoder, EventStreamEncoder, NdjsonDecoder, NdjsonEncoder, type PipelineEvent } from '../../src/index.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { cuttings, oneByOne, streamOf } from '../helpers.ts';
import { manifestRecordings } from '../manifest.ts';
import { decode, encode, eventsThen, expectSame, made, STAGES } from '../relay/relay-helpers.ts';
import { assembleEvents, bytesOf, eventsOf, runStream, sseObjects, textOf, unflushedSlots } from './event-stream-helpers.ts';


type ResponsesEvent = {
  type: string;
  output_index?: number;
  content_index?: number;
  delta?: string;
  text?: string;
  item?: { type: string; id: string; encrypted_content?: string };
};

/** Test-side oracle: message text per item id and reasoning text per item id, from the deltas. */
function itemTexts(text: string): {
  messages: Map<number, string>;
  reasoning: Map<number, string>;
  refusals: Map<number, string>;
  encrypted: Map<string, string>;
} {
  const messages = new Map<number, string>();
  const reasoning = new Map<number, string>();
  const refusals = new Map<number, string>();
  const encrypted = new Map<string, string>();
  for (const event of sseObjects(text) as ResponsesEvent[]) {
    const at = event.output_index ?? -1;
    if (event.type === 'response.output_text.delta') messages.set(at, (messages.get(at) ?? '') + event.delta);
    // A final text continuing the deltas completes them; one that does not leaves them as they are.
    if (event.type === 'response.output_text.done' && event.text?.startsWith(messages.get(at) ?? '')) messages.set(at, event.text);
    if (event.type === 'response.refusal.delta') refusals.set(at, (refusals.get(at) ?? '') + event.delta);
    if (event.type === 'response.reasoning_summary_text.delta' || event.type === 'response.reasoning_text.delta') {
      reasoning.set(at, (reasoning.get(at) ?? '') + event.delta);
    }
    if (event.type === 'response.output_item.done' && event.item?.encrypted_content) {
      encrypted.set(event.item.id, event.item.encrypted_content);
    }
  }
  return { messages, reasoning, refusals, encrypted };
}

describe('ProviderEventStream with provider openai-responses, on every recording', () => {
  const recordings = manifestRecordings('openai-responses');

  it('ProviderEventStream covers every Responses recording of the manifest', () => {
    expect(recordings).toHaveLength(13);
  });

  for (const recording of recordings) {
    describe(recording.file, () => {
      const bytes = bytesOf(recording.file);

      if (recording.errors !== undefined) {
        const [expectedError] = JSON.parse(recording.errors) as Array<{ type: string; code: string; message: string }>;
        for (const [cutting, chunks] of cuttings(bytes)) {
          it(`ProviderEventStream errors with the provider's error (${cutting})`, async () => {
            const { events, error } = await runStream('openai-responses', chunks);
            expect(events).toEqual([]);
            expect(error).toBeInstanceOf(ProviderError);
            expect(error).toMatchObject({
              provider: 'openai-responses',
              type: expectedError?.type,
              code: expectedError?.code,
              message: expectedError?.message,
            });
          });
        }
        return;
      }

      for (const seed of [1, 2, 3]) {
        for (const [cutting, chunks] of cuttings(bytes, seed)) {
          if (seed > 1 && cutting !== `random cuts (seed ${seed})`) continue;
          it(`ProviderEventStream assembles the manifest's tool calls, texts and finish (${cutting})`, async () => {
            const events = await eventsOf('openai-responses', chunks);
            const assembly = assembleEvents(events);
            expect(unflushedSlots(assembly)).toEqual([]);
            // Slots are numbered in order of appearance.
            expect(assembly.slots.map((s) => s.index)).toEqual(assembly.slots.map((_, i) => i));

            expect(
              assembly.toolCalls.map((c) => ({ id: c.id, name: c.name, itemId: c.partMetadata.itemId, args: c.args })),
            ).toEqual(recording.toolCalls.map((c) => ({ id: c.id, name: c.name, itemId: c.itemId, args: c.args })));
            for (const call of assembly.toolCalls) expect(call.flushMetadata).toEqual({ itemId: call.partMetadata.itemId });
            // Hosted calls (a web search) are the provider's, each followed by its result.
            expect(assembly.providerToolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args }))).toEqual(
              recording.providerToolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
            );
            const results = assembly.slots.flatMap((s) => (s.result === undefined ? [] : [s.result.toolCallId]));
            expect(results).toEqual(recording.providerToolCalls.map((c) => c.id));

            expect(JSON.parse(recording.finish)).toBe('completed');
            expect(assembly.finished).toMatchObject({
              reason: recording.toolCalls.length > 0 ? 'tool-calls' : 'stop',
              rawReason: 'completed',
            });

            const oracle = itemTexts(textOf(recording.file));
            const messageSlots = assembly.slots.filter((s) => s.kinds.includes('message'));
            expect(messageSlots.map((s) => [s.flushMetadata?.outputIndex, s.text])).toEqual([...oracle.messages]);
            const refusalSlots = assembly.slots.filter((s) => s.kinds.includes('refusal'));
            expect(refusalSlots.map((s) => [s.flushMetadata?.outputIndex, s.refusal])).toEqual([...oracle.refusals]);
            const reasoningSlots = assembly.slots.filter((s) => s.kinds.includes('reasoning'));
            expect(reasoningSlots.map((s) => s.reasoning)).toEqual([...oracle.reasoning.values()]);
            for (const [itemId, encrypted] of oracle.encrypted) {
              const slot = assembly.slots.find((s) => s.flushMetadata?.itemId === itemId);
              expect(slot?.flushMetadata?.encryptedContent).toBe(encrypted);
            }
          });
        }
      }

      it('ProviderEventStream gives the same events for the SDK event objects as for the bytes', async () => {
        const fromBytes = await eventsOf('openai-responses', [bytes]);
        const fromObjects = await eventsOf('openai-responses', sseObjects(textOf(recording.file)) as object[]);
        expect(fromObjects).toEqual(fromBytes);
      });
    });
  }
});

describe('ProviderEventStream with provider openai-responses, final texts', () => {
  const finalText = 'I’ll check the capital lookup tool for “PotatoLand.”';

  it('ProviderEventStream completes text and arguments from the .done events when the deltas are a prefix of them', async () => {
    const events = await eventsOf('openai-responses', [bytesOf('openai-responses/handmade-done-completes-text-and-arguments.sse')]);
    const { slots, toolCalls } = assembleEvents(events);
    const message = slots.find((s) => s.kinds.includes('message'));
    expect(message?.text).toBe(finalText);
    expect(message?.flushMetadata?.textMismatch).toBeUndefined();
    expect(toolCalls[0]?.args).toBe('{"country":"PotatoLand"}');
    // What the deltas lacked comes as one part each, from the first .done event.
    const tail = events.filter((e) => e.type === 'part' && (e.index === message?.index || e.index === toolCalls[0]?.index)).slice(-1);
    expect(tail).toEqual([{ type: 'part', index: toolCalls[0]?.index, part: { type: 'tool-call-arguments', chunk: 'Land"}' } }]);
    expect(events).toContainEqual({ type: 'part', index: message?.index, part: { type: 'message', text: 'Land.”' } });
  });

  it('ProviderEventStream appends nothing to text deltas the final text does not continue, and flags the flush with the final text', async () => {
    const file = 'openai-responses/handmade-text-deltas-disagree-with-done.sse';
    const events = await eventsOf('openai-responses', [bytesOf(file)]);
    const message = assembleEvents(events).slots.find((s) => s.kinds.includes('message'));
    expect(message?.text).toBe('I’ll check THE capital lookup tool for “PotatoLand.”');
    expect(message?.flushMetadata).toMatchObject({ textMismatch: true, finalText });
    // The final text wins in the turn.
    const turn = await collectTurn(streamOf([bytesOf(file)]).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' })));
    expect(turn.text).toBe(finalText);
  });

  it('ProviderEventStream errors with text-mismatch when the final arguments do not continue the streamed ones', async () => {
    const text = textOf('openai-responses/function-call.sse').replace('"delta":"France"', '"delta":"Spain"');
    expect(text).not.toBe(textOf('openai-responses/function-call.sse'));
    const { events, error } = await runStream('openai-responses', [text]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'openai-responses', type: 'text-mismatch' });
    expect((error as ProviderError).cause).toMatchObject({ streamed: '{"country":"Spain"}', final: '{"country":"France"}' });
    // Nothing was appended to the streamed arguments.
    expect(assembleEvents(events).toolCalls[0]?.args).toBe('{"country":"Spain"}');
  });
});

describe('ProviderEventStream with provider openai-responses, details', () => {
  it('ProviderEventStream emits the function call of function-call.sse exactly, with usage', async () => {
    const events = await eventsOf('openai-responses', [bytesOf('openai-responses/function-call.sse')]);
    const itemId = 'fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2';
    expect(events[0]).toEqual({
      type: 'part',
      index: 0,
      part: { type: 'tool-call-start', toolCallId: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', toolName: 'get_capital' },
      metadata: { itemId },
    });
    expect(events.filter((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toHaveLength(5);
    expect(events.at(-2)).toEqual({ type: 'flush', index: 0, metadata: { itemId } });
    expect(events.at(-1)).toMatchObject({
      type: 'finished',
      reason: 'tool-calls',
      rawReason: 'completed',
      usage: { inputTokens: 255, outputTokens: 16, totalTokens: 271, reasoningTokens: 0, cachedInputTokens: 0 },
      metadata: { responseId: 'resp_67e554a155508191900ee113293c4c830794405d35281ae2', status: 'completed' },
    });
  });

  it('ProviderEventStream takes the arguments from .done when a server sends no deltas (LM Studio)', async () => {
    const events = await eventsOf('openai-responses', [bytesOf('openai-responses/lmstudio-reasoning-text-function-call-no-deltas.sse')]);
    const chunks = events.flatMap((e) => (e.type === 'part' && e.part.type === 'tool-call-arguments' ? [e.part.chunk] : []));
    expect(chunks).toEqual(['{"location":"San Francisco"}']);
    const finished = events.at(-1);
    expect(finished).toMatchObject({ usage: { inputTokens: 182, outputTokens: 61, reasoningTokens: 48, cachedInputTokens: 2 } });
  });

  it('ProviderEventStream completes arguments from .done when the deltas stopped short, and slots parallel calls apart', async () => {
    const events = await eventsOf('openai-responses', [
      { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'fc_a', call_id: 'call_a', name: 'f', arguments: '' } },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', id: 'fc_b', call_id: 'call_b', name: 'g', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_b', output_index: 1, delta: '{"y":' },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_a', output_index: 0, delta: '{"x"' },
      { type: 'response.function_call_arguments.done', item_id: 'fc_a', output_index: 0, arguments: '{"x":1}' },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_b', output_index: 1, delta: '2}' },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc_b', call_id: 'call_b', name: 'g', arguments: '{"y":2}' } },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: 'fc_a', call_id: 'call_a', name: 'f', arguments: '{"x":1}' } },
      { type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } },
    ]);
    const { toolCalls, finished } = assembleEvents(events);
    expect(toolCalls.map((c) => [c.index, c.id, c.name, c.args])).toEqual([
      [0, 'call_a', 'f', '{"x":1}'],
      [1, 'call_b', 'g', '{"y":2}'],
    ]);
    expect(finished).toMatchObject({ reason: 'length', rawReason: 'max_output_tokens' });
  });

  it('ProviderEventStream gives each message content part a slot, with refusals and annotations in the flush', async () => {
    const events = await eventsOf('openai-responses', [
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1', phase: 'final_answer', content: [] } },
      { type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' },
      { type: 'response.content_part.done', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Hi!', annotations: [{ type: 'url_citation' }] } },
      { type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 1, part: { type: 'refusal', refusal: '' } },
      { type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 1, delta: 'No.' },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: 'msg_1', phase: 'final_answer', content: [] } },
      { type: 'response.completed', response: { status: 'completed', output: [] } },
    ]);
    expect(events).toEqual([
      { type: 'part', index: 0, part: { type: 'message', text: 'Hi' } },
      { type: 'part', index: 0, part: { type: 'message', text: '!' } },
      {
        type: 'flush',
        index: 0,
        metadata: { itemId: 'msg_1', outputIndex: 0, contentIndex: 0, phase: 'final_answer', annotations: [{ type: 'url_citation' }] },
      },
      { type: 'part', index: 1, part: { type: 'refusal', text: 'No.' } },
      { type: 'flush', index: 1, metadata: { itemId: 'msg_1', outputIndex: 0, contentIndex: 1, phase: 'final_answer', refusal: true } },
      { type: 'finished', reason: 'stop', rawReason: 'completed', metadata: { status: 'completed' } },
    ]);
  });

  it('ProviderEventStream reports hosted calls as the provider\'s, with their results, and the application\'s other calls as tool calls', async () => {
    const events = await eventsOf('openai-responses', [
      { type: 'response.output_item.added', output_index: 0, item: { type: 'mcp_call', id: 'mcp_1', name: 'roll', server_label: 'dice', arguments: '' } },
      { type: 'response.mcp_call_arguments.delta', output_index: 0, item_id: 'mcp_1', delta: '{"sides":' },
      { type: 'response.mcp_call_arguments.delta', output_index: 0, item_id: 'mcp_1', delta: '6}' },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'mcp_call', id: 'mcp_1', name: 'roll', server_label: 'dice', arguments: '{"sides":6}', output: null, error: 'server down', status: 'failed' } },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_c', name: 'grammar', input: '' } },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_c', name: 'grammar', input: 'a "b"' } },
      { type: 'response.output_item.added', output_index: 2, item: { type: 'shell_call', id: 'sh_1', call_id: 'call_s', status: 'in_progress', environment: { type: 'container_reference', container_id: 'cntr_1' } } },
      { type: 'response.output_item.done', output_index: 2, item: { type: 'shell_call', id: 'sh_1', call_id: 'call_s', status: 'completed', action: { commands: ['ls'] }, environment: { type: 'container_reference', container_id: 'cntr_1' } } },
      { type: 'response.output_item.added', output_index: 3, item: { type: 'computer_call', id: 'cu_1', call_id: 'call_u', status: 'in_progress', pending_safety_checks: [] } },
      { type: 'response.output_item.done', output_index: 3, item: { type: 'computer_call', id: 'cu_1', call_id: 'call_u', status: 'completed', action: { type: 'click', x: 1, y: 2, button: 'left' }, pending_safety_checks: [] } },
      { type: 'response.completed', response: { status: 'completed', output: [] } },
    ]);
    const assembled = assembleEvents(events);
    expect(assembled.providerToolCalls.map((c) => [c.index, c.id, c.name, c.args])).toEqual([
      [0, 'mcp_1', 'roll', '{"sides":6}'],
      [3, 'sh_1', 'shell', '{"commands":["ls"]}'],
    ]);
    expect(assembled.slots.flatMap((s) => (s.result === undefined ? [] : [[s.index, s.result]]))).toEqual([
      [1, { type: 'provider-tool-result', toolCallId: 'mcp_1', toolName: 'roll', result: { output: null, error: 'server down', status: 'failed' }, isError: true }],
      [4, { type: 'provider-tool-result', toolCallId: 'sh_1', toolName: 'shell', result: { status: 'completed', environment: { type: 'container_reference', container_id: 'cntr_1' } } }],
    ]);
    expect(assembled.toolCalls.map((c) => [c.index, c.id, c.name, c.args, c.flushMetadata])).toEqual([
      [2, 'call_c', 'grammar', '"a \\"b\\""', { itemId: 'ctc_1', itemType: 'custom_tool_call' }],
      [5, 'call_u', 'computer', '{"type":"click","x":1,"y":2,"button":"left"}', { itemId: 'cu_1', itemType: 'computer_call' }],
    ]);
    expect(assembled.finished).toMatchObject({ reason: 'tool-calls', rawReason: 'completed' });
  });

  it('ProviderEventStream streams a custom tool\'s free-text input as the JSON string that is its arguments', async () => {
    const input = 'say "hi"\n🙂 done';
    const events = await eventsOf('openai-responses', [
      { type: 'response.output_item.added', output_index: 0, item: { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_c', name: 'grammar', input: '' } },
      // The emoji's surrogate pair is split across two deltas.
      { type: 'response.custom_tool_call_input.delta', output_index: 0, item_id: 'ctc_1', delta: 'say "hi"\n\uD83D' },
      { type: 'response.custom_tool_call_input.delta', output_index: 0, item_id: 'ctc_1', delta: '\uDE42 do' },
      { type: 'response.custom_tool_call_input.delta', output_index: 0, item_id: 'ctc_1', delta: 'ne' },
      { type: 'response.custom_tool_call_input.done', output_index: 0, item_id: 'ctc_1', input },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_c', name: 'grammar', input } },
      { type: 'response.completed', response: { status: 'completed', output: [] } },
    ]);
    const chunks = events.flatMap((e) => (e.type === 'part' && e.part.type === 'tool-call-arguments' ? [e.part.chunk] : []));
    expect(chunks).toEqual(['"say \\"hi\\"\\n', '🙂 do', 'ne', '"']);
    expect(JSON.parse(chunks.join(''))).toBe(input);
    expect(assembleEvents(events).toolCalls.map((c) => [c.id, c.name])).toEqual([['call_c', 'grammar']]);
  });

  it('ProviderEventStream errors on response.failed, and reads the flat error shape', async () => {
    const failed = await runStream('openai-responses', [
      'event: response.failed\ndata: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}\n\n',
    ]);
    expect(failed.error).toMatchObject({ provider: 'openai-responses', type: 'server_error', code: 'server_error', message: 'boom' });
    const flat = await runStream('openai-responses', [
      'event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}\n\n',
    ]);
    expect(flat.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'rate_limit_exceeded', message: 'slow down' });
  });

  it('ProviderEventStream flushes open items and emits no finished when no terminal event came, then errors with truncated', async () => {
    const text = textOf('openai-responses/function-call.sse');
    const cut = text.slice(0, text.indexOf('event: response.function_call_arguments.done'));
    const { events, error } = await runStream('openai-responses', [cut]);
    expect(error).toMatchObject({ provider: 'openai-responses', type: 'invalid-stream', code: 'truncated' });
    expect(events.at(-1)).toMatchObject({ type: 'flush', index: 0 });
    expect(events.some((e) => e.type === 'finished')).toBe(false);
    expect(assembleEvents(events).toolCalls[0]?.args).toBe('{"country":"France"}');
  });
});

// ---------------------------------------------------------------------------------------------
// Sequence gaps: events a proxy dropped, recovered from the final texts that follow.

/** A recording's SSE events as the wire carried them, one block an event, with its `sequence_number` and type. */
function sseBlocks(file: string): Array<{ readonly text: string; readonly sequence: number; readonly type: string }> {
  const text = textOf(file);
  const blocks = text.split(/(?<=\n\n)/);
  if (blocks.join('') !== text) throw new Error(`${file} is not blank-line separated SSE events`);
  let first: number | undefined;
  return blocks.map((block, i) => {
    const data = JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { type: string; sequence_number: number };
    // The recordings number their events one by one (from 0, or 1).
    first ??= data.sequence_number;
    if (data.sequence_number !== first + i) throw new Error(`${file}: event ${i} has sequence_number ${data.sequence_number}`);
    return { text: block, sequence: data.sequence_number, type: data.type };
  });
}

/** The bytes of `file` without the events numbered `dropped`, and with `change` applied to the others' data. */
function withoutEvents(file: string, dropped: readonly number[], change?: (data: Record<string, unknown>) => void): Uint8Array {
  const blocks = sseBlocks(file);
  for (const sequence of dropped) if (!blocks.some((b) => b.sequence === sequence)) throw new Error(`${file} has no event ${sequence}`);
  const kept = blocks.filter((b) => !dropped.includes(b.sequence));
  const text = kept
    .map((b) => {
      if (change === undefined) return b.text;
      const data = JSON.parse(b.text.slice(b.text.indexOf('data: ') + 6)) as Record<string, unknown>;
      change(data);
      return `event: ${b.type}\ndata: ${JSON.stringify(data)}\n\n`;
    })
    .join('');
  return new TextEncoder().encode(text);
}

const gap = (expected: number, received: number) => ({ type: 'sequence-gap', expected, received }) as const;

describe('ProviderEventStream with provider openai-responses, sequence gaps', () => {
  const file = 'openai-responses/reasoning-commentary-text-then-function-call-unicode.sse';
  const recording = manifestRecordings('openai-responses').find((r) => r.file === file);
  const expectedCalls = (recording?.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, itemId: c.itemId, args: c.args }));
  const messageText = 'I’ll check the capital lookup tool for “PotatoLand.”';
  const textDeltas = ['I', '’ll', ' check', ' the', ' capital', ' lookup', ' tool', ' for', ' “', 'Pot', 'ato', 'Land', '.”'];
  const argumentDeltas = ['{"', 'country', '":"', 'Pot', 'ato', 'Land', '"}'];
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('ProviderEventStream is given the recording the gap tests cut events from', () => {
    const blocks = sseBlocks(file);
    expect(expectedCalls).toEqual([
      { id: 'call_LabG58Uhrq9kZvR52BYKjToD', name: 'get_capital', itemId: 'fc_0fabc13af1ee0049006a691dff0c1481a1b4a0eec7e3c753bb', args: '{"country":"PotatoLand"}' },
    ]);
    // 6–18 the text deltas, 19–21 the message's done events; 22 the call's added, 23–29 its
    // argument deltas, 30–31 its done events; 32 response.completed.
    expect(blocks.map((b) => b.type)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', ...textDeltas.map(() => 'response.output_text.delta'),
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', ...argumentDeltas.map(() => 'response.function_call_arguments.delta'),
      'response.function_call_arguments.done', 'response.output_item.done', 'response.completed',
    ]);
  });

  // What is dropped, and the gaps the finished event names.
  const CASES: ReadonlyArray<readonly [string, readonly number[], ReadonlyArray<ReturnType<typeof gap>>]> = [
    ['a text delta', [10], [gap(10, 11)]],
    ['the first text delta, with its content_part.added', [5, 6], [gap(5, 7)]],
    ['several text deltas in a row', range(11, 14), [gap(11, 15)]],
    ['the last text delta', [18], [gap(18, 19)]],
    ['an argument delta', [26], [gap(26, 27)]],
    ['the first argument delta of the call', [23], [gap(23, 24)]],
    ['the last argument delta of the call', [29], [gap(29, 30)]],
    ['several argument deltas in a row', range(24, 27), [gap(24, 28)]],
    ['a text delta and an argument delta', [10, 26], [gap(10, 11), gap(26, 27)]],
    ['the call’s output_item.added and its first argument delta', [22, 23], [gap(22, 24)]],
    ['a text delta and output_text.done (content_part.done settles the text)', [10, 19], [gap(10, 11), gap(19, 20)]],
    ['an argument delta and function_call_arguments.done (output_item.done settles them)', [26, 30], [gap(26, 27), gap(30, 31)]],
    ['a text delta and every done event of its message (response.completed settles the text)', [10, 19, 20, 21], [gap(10, 11), gap(19, 22)]],
    ['an argument delta and both done events of its call (response.completed settles them)', [26, 30, 31], [gap(26, 27), gap(30, 32)]],
    ['every event of the call (response.completed gives it back)', range(22, 31), [gap(22, 32)]],
  ];

  for (const [what, dropped, warnings] of CASES) {
    const bytes = withoutEvents(file, dropped);
    for (const [cutting, chunks] of cuttings(bytes)) {
      it(`ProviderEventStream recovers the turn from the final texts when a gap drops ${what} (${cutting})`, async () => {
        const events = await eventsOf('openai-responses', chunks);
        const assembly = assembleEvents(events);
        expect(unflushedSlots(assembly)).toEqual([]);
        expect(assembly.toolCalls.map((c) => ({ id: c.id, name: c.name, itemId: c.partMetadata.itemId, args: c.args }))).toEqual(expectedCalls);
        expect(assembly.slots.filter((s) => s.kinds.includes('message')).map((s) => s.text)).toEqual([messageText]);
        expect(assembly.finished).toMatchObject({ type: 'finished', reason: 'tool-calls', rawReason: 'completed' });
        expect(assembly.finished?.warnings).toEqual(warnings);

        const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' })));
        expect(turn.toolCalls.map((c) => [c.toolCallId, c.toolName, c.arguments])).toEqual(
          expectedCalls.map((c) => [c.id, c.name, JSON.parse(c.args)]),
        );
        expect(turn.text).toBe(messageText);
        expect(turn.warnings).toEqual(warnings);
      });
    }
  }

  it('ProviderEventStream emits only what the deltas before a gap lacked, as one part from the final text', async () => {
    const events = await eventsOf('openai-responses', [withoutEvents(file, [10, 26])]);
    const texts = events.flatMap((e) => (e.type === 'part' && e.part.type === 'message' ? [e.part.text] : []));
    const chunks = events.flatMap((e) => (e.type === 'part' && e.part.type === 'tool-call-arguments' ? [e.part.chunk] : []));
    // The deltas after a gap are held back; the final text's rest replaces them.
    expect(texts).toEqual([...textDeltas.slice(0, 4), textDeltas.slice(4).join('')]);
    expect(texts.at(-1)).toBe(' capital lookup tool for “PotatoLand.”');
    expect(chunks).toEqual([...argumentDeltas.slice(0, 3), 'PotatoLand"}']);
  });

  it('ProviderEventStream emits no warnings and all deltas when nothing is lost', async () => {
    const events = await eventsOf('openai-responses', [bytesOf(file)]);
    expect(events.at(-1)).not.toHaveProperty('warnings');
    expect(events.flatMap((e) => (e.type === 'part' && e.part.type === 'message' ? [e.part.text] : []))).toEqual(textDeltas);
    const turn = await collectTurn(streamOf([bytesOf(file)]).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' })));
    expect(turn.warnings).toEqual([]);
  });

  it('ProviderEventStream recovers reasoning summary text from its .done events, or from response.completed', async () => {
    const reasoningFile = 'openai-responses/reasoning-summary-then-function-call.sse';
    const summary =
      "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.";
    const call = manifestRecordings('openai-responses').find((r) => r.file === reasoningFile)?.toolCalls[0];
    expect(call?.args).toBe('{"a":12,"b":7,"op":"add"}');
    // 4–35 the summary deltas, 36–38 the reasoning's done events; 40–52 the argument deltas.
    const cases: Array<[number[], Array<ReturnType<typeof gap>>]> = [
      [[12], [gap(12, 13)]],
      [[4], [gap(4, 5)]],
      [[12, 36, 37, 38, 45], [gap(12, 13), gap(36, 39), gap(45, 46)]],
    ];
    for (const [dropped, warnings] of cases) {
      for (const [cutting, chunks] of cuttings(withoutEvents(reasoningFile, dropped))) {
        const { slots, toolCalls, finished } = assembleEvents(await eventsOf('openai-responses', chunks));
        expect(slots.filter((s) => s.kinds.includes('reasoning')).map((s) => s.reasoning), cutting).toEqual([summary]);
        expect(toolCalls.map((c) => [c.id, c.name, c.args]), cutting).toEqual([[call?.id, call?.name, call?.args]]);
        expect(finished?.warnings, cutting).toEqual(warnings);
      }
    }
  });

  // Something a gap dropped that no final text gives back: the stream errors, and what was
  // emitted before is never followed by text from after the gap.
  const LOSSES: ReadonlyArray<readonly [string, Uint8Array, string, ReturnType<typeof gap>, string, string]> = [
    [
      'the stream ends before the message’s final texts',
      withoutEvents(file, [10, ...range(16, 32)]),
      'msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce',
      gap(10, 11),
      textDeltas.slice(0, 4).join(''),
      '',
    ],
    [
      'the stream ends before the call’s final arguments',
      withoutEvents(file, [26, 28, 30, 31, 32]),
      'fc_0fabc13af1ee0049006a691dff0c1481a1b4a0eec7e3c753bb',
      gap(26, 27),
      messageText,
      argumentDeltas.slice(0, 3).join(''),
    ],
    [
      'the call’s done events are lost too, and response.completed has no output',
      withoutEvents(file, [26, 30, 31], (data) => {
        if (data.type === 'response.completed') (data.response as Record<string, unknown>).output = [];
      }),
      'fc_0fabc13af1ee0049006a691dff0c1481a1b4a0eec7e3c753bb',
      gap(26, 27),
      messageText,
      argumentDeltas.slice(0, 3).join(''),
    ],
    [
      'the message’s done events are lost too, and response.completed has no output',
      withoutEvents(file, [10, 19, 20, 21], (data) => {
        if (data.type === 'response.completed') (data.response as Record<string, unknown>).output = [];
      }),
      'msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce',
      gap(10, 11),
      textDeltas.slice(0, 4).join(''),
      // The call came after the gaps, whole.
      '{"country":"PotatoLand"}',
    ],
  ];

  for (const [what, bytes, itemId, lostGap, text, args] of LOSSES) {
    for (const [cutting, chunks] of cuttings(bytes)) {
      it(`ProviderEventStream errors with code sequence-gap when ${what} (${cutting})`, async () => {
        const { events, error } = await runStream('openai-responses', chunks);
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ provider: 'openai-responses', type: 'invalid-stream', code: 'sequence-gap' });
        expect((error as ProviderError).cause).toMatchObject({ itemId, gap: lostGap });
        expect((error as ProviderError).message).toContain(`sequence_number skipped from ${lostGap.expected - 1} to ${lostGap.received}`);
        expect(events.some((e) => e.type === 'finished')).toBe(false);
        const assembly = assembleEvents(events);
        expect(assembly.slots.filter((s) => s.kinds.includes('message')).map((s) => s.text).join('')).toBe(text);
        expect(assembly.toolCalls.map((c) => c.args).join('')).toBe(args);
      });
    }
  }

  // A number that goes back is an event out of order or seen twice: still an error.
  const blocks = sseBlocks(file);
  const reordered = (order: readonly number[]) => new TextEncoder().encode(order.map((i) => blocks[i]?.text ?? '').join(''));
  const BACKWARDS: ReadonlyArray<readonly [string, Uint8Array, string, string]> = [
    ['two text deltas swapped', reordered([...range(0, 9), 11, 10, ...range(12, 32)]), 'out-of-order', textDeltas.slice(0, 4).join('')],
    ['a text delta repeated', reordered([...range(0, 10), 10, ...range(11, 32)]), 'duplicate', textDeltas.slice(0, 5).join('')],
    ['an event from before a gap replayed after it', reordered([...range(0, 9), ...range(11, 13), 8, ...range(13, 32)]), 'duplicate', textDeltas.slice(0, 4).join('')],
  ];
  for (const [what, bytes, code, text] of BACKWARDS) {
    for (const [cutting, chunks] of cuttings(bytes)) {
      it(`ProviderEventStream errors with code ${code} when ${what} (${cutting})`, async () => {
        const { events, error } = await runStream('openai-responses', chunks);
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ provider: 'openai-responses', type: 'invalid-stream', code });
        expect(assembleEvents(events).slots.filter((s) => s.kinds.includes('message')).map((s) => s.text).join('')).toBe(text);
        expect(events.some((e) => e.type === 'finished')).toBe(false);
      });
    }
  }

  it('ProviderEventStream’s gap warnings pass through every stage and both relay encodings unchanged', async () => {
    const warnings = [gap(10, 11), gap(26, 27)];
    const bytes = withoutEvents(file, [10, 26]);
    const recordingStream = () => streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' }));
    for (const [name, stages] of STAGES) {
      const source = await made(recordingStream(), stages);
      expect(source.error, name).toBeUndefined();
      const finishedEvents = source.events.filter((e) => (e as PipelineEvent).type === 'finished');
      expect(finishedEvents, name).toEqual([expect.objectContaining({ type: 'finished', reason: 'tool-calls', warnings })]);
      for (const [encoder, decoder] of [
        [() => new EventStreamEncoder(), () => new EventStreamDecoder()],
        [() => new NdjsonEncoder(), () => new NdjsonDecoder()],
      ] as const) {
        const decoded = await decode(oneByOne(await encode(source, encoder())), decoder());
        expectSame(decoded, source, `${name}, relayed`);
      }
      const turn = await collectTurn(eventsThen(source.events, undefined) as ReadableStream<PipelineEvent>);
      expect(turn.warnings, name).toEqual(warnings);
    }
  });
});

describe('ProviderEventStream with provider openai-responses, any run of events lost', () => {
  /** What a turn is, for comparing a recording with a copy that lost events. */
  const summary = (turn: Turn) => ({
    text: turn.text,
    reasoning: turn.reasoning,
    refusal: turn.refusal,
    structured: turn.structured,
    toolCalls: turn.toolCalls.map((c) => [c.toolCallId, c.toolName, c.arguments]),
    providerToolCalls: turn.providerToolCalls.map((c) => [c.toolCallId, c.toolName, c.arguments, c.result]),
    incomplete: turn.incompleteToolCalls.length + turn.failedToolCalls.length,
    finishReason: turn.finishReason,
  });
  const turnOf = (bytes: Uint8Array) => collectTurn(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' })));

  for (const recording of manifestRecordings('openai-responses')) {
    if (recording.errors !== undefined || !textOf(recording.file).includes('"sequence_number"')) continue;
    it(`ProviderEventStream gives the whole turn of ${recording.file} back when any 1, 2 or 3 events in a row are lost, and names the gap`, async () => {
      const blocks = sseBlocks(recording.file);
      const count = blocks.length;
      const whole = await turnOf(bytesOf(recording.file));
      expect(whole.warnings).toEqual([]);
      expect(whole.toolCalls.map((c) => [c.toolCallId, c.toolName, JSON.stringify(c.arguments)])).toEqual(
        recording.toolCalls.map((c) => [c.id, c.name, JSON.stringify(c.args === '' ? {} : JSON.parse(c.args))]),
      );
      let runs = 0;
      // The first events lost look like a stream resumed later; the terminal event lost, like a cut stream.
      for (let from = 1; from < count - 1; from++) {
        for (let length = 1; length <= 3 && from + length < count; length++) {
          const dropped = blocks.slice(from, from + length).map((b) => b.sequence);
          const turn = await turnOf(withoutEvents(recording.file, dropped));
          expect(summary(turn), `${recording.file} without ${dropped.join(', ')}`).toEqual(summary(whole));
          expect(turn.warnings, `${recording.file} without ${dropped.join(', ')}`).toEqual([gap(blocks[from]?.sequence ?? -1, blocks[from + length]?.sequence ?? -1)]);
          runs++;
        }
      }
      expect(runs).toBe(3 * (count - 2) - 3);
    });
  }
});
