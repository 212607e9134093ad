import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import { FINAL_EVENTS, type TurnBuilderOptions } from '../turn/turn-builder.ts';
import type {
  ConversationEvent,
  FailedToolCallEvent,
  FinishReason,
  IncompleteToolCallEvent,
  JsonValue,
  PipelineEvent,
  StreamWarning,
  ToolCallEvent,
  Usage,
} from '../types.ts';

/** Options of {@link collectTurn}. */
export interface CollectTurnOptions extends Omit<TurnBuilderOptions, 'messages' | 'passthrough' | 'progress'> {}

/**
 * A call the provider ran itself (Anthropic `server_tool_use` / `mcp_tool_use`, a Responses
 * `web_search_call`, an AI SDK part with `providerExecuted`), joined with its result by
 * `toolCallId`. The application does not run it; it is there to show what the model did.
 */
export interface ProviderToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  /**
   * The call's arguments; for an `incomplete` call, what had arrived (`{}` if nothing or if they
   * were invalid).
   */
  readonly arguments: JsonValue;
  /** The arguments did not arrive whole (the stream was cut, or they were invalid). */
  readonly incomplete?: true;
  /** The result, when the stream carried one (Anthropic's `*_tool_result` block's `content`, …). */
  readonly result?: JsonValue;
  /** The provider reported the call failed. */
  readonly isError?: true;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A complete model turn. */
export interface Turn {
  /** Every conversation event, in the order the slots were flushed. */
  readonly events: readonly ConversationEvent[];
  /** The text of all `message` events, joined. */
  readonly text: string;
  /** The text of all `reasoning` events, joined. */
  readonly reasoning: string;
  /**
   * The parsed data of the first `structured` event: the JSON document of a response whose
   * request asked for JSON output (`ProviderEventStream`'s `structuredOutput`); `undefined` if
   * there is none (not asked for, refused, cut off, or invalid — see `incompleteToolCalls` and
   * `failedToolCalls`, where such a document is reported with `toolName: ''`).
   */
  readonly structured: JsonValue | undefined;
  /**
   * Why the model declined, or `undefined` if it did not. The text of all `refusal` events,
   * joined (OpenAI's `refusal`); when the finish reason is `refusal` and no refusal text came
   * (Anthropic's `stop_reason: "refusal"`), the turn's message text — what was written before
   * the model stopped, often `''`. Test it with `!== undefined`.
   */
  readonly refusal: string | undefined;
  /**
   * The tool calls the application must run, with complete arguments (and, only with `repair`,
   * repaired ones marked `truncated`). Never a call the provider runs itself: those are in
   * `providerToolCalls`.
   */
  readonly toolCalls: readonly ToolCallEvent[];
  /** The application's tool calls whose arguments stopped early (never in `toolCalls`). */
  readonly incompleteToolCalls: readonly IncompleteToolCallEvent[];
  /** The application's tool calls whose arguments were invalid (with `isolateErrors`). */
  readonly failedToolCalls: readonly FailedToolCallEvent[];
  /**
   * The calls the provider ran itself, in the order they were flushed, each joined with its
   * result by id where the stream carried one (a result whose call is not in the stream is
   * listed under its id, with the result's `toolName` or `''`, and arguments `{}`).
   */
  readonly providerToolCalls: readonly ProviderToolCall[];
  /** The normalized finish reason; `undefined` if the stream ended without one (it was cut). */
  readonly finishReason: FinishReason | undefined;
  /** The provider's own finish reason. */
  readonly rawFinishReason: string | undefined;
  readonly usage: Usage | undefined;
  /**
   * What went wrong on the way and was recovered from (the `finished` event's `warnings`): the
   * turn is whole, but its stream was not (a `sequence-gap`: events lost by a proxy and
   * recovered from the final texts). Empty when nothing did, or when no `finished` came.
   */
  readonly warnings: readonly StreamWarning[];
}

/**
 * Read a stream to its end and assemble the {@link Turn}. The stream may be the output of any
 * stage: `ProviderEventStream`'s events, or those of any stage after it (progress, conversation
 * events, fields, path updates, deltas, validation errors): slots already reported by a stage
 * before are taken as they are, the others are built here, and events it does not know are
 * skipped.
 *
 * @throws the stream's error (a `ProviderError`, a `ToolCallArgumentsError`, …), or what the turn
 *   builder refuses: two calls with one non-empty id (`TaggedToolCallError`, code
 *   `'duplicate-tool-call-id'`, whatever `isolateErrors` says), an event of the wrong shape
 *   (`RelayError`, code `'invalid-data'`), one nested beyond `maxDepth` (`JsonStreamError`, code
 *   `'max-depth'`). The promise rejects with it, and a stream that is still open is cancelled with it. To keep what arrived before an error, consume the events with
 *   `ConversationEventStream` instead.
 *
 * Each event read costs a few microseconds: give it a stream of few events. With the turn's
 * conversation events built in the same hop as the decoding (`fromResponse` with a
 * `ConversationEventStream`, or {@link chain}), it reads a handful of events instead of one per
 * provider delta.
 * @example
 * ```ts
 * const turn = await collectTurn(fromResponse(response, { provider: 'anthropic' }, new ConversationEventStream()));
 * for (const call of turn.toolCalls) await run(call.toolName, call.arguments);
 * ```
 */
export async function collectTurn(
  stream: ReadableStream<PipelineEvent> | ReadableStream<{ readonly type: string }>,
  options: CollectTurnOptions = {},
): Promise<Turn> {
  const builder = new TurnBuilder({ ...options, messages: true });
  const events: ConversationEvent[] = [];
  const take = (outputs: PipelineEvent[]) => {
    for (const output of outputs) {
      if (FINAL_EVENTS.has(output.type)) events.push(output as ConversationEvent);
    }
  };
  const reader = (stream as ReadableStream<PipelineEvent>).getReader();
  const out: PipelineEvent[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      builder.push(value, out);
      take(out);
      out.length = 0;
    }
  } catch (error) {
    // A turn that fails here (invalid arguments) stops its source too: the response body is not
    // left open and locked. A stream that errored by itself ignores the cancel.
    await reader.cancel(error).catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
  take(builder.end());
  const finished = builder.finished;
  let text = '';
  let reasoning = '';
  let structured: JsonValue | undefined;
  let refusal: string | undefined;
  const toolCalls: ToolCallEvent[] = [];
  const incompleteToolCalls: IncompleteToolCallEvent[] = [];
  const failedToolCalls: FailedToolCallEvent[] = [];
  const providerCalls = new Map<string, Mutable<ProviderToolCall>>();
  const providerCall = (toolCallId: string, toolName: string, args: JsonValue): Mutable<ProviderToolCall> => {
    let call = providerCalls.get(toolCallId);
    if (call === undefined) {
      call = { toolCallId, toolName, arguments: args };
      providerCalls.set(toolCallId, call);
    } else {
      // Its result came first: the call brings the name and arguments.
      call.toolName ||= toolName;
      call.arguments = args;
    }
    return call;
  };
  for (const event of events) {
    switch (event.type) {
      case 'message':
        text += event.text;
        break;
      case 'reasoning':
        reasoning += event.text;
        break;
      case 'refusal':
        refusal = (refusal ?? '') + event.text;
        break;
      case 'structured':
        structured ??= event.data;
        break;
      case 'tool-call':
        toolCalls.push(event);
        break;
      case 'provider-tool-call':
        providerCall(event.toolCallId, event.toolName, event.arguments);
        break;
      case 'provider-tool-result': {
        const call = providerCalls.get(event.toolCallId) ?? providerCall(event.toolCallId, event.toolName ?? '', {});
        call.result = event.result;
        if (event.isError === true) call.isError = true;
        break;
      }
      case 'tool-call-incomplete':
        if (event.providerExecuted === true) providerCall(event.toolCallId, event.toolName, event.partialArguments ?? {}).incomplete = true;
        else incompleteToolCalls.push(event);
        break;
      case 'tool-call-failed':
        if (event.providerExecuted === true) providerCall(event.toolCallId, event.toolName, {}).incomplete = true;
        else failedToolCalls.push(event);
        break;
      default:
        event satisfies never;
    }
  }
  if (refusal === undefined && finished?.reason === 'refusal') refusal = text;
  return {
    events,
    text,
    reasoning,
    structured,
    refusal,
    toolCalls,
    incompleteToolCalls,
    failedToolCalls,
    providerToolCalls: [...providerCalls.values()],
    finishReason: finished?.reason,
    rawFinishReason: finished?.rawReason,
    usage: finished?.usage,
    warnings: finished?.warnings ?? [],
  };
}
