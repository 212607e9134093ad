/** Helpers for the JSON engine tests: fragment rendering and normalisation, a text generator. */
import fc from 'fast-check';
import {
  IncrementalJsonValueParser,
  type JsonValue,
  type StreamFragment,
} from '../../src/index.ts';

/** `entry a → item 0 → scalar 1`, the notation of the issue and RFD 043. */
export function show(fragment: StreamFragment): string {
  switch (fragment.type) {
    case 'entry':
      return `entry ${fragment.key} → ${show(fragment.value)}`;
    case 'item':
      return `item ${fragment.index} → ${show(fragment.value)}`;
    case 'start':
      return `start ${fragment.kind}`;
    case 'string':
      return `string ${JSON.stringify(fragment.text)}`;
    case 'scalar':
      return `scalar ${JSON.stringify(fragment.value)}`;
    case 'done':
      return 'done';
  }
}

/** Split a fragment into its path (as a string) and its leaf. */
export function pathAndLeaf(fragment: StreamFragment): [string, StreamFragment] {
  let path = '';
  let leaf = fragment;
  while (leaf.type === 'entry' || leaf.type === 'item') {
    path += leaf.type === 'entry' ? `/k${JSON.stringify(leaf.key)}` : `/i${leaf.index}`;
    leaf = leaf.value;
  }
  return [path, leaf];
}

/** Fragments as `show` lines, with adjacent string pieces of the same path merged. */
export function merged(fragments: readonly StreamFragment[]): string[] {
  const out: Array<[string, StreamFragment]> = [];
  for (const fragment of fragments) {
    const [path, leaf] = pathAndLeaf(fragment);
    const last = out[out.length - 1];
    if (leaf.type === 'string' && last && last[0] === path && last[1].type === 'string') {
      last[1] = { type: 'string', text: last[1].text + leaf.text };
    } else out.push([path, leaf]);
  }
  return out.map(([path, leaf]) => `${path} ${show(leaf)}`);
}

export { parseFragments } from '../helpers.ts';


/** Parse chunks with the fused value parser. */
export function parseValue(chunks: ReadonlyArray<string | Uint8Array>, options = {}): JsonValue {
  const parser = new IncrementalJsonValueParser(options);
  for (const chunk of chunks) parser.push(chunk);
  return parser.end();
}

/** The error a function throws (or `undefined`). */
export function thrown(fn: () => unknown): any {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Arbitrary JSON text: any value, written with arbitrary whitespace and arbitrary escaping.

const WHITESPACE = [' ', '\t', '\n', '\r'];
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '/': '\\/' };

function hex4(unit: number, upper: boolean): string {
  const h = unit.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
}

/** Serialise `value` as JSON, choosing whitespace and escapes from `random` (in [0, 1)). */
export function writeJson(value: JsonValue, random: () => number): string {
  const ws = () => {
    let out = '';
    while (random() < 0.25) out += WHITESPACE[Math.floor(random() * 4)];
    return out;
  };
  const str = (text: string) => {
    let out = '"';
    for (let i = 0; i < text.length; i++) {
      const ch = text.charAt(i);
      const unit = ch.charCodeAt(0);
      const r = random();
      if (unit < 0x20 || ch === '"' || ch === '\\') {
        out += SHORT_ESCAPES[ch] !== undefined && r < 0.5 ? SHORT_ESCAPES[ch] : `\\u${hex4(unit, r < 0.75)}`;
      } else if (r < 0.15) out += `\\u${hex4(unit, r < 0.07)}`;
      else if (ch === '/' && r < 0.3) out += '\\/';
      else out += ch;
    }
    return out + '"';
  };
  const num = (n: number) => {
    let text = Object.is(n, -0) ? '-0' : JSON.stringify(n);
    if (!/[eE]/.test(text) && random() < 0.2) text += random() < 0.5 ? 'e0' : 'E+0';
    return text;
  };
  // Iterative writer: documents can be deep.
  const write = (v: JsonValue): string => {
    if (v === null || typeof v === 'boolean') return String(v);
    if (typeof v === 'number') return num(v);
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return '[' + ws() + v.map((item) => write(item) + ws()).join(',' + ws()) + ']';
    const keys = Object.keys(v);
    return '{' + ws() + keys.map((k) => str(k) + ws() + ':' + ws() + write(v[k] as JsonValue) + ws()).join(',' + ws()) + '}';
  };
  return ws() + write(value) + ws();
}

/** Strings that stress the decoder: escapes, astral characters, lone surrogates, controls. */
const trickyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('"', '\\', '/', '\n', '\u0000', '\u001f', 'é', '😀', '\ud800', '\udc00', 'a', '\u2028') }),
);

/** Arbitrary JSON values, including -0, big numbers and tricky strings. */
export const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -0, 1e21, 5e-324, -1.5, 123456789012345680000),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    trickyString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A JSON text of an arbitrary value, with the seed of its whitespace and escaping. */
export const jsonText = fc.tuple(jsonValue, fc.integer()).map(([value, seed]) => {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return writeJson(value, random);
});

/** Cut positions for a text of length `n`. */
export function cutsFor(n: number) {
  return fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, n - 1) }), { maxLength: Math.min(n, 24) }).map((cuts) => cuts.sort((a, b) => a - b));
}

/**
 * Pieces of a JSON string's content that stress the raw and decoded string paths: long and short
 * runs (around the 64-character fast-path threshold), escaped and raw lone and paired surrogates,
 * other escapes, astral characters.
 */
const stringPiece = fc.oneof(
  fc.integer({ min: 1, max: 140 }).map((n) => 'a'.repeat(n)),
  fc.constantFrom(63, 64, 65, 127, 128).map((n) => 'b'.repeat(n)),
  fc.constantFrom('\\uD800', '\\uDBFF', '\\udbfe', '\\uDC00', '\\uDFFF', '\\ud83d\\ude00', '\\uDBFF\\uD800', '\\uDC00\\uD800'),
  fc.constantFrom('\ud800', '\udbff', '\udc00', '\ud83d\ude00', '😀', 'é'),
  fc.constantFrom('\\n', '\\"', '\\\\', '\\/', '\\u0041', '\\u00e9', '0', ' '),
);

/**
 * A document whose strings are made of {@link stringPiece}s, with cut positions that include every
 * piece boundary chosen (so escapes and surrogates land at chunk ends) and a few inside pieces.
 */
export const surrogateDocAndCuts: fc.Arbitrary<[string, number[]]> = surrogateDoc().map(([text, cuts]) => [text, cuts]);

/**
 * {@link surrogateDocAndCuts}, each with the ends of its pieces inside strings and how many code
 * units the string holds there: where a `maxStringLength` is reached exactly.
 */
export const surrogateDocAndEnds: fc.Arbitrary<[string, number[], Array<[number, number]>]> = surrogateDoc();

function surrogateDoc(): fc.Arbitrary<[string, number[], Array<[number, number]>]> {
  return fc
  .tuple(
    fc.array(fc.array(stringPiece, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
    fc.constantFrom('root', 'array', 'object', 'key'),
    fc.array(fc.boolean(), { minLength: 32, maxLength: 32 }),
    fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 4 }),
  )
  .map(([strings, shape, cutHere, inside]) => {
    const boundaries: number[] = [];
    const ends: Array<[number, number]> = [];
    let text = shape === 'root' ? '' : shape === 'array' ? '[' : '{';
    strings.forEach((pieces, s) => {
      if (s > 0 && shape === 'root') return;
      if (s > 0) text += ',';
      if (shape === 'object') text += `"k${s}":`;
      text += '"';
      let units = 0;
      for (const piece of pieces) {
        boundaries.push(text.length);
        text += piece;
        units += (JSON.parse(`"${piece}"`) as string).length;
        ends.push([text.length, units]);
        for (const d of inside) if (d < piece.length) boundaries.push(text.length - d);
      }
      boundaries.push(text.length);
      text += '"';
      if (shape === 'key') text += ':0';
    });
    text += shape === 'root' ? '' : shape === 'array' ? ']' : '}';
    const cuts = [...new Set(boundaries.filter((b, k) => b > 0 && b < text.length && cutHere[k % 32]))].sort((a, b) => a - b);
    return [text, cuts, ends];
  });
}
