import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { cuttings, streamOf } from '../helpers.ts';
import { manifestRecordings } from '../manifest.ts';
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

  it('ProviderEventStream flushes open items and emits no finished when no terminal event came', async () => {
    const text = textOf('openai-responses/function-call.sse');
    const cut = text.slice(0, text.indexOf('event: response.function_call_arguments.done'));
    const events = await eventsOf('openai-responses', [cut]);
    expect(events.at(-1)).toMatchObject({ type: 'flush', index: 0 });
    expect(events.some((e) => e.type === 'finished')).toBe(false);
    expect(assembleEvents(events).toolCalls[0]?.args).toBe('{"country":"France"}');
  });
});
