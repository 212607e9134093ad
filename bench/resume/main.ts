/**
 * The resume load and fault test (`npm run bench:resume`): two relay processes (bench/resume/
 * relay.ts) sharing one redis-server, a paced provider (bench/resume/provider.ts) replaying
 * Anthropic turns (bench/resume/turns.ts: six recordings and scripted `write_file` calls), and
 * `--clients` clients (1,000) that all start within `--spread` ms (1 s) and stay connected for
 * their turn (44–56 s at the default pace), so that all of them are open at once:
 *
 * - 80% read their turn to the end;
 * - 7% cut their connection mid-stream and resume on the other process with `Last-Event-ID`;
 * - 3% reload mid-stream: a new page on the other process, without `Last-Event-ID` — it gets
 *   what the stream holds as one snapshot, then the tail;
 * - 5% press stop mid-stream: the page closes its connection and sends `POST /chat/:id/stop` to
 *   the other process; its provider request must be cancelled, and the stream, read again, must
 *   end with the typed `stopped` error, never `end`;
 * - 5% leave mid-stream: they close the connection without a stop (a closed tab, a sleeping
 *   phone). Their provider request must go on; they come back 2–8 s later on either process
 *   with `Last-Event-ID` and must get the exact turn;
 * - relay B is SIGKILLed mid-run (`--kill-at` ms): its clients resume on A; every stream whose
 *   producer was on B and still running must be reported to its reader as the typed
 *   `producer-lost`, within the lease.
 *
 * Checked per client, across its first response and its resumes: every event id once and in
 * order (duplicates and gaps counted), each event the log's event of that id, and the turn the
 * events make (collectTurn) equal to the turn the relay's pipeline makes of the provider's bytes
 * — or the typed error the client must get. Checked per provider request: cancelled only after an
 * explicit stop of its stream, or by the death of relay B; none left running. The streams whose
 * producer was lost (open in Redis at the end) must be the streams relay B was producing when it
 * died, by the provider's own record.
 *
 * With `--cluster`, Redis is a Redis Cluster of three masters with a replica each (six
 * redis-server processes, bench/../test/redis/redis-cluster.ts), the relays use node-redis's
 * `createCluster` and the log's `replicas: 1`, and besides relay B a master is SIGKILLed mid-run
 * (`--master-kill-at` ms) — its replica takes over — and started again `--master-down` ms later
 * (it rejoins as a replica, as a supervisor would restart it). Every turn must still be exact or
 * end in a typed error: what the log acknowledged survives the failover.
 *
 * The last line reads `resume: N/M exact, D duplicates, G gaps, L/K producer-lost reported, …`;
 * the process exits 1 unless every check holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createClient, createCluster } from 'redis';
import { collectTurn, FieldEventStream, fromResponse, type PipelineEvent } from '../../src/index.ts';
import { errorClasses, readEvent } from '../../src/relay/wire.ts';
import { BatchReader } from '../../src/relay/batch-reader.ts';
import { isDeepStrictEqual } from 'node:util';
import { redisMissing, startRedis } from '../../test/redis/redis-server.ts';
import { startCluster, type ClusterNode } from '../../test/redis/redis-cluster.ts';
import { hashSlot } from '../../src/log/redis-client.ts';
import { loadTurns, RECORDINGS, rng, SCRIPTED_SIZES, type ProviderRequest, type Turn } from './turns.ts';

// Bundled into node_modules/.cache: bench/resume.mjs says where the checkout is.
const ROOT = process.env['ARGSTREAM_ROOT'] ?? fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test/fixtures/providers/anthropic');

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

/** A Redis Cluster (three masters with a replica each) instead of one redis-server, and a master killed mid-run. */
const CLUSTER = process.argv.includes('--cluster');
const CLIENTS = option('clients', 1000);
/** Milliseconds between two provider events of a scripted turn. */
const PACE_MS = option('pace', 800);
/** The window in which every client starts. */
const SPREAD_MS = option('spread', 1000);
const KILL_AT_MS = option('kill-at', 30_000);
/** On a cluster the lease outlasts a failover (the node timeout, the election, the client's refresh of its map). */
const LEASE_MS = option('lease', CLUSTER ? 20_000 : 10_000);
/** When a master is killed (with --cluster), and how long it stays down before it is started again. */
const MASTER_KILL_AT_MS = option('master-kill-at', 20_000);
const MASTER_DOWN_MS = option('master-down', 5_000);
const TIMEOUT_MS = option('timeout', 240_000);
/** Of the clients, the share given a recording (the others a scripted call). */
const RECORDED_SHARE = option('recorded', 0.1);
/** A dead producer must be reported within 1.25 × the lease (RedisEventLog's bound), plus this for the client's own reconnection. */
const RECONNECT_ALLOWANCE_MS = option('reconnect-allowance', 2000);
const RELAY_BUNDLE = process.env['ARGSTREAM_RESUME_RELAY'] as string;
const PROVIDER_BUNDLE = process.env['ARGSTREAM_RESUME_PROVIDER'] as string;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Processes

interface Relay {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  dead: boolean;
}

/** Start a bundled process of the bench; it prints `listening <port>`. */
async function startProcess(name: string, bundle: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const profile = process.argv.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'node_modules/.cache/argstream-bench/profiles')}`] : [];
  const child = spawn(process.execPath, ['--expose-gc', ...profile, bundle], { env: { ...process.env, NAME: name, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

async function startRelay(name: string, redis: Record<string, string>, providerUrl: string): Promise<Relay> {
  const { url, child } = await startProcess(name, RELAY_BUNDLE, { ...redis, PROVIDER_URL: providerUrl, LEASE_MS: String(LEASE_MS) });
  return { name, url, child, dead: false };
}

interface RelayStats {
  cpu: { user: number; system: number };
  keptOutcomes: Record<string, number>;
  memory: { heapUsed: number; rss: number };
  bytesOut: number;
  kept: number;
  open: number;
  openPeak: number;
  lagP99Ms: number;
  lagMaxMs: number;
  serveTimes: number[];
  redisErrors: Record<string, number>;
}

async function stats(relay: Relay, gc = false): Promise<RelayStats> {
  return (await (await fetch(`${relay.url}/stats${gc ? '?gc' : ''}`)).json()) as never;
}


// ---------------------------------------------------------------------------------------------
// Clients

type Role = 'read' | 'reconnect' | 'reload' | 'stop' | 'leave';
type ResumeKind = 'reconnect' | 'return' | 'after-stop' | 'failover';

interface Plan {
  readonly index: number;
  readonly role: Role;
  readonly turn: string;
  /** Milliseconds between two provider events of this turn. */
  readonly pace: number;
  /** The relay event id after which the client cuts (reconnect, reload, stop, leave). */
  readonly cutAfter: number;
  /** How long a leaving client stays away. */
  readonly awayMs: number;
  readonly startAt: number;
}

interface Outcome {
  readonly plan: Plan;
  streamId: string | undefined;
  /** The relay that produces the stream (where the POST was answered). */
  producer: string | undefined;
  /**
   * What it received, by id: an event, or a snapshot standing for the events up to its id (its
   * events). Records carry batches of events (the relay's wire form), `id:` the last one's id.
   */
  readonly data: Array<{ readonly id: number; readonly events: readonly unknown[]; readonly snapshot: boolean }>;
  /** The batch reader of the response being read (each response's first entry starts its tables). */
  batches: BatchReader;
  snapshots: number;
  last: number;
  duplicates: number;
  gaps: number;
  ended: boolean;
  error: { name?: string; code?: string; message?: string } | undefined;
  /** How the error came: an `event: error` in the stream, or the status of a resume request. */
  errorVia: 'event' | 'status' | undefined;
  /** When it came (`Date.now()`). */
  errorAt: number;
  /** Why the client itself failed (a request it could not make, a status it did not expect). */
  failure: string | undefined;
  readonly resumes: Array<{ kind: ResumeKind; ms: number }>;
  stop: { sentAt: number; status: number } | undefined;
  /** A leaving client: when it closed its connection and when it came back. */
  leftAt: number;
  backAt: number;
  /** Where the client was when relay B was killed. */
  atKill: 'reading' | 'away' | 'done' | 'not started';
  state: 'reading' | 'away' | 'done' | 'not started';
  /** The first request: until the relay answered (the provider request made, the stream opened). */
  postLatency: number;
  /**
   * What the client took for a passing outage and asked again after, as a page that resumes by
   * itself does: a first request answered 503 (no stream yet: sent again), and `unavailable` while
   * reading (an `event: error`, or a resume answered 503: resumed). A failover makes them.
   */
  retried: { post: number; unavailable: number };
}

// The clients speak HTTP with node:http (fetch's web streams would cost the client process more
// than the relays it measures).
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** Event-stream requests in flight now, and the most at once: the clients' open connections. */
let openNow = 0;

/** One HTTP request: the response (its body not read yet). `stream`: counted as an open connection until it closes. */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; stream?: boolean } = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let counted = options.stream === true;
    if (counted) openNow++;
    const release = () => {
      if (counted) openNow--;
      counted = false;
    };
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (response) => {
      response.once('close', release);
      resolve(response);
    });
    req.on('error', (error) => {
      release();
      reject(error);
    });
    req.end(options.body);
  });
}

async function text(response: IncomingMessage): Promise<string> {
  let out = '';
  response.setEncoding('utf8');
  for await (const chunk of response) out += chunk as string;
  return out;
}

interface Frame {
  id?: number;
  event?: string;
  data?: string;
}

/**
 * Reads SSE frames from a response: each event's id and data, the end, an error. `onFrame`
 * returning true cuts the connection. Resolves `'cut'` then, `'closed'` at the response's end;
 * rejects when the connection breaks (a killed relay).
 */
function readFrames(response: IncomingMessage, onFrame: (frame: Frame) => boolean | void): Promise<'cut' | 'closed'> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let settled = false;
    const settle = (how: 'cut' | 'closed' | Error) => {
      if (settled) return;
      settled = true;
      if (how instanceof Error) reject(how);
      else resolve(how);
    };
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      if (settled) return;
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) !== -1) {
        const frameText = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: Frame = {};
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
          settle('cut');
          response.destroy();
          return;
        }
      }
    });
    response.on('end', () => settle('closed'));
    response.on('error', (error) => settle(error));
    response.on('close', () => settle(response.complete ? 'closed' : new Error('the connection was cut')));
  });
}

function newOutcome(plan: Plan): Outcome {
  return {
    plan, streamId: undefined, producer: undefined, data: [], batches: new BatchReader(classes, 256), snapshots: 0, last: 0, duplicates: 0, gaps: 0, ended: false, error: undefined, errorVia: undefined, errorAt: 0,
    failure: undefined, resumes: [], stop: undefined, leftAt: 0, backAt: 0, atKill: 'not started', state: 'not started', postLatency: Number.NaN, retried: { post: 0, unavailable: 0 },
  };
}

async function runClient(outcome: Outcome, relays: readonly Relay[], random: () => number): Promise<Outcome> {
  const plan = outcome.plan;
  outcome.state = 'reading';
  const { index, role } = plan;
  const home = relays[index % 2] as Relay;
  const away = relays[(index + 1) % 2] as Relay;
  const other = (relay: Relay) => (relay === home ? away : home);
  let cut = false;

  const onFrame = (frame: Frame): boolean | void => {
    if (frame.event === 'end' && frame.id === undefined) {
      outcome.ended = true;
      return;
    }
    if (frame.event === 'error' && frame.id === undefined) {
      let error: Outcome['error'];
      try {
        error = JSON.parse(frame.data ?? '{}') as Outcome['error'];
      } catch {
        error = { message: frame.data ?? '' };
      }
      // Redis unavailable (a failover): a passing outage — the client resumes, as a page that resumes by itself does.
      if (error?.name === 'EventLogError' && error.code === 'unavailable') {
        outcome.retried.unavailable++;
        return;
      }
      outcome.error = error;
      outcome.errorVia = 'event';
      outcome.errorAt = Date.now();
      return;
    }
    const id = frame.id as number;
    // A record's events, read as a page reads them; their ids count up to the record's.
    const events: unknown[] = [];
    outcome.batches.read(JSON.parse(frame.data ?? '[]') as unknown[], events);
    // A snapshot stands for the events after the last one received, up to its id.
    const snapshot = frame.event === 'snapshot';
    if (snapshot) {
      if (id <= outcome.last) outcome.duplicates++;
      else {
        outcome.snapshots++;
        outcome.last = id;
        outcome.data.push({ id, events, snapshot });
      }
    } else {
      for (let k = 0; k < events.length; k++) {
        const eventId = id - events.length + 1 + k;
        if (eventId <= outcome.last) {
          outcome.duplicates++;
          continue;
        }
        if (eventId !== outcome.last + 1) outcome.gaps++;
        outcome.last = eventId;
        outcome.data.push({ id: eventId, events: [events[k]], snapshot });
      }
    }
    if (!cut && role !== 'read' && outcome.last >= plan.cutAfter) {
      cut = true;
      return true; // close the connection
    }
  };

  // The first request (to the other process when its own is dead); answered 503 (the log could
  // not open the stream: a failover), sent again a little later, at most 8 times.
  let response: IncomingMessage | undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    response = undefined;
    for (const relay of [home, away]) {
      if (relay.dead) continue;
      try {
        const sent = performance.now();
        response = await send(`${relay.url}/chat`, { method: 'POST', stream: true, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turn: plan.turn, pace: plan.pace, client: index }) });
        outcome.postLatency = performance.now() - sent;
        break;
      } catch {
        // killed meanwhile: try the other
      }
    }
    if (response?.statusCode !== 503 || attempt === 7) break;
    await text(response);
    outcome.retried.post++;
    await delay(250 * 2 ** Math.min(attempt, 3) * (0.5 + random()));
  }
  if (response === undefined || response.statusCode !== 200) {
    outcome.failure = `POST /chat: ${response === undefined ? 'no relay answered' : `${response.statusCode} ${await text(response)}`}`;
    outcome.state = 'done';
    return outcome;
  }
  outcome.streamId = (response.headers['x-stream-id'] as string | undefined) ?? undefined;
  outcome.producer = (response.headers['x-relay'] as string | undefined) ?? undefined;
  let serving = relays.find((r) => r.name === outcome.producer) as Relay;
  let how: 'cut' | 'closed' | 'broken';
  try {
    how = await readFrames(response, onFrame);
  } catch {
    how = 'broken'; // the relay died under it
  }

  // Resume until the end or an error.
  let handled = false;
  let attempts = 0;
  while (!outcome.ended && outcome.error === undefined) {
    if (++attempts > 20) {
      outcome.failure = 'gave up after 20 resumes';
      break;
    }
    let kind: ResumeKind = 'failover';
    let target: Relay | undefined;
    let fresh = false;
    if (how === 'cut' && !handled) {
      handled = true;
      if (role === 'reconnect' || role === 'reload') {
        kind = 'reconnect';
        target = other(serving);
        fresh = role === 'reload';
      } else if (role === 'leave') {
        outcome.leftAt = Date.now();
        outcome.state = 'away';
        await delay(plan.awayMs);
        outcome.state = 'reading';
        outcome.backAt = Date.now();
        kind = 'return';
        target = random() < 0.5 ? home : away;
      } else if (role === 'stop') {
        // The stop button, on the other process (or this one when the other is dead).
        const stopAt = [other(serving), serving].find((r) => !r.dead);
        if (stopAt === undefined) {
          outcome.failure = 'no relay left to stop on';
          break;
        }
        outcome.stop = { sentAt: Date.now(), status: 0 };
        // A stop sent to a relay that dies before it answers is sent again to the other.
        for (const relay of [stopAt, other(stopAt)]) {
          if (relay.dead) continue;
          try {
            const stopped = await send(`${relay.url}/chat/${outcome.streamId}/stop`, { method: 'POST' });
            outcome.stop.status = stopped.statusCode ?? 0;
            await text(stopped);
            target = relay;
            break;
          } catch (error) {
            outcome.failure = `stop: ${(error as Error).message}`;
          }
        }
        if (outcome.stop.status === 0) break;
        outcome.failure = undefined;
        kind = 'after-stop';
      }
    }
    if (target === undefined || target.dead) target = [other(serving), serving].find((r) => !r.dead);
    if (target === undefined) {
      outcome.failure = 'no relay left';
      break;
    }
    serving = target;
    const sent = performance.now();
    try {
      if (fresh) {
        // A new page: it has nothing.
        outcome.data.length = 0;
        outcome.last = 0;
      }
      const resumed = await send(`${target.url}/chat/${outcome.streamId}`, { stream: true, ...(outcome.last === 0 ? {} : { headers: { 'last-event-id': String(outcome.last) } }) });
      // The resume's latency: until the relay answers (the stream found, what it holds read from Redis).
      outcome.resumes.push({ kind, ms: performance.now() - sent });
      if (resumed.statusCode === 503) {
        // Redis unavailable (a failover): resumed again a little later.
        await text(resumed);
        outcome.retried.unavailable++;
        how = 'closed';
        await delay(250 + 250 * random());
        continue;
      }
      if (resumed.statusCode !== 200) {
        const body = await text(resumed);
        // A resume after the producer's lease ran out: the typed error as a status and its code.
        const code = /^([a-z-]+):/.exec(body)?.[1];
        if (resumed.statusCode === 502 && code === 'producer-lost') {
          outcome.error = { code };
          outcome.errorVia = 'status';
          outcome.errorAt = Date.now();
        } else outcome.failure = `resume: ${resumed.statusCode} ${body.trim()}`;
        break;
      }
      how = await readFrames(resumed, onFrame);
    } catch {
      how = 'broken';
      if (!target.dead) await delay(50);
    }
  }
  outcome.state = 'done';
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Checking

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

/**
 * The turn the provider's bytes make through the relay's pipeline, and its number of relay
 * events when the provider's events come one per read, as the paced provider sends them (a
 * field delta each; read at once, they would be coalesced). The turn is the same either way.
 */
async function expectedTurn(turn: Turn): Promise<{ turn: string; events: number }> {
  const events: unknown[] = [];
  const encoder = new TextEncoder();
  let i = 0;
  const body = new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < turn.events.length) controller.enqueue(encoder.encode(turn.events[i++]));
        else controller.close();
      },
    }),
  );
  for await (const event of fromResponse(body, { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false })) as unknown as AsyncIterable<unknown>) events.push(event);
  return { turn: await turnOf(events), events: events.length };
}

interface Logged {
  data: string[];
  /** `end`, the code of the error it failed with, or `undefined` (no terminal entry: the producer is gone). */
  terminal: string | undefined;
  bytes: number;
}

/** A stream's events as the log holds them (the original events), and how it ended. */
async function logged(command: (key: string, args: string[]) => Promise<unknown>, streamId: string): Promise<Logged> {
  const key = `bench:{${streamId}}:e`;
  const entries = (await command(key, ['XRANGE', key, '-', '+'])) as Array<[string, string[]]>;
  const data: string[] = [];
  let terminal: string | undefined;
  let bytes = 0;
  for (const [, fields] of entries) {
    const record: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] as string] = fields[i + 1] as string;
    if (record['x'] === 'end') terminal = 'end';
    else if (record['x'] === 'error') terminal = String((JSON.parse(record['d'] ?? '{}') as { code?: string }).code ?? 'error');
    else {
      data.push(record['d'] as string);
      bytes += Buffer.byteLength(record['d'] as string);
    }
  }
  return { data, terminal, bytes };
}

function ms(value: number): string {
  return Number.isNaN(value) ? '–' : value >= 100 ? `${Math.round(value)} ms` : `${value.toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const missing = redisMissing();
  if (missing !== undefined) {
    console.error(missing);
    process.exit(2);
  }
  const turns = loadTurns(FIXTURES);
  const expected = new Map<string, { turn: string; events: number }>();
  for (const [name, turn] of turns) expected.set(name, await expectedTurn(turn));

  // The plans: roles, turns, paces and cut points, the same every run.
  const random = rng(23);
  const scriptedEvents = SCRIPTED_SIZES.map((size) => (turns.get(`write-file-${size}`) as Turn).events.length);
  const shortest = Math.min(...scriptedEvents) * PACE_MS;
  const longest = Math.max(...scriptedEvents) * PACE_MS;
  const plans: Plan[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const draw = random();
    const role: Role = draw < 0.05 ? 'stop' : draw < 0.1 ? 'leave' : draw < 0.17 ? 'reconnect' : draw < 0.2 ? 'reload' : 'read';
    let turn: string;
    let pace: number;
    if (random() < RECORDED_SHARE) {
      // A recording, spread over a turn's length: the model pauses between its events.
      turn = RECORDINGS[Math.floor(random() * RECORDINGS.length)] as string;
      pace = Math.round((shortest + random() * (longest - shortest)) / (turns.get(turn) as Turn).events.length);
    } else {
      turn = `write-file-${SCRIPTED_SIZES[Math.floor(random() * SCRIPTED_SIZES.length)]}`;
      pace = PACE_MS;
    }
    const events = (expected.get(turn) as { events: number }).events;
    // Cut between 40% and 90% of the turn: long after every client has started.
    const cutAfter = Math.max(1, Math.min(events - 1, Math.floor(events * (0.4 + 0.5 * random()))));
    plans.push({ index: i, role, turn, pace, cutAfter, awayMs: 2000 + Math.floor(random() * 6000), startAt: (i / CLIENTS) * SPREAD_MS });
  }

  // One redis-server, or a cluster of three masters with a replica each.
  const redis = CLUSTER ? undefined : await startRedis();
  const cluster = CLUSTER ? await startCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 1000 }) : undefined;
  const provider = await startProcess('provider', PROVIDER_BUNDLE, { FIXTURES });
  const providerUrl = `${provider.url}/v1/messages`;
  let command: (key: string, args: string[]) => Promise<unknown>;
  let closeRaw: () => void;
  if (cluster !== undefined) {
    const raw = createCluster({ rootNodes: cluster.nodes.map((node) => ({ url: node.url })) });
    raw.on('error', () => {});
    await raw.connect();
    command = (key, args) => raw.sendCommand(key, false, args);
    closeRaw = () => raw.destroy();
  } else {
    const raw = createClient({ url: redis!.url });
    raw.on('error', () => {});
    await raw.connect();
    command = (_key, args) => raw.sendCommand(args);
    closeRaw = () => raw.destroy();
  }
  /** INFO of every master (one server: itself), summed: used memory, CPU seconds. */
  const redisInfo = async (): Promise<{ memory: number; cpu: number }> => {
    const infos = cluster === undefined ? [String(await command('', ['INFO']))] : await Promise.all((await Promise.all(cluster.nodes.filter((n) => n.alive()).map(async (n) => ((await n.master()) ? n : undefined)))).flatMap((n) => (n === undefined ? [] : [cluster.cli(n.port, 'INFO')])));
    let memory = 0;
    let cpu = 0;
    for (const info of infos) {
      memory += Number(/used_memory:(\d+)/.exec(info)?.[1]);
      cpu += Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
    }
    return { memory, cpu };
  };
  const target: Record<string, string> = cluster === undefined ? { REDIS_URL: redis!.url } : { REDIS_CLUSTER: cluster.nodes.map((n) => n.url).join(','), REPLICAS: '1' };
  const relays = [await startRelay('A', target, providerUrl), await startRelay('B', target, providerUrl)];
  const [a, b] = relays as [Relay, Relay];
  const infoBefore = await redisInfo();
  const statsBefore = [await stats(a), await stats(b)] as const;

  const recorded = plans.filter((p) => turns.get(p.turn)?.recorded === true).length;
  const count = (role: Role) => plans.filter((p) => p.role === role).length;
  console.log(
    `resume bench: ${CLIENTS} clients started within ${SPREAD_MS} ms on relays A and B (${CLUSTER ? `a Redis Cluster of three masters with a replica each, replicas: 1; a master killed at ${MASTER_KILL_AT_MS} ms, started again ${MASTER_DOWN_MS} ms later` : 'one redis-server'}); turns of ${(shortest / 1000).toFixed(0)}–${(longest / 1000).toFixed(0)} s ` +
      `(${CLIENTS - recorded} scripted write_file calls, one provider event per ${PACE_MS} ms; ${recorded} recordings spread over as long); ` +
      `${count('reconnect')} reconnect, ${count('reload')} reload, ${count('stop')} stop, ${count('leave')} leave and come back, ${count('read')} read; lease ${LEASE_MS} ms; relay B killed at ${KILL_AT_MS} ms`,
  );
  const clientLag = monitorEventLoopDelay({ resolution: 10 });
  clientLag.enable();
  const outcomes = plans.map(newOutcome);
  const started = performance.now();
  const startedAt = Date.now();

  // Open connections over time: the clients' own count every 100 ms, the relays' every second.
  const samples: Array<[number, number]> = [];
  const sampler = setInterval(() => samples.push([performance.now() - started, openNow]), 100);
  let relayPeak = 0;
  let relaySampling = true;
  const relaySampler = (async () => {
    while (relaySampling) {
      let sum = 0;
      for (const relay of relays) {
        if (relay.dead) continue;
        try {
          sum += ((await (await fetch(`${relay.url}/stats?brief`)).json()) as { open: number }).open;
        } catch {
          // killed meanwhile
        }
      }
      relayPeak = Math.max(relayPeak, sum);
      await delay(1000);
    }
  })();

  let killAt = 0;
  let killOpen = 0;
  let bAtKill: RelayStats | undefined;
  // B's figures a second before it dies (asked at the kill, a loaded B would answer late).
  const lastStats = delay(KILL_AT_MS - 1000).then(async () => {
    if (!finished) bAtKill = await stats(b);
  });
  let finished = false;
  const killer = delay(KILL_AT_MS).then(async () => {
    if (finished) return; // every client finished first (a short run): nothing to kill
    b.dead = true;
    b.child.kill('SIGKILL');
    killAt = Date.now();
    killOpen = openNow;
    for (const o of outcomes) o.atKill = o.state;
    console.log(`relay B killed at ${killAt - startedAt} ms (${killOpen} client connections open)`);
  });
  // With --cluster: a master killed (SIGKILL), its replica promoted by the cluster, the master started again later.
  let masterKill: { port: number; killedAt: number; promotedAfterMs: number; backAfterMs: number; healthyAfterMs: number } | undefined;
  /** The slots the killed master served: the streams there lived through its failover. */
  let killedSlots: Array<[number, number]> = [];
  const masterKiller =
    cluster === undefined
      ? Promise.resolve()
      : delay(MASTER_KILL_AT_MS).then(async () => {
          if (finished) return;
          const master = cluster.nodes[0] as ClusterNode;
          const replica = await cluster.replicaOf(master);
          const own = (await cluster.cli(master.port, 'CLUSTER', 'NODES')).split('\n').find((line) => line.startsWith(master.id)) ?? '';
          killedSlots = own.trim().split(' ').slice(8).map((range) => range.split('-').map(Number) as [number, number]).map(([from, to]) => [from, to ?? from]);
          const killedAt = Date.now();
          await master.kill();
          console.log(`master ${master.port} killed at ${killedAt - startedAt} ms`);
          await cluster.waitFor(() => replica.master(), 60_000, `${replica.port} promoted`);
          const promotedAfterMs = Date.now() - killedAt;
          await delay(Math.max(0, MASTER_DOWN_MS - promotedAfterMs));
          await master.restart();
          const backAfterMs = Date.now() - killedAt;
          await cluster.healthy(60_000);
          masterKill = { port: master.port, killedAt, promotedAfterMs, backAfterMs, healthyAfterMs: Date.now() - killedAt };
          console.log(`master ${master.port}: its replica ${replica.port} promoted ${promotedAfterMs} ms after the kill; started again at ${backAfterMs} ms, the cluster whole again at ${masterKill.healthyAfterMs} ms`);
        });
  const clients = outcomes.map((outcome) => delay(outcome.plan.startAt).then(() => runClient(outcome, relays, rng(1000 + outcome.plan.index))));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(clients),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the clients did not finish within ${TIMEOUT_MS} ms`)), TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  finished = true;
  if (KILL_AT_MS < performance.now() - started) await killer;
  if (MASTER_KILL_AT_MS < performance.now() - started) await masterKiller;
  if (KILL_AT_MS - 1000 < performance.now() - started) await lastStats;
  clearInterval(sampler);
  relaySampling = false;
  await relaySampler;
  const wall = performance.now() - started;

  // ---- What the log holds, what the provider did.
  const logs = new Map<string, Logged>();
  let dataBytes = 0;
  for (const o of outcomes) {
    if (o.streamId === undefined) continue;
    const log = await logged(command, o.streamId);
    logs.set(o.streamId, log);
    dataBytes += log.bytes;
  }
  if (process.argv.includes('--commandstats') && cluster === undefined) {
    for (const line of String(await command('', ['INFO', 'commandstats'])).split('\n')) if (line.startsWith('cmdstat_')) console.log(`  ${line.trim()}`);
  }
  const infoAfter = await redisInfo();
  const memoryBefore = infoBefore.memory;
  const memoryAfter = infoAfter.memory;
  const streams = logs.size;
  const providerRequests = ((await (await fetch(`${provider.url}/stats`)).json()) as { requests: ProviderRequest[] }).requests;
  const requestsOf = new Map<number, ProviderRequest[]>();
  for (const r of providerRequests) requestsOf.set(r.client, [...(requestsOf.get(r.client) ?? []), r]);

  const problems: string[] = [];
  /** A provider request that finished this close before the kill may have left its stream open or ended: either is right. */
  const BOUNDARY_MS = 250;
  let exact = 0;
  let shouldBeExact = 0;
  let lostInLog = 0; // K: streams left open (no terminal entry): their producer is gone
  let runningOnB = 0; // K': streams whose provider request relay B was making when it died
  let boundary = 0;
  let lostReported = 0; // L
  const lostDetection: number[] = [];
  let stopsExpected = 0;
  let stopsCancelled = 0;
  let stopsTooLate = 0;
  let leftBackLive = 0;
  let leftBackAfterEnd = 0;
  let duplicates = 0;
  let gaps = 0;
  for (const o of outcomes) {
    const label = `client ${o.plan.index} (${o.plan.role}, ${o.plan.turn}, producer ${o.producer})`;
    duplicates += o.duplicates;
    gaps += o.gaps;
    if (o.failure !== undefined) problems.push(`${label}: ${o.failure}`);
    if (o.streamId === undefined) continue;
    const log = logs.get(o.streamId) as Logged;
    const requests = requestsOf.get(o.plan.index) ?? [];
    if (requests.length !== 1) {
      problems.push(`${label}: ${requests.length} provider requests`);
      continue;
    }
    const request = requests[0] as ProviderRequest;
    if (request.relay !== o.producer) problems.push(`${label}: the provider request came from ${request.relay}`);
    // By the provider's record: was relay B making this request when it died?
    const finishedBeforeKill = request.finishedAt !== undefined && request.finishedAt < killAt;
    const running = request.relay === 'B' && killAt > 0 && !finishedBeforeKill;
    const nearKill = request.relay === 'B' && finishedBeforeKill && killAt - (request.finishedAt as number) < BOUNDARY_MS;
    if (running) runningOnB++;
    if (nearKill) boundary++;
    const open = log.terminal === undefined;
    if (open) lostInLog++;
    if (open && !running && !nearKill) problems.push(`${label}: open in the log (no end, no error), but its provider request was not running on B when B died (${request.how} at ${(request.finishedAt ?? 0) - killAt} ms from the kill)`);
    if (running && !open) problems.push(`${label}: its producer died on B, but the log has ${log.terminal}`);

    // What the client got is what the log holds, from the first event on (a prefix when it ended early).
    // Each event received is the log's event of that id; a snapshot stands for events the log holds.
    const prefix = o.last <= log.data.length && o.data.every((d) => (d.snapshot ? d.id <= log.data.length : isDeepStrictEqual(d.events[0], readEvent(log.data[d.id - 1] as string, classes))));

    if (o.plan.role === 'leave' && o.backAt > 0) {
      if (request.finishedAt !== undefined && request.finishedAt <= o.backAt) leftBackAfterEnd++;
      else leftBackLive++;
    }
    if (open) {
      // Its producer died: the client must get the typed producer-lost, after events that are the log's.
      if (o.error?.code === 'producer-lost' && prefix && !o.ended) {
        lostReported++;
        if (o.atKill === 'reading') lostDetection.push(o.errorAt - killAt);
      } else if (o.failure === undefined) problems.push(`${label}: its producer died; got error ${JSON.stringify(o.error)}, ended ${o.ended}, prefix ${prefix}`);
      continue;
    }
    // Not lost: the provider request was cancelled only by an explicit stop of this stream.
    const stopApplies = o.stop !== undefined && o.stop.status === 204 && (request.finishedAt === undefined || request.finishedAt >= o.stop.sentAt || request.how === 'cancelled');
    if (o.stop !== undefined && o.stop.status !== 204) problems.push(`${label}: stop answered ${o.stop.status}`);
    if (stopApplies && request.how === 'completed' && (request.finishedAt as number) - o.stop!.sentAt < BOUNDARY_MS && log.terminal === 'end') {
      // The stop crossed the provider's last event: the turn ended whole.
      stopsTooLate++;
    } else if (stopApplies) {
      stopsExpected++;
      const cancelled = request.how === 'cancelled' && (request.finishedAt as number) >= o.stop!.sentAt;
      if (cancelled) stopsCancelled++;
      else problems.push(`${label}: stopped, but its provider request was ${request.how}`);
      if (log.terminal !== 'stopped') problems.push(`${label}: stopped, but the log has ${log.terminal}`);
      if (!(o.error?.code === 'stopped' && prefix && !o.ended)) problems.push(`${label}: stopped; read again, got error ${JSON.stringify(o.error)}, ended ${o.ended}, prefix ${prefix}`);
      continue;
    }
    shouldBeExact++;
    if (request.how !== 'completed') problems.push(`${label}: no stop, but its provider request was ${request.how}`);
    const complete = o.ended && o.error === undefined && prefix && o.last === log.data.length && log.terminal === 'end';
    // The turn the page builds: snapshots read as the events they stand for (collectTurn does).
    const turn = complete ? await turnOf(o.data.flatMap((d) => d.events)) : '';
    if (complete && turn === (expected.get(o.plan.turn) as { turn: string }).turn) exact++;
    else if (o.failure === undefined) problems.push(`${label}: ${o.last}/${log.data.length} events (${o.snapshots} snapshots), prefix ${prefix}, ended ${o.ended}, error ${JSON.stringify(o.error)}, log ${log.terminal}, turn ${complete ? 'differs' : 'incomplete'}`);
  }
  // Every provider request was cancelled only by a stop or by B's death, and none is left running.
  const stopperSentAt = new Map(outcomes.filter((o) => o.stop?.status === 204).map((o) => [o.plan.index, o.stop!.sentAt]));
  let cancelledWithoutStop = 0;
  let cancelledByKill = 0;
  let stillRunning = 0;
  for (const r of providerRequests) {
    if (r.how === 'running') stillRunning++;
    if (r.how !== 'cancelled') continue;
    if (r.relay === 'B' && (r.finishedAt as number) >= killAt && killAt > 0) cancelledByKill++;
    else if (!(stopperSentAt.has(r.client) && (r.finishedAt as number) >= (stopperSentAt.get(r.client) as number))) {
      cancelledWithoutStop++;
      problems.push(`client ${r.client}: its provider request (relay ${r.relay}) was cancelled without a stop`);
    }
  }
  if (stillRunning > 0) problems.push(`${stillRunning} provider requests still running after every client finished`);
  if (providerRequests.length !== outcomes.filter((o) => o.streamId !== undefined).length) problems.push(`${providerRequests.length} provider requests for ${outcomes.filter((o) => o.streamId !== undefined).length} streams`);
  if (lostInLog < runningOnB || lostInLog > runningOnB + boundary) problems.push(`${lostInLog} streams lost their producer, but relay B was making ${runningOnB} provider requests when it died (${boundary} finishing within ${BOUNDARY_MS} ms of it)`);
  const detectionBound = 1.25 * LEASE_MS + RECONNECT_ALLOWANCE_MS;
  const lateDetections = lostDetection.filter((t) => t > detectionBound).length;
  if (lateDetections > 0) problems.push(`${lateDetections} clients learned of their dead producer later than ${detectionBound} ms after the kill (max ${Math.round(Math.max(...lostDetection))} ms)`);

  // ---- Figures.
  const aAfter = await stats(a);
  await delay(200);
  const heap = await stats(a, true);
  const cpuMsOf = (after: RelayStats, before: RelayStats) => (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
  const aCpuMs = cpuMsOf(aAfter, statsBefore[0]);
  const aMb = (aAfter.bytesOut - statsBefore[0].bytesOut) / 1e6;
  const bCpuMs = bAtKill === undefined ? Number.NaN : cpuMsOf(bAtKill, statsBefore[1]);
  const bMb = bAtKill === undefined ? Number.NaN : (bAtKill.bytesOut - statsBefore[1].bytesOut) / 1e6;

  const peak = Math.max(...samples.map(([, n]) => n));
  const heldFor = (n: number) => (samples.filter(([, open]) => open >= n).length * 100) / 1000;
  const firstAt = (n: number) => samples.find(([, open]) => open >= n)?.[0];
  const timeline: string[] = [];
  for (let at = 5000; at <= wall; at += 5000) {
    const sample = samples.find(([t]) => t >= at);
    if (sample !== undefined) timeline.push(`${at / 1000} s ${sample[1]}`);
  }

  const resumes = outcomes.flatMap((o) => o.resumes);
  const latencies = resumes.map((r) => r.ms);
  const byKind = (kind: ResumeKind) => resumes.filter((r) => r.kind === kind).map((r) => r.ms);
  const voluntary = resumes.filter((r) => r.kind === 'reconnect' || r.kind === 'return').map((r) => r.ms);
  const posts = outcomes.filter((o) => !Number.isNaN(o.postLatency)).map((o) => o.postLatency);

  if (process.argv.includes('--latencies')) for (const o of outcomes) if (o.resumes.length > 0) console.log(`  client ${o.plan.index} ${o.plan.role} producer ${o.producer}: ${o.resumes.map((r) => `${r.kind} ${r.ms.toFixed(1)}`).join(', ')} ms`);
  for (const problem of problems.slice(0, 30)) console.log(`  ${problem}`);
  if (problems.length > 30) console.log(`  … and ${problems.length - 30} more`);
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model.trim()}), shared with other work; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end (latencies are wall-clock: other processes count)`);
  console.log(`open client connections: peak ${peak} (the relays' event streams being sent, sampled each second: peak ${relayPeak}); all ${CLIENTS} open from ${firstAt(CLIENTS) === undefined ? '–' : `${(firstAt(CLIENTS)! / 1000).toFixed(1)} s`} for ${heldFor(CLIENTS).toFixed(1)} s, ≥ 98% for ${heldFor(0.98 * CLIENTS).toFixed(1)} s, ≥ 95% for ${heldFor(0.95 * CLIENTS).toFixed(1)} s, ≥ 50% for ${heldFor(0.5 * CLIENTS).toFixed(1)} s of the ${(wall / 1000).toFixed(1)} s run; ${killOpen} open when B was killed`);
  console.log(`  over time: ${timeline.join(', ')}`);
  console.log(`first requests (POST /chat → headers, ${CLIENTS} within ${SPREAD_MS} ms): p50 ${ms(percentile(posts, 50))} p99 ${ms(percentile(posts, 99))}; A kept ${aAfter.kept} streams, B ${bAtKill?.kept ?? '?'}`);
  console.log(`resumes (request → headers, at the client): ${resumes.length}; reconnect/reload p50 ${ms(percentile(byKind('reconnect'), 50))} p99 ${ms(percentile(byKind('reconnect'), 99))}; back after leaving p50 ${ms(percentile(byKind('return'), 50))} p99 ${ms(percentile(byKind('return'), 99))}; after a stop p50 ${ms(percentile(byKind('after-stop'), 50))}; after B's death (${byKind('failover').length} at once) p50 ${ms(percentile(byKind('failover'), 50))} p99 ${ms(percentile(byKind('failover'), 99))}`);
  console.log(`relay A's part of a resume (request → response: the stream found, what it holds read from Redis): p50 ${ms(percentile(aAfter.serveTimes, 50))} p99 ${ms(percentile(aAfter.serveTimes, 99))}; event loop delay p99 ${ms(aAfter.lagP99Ms)}, max ${ms(aAfter.lagMaxMs)}; clients' event loop delay p99 ${ms(clientLag.percentile(99) / 1e6)}`);
  console.log(`producer-lost: ${lostReported}/${lostInLog} streams left open reported to their client; relay B was making ${runningOnB} provider requests when it died (${boundary} finished within ${BOUNDARY_MS} ms before); the ${lostDetection.length} clients reading then learned it p50 ${ms(percentile(lostDetection, 50))}, max ${ms(Math.max(...lostDetection))} after the kill (lease ${LEASE_MS} ms; bound 1.25 × lease + ${RECONNECT_ALLOWANCE_MS} ms to reconnect)`);
  console.log(`stops: ${stopsCancelled}/${stopsExpected} cancelled their provider request and ended their stream as stopped (${stopsTooLate} crossed the turn's end); provider requests cancelled by B's death ${cancelledByKill}, without a stop ${cancelledWithoutStop}; left and came back: ${leftBackLive} during the turn, ${leftBackAfterEnd} after its end`);
  console.log(`how the streams kept ended: A ${JSON.stringify(aAfter.keptOutcomes)}; B a second before it died ${JSON.stringify(bAtKill?.keptOutcomes)}`);
  console.log(`snapshots received: ${outcomes.reduce((n, o) => n + o.snapshots, 0)} (by ${outcomes.filter((o) => o.snapshots > 0).length} clients)`);
  const postRetries = outcomes.reduce((n, o) => n + o.retried.post, 0);
  const unavailableRetries = outcomes.reduce((n, o) => n + o.retried.unavailable, 0);
  console.log(`asked again after a passing outage (as a page that resumes by itself): ${postRetries} first requests answered 503 sent again (by ${outcomes.filter((o) => o.retried.post > 0).length} clients), ${unavailableRetries} unavailable while reading resumed (by ${outcomes.filter((o) => o.retried.unavailable > 0).length} clients)`);
  console.log(`Redis${cluster === undefined ? '' : ' (the masters, summed; the killed one counted from its restart)'}: ${((memoryAfter - memoryBefore) / 1e6).toFixed(1)} MB for ${streams} streams holding ${(dataBytes / 1e6).toFixed(1)} MB of event JSON (${(dataBytes / Math.max(1, streams) / 1024).toFixed(1)} KB a stream); CPU ${(infoAfter.cpu - infoBefore.cpu).toFixed(1)} s`);
  if (cluster !== undefined) {
    const onKilled = outcomes.filter((o) => o.streamId !== undefined && killedSlots.some(([from, to]) => hashSlot(`bench:{${o.streamId}}:e`) >= from && hashSlot(`bench:{${o.streamId}}:e`) <= to));
    const exactThere = onKilled.filter((o) => o.ended && o.error === undefined && o.failure === undefined).length;
    const typedThere = onKilled.filter((o) => o.error?.code !== undefined).length;
    console.log(`streams on the killed master's slots: ${onKilled.length} (${exactThere} ended whole, ${typedThere} with their typed error — producer-lost or stopped —, ${onKilled.length - exactThere - typedThere} neither)`);
    console.log(`the master kill: ${masterKill === undefined ? 'did not happen (the run ended first)' : `${masterKill.port} killed at ${masterKill.killedAt - startedAt} ms, its replica promoted after ${masterKill.promotedAfterMs} ms, the master back (a replica) after ${masterKill.backAfterMs} ms, the cluster whole after ${masterKill.healthyAfterMs} ms`}; the relays' Redis client errors: A ${JSON.stringify(aAfter.redisErrors)}, B (a second before it died) ${JSON.stringify(bAtKill?.redisErrors)}`);
  }
  console.log(`relay CPU per relayed MB (bytes sent to clients): A ${(aCpuMs / 1000).toFixed(1)} s for ${aMb.toFixed(1)} MB over the run, B ${(bCpuMs / 1000).toFixed(1)} s for ${bMb.toFixed(1)} MB until a second before it was killed; heap after the run (A, after a GC) ${(heap.memory.heapUsed / 1e6).toFixed(1)} MB, rss ${(heap.memory.rss / 1e6).toFixed(0)} MB`);
  console.log(`wall ${(wall / 1000).toFixed(1)} s; ${problems.length} problems`);
  console.log(
    `resume: ${exact}/${shouldBeExact} exact, ${duplicates} duplicates, ${gaps} gaps, ${lostReported}/${lostInLog} producer-lost reported (B was producing ${runningOnB}), ` +
      `${stopsCancelled}/${stopsExpected} stops cancelled their provider request, ${cancelledWithoutStop} cancelled without a stop, ${peak} connections open at peak (≥ 95% for ${heldFor(0.95 * CLIENTS).toFixed(0)} of ${(wall / 1000).toFixed(0)} s), ` +
      `resume latency p50 ${ms(percentile(latencies, 50))} p99 ${ms(percentile(latencies, 99))} (${voluntary.length} reconnects, reloads and returns p50 ${ms(percentile(voluntary, 50))} p99 ${ms(percentile(voluntary, 99))}; ${byKind('failover').length} at once after the kill p50 ${ms(percentile(byKind('failover'), 50))} p99 ${ms(percentile(byKind('failover'), 99))}), ` +
      `Redis ${((memoryAfter - memoryBefore) / Math.max(1, streams) / 1024).toFixed(1)} KB per stream, relay A ${(aCpuMs / Math.max(aMb, 1e-9)).toFixed(0)} ms CPU per relayed MB, ` +
      `heap after the run ${(heap.memory.heapUsed / 1e6).toFixed(1)} MB`,
  );

  // SIGTERM: a relay exits (writing its --cpu-prof profile).
  a.child.kill('SIGTERM');
  b.child.kill('SIGKILL');
  provider.child.kill('SIGTERM');
  await Promise.race([new Promise((resolve) => a.child.once('exit', resolve)), delay(10_000)]);
  closeRaw();
  await redis?.stop();
  await cluster?.stop();
  const ok =
    problems.length === 0 && exact === shouldBeExact && duplicates === 0 && gaps === 0 && lostReported === lostInLog && lostInLog >= runningOnB && lostInLog <= runningOnB + boundary &&
    stopsCancelled === stopsExpected && cancelledWithoutStop === 0 && stillRunning === 0;
  process.exit(ok ? 0 : 1);
}

await main();
