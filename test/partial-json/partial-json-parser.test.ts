/**
 * `createPartialJsonParser`: the AI SDK's semantics on the cases the docs name (each also checked
 * against `ai` 7's `parsePartialJson`), values never changed once returned and shared between
 * calls, starting again, the `push` form, deep documents, bad input.
 */
import { parsePartialJson } from 'ai7';
import { describe, expect, it } from 'vitest';
import { createPartialJsonParser } from '../../src/bindings/partial-json.ts';
import { deepFreeze, resultDifference } from './partial-json-helpers.ts';

describe('createPartialJsonParser: the AI SDK semantics', () => {
  // [text, value, state]: the AI SDK's repair, as docs/partial-json.md lists it.
  const cases: [string | undefined, unknown, string][] = [
    [undefined, undefined, 'undefined-input'],
    ['', undefined, 'failed-parse'],
    ['   ', undefined, 'failed-parse'],
    ['12', 12, 'successful-parse'], // a bare number is complete
    ['{"n":65', { n: 65 }, 'repaired-parse'], // a cut number shows what has come
    ['{"n":1.', { n: 1 }, 'repaired-parse'],
    ['{"n":1e', { n: 1 }, 'repaired-parse'],
    ['{"n":-', {}, 'repaired-parse'],
    ['[-', [], 'repaired-parse'],
    ['[tr', [true], 'repaired-parse'], // a cut literal is completed
    ['{"ok":fa', { ok: false }, 'repaired-parse'],
    ['n', null, 'repaired-parse'],
    ['[1,2,]', [1, 2], 'repaired-parse'], // a trailing comma is dropped
    ['{"a":1,}', { a: 1 }, 'repaired-parse'],
    ['{"a":1,"b"', { a: 1 }, 'repaired-parse'], // a key without its value is dropped
    ['"\\ud83d', '\ud83d', 'repaired-parse'], // a lone high surrogate stays
    ['"ab\\u00', 'ab', 'repaired-parse'], // a cut \u escape is dropped
    ['"ab\\', 'ab', 'repaired-parse'],
    ['{"__proto__":1}', undefined, 'failed-parse'], // the secure parse refuses __proto__ members
    ['{"a":{"constructor":{"prototype":{}}}}', undefined, 'failed-parse'],
    ['{"a":{"__proto__":1},"a":2}', { a: 2 }, 'successful-parse'], // unless a later member of the same key replaces it
    ['{"a":1} trailing', { a: 1 }, 'repaired-parse'], // what follows the root value is dropped
    ['1e+5', 100000, 'successful-parse'],
    ['{"a":1e+5', { a: 1 }, 'repaired-parse'], // the repair stops a number at its `+`
    ['{"\\":1}":2}', { '":1}': 2 }, 'successful-parse'], // valid JSON whatever the repair makes of it
    ['{"a":"x\ny"}', undefined, 'failed-parse'], // a raw line break in a string is not JSON
    ['nx', undefined, 'failed-parse'],
  ];

  it.each(cases)('parse(%j) gives %j (%s), as ai 7 does', async (text, value, state) => {
    const ours = createPartialJsonParser().parse(text);
    expect(resultDifference(ours, { value, state })).toBeUndefined();
    expect(resultDifference(ours, await parsePartialJson(text))).toBeUndefined();
  });

  it('keeps -0 and the keys in JSON.parse order (integer keys first, the last duplicate wins in place)', () => {
    expect(Object.is((createPartialJsonParser().parse('[-0').value as number[])[0], -0)).toBe(true);
    const { value } = createPartialJsonParser().parse('{"b":1,"2":2,"a":3,"b":4,"1":');
    expect(Object.keys(value as object)).toEqual(['2', 'b', 'a']);
    expect(value).toEqual({ b: 4, 2: 2, a: 3 });
  });

  it('is synchronous, and an await on it gives the same', async () => {
    const parser = createPartialJsonParser();
    const result = parser.parse('{"a":[1');
    expect(result).not.toBeInstanceOf(Promise);
    expect(await parser.parse('{"a":[1,2')).toEqual({ value: { a: [1, 2] }, state: 'repaired-parse' });
  });
});

describe('createPartialJsonParser: values once returned', () => {
  const text = '{"path":"a.txt","items":[{"id":1,"tags":["x","y"]},{"id":2,"tags":["z"';
  const rest = ']},{"id":3}],"content":"hello \\"world\\"\\n","done":true}';

  it('never changes a value it returned (every value frozen as it comes: a change would throw)', () => {
    for (const form of ['parse', 'push'] as const) {
      const parser = createPartialJsonParser();
      const whole = text + rest;
      const seen: { value: unknown; copy: string }[] = [];
      for (let end = 1; end <= whole.length; end++) {
        const { value } = form === 'parse' ? parser.parse(whole.slice(0, end)) : parser.push(whole.slice(end - 1, end));
        seen.push({ value, copy: JSON.stringify(value) ?? 'undefined' });
        deepFreeze(value);
      }
      for (const { value, copy } of seen) expect(JSON.stringify(value) ?? 'undefined').toBe(copy);
      expect(seen.at(-1)?.value).toEqual(JSON.parse(whole));
    }
  });

  it('shares what did not change between successive values', () => {
    const parser = createPartialJsonParser();
    const first = parser.parse(text).value as { items: { tags: string[] }[] };
    const second = parser.parse(`${text},"w"`).value as { items: { tags: string[] }[] };
    expect(second).not.toBe(first);
    expect(second.items[0]).toBe(first.items[0]); // complete: the same object
    expect(second.items[1]).not.toBe(first.items[1]); // open: a new copy
    expect(first.items[1]?.tags).toEqual(['z']);
    expect(second.items[1]?.tags).toEqual(['z', 'w']);
    // The same text again: the same value.
    expect(parser.parse(`${text},"w"`).value).toBe(second);
  });
});

describe('createPartialJsonParser: texts that do not extend the previous one', () => {
  it('starts again from a shorter, an unrelated or an edited text', async () => {
    const parser = createPartialJsonParser();
    const texts = ['{"a":"hello","b":[1,2', '{"a":"hel', '[true,{"x"', '{"a":"jello","b":[1,2,3', '{"a":"jello","b":[1,2,3]}', '{"a":"jello","b":[1,2,3]} '];
    for (const text of texts) expect(resultDifference(parser.parse(text), await parsePartialJson(text))).toBeUndefined();
  });

  it('leaves the text as it was on undefined', () => {
    const parser = createPartialJsonParser();
    parser.parse('{"a":"hel');
    expect(parser.parse(undefined)).toEqual({ value: undefined, state: 'undefined-input' });
    expect(parser.parse('{"a":"hello"}')).toEqual({ value: { a: 'hello' }, state: 'successful-parse' });
  });
});

describe('createPartialJsonParser: push()', () => {
  it('gives what parse() gives for the text so far, whatever the pieces', () => {
    const whole = '{"path":"a.txt","content":"caf\\u00e9 \\ud83d\\ude00 \\"q\\"","n":[-1.5e+3,0,true,null]}';
    for (const size of [1, 2, 3, 7, 16, whole.length]) {
      const pusher = createPartialJsonParser();
      const parser = createPartialJsonParser();
      for (let start = 0; start < whole.length; start += size) {
        const end = Math.min(whole.length, start + size);
        expect(resultDifference(pusher.push(whole.slice(start, end)), parser.parse(whole.slice(0, end)))).toBeUndefined();
      }
    }
  });

  it('an empty piece changes nothing', () => {
    const parser = createPartialJsonParser();
    const first = parser.push('[1,');
    expect(parser.push('')).toEqual(first);
  });
});

describe('createPartialJsonParser: deep documents', () => {
  // JSON.parse in V8 is not recursive: the AI SDK parses 100 000 levels. So does the parser, and
  // without recursion either (a stack overflow would throw a RangeError here).
  it('gives what ai 7 gives at 100 000 levels, open and closed', async () => {
    for (const text of ['['.repeat(100_000), `${'{"a":'.repeat(50_000)}1`, `${'['.repeat(100_000)}${']'.repeat(100_000)}`]) {
      const ours = createPartialJsonParser().parse(text);
      expect(ours.state).not.toBe('failed-parse');
      expect(resultDifference(ours, await parsePartialJson(text))).toBeUndefined();
    }
  });

  it('gives the same when a deep text grows', async () => {
    const text = `${'[{"k":'.repeat(2000)}"v"${'}]'.repeat(2000)}`;
    const parser = createPartialJsonParser();
    for (let end = 0; end <= text.length; end += 997) {
      const prefix = text.slice(0, end);
      expect(resultDifference(parser.parse(prefix), await parsePartialJson(prefix))).toBeUndefined();
    }
    expect(resultDifference(parser.parse(text), await parsePartialJson(text))).toBeUndefined();
  });
});

describe('createPartialJsonParser: bad input', () => {
  it('parse() of anything but a string or undefined throws a TypeError that says what it takes', () => {
    const parser = createPartialJsonParser();
    for (const bad of [null, 12, {}, ['{'], true, Symbol('x')]) {
      expect(() => parser.parse(bad as never)).toThrow(TypeError);
    }
    expect(() => parser.parse(null as never)).toThrow('parse() takes the whole text so far as a string (or undefined), not null');
    // The parser is unharmed.
    expect(parser.parse('[1')).toEqual({ value: [1], state: 'repaired-parse' });
  });

  it('push() of anything but a string throws a TypeError', () => {
    const parser = createPartialJsonParser();
    for (const bad of [undefined, null, 12, {}, new Uint8Array([91])]) {
      expect(() => parser.push(bad as never)).toThrow(TypeError);
    }
    expect(() => parser.push(undefined as never)).toThrow('push() takes the next piece of the text as a string, not undefined');
    expect(parser.push('[1')).toEqual({ value: [1], state: 'repaired-parse' });
  });

  it('reads what follows a complete value, or a text that is not JSON, at the cost of reading it', () => {
    const parser = createPartialJsonParser();
    const junk = 'x'.repeat(1 << 20);
    expect(parser.push('{"a":1}')).toEqual({ value: { a: 1 }, state: 'successful-parse' });
    for (let i = 0; i < 64; i++) parser.push(junk.slice(i * 16_384, (i + 1) * 16_384));
    expect(parser.push('}')).toEqual({ value: { a: 1 }, state: 'repaired-parse' });
    const broken = createPartialJsonParser();
    expect(broken.parse('{"a":tx')).toEqual({ value: undefined, state: 'failed-parse' });
    expect(broken.parse(`{"a":tx${junk}`)).toEqual({ value: undefined, state: 'failed-parse' });
  });
});
