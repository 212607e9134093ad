/**
 * A growing text (a file's content as a call streams) cut into blocks of whole lines, so that a
 * page renders each frame in time proportional to what arrived, not to the whole text.
 *
 * @module
 */

/**
 * Cuts a text that only grows into blocks of whole lines of about `blockSize` characters. Every
 * block but the last stays the very same string from one `update` to the next, so a page that
 * renders each block as its own element (a `<div>` with `white-space: pre-wrap`) and skips the
 * unchanged ones (React's `memo`, Vue's `v-memo`, a keyed Svelte `{#each}`) lays out only the last
 * block per frame. One text node holding the whole text would be laid out again whole on every
 * change: at 1 MB that is most of a frame, whatever the library that made the text.
 *
 * `update` costs what the text grew by (plus about two blocks); a shorter text, or one that no
 * longer holds the last finished block, starts over.
 * @example
 * ```ts
 * const blocks = new TextBlocks();
 * blocks.update('line 1\nline 2\n'); // ['line 1\nline 2\n']
 * ```
 */
export class TextBlocks {
  readonly #size: number;
  /** The finished blocks: every one ends with a line feed (or at the size limit of a line without one). */
  #done: string[] = [];
  /** How much of the text the finished blocks cover. */
  #covered = 0;
  #text = '';
  #last: readonly string[] = [];

  /** @param blockSize - about how many characters a block holds (a block ends at a line end). @default 4096 */
  constructor(blockSize = 4096) {
    if (!(blockSize >= 1)) throw new RangeError(`TextBlocks: blockSize must be at least 1, got ${String(blockSize)}`);
    this.#size = Math.floor(blockSize);
  }

  /** Forget the previous text: the next `update` starts over. */
  reset(): void {
    this.#done = [];
    this.#covered = 0;
    this.#text = '';
    this.#last = [];
  }

  /**
   * The blocks of `text`: the same array while the text is the same, a new array when it grew, its
   * finished blocks the same strings as before. Their concatenation is `text`.
   */
  update(text: string): readonly string[] {
    if (text === this.#text) return this.#last;
    // The text continues the previous one when it is no shorter and still holds the last finished
    // block where it was: O(one block), enough for a text that only grows (a streaming string).
    // A different text of which that much is equal is not told apart: keep one `TextBlocks` per
    // text (per call), or `reset()` it.
    const covered = this.#covered;
    const lastDone = this.#done[this.#done.length - 1];
    const continues = text.length >= this.#text.length && (lastDone === undefined || text.startsWith(lastDone, covered - lastDone.length));
    if (!continues) {
      this.#done = [];
      this.#covered = 0;
    }
    const size = this.#size;
    let start = this.#covered;
    const longest = 4 * size;
    for (;;) {
      if (text.length - start <= size) break;
      // A block ends after a line feed; a line longer than four blocks is cut (shown as two lines).
      let end = text.indexOf('\n', start + size - 1);
      if (end === -1) {
        if (text.length - start < longest) break;
        end = start + longest;
      } else end = Math.min(end + 1, start + longest);
      // The tail stays open while it may still grow.
      if (end >= text.length) break;
      this.#done.push(text.slice(start, end));
      start = end;
    }
    this.#covered = start;
    this.#text = text;
    const tail = text.slice(start);
    this.#last = tail === '' ? [...this.#done] : [...this.#done, tail];
    return this.#last;
  }
}
