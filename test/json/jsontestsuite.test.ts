/**
 * JSONTestSuite (nst/JSONTestSuite, test_parsing/): every case decoded as a user's TextDecoder
 * would, and held to `JSON.parse` on the same decoded text — same verdict, same value — fed
 * whole, byte by byte and at random cuts, as bytes and as strings.
 */
import { describe, expect, it } from 'vitest';
import { JsonStreamError } from '../../src/index.ts';
import { listFixtures, oneByOne, randomCuts, readFixture, rng } from '../helpers.ts';
import { parseFragments, parseValue, thrown } from './json-helpers.ts';

const DIR = 'jsontestsuite/test_parsing';
const files = listFixtures(DIR).filter((name) => name.endsWith('.json'));

function oracle(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The fragment path costs O(depth) per fragment by design (each fragment carries its path), so
 * the two 10⁴–10⁵-deep cases run it with a depth limit; both are rejected either way.
 */
const FRAGMENT_OPTIONS = { maxDepth: 1000 };
const VALUE_OPTIONS = { maxDepth: Infinity };

describe('JSONTestSuite', () => {
  it('has all 318 cases', () => {
    expect(files.length).toBe(318);
  });

  for (const name of files) {
    it(`IncrementalJsonParser agrees with JSON.parse on ${name}`, () => {
      const bytes = readFixture(`${DIR}/${name}`);
      const text = new TextDecoder().decode(bytes);
      const expected = oracle(text);
      const random = rng(name.length * 7919 + bytes.length);
      const cuttings: Array<[string, Array<string | Uint8Array>]> = [
        ['bytes whole', [bytes]],
        ['bytes one by one', oneByOne(bytes)],
        ['bytes at random cuts', randomCuts(bytes, random)],
        ['string whole', [text]],
        ['string one by one', oneByOne(text)],
        ['string at random cuts', randomCuts(text, random)],
      ];
      let firstError: JsonStreamError | undefined;
      for (const [how, chunks] of cuttings) {
        for (const [engine, run] of [
          ['value parser', () => parseValue(chunks, VALUE_OPTIONS)],
          ['fragments + aggregator', () => parseFragments(chunks, FRAGMENT_OPTIONS).value],
        ] as const) {
          const label = `${name}, ${how}, ${engine}`;
          if (expected.ok) {
            expect(run(), label).toEqual(expected.value);
          } else {
            const error = thrown(run);
            expect(error, label).toBeInstanceOf(JsonStreamError);
            if (engine === 'value parser') {
              // The verdict and the offset do not depend on the cutting.
              firstError ??= error;
              expect([error.code, error.offset], label).toEqual([firstError!.code, firstError!.offset]);
            }
          }
        }
      }
    });
  }
});
