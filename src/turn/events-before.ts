/**
 * The turn builder's reading of the events a stage before it made — conversation and progress
 * events, raw argument deltas, `snapshot`s — checked before they are read: {@link readEventBefore},
 * which `TurnBuilder` and `TurnStore` are given, and a binding loads with what reads its source.
 * The store of the AI SDK chat transport, whose events all come from the chunks it reads, bundles
 * none of it. Internal.
 *
 * @module
 */
import { JsonStreamError } from '../errors.ts';
import type { PipelineEvent } from '../types.ts';
import { checkFragment, checkIndex, checkJson, checkString, invalidEvent } from './event-check.ts';
import { FINAL_EVENTS, type TurnBuilderBase } from './turn-builder.ts';

/** The final events that name a call of the turn (a `provider-tool-result` names the call it is the result of). */
const CALL_EVENTS: ReadonlySet<string> = new Set(['tool-call', 'provider-tool-call', 'tool-call-incomplete', 'tool-call-failed']);

/** A conversation event, as the builder reads one a stage before made. */
type FinalEvent = Extract<PipelineEvent, { readonly type: 'message' | 'reasoning' | 'refusal' | 'structured' | 'tool-call' | 'provider-tool-call' | 'provider-tool-result' | 'tool-call-incomplete' | 'tool-call-failed' }>;

/**
 * One event of a stage before (any but `part`, `flush`, `finished` and the views' events, which the
 * builder reads itself), appending what it produces to `out`: checked, its call id claimed, its
 * slot left to that stage, and passed on; a raw argument delta parsed, its progress before it; a
 * `snapshot`'s events read in its place. An event of no known type passes on unchanged.
 * @throws {RelayError} code `'invalid-data'` for an event of the wrong shape.
 * @throws {JsonStreamError} code `'max-depth'` for one nested deeper than the builder's `maxDepth`.
 * @throws {TaggedToolCallError} code `'duplicate-tool-call-id'` for a call that claims an id
 *   another call of the turn holds.
 */
export function readEventBefore(builder: TurnBuilderBase, event: PipelineEvent, out: PipelineEvent[]): void {
  switch (event.type) {
    case 'snapshot':
      snapshotEvent(builder, event.events, out);
      return;
    case 'tool-call-progress':
    case 'structured-progress':
      checkIndex(event);
      checkFragment(event.fragment, builder.maxDepth);
      if (event.type === 'tool-call-progress') {
        checkString(event, 'toolCallId');
        checkString(event, 'toolName');
        builder.claim(event.toolCallId, event.toolName, event.index, false);
      }
      // A stage before parses this slot's arguments: leave them to it.
      builder.leave(event.index);
      out.push(event);
      return;
    default:
      if (FINAL_EVENTS.has(event.type)) {
        checkFinal(builder, event as FinalEvent);
        builder.leave((event as FinalEvent).index);
      }
      out.push(event);
  }
}

/** A `snapshot`'s events, read in its place (a resumed relay's turn so far: as if each had come). */
function snapshotEvent(builder: TurnBuilderBase, events: unknown, out: PipelineEvent[]): void {
  if (!Array.isArray(events)) throw invalidEvent('a `snapshot` event without its `events` array');
  // Snapshots nest 256 deep at most (argstream never nests them at all).
  const max = Math.min(builder.maxDepth, 256);
  if (builder.nesting >= max) throw new JsonStreamError('max-depth', `snapshots nested deeper than ${max}`, 0, '');
  builder.nesting++;
  try {
    for (const inner of events as PipelineEvent[]) builder.push(inner, out);
  } finally {
    builder.nesting--;
  }
}

/** A conversation event of a stage before: its shape, its values, and the id of the call it names. */
function checkFinal(builder: TurnBuilderBase, event: FinalEvent): void {
  checkIndex(event);
  const fields = event as unknown as Record<string, unknown>;
  switch (event.type) {
    case 'message':
    case 'reasoning':
    case 'refusal':
      checkString(event, 'text');
      return;
    case 'structured':
      checkJson(fields['data'], 'the `data` of a `structured` event', builder.maxDepth);
      return;
    case 'provider-tool-result':
      checkString(event, 'toolCallId');
      checkString(event, 'toolName', true);
      if (fields['result'] !== undefined) checkJson(fields['result'], 'the `result` of a `provider-tool-result` event', builder.maxDepth);
      return;
    default:
      break;
  }
  checkString(event, 'toolCallId');
  checkString(event, 'toolName');
  if (event.type === 'tool-call' || event.type === 'provider-tool-call') {
    checkJson(fields['arguments'], `the \`arguments\` of a \`${event.type}\` event`, builder.maxDepth);
  } else if (event.type === 'tool-call-incomplete') {
    if (fields['partialArguments'] !== undefined) checkJson(fields['partialArguments'], 'the `partialArguments` of a `tool-call-incomplete` event', builder.maxDepth);
    checkString(event, 'path', true);
  } else if (typeof fields['error'] !== 'object' || fields['error'] === null) {
    throw invalidEvent('a `tool-call-failed` event without its `error`');
  }
  if (CALL_EVENTS.has(event.type)) builder.claim(event.toolCallId, event.toolName, event.index, true);
}
