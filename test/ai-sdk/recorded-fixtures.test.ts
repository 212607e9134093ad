/**
 * `ProviderEventStream({ provider: 'ai-sdk-ui' })` on what the AI SDK's own server sends for real
 * provider recordings (issue 22 §3: "the UI message streams of the AI SDK's own recorded fixtures
 * (ai 5 and 7) decode to the same calls the AI SDK ends with"; ai 6 with them since issue 30).
 *
 * For every recording in test/fixtures/providers/ that the AI SDK's providers read (several come
 * from the vercel/ai repository's own fixtures, see MANIFEST.md), and for each major:
 *
 * 1. the AI SDK's server: `streamText` of that major with its provider package (ai 5:
 *    `@ai-sdk/anthropic`, `@ai-sdk/openai`, `@ai-sdk/openai-compatible`, `@ai-sdk/google`,
 *    `@ai-sdk/mistral`, `@ai-sdk/cohere` of the v2 specification; ai 6: their v3 releases; ai 7:
 *    their v4 releases), the recording replayed as the provider's HTTP response by a custom
 *    `fetch`, answered as that major's chatbot guide answers (ai 5 and 6:
 *    `result.toUIMessageStreamResponse()`; ai 7: `createUIMessageStreamResponse({ stream:
 *    toUIMessageStream({ stream: result.stream }) })`): the UI message stream's SSE bytes;
 * 2. the AI SDK's page on those bytes: `parseJsonEventStream` with the major's chunk schema (as its
 *    HTTP transport reads a response) → `readUIMessageStream`: the message it ends with;
 * 3. argstream on the same bytes, whole and cut at random: `ProviderEventStream({ provider:
 *    'ai-sdk-ui' })` → `collectTurn`.
 *
 * The turn's text, reasoning, calls (each with its exact input), provider-run calls (with their
 * results), failed and incomplete calls must be the message's; an `error` chunk must be the turn's
 * `ProviderError`, after the same text. The AI SDK must have read as many calls as the manifest
 * lists, except where its provider does not read them (`CALLS_UNREAD`). Not read here: Ollama
 * (no AI SDK provider of its own), Bedrock (binary event streams signed for AWS; its provider is
 * not installed) and Gemini's JSON array form (the AI SDK asks Google for SSE).
 */
import { createAnthropic as createAnthropic2 } from '@ai-sdk/anthropic';
import { createCohere as createCohere2 } from '@ai-sdk/cohere';
import { createGoogleGenerativeAI as createGoogle2 } from '@ai-sdk/google';
import { createMistral as createMistral2 } from '@ai-sdk/mistral';
import { createOpenAI as createOpenAI2 } from '@ai-sdk/openai';
import { createOpenAICompatible as createOpenAICompatible2 } from '@ai-sdk/openai-compatible';
import * as ai5 from 'ai';
import * as ai6 from 'ai6';
import * as ai7 from 'ai7';
import { createAnthropic as createAnthropic3 } from 'ai-sdk-anthropic3';
import { createCohere as createCohere3 } from 'ai-sdk-cohere3';
import { createGoogleGenerativeAI as createGoogle3 } from 'ai-sdk-google3';
import { createMistral as createMistral3 } from 'ai-sdk-mistral3';
import { createOpenAICompatible as createOpenAICompatible3 } from 'ai-sdk-openai-compatible2';
import { createOpenAI as createOpenAI3 } from 'ai-sdk-openai3';
import { createAnthropic as createAnthropic4 } from 'ai-sdk-anthropic4';
import { createCohere as createCohere4 } from 'ai-sdk-cohere4';
import { createGoogleGenerativeAI as createGoogle4 } from 'ai-sdk-google4';
import { createMistral as createMistral4 } from 'ai-sdk-mistral4';
import { createOpenAICompatible as createOpenAICompatible4 } from 'ai-sdk-openai-compatible3';
import { createOpenAI as createOpenAI4 } from 'ai-sdk-openai4';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import type { PipelineEvent } from '../../src/types.ts';
import { cutAt, readAll, readFixture, rng, settle, streamOf } from '../helpers.ts';
import { readManifest, type ManifestRecording } from '../manifest.ts';
import type { UIPart } from './transport-helpers.ts';

type Major = 5 | 6 | 7;
type Fetch = typeof globalThis.fetch;

/** The provider of each recording folder the AI SDK reads, per major: a model that calls `fetch`. */
const MODELS: Record<string, Record<Major, (fetch: Fetch) => unknown>> = {
  anthropic: {
    5: (fetch) => createAnthropic2({ apiKey: 'replay', fetch })('claude-replay'),
    6: (fetch) => createAnthropic3({ apiKey: 'replay', fetch })('claude-replay'),
    7: (fetch) => createAnthropic4({ apiKey: 'replay', fetch })('claude-replay'),
  },
  'openai-chat': {
    5: (fetch) => createOpenAI2({ apiKey: 'replay', fetch }).chat('gpt-replay'),
    6: (fetch) => createOpenAI3({ apiKey: 'replay', fetch }).chat('gpt-replay'),
    7: (fetch) => createOpenAI4({ apiKey: 'replay', fetch }).chat('gpt-replay'),
  },
  'openai-responses': {
    5: (fetch) => createOpenAI2({ apiKey: 'replay', fetch }).responses('gpt-replay'),
    6: (fetch) => createOpenAI3({ apiKey: 'replay', fetch }).responses('gpt-replay'),
    7: (fetch) => createOpenAI4({ apiKey: 'replay', fetch }).responses('gpt-replay'),
  },
  'openai-compatible': {
    5: (fetch) => createOpenAICompatible2({ name: 'replay', baseURL: 'https://replay.invalid/v1', apiKey: 'replay', fetch }).chatModel('replay'),
    6: (fetch) => createOpenAICompatible3({ name: 'replay', baseURL: 'https://replay.invalid/v1', apiKey: 'replay', fetch }).chatModel('replay'),
    7: (fetch) => createOpenAICompatible4({ name: 'replay', baseURL: 'https://replay.invalid/v1', apiKey: 'replay', fetch }).chatModel('replay'),
  },
  gemini: {
    5: (fetch) => createGoogle2({ apiKey: 'replay', fetch })('gemini-replay'),
    6: (fetch) => createGoogle3({ apiKey: 'replay', fetch })('gemini-replay'),
    7: (fetch) => createGoogle4({ apiKey: 'replay', fetch })('gemini-replay'),
  },
  mistral: {
    5: (fetch) => createMistral2({ apiKey: 'replay', fetch })('mistral-replay'),
    6: (fetch) => createMistral3({ apiKey: 'replay', fetch })('mistral-replay'),
    7: (fetch) => createMistral4({ apiKey: 'replay', fetch })('mistral-replay'),
  },
  cohere: {
    5: (fetch) => createCohere2({ apiKey: 'replay', fetch })('command-replay'),
    6: (fetch) => createCohere3({ apiKey: 'replay', fetch })('command-replay'),
    7: (fetch) => createCohere4({ apiKey: 'replay', fetch })('command-replay'),
  },
};

/** The provider-run tools a recording needs declared (the AI SDK fails a call to a tool it was not given). */
function providerTools(file: string, major: Major): Record<string, unknown> {
  const anthropic = major === 5 ? createAnthropic2({ apiKey: 'x' }) : major === 6 ? createAnthropic3({ apiKey: 'x' }) : createAnthropic4({ apiKey: 'x' });
  const openai = major === 5 ? createOpenAI2({ apiKey: 'x' }) : major === 6 ? createOpenAI3({ apiKey: 'x' }) : createOpenAI4({ apiKey: 'x' });
  if (file === 'anthropic/server-tool-use-code-execution-escapes-emoji.sse') return { code_execution: anthropic.tools.codeExecution_20250825() };
  if (file === 'anthropic/handmade-server-web-search-then-text.sse') return { web_search: anthropic.tools.webSearch_20250305() };
  if (file === 'openai-responses/web-search-call-then-message-annotations.sse') return { web_search: openai.tools.webSearch() };
  return {};
}

/** The recordings the AI SDK reads: SSE bodies of the providers above. */
const RECORDINGS = readManifest().filter((recording) => MODELS[recording.dir] !== undefined && recording.file.endsWith('.sse'));

/** A `fetch` that answers with the recording (status 200, an event stream), in pieces. */
function replayFetch(bytes: Uint8Array): Fetch {
  return (async () => {
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 97) pieces.push(bytes.slice(i, i + 97));
    return new Response(streamOf(pieces), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as Fetch;
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The AI SDK's server of `major` on the recording: the response body's bytes. Each call to an
 * application tool goes to a declared tool without `execute` (the AI SDK then sends the call, as a
 * chat app whose page runs its tools); an error reaches the page with its message.
 */
async function aiSdkServer(recording: ManifestRecording, major: Major): Promise<Uint8Array> {
  const model = MODELS[recording.dir]![major](replayFetch(readFixture(`providers/${recording.file}`)));
  const names = new Set(recording.toolCalls.map((call) => call.name));
  let response: Response;
  if (major === 5) {
    const tools: ai5.ToolSet = { ...(providerTools(recording.file, 5) as ai5.ToolSet) };
    for (const name of names) tools[name] = ai5.tool({ inputSchema: ai5.jsonSchema({ type: 'object' }) });
    const result = ai5.streamText({ model: model as ai5.LanguageModel, prompt: 'hi', tools, maxRetries: 0, onError: () => {} });
    response = result.toUIMessageStreamResponse({ onError: errorText });
  } else if (major === 6) {
    const tools: ai6.ToolSet = { ...(providerTools(recording.file, 6) as ai6.ToolSet) };
    for (const name of names) tools[name] = ai6.tool({ inputSchema: ai6.jsonSchema({ type: 'object' }) });
    const result = ai6.streamText({ model: model as ai6.LanguageModel, prompt: 'hi', tools, maxRetries: 0, onError: () => {} });
    response = result.toUIMessageStreamResponse({ onError: errorText });
  } else {
    const tools: ai7.ToolSet = { ...(providerTools(recording.file, 7) as ai7.ToolSet) };
    for (const name of names) tools[name] = ai7.tool({ inputSchema: ai7.jsonSchema({ type: 'object' }) });
    const result = ai7.streamText({ model: model as ai7.LanguageModel, prompt: 'hi', tools, maxRetries: 0, onError: () => {} });
    response = ai7.createUIMessageStreamResponse({ stream: ai7.toUIMessageStream({ stream: result.stream, tools, onError: errorText }) });
  }
  expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
  return new Uint8Array(await response.arrayBuffer());
}

/** The AI SDK's page on the bytes: the message it ends with, and the errors it was told. */
async function aiSdkPage(bytes: Uint8Array, major: Major): Promise<{ parts: UIPart[]; errors: string[] }> {
  const ai = { 5: ai5, 6: ai6, 7: ai7 }[major];
  const parse = ai.parseJsonEventStream as (options: { stream: ReadableStream<Uint8Array>; schema: unknown }) => ReadableStream<{ success: boolean; value?: unknown; rawValue?: unknown }>;
  const read = ai.readUIMessageStream as (options: { stream: ReadableStream<unknown>; onError?: (error: unknown) => void }) => AsyncIterable<{ parts: UIPart[] }>;
  const chunks = parse({ stream: streamOf([bytes]), schema: ai.uiMessageChunkSchema() }).pipeThrough(
    new TransformStream<{ success: boolean; value?: unknown; rawValue?: unknown }, unknown>({
      transform(result, controller) {
        if (!result.success) throw new Error(`a chunk ai ${major} refuses: ${JSON.stringify(result.rawValue)}`);
        controller.enqueue(result.value);
      },
    }),
  );
  const errors: string[] = [];
  let last: { parts: UIPart[] } = { parts: [] };
  for await (const message of read({ stream: chunks, onError: (error) => errors.push(errorText(error)) })) last = message;
  return { parts: structuredClone(last.parts), errors };
}

/** What is compared: the text, the reasoning and the calls of a message or a turn. */
interface Ended {
  text: string;
  reasoning: string;
  /** The application's calls with complete input: id, tool, input. */
  calls: Array<[string, string, unknown]>;
  /** The calls the provider ran: id, tool, input, result. */
  providerCalls: Array<[string, string, unknown, unknown]>;
  /** Calls whose input the AI SDK refused (`tool-input-error`): id, tool, the error's text. */
  failed: Array<[string, string, string | undefined]>;
  /** Calls cut while their input streamed: id, tool, the input so far. */
  incomplete: Array<[string, string, unknown]>;
}

/** The AI SDK's message, as compared. */
function endedOfMessage(parts: readonly UIPart[]): Ended {
  const ended: Ended = { text: '', reasoning: '', calls: [], providerCalls: [], failed: [], incomplete: [] };
  for (const part of parts) {
    if (part.type === 'text') ended.text += part.text ?? '';
    else if (part.type === 'reasoning') ended.reasoning += part.text ?? '';
    else if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
      const id = part.toolCallId ?? '';
      const name = part.type === 'dynamic-tool' ? (part.toolName ?? '') : part.type.slice('tool-'.length);
      if (part.providerExecuted === true) ended.providerCalls.push([id, name, part.input, part.output]);
      else if (part.state === 'input-streaming') ended.incomplete.push([id, name, part.input]);
      else if (part.state === 'output-error') ended.failed.push([id, name, part.errorText]);
      else ended.calls.push([id, name, part.input]);
    }
  }
  return ended;
}

/** argstream's turn, as compared. */
function endedOfTurn(turn: Turn): Ended {
  return {
    text: turn.text,
    reasoning: turn.reasoning,
    calls: turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments]),
    providerCalls: turn.providerToolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments, call.result]),
    failed: turn.failedToolCalls.map((call) => [call.toolCallId, call.toolName, call.error.message]),
    incomplete: turn.incompleteToolCalls.map((call) => [call.toolCallId, call.toolName, call.partialArguments]),
  };
}

/**
 * What argstream had read when the stream failed: the text and reasoning that streamed (a slot the
 * error cut is never flushed as a message, but the page shows its text), the calls it flushed.
 */
function endedBefore({ values, error }: { values: readonly PipelineEvent[]; error: unknown }): Ended {
  expect(error).toBeInstanceOf(ProviderError);
  const ended: Ended = { text: '', reasoning: '', calls: [], providerCalls: [], failed: [], incomplete: [] };
  for (const event of values) {
    if (event.type === 'part' && event.part.type === 'message') ended.text += event.part.text;
    else if (event.type === 'part' && event.part.type === 'reasoning') ended.reasoning += event.part.text;
    else if (event.type === 'tool-call') ended.calls.push([event.toolCallId, event.toolName, event.arguments]);
    else if (event.type === 'provider-tool-call') ended.providerCalls.push([event.toolCallId, event.toolName, event.arguments, undefined]);
    else if (event.type === 'provider-tool-result') {
      const call = ended.providerCalls.find(([id]) => id === event.toolCallId);
      if (call !== undefined) call[3] = event.result;
    }
    else if (event.type === 'tool-call-failed') ended.failed.push([event.toolCallId, event.toolName, event.error.message]);
    else if (event.type === 'tool-call-incomplete') ended.incomplete.push([event.toolCallId, event.toolName, event.partialArguments]);
  }
  return ended;
}

/** The bytes whole, and cut at random positions (two seeds). */
function cuttingsOf(bytes: Uint8Array, file: string): Array<[string, Uint8Array[]]> {
  const seed = [...file].reduce((sum, char) => sum + char.charCodeAt(0), 0);
  return [
    ['whole', [bytes]],
    ...[seed, seed + 1].map((s): [string, Uint8Array[]] => {
      const random = rng(s);
      const cuts = Array.from({ length: 16 }, () => Math.floor(random() * bytes.length)).sort((a, b) => a - b);
      return [`cut at random (seed ${s})`, cutAt(bytes, cuts)];
    }),
  ];
}

/** Recordings whose calls the AI SDK's provider of some major does not read (argstream's providers do). */
const CALLS_UNREAD: Record<string, { majors: readonly Major[]; why: string }> = {
  'anthropic/handmade-message-start-content-programmatic-tool-use.sse': { majors: [5, 6, 7], why: 'its Anthropic provider does not read content sent whole in message_start' },
  ...Object.fromEntries(
    ['two-calls', 'thought-no-args-plus-3-calls', 'nested-unicode', 'numbers-no-terminal'].map((name) => [
      `gemini/vertex-partial-args-${name}.sse`,
      { majors: [5], why: "ai 5's Google provider (2) does not read Vertex's streamed partialArgs (its 4 does)" },
    ]),
  ),
};

const decoded = (chunks: readonly Uint8Array[]) => streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' }));

for (const major of [5, 6, 7] as const) {
  describe(`ProviderEventStream({ provider: 'ai-sdk-ui' }) on ai ${major}'s own server's UI message streams of the provider recordings: the calls the AI SDK ends with`, () => {
    it.each(RECORDINGS.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
      const bytes = await aiSdkServer(recording, major);
      const page = await aiSdkPage(bytes, major);
      const expected = endedOfMessage(page.parts);
      // The AI SDK read the recording: as many calls as the manifest lists (else both sides could
      // agree on nothing), but where its provider does not read them.
      const read = expected.calls.length + expected.providerCalls.length + expected.failed.length + expected.incomplete.length;
      const unread = CALLS_UNREAD[file]?.majors.includes(major) === true;
      expect(read, `calls the AI SDK read${unread ? `: none, ${CALLS_UNREAD[file]?.why}` : ''}`).toBe(unread ? 0 : recording.toolCalls.length + recording.providerToolCalls.length);
      for (const [cutting, chunks] of cuttingsOf(bytes, file)) {
        if (page.errors.length === 0) {
          const turn = await collectTurn(decoded(chunks), { isolateErrors: true });
          expect(endedOfTurn(turn), cutting).toEqual(expected);
          continue;
        }
        // The AI SDK's error chunk: collectTurn fails with it, after the same text and calls.
        const failed = await collectTurn(decoded(chunks), { isolateErrors: true }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failed, cutting).toBeInstanceOf(ProviderError);
        // Its message is the chunk's text, kept to 500 characters (a ProviderError's longest: ai 6's
        // Anthropic provider reports a message_start it cannot read with the whole event in it);
        // the chunk is the cause, whole.
        const text = page.errors[0] ?? '';
        expect(failed, cutting).toMatchObject({ provider: 'ai-sdk-ui', message: text.length <= 500 ? text : `${text.slice(0, 499)}…`, cause: { type: 'error', errorText: text } });
        expect(endedBefore(await settle(decoded(chunks).pipeThrough(new ConversationEventStream({ passthrough: true, isolateErrors: true })))), cutting).toEqual(expected);
      }
    });
  });
}
