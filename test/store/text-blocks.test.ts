/**
 * `TextBlocks`: a growing text as blocks of whole lines, every finished block the same string
 * from one update to the next, their concatenation always the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextBlocks } from '../../src/index.ts';

describe('TextBlocks', () => {
  it('property: for any text grown in any steps, the blocks join to the text, end at line ends, and finished blocks keep their identity', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'bc', '\n', 'lorem ipsum ', 'x'.repeat(40), '\n\n'), { maxLength: 300 }), fc.array(fc.integer({ min: 1, max: 20 }), { maxLength: 60 }), fc.integer({ min: 1, max: 64 }), (pieces, steps, size) => {
        const text = pieces.join('');
        const blocks = new TextBlocks(size);
        let at = 0;
        let previous: readonly string[] = [];
        for (const step of [...steps, text.length]) {
          at = Math.min(text.length, at + step);
          const current = blocks.update(text.slice(0, at));
          expect(current.join('')).toBe(text.slice(0, at));
          for (let i = 0; i < current.length - 1; i++) {
            const block = current[i]!;
            expect(block.endsWith('\n') || block.length === 4 * size).toBe(true);
            if (i < previous.length - 1) expect(block).toBe(previous[i]);
          }
          expect(blocks.update(text.slice(0, at))).toBe(current);
          previous = current;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a text that does not continue the previous one starts over', () => {
    const blocks = new TextBlocks(4);
    expect(blocks.update('abcd\nefgh\nij')).toEqual(['abcd\n', 'efgh\n', 'ij']);
    expect(blocks.update('zz\n')).toEqual(['zz\n']);
    expect(blocks.update('')).toEqual([]);
  });

  it('a block size below 1 is a RangeError', () => {
    expect(() => new TextBlocks(0)).toThrow(RangeError);
  });
});
