import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { createOllamaAdapter } from '../../src/providers/ollama.ts';
import { manifestRecordings } from '../manifest.ts';
import {
  assemble,
  bytesOf,
  cutInsideLastLine,
  manifestError,
  ndjsonRecords,
  runAdapter,
  runStream,
  slotsInOrderOfAppearance,
  streamCuttings,
  textOf,
  type WireRecord,
} from './event-stream-helpers.ts';

function records(file: string): WireRecord[] {
  return ndjsonRecords(textOf(file));
}

function run(file: string) {
  return runAdapter(createOllamaAdapter(), records(file));
}

function line(message: Record<string, unknown>, extra: Record<string, unknown> = {}): WireRecord {
  return { data: { model: 'm', created_at: '2025-01-01T00:00:00Z', message: { role: 'assistant', content: '', ...message }, done: false, ...extra } };
}

const JOKE =
  "Why did the OpenTelemetry agent go to therapy?\n\nBecause it was feeling traced out and needed some instrumentation in its life!\n\n(Sorry, I know it's a bit of a stretch, but I hope it brought a smile to your face!)";

describe('createOllamaAdapter on every recording', () => {
  const recordings = manifestRecordings('ollama');

  it('covers every Ollama recording of the manifest', () => {
    expect(recordings).toHaveLength(4);
  });

  for (const recording of recordings) {
    it(`createOllamaAdapter assembles ${recording.file} to the manifest's tool calls, finish and errors`, () => {
      const { events, error } = run(recording.file);
      const assembled = assemble(events);
      expect(slotsInOrderOfAppearance(events)).toBe(true);
      expect(assembled.toolCalls.map((c) => c.name)).toEqual(recording.toolCalls.map((c) => c.name));
      recording.toolCalls.forEach((expected, i) => {
        const actual = assembled.toolCalls[i];
        expect(JSON.parse(actual?.args ?? '')).toEqual(JSON.parse(expected.args));
        if (expected.id !== '') expect(actual?.id).toBe(expected.id);
        else expect(actual?.id).not.toBe('');
      });
      if (recording.errors !== undefined) {
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ provider: 'ollama', type: 'error', message: manifestError(recording.errors).message });
        return;
      }
      expect(error).toBeUndefined();
      expect(assembled.unflushed).toEqual([]);
      expect(assembled.finished?.rawReason).toBe(JSON.parse(recording.finish));
    });
  }
});

describe('createOllamaAdapter', () => {
  it('createOllamaAdapter turns a whole tool call into start, one chunk and flush, and stop into tool-calls', () => {
    const { events } = run('ollama/docs-chat-stream-tool-call.ndjson');
    expect(events).toEqual([
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_0_get_weather', toolName: 'get_weather' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"city":"Tokyo"}' } },
      { type: 'flush', index: 0 },
      {
        type: 'finished',
        reason: 'tool-calls',
        rawReason: 'stop',
        usage: {
          inputTokens: 169,
          outputTokens: 15,
          totalTokens: 184,
          raw: {
            prompt_eval_count: 169,
            eval_count: 15,
            total_duration: 182242375,
            load_duration: 41295167,
            prompt_eval_duration: 24573166,
            eval_duration: 115959084,
          },
        },
      },
    ]);
  });

  it('createOllamaAdapter streams message text into one slot and finishes with stop', () => {
    const assembled = assemble(run('ollama/real-chat-stream-text.ndjson').events);
    expect(assembled.texts).toEqual([{ slot: 0, kind: 'message', text: JOKE, metadata: {} }]);
    expect(assembled.finished).toMatchObject({ reason: 'stop', rawReason: 'stop', usage: { inputTokens: 17, outputTokens: 50, totalTokens: 67 } });
  });

  it('createOllamaAdapter delivers /api/generate text before a mid-stream error, then throws', () => {
    const { events, error } = run('ollama/docs-generate-midstream-error.ndjson');
    expect(assemble(events).texts.map((t) => t.text)).toEqual([' Yes.Ican']);
    expect(error).toMatchObject({ provider: 'ollama', type: 'error', message: 'an error was encountered while running the model' });
  });

  it('createOllamaAdapter maps thinking to reasoning and keeps wire ids, generating stable unique ids otherwise', () => {
    const input = [
      line({ thinking: 'Let me ' }),
      line({ thinking: 'see.' }),
      line({ content: 'Calling.' }),
      line({
        tool_calls: [
          { id: 'call_abcd1234', function: { index: 0, name: 'a', arguments: { x: 1 } } },
          { function: { name: 'b', arguments: {} } },
        ],
      }),
      line({ tool_calls: [{ function: { name: 'b', arguments: { y: [1, 'two'] } } }] }),
      line({}, { done: true, done_reason: 'stop' }),
    ];
    const { events } = runAdapter(createOllamaAdapter(), input);
    const assembled = assemble(events);
    expect(assembled.texts.map((t) => [t.slot, t.kind, t.text])).toEqual([
      [0, 'reasoning', 'Let me see.'],
      [1, 'message', 'Calling.'],
    ]);
    expect(assembled.toolCalls.map((c) => [c.slot, c.name, c.args])).toEqual([
      [2, 'a', '{"x":1}'],
      [3, 'b', '{}'],
      [4, 'b', '{"y":[1,"two"]}'],
    ]);
    const ids = assembled.toolCalls.map((c) => c.id);
    expect(ids[0]).toBe('call_abcd1234');
    expect(new Set(ids).size).toBe(3);
    expect(assemble(runAdapter(createOllamaAdapter(), input).events).toolCalls.map((c) => c.id)).toEqual(ids);
    expect(assembled.unflushed).toEqual([]);
    expect(assembled.finished).toMatchObject({ reason: 'tool-calls', rawReason: 'stop' });
  });

  it('createOllamaAdapter emits no argument chunk for missing arguments and maps length and unload', () => {
    const { events } = runAdapter(createOllamaAdapter(), [line({ tool_calls: [{ function: { name: 'now' } }] }), line({}, { done: true, done_reason: 'length' })]);
    expect(assemble(events).toolCalls[0]).toMatchObject({ name: 'now', args: '', chunks: 0 });
    expect(assemble(events).finished).toMatchObject({ reason: 'length', rawReason: 'length' });
    const unload = runAdapter(createOllamaAdapter(), [line({}, { done: true, done_reason: 'unload' })]);
    expect(assemble(unload.events).finished).toMatchObject({ reason: 'other', rawReason: 'unload' });
  });

  it('createOllamaAdapter flushes open text at end() and emits no finished without a done line', () => {
    const adapter = createOllamaAdapter();
    expect(adapter.push(line({ content: 'cut' }).data)).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'cut' } }]);
    expect(adapter.end()).toEqual([{ type: 'flush', index: 0 }]);
  });

  it('createOllamaAdapter throws a typed error for a line that is not an object or has bad arguments', () => {
    expect(() => createOllamaAdapter().push(42)).toThrow(expect.objectContaining({ provider: 'ollama', type: 'invalid-format' }));
    expect(() => createOllamaAdapter().push(line({ tool_calls: [{ function: { name: 'f', arguments: 7 } }] }).data)).toThrow(
      expect.objectContaining({ type: 'invalid-format' }),
    );
  });
});

describe('ProviderEventStream with provider ollama, on every recording', () => {
  for (const recording of manifestRecordings('ollama')) {
    describe(recording.file, () => {
      const bytes = bytesOf(recording.file);
      const reference = run(recording.file);

      for (const [cutting, chunks] of streamCuttings(bytes)) {
        it(`ProviderEventStream gives the manifest's result and the same events (${cutting})`, async () => {
          const { events, error } = await runStream('ollama', chunks);
          expect(events).toEqual(reference.events);
          const assembled = assemble(events);
          expect(assembled.toolCalls.map((c) => [c.name, JSON.parse(c.args)])).toEqual(
            recording.toolCalls.map((c) => [c.name, JSON.parse(c.args)]),
          );
          if (recording.errors === undefined) {
            expect(error).toBeUndefined();
            expect(assembled.unflushed).toEqual([]);
            expect(assembled.finished?.rawReason).toBe(JSON.parse(recording.finish));
          } else {
            expect(error).toMatchObject({ provider: 'ollama', message: manifestError(recording.errors).message });
          }
        });
      }

      it('ProviderEventStream gives the same events for the objects an SDK yields', async () => {
        const { events } = await runStream('ollama', records(recording.file).map((r) => r.data as object));
        expect(events).toEqual(reference.events);
      });

      it('ProviderEventStream errors with truncated when the input stops inside the last line, after the lines before', async () => {
        const { events, error } = await runStream('ollama', [cutInsideLastLine(bytes)]);
        expect(error).toMatchObject({ provider: 'ollama', type: 'invalid-stream', code: 'truncated' });
        expect(events).toEqual(reference.events.slice(0, events.length));
        expect(events.some((e) => e.type === 'finished')).toBe(false);
      });
    });
  }
});
