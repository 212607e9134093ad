import { JsonStreamError } from '../errors.ts';
import { IncrementalJsonParser } from '../json/incremental-json-parser.ts';
import type { JsonLimits } from '../json/scanner.ts';
import type { StreamFragment } from '../types.ts';
import { type PushCore, Stage } from './stage.ts';

/** Options of {@link JsonFragmentStream}: the parser's limits, and what a cut document does. */
export interface JsonFragmentStreamOptions extends JsonLimits {
  /**
   * End the stream normally when the text stops before the document is complete (a truncated
   * tool call), instead of erroring it with `unexpected-end`: the fragments stop where the text
   * stopped, and a later `JsonTextStream({ repair: true })` closes the document. Invalid text is
   * still an error.
   * @default false
   */
  readonly allowTruncated?: boolean;
}

/** {@link IncrementalJsonParser} as a push core, optionally tolerant of a cut document. */
class FragmentCore implements PushCore<string | Uint8Array, StreamFragment> {
  readonly #parser: IncrementalJsonParser;
  readonly #allowTruncated: boolean;

  constructor(options: JsonFragmentStreamOptions) {
    this.#parser = new IncrementalJsonParser(options);
    this.#allowTruncated = options.allowTruncated === true;
  }

  push(chunk: string | Uint8Array, out: StreamFragment[] = []): StreamFragment[] {
    return this.#parser.push(chunk, out);
  }

  end(out: StreamFragment[] = []): StreamFragment[] {
    try {
      return this.#parser.end(out);
    } catch (error) {
      if (this.#allowTruncated && error instanceof JsonStreamError && error.code === 'unexpected-end') return out;
      throw error;
    }
  }
}

/**
 * JSON text (strings, or UTF-8 bytes cut anywhere) → {@link StreamFragment}s, one stream chunk
 * per fragment, with the guarantees of {@link IncrementalJsonParser} (its core).
 *
 * `flush` ends the document: a complete document ends the stream; an incomplete one errors it
 * with a `JsonStreamError` (`unexpected-end`, with the path of what was open) — or, with
 * `allowTruncated`, ends it normally. Invalid input errors the stream after the fragments found
 * before the error have been enqueued.
 *
 * @example
 * ```ts
 * const response = await fetch('/tool-call-arguments.json');
 * const fragments = response.body!.pipeThrough(new JsonFragmentStream());
 * for await (const fragment of fragments) console.log(fragment);
 * ```
 */
export class JsonFragmentStream extends Stage<string | Uint8Array, StreamFragment> {
  constructor(options: JsonFragmentStreamOptions = {}) {
    super(new FragmentCore(options));
  }
}
