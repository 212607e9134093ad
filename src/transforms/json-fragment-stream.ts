/**
 * JSON text → fragments as a stream: a thin shell over the incremental parser's push core.
 *
 * @module
 */
import type { StreamFragment } from '../types.ts';
import { Stage } from './stage.ts';
import { FragmentCore, type JsonFragmentStreamOptions } from '../views/json-fragment-core.ts';

export type { JsonFragmentStreamOptions };

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
