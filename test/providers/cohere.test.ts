import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { createCohereAdapter } from '../../src/providers/cohere.ts';
import type { StreamEvent } from '../../src/types.ts';
import { manifestRecordings } from '../manifest.ts';
import { assembleEvents, bytesOf, eventsOf, runAdapter, runStream, sseObjects, streamCuttings, textOf, unflushedSlots } from './event-stream-helpers.ts';

/** Cohere's finish reasons and what they normalize to (from the v2 chat API reference). */
const FINISH: Record<string, string> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  TOOL_CALL: 'tool-calls',
  MAX_TOKENS: 'length',
  ERROR: 'error',
  TIMEOUT: 'error',
};

/** Test-side oracle: the concatenated `tool_plan` of a recording's `tool-plan-delta` events. */
function toolPlanOf(file: string): string {
  return (sseObjects(textOf(file)) as Array<{ type: string; delta?: { message?: { tool_plan?: string } } }>)
    .filter((e) => e.type === 'tool-plan-delta')
    .map((e) => e.delta?.message?.tool_plan ?? '')
    .join('');
}

describe('ProviderEventStream with provider cohere, on every recording', () => {
  const recordings = manifestRecordings('cohere');

  it('ProviderEventStream covers every Cohere recording of the manifest', () => {
    expect(recordings).toHaveLength(3);
  });

  for (const recording of recordings) {
    describe(recording.file, () => {
      const bytes = bytesOf(recording.file);
      for (const [cutting, chunks] of streamCuttings(bytes)) {
        it(`ProviderEventStream assembles the manifest's tool calls, the tool plan and the finish (${cutting})`, async () => {
          const { events, error } = await runStream('cohere', chunks);
          expect(error).toBeUndefined();
          const assembly = assembleEvents(events);
          expect(unflushedSlots(assembly)).toEqual([]);
          expect(assembly.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args }))).toEqual(
            recording.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
          );
          for (const [i, expected] of recording.toolCalls.entries()) {
            if (expected.args === '') expect(assembly.toolCalls[i]?.argumentChunks).toBe(0);
          }
          const plan = assembly.slots.find((s) => s.partMetadata.toolPlan === true);
          expect(plan?.reasoning).toBe(toolPlanOf(recording.file));
          const rawReason = JSON.parse(recording.finish) as string;
          expect(assembly.finished).toMatchObject({ reason: FINISH[rawReason], rawReason });
        });
      }

      it('ProviderEventStream gives the same events for the SDK event objects as for the bytes', async () => {
        expect(await eventsOf('cohere', sseObjects(textOf(recording.file)) as object[])).toEqual(await eventsOf('cohere', [bytes]));
      });
    });
  }
});

describe('createCohereAdapter, details', () => {
  it('ProviderEventStream emits the tool plan, a call without arguments and the finish of v2-tool-call-no-args exactly', async () => {
    const events = await eventsOf('cohere', [bytesOf('cohere/v2-tool-call-no-args.sse')]);
    const plan = events.filter((e) => e.type === 'part' && e.index === 0);
    expect(plan[0]).toEqual({ type: 'part', index: 0, part: { type: 'reasoning', text: 'I' }, metadata: { toolPlan: true } });
    expect(plan).toHaveLength(12);
    expect(events.slice(plan.length)).toEqual([
      { type: 'flush', index: 0 },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'currentTime_y46ar19t5gvw', toolName: 'currentTime' } },
      { type: 'flush', index: 1 },
      {
        type: 'finished',
        reason: 'tool-calls',
        rawReason: 'TOOL_CALL',
        usage: {
          inputTokens: 1445,
          outputTokens: 43,
          totalTokens: 1488,
          cachedInputTokens: 704,
          raw: { billed_units: { input_tokens: 46, output_tokens: 14 }, tokens: { input_tokens: 1445, output_tokens: 43 }, cached_tokens: 704 },
        },
        metadata: { messageId: '66dec7d7-45e6-427c-8fd9-7d6375d12046' },
      },
    ]);
  });

  it('createCohereAdapter streams text and thinking contents, keeps citations in the flush, and maps finish reasons', () => {
    // Event shapes from Cohere's v2 streaming and RAG streaming guides; written by hand.
    const records = [
      { type: 'message-start', id: 'm1', delta: { message: { role: 'assistant' } } },
      { type: 'content-start', index: 0, delta: { message: { content: { type: 'thinking', thinking: '' } } } },
      { type: 'content-delta', index: 0, delta: { message: { content: { thinking: 'Look it up.' } } } },
      { type: 'content-end', index: 0 },
      { type: 'content-start', index: 1, delta: { message: { content: { type: 'text', text: '' } } } },
      { type: 'content-delta', index: 1, delta: { message: { content: { text: 'Emperor penguins' } } } },
      { type: 'content-delta', index: 1, delta: { message: { content: { text: ' are the tallest.' } } } },
      { type: 'citation-start', index: 0, delta: { message: { citations: { start: 0, end: 16, text: 'Emperor penguins', sources: [{ type: 'document', id: 'doc:0' }] } } } },
      { type: 'citation-end', index: 0 },
      { type: 'content-end', index: 1 },
      { type: 'message-end', delta: { finish_reason: 'COMPLETE', usage: { tokens: { input_tokens: 10, output_tokens: 5 } } } },
    ];
    const { events, error } = runAdapter(createCohereAdapter(), records.map((data) => ({ data, event: data.type })));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'part', index: 0, part: { type: 'reasoning', text: 'Look it up.' } },
      { type: 'flush', index: 0 },
      { type: 'part', index: 1, part: { type: 'message', text: 'Emperor penguins' } },
      { type: 'part', index: 1, part: { type: 'message', text: ' are the tallest.' } },
      {
        type: 'flush',
        index: 1,
        metadata: { citations: [{ start: 0, end: 16, text: 'Emperor penguins', sources: [{ type: 'document', id: 'doc:0' }] }] },
      },
      {
        type: 'finished',
        reason: 'stop',
        rawReason: 'COMPLETE',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, raw: { tokens: { input_tokens: 10, output_tokens: 5 } } },
        metadata: { messageId: 'm1' },
      },
    ] satisfies StreamEvent[]);
    for (const [raw, reason] of Object.entries(FINISH)) {
      const adapter = createCohereAdapter();
      expect(adapter.push({ type: 'message-end', delta: { finish_reason: raw } })).toEqual([{ type: 'finished', reason, rawReason: raw }]);
    }
  });

  it('createCohereAdapter reports a generation error of message-end in the finish, and throws on an error event', () => {
    const adapter = createCohereAdapter();
    expect(adapter.push({ type: 'message-end', delta: { finish_reason: 'ERROR', error: 'internal error' } })).toEqual([
      { type: 'finished', reason: 'error', rawReason: 'ERROR', metadata: { error: 'internal error' } },
    ]);
    expect(() => createCohereAdapter().push({ message: 'too many tokens' })).toThrow(
      expect.objectContaining({ provider: 'cohere', type: 'error', message: 'too many tokens' }),
    );
    expect(() => createCohereAdapter().push('x')).toThrow(ProviderError);
  });

  it('createCohereAdapter flushes open slots at the end of a cut stream and emits no finished', () => {
    const records = sseObjects(textOf('cohere/v2-tool-plan-then-2-tool-calls.sse')).slice(0, 30);
    const { events } = runAdapter(createCohereAdapter(), records.map((data) => ({ data })));
    const assembly = assembleEvents(events);
    expect(unflushedSlots(assembly)).toEqual([]);
    expect(assembly.finished).toBeUndefined();
  });

  it('ProviderEventStream says to ask for stream: true when fed Cohere\'s non-streaming response', async () => {
    const body = '{"id":"5a1c","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}]},"finish_reason":"COMPLETE","usage":{"tokens":{"input_tokens":3,"output_tokens":1}}}';
    const { events, error } = await runStream('cohere', [body]);
    expect(events).toEqual([]);
    expect(error).toMatchObject({ provider: 'cohere', type: 'invalid-stream', code: 'not-sse' });
  });

  it('ProviderEventStream reads Cohere\'s HTTP error body fed as the stream as the provider error', async () => {
    const { events, error } = await runStream('cohere', ['{"id":"4f2a","message":"invalid api token"}']);
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'cohere', type: 'error', message: 'cohere: invalid api token' });
  });
});
