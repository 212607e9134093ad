/**
 * JSON text as a stream: a thin shell over {@link JsonTextCore}.
 *
 * @module
 */
import type { StreamFragment } from '../types.ts';
import { Stage } from './stage.ts';
import { JsonTextCore, type JsonTextStreamOptions, type JsonTruncation } from '../views/json-text-core.ts';

export type { JsonTextStreamOptions, JsonTruncation };

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
 * It reads fragments only: in a pipeline of events, the JSON text of each tool call's arguments is
 * {@link ToolCallDeltaStream}'s (a pipeline event errors this stream with a `TypeError` that says
 * so).
 *
 * @throws {TypeError} (erroring the stream) for fragments out of order, or an input that is not a fragment.
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
