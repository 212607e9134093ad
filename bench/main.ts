/**
 * `npm run bench`: argstream against `@streamparser/json`, `jsonriver`, `JSON.parse` and the
 * re-parse approach, in one process run; prints markdown tables and the target check.
 *
 * Options: `--quick` (fewer runs), `--filter <regex>` (only the cells whose id matches, e.g.
 * `stream/long-string/16/`, `fused`, `reparse/`, `scaling/`), `--help`.
 *
 * @module
 */
import { cpus } from 'node:os';
import {
  REPARSE,
  STREAMING,
  fragments,
  fused,
  type Contender,
} from './contenders.js';
import { gcExposed, jsonDifference, measure, type MeasureOptions } from './measure.js';
import {
  CHUNK_SIZES,
  FULL,
  QUICK,
  REPARSE_BYTES,
  REPARSE_CHUNK,
  REPARSE_WORKLOADS,
  SCALING_BYTES,
  SCALING_CHUNK,
  STREAM_BYTES,
} from './plan.js';
import { printReport, type Results } from './report.js';
import { WORKLOAD_IDS, chunkText, makeWorkload, type Workload } from './workloads.js';
import type { JsonValue } from '../src/types.js';

interface Cli {
  readonly quick: boolean;
  readonly filter: RegExp | undefined;
}

function parseCli(args: readonly string[]): Cli {
  let quick = false;
  let filter: RegExp | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--quick') quick = true;
    else if (arg === '--filter' || arg.startsWith('--filter=')) {
      const pattern = arg === '--filter' ? args[++i] : arg.slice('--filter='.length);
      if (pattern === undefined || pattern === '') {
        throw new Error('--filter needs a pattern, e.g. `--filter stream/long-string/16/`');
      }
      filter = new RegExp(pattern, 'i');
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: npm run bench -- [--quick] [--filter <regex>] [--cpu-prof]\n' +
          '  cell ids: stream/<workload>/<chunk>/<contender>, stream/<workload>/whole/json-parse,\n' +
          '            reparse/<workload>/<bytes>/<contender>, scaling/long-string/<bytes>/<contender>\n' +
          `  workloads: ${WORKLOAD_IDS.join(', ')}\n` +
          `  contenders: ${[...STREAMING, ...REPARSE].map((c) => c.id).filter(unique).join(', ')}\n`,
      );
      process.exit(0);
    } else {
      throw new Error(`unknown option ${arg}; try --help`);
    }
  }
  return { quick, filter };
}

function unique<T>(item: T, index: number, items: readonly T[]): boolean {
  return items.indexOf(item) === index;
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * The correctness gate: `contender` must produce exactly `JSON.parse(text)` from these chunks.
 * Fails the whole run loudly otherwise: a fast wrong answer is not a result.
 */
function assertSameValue(what: string, actual: JsonValue, expected: JsonValue): void {
  const difference = jsonDifference(actual, expected);
  if (difference !== undefined) {
    throw new Error(`correctness gate failed for ${what}: ${difference}`);
  }
}

async function gate(contender: Contender, workload: Workload, chunks: readonly string[], expected: JsonValue) {
  const value = await contender.run(chunks);
  assertSameValue(`${contender.id} on ${workload.id} (${workload.bytes} bytes)`, value, expected);
}

async function main(): Promise<void> {
  const cli = parseCli(process.argv.slice(2));
  const settings = cli.quick ? QUICK : FULL;
  const selected = (id: string): boolean => cli.filter === undefined || cli.filter.test(id);
  const results: Results = { samples: new Map(), bytes: new Map(), failures: new Map() };
  const started = performance.now();

  if (!gcExposed) progress('warning: run under `node --expose-gc` (npm run bench does) for GC between samples');

  const record = async (
    id: string,
    contender: Contender,
    chunks: readonly string[],
    expected: JsonValue,
    options: MeasureOptions,
  ): Promise<void> => {
    const sample = await measure(() => contender.run(chunks), contender.async, options);
    assertSameValue(id, sample.value, expected);
    results.samples.set(id, sample);
    progress(`  ${id.padEnd(52)} ${sample.medianMs.toFixed(2).padStart(10)} ms  (median of ${sample.runs})`);
  };

  // 1. Streaming throughput on ~1 MB, every chunk size, plus JSON.parse on the whole text.
  for (const workloadId of WORKLOAD_IDS) {
    const prefix = `stream/${workloadId}/`;
    const cells = STREAMING.flatMap((c) => CHUNK_SIZES.map((size) => `${prefix}${size}/${c.id}`));
    const limitId = `${prefix}whole/json-parse`;
    if (!cells.some(selected) && !selected(limitId)) continue;
    const workload = makeWorkload(workloadId, STREAM_BYTES);
    const expected = JSON.parse(workload.text) as JsonValue;
    results.bytes.set(`stream/${workloadId}`, workload.bytes);
    progress(`${workload.id}: ${workload.label}, ${workload.bytes} bytes`);
    const gateChunks = chunkText(workload.text, 16);
    for (const contender of STREAMING) {
      if (CHUNK_SIZES.some((size) => selected(`${prefix}${size}/${contender.id}`))) {
        await gate(contender, workload, gateChunks, expected);
      }
    }
    if (selected(limitId)) {
      const text = workload.text;
      const sample = await measure(() => JSON.parse(text) as JsonValue, false, settings.limit);
      results.samples.set(limitId, sample);
      progress(`  ${limitId.padEnd(52)} ${sample.medianMs.toFixed(2).padStart(10)} ms  (median of ${sample.runs})`);
    }
    for (const size of CHUNK_SIZES) {
      const chunks = chunkText(workload.text, size);
      for (const contender of STREAMING) {
        const id = `${prefix}${size}/${contender.id}`;
        if (selected(id)) await record(id, contender, chunks, expected, settings.stream);
      }
    }
  }

  // 2. The re-parse approach (and argstream) at 16-character chunks on ~25 KB and ~100 KB. The
  //    gate runs once per contender and workload, on the small text; every timed run is checked.
  for (const workloadId of REPARSE_WORKLOADS) {
    const cells = REPARSE.flatMap((c) => REPARSE_BYTES.map((bytes) => `reparse/${workloadId}/${bytes}/${c.id}`));
    if (!cells.some(selected)) continue;
    const gated = new Set<Contender>();
    for (const targetBytes of REPARSE_BYTES) {
      const workload = makeWorkload(workloadId, targetBytes);
      const expected = JSON.parse(workload.text) as JsonValue;
      results.bytes.set(`reparse/${workloadId}/${targetBytes}`, workload.bytes);
      progress(`${workload.id} for re-parse: ${workload.bytes} bytes at ${REPARSE_CHUNK}-char chunks`);
      const chunks = chunkText(workload.text, REPARSE_CHUNK);
      for (const contender of REPARSE) {
        const id = `reparse/${workloadId}/${targetBytes}/${contender.id}`;
        if (!selected(id)) continue;
        if (!gated.has(contender)) {
          await gate(contender, workload, chunks, expected);
          gated.add(contender);
        }
        const options = targetBytes === REPARSE_BYTES[0] ? settings.reparseSmall : settings.reparseLarge;
        await record(id, contender, chunks, expected, options);
        if (contender.failures !== undefined) results.failures.set(id, contender.failures);
      }
    }
  }

  // 3. Scaling: 10 MB against 1 MB of the long-string workload, both argstream paths.
  const scalingContenders = [fused, fragments];
  const scalingCells = scalingContenders.flatMap((c) =>
    SCALING_BYTES.map((bytes) => `scaling/long-string/${bytes}/${c.id}`),
  );
  if (scalingCells.some(selected)) {
    for (const targetBytes of SCALING_BYTES) {
      const workload = makeWorkload('long-string', targetBytes);
      const expected = JSON.parse(workload.text) as JsonValue;
      results.bytes.set(`scaling/long-string/${targetBytes}`, workload.bytes);
      progress(`long-string for scaling: ${workload.bytes} bytes at ${SCALING_CHUNK}-char chunks`);
      const chunks = chunkText(workload.text, SCALING_CHUNK);
      for (const contender of scalingContenders) {
        const id = `scaling/long-string/${targetBytes}/${contender.id}`;
        if (!selected(id)) continue;
        await gate(contender, workload, chunks, expected);
        await record(id, contender, chunks, expected, settings.scaling);
      }
    }
  }

  const seconds = (performance.now() - started) / 1000;
  printReport(results, {
    quick: cli.quick,
    filter: cli.filter?.source,
    seconds,
    environment: `Node ${process.version}, ${process.platform}/${process.arch}, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
