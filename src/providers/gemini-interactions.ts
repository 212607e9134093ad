/**
 * The adapter of Gemini's Interactions API stream (`POST /v1beta/interactions` with
 * `stream: true`; `@google/genai`'s `interactions.create({ stream: true })`): steps that start,
 * stream deltas and stop, function-call arguments streamed as text (`arguments_delta`).
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { EventMetadata, FinishReason, JsonValue, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, type ProviderDefinition, partEvent, providerErrorOf } from './adapter.ts';
import { type JsonRecord, isRecord, jsonTextOf, membersOf, metadataOf, numberAt, recordAt, stringAt, usageOf } from './json-access.ts';

/** Options of {@link createGeminiInteractionsAdapter} (none yet). */
export interface GeminiInteractionsAdapterOptions {}

const PROVIDER = 'gemini-interactions';

/** What a step is, for the slot it makes. */
type StepKind = 'message' | 'reasoning' | 'call' | 'provider-call' | 'result' | 'other';

/** One step of the interaction (`step.start` … `step.stop`), keyed by its `index`. */
interface Step {
  readonly index: number;
  readonly slot: number;
  readonly kind: StepKind;
  readonly type: string;
  id: string;
  name: string;
  /** Something of the slot went out (a part), so its flush means something. */
  emitted: boolean;
  /** A call: its arguments arrived as text (`arguments_delta`); else the whole object below is used. */
  streamed: boolean;
  /** A call: the arguments object it arrived with (`step.start`, or a whole `function_call` delta). */
  whole: JsonRecord | undefined;
  /** A result step: the result, its call id, and whether it is an error. */
  result: JsonValue | undefined;
  callId: string;
  isError: boolean;
  signature: string;
  annotations: unknown[];
}

/** The tool name of a call the provider runs, by step type (an MCP server's calls carry their own `name`). */
function hostedName(type: string): string {
  return type.endsWith('_call') ? type.slice(0, -'_call'.length) : type;
}

function stepKind(type: string): StepKind {
  switch (type) {
    case 'model_output':
    case 'text':
      return 'message';
    case 'thought':
      return 'reasoning';
    case 'function_call':
      return 'call';
    case 'function_result':
    case 'user_input':
      return 'other';
    default:
      if (type.endsWith('_call')) return 'provider-call';
      if (type.endsWith('_result')) return 'result';
      return 'other';
  }
}

/**
 * Create the adapter of the `'gemini-interactions'` wire format: one parsed SSE `data` object per
 * {@link ProviderAdapter.push} (its type in `event_type`, the SSE `event:` name its fallback), or
 * an event object `@google/genai` yields.
 *
 * - `step.start {index, step}` opens a slot per step: `model_output` is message text, `thought`
 *   reasoning, `function_call` a tool call (`tool-call-start {id, name}` at once), a step of
 *   another `*_call` type a call the provider runs (`code_execution_call`, `google_search_call`,
 *   `url_context_call`, `file_search_call`, `google_maps_call`, `mcp_server_tool_call`, …:
 *   `providerExecuted`, named `code_execution`, `google_search`, …, or the MCP tool's `name`),
 *   a `*_result` step that call's `provider-tool-result`. `function_result` and `user_input`
 *   steps (the input, echoed) make nothing.
 * - `step.delta {index, delta}`: `text` is message text, `thought_summary` (its `content.text`)
 *   reasoning, `thought_signature` the reasoning's signature (flush metadata `{signature}`),
 *   `arguments_delta` a chunk of the call's argument text, verbatim (`arguments`, or
 *   `partial_arguments` of the API's first revision), `text_annotation_delta` annotations (flush
 *   metadata `{annotations}`); a `*_call` delta brings a provider-run call's `arguments` whole, a
 *   `*_result` delta its result. Media deltas are not read.
 * - `step.stop` flushes the step's slot (metadata `{stepIndex, eventId?, signature?,
 *   annotations?}`). A function call whose arguments never streamed gets the `arguments` object it
 *   started with, as one chunk of JSON text (none for `{}`: downstream reads no chunks as `{}`).
 * - `interaction.completed` flushes what is open and emits `finished`: `tool-calls` when the
 *   status is `requires_action` or a function call was made, `length` for `incomplete` and
 *   `budget_exceeded`, `other` for `cancelled`, else `stop`; `rawReason` is the status, `usage`
 *   the interaction's (`total_output_tokens` plus `total_thought_tokens` as output tokens), and
 *   metadata `{interactionId, eventId}`.
 * - `event_id`, the token a client resumes the stream from, is kept: the last one seen is the
 *   `eventId` of each flush and of `finished`.
 * - The API's earlier revision is read the same way: `interaction.start`, `content.start
 *   {index, content}`, `content.delta`, `content.stop`, `interaction.complete`, and a
 *   `function_call` delta with the whole `{id, name, arguments}`.
 * - `interaction.created`, `interaction.status_update` and types the adapter does not know are
 *   ignored.
 * - Steps carry their `index`: a second `step.start` of an index errors with a `ProviderError` of
 *   type `'invalid-stream'` and code `'duplicate'`, a delta or a stop before its step's start or a
 *   delta after its stop with code `'out-of-order'` (a record lost, repeated or swapped on the
 *   way), after everything before it; a repeated `step.stop` changes nothing and is ignored. A
 *   delta lost, repeated or swapped inside an open step cannot be noticed (deltas carry no number).
 *
 * `end()` flushes the steps still open (a call cut off stays incomplete) and emits no `finished`
 * when `interaction.completed` never came: `ProviderEventDecoder` reports the stream as cut.
 *
 * @throws {ProviderError} for an `error` event (type `error`, the error's `code` and `message`),
 *   with type `'failed'` for an interaction that completes with status `failed`, with type
 *   `'invalid-stream'` for steps out of order (above), and with type
 *   `'invalid-format'` for an event of a known type whose members are of the wrong type (a step
 *   without a numeric `index`, a `step` or `delta` that is not an object, a delta's text that is not
 *   a string, …), or a provider-run call's arguments that cannot be written as JSON text.
 */
export function createGeminiInteractionsAdapter(_options: GeminiInteractionsAdapterOptions = {}): ProviderAdapter {
  const members = membersOf(PROVIDER);
  const steps = new Map<number, Step>();
  /** The indexes of the steps that have stopped: a step's events never come after its stop. */
  const stopped = new Set<number>();
  let nextSlot = 0;
  let sawFunctionCall = false;
  let interactionId: string | undefined;
  let eventId: string | undefined;
  let usage: Usage | undefined;
  let completed = false;

  function open(index: number, type: string, out: StreamEvent[], source?: JsonRecord): Step {
    const kind = stepKind(type);
    const step: Step = {
      index,
      slot: nextSlot++,
      kind,
      type,
      id: '',
      name: '',
      emitted: false,
      streamed: false,
      whole: undefined,
      result: undefined,
      callId: '',
      isError: false,
      signature: '',
      annotations: [],
    };
    steps.set(index, step);
    if (kind === 'call' || kind === 'provider-call') {
      if (kind === 'call') sawFunctionCall = true;
      step.id = (source && members.optionalString(source, 'id', `a ${type} step`)) ?? '';
      step.name = (source && members.optionalString(source, 'name', `a ${type} step`)) ?? (kind === 'call' ? '' : hostedName(type));
      out.push(
        partEvent(
          step.slot,
          kind === 'call'
            ? { type: 'tool-call-start', toolCallId: step.id, toolName: step.name }
            : { type: 'tool-call-start', toolCallId: step.id, toolName: step.name, providerExecuted: true },
        ),
      );
      step.emitted = true;
    }
    return step;
  }

  /**
   * The open step a delta (or a stop) belongs to. Steps carry their `index`, so a delta before its
   * step's start or after its stop (a record lost, repeated or swapped on the way) is noticed.
   * @throws {ProviderError} type `'invalid-stream'`, code `'out-of-order'`.
   */
  function openStep(index: number, type: string, data: JsonRecord): Step {
    const step = steps.get(index);
    if (step !== undefined) return step;
    const when = stopped.has(index) ? 'after its step.stop' : 'before its step.start';
    throw new ProviderError(PROVIDER, 'invalid-stream', `${PROVIDER}: a ${type} of step ${index} ${when}`, { code: 'out-of-order', cause: data });
  }

  function text(step: Step, kind: 'message' | 'reasoning', value: string, out: StreamEvent[]): void {
    if (value === '') return;
    out.push(partEvent(step.slot, { type: kind, text: value }));
    step.emitted = true;
  }

  /** What a `step.start` (or `content.start`) says of its step at once. */
  function started(step: Step, source: JsonRecord, out: StreamEvent[]): void {
    const where = `a ${step.type} step`;
    switch (step.kind) {
      case 'message': {
        const direct = members.optionalString(source, 'text', where);
        if (direct !== undefined) text(step, 'message', direct, out);
        for (const item of members.optionalArray(source, 'content', where) ?? []) {
          const value = stringAt(item, 'type') === 'text' ? stringAt(item, 'text') : undefined;
          if (value !== undefined) text(step, 'message', value, out);
        }
        break;
      }
      case 'reasoning':
        step.signature += members.optionalString(source, 'signature', where) ?? '';
        for (const item of members.optionalArray(source, 'summary', where) ?? []) {
          const value = stringAt(item, 'type') === 'text' ? stringAt(item, 'text') : undefined;
          if (value !== undefined) text(step, 'reasoning', value, out);
        }
        break;
      case 'call':
      case 'provider-call':
        step.whole = members.optionalRecord(source, 'arguments', where);
        step.signature += members.optionalString(source, 'signature', where) ?? '';
        break;
      case 'result':
        takeResult(step, source, where);
        break;
      default:
        break;
    }
  }

  function takeResult(step: Step, source: JsonRecord, where: string): void {
    step.callId = members.optionalString(source, 'call_id', where) ?? step.callId;
    step.name = members.optionalString(source, 'name', where) ?? step.name;
    if (source['result'] !== undefined) step.result = source['result'] as JsonValue;
    if (source['is_error'] === true) step.isError = true;
  }

  function delta(step: Step, data: JsonRecord, out: StreamEvent[]): void {
    const type = members.requiredString(data, 'type', 'a step delta');
    const where = `a ${type} delta`;
    switch (type) {
      case 'text': {
        const value = members.requiredString(data, 'text', where);
        if (step.kind === 'message' || step.kind === 'reasoning') text(step, step.kind, value, out);
        else if (step.kind !== 'other') throw members.invalid(`text in a ${step.type} step`, data);
        return;
      }
      case 'thought_summary': {
        const content = members.optionalRecord(data, 'content', where);
        const value = content !== undefined && stringAt(content, 'type') === 'text' ? members.optionalString(content, 'text', `the content of ${where}`) : undefined;
        // A summary belongs to a thought step (an image summary is not read).
        if (value !== undefined && step.kind === 'reasoning') text(step, 'reasoning', value, out);
        return;
      }
      case 'thought_signature':
        step.signature += members.optionalString(data, 'signature', where) ?? '';
        return;
      case 'arguments_delta': {
        const chunk = members.optionalString(data, 'arguments', where) ?? members.optionalString(data, 'partial_arguments', where) ?? '';
        if (step.kind !== 'call' && step.kind !== 'provider-call') throw members.invalid(`argument text in a ${step.type} step`, data);
        step.streamed = true;
        if (chunk !== '') out.push(partEvent(step.slot, { type: 'tool-call-arguments', chunk }));
        return;
      }
      case 'text_annotation_delta':
      case 'text_annotation':
        step.annotations.push(...(members.optionalArray(data, 'annotations', where) ?? []));
        return;
      case 'function_call': {
        // The earlier revision: the whole call in one delta.
        const id = members.optionalString(data, 'id', where) ?? '';
        const name = members.optionalString(data, 'name', where) ?? '';
        if ((id !== '' && step.id === '') || (name !== '' && step.name === '')) {
          step.id ||= id;
          step.name ||= name;
          out.push(partEvent(step.slot, { type: 'tool-call-start', toolCallId: step.id, toolName: step.name }));
        }
        step.whole = members.optionalRecord(data, 'arguments', where) ?? step.whole;
        step.signature += members.optionalString(data, 'signature', where) ?? '';
        return;
      }
      default:
        if (step.kind === 'provider-call' && type.endsWith('_call')) {
          step.whole = members.optionalRecord(data, 'arguments', where) ?? step.whole;
          const name = stringAt(data, 'name');
          if (name !== undefined && name !== '' && step.name === hostedName(step.type) && step.type === 'mcp_server_tool_call') step.name = name;
        } else if (step.kind === 'result' && type.endsWith('_result')) {
          takeResult(step, data, where);
        }
        // Media (image, audio, document, video) and types not known here: not read.
        return;
    }
  }

  /** `step.stop`: the call's arguments if they never streamed, a result's part, then the flush. */
  function close(step: Step, out: StreamEvent[]): void {
    steps.delete(step.index);
    stopped.add(step.index);
    switch (step.kind) {
      case 'call':
      case 'provider-call':
        if (!step.streamed && step.whole !== undefined && Object.keys(step.whole).length > 0) {
          out.push(partEvent(step.slot, { type: 'tool-call-arguments', chunk: jsonTextOf(PROVIDER, step.whole, `the arguments of a ${step.type}`) }));
        }
        break;
      case 'result':
        if (step.result === undefined && step.callId === '') return;
        out.push(
          partEvent(step.slot, {
            type: 'provider-tool-result',
            toolCallId: step.callId,
            ...(step.name !== '' ? { toolName: step.name } : {}),
            result: step.result ?? null,
            ...(step.isError ? { isError: true as const } : {}),
          }),
        );
        step.emitted = true;
        break;
      case 'reasoning':
        // A thought that is only a signature (Gemini 3 sends one before a call): the signature goes on.
        if (!step.emitted && step.signature !== '') {
          out.push(partEvent(step.slot, { type: 'reasoning', text: '' }));
          step.emitted = true;
        }
        break;
      default:
        break;
    }
    if (!step.emitted) return;
    const metadata: EventMetadata | undefined = metadataOf({
      stepIndex: step.index,
      eventId,
      signature: step.signature === '' ? undefined : step.signature,
      annotations: step.annotations.length === 0 ? undefined : step.annotations,
    });
    out.push(metadata === undefined ? { type: 'flush', index: step.slot } : { type: 'flush', index: step.slot, metadata });
  }

  function closeAll(out: StreamEvent[]): void {
    for (const step of [...steps.values()].sort((a, b) => a.slot - b.slot)) close(step, out);
  }

  function readUsage(raw: JsonRecord | undefined): void {
    if (raw === undefined) return;
    const output = numberAt(raw, 'total_output_tokens');
    const thoughts = numberAt(raw, 'total_thought_tokens');
    if (output === undefined && thoughts === undefined && numberAt(raw, 'total_input_tokens') === undefined && numberAt(raw, 'total_tokens') === undefined) return;
    usage = usageOf({
      inputTokens: numberAt(raw, 'total_input_tokens'),
      outputTokens: output === undefined && thoughts === undefined ? undefined : (output ?? 0) + (thoughts ?? 0),
      totalTokens: numberAt(raw, 'total_tokens'),
      reasoningTokens: thoughts,
      cachedInputTokens: numberAt(raw, 'total_cached_tokens'),
      raw,
    });
  }

  function finish(data: JsonRecord, out: StreamEvent[]): void {
    const interaction = members.requiredRecord(data, 'interaction', 'an interaction.completed event');
    interactionId = members.optionalString(interaction, 'id', 'the interaction') ?? interactionId;
    const status = members.optionalString(interaction, 'status', 'the interaction');
    readUsage(members.optionalRecord(interaction, 'usage', 'the interaction'));
    closeAll(out);
    completed = true;
    if (status === 'failed') {
      throw new ProviderError(PROVIDER, 'failed', `${PROVIDER}: the interaction completed with status "failed"`, { cause: data });
    }
    const metadata = metadataOf({ interactionId, eventId });
    out.push({
      type: 'finished',
      reason: finishReason(status, sawFunctionCall),
      ...(status !== undefined ? { rawReason: status } : {}),
      ...(usage !== undefined ? { usage } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }

  return {
    push(data, event) {
      if (!isRecord(data)) throw members.invalid('an event that is not an object', data);
      const type = stringAt(data, 'event_type') ?? event;
      const id = stringAt(data, 'event_id');
      if (id !== undefined && id !== '') eventId = id;
      const out: StreamEvent[] = [];
      switch (type) {
        case 'interaction.created':
        case 'interaction.start': {
          const interaction = members.optionalRecord(data, 'interaction', `an ${type} event`);
          interactionId = (interaction && members.optionalString(interaction, 'id', 'the interaction')) ?? interactionId;
          return out;
        }
        case 'step.start':
        case 'content.start': {
          const where = `a ${type} event`;
          const index = members.requiredNumber(data, 'index', where);
          const source = members.requiredRecord(data, type === 'step.start' ? 'step' : 'content', where);
          const stepType = members.requiredString(source, 'type', `the step of ${where}`);
          if (steps.has(index) || stopped.has(index)) {
            throw new ProviderError(PROVIDER, 'invalid-stream', `${PROVIDER}: a second ${type} of step ${index}`, { code: 'duplicate', cause: data });
          }
          started(open(index, stepType, out, source), source, out);
          return out;
        }
        case 'step.delta':
        case 'content.delta': {
          const where = `a ${type} event`;
          const index = members.requiredNumber(data, 'index', where);
          const payload = members.requiredRecord(data, 'delta', where);
          readUsage(recordAt(members.optionalRecord(data, 'metadata', where), 'total_usage'));
          members.requiredString(payload, 'type', 'a step delta');
          delta(openStep(index, type, data), payload, out);
          return out;
        }
        case 'step.stop':
        case 'content.stop': {
          const index = members.requiredNumber(data, 'index', `a ${type} event`);
          readUsage(members.optionalRecord(data, 'usage', `a ${type} event`));
          // A second stop changes nothing; a stop of a step never started is a lost start.
          if (!stopped.has(index)) close(openStep(index, type, data), out);
          return out;
        }
        case 'interaction.completed':
        case 'interaction.complete':
          finish(data, out);
          return out;
        case 'error':
          throw providerErrorOf(PROVIDER, data['error'] ?? data, ['status', 'type'], 'the interaction reported an error in the stream');
        default:
          // interaction.status_update, and types added later.
          return out;
      }
    },

    end() {
      const out: StreamEvent[] = [];
      closeAll(out);
      return out;
    },

    complete: () => completed,
    ended: () => completed,
  };
}

/** The interaction's status as a {@link FinishReason}. */
function finishReason(status: string | undefined, sawFunctionCall: boolean): FinishReason {
  switch (status) {
    case 'requires_action':
      return 'tool-calls';
    case 'incomplete':
    case 'budget_exceeded':
      return 'length';
    case 'cancelled':
      return 'other';
    case undefined:
    case 'completed':
      return sawFunctionCall ? 'tool-calls' : 'stop';
    default:
      return 'other';
  }
}

/**
 * The `'gemini-interactions'` provider: Gemini's Interactions API (its SSE, with `arguments_delta`). Internal: exported as `GEMINI_INTERACTIONS_PROVIDER` from its own entry point.
 */
export const GEMINI_INTERACTIONS_PROVIDER: ProviderDefinition = { name: 'gemini-interactions', framing: 'sse', create: () => createGeminiInteractionsAdapter(), terminal: '`interaction.completed`' };
