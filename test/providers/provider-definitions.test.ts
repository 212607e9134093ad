import { describe, expect, it } from 'vitest';
import { AG_UI_PROVIDER } from '../../src/bindings/ag-ui.ts';
import { GEMINI_INTERACTIONS_PROVIDER } from '../../src/bindings/gemini-interactions.ts';
import { LANGCHAIN_PROVIDER } from '../../src/bindings/langchain.ts';
import { ProviderError, type ProviderName } from '../../src/errors.ts';
import type { ProviderDefinition } from '../../src/providers/adapter.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { oneByOne, readAll, readFixture, settle, streamOf } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';

/** The objects of a JSON-lines recording (LangChain's objects, one a line). */
function objectsOf(path: string): object[] {
  return new TextDecoder()
    .decode(readFixture(path))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as object);
}

/** Each provider at an entry point of its own: its definition, where it is, and a recording of it. */
const CASES: ReadonlyArray<{ name: ProviderName; definition: ProviderDefinition; constant: string; recording: string; input: () => ProviderEventStreamInput[] }> = [
  {
    name: 'ag-ui',
    definition: AG_UI_PROVIDER,
    constant: 'AG_UI_PROVIDER',
    recording: 'ag-ui/openai-chat-parallel-2-tool-calls-chunks.sse',
    input: () => oneByOne(readFixture('providers/ag-ui/openai-chat-parallel-2-tool-calls-chunks.sse')),
  },
  {
    name: 'langchain',
    definition: LANGCHAIN_PROVIDER,
    constant: 'LANGCHAIN_PROVIDER',
    recording: 'langchain/openai-chat-parallel-2-tool-calls.messages-v0.jsonl',
    input: () => objectsOf('providers/langchain/openai-chat-parallel-2-tool-calls.messages-v0.jsonl'),
  },
  {
    name: 'gemini-interactions',
    definition: GEMINI_INTERACTIONS_PROVIDER,
    constant: 'GEMINI_INTERACTIONS_PROVIDER',
    recording: 'gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse',
    input: () => oneByOne(readFixture('providers/gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse')),
  },
];

function decodeAll(decoder: ProviderEventDecoder, input: readonly ProviderEventStreamInput[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const chunk of input) decoder.push(chunk, out);
  return decoder.end(out);
}

describe('providers at entry points of their own', () => {
  for (const { name, definition, constant, recording, input } of CASES) {
    it(`ProviderEventDecoder refuses the name '${name}' with a TypeError that says what to import and pass`, () => {
      expect(() => new ProviderEventDecoder({ provider: name })).toThrow(TypeError);
      expect(() => new ProviderEventDecoder({ provider: name })).toThrow(
        `ProviderEventDecoder: provider "${name}" is at an entry point of its own, and a decoder cannot wait for its module: import { ${constant} } from 'argstream/${name}' and pass { provider: ${constant} } (ProviderEventStream and fromResponse load it by name)`,
      );
    });

    it(`${constant} (argstream/${name}) is named '${name}'; ProviderEventDecoder with it and ProviderEventStream by name give the same events, the recording's calls`, async () => {
      expect(definition.name).toBe(name);
      const decoded = decodeAll(new ProviderEventDecoder({ provider: definition }), input());
      const streamed = await readAll(streamOf(input()).pipeThrough(new ProviderEventStream({ provider: name })));
      expect(streamed).toEqual(decoded);
      const withDefinition = await readAll(streamOf(input()).pipeThrough(new ProviderEventStream({ provider: definition })));
      expect(withDefinition).toEqual(decoded);
      const turn = await collectTurn(streamOf(decoded));
      const expected = manifestEntry(recording).toolCalls.map((call) => ({ id: call.id, name: call.name, args: JSON.parse(call.args) as unknown }));
      expect(turn.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.arguments }))).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    });

    it(`ProviderEventStream '${name}' by name: an empty input ends as its decoder ends, after the module is loaded`, async () => {
      const decoder = new ProviderEventDecoder({ provider: definition });
      let expected: { values: StreamEvent[]; error: unknown };
      try {
        expected = { values: decoder.end(), error: undefined };
      } catch (error) {
        expected = { values: [], error };
      }
      const got = await settle(streamOf<ProviderEventStreamInput>([]).pipeThrough(new ProviderEventStream({ provider: name })));
      expect(got.values).toEqual(expected.values);
      expect(String(got.error)).toBe(String(expected.error));
    });

    it(`ProviderEventStream '${name}' by name checks maxBufferedBytes at construction`, () => {
      expect(() => new ProviderEventStream({ provider: name, maxBufferedBytes: 0 })).toThrow(RangeError);
    });
  }

  it('fromResponse reads gemini-interactions and ag-ui by name and by definition alike; LANGCHAIN_PROVIDER is refused as the name is', async () => {
    for (const { name, definition, input } of CASES.filter((c) => c.name !== 'langchain')) {
      const bytes = input() as Uint8Array[];
      const body = () => new Response(streamOf(bytes));
      const decoded = decodeAll(new ProviderEventDecoder({ provider: definition }), bytes);
      // Adjacent text parts of one read are joined by fromResponse: compare the turns.
      const byName = await collectTurn(fromResponse(body(), { provider: name }));
      const byDefinition = await collectTurn(fromResponse(body(), { provider: definition }));
      const direct = await collectTurn(streamOf(decoded));
      expect(byName).toEqual(direct);
      expect(byDefinition).toEqual(direct);
    }
    expect(() => fromResponse(new Response(''), { provider: LANGCHAIN_PROVIDER })).toThrow(/fromResponse: 'langchain' is not an HTTP API/);
  });

  it('fromResponse by name gives an HTTP error status as the provider error, its module loaded or not', async () => {
    const response = new Response('{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}', { status: 429 });
    const { error } = await settle(fromResponse(response, { provider: 'gemini-interactions' }));
    expect(error).toBeInstanceOf(ProviderError);
    expect([(error as ProviderError).provider, (error as ProviderError).status]).toEqual(['gemini-interactions', 429]);
  });

  it('ProviderEventStream and ProviderEventDecoder refuse an unknown name and an object that is not a definition, naming every provider', () => {
    const names = 'anthropic, openai-chat, openai-responses, gemini, ollama, bedrock, cohere, ai-sdk, ai-sdk-ui, ag-ui, langchain, gemini-interactions';
    expect(() => new ProviderEventStream({ provider: 'openai' as ProviderName })).toThrow(`ProviderEventStream: unknown provider "openai"; use one of ${names}, or a definition argstream exports`);
    expect(() => new ProviderEventDecoder({ provider: { name: 'ag-ui' } as unknown as ProviderDefinition })).toThrow(TypeError);
    expect(() => new ProviderEventDecoder({ provider: null as unknown as ProviderDefinition })).toThrow(/ProviderEventDecoder: unknown provider null/);
    expect(() => fromResponse(new Response(''), { provider: 'constructor' as ProviderName })).toThrow(/fromResponse: unknown provider "constructor"/);
  });
});
