import { JsonWriter } from '../json/json-writer.ts';
import type { EventMetadata } from '../types.ts';
import type { PipelineEvent, StreamingToolCallEvent } from '../view-types.ts';
import { type PushCore, Stage } from './stage.ts';

/** Options of {@link ToolCallDeltaStream}. */
export interface ToolCallDeltaStreamOptions {
  /**
   * The message the calls belong to, copied into every event as `messageId`, so a client can
   * tie the deltas to the final message.
   * @default undefined (no `messageId`)
   */
  readonly messageId?: string;
  /**
   * Emit an event with `argumentsDelta: ''` when a call's id or name first becomes known, so an
   * interface can show "calling write_file" before any argument arrives.
   * @default true
   */
  readonly announce?: boolean;
}

interface CallState {
  toolCallId: string;
  toolName: string;
  /** Set when the call's text is rebuilt from progress fragments (no raw parts came). */
  writer: JsonWriter | undefined;
  /** Metadata of a replaced part not yet carried by an event. */
  metadata: EventMetadata | undefined;
  /** Some argument text has gone out. */
  text: boolean;
  /** The provider runs the call (its start part or progress said so). */
  providerExecuted: boolean;
}

/**
 * The core of {@link ToolCallDeltaStream}: `push(event) → outputs`; `end()` adds nothing.
 */
export class ToolCallDeltaCore implements PushCore<PipelineEvent, PipelineEvent> {
  readonly #calls = new Map<number, CallState>();
  readonly #messageId: string | undefined;
  readonly #announce: boolean;

  constructor(options: ToolCallDeltaStreamOptions = {}) {
    this.#messageId = options.messageId;
    this.#announce = options.announce !== false;
  }

  #call(index: number): CallState {
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { toolCallId: '', toolName: '', writer: undefined, metadata: undefined, text: false, providerExecuted: false };
      this.#calls.set(index, call);
    }
    return call;
  }

  push(event: PipelineEvent, out: PipelineEvent[] = []): PipelineEvent[] {
    switch (event.type) {
      case 'part': {
        const part = event.part;
        if (part.type === 'tool-call-start') {
          const known = this.#calls.has(event.index);
          const call = this.#call(event.index);
          // First non-empty value wins per field (RFD 012).
          let changed = !known;
          if (call.toolCallId === '' && part.toolCallId) {
            call.toolCallId = part.toolCallId;
            changed = true;
          }
          if (call.toolName === '' && part.toolName) {
            call.toolName = part.toolName;
            changed = true;
          }
          if (part.providerExecuted === true) call.providerExecuted = true;
          if (event.metadata !== undefined) call.metadata = { ...call.metadata, ...event.metadata };
          if (changed && this.#announce) out.push(this.#event(event.index, call, '', false));
        } else if (part.type === 'tool-call-arguments') {
          const call = this.#call(event.index);
          if (event.metadata !== undefined) call.metadata = { ...call.metadata, ...event.metadata };
          if (part.chunk !== '') out.push(this.#event(event.index, call, part.chunk, false));
        } else out.push(event);
        break;
      }
      case 'tool-call-progress': {
        // No raw text came before (a progress stage replaced it): write the fragments as JSON text.
        out.push(event);
        const call = this.#call(event.index);
        call.toolCallId ||= event.toolCallId;
        call.toolName ||= event.toolName;
        if (event.providerExecuted === true) call.providerExecuted = true;
        call.writer ??= new JsonWriter();
        const text = call.writer.push(event.fragment);
        if (text !== '') out.push(this.#event(event.index, call, text, false));
        break;
      }
      case 'flush': {
        const call = this.#calls.get(event.index);
        if (call !== undefined) {
          this.#calls.delete(event.index);
          // A slot the provider never closed is flushed at the end of input: not a completion.
          if (event.metadata?.['endOfInput'] !== true) out.push(this.#event(event.index, call, '', true));
        }
        out.push(event);
        break;
      }
      case 'tool-call':
      case 'provider-tool-call': {
        // The call's flush was replaced by its conversation event before this stage.
        const call = this.#calls.get(event.index);
        if (call !== undefined) {
          this.#calls.delete(event.index);
          // A stage before consumed the call's text (a view that replaced its progress): the
          // arguments go out as one delta, so a call's deltas always make its argument text.
          const text = call.text ? '' : JSON.stringify(event.arguments);
          if (text !== '' && text !== '{}') out.push(this.#event(event.index, call, text, false));
          out.push(this.#event(event.index, call, '', true));
        }
        out.push(event);
        break;
      }
      case 'tool-call-incomplete':
      case 'tool-call-failed':
        this.#calls.delete(event.index);
        out.push(event);
        break;
      default:
        out.push(event);
    }
    return out;
  }

  end(out: PipelineEvent[] = []): PipelineEvent[] {
    return out;
  }

  #event(index: number, call: CallState, delta: string, isComplete: boolean): StreamingToolCallEvent {
    const event: StreamingToolCallEvent = {
      type: 'streaming-tool-call',
      index,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ...(call.providerExecuted ? { providerExecuted: true as const } : {}),
      argumentsDelta: delta,
      isComplete,
    };
    if (delta !== '') call.text = true;
    const metadata = call.metadata;
    call.metadata = undefined;
    if (this.#messageId === undefined && metadata === undefined) return event;
    return { ...event, ...(this.#messageId === undefined ? {} : { messageId: this.#messageId }), ...(metadata === undefined ? {} : { metadata }) };
  }
}

/**
 * The streaming-tool-call events of the three-engine design (seed 002): each call's
 * `tool-call-start` and `tool-call-arguments` parts are replaced by events whose `argumentsDelta`
 * is each chunk **exactly as received** — never parsed, repaired or re-cut (empty chunks are
 * skipped) — so the deltas of one call concatenate to its raw argument text; when the call
 * completes (its `flush`, or its `tool-call` event after a progress stage), one event with
 * `isComplete: true` and `argumentsDelta: ''`. With `announce` (the default), a call also gets an
 * event with `argumentsDelta: ''` when its id or name first becomes known. Everything else passes
 * through unchanged, and `collectTurn` reads the deltas as the arguments they replaced. After a
 * stage that already replaced the raw text with progress events, the deltas are the fragments
 * written as JSON text (no whitespace; it parses to the same value).
 *
 * `flush` (end of input) emits nothing: a call whose slot was never flushed — or only flushed by
 * `ProviderEventStream` at the end of its input (`metadata.endOfInput`) — gets no `isComplete`
 * event: it did not complete.
 *
 * @example
 * ```ts
 * const deltas = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
 *   .pipeThrough(new ToolCallDeltaStream({ messageId: 'msg_1' }));
 * const text = new Map<string, string>();
 * for await (const event of deltas) {
 *   if (event.type === 'streaming-tool-call') text.set(event.toolCallId, (text.get(event.toolCallId) ?? '') + event.argumentsDelta);
 * }
 * ```
 */
export class ToolCallDeltaStream extends Stage<PipelineEvent, PipelineEvent> {
  constructor(options: ToolCallDeltaStreamOptions = {}) {
    super(new ToolCallDeltaCore(options));
  }
}
