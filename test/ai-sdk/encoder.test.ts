/**
 * `UIMessageStreamEncoder` (`argstream/ai-sdk`): argstream's events as the AI SDK's UI message
 * stream. For each provider recording, the final message a `useChat` page ends with is compared:
 *
 * 1. the AI SDK's own server, of each major: `streamText` of `ai` 5 with `@ai-sdk/anthropic` /
 *    `@ai-sdk/openai` 2 (ai 5's) over a `fetch` that replays the recording → `toUIMessageStream()`
 *    → `readUIMessageStream` of ai 5; `streamText` of `ai` 6 with `@ai-sdk/anthropic` /
 *    `@ai-sdk/openai` 3 (ai 6's) → `result.toUIMessageStream()` → `readUIMessageStream` of ai 6;
 *    and `streamText` of `ai` 7 with `@ai-sdk/anthropic` / `@ai-sdk/openai` 4 (ai 7's) → ai 7's
 *    `toUIMessageStream({ stream: result.stream })` → `readUIMessageStream` of ai 7;
 * 2. argstream: the same bytes → `ProviderEventStream` → `UIMessageStreamEncoder` → the SSE bytes
 *    read back as the AI SDK's HTTP transport reads them (`parseJsonEventStream` with the chunk
 *    schema, which must accept every chunk) → `readUIMessageStream` of `ai` 5, 6 and 7 (against
 *    ai 6's and ai 7's servers: `major: 6` read by ai 6, `major: 7` read by ai 7).
 *
 * Parts are compared by type, text, tool name and call id, input, output and state (ids of text
 * and reasoning aside). The differences the AI SDK makes on purpose are listed in `DIFFERENCES`
 * (every major) and `LATER_DIFFERENCES` (where ai 6 or 7 and their providers differ from ai 5's).
 */
import { anthropic, createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI, openai } from '@ai-sdk/openai';
import {
  jsonSchema,
  parseJsonEventStream as parse5,
  readUIMessageStream as read5,
  streamText,
  tool,
  uiMessageChunkSchema as schema5,
  UI_MESSAGE_STREAM_HEADERS as HEADERS5,
  type LanguageModel,
  type ToolSet,
} from 'ai';
import {
  jsonSchema as jsonSchema6,
  parseJsonEventStream as parse6,
  readUIMessageStream as read6,
  streamText as streamText6,
  tool as tool6,
  uiMessageChunkSchema as schema6,
  UI_MESSAGE_STREAM_HEADERS as HEADERS6,
  type ToolSet as ToolSet6,
} from 'ai6';
import {
  jsonSchema as jsonSchema7,
  parseJsonEventStream as parse7,
  readUIMessageStream as read7,
  streamText as streamText7,
  toUIMessageStream as toUIMessageStream7,
  tool as tool7,
  uiMessageChunkSchema as schema7,
  UI_MESSAGE_STREAM_HEADERS as HEADERS7,
  type ToolSet as ToolSet7,
} from 'ai7';
import { anthropic as anthropic3, createAnthropic as createAnthropic3 } from 'ai-sdk-anthropic3';
import { anthropic as anthropic4, createAnthropic as createAnthropic4 } from 'ai-sdk-anthropic4';
import { createOpenAI as createOpenAI3, openai as openai3 } from 'ai-sdk-openai3';
import { createOpenAI as createOpenAI4, openai as openai4 } from 'ai-sdk-openai4';
import { describe, expect, it } from 'vitest';
import { UI_MESSAGE_STREAM_HEADERS, UIMessageChunkEncoder, UIMessageStreamEncoder, type UIMessageChunk } from '../../src/bindings/ai-sdk/index.ts';
import { ProviderError } from '../../src/errors.ts';
import { pageErrorMessage } from '../../src/relay/error-record.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { FieldEventStream } from '../../src/transforms/field-event-stream.ts';
import { PathUpdateStream } from '../../src/transforms/path-update-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { ToolCallDeltaStream } from '../../src/transforms/tool-call-delta-stream.ts';
import { ToolCallProgressStream } from '../../src/transforms/tool-call-progress-stream.ts';
import type { PipelineEvent, StreamEvent } from '../../src/types.ts';
import type { ProviderName } from '../../src/errors.ts';
import { manifestRecordings, readManifest, type ManifestRecording } from '../manifest.ts';
import { PROVIDER_OF_DIR, recordingInput } from '../providers/event-stream-helpers.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { readAll, readFixture, settle, streamOf } from '../helpers.ts';
import type { UIPart } from './transport-helpers.ts';

type Major = 5 | 6 | 7;
/** Each major's reader: its `parseJsonEventStream` with its chunk schema (its HTTP transport), and `readUIMessageStream`. */
const READERS = {
  5: { parse: parse5, schema: schema5, read: read5 },
  6: { parse: parse6, schema: schema6, read: read6 },
  7: { parse: parse7, schema: schema7, read: read7 },
} as const;
const MAJORS = [5, 6, 7] as const;
type ReplayProvider = 'anthropic' | 'openai-chat' | 'openai-responses';

/** A part of a final message as compared: ids of text and reasoning aside, no provider metadata. */
function compared(parts: readonly UIPart[]): object[] {
  const out: object[] = [];
  for (const part of parts) {
    if (part.type === 'text' || part.type === 'reasoning') out.push({ type: part.type, text: part.text, state: part.state });
    else if (part.type === 'step-start') out.push({ type: part.type });
    else if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
      out.push({
        type: part.type,
        toolCallId: part.toolCallId,
        ...(part.type === 'dynamic-tool' ? { toolName: part.toolName } : {}),
        state: part.state,
        input: part.input,
        ...(part.output !== undefined ? { output: part.output } : {}),
        ...(part.errorText !== undefined ? { errorText: part.errorText } : {}),
        ...(part.providerExecuted !== undefined ? { providerExecuted: part.providerExecuted } : {}),
      });
    } else out.push(part);
  }
  return out;
}

/** A `fetch` that answers every request with the recording (status 200, an event stream), in pieces. */
function replayFetch(bytes: Uint8Array): typeof fetch {
  return (async () => {
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 97) pieces.push(bytes.slice(i, i + 97));
    return new Response(streamOf(pieces), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as typeof fetch;
}

/** A model of the AI SDK's own provider for the recording's API, reading the recording. */
function modelOf(provider: ReplayProvider, bytes: Uint8Array): LanguageModel {
  const fetch = replayFetch(bytes);
  if (provider === 'anthropic') return createAnthropic({ apiKey: 'replay', fetch })('claude-replay');
  const client = createOpenAI({ apiKey: 'replay', fetch });
  return provider === 'openai-chat' ? client.chat('gpt-replay') : client.responses('gpt-replay');
}

/** A model of ai 6's own provider for the recording's API (`@ai-sdk/anthropic` 3, `@ai-sdk/openai` 3), reading the recording. */
function model6Of(provider: ReplayProvider, bytes: Uint8Array) {
  const fetch = replayFetch(bytes);
  if (provider === 'anthropic') return createAnthropic3({ apiKey: 'replay', fetch })('claude-replay');
  const client = createOpenAI3({ apiKey: 'replay', fetch });
  return provider === 'openai-chat' ? client.chat('gpt-replay') : client.responses('gpt-replay');
}

/** A model of ai 7's own provider for the recording's API (`@ai-sdk/anthropic` 4, `@ai-sdk/openai` 4), reading the recording. */
function model7Of(provider: ReplayProvider, bytes: Uint8Array) {
  const fetch = replayFetch(bytes);
  if (provider === 'anthropic') return createAnthropic4({ apiKey: 'replay', fetch })('claude-replay');
  const client = createOpenAI4({ apiKey: 'replay', fetch });
  return provider === 'openai-chat' ? client.chat('gpt-replay') : client.responses('gpt-replay');
}

/** Read UI message chunks to the final message with `readUIMessageStream` of `major`. */
async function finalMessage(major: Major, chunks: ReadableStream<unknown>): Promise<{ parts: UIPart[]; errors: string[] }> {
  const read = READERS[major].read as (options: { stream: ReadableStream<unknown>; onError?: (error: unknown) => void }) => AsyncIterable<{ parts: UIPart[] }>;
  const errors: string[] = [];
  let last: { parts: UIPart[] } = { parts: [] };
  for await (const message of read({ stream: chunks, onError: (error) => errors.push((error as Error).message) })) last = message;
  return { parts: structuredClone(last.parts), errors };
}

/** SSE bytes read back as the AI SDK's HTTP transport reads them: every chunk must pass the chunk schema of `major`. */
function parsed(major: Major, bytes: ReadableStream<Uint8Array>): { chunks: ReadableStream<unknown>; rejected: unknown[] } {
  const parse = READERS[major].parse as (options: { stream: ReadableStream<Uint8Array>; schema: unknown }) => ReadableStream<{ success: boolean; value?: unknown; error?: unknown; rawValue?: unknown }>;
  const rejected: unknown[] = [];
  const chunks = parse({ stream: bytes, schema: READERS[major].schema() }).pipeThrough(
    new TransformStream<{ success: boolean; value?: unknown; rawValue?: unknown }, unknown>({
      transform(result, controller) {
        if (result.success) controller.enqueue(result.value);
        else rejected.push(result.rawValue);
      },
    }),
  );
  return { chunks, rejected };
}

/** The AI SDK's own server (ai 5) on the recording: the final message. */
async function aiSdkServer(recording: ManifestRecording, tools: ToolSet): Promise<{ parts: UIPart[]; chunks: { type: string }[] }> {
  const result = streamText({ model: modelOf(recording.dir as ReplayProvider, readFixture(`providers/${recording.file}`)), prompt: 'hi', tools, maxRetries: 0, onError: () => {} });
  const chunks = (await readAll(result.toUIMessageStream({ onError: (error) => (error instanceof Error ? error.message : String(error)) }) as ReadableStream<{ type: string }>));
  const { parts } = await finalMessage(5, streamOf<unknown>(chunks));
  return { parts, chunks };
}

/** ai 6's own server on the recording (`streamText` → `result.toUIMessageStream()`, as ai 6 documents it): the final message. */
async function aiSdk6Server(recording: ManifestRecording, tools: ToolSet6): Promise<{ parts: UIPart[]; chunks: { type: string }[] }> {
  const result = streamText6({ model: model6Of(recording.dir as ReplayProvider, readFixture(`providers/${recording.file}`)), prompt: 'hi', tools, maxRetries: 0, onError: () => {} });
  const chunks = await readAll(result.toUIMessageStream({ onError: (error) => (error instanceof Error ? error.message : String(error)) }) as ReadableStream<{ type: string }>);
  const { parts } = await finalMessage(6, streamOf<unknown>(chunks));
  return { parts, chunks };
}

/** ai 7's own server on the recording (`streamText` → `toUIMessageStream`, ai 7's standalone helper): the final message. */
async function aiSdk7Server(recording: ManifestRecording, tools: ToolSet7): Promise<{ parts: UIPart[]; chunks: { type: string }[] }> {
  const result = streamText7({ model: model7Of(recording.dir as ReplayProvider, readFixture(`providers/${recording.file}`)), prompt: 'hi', tools, maxRetries: 0, onError: () => {} });
  const chunks = await readAll(toUIMessageStream7({ stream: result.stream, tools, onError: (error) => (error instanceof Error ? error.message : String(error)) }) as ReadableStream<{ type: string }>);
  const { parts } = await finalMessage(7, streamOf<unknown>(chunks));
  return { parts, chunks };
}

/** argstream's server on the recording: the response bytes. */
function argstreamServer(recording: ManifestRecording, options: { major?: Major } = {}, stage?: () => TransformStream<PipelineEvent, PipelineEvent>): ReadableStream<Uint8Array> {
  const events = streamOf([readFixture(`providers/${recording.file}`)]).pipeThrough(new ProviderEventStream({ provider: recording.dir as ReplayProvider }));
  return (stage === undefined ? (events as ReadableStream<PipelineEvent>) : events.pipeThrough(stage())).pipeThrough(new UIMessageStreamEncoder(options));
}

/** A tool without `execute` for each application call of the recording (the AI SDK then reports the calls only). */
function toolsOf(recording: ManifestRecording): ToolSet {
  const tools: ToolSet = {};
  for (const call of recording.toolCalls) tools[call.name] = tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }) });
  return tools;
}

/** {@link toolsOf} for ai 6. */
function tools6Of(recording: ManifestRecording): ToolSet6 {
  const tools: ToolSet6 = {};
  for (const call of recording.toolCalls) tools[call.name] = tool6({ inputSchema: jsonSchema6<Record<string, unknown>>({ type: 'object' }) });
  return tools;
}

/** {@link toolsOf} for ai 7. */
function tools7Of(recording: ManifestRecording): ToolSet7 {
  const tools: ToolSet7 = {};
  for (const call of recording.toolCalls) tools[call.name] = tool7({ inputSchema: jsonSchema7<Record<string, unknown>>({ type: 'object' }) });
  return tools;
}

/** The provider tools a recording with provider-run calls needs declared (the AI SDK fails without them). */
const PROVIDER_TOOLS: Record<string, ToolSet> = {
  'anthropic/server-tool-use-code-execution-escapes-emoji.sse': { code_execution: anthropic.tools.codeExecution_20250825() } as ToolSet,
  'anthropic/handmade-server-web-search-then-text.sse': { web_search: anthropic.tools.webSearch_20250305() } as ToolSet,
  'openai-responses/web-search-call-then-message-annotations.sse': { web_search: openai.tools.webSearch() } as ToolSet,
};

/** {@link PROVIDER_TOOLS} of ai 6's providers. */
const PROVIDER_TOOLS_6: Record<string, ToolSet6> = {
  'anthropic/server-tool-use-code-execution-escapes-emoji.sse': { code_execution: anthropic3.tools.codeExecution_20250825() } as ToolSet6,
  'anthropic/handmade-server-web-search-then-text.sse': { web_search: anthropic3.tools.webSearch_20250305() } as ToolSet6,
  'openai-responses/web-search-call-then-message-annotations.sse': { web_search: openai3.tools.webSearch() } as ToolSet6,
};

/** {@link PROVIDER_TOOLS} of ai 7's providers. */
const PROVIDER_TOOLS_7: Record<string, ToolSet7> = {
  'anthropic/server-tool-use-code-execution-escapes-emoji.sse': { code_execution: anthropic4.tools.codeExecution_20250825() } as ToolSet7,
  'anthropic/handmade-server-web-search-then-text.sse': { web_search: anthropic4.tools.webSearch_20250305() } as ToolSet7,
  'openai-responses/web-search-call-then-message-annotations.sse': { web_search: openai4.tools.webSearch() } as ToolSet7,
};

type Part = Record<string, unknown> & { type: string };

/** An empty reasoning part after the step's start: the AI SDK's for a reasoning item without text. */
const emptyReasoningFirst = (parts: Part[]): Part[] => [parts[0] as Part, { type: 'reasoning', text: '', state: 'done' }, ...parts.slice(1)];
/** The reasoning parts' text emptied: reasoning the AI SDK's provider does not read. */
const reasoningUnread = (parts: Part[]): Part[] => parts.map((part) => (part.type === 'reasoning' ? { ...part, text: '' } : part));
const camel = (key: string): string => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * Where the AI SDK's server makes a different message from the same recording, on purpose or for
 * lack of reading something: the final messages are compared after `adjust` turns argstream's
 * into the AI SDK's. Each is a known difference (listed in the docs).
 */
const DIFFERENCES: Record<string, { why: string; adjust: (parts: Part[]) => Part[] }> = {
  'anthropic/server-tool-use-code-execution-escapes-emoji.sse': {
    why: "the AI SDK renames Anthropic's bash_code_execution server tool to its declared code_execution tool and puts the sub-tool in the input as `type`",
    adjust: (parts) =>
      parts.map((part) => (part.type === 'tool-bash_code_execution' ? { ...part, type: 'tool-code_execution', input: { type: 'bash_code_execution', ...(part.input as object) } } : part)),
  },
  'anthropic/handmade-server-web-search-then-text.sse': {
    why: "the AI SDK camel-cases the keys of Anthropic's web search results (encrypted_content → encryptedContent, page_age → pageAge); argstream keeps the provider's result as sent",
    adjust: (parts) =>
      parts.map((part) =>
        part.type === 'tool-web_search' && Array.isArray(part.output)
          ? { ...part, output: (part.output as Record<string, unknown>[]).map((item) => Object.fromEntries(Object.entries(item).map(([key, value]) => [camel(key), value]))) }
          : part,
      ),
  },
  'openai-responses/web-search-call-then-message-annotations.sse': {
    why: "the AI SDK gives a hosted web search the input {} and the output {action: {type, query}, sources}; argstream's call arguments are the item's action and its result the item's status",
    adjust: (parts) =>
      parts.map((part) => {
        if (part.type !== 'tool-web_search') return part;
        const { sources, ...action } = part.input as { sources: unknown };
        return { ...part, input: {}, output: { action, sources } };
      }),
  },
  'openai-chat/refusal.sse': {
    why: 'the AI SDK drops an OpenAI refusal (the message has no part, so readUIMessageStream publishes none); argstream sends it as a data-refusal part',
    adjust: (parts) => {
      const rest = parts.filter((part) => part.type !== 'data-refusal');
      return rest.length === 1 && rest[0]?.type === 'step-start' ? [] : rest;
    },
  },
  'openai-responses/handmade-refusal.sse': {
    why: "the AI SDK drops a Responses refusal part, leaving the message item's empty text part; argstream sends the refusal as a data-refusal part",
    adjust: (parts) => parts.map((part) => (part.type === 'data-refusal' ? { type: 'text', text: '', state: 'done' } : part)),
  },
  'openai-responses/reasoning-item-then-function-call.sse': {
    why: 'a reasoning item without text (encrypted, no summary) is an empty reasoning part in the AI SDK (its encrypted content in providerMetadata); argstream sends no part',
    adjust: emptyReasoningFirst,
  },
  'openai-responses/reasoning-commentary-text-then-function-call-unicode.sse': { why: 'a reasoning item without text, as above', adjust: emptyReasoningFirst },
  'openai-responses/structured-output-json-schema-after-reasoning.sse': { why: 'a reasoning item without text, as above', adjust: emptyReasoningFirst },
  'openai-responses/handmade-text-deltas-disagree-with-done.sse': { why: 'a reasoning item without text, as above', adjust: emptyReasoningFirst },
  'openai-responses/handmade-done-completes-text-and-arguments.sse': {
    why: "a reasoning item without text, as above; and the AI SDK's text stops where the deltas stopped, where argstream completes it from output_text.done",
    adjust: (parts) =>
      emptyReasoningFirst(parts).map((part) => (part.type === 'text' ? { ...part, text: (part.text as string).slice(0, (part.text as string).indexOf('Potato') + 'Potato'.length) } : part)),
  },
  'openai-responses/lmstudio-reasoning-text-function-call-no-deltas.sse': {
    why: 'the reasoning is only in reasoning_text.done (no deltas), which the AI SDK does not read; argstream does',
    adjust: reasoningUnread,
  },
  'openai-responses/deepseek-reasoning-text-function-call.sse': {
    why: 'the reasoning comes as reasoning_text deltas, which the AI SDK (v2 provider) does not read; argstream does',
    adjust: reasoningUnread,
  },
  'openai-chat/n3-choices-interleaved.sse': {
    why: "with n: 3 the AI SDK mixes the three choices' deltas into one text; argstream keeps each choice its own text part (checked apart: the same characters)",
    adjust: (parts) => parts,
  },
};

/** A refusal as ai 7's OpenAI provider (4) shows it: the message's text. */
const refusalAsText = (parts: Part[]): Part[] => parts.map((part) => (part.type === 'data-refusal' ? { type: 'text', text: (part['data'] as { text: string }).text, state: 'done' } : part));

/**
 * Where ai 7's own server (with its providers: `@ai-sdk/anthropic` 4, `@ai-sdk/openai` 4) makes a
 * different message from ai 5's on the same recording; {@link DIFFERENCES} applies to the others.
 * Besides these, ai 7's Anthropic provider adds a `custom` part (`kind: 'anthropic.message_start'`,
 * the message's id, model and usage in its provider metadata) after the step's start, which
 * argstream does not send (it sends no provider metadata): checked, then left out of the comparison.
 */
const DIFFERENCES_7: Record<string, { why: string; adjust: (parts: Part[]) => Part[] }> = {
  'openai-chat/refusal.sse': { why: "ai 7's OpenAI provider shows a Chat refusal as the message's text; argstream sends it as a data-refusal part", adjust: refusalAsText },
  'openai-responses/handmade-refusal.sse': { why: "ai 7's OpenAI provider shows a Responses refusal as the message's text; argstream sends it as a data-refusal part", adjust: refusalAsText },
};

/** Where ai 6's own server (with `@ai-sdk/anthropic` 3, `@ai-sdk/openai` 3) makes a different message from ai 5's; {@link DIFFERENCES} applies to the others. */
const DIFFERENCES_6: Record<string, { why: string; adjust: (parts: Part[]) => Part[] }> = {
  'openai-chat/refusal.sse': { why: "ai 6's OpenAI provider (3) shows a Chat refusal as the message's text; argstream sends it as a data-refusal part", adjust: refusalAsText },
  'openai-responses/handmade-refusal.sse': { why: "ai 6's OpenAI provider (3) shows a Responses refusal as the message's text; argstream sends it as a data-refusal part", adjust: refusalAsText },
};

/** With n: 3 the AI SDK mixes the three choices into one text, argstream keeps three: the same characters. */
function expectChoicesMixed(ours: readonly Part[], expected: readonly Part[]): void {
  const texts = ours.filter((part) => part.type === 'text').map((part) => part.text as string);
  expect(texts).toHaveLength(3);
  const mixed = expected.filter((part) => part.type === 'text');
  expect(mixed).toHaveLength(1);
  expect([...(mixed[0]?.text as string)].sort().join('')).toBe([...texts.join('')].sort().join(''));
}

const cases = [
  ...manifestRecordings('anthropic').filter((r) => !r.file.includes('message-start-content')),
  ...manifestRecordings('openai-chat'),
  ...manifestRecordings('openai-responses').filter((r) => r.errors === undefined),
];

describe("UIMessageStreamEncoder against the AI SDK's own server (streamText → toUIMessageStream, ai 5), on the provider recordings", () => {
  it.each(cases.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
    const sdk = await aiSdkServer(recording, { ...toolsOf(recording), ...PROVIDER_TOOLS[file] });
    const expected = compared(sdk.parts);
    for (const major of [undefined, ...MAJORS]) {
      for (const reader of MAJORS) {
        if (major !== undefined && major !== reader) continue;
        const { chunks, rejected } = parsed(reader, argstreamServer(recording, major === undefined ? {} : { major }));
        const { parts, errors } = await finalMessage(reader, chunks);
        expect(rejected, `chunks ai ${reader} refuses`).toEqual([]);
        expect(errors).toEqual([]);
        const ours = compared(parts) as Part[];
        const difference = DIFFERENCES[file];
        if (file === 'openai-chat/n3-choices-interleaved.sse') {
          expectChoicesMixed(ours, expected as Part[]);
          continue;
        }
        expect(difference === undefined ? ours : difference.adjust(ours), `major ${String(major)}, read by ai ${reader}: ${difference?.why ?? ''}`).toEqual(expected);
      }
    }
  });
});

/** The later majors' own servers, each with its provider packages, and where it differs from ai 5's. */
const LATER = {
  6: {
    name: "ai 6's own server (streamText of ai 6 with @ai-sdk/anthropic 3 / @ai-sdk/openai 3 → result.toUIMessageStream())",
    server: (recording: ManifestRecording) => aiSdk6Server(recording, { ...tools6Of(recording), ...PROVIDER_TOOLS_6[recording.file] }),
    differences: DIFFERENCES_6,
    /** ai 6's providers send no `custom` part. */
    custom: (): string[] => [],
  },
  7: {
    name: "ai 7's own server (streamText of ai 7 with @ai-sdk/anthropic 4 / @ai-sdk/openai 4 → toUIMessageStream)",
    server: (recording: ManifestRecording) => aiSdk7Server(recording, { ...tools7Of(recording), ...PROVIDER_TOOLS_7[recording.file] }),
    differences: DIFFERENCES_7,
    custom: (recording: ManifestRecording): string[] => (recording.dir === 'anthropic' ? ['anthropic.message_start'] : []),
  },
} as const;

for (const major of [6, 7] as const) {
  const later = LATER[major];
  describe(`UIMessageStreamEncoder({ major: ${major} }) against ${later.name}, on the provider recordings`, () => {
    it.each(cases.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
      const sdk = await later.server(recording);
      const custom = (compared(sdk.parts) as Part[]).filter((part) => part.type === 'custom');
      expect(custom.map((part) => part['kind']), 'custom parts').toEqual(later.custom(recording));
      const expected = (compared(sdk.parts) as Part[]).filter((part) => part.type !== 'custom');
      const { chunks, rejected } = parsed(major, argstreamServer(recording, { major }));
      const { parts, errors } = await finalMessage(major, chunks);
      expect(rejected, `chunks ai ${major} refuses`).toEqual([]);
      expect(errors).toEqual([]);
      const ours = compared(parts) as Part[];
      if (file === 'openai-chat/n3-choices-interleaved.sse') return expectChoicesMixed(ours, expected);
      const difference = later.differences[file] ?? DIFFERENCES[file];
      expect(difference === undefined ? ours : difference.adjust(ours), difference?.why ?? '').toEqual(expected);
    });
  });
}

/** All of a byte stream, as text. */
async function textOf(bytes: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (const chunk of await readAll(bytes)) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** The SSE records of bytes, as chunk objects (and `[DONE]`). */
async function records(bytes: ReadableStream<Uint8Array>): Promise<Array<UIMessageChunk | '[DONE]'>> {
  const text = await textOf(bytes);
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((record) => record !== '')
    .map((record) => {
      expect(record.startsWith('data: ')).toBe(true);
      const data = record.slice('data: '.length);
      return data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as UIMessageChunk);
    });
}

const recordingOf = (file: string): ManifestRecording => cases.find((recording) => recording.file === file) as ManifestRecording;

describe('UIMessageStreamEncoder: the wire', () => {
  it("UI_MESSAGE_STREAM_HEADERS are the AI SDK's own (ai 5, 6 and 7)", () => {
    expect(UI_MESSAGE_STREAM_HEADERS).toEqual(HEADERS5);
    expect(UI_MESSAGE_STREAM_HEADERS).toEqual(HEADERS6);
    expect(UI_MESSAGE_STREAM_HEADERS).toEqual(HEADERS7);
    expect(Object.isFrozen(UI_MESSAGE_STREAM_HEADERS)).toBe(true);
  });

  it("frames chunks as the AI SDK's server does: start, start-step, the content, finish-step, finish, [DONE]", async () => {
    const chunks = await records(argstreamServer(recordingOf('anthropic/text-then-tool-use.sse')));
    const sdk = await aiSdkServer(recordingOf('anthropic/text-then-tool-use.sse'), toolsOf(recordingOf('anthropic/text-then-tool-use.sse')));
    const types = (list: ReadonlyArray<{ type: string } | string>) => list.map((chunk) => (typeof chunk === 'string' ? chunk : chunk.type)).filter((type, i, all) => !(type.endsWith('-delta') && all[i - 1] === type));
    expect(types(chunks)).toEqual([...types(sdk.chunks), '[DONE]']);
    expect(chunks.at(-2)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
  });

  it.each(cases.map((recording) => [recording.file, recording] as const))("%s: the finish reason is the AI SDK's (ai 5's, and ai 6's and 7's with their major)", async (file, recording) => {
    const sdk = await aiSdkServer(recording, { ...toolsOf(recording), ...PROVIDER_TOOLS[file] });
    const ours = (await records(argstreamServer(recording))).find((chunk) => typeof chunk !== 'string' && chunk.type === 'finish');
    expect(ours).toEqual(sdk.chunks.find((chunk) => chunk.type === 'finish'));
    for (const major of [6, 7] as const) {
      const later = await LATER[major].server(recording);
      const oursLater = (await records(argstreamServer(recording, { major }))).find((chunk) => typeof chunk !== 'string' && chunk.type === 'finish');
      if (file.endsWith('refusal.sse') && recording.dir.startsWith('openai')) {
        // ai 6's and 7's OpenAI providers finish a refused response as content-filter; argstream
        // (and ai 5) with the finish reason OpenAI sent, stop.
        expect(later.chunks.find((chunk) => chunk.type === 'finish'), `ai ${major}`).toEqual({ type: 'finish', finishReason: 'content-filter' });
        expect(oursLater, `major ${major}`).toEqual({ type: 'finish', finishReason: 'stop' });
      } else expect(oursLater, `major ${major}`).toEqual(later.chunks.find((chunk) => chunk.type === 'finish'));
    }
  });

  it('the message id, and no start or finish for a response that continues a message', async () => {
    const recording = recordingOf('openai-chat/single-tool-call.sse');
    const first = await records(argstreamServer(recording, {}, undefined));
    expect(first[0]).toEqual({ type: 'start' });
    const events = () => streamOf([readFixture(`providers/${recording.file}`)]).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }));
    const named = await records(events().pipeThrough(new UIMessageStreamEncoder({ messageId: 'msg_1' })));
    expect(named[0]).toEqual({ type: 'start', messageId: 'msg_1' });
    const middle = await records(events().pipeThrough(new UIMessageStreamEncoder({ sendStart: false, sendFinish: false })));
    expect(middle[0]).toEqual({ type: 'start-step' });
    expect(middle.slice(-2)).toEqual([{ type: 'finish-step' }, '[DONE]']);
  });

  it('refuses a major other than 5, 6 or 7, and a bad keepAliveMs', () => {
    for (const major of [4, 8, 6.5, '6', null]) {
      expect(() => new UIMessageStreamEncoder({ major: major as 6 })).toThrow(new RangeError(`UIMessageStreamEncoder: major must be 5, 6 or 7, got ${String(major)}`));
      expect(() => new UIMessageChunkEncoder({ major: major as 6 })).toThrow(RangeError);
    }
    for (const major of MAJORS) expect(() => new UIMessageStreamEncoder({ major })).not.toThrow();
    expect(() => new UIMessageStreamEncoder({ keepAliveMs: 0 })).toThrow(RangeError);
  });
});

describe('UIMessageStreamEncoder for every provider argstream reads', () => {
  it.each(readManifest().map((recording) => [recording.file, recording] as const))(
    "%s: chunks ai 5, 6 and 7 accept; the page's message has argstream's text, calls and finish",
    async (file, recording) => {
      const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
      // Bytes, or a `.jsonl` recording's objects (Bedrock's SDK shapes, LangChain's objects).
      const events = () => streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider }));
      const turn: Turn | Error = await collectTurn(events(), { isolateErrors: true }).catch((error: Error) => error);
      for (const reader of MAJORS) {
        const { chunks, rejected } = parsed(reader, events().pipeThrough(new UIMessageStreamEncoder()));
        const { parts, errors } = await finalMessage(reader, chunks);
        expect(rejected).toEqual([]);
        if (turn instanceof Error) {
          // A stream that fails (a provider error, a cut stream) reaches the page as its error, in argstream's words for a page.
          expect(errors).toEqual([pageErrorMessage(turn)]);
          continue;
        }
        expect(errors).toEqual([]);
        const text = parts.filter((part) => part.type === 'text').map((part) => part.text).join('');
        // Text deltas cannot be taken back: where the provider's final text disagrees with them
        // (OpenAI Responses `.done`), the page has what streamed, as with the AI SDK's server.
        const streamed = (await readAll(events())).flatMap((event) => (event.type === 'part' && event.part.type === 'message' ? [event.part.text] : [])).join('');
        const mismatch = turn.events.some((event) => event.metadata?.['textMismatch'] === true);
        expect(text).toBe(mismatch ? streamed : turn.structured !== undefined ? JSON.stringify(turn.structured) : turn.text);
        const calls = parts.filter((part) => part.type.startsWith('tool-') && part.providerExecuted !== true && part.state === 'input-available');
        expect(calls.map((part) => [part.toolCallId, part.type.slice('tool-'.length), part.input])).toEqual(turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments]));
        const provided = parts.filter((part) => part.providerExecuted === true);
        expect(provided.map((part) => [part.toolCallId, part.input])).toEqual(turn.providerToolCalls.map((call) => [call.toolCallId, call.arguments]));
        const cut = parts.filter((part) => part.state === 'input-streaming');
        expect(cut.map((part) => part.toolCallId)).toEqual(turn.incompleteToolCalls.map((call) => call.toolCallId));
      }
    },
  );
});

describe('UIMessageStreamEncoder reads the output of any stage', () => {
  const stages: Record<string, () => TransformStream<PipelineEvent, PipelineEvent>> = {
    'ConversationEventStream (whole messages and calls)': () => new ConversationEventStream(),
    'ConversationEventStream({progress})': () => new ConversationEventStream({ progress: true }),
    'ConversationEventStream({progress, passthrough})': () => new ConversationEventStream({ progress: true, passthrough: true }),
    'ConversationEventStream({passthrough})': () => new ConversationEventStream({ passthrough: true }),
    ToolCallProgressStream: () => new ToolCallProgressStream(),
    FieldEventStream: () => new FieldEventStream(),
    'FieldEventStream({keepProgress: false})': () => new FieldEventStream({ keepProgress: false }),
    PathUpdateStream: () => new PathUpdateStream(),
    ToolCallDeltaStream: () => new ToolCallDeltaStream(),
  };
  const files = ['anthropic/text-then-2-parallel-tool-use.sse', 'openai-chat/parallel-2-tool-calls-mixed-args-obfuscation.sse', 'openai-responses/reasoning-summary-then-function-call.sse', 'anthropic/server-tool-use-code-execution-escapes-emoji.sse'];

  it.each(files)('%s: the same final message from every stage, the same tool input deltas from those that keep raw or progress text', async (file) => {
    const recording = recordingOf(file);
    const direct = await finalMessage(7, parsed(7, argstreamServer(recording)).chunks);
    const deltas = async (bytes: ReadableStream<Uint8Array>) =>
      (await records(bytes))
        .filter((chunk): chunk is Extract<UIMessageChunk, { type: 'tool-input-delta' }> => typeof chunk !== 'string' && chunk.type === 'tool-input-delta')
        .map((chunk) => chunk.inputTextDelta)
        .join('');
    const directDeltas = await deltas(argstreamServer(recording));
    for (const [name, stage] of Object.entries(stages)) {
      const { chunks, rejected } = parsed(7, argstreamServer(recording, {}, stage));
      const message = await finalMessage(7, chunks);
      expect(rejected, name).toEqual([]);
      expect(compared(message.parts), name).toEqual(compared(direct.parts));
      // Argument text reaches the page as it streamed, unless the stage kept neither the text nor its progress.
      if (!name.startsWith('ConversationEventStream (whole') && !name.includes('keepProgress: false') && !name.startsWith('ConversationEventStream({passthrough})')) {
        expect(JSON.parse(`[${await deltas(argstreamServer(recording, {}, stage)).then((text) => text.replace(/\}\{/g, '},{'))}]`), name).toEqual(
          JSON.parse(`[${directDeltas.replace(/\}\{/g, '},{')}]`),
        );
      }
    }
  });

  it('fromResponse with the stage in its own read, as the README relays', async () => {
    const recording = recordingOf('anthropic/text-then-tool-use.sse');
    const response = new Response(new Uint8Array(readFixture(`providers/${recording.file}`)), { headers: { 'content-type': 'text/event-stream' } });
    const body = fromResponse(response, { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false })).pipeThrough(new UIMessageStreamEncoder());
    const message = await finalMessage(5, parsed(5, body).chunks);
    expect(compared(message.parts)).toEqual(compared((await finalMessage(5, parsed(5, argstreamServer(recording)).chunks)).parts));
  });
});

describe('UIMessageStreamEncoder: errors, aborts, cancellation', () => {
  it('an HTTP error status: an error chunk with the ProviderError message, finish error, [DONE]; useChat sees the error', async () => {
    const response = new Response('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', { status: 529 });
    const chunks = await records(fromResponse(response, { provider: 'anthropic' }).pipeThrough(new UIMessageStreamEncoder()));
    expect(chunks).toEqual([
      { type: 'start' },
      { type: 'start-step' },
      { type: 'error', errorText: 'anthropic (HTTP 529): the provider reported an error "overloaded_error"' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'error' },
      '[DONE]',
    ]);
    for (const major of MAJORS) {
      const bytes = streamOf([new TextEncoder().encode(chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`).join(''))]);
      const { rejected, chunks: read } = parsed(major, bytes);
      const { errors } = await finalMessage(major, read);
      expect(rejected).toEqual([]);
      expect(errors).toEqual([(chunks[2] as { errorText: string }).errorText]);
    }
  });

  it("an error the provider sends inside the stream: the error, then finish-step and finish, as the AI SDK's server ends it", async () => {
    const recording = manifestRecordings('openai-responses').find((r) => r.file.includes('error-then-response-failed')) as ManifestRecording;
    const sdk = await aiSdkServer(recording, toolsOf(recording));
    const ours = await records(argstreamServer(recording, {}, () => new ConversationEventStream({ passthrough: true })));
    const tail = (list: ReadonlyArray<{ type: string } | string>) => list.filter((chunk) => typeof chunk !== 'string' && ['error', 'finish-step', 'finish'].includes(chunk.type)).map((chunk) => (chunk as { type: string }).type);
    expect(tail(ours)).toEqual(['error', 'finish-step', 'finish']);
    expect(tail(sdk.chunks)).toEqual(expect.arrayContaining(['error', 'finish']));
    const error = ours.find((chunk) => typeof chunk !== 'string' && chunk.type === 'error');
    expect(error).toMatchObject({ errorText: expect.any(String) });
    const { error: streamError } = await settle(streamOf([readFixture(`providers/${recording.file}`)]).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' })));
    expect(streamError).toBeInstanceOf(ProviderError);
    // argstream's words for a page, not the provider's own (which stay on the server's error).
    expect((error as { errorText: string }).errorText).toBe(pageErrorMessage(streamError));
    expect((error as { errorText: string }).errorText).not.toBe((streamError as Error).message);
  });

  it('errorText chooses what the page is told', async () => {
    const core = new UIMessageChunkEncoder({ errorText: () => 'Something went wrong.' });
    expect(core.error(new ProviderError('anthropic', 'overloaded_error', 'secret details'))).toEqual([
      { type: 'start' },
      { type: 'start-step' },
      { type: 'error', errorText: 'Something went wrong.' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'error' },
    ]);
  });

  it("an AbortError (the request's signal) is an abort chunk: with its reason, without it for ai 5; each major accepts its own", async () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(new UIMessageChunkEncoder().error(abort).slice(2)).toEqual([{ type: 'abort', reason: 'the stream was aborted' }]);
    expect(new UIMessageChunkEncoder({ major: 7 }).error(abort).slice(2)).toEqual([{ type: 'abort', reason: 'the stream was aborted' }]);
    expect(new UIMessageChunkEncoder({ major: 6 }).error(abort).slice(2)).toEqual([{ type: 'abort', reason: 'the stream was aborted' }]);
    expect(new UIMessageChunkEncoder({ major: 5 }).error(abort).slice(2)).toEqual([{ type: 'abort' }]);
    for (const major of MAJORS) {
      const [chunk] = new UIMessageChunkEncoder({ major }).error(abort).slice(2);
      const result = await READERS[major].schema().validate?.(chunk);
      expect(result?.success, `ai ${major}`).toBe(true);
      expect((result as { value?: unknown }).value).toEqual(chunk);
    }
  });

  it('a stream that ends without finished (a cut turn) finishes with other, unknown for ai 5; each major accepts its own, 6 and 7 refuse unknown', async () => {
    const events: StreamEvent[] = [{ type: 'part', index: 0, part: { type: 'message', text: 'Hi' } }];
    for (const major of [undefined, ...MAJORS]) {
      const chunks = new UIMessageChunkEncoder(major === undefined ? {} : { major });
      const out = [...chunks.push(events[0] as StreamEvent), ...chunks.end()];
      expect(out.at(-1)).toEqual({ type: 'finish', finishReason: major === 5 ? 'unknown' : 'other' });
      for (const reader of major === undefined ? MAJORS : [major]) {
        const schema = READERS[reader].schema();
        for (const chunk of out) expect((await schema.validate?.(chunk))?.success, `${JSON.stringify(chunk)} for ai ${reader}`).toBe(true);
      }
    }
    for (const major of [6, 7] as const) expect((await READERS[major].schema().validate?.({ type: 'finish', finishReason: 'unknown' }))?.success, `ai ${major}`).toBe(false);
  });

  it("argstream's refusal finish reason is content-filter (the AI SDK's Anthropic provider's)", () => {
    const core = new UIMessageChunkEncoder();
    core.push({ type: 'finished', reason: 'refusal', rawReason: 'refusal' });
    expect(core.end().at(-1)).toEqual({ type: 'finish', finishReason: 'content-filter' });
  });

  it('the page going away cancels the source: the provider request stops', async () => {
    let cancelled: unknown;
    let pulls = 0;
    const source = new ReadableStream<PipelineEvent>({
      pull(controller) {
        pulls++;
        controller.enqueue({ type: 'part', index: 0, part: { type: 'message', text: 'x'.repeat(10) } });
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const encoder = new UIMessageStreamEncoder();
    const piping = source.pipeTo(encoder.writable).catch(() => undefined);
    const reader = encoder.readable.getReader();
    await reader.read();
    await reader.cancel('gone');
    await piping;
    expect(cancelled).toBe('gone');
    // Backpressure held the source: it was not read without bound. The encoder holds 64 KiB, what it
    // gathered included (a read's deltas are joined: about 10 characters a part here).
    expect(pulls).toBeLessThan(65_536 / 10 + 100);
  });

  it('keepAliveMs writes an SSE comment while the stream is idle; the AI SDK skips it', async () => {
    const encoder = new UIMessageStreamEncoder({ keepAliveMs: 5 });
    const writer = encoder.writable.getWriter();
    const reading = textOf(encoder.readable);
    await writer.write({ type: 'part', index: 0, part: { type: 'message', text: 'Hi' } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await writer.close();
    const text = await reading;
    expect(text).toContain(': keep-alive\n\n');
    const { parts } = await finalMessage(7, parsed(7, streamOf([new TextEncoder().encode(text)])).chunks);
    expect(compared(parts)).toEqual([{ type: 'step-start' }, { type: 'text', text: 'Hi', state: 'done' }]);
  });
});

describe('UIMessageChunkEncoder on hand-written events', () => {
  it('a call whose name comes after its id (servers that split them) starts once both are known, its earlier text held', () => {
    const core = new UIMessageChunkEncoder();
    const out: UIMessageChunk[] = [];
    core.push({ type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c1', toolName: '' } }, out);
    core.push({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"a"' } }, out);
    core.push({ type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: '', toolName: 'get' } }, out);
    core.push({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: ':1}' } }, out);
    core.push({ type: 'flush', index: 0 }, out);
    core.push({ type: 'finished', reason: 'tool-calls', rawReason: 'tool_calls' }, out);
    core.end(out);
    expect(out).toEqual([
      { type: 'start' },
      { type: 'start-step' },
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 'get' },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"a"' },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: ':1}' },
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'get', input: { a: 1 } },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('invalid arguments are a tool-input-error with the error message; the turn goes on', () => {
    const core = new UIMessageChunkEncoder();
    const out: UIMessageChunk[] = [];
    for (const event of [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c1', toolName: 'get' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"a":tru' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: 'x}' } },
      { type: 'flush', index: 0 },
      { type: 'part', index: 1, part: { type: 'message', text: 'after' } },
      { type: 'flush', index: 1 },
    ] as StreamEvent[]) core.push(event, out);
    core.end(out);
    const error = out.find((chunk) => chunk.type === 'tool-input-error');
    expect(error).toEqual({ type: 'tool-input-error', toolCallId: 'c1', toolName: 'get', errorText: expect.stringContaining('the arguments of tool call #0: the JSON text is not valid') });
    expect(out.filter((chunk) => chunk.type === 'text-delta')).toEqual([{ type: 'text-delta', id: 'text-1', delta: 'after' }]);
  });

  it('structured output streams as text; a refusal sent as text is a data-refusal part', () => {
    const core = new UIMessageChunkEncoder();
    const out: UIMessageChunk[] = [];
    core.push({ type: 'part', index: 0, part: { type: 'structured', json: '{"a":' } }, out);
    core.push({ type: 'part', index: 0, part: { type: 'structured', json: '1}' } }, out);
    core.push({ type: 'flush', index: 0 }, out);
    core.push({ type: 'part', index: 1, part: { type: 'refusal', text: "I can't" } }, out);
    core.push({ type: 'flush', index: 1 }, out);
    expect(out.slice(2)).toEqual([
      { type: 'text-start', id: 'text-0' },
      { type: 'text-delta', id: 'text-0', delta: '{"a":' },
      { type: 'text-delta', id: 'text-0', delta: '1}' },
      { type: 'text-end', id: 'text-0' },
      { type: 'data-refusal', id: 'refusal-1', data: { text: "I can't" } },
    ]);
  });

  it("the result of a provider-run call goes out after its call (an error as tool-output-error); a result of a call never seen does not (the AI SDK would throw)", () => {
    const core = new UIMessageChunkEncoder();
    const out: UIMessageChunk[] = [];
    for (const event of [
      { type: 'provider-tool-result', index: 9, toolCallId: 'ghost', result: 1 },
      { type: 'provider-tool-call', index: 0, toolCallId: 's1', toolName: 'web_search', arguments: { q: 'x' } },
      { type: 'provider-tool-result', index: 1, toolCallId: 's1', toolName: 'web_search', result: 'quota exceeded', isError: true },
    ] as PipelineEvent[]) core.push(event, out);
    expect(out.slice(2)).toEqual([
      { type: 'tool-input-available', toolCallId: 's1', toolName: 'web_search', input: { q: 'x' }, providerExecuted: true },
      { type: 'tool-output-error', toolCallId: 's1', errorText: 'quota exceeded', providerExecuted: true },
    ]);
  });

  it('nothing is written after the end or an error', () => {
    const core = new UIMessageChunkEncoder();
    core.end();
    expect(core.push({ type: 'part', index: 0, part: { type: 'message', text: 'late' } })).toEqual([]);
    expect(core.error(new Error('late'))).toEqual([]);
    expect(core.end()).toEqual([]);
  });
});
