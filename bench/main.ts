/**
 * `npm run bench`: argstream against `@streamparser/json`, `jsonriver`, `JSON.parse` and the
 * re-parse approach, then whole pipelines (provider SSE bytes → argstream streams, their cores,
 * the official SDKs; `bench/pipeline.ts`), a relay, and the client's side of one streaming call (the
 * AI SDK's `readUIMessageStream` against argstream's decoder and `TurnStore`; `bench/ui.ts`), in
 * one process run; prints markdown tables and the target check.
 *
 * Options: `--quick` (fewer runs, no 1 MB pipeline, 200 relayed streams), `--full` (the default),
 * `--filter <regex>` (only the cells whose id matches, e.g. `stream/long-string/16/`, `fused`,
 * `reparse/`, `scaling/`, `pipeline/`, `relay/`, `snapshots/`, `ui/`, `agui/`), `--relay-before <dist/index.js>`
 * (also relay with that build, in the same rounds), `--relay-streams <n>`, `--relay-peers-scale
 * <fraction>` (fewer streams in the relay-peers table), `--ai-sdk-1mb` (the AI
 * SDK's UI rows at 1 MB too: minutes), `--ag-ui-1mb` (the AG-UI re-parse rows at 1 MB too: minutes), `--help`.
 *
 * @module
 */
import { measureSharedSnapshots } from './shared-snapshots.ts';
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import {
  REPARSE,
  REPARSERS,
  STREAMING,
  fragments,
  fused,
  type Contender,
} from './contenders.ts';
import {
  gcExposed,
  jsonDifference,
  measureGroup,
  setClock,
  type MeasureOptions,
  type Sample,
  type Task,
} from './measure.ts';
import {
  CHUNK_SIZES,
  FULL,
  LIMIT_CHUNKS,
  QUICK,
  REPARSE_BYTES,
  REPARSE_CHUNK,
  REPARSE_WORKLOADS,
  SCALING_BYTES,
  SCALING_CHUNK,
  STREAM_BYTES,
} from './plan.ts';
import {
  FEEDINGS,
  PIPELINE_PROVIDERS,
  PROVIDER_PATHS,
  TEXT_PATHS,
  runPipelineBench,
} from './pipeline.ts';
import { runRelayBench, type RelayApi, type RelayBuild } from './relay.ts';
import { RELAY_PEERS_ROWS, runRelayPeersBench } from './relay-peers.ts';
import { printReport, type Results } from './report.ts';
import { printUiReport, runUiBench, UI_ROWS, type UiResults } from './ui.ts';
import { PARTIAL_JSON_BYTES, PARTIAL_JSON_ROWS, printPartialJsonReport, runPartialJsonBench } from './partial-json.ts';
import { printAgUiReport, runAgUiBench } from './ag-ui.ts';
import { LANGCHAIN_ROWS, printLangChainReport, runLangChainBench } from './langchain.ts';
import { MCP_APPS_ROWS, printMcpAppsReport, runMcpAppsBench } from './mcp-apps.ts';
import { WORKLOAD_IDS, chunkText, makeWorkload, type Workload } from './workloads.ts';
import type { JsonValue } from '../src/types.ts';
import * as argstream from '../src/index.ts';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The commit of `src/` being measured, and whether it has uncommitted changes. */
function sourceVersion(): string {
  try {
    const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', 'src') === '' ? `argstream ${commit}` : `argstream ${commit} + uncommitted src/ changes`;
  } catch {
    return 'argstream (no git)';
  }
}

/** A mistake on the command line or a failed correctness gate: the message says it all. */
class BenchError extends Error {
  override name = 'BenchError';
}

interface Cli {
  readonly quick: boolean;
  readonly filter: RegExp | undefined;
  readonly filterText: string | undefined;
  /** An earlier build's entry module (`dist/index.js`), relayed in the same rounds as this one. */
  readonly relayBefore: string | undefined;
  readonly relayStreams: number | undefined;
  /** Multiplies the relay-peers stream counts (a quick look while developing). */
  readonly relayPeersScale: number;
  readonly cpuTime: boolean;
  /** The AI SDK's UI rows at 1 MB too (minutes); only in the full run. */
  readonly aiSdk1mb: boolean;
  readonly agUi1mb: boolean;
  /** LangChain's re-parsing rows at 1 MB too (tens of minutes); only in the full run. */
  readonly langChain1mb: boolean;
  /** The AI SDK's MCP Apps row at 1 MB too (minutes). */
  readonly mcpApps1mb: boolean;
}

function parseCli(args: readonly string[]): Cli {
  let quick = false;
  let filter: RegExp | undefined;
  let filterText: string | undefined;
  let relayBefore: string | undefined;
  let relayStreams: number | undefined;
  let relayPeersScale = 1;
  let cpuTime = false;
  let aiSdk1mb = false;
  let agUi1mb = false;
  let langChain1mb = false;
  let mcpApps1mb = false;
  /** The value of `--name value` or `--name=value`. */
  const value = (arg: string, name: string, i: number): string => {
    const text = arg === name ? args[i] : arg.slice(name.length + 1);
    if (text === undefined || text === '') throw new BenchError(`${name} needs a value; try --help`);
    return text;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--quick') quick = true;
    else if (arg === '--cpu-time') cpuTime = true;
    else if (arg === '--ai-sdk-1mb') aiSdk1mb = true;
    else if (arg === '--ag-ui-1mb') agUi1mb = true;
    else if (arg === '--langchain-1mb') langChain1mb = true;
    else if (arg === '--mcp-apps-1mb') mcpApps1mb = true;
    else if (arg === '--full') quick = false;
    else if (arg === '--filter' || arg.startsWith('--filter=')) {
      const pattern = arg === '--filter' ? args[++i] : arg.slice('--filter='.length);
      if (pattern === undefined || pattern === '') {
        throw new BenchError('--filter needs a pattern, e.g. `--filter stream/long-string/16/`');
      }
      filter = new RegExp(pattern, 'i');
      filterText = pattern;
    } else if (arg === '--relay-before' || arg.startsWith('--relay-before=')) {
      relayBefore = value(arg, '--relay-before', arg === '--relay-before' ? ++i : i);
    } else if (arg === '--relay-streams' || arg.startsWith('--relay-streams=')) {
      relayStreams = Number(value(arg, '--relay-streams', arg === '--relay-streams' ? ++i : i));
      if (!Number.isSafeInteger(relayStreams) || relayStreams < 1) throw new BenchError('--relay-streams needs a positive integer');
    } else if (arg === '--relay-peers-scale' || arg.startsWith('--relay-peers-scale=')) {
      relayPeersScale = Number(value(arg, '--relay-peers-scale', arg === '--relay-peers-scale' ? ++i : i));
      if (!(relayPeersScale > 0 && relayPeersScale <= 1)) throw new BenchError('--relay-peers-scale needs a number in (0, 1]');
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: npm run bench -- [--quick | --full] [--filter <regex>] [--cpu-time] [--relay-before <dist/index.js>] [--relay-streams <n>]\n' +
          '         [--relay-peers-scale <fraction>] [--ai-sdk-1mb] [--ag-ui-1mb] [--langchain-1mb] [--mcp-apps-1mb] [--cpu-prof]\n' +
          '  --cpu-time: time samples with the process\'s CPU time instead of wall time (for a machine shared with other work)\n' +
          '  --quick: fewer runs, the pipeline at 20 KB and 200 KB only, the UI rows at 46 KB and 200 KB only, 200 relayed streams;\n' +
          '  --full (the default): the pipeline and the UI rows also at 1 MB, 1000 relayed streams\n' +
          '  --ai-sdk-1mb: in the full run, also the AI SDK UI rows at 1 MB (ai-sdk/<major> and transport/ai-sdk/<major>;\n' +
          '            quadratic: minutes per run);\n' +
          '            without it they print "not run"\n' +
          '  --ag-ui-1mb: also the AG-UI re-parse rows at 1 MB (agui/1000000/copilotkit and agui/1000000/ag-ui-client;\n' +
          '            quadratic: minutes per run); without it they print "not run"\n' +
          '  --langchain-1mb: in the full run, also LangChain\'s re-parsing rows at 1 MB (langchain/1000000/concat and\n' +
          '            langchain/1000000/parse-partial-json; quadratic: about 20 and 3 minutes a run); without it they print "not run"\n' +
          '  --mcp-apps-1mb: also the AI SDK\'s parsePartialJson row of the MCP Apps table at 1 MB (quadratic: minutes)\n' +
          '  --relay-before: also relay with the argstream build at that path (an earlier commit\'s dist/index.js),\n' +
          '            in the same rounds as this one, and check this build against it\n' +
          '  --relay-peers-scale: multiply the relay-peers stream counts by this fraction (a quick look; the table says so)\n' +
          '  cell ids: stream/<workload>/<chunk>/<contender>, stream/<workload>/<chunk>/json-parse (the whole text,\n' +
          `            timed in the group of chunks ${LIMIT_CHUNKS.join(' and ')}),\n` +
          '            reparse/<workload>/<bytes>/<contender>, scaling/long-string/<bytes>/<contender>,\n' +
          '            pipeline/<bytes>/<provider>/<feeding>/<path>, pipeline/<bytes>/text/<path>,\n' +
          '            pipeline/memory/<provider>, relay/<provider>/<baseline|identity>,\n' +
          '            relay/<provider>/<this|before>/<chain|response|plain>, snapshots/shared,\n' +
          `            relay-peers/<20kb|200kb>/<${RELAY_PEERS_ROWS.join('|')}>,\n` +
          `            ui/<bytes>/<${UI_ROWS.join('|')}> (bytes: 46000, 200000, 1000000),\n` +
          `            partial-json/<bytes>/<${PARTIAL_JSON_ROWS.join('|')}> (bytes: ${PARTIAL_JSON_BYTES.join(', ')}),\n` +
          `            langchain/<bytes>/<${LANGCHAIN_ROWS.join('|')}> (bytes: 20000, 200000, 1000000),\n` +
          `            mcp-apps/<bytes>/<${MCP_APPS_ROWS.join('|')}> (bytes: 20000, 200000, 1000000)\n` +
          `  workloads: ${WORKLOAD_IDS.join(', ')}\n` +
          `  contenders: ${[...STREAMING, ...REPARSE].map((c) => c.id).filter(unique).join(', ')}\n` +
          `  pipeline providers: ${PIPELINE_PROVIDERS.join(', ')}; feedings: ${FEEDINGS.join(', ')}\n` +
          `  pipeline paths: ${PROVIDER_PATHS.join(', ')}; text paths: ${TEXT_PATHS.join(', ')}\n`,
      );
      process.exit(0);
    } else {
      throw new BenchError(`unknown option ${arg}; try --help`);
    }
  }
  if (aiSdk1mb && quick) process.stderr.write('note: --ai-sdk-1mb does nothing with --quick (no 1 MB size)\n');
  return { quick, filter, filterText, relayBefore, relayStreams, relayPeersScale, cpuTime, aiSdk1mb, agUi1mb, langChain1mb, mcpApps1mb };
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
    throw new BenchError(`correctness gate failed for ${what}: ${difference}`);
  }
}

async function gate(contender: Contender, workload: Workload, chunks: readonly string[], expected: JsonValue) {
  const value = await contender.run(chunks);
  assertSameValue(`${contender.id} on ${workload.id} (${workload.bytes} bytes)`, value, expected);
}

/** One timed cell: a contender (or `JSON.parse`) on one input, with the value it must produce. */
interface Cell {
  readonly id: string;
  readonly task: Task;
  readonly expected: JsonValue;
  /** Re-parse contenders report their failed partial parses. */
  readonly contender?: Contender;
}

function cellOf(id: string, contender: Contender, chunks: readonly string[], expected: JsonValue): Cell {
  return { id, task: { work: () => contender.run(chunks), isAsync: contender.async }, expected, contender };
}

async function main(): Promise<void> {
  const cli = parseCli(process.argv.slice(2));
  const settings = cli.quick ? QUICK : FULL;
  if (cli.cpuTime) setClock('cpu');
  const selected = (id: string): boolean => cli.filter === undefined || cli.filter.test(id);
  const results: Results = { samples: new Map(), bytes: new Map(), failures: new Map() };
  const started = performance.now();

  if (!gcExposed) progress('warning: run under `node --expose-gc` (npm run bench does) for GC between samples');

  /** Times a group of cells interleaved, checks every value, stores the samples. */
  const measureCells = async (cells: readonly Cell[], options: MeasureOptions): Promise<void> => {
    const chosen = cells.filter((cell) => selected(cell.id));
    if (chosen.length === 0) return;
    const samples = await measureGroup(
      chosen.map((cell) => cell.task),
      options,
    );
    chosen.forEach((cell, index) => {
      const sample = samples[index] as Sample;
      assertSameValue(cell.id, sample.value, cell.expected);
      // Keep the times only: retained values would make every later cell's GC slower.
      results.samples.set(cell.id, { medianMs: sample.medianMs, minMs: sample.minMs, runs: sample.runs });
      if (cell.contender?.failures !== undefined) results.failures.set(cell.id, cell.contender.failures);
      progress(`  ${cell.id.padEnd(52)} ${sample.medianMs.toFixed(2).padStart(10)} ms  (median of ${sample.runs})`);
    });
  };

  // 1. Streaming throughput on ~1 MB, every chunk size; JSON.parse on the whole text is timed in
  //    the groups of the chunk sizes its targets compare with (one cell per group, so each ratio
  //    comes from interleaved runs).
  for (const workloadId of WORKLOAD_IDS) {
    const prefix = `stream/${workloadId}/`;
    const limitIds = LIMIT_CHUNKS.map((size) => `${prefix}${size}/json-parse`);
    const ids = [...limitIds, ...STREAMING.flatMap((c) => CHUNK_SIZES.map((size) => `${prefix}${size}/${c.id}`))];
    if (!ids.some(selected)) continue;
    const workload = makeWorkload(workloadId, STREAM_BYTES);
    const text = workload.text;
    const expected = JSON.parse(text) as JsonValue;
    results.bytes.set(`stream/${workloadId}`, workload.bytes);
    progress(`${workload.id}: ${workload.label}, ${workload.bytes} bytes`);
    const gateChunks = chunkText(text, 16);
    for (const contender of STREAMING) {
      if (CHUNK_SIZES.some((size) => selected(`${prefix}${size}/${contender.id}`))) {
        await gate(contender, workload, gateChunks, expected);
      }
    }
    for (const size of CHUNK_SIZES) {
      const chunks = chunkText(text, size);
      const cells = STREAMING.map((contender) => cellOf(`${prefix}${size}/${contender.id}`, contender, chunks, expected));
      if ((LIMIT_CHUNKS as readonly number[]).includes(size)) {
        cells.push({ id: `${prefix}${size}/json-parse`, task: { work: () => JSON.parse(text) as JsonValue, isAsync: false }, expected });
      }
      await measureCells(cells, settings.stream);
    }
  }

  // 2. The re-parse approach (and argstream) at 16-character chunks on ~25 KB and ~100 KB. The
  //    gate runs once per contender and workload, on the small text; every timed run is checked.
  for (const workloadId of REPARSE_WORKLOADS) {
    const ids = REPARSE.flatMap((c) => REPARSE_BYTES.map((bytes) => `reparse/${workloadId}/${bytes}/${c.id}`));
    if (!ids.some(selected)) continue;
    for (const targetBytes of REPARSE_BYTES) {
      const workload = makeWorkload(workloadId, targetBytes);
      const expected = JSON.parse(workload.text) as JsonValue;
      results.bytes.set(`reparse/${workloadId}/${targetBytes}`, workload.bytes);
      progress(`${workload.id} for re-parse: ${workload.bytes} bytes at ${REPARSE_CHUNK}-char chunks`);
      const chunks = chunkText(workload.text, REPARSE_CHUNK);
      const cells = REPARSE.map((contender) =>
        cellOf(`reparse/${workloadId}/${targetBytes}/${contender.id}`, contender, chunks, expected),
      );
      if (targetBytes === REPARSE_BYTES[0]) {
        for (const cell of cells) if (selected(cell.id)) await gate(cell.contender as Contender, workload, chunks, expected);
      }
      // The re-parsers take seconds and argstream milliseconds: a group each, so argstream gets
      // the warm-up and the runs a millisecond measurement needs.
      const isReparser = (cell: Cell): boolean => REPARSERS.includes(cell.contender as Contender);
      await measureCells(
        cells.filter(isReparser),
        targetBytes === REPARSE_BYTES[0] ? settings.reparseSmall : settings.reparseLarge,
      );
      await measureCells(
        cells.filter((cell) => !isReparser(cell)),
        settings.stream,
      );
    }
  }

  // 3. Scaling: 10 MB against 1 MB of the long-string workload, both argstream paths. Each size
  //    is its own group (the two paths interleaved), so the 1 MB runs do not pay for marking the
  //    10 MB input in the heap.
  for (const targetBytes of SCALING_BYTES) {
    const ids = [fused, fragments].map((c) => `scaling/long-string/${targetBytes}/${c.id}`);
    if (!ids.some(selected)) continue;
    const workload = makeWorkload('long-string', targetBytes);
    const expected = JSON.parse(workload.text) as JsonValue;
    results.bytes.set(`scaling/long-string/${targetBytes}`, workload.bytes);
    progress(`long-string for scaling: ${workload.bytes} bytes at ${SCALING_CHUNK}-char chunks`);
    const chunks = chunkText(workload.text, SCALING_CHUNK);
    const cells: Cell[] = [];
    for (const contender of [fused, fragments]) {
      const cell = cellOf(`scaling/long-string/${targetBytes}/${contender.id}`, contender, chunks, expected);
      if (!selected(cell.id)) continue;
      await gate(contender, workload, chunks, expected);
      cells.push(cell);
    }
    await measureCells(cells, settings.scaling);
  }

  // 4. Whole pipelines: one write_file call as provider SSE bytes, through argstream's streams,
  //    their cores, the no-view limit and the official SDKs; the argument text alone; the heap
  //    cost of an open call. Every path is checked before and after timing.
  results.pipeline = await runPipelineBench({
    quick: cli.quick,
    selected,
    progress,
    check: assertSameValue,
  });

  // 5. A relay: many concurrent paced streams through ProviderEventStream → FieldEventStream →
  //    EventStreamEncoder, server CPU per MB; with --relay-before, an earlier build in the same rounds.
  {
    const builds: RelayBuild[] = [{ id: 'this', label: 'this checkout\'s `src/`', api: argstream as unknown as RelayApi }];
    if (cli.relayBefore !== undefined) {
      const api = (await import(pathToFileURL(resolve(cli.relayBefore)).href)) as RelayApi;
      builds.push({ id: 'before', label: `\`${cli.relayBefore}\``, api });
    }
    results.relay = await runRelayBench({
      quick: cli.quick,
      streams: cli.relayStreams,
      builds,
      selected,
      progress,
      check: (what, actual, expected) => assertSameValue(what, actual as JsonValue, expected as JsonValue),
    });
  }

  // 5b. The relay against the servers users write: a raw proxy, the no-view limit, argstream's relay
  //     and useChat server, the AI SDK 5 and 7 servers (and with persistence), relay CPU per MB of
  //     arguments, with the provider and the clients in a child process.
  const relayPeers = await runRelayPeersBench({
    quick: cli.quick,
    scale: cli.relayPeersScale,
    selected,
    progress,
    check: (what, actual, expected) => assertSameValue(what, actual as JsonValue, expected as JsonValue),
  });
  if (relayPeers !== undefined) results.relayPeers = relayPeers;

  // 6. Snapshots a UI can render: live vs structurally shared, one snapshot per 256 chunks (and,
  //    in a full run, per chunk: the worst case, seconds per run on small objects).
  if (selected('snapshots/shared')) {
    progress('snapshots: live vs immutableSnapshots');
    results.sharedSnapshots = await measureSharedSnapshots({ runs: cli.quick ? 1 : 3, cadences: cli.quick ? [256] : [256, 1] });
  }

  // 7. The client's side of one streaming write_file call: the AI SDK's readUIMessageStream (ai 5
  //    and 7) against argstream's bare decoder and TurnStore, and the UI message stream's SSE bytes
  //    through DefaultChatTransport vs ArgstreamChatTransport (then readUIMessageStream), CPU per
  //    call at 46 KB, 200 KB, 1 MB.
  const ui: UiResults = await runUiBench({
    quick: cli.quick,
    aiSdk1mb: cli.aiSdk1mb,
    selected,
    progress,
    check: assertSameValue,
  });

  // 8. argstream/partial-json against the AI SDK's parsePartialJson on a growing buffer in
  //    16-character steps, at 200 KB and 1 MB, with the one-pass floors.
  const partialJson = await runPartialJsonBench({ quick: cli.quick, selected, progress, check: assertSameValue });
  // 9. AG-UI: one streaming call's arguments as AG-UI events, per TOOL_CALL_ARGS: CopilotKit's and
  //    @ag-ui/client's re-parse against argstream's decoder and parser, at 20 KB, 200 KB, 1 MB.
  const agUi = await runAgUiBench({ quick: cli.quick, reparse1mb: cli.agUi1mb, selected, progress, check: assertSameValue });
  // 10. One streaming write_file call as LangChain.js AIMessageChunks: LangChain's own re-parse
  //    (concat then tool_calls, parsePartialJson) against argstream's stream and TurnStore.
  const langChain = await runLangChainBench({ quick: cli.quick, reparse1mb: cli.langChain1mb, selected, progress, check: assertSameValue });
  // 11. MCP Apps: a host's partial input notifications for one streaming call, argstream's against
  //    the re-parse a host does today, at 20 KB, 200 KB and 1 MB.
  const mcpApps = await runMcpAppsBench({ quick: cli.quick, aiSdk1mb: cli.mcpApps1mb, selected, progress, check: assertSameValue });

  const seconds = (performance.now() - started) / 1000;
  printReport(results, {
    quick: cli.quick,
    filter: cli.filterText,
    cpuTime: cli.cpuTime,
    seconds,
    environment: `${sourceVersion()}, Node ${process.version}, ${process.platform}/${process.arch}, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
  });
  // The UI tables and their targets, after the report (bench/report.ts has no UI section).
  printUiReport(ui);
  printPartialJsonReport(partialJson);
  printAgUiReport(agUi);
  printLangChainReport(langChain);
  printMcpAppsReport(mcpApps);
}

main().catch((error: unknown) => {
  const message =
    error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`\nbench failed: ${message}\n`);
  process.exitCode = 1;
});
