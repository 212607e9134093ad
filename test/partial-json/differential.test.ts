/**
 * `createPartialJsonParser` against the AI SDK's own `parsePartialJson`, in every major the peer
 * range names: generated documents cut at every prefix and fed as growing texts through one
 * parser, in random steps, through `push`; JSON-ish garbage; texts that do not grow (unrelated,
 * shorter, edited in the middle). `ai` 7 exactly; `ai` 5 and 6 exactly except on the texts their
 * documented differences name, where they must give 'failed-parse'.
 */
import { parsePartialJson as parsePartialJson5 } from 'ai';
import { parsePartialJson as parsePartialJson6 } from 'ai6';
import { parsePartialJson as parsePartialJson7 } from 'ai7';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPartialJsonParser, type PartialJsonParser } from '../../src/bindings/partial-json.ts';
import { documentText, endsInArrayMinus, endsInUnicodeEscape, garbageText, resultDifference, type Result } from './partial-json-helpers.ts';

interface Major {
  readonly name: string;
  readonly parsePartialJson: (text: string | undefined) => Promise<Result>;
  /** The texts on which this major's documented difference from `ai` 7 may show. */
  readonly differsOn: (text: string) => boolean;
}

const AI7: Major = { name: 'ai 7', parsePartialJson: parsePartialJson7, differsOn: () => false };
const MAJORS: readonly Major[] = [
  AI7,
  { name: 'ai 6', parsePartialJson: parsePartialJson6, differsOn: endsInArrayMinus },
  // ai 5 has ai 6's difference too (ai 7 changed both).
  { name: 'ai 5', parsePartialJson: parsePartialJson5, differsOn: (text) => endsInUnicodeEscape(text) || endsInArrayMinus(text) },
];

/** Our result for `text` is each major's, or the documented difference. */
async function expectSameAsTheSdk(ours: Result, text: string, majors: readonly Major[]): Promise<void> {
  for (const major of majors) {
    const theirs = await major.parsePartialJson(text);
    const difference = resultDifference(ours, theirs);
    if (difference === undefined) continue;
    if (major !== AI7 && major.differsOn(text)) {
      expect(theirs, `${major.name} on ${JSON.stringify(text)}`).toEqual({ value: undefined, state: 'failed-parse' });
      continue;
    }
    expect.fail(`${major.name} on ${JSON.stringify(text)}: ${difference}`);
  }
}

/** Feed every prefix of `text` to one parser; check each result, and the `push` form beside it. */
async function growEveryPrefix(text: string, majors: readonly Major[]): Promise<void> {
  const parser = createPartialJsonParser();
  const pusher = createPartialJsonParser();
  for (let end = 0; end <= text.length; end++) {
    const prefix = text.slice(0, end);
    const ours = parser.parse(prefix);
    await expectSameAsTheSdk(ours, prefix, majors);
    if (end > 0) {
      const pushed = pusher.push(text.slice(end - 1, end));
      expect(resultDifference(pushed, ours), `push() at ${JSON.stringify(prefix)}`).toBeUndefined();
    }
  }
}

describe('createPartialJsonParser against the AI SDK parsePartialJson (ai 5, 6, 7)', () => {
  it('gives what each major gives for every prefix of generated documents, fed as one growing text', async () => {
    await fc.assert(
      fc.asyncProperty(documentText, (text) => growEveryPrefix(text, MAJORS)),
      { numRuns: 250 },
    );
  });

  it('gives what ai 7 gives for every prefix of JSON-ish garbage (what the repair skips and keeps)', async () => {
    await fc.assert(
      fc.asyncProperty(garbageText, (text) => growEveryPrefix(text, [AI7])),
      { numRuns: 400 },
    );
  });

  it('gives the same when the text grows by several characters at a time, through parse() and push()', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(documentText, garbageText), fc.array(fc.integer({ min: 1, max: 24 }), { minLength: 1, maxLength: 40 }), async (text, steps) => {
        const parser = createPartialJsonParser();
        const pusher = createPartialJsonParser();
        let end = 0;
        for (let s = 0; end < text.length; s++) {
          const next = Math.min(text.length, end + (steps[s % steps.length] as number));
          const prefix = text.slice(0, next);
          const ours = parser.parse(prefix);
          await expectSameAsTheSdk(ours, prefix, [AI7]);
          expect(resultDifference(pusher.push(text.slice(end, next)), ours), `push() at ${JSON.stringify(prefix)}`).toBeUndefined();
          end = next;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('starts again when a text does not extend the previous one: unrelated, shorter, edited in the middle, the same', async () => {
    const alphabet = ['"', '\\', '{', '}', '[', ']', ',', ':', '1', '-', 'e', 't', 'u', ' ', 'x', '😀'];
    const sequence = fc
      .tuple(
        fc.array(fc.oneof(documentText, garbageText), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom('grow', 'shrink', 'edit', 'switch', 'same', 'edit-and-grow'), fc.nat(), fc.constantFrom(...alphabet)), { minLength: 1, maxLength: 25 }),
      )
      .map(([documents, operations]) => {
        let source = documents[0] as string;
        let text = '';
        const texts: string[] = [];
        for (const [operation, n, character] of operations) {
          if (operation === 'grow') text = source.slice(0, Math.min(source.length, text.length + 1 + (n % 12)));
          else if (operation === 'shrink') text = text.slice(0, n % (text.length + 1));
          else if (operation === 'switch') {
            source = documents[n % documents.length] as string;
            text = source.slice(0, n % (source.length + 1));
          } else if (operation.startsWith('edit') && text.length > 0) {
            const at = n % text.length;
            text = text.slice(0, at) + character + text.slice(at + 1);
            source = text + source.slice(text.length);
            if (operation === 'edit-and-grow') text = source.slice(0, Math.min(source.length, text.length + 1 + (n % 5)));
          }
          texts.push(text);
        }
        return texts;
      });
    await fc.assert(
      fc.asyncProperty(sequence, async (texts) => {
        const parser = createPartialJsonParser();
        for (const text of texts) await expectSameAsTheSdk(parser.parse(text), text, [AI7]);
      }),
      { numRuns: 400 },
    );
  });

  it('push() after parse() and parse() after push() continue the same text', async () => {
    await fc.assert(
      fc.asyncProperty(documentText, fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 30 }), async (text, steps) => {
        const parser: PartialJsonParser = createPartialJsonParser();
        let end = 0;
        for (let s = 0; end < text.length; s++) {
          const [byPush, size] = steps[s % steps.length] as [boolean, number];
          const next = Math.min(text.length, end + size);
          const ours = byPush ? parser.push(text.slice(end, next)) : parser.parse(text.slice(0, next));
          await expectSameAsTheSdk(ours, text.slice(0, next), [AI7]);
          end = next;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the documented differences are real: ai 5 on a cut \\u escape, ai 5 and 6 on an array that begins with -', async () => {
    for (const text of ['"ab\\u', '{"a":"b\\u00', '["x\\uD83']) {
      expect(endsInUnicodeEscape(text)).toBe(true);
      expect(await parsePartialJson5(text)).toEqual({ value: undefined, state: 'failed-parse' });
      const ours = createPartialJsonParser().parse(text);
      expect(resultDifference(ours, await parsePartialJson7(text))).toBeUndefined();
      expect(ours.state).toBe('repaired-parse');
    }
    for (const text of ['[-', '{"a":[ -', '[[\n-']) {
      expect(endsInArrayMinus(text)).toBe(true);
      expect(await parsePartialJson6(text)).toEqual({ value: undefined, state: 'failed-parse' });
      expect(await parsePartialJson5(text)).toEqual({ value: undefined, state: 'failed-parse' });
      const ours = createPartialJsonParser().parse(text);
      expect(resultDifference(ours, await parsePartialJson7(text))).toBeUndefined();
      expect(ours.state).toBe('repaired-parse');
    }
  });
});
