import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FragmentAggregator, IncrementalJsonParser, IncrementalJsonValueParser, type JsonValue } from '../../src/index.ts';
import { cutAt } from '../helpers.ts';
import { cutsFor, jsonText, parseFragments, parseValue } from './json-helpers.ts';

/** The snapshot invariants: `next` only grows from `prev`. Returns a reason, or '' when it holds. */
function grows(prev: JsonValue | undefined, next: JsonValue, path = ''): string {
  if (prev === undefined) return '';
  const kind = (v: JsonValue) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(prev) !== kind(next)) return `${path}: type changed from ${kind(prev)} to ${kind(next)}`;
  if (typeof prev === 'string') return (next as string).startsWith(prev) ? '' : `${path}: string did not grow`;
  if (Array.isArray(prev)) {
    const arr = next as JsonValue[];
    if (arr.length < prev.length) return `${path}: array shrank`;
    for (let i = 0; i < prev.length - 1; i++) {
      if (JSON.stringify(prev[i]) !== JSON.stringify(arr[i])) return `${path}/${i}: an element before the last changed`;
    }
    return prev.length === 0 ? '' : grows(prev[prev.length - 1], arr[prev.length - 1]!, `${path}/${prev.length - 1}`);
  }
  if (typeof prev === 'object' && prev !== null) {
    const keys = Object.keys(prev);
    const nextKeys = Object.keys(next as object);
    if (JSON.stringify(nextKeys.slice(0, keys.length)) !== JSON.stringify(keys)) return `${path}: keys changed`;
    for (const key of keys.slice(0, -1)) {
      if (JSON.stringify((prev as any)[key]) !== JSON.stringify((next as any)[key])) return `${path}/${key}: a member before the latest changed`;
    }
    const last = keys[keys.length - 1];
    return last === undefined ? '' : grows((prev as any)[last], (next as any)[last], `${path}/${last}`);
  }
  return Object.is(prev, next) ? '' : `${path}: scalar changed`;
}

/** Whether an object in the text repeats a key: the parsed value then holds fewer members than written. */
function hasDuplicateKey(text: string): boolean {
  let kept = 0;
  const stack: JsonValue[] = [JSON.parse(text)];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v !== null && typeof v === 'object') {
      for (const child of Object.values(v)) {
        stack.push(child);
        kept++;
      }
    }
  }
  return countMembers(text) !== kept;
}

/** Count members and elements written in a JSON text, from the fragment stream. */
function countMembers(text: string): number {
  const parser = new IncrementalJsonParser({ maxDepth: Infinity });
  let count = 0;
  for (const f of [...parser.push(text), ...parser.end()]) {
    let leaf = f;
    let depth = 0;
    while (leaf.type === 'entry' || leaf.type === 'item') {
      leaf = leaf.value;
      depth++;
    }
    if (depth > 0 && (leaf.type === 'start' || leaf.type === 'scalar')) count++;
  }
  return count;
}

describe('FragmentAggregator', () => {
  it('FragmentAggregator returns the value only when the root done arrives', () => {
    const aggregator = new FragmentAggregator();
    const results = new IncrementalJsonParser().push('{"a":1}').map((f) => aggregator.push(f));
    expect(results.slice(0, -1).every((r) => r === undefined)).toBe(true);
    expect(results[results.length - 1]).toEqual({ a: 1 });
    expect(aggregator.complete).toBe(true);
    const scalar = new FragmentAggregator();
    expect(scalar.push({ type: 'scalar', value: 5 })).toBeUndefined();
    expect(scalar.push({ type: 'done' })).toBe(5);
  });

  it('FragmentAggregator snapshots partial strings, arrays and objects', () => {
    const parser = new IncrementalJsonParser();
    const aggregator = new FragmentAggregator();
    const snap = (chunk: string) => {
      for (const f of parser.push(chunk)) aggregator.push(f);
      return structuredClone(aggregator.snapshot());
    };
    expect(snap('{"path":"src/ma')).toEqual({ path: 'src/ma' });
    expect(snap('in.rs","patterns":[{"old":"a')).toEqual({ path: 'src/main.rs', patterns: [{ old: 'a' }] });
    expect(snap('b"},')).toEqual({ path: 'src/main.rs', patterns: [{ old: 'ab' }] });
    expect(snap('{"new":')).toEqual({ path: 'src/main.rs', patterns: [{ old: 'ab' }, {}] });
  });

  it('FragmentAggregator snapshots obey the growth invariants under any cutting', () => {
    fc.assert(
      fc.property(jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length))), ([text, cuts]) => {
        const parser = new IncrementalJsonParser({ maxDepth: Infinity });
        const aggregator = new FragmentAggregator();
        const fused = new IncrementalJsonValueParser({ maxDepth: Infinity });
        let prev: JsonValue | undefined;
        // A duplicate key replaces an earlier member, as JSON.parse does: the one allowed exception.
        const duplicate = hasDuplicateKey(text);
        for (const chunk of cutAt(text, cuts)) {
          for (const f of parser.push(chunk)) aggregator.push(f);
          fused.push(chunk);
          const snapshot = aggregator.snapshot();
          const fusedSnapshot = fused.snapshot();
          expect(JSON.stringify(fusedSnapshot)).toBe(JSON.stringify(snapshot));
          if (snapshot !== undefined) {
            const next = structuredClone(snapshot);
            if (!duplicate) expect(grows(prev, next)).toBe('');
            prev = next;
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('FragmentAggregator makes __proto__ an own property, as JSON.parse does', () => {
    const text = '{"__proto__":{"polluted":true},"a":{"__proto__":[1]}}';
    const expected = JSON.parse(text);
    for (const value of [parseFragments([text]).value, parseValue([text])]) {
      expect(value).toEqual(expected);
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(value, '__proto__')).toBe(true);
      expect(({} as any).polluted).toBeUndefined();
    }
  });

  it('FragmentAggregator resolves duplicate keys as JSON.parse does (last value, first position)', () => {
    const text = '{"a":1,"b":2,"a":{"x":[3]},"c":"s","c":"t"}';
    const expected = JSON.parse(text);
    for (const value of [parseFragments([text]).value, parseValue([text])]) {
      expect(value).toEqual(expected);
      expect(Object.keys(value as object)).toEqual(Object.keys(expected));
    }
  });

  it('FragmentAggregator rejects fragments out of order with a TypeError', () => {
    const aggregator = new FragmentAggregator();
    aggregator.push({ type: 'start', kind: 'array' });
    expect(() => aggregator.push({ type: 'item', index: 3, value: { type: 'scalar', value: 1 } })).toThrow(TypeError);
    expect(() => new FragmentAggregator().push({ type: 'string', text: 'x' })).toThrow(TypeError);
    const done = new FragmentAggregator();
    done.push({ type: 'scalar', value: 1 });
    done.push({ type: 'done' });
    expect(() => done.push({ type: 'done' })).toThrow(/already complete/);
  });

  it('FragmentAggregator handles a 3000-deep document without recursion', () => {
    const depth = 3000;
    const text = '{"a":'.repeat(depth) + '"x"' + '}'.repeat(depth);
    let value = parseFragments([text], { maxDepth: Infinity }).value as any;
    for (let i = 0; i < depth; i++) value = value.a;
    expect(value).toBe('x');
  });
});
