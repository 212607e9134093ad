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
import { ProviderError, excerpt } from '../errors.ts';
import type { FinishReason, JsonValue, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, partEvent } from './adapter.ts';
import { type JsonRecord, isRecord, jsonTextOf, membersOf, metadataOf, nonEmptyStringAt, numberAt, recordAt, stringAt, usageOf } from './json-access.ts';

/** Options of {@link createLangChainAdapter} (none yet). */
export interface LangChainAdapterOptions {}

/**
 * The longest argument text held for a tool call whose name has not arrived yet, in UTF-16 code
 * units. Such text is held, not streamed, since a run of chunks that never gets a name is not a
 * call of the application's (Anthropic's server tools); the same as `ProviderEventStream`'s
 * default `maxBufferedBytes`.
 */
const MAX_HELD_ARGUMENTS = 16 * 1024 * 1024;

/** LangChain message types (`type` of a chunk, or the last element of a serialized chunk's `id`) of an AI message. */
const AI_TYPES: ReadonlySet<string> = new Set(['ai', 'AIMessageChunk', 'AIMessage']);
/** The types of every other message: read as whole blocks (tool messages) or ignored. */
const OTHER_MESSAGE_TYPES: ReadonlySet<string> = new Set([
  'tool',
  'ToolMessage',
  'ToolMessageChunk',
  'human',
  'HumanMessage',
  'HumanMessageChunk',
  'system',
  'SystemMessage',
  'SystemMessageChunk',
  'function',
  'FunctionMessage',
  'FunctionMessageChunk',
  'chat',
  'ChatMessage',
  'ChatMessageChunk',
  'generic',
  'remove',
  'RemoveMessage',
]);
const TOOL_MESSAGE_TYPES: ReadonlySet<string> = new Set(['tool', 'ToolMessage', 'ToolMessageChunk']);

/** The content-block events of `@langchain/core`'s chat model stream protocol (`ChatModelStreamEvent`). */
const PROTOCOL_EVENTS: ReadonlySet<string> = new Set([
  'message-start',
  'content-block-start',
  'content-block-delta',
  'content-block-finish',
  'message-finish',
  'usage',
  'provider',
]);

/** LangGraph stream modes other than `messages`: their parts hold no message chunk. */
const OTHER_STREAM_MODES: ReadonlySet<string> = new Set([
  'values',
  'updates',
  'custom',
  'debug',
  'tasks',
  'checkpoints',
  'tools',
  'lifecycle',
  'metadata',
  'end',
  'feedback',
  'run_modes',
  'state_update',
]);

/** Content blocks that announce a call the provider runs (Anthropic v0, or wrapped in v1's `non_standard`). */
const SERVER_TOOL_BLOCKS: ReadonlySet<string> = new Set(['server_tool_use', 'mcp_tool_use']);

/**
 * Raw finish reasons of the providers LangChain wraps (each spelled as its API does), normalized;
 * anything else is `other`.
 */
const FINISH_REASONS: ReadonlyMap<string, FinishReason> = new Map(Object.entries({
  stop: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  eos: 'stop',
  completed: 'stop',
  STOP: 'stop',
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  tool_use: 'tool-calls',
  TOOL_CALL: 'tool-calls',
  length: 'length',
  max_tokens: 'length',
  model_length: 'length',
  model_context_window_exceeded: 'length',
  max_output_tokens: 'length',
  MAX_TOKENS: 'length',
  content_filter: 'content-filter',
  content_filtered: 'content-filter',
  guardrail_intervened: 'content-filter',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  refusal: 'refusal',
  error: 'error',
  failed: 'error',
  ERROR: 'error',
  MALFORMED_FUNCTION_CALL: 'error',
} satisfies Record<string, FinishReason>));

/** A text or reasoning slot of a message. */
interface TextSlot {
  readonly index: number;
  readonly kind: 'message' | 'reasoning';
  signature: string | undefined;
  /** The id of the block (v1 `{type: 'reasoning', id}`) whose whole text may come again at the end. */
  blockId: string | undefined;
  /** The text emitted, kept only for a slot with a `blockId`. */
  text: string | undefined;
  /** How much text was emitted (UTF-16 code units). */
  emitted: number;
  /** The final text did not continue the streamed text (see `wholeText`). */
  finalText: string | undefined;
}

/** One tool call: a run of `tool_call_chunks` at one index, or a content block of the protocol. */
interface CallRun {
  id: string;
  name: string;
  /** Its slot, once its name is known and `tool-call-start` went out. */
  slot: number | undefined;
  readonly providerExecuted: boolean;
  /** A custom tool (`isCustomTool`): its input is raw text, emitted as `{"input": "<text>"}` as LangChain reads it. */
  custom: boolean;
  /** Argument text that arrived before the name, in pieces. */
  readonly held: string[];
  heldLength: number;
  /** Argument text emitted so far (its length; a custom tool's raw text counts as written). */
  emitted: number;
  /** The protocol's snapshots (`block-delta` with the args so far): the text streamed, to check each continues it. */
  streamed: string | undefined;
  /** A custom tool's input: a high surrogate held until its pair (escaped alone, it would not be the final text's). */
  pendingHigh: string;
  /** The call failed before its arguments were known (an `invalid_tool_call`). */
  error: ProviderError | undefined;
  /** The whole value of its arguments, for a call that streamed none (the protocol's `content-block-finish`). */
  wholeArgs: string | undefined;
  /** Its flush went out: nothing more belongs to it. */
  flushed: boolean;
}

/** What the adapter knows of one AI message (one model call). */
interface Message {
  /** The message's own id (a provider's `msg_…`, `chatcmpl-…`), and the id a traced run gives chunks that lack one (`run-<uuid>`). */
  providerId: string | undefined;
  fallbackId: string | undefined;
  readonly texts: Map<string, TextSlot>;
  readonly calls: Map<string, CallRun>;
  /** Calls the provider runs, announced by a content block at their index before their chunks. */
  readonly announced: Map<string, { readonly id: string; readonly name: string }>;
  /** Slots in the order they opened, to flush them in order. */
  readonly order: Array<TextSlot | CallRun>;
  finished: boolean;
  rawReason: string | undefined;
  /** An application call was seen (a `stop` with calls is `tool-calls`). */
  applicationCalls: boolean;
  /** Whether any content or call was read (a message with none need not finish). */
  content: boolean;
  /** Whether a chunk of it was read (`on_chat_model_end` then repeats it whole). */
  streamed: boolean;
  /** Usage: summed over chunks (as `concat` sums `usage_metadata`), or the protocol's last snapshot. */
  usage: Record<string, unknown> | undefined;
  /** The protocol's blocks by their `index`. */
  readonly blocks: Map<number, { readonly kind: 'text' | 'call' | 'other'; readonly key: string }>;
  /**
   * The LangGraph superstep that made it: LangGraph's `messages` mode drops some integrations'
   * finish reasons (ChatOpenAI's, kept in the generation's info), so such a message ends when its
   * graph moves to a later step, or with the graph's stream.
   */
  graph: GraphPlace | undefined;
}

/** Where a record came from, for the keys of its message. */
interface Source {
  /** A run id (`streamEvents`' `run_id`, LangGraph's `metadata.run_id`). */
  readonly runId: string | undefined;
  /** Where in a LangGraph run the record was made (`[chunk, metadata]` with `langgraph_step`). */
  readonly graph?: GraphPlace | undefined;
}

/**
 * A LangGraph superstep: the graph (its checkpoint namespace without the task's own segment) and
 * the step number. Steps of one graph run one after the other, each after every task of the one
 * before has finished: a model call made in an earlier step has ended.
 */
interface GraphPlace {
  readonly graph: string;
  readonly step: number;
}

/** The LangGraph superstep a `[chunk, metadata]` tuple's metadata names, if any. */
function graphPlaceOf(metadata: JsonRecord | undefined): GraphPlace | undefined {
  const step = numberAt(metadata, 'langgraph_step');
  if (step === undefined) return undefined;
  const namespace = stringAt(metadata, 'langgraph_checkpoint_ns') ?? stringAt(metadata, 'checkpoint_ns') ?? '';
  const last = namespace.lastIndexOf('|');
  return { graph: last === -1 ? '' : namespace.slice(0, last), step };
}

function isRunFallbackId(id: string): boolean {
  return id.startsWith('run-') || id.startsWith('lc_run--');
}

/** `index` of a block or chunk as a map key part: LangChain compares indexes with `===`, so `0` and `"0"` differ. */
function indexKey(index: unknown): string | undefined {
  if (typeof index === 'number') return `n${index}`;
  if (typeof index === 'string') return `s${index}`;
  return undefined;
}

/** `usage_metadata` (or a protocol usage snapshot) added into `into`: numbers summed, details one level deep. */
function addUsage(into: Record<string, unknown>, usage: JsonRecord): void {
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === 'number' && Number.isFinite(value)) {
      const before = into[key];
      into[key] = (typeof before === 'number' ? before : 0) + value;
    } else if (isRecord(value)) {
      const before = into[key];
      const details: Record<string, unknown> = isRecord(before) ? { ...before } : {};
      for (const [name, count] of Object.entries(value)) {
        if (typeof count !== 'number' || !Number.isFinite(count)) continue;
        const had = details[name];
        details[name] = (typeof had === 'number' ? had : 0) + count;
      }
      into[key] = details;
    }
  }
}

/** LangChain's `UsageMetadata` as a {@link Usage}: `input_tokens` already includes cache reads. */
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
 * A message's raw finish reason, where LangChain's integrations put it: `finish_reason` (OpenAI,
 * Mistral, Groq, Vertex), `stop_reason` (Anthropic: in `additional_kwargs` of the chunk of its
 * `message_delta`), `finishReason` (Google GenAI), `stopReason` (Bedrock), Ollama's
 * `done_reason` with `done: true`, and a Responses API response's `status` (its
 * `incomplete_details.reason` when `incomplete`).
 */
function finishReasonOf(fields: JsonRecord): string | undefined {
  const metadata = recordAt(fields, 'response_metadata');
  const kwargs = recordAt(fields, 'additional_kwargs');
  const named =
    nonEmptyStringAt(metadata, 'finish_reason') ??
    nonEmptyStringAt(metadata, 'stop_reason') ??
    nonEmptyStringAt(kwargs, 'stop_reason') ??
    nonEmptyStringAt(metadata, 'finishReason') ??
    nonEmptyStringAt(metadata, 'stopReason');
  if (named !== undefined) return named;
  if (metadata?.['done'] === true) return nonEmptyStringAt(metadata, 'done_reason') ?? 'stop';
  return responseStatusOf(metadata);
}

/** A Responses API response's terminal status in `response_metadata` (`object: 'response'`). */
function responseStatusOf(metadata: JsonRecord | undefined, lenient = false): string | undefined {
  const status = nonEmptyStringAt(metadata, 'status');
  if (status === 'incomplete') return nonEmptyStringAt(recordAt(metadata, 'incomplete_details'), 'reason') ?? status;
  if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') return undefined;
  return lenient || stringAt(metadata, 'object') === 'response' ? status : undefined;
}

/**
 * Creates the synchronous core that turns LangChain.js stream objects into {@link StreamEvent}s.
 * Each record is one object as LangChain yields it; text and bytes are refused
 * (`ProviderEventStream` errors with code `'invalid-input'`).
 *
 * **What is read.** An AI message chunk is an object whose `type` is `'ai'` (a live
 * `AIMessageChunk`, a LangGraph JS server's JSON) or `'AIMessageChunk'` (a Python server's),
 * or that has a `tool_call_chunks` array; LangChain's serialized form `{lc: 1, type:
 * 'constructor', id: [..., 'AIMessageChunk'], kwargs}` (what `JSON.stringify(chunk)` writes) is
 * read through its `kwargs`. Around it:
 * - `[chunk, metadata]` (LangGraph `streamMode: 'messages'`); `['messages', [chunk, metadata]]`
 *   and `[namespace, 'messages', …]` (several modes, subgraphs); parts of other modes
 *   (`['updates', …]`) are skipped;
 * - `{event: 'messages', data: [chunk, metadata]}` (`@langchain/langgraph-sdk`'s `runs.stream`
 *   with `streamMode: 'messages-tuple'`; `'messages|<namespace>'` too), and `{event: 'events',
 *   data}` wrapping a `streamEvents` event; its other parts are skipped;
 * - `streamEvents` (v1, v2) events: `on_chat_model_stream`'s `data.chunk`, keyed by `run_id`;
 *   `on_chat_model_end` ends that run (its `data.output` is read whole when the run streamed
 *   nothing); other events are skipped;
 * - the content-block events of `@langchain/core` ≥ 1.4's `model.streamEvents(input)`
 *   (`message-start`, `content-block-start` / `-delta` / `-finish`, `usage`, `message-finish`,
 *   `provider`), bare or as LangGraph's `[event, metadata]` (`version: 'v3'`), whose
 *   `metadata.run_id` keys them.
 *
 * **Messages.** A stream may hold several AI messages (a LangGraph agent calls the model, runs a
 * tool, calls it again), interleaved or not. Chunks belong to the message of their `id`; a chunk
 * without one to the last message read. A message has at most one provider id and one run id
 * (`run-<uuid>` or `lc_run--…`, which LangChain gives the chunks a provider left without one when
 * callbacks are attached), so `msg_1…` followed by `run-7…` is one message, while a second
 * provider id starts another. A `streamEvents` run is a message of its own.
 *
 * **Content.** String `content` is message text; in content arrays, `text` blocks are text,
 * `thinking` (Anthropic, v0) and `reasoning` (v1, OpenAI Responses) blocks reasoning, their
 * `signature` (also from v1's `non_standard` `thinking` block) kept for the reasoning slot's
 * flush (`{signature}`). A slot per block `index` (one for blocks without one). A v1 reasoning
 * block that carries an `id` already streamed is its whole text again (the OpenAI Responses
 * integration repeats it at the end): only what it adds is emitted; when it does not continue
 * the streamed text, nothing is, and the slot's flush carries `{textMismatch: true, finalText}`.
 * Images, citations and other blocks are skipped.
 *
 * **Tool calls** come from `tool_call_chunks` only, never from the `tool_call`,
 * `tool_call_chunk`, `tool_use` or `input_json_delta` content blocks that repeat them (v1's
 * `tool_call` block with empty `args` at a call's start is not a call of its own), nor from the
 * `tool_calls` LangChain parses from them. Chunks merge as `AIMessageChunk.concat` merges them:
 * by `index` (`0` and `"0"` differ); a chunk whose non-empty `id` differs from the call's at that
 * index starts a new call (OpenAI's continuations carry `id: ''` or none); a chunk with neither
 * `index` nor `id` is a call of its own. `tool-call-start` goes out once the name is known (the
 * id when known: a later id repeats `tool-call-start`); argument text before the name is held
 * (at most 16 MiB). A run of chunks that never gets a name is not a call of the application's:
 * at the end of its message it is dropped — unless a content block at its index announced a call
 * the provider runs (`server_tool_use`, `mcp_tool_use`, v1 `non_standard` of those, the
 * protocol's `server_tool_call_chunk`): then it is that call, `providerExecuted: true`. A custom
 * tool's chunks (`isCustomTool: true`) stream `{"input": "<text>"}`, the arguments LangChain
 * gives the tool. A whole AI message (no `tool_call_chunks`: an `AIMessage` a LangGraph node
 * returns) has its `tool_calls` sent whole and its `invalid_tool_calls` failed: the flush carries
 * `{toolCallError}` (a `ProviderError` of type `'invalid-tool-call'`), so that call alone fails
 * downstream. v1 `server_tool_call` blocks are provider calls sent whole; `*_tool_result` blocks
 * and v1 `server_tool_call_result` become `provider-tool-result` parts.
 *
 * **Ends.** A message ends at its finish reason (see {@link FINISH_REASONS}: `finish_reason`,
 * `stop_reason`, `finishReason`, `stopReason`, `done_reason`, a Responses `status`), at
 * `on_chat_model_end`, at `message-finish`, or at once when it arrived whole; its open slots are
 * flushed then. A chunk with content or a call for a message that ended is refused
 * (`ProviderError` type `'after-end'`); one with only usage or metadata (OpenAI's usage chunk
 * after its `finish_reason`) is read. `end()` flushes what is open and, when every message that
 * had content ended, emits one `finished`: the reason of the last message to end (`stop` with an
 * application call is `tool-calls`; no raw reason: `other`, or `tool-calls` after one), `rawReason`
 * as LangChain carried it, and the usage of all messages: `usage_metadata` summed as `concat`
 * sums it (the protocol's snapshots, last one per message). A stream with a message that never
 * ended was cut (`ProviderEventDecoder` errors with `'truncated'`). `ToolMessage`s (LangGraph)
 * are slots of their own whose flush carries `{blockType: 'tool', block}`; human and system
 * messages are skipped.
 *
 * @throws {ProviderError} type `'invalid-format'` for an object that is none of the above (a
 * `streamMode: 'values'` state, a string), a message whose `content`, `tool_call_chunks`,
 * `tool_calls` or `usage_metadata` is of the wrong type, a tool call chunk whose `name`, `id` or
 * `args` is not a string or whose `index` is neither a number nor a string, a protocol event
 * without its `index` or `content`, and the deprecated `messages/partial` parts (whole message
 * snapshots: use `streamMode: 'messages-tuple'`). Type `'text-mismatch'` for a protocol snapshot
 * of a call's arguments that does not continue the text streamed before it. Type `'after-end'`,
 * see above. Type `'error'` (or the part's `error` name) for an `error` event of the protocol or
 * of the LangGraph SDK, with its `message` and `code`. Type `'invalid-stream'` code
 * `'max-buffered-bytes'` for held argument text beyond 16 MiB.
 */
export function createLangChainAdapter(_options: LangChainAdapterOptions = {}): ProviderAdapter {
  const members = membersOf('langchain');
  const messages: Message[] = [];
  const byId = new Map<string, Message>();
  const byRun = new Map<string, Message>();
  let current: Message | undefined;
  /** Unfinished messages made in a LangGraph step (see {@link Message.graph}). */
  const graphMessages = new Set<Message>();
  let nextSlot = 0;
  /** The last message to end: its reason is the turn's. */
  let lastEnded: Message | undefined;

  function newMessage(): Message {
    const message: Message = {
      providerId: undefined,
      fallbackId: undefined,
      texts: new Map(),
      calls: new Map(),
      announced: new Map(),
      order: [],
      finished: false,
      rawReason: undefined,
      applicationCalls: false,
      content: false,
      streamed: false,
      usage: undefined,
      blocks: new Map(),
      graph: undefined,
    };
    messages.push(message);
    return message;
  }

  /** A record of a later LangGraph step ends the messages of the earlier steps of its graph. */
  function enterStep(place: GraphPlace, out: StreamEvent[]): void {
    for (const message of graphMessages) {
      const made = message.graph as GraphPlace;
      if (made.graph === place.graph && made.step < place.step) finish(message, message.rawReason, out);
    }
  }

  /** The message a chunk with this id (and run) belongs to. */
  function messageFor(id: string | undefined, source: Source): Message {
    if (source.runId !== undefined) {
      let message = byRun.get(source.runId);
      if (message === undefined) {
        message = newMessage();
        byRun.set(source.runId, message);
      }
      current = message;
      return message;
    }
    if (id === undefined) return (current ??= newMessage());
    const known = byId.get(id);
    if (known !== undefined) return (current = known);
    const fallback = isRunFallbackId(id);
    let message = current;
    if (message === undefined || (fallback ? message.fallbackId !== undefined : message.providerId !== undefined)) message = newMessage();
    if (fallback) message.fallbackId = id;
    else message.providerId = id;
    byId.set(id, message);
    return (current = message);
  }

  function textSlot(message: Message, kind: 'message' | 'reasoning', index: unknown): TextSlot {
    const key = `${kind}|${indexKey(index) ?? '-'}`;
    let slot = message.texts.get(key);
    if (slot === undefined) {
      slot = { index: nextSlot++, kind, signature: undefined, blockId: undefined, text: undefined, emitted: 0, finalText: undefined };
      message.texts.set(key, slot);
      message.order.push(slot);
    }
    return slot;
  }

  function emitText(message: Message, slot: TextSlot, text: string, out: StreamEvent[]): void {
    if (text === '') return;
    message.content = true;
    slot.emitted += text.length;
    if (slot.text !== undefined) slot.text += text;
    out.push(partEvent(slot.index, { type: slot.kind, text }));
  }

  /**
   * A block whose id names a slot that streamed already: its text is the whole text. What it
   * adds is emitted; when it does not continue the streamed text, nothing is (see the TSDoc).
   */
  function wholeText(message: Message, slot: TextSlot, text: string, out: StreamEvent[]): void {
    const streamed = slot.text ?? '';
    if (text.startsWith(streamed)) emitText(message, slot, text.slice(streamed.length), out);
    else slot.finalText = text;
  }

  function readTextBlock(message: Message, kind: 'message' | 'reasoning', block: JsonRecord, text: string | undefined, out: StreamEvent[]): void {
    const slot = textSlot(message, kind, block['index']);
    const blockId = nonEmptyStringAt(block, 'id');
    const signature = nonEmptyStringAt(block, 'signature');
    if (signature !== undefined) slot.signature = signature;
    if (blockId !== undefined && kind === 'reasoning') {
      if (slot.blockId === blockId && slot.emitted > 0) {
        if (text !== undefined) wholeText(message, slot, text, out);
        return;
      }
      // Its text is kept from its first character on, to read the whole text that may come again.
      if (slot.blockId === undefined && slot.emitted === 0) {
        slot.blockId = blockId;
        slot.text = '';
      }
    }
    if (text !== undefined) emitText(message, slot, text, out);
  }

  /** The content of a message: text and reasoning, provider calls and their results. */
  function readContent(message: Message, content: unknown, out: StreamEvent[]): void {
    if (typeof content === 'string') {
      if (content !== '') emitText(message, textSlot(message, 'message', undefined), content, out);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (typeof block === 'string') {
        if (block !== '') emitText(message, textSlot(message, 'message', undefined), block, out);
        continue;
      }
      if (!isRecord(block)) throw members.invalid('a content block that is not an object', block);
      readBlock(message, block, out);
    }
  }

  function readBlock(message: Message, block: JsonRecord, out: StreamEvent[]): void {
    const type = stringAt(block, 'type');
    switch (type) {
      case 'text':
        readTextBlock(message, 'message', block, members.optionalString(block, 'text', 'a text block'), out);
        break;
      case 'thinking':
        readTextBlock(message, 'reasoning', block, members.optionalString(block, 'thinking', 'a thinking block'), out);
        break;
      case 'reasoning':
        readTextBlock(message, 'reasoning', block, members.optionalString(block, 'reasoning', 'a reasoning block'), out);
        break;
      case 'non_standard': {
        const value = recordAt(block, 'value');
        const inner = stringAt(value, 'type');
        if (value === undefined || inner === undefined) break;
        if (SERVER_TOOL_BLOCKS.has(inner)) announce(message, value, out);
        else if (inner === 'thinking') {
          const signature = nonEmptyStringAt(value, 'signature');
          if (signature !== undefined) textSlot(message, 'reasoning', value['index']).signature = signature;
        } else if (inner.endsWith('_tool_result')) toolResult(message, value, stringAt(value, 'tool_use_id'), value['content'], isErrorResult(value), out);
        break;
      }
      case 'server_tool_call_chunk':
        announce(message, block, out);
        break;
      case 'server_tool_call': {
        const id = members.optionalString(block, 'id', 'a server_tool_call block') ?? '';
        const name = members.optionalString(block, 'name', 'a server_tool_call block') ?? '';
        const run = newRun(id, name, true);
        startRun(message, run, out);
        emitArguments(message, run, wholeArguments(block['args'], 'the args of a server_tool_call block'), out);
        flushRun(message, run, out);
        break;
      }
      case 'server_tool_call_result':
        toolResult(message, block, stringAt(block, 'tool_call_id') ?? stringAt(block, 'toolCallId'), block['output'] ?? null, stringAt(block, 'status') === 'error', out);
        break;
      default:
        if (type !== undefined && SERVER_TOOL_BLOCKS.has(type)) announce(message, block, out);
        else if (type !== undefined && type.endsWith('_tool_result') && type !== 'tool_result') {
          toolResult(message, block, stringAt(block, 'tool_use_id'), block['content'] ?? null, isErrorResult(block), out);
        }
        // tool_use, input_json_delta, tool_call, tool_call_chunk and invalid_tool_call repeat
        // `tool_call_chunks`; images, citations and blocks added later are not ours.
        break;
    }
  }

  function isErrorResult(block: JsonRecord): boolean {
    const content = recordAt(block, 'content');
    return block['is_error'] === true || (stringAt(content, 'type')?.endsWith('_error') ?? false);
  }

  function toolResult(message: Message, block: JsonRecord, toolCallId: string | undefined, result: unknown, isError: boolean, out: StreamEvent[]): void {
    message.content = true;
    const index = nextSlot++;
    out.push(
      partEvent(index, {
        type: 'provider-tool-result',
        toolCallId: toolCallId ?? '',
        result: (result ?? null) as JsonValue,
        ...(isError ? { isError: true as const } : {}),
      }),
    );
    out.push({ type: 'flush', index, metadata: { blockType: stringAt(block, 'type') ?? 'unknown', block } });
  }

  /** A content block that announces a call the provider runs at its index. */
  function announce(message: Message, block: JsonRecord, out: StreamEvent[]): void {
    const key = indexKey(block['index']);
    const id = nonEmptyStringAt(block, 'id') ?? '';
    const name = nonEmptyStringAt(block, 'name') ?? '';
    if (key === undefined) return;
    message.announced.set(key, { id, name });
    const run = message.calls.get(key);
    if (run !== undefined && run.slot === undefined && !run.flushed) {
      // Its chunks came first: it is the provider's call after all.
      const provider = newRun(id || run.id, name || run.name, true);
      provider.held.push(...run.held);
      provider.heldLength = run.heldLength;
      message.calls.set(key, provider);
      startRun(message, provider, out);
    }
  }

  function newRun(id: string, name: string, providerExecuted: boolean): CallRun {
    return {
      id,
      name,
      slot: undefined,
      providerExecuted,
      custom: false,
      held: [],
      heldLength: 0,
      emitted: 0,
      streamed: undefined,
      pendingHigh: '',
      error: undefined,
      wholeArgs: undefined,
      flushed: false,
    };
  }

  function startRun(message: Message, run: CallRun, out: StreamEvent[]): void {
    if (run.slot !== undefined || run.flushed) return;
    if (run.name === '' && !run.providerExecuted) return;
    run.slot = nextSlot++;
    message.order.push(run);
    message.content = true;
    if (!run.providerExecuted) message.applicationCalls = true;
    out.push(partEvent(run.slot, { type: 'tool-call-start', toolCallId: run.id, toolName: run.name, ...(run.providerExecuted ? { providerExecuted: true as const } : {}) }));
    if (run.held.length > 0) {
      const text = run.held.length === 1 ? (run.held[0] as string) : run.held.join('');
      run.held.length = 0;
      run.heldLength = 0;
      emitArguments(message, run, text, out);
    }
  }

  /** Argument text of a call: emitted once it started, held before. */
  function emitArguments(message: Message, run: CallRun, text: string, out: StreamEvent[]): void {
    if (text === '') return;
    message.content = true;
    if (run.slot === undefined) {
      run.heldLength += text.length;
      if (run.heldLength > MAX_HELD_ARGUMENTS) {
        run.held.length = 0;
        throw new ProviderError(
          'langchain',
          'invalid-stream',
          `langchain: the argument text of a tool call whose name has not arrived grew beyond ${MAX_HELD_ARGUMENTS} characters`,
          { code: 'max-buffered-bytes' },
        );
      }
      run.held.push(text);
      return;
    }
    let chunk = text;
    if (run.custom) {
      // A custom tool's raw input, as LangChain hands it to the tool: `{"input": "<text>"}`.
      let raw = run.pendingHigh + text;
      const last = raw.charCodeAt(raw.length - 1);
      run.pendingHigh = last >= 0xd800 && last <= 0xdbff ? raw.slice(-1) : '';
      if (run.pendingHigh !== '') raw = raw.slice(0, -1);
      chunk = (run.emitted === 0 ? '{"input":"' : '') + JSON.stringify(raw).slice(1, -1);
      if (chunk === '') return;
    }
    run.emitted += chunk.length;
    out.push(partEvent(run.slot, { type: 'tool-call-arguments', chunk }));
  }

  function flushRun(message: Message, run: CallRun, out: StreamEvent[], endOfInput = false): void {
    if (run.flushed) return;
    run.flushed = true;
    if (run.slot === undefined) {
      // Never named: not a call of the application's (see the TSDoc); its held text goes.
      run.held.length = 0;
      return;
    }
    if (run.emitted === 0 && run.wholeArgs !== undefined) emitArguments(message, run, run.wholeArgs, out);
    if (run.custom && !endOfInput) {
      // Close the input string (an empty input is `{"input": ""}`, as LangChain gives it).
      const close = `${run.emitted === 0 ? '{"input":"' : ''}${JSON.stringify(run.pendingHigh).slice(1, -1)}"}`;
      run.pendingHigh = '';
      run.emitted += close.length;
      out.push(partEvent(run.slot, { type: 'tool-call-arguments', chunk: close }));
    }
    const metadata = metadataOf({ toolCallError: run.error });
    out.push(metadata === undefined ? { type: 'flush', index: run.slot } : { type: 'flush', index: run.slot, metadata });
  }

  function flushText(slot: TextSlot, out: StreamEvent[]): void {
    const metadata = metadataOf({
      signature: slot.kind === 'reasoning' ? slot.signature : undefined,
      ...(slot.finalText !== undefined ? { textMismatch: true, finalText: slot.finalText } : {}),
    });
    out.push(metadata === undefined ? { type: 'flush', index: slot.index } : { type: 'flush', index: slot.index, metadata });
  }

  /** Flush a message's open slots, in the order they opened. */
  function flushMessage(message: Message, out: StreamEvent[]): void {
    for (const slot of message.order) {
      if ('kind' in slot) flushText(slot, out);
      else flushRun(message, slot, out);
    }
    clearSlots(message);
  }

  function clearSlots(message: Message): void {
    message.order.length = 0;
    message.texts.clear();
    message.calls.clear();
    message.announced.clear();
    message.blocks.clear();
  }

  function finish(message: Message, rawReason: string | undefined, out: StreamEvent[]): void {
    if (message.finished) return;
    message.finished = true;
    graphMessages.delete(message);
    message.rawReason = rawReason;
    lastEnded = message;
    flushMessage(message, out);
  }

  /** A call's arguments sent whole (an object, or a JSON string as some integrations keep them). */
  function wholeArguments(args: unknown, what: string): string {
    if (args === undefined || args === null) return '';
    if (typeof args === 'string') return args;
    return jsonTextOf('langchain', args, what);
  }

  /** The `tool_call_chunks` of a chunk, merged as `concat` merges them. */
  function readToolCallChunks(message: Message, chunks: readonly unknown[], out: StreamEvent[]): void {
    for (const chunk of chunks) {
      if (!isRecord(chunk)) throw members.invalid('a tool call chunk that is not an object', chunk);
      const where = 'a tool call chunk';
      const id = members.optionalString(chunk, 'id', where);
      const name = members.optionalString(chunk, 'name', where);
      const args = members.optionalString(chunk, 'args', where);
      const index = chunk['index'];
      if (index !== undefined && index !== null && typeof index !== 'number' && typeof index !== 'string') {
        throw members.invalid(`${where} whose \`index\` is neither a number nor a string`, chunk);
      }
      const key = indexKey(index) ?? (id ? `id:${id}` : undefined);
      let run = key === undefined ? undefined : message.calls.get(key);
      if (run !== undefined && (run.flushed || (id && run.id !== '' && run.id !== id))) {
        // Another id at the same index: `concat` keeps two calls, so does this.
        flushRun(message, run, out);
        run = undefined;
      }
      if (run === undefined) {
        const announced = key === undefined ? undefined : message.announced.get(key);
        run = announced !== undefined ? newRun(announced.id, announced.name, true) : newRun('', '', false);
        if (key !== undefined) message.calls.set(key, run);
        if (announced !== undefined) startRun(message, run, out);
      }
      if (chunk['isCustomTool'] === true && run.emitted === 0 && run.heldLength === 0) run.custom = true;
      const started = run.slot !== undefined;
      if (id && run.id === '') {
        run.id = id;
        if (started) out.push(partEvent(run.slot as number, { type: 'tool-call-start', toolCallId: run.id, toolName: run.name, ...(run.providerExecuted ? { providerExecuted: true as const } : {}) }));
      }
      if (name && run.name === '') run.name = name;
      if (!started) startRun(message, run, out);
      if (args) emitArguments(message, run, args, out);
      if (key === undefined) {
        // Neither index nor id: nothing can continue it.
        flushRun(message, run, out);
      }
    }
  }

  /** The calls of a whole AI message: `tool_calls` sent whole, `invalid_tool_calls` failed. */
  function readWholeCalls(message: Message, fields: JsonRecord, out: StreamEvent[]): void {
    const where = 'an AI message';
    for (const call of members.optionalArray(fields, 'tool_calls', where) ?? []) {
      if (!isRecord(call)) throw members.invalid('a tool call that is not an object', call);
      const run = newRun(members.optionalString(call, 'id', 'a tool call') ?? '', members.optionalString(call, 'name', 'a tool call') ?? '', false);
      startRun(message, run, out);
      if (run.slot === undefined) continue;
      emitArguments(message, run, wholeArguments(call['args'], 'the args of a tool call'), out);
      flushRun(message, run, out);
    }
    for (const call of members.optionalArray(fields, 'invalid_tool_calls', where) ?? []) {
      if (!isRecord(call)) throw members.invalid('an invalid tool call that is not an object', call);
      const run = newRun(members.optionalString(call, 'id', 'an invalid tool call') ?? '', members.optionalString(call, 'name', 'an invalid tool call') ?? '', false);
      startRun(message, run, out);
      if (run.slot === undefined) continue;
      run.error = new ProviderError('langchain', 'invalid-tool-call', nonEmptyStringAt(call, 'error') ?? 'LangChain could not parse the tool call', { cause: call });
      flushRun(message, run, out);
    }
  }

  /** The fields of a message and whether it is an AI one, or `undefined` for what is no message. */
  function messageFields(record: JsonRecord): { readonly fields: JsonRecord; readonly type: string | undefined } | undefined {
    if (record['lc'] === 1 && record['type'] === 'constructor' && Array.isArray(record['id'])) {
      const kwargs = recordAt(record, 'kwargs');
      const name = record['id'][record['id'].length - 1];
      if (kwargs === undefined || typeof name !== 'string') return undefined;
      return { fields: kwargs, type: name };
    }
    const type = stringAt(record, 'type');
    if (type !== undefined && (AI_TYPES.has(type) || OTHER_MESSAGE_TYPES.has(type))) return { fields: record, type };
    if (Array.isArray(record['tool_call_chunks'])) return { fields: record, type: undefined };
    return undefined;
  }

  /** An AI message chunk (or whole message) read into its message. */
  function readMessage(fields: JsonRecord, type: string | undefined, source: Source, out: StreamEvent[], whole = false): void {
    if (type !== undefined && !AI_TYPES.has(type)) {
      if (TOOL_MESSAGE_TYPES.has(type)) out.push({ type: 'flush', index: nextSlot++, metadata: { blockType: 'tool', block: fields } });
      return;
    }
    const where = 'an AI message chunk';
    const content = fields['content'];
    if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
      throw members.invalid(`${where} whose \`content\` is neither a string nor an array`, fields);
    }
    const chunks = members.optionalArray(fields, 'tool_call_chunks', where);
    const usage = members.optionalRecord(fields, 'usage_metadata', where);
    members.optionalRecord(fields, 'response_metadata', where);
    members.optionalRecord(fields, 'additional_kwargs', where);
    const id = members.optionalString(fields, 'id', where) || undefined;
    const message = messageFor(id, source);
    const isChunk = chunks !== undefined && !whole;
    if (source.graph !== undefined && message.graph === undefined && !message.finished) {
      message.graph = source.graph;
      graphMessages.add(message);
    }
    if (!isChunk && message.streamed) {
      // The whole message of one that streamed (a LangGraph node's output, `on_chat_model_end`): it ends it.
      finish(message, message.rawReason ?? finishReasonOf(fields), out);
      return;
    }
    if (usage !== undefined) addUsage((message.usage ??= {}), usage);
    if (isChunk) message.streamed = true;
    // After its end, a chunk may still bring usage or metadata (OpenAI's usage chunk, often with an
    // empty text block), never content: read into a scratch list, anything it makes is refused.
    const into = message.finished ? [] : out;
    readContent(message, content, into);
    if (isChunk) readToolCallChunks(message, chunks, into);
    else readWholeCalls(message, fields, into);
    if (message.finished) {
      clearSlots(message);
      if (into.length > 0) {
        throw new ProviderError('langchain', 'after-end', 'langchain: a chunk with content or a tool call came after its message ended (its finish reason arrived); nothing is added to an ended message', {
          cause: fields,
        });
      }
    }
    const reason = finishReasonOf(fields);
    if (!isChunk) finish(message, reason ?? message.rawReason, out);
    else if (reason !== undefined) finish(message, reason, out);
  }

  // -------------------------------------------------------------------------------------------
  // The content-block protocol of `@langchain/core` ≥ 1.4.

  function protocolMessage(source: Source, start: boolean, id: string | undefined): Message {
    if (source.runId !== undefined) {
      const known = byRun.get(source.runId);
      if (known !== undefined && !(start && known.finished)) return (current = known);
      const message = newMessage();
      byRun.set(source.runId, message);
      return (current = message);
    }
    if (start || current === undefined) {
      const message = newMessage();
      if (id !== undefined) message.providerId = id;
      return (current = message);
    }
    return current;
  }

  function readProtocol(event: JsonRecord, name: string, source: Source, out: StreamEvent[]): void {
    const where = `a ${name} event`;
    if (name === 'provider') return;
    const message = protocolMessage(source, name === 'message-start', nonEmptyStringAt(event, 'id'));
    if (name === 'message-start' || name === 'usage') {
      const usage = members.optionalRecord(event, 'usage', where);
      if (usage !== undefined) addUsage((message.usage = {}), usage);
      return;
    }
    if (name === 'message-finish') {
      const usage = members.optionalRecord(event, 'usage', where);
      if (usage !== undefined) addUsage((message.usage = {}), usage);
      const metadata = members.optionalRecord(event, 'responseMetadata', where);
      // The provider's own reason where the metadata keeps it; the protocol's normalized one else.
      const raw =
        (metadata !== undefined ? (finishReasonOf({ response_metadata: metadata }) ?? responseStatusOf(metadata, true)) : undefined) ??
        members.optionalString(event, 'reason', where);
      finish(message, raw, out);
      return;
    }
    const index = members.requiredNumber(event, 'index', where);
    if (message.finished) {
      throw new ProviderError('langchain', 'after-end', `langchain: a ${name} event came after its message ended (message-finish); nothing is added to an ended message`, { cause: event });
    }
    const key = `p${index}`;
    switch (name) {
      case 'content-block-start': {
        const content = members.requiredRecord(event, 'content', where);
        startBlock(message, key, index, content, out);
        break;
      }
      case 'content-block-delta': {
        const delta = members.requiredRecord(event, 'delta', where);
        deltaBlock(message, key, index, delta, out);
        break;
      }
      case 'content-block-finish': {
        const content = members.requiredRecord(event, 'content', where);
        finishBlock(message, key, index, content, out);
        break;
      }
      default:
        break;
    }
  }

  function startBlock(message: Message, key: string, index: number, content: JsonRecord, out: StreamEvent[]): void {
    const type = stringAt(content, 'type');
    const where = `the content of a content-block-start event`;
    switch (type) {
      case 'tool_call_chunk':
      case 'server_tool_call_chunk':
      case 'tool_call':
      case 'server_tool_call':
      case 'invalid_tool_call': {
        const run = newRun(members.optionalString(content, 'id', where) ?? '', members.optionalString(content, 'name', where) ?? '', type.startsWith('server_'));
        run.custom = content['isCustomTool'] === true;
        message.calls.set(key, run);
        message.blocks.set(index, { kind: 'call', key });
        startRun(message, run, out);
        if (type === 'invalid_tool_call') run.error = invalidCall(content);
        else if (type === 'tool_call' || type === 'server_tool_call') run.wholeArgs = wholeArguments(content['args'], `the args of a ${type} block`);
        else {
          run.streamed = '';
          const args = members.optionalString(content, 'args', where) ?? '';
          run.streamed = args;
          emitArguments(message, run, args, out);
        }
        break;
      }
      case 'text':
      case 'reasoning': {
        const kind = type === 'text' ? 'message' : 'reasoning';
        message.blocks.set(index, { kind: 'text', key: `${kind}|n${index}` });
        readTextBlock(message, kind, { ...content, index }, members.optionalString(content, type, where), out);
        break;
      }
      default:
        message.blocks.set(index, { kind: 'other', key });
        readBlock(message, content, out);
        break;
    }
  }

  function invalidCall(content: JsonRecord): ProviderError {
    return new ProviderError('langchain', 'invalid-tool-call', nonEmptyStringAt(content, 'error') ?? 'LangChain could not parse the tool call', { cause: content });
  }

  function deltaBlock(message: Message, key: string, index: number, delta: JsonRecord, out: StreamEvent[]): void {
    const type = stringAt(delta, 'type');
    const where = `the delta of a content-block-delta event`;
    const block = message.blocks.get(index);
    switch (type) {
      case 'text-delta':
        emitText(message, textSlot(message, 'message', index), members.requiredString(delta, 'text', where), out);
        break;
      case 'reasoning-delta':
        emitText(message, textSlot(message, 'reasoning', index), members.requiredString(delta, 'reasoning', where), out);
        break;
      case 'tool-call-delta': {
        const run = message.calls.get(key);
        if (run === undefined) throw members.invalid(`a tool-call-delta for block ${index}, which is no tool call`, delta);
        const args = members.optionalString(delta, 'args', where) ?? '';
        if (run.streamed !== undefined) run.streamed += args;
        emitArguments(message, run, args, out);
        break;
      }
      case 'block-delta': {
        const fields = members.requiredRecord(delta, 'fields', where);
        const fieldsType = stringAt(fields, 'type');
        if (block?.kind === 'call' || fieldsType === 'tool_call_chunk' || fieldsType === 'server_tool_call_chunk') {
          const run = message.calls.get(key);
          if (run === undefined) throw members.invalid(`a block-delta of a tool call for block ${index}, which is no tool call`, delta);
          snapshot(message, run, fields, out);
        } else if (fieldsType === 'reasoning' || fieldsType === 'thinking') {
          const signature = nonEmptyStringAt(fields, 'signature');
          if (signature !== undefined) textSlot(message, 'reasoning', index).signature = signature;
        }
        break;
      }
      default:
        // data-delta (images, audio) and deltas added later.
        break;
    }
  }

  /** A `block-delta` of a tool call: its `args` are the arguments so far; what they add is emitted. */
  function snapshot(message: Message, run: CallRun, fields: JsonRecord, out: StreamEvent[]): void {
    const where = 'the fields of a block-delta of a tool call';
    const id = members.optionalString(fields, 'id', where);
    const name = members.optionalString(fields, 'name', where);
    const args = members.optionalString(fields, 'args', where);
    const started = run.slot !== undefined;
    if (id && run.id === '') {
      run.id = id;
      if (started) out.push(partEvent(run.slot as number, { type: 'tool-call-start', toolCallId: run.id, toolName: run.name, ...(run.providerExecuted ? { providerExecuted: true as const } : {}) }));
    }
    if (name && run.name === '') run.name = name;
    if (!started) startRun(message, run, out);
    if (args === undefined) return;
    const streamed = run.streamed ?? '';
    if (!args.startsWith(streamed)) {
      throw new ProviderError('langchain', 'text-mismatch', `langchain: the arguments of tool call ${excerpt(run.id) || '(no id)'} in a block-delta do not continue the arguments streamed before them`, {
        cause: { toolCallId: run.id, streamed, snapshot: args },
      });
    }
    run.streamed = args;
    emitArguments(message, run, args.slice(streamed.length), out);
  }

  function finishBlock(message: Message, key: string, index: number, content: JsonRecord, out: StreamEvent[]): void {
    const block = message.blocks.get(index);
    const type = stringAt(content, 'type');
    if (block?.kind === 'call') {
      const run = message.calls.get(key);
      if (run === undefined) return;
      if (type === 'invalid_tool_call') run.error ??= invalidCall(content);
      else if (run.streamed === '' || run.streamed === undefined) run.wholeArgs ??= wholeArguments(content['args'], `the args of a ${type ?? 'tool call'} block`);
      const id = nonEmptyStringAt(content, 'id');
      const name = nonEmptyStringAt(content, 'name');
      if (id !== undefined || name !== undefined) snapshot(message, run, { ...(id !== undefined ? { id } : {}), ...(name !== undefined ? { name } : {}) }, out);
      flushRun(message, run, out);
      message.calls.delete(key);
      const at = message.order.indexOf(run);
      if (at !== -1) message.order.splice(at, 1);
      return;
    }
    if (block?.kind === 'text') {
      const slot = message.texts.get(block.key);
      if (slot === undefined) return;
      const signature = nonEmptyStringAt(content, 'signature');
      if (signature !== undefined) slot.signature = signature;
      // A block that streamed no text has it whole here.
      const text = stringAt(content, slot.kind === 'message' ? 'text' : 'reasoning');
      if (slot.emitted === 0 && text !== undefined) emitText(message, slot, text, out);
      flushText(slot, out);
      message.texts.delete(block.key);
      const at = message.order.indexOf(slot);
      if (at !== -1) message.order.splice(at, 1);
      return;
    }
    if (block === undefined) {
      // A block whose start never came: read it whole.
      startBlock(message, key, index, content, out);
      finishBlock(message, key, index, content, out);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Envelopes: tuples, LangGraph SDK parts, streamEvents events.

  function readRecord(record: unknown, source: Source, out: StreamEvent[], depth = 0): void {
    if (depth > 4) throw members.invalid('records nested too deeply', undefined);
    if (Array.isArray(record)) {
      readArray(record, source, out, depth);
      return;
    }
    if (!isRecord(record)) {
      throw new ProviderError('langchain', 'invalid-stream', `langchain: expected a LangChain stream object (an AIMessageChunk, a [chunk, metadata] tuple, a streamEvents event), got ${record === null ? 'null' : typeof record}`, {
        code: 'invalid-input',
      });
    }
    const event = record['event'];
    if (typeof event === 'string') {
      readEvent(record, event, source, out, depth);
      return;
    }
    const message = messageFields(record);
    if (message !== undefined) {
      readMessage(message.fields, message.type, source, out);
      return;
    }
    if (isCheckpointEnvelope(record)) return;
    throw members.invalid(
      `expected an AIMessageChunk, a [chunk, metadata] tuple or a streamEvents event, got an object with ${Object.keys(record).length === 0 ? 'no members' : `members ${Object.keys(record).slice(0, 4).map((key) => `\`${excerpt(key)}\``).join(', ')}`}`,
      record,
    );
  }

  function readArray(record: readonly unknown[], source: Source, out: StreamEvent[], depth: number): void {
    const [first, second, third] = record;
    // [namespace, mode, payload] or [namespace, payload] (subgraphs).
    if (Array.isArray(first) && first.every((part) => typeof part === 'string')) {
      if (record.length === 3 && typeof second === 'string') readModePart(second, third, source, out, depth);
      else if (record.length === 2) readRecord(second, source, out, depth + 1);
      else throw members.invalid('a namespaced stream part that is not [namespace, mode, payload]', record);
      return;
    }
    // [mode, payload] (several stream modes).
    if (typeof first === 'string' && record.length === 2) {
      readModePart(first, second, source, out, depth);
      return;
    }
    // [chunk, metadata] (streamMode 'messages').
    if (record.length === 2 && isRecord(first) && (second === undefined || second === null || isRecord(second))) {
      const metadata = isRecord(second) ? second : undefined;
      const runId = nonEmptyStringAt(metadata, 'run_id');
      const graph = graphPlaceOf(metadata);
      if (graph !== undefined) enterStep(graph, out);
      readRecord(first, { runId: runId ?? source.runId, graph }, out, depth + 1);
      return;
    }
    throw members.invalid(`expected a [chunk, metadata] tuple, got an array of ${record.length}`, record);
  }

  function readModePart(mode: string, payload: unknown, source: Source, out: StreamEvent[], depth: number): void {
    if (mode === 'messages' || mode === 'messages-tuple') readRecord(payload, source, out, depth + 1);
    else if (!OTHER_STREAM_MODES.has(mode)) throw members.invalid(`a stream part of an unknown mode "${excerpt(mode)}"`, payload);
  }

  function readEvent(record: JsonRecord, event: string, source: Source, out: StreamEvent[], depth: number): void {
    if (event === 'messages' || event.startsWith('messages|')) {
      readRecord(record['data'], source, out, depth + 1);
      return;
    }
    if (event === 'events' || event.startsWith('events|')) {
      readRecord(record['data'], source, out, depth + 1);
      return;
    }
    if (event.startsWith('messages/')) {
      throw members.invalid(`a "${excerpt(event)}" part holds whole messages so far, not chunks: stream with streamMode 'messages-tuple'`, record);
    }
    if (event === 'error' || event.startsWith('error|')) {
      const data = recordAt(record, 'data');
      const message = nonEmptyStringAt(data, 'message') ?? nonEmptyStringAt(record, 'message') ?? 'the LangChain stream reported an error';
      const code = stringAt(record, 'code');
      throw new ProviderError('langchain', nonEmptyStringAt(data, 'error') ?? 'error', message, { code, cause: record });
    }
    if (PROTOCOL_EVENTS.has(event)) {
      readProtocol(record, event, source, out);
      return;
    }
    if (event.startsWith('on_chat_model_')) {
      const runId = nonEmptyStringAt(record, 'run_id');
      const run = runId !== undefined ? { runId } : source;
      const data = recordAt(record, 'data');
      if (event === 'on_chat_model_stream') {
        const chunk = data?.['chunk'];
        const message = isRecord(chunk) ? messageFields(chunk) : undefined;
        if (message === undefined) throw members.invalid('an on_chat_model_stream event without a message chunk in `data.chunk`', record);
        readMessage(message.fields, message.type, run, out);
      } else if (event === 'on_chat_model_end') {
        const message = messageFor(undefined, run);
        const output = data?.['output'];
        const fields = isRecord(output) ? messageFields(output) : undefined;
        if (!message.streamed && fields !== undefined) readMessage(fields.fields, fields.type, run, out, true);
        finish(message, message.rawReason ?? (fields !== undefined ? finishReasonOf(fields.fields) : undefined), out);
      }
      return;
    }
    // Other streamEvents (on_chain_*, on_tool_*, on_llm_*, …) and LangGraph SDK parts (values,
    // updates, metadata, end, …) hold no chat model chunk.
  }

  return {
    push(data: unknown): StreamEvent[] {
      const out: StreamEvent[] = [];
      readRecord(data, { runId: undefined }, out);
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      // A LangGraph stream ends when its run does: its messages are complete, their flushes say
      // so (`endOfInput: false`, where a flush at the end of input is otherwise taken for a cut).
      const ended: StreamEvent[] = [];
      for (const message of [...graphMessages]) finish(message, message.rawReason, ended);
      for (const event of ended) out.push(event.type === 'flush' ? { ...event, metadata: { ...event.metadata, endOfInput: false } } : event);
      for (const message of messages) {
        if (message.finished) continue;
        // Cut: its slots are flushed as they are (downstream, a call open here is incomplete).
        for (const slot of message.order) {
          if ('kind' in slot) flushText(slot, out);
          else flushRun(message, slot, out, true);
        }
        message.order.length = 0;
      }
      if (!complete()) return out;
      if (lastEnded === undefined) return out;
      const raw = lastEnded.rawReason;
      const mapped = raw === undefined ? 'stop' : (FINISH_REASONS.get(raw) ?? 'other');
      const reason: FinishReason = mapped === 'stop' && lastEnded.applicationCalls ? 'tool-calls' : mapped;
      let usage: Record<string, unknown> | undefined;
      for (const message of messages) if (message.usage !== undefined) addUsage((usage ??= {}), message.usage);
      out.push({
        type: 'finished',
        reason,
        ...(raw !== undefined ? { rawReason: raw } : {}),
        ...(usage !== undefined ? { usage: langChainUsage(usage) } : {}),
      });
      return out;
    },

    complete,
  };

  /** Every message that had content ended. */
  function complete(): boolean {
    return messages.every((message) => message.finished || !message.content);
  }
}

/** LangGraph's checkpoint envelope (`{id, step, source}`), the first part of a `version: 'v3'` stream. */
function isCheckpointEnvelope(record: JsonRecord): boolean {
  return typeof record['step'] === 'number' && typeof record['source'] === 'string' && !('content' in record);
}

