/**
 * The raw-delta view's core (the streaming tool-call event of seed 002): each call's argument
 * text as `streaming-tool-call` deltas, exactly as the provider sent it, or written from the
 * progress fragments when a stage before already parsed it.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import { JsonWriter } from '../json/json-writer.ts';
import type { EventMetadata, PipelineEvent, StreamingToolCallEvent } from '../types.ts';

/** Options of `ToolCallDeltaStream` and {@link ToolCallDeltaCore}. */
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
 * The core of `ToolCallDeltaStream`: `push(event) → outputs`; `end()` adds nothing.
 *
 * @example
 * ```ts
 * const deltas = new ToolCallDeltaCore({ messageId: 'msg_1' });
 * for (const event of events) for (const output of deltas.push(event)) send(output);
 * ```
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
        // The call's flush was replaced by its conversation event before this stage. A call this
        // stage never saw (a builder before took its start part, and it had no argument text to
        // make progress of) is known from the event itself.
        const call = this.#calls.get(event.index) ?? {
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          writer: undefined,
          metadata: undefined,
          text: false,
          providerExecuted: event.type === 'provider-tool-call',
        };
        this.#calls.delete(event.index);
        // A stage before consumed the call's text (a view that dropped its progress): the
        // arguments go out as one delta, so a call's deltas always make its argument text.
        const text = call.text ? '' : JSON.stringify(event.arguments);
        if (text !== '' && text !== '{}') out.push(this.#event(event.index, call, text, false));
        out.push(this.#event(event.index, call, '', true));
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
