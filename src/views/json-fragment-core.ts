/**
 * The fragment view's core: JSON text → the recursive fragments of RFD 043, as a push core.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import { JsonStreamError } from '../errors.ts';
import { IncrementalJsonParser } from '../json/incremental-json-parser.ts';
import type { JsonLimits } from '../json/scanner.ts';
import type { StreamFragment } from '../types.ts';

/**
 * Options of `JsonFragmentStream` and its core: the parser's limits, and what a cut
 * document does.
 */
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

/**
 * The core of `JsonFragmentStream`: {@link IncrementalJsonParser} as a push core, optionally
 * tolerant of a cut document. Internal.
 */
export class FragmentCore implements PushCore<string | Uint8Array, StreamFragment> {
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
