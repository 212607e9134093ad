/**
 * The printed result: markdown tables ready to paste into the README, then the target check.
 *
 * @module
 */
import { REPARSE, STREAMING, type ContenderId } from './contenders.ts';
import type { Timing } from './measure.ts';
import {
  CHUNK_SIZES,
  LIMIT_CHUNK,
  REPARSE_BYTES,
  REPARSE_CHUNK,
  REPARSE_WORKLOADS,
  SCALING_BYTES,
  SCALING_CHUNK,
  TARGET_CHUNK,
} from './plan.ts';
import { WORKLOAD_IDS, WORKLOAD_LABELS, type WorkloadId } from './workloads.ts';

/** Everything one run measured, keyed by cell id (see `npm run bench -- --help`). */
export interface Results {
  readonly samples: Map<string, Timing>;
  /** The UTF-8 size of each generated text: `stream/<w>`, `reparse/<w>/<target>`, `scaling/long-string/<target>`. */
  readonly bytes: Map<string, number>;
  /** Partial parses that failed during the gate run of a re-parse cell. */
  readonly failures: Map<string, number>;
}

export interface RunInfo {
  readonly quick: boolean;
  readonly filter: string | undefined;
  readonly seconds: number;
  readonly environment: string;
}

const PEERS: readonly ContenderId[] = ['streamparser', 'jsonriver'];

const SHORT_LABELS: Readonly<Record<ContenderId, string>> = {
  fragments: 'argstream fragments + aggregator',
  fused: 'argstream fused',
  streamparser: '@streamparser/json',
  jsonriver: 'jsonriver¹',
  'partial-json': 'partial-json `parse`',
  'ai-sdk': 'ai `parsePartialJson`²',
  'fragments+snapshot': 'argstream fragments + aggregator + `snapshot()` per chunk',
  'fused+snapshot': 'argstream fused + `snapshot()` per chunk',
};

interface Target {
  readonly label: string;
  readonly measured: number | undefined;
  readonly comparison: '≥' | '≤';
  readonly threshold: number;
}

/** Prints the tables and the target check to stdout. */
export function printReport(results: Results, info: RunInfo): void {
  const lines: string[] = [];
  const out = (line = ''): void => {
    lines.push(line);
  };
  const throughput = (cell: string, bytesKey: string): number | undefined => {
    const sample = results.samples.get(cell);
    const bytes = results.bytes.get(bytesKey);
    return sample === undefined || bytes === undefined ? undefined : bytes / 1e6 / (sample.medianMs / 1000);
  };
  const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined || b === undefined ? undefined : a / b;
  const bestPeer = (workload: WorkloadId, chunk: number): number | undefined => {
    const speeds = PEERS.map((peer) => throughput(`stream/${workload}/${chunk}/${peer}`, `stream/${workload}`));
    return speeds.some((speed) => speed === undefined) ? undefined : Math.max(...(speeds as number[]));
  };

  out(`## argstream benchmark`);
  out();
  out(
    `${info.environment}. Median of ${info.quick ? 'up to 3 runs (--quick)' : 'up to 7 runs'} after warm-up, ` +
      `a full GC and one untimed run before each timed run; MB = 10⁶ UTF-8 bytes of JSON text.` +
      (info.filter === undefined ? '' : ` Filter: \`${info.filter}\`.`),
  );
  out();

  // Streaming throughput.
  out(`### Streaming throughput, MB/s (higher is better)`);
  out();
  out(
    `| workload | chunk | ${STREAMING.map((c) => SHORT_LABELS[c.id]).join(' | ')} | ` +
      `fragments ÷ best peer | fused ÷ best peer |`,
  );
  out(`|---|--:|${STREAMING.map(() => '--:|').join('')}--:|--:|`);
  for (const workload of WORKLOAD_IDS) {
    const bytes = results.bytes.get(`stream/${workload}`);
    if (bytes === undefined) continue;
    for (const chunk of CHUNK_SIZES) {
      const speeds = STREAMING.map((c) => throughput(`stream/${workload}/${chunk}/${c.id}`, `stream/${workload}`));
      if (speeds.every((speed) => speed === undefined)) continue;
      const peer = bestPeer(workload, chunk);
      out(
        `| ${WORKLOAD_LABELS[workload]} (${megabytes(bytes)}) | ${chunk} | ${speeds.map(formatSpeed).join(' | ')} | ` +
          `${formatRatio(ratio(throughput(`stream/${workload}/${chunk}/fragments`, `stream/${workload}`), peer))} | ` +
          `${formatRatio(ratio(throughput(`stream/${workload}/${chunk}/fused`, `stream/${workload}`), peer))} |`,
      );
    }
  }
  out();

  // The JSON.parse limit.
  out(`### Against \`JSON.parse\` on the whole text (the limit), MB/s`);
  out();
  out(
    `| workload | \`JSON.parse\` | fragments + aggregator @ ${LIMIT_CHUNK} | fused @ ${LIMIT_CHUNK} | ` +
      `fragments ÷ \`JSON.parse\` | fused ÷ \`JSON.parse\` |`,
  );
  out(`|---|--:|--:|--:|--:|--:|`);
  for (const workload of WORKLOAD_IDS) {
    const bytesKey = `stream/${workload}`;
    const limit = throughput(`stream/${workload}/whole/json-parse`, bytesKey);
    if (results.bytes.get(bytesKey) === undefined || limit === undefined) continue;
    const viaFragments = throughput(`stream/${workload}/${LIMIT_CHUNK}/fragments`, bytesKey);
    const viaFused = throughput(`stream/${workload}/${LIMIT_CHUNK}/fused`, bytesKey);
    out(
      `| ${WORKLOAD_LABELS[workload]} | ${formatSpeed(limit)} | ${formatSpeed(viaFragments)} | ${formatSpeed(viaFused)} | ` +
        `${formatRatio(ratio(viaFragments, limit))} | ${formatRatio(ratio(viaFused, limit))} |`,
    );
  }
  out();

  // The re-parse approach.
  const [smallBytes, largeBytes] = REPARSE_BYTES;
  out(`### Re-parsing the accumulated buffer vs parsing incrementally, ${REPARSE_CHUNK}-character chunks`);
  out();
  out(
    `| workload | method | MB/s @ ~${smallBytes / 1000} KB | MB/s @ ~${largeBytes / 1000} KB | ` +
      `time @ ~${largeBytes / 1000} KB | time growth for ${largeBytes / smallBytes}× the text³ | failed partial parses⁴ |`,
  );
  out(`|---|---|--:|--:|--:|--:|--:|`);
  for (const workload of REPARSE_WORKLOADS) {
    for (const contender of REPARSE) {
      const small = `reparse/${workload}/${smallBytes}/${contender.id}`;
      const large = `reparse/${workload}/${largeBytes}/${contender.id}`;
      const largeSample = results.samples.get(large);
      const smallSample = results.samples.get(small);
      if (largeSample === undefined && smallSample === undefined) continue;
      const failures = results.failures.get(large) ?? results.failures.get(small);
      out(
        `| ${WORKLOAD_LABELS[workload]} | ${SHORT_LABELS[contender.id]} | ` +
          `${formatSpeed(throughput(small, `reparse/${workload}/${smallBytes}`))} | ` +
          `${formatSpeed(throughput(large, `reparse/${workload}/${largeBytes}`))} | ` +
          `${formatMs(largeSample?.medianMs)} | ` +
          `${formatRatio(ratio(largeSample?.medianMs, smallSample?.medianMs))} | ${failures ?? '–'} |`,
      );
    }
  }
  out();

  // Scaling.
  const [oneMb, tenMb] = SCALING_BYTES;
  const scaling = (contender: ContenderId): number | undefined =>
    ratio(
      results.samples.get(`scaling/long-string/${tenMb}/${contender}`)?.medianMs,
      results.samples.get(`scaling/long-string/${oneMb}/${contender}`)?.medianMs,
    );
  out(`### Scaling, ${WORKLOAD_LABELS['long-string']}, ${SCALING_CHUNK}-character chunks`);
  out();
  out(`| path | time @ ${megabytes(results.bytes.get(`scaling/long-string/${oneMb}`))} | time @ ${megabytes(results.bytes.get(`scaling/long-string/${tenMb}`))} | time ratio (linear = ${formatRatio((results.bytes.get(`scaling/long-string/${tenMb}`) ?? tenMb) / (results.bytes.get(`scaling/long-string/${oneMb}`) ?? oneMb))}) |`);
  out(`|---|--:|--:|--:|`);
  for (const contender of ['fused', 'fragments'] as const) {
    out(
      `| ${SHORT_LABELS[contender]} | ${formatMs(results.samples.get(`scaling/long-string/${oneMb}/${contender}`)?.medianMs)} | ` +
        `${formatMs(results.samples.get(`scaling/long-string/${tenMb}/${contender}`)?.medianMs)} | ${formatRatio(scaling(contender))} |`,
    );
  }
  out();
  out(
    `¹ jsonriver's \`parse\` reads an async iterable of strings, so every chunk costs at least one promise ` +
      `turn; that is its API, so it is in its time. The other streaming contenders are synchronous push APIs.  `,
  );
  out(
    `² \`parsePartialJson\` in \`ai\` v5 is async (it awaits \`safeParseJSON\`) and repairs the text with ` +
      `\`fixJson\` when it does not parse; each call is awaited.  `,
  );
  out(
    `³ Time at ~${largeBytes / 1000} KB ÷ time at ~${smallBytes / 1000} KB: a linear parser gives about ` +
      `${largeBytes / smallBytes}×, re-parsing the whole buffer per chunk about ${(largeBytes / smallBytes) ** 2}×.  `,
  );
  out(`⁴ Chunks after which the accumulated text could not be parsed (the value stays the previous one).`);
  out();

  // Targets.
  const targets: Target[] = [];
  const vsPeer = (contender: ContenderId, workload: WorkloadId, threshold: number): void => {
    targets.push({
      label: `${SHORT_LABELS[contender]} ÷ faster of @streamparser/json and jsonriver, ${WORKLOAD_LABELS[workload]} @ ${TARGET_CHUNK}`,
      measured: ratio(throughput(`stream/${workload}/${TARGET_CHUNK}/${contender}`, `stream/${workload}`), bestPeer(workload, TARGET_CHUNK)),
      comparison: '≥',
      threshold,
    });
  };
  vsPeer('fragments', 'long-string', 5);
  vsPeer('fragments', 'patterns', 5);
  vsPeer('fragments', 'small-objects', 2);
  vsPeer('fused', 'long-string', 5);
  vsPeer('fused', 'patterns', 5);
  vsPeer('fused', 'small-objects', 5);
  for (const contender of ['fused', 'fragments'] as const) {
    targets.push({
      label: `${SHORT_LABELS[contender]} @ ${LIMIT_CHUNK} ÷ \`JSON.parse\` on the whole text, ${WORKLOAD_LABELS['long-string']}`,
      measured: ratio(
        throughput(`stream/long-string/${LIMIT_CHUNK}/${contender}`, 'stream/long-string'),
        throughput('stream/long-string/whole/json-parse', 'stream/long-string'),
      ),
      comparison: '≥',
      threshold: 0.5,
    });
  }
  for (const contender of ['fused', 'fragments'] as const) {
    targets.push({
      label: `${SHORT_LABELS[contender]}: time for 10 MB ÷ time for 1 MB, ${WORKLOAD_LABELS['long-string']} @ ${SCALING_CHUNK}`,
      measured: scaling(contender),
      comparison: '≤',
      threshold: 11,
    });
  }
  out(`### Target check`);
  out();
  for (const target of targets) {
    const verdict =
      target.measured === undefined
        ? 'n/a (not measured)'
        : (target.comparison === '≥' ? target.measured >= target.threshold : target.measured <= target.threshold)
          ? 'PASS'
          : 'MISS';
    out(`- **${verdict}** ${target.label}: ${formatRatio(target.measured)} (target ${target.comparison} ${target.threshold}×)`);
  }
  out();
  out(`Run took ${info.seconds.toFixed(0)} s.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function formatSpeed(mbPerSecond: number | undefined): string {
  if (mbPerSecond === undefined) return '–';
  return mbPerSecond >= 100 ? mbPerSecond.toFixed(0) : mbPerSecond >= 10 ? mbPerSecond.toFixed(1) : mbPerSecond.toFixed(2);
}

function formatRatio(value: number | undefined): string {
  if (value === undefined) return '–';
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 10 ? 1 : 2)} ms`;
}

function megabytes(bytes: number | undefined): string {
  return bytes === undefined ? '–' : `${(bytes / 1e6).toFixed(2)} MB`;
}
