/**
 * Identity: two calls of one turn with one id. A provider (or a proxy, or a model's output relayed
 * as events) can send two calls that share a non-empty id — interleaved Anthropic blocks, OpenAI
 * Chat tool call indexes, or a later call that reuses an ended call's id. No recording of a real
 * provider does (the manifests' only repeated ids are Gemini's empty ones), so the turn builder
 * refuses such a stream with one typed error, `TaggedToolCallError` code
 * `'duplicate-tool-call-id'`, after everything before it — and every consumer built on it
 * (`collectTurn`, `TurnStore`, the stages) agrees. Empty ids, slots reused with new ids, and
 * snapshots that replay a turn are not duplicates.
 */
import { describe, expect, it } from 'vitest';
import {
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  PathUpdateStream,
  ProviderError,
  ProviderEventStream,
  TaggedToolCallError,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  TurnStore,
  collectTurn,
  compactEvents,
  type PipelineEvent,
  type StreamEvent,
} from '../../src/index.ts';
import { UIMessageStreamEncoder } from '../../src/bindings/ai-sdk/server.ts';
import { readAll, settle, streamOf } from '../helpers.ts';

const utf8 = new TextEncoder();

/** Anthropic SSE: a text block, then tool_use blocks 1 and 2 (ids and names given), their input deltas interleaved. */
function anthropicInterleaved(first: string, second: string): Uint8Array {
  const records: Array<[string, unknown]> = [
    ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude', stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Two calls.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: first, name: 'get_weather', input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city": "Par' } }],
    ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: second, name: 'get_time', input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"zone": "CET"}' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'is"}' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    ['content_block_stop', { type: 'content_block_stop', index: 2 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }],
    ['message_stop', { type: 'message_stop' }],
  ];
  return utf8.encode(records.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
}

/** OpenAI Chat SSE: tool call indexes 0 and 1 with the ids given, their arguments interleaved. */
function openaiInterleaved(first: string, second: string): Uint8Array {
  const chunk = (delta: unknown, finish: string | null = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  const records = [
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: first, type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Par' } }] }),
    chunk({ tool_calls: [{ index: 1, id: second, type: 'function', function: { name: 'get_time', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: '{"zone":"CET"}' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
    chunk({}, 'tool_calls'),
  ];
  return utf8.encode(`${records.map((record) => `data: ${JSON.stringify(record)}\n\n`).join('')}data: [DONE]\n\n`);
}

function anthropicEvents(first: string, second: string): ReadableStream<StreamEvent> {
  return streamOf([anthropicInterleaved(first, second)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));
}

function openaiEvents(first: string, second: string): ReadableStream<StreamEvent> {
  return streamOf([openaiInterleaved(first, second)]).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }));
}

/** The relay: SSE bytes and back, as a page gets them. */
function relayed(stream: ReadableStream<unknown>): ReadableStream<PipelineEvent> {
  return stream
    .pipeThrough(new EventStreamEncoder() as unknown as TransformStream<unknown, Uint8Array>)
    .pipeThrough(new EventStreamDecoder() as unknown as TransformStream<Uint8Array, PipelineEvent>);
}

/** The duplicate-id error of the second call: its id, its name, its slot. */
function expectDuplicate(error: unknown, toolCallId: string, toolName: string, index: number): void {
  expect(error).toBeInstanceOf(TaggedToolCallError);
  const duplicate = error as TaggedToolCallError;
  expect([duplicate.code, duplicate.toolCallId, duplicate.toolName, duplicate.index]).toEqual(['duplicate-tool-call-id', toolCallId, toolName, index]);
}

/** Each stage after `ProviderEventStream` the consumers read, by name. */
const STAGES: Readonly<Record<string, (events: ReadableStream<StreamEvent>) => ReadableStream<PipelineEvent>>> = {
  'provider events': (events) => events,
  'relayed provider events': (events) => relayed(events),
  'progress events': (events) => events.pipeThrough(new ToolCallProgressStream()),
  'raw argument deltas': (events) => events.pipeThrough(new ToolCallDeltaStream()),
};

describe('two interleaved calls with one id', () => {
  for (const [provider, make] of [
    ['anthropic', () => anthropicEvents('toolu_X', 'toolu_X')],
    ['openai-chat', () => openaiEvents('call_X', 'call_X')],
  ] as const) {
    const [id, second] = provider === 'anthropic' ? ['toolu_X', 2] : ['call_X', 1];

    it(`collectTurn refuses ${provider}'s two calls with one id with TaggedToolCallError 'duplicate-tool-call-id'`, async () => {
      const error = await collectTurn(make()).then(() => undefined, (reason: unknown) => reason);
      expectDuplicate(error, id, 'get_time', second);
    });

    it(`collectTurn refuses ${provider}'s two calls with one id even with isolateErrors`, async () => {
      const error = await collectTurn(make(), { isolateErrors: true }).then(() => undefined, (reason: unknown) => reason);
      expectDuplicate(error, id, 'get_time', second);
    });

    it(`TurnStore ends ${provider}'s two calls with one id in the same error, never showing one call with the other's input`, async () => {
      const snapshot = await new TurnStore({ schedule: 'sync' }).consume(make());
      expect(snapshot.status).toBe('error');
      expectDuplicate(snapshot.error, id, 'get_time', second);
      // The first call is the only one, failed with the turn's error, with its own partial input.
      expect(snapshot.calls.map((call) => [call.toolCallId, call.toolName, call.status, call.input])).toEqual([[id, 'get_weather', 'failed', { city: 'Par' }]]);
      expect(snapshot.calls[0]?.status === 'failed' && snapshot.calls[0].error).toBe(snapshot.error);
    });

    it(`ConversationEventStream errors ${provider}'s two calls with one id after delivering everything before it`, async () => {
      const { values, error } = await settle(make().pipeThrough(new ConversationEventStream({ progress: true })));
      expectDuplicate(error, id, 'get_time', second);
      // The first call's progress up to the second call's id is delivered; no call event is.
      expect(values.some((event) => (event as PipelineEvent).type === 'tool-call')).toBe(false);
      const progress = values.filter((event) => (event as PipelineEvent).type === 'tool-call-progress') as Array<{ toolCallId: string; index: number }>;
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.every((event) => event.toolCallId === id && event.index !== second)).toBe(true);
    });

    for (const [stage, through] of Object.entries(STAGES)) {
      it(`collectTurn and TurnStore agree on ${provider}'s two calls with one id after ${stage}`, async () => {
        const collected = await collectTurn(through(make())).then(() => undefined, (reason: unknown) => reason);
        expectDuplicate(collected, id, 'get_time', second);
        const snapshot = await new TurnStore({ schedule: 'sync' }).consume(through(make()));
        expect(snapshot.status).toBe('error');
        expectDuplicate(snapshot.error, id, 'get_time', second);
      });
    }
  }

  it('TurnStore refuses conversation events of a relay that name one id in two slots', async () => {
    const events: PipelineEvent[] = [
      { type: 'tool-call', index: 0, toolCallId: 'call_X', toolName: 'a', arguments: { n: 0 } },
      { type: 'tool-call', index: 1, toolCallId: 'call_X', toolName: 'b', arguments: { n: 1 } },
      { type: 'finished', reason: 'tool-calls', rawReason: 'tool_calls' },
    ];
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events));
    expectDuplicate(snapshot.error, 'call_X', 'b', 1);
    // The first call, complete before the second came, stays as it was.
    expect(snapshot.calls.map((call) => [call.toolCallId, call.toolName, call.status, call.input])).toEqual([['call_X', 'a', 'complete', { n: 0 }]]);
    const collected = await collectTurn(streamOf(events)).then(() => undefined, (reason: unknown) => reason);
    expectDuplicate(collected, 'call_X', 'b', 1);
  });

  it('collectTurn refuses a later call that reuses the id of a call that ended', async () => {
    const events: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_X', toolName: 'a' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{}' } },
      { type: 'flush', index: 0 },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'call_X', toolName: 'b' } },
      { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: '{}' } },
      { type: 'flush', index: 1 },
      { type: 'finished', reason: 'tool-calls', rawReason: 'tool_calls' },
    ];
    const collected = await collectTurn(streamOf(events)).then(() => undefined, (reason: unknown) => reason);
    expectDuplicate(collected, 'call_X', 'b', 1);
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events));
    expectDuplicate(snapshot.error, 'call_X', 'b', 1);
    expect(snapshot.calls.map((call) => [call.toolName, call.status])).toEqual([['a', 'complete']]);
  });
});

describe('what is not a duplicate id', () => {
  it('collectTurn and TurnStore keep two calls with empty ids apart by their slot', async () => {
    const events: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: '', toolName: 'a' } },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: '', toolName: 'b' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"n":0}' } },
      { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: '{"n":1}' } },
      { type: 'flush', index: 0 },
      { type: 'flush', index: 1 },
      { type: 'finished', reason: 'tool-calls', rawReason: 'tool_calls' },
    ];
    const turn = await collectTurn(streamOf(events));
    expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual([['a', { n: 0 }], ['b', { n: 1 }]]);
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events));
    expect(snapshot.calls.map((call) => [call.toolName, call.status, call.input])).toEqual([['a', 'complete', { n: 0 }], ['b', 'complete', { n: 1 }]]);
  });

  it('collectTurn and TurnStore read a slot reused by a later step with a new id as a new call', async () => {
    const step = (id: string, n: number): StreamEvent[] => [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: id, toolName: 'f' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: `{"n":${n}}` } },
      { type: 'flush', index: 0 },
    ];
    const events = [...step('call_1', 1), ...step('call_2', 2), { type: 'finished', reason: 'stop', rawReason: 'stop' } as StreamEvent];
    const turn = await collectTurn(streamOf(events));
    expect(turn.toolCalls.map((call) => [call.toolCallId, call.arguments])).toEqual([['call_1', { n: 1 }], ['call_2', { n: 2 }]]);
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events).pipeThrough(new ConversationEventStream({ progress: true })));
    expect(snapshot.calls.map((call) => [call.toolCallId, call.status, call.input])).toEqual([['call_1', 'complete', { n: 1 }], ['call_2', 'complete', { n: 2 }]]);
  });

  it('TurnStore and collectTurn read one call named by every stage of a chain (progress, then its event) as one call', async () => {
    const chain = () =>
      anthropicEvents('toolu_A', 'toolu_B')
        .pipeThrough(new ToolCallProgressStream())
        .pipeThrough(new FieldEventStream())
        .pipeThrough(new PathUpdateStream())
        .pipeThrough(new ConversationEventStream({ progress: true, passthrough: true }));
    const turn = await collectTurn(chain());
    expect(turn.toolCalls.map((call) => [call.toolCallId, call.arguments])).toEqual([['toolu_A', { city: 'Paris' }], ['toolu_B', { zone: 'CET' }]]);
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(relayed(chain()));
    expect(snapshot.error).toBeUndefined();
    expect(snapshot.calls.map((call) => [call.toolCallId, call.status, call.input])).toEqual([['toolu_A', 'complete', { city: 'Paris' }], ['toolu_B', 'complete', { zone: 'CET' }]]);
  });

  it('TurnStore and collectTurn replay a snapshot of a turn with two calls, taken anywhere, without a duplicate id', async () => {
    const events = (await readAll(anthropicEvents('toolu_A', 'toolu_B').pipeThrough(new ConversationEventStream({ progress: true, passthrough: true })))) as PipelineEvent[];
    for (let cut = 0; cut <= events.length; cut++) {
      // The events before `cut` as they came, the rest as the snapshot a resumed client gets.
      const resumed: PipelineEvent[] = [...events.slice(0, cut), { type: 'snapshot', events: compactEvents(events.slice(cut)) }];
      const turn = await collectTurn(streamOf(resumed));
      expect(turn.toolCalls.map((call) => [call.toolCallId, call.arguments]), `cut at ${cut}`).toEqual([['toolu_A', { city: 'Paris' }], ['toolu_B', { zone: 'CET' }]]);
      const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(resumed));
      expect(snapshot.error, `cut at ${cut}`).toBeUndefined();
      expect(snapshot.calls.map((call) => [call.toolCallId, call.status, call.input]), `cut at ${cut}`).toEqual([
        ['toolu_A', 'complete', { city: 'Paris' }],
        ['toolu_B', 'complete', { zone: 'CET' }],
      ]);
    }
  });
});

describe('two calls with one id through the AI SDK UI stream', () => {
  it("UIMessageStreamEncoder refuses them as the turn builder does: an error chunk, never the second call's input under the first call's id", async () => {
    for (const major of [5, 7] as const) {
      const bytes = await readAll(anthropicEvents('toolu_X', 'toolu_X').pipeThrough(new UIMessageStreamEncoder({ major })));
      const chunks = new TextDecoder()
        .decode(Buffer.concat(bytes))
        .split('\n\n')
        .filter((record) => record.startsWith('data: {'))
        .map((record) => JSON.parse(record.slice(6)) as { type: string; toolCallId?: string; toolName?: string });
      expect(chunks.filter((chunk) => chunk.type === 'tool-input-start').map((chunk) => chunk.toolName)).toEqual(['get_weather']);
      expect(chunks.some((chunk) => chunk.type === 'error')).toBe(true);
      // What a useChat page reads of it, through the AI SDK UI stream adapter: the same refusal.
      const read = await settle(streamOf(bytes).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(read.error).toBeInstanceOf(ProviderError);
    }
  });
});
