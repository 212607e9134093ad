/**
 * `argstream/partial-json`: the one-line replacement for the AI SDK's `parsePartialJson` on a
 * growing buffer. {@link createPartialJsonParser} returns, for every text, exactly what
 * `parsePartialJson(text)` returns (`ai` 7: the same value after repair, the same state), and reads
 * only the new characters when a text extends the one before, where `parsePartialJson` parses the
 * whole buffer again on every delta. No dependency; nothing of argstream's stream pipeline.
 * docs/partial-json.md: the change at a call site, the differences from `ai` 5 and 6, the figures.
 *
 * @module
 */
export { createPartialJsonParser } from '../json/partial-json-parser.ts';
export type { PartialJsonParser, PartialJsonResult, PartialJsonState } from '../json/partial-json-parser.ts';
