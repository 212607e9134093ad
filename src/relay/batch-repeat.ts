/**
 * Runs of repeated entries in a batch of the relay's wire form (see wire-batch.ts): what lets a
 * whole argument document in one provider record (a dive a hundred arrays deep, a long array of
 * numbers, an object of many small members) relay in bytes of the order of the document's, where
 * one entry per event would cost several times it. Internal.
 *
 * - `[15, k, n]`: the last `k` entries of the batch again, `n` more times (each one of a repetition
 *   is the entry `k` places before it).
 * - `[16, k, t, v1, v2, …]`: the last `k` entries again once per `v`, with `t` replaced by `v` in
 *   every string inside them (then `v1` by `v2`, and so on).
 *
 * The writer makes them at `take`, from the batch's entries as written (it checks each repetition
 * against what the reader will make of it), only for entries with no object and no escape in them,
 * at most {@link MAX_EXPANDED} entries a batch. The reader makes the entries again and reads them
 * as if they had come one by one.
 *
 * @module
 */

/** The most entries a batch's runs stand for: the reader refuses more (a record cannot make a page do unbounded work). */
export const MAX_EXPANDED = 65_536;
/** The longest group a run repeats. */
export const MAX_GROUP = 8;
/** Batches of fewer entries are written as they are (a live stream's records: nothing to gain). */
const MIN_ENTRIES = 16;

/** Whether an entry may be part of a run: a coded entry with no object and no escape inside. */
function eligible(entry: string): boolean {
  return entry.charCodeAt(0) === 91 && entry !== '[0]' && entry.indexOf('{') === -1 && entry.indexOf('\\') === -1;
}

/**
 * `entry` with `t` made `v` in its strings. With no escape in it, a string's text is what lies
 * between two quotes, as the reader parses it.
 */
function substitute(entry: string, t: string, v: string): string {
  const parts = entry.split('"');
  for (let i = 1; i < parts.length; i += 2) parts[i] = (parts[i] as string).replaceAll(t, v);
  return parts.join('"');
}

/**
 * The first string in which `entry` differs from `group`'s entry at its place, as `[in the group,
 * in the entry]`; `undefined` when they differ outside their strings, or `null` when not at all.
 */
function difference(group: string, entry: string): readonly [string, string] | undefined | null {
  if (group === entry) return null;
  const a = group.split('"');
  const b = entry.split('"');
  if (a.length !== b.length) return undefined;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    // Outside strings the entries must be the same.
    return i % 2 === 0 ? undefined : [a[i] as string, b[i] as string];
  }
  return null;
}

/**
 * What `t` became from one repetition to the next (`group` → `entries`, `k` each), found at the
 * first string they differ in: `t` itself if they do not, `undefined` if nothing can be.
 */
function nextValue(entries: readonly string[], from: number, k: number, t: string | undefined): string | undefined {
  for (let j = 0; j < k; j++) {
    const found = difference(entries[from - k + j] as string, entries[from + j] as string);
    if (found === null) continue;
    if (found === undefined) return undefined;
    const [x, y] = found;
    if (t === undefined || x === t) return y;
    // The string holds `t` once: what surrounds it stays.
    const at = x.indexOf(t);
    if (at === -1 || x.indexOf(t, at + 1) !== -1) return undefined;
    const before = x.slice(0, at);
    const after = x.slice(at + t.length);
    if (y.length < before.length + after.length || !y.startsWith(before) || !y.endsWith(after)) return undefined;
    return y.slice(before.length, y.length - after.length);
  }
  return t;
}

/** Whether the `k` entries from `from` are the group before them with `t` made `v` in their strings. */
function repeats(entries: readonly string[], from: number, k: number, t: string, v: string): boolean {
  for (let j = 0; j < k; j++) {
    const entry = entries[from + j] as string;
    if (!eligible(entry) || substitute(entries[from - k + j] as string, t, v) !== entry) return false;
  }
  return true;
}

/** A run found at one place: how many entries it stands for, its entry, and the characters it saves. */
interface Run {
  readonly covered: number;
  readonly entry: string;
  readonly saved: number;
}

function plainLength(entries: readonly string[], from: number, to: number): number {
  let length = 0;
  for (let j = from; j < to; j++) length += (entries[j] as string).length + 1;
  return length;
}

/** The literal run of groups of `k` from `i` on, if any. */
function literalRun(entries: readonly string[], i: number, k: number, limit: number): Run | undefined {
  let m = 0;
  while (i + m < entries.length && m < limit && entries[i + m] === entries[i + m - k]) m++;
  const count = Math.floor(m / k);
  if (count === 0) return undefined;
  const entry = `[15,${k},${count}]`;
  return { covered: count * k, entry, saved: plainLength(entries, i, i + count * k) - entry.length - 1 };
}

/** The run of groups of `k` from `i` on with one string replaced, if any. */
function replacedRun(entries: readonly string[], i: number, k: number, limit: number): Run | undefined {
  // The first repetition names what it replaces: the first string the group differs in, whole.
  let t: string | undefined;
  for (let j = 0; j < k && t === undefined; j++) {
    if (i + j >= entries.length) return undefined;
    const found = difference(entries[i - k + j] as string, entries[i + j] as string);
    if (found === undefined) return undefined;
    if (found !== null) t = found[0];
  }
  if (t === undefined || t === '') return undefined;
  const first = t;
  const values: string[] = [];
  let at = i;
  while (at + k <= entries.length && at + k - i <= limit) {
    const v = nextValue(entries, at, k, values.length === 0 ? undefined : t);
    if (v === undefined || v === '' || !repeats(entries, at, k, t, v)) break;
    values.push(v);
    t = v;
    at += k;
  }
  if (values.length === 0) return undefined;
  let entry = `[16,${k},${JSON.stringify(first)}`;
  for (const v of values) entry += `,${JSON.stringify(v)}`;
  entry += ']';
  return { covered: at - i, entry, saved: plainLength(entries, i, at) - entry.length - 1 };
}

/**
 * A batch's entries with runs of repeated groups written as runs, where that is shorter. Linear:
 * at each place, each group size scans at most as far as the longest run found there, and the
 * writing goes on after it.
 */
export function withRuns(entries: readonly string[]): readonly string[] {
  if (entries.length < MIN_ENTRIES || entries.length > MAX_EXPANDED) return entries;
  const out: string[] = [];
  /** Entries written one by one since the last run or ineligible entry: a group is taken from them. */
  let plainFrom = 0;
  /** Entries the runs may still stand for. */
  let budget = MAX_EXPANDED;
  for (let i = 0; i < entries.length; ) {
    const entry = entries[i] as string;
    if (!eligible(entry)) {
      out.push(entry);
      i++;
      plainFrom = i;
      continue;
    }
    let best: Run | undefined;
    const room = i - plainFrom;
    for (let k = 1; k <= MAX_GROUP && k <= room; k++) {
      const literal = literalRun(entries, i, k, budget);
      const run = literal ?? replacedRun(entries, i, k, budget);
      if (run !== undefined && run.saved > 0 && (best === undefined || run.saved > best.saved)) best = run;
    }
    if (best === undefined) {
      out.push(entry);
      i++;
      continue;
    }
    out.push(best.entry);
    i += best.covered;
    budget -= best.covered;
    // The run's entries are the group for the next run.
  }
  return out;
}
