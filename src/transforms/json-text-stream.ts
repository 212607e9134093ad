import { JsonWriter } from '../json/json-writer.ts';
import type { StreamFragment } from '../types.ts';
import { type PushCore, Stage } from './stage.ts';

/** Options of {@link JsonTextStream}. */
export interface JsonTextStreamOptions {
  /**
   * Close a document whose fragments stop early (a truncated tool call) instead of erroring: at
   * the end of input the stream emits the closing text (`"`, `}`, `]`) as its last chunk, so the
   * output parses to the aggregator's snapshot, and {@link JsonTextStream.truncation} says what
   * was closed.
   * @default false
   */
  readonly repair?: boolean;
}

/** What {@link JsonTextStream} closed when it repaired a truncated document. */
export interface JsonTruncation {
  /** JSON Pointer of the innermost value that was still open (`""` for the root). */
  readonly path: string;
  /** The text the stream appended to close the document (`''` when nothing had begun). */
  readonly closing: string;
}

/**
 * {@link StreamFragment}s of one document → JSON text, chunk by chunk: a relay can forward a
 * partial string as it arrives. Each fragment's text is enqueued at once (fragments that add no
 * text, such as the `done` after a scalar, enqueue nothing). The output has no whitespace; keys
 * and strings are escaped by `JSON.stringify`; numbers are written as the parser read them
 * (`raw`), so big integers are not rounded. `JSON.parse` of the concatenated output equals the
 * value the fragments aggregate to.
 *
 * `flush`: a complete document ends the stream. An incomplete one errors it with a
 * `JsonStreamError` (`unexpected-end`; `offset` counts the output characters, `path` is the open
 * value) after every chunk before it has been delivered — unless `repair` is set: then the
 * closing text is enqueued as the last chunk and the stream ends normally; read
 * {@link JsonTextStream.truncated} (or {@link JsonTextStream.truncation}) once the output has
 * ended to know whether it was repaired. Input that stopped before any fragment stays empty
 * (there is no value to close) and counts as truncated.
 *
 * @throws {TypeError} (erroring the stream) for fragments out of order.
 * @example
 * ```ts
 * const text = new JsonTextStream({ repair: true });
 * const body = argumentChunks
 *   .pipeThrough(new JsonFragmentStream({ allowTruncated: true }))
 *   .pipeThrough(text)
 *   .pipeThrough(new TextEncoderStream());
 * await body.pipeTo(relay);
 * if (text.truncated) console.warn('closed a truncated document at', text.truncation?.path);
 * ```
 */
export class JsonTextStream extends Stage<StreamFragment, string> {
  readonly #core: JsonTextCore;

  constructor(options: JsonTextStreamOptions = {}) {
    const core = new JsonTextCore(options);
    super(core);
    this.#core = core;
  }

  /**
   * True when `repair` closed a truncated document; final once the output has ended (it is
   * `false` before the end of input).
   */
  get truncated(): boolean {
    return this.#core.truncation !== undefined;
  }

  /** What `repair` closed, or `undefined` when the document was complete (or not yet ended). */
  get truncation(): JsonTruncation | undefined {
    return this.#core.truncation;
  }
}

/** The core of {@link JsonTextStream}: `push(fragment) → text pieces`, `end() → the closing text`. */
export class JsonTextCore implements PushCore<StreamFragment, string> {
  readonly #writer = new JsonWriter();
  readonly #repair: boolean;
  /** What `repair` closed, once the input has ended. */
  truncation: JsonTruncation | undefined;

  constructor(options: JsonTextStreamOptions = {}) {
    this.#repair = options.repair === true;
  }

  push(fragment: StreamFragment, out: string[] = []): string[] {
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
