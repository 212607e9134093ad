/**
 * The adapter of the AI SDK's UI message stream: what an AI SDK server sends to `useChat`
 * (`result.toUIMessageStreamResponse()`, `createUIMessageStreamResponse`), read like any provider's
 * stream, so that argstream's stages take an AI SDK server's response as input.
 *
 * @module
 */
import { ProviderError, excerpt } from '../errors.ts';
import type { EventMetadata, FinishReason, JsonValue, StreamEvent } from '../types.ts';
import { type ProviderAdapter, partEvent } from './adapter.ts';
import { type JsonRecord, type MemberReader, isRecord, jsonTextOf, membersOf, metadataOf, nonEmptyStringAt, stringAt } from './json-access.ts';

/** Path updates of one call's input → its JSON text, piece by piece (`path-update-text.ts`). */
export interface UpdateText {
  /** The text `update` adds. @throws {ProviderError} for an update argstream does not know. */
  push(update: unknown): string;
}

/** A tool call's slot, as the reader of its path updates sees it. Internal. */
export interface UpdatesCall {
  readonly index: number;
  /** The text its arguments delivered so far, one piece per part. */
  readonly streamed: string[];
  /** The writer of its path updates' text, once one came. */
  updates: UpdateText | undefined;
}

/**
 * Reads a `TOOL_INPUT_UPDATES` chunk into `out`: `callOf` gives the call's slot (opening it), or
 * `undefined` for a call already complete. Internal.
 */
export type UpdatesReader = (chunk: JsonRecord, out: StreamEvent[], callOf: (toolCallId: string, out: StreamEvent[]) => UpdatesCall | undefined) => void;

/** Options of {@link createAiSdkUiAdapter}. */
export interface AiSdkUiAdapterOptions {
  /**
   * Reads an argstream server's path updates (`TOOL_INPUT_UPDATES` chunks) as the call's argument
   * text (`readPathUpdates`). Without it they are passed on whole, as any other data chunk: the
   * chat transport, which takes them before the adapter, bundles no reader of them.
   */
  readonly readUpdates?: UpdatesReader;
}

type SlotKind = 'text' | 'reasoning' | 'tool';

interface Slot {
  readonly index: number;
  readonly kind: SlotKind;
  /** Provider metadata seen on the slot's chunks (the last one wins), for the flush. */
  providerMetadata: unknown;
  /**
   * A tool call: the text its `tool-input-delta`s delivered, one piece per delta (joined once, by
   * `tool-input-available`, to check it against the final input).
   */
  readonly streamed: string[];
  /** A tool call whose deltas are raw text (ai 7's `inputEncoding: 'text'`), sent as one JSON string. */
  readonly text: boolean;
  /** A tool call whose input an argstream server sent as path updates: their JSON text so far. */
  updates: UpdateText | undefined;
}

/**
 * The type of the transient data chunks that carry a call's input as path updates
 * (`UIMessageStreamEncoder`'s `toolInputs: 'path-updates'`): `data` is
 * `{ toolCallId, updates }`, the `PathUpdate`s one piece of the input makes.
 */
export const TOOL_INPUT_UPDATES = 'data-argstream-tool-input';

/** What ends a UI message stream, for the message of a stream cut before it. Internal. */
export const AI_SDK_UI_TERMINAL = 'the `finish` (or `abort`) chunk, or `[DONE]`';

/** The finish reasons of the UI stream that are argstream's own (`unknown` and ai 7's `interrupted` are `other`). */
const FINISH_REASONS: ReadonlySet<string> = new Set(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other']);

/** A reasoning signature in provider metadata (`{anthropic: {signature}}`), if any. */
function signatureOf(providerMetadata: unknown): string | undefined {
  if (!isRecord(providerMetadata)) return undefined;
  for (const value of Object.values(providerMetadata)) {
    const signature = nonEmptyStringAt(value, 'signature');
    if (signature !== undefined) return signature;
  }
  return undefined;
}

/** The metadata of a tool chunk argstream has no field for: `{dynamic, title, toolMetadata, providerMetadata, inputEncoding}`. */
function toolMetadata(chunk: JsonRecord): EventMetadata | undefined {
  return metadataOf({
    providerExecuted: chunk['providerExecuted'] === true || undefined,
    dynamic: chunk['dynamic'] === true || undefined,
    title: stringAt(chunk, 'title'),
    toolMetadata: chunk['toolMetadata'],
    providerMetadata: chunk['providerMetadata'],
    inputEncoding: stringAt(chunk, 'inputEncoding'),
  });
}

/**
 * `target` with `source` merged in (see {@link mergeMetadata}); metadata nested too deeply for
 * the merge's recursion is refused with a typed error rather than a `RangeError`.
 * @throws {ProviderError} type `'invalid-format'`.
 */
function mergedMetadata(target: unknown, source: unknown, members: MemberReader): unknown {
  try {
    return mergeMetadata(target, source);
  } catch (cause) {
    if (cause instanceof RangeError) throw members.invalid('message metadata nested too deeply to merge', cause);
    throw cause;
  }
}

/** `target` with `source` merged in, plain objects member by member (as the AI SDK merges message metadata). */
function mergeMetadata(target: unknown, source: unknown): unknown {
  if (source === undefined || source === null) return target;
  if (!isRecord(target) || !isRecord(source)) return source;
  const out: Record<string, unknown> = { ...target };
  for (const key of Object.keys(source)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    out[key] = mergeMetadata(target[key], source[key]);
  }
  return out;
}

/** A JSON string's content for raw text: `JSON.stringify` without its quotes. */
function jsonStringContent(text: string): string {
  const quoted = JSON.stringify(text);
  return quoted.slice(1, -1);
}

/**
 * What `tool-input-available`'s `input` adds to the text a call's deltas delivered: the final text
 * (`JSON.stringify(input)`; for a call of raw text, the input string itself) after the delivered
 * text when that is a prefix of it — all of it when no delta came, `''` when they are equal — and
 * `''` when it is not a prefix (see {@link createAiSdkUiAdapter}). The delivered text is joined
 * and the input serialized once, at the call's end: linear in the input's size.
 */
function restOf(slot: Slot, input: unknown): string {
  if (input === undefined) return '';
  let final: string;
  if (slot.text) {
    if (typeof input !== 'string') return '';
    final = input;
  } else final = jsonTextOf('ai-sdk-ui', input, 'the input of a tool-input-available chunk');
  if (slot.streamed.length === 0) return final;
  const delivered = slot.streamed.join('');
  return final.length > delivered.length && final.startsWith(delivered) ? final.slice(delivered.length) : '';
}

/**
 * Creates the synchronous core that turns the chunks of the AI SDK's UI message stream (`ai` 5
 * and 7, tested on their own servers' recordings; 6, in between, untested; SSE `data:` records or
 * the chunk objects themselves) into {@link StreamEvent}s.
 *
 * - Content slots are numbered in order of first appearance, one per `text-*` and `reasoning-*`
 *   id and per `toolCallId` (an id reused after its end, as in a later step, is a new slot).
 * - `text-delta` → `message` parts, `reasoning-delta` → `reasoning` parts; `text-end` /
 *   `reasoning-end` flush the slot, with `{providerMetadata}` (and `citations` of ai 7) in its
 *   metadata, and a reasoning `{signature}` found in the provider metadata. `finish-step` flushes
 *   the text and reasoning still open (the AI SDK forgets them there).
 * - `tool-input-start` → `tool-call-start {toolCallId, toolName}` (`providerExecuted: true` for a
 *   call the provider runs: a `provider-tool-call` downstream, never a `tool-call`; `dynamic`,
 *   `title`, `toolMetadata` in metadata); `tool-input-delta` → `tool-call-arguments` verbatim.
 *   `tool-input-available` completes the call with its `input`, the value the AI SDK keeps: when
 *   no delta came, the input is emitted as one argument chunk (`JSON.stringify(input)`); when the
 *   deltas stopped short of it (the AI SDK's OpenAI Responses provider takes a call's input from
 *   `output_item.done`, whatever its deltas carried), the rest of that text is emitted as one more
 *   chunk if the deltas are a prefix of it. When they are not, nothing is appended and the
 *   streamed arguments stand, as the `ai-sdk` adapter does with a `tool-call` part: the input is
 *   the AI SDK's parsed value serialized again, so its text may differ from the streamed JSON
 *   (spacing, escapes, key order) without its value differing, and text neither contains would
 *   come of appending to it; streamed arguments that are not complete JSON then leave the call
 *   incomplete downstream. A call's delta text is kept until its end and checked there once (one
 *   join, one `JSON.stringify`): linear in the input's size. With ai 7's `inputEncoding: 'text'`
 *   the deltas are raw text: they stream as the content of one JSON string, completed the same
 *   way from a string `input`.
 * - `data-argstream-tool-input` (an argstream server's `UIMessageStreamEncoder` with `toolInputs:
 *   'path-updates'` sends a call's input as path updates instead of deltas): the updates become
 *   the call's argument text, as its deltas would have been, so that a call cut mid-input keeps
 *   what arrived. Keys and strings are written escaped and numbers only as JSON literals; an update
 *   of a kind argstream does not know is a `ProviderError` of type `'invalid-stream'` (code
 *   `'invalid-input'`).
 * - `tool-input-error` (what an AI SDK server sends for a call it could not parse or validate: a
 *   tool the model made up, a provider tool it does not know, input its schema refuses; it goes on
 *   after it) flushes the call with `{toolCallError}` in the flush metadata: a `ProviderError` of
 *   type `'tool-input-error'` with the chunk's `errorText` (the chunk is its `cause`). Its `input`
 *   is not emitted as arguments. Downstream that call alone fails — a `tool-call-failed` event,
 *   the error on the call — and the turn goes on, as the AI SDK's own client shows it (the part in
 *   state `output-error`): the source reported the failure, so `isolateErrors` does not apply to
 *   it. Arguments that argstream itself finds not to be JSON still follow `isolateErrors`.
 * - A call still open when its step ends (`finish-step`), when the message ends (`finish`) or
 *   when the input ends was cut before its `tool-input-available`: its flush carries
 *   `{endOfInput: true}`, and downstream it is incomplete (`tool-call-incomplete`, `failed` in
 *   `TurnStore`) with the input that arrived, never complete and never `{}`.
 * - `tool-output-available` / `tool-output-error` of a provider-run call → a
 *   `provider-tool-result` part (`result` the output, or the error text with `isError`).
 * - Every other chunk — `start`, `start-step`, `finish-step`, `message-metadata`, `source-url`,
 *   `source-document`, `file`, `data-*`, the output of a call the application runs (executed by
 *   the AI SDK server), ai 7's `tool-approval-*`, `custom`, `reasoning-file`, … and types added
 *   later — is passed on whole, in order: a slot of its own whose `flush` carries `{blockType,
 *   block}` (the chunk), as the other adapters pass on blocks they do not model.
 * - `finish` → `finished`: its `finishReason` (ai 6 and 7; `unknown` and `interrupted` become
 *   `other`, the raw value is `rawReason`), or when it has none (ai 5) `tool-calls` if the last
 *   step had a call of the application's and `stop` otherwise. Its metadata holds the `start`
 *   chunk's `messageId` and the message metadata (of `start`, `message-metadata` and `finish`,
 *   merged).
 *
 * `end()` flushes what is still open. The stream is complete once `finish` arrived (or `data:
 * [DONE]`, which the decoder reads). Every chunk after `finish` (a second `finish` included: each
 * would change the AI SDK's message) is a `ProviderError` of type `'after-end'`; the `[DONE]`
 * line after it is framing.
 *
 * @throws {ProviderError} on an `error` chunk: type `'error'`, the message its `errorText`, the
 * chunk as `cause` (what the AI SDK server's `onError` chose to tell; by default "An error
 * occurred."). On an `abort` chunk (the AI SDK server's request was aborted: a stop button, a
 * closed tab, its own abort signal): type `'aborted'`, the message ai 7's `reason` (`"AbortError:
 * This operation was aborted"`; ai 5 sends none), the chunk as `cause`. Either way everything
 * before it has been emitted, and a call still streaming keeps what arrived (`TurnStore` shows it
 * `failed` with that error; `collectTurn` rejects with it). With type `'invalid-format'` for a
 * chunk of a type read here whose members are missing or of the wrong type (see the AI SDK's
 * `UIMessageChunk`): a `text-*` or `reasoning-*` chunk without a string `id`, a delta without a
 * string `delta` (`inputTextDelta`), a `tool-*` chunk without a string `toolCallId`, a
 * `tool-input-start` without a string `toolName`, a `messageId`, `finishReason` or `errorText`
 * that is not a string; for a `tool-input-available`'s `input` that cannot be written as JSON
 * text (nested too deeply), and for message metadata nested too deeply to merge. Chunk types
 * added later are still passed on whole.
 */
export function createAiSdkUiAdapter(options: AiSdkUiAdapterOptions = {}): ProviderAdapter {
  const readUpdates = options.readUpdates;
  const members = membersOf('ai-sdk-ui');
  const open = new Map<string, Slot>();
  /** Tool calls flushed already, by id: a repeated `tool-input-available` changes nothing. */
  const closedCalls = new Set<string>();
  /** Tool names by call id, for the results of provider-run calls. */
  const toolNames = new Map<string, { name: string; provider: boolean }>();
  let nextSlot = 0;
  let finished = false;
  /** The last step called a tool of the application's (for ai 5's `finish`, which has no reason). */
  let stepHadCalls = false;
  let messageId: string | undefined;
  let messageMetadata: unknown;

  /** The slot the last chunk went to: deltas come in runs for one slot, so most lookups end here. */
  let last: Slot | undefined;
  let lastId = '';

  function slotFor(kind: SlotKind, id: string, out: StreamEvent[], chunk?: JsonRecord): Slot {
    if (last !== undefined && last.kind === kind && lastId === id) return last;
    const key = `${kind}:${id}`;
    let slot = open.get(key);
    if (slot === undefined) {
      slot = { index: nextSlot++, kind, providerMetadata: undefined, streamed: [], text: stringAt(chunk, 'inputEncoding') === 'text', updates: undefined };
      open.set(key, slot);
      if (kind === 'tool') {
        const provider = chunk?.['providerExecuted'] === true;
        const toolName = stringAt(chunk, 'toolName') ?? '';
        toolNames.set(id, { name: toolName, provider });
        if (!provider) stepHadCalls = true;
        out.push(
          partEvent(
            slot.index,
            provider ? { type: 'tool-call-start', toolCallId: id, toolName, providerExecuted: true } : { type: 'tool-call-start', toolCallId: id, toolName },
            chunk === undefined ? undefined : toolMetadata(chunk),
          ),
        );
        if (slot.text) out.push(partEvent(slot.index, { type: 'tool-call-arguments', chunk: '"' }));
      }
    }
    last = slot;
    lastId = id;
    return slot;
  }

  /** A tool call's slot (opened by the chunk), or `undefined` for a call complete already: more of it would make arguments the AI SDK never had. */
  function openCall(toolCallId: string, out: StreamEvent[], chunk?: JsonRecord): Slot | undefined {
    return closedCalls.has(toolCallId) && !open.has(`tool:${toolCallId}`) ? undefined : slotFor('tool', toolCallId, out, chunk);
  }

  function flush(kind: SlotKind, id: string, extra: EventMetadata | undefined, out: StreamEvent[]): void {
    const key = `${kind}:${id}`;
    const slot = open.get(key);
    if (slot === undefined) return;
    open.delete(key);
    if (slot === last) last = undefined;
    if (kind === 'tool') closedCalls.add(id);
    const providerMetadata = extra?.['providerMetadata'] ?? slot.providerMetadata;
    const metadata = metadataOf({
      ...extra,
      providerMetadata,
      signature: kind === 'reasoning' ? signatureOf(providerMetadata) : undefined,
    });
    out.push(metadata === undefined ? { type: 'flush', index: slot.index } : { type: 'flush', index: slot.index, metadata });
  }

  /**
   * Flush the open slots of `kinds`, in slot order. A call still open was cut: its input never
   * ended (no `tool-input-available` nor `tool-input-error`), so its flush says `endOfInput`, as
   * a slot flushed at the end of input does, and downstream it is incomplete with what arrived —
   * never a call without arguments.
   */
  function flushOpen(kinds: ReadonlySet<SlotKind>, out: StreamEvent[]): void {
    for (const [key, slot] of [...open].sort((a, b) => a[1].index - b[1].index)) {
      // A cut call of raw text keeps its string open: it is incomplete downstream.
      if (!kinds.has(slot.kind)) continue;
      flush(slot.kind, key.slice(slot.kind.length + 1), slot.kind === 'tool' ? { endOfInput: true } : undefined, out);
    }
  }

  /** A chunk argstream does not model, passed on whole: a slot of its own with only a flush. */
  function whole(chunk: JsonRecord, out: StreamEvent[]): void {
    out.push({ type: 'flush', index: nextSlot++, metadata: { blockType: stringAt(chunk, 'type') ?? 'unknown', block: chunk } });
  }

  /** `tool-output-available` / `tool-output-error`: a provider-run call's result, else passed on. */
  function output(chunk: JsonRecord, out: StreamEvent[]): void {
    const toolCallId = stringAt(chunk, 'toolCallId') ?? '';
    const call = toolNames.get(toolCallId);
    const provider = chunk['providerExecuted'] === true || (chunk['providerExecuted'] === undefined && call?.provider === true);
    if (!provider || chunk['preliminary'] === true) {
      whole(chunk, out);
      return;
    }
    const index = nextSlot++;
    const failed = chunk['type'] === 'tool-output-error';
    const result = (failed ? (stringAt(chunk, 'errorText') ?? '') : (chunk['output'] ?? null)) as JsonValue;
    out.push(
      partEvent(index, {
        type: 'provider-tool-result',
        toolCallId,
        ...(call !== undefined && call.name !== '' ? { toolName: call.name } : {}),
        result,
        ...(failed ? { isError: true as const } : {}),
      }),
    );
    out.push({ type: 'flush', index, metadata: { blockType: chunk['type'], block: chunk } });
  }

  /**
   * Check the members of a chunk of a type read here before it is read (`null` reads as absent):
   * skipped, such a chunk would leave its text or arguments out of a message that looks complete.
   * @throws {ProviderError} type `'invalid-format'`.
   */
  function checkMembers(type: string | undefined, chunk: JsonRecord): void {
    const where = `a ${type} chunk`;
    switch (type) {
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
        members.requiredString(chunk, 'id', where);
        break;
      case 'text-delta':
      case 'reasoning-delta':
        members.requiredString(chunk, 'id', where);
        members.requiredString(chunk, 'delta', where);
        break;
      case 'tool-input-start':
        members.requiredString(chunk, 'toolCallId', where);
        members.requiredString(chunk, 'toolName', where);
        break;
      case 'tool-input-delta':
        members.requiredString(chunk, 'toolCallId', where);
        members.requiredString(chunk, 'inputTextDelta', where);
        break;
      case 'tool-input-available':
      case 'tool-input-error':
      case 'tool-output-available':
      case 'tool-output-error':
        members.requiredString(chunk, 'toolCallId', where);
        members.optionalString(chunk, 'toolName', where);
        members.optionalString(chunk, 'errorText', where);
        break;
      case 'start':
        members.optionalString(chunk, 'messageId', where);
        break;
      case 'finish':
        members.optionalString(chunk, 'finishReason', where);
        break;
      case 'error':
        members.optionalString(chunk, 'errorText', where);
        break;
      default:
        // Chunks passed on whole, and chunk types added later.
        break;
    }
  }

  const TEXT_KINDS: ReadonlySet<SlotKind> = new Set(['text', 'reasoning']);
  const TOOL_KINDS: ReadonlySet<SlotKind> = new Set(['tool']);
  const ALL_KINDS: ReadonlySet<SlotKind> = new Set(['text', 'reasoning', 'tool']);

  const adapter = {
    push(data: unknown): StreamEvent[] {
      if (!isRecord(data)) return [];
      const out: StreamEvent[] = [];
      const type = stringAt(data, 'type');
      if (finished) {
        // Every chunk after `finish` changes the AI SDK's message (even one that opens an empty
        // text part, or metadata), so none is framing: the `[DONE]` line is the decoder's.
        throw new ProviderError(
          'ai-sdk-ui',
          'after-end',
          `ai-sdk-ui: a "${excerpt(type ?? 'untyped')}" record came after the end of the stream ("finish"); nothing is added to a finished turn`,
          { cause: data },
        );
      }
      checkMembers(type, data);
      const providerMetadata = data['providerMetadata'];
      switch (type) {
        case 'text-start':
        case 'reasoning-start': {
          const slot = slotFor(type === 'text-start' ? 'text' : 'reasoning', stringAt(data, 'id') ?? '', out);
          if (providerMetadata !== undefined) slot.providerMetadata = providerMetadata;
          break;
        }
        case 'text-delta':
        case 'reasoning-delta': {
          const slot = slotFor(type === 'text-delta' ? 'text' : 'reasoning', stringAt(data, 'id') ?? '', out);
          const text = stringAt(data, 'delta');
          if (text) out.push(partEvent(slot.index, type === 'text-delta' ? { type: 'message', text } : { type: 'reasoning', text }));
          if (providerMetadata !== undefined) slot.providerMetadata = providerMetadata;
          break;
        }
        case 'text-end':
        case 'reasoning-end':
          flush(
            type === 'text-end' ? 'text' : 'reasoning',
            stringAt(data, 'id') ?? '',
            metadataOf({ providerMetadata, citations: data['citations'] }),
            out,
          );
          break;
        case 'tool-input-start':
          slotFor('tool', stringAt(data, 'toolCallId') ?? '', out, data);
          break;
        case 'tool-input-delta': {
          const slot = openCall(stringAt(data, 'toolCallId') ?? '', out, data);
          if (slot === undefined) break;
          const delta = stringAt(data, 'inputTextDelta');
          if (delta) {
            slot.streamed.push(delta);
            out.push(partEvent(slot.index, { type: 'tool-call-arguments', chunk: slot.text ? jsonStringContent(delta) : delta }));
          }
          break;
        }
        case 'tool-input-available': {
          const toolCallId = stringAt(data, 'toolCallId') ?? '';
          const slot = openCall(toolCallId, out, data);
          if (slot === undefined) break;
          const rest = restOf(slot, data['input']);
          if (rest !== '') out.push(partEvent(slot.index, { type: 'tool-call-arguments', chunk: slot.text ? jsonStringContent(rest) : rest }));
          if (slot.text) out.push(partEvent(slot.index, { type: 'tool-call-arguments', chunk: '"' }));
          flush('tool', toolCallId, toolMetadata(data), out);
          break;
        }
        case 'tool-input-error': {
          const toolCallId = stringAt(data, 'toolCallId') ?? '';
          if (openCall(toolCallId, out, data) === undefined) break;
          const error = new ProviderError('ai-sdk-ui', 'tool-input-error', stringAt(data, 'errorText') ?? 'the AI SDK reported invalid tool input', {
            cause: data,
          });
          flush('tool', toolCallId, { ...toolMetadata(data), toolCallError: error }, out);
          break;
        }
        case 'tool-output-available':
        case 'tool-output-error':
          output(data, out);
          break;
        case 'start':
          messageId = nonEmptyStringAt(data, 'messageId') ?? messageId;
          messageMetadata = mergedMetadata(messageMetadata, data['messageMetadata'], members);
          whole(data, out);
          break;
        case 'message-metadata':
          messageMetadata = mergedMetadata(messageMetadata, data['messageMetadata'], members);
          whole(data, out);
          break;
        case 'start-step':
          stepHadCalls = false;
          whole(data, out);
          break;
        case 'finish-step':
          // The AI SDK forgets the text and reasoning still open at a step's end; a call still
          // open gets no more input (the next step's calls are others).
          flushOpen(TEXT_KINDS, out);
          flushOpen(TOOL_KINDS, out);
          whole(data, out);
          break;
        case 'finish': {
          messageMetadata = mergedMetadata(messageMetadata, data['messageMetadata'], members);
          finished = true;
          flushOpen(ALL_KINDS, out);
          const raw = stringAt(data, 'finishReason');
          const reason: FinishReason = raw === undefined ? (stepHadCalls ? 'tool-calls' : 'stop') : FINISH_REASONS.has(raw) ? (raw as FinishReason) : 'other';
          const metadata = metadataOf({ messageId, messageMetadata });
          out.push({
            type: 'finished',
            reason,
            ...(raw !== undefined ? { rawReason: raw } : {}),
            ...(metadata !== undefined ? { metadata } : {}),
          });
          break;
        }
        case 'abort':
          throw new ProviderError('ai-sdk-ui', 'aborted', nonEmptyStringAt(data, 'reason') ?? 'the AI SDK server aborted the response', { cause: data });
        case 'error':
          throw new ProviderError('ai-sdk-ui', 'error', nonEmptyStringAt(data, 'errorText') ?? 'the AI SDK stream reported an error', { cause: data });
        case TOOL_INPUT_UPDATES:
          if (readUpdates !== undefined) readUpdates(data, out, openCall);
          else whole(data, out);
          break;
        default:
          // source-url, source-document, file, data-*, and every chunk type added later.
          whole(data, out);
          break;
      }
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      flushOpen(ALL_KINDS, out);
      return out;
    },

    /** The server ended the message: `finish`. */
    complete(): boolean {
      return finished;
    },

    /** After `finish` nothing belongs to the message (the `[DONE]` line after it is framing). */
    ended(): boolean {
      return finished;
    },
  };
  return adapter;
}
