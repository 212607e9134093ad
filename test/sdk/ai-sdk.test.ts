/**
 * The AI SDK (`ai` v5 `streamText` with `@ai-sdk/anthropic` and `@ai-sdk/openai`; `ai` 6 with their
 * version 3 and `ai` 7 with their version 4) against the replay server: `fullStream` (ai 7:
 * `stream`, its current name) piped into `ProviderEventStream({provider: 'ai-sdk'})`, argstream's
 * turn compared with `await result.toolCalls`, `result.text` and `result.finishReason`; and the
 * adapter on hand-written parts.
 */
import { anthropic, createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI, openai } from '@ai-sdk/openai';
import { jsonSchema, streamText, tool, type LanguageModel, type ToolSet } from 'ai';
import * as ai6 from 'ai6';
import * as ai7 from 'ai7';
import { createAnthropic as createAnthropic3 } from 'ai-sdk-anthropic3';
import { createAnthropic as createAnthropic4 } from 'ai-sdk-anthropic4';
import { createOpenAI as createOpenAI3 } from 'ai-sdk-openai3';
import { createOpenAI as createOpenAI4 } from 'ai-sdk-openai4';
import { describe, expect, it } from 'vitest';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { ArgumentValidationStream } from '../../src/transforms/argument-validation-stream.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { FieldEventStream } from '../../src/transforms/field-event-stream.ts';
import { PathUpdateStream } from '../../src/transforms/path-update-stream.ts';
import { ToolCallProgressStream } from '../../src/transforms/tool-call-progress-stream.ts';
import { TerminalSink } from '../../src/sinks/terminal.ts';
import { TurnStore } from '../../src/store/source-reading.ts';
import { UIMessageStreamEncoder } from '../../src/ai-sdk/ui-message-stream-encoder.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { ProviderError } from '../../src/errors.ts';
import type { ReplayProvider } from '../../src/cli/replay-server.ts';
import type { PipelineEvent } from '../../src/types.ts';
import { manifestRecordings, type ManifestRecording } from '../manifest.ts';
import { readAll, settle, streamOf } from '../helpers.ts';
import { closeServersAfterEach, replay, turnCalls } from './replay.ts';

closeServersAfterEach();

/** A tool without `execute` for each name the recording calls: the AI SDK then only reports the calls. */
function toolsOf(recording: ManifestRecording): ToolSet {
  const tools: ToolSet = {};
  for (const call of recording.toolCalls) tools[call.name] = tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }) });
  return tools;
}

const models: Record<string, { provider: ReplayProvider; model: (url: string) => LanguageModel }> = {
  anthropic: { provider: 'anthropic', model: (url) => createAnthropic({ apiKey: 'replay', baseURL: `${url}/v1` })('claude-replay') },
  'openai-chat': { provider: 'openai-chat', model: (url) => createOpenAI({ apiKey: 'replay', baseURL: `${url}/v1` }).chat('gpt-replay') },
  'openai-responses': { provider: 'openai-responses', model: (url) => createOpenAI({ apiKey: 'replay', baseURL: `${url}/v1` }).responses('gpt-replay') },
};

/**
 * The recordings read the same by the AI SDK. Left out: those with calls the provider runs (the
 * AI SDK fails unless the provider's tool is declared: see "AI SDK provider-executed tools"), and
 * content carried inside Anthropic's `message_start`, which the AI SDK's Anthropic provider does
 * not read (its own result has no call and finishes `unknown`).
 */
const cases = [
  ...manifestRecordings('anthropic').filter((r) => r.providerToolCalls.length === 0 && !r.file.includes('message-start-content')),
  ...manifestRecordings('openai-chat'),
  ...manifestRecordings('openai-responses').filter((r) => r.errors === undefined && r.providerToolCalls.length === 0),
];

describe('AI SDK streamText fullStream against the replay server', () => {
  it.each(cases.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
    const setup = models[recording.dir]!;
    const server = await replay(file, setup.provider);
    const result = streamText({ model: setup.model(server.url), prompt: 'hi', tools: toolsOf(recording), maxRetries: 0 });
    const turn = await collectTurn(result.fullStream.pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
    const sdkCalls = (await result.toolCalls).map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.input }));
    expect(turnCalls(turn)).toEqual(sdkCalls);
    expect(turn.text).toBe(await result.text);
    expect(turn.finishReason).toBe(await result.finishReason);
    expect(turn.reasoning).toBe((await result.reasoning).map((part) => part.text).join(''));
    // And the MANIFEST's calls; a call cut by max_tokens is incomplete on both sides.
    const valid = recording.toolCalls.filter((call) => !call.remark?.startsWith('NOT valid JSON'));
    expect(turnCalls(turn)).toEqual(valid.map((call) => ({ id: call.id, name: call.name, arguments: call.args === '' ? {} : JSON.parse(call.args) })));
    expect(turn.incompleteToolCalls.map((call) => [call.toolCallId, call.toolName])).toEqual(
      recording.toolCalls.filter((call) => !valid.includes(call)).map((call) => [call.id, call.name]),
    );
  });

  it('one pipeThrough to FieldEventStream: the fields of a streaming call, then the call', async () => {
    const server = await replay('anthropic/text-then-2-parallel-tool-use.sse', 'anthropic');
    const result = streamText({ model: models.anthropic!.model(server.url), prompt: 'hi', tools: toolsOf(manifestRecordings('anthropic')[0]!), maxRetries: 0 });
    const events = await readAll(result.fullStream.pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })).pipeThrough(new FieldEventStream()));
    const fields: string[] = [];
    for (const event of events) {
      if (event.type === 'field-start') fields.push(`${event.toolName}.${event.key}=`);
      else if (event.type === 'field-delta') fields[fields.length - 1] += event.text;
    }
    expect(fields).toEqual(['get_weather.location=New York, NY', 'get_weather.unit=fahrenheit', 'get_time.timezone=America/New_York']);
    expect(events.filter((event) => event.type === 'tool-call').map((event) => (event as { toolName: string }).toolName)).toEqual(['get_weather', 'get_time']);
  });

  it('an HTTP error: the error part becomes a ProviderError with the AI SDK error name and status', async () => {
    const { startReplayServer } = await import('../../src/cli/replay-server.ts');
    const server = await startReplayServer({
      recording: new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
      provider: 'anthropic',
      status: 529,
    });
    try {
      const result = streamText({ model: models.anthropic!.model(server.url), prompt: 'hi', maxRetries: 0, onError: () => {} });
      const { error } = await settle(result.fullStream.pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'ai-sdk', type: 'AI_APICallError', status: 529, message: 'Overloaded' });
    } finally {
      await server.close();
    }
  });
});

/** `streamText` of ai 6 and ai 7, each with its own provider packages, on a replay server's URL: the stream of parts argstream reads, and the AI SDK's own result. */
const LATER_MAJORS = {
  6: (recording: ManifestRecording, url: string) => {
    const model = recording.dir === 'anthropic' ? createAnthropic3({ apiKey: 'replay', baseURL: `${url}/v1` })('claude-replay') : recording.dir === 'openai-chat' ? createOpenAI3({ apiKey: 'replay', baseURL: `${url}/v1` }).chat('gpt-replay') : createOpenAI3({ apiKey: 'replay', baseURL: `${url}/v1` }).responses('gpt-replay');
    const tools: ai6.ToolSet = {};
    for (const call of recording.toolCalls) tools[call.name] = ai6.tool({ inputSchema: ai6.jsonSchema<Record<string, unknown>>({ type: 'object' }) });
    const result = ai6.streamText({ model, prompt: 'hi', tools, maxRetries: 0 });
    return { parts: result.fullStream as ReadableStream<object>, result };
  },
  7: (recording: ManifestRecording, url: string) => {
    const model = recording.dir === 'anthropic' ? createAnthropic4({ apiKey: 'replay', baseURL: `${url}/v1` })('claude-replay') : recording.dir === 'openai-chat' ? createOpenAI4({ apiKey: 'replay', baseURL: `${url}/v1` }).chat('gpt-replay') : createOpenAI4({ apiKey: 'replay', baseURL: `${url}/v1` }).responses('gpt-replay');
    const tools: ai7.ToolSet = {};
    for (const call of recording.toolCalls) tools[call.name] = ai7.tool({ inputSchema: ai7.jsonSchema<Record<string, unknown>>({ type: 'object' }) });
    const result = ai7.streamText({ model, prompt: 'hi', tools, maxRetries: 0 });
    return { parts: result.stream as ReadableStream<object>, result };
  },
} as const;

for (const major of [6, 7] as const) {
  describe(`AI SDK ${major} streamText ${major === 7 ? 'stream' : 'fullStream'} against the replay server`, () => {
    it.each(cases.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
      const server = await replay(file, models[recording.dir]!.provider);
      const { parts, result } = LATER_MAJORS[major](recording, server.url);
      const turn = await collectTurn(parts.pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
      const sdkCalls = (await result.toolCalls).map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.input }));
      expect(turnCalls(turn)).toEqual(sdkCalls);
      expect(turn.text).toBe(await result.text);
      expect(turn.finishReason).toBe(await result.finishReason);
      expect(turn.reasoning).toBe((await result.reasoning).map((part) => ('text' in part ? part.text : '')).join(''));
      const valid = recording.toolCalls.filter((call) => !call.remark?.startsWith('NOT valid JSON'));
      expect(turnCalls(turn)).toEqual(valid.map((call) => ({ id: call.id, name: call.name, arguments: call.args === '' ? {} : JSON.parse(call.args) })));
      expect(turn.incompleteToolCalls.map((call) => [call.toolCallId, call.toolName])).toEqual(
        recording.toolCalls.filter((call) => !valid.includes(call)).map((call) => [call.id, call.name]),
      );
    });
  });
}

describe('AI SDK provider-executed tools', () => {
  /** The recordings with calls the provider runs, and the provider tool each needs declared. */
  const serverToolCases: Array<[string, ToolSet]> = [
    ['anthropic/server-tool-use-code-execution-escapes-emoji.sse', { code_execution: anthropic.tools.codeExecution_20250825() } as ToolSet],
    ['anthropic/handmade-server-web-search-then-text.sse', { web_search: anthropic.tools.webSearch_20250305() } as ToolSet],
    ['openai-responses/web-search-call-then-message-annotations.sse', { web_search: openai.tools.webSearch() } as ToolSet],
  ];

  it.each(serverToolCases)("%s: the AI SDK's providerExecuted calls are provider tool calls with their results, never application calls", async (file, tools) => {
    const setup = models[file.slice(0, file.indexOf('/'))]!;
    const server = await replay(file, setup.provider);
    const result = streamText({ model: setup.model(server.url), prompt: 'hi', tools, maxRetries: 0 });
    const turn = await collectTurn(result.fullStream.pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
    const sdkCalls = await result.toolCalls;
    const sdkResults = await result.toolResults;
    // The SDK's own view: calls run by the provider, with their results.
    expect(sdkCalls.length).toBeGreaterThan(0);
    expect(sdkCalls.every((call) => call.providerExecuted === true)).toBe(true);
    expect(turnCalls(turn)).toEqual([]);
    expect(turn.providerToolCalls).toEqual(
      sdkCalls.map((call) => {
        const output = sdkResults.find((r) => r.toolCallId === call.toolCallId)?.output;
        return { toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.input, ...(output === undefined ? {} : { result: output }) };
      }),
    );
    expect(turn.text).toBe(await result.text);
  });
});

describe('fullStream piped straight into the stages (its parts an input of their own)', () => {
  /** The parts `fullStream` yields for a recording, collected once. */
  async function partsOf(recording: ManifestRecording): Promise<object[]> {
    const setup = models[recording.dir]!;
    const server = await replay(recording.file, setup.provider);
    const result = streamText({ model: setup.model(server.url), prompt: 'hi', tools: toolsOf(recording), maxRetries: 0 });
    return readAll(result.fullStream as ReadableStream<object>);
  }

  const stages: Record<string, () => TransformStream<any, any>> = {
    ToolCallProgressStream: () => new ToolCallProgressStream(),
    'ConversationEventStream({progress})': () => new ConversationEventStream({ progress: true }),
    FieldEventStream: () => new FieldEventStream(),
    PathUpdateStream: () => new PathUpdateStream(),
    ArgumentValidationStream: () => new ArgumentValidationStream({ tools: {} }),
  };

  it.each(cases.filter((recording) => recording.dir !== 'openai-responses').map((recording) => [recording.file, recording] as const))('%s', async (_file, recording) => {
    const parts = await partsOf(recording);
    const viaProvider = () => streamOf(parts).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' }));
    for (const [name, stage] of Object.entries(stages)) {
      expect(await readAll(streamOf(parts).pipeThrough(stage())), name).toEqual(await readAll(viaProvider().pipeThrough(stage())));
    }
    const direct = await collectTurn(streamOf(parts as PipelineEvent[]));
    expect(direct).toEqual(await collectTurn(viaProvider()));
    expect(direct.toolCalls.length + direct.incompleteToolCalls.length).toBe(recording.toolCalls.length);
    const drawn = async (stream: ReadableStream<unknown>) => {
      let text = '';
      await stream.pipeTo(new TerminalSink({ write: (piece) => void (text += piece) }) as WritableStream<unknown>);
      return text;
    };
    const text = await drawn(streamOf(parts));
    expect(text).toBe(await drawn(viaProvider()));
    for (const call of recording.toolCalls) expect(text).toContain(`▶ ${call.name}`);
  });

  it('the AI SDK tool-call and start parts are told from argstream events of the same type', async () => {
    const parts = [
      { type: 'start' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'get_time', input: { zone: 'UTC' } },
      { type: 'finish', finishReason: 'tool-calls', totalUsage: {} },
    ];
    const events = await readAll(streamOf<object>(parts).pipeThrough(new ToolCallProgressStream()));
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      { type: 'tool-call', index: 0, toolCallId: 'c1', toolName: 'get_time', arguments: { zone: 'UTC' } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'tool-calls' });
    // A `start` fragment (it has a `kind`) and argstream's own `tool-call` event pass through as they are.
    const own = [{ type: 'tool-call', index: 3, toolCallId: 'x', toolName: 'y', arguments: {} }];
    expect(await readAll(streamOf<object>(own).pipeThrough(new ToolCallProgressStream()))).toEqual(own);
    // Plain fragments of `{}`: passed on (a later view may need them), and no field events.
    const fragments = [{ type: 'start', kind: 'object' }, { type: 'done' }];
    expect(await readAll(streamOf<object>(fragments).pipeThrough(new FieldEventStream()))).toEqual(fragments);
  });
});

describe("ProviderEventStream({provider: 'ai-sdk'}) on hand-written parts", () => {
  const run = (parts: object[]) => collectTurn(streamOf(parts).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));

  it('ProviderEventStream ai-sdk: a tool-call part with no input deltas is still the call; one that streamed is not repeated', async () => {
    const turn: Turn = await run([
      { type: 'start' },
      { type: 'start-step', request: {}, warnings: [] },
      { type: 'reasoning-start', id: 'r0' },
      { type: 'reasoning-delta', id: 'r0', text: 'Think' },
      { type: 'reasoning-end', id: 'r0', providerMetadata: { anthropic: { signature: 'sig' } } },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', text: 'Hi ' },
      { type: 'text-delta', id: '0', text: 'there' },
      { type: 'text-end', id: '0' },
      { type: 'tool-input-start', id: 'call_1', toolName: 'write_file' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"path":"a.txt",' },
      { type: 'tool-input-delta', id: 'call_1', delta: '"content":"x"}' },
      { type: 'tool-input-end', id: 'call_1' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'write_file', input: { path: 'a.txt', content: 'x' } },
      { type: 'tool-call', toolCallId: 'call_2', toolName: 'get_time', input: { zone: 'UTC' } },
      { type: 'tool-result', toolCallId: 'call_2', toolName: 'get_time', input: { zone: 'UTC' }, output: '12:00' },
      { type: 'finish-step', response: {}, usage: {}, finishReason: 'tool-calls', providerMetadata: undefined },
      { type: 'finish', finishReason: 'tool-calls', totalUsage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
    ]);
    expect(turn.reasoning).toBe('Think');
    expect(turn.events.find((event) => event.type === 'reasoning')).toMatchObject({ signature: 'sig' });
    expect(turn.text).toBe('Hi there');
    expect(turnCalls(turn)).toEqual([
      { id: 'call_1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } },
      { id: 'call_2', name: 'get_time', arguments: { zone: 'UTC' } },
    ]);
    expect(turn.finishReason).toBe('tool-calls');
    expect(turn.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
  });

  it("ProviderEventStream ai-sdk: 'unknown' finishes as other, ids reused after their end are new slots", async () => {
    const turn = await run([
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', text: 'a' },
      { type: 'text-end', id: '0' },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', text: 'b' },
      { type: 'text-end', id: '0' },
      { type: 'finish', finishReason: 'unknown', totalUsage: {} },
    ]);
    expect(turn.events.map((event) => event.type === 'message' && event.text)).toEqual(['a', 'b']);
    expect([turn.finishReason, turn.rawFinishReason]).toEqual(['other', 'unknown']);
  });

  it("ProviderEventStream ai-sdk: an abort part is a ProviderError 'aborted' (the part's reason, as the UI message stream's abort chunk), after everything before it: collectTurn rejects, TurnStore keeps the cut call's partial input, UIMessageStreamEncoder writes it back as an abort", async () => {
    const parts = [
      { type: 'text-delta', id: '0', text: 'partial' },
      { type: 'tool-input-start', id: 'call_1', toolName: 'write_file' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"path":"a.txt","content":"he' },
    ];
    // ai 7 sends the signal's reason; ai 5 an abort part without one.
    for (const [abort, message] of [
      [{ type: 'abort', reason: 'AbortError: This operation was aborted' }, 'AbortError: This operation was aborted'],
      [{ type: 'abort' }, 'the AI SDK stream was aborted'],
    ] as const) {
      const all = [...parts, abort];
      const { values, error } = await settle(streamOf<object>(all).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'ai-sdk', type: 'aborted', message, cause: abort });
      expect(values.some((event) => event.type === 'finished')).toBe(false);
      expect(values.flatMap((event) => (event.type === 'part' && event.part.type === 'message' ? [event.part.text] : []))).toEqual(['partial']);
      await expect(run(all)).rejects.toMatchObject({ provider: 'ai-sdk', type: 'aborted' });
      // collectTurn reads the parts itself too: the same error.
      await expect(collectTurn(streamOf<{ type: string }>(all))).rejects.toMatchObject({ provider: 'ai-sdk', type: 'aborted' });
      const store = new TurnStore();
      await store.consume(streamOf<object>(all).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
      const snapshot = store.getSnapshot();
      expect(snapshot).toMatchObject({ status: 'error', text: 'partial', error: expect.objectContaining({ type: 'aborted' }) });
      expect(snapshot.calls).toEqual([expect.objectContaining({ toolCallId: 'call_1', status: 'failed', input: { path: 'a.txt', content: 'he' }, error: snapshot.error })]);
      // Relayed to a useChat page, it goes on as an abort (as the AI SDK's toUIMessageStream writes one), not an error.
      for (const major of [5, 7] as const) {
        const bytes = await readAll(streamOf<object>(all).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })).pipeThrough(new UIMessageStreamEncoder({ major })));
        const records = new TextDecoder().decode(new Uint8Array(bytes.flatMap((piece) => [...piece]))).split('\n\n');
        const chunks = records.filter((record) => record.startsWith('data: {')).map((record) => JSON.parse(record.slice(6)) as { type: string });
        // ai 7's abort chunk has a reason: the page reads argstream's words for the abort, not the server's.
        expect(chunks.at(-1)).toEqual(major === 7 ? { type: 'abort', reason: 'ai-sdk: the request was aborted' } : { type: 'abort' });
        expect(chunks.some((chunk) => chunk.type === 'error')).toBe(false);
      }
    }
  });

  it('ProviderEventStream ai-sdk: an error part is a ProviderError after the events before it; bytes and text are invalid-input', async () => {
    const cause = Object.assign(new Error('Overloaded'), { name: 'AI_APICallError', statusCode: 529 });
    const { values, error } = await settle(
      streamOf<object>([{ type: 'text-delta', id: '0', text: 'so far' }, { type: 'error', error: cause }]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })),
    );
    expect(values).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'so far' } }]);
    expect(error).toMatchObject({ name: 'ProviderError', provider: 'ai-sdk', type: 'AI_APICallError', status: 529, message: 'Overloaded', cause });
    for (const input of ['data: {}\n\n', new TextEncoder().encode('{}')]) {
      const refused = await settle(streamOf<string | Uint8Array>([input]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
      expect(refused.error).toMatchObject({ name: 'ProviderError', type: 'invalid-stream', code: 'invalid-input' });
      expect((refused.error as Error).message).toContain('fullStream');
    }
  });
});
