import type { StreamEvent } from '../types.ts';
import type { StreamingToolCallEvent } from '../view-types.ts';

/** Options of {@link ToolCallDeltaStream}. */
export interface ToolCallDeltaStreamOptions {
  /**
   * The message the calls belong to, copied into every event as `messageId`, so a client can
   * tie the deltas to the final message.
   * @default undefined (no `messageId`)
   */
  readonly messageId?: string;
  /**
   * Emit an event with `arguments: ''` when a call's id or name first becomes known, so an
   * interface can show "calling write_file" before any argument arrives.
   * @default true
   */
  readonly announce?: boolean;
}

interface CallState {
  toolCallId: string;
  toolName: string;
}

/**
 * The synchronous core of {@link ToolCallDeltaStream}: `push(event, out)`; there is nothing to
 * do at the end of input. Internal.
 */
export class ToolCallDeltaCore {
  readonly #calls = new Map<number, CallState>();
  readonly #messageId: string | undefined;
  readonly #announce: boolean;

  constructor(options: ToolCallDeltaStreamOptions = {}) {
    this.#messageId = options.messageId;
    this.#announce = options.announce !== false;
  }

  push(event: StreamEvent, out: StreamingToolCallEvent[] = []): StreamingToolCallEvent[] {
    switch (event.type) {
      case 'part': {
        const part = event.part;
        if (part.type === 'tool-call-start') {
          let call = this.#calls.get(event.index);
          const known = call !== undefined;
          call ??= { toolCallId: '', toolName: '' };
          this.#calls.set(event.index, call);
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
          if (changed && this.#announce) out.push(this.#event(event.index, call, '', false));
        } else if (part.type === 'tool-call-arguments') {
          let call = this.#calls.get(event.index);
          if (call === undefined) {
            call = { toolCallId: '', toolName: '' };
            this.#calls.set(event.index, call);
          }
          if (part.chunk !== '') out.push(this.#event(event.index, call, part.chunk, false));
        }
        break;
      }
      case 'flush': {
        const call = this.#calls.get(event.index);
        if (call !== undefined) {
          this.#calls.delete(event.index);
          // A slot the provider never closed is flushed at the end of input: not a completion.
          if (event.metadata?.['endOfInput'] !== true) out.push(this.#event(event.index, call, '', true));
        }
        break;
      }
      case 'finished':
        break;
      default:
        event satisfies never;
        throw new TypeError(`ToolCallDeltaStream: expected a StreamEvent, got ${JSON.stringify(event).slice(0, 60)}`);
    }
    return out;
  }

  #event(index: number, call: CallState, delta: string, isComplete: boolean): StreamingToolCallEvent {
    const event: StreamingToolCallEvent = {
      type: 'streaming-tool-call',
      index,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      argumentsDelta: delta,
      isComplete,
    };
    return this.#messageId === undefined ? event : { ...event, messageId: this.#messageId };
  }
}

/**
 * {@link StreamEvent}s → the streaming-tool-call events of the three-engine design (seed 002):
 * for every `tool-call-arguments` chunk, an event whose `arguments` is that chunk **exactly as
 * received** — never parsed, repaired or re-cut (empty chunks are skipped) — so the `arguments`
 * of one call concatenate to its raw argument text; and at the call's `flush`, one final event
 * with `isComplete: true` and `arguments: ''`. With `announce` (the default), a call also gets
 * an event with `arguments: ''` when its id or name first becomes known. Text, reasoning and
 * structured slots, and `finished`, produce nothing.
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
 * for await (const delta of deltas) {
 *   text.set(delta.toolCallId, (text.get(delta.toolCallId) ?? '') + delta.arguments);
 * }
 * ```
 */
export class ToolCallDeltaStream extends TransformStream<StreamEvent, StreamingToolCallEvent> {
  constructor(options: ToolCallDeltaStreamOptions = {}) {
    const core = new ToolCallDeltaCore(options);
    super({
      transform: (event, controller) => {
        for (const delta of core.push(event)) controller.enqueue(delta);
      },
    });
  }
}
