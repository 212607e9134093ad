/**
 * The core of the path-update view (`PathUpdateStream`): tool-call progress, structured-output
 * progress and plain fragments → path updates, one {@link PathUpdateEncoder} per document.
 *
 * @module
 */
import { ChainedCore, type PushCore } from '../core.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { FINAL_EVENTS, TurnBuilder } from '../turn/turn-builder.ts';
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
  readonly #keepProgress: boolean;
  readonly #encoder: PathUpdateEncoderOptions;

  constructor(keepProgress: boolean, encoder: PathUpdateEncoderOptions) {
    this.#keepProgress = keepProgress;
    this.#encoder = encoder;
  }

  push(input: PathUpdateStreamInput, out: PathUpdateStreamOutput[] = []): PathUpdateStreamOutput[] {
    if (input.type === 'tool-call-progress' || input.type === 'structured-progress') {
      if (this.#keepProgress) out.push(input);
      let encoder = this.#calls.get(input.index);
      if (encoder === undefined) {
        encoder = new PathUpdateEncoder(this.#encoder);
        this.#calls.set(input.index, encoder);
      }
      encoder.push(input.fragment, out as PathUpdate[], input.type === 'tool-call-progress' ? input : { toolCallId: '', index: input.index, structured: true });
      if (encoder.complete) this.#calls.delete(input.index);
    } else if (FRAGMENT_TYPES.has(input.type)) {
      if (this.#keepProgress) out.push(input);
      this.#document ??= new PathUpdateEncoder(this.#encoder);
      this.#document.push(input as StreamFragment, out as PathUpdate[]);
    } else {
      if (input.type === 'flush' || FINAL_EVENTS.has(input.type)) this.#calls.delete((input as { readonly index: number }).index);
      out.push(input as PipelineEvent);
    }
    return out;
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
      new PathUpdateSplitter(keepProgress, { relativePaths }),
    );
  }
}
