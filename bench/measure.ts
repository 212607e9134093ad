/**
 * Timing and the correctness gate: warm up, collect garbage before every sample and run the task
 * once untimed after the collection, time with `performance.now()` (or the process's CPU time,
 * `--cpu-time`), keep the median; compare every result with `JSON.parse`.
 *
 * @module
 */
import type { JsonValue } from '../src/types.ts';

/** How many times to run the measurements of one group. */
export interface MeasureOptions {
  /** Untimed runs of each member first, so the timed runs see optimised code. */
  readonly warmupRuns: number;
  /** At most this many timed rounds. */
  readonly maxRuns: number;
  /** At least this many timed rounds, whatever the budget. */
  readonly minRuns: number;
  /** Stop adding rounds (once `minRuns` are in) after this much timed work in the group. */
  readonly budgetMs: number;
  /**
   * A full GC before each sample (the default), so that no sample collects another member's
   * garbage. `false`: the garbage is collected as it comes, as in a server answering calls back
   * to back (one full GC before the group's timed rounds only).
   */
  readonly gcEachSample?: boolean;
}

/** One member of a measured group: a contender on its input. */
export interface Task {
  readonly work: () => JsonValue | Promise<JsonValue>;
  /** Async work is awaited; sync work is called without an await, so it pays no promise turn. */
  readonly isAsync: boolean;
}

/** The times of one measurement. */
export interface Timing {
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
}

/** The outcome of one measurement. */
export interface Sample extends Timing {
  /** The value of the last run, for the after-timing check (then dropped, not kept in memory). */
  readonly value: JsonValue;
}

const collectGarbage: () => void =
  typeof globalThis.gc === 'function'
    ? (globalThis.gc as () => void)
    : () => {
        /* no --expose-gc: samples may include a collection of the previous run's garbage */
      };

export const gcExposed = typeof globalThis.gc === 'function';

/**
 * What a sample measures: wall time (`performance.now()`), or the CPU time of the process
 * (`process.cpuUsage()`, user + system, every thread: V8's GC helpers too). Wall time is the
 * default; CPU time does not count the time the process waits for a core, so on a machine shared
 * with other work (more runnable threads than cores) it keeps the medians and ratios steady where
 * wall time gives whatever share of a core the process got.
 */
export type Clock = 'wall' | 'cpu';
let clock: Clock = 'wall';

export function setClock(value: Clock): void {
  clock = value;
}

export function clockName(): Clock {
  return clock;
}

/** Milliseconds on the chosen clock. */
export function clockNow(): number {
  if (clock === 'wall') return performance.now();
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Times every task of a group in interleaved rounds (A B C, B C A, C A B, …) and returns the
 * median per task. Interleaving means a noisy neighbour or a slow phase of the machine hits every
 * member alike, so the ratios between them (what the targets are about) stay fair.
 */
export async function measureGroup(tasks: readonly Task[], options: MeasureOptions): Promise<Sample[]> {
  const run = async (task: Task): Promise<JsonValue> => (task.isAsync ? await task.work() : (task.work() as JsonValue));
  const values: (JsonValue | undefined)[] = tasks.map(() => undefined);
  for (let round = 0; round < options.warmupRuns; round++) {
    for (let t = 0; t < tasks.length; t++) {
      collectGarbage();
      values[t] = await run(tasks[t] as Task);
    }
  }
  const times: number[][] = tasks.map(() => []);
  const gcEachSample = options.gcEachSample !== false;
  if (!gcEachSample) collectGarbage();
  let spent = 0;
  for (let round = 0; round < options.maxRuns && (round < options.minRuns || spent < options.budgetMs); round++) {
    for (let k = 0; k < tasks.length; k++) {
      const t = (k + round) % tasks.length;
      const task = tasks[t] as Task;
      if (gcEachSample) collectGarbage();
      // A full collection frees the previous runs' objects, and with them the hidden classes
      // that optimised code depends on: V8 deoptimises that code ("weak objects"), and the next
      // run would time re-optimisation rather than parsing. One untimed run after the collection
      // re-warms it, for every contender alike (without the collection, it brings this member's
      // code back after the others').
      if (!task.isAsync) task.work();
      else await task.work();
      const start = clockNow();
      const value = task.isAsync ? await task.work() : (task.work() as JsonValue);
      const elapsed = clockNow() - start;
      values[t] = value;
      (times[t] as number[]).push(elapsed);
      spent += elapsed;
    }
  }
  collectGarbage();
  return times.map((series, t) => {
    series.sort((a, b) => a - b);
    const middle = series.length >> 1;
    const medianMs =
      series.length % 2 === 1
        ? (series[middle] as number)
        : ((series[middle - 1] as number) + (series[middle] as number)) / 2;
    return { medianMs, minMs: series[0] as number, runs: series.length, value: values[t] as JsonValue };
  });
}

/**
 * Where `actual` first differs from `expected` (a JSON path), or `undefined` when they are the
 * same JSON value: same types, same numbers (`Object.is`), same strings, same keys in the same
 * order. Prototypes are not compared: a null-prototype object holds the same JSON.
 */
export function jsonDifference(actual: unknown, expected: unknown, path = '$'): string | undefined {
  if (expected === null || typeof expected !== 'object') {
    if (typeof expected === 'number' ? Object.is(actual, expected) : actual === expected) return undefined;
    if (typeof expected === 'string' && typeof actual === 'string') {
      let at = 0;
      while (at < expected.length && expected.charCodeAt(at) === actual.charCodeAt(at)) at++;
      return (
        `${path}: strings differ at index ${at} (lengths ${expected.length} and ${actual.length}): ` +
        `expected ${describe(expected.slice(at, at + 20))}, got ${describe(actual.slice(at, at + 20))}`
      );
    }
    return `${path}: expected ${describe(expected)}, got ${describe(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${describe(actual)}`;
    if (actual.length !== expected.length) {
      return `${path}: expected ${expected.length} items, got ${actual.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const difference = jsonDifference(actual[i], expected[i], `${path}[${i}]`);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
    return `${path}: expected an object, got ${describe(actual)}`;
  }
  const expectedKeys = Object.keys(expected);
  const actualKeys = Object.keys(actual);
  if (expectedKeys.join('\u0000') !== actualKeys.join('\u0000')) {
    return `${path}: expected keys ${describe(expectedKeys)}, got ${describe(actualKeys)}`;
  }
  for (const key of expectedKeys) {
    const difference = jsonDifference(
      (actual as Record<string, unknown>)[key],
      (expected as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
    if (difference !== undefined) return difference;
  }
  return undefined;
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
