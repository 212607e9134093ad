/**
 * examples/browser in Chromium (playwright-core, headless): the page, served by the example's own
 * serve.mjs (argstream bundled from src/ for the page's import map, the edge function run in
 * Node), asks a model that streams a write_file call and stops in the middle of the file's content
 * until the test lets it go. Mid-stream the page must show the path and a proper, non-empty prefix
 * of the content; at the end, exactly the arguments written below. DOM assertions only.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startReplayServer } from '../../src/cli/replay-server.ts';
import { startBrowserExample } from '../../examples/browser/serve.mjs';
import { chromiumPath } from '../runtimes/chromium/run.ts';
import { anthropicToolTurn, FIRST_ARGUMENT_EVENT, startGatedModel } from './gated-model.ts';

const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const SRC = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The call the model writes, by hand: escapes, quotes, non-ASCII and an emoji in the content. */
const EXPECTED = {
  path: 'src/greet.rs',
  content: 'pub fn greet(name: &str) -> String {\n    format!("héllo, {name} 👋 \\"friend\\"\\n")\n}\n\n#[test]\nfn greets() {\n    assert_eq!(greet("ana"), "héllo, ana 👋 \\"friend\\"\\n");\n}\n',
};
const TEXT = "I'll add the greeting function.";

const start = startBrowserExample;

let browser: Browser | undefined;

function missing(): string | undefined {
  return existsSync(chromiumPath()) ? undefined : `no Chromium at ${chromiumPath()}: install it (Debian/Ubuntu: \`apt-get install -y chromium\`) or set CHROMIUM_PATH`;
}

beforeAll(async () => {
  if (missing() !== undefined) return;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** A page on `url` that records page errors. */
async function open(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser!.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(url);
  return { page, problems };
}

/** What the page shows of the write_file call and the stream. */
function shown(page: Page) {
  return page.evaluate(() => {
    const call = document.querySelector('#calls article[data-tool="write_file"]') as HTMLElement | null;
    return {
      status: document.getElementById('status')?.dataset['state'],
      statusText: document.getElementById('status')?.textContent ?? '',
      message: document.getElementById('message')?.textContent ?? '',
      callState: call?.dataset['state'],
      arguments: call?.dataset['arguments'],
      pathLine: call?.querySelector('.path')?.textContent ?? null,
      pathComplete: call?.querySelector('.path-value')?.hasAttribute('data-complete') ?? false,
      content: call?.querySelector('.content-value')?.textContent ?? null,
    };
  });
}

function skipUnlessChromium(context: { skip(note?: string): void }): void {
  const why = missing();
  if (why === undefined) return;
  if (IN_CI) throw new Error(`Chromium is required in CI: ${why}`);
  console.warn(`skipped: ${why}`);
  context.skip(why);
}

describe('examples/browser', () => {
  it('renders the write_file path and a growing prefix of its content mid-stream, then exactly the arguments', async (context) => {
    skipUnlessChromium(context);
    const argumentText = JSON.stringify(EXPECTED);
    const pieces = argumentText.match(/[\s\S]{1,7}/g)!;
    // Hold once the content has begun: 40 characters of argument text after `"content":"`.
    const contentStart = argumentText.indexOf('"content":"') + '"content":"'.length;
    let length = 0;
    let k = 0;
    while (length < contentStart + 40) length += pieces[k++]!.length;
    const model = await startGatedModel(anthropicToolTurn(TEXT, { id: 'toolu_test_1', name: 'write_file' }, pieces), FIRST_ARGUMENT_EVENT + k);
    const example = await start({ argstreamEntry: SRC, anthropicUrl: model.url });
    try {
      const { page, problems } = await open(`${example.url}/`);
      await page.click('button[type="submit"]');
      await model.held;
      // Everything sent before the hold reaches the page; nothing after it can.
      await page.waitForFunction(() => (document.querySelector('#calls .content-value')?.textContent ?? '') !== '', undefined, { timeout: 20_000 });
      const middle = await shown(page);
      expect(middle.status).toBe('streaming');
      expect(middle.callState).toBe('streaming');
      expect(middle.message).toBe(TEXT);
      expect(middle.pathLine).toBe(`creating ${EXPECTED.path}`);
      expect(middle.pathComplete).toBe(true);
      expect(middle.content!.length).toBeGreaterThan(0);
      expect(middle.content!.length).toBeLessThan(EXPECTED.content.length);
      expect(EXPECTED.content.startsWith(middle.content!)).toBe(true);

      model.release();
      await page.waitForFunction(() => document.getElementById('status')?.dataset['state'] !== 'streaming', undefined, { timeout: 20_000 });
      const end = await shown(page);
      expect(end.status, end.statusText).toBe('done');
      expect(end.callState).toBe('complete');
      expect(end.content).toBe(EXPECTED.content);
      expect(JSON.parse(end.arguments!)).toEqual(EXPECTED);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await example.close();
      await model.close();
    }
  });

  it("shows the provider's error (an HTTP 529 from the model) as the stream's error", async (context) => {
    skipUnlessChromium(context);
    const failing = await startReplayServer({ recording: new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), provider: 'anthropic', status: 529 });
    const example = await start({ argstreamEntry: SRC, anthropicUrl: `${failing.url}/v1/messages` });
    try {
      const { page } = await open(`${example.url}/`);
      await page.click('button[type="submit"]');
      await page.waitForFunction(() => document.getElementById('status')?.dataset['state'] === 'error', undefined, { timeout: 20_000 });
      const end = await shown(page);
      expect(end.statusText).toMatch(/^ProviderError: .*Overloaded/);
      await page.close();
    } finally {
      await example.close();
      await failing.close();
    }
  });

  it('runs its scripted turn when started without a model (node examples/browser/serve.mjs)', async (context) => {
    skipUnlessChromium(context);
    const example = await start({ argstreamEntry: SRC, delayMs: 0 });
    try {
      const { page, problems } = await open(`${example.url}/`);
      await page.click('button[type="submit"]');
      await page.waitForFunction(() => document.getElementById('status')?.dataset['state'] !== 'streaming', undefined, { timeout: 20_000 });
      const end = await shown(page);
      expect(end.status, end.statusText).toBe('done');
      expect(end.pathLine).toBe('creating src/main.rs');
      expect(end.content).toContain('println!("{words} words — \\"done\\" ✓");');
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await example.close();
    }
  });
});
