/**
 * The core of the field view (`FieldEventStream`): tool-call progress, structured-output progress
 * and plain fragments → field events, one {@link FieldEventParser} per content slot.
 *
 * @module
 */
import { ChainedCore, type PushCore } from '../core.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import { FINAL_EVENTS } from '../turn/turn-builder.ts';
import type { FieldEvent, FieldEventSource, PipelineEvent, StreamFragment } from '../types.ts';
import { FieldEventParser } from './field-event-parser.ts';

/**
 * What `FieldEventStream` reads: the fragments of one document (`JsonFragmentStream`), or any
 * pipeline event (`ProviderEventStream` and every stage after it).
 */
export type FieldEventStreamInput = StreamFragment | PipelineEvent;

/**
 * What `FieldEventStream` emits when it reads `I`: field events, the plain fragments it reads
 * (see `keepProgress`), and for pipeline events any pipeline event — the ones it reads, and the
 * progress and conversation events it makes of raw argument text.
 */
export type FieldEventStreamOutput<I extends FieldEventStreamInput = FieldEventStreamInput> =
  | FieldEvent
  | Extract<I, StreamFragment>
  | ([Exclude<I, StreamFragment>] extends [never] ? never : PipelineEvent);

/** Options of `FieldEventStream` and {@link FieldEventCore}. */
export interface FieldEventStreamOptions extends JsonLimits {
  /**
   * Pass on the `tool-call-progress` / `structured-progress` events and the plain fragments this
   * stage reads, each before the field events it makes, so that a view after this one (path
   * updates, validation, JSON text, another field view) still has them. `false` drops them: the
   * output is then the field events and the events this stage does not own.
   * @default true
   */
  readonly keepProgress?: boolean;
  /** As `ToolCallProgressStream`'s, for the arguments this stage parses itself. @default false */
  readonly isolateErrors?: boolean;
  /** As `ToolCallProgressStream`'s, for the arguments this stage parses itself. @default false */
  readonly repair?: boolean;
}

const FRAGMENT_TYPES: ReadonlySet<string> = new Set(['start', 'string', 'scalar', 'entry', 'item', 'done']);

/** Progress and fragments → field events; one {@link FieldEventParser} per slot. */
class FieldSplitter implements PushCore<FieldEventStreamInput, FieldEventStreamOutput> {
  /** One parser per content slot; `-1` holds the plain-fragment document. */
  readonly #documents = new Map<number, FieldEventParser>();
  /**
   * The slots whose fields this stage made or a stage before made (until their final event): the
   * others get theirs from their final event.
   */
  readonly #fielded = new Set<number>();
  readonly #keepProgress: boolean;
  readonly #limits: JsonLimits;

  constructor(keepProgress: boolean, limits: JsonLimits) {
    this.#keepProgress = keepProgress;
    this.#limits = limits;
  }

  #documentOf(index: number): FieldEventParser {
    let parser = this.#documents.get(index);
    if (parser === undefined) {
      parser = new FieldEventParser();
      this.#documents.set(index, parser);
      this.#fielded.add(index);
    }
    return parser;
  }

  /**
   * A call (or structured document) ends with no progress seen here and no field events made
   * before: a stage before parsed it without passing its progress on (`ConversationEventStream`
   * without `progress`, a view with `keepProgress: false`). Its fields come from its value, at once.
   */
  #fromValue(event: PipelineEvent, out: FieldEventStreamOutput[]): void {
    let value: unknown;
    let source: FieldEventSource;
    if (event.type === 'tool-call' || event.type === 'provider-tool-call') {
      value = event.arguments;
      source = { index: event.index, toolCallId: event.toolCallId, toolName: event.toolName };
    } else if (event.type === 'structured') {
      value = event.data;
      source = { index: event.index };
    } else return;
    const parser = new FieldEventParser(this.#limits);
    parser.source = source;
    parser.push(JSON.stringify(value), out as FieldEvent[]);
    parser.end(out as FieldEvent[]);
  }

  push(input: FieldEventStreamInput, out: FieldEventStreamOutput[] = []): FieldEventStreamOutput[] {
    const events = out as FieldEvent[];
    switch (input.type) {
      case 'tool-call-progress': {
        if (this.#keepProgress) out.push(input);
        const parser = this.#documentOf(input.index);
        const source = parser.source;
        if (source.toolCallId !== input.toolCallId || source.toolName !== input.toolName) {
          parser.source = { index: input.index, toolCallId: input.toolCallId, toolName: input.toolName };
        }
        parser.pushFragment(input.fragment, events);
        if (parser.complete) this.#documents.delete(input.index);
        return out;
      }
      case 'structured-progress': {
        if (this.#keepProgress) out.push(input);
        const parser = this.#documentOf(input.index);
        if (parser.source.index === undefined) parser.source = { index: input.index };
        parser.pushFragment(input.fragment, events);
        if (parser.complete) this.#documents.delete(input.index);
        return out;
      }
      case 'field-start':
        // A stage before made this slot's fields.
        if (input.index !== undefined) this.#fielded.add(input.index);
        out.push(input);
        return out;
      default:
        if (FRAGMENT_TYPES.has(input.type)) {
          if (this.#keepProgress) out.push(input);
          // A complete plain document stays, so that fragments after it are refused.
          this.#documentOf(-1).pushFragment(input as StreamFragment, events);
          return out;
        }
        if (FINAL_EVENTS.has(input.type)) {
          // The call is over: its fields if no one made them, then release its state.
          const index = (input as { readonly index: number }).index;
          if (!this.#fielded.delete(index)) this.#fromValue(input as PipelineEvent, out);
          this.#documents.delete(index);
        } else if (input.type === 'flush') this.#documents.delete(input.index);
        out.push(input as PipelineEvent);
        return out;
    }
  }

  end(out: FieldEventStreamOutput[] = []): FieldEventStreamOutput[] {
    return out;
  }
}

/**
 * The core of `FieldEventStream`: `push(input) → outputs`, `end() → outputs`. Argument text that
 * no stage before it parsed (raw `tool-call-arguments` parts) is parsed here as
 * `ToolCallProgressStream` would, then split into fields.
 *
 * @example
 * ```ts
 * const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
 * const fields = new FieldEventCore();
 * for (const chunk of chunks) {
 *   for (const event of decoder.push(chunk)) for (const output of fields.push(event)) render(output);
 * }
 * for (const event of decoder.end()) for (const output of fields.push(event)) render(output);
 * for (const output of fields.end()) render(output);
 * ```
 */
export class FieldEventCore extends ChainedCore<FieldEventStreamInput, FieldEventStreamInput, FieldEventStreamOutput> {
  constructor(options: FieldEventStreamOptions = {}) {
    const { keepProgress = true, ...progress } = options;
    super(
      new TurnBuilder({ ...progress, progress: true, messages: false }) as PushCore<FieldEventStreamInput, FieldEventStreamInput>,
      new FieldSplitter(keepProgress, progress),
    );
  }
}
