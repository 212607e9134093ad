/**
 * What the benchmark measures and how often: sizes, chunk sizes and run counts, shared by the
 * runner and the report.
 *
 * @module
 */
import type { MeasureOptions } from './measure.ts';

/** Chunk sizes of the streaming table, in UTF-16 code units (never splitting a character). */
export const CHUNK_SIZES = [4, 16, 256, 4096, 65536] as const;
/** The chunk size the targets against the incremental peers are stated at. */
export const TARGET_CHUNK = 16;
/** The chunk size of the fragment path's `JSON.parse` target. */
export const LIMIT_CHUNK = 4096;
/**
 * The chunk sizes whose group also times `JSON.parse` of the whole text (the limit), so the fused
 * engine's ratio to it at each of them comes from runs interleaved with it: the reads of a
 * `fetch` body are 16–64 KiB.
 */
export const LIMIT_CHUNKS = [4096, 65536] as const;
/** The chunk sizes of the fused engine's target against json-ext `parseChunked`. */
export const JSON_EXT_CHUNKS = [16, 256, 4096, 65536] as const;
export const STREAM_BYTES = 1_000_000;
/** The re-parse approach runs on a quarter and the whole of ~100 KB, to show its growth. */
export const REPARSE_BYTES = [25_000, 100_000] as const;
/**
 * The re-parse approach is quadratic, so it runs on two workloads only (seconds per run): the
 * long string, argstream's main case, and the small objects, the structure-heavy one.
 */
export const REPARSE_WORKLOADS = ['long-string', 'small-objects'] as const;
export const REPARSE_CHUNK = 16;
export const SCALING_BYTES = [1_000_000, 10_000_000] as const;
export const SCALING_CHUNK = 16;

/** Run counts per kind of measurement. */
export interface Settings {
  readonly stream: MeasureOptions;
  readonly reparseSmall: MeasureOptions;
  readonly reparseLarge: MeasureOptions;
  readonly scaling: MeasureOptions;
}

/** Budgets are per group of interleaved cells (the 4–6 contenders compared with each other). */
export const FULL: Settings = {
  stream: { warmupRuns: 2, maxRuns: 7, minRuns: 3, budgetMs: 4_000 },
  reparseSmall: { warmupRuns: 1, maxRuns: 5, minRuns: 2, budgetMs: 3_000 },
  reparseLarge: { warmupRuns: 0, maxRuns: 3, minRuns: 1, budgetMs: 2_500 },
  scaling: { warmupRuns: 2, maxRuns: 7, minRuns: 5, budgetMs: 5_000 },
};

export const QUICK: Settings = {
  stream: { warmupRuns: 1, maxRuns: 3, minRuns: 2, budgetMs: 1_000 },
  reparseSmall: { warmupRuns: 1, maxRuns: 2, minRuns: 1, budgetMs: 500 },
  reparseLarge: { warmupRuns: 0, maxRuns: 1, minRuns: 1, budgetMs: 0 },
  scaling: { warmupRuns: 1, maxRuns: 2, minRuns: 1, budgetMs: 1_000 },
};
