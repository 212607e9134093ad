/**
 * The relay benchmark: a server relaying many model streams at once. N concurrent paced streams
 * on one Node process, each the SSE bytes of a ~5 KB `write_file` call built as the pipeline
 * benchmark builds its calls, delivered one SSE event per read with a `setImmediate` tick before
 * each read (so that all N streams interleave, as network pieces from N sockets do), through
 * `ProviderEventStream` → a view (`FieldEventStream`) → `EventStreamEncoder` (the SSE a server
 * sends to a browser), and drained.
 *
 * Measured: the process's CPU time (`process.cpuUsage()`, user + system, every thread) per MB of
 * provider SSE bytes relayed. The pacing has a cost of its own, so the same paced sources drained
 * with no stage at all are the baseline: the table gives the gross figure and the net one
 * (− baseline). Everything stays in this process (no sockets).
 *
 * The stages are passed in as a module (`RelayApi`), so the same code measures this checkout's
 * `src/` and, with `--relay-before <dist/index.js>`, an earlier build loaded in the same process
 * and interleaved in the same rounds.
 *
 * @module
 */
import { argumentDeltas, readsOf, sseEvents, type PipelineProvider } from './pipeline.ts';
import { makeWorkload } from './workloads.ts';

/** What the relay uses of an argstream build, loosely typed so that any version fits. */
export interface RelayApi {
  readonly ProviderEventStream: new (options: { provider: string }) => ReadableWritablePair<unknown, Uint8Array>;
  readonly FieldEventStream: new (options?: { keepProgress?: boolean }) => ReadableWritablePair<unknown, unknown>;
  readonly EventStreamEncoder: new () => ReadableWritablePair<Uint8Array, unknown>;
  readonly fromResponse: (response: Response, options: { provider: string }, ...stages: unknown[]) => ReadableStream<unknown>;
  /** Present from issue 19 on: stages composed into one standard `TransformStream`. */
  readonly chain?: (...stages: unknown[]) => ReadableWritablePair<unknown, unknown>;
}

/** One argstream build: this checkout's `src/`, or an earlier `dist/`. */
export interface RelayBuild {
  /** `this` or `before`: part of the cell ids. */
  readonly id: string;
  /** What it is, for the table (`src/ of this checkout`, a path). */
  readonly label: string;
  readonly api: RelayApi;
}

export interface RelayOptions {
  readonly quick: boolean;
  /** Concurrent streams per pass; by default 1000 (200 with `--quick`). */
  readonly streams: number | undefined;
  readonly builds: readonly RelayBuild[];
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  /** Throws (failing the run) when `actual` is not `expected`. */
  readonly check: (what: string, actual: unknown, expected: unknown) => void;
}

/**
 * The relayed call: the pipeline benchmark's `write_file` arguments at this size (~200 argument
 * deltas, ~210 reads). Not 20 KB: a hop's cost grows with the number of streams alive at once (3
 * identity hops cost ~11 µs per network piece with 50 streams, ~53 µs with 1000), not with a
 * stream's length, and with 20 KB calls a pass of 1000 streams took 45–60 s of CPU per path.
 */
export const RELAY_ARGUMENT_BYTES = 5_000;
export const RELAY_STREAMS_FULL = 1000;
export const RELAY_STREAMS_QUICK = 200;
/**
 * One provider: a pass of 1000 streams takes 10–15 s of CPU per path on a loaded 2-core machine,
 * and what the relay measures (a hop per network piece against the parsing of it) does not depend
 * on the provider's framing.
 */
export const RELAY_PROVIDERS: readonly PipelineProvider[] = ['anthropic'];
/** Rounds (every path once per round, interleaved), and no more rounds once this much wall time has gone into them. */
export const RELAY_ROUNDS_FULL = { minRounds: 3, maxRounds: 5, budgetMs: 120_000 } as const;
export const RELAY_ROUNDS_QUICK = { minRounds: 1, maxRounds: 3, budgetMs: 20_000 } as const;

/**
 * The paths. `baseline` and `identity` have no argstream stage (one cell each); the others run
 * once per build.
 */
export type RelayPathId = 'baseline' | 'identity' | 'chain' | 'chain-no-progress' | 'response' | 'plain';

export interface RelayCellResult {
  readonly id: string;
  readonly provider: PipelineProvider;
  readonly path: RelayPathId;
  /** The build's id, for a path with argstream stages. */
  readonly build: string | undefined;
  /** What ran, as a user writes it. */
  readonly label: string;
  /** Median CPU time per pass, µs (user + system). */
  readonly cpuUs: number;
  /** Median wall time per pass, ms. */
  readonly wallMs: number;
  /** The bytes one stream sends on (the SSE to the browser; the input itself for the paths without a stage). */
  readonly outputBytes: number;
  readonly passes: number;
}

export interface RelayResults {
  readonly streams: number;
  /** Per provider: SSE bytes of one stream, and its reads (network pieces). */
  readonly wire: Map<PipelineProvider, { bytes: number; reads: number }>;
  readonly argumentBytes: number;
  readonly cells: RelayCellResult[];
  readonly builds: readonly { id: string; label: string }[];
}

export function relayCellId(provider: PipelineProvider, path: RelayPathId, build?: string): string {
  return build === undefined ? `relay/${provider}/${path}` : `relay/${provider}/${build}/${path}`;
}

/** How a path builds one relayed stream from a response body. */
interface RelayPath {
  readonly id: string;
  readonly provider: PipelineProvider;
  readonly path: RelayPathId;
  readonly build: string | undefined;
  readonly label: string;
  readonly open: (body: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;
}

const IDENTITY_HOPS = 3;

function identityHops(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let stream = body;
  for (let i = 0; i < IDENTITY_HOPS; i++) stream = stream.pipeThrough(new TransformStream<Uint8Array, Uint8Array>());
  return stream;
}

/**
 * The paths of one build. With `chain` (issue 19 on): the README's chain from the body
 * (`chain(ProviderEventStream, FieldEventStream, EventStreamEncoder)` when the encoder is a
 * chainable stage, else `chain(ProviderEventStream, FieldEventStream)` then `pipeThrough` the
 * encoder), the same with `FieldEventStream({ keepProgress: false })` (from issue 19 on the views
 * pass the progress events on by default, and the encoder relays them to the browser too),
 * `fromResponse` with the view as its stage, and plain `pipeThrough` of the three stages (a hop
 * per stage and event). Without `chain` (before issue 19, when plain `pipeThrough`
 * fused argstream stages by itself), the README's chains were plain `pipeThrough`.
 */
function buildPaths(build: RelayBuild, provider: PipelineProvider): RelayPath[] {
  const { ProviderEventStream, FieldEventStream, EventStreamEncoder, fromResponse, chain } = build.api;
  const cell = (path: RelayPathId, label: string, open: RelayPath['open']): RelayPath => ({
    id: relayCellId(provider, path, build.id),
    provider,
    path,
    build: build.id,
    label,
    open,
  });
  const response = (body: ReadableStream<Uint8Array>): Response =>
    new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  const plain = (body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> =>
    body
      .pipeThrough(new ProviderEventStream({ provider }))
      .pipeThrough(new FieldEventStream())
      .pipeThrough(new EventStreamEncoder() as ReadableWritablePair<Uint8Array, unknown>);
  if (chain === undefined) {
    return [
      cell(
        'chain',
        'body `.pipeThrough(new ProviderEventStream(…)).pipeThrough(new FieldEventStream()).pipeThrough(new EventStreamEncoder())` (fused by `pipeThrough` itself)',
        plain,
      ),
      cell(
        'response',
        '`fromResponse(response, {provider}).pipeThrough(new FieldEventStream()).pipeThrough(new EventStreamEncoder())` (fused by `pipeThrough` itself)',
        (body) =>
          fromResponse(response(body), { provider })
            .pipeThrough(new FieldEventStream())
            .pipeThrough(new EventStreamEncoder() as ReadableWritablePair<Uint8Array, unknown>),
      ),
    ];
  }
  const encoderChains = encoderIsChainable(build.api);
  const chained = (path: RelayPathId, view: string, options: { keepProgress?: boolean } | undefined): RelayPath =>
    encoderChains
      ? cell(path, `body \`.pipeThrough(chain(new ProviderEventStream(…), new FieldEventStream(${view}), new EventStreamEncoder()))\``, (body) =>
          body.pipeThrough(
            chain(new ProviderEventStream({ provider }), new FieldEventStream(options), new EventStreamEncoder()) as ReadableWritablePair<Uint8Array, Uint8Array>,
          ),
        )
      : cell(
          path,
          `body \`.pipeThrough(chain(new ProviderEventStream(…), new FieldEventStream(${view}))).pipeThrough(new EventStreamEncoder())\``,
          (body) =>
            body
              .pipeThrough(chain(new ProviderEventStream({ provider }), new FieldEventStream(options)) as ReadableWritablePair<unknown, Uint8Array>)
              .pipeThrough(new EventStreamEncoder() as ReadableWritablePair<Uint8Array, unknown>),
        );
  return [
    chained('chain', '', undefined),
    chained('chain-no-progress', '{ keepProgress: false }', { keepProgress: false }),
    cell(
      'response',
      '`fromResponse(response, {provider}, new FieldEventStream({ keepProgress: false })).pipeThrough(new EventStreamEncoder())` (the README\'s relay)',
      (body) =>
        fromResponse(response(body), { provider }, new FieldEventStream({ keepProgress: false })).pipeThrough(
          new EventStreamEncoder() as ReadableWritablePair<Uint8Array, unknown>,
        ),
    ),
    cell(
      'plain',
      'plain `pipeThrough` of the separate stages: `ProviderEventStream` → `FieldEventStream` → `EventStreamEncoder` (a hop per stage)',
      plain,
    ),
  ];
}

/**
 * Whether `chain` takes `EventStreamEncoder` (a `{writable, readable}` pair, not a
 * `TransformStream`, so that an upstream error still reaches the client as an `event: error`).
 */
function encoderIsChainable(api: RelayApi): boolean {
  try {
    api.chain?.(new api.FieldEventStream(), new api.EventStreamEncoder());
    return true;
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
}

/** A response body arriving as network pieces: each read is one SSE event, after a `setImmediate` tick. */
function pacedBody(reads: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      return new Promise<void>((resolve) => {
        setImmediate(() => {
          if (next < reads.length) controller.enqueue(reads[next++] as Uint8Array);
          else controller.close();
          resolve();
        });
      });
    },
  });
}

/** Reads `stream` to its end, as the server's response would; returns the bytes (and keeps them when asked). */
async function drain(stream: ReadableStream<Uint8Array>, keep?: Uint8Array[]): Promise<number> {
  const reader = stream.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
    keep?.push(value);
  }
}

/** What the browser gets: the `write_file` arguments rebuilt from the relayed field events, and whether `event: end` closed it. */
function decodeRelayed(chunks: readonly Uint8Array[]): { arguments: Record<string, string>; ended: boolean } {
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  const records = text.split('\n\n').filter((record) => record !== '');
  const result: Record<string, string> = {};
  for (const record of records) {
    const data = record.split('\n').find((line) => line.startsWith('data: '));
    if (data === undefined) continue;
    const event = JSON.parse(data.slice('data: '.length)) as { type?: string; key?: string; text?: string };
    if (event.type === 'field-delta' && event.key !== undefined) result[event.key] = (result[event.key] ?? '') + (event.text ?? '');
  }
  return { arguments: result, ended: (records[records.length - 1] ?? '').startsWith('event: end\n') };
}

/** One pass: `streams` paced bodies opened at once through `open`, all drained. */
async function pass(
  streams: number,
  reads: readonly Uint8Array[],
  open: (body: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
): Promise<{ cpuUs: number; wallMs: number; outputs: number[] }> {
  // No forced full GC before a pass: a server relaying streams collects as it goes. A forced one
  // with no stream open drops V8's optimised code for what no instance holds, and the next pass
  // pays to rebuild it (the first-run-after-GC cost issue 19 retired with src/retain.ts).
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  const drains: Promise<number>[] = [];
  for (let i = 0; i < streams; i++) drains.push(drain(open(pacedBody(reads))));
  const outputs = await Promise.all(drains);
  const cpu = process.cpuUsage(cpuStart);
  return { cpuUs: cpu.user + cpu.system, wallMs: performance.now() - wallStart, outputs };
}

function median(series: readonly number[]): number {
  const sorted = [...series].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Runs the relay benchmark (the cells `selected` lets through). */
export async function runRelayBench(options: RelayOptions): Promise<RelayResults> {
  const streams = options.streams ?? (options.quick ? RELAY_STREAMS_QUICK : RELAY_STREAMS_FULL);
  const rounds = options.quick ? RELAY_ROUNDS_QUICK : RELAY_ROUNDS_FULL;
  const workload = makeWorkload('long-string', RELAY_ARGUMENT_BYTES);
  const expected = JSON.parse(workload.text) as Record<string, string>;
  const deltas = argumentDeltas(workload.text);
  const results: RelayResults = {
    streams,
    wire: new Map(),
    argumentBytes: workload.bytes,
    cells: [],
    builds: options.builds.map((build) => ({ id: build.id, label: build.label })),
  };
  for (const provider of RELAY_PROVIDERS) {
    const paths: RelayPath[] = [
      {
        id: relayCellId(provider, 'baseline'),
        provider,
        path: 'baseline' as const,
        build: undefined,
        label: 'baseline: the paced body drained, no stage',
        open: (body: ReadableStream<Uint8Array>) => body,
      },
      {
        id: relayCellId(provider, 'identity'),
        provider,
        path: 'identity' as const,
        build: undefined,
        label: `for scale: ${IDENTITY_HOPS} identity \`TransformStream\` hops, no parsing`,
        open: identityHops,
      },
      ...options.builds.flatMap((build) => buildPaths(build, provider)),
    ].filter((path) => options.selected(path.id));
    if (paths.length === 0) continue;
    const reads = readsOf(sseEvents(provider, deltas), 'event');
    const wireBytes = reads.reduce((sum, read) => sum + read.byteLength, 0);
    results.wire.set(provider, { bytes: wireBytes, reads: reads.length });
    options.progress(
      `relay: ${provider}, ${streams} concurrent paced streams of ${wireBytes} bytes of SSE in ${reads.length} reads ` +
        `(${workload.bytes} bytes of arguments)`,
    );

    // The gate: one stream per path; a relay's output must rebuild the arguments and end with `event: end`.
    const outputBytes = new Map<string, number>();
    for (const path of paths) {
      const chunks: Uint8Array[] = [];
      const bytes = await drain(path.open(pacedBody(reads)), chunks);
      if (path.build === undefined) options.check(`${path.id} bytes`, bytes, wireBytes);
      else {
        const relayed = decodeRelayed(chunks);
        options.check(`${path.id}: the arguments rebuilt from the relayed field events`, relayed.arguments, expected);
        options.check(`${path.id}: ends with event: end`, relayed.ended, true);
      }
      outputBytes.set(path.id, bytes);
    }

    // Interleaved rounds (A B C, B C A, …); every stream of every pass must relay all its bytes.
    const cpu: number[][] = paths.map(() => []);
    const wall: number[][] = paths.map(() => []);
    const started = performance.now();
    for (let round = 0; round < rounds.maxRounds && (round < rounds.minRounds || performance.now() - started < rounds.budgetMs); round++) {
      for (let k = 0; k < paths.length; k++) {
        const index = (k + round) % paths.length;
        const path = paths[index] as RelayPath;
        const sample = await pass(streams, reads, path.open);
        const expectedBytes = outputBytes.get(path.id) as number;
        const short = sample.outputs.findIndex((bytes) => bytes !== expectedBytes);
        if (short !== -1) throw new Error(`${path.id}: stream ${short} relayed ${sample.outputs[short]} bytes, expected ${expectedBytes}`);
        (cpu[index] as number[]).push(sample.cpuUs);
        (wall[index] as number[]).push(sample.wallMs);
        options.progress(
          `  ${path.id.padEnd(40)} round ${round + 1}: ${(sample.cpuUs / 1000).toFixed(0).padStart(6)} ms CPU, ` +
            `${sample.wallMs.toFixed(0).padStart(6)} ms wall`,
        );
      }
    }
    paths.forEach((path, index) => {
      results.cells.push({
        id: path.id,
        provider,
        path: path.path,
        build: path.build,
        label: path.label,
        cpuUs: median(cpu[index] as number[]),
        wallMs: median(wall[index] as number[]),
        outputBytes: outputBytes.get(path.id) as number,
        passes: (cpu[index] as number[]).length,
      });
    });
  }
  return results;
}
