/**
 * The JSON-text view's core: the fragments of one document → JSON text, piece by piece, with the
 * repair of a truncated document on request.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import { JsonWriter } from '../json/json-writer.ts';
import type { StreamFragment } from '../types.ts';

/** Options of `JsonTextStream` and {@link JsonTextCore}. */
export interface JsonTextStreamOptions {
  /**
   * Close a document whose fragments stop early (a truncated tool call) instead of erroring: at
   * the end of input the stream emits the closing text (`"`, `}`, `]`) as its last chunk, so the
   * output parses to the aggregator's snapshot, and `JsonTextStream.truncation` says what was
   * closed.
   * @default false
   */
  readonly repair?: boolean;
}

/** What `JsonTextStream` closed when it repaired a truncated document. */
export interface JsonTruncation {
  /** JSON Pointer of the innermost value that was still open (`""` for the root). */
  readonly path: string;
  /** The text the stream appended to close the document (`''` when nothing had begun). */
  readonly closing: string;
}

/**
 * The core of `JsonTextStream`: `push(fragment) → text pieces`, `end() → the closing text`.
 *
 * @throws {TypeError} from `push` for a fragment out of order, or for an input that is not a
 *   fragment (a pipeline event: the JSON text of each tool call's arguments in an event pipeline
 *   is `ToolCallDeltaStream`'s).
 * @example
 * ```ts
 * const text = new JsonTextCore();
 * const parser = new IncrementalJsonParser();
 * let json = '';
 * for (const fragment of parser.push('{"a":[1,')) json += text.push(fragment).join('');
 * ```
 */
export class JsonTextCore implements PushCore<StreamFragment, string> {
  readonly #writer = new JsonWriter();
  readonly #repair: boolean;
  /** What `repair` closed, once the input has ended. */
  truncation: JsonTruncation | undefined;

  constructor(options: JsonTextStreamOptions = {}) {
    this.#repair = options.repair === true;
  }

  push(fragment: StreamFragment, out: string[] = []): string[] {
    if (!FRAGMENT_TYPES.has(fragment.type)) notAFragment(fragment);
    const text = this.#writer.push(fragment);
    if (text !== '') out.push(text);
    return out;
  }

  end(out: string[] = []): string[] {
    const writer = this.#writer;
    if (writer.complete) return out;
    if (!this.#repair) writer.end();
    const closing = writer.closing();
    if (closing !== '') out.push(closing);
    this.truncation = { path: writer.path, closing };
    return out;
  }
}

const FRAGMENT_TYPES: ReadonlySet<string> = new Set(['start', 'string', 'scalar', 'entry', 'item', 'done']);

function notAFragment(input: { readonly type: string }): never {
  throw new TypeError(`JsonTextStream reads fragments, got a '${String(input.type)}' event: a tool call's JSON text is ToolCallDeltaStream's`);
}
