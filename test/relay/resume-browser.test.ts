/**
 * The README's resume recipe in Chromium, Firefox and WebKit: a page that reads a relayed turn with
 * `readRelay` (no reconnect code of its own), two relay processes on one real Redis behind a TCP
 * front that routes each connection to the relay the test names. The page's connection is cut by
 * the front, then the relay it resumed on is killed (SIGKILL) mid-stream: the page ends with every
 * event of the log exactly once and in order, and the exact arguments. The relay that runs the
 * model killed: the page ends with `EventLogError` `producer-lost`, never a finished turn.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRelay, type PipelineEvent } from '../../src/index.ts';
import { readAll } from '../helpers.ts';
import { redisMissing, startRedis, type RedisServer } from '../redis/redis-server.ts';
import { spawnGroup, type BrowserSession, type GroupProcess } from '../runtimes/harness.ts';
import { describeInEngine, ENGINES, IN_CI } from '../examples/page-harness.ts';
import { anthropicWriteFile, front } from './relay-helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The model's turn: a write_file call of 24,000 characters in 480 deltas, one every 8 ms (about 4 s). */
const SIZE = 24_000;
const SSE = anthropicWriteFile(SIZE, 480);
const EXPECTED = { path: 'src/main.rs', content: Array.from({ length: SIZE }, (_, i) => String.fromCharCode(97 + (i % 26))).join('') };

interface Relay {
  readonly port: number;
  readonly process: GroupProcess;
}

const skipAll = redisMissing() !== undefined && !IN_CI;
if (skipAll) console.warn(`skipped the resume browser tests: ${redisMissing()}`);

describe.skipIf(skipAll)('readRelay in the browsers: the README resume recipe survives a cut and a killed relay', () => {
  let redis: RedisServer;
  let dir: string;
  let relayScript: string;
  let pageBundle: string;
  let turnFile: string;
  const relays: Relay[] = [];

  async function startRelay(name: string, paceMs = 8): Promise<Relay> {
    const child = spawnGroup(process.execPath, [relayScript], {
      env: { ...process.env, REDIS_URL: redis.url, PAGE_BUNDLE: pageBundle, TURN_SSE: turnFile, PACE_MS: String(paceMs), NAME: name },
    });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const match = /listening (\d+)/.exec(child.output());
      if (match !== null) {
        const relay = { port: Number(match[1]), process: child };
        relays.push(relay);
        return relay;
      }
      if (!child.alive() || Date.now() > deadline) throw new Error(`relay ${name} did not start: ${child.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'argstream-resume-browser-'));
    relayScript = join(ROOT, 'node_modules', '.cache', `argstream-resume-relay-${process.pid}.mjs`);
    pageBundle = join(dir, 'page.mjs');
    turnFile = join(dir, 'turn.sse');
    writeFileSync(turnFile, SSE);
    await Promise.all([
      build({ absWorkingDir: ROOT, entryPoints: [join(ROOT, 'test/relay/resume-relay-process.ts')], outfile: relayScript, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' }),
      build({ absWorkingDir: ROOT, entryPoints: [join(ROOT, 'test/relay/resume-page.ts')], outfile: pageBundle, bundle: true, platform: 'browser', format: 'esm', target: 'es2020', logLevel: 'warning' }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(relays.map((relay) => relay.process.stop()));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(relayScript, { force: true });
  }, 30_000);

  /** What the page has: how many events, its retries, whether it ended, and how. */
  const state = (session: BrowserSession) =>
    session.evaluate(() => {
      const page = window as unknown as { events: unknown[]; retries: string[]; done: boolean; error?: string; status?: string };
      // `?? null`: WebDriver gives `undefined` back as `null`.
      return { count: page.events.length, retries: page.retries, done: page.done, error: page.error ?? null, status: page.status ?? null };
    });

  async function until(session: BrowserSession, ready: (page: Awaited<ReturnType<typeof state>>) => boolean, what: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const page = await state(session);
      if (ready(page)) return page;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; the page has ${JSON.stringify(page)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  for (const engine of ENGINES) {
    describeInEngine(engine, engine.name, (browser) => {
      it('the front cuts the connection, then the relay the page resumed on is killed: every event once, in order, and the exact arguments', async (context) => {
        const page = browser(context);
        const [producer, other] = await Promise.all([startRelay(`${engine.name}-a`), startRelay(`${engine.name}-b`)]);
        const gate = await front();
        try {
          gate.route = producer.port;
          await page.goto(`${gate.url}/`);
          await page.evaluate(() => (window as unknown as { start(): void }).start());
          const before = await until(page, (p) => p.count >= 40, 'the first events');
          // The connection cut by the front (a proxy's restart, a network change): the page resumes on the other relay.
          gate.route = other.port;
          gate.cut();
          const resumed = await until(page, (p) => p.retries.length >= 1 && p.count >= before.count + 40, 'events after the resume');
          expect(resumed.done, 'the turn was still streaming when the relay was killed').toBe(false);
          // The relay serving it now is killed mid-stream: the page resumes on the first one.
          gate.route = producer.port;
          await other.process.stop();
          const end = await until(page, (p) => p.done || p.error !== null, 'the end of the turn', 30_000);
          expect(end.error).toBeNull();
          expect(end.retries.length).toBeGreaterThanOrEqual(2);
          const events = (await page.evaluate(() => (window as unknown as { events: unknown[] }).events)) as PipelineEvent[];
          // The log's own events, read whole from the producer's relay (which printed the stream's id).
          const streamId = /stream (\S+)/.exec(producer.process.output())?.[1];
          const all = await readAll(readRelay(`http://127.0.0.1:${producer.port}/api/chat/${streamId}`, { method: 'GET' }));
          expect(events).toEqual(JSON.parse(JSON.stringify(all)));
          await until(page, (p) => p.status !== null, 'the store');
          expect(await page.evaluate(() => (window as unknown as { status?: string }).status)).toBe('done');
          expect(await page.evaluate(() => (window as unknown as { arguments: unknown }).arguments)).toEqual(EXPECTED);
        } finally {
          gate.close();
        }
      }, 90_000);

      it("the relay that runs the model is killed: the page ends with EventLogError 'producer-lost', never a finished turn", async (context) => {
        const page = browser(context);
        const [producer, other] = await Promise.all([startRelay(`${engine.name}-c`, 20), startRelay(`${engine.name}-d`)]);
        const gate = await front();
        try {
          gate.route = producer.port;
          await page.goto(`${gate.url}/`);
          await page.evaluate(() => (window as unknown as { start(): void }).start());
          await until(page, (p) => p.count >= 20, 'the first events');
          gate.route = other.port;
          await producer.process.stop();
          const end = await until(page, (p) => p.done || p.error !== null, 'the end', 30_000);
          expect(end.done).toBe(false);
          expect(end.error).toMatch(/EventLogError.*(producer|lease)/);
        } finally {
          gate.close();
          await other.process.stop();
        }
      }, 90_000);
    });
  }
});
