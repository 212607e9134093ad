/**
 * examples/browser in every browser engine: Chromium (playwright-core), Firefox (puppeteer-core,
 * WebDriver BiDi) and WebKit (WebKitGTK's MiniBrowser under WebKitWebDriver and Xvfb), started by
 * the runners of test/runtimes/. The page, served by the example's own serve.mjs (argstream
 * bundled from src/ for the page's import map, the edge function run in Node), asks a model that
 * streams a write_file call and stops at chosen points until the test lets it go on: first right
 * after the path (the path shown, no content yet), then twice in the middle of the content (a
 * prefix, then a longer one, grown in the same text node), then the end (the call's ✓ and exactly
 * the arguments written below). DOM assertions only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { startReplayServer } from '../../src/cli/replay-server.ts';
import { startBrowserExample } from '../../examples/browser/serve.mjs';
import type { BrowserSession } from '../runtimes/harness.ts';
import { anthropicToolTurn, FIRST_ARGUMENT_EVENT } from './gated-model.ts';
import { describeInEngine, ENGINES,  } from './page-harness.ts';

const SRC = fileURLToPath(new URL('../../src/index.ts', import.meta.url));

/** The call the model writes, by hand: escapes, quotes, non-ASCII and an emoji in the content. */
const EXPECTED = {
  path: 'src/greet.rs',
  content: 'pub fn greet(name: &str) -> String {\n    format!("héllo, {name} 👋 \\"friend\\"\\n")\n}\n\n#[test]\nfn greets() {\n    assert_eq!(greet("ana"), "héllo, ana 👋 \\"friend\\"\\n");\n}\n',
};
const TEXT = "I'll add the greeting function.";

// ---------------------------------------------------------------------------------------------
// A model that stops more than once

interface SteppedModel {
  /** The Messages endpoint. */
  readonly url: string;
  /** Resolves once every event before stop `n` has been written (and flushed to the socket). */
  reached(n: number): Promise<void>;
  /** Go on from the stop the model is at. */
  next(): void;
  close(): Promise<void>;
}

/** A promise and its resolve function (Promise.withResolvers, which Node 20 lacks). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Serve `events` (one write each) to the first request, stopping before each index in `stops` until `next()`. */
async function startSteppedModel(events: readonly string[], stops: readonly number[]): Promise<SteppedModel> {
  const arrivals = stops.map(() => deferred());
  let go = deferred();
  const write = (response: import('node:http').ServerResponse, chunk: string) => new Promise<void>((resolve) => response.write(chunk, () => resolve()));
  const server = createServer(async (request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < events.length; i++) {
      const stop = stops.indexOf(i);
      if (stop >= 0) {
        arrivals[stop]!.resolve();
        await go.promise;
        go = deferred();
      }
      if (response.destroyed) return;
      await write(response, events[i]!);
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`,
    reached: (n) => arrivals[n]!.promise,
    next: () => go.resolve(),
    close: () => {
      go.resolve();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * What a page must show of a string field once `raw` (its JSON text so far, after the opening
 * quote) has arrived: every complete character — a split escape and the first half of a surrogate
 * pair are held back, nothing else.
 */
function decodedPrefix(raw: string): string {
  for (let end = raw.length; end >= 0; end--) {
    try {
      const text = JSON.parse(`"${raw.slice(0, end)}"`) as string;
      return /[\uD800-\uDBFF]$/.test(text) ? text.slice(0, -1) : text;
    } catch {
      // An escape cut in the middle: shorter.
    }
  }
  return '';
}

// ---------------------------------------------------------------------------------------------
// The page

/** What the page shows of the write_file call and the stream. */
function shown(session: BrowserSession) {
  return session.evaluate(() => {
    const call = document.querySelector('#calls article[data-tool="write_file"]') as HTMLElement | null;
    const title = call?.querySelector('h3');
    const content = call?.querySelector('.content-value');
    return {
      status: document.getElementById('status')?.dataset['state'],
      statusText: document.getElementById('status')?.textContent ?? '',
      message: document.getElementById('message')?.textContent ?? '',
      callState: call?.dataset['state'],
      arguments: call?.dataset['arguments'],
      pathLine: call?.querySelector('.path')?.textContent ?? null,
      pathComplete: call?.querySelector('.path-value')?.hasAttribute('data-complete') ?? false,
      content: content?.textContent ?? null,
      contentComplete: content?.hasAttribute('data-complete') ?? false,
      /** Whether the content's text node is the one {@link markContent} marked: it grew in place. */
      contentNodeMarked: (content?.firstChild as (Node & { argstreamMarked?: boolean }) | null | undefined)?.argstreamMarked === true,
      /** The call's ✓: `.call[data-state="complete"] h3::after` (`none` until then). */
      check: title === null || title === undefined ? null : getComputedStyle(title, '::after').content,
    };
  });
}

type Shown = Awaited<ReturnType<typeof shown>>;

/** Mark the content's text node, to see later that the page appended to it rather than replacing it. */
function markContent(session: BrowserSession) {
  return session.evaluate(() => {
    const node = document.querySelector('#calls .content-value')?.firstChild as (Node & { argstreamMarked?: boolean }) | null | undefined;
    if (node !== null && node !== undefined) node.argstreamMarked = true;
  });
}

/** Poll what the page shows until `ready` says so; fails with the last thing shown. */
async function until(session: BrowserSession, ready: (page: Shown) => boolean, what: string, timeoutMs = 20_000): Promise<Shown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await shown(session);
    if (ready(page)) return page;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; the page shows ${JSON.stringify(page)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ---------------------------------------------------------------------------------------------

for (const engine of ENGINES) {
  describeInEngine(engine, `examples/browser in ${engine.name}`, (browser) => {

    it('shows the write_file path first, then its content growing as it streams, then the ✓ and exactly the arguments', async (context) => {
      const page = browser(context);
      const argumentText = JSON.stringify(EXPECTED);
      const pieces = argumentText.match(/[\s\S]{1,7}/g)!;
      const sent = (k: number) => pieces.slice(0, k).join('').length;
      const piecesFor = (length: number) => {
        let k = 0;
        while (sent(k) < length) k++;
        return k;
      };
      const pathEnd = argumentText.indexOf('","content":"') + 1;
      const contentKeyEnd = pathEnd + ',"content"'.length;
      const contentStart = argumentText.indexOf('","content":"') + '","content":"'.length;
      // Stop 0 right after the path's closing quote, before the content's key is complete; stops 1
      // and 2 inside the content, 40 and 120 characters of its JSON text in.
      const stops = [piecesFor(pathEnd), piecesFor(contentStart + 40), piecesFor(contentStart + 120)];
      expect(sent(stops[0]!), 'stop 0 comes before the content key is complete').toBeLessThan(contentKeyEnd);
      expect(sent(stops[2]!), 'stop 2 comes before the content is complete').toBeLessThan(argumentText.length - 2);
      const shownAt = (k: number) => decodedPrefix(argumentText.slice(contentStart, sent(k)));

      const model = await startSteppedModel(
        anthropicToolTurn(TEXT, { id: 'toolu_test_1', name: 'write_file' }, pieces),
        stops.map((k) => FIRST_ARGUMENT_EVENT + k),
      );
      const example = await startBrowserExample({ argstreamEntry: SRC, anthropicUrl: model.url });
      try {
        const problemsBefore = page.problems().length;
        await page.goto(`${example.url}/`);
        await page.click('button[type="submit"]');

        // Everything sent before a stop reaches the page; nothing after it can.
        await model.reached(0);
        const path = await until(page, (p) => p.pathComplete, 'the path, complete');
        expect(path.status).toBe('streaming');
        expect(path.callState).toBe('streaming');
        expect(path.message).toBe(TEXT);
        expect(path.pathLine).toBe(`creating ${EXPECTED.path}`);
        expect(path.content, 'no content before its key is complete').toBeNull();
        expect(path.check).toBe('none');

        model.next();
        await model.reached(1);
        const first = await until(page, (p) => p.content === shownAt(stops[1]!), `the content's first ${shownAt(stops[1]!).length} characters`);
        expect(first.content!.length).toBeGreaterThan(0);
        expect(first.contentComplete).toBe(false);
        expect(first.callState).toBe('streaming');
        expect(first.check).toBe('none');
        await markContent(page);

        model.next();
        await model.reached(2);
        const second = await until(page, (p) => p.content === shownAt(stops[2]!), `the content's first ${shownAt(stops[2]!).length} characters`);
        expect(second.content!.length).toBeGreaterThan(first.content!.length);
        expect(second.content!.length).toBeLessThan(EXPECTED.content.length);
        expect(second.content!.startsWith(first.content!)).toBe(true);
        expect(second.contentNodeMarked, 'the content grew in the same text node').toBe(true);
        expect(second.status).toBe('streaming');
        expect(second.check).toBe('none');

        model.next();
        const end = await until(page, (p) => p.status !== 'streaming', 'the end of the stream');
        expect(end.status, end.statusText).toBe('done');
        expect(end.callState).toBe('complete');
        expect(end.check).toBe('" ✓"');
        expect(end.content).toBe(EXPECTED.content);
        expect(end.contentComplete).toBe(true);
        expect(end.contentNodeMarked).toBe(true);
        expect(JSON.parse(end.arguments!)).toEqual(EXPECTED);
        expect(page.problems().slice(problemsBefore)).toEqual([]);
      } finally {
        await example.close();
        await model.close();
      }
    });

    it("shows the provider's error (an HTTP 529 from the model) as the stream's error", async (context) => {
      const page = browser(context);
      const failing = await startReplayServer({ recording: new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), provider: 'anthropic', status: 529 });
      const example = await startBrowserExample({ argstreamEntry: SRC, anthropicUrl: `${failing.url}/v1/messages` });
      try {
        await page.goto(`${example.url}/`);
        await page.click('button[type="submit"]');
        const end = await until(page, (p) => p.status === 'error', 'the error');
        expect(end.statusText).toMatch(/^ProviderError: anthropic \(HTTP 529\): the provider reported an error "overloaded_error"/); // argstream's words: "Overloaded" stays on the server
      } finally {
        await example.close();
        await failing.close();
      }
    });

    it('runs its scripted turn when started without a model (node examples/browser/serve.mjs)', async (context) => {
      const page = browser(context);
      const example = await startBrowserExample({ argstreamEntry: SRC, delayMs: 0 });
      try {
        const problemsBefore = page.problems().length;
        await page.goto(`${example.url}/`);
        await page.click('button[type="submit"]');
        const end = await until(page, (p) => p.status !== 'streaming', 'the end of the stream');
        expect(end.status, end.statusText).toBe('done');
        expect(end.pathLine).toBe('creating src/main.rs');
        expect(end.content).toContain('println!("{words} words — \\"done\\" ✓");');
        expect(end.check).toBe('" ✓"');
        expect(page.problems().slice(problemsBefore)).toEqual([]);
      } finally {
        await example.close();
      }
    });
  });
}
