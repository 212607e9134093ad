/**
 * The core of the path-update view (`PathUpdateStream`): tool-call progress, structured-output
 * progress and plain fragments → path updates, one {@link PathUpdateEncoder} per document.
 *
 * @module
 */
import { ChainedCore, type PushCore } from '../core.ts';
import { IncrementalJsonParser } from '../json/incremental-json-parser.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import { FINAL_EVENTS } from '../turn/turn-builder.ts';
import type { PathUpdate, PipelineEvent, StreamFragment } from '../types.ts';
import { PathUpdateEncoder, type PathUpdateEncoderOptions } from './path-update-encoder.ts';

const FRAGMENT_TYPES: ReadonlySet<string> = new Set(['start', 'string', 'scalar', 'entry', 'item', 'done']);

/** What `PathUpdateStream` accepts: fragments of one document, or any pipeline event. */
export type PathUpdateStreamInput = StreamFragment | PipelineEvent;

/**
 * What `PathUpdateStream` emits when it reads `I`: updates, the plain fragments it reads (see
 * `keepProgress`), and for pipeline events any pipeline event — the ones it reads, and the
 * progress and conversation events it makes of raw argument text.
 */
export type PathUpdateStreamOutput<I extends PathUpdateStreamInput = PathUpdateStreamInput> =
  | PathUpdate
  | Extract<I, StreamFragment>
  | ([Exclude<I, StreamFragment>] extends [never] ? never : PipelineEvent);

/** Options of `PathUpdateStream` and {@link PathUpdateCore}. */
export interface PathUpdateStreamOptions extends JsonLimits, PathUpdateEncoderOptions {
  /**
   * Pass on the `tool-call-progress` / `structured-progress` events and the plain fragments this
   * stage reads, each before the updates it makes, so that a view after this one (field events,
   * validation, JSON text, another path view) still has them. `false` drops them: the output is
   * then the updates and the events this stage does not own (what a relay to a
   * `ToolCallRebuilder` needs, and no more).
   * @default true
   */
  readonly keepProgress?: boolean;
  /** As `ToolCallProgressStream`'s, for the arguments this stage parses itself. @default false */
  readonly isolateErrors?: boolean;
  /** As `ToolCallProgressStream`'s, for the arguments this stage parses itself. @default false */
  readonly repair?: boolean;
}

/** Progress and fragments → path updates; one {@link PathUpdateEncoder} per call. */
class PathUpdateSplitter implements PushCore<PathUpdateStreamInput, PathUpdateStreamOutput> {
  #document: PathUpdateEncoder | undefined;
  readonly #calls = new Map<number, PathUpdateEncoder>();
  /**
   * The slots whose updates this stage made or a stage before made (until their final event): the
   * others get theirs from their final event.
   */
  readonly #encoded = new Set<number>();
  readonly #keepProgress: boolean;
  readonly #encoder: PathUpdateEncoderOptions;
  readonly #limits: JsonLimits;

  constructor(keepProgress: boolean, encoder: PathUpdateEncoderOptions, limits: JsonLimits) {
    this.#keepProgress = keepProgress;
    this.#encoder = encoder;
    this.#limits = limits;
  }

  push(input: PathUpdateStreamInput, out: PathUpdateStreamOutput[] = []): PathUpdateStreamOutput[] {
    if (input.type === 'tool-call-progress' || input.type === 'structured-progress') {
      if (this.#keepProgress) out.push(input);
      let encoder = this.#calls.get(input.index);
      if (encoder === undefined) {
        encoder = new PathUpdateEncoder(this.#encoder);
        this.#calls.set(input.index, encoder);
        this.#encoded.add(input.index);
      }
      encoder.push(input.fragment, out as PathUpdate[], input.type === 'tool-call-progress' ? input : { toolCallId: '', index: input.index, structured: true });
      if (encoder.complete) this.#calls.delete(input.index);
    } else if (FRAGMENT_TYPES.has(input.type)) {
      if (this.#keepProgress) out.push(input);
      this.#document ??= new PathUpdateEncoder(this.#encoder);
      this.#document.push(input as StreamFragment, out as PathUpdate[]);
    } else {
      if (FINAL_EVENTS.has(input.type)) {
        // The call is over: its updates if no one made them, then release its state.
        const index = (input as { readonly index: number }).index;
        if (!this.#encoded.delete(index)) this.#fromValue(input as PipelineEvent, out as PathUpdate[]);
        this.#calls.delete(index);
      } else if (input.type === 'flush') this.#calls.delete(input.index);
      else if (input.type === 'path-update' && input.index !== undefined) this.#encoded.add(input.index);
      out.push(input as PipelineEvent);
    }
    return out;
  }

  /**
   * A call (or structured document) ends with no progress seen here and no updates made before: a
   * stage before parsed it without passing its progress on (`ConversationEventStream` without
   * `progress`, a view with `keepProgress: false`). Its updates come from its value, at once.
   */
  #fromValue(event: PipelineEvent, out: PathUpdate[]): void {
    let value: unknown;
    let call: { readonly toolCallId: string; readonly index: number; readonly structured?: true };
    if (event.type === 'tool-call' || event.type === 'provider-tool-call') {
      value = event.arguments;
      call = event;
    } else if (event.type === 'structured') {
      value = event.data;
      call = { toolCallId: '', index: event.index, structured: true };
    } else return;
    const encoder = new PathUpdateEncoder(this.#encoder);
    const parser = new IncrementalJsonParser(this.#limits);
    for (const fragment of parser.push(JSON.stringify(value))) encoder.push(fragment, out, call);
    for (const fragment of parser.end()) encoder.push(fragment, out, call);
  }

  end(out: PathUpdateStreamOutput[] = []): PathUpdateStreamOutput[] {
    return out;
  }
}

/**
 * The core of `PathUpdateStream`: `push(input) → outputs`, `end() → outputs`. Argument text that
 * no stage before it parsed is parsed here first, as `ToolCallProgressStream` would.
 *
 * @example
 * ```ts
 * const updates = new PathUpdateCore({ keepProgress: false });
 * for (const event of events) for (const output of updates.push(event)) send(output);
 * for (const output of updates.end()) send(output);
 * ```
 */
export class PathUpdateCore extends ChainedCore<PathUpdateStreamInput, PathUpdateStreamInput, PathUpdateStreamOutput> {
  constructor(options: PathUpdateStreamOptions = {}) {
    const { keepProgress = true, relativePaths = true, ...progress } = options;
    super(
      new TurnBuilder({ ...progress, progress: true, messages: false }) as PushCore<PathUpdateStreamInput, PathUpdateStreamInput>,
      new PathUpdateSplitter(keepProgress, { relativePaths }, progress),
    );
  }
}
