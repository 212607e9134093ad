/**
 * SSE text with every line break written as LF, before it reaches `eventsource-parser`.
 *
 * @module
 */

/** A CR LF pair or a lone CR: one SSE line break each. */
const CR_LINE_BREAK = /\r\n?/g;

/**
 * Rewrites the line breaks of SSE text, chunk by chunk, as LF: a CR LF pair or a lone CR becomes
 * one LF, also when the pair is split between two chunks. SSE data never holds a CR (it is a line
 * break), so the events read are the same.
 *
 * Why: once a chunk holds a CR, `eventsource-parser` looks for both the next CR and the next LF at
 * every line, so one CR among many LF lines (or one LF among many CR lines) makes each line scan
 * the rest of the chunk: quadratic in the chunk (a 1 MB chunk of short lines took 0.75 s, 4 MB
 * twelve seconds). With LF only, every chunk takes its linear path. Chunks without a CR (what
 * providers send) pass unchanged, at the cost of one search for a CR.
 */
export class SseLineBreaks {
  /** The last chunk ended with a CR: a LF at the start of the next one is the rest of its line break. */
  #afterCr = false;

  /** The chunk with its line breaks as LF. */
  normalize(text: string): string {
    if (text === '') return text;
    const rest = this.#afterCr && text.charCodeAt(0) === 0x0a ? text.slice(1) : text;
    this.#afterCr = text.charCodeAt(text.length - 1) === 0x0d;
    return rest.indexOf('\r') === -1 ? rest : rest.replace(CR_LINE_BREAK, '\n');
  }
}
