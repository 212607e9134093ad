import { describe, expect, it } from 'vitest';
import { IncrementalJsonParser, IncrementalJsonValueParser, JsonStreamError, type StreamFragment } from '../../src/index.ts';
import { cutAt, oneByOne } from '../helpers.ts';
import { merged, parseFragments, parseValue, show, thrown } from './json-helpers.ts';

/** Every way of cutting a short text into two or three pieces. */
function allCuttings(text: string): string[][] {
  const out: string[][] = [[text]];
  for (let a = 1; a < text.length; a++) {
    out.push(cutAt(text, [a]));
    for (let b = a + 1; b < text.length; b++) out.push(cutAt(text, [a, b]));
  }
  return out;
}

describe('IncrementalJsonParser fragments', () => {
  it('IncrementalJsonParser yields the fragments of the issue for {"a":[1,"x"]} under every cutting', () => {
    const expected = [
      'start object',
      'entry a → start array',
      'entry a → item 0 → scalar 1',
      'entry a → item 0 → done',
      'entry a → item 1 → start string',
      'entry a → item 1 → string "x"',
      'entry a → item 1 → done',
      'entry a → done',
      'done',
    ];
    for (const chunks of allCuttings('{"a":[1,"x"]}')) {
      expect(parseFragments(chunks).fragments.map(show)).toEqual(expected);
    }
  });

  it('IncrementalJsonParser reproduces the RFD 043 fs_create_file example (with start fragments)', () => {
    const { fragments } = parseFragments(['{"path": "/tmp/foo.rs", "content": "fn main(', ') {...}"}']);
    expect(fragments.map(show)).toEqual([
      'start object',
      'entry path → start string',
      'entry path → string "/tmp/foo.rs"',
      'entry path → done',
      'entry content → start string',
      'entry content → string "fn main("',
      'entry content → string ") {...}"',
      'entry content → done',
      'done',
    ]);
  });

  it('IncrementalJsonParser reproduces the RFD 043 fs_modify_file example (with start fragments)', () => {
    const { fragments } = parseFragments(['{"path": "lib.rs", "patterns": [{"old": "lo', 'ng...", "new": "also ', 'long..."}]}']);
    expect(fragments.map(show)).toEqual([
      'start object',
      'entry path → start string',
      'entry path → string "lib.rs"',
      'entry path → done',
      'entry patterns → start array',
      'entry patterns → item 0 → start object',
      'entry patterns → item 0 → entry old → start string',
      'entry patterns → item 0 → entry old → string "lo"',
      'entry patterns → item 0 → entry old → string "ng..."',
      'entry patterns → item 0 → entry old → done',
      'entry patterns → item 0 → entry new → start string',
      'entry patterns → item 0 → entry new → string "also "',
      'entry patterns → item 0 → entry new → string "long..."',
      'entry patterns → item 0 → entry new → done',
      'entry patterns → item 0 → done',
      'entry patterns → done',
      'done',
    ]);
  });

  it('IncrementalJsonParser reproduces the RFD 043 scalar and parser examples', () => {
    expect(parseFragments(['{"dry_run": true}']).fragments.map(show)).toEqual([
      'start object',
      'entry dry_run → scalar true',
      'entry dry_run → done',
      'done',
    ]);
    const { fragments } = parseFragments(['{"path":"/tmp/foo.rs","content":"fn main()', ' {}\\n","dry_run":false}']);
    expect(fragments.map(show)).toEqual([
      'start object',
      'entry path → start string',
      'entry path → string "/tmp/foo.rs"',
      'entry path → done',
      'entry content → start string',
      'entry content → string "fn main()"',
      'entry content → string " {}\\n"',
      'entry content → done',
      'entry dry_run → scalar false',
      'entry dry_run → done',
      'done',
    ]);
  });

  it('IncrementalJsonParser streams a bare root string directly', () => {
    expect(parseFragments(['"chu', 'nk"']).fragments.map(show)).toEqual(['start string', 'string "chu"', 'string "nk"', 'done']);
  });

  it('IncrementalJsonParser tells {} from [] from "" with start fragments', () => {
    expect(parseFragments(['{}']).fragments.map(show)).toEqual(['start object', 'done']);
    expect(parseFragments(['[]']).fragments.map(show)).toEqual(['start array', 'done']);
    expect(parseFragments(['""']).fragments.map(show)).toEqual(['start string', 'done']);
    expect(parseFragments(['{"a":{},"b":[],"c":""}']).value).toEqual({ a: {}, b: [], c: '' });
  });

  it('IncrementalJsonParser emits a key only when it is complete, a scalar when its terminator arrives', () => {
    const parser = new IncrementalJsonParser();
    expect(parser.push('{"pa')).toEqual([{ type: 'start', kind: 'object' }]);
    expect(parser.push('th":12')).toEqual([]);
    expect(parser.push('3').map(show)).toEqual([]);
    expect(parser.push(',').map(show)).toEqual(['entry path → scalar 123', 'entry path → done']);
    expect(parser.push('"t":tru').map(show)).toEqual([]);
    expect(parser.push('e').map(show)).toEqual(['entry t → scalar true', 'entry t → done']);
  });

  it('IncrementalJsonParser completes a root number at end() or at following whitespace', () => {
    const parser = new IncrementalJsonParser();
    expect(parser.push('-12.5e')).toEqual([]);
    expect(parser.push('1')).toEqual([]);
    expect(parser.end()).toEqual([{ type: 'scalar', value: -125, raw: '-12.5e1' }, { type: 'done' }]);
    const spaced = new IncrementalJsonParser();
    expect(spaced.push('42 ').map(show)).toEqual(['scalar 42', 'done']);
    expect(spaced.end()).toEqual([]);
  });

  it('IncrementalJsonParser keeps the literal text of numbers, so big integers are not lost', () => {
    const { fragments } = parseFragments(['{"id":12345678901234567890123}']);
    const scalar = fragments[1] as { type: 'entry'; value: { type: 'scalar'; value: number; raw: string } };
    expect(scalar.value.raw).toBe('12345678901234567890123');
    expect(scalar.value.value).toBe(12345678901234567890123);
    expect(BigInt(scalar.value.raw)).toBe(12345678901234567890123n);
  });

  it('both engines give every number exactly the double JSON.parse gives, with its literal text', () => {
    // Around the limits of exact arithmetic: 15, 16 and 17 significant digits, integers past
    // 2^53, many decimals, negative zero, exponents, and decimals that no double represents.
    const literals = [
      '0', '-0', '-0.0', '0.1', '0.3', '4.35', '-12.5', '1.7976931348623157', '2.2250738585072014',
      '123456789012345', '999999999999999', '1234567890123456', '9007199254740993', '9999999999999999',
      '12345678901234567', '123456789012345.6', '12345678901234.56', '0.1234567890123456',
      '0.123456789012345', '0.000001', '0.0000000000000001', '99999999999999.99', '1e2', '-12.5e-3',
      '5E+2', '1e-400', '1e400', '100000000000000000000000',
    ];
    for (const literal of literals) {
      const text = `[${literal},{"n":${literal}}]`;
      const expected = JSON.parse(text) as [number, { n: number }];
      for (const chunks of [[text], oneByOne(text)]) {
        const [first, { n }] = parseValue(chunks) as [number, { n: number }];
        expect(Object.is(first, expected[0]), `${literal}: ${first}`).toBe(true);
        expect(Object.is(n, expected[1].n), `${literal}: ${n}`).toBe(true);
        const leaf = (f: StreamFragment): StreamFragment => (f.type === 'entry' || f.type === 'item' ? leaf(f.value) : f);
        const scalars = parseFragments(chunks).fragments.map(leaf).filter((f) => f.type === 'scalar');
        expect(scalars.map((f) => (f.type === 'scalar' ? [f.value, f.raw] : []))).toEqual([
          [expected[0], literal],
          [expected[1].n, literal],
        ]);
      }
    }
  });

  it('IncrementalJsonParser never emits an empty string fragment', () => {
    for (const chunks of allCuttings('["","\\n",""]')) {
      for (const fragment of parseFragments(chunks).fragments) {
        expect(show(fragment)).not.toMatch(/string ""$/);
      }
    }
  });
});

describe('IncrementalJsonParser strings', () => {
  const cases: Array<[string, string]> = [
    ['"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'],
    ['"\\u0041\\u00e9\\u20AC"', 'Aé€'],
    ['"\\ud83d\\ude00"', '😀'],
    ['"a\\uD834\\uDD1Eb"', 'a𝄞b'],
    ['"😀é"', '😀é'],
    ['"\\ud800"', '\ud800'],
    ['"\\udc00\\ud800x"', '\udc00\ud800x'],
    ['"\\ud800\\u0041"', '\ud800A'],
    ['"\\ud83d\ude00"', '😀'],
  ];
  for (const [text, expected] of cases) {
    it(`IncrementalJsonParser decodes ${text} under every cutting, never emitting half a pair`, () => {
      for (const chunks of allCuttings(text)) {
        const { fragments, value } = parseFragments(chunks);
        expect(value).toBe(expected);
        for (const fragment of fragments) {
          if (fragment.type !== 'string') continue;
          const last = fragment.text.charCodeAt(fragment.text.length - 1);
          const first = fragment.text.charCodeAt(0);
          const closesString = fragment === fragments[fragments.length - 2];
          if (!closesString) expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
          // A low half may only start a fragment when its high half was not there to pair with.
          if (first >= 0xdc00 && first <= 0xdfff) expect(expected.startsWith(fragment.text) || !/[\ud800-\udbff]/.test(expected)).toBe(true);
        }
      }
    });
  }

  it('IncrementalJsonParser emits all string data up to the last complete character after each push', () => {
    const parser = new IncrementalJsonParser();
    const texts = (chunk: string) =>
      parser.push(chunk).flatMap((f) => (f.type === 'string' ? [f.text] : []));
    expect(texts('"ab\\')).toEqual(['ab']);
    expect(texts('n')).toEqual(['\n']);
    expect(texts('\\u00')).toEqual([]);
    expect(texts('e9x\\ud83d')).toEqual(['éx']);
    expect(texts('\\ude')).toEqual([]);
    expect(texts('00\ud83d')).toEqual(['😀']);
    expect(texts('\ude00"')).toEqual(['😀']);
  });

  it('both engines keep a string of many thousand pieces exact, with snapshots taken along the way', () => {
    // Longer than several blocks of pieces (the value builder joins and decodes a block at a
    // time), with escapes, escaped and raw surrogate pairs and lone surrogates cut everywhere.
    const unit = 'plain text, "quoted" \\ back\\slash\t\n 😀 é \ud83d\ude00 \udc00 lone \ud800 end; ';
    const content = unit.repeat(400);
    const text = JSON.stringify({ content, tail: [content.slice(0, 999)] });
    const expected = JSON.parse(text) as { content: string };
    for (const size of [1, 3, 7]) {
      const fused = new IncrementalJsonValueParser();
      const fragments = new IncrementalJsonParser();
      let pieces = '';
      let previous = '';
      for (let i = 0; i < text.length; i += size) {
        const chunk = text.slice(i, i + size);
        fused.push(chunk);
        for (const fragment of fragments.push(chunk)) {
          if (fragment.type === 'entry' && fragment.key === 'content' && fragment.value.type === 'string') {
            pieces += fragment.value.text;
          }
        }
        if (i % 997 === 0) {
          const snapshot = (fused.snapshot() as { content?: string } | undefined)?.content ?? '';
          expect(snapshot.startsWith(previous)).toBe(true);
          expect(expected.content.startsWith(snapshot)).toBe(true);
          previous = snapshot;
        }
      }
      fragments.end();
      expect(fused.end()).toEqual(expected);
      expect(pieces).toBe(expected.content);
    }
  });

  it('the fused engine keeps a high surrogate carried out of a long run before the raw text that follows', () => {
    // A run of 64 or more characters is decoded at once and its trailing `\uDBFF` is carried;
    // the next chunk is short and goes raw: the carried surrogate must come first.
    const chunks = ['"' + 'a'.repeat(64) + '\\uDBFF\\uD800', '0', '"'];
    const expected = 'a'.repeat(64) + '\uDBFF\uD800' + '0';
    expect(parseValue(chunks)).toBe(expected);
    expect(parseFragments(chunks).value).toBe(expected);
    const parser = new IncrementalJsonValueParser();
    parser.push(chunks[0]!);
    parser.push(chunks[1]!);
    expect(parser.snapshot()).toBe(expected);
  });

  it('IncrementalJsonParser decodes UTF-8 bytes cut inside code points', () => {
    const text = '{"k😀":"é€😀\\u00e9"}';
    const bytes = new TextEncoder().encode(text);
    for (const chunks of [oneByOne(bytes), cutAt(bytes, [3, 4, 9, 11])]) {
      expect(parseFragments(chunks).value).toEqual({ 'k😀': 'é€😀é' });
      expect(parseValue(chunks)).toEqual({ 'k😀': 'é€😀é' });
    }
  });

  it('IncrementalJsonParser decodes invalid UTF-8 as TextDecoder does (U+FFFD), then follows JSON.parse', () => {
    const bytes = new Uint8Array([0x22, 0xff, 0xc3, 0x22]); // " \xff \xc3 "
    const expected = JSON.parse(new TextDecoder().decode(bytes));
    expect(parseValue(oneByOne(bytes))).toBe(expected);
    expect(parseFragments(oneByOne(bytes)).value).toBe(expected);
  });

  it('both engines reject a byte order mark in string input, as JSON.parse does, and skip it in UTF-8 input, as TextDecoder and Response.json() do', () => {
    const bytes = new TextEncoder().encode('\ufeff{"a":1}');
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes)).toBe('{"a":1}');
    for (const error of [thrown(() => parseValue(['\ufeff{}'])), thrown(() => parseFragments(['\ufeff{}']))]) {
      expect([error?.code, error?.offset]).toEqual(['invalid-json', 0]);
    }
    for (const chunks of [[bytes], oneByOne(bytes), [bytes.slice(0, 2), bytes.slice(2)]]) {
      expect(parseValue(chunks)).toEqual({ a: 1 });
      expect(parseFragments(chunks).value).toEqual({ a: 1 });
    }
    // Offsets count the decoded text, after the mark.
    const error = thrown(() => parseValue(oneByOne(new TextEncoder().encode('\ufeff[1,]'))));
    expect([error?.code, error?.offset]).toEqual(['invalid-json', 3]);
  });
});

describe('IncrementalJsonParser errors', () => {
  it('IncrementalJsonParser reports code, offset, path and a readable message', () => {
    const error = thrown(() => parseFragments(['{"a":  ,']));
    expect(error).toBeInstanceOf(JsonStreamError);
    expect(error.code).toBe('invalid-json');
    expect(error.offset).toBe(7);
    expect(error.path).toBe('/a');
    expect(error.message).toBe("Unexpected ',' at offset 7 in /a: expected a value");
  });

  const invalid: Array<[string, string, number, string]> = [
    ['[1,]', 'invalid-json', 3, '/1'],
    ['{"a":1,}', 'invalid-json', 7, ''],
    ['{"a" 1}', 'invalid-json', 5, '/a'],
    ['[01]', 'invalid-json', 2, ''],
    ['[1.]', 'invalid-json', 3, '/0'],
    ['[-]', 'invalid-json', 2, '/0'],
    ['{"x":[true,fals]}', 'invalid-json', 15, '/x/1'],
    ['"a\\x"', 'invalid-json', 3, ''],
    ['"\\u12G4"', 'invalid-json', 5, ''],
    ['"a\tb"', 'invalid-json', 2, ''],
    ['{"a/~b":[{"c": nope}]}', 'invalid-json', 16, '/a~1~0b/0/c'],
    ['{} {}', 'invalid-json', 3, ''],
    ['{"a":[1,', 'unexpected-end', 8, '/a/1'],
    ['{"a":"xy', 'unexpected-end', 8, '/a'],
    ['', 'unexpected-end', 0, ''],
    ['   ', 'unexpected-end', 3, ''],
    ['-', 'unexpected-end', 1, ''],
    ['"\\u12', 'unexpected-end', 5, ''],
  ];
  for (const [text, code, offset, path] of invalid) {
    it(`IncrementalJsonParser rejects ${JSON.stringify(text)} with ${code} at ${offset}, whatever the cutting`, () => {
      expect(() => JSON.parse(text)).toThrow();
      for (const chunks of allCuttings(text)) {
        for (const run of [() => parseFragments(chunks), () => parseValue(chunks)]) {
          const error = thrown(run);
          expect(error).toBeInstanceOf(JsonStreamError);
          expect([error.code, error.offset, error.path]).toEqual([code, offset, path]);
        }
      }
    });
  }

  it('IncrementalJsonParser refuses input after an error with the same error', () => {
    const parser = new IncrementalJsonParser();
    const first = thrown(() => parser.push('[1,,'));
    expect(first.code).toBe('invalid-json');
    expect(thrown(() => parser.push('2]'))).toBe(first);
    expect(thrown(() => parser.end())).toBe(first);
  });

  it('IncrementalJsonParser quotes at most 30 characters of input in an error', () => {
    const error = thrown(() => parseValue([`[${'x'.repeat(100)}]`]));
    expect(error.excerpt.length).toBeLessThanOrEqual(31);
    expect(error.message.length).toBeLessThan(120);
  });

  it('IncrementalJsonParser rejects non-string, non-byte chunks with a TypeError', () => {
    expect(() => new IncrementalJsonParser().push(42 as never)).toThrow(TypeError);
  });
});

describe('IncrementalJsonParser limits', () => {
  it('IncrementalJsonParser enforces maxDepth (default 256) at the opening bracket', () => {
    expect(parseValue(['['.repeat(256) + ']'.repeat(256)])).toBeDefined();
    const error = thrown(() => parseValue(['['.repeat(257)]));
    expect([error.code, error.offset]).toEqual(['max-depth', 256]);
    expect(thrown(() => parseFragments(['{"a":{"b":[1]}}'], { maxDepth: 2 })).code).toBe('max-depth');
    expect(parseFragments(['{"a":{"b":1}}'], { maxDepth: 2 }).value).toEqual({ a: { b: 1 } });
  });

  it('both engines count a trailing high surrogate against maxStringLength under every cutting', () => {
    for (const text of ['"abc\\uDBBE', '"abc\uDBBE', '"' + 'a'.repeat(70) + '\\uDBBE']) {
      const at = text.length > 20 ? 71 : 4;
      for (let c = 0; c < text.length; c++) {
        const chunks = cutAt(text, c === 0 ? [] : [c]);
        for (const run of [() => parseValue(chunks, { maxStringLength: at - 1 }), () => parseFragments(chunks, { maxStringLength: at - 1 })]) {
          const error = thrown(run);
          expect([error?.code, error?.offset]).toEqual(['max-string-length', at]);
        }
      }
    }
  });

  it('IncrementalJsonParser enforces maxStringLength on values and keys at the exact character', () => {
    expect(parseValue(['"abcd"'], { maxStringLength: 4 })).toBe('abcd');
    for (const chunks of allCuttings('"abcde"')) {
      const error = thrown(() => parseValue(chunks, { maxStringLength: 4 }));
      expect([error.code, error.offset]).toEqual(['max-string-length', 5]);
    }
    for (const chunks of allCuttings('{"abcde":1}')) {
      expect(thrown(() => parseFragments(chunks, { maxStringLength: 4 })).code).toBe('max-string-length');
    }
    expect(thrown(() => parseValue(['"ab\\ncd"'], { maxStringLength: 4 })).offset).toBe(6);
  });

  it('IncrementalJsonParser enforces maxLength in decoded characters, whatever the cutting', () => {
    expect(parseValue(['[1, 2]'], { maxLength: 6 })).toEqual([1, 2]);
    for (const chunks of allCuttings('[1, 2] ')) {
      const error = thrown(() => parseValue(chunks, { maxLength: 6 }));
      expect([error.code, error.offset]).toEqual(['max-length', 6]);
    }
  });

  it('IncrementalJsonParser rejects nonsensical limits', () => {
    expect(() => new IncrementalJsonParser({ maxDepth: 0 })).toThrow(RangeError);
    expect(() => new IncrementalJsonParser({ maxLength: Number.NaN })).toThrow(RangeError);
  });

  it('IncrementalJsonValueParser parses 10⁶ nested arrays with maxDepth Infinity without overflowing the stack', () => {
    const depth = 1_000_000;
    const parser = new IncrementalJsonValueParser({ maxDepth: Infinity });
    const open = '['.repeat(depth);
    const close = ']'.repeat(depth);
    for (let i = 0; i < depth; i += 4096) parser.push(open.slice(i, i + 4096));
    for (let i = 0; i < depth; i += 4096) parser.push(close.slice(i, i + 4096));
    let value = parser.end();
    let levels = 0;
    while (Array.isArray(value) && value.length > 0) {
      value = value[0]!;
      levels++;
    }
    expect(levels).toBe(depth - 1);
    expect(value).toEqual([]);
  });

  it('IncrementalJsonParser reports unexpected-end with the path of a 10⁵-deep open document', () => {
    const parser = new IncrementalJsonValueParser({ maxDepth: Infinity });
    parser.push('[{"a":'.repeat(100_000));
    const error = thrown(() => parser.end());
    expect(error.code).toBe('unexpected-end');
    expect(error.path.startsWith('/0/a/0/a')).toBe(true);
  });
});

describe('IncrementalJsonParser fragment sequences', () => {
  it('IncrementalJsonParser gives the same merged fragments whatever the cutting', () => {
    const text = '{"a": [1, {"b": "x\\ny"}, "\\ud83d\\ude00"], "c": null}';
    const whole = merged(parseFragments([text]).fragments);
    for (const chunks of allCuttings(text)) expect(merged(parseFragments(chunks).fragments)).toEqual(whole);
  });
});
