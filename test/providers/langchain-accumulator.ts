/**
 * The oracle of the differential test for LangChain.js objects (`fixtures/providers/langchain/`):
 * LangChain's own reading of them, sharing nothing with `src/`. Message chunks (a model's
 * `.stream()`, LangGraph's `[chunk, metadata]` tuples, `streamEvents` v2's `data.chunk`) are made
 * `AIMessageChunk`s again and joined with `concat`, as a LangChain application aggregates them; the
 * content-block events of `@langchain/core` 1.4 are assembled by its own `ChatModelStream`. The turn
 * is read off the message that results: its text and reasoning blocks, its `tool_calls` (and its
 * named `invalid_tool_calls`, incomplete), the calls the provider ran (`server_tool_use` blocks,
 * v1's `non_standard` ones, `server_tool_call`), its finish reason and `usage_metadata`.
 */
import { ChatModelStream } from '@langchain/core/language_models/stream';
import type { ChatModelStreamEvent } from '@langchain/core/language_models/event';
import { AIMessageChunk } from '@langchain/core/messages';
import type { WireToolCall, WireTurn } from './wire-accumulators.ts';

type Json = Record<string, any>;

/** The message chunks or the content-block events of a recording's objects, without their envelopes. */
function unwrap(objects: readonly unknown[]): { chunks: Json[]; events: ChatModelStreamEvent[]; finish: Json | undefined } {
  const chunks: Json[] = [];
  const events: ChatModelStreamEvent[] = [];
  let finish: Json | undefined;
  for (let object of objects as Json[]) {
    if (Array.isArray(object)) object = object[0] as Json;
    if (typeof object.step === 'number' && typeof object.source === 'string') continue; // LangGraph's checkpoint envelope
    if (typeof object.event === 'string') {
      if (object.event === 'on_chat_model_stream') chunks.push(object.data.chunk as Json);
      else if (!object.event.startsWith('on_')) {
        events.push(object as ChatModelStreamEvent);
        if (object.event === 'message-finish') finish = object;
      }
      continue;
    }
    chunks.push(object);
  }
  return { chunks, events, finish };
}

/** The raw finish reason where LangChain's integrations keep it (the same places a LangChain app reads). */
function rawFinish(metadata: Json | undefined, kwargs: Json | undefined): string | undefined {
  const reason = metadata?.finish_reason ?? metadata?.stop_reason ?? kwargs?.stop_reason;
  if (reason) return reason as string;
  return metadata?.object === 'response' ? (metadata.status as string) : undefined;
}

/** LangChain's own turn of a recording's objects. */
export async function langChainTurn(objects: readonly unknown[]): Promise<WireTurn> {
  const { chunks, events, finish } = unwrap(objects);
  let message: Json;
  let finishReason: string | undefined;
  if (events.length > 0) {
    async function* source(): AsyncGenerator<ChatModelStreamEvent> {
      yield* events;
    }
    message = (await new ChatModelStream(source())) as unknown as Json;
    // The assembled message keeps LangChain's normalized reason; the provider's is in the event's metadata.
    const metadata = finish?.responseMetadata as Json | undefined;
    finishReason = rawFinish(metadata, undefined) ?? metadata?.status ?? finish?.reason;
  } else {
    const joined = chunks.map(({ type: _type, ...fields }) => new AIMessageChunk(fields as never)).reduce((left, right) => left.concat(right));
    message = joined as unknown as Json;
    finishReason = rawFinish(message.response_metadata as Json, message.additional_kwargs as Json);
  }
  const content: Json[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Json[]);
  const reasoningBlocks = content.filter((block) => block.type === 'reasoning' || block.type === 'thinking');
  // LangChain's concat of v1 OpenAI Responses chunks keeps a reasoning item's text twice: its deltas,
  // appended, and its whole text, merged into the block with the item's id. That block holds it once.
  const withId = reasoningBlocks.filter((block) => typeof block.id === 'string');
  const toolCalls: WireToolCall[] = [
    ...(message.tool_calls as Json[]).map((call) => ({ id: call.id as string, name: call.name as string, arguments: call.args, complete: true })),
    ...(message.invalid_tool_calls as Json[])
      .filter((call) => call.name)
      .map((call) => ({ id: call.id as string, name: call.name as string, arguments: call.args, complete: false })),
  ];
  const serverToolCalls: WireToolCall[] = content
    .map((block) => (block.type === 'non_standard' ? (block.value as Json) : block))
    .filter((block) => block.type === 'server_tool_use' || block.type === 'server_tool_call')
    .map((block) => ({ id: block.id as string, name: block.name as string, arguments: undefined, complete: true }));
  const usage = message.usage_metadata as Json | undefined;
  return {
    text: content.filter((block) => block.type === 'text').map((block) => block.text as string).join(''),
    reasoning: (withId.length > 0 ? withId : reasoningBlocks).map((block) => (block.reasoning ?? block.thinking ?? '') as string).join(''),
    toolCalls,
    serverToolCalls,
    refusal: undefined,
    finishReason,
    usage:
      usage === undefined
        ? undefined
        : {
            inputTokens: usage.input_tokens,
            outputTokens: usage.output_tokens,
            totalTokens: usage.total_tokens,
            ...(usage.output_token_details?.reasoning !== undefined ? { reasoningTokens: usage.output_token_details.reasoning } : {}),
            ...(usage.input_token_details?.cache_read !== undefined ? { cachedInputTokens: usage.input_token_details.cache_read } : {}),
          },
  };
}
