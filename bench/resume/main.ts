/**
 * The resume load and fault test (`npm run bench:resume`): two relay processes (bench/resume/
 * relay.ts) sharing one redis-server, a paced recorded provider (Anthropic recordings from
 * test/fixtures, one SSE event per `--pace` ms), and `--clients` concurrent clients (1,000):
 *
 * - 85% read their turn to the end;
 * - 10% cut their connection mid-stream and resume on the other process with `Last-Event-ID`;
 * - 3% reload mid-stream: a new page on the other process, without `Last-Event-ID` — it gets
 *   what the stream holds as one snapshot, then the tail;
 * - 5% press stop (`POST /chat/:id/stop` on the other process) mid-stream: their provider
 *   request must be cancelled — and no other provider request is cancelled, except those of the
 *   killed relay;
 * - one relay process is SIGKILLed mid-run (`--kill-at` ms): its clients resume on the other
 *   process; the streams it was producing are reported to their readers as `producer-lost`.
 *
 * Checked per client, across its first response and its resumes: every event id once and in
 * order (duplicates and gaps counted), the events' JSON equal to the turn's (the recording run
 * through the relay's pipeline here), then `end` — or the typed error it must get. Reported:
 * exact turns, duplicates, gaps, producer-lost reported against streams whose producer died,
 * resume latency (request to first byte), Redis memory per stream, relay CPU per relayed MB,
 * heap after the run. The last line reads
 * `resume: N/M exact, D duplicates, G gaps, L/K producer-lost reported, …`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { collectTurn, FieldEventStream, fromResponse, type PipelineEvent } from '../../src/index.ts';
import { errorClasses, readEvent } from '../../src/relay/wire.ts';
import { redisMissing, startRedis } from '../../test/redis/redis-server.ts';

// Bundled into node_modules/.cache: bench/resume.mjs says where the checkout is.
const ROOT = process.env['ARGSTREAM_ROOT'] ?? fileURLToPath(new URL('../../', import.meta.url));

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const CLIENTS = option('clients', 1000);
const PACE_MS = option('pace', 40);
const SPREAD_MS = option('spread', 4000);
const KILL_AT_MS = option('kill-at', 2000);
const LEASE_MS = option('lease', 5000);
const TIMEOUT_MS = option('timeout', 120_000);
const RELAY_BUNDLE = process.env['ARGSTREAM_RESUME_RELAY'] as string;
const PROVIDER_BUNDLE = process.env['ARGSTREAM_RESUME_PROVIDER'] as string;

const RECORDINGS = [
  'text-then-tool-use.sse',
  'text-ping-then-tool-use.sse',
  'text-then-2-parallel-tool-use.sse',
  'server-tool-use-code-execution-escapes-emoji.sse',
  'thinking-then-text.sse',
  'tool-use-truncated-max-tokens.sse',
];

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deterministic choices. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// Relays

interface Relay {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  dead: boolean;
}

/** Start a bundled process of the bench; it prints `listening <port>`. */
async function startProcess(name: string, bundle: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--expose-gc', bundle], { env: { ...process.env, NAME: name, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  process.once('exit', () => child.kill('SIGKILL'));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => process.stderr.write(`[${name}] ${text}`));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      const match = /listening (\d+)/.exec(out);
      if (match !== null) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function startRelay(name: string, redisUrl: string, providerUrl: string): Promise<Relay> {
  const { url, child } = await startProcess(name, RELAY_BUNDLE, { REDIS_URL: redisUrl, PROVIDER_URL: providerUrl, LEASE_MS: String(LEASE_MS) });
  return { name, url, child, dead: false };
}

interface RelayStats {
  cpu: { user: number; system: number };
  memory: { heapUsed: number; rss: number };
  bytesOut: number;
  kept: number;
  lagP99Ms: number;
  lagMaxMs: number;
  serveTimes: number[];
}

async function stats(relay: Relay, gc = false): Promise<RelayStats> {
  return (await (await fetch(`${relay.url}/stats${gc ? '?gc' : ''}`)).json()) as never;
}

// ---------------------------------------------------------------------------------------------
// Clients

type Role = 'read' | 'reconnect' | 'reload' | 'abort';

interface Outcome {
  readonly index: number;
  readonly role: Role;
  readonly recording: string;
  streamId: string | undefined;
  /** The relay that produces the stream (where the POST was answered). */
  producer: string | undefined;
  /** What it received, by id: an event's JSON, or a snapshot standing for the events up to its id. */
  readonly data: Array<{ readonly id: number; readonly data: string; readonly snapshot: boolean }>;
  /** Snapshots received (a page that starts at 0, a resume far behind). */
  snapshots: number;
  last: number;
  duplicates: number;
  gaps: number;
  ended: boolean;
  error: { name?: string; code?: string; message?: string } | undefined;
  /** Why the client itself failed (a request it could not make at all). */
  failure: string | undefined;
  resumes: number;
  readonly resumeLatencies: number[];
  stopSent: boolean;
  /** The first request: until the relay answered (the provider request made, the stream opened). */
  postLatency: number;
}

// The clients speak HTTP with node:http (fetch's web streams would cost the client process more
// than the relays it measures).
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** One HTTP request: the response (its body not read yet). */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent }, resolve);
    req.on('error', reject);
    req.end(options.body);
  });
}

async function text(response: IncomingMessage): Promise<string> {
  let out = '';
  response.setEncoding('utf8');
  for await (const chunk of response) out += chunk as string;
  return out;
}

/**
 * Reads SSE frames from a response: each event's id and data, the end, an error. `onFrame`
 * returning true cuts the connection. Rejects when the connection breaks (a killed relay).
 */
function readFrames(response: IncomingMessage, onFrame: (frame: { id?: number; event?: string; data?: string }) => boolean | void): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (error === undefined) resolve();
      else reject(error);
    };
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      if (settled) return;
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) !== -1) {
        const frameText = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: { id?: number; event?: string; data?: string } = {};
        let comment = true;
        for (const line of frameText.split('\n')) {
          if (line.startsWith(':')) continue;
          comment = false;
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 2);
          if (field === 'id') frame.id = Number(value);
          else if (field === 'event') frame.event = value;
          else if (field === 'data') frame.data = value;
        }
        if (comment) continue;
        if (onFrame(frame) === true) {
          settle();
          response.destroy();
          return;
        }
      }
    });
    response.on('end', () => settle());
    response.on('error', (error) => settle(error));
    response.on('close', () => settle(response.complete ? undefined : new Error('the connection was cut')));
  });
}

async function runClient(index: number, role: Role, recording: string, expected: number, relays: readonly Relay[], random: () => number): Promise<Outcome> {
  const outcome: Outcome = {
    index, role, recording, streamId: undefined, producer: undefined, data: [], last: 0, duplicates: 0, gaps: 0, ended: false, error: undefined, failure: undefined, resumes: 0, resumeLatencies: [], stopSent: false, postLatency: Number.NaN, snapshots: 0,
  };
  const home = relays[index % 2] as Relay;
  const away = relays[(index + 1) % 2] as Relay;
  const cutAfter = 1 + Math.floor(random() * Math.max(1, expected - 2));
  let cut = false;

  const onFrame = (frame: { id?: number; event?: string; data?: string }): boolean | void => {
    if (frame.event === 'end' && frame.id === undefined) {
      outcome.ended = true;
      return;
    }
    if (frame.event === 'error' && frame.id === undefined) {
      try {
        outcome.error = JSON.parse(frame.data ?? '{}') as Outcome['error'];
      } catch {
        outcome.error = { message: frame.data ?? '' };
      }
      return;
    }
    const id = frame.id as number;
    if (id <= outcome.last) {
      outcome.duplicates++;
      return;
    }
    // A snapshot stands for the events after the last one received, up to its id.
    const snapshot = frame.event === 'snapshot';
    if (!snapshot && id !== outcome.last + 1) outcome.gaps++;
    if (snapshot) outcome.snapshots++;
    outcome.last = id;
    outcome.data.push({ id, data: frame.data ?? '', snapshot });
    if (!cut && outcome.last >= cutAfter) {
      if (role === 'reconnect' || role === 'reload') {
        cut = true;
        return true; // cut the connection: resume on the other process
      }
      if (role === 'abort') {
        cut = true;
        outcome.stopSent = true;
        send(`${away.dead ? home.url : away.url}/chat/${outcome.streamId}/stop`, { method: 'POST' }).then(
          (response) => {
            response.resume();
            if (response.statusCode !== 204) outcome.stopSent = false;
          },
          () => {
            outcome.stopSent = false;
          },
        );
      }
    }
  };

  // The first request (to the other process when its own is dead).
  let response: IncomingMessage | undefined;
  for (const relay of [home, away]) {
    if (relay.dead) continue;
    try {
      const sent = performance.now();
      response = await send(`${relay.url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recording, client: index }) });
      outcome.postLatency = performance.now() - sent;
      break;
    } catch {
      // killed meanwhile: try the other
    }
  }
  if (response === undefined || response.statusCode !== 200) {
    outcome.failure = `POST /chat: ${response === undefined ? 'no relay answered' : `${response.statusCode} ${await text(response)}`}`;
    return outcome;
  }
  outcome.streamId = (response.headers['x-stream-id'] as string | undefined) ?? undefined;
  outcome.producer = (response.headers['x-relay'] as string | undefined) ?? undefined;
  let serving = relays.find((r) => r.name === outcome.producer) as Relay;
  try {
    await readFrames(response, onFrame);
  } catch {
    // the relay died under it
  }
  // Resume until the end or an error: on the other process after a cut, or wherever one lives.
  let attempts = 0;
  while (!outcome.ended && outcome.error === undefined) {
    if (++attempts > 20) {
      outcome.failure = 'gave up after 20 resumes';
      break;
    }
    const candidates = [serving === home ? away : home, serving].filter((r) => !r.dead);
    const target = candidates[0];
    if (target === undefined) {
      outcome.failure = 'no relay left';
      break;
    }
    serving = target;
    outcome.resumes++;
    const sent = performance.now();
    try {
      if (role === 'reload' && outcome.resumes === 1) {
        // A new page: it has nothing.
        outcome.data.length = 0;
        outcome.last = 0;
      }
      const resumed = await send(`${target.url}/chat/${outcome.streamId}`, outcome.last === 0 ? {} : { headers: { 'last-event-id': String(outcome.last) } });
      // The resume's latency: until the relay answers (the stream found, what it holds read from Redis).
      outcome.resumeLatencies.push(performance.now() - sent);
      if (resumed.statusCode !== 200) {
        outcome.failure = `resume: ${resumed.statusCode} ${await text(resumed)}`;
        break;
      }
      await readFrames(resumed, onFrame);
    } catch {
      if (!target.dead) await delay(50);
    }
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------------

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const classes = errorClasses(undefined);

/** A turn as JSON, to compare: what collectTurn makes of `events`. */
async function turnOf(events: readonly unknown[]): Promise<string> {
  let i = 0;
  const stream = new ReadableStream<PipelineEvent>({
    pull(controller) {
      if (i < events.length) controller.enqueue(events[i++] as PipelineEvent);
      else controller.close();
    },
  });
  return JSON.stringify(await collectTurn(stream));
}

/** The turn a recording makes through the relay's pipeline (read at once: the turn does not depend on the network's cuts). */
async function expectedTurn(bytes: Uint8Array): Promise<{ turn: string; events: number }> {
  const events: unknown[] = [];
  for await (const event of fromResponse(new Response(bytes as BodyInit), { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false })) as unknown as AsyncIterable<unknown>) events.push(event);
  return { turn: await turnOf(events), events: events.length };
}

/** A stream's events as the log holds them (the original events), and how it ended. */
async function logged(raw: { sendCommand(args: string[]): Promise<unknown> }, streamId: string): Promise<{ data: string[]; terminal: string | undefined }> {
  const entries = (await raw.sendCommand(['XRANGE', `bench:{${streamId}}:e`, '-', '+'])) as Array<[string, string[]]>;
  const data: string[] = [];
  let terminal: string | undefined;
  for (const [, fields] of entries) {
    const record = Object.fromEntries(fields.reduce<Array<[string, string]>>((pairs, value, i) => (i % 2 === 0 ? [...pairs, [value, '']] : (pairs.at(-1)![1] = value, pairs)), []));
    if (record['x'] !== undefined) terminal = record['x'];
    else data.push(record['d'] as string);
  }
  return { data, terminal };
}

async function main(): Promise<void> {
  const missing = redisMissing();
  if (missing !== undefined) {
    console.error(missing);
    process.exit(2);
  }
  const recordings = new Map(RECORDINGS.map((name) => [name, readFileSync(join(ROOT, 'test/fixtures/providers/anthropic', name))]));
  const expected = new Map<string, { turn: string; events: number }>();
  for (const [name, bytes] of recordings) expected.set(name, await expectedTurn(bytes));

  const redis = await startRedis();
  const provider = await startProcess('provider', PROVIDER_BUNDLE, { RECORDINGS_DIR: join(ROOT, 'test/fixtures/providers/anthropic'), RECORDINGS: RECORDINGS.join(','), PACE_MS: String(PACE_MS) });
  const providerUrl = `${provider.url}/v1/messages`;
  const raw = createClient({ url: redis.url });
  raw.on('error', () => {});
  await raw.connect();
  const relays = [await startRelay('A', redis.url, providerUrl), await startRelay('B', redis.url, providerUrl)];
  const [a, b] = relays as [Relay, Relay];
  const memoryBefore = Number(/used_memory:(\d+)/.exec(String(await raw.sendCommand(['INFO', 'memory'])))?.[1]);
  const cpuBefore = await stats(a);

  console.log(`resume bench: ${CLIENTS} clients over ${SPREAD_MS} ms on relays A and B (one redis-server), provider paced ${PACE_MS} ms per event, lease ${LEASE_MS} ms; relay B killed at ${KILL_AT_MS} ms`);
  const clientLag = monitorEventLoopDelay({ resolution: 10 });
  clientLag.enable();
  const random = rng(23);
  const started = performance.now();
  const clients: Array<Promise<Outcome>> = [];
  const killer = delay(KILL_AT_MS).then(() => {
    b.dead = true;
    b.child.kill('SIGKILL');
    console.log(`relay B killed at ${Math.round(performance.now() - started)} ms`);
  });
  for (let i = 0; i < CLIENTS; i++) {
    const draw = random();
    const role: Role = draw < 0.05 ? 'abort' : draw < 0.15 ? 'reconnect' : draw < 0.18 ? 'reload' : 'read';
    const recording = RECORDINGS[Math.floor(random() * RECORDINGS.length)] as string;
    const at = (i / CLIENTS) * SPREAD_MS;
    const seed = rng(1000 + i);
    clients.push(delay(at).then(() => runClient(i, role, recording, (expected.get(recording) as { events: number }).events, relays, seed)));
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcomes = await Promise.race([
    Promise.all(clients),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the clients did not finish within ${TIMEOUT_MS} ms`)), TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  await killer;
  const wall = performance.now() - started;

  // Which streams lost their producer: those still open in Redis (nobody ended them).
  const states = new Map<string, string>();
  for (const outcome of outcomes) {
    if (outcome.streamId === undefined) continue;
    states.set(outcome.streamId, String(await raw.sendCommand(['HGET', `bench:{${outcome.streamId}}:m`, 'state'])));
  }
  if (process.argv.includes('--commandstats')) {
    for (const line of String(await raw.sendCommand(['INFO', 'commandstats'])).split('\n')) if (line.startsWith('cmdstat_')) console.log(`  ${line.trim()}`);
    const cpu = String(await raw.sendCommand(['INFO', 'cpu']));
    console.log(`  redis ${/used_cpu_user:([\d.]+)/.exec(cpu)?.[1]} s user, ${/used_cpu_sys:([\d.]+)/.exec(cpu)?.[1]} s sys`);
  }
  const memoryAfter = Number(/used_memory:(\d+)/.exec(String(await raw.sendCommand(['INFO', 'memory'])))?.[1]);
  const streams = states.size;

  let exact = 0;
  let shouldBeExact = 0;
  let lostExpected = 0;
  let lostReported = 0;
  let stopped = 0;
  const problems: string[] = [];
  let duplicates = 0;
  let gaps = 0;
  for (const o of outcomes) {
    duplicates += o.duplicates;
    gaps += o.gaps;
    const log = o.streamId === undefined ? { data: [], terminal: undefined } : await logged(raw as never, o.streamId);
    // What the client got is what the log holds, from the first event on (a prefix when it ended early).
    // Each event received is the log's event of that id; a snapshot stands for events the log holds.
    const prefix = o.last <= log.data.length && o.data.every((d) => (d.snapshot ? d.id <= log.data.length : d.data === log.data[d.id - 1]));
    const lost = o.producer === 'B' && states.get(o.streamId ?? '') === 'open';
    if (o.failure !== undefined) {
      problems.push(`client ${o.index} (${o.role}): ${o.failure}`);
      if (lost) lostExpected++;
      else if (o.role !== 'abort') shouldBeExact++;
      continue;
    }
    if (lost) {
      lostExpected++;
      if (o.error?.code === 'producer-lost' && prefix) lostReported++;
      else problems.push(`client ${o.index}: its producer died, got ${JSON.stringify(o.error)} ended=${o.ended}`);
      continue;
    }
    const complete = o.ended && o.error === undefined && prefix && o.last === log.data.length && log.terminal === 'end';
    if (o.role === 'abort' && o.stopSent) {
      // Stopped (or finished before the stop arrived): a consistent prefix either way.
      if (o.error?.code === 'stopped' && prefix) stopped++;
      else if (!complete) problems.push(`client ${o.index} (stop): ${JSON.stringify(o.error)} ended=${o.ended}`);
      continue;
    }
    shouldBeExact++;
    // The turn the page builds: snapshots read as the events they stand for (collectTurn does).
    const turn = complete ? await turnOf(o.data.map((d) => (d.snapshot ? { type: 'snapshot', ...(readEvent(d.data, classes) as object) } : readEvent(d.data, classes)))) : '';
    if (complete && turn === (expected.get(o.recording) as { turn: string }).turn) exact++;
    else problems.push(`client ${o.index} (${o.role}, ${o.recording}, producer ${o.producer}): ${o.last}/${log.data.length} events (${o.snapshots} snapshots), prefix ${prefix}, ended ${o.ended}, error ${JSON.stringify(o.error)}, turn ${complete ? 'differs' : 'incomplete'}`);
  }
  // The provider requests cancelled: only those stopped, and those of the killed relay.
  const providerStats = (await (await fetch(`${provider.url}/stats`)).json()) as { cancelled: Array<[number, string]> };
  const cancelled = new Map(providerStats.cancelled);
  const stoppers = new Set(outcomes.filter((o) => o.role === 'abort' && o.stopSent).map((o) => o.index));
  let cancelledWithoutStop = 0;
  for (const [who, relay] of cancelled) if (!stoppers.has(who) && relay !== 'B') cancelledWithoutStop++;
  const stopsCancelled = [...cancelled.keys()].filter((who) => stoppers.has(who)).length;

  const latencies = outcomes.flatMap((o) => o.resumeLatencies);
  const resumed = outcomes.filter((o) => o.resumes > 0).length;
  const cpuAfter = await stats(a);
  await delay(200);
  const heap = await stats(a, true);
  const cpuMs = (cpuAfter.cpu.user + cpuAfter.cpu.system - cpuBefore.cpu.user - cpuBefore.cpu.system) / 1000;
  const relayedMb = (cpuAfter.bytesOut - cpuBefore.bytesOut) / 1e6;

  if (process.argv.includes('--latencies')) for (const o of outcomes) if (o.resumeLatencies.length > 0) console.log(`  client ${o.index} ${o.role} producer ${o.producer}: ${o.resumeLatencies.map((l) => l.toFixed(1)).join(', ')} ms`);
  for (const problem of problems.slice(0, 20)) console.log(`  ${problem}`);
  if (problems.length > 20) console.log(`  … and ${problems.length - 20} more`);
  console.log(`clients' event loop delay p99 ${(clientLag.percentile(99) / 1e6).toFixed(0)} ms, max ${(clientLag.max / 1e6).toFixed(0)} ms`);
  console.log(`relay A event loop delay p99 ${cpuAfter.lagP99Ms.toFixed(0)} ms, max ${cpuAfter.lagMaxMs.toFixed(0)} ms; its part of a resume (request → response: the stream found, what it holds read from Redis) p50 ${percentile(cpuAfter.serveTimes, 50).toFixed(1)} ms p99 ${percentile(cpuAfter.serveTimes, 99).toFixed(1)} ms`);
  for (const name of ['A', 'B']) {
    const posts = outcomes.filter((o) => o.producer === name && !Number.isNaN(o.postLatency)).map((o) => o.postLatency);
    console.log(`first requests answered by ${name}: ${posts.length}, p50 ${percentile(posts, 50).toFixed(0)} ms p99 ${percentile(posts, 99).toFixed(0)} ms`);
  }
  console.log(`machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (the latencies are wall-clock: other processes count)`);
  console.log(`snapshots received: ${outcomes.reduce((n, o) => n + o.snapshots, 0)} (by ${outcomes.filter((o) => o.snapshots > 0).length} clients)`);
  console.log(`wall ${Math.round(wall)} ms; ${streams} streams (A kept ${cpuAfter.kept}); ${resumed} clients resumed (${latencies.length} resumes); ${stopped} stopped of ${stoppers.size} stops, their provider requests cancelled: ${stopsCancelled}; provider requests cancelled without a stop (relay A): ${cancelledWithoutStop}, with relay B: ${[...cancelled.values()].filter((r) => r === 'B').length}`);
  console.log(
    `resume: ${exact}/${shouldBeExact} exact, ${duplicates} duplicates, ${gaps} gaps, ${lostReported}/${lostExpected} producer-lost reported, ` +
      `${cancelledWithoutStop} provider requests cancelled without a stop, resume latency (request → headers, at the client) p50 ${percentile(latencies, 50).toFixed(1)} ms p99 ${percentile(latencies, 99).toFixed(1)} ms (relay A's part p50 ${percentile(cpuAfter.serveTimes, 50).toFixed(1)} ms p99 ${percentile(cpuAfter.serveTimes, 99).toFixed(1)} ms), ` +
      `Redis ${((memoryAfter - memoryBefore) / Math.max(1, streams) / 1024).toFixed(1)} KB per stream, relay A ${(cpuMs / Math.max(relayedMb, 1e-9)).toFixed(0)} ms CPU per relayed MB (${relayedMb.toFixed(1)} MB), ` +
      `heap after the run ${(heap.memory.heapUsed / 1e6).toFixed(1)} MB`,
  );

  a.child.kill('SIGKILL');
  b.child.kill('SIGKILL');
  raw.destroy();
  provider.child.kill('SIGKILL');
  await redis.stop();
  process.exit(problems.length === 0 && exact === shouldBeExact && duplicates === 0 && gaps === 0 && lostReported === lostExpected && cancelledWithoutStop === 0 ? 0 : 1);
}

await main();
