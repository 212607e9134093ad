/**
 * The adapter of the AWS Bedrock ConverseStream API (`POST /model/{modelId}/converse-stream`).
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { FinishReason, StreamEvent, Usage } from '../types.ts';
import type { ProviderAdapter } from './adapter.ts';
import {
  type JsonRecord,
  addCounts,
  isRecord,
  metadataOf,
  nonEmptyStringAt,
  numberAt,
  recordAt,
  stringAt,
  usageOf,
} from './json-access.ts';

/** Options of {@link createBedrockAdapter} (none yet). */
export interface BedrockAdapterOptions {}

interface Block {
  signature: string;
  redactedContent: unknown[];
  citations: unknown[];
}

/** The ConverseStream event names (the `:event-type` header, or the key of an SDK event object). */
const EVENT_NAMES = [
  'messageStart',
  'contentBlockStart',
  'contentBlockDelta',
  'contentBlockStop',
  'messageStop',
  'metadata',
] as const;

function isException(name: string): boolean {
  return /exception$/i.test(name);
}

/**
 * Maps Bedrock's `stopReason` to a {@link FinishReason}; unknown values become `other`.
 * `malformed_model_output` and `malformed_tool_use` mean the model's output could not be used:
 * `error`.
 */
export function bedrockFinishReason(stopReason: string): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content-filter';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'error';
    default:
      return 'other';
  }
}

/**
 * Bedrock usage as a {@link Usage}. `inputTokens` excludes prompt-cache reads and writes; here
 * `inputTokens` is the whole prompt (all three added) and `cachedInputTokens` the cache reads.
 */
function bedrockUsage(raw: JsonRecord): Usage {
  const cacheRead = numberAt(raw, 'cacheReadInputTokens');
  const input = addCounts(addCounts(numberAt(raw, 'inputTokens'), cacheRead), numberAt(raw, 'cacheWriteInputTokens'));
  const output = numberAt(raw, 'outputTokens');
  return usageOf({
    inputTokens: input,
    outputTokens: output,
    totalTokens: numberAt(raw, 'totalTokens') ?? (input !== undefined && output !== undefined ? input + output : undefined),
    reasoningTokens: undefined,
    cachedInputTokens: cacheRead,
    raw,
  });
}

/**
 * Creates the synchronous core that turns Bedrock ConverseStream events into
 * {@link StreamEvent}s. A record is either a frame's JSON payload with its `:event-type` as
 * `event` (what `ProviderEventStream` passes), or an event object of the AWS SDK
 * (`for await (const event of response.stream)`), shaped `{ <eventName>: payload }`.
 *
 * - `index` is `contentBlockIndex`. Only tool blocks get a `contentBlockStart`; text and reasoning
 *   blocks begin with their first delta.
 * - `contentBlockStart.start.toolUse {toolUseId, name}` gives `tool-call-start`; each non-empty
 *   `delta.toolUse.input` is appended verbatim as `tool-call-arguments`. An empty input emits no
 *   chunk (downstream reads that as `{}`).
 * - `delta.text` gives `message` parts (Amazon Nova writes its chain of thought as text inside
 *   `<thinking>` tags: it stays text); `delta.reasoningContent.text` gives `reasoning` parts;
 *   `reasoningContent.signature` and `.redactedContent` are kept in the flush metadata
 *   (`{signature}`, `{redactedContent: [...]}`), as are citations (`{citations: [...]}`).
 * - `contentBlockStop` flushes the slot; `messageStop` flushes any slot still open. `finished`
 *   is emitted once both `messageStop` (the stop reason) and `metadata` (usage, which Bedrock
 *   sends after `messageStop`) have arrived, or at `end()` when only `messageStop` did.
 * - The random padding field `p` and unknown events are ignored.
 *
 * `end()` flushes every slot still open and emits no `finished` without a `messageStop`.
 *
 * @throws {ProviderError} for an exception event (`:message-type: exception` frames such as
 * `throttlingException`, or the same keys in SDK objects), with the exception name as `type`;
 * with type `'invalid-stream'` and code `'duplicate'` for a second `contentBlockStart` of an
 * index (a block starts once: read on, a repeat would make a second call with the same id), and
 * code `'out-of-order'` for a start or a delta of a block whose `contentBlockStop` came, or a
 * `toolUse` delta before its block's start; with type `'invalid-format'` for a known event whose
 * payload is not an object, a block event without a numeric `contentBlockIndex`, or a delta
 * without its `delta` object or with a `text` that is not a string.
 */
export function createBedrockAdapter(_options: BedrockAdapterOptions = {}): ProviderAdapter {
  const blocks = new Map<number, Block>();
  let stopReason: string | undefined;
  let stopInfo: Record<string, unknown> = {};
  let usage: JsonRecord | undefined;
  let sawMetadata = false;
  let finished = false;
  /** The block indices that had a `contentBlockStart`. */
  const started = new Set<number>();
  /** The block indices whose `contentBlockStop` came. */
  const closed = new Set<number>();

  function block(index: number): Block {
    let b = blocks.get(index);
    if (b === undefined) {
      b = { signature: '', redactedContent: [], citations: [] };
      blocks.set(index, b);
    }
    return b;
  }

  function flush(index: number, out: StreamEvent[]): void {
    const b = blocks.get(index);
    if (b === undefined) return;
    blocks.delete(index);
    const metadata = metadataOf({
      signature: b.signature === '' ? undefined : b.signature,
      redactedContent: b.redactedContent.length > 0 ? b.redactedContent : undefined,
      citations: b.citations.length > 0 ? b.citations : undefined,
    });
    out.push(metadata === undefined ? { type: 'flush', index } : { type: 'flush', index, metadata });
  }

  function flushAll(out: StreamEvent[]): void {
    for (const index of [...blocks.keys()].sort((a, b) => a - b)) flush(index, out);
  }

  function finish(out: StreamEvent[]): void {
    if (finished || stopReason === undefined) return;
    finished = true;
    const metadata = metadataOf(stopInfo);
    out.push({
      type: 'finished',
      reason: bedrockFinishReason(stopReason),
      rawReason: stopReason,
      ...(usage !== undefined ? { usage: bedrockUsage(usage) } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }

  /** The `contentBlockIndex` of a block event: a block event without one is of the wrong shape. */
  function blockIndex(name: string, payload: JsonRecord): number {
    const index = numberAt(payload, 'contentBlockIndex');
    if (index === undefined) throw new ProviderError('bedrock', 'invalid-format', `${name} without a numeric contentBlockIndex`, { cause: payload });
    return index;
  }

  function onEvent(name: string, payload: JsonRecord, out: StreamEvent[]): void {
    switch (name) {
      case 'contentBlockStart': {
        const index = blockIndex(name, payload);
        if (closed.has(index) && !started.has(index)) {
          throw new ProviderError('bedrock', 'invalid-stream', `contentBlockStart for block ${index}, which already stopped`, {
            code: 'out-of-order',
            cause: payload,
          });
        }
        if (started.has(index)) {
          // Each index starts once; a second start would make a second call with the same id.
          throw new ProviderError('bedrock', 'invalid-stream', `contentBlockStart for block ${index}, which already started`, {
            code: 'duplicate',
            cause: payload,
          });
        }
        started.add(index);
        if (blocks.has(index)) flush(index, out);
        block(index);
        const toolUse = recordAt(recordAt(payload, 'start'), 'toolUse');
        if (toolUse !== undefined) {
          const id = nonEmptyStringAt(toolUse, 'toolUseId') ?? '';
          const toolName = nonEmptyStringAt(toolUse, 'name') ?? '';
          if (id !== '' || toolName !== '') out.push({ type: 'part', index, part: { type: 'tool-call-start', toolCallId: id, toolName } });
        }
        break;
      }
      case 'contentBlockDelta': {
        const index = blockIndex(name, payload);
        const delta = recordAt(payload, 'delta');
        if (delta === undefined) throw new ProviderError('bedrock', 'invalid-format', 'contentBlockDelta without a delta object', { cause: payload });
        if (delta['text'] !== undefined && typeof delta['text'] !== 'string') {
          throw new ProviderError('bedrock', 'invalid-format', 'contentBlockDelta whose delta.text is not a string', { cause: payload });
        }
        if (closed.has(index) || (delta['toolUse'] !== undefined && !started.has(index))) {
          // The block's contentBlockStop came already, or tool input came before the tool block's
          // start (read on, it would make a call with no id or name): out of order.
          const when = closed.has(index) ? 'already stopped' : 'has not started';
          throw new ProviderError('bedrock', 'invalid-stream', `contentBlockDelta for block ${index}, which ${when}`, {
            code: 'out-of-order',
            cause: payload,
          });
        }
        const b = block(index);
        const text = stringAt(delta, 'text');
        if (text) out.push({ type: 'part', index, part: { type: 'message', text } });
        const input = stringAt(recordAt(delta, 'toolUse'), 'input');
        if (input) out.push({ type: 'part', index, part: { type: 'tool-call-arguments', chunk: input } });
        const reasoning = recordAt(delta, 'reasoningContent');
        if (reasoning !== undefined) {
          const thought = stringAt(reasoning, 'text');
          if (thought) out.push({ type: 'part', index, part: { type: 'reasoning', text: thought } });
          b.signature += stringAt(reasoning, 'signature') ?? '';
          if (reasoning.redactedContent !== undefined && reasoning.redactedContent !== null) {
            b.redactedContent.push(reasoning.redactedContent);
          }
        }
        if (delta.citation !== undefined && delta.citation !== null) b.citations.push(delta.citation);
        break;
      }
      case 'contentBlockStop': {
        const index = blockIndex(name, payload);
        if (blocks.has(index)) closed.add(index);
        flush(index, out);
        break;
      }
      case 'messageStop':
        stopReason = nonEmptyStringAt(payload, 'stopReason') ?? stopReason ?? 'unknown';
        stopInfo = { ...stopInfo, additionalModelResponseFields: payload.additionalModelResponseFields };
        flushAll(out);
        if (sawMetadata) finish(out);
        break;
      case 'metadata':
        sawMetadata = true;
        usage = recordAt(payload, 'usage') ?? usage;
        stopInfo = { ...stopInfo, metrics: payload.metrics, trace: payload.trace, performanceConfig: payload.performanceConfig };
        finish(out);
        break;
      default:
        // messageStart (the role only) and events added later.
        break;
    }
  }

  return {
    push(data: unknown, event?: string): StreamEvent[] {
      if (!isRecord(data)) return [];
      let name = event;
      let payload: unknown = data;
      if (name === undefined) {
        // An SDK event object: `{ contentBlockDelta: {...} }`, or an exception member.
        name = EVENT_NAMES.find((key) => isRecord(data[key])) ?? Object.keys(data).find((key) => isException(key));
        if (name === undefined) return [];
        payload = data[name];
      }
      if (isException(name)) {
        const message =
          nonEmptyStringAt(payload, 'message') ??
          nonEmptyStringAt(payload, 'Message') ??
          nonEmptyStringAt(payload, 'originalMessage') ??
          `Bedrock sent ${name}`;
        const status = numberAt(payload, 'originalStatusCode');
        throw new ProviderError('bedrock', name, message, {
          code: status === undefined ? undefined : String(status),
          cause: payload,
        });
      }
      if (!isRecord(payload)) {
        // A known event whose payload is not an object; events added later stay ignored.
        if ((EVENT_NAMES as readonly string[]).includes(name)) throw new ProviderError('bedrock', 'invalid-format', `${name} whose payload is not an object`, { cause: payload });
        return [];
      }
      const out: StreamEvent[] = [];
      onEvent(name, payload, out);
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      flushAll(out);
      finish(out);
      return out;
    },
  };
}
