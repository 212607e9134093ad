/**
 * The adapter of the AI SDK's stream parts (`streamText(…).fullStream`, AI SDK v5), so that an
 * AI SDK user pipes `fullStream` into argstream's stages like a provider's body.
 *
 * @module
 */
import { ProviderError, excerpt } from '../errors.ts';
import type { EventMetadata, FinishReason, JsonValue, StreamEvent, Usage } from '../types.ts';
import { type PartReader, type ProviderAdapter, partEvent } from './adapter.ts';
import {
  type JsonRecord,
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

/** Options of {@link createAiSdkAdapter} (none yet). */
export interface AiSdkAdapterOptions {}

type SlotKind = 'text' | 'reasoning' | 'tool';

interface Slot {
  readonly index: number;
  readonly kind: SlotKind;
  /** Provider metadata seen on the slot's parts (the last one wins), for the flush. */
  providerMetadata: unknown;
  /** A tool call: the argument text its `tool-input-delta`s delivered. */
  streamed: string;
}

const FINISH_REASONS: ReadonlySet<string> = new Set(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other']);

/** The AI SDK's `LanguageModelUsage` (`inputTokens`, `outputTokens`, …) as a {@link Usage}. */
function aiSdkUsage(raw: JsonRecord): Usage {
  return usageOf({
    inputTokens: numberAt(raw, 'inputTokens'),
    outputTokens: numberAt(raw, 'outputTokens'),
    totalTokens: numberAt(raw, 'totalTokens'),
    reasoningTokens: numberAt(raw, 'reasoningTokens'),
    cachedInputTokens: numberAt(raw, 'cachedInputTokens'),
    raw,
  });
}

/** A reasoning signature in provider metadata (`{anthropic: {signature}}`), if any. */
function signatureOf(providerMetadata: unknown): string | undefined {
  if (!isRecord(providerMetadata)) return undefined;
  for (const value of Object.values(providerMetadata)) {
    const signature = nonEmptyStringAt(value, 'signature');
    if (signature !== undefined) return signature;
  }
  return undefined;
}

/** `{providerExecuted, dynamic}` of a tool part, where true. */
function toolMetadata(part: JsonRecord): EventMetadata | undefined {
  return metadataOf({ providerExecuted: part['providerExecuted'] === true || undefined, dynamic: part['dynamic'] === true || undefined });
}

/** The `type`s of the AI SDK's `fullStream` parts that no argstream event has. */
const AI_SDK_PART_TYPES: ReadonlySet<string> = new Set([
  'start-step',
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-result',
  'tool-error',
  'finish-step',
  'finish',
  'abort',
  'raw',
  'source',
  'file',
  'error',
]);

/**
 * Whether `event` is a part of the AI SDK's `fullStream` rather than an argstream event: its
 * `type` is one no argstream event has, or it is the AI SDK's `start` (no `kind`, unlike a
 * `start` fragment) or `tool-call` (with `input`, where argstream's has `arguments`). Internal:
 * the turn builder reads such parts through {@link createAiSdkAdapter}.
 */
export function isAiSdkPart(event: { readonly type: string }): boolean {
  if (AI_SDK_PART_TYPES.has(event.type)) return true;
  if (event.type === 'start') return !('kind' in event);
  return event.type === 'tool-call' && 'input' in event && !('arguments' in event);
}

/**
 * Creates the synchronous core that turns the parts of the AI SDK's `streamText(…).fullStream`
 * (v5) into {@link StreamEvent}s. Each record is one part object; bytes and text are refused
 * (`ProviderEventStream` errors with code `'invalid-input'`).
 *
 * - Content slots are numbered in order of first appearance, one per `text-*`, `reasoning-*` and
 *   `tool-input-*` id (an id reused after its `-end`, as in a later step, is a new slot).
 * - `text-delta` → `message` parts, `reasoning-delta` → `reasoning` parts; `text-end` /
 *   `reasoning-end` flush the slot, with the provider metadata (`{providerMetadata}`) and a
 *   reasoning signature found in it (`{signature}`).
 * - `tool-input-start` → `tool-call-start {toolCallId: id, toolName}` (with `providerExecuted:
 *   true`, also in metadata, for a tool the provider ran: a `provider-tool-call` downstream, never
 *   a `tool-call`), `tool-input-delta` → `tool-call-arguments`
 *   verbatim. The call's `tool-call` part flushes it; when no delta came (providers that send a
 *   call whole, with or without `tool-input-start`), its `input` is first emitted as one JSON
 *   argument chunk (a string input verbatim); when the deltas stopped short of that input (the
 *   OpenAI Responses provider takes a call's input from `output_item.done`), the rest of it is
 *   emitted if the deltas are a prefix of it; otherwise nothing is appended (the `input` is the
 *   AI SDK's parsed value, serialized again here, so its text may differ from the streamed JSON
 *   without its value differing: the streamed arguments stand). A call whose `tool-call` never comes is flushed at
 *   `finish-step`, `finish` or the end of input with `{endOfInput: true}`: a cut call, reported
 *   incomplete downstream with what arrived, never complete.
 * - A `tool-call` part with `invalid: true` (the AI SDK could not parse or validate the call: a
 *   tool the model made up, input its schema refuses) flushes the call with `{toolCallError}`: a
 *   `ProviderError` of type `'tool-input-error'` with the part's error's message (the error its
 *   `cause`); its `input` is not emitted as arguments. Downstream that call alone fails (a
 *   `tool-call-failed` event) and the turn goes on, as in the AI SDK's own UI: the source itself
 *   reported it, so `isolateErrors` does not apply (see `createAiSdkUiAdapter`'s
 *   `tool-input-error`). The `tool-error` part that follows it arrives whole, as below.
 * - `tool-result`, `tool-error`, `source` and `file` arrive whole: each is a slot with a flush
 *   whose metadata holds `{blockType, block}` (the part). The result of a provider-run call is
 *   also a `provider-tool-result` part (`result` the `output`, or the error with `isError`).
 * - `finish` → `finished` with its `finishReason` (`unknown` becomes `other`; the raw value is
 *   `rawReason`) and `totalUsage`. `start`, `start-step` and `raw` emit nothing; `finish-step`
 *   only flushes a call it cut.
 *
 * `end()` flushes what is still open. The stream is complete after `finish`; parts that end
 * before it were cut (`ProviderEventDecoder` errors with `'truncated'`), and a part that carries
 * content or a call after it is refused (`ProviderError` type `'after-end'`).
 *
 * @throws {ProviderError} on an `error` part: type is the error's `name` (`AI_APICallError`, …),
 * `status` its `statusCode` where it has one, `cause` the error itself. On an `abort` part (the
 * `abortSignal` given to `streamText` aborted: a stop, a closed connection): type `'aborted'`, as
 * the `ai-sdk-ui` adapter reads the UI message stream's `abort` chunk, the message the part's
 * `reason` (ai 7 sends the signal's reason; ai 5 none), the part as `cause`. Either way everything
 * before it has been emitted, and a call still streaming keeps what arrived (`TurnStore` shows it
 * `failed` with that error; `collectTurn` rejects with it). With type `'invalid-format'` for a
 * part of a type read here whose members are missing or of the wrong type (see the AI SDK's
 * `TextStreamPart`): a `text-*`, `reasoning-*` or `tool-input-*` part without a string `id`, a
 * `text-delta` or `reasoning-delta` without a string `text`, a `tool-input-delta` without a
 * string `delta`, a `tool-input-start` or `tool-call` without a string `toolName` (and the
 * call's `toolCallId`), a `finish` whose `finishReason` is not a string or `totalUsage` not an
 * object; and for a `tool-call`'s `input` that cannot be written as JSON text (nested too
 * deeply, a cycle, a `BigInt`). Part types added later are still ignored.
 */
export function createAiSdkAdapter(_options: AiSdkAdapterOptions = {}): ProviderAdapter {
  const members = membersOf('ai-sdk');
  const open = new Map<string, Slot>();
  /** Tool calls whose input streamed (`tool-input-start` seen), by id. */
  const streamedCalls = new Set<string>();
  let nextSlot = 0;
  let finished = false;

  function slotFor(kind: SlotKind, id: string, out: StreamEvent[], toolName?: string, metadata?: EventMetadata): Slot {
    const key = `${kind}:${id}`;
    let slot = open.get(key);
    if (slot === undefined) {
      slot = { index: nextSlot++, kind, providerMetadata: undefined, streamed: '' };
      open.set(key, slot);
      if (kind === 'tool') {
        streamedCalls.add(id);
        // A call the provider ran (a server tool) is not the application's to run.
        const provider = metadata?.['providerExecuted'] === true ? ({ providerExecuted: true } as const) : {};
        out.push(partEvent(slot.index, { type: 'tool-call-start', toolCallId: id, toolName: toolName ?? '', ...provider }, metadata));
      }
    }
    return slot;
  }

  function flush(kind: SlotKind, id: string, providerMetadata: unknown, out: StreamEvent[], extra?: EventMetadata): void {
    const key = `${kind}:${id}`;
    const slot = open.get(key);
    if (slot === undefined) return;
    open.delete(key);
    const metadata = metadataOf({
      ...extra,
      providerMetadata: providerMetadata ?? slot.providerMetadata,
      signature: kind === 'reasoning' ? signatureOf(providerMetadata ?? slot.providerMetadata) : undefined,
    });
    out.push(metadata === undefined ? { type: 'flush', index: slot.index } : { type: 'flush', index: slot.index, metadata });
  }

  /**
   * Flush the open slots (`tools`: only the calls), in slot order. A call still open was cut (its
   * `tool-call` part never came), so its flush says `endOfInput`, as a slot flushed at the end of
   * input does: downstream it is incomplete with what arrived, never a call without arguments.
   */
  function flushOpen(out: StreamEvent[], tools = false): void {
    for (const [key, slot] of [...open].sort((a, b) => a[1].index - b[1].index)) {
      if (tools && slot.kind !== 'tool') continue;
      flush(slot.kind, key.slice(slot.kind.length + 1), undefined, out, slot.kind === 'tool' ? { endOfInput: true } : undefined);
    }
  }

  function whole(part: JsonRecord, out: StreamEvent[]): void {
    const index = nextSlot++;
    const type = stringAt(part, 'type') ?? 'unknown';
    // The result of a call the provider ran: a `provider-tool-result` part, joined to its call by id.
    if (part['providerExecuted'] === true && (type === 'tool-result' || type === 'tool-error')) {
      const error = part['error'];
      const result = type === 'tool-result' ? part['output'] : error instanceof Error ? { name: error.name, message: error.message } : error;
      out.push(
        partEvent(index, {
          type: 'provider-tool-result',
          toolCallId: stringAt(part, 'toolCallId') ?? '',
          ...(stringAt(part, 'toolName') !== undefined ? { toolName: stringAt(part, 'toolName') as string } : {}),
          result: (result ?? null) as JsonValue,
          ...(type === 'tool-error' ? { isError: true as const } : {}),
        }),
      );
    }
    out.push({ type: 'flush', index, metadata: { blockType: type, block: part } });
  }

  /**
   * Check the members of a part of a type read here before it is read (`null` reads as absent):
   * skipped, such a part would leave its text or arguments out of a turn that looks complete.
   * @throws {ProviderError} type `'invalid-format'`.
   */
  function checkMembers(type: string | undefined, part: JsonRecord): void {
    const where = `a ${type} part`;
    switch (type) {
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
      case 'tool-input-end':
        members.requiredString(part, 'id', where);
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        members.requiredString(part, 'id', where);
        // `text` (AI SDK 5 and later), or `delta` as the UI message stream and providers name it.
        const text = members.optionalString(part, 'text', where) ?? members.optionalString(part, 'delta', where);
        if (text === undefined) throw members.invalid(`${where} without \`text\``, part);
        break;
      }
      case 'tool-input-start':
        members.requiredString(part, 'id', where);
        members.requiredString(part, 'toolName', where);
        break;
      case 'tool-input-delta':
        members.requiredString(part, 'id', where);
        members.requiredString(part, 'delta', where);
        break;
      case 'tool-call':
        members.requiredString(part, 'toolCallId', where);
        members.requiredString(part, 'toolName', where);
        break;
      case 'tool-result':
      case 'tool-error':
        members.optionalString(part, 'toolCallId', where);
        members.optionalString(part, 'toolName', where);
        break;
      case 'finish':
        members.optionalString(part, 'finishReason', where);
        members.optionalRecord(part, 'totalUsage', where);
        break;
      default:
        // start, start-step, finish-step, source, file, raw, error, abort, and part types added later.
        break;
    }
  }

  return {
    push(data: unknown): StreamEvent[] {
      if (!isRecord(data)) {
        throw new ProviderError('ai-sdk', 'invalid-stream', 'ai-sdk: expected a stream part object of `fullStream`', {
          code: 'invalid-input',
        });
      }
      checkMembers(stringAt(data, 'type'), data);
      const out: StreamEvent[] = [];
      const ended = finished;
      const id = stringAt(data, 'id') ?? '';
      const providerMetadata = data['providerMetadata'];
      switch (stringAt(data, 'type')) {
        case 'text-start':
          slotFor('text', id, out);
          break;
        case 'text-delta': {
          const slot = slotFor('text', id, out);
          const text = stringAt(data, 'text') ?? stringAt(data, 'delta');
          if (text) out.push(partEvent(slot.index, { type: 'message', text }));
          if (providerMetadata !== undefined) slot.providerMetadata = providerMetadata;
          break;
        }
        case 'text-end':
          flush('text', id, providerMetadata, out);
          break;
        case 'reasoning-start':
          slotFor('reasoning', id, out).providerMetadata = providerMetadata;
          break;
        case 'reasoning-delta': {
          const slot = slotFor('reasoning', id, out);
          const text = stringAt(data, 'text') ?? stringAt(data, 'delta');
          if (text) out.push(partEvent(slot.index, { type: 'reasoning', text }));
          if (providerMetadata !== undefined) slot.providerMetadata = providerMetadata;
          break;
        }
        case 'reasoning-end':
          flush('reasoning', id, providerMetadata, out);
          break;
        case 'tool-input-start':
          slotFor('tool', id, out, stringAt(data, 'toolName'), toolMetadata(data));
          break;
        case 'tool-input-delta': {
          const slot = slotFor('tool', id, out);
          const chunk = stringAt(data, 'delta');
          if (chunk) {
            slot.streamed += chunk;
            out.push(partEvent(slot.index, { type: 'tool-call-arguments', chunk }));
          }
          break;
        }
        case 'tool-input-end': {
          // Flushed by the `tool-call` part that follows, which carries the input when no delta did.
          const slot = open.get(`tool:${id}`);
          if (slot !== undefined && providerMetadata !== undefined) slot.providerMetadata = providerMetadata;
          break;
        }
        case 'tool-call': {
          const toolCallId = stringAt(data, 'toolCallId') ?? '';
          // A call whose input streamed and was already flushed: its arguments went by.
          if (streamedCalls.has(toolCallId) && !open.has(`tool:${toolCallId}`)) break;
          const slot = slotFor('tool', toolCallId, out, stringAt(data, 'toolName'), toolMetadata(data));
          if (data['invalid'] === true) {
            // The AI SDK could not parse or validate the call (an unknown tool, input its schema
            // refuses): the call fails, as the UI message stream's `tool-input-error` says.
            const error = data['error'];
            const message = error instanceof Error ? error.message : (nonEmptyStringAt(error, 'message') ?? nonEmptyString(error) ?? 'the AI SDK reported an invalid tool call');
            const toolCallError = new ProviderError('ai-sdk', 'tool-input-error', message, { cause: error });
            flush('tool', toolCallId, providerMetadata, out, { toolCallError });
            break;
          }
          const input = data['input'];
          const chunk = typeof input === 'string' ? input : jsonTextOf('ai-sdk', input, 'the input of a tool-call part');
          // The deltas may stop short of the final input (a provider that completes it from a final
          // event): what they lack is added when they are a prefix of it, as the input's JSON.
          const rest = chunk.startsWith(slot.streamed) ? chunk.slice(slot.streamed.length) : '';
          if (rest !== '') out.push(partEvent(slot.index, { type: 'tool-call-arguments', chunk: rest }));
          flush('tool', toolCallId, providerMetadata, out);
          break;
        }
        case 'tool-result':
        case 'tool-error':
        case 'source':
        case 'file':
          whole(data, out);
          break;
        case 'finish-step':
          // A call still open at its step's end gets no more input: the next step's calls are others.
          flushOpen(out, true);
          break;
        case 'finish': {
          if (finished) break;
          finished = true;
          flushOpen(out);
          const raw = stringAt(data, 'finishReason') ?? 'unknown';
          const usage = recordAt(data, 'totalUsage');
          out.push({
            type: 'finished',
            reason: FINISH_REASONS.has(raw) ? (raw as FinishReason) : 'other',
            rawReason: raw,
            ...(usage !== undefined ? { usage: aiSdkUsage(usage) } : {}),
          });
          break;
        }
        case 'error': {
          const error = data['error'];
          const record = isRecord(error) ? error : undefined;
          const message =
            error instanceof Error ? error.message : (nonEmptyStringAt(record, 'message') ?? (typeof error === 'string' ? error : 'the AI SDK stream reported an error'));
          const status = numberAt(record, 'statusCode');
          throw new ProviderError('ai-sdk', nonEmptyStringAt(record, 'name') ?? (error instanceof Error ? error.name : 'error'), message, {
            status,
            cause: error,
          });
        }
        case 'abort':
          // As the UI message stream's `abort` chunk is read (`ai-sdk-ui`): a stream stopped
          // before its end is no finished turn.
          throw new ProviderError('ai-sdk', 'aborted', nonEmptyStringAt(data, 'reason') ?? 'the AI SDK stream was aborted', { cause: data });
        default:
          // start, start-step, raw, and part types added later.
          break;
      }
      // Checked here as well as by ProviderEventDecoder: the turn builder reads parts itself
      // (`collectTurn(result.fullStream)`) through this adapter alone.
      if (ended && out.length > 0) {
        throw new ProviderError(
          'ai-sdk',
          'after-end',
          `ai-sdk: a "${excerpt(stringAt(data, 'type') ?? 'untyped')}" record came after the end of the stream ("finish"); nothing is added to a finished turn`,
          { cause: data },
        );
      }
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      flushOpen(out);
      return out;
    },

    complete: () => finished,

    /** After `finish` nothing belongs to the turn (a `raw` part is still ignored). */
    ended: () => finished,
  };
}

/**
 * The AI SDK's `fullStream` parts, for the stages that take them among argstream's events: each
 * stream's adapter, and at its end, after what the adapter flushes, a `ProviderError` (type
 * `'invalid-stream'`, code `'truncated'`) for parts that ended before their `finish` (or `abort`)
 * part, as `ProviderEventDecoder` refuses them: the stream was cut. Internal.
 */
export const AI_SDK_PARTS: PartReader = {
  isPart: isAiSdkPart,
  create: () => {
    const adapter = createAiSdkAdapter();
    let count = 0;
    let last = '';
    return {
      push: (part) => (count++, (last = (part as { readonly type: string }).type), adapter.push(part)),
      *end() {
        yield* adapter.end();
        if (adapter.complete?.() !== true) {
          throw new ProviderError(
            'ai-sdk',
            'invalid-stream',
            `ai-sdk: the stream ended before the \`finish\` (or \`abort\`) part: it was cut (after ${count} part${count === 1 ? '' : 's'}, the last "${last}"), so the turn is incomplete`,
            { code: 'truncated' },
          );
        }
      },
    };
  },
};
