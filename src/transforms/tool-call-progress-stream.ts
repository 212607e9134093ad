import type { JsonLimits } from '../json/scanner.ts';
import { EventBuilder, type EventBuilderOutput } from '../turn/event-builder.ts';
import { drainingTransformer, runStep } from './fail-after-drain.ts';
import type { StreamEvent, StructuredProgress, ToolCallArgumentProgress } from '../types.ts';

/** Options of {@link ToolCallProgressStream}. */
export interface ToolCallProgressStreamOptions extends JsonLimits {
  /**
   * Keep going when a call's arguments are invalid JSON (that call's progress just stops)
   * instead of erroring the stream with a `ToolCallArgumentsError`.
   * @default false
   */
  readonly isolateErrors?: boolean;
}

/** What {@link ToolCallProgressStream} emits. */
export type ToolCallProgressStreamOutput = StreamEvent | ToolCallArgumentProgress | StructuredProgress;

/**
 * Passes every {@link StreamEvent} through and, after each `tool-call-arguments` part, adds the
 * {@link ToolCallArgumentProgress} events its chunk completes — one incremental parser per open
 * call, so parallel calls interleave freely. `structured` parts get `structured-progress` events
 * the same way. Nothing is buffered beyond what each parser holds (an incomplete escape or
 * number). A call's `toolCallId`/`toolName` are those known when the fragment is emitted.
 *
 * At a slot's `flush` (or at the end of input for slots never flushed) the parser is ended, which
 * emits a trailing root number. Arguments that stop early produce no error here: the turn stages
 * report them as incomplete. Invalid arguments error the stream with a `ToolCallArgumentsError`
 * naming the call and the offset, unless `isolateErrors` is set.
 *
 * @example
 * ```ts
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new ToolCallProgressStream());
 * for await (const event of events) {
 *   if (event.type === 'tool-call-progress') render(event.toolCallId, event.fragment);
 * }
 * ```
 */
export class ToolCallProgressStream extends TransformStream<StreamEvent, ToolCallProgressStreamOutput> {
  constructor(options: ToolCallProgressStreamOptions = {}) {
    const builder = new EventBuilder({ ...options, passthrough: true, progress: true, conversation: false });
    super(
      drainingTransformer({
        transform: (event, controller) => runStep<EventBuilderOutput>(controller as never, (out) => builder.push(event, out)),
        flush: (controller) => runStep<EventBuilderOutput>(controller as never, (out) => builder.end(out)),
      }),
    );
  }
}
