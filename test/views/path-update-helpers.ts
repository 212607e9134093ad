/** Helpers for the path-update tests: text chunks → updates, and a compact notation for updates. */
import { IncrementalJsonParser } from '../../src/json/incremental-json-parser.ts';
import type { PathUpdate } from '../../src/types.ts';
import { PathUpdateEncoder, type PathUpdateEncoderOptions } from '../../src/views/path-update-encoder.ts';

/**
 * Parse `chunks` and encode them: the updates each chunk produced (the last entry is `end()`'s).
 * Absolute paths unless `options` say otherwise, as the notation of these tests reads best.
 */
export function updatesPerChunk(chunks: readonly string[], options: PathUpdateEncoderOptions = { relativePaths: false }): PathUpdate[][] {
  const parser = new IncrementalJsonParser();
  const encoder = new PathUpdateEncoder(options);
  const out: PathUpdate[][] = [];
  for (const chunk of chunks) {
    const updates: PathUpdate[] = [];
    for (const fragment of parser.push(chunk)) encoder.push(fragment, updates);
    out.push(updates);
  }
  const last: PathUpdate[] = [];
  for (const fragment of parser.end()) encoder.push(fragment, last);
  out.push(last);
  return out;
}

/** All the updates of a text. */
export function updatesOf(...chunks: string[]): PathUpdate[] {
  return updatesPerChunk(chunks).flat();
}

/** `kind path [payload]`, e.g. `partial-string /a "x"` or `complete-number /n 1 (1.0)`. */
export function note(update: PathUpdate): string {
  const head = `${update.kind} ${JSON.stringify(update.path)}`;
  switch (update.kind) {
    case 'key':
    case 'partial-string':
      return `${head} ${JSON.stringify(update.textValue)}`;
    case 'complete-number':
      return `${head} ${update.raw ?? String(update.value)}`;
    case 'complete-boolean':
    case 'complete-null':
      return `${head} ${String(update.value)}`;
    default:
      return head;
  }
}

/** Updates as they arrive after an SSE hop. */
export function overTheWire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
