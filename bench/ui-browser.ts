/**
 * `npm run bench:ui-browser`: the React example page (examples/react, React 19, production build)
 * in Chromium receiving one large `write_file` call at a provider's pace, and what it costs the
 * page's main thread: long tasks (over 50 ms, the browser's own `longtask` entries), frames, and
 * the main thread's script and layout time (Chrome DevTools Protocol `Performance.getMetrics`).
 *
 * The model is a local server that streams the call as Anthropic Messages SSE, one event per
 * `--pace-ms` (default 1 ms: ~1,000 events a second, ten times a fast model); the page's relay is
 * the example's own edge function (argstream's FieldEventStream → EventStreamEncoder) in this Node
 * process. The page must end with exactly the call's arguments on it, or the run fails.
 *
 *   npm run build && npm run bench:ui-browser -- [--bytes 1000000] [--pace-ms 1]
 *
 * @module
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAiSdkExample } from '../examples/ai-sdk/serve.mjs';
import { startFrameworkExample } from '../examples/shared/serve.mjs';
import { chromiumMissing, chromiumPath } from '../test/runtimes/chromium/run.ts';
import { ANTHROPIC_TOOL_ID, TOOL_NAME, sseEvents } from './pipeline.ts';
import { uiWriteFileCall } from './ui.ts';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} needs a number`);
  return value;
}

const BYTES = option('bytes', 1_000_000);
const PACE_MS = option('pace-ms', 1);
/**
 * The page: `react` (examples/react: argstream's relay and `useTurn`), `ai-sdk` (examples/ai-sdk:
 * the AI SDK's own server, `useChat` with `ArgstreamChatTransport`, ai 7), `ai-sdk-default` (the
 * same page on the AI SDK's `DefaultChatTransport`, an argstream server: the AI SDK's own client
 * processing, for scale).
 */
const PAGE = (() => {
  const at = process.argv.indexOf('--page');
  const page = at === -1 ? 'react' : process.argv[at + 1];
  if (page !== 'react' && page !== 'ai-sdk' && page !== 'ai-sdk-default') throw new Error('--page is react, ai-sdk or ai-sdk-default');
  return page;
})();

/** A model that streams `events` to each request, one event per `PACE_MS`. */
async function startModel(events: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response: ServerResponse) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let next = 0;
    const timer = setInterval(() => {
      // Catch up when the timer is late, so the pace is kept on average.
      const due = Math.max(1, Math.round(1 / Math.max(PACE_MS, 0.001)));
      for (let n = 0; n < due && next < events.length; n++) response.write(events[next++]);
      if (next >= events.length) {
        clearInterval(timer);
        response.end();
      }
    }, Math.max(PACE_MS, 1));
    response.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/messages`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  const missing = chromiumMissing();
  if (missing !== undefined) throw new Error(missing);
  const call = uiWriteFileCall(BYTES);
  const events = sseEvents('anthropic', call.deltas);
  const expected = call.expected as { path: string; content: string };
  const model = await startModel(events);
  const example =
    PAGE === 'react'
      ? await startFrameworkExample({ framework: 'react', argstream: 'src', mode: 'production', anthropicUrl: model.url })
      : await startAiSdkExample({ server: PAGE === 'ai-sdk' ? 'ai-sdk' : 'argstream', major: 7, argstream: 'src', mode: 'production', anthropicUrl: model.url });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      const state = { longTasks: [] as number[], at: [] as number[], frames: 0, watching: true, t0: 0 };
      (globalThis as { __bench?: typeof state }).__bench = state;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          state.longTasks.push(entry.duration);
          state.at.push(entry.startTime - state.t0);
        }
      }).observe({ type: 'longtask', buffered: true });
      const frame = (): void => {
        state.frames++;
        if (state.watching) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    await page.goto(example.url);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async (): Promise<Record<string, number>> =>
      Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }).metrics.map((m) => [m.name, m.value]));
    await page.evaluate(() => {
      const state = (globalThis as { __bench?: { longTasks: number[]; at: number[]; frames: number; t0: number } }).__bench!;
      state.longTasks.length = 0;
      state.at.length = 0;
      state.frames = 0;
      state.t0 = performance.now();
    });
    const before = await metrics();
    const started = Date.now();
    await page.click('#ask button[type="submit"]');
    // The React example's status says done; the AI SDK pages' call says its input is available.
    await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#status')?.getAttribute('data-state') ?? '') || ['input-available', 'output-available'].includes(document.querySelector('.call')?.getAttribute('data-state') ?? '') || document.querySelector('#status')?.getAttribute('data-status') === 'error', undefined, {
      timeout: 30 * 60_000,
      polling: 500,
    });
    const seconds = (Date.now() - started) / 1000;
    const after = await metrics();
    const page_ = await page.evaluate(() => {
      const state = (globalThis as { __bench?: { longTasks: number[]; at: number[]; frames: number; watching: boolean } }).__bench!;
      state.watching = false;
      return {
        at: state.at,
        status: document.querySelector('#status')?.getAttribute('data-state') ?? (['input-available', 'output-available'].includes(document.querySelector('.call')?.getAttribute('data-state') ?? '') ? 'done' : (document.querySelector('#status')?.getAttribute('data-status') ?? '')),
        path: document.querySelector('.call .path-value')?.textContent ?? '',
        content: document.querySelector('.call .content-value')?.textContent ?? '',
        longTasks: state.longTasks,
        frames: state.frames,
      };
    });
    if (page_.status !== 'done') throw new Error(`the page ended in ${page_.status}`);
    if (page_.content !== expected.content) throw new Error(`the page's content is not the call's (${page_.content.length} of ${expected.content.length} characters)`);
    const delta = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0);
    const over50 = page_.longTasks.filter((duration) => duration > 50);
    const lines = [
      `### UI in a browser: ${PAGE === 'react' ? 'examples/react' : PAGE === 'ai-sdk' ? 'examples/ai-sdk (an AI SDK server, `useChat` on `ArgstreamChatTransport`, ai 7)' : 'examples/ai-sdk (`useChat` on `DefaultChatTransport`, ai 7)'}, React 19 (production) in Chromium ${browser.version()}, one ${TOOL_NAME} call`,
      '',
      `${call.bytes} bytes of arguments in ${call.deltas.length} deltas (${events.length} SSE events), one event every ${PACE_MS} ms from a local model, relayed by the example's edge function (FieldEventStream → EventStreamEncoder) to \`useTurn(response, { tools })\`; id \`${ANTHROPIC_TOOL_ID}\`.`,
      '',
      '| streaming took | frames | long tasks (> 50 ms) | longest task | script time | layout time | style time | task time |',
      '|--:|--:|--:|--:|--:|--:|--:|--:|',
      `| ${seconds.toFixed(1)} s | ${page_.frames} (${(page_.frames / seconds).toFixed(0)}/s) | ${over50.length} | ${page_.longTasks.length === 0 ? '–' : `${Math.max(...page_.longTasks).toFixed(0)} ms`} | ${(delta('ScriptDuration') * 1000).toFixed(0)} ms | ${(delta('LayoutDuration') * 1000).toFixed(0)} ms | ${(delta('RecalcStyleDuration') * 1000).toFixed(0)} ms | ${(delta('TaskDuration') * 1000).toFixed(0)} ms |`,
      '',
      `Long tasks: ${page_.longTasks.map((d, i) => `${d.toFixed(0)} ms at ${((page_.at[i] ?? 0) / 1000).toFixed(1)} s`).join(', ') || 'none'}.`,
      '',
      `ui-browser (${PAGE}): ${over50.length} long tasks over 50 ms, ${page_.frames} frames in ${seconds.toFixed(1)} s, script ${(delta('ScriptDuration') * 1000).toFixed(0)} ms, the page's content exact (${expected.content.length} characters)`,
    ];
    console.log(lines.join('\n'));
  } finally {
    await browser.close();
    await example.close();
    await model.close();
  }
}

await main();
