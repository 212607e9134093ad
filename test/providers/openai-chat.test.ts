import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { createOpenAIChatAdapter } from '../../src/providers/openai-chat.ts';
import type { StreamEvent } from '../../src/types.ts';
import { manifestRecordings, type ManifestRecording } from '../manifest.ts';
import {
  assemble,
  bytesOf,
  cutInsideLastLine,
  manifestError,
  runAdapter,
  runStream,
  slotsInOrderOfAppearance,
  sseRecords,
  streamCuttings,
  textOf,
  type WireRecord,
} from './event-stream-helpers.ts';

const DIRS = ['openai-chat', 'openai-compatible', 'mistral'];
const NORMALIZED: Record<string, string> = { tool_calls: 'tool-calls', stop: 'stop', length: 'length' };

function records(file: string): WireRecord[] {
  return sseRecords(textOf(file));
}

function run(file: string) {
  return runAdapter(createOpenAIChatAdapter(), records(file));
}

/** A chunk with one choice, as the wire sends it. */
function chunk(delta: Record<string, unknown>, finishReason: string | null = null, index = 0): WireRecord {
  return { data: { object: 'chat.completion.chunk', choices: [{ index, delta, finish_reason: finishReason }] } };
}

function toolDelta(...fragments: Record<string, unknown>[]): WireRecord {
  return chunk({ tool_calls: fragments });
}

function expectManifestToolCalls(recording: ManifestRecording, events: StreamEvent[]): void {
  const assembled = assemble(events);
  expect(assembled.toolCalls.map((c) => c.name)).toEqual(recording.toolCalls.map((c) => c.name));
  recording.toolCalls.forEach((expected, i) => {
    const actual = assembled.toolCalls[i];
    expect(actual?.id).toBe(expected.id);
    if (expected.serialized) expect(JSON.parse(actual?.args ?? '')).toEqual(JSON.parse(expected.args));
    else expect(actual?.args).toBe(expected.args);
  });
}

describe('createOpenAIChatAdapter on every recording', () => {
  const recordings = DIRS.flatMap((dir) => manifestRecordings(dir));

  it('covers every chat-format recording of the manifest', () => {
    expect(recordings.map((r) => r.file)).toHaveLength(22);
  });

  for (const recording of recordings) {
    it(`createOpenAIChatAdapter assembles ${recording.file} to the manifest's tool calls and finish`, () => {
      const { events, error } = run(recording.file);
      expectManifestToolCalls(recording, events);
      expect(slotsInOrderOfAppearance(events)).toBe(true);
      const assembled = assemble(events);
      if (recording.errors !== undefined) {
        const expected = manifestError(recording.errors);
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as ProviderError).provider).toBe('openai-chat');
        expect((error as ProviderError).message).toBe(expected.message);
        if (expected.code !== undefined) expect((error as ProviderError).code).toBe(expected.code);
        return;
      }
      expect(error).toBeUndefined();
      expect(assembled.unflushed).toEqual([]);
      const finish = JSON.parse(recording.finish) as Record<string, string>;
      const raw = finish['0'] as string;
      expect(assembled.finished).toMatchObject({ rawReason: raw, reason: NORMALIZED[raw] });
    });
  }
});

describe('createOpenAIChatAdapter on specific recordings', () => {
  it('createOpenAIChatAdapter keeps n > 1 choices apart, a slot per choice, with the choice index in metadata', () => {
    const assembled = assemble(run('openai-chat/n3-choices-interleaved.sse').events);
    expect(assembled.texts.map((t) => [t.kind, t.metadata['choiceIndex'], JSON.parse(t.text)])).toEqual([
      ['message', 0, { city: 'San Francisco', temperature: 65, units: 'f' }],
      ['message', 1, { city: 'San Francisco', temperature: 61, units: 'f' }],
      ['message', 2, { city: 'San Francisco', temperature: 59, units: 'f' }],
    ]);
    expect(assembled.finished?.metadata).toEqual({ finishReasons: { 0: 'stop', 1: 'stop', 2: 'stop' } });
  });

  it('createOpenAIChatAdapter streams a refusal as refusal parts in a slot of its own', () => {
    const assembled = assemble(run('openai-chat/refusal.sse').events);
    expect(assembled.texts).toHaveLength(1);
    expect(assembled.texts[0]).toMatchObject({ kind: 'refusal', text: "I'm sorry, I can't assist with that request." });
    expect(assembled.finished).toMatchObject({ reason: 'stop', rawReason: 'stop' });
  });

  it('createOpenAIChatAdapter reports a length finish with the text so far', () => {
    const assembled = assemble(run('openai-chat/finish-length.sse').events);
    expect(assembled.texts.map((t) => t.text)).toEqual(['{"']);
    expect(assembled.finished).toMatchObject({ reason: 'length', rawReason: 'length' });
  });

  it('createOpenAIChatAdapter holds finished until the trailing usage chunk, then emits it with the usage', () => {
    const adapter = createOpenAIChatAdapter();
    const all = records('openai-chat/parallel-2-tool-calls.sse');
    const finishIndex = all.findIndex((r) => JSON.stringify(r.data).includes('"finish_reason":"tool_calls"'));
    const before = all.slice(0, finishIndex + 1).flatMap((r) => adapter.push(r.data, r.event));
    expect(before.filter((e) => e.type === 'finished')).toEqual([]);
    // Both calls are flushed at finish_reason, in slot order.
    expect(before.filter((e) => e.type === 'flush').map((e) => e.index)).toEqual([0, 1]);
    const usageChunk = all[finishIndex + 1] as WireRecord;
    expect(adapter.push(usageChunk.data, usageChunk.event)).toEqual([
      {
        type: 'finished',
        reason: 'tool-calls',
        rawReason: 'tool_calls',
        usage: {
          inputTokens: 149,
          outputTokens: 60,
          totalTokens: 209,
          reasoningTokens: 0,
          raw: { prompt_tokens: 149, completion_tokens: 60, total_tokens: 209, completion_tokens_details: { reasoning_tokens: 0 } },
        },
      },
    ]);
    expect(adapter.end()).toEqual([]);
  });

  it('createOpenAIChatAdapter emits finished at once when usage comes with finish_reason (DeepSeek)', () => {
    const adapter = createOpenAIChatAdapter();
    const events = records('openai-compatible/deepseek-reasoner-tool-call.sse').flatMap((r) => adapter.push(r.data, r.event));
    expect(events.at(-1)).toMatchObject({
      type: 'finished',
      reason: 'tool-calls',
      usage: { inputTokens: 339, outputTokens: 83, totalTokens: 422, reasoningTokens: 39, cachedInputTokens: 320 },
    });
    expect(adapter.end()).toEqual([]);
    const assembled = assemble(events);
    expect(assembled.texts.map((t) => [t.slot, t.kind])).toEqual([[0, 'reasoning']]);
    expect(assembled.texts[0]?.text.startsWith('The user')).toBe(true);
    expect(assembled.toolCalls.map((c) => c.slot)).toEqual([1]);
  });

  it('createOpenAIChatAdapter maps reasoning, reasoning_content and Mistral thinking chunks to reasoning slots', () => {
    const groq = assemble(run('openai-compatible/groq-gpt-oss-tool-call-whole.sse').events);
    expect(groq.texts.map((t) => t.kind)).toEqual(['reasoning']);
    expect(groq.texts[0]?.text.startsWith('We need to')).toBe(true);
    expect(groq.finished?.usage).toMatchObject({ inputTokens: 304, outputTokens: 49, totalTokens: 353, reasoningTokens: 23 });

    const magistral = assemble(run('mistral/magistral-thinking-content-chunks.sse').events);
    expect(magistral.texts.map((t) => t.kind)).toEqual(['reasoning', 'message']);
    expect(magistral.texts[0]?.text).toBe(
      'Okay, the user is asking how to cross the street. I know that crossing the street safely involves a few key steps: first, look both ways to check for oncoming traffic; second, use a crosswalk if one is available; third, obey any traffic signals or signs that may be present; and finally, proceed with caution until you have safely reached the other side. Let me compile this information into a clear and concise response.',
    );
    expect(magistral.texts[1]?.text.startsWith('To cross the street safely, follow these steps:\n\n1. Look both ways')).toBe(true);
    expect(magistral.texts[1]?.text.endsWith('By following these steps, you can ensure a safe crossing.')).toBe(true);
  });

  it('createOpenAIChatAdapter delivers everything before a Groq `event: error`, then throws a typed error', () => {
    const { events, error } = run('openai-compatible/groq-event-error-tool-use-failed.sse');
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'openai-chat', type: 'invalid_request_error', code: 'tool_use_failed' });
    expect(((error as ProviderError).cause as { failed_generation: string }).failed_generation).toContain('get_something_by_name');
    const assembled = assemble(events);
    expect(assembled.texts.map((t) => t.kind)).toEqual(['reasoning']);
    expect(assembled.texts[0]?.text.endsWith(' Let\'s do that.')).toBe(true);
    expect(assembled.finished).toBeUndefined();
  });

  it('createOpenAIChatAdapter flushes at the first finish_reason and throws on an OpenRouter error chunk', () => {
    const { events, error } = run('openai-compatible/openrouter-comments-midstream-error.sse');
    expect(error).toMatchObject({ provider: 'openai-chat', type: 'error', code: '400', message: 'Token limit reached' });
    const assembled = assemble(events);
    expect(assembled.texts.map((t) => [t.kind, t.text])).toEqual([['reasoning', 'We need to respond to a greeting. The user']]);
    expect(assembled.unflushed).toEqual([]);
  });

  it('createOpenAIChatAdapter ignores `null` and `""` ids and names (Writer, DashScope, GLM via Mistral)', () => {
    const writer = assemble(run('openai-compatible/writer-parallel-tool-calls-null-fields.sse').events);
    expect(writer.toolCalls.map((c) => c.slot)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const glm = run('mistral/incremental-tool-call-empty-name.sse').events;
    const starts = glm.filter((e) => e.type === 'part' && e.part.type === 'tool-call-start');
    expect(starts).toHaveLength(1);
  });
});

describe('createOpenAIChatAdapter merge rules', () => {
  it('createOpenAIChatAdapter interleaves parallel calls by index', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [
      toolDelta({ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }),
      toolDelta({ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{"y"' } }),
      toolDelta({ index: 0, function: { arguments: '{"x":' } }),
      toolDelta({ index: 1, function: { arguments: ':2}' } }),
      toolDelta({ index: 0, function: { arguments: '1}' } }),
      chunk({}, 'tool_calls'),
    ]);
    const assembled = assemble(events);
    expect(assembled.toolCalls.map((c) => [c.slot, c.id, c.name, c.args])).toEqual([
      [0, 'a', 'f', '{"x":1}'],
      [1, 'b', 'g', '{"y":2}'],
    ]);
    expect(assembled.unflushed).toEqual([]);
    expect(assembled.finished).toMatchObject({ reason: 'tool-calls' });
  });

  it('createOpenAIChatAdapter starts a new call when an index is reused with a different id (sglang)', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [
      toolDelta({ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }),
      toolDelta({ index: 0, id: 'b', function: { name: 'g', arguments: '{"k":' } }),
      toolDelta({ index: 0, id: 'b', function: { arguments: '1}' } }),
    ]);
    const assembled = assemble(events);
    expect(assembled.toolCalls.map((c) => [c.id, c.name, c.args])).toEqual([
      ['a', 'f', '{}'],
      ['b', 'g', '{"k":1}'],
    ]);
    // The first call is flushed as soon as the second one starts.
    const flushA = events.findIndex((e) => e.type === 'flush' && e.index === 0);
    const startB = events.findIndex((e) => e.type === 'part' && e.index === 1);
    expect(flushA).toBeGreaterThanOrEqual(0);
    expect(flushA).toBeLessThan(startB);
  });

  it('createOpenAIChatAdapter keys calls without index by id, else continues the last call (Mistral, old Ollama)', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [
      toolDelta({ id: 'one', function: { name: 'f', arguments: '{"a":' } }),
      toolDelta({ function: { arguments: '1}' } }),
      toolDelta({ id: 'two', function: { name: 'f', arguments: '{"a":2}' } }),
      toolDelta({ id: 'one', function: { name: 'f' } }),
    ]);
    expect(assemble(events).toolCalls.map((c) => [c.id, c.args])).toEqual([
      ['one', '{"a":1}'],
      ['two', '{"a":2}'],
    ]);
  });

  it('createOpenAIChatAdapter keeps the first non-empty id and name and appends every argument piece', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [
      // llama.cpp: the first delta already holds the start of the arguments; the name repeats.
      toolDelta({ index: 0, id: 'x1', function: { name: 'write', arguments: '{' } }),
      toolDelta({ index: 0, id: '', function: { name: 'write', arguments: '"p": ' } }),
      toolDelta({ index: 0, id: null, type: null, function: { name: null, arguments: null } }),
      toolDelta({ index: 0, function: { name: '', arguments: '" a b "}' } }),
    ]);
    const [call] = assemble(events).toolCalls;
    expect(call).toMatchObject({ id: 'x1', name: 'write', args: '{"p": " a b "}', chunks: 3 });
  });

  it('createOpenAIChatAdapter emits tool-call-start again when the id arrives after the name', () => {
    const adapter = createOpenAIChatAdapter();
    const first = adapter.push(toolDelta({ index: 0, function: { name: 'f', arguments: '{' } }).data);
    const second = adapter.push(toolDelta({ index: 0, id: 'late', function: { arguments: '}' } }).data);
    expect(first[0]).toMatchObject({ part: { type: 'tool-call-start', toolCallId: '', toolName: 'f' } });
    expect(second[0]).toMatchObject({ part: { type: 'tool-call-start', toolCallId: 'late', toolName: 'f' } });
    expect(assemble([...first, ...second, ...adapter.end()]).toolCalls[0]).toMatchObject({ id: 'late', args: '{}' });
  });

  it('createOpenAIChatAdapter reads an id placed inside `function` (old llama.cpp)', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [toolDelta({ index: 0, function: { id: 'in-fn', name: 'f', arguments: '{}' } })]);
    expect(assemble(events).toolCalls[0]?.id).toBe('in-fn');
  });

  it('createOpenAIChatAdapter generates stable, distinct ids for calls that never got one', () => {
    const input = [
      toolDelta({ index: 0, function: { name: 'f', arguments: '{}' } }),
      toolDelta({ index: 1, function: { name: 'f', arguments: '{}' } }),
    ];
    const ids = assemble(runAdapter(createOpenAIChatAdapter(), input).events).toolCalls.map((c) => c.id);
    const again = assemble(runAdapter(createOpenAIChatAdapter(), input).events).toolCalls.map((c) => c.id);
    expect(ids.every((id) => id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(again).toEqual(ids);
    const custom = runAdapter(createOpenAIChatAdapter({ createToolCallId: ({ position }) => `mine-${position}` }), input);
    expect(assemble(custom.events).toolCalls.map((c) => c.id)).toEqual(['mine-0', 'mine-1']);
  });

  it('createOpenAIChatAdapter emits no argument chunk for empty arguments (downstream reads {})', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [
      toolDelta({ index: 0, id: 'c', function: { name: 'now', arguments: '' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events.filter((e) => e.type === 'part').map((e) => (e.type === 'part' ? e.part.type : ''))).toEqual(['tool-call-start']);
    expect(assemble(events).toolCalls[0]).toMatchObject({ id: 'c', name: 'now', args: '', chunks: 0 });
  });

  it('createOpenAIChatAdapter keeps continuity tokens in metadata (Gemini thought_signature, OpenRouter reasoning_details)', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [
      chunk({ reasoning: 'hm', reasoning_details: [{ type: 'reasoning.text', text: 'hm', signature: 'sig-1' }] }),
      chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'opaque' }] }),
      toolDelta({ id: 'g1', function: { name: 'f', arguments: '{}' }, extra_content: { google: { thought_signature: 'ts' } } }),
    ]);
    const assembled = assemble(events);
    expect(assembled.texts[0]?.text).toBe('hm');
    expect(assembled.texts[0]?.metadata['reasoningDetails']).toEqual([{ type: 'reasoning.encrypted', data: 'opaque' }]);
    const reasoningParts = events.filter((e) => e.type === 'part' && e.index === 0);
    expect(reasoningParts[0]?.metadata).toMatchObject({ reasoningDetails: [{ type: 'reasoning.text', text: 'hm', signature: 'sig-1' }] });
    expect(assembled.toolCalls[0]?.metadata['thoughtSignature']).toBe('ts');
  });

  it('createOpenAIChatAdapter reads reasoning once when a server sends both reasoning and reasoning_content', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [chunk({ reasoning_content: 'think', reasoning: 'think' })]);
    expect(assemble(events).texts.map((t) => t.text)).toEqual(['think']);
  });

  it('createOpenAIChatAdapter flushes truncated calls at end() and emits no finished without finish_reason', () => {
    const all = records('openai-chat/single-tool-call.sse');
    const cut = all.slice(0, 6);
    const { events } = runAdapter(createOpenAIChatAdapter(), cut);
    const assembled = assemble(events);
    expect(assembled.unflushed).toEqual([]);
    expect(assembled.finished).toBeUndefined();
    expect(assembled.toolCalls[0]?.id).toBe('call_c91SqDXlYFuETYv8mUHzz6pp');
    expect('{"city":"Edinburgh","country":"UK","units":"c"}'.startsWith(assembled.toolCalls[0]?.args ?? 'x')).toBe(true);
    expect(assembled.toolCalls[0]?.args.length).toBeLessThan(47);
  });

  it('createOpenAIChatAdapter keeps a call open for an argument delta sent after its finish_reason', () => {
    const file = 'openai-compatible/handmade-finish-reason-before-last-argument-delta.sse';
    const { events } = run(file);
    const assembled = assemble(events);
    expect(assembled.toolCalls.map((c) => [c.id, c.name, c.args])).toEqual([
      ['call_c91SqDXlYFuETYv8mUHzz6pp', 'GetWeatherArgs', '{"city":"Edinburgh","country":"UK","units":"c"}'],
    ]);
    // The late delta reaches the call before its flush, and the flush comes before the finish.
    const lastChunk = events.map((e) => e.type === 'part' && e.part.type === 'tool-call-arguments').lastIndexOf(true);
    expect(events[lastChunk]).toMatchObject({ part: { chunk: '"}' } });
    expect(events.slice(lastChunk + 1).map((e) => e.type)).toEqual(['flush', 'finished']);
    expect(assembled.finished).toMatchObject({ reason: 'tool-calls', rawReason: 'tool_calls', usage: { totalTokens: 100 } });
  });

  it('createOpenAIChatAdapter flushes a complete call at its finish_reason, and a call never completed at the end', () => {
    const adapter = createOpenAIChatAdapter();
    adapter.push(toolDelta({ index: 0, id: 'a', function: { name: 'f', arguments: '{"s":"}{\\"' } }).data);
    adapter.push(toolDelta({ index: 1, id: 'b', function: { name: 'g', arguments: '{"x":[1]}' } }).data);
    // Call a's arguments are still inside a string: only b is flushed.
    expect(adapter.push(chunk({}, 'tool_calls').data)).toEqual([{ type: 'flush', index: 1, metadata: { choiceIndex: 0 } }]);
    expect(adapter.push({ choices: [], usage: { total_tokens: 3 } })).toEqual([]);
    expect(adapter.end().map((e) => e.type)).toEqual(['flush', 'finished']);
  });

  it('createOpenAIChatAdapter emits finished from end() when the server sent no usage', () => {
    const adapter = createOpenAIChatAdapter();
    expect(adapter.push(chunk({ content: 'hi' }).data)).toEqual([
      { type: 'part', index: 0, part: { type: 'message', text: 'hi' }, metadata: { choiceIndex: 0 } },
    ]);
    expect(adapter.push(chunk({}, 'stop').data)).toEqual([{ type: 'flush', index: 0, metadata: { choiceIndex: 0 } }]);
    expect(adapter.end()).toEqual([{ type: 'finished', reason: 'stop', rawReason: 'stop' }]);
  });

  it('createOpenAIChatAdapter waits for usage sent at or after the finish, not earlier running totals', () => {
    const adapter = createOpenAIChatAdapter();
    const running = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };
    const final = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
    adapter.push({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }], usage: running });
    expect(adapter.push({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }).map((e) => e.type)).toEqual(['flush']);
    expect(adapter.push({ choices: [], usage: final })).toEqual([
      { type: 'finished', reason: 'stop', rawReason: 'stop', usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7, raw: final } },
    ]);
  });

  it('createOpenAIChatAdapter normalizes finish reasons and keeps the raw one', () => {
    const cases: Array<[string, string]> = [
      ['stop', 'stop'],
      ['length', 'length'],
      ['tool_calls', 'tool-calls'],
      ['function_call', 'tool-calls'],
      ['content_filter', 'content-filter'],
      ['error', 'error'],
      ['model_length', 'length'],
      ['something_new', 'other'],
    ];
    for (const [raw, reason] of cases) {
      const adapter = createOpenAIChatAdapter();
      adapter.push(chunk({}, raw).data);
      expect(adapter.end()).toEqual([{ type: 'finished', reason, rawReason: raw }]);
    }
  });

  it('createOpenAIChatAdapter streams the deprecated function_call as a tool call', () => {
    const { events } = runAdapter(createOpenAIChatAdapter(), [
      chunk({ function_call: { name: 'legacy', arguments: '{"a"' } }),
      chunk({ function_call: { arguments: ':1}' } }),
      chunk({}, 'function_call'),
    ]);
    const assembled = assemble(events);
    expect(assembled.toolCalls.map((c) => [c.name, c.args])).toEqual([['legacy', '{"a":1}']]);
    expect(assembled.finished?.reason).toBe('tool-calls');
  });
});

describe('createOpenAIChatAdapter malformed input', () => {
  it('createOpenAIChatAdapter throws a typed error for a record that is not a chunk, keeping what came before', () => {
    const adapter = createOpenAIChatAdapter();
    const before = adapter.push(chunk({ content: 'kept' }).data);
    expect(before).toHaveLength(1);
    expect(() => adapter.push('not json')).toThrow(ProviderError);
    expect(() => adapter.push([1, 2])).toThrow(expect.objectContaining({ type: 'invalid-format', provider: 'openai-chat' }));
    expect(() => adapter.push({ choices: 'nope' })).toThrow(expect.objectContaining({ type: 'invalid-format' }));
    expect(() => adapter.push(toolDelta({ index: 0, function: { name: 'f', arguments: 42 } }).data)).toThrow(
      expect.objectContaining({ type: 'invalid-format' }),
    );
  });

  it('createOpenAIChatAdapter throws on an `event: error` whatever its data', () => {
    expect(() => createOpenAIChatAdapter().push({ error: { message: 'boom', type: 'server_error' } }, 'error')).toThrow(
      expect.objectContaining({ type: 'server_error', message: 'boom' }),
    );
    expect(() => createOpenAIChatAdapter().push('overloaded', 'error')).toThrow(expect.objectContaining({ type: 'error', message: 'overloaded' }));
  });
});

describe('ProviderEventStream with provider openai-chat, on every chat-format recording', () => {
  for (const recording of DIRS.flatMap((dir) => manifestRecordings(dir))) {
    describe(recording.file, () => {
      const bytes = bytesOf(recording.file);
      // The adapter fed record by record (by the test-side SSE splitter) is the reference.
      const reference = run(recording.file);

      for (const [cutting, chunks] of streamCuttings(bytes)) {
        it(`ProviderEventStream assembles the manifest's tool calls and gives the same events (${cutting})`, async () => {
          const { events, error } = await runStream('openai-chat', chunks);
          expectManifestToolCalls(recording, events);
          expect(events).toEqual(reference.events);
          if (recording.errors === undefined) {
            expect(error).toBeUndefined();
            expect(assemble(events).unflushed).toEqual([]);
          } else {
            expect(error).toBeInstanceOf(ProviderError);
            expect((error as ProviderError).message).toBe(manifestError(recording.errors).message);
          }
        });
      }

      it('ProviderEventStream gives the same events for the objects an SDK yields', async () => {
        const objects = records(recording.file).map((r) => r.data as object);
        const { events } = await runStream('openai-chat', objects);
        if (recording.errors === undefined) expect(events).toEqual(reference.events);
        // Groq's error is an SSE event name, which SDK objects do not carry; OpenRouter's is in the object.
        else expect(events.slice(0, reference.events.length)).toEqual(reference.events);
      });

      it('ProviderEventStream errors with truncated when the input stops inside the last event, after the events before', async () => {
        const { events, error } = await runStream('openai-chat', [cutInsideLastLine(bytes)]);
        expect(error).toBeInstanceOf(ProviderError);
        if (recording.errors === undefined) expect(error).toMatchObject({ type: 'invalid-stream', code: 'truncated' });
        expect(events).toEqual(reference.events.slice(0, events.length));
        expect(events.some((e) => e.type === 'finished')).toBe(false);
      });
    });
  }
});
