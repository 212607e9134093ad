/**
 * The `ts` snippets of the README, the CHANGELOG and docs/*.md, run as written: every snippet is
 * listed here, either with a runner (its types stripped, its imports served from src/, the names
 * it leaves to the reader given values, a recorded provider stream in place of the network) and
 * what it must do, or with the test that runs it elsewhere, or with the reason it cannot run. A
 * snippet that is not listed fails. test/docs/typecheck.test.ts type-checks all of them.
 */
import { describe, expect, it, vi } from 'vitest';
import * as ai6 from 'ai6';
import * as ai7 from 'ai7';
import { createAnthropic as createAnthropic3 } from 'ai-sdk-anthropic3';
import { createAnthropic as createAnthropic4 } from 'ai-sdk-anthropic4';
import { anthropicRecipeEvents } from '../../examples/ai-sdk-object/model.mjs';
import { prefixStateMismatch } from '../store/object-helpers.ts';
import * as zod from 'zod';
import * as argstream from '../../src/index.ts';
import * as aiSdkServer from '../../src/bindings/ai-sdk/server.ts';
import * as agUi from '../../src/bindings/ag-ui.ts';
import * as argstreamRedis from '../../src/bindings/redis.ts';
import * as argstreamPartialJson from '../../src/bindings/partial-json.ts';
import * as mcpApps from '../../src/bindings/mcp-apps.ts';
import * as geminiInteractions from '../../src/bindings/gemini-interactions.ts';
import * as langchain from '../../src/bindings/langchain.ts';
import { connectApp } from '../mcp-apps/app-harness.ts';
import { createClient } from 'redis';
import { redisMissing, skipWithoutRedis, startRedis } from '../redis/redis-server.ts';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { collectTurn, EventStreamDecoder, EventStreamEncoder, FieldEventStream, fromResponse, PathUpdateStream, type PipelineEvent } from '../../src/index.ts';
import { pacedStreamOf, readAll, readFixture, settle, streamOf } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import { allSnippets, runSnippet, type Modules, type Snippet } from './snippets.ts';

/** The object of the structured-output snippets, and the AI SDK's result of a route that streams it (Anthropic, in pieces of 5 characters). */
const OBJECT_RECIPE = { title: 'Crêpes "fines" 🥞', servings: 650, steps: ['Whisk\nthe batter.', 'Cook each crêpe.'] };
function structuredOutputOf(sdk: typeof ai6 | typeof ai7) {
  const text = JSON.stringify(OBJECT_RECIPE);
  const fetch = (async () => new Response(anthropicRecipeEvents(text, text.match(/[\s\S]{1,5}/g) ?? []).join(''), { headers: { 'content-type': 'text/event-stream' } })) as unknown as typeof globalThis.fetch;
  const model = sdk === ai7 ? createAnthropic4({ apiKey: 'replay', fetch })('claude-sonnet-4-5') : createAnthropic3({ apiKey: 'replay', fetch })('claude-sonnet-4-5');
  const schema = zod.object({ title: zod.string(), servings: zod.number(), steps: zod.array(zod.string()) });
  return (sdk as typeof ai7).streamText({ model: model as never, prompt: 'crêpes', output: (sdk as typeof ai7).Output.object({ schema }), maxRetries: 0 });
}

const modules: Modules = { argstream, 'argstream/ai-sdk/server': aiSdkServer, 'argstream/partial-json': argstreamPartialJson, 'argstream/ag-ui': agUi, 'argstream/mcp-apps': mcpApps, 'argstream/gemini-interactions': geminiInteractions, 'argstream/langchain': langchain, 'jsr:@argstream/argstream': argstream, 'npm:argstream': argstream, zod };

/** A tool call's argument text in four deltas, and what parsePartialJson gives after each (`ai` 7). */
const PARTIAL_DELTAS = ['{"path":"a.t', 'xt","tags":["x', '"],"n":1', '2}'];
const PARTIAL_RESULTS = [
  [{ path: 'a.t' }, 'repaired-parse'],
  [{ path: 'a.txt', tags: ['x'] }, 'repaired-parse'],
  [{ path: 'a.txt', tags: ['x'], n: 1 }, 'repaired-parse'],
  [{ path: 'a.txt', tags: ['x'], n: 12 }, 'successful-parse'],
];
const partialJsonLoop = (snippet: Snippet) => async () => {
  const render = recorder();
  const argumentDeltas = (async function* () {
    yield* PARTIAL_DELTAS;
  })();
  await runSnippet(snippet.code, { modules, scope: { argumentDeltas, render } });
  expect(render.calls).toEqual(PARTIAL_RESULTS);
};

/** A recording with text, then one get_weather call: {"location": "Paris"}. */
const ANTHROPIC = 'anthropic/text-then-tool-use.sse';
/** Two parallel OpenAI Chat calls. */
const OPENAI_CHAT = 'openai-chat/parallel-2-tool-calls.sse';

const manifestCalls = (file: string) => manifestEntry(file).toolCalls.map((call) => [call.name, JSON.parse(call.args)] as const);
const recording = (file: string) => new Response(new Uint8Array(readFixture(`providers/${file}`)));

/**
 * An Anthropic stream of one call of `toolName`, its argument text cut into `chunks`, one SSE event
 * per network read as a live model sends it (what one read brings is parsed and relayed as one piece).
 */
function anthropicCall(toolName: string, chunks: readonly string[]): Response {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: toolName, input: {} } }),
    ...chunks.map((partial_json) => event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json } })),
    event('content_block_stop', { index: 0 }),
    event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } }),
    event('message_stop', {}),
  ];
  // One SSE event per read, a macrotask apart, as a live model sends it (a relay writes a read's events as one record).
  return new Response(pacedStreamOf(events.map((piece) => new TextEncoder().encode(piece))));
}

const WRITE_FILE_ARGS = { path: 'src/main.rs', content: 'fn main() {\n    println!("hello");\n}\n' };
const writeFile = () => anthropicCall('write_file', ['{"path": "src/ma', 'in.rs", "content": "fn main() {\\n', '    println!(\\"hello\\");\\n}\\n"}']);

/** What the README's relay server sends for `upstream`. */
const relayed = (upstream: Response) => new Response(fromResponse(upstream, { provider: 'anthropic' }, new FieldEventStream()).pipeThrough(new EventStreamEncoder())).text();
const decoded = (sse: string) => readAll(new Response(sse).body!.pipeThrough(new EventStreamDecoder()));

/** A function that records its calls (arguments copied as they were at the time). */
function recorder(result?: unknown): ((...args: unknown[]) => unknown) & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return Object.assign(
    (...args: unknown[]) => {
      calls.push(args.map((arg) => (typeof arg === 'object' && arg !== null ? structuredClone(arg) : arg)));
      return result;
    },
    { calls },
  );
}
const fetchOf = (make: () => Response) => async () => make();
const placeholders = { headers: {}, body: '{}' };

/**
 * The checks of an MCP Apps host: a real `AppBridge` and `App` (over the in-memory transport), the
 * write_file call's partials in the view while it streams, then its exact arguments.
 */
const mcpAppsHost = (snippet: Snippet, renders: boolean) => async () => {
  const view = await connectApp();
  try {
    const render = recorder();
    await runSnippet(snippet.code, { modules, scope: { response: writeFile(), toolCallId: 'toolu_1', bridge: view.bridge, render, handle: recorder() } });
    await view.settle();
    expect(view.errors).toEqual([]);
    const partials = view.received.filter((received) => received.kind === 'partial');
    expect(partials.length).toBeGreaterThan(1);
    expect(partials.some((partial) => (partial.arguments as { content?: string }).content === 'fn main() {\n')).toBe(true);
    expect(view.received.at(-1)).toEqual({ kind: 'input', arguments: WRITE_FILE_ARGS });
    if (renders) expect(render.calls.length).toBeGreaterThan(5);
  } finally {
    await view.close();
  }
};

type Runner = (context: { skip(note?: string): void }) => Promise<void>;
/** Where a snippet runs: here, in another test file, or nowhere (and why). */
type Entry = { contains: string } & ({ run: (snippet: Snippet) => Runner } | { runBy: string } | { why: string });

/** The checks of a relay page: the content as it streams, the call; a cut it cannot resume is the error shown. */
const relayPage = (snippet: Snippet) => async () => {
  const sse = await relayed(writeFile());
  const pre = { text: '', append(text: string) { this.text += text; } };
  const show = recorder();
  const errors: unknown[] = [];
  const showError = (error: unknown) => void errors.push(error);
  const scope = { prompt: 'write it', pre, show, showError };
  // readRelay asks the global fetch: served here by the relay's recorded answer.
  const run = async (answer: () => Response) => {
    const fetch = globalThis.fetch;
    globalThis.fetch = async () => answer();
    try {
      await runSnippet(snippet.code, { modules, scope });
    } finally {
      globalThis.fetch = fetch;
    }
  };
  await run(() => new Response(sse));
  expect(pre.text).toBe(WRITE_FILE_ARGS.content);
  expect(show.calls).toEqual([['write_file', WRITE_FILE_ARGS]]);
  expect(errors).toEqual([]);
  // Cut before `event: end`, by a relay without a log (no x-stream-id to resume): 'incomplete', shown.
  pre.text = '';
  await run(() => new Response(sse.slice(0, sse.indexOf('event: end'))));
  expect(pre.text).toBe(WRITE_FILE_ARGS.content);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toBeInstanceOf(argstream.RelayError);
  expect(errors[0]).toMatchObject({ code: 'incomplete' });
};

/** The checks of a relay server: an SSE response whose events rebuild the call. */
const relayServer = (snippet: Snippet) => async () => {
  const printed = await runSnippet(snippet.code, { modules, scope: { ...placeholders, fetch: fetchOf(writeFile) } });
  const handler = printed.exports['default'] as { fetch(request: Request): Promise<Response> };
  const response = await handler.fetch(new Request('http://127.0.0.1/api/chat', { method: 'POST', body: '{}' }));
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = await decoded(await response.text());
  const content = events.flatMap((event) => (event.type === 'field-delta' && event.key === 'content' ? [event.text] : [])).join('');
  expect(content).toBe(WRITE_FILE_ARGS.content);
  expect(events.find((event) => event.type === 'tool-call')).toMatchObject({ toolName: 'write_file', arguments: WRITE_FILE_ARGS });
  // keepProgress: false — the progress stays on the server.
  expect(events.filter((event) => event.type === 'tool-call-progress')).toEqual([]);
};

/** The checks of an argstream server for an unchanged useChat page: the AI SDK's own reader ends with the call. */
const uiMessageServer = (snippet: Snippet) => async () => {
  const printed = await runSnippet(snippet.code, { modules, scope: { ...placeholders, fetch: fetchOf(writeFile) } });
  const POST = printed.exports['POST'] as (request: Request) => Promise<Response>;
  const response = await POST(new Request('http://127.0.0.1/api/chat', { method: 'POST', body: '{}' }));
  expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
  const chunks = (await response.text())
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as UIMessageChunk);
  let message: UIMessage | undefined;
  for await (const next of readUIMessageStream({ stream: streamOf(chunks) })) message = next;
  const part = message?.parts.find((p) => 'toolCallId' in p) as { input?: unknown; state?: string } | undefined;
  expect(part?.state).toBe('input-available');
  expect(part?.input).toEqual(WRITE_FILE_ARGS);
};

const SNIPPETS: Record<string, Entry> = {
  'README.md#0': {
    contains: "fromResponse(response, { provider: 'anthropic' }, new ConversationEventStream({ progress: true }))",
    run: (snippet) => async () => {
      const render = recorder();
      const run = recorder(Promise.resolve());
      await runSnippet(snippet.code, { modules, scope: { ...placeholders, fetch: fetchOf(() => recording(ANTHROPIC)), render, run } });
      expect(run.calls).toEqual(manifestCalls(ANTHROPIC));
      expect(render.calls.length).toBeGreaterThan(1);
      for (const [toolCallId] of render.calls) expect(toolCallId).toMatch(/^toolu_/);
    },
  },
  'README.md#1': {
    contains: 'chain(new ProviderEventStream',
    run: (snippet) => async () => {
      const printed = await runSnippet(snippet.code, { modules, scope: { response: recording(ANTHROPIC), bytes: recording(ANTHROPIC).body }, after: '__result(plain); __result(same);' });
      const [plain, same] = await Promise.all(printed.result.map((stream) => readAll(stream as ReadableStream<PipelineEvent>)));
      // The same turn as fromResponse with the stage (the quick start).
      const viaResponse = argstream.fromResponse(recording(ANTHROPIC), { provider: 'anthropic' }, new argstream.ConversationEventStream({ progress: true }));
      const turn = await collectTurn(viaResponse);
      expect(await collectTurn(streamOf(plain as PipelineEvent[]))).toEqual(turn);
      expect(await collectTurn(streamOf(same as PipelineEvent[]))).toEqual(turn);
      expect(plain?.some((event) => event.type === 'tool-call-progress')).toBe(true);
      expect(same?.some((event) => event.type === 'tool-call-progress')).toBe(true);
    },
  },
  'README.md#2': {
    contains: 'argumentDeltas',
    run: (snippet) => async () => {
      const render = recorder();
      const argumentDeltas = (async function* () {
        yield* ['{"path": "src/ma', 'in.rs", "con', 'tent": "fn main() {}"}'];
      })();
      await runSnippet(snippet.code, { modules, scope: { argumentDeltas, render } });
      expect(render.calls).toEqual([[{ path: 'src/ma' }], [{ path: 'src/main.rs' }], [{ path: 'src/main.rs', content: 'fn main() {}' }]]);
    },
  },
  'README.md#3': { contains: 'collectTurn(fromResponse(response', runBy: 'test/sdk/readme.test.ts' },
  'README.md#4': { contains: "from '@anthropic-ai/sdk'", runBy: 'test/sdk/readme.test.ts' },
  'README.md#5': { contains: 'new EventStreamEncoder({ keepAliveMs: 15_000 })', run: relayServer },
  'README.md#6': { contains: "readRelay('/api/chat'", run: relayPage },
  'README.md#7': {
    contains: 'await keepStream(log, streamId,',
    run: (snippet) => async () => {
      // The first response (the turn so far as one snapshot when it is already in the log, then the
      // tail), then a resume after the first response's last id but two: the last two events, once.
      const printed = await runSnippet(snippet.code, { modules, scope: { ...placeholders, fetch: fetchOf(writeFile) } });
      const chat = printed.exports['chat'] as (request: Request) => Promise<Response>;
      const resume = printed.exports['resume'] as (request: Request, streamId: string) => Promise<Response>;
      const first = await chat(new Request('http://127.0.0.1/api/chat', { method: 'POST', body: '{}' }));
      const streamId = first.headers.get('x-stream-id') ?? '';
      expect(streamId).toMatch(/^[\w-]{22,}$/);
      const decoder = new EventStreamDecoder();
      const turn = await collectTurn(new Response(await first.text()).body!.pipeThrough(decoder));
      expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual([['write_file', WRITE_FILE_ARGS]]);
      const last = Number(decoder.lastEventId);
      const again = await resume(new Request(`http://127.0.0.1/api/chat/${streamId}`, { headers: { 'last-event-id': String(last - 2) } }), streamId);
      const rest = new EventStreamDecoder();
      const events = await readAll(again.body!.pipeThrough(rest));
      expect(events).toHaveLength(2);
      expect(events.at(-1)?.type).toBe('finished');
      expect(rest.lastEventId).toBe(String(last));
      const hostile = await resume(new Request('http://127.0.0.1/api/chat/x', { headers: { 'last-event-id': '1; DEL *' } }), streamId);
      expect(hostile.status).toBe(400);
      // A log that is down (RedisEventLog in its place, Redis unreachable): 503, and the provider is not asked.
      class DownLog extends argstream.MemoryEventLog {
        override async open(): Promise<never> {
          throw new argstream.EventLogError('unavailable', 'Redis did not open the stream: no answer within 2000 ms');
        }
      }
      const provider = recorder(Promise.resolve(writeFile()));
      const down = await runSnippet(snippet.code, { modules: { ...modules, argstream: { ...argstream, MemoryEventLog: DownLog } }, scope: { ...placeholders, fetch: provider } });
      const refused = await (down.exports['chat'] as (request: Request) => Promise<Response>)(new Request('http://127.0.0.1/api/chat', { method: 'POST', body: '{}' }));
      expect(refused.status).toBe(503);
      expect(await refused.text()).toMatch(/^unavailable: /);
      expect(provider.calls).toEqual([]);
    },
  },
  'README.md#8': { contains: 'new UIMessageStreamEncoder()', run: uiMessageServer },
  'README.md#9': {
    contains: 'new TerminalSink(',
    run: (snippet) => async () => {
      const printed = await runSnippet(snippet.code, { modules, scope: { response: recording(ANTHROPIC) } });
      expect(printed.stdout).toContain('▶ get_weather\n  location: Paris\n✓ get_weather {"location":"Paris"}\n');
      expect(printed.stdout).not.toContain('\x1b');
    },
  },

  'docs/ui.md#0': {
    contains: 'const store = new TurnStore({ tools });',
    run: (snippet) => async () => {
      // A relay's response (the README's server), read into the store: the content grows, then the call completes, validated.
      const sse = await relayed(writeFile());
      const render = recorder();
      // One SSE event per network read, a macrotask apart, as a live relay arrives.
      const pieces = sse.split(/(?<=\n\n)/);
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          const piece = pieces.shift();
          if (piece === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(piece));
        },
      });
      const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      const printed = await runSnippet(snippet.code, { modules, scope: { prompt: 'write it', render, fetch: async () => response } });
      expect(printed.log).toEqual([['done', 1]]);
      const contents = render.calls.map((call) => call[2] as string | undefined);
      expect(render.calls.at(-1)).toEqual(['toolu_1', WRITE_FILE_ARGS.path, WRITE_FILE_ARGS.content, 'complete']);
      // Mid-stream: a proper prefix of the content was drawn while the call was streaming.
      expect(render.calls.some((call) => call[3] === 'streaming' && typeof call[2] === 'string' && call[2].length > 0 && call[2].length < WRITE_FILE_ARGS.content.length && WRITE_FILE_ARGS.content.startsWith(call[2]))).toBe(true);
      expect(contents.length).toBeGreaterThan(1);
    },
  },

  'docs/ai-sdk.md#0': { contains: 'new UIMessageStreamEncoder()', run: uiMessageServer },
  'docs/ag-ui.md#0': {
    contains: "fromResponse(response, { provider: 'ag-ui' })",
    run: (snippet) => async () => {
      const file = 'ag-ui/anthropic-text-then-2-parallel-tool-use.sse';
      const run = recorder(Promise.resolve());
      const fetch = recorder(recording(file));
      await runSnippet(snippet.code, { modules, scope: { fetch: async (...args: unknown[]) => fetch(...args), run } });
      expect(run.calls).toEqual(manifestCalls(file));
      expect(JSON.parse((fetch.calls[0]?.[1] as { body: string }).body)).toMatchObject({ threadId: 'thread_1', runId: 'run_1' });
    },
  },
  'docs/ag-ui.md#1': {
    contains: 'new AgUiEncoder({ threadId: input.threadId, runId: input.runId })',
    run: (snippet) => async () => {
      const printed = await runSnippet(snippet.code, { modules, scope: { ...placeholders, fetch: fetchOf(() => recording(ANTHROPIC)) } });
      const POST = printed.exports['POST'] as (request: Request) => Promise<Response>;
      const response = await POST(new Request('http://127.0.0.1/api/agent', { method: 'POST', body: JSON.stringify({ threadId: 't7', runId: 'r7' }) }));
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const text = await response.text();
      expect(text.startsWith('data: {"type":"RUN_STARTED","threadId":"t7","runId":"r7"}\n\n')).toBe(true);
      // The AG-UI page's view: read back as an AG-UI stream, the recording's call with its exact arguments.
      const turn = await collectTurn(streamOf([text]).pipeThrough(new argstream.ProviderEventStream({ provider: 'ag-ui' })));
      expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(manifestCalls(ANTHROPIC));
    },
  },
  'docs/ag-ui.md#2': { contains: "event.name !== 'argstream.tool-input'", runBy: 'test/relay/ag-ui-encoder.test.ts' },
  'docs/ai-sdk.md#1': {
    contains: 'collectTurn(toSave).then(saveTurn, reportError)',
    run: (snippet) => async () => {
      let saved: (value: unknown) => void = () => undefined;
      const turn = new Promise((resolve) => (saved = resolve));
      const reportError = recorder();
      const printed = await runSnippet(snippet.code, { modules, scope: { ...placeholders, fetch: fetchOf(writeFile), saveTurn: (t: unknown) => saved(t), reportError } });
      const POST = printed.exports['POST'] as (request: Request) => Promise<Response>;
      const response = await POST(new Request('http://127.0.0.1/api/chat', { method: 'POST', body: '{}' }));
      // The page gets the call as the plain server sends it ...
      expect(await response.text()).toContain('"type":"tool-input-available"');
      // ... and the server saved the exact turn, once.
      expect(((await turn) as argstream.Turn).toolCalls.map((call) => call.arguments)).toEqual([WRITE_FILE_ARGS]);
      expect(reportError.calls).toEqual([]);
    },
  },

  'docs/ai-sdk.md#2': {
    contains: 'result.textStream.pipeThrough(new JsonValueStream({ snapshots: true, immutableSnapshots: true }))',
    run: (snippet) => async () => {
      for (const sdk of [ai6, ai7] as const) {
        const render = recorder();
        const printed = await runSnippet(snippet.code, { modules, scope: { render } });
        const showPartials = printed.exports['showPartials'] as (result: { textStream: ReadableStream<string> }) => Promise<void>;
        const result = structuredOutputOf(sdk);
        await showPartials(result);
        expect(await result.output).toEqual(OBJECT_RECIPE);
        expect(render.calls.at(-1)).toEqual([OBJECT_RECIPE, true]);
        expect(render.calls.slice(0, -1).every((call) => call[1] === false)).toBe(true);
        expect(render.calls.length).toBeGreaterThan(3);
        // Each partial object a state of the final one: never the 6 of 650.
        for (const [value] of render.calls) expect(prefixStateMismatch(value, OBJECT_RECIPE)).toBeUndefined();
      }
    },
  },
  'docs/ai-sdk.md#3': {
    contains: 'const store = new ObjectStore({',
    run: (snippet) => async () => {
      const render = recorder();
      const requests: unknown[] = [];
      vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
        requests.push([url, init.method, JSON.parse(String(init.body))]);
        return ai7.createTextStreamResponse({ stream: ai7.toTextStream({ stream: structuredOutputOf(ai7).stream }) });
      });
      try {
        const printed = await runSnippet(snippet.code, { modules, scope: { render } });
        expect(requests).toEqual([['/api/recipe', 'POST', { dish: 'crêpes' }]]);
        expect(printed.log).toEqual([[{ title: OBJECT_RECIPE.title, steps: OBJECT_RECIPE.steps }]]);
        expect(render.calls.at(-1)).toEqual([OBJECT_RECIPE]);
        for (const [value] of render.calls) if (value !== undefined) expect(prefixStateMismatch(value, OBJECT_RECIPE)).toBeUndefined();
      } finally {
        vi.unstubAllGlobals();
      }
    },
  },
  'docs/mcp-apps.md#0': { contains: 'new ToolInputNotificationStream({ toolCallId })', run: (snippet) => mcpAppsHost(snippet, false) },
  'docs/mcp-apps.md#1': { contains: 'new ToolInputNotificationCore({ toolCallId })', run: (snippet) => mcpAppsHost(snippet, true) },

  'CHANGELOG.md#0': {
    contains: '// before: fused implicitly',
    why: 'before/after pairs over the same placeholder streams (each would be read twice); every "now" form is run from README.md and docs/pipeline.md',
  },

  'docs/partial-json.md#0': { contains: 'parser.parse(buffer); // was: await parsePartialJson(buffer)', run: partialJsonLoop },
  'docs/partial-json.md#1': { contains: 'parser.push(delta); // no buffer', run: partialJsonLoop },
  'docs/partial-json.md#2': {
    contains: 'const { value } = parser.push(chunk);',
    run: (snippet) => async () => {
      const render = recorder();
      const response = new Response(streamOf(PARTIAL_DELTAS.map((text) => new TextEncoder().encode(text))));
      await runSnippet(snippet.code, { modules, scope: { response, render } });
      expect(render.calls).toEqual(PARTIAL_RESULTS.map(([value]) => [value]));
    },
  },

  'docs/json.md#0': {
    contains: 'console.log(aggregator.snapshot())',
    run: (snippet) => async () => {
      const printed = await runSnippet(snippet.code, { modules });
      expect(printed.log).toEqual([[{ path: 'src/ma' }], [{ path: 'src/main.rs', content: 'fn main() {' }], [{ path: 'src/main.rs', content: 'fn main() {}' }]]);
    },
  },
  'docs/json.md#1': {
    contains: 'new JsonValueStream({ snapshots: true })',
    run: (snippet) => async () => {
      const render = recorder();
      const response = new Response(streamOf(['{"a":[1,', '2],"b":"x', 'y"}'].map((text) => new TextEncoder().encode(text))));
      await runSnippet(snippet.code, { modules, scope: { response, render } });
      expect(render.calls.at(-1)).toEqual([{ a: [1, 2], b: 'xy' }, true]);
      expect(render.calls.slice(0, -1).every(([, complete]) => complete === false)).toBe(true);
    },
  },
  'docs/json.md#2': {
    contains: 'immutableSnapshots: true',
    run: (snippet) => async () => {
      const printed = await runSnippet(snippet.code, { modules, scope: { subscribe: () => () => undefined }, after: '__result(store); __result(parser);' });
      const [store, parser] = printed.result as [{ getSnapshot(): { a: object; b: number[] } }, argstream.IncrementalJsonValueParser];
      parser.push('{"a":{"x":1},"b":[1,');
      const first = store.getSnapshot();
      expect(store.getSnapshot()).toBe(first);
      parser.push('2]');
      const second = store.getSnapshot();
      expect(second).not.toBe(first);
      expect(second.a).toBe(first.a);
      expect(first.b).toEqual([1]);
      expect(second.b).toEqual([1, 2]);
    },
  },

  'docs/pipeline.md#0': {
    contains: 'const sse = fromResponse(upstream',
    run: (snippet) => async () => {
      const scope = { response: recording(ANTHROPIC), bytes: recording(ANTHROPIC).body, otherBytes: recording(ANTHROPIC).body, upstream: recording(ANTHROPIC), otherResponse: recording(ANTHROPIC) };
      const printed = await runSnippet(snippet.code, { modules, scope, after: '__result(events); __result(same); __result(sse); __result(relayed); __result(turn);' });
      const [events, same, sse, relayed, turn] = printed.result as [ReadableStream, ReadableStream, ReadableStream<Uint8Array>, ReadableStream<Uint8Array>, argstream.Turn];
      expect(await readAll(events)).toEqual(await readAll(same));
      const relayedEvents = await decoded(await new Response(sse).text());
      // The chain ending in the encoder relays the same turn.
      expect(await decoded(await new Response(relayed).text())).toEqual(relayedEvents);
      expect(relayedEvents.filter((event) => event.type === 'field-end').map((event) => (event as { key: string }).key)).toEqual(['location']);
      expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(manifestCalls(ANTHROPIC));
    },
  },
  'docs/pipeline.md#1': {
    contains: "provider: 'openai-chat' })));",
    run: (snippet) => async () => {
      const run = recorder(Promise.resolve());
      await runSnippet(snippet.code, { modules, scope: { response: recording(OPENAI_CHAT), run } });
      expect(run.calls).toEqual(manifestCalls(OPENAI_CHAT));
    },
  },
  'docs/pipeline.md#2': {
    contains: "process.stdout.write(`\\n${event.key}: `)",
    run: (snippet) => async () => {
      const run = recorder(Promise.resolve());
      const printed = await runSnippet(snippet.code, { modules, scope: { response: recording(ANTHROPIC), run } });
      expect(printed.stdout).toBe('\nlocation: Paris');
      expect(run.calls).toEqual(manifestCalls(ANTHROPIC));
    },
  },
  'docs/pipeline.md#3': {
    contains: 'new ToolCallRebuilder()',
    run: (snippet) => async () => {
      const render = recorder();
      // What the browser receives: the same recording's path updates, relayed over SSE.
      const sse = await new Response(fromResponse(recording(OPENAI_CHAT), { provider: 'openai-chat' }, new PathUpdateStream({ keepProgress: false })).pipeThrough(new EventStreamEncoder())).text();
      const updatesFromServer = new Response(sse).body!.pipeThrough(new EventStreamDecoder());
      const printed = await runSnippet(snippet.code, { modules, scope: { response: recording(OPENAI_CHAT), updatesFromServer, render }, after: '__result(updates);' });
      const updates = await readAll(printed.result[0] as ReadableStream<PipelineEvent>);
      expect(updates.some((event) => event.type === 'tool-call-progress')).toBe(false);
      const last = new Map(render.calls.map(([id, value]) => [id, value]));
      expect([...last.values()]).toEqual(manifestCalls(OPENAI_CHAT).map(([, args]) => args));
    },
  },
  'docs/pipeline.md#4': {
    contains: 'new ToolCallDeltaStream(',
    run: (snippet) => async () => {
      const printed = await runSnippet(snippet.code, { modules, scope: { bytes: recording(OPENAI_CHAT).body }, after: '__result(deltas);' });
      const deltas = await readAll(printed.result[0] as ReadableStream<PipelineEvent>);
      const text = new Map<number, string>();
      for (const event of deltas) if (event.type === 'streaming-tool-call') text.set(event.index, (text.get(event.index) ?? '') + event.argumentsDelta);
      expect([...text.values()].map((json) => JSON.parse(json))).toEqual(manifestCalls(OPENAI_CHAT).map(([, args]) => args));
      expect(deltas.every((event) => event.type !== 'streaming-tool-call' || event.messageId === 'msg_1')).toBe(true);
    },
  },
  'docs/pipeline.md#5': {
    contains: 'new JsonTextStream({ repair: true })',
    run: (snippet) => async () => {
      let relayedText = '';
      const relay = new WritableStream<string>({ write: (text) => void (relayedText += text) });
      const argumentChunks = streamOf(['{"path":"a.txt","content":"hel', 'lo']);
      const printed = await runSnippet(snippet.code, { modules, scope: { argumentChunks, relay } });
      expect(printed.warn).toEqual([['closed a truncated document at', '/content']]);
      expect(JSON.parse(relayedText)).toEqual({ path: 'a.txt', content: 'hello' });
    },
  },
  'docs/pipeline.md#6': {
    contains: 'new TaggedToolCallStream()',
    run: (snippet) => async () => {
      const line = (content: string, done = false) => `${JSON.stringify({ model: 'llama3', message: { role: 'assistant', content }, done, ...(done ? { done_reason: 'stop' } : {}) })}\n`;
      const pieces = ['Let me look. <tool_', 'call>{"name": "get_wea', 'ther", "arguments": {"location": "Pa', 'ris"}}</tool_call>'];
      const response = new Response(pieces.map((piece) => line(piece)).join('') + line('', true));
      const printed = await runSnippet(snippet.code, { modules, scope: { response }, after: '__result(turn);' });
      const turn = printed.result[0] as argstream.Turn;
      expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual([['get_weather', { location: 'Paris' }]]);
      expect(turn.text).toBe('Let me look. ');
    },
  },
  'docs/pipeline.md#7': {
    contains: 'new CoalesceStream({ maxDelayMs: 50 })',
    run: (snippet) => async () => {
      const printed = await runSnippet(snippet.code, { modules, scope: { response: recording(ANTHROPIC) }, after: '__result(frames);' });
      const frames = await readAll(printed.result[0] as ReadableStream<PipelineEvent>);
      const turn = await collectTurn(streamOf(frames));
      expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(manifestCalls(ANTHROPIC));
      expect(frames.at(-1)?.type).toBe('finished');
    },
  },
  'docs/pipeline.md#8': {
    contains: 'new ArgumentValidationStream({ tools: { write_file: WriteFile } })',
    run: (snippet) => async () => {
      const abort = recorder();
      const response = anthropicCall('write_file', ['{"path": "/etc/pa', 'sswd", "content": "x"}']);
      await runSnippet(snippet.code, { modules, scope: { response, abort } });
      expect(abort.calls).toHaveLength(1);
      expect(abort.calls[0]?.[0]).toBe('toolu_1');
      expect(JSON.stringify(abort.calls[0]?.[1])).toContain('forbidden path');
    },
  },
  'docs/pipeline.md#9': {
    contains: 'new ProviderEventDecoder(',
    run: (snippet) => async () => {
      const handle = recorder();
      await runSnippet(snippet.code, { modules, scope: { chunks: [readFixture(`providers/${ANTHROPIC}`)], handle } });
      const events = handle.calls.map(([event]) => event as PipelineEvent);
      expect(events.filter((event) => event.type === 'tool-call').map((event) => [(event as argstream.ToolCallEvent).toolName, (event as argstream.ToolCallEvent).arguments])).toEqual(manifestCalls(ANTHROPIC));
      expect(events.some((event) => event.type === 'tool-call-progress')).toBe(true);
    },
  },

  'docs/providers.md#0': {
    contains: "fromResponse(response, { provider: 'gemini-interactions' })",
    run: (snippet) => async () => {
      const file = 'gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse';
      let requested: { url: string; body: unknown } | undefined;
      const fetch = async (url: string, init: RequestInit) => {
        requested = { url, body: JSON.parse(String(init.body)) };
        return recording(file);
      };
      const printed = await runSnippet(snippet.code, { modules, scope: { fetch, prompt: 'write it' } });
      expect(requested?.body).toMatchObject({ stream: true, tools: [{ type: 'function', name: 'write_file' }] });
      expect(printed.log).toEqual(manifestEntry(`${file}`).toolCalls.map((call) => [call.id, call.name, JSON.parse(call.args)]));
    },
  },
  'docs/providers.md#1': { contains: 'structuredOutput: true', runBy: 'test/transforms/structured-output.test.ts' },
  'docs/providers.md#2': {
    contains: 'new ProviderEventDecoder({ provider: GEMINI_INTERACTIONS_PROVIDER })',
    run: (snippet) => async () => {
      const file = 'gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse';
      const handle = recorder();
      await runSnippet(snippet.code, { modules, scope: { chunks: [readFixture(`providers/${file}`)], handle } });
      const turn = await collectTurn(streamOf(handle.calls.map(([event]) => event as argstream.StreamEvent)));
      expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(manifestCalls(file));
    },
  },

  'docs/relay.md#0': { contains: 'new EventStreamEncoder({ keepAliveMs: 15_000 })', run: relayServer },
  'docs/relay.md#1': { contains: "readRelay('/api/chat'", run: relayPage },
  'docs/relay.md#2': {
    contains: 'new RedisEventLog(client,',
    run: (snippet) => async (context) => {
      // On a real redis-server of its own (skipped, saying what to install, where there is none; CI has one).
      if (skipWithoutRedis()) return context.skip(redisMissing());
      const redis = await startRedis();
      const clients: Array<{ destroy(): void }> = [];
      try {
        const env = { REDIS_URL: redis.url };
        const redisModule = { createClient: (options: object) => clients[clients.push(createClient(options)) - 1] as never };
        let asked = 0;
        const provider = async () => (asked++, writeFile());
        const load = async () => (await runSnippet(snippet.code, { modules: { ...modules, 'argstream/redis': argstreamRedis, redis: redisModule }, scope: { ...placeholders, fetch: provider, process: { env } } })).exports;
        const { chat, resume, stop } = (await load()) as { chat(request: Request): Promise<Response>; resume(request: Request, id: string): Promise<Response>; stop(id: string): Promise<Response> };
        const first = await chat(new Request('http://127.0.0.1/api/chat', { method: 'POST', body: '{}' }));
        const streamId = first.headers.get('x-stream-id') ?? '';
        const turn = await collectTurn(new Response(await first.text()).body!.pipeThrough(new EventStreamDecoder()));
        expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual([['write_file', WRITE_FILE_ARGS]]);
        expect(asked).toBe(1);
        // A resume from id 0 on the same log: the same turn (as a snapshot, then the end).
        const again = await resume(new Request(`http://127.0.0.1/api/chat/${streamId}`), streamId);
        expect((await collectTurn(again.body!.pipeThrough(new EventStreamDecoder()))).toolCalls).toEqual(turn.toolCalls);
        expect((await resume(new Request('http://127.0.0.1/api/chat/x', { headers: { 'last-event-id': '1; DEL *' } }), streamId)).status).toBe(400);
        expect((await stop(streamId)).status).toBeLessThan(500);
        // Redis stopped (a running process, and one that starts meanwhile): a POST is a 503 within
        // the command timeout (2 s), never a hang, and the provider is not asked.
        await redis.kill();
        const { chat: startedDown } = (await load()) as { chat(request: Request): Promise<Response> };
        for (const handler of [chat, startedDown]) {
          const hang = new Promise<'hang'>((resolve) => setTimeout(resolve, 10_000, 'hang'));
          const refused = await Promise.race([handler(new Request('http://127.0.0.1/api/chat', { method: 'POST', body: '{}' })), hang]);
          expect(refused).toBeInstanceOf(Response);
          expect((refused as Response).status).toBe(503);
          expect(await (refused as Response).text()).toMatch(/^unavailable: /);
        }
        expect(asked).toBe(1);
      } finally {
        for (const client of clients) client.destroy();
        await redis.stop();
      }
    },
  },

  'docs/langchain.md#0': { contains: 'await model.stream(', runBy: 'test/docs/langchain-snippets.test.ts' },
  'docs/langchain.md#1': { contains: 'new StateGraph(MessagesAnnotation)', runBy: 'test/docs/langchain-snippets.test.ts' },
  'docs/langchain.md#2': { contains: "{ version: 'v2' }", runBy: 'test/docs/langchain-snippets.test.ts' },
  'docs/langchain.md#3': { contains: '{ tools: langChainTools }', runBy: 'test/docs/langchain-snippets.test.ts' },
  'docs/langchain.md#4': { contains: 'client.runs.stream', runBy: 'test/docs/langchain-snippets.test.ts' },
  'docs/langchain.md#5': { contains: 'message.concat(chunk)', runBy: 'test/docs/langchain-snippets.test.ts' },
  'docs/langchain.md#6': { contains: 'store.getSnapshot().calls', runBy: 'test/docs/langchain-snippets.test.ts' },
  'docs/relay.md#3': { contains: "from '@hono/node-server'", runBy: 'test/redis/node-http.test.ts' },

  'docs/sdks.md#0': { contains: 'fromResponse(response', runBy: 'test/sdk/readme.test.ts' },
  'docs/sdks.md#1': { contains: "from '@anthropic-ai/sdk'", runBy: 'test/sdk/readme.test.ts' },
  'docs/sdks.md#2': { contains: 'chat.completions.create', runBy: 'test/sdk/readme.test.ts' },
  'docs/sdks.md#3': { contains: 'responses.stream', runBy: 'test/sdk/readme.test.ts' },
  'docs/sdks.md#4': { contains: "from '@google/genai'", runBy: 'test/sdk/readme.test.ts' },
  'docs/sdks.md#5': { contains: 'result.fullStream', runBy: 'test/sdk/readme.test.ts' },

  'docs/terminal.md#0': { contains: 'process.stdout.isTTY', runBy: 'test/sinks/terminal.test.ts' },
  'docs/terminal.md#1': { contains: 'Deno.stdout.writable', runBy: 'test/sinks/terminal.test.ts (in Deno)' },
  'docs/terminal.md#2': { contains: 'const search: ToolRenderer', runBy: 'test/sinks/terminal.test.ts' },
};

const snippets = allSnippets();
const key = (snippet: Snippet) => `${snippet.doc}#${snippet.index}`;

describe('every snippet of README.md, CHANGELOG.md and docs/ is accounted for', () => {
  it('each snippet is listed here (run here, run elsewhere, or why not), and each listing is a snippet', () => {
    expect(snippets.map(key).filter((id) => SNIPPETS[id] === undefined)).toEqual([]);
    expect(Object.keys(SNIPPETS).filter((id) => !snippets.some((snippet) => key(snippet) === id))).toEqual([]);
  });

  it.each(snippets.map((snippet) => [key(snippet), snippet] as const))('%s is the snippet its listing describes', (id, snippet) => {
    expect(snippet.code, `${id} moved or changed: update SNIPPETS`).toContain(SNIPPETS[id]?.contains);
  });

  it('the counts: run here, run by another test, type-checked only', () => {
    const entries = snippets.map((snippet) => SNIPPETS[key(snippet)]);
    const here = entries.filter((entry) => entry !== undefined && 'run' in entry).length;
    const elsewhere = entries.filter((entry) => entry !== undefined && 'runBy' in entry).length;
    const only = entries.filter((entry) => entry !== undefined && 'why' in entry);
    console.log(`${snippets.length} snippets: ${here} run here, ${elsewhere} run by other tests, ${only.length} type-checked only`);
    expect(here + elsewhere + only.length).toBe(snippets.length);
    expect(only.length).toBeLessThanOrEqual(1);
  });
});

describe('the snippets, run as written', () => {
  const runnable = snippets.flatMap((snippet) => {
    const entry = SNIPPETS[key(snippet)];
    return entry !== undefined && 'run' in entry ? [[key(snippet), entry.run(snippet)] as const] : [];
  });
  it.for(runnable)('%s', async ([, run], context) => {
    await run(context);
  });
});

