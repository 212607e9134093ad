/**
 * The adapter of the Anthropic Messages API stream (`POST /v1/messages` with `stream: true`).
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { FinishReason, JsonValue, StreamEvent, Usage } from '../types.ts';
import type { ProviderAdapter } from './adapter.ts';
import {
  type JsonRecord,
  addCounts,
  isRecord,
  jsonTextOf,
  membersOf,
  metadataOf,
  nonEmptyString,
  nonEmptyStringAt,
  numberAt,
  recordAt,
  stringAt,
  usageOf,
} from './json-access.ts';

/** Options of {@link createAnthropicAdapter} (none yet). */
export interface AnthropicAdapterOptions {}

/** What a content block is, as far as the events it produces go. */
type BlockKind = 'text' | 'thinking' | 'redacted-thinking' | 'tool' | 'tool-result' | 'other';

interface Block {
  readonly kind: BlockKind;
  /** `content_block.type` as sent (`text`, `tool_use`, `server_tool_use`, `web_search_tool_result`, …). */
  readonly blockType: string;
  /** A call Anthropic runs itself (`server_tool_use`, `mcp_tool_use`). */
  readonly serverTool: boolean;
  signature: string;
  /** Whether any `input_json_delta` (even an empty one) arrived. */
  sawInputDelta: boolean;
  /** A non-empty `input` object sent whole in `content_block_start` (used only if no delta comes). */
  readonly startInput: JsonRecord | undefined;
  readonly citations: unknown[];
  /** Extra flush metadata: redacted thinking data, result blocks. */
  readonly extra: Record<string, unknown>;
}

/**
 * Maps Anthropic's `stop_reason` to a {@link FinishReason}.
 *
 * `pause_turn` (a server tool loop paused; the caller continues it) has no normalized
 * counterpart and becomes `other`, as do values Anthropic adds later.
 */
export function anthropicFinishReason(stopReason: string): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}

/**
 * Anthropic usage as a {@link Usage}. Anthropic's `input_tokens` excludes cache reads and cache
 * writes; `inputTokens` here is the whole prompt (all three added), `cachedInputTokens` the cache
 * reads, `reasoningTokens` `output_tokens_details.thinking_tokens` where sent.
 */
function anthropicUsage(raw: JsonRecord): Usage {
  const cacheRead = numberAt(raw, 'cache_read_input_tokens');
  const input = addCounts(addCounts(numberAt(raw, 'input_tokens'), cacheRead), numberAt(raw, 'cache_creation_input_tokens'));
  const output = numberAt(raw, 'output_tokens');
  return usageOf({
    inputTokens: input,
    outputTokens: output,
    totalTokens: input !== undefined && output !== undefined ? input + output : undefined,
    reasoningTokens: numberAt(recordAt(raw, 'output_tokens_details'), 'thinking_tokens'),
    cachedInputTokens: cacheRead,
    raw,
  });
}

/**
 * Creates the synchronous core that turns Anthropic Messages stream events into
 * {@link StreamEvent}s. Each record is one SSE event's parsed `data` (with its `event:` name) or
 * one event object of the official SDK (`for await (const event of client.messages.stream(…))`
 * or `messages.create({stream: true})`); the type is read from `data.type`, falling back to the
 * SSE event name.
 *
 * - `index` is Anthropic's content block index (the position in the final `content` array).
 * - `text` blocks give `message` parts, `thinking` blocks `reasoning` parts; the thinking
 *   `signature` is kept in the flush metadata (`{signature}`), `redacted_thinking` data as
 *   `{redactedThinking}`, and `citations_delta`s as `{citations: [...]}`.
 * - `tool_use`, `server_tool_use` and `mcp_tool_use` blocks give `tool-call-start {id, name}`
 *   when the block starts, then every non-empty `partial_json` verbatim as `tool-call-arguments`.
 *   A tool with no arguments sends only `partial_json: ""`, so no argument chunk is emitted:
 *   downstream reads "no chunks" as `{}`. A call Anthropic runs itself (`server_tool_use`,
 *   `mcp_tool_use`) has `providerExecuted: true` on its start part (and `{blockType, serverName?}`
 *   in its metadata), so it becomes a `provider-tool-call`, never a `tool-call`. If a block's
 *   start carries a non-empty `input` object and no delta follows, that object is emitted as one
 *   JSON chunk before the flush.
 * - Server tool result blocks (`web_search_tool_result`, `code_execution_tool_result`,
 *   `bash_code_execution_tool_result`, `mcp_tool_result`, … — any `*_tool_result` with a
 *   `tool_use_id`) arrive whole: a `provider-tool-result` part `{toolCallId: tool_use_id,
 *   toolName, result: content}`, `isError` for `is_error: true` or a `content.type` ending in
 *   `_error`; the flush carries `{blockType}`. Other blocks the adapter does not know emit only a
 *   flush with `{blockType, block}` in its metadata.
 * - `stop_reason: "refusal"` finishes with reason `refusal`; the text written before it stays
 *   message text (Anthropic sends no refusal text of its own).
 * - Blocks that `message_start` already carries whole in `message.content` (programmatic tool
 *   calling sends a complete `tool_use` there, then `message_stop`) come through as if streamed:
 *   each block's start with its whole text, thinking or `input` as one chunk, then its flush,
 *   at its position in `content`.
 * - `content_block_stop` flushes the slot; `message_stop` flushes any block still open (a
 *   truncated recording may lack its stop) and emits `finished` with the `stop_reason` from
 *   `message_delta` (else `message_start`'s `message.stop_reason`) and the cumulative usage of
 *   `message_start` and `message_delta`.
 * - `ping` and unknown event types are ignored.
 *
 * `end()` flushes every slot still open (a cut stream: downstream decides completeness from the
 * JSON parser) and emits `finished` only if a `message_delta` with a `stop_reason` arrived
 * without its `message_stop`; a stream cut earlier ends with no `finished` (and
 * `ProviderEventDecoder` errors with `'truncated'`). The stream is complete once `message_stop`
 * or a `message_delta` with a `stop_reason` arrived; a block, a delta or any record that carries
 * content after `message_stop` is refused (`ProviderError` type `'after-end'`).
 *
 * @throws {ProviderError} on an `error` event (sent after HTTP 200, e.g. `overloaded_error`), with
 * Anthropic's `error.type` as `type` and its message; with type `'invalid-stream'` and code
 * `'duplicate'` for a second `content_block_start` of an index (each content block starts once,
 * so a repeat is a duplicated event: read on, it would make a second call with the same id), and
 * code `'out-of-order'` for a `content_block_delta` of a block that already stopped, or an
 * `input_json_delta` of a block that has not started (read on, it would open a second block at
 * that index, or a call with no id or name). Text and thinking deltas whose block start never
 * came open the block they imply. With type `'invalid-format'` for a record of a known type
 * whose members are missing or of the wrong type (a `content_block_start` without a numeric
 * `index` or a `content_block` object, a `content_block_delta` without a numeric `index` or a
 * `delta` object with a string `type`, a `text`, `thinking`, `signature` or `partial_json` that
 * is not a string, a `content_block_stop` without a numeric `index`, a `message_start` or
 * `message_delta` member of the wrong type), and for a whole `input` object nested too deeply to
 * write as JSON text. Events of types the adapter does not know are still ignored.
 */
export function createAnthropicAdapter(_options: AnthropicAdapterOptions = {}): ProviderAdapter {
  const members = membersOf('anthropic');
  const blocks = new Map<number, Block>();
  let usage: Record<string, unknown> = {};
  let sawUsage = false;
  let stopReason: string | undefined;
  let messageInfo: Record<string, unknown> = {};
  let finished = false;
  /** `message_stop` arrived: the stream is complete, with or without a stop reason. */
  let stopped = false;
  /** The names of the server tool calls seen, by id, for their result blocks. */
  const serverToolNames = new Map<string, string>();
  /** `message.stop_reason` of `message_start`: the finish reason when no `message_delta` brings one. */
  let startStopReason: string | undefined;
  /** The block indices that have started (by `content_block_start` or whole in `message_start`). */
  const started = new Set<number>();

  function flushBlock(index: number, block: Block, out: StreamEvent[]): void {
    blocks.delete(index);
    if (block.kind === 'tool' && !block.sawInputDelta && block.startInput !== undefined) {
      out.push({ type: 'part', index, part: { type: 'tool-call-arguments', chunk: jsonTextOf('anthropic', block.startInput, 'the input of a tool_use block') } });
    }
    const metadata = metadataOf({
      signature: block.signature === '' ? undefined : block.signature,
      citations: block.citations.length > 0 ? block.citations : undefined,
      ...block.extra,
    });
    out.push(metadata === undefined ? { type: 'flush', index } : { type: 'flush', index, metadata });
  }

  function flushAll(out: StreamEvent[]): void {
    for (const index of [...blocks.keys()].sort((a, b) => a - b)) flushBlock(index, blocks.get(index) as Block, out);
  }

  function finish(out: StreamEvent[]): void {
    if (finished || stopReason === undefined) return;
    finished = true;
    const metadata = metadataOf(messageInfo);
    out.push({
      type: 'finished',
      reason: anthropicFinishReason(stopReason),
      rawReason: stopReason,
      ...(sawUsage ? { usage: anthropicUsage(usage) } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }

  /** `where`: the record the block came in, for messages (`content_block_start`). */
  function openBlock(index: number, contentBlock: JsonRecord, where: string, out: StreamEvent[]): Block {
    const blockType = members.requiredString(contentBlock, 'type', `a content block of ${where}`);
    const kind: BlockKind =
      blockType === 'text'
        ? 'text'
        : blockType === 'thinking'
          ? 'thinking'
          : blockType === 'redacted_thinking'
            ? 'redacted-thinking'
            : blockType === 'tool_use' || blockType === 'server_tool_use' || blockType === 'mcp_tool_use'
              ? 'tool'
              : blockType.endsWith('_tool_result') && nonEmptyStringAt(contentBlock, 'tool_use_id') !== undefined
                ? 'tool-result'
                : 'other';
    const input = recordAt(contentBlock, 'input');
    const block: Block = {
      kind,
      blockType,
      serverTool: blockType === 'server_tool_use' || blockType === 'mcp_tool_use',
      signature: stringAt(contentBlock, 'signature') ?? '',
      sawInputDelta: false,
      startInput: input !== undefined && Object.keys(input).length > 0 ? input : undefined,
      citations: [],
      extra: {},
    };
    blocks.set(index, block);
    switch (kind) {
      case 'text': {
        const text = members.optionalString(contentBlock, 'text', `a text block of ${where}`);
        if (text) out.push({ type: 'part', index, part: { type: 'message', text } });
        break;
      }
      case 'thinking': {
        const text = members.optionalString(contentBlock, 'thinking', `a thinking block of ${where}`);
        if (text) out.push({ type: 'part', index, part: { type: 'reasoning', text } });
        break;
      }
      case 'redacted-thinking':
        block.extra.redactedThinking = stringAt(contentBlock, 'data');
        break;
      case 'tool': {
        const id = members.optionalString(contentBlock, 'id', `a ${blockType} block of ${where}`) ?? '';
        const name = members.optionalString(contentBlock, 'name', `a ${blockType} block of ${where}`) ?? '';
        const metadata = metadataOf({
          blockType: blockType === 'tool_use' ? undefined : blockType,
          caller: contentBlock.caller,
          serverName: stringAt(contentBlock, 'server_name'),
        });
        if (block.serverTool && id !== '') serverToolNames.set(id, name);
        if (id !== '' || name !== '') {
          const part = block.serverTool
            ? ({ type: 'tool-call-start', toolCallId: id, toolName: name, providerExecuted: true } as const)
            : ({ type: 'tool-call-start', toolCallId: id, toolName: name } as const);
          out.push({ type: 'part', index, part, ...(metadata ? { metadata } : {}) });
        }
        break;
      }
      case 'tool-result': {
        // The result of a server tool (`web_search_tool_result`, `mcp_tool_result`, …), whole.
        const toolCallId = nonEmptyStringAt(contentBlock, 'tool_use_id') ?? '';
        const toolName = serverToolNames.get(toolCallId);
        const result = (contentBlock.content ?? null) as JsonValue;
        const failed = contentBlock.is_error === true || (stringAt(result, 'type') ?? '').endsWith('_error');
        out.push({
          type: 'part',
          index,
          part: {
            type: 'provider-tool-result',
            toolCallId,
            ...(toolName ? { toolName } : {}),
            result,
            ...(failed ? { isError: true as const } : {}),
          },
        });
        block.extra.blockType = blockType;
        break;
      }
      case 'other':
        block.extra.blockType = blockType;
        block.extra.block = contentBlock;
        break;
    }
    return block;
  }

  /**
   * Blocks already complete in `message_start`'s `message.content` (programmatic tool calling):
   * each comes through as if streamed — its start with the whole text, thinking or input as one
   * chunk, then its flush — at its position in `content`.
   */
  function startContent(content: readonly unknown[] | undefined, out: StreamEvent[]): void {
    if (content === undefined) return;
    for (const [index, contentBlock] of content.entries()) {
      if (!isRecord(contentBlock)) throw members.invalid('message_start whose `message.content` holds a block that is not an object', content);
      const previous = blocks.get(index);
      if (previous !== undefined) flushBlock(index, previous, out);
      started.add(index);
      const block = openBlock(index, contentBlock, 'message_start', out);
      if (Array.isArray(contentBlock.citations)) block.citations.push(...(contentBlock.citations as unknown[]));
      flushBlock(index, block, out);
    }
  }

  function onDelta(data: JsonRecord, out: StreamEvent[]): void {
    const index = members.requiredNumber(data, 'index', 'content_block_delta');
    const delta = members.requiredRecord(data, 'delta', 'content_block_delta');
    const deltaType = members.requiredString(delta, 'type', 'the delta of a content_block_delta');
    // The text member of each delta type read (citations_delta has none).
    const member =
      deltaType === 'text_delta'
        ? 'text'
        : deltaType === 'thinking_delta'
          ? 'thinking'
          : deltaType === 'signature_delta'
            ? 'signature'
            : deltaType === 'input_json_delta'
              ? 'partial_json'
              : undefined;
    const value = member === undefined ? undefined : members.optionalString(delta, member, `a ${deltaType}`);
    // The delta types read (others, added later, are ignored), and the block each implies.
    const implied =
      deltaType === 'text_delta' || deltaType === 'citations_delta'
        ? 'text'
        : deltaType === 'thinking_delta' || deltaType === 'signature_delta'
          ? 'thinking'
          : deltaType === 'input_json_delta'
            ? 'tool_use'
            : undefined;
    if (implied === undefined) return;
    const open = blocks.get(index);
    if (open === undefined && (started.has(index) || implied === 'tool_use')) {
      // Every block starts before its deltas and stops after them: a delta now came after its
      // block's stop (or whole in message_start), or arguments before their call's start (read
      // on, they would make a call with no id or name).
      const when = started.has(index) ? 'already stopped' : 'has not started';
      throw new ProviderError('anthropic', 'invalid-stream', `content_block_delta for block ${index}, which ${when}`, {
        code: 'out-of-order',
        cause: data,
      });
    }
    // Text or thinking whose block start never came: opened from what the delta implies.
    started.add(index);
    const block = open ?? openBlock(index, { type: implied }, 'content_block_delta', out);
    switch (deltaType) {
      case 'text_delta':
        if (value) out.push({ type: 'part', index, part: { type: 'message', text: value } });
        break;
      case 'thinking_delta':
        if (value) out.push({ type: 'part', index, part: { type: 'reasoning', text: value } });
        break;
      case 'signature_delta':
        block.signature += value ?? '';
        break;
      case 'citations_delta':
        if (delta.citation !== undefined) block.citations.push(delta.citation);
        break;
      case 'input_json_delta': {
        block.sawInputDelta = true;
        if (value) out.push({ type: 'part', index, part: { type: 'tool-call-arguments', chunk: value } });
        break;
      }
    }
  }

  return {
    push(data: unknown, event?: string): StreamEvent[] {
      if (!isRecord(data)) return [];
      const out: StreamEvent[] = [];
      switch (stringAt(data, 'type') ?? event) {
        case 'message_start': {
          const message = members.optionalRecord(data, 'message', 'message_start') ?? {};
          messageInfo = { messageId: stringAt(message, 'id'), model: stringAt(message, 'model') };
          const startUsage = members.optionalRecord(message, 'usage', 'the message of message_start');
          if (startUsage !== undefined) {
            usage = { ...startUsage };
            sawUsage = true;
          }
          startStopReason = nonEmptyString(members.optionalString(message, 'stop_reason', 'the message of message_start'));
          startContent(members.optionalArray(message, 'content', 'the message of message_start'), out);
          break;
        }
        case 'content_block_start': {
          const index = members.requiredNumber(data, 'index', 'content_block_start');
          const contentBlock = members.requiredRecord(data, 'content_block', 'content_block_start');
          if (started.has(index)) {
            // Each index starts once; a second start would make a second call with the same id.
            throw new ProviderError('anthropic', 'invalid-stream', `content_block_start for block ${index}, which already started`, {
              code: 'duplicate',
              cause: data,
            });
          }
          started.add(index);
          const previous = blocks.get(index);
          if (previous !== undefined) flushBlock(index, previous, out);
          openBlock(index, contentBlock, 'content_block_start', out);
          break;
        }
        case 'content_block_delta':
          onDelta(data, out);
          break;
        case 'content_block_stop': {
          const index = members.requiredNumber(data, 'index', 'content_block_stop');
          const block = blocks.get(index);
          if (block !== undefined) flushBlock(index, block, out);
          break;
        }
        case 'message_delta': {
          const delta = members.optionalRecord(data, 'delta', 'message_delta');
          stopReason = nonEmptyString(delta === undefined ? undefined : members.optionalString(delta, 'stop_reason', 'the delta of message_delta')) ?? stopReason;
          messageInfo = {
            ...messageInfo,
            stopSequence: stringAt(delta, 'stop_sequence'),
            stopDetails: delta?.stop_details,
            container: delta?.container,
          };
          const deltaUsage = members.optionalRecord(data, 'usage', 'message_delta');
          if (deltaUsage !== undefined) {
            // message_delta usage is cumulative: its fields replace those of message_start.
            usage = { ...usage, ...deltaUsage };
            sawUsage = true;
          }
          break;
        }
        case 'message_stop':
          stopped = true;
          flushAll(out);
          // Content sent whole in `message_start` comes with its stop reason there, and may have
          // no `message_delta` after it.
          stopReason ??= startStopReason;
          finish(out);
          break;
        case 'error': {
          const error = recordAt(data, 'error') ?? data;
          throw new ProviderError(
            'anthropic',
            nonEmptyStringAt(error, 'type') ?? 'error',
            nonEmptyStringAt(error, 'message') ?? 'Anthropic reported an error in the stream',
            { cause: data },
          );
        }
        default:
          // ping, and event types added after this adapter was written.
          break;
      }
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      flushAll(out);
      finish(out);
      return out;
    },

    complete: () => stopped || finished,

    /** After `message_stop` nothing belongs to the message (a `ping` is still ignored). */
    ended: () => stopped,
  };
}
