import { JsonWriter } from '../json/json-writer.ts';
import type { StreamFragment } from '../types.ts';
import { runStep } from './fail-after-drain.ts';

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
 *   .pipeThrough(new JsonFragmentStream())
 *   .pipeThrough(text)
 *   .pipeThrough(new TextEncoderStream());
 * await body.pipeTo(relay);
 * if (text.truncated) console.warn('closed a truncated document at', text.truncation?.path);
 * ```
 */
export class JsonTextStream extends TransformStream<StreamFragment, string> {
  readonly #result: { truncation: JsonTruncation | undefined };

  constructor(options: JsonTextStreamOptions = {}) {
    const writer = new JsonWriter();
    const repair = options.repair === true;
    const result: { truncation: JsonTruncation | undefined } = { truncation: undefined };
    super({
      transform: (fragment, controller) =>
        runStep(controller, (out) => {
          const text = writer.push(fragment);
          if (text !== '') out.push(text);
        }),
      flush: (controller) =>
        runStep(controller, (out) => {
          if (writer.complete) return;
          if (!repair) writer.end();
          const closing = writer.closing();
          if (closing !== '') out.push(closing);
          result.truncation = { path: writer.path, closing };
        }),
    });
    this.#result = result;
  }

  /**
   * True when `repair` closed a truncated document; final once the output has ended (it is
   * `false` before the end of input).
   */
  get truncated(): boolean {
    return this.#result.truncation !== undefined;
  }

  /** What `repair` closed, or `undefined` when the document was complete (or not yet ended). */
  get truncation(): JsonTruncation | undefined {
    return this.#result.truncation;
  }
}
