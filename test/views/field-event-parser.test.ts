import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FieldEventParser, FragmentAggregator, IncrementalJsonParser, type FieldEvent, type JsonValue } from '../../src/index.ts';
import { cutAt } from '../helpers.ts';
import { RUNS, brief, expectedFields, fieldsOf, lastWins, textAndCuts } from './field-helpers.ts';

describe('FieldEventParser (the seed examples: axio ToolArgStream)', () => {
  it('FieldEventParser: feed first chunk, then second chunk; currentKey retains the last completed key', () => {
    const stream = new FieldEventParser();
    const first = stream.push('{"path":"/tmp/f');
    expect(first).toHaveLength(2);
    expect(first[0]).toEqual({ type: 'field-start', key: 'path' });
    expect(first[1]).toEqual({ type: 'field-delta', key: 'path', text: '/tmp/f' });
    const second = stream.push('oo.py"}');
    expect(second[0]).toMatchObject({ type: 'field-delta', text: 'oo.py' });
    expect(second[1]).toEqual({ type: 'field-end', key: 'path', string: true });
    expect(stream.currentKey).toBe('path');
    expect(stream.inField).toBe(false);
  });

  it("FieldEventParser string value: '{\"pat' gives nothing, 'h\":\"/tm' starts the field, 'p/file\"}' ends it", () => {
    const stream = new FieldEventParser();
    expect(stream.push('{"pat')).toEqual([]);
    expect(brief(stream.push('h":"/tm'))).toEqual(['start path', 'delta "/tm"']);
    expect(brief(stream.push('p/file"}'))).toEqual(['delta "p/file"', 'end path']);
    expect(stream.complete).toBe(true);
    expect(stream.end()).toEqual([]);
  });

  it('FieldEventParser object value: raw JSON text, held back only where a nested key is incomplete', () => {
    const stream = new FieldEventParser();
    // The seed emits '{"re' here; a nested key is emitted when it is complete, so only '{' can go.
    expect(brief(stream.push('{"config":{"re'))).toEqual(['start config', 'delta "{"']);
    expect(brief(stream.push('try":3}}'))).toEqual(['delta "\\"retry\\":3}"', 'end config']);
  });

  it('FieldEventParser resolves escapes: Hello\\nWorld', () => {
    const events = new FieldEventParser().push('{"msg":"Hello\\nWorld"}');
    expect(events).toEqual([
      { type: 'field-start', key: 'msg' },
      { type: 'field-delta', key: 'msg', text: 'Hello\nWorld' },
      { type: 'field-end', key: 'msg', string: true },
    ]);
  });

  it('FieldEventParser joins a surrogate pair written as two \\u escapes into one character', () => {
    const events = new FieldEventParser().push('{"emoji":"\\uD83D\\uDE00"}');
    expect(events[1]).toEqual({ type: 'field-delta', key: 'emoji', text: '😀' });
  });

  it('FieldEventParser holds a surrogate pair split across chunks until its second half', () => {
    const stream = new FieldEventParser();
    expect(brief(stream.push('{"emoji":"a\\uD83D'))).toEqual(['start emoji', 'delta "a"']);
    expect(brief(stream.push('\\uDE00"}'))).toEqual(['delta "😀"', 'end emoji']);
  });

  it('FieldEventParser announces a key at its closing quote, before its value begins (text input)', () => {
    const stream = new FieldEventParser();
    expect(brief(stream.push('{"count"'))).toEqual(['start count']);
    expect(stream.currentKey).toBe('count');
    expect(stream.inField).toBe(true);
    expect(brief(stream.push(': 12'))).toEqual([]);
    expect(brief(stream.push('3, "b": [true, {"c": null}]}'))).toEqual(['delta "123"', 'end count', 'start b', 'delta "[true,{\\"c\\":null}]"', 'end b']);
  });

  it('FieldEventParser gives numbers as written, and a duplicate key as a second field', () => {
    const events = new FieldEventParser().push('{"n": 1.50e2, "n": -0}');
    expect(brief(events)).toEqual(['start n', 'delta "1.50e2"', 'end n', 'start n', 'delta "-0"', 'end n']);
  });

  it('FieldEventParser treats a root that is not an object as one field with the empty key', () => {
    expect(brief(new FieldEventParser().push('"hi"'))).toEqual(['start ', 'delta "hi"', 'end ']);
    expect(brief(new FieldEventParser().push('[1, "a"]'))).toEqual(['start ', 'delta "[1,\\"a\\"]"', 'end ']);
    const number = new FieldEventParser();
    expect(brief(number.push('42'))).toEqual([]);
    expect(brief(number.end())).toEqual(['start ', 'delta "42"', 'end ']);
    expect(new FieldEventParser().push('{}')).toEqual([]);
  });

  it('FieldEventParser throws the parser error for invalid text, after the events before it', () => {
    const out: FieldEvent[] = [];
    const stream = new FieldEventParser();
    expect(() => stream.push('{"a":"x", "b": tru}', out)).toThrow(expect.objectContaining({ code: 'invalid-json', offset: 18 }));
    expect(brief(out)).toEqual(['start a', 'delta "x"', 'end a', 'start b']);
  });

  it('FieldEventParser refuses fragments out of order', () => {
    const stream = new FieldEventParser();
    stream.pushFragment({ type: 'start', kind: 'object' });
    expect(() => stream.pushFragment({ type: 'string', text: 'x' })).toThrow(TypeError);
  });

  it('FieldEventParser: the deltas of every field parse to that field of JSON.parse, under every cutting', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const parser = new FieldEventParser();
        const events: FieldEvent[] = [];
        for (const chunk of cutAt(text, cuts)) parser.push(chunk, events);
        parser.end(events);
        const { fields, open } = fieldsOf(events);
        expect(open).toBeUndefined();
        expect(lastWins(fields)).toEqual(lastWins(expectedFields(JSON.parse(text) as JsonValue)));
      }),
      RUNS,
    );
  });

  it('FieldEventParser is prompt: after every chunk, an open string field holds all of the string so far', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const fieldParser = new FieldEventParser();
        const parser = new IncrementalJsonParser();
        const aggregator = new FragmentAggregator();
        const events: FieldEvent[] = [];
        for (const chunk of cutAt(text, cuts)) {
          fieldParser.push(chunk, events);
          for (const fragment of parser.push(chunk)) aggregator.push(fragment);
          const { open } = fieldsOf(events);
          const snapshot = aggregator.snapshot();
          if (open === undefined || snapshot === undefined) continue;
          const [key, soFar] = open;
          const value = key === '' && typeof snapshot !== 'object' ? snapshot : (snapshot as Record<string, JsonValue>)[key];
          if (typeof value === 'string') expect(soFar).toBe(value);
        }
      }),
      RUNS,
    );
  });
});
