/**
 * The adapter of AG-UI, the event protocol between agent backends (LangGraph, Mastra, Google ADK,
 * AWS Strands, Pydantic AI, CrewAI, …) and the UIs that show them (CopilotKit, assistant-ui, …):
 * its events read like any provider's stream, so that argstream's stages take an AG-UI agent's
 * response as input.
 *
 * @module
 */
import { ProviderError, excerpt } from '../errors.ts';
import type { FinishReason, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, type ProviderDefinition, partEvent } from './adapter.ts';
import { addCounts, type JsonRecord, isRecord, membersOf, metadataOf, numberAt, recordAt, stringAt, usageOf, type UsageFields } from './json-access.ts';

/** What a content slot carries: text, reasoning or a tool call's arguments. */
type Kind = 'text' | 'reasoning' | 'tool';

interface Slot {
  readonly index: number;
  readonly kind: Kind;
  readonly id: string;
  /** A text message whose role is not `assistant` (a user, system or developer message): passed on whole. */
  readonly foreign: boolean;
  /** The lane (`subagentRunId`, `undefined` for the parent agent) of a slot opened by a `*_CHUNK`. */
  lane?: string | undefined;
  signature?: string;
  readonly metadata: JsonRecord | undefined;
}

/** The chunk events, by what they stand for. */
const CHUNKS: Readonly<Record<string, Kind>> = { TEXT_MESSAGE_CHUNK: 'text', REASONING_MESSAGE_CHUNK: 'reasoning', TOOL_CALL_CHUNK: 'tool' };

/**
 * Events that leave the chunk streams open (what `@ag-ui/client`'s chunk expansion passes by);
 * every other event ends the chunk stream of its own lane, the run-level ones every lane's.
 */
const KEEPS_LANES = /^(?:RAW|ACTIVITY_.*|REASONING_ENCRYPTED_VALUE|SUBAGENT_STARTED|RUN_ERROR|.*_CHUNK)$/;

/**
 * Creates the synchronous core that turns AG-UI events (SSE `data:` records as `@ag-ui/encoder`
 * writes them, or the event objects `@ag-ui/client` yields) into {@link StreamEvent}s.
 *
 * - Content slots are numbered in order of first appearance: one per assistant text message, per
 *   reasoning message and per tool call (keyed by `messageId` / `toolCallId`).
 * - `TEXT_MESSAGE_START` / `_CONTENT` / `_END` → `message` parts, the flush with `{messageId}`;
 *   `REASONING_MESSAGE_START` / `_CONTENT` / `_END` → `reasoning` parts, the flush with a
 *   `{signature}` when a `REASONING_ENCRYPTED_VALUE` (subtype `message`) came for it while it was
 *   open. A text message of another role (`user`, `system`, `developer`) is not the assistant's:
 *   its events are passed on whole.
 * - `TOOL_CALL_START {toolCallId, toolCallName}` → `tool-call-start` (`{parentMessageId}` in
 *   metadata), `TOOL_CALL_ARGS` → `tool-call-arguments` verbatim, `TOOL_CALL_END` flushes the call
 *   (downstream: `{}` when no argument text came).
 * - `TEXT_MESSAGE_CHUNK`, `REASONING_MESSAGE_CHUNK` and `TOOL_CALL_CHUNK` are read as
 *   `@ag-ui/client` expands them: a chunk with an id (and, for a call, its name) opens a stream,
 *   chunks without one continue the stream open in their lane (`subagentRunId`), and that stream
 *   ends at the next chunk of another stream or another id, at the next event of its lane (but
 *   `RAW`, `ACTIVITY_*`, `REASONING_ENCRYPTED_VALUE`, `SUBAGENT_STARTED` and `RUN_ERROR`), at
 *   `RUN_STARTED`, `MESSAGES_SNAPSHOT` or `RUN_FINISHED` (every lane), or at the end of input.
 * - `RUN_FINISHED` → `finished`: `tool-calls` when the run left calls without a
 *   `TOOL_CALL_RESULT` (or its outcome names `pendingToolCallIds`), else `stop`; an `interrupt` or
 *   `cancelled` outcome is `other` (its type as `rawReason`). Its `usage` entries are summed (the
 *   list is `usage.raw`), `{threadId, runId, result}` is its metadata. A call still open then was
 *   cut: its flush says `{endOfInput: true}`, and downstream it is incomplete.
 * - Every other event — `RUN_STARTED`, `STEP_*`, `STATE_*`, `MESSAGES_SNAPSHOT`, `ACTIVITY_*`,
 *   `TOOL_CALL_RESULT`, `REASONING_START` / `_END`, `CUSTOM`, `RAW`, `SUBAGENT_*` and types added
 *   later — is passed on whole, in order: a slot of its own whose `flush` carries `{blockType,
 *   block}` (the event), as the other adapters pass on blocks they do not model.
 *
 * The stream is complete once `RUN_FINISHED` arrived; after it nothing belongs to the turn (an
 * event after it is a `ProviderError` of type `'after-end'`: one stream is one run).
 *
 * @throws {ProviderError} on `RUN_ERROR`: type `'error'` (`'aborted'` for the code `abort` that
 * `@ag-ui/client` gives a cancelled request), the event's `message` and `code`, the event as
 * `cause`, after everything before it (a call still streaming keeps what arrived). Type
 * `'invalid-stream'` for events out of order: code `'duplicate'` for a start (or an opening chunk)
 * of a message or call that is open already, or of a call that ended; `'out-of-order'` for content,
 * arguments or an end of a message or call that is not open (unknown, or ended), and for a
 * `RUN_STARTED` while a run is open; `'ambiguous'` for an id-less chunk that two lanes could
 * continue. Type `'invalid-format'` for an event without a string `type`, and for an event of a
 * type read here whose members are missing or of the wrong type (a `TOOL_CALL_ARGS` without a
 * string `delta`, a first `TOOL_CALL_CHUNK` without `toolCallId` or `toolCallName`, …).
 */
export function createAgUiAdapter(): ProviderAdapter {
  const members = membersOf('ag-ui');
  /** The open slots, by `<kind>:<id>`. */
  const open = new Map<string, Slot>();
  /** Tool calls that ended, and the calls of the run still without a result. */
  const endedCalls = new Set<string>();
  const unanswered = new Set<string>();
  /** The slot each lane's chunks go to. */
  const lanes = new Map<string | undefined, Slot>();
  let nextSlot = 0;
  let running = false;
  let finished = false;

  const invalid = (code: string, message: string, cause: unknown): ProviderError =>
    new ProviderError('ag-ui', 'invalid-stream', `ag-ui: ${message}`, { code, cause });

  /** Open the slot of a message or call; a tool call's start part goes out with it. */
  function start(kind: Kind, id: string, data: JsonRecord, out: StreamEvent[], foreign = false): Slot {
    const key = `${kind}:${id}`;
    if (open.has(key) || (kind === 'tool' && endedCalls.has(id))) {
      throw invalid('duplicate', `${stringAt(data, 'type')} for ${kind === 'tool' ? 'tool call' : 'message'} "${excerpt(id)}", which ${open.has(key) ? 'is open already' : 'ended'}`, data);
    }
    const subagentRunId = stringAt(data, 'subagentRunId');
    const slot: Slot = {
      index: nextSlot++,
      kind,
      id,
      foreign,
      metadata: metadataOf(kind === 'tool' ? { parentMessageId: stringAt(data, 'parentMessageId'), subagentRunId } : { messageId: id, subagentRunId }),
    };
    open.set(key, slot);
    if (foreign) whole(data, out);
    else if (kind === 'tool') {
      unanswered.add(id);
      out.push(partEvent(slot.index, { type: 'tool-call-start', toolCallId: id, toolName: stringAt(data, 'toolCallName') ?? '' }, slot.metadata));
    }
    return slot;
  }

  /** The open slot an event continues. */
  function continued(kind: Kind, id: string, data: JsonRecord): Slot {
    const slot = open.get(`${kind}:${id}`);
    if (slot === undefined) {
      throw invalid('out-of-order', `${stringAt(data, 'type')} for ${kind === 'tool' ? 'tool call' : 'message'} "${excerpt(id)}", which is not open`, data);
    }
    return slot;
  }

  /** A piece of a slot's content (nothing for an empty one). */
  function content(slot: Slot, delta: string | undefined, data: JsonRecord, out: StreamEvent[]): void {
    if (slot.foreign) return whole(data, out);
    if (!delta) return;
    out.push(
      partEvent(slot.index, slot.kind === 'text' ? { type: 'message', text: delta } : slot.kind === 'reasoning' ? { type: 'reasoning', text: delta } : { type: 'tool-call-arguments', chunk: delta }),
    );
  }

  function end(slot: Slot, data: JsonRecord | undefined, out: StreamEvent[], endOfInput = false): void {
    open.delete(`${slot.kind}:${slot.id}`);
    if (lanes.get(slot.lane) === slot) lanes.delete(slot.lane);
    if (slot.kind === 'tool') endedCalls.add(slot.id);
    if (slot.foreign) {
      if (data !== undefined) whole(data, out);
      return;
    }
    const metadata = metadataOf({ ...slot.metadata, signature: slot.signature, endOfInput: endOfInput || undefined });
    out.push(metadata === undefined ? { type: 'flush', index: slot.index } : { type: 'flush', index: slot.index, metadata });
  }

  /** An event argstream does not model, passed on whole: a slot of its own with only a flush. */
  function whole(data: JsonRecord, out: StreamEvent[]): void {
    out.push({ type: 'flush', index: nextSlot++, metadata: { blockType: stringAt(data, 'type'), block: data } });
  }

  /** End the chunk stream of one lane. */
  function closeLane(lane: string | undefined, out: StreamEvent[]): void {
    const slot = lanes.get(lane);
    if (slot !== undefined) end(slot, undefined, out);
  }

  /** A `*_CHUNK`, expanded as `@ag-ui/client` expands it. */
  function chunk(kind: Kind, data: JsonRecord, out: StreamEvent[]): void {
    const where = `a ${stringAt(data, 'type')}`;
    const id = members.optionalString(data, kind === 'tool' ? 'toolCallId' : 'messageId', where);
    const tag = members.optionalString(data, 'subagentRunId', where);
    const delta = members.optionalString(data, 'delta', where);
    members.optionalString(data, kind === 'tool' ? 'toolCallName' : 'role', where);
    let lane = tag;
    if (id !== undefined) {
      for (const [owner, slot] of lanes) if (slot.kind === kind && slot.id === id) lane = owner;
    } else if (tag === undefined && lanes.get(undefined)?.kind !== kind) {
      const candidates = [...lanes].filter(([, slot]) => slot.kind === kind);
      if (candidates.length > 1) throw invalid('ambiguous', `${where} without an id or a subagentRunId, while ${candidates.length} lanes stream one`, data);
      lane = candidates[0]?.[0];
    }
    let slot = lanes.get(lane);
    if (slot === undefined || slot.kind !== kind || (id !== undefined && id !== slot.id)) {
      closeLane(lane, out);
      if (id === undefined) throw members.invalid(`the first ${stringAt(data, 'type')} of a stream without \`${kind === 'tool' ? 'toolCallId' : 'messageId'}\``, data);
      if (kind === 'tool') members.requiredString(data, 'toolCallName', `the first ${stringAt(data, 'type')} of a call`);
      const role = stringAt(data, 'role');
      slot = start(kind, id, data, out, role !== undefined && role !== 'assistant');
      slot.lane = lane;
      lanes.set(lane, slot);
      if (slot.foreign) return;
    }
    content(slot, delta, data, out);
  }

  function runFinished(data: JsonRecord, out: StreamEvent[]): void {
    for (const lane of [...lanes.keys()]) closeLane(lane, out);
    // A call still open at the end of the run was cut: never complete, never `{}`.
    for (const slot of [...open.values()].sort((a, b) => a.index - b.index)) end(slot, undefined, out, slot.kind === 'tool');
    whole(data, out);
    finished = true;
    const outcome = recordAt(data, 'outcome');
    const outcomeType = stringAt(outcome, 'type');
    const pending = outcome?.['pendingToolCallIds'];
    const reason: FinishReason =
      outcomeType === 'interrupt' || outcomeType === 'cancelled' ? 'other' : unanswered.size > 0 || (Array.isArray(pending) && pending.length > 0) ? 'tool-calls' : 'stop';
    const usage = usageOfRun(data['usage']);
    const metadata = metadataOf({ threadId: stringAt(data, 'threadId'), runId: stringAt(data, 'runId'), result: data['result'] });
    out.push({
      type: 'finished',
      reason,
      ...(outcomeType !== undefined ? { rawReason: outcomeType } : {}),
      ...(usage !== undefined ? { usage } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }

  return {
    push(data: unknown): StreamEvent[] {
      if (!isRecord(data)) return [];
      const type = data['type'];
      if (typeof type !== 'string') throw members.invalid('an event without a string `type`', data);
      const out: StreamEvent[] = [];
      const where = `a ${type}`;
      const tag = members.optionalString(data, 'subagentRunId', where);
      if (type === 'RUN_FINISHED' || type === 'RUN_STARTED' || type === 'MESSAGES_SNAPSHOT') {
        if (type !== 'RUN_FINISHED') for (const lane of [...lanes.keys()]) closeLane(lane, out);
      } else if (!KEEPS_LANES.test(type)) closeLane(tag, out);
      switch (type) {
        case 'TEXT_MESSAGE_START': {
          const role = members.optionalString(data, 'role', where);
          start('text', members.requiredString(data, 'messageId', where), data, out, role !== undefined && role !== 'assistant');
          break;
        }
        case 'REASONING_MESSAGE_START':
          start('reasoning', members.requiredString(data, 'messageId', where), data, out);
          break;
        case 'TOOL_CALL_START':
          members.optionalString(data, 'parentMessageId', where);
          members.requiredString(data, 'toolCallName', where);
          start('tool', members.requiredString(data, 'toolCallId', where), data, out);
          break;
        case 'TEXT_MESSAGE_CONTENT':
        case 'REASONING_MESSAGE_CONTENT':
        case 'TOOL_CALL_ARGS': {
          const kind = type === 'TOOL_CALL_ARGS' ? 'tool' : type === 'TEXT_MESSAGE_CONTENT' ? 'text' : 'reasoning';
          const id = members.requiredString(data, kind === 'tool' ? 'toolCallId' : 'messageId', where);
          content(continued(kind, id, data), members.requiredString(data, 'delta', where), data, out);
          break;
        }
        case 'TEXT_MESSAGE_END':
        case 'REASONING_MESSAGE_END':
          end(continued(type === 'TEXT_MESSAGE_END' ? 'text' : 'reasoning', members.requiredString(data, 'messageId', where), data), data, out);
          break;
        case 'TOOL_CALL_END':
          end(continued('tool', members.requiredString(data, 'toolCallId', where), data), data, out);
          break;
        case 'TEXT_MESSAGE_CHUNK':
        case 'REASONING_MESSAGE_CHUNK':
        case 'TOOL_CALL_CHUNK':
          chunk(CHUNKS[type] as Kind, data, out);
          break;
        case 'REASONING_ENCRYPTED_VALUE': {
          members.requiredString(data, 'subtype', where);
          const slot = open.get(`reasoning:${members.requiredString(data, 'entityId', where)}`);
          const value = members.requiredString(data, 'encryptedValue', where);
          if (slot !== undefined && stringAt(data, 'subtype') === 'message') slot.signature = value;
          else whole(data, out);
          break;
        }
        case 'TOOL_CALL_RESULT':
          unanswered.delete(members.requiredString(data, 'toolCallId', where));
          whole(data, out);
          break;
        case 'RUN_STARTED':
          if (running) throw invalid('out-of-order', 'RUN_STARTED while a run is open (one stream is one run)', data);
          running = true;
          members.requiredString(data, 'threadId', where);
          members.requiredString(data, 'runId', where);
          whole(data, out);
          break;
        case 'RUN_FINISHED':
          members.requiredString(data, 'threadId', where);
          members.requiredString(data, 'runId', where);
          members.optionalRecord(data, 'outcome', where);
          members.optionalArray(data, 'usage', where);
          runFinished(data, out);
          break;
        case 'RUN_ERROR': {
          const code = members.optionalString(data, 'code', where);
          throw new ProviderError('ag-ui', code === 'abort' ? 'aborted' : 'error', members.requiredString(data, 'message', where), { code, cause: data });
        }
        default:
          // RUN_STARTED, STEP_*, STATE_*, MESSAGES_SNAPSHOT, ACTIVITY_*, CUSTOM, RAW, SUBAGENT_*, and types added later.
          whole(data, out);
          break;
      }
      return out;
    },

    end(): StreamEvent[] {
      const out: StreamEvent[] = [];
      for (const slot of [...open.values()].sort((a, b) => a.index - b.index)) end(slot, undefined, out);
      return out;
    },

    /** The run finished: `RUN_FINISHED`. */
    complete: () => finished,

    /** After `RUN_FINISHED` nothing belongs to the turn. */
    ended: () => finished,
  };
}

/** The `usage` of `RUN_FINISHED` (a list, one entry per provider and model), summed: AG-UI's counts are argstream's. */
function usageOfRun(list: unknown): Usage | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const sums: Record<string, number | undefined> = {};
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens', 'reasoningTokens', 'cachedInputTokens']) {
    for (const entry of list) sums[key] = addCounts(sums[key], numberAt(entry, key));
  }
  return usageOf({ ...(sums as Omit<UsageFields, 'raw'>), raw: list });
}

/**
 * The `'ag-ui'` provider: AG-UI's events (an AG-UI agent's SSE, as `@ag-ui/encoder` writes it, or the event objects `@ag-ui/client` yields). Internal: exported as `AG_UI_PROVIDER` from its own entry point.
 */
export const AG_UI_PROVIDER: ProviderDefinition = { name: 'ag-ui', framing: 'sse', create: () => createAgUiAdapter(), terminal: '`RUN_FINISHED`' };
