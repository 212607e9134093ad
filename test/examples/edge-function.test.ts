/**
 * examples/edge-function on the runtimes it is written for: bundled with esbuild (`argstream`
 * resolved to src/, as a user's bundler resolves the package), served by workerd (Cloudflare
 * Workers) and by edge-runtime (Vercel Edge) — and, as any fetch handler, by Deno.serve and
 * Bun.serve — with the provider replaced by a local replay server
 * serving a recording from test/fixtures. The test reads the SSE response with
 * EventStreamDecoder in Node and checks the turn against the MANIFEST's expected tool calls.
 */
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../src/cli/replay-server.ts';
import { collectTurn, EventStreamDecoder, ProviderError, type PipelineEvent } from '../../src/index.ts';
import { readFixture, settle, streamOf } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import { expectedArguments } from '../providers/event-stream-helpers.ts';
import { edgeRuntimeMissing, serveEdgeScript } from '../runtimes/edge-runtime/serve-script.ts';
import { serveModuleWorker, workerdMissing } from '../runtimes/workerd/serve-module.ts';
import { denoMissing, serveModuleWithDeno } from '../runtimes/deno/serve-module.ts';
import { bunMissing, serveModuleWithBun } from '../runtimes/bun/serve-module.ts';
import { anthropicToolTurn, FIRST_ARGUMENT_EVENT, startGatedModel } from './gated-model.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORDING = 'anthropic/text-then-2-parallel-tool-use.sse';
const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';

/** A served copy of the example: its base URL and how to stop it. */
interface Served {
  readonly url: string;
  close(): Promise<void>;
}

let dir = '';
let replay: ReplayServer;
let failing: ReplayServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'argstream-edge-example-'));
  const common = { bundle: true, platform: 'browser', target: 'es2022', logLevel: 'silent', alias: { argstream: join(ROOT, 'src/index.ts') } } as const;
  await Promise.all([
    build({ ...common, entryPoints: [join(ROOT, 'examples/edge-function/index.ts')], format: 'esm', outfile: join(dir, 'worker.mjs') }),
    build({ ...common, entryPoints: [join(ROOT, 'test/runtimes/edge-runtime/example-entry.ts')], format: 'iife', outfile: join(dir, 'edge.js') }),
  ]);
  replay = await startReplayServer({ recording: readFixture(`providers/${RECORDING}`), provider: 'anthropic' });
  failing = await startReplayServer({
    recording: new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    provider: 'anthropic',
    status: 529,
  });
}, 60_000);

afterAll(async () => {
  await replay?.close();
  await failing?.close();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

const RUNTIMES: ReadonlyArray<readonly [string, () => string | undefined, (env: Record<string, string>) => Promise<Served>]> = [
  ['workerd', workerdMissing, (env) => serveModuleWorker(join(dir, 'worker.mjs'), env)],
  ['edge-runtime', edgeRuntimeMissing, (env) => serveEdgeScript(readFileSync(join(dir, 'edge.js'), 'utf8'), env)],
  // The same module under Deno.serve and Bun.serve, as those runtimes serve a fetch handler.
  ['deno', denoMissing, (env) => serveModuleWithDeno(join(dir, 'worker.mjs'), env)],
  ['bun', bunMissing, (env) => serveModuleWithBun(join(dir, 'worker.mjs'), env)],
];

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('examples/edge-function', () => {
  for (const [runtime, missing, serve] of RUNTIMES) {
    it(`relays the recorded turn as SSE on ${runtime}: fields while they stream, then the MANIFEST's tool calls`, async (context) => {
      const why = missing();
      if (why !== undefined) {
        if (IN_CI) throw new Error(`${runtime} is required in CI: ${why}`);
        console.warn(`skipped ${runtime}: ${why}`);
        context.skip(why);
      }
      const served = await serve({ ANTHROPIC_URL: `${replay.url}/v1/messages`, ANTHROPIC_API_KEY: 'test-key' });
      try {
        const response = await post(served.url, { prompt: 'What is the weather and the time in New York?' });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
        const { values: events, error } = await settle(response.body!.pipeThrough(new EventStreamDecoder()));
        expect(error).toBeUndefined();

        const turn = await collectTurn(streamOf<PipelineEvent>(events));
        const expected = manifestEntry(RECORDING).toolCalls;
        expect(turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments])).toEqual(expected.map((call) => [call.id, call.name, expectedArguments(call.args)]));
        expect(turn.rawFinishReason).toBe(JSON.parse(manifestEntry(RECORDING).finish));
        // Each call's fields streamed before its tool-call event, and rebuild its arguments.
        for (const call of expected) {
          const fields = events.filter((e): e is Extract<PipelineEvent, { type: 'field-delta' }> => e.type === 'field-delta' && e.toolCallId === call.id);
          const done = events.findIndex((e) => e.type === 'tool-call' && e.toolCallId === call.id);
          expect(fields.length, call.name).toBeGreaterThan(0);
          expect(events.indexOf(fields[fields.length - 1]!)).toBeLessThan(done);
          const value: Record<string, string> = {};
          for (const field of fields) value[field.key] = (value[field.key] ?? '') + field.text;
          expect(value, call.name).toEqual(expectedArguments(call.args));
        }
        // Message text passes through as it streamed.
        expect(turn.text.length).toBeGreaterThan(0);
      } finally {
        await served.close();
      }
    });

    it(`streams on ${runtime}: a file's content reaches the client while the model is still writing it`, async (context) => {
      const why = missing();
      if (why !== undefined) {
        if (IN_CI) throw new Error(`${runtime} is required in CI: ${why}`);
        context.skip(why);
      }
      // Written by hand; the model stops after the first pieces of the content until released.
      const expected = { path: 'notes/todo.md', content: '# To do\n\n- relay the stream 🚀\n- "quote" it\n' };
      const pieces = JSON.stringify(expected).match(/[\s\S]{1,5}/g)!;
      const holdAt = pieces.findIndex((_, i) => pieces.slice(0, i).join('').includes('"content":"# To'));
      const model = await startGatedModel(anthropicToolTurn('Writing it.', { id: 'toolu_gate', name: 'write_file' }, pieces), FIRST_ARGUMENT_EVENT + holdAt);
      const served = await serve({ ANTHROPIC_URL: model.url });
      try {
        const response = await post(served.url, { prompt: 'Write my to-do list' });
        const reader = response.body!.pipeThrough(new EventStreamDecoder()).getReader();
        const before: PipelineEvent[] = [];
        await model.held;
        // Read until the content has begun: only possible if the runtime passes events on as they come.
        while (!before.some((e) => e.type === 'field-delta' && e.key === 'content')) {
          const { done, value } = await reader.read();
          if (done) throw new Error('the stream ended while the model was held');
          before.push(value);
        }
        const content = before.filter((e) => e.type === 'field-delta' && e.key === 'content').map((e) => (e as { text: string }).text).join('');
        expect(expected.content.startsWith(content) && content.length < expected.content.length).toBe(true);
        expect(before.some((e) => e.type === 'tool-call')).toBe(false);
        model.release();
        const after: PipelineEvent[] = [];
        for (let read = await reader.read(); !read.done; read = await reader.read()) after.push(read.value);
        const call = after.find((e) => e.type === 'tool-call');
        expect(call).toMatchObject({ toolCallId: 'toolu_gate', toolName: 'write_file', arguments: expected });
      } finally {
        await served.close();
        await model.close();
      }
    });

    it(`cancels the model's request on ${runtime} when the client goes away mid-stream`, async (context) => {
      const why = missing();
      if (why !== undefined) {
        if (IN_CI) throw new Error(`${runtime} is required in CI: ${why}`);
        context.skip(why);
      }
      const pieces = JSON.stringify({ path: 'a.txt', content: 'x'.repeat(200) }).match(/[\s\S]{1,8}/g)!;
      const model = await startGatedModel(anthropicToolTurn('Writing.', { id: 'toolu_cancel', name: 'write_file' }, pieces), FIRST_ARGUMENT_EVENT + 6);
      // workerd and edge-runtime notice a closed client connection at the next write: a short
      // keep-alive makes one (Deno and Bun notice at once).
      const served = await serve({ ANTHROPIC_URL: model.url, KEEP_ALIVE_MS: '50' });
      try {
        const client = new AbortController();
        const response = await fetch(served.url, { method: 'POST', body: JSON.stringify({ prompt: 'go' }), signal: client.signal });
        const reader = response.body!.pipeThrough(new EventStreamDecoder()).getReader();
        await model.held;
        for (let read = await reader.read(); !(read.value?.type === 'field-delta' && read.value.key === 'content'); read = await reader.read()) {
          if (read.done) throw new Error('the stream ended while the model was held');
        }
        client.abort();
        // The model's connection is closed before it sent its last event: the relay let go of it.
        await model.abandoned;
      } finally {
        await served.close();
        await model.close();
      }
    });

    it(`sends the provider's HTTP error to the browser as an error event on ${runtime}; refuses a GET and a bad body`, async (context) => {
      const why = missing();
      if (why !== undefined) {
        if (IN_CI) throw new Error(`${runtime} is required in CI: ${why}`);
        context.skip(why);
      }
      const served = await serve({ ANTHROPIC_URL: `${failing.url}/v1/messages` });
      try {
        const response = await post(served.url, { prompt: 'hello' });
        expect(response.status).toBe(200);
        const { values, error } = await settle(response.body!.pipeThrough(new EventStreamDecoder()));
        expect(values).toEqual([]);
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ provider: 'anthropic', type: 'overloaded_error', status: 529 });
        // The page reads argstream's words, not the provider's ("Overloaded" stays on the server's error).
        expect((error as Error).message).toBe('anthropic (HTTP 529): the provider reported an error "overloaded_error"');
        expect((await fetch(served.url)).status).toBe(405);
        expect((await post(served.url, { prompt: 42 })).status).toBe(400);
      } finally {
        await served.close();
      }
    });
  }
});
