import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import type { TurnBuilderOptions } from '../turn/turn-builder.ts';
import type { PipelineEvent } from '../types.ts';
import { Stage } from './stage.ts';

/** Options of {@link ConversationEventStream}. */
export interface ConversationEventStreamOptions extends Omit<TurnBuilderOptions, 'messages'> {}

/** What {@link ConversationEventStream} emits. */
export type ConversationStreamOutput = PipelineEvent;

/**
 * The turn builder (RFD 043's EventBuilder as a stage): one {@link ConversationEvent} per
 * content slot — `message`, `reasoning` (with its signature), `structured {data}`, `tool-call
 * {toolCallId, toolName, arguments}` — in place of the slot's `part`s and `flush`, plus the
 * `finished` event. Arguments come from the incremental parse of the argument chunks, never from
 * a second parse of a raw buffer; a call without arguments gets `{}`. `progress: true` also emits
 * the fragments of that parse (`tool-call-progress`, `structured-progress`); `passthrough: true`
 * keeps the parts and flushes (to render text as it streams). Events of other stages pass
 * through, and a slot a stage before it already reported (after `ToolCallProgressStream`, a view,
 * another builder) is not reported twice.
 *
 * A call whose arguments stop before their JSON is complete is never reported as complete: it
 * becomes `tool-call-incomplete` (with the open path and the provider's stop reason, emitted once
 * `finished` arrives or the input ends), or with `repair: true` a `tool-call` marked
 * `truncated: true`. Invalid arguments error the stream with a `ToolCallArgumentsError`, or with
 * `isolateErrors: true` become a `tool-call-failed` event while the turn goes on. `flush` closes
 * the slots that were never flushed; a call among them without any argument text was cut, and is
 * incomplete rather than `{}`.
 *
 * Two calls that claim one non-empty id (interleaved in two slots, or a later call reusing an
 * ended call's id) error the stream with a `TaggedToolCallError` of code `'duplicate-tool-call-id'`
 * after everything before it, whatever `isolateErrors` says; an event of the wrong shape errors it
 * with a `RelayError` `'invalid-data'`, one nested beyond `maxDepth` with a `JsonStreamError`
 * `'max-depth'` (see {@link TurnBuilder}).
 *
 * The core is {@link TurnBuilder}. Chained with other argstream stages, all run in one hop.
 *
 * @example
 * ```ts
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
 *   .pipeThrough(new ConversationEventStream({ progress: true }));
 * for await (const event of events) {
 *   if (event.type === 'tool-call-progress') render(event.toolCallId, event.fragment);
 *   if (event.type === 'tool-call') await run(event.toolName, event.arguments);
 * }
 * ```
 */
export class ConversationEventStream extends Stage<PipelineEvent, PipelineEvent> {
  constructor(options: ConversationEventStreamOptions = {}) {
    super(new TurnBuilder({ ...options, messages: true }));
  }
}
