/**
 * The scanner's native fast path for runs of complete values: {@link findRun}, which the users of
 * the scanner that build values (the value parser, the value views, the turn builder's value
 * mode) give it. A bundle that only needs fragments (a page's store) does not hold it.
 *
 * @module
 */
import type { JsonObject, JsonValue } from '../types.ts';
import { RUN_MIN, escapedQuote, type RunSearch } from './scanner.ts';

/**
 * The search for a run's end ({@link runEnd}) is made only when this much of the chunk
 * is left: in short chunks it mostly finds no run worth taking (a record or two, not complete),
 * and reading for nothing cost code findings in 256-character chunks 12% of their time.
 */
const RUN_SEARCH_MIN = 1024;
/**
 * A string longer than this ends the search for a run's end ({@link runEnd}), and the
 * run stops before it: the token scanner decodes a long string natively as fast, and the search
 * would read it twice (a string that runs to the end of the chunk, once per chunk).
 */
const RUN_STRING = 1024;

/**
 * Whether the values `JSON.parse` made from `run` (`parsed`) could nest more than `levels` deep
 * (elements or members of the run are level 1). A container k levels deep needs k opening
 * brackets in the text, one of which opens a level-1 container, and every other level-1
 * container opens with a bracket of its own, so the depth is at most the brackets less the
 * level-1 containers, plus one. Brackets inside strings, and level-1 containers a duplicate key
 * replaced (not counted), only make the answer more cautious; with no bracket nothing nests.
 * Counting stops when it is known.
 */
function mayNestDeeper(run: string, parsed: JsonValue[] | JsonObject, levels: number): boolean {
  const values = Array.isArray(parsed) ? parsed : Object.values(parsed);
  let containers = 0;
  for (let k = 0; k < values.length; k++) {
    const value = values[k];
    if (typeof value === 'object' && value !== null) containers++;
  }
  const stop = levels + containers;
  let brackets = 0;
  for (let k = run.indexOf('{'); k !== -1 && brackets < stop; k = run.indexOf('{', k + 1)) brackets++;
  for (let k = run.indexOf('['); k !== -1 && brackets < stop; k = run.indexOf('[', k + 1)) brackets++;
  return brackets > 0 && brackets - containers + 1 > levels;
}

/** `JSON.parse` of a run of C's elements (`[run]`) or members (`{run}`), or `undefined` if it throws. */
function parseRun(run: string, object: boolean): JsonValue[] | JsonObject | undefined {
  try {
    return JSON.parse(object ? '{' + run + '}' : '[' + run + ']') as JsonValue[] | JsonObject;
  } catch {
    return undefined;
  }
}

/**
 * The native fast path for runs of complete values, for a visitor that takes them
 * (`JsonVisitor.values`): the value builder. Why: a document of many small values
 * (records, numbers) costs a JavaScript step per token here, and `JSON.parse` reads the same
 * text several times faster; in large chunks that decides the speed.
 *
 * A `RunFinder`. Called just after a comma inside the innermost container C (state: a value or a
 * key must follow). It finds where the last complete element or member of C in this chunk ends,
 * and parses the run up to there as `[run]` (or `{run}`), in two steps:
 * 1. A guess that reads nothing ({@link guessEnd}): right for most chunks of a long array of
 *    records or scalars, at the cost of one `lastIndexOf`.
 * 2. When there is no guess, or `JSON.parse` rejects it, or its depth is in doubt, and at least
 *    {@link RUN_SEARCH_MIN} characters are left: the search of
 *    {@link runEnd}, which reads the text's strings and brackets to find the end exactly (say
 *    records whose strings hold code, with brackets and `},` in them).
 *
 * Correctness does not rest on either: if `JSON.parse` accepts `[run]`, the run is a sequence of
 * complete values of C read by the same grammar this scanner applies, from the same state, and
 * the comma after it ends its last value (a number cannot go on), so the scanner would have
 * reached exactly this state at that comma with exactly these values (`JSON.parse` also keeps
 * `__proto__` as an own member, lets the last duplicate key win and reads numbers as it does for
 * the whole text). The limits are kept from the text, not from the values (a duplicate key can
 * hide a member): a guessed run is no longer than maxStringLength and its brackets are counted
 * ({@link mayNestDeeper}); a searched run stops before any longer string and any deeper value.
 * maxLength needs nothing: `n` already stops at it. Anything else — `JSON.parse` rejects both
 * (an error in the text), the comma is followed by only whitespace and another — returns `i` and
 * the run is scanned token by token, which finds the error and its exact offset, so errors, offsets and limits are the same for
 * every cutting and both engines. Work that ends in no run (a rejected guess, the search past
 * the run's end) is charged to a budget of the chunk's length, so the cost stays linear.
 *
 * Returns the comma after the run, with its values in `search.parsed`, or `i`.
 */
export function findRun(search: RunSearch, s: string, i: number, n: number, object: boolean, levels: number, maxStringLength: number): number {
  // The character that ended C's previous element (skipping whitespace before the comma).
  let b = i - 2;
  let t = 0;
  for (; b >= 0; b--) {
    t = s.charCodeAt(b);
    if (t !== 32 && t !== 10 && t !== 13 && t !== 9) break;
  }
  // In an object, only members whose values are objects go in runs (a map of records): for
  // scalar and string members a run costs more than it saves, since `JSON.parse` builds an
  // object whose members are then set again on C one by one (60,000 scalar members in 4 KiB
  // chunks: 72 ms with runs, 43 ms without).
  if (b < 0 || (object && t !== 125 /* } */)) return i;
  // A comma after only whitespace is an error the token scanner reports (`[ ]` would parse).
  let f = i;
  let c = f < n ? s.charCodeAt(f) : 0;
  while ((c === 32 || c === 10 || c === 13 || c === 9) && ++f < n) c = s.charCodeAt(f);
  if (c === 44 /* , */) return i;
  const guess = guessEnd(s, i, n, object, t, maxStringLength);
  if (guess - i >= RUN_MIN) {
    const run = s.slice(i, guess);
    const parsed = parseRun(run, object);
    // A value nested k levels takes at least 2k characters: only then can the run break maxDepth.
    if (parsed !== undefined && !(run.length > 2 * levels && mayNestDeeper(run, parsed, levels))) {
      search.parsed = parsed;
      return guess;
    }
    search.budget -= run.length;
    if (search.budget <= 0) return i;
  }
  if (n - i < RUN_SEARCH_MIN) return i;
  const end = runEnd(search, s, i, n, levels, maxStringLength);
  if (end - i < RUN_MIN) return i;
  const parsed = parseRun(s.slice(i, end), object);
  if (parsed === undefined) {
    search.budget -= 2 * (end - i); // searched and parsed for nothing
    return i;
  }
  search.parsed = parsed;
  return end;
}

/**
 * Where the run that starts at `i` probably ends, without reading it: at the last `},` / `],` /
 * `",` (with an unescaped quote) before `n` when C's previous element ended with that character,
 * at the last comma otherwise; before C's own closer when C's elements do not end with it (the
 * run would likely leave C; a closer of a nested array or in a string stops the guess too, and
 * leaves the run to {@link runEnd}); no further than maxStringLength characters. -1 if there is
 * none.
 */
function guessEnd(s: string, i: number, n: number, object: boolean, t: number, maxStringLength: number): number {
  let limit = n;
  if (t !== (object ? 125 : 93)) {
    const close = s.indexOf(object ? '}' : ']', i);
    if (close !== -1 && close < limit) limit = close;
  }
  if (limit - i > maxStringLength) limit = i + maxStringLength + 1;
  if (limit - i < RUN_MIN) return -1;
  const pattern = t === 125 /* } */ ? '},' : t === 93 /* ] */ ? '],' : t === 34 /* " */ ? '",' : ',';
  let at = s.lastIndexOf(pattern, limit - pattern.length);
  if (t === 34) while (at >= i && escapedQuote(s, at, i)) at = s.lastIndexOf(pattern, at - 1);
  return at < i ? -1 : at + pattern.length - 1; // the comma
}

/**
 * Where a run of C's values that starts at `i` can end: the last comma at C's own level in
 * `s[i, n)` before C closes, before a string that is not complete in the chunk or whose raw
 * text is longer than maxStringLength (its decoded text is no longer) or {@link RUN_STRING},
 * and before a container
 * more than `levels` below C; -1 if there is none. It reads the text as JSON reads it: strings
 * are skipped with `indexOf` (a quote after an odd run of backslashes is escaped), brackets are
 * counted. So in valid JSON the comma it finds is one the token scanner would reach at C's
 * level; in invalid JSON it may not be, and `JSON.parse` rejects the run. Charges `search.budget`
 * what it read for nothing: past the comma, or all of it when the run is shorter than `RUN_MIN`.
 */
function runEnd(search: RunSearch, s: string, i: number, n: number, levels: number, maxStringLength: number): number {
  const maxString = Math.min(maxStringLength, RUN_STRING);
  let comma = -1;
  let nested = 0;
  let k = i;
  for (; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c === 34 /* " */) {
      let close = s.indexOf('"', k + 1);
      while (close !== -1 && close < n && close - k <= maxString && escapedQuote(s, close, k + 1)) close = s.indexOf('"', close + 1);
      if (close === -1 || close >= n || close - k - 1 > maxString) break;
      k = close;
    } else if (c === 44 /* , */) {
      if (nested === 0) comma = k;
    } else if ((c | 32) === 123 /* { [ */) {
      if (++nested > levels) break;
    } else if ((c | 32) === 125 /* } ] */) {
      if (nested-- === 0) break;
    }
  }
  // What was read past the run's end, or all of it when there is no run worth taking, was read for nothing.
  search.budget -= k - (comma - i < RUN_MIN ? i : comma);
  return comma;
}
