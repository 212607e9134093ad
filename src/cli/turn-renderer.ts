/**
 * The `turn` view of `argstream inspect` as text: message text as it streams, reasoning dimmed,
 * each tool call's fields as they stream and complete, then a summary of the turn.
 *
 * @module
 */
import type { FailedToolCallEvent, FinishedEvent, IncompleteToolCallEvent, ToolCallEvent } from '../types.ts';
import type { PipelineEvent } from '../view-types.ts';
import { formatUsage } from './format.ts';

/** Where the renderer writes; `color` turns on ANSI dim and bold. */
export interface TurnRendererOutput {
  write(text: string): void;
  readonly color: boolean;
}

/** What the summary reports. */
export interface TurnSummary {
  readonly toolCalls: readonly ToolCallEvent[];
  readonly incomplete: readonly IncompleteToolCallEvent[];
  readonly failed: readonly FailedToolCallEvent[];
  readonly finished: FinishedEvent | undefined;
}

/**
 * Renders the events of `ConversationEventStream({passthrough, progress})` → `FieldEventStream`.
 */
export class TurnRenderer {
  readonly #out: TurnRendererOutput;
  /** Whether the cursor is at the start of a line. */
  #atLineStart = true;
  /** The content slot whose text is being written, if any. */
  #textSlot: number | undefined;
  #reasoning = false;

  constructor(out: TurnRendererOutput) {
    this.#out = out;
  }

  #write(text: string): void {
    if (text === '') return;
    this.#out.write(text);
    this.#atLineStart = text.endsWith('\n');
  }

  #newline(): void {
    if (!this.#atLineStart) this.#write('\n');
  }

  #dim(text: string): string {
    return this.#out.color ? `\x1b[2m${text}\x1b[22m` : text;
  }

  #bold(text: string): string {
    return this.#out.color ? `\x1b[1m${text}\x1b[22m` : text;
  }

  push(event: PipelineEvent): void {
    switch (event.type) {
      case 'part': {
        const part = event.part;
        if (part.type === 'message' || part.type === 'reasoning') {
          const reasoning = part.type === 'reasoning';
          if (this.#textSlot !== event.index || this.#reasoning !== reasoning) {
            this.#newline();
            if (reasoning) this.#write(this.#dim('thinking: '));
            this.#textSlot = event.index;
            this.#reasoning = reasoning;
          }
          this.#write(reasoning ? this.#dim(part.text) : part.text);
        } else if (part.type === 'tool-call-start') {
          this.#textSlot = undefined;
          this.#newline();
          this.#write(`${this.#bold(`▶ ${part.toolName || '(unnamed)'}`)}${part.toolCallId ? this.#dim(` ${part.toolCallId}`) : ''}\n`);
        }
        break;
      }
      case 'flush':
        if (this.#textSlot === event.index) {
          this.#textSlot = undefined;
          this.#newline();
        }
        break;
      case 'field-start':
        this.#newline();
        this.#write(`  ${event.key}: `);
        break;
      case 'field-delta':
        this.#write(event.text);
        break;
      case 'field-end':
        this.#newline();
        break;
      case 'tool-call-incomplete':
        this.#newline();
        this.#write(`  ✗ incomplete (stopped in ${event.path === '' ? 'the root value' : event.path})\n`);
        break;
      case 'tool-call-failed':
        this.#newline();
        this.#write(`  ✗ invalid arguments: ${event.error.message}\n`);
        break;
      default:
        break;
    }
  }

  /** The stream failed: end the line being written, so the error starts on its own. */
  interrupt(): void {
    this.#newline();
  }

  /** The turn's end: its finish, usage and tool calls with their exact arguments. */
  summary(turn: TurnSummary): void {
    this.#newline();
    const finished = turn.finished;
    const usage = formatUsage(finished?.usage);
    const head = finished === undefined
      ? 'no finish: the stream ended before the provider finished the turn'
      : `finished: ${finished.reason}${finished.rawReason === undefined ? '' : ` (${finished.rawReason})`}${usage ? ` · ${usage}` : ''}`;
    this.#write(this.#dim(`── ${head}\n`));
    for (const call of turn.toolCalls) {
      this.#write(`✓ ${call.toolName || '(unnamed)'}${call.toolCallId ? ` ${call.toolCallId}` : ''} ${JSON.stringify(call.arguments)}${call.truncated ? ' (truncated)' : ''}\n`);
    }
    for (const call of turn.incomplete) {
      this.#write(`✗ ${call.toolName || '(unnamed)'}${call.toolCallId ? ` ${call.toolCallId}` : ''} incomplete${call.stopReason === undefined ? '' : ` (${call.stopReason})`}\n`);
    }
    for (const call of turn.failed) {
      this.#write(`✗ ${call.toolName || '(unnamed)'}${call.toolCallId ? ` ${call.toolCallId}` : ''} failed: ${call.error.message}\n`);
    }
  }
}
