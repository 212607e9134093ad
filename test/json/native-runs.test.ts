/**
 * The fused engine's native runs: after a comma, a run of complete elements or members in the
 * chunk is handed to `JSON.parse` (see `findRun`, scanner-runs.ts). These tests would catch a wrong run:
 * documents of many small values in large chunks (where runs are taken) against `JSON.parse` of
 * the whole text, with `__proto__`, duplicate keys, -0 and escapes; errors and limits inside a
 * run against the fragment engine (which never takes runs); snapshots after every push.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FragmentAggregator, IncrementalJsonParser, IncrementalJsonValueParser, JsonValueCore, TurnBuilder, type JsonValue } from '../../src/index.ts';
import type { JsonLimits } from '../../src/json/scanner.ts';
import { cutAt, rng } from '../helpers.ts';
import { parseFragments, parseValue, thrown, writeJson } from './json-helpers.ts';

const RUNS = { numRuns: 200 };

/** Where two JSON values differ (types, `Object.is` numbers, own keys in order, prototypes), or `undefined`. */
function difference(actual: unknown, expected: unknown, path = '$'): string | undefined {
  if (typeof expected !== 'object' || expected === null) {
    return Object.is(actual, expected) ? undefined : `${path}: ${String(actual)} instead of ${String(expected)}`;
  }
  if (typeof actual !== 'object' || actual === null) return `${path}: not a container`;
  if (Array.isArray(expected) !== Array.isArray(actual)) return `${path}: array vs object`;
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) return `${path}: prototype`;
  const keys = Object.keys(expected);
  const actualKeys = Object.keys(actual);
  if (keys.join('\u0000') !== actualKeys.join('\u0000')) return `${path}: keys ${actualKeys.join(',')} instead of ${keys.join(',')}`;
  for (const key of keys) {
    const inner = difference((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${path}/${key}`);
    if (inner !== undefined) return inner;
  }
  return undefined;
}


const KEYS = ['id', 'sku', 'a', 'b', '__proto__', 'constructor', '0', '7', 'é', '}', '",', '],'];
/** Strings with the characters a run's guess looks for (`},` `],` `",`), escapes and surrogates. */
const STRINGS = ['', 'ok', 'n/a', '},{', '],[', '",', '\\', '"', '\n\t', '😀', '\ud83d', '\ude00', 'ré-stock', '\u2028', 'x'.repeat(40), 'y'.repeat(1100)];
const SCALARS: JsonValue[] = [null, true, false, 0, -0, 1, -20, 3.25, 1e21, 5e-324, 123456789012345680000, 0.1];

/** One small value: mostly scalars and strings, sometimes a small array or a record. */
function smallValue(random: () => number, depth: number): JsonValue {
  const r = random();
  if (r < 0.35) return SCALARS[Math.floor(random() * SCALARS.length)] as JsonValue;
  if (r < 0.7 || depth > 3) return STRINGS[Math.floor(random() * STRINGS.length)] as string;
  if (r < 0.85) return Array.from({ length: Math.floor(random() * 4) }, () => smallValue(random, depth + 1));
  return record(random, depth + 1).value;
}

/** A record as text (keys may repeat: the text has the duplicate, the value the last one wins). */
function record(random: () => number, depth: number): { text: string; value: JsonValue } {
  const count = Math.floor(random() * 6);
  const members: string[] = [];
  for (let k = 0; k < count; k++) {
    const key = KEYS[Math.floor(random() * KEYS.length)] as string;
    members.push(writeJson(key, random) + ':' + writeJson(smallValue(random, depth), random));
  }
  const text = '{' + members.join(',') + '}';
  return { text, value: JSON.parse(text) as JsonValue };
}

/**
 * Documents of many small complete values: an array of records, of scalars, one wide object, or a
 * map of records (an object's runs are taken after a member whose value is an object).
 */
const manyValues = fc.tuple(fc.constantFrom('records', 'scalars', 'wide', 'map', 'nested'), fc.integer({ min: 20, max: 300 }), fc.integer()).map(([shape, count, seed]) => {
  const random = rng(seed);
  const items: string[] = [];
  for (let k = 0; k < count; k++) {
    if (shape === 'records') items.push(record(random, 1).text);
    else if (shape === 'scalars') items.push(writeJson(smallValue(random, 9), random));
    else if (shape === 'map') items.push(writeJson(KEYS[k % KEYS.length] + String(k % 7), random) + ':' + record(random, 1).text);
    else if (shape === 'wide') items.push(writeJson(KEYS[k % KEYS.length] + (k % 5 === 0 ? '' : String(k)), random) + ':' + writeJson(smallValue(random, 1), random));
    else items.push('[' + record(random, 1).text + ',' + writeJson(smallValue(random, 1), random) + ']');
  }
  const separator = () => (random() < 0.2 ? ',\n  ' : ',');
  const body = items.map((item, k) => (k === 0 ? item : separator() + item)).join('');
  return shape === 'wide' || shape === 'map' ? `{${body}}` : shape === 'nested' ? `{"data":{"rows":[${body}]},"n":${count}}` : `[${body}]`;
});

/** Few cuts, so that most chunks are long enough for runs. */
function bigCuts(length: number) {
  return fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 4 }).map((cuts) => cuts.sort((a, b) => a - b));
}
const docAndCuts = manyValues.chain((text) => fc.tuple(fc.constant(text), bigCuts(text.length)));

/**
 * The runs a fused parser takes in the first 64 KiB of `text` (its calls of `JSON.parse` on more
 * than 1000 characters: their count and total length), and the value of the whole text.
 */
function firstChunkRuns(text: string, options?: JsonLimits): { runs: number; characters: number; value: JsonValue } {
  const spy = vi.spyOn(JSON, 'parse');
  const parser = new IncrementalJsonValueParser(options);
  parser.push(text.slice(0, 65536));
  const lengths = spy.mock.calls.map(([argument]) => String(argument).length).filter((length) => length > 1000);
  spy.mockRestore();
  parser.push(text.slice(65536));
  return { runs: lengths.length, characters: lengths.reduce((sum, length) => sum + length, 0), value: parser.end() };
}

function errorOf(fn: () => unknown): { code: string; offset: number; path: string } | string {
  const error = thrown(fn);
  if (error === undefined) return 'no error';
  return { code: error.code, offset: error.offset, path: error.path };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('IncrementalJsonValueParser native runs', () => {
  it('IncrementalJsonValueParser hands a chunk of many complete records to JSON.parse in a few calls', () => {
    const records = Array.from({ length: 2000 }, (_, k) => ({ id: k, sku: `ABC-${k}`, qty: k % 7, price: k / 4, active: k % 2 === 0, note: null }));
    const { runs, value } = firstChunkRuns(JSON.stringify(records));
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2);
    expect(difference(value, records)).toBeUndefined();
  });

  // The runs are a module of their own (the scanner is given them), so each user that builds values
  // must hand it over; a bundle that only builds fragments (a page's store) holds none of it.
  it('JsonValueCore and TurnBuilder (value mode) also hand a chunk of many complete records to JSON.parse', () => {
    const records = Array.from({ length: 2000 }, (_, k) => ({ id: k, sku: `ABC-${k}`, note: null }));
    const text = JSON.stringify({ records });
    const runsOf = (push: (chunk: string) => void): number => {
      const spy = vi.spyOn(JSON, 'parse');
      push(text);
      const runs = spy.mock.calls.filter(([argument]) => String(argument).length > 1000).length;
      spy.mockRestore();
      return runs;
    };
    const core = new JsonValueCore();
    expect(runsOf((chunk) => core.push(chunk, []))).toBeGreaterThanOrEqual(1);
    const builder = new TurnBuilder();
    builder.push({ type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'save' } });
    expect(runsOf((chunk) => builder.push({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk } }))).toBeGreaterThanOrEqual(1);
    const [call] = builder.push({ type: 'flush', index: 0 });
    expect(call).toMatchObject({ type: 'tool-call', arguments: { records } });
  });

  it('IncrementalJsonValueParser equals JSON.parse on documents of many small values under any cutting, as strings and bytes', () => {
    fc.assert(
      fc.property(docAndCuts, ([text, cuts]) => {
        const expected = JSON.parse(text) as JsonValue;
        expect(difference(parseValue(cutAt(text, cuts)), expected)).toBeUndefined();
        expect(difference(parseValue([text]), expected)).toBeUndefined();
        const bytes = new TextEncoder().encode(text);
        const byteCuts = cuts.map((cut) => Math.round((cut * bytes.length) / text.length));
        const decoded = JSON.parse(new TextDecoder().decode(bytes)) as JsonValue;
        expect(difference(parseValue(cutAt(bytes, byteCuts)), decoded)).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('IncrementalJsonValueParser snapshots after every push equal the fragment engine’s, live and immutable', () => {
    fc.assert(
      fc.property(docAndCuts, fc.boolean(), ([text, cuts], immutableSnapshots) => {
        const fused = new IncrementalJsonValueParser({ immutableSnapshots });
        const fragments = new IncrementalJsonParser();
        const aggregator = new FragmentAggregator();
        const taken: Array<[JsonValue | undefined, string]> = [];
        for (const chunk of cutAt(text, cuts)) {
          fused.push(chunk);
          for (const fragment of fragments.push(chunk)) aggregator.push(fragment);
          const snapshot = fused.snapshot();
          expect(difference(snapshot, aggregator.snapshot())).toBeUndefined();
          if (immutableSnapshots) taken.push([snapshot, JSON.stringify(snapshot)]);
        }
        expect(difference(fused.end(), JSON.parse(text))).toBeUndefined();
        // Immutable snapshots are never mutated afterwards.
        for (const [snapshot, serialised] of taken) expect(JSON.stringify(snapshot)).toBe(serialised);
      }),
      RUNS,
    );
  });

  it('IncrementalJsonValueParser rejects a long run of only whitespace between two commas, as the fragment engine does', () => {
    const gap = ' \n'.repeat(100);
    for (const text of [`[1,${gap},2]`, `{"a":1,${gap},"b":2}`, `[{"a":1},${gap},{"b":2}]`]) {
      const reference = errorOf(() => parseFragments([text]));
      expect(reference).toMatchObject({ code: 'invalid-json', offset: text.lastIndexOf(',') });
      expect(errorOf(() => parseValue([text]))).toEqual(reference);
    }
  });

  it('IncrementalJsonValueParser with immutableSnapshots shows a chunk that holds nothing but a run', () => {
    const parser = new IncrementalJsonValueParser({ immutableSnapshots: true });
    parser.push('[{"a":0}');
    expect(parser.snapshot()).toEqual([{ a: 0 }]);
    const more = Array.from({ length: 50 }, (_, k) => ({ a: k + 1 }));
    // The chunk ends just after a comma: its only change is the run of 50 records.
    parser.push(',' + more.map((item) => JSON.stringify(item)).join(',') + ',');
    expect(parser.snapshot()).toEqual([{ a: 0 }, ...more]);
    parser.push('{"a":51}]');
    expect((parser.end() as JsonValue[]).length).toBe(52);
  });

  it('IncrementalJsonValueParser shows every record complete in a chunk after that chunk’s push', () => {
    const records = Array.from({ length: 300 }, (_, k) => ({ id: k, tag: k % 3 === 0 ? '},{' : 'ok' }));
    const text = JSON.stringify(records);
    // Where each record's text ends.
    const ends: number[] = [];
    let offset = 1;
    for (const item of records) {
      offset += JSON.stringify(item).length;
      ends.push(offset);
      offset++; // the comma
    }
    const parser = new IncrementalJsonValueParser();
    for (let start = 0; start < text.length; start += 4096) {
      const end = Math.min(start + 4096, text.length);
      parser.push(text.slice(start, end));
      // Every record whose closing brace has arrived is in the snapshot, whole.
      const complete = ends.filter((recordEnd) => recordEnd <= end).length;
      const snapshot = parser.snapshot() as JsonValue[];
      expect(snapshot.length).toBeGreaterThanOrEqual(complete);
      for (let k = 0; k < complete; k++) expect(snapshot[k]).toEqual(records[k]);
    }
    expect(parser.end()).toEqual(records);
  });

  it('IncrementalJsonValueParser reports an error inside a run with the fragment engine’s code, offset and path, under any cutting', () => {
    const BAD = [',,', ',]', '}', ']', ':', '01', 'tru', '"\u0001"', '"\\q"', '-', '1.', 'nul', '"', '{', '[', '}{', '\ufeff', ' x', ',"k"1', '1e'];
    fc.assert(
      fc.property(manyValues, fc.nat(), fc.constantFrom(...BAD), fc.boolean(), fc.array(fc.nat(), { maxLength: 3 }), (text, where, bad, replace, cutSeeds) => {
        const at = where % text.length;
        const broken = text.slice(0, at) + bad + text.slice(replace ? at + 1 : at);
        const cuts = [...new Set(cutSeeds.map((seed) => 1 + (seed % Math.max(1, broken.length - 1))))].sort((a, b) => a - b);
        const reference = errorOf(() => parseFragments([broken]));
        expect(errorOf(() => parseValue([broken]))).toEqual(reference);
        expect(errorOf(() => parseValue(cutAt(broken, cuts)))).toEqual(reference);
        if (reference === 'no error') expect(difference(parseValue(cutAt(broken, cuts)), JSON.parse(broken))).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it('IncrementalJsonValueParser stops at a limit inside a run with the fragment engine’s code, offset and path, under any cutting', () => {
    const limits = fc.record(
      {
        maxDepth: fc.integer({ min: 1, max: 5 }),
        // Below 128 no run is taken; from 128 runs are cut to the limit.
        maxStringLength: fc.oneof(fc.integer({ min: 1, max: 45 }), fc.integer({ min: 128, max: 2000 })),
        maxLength: fc.integer({ min: 1, max: 20000 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(docAndCuts, limits, ([text, cuts], options: JsonLimits) => {
        const reference = errorOf(() => parseFragments([text], options));
        expect(errorOf(() => parseValue([text], options))).toEqual(reference);
        expect(errorOf(() => parseValue(cutAt(text, cuts), options))).toEqual(reference);
        if (reference === 'no error') expect(difference(parseValue(cutAt(text, cuts), options), JSON.parse(text))).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it('IncrementalJsonValueParser stops at maxDepth, maxStringLength and maxLength reached deep inside one large chunk', () => {
    const rows = Array.from({ length: 500 }, (_, k) => ({ id: k, v: 'x' }));
    const base = JSON.stringify(rows);
    const deep = base.replace('{"id":400,"v":"x"}', '{"id":400,"v":[[[[1]]]]}');
    const long = base.replace('{"id":400,"v":"x"}', `{"id":400,"v":"${'y'.repeat(50)}"}`);
    const longer = base.replace('{"id":400,"v":"x"}', `{"id":400,"v":"${'y'.repeat(300)}"}`);
    const longKey = base.replace('{"id":400,"v":"x"}', `{"id":400,"${'k'.repeat(50)}":1}`);
    for (const [text, options] of [
      [deep, { maxDepth: 5 }],
      [long, { maxStringLength: 49 }],
      [longer, { maxStringLength: 299 }],
      [longKey, { maxStringLength: 20 }],
      [base, { maxLength: 7000 }],
    ] as const) {
      const reference = errorOf(() => parseFragments([text], options));
      expect(reference).not.toBe('no error');
      expect(errorOf(() => parseValue([text], options))).toEqual(reference);
      expect(errorOf(() => parseValue(cutAt(text, [3, 5000]), options))).toEqual(reference);
    }
    expect(errorOf(() => parseValue([deep], { maxDepth: 5 }))).toMatchObject({ code: 'max-depth', path: '/400/v/0/0/0' });
  });

  it('IncrementalJsonValueParser takes a chunk natively whose strings hold code, brackets and `},` or whose records hold arrays', () => {
    const code = 'const x = { a: [1, 2], b: "q", c: {d: 1} },\n  y = f({ e: "r" }, [3]);';
    const documents: JsonValue[] = [
      Array.from({ length: 2000 }, (_, k) => ({ id: k, code: code + k })),
      Array.from({ length: 2000 }, (_, k) => code + k),
      Array.from({ length: 2000 }, (_, k) => ({ id: k, tags: ['a', `t${k}`], ok: true })),
      Array.from({ length: 2000 }, (_, k) => [k, [k, 'x'], { a: [1, 2] }]),
      Object.fromEntries(Array.from({ length: 2000 }, (_, k) => [`id-${k}`, { n: k, code: code + k }])),
    ];
    for (const document of documents) {
      const { runs, characters, value } = firstChunkRuns(JSON.stringify(document));
      // A run or two from the first comma of the root to the last element or member the chunk completes.
      expect(runs).toBeGreaterThanOrEqual(1);
      expect(runs).toBeLessThanOrEqual(3);
      expect(characters).toBeGreaterThan(50000); // most of the 64 KiB chunk
      expect(difference(value, document)).toBeUndefined();
    }
  });

  it('IncrementalJsonValueParser with a small maxStringLength still takes a large chunk natively, and stops a run before a longer string', () => {
    const records = Array.from({ length: 2000 }, (_, k) => ({ id: k, sku: `ABC-${k}`, qty: k % 7, note: null }));
    const text = JSON.stringify(records);
    const { runs, value } = firstChunkRuns(text, { maxStringLength: 20 });
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2);
    expect(difference(value, records)).toBeUndefined();
    // A string one character over the limit, in the middle of the chunk: the run ends before it.
    const over = text.replace('"ABC-1000"', `"${'x'.repeat(21)}"`);
    const reference = errorOf(() => parseFragments([over], { maxStringLength: 20 }));
    expect(reference).toMatchObject({ code: 'max-string-length', path: '/1000/sku' });
    expect(errorOf(() => parseValue([over], { maxStringLength: 20 }))).toEqual(reference);
  });

  it('IncrementalJsonValueParser finds a limit broken by a member that a duplicate key later replaces inside a run', () => {
    // JSON.parse of the run keeps only the last "v": the long string and the deep array are gone
    // from its values, but the scanner met them first and must stop there.
    const rows = Array.from({ length: 300 }, (_, k) => `{"id":${k},"v":"x"}`);
    const long = '[' + rows.join(',').replace('{"id":150,"v":"x"}', `{"id":150,"v":"${'y'.repeat(50)}","v":1}`) + ']';
    const deep = '[' + rows.join(',').replace('{"id":150,"v":"x"}', '{"id":150,"v":[[[[1]]]],"v":1}') + ']';
    const top = '{"a":{"x":0},' + Array.from({ length: 40 }, (_, k) => `"k${k}":${k}`).join(',') + `,"s":"${'z'.repeat(60)}","s":2}`;
    for (const [text, options] of [
      [long, { maxStringLength: 20 }],
      [deep, { maxDepth: 5 }],
      [top, { maxStringLength: 30 }],
      [top.replace(/"s":"z+"/, '"s":[[[[1]]]]'), { maxDepth: 3 }],
    ] as const) {
      const reference = errorOf(() => parseFragments([text], options));
      expect(reference).not.toBe('no error');
      expect(errorOf(() => parseValue([text], options))).toEqual(reference);
    }
  });

  it('IncrementalJsonValueParser takes a run of scalars natively at the deepest level maxDepth allows (nothing in it can nest)', () => {
    const text = '['.repeat(256) + '0,'.repeat(300) + '0' + ']'.repeat(256);
    const spy = vi.spyOn(JSON, 'parse');
    const parser = new IncrementalJsonValueParser();
    parser.push(text);
    const runs = spy.mock.calls.filter(([argument]) => String(argument).length > 500).length;
    spy.mockRestore();
    expect(runs).toBe(1);
    expect(parser.end()).toEqual(JSON.parse(text));
    expect(errorOf(() => parseValue(['['.repeat(256) + '0,'.repeat(300) + '[0]' + ']'.repeat(256)]))).toEqual(
      errorOf(() => parseFragments(['['.repeat(256) + '0,'.repeat(300) + '[0]' + ']'.repeat(256)])),
    );
  });

  it('IncrementalJsonValueParser keeps surrogates and escapes whole at the edges of runs and chunks', () => {
    const pieces = ['\\ud83d\\ude00', '😀', '\\"', '\\\\', '\\u00e9', '\\/', '\ud83d', '\\uDBFF'];
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom(...pieces), { maxLength: 6 }), { minLength: 30, maxLength: 120 }), fc.array(fc.nat(), { maxLength: 4 }), (strings, cutSeeds) => {
        const text = '[' + strings.map((parts) => `{"s":"${parts.join('')}","t":"${parts.reverse().join('')}"}`).join(',') + ']';
        const cuts = [...new Set(cutSeeds.map((seed) => 1 + (seed % (text.length - 1))))].sort((a, b) => a - b);
        const expected = JSON.parse(text) as JsonValue;
        expect(difference(parseValue(cutAt(text, cuts)), expected)).toBeUndefined();
        const bytes = new TextEncoder().encode(text);
        expect(difference(parseValue(cutAt(bytes, cuts)), JSON.parse(new TextDecoder().decode(bytes)))).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('IncrementalJsonValueParser decodes long string runs in parts, keeping escapes and surrogate pairs whole at part and chunk edges', () => {
    // Runs longer than 16 K are decoded in parts cut between escapes; a pair may straddle a cut.
    const pieces = ['a', '\\\\', '\\"', '\\n', '\\u00e9', '\\ud83d\\ude00', '😀', '\\uD83D', '\\uDE00', '\ud83d', '\ude00', 'é'];
    fc.assert(
      fc.property(
        fc.array(fc.nat(pieces.length - 1), { minLength: 2000, maxLength: 9000 }),
        fc.array(fc.integer({ min: 1, max: 60000 }), { maxLength: 3 }),
        fc.boolean(),
        (picks, cutSeeds, bytes) => {
          const content = picks.map((k) => pieces[k]).join('');
          const text = `{"k":"${content}","n":1}`;
          const cuts = [...new Set(cutSeeds.map((cut) => cut % text.length))].filter((cut) => cut > 0).sort((a, b) => a - b);
          if (bytes) {
            const encoded = new TextEncoder().encode(text);
            expect(difference(parseValue(cutAt(encoded, cuts)), JSON.parse(new TextDecoder().decode(encoded)))).toBeUndefined();
          } else {
            expect(difference(parseValue(cutAt(text, cuts)), JSON.parse(text))).toBeUndefined();
            expect(difference(parseFragments(cutAt(text, cuts)).value, JSON.parse(text))).toBeUndefined();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
