/**
 * The adapter of Cohere's v2 chat stream (`POST /v2/chat` with `stream: true`).
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { FinishReason, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, partEvent } from './adapter.ts';
import {
  type JsonRecord,
  addCounts,
  isRecord,
  membersOf,
  metadataOf,
  nonEmptyStringAt,
  numberAt,
  recordAt,
  stringAt,
  usageOf,
} from './json-access.ts';

/** Options of {@link createCohereAdapter} (none yet). */
export interface CohereAdapterOptions {}

/**
 * Maps Cohere's `finish_reason` to a {@link FinishReason}: `COMPLETE` and `STOP_SEQUENCE` are
 * `stop`, `TOOL_CALL` `tool-calls`, `MAX_TOKENS` `length`, `ERROR` and `TIMEOUT` `error`; values
 * Cohere adds later are `other`.
 */
export function cohereFinishReason(finishReason: string): FinishReason {
  switch (finishReason) {
    case 'COMPLETE':
    case 'STOP_SEQUENCE':
      return 'stop';
    case 'TOOL_CALL':
      return 'tool-calls';
    case 'MAX_TOKENS':
      return 'length';
    case 'ERROR':
    case 'TIMEOUT':
      return 'error';
    default:
      return 'other';
  }
}

/**
 * Cohere usage as a {@link Usage}: the tokens the model read and wrote (`usage.tokens`), the
 * cache reads (`cached_tokens`); `billed_units` stays in `raw`.
 */
function cohereUsage(raw: JsonRecord): Usage {
  const tokens = recordAt(raw, 'tokens');
  const input = numberAt(tokens, 'input_tokens');
  const output = numberAt(tokens, 'output_tokens');
  return usageOf({
    inputTokens: input,
    outputTokens: output,
    totalTokens: input !== undefined && output !== undefined ? addCounts(input, output) : undefined,
    reasoningTokens: undefined,
    cachedInputTokens: numberAt(raw, 'cached_tokens'),
    raw,
  });
}

/** What a slot of the stream is keyed by: Cohere numbers content and tool calls separately. */
type SlotKey = 'plan' | `content:${number}` | `tool:${number}`;

interface OpenSlot {
  readonly slot: number;
  readonly citations: unknown[];
}

/**
 * Creates the synchronous core that turns Cohere v2 chat stream events into
 * {@link StreamEvent}s. Each record is one SSE event's parsed `data` (its `type` equals the SSE
 * event name) or one event object of the `cohere-ai` SDK's `chatStream`.
 *
 * - Slots are numbered in order of first appearance: Cohere's content `index` and tool call
 *   `index` count separately, so each gets a slot of its own.
 * - `tool-plan-delta` text (`delta.message.tool_plan`, the model's plan before it calls tools,
 *   which the next request sends back as the assistant message's `tool_plan`) is `reasoning` in
 *   a slot of its own whose first part carries `{toolPlan: true}`; it is flushed when the first
 *   tool call or content starts.
 * - `content-start`/`content-delta`/`content-end` give `message` parts (`content.text`), or
 *   `reasoning` parts for a `thinking` content (`content.thinking`), flushed at `content-end`.
 * - `tool-call-start` gives `tool-call-start {id, name}` (and its `function.arguments` if not
 *   empty), each `tool-call-delta` its `function.arguments` verbatim, `tool-call-end` the flush.
 *   A call with no arguments sends no delta, so no chunk is emitted: downstream reads `{}`.
 * - `citation-start` citations are kept in the flush metadata (`{citations: [...]}`) of the
 *   content slot they cite (`content_index`, else the last content), or in the `finished`
 *   metadata when that slot is already flushed.
 * - `message-end` flushes what is open and emits `finished` with its `finish_reason`, the usage
 *   and `{messageId}` (and `{error}` when Cohere reports one with `finish_reason: "ERROR"`).
 *   `end()` flushes what is still open; with no `message-end`, no `finished`.
 * - Event types added later are ignored.
 *
 * @throws {ProviderError} for an error event sent in the stream (`type: "error"` or an object
 * with only a top-level `message`), with Cohere's message; with type `'invalid-format'` for a
 * record that is not an object, or an event of a type read here whose members are missing or of
 * the wrong type: a content or tool call event without a numeric `index`, a delta event without
 * its `delta.message` object, a text, plan, id, name or `arguments` that is not a string (`null`
 * reads as absent). Event types added later are still ignored.
 */
export function createCohereAdapter(_options: CohereAdapterOptions = {}): ProviderAdapter {
  const members = membersOf('cohere');
  const slots = new Map<SlotKey, number>();
  const open = new Map<number, OpenSlot>();
  let nextSlot = 0;
  let lastContent: number | undefined;
  let messageId: string | undefined;
  const lateCitations: unknown[] = [];
  let finishedSent = false;

  /** The slot of `key`, opened on first use; `first` says whether this call opened it. */
  function slotOf(key: SlotKey): { slot: number; first: boolean } {
    const known = slots.get(key);
    if (known !== undefined) return { slot: known, first: false };
    const slot = nextSlot++;
    slots.set(key, slot);
    open.set(slot, { slot, citations: [] });
    return { slot, first: true };
  }

  function flush(key: SlotKey, out: StreamEvent[]): void {
    const slot = slots.get(key);
    const state = slot === undefined ? undefined : open.get(slot);
    if (slot === undefined || state === undefined) return;
    open.delete(slot);
    const metadata = metadataOf({ citations: state.citations.length > 0 ? state.citations : undefined });
    out.push(metadata === undefined ? { type: 'flush', index: slot } : { type: 'flush', index: slot, metadata });
  }

  function flushAll(out: StreamEvent[]): void {
    for (const key of slots.keys()) flush(key, out);
  }

  function onContent(data: JsonRecord, out: StreamEvent[]): void {
    const index = numberAt(data, 'index') ?? 0;
    const content = recordAt(recordAt(recordAt(data, 'delta'), 'message'), 'content');
    const key: SlotKey = `content:${index}`;
    if (!slots.has(key)) flush('plan', out);
    const thinking = stringAt(content, 'thinking');
    const text = stringAt(content, 'text');
    const { slot } = slotOf(key);
    lastContent = index;
    if (thinking) out.push(partEvent(slot, { type: 'reasoning', text: thinking }));
    if (text) out.push(partEvent(slot, { type: 'message', text }));
  }

  function onToolCall(data: JsonRecord, starting: boolean, out: StreamEvent[]): void {
    const index = numberAt(data, 'index') ?? 0;
    const call = recordAt(recordAt(recordAt(data, 'delta'), 'message'), 'tool_calls');
    const fn = recordAt(call, 'function');
    const key: SlotKey = `tool:${index}`;
    if (!slots.has(key)) flush('plan', out);
    const { slot, first } = slotOf(key);
    if (starting || first) {
      out.push(
        partEvent(slot, { type: 'tool-call-start', toolCallId: nonEmptyStringAt(call, 'id') ?? '', toolName: nonEmptyStringAt(fn, 'name') ?? '' }),
      );
    }
    const chunk = stringAt(fn, 'arguments');
    if (chunk) out.push(partEvent(slot, { type: 'tool-call-arguments', chunk }));
  }

  function onCitation(data: JsonRecord): void {
    const citation = recordAt(recordAt(data, 'delta'), 'message')?.citations;
    if (citation === undefined) return;
    const contentIndex = numberAt(citation, 'content_index') ?? lastContent;
    const slot = contentIndex === undefined ? undefined : slots.get(`content:${contentIndex}`);
    const state = slot === undefined ? undefined : open.get(slot);
    (state?.citations ?? lateCitations).push(citation);
  }

  /** The `delta.message` of a delta event, which it cannot be read without. */
  function messageOf(data: JsonRecord, where: string): JsonRecord {
    return members.requiredRecord(members.requiredRecord(data, 'delta', where), 'message', `the delta of ${where}`);
  }

  /**
   * Check the members of an event of a type read here before it is read: the `index` of content
   * and tool call events, the `delta.message` of delta events, and the type of every member read
   * (`null` reads as absent). Skipped, such an event would leave its text or arguments out of a
   * turn that looks complete.
   * @throws {ProviderError} type `'invalid-format'`.
   */
  function checkMembers(type: string | undefined, data: JsonRecord): void {
    switch (type) {
      case 'message-start':
        members.optionalString(data, 'id', type);
        break;
      case 'tool-plan-delta':
        members.optionalString(messageOf(data, type), 'tool_plan', `the message of ${type}`);
        break;
      case 'content-start':
      case 'content-delta': {
        members.requiredNumber(data, 'index', type);
        const content = members.optionalRecord(messageOf(data, type), 'content', `the message of ${type}`);
        if (content !== undefined) {
          members.optionalString(content, 'text', `the content of ${type}`);
          members.optionalString(content, 'thinking', `the content of ${type}`);
        }
        break;
      }
      case 'tool-call-start':
      case 'tool-call-delta': {
        members.requiredNumber(data, 'index', type);
        const call = members.optionalRecord(messageOf(data, type), 'tool_calls', `the message of ${type}`);
        if (call === undefined) break;
        members.optionalString(call, 'id', `the tool call of ${type}`);
        const fn = members.optionalRecord(call, 'function', `the tool call of ${type}`);
        if (fn !== undefined) {
          members.optionalString(fn, 'name', `the function of ${type}`);
          members.optionalString(fn, 'arguments', `the function of ${type}`);
        }
        break;
      }
      case 'content-end':
      case 'tool-call-end':
        members.requiredNumber(data, 'index', type);
        break;
      case 'citation-start':
        members.optionalNumber(data, 'index', type);
        messageOf(data, type);
        break;
      case 'message-end': {
        const delta = members.optionalRecord(data, 'delta', type);
        if (delta !== undefined) {
          members.optionalString(delta, 'finish_reason', `the delta of ${type}`);
          members.optionalRecord(delta, 'usage', `the delta of ${type}`);
          members.optionalString(delta, 'error', `the delta of ${type}`);
        }
        break;
      }
      default:
        // `error`, citation-end, debug events, and event types added later.
        break;
    }
  }

  return {
    push(data: unknown, event?: string): StreamEvent[] {
      if (!isRecord(data)) {
        throw new ProviderError('cohere', 'invalid-format', 'expected a Cohere chat stream event object');
      }
      const type = stringAt(data, 'type') ?? event;
      checkMembers(type, data);
      const out: StreamEvent[] = [];
      switch (type) {
        case 'message-start':
          messageId = stringAt(data, 'id');
          break;
        case 'tool-plan-delta': {
          const text = stringAt(recordAt(recordAt(data, 'delta'), 'message'), 'tool_plan');
          if (!text) break;
          const { slot, first } = slotOf('plan');
          out.push(partEvent(slot, { type: 'reasoning', text }, first ? { toolPlan: true } : undefined));
          break;
        }
        case 'content-start':
        case 'content-delta':
          onContent(data, out);
          break;
        case 'content-end':
          flush(`content:${numberAt(data, 'index') ?? 0}`, out);
          break;
        case 'tool-call-start':
        case 'tool-call-delta':
          onToolCall(data, type === 'tool-call-start', out);
          break;
        case 'tool-call-end':
          flush(`tool:${numberAt(data, 'index') ?? 0}`, out);
          break;
        case 'citation-start':
          onCitation(data);
          break;
        case 'message-end': {
          flushAll(out);
          if (finishedSent) break;
          finishedSent = true;
          const delta = recordAt(data, 'delta');
          const rawReason = nonEmptyStringAt(delta, 'finish_reason') ?? '';
          const rawUsage = recordAt(delta, 'usage');
          const metadata = metadataOf({
            messageId,
            error: nonEmptyStringAt(delta, 'error'),
            citations: lateCitations.length > 0 ? lateCitations : undefined,
          });
          out.push({
            type: 'finished',
            reason: cohereFinishReason(rawReason),
            rawReason,
            ...(rawUsage !== undefined ? { usage: cohereUsage(rawUsage) } : {}),
            ...(metadata !== undefined ? { metadata } : {}),
          });
          break;
        }
        case 'error':
          throw cohereError(data);
        default:
          if (type === undefined && nonEmptyStringAt(data, 'message') !== undefined) throw cohereError(data);
          // citation-end, debug events, and event types added later.
          break;
      }
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      flushAll(out);
      return out;
    },
  };
}

function cohereError(data: JsonRecord): ProviderError {
  const error = recordAt(data, 'error') ?? data;
  return new ProviderError('cohere', nonEmptyStringAt(error, 'type') ?? 'error', nonEmptyStringAt(error, 'message') ?? 'Cohere reported an error in the stream', {
    cause: data,
  });
}
