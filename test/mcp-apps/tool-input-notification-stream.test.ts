/**
 * `ToolInputNotificationStream` (`argstream/mcp-apps`): a call's input as MCP Apps notifications.
 * Every provider recording with a call goes through it; each notification must pass
 * `@modelcontextprotocol/ext-apps`' own schemas with nothing stripped, and the real `App` (the
 * view's side, over the MCP SDK's in-memory transport) must hand its handlers the partials and
 * the manifest's exact arguments. The oracle of every final input is the manifest; of every
 * partial, that it is a prefix state of the final arguments (strings prefixes, numbers whole).
 */
import {
  McpUiToolCancelledNotificationSchema,
  McpUiToolInputNotificationSchema,
  McpUiToolInputPartialNotificationSchema,
} from '@modelcontextprotocol/ext-apps';
import { describe, expect, it } from 'vitest';
import {
  ToolInputNotificationCore,
  ToolInputNotificationStream,
  type ToolInputNotification,
  type ToolInputNotificationStreamOptions,
} from '../../src/bindings/mcp-apps.ts';
import { JsonStreamError, ProviderError, RelayError } from '../../src/errors.ts';
import { EventStreamDecoder } from '../../src/relay/event-stream-decoder.ts';
import { EventStreamEncoder } from '../../src/relay/event-stream-encoder.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { chain } from '../../src/transforms/chain.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { FieldEventStream } from '../../src/transforms/field-event-stream.ts';
import { PathUpdateStream } from '../../src/transforms/path-update-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { ToolCallDeltaStream } from '../../src/transforms/tool-call-delta-stream.ts';
import type { PipelineEvent, StreamEvent } from '../../src/types.ts';
import type { ProviderName } from '../../src/errors.ts';
import { args, cuttings, finished, flush, readAll, settle, start, streamOf, text } from '../helpers.ts';
import { isProviderExecuted, manifestRecordings, readManifest, type ManifestRecording, type ManifestToolCall } from '../manifest.ts';
import { expectedArguments, PROVIDER_OF_DIR, readableRecordings, recordingInput } from '../providers/event-stream-helpers.ts';
import { connectApp } from './app-harness.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Whether `partial` is what `final` may look like while it streams: an object's members a subset
 * (each partial of the final one), an array a prefix (its last element partial), a string a
 * prefix, anything else equal.
 */
function isPartialOf(partial: Json, final: Json): boolean {
  if (typeof partial === 'string') return typeof final === 'string' && final.startsWith(partial);
  if (Array.isArray(partial)) {
    if (!Array.isArray(final) || partial.length > final.length) return false;
    return partial.every((item, i) => (i === partial.length - 1 ? isPartialOf(item, final[i] as Json) : JSON.stringify(item) === JSON.stringify(final[i])));
  }
  if (typeof partial === 'object' && partial !== null) {
    if (typeof final !== 'object' || final === null || Array.isArray(final)) return false;
    return Object.keys(partial).every((key) => Object.hasOwn(final, key) && isPartialOf(partial[key] as Json, final[key] as Json));
  }
  return Object.is(partial, final);
}

/** Each notification passes ext-apps' schema of its method, and the schema keeps all of it. */
function expectValid(notification: ToolInputNotification): void {
  expect(notification.jsonrpc).toBe('2.0');
  const schema =
    notification.method === 'ui/notifications/tool-input-partial'
      ? McpUiToolInputPartialNotificationSchema
      : notification.method === 'ui/notifications/tool-input'
        ? McpUiToolInputNotificationSchema
        : McpUiToolCancelledNotificationSchema;
  const parsed = schema.safeParse(notification);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  expect(parsed.data).toEqual({ method: notification.method, params: notification.params });
}

async function notificationsOf(events: ReadableStream<PipelineEvent>, options: ToolInputNotificationStreamOptions = {}): Promise<ToolInputNotification[]> {
  return readAll(events.pipeThrough(new ToolInputNotificationStream(options)));
}

function providerEvents(recording: ManifestRecording, chunks?: ReadonlyArray<string | Uint8Array | object>): ReadableStream<StreamEvent> {
  const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
  return streamOf(chunks ?? recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider }));
}

/** The partials, then exactly one final notification, last. */
function split(notifications: readonly ToolInputNotification[]) {
  const final = notifications[notifications.length - 1] as ToolInputNotification;
  const partials = notifications.slice(0, -1);
  for (const partial of partials) expect(partial.method).toBe('ui/notifications/tool-input-partial');
  expect(final.method).not.toBe('ui/notifications/tool-input-partial');
  return { partials: partials.map((p) => (p.params as { arguments: Json }).arguments), final };
}

/** Partials are prefix states of the final arguments, each of the next one, and never repeat. */
function expectPartialsOf(partials: readonly Json[], finalArguments: Json): void {
  let previous: Json | undefined;
  for (const partial of partials) {
    expect(typeof partial === 'object' && partial !== null && !Array.isArray(partial)).toBe(true);
    expect(isPartialOf(partial, finalArguments), `${JSON.stringify(partial).slice(0, 200)} is not a partial of the arguments`).toBe(true);
    if (previous !== undefined) {
      expect(isPartialOf(previous, partial)).toBe(true);
      expect(JSON.stringify(partial)).not.toBe(JSON.stringify(previous));
    }
    previous = partial;
  }
}

/** The recordings whose first call arrives whole (the max_tokens one is cut: tested apart). */
const withCalls = readableRecordings().filter((recording) => {
  if (recording.toolCalls.length === 0) return false;
  try {
    for (const call of recording.toolCalls) expectedArguments(call.args);
    return true;
  } catch {
    return false;
  }
});

describe('ToolInputNotificationStream on every provider recording with a call', () => {
  it.each(withCalls.map((recording) => [recording.file, recording] as const))('%s: partials of the first call, then its exact arguments, through the real App', async (_file, recording) => {
    const events = await readAll(providerEvents(recording));
    const notifications = await notificationsOf(streamOf(events), { minGrowth: 0 });
    for (const notification of notifications) expectValid(notification);
    const { partials, final } = split(notifications);
    const expected = expectedArguments((recording.toolCalls[0] as { args: string }).args) as Json;
    expect(final).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: expected } });
    expectPartialsOf(partials, expected);
    // At most one partial per input chunk: here an input chunk is one event, and only the events
    // that carry the call's argument text change its arguments.
    const first = recording.toolCalls[0] as { id: string; name: string };
    const slots = new Set(events.filter((e) => e.type === 'part' && e.part.type === 'tool-call-start' && (first.id === '' || e.part.toolCallId === first.id)).map((e) => (e as { index: number }).index));
    const argumentEvents = events.filter((e) => e.type === 'part' && e.part.type === 'tool-call-arguments' && slots.has(e.index)).length;
    expect(partials.length).toBeLessThanOrEqual(argumentEvents);

    const view = await connectApp();
    try {
      for (const notification of notifications) await view.host.send(notification);
      await view.settle();
      expect(view.errors).toEqual([]);
      expect(view.received).toEqual([...partials.map((partial) => ({ kind: 'partial', arguments: partial })), { kind: 'input', arguments: expected }]);
    } finally {
      await view.close();
    }
  });

  it.each(withCalls.map((recording) => [recording.file, recording] as const))('%s: every call by its toolCallId, under every cutting of the bytes', async (_file, recording) => {
    const input = recordingInput(recording);
    const cuts = input.length === 1 && input[0] instanceof Uint8Array ? cuttings(input[0], 3) : [['objects', input] as [string, object[]]];
    for (const call of recording.toolCalls.filter((c) => c.id !== '')) {
      const expected = expectedArguments(call.args) as Json;
      for (const [label, chunks] of cuts) {
        const notifications = await notificationsOf(providerEvents(recording, chunks), { toolCallId: call.id, minGrowth: 0 });
        const { partials, final } = split(notifications);
        expect(final, `${call.id} ${label}`).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: expected } });
        expectPartialsOf(partials, expected);
      }
    }
  });
});

describe('ToolInputNotificationStream chooses its call', () => {
  const parallel = manifestRecordings('anthropic').find((r) => r.file === 'anthropic/text-then-2-parallel-tool-use.sse') as ManifestRecording;
  const weather = parallel.toolCalls[0] as ManifestToolCall;
  const time = parallel.toolCalls[1] as ManifestToolCall;

  it('by toolName: the first call of that tool', async () => {
    const notifications = await notificationsOf(providerEvents(parallel), { toolName: 'get_time' });
    expect(notifications.at(-1)).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: JSON.parse(time.args) } });
  });

  it('without options: the first call that begins', async () => {
    const notifications = await notificationsOf(providerEvents(parallel));
    expect(notifications.at(-1)?.params).toEqual({ arguments: JSON.parse(weather.args) });
  });

  it('a call the provider runs is never the first call, but is followed when its id is asked for', async () => {
    const recording = readManifest().find((r) => r.file === 'anthropic/server-tool-use-code-execution-escapes-emoji.sse') as ManifestRecording;
    expect(recording.toolCalls).toEqual([]);
    const notifications = await notificationsOf(providerEvents(recording));
    expect(notifications).toEqual([{ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'The stream ended without the tool call' } }]);
    const hosted = recording.providerToolCalls[0] as ManifestToolCall;
    expect(isProviderExecuted(hosted)).toBe(true);
    const byId = await notificationsOf(providerEvents(recording), { toolCallId: hosted.id });
    expect(byId.at(-1)?.params).toEqual({ arguments: expectedArguments(hosted.args) });
  });

  it('a call whose id comes after its first arguments is followed from its first byte', async () => {
    const events: StreamEvent[] = [start(0, '', 'w'), args(0, '{"a":"x'), start(0, 'call_2', ''), args(0, 'yz"}'), flush(0), finished('tool-calls', 'tool_calls')];
    const notifications = await notificationsOf(streamOf(events), { toolCallId: 'call_2', minGrowth: 0 });
    expect(notifications).toEqual([
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input-partial', params: { arguments: { a: 'x' } } },
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input-partial', params: { arguments: { a: 'xyz' } } },
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { a: 'xyz' } } },
    ]);
  });

  it('a call that never comes: tool-cancelled at the end, and nothing of the other calls', async () => {
    const notifications = await notificationsOf(providerEvents(parallel), { toolCallId: 'toolu_nope' });
    expect(notifications).toEqual([{ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'The stream ended without the tool call' } }]);
    const none = await notificationsOf(streamOf<StreamEvent>([text(0, 'hi'), flush(0), finished('stop', 'end_turn')]));
    expect(none).toEqual([{ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'The stream ended without the tool call' } }]);
  });
});

describe('ToolInputNotificationStream when the call does not arrive whole', () => {
  it('cut by max_tokens (a real recording): partials, then tool-cancelled with the stop reason, which the App receives', async () => {
    const recording = readManifest().find((r) => r.file === 'anthropic/tool-use-truncated-max-tokens.sse') as ManifestRecording;
    const notifications = await notificationsOf(providerEvents(recording), { minGrowth: 0 });
    for (const notification of notifications) expectValid(notification);
    const { partials, final } = split(notifications);
    expect(partials.length).toBeGreaterThan(0);
    expect(final).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'The tool call was cut off before its arguments were complete (stop reason: max_tokens)' } });
    const view = await connectApp();
    try {
      for (const notification of notifications) await view.host.send(notification);
      await view.settle();
      expect(view.errors).toEqual([]);
      expect(view.received.at(-1)).toEqual({ kind: 'cancelled', reason: 'The tool call was cut off before its arguments were complete (stop reason: max_tokens)' });
      expect(view.received.filter((r) => r.kind === 'input')).toEqual([]);
    } finally {
      await view.close();
    }
  });

  it.each([
    ['invalid JSON', '{"a":1,}', "The tool call's arguments were not valid JSON"],
    ['an array, not an object', '[1,2]', "The tool call's arguments were not a JSON object"],
    ['a string, not an object', '"x"', "The tool call's arguments were not a JSON object"],
    ['null', 'null', "The tool call's arguments were not a JSON object"],
  ])('arguments that are %s: tool-cancelled, never a tool-input', async (_what, argumentText, reason) => {
    const events: StreamEvent[] = [start(0, 'c1', 'w'), args(0, argumentText), flush(0), finished('tool-calls', 'tool_calls')];
    const notifications = await notificationsOf(streamOf(events));
    expect(notifications.at(-1)).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason } });
    expect(notifications.filter((n) => n.method === 'ui/notifications/tool-input')).toEqual([]);
    expect(notifications.filter((n) => n.method === 'ui/notifications/tool-input-partial').every((n) => !Array.isArray((n.params as { arguments: unknown }).arguments))).toBe(true);
  });

  it('a stream that ends inside the call (no flush, no finish): tool-cancelled', async () => {
    const notifications = await notificationsOf(streamOf<StreamEvent>([start(0, 'c1', 'w'), args(0, '{"path":"a.txt","content":"ab')]), { minGrowth: 0 });
    expect(notifications).toEqual([
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input-partial', params: { arguments: { path: 'a.txt', content: 'ab' } } },
      { jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'The tool call was cut off before its arguments were complete' } },
    ]);
  });

  it('a stop reason that is not a short token is not quoted', async () => {
    const events: StreamEvent[] = [start(0, 'c1', 'w'), args(0, '{"a":'), flush(0), { type: 'finished', reason: 'length', rawReason: 'x'.repeat(500) }];
    const notifications = await notificationsOf(streamOf(events));
    expect(notifications.at(-1)?.params).toEqual({ reason: 'The tool call was cut off before its arguments were complete' });
  });

  it('a repaired (truncated) call from a stage before is cut, not complete', async () => {
    const events = streamOf<StreamEvent>([start(0, 'c1', 'w'), args(0, '{"a":"b'), flush(0), finished('length', 'max_tokens')]).pipeThrough(new ConversationEventStream({ repair: true }));
    const notifications = await notificationsOf(events);
    expect(notifications.at(-1)?.method).toBe('ui/notifications/tool-cancelled');
  });

  it('an error of the stream before errors this stream too, after what came before it', async () => {
    const failure = new ProviderError('anthropic', 'overloaded_error', 'Overloaded');
    const events = [start(0, 'c1', 'w'), args(0, '{"a":"b"')];
    const source = new ReadableStream<StreamEvent>({
      pull(controller) {
        const event = events.shift();
        if (event === undefined) controller.error(failure);
        else controller.enqueue(event);
      },
    });
    const { values, error } = await settle(source.pipeThrough(new ToolInputNotificationStream({ minGrowth: 0 })));
    expect(values).toEqual([{ jsonrpc: '2.0', method: 'ui/notifications/tool-input-partial', params: { arguments: { a: 'b' } } }]);
    expect(error).toBe(failure);
  });

  it('cancelling the notifications cancels the source with the same reason', async () => {
    let reason: unknown;
    const source = new ReadableStream<StreamEvent>({
      async pull(controller) {
        // A macrotask between reads: a source that never waits would starve the timers.
        await new Promise((resolve) => setTimeout(resolve, 1));
        controller.enqueue(args(0, ' '));
      },
      cancel(why) {
        reason = why;
      },
    });
    const reader = source.pipeThrough(new ToolInputNotificationStream()).getReader();
    const read = reader.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await reader.cancel('view closed');
    await read.catch(() => undefined);
    expect(reason).toBe('view closed');
  });
});

describe('ToolInputNotificationStream reads the output of every stage', () => {
  const recording = readManifest().find((r) => r.file === 'anthropic/text-then-2-parallel-tool-use.sse') as ManifestRecording;
  const expected = JSON.parse((recording.toolCalls[0] as { args: string }).args) as Json;
  const stages: Array<[string, () => TransformStream<StreamEvent, PipelineEvent>]> = [
    ['ConversationEventStream({ progress: true })', () => new ConversationEventStream({ progress: true }) as TransformStream<StreamEvent, PipelineEvent>],
    ['FieldEventStream({ keepProgress: false })', () => new FieldEventStream({ keepProgress: false }) as unknown as TransformStream<StreamEvent, PipelineEvent>],
    ['PathUpdateStream({ keepProgress: false })', () => new PathUpdateStream({ keepProgress: false }) as unknown as TransformStream<StreamEvent, PipelineEvent>],
    ['ToolCallDeltaStream', () => new ToolCallDeltaStream() as unknown as TransformStream<StreamEvent, PipelineEvent>],
  ];
  it.each(stages)('%s', async (_name, stage) => {
    const notifications = await notificationsOf(providerEvents(recording).pipeThrough(stage()), { minGrowth: 0 });
    const { partials, final } = split(notifications);
    expect(final.params).toEqual({ arguments: expected });
    expect(partials.length).toBeGreaterThan(0);
    expectPartialsOf(partials, expected);
  });

  it('a relay decoded in the page (EventStreamEncoder → EventStreamDecoder)', async () => {
    const relayed = providerEvents(recording).pipeThrough(new FieldEventStream({ keepProgress: false })).pipeThrough(new EventStreamEncoder()).pipeThrough(new EventStreamDecoder());
    const { partials, final } = split(await notificationsOf(relayed as ReadableStream<PipelineEvent>, { minGrowth: 0 }));
    expect(final.params).toEqual({ arguments: expected });
    expectPartialsOf(partials, expected);
  });

  it('composed: fromResponse(…, new ToolInputNotificationStream()) and chain(…), one partial per network read at most', async () => {
    const bytes = recordingInput(recording)[0] as Uint8Array;
    const reads = cuttings(bytes, 5).find(([label]) => label.startsWith('random'))?.[1] as Uint8Array[];
    const viaResponse = await readAll(fromResponse(new Response(streamOf(reads)), { provider: 'anthropic' }, new ToolInputNotificationStream({ minGrowth: 0 })));
    const viaChain = await readAll(streamOf(reads).pipeThrough(chain(new ProviderEventStream({ provider: 'anthropic' }), new ToolInputNotificationStream({ minGrowth: 0 }))));
    for (const notifications of [viaResponse, viaChain]) {
      const { partials, final } = split(notifications);
      expect(final.params).toEqual({ arguments: expected });
      expect(partials.length).toBeLessThanOrEqual(reads.length);
      expectPartialsOf(partials, expected);
    }
  });
});

/** A write_file call of about `bytes` bytes of content, in `chunk`-character argument deltas. */
function bigCall(bytes: number, chunk: number): { events: StreamEvent[]; argumentsText: string } {
  const line = 'const value = "a \\"quoted\\" string";\n';
  const argumentsText = JSON.stringify({ path: 'src/big.ts', content: line.repeat(Math.ceil(bytes / line.length)) });
  const events: StreamEvent[] = [start(0, 'call_big', 'write_file')];
  for (let i = 0; i < argumentsText.length; i += chunk) events.push(args(0, argumentsText.slice(i, i + chunk)));
  events.push(flush(0), finished('tool-calls', 'tool_use'));
  return { events, argumentsText };
}

/** What the partials cost a host: their JSON text, the bytes a transport writes or clones. */
function partialBytes(notifications: readonly ToolInputNotification[]): number {
  return notifications.filter((n) => n.method === 'ui/notifications/tool-input-partial').reduce((sum, n) => sum + JSON.stringify(n).length, 0);
}

describe('ToolInputNotificationStream throttles partials (the spec partial carries the whole arguments)', () => {
  it('a 1 MB call in 16-character deltas: the partials together are at most 17× the arguments by default (not O(n²))', () => {
    const { events, argumentsText } = bigCall(1_000_000, 16);
    const core = new ToolInputNotificationCore();
    const out: ToolInputNotification[] = [];
    for (const event of events) core.push(event, out);
    core.end(out);
    expect(out.at(-1)).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: JSON.parse(argumentsText) } });
    const partials = out.length - 1;
    expect(partials).toBeGreaterThan(100);
    expect(partials).toBeLessThan(400);
    expect(partialBytes(out)).toBeLessThan(17 * argumentsText.length + 200 * partials);
  });

  it('minGrowth: 0 sends one partial per delta that changed the arguments (and the bytes grow quadratically)', () => {
    const { events } = bigCall(20_000, 16);
    const core = new ToolInputNotificationCore({ minGrowth: 0 });
    const out = core.push(events[0] as StreamEvent);
    const counts: number[] = [];
    for (const event of events.slice(1)) counts.push(core.push(event).length);
    core.end(out);
    // Every argument delta but the ones that only close values (`"}` makes no new text).
    const argumentDeltas = events.filter((e) => e.type === 'part' && e.part.type === 'tool-call-arguments').length;
    const sent = counts.filter((n) => n === 1).length;
    expect(counts.every((n) => n <= 1)).toBe(true);
    expect(sent).toBeGreaterThanOrEqual(argumentDeltas - 2);
  });

  it('minGrowth bounds the bytes of every size in proportion', () => {
    for (const growth of [0.5, 0.25, 0.125]) {
      const { events, argumentsText } = bigCall(200_000, 16);
      const out: ToolInputNotification[] = [];
      const core = new ToolInputNotificationCore({ minGrowth: growth });
      for (const event of events) core.push(event, out);
      expect(partialBytes(out)).toBeLessThan((1 + 1 / growth) * argumentsText.length + 200 * out.length);
    }
  });

  it('minIntervalMs holds partials back until that long after the last one (a clock that does not move: one partial)', () => {
    const { events, argumentsText } = bigCall(20_000, 16);
    const out: ToolInputNotification[] = [];
    const core = new ToolInputNotificationCore({ minGrowth: 0, minIntervalMs: 3_600_000 });
    for (const event of events) core.push(event, out);
    core.end(out);
    expect(out.map((n) => n.method)).toEqual(['ui/notifications/tool-input-partial', 'ui/notifications/tool-input']);
    expect(out[1]?.params).toEqual({ arguments: JSON.parse(argumentsText) });
  });

  it('partials share what did not change with the previous one', () => {
    const events: StreamEvent[] = [start(0, 'c', 'w'), args(0, '{"meta":{"a":[1,2]},"body":"x'), args(0, 'y'), args(0, 'z"}'), flush(0)];
    const out: ToolInputNotification[] = [];
    const core = new ToolInputNotificationCore({ minGrowth: 0 });
    for (const event of events) core.push(event, out);
    const [first, second] = out.map((n) => (n.params as { arguments: { meta: unknown; body: string } }).arguments);
    expect(first?.body).toBe('x');
    expect(second?.body).toBe('xy');
    expect(second?.meta).toBe(first?.meta);
  });
});

describe('ToolInputNotificationStream refuses bad options and bad input with typed errors', () => {
  it.each([
    [{ toolCallId: '' }, TypeError],
    [{ toolName: 42 }, TypeError],
    [{ minGrowth: -1 }, RangeError],
    [{ minGrowth: Number.NaN }, RangeError],
    [{ minIntervalMs: Infinity }, RangeError],
    [{ minIntervalMs: '5' }, RangeError],
  ])('%j', (options, type) => {
    expect(() => new ToolInputNotificationStream(options as ToolInputNotificationStreamOptions)).toThrow(type);
  });

  it.each([
    ['null', null],
    ['an event without a type', { index: 0 }],
    ['a part without its part', { type: 'part', index: 0 }],
    ['a start with a numeric id', { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 1, toolName: 'w' } }],
    ['a tool-call whose arguments are not JSON', { type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'w', arguments: () => 1 }],
  ])('%s: a RelayError invalid-data', async (_what, event) => {
    const { error } = await settle(streamOf([event as PipelineEvent]).pipeThrough(new ToolInputNotificationStream()));
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).code).toBe('invalid-data');
  });

  it('arguments nested deeper than maxDepth: tool-cancelled (invalid), in bounded time', async () => {
    const deep = `{"a":${'['.repeat(100_000)}`;
    const notifications = await notificationsOf(streamOf<StreamEvent>([start(0, 'c', 'w'), args(0, deep), flush(0)]));
    expect(notifications.at(-1)).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: "The tool call's arguments were not valid JSON" } });
  });

  it('a progress fragment nested deeper than maxDepth: a JsonStreamError max-depth', async () => {
    let fragment: unknown = { type: 'start', kind: 'array' };
    for (let i = 0; i < 300; i++) fragment = { type: 'item', index: 0, value: fragment };
    const { error } = await settle(streamOf([{ type: 'tool-call-progress', index: 0, toolCallId: 'c', toolName: 'w', fragment } as PipelineEvent]).pipeThrough(new ToolInputNotificationStream()));
    expect(error).toBeInstanceOf(JsonStreamError);
    expect((error as JsonStreamError).code).toBe('max-depth');
  });

  it('path updates that do not fit together stop the partials; the call is decided by its conversation event', async () => {
    const events: PipelineEvent[] = [
      { type: 'path-update', kind: 'start-object', path: '', toolCallId: 'c', index: 0 },
      { type: 'path-update', kind: 'end-array', path: '', toolCallId: 'c', index: 0 },
      { type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'w', arguments: { a: 1 } },
    ];
    const notifications = await notificationsOf(streamOf(events), { minGrowth: 0 });
    expect(notifications).toEqual([
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input-partial', params: { arguments: {} } },
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { a: 1 } } },
    ]);
  });

  it('nothing of an error reaches the view: a failed call\'s reason is a fixed sentence, whatever its error says', async () => {
    const secret = 'sk-live-0123456789 at https://internal.example/v1?key=abc';
    const events: PipelineEvent[] = [
      { type: 'tool-call-failed', index: 0, toolCallId: 'c', toolName: 'w', error: new ProviderError('anthropic', 'invalid', secret) },
    ];
    const notifications = await notificationsOf(streamOf(events));
    expect(notifications).toEqual([{ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'The tool call failed' } }]);
    expect(JSON.stringify(notifications)).not.toContain('sk-live');
  });

  it('a `__proto__` member is an own member of the partial and final arguments, and no prototype changes', async () => {
    const events: StreamEvent[] = [start(0, 'c', 'w'), args(0, '{"__proto__":{"polluted":'), args(0, 'true},"a":1}'), flush(0)];
    const notifications = await notificationsOf(streamOf(events), { minGrowth: 0 });
    const final = notifications.at(-1)?.params as { arguments: Record<string, unknown> };
    expect(Object.hasOwn(final.arguments, '__proto__')).toBe(true);
    expect(JSON.stringify(final.arguments)).toBe('{"__proto__":{"polluted":true},"a":1}');
    const partial = notifications[0]?.params as { arguments: Record<string, unknown> };
    expect(Object.hasOwn(partial.arguments, '__proto__')).toBe(true);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('nothing after the final notification, whatever comes', async () => {
    const events: StreamEvent[] = [start(0, 'c', 'w'), args(0, '{}'), flush(0), start(1, 'd', 'w'), args(1, '{"x":1}'), flush(1), { type: 'nonsense' } as unknown as StreamEvent];
    const notifications = await notificationsOf(streamOf(events));
    expect(notifications.map((n) => n.method)).toEqual(['ui/notifications/tool-input-partial', 'ui/notifications/tool-input']);
  });
});

describe('a host passes the notifications to AppBridge', () => {
  it('sendToolInputPartial / sendToolInput with each notification\'s params: the App gets exactly them', async () => {
    const recording = readManifest().find((r) => r.file === 'openai-chat/single-tool-call.sse') as ManifestRecording;
    const notifications = await notificationsOf(providerEvents(recording), { minGrowth: 0 });
    const view = await connectApp();
    try {
      for (const notification of notifications) {
        if (notification.method === 'ui/notifications/tool-input-partial') await view.bridge.sendToolInputPartial(notification.params);
        else if (notification.method === 'ui/notifications/tool-input') await view.bridge.sendToolInput(notification.params);
        else await view.bridge.sendToolCancelled(notification.params);
      }
      await view.settle();
      expect(view.errors).toEqual([]);
      expect(view.received.map((r) => (r.kind === 'cancelled' ? r.reason : r.arguments))).toEqual(notifications.map((n) => ('arguments' in n.params ? n.params.arguments : n.params.reason)));
      expect(view.received.at(-1)).toEqual({ kind: 'input', arguments: expectedArguments((recording.toolCalls[0] as { args: string }).args) });
    } finally {
      await view.close();
    }
  });
});
