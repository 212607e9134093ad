import type { JsonLimits } from '../json/scanner.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import type { PipelineEvent } from '../types.ts';
import { Stage } from './stage.ts';

/** Options of {@link ToolCallProgressStream}. */
export interface ToolCallProgressStreamOptions extends JsonLimits {
  /**
   * Keep going when a call's arguments are invalid JSON (that call's progress stops and it ends
   * as `tool-call-failed`) instead of erroring the stream with a `ToolCallArgumentsError`.
   * @default false
   */
  readonly isolateErrors?: boolean;
  /**
   * End a call whose arguments were cut off as a `tool-call` marked `truncated: true` (closed
   * where it stopped) instead of `tool-call-incomplete`.
   * @default false
   */
  readonly repair?: boolean;
}

/** What {@link ToolCallProgressStream} emits. */
export type ToolCallProgressStreamOutput = PipelineEvent;

/**
 * The progress of every tool call's arguments while they stream in: each call's
 * `tool-call-arguments` parts are replaced by the {@link ToolCallArgumentProgress} events their
 * chunks complete (one incremental parser per open call, so parallel calls interleave freely),
 * and the call's `flush` by its conversation event — `tool-call {toolCallId, toolName,
 * arguments}` with the exact arguments, or `tool-call-incomplete` / `tool-call-failed`.
 * `structured` parts become `structured-progress` events and a `structured` event the same way.
 * Everything else — text and reasoning parts, `tool-call-start`, other flushes, `finished`, any
 * event of a later stage — passes through unchanged and in order.
 *
 * Nothing is buffered beyond what each parser holds (an incomplete escape or number). A call's
 * `toolCallId`/`toolName` are those known when the fragment is emitted. A call whose arguments
 * stop early is reported as `tool-call-incomplete` once `finished` (with the stop reason) or the
 * end of input arrives. Invalid arguments error the stream with a `ToolCallArgumentsError`
 * naming the call and the offset, after everything before it, unless `isolateErrors` is set.
 *
 * The core is {@link TurnBuilder} with `{ progress: true, messages: false }`. Composed with other
 * stages by `chain` (or given to `fromResponse`), it runs in their stream hop.
 *
 * @example
 * ```ts
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new ToolCallProgressStream());
 * for await (const event of events) {
 *   if (event.type === 'tool-call-progress') render(event.toolCallId, event.fragment);
 *   if (event.type === 'tool-call') await run(event.toolName, event.arguments);
 * }
 * ```
 */
export class ToolCallProgressStream extends Stage<PipelineEvent, PipelineEvent> {
  constructor(options: ToolCallProgressStreamOptions = {}) {
    super(new TurnBuilder({ ...options, progress: true, messages: false }));
  }
}
