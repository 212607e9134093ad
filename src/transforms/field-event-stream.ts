import { FieldEventParser } from '../json/field-event-parser.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { FINAL_EVENTS, TurnBuilder } from '../turn/turn-builder.ts';
import type { StreamFragment } from '../types.ts';
import type { FieldEvent, PipelineEvent } from '../view-types.ts';
import { ChainedCore, type PushCore, Stage } from './stage.ts';

/**
 * What {@link FieldEventStream} reads: the fragments of one document (`JsonFragmentStream`), or
 * any pipeline event (`ProviderEventStream` and every stage after it).
 */
export type FieldEventStreamInput = StreamFragment | PipelineEvent;

/** What {@link FieldEventStream} emits: field events, and every event it does not own. */
export type FieldEventStreamOutput = FieldEvent | PipelineEvent;

/** Options of {@link FieldEventStream} and {@link FieldEventCore}. */
export interface FieldEventStreamOptions extends JsonLimits {
  /**
   * Keep the `tool-call-progress` / `structured-progress` events in the output, each before the
   * field events it makes (to chain another view after this one).
   * @default false
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
  readonly #keepProgress: boolean;

  constructor(keepProgress: boolean) {
    this.#keepProgress = keepProgress;
  }

  #documentOf(index: number): FieldEventParser {
    let parser = this.#documents.get(index);
    if (parser === undefined) {
      parser = new FieldEventParser();
      this.#documents.set(index, parser);
    }
    return parser;
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
      default:
        if (FRAGMENT_TYPES.has(input.type)) {
          // A complete plain document stays, so that fragments after it are refused.
          this.#documentOf(-1).pushFragment(input as StreamFragment, events);
          return out;
        }
        // The call is over: release its state.
        if (input.type === 'flush' || FINAL_EVENTS.has(input.type)) this.#documents.delete((input as { readonly index: number }).index);
        out.push(input as PipelineEvent);
        return out;
    }
  }

  end(out: FieldEventStreamOutput[] = []): FieldEventStreamOutput[] {
    return out;
  }
}

/**
 * The core of {@link FieldEventStream}: `push(input) → outputs`, `end() → outputs`. Argument text
 * that no stage before it parsed (raw `tool-call-arguments` parts) is parsed here as
 * `ToolCallProgressStream` would, then split into fields.
 */
export class FieldEventCore extends ChainedCore<FieldEventStreamInput, FieldEventStreamInput, FieldEventStreamOutput> {
  constructor(options: FieldEventStreamOptions = {}) {
    const { keepProgress = false, ...progress } = options;
    super(
      new TurnBuilder({ ...progress, progress: true, messages: false }) as PushCore<FieldEventStreamInput, FieldEventStreamInput>,
      new FieldSplitter(keepProgress),
    );
  }
}

/**
 * Field-level events (axio's ToolArgStream) for the top-level members of tool-call arguments:
 * `field-start {key}`, `field-delta {key, text}`, `field-end {key}`, with the semantics of
 * {@link FieldEventParser}: string values as decoded text, any other value as JSON text that
 * parses to exactly that value, a non-object root as one field with the key `""`.
 *
 * It reads either of two inputs:
 * - **Plain fragments** (`JsonFragmentStream`'s output): one document; the events carry no
 *   identity.
 * - **Pipeline events**: `tool-call-progress` events (from `ToolCallProgressStream` or
 *   `ConversationEventStream({progress: true})`) are replaced by the field events of their call,
 *   each with the call's `index`, `toolCallId` and `toolName` (as known when it is emitted); calls
 *   interleave freely; `structured-progress` gives the field events of a structured-output
 *   document with its `index`. Raw argument parts with no progress stage before are parsed here
 *   first (they become the same field events, and each call's `tool-call` event). Everything
 *   else — text, reasoning, `tool-call-start`, the call's `tool-call` event, `finished`, other
 *   views — passes through unchanged and in order.
 *
 * A field starts with the first fragment of its value (the key travels with it). `flush` emits
 * nothing of its own: a document that stopped early leaves its last field without a `field-end`
 * (the call's `tool-call-incomplete` says so).
 *
 * @throws {TypeError} (erroring the stream) for fragments out of order.
 * @example
 * ```ts
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new FieldEventStream());
 * for await (const event of events) {
 *   if (event.type === 'field-start') process.stdout.write(`\n${event.key}: `);
 *   else if (event.type === 'field-delta') process.stdout.write(event.text);
 *   else if (event.type === 'tool-call') await run(event.toolName, event.arguments);
 * }
 * ```
 */
export class FieldEventStream extends Stage<FieldEventStreamInput, FieldEventStreamOutput> {
  constructor(options: FieldEventStreamOptions = {}) {
    super(new FieldEventCore(options));
  }
}
