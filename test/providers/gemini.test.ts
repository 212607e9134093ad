import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { createGeminiAdapter } from '../../src/providers/gemini.ts';
import type { StreamEvent } from '../../src/types.ts';
import { manifestRecordings } from '../manifest.ts';
import { assemble, bytesOf, cutInsideLastLine, runAdapter, runStream, slotsInOrderOfAppearance, sseRecords, streamCuttings, textOf, type WireRecord } from './event-stream-helpers.ts';

function records(file: string): WireRecord[] {
  return sseRecords(textOf(file));
}

function run(file: string) {
  return runAdapter(createGeminiAdapter(), records(file));
}

/** A response chunk with the given parts for candidate 0. */
function response(parts: unknown[], extra: Record<string, unknown> = {}): WireRecord {
  return { data: { candidates: [{ content: { role: 'model', parts }, ...extra }] } };
}

/** A streaming call: name, then each partialArgs entry in its own chunk, then the terminal `{}`. */
function streamedCall(name: string, args: unknown[]): WireRecord[] {
  return [
    response([{ functionCall: { name, willContinue: true } }]),
    ...args.map((arg) => response([{ functionCall: { partialArgs: [arg], willContinue: true } }])),
    response([{ functionCall: {} }]),
  ];
}

function argsOf(input: WireRecord[]): string {
  const { events, error } = runAdapter(createGeminiAdapter(), input);
  if (error) throw error;
  return assemble(events).toolCalls[0]?.args ?? '';
}

function argumentChunks(events: StreamEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'part' && e.part.type === 'tool-call-arguments' ? [e.part.chunk] : []));
}

describe('createGeminiAdapter on every recording', () => {
  const recordings = manifestRecordings('gemini');

  it('covers every Gemini recording of the manifest', () => {
    expect(recordings).toHaveLength(9);
  });

  for (const recording of recordings) {
    it(`createGeminiAdapter assembles ${recording.file} to the manifest's tool calls, with stable unique ids`, () => {
      const { events, error } = run(recording.file);
      expect(error).toBeUndefined();
      const assembled = assemble(events);
      expect(assembled.unflushed).toEqual([]);
      expect(slotsInOrderOfAppearance(events)).toBe(true);
      expect(assembled.toolCalls.map((c) => c.name)).toEqual(recording.toolCalls.map((c) => c.name));
      recording.toolCalls.forEach((expected, i) => {
        const actual = assembled.toolCalls[i]?.args ?? '';
        // A call sent with no args at all emits no chunk: downstream reads it as {}.
        expect(actual === '' ? {} : JSON.parse(actual)).toEqual(JSON.parse(expected.args));
      });
      const ids = assembled.toolCalls.map((c) => c.id);
      expect(ids.every((id) => id !== '')).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      expect(assemble(run(recording.file).events).toolCalls.map((c) => c.id)).toEqual(ids);
      expect(JSON.parse(recording.finish)).toBe('STOP');
      expect(assembled.finished).toMatchObject({ reason: recording.toolCalls.length > 0 ? 'tool-calls' : 'stop', rawReason: 'STOP' });
    });
  }
});

describe('createGeminiAdapter on specific recordings', () => {
  it('createGeminiAdapter streams Vertex partialArgs string pieces as they arrive', () => {
    const { events } = run('gemini/vertex-partial-args-nested-unicode.sse');
    const chunks = argumentChunks(events);
    // "$.recipe.steps[4]" arrives in two pieces; the second is emitted on its own, as JSON string content.
    expect(chunks).toContain(' thin layer of meat sauce.');
    expect(chunks.length).toBeGreaterThan(50);
    expect(chunks[0]).toBe('{"recipe":{"ingredients":[{"amount":"16 oz');
    expect(JSON.parse(chunks.join('')).recipe.steps[0]).toBe('Preheat oven to 375°F (190°C).');
  });

  it('createGeminiAdapter keeps thoughtSignature in the metadata of its part', () => {
    const raw = textOf('gemini/function-call-thought-signature-crlf.sse');
    const signature = /"thoughtSignature": "([^"]+)"/.exec(raw)?.[1];
    expect(signature).toBeDefined();
    const start = run('gemini/function-call-thought-signature-crlf.sse').events.find(
      (e) => e.type === 'part' && e.part.type === 'tool-call-start',
    );
    expect(start?.metadata).toMatchObject({ thoughtSignature: signature });
  });

  it('createGeminiAdapter turns a whole args object into one chunk and flushes the call at once', () => {
    const { events } = run('gemini/function-call-whole-args-crlf.sse');
    expect(argumentChunks(events)).toHaveLength(1);
    expect(JSON.parse(argumentChunks(events)[0] ?? '')).toEqual({ country: 'France' });
    expect(events.map((e) => e.type)).toEqual(['part', 'part', 'flush', 'finished']);
  });

  it('createGeminiAdapter puts a thought part in a reasoning slot flushed before the next call', () => {
    const { events } = run('gemini/vertex-partial-args-thought-no-args-plus-3-calls.sse');
    const assembled = assemble(events);
    expect(assembled.texts.map((t) => [t.slot, t.kind])).toEqual([[0, 'reasoning']]);
    expect(assembled.texts[0]?.text.startsWith('**Processing User Requests**')).toBe(true);
    const flush0 = events.findIndex((e) => e.type === 'flush' && e.index === 0);
    const start1 = events.findIndex((e) => e.type === 'part' && e.index === 1);
    expect(flush0).toBeLessThan(start1);
    expect(assembled.toolCalls[0]).toMatchObject({ name: 'read_theme', args: '', chunks: 0 });
  });

  it('createGeminiAdapter ends a call at a partialArgs part without willContinue (no terminal functionCall)', () => {
    const adapter = createGeminiAdapter();
    const all = records('gemini/vertex-partial-args-numbers-no-terminal.sse');
    const last = all.at(-1) as WireRecord;
    const before = all.slice(0, -1).flatMap((r) => adapter.push(r.data));
    expect(before.at(-1)).toEqual({ type: 'flush', index: 0, metadata: { candidateIndex: 0 } });
    expect(JSON.parse(argumentChunks(before).join('')).operations[1].price).toBe(0.3);
    const finished = adapter.push(last.data);
    expect(finished).toEqual([
      {
        type: 'finished',
        reason: 'tool-calls',
        rawReason: 'STOP',
        usage: {
          inputTokens: 54,
          outputTokens: 74 + 121,
          totalTokens: 249,
          reasoningTokens: 121,
          raw: (last.data as { usageMetadata: unknown }).usageMetadata,
        },
      },
    ]);
    expect(adapter.end()).toEqual([]);
  });

  it('createGeminiAdapter flushes a call cut off by the end of input without closing its JSON', () => {
    const all = records('gemini/vertex-partial-args-nested-unicode.sse');
    const { events } = runAdapter(createGeminiAdapter(), all.slice(0, 10));
    const assembled = assemble(events);
    expect(assembled.unflushed).toEqual([]);
    expect(assembled.finished).toBeUndefined();
    const args = assembled.toolCalls[0]?.args ?? '';
    expect(args.startsWith('{"recipe":{"ingredients":[{"amount":"16 oz","name":"Lasagna noodles"},{"amount":"1 lb"')).toBe(true);
    expect(() => JSON.parse(args)).toThrow(SyntaxError);
  });
});

describe('createGeminiAdapter partialArgs serialization', () => {
  it('createGeminiAdapter writes booleans, nulls, numbers and nested arrays at their JSONPaths', () => {
    const args = argsOf(
      streamedCall('f', [
        { jsonPath: '$.flag', boolValue: false },
        { jsonPath: '$.nothing', nullValue: 'NULL_VALUE' },
        { jsonPath: '$.matrix[0][0]', numberValue: 1 },
        { jsonPath: '$.matrix[0][1]', numberValue: -2.5e-3 },
        { jsonPath: '$.matrix[1][0]', numberValue: 3 },
        { jsonPath: '$.deep.a.b.c', stringValue: 'x' },
        { jsonPath: '$.deep.a.d', boolValue: true },
        { jsonPath: '$.after', numberValue: 0 },
      ]),
    );
    expect(JSON.parse(args)).toEqual({
      flag: false,
      nothing: null,
      matrix: [[1, -0.0025], [3]],
      deep: { a: { b: { c: 'x' }, d: true } },
      after: 0,
    });
  });

  it('createGeminiAdapter escapes string pieces like JSON.stringify, even a surrogate pair split over two pieces', () => {
    const value = 'quote " backslash \\ newline \n tab \t control \u0001 emoji 😀 end';
    const cut = value.indexOf('😀') + 1; // between the two halves of the surrogate pair
    const args = argsOf(
      streamedCall('f', [
        { jsonPath: '$.s', stringValue: value.slice(0, cut), willContinue: true },
        { jsonPath: '$.s', stringValue: value.slice(cut), willContinue: true },
        { jsonPath: '$.s', stringValue: '' },
      ]),
    );
    expect(JSON.parse(args)).toEqual({ s: value });
  });

  it('createGeminiAdapter reads bracket-notation paths', () => {
    const args = argsOf(
      streamedCall('f', [
        { jsonPath: "$['a.b']", stringValue: 'dotted' },
        { jsonPath: '$["q\\"x"]', numberValue: 1 },
        { jsonPath: "$['list'][0]", stringValue: 'first' },
        { jsonPath: "$['list'][1]", stringValue: 'second' },
        { jsonPath: '$.u\u00e9', stringValue: 'é' },
      ]),
    );
    expect(JSON.parse(args)).toEqual({ 'a.b': 'dotted', 'q"x': 1, list: ['first', 'second'], 'u\u00e9': 'é' });
  });

  it('createGeminiAdapter refuses at once an array index past the next one, however large, with nothing written for it', () => {
    for (const index of ['2', '100000000', '1000000000000000', '99999999999999999999999']) {
      const input = streamedCall('f', [
        { jsonPath: '$.a[0]', numberValue: 1 },
        { jsonPath: `$.a[${index}]`, numberValue: 2 },
      ]);
      const { events, error } = runAdapter(createGeminiAdapter(), input);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'gemini', type: 'invalid-format' });
      expect(argumentChunks(events).join('')).toBe('{"a":[1');
    }
    // The first element of a new array too, and an exponent is no index.
    const first = runAdapter(createGeminiAdapter(), streamedCall('f', [{ jsonPath: '$.a[100000000]', numberValue: 1 }]));
    expect(first.error).toMatchObject({ provider: 'gemini', type: 'invalid-format' });
    const exponent = runAdapter(createGeminiAdapter(), streamedCall('f', [{ jsonPath: '$.a[1e15]', numberValue: 1 }]));
    expect(exponent.error).toMatchObject({ provider: 'gemini', type: 'invalid-format' });
  });

  it('createGeminiAdapter closes a string whose next piece is for another path', () => {
    const args = argsOf(
      streamedCall('f', [
        { jsonPath: '$.a', stringValue: 'open', willContinue: true },
        { jsonPath: '$.b', stringValue: 'next' },
      ]),
    );
    expect(JSON.parse(args)).toEqual({ a: 'open', b: 'next' });
  });

  it('createGeminiAdapter completes the JSON when STOP arrives while a call is still streaming', () => {
    const input = [
      response([{ functionCall: { name: 'f', willContinue: true } }]),
      response([{ functionCall: { partialArgs: [{ jsonPath: '$.a[0].b', stringValue: 'x', willContinue: true }], willContinue: true } }]),
      response([], { finishReason: 'STOP' }),
    ];
    expect(JSON.parse(argsOf(input))).toEqual({ a: [{ b: 'x' }] });
  });

  it('createGeminiAdapter leaves the JSON open when MAX_TOKENS cuts a streaming call', () => {
    const { events } = runAdapter(createGeminiAdapter(), [
      response([{ functionCall: { name: 'f', willContinue: true } }]),
      response([{ functionCall: { partialArgs: [{ jsonPath: '$.a', stringValue: 'x', willContinue: true }], willContinue: true } }]),
      response([], { finishReason: 'MAX_TOKENS' }),
    ]);
    const assembled = assemble(events);
    expect(assembled.toolCalls[0]?.args).toBe('{"a":"x');
    expect(assembled.unflushed).toEqual([]);
    expect(assembled.finished).toMatchObject({ reason: 'length', rawReason: 'MAX_TOKENS' });
  });

  it('createGeminiAdapter refuses partialArgs that revisit a closed path or mistype a container', () => {
    const revisit = streamedCall('f', [
      { jsonPath: '$.a', stringValue: 'x' },
      { jsonPath: '$.b', numberValue: 1 },
      { jsonPath: '$.a', stringValue: 'y' },
    ]);
    const { events, error } = runAdapter(createGeminiAdapter(), revisit);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'gemini', type: 'invalid-format' });
    // What came before the bad entry was delivered.
    expect(argumentChunks(events).join('')).toBe('{"a":"x","b":1');

    const keyOnArray = streamedCall('f', [
      { jsonPath: '$.a[0]', numberValue: 1 },
      { jsonPath: '$.a.b', numberValue: 2 },
    ]);
    expect(runAdapter(createGeminiAdapter(), keyOnArray).error).toMatchObject({ type: 'invalid-format' });
    const badPath = streamedCall('f', [{ jsonPath: '$..a', numberValue: 1 }]);
    expect(runAdapter(createGeminiAdapter(), badPath).error).toMatchObject({ type: 'invalid-format' });
    const noDollar = streamedCall('f', [{ jsonPath: 'a', numberValue: 1 }]);
    expect(runAdapter(createGeminiAdapter(), noDollar).error).toMatchObject({ type: 'invalid-format' });
  });
});

describe('createGeminiAdapter responses', () => {
  it('createGeminiAdapter reports code execution as a call Gemini ran, with its result, never as a tool call', () => {
    // The part shapes of the Gemini API reference (`executableCode`, `codeExecutionResult`).
    const { events } = runAdapter(createGeminiAdapter({ createToolCallId: ({ name, position }) => `${name}#${position}` }), [
      response([{ text: 'Let me compute it.' }]),
      response([{ executableCode: { language: 'PYTHON', code: 'print(sum(range(10)))' } }]),
      response([{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '45\n' } }]),
      response([{ executableCode: { language: 'PYTHON', code: '1/0' } }, { codeExecutionResult: { outcome: 'OUTCOME_FAILED', output: 'ZeroDivisionError' } }]),
      response([{ text: 'The sum is 45.' }], { finishReason: 'STOP' }),
    ]);
    const assembled = assemble(events);
    expect(assembled.toolCalls).toEqual([]);
    expect(assembled.providerToolCalls.map((c) => [c.slot, c.id, c.name, c.args])).toEqual([
      [1, 'code_execution#0', 'code_execution', '{"language":"PYTHON","code":"print(sum(range(10)))"}'],
      [3, 'code_execution#1', 'code_execution', '{"language":"PYTHON","code":"1/0"}'],
    ]);
    expect(assembled.providerToolResults).toEqual([
      { type: 'provider-tool-result', toolCallId: 'code_execution#0', toolName: 'code_execution', result: { outcome: 'OUTCOME_OK', output: '45\n' } },
      { type: 'provider-tool-result', toolCallId: 'code_execution#1', toolName: 'code_execution', result: { outcome: 'OUTCOME_FAILED', output: 'ZeroDivisionError' }, isError: true },
    ]);
    expect(assembled.texts.map((t) => t.text)).toEqual(['Let me compute it.', 'The sum is 45.']);
    expect(assembled.unflushed).toEqual([]);
    // Only the application's calls make the finish `tool-calls`.
    expect(assembled.finished).toMatchObject({ reason: 'stop', rawReason: 'STOP' });
  });

  it('createGeminiAdapter uses functionCall.id when the wire has one, and a custom id factory otherwise', () => {
    const adapter = createGeminiAdapter({ createToolCallId: ({ name, position }) => `${name}#${position}` });
    const { events } = runAdapter(adapter, [
      response([{ functionCall: { id: 'wire-id', name: 'a', args: {} } }, { functionCall: { name: 'b', args: { x: 1 } } }]),
    ]);
    expect(assemble(events).toolCalls.map((c) => [c.id, c.args])).toEqual([
      ['wire-id', '{}'],
      ['b#1', '{"x":1}'],
    ]);
  });

  it('createGeminiAdapter streams text, maps STOP without calls to stop, and keeps a signature on an empty text part', () => {
    const { events } = runAdapter(createGeminiAdapter(), [
      response([{ text: 'Hel' }]),
      response([{ text: 'lo' }]),
      response([{ text: '', thoughtSignature: 'sig' }], { finishReason: 'STOP' }),
    ]);
    const assembled = assemble(events);
    expect(assembled.texts).toEqual([{ slot: 0, kind: 'message', text: 'Hello', metadata: { candidateIndex: 0, thoughtSignature: 'sig' } }]);
    expect(assembled.finished).toEqual({ type: 'finished', reason: 'stop', rawReason: 'STOP' });
  });

  it('createGeminiAdapter emits finished from end() with the last usage when the finish chunk has none', () => {
    const adapter = createGeminiAdapter();
    adapter.push({ candidates: [{ content: { parts: [{ text: 'a' }] } }], usageMetadata: { promptTokenCount: 3, totalTokenCount: 4 } });
    expect(adapter.push(response([], { finishReason: 'STOP' }).data)).toEqual([{ type: 'flush', index: 0, metadata: { candidateIndex: 0 } }]);
    expect(adapter.end()).toEqual([
      { type: 'finished', reason: 'stop', rawReason: 'STOP', usage: { inputTokens: 3, totalTokens: 4, raw: { promptTokenCount: 3, totalTokenCount: 4 } } },
    ]);
  });

  it('createGeminiAdapter maps the other finish reasons', () => {
    const cases: Array<[string, string]> = [
      ['MAX_TOKENS', 'length'],
      ['SAFETY', 'content-filter'],
      ['RECITATION', 'content-filter'],
      ['PROHIBITED_CONTENT', 'content-filter'],
      ['MALFORMED_FUNCTION_CALL', 'error'],
      ['OTHER', 'other'],
      ['FINISH_REASON_UNSPECIFIED', 'other'],
    ];
    for (const [raw, reason] of cases) {
      const { events } = runAdapter(createGeminiAdapter(), [response([{ text: 'x' }], { finishReason: raw })]);
      expect(assemble(events).finished).toMatchObject({ reason, rawReason: raw });
    }
  });

  it('createGeminiAdapter reports a blocked prompt as a content-filter finish', () => {
    const { events } = runAdapter(createGeminiAdapter(), [
      { data: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } } },
    ]);
    expect(events).toEqual([
      {
        type: 'finished',
        reason: 'content-filter',
        rawReason: 'SAFETY',
        usage: { inputTokens: 5, totalTokens: 5, raw: { promptTokenCount: 5, totalTokenCount: 5 } },
      },
    ]);
  });

  it('createGeminiAdapter throws a typed error for an error chunk, after what came before', () => {
    const { events, error } = runAdapter(createGeminiAdapter(), [
      response([{ text: 'partial' }]),
      { data: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } } },
    ]);
    expect(assemble(events).texts.map((t) => t.text)).toEqual(['partial']);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'gemini', type: 'UNAVAILABLE', code: '503', message: 'The model is overloaded.' });
  });

  it('createGeminiAdapter throws a typed error for a record that is not an object', () => {
    expect(() => createGeminiAdapter().push('nope')).toThrow(expect.objectContaining({ provider: 'gemini', type: 'invalid-format' }));
    expect(() => createGeminiAdapter().push(null)).toThrow(ProviderError);
  });

  it('createGeminiAdapter keeps candidates apart', () => {
    const { events } = runAdapter(createGeminiAdapter(), [
      { data: { candidates: [{ index: 0, content: { parts: [{ text: 'zero' }] } }, { index: 1, content: { parts: [{ text: 'one' }] } }] } },
      { data: { candidates: [{ index: 1, content: { parts: [{ text: '!' }] }, finishReason: 'STOP' }] } },
      { data: { candidates: [{ index: 0, content: { parts: [] }, finishReason: 'MAX_TOKENS' }] } },
    ]);
    const assembled = assemble(events);
    expect(assembled.texts.map((t) => [t.text, t.metadata['candidateIndex']])).toEqual([
      ['zero', 0],
      ['one!', 1],
    ]);
    expect(assembled.finished).toMatchObject({ reason: 'length', rawReason: 'MAX_TOKENS', metadata: { finishReasons: { 0: 'MAX_TOKENS', 1: 'STOP' } } });
  });
});

describe('ProviderEventStream with provider gemini, on every recording', () => {
  for (const recording of manifestRecordings('gemini')) {
    describe(recording.file, () => {
      const bytes = bytesOf(recording.file);
      const reference = run(recording.file);

      for (const [cutting, chunks] of streamCuttings(bytes)) {
        it(`ProviderEventStream assembles the manifest's tool calls and gives the same events (${cutting})`, async () => {
          const { events, error } = await runStream('gemini', chunks);
          expect(error).toBeUndefined();
          expect(events).toEqual(reference.events);
          const assembled = assemble(events);
          expect(assembled.unflushed).toEqual([]);
          expect(assembled.toolCalls.map((c) => [c.name, c.args === '' ? {} : JSON.parse(c.args)])).toEqual(
            recording.toolCalls.map((c) => [c.name, JSON.parse(c.args)]),
          );
          expect(assembled.finished).toMatchObject({ reason: recording.toolCalls.length > 0 ? 'tool-calls' : 'stop', rawReason: 'STOP' });
        });
      }

      it('ProviderEventStream gives the same events for the objects an SDK yields', async () => {
        const { events } = await runStream('gemini', records(recording.file).map((r) => r.data as object));
        expect(events).toEqual(reference.events);
      });

      it('ProviderEventStream errors with truncated when the input stops inside the last event, after the events before', async () => {
        const { events, error } = await runStream('gemini', [cutInsideLastLine(bytes)]);
        expect(error).toMatchObject({ provider: 'gemini', type: 'invalid-stream', code: 'truncated' });
        expect(events).toEqual(reference.events.slice(0, events.length));
        expect(events.some((e) => e.type === 'finished')).toBe(false);
      });
    });
  }

  it('ProviderEventStream delivers the events before a Gemini error chunk, then errors with it', async () => {
    const body =
      'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}]}\r\n\r\n' +
      'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n';
    const { events, error } = await runStream('gemini', [new TextEncoder().encode(body)]);
    expect(events).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'Hi' }, metadata: { candidateIndex: 0 } }]);
    expect(error).toMatchObject({ provider: 'gemini', type: 'UNAVAILABLE', code: '503' });
  });
});
