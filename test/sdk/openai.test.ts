/**
 * The official OpenAI SDK against the replay server: Chat Completions (`chat.completions.stream`
 * → `finalChatCompletion()`) and Responses (`responses.stream` → `finalResponse()`), each
 * recording's turn from the SDK's event objects, its `toReadableStream()` NDJSON and
 * `fromResponse`, compared with the SDK's own final result.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { fromAsyncIterable } from '../../src/sources/iterable.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { manifestRecordings } from '../manifest.ts';
import { closeServersAfterEach, replay, turnCalls } from './replay.ts';

closeServersAfterEach();

function client(baseURL: string): OpenAI {
  return new OpenAI({ apiKey: 'sk-replay', baseURL: `${baseURL}/v1`, maxRetries: 0 });
}

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

const chatParams = { model: 'gpt-replay', messages: [{ role: 'user' as const, content: 'hi' }] };
const chatRecordings = [...manifestRecordings('openai-chat'), ...manifestRecordings('openai-compatible'), ...manifestRecordings('mistral')];

/**
 * Recordings whose SDK result differs from the wire (and from argstream's turn, which equals the
 * MANIFEST): what the SDK does, checked as it is.
 */
const SDK_DISAGREES: Record<string, (sdk: { value?: OpenAI.ChatCompletion; error?: unknown }) => void> = {
  // `tool_calls` fragments with `index: null` after the first: the SDK's accumulator throws.
  'openai-compatible/writer-parallel-tool-calls-null-fields.sse': (sdk) => expect(String(sdk.error)).toContain('no tool call snapshot'),
  // No `role` in the first delta: the SDK refuses the stream.
  'mistral/incremental-tool-call-empty-name.sse': (sdk) => expect(String(sdk.error)).toContain('missing role for choice 0'),
  // A whole tool call without `index`: the SDK's final message has no tool call.
  'mistral/tool-call-whole-no-index.sse': (sdk) => expect(sdk.value?.choices[0]?.message.tool_calls ?? []).toEqual([]),
  // Mistral's typed content chunks (`[{type: 'text', text}]`): the SDK joins them as "[object Object]".
  'mistral/magistral-thinking-content-chunks.sse': (sdk) => expect(sdk.value?.choices[0]?.message.content).toMatch(/^\[object Object\]/),
};

describe('OpenAI SDK, Chat Completions, against the replay server', () => {
  it.each(chatRecordings.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
    const server = await replay(file, 'openai-chat');
    const openai = client(server.url);
    // argstream reads the SDK's raw chunks (create), its NDJSON, and the fetch response.
    const raw = await settle(
      openai.chat.completions.create({ ...chatParams, stream: true }).then((chunks) =>
        collectTurn(fromAsyncIterable(chunks).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))),
      ),
    );
    const ndjson = await settle(
      openai.chat.completions.create({ ...chatParams, stream: true }).then((chunks) =>
        collectTurn(chunks.toReadableStream().pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))),
      ),
    );
    const fetched = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    const fromFetch = await settle(collectTurn(fromResponse(fetched, { provider: 'openai-chat' })));
    const sdkResult = await settle(openai.chat.completions.stream(chatParams).finalChatCompletion());
    report(file, fromFetch, sdkResult, recording.toolCalls.length);

    if (recording.errors !== undefined) {
      // An error sent inside the stream: the SDK throws its APIError, argstream a ProviderError
      // with the same message, on every path.
      expect(sdkResult.error).toBeInstanceOf(OpenAI.APIError);
      for (const mine of [raw, ndjson, fromFetch]) expect(mine.error).toBeDefined();
      expect(fromFetch.error).toMatchObject({ name: 'ProviderError', provider: 'openai-chat' });
      expect((fromFetch.error as Error).message).toContain((sdkResult.error as Error).message);
      return;
    }
    expect(fromFetch.error).toBeUndefined();
    const turn = fromFetch.value as Turn;
    // argstream's turn is the MANIFEST's (ids the wire lacks are generated), on every path.
    expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(
      recording.toolCalls.map((call) => [call.name, call.args === '' ? {} : JSON.parse(call.args)]),
    );
    recording.toolCalls.forEach((call, i) => call.id !== '' && expect(turn.toolCalls[i]?.toolCallId).toBe(call.id));
    for (const other of [raw, ndjson]) {
      expect(other.error).toBeUndefined();
      expect(turnCalls(other.value as Turn)).toEqual(turnCalls(turn));
      expect((other.value as Turn).text).toBe(turn.text);
      expect((other.value as Turn).rawFinishReason).toBe(turn.rawFinishReason);
    }

    const disagreement = SDK_DISAGREES[file];
    if (disagreement !== undefined) {
      disagreement(sdkResult as { value?: OpenAI.ChatCompletion; error?: unknown });
      return;
    }
    expect(sdkResult.error).toBeUndefined();
    const completion = sdkResult.value as OpenAI.ChatCompletion;
    const choice = completion.choices[0] as OpenAI.ChatCompletion.Choice;
    const sdkCalls = (choice.message.tool_calls ?? []).map((call) => {
      const fn = (call as OpenAI.ChatCompletionMessageFunctionToolCall).function;
      return { id: call.id, name: fn.name, arguments: fn.arguments === '' ? {} : JSON.parse(fn.arguments) };
    });
    if (completion.choices.length === 1) {
      expect(turnCalls(turn)).toEqual(sdkCalls);
      expect(turn.text).toBe(choice.message.content ?? '');
      // The SDK's `message.refusal` is argstream's refusal, never message text.
      expect(turn.refusal).toBe(choice.message.refusal ?? undefined);
    } else {
      // Several choices: argstream's turn holds every choice's slots, in the order they arrived.
      expect(turnCalls(turn)).toEqual([]);
      const texts = completion.choices.map((c) => c.message.content ?? '');
      for (const text of texts) expect(turn.text).toContain(text);
      expect(turn.text.length).toBe(texts.join('').length);
    }
    expect(turn.rawFinishReason).toBe(choice.finish_reason);
  });
});

const responsesParams = { model: 'gpt-replay', input: 'hi' };

describe('OpenAI SDK, Responses, against the replay server', () => {
  it.each(manifestRecordings('openai-responses').map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
    const server = await replay(file, 'openai-responses');
    const openai = client(server.url);
    const stream = openai.responses.stream(responsesParams);
    const turnResult = await settle(collectTurn(fromAsyncIterable(stream).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' }))));
    const sdkResult = await settle(stream.finalResponse());
    const fetched = await fetch(`${server.url}/v1/responses`, { method: 'POST', body: '{}' });
    const fromFetch = await settle(collectTurn(fromResponse(fetched, { provider: 'openai-responses' })));
    report(file, turnResult, sdkResult, recording.toolCalls.length);
    if (sdkResult.error !== undefined) {
      expect(turnResult.error, 'argstream accepted a stream the SDK refused').toBeDefined();
      expect(fromFetch.error).toMatchObject({ name: 'ProviderError' });
      return;
    }
    const response = sdkResult.value as OpenAI.Responses.Response;
    const turn = turnResult.value as Turn;
    const sdkCalls = response.output
      .filter((item) => item.type === 'function_call')
      .map((item) => {
        const call = item as OpenAI.Responses.ResponseFunctionToolCall;
        return { id: call.call_id, name: call.name, arguments: call.arguments === '' ? {} : JSON.parse(call.arguments) };
      });
    expect(turnCalls(turn)).toEqual(sdkCalls);
    // Hosted calls (web search, …) are the provider's: their ids are the SDK's output items of those types.
    const hosted = ['web_search_call', 'file_search_call', 'code_interpreter_call', 'image_generation_call', 'mcp_call'];
    const sdkHosted = response.output.filter((item) => hosted.includes(item.type)).map((item) => (item as { id: string }).id);
    expect(turn.providerToolCalls.map((call) => call.toolCallId)).toEqual(sdkHosted);
    // The SDK's refusal content parts are argstream's refusal, never message text.
    const sdkRefusal = response.output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((c) => (c.type === 'refusal' ? [c.refusal] : [])) : []));
    expect(turn.refusal).toBe(sdkRefusal.length > 0 ? sdkRefusal.join('') : undefined);
    expect(turn.text).toBe(response.output_text);
    expect(turn.rawFinishReason).toBe(response.status);
    expect(turn.finishReason).toBe(sdkCalls.length > 0 ? 'tool-calls' : 'stop');
    expect(fromFetch.error).toBeUndefined();
    expect(turnCalls(fromFetch.value as Turn)).toEqual(sdkCalls);
    expect((fromFetch.value as Turn).text).toBe(response.output_text);
  });
});

/** One line per recording in the test output: what each side made of it. */
function report(file: string, turn: { value?: Turn; error?: unknown }, sdk: { error?: unknown }, expectedCalls: number): void {
  const mine = turn.error !== undefined ? `error ${(turn.error as Error).name}: ${(turn.error as Error).message}` : `${turn.value?.toolCalls.length} calls, ${turn.value?.rawFinishReason}`;
  const theirs = sdk.error !== undefined ? `error ${(sdk.error as Error).constructor.name}: ${(sdk.error as Error).message}` : 'ok';
  console.log(`${file}: argstream ${mine}; SDK ${theirs}; MANIFEST ${expectedCalls} calls`);
}
