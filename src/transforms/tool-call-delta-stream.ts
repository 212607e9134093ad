/**
 * Raw argument deltas as a stream: a thin shell over {@link ToolCallDeltaCore}.
 *
 * @module
 */
import type { PipelineEvent } from '../types.ts';
import { Stage } from './stage.ts';
import { ToolCallDeltaCore, type ToolCallDeltaStreamOptions } from '../views/tool-call-delta-core.ts';

export type { ToolCallDeltaStreamOptions };

/**
 * The streaming-tool-call events of the three-engine design (seed 002): each call's
 * `tool-call-start` and `tool-call-arguments` parts are replaced by events whose `argumentsDelta`
 * is each chunk **exactly as received** — never parsed, repaired or re-cut (empty chunks are
 * skipped) — so the deltas of one call concatenate to its raw argument text; when the call
 * completes (its `flush`, or its `tool-call` event after a progress stage), one event with
 * `isComplete: true` and `argumentsDelta: ''`. With `announce` (the default), a call also gets an
 * event with `argumentsDelta: ''` when its id or name first becomes known. Everything else passes
 * through unchanged, and `collectTurn` reads the deltas as the arguments they replaced. After a
 * stage that already replaced the raw text with progress events, the deltas are the fragments
 * written as JSON text (no whitespace; it parses to the same value).
 *
 * `flush` (end of input) emits nothing: a call whose slot was never flushed — or only flushed by
 * `ProviderEventStream` at the end of its input (`metadata.endOfInput`) — gets no `isComplete`
 * event: it did not complete.
 *
 * @example
 * ```ts
 * const deltas = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
 *   .pipeThrough(new ToolCallDeltaStream({ messageId: 'msg_1' }));
 * const text = new Map<string, string>();
 * for await (const event of deltas) {
 *   if (event.type === 'streaming-tool-call') text.set(event.toolCallId, (text.get(event.toolCallId) ?? '') + event.argumentsDelta);
 * }
 * ```
 */
export class ToolCallDeltaStream extends Stage<PipelineEvent, PipelineEvent> {
  constructor(options: ToolCallDeltaStreamOptions = {}) {
    super(new ToolCallDeltaCore(options));
  }
}
