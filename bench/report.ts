/**
 * The printed result: markdown tables ready to paste into the README, then the target check.
 *
 * @module
 */
import type { SharedSnapshotTiming } from './shared-snapshots.ts';
import { REPARSE, STREAMING, type ContenderId } from './contenders.ts';
import type { Timing } from './measure.ts';
import {
  FEEDINGS,
  FEEDING_LABELS,
  OPEN_CALL_KB_TARGET,
  PIPELINE_PROVIDERS,
  PROVIDER_LABELS,
  PROVIDER_PATHS,
  PROVIDER_PATH_LABELS,
  README_TURN_PATHS,
  SDK_LABELS,
  STREAM_OVER_CORE_TARGET,
  TEXT_PATHS,
  TEXT_PATH_LABELS,
  TURN_OVER_LIMIT_TARGET,
  VIEWS,
  providerCellId,
  textCellId,
  type PipelineResults,
} from './pipeline.ts';
import {
  CHUNK_SIZES,
  JSON_EXT_CHUNKS,
  LIMIT_CHUNK,
  LIMIT_CHUNKS,
  REPARSE_BYTES,
  REPARSE_CHUNK,
  REPARSE_WORKLOADS,
  SCALING_BYTES,
  SCALING_CHUNK,
  TARGET_CHUNK,
} from './plan.ts';
import { WORKLOAD_IDS, WORKLOAD_LABELS, type WorkloadId } from './workloads.ts';
import { relayCellId, type RelayResults } from './relay.ts';
import {
  RELAY_PEERS_AI_SDK_7_OVER_ARGSTREAM_TARGET,
  RELAY_PEERS_LABELS,
  RELAY_PEERS_OVER_LIMIT_TARGET,
  RELAY_PEERS_ROWS,
  relayPeersCellId,
  type RelayPeersResults,
} from './relay-peers.ts';

/** Everything one run measured, keyed by cell id (see `npm run bench -- --help`). */
export interface Results {
  readonly samples: Map<string, Timing>;
  /** The UTF-8 size of each generated text: `stream/<w>`, `reparse/<w>/<target>`, `scaling/long-string/<target>`. */
  readonly bytes: Map<string, number>;
  /** Partial parses that failed during the gate run of a re-parse cell. */
  readonly failures: Map<string, number>;
  /** The pipeline benchmark (`bench/pipeline.ts`), when it ran. */
  pipeline?: PipelineResults;
  /** The relay of many concurrent paced streams (`bench/relay.ts`), when it ran. */
  relay?: RelayResults;
  /** The relay against the servers users write (`bench/relay-peers.ts`), when it ran. */
  relayPeers?: RelayPeersResults;
  /** Live vs structurally shared snapshots (`bench/shared-snapshots.ts`), when they ran. */
  sharedSnapshots?: readonly SharedSnapshotTiming[];
}

export interface RunInfo {
  readonly quick: boolean;
  readonly filter: string | undefined;
  /** Samples timed with the process's CPU time (`--cpu-time`) instead of wall time. */
  readonly cpuTime: boolean;
  readonly seconds: number;
  readonly environment: string;
}

const PEERS: readonly ContenderId[] = ['streamparser', 'jsonriver'];

const SHORT_LABELS: Readonly<Record<ContenderId, string>> = {
  fragments: 'argstream fragments + aggregator',
  fused: 'argstream fused',
  streamparser: '@streamparser/json',
  jsonriver: 'jsonriver¹',
  'json-ext': 'json-ext `parseChunked`⁵',
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
  /** How the measured value and the threshold are written; a ratio (`1.23×`) by default. */
  readonly unit?: 'KB';
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
  /** Time ratio (> 1: the fused engine is faster), from the same group of interleaved runs. */
  const fusedOverJsonExt = (workload: WorkloadId, chunk: number): number | undefined =>
    ratio(throughput(`stream/${workload}/${chunk}/fused`, `stream/${workload}`), throughput(`stream/${workload}/${chunk}/json-ext`, `stream/${workload}`));
  const fusedOverLimit = (workload: WorkloadId, chunk: number): number | undefined =>
    ratio(throughput(`stream/${workload}/${chunk}/fused`, `stream/${workload}`), throughput(`stream/${workload}/${chunk}/json-parse`, `stream/${workload}`));
  const bestPeer = (workload: WorkloadId, chunk: number): number | undefined => {
    const speeds = PEERS.map((peer) => throughput(`stream/${workload}/${chunk}/${peer}`, `stream/${workload}`));
    return speeds.some((speed) => speed === undefined) ? undefined : Math.max(...(speeds as number[]));
  };

  out(`## argstream benchmark`);
  out();
  out(
    `${info.environment}. Median of ${info.quick ? 'up to 3 runs (--quick)' : 'up to 7 runs'} after warm-up, ` +
      `a full GC and one untimed run before each timed run (the pipeline and the relay say how theirs are timed); ` +
      `MB = 10⁶ UTF-8 bytes of JSON text.` +
      (info.cpuTime
        ? ' Times are **CPU time** of the process (`--cpu-time`: `process.cpuUsage()`, user + system, every thread), not wall time.'
        : '') +
      (info.filter === undefined ? '' : ` Filter: \`${info.filter}\`.`),
  );
  out();

  // Streaming throughput.
  out(`### Streaming throughput, MB/s (higher is better)`);
  out();
  out(
    `| workload | chunk | ${STREAMING.map((c) => SHORT_LABELS[c.id]).join(' | ')} | ` +
      `fragments ÷ best peer | fused ÷ best peer | fused ÷ json-ext |`,
  );
  out(`|---|--:|${STREAMING.map(() => '--:|').join('')}--:|--:|--:|`);
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
          `${formatRatio(ratio(throughput(`stream/${workload}/${chunk}/fused`, `stream/${workload}`), peer))} | ` +
          `${formatRatio(fusedOverJsonExt(workload, chunk))} |`,
      );
    }
  }
  out();

  // The JSON.parse limit, timed in the group of each of these chunk sizes.
  out(`### Against \`JSON.parse\` on the whole text (the limit), MB/s`);
  out();
  out(`\`JSON.parse\` of the whole text is timed in the group of each chunk size below (interleaved with it).`);
  out();
  out(
    `| workload | chunk | \`JSON.parse\` | fragments + aggregator | fused | json-ext \`parseChunked\` | ` +
      `fragments ÷ \`JSON.parse\` | fused ÷ \`JSON.parse\` | json-ext ÷ \`JSON.parse\` |`,
  );
  out(`|---|--:|--:|--:|--:|--:|--:|--:|--:|`);
  for (const workload of WORKLOAD_IDS) {
    const bytesKey = `stream/${workload}`;
    if (results.bytes.get(bytesKey) === undefined) continue;
    for (const chunk of LIMIT_CHUNKS) {
      const limit = throughput(`stream/${workload}/${chunk}/json-parse`, bytesKey);
      if (limit === undefined) continue;
      const viaFragments = throughput(`stream/${workload}/${chunk}/fragments`, bytesKey);
      const viaFused = throughput(`stream/${workload}/${chunk}/fused`, bytesKey);
      const viaJsonExt = throughput(`stream/${workload}/${chunk}/json-ext`, bytesKey);
      out(
        `| ${WORKLOAD_LABELS[workload]} | ${chunk} | ${formatSpeed(limit)} | ${formatSpeed(viaFragments)} | ${formatSpeed(viaFused)} | ` +
          `${formatSpeed(viaJsonExt)} | ${formatRatio(ratio(viaFragments, limit))} | ${formatRatio(ratio(viaFused, limit))} | ` +
          `${formatRatio(ratio(viaJsonExt, limit))} |`,
      );
    }
  }
  out();

  // The fused engine against json-ext, the chunked parser a user who only wants the final value would pick.
  out(`### Fused engine ÷ json-ext \`parseChunked\` (time ratio, > 1: argstream faster)`);
  out();
  out(`| workload | ${CHUNK_SIZES.map((chunk) => `@ ${chunk}`).join(' | ')} |`);
  out(`|---|${CHUNK_SIZES.map(() => '--:|').join('')}`);
  for (const workload of WORKLOAD_IDS) {
    if (results.bytes.get(`stream/${workload}`) === undefined) continue;
    const row = CHUNK_SIZES.map((chunk) => formatRatio(fusedOverJsonExt(workload, chunk)));
    if (row.every((cell) => cell === '–')) continue;
    out(`| ${WORKLOAD_LABELS[workload]} | ${row.join(' | ')} |`);
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
  out(`⁴ Chunks after which the accumulated text could not be parsed (the value stays the previous one).  `);
  out(
    `⁵ json-ext's \`parseChunked\` gives the final value only (no partial values); it reads its iterable with ` +
      `\`for await\`, so every chunk costs a promise turn: that is its API, so it is in its time.`,
  );
  out();

  // Whole pipelines.
  const pipelineTargets = results.pipeline === undefined ? [] : pipelineSection(results.pipeline, out);

  // A relay of many concurrent streams.
  const relayTargets = results.relay === undefined ? [] : relaySection(results.relay, out);

  // The relay against the servers users write.
  const relayPeersTargets = results.relayPeers === undefined ? [] : relayPeersSection(results.relayPeers, out);

  // Snapshots a UI can render.
  if (results.sharedSnapshots !== undefined && results.sharedSnapshots.length > 0) {
    out(`### Snapshots a UI can render: live vs \`immutableSnapshots\``);
    out();
    out(
      `The fused engine on ~1 MB in ${results.sharedSnapshots[0]?.chunk}-character chunks, \`snapshot()\` every n-th chunk; ` +
        `median of the timed runs, live and shared interleaved. "Extra per snapshot" is (shared − live) ÷ snapshots.`,
    );
    out();
    out(`| workload | snapshots | live, ms | \`immutableSnapshots\`, ms | extra per snapshot |`);
    out(`|---|--:|--:|--:|--:|`);
    for (const row of results.sharedSnapshots) {
      const extra = row.snapshots > 0 ? ((row.sharedMs - row.liveMs) * 1000) / row.snapshots : 0;
      out(`| ${row.workload} | ${row.snapshots} | ${formatMs(row.liveMs)} | ${formatMs(row.sharedMs)} | ${extra.toFixed(1)} µs |`);
    }
    out();
  }

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
  targets.push({
    label: `${SHORT_LABELS.fragments} @ ${LIMIT_CHUNK} ÷ \`JSON.parse\` on the whole text, ${WORKLOAD_LABELS['long-string']}`,
    measured: ratio(
      throughput(`stream/long-string/${LIMIT_CHUNK}/fragments`, 'stream/long-string'),
      throughput(`stream/long-string/${LIMIT_CHUNK}/json-parse`, 'stream/long-string'),
    ),
    comparison: '≥',
    threshold: 0.5,
  });
  for (const workload of WORKLOAD_IDS) {
    for (const chunk of LIMIT_CHUNKS) {
      targets.push({
        label: `${SHORT_LABELS.fused} @ ${chunk} ÷ \`JSON.parse\` on the whole text, ${WORKLOAD_LABELS[workload]}`,
        measured: fusedOverLimit(workload, chunk),
        comparison: '≥',
        threshold: 0.5,
      });
    }
  }
  for (const workload of WORKLOAD_IDS) {
    for (const chunk of JSON_EXT_CHUNKS) {
      targets.push({
        label: `${SHORT_LABELS.fused} ÷ json-ext \`parseChunked\` (time ratio), ${WORKLOAD_LABELS[workload]} @ ${chunk}`,
        measured: fusedOverJsonExt(workload, chunk),
        comparison: '≥',
        threshold: 1.5,
      });
    }
  }
  for (const contender of ['fused', 'fragments'] as const) {
    targets.push({
      label: `${SHORT_LABELS[contender]}: time for 10 MB ÷ time for 1 MB, ${WORKLOAD_LABELS['long-string']} @ ${SCALING_CHUNK}`,
      measured: scaling(contender),
      comparison: '≤',
      threshold: 11,
    });
  }
  targets.push(...pipelineTargets, ...relayTargets, ...relayPeersTargets);
  out(`### Target check`);
  out();
  for (const target of targets) {
    const verdict =
      target.measured === undefined
        ? 'n/a (not measured)'
        : (target.comparison === '≥' ? target.measured >= target.threshold : target.measured <= target.threshold)
          ? 'PASS'
          : 'MISS';
    const measured = target.unit === 'KB' ? formatKb(target.measured) : formatRatio(target.measured);
    const threshold = target.unit === 'KB' ? `${target.threshold} KB` : `${target.threshold}×`;
    out(`- **${verdict}** ${target.label}: ${measured} (target ${target.comparison} ${threshold})`);
  }
  out();
  out(`Run took ${info.seconds.toFixed(0)} s.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The pipeline tables (`bench/pipeline.ts`): per provider, feeding and size the time of every
 * path and its ratio to the no-view limit; the argument text alone; stream ÷ core per view; the
 * heap of an open call. Returns the pipeline's targets for the target check.
 */
function pipelineSection(pipeline: PipelineResults, out: (line?: string) => void): Target[] {
  const targets: Target[] = [];
  const timings = pipeline.timings;
  if (timings.size === 0 && pipeline.memory.size === 0) return targets;
  const ms = (id: string): number | undefined => timings.get(id)?.medianMs;
  const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined || b === undefined ? undefined : a / b;
  const size = (bytes: number): string => (bytes >= 1_000_000 ? `${bytes / 1_000_000} MB` : `${bytes / 1000} KB`);
  const where = (provider: (typeof PIPELINE_PROVIDERS)[number], feeding: (typeof FEEDINGS)[number], bytes: number): string =>
    `${PROVIDER_LABELS[provider]}, ${FEEDING_LABELS[feeding]}, ${size(bytes)}`;

  out(`### Pipeline: one \`write_file\` tool call, streamed`);
  out();
  out(
    `The arguments \`{"path", "content"}\` (the long-string workload: source code with quotes, backslashes, newlines ` +
      `and non-ASCII) in seeded 10–40-character deltas, framed as each provider streams them and fed as ` +
      `\`Uint8Array\` reads of the response body (a pull source, one read per pull). ms per run: the median of the ` +
      `timed runs, each after one untimed run, with no forced GC (the garbage is collected as it comes, as in a ` +
      `server answering calls back to back); "× the limit" is that ÷ the no-view limit, from the same ` +
      `interleaved rounds. Every path's final arguments must equal the generated object ` +
      `(checked outside the timing) or the run fails.`,
  );
  out();
  for (const bytes of pipeline.sizes) {
    const argumentBytes = pipeline.argumentBytes.get(bytes);
    const settings = pipeline.settings.get(bytes);
    if (argumentBytes === undefined || settings === undefined) continue;
    out(
      `At ${size(bytes)}: ${settings.measure.minRuns}–${settings.measure.maxRuns} rounds per group ` +
        `(no more once a group has used ${settings.measure.budgetMs / 1000} s), ${settings.measure.warmupRuns} warm-up ` +
        `run${settings.measure.warmupRuns === 1 ? '' : 's'}${settings.gate ? ' after the correctness gate' : ''}` +
        (settings.repeat > 1
          ? `; a sample is ${settings.repeat} runs back to back (after ${settings.repeat} untimed runs), its time ÷ ${settings.repeat}.`
          : '.'),
    );
    out();
    for (const provider of PIPELINE_PROVIDERS) {
      for (const feeding of FEEDINGS) {
        const ids = PROVIDER_PATHS.map((path) => providerCellId(bytes, provider, feeding, path));
        if (ids.every((id) => !timings.has(id))) continue;
        const wire = pipeline.wire.get(`${bytes}/${provider}/${feeding}`);
        const limitMs = ms(providerCellId(bytes, provider, feeding, 'limit'));
        out(
          `#### ${where(provider, feeding, bytes)}: ${argumentBytes} bytes of arguments in ` +
            `${pipeline.deltas.get(bytes)} deltas, ${wire === undefined ? '–' : `${megabytes(wire.bytes)} of SSE in ${wire.reads} reads`}`,
        );
        out();
        out(`| path | ms | × the limit |`);
        out(`|---|--:|--:|`);
        for (const path of PROVIDER_PATHS) {
          const id = providerCellId(bytes, provider, feeding, path);
          if (!timings.has(id)) continue;
          const label = path === 'sdk' ? `${PROVIDER_PATH_LABELS.sdk}: ${SDK_LABELS[provider]}` : PROVIDER_PATH_LABELS[path];
          out(`| ${label} | ${formatMs(ms(id))} | ${formatRatio(ratio(ms(id), limitMs))} |`);
        }
        out();
      }
    }
    const textIds = TEXT_PATHS.map((path) => textCellId(bytes, path));
    if (textIds.some((id) => timings.has(id))) {
      const limitMs = ms(textCellId(bytes, 'limit'));
      out(`#### The argument text alone (no provider), ${argumentBytes} bytes in the same ${pipeline.deltas.get(bytes)} chunks`);
      out();
      out(`| path | ms | × \`JSON.parse\` |`);
      out(`|---|--:|--:|`);
      for (const path of TEXT_PATHS) {
        const id = textCellId(bytes, path);
        if (!timings.has(id)) continue;
        out(`| ${TEXT_PATH_LABELS[path]} | ${formatMs(ms(id))} | ${formatRatio(ratio(ms(id), limitMs))} |`);
      }
      out();
    }
  }

  // Turn with progress ÷ the limit, every size side by side: the issue's target for the README's ways.
  const turnPaths = PROVIDER_PATHS.filter((path) => README_TURN_PATHS.includes(path) || path === 'pipe-turn');
  const turnRows = PIPELINE_PROVIDERS.flatMap((provider) =>
    FEEDINGS.flatMap((feeding) => turnPaths.map((path) => ({ provider, feeding, path }))),
  ).filter((row) => pipeline.sizes.some((bytes) => timings.has(providerCellId(bytes, row.provider, row.feeding, row.path))));
  const turnSizes = pipeline.sizes.filter((bytes) =>
    turnRows.some((row) => timings.has(providerCellId(bytes, row.provider, row.feeding, row.path))),
  );
  if (turnRows.length > 0) {
    out(
      `#### Provider → turn with progress ÷ the no-view limit (target ≤ ${TURN_OVER_LIMIT_TARGET}× at every size for the ` +
        `README's ways: \`chain(…)\` from the body, \`fromResponse\` with stages)`,
    );
    out();
    out(`| provider | feeding | path | ${turnSizes.map(size).join(' | ')} |`);
    out(`|---|---|---|${turnSizes.map(() => '--:|').join('')}`);
    for (const { provider, feeding, path } of turnRows) {
      const cells = turnSizes.map((bytes) =>
        formatRatio(ratio(ms(providerCellId(bytes, provider, feeding, path)), ms(providerCellId(bytes, provider, feeding, 'limit')))),
      );
      out(`| ${PROVIDER_LABELS[provider]} | ${FEEDING_LABELS[feeding]} | ${TURN_SHORT_LABELS[path] ?? path} | ${cells.join(' | ')} |`);
    }
    out();
  }

  // Stream ÷ core per view.
  if (timings.size > 0) {
    out(`#### Stream ÷ core, per view (the cost of the streams over the same work done by the synchronous cores)`);
    out();
    out(`| view | input | core, ms | stream, ms | stream ÷ core | one identity hop + core, ms | stream ÷ (one identity hop + core) |`);
    out(`|---|---|--:|--:|--:|--:|--:|`);
  }
  for (const view of VIEWS) {
    let worst: { value: number; where: string } | undefined;
    for (const bytes of pipeline.sizes) {
      const inputs =
        view.input === 'text'
          ? [
              {
                where: `argument text alone, ${size(bytes)}`,
                core: textCellId(bytes, view.core),
                stream: textCellId(bytes, view.stream),
                hop: view.hop === undefined ? undefined : textCellId(bytes, view.hop),
              },
            ]
          : PIPELINE_PROVIDERS.flatMap((provider) =>
              FEEDINGS.map((feeding) => ({
                where: where(provider, feeding, bytes),
                core: providerCellId(bytes, provider, feeding, view.core),
                stream: providerCellId(bytes, provider, feeding, view.stream),
                hop: view.hop === undefined ? undefined : providerCellId(bytes, provider, feeding, view.hop),
              })),
            );
      for (const input of inputs) {
        if (!timings.has(input.core) && !timings.has(input.stream)) continue;
        const value = ratio(ms(input.stream), ms(input.core));
        out(
          `| ${view.label} | ${input.where} | ${formatMs(ms(input.core))} | ${formatMs(ms(input.stream))} | ${formatRatio(value)} | ` +
            `${input.hop !== undefined && timings.has(input.hop) ? `${formatMs(ms(input.hop))} | ${formatRatio(ratio(ms(input.stream), ms(input.hop)))}` : '– | –'} |`,
        );
        if (value !== undefined && (worst === undefined || value > worst.value)) worst = { value, where: input.where };
      }
    }
    if (worst !== undefined) {
      targets.push({
        label: `pipeline: stream ÷ core, ${view.label} (worst input: ${worst.where})`,
        measured: worst.value,
        comparison: '≤',
        threshold: STREAM_OVER_CORE_TARGET,
      });
    }
  }
  if (timings.size > 0) out();

  // The heap of one open call.
  if (pipeline.memory.size > 0) {
    out(`#### Heap of one open streaming call`);
    out();
    out(
      `\`chain(ProviderEventStream, ConversationEventStream({progress: true}))\` pipelines read by a consumer that drops ` +
        `what it reads, each fed the start of a call and ~2 KB of argument text (one SSE event per read) and not ended, ` +
        `all open at once; \`heapUsed\` after − before (full GCs first) ÷ the number of calls. "KB per open call" is the ` +
        `heap per call with ~2 KB of arguments minus the argument text a call must hold (its partial value, in V8's ` +
        `bytes). For scale, the same body and consumer with no stage, and through one identity \`TransformStream\`.`,
    );
    out();
    out(
      `| provider | open calls | for scale: the body read directly | for scale: body → one identity \`TransformStream\` | ` +
        `start of the call only | + ~2 KB of arguments | argument text held | KB per open call |`,
    );
    out(`|---|--:|--:|--:|--:|--:|--:|--:|`);
    for (const provider of PIPELINE_PROVIDERS) {
      const memory = pipeline.memory.get(provider);
      if (memory === undefined) continue;
      out(
        `| ${PROVIDER_LABELS[provider]} | ${memory.calls} | ${formatKb(memory.bodyOnlyBytesPerCall / 1024)} | ` +
          `${formatKb(memory.identityBytesPerCall / 1024)} | ` +
          `${formatKb(memory.startOnlyBytesPerCall / 1024)} | ` +
          `${formatKb(memory.grossBytesPerCall / 1024)} | ` +
          `${formatKb(memory.heldTextBytes / 1024)} (${memory.argumentChars} characters) | ${formatKb(memory.bytesPerCall / 1024)} |`,
      );
    }
    out();
  }

  // The per-provider targets: the README's ways to a turn with progress, at every size.
  for (const bytes of pipeline.sizes) {
    for (const provider of PIPELINE_PROVIDERS) {
      for (const feeding of FEEDINGS) {
        const limitMs = ms(providerCellId(bytes, provider, feeding, 'limit'));
        const sdk = ms(providerCellId(bytes, provider, feeding, 'sdk'));
        for (const path of README_TURN_PATHS) {
          const turn = ms(providerCellId(bytes, provider, feeding, path));
          if (turn === undefined) continue;
          targets.push({
            label: `pipeline: provider → turn with progress (${TURN_SHORT_LABELS[path]}) ÷ the no-view limit, ${where(provider, feeding, bytes)}`,
            measured: ratio(turn, limitMs),
            comparison: '≤',
            threshold: TURN_OVER_LIMIT_TARGET,
          });
          targets.push({
            label: `pipeline: provider → turn with progress (${TURN_SHORT_LABELS[path]}) ÷ the official SDK, ${where(provider, feeding, bytes)}`,
            measured: ratio(turn, sdk),
            comparison: '≤',
            threshold: 1,
          });
        }
      }
    }
  }
  for (const provider of PIPELINE_PROVIDERS) {
    const memory = pipeline.memory.get(provider);
    if (memory === undefined) continue;
    targets.push({
      label: `pipeline: heap per open streaming call, ${PROVIDER_LABELS[provider]}`,
      measured: memory.bytesPerCall / 1024,
      comparison: '≤',
      threshold: OPEN_CALL_KB_TARGET,
      unit: 'KB',
    });
  }
  return targets;
}

function formatKb(kb: number | undefined): string {
  return kb === undefined ? '–' : `${kb.toFixed(1)} KB`;
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

/** The turn paths, short, for the ratio table and the target check. */
const TURN_SHORT_LABELS: Partial<Record<string, string>> = {
  'stream-turn': '`chain(…)` from the body',
  'response-turn': '`fromResponse` with stages',
  'pipe-turn': 'plain `pipeThrough`, separate stages (for scale)',
};

/**
 * The relay table (`bench/relay.ts`): per provider, CPU per MB of provider SSE bytes for every
 * path, gross and net of the pacing's own cost (the baseline), per network piece, and against an
 * earlier build when one ran in the same rounds. Returns the relay's targets.
 */
function relaySection(relay: RelayResults, out: (line?: string) => void): Target[] {
  const targets: Target[] = [];
  if (relay.cells.length === 0) return targets;
  out(`### Relay: ${relay.streams} concurrent paced streams on one Node process`);
  out();
  out(
    `Each stream is the SSE of one \`write_file\` call (${relay.argumentBytes} bytes of arguments, as in the pipeline ` +
      `tables, one SSE event per read), a \`ReadableStream\` whose every read waits for a \`setImmediate\` tick, so all ` +
      `${relay.streams} streams interleave like network pieces from as many sockets; each goes through the path and is ` +
      `drained. CPU is \`process.cpuUsage()\` (user + system, every thread, GC included) over a pass of all ` +
      `${relay.streams} streams, median of the passes (paths interleaved in rounds); MB = 10⁶ bytes of provider SSE ` +
      `input. Net = gross − the baseline (the same paced bodies drained with no stage): what the path costs beyond ` +
      `the pacing. Every stream's output must have the same bytes as a gate run whose relayed field events rebuild the arguments.`,
  );
  out();
  const buildLabels = relay.builds.map((build) => `\`${build.id}\` = ${build.label}`).join('; ');
  if (relay.builds.length > 1) {
    out(`Builds: ${buildLabels}.`);
    out();
  }
  for (const [provider, wire] of relay.wire) {
    const cells = relay.cells.filter((cell) => cell.provider === provider);
    const relayedMb = (relay.streams * wire.bytes) / 1e6;
    const pieces = relay.streams * wire.reads;
    const baseline = cells.find((cell) => cell.path === 'baseline');
    const identity = cells.find((cell) => cell.path === 'identity');
    const net = (cpuUs: number | undefined): number | undefined =>
      cpuUs === undefined || baseline === undefined ? undefined : cpuUs - baseline.cpuUs;
    const perMb = (cpuUs: number | undefined): string => (cpuUs === undefined ? '–' : `${(cpuUs / 1000 / relayedMb).toFixed(1)} ms`);
    const perPiece = (cpuUs: number | undefined): string => (cpuUs === undefined ? '–' : `${(cpuUs / pieces).toFixed(2)} µs`);
    out(
      `#### ${PROVIDER_LABELS[provider]}: ${relay.streams} streams × ${(wire.bytes / 1e3).toFixed(1)} KB of SSE in ` +
        `${wire.reads} reads (${relayedMb.toFixed(1)} MB and ${pieces} network pieces per pass)`,
    );
    out();
    out(
      `| path | build | CPU per pass | CPU per MB, gross | CPU per MB, net | net per network piece | net ÷ identity hops (net) | ` +
        `sent on per stream | wall per pass | passes |`,
    );
    out(`|---|---|--:|--:|--:|--:|--:|--:|--:|--:|`);
    for (const cell of cells) {
      out(
        `| ${cell.label} | ${cell.build ?? '–'} | ${formatMs(cell.cpuUs / 1000)} | ${perMb(cell.cpuUs)} | ` +
          `${cell.path === 'baseline' ? '–' : perMb(net(cell.cpuUs))} | ${cell.path === 'baseline' ? '–' : perPiece(net(cell.cpuUs))} | ` +
          `${cell.path === 'baseline' || cell.path === 'identity' ? '–' : formatRatio(ratio(net(cell.cpuUs), net(identity?.cpuUs)))} | ` +
          `${(cell.outputBytes / 1000).toFixed(1)} KB | ${formatMs(cell.wallMs)} | ${cell.passes} |`,
      );
    }
    out();
    // This build against the earlier one, by the README's chains (the target), and without the progress events relayed.
    const comparisons = [
      { path: 'chain', before: 'chain', what: 'from the body', target: true },
      { path: 'chain-no-progress', before: 'chain', what: 'from the body, `FieldEventStream({ keepProgress: false })`', target: false },
      { path: 'response', before: 'response', what: 'from a `Response` (`fromResponse`)', target: true },
    ] as const;
    for (const { path, before: beforePath, what, target } of comparisons) {
      const now = relay.cells.find((cell) => cell.id === relayCellId(provider, path, 'this'));
      const before = relay.cells.find((cell) => cell.id === relayCellId(provider, beforePath, 'before'));
      if (now === undefined || before === undefined) continue;
      out(
        `- ${what}: this ÷ before, net CPU per MB ${formatRatio(ratio(net(now.cpuUs), net(before.cpuUs)))}, gross ` +
          `${formatRatio(ratio(now.cpuUs, before.cpuUs))}, bytes sent on ${formatRatio(ratio(now.outputBytes, before.outputBytes))}`,
      );
      if (!target) continue;
      targets.push({
        label: `relay: net CPU per relayed MB, this build ÷ before, the README's chain ${what}, ${PROVIDER_LABELS[provider]}, ${relay.streams} streams`,
        measured: ratio(net(now.cpuUs), net(before.cpuUs)),
        comparison: '≤',
        threshold: 1,
      });
    }
    out();
  }
  return targets;
}

function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a / b;
}

/** The rows of the relay-peers table, short (the legend under the table says what each runs). */
const RELAY_PEERS_SHORT: Readonly<Record<(typeof RELAY_PEERS_ROWS)[number], string>> = {
  raw: 'raw byte proxy',
  limit: 'no-view limit',
  'limit-tokens': 'no-view limit + argument tokenizer',
  'argstream-relay': 'argstream relay (README)',
  'argstream-usechat': 'argstream server for `useChat`',
  'ai-sdk-5': 'AI SDK 5 server',
  'ai-sdk-7': 'AI SDK 7 server',
  'argstream-usechat-persist': 'argstream `useChat` server + turn saved',
  'ai-sdk-5-persist': 'AI SDK 5 server + `onFinish` persistence',
  'ai-sdk-7-persist': 'AI SDK 7 server + `onEnd` persistence',
};

/**
 * The relay against the servers users write (`bench/relay-peers.ts`): per shape, every row's relay
 * CPU per MB of arguments, its ratios to the raw proxy and the no-view limit, the events per read,
 * the wall time against the provider's pace, the time to the first byte at the client; then the
 * rows side by side. Returns the targets.
 */
function relayPeersSection(peers: RelayPeersResults, out: (line?: string) => void): Target[] {
  const targets: Target[] = [];
  if (peers.cells.length === 0) return targets;
  const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;
  type Shape = RelayPeersResults['shapes'][number];
  const cell = (shape: Shape, row: (typeof RELAY_PEERS_ROWS)[number]) =>
    peers.cells.find((candidate) => candidate.id === relayPeersCellId(shape.id, row));
  const perMb = (shape: Shape, row: (typeof RELAY_PEERS_ROWS)[number]): number | undefined => {
    const found = cell(shape, row);
    return found === undefined ? undefined : found.cpuUs / 1000 / ((shape.argumentBytes * found.streams) / 1e6);
  };
  const shapeLabel = (shape: Shape): string => `${Math.round(shape.argumentBytes / 1000)} KB × ${shape.streams} streams`;
  const rate = (shape: Shape): number => (shape.streams * 1000) / shape.intervalMs;

  out(`### Relay against the servers users write: CPU per MB of tool-call arguments relayed`);
  out();
  out(
    `Each server is a fetch-style handler behind the same small \`node:http\` adapter (a web \`Request\` whose signal ` +
      `aborts when the client goes away, the \`Response\` body written read by read, cancelled when the client goes ` +
      `away), on 127.0.0.1 in the benchmark process; each ties its provider request to the client's ` +
      `(\`signal\` / \`abortSignal: request.signal\`). A replay provider (the pipeline's \`write_file\` call as Anthropic ` +
      `Messages SSE, one event per socket write: the events before the first argument delta back to back, then each ` +
      `stream's next event at a fixed interval, as a model's tokens arrive) and the clients (\`node:http\`, all streams ` +
      `of a pass at once, each read to its end) run in a child process, so the CPU is the relays' alone: ` +
      `\`process.cpuUsage()\` of the benchmark process (user + system, every thread, GC and the kernel's loopback ` +
      `TCP work of its socket calls included) over a pass, until every response has closed, ÷ the MB (10⁶ bytes) of ` +
      `tool-call arguments the pass relayed. Rows interleaved in ${peers.rounds} rounds (the order rotated), median ` +
      `pass; each pass starts on a fully collected heap and ends with a full collection inside its time, so a pass ` +
      `pays for collecting its own garbage and not the row's before it. "Events per read": the provider's events ÷ the reads of the upstream body, where the row's ` +
      `code reads it (the AI SDK pipes it; its rows show the wall time instead: a pass longer than the provider's ` +
      `pace means the relay fell behind and read several events at once). TTFB: request sent → first body byte, at ` +
      `the client, over every stream of every pass. Before timing, one stream per row (provider unpaced) is checked: ` +
      `the raw proxy's bytes are the provider's; the limits' deltas and the argstream relay's events ` +
      `(\`EventStreamDecoder\` → \`collectTurn\`) give the exact arguments; each UI message stream has one ` +
      `\`tool-input-available\` with the exact input and ends with \`finish\` and \`[DONE]\`; what the persisting rows ` +
      `saved has the exact input. Every stream of every pass must end like it and, where the output does not depend ` +
      `on how the reads fell (all but argstream's rows, which join what one read brings), have its bytes; every ` +
      `provider stream must complete, every persisting row save once per stream, and the tokenizer of the limit ` +
      `that tokenises close every call's arguments as a whole JSON value.` +
      (peers.shapes.some((shape) => shape.scaled) ? ' **Stream counts scaled down (`--relay-peers-scale`)**.' : ''),
  );
  out();
  for (const shape of peers.shapes) {
    const cells = RELAY_PEERS_ROWS.map((row) => cell(shape, row)).filter((found) => found !== undefined);
    if (cells.length === 0) continue;
    const raw = perMb(shape, 'raw');
    const limit = perMb(shape, 'limit');
    out(
      `#### ${shapeLabel(shape)}: ${shape.argumentBytes} bytes of arguments, ${shape.events} SSE events (${kb(shape.sseBytes)}) ` +
        `per stream; an event every ${shape.intervalMs} ms per stream (${Math.round(rate(shape))} events/s in all), ` +
        `${formatMs(shape.paceMs)} per stream`,
    );
    out();
    out(
      `| server | streams per pass | relay CPU per MB of arguments | ÷ raw proxy | ÷ no-view limit | events per read | ` +
        `wall per pass | TTFB p50 | TTFB p99 | sent per stream | passes |`,
    );
    out(`|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|`);
    for (const found of cells) {
      const value = perMb(shape, found.row);
      const reads = found.upstreamReadsPerStream;
      out(
        `| ${RELAY_PEERS_SHORT[found.row]} | ${found.streams}${found.capped ? ' (capped)' : ''} | ${formatMs(value)} | ` +
          `${formatRatio(ratio(value, raw))} | ${formatRatio(ratio(value, limit))} | ` +
          `${reads === undefined ? '–' : (shape.events / reads).toFixed(2)} | ${formatMs(found.wallMs)} | ` +
          `${formatMs(found.ttfbP50Ms)} | ${formatMs(found.ttfbP99Ms)} | ${kb(found.bytesPerStream)} | ${found.cpuUsPasses.length} |`,
      );
    }
    out();
    const forms = cells.filter((found) => found.form !== undefined).map((found) => `${RELAY_PEERS_SHORT[found.row]}: ${found.form}`);
    if (forms.length > 0) {
      out(`Forms that ran: ${forms.join('; ')}.`);
      out();
    }
  }

  // The rows side by side.
  const shapes = peers.shapes.filter((shape) => peers.cells.some((found) => found.shape === shape.id));
  out(`#### Side by side: relay CPU per MB of arguments, and ÷ the no-view limit`);
  out();
  out(`| server | ${shapes.map((shape) => `${shapeLabel(shape)} | ÷ limit`).join(' | ')} |`);
  out(`|---|${shapes.map(() => '--:|--:|').join('')}`);
  for (const row of RELAY_PEERS_ROWS) {
    if (!shapes.some((shape) => cell(shape, row) !== undefined)) continue;
    out(
      `| ${RELAY_PEERS_SHORT[row]} | ${shapes
        .map((shape) => {
          const found = cell(shape, row);
          const value = perMb(shape, row);
          const capped = found?.capped === true ? ` (${found.streams} stream${found.streams === 1 ? '' : 's'})` : '';
          return `${formatMs(value)}${capped} | ${formatRatio(ratio(value, perMb(shape, 'limit')))}`;
        })
        .join(' | ')} |`,
    );
  }
  out();
  for (const shape of shapes) {
    const pairs = [
      ['argstream relay (README) ÷ the limit + argument tokenizer (the floor of a relay that shows fields)', 'argstream-relay', 'limit-tokens'],
      ['AI SDK 7 server ÷ raw byte proxy (the most any relay that reads the body can undercut it by)', 'ai-sdk-7', 'raw'],
      ['AI SDK 7 server ÷ argstream relay', 'ai-sdk-7', 'argstream-relay'],
      ['AI SDK 7 server ÷ argstream server for `useChat`', 'ai-sdk-7', 'argstream-usechat'],
      ['AI SDK 5 server ÷ argstream server for `useChat`', 'ai-sdk-5', 'argstream-usechat'],
      ['AI SDK 7 + `onEnd` persistence ÷ argstream `useChat` + turn saved', 'ai-sdk-7-persist', 'argstream-usechat-persist'],
      ['AI SDK 5 + `onFinish` persistence ÷ argstream `useChat` + turn saved', 'ai-sdk-5-persist', 'argstream-usechat-persist'],
    ] as const;
    const lines = pairs
      .map(([what, a, b]) => ({ what, value: ratio(perMb(shape, a), perMb(shape, b)) }))
      .filter((pair) => pair.value !== undefined)
      .map((pair) => `${pair.what} ${formatRatio(pair.value)}`);
    if (lines.length > 0) out(`- ${shapeLabel(shape)}: ${lines.join('; ')}`);
  }
  out();
  out(`What each row runs:`);
  out();
  for (const row of RELAY_PEERS_ROWS) {
    if (peers.cells.some((found) => found.row === row)) out(`- **${RELAY_PEERS_SHORT[row]}**: ${RELAY_PEERS_LABELS[row]}`);
  }
  out();

  for (const shape of shapes) {
    const limit = perMb(shape, 'limit');
    for (const row of ['argstream-relay', 'argstream-usechat'] as const) {
      targets.push({
        label: `relay-peers: ${RELAY_PEERS_SHORT[row]} ÷ the no-view limit, CPU per MB of arguments, ${shapeLabel(shape)}`,
        measured: ratio(perMb(shape, row), limit),
        comparison: '≤',
        threshold: RELAY_PEERS_OVER_LIMIT_TARGET,
      });
    }
    for (const row of ['argstream-relay', 'argstream-usechat'] as const) {
      targets.push({
        label: `relay-peers: AI SDK 7 server ÷ ${RELAY_PEERS_SHORT[row]}, CPU per MB of arguments, ${shapeLabel(shape)}`,
        measured: ratio(perMb(shape, 'ai-sdk-7'), perMb(shape, row)),
        comparison: '≥',
        threshold: RELAY_PEERS_AI_SDK_7_OVER_ARGSTREAM_TARGET,
      });
    }
  }
  return targets;
}
