/**
 * examples/durable-object under workerd: the Worker and its `StreamLog` Durable Object bundled
 * with esbuild (`argstream` resolved to src/), served with a Durable Object namespace (in-memory
 * storage), the model a local replay of a recording or a gated model. Checked over HTTP as a page
 * uses it: the recorded turn; a page that leaves mid-turn does not stop the model, and its
 * resumes with Last-Event-ID get the rest exactly once; a page that loads mid-turn gets a snapshot
 * and the same turn; the stop button cancels the model's request and readers get `stopped`; 404,
 * 400 for hostile ids (a malformed percent-encoding too), and the expiry. Then the shared EventLog
 * contract (test/log/contract.ts) against `StreamLog` in workerd — producer-lost when a producer
 * stops renewing its lease, the size limit, a second producer refused, a burst of appends —
 * with Cloudflare's limit of 128 key-value pairs per `put()` enforced (workerd's local storage
 * does not enforce it).
 */
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../src/cli/replay-server.ts';
import { collectTurn, EventStreamDecoder, type PipelineEvent } from '../../src/index.ts';
import { readFixture, settle, streamOf } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import { expectedArguments } from '../providers/event-stream-helpers.ts';
import { anthropicToolTurn, FIRST_ARGUMENT_EVENT, startGatedModel } from '../examples/gated-model.ts';
import { fetchWhenUp, freePort, localBin, notInstalled } from '../runtimes/harness.ts';
import { IN_CI } from '../redis/redis-server.ts';
import { DurableObjectEventLog, type DurableObjectNamespace } from '../../examples/durable-object/event-log.ts';
import { logContract } from './contract.ts';

// The example imports 'argstream': the same module instance as the tests' src/ (one EventLogError class).
vi.mock('argstream', async () => await import('../../src/index.ts'));

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORDING = 'anthropic/text-then-2-parallel-tool-use.sse';
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function workerdMissing(): string | undefined {
  return localBin('workerd') === undefined ? notInstalled('workerd') : undefined;
}

interface Served {
  readonly url: string;
  output(): string;
  close(): Promise<void>;
}

/** Serve dir/<module> with workerd: the StreamLog namespace (in memory) and text bindings. */
async function serve(dir: string, bindings: Readonly<Record<string, string>>, module = 'worker.mjs'): Promise<Served> {
  const bin = localBin('workerd') as string;
  const text = (value: string) => JSON.stringify(value);
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8080", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed ${text(module)})],
  compatibilityDate = "2026-10-01",
  bindings = [
    (name = "STREAMS", durableObjectNamespace = "StreamLog"),
    ${Object.entries(bindings).map(([key, value]) => `(name = ${text(key)}, text = ${text(value)})`).join(',\n    ')}
  ],
  durableObjectNamespaces = [(className = "StreamLog", uniqueKey = "argstream-stream-log-test")],
  durableObjectStorage = (inMemory = void),
  globalOutbound = "loopback",
);
`;
  const name = `config-${Math.random().toString(36).slice(2)}.capnp`;
  writeFileSync(join(dir, name), config);
  const port = await freePort();
  const server = spawn(bin, ['serve', name, '--socket-addr', `http=127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.setEncoding('utf8').on('data', (t: string) => (output += t));
  server.stderr.setEncoding('utf8').on('data', (t: string) => (output += t));
  let exited = false;
  const exit = new Promise<void>((resolve) => server.once('exit', () => ((exited = true), resolve())));
  const close = async () => {
    if (!exited) {
      server.kill('SIGTERM');
      await exit;
    }
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await fetchWhenUp(`${url}/ready`, 20_000, () => !exited);
  } catch (error) {
    await close();
    throw new Error(`${String(error)}\n--- workerd output\n${output.slice(-3000)}`);
  }
  return { url, output: () => output, close };
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Read SSE text until `count` ids have come (or the end), then cut the connection. */
async function readIds(response: Response, count: number): Promise<string> {
  const reader = response.body!.getReader();
  const utf8 = new TextDecoder();
  let text = '';
  while ((text.match(/^id: /gm) ?? []).length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += utf8.decode(value, { stream: true });
  }
  await reader.cancel();
  // Only whole events: a cut mid-event is what a decoder drops too.
  return text.slice(0, text.lastIndexOf('\n\n') + 2);
}

async function decode(text: string): Promise<{ events: PipelineEvent[]; error: unknown; lastEventId: string | undefined }> {
  const decoder = new EventStreamDecoder();
  const { values, error } = await settle(streamOf([text]).pipeThrough(decoder));
  return { events: values, error, lastEventId: decoder.lastEventId };
}

const missing = workerdMissing();
if (missing !== undefined && IN_CI) throw new Error(`workerd is required in CI: ${missing}`);
if (missing !== undefined) console.warn(`skipped: ${missing}`);

describe.skipIf(missing !== undefined)('examples/durable-object under workerd', () => {
  let dir = '';
  let replay: ReplayServer;
  let served: Served;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'argstream-durable-object-'));
    await build({
      entryPoints: [join(ROOT, 'examples/durable-object/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      logLevel: 'silent',
      alias: { argstream: join(ROOT, 'src/index.ts') },
      outfile: join(dir, 'worker.mjs'),
    });
    replay = await startReplayServer({ recording: readFixture(`providers/${RECORDING}`), provider: 'anthropic', chunkDelayMs: 2 });
    served = await serve(dir, { ANTHROPIC_URL: `${replay.url}/v1/messages`, LEASE_MS: '3000', STREAM_TTL_MS: '60000' });
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await replay?.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('relays the recorded turn from the Durable Object: the MANIFEST\'s tool calls; a resume after the end gets the rest and the end', async () => {
    const response = await post(`${served.url}/chat`, { prompt: 'weather and time' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const id = response.headers.get('x-stream-id') as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const page = await decode(await response.text());
    expect(page.error, served.output()).toBeUndefined();
    const turn = await collectTurn(streamOf(page.events));
    const expected = manifestEntry(RECORDING).toolCalls;
    expect(turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments])).toEqual(expected.map((call) => [call.id, call.name, expectedArguments(call.args)]));
    // After the end: the rest and the end, from any id.
    const last = Number(page.lastEventId);
    const rest = await fetch(`${served.url}/chat/${id}`, { headers: { 'last-event-id': String(last - 2) } });
    const text = await rest.text();
    // The two events after it, kept, go out at once: one record, the id of the last.
    expect(text.match(/^id: (\d+)$/gm)).toEqual([`id: ${last}`]);
    expect((await decode(text)).events).toHaveLength(2);
    expect(text.endsWith('event: end\ndata: {}\n\n')).toBe(true);
  });

  it('a page that leaves mid-turn does not stop the model; resumes (header or ?lastEventId=) get every event once; a page that loads mid-turn gets a snapshot and the same turn', async () => {
    const expected = { path: 'notes/todo.md', content: '# To do\n\n- resume anywhere 🚀\n- "exactly once"\n'.repeat(4) };
    const pieces = JSON.stringify(expected).match(/[\s\S]{1,4}/g)!;
    const model = await startGatedModel(anthropicToolTurn('Writing it.', { id: 'toolu_do', name: 'write_file' }, pieces), FIRST_ARGUMENT_EVENT + 20);
    const local = await serve(dir, { ANTHROPIC_URL: model.url, LEASE_MS: '3000' });
    try {
      let abandoned = false;
      void model.abandoned.then(() => (abandoned = true));
      const first = await post(`${local.url}/chat`, { prompt: 'todo' });
      const id = first.headers.get('x-stream-id') as string;
      await model.held;
      const part = await decode(await readIds(first, 10)); // then the page goes away
      expect(part.error).toMatchObject({ name: 'RelayError', code: 'incomplete' });
      const received = [...part.events];
      let lastId = part.lastEventId as string;
      // A new page meanwhile: what is there as one snapshot, then the tail.
      const reload = fetch(`${local.url}/chat/${id}`).then((r) => r.text());
      await delay(100);
      model.release();
      // Resumes, cut again and again, alternately by header and by query.
      for (let i = 0; ; i++) {
        const response = await fetch(i % 2 === 0 ? `${local.url}/chat/${id}` : `${local.url}/chat/${id}?lastEventId=${lastId}`, i % 2 === 0 ? { headers: { 'last-event-id': lastId } } : {});
        expect(response.status).toBe(200);
        const text = await readIds(response, 7);
        const got = await decode(text);
        received.push(...got.events);
        // Records carry the id of their last event: ids go up, and every event after lastId comes once.
        const ids = (text.match(/^id: (\d+)$/gm) ?? []).map((line) => Number(line.slice(4)));
        expect(ids.every((id, k) => id > (k === 0 ? Number(lastId) : (ids[k - 1] as number)))).toBe(true);
        expect(got.events).toHaveLength(Number(got.lastEventId ?? lastId) - Number(lastId));
        if (got.error === undefined) break;
        lastId = got.lastEventId ?? lastId;
        expect(i).toBeLessThan(40);
      }
      const turn = await collectTurn(streamOf(received));
      expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual([['write_file', expected]]);
      expect(abandoned).toBe(false);
      const reloaded = await reload;
      expect(reloaded).toMatch(/^id: \d+\nevent: snapshot\n/);
      const reloadedTurn = await collectTurn(streamOf((await decode(reloaded)).events));
      expect(reloadedTurn).toEqual(turn);
    } finally {
      await local.close();
      await model.close();
    }
  });

  it('the stop button cancels the model\'s request wherever it runs; readers get EventLogError stopped', async () => {
    const pieces = JSON.stringify({ path: 'a.txt', content: 'x'.repeat(400) }).match(/[\s\S]{1,8}/g)!;
    const model = await startGatedModel(anthropicToolTurn('Stop me.', { id: 'toolu_stop', name: 'write_file' }, pieces), FIRST_ARGUMENT_EVENT + 10);
    const local = await serve(dir, { ANTHROPIC_URL: model.url, LEASE_MS: '1500' });
    try {
      const first = await post(`${local.url}/chat`, { prompt: 'stop' });
      const id = first.headers.get('x-stream-id') as string;
      await model.held;
      const asked = Date.now();
      expect((await post(`${local.url}/chat/${id}/stop`, {})).status).toBe(204);
      // Heard at the producer's next renewal (a third of the lease), then the model's request is cancelled.
      await model.abandoned;
      expect(Date.now() - asked).toBeLessThan(2_000);
      const page = await decode(await first.text());
      expect(page.error).toMatchObject({ name: 'EventLogError', code: 'stopped' });
      const again = await decode(await (await fetch(`${local.url}/chat/${id}`, { headers: { 'last-event-id': '1' } })).text());
      expect(again.error).toMatchObject({ name: 'EventLogError', code: 'stopped' });
    } finally {
      await local.close();
      await model.close();
    }
  });

  it('answers 404 for an unknown or expired stream and 400 for hostile ids', async () => {
    const local = await serve(dir, { ANTHROPIC_URL: `${replay.url}/v1/messages`, STREAM_TTL_MS: '400' });
    try {
      expect((await fetch(`${local.url}/chat/${'A'.repeat(22)}`)).status).toBe(404);
      expect((await fetch(`${local.url}/chat/short`)).status).toBe(400);
      expect((await fetch(`${local.url}/chat/${encodeURIComponent('a'.repeat(16) + '{x}:*')}`)).status).toBe(400);
      // A malformed percent-encoding, to read and to stop: 400 (decodeURIComponent throws on it).
      for (const malformed of ['%E0%A4%A', `${'a'.repeat(16)}%`, '%ZZ' + 'a'.repeat(16), '%C0%80' + 'a'.repeat(16)]) {
        const read = await fetch(`${local.url}/chat/${malformed}`);
        expect(read.status, malformed).toBe(400);
        expect(await read.text()).toMatch(/^invalid-id: /);
        expect((await fetch(`${local.url}/chat/${malformed}/stop`, { method: 'POST' })).status, malformed).toBe(400);
      }
      const response = await post(`${local.url}/chat`, { prompt: 'expire' });
      const id = response.headers.get('x-stream-id') as string;
      await response.text();
      for (const hostile of ['-1', '1e3', '0x1', '99999999999999999', '1 2']) {
        expect((await fetch(`${local.url}/chat/${id}`, { headers: { 'last-event-id': hostile } })).status, hostile).toBe(400);
      }
      expect((await fetch(`${local.url}/chat/${id}`, { headers: { 'last-event-id': '100000' } })).status).toBe(400);
      expect((await fetch(`${local.url}/chat/${id}`, { headers: { 'last-event-id': '1' } })).status).toBe(200);
      await delay(700);
      expect((await fetch(`${local.url}/chat/${id}`)).status).toBe(404);
    } finally {
      await local.close();
    }
  });
});

/**
 * The shared EventLog contract against the Durable Object: `StreamLog` runs in workerd (storage,
 * the live tail, the lease, stop, expiry, the size limit, one producer per stream), and
 * `DurableObjectEventLog` — the side a Worker uses — here, its requests to the object carried
 * over HTTP by a small Worker that only forwards them to the namespace (`/do/<name>/<path>`).
 * Another instance is another `DurableObjectEventLog` on the same namespace.
 */
describe.skipIf(missing !== undefined)('DurableObjectEventLog and StreamLog under workerd', () => {
  let dir = '';
  let served: Served;
  const counts = new Map<object, { n: number }>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'argstream-durable-object-log-'));
    await build({
      stdin: {
        contents: `
          import { StreamLog as ExampleStreamLog } from './examples/durable-object/event-log.ts';
          // Cloudflare's limit, which workerd's local storage does not enforce: at most 128
          // key-value pairs per put() call (https://developers.cloudflare.com/durable-objects/api/storage-api/).
          const seen = { largestPut: 0, largestAppend: 0 };
          const LIMIT = 128;
          function limited(storage) {
            return new Proxy(storage, {
              get(target, key) {
                if (key === 'put') {
                  return (entries, ...rest) => {
                    const pairs = typeof entries === 'string' ? 1 : Object.keys(entries).length;
                    seen.largestPut = Math.max(seen.largestPut, pairs);
                    if (pairs > LIMIT) return Promise.reject(new RangeError('put(): ' + pairs + ' key-value pairs, more than ' + LIMIT));
                    return target.put(entries, ...rest);
                  };
                }
                const value = target[key];
                return typeof value === 'function' ? value.bind(target) : value;
              },
            });
          }
          export class StreamLog extends ExampleStreamLog {
            constructor(state, env) {
              const storage = limited(state.storage);
              super({ storage, blockConcurrencyWhile: (callback) => state.blockConcurrencyWhile(callback) }, env);
            }
          }
          export default {
            async fetch(request, env) {
              const url = new URL(request.url);
              if (url.pathname === '/seen') return Response.json(seen);
              const match = /^\\/do\\/([^/]+)(\\/.*)$/.exec(url.pathname);
              if (match === null) return new Response('GET or POST /do/<stream id>/<path>, GET /seen', { status: 404 });
              if (match[2] === '/append') seen.largestAppend = Math.max(seen.largestAppend, (await request.clone().json()).entries.length);
              return env.STREAMS.get(env.STREAMS.idFromName(match[1])).fetch('https://stream-log' + match[2] + url.search, request);
            },
          };`,
        resolveDir: ROOT,
        loader: 'ts',
      },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      logLevel: 'silent',
      alias: { argstream: join(ROOT, 'src/index.ts') },
      outfile: join(dir, 'log-worker.mjs'),
    });
    served = await serve(dir, {}, 'log-worker.mjs');
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  /** The namespace as a Worker sees it, reached over HTTP; each request to an object counted. */
  function namespace(counter: { n: number }): DurableObjectNamespace {
    return {
      idFromName: (name) => name,
      get: (id) => ({
        fetch(input, init) {
          counter.n++;
          const url = new URL(input);
          return fetch(`${served.url}/do/${String(id)}${url.pathname}${url.search}`, init);
        },
      }),
    };
  }

  function make(options: { ttlMs?: number; maxBytes?: number; leaseMs?: number } = {}): DurableObjectEventLog {
    const counter = { n: 0 };
    const log = new DurableObjectEventLog(namespace(counter), options);
    counts.set(log, counter);
    return log;
  }

  logContract('DurableObjectEventLog', {
    make: async (options) => make(options),
    peer: async (_, options) => make(options),
    abandon(producer) {
      (producer as unknown as { release(): void }).release();
    },
    commands: (log) => (counts.get(log) as { n: number }).n,
    leaseSlackMs: 600,
  });

  it('StreamLog writes an append of 256 events in puts of at most 128 key-value pairs (Cloudflare\'s limit), and a burst of them is kept whole', async () => {
    const log = make();
    const id = 'burst-' + 'x'.repeat(16);
    const producer = await log.open(id);
    const events = Array.from({ length: 700 }, (_, i) => ({ type: 'field-delta', key: 'content', text: `line ${i + 1}\n` }));
    expect(await Promise.all(events.map((event) => producer.append(event)))).toEqual(events.map((_, i) => i + 1));
    await producer.end();
    const seen = (await (await fetch(`${served.url}/seen`)).json()) as { largestPut: number; largestAppend: number };
    // Appends went in batches too large for one put(), and no put() went beyond the limit.
    expect(seen.largestAppend).toBe(256);
    expect(seen.largestPut).toBeLessThanOrEqual(128);
    const read: number[] = [];
    for await (const entry of await log.read(id, 0)) if (entry.kind === 'event') read.push(entry.id);
    expect(read).toEqual(events.map((_, i) => i + 1));
  });
});
