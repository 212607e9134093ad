import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FragmentAggregator } from '../../src/json/fragment-aggregator.ts';
import { IncrementalJsonParser } from '../../src/json/incremental-json-parser.ts';
import { JsonFragmentRebuilder } from '../../src/sinks/json-fragment-rebuilder.ts';
import type { PathUpdate } from '../../src/types.ts';
import { PathUpdateEncoder } from '../../src/views/path-update-encoder.ts';
import { cutAt } from '../helpers.ts';
import { cutsFor, jsonText } from '../json/json-helpers.ts';
import { overTheWire, updatesOf, updatesPerChunk } from '../views/path-update-helpers.ts';

/** Hand-written updates, as a server of the JsonFragment protocol sends them. */
const u = (kind: PathUpdate['kind'], path: string, payload: Record<string, unknown> = {}): PathUpdate =>
  ({ type: 'path-update', kind, path, ...payload }) as PathUpdate;

function rebuild(updates: readonly PathUpdate[]): JsonFragmentRebuilder {
  const rebuilder = new JsonFragmentRebuilder();
  for (const update of updates) rebuilder.push(update);
  return rebuilder;
}

describe('JsonFragmentRebuilder', () => {
  it('JsonFragmentRebuilder rebuilds a flat object from hand-written updates', () => {
    const rebuilder = rebuild([
      u('start-object', ''),
      u('key', '/path', { textValue: 'path' }),
      u('start-string', '/path'),
      u('partial-string', '/path', { textValue: 'src/' }),
      u('partial-string', '/path', { textValue: 'main.rs' }),
      u('complete-string', '/path'),
      u('key', '/overwrite', { textValue: 'overwrite' }),
      u('complete-boolean', '/overwrite', { value: false }),
      u('key', '/mode', { textValue: 'mode' }),
      u('complete-number', '/mode', { value: 420 }),
      u('key', '/owner', { textValue: 'owner' }),
      u('complete-null', '/owner', { value: null }),
      u('end-object', ''),
      u('json-complete', ''),
    ]);
    expect(rebuilder.value).toEqual({ path: 'src/main.rs', overwrite: false, mode: 420, owner: null });
    expect(rebuilder.isComplete()).toBe(true);
  });

  it('JsonFragmentRebuilder rebuilds nested objects, arrays and mixed primitives', () => {
    const text = '{"edits":[{"line":3,"text":"a\\"b"},[true,null,-1.5e3,"x"]],"meta":{"tags":["t1","t2"],"n":{"deep":[[]]}}}';
    expect(rebuild(updatesOf(text)).value).toEqual({
      edits: [{ line: 3, text: 'a"b' }, [true, null, -1500, 'x']],
      meta: { tags: ['t1', 't2'], n: { deep: [[]] } },
    });
  });

  it('JsonFragmentRebuilder accumulates a partial string across chunks, escapes included', () => {
    const perChunk = updatesPerChunk(['{"content":"line 1\\', 'nline 2 \\u00', 'e9 \\ud83d', '\\ude00 end"', '}']);
    const rebuilder = new JsonFragmentRebuilder();
    const seen: unknown[] = [];
    for (const updates of perChunk) {
      for (const update of updates) rebuilder.push(update);
      seen.push(structuredClone(rebuilder.value));
    }
    expect(seen).toEqual([
      { content: 'line 1' },
      { content: 'line 1\nline 2 ' },
      { content: 'line 1\nline 2 é ' },
      { content: 'line 1\nline 2 é 😀 end' },
      { content: 'line 1\nline 2 é 😀 end' },
      { content: 'line 1\nline 2 é 😀 end' },
    ]);
    expect(rebuilder.isComplete()).toBe(true);
  });

  it('JsonFragmentRebuilder is not complete until json-complete, even with every container closed', () => {
    const rebuilder = rebuild([u('start-array', ''), u('complete-number', '/0', { value: 1 }), u('end-array', '')]);
    expect(rebuilder.value).toEqual([1]);
    expect(rebuilder.isComplete()).toBe(false);
    rebuilder.push(u('json-complete', ''));
    expect(rebuilder.isComplete()).toBe(true);
    expect(new JsonFragmentRebuilder().value).toBeUndefined();
    expect(new JsonFragmentRebuilder().isComplete()).toBe(false);
  });

  it('JsonFragmentRebuilder keeps empty containers and empty strings apart', () => {
    expect(rebuild(updatesOf('{"o":{},"a":[],"s":""}')).value).toEqual({ o: {}, a: [], s: '' });
    expect(rebuild(updatesOf('[]')).value).toEqual([]);
    expect(rebuild(updatesOf('{}')).value).toEqual({});
    expect(rebuild(updatesOf('""')).value).toBe('');
    const open = rebuild([u('start-object', ''), u('key', '/a', { textValue: 'a' }), u('start-array', '/a')]);
    expect(open.value).toEqual({ a: [] });
  });

  it('JsonFragmentRebuilder adds a member when its value begins, not at its key', () => {
    const rebuilder = rebuild([u('start-object', ''), u('key', '/a', { textValue: 'a' })]);
    expect(rebuilder.value).toEqual({});
    rebuilder.push(u('start-string', '/a'));
    expect(rebuilder.value).toEqual({ a: '' });
  });

  it('JsonFragmentRebuilder decodes escaped pointers and makes __proto__ an own property', () => {
    const value = rebuild(overTheWire(updatesOf('{"a/b":{"~1":1},"__proto__":{"x":[2]},"":3}'))).value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['a/b', '__proto__', '']);
    expect(value['a/b']).toEqual({ '~1': 1 });
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ x: [2] });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value).toEqual(JSON.parse('{"a/b":{"~1":1},"__proto__":{"x":[2]},"":3}'));
  });

  it('JsonFragmentRebuilder reads numbers from raw, so -0 and huge integers survive JSON', () => {
    const value = rebuild(overTheWire(updatesOf('[-0, 12345678901234567890, 1e400, 0.1]'))).value as number[];
    expect(Object.is(value[0], -0)).toBe(true);
    expect(value).toEqual(JSON.parse('[-0, 12345678901234567890, 1e400, 0.1]'));
    expect(value[2]).toBe(Infinity);
  });

  it('JsonFragmentRebuilder resolves a duplicate key to the last value in place, as JSON.parse does', () => {
    const text = '{"a":1,"b":2,"a":"x"}';
    const value = rebuild(updatesOf(text)).value;
    expect(value).toEqual(JSON.parse(text));
    expect(Object.keys(value as object)).toEqual(Object.keys(JSON.parse(text)));
  });

  it('JsonFragmentRebuilder refuses updates out of order, malformed, or after json-complete', () => {
    const cases: PathUpdate[][] = [
      [u('start-object', '/a')],
      [u('start-object', ''), u('start-object', '')],
      [u('start-array', ''), u('complete-number', '/1', { value: 1 })],
      [u('start-array', ''), u('complete-number', '/x', { value: 1 })],
      [u('start-object', ''), u('complete-number', '/a/b', { value: 1 })],
      [u('start-object', ''), u('end-array', '')],
      [u('start-string', ''), u('partial-string', '/x', { textValue: 'a' })],
      [u('start-string', ''), u('complete-number', '/0', { value: 1 })],
      [u('start-object', ''), u('key', '/a', { textValue: 'b' })],
      [u('start-object', ''), u('complete-number', '/~2', { value: 1 })],
      [u('complete-number', '', { value: 'one' })],
      [u('complete-boolean', '', { value: 1 })],
      [u('start-object', ''), u('json-complete', '')],
      [u('complete-null', '', { value: null }), u('json-complete', ''), u('complete-null', '', { value: null })],
      [{ type: 'path-update', kind: 'start-sideways', path: '' } as unknown as PathUpdate],
    ];
    // Updates a relay sent out of order or malformed: a typed error with its code, never a TypeError.
    for (const updates of cases) expect(() => rebuild(updates), JSON.stringify(updates)).toThrow(expect.objectContaining({ name: 'RelayError', code: 'invalid-data' }));
  });

  it('JsonFragmentRebuilder rebuilds every document, under every cutting, through JSON, to JSON.parse (fast-check)', () => {
    fc.assert(
      fc.property(
        jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length))),
        ([text, cuts]) => {
          const rebuilder = new JsonFragmentRebuilder();
          for (const updates of updatesPerChunk(cutAt(text, cuts))) for (const update of overTheWire(updates)) rebuilder.push(update);
          expect(rebuilder.isComplete()).toBe(true);
          expect(rebuilder.value).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('JsonFragmentRebuilder equals the FragmentAggregator snapshot after every chunk (fast-check)', () => {
    fc.assert(
      fc.property(
        jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length))),
        ([text, cuts]) => {
          const parser = new IncrementalJsonParser();
          const encoder = new PathUpdateEncoder();
          const aggregator = new FragmentAggregator();
          const rebuilder = new JsonFragmentRebuilder();
          const step = (fragments: ReturnType<IncrementalJsonParser['push']>) => {
            const updates: PathUpdate[] = [];
            for (const fragment of fragments) {
              aggregator.push(fragment);
              encoder.push(fragment, updates);
            }
            for (const update of overTheWire(updates)) rebuilder.push(update);
            expect(rebuilder.value).toEqual(aggregator.snapshot());
            expect(rebuilder.isComplete()).toBe(aggregator.complete);
          };
          for (const chunk of cutAt(text, cuts)) step(parser.push(chunk));
          step(parser.end());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('JsonFragmentRebuilder and relative paths', () => {
  const at = (kind: string, path: string, extra: Record<string, unknown> = {}) => ({ type: 'path-update', kind, path, ...extra }) as PathUpdate;

  it('JsonFragmentRebuilder resolves relative paths (N tokens up, then a pointer) against the previous update', () => {
    const rebuilder = new JsonFragmentRebuilder();
    const updates = [
      at('start-object', ''),
      at('key', '/a~1b', { textValue: 'a/b' }),
      at('start-array', '0'),
      at('complete-number', '0/0', { value: 1 }),
      at('start-object', '1/1'),
      at('key', '0/c', { textValue: 'c' }),
      at('start-string', '0'),
      at('partial-string', '0', { textValue: 'x' }),
      at('complete-string', '0'),
      at('end-object', '1'),
      at('end-array', '1'),
      at('key', '1/d', { textValue: 'd' }),
      at('complete-boolean', '0', { value: true }),
      at('end-object', ''),
      at('json-complete', ''),
    ];
    for (const update of updates) rebuilder.push(update);
    expect(rebuilder.value).toEqual({ 'a/b': [1, { c: 'x' }], d: true });
    expect(rebuilder.isComplete()).toBe(true);
  });

  it('JsonFragmentRebuilder rejects a relative path that goes above the root or is malformed', () => {
    for (const bad of ['2/x', '01/x', 'x', '1x']) {
      const rebuilder = new JsonFragmentRebuilder();
      rebuilder.push(at('start-object', ''));
      rebuilder.push(at('key', '/a', { textValue: 'a' }));
      expect(() => rebuilder.push(at('start-array', bad)), bad).toThrow(expect.objectContaining({ name: 'RelayError', code: 'invalid-data' }));
    }
  });
});

describe('JsonFragmentRebuilder and PathUpdateEncoder with relativePaths', () => {
  it('JsonFragmentRebuilder rebuilds any document from relative-path updates sent over the wire, however it is cut', () => {
    fc.assert(
      fc.property(
        jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length))),
        ([text, cuts]) => {
          const parser = new IncrementalJsonParser();
          const encoder = new PathUpdateEncoder({ relativePaths: true });
          const rebuilder = new JsonFragmentRebuilder();
          const updates: PathUpdate[] = [];
          for (const chunk of cutAt(text, cuts)) for (const fragment of parser.push(chunk)) encoder.push(fragment, updates);
          for (const fragment of parser.end()) encoder.push(fragment, updates);
          for (const update of overTheWire(updates)) rebuilder.push(update);
          expect(rebuilder.isComplete()).toBe(true);
          expect(rebuilder.value).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});
