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
 * With `--trace`, the page's bundle is not minified (so that its functions have their names), the
 * run is traced (Chrome's `devtools.timeline`, `blink` and `loading`) and profiled (CDP
 * `Profiler`, 100 µs samples), and each task over 50 ms on the page's main thread is broken down:
 * what the browser did in it (script, style, layout, paint, GC, loading: self times of the trace's
 * events) and which functions ran (self time, and time per source module of the bundle, callers
 * included: `src/…` is argstream's). The trace (Chrome's Performance panel opens it), the profile
 * and the bundle are left in node_modules/.cache/argstream-bench/ui-browser/.
 *
 *   npm run build && npm run bench:ui-browser -- [--bytes 1000000] [--pace-ms 1] [--page react]
 *     [--driver cdp|playwright] [--trace [--trace-categories a,b]]
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
const TRACE = process.argv.includes('--trace');
/**
 * `--driver cdp` (default): Chromium launched by puppeteer-core and the page driven through one
 * CDP session of its own that enables Page, Runtime, Performance (and, with `--trace`, Profiler)
 * only. `--driver playwright`: through Playwright, which enables DevTools' Network domain on every
 * page — the inspector then keeps a copy of each response body and decodes it when the response
 * ends (`ResponseBodyLoader::DidFinishLoadingBody` → `TextResourceDecoder::Decode`), on the
 * page's main thread: about 40 ms for the relay's response to a 1 MB call (8.5 MB of events),
 * which no user's page pays.
 */
const DRIVER = (() => {
  const at = process.argv.indexOf('--driver');
  const driver = at === -1 ? 'cdp' : process.argv[at + 1];
  if (driver !== 'cdp' && driver !== 'playwright') throw new Error('--driver is cdp or playwright');
  return driver;
})();
/** `--trace-categories a,b`: Chrome's trace categories (default: what the breakdown reads). */
const TRACE_CATEGORIES = (() => {
  const at = process.argv.indexOf('--trace-categories');
  return at === -1 ? ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink', 'loading'] : process.argv[at + 1]!.split(',');
})();
/** Where `--trace` leaves the trace, the profile and the bundle (Chrome's Performance panel opens the first two). */
const SAVED = fileURLToPath(new URL('../node_modules/.cache/argstream-bench/ui-browser/', import.meta.url));
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

/** What the page keeps for the bench: its long tasks (and when, from the click) and its frames. */
const INIT_SCRIPT = `(() => {
  const state = { longTasks: [], at: [], frames: 0, watching: true, t0: 0 };
  globalThis.__bench = state;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      state.longTasks.push(entry.duration);
      state.at.push(entry.startTime - state.t0);
    }
  }).observe({ type: 'longtask', buffered: true });
  const frame = () => {
    state.frames++;
    if (state.watching) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();`;

/** A browser with one page, as the bench drives it. */
interface Driver {
  readonly version: string;
  /** Load `url` with `initScript` run before the page's own scripts; resolves once Send is there. */
  open(url: string, initScript: string): Promise<void>;
  /** A CDP command to the page. */
  send(method: string, params?: object): Promise<unknown>;
  /** The value of `expression` in the page (awaited if it is a promise). */
  evaluate<T = unknown>(expression: string): Promise<T>;
  startTracing(categories: readonly string[]): Promise<void>;
  stopTracing(): Promise<TraceEvent[]>;
  close(): Promise<void>;
}

const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu'];

/** Wait until the page shows the Send button (a framework renders after the load event). */
async function untilSend(evaluate: Driver['evaluate']): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await evaluate<boolean>(`document.querySelector('#ask button[type="submit"]') !== null`))) {
    if (Date.now() > deadline) throw new Error('the page did not show its Send button within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Chromium by puppeteer-core, the page through a CDP session of the bench's own (no Network domain). */
async function cdpDriver(): Promise<Driver> {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({ executablePath: chromiumPath(), headless: true, args: LAUNCH_ARGS });
  // The page puppeteer opened, never made a Page object of (that would enable the Network domain).
  const target = browser.targets().find((candidate) => candidate.type() === 'page');
  if (target === undefined) throw new Error('Chromium opened no page');
  const session = await target.createCDPSession();
  const tracing = await browser.target().createCDPSession();
  const send = (method: string, params?: object): Promise<unknown> => (session.send as (method: string, params?: object) => Promise<unknown>)(method, params);
  const evaluate = async <T,>(expression: string): Promise<T> => {
    const result = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as { result: { value: T }; exceptionDetails?: { text: string } };
    if (result.exceptionDetails !== undefined) throw new Error(`in the page: ${result.exceptionDetails.text}`);
    return result.result.value;
  };
  return {
    version: (await browser.version()).replace(/^[^/]*\//, ''),
    async open(url, initScript) {
      await send('Page.enable');
      await send('Runtime.enable');
      await send('Page.addScriptToEvaluateOnNewDocument', { source: initScript });
      await send('Page.navigate', { url });
      await untilSend(evaluate);
    },
    send,
    evaluate,
    async startTracing(categories) {
      await tracing.send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: [...categories], recordMode: 'recordAsMuchAsPossible' } });
    },
    async stopTracing() {
      const complete = new Promise<{ stream?: string }>((resolve) => tracing.once('Tracing.tracingComplete', resolve));
      await tracing.send('Tracing.end');
      const { stream } = await complete;
      if (stream === undefined) throw new Error('Tracing.end gave no stream');
      const chunks: Buffer[] = [];
      for (;;) {
        const read = await tracing.send('IO.read', { handle: stream, size: 16 << 20 });
        chunks.push(Buffer.from(read.data, read.base64Encoded === true ? 'base64' : 'utf8'));
        if (read.eof) break;
      }
      await tracing.send('IO.close', { handle: stream });
      const trace = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
      return Array.isArray(trace) ? trace : trace.traceEvents;
    },
    close: () => browser.close(),
  };
}

/** Chromium by Playwright (DevTools' Network domain on, as on every Playwright page). */
async function playwrightDriver(): Promise<Driver> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: LAUNCH_ARGS });
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  const evaluate = <T,>(expression: string): Promise<T> => page.evaluate(expression) as Promise<T>;
  return {
    version: browser.version(),
    async open(url, initScript) {
      await page.addInitScript(initScript);
      await page.goto(url);
      await untilSend(evaluate);
    },
    send: (method, params) => (cdp.send as (method: string, params?: object) => Promise<unknown>)(method, params),
    evaluate,
    startTracing: (categories) => browser.startTracing(page, { categories: [...categories] }),
    stopTracing: async () => (JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents,
    close: () => browser.close(),
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
      ? await startFrameworkExample({ framework: 'react', argstream: 'src', mode: 'production', anthropicUrl: model.url, ...(TRACE ? { minify: false } : {}) })
      : await startAiSdkExample({ server: PAGE === 'ai-sdk' ? 'ai-sdk' : 'argstream', major: 7, argstream: 'src', mode: 'production', anthropicUrl: model.url });
  const driver = DRIVER === 'playwright' ? await playwrightDriver() : await cdpDriver();
  try {
    await driver.open(example.url, INIT_SCRIPT);
    await driver.send('Performance.enable');
    const metrics = async (): Promise<Record<string, number>> =>
      Object.fromEntries(((await driver.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }).metrics.map((m) => [m.name, m.value]));
    await driver.evaluate(`(() => {
      const state = globalThis.__bench;
      state.longTasks.length = 0;
      state.at.length = 0;
      state.frames = 0;
      state.t0 = performance.now();
    })()`);
    if (TRACE) {
      await driver.startTracing(TRACE_CATEGORIES);
      await driver.send('Profiler.enable');
      await driver.send('Profiler.setSamplingInterval', { interval: 100 });
      await driver.send('Profiler.start');
    }
    const before = await metrics();
    const started = Date.now();
    await driver.evaluate(`document.querySelector('#ask button[type="submit"]').click()`);
    // The React example's status says done; the AI SDK pages' call says its input is available.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ended = await driver.evaluate<boolean>(
        `['done', 'error'].includes(document.querySelector('#status')?.getAttribute('data-state') ?? '') || ['input-available', 'output-available'].includes(document.querySelector('.call')?.getAttribute('data-state') ?? '') || document.querySelector('#status')?.getAttribute('data-status') === 'error'`,
      );
      if (ended) break;
    }
    const seconds = (Date.now() - started) / 1000;
    const after = await metrics();
    let breakdown: string[] = [];
    if (TRACE) {
      const { profile } = (await driver.send('Profiler.stop')) as { profile: CpuProfile };
      const traceEvents = await driver.stopTracing();
      const bundle = await (await fetch(`${example.url}/app.js`)).text();
      mkdirSync(SAVED, { recursive: true });
      writeFileSync(join(SAVED, 'trace.json'), JSON.stringify({ traceEvents }));
      writeFileSync(join(SAVED, 'page.cpuprofile'), JSON.stringify(profile));
      writeFileSync(join(SAVED, 'app.js'), bundle);
      breakdown = longTaskBreakdown(traceEvents, profile, `${example.url}/app.js`, bundle);
    }
    const page_ = await driver.evaluate<{ at: number[]; status: string; path: string; content: string; longTasks: number[]; frames: number }>(`(() => {
      const state = globalThis.__bench;
      state.watching = false;
      return {
        at: state.at,
        status: document.querySelector('#status')?.getAttribute('data-state') ?? (['input-available', 'output-available'].includes(document.querySelector('.call')?.getAttribute('data-state') ?? '') ? 'done' : (document.querySelector('#status')?.getAttribute('data-status') ?? '')),
        path: document.querySelector('.call .path-value')?.textContent ?? '',
        content: document.querySelector('.call .content-value')?.textContent ?? '',
        longTasks: state.longTasks,
        frames: state.frames,
      };
    })()`);
    if (page_.status !== 'done') throw new Error(`the page ended in ${page_.status}`);
    if (page_.content !== expected.content) throw new Error(`the page's content is not the call's (${page_.content.length} of ${expected.content.length} characters)`);
    const delta = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0);
    const over50 = page_.longTasks.filter((duration) => duration > 50);
    const lines = [
      `### UI in a browser: ${PAGE === 'react' ? 'examples/react' : PAGE === 'ai-sdk' ? 'examples/ai-sdk (an AI SDK server, `useChat` on `ArgstreamChatTransport`, ai 7)' : 'examples/ai-sdk (`useChat` on `DefaultChatTransport`, ai 7)'}, React 19 (production) in Chromium ${driver.version} (${DRIVER === 'playwright' ? 'driven by Playwright: DevTools\' Network domain on' : 'a bare CDP session: DevTools\' Network domain off'}), one ${TOOL_NAME} call`,
      '',
      `${call.bytes} bytes of arguments in ${call.deltas.length} deltas (${events.length} SSE events), one event every ${PACE_MS} ms from a local model, relayed by the example's edge function (FieldEventStream → EventStreamEncoder) to \`useTurn(response, { tools })\`; id \`${ANTHROPIC_TOOL_ID}\`.`,
      '',
      '| streaming took | frames | long tasks (> 50 ms) | longest task | script time | layout time | style time | task time |',
      '|--:|--:|--:|--:|--:|--:|--:|--:|',
      `| ${seconds.toFixed(1)} s | ${page_.frames} (${(page_.frames / seconds).toFixed(0)}/s) | ${over50.length} | ${page_.longTasks.length === 0 ? '–' : `${Math.max(...page_.longTasks).toFixed(0)} ms`} | ${(delta('ScriptDuration') * 1000).toFixed(0)} ms | ${(delta('LayoutDuration') * 1000).toFixed(0)} ms | ${(delta('RecalcStyleDuration') * 1000).toFixed(0)} ms | ${(delta('TaskDuration') * 1000).toFixed(0)} ms |`,
      '',
      `Long tasks: ${page_.longTasks.map((d, i) => `${d.toFixed(0)} ms at ${((page_.at[i] ?? 0) / 1000).toFixed(1)} s`).join(', ') || 'none'}.`,
      '',
      ...(TRACE ? ['Tasks over 50 ms on the page\'s main thread (trace and profile; the bundle not minified):', '', ...(breakdown.length === 0 ? ['none'] : breakdown), ''] : []),
      `ui-browser (${PAGE}): ${over50.length} long tasks over 50 ms, ${page_.frames} frames in ${seconds.toFixed(1)} s, script ${(delta('ScriptDuration') * 1000).toFixed(0)} ms, the page's content exact (${expected.content.length} characters)`,
    ];
    console.log(lines.join('\n'));
  } finally {
    await driver.close();
    await example.close();
    await model.close();
  }
}

// ---------------------------------------------------------------------------------------------
// --trace: what a long task was made of

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: { readonly name?: string };
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const TASK_NAMES = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

/**
 * Each task over 50 ms on a renderer's main thread: the self time of the trace events in it, by
 * name, and from the profile the functions that ran in it (self time) and the bundle's source
 * modules (time with callers: a sample counts once for every module on its stack).
 */
function longTaskBreakdown(events: readonly TraceEvent[], profile: CpuProfile, bundleUrl: string, bundle: string): string[] {
  // The page's main thread: of the renderers' main threads, the one that ran the most tasks (the
  // others are Chromium's own pages).
  const renderers = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const busy = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && TASK_NAMES.has(e.name) && renderers.has(`${e.pid}:${e.tid}`)) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const onMain = events.filter((e) => e.ph === 'X' && e.dur !== undefined && `${e.pid}:${e.tid}` === main);
  const long = onMain.filter((e) => TASK_NAMES.has(e.name) && e.dur! > 50_000);
  // The outermost of nested task events.
  const tasks = long.filter((task) => !long.some((other) => other !== task && other.tid === task.tid && other.ts <= task.ts && other.ts + other.dur! >= task.ts + task.dur! && other.dur! > task.dur!));

  // The source module of each line of the bundle (esbuild starts each with a `// path` comment).
  const starts: Array<[number, string]> = [];
  bundle.split('\n').forEach((text, line) => {
    const match = /^\/\/ (\S+\.[cm]?[jt]sx?)$/.exec(text);
    if (match) starts.push([line, match[1]!]);
  });
  const moduleOf = (url: string, line: number): string => {
    if (url !== bundleUrl) return url === '' ? '(native)' : url;
    let found = '(bundle)';
    for (const [start, module] of starts) if (start <= line) found = module;
    return found;
  };
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const sampleTimes: number[] = [];
  let time = profile.startTime;
  for (const delta of profile.timeDeltas) sampleTimes.push((time += delta));

  const ms = (micros: number): string => `${(micros / 1000).toFixed(1)} ms`;
  const top = (totals: Map<string, number>, count: number): string =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, micros]) => `${name} ${ms(micros)}`)
      .join(', ');
  const origin = onMain.reduce((least, e) => Math.min(least, e.ts), Infinity);
  const lines: string[] = [];
  for (const task of tasks) {
    const end = task.ts + task.dur!;
    // Self time per event name: each event's duration less its children's.
    const inside = onMain.filter((e) => e !== task && e.tid === task.tid && e.ts >= task.ts && e.ts + e.dur! <= end && !TASK_NAMES.has(e.name)).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const self = new Map<string, number>();
    const stack: TraceEvent[] = [];
    for (const event of inside) {
      while (stack.length > 0 && stack[stack.length - 1]!.ts + stack[stack.length - 1]!.dur! <= event.ts) stack.pop();
      const outer = stack[stack.length - 1];
      if (outer !== undefined) self.set(outer.name, (self.get(outer.name) ?? 0) - event.dur!);
      self.set(event.name, (self.get(event.name) ?? 0) + event.dur!);
      stack.push(event);
    }
    const functions = new Map<string, number>();
    const modules = new Map<string, number>();
    profile.samples.forEach((id, i) => {
      const at = sampleTimes[i]!;
      if (at < task.ts || at >= end) return;
      const weight = (sampleTimes[i + 1] ?? at) - at;
      const node = nodes.get(id)!;
      const frame = node.callFrame;
      const name = `${frame.functionName || '(anonymous)'} (${moduleOf(frame.url, frame.lineNumber)})`;
      functions.set(name, (functions.get(name) ?? 0) + weight);
      const seen = new Set<string>();
      for (let at_: number | undefined = id; at_ !== undefined; at_ = parent.get(at_)) {
        const f = nodes.get(at_)!.callFrame;
        if (f.url === '') continue;
        const module = moduleOf(f.url, f.lineNumber);
        if (seen.has(module)) continue;
        seen.add(module);
        modules.set(module, (modules.get(module) ?? 0) + weight);
      }
    });
    lines.push(
      `- ${ms(task.dur!)} at ${((task.ts - origin) / 1e6).toFixed(1)} s: ${top(self, 8)}`,
      `  - functions (self): ${top(functions, 10) || 'none sampled'}`,
      `  - modules (with callers): ${top(modules, 10) || 'none sampled'}`,
    );
  }
  return lines;
}

await main();
