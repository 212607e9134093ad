/**
 * Timing and the correctness gate: warm up, collect a garbage before every sample, time with
 * `performance.now()`, keep the median; compare every result with `JSON.parse`.
 *
 * @module
 */
import type { JsonValue } from '../src/types.js';

/** How many times to run one measurement. */
export interface MeasureOptions {
  /** Untimed runs first, so the timed runs see optimised code. */
  readonly warmupRuns: number;
  /** At most this many timed runs. */
  readonly maxRuns: number;
  /** At least this many timed runs, whatever the budget. */
  readonly minRuns: number;
  /** Stop adding runs (once `minRuns` are in) after this much timed work. */
  readonly budgetMs: number;
}

/** The outcome of one measurement. */
export interface Sample {
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
  /** The value of the last run, for the after-timing check. */
  readonly value: JsonValue;
}

const collectGarbage: () => void =
  typeof globalThis.gc === 'function'
    ? (globalThis.gc as () => void)
    : () => {
        /* no --expose-gc: samples may include a collection of the previous run's garbage */
      };

export const gcExposed = typeof globalThis.gc === 'function';

/** Runs `work` (sync or async) under `options` and returns the median time. */
export async function measure(
  work: () => JsonValue | Promise<JsonValue>,
  isAsync: boolean,
  options: MeasureOptions,
): Promise<Sample> {
  let value: JsonValue | undefined;
  for (let i = 0; i < options.warmupRuns; i++) {
    collectGarbage();
    value = isAsync ? await work() : (work() as JsonValue);
  }
  const times: number[] = [];
  let spent = 0;
  while (times.length < options.maxRuns && (times.length < options.minRuns || spent < options.budgetMs)) {
    collectGarbage();
    const start = performance.now();
    // Sync contenders are called without an await so they are not charged a promise turn.
    value = isAsync ? await work() : (work() as JsonValue);
    const elapsed = performance.now() - start;
    times.push(elapsed);
    spent += elapsed;
  }
  collectGarbage();
  times.sort((a, b) => a - b);
  const middle = times.length >> 1;
  const medianMs =
    times.length % 2 === 1 ? (times[middle] as number) : ((times[middle - 1] as number) + (times[middle] as number)) / 2;
  return { medianMs, minMs: times[0] as number, runs: times.length, value: value as JsonValue };
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
