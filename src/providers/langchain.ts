/**
 * The adapter of LangChain.js streams: the `AIMessageChunk`s of a chat model's `.stream()`,
 * LangGraph's `[chunk, metadata]` tuples (`streamMode: 'messages'`), `streamEvents` events, and
 * the content-block events of `@langchain/core` 1.4's `streamEvents()`, so that a LangChain user
 * pipes them into argstream's stages like a provider's body.
 *
 * Objects are recognised by their serialisable fields, never with `instanceof`: a chunk made by
 * another copy of `@langchain/core`, one parsed from JSON (a LangGraph server's `messages` event,
 * `JSON.stringify(chunk)`) and a live instance read the same.
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { FinishReason, JsonValue, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, type ProviderDefinition, partEvent } from './adapter.ts';
import { type JsonRecord, isRecord, jsonTextOf, membersOf, metadataOf, nonEmptyStringAt, numberAt, recordAt, stringAt, usageOf } from './json-access.ts';

/** Options of {@link createLangChainAdapter} (none yet). */
export interface LangChainAdapterOptions {}

/**
 * The longest argument text held for a tool call whose name has not arrived yet, in UTF-16 code
 * units (`ProviderEventStream`'s default `maxBufferedBytes`).
 */
const MAX_HELD_ARGUMENTS = 16 * 1024 * 1024;

/** `type`s of an AI message (a live chunk's, a Python server's, the last element of a serialized one's `id`). */
const AI_TYPES: ReadonlySet<string> = new Set(['ai', 'AIMessageChunk', 'AIMessage']);

/**
 * Raw finish reasons, lower-cased, by the {@link FinishReason} they mean: every integration's
 * spelling (OpenAI, Anthropic, Gemini, Bedrock, Ollama, Cohere, Mistral, the Responses API's
 * status and `incomplete_details.reason`, the content-block events' own). Others are `other`.
 */
const FINISH_REASONS: ReadonlyMap<string, FinishReason> = new Map(
  (
    [
      ['stop', 'stop end_turn stop_sequence eos completed complete'],
      ['tool-calls', 'tool_calls function_call tool_use tool_call'],
      ['length', 'length max_tokens model_length model_context_window_exceeded max_output_tokens'],
      ['content-filter', 'content_filter content_filtered guardrail_intervened safety recitation blocklist prohibited_content spii'],
      ['refusal', 'refusal'],
      ['error', 'error failed timeout malformed_function_call'],
    ] as const
  ).flatMap(([reason, raws]) => raws.split(' ').map((raw) => [raw, reason] as const)),
);

/** One content slot of a message: its text, its reasoning, or a tool call. */
interface Slot {
  readonly kind: 'message' | 'reasoning' | 'call';
  /** Its index in the events; a call has one once it is named. */
  index: number | undefined;
  /** Text or argument text emitted so far (UTF-16 code units). */
  emitted: number;
  /** A reasoning block's id (v1), whose whole text may come again; a call's id. */
  id: string;
  name: string;
  /** The text kept: a reasoning block's with an id, a call's streamed by the protocol's snapshots. */
  kept: string | undefined;
  signature: string | undefined;
  /** The final text of a reasoning block that did not continue the streamed text. */
  finalText: string | undefined;
  providerExecuted: boolean;
  /** A custom tool (`isCustomTool`): its raw input streams as `{"input": "<text>"}`, as LangChain gives it the tool. */
  custom: boolean;
  /** Argument text that came before the call's name. */
  readonly held: string[];
  heldLength: number;
  /** A custom tool's input: a high surrogate held until its pair. */
  pendingHigh: string;
  /** Arguments sent whole, for a call that streamed none. */
  wholeArgs: string | undefined;
  /** The call failed (an `invalid_tool_call`). */
  error: ProviderError | undefined;
  done: boolean;
}

/** A LangGraph superstep: the graph (its checkpoint namespace without the task's own segment) and the step. */
interface GraphPlace {
  readonly graph: string;
  readonly step: number;
}

/** What the adapter knows of one AI message (one model call). */
interface Message {
  /** Its provider id (`msg_…`, `chatcmpl-…`) and the id LangChain gives a traced run's chunks that had none (`run-<uuid>`). */
  providerId: string | undefined;
  fallbackId: string | undefined;
  /** Its slots by key (`message|<index>`, `call|<index>`, `p<index>` for the protocol's blocks). */
  readonly slots: Map<string, Slot>;
  /** Open slots, in the order they opened. */
  readonly order: Slot[];
  /** Calls the provider runs, announced by a content block at their index: `[id, name]`. */
  readonly announced: Map<string, readonly [string, string]>;
  finished: boolean;
  rawReason: string | undefined;
  applicationCalls: boolean;
  /** A chunk of it was read (its whole message, when it comes, only ends it). */
  streamed: boolean;
  /** `usage_metadata` summed over its chunks (as `concat` sums it), or the protocol's last snapshot. */
  usage: Record<string, unknown> | undefined;
  /**
   * The LangGraph superstep that made it. LangGraph's `messages` mode drops some integrations'
   * finish reasons (ChatOpenAI keeps its own in the generation's info), so such a message ends
   * when its graph reaches a later step (every task of a step ends before the next begins), or
   * with the stream.
   */
  graph: GraphPlace | undefined;
}

/** Where a record came from: a run id (`streamEvents`' `run_id`, LangGraph's `metadata.run_id`), a LangGraph step. */
interface Source {
  readonly runId?: string | undefined;
  readonly graph?: GraphPlace | undefined;
}

/** `index` as a key: LangChain compares indexes with `===`, so `0` and `"0"` differ. */
function indexKey(index: unknown): string | undefined {
  return typeof index === 'number' || typeof index === 'string' ? `${typeof index}${index}` : undefined;
}

/** `usage` added into `into`: numbers summed, and the numbers of its detail objects. */
function addUsage(into: Record<string, unknown>, usage: JsonRecord): void {
  for (const [key, value] of Object.entries(usage)) {
    // A `__proto__` member (JSON.parse makes one) would set the prototype of `into`, not a count.
    if (key === '__proto__') continue;
    const before = into[key];
    if (typeof value === 'number') into[key] = (typeof before === 'number' ? before : 0) + value;
    else if (isRecord(value)) addUsage((into[key] = isRecord(before) ? { ...before } : {}) as Record<string, unknown>, value);
  }
}

/**
 * A message's raw finish reason, where LangChain's integrations put it: `finish_reason` (OpenAI,
 * Mistral, Groq, Vertex), `stop_reason` (Anthropic, in `additional_kwargs` of its
 * `message_delta`'s chunk), `finishReason` (Google GenAI), `stopReason` (Bedrock), Ollama's
 * `done_reason` with `done: true`, a Responses API response's `status` (`lenient`: without its
 * `object: 'response'`, as the content-block events' `responseMetadata` has it).
 */
function finishReasonOf(fields: JsonRecord | undefined, lenient = false): string | undefined {
  const metadata = recordAt(fields, 'response_metadata');
  const named =
    nonEmptyStringAt(metadata, 'finish_reason') ??
    nonEmptyStringAt(metadata, 'stop_reason') ??
    nonEmptyStringAt(recordAt(fields, 'additional_kwargs'), 'stop_reason') ??
    nonEmptyStringAt(metadata, 'finishReason') ??
    nonEmptyStringAt(metadata, 'stopReason');
  if (named !== undefined) return named;
  if (metadata?.['done'] === true) return nonEmptyStringAt(metadata, 'done_reason') ?? 'stop';
  const status = nonEmptyStringAt(metadata, 'status');
  if (!(lenient || stringAt(metadata, 'object') === 'response')) return undefined;
  if (status === 'incomplete') return nonEmptyStringAt(recordAt(metadata, 'incomplete_details'), 'reason') ?? status;
  return status === 'completed' || status === 'failed' || status === 'cancelled' ? status : undefined;
}

/**
 * Creates the synchronous core that turns LangChain.js stream objects into {@link StreamEvent}s.
 * Each record is one object as LangChain yields it; text and bytes are refused
 * (`ProviderEventStream` errors with code `'invalid-input'`).
 *
 * **What is read.** An AI message chunk is an object whose `type` is `'ai'` (a live
 * `AIMessageChunk`, a LangGraph JS server's JSON) or `'AIMessageChunk'` (a Python server's), or
 * that has a `tool_call_chunks` array; LangChain's serialized form `{lc: 1, type: 'constructor',
 * id: [..., 'AIMessageChunk'], kwargs}` (what `JSON.stringify(chunk)` writes) is read through its
 * `kwargs`. Around it:
 * - `[chunk, metadata]` (LangGraph `streamMode: 'messages'`), `['messages', [chunk, metadata]]`
 *   and `[namespace, 'messages', …]` (several modes, subgraphs); the parts of other modes
 *   (`['updates', …]`) are skipped;
 * - `{event: 'messages', data: [chunk, metadata]}` (`@langchain/langgraph-sdk`'s `runs.stream`
 *   with `streamMode: 'messages-tuple'`; `'messages|<namespace>'` too) and `{event: 'events',
 *   data}` wrapping a `streamEvents` event; the SDK's other parts are skipped;
 * - `streamEvents` (v1, v2) events: `on_chat_model_stream`'s `data.chunk`, keyed by `run_id`;
 *   `on_chat_model_end` ends that run (its `data.output` is read whole when the run streamed
 *   nothing); other events are skipped;
 * - the content-block events of `@langchain/core` ≥ 1.4's `model.streamEvents(input)`
 *   (`message-start`, `content-block-start` / `-delta` / `-finish`, `usage`, `message-finish`;
 *   `provider` is skipped), bare or as LangGraph's `[event, metadata]` (`version: 'v3'`, after its
 *   checkpoint envelope), whose `metadata.run_id` keys them. A `block-delta` carries a call's
 *   arguments so far: what it adds is emitted.
 *
 * **Messages.** A stream may hold several AI messages (a LangGraph agent calls the model, runs a
 * tool, calls it again), interleaved or not. A chunk belongs to the message of its `id`, one
 * without to the last message read. A message has at most one provider id and one run id
 * (`run-<uuid>` or `lc_run--…`, which LangChain gives the chunks a provider left without one when
 * callbacks are attached), so `msg_1…` then `run-7…` is one message, and a second provider id
 * starts another. A `streamEvents` run is a message of its own.
 *
 * **Content.** String `content` is message text; in content arrays, `text` blocks are text,
 * `thinking` (Anthropic, v0) and `reasoning` (v1, OpenAI Responses) blocks reasoning, with their
 * `signature` (also from v1's `non_standard` `thinking` block) on the reasoning slot's flush
 * (`{signature}`); a slot per block `index`. A v1 reasoning block with the `id` of one that
 * streamed is its whole text again (OpenAI Responses repeats it at the end): only what it adds is
 * emitted; when it does not continue the streamed text, nothing is, and the flush carries
 * `{textMismatch: true, finalText}`. Images, citations and other blocks are skipped.
 *
 * **Tool calls** come from `tool_call_chunks`, never from the content blocks that repeat them
 * (`tool_use`, `input_json_delta`, `tool_call_chunk`, and v1's `tool_call` with empty `args` at a
 * call's start, which is not a call of its own) nor from the `tool_calls` LangChain parses from
 * them. Chunks merge as `AIMessageChunk.concat` merges them: by `index` (`0` and `"0"` differ); a
 * chunk whose non-empty `id` differs from its call's starts a new call (OpenAI's continuations
 * carry `id: ''` or none); a chunk with neither `index` nor `id` is a call of its own.
 * `tool-call-start` goes out once the name is known (an id known later repeats it); argument text
 * before the name is held, at most 16 MiB. A run of chunks that never gets a name is not a call of
 * the application's and is dropped at the end of its message — unless a content block at its
 * index announced a call the provider runs (`server_tool_use`, `mcp_tool_use`, v1's
 * `non_standard` of those, the protocol's `server_tool_call_chunk`): then it is that call,
 * `providerExecuted: true`. A custom tool's chunks (`isCustomTool: true`) stream `{"input":
 * "<text>"}`, what LangChain gives the tool. A whole AI message (no `tool_call_chunks`: the
 * `AIMessage` a LangGraph node returns) has its `tool_calls` sent whole, and its
 * `invalid_tool_calls` fail alone: their flush carries `{toolCallError}`, a `ProviderError` of
 * type `'invalid-tool-call'`. v1's `server_tool_call` blocks are calls the provider ran, sent
 * whole; `*_tool_result` blocks and v1's `server_tool_call_result` are `provider-tool-result`
 * parts.
 *
 * **Ends.** A message ends at its finish reason (`finish_reason`, `stop_reason`, `finishReason`,
 * `stopReason`, `done_reason`, a Responses `status`), `on_chat_model_end`, `message-finish`, a
 * later LangGraph step of its graph, or at once when it comes whole; its open slots are flushed
 * then. A chunk with content for a message that ended is refused (`ProviderError` type
 * `'after-end'`); one with only usage or metadata (OpenAI's usage chunk after its
 * `finish_reason`) is read. The messages of a LangGraph stream end with it (their flushes say
 * `endOfInput: false`): such a stream cut between two chunks cannot be told from its end, though a
 * call whose arguments stopped short stays incomplete. `end()` flushes what is open and, when
 * every message ended (a message begins with its first chunk, `on_chat_model_start` or
 * `message-start`), emits one `finished`: the reason of the last message to end (`stop` after an application call
 * is `tool-calls`; none is `stop`), its `rawReason` as LangChain carried it, and the usage of all
 * messages, `usage_metadata` summed as `concat` sums it (the protocol's snapshots: the last of
 * each message). A message that never ended was cut (`ProviderEventDecoder` errors with
 * `'truncated'`). A `ToolMessage` is a slot of its own whose flush carries `{blockType: 'tool',
 * block}`; other messages (human, system) are skipped.
 *
 * @throws {ProviderError} type `'invalid-format'` for an object that is none of the above (a
 * `streamMode: 'values'` state, a string in a tuple), a message whose `content`,
 * `tool_call_chunks`, `tool_calls` or `usage_metadata` is of the wrong type, a tool call chunk
 * whose `name`, `id` or `args` is not a string or whose `index` is neither a number nor a string,
 * a content-block event without its `index`, `content` or `delta`, and the deprecated
 * `messages/partial` parts (whole messages so far: stream `'messages-tuple'`). Type
 * `'text-mismatch'` for a `block-delta` of a call's arguments that does not continue those before
 * it. Type `'after-end'`, see above. Type `'invalid-stream'` code `'max-buffered-bytes'` for held
 * argument text beyond 16 MiB. For an `error` event (the protocol's, the LangGraph SDK's): type
 * `'error'` (or the SDK's `error` name), with its `message` and `code`, after everything before it.
 */
export function createLangChainAdapter(_options: LangChainAdapterOptions = {}): ProviderAdapter {
  const members = membersOf('langchain');
  const invalid = members.invalid;
  const messages: Message[] = [];
  const byId = new Map<string, Message>();
  const byRun = new Map<string, Message>();
  /** Unfinished messages made in a LangGraph step. */
  const graphMessages = new Set<Message>();
  let current: Message | undefined;
  let nextSlot = 0;
  /** The last message to end: the turn ends as it did. */
  let lastEnded: Message | undefined;

  function newMessage(runId?: string): Message {
    const message: Message = {
      providerId: undefined,
      fallbackId: undefined,
      slots: new Map(),
      order: [],
      announced: new Map(),
      finished: false,
      rawReason: undefined,
      applicationCalls: false,
      streamed: false,
      usage: undefined,
      graph: undefined,
    };
    messages.push(message);
    if (runId !== undefined) byRun.set(runId, message);
    return (current = message);
  }

  /** The message of a chunk with this id (see the TSDoc), or of its run. */
  function messageFor(id: string | undefined, source: Source): Message {
    if (source.runId !== undefined) {
      const known = byRun.get(source.runId);
      return known === undefined ? newMessage(source.runId) : (current = known);
    }
    if (id === undefined) return current ?? newMessage();
    const known = byId.get(id);
    if (known !== undefined) return (current = known);
    const fallback = id.startsWith('run-') || id.startsWith('lc_run--');
    const message = current === undefined || (fallback ? current.fallbackId : current.providerId) !== undefined ? newMessage() : current;
    if (fallback) message.fallbackId = id;
    else message.providerId = id;
    byId.set(id, message);
    return message;
  }

  function newSlot(message: Message, key: string, kind: Slot['kind'], id = '', name = '', providerExecuted = false): Slot {
    const slot: Slot = {
      kind,
      index: undefined,
      emitted: 0,
      id,
      name,
      kept: undefined,
      signature: undefined,
      finalText: undefined,
      providerExecuted,
      custom: false,
      held: [],
      heldLength: 0,
      pendingHigh: '',
      wholeArgs: undefined,
      error: undefined,
      done: false,
    };
    message.slots.set(key, slot);
    if (kind !== 'call') open(message, slot);
    return slot;
  }

  function open(message: Message, slot: Slot): void {
    slot.index = nextSlot++;
    message.order.push(slot);
  }

  function textSlot(message: Message, kind: 'message' | 'reasoning', key: string): Slot {
    const slot = message.slots.get(key);
    return slot !== undefined && slot.kind === kind && !slot.done ? slot : newSlot(message, key, kind);
  }

  function emitText(message: Message, slot: Slot, text: string | undefined, out: StreamEvent[]): void {
    if (!text) return;
    slot.emitted += text.length;
    if (slot.kept !== undefined) slot.kept += text;
    out.push(partEvent(slot.index as number, { type: slot.kind as 'message', text }));
  }

  /** A text or reasoning block of the content. */
  function readText(message: Message, kind: 'message' | 'reasoning', block: JsonRecord, key: string, out: StreamEvent[]): void {
    const slot = textSlot(message, kind, key);
    const text = members.optionalString(block, kind === 'message' ? 'text' : stringAt(block, 'type') === 'thinking' ? 'thinking' : 'reasoning', 'a content block');
    slot.signature = nonEmptyStringAt(block, 'signature') ?? slot.signature;
    const id = kind === 'reasoning' ? nonEmptyStringAt(block, 'id') : undefined;
    if (id !== undefined && slot.id === id && slot.emitted > 0) {
      // Its whole text again: what it adds, if it continues the streamed text.
      const streamed = slot.kept as string;
      if (text?.startsWith(streamed)) emitText(message, slot, text.slice(streamed.length), out);
      else if (text !== undefined) slot.finalText = text;
      return;
    }
    if (id !== undefined && slot.emitted === 0) {
      slot.id = id;
      slot.kept = '';
    }
    emitText(message, slot, text, out);
  }

  /** The content of a message: text, reasoning, the calls the provider runs and their results. */
  function readContent(message: Message, content: unknown, out: StreamEvent[]): void {
    if (content === undefined || content === null) return;
    if (typeof content === 'string') {
      emitText(message, textSlot(message, 'message', 'message|'), content, out);
      return;
    }
    if (!Array.isArray(content)) throw invalid('a message whose `content` is neither a string nor an array', content);
    for (const block of content) {
      if (typeof block === 'string') emitText(message, textSlot(message, 'message', 'message|'), block, out);
      else if (isRecord(block)) readBlock(message, block, indexKey(block['index']) ?? '', out);
      else throw invalid('a content block that is not an object', block);
    }
  }

  function readBlock(message: Message, block: JsonRecord, index: string, out: StreamEvent[]): void {
    const type = stringAt(block, 'type') ?? '';
    if (type === 'text') readText(message, 'message', block, `message|${index}`, out);
    else if (type === 'thinking' || type === 'reasoning') readText(message, 'reasoning', block, `reasoning|${index}`, out);
    else if (type === 'non_standard') {
      const value = recordAt(block, 'value');
      if (stringAt(value, 'type') === 'thinking') {
        textSlot(message, 'reasoning', `reasoning|${indexKey(value?.['index']) ?? ''}`).signature ??= nonEmptyStringAt(value, 'signature');
      } else if (value !== undefined && stringAt(value, 'type') !== 'non_standard') readBlock(message, value, indexKey(value['index']) ?? '', out);
    } else if (type === 'server_tool_use' || type === 'mcp_tool_use' || type === 'server_tool_call_chunk') {
      announce(message, index, nonEmptyStringAt(block, 'id') ?? '', nonEmptyStringAt(block, 'name') ?? '', out);
    } else if (type === 'server_tool_call') {
      const call = newSlot(message, `whole|${nextSlot}`, 'call', nonEmptyStringAt(block, 'id'), nonEmptyStringAt(block, 'name'), true);
      call.wholeArgs = wholeArguments(block['args']);
      start(message, call, out);
      flushCall(message, call, out);
    } else if (type === 'server_tool_call_result' || (type.endsWith('_tool_result') && type !== 'tool_result')) {
      const result = type === 'server_tool_call_result' ? block['output'] : block['content'];
      const error = block['is_error'] === true || stringAt(block, 'status') === 'error' || stringAt(recordAt(block, 'content'), 'type')?.endsWith('_error') === true;
      const slot = nextSlot++;
      const toolCallId = stringAt(block, 'tool_use_id') ?? stringAt(block, 'tool_call_id') ?? stringAt(block, 'toolCallId') ?? '';
      out.push(partEvent(slot, { type: 'provider-tool-result', toolCallId, result: (result ?? null) as JsonValue, ...(error ? { isError: true as const } : {}) }));
      out.push({ type: 'flush', index: slot, metadata: { blockType: type, block } });
    }
    // The blocks that repeat `tool_call_chunks`, images, citations and blocks added later are not read.
  }

  /** A content block announcing a call the provider runs at `index`: its chunks are that call. */
  function announce(message: Message, index: string, id: string, name: string, out: StreamEvent[]): void {
    if (index === '') return;
    message.announced.set(index, [id, name]);
    const call = message.slots.get(`call|${index}`);
    if (call !== undefined && call.index === undefined && !call.done) {
      call.providerExecuted = true;
      identify(message, call, id, name, out);
    }
  }

  /** A call's id and name (the first non-empty of each wins); it starts once named, or at once when the provider runs it. */
  function identify(message: Message, call: Slot, id: string | undefined, name: string | undefined, out: StreamEvent[]): void {
    const newId = !!id && call.id === '';
    if (newId) call.id = id;
    if (name && call.name === '') call.name = name;
    if (call.index === undefined) start(message, call, out);
    else if (newId) out.push(startPart(call));
  }

  function startPart(call: Slot): StreamEvent {
    return partEvent(call.index as number, { type: 'tool-call-start', toolCallId: call.id, toolName: call.name, ...(call.providerExecuted ? { providerExecuted: true as const } : {}) });
  }

  function start(message: Message, call: Slot, out: StreamEvent[]): void {
    if (call.done || (call.name === '' && !call.providerExecuted)) return;
    open(message, call);
    message.applicationCalls ||= !call.providerExecuted;
    out.push(startPart(call));
    const held = call.held.join('');
    call.held.length = 0;
    emitArguments(message, call, held, out);
  }

  /** A call's argument text: emitted once it started, held before. */
  function emitArguments(message: Message, call: Slot, text: string | undefined, out: StreamEvent[]): void {
    if (!text) return;
    if (call.index === undefined) {
      call.heldLength += text.length;
      if (call.heldLength > MAX_HELD_ARGUMENTS) {
        throw new ProviderError('langchain', 'invalid-stream', `langchain: the arguments of an unnamed tool call grew beyond ${MAX_HELD_ARGUMENTS} characters`, {
          code: 'max-buffered-bytes',
        });
      }
      call.held.push(text);
      return;
    }
    let chunk = text;
    if (call.custom) {
      // Raw text, escaped into the JSON string of `{"input": …}`; a lone high surrogate waits for its pair.
      let raw = call.pendingHigh + text;
      const last = raw.charCodeAt(raw.length - 1);
      call.pendingHigh = last >= 0xd800 && last <= 0xdbff ? raw.slice(-1) : '';
      if (call.pendingHigh !== '') raw = raw.slice(0, -1);
      chunk = (call.emitted === 0 ? '{"input":"' : '') + JSON.stringify(raw).slice(1, -1);
    }
    call.emitted += chunk.length;
    if (chunk !== '') out.push(partEvent(call.index, { type: 'tool-call-arguments', chunk }));
  }

  /** A call's flush: a named one's (a custom tool's input closed, unless cut), an unnamed one's held text dropped. */
  function flushCall(message: Message, call: Slot, out: StreamEvent[], cut = false): void {
    if (call.done) return;
    call.done = true;
    call.held.length = 0;
    if (call.index === undefined) return;
    if (call.emitted === 0 && call.wholeArgs) {
      // Arguments sent whole are JSON text already, a custom tool's too.
      call.custom = false;
      emitArguments(message, call, call.wholeArgs, out);
    }
    if (call.custom && !cut) {
      const close = `${call.emitted === 0 ? '{"input":"' : ''}${JSON.stringify(call.pendingHigh).slice(1, -1)}"}`;
      call.emitted += close.length;
      out.push(partEvent(call.index, { type: 'tool-call-arguments', chunk: close }));
    }
    out.push(flushEvent(call.index, { toolCallError: call.error }));
  }

  function flushEvent(index: number, entries: Readonly<Record<string, unknown>>): StreamEvent {
    const metadata = metadataOf(entries);
    return metadata === undefined ? { type: 'flush', index } : { type: 'flush', index, metadata };
  }

  function flushSlot(message: Message, slot: Slot, out: StreamEvent[], cut = false): void {
    if (slot.kind === 'call') {
      flushCall(message, slot, out, cut);
    } else if (!slot.done) {
      slot.done = true;
      out.push(flushEvent(slot.index as number, { signature: slot.kind === 'reasoning' ? slot.signature : undefined, ...(slot.finalText !== undefined ? { textMismatch: true, finalText: slot.finalText } : {}) }));
    }
  }

  /** Flush the slots of a message, in the order they opened. */
  function flushMessage(message: Message, out: StreamEvent[], cut = false): void {
    for (const slot of message.order) flushSlot(message, slot, out, cut);
    message.order.length = 0;
    message.slots.clear();
    message.announced.clear();
  }

  function finish(message: Message, rawReason: string | undefined, out: StreamEvent[]): void {
    if (message.finished) return;
    message.finished = true;
    message.rawReason ??= rawReason;
    graphMessages.delete(message);
    lastEnded = message;
    flushMessage(message, out);
  }

  /** Arguments sent whole: an object, or JSON text as some integrations keep it. */
  function wholeArguments(args: unknown): string {
    return typeof args === 'string' ? args : args === undefined || args === null ? '' : jsonTextOf('langchain', args, 'the args of a tool call');
  }

  /** The `tool_call_chunks` of a chunk, merged as `concat` merges them. */
  function readToolCallChunks(message: Message, chunks: readonly unknown[], out: StreamEvent[]): void {
    for (const chunk of chunks) {
      if (!isRecord(chunk)) throw invalid('a tool call chunk that is not an object', chunk);
      const id = members.optionalString(chunk, 'id', 'a tool call chunk');
      const name = members.optionalString(chunk, 'name', 'a tool call chunk');
      const args = members.optionalString(chunk, 'args', 'a tool call chunk');
      const index = chunk['index'] ?? undefined;
      if (index !== undefined && indexKey(index) === undefined) throw invalid('a tool call chunk whose `index` is neither a number nor a string', chunk);
      const key = indexKey(index) ?? (id ? `id:${id}` : `whole|${nextSlot}`);
      let call = message.slots.get(`call|${key}`);
      if (call !== undefined && (call.done || (id && call.id !== '' && call.id !== id))) {
        // Another id at the same index: `concat` keeps two calls.
        flushCall(message, call, out);
        call = undefined;
      }
      if (call === undefined) {
        const announced = message.announced.get(key);
        call = newSlot(message, `call|${key}`, 'call', announced?.[0], announced?.[1], announced !== undefined);
        call.custom = chunk['isCustomTool'] === true;
      }
      identify(message, call, id, name, out);
      emitArguments(message, call, args, out);
      // Neither index nor id: nothing continues it.
      if (key.startsWith('whole|')) flushCall(message, call, out);
    }
  }

  /** The calls of a whole AI message: `tool_calls` sent whole, `invalid_tool_calls` failed. */
  function readWholeCalls(message: Message, fields: JsonRecord, out: StreamEvent[]): void {
    for (const name of ['tool_calls', 'invalid_tool_calls'] as const) {
      for (const item of members.optionalArray(fields, name, 'a message') ?? []) {
        if (!isRecord(item)) throw invalid('a tool call that is not an object', item);
        const call = newSlot(message, `whole|${nextSlot}`, 'call', members.optionalString(item, 'id', 'a tool call'), members.optionalString(item, 'name', 'a tool call'));
        if (name === 'tool_calls') call.wholeArgs = wholeArguments(item['args']);
        else call.error = invalidCall(item);
        start(message, call, out);
        flushCall(message, call, out);
      }
    }
  }

  function invalidCall(block: JsonRecord): ProviderError {
    return new ProviderError('langchain', 'invalid-tool-call', nonEmptyStringAt(block, 'error') ?? 'LangChain could not parse the tool call', { cause: block });
  }

  /** A message's fields and `type` (a serialized chunk's class name), or `undefined` for what is no message. */
  function messageFields(record: unknown): readonly [JsonRecord, string | undefined] | undefined {
    if (!isRecord(record)) return undefined;
    const type = stringAt(record, 'type');
    const id = record['id'];
    if (record['lc'] === 1 && type === 'constructor' && Array.isArray(id)) {
      const kwargs = recordAt(record, 'kwargs');
      const name: unknown = id[id.length - 1];
      return kwargs === undefined ? undefined : [kwargs, typeof name === 'string' ? name : undefined];
    }
    if ((type !== undefined && 'content' in record) || Array.isArray(record['tool_call_chunks'])) return [record, type];
    return undefined;
  }

  /** A message chunk, or a whole message (`whole`, or one without `tool_call_chunks`), read into its message. */
  function readMessage([fields, type]: readonly [JsonRecord, string | undefined], source: Source, out: StreamEvent[], whole = false): void {
    if (type !== undefined && !AI_TYPES.has(type)) {
      if (type === 'tool' || type.startsWith('ToolMessage')) out.push({ type: 'flush', index: nextSlot++, metadata: { blockType: 'tool', block: fields } });
      return;
    }
    const chunks = members.optionalArray(fields, 'tool_call_chunks', 'a message');
    const usage = members.optionalRecord(fields, 'usage_metadata', 'a message');
    const message = messageFor(members.optionalString(fields, 'id', 'a message') || undefined, source);
    const isChunk = chunks !== undefined && !whole;
    if (source.graph !== undefined && message.graph === undefined && !message.finished) {
      message.graph = source.graph;
      graphMessages.add(message);
    }
    if (!isChunk && message.streamed) {
      // The whole message of one that streamed (a LangGraph node's output, `on_chat_model_end`) ends it.
      finish(message, finishReasonOf(fields), out);
      return;
    }
    if (usage !== undefined) addUsage((message.usage ??= {}), usage);
    message.streamed ||= isChunk;
    // After its end, a chunk may still bring usage or metadata (OpenAI's usage chunk, often with an
    // empty text block), never content: what it would make is refused.
    const into = message.finished ? [] : out;
    readContent(message, fields['content'], into);
    if (isChunk) readToolCallChunks(message, chunks, into);
    else readWholeCalls(message, fields, into);
    if (message.finished) {
      message.order.length = 0;
      message.slots.clear();
      if (into.length > 0) throw new ProviderError('langchain', 'after-end', 'langchain: a chunk with content came after its message ended; nothing is added to an ended message', { cause: fields });
    }
    const reason = finishReasonOf(fields);
    if (!isChunk || reason !== undefined) finish(message, reason, out);
  }

  // -------------------------------------------------------------------------------------------
  // The content-block events of `@langchain/core` ≥ 1.4.

  function readProtocol(event: JsonRecord, name: string, source: Source, out: StreamEvent[]): void {
    const starts = name === 'message-start';
    const known = source.runId !== undefined ? byRun.get(source.runId) : current;
    const message = known === undefined || (starts && (source.runId === undefined || known.finished)) ? newMessage(source.runId) : (current = known);
    if (starts && source.runId === undefined) message.providerId = nonEmptyStringAt(event, 'id');
    const usage = members.optionalRecord(event, 'usage', 'an event');
    if (usage !== undefined) addUsage((message.usage = {}), usage);
    if (name === 'message-finish') {
      // The provider's own reason where the metadata keeps it; the protocol's normalized one else.
      const metadata = members.optionalRecord(event, 'responseMetadata', 'an event');
      finish(message, finishReasonOf({ response_metadata: metadata }, true) ?? members.optionalString(event, 'reason', 'an event'), out);
      return;
    }
    if (!name.startsWith('content-block-')) return;
    const index = members.requiredNumber(event, 'index', 'an event');
    if (message.finished) throw new ProviderError('langchain', 'after-end', `langchain: a ${name} event came after its message-finish`, { cause: event });
    const key = `p${index}`;
    const slot = message.slots.get(key);
    if (name === 'content-block-delta') {
      const delta = members.requiredRecord(event, 'delta', 'an event');
      const type = stringAt(delta, 'type');
      const fields = recordAt(delta, 'fields');
      if (type === 'text-delta' || type === 'reasoning-delta') {
        const kind = type === 'text-delta' ? 'message' : 'reasoning';
        emitText(message, slot?.kind === kind && !slot.done ? slot : newSlot(message, key, kind), members.requiredString(delta, kind === 'message' ? 'text' : 'reasoning', 'a delta'), out);
      } else if (type === 'tool-call-delta' || (type === 'block-delta' && /tool_call_chunk$/.test(stringAt(fields, 'type') ?? ''))) {
        // Argument text of a call: appended (`tool-call-delta`), or the arguments so far (`block-delta`).
        if (slot?.kind !== 'call' || slot.done) throw invalid(`a ${type} for block ${index}, which is no open tool call`, event);
        if (fields !== undefined) snapshot(message, slot, fields, out);
        else {
          const args = members.optionalString(delta, 'args', 'a delta');
          if (slot.kept !== undefined && args !== undefined) slot.kept += args;
          emitArguments(message, slot, args, out);
        }
      } else if (slot?.kind === 'reasoning' && fields !== undefined) {
        slot.signature = nonEmptyStringAt(fields, 'signature') ?? slot.signature;
      }
      return;
    }
    const content = members.requiredRecord(event, 'content', 'an event');
    if (name === 'content-block-start' || slot === undefined) startBlock(message, key, index, content, out);
    if (name === 'content-block-finish') finishBlock(message, message.slots.get(key), content, out);
  }

  function startBlock(message: Message, key: string, index: number, content: JsonRecord, out: StreamEvent[]): void {
    const type = stringAt(content, 'type') ?? '';
    if (/^(server_)?tool_call(_chunk)?$|^invalid_tool_call$/.test(type)) {
      const call = newSlot(message, key, 'call', undefined, undefined, type.startsWith('server_'));
      call.custom = content['isCustomTool'] === true;
      if (type === 'invalid_tool_call') call.error = invalidCall(content);
      else if (!type.endsWith('_chunk')) call.wholeArgs = wholeArguments(content['args']);
      else call.kept = '';
      identify(message, call, members.optionalString(content, 'id', 'a content block'), members.optionalString(content, 'name', 'a content block'), out);
      if (call.kept !== undefined) snapshot(message, call, content, out);
    } else if (type === 'text' || type === 'reasoning') {
      readText(message, type === 'text' ? 'message' : 'reasoning', content, key, out);
    } else {
      readBlock(message, content, indexKey(index) as string, out);
    }
  }

  /** A call's arguments so far (a `block-delta`, a block's start): what they add is emitted. */
  function snapshot(message: Message, call: Slot, fields: JsonRecord, out: StreamEvent[]): void {
    identify(message, call, members.optionalString(fields, 'id', 'a delta'), members.optionalString(fields, 'name', 'a delta'), out);
    const args = members.optionalString(fields, 'args', 'a delta');
    const streamed = call.kept ?? '';
    if (args === undefined) return;
    if (!args.startsWith(streamed)) {
      throw new ProviderError('langchain', 'text-mismatch', 'langchain: the arguments of a tool call in a block-delta do not continue those before it', { cause: { toolCallId: call.id, streamed, args } });
    }
    call.kept = args;
    emitArguments(message, call, args.slice(streamed.length), out);
  }

  function finishBlock(message: Message, slot: Slot | undefined, content: JsonRecord, out: StreamEvent[]): void {
    if (slot === undefined || slot.done) return;
    if (slot.kind === 'call') {
      if (stringAt(content, 'type') === 'invalid_tool_call') slot.error ??= invalidCall(content);
      // The parsed arguments are the call's only for one that did not stream them (`''` streamed is none).
      else if (slot.kept === undefined) slot.wholeArgs ??= wholeArguments(content['args']);
      identify(message, slot, nonEmptyStringAt(content, 'id'), nonEmptyStringAt(content, 'name'), out);
    } else {
      slot.signature = nonEmptyStringAt(content, 'signature') ?? slot.signature;
      // A block that streamed no text has it whole here.
      if (slot.emitted === 0) emitText(message, slot, stringAt(content, slot.kind === 'message' ? 'text' : 'reasoning'), out);
    }
    flushSlot(message, slot, out);
  }

  // -------------------------------------------------------------------------------------------
  // Envelopes: tuples, stream parts, events.

  function readRecord(record: unknown, source: Source, out: StreamEvent[], depth = 0): void {
    if (depth > 4) throw invalid('stream parts nested too deeply', undefined);
    if (Array.isArray(record)) {
      readArray(record, source, out, depth + 1);
      return;
    }
    const event = isRecord(record) ? record['event'] : undefined;
    if (typeof event === 'string') {
      readEvent(record as JsonRecord, event, source, out, depth + 1);
      return;
    }
    const message = messageFields(record);
    if (message !== undefined) readMessage(message, source, out);
    // LangGraph's checkpoint envelope (`{id, step, source}`) begins a `version: 'v3'` stream.
    else if (!(isRecord(record) && typeof record['step'] === 'number' && typeof record['source'] === 'string')) {
      throw invalid('expected an AIMessageChunk, a [chunk, metadata] tuple or a streamEvents event', record);
    }
  }

  function readArray(record: readonly unknown[], source: Source, out: StreamEvent[], depth: number): void {
    const [first, second, third] = record;
    if (record.length === 3 && Array.isArray(first) && typeof second === 'string') {
      // [namespace, mode, payload] (subgraphs, several modes).
      if (second === 'messages') readRecord(third, source, out, depth);
    } else if (record.length === 2 && Array.isArray(first)) {
      // [namespace, payload] (subgraphs).
      readRecord(second, source, out, depth);
    } else if (record.length === 2 && typeof first === 'string') {
      // [mode, payload] (several modes).
      if (first === 'messages') readRecord(second, source, out, depth);
    } else if (record.length === 2 && isRecord(first) && (second === undefined || second === null || isRecord(second))) {
      // [chunk, metadata] (streamMode 'messages'); [event, metadata] (its version 'v3').
      const step = numberAt(second, 'langgraph_step');
      const namespace = stringAt(second, 'langgraph_checkpoint_ns') ?? stringAt(second, 'checkpoint_ns') ?? '';
      const graph = step === undefined ? undefined : { graph: namespace.slice(0, Math.max(0, namespace.lastIndexOf('|'))), step };
      if (graph !== undefined) {
        // A later step of a graph: its earlier steps' model calls have ended.
        for (const message of graphMessages) if (message.graph?.graph === graph.graph && message.graph.step < graph.step) finish(message, undefined, out);
      }
      readRecord(first, { runId: nonEmptyStringAt(second, 'run_id') ?? source.runId, graph }, out, depth);
    } else {
      throw invalid(`expected a [chunk, metadata] tuple, got an array of ${record.length}`, record);
    }
  }

  function readEvent(record: JsonRecord, event: string, source: Source, out: StreamEvent[], depth: number): void {
    const data = record['data'];
    const base = event.split('|')[0];
    if (base === 'messages' || base === 'events') readRecord(data, source, out, depth);
    else if (event.startsWith('messages/')) throw invalid(`a "${event.slice(0, 30)}" part holds whole messages so far, not chunks: stream 'messages-tuple'`, record);
    else if (base === 'error') {
      const message = nonEmptyStringAt(data, 'message') ?? nonEmptyStringAt(record, 'message') ?? 'the LangChain stream reported an error';
      throw new ProviderError('langchain', nonEmptyStringAt(data, 'error') ?? 'error', message, { code: stringAt(record, 'code'), cause: record });
    } else if (event.startsWith('on_chat_model_')) {
      const run: Source = { runId: nonEmptyStringAt(record, 'run_id'), graph: source.graph };
      // A run that began must end: `on_chat_model_start` makes its message.
      if (event === 'on_chat_model_start') messageFor(undefined, run);
      else if (event === 'on_chat_model_stream') {
        const chunk = messageFields(recordAt(record, 'data')?.['chunk']);
        if (chunk === undefined) throw invalid('an on_chat_model_stream event without a message chunk', record);
        readMessage(chunk, run, out);
      } else if (event === 'on_chat_model_end') {
        const message = messageFor(undefined, run);
        const output = messageFields(recordAt(record, 'data')?.['output']);
        if (!message.streamed && output !== undefined) readMessage(output, run, out, true);
        finish(message, output === undefined ? undefined : finishReasonOf(output[0]), out);
      }
    } else if (/^(message|content-block)-|^usage$/.test(event)) {
      readProtocol(record, event, source, out);
    }
    // Other events (`on_chain_*`, `on_tool_*`, the protocol's `provider`) and the LangGraph SDK's
    // other parts (`values`, `updates`, `metadata`, `end`, …) hold no chat model content.
  }

  /** Every message ended. */
  function complete(): boolean {
    return messages.every((message) => message.finished);
  }

  return {
    push(data: unknown): StreamEvent[] {
      const out: StreamEvent[] = [];
      readRecord(data, {}, out);
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      // A LangGraph stream ends when its run has: its messages are complete, and their flushes say
      // so (at the end of input, a flush is otherwise taken for a cut).
      const ended: StreamEvent[] = [];
      for (const message of graphMessages) finish(message, undefined, ended);
      for (const event of ended) out.push(event.type === 'flush' ? { ...event, metadata: { ...event.metadata, endOfInput: false } } : event);
      for (const message of messages) if (!message.finished) flushMessage(message, out, true);
      if (!complete() || lastEnded === undefined) return out;
      const raw = lastEnded.rawReason;
      const mapped = raw === undefined ? 'stop' : (FINISH_REASONS.get(raw.toLowerCase()) ?? 'other');
      let usage: Record<string, unknown> | undefined;
      for (const message of messages) if (message.usage !== undefined) addUsage((usage ??= {}), message.usage);
      out.push({
        type: 'finished',
        reason: mapped === 'stop' && lastEnded.applicationCalls ? 'tool-calls' : mapped,
        ...(raw !== undefined ? { rawReason: raw } : {}),
        ...(usage !== undefined ? { usage: langChainUsage(usage) } : {}),
      });
      return out;
    },

    complete,
  };
}

/** LangChain's `UsageMetadata` as a {@link Usage}: its `input_tokens` already count the cache reads. */
function langChainUsage(raw: Record<string, unknown>): Usage {
  return usageOf({
    inputTokens: numberAt(raw, 'input_tokens'),
    outputTokens: numberAt(raw, 'output_tokens'),
    totalTokens: numberAt(raw, 'total_tokens'),
    reasoningTokens: numberAt(recordAt(raw, 'output_token_details'), 'reasoning'),
    cachedInputTokens: numberAt(recordAt(raw, 'input_token_details'), 'cache_read'),
    raw,
  });
}

/**
 * The `'langchain'` provider: LangChain.js's stream objects (message chunks, LangGraph's `[chunk, metadata]` tuples, `streamEvents`' events; objects only). Internal: exported as `LANGCHAIN_PROVIDER` from its own entry point.
 */
export const LANGCHAIN_PROVIDER: ProviderDefinition = {
  name: 'langchain',
  framing: 'objects',
  create: () => createLangChainAdapter(),
  terminal: 'the end of every AI message (its finish reason, `on_chat_model_end` or `message-finish`)',
  objects: 'LangChain objects (`AIMessageChunk`s, `[chunk, metadata]` tuples, `streamEvents` events)',
};
