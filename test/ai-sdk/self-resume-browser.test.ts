/**
 * `ArgstreamChatTransport`'s own resume in the browsers: a `useChat` page (`@ai-sdk/react` 4,
 * `ai` 7) with no reconnect code of its own, whose connection a TCP front cuts mid-stream — the
 * POST's response, then the resume's — ends with the exact message: one assistant message, the
 * text once, the call's exact input; the server saw the AI SDK's resume request (`GET
 * /api/chat/<id>/stream`), which replays the response from its start as `resumable-stream` does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../runtimes/harness.ts';
import { describeInEngine, ENGINES, until } from '../examples/page-harness.ts';
import { front } from '../relay/relay-helpers.ts';
import { writeFileUiStream } from './transport-helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = `<!doctype html><meta charset="utf-8"><title>resume</title><script type="module" src="/page.mjs"></script>`;

/** What the page shows. */
interface Shown {
  chat: { status: string; error: string | null; messages: string };
  content: string;
  retries: string[];
}
const shown = (session: BrowserSession) =>
  session.evaluate(() => {
    const page = window as unknown as Shown;
    return { chat: page.chat, content: page.content, retries: page.retries };
  });

describe('ArgstreamChatTransport resumes by itself in the browsers: a useChat page cut mid-stream ends with the exact message', () => {
  let bundle = '';
  /** A write_file call of 24 000 characters in 480 deltas, sent one SSE event every 5 ms (about 2.5 s). */
  let events: string[] = [];
  let input: { path: string; content: string };
  const requests: Array<{ method: string; url: string }> = [];
  let server: ReturnType<typeof createServer>;
  let port = 0;

  beforeAll(async () => {
    ({ events, input } = await writeFileUiStream(7, 24_000, 480));
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [fileURLToPath(new URL('./self-resume-page.ts', import.meta.url))],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      alias: { ai: 'ai7' },
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'warning',
    });
    bundle = result.outputFiles[0]!.text;
    // The AI SDK's resume guide's server: POST /api/chat streams the response, GET
    // /api/chat/<id>/stream replays it from its start (the response is fixed here: the model's turn).
    server = createServer((req, res) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '' });
      req.resume();
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      if (req.url === '/page.mjs') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      if ((req.method === 'POST' && req.url === '/api/chat') || (req.method === 'GET' && /^\/api\/chat\/[^/]+\/stream$/.test(req.url ?? ''))) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-vercel-ai-ui-message-stream': 'v1' });
        let at = 0;
        const timer = setInterval(() => {
          if (at >= events.length) {
            clearInterval(timer);
            return void res.end();
          }
          res.write(events[at++]);
        }, 5);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }, 60_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  for (const engine of ENGINES) {
    describeInEngine(engine, engine.name, (browser) => {
      it('the front cuts the response mid-call, then the resume mid-call: the page ends with one message, the text once, the exact input; it never called resumeStream()', async (context) => {
        const page = browser(context);
        const gate = await front();
        gate.route = port;
        requests.length = 0;
        try {
          await page.goto(`${gate.url}/`);
          await until(page, (s) => s.evaluate(() => typeof (window as unknown as { send?: unknown }).send === 'function'), (ready) => ready, 'the page');
          await page.evaluate(() => (window as unknown as { send(): void }).send());
          const first = await until(page, shown, (s) => s.content.length >= 3_000, 'the first part of the content');
          gate.cut();
          // The resume replays from the start: the page shows nothing new until it has gone past the cut.
          await until(page, shown, (s) => s.retries.length >= 1 && s.content.length >= first.content.length + 3_000, 'the content after the first resume');
          expect((await shown(page)).content.length).toBeLessThan(input.content.length);
          gate.cut();
          const end = await until(page, shown, (s) => s.chat.status === 'ready' || s.chat.status === 'error', 'the end of the turn', 30_000);
          expect(end.chat.error).toBeNull();
          expect(end.retries.length).toBeGreaterThanOrEqual(2);
          const messages = JSON.parse(end.chat.messages) as Array<{ role: string; parts: Array<{ type: string; text?: string; state?: string; input?: unknown }> }>;
          expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
          const parts = messages[1]!.parts.filter((part) => part.type !== 'step-start');
          expect(parts.map((part) => [part.type, part.text ?? part.state])).toEqual([
            ['text', 'Writing the file.'],
            ['tool-write_file', 'input-available'],
          ]);
          expect(parts[1]!.input).toEqual(input);
          expect(end.content).toBe(input.content);
          const chatRequests = requests.filter((request) => request.url.startsWith('/api/chat'));
          expect(chatRequests[0]).toEqual({ method: 'POST', url: '/api/chat' });
          expect(chatRequests.length).toBeGreaterThanOrEqual(3);
          expect(chatRequests.slice(1).every((request) => request.method === 'GET' && /^\/api\/chat\/[^/]+\/stream$/.test(request.url))).toBe(true);
        } finally {
          gate.close();
        }
      }, 90_000);
    });
  }
});
