/**
 * `'gemini-interactions'`: Gemini's Interactions API stream. The recordings are constructed from
 * the API's documentation (see `fixtures/providers/gemini-interactions/README.md`); the oracle of
 * each is the MANIFEST (its calls, finish and errors), read by the test-side SSE splitter.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { createGeminiInteractionsAdapter } from '../../src/providers/gemini-interactions.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { settle, streamOf } from '../helpers.ts';
import { manifestRecordings, type ManifestRecording } from '../manifest.ts';
import {
  assemble,
  assembleEvents,
  bytesOf,
  expectedArguments,
  manifestError,
  runAdapter,
  runStream,
  slotsInOrderOfAppearance,
  sseObjects,
  sseRecords,
  streamCuttings,
  textOf,
  type WireRecord,
} from './event-stream-helpers.ts';

const run = (file: string) => runAdapter(createGeminiInteractionsAdapter(), sseRecords(textOf(file)));
const recordings = manifestRecordings('gemini-interactions');
const sse = (records: ReadonlyArray<readonly [string, Record<string, unknown>]>) =>
  records.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ ...data, event_type: type })}\n\n`).join('');
const completed = (status: string, usage?: Record<string, unknown>) =>
  ['interaction.completed', { interaction: { id: 'v1_x', status, ...(usage === undefined ? {} : { usage }) } }] as const;

async function turnOf(text: string) {
  return collectTurn(streamOf([text]).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
}

describe('createGeminiInteractionsAdapter on every recording', () => {
  it('covers the seven recordings of the manifest', () => {
    expect(recordings.map((r) => r.file.replace('gemini-interactions/', ''))).toEqual([
      'docs-streaming-count-to-25.sse',
      'constructed-thought-text-function-call-arguments-delta.sse',
      'constructed-parallel-function-calls-one-without-arguments.sse',
      'constructed-code-execution-then-text.sse',
      'constructed-error-after-text.sse',
      'constructed-function-call-incomplete.sse',
      'constructed-earlier-revision-content-events.sse',
    ]);
  });

  it.each(recordings.map((recording) => [recording.file, recording] as const))('%s: the manifest\'s calls, finish and errors', (file, recording: ManifestRecording) => {
    const { events, error } = run(file);
    expect(slotsInOrderOfAppearance(events)).toBe(true);
    const assembled = assembleEvents(events);
    expect(assembled.toolCalls.map((c) => [c.id, c.name, c.args])).toEqual(
      recording.toolCalls.map((c) => [c.id, c.name, c.args === '' ? '' : expect.any(String)]),
    );
    recording.toolCalls.forEach((expected, i) => {
      const actual = assembled.toolCalls[i]?.args ?? '';
      if (expected.remark?.startsWith('NOT valid JSON')) expect(actual).toBe(expected.args);
      else if (expected.args !== '') expect(JSON.parse(actual)).toEqual(JSON.parse(expected.args));
    });
    expect(assembled.providerToolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.args) as unknown }))).toEqual(
      recording.providerToolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.args) as unknown })),
    );
    if (recording.errors !== undefined) {
      const expected = manifestError(recording.errors);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'gemini-interactions', message: expected.message, code: expected.code });
      return;
    }
    expect(error).toBeUndefined();
    expect(assemble(events).unflushed).toEqual([]);
    expect(assembled.finished?.rawReason).toBe(JSON.parse(recording.finish));
  });

  it.each(recordings.filter((r) => r.errors === undefined).map((r) => [r.file, r] as const))(
    '%s: ProviderEventStream gives the same turn from the bytes under every cutting, and from the SDK\'s objects',
    async (file, recording) => {
      const expectedCalls = recording.toolCalls.filter((c) => !c.remark?.startsWith('NOT valid JSON')).map((c) => ({ toolCallId: c.id, toolName: c.name, arguments: expectedArguments(c.args) }));
      const fromObjects = await collectTurn(streamOf(sseObjects(textOf(file)) as object[]).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
      for (const [label, chunks] of [...streamCuttings(bytesOf(file)), ['objects', sseObjects(textOf(file)) as object[]] as const]) {
        const turn = await collectTurn(streamOf<ProviderEventStreamInput>(chunks).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
        expect(turn.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, arguments: c.arguments })), label).toEqual(expectedCalls);
        expect(turn.text, label).toBe(fromObjects.text);
        expect(turn.reasoning, label).toBe(fromObjects.reasoning);
        expect(turn.rawFinishReason, label).toBe(JSON.parse(recording.finish));
      }
    },
  );
});

describe('createGeminiInteractionsAdapter reads', () => {
  it('the documented example: a signature-only thought, the text, completed with usage (thought tokens in the output)', async () => {
    const turn = await turnOf(textOf('gemini-interactions/docs-streaming-count-to-25.sse'));
    expect(turn.text).toBe(`${Array.from({ length: 25 }, (_, i) => i + 1).join(', ')}.`);
    expect(turn.events.find((e) => e.type === 'reasoning')).toMatchObject({ type: 'reasoning', text: '', signature: '...' });
    expect(turn.finishReason).toBe('stop');
    expect(turn.rawFinishReason).toBe('completed');
    expect(turn.usage).toMatchObject({ inputTokens: 11, outputTokens: 102, reasoningTokens: 32, totalTokens: 113 });
    expect(turn.toolCalls).toEqual([]);
  });

  it('thought summaries as reasoning with the signature, a function call streamed in arguments_delta, requires_action as tool-calls, event_id kept', () => {
    const { events } = run('gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse');
    const assembled = assembleEvents(events);
    const [thought, output, call] = assembled.slots;
    expect(thought?.reasoning).toBe('**Writing the file**\n\nThe user wants a Rust hello world. I will call write_file.');
    expect(thought?.flushMetadata).toEqual({ stepIndex: 0, eventId: 'evt_007', signature: 'CiQBjz1rX3Yb0ThoughtSignatureRecordingA==' });
    expect(output?.text).toBe("I'll write the file now.");
    expect(call?.argumentChunks).toBeGreaterThan(5);
    expect(assembled.finished).toMatchObject({ reason: 'tool-calls', rawReason: 'requires_action', metadata: { interactionId: 'v1_ChdHZW1pbmlJbnRlcmFjdGlvbnNSZWNvcmRpbmc', eventId: 'evt_028' } });
    // The argument chunks are the wire's, verbatim.
    const wire = sseRecords(textOf('gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse'))
      .filter((r) => (r.data as { delta?: { type?: string } }).delta?.type === 'arguments_delta')
      .map((r) => (r.data as { delta: { arguments: string } }).delta.arguments);
    expect(events.flatMap((e) => (e.type === 'part' && e.part.type === 'tool-call-arguments' ? [e.part.chunk] : []))).toEqual(wire);
  });

  it('a call with no arguments_delta: no chunk (its arguments are {}); code execution as a provider-run call with its result', async () => {
    const parallel = await turnOf(textOf('gemini-interactions/constructed-parallel-function-calls-one-without-arguments.sse'));
    expect(parallel.toolCalls[0]).toMatchObject({ toolCallId: 'fc_time_01', toolName: 'get_time', arguments: {} });
    const code = await turnOf(textOf('gemini-interactions/constructed-code-execution-then-text.sse'));
    expect(code.providerToolCalls).toHaveLength(1);
    expect(code.providerToolCalls[0]).toMatchObject({ toolCallId: 'ce_3f9a', toolName: 'code_execution', arguments: { language: 'PYTHON', code: 'print(sum(i * i for i in range(1, 11)))' } });
    expect(code.events.find((e) => e.type === 'provider-tool-result')).toMatchObject({ toolCallId: 'ce_3f9a', result: '385\n' });
    expect(code.text).toBe('The sum of the squares of 1 to 10 is 385.');
    expect(code.finishReason).toBe('stop');
  });

  it('a call cut by the output limit: incomplete, finish length', async () => {
    const turn = await turnOf(textOf('gemini-interactions/constructed-function-call-incomplete.sse'));
    expect(turn.toolCalls).toEqual([]);
    expect(turn.incompleteToolCalls).toHaveLength(1);
    expect(turn.incompleteToolCalls[0]).toMatchObject({ toolCallId: 'fc_cut_01', toolName: 'write_file', stopReason: 'incomplete' });
    expect(turn.finishReason).toBe('length');
  });

  it('an error event: a ProviderError after the text before it', async () => {
    const { events, error } = await runStream('gemini-interactions', [bytesOf('gemini-interactions/constructed-error-after-text.sse')]);
    expect(events.filter((e) => e.type === 'part').map((e) => (e as { part: { text: string } }).part.text).join('')).toBe('Here is the first part of the answer');
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'gemini-interactions', type: 'error', code: 'resource_exhausted', message: 'Resource has been exhausted (e.g. check quota).' });
  });

  it.each([
    ['completed', false, 'stop'],
    ['completed', true, 'tool-calls'],
    ['requires_action', false, 'tool-calls'],
    ['incomplete', false, 'length'],
    ['budget_exceeded', false, 'length'],
    ['cancelled', false, 'other'],
    ['something_new', false, 'other'],
  ] as const)('status %s (a function call: %s) finishes as %s', (status, call, reason) => {
    const records: WireRecord[] = [
      ...(call ? [{ data: { event_type: 'step.start', index: 0, step: { type: 'function_call', id: 'f', name: 'n', arguments: {} } } }, { data: { event_type: 'step.stop', index: 0 } }] : []),
      { data: { event_type: 'interaction.completed', interaction: { id: 'v1_x', status } } },
    ];
    const { events } = runAdapter(createGeminiInteractionsAdapter(), records);
    expect(events.at(-1)).toEqual({ type: 'finished', reason, rawReason: status, metadata: { interactionId: 'v1_x' } });
  });

  it('the first revision\'s partial_arguments', async () => {
    const text = sse([
      ['step.start', { index: 0, step: { type: 'model_output' } }],
      ['step.delta', { index: 0, delta: { type: 'text', text: 'Hi. ' } }],
      ['step.stop', { index: 0 }],
      ['step.start', { index: 1, step: { type: 'function_call', id: 'f1', name: 'get', arguments: {} } }],
      ['step.delta', { index: 1, delta: { type: 'arguments_delta', partial_arguments: '{"a":' } }],
      ['step.delta', { index: 1, delta: { type: 'arguments_delta', partial_arguments: '[1]}' } }],
      ['step.stop', { index: 1 }],
      ['step.stop', { index: 1 }],
      completed('requires_action'),
    ]);
    const turn = await turnOf(text);
    expect(turn.text).toBe('Hi. ');
    expect(turn.toolCalls.map((c) => [c.toolCallId, c.toolName, c.arguments])).toEqual([['f1', 'get', { a: [1] }]]);
  });

  it.each([
    ['a delta whose step.start was lost', [['step.delta', { index: 2, delta: { type: 'arguments_delta', arguments: '{"b":2}' } }]], 'out-of-order', 'a step.delta of step 2 before its step.start'],
    ['a stop whose step.start was lost', [['step.stop', { index: 2 }]], 'out-of-order', 'a step.stop of step 2 before its step.start'],
    ['a delta after its step.stop', [['step.start', { index: 2, step: { type: 'model_output' } }], ['step.stop', { index: 2 }], ['step.delta', { index: 2, delta: { type: 'text', text: 'x' } }]], 'out-of-order', 'a step.delta of step 2 after its step.stop'],
    ['a second step.start', [['step.start', { index: 2, step: { type: 'model_output' } }], ['step.start', { index: 2, step: { type: 'function_call', id: 'f', name: 'n' } }]], 'duplicate', 'a second step.start of step 2'],
  ] as const)('%s: a ProviderError invalid-stream, after what came before', async (_what, records, code, message) => {
    const before = [['step.start', { index: 0, step: { type: 'model_output' } }], ['step.delta', { index: 0, delta: { type: 'text', text: 'before' } }]] as const;
    const { events, error } = await runStream('gemini-interactions', [sse([...before, ...records] as unknown as Array<readonly [string, Record<string, unknown>]>)]);
    expect(error).toMatchObject({ provider: 'gemini-interactions', type: 'invalid-stream', code, message: `gemini-interactions: ${message}` });
    expect(events.filter((e) => e.type === 'part').map((e) => (e as { part: { text?: string } }).part.text)).toEqual(['before']);
  });

  it('a function call whose arguments come whole with its start and never stream', async () => {
    const turn = await turnOf(sse([['step.start', { index: 0, step: { type: 'function_call', id: 'f', name: 'n', arguments: { x: 'y' } } }], ['step.stop', { index: 0 }], completed('requires_action')]));
    expect(turn.toolCalls[0]?.arguments).toEqual({ x: 'y' });
  });
});

describe('createGeminiInteractionsAdapter refuses what is not its wire format, with typed errors', () => {
  it.each([
    ['a step.start without its index', [['step.start', { step: { type: 'model_output' } }]]],
    ['a step.start whose step is not an object', [['step.start', { index: 0, step: 'model_output' }]]],
    ['a step without a type', [['step.start', { index: 0, step: {} }]]],
    ['a delta that is not an object', [['step.delta', { index: 0, delta: [1] }]]],
    ['a text delta whose text is a number', [['step.start', { index: 0, step: { type: 'model_output' } }], ['step.delta', { index: 0, delta: { type: 'text', text: 3 } }]]],
    ['argument text in a model_output step', [['step.start', { index: 0, step: { type: 'model_output' } }], ['step.delta', { index: 0, delta: { type: 'arguments_delta', arguments: '{}' } }]]],
    ['text in a function_call step', [['step.start', { index: 0, step: { type: 'function_call', id: 'f', name: 'n' } }], ['step.delta', { index: 0, delta: { type: 'text', text: 'x' } }]]],
    ['an interaction.completed without its interaction', [['interaction.completed', {}]]],
    ['a function call id that is a number', [['step.start', { index: 0, step: { type: 'function_call', id: 7, name: 'n' } }]]],
  ] as const)('%s: a ProviderError invalid-format', async (_what, records) => {
    const { error } = await runStream('gemini-interactions', [sse(records as unknown as Array<readonly [string, Record<string, unknown>]>)]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'gemini-interactions', type: 'invalid-format' });
  });

  it('a complete Interaction (a request without stream: true): not-sse, saying how to ask for a stream', async () => {
    const body = JSON.stringify({ id: 'v1_x', object: 'interaction', status: 'requires_action', steps: [{ type: 'function_call', id: 'f', name: 'n', arguments: { a: 1 } }] });
    const { error } = await runStream('gemini-interactions', [body]);
    expect(error).toMatchObject({ provider: 'gemini-interactions', type: 'invalid-stream', code: 'not-sse' });
    expect((error as Error).message).toContain('stream: true');
  });

  it('an interaction that completes with status failed: a ProviderError failed, after what came before', async () => {
    const { events, error } = await runStream('gemini-interactions', [sse([['step.start', { index: 0, step: { type: 'model_output' } }], ['step.delta', { index: 0, delta: { type: 'text', text: 'a' } }], completed('failed')])]);
    expect(events.filter((e) => e.type === 'part')).toHaveLength(1);
    expect(error).toMatchObject({ provider: 'gemini-interactions', type: 'failed' });
  });

  it('a stream cut before interaction.completed: a ProviderError truncated, and the cut call is never complete', async () => {
    const text = textOf('gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse');
    const cut = text.slice(0, text.indexOf('event: step.stop', text.indexOf('"function_call"')));
    const { error } = await runStream('gemini-interactions', [cut]);
    expect(error).toMatchObject({ provider: 'gemini-interactions', type: 'invalid-stream', code: 'truncated' });
    expect((error as Error).message).toContain('`interaction.completed`');
    const turn = await settle(streamOf([cut]).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
    expect(turn.values.some((e: StreamEvent) => e.type === 'finished')).toBe(false);
  });

  it('content after interaction.completed is refused (after-end); unknown event types are ignored', async () => {
    const after = await runStream('gemini-interactions', [sse([completed('completed'), ['step.start', { index: 0, step: { type: 'model_output', content: [{ type: 'text', text: 'late' }] } }]])]);
    expect(after.error).toMatchObject({ provider: 'gemini-interactions', type: 'after-end' });
    const unknown = await runStream('gemini-interactions', [
      sse([['interaction.something_new', { x: 1 }], ['step.start', { index: 0, step: { type: 'model_output' } }], ['step.delta', { index: 0, delta: { type: 'image', data: 'AAAA' } }], ['step.stop', { index: 0 }], completed('completed')]),
    ]);
    expect(unknown.error).toBeUndefined();
    expect(unknown.events.at(-1)).toMatchObject({ type: 'finished', reason: 'stop' });
  });
});
