/**
 * An assistant-ui page on an argstream AG-UI server, in Chromium, Firefox and WebKit.
 *
 * The page (test/frameworks/assistant-ui/page.tsx) is written as assistant-ui's AG-UI docs show
 * one: `new HttpAgent({ url })`, `useAgUiRuntime`, `AssistantRuntimeProvider`, a thread of
 * assistant-ui's primitives; React's development build in StrictMode. It is bundled with esbuild
 * against the packages of test/frameworks/assistant-ui (its own `@ag-ui/client`, the one
 * `@assistant-ui/react-ag-ui` depends on) and served on loopback beside the server of
 * docs/ag-ui.md's recipe as written: the request's `RunAgentInput`, a provider response (here a
 * recording replayed one SSE event per read), `fromResponse(upstream, { provider },
 * new AgUiEncoder({ threadId, runId }))`, `AG_UI_HEADERS`.
 *
 * For each recording of Anthropic, OpenAI Chat Completions and OpenAI Responses with tool calls
 * (and a generated Anthropic stream with a 100 KB argument: no recording has a large one), the
 * test types into the composer and presses Send, then reads the thread's messages as assistant-ui
 * holds them (`runtime.thread.getState().messages`): the same text, reasoning and calls (ids,
 * names, arguments) as `collectTurn` gives for the recording, the arguments parsed by assistant-ui
 * itself (`args`) equal to `JSON.parse` of its `argsText`; each call on the screen with that text;
 * nothing logged as an error or a warning. Two recordings are cross-checked against MANIFEST.md's
 * expected calls. An upstream error (an HTTP 401 whose body has a key in it; a provider error in
 * the stream) is the message's error state, shown on the page with argstream's message and
 * nothing of the provider's; a call cut off by `max_tokens` stays in the message with the text
 * that came and no arguments, the message in the same error state. With `toolInputs: 'path-updates'`, the text, calls and screen are
 * the same; assistant-ui keeps each `CUSTOM` event as a `data` part of the message (its documented
 * mapping), which the page does not render.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AG_UI_HEADERS, AgUiEncoder, type AgUiEncoderOptions } from '../../src/bindings/ag-ui.ts';
import type { ProviderName } from '../../src/errors.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { readAll, readFixture, streamOf } from '../helpers.ts';
import { manifestEntry, readManifest } from '../manifest.ts';
import { PROVIDER_OF_DIR } from '../providers/event-stream-helpers.ts';
import type { BrowserSession } from '../runtimes/harness.ts';
import { waitInPage } from '../runtimes/harness.ts';
import { describeInEngine, ENGINES, consoleProblems, IN_CI, recordConsole, until } from '../examples/page-harness.ts';
import { anthropicWriteFile } from './relay-helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDER = fileURLToPath(new URL('../frameworks/assistant-ui/', import.meta.url));
const PINNED = JSON.parse(readFileSync(`${FOLDER}package.json`, 'utf8')) as { devDependencies: Record<string, string> };

/** The packages of test/frameworks/assistant-ui, or why they are not there. */
function assistantUiMissing(): string | undefined {
  for (const name of ['@assistant-ui/react-ag-ui', '@assistant-ui/react', '@ag-ui/client', 'react', 'react-dom']) {
    const manifest = `${FOLDER}node_modules/${name}/package.json`;
    if (!existsSync(manifest) || (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version !== PINNED.devDependencies[name]) {
      return `${name} ${PINNED.devDependencies[name]} is missing from test/frameworks/assistant-ui/node_modules: run \`npm test\` (it installs it) or \`node test/frameworks/install.mjs\` (npm ci there)`;
    }
  }
  return undefined;
}

/** What the server replays for a request: a provider's response, and the encoder's options beyond the run's ids. */
interface Upstream {
  readonly provider: ProviderName;
  readonly status: number;
  readonly body: Uint8Array;
  readonly options?: AgUiEncoderOptions;
}

/** A response whose body is `bytes`, one SSE event (or the rest of a line) per read, as a provider's arrives. */
function replayed(upstream: Upstream): Response {
  const text = new TextDecoder().decode(upstream.body);
  const pieces = text.split(/(?<=\n\n)/).map((piece) => new TextEncoder().encode(piece));
  return new Response(streamOf(pieces) as ReadableStream<Uint8Array>, { status: upstream.status, headers: { 'content-type': 'text/event-stream' } });
}

const routes = new Map<string, Upstream>();
/** The `RunAgentInput` of each request, by route. */
const requests = new Map<string, unknown[]>();

/**
 * docs/ag-ui.md's "Serving an AG-UI page", as written, with the provider's response replayed
 * instead of fetched.
 */
async function POST(request: Request, upstreamOf: (request: Request) => Upstream): Promise<Response> {
  const input = (await request.json()) as { threadId: string; runId: string };
  const route = upstreamOf(request);
  const upstream = replayed(route);
  const events = fromResponse(upstream, { provider: route.provider }, new AgUiEncoder({ threadId: input.threadId, runId: input.runId, ...route.options }));
  return new Response(events, { headers: AG_UI_HEADERS });
}

/** A recording of the fixtures as the server's upstream. */
function recordingUpstream(file: string, options?: AgUiEncoderOptions): Upstream {
  const provider = PROVIDER_OF_DIR[file.split('/')[0]!]!;
  return { provider, status: 200, body: readFixture(`providers/${file}`), ...(options === undefined ? {} : { options }) };
}

/** The turn argstream reads from the same bytes. */
async function turnOf(upstream: Upstream): Promise<Turn> {
  return collectTurn(streamOf([upstream.body]).pipeThrough(new ProviderEventStream({ provider: upstream.provider })), { isolateErrors: true });
}

/** How many text messages the encoder writes for the same bytes (its `TEXT_MESSAGE_START`s). */
async function textMessagesOf(upstream: Upstream): Promise<number> {
  const bytes = await readAll(streamOf([upstream.body]).pipeThrough(new ProviderEventStream({ provider: upstream.provider })).pipeThrough(new AgUiEncoder()));
  const text = bytes.map((chunk) => new TextDecoder().decode(chunk)).join('');
  return text.split('\n').filter((line) => line.startsWith('data: ') && (JSON.parse(line.slice(6)) as { type: string }).type === 'TEXT_MESSAGE_START').length;
}

/** The recordings with tool calls the page is run on: every one of the three APIs whose calls are whole. */
const RECORDINGS = readManifest()
  .filter(
    (recording) =>
      ['anthropic', 'openai-chat', 'openai-responses'].includes(recording.dir) &&
      recording.errors === undefined &&
      recording.toolCalls.length + recording.providerToolCalls.length > 0 &&
      // Cut or invalid calls end in RUN_ERROR (tested below); AG-UI cannot take back text that
      // streamed, so a recording whose final text disagrees with its deltas is not one turn.
      recording.toolCalls.every((call) => call.remark === undefined || call.remark.startsWith('empty')) &&
      recording.file !== 'openai-responses/handmade-text-deltas-disagree-with-done.sse',
  )
  .map((recording) => recording.file);

/** The generated stream with a large argument: one write_file call of 100,000 characters in 200 deltas. */
const LARGE = { file: 'a generated Anthropic stream: write_file with 100 KB of content', upstream: (): Upstream => ({ provider: 'anthropic', status: 200, body: new TextEncoder().encode(anthropicWriteFile(100_000, 200)) }) };

// ---------------------------------------------------------------------------------------------
// What assistant-ui holds

interface ThreadPart {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly args?: unknown;
  readonly argsText?: string;
  readonly name?: string;
}

interface ThreadMessage {
  readonly role: string;
  readonly content: readonly ThreadPart[];
  readonly status?: { readonly type: string; readonly reason?: string; readonly error?: unknown };
}

/** The assistant's side of the thread as the turn is compared: text, reasoning, calls with the arguments parsed. */
function threadView(messages: readonly ThreadMessage[]) {
  const parts = messages.filter((message) => message.role === 'assistant').flatMap((message) => message.content);
  return {
    text: parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    reasoning: parts.map((part) => (part.type === 'reasoning' ? part.text : '')).join(''),
    calls: parts.filter((part) => part.type === 'tool-call').map((part) => ({ id: part.toolCallId, name: part.toolName, arguments: JSON.parse(part.argsText!) as unknown })),
  };
}

function turnView(turn: Turn) {
  return {
    text: turn.text,
    reasoning: turn.reasoning,
    calls: [...turn.toolCalls, ...turn.providerToolCalls]
      .map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.arguments as unknown, at: 'index' in call ? call.index : Number.MAX_SAFE_INTEGER }))
      .sort((a, b) => a.at - b.at)
      .map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
  };
}

/** The thread's messages, read from the page's runtime. */
async function messagesOf(page: BrowserSession): Promise<ThreadMessage[]> {
  return JSON.parse(await page.evaluate(() => (window as unknown as { argstreamMessages(): string }).argstreamMessages())) as ThreadMessage[];
}

/** What the screen shows: each call's tool and argument text, the error, the text parts. */
function screenOf(page: BrowserSession) {
  return page.evaluate(() => ({
    calls: Array.from(document.querySelectorAll<HTMLElement>('article.call')).map((call) => ({ tool: call.dataset['tool'] ?? null, id: call.dataset['id'] ?? null, args: call.querySelector('.args')?.textContent ?? null })),
    texts: Array.from(document.querySelectorAll('.message[data-role="assistant"] .text')).map((text) => text.textContent ?? ''),
    error: document.querySelector('.error')?.textContent ?? null,
    html: document.querySelector('.thread')?.innerHTML.length ?? 0,
  }));
}

// ---------------------------------------------------------------------------------------------
// The server: the page, its bundle, and the agent

const missing = assistantUiMissing();
const skipAll = missing !== undefined && !IN_CI;
if (skipAll) console.warn(`skipped the assistant-ui page tests: ${missing}`);

let base = '';
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  if (skipAll) return;
  if (missing !== undefined) throw new Error(`assistant-ui is required in CI: ${missing}`);
  const bundle = await build({
    absWorkingDir: FOLDER,
    entryPoints: [`${FOLDER}page.tsx`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    jsx: 'automatic',
    conditions: ['development'],
    define: { 'process.env.NODE_ENV': '"development"' },
  });
  const pageJs = bundle.outputFiles[0]!.text;
  const html = '<!doctype html><meta charset="utf-8"><title>assistant-ui on argstream</title><div id="root"></div><script type="module" src="/page.js"></script>';
  const server = serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      const { pathname } = new URL(request.url);
      if (request.method === 'GET' && pathname === '/') return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
      if (request.method === 'GET' && pathname === '/page.js') return new Response(pageJs, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
      if (request.method === 'POST' && routes.has(pathname)) {
        requests.set(pathname, [...(requests.get(pathname) ?? []), await request.clone().json()]);
        return POST(request, () => routes.get(pathname)!);
      }
      return new Response('not found', { status: 404 });
    },
  });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      server.close(() => resolve());
    });
}, 120_000);

afterAll(async () => {
  await close?.();
});

/** Open the page on a new agent route, type into the composer and press Send; the thread once the run has settled. */
async function runPage(page: BrowserSession, upstream: Upstream): Promise<{ path: string; messages: ThreadMessage[]; logs: string[] }> {
  const path = `/agent/${routes.size}`;
  routes.set(path, upstream);
  await page.goto(`${base}/?agent=${encodeURIComponent(path)}`);
  await waitInPage(page, () => typeof (window as unknown as { argstreamCompose?: unknown }).argstreamCompose === 'function' && document.querySelector('#send') !== null, 20_000, 'the assistant-ui page');
  await recordConsole(page);
  await page.evaluate(() => (window as unknown as { argstreamCompose(text: string): void }).argstreamCompose('Run the recorded turn.'));
  await waitInPage(page, () => !(document.querySelector('#send') as HTMLButtonElement).disabled, 10_000, 'the Send button enabled');
  await page.click('#send');
  const messages = await until(
    page,
    messagesOf,
    (list) => list.some((message) => message.role === 'assistant' && message.status !== undefined && message.status.type !== 'running'),
    'the run settled',
    30_000,
  );
  return { path, messages, logs: await consoleProblems(page) };
}

// ---------------------------------------------------------------------------------------------

describe.skipIf(skipAll)('the assistant-ui page, without a browser', () => {
  it('the page type-checks against the folder\'s assistant-ui, @ag-ui/client and React (tsc -p test/frameworks/assistant-ui)', () => {
    const tsc = `${ROOT}node_modules/typescript/bin/tsc`;
    expect(execFileSync(process.execPath, [tsc, '-p', FOLDER, '--noEmit'], { encoding: 'utf8' })).toBe('');
  }, 120_000);

  it("docs/ag-ui.md's assistant-ui snippet type-checks against the same packages", () => {
    const doc = readFileSync(`${ROOT}docs/ag-ui.md`, 'utf8');
    const section = doc.slice(doc.indexOf('## assistant-ui'));
    const snippet = /^```tsx\n([\s\S]*?)^```$/m.exec(section)?.[1];
    expect(snippet).toContain('useAgUiRuntime({ agent })');
    const file = `${FOLDER}docs-snippet-${process.pid}.tsx`;
    const config = `${FOLDER}tsconfig.docs-${process.pid}.json`;
    writeFileSync(file, snippet!);
    writeFileSync(config, JSON.stringify({ extends: './tsconfig.json', include: [`docs-snippet-${process.pid}.tsx`] }));
    try {
      const tsc = `${ROOT}node_modules/typescript/bin/tsc`;
      expect(execFileSync(process.execPath, [tsc, '-p', config, '--noEmit'], { encoding: 'utf8' })).toBe('');
    } finally {
      rmSync(file, { force: true });
      rmSync(config, { force: true });
    }
  }, 120_000);

  it('the recordings the page runs on include several calls in one turn, reasoning, a provider-run tool, and the MANIFEST cross-checks', () => {
    expect(RECORDINGS).toEqual(expect.arrayContaining(['anthropic/text-then-2-parallel-tool-use.sse', 'openai-chat/parallel-2-tool-calls.sse', 'openai-responses/reasoning-summary-then-function-call.sse']));
    expect(RECORDINGS.some((file) => manifestEntry(file).providerToolCalls.length > 0)).toBe(true);
    expect(RECORDINGS.filter((file) => manifestEntry(file).toolCalls.length >= 2).length).toBeGreaterThanOrEqual(2);
  });
});

describe.skipIf(skipAll)('an assistant-ui page (useAgUiRuntime, HttpAgent) on an argstream AG-UI server', () => {
  for (const engine of ENGINES) {
    describeInEngine(engine, engine.name, (browser) => {
      const cases = [...RECORDINGS.map((file) => ({ file, upstream: () => recordingUpstream(file) })), LARGE];
      for (const { file, upstream } of cases) {
        it(`assistant-ui ends ${file} with the turn's text, reasoning and exact arguments, on the screen, without a warning`, async (context) => {
          const page = browser(context);
          const replay = upstream();
          const expected = turnView(await turnOf(replay));
          expect(expected.calls.length).toBeGreaterThan(0);
          const { messages, logs } = await runPage(page, replay);
          expect(logs).toEqual([]);
          expect(page.problems()).toEqual([]);
          expect(messages[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Run the recorded turn.' }] });
          const view = threadView(messages);
          expect(view).toEqual(expected);
          const assistant = messages.filter((message) => message.role === 'assistant');
          // One assistant message, or one per text message argstream sent (AG-UI has no text after a
          // call in one message: a later text is a message of its own, and assistant-ui starts a new
          // assistant message at its TEXT_MESSAGE_START).
          expect(assistant.length).toBe(Math.max(1, await textMessagesOf(replay)));
          const last = assistant.at(-1)!;
          const pending = [...(await turnOf(replay)).toolCalls].length > 0;
          expect(last.status).toMatchObject(pending ? { type: 'requires-action', reason: 'tool-calls' } : { type: 'complete' });
          // assistant-ui's own parse of the arguments it holds (`args`) is the same object.
          for (const part of assistant.flatMap((message) => message.content).filter((p) => p.type === 'tool-call')) expect(part.args, part.toolCallId).toEqual(JSON.parse(part.argsText!));
          // The screen: every call with its tool and exactly its argument text, the text as it is held.
          const screen = await screenOf(page);
          const parts = assistant.flatMap((message) => message.content);
          expect(screen.calls).toEqual(parts.filter((p) => p.type === 'tool-call').map((p) => ({ tool: p.toolName, id: p.toolCallId, args: p.argsText })));
          expect(screen.texts.join('')).toBe(view.text);
          expect(screen.error).toBeNull();
          if (file === 'anthropic/text-then-2-parallel-tool-use.sse' || file === 'openai-chat/parallel-2-tool-calls.sse') {
            // The recording's own expected calls (MANIFEST.md), not argstream's reading of it.
            expect(view.calls).toEqual(manifestEntry(file).toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: JSON.parse(call.args) as unknown })));
          }
        }, 90_000);
      }

      it('assistant-ui with toolInputs: path-updates — the same text, calls and screen; each CUSTOM event is a data part the page does not render', async (context) => {
        const page = browser(context);
        const file = 'anthropic/text-then-2-parallel-tool-use.sse';
        const plain = await runPage(page, recordingUpstream(file));
        const plainScreen = await screenOf(page);
        const aware = await runPage(page, recordingUpstream(file, { toolInputs: 'path-updates' }));
        // The screen is the same: the data parts render as nothing.
        expect(await screenOf(page)).toEqual(plainScreen);
        expect(aware.logs).toEqual([]);
        expect(page.problems()).toEqual([]);
        expect(threadView(aware.messages)).toEqual(threadView(plain.messages));
        const without = (messages: ThreadMessage[]) => messages.map((message) => ({ role: message.role, status: message.status, content: message.content.filter((part) => part.type !== 'data') }));
        expect(without(aware.messages).map((m) => m.content.map((p) => [p.type, p.text ?? p.toolName, p.argsText]))).toEqual(without(plain.messages).map((m) => m.content.map((p) => [p.type, p.text ?? p.toolName, p.argsText])));
        // assistant-ui keeps every CUSTOM event as a data part (its documented mapping): here one
        // per read of the call's input, named argstream.tool-input; the page renders none of them.
        const data = aware.messages.flatMap((message) => message.content).filter((part) => part.type === 'data');
        expect(data.length).toBeGreaterThan(0);
        expect(new Set(data.map((part) => part.name))).toEqual(new Set(['argstream.tool-input']));
        expect(plain.messages.flatMap((message) => message.content).some((part) => part.type === 'data')).toBe(false);
        // The next request: the calls with their exact arguments, and nothing of the data parts.
        await page.evaluate(() => (window as unknown as { argstreamCompose(text: string): void }).argstreamCompose('And then?'));
        await waitInPage(page, () => !(document.querySelector('#send') as HTMLButtonElement).disabled, 10_000, 'the Send button enabled');
        await page.click('#send');
        await until(page, async () => requests.get(aware.path)?.length ?? 0, (count) => count === 2, 'the second request');
        const next = requests.get(aware.path)![1] as { messages: Array<{ role: string; toolCalls?: Array<{ id: string; function: { name: string; arguments: string } }> }> };
        const sent = next.messages.flatMap((message) => message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: JSON.parse(call.function.arguments) as unknown }));
        expect(sent).toEqual(threadView(plain.messages).calls);
        expect(JSON.stringify(next)).not.toContain('argstream.tool-input');
        await until(page, messagesOf, (list) => list.filter((message) => message.role === 'assistant').length === 2 && list.at(-1)!.status?.type !== 'running', 'the second run settled');
        expect(await consoleProblems(page)).toEqual([]);
      }, 90_000);

      it('a call cut off by max_tokens is never complete on the page: the message\'s error state (tool-call-incomplete), the call with its partial text and no arguments', async (context) => {
        const page = browser(context);
        const file = 'anthropic/tool-use-truncated-max-tokens.sse';
        const turn = await turnOf(recordingUpstream(file));
        const cut = turn.incompleteToolCalls[0]!;
        expect(cut).toBeDefined();
        const { messages, logs } = await runPage(page, recordingUpstream(file));
        expect(logs).toEqual([]);
        const last = messages.filter((message) => message.role === 'assistant').at(-1)!;
        expect(last.status).toMatchObject({ type: 'incomplete', reason: 'error' });
        expect(last.status!.error).toBe(`tool call ${JSON.stringify(cut.toolCallId)} was cut before its arguments were complete`);
        const calls = last.content.filter((part) => part.type === 'tool-call');
        expect(calls).toHaveLength(1);
        // The text that came, never parsed into arguments: assistant-ui's args stay empty.
        expect(calls[0]).toMatchObject({ toolCallId: cut.toolCallId, toolName: cut.toolName, args: {} });
        expect(() => JSON.parse(calls[0]!.argsText!)).toThrow();
        expect((await screenOf(page)).error).toBe(String(last.status!.error));
      }, 90_000);

      it('an upstream HTTP error is the message\'s error state on the page (RUN_ERROR), with argstream\'s message and nothing of the provider\'s', async (context) => {
        const page = browser(context);
        const secret = 'sk-ant-api03-SECRETSECRET';
        const body = new TextEncoder().encode(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${secret}` } }));
        const { messages, logs } = await runPage(page, { provider: 'anthropic', status: 401, body });
        const last = messages.filter((message) => message.role === 'assistant').at(-1)!;
        expect(last.status).toMatchObject({ type: 'incomplete', reason: 'error' });
        const screen = await screenOf(page);
        expect(screen.error).toBe(String(last.status!.error));
        expect(screen.error).toMatch(/^anthropic \(HTTP 401\)/);
        const everything = JSON.stringify({ messages, logs, screen, html: await page.evaluate(() => document.documentElement.outerHTML) });
        expect(everything).not.toContain(secret);
        expect(everything).not.toContain('invalid x-api-key');
        expect(logs).toEqual([]);
      }, 90_000);

      it('a provider error in the stream after text is the message\'s error state, the text before it kept', async (context) => {
        const page = browser(context);
        const file = 'openai-responses/error-then-response-failed.sse';
        const { messages, logs } = await runPage(page, recordingUpstream(file));
        const last = messages.filter((message) => message.role === 'assistant').at(-1)!;
        expect(last.status).toMatchObject({ type: 'incomplete', reason: 'error', error: 'openai-responses: the provider reported an error "insufficient_quota"' });
        const screen = await screenOf(page);
        expect(screen.error).toBe('openai-responses: the provider reported an error "insufficient_quota"');
        expect(JSON.stringify({ messages, logs, html: await page.evaluate(() => document.documentElement.outerHTML) })).not.toContain('exceeded your current quota');
        expect(logs).toEqual([]);
      }, 90_000);
    });
  }
});
