import { type PushCore, Stage, canFuse } from '../transforms/stage.ts';
import { FINAL_EVENTS, TurnBuilder, type TurnBuilderOptions } from '../turn/turn-builder.ts';
import type { PipelineEvent } from '../view-types.ts';
import type {
  ConversationEvent,
  FailedToolCallEvent,
  FinishReason,
  IncompleteToolCallEvent,
  JsonValue,
  ToolCallEvent,
  Usage,
} from '../types.ts';

/** A turn builder that keeps only what `collectTurn` reads: run inside the stage before it. */
class TurnEvents implements PushCore<PipelineEvent, PipelineEvent> {
  readonly #builder: TurnBuilder;
  readonly #all: PipelineEvent[] = [];

  constructor(options: CollectTurnOptions) {
    this.#builder = new TurnBuilder({ ...options, messages: true });
  }

  push(event: PipelineEvent, out: PipelineEvent[] = []): PipelineEvent[] {
    return this.#keep(() => this.#builder.push(event, this.#all), out);
  }

  end(out: PipelineEvent[] = []): PipelineEvent[] {
    return this.#keep(() => this.#builder.end(this.#all), out);
  }

  #keep(step: () => void, out: PipelineEvent[]): PipelineEvent[] {
    const all = this.#all;
    try {
      step();
    } finally {
      for (let i = 0; i < all.length; i++) {
        const type = (all[i] as PipelineEvent).type;
        // What a turn is made of: the conversation events and `finished`.
        if (type === 'finished' || FINAL_EVENTS.has(type)) out.push(all[i] as PipelineEvent);
      }
      all.length = 0;
    }
    return out;
  }
}

/** Options of {@link collectTurn}. */
export interface CollectTurnOptions extends Omit<TurnBuilderOptions, 'messages' | 'passthrough' | 'progress'> {}

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
  /** Tool calls with complete arguments (and, only with `repair`, repaired ones marked `truncated`). */
  readonly toolCalls: readonly ToolCallEvent[];
  /** Tool calls whose arguments stopped early (never in `toolCalls`). */
  readonly incompleteToolCalls: readonly IncompleteToolCallEvent[];
  /** Tool calls whose arguments were invalid (with `isolateErrors`). */
  readonly failedToolCalls: readonly FailedToolCallEvent[];
  /** The normalized finish reason; `undefined` if the stream ended without one (it was cut). */
  readonly finishReason: FinishReason | undefined;
  /** The provider's own finish reason. */
  readonly rawFinishReason: string | undefined;
  readonly usage: Usage | undefined;
}

/**
 * Read a stream to its end and assemble the {@link Turn}. The stream may be the output of any
 * stage: `ProviderEventStream`'s events, or those of any stage after it (progress, conversation
 * events, fields, path updates, deltas, validation errors): slots already reported by a stage
 * before are taken as they are, the others are built here, and events it does not know are
 * skipped.
 *
 * @throws the stream's error (a `ProviderError`, a `ToolCallArgumentsError`, …): the promise
 *   rejects with it, and a stream that is still open is cancelled with it. To keep what arrived before an error, consume the events with
 *   `ConversationEventStream` instead.
 * @example
 * ```ts
 * const turn = await collectTurn(
 *   response.body!.pipeThrough(new ProviderEventStream({ provider: 'anthropic' })),
 * );
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
      switch (output.type) {
        case 'message':
        case 'reasoning':
        case 'structured':
        case 'tool-call':
        case 'tool-call-incomplete':
        case 'tool-call-failed':
          events.push(output);
      }
    }
  };
  // Straight after an argstream stage, the turn is built inside that stage's hop: the reader then
  // takes a few conversation events instead of every part and fragment (each read costs
  // microseconds).
  const source = canFuse(stream as ReadableStream<unknown>)
    ? (stream as ReadableStream<PipelineEvent>).pipeThrough(new Stage(new TurnEvents(options)))
    : (stream as ReadableStream<PipelineEvent>);
  const reader = source.getReader();
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
  const toolCalls: ToolCallEvent[] = [];
  const incompleteToolCalls: IncompleteToolCallEvent[] = [];
  const failedToolCalls: FailedToolCallEvent[] = [];
  for (const event of events) {
    if (event.type === 'message') text += event.text;
    else if (event.type === 'reasoning') reasoning += event.text;
    else if (event.type === 'structured') structured ??= event.data;
    else if (event.type === 'tool-call') toolCalls.push(event);
    else if (event.type === 'tool-call-incomplete') incompleteToolCalls.push(event);
    else if (event.type === 'tool-call-failed') failedToolCalls.push(event);
  }
  return {
    events,
    text,
    reasoning,
    structured,
    toolCalls,
    incompleteToolCalls,
    failedToolCalls,
    finishReason: finished?.reason,
    rawFinishReason: finished?.rawReason,
    usage: finished?.usage,
  };
}
