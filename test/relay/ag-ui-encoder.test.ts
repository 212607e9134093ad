/**
 * `AgUiEncoder` (`argstream/ag-ui`): argstream's events as AG-UI's event stream, read by the real
 * `@ag-ui/client`.
 *
 * - Every event of every provider recording's relay validates against `@ag-ui/core`'s own schemas
 *   with nothing stripped (no member its schema does not name; the parsed event equals the one
 *   written).
 * - The real `HttpAgent` consumes an argstream server (a loopback HTTP server: the recording through
 *   `fromResponse` and the encoder, per request) and ends with the turn's messages and exact
 *   arguments, without one warning (console.warn captured) — with `toolInputs: 'deltas'` and with
 *   `'path-updates'`, where an argstream-aware subscriber also rebuilds each call's partial input
 *   from the `CUSTOM` events, linearly, while the plain client ends the same.
 * - An upstream error becomes `RUN_ERROR` and a normal end; a call cut or invalid never gets its
 *   `TOOL_CALL_END`; a call with no argument text gets `"{}"`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AG_UI_HEADERS, AG_UI_TOOL_INPUT, AgUiEncoder, AgUiEventEncoder, type AgUiEncoderOptions } from '../../src/bindings/ag-ui.ts';
import { ProviderError, type ProviderName } from '../../src/errors.ts';
import { chain } from '../../src/transforms/chain.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { JsonFragmentRebuilder } from '../../src/sinks/json-fragment-rebuilder.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { ToolCallProgressStream } from '../../src/transforms/tool-call-progress-stream.ts';
import type { JsonValue, PathUpdate, PipelineEvent } from '../../src/types.ts';
import { readAll, readFixture, streamOf } from '../helpers.ts';
import { manifestEntry, type ManifestRecording } from '../manifest.ts';
import { PROVIDER_OF_DIR, readableRecordings, recordingInput, splitSse } from '../providers/event-stream-helpers.ts';

const RECORDINGS = readableRecordings();
const utf8 = new TextDecoder();

/** The AG-UI events of an encoder's bytes (a test-side SSE splitter). */
function eventsOf(bytes: Uint8Array): Array<Record<string, unknown>> {
  return splitSse(utf8.decode(bytes)).map((record) => JSON.parse(record.data) as Record<string, unknown>);
}

/** Concatenated chunks. */
function join(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function providerOf(recording: ManifestRecording): ProviderName {
  return PROVIDER_OF_DIR[recording.dir] as ProviderName;
}

/** A recording relayed as AG-UI: its input through ProviderEventStream and the encoder. */
async function relay(recording: ManifestRecording, options: AgUiEncoderOptions = {}): Promise<Uint8Array> {
  const body = streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider: providerOf(recording) })).pipeThrough(new AgUiEncoder(options));
  return join(await readAll(body));
}

/** What `@ag-ui/core` says of an event: valid, and nothing in it that its schema does not name. */
function expectSchemaValid(event: Record<string, unknown>): void {
  const parsed = EventSchemas.parse(event);
  const schema = EventSchemas.options.find((option) => option.shape.type.value === event['type']);
  expect(schema, String(event['type'])).toBeDefined();
  for (const key of Object.keys(event)) expect(Object.keys(schema!.shape), `${String(event['type'])}.${key}`).toContain(key);
  expect(parsed).toEqual(event);
}

// ---------------------------------------------------------------------------------------------
// A loopback argstream server: POST a RunAgentInput, get the recording relayed as AG-UI.

let server: Server;
let base: string;
/** What the server relays next: a recording and the encoder's options. */
const routes = new Map<string, { recording: ManifestRecording; options: AgUiEncoderOptions }>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { threadId: string; runId: string };
      const route = routes.get(request.url ?? '');
      if (route === undefined) {
        response.writeHead(404).end();
        return;
      }
      const upstream = new Response(streamOf(recordingInput(route.recording)) as ReadableStream<Uint8Array>, { status: 200 });
      let body: ReadableStream<Uint8Array>;
      try {
        body = fromResponse(upstream, { provider: providerOf(route.recording) }, new AgUiEncoder({ threadId: input.threadId, runId: input.runId, ...route.options }));
      } catch (error) {
        // A test that asks for what fromResponse refuses fails at once, not at its timeout.
        response.writeHead(500).end(String(error));
        return;
      }
      response.writeHead(200, AG_UI_HEADERS);
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        response.write(value);
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface ClientRun {
  readonly messages: Message[];
  readonly events: BaseEvent[];
  readonly warnings: unknown[][];
  /** Per call id: the input an argstream-aware subscriber rebuilt from the CUSTOM events, and how many partial values it saw. */
  readonly rebuilt: Map<string, { value: JsonValue | undefined; partials: number; ended?: boolean }>;
}

/** The real HttpAgent against the loopback server, console.warn captured. */
async function runClient(recording: ManifestRecording, options: AgUiEncoderOptions = {}): Promise<ClientRun> {
  const path = `/${routes.size}`;
  routes.set(path, { recording, options });
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const agent = new HttpAgent({ url: `${base}${path}` });
    const events: BaseEvent[] = [];
    const rebuilders = new Map<string, JsonFragmentRebuilder>();
    const rebuilt = new Map<string, { value: JsonValue | undefined; partials: number; ended?: boolean }>();
    await agent.runAgent(
      {},
      {
        onEvent: ({ event }) => {
          events.push(structuredClone(event));
        },
        // An argstream-aware page: the partial input of each call, linearly.
        onCustomEvent: ({ event }) => {
          if (event.name !== AG_UI_TOOL_INPUT) return;
          const { toolCallId, updates } = event.value as { toolCallId: string; updates: PathUpdate[] };
          let rebuilder = rebuilders.get(toolCallId);
          if (rebuilder === undefined) rebuilders.set(toolCallId, (rebuilder = new JsonFragmentRebuilder()));
          for (const update of updates) rebuilder.push(update);
          const entry: { value: JsonValue | undefined; partials: number; ended?: boolean } = rebuilt.get(toolCallId) ?? { value: undefined, partials: 0 };
          if (!rebuilder.isComplete()) entry.partials++;
          entry.value = structuredClone(rebuilder.value);
          rebuilt.set(toolCallId, entry);
        },
        // A call whose updates stopped (their budget): the page takes its arguments at its end.
        onToolCallEndEvent: ({ event, toolCallArgs }) => {
          if (rebuilders.get(event.toolCallId)?.isComplete() === true) return;
          const entry: { value: JsonValue | undefined; partials: number; ended?: boolean } = rebuilt.get(event.toolCallId) ?? { value: undefined, partials: 0 };
          entry.value = structuredClone(toolCallArgs) as JsonValue;
          entry.ended = true;
          rebuilt.set(event.toolCallId, entry);
        },
      },
    );
    return { messages: agent.messages, events, warnings: [...warn.mock.calls, ...error.mock.calls], rebuilt };
  } finally {
    warn.mockRestore();
    error.mockRestore();
  }
}

/** The turn argstream reads from the recording itself. */
async function turnOf(recording: ManifestRecording): Promise<Turn> {
  return collectTurn(streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider: providerOf(recording) })), { isolateErrors: true });
}

/** The client's messages, as the turn is compared: assistant text, reasoning, calls with parsed arguments. */
function clientView(messages: readonly Message[]) {
  const calls = messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : []));
  return {
    text: messages.map((message) => (message.role === 'assistant' && typeof message.content === 'string' ? message.content : '')).join(''),
    reasoning: messages.map((message) => (message.role === 'reasoning' ? message.content : '')).join(''),
    calls: calls.map((call) => ({ name: call.function.name, arguments: JSON.parse(call.function.arguments) as unknown })),
  };
}

function turnView(turn: Turn) {
  return {
    text: turn.text + (turn.refusal !== undefined && turn.refusal !== turn.text ? turn.refusal : '') + (turn.structured !== undefined ? JSON.stringify(turn.structured) : ''),
    reasoning: turn.reasoning,
    calls: [...turn.toolCalls, ...turn.providerToolCalls]
      .map((call) => ({ name: call.toolName, arguments: call.arguments as unknown, at: 'index' in call ? call.index : Number.MAX_SAFE_INTEGER }))
      .sort((a, b) => a.at - b.at)
      .map(({ name, arguments: args }) => ({ name, arguments: args })),
  };
}

describe('AgUiEncoder on every provider recording', () => {
  for (const recording of RECORDINGS) {
    it(`AgUiEncoder writes ${recording.file} as AG-UI events @ag-ui/core validates with nothing stripped`, async () => {
      for (const toolInputs of ['deltas', 'path-updates'] as const) {
        const events = eventsOf(await relay(recording, { toolInputs, threadId: 't', runId: 'r', messageId: 'm' }));
        expect(events[0]).toEqual({ type: 'RUN_STARTED', threadId: 't', runId: 'r' });
        expect(['RUN_FINISHED', 'RUN_ERROR']).toContain(events.at(-1)?.['type']);
        for (const event of events) expectSchemaValid(event);
      }
    });
  }
});

describe('AgUiEncoder read by the real @ag-ui/client HttpAgent over HTTP', () => {
  // Not the cut calls nor the invalid ones: their runs end in RUN_ERROR (below). Nor the text
  // whose final version disagrees with its deltas: AG-UI cannot take back text that streamed.
  const whole = RECORDINGS.filter(
    // LangChain's recordings are objects, not an HTTP response (fromResponse refuses 'langchain').
    (recording) => providerOf(recording) !== 'langchain' && recording.toolCalls.every((call) => call.remark === undefined || call.remark.startsWith('empty')) && recording.file !== 'openai-responses/handmade-text-deltas-disagree-with-done.sse',
  );
  for (const recording of whole) {
    it(`HttpAgent ends ${recording.file} with the turn's messages and exact arguments, without a warning, as deltas and as path updates`, async () => {
      const expected = turnView(await turnOf(recording));
      for (const toolInputs of ['deltas', 'path-updates'] as const) {
        const run = await runClient(recording, { toolInputs });
        expect(run.warnings, toolInputs).toEqual([]);
        expect(clientView(run.messages), toolInputs).toEqual(expected);
        const last = run.events.at(-1);
        expect(last?.type, toolInputs).toBe('RUN_FINISHED');
        if (toolInputs === 'path-updates') {
          // The aware subscriber rebuilt every streamed call's exact input from the CUSTOM events, or
          // (a call sent whole whose updates did not fit their budget) took it at TOOL_CALL_END.
          const streamed = run.messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : [])).filter((call) => call.function.arguments !== '{}');
          for (const call of streamed) expect(run.rebuilt.get(call.id)?.value, call.id).toEqual(JSON.parse(call.function.arguments));
          // The plain client saw each call's arguments once, whole.
          const args = run.events.filter((event) => event.type === 'TOOL_CALL_ARGS');
          expect(new Set(args.map((event) => event['toolCallId'])).size).toBe(args.length);
        } else {
          expect(run.events.some((event) => event.type === 'CUSTOM')).toBe(false);
        }
      }
    });
  }

  it('HttpAgent gets the partial input of a long call from the CUSTOM events as it streams, the plain client the same arguments', async () => {
    const recording = manifestEntry('anthropic/tool-use-truncated-max-tokens.sse');
    const long = RECORDINGS.find((r) => r.file === 'anthropic/text-then-2-parallel-tool-use.sse')!;
    expect(recording.toolCalls).toHaveLength(1);
    const run = await runClient(long, { toolInputs: 'path-updates' });
    const partials = [...run.rebuilt.values()].map((entry) => entry.partials);
    expect(partials.length).toBe(2);
    // Streamed in pieces: every update came, none taken at the end.
    expect([...run.rebuilt.values()].filter((entry) => entry.ended === true)).toEqual([]);
    expect(partials.every((count) => count >= 2)).toBe(true);
  });

  it('HttpAgent hears an upstream error as RUN_ERROR, with argstream\'s message and no secret, and the response ends normally', async () => {
    const failing = RECORDINGS.length > 0 ? manifestEntry('openai-responses/error-then-response-failed.sse') : undefined;
    const bytes = join(
      await readAll(streamOf([readFixture(`providers/${failing!.file}`)]).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' })).pipeThrough(new AgUiEncoder())),
    );
    const events = eventsOf(bytes);
    const last = events.at(-1)!;
    expectSchemaValid(last);
    expect(last).toEqual({ type: 'RUN_ERROR', message: 'openai-responses: the provider reported an error "insufficient_quota"', code: 'insufficient_quota' });
    expect(utf8.decode(bytes)).not.toContain('exceeded your current quota');
    const run = await runClient(failing!);
    expect(run.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'insufficient_quota' });
  });

  it('AgUiEncoder writes a call with no argument text with "{}" as its arguments, which the client parses', async () => {
    const recording = RECORDINGS.find((r) => r.file === 'anthropic/parallel-2-tool-use-no-args.sse')!;
    const events = eventsOf(await relay(recording));
    expect(events.filter((event) => event['type'] === 'TOOL_CALL_ARGS').map((event) => event['delta'])).toEqual(['{}', '{}']);
    const run = await runClient(recording);
    expect(clientView(run.messages).calls.map((call) => call.arguments)).toEqual([{}, {}]);
  });

  it('AgUiEncoder never ends a cut call: its run ends in RUN_ERROR, and the client does not take the call for complete', async () => {
    const recording = manifestEntry('anthropic/tool-use-truncated-max-tokens.sse');
    const events = eventsOf(await relay(recording));
    expect(events.some((event) => event['type'] === 'TOOL_CALL_END')).toBe(false);
    expect(events.some((event) => event['type'] === 'TOOL_CALL_ARGS')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'tool-call-incomplete' });
    const run = await runClient(recording);
    expect(run.events.some((event) => event.type === 'TOOL_CALL_END')).toBe(false);
    expect(run.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'tool-call-incomplete' });
  });
});

describe('AgUiEncoder as a stream', () => {
  const recording = manifestEntry('anthropic/text-then-2-parallel-tool-use.sse');

  it('AgUiEncoder ends fromResponse and chain as the relay encoders do, with the same events as through pipeThrough', async () => {
    const options = { threadId: 't', runId: 'r', messageId: 'm' };
    const piped = eventsOf(await relay(recording, options));
    const response = new Response(streamOf([readFixture(`providers/${recording.file}`)]) as ReadableStream<Uint8Array>);
    const fused = eventsOf(join(await readAll(fromResponse(response, { provider: 'anthropic' }, new AgUiEncoder(options)))));
    expect(fused).toEqual(piped);
    const chained = chain(new ProviderEventStream({ provider: 'anthropic' }), new AgUiEncoder(options));
    expect(eventsOf(join(await readAll(streamOf([readFixture(`providers/${recording.file}`)]).pipeThrough(chained))))).toEqual(piped);
    // After a stage that keeps no raw parts, the arguments are written again from the fragments: the same values.
    const progress = chain(new ProviderEventStream({ provider: 'anthropic' }), new ToolCallProgressStream(), new AgUiEncoder(options));
    const rewritten = eventsOf(join(await readAll(streamOf([readFixture(`providers/${recording.file}`)]).pipeThrough(progress))));
    const parsedArgs = (events: Array<Record<string, unknown>>) => events.map((event) => (event['type'] === 'TOOL_CALL_ARGS' ? { ...event, delta: JSON.parse(String(event['delta'])) } : event));
    expect(parsedArgs(rewritten)).toEqual(parsedArgs(piped));
  });

  it('AgUiEncoder writes the same events after any stage: progress, conversation events', async () => {
    const options = { threadId: 't', runId: 'r', messageId: 'm' };
    const plain = eventsOf(await relay(recording, options));
    for (const stage of [new ToolCallProgressStream(), new ConversationEventStream({ progress: true }), new ConversationEventStream()]) {
      const body = streamOf([readFixture(`providers/${recording.file}`)])
        .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
        .pipeThrough(stage as unknown as TransformStream<PipelineEvent, PipelineEvent>)
        .pipeThrough(new AgUiEncoder(options));
      const events = eventsOf(join(await readAll(body)));
      const args = (list: Array<Record<string, unknown>>) => list.filter((event) => event['type'] === 'TOOL_CALL_ARGS').map((event) => [event['toolCallId'], JSON.parse(String(event['delta']))]);
      // Deltas are joined per read: compare each call's whole arguments and the other events.
      expect(args(events).length).toBeGreaterThan(0);
      expect(events.filter((event) => event['type'] !== 'TOOL_CALL_ARGS' && event['type'] !== 'TEXT_MESSAGE_CONTENT').map((event) => event['type'])).toEqual(
        plain.filter((event) => event['type'] !== 'TOOL_CALL_ARGS' && event['type'] !== 'TEXT_MESSAGE_CONTENT').map((event) => event['type']),
      );
    }
  });

  it('AgUiEncoder ends a stream of events of the wrong shape in RUN_ERROR with the typed error\'s code, and the pipe learns the error', async () => {
    for (const bad of [{ type: 'part', index: 'x', part: { type: 'message', text: 'a' } }, { type: 'flush' }, null, 'text']) {
      const encoder = new AgUiEncoder({ threadId: 't', runId: 'r' });
      const piped = streamOf([{ type: 'part', index: 0, part: { type: 'message', text: 'before' } }, bad] as unknown as PipelineEvent[]).pipeTo(encoder.writable);
      const bytes = join(await readAll(encoder.readable));
      await expect(piped).rejects.toMatchObject({ name: 'RelayError', code: 'invalid-data' });
      const events = eventsOf(bytes);
      for (const event of events) expectSchemaValid(event);
      expect(events.map((event) => event['type'])).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'RUN_ERROR']);
      expect(events.at(-1)).toMatchObject({ code: 'invalid-data' });
    }
  });

  it('AgUiEncoder refuses bad options with a RangeError that says how', () => {
    expect(() => new AgUiEncoder({ toolInputs: 'json' as never })).toThrow(RangeError);
    expect(() => new AgUiEncoder({ threadId: '' })).toThrow(/threadId must be a non-empty string/);
    expect(() => new AgUiEncoder({ runId: 5 as never })).toThrow(RangeError);
    expect(() => new AgUiEncoder({ keepAliveMs: -1 })).toThrow(RangeError);
  });

  it('AgUiEventEncoder reads the abort of a request as RUN_ERROR code abort, a ProviderError by its code, and writes nothing after', () => {
    const encoder = new AgUiEventEncoder({ threadId: 't', runId: 'r' });
    expect(encoder.error(new DOMException('The operation was aborted.', 'AbortError'))).toEqual([
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'RUN_ERROR', message: 'the stream was aborted', code: 'abort' },
    ]);
    expect(encoder.push({ type: 'part', index: 0, part: { type: 'message', text: 'late' } })).toEqual([]);
    const provider = new AgUiEventEncoder({ threadId: 't', runId: 'r' });
    expect(provider.error(new ProviderError('anthropic', 'overloaded_error', 'Overloaded', { status: 529 })).at(-1)).toEqual({
      type: 'RUN_ERROR',
      message: 'anthropic (HTTP 529): the provider reported an error "overloaded_error"',
      code: 'overloaded_error',
    });
    const own = new AgUiEventEncoder({ onError: () => 'Try again later.' });
    expect(own.error(new Error('secret at 10.0.0.1:443')).at(-1)).toEqual({ type: 'RUN_ERROR', message: 'Try again later.', code: 'Error' });
  });
});
