/**
 * The adapter of the OpenAI Responses API stream (`POST /v1/responses` with `stream: true`), also
 * spoken by Azure OpenAI and by Responses-compatible servers (LM Studio, DeepSeek, OpenRouter).
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { FinishReason, JsonValue, SequenceGapWarning, StreamEvent, Usage } from '../types.ts';
import type { ProviderAdapter } from './adapter.ts';
import {
  type JsonRecord,
  isRecord,
  jsonTextOf,
  membersOf,
  metadataOf,
  nonEmptyStringAt,
  numberAt,
  recordAt,
  stringAt,
  usageOf,
} from './json-access.ts';

/**
 * What a `.done` event's final text makes of the text the deltas delivered: the final text when
 * the deltas are a prefix of it (equal included; the caller emits the rest), the delivered text
 * when there is no final text, and `undefined` when the deltas are not a prefix of it — text
 * neither contains would come of appending to them.
 */
function reconcile(delivered: string, final: string | undefined): string | undefined {
  if (final === undefined) return delivered;
  return final.startsWith(delivered) ? final : undefined;
}

/** Options of {@link createOpenAIResponsesAdapter} (none yet). */
export interface OpenAIResponsesAdapterOptions {}

/** A content part of a message item: one slot each. */
interface ContentPart {
  readonly slot: number;
  readonly contentIndex: number;
  /** The text emitted so far (the final text once a `.done` event brought it), to check and complete it. */
  emitted: string;
  /** A `.done` event's final text of which the deltas were not a prefix (see {@link reconcile}). */
  finalText: string | undefined;
  /** A final text (`.done`, `content_part.done`, `output_item.done`) has fixed the part's text. */
  settled: boolean;
  refusal: boolean;
  annotations: unknown[];
}

/** One output item, keyed by its `output_index`. */
interface OutputItem {
  readonly outputIndex: number;
  type: string;
  itemId: string | undefined;
  /** The item's slot; message items have a slot per content part instead. */
  slot: number | undefined;
  /** The latest item object (`output_item.added`, then `output_item.done`). */
  item: JsonRecord | undefined;
  readonly parts: Map<number, ContentPart>;
  /** Text emitted per reasoning stream (`s<summary_index>` / `c<content_index>`), or `args`. */
  readonly emitted: Map<string, string>;
  /** Whether a reasoning stream's final text was not continued by its deltas (see {@link reconcile}). */
  textMismatch: boolean;
  /**
   * The first `sequence_number` gap the item was open at (or that came before its first event,
   * its `output_item.added` lost): an event of the item may be among the lost ones, so the
   * deltas of its streams that no final text has settled are held back, and a final text gives
   * their text (see "Gaps" in {@link createOpenAIResponsesAdapter}).
   */
  gap: SequenceGapWarning | undefined;
  /** The streams (`args`, reasoning `s<i>` / `c<i>`) whose text a final text has fixed. */
  readonly settled: Set<string>;
  /** The reasoning streams of a gap item that had deltas held back. */
  readonly held: Set<string>;
  /** The content indexes of the message parts flushed already. */
  readonly flushed: Set<number>;
  startedId: string;
  startedName: string;
  closed: boolean;
  /** A tool call item other than `function_call`: who runs it (see {@link callKind}). */
  call: 'app' | 'provider' | undefined;
}

/** The tool name of the calls OpenAI runs itself, by item type (`mcp_call`s carry their own `name`). */
const HOSTED_TOOLS: Readonly<Record<string, string>> = {
  web_search_call: 'web_search',
  file_search_call: 'file_search',
  code_interpreter_call: 'code_interpreter',
  image_generation_call: 'image_generation',
  mcp_call: 'mcp',
  shell_call: 'shell',
};

/** The tool name of the calls other than `function_call` that the application runs, by item type. */
const APP_TOOLS: Readonly<Record<string, string>> = {
  custom_tool_call: 'custom',
  computer_call: 'computer',
  local_shell_call: 'local_shell',
  shell_call: 'shell',
  apply_patch_call: 'apply_patch',
};

/** The item fields that are a call's arguments; the rest (but `id`, `type`, `call_id`) is a hosted call's result. */
const ARGUMENT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  web_search_call: ['action'],
  file_search_call: ['queries'],
  code_interpreter_call: ['code', 'container_id'],
  image_generation_call: [],
  mcp_call: ['name', 'server_label', 'arguments', 'approval_request_id'],
  shell_call: ['action'],
  computer_call: ['action'],
  local_shell_call: ['action'],
  apply_patch_call: ['operation'],
};

/**
 * Who runs a tool call item other than `function_call`: `provider` for OpenAI's hosted tools (web
 * search, file search, code interpreter, image generation, remote MCP, the shell in a hosted
 * container), `app` for the calls the application executes and returns the output of (custom
 * tools, computer use, local shell, the shell in the application's environment, apply patch).
 */
function callKind(type: string, item: JsonRecord | undefined): 'app' | 'provider' | undefined {
  if (type === 'shell_call') {
    const environment = stringAt(recordAt(item, 'environment'), 'type');
    return environment !== undefined && environment !== 'local' ? 'provider' : 'app';
  }
  if (HOSTED_TOOLS[type] !== undefined) return 'provider';
  if (APP_TOOLS[type] !== undefined) return 'app';
  return undefined;
}

/** Maps a Responses terminal status (and its `incomplete_details.reason`) to a {@link FinishReason}. */
export function openAIResponsesFinishReason(
  status: string,
  incompleteReason: string | undefined,
  sawFunctionCall: boolean,
): FinishReason {
  switch (status) {
    case 'completed':
      return sawFunctionCall ? 'tool-calls' : 'stop';
    case 'incomplete':
      return incompleteReason === 'max_output_tokens'
        ? 'length'
        : incompleteReason === 'content_filter'
          ? 'content-filter'
          : 'other';
    case 'failed':
      return 'error';
    default:
      return 'other';
  }
}

/**
 * Responses usage as a {@link Usage}: `input_tokens` already includes cached tokens
 * (`input_tokens_details.cached_tokens`); reasoning tokens come from
 * `output_tokens_details.reasoning_tokens`.
 */
function responsesUsage(raw: JsonRecord): Usage {
  return usageOf({
    inputTokens: numberAt(raw, 'input_tokens'),
    outputTokens: numberAt(raw, 'output_tokens'),
    totalTokens: numberAt(raw, 'total_tokens'),
    reasoningTokens: numberAt(recordAt(raw, 'output_tokens_details'), 'reasoning_tokens'),
    cachedInputTokens: numberAt(recordAt(raw, 'input_tokens_details'), 'cached_tokens'),
    raw,
  });
}

/**
 * Creates the synchronous core that turns OpenAI Responses stream events into
 * {@link StreamEvent}s. Each record is one SSE event's parsed `data` or one event object of the
 * official SDK (`for await (const event of await client.responses.create({stream: true, …}))`).
 *
 * Slots: every output item gets a slot, in the order items appear, except `message` items, which
 * get one slot per content part (`output_text` or `refusal`). Slot numbers are therefore
 * not `output_index`: both the item id and the output index are in the metadata.
 *
 * - `function_call` items: `tool-call-start {id: call_id, name}` (metadata `{itemId}`: the
 *   `fc_…` id that links the deltas, while `call_id` is what the tool result must reference),
 *   then each non-empty `function_call_arguments.delta` verbatim. `.done` and
 *   `output_item.done` repeat the whole arguments (see "Final texts" below). Empty arguments emit
 *   no chunk (downstream reads that as `{}`). The item's slot is flushed at `output_item.done`.
 * - `message` items: `message` parts from `output_text.delta` (and `refusal` parts from
 *   `refusal.delta`, with `{refusal: true}` in the flush metadata), checked against `.done`; each content
 *   part is flushed at `content_part.done` with `{itemId, outputIndex, contentIndex, phase?,
 *   annotations?}`.
 * - `reasoning` items: one slot; `reasoning_summary_text.delta` gives `reasoning` parts with
 *   `{summaryIndex}` metadata (summary parts are paragraphs), `reasoning_text.delta` (compatible
 *   servers) plain `reasoning` parts; the flush carries `{itemId, encryptedContent?}` from
 *   `output_item.done` — the continuity token to send back on the next turn.
 * - Calls OpenAI runs itself (`web_search_call`, `file_search_call`, `code_interpreter_call`,
 *   `image_generation_call`, `mcp_call`, a `shell_call` in a hosted container):
 *   `tool-call-start {id: item id, name, providerExecuted: true}` (name `web_search`,
 *   `file_search`, `code_interpreter`, `image_generation`, `shell`, or the MCP tool's `name`),
 *   with `{itemId, itemType}` metadata; the arguments are the item's input fields as one chunk at
 *   `output_item.done` (the `action` of a web search or shell call; `{queries}`,
 *   `{code, container_id}`; an MCP call's `arguments`, streamed from `mcp_call_arguments.delta`).
 *   After the call's flush, a slot of its own carries a `provider-tool-result` part whose
 *   `result` is the rest of the finished item (`status`, `results`, `outputs`, `output`, `error`,
 *   …), `isError` when its status is `failed` or it has an `error`.
 * - Calls the application runs other than `function_call` (`custom_tool_call`, `computer_call`,
 *   `local_shell_call`, `shell_call` in the local environment, `apply_patch_call`) are tool calls
 *   like a function call: id `call_id`, name the custom tool's `name` or `computer`,
 *   `local_shell`, `shell`, `apply_patch`, metadata `{itemId, itemType}`, and as arguments at
 *   `output_item.done` the `action` / `operation` object, or a custom tool's `input` text as a
 *   JSON string (streamed from `custom_tool_call_input.delta`, escaped, a high surrogate held
 *   back until its pair). They count as function calls for the finish reason.
 * - Other items (`mcp_list_tools`, `mcp_approval_request`, …) emit only a flush with
 *   `{itemId, itemType, item}` (the whole item).
 * - `response.completed` / `response.incomplete` flush every open slot and emit `finished`:
 *   `tool-calls` when a function call was seen, else `stop`; `incomplete` maps
 *   `max_output_tokens` to `length` and `content_filter` to `content-filter`. `rawReason` is the
 *   status, or the incompleteness reason.
 * - Unknown event types and fields (`obfuscation`, …) are ignored.
 * - `sequence_number`, where the events carry it, goes up by one from event to event (from
 *   whatever the first one is). A number that goes back errors with a `ProviderError` of type
 *   `'invalid-stream'`, after everything before it was delivered: code `'duplicate'` for a
 *   number seen already (a repeated or replayed event), `'out-of-order'` for one that a gap had
 *   skipped (it was not lost but late: a swap) — never a silently different text or arguments.
 *   A number past the next is a gap (see "Gaps" below).
 *
 * Gaps: when `sequence_number` skips (a proxy dropped events), the turn is recovered from the
 * final texts, not lost. The items open at the gap (and any item whose first event comes after
 * it without an `output_item.added`) may have lost a delta, so their deltas stop being emitted
 * until a final text of the same stream settles it: then the rest of the final text after what
 * was emitted before the gap comes as one part, as when deltas stop short. A call's arguments
 * come from `function_call_arguments.done` (`custom_tool_call_input.done`) or
 * `output_item.done`; a message part's text from `output_text.done` / `refusal.done`,
 * `content_part.done` (with its annotations) or the `content` of `output_item.done`; reasoning
 * from its `.done` events or the `summary` / `content` of `output_item.done`; items still open at
 * `response.completed` / `response.incomplete`, or never seen at all, from the terminal event's
 * `output` (an entry is the item of the same `id`, wherever `output` lists it). Each text is
 * restored once: a stream a final text settled takes nothing from a later one but a check. The `finished` event then carries `warnings: [{type: 'sequence-gap', expected,
 * received}]`, one a gap. A stream of such an item that no final text settles before the item
 * closes (the `.done` events were lost too, or the stream ends) errors with a `ProviderError` of
 * type `'invalid-stream'` and code `'sequence-gap'` (its `cause` holds `{itemId, outputIndex,
 * gap}`): text or arguments were lost. Where the final text does not continue what was emitted
 * before the gap, it is a mismatch as below, not a loss. Held deltas cost promptness, never
 * memory: they are dropped, the final text replaces them.
 *
 * Final texts: `output_text.done`, `refusal.done`, `content_part.done`, `reasoning_summary_text.done`,
 * `reasoning_summary_part.done`, `reasoning_text.done`, `function_call_arguments.done` and
 * `output_item.done` repeat the whole text the deltas streamed. The final text wins, and it is
 * checked against what the deltas delivered:
 * - the deltas are a prefix of it (the usual case; equal, or a server that sends no deltas, like
 *   LM Studio): the rest is emitted as one more part, so the slot's text is the final text;
 * - they are not (the server's deltas and final text disagree): nothing is appended, since text
 *   neither contains would result. Text (message, refusal, reasoning) keeps what the deltas
 *   delivered and its flush carries `{textMismatch: true, finalText}` — the slot's whole text as
 *   the final events have it, for a consumer to show instead. A call's arguments cannot be taken
 *   back once streamed to the parser and must not be run as streamed: the stream errors with a
 *   `ProviderError` of type `'text-mismatch'` (its `cause` holds `{itemId, streamed, final}`).
 *
 * `end()` flushes every slot still open and emits no `finished` when no terminal event came. An
 * event that carries content after `response.completed` / `response.incomplete` is refused
 * (`ProviderError` type `'after-end'`).
 *
 * @throws {ProviderError} on an `error` event (both the documented flat shape `{code, message}`
 * and the observed nested `{error: {type, code, message}}`), on `response.failed`, with type
 * `'text-mismatch'` when a call's final arguments do not continue its streamed ones, and with type
 * `'invalid-stream'`: code `'duplicate'` or `'out-of-order'` when `sequence_number` goes back,
 * `'sequence-gap'` when a gap lost text or arguments that no final text gave back; with type
 * `'invalid-format'` for an event of a type read here whose members are missing or of the wrong
 * type (see {@link checkMembers}: an item event without a numeric `output_index` or an `item`
 * object, a delta event placed by neither `output_index` nor `item_id`, or whose `delta` is not a
 * string, an index, id or final text of the wrong type), and for a call's input object nested too
 * deeply to write as JSON text. Events of types the adapter does not know are still ignored.
 */
export function createOpenAIResponsesAdapter(_options: OpenAIResponsesAdapterOptions = {}): ProviderAdapter {
  const members = membersOf('openai-responses');
  const items = new Map<number, OutputItem>();
  const outputIndexByItemId = new Map<string, number>();
  let nextSlot = 0;
  let sawFunctionCall = false;
  let responseInfo: Record<string, unknown> = {};
  let finished = false;
  /** The last `sequence_number` seen (undefined before the first event that has one). */
  let lastSequence: number | undefined;
  /** The `sequence_number` gaps so far, in order: the `finished` event's warnings. */
  const gaps: SequenceGapWarning[] = [];

  /**
   * Each event's `sequence_number` is one more than the one before (the first one seen sets the
   * start: a resumed stream begins after 0). A skip means events were lost: the items open then
   * hold their deltas back until final texts settle them. A repeat or a step back means an event
   * was duplicated or reordered, which would change the text or the arguments without a word.
   */
  function checkSequence(data: JsonRecord): void {
    const sequence = numberAt(data, 'sequence_number');
    if (sequence === undefined) return;
    const last = lastSequence;
    if (last === undefined || sequence === last + 1) {
      lastSequence = sequence;
      return;
    }
    if (sequence > last + 1) {
      const gap: SequenceGapWarning = { type: 'sequence-gap', expected: last + 1, received: sequence };
      gaps.push(gap);
      lastSequence = sequence;
      for (const item of items.values()) if (!item.closed) item.gap ??= gap;
      return;
    }
    // A number that a gap skipped is an event that was late, not lost: the deltas after it were
    // held back already, but a late event is out of order all the same.
    const late = gaps.some((gap) => sequence >= gap.expected && sequence < gap.received);
    const message = late
      ? `sequence_number ${sequence} after ${last}: an event that a gap skipped came late`
      : `sequence_number ${sequence} after ${last}: an event seen already`;
    throw new ProviderError('openai-responses', 'invalid-stream', message, { code: late ? 'out-of-order' : 'duplicate', cause: data });
  }

  /** `announced`: by its `output_item.added`; an item first seen by another event after a gap may have lost events. */
  function ensureItem(data: JsonRecord, impliedType: string, announced = false): OutputItem | undefined {
    const itemId = nonEmptyStringAt(data, 'item_id');
    const outputIndex = numberAt(data, 'output_index') ?? (itemId === undefined ? undefined : outputIndexByItemId.get(itemId));
    if (outputIndex === undefined) return undefined;
    let item = items.get(outputIndex);
    if (item === undefined) {
      item = {
        outputIndex,
        type: impliedType,
        itemId,
        slot: impliedType === 'message' ? undefined : nextSlot++,
        item: undefined,
        parts: new Map(),
        emitted: new Map(),
        textMismatch: false,
        gap: announced ? undefined : gaps.at(-1),
        settled: new Set(),
        held: new Set(),
        flushed: new Set(),
        startedId: '',
        startedName: '',
        closed: false,
        call: undefined,
      };
      items.set(outputIndex, item);
      if (impliedType === 'function_call') sawFunctionCall = true;
    }
    if (item.itemId === undefined && itemId !== undefined) item.itemId = itemId;
    if (item.itemId !== undefined) outputIndexByItemId.set(item.itemId, outputIndex);
    return item;
  }

  /** The type of item a content part event implies, for an item whose `output_item.added` was lost: raw reasoning text (compatible servers) is a reasoning item's. */
  function partItemType(data: JsonRecord): string {
    return stringAt(recordAt(data, 'part'), 'type') === 'reasoning_text' ? 'reasoning' : 'message';
  }

  function ensurePart(item: OutputItem, data: JsonRecord): ContentPart {
    const contentIndex = numberAt(data, 'content_index') ?? 0;
    let part = item.parts.get(contentIndex);
    if (part === undefined) {
      part = { slot: nextSlot++, contentIndex, emitted: '', finalText: undefined, settled: false, refusal: false, annotations: [] };
      item.parts.set(contentIndex, part);
    }
    return part;
  }

  /** Emit the tool-call identity if a non-empty id or name is newly known. */
  function startCall(item: OutputItem, source: JsonRecord | undefined, out: StreamEvent[]): void {
    if (item.slot === undefined || source === undefined) return;
    // A hosted call has no `call_id`: its item id is the one its result is tied to.
    const ownId = item.call === 'provider' ? item.itemId : nonEmptyStringAt(source, 'call_id');
    const ownName = nonEmptyStringAt(source, 'name') ?? (item.call === 'provider' ? HOSTED_TOOLS[item.type] : APP_TOOLS[item.type]);
    const id = item.startedId || (ownId ?? '');
    const name = item.startedName || (ownName ?? '');
    if (id === item.startedId && name === item.startedName) return;
    item.startedId = id;
    item.startedName = name;
    const metadata = metadataOf({ itemId: item.itemId, itemType: item.call === undefined ? undefined : item.type });
    const part =
      item.call === 'provider'
        ? ({ type: 'tool-call-start', toolCallId: id, toolName: name, providerExecuted: true } as const)
        : ({ type: 'tool-call-start', toolCallId: id, toolName: name } as const);
    out.push({ type: 'part', index: item.slot, part, ...(metadata ? { metadata } : {}) });
  }

  /** The arguments of a call item other than `function_call`, as JSON text (`''`: none). */
  function callArguments(item: OutputItem, source: JsonRecord | undefined): string | undefined {
    if (source === undefined) return undefined;
    // MCP arguments and a custom tool's input are text already (its input is a JSON string value).
    if (item.type === 'mcp_call') return stringAt(source, 'arguments');
    if (item.type === 'custom_tool_call') {
      const input = stringAt(source, 'input');
      return input === undefined ? undefined : JSON.stringify(input);
    }
    const fields = ARGUMENT_FIELDS[item.type] ?? [];
    const what = `the input of a ${item.type}`;
    // A single field that is an object (an action, an operation) is the arguments themselves.
    const only = fields.length === 1 ? recordAt(source, fields[0] as string) : undefined;
    if (only !== undefined) return jsonTextOf('openai-responses', only, what);
    const args: Record<string, unknown> = {};
    for (const field of fields) if (source[field] !== undefined) args[field] = source[field];
    return Object.keys(args).length > 0 ? jsonTextOf('openai-responses', args, what) : '';
  }

  /** A hosted call's result: its item without the identity and the argument fields. */
  function hostedResult(item: OutputItem, out: StreamEvent[]): void {
    const source = item.item;
    if (source === undefined) return;
    const fields = new Set(['id', 'type', 'call_id', ...(ARGUMENT_FIELDS[item.type] ?? [])]);
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(source)) if (!fields.has(key) && value !== undefined) result[key] = value;
    const error = source['error'];
    const failed = stringAt(source, 'status') === 'failed' || (error !== undefined && error !== null);
    const slot = nextSlot++;
    out.push({
      type: 'part',
      index: slot,
      part: {
        type: 'provider-tool-result',
        toolCallId: item.startedId,
        ...(item.startedName ? { toolName: item.startedName } : {}),
        result: result as JsonValue,
        ...(failed ? { isError: true as const } : {}),
      },
    });
    const metadata = metadataOf({ itemId: item.itemId, itemType: item.type });
    out.push(metadata === undefined ? { type: 'flush', index: slot } : { type: 'flush', index: slot, metadata });
  }

  /**
   * Reconcile the text the deltas delivered with a `.done` event's final text (see
   * {@link reconcile}): when the deltas are a prefix of it, emit the rest and return the final
   * text; when they are not, emit nothing and return `undefined` (a mismatch, for the caller to
   * report). A later `.done` repeating the same final text then matches.
   */
  function complete(
    slot: number,
    emitted: string,
    full: string | undefined,
    kind: 'message' | 'reasoning' | 'refusal' | 'tool-call-arguments',
    out: StreamEvent[],
    metadata?: Record<string, unknown>,
  ): string | undefined {
    const result = reconcile(emitted, full);
    if (result === undefined) return undefined;
    if (result.length > emitted.length) {
      const rest = result.slice(emitted.length);
      const part = kind === 'tool-call-arguments' ? ({ type: kind, chunk: rest } as const) : ({ type: kind, text: rest } as const);
      out.push({ type: 'part', index: slot, part, ...(metadata ? { metadata } : {}) });
    }
    return result;
  }

  /** {@link complete} for a content part: a mismatch is kept for its flush. */
  function completePart(part: ContentPart, full: string | undefined, out: StreamEvent[]): void {
    const result = complete(part.slot, part.emitted, full, part.refusal ? 'refusal' : 'message', out);
    if (result === undefined) part.finalText = full;
    part.emitted = result ?? (full as string);
    if (full !== undefined) part.settled = true;
  }

  /** {@link complete} for a reasoning stream of an item: a mismatch is kept for its flush. */
  function completeReasoning(item: OutputItem, slot: number, key: string, full: string | undefined, out: StreamEvent[], metadata?: Record<string, unknown>): void {
    const result = complete(slot, item.emitted.get(key) ?? '', full, 'reasoning', out, metadata);
    if (result === undefined) item.textMismatch = true;
    item.emitted.set(key, result ?? (full as string));
    if (full !== undefined) item.settled.add(key);
  }

  /** {@link complete} for a call's arguments: a mismatch is an error (the final arguments win, and the streamed ones cannot be taken back). */
  function completeArguments(item: OutputItem, slot: number, full: string | undefined, out: StreamEvent[]): void {
    const emitted = item.emitted.get('args') ?? '';
    const result = complete(slot, emitted, full, 'tool-call-arguments', out);
    if (result === undefined) {
      throw new ProviderError(
        'openai-responses',
        'text-mismatch',
        `the arguments streamed for call ${JSON.stringify(item.startedId)} are not the start of the final arguments the server sent`,
        { cause: { itemId: item.itemId, streamed: emitted, final: full } },
      );
    }
    item.emitted.set('args', result);
    if (full !== undefined) item.settled.add('args');
  }

  /**
   * A gap item whose `output_item.added` was lost has no identity yet: its arguments wait for
   * `output_item.done` (or the terminal event's `output`), which has both, rather than stream
   * ahead of the call they belong to.
   */
  function unnamed(item: OutputItem): boolean {
    return item.gap !== undefined && item.startedId === '' && item.startedName === '';
  }

  /** Whether a delta of an item's stream is held back: a gap may have lost one before it, and no final text has settled the stream yet. */
  function holds(item: OutputItem, settled: boolean): boolean {
    return item.gap !== undefined && !settled;
  }

  /** A stream of a gap item that no final text settled: what it carried is lost. */
  function lost(item: OutputItem, what: string): ProviderError {
    const gap = item.gap as SequenceGapWarning;
    return new ProviderError(
      'openai-responses',
      'invalid-stream',
      `events lost where sequence_number skipped from ${gap.expected - 1} to ${gap.received}, and no final text gave back ${what} of item ${JSON.stringify(item.itemId ?? `#${item.outputIndex}`)}`,
      { code: 'sequence-gap', cause: { itemId: item.itemId, outputIndex: item.outputIndex, gap } },
    );
  }

  /**
   * The final texts of `output_item.done`'s item (or the terminal event's `output`) for the
   * streams of a gap item that no `.done` event settled: a message's `content`, a reasoning
   * item's `summary` and `content`. Not for other items, whose deltas were checked already.
   */
  function recoverTexts(item: OutputItem, source: JsonRecord | undefined, out: StreamEvent[]): void {
    if (item.gap === undefined) return;
    if (item.type === 'message') {
      const content = source?.content;
      if (!Array.isArray(content)) return;
      for (let contentIndex = 0; contentIndex < content.length; contentIndex++) {
        const entry = content[contentIndex];
        if (!isRecord(entry) || item.flushed.has(contentIndex)) continue;
        const refusal = stringAt(entry, 'refusal');
        const text = refusal ?? stringAt(entry, 'text');
        // An empty part that never streamed would be an empty slot.
        if (text === undefined || (text === '' && !item.parts.has(contentIndex))) continue;
        const part = ensurePart(item, { content_index: contentIndex });
        if (!part.settled) {
          if (refusal !== undefined) part.refusal = true;
          completePart(part, text, out);
        }
        // An `annotation.added` or the `content_part.done` that lists them may be among the lost events.
        if (Array.isArray(entry.annotations)) part.annotations = entry.annotations;
      }
    } else if (item.type === 'reasoning' && item.slot !== undefined) {
      for (const [field, prefix] of [['summary', 's'], ['content', 'c']] as const) {
        const entries = source?.[field];
        if (!Array.isArray(entries)) continue;
        for (let index = 0; index < entries.length; index++) {
          const key = `${prefix}${index}`;
          const text = stringAt(entries[index], 'text');
          if (text === undefined || item.settled.has(key) || (text === '' && !item.emitted.has(key) && !item.held.has(key))) continue;
          completeReasoning(item, item.slot, key, text, out, prefix === 's' ? { summaryIndex: index } : undefined);
        }
      }
    }
  }

  function flushPart(item: OutputItem, part: ContentPart, out: StreamEvent[]): void {
    if (holds(item, part.settled)) throw lost(item, `the text of content part ${part.contentIndex}`);
    item.parts.delete(part.contentIndex);
    item.flushed.add(part.contentIndex);
    const metadata = metadataOf({
      itemId: item.itemId,
      outputIndex: item.outputIndex,
      contentIndex: part.contentIndex,
      phase: stringAt(item.item, 'phase'),
      refusal: part.refusal ? true : undefined,
      annotations: part.annotations.length > 0 ? part.annotations : undefined,
      textMismatch: part.finalText === undefined ? undefined : true,
      finalText: part.finalText,
    });
    out.push(metadata === undefined ? { type: 'flush', index: part.slot } : { type: 'flush', index: part.slot, metadata });
  }

  /** `done`: closed by its `output_item.done`, so the item is final. */
  function closeItem(item: OutputItem, out: StreamEvent[], done = false): void {
    if (item.closed) return;
    item.closed = true;
    for (const part of [...item.parts.values()]) flushPart(item, part, out);
    if (item.slot === undefined) return;
    if (item.gap !== undefined) {
      if ((item.type === 'function_call' || callKind(item.type, item.item) !== undefined) && !item.settled.has('args')) {
        throw lost(item, `the arguments of call ${JSON.stringify(item.startedId)}`);
      }
      for (const key of [...item.emitted.keys(), ...item.held]) {
        if (key !== 'args' && key !== 'pendingInput' && !item.settled.has(key)) throw lost(item, 'the reasoning');
      }
    }
    let metadata;
    switch (item.call !== undefined ? 'call' : item.type) {
      case 'function_call':
        metadata = metadataOf({ itemId: item.itemId });
        break;
      case 'call':
        metadata = metadataOf({ itemId: item.itemId, itemType: item.type });
        break;
      case 'reasoning':
        metadata = metadataOf({
          itemId: item.itemId,
          encryptedContent: stringAt(item.item, 'encrypted_content'),
          // The slot's text as the final events have it: each stream's final text, in order.
          textMismatch: item.textMismatch ? true : undefined,
          finalText: item.textMismatch ? [...item.emitted.values()].join('') : undefined,
        });
        break;
      default:
        metadata = metadataOf({ itemId: item.itemId, itemType: item.type, item: item.item });
        break;
    }
    out.push(metadata === undefined ? { type: 'flush', index: item.slot } : { type: 'flush', index: item.slot, metadata });
    // A hosted call's result is its finished item (a cut stream's item has none).
    if (item.call === 'provider' && done) hostedResult(item, out);
  }

  function closeAll(out: StreamEvent[]): void {
    for (const outputIndex of [...items.keys()].sort((a, b) => a - b)) closeItem(items.get(outputIndex) as OutputItem, out);
  }

  function onItem(data: JsonRecord, done: boolean, out: StreamEvent[]): void {
    const source = recordAt(data, 'item');
    const type = stringAt(source, 'type') ?? 'unknown';
    const known = ensureItem({ ...data, item_id: nonEmptyStringAt(source, 'id') ?? data.item_id }, type, !done);
    if (known === undefined) return;
    known.item = source ?? known.item;
    if (type === 'function_call') {
      startCall(known, source, out);
      if (done && known.slot !== undefined) completeArguments(known, known.slot, stringAt(source, 'arguments'), out);
    } else if (known.slot !== undefined && (known.call ??= callKind(type, source)) !== undefined) {
      if (known.call === 'app') sawFunctionCall = true;
      startCall(known, source, out);
      if (done) completeArguments(known, known.slot, callArguments(known, source), out);
    }
    if (done) recoverTexts(known, source, out);
    if (done) closeItem(known, out, true);
  }

  /**
   * After a gap, the terminal event's `output` is the last source of final texts: for the items
   * still open (their `output_item.done` lost) and those never seen (every event of them lost).
   *
   * An entry is matched to the item the stream named with its `id` wherever it stands in
   * `output`; by position (the index in `output` as `output_index`) only when the stream never
   * named it and the item at that position is not another one. An entry applied to another item
   * would give a second copy of a text the stream settled already, or a call whose arguments are
   * another item's.
   */
  function recoverItems(response: JsonRecord | undefined, out: StreamEvent[]): void {
    const output = response?.output;
    if (gaps.length === 0 || !Array.isArray(output)) return;
    for (let position = 0; position < output.length; position++) {
      const entry = output[position];
      if (!isRecord(entry)) continue;
      const outputIndex = outputIndexOf(entry, position);
      const item = items.get(outputIndex);
      if (item !== undefined && (item.closed || item.gap === undefined)) continue;
      onItem({ output_index: outputIndex, item: entry }, true, out);
    }
  }

  /** The `output_index` of an entry of the terminal event's `output` at `position` (see {@link recoverItems}). */
  function outputIndexOf(entry: JsonRecord, position: number): number {
    const id = nonEmptyStringAt(entry, 'id');
    const named = id === undefined ? undefined : outputIndexByItemId.get(id);
    if (named !== undefined) return named;
    const there = items.get(position);
    const type = stringAt(entry, 'type');
    const other = there !== undefined && ((id !== undefined && there.itemId !== undefined) || (type !== undefined && there.type !== type));
    if (!other) return position;
    // An item the stream never showed, where another one stands: a place of its own after all the others.
    let free = position;
    for (const outputIndex of items.keys()) free = Math.max(free, outputIndex + 1);
    return free;
  }

  function finish(response: JsonRecord | undefined, fallbackStatus: string, out: StreamEvent[]): void {
    if (!finished) recoverItems(response, out);
    closeAll(out);
    if (finished) return;
    finished = true;
    const status = stringAt(response, 'status') ?? fallbackStatus;
    const incompleteReason = nonEmptyStringAt(recordAt(response, 'incomplete_details'), 'reason');
    const output = response?.output;
    const functionCallInOutput =
      Array.isArray(output) && output.some((o) => stringAt(o, 'type') === 'function_call' || (isRecord(o) && callKind(stringAt(o, 'type') ?? '', o) === 'app'));
    const rawUsage = recordAt(response, 'usage');
    const metadata = metadataOf({ ...responseInfo, responseId: stringAt(response, 'id') ?? responseInfo.responseId, status });
    out.push({
      type: 'finished',
      reason: openAIResponsesFinishReason(status, incompleteReason, sawFunctionCall || functionCallInOutput),
      rawReason: status === 'incomplete' && incompleteReason !== undefined ? incompleteReason : status,
      ...(rawUsage !== undefined ? { usage: responsesUsage(rawUsage) } : {}),
      ...(gaps.length > 0 ? { warnings: [...gaps] } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }

  /**
   * Check the members of an event of a type read here before it is read: what it cannot be read
   * without (an item event's `output_index` and `item` with its `type`; a delta event's place, an
   * `output_index` or an `item_id`, and its `delta`) and the type of every member read (indexes
   * numbers, ids and texts strings, `part` and `response` objects; `null` reads as absent). A
   * record of the wrong shape is refused rather than skipped: skipped, its text or arguments
   * would be missing from a turn that looks complete.
   * @throws {ProviderError} type `'invalid-format'`.
   */
  function checkMembers(type: string | undefined, data: JsonRecord): void {
    if (type === undefined) return;
    const where = type;
    /** Where an event about an item goes: its `output_index`, else its `item_id`. */
    const place = (): void => {
      const outputIndex = members.optionalNumber(data, 'output_index', where);
      const itemId = members.optionalString(data, 'item_id', where);
      if (outputIndex === undefined && itemId === undefined) throw members.invalid(`${where} without \`output_index\` or \`item_id\``, data);
    };
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        members.optionalRecord(data, 'response', where);
        break;
      case 'response.output_item.added':
      case 'response.output_item.done': {
        members.requiredNumber(data, 'output_index', where);
        const item = members.requiredRecord(data, 'item', where);
        members.requiredString(item, 'type', `the item of ${where}`);
        members.optionalString(item, 'id', `the item of ${where}`);
        break;
      }
      case 'response.content_part.added':
      case 'response.content_part.done':
      case 'response.reasoning_summary_part.done': {
        place();
        members.optionalNumber(data, 'content_index', where);
        members.optionalNumber(data, 'summary_index', where);
        const part = members.optionalRecord(data, 'part', where);
        if (part !== undefined) {
          members.optionalString(part, 'type', `the part of ${where}`);
          members.optionalString(part, 'text', `the part of ${where}`);
          members.optionalString(part, 'refusal', `the part of ${where}`);
        }
        break;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
      case 'response.function_call_arguments.delta':
      case 'response.mcp_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        place();
        members.optionalNumber(data, 'content_index', where);
        members.optionalNumber(data, 'summary_index', where);
        members.requiredString(data, 'delta', where);
        break;
      case 'response.output_text.done':
      case 'response.refusal.done':
      case 'response.reasoning_summary_text.done':
      case 'response.reasoning_text.done':
      case 'response.function_call_arguments.done':
      case 'response.custom_tool_call_input.done':
        place();
        members.optionalNumber(data, 'content_index', where);
        members.optionalNumber(data, 'summary_index', where);
        for (const key of ['text', 'refusal', 'arguments', 'input', 'call_id', 'name']) members.optionalString(data, key, where);
        break;
      case 'response.output_text.annotation.added':
        place();
        members.optionalNumber(data, 'content_index', where);
        break;
      default:
        // `error`, and event types added later: read leniently, or not at all.
        return;
    }
    members.optionalNumber(data, 'sequence_number', where);
  }

  function fail(error: JsonRecord, raw: JsonRecord): never {
    const code = nonEmptyStringAt(error, 'code') ?? (typeof error.code === 'number' ? String(error.code) : undefined);
    throw new ProviderError(
      'openai-responses',
      nonEmptyStringAt(error, 'type') ?? code ?? 'error',
      nonEmptyStringAt(error, 'message') ?? 'OpenAI Responses reported an error in the stream',
      { code, cause: raw },
    );
  }

  return {
    push(data: unknown, event?: string): StreamEvent[] {
      if (!isRecord(data)) return [];
      const type = stringAt(data, 'type') ?? event;
      checkMembers(type, data);
      checkSequence(data);
      const out: StreamEvent[] = [];
      switch (type) {
        case 'response.created':
        case 'response.in_progress':
        case 'response.queued': {
          const response = recordAt(data, 'response');
          responseInfo = { responseId: stringAt(response, 'id'), model: stringAt(response, 'model') };
          break;
        }
        case 'response.output_item.added':
          onItem(data, false, out);
          break;
        case 'response.output_item.done':
          onItem(data, true, out);
          break;
        case 'response.content_part.added': {
          const item = ensureItem(data, partItemType(data));
          if (item?.type === 'message') {
            const part = ensurePart(item, data);
            if (stringAt(recordAt(data, 'part'), 'type') === 'refusal') part.refusal = true;
          }
          break;
        }
        case 'response.output_text.delta':
        case 'response.refusal.delta': {
          const item = ensureItem(data, 'message');
          const text = stringAt(data, 'delta');
          if (item === undefined || !text) break;
          const part = ensurePart(item, data);
          if (type === 'response.refusal.delta') part.refusal = true;
          if (holds(item, part.settled)) break;
          part.emitted += text;
          out.push({ type: 'part', index: part.slot, part: { type: part.refusal ? 'refusal' : 'message', text } });
          break;
        }
        case 'response.output_text.done':
        case 'response.refusal.done': {
          const item = ensureItem(data, 'message');
          if (item === undefined) break;
          const part = ensurePart(item, data);
          if (type === 'response.refusal.done') part.refusal = true;
          completePart(part, stringAt(data, type === 'response.refusal.done' ? 'refusal' : 'text'), out);
          break;
        }
        case 'response.output_text.annotation.added': {
          const item = ensureItem(data, 'message');
          if (item !== undefined && data.annotation !== undefined) ensurePart(item, data).annotations.push(data.annotation);
          break;
        }
        case 'response.content_part.done': {
          const item = ensureItem(data, partItemType(data));
          if (item === undefined) break;
          const source = recordAt(data, 'part');
          if (item.type === 'message') {
            const part = ensurePart(item, data);
            const refusal = stringAt(source, 'refusal');
            if (refusal !== undefined) part.refusal = true;
            completePart(part, refusal ?? stringAt(source, 'text'), out);
            const annotations = source?.annotations;
            // After a gap, an `annotation.added` may be among the lost events: the done event's list is whole.
            if (Array.isArray(annotations) && (item.gap !== undefined || (part.annotations.length === 0 && annotations.length > 0))) {
              part.annotations = annotations;
            }
            flushPart(item, part, out);
          } else if (item.type === 'reasoning' && item.slot !== undefined) {
            completeReasoning(item, item.slot, `c${numberAt(data, 'content_index') ?? 0}`, stringAt(source, 'text'), out);
          }
          break;
        }
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta': {
          const item = ensureItem(data, 'reasoning');
          const text = stringAt(data, 'delta');
          if (item?.slot === undefined || !text) break;
          const summaryIndex = numberAt(data, 'summary_index') ?? 0;
          const summary = type === 'response.reasoning_summary_text.delta';
          const key = summary ? `s${summaryIndex}` : `c${numberAt(data, 'content_index') ?? 0}`;
          if (holds(item, item.settled.has(key))) {
            item.held.add(key);
            break;
          }
          item.emitted.set(key, (item.emitted.get(key) ?? '') + text);
          out.push({
            type: 'part',
            index: item.slot,
            part: { type: 'reasoning', text },
            ...(summary ? { metadata: { summaryIndex } } : {}),
          });
          break;
        }
        case 'response.reasoning_summary_text.done':
        case 'response.reasoning_summary_part.done':
        case 'response.reasoning_text.done': {
          const item = ensureItem(data, 'reasoning');
          if (item?.slot === undefined) break;
          const summaryIndex = numberAt(data, 'summary_index') ?? 0;
          const summary = type !== 'response.reasoning_text.done';
          const key = summary ? `s${summaryIndex}` : `c${numberAt(data, 'content_index') ?? 0}`;
          const full = type === 'response.reasoning_summary_part.done' ? stringAt(recordAt(data, 'part'), 'text') : stringAt(data, 'text');
          completeReasoning(item, item.slot, key, full, out, summary ? { summaryIndex } : undefined);
          break;
        }
        case 'response.function_call_arguments.delta':
        case 'response.mcp_call_arguments.delta': {
          // A remote MCP call's arguments stream as a function call's do.
          const mcp = type === 'response.mcp_call_arguments.delta';
          const item = ensureItem(data, mcp ? 'mcp_call' : 'function_call');
          const chunk = stringAt(data, 'delta');
          if (item?.slot === undefined || (mcp && item.type !== 'mcp_call') || !chunk || holds(item, item.settled.has('args'))) break;
          item.emitted.set('args', (item.emitted.get('args') ?? '') + chunk);
          out.push({ type: 'part', index: item.slot, part: { type: 'tool-call-arguments', chunk } });
          break;
        }
        case 'response.custom_tool_call_input.delta': {
          // A custom tool's input is free text: it streams as the JSON string that is its arguments.
          const item = ensureItem(data, 'custom_tool_call');
          const delta = stringAt(data, 'delta');
          if (item?.slot === undefined || item.type !== 'custom_tool_call' || !delta || holds(item, item.settled.has('args'))) break;
          let text = (item.emitted.get('pendingInput') ?? '') + delta;
          // A high surrogate waits for its pair: escaped alone it would not be the final text's start.
          const last = text.charCodeAt(text.length - 1);
          const held = last >= 0xd800 && last <= 0xdbff ? text.slice(-1) : '';
          if (held !== '') text = text.slice(0, -1);
          item.emitted.set('pendingInput', held);
          const emitted = item.emitted.get('args') ?? '';
          const chunk = (emitted === '' ? '"' : '') + JSON.stringify(text).slice(1, -1);
          if (chunk === '') break;
          item.emitted.set('args', emitted + chunk);
          out.push({ type: 'part', index: item.slot, part: { type: 'tool-call-arguments', chunk } });
          break;
        }
        case 'response.custom_tool_call_input.done': {
          const item = ensureItem(data, 'custom_tool_call');
          const input = stringAt(data, 'input');
          if (item?.slot === undefined || item.type !== 'custom_tool_call' || input === undefined || unnamed(item)) break;
          completeArguments(item, item.slot, JSON.stringify(input), out);
          break;
        }
        case 'response.function_call_arguments.done': {
          const item = ensureItem(data, 'function_call');
          if (item?.slot === undefined) break;
          startCall(item, data, out);
          if (unnamed(item)) break;
          completeArguments(item, item.slot, stringAt(data, 'arguments'), out);
          break;
        }
        case 'response.completed':
          finish(recordAt(data, 'response'), 'completed', out);
          break;
        case 'response.incomplete':
          finish(recordAt(data, 'response'), 'incomplete', out);
          break;
        case 'response.failed': {
          const response = recordAt(data, 'response');
          fail(recordAt(response, 'error') ?? { type: 'response.failed', message: 'The response failed' }, data);
          break;
        }
        case 'error':
          // Documented: `{type: "error", code, message, param}`; observed: `{type: "error", error: {type, code, message}}`.
          fail(recordAt(data, 'error') ?? { code: data.code, message: data.message }, data);
          break;
        default:
          break;
      }
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      closeAll(out);
      return out;
    },

    /** After `response.completed` / `response.incomplete` nothing belongs to the response. */
    ended: () => finished,
  };
}
