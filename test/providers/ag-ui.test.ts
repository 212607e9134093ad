/**
 * `ProviderEventStream({ provider: 'ag-ui' })` on AG-UI streams made from real provider recordings
 * (test/fixtures/providers/ag-ui/: each source recording replayed to the AI SDK, its parts written
 * as AG-UI events and encoded by the real `@ag-ui/encoder`; see record.mjs there):
 *
 * 1. the AG-UI bytes (whole and cut at random) give exactly the turn `collectTurn` gives on the
 *    provider's own recording: the same text, reasoning, calls with exact arguments, cut calls with
 *    the same partial arguments, and the provider's error with its code and message;
 * 2. the event objects `@ag-ui/client` yields for the same bytes (its `HttpAgent`, which expands
 *    the `*_CHUNK` forms and verifies the sequence) give the same turn, and that turn's calls are
 *    the ones the client's own messages end with;
 * 3. every other reading rule of the adapter, on hand-made events: chunks and lanes, roles, the
 *    run's finish, passed-on events, and input out of order.
 */
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { AG_UI_PROVIDER } from '../../src/bindings/ag-ui.ts';
import { ProviderError } from '../../src/errors.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { TurnStore } from '../../src/store/source-reading.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import type { ConversationEvent, StreamEvent } from '../../src/types.ts';
import { readFixture, settle, streamOf } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import { PROVIDER_OF_DIR, streamCuttings } from './event-stream-helpers.ts';
import { RECORDINGS } from '../fixtures/providers/ag-ui/record.mjs';

type Recording = { readonly source: string; readonly form: string };
const AG_UI = Object.entries(RECORDINGS as Record<string, Recording>);

/** What the two turns are compared on: everything AG-UI carries. */
function essence(turn: Turn) {
  return {
    text: turn.text,
    reasoning: turn.reasoning,
    toolCalls: turn.toolCalls.map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.arguments })),
    incompleteToolCalls: turn.incompleteToolCalls.map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName, partialArguments: call.partialArguments })),
    failedToolCalls: turn.failedToolCalls.map((call) => call.toolCallId),
  };
}

/** The conversation events a stream makes before it ends or fails, and its error. */
async function conversation(chunks: readonly ProviderEventStreamInput[], provider: 'ag-ui' | (typeof PROVIDER_OF_DIR)[string]) {
  return settle(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })).pipeThrough(new ConversationEventStream()));
}

const textOf = (events: readonly ConversationEvent[]) => events.map((event) => (event.type === 'message' ? event.text : '')).join('');

/** The events `@ag-ui/client`'s `HttpAgent` applies for these bytes (served by a `fetch` of its own), and the messages it ends with. */
async function agUiClient(bytes: Uint8Array): Promise<{ events: BaseEvent[]; messages: Message[]; runError: BaseEvent | undefined }> {
  const agent = new HttpAgent({
    url: 'http://agent.invalid/run',
    fetch: async () => new Response(streamOf(cutEvery(bytes, 61)), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  });
  const events: BaseEvent[] = [];
  let runError: BaseEvent | undefined;
  await agent.runAgent({}, {
    onEvent: ({ event }) => {
      events.push(structuredClone(event));
    },
    onRunErrorEvent: ({ event }) => {
      runError = event;
    },
  });
  return { events, messages: agent.messages, runError };
}

function cutEvery(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

describe('ProviderEventStream ag-ui on AG-UI streams made from real provider recordings', () => {
  for (const [name, { source }] of AG_UI) {
    const bytes = readFixture(`providers/ag-ui/${name}`);
    const sourceEntry = manifestEntry(source);
    const sourceProvider = PROVIDER_OF_DIR[sourceEntry.dir]!;
    const sourceBytes = readFixture(`providers/${source}`);

    if (sourceEntry.errors === undefined) {
      it(`ProviderEventStream ag-ui gives ${name} exactly the turn collectTurn gives ${source}, at every cutting`, async () => {
        const expected = essence(await collectTurn(streamOf([sourceBytes]).pipeThrough(new ProviderEventStream({ provider: sourceProvider }))));
        // The recording holds what the manifest lists: the comparison is not vacuous.
        expect(expected.toolCalls.length + expected.incompleteToolCalls.length).toBe(sourceEntry.toolCalls.length);
        for (const [label, chunks] of streamCuttings(bytes)) {
          const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })));
          expect(essence(turn), label).toEqual(expected);
          // AG-UI has no finish reason: a run that left calls unanswered is `tool-calls`, else `stop`.
          expect(turn.finishReason, label).toBe(turn.toolCalls.length + turn.incompleteToolCalls.length > 0 ? 'tool-calls' : 'stop');
        }
      });
    } else {
      it(`ProviderEventStream ag-ui ends ${name} in the ProviderError of ${source}: RUN_ERROR's code and message, after the same text`, async () => {
        const expected = await conversation([sourceBytes], sourceProvider);
        expect(expected.error).toBeInstanceOf(ProviderError);
        for (const [label, chunks] of streamCuttings(bytes)) {
          const { values, error } = await conversation(chunks, 'ag-ui');
          expect(error, label).toBeInstanceOf(ProviderError);
          expect(error, label).toMatchObject({
            provider: 'ag-ui',
            type: 'error',
            code: (expected.error as ProviderError).code,
            message: (expected.error as ProviderError).message,
          });
          expect(textOf(values as ConversationEvent[])).toBe(textOf(expected.values as ConversationEvent[]));
        }
      });
    }

    it(`ProviderEventStream ag-ui reads the events @ag-ui/client yields for ${name} as it reads their bytes, and its calls are the client's`, async () => {
      const client = await agUiClient(bytes);
      const fromBytes = await conversation([bytes], 'ag-ui');
      const fromObjects = await conversation(client.events, 'ag-ui');
      expect(fromObjects.values).toEqual(fromBytes.values);
      expect(String(fromObjects.error)).toBe(String(fromBytes.error));
      if (sourceEntry.errors !== undefined) {
        expect(client.runError).toMatchObject({ type: 'RUN_ERROR', code: (fromBytes.error as ProviderError).code });
        return;
      }
      const turn = await collectTurn(streamOf(client.events).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })));
      // The client's messages: its assistant text, and each call's argument text, parsed.
      const clientCalls = client.messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : []));
      const complete = new Set(turn.toolCalls.map((call) => call.toolCallId));
      expect(clientCalls.map((call) => call.id)).toEqual([...turn.toolCalls, ...turn.incompleteToolCalls].map((call) => call.toolCallId).sort((a, b) => clientCalls.findIndex((c) => c.id === a) - clientCalls.findIndex((c) => c.id === b)));
      for (const call of clientCalls) {
        if (!complete.has(call.id)) continue;
        const mine = turn.toolCalls.find((c) => c.toolCallId === call.id)!;
        expect(mine.toolName).toBe(call.function.name);
        expect(mine.arguments).toEqual(call.function.arguments === '' ? {} : JSON.parse(call.function.arguments));
      }
      const clientText = client.messages.map((message) => (message.role === 'assistant' && typeof message.content === 'string' ? message.content : '')).join('');
      expect(turn.text).toBe(clientText);
      const clientReasoning = client.messages.map((message) => (message.role === 'reasoning' ? message.content : '')).join('');
      expect(turn.reasoning).toBe(clientReasoning);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The reading rules, on hand-made events.

const RUN = { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' };
const FINISHED = { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' };

async function events(records: readonly ProviderEventStreamInput[]): Promise<{ values: StreamEvent[]; error: unknown }> {
  return settle(streamOf(records).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })));
}

async function turnOf(records: readonly object[]): Promise<Turn> {
  return collectTurn(streamOf(records).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })));
}

/** The SSE `@ag-ui/encoder` writes for these events. */
function sse(records: readonly object[]): Uint8Array {
  return new TextEncoder().encode(records.map((record) => `data: ${JSON.stringify(record)}\n\n`).join(''));
}

describe('ProviderEventStream ag-ui reading rules', () => {
  it('ProviderEventStream ag-ui reads text, reasoning and calls, gives a call without argument text {} and passes steps, state and custom events on whole', async () => {
    const records = [
      RUN,
      { type: 'STEP_STARTED', stepName: 's' },
      { type: 'REASONING_START', messageId: 'r' },
      { type: 'REASONING_MESSAGE_START', messageId: 'r', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r', delta: 'Think.' },
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r', encryptedValue: 'sig-1' },
      { type: 'REASONING_MESSAGE_END', messageId: 'r' },
      { type: 'REASONING_END', messageId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'Hello' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: '' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'write', parentMessageId: 'm' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"path":' },
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/x', value: 1 }] },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"a.txt"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'now' },
      { type: 'TOOL_CALL_END', toolCallId: 'c2' },
      { type: 'CUSTOM', name: 'progress', value: { done: 1 } },
      { type: 'STEP_FINISHED', stepName: 's' },
      { ...FINISHED, usage: [{ inputTokens: 3, outputTokens: 4 }, { inputTokens: 1, outputTokens: 2, totalTokens: 3 }], result: { ok: true } },
    ];
    for (const input of [records, [sse(records)]] as ProviderEventStreamInput[][]) {
      const turn = await collectTurn(streamOf(input).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })));
      expect(turn.text).toBe('Hello');
      expect(turn.reasoning).toBe('Think.');
      expect(turn.events.find((event) => event.type === 'reasoning')).toMatchObject({ signature: 'sig-1' });
      expect(turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments, call.metadata])).toEqual([
        ['c1', 'write', { path: 'a.txt' }, { parentMessageId: 'm' }],
        ['c2', 'now', {}, undefined],
      ]);
      expect(turn.finishReason).toBe('tool-calls');
      expect(turn.usage).toMatchObject({ inputTokens: 4, outputTokens: 6, totalTokens: 3 });
    }
    const { values } = await events(records);
    const blocks = values.flatMap((event) => (event.type === 'flush' && event.metadata?.['blockType'] !== undefined ? [event.metadata['blockType']] : []));
    expect(blocks).toEqual(['RUN_STARTED', 'STEP_STARTED', 'REASONING_START', 'REASONING_END', 'STATE_DELTA', 'CUSTOM', 'STEP_FINISHED', 'RUN_FINISHED']);
    expect(values.at(-1)).toMatchObject({ type: 'finished', reason: 'tool-calls', metadata: { threadId: 't1', runId: 'r1', result: { ok: true } } });
  });

  it('ProviderEventStream ag-ui finishes with stop when every call got its TOOL_CALL_RESULT, and with other for an interrupt', async () => {
    const call = [
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'search' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
    ];
    const answered = await turnOf([RUN, ...call, { type: 'TOOL_CALL_RESULT', messageId: 'tm', toolCallId: 'c1', content: 'found' }, FINISHED]);
    expect(answered.finishReason).toBe('stop');
    expect(answered.toolCalls).toHaveLength(1);
    const interrupted = await turnOf([RUN, ...call, { ...FINISHED, outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'approval' }] } }]);
    expect([interrupted.finishReason, interrupted.rawFinishReason]).toEqual(['other', 'interrupt']);
    expect((await turnOf([RUN, { ...FINISHED, outcome: { type: 'success', pendingToolCallIds: ['x'] } }])).finishReason).toBe('tool-calls');
  });

  it('ProviderEventStream ag-ui expands *_CHUNK events as @ag-ui/client does: ids open, id-less chunks continue, the next stream or event ends them', async () => {
    const turn = await turnOf([
      RUN,
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', delta: 'Hi ' },
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'there' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'f', delta: '{"a":' },
      { type: 'TOOL_CALL_CHUNK', delta: '1}' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'c2', toolCallName: 'g', delta: '[1,' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'c2', delta: '2]' },
      { type: 'RAW', event: { any: 'thing' } },
      { type: 'TOOL_CALL_CHUNK', delta: '' },
      { type: 'STEP_STARTED', stepName: 'next' },
      { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r1', delta: 'Hm.' },
      FINISHED,
    ]);
    expect(turn.text).toBe('Hi there');
    expect(turn.reasoning).toBe('Hm.');
    expect(turn.toolCalls.map((call) => [call.toolCallId, call.arguments])).toEqual([
      ['c1', { a: 1 }],
      ['c2', [1, 2]],
    ]);
  });

  it('ProviderEventStream ag-ui keeps the chunk streams of two subagents apart (lanes by subagentRunId)', async () => {
    const turn = await turnOf([
      RUN,
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'a', toolCallName: 'f', delta: '{"x":', subagentRunId: 's1' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'b', toolCallName: 'g', delta: '{"y":', subagentRunId: 's2' },
      { type: 'TOOL_CALL_CHUNK', delta: '1}', subagentRunId: 's1' },
      { type: 'TOOL_CALL_CHUNK', delta: '2}', subagentRunId: 's2' },
      FINISHED,
    ]);
    expect(turn.toolCalls.map((call) => [call.toolCallId, call.arguments, call.metadata])).toEqual([
      ['a', { x: 1 }, { subagentRunId: 's1' }],
      ['b', { y: 2 }, { subagentRunId: 's2' }],
    ]);
    const { error } = await events([
      RUN,
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'a', toolCallName: 'f', subagentRunId: 's1' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'b', toolCallName: 'g', subagentRunId: 's2' },
      { type: 'TOOL_CALL_CHUNK', delta: '{}' },
    ]);
    expect(error).toMatchObject({ provider: 'ag-ui', type: 'invalid-stream', code: 'ambiguous' });
  });

  it('ProviderEventStream ag-ui passes a user, system or developer message on whole: it is not the assistant text', async () => {
    const turn = await turnOf([
      RUN,
      { type: 'TEXT_MESSAGE_START', messageId: 'u', role: 'user' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'u', delta: 'Question?' },
      { type: 'TEXT_MESSAGE_END', messageId: 'u' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 's', role: 'system', delta: 'Be brief.' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'a', delta: 'Answer.' },
      FINISHED,
    ]);
    expect(turn.text).toBe('Answer.');
  });

  it('ProviderEventStream ag-ui ends a call still open at RUN_FINISHED as cut, never complete, and one cut by the end of input too', async () => {
    const open = [RUN, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"a":[1' }];
    const cut = await turnOf([...open, FINISHED]);
    expect(cut.toolCalls).toEqual([]);
    expect(cut.incompleteToolCalls).toMatchObject([{ toolCallId: 'c1', partialArguments: { a: [1] } }]);
    const noArgs = await turnOf([RUN, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }, FINISHED]);
    expect(noArgs.toolCalls).toEqual([]);
    expect(noArgs.incompleteToolCalls).toMatchObject([{ toolCallId: 'c1', partialArguments: undefined }]);
    const { error } = await events(open);
    expect(error).toMatchObject({ provider: 'ag-ui', type: 'invalid-stream', code: 'truncated' });
  });

  it('fromResponse reads an AG-UI agent\'s HTTP error status as a ProviderError with the status, and its error body', async () => {
    const response = new Response(JSON.stringify({ error: { message: 'No such agent', type: 'not_found' } }), { status: 404, headers: { 'content-type': 'application/json' } });
    const { error } = await settle(fromResponse(response, { provider: 'ag-ui' }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'ag-ui', status: 404 });
    const html = await settle(fromResponse(new Response('<html>Bad gateway</html>', { status: 502 }), { provider: 'ag-ui' }));
    expect(html.error).toMatchObject({ provider: 'ag-ui', status: 502 });
    // A 200 that is not an event stream (an HTML page) is not AG-UI either.
    const page = await settle(fromResponse(new Response('<!doctype html><html></html>', { status: 200 }), { provider: 'ag-ui' }));
    expect(page.error).toMatchObject({ provider: 'ag-ui', type: 'invalid-stream', code: 'not-sse' });
  });

  it('TurnStore never shows an AG-UI call cut by the end of input, a RUN_ERROR or RUN_FINISHED as complete', async () => {
    const open = [RUN, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"path":"a.t' }];
    for (const end of [[], [{ type: 'RUN_ERROR', message: 'boom' }], [FINISHED]]) {
      const store = new TurnStore();
      const snapshot = await store.consume(new Response(new TextDecoder().decode(sse([...open, ...end]))), { decoder: new ProviderEventDecoder({ provider: AG_UI_PROVIDER }) });
      expect(snapshot.calls.map((call) => [call.toolCallId, call.status, call.input])).toEqual([['c1', 'failed', { path: 'a.t' }]]);
    }
  });

  it('ProviderEventStream ag-ui ends in RUN_ERROR\'s ProviderError after everything before it, and reads the client\'s abort as aborted', async () => {
    const { values, error } = await events([
      RUN,
      { type: 'TEXT_MESSAGE_START', messageId: 'm' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'partial' },
      { type: 'RUN_ERROR', message: 'Rate limited', code: 'rate_limit' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'never' },
    ]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'ag-ui', type: 'error', code: 'rate_limit', message: 'Rate limited' });
    expect(values.flatMap((event) => (event.type === 'part' && event.part.type === 'message' ? [event.part.text] : []))).toEqual(['partial']);
    expect((await events([RUN, { type: 'RUN_ERROR', message: 'Request aborted', code: 'abort' }])).error).toMatchObject({ type: 'aborted', code: 'abort' });
    expect((await events([{ type: 'RUN_ERROR', message: 'no run' }])).error).toMatchObject({ type: 'error', code: undefined, message: 'no run' });
  });

  it('ProviderEventStream ag-ui refuses events out of order with typed errors: arguments of an unknown call, an end without a start, a duplicate start, a second run, an event after the run', async () => {
    const cases: Array<[string, object[], string, string]> = [
      ['ARGS for an unknown id', [RUN, { type: 'TOOL_CALL_ARGS', toolCallId: 'nope', delta: '{}' }], 'invalid-stream', 'out-of-order'],
      ['END without START', [RUN, { type: 'TOOL_CALL_END', toolCallId: 'c1' }], 'invalid-stream', 'out-of-order'],
      ['CONTENT of an ended message', [RUN, { type: 'TEXT_MESSAGE_START', messageId: 'm' }, { type: 'TEXT_MESSAGE_END', messageId: 'm' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'x' }], 'invalid-stream', 'out-of-order'],
      ['a duplicate START', [RUN, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }], 'invalid-stream', 'duplicate'],
      [
        'a START of a call that ended',
        [RUN, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }, { type: 'TOOL_CALL_END', toolCallId: 'c1' }, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }],
        'invalid-stream',
        'duplicate',
      ],
      ['a chunk opening a message opened by START', [RUN, { type: 'TEXT_MESSAGE_START', messageId: 'm' }, { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'x' }], 'invalid-stream', 'duplicate'],
      ['a second RUN_STARTED', [RUN, RUN], 'invalid-stream', 'out-of-order'],
      ['an event after RUN_FINISHED', [RUN, FINISHED, { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'late' }], 'after-end', ''],
    ];
    for (const [what, records, type, code] of cases) {
      for (const input of [records, [sse(records)]] as ProviderEventStreamInput[][]) {
        const { error } = await events(input);
        expect(error, what).toBeInstanceOf(ProviderError);
        expect(error, what).toMatchObject({ provider: 'ag-ui', type, ...(code === '' ? {} : { code }) });
      }
    }
  });

  it('ProviderEventStream ag-ui bounds a huge delta: an SSE event beyond maxBufferedBytes, arguments beyond the parser\'s limits, both typed', async () => {
    const huge = 'x'.repeat(2_000);
    const records = [RUN, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: `"${huge}"` }];
    const { error } = await settle(streamOf([sse(records)]).pipeThrough(new ProviderEventStream({ provider: 'ag-ui', maxBufferedBytes: 1_000 })));
    expect(error).toMatchObject({ provider: 'ag-ui', type: 'invalid-stream', code: 'max-buffered-bytes' });
    const turn = collectTurn(
      streamOf([RUN, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: `{"a":"${huge}"}` }, { type: 'TOOL_CALL_END', toolCallId: 'c1' }, FINISHED]).pipeThrough(
        new ProviderEventStream({ provider: 'ag-ui' }),
      ),
      { maxStringLength: 100 },
    );
    await expect(turn).rejects.toMatchObject({ name: 'ToolCallArgumentsError', code: 'max-string-length' });
  });
});
