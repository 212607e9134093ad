/**
 * What the page tests share: the engine session of a `describe` (skipped with what to install,
 * failed in CI), polling what a page shows, pressing Send as a user, and what the page logged as
 * errors and warnings.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { BrowserSession } from '../runtimes/harness.ts';
import { waitInPage } from '../runtimes/harness.ts';
import { chromiumMissing, launchChromium } from '../runtimes/chromium/run.ts';
import { firefoxMissing, launchFirefox } from '../runtimes/firefox/run.ts';
import { launchWebKit, webkitMissing } from '../runtimes/webkit/run.ts';

export const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';

/** The session of `engine`, or the test skipped with what to install (failed in CI). */
export function browserOf(
  engine: { readonly name: string; missing(): string | undefined },
  session: BrowserSession | undefined,
  context: { skip(note?: string): void },
): BrowserSession {
  const why = engine.missing();
  if (why !== undefined) {
    if (IN_CI) throw new Error(`${engine.name} is required in CI: ${why}`);
    console.warn(`skipped: ${why}`);
    context.skip(why);
  }
  if (session === undefined) throw new Error(`${engine.name} did not start`);
  return session;
}

/** A browser engine the page tests run in: how to start it, or why it cannot start here. */
export interface Engine {
  readonly name: string;
  launch(): Promise<BrowserSession>;
  missing(): string | undefined;
}

/** The three engines of the page tests, from the system's packages (none downloaded). */
export const ENGINES: readonly Engine[] = [
  { name: 'Chromium', launch: launchChromium, missing: chromiumMissing },
  { name: 'Firefox', launch: launchFirefox, missing: firefoxMissing },
  { name: 'WebKit', launch: launchWebKit, missing: webkitMissing },
];

/**
 * A `describe` with one session of `engine` for its tests (started before them, closed after);
 * `body` gets the session a test uses (`browserOf`: skipped, or failed in CI, where the engine is
 * missing).
 */
export function describeInEngine(engine: Engine, title: string, body: (browser: (context: { skip(note?: string): void }) => BrowserSession) => void): void {
  describe(title, () => {
    let session: BrowserSession | undefined;
    beforeAll(async () => {
      if (engine.missing() === undefined) session = await engine.launch();
    }, 60_000);
    afterAll(async () => {
      await session?.close();
    }, 30_000);
    body((context) => browserOf(engine, session, context));
  });
}

/** Poll `read(session)` until `ready` says so; fails with the last thing read. */
export async function until<T>(session: BrowserSession, read: (session: BrowserSession) => Promise<T>, ready: (page: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await read(session);
    if (ready(page)) return page;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; the page shows ${JSON.stringify(page)}`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** Open `url` and press its Send button, as a user would (the console recorded from then on). */
export async function send(session: BrowserSession, url: string): Promise<void> {
  await session.goto(url);
  // A framework renders the form after the page's load event (React's createRoot schedules it).
  await waitInPage(session, () => document.querySelector('#ask button[type="submit"]') !== null, 15_000, 'the Send button');
  await recordConsole(session);
  await session.click('#ask button[type="submit"]');
}

/**
 * From now on, keep what the page logs as errors and warnings: the frameworks' development builds
 * (React's StrictMode checks, Vue's and Svelte's warnings) say there what they find wrong.
 */
export function recordConsole(session: BrowserSession): Promise<void> {
  return session.evaluate(() => {
    const page = window as unknown as { argstreamLogs?: string[] };
    if (page.argstreamLogs !== undefined) return;
    const logs: string[] = (page.argstreamLogs = []);
    for (const level of ['error', 'warn'] as const) {
      const original = console[level];
      console[level] = (...args: unknown[]) => {
        logs.push(`${level}: ${args.map(String).join(' ')}`);
        original.apply(console, args);
      };
    }
  });
}

/** What the page logged as errors and warnings since {@link recordConsole}. */
export function consoleProblems(session: BrowserSession): Promise<string[]> {
  return session.evaluate(() => (window as unknown as { argstreamLogs?: string[] }).argstreamLogs ?? []);
}
