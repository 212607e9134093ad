/**
 * The adapter of OpenAI Chat Completions streams, and of every server that speaks the same
 * wire format (OpenRouter, Groq, DeepSeek, xAI, Alibaba DashScope, Writer, Mistral, llama.cpp,
 * vLLM, Ollama's `/v1`, …), with each one's quirks absorbed.
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { EventMetadata, FinishReason, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, partEvent, providerErrorOf } from './adapter.ts';
import { type JsonRecord, isRecord, jsonTextOf, membersOf, nonEmptyString, nonEmptyStringAt, numberAt, recordAt, usageOf } from './json-access.ts';
import { defaultToolCallId, type ToolCallIdFactory } from './tool-call-id.ts';

/** Options of {@link createOpenAIChatAdapter}. */
export interface OpenAIChatAdapterOptions {
  /**
   * Makes the id of a tool call the server sent none for (some llama.cpp and vLLM builds).
   * @default defaultToolCallId — `call_<position>_<name>`
   */
  readonly createToolCallId?: ToolCallIdFactory;
}

/** The text streams of one choice; a refusal is a slot of its own, of `refusal` parts. */
type TextStream = 'message' | 'reasoning' | 'refusal';

interface ToolCallState {
  readonly slot: number;
  readonly position: number;
  id: string;
  name: string;
  /** The id and name of the last `tool-call-start` emitted (`undefined`: none yet). */
  startedId: string | undefined;
  startedName: string | undefined;
  /** Where the arguments sent so far stand as JSON text: complete once a whole value closed. */
  readonly json: JsonScan;
}

/**
 * A scan of argument text kept to know whether the arguments form a complete JSON value (an
 * object or array closed at depth 0): three numbers, whatever the length of the arguments.
 */
interface JsonScan {
  depth: number;
  /** 0: outside a string; 1: inside one; 2: inside one, right after a backslash. */
  string: 0 | 1 | 2;
  closed: boolean;
}

function scanJson(scan: JsonScan, text: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (scan.string === 2) scan.string = 1;
    else if (scan.string === 1) {
      if (c === 0x5c) scan.string = 2;
      else if (c === 0x22) scan.string = 0;
    } else if (c === 0x22) scan.string = 1;
    else if (c === 0x7b || c === 0x5b) scan.depth++;
    else if (c === 0x7d || c === 0x5d) {
      scan.depth--;
      if (scan.depth === 0) scan.closed = true;
    }
  }
}

interface OpenSlot {
  readonly slot: number;
  readonly toolCall?: ToolCallState;
}

interface ChoiceState {
  readonly choiceIndex: number;
  readonly textSlots: Map<TextStream, number>;
  /** Tool calls by the wire's `tool_calls[].index`. */
  readonly toolCallsByIndex: Map<number, ToolCallState>;
  readonly toolCalls: ToolCallState[];
  lastToolCall: ToolCallState | undefined;
  /** Slots with parts and no flush yet, in slot order. */
  openSlots: OpenSlot[];
  finishReason: string | undefined;
}

/** The key under which the deprecated `delta.function_call` is kept (it has no index). */
const LEGACY_FUNCTION_CALL_INDEX = -1;

/**
 * Create the adapter of the `'openai-chat'` wire format: one parsed `data:` object
 * (`chat.completion.chunk`) per {@link ProviderAdapter.push}, with the SSE event name if any.
 *
 * Content slots (`index` of the events) are numbered in order of first appearance: one per text
 * stream (`content`; `reasoning_content` or `reasoning`; `refusal`) and one per tool call, for each
 * choice. The first part of every slot and its flush carry `metadata.choiceIndex`.
 *
 * - `delta.refusal` gives `refusal` parts, in a slot of their own (a `refusal` event downstream,
 *   not message text). The `finish_reason` stays the server's (`stop`).
 *
 * - Tool-call fragments are keyed by `index`; without an index (Mistral, old Ollama), by `id`, else
 *   they continue the last call. An index reused with a different non-empty id starts a new call.
 *   A non-empty id or name wins, `""` and `null` never overwrite, a repeated name is a no-op.
 *   `tool-call-start` is emitted when the first fragment arrives and again when it learns an id or
 *   name it did not have (first non-empty value wins per field downstream).
 * - Argument pieces are emitted verbatim. A call whose arguments are empty emits no
 *   `tool-call-arguments` at all: downstream reads no chunks as `{}`.
 * - Every slot of a choice is flushed at its `finish_reason`, except a tool call whose arguments
 *   are not yet one complete JSON value: some compatible servers send a call's last argument
 *   delta after the `finish_reason`, so the call stays open and is flushed when its arguments
 *   close, or by `end()`. Slots still open when the input ends are flushed by `end()`, truncated
 *   or not (the JSON parser downstream decides completeness).
 *   A call that never got an id gets one from `createToolCallId` before its flush.
 * - `finished` is held until every choice has a `finish_reason` and a chunk carries usage (the
 *   finish chunk itself, or the trailing `choices: []` chunk of `stream_options.include_usage`),
 *   and no call is held open for a late argument delta, or else emitted by `end()` with the last
 *   usage seen, if any; never if the server sent no `finish_reason`. Its reason is choice 0's;
 *   with several choices, `metadata.finishReasons` maps each choice index to its raw reason.
 * - Reasoning continuity tokens (OpenRouter `reasoning_details` with a signature or encrypted
 *   data, Gemini's `extra_content.google.thought_signature`) are kept in part metadata.
 * - Unknown fields (`obfuscation`, `x_groq`, Writer's `message`, …) are ignored.
 *
 * @throws ProviderError for an `event: error` (Groq) or a chunk with a top-level `error`
 *   (OpenRouter), and with type `invalid-format` for a record that is not a chunk object, or a
 *   chunk whose members are of the wrong type: `choices` not an array or a choice not an object;
 *   a choice's `index` not a number, `delta` not an object, `finish_reason` not a string; a
 *   delta's `content` neither a string nor an array, `reasoning_content`, `reasoning` or
 *   `refusal` not a string, `tool_calls` not an array or a tool call not an object; a tool call's
 *   `index` not a number, `id` not a string, `function` not an object, its `name` not a string
 *   and its `arguments` neither a string nor an object (or an object nested too deeply to write
 *   as JSON text); `usage` not an object. `null` reads as absent everywhere (compatible servers
 *   send `"content": null`, `"tool_calls": null`, `"arguments": null`, `"id": null`), and a tool
 *   call without an `index` (Mistral) is keyed as above.
 */
export function createOpenAIChatAdapter(options: OpenAIChatAdapterOptions = {}): ProviderAdapter {
  const members = membersOf('openai-chat');
  const createToolCallId = options.createToolCallId ?? defaultToolCallId;
  const choices = new Map<number, ChoiceState>();
  let nextSlot = 0;
  let nextPosition = 0;
  let usage: Usage | undefined;
  let finishedSent = false;

  function choiceState(choiceIndex: number): ChoiceState {
    let state = choices.get(choiceIndex);
    if (!state) {
      state = {
        choiceIndex,
        textSlots: new Map(),
        toolCallsByIndex: new Map(),
        toolCalls: [],
        lastToolCall: undefined,
        openSlots: [],
        finishReason: undefined,
      };
      choices.set(choiceIndex, state);
    }
    return state;
  }

  function emitText(state: ChoiceState, stream: TextStream, text: string, extra: EventMetadata | undefined, out: StreamEvent[]): void {
    let slot = state.textSlots.get(stream);
    let metadata = extra;
    if (slot === undefined) {
      slot = nextSlot++;
      state.textSlots.set(stream, slot);
      state.openSlots.push({ slot });
      metadata = { choiceIndex: state.choiceIndex, ...extra };
    }
    out.push(partEvent(slot, { type: stream, text }, metadata));
  }

  function emitStart(state: ChoiceState, call: ToolCallState, extra: EventMetadata | undefined, out: StreamEvent[]): void {
    const first = call.startedId === undefined;
    const metadata = first ? { choiceIndex: state.choiceIndex, ...extra } : extra;
    out.push(partEvent(call.slot, { type: 'tool-call-start', toolCallId: call.id, toolName: call.name }, metadata));
    call.startedId = call.id;
    call.startedName = call.name;
  }

  function flushSlot(state: ChoiceState, open: OpenSlot, out: StreamEvent[]): void {
    const call = open.toolCall;
    if (call) {
      if (call.id === '') call.id = createToolCallId({ name: call.name, position: call.position });
      if (call.startedId === undefined || call.startedId === '' || (call.startedName === '' && call.name !== '')) {
        emitStart(state, call, undefined, out);
      }
      if (state.lastToolCall === call) state.lastToolCall = undefined;
      for (const [key, value] of state.toolCallsByIndex) if (value === call) state.toolCallsByIndex.delete(key);
    } else {
      for (const [stream, slot] of state.textSlots) if (slot === open.slot) state.textSlots.delete(stream);
    }
    out.push({ type: 'flush', index: open.slot, metadata: { choiceIndex: state.choiceIndex } });
  }

  /**
   * Flush the slots of a choice that has its `finish_reason`, except a tool call whose arguments
   * are not yet a complete JSON value: some compatible servers send a call's last argument delta
   * after the `finish_reason`, so that call stays open for it (until it completes, the `finished`
   * or the end of input).
   */
  function flushChoice(state: ChoiceState, out: StreamEvent[]): void {
    const open = state.openSlots;
    state.openSlots = open.filter((slot) => slot.toolCall !== undefined && !slot.toolCall.json.closed);
    for (const slot of open) if (!state.openSlots.includes(slot)) flushSlot(state, slot, out);
  }

  /** Flush every slot still open, in slot order (before `finished`, and at the end of input). */
  function flushEverything(out: StreamEvent[]): void {
    const open = [...choices.values()]
      .flatMap((state) => state.openSlots.map((slot) => ({ state, slot })))
      .sort((a, b) => a.slot.slot - b.slot.slot);
    for (const state of choices.values()) state.openSlots = [];
    for (const { state, slot } of open) flushSlot(state, slot, out);
  }

  function newToolCall(state: ChoiceState, toolIndex: number | undefined): ToolCallState {
    const call: ToolCallState = {
      slot: nextSlot++,
      position: nextPosition++,
      id: '',
      name: '',
      startedId: undefined,
      startedName: undefined,
      json: { depth: 0, string: 0, closed: false },
    };
    state.toolCalls.push(call);
    state.openSlots.push({ slot: call.slot, toolCall: call });
    if (toolIndex !== undefined) state.toolCallsByIndex.set(toolIndex, call);
    state.lastToolCall = call;
    return call;
  }

  /** Find the call a fragment continues, or open a new one (WIRE-FORMATS §8 keying rules). */
  function locateToolCall(state: ChoiceState, toolIndex: number | undefined, id: string | undefined, out: StreamEvent[]): ToolCallState {
    if (toolIndex !== undefined) {
      const known = state.toolCallsByIndex.get(toolIndex);
      if (known && !(id !== undefined && known.id !== '' && known.id !== id)) return known;
      if (known) {
        // The same index with a different id (sglang): the earlier call is complete.
        const open = state.openSlots.find((s) => s.toolCall === known);
        if (open) {
          state.openSlots = state.openSlots.filter((s) => s !== open);
          flushSlot(state, open, out);
        }
      }
      return newToolCall(state, toolIndex);
    }
    if (id !== undefined) {
      const known = state.toolCalls.find((c) => c.id === id && state.openSlots.some((s) => s.toolCall === c));
      return known ?? newToolCall(state, undefined);
    }
    return state.lastToolCall ?? newToolCall(state, undefined);
  }

  function handleToolFragment(state: ChoiceState, fragment: JsonRecord, toolIndex: number | undefined, out: StreamEvent[]): void {
    const fn = members.optionalRecord(fragment, 'function', 'a tool call') ?? {};
    // llama.cpp before PR #13800 put the id inside `function`.
    const id = nonEmptyString(members.optionalString(fragment, 'id', 'a tool call')) ?? nonEmptyStringAt(fn, 'id');
    const name = nonEmptyString(members.optionalString(fn, 'name', 'the function of a tool call'));
    const rawArguments = fn['arguments'];
    let args: string;
    if (rawArguments === undefined || rawArguments === null) args = '';
    else if (typeof rawArguments === 'string') args = rawArguments;
    else if (isRecord(rawArguments)) args = jsonTextOf('openai-chat', rawArguments, 'the arguments of a tool call');
    else throw members.invalid('a tool call whose `function.arguments` is neither a string nor an object', fragment);
    const signature = nonEmptyStringAt(recordAt(recordAt(fragment, 'extra_content'), 'google'), 'thought_signature');
    let extra: EventMetadata | undefined = signature === undefined ? undefined : { thoughtSignature: signature };

    const call = locateToolCall(state, toolIndex, id, out);
    if (id !== undefined && call.id === '') call.id = id;
    if (name !== undefined && call.name === '') call.name = name;
    const learned =
      call.startedId !== undefined && ((call.id !== '' && call.startedId === '') || (call.name !== '' && call.startedName === ''));
    const first = call.startedId === undefined && (call.id !== '' || call.name !== '' || args !== '' || extra !== undefined);
    if (learned || first) {
      emitStart(state, call, extra, out);
      extra = undefined;
    }
    if (args !== '') {
      scanJson(call.json, args);
      out.push(partEvent(call.slot, { type: 'tool-call-arguments', chunk: args }, extra));
      // The late last delta of a call held open past its choice's finish_reason.
      if (state.finishReason !== undefined && call.json.closed) flushChoice(state, out);
    } else if (extra !== undefined) emitStart(state, call, extra, out);
  }

  function handleContent(state: ChoiceState, content: unknown, out: StreamEvent[]): void {
    if (typeof content === 'string') {
      if (content !== '') emitText(state, 'message', content, undefined, out);
      return;
    }
    if (content === undefined || content === null) return;
    if (!Array.isArray(content)) throw members.invalid('the delta of a choice whose `content` is neither a string nor an array', content);
    // Mistral: typed content chunks, `thinking` holding text chunks of its own.
    for (const chunk of content) {
      if (!isRecord(chunk)) continue;
      if (chunk['type'] === 'text') {
        const text = nonEmptyStringAt(chunk, 'text');
        if (text !== undefined) emitText(state, 'message', text, undefined, out);
      } else if (chunk['type'] === 'thinking') {
        const thinking = chunk['thinking'];
        const pieces = typeof thinking === 'string' ? [thinking] : Array.isArray(thinking) ? thinking : [];
        for (const piece of pieces) {
          const text = typeof piece === 'string' ? nonEmptyString(piece) : isRecord(piece) ? nonEmptyStringAt(piece, 'text') : undefined;
          if (text !== undefined) emitText(state, 'reasoning', text, undefined, out);
        }
      }
    }
  }

  function handleDelta(state: ChoiceState, delta: JsonRecord, out: StreamEvent[]): void {
    // vLLM may send the same text as both `reasoning_content` and `reasoning`: take one.
    const reasoning =
      nonEmptyString(members.optionalString(delta, 'reasoning_content', 'the delta of a choice')) ??
      nonEmptyString(members.optionalString(delta, 'reasoning', 'the delta of a choice'));
    const details = Array.isArray(delta['reasoning_details'])
      ? delta['reasoning_details'].filter(
          (d) => isRecord(d) && (d['type'] !== 'reasoning.text' || nonEmptyStringAt(d, 'signature') !== undefined),
        )
      : [];
    const continuity: EventMetadata | undefined = details.length > 0 ? { reasoningDetails: details } : undefined;
    if (reasoning !== undefined || continuity !== undefined) emitText(state, 'reasoning', reasoning ?? '', continuity, out);

    handleContent(state, delta['content'], out);

    const refusal = nonEmptyString(members.optionalString(delta, 'refusal', 'the delta of a choice'));
    if (refusal !== undefined) emitText(state, 'refusal', refusal, undefined, out);

    for (const fragment of members.optionalArray(delta, 'tool_calls', 'the delta of a choice') ?? []) {
      if (!isRecord(fragment)) throw members.invalid('the delta of a choice whose `tool_calls` holds a tool call that is not an object', delta);
      // Mistral sends whole calls without an index: keyed by id (see above).
      const toolIndex = members.optionalNumber(fragment, 'index', 'a tool call');
      handleToolFragment(state, fragment, toolIndex, out);
    }
    const legacy = members.optionalRecord(delta, 'function_call', 'the delta of a choice');
    if (legacy) handleToolFragment(state, { function: legacy }, LEGACY_FUNCTION_CALL_INDEX, out);
  }

  function finishedEvent(): StreamEvent {
    const finished = [...choices.values()].filter((c) => c.finishReason !== undefined).sort((a, b) => a.choiceIndex - b.choiceIndex);
    const rawReason = finished[0]?.finishReason ?? '';
    const metadata: EventMetadata | undefined =
      choices.size > 1 ? { finishReasons: Object.fromEntries(finished.map((c) => [String(c.choiceIndex), c.finishReason])) } : undefined;
    return {
      type: 'finished',
      reason: mapFinishReason(rawReason),
      rawReason,
      ...(usage !== undefined ? { usage } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    };
  }

  return {
    push(data, event) {
      if (!isRecord(data)) {
        if (event === 'error') throw chatError(data);
        throw new ProviderError('openai-chat', 'invalid-format', 'expected a chat.completion.chunk object');
      }
      if (event === 'error') throw chatError(data['error'] ?? data);
      if (data['error'] !== undefined && data['error'] !== null) throw chatError(data['error']);

      const out: StreamEvent[] = [];
      for (const choice of members.optionalArray(data, 'choices', 'a chat.completion.chunk') ?? []) {
        if (!isRecord(choice)) throw members.invalid('a chat.completion.chunk whose `choices` holds a choice that is not an object', data);
        const state = choiceState(members.optionalNumber(choice, 'index', 'a choice') ?? 0);
        const delta = members.optionalRecord(choice, 'delta', 'a choice');
        if (delta) handleDelta(state, delta, out);
        const finishReason = nonEmptyString(members.optionalString(choice, 'finish_reason', 'a choice'));
        if (finishReason !== undefined) {
          state.finishReason ??= finishReason;
          flushChoice(state, out);
        }
      }

      const rawUsage = members.optionalRecord(data, 'usage', 'a chat.completion.chunk') ?? recordAt(recordAt(data, 'x_groq'), 'usage');
      if (rawUsage) usage = chatUsage(rawUsage);

      // Usage from a chunk before the last finish_reason may not be final (vLLM's continuous usage
      // stats): wait for a chunk that has both, or comes after, else for end().
      const states = [...choices.values()];
      // A call held open for a late argument delta holds the finish too (see flushChoice).
      if (
        !finishedSent &&
        rawUsage !== undefined &&
        states.length > 0 &&
        states.every((c) => c.finishReason !== undefined && c.openSlots.length === 0)
      ) {
        finishedSent = true;
        out.push(finishedEvent());
      }
      return out;
    },

    end() {
      const out: StreamEvent[] = [];
      flushEverything(out);
      if (!finishedSent && [...choices.values()].some((c) => c.finishReason !== undefined)) {
        finishedSent = true;
        out.push(finishedEvent());
      }
      return out;
    },
  };
}

/** Normalize a chat `finish_reason`, including the values compatible servers use. */
function mapFinishReason(raw: string): FinishReason {
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'length':
    case 'model_length':
    case 'max_tokens':
      return 'length';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

/** Usage of a chunk (`usage`, or Groq's `x_groq.usage`). */
function chatUsage(raw: JsonRecord): Usage {
  return usageOf({
    inputTokens: numberAt(raw, 'prompt_tokens'),
    outputTokens: numberAt(raw, 'completion_tokens'),
    totalTokens: numberAt(raw, 'total_tokens'),
    reasoningTokens: numberAt(recordAt(raw, 'completion_tokens_details'), 'reasoning_tokens'),
    cachedInputTokens:
      numberAt(recordAt(raw, 'prompt_tokens_details'), 'cached_tokens') ?? numberAt(raw, 'prompt_cache_hit_tokens'),
    raw,
  });
}

/** The error of an `event: error` or of a chunk's `error` member. */
function chatError(error: unknown): ProviderError {
  return providerErrorOf('openai-chat', error, ['type', 'status'], 'the server reported an error in the stream');
}
