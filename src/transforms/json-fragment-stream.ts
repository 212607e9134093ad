import { FragmentCollector } from '../json/incremental-json-parser.ts';
import { JsonScanner, type JsonLimits } from '../json/scanner.ts';
import type { StreamFragment } from '../types.ts';
import { drainingTransformer, runStep } from './fail-after-drain.ts';

/** Options of {@link JsonFragmentStream}: the parser's limits. */
export interface JsonFragmentStreamOptions extends JsonLimits {}

/**
 * JSON text (strings, or UTF-8 bytes cut anywhere) → {@link StreamFragment}s, one stream chunk
 * per fragment, with the guarantees of {@link IncrementalJsonParser}.
 *
 * `flush` ends the document: a complete document ends the stream; an incomplete one errors it
 * with a `JsonStreamError` (`unexpected-end`, with the path of what was open). Invalid input
 * errors the stream after the fragments found before the error have been enqueued.
 *
 * @example
 * ```ts
 * const response = await fetch('/tool-call-arguments.json');
 * const fragments = response.body!.pipeThrough(new JsonFragmentStream());
 * for await (const fragment of fragments) console.log(fragment);
 * ```
 */
export class JsonFragmentStream extends TransformStream<string | Uint8Array, StreamFragment> {
  constructor(options: JsonFragmentStreamOptions = {}) {
    const collector = new FragmentCollector();
    const scanner = new JsonScanner(collector, options);
    collector.scanner = scanner;
    super(
      drainingTransformer({
        transform: (chunk, controller) => runStep(controller, (out) => {
          collector.out = out;
          scanner.push(chunk);
        }),
        flush: (controller) => runStep(controller, (out) => {
          collector.out = out;
          scanner.end();
        }),
      }),
    );
  }
}
