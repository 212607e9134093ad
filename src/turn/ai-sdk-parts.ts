/**
 * `TurnBuilder`: the turn builder's core with the AI SDK's `fullStream` parts read among
 * argstream's events. The builder itself is `TurnBuilderBase` (`turn-builder.ts`), which reads no
 * part of another library: a store that never gets such parts (the AI SDK chat transport's) builds
 * its turn with it and bundles no adapter for them.
 *
 * @module
 */
import { findRun } from '../json/scanner-runs.ts';
import { AI_SDK_PARTS } from '../providers/ai-sdk.ts';
import { partEvent } from '../providers/adapter.ts';
import type { PushCore } from '../core.ts';
import type { EventPart, PartEvent, PipelineEvent } from '../types.ts';
import { readEventBefore } from './events-before.ts';
import { FRAGMENT_PROGRESS } from './progress.ts';
import { TurnBuilderBase, mergeMetadata, type TurnBuilderOptions } from './turn-builder.ts';

/**
 * The turn builder's core: `push(event) → outputs`, `end() → outputs`.
 *
 * It reads any {@link PipelineEvent}. It owns `part` and `flush` events (text parts only with
 * `messages`): argument text (`tool-call-arguments` and `structured` parts, or the
 * `argumentsDelta` of `streaming-tool-call` events) is parsed incrementally, one parser per slot,
 * and each flushed slot becomes one conversation event, emitted before the flush would have been.
 * A call whose arguments stopped early becomes `tool-call-incomplete` once the stop reason is
 * known (at `finished`, or at the end of input).
 *
 * A conversation event or a progress event that arrives from a stage before it (another builder,
 * a view with its own progress) hands its slot to that stage: the builder drops what it holds for
 * the slot, passes its parts on unparsed and never reports it twice. Everything else passes
 * through unchanged and in order, `finished` after the incomplete calls it releases.
 *
 * A `snapshot` event (many events as one: the turn so far, sent to a client that resumed far
 * behind) is read as the events it holds, in their place: its output is theirs.
 *
 * **Call ids.** A non-empty tool call id names one call of the turn. When a second call claims an
 * id that another call of the turn holds — one still streaming in another slot (two interleaved
 * Anthropic blocks, or OpenAI tool call indexes, with one id), or one that has ended (a later step
 * that reuses an id) — the builder refuses the stream with a `TaggedToolCallError` of code
 * `'duplicate-tool-call-id'`, after everything before it, whatever `isolateErrors` says: no
 * consumer (`collectTurn`, `TurnStore`, every stage built on this core) shows one call with the
 * other's input. Calls with an empty id (`''`) are told apart by their slot and never collide; a
 * slot reused by a later step with a new id is a new call. The same call named again by a stage
 * before (its progress, then its conversation event, in one slot) is the same call.
 *
 * **Malformed events.** An event the builder did not make itself is checked before it is read:
 * one of the wrong shape (`null`, a `part` event without its `part`, a fragment without a `type`,
 * arguments that are not JSON) errors with a `RelayError` of code `'invalid-data'`, and a fragment,
 * value or `snapshot` nested deeper than `maxDepth` with a `JsonStreamError` of code `'max-depth'`
 * — never a `TypeError` or a `RangeError`. The checks cost O(1) per event beyond the values and
 * fragments it carries.
 *
 * The parts of the AI SDK's `streamText(…).fullStream` are an input of their own: they are read
 * as `ProviderEventStream({provider: 'ai-sdk'})` reads them, and what that makes is handled as
 * above (so they never pass through), which lets every stage built on this one — progress,
 * conversation events, `collectTurn`, fields, path updates, validation, the terminal sink — take
 * `fullStream` directly.
 *
 * @example
 * ```ts
 * const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
 * const builder = new TurnBuilder({ progress: true });
 * for (const chunk of chunks) {
 *   for (const event of decoder.push(chunk)) for (const output of builder.push(event)) render(output);
 * }
 * for (const event of decoder.end()) for (const output of builder.push(event)) render(output);
 * for (const output of builder.end()) render(output);
 * ```
 */
export class TurnBuilder extends TurnBuilderBase implements PushCore<PipelineEvent, PipelineEvent> {
  constructor(options: TurnBuilderOptions = {}) {
    super(options, { parts: AI_SDK_PARTS, runs: findRun, before: readEventBefore }, FRAGMENT_PROGRESS);
  }

  /**
   * Apply `events` in order, as one {@link TurnBuilder.push} each would, appending what they
   * produce to `out` (returned). Argument text that arrives as adjacent parts of one slot (a run
   * of `tool-call-arguments` parts, or of `structured` parts, with the same `index`) is parsed as
   * one piece: its progress says the same text in fewer, longer fragments, for a fraction of the
   * work of parsing each piece alone. Stages call it with what one input chunk made (a network
   * read of many deltas). With `passthrough`, or for a slot a stage before this one parses, the
   * events are pushed one by one. If it throws, `out` holds what was produced before the error.
   */
  pushAll(events: readonly PipelineEvent[], out: PipelineEvent[] = []): PipelineEvent[] {
    for (let i = 0; i < events.length; ) {
      const end = textRun(this, events, i);
      // A joined part is of the right shape: `push` takes it as it takes each of its parts.
      this.push(end - i === 1 ? (events[i] as PipelineEvent) : joinParts(events, i, end), out);
      i = end;
    }
    return out;
  }
}

/**
 * Where the run of argument text parts of one slot that starts at `start` ends (`start + 1`: no
 * run). Only parts of the right shape join a run (the loop checks the first too): any other event
 * is pushed alone, and checked there.
 */
function textRun(builder: TurnBuilderBase, events: readonly PipelineEvent[], start: number): number {
  const first = events[start] as PartEvent;
  const part = first?.part as EventPart | null | undefined;
  if (typeof part !== 'object' || part === null || !Number.isInteger(first.index)) return start + 1;
  const type = part.type;
  if ((type !== 'tool-call-arguments' && type !== 'structured') || !builder.joins(first.index)) return start + 1;
  const text = type === 'structured' ? 'json' : 'chunk';
  let end = start;
  for (; end < events.length; end++) {
    const next = events[end] as PipelineEvent | null;
    if (typeof next !== 'object' || next === null || next.type !== 'part' || next.index !== first.index) break;
    const nextPart = next.part as Record<string, unknown> | null | undefined;
    if (typeof nextPart !== 'object' || nextPart === null || nextPart['type'] !== type || typeof nextPart[text] !== 'string') break;
  }
  return end > start ? end : start + 1;
}

/** The argument text parts `events[start..end)` (one slot, one part type) as one part. */
function joinParts(events: readonly PipelineEvent[], start: number, end: number): PartEvent {
  const first = events[start] as PartEvent;
  let text = '';
  let metadata: Record<string, unknown> | undefined;
  for (let i = start; i < end; i++) {
    const event = events[i] as PartEvent;
    const part = event.part as { readonly chunk?: string; readonly json?: string };
    text += (part.chunk ?? part.json) as string;
    if (event.metadata !== undefined) metadata = mergeMetadata(metadata, event.metadata);
  }
  const part: EventPart = first.part.type === 'structured' ? { type: 'structured', json: text } : { type: 'tool-call-arguments', chunk: text };
  return partEvent(first.index, part, metadata) as PartEvent;
}
