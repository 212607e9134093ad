/**
 * Runs of repeated entries in a batch of the relay's wire form (see wire-batch.ts): what lets a
 * whole argument document in one provider record (a dive a hundred arrays deep, a long array of
 * numbers, rows of small objects) relay in bytes of the order of the document's, where one entry
 * per event would cost several times it. Internal.
 *
 * An entry's *values* are the strings, `true`, `false` and `null` inside it, in order; the rest (its
 * numbers and brackets) is its *shape*. A run stands for entries made from earlier ones of the
 * batch (each from the one `d` places before it, so a run may repeat what it made itself):
 *
 * - `[15, d, n]`: `n` entries, each the one `d` before it;
 * - `[16, k, t, v1, v2, …]`: the last `k` entries again once per `v`, with `t` replaced by `v` in
 *   every string inside them (then `v1` by `v2`, and so on): one value that changes, wherever it
 *   appears;
 * - `[17, d, n, x…]`: `n` entries, each the one `d` before it with its values replaced in order by
 *   the `x`s (`0` keeps the value): rows of the same shapes whose values change.
 *
 * The writer makes them at `take`, from the batch's entries as written, for entries with no object
 * in them (and no escape, for `[16]`), at most {@link MAX_EXPANDED} entries a batch, only where they
 * are shorter, and checks each against what the reader will make of it. The reader makes the
 * entries again and reads them as if they had come one by one.
 *
 * @module
 */

/** The most entries a batch's runs stand for: the reader refuses more (a record cannot make a page do unbounded work). */
export const MAX_EXPANDED = 65_536;
/** The longest group `[16]` repeats. */
export const MAX_GROUP = 32;
/** The farthest back `[15]` and `[17]` copy from. */
export const MAX_DISTANCE = 256;
/** How many earlier entries of the same shape the writer tries to copy from, the nearest first. */
const CANDIDATES = 8;
/** Batches of fewer entries are written as they are (a live stream's records: nothing to gain). */
const MIN_ENTRIES = 16;
/** The most entries one run stands for (the next run goes on from there): a run is found in bounded time. */
const MAX_RUN = 8192;


/** Whether a string of an entry may be replaced by text: the entry has no escape (its strings are what lies between two quotes). */
function plain(entry: string): boolean {
  return entry.indexOf('\\') === -1;
}

/** An entry cut into its shape and its values (as written: strings with their quotes). */
interface Cut {
  readonly shape: string;
  readonly values: readonly string[];
}

const VALUE = /"(?:[^"\\]|\\.)*"|true|false|null/g;

function cut(entry: string): Cut {
  const values: string[] = [];
  const shape = entry.replace(VALUE, (value) => {
    values.push(value);
    return '\u0000';
  });
  return { shape, values };
}

/** `entry` with `t` made `v` in its strings. */
function substitute(entry: string, t: string, v: string): string {
  const parts = entry.split('"');
  for (let i = 1; i < parts.length; i += 2) parts[i] = (parts[i] as string).replaceAll(t, v);
  return parts.join('"');
}

/** A run found at one place: how many entries it stands for, its entry, and the characters it saves. */
interface Run {
  readonly covered: number;
  readonly entry: string;
  readonly saved: number;
}

/** The batch's entries, each cut once, when first needed. */
class Entries {
  readonly #entries: readonly string[];
  readonly #cuts: Array<Cut | undefined>;

  constructor(entries: readonly string[]) {
    this.#entries = entries;
    this.#cuts = new Array<Cut | undefined>(entries.length);
  }

  get length(): number {
    return this.#entries.length;
  }

  at(i: number): string {
    return this.#entries[i] as string;
  }

  cut(i: number): Cut {
    return (this.#cuts[i] ??= cut(this.#entries[i] as string));
  }

  /** Whether entry `i` may be part of a run: a coded entry (not the reset) with no object inside. */
  eligible(i: number): boolean {
    const entry = this.#entries[i] as string;
    return entry.charCodeAt(0) === 91 && entry !== '[0]' && (entry.indexOf('{') === -1 || this.cut(i).shape.indexOf('{') === -1);
  }

  /** Characters of entries `from` to `to` as written one by one (with their commas). */
  plain(from: number, to: number): number {
    let length = 0;
    for (let j = from; j < to; j++) length += (this.#entries[j] as string).length + 1;
    return length;
  }
}

function run(entries: Entries, i: number, covered: number, entry: string): Run {
  return { covered, entry, saved: entries.plain(i, i + covered) - entry.length - 1 };
}

/** The entries from `i` on that are each the one `d` before it, as a run, if any. */
function literalRun(entries: Entries, i: number, d: number): Run | undefined {
  let m = 0;
  while (i + m < entries.length && m < MAX_RUN && entries.at(i + m) === entries.at(i + m - d)) m++;
  return m === 0 ? undefined : run(entries, i, m, `[15,${d},${m}]`);
}

/** How many entries from `i` on have the shape of the one `d` before them. */
function sameShapes(entries: Entries, i: number, d: number): number {
  let m = 0;
  while (i + m < entries.length && m < MAX_RUN && entries.eligible(i + m) && entries.cut(i + m).shape === entries.cut(i + m - d).shape) m++;
  return m;
}

/**
 * What `t` became from the group before `from` to the `k` entries at it, found at the first value
 * they differ in (`t` itself if none): `undefined` if no one value can be.
 */
function nextValue(entries: Entries, from: number, k: number, t: string | undefined): string | undefined {
  for (let j = 0; j < k; j++) {
    const a = entries.cut(from - k + j).values;
    const b = entries.cut(from + j).values;
    for (let p = 0; p < a.length; p++) {
      const x = a[p] as string;
      const y = b[p] as string;
      if (x === y) continue;
      if (x.charCodeAt(0) !== 34 || y.charCodeAt(0) !== 34) return undefined;
      const inner = x.slice(1, -1);
      const next = y.slice(1, -1);
      if (t === undefined || inner === t) return next;
      // The string holds `t` once: what surrounds it stays.
      const at = inner.indexOf(t);
      if (at === -1 || inner.indexOf(t, at + 1) !== -1) return undefined;
      const before = inner.slice(0, at);
      const after = inner.slice(at + t.length);
      if (next.length < before.length + after.length || !next.startsWith(before) || !next.endsWith(after)) return undefined;
      return next.slice(before.length, next.length - after.length);
    }
  }
  return t;
}

/** The run of groups of `k` from `i` on with one string replaced, over `m` entries of the same shapes. */
function replacedRun(entries: Entries, i: number, k: number, m: number): Run | undefined {
  // The first repetition names what it replaces: the first string the group differs in, whole.
  const first = nextValue(entries, i, k, undefined);
  if (first === undefined) return undefined;
  let t: string | undefined;
  for (let j = 0; j < k && t === undefined; j++) {
    const a = entries.cut(i - k + j).values;
    const b = entries.cut(i + j).values;
    for (let p = 0; p < a.length && t === undefined; p++) if (a[p] !== b[p]) t = (a[p] as string).slice(1, -1);
  }
  if (t === undefined || t === '') return undefined;
  const named: string = t;
  let current: string = t;
  let values = '';
  let at = i;
  for (; at + k <= i + m; at += k) {
    const v: string | undefined = at === i ? first : nextValue(entries, at, k, current);
    if (v === undefined || v === '') break;
    let whole = true;
    for (let j = 0; j < k && whole; j++) {
      const before = entries.at(at - k + j);
      whole = plain(before) && substitute(before, current, v) === entries.at(at + j);
    }
    if (!whole) break;
    values += `,"${v}"`;
    current = v;
  }
  return at === i ? undefined : run(entries, i, at - i, `[16,${k},"${named}"${values}]`);
}

/** The `m` entries from `i` on, of the shapes of those `d` before them, with their values given anew. */
function editedRun(entries: Entries, i: number, d: number, m: number): Run {
  let values = '';
  for (let j = 0; j < m; j++) {
    const a = entries.cut(i + j - d).values;
    const b = entries.cut(i + j).values;
    for (let p = 0; p < b.length; p++) values += b[p] === a[p] ? ',0' : `,${b[p] as string}`;
  }
  return run(entries, i, m, `[17,${d},${m}${values}]`);
}

function better(a: Run | undefined, b: Run | undefined): Run | undefined {
  if (b === undefined || b.saved <= 0) return a;
  return a === undefined || b.saved > a.saved ? b : a;
}

/**
 * A batch's entries with runs written as runs, where that is shorter. At each place, the writer tries
 * the nearest earlier entries of the same shape (and, for `[16]`, the groups just before), and runs
 * scan forward only as far as they go; the writing goes on after the run it takes.
 */
export function withRuns(list: readonly string[]): readonly string[] {
  if (list.length < MIN_ENTRIES || list.length > MAX_EXPANDED) return list;
  const entries = new Entries(list);
  const out: string[] = [];
  /** Where the entries a run may be made from start (after the last one no run may hold). */
  let from = 0;
  /** The places of the entries of each shape, the nearest last. */
  const places = new Map<string, number[]>();
  const seen = (i: number) => {
    const shape = entries.cut(i).shape;
    const list = places.get(shape);
    if (list === undefined) places.set(shape, [i]);
    else {
      list.push(i);
      if (list.length > 4 * CANDIDATES) list.splice(0, list.length - CANDIDATES);
    }
  };
  for (let i = 0; i < entries.length; ) {
    const entry = entries.at(i);
    if (!entries.eligible(i)) {
      out.push(entry);
      i++;
      from = i;
      places.clear();
      continue;
    }
    let best: Run | undefined;
    /** Where the best run starts: `[16]` may do better a few entries on, where its group begins. */
    let at = i;
    const earlier = places.get(entries.cut(i).shape);
    if (earlier !== undefined) {
      for (let c = earlier.length - 1, tried = 0; c >= 0 && tried < CANDIDATES; c--, tried++) {
        const d = i - (earlier[c] as number);
        if (d > MAX_DISTANCE || i - d < from) break;
        const literal = literalRun(entries, i, d);
        if (better(best, literal) !== best) [best, at] = [literal, i];
        const m = sameShapes(entries, i, d);
        if (literal !== undefined && literal.covered === m) continue;
        const edited = editedRun(entries, i, d, m);
        if (better(best, edited) !== best) [best, at] = [edited, i];
        if (d > MAX_GROUP || m < 2 * d) continue;
        // One value replaced in groups of d, the group starting at any of the next d entries.
        for (let o = 0; o < d; o++) {
          const replaced = replacedRun(entries, i + o, d, m - o);
          if (better(best, replaced) !== best) [best, at] = [replaced, i + o];
        }
      }
    }
    if (best === undefined) {
      out.push(entry);
      seen(i);
      i++;
      continue;
    }
    for (; i < at; i++) {
      out.push(entries.at(i));
      seen(i);
    }
    out.push(best.entry);
    for (let j = 0; j < best.covered; j++) seen(i + j);
    i += best.covered;
  }
  return out;
}
