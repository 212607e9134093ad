/**
 * Test helpers for `argstream/partial-json`: documents that stress the AI SDK's repair (escapes,
 * `\u` sequences, surrogates, numbers, literals, nesting, whitespace, `__proto__` and
 * `constructor` keys, keys with escaped quotes, trailing commas), JSON-ish garbage, a strict
 * comparison of results, and the texts on which `ai` 5 and 6 differ from `ai` 7.
 */
import fc from 'fast-check';

/** Whitespace between tokens: mostly none. */
const ws = fc.constantFrom('', '', '', '', ' ', '\n', '\t', '\r\n  ');

/** Pieces of string content: plain, raw astral and lone surrogates, every escape, structure look-alikes. */
const stringPiece = fc.oneof(
  fc.constantFrom('a', 'hello', 'é', '😀', '\ud83d', '\ude00', '\ud800\ud800', ' ', '0'),
  fc.constantFrom('\\n', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\r', '\\t'),
  fc.constantFrom('\\u0041', '\\u00e9', '\\u00E9', '\\ud83d\\ude00', '\\uD83D\\uDE00', '\\ud83d', '\\uDE00', '\\u0000', '\\u005f', '\\u0022'),
  fc.constantFrom('}', ']', ',', ':', '[', '{', 'true', '-1', '\\u005c', 'e+5'),
);

/** A JSON string literal, quotes included. */
export const stringText = fc.array(stringPiece, { maxLength: 6 }).map((pieces) => `"${pieces.join('')}"`);

/** Keys: ordinary ones, the ones the AI SDK's secure parse looks at, and escaped quotes (its repair does not read escapes in keys). */
const keyText = fc.oneof(
  { weight: 4, arbitrary: stringText },
  {
    weight: 3,
    arbitrary: fc.constantFrom('"a"', '"b"', '""', '"__proto__"', '"\\u005f_proto__"', '"constructor"', '"prototype"', '"1"'),
  },
  { weight: 1, arbitrary: fc.constantFrom('"a\\"b"', '"\\":[-1"', '"\\":1}"', '"x\\\\"') },
);

/** A JSON number: sign, integer, fraction, exponent (with `e`/`E` and `+`/`-`/none). */
export const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.integer({ min: 1, max: 99999 }).map(String), fc.constant('12345678901234567890')),
    fc.option(fc.integer({ min: 0, max: 9999 }).map((n) => `.${String(n).padStart(2, '0')}`), { nil: '' }),
    fc.option(
      fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 })).map(([e, sign, n]) => `${e}${sign}${n}`),
      { nil: '' },
    ),
  )
  .map(([minus, integer, fraction, exponent]) => `${minus ? '-' : ''}${integer}${fraction}${exponent}`);

const literalText = fc.constantFrom('true', 'false', 'null');

/** A trailing comma now and then (not JSON: the AI SDK's repair drops it). */
const trailingComma = fc.constantFrom('', '', '', '', ',');

/** A JSON text (now and then with a trailing comma inside a container). */
export const documentText: fc.Arbitrary<string> = fc
  .letrec<{ value: string; array: string; object: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      stringText,
      numberText,
      literalText,
      tie('array'),
      tie('object'),
    ),
    array: fc
      .tuple(fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }), trailingComma, ws)
      .map(([items, comma, end]) => `[${items.map(([a, v, b]) => a + v + b).join(',')}${items.length > 0 ? comma : ''}${end}]`),
    object: fc
      .tuple(fc.array(fc.tuple(ws, keyText, ws, ws, tie('value'), ws), { maxLength: 4 }), trailingComma, ws)
      .map(([members, comma, end]) => `{${members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}${members.length > 0 ? comma : ''}${end}}`),
  }))
  .value.chain((value) => fc.tuple(ws, ws).map(([before, after]) => before + value + after));

/** Text made of JSON's characters in any order: what the repair skips, keeps and closes when it is not JSON. */
export const garbageText = fc.string({
  unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', 'u', '0', '1', '9', 'a', 'F', '-', '+', '.', 'e', 'E', 't', 'r', 'n', 'l', 'f', 's', ' ', '\n', '_', 'p', 'o', '\u0001', '\ud83d'),
  maxLength: 40,
});

/** The result of a `parsePartialJson`. */
export interface Result {
  readonly value: unknown;
  readonly state: string;
}

/**
 * Where two results first differ (a short description), or `undefined` when they are the same:
 * same state; values of the same JSON: numbers by `Object.is` (so -0 is not 0), strings by code
 * units, keys in the same order. Iterative: values can be deep.
 */
export function resultDifference(actual: Result, expected: Result): string | undefined {
  if (actual.state !== expected.state) return `state ${actual.state}, expected ${expected.state}`;
  const stack: [unknown, unknown, string][] = [[actual.value, expected.value, '$']];
  while (stack.length > 0) {
    const [a, e, path] = stack.pop() as [unknown, unknown, string];
    if (e === null || typeof e !== 'object') {
      if (!Object.is(a, e)) return `${path}: ${show(a)}, expected ${show(e)}`;
      continue;
    }
    if (a === null || typeof a !== 'object' || Array.isArray(a) !== Array.isArray(e)) return `${path}: ${show(a)}, expected ${show(e)}`;
    const aKeys = Object.keys(a);
    const eKeys = Object.keys(e);
    if (aKeys.join('\u0000') !== eKeys.join('\u0000')) return `${path}: keys ${show(aKeys)}, expected ${show(eKeys)}`;
    for (const key of eKeys) stack.push([(a as Record<string, unknown>)[key], (e as Record<string, unknown>)[key], `${path}.${key}`]);
  }
  return undefined;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/**
 * `ai` 5 keeps a `\u` escape from its `u` on, so a text cut inside one (before the fourth hex
 * digit) repairs to a string with a broken escape: 'failed-parse' where `ai` 7 drops the escape.
 */
export function endsInUnicodeEscape(text: string): boolean {
  const match = /\\u[0-9a-fA-F]{0,3}$/.exec(text);
  if (match === null) return false;
  let backslashes = 0;
  for (let i = match.index; i >= 0 && text[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * `ai` 6 keeps the character after an array's `[` whatever it is, so a text that ends in an
 * array's first element's `-` repairs to `[-]`: 'failed-parse' where `ai` 7 gives the array
 * without it.
 */
export function endsInArrayMinus(text: string): boolean {
  return /\[[ \t\n\r]*-$/.test(text);
}

/** Freeze a value and everything in it (iteratively): a later change to it throws. */
export function deepFreeze(value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const key of Object.keys(node)) stack.push((node as Record<string, unknown>)[key]);
  }
}
