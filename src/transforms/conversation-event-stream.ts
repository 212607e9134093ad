import { EventBuilder, type EventBuilderOptions, type EventBuilderOutput } from '../turn/event-builder.ts';
import { drainingTransformer, runStep } from './fail-after-drain.ts';
import type { ConversationEvent, FinishedEvent, StreamEvent } from '../types.ts';

/** Options of {@link ConversationEventStream}. */
export interface ConversationEventStreamOptions extends Omit<EventBuilderOptions, 'conversation'> {
  /**
   * Also emit the `tool-call-progress` / `structured-progress` events, from the same parse (one
   * stage instead of chaining `ToolCallProgressStream`, which would parse the arguments twice).
   * @default false
   */
  readonly progress?: boolean;
  /**
   * Also pass the input `StreamEvent`s through.
   * @default false
   */
  readonly passthrough?: boolean;
}

/**
 * The turn builder (RFD 043's EventBuilder as a stage): `StreamEvent`s in, one
 * {@link ConversationEvent} per flushed content slot out — `message`, `reasoning` (with its
 * signature), `structured {data}`, `tool-call {id, name, arguments}` — plus the `finished` event.
 * Arguments come from the incremental parse of the argument chunks, never from a second parse of
 * a raw buffer; a call without arguments gets `{}`.
 *
 * A call whose arguments stop before their JSON is complete is never reported as complete: it
 * becomes `tool-call-incomplete` (with the open path and the provider's stop reason, emitted once
 * `finished` arrives or the input ends), or with `repair: true` a `tool-call` marked
 * `truncated: true`. Invalid arguments error the stream with a `ToolCallArgumentsError`, or with
 * `isolateErrors: true` become a `tool-call-failed` event while the turn goes on. `flush` closes
 * the slots that were never flushed; a call among them without any argument text was cut, and is
 * incomplete rather than `{}`.
 *
 * @example
 * ```ts
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
 *   .pipeThrough(new ConversationEventStream());
 * for await (const event of events) if (event.type === 'tool-call') run(event.toolName, event.arguments);
 * ```
 */
export class ConversationEventStream<O extends ConversationEventStreamOptions = ConversationEventStreamOptions> extends TransformStream<
  StreamEvent,
  ConversationStreamOutput<O>
> {
  constructor(options?: O) {
    const builder = new EventBuilder({ ...options, conversation: true });
    const passthrough = options?.passthrough === true;
    super(
      drainingTransformer({
        transform: (event, controller) =>
          runStep<EventBuilderOutput>(controller as never, (out) => {
            builder.push(event, out);
            // `finished` is always part of the output, passed through or not.
            if (event.type === 'finished' && !passthrough) out.push(event);
          }),
        flush: (controller) => runStep<EventBuilderOutput>(controller as never, (out) => builder.end(out)),
      }),
    );
  }
}

/** What {@link ConversationEventStream} emits, depending on its options. */
export type ConversationStreamOutput<O extends ConversationEventStreamOptions> =
  | ConversationEvent
  | FinishedEvent
  | (O['progress'] extends true ? Extract<EventBuilderOutput, { type: 'tool-call-progress' | 'structured-progress' }> : never)
  | (O['passthrough'] extends true ? StreamEvent : never);
