/**
 * `immutableSnapshots: true`: snapshots that a UI comparing by identity can render. Every snapshot
 * equals the live one at that point, none is mutated later, and between two consecutive snapshots
 * a container at a path is the same object exactly when its content is unchanged.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FragmentAggregator } from '../../src/json/fragment-aggregator.ts';
import { IncrementalJsonParser } from '../../src/json/incremental-json-parser.ts';
import { IncrementalJsonValueParser } from '../../src/json/incremental-json-value-parser.ts';
import type { JsonLimits } from '../../src/json/scanner.ts';
import type { JsonObject, JsonValue } from '../../src/types.ts';
import { cutAt } from '../helpers.ts';
import { cutsFor, jsonText } from './json-helpers.ts';

type EngineName = 'fragments' | 'fused';
const ENGINES: EngineName[] = ['fragments', 'fused'];

interface Engine {
  push(chunk: string): void;
  end(): JsonValue;
  snapshot(): JsonValue | undefined;
}

function engine(name: EngineName, immutableSnapshots: boolean, limits: JsonLimits = {}): Engine {
  if (name === 'fused') return new IncrementalJsonValueParser({ ...limits, immutableSnapshots });
  const parser = new IncrementalJsonParser(limits);
  const aggregator = new FragmentAggregator({ immutableSnapshots });
  let value: JsonValue | undefined;
  const take = (fragments: ReturnType<IncrementalJsonParser['push']>) => {
    for (const fragment of fragments) {
      const result = aggregator.push(fragment);
      if (result !== undefined) value = result;
    }
  };
  return {
    push: (chunk) => take(parser.push(chunk)),
    end: () => {
      take(parser.end());
      return value as JsonValue;
    },
    snapshot: () => aggregator.snapshot(),
  };
}

const isContainer = (value: unknown): value is JsonObject | JsonValue[] => typeof value === 'object' && value !== null;

/** A deep copy that keeps `-0` and own `__proto__` members, as the snapshot had them. */
function clone(value: JsonValue): JsonValue {
  if (!isContainer(value)) return value;
  if (Array.isArray(value)) return value.map(clone);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: clone(value[key] as JsonValue), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/**
 * Freeze every object and array in `value` (a frozen one is frozen throughout already): from then
 * on, any write to it, by the engine too, throws (modules are strict).
 */
function deepFreeze(value: JsonValue): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!isContainer(v) || Object.isFrozen(v)) continue;
    Object.freeze(v);
    stack.push(...Object.values(v));
  }
}

/**
 * Whether `a` and `b` have the same content; adds to `broken` every path present in both where
 * they hold different objects of the same content. (The same object is the same content: (2)
 * checks that no snapshot handed out changes.)
 */
function sameContent(a: JsonValue | undefined, b: JsonValue | undefined, path: string, broken: string[]): boolean {
  if (!isContainer(a) || !isContainer(b)) return Object.is(a, b);
  if (a === b) return true;
  let same = Array.isArray(a) === Array.isArray(b) && Object.keys(a).length === Object.keys(b).length;
  for (const key of Object.keys(a)) {
    if (!Object.hasOwn(b, key)) same = false;
    else if (!sameContent((a as JsonObject)[key], (b as JsonObject)[key], `${path}/${key}`, broken)) same = false;
  }
  if (same) broken.push(path);
  return same;
}

/** The paths present in both snapshots where a container is not the same object iff the same content. */
function identityMismatches(before: JsonValue | undefined, after: JsonValue | undefined): string[] {
  const broken: string[] = [];
  sameContent(before, after, '', broken);
  return broken;
}

/** Feed `chunks` to both modes of engine `name`, checking the four properties after each chunk. */
function check(name: EngineName, chunks: readonly string[], limits: JsonLimits = {}): void {
  const live = engine(name, false, limits);
  const shared = engine(name, true, limits);
  const handedOut: Array<[JsonValue | undefined, JsonValue | undefined]> = [];
  let previous: JsonValue | undefined;
  const step = (label: string) => {
    const snapshot = shared.snapshot();
    const where = `${name}, ${label}`;
    // (1) the same value as the live snapshot at this point.
    expect(isDeepStrictEqual(snapshot, live.snapshot()), where).toBe(true);
    // (4) no change since: the same root.
    expect(Object.is(shared.snapshot(), snapshot), where).toBe(true);
    // (3) (and (4) for a chunk that changed nothing): same object iff same content, per path.
    if (handedOut.length > 0) expect(identityMismatches(previous, snapshot), where).toEqual([]);
    handedOut.push([snapshot, snapshot === undefined ? undefined : clone(snapshot)]);
    if (snapshot !== undefined) deepFreeze(snapshot);
    previous = snapshot;
    // (2) no snapshot handed out was mutated since.
    for (const [old, copy] of handedOut) expect(isDeepStrictEqual(old, copy), where).toBe(true);
  };
  chunks.forEach((chunk, i) => {
    live.push(chunk);
    shared.push(chunk);
    step(`after chunk ${i} of ${JSON.stringify(chunks)}`);
  });
  const value = shared.end();
  expect(isDeepStrictEqual(value, live.end())).toBe(true);
  step('after end');
  expect(isDeepStrictEqual(shared.snapshot(), value)).toBe(true);
}

/** Every cutting of `text` into at most three chunks, and into single characters. */
function everyCutting(text: string): string[][] {
  const cuttings: string[][] = [[...text]];
  for (let i = 0; i < text.length; i++) {
    for (let j = i; j < text.length; j++) cuttings.push(cutAt(text, [i, j]));
  }
  return cuttings;
}

describe('immutableSnapshots', () => {
  it('holds the four properties for arbitrary JSON cut arbitrarily, in both engines', () => {
    const textAndCuts = jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length)));
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        for (const name of ENGINES) check(name, cutAt(text, cuts), { maxDepth: Infinity });
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['{"a":[1],"b":2,"a":[3]}'],
    ['{"a":{"x":[1]},"b":[],"a":{"x":[1]}}'],
    ['{"a":[],"a":[],"a":{},"a":"s","a":[]}'],
    ['[{"k":1,"k":{"k":[1,2]},"k":{"k":[1,2]}}]'],
  ])('handles duplicate keys, cut everywhere: %s', (text) => {
    for (const chunks of everyCutting(text)) for (const name of ENGINES) check(name, chunks);
  });

  it('keeps an unchanged member identical when a duplicate key replaces it with equal content', () => {
    const parser = new IncrementalJsonValueParser({ immutableSnapshots: true });
    parser.push('{"a":{"x":[1]},"b":[2],"a":{"x":[1]');
    const before = parser.snapshot() as JsonObject;
    parser.push('}');
    expect(parser.snapshot()).toBe(before);
    parser.push(',"a":{');
    const after = parser.snapshot() as JsonObject;
    expect(after).not.toBe(before);
    expect(after).toEqual({ a: {}, b: [2] });
    expect(after['b']).toBe(before['b']);
  });

  it('makes __proto__ an own member, as JSON.parse does, cut everywhere', () => {
    const text = '{"__proto__":{"x":[1]},"y":{"__proto__":[2,{"__proto__":null}]},"__proto__":{"z":1}}';
    for (const chunks of everyCutting(text)) for (const name of ENGINES) check(name, chunks);
    const parser = new IncrementalJsonValueParser({ immutableSnapshots: true });
    parser.push(text);
    const snapshot = parser.snapshot() as JsonObject;
    expect(isDeepStrictEqual(snapshot, JSON.parse(text))).toBe(true);
    expect(Object.getPrototypeOf(snapshot)).toBe(Object.prototype);
    expect(Object.keys(snapshot)).toEqual(['__proto__', 'y']);
    expect(Object.getPrototypeOf(snapshot['y'])).toBe(Object.prototype);
  });

  it('handles depth 1000 (maxDepth raised) in both engines', () => {
    const arrays = '['.repeat(1000) + '1,"two"' + ']'.repeat(1000);
    const objects = '{"a":'.repeat(1000) + '[1,{"b":2}]' + '}'.repeat(1000);
    for (const text of [arrays, objects]) {
      for (const name of ENGINES) check(name, cutAt(text, Array.from({ length: 60 }, (_, i) => i * 101 + 7)), { maxDepth: 2000 });
    }
  });

  it('walks a 10⁵-deep document without recursion', () => {
    const depth = 100_000;
    const parser = new IncrementalJsonValueParser({ maxDepth: Infinity, immutableSnapshots: true });
    parser.push('['.repeat(depth / 2));
    const half = parser.snapshot();
    parser.push('['.repeat(depth / 2) + ']'.repeat(depth));
    let value = parser.snapshot();
    // (Plain comparisons: vitest's matchers recurse through their arguments.)
    expect(value !== half).toBe(true);
    let levels = 0;
    while (Array.isArray(value) && value.length > 0) {
      value = value[0];
      levels++;
    }
    expect(levels).toBe(depth - 1);
  });

  it('copies a 10 000-element array without copying its untouched elements', () => {
    const element = (i: number) => `{"i":${i},"s":"x${i}","t":[${i}]}`;
    const text = '[' + Array.from({ length: 10_000 }, (_, i) => element(i)).join(',');
    for (const name of ENGINES) {
      const shared = engine(name, true);
      shared.push(text + ',');
      const before = shared.snapshot() as JsonValue[];
      expect(before.length).toBe(10_000);
      shared.push(element(10_000).slice(0, 17));
      const after = shared.snapshot() as JsonValue[];
      expect(after).not.toBe(before);
      expect(after.length).toBe(10_001);
      expect(after[0]).toBe(before[0]);
      expect(after.slice(0, 10_000).every((item, i) => item === before[i])).toBe(true);
      expect(after[10_000]).toEqual({ i: 10000, s: 'x' });
      expect(before).toEqual(JSON.parse(text + ']'));
    }
  });

  it('returns the same root while nothing changes, even when a container only closes', () => {
    for (const name of ENGINES) {
      const shared = engine(name, true);
      expect(shared.snapshot()).toBeUndefined();
      shared.push(' [[1]');
      const first = shared.snapshot();
      expect(first).toEqual([[1]]);
      expect(shared.snapshot()).toBe(first);
      shared.push('  ');
      expect(shared.snapshot()).toBe(first);
      shared.push(']');
      expect(shared.snapshot()).toBe(first);
      const value = shared.end() as JsonValue[];
      expect(shared.snapshot()).toBe(first);
      // The final value is the live one: equal to the snapshot, sharing its completed containers.
      expect(value).not.toBe(first);
      expect(value).toEqual(first);
      expect(value[0]).toBe((first as JsonValue[])[0]);
    }
  });

  it('shares a value completed within one chunk as it is', () => {
    for (const name of ENGINES) {
      const shared = engine(name, true);
      shared.push('{"a":[1,{"b":2}]}');
      const snapshot = shared.snapshot();
      expect(shared.end()).toBe(snapshot);
    }
  });

  it('returns a string root as it grows', () => {
    const parser = new IncrementalJsonValueParser({ immutableSnapshots: true });
    parser.push('"ab\\');
    expect(parser.snapshot()).toBe('ab');
    parser.push('u00e9c"');
    expect(parser.snapshot()).toBe('abéc');
  });

  it('leaves the default mode live', () => {
    const parser = new IncrementalJsonValueParser();
    parser.push('{"a":[1,');
    const first = parser.snapshot();
    parser.push('2]}');
    expect(parser.snapshot()).toBe(first);
    expect(first).toEqual({ a: [1, 2] });
  });
});
