/**
 * The differential fuzzer: generated JSON documents and recorded provider streams, mutated, cut at
 * random as text and as UTF-8 bytes, run through both JSON engines, the field and path views and
 * the provider pipeline into `collectTurn`. `JSON.parse` is the oracle for values (the views' too:
 * the value their output rebuilds); for errors the
 * oracle is agreement (the same class, code and offset for every cutting and both engines).
 *
 * Every input is a pure function of `(seed, index)`, so a failure replays from those two numbers,
 * or from the replay record it prints (the input and its cuttings, independent of the generator).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  collectTurn,
  FieldEventParser,
  IncrementalJsonValueParser,
  JsonFragmentRebuilder,
  JsonStreamError,
  PathUpdateEncoder,
  ProviderError,
  ProviderEventStream,
  TaggedToolCallError,
  ToolCallArgumentsError,
  type FieldEvent,
  type JsonLimits,
  type JsonValue,
  type PathUpdate,
  type ProviderName,
  type StreamFragment,
} from '../../src/index.ts';
import { parseFragments, rng } from '../helpers.ts';
import { concatBytes, PROVIDER_OF_DIR } from '../providers/event-stream-helpers.ts';

// ---------------------------------------------------------------------------------------------
// Randomness.

/** The generator of input `index` under `seed`: independent of every other input. */
export function inputRandom(seed: number, index: number): () => number {
  const r = rng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  r();
  return r;
}

type Random = () => number;
const int = (r: Random, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Random, list: readonly T[]): T => list[int(r, list.length)]!;

// ---------------------------------------------------------------------------------------------
// JSON documents.

const HEX = '0123456789abcdefABCDEF';
const hex4 = (unit: number, upper: boolean): string => {
  const h = unit.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
};
const SHORT: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '/': '\\/' };

/** One piece of string content, in its source form: every escape kind, surrogates lone and paired, escaped and raw. */
function stringPiece(r: Random): string {
  const k = int(r, 16);
  switch (k) {
    case 0:
      return pick(r, Object.values(SHORT));
    case 1: // any unit escaped
      return `\\u${hex4(int(r, 0x10000), r() < 0.5)}`;
    case 2: // escaped pair
      return `\\u${hex4(0xd800 + int(r, 0x400), r() < 0.5)}\\u${hex4(0xdc00 + int(r, 0x400), r() < 0.5)}`;
    case 3: // escaped lone high or low
      return `\\u${hex4((r() < 0.5 ? 0xd800 : 0xdc00) + int(r, 0x400), r() < 0.5)}`;
    case 4: // escaped high then raw low, raw high then escaped low (a pair across forms)
      return r() < 0.5
        ? `\\u${hex4(0xd800 + int(r, 0x400), false)}${String.fromCharCode(0xdc00 + int(r, 0x400))}`
        : `${String.fromCharCode(0xd800 + int(r, 0x400))}\\u${hex4(0xdc00 + int(r, 0x400), false)}`;
    case 5: // raw pair (astral)
      return String.fromCodePoint(0x10000 + int(r, 0x100000));
    case 6: // raw lone surrogate
      return String.fromCharCode((r() < 0.5 ? 0xd800 : 0xdc00) + int(r, 0x400));
    case 7: // BMP, 2 and 3 UTF-8 bytes
      return String.fromCharCode(pick(r, [0xe9, 0x3b1, 0x4e2d, 0xfeff, 0xfffd, 0x2028, 0x7ff, 0x800, 0xffff]));
    case 8: // a run (long strings)
      return pick(r, ['a', 'é', '😀', '\\n', ' ']).repeat(1 + int(r, r() < 0.1 ? 5000 : 70));
    case 9: // a control character raw (invalid) or a raw DEL (valid)
      return r() < 0.1 ? String.fromCharCode(int(r, 0x20)) : '\x7f';
    default:
      return String.fromCharCode(0x20 + int(r, 0x5f)).replace(/["\\]/, 'x');
  }
}

function stringLiteral(r: Random): string {
  let out = '"';
  const n = r() < 0.2 ? 0 : 1 + int(r, 8);
  for (let i = 0; i < n; i++) out += stringPiece(r);
  return out + '"';
}

const EDGE_NUMBERS = [
  '0', '-0', '-0.0', '0e0', '1e308', '-1e308', '1.7976931348623157e308', '1e309', '-1e400', '1e-400', '5e-324', '4.9e-324',
  '2.2250738585072014e-308', '9007199254740993', '-9007199254740993', '0.1', '1E+2', '1e-0', '123456789012345678901234567890',
  '0.30000000000000004', '1.0000000000000000000000000000001',
];

function numberLiteral(r: Random): string {
  if (r() < 0.4) return pick(r, EDGE_NUMBERS);
  let out = r() < 0.3 ? '-' : '';
  out += r() < 0.2 ? '0' : String(1 + int(r, 9)) + digits(r, r() < 0.1 ? 400 : 6);
  if (r() < 0.4) out += '.' + (digits(r, r() < 0.1 ? 400 : 6) || '0');
  if (r() < 0.3) out += pick(r, ['e', 'E']) + pick(r, ['', '+', '-']) + (digits(r, 4) || '1');
  return out;
}
function digits(r: Random, max: number): string {
  let out = '';
  const n = int(r, max + 1);
  for (let i = 0; i < n; i++) out += String(int(r, 10));
  return out;
}

const ws = (r: Random): string => {
  let out = '';
  while (r() < 0.2) out += pick(r, [' ', '\t', '\n', '\r']);
  return out;
};

/** A JSON text: arbitrary values and whitespace, depth at most `maxDepth` (deep chains sometimes). */
export function jsonDocument(r: Random, maxDepth: number): string {
  let budget = r() < 0.05 ? 3000 : 60; // values left to write
  const value = (depth: number): string => {
    budget--;
    const k = int(r, 10);
    if (depth < maxDepth && budget > 0 && k < 3) {
      const n = int(r, 5);
      const parts: string[] = [];
      for (let i = 0; i < n && budget > 0; i++) {
        if (k === 0) parts.push(ws(r) + value(depth + 1) + ws(r));
        else parts.push(ws(r) + (r() < 0.05 ? pick(r, ['"__proto__"', '"constructor"', '""']) : stringLiteral(r)) + ws(r) + ':' + ws(r) + value(depth + 1) + ws(r));
      }
      return k === 0 ? `[${parts.join(',') || ws(r)}]` : `{${parts.join(',') || ws(r)}}`;
    }
    if (k < 6) return stringLiteral(r);
    if (k < 9) return numberLiteral(r);
    return pick(r, ['true', 'false', 'null']);
  };
  if (r() < 0.05) {
    // deep nesting within (or just at) the limit, with a random value below it: siblings deep
    // down exercise the path steps the fragments of deep values share
    const depth = Math.min(maxDepth, 1 + int(r, maxDepth + 1));
    const arrays = r() < 0.5;
    return (arrays ? '['.repeat(depth) : '{"a":'.repeat(depth)) + value(depth) + (arrays ? ']' : '}').repeat(depth);
  }
  return ws(r) + value(0) + ws(r);
}

/** Invalid mutations of text: flips, insertions, deletions, truncation. */
function mutateText(r: Random, text: string): string {
  const n = 1 + int(r, 3);
  for (let m = 0; m < n; m++) {
    const at = int(r, text.length + 1);
    switch (int(r, 5)) {
      case 0: // replace a unit with a JSON-significant one
        text = text.slice(0, at) + pick(r, ['"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', 'e', '.', 'u', 'x', ' ', '\uD800', '\uDC00']) + text.slice(at + 1);
        break;
      case 1:
        text = text.slice(0, at) + pick(r, ['"', '\\u', '\\uD83D', '\\uDE00', ',', '}', ']', 'tr', 'nul', '-', '1e', '"a":1', HEX[int(r, 22)]!]) + text.slice(at);
        break;
      case 2:
        text = text.slice(0, at) + text.slice(at + 1 + int(r, 4));
        break;
      case 3:
        text = text.slice(0, at);
        break;
      default: // duplicate a slice
        text = text.slice(0, at) + text.slice(at, at + int(r, 8)) + text.slice(at);
    }
  }
  return text;
}

function mutateBytes(r: Random, bytes: Uint8Array): Uint8Array {
  const out = [...bytes];
  const n = 1 + int(r, 3);
  for (let m = 0; m < n; m++) {
    const at = int(r, out.length + 1);
    switch (int(r, 4)) {
      case 0:
        if (at < out.length) out[at] = out[at]! ^ (1 << int(r, 8));
        break;
      case 1:
        out.splice(at, 0, pick(r, [0x22, 0x5c, 0x7b, 0x7d, 0xc3, 0xed, 0xf0, 0x80, 0xbf, 0xff, 0x00, 0x0a]));
        break;
      case 2:
        out.splice(at, 1 + int(r, 3));
        break;
      default:
        out.length = Math.min(out.length, at);
    }
  }
  return Uint8Array.from(out);
}

// ---------------------------------------------------------------------------------------------
// Cuttings.

/** Cut positions for an input of `length`: one piece, every unit, or random cuts (biased small). */
function randomCuts(r: Random, length: number): number[] {
  const k = int(r, 10);
  if (length <= 1 || k === 0) return [];
  if (k === 1 && length <= 4000) return Array.from({ length: length - 1 }, (_, i) => i + 1);
  const n = 1 + int(r, Math.min(length - 1, k < 6 ? 6 : 40));
  const set = new Set<number>();
  for (let i = 0; i < n; i++) set.add(1 + int(r, length - 1));
  return [...set].sort((a, b) => a - b);
}

/**
 * Cut positions around the escapes and surrogates (text) or the backslashes and multi-byte
 * sequences (bytes) of an input, so escapes, pairs and lone surrogates end chunks often.
 */
function cutsNearEscapes(r: Random, input: string | Uint8Array): number[] {
  const spots: number[] = [];
  for (let i = 0; i < input.length; i++) {
    const unit = typeof input === 'string' ? input.charCodeAt(i) : input[i]!;
    if (unit === 0x5c || (typeof input === 'string' ? unit >= 0xd800 && unit < 0xe000 : unit >= 0x80)) spots.push(i);
  }
  if (spots.length === 0 || input.length <= 1) return randomCuts(r, input.length);
  const set = new Set<number>();
  const n = 1 + int(r, 12);
  for (let k = 0; k < n; k++) {
    const at = pick(r, spots) + int(r, 13) - 1;
    if (at > 0 && at < input.length) set.add(at);
  }
  return [...set].sort((a, b) => a - b);
}

/** Random cuts, or cuts around escapes one time in three. */
function cutsFor(r: Random, input: string | Uint8Array): number[] {
  return r() < 0.35 ? cutsNearEscapes(r, input) : randomCuts(r, input.length);
}

function cutAt<T extends string | Uint8Array>(input: T, cuts: readonly number[]): T[] {
  const out: T[] = [];
  let last = 0;
  for (const cut of cuts) {
    out.push(input.slice(last, cut) as T);
    last = cut;
  }
  out.push(input.slice(last) as T);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Outcomes and their comparison.

/** What one run of one engine or view came to. */
type Outcome = { ok: true; value?: JsonValue } | { ok: false; error: string; typed: boolean };

const JSON_ERRORS = [JsonStreamError];
// A provider stream whose records restate a call under an id another call holds (a duplicated
// start after its stop) is refused with TaggedToolCallError 'duplicate-tool-call-id'.
const PIPELINE_ERRORS = [JsonStreamError, ProviderError, ToolCallArgumentsError, TaggedToolCallError];

function describeError(error: unknown): string {
  if (error instanceof JsonStreamError) return `JsonStreamError ${error.code}@${error.offset}`;
  if (error instanceof ToolCallArgumentsError) return `ToolCallArgumentsError ${error.code}`;
  if (error instanceof ProviderError) return `ProviderError ${error.type}/${error.code ?? ''}`;
  if (error instanceof TaggedToolCallError) return `TaggedToolCallError ${error.code}`;
  if (error instanceof Error) return `${error.constructor.name}: ${error.message.slice(0, 200)}`;
  return `non-error ${String(error).slice(0, 200)}`;
}

function caught(error: unknown, classes: ReadonlyArray<abstract new (...args: never[]) => unknown>): Outcome {
  return { ok: false, error: describeError(error), typed: classes.some((c) => error instanceof c) };
}

/** Deep equality with `-0` ≠ `0`, keys compared as sets (the engines may order duplicates differently). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const key of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function runFragments(chunks: ReadonlyArray<string | Uint8Array>, limits: JsonLimits): { outcome: Outcome; fragments: StreamFragment[] } {
  try {
    const { fragments, value } = parseFragments(chunks, limits);
    return { outcome: { ok: true, value: value as JsonValue }, fragments };
  } catch (error) {
    return { outcome: caught(error, JSON_ERRORS), fragments: [] };
  }
}

function runValue(chunks: ReadonlyArray<string | Uint8Array>, limits: JsonLimits): Outcome {
  try {
    const parser = new IncrementalJsonValueParser(limits);
    for (const chunk of chunks) parser.push(chunk);
    return { ok: true, value: parser.end() };
  } catch (error) {
    return caught(error, JSON_ERRORS);
  }
}

/**
 * The field view of a text: the value its events rebuild (each field's text, or its JSON text
 * parsed; the members of an object root, or the one field `""` of any other root).
 */
function runFields(chunks: ReadonlyArray<string | Uint8Array>, limits: JsonLimits): Outcome {
  try {
    const parser = new FieldEventParser(limits);
    const events: FieldEvent[] = [];
    for (const chunk of chunks) parser.push(chunk, events);
    parser.end(events);
    const texts = new Map<number, string>();
    const members: Array<[string, JsonValue]> = [];
    let root: 'object' | 'other' | undefined;
    let field = 0;
    for (const event of events) {
      if (event.type === 'field-start') texts.set(++field, '');
      else if (event.type === 'field-delta') texts.set(field, (texts.get(field) ?? '') + event.text);
      else if (event.type === 'field-end') {
        const text = texts.get(field) ?? '';
        members.push([event.key, event.string ? text : (JSON.parse(text) as JsonValue)]);
      }
    }
    root = parser.complete && members.length === 1 && members[0]![0] === '' && !chunksStartWithObject(chunks) ? 'other' : 'object';
    if (root === 'other') return { ok: true, value: members[0]![1] };
    const object: Record<string, JsonValue> = {};
    for (const [key, value] of members) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    return { ok: true, value: object };
  } catch (error) {
    return caught(error, JSON_ERRORS);
  }
}

/** Whether the text's first non-space character opens an object. */
function chunksStartWithObject(chunks: ReadonlyArray<string | Uint8Array>): boolean {
  for (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk.subarray(0, 64));
    const m = /[^ \t\r\n\ufeff]/.exec(text);
    if (m !== null) return m[0] === '{';
  }
  return false;
}

/**
 * The path updates of a complete fragment list, sent as JSON (relative paths, the default) and
 * rebuilt by a JsonFragmentRebuilder: the value they rebuild.
 */
function runPaths(fragments: readonly StreamFragment[]): Outcome {
  try {
    const encoder = new PathUpdateEncoder();
    const rebuilder = new JsonFragmentRebuilder();
    const out: PathUpdate[] = [];
    for (const fragment of fragments) {
      encoder.push(fragment, out);
      for (const update of out) rebuilder.push(JSON.parse(JSON.stringify(update)) as PathUpdate);
      out.length = 0;
    }
    return { ok: true, value: rebuilder.value as JsonValue };
  } catch (error) {
    return caught(error, JSON_ERRORS);
  }
}

// ---------------------------------------------------------------------------------------------
// Inputs.

/** A JSON case: the text, its limits, and the cuttings it runs under. */
export interface JsonCase {
  readonly kind: 'json';
  readonly text: string;
  /** When set, the UTF-8 bytes (for byte-level mutations); else the encoding of `text`. */
  readonly bytesHex?: string;
  readonly limits: JsonLimits;
  readonly textCuts: number[][];
  readonly byteCuts: number[][];
}

/** A provider case: a (mutated) recording and its cuttings. */
export interface ProviderCase {
  readonly kind: 'provider';
  readonly file: string;
  readonly provider: ProviderName;
  /** What was done to the recording (`none`, `truncate`, `dup-event`, …). */
  readonly mutation: string;
  readonly bytesHex: string;
  readonly textCuts: number[][];
  readonly byteCuts: number[][];
}

export type FuzzCase = JsonCase | ProviderCase;

const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const fromHex = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));

const FIXTURES = fileURLToPath(new URL('../fixtures/providers/', import.meta.url));

interface Recording {
  readonly file: string;
  readonly provider: ProviderName;
  readonly bytes: Uint8Array;
}
let recordings: Recording[] | undefined;
/** The wire recordings (`.sse`, `.ndjson`, `.eventstream`), in a fixed order. */
export function providerRecordings(): Recording[] {
  if (recordings) return recordings;
  recordings = [];
  for (const dir of Object.keys(PROVIDER_OF_DIR).sort()) {
    for (const name of readdirSync(join(FIXTURES, dir)).sort()) {
      if (!/\.(sse|ndjson|eventstream)$/.test(name)) continue;
      recordings.push({ file: `${dir}/${name}`, provider: PROVIDER_OF_DIR[dir]!, bytes: new Uint8Array(readFileSync(join(FIXTURES, dir, name))) });
    }
  }
  return recordings;
}

/** The records of a wire recording: SSE events (blank-line separated), NDJSON lines, AWS frames. */
function records(bytes: Uint8Array, provider: ProviderName): Uint8Array[] {
  if (provider === 'bedrock') {
    const out: Uint8Array[] = [];
    let at = 0;
    while (at + 4 <= bytes.length) {
      const len = new DataView(bytes.buffer, bytes.byteOffset + at).getUint32(0);
      if (len < 16 || at + len > bytes.length) break;
      out.push(bytes.slice(at, at + len));
      at += len;
    }
    if (at < bytes.length) out.push(bytes.slice(at));
    return out;
  }
  const text = new TextDecoder().decode(bytes);
  const parts = provider === 'ollama' ? text.split(/(?<=\n)/) : text.split(/(?<=\r?\n\r?\n)/);
  return parts.filter((p) => p.length > 0).map((p) => new TextEncoder().encode(p));
}

/** The kind of a record: its SSE `event`, its JSON `type`, its AWS `:event-type`, or `chunk`. */
function recordKind(record: Uint8Array): string {
  const text = new TextDecoder('latin1').decode(record);
  const kind = /^event: ?(\S+)/m.exec(text)?.[1] ?? /:event-type\x07\x00.(\w+)/s.exec(text)?.[1] ?? /"type" ?: ?"([\w.]+)"/.exec(text)?.[1];
  return kind ?? 'chunk';
}


const PROVIDER_MUTATIONS = ['none', 'truncate', 'truncate-record', 'dup-record', 'swap-records', 'drop-record', 'bytes'] as const;

function providerCase(r: Random): ProviderCase {
  const recording = pick(r, providerRecordings());
  let mutation: string = pick(r, PROVIDER_MUTATIONS);
  const list = records(recording.bytes, recording.provider);
  let bytes = recording.bytes;
  const at = int(r, list.length);
  // The record kinds a record mutation touches (`dup-record[content_block_start]`), for the class name.
  if (mutation.endsWith('record') || mutation.endsWith('records')) {
    const touched = mutation === 'swap-records' ? list.slice(at, at + 2) : mutation === 'truncate-record' ? [] : list.slice(at, at + 1);
    if (touched.length > 0) mutation += `[${touched.map(recordKind).join(',')}]`;
  }
  switch (mutation.replace(/\[.*$/, '')) {
    case 'truncate':
      bytes = bytes.slice(0, int(r, bytes.length));
      break;
    case 'truncate-record': // stop at a record boundary: a stream cut between events
      bytes = concatBytes(list.slice(0, at));
      break;
    case 'dup-record':
      bytes = concatBytes([...list.slice(0, at + 1), list[at]!, ...list.slice(at + 1)]);
      break;
    case 'swap-records':
      if (at + 1 < list.length) bytes = concatBytes([...list.slice(0, at), list[at + 1]!, list[at]!, ...list.slice(at + 2)]);
      break;
    case 'drop-record':
      bytes = concatBytes([...list.slice(0, at), ...list.slice(at + 1)]);
      break;
    case 'bytes':
      bytes = mutateBytes(r, bytes);
      break;
  }
  const text = new TextDecoder().decode(bytes);
  const nCuts = 2;
  return {
    kind: 'provider',
    file: recording.file,
    provider: recording.provider,
    mutation,
    bytesHex: toHex(bytes),
    textCuts: recording.provider === 'bedrock' ? [] : Array.from({ length: nCuts }, () => randomCuts(r, text.length)),
    byteCuts: Array.from({ length: nCuts }, () => randomCuts(r, bytes.length)),
  };
}

// maxStringLength from 128 up also cuts the fused engine's native runs to the limit.
const SMALL_LIMITS: JsonLimits[] = [
  { maxDepth: 3 },
  { maxStringLength: 3 },
  { maxStringLength: 1 },
  { maxLength: 40 },
  { maxDepth: 1, maxStringLength: 8, maxLength: 100 },
  { maxStringLength: 150 },
  { maxStringLength: 700 },
];

function jsonCase(r: Random): JsonCase {
  const limits = r() < 0.1 ? pick(r, SMALL_LIMITS) : {};
  let text = jsonDocument(r, 254);
  let bytesHex: string | undefined;
  const k = r();
  if (k < 0.3) text = mutateText(r, text);
  else if (k < 0.4) bytesHex = toHex(mutateBytes(r, new TextEncoder().encode(text)));
  const bytes = bytesHex !== undefined ? fromHex(bytesHex) : new TextEncoder().encode(text);
  const nCuts = 3;
  return {
    kind: 'json',
    text,
    ...(bytesHex !== undefined ? { bytesHex } : {}),
    limits,
    textCuts: bytesHex !== undefined ? [] : Array.from({ length: nCuts }, () => cutsFor(r, text)),
    byteCuts: Array.from({ length: nCuts }, () => cutsFor(r, bytes)),
  };
}

/** Input `index` under `seed`: a JSON document (9 in 10) or a provider stream. */
export function makeCase(seed: number, index: number): FuzzCase {
  const r = inputRandom(seed, index);
  return r() < 0.9 ? jsonCase(r) : providerCase(r);
}

// ---------------------------------------------------------------------------------------------
// Checks.

/** One failed property. `kind` names its class (for counts); `detail` says what differed. */
export interface Failure {
  readonly kind: string;
  readonly detail: string;
}

const short = (o: Outcome): string => (o.ok ? `ok ${JSON.stringify(o.value)?.slice(0, 120) ?? ''}` : o.error);

/** Where two values' serializations first differ, with a little context each side. */
function difference(got: unknown, want: unknown): string {
  const a = escaped(JSON.stringify(got) ?? '');
  const b = escaped(JSON.stringify(want) ?? '');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  return `got …${a.slice(from, i + 60)}… ≠ JSON.parse …${b.slice(from, i + 60)}… (from serialized character ${i})`;
}

/** Run the JSON checks of one case. */
export function checkJson(c: JsonCase): Failure[] {
  const failures: Failure[] = [];
  const bytes = c.bytesHex !== undefined ? fromHex(c.bytesHex) : new TextEncoder().encode(c.text);
  const decoded = new TextDecoder().decode(bytes);
  const limited = Object.keys(c.limits).length > 0;
  const oracle = (text: string): Outcome => {
    try {
      return { ok: true, value: JSON.parse(text) as JsonValue };
    } catch {
      return { ok: false, error: 'JSON.parse rejects', typed: true };
    }
  };
  const runs: Array<{ label: string; expect: Outcome; chunks: Array<string | Uint8Array> }> = [];
  for (const cuts of c.textCuts) runs.push({ label: `text cut at ${JSON.stringify(cuts)}`, expect: oracle(c.text), chunks: cutAt(c.text, cuts) });
  for (const cuts of c.byteCuts) runs.push({ label: `bytes cut at ${JSON.stringify(cuts)}`, expect: oracle(decoded), chunks: cutAt(bytes, cuts) });

  const firstErrors: Array<{ label: string; error: string } | undefined> = [];
  for (const run of runs) {
    const { outcome: frag, fragments } = runFragments(run.chunks, c.limits);
    const value = runValue(run.chunks, c.limits);
    const fields = runFields(run.chunks, c.limits);
    const paths = frag.ok ? runPaths(fragments) : ({ ok: true } as Outcome);
    for (const [engine, o] of [['fragments', frag], ['value', value], ['fields', fields], ['paths', paths]] as const) {
      if (!o.ok && !o.typed) failures.push({ kind: `untyped-error:${engine}:${o.error.split(':')[0]}`, detail: `${run.label}: ${o.error}` });
    }
    for (const [engine, o] of [['fields', fields], ['paths', paths]] as const) {
      if (o.ok && o.value !== undefined && run.expect.ok && !sameValue(o.value, run.expect.value)) {
        failures.push({ kind: `wrong-value:${engine}`, detail: `${run.label}: ${difference(o.value, run.expect.value)}` });
      }
    }
    for (const [engine, o] of [['fragments', frag], ['value', value]] as const) {
      if (o.ok && run.expect.ok && !sameValue(o.value, run.expect.value)) {
        failures.push({ kind: `wrong-value:${engine}`, detail: `${run.label}: ${difference(o.value, run.expect.value)}` });
      } else if (o.ok && !run.expect.ok) {
        failures.push({ kind: `accepts-invalid:${engine}`, detail: `${run.label}: ${short(o)}, JSON.parse rejects` });
      } else if (!o.ok && run.expect.ok && !limited && o.typed) {
        failures.push({ kind: `rejects-valid:${engine}:${o.error.split(' ')[1]?.split('@')[0]}`, detail: `${run.label}: ${o.error}` });
      }
    }
    if (frag.ok !== value.ok || (!frag.ok && !value.ok && frag.error !== value.error)) {
      const code = (o: Outcome) => (o.ok ? 'ok' : (o.error.split(' ')[1]?.split('@')[0] ?? o.error));
      failures.push({ kind: `engines-disagree${limited ? ':at-limit' : ''}:${code(frag)}/${code(value)}`, detail: `${run.label}: fragments ${short(frag)}, value ${short(value)}` });
    }
    if (fields.ok !== frag.ok && frag.ok) {
      // the field view may refuse a document the engines accept only by a typed error of its own
      if (!fields.ok && /@/.test(fields.error)) failures.push({ kind: 'fields-disagree', detail: `${run.label}: fields ${short(fields)}, fragments ${short(frag)}` });
    } else if (!fields.ok && !frag.ok && fields.error !== frag.error) {
      failures.push({ kind: 'fields-disagree', detail: `${run.label}: fields ${short(fields)}, fragments ${short(frag)}` });
    }
    if (!value.ok) {
      // UTF-8 input skips a leading byte order mark (as TextDecoder does) where text keeps it, so
      // when the two differ, errors are compared within each form only.
      const form = decoded === c.text || !run.label.startsWith('bytes') ? 0 : 1;
      const first = firstErrors[form];
      if (first === undefined) firstErrors[form] = { label: run.label, error: value.error };
      else if (first.error !== value.error) {
        failures.push({ kind: 'cutting-changes-error', detail: `${first.label}: ${first.error}; ${run.label}: ${value.error}` });
      }
    }
  }
  return dedupe(failures);
}

function dedupe(failures: Failure[]): Failure[] {
  const seen = new Set<string>();
  return failures.filter((f) => (seen.has(f.kind) ? false : (seen.add(f.kind), true)));
}

function streamOf<T>(chunks: readonly T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

interface TurnSummary {
  readonly outcome: string;
  readonly calls: ReadonlyMap<string, unknown>;
  readonly typed: boolean;
}

async function runTurn(chunks: ReadonlyArray<string | Uint8Array>, provider: ProviderName): Promise<TurnSummary> {
  try {
    const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
    const calls = new Map<string, unknown>();
    for (const call of turn.toolCalls) calls.set(`${call.toolCallId}/${call.toolName}`, call.arguments);
    const outcome = JSON.stringify({
      text: turn.text,
      calls: turn.toolCalls.map((c) => [c.toolCallId, c.toolName, c.arguments]),
      incomplete: turn.incompleteToolCalls.map((c) => [c.toolCallId, c.toolName]),
      provider: turn.providerToolCalls.map((c) => [c.toolCallId, c.toolName, c.arguments]),
      finish: turn.finishReason,
    });
    return { outcome, calls, typed: true };
  } catch (error) {
    return { outcome: describeError(error), calls: new Map(), typed: PIPELINE_ERRORS.some((c) => error instanceof c) };
  }
}

/**
 * Providers whose wire carries no sequence number or block framing to notice a lost, repeated or
 * swapped record by (Gemini's chunks carry neither; its synthesized ids follow the order).
 */
const ORDERLESS: ReadonlySet<ProviderName> = new Set(['openai-chat', 'ollama', 'cohere', 'gemini']);

const baselines = new Map<string, Promise<TurnSummary>>();

/** Run the provider checks of one case. */
export async function checkProvider(c: ProviderCase): Promise<Failure[]> {
  const failures: Failure[] = [];
  const bytes = fromHex(c.bytesHex);
  const text = new TextDecoder().decode(bytes);
  const runs: Array<{ label: string; chunks: Array<string | Uint8Array> }> = [];
  for (const cuts of c.byteCuts) runs.push({ label: `bytes cut at ${JSON.stringify(cuts)}`, chunks: cutAt(bytes, cuts) });
  for (const cuts of c.textCuts) runs.push({ label: `text cut at ${JSON.stringify(cuts)}`, chunks: cutAt(text, cuts) });
  let first: { label: string; outcome: string } | undefined;
  const recording = providerRecordings().find((r) => r.file === c.file)!;
  let baseline = baselines.get(c.file);
  if (!baseline) baselines.set(c.file, (baseline = runTurn([recording.bytes], c.provider)));
  const base = await baseline;
  for (const run of runs) {
    const turn = await runTurn(run.chunks, c.provider);
    if (!turn.typed) failures.push({ kind: `provider:untyped-error:${turn.outcome.split(':')[0]}`, detail: `${run.label}: ${turn.outcome}` });
    if (first === undefined) first = { label: run.label, outcome: turn.outcome };
    else if (first.outcome !== turn.outcome && !(c.mutation === 'bytes' && /ProviderError invalid-stream\/(not-json|not-sse)/.test(first.outcome + turn.outcome))) {
      failures.push({ kind: 'provider:cutting-changes-result', detail: `${first.label}: ${first.outcome.slice(0, 300)}; ${run.label}: ${turn.outcome.slice(0, 300)}` });
    }
    // A cut stream, or one with a record dropped, duplicated or swapped, never reports a complete
    // call with arguments other than the recording's.
    // Where the wire carries no order (OpenAI Chat, Ollama, Cohere, Gemini without partialArgs),
    // a dropped, duplicated or swapped record cannot be noticed: those count as notes, not failures.
    // So can Anthropic and Bedrock deltas swapped, repeated or lost inside an open block, Gemini
    // Interactions' inside an open step, and AG-UI's TOOL_CALL_ARGS / TOOL_CALL_CHUNK inside an
    // open call (its events carry no sequence number or offset).
    const recordMutation = /record/.test(c.mutation) && !c.mutation.startsWith('truncate-record');
    const deltasOnly = /\[(content_block_delta|contentBlockDelta|step\.delta|content\.delta|TOOL_CALL_ARGS|TOOL_CALL_CHUNK)(,(content_block_delta|contentBlockDelta|step\.delta|content\.delta|TOOL_CALL_ARGS|TOOL_CALL_CHUNK))?\]/.test(c.mutation);
    const noted = recordMutation && (ORDERLESS.has(c.provider) || deltasOnly) ? 'note:' : '';
    if (c.mutation !== 'bytes' && c.mutation !== 'none') {
      for (const [id, args] of turn.calls) {
        if (!base.calls.has(id)) {
          failures.push({ kind: `${noted}provider:${c.provider}:${c.mutation}:phantom-call`, detail: `${run.label}: call ${id} ${JSON.stringify(args)} not in the recording` });
        } else if (!sameValue(args, base.calls.get(id))) {
          failures.push({ kind: `${noted}provider:${c.provider}:${c.mutation}:silently-different-arguments`, detail: `${run.label}: call ${id} ${JSON.stringify(args)?.slice(0, 200)}, recording ${JSON.stringify(base.calls.get(id))?.slice(0, 200)}` });
        }
      }
    }
    if (c.mutation === 'none' && turn.outcome !== base.outcome) {
      failures.push({ kind: 'provider:cutting-changes-recording', detail: `${run.label}: ${turn.outcome.slice(0, 300)}; whole: ${base.outcome.slice(0, 300)}` });
    }
  }
  return dedupe(failures);
}

/** Run every check of a case. */
export async function check(c: FuzzCase): Promise<Failure[]> {
  return c.kind === 'json' ? checkJson(c) : checkProvider(c);
}

/** Escape an input for printing (every non-ASCII unit as `\uXXXX`). */
export function escaped(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
