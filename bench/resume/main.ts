/**
 * The resume load and fault test (`npm run bench:resume`): two relay processes (bench/resume/
 * relay.ts) sharing one redis-server, a paced provider (bench/resume/provider.ts) replaying
 * Anthropic turns (bench/resume/turns.ts: six recordings and scripted `write_file` calls), and
 * `--clients` pages (1,000) that all start within `--spread` ms (1 s) and stay connected for
 * their turn (44–56 s at the default pace), so that all of them are open at once. Each reads its
 * turn with `readRelay` as the README's page does (no options: the library's reconnects, backoff
 * and final errors); the bench's `fetch` is a load balancer in front of the two relays that taps
 * every response's records on their way to `readRelay`. Mid-stream (40–90% of the turn):
 *
 * - 80% read their turn to the end;
 * - 7% have their connection cut by the relay's side (`POST /cut`); readRelay resumes on the
 *   other process with `Last-Event-ID`;
 * - 3% reload: the page's stream is cancelled and a new page reads the stream it knows on the
 *   other process, without `Last-Event-ID` — what the stream holds as one snapshot, then the tail;
 * - 5% press stop: the page's stream is cancelled, `POST /chat/:id/stop` goes to the other
 *   process; its provider request must be cancelled, and the stream, read again by a new page,
 *   must end with the typed `stopped` error, never `end`;
 * - 5% lose their network for 2–8 s: the connection is cut and every request fails at once
 *   meanwhile; their provider request must go on, and readRelay must bring the exact turn once
 *   the network is back (on either process);
 * - relay B is SIGKILLed mid-run (`--kill-at` ms): readRelay resumes its pages on A; every stream
 *   whose producer was on B and still running must be reported to its reader as the typed
 *   `producer-lost`, within the lease.
 *
 * Checked per client, off the wire across all its responses: every event id once and in order
 * (duplicates and gaps counted), each event the log's event of that id; per page, what readRelay
 * gave it equal to the records its responses carried; and the turn the page builds (collectTurn
 * of readRelay's events) equal to the turn the relay's pipeline makes of the provider's bytes — or
 * the typed error the client must get; anything else is silent and fails the run. Checked per
 * provider request: cancelled only after an explicit stop of its stream, or by the death of relay
 * B; none left running (a first request cut before its answer may be sent again by readRelay: one
 * more allowed per such cut). The streams whose producer was lost (open in Redis at the end) must
 * be the streams relay B was producing when it died, by the provider's own record.
 *
 * With `--cluster`, Redis is a Redis Cluster of three masters with a replica each (six
 * redis-server processes, bench/../test/redis/redis-cluster.ts), the relays use node-redis's
 * `createCluster` and the log's `replicas: 1`, and besides relay B a master is SIGKILLed mid-run
 * (`--master-kill-at` ms) — its replica takes over — and started again `--master-down` ms later
 * (it rejoins as a replica, as a supervisor would restart it). Every turn must still be exact or
 * end in a typed error: what the log acknowledged survives the failover.
 *
 * The last line reads `resume: N/M exact, D duplicates, G gaps, L/K producer-lost reported, …, T
 * typed, S silent, R reconnects, resume latency (cut → first event) …`;
 * the process exits 1 unless every check holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance as nodePerformance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createClient, createCluster } from 'redis';
import { collectTurn, FieldEventStream, fromResponse, readRelay, type PipelineEvent } from '../../src/index.ts';
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
  openTimes: number[];
  postServeTimes: number[];
  transitTimes: number[];
  headTimes: number[];
  busy: Array<[number, number]>;
  redisErrors: Record<string, number>;
}

async function stats(relay: Relay, gc = false): Promise<RelayStats> {
  return (await (await fetch(`${relay.url}/stats${gc ? '?gc' : ''}`)).json()) as never;
}


// ---------------------------------------------------------------------------------------------
// Clients

type Role = 'read' | 'reconnect' | 'reload' | 'stop' | 'leave';
/** What cut a client: the bench's cut of its connection, its network gone for a while, B's death, a log `unavailable` (a failover), a reload, anything else. */
type CutKind = 'reconnect' | 'return' | 'failover' | 'unavailable' | 'reload' | 'other';

interface Plan {
  readonly index: number;
  readonly role: Role;
  readonly turn: string;
  /** Milliseconds between two provider events of this turn. */
  readonly pace: number;
  /** The relay event id after which the client's fault comes (reconnect, reload, stop, leave). */
  readonly cutAfter: number;
  /** How long a leaving client's network stays down. */
  readonly awayMs: number;
  readonly startAt: number;
}

/** One `readRelay` stream: a page. A reload or a stop makes a new one. */
interface Page {
  /** What `readRelay` gave the page. */
  readonly got: unknown[];
  /** The events of the records its responses carried, read off the wire by the bench (a snapshot's stand for the events up to its id). */
  readonly wire: unknown[];
  /** Requests it made; all but the first are reconnects. */
  requests: number;
  /** What each request got (to explain a problem): `<method> <relay> <ms from the client's start>: <status or error>`. */
  readonly trace: string[];
  reader: ReadableStreamDefaultReader<PipelineEvent> | undefined;
  /** Closed by the bench (the page went away). */
  cancelled: boolean;
  /** `readRelay` closed the stream: the turn's end. */
  closed: boolean;
  error: unknown;
  /** An `end` record was read off the wire. */
  wireEnded: boolean;
}

interface Outcome {
  readonly plan: Plan;
  streamId: string | undefined;
  /** The relay that produces the stream (where the POST was answered). */
  producer: string | undefined;
  /**
   * What the page now reading received, by id, read off the wire: an event, or a snapshot
   * standing for the events up to its id (its events). Records carry batches of events (the
   * relay's wire form), `id:` the last one's id.
   */
  readonly data: Array<{ readonly id: number; readonly events: readonly unknown[]; readonly snapshot: boolean }>;
  readonly pages: Page[];
  snapshots: number;
  last: number;
  duplicates: number;
  gaps: number;
  /** The last page's stream closed (its turn's end). */
  ended: boolean;
  /** The error the last page's `readRelay` ended with. */
  error: { name?: string | undefined; code?: string | undefined; message?: string | undefined } | undefined;
  /** When it came (`Date.now()`). */
  errorAt: number;
  /** Why the client itself failed (a request it could not make, a status it did not expect). */
  failure: string | undefined;
  /**
   * Each cut: from it (for a client whose network went down, from the network's return) to the
   * headers of the first response answered 200 after it, and to the first event after it (NaN
   * when none came: a producer-lost answer, say).
   */
  readonly resumes: Array<{ kind: CutKind; firstEventMs: number; headersMs: number; detectedMs: number; requestMs: number }>;
  /** Requests `readRelay` made again after a cut (each attempt), over all of the client's pages. */
  reconnects: number;
  stop: { sentAt: number; status: number } | undefined;
  /** A leaving client: when its network went down, and when a request first got through again. */
  leftAt: number;
  backAt: number;
  /** Where the client was when relay B was killed. */
  atKill: 'reading' | 'away' | 'done' | 'not started';
  state: 'reading' | 'away' | 'done' | 'not started';
  /** The first request: until the relay answered (the provider request made, the stream opened). */
  postLatency: number;
  /**
   * What `readRelay` asked again after a passing outage: a first request answered 503 (no stream
   * yet: sent again), and `unavailable` while reading (an `event: error`, or a resume answered
   * 503: resumed). A failover makes them.
   */
  retried: { post: number; unavailable: number };
}

/** A client as the bench's load balancer and tap see it. */
interface Client {
  readonly outcome: Outcome;
  readonly random: () => number;
  page: Page | undefined;
  /** The relay its last request went to. */
  serving: Relay | undefined;
  /** Where its next resume goes (set by its fault), else the other relay. */
  next: Relay | undefined;
  /** Its network is down until then (`Date.now()`). */
  offlineUntil: number;
  /** The cut not yet followed by an event: when (`performance.now()`), what made it, when a response was first answered 200 after it (ms from the cut). */
  cut: { at: number; kind: CutKind; headersMs?: number; detectedMs?: number; requestMs?: number } | undefined;
  /** Its fault happened. */
  acted: boolean;
  /** The page to open after the current one (a reload, the stream read again after a stop). */
  then: Promise<{ url: string; relay: Relay } | undefined> | undefined;
}

// The bench's own requests (stats, stops, cuts) speak HTTP with node:http; the clients use fetch
// through readRelay, as a page does.
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** Event-stream responses being read now, and the most at once: the clients' open connections. */
let openNow = 0;

/** One HTTP request of the bench itself: the response (its body not read yet). */
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

interface Frame {
  id?: number;
  event?: string;
  data?: string;
}

const clientsByIndex = new Map<number, Client>();
/** readRelay's requests that failed, by what failed (a network error's code, a status and its log code), first requests and resumes apart. */
const failedAttempts: Record<string, number> = {};
const countFailure = (what: string) => (failedAttempts[what] = (failedAttempts[what] ?? 0) + 1);
let relaysInFront: readonly Relay[] = [];
/** When relay B was killed (`performance.now()`), 0 before. */
let killedAtPerf = 0;
const realFetch = globalThis.fetch;

/**
 * The clients' `fetch`, which `readRelay` calls: a load balancer in front of the two relays. A
 * client asks `http://client-<n>.relay/…` (its own host, so the bench knows whose request it
 * is); the request goes to its home relay (POST /chat) or, for a resume, to the relay its fault
 * chose, else to the other one than last time — a dead relay never. Each event-stream response
 * is read through a tap that parses the relay's records as they pass (ids, snapshots, errors):
 * what the bench checks against the log, independently of `readRelay`'s output.
 */
async function balancedFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const match = /^client-(\d+)\.relay$/.exec(url.hostname);
  const client = match === null ? undefined : clientsByIndex.get(Number(match[1]));
  if (match !== null && (client === undefined || client.page === undefined)) {
    countFailure(`a request of client ${match[1]} when it had no page`);
    throw new TypeError('fetch failed', { cause: new Error('no page') });
  }
  if (client === undefined || client.page === undefined) return realFetch(input, init);
  const { outcome } = client;
  const page = client.page;
  if (page.requests++ > 0) outcome.reconnects++;
  if (Date.now() < client.offlineUntil) {
    page.trace.push(`${init.method ?? 'GET'} ${Math.round(performance.now())}: offline`);
    throw new TypeError('fetch failed', { cause: new Error('the network is down (the bench)') });
  }
  const alive = relaysInFront.filter((r) => !r.dead);
  const home = relaysInFront[outcome.plan.index % 2] as Relay;
  let target: Relay | undefined;
  if (init.method === 'POST') target = home.dead ? alive[0] : home;
  else target = client.next !== undefined && !client.next.dead ? client.next : (alive.find((r) => r !== client.serving) ?? alive[0]);
  client.next = undefined;
  if (target === undefined) throw new TypeError('fetch failed', { cause: new Error('no relay left') });
  client.serving = target;
  page.trace.push(`${init.method ?? 'GET'} ${target.name} ${Math.round(performance.now())}: sent`);
  const headers = new Headers(input instanceof Request ? input.headers : init.headers);
  headers.set('x-client', String(outcome.plan.index));
  const sent = performance.now();
  // When it was sent (this machine's clock): the relay counts how long the request took to reach its handler.
  headers.set('x-sent-at', String(performance.timeOrigin + sent));
  if (client.cut !== undefined && sent >= client.cut.at) client.cut.requestMs ??= sent - client.cut.at;
  const first = init.method === 'POST' ? 'first request' : 'resume';
  let response: Response;
  try {
    response = await realFetch(`${target.url}${url.pathname}${url.search}`, { ...init, headers });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    page.trace.push(`${init.method ?? 'GET'} ${target.name} ${Math.round(sent)}: ${cause?.code ?? cause?.message ?? String(error)}`);
    if ((init.signal as AbortSignal | undefined)?.aborted !== true) countFailure(`${first}: ${cause?.code ?? cause?.message ?? String(error)}`);
    throw error;
  }
  const headersAt = performance.now();
  page.trace.push(`${init.method ?? 'GET'} ${target.name} ${Math.round(sent)}: ${response.status} ${response.headers.get('content-type')} in ${Math.round(headersAt - sent)} ms`);
  if (!response.ok) void response.clone().text().then((body) => countFailure(`${first}: ${response.status} ${/^([a-z-]+):/.exec(body)?.[1] ?? ''}`.trim()), () => countFailure(`${first}: ${response.status}`));
  if (response.ok && client.cut !== undefined) client.cut.headersMs ??= headersAt - client.cut.at;
  if (init.method === 'POST' && url.pathname === '/chat') {
    if (response.status === 503) outcome.retried.post++;
    else if (Number.isNaN(outcome.postLatency)) outcome.postLatency = headersAt - sent;
    // A stream opened and then not served (a 503 from serveStream in a failover) is named too: readRelay resumes it.
    const named = response.headers.get('x-stream-id');
    if (named !== null) {
      outcome.streamId = named;
      outcome.producer = response.headers.get('x-relay') ?? undefined;
    }
  } else if (response.status === 503) outcome.retried.unavailable++;
  if (outcome.leftAt > 0 && outcome.backAt === 0) outcome.backAt = Date.now();
  // Every answer as a new Response, whose `url` is empty: readRelay then takes the URL it asked
  // (this client's host) as the base of its resumes, never the relay's own address.
  const streaming = response.ok && response.body !== null && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const body = streaming ? tap(client, page, target, response.body as ReadableStream<Uint8Array>, headersAt) : [204, 205, 304].includes(response.status) ? null : response.body;
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** A response's body as it passes to `readRelay`, its records parsed on the way. */
function tap(client: Client, page: Page, relay: Relay, body: ReadableStream<Uint8Array>, headersAt: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // Each response's first record starts its tables.
  const batches = new BatchReader(classes, 256);
  let buffer = '';
  let finished = false;
  let terminal = false;
  openNow++;
  const finish = (how: 'closed' | 'broken' | 'cancelled') => {
    if (finished) return;
    finished = true;
    openNow--;
    // A response that ended without its end or a final error: a cut, resumed by readRelay.
    if (how !== 'cancelled' && !terminal && !page.cancelled) {
      client.cut ??= relay.dead ? { at: killedAtPerf, kind: 'failover' } : { at: performance.now(), kind: 'other' };
      // When the page's connection was seen to break (for B's death: after the kill).
      client.cut.detectedMs ??= performance.now() - client.cut.at;
    }
  };
  const onFrame = (frame: Frame) => {
    const { outcome } = client;
    if (frame.event === 'end' && frame.id === undefined) {
      page.wireEnded = terminal = true;
      return;
    }
    if (frame.event === 'error' && frame.id === undefined) {
      let error: { name?: string; code?: string } | undefined;
      try {
        error = JSON.parse(frame.data ?? '{}') as typeof error;
      } catch {
        error = {};
      }
      if (error?.name === 'EventLogError' && error.code === 'unavailable') {
        // A passing outage (a failover): readRelay resumes.
        outcome.retried.unavailable++;
        client.cut ??= { at: performance.now(), kind: 'unavailable' };
      } else terminal = true;
      return;
    }
    const id = frame.id as number;
    const events: unknown[] = [];
    batches.read(JSON.parse(frame.data ?? '[]') as unknown[], events);
    page.wire.push(...events);
    // An event on a response opened before the cut (still arriving before the cut took effect) is not a resume.
    if (client.cut !== undefined && headersAt >= client.cut.at) {
      const now = performance.now();
      outcome.resumes.push({ kind: client.cut.kind, firstEventMs: now - client.cut.at, headersMs: client.cut.headersMs ?? headersAt - client.cut.at, detectedMs: client.cut.detectedMs ?? Number.NaN, requestMs: client.cut.requestMs ?? Number.NaN });
      client.cut = undefined;
    }
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
    if (!client.acted && outcome.plan.role !== 'read' && outcome.last >= outcome.plan.cutAfter) {
      client.acted = true;
      // Not inside readRelay's read: the fault comes from outside the page.
      setImmediate(() => void fault(client));
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          finish('broken');
          throw error;
        }
        if (result.done) {
          finish('closed');
          controller.close();
          return;
        }
        buffer += decoder.decode(result.value, { stream: true });
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
          if (!comment) onFrame(frame);
        }
        controller.enqueue(result.value);
      },
      cancel(reason) {
        finish('cancelled');
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The client's fault, once the page has received event `cutAfter`. */
async function fault(client: Client): Promise<void> {
  const { outcome } = client;
  const { role, index } = outcome.plan;
  const serving = client.serving as Relay;
  const other = relaysInFront.find((r) => r !== serving) as Relay;
  // The page read its turn to the end (or its error) before its fault came: nothing to cut.
  if (client.page === undefined || client.page.closed || client.page.error !== undefined) return;
  if (role === 'reconnect' || role === 'leave') {
    // The connection cut mid-stream by the relay's side (a proxy dropping it); readRelay resumes,
    // on the other relay — or, for a client whose network goes down 2–8 s, on either.
    if (role === 'leave') {
      outcome.leftAt = Date.now();
      client.offlineUntil = outcome.leftAt + outcome.plan.awayMs;
      outcome.state = 'away';
      setTimeout(() => {
        if (outcome.state === 'away') outcome.state = 'reading';
      }, outcome.plan.awayMs);
      client.next = client.random() < 0.5 ? serving : other;
    } else client.next = other;
    client.cut = { at: performance.now() + (role === 'leave' ? outcome.plan.awayMs : 0), kind: role === 'leave' ? 'return' : 'reconnect' };
    try {
      await text(await send(`${serving.url}/cut`, { method: 'POST', headers: { 'x-client': String(index) } }));
    } catch {
      // the relay died meanwhile: cut anyway
    }
    return;
  }
  // A reload or a stop: the page goes away (its stream cancelled: its connection closed).
  const page = client.page as Page;
  page.cancelled = true;
  const cancelledAt = performance.now();
  client.then = (async () => {
    await page.reader?.cancel('the page went away');
    if (role === 'reload') {
      // A new page on the other relay that knows the stream: the turn so far as a snapshot, then the tail.
      client.cut = { at: cancelledAt, kind: 'reload' };
      return { url: `http://client-${index}.relay/chat/${outcome.streamId}`, relay: other };
    }
    // The stop button, on the other relay (or this one when the other is dead); a stop sent to a
    // relay that dies before it answers is sent again to the other.
    const stopAt = [other, serving].find((r) => !r.dead);
    if (stopAt === undefined) {
      outcome.failure = 'no relay left to stop on';
      return undefined;
    }
    outcome.stop = { sentAt: Date.now(), status: 0 };
    for (const relay of [stopAt, stopAt === other ? serving : other]) {
      if (relay.dead) continue;
      try {
        const stopped = await send(`${relay.url}/chat/${outcome.streamId}/stop`, { method: 'POST' });
        outcome.stop.status = stopped.statusCode ?? 0;
        await text(stopped);
        outcome.failure = undefined;
        // The stream read again by a new page: it must end with the typed `stopped`, never `end`.
        return { url: `http://client-${index}.relay/chat/${outcome.streamId}`, relay };
      } catch (error) {
        outcome.failure = `stop: ${(error as Error).message}`;
      }
    }
    return undefined;
  })();
}

function newOutcome(plan: Plan): Outcome {
  return {
    plan, streamId: undefined, producer: undefined, data: [], pages: [], snapshots: 0, last: 0, duplicates: 0, gaps: 0, ended: false, error: undefined, errorAt: 0,
    failure: undefined, resumes: [], reconnects: 0, stop: undefined, leftAt: 0, backAt: 0, atKill: 'not started', state: 'not started', postLatency: Number.NaN, retried: { post: 0, unavailable: 0 },
  };
}

/** A page: `readRelay` read to its end, or until the bench closes the page. */
async function readPage(client: Client, stream: ReadableStream<PipelineEvent>): Promise<Page> {
  const page: Page = { got: [], wire: [], requests: 0, trace: [], reader: undefined, cancelled: false, closed: false, error: undefined, wireEnded: false };
  client.page = page;
  client.outcome.pages.push(page);
  const reader = stream.getReader();
  page.reader = reader;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        page.closed = !page.cancelled;
        break;
      }
      page.got.push(value);
    }
  } catch (error) {
    page.error = error;
  }
  return page;
}

async function runClient(outcome: Outcome, random: () => number): Promise<Outcome> {
  const client: Client = { outcome, random, page: undefined, serving: undefined, next: undefined, offlineUntil: 0, cut: undefined, acted: false, then: undefined };
  clientsByIndex.set(outcome.plan.index, client);
  outcome.state = 'reading';
  const { index, turn, pace } = outcome.plan;
  // As the README's page: readRelay on POST /chat, nothing else.
  let page = await readPage(client, readRelay(`http://client-${index}.relay/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turn, pace, client: index }) }));
  while (client.then !== undefined) {
    const next = await client.then;
    client.then = undefined;
    if (next === undefined) break;
    // A new page has nothing: what the bench checks starts again.
    outcome.data.length = 0;
    outcome.last = 0;
    client.next = next.relay;
    // A page opened on a stream it knows (a reload): its resumes go to the same place.
    const url = next.url;
    page = await readPage(client, readRelay(url, {}, { resumeUrl: () => url }));
  }
  outcome.ended = page.closed;
  // A cut after which no event came (the answer was the stream's error): its reconnection only.
  if (client.cut?.headersMs !== undefined) outcome.resumes.push({ kind: client.cut.kind, firstEventMs: Number.NaN, headersMs: client.cut.headersMs, detectedMs: client.cut.detectedMs ?? Number.NaN, requestMs: client.cut.requestMs ?? Number.NaN });
  if (page.error !== undefined && !page.cancelled) {
    const error = page.error as { name?: string; code?: string; message?: string };
    outcome.error = { name: error.name, code: error.code, message: error.message };
    outcome.errorAt = Date.now();
  }
  if (outcome.streamId === undefined && outcome.failure === undefined) outcome.failure = `POST /chat: ${outcome.error === undefined ? 'no stream' : `${outcome.error.name} ${outcome.error.code}: ${outcome.error.message}`}`;
  outcome.state = 'done';
  clientsByIndex.delete(index);
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Checking

function percentile(values: readonly number[], p: number): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
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
  relaysInFront = relays;
  globalThis.fetch = balancedFetch as typeof fetch;
  const clientLag = monitorEventLoopDelay({ resolution: 10 });
  clientLag.enable();
  // The clients' event loop utilization each second, as the relays measure theirs.
  const clientBusy: Array<[number, number]> = [];
  let clientBusyBefore = nodePerformance.eventLoopUtilization();
  const clientBusySampler = setInterval(() => {
    const now = nodePerformance.eventLoopUtilization();
    clientBusy.push([Date.now(), nodePerformance.eventLoopUtilization(now, clientBusyBefore).utilization]);
    clientBusyBefore = now;
  }, 1000);
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
  let masterOpen = 0;
  let bAtKill: RelayStats | undefined;
  // B's figures a second before it dies (asked at the kill, a loaded B would answer late).
  const lastStats = delay(KILL_AT_MS - 1000).then(async () => {
    // B may be too loaded to answer before it is killed: then its figures are missing, nothing else.
    if (!finished) bAtKill = await stats(b).catch(() => undefined);
  });
  let finished = false;
  const killer = delay(KILL_AT_MS).then(async () => {
    if (finished) return; // every client finished first (a short run): nothing to kill
    b.dead = true;
    b.child.kill('SIGKILL');
    killAt = Date.now();
    killedAtPerf = performance.now();
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
          masterOpen = openNow;
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
  const clients = outcomes.map((outcome) => delay(outcome.plan.startAt).then(() => runClient(outcome, rng(1000 + outcome.plan.index))));
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
  clearInterval(clientBusySampler);
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
  /**
   * A stop's producer cancels its provider request and then writes `stopped`: when B died between
   * the two, the stream is left open (its reader gets producer-lost). On loaded cores B's event
   * loop may be seconds late (on a cluster a write also waits for a replica), so any time before
   * the kill is accepted for a stopped stream of B's — counted and printed apart; A's stops must
   * all end `stopped`.
   */
  const stoppedThenLost: number[] = [];
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
  /** Provider requests made again: a first request cut before its answer, sent again by readRelay. */
  let askedTwice = 0;
  /** Pages whose readRelay output is not the events of the records their responses carried. */
  let pagesDiffering = 0;
  const exactClients = new Set<Outcome>();
  for (const o of outcomes) {
    const label = `client ${o.plan.index} (${o.plan.role}, ${o.plan.turn}, producer ${o.producer})`;
    duplicates += o.duplicates;
    gaps += o.gaps;
    if (o.failure !== undefined) problems.push(`${label}: ${o.failure}`);
    // What readRelay gave each page is what the relay's records carried, in order: all of them,
    // or a prefix for a page the bench closed.
    for (const [n, page] of o.pages.entries()) {
      const same = page.cancelled ? page.got.length <= page.wire.length && page.got.every((event, i) => isDeepStrictEqual(event, page.wire[i])) : isDeepStrictEqual(page.got, page.wire);
      if (!same) {
        pagesDiffering++;
        problems.push(`${label}: page ${n + 1}: readRelay gave ${page.got.length} events, its responses carried ${page.wire.length}, not the same (${page.trace.join('; ')})`);
      }
    }
    if (o.streamId === undefined) continue;
    const log = logs.get(o.streamId) as Logged;
    const requests = requestsOf.get(o.plan.index) ?? [];
    // readRelay sends a first request again when it failed before any answer (a network error):
    // the model may then have been asked twice, as its documentation says (retryRequest).
    const postsCut = o.pages[0]?.trace.filter((t) => t.startsWith('POST') && !/: \d{3} /.test(t)).length ?? 0;
    if (requests.length < 1 || requests.length > 1 + postsCut) {
      problems.push(`${label}: ${requests.length} provider requests (${postsCut} first requests cut before their answer)`);
      continue;
    }
    askedTwice += requests.length - 1;
    const request = (requests.filter((r) => r.relay === o.producer).at(-1) ?? requests.at(-1)) as ProviderRequest;
    if (request.relay !== o.producer) problems.push(`${label}: the provider request came from ${request.relay}`);
    // By the provider's record: was relay B making this request when it died?
    const finishedBeforeKill = request.finishedAt !== undefined && request.finishedAt < killAt;
    const running = request.relay === 'B' && killAt > 0 && !finishedBeforeKill;
    const stoppedOnB = request.relay === 'B' && killAt > 0 && request.how === 'cancelled' && o.stop?.status === 204 && (request.finishedAt as number) >= o.stop.sentAt && (request.finishedAt as number) < killAt;
    if (stoppedOnB && log.terminal === undefined) stoppedThenLost.push(killAt - (request.finishedAt as number));
    const nearKill = request.relay === 'B' && finishedBeforeKill && (killAt - (request.finishedAt as number) < BOUNDARY_MS || (stoppedOnB && log.terminal === undefined));
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
    // The turn the page builds of what readRelay gave it (a snapshot's events in its place).
    const turn = complete ? await turnOf((o.pages.at(-1) as Page).got) : '';
    if (complete && turn === (expected.get(o.plan.turn) as { turn: string }).turn) {
      exact++;
      exactClients.add(o);
    }
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
  if (providerRequests.length !== outcomes.filter((o) => o.streamId !== undefined).length + askedTwice) problems.push(`${providerRequests.length} provider requests for ${outcomes.filter((o) => o.streamId !== undefined).length} streams (and ${askedTwice} first requests sent again)`);
  if (lostInLog < runningOnB || lostInLog > runningOnB + boundary) problems.push(`${lostInLog} streams lost their producer, but relay B was making ${runningOnB} provider requests when it died (${boundary} finishing within ${BOUNDARY_MS} ms of it, or stopped without \`stopped\` written before B died)`);
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

  // Resume latency: from a cut to the first event after it (and to the headers of the response that brought it).
  const resumes = outcomes.flatMap((o) => o.resumes);
  const cutKinds: readonly CutKind[] = ['reconnect', 'return', 'failover', 'unavailable', 'reload', 'other'];
  const firstEvents = (kinds: readonly CutKind[]) => resumes.filter((r) => kinds.includes(r.kind)).map((r) => r.firstEventMs);
  const headersOf = (kinds: readonly CutKind[]) => resumes.filter((r) => kinds.includes(r.kind)).map((r) => r.headersMs);
  const latencies = firstEvents(cutKinds);
  const partOf = (kinds: readonly CutKind[], part: 'detectedMs' | 'requestMs') => resumes.filter((r) => kinds.includes(r.kind)).map((r) => r[part]);
  const latencyOf = (kinds: readonly CutKind[]) =>
    `${headersOf(kinds).length}: → headers p50 ${ms(percentile(headersOf(kinds), 50))} p99 ${ms(percentile(headersOf(kinds), 99))}; ${firstEvents(kinds).filter((t) => !Number.isNaN(t)).length} → first event p50 ${ms(percentile(firstEvents(kinds), 50))} p99 ${ms(percentile(firstEvents(kinds), 99))}`;
  const reconnecting = outcomes.filter((o) => o.reconnects > 0).map((o) => o.reconnects);
  const reconnects = reconnecting.reduce((n, r) => n + r, 0);
  // Every client ends exact or with a typed error; a page's stream that closed without its turn whole, or an error without a code, is silent.
  const TYPED = new Set(['EventLogError', 'RelayError', 'ProviderError']);
  const typedOf = (o: Outcome) => o.error?.code !== undefined && TYPED.has(o.error.name ?? '');
  const typed = outcomes.filter((o) => !exactClients.has(o) && typedOf(o));
  const silent = outcomes.filter((o) => !exactClients.has(o) && !typedOf(o));
  const typedCodes: Record<string, number> = {};
  for (const o of typed) typedCodes[`${o.error?.name} ${o.error?.code}`] = (typedCodes[`${o.error?.name} ${o.error?.code}`] ?? 0) + 1;
  for (const o of silent) problems.push(`client ${o.plan.index} (${o.plan.role}): silent — neither exact nor a typed error (ended ${o.ended}, error ${JSON.stringify(o.error)}, failure ${o.failure})`);
  const posts = outcomes.filter((o) => !Number.isNaN(o.postLatency)).map((o) => o.postLatency);

  if (process.argv.includes('--latencies')) for (const o of outcomes) if (o.resumes.length > 0) console.log(`  client ${o.plan.index} ${o.plan.role} producer ${o.producer}: ${o.resumes.map((r) => `${r.kind} ${r.firstEventMs.toFixed(1)} (headers ${r.headersMs.toFixed(1)})`).join(', ')} ms; ${o.reconnects} reconnects`);
  for (const problem of problems.slice(0, 30)) console.log(`  ${problem}`);
  if (problems.length > 30) console.log(`  … and ${problems.length - 30} more`);
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model.trim()}), shared with other work; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end (latencies are wall-clock: other processes count)`);
  console.log(`open client connections: peak ${peak} (the relays' event streams being sent, sampled each second: peak ${relayPeak}); all ${CLIENTS} open from ${firstAt(CLIENTS) === undefined ? '–' : `${(firstAt(CLIENTS)! / 1000).toFixed(1)} s`} for ${heldFor(CLIENTS).toFixed(1)} s, ≥ 98% for ${heldFor(0.98 * CLIENTS).toFixed(1)} s, ≥ 95% for ${heldFor(0.95 * CLIENTS).toFixed(1)} s, ≥ 50% for ${heldFor(0.5 * CLIENTS).toFixed(1)} s of the ${(wall / 1000).toFixed(1)} s run; ${killOpen} open when B was killed${masterKill === undefined ? '' : `, ${masterOpen} when the master was`}`);
  console.log(`  over time: ${timeline.join(', ')}`);
  console.log(`first requests (POST /chat → headers, ${CLIENTS} within ${SPREAD_MS} ms): p50 ${ms(percentile(posts, 50))} p99 ${ms(percentile(posts, 99))}; A kept ${aAfter.kept} streams, B ${bAtKill?.kept ?? '?'}`);
  console.log(`the clients: readRelay as the README's page calls it (a reload or a re-read after a stop: readRelay on GET /chat/:id); ${exactClients.size} exact, ${typed.length} typed errors ${JSON.stringify(typedCodes)}, ${silent.length} silent; ${pagesDiffering} pages whose events differ from their responses' records`);
  console.log(`reconnects (readRelay's requests after a cut, each attempt): ${reconnects} by ${reconnecting.length} clients, per client p50 ${percentile(reconnecting, 50)} p99 ${percentile(reconnecting, 99)} max ${Math.max(0, ...reconnecting)}; requests that failed: ${JSON.stringify(failedAttempts)}`);
  console.log(`resume latency, at the client, from a cut (a network down 2–8 s: from its return) to the first response answered 200 after it, and to the first event after it (the provider's pace counts: an event every ${PACE_MS} ms): all ${latencyOf(cutKinds)}; connection cut mid-stream ${latencyOf(['reconnect'])}; network down 2–8 s ${latencyOf(['return'])}; B's death ${latencyOf(['failover'])}; unavailable (a failover) ${latencyOf(['unavailable'])}; reload ${latencyOf(['reload'])}; other cuts ${latencyOf(['other'])}`);
  console.log(`B's death, in parts (from the kill, at the client): the connection seen broken p50 ${ms(percentile(partOf(['failover'], 'detectedMs'), 50))} p99 ${ms(percentile(partOf(['failover'], 'detectedMs'), 99))}; the resume request sent (after readRelay's wait) p50 ${ms(percentile(partOf(['failover'], 'requestMs'), 50))} p99 ${ms(percentile(partOf(['failover'], 'requestMs'), 99))}; its headers p50 ${ms(percentile(headersOf(['failover']), 50))} p99 ${ms(percentile(headersOf(['failover']), 99))}. A cut mid-stream: the resume request sent p50 ${ms(percentile(partOf(['reconnect'], 'requestMs'), 50))} p99 ${ms(percentile(partOf(['reconnect'], 'requestMs'), 99))}`);
  // How busy each process was in the 8 s after B's death (the herd of resumes), each second.
  const busyAfterKill = (series: ReadonlyArray<[number, number]>) =>
    series
      .filter(([t]) => t > killAt && t <= killAt + 8000)
      .map(([, u]) => `${Math.round(u * 100)}%`)
      .join(' ');
  if (killAt > 0) console.log(`event loop utilization each second for 8 s after B's death: relay A ${busyAfterKill(aAfter.busy)}; the clients' process ${busyAfterKill(clientBusy)}`);
  console.log(`relay A's part of a first request: the stream opened in the log (keepStream) p50 ${ms(percentile(aAfter.openTimes, 50))} p99 ${ms(percentile(aAfter.openTimes, 99))}, then served p50 ${ms(percentile(aAfter.postServeTimes, 50))} p99 ${ms(percentile(aAfter.postServeTimes, 99))}`);
  console.log(`relay A's resumes: from the client's send to the relay's handler p50 ${ms(percentile(aAfter.transitTimes, 50))} p99 ${ms(percentile(aAfter.transitTimes, 99))} (the connection made, the request read: both processes' event loops count); from the handler to the headers written p50 ${ms(percentile(aAfter.headTimes, 50))} p99 ${ms(percentile(aAfter.headTimes, 99))}`);
  console.log(`relay A's part of a resume (request → response: the stream found, what it holds read from Redis): p50 ${ms(percentile(aAfter.serveTimes, 50))} p99 ${ms(percentile(aAfter.serveTimes, 99))}; event loop delay p99 ${ms(aAfter.lagP99Ms)}, max ${ms(aAfter.lagMaxMs)}; clients' event loop delay p99 ${ms(clientLag.percentile(99) / 1e6)}`);
  console.log(`producer-lost: ${lostReported}/${lostInLog} streams left open reported to their client; relay B was making ${runningOnB} provider requests when it died (${boundary} finished within ${BOUNDARY_MS} ms before, or were stopped and B died before writing \`stopped\`: ${stoppedThenLost.length}, cancelled ${stoppedThenLost.map((t) => `${t} ms`).join(', ') || '–'} before the kill); the ${lostDetection.length} clients reading then learned it p50 ${ms(percentile(lostDetection, 50))}, max ${ms(Math.max(...lostDetection))} after the kill (lease ${LEASE_MS} ms; bound 1.25 × lease + ${RECONNECT_ALLOWANCE_MS} ms to reconnect)`);
  console.log(`stops: ${stopsCancelled}/${stopsExpected} cancelled their provider request and ended their stream as stopped (${stopsTooLate} crossed the turn's end); provider requests cancelled by B's death ${cancelledByKill}, without a stop ${cancelledWithoutStop}; left and came back: ${leftBackLive} during the turn, ${leftBackAfterEnd} after its end`);
  console.log(`how the streams kept ended: A ${JSON.stringify(aAfter.keptOutcomes)}; B a second before it died ${JSON.stringify(bAtKill?.keptOutcomes)}`);
  console.log(`snapshots received: ${outcomes.reduce((n, o) => n + o.snapshots, 0)} (by ${outcomes.filter((o) => o.snapshots > 0).length} clients)`);
  const postRetries = outcomes.reduce((n, o) => n + o.retried.post, 0);
  const unavailableRetries = outcomes.reduce((n, o) => n + o.retried.unavailable, 0);
  console.log(`asked again after a passing outage (readRelay): ${postRetries} first requests answered 503 sent again (by ${outcomes.filter((o) => o.retried.post > 0).length} clients), ${askedTwice} cut before their answer sent again (the provider asked twice), ${unavailableRetries} unavailable while reading resumed (by ${outcomes.filter((o) => o.retried.unavailable > 0).length} clients)`);
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
      `${typed.length} typed, ${silent.length} silent, ${reconnects} reconnects, resume latency (cut → first event) p50 ${ms(percentile(latencies, 50))} p99 ${ms(percentile(latencies, 99))} (${firstEvents(['reconnect', 'return']).filter((t) => !Number.isNaN(t)).length} cuts and returns p50 ${ms(percentile(firstEvents(['reconnect', 'return']), 50))} p99 ${ms(percentile(firstEvents(['reconnect', 'return']), 99))}; ${firstEvents(['failover']).filter((t) => !Number.isNaN(t)).length} after B's death p50 ${ms(percentile(firstEvents(['failover']), 50))} p99 ${ms(percentile(firstEvents(['failover']), 99))}), ` +
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
    problems.length === 0 && silent.length === 0 && pagesDiffering === 0 && exact === shouldBeExact && duplicates === 0 && gaps === 0 && lostReported === lostInLog && lostInLog >= runningOnB && lostInLog <= runningOnB + boundary &&
    stopsCancelled === stopsExpected && cancelledWithoutStop === 0 && stillRunning === 0;
  process.exit(ok ? 0 : 1);
}

await main();
