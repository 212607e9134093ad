import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/errors.ts';
import { cuttings } from '../../helpers.ts';
import { manifestRecordings } from '../../manifest.ts';
import { assembleEvents, bytesOf, eventsOf, runStream, sseObjects, textOf, unflushedSlots } from './event-stream-helpers.ts';


type ResponsesEvent = {
  type: string;
  output_index?: number;
  content_index?: number;
  delta?: string;
  item?: { type: string; id: string; encrypted_content?: string };
};

/** Test-side oracle: message text per item id and reasoning text per item id, from the deltas. */
function itemTexts(text: string): { messages: Map<number, string>; reasoning: Map<number, string>; encrypted: Map<string, string> } {
  const messages = new Map<number, string>();
  const reasoning = new Map<number, string>();
  const encrypted = new Map<string, string>();
  for (const event of sseObjects(text) as ResponsesEvent[]) {
    const at = event.output_index ?? -1;
    if (event.type === 'response.output_text.delta') messages.set(at, (messages.get(at) ?? '') + event.delta);
    if (event.type === 'response.reasoning_summary_text.delta' || event.type === 'response.reasoning_text.delta') {
      reasoning.set(at, (reasoning.get(at) ?? '') + event.delta);
    }
    if (event.type === 'response.output_item.done' && event.item?.encrypted_content) {
      encrypted.set(event.item.id, event.item.encrypted_content);
    }
  }
  return { messages, reasoning, encrypted };
}

describe('ProviderEventStream with provider openai-responses, on every recording', () => {
  const recordings = manifestRecordings('openai-responses');

  it('ProviderEventStream covers every Responses recording of the manifest', () => {
    expect(recordings).toHaveLength(9);
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

            expect(JSON.parse(recording.finish)).toBe('completed');
            expect(assembly.finished).toMatchObject({
              reason: recording.toolCalls.length > 0 ? 'tool-calls' : 'stop',
              rawReason: 'completed',
            });

            const oracle = itemTexts(textOf(recording.file));
            const messageSlots = assembly.slots.filter((s) => s.kinds.includes('message'));
            expect(messageSlots.map((s) => [s.flushMetadata?.outputIndex, s.text])).toEqual([...oracle.messages]);
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
      { type: 'part', index: 1, part: { type: 'message', text: 'No.' } },
      { type: 'flush', index: 1, metadata: { itemId: 'msg_1', outputIndex: 0, contentIndex: 1, phase: 'final_answer', refusal: true } },
      { type: 'finished', reason: 'stop', rawReason: 'completed', metadata: { status: 'completed' } },
    ]);
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
