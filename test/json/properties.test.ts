/**
 * Properties over arbitrary JSON texts (arbitrary values, whitespace and escaping) × arbitrary
 * cuttings, with `JSON.parse` as the oracle.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IncrementalJsonParser, type StreamFragment } from '../../src/index.ts';
import { cutAt } from '../helpers.ts';
import { cutsFor, jsonText, merged, parseFragments, parseValue, pathAndLeaf, surrogateDocAndCuts, surrogateDocAndEnds, thrown } from './json-helpers.ts';

const RUNS = { numRuns: 300 };
const textAndCuts = jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length)));

/**
 * A reference reading of a valid JSON text for the promptness oracle: the decoded units of every
 * string value with the offset where each unit's source ends, and for every other fragment the
 * input length after which it must have been emitted.
 */
function reference(text: string) {
  const units: Array<{ unit: string; end: number; close: number }> = [];
  const thresholds: number[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  };
  const string = (isKey: boolean) => {
    const open = units.length;
    i++; // opening quote
    while (text.charAt(i) !== '"') {
      let unit: string;
      if (text.charAt(i) === '\\') {
        const e = text.charAt(i + 1);
        if (e === 'u') {
          unit = String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          unit = ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[e] ?? e;
          i += 2;
        }
      } else {
        unit = text.charAt(i);
        i++;
      }
      if (!isKey) units.push({ unit, end: i, close: -1 });
    }
    for (let k = open; k < units.length; k++) units[k]!.close = i;
    i++; // closing quote
  };
  const stack: number[] = [];
  // An explicit stack keeps the oracle itself free of recursion.
  const value = () => {
    ws();
    const c = text.charAt(i);
    if (c === '"') {
      thresholds.push(i + 1); // start string
      string(false);
      thresholds.push(i); // done
    } else if (c === '{' || c === '[') {
      thresholds.push(++i);
      stack.push(0);
      ws();
      if (text.charAt(i) === '}' || text.charAt(i) === ']') {
        thresholds.push(++i);
        stack.pop();
        return;
      }
      for (;;) {
        if (c === '{') {
          ws();
          string(true);
          ws();
          i++; // colon
        }
        value();
        ws();
        const next = text.charAt(i++);
        if (next === '}' || next === ']') {
          thresholds.push(i);
          stack.pop();
          return;
        }
      }
    } else {
      const match = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i))!;
      i += match[0].length;
      const literal = /^[tfn]/.test(match[0]);
      // A number needs its terminator; a root number at the very end completes only at end().
      const at = literal ? i : i < text.length ? i + 1 : Infinity;
      thresholds.push(at, at);
    }
  };
  value();
  return { units, thresholds };
}

describe('IncrementalJsonParser properties', () => {
  it('IncrementalJsonValueParser gives JSON.parse’s value under any cutting, as strings and bytes', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const expected = JSON.parse(text);
        expect(parseValue(cutAt(text, cuts), { maxDepth: Infinity })).toEqual(expected);
        const bytes = new TextEncoder().encode(text);
        const byteCuts = cuts.map((c) => Math.floor((c / text.length) * bytes.length));
        expect(parseValue(cutAt(bytes, byteCuts), { maxDepth: Infinity })).toEqual(JSON.parse(new TextDecoder().decode(bytes)));
      }),
      RUNS,
    );
  });

  it('both engines decode escaped and raw surrogates, long runs and escapes cut at chunk ends as JSON.parse does', () => {
    fc.assert(
      fc.property(surrogateDocAndCuts, ([text, cuts]) => {
        const expected = JSON.parse(text);
        expect(parseValue(cutAt(text, cuts))).toEqual(expected);
        expect(parseFragments(cutAt(text, cuts)).value).toEqual(expected);
        const bytes = new TextEncoder().encode(text);
        const byteCuts = cuts.map((c) => new TextEncoder().encode(text.slice(0, c)).length);
        const fromBytes = JSON.parse(new TextDecoder().decode(bytes));
        expect(parseValue(cutAt(bytes, byteCuts))).toEqual(fromBytes);
      }),
      { numRuns: 1000 },
    );
  });

  it('IncrementalJsonParser fragments aggregate to JSON.parse’s value and, merged, do not depend on the cutting', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const whole = parseFragments([text], { maxDepth: Infinity });
        const cut = parseFragments(cutAt(text, cuts), { maxDepth: Infinity });
        expect(cut.value).toEqual(JSON.parse(text));
        expect(merged(cut.fragments)).toEqual(merged(whole.fragments));
        for (const fragment of cut.fragments) {
          const leaf = pathAndLeaf(fragment)[1];
          if (leaf.type === 'string') expect(leaf.text).not.toBe('');
        }
      }),
      RUNS,
    );
  });

  it('IncrementalJsonParser is prompt: after every chunk, everything that can be known has been emitted', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const { units, thresholds } = reference(text);
        const parser = new IncrementalJsonParser({ maxDepth: Infinity });
        let seen = '';
        let others = 0;
        let length = 0;
        for (const chunk of cutAt(text, cuts)) {
          length += chunk.length;
          for (const fragment of parser.push(chunk)) {
            const leaf: StreamFragment = pathAndLeaf(fragment)[1];
            if (leaf.type === 'string') seen += leaf.text;
            else others++;
          }
          let expected = units.filter((u) => u.end <= length);
          const last = expected[expected.length - 1];
          // Only a high surrogate at the end of a string still open is held back.
          if (last && last.close >= length && /[\ud800-\udbff]/.test(last.unit)) expected = expected.slice(0, -1);
          expect(seen).toBe(expected.map((u) => u.unit).join(''));
          expect(others).toBe(thresholds.filter((t) => t <= length).length);
        }
      }),
      RUNS,
    );
  });

  it('IncrementalJsonParser rejects invalid text with the same code and offset under any cutting', () => {
    const mutated = fc
      .tuple(jsonText, fc.nat(), fc.constantFrom('delete', 'insert', 'replace'), fc.constantFrom(',', ':', '"', '\\', '{', '}', '[', ']', 'x', '1', '-', '.', 'e', ' ', '\u0001', 't', 'u'))
      .map(([text, at, op, ch]) => {
        const p = at % (text.length + 1);
        if (op === 'delete') return text.slice(0, p) + text.slice(p + 1);
        if (op === 'insert') return text.slice(0, p) + ch + text.slice(p);
        return text.slice(0, p) + ch + text.slice(p + 1);
      })
      .filter((text) => {
        try {
          JSON.parse(text);
          return false;
        } catch {
          return true;
        }
      });
    fc.assert(
      fc.property(mutated.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length))), ([text, cuts]) => {
        const whole = thrown(() => parseValue([text], { maxDepth: Infinity }));
        expect(whole?.code).toMatch(/^(invalid-json|unexpected-end)$/);
        for (const run of [
          () => parseValue(cutAt(text, cuts), { maxDepth: Infinity }),
          () => parseFragments(cutAt(text, cuts), { maxDepth: Infinity }),
          () => parseFragments([text], { maxDepth: Infinity }),
        ]) {
          const error = thrown(run);
          expect([error?.code, error?.offset, error?.path]).toEqual([whole.code, whole.offset, whole.path]);
        }
      }),
      RUNS,
    );
  });

  it('both engines stop at a limit with the same code, offset and path under any cutting, as strings and bytes', () => {
    const limits = fc.record(
      {
        maxStringLength: fc.integer({ min: 1, max: 80 }),
        maxDepth: fc.integer({ min: 1, max: 4 }),
        maxLength: fc.integer({ min: 1, max: 400 }),
      },
      { requiredKeys: [] },
    );
    const doc = fc.oneof(
      fc.tuple(textAndCuts, limits),
      fc.tuple(surrogateDocAndCuts, limits),
      // Truncated at the end of a piece (often a surrogate), with maxStringLength at or next to
      // the string's length there: the limit and the end of the input meet.
      surrogateDocAndEnds.chain(([text, , ends]) =>
        fc.tuple(fc.constantFrom(...ends), fc.integer({ min: -1, max: 1 }), fc.boolean()).chain(([[end, units], delta, truncate]) => {
          const cut = truncate ? text.slice(0, end) : text;
          return fc.tuple(fc.tuple(fc.constant(cut), cutsFor(cut.length)), fc.constant({ maxStringLength: Math.max(1, units + delta) }));
        }),
      ),
    );
    fc.assert(
      fc.property(doc, ([[text, cuts], options]) => {
        const whole = thrown(() => parseFragments([text], options));
        const outcome = (error: any) => [error?.code, error?.offset, error?.path];
        expect(outcome(thrown(() => parseValue([text], options)))).toEqual(outcome(whole));
        expect(outcome(thrown(() => parseValue(cutAt(text, cuts), options)))).toEqual(outcome(whole));
        expect(outcome(thrown(() => parseFragments(cutAt(text, cuts), options)))).toEqual(outcome(whole));
        const bytes = new TextEncoder().encode(text);
        if (new TextDecoder().decode(bytes) === text) {
          const byteCuts = cuts.map((c) => new TextEncoder().encode(text.slice(0, c)).length);
          expect(outcome(thrown(() => parseValue(cutAt(bytes, byteCuts), options)))).toEqual(outcome(whole));
          expect(outcome(thrown(() => parseFragments(cutAt(bytes, byteCuts), options)))).toEqual(outcome(whole));
        }
      }),
      { numRuns: 1500 },
    );
  });
});
