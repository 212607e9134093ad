/**
 * What `immutableSnapshots: true` costs: the fused engine parsing ~1 MB at 16-character chunks
 * and taking a `snapshot()` after every 256th chunk or after every chunk, live (the default) vs
 * shared (structurally shared, never mutated). Each figure is the whole run (pushes, snapshots,
 * `end()`), median of 5 after a warm-up run, the two modes interleaved.
 *
 * `measureSharedSnapshots()` is for the benchmark report. To run it alone (Node 20 cannot run
 * TypeScript itself, so bundle it as `bench/run.mjs` does):
 *
 * ```sh
 * npx esbuild bench/shared-snapshots.ts --bundle --platform=node --format=esm --target=node20 \
 *   --packages=external --outfile=node_modules/.cache/argstream-bench/shared-snapshots.mjs \
 *   && node --expose-gc node_modules/.cache/argstream-bench/shared-snapshots.mjs
 * ```
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { performance } from 'node:perf_hooks';
import { IncrementalJsonValueParser } from '../src/json/incremental-json-value-parser.ts';
import type { JsonValue } from '../src/types.ts';
import { chunkText, makeWorkload, type WorkloadId } from './workloads.ts';

/** One measured cell: `workload` names the text and the snapshot cadence (also in `every`). */
export interface SharedSnapshotTiming {
  workload: string;
  /** Chunk size in UTF-16 code units. */
  chunk: number;
  /** A snapshot after every `every`-th chunk. */
  every: number;
  /** Snapshots taken per run. */
  snapshots: number;
  liveMs: number;
  sharedMs: number;
}

const CHUNK = 16;
const CADENCES = [256, 1];
const WORKLOADS: WorkloadId[] = ['small-objects', 'long-string'];

function run(chunks: readonly string[], every: number, immutableSnapshots: boolean): IncrementalJsonValueParser {
  const parser = new IncrementalJsonValueParser({ immutableSnapshots });
  for (let i = 0; i < chunks.length; i++) {
    parser.push(chunks[i] as string);
    if ((i + 1) % every === 0) parser.snapshot();
  }
  parser.end();
  return parser;
}

function timed(chunks: readonly string[], every: number, shared: boolean): number {
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  run(chunks, every, shared);
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Times live vs shared snapshots on ~1 MB of small objects and a ~1 MB string: median of `runs`
 * (5) timed runs per cell. The small objects with a snapshot after every chunk take the longest
 * (seconds per run in shared mode).
 */
export async function measureSharedSnapshots({ runs = 5, cadences = CADENCES }: { runs?: number; cadences?: readonly number[] } = {}): Promise<SharedSnapshotTiming[]> {
  const rows: SharedSnapshotTiming[] = [];
  for (const id of WORKLOADS) {
    const workload = makeWorkload(id, 1_000_000);
    const chunks = chunkText(workload.text, CHUNK);
    for (const every of cadences) {
      // Warm-up, and the gate: both modes' snapshots of the whole value are the value.
      const expected: JsonValue = JSON.parse(workload.text);
      for (const shared of [false, true]) {
        if (!isDeepStrictEqual(run(chunks, every, shared).snapshot(), expected)) {
          throw new Error(`${shared ? 'shared' : 'live'} snapshot differs from JSON.parse on ${id}`);
        }
      }
      const live: number[] = [];
      const shared: number[] = [];
      for (let round = 0; round < runs; round++) {
        // Interleaved, alternating which goes first.
        if (round % 2 === 0) {
          live.push(timed(chunks, every, false));
          shared.push(timed(chunks, every, true));
        } else {
          shared.push(timed(chunks, every, true));
          live.push(timed(chunks, every, false));
        }
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      rows.push({
        workload: `${workload.label}, snapshot every ${every === 1 ? 'chunk' : `${every}th chunk`}`,
        chunk: CHUNK,
        every,
        snapshots: Math.floor(chunks.length / every),
        liveMs: median(live),
        sharedMs: median(shared),
      });
    }
  }
  return rows;
}

// Run alone (the bundle named in the module comment), not when imported by another bench.
if (/shared-snapshots\.m?[jt]s$/.test(process.argv[1] ?? '')) {
  const runs = 5;
  const rows = await measureSharedSnapshots({ runs });
  console.log(`node ${process.version}, fused engine, ${CHUNK}-character chunks, median of ${runs}\n`);
  console.log('| workload | snapshots | live ms | shared ms | shared ÷ live | extra µs per snapshot |\n|---|---:|---:|---:|---:|---:|');
  for (const { workload, snapshots, liveMs, sharedMs } of rows) {
    const extra = ((sharedMs - liveMs) * 1000) / snapshots;
    console.log(`| ${workload} | ${snapshots} | ${liveMs.toFixed(1)} | ${sharedMs.toFixed(1)} | ${(sharedMs / liveMs).toFixed(2)} | ${extra.toFixed(1)} |`);
  }
}
