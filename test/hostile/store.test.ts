/**
 * `TurnStore` (and the turn builder under it, so `collectTurn` and the stages too) against input a
 * hostile relay, a proxy or an application's bug can hand it:
 *
 * - calls listed in the order they began whatever stage came before the store, though a stage may
 *   have taken the start parts that said so (three interleaved OpenAI calls whose arguments arrive
 *   last first);
 * - values, fragments and snapshots nested far beyond `maxDepth`: `JsonStreamError` `'max-depth'`,
 *   never a `RangeError`;
 * - events of the wrong shape: `RelayError` `'invalid-data'` (the code the relay decoders give a
 *   record they cannot read), never a `TypeError`, after everything before them.
 */
import { describe, expect, it } from 'vitest';
import {
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  JsonStreamError,
  PathUpdateStream,
  ProviderEventStream,
  RelayError,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  TurnStore,
  collectTurn,
  type PipelineEvent,
  type StreamEvent,
} from '../../src/index.ts';
import { settle, streamOf } from '../helpers.ts';

const utf8 = new TextEncoder();

/** OpenAI Chat SSE of three calls begun in the order a, b, c, whose arguments arrive c, b, a. */
function threeInterleaved(): Uint8Array {
  const chunk = (delta: unknown, finish: string | null = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  const start = (index: number, id: string, name: string) => chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
  const args = (index: number, text: string) => chunk({ tool_calls: [{ index, function: { arguments: text } }] });
  const records = [
    start(0, 'call_a', 'read'),
    start(1, 'call_b', 'write'),
    start(2, 'call_c', 'list'),
    args(2, '{"dir":"/"}'),
    args(1, '{"path":"b.txt"}'),
    args(0, '{"path":"a.txt"}'),
    chunk({}, 'tool_calls'),
  ];
  return utf8.encode(`${records.map((record) => `data: ${JSON.stringify(record)}\n\n`).join('')}data: [DONE]\n\n`);
}

function providerEvents(): ReadableStream<StreamEvent> {
  return streamOf([threeInterleaved()]).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }));
}

function relayed(stream: ReadableStream<unknown>): ReadableStream<PipelineEvent> {
  return stream
    .pipeThrough(new EventStreamEncoder() as unknown as TransformStream<unknown, Uint8Array>)
    .pipeThrough(new EventStreamDecoder() as unknown as TransformStream<Uint8Array, PipelineEvent>);
}

const STAGES: ReadonlyArray<readonly [string, (events: ReadableStream<StreamEvent>) => ReadableStream<PipelineEvent>]> = [
  ['ProviderEventStream alone', (events) => events],
  ['ConversationEventStream', (events) => events.pipeThrough(new ConversationEventStream())],
  ['ConversationEventStream({ progress: true })', (events) => events.pipeThrough(new ConversationEventStream({ progress: true }))],
  ['ToolCallProgressStream', (events) => events.pipeThrough(new ToolCallProgressStream())],
  ['FieldEventStream', (events) => events.pipeThrough(new FieldEventStream())],
  ['FieldEventStream({ keepProgress: false })', (events) => events.pipeThrough(new FieldEventStream({ keepProgress: false }))],
  ['PathUpdateStream', (events) => events.pipeThrough(new PathUpdateStream())],
  ['PathUpdateStream({ keepProgress: false })', (events) => events.pipeThrough(new PathUpdateStream({ keepProgress: false }))],
  ['ToolCallDeltaStream', (events) => events.pipeThrough(new ToolCallDeltaStream())],
];

const BEGUN: ReadonlyArray<readonly [string, string, unknown]> = [
  ['call_a', 'read', { path: 'a.txt' }],
  ['call_b', 'write', { path: 'b.txt' }],
  ['call_c', 'list', { dir: '/' }],
];

describe('TurnStore lists calls in the order they began, whatever stage came before it', () => {
  for (const [name, stage] of STAGES) {
    for (const relay of [false, true]) {
      const where = relay ? `${name} → EventStreamEncoder → EventStreamDecoder` : name;
      it(`TurnStore lists three interleaved OpenAI calls in the order they began after ${where}, as collectTurn does`, async () => {
        const make = () => (relay ? relayed(stage(providerEvents())) : stage(providerEvents()));
        const snapshot = await new TurnStore({ schedule: 'sync' }).consume(make());
        expect(snapshot.error).toBeUndefined();
        expect(snapshot.calls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual(BEGUN);
        const turn = await collectTurn(make());
        expect(turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments])).toEqual(BEGUN);
      });
    }
  }

  it('TurnStore lists the calls of every snapshot in the order they began, while they stream', async () => {
    const store = new TurnStore({ schedule: 'sync' });
    const seen: string[][] = [];
    store.subscribe(() => seen.push(store.getSnapshot().calls.map((call) => call.toolCallId)));
    await store.consume(providerEvents().pipeThrough(new ConversationEventStream({ progress: true })));
    // c shows first (its arguments came first); b and a go before it as they show.
    expect(seen.filter((ids, i) => i === 0 || ids.join() !== seen[i - 1]?.join())).toEqual([['call_c'], ['call_b', 'call_c'], ['call_a', 'call_b', 'call_c']]);
  });

  it('TurnStore lists a later step\'s call in a lower slot after the calls that ended before it', async () => {
    const call = (index: number, id: string, n: number): StreamEvent[] => [
      { type: 'part', index, part: { type: 'tool-call-start', toolCallId: id, toolName: 'f' } },
      { type: 'part', index, part: { type: 'tool-call-arguments', chunk: `{"n":${n}}` } },
      { type: 'flush', index },
    ];
    const events = [...call(1, 'call_1', 1), ...call(0, 'call_2', 2), ...call(1, 'call_3', 3), { type: 'finished', reason: 'stop', rawReason: 'stop' } as StreamEvent];
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events).pipeThrough(new ConversationEventStream({ progress: true })));
    expect(snapshot.calls.map((c) => c.toolCallId)).toEqual(['call_1', 'call_2', 'call_3']);
  });
});

/** `value` inside `depth` arrays. */
function nested(depth: number, value: unknown = 1): unknown {
  let out = value;
  for (let i = 0; i < depth; i++) out = [out];
  return out;
}

/** A `done` fragment inside `depth` `item` wrappers. */
function deepFragment(depth: number): unknown {
  let fragment: unknown = { type: 'done' };
  for (let i = 0; i < depth; i++) fragment = { type: 'item', index: 0, value: fragment };
  return fragment;
}

/** A message inside `depth` snapshots. */
function deepSnapshot(depth: number): unknown {
  let event: unknown = { type: 'message', index: 0, text: 'hi' };
  for (let i = 0; i < depth; i++) event = { type: 'snapshot', events: [event] };
  return event;
}

/** What each consumer ends `events` with: the store's error, collectTurn's rejection, ConversationEventStream's error. */
async function outcomes(events: readonly unknown[]): Promise<unknown[]> {
  const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events));
  const collected = await collectTurn(streamOf(events as PipelineEvent[])).then(() => undefined, (reason: unknown) => reason);
  const { error } = await settle(streamOf(events as PipelineEvent[]).pipeThrough(new ConversationEventStream({ progress: true })));
  expect(snapshot.status).toBe('error');
  return [snapshot.error, collected, error];
}

function expectCode(errors: readonly unknown[], type: typeof JsonStreamError | typeof RelayError, code: string): void {
  for (const error of errors) {
    expect(error).toBeInstanceOf(type);
    expect((error as { code: string }).code).toBe(code);
  }
}

describe('TurnStore: what is nested beyond maxDepth is a typed error', () => {
  it("TurnStore, collectTurn and ConversationEventStream end a snapshot nested 20,000 deep in JsonStreamError 'max-depth'", async () => {
    expectCode(await outcomes([deepSnapshot(20_000)]), JsonStreamError, 'max-depth');
  });

  it("TurnStore, collectTurn and ConversationEventStream end a call whose relayed arguments are nested 20,000 deep in JsonStreamError 'max-depth'", async () => {
    expectCode(await outcomes([{ type: 'tool-call', index: 0, toolCallId: 'call_1', toolName: 'f', arguments: nested(20_000) }]), JsonStreamError, 'max-depth');
  });

  it("TurnStore, collectTurn and ConversationEventStream end a progress fragment nested 20,000 deep in JsonStreamError 'max-depth'", async () => {
    expectCode(await outcomes([{ type: 'tool-call-progress', index: 0, toolCallId: 'call_1', toolName: 'f', fragment: deepFragment(20_000) }]), JsonStreamError, 'max-depth');
  });

  it("TurnStore fails a call whose path updates open 20,000 arrays with JsonStreamError 'max-depth'", async () => {
    const update = (kind: string) => ({ type: 'path-update', index: 0, toolCallId: 'call_1', path: '', kind });
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(Array.from({ length: 20_000 }, () => update('start-array'))));
    expect(snapshot.calls.map((call) => call.status)).toEqual(['failed']);
    const error = snapshot.calls[0]?.status === 'failed' ? snapshot.calls[0].error : undefined;
    expect(error).toBeInstanceOf(JsonStreamError);
    expect((error as JsonStreamError).code).toBe('max-depth');
  });

  it("TurnStore fails a call whose field holds JSON nested 20,000 deep with JsonStreamError 'max-depth'", async () => {
    const field = { index: 0, toolCallId: 'call_1', toolName: 'f', key: 'deep' };
    const events = [
      { type: 'field-start', ...field },
      { type: 'field-delta', ...field, text: `${'['.repeat(20_000)}${']'.repeat(20_000)}` },
      { type: 'field-end', ...field, string: false },
    ];
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events));
    const error = snapshot.calls[0]?.status === 'failed' ? snapshot.calls[0].error : undefined;
    expect(error).toBeInstanceOf(JsonStreamError);
    expect((error as JsonStreamError).code).toBe('max-depth');
  });

  it('TurnStore completes a call whose arguments are nested 10,000 deep when maxDepth allows it, every path complete, without a RangeError', async () => {
    const text = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
    const events: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'f' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: text } },
      { type: 'flush', index: 0 },
      { type: 'finished', reason: 'tool-calls', rawReason: 'tool_calls' },
    ];
    // The arguments arrive whole (a conversation event): every path is marked complete at once.
    const snapshot = await new TurnStore({ schedule: 'sync', maxDepth: 20_000 }).consume(streamOf(events).pipeThrough(new ConversationEventStream({ maxDepth: 20_000 })));
    expect(snapshot.error).toBeUndefined();
    expect(snapshot.calls.map((call) => call.status)).toEqual(['complete']);
    expect(snapshot.calls[0]?.complete.has('/0'.repeat(10_000))).toBe(true);
    expect(snapshot.calls[0]?.complete.size).toBe(10_001);
  });
});

describe('TurnStore: an event of the wrong shape is a typed error', () => {
  const cycle: Record<string, unknown> = {};
  cycle['self'] = cycle;
  const call = (args: unknown) => ({ type: 'tool-call', index: 0, toolCallId: 'call_1', toolName: 'f', arguments: args });
  const cases: ReadonlyArray<readonly [string, unknown]> = [
    ['null instead of an event', null],
    ['a string instead of an event', 'part'],
    ['an event without a type', { index: 0 }],
    ['a part event without its part', { type: 'part', index: 0 }],
    ['a part event without its index', { type: 'part', part: { type: 'message', text: 'hi' } }],
    ['a part of no known type', { type: 'part', index: 0, part: { type: 'tool-call-end' } }],
    ['argument text that is not a string', { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: 5 } }],
    ['a snapshot without its events', { type: 'snapshot' }],
    ['a progress event whose fragment has no type', { type: 'tool-call-progress', index: 0, toolCallId: 'call_1', toolName: 'f', fragment: {} }],
    ['a progress event whose entry fragment has no value', { type: 'tool-call-progress', index: 0, toolCallId: 'call_1', toolName: 'f', fragment: { type: 'entry', key: 'k' } }],
    ['a progress event without its fragment', { type: 'tool-call-progress', index: 0, toolCallId: 'call_1', toolName: 'f' }],
    ['a tool-call event without arguments', { type: 'tool-call', index: 0, toolCallId: 'call_1', toolName: 'f' }],
    ['a tool-call event whose arguments are a function', call(() => 1)],
    ['a tool-call event whose arguments hold a BigInt', call({ n: 1n })],
    ['a tool-call event whose arguments hold NaN', call({ n: Number.NaN })],
    ['a tool-call event whose arguments hold a Date', call({ at: new Date(0) })],
    ['a tool-call event whose arguments contain themselves', call(cycle)],
    ['a tool-call event without its id', { type: 'tool-call', index: 0, toolName: 'f', arguments: {} }],
    ['a field event without its key', { type: 'field-start', index: 0, toolCallId: 'call_1' }],
    ['a path update without its path', { type: 'path-update', index: 0, toolCallId: 'call_1', kind: 'start-object' }],
  ];
  for (const [name, event] of cases) {
    it(`TurnStore, collectTurn and ConversationEventStream refuse ${name} with RelayError 'invalid-data', after what came before it`, async () => {
      const before: StreamEvent = { type: 'part', index: 9, part: { type: 'message', text: 'kept' } };
      const errors = await outcomes([before, event]);
      expectCode(errors, RelayError, 'invalid-data');
      const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf([before, event]));
      expect([snapshot.status, snapshot.text]).toEqual(['error', 'kept']);
    });
  }

  it("TurnStore fails a call whose path updates do not fit together with RelayError 'invalid-data', never a TypeError", async () => {
    const update = (kind: string, more: object = {}) => ({ type: 'path-update', index: 0, toolCallId: 'call_1', path: '', kind, ...more });
    for (const updates of [[update('end-array')], [update('partial-string', { textValue: 'x' })], [update('start-object'), update('bogus')], [update('complete-number', { value: 'one' })]]) {
      const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(updates));
      const error = snapshot.calls[0]?.status === 'failed' ? snapshot.calls[0].error : undefined;
      expect(error).toBeInstanceOf(RelayError);
      expect((error as RelayError).code).toBe('invalid-data');
    }
  });

  it("TurnStore fails a call whose non-string field is not JSON with RelayError 'invalid-data', never a SyntaxError", async () => {
    const field = { index: 0, toolCallId: 'call_1', toolName: 'f', key: 'n' };
    const events = [{ type: 'field-start', ...field }, { type: 'field-delta', ...field, text: '{nope' }, { type: 'field-end', ...field, string: false }];
    const snapshot = await new TurnStore({ schedule: 'sync' }).consume(streamOf(events));
    const error = snapshot.calls[0]?.status === 'failed' ? snapshot.calls[0].error : undefined;
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).code).toBe('invalid-data');
  });

  it('TurnStore.writable errors with the typed error of a malformed event and keeps it in the snapshot', async () => {
    const store = new TurnStore({ schedule: 'sync' });
    const piped = await streamOf<unknown>([{ type: 'part', index: 0, part: { type: 'message', text: 'hi' } }, { type: 'part', index: 0 }])
      .pipeTo(store.writable)
      .then(() => undefined, (reason: unknown) => reason);
    expect(piped).toBeInstanceOf(RelayError);
    expect(store.getSnapshot().error).toBe(piped);
    expect(store.getSnapshot().text).toBe('hi');
  });
});
