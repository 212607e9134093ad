/**
 * The relay against the servers users write (`relay-peers/<shape>/<row>`): the CPU a relay
 * server spends per MB of tool-call arguments it relays, side by side in one run, for a raw byte
 * proxy, the no-view limit (eventsource-parser + `JSON.parse` + a small record per event),
 * argstream's relay (the README's), argstream's server for `useChat`, the AI SDK 5 and 7 servers,
 * and the AI SDK servers with `onFinish`/`onEnd` persistence against argstream's `useChat` server
 * that also keeps the finished turn.
 *
 * Every relay is a fetch-style handler (`Request` → `Response`) behind one small `node:http`
 * adapter of this file (the same for every row), on 127.0.0.1 in this process. The provider (a
 * replay of the pipeline benchmark's `write_file` call as Anthropic Messages SSE, one event per
 * socket write) and the clients that drain the relays' responses run in a child process
 * (`bench/relay-peers-load.mjs`), so that `process.cpuUsage()` here is the relays' CPU alone.
 *
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAnthropic as createAnthropic2 } from '@ai-sdk/anthropic';
import { streamText as streamText5, tool as tool5, type ToolSet as ToolSet5, type UIMessage as UIMessage5 } from 'ai';
import {
  createUIMessageStreamResponse as createUIMessageStreamResponse7,
  streamText as streamText7,
  toUIMessageStream as toUIMessageStream7,
  tool as tool7,
  type ToolSet as ToolSet7,
  type UIMessage as UIMessage7,
} from 'ai7';
import { createAnthropic as createAnthropic4 } from 'ai-sdk-anthropic4';
import { Tokenizer, TokenType } from '@streamparser/json';
import { createParser } from 'eventsource-parser';
import * as z from 'zod';
import { UI_MESSAGE_STREAM_HEADERS, UIMessageStreamEncoder } from '../src/bindings/ai-sdk/server.ts';
import {
  collectTurn,
  EVENT_STREAM_HEADERS,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  fromResponse,
  type Turn,
} from '../src/index.ts';
import { argumentDeltas, sseEvents } from './pipeline.ts';
import { makeWorkload } from './workloads.ts';

// ---------------------------------------------------------------------------------------------
// What is measured

export type RelayPeersShapeId = '20kb' | '200kb';

export interface RelayPeersShape {
  readonly id: RelayPeersShapeId;
  /** The target size of the call's arguments (the pipeline's `write_file` at this size). */
  readonly targetBytes: number;
  /** Concurrent streams per pass. */
  readonly streams: number;
  /**
   * The provider's pace: each stream gets its next event every `intervalMs` (after the events
   * before the first argument delta, sent back to back); 13,333 events a second in all at both shapes.
   */
  readonly intervalMs: number;
}

export const RELAY_PEERS_SHAPES: readonly RelayPeersShape[] = [
  { id: '20kb', targetBytes: 20_000, streams: 200, intervalMs: 15 },
  { id: '200kb', targetBytes: 200_000, streams: 20, intervalMs: 1.5 },
];

export type RelayPeersRowId =
  | 'raw'
  | 'limit'
  | 'limit-tokens'
  | 'argstream-relay'
  | 'argstream-usechat'
  | 'ai-sdk-5'
  | 'ai-sdk-7'
  | 'argstream-usechat-persist'
  | 'ai-sdk-5-persist'
  | 'ai-sdk-7-persist';

export const RELAY_PEERS_ROWS: readonly RelayPeersRowId[] = [
  'raw',
  'limit',
  'limit-tokens',
  'argstream-relay',
  'argstream-usechat',
  'ai-sdk-5',
  'ai-sdk-7',
  'argstream-usechat-persist',
  'ai-sdk-5-persist',
  'ai-sdk-7-persist',
];

/** What each row runs, as its handler is written (the legend under the table). */
export const RELAY_PEERS_LABELS: Readonly<Record<RelayPeersRowId, string>> = {
  raw: '`fetch` the provider, `new Response(upstream.body)`: its bytes unchanged',
  limit:
    'eventsource-parser over the upstream bytes (`TextDecoder`), `JSON.parse` of each event\'s data, and per event one small ' +
    're-serialised SSE record (`data: {"d":<the delta>}`, `{"t":<type>}` for the others), one `TextEncoder.encode` and one ' +
    'enqueue each: what any relay must at least do',
  'limit-tokens':
    'the no-view limit, each argument delta also written to `@streamparser/json`\'s `Tokenizer` (its tokens only: no ' +
    'paths, no values, no output): the least a relay that shows a call\'s fields does on top of the limit, since it must ' +
    'tokenise the arguments as they come to know where each field begins and ends',
  'argstream-relay':
    'the README\'s relay: `fromResponse(upstream, { provider: \'anthropic\' }, new FieldEventStream({ keepProgress: false }), new EventStreamEncoder({ keepAliveMs: 15_000 }))` (its keep-alive armed once per quiet period, never firing at this pace)',
  'argstream-usechat':
    'the README\'s server for an unchanged `useChat` page: `fromResponse(upstream, { provider: \'anthropic\' }, new UIMessageStreamEncoder())` ' +
    '(`argstream/ai-sdk/server`)',
  'ai-sdk-5':
    '`ai` 5 with `@ai-sdk/anthropic` 2 (`createAnthropic({ baseURL, apiKey })`): `streamText({ model, prompt, tools: { write_file: ' +
    'tool({ description, inputSchema: z.object({ path: z.string(), content: z.string() }) }) }, abortSignal })`, ' +
    '`result.toUIMessageStreamResponse()`',
  'ai-sdk-7':
    '`ai` 7 with `@ai-sdk/anthropic` 4, the same `streamText`, and ai 7\'s current form (`result.toUIMessageStreamResponse()` ' +
    'is deprecated there): `createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream }) })`',
  'argstream-usechat-persist':
    'the `useChat` server that also saves the finished turn: `const [toPage, toSave] = fromResponse(upstream, { provider: ' +
    '\'anthropic\' }).tee()`, `collectTurn(toSave).then(save)`, `toPage.pipeThrough(new UIMessageStreamEncoder())` to the page ' +
    '(the docs show no server-side save; `collectTurn` reads the output of any stage, and a tee is how one stream feeds ' +
    'both; `save` keeps a reference)',
  'ai-sdk-5-persist':
    'the AI SDK 5 server with the persistence guide\'s `result.toUIMessageStreamResponse({ originalMessages, onFinish: ({ messages }) ' +
    '=> save(messages) })`: the SDK keeps the message state per chunk (a partial parse of the whole input at every delta)',
  'ai-sdk-7-persist':
    'the AI SDK 7 server with ai 7\'s persistence guide: `toUIMessageStream({ stream: result.stream, originalMessages, ' +
    'onEnd: ({ messages }) => save(messages) })` (`onFinish` is ai 7\'s deprecated name for `onEnd`)',
};

/**
 * The rows that keep the AI SDK's message state per chunk (`processUIMessageStream`, a partial
 * parse of the whole input at every `tool-input-delta`): quadratic in the call's size, so they
 * relay fewer streams per pass (CPU per MB does not depend on the count).
 */
const QUADRATIC_ROWS: ReadonlySet<RelayPeersRowId> = new Set(['ai-sdk-5-persist', 'ai-sdk-7-persist']);
/** Streams per pass of a quadratic row, per shape (`--quick` halves them, at least 1). */
const QUADRATIC_STREAMS: Readonly<Record<RelayPeersShapeId, number>> = { '20kb': 20, '200kb': 1 };

export const RELAY_PEERS_ROUNDS_FULL = 3;
export const RELAY_PEERS_ROUNDS_QUICK = 2;

/** The issue's targets. */
export const RELAY_PEERS_OVER_LIMIT_TARGET = 1.25;
export const RELAY_PEERS_AI_SDK_7_OVER_ARGSTREAM_TARGET = 3;

export function relayPeersCellId(shape: RelayPeersShapeId, row: RelayPeersRowId): string {
  return `relay-peers/${shape}/${row}`;
}

export interface RelayPeersCell {
  readonly id: string;
  readonly shape: RelayPeersShapeId;
  readonly row: RelayPeersRowId;
  /** Which form of the stages ran (argstream's rows), as written. */
  readonly form: string | undefined;
  /** Streams per pass. */
  readonly streams: number;
  /** Whether this row relays fewer streams than the shape (a quadratic row). */
  readonly capped: boolean;
  /** Median CPU per pass, µs (user + system, this process). */
  readonly cpuUs: number;
  /** Every pass's CPU, µs. */
  readonly cpuUsPasses: readonly number[];
  readonly wallMs: number;
  /** Time to the first body byte at the client (request sent → first byte), over every stream of every pass. */
  readonly ttfbP50Ms: number;
  readonly ttfbP99Ms: number;
  /** The bytes one stream sends to its client (mean over the passes). */
  readonly bytesPerStream: number;
  /** The adapter's writes to the client socket per stream. */
  readonly writesPerStream: number;
  /** Upstream body reads per stream, for the rows whose code reads the body (raw proxy, limit, argstream's). */
  readonly upstreamReadsPerStream: number | undefined;
}

export interface RelayPeersShapeInfo {
  readonly id: RelayPeersShapeId;
  readonly streams: number;
  readonly argumentBytes: number;
  readonly events: number;
  readonly sseBytes: number;
  /** The provider's pace: each stream's next event every `intervalMs`. */
  readonly intervalMs: number;
  /** How long the provider takes to send one stream at that pace (the events after the preamble × the interval). */
  readonly paceMs: number;
  /** Whether the stream counts were scaled down (`--relay-peers-scale`). */
  readonly scaled: boolean;
}

export interface RelayPeersResults {
  readonly rounds: number;
  readonly shapes: RelayPeersShapeInfo[];
  readonly cells: RelayPeersCell[];
}

export interface RelayPeersOptions {
  readonly quick: boolean;
  /** Multiplies every stream count (at least 1 stream): `--relay-peers-scale`, for a quick look while developing. */
  readonly scale: number;
  readonly selected: (id: string) => boolean;
  readonly progress: (line: string) => void;
  /** Throws (failing the run) when `actual` is not `expected`. */
  readonly check: (what: string, actual: unknown, expected: unknown) => void;
}

// ---------------------------------------------------------------------------------------------
// The fetch-style handlers

const PROVIDER = { provider: 'anthropic' } as const;
const MODEL = 'claude-sonnet-4-5';

/** A shape's id, or `<id>-gate`: the same call from the provider as fast as the sockets take it (the correctness gate). */
type ShapeKey = RelayPeersShapeId | `${RelayPeersShapeId}-gate`;
const SHAPE_KEYS: readonly ShapeKey[] = RELAY_PEERS_SHAPES.flatMap((shape) => [shape.id, `${shape.id}-gate` as const]);

type Handler = (request: Request, shape: ShapeKey) => Promise<Response>;

/** Per row, what a pass did that the table reports (reset before each pass). */
interface RowCounters {
  upstreamReads: number;
  saves: number;
  lastSaved: unknown;
  /** Calls whose arguments the tokenising limit read as one whole JSON value. */
  tokenized: number;
}

/**
 * The form argstream's stages ran in, per encoder: `fused` once `fromResponse` took the encoder
 * as its last stage, `piped` once it threw a `TypeError` for it.
 */
const forms = new Map<string, 'fused' | 'piped'>();

type Loose = (...args: unknown[]) => ReadableStream<Uint8Array>;

/**
 * The provider's response through argstream's `stages` and then `encoder`, as bytes: the fused
 * form `fromResponse(upstream, {provider}, ...stages, encoder)` (the encoder as `fromResponse`'s
 * last stage), and, when that throws a `TypeError` (a build whose `fromResponse` does not take an
 * encoder), `fromResponse(upstream, {provider}, ...stages).pipeThrough(encoder)` with new stages.
 * The first call decides; later calls take the form that worked.
 */
function encodedBody(
  kind: string,
  upstream: Response,
  stages: () => unknown[],
  encoder: () => ReadableWritablePair<Uint8Array, unknown>,
): ReadableStream<Uint8Array> {
  if (forms.get(kind) !== 'piped') {
    try {
      const body = (fromResponse as unknown as Loose)(upstream, PROVIDER, ...stages(), encoder());
      forms.set(kind, 'fused');
      return body;
    } catch (error) {
      if (!(error instanceof TypeError) || forms.get(kind) === 'fused') throw error;
      forms.set(kind, 'piped');
    }
  }
  return (fromResponse as unknown as Loose)(upstream, PROVIDER, ...stages()).pipeThrough(encoder());
}

function formLabel(kind: string, fused: string, piped: string): string | undefined {
  const form = forms.get(kind);
  return form === undefined ? undefined : form === 'fused' ? `fused: ${fused}` : `fallback: ${piped}`;
}

/**
 * Counts the reads of `upstream`'s body into `counter` (the handler's own reads, or `fromResponse`'s):
 * its `getReader` gives the body's own reader with `read` wrapped by a function that counts and calls
 * it, no stream in between. For the rows whose code reads the body (raw proxy, limit, argstream's):
 * the AI SDK pipes it (`pipeThrough`), which no JavaScript method of the body sees.
 */
function countReads(upstream: Response, counter: RowCounters): Response {
  const body = upstream.body;
  if (body === null) return upstream;
  const getReader = body.getReader.bind(body) as () => ReadableStreamDefaultReader<Uint8Array>;
  body.getReader = (() => {
    const reader = getReader();
    const read = reader.read.bind(reader);
    reader.read = () => {
      counter.upstreamReads++;
      return read();
    };
    return reader;
  }) as typeof body.getReader;
  return upstream;
}

function userMessage(prompt: string): { id: string; role: 'user'; parts: { type: 'text'; text: string }[] } {
  return { id: 'msg-user-1', role: 'user', parts: [{ type: 'text', text: prompt }] };
}

/**
 * The no-view limit's body: eventsource-parser over the upstream bytes, `JSON.parse` of each event,
 * one small re-serialised record per event. With `tokenized`, each tool call's argument deltas also
 * go through a `@streamparser/json` `Tokenizer` of its own, and `tokenized` is called when a call's
 * block stops with its arguments a complete JSON value (every pass checks it was, once per stream).
 */
function limitBody(upstream: Response, tokenized: (() => void) | undefined): ReadableStream<Uint8Array> {
  const reader = (upstream.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let out: ReadableStreamDefaultController<Uint8Array> | undefined;
  let tokenizer: Tokenizer | undefined;
  /** The open containers of the call's arguments, and whether its root container has closed. */
  let depth = 0;
  let closed = false;
  const parser = createParser({
    onEvent(event) {
      const data = JSON.parse(event.data) as { type: string; delta?: { type: string; partial_json?: string }; content_block?: { type: string } };
      const delta = data.type === 'content_block_delta' && data.delta?.type === 'input_json_delta' ? data.delta.partial_json : undefined;
      if (tokenized !== undefined) {
        if (data.type === 'content_block_start' && data.content_block?.type === 'tool_use') {
          // A call's tokens: its containers' depth is all that is kept of them.
          const fresh = new Tokenizer();
          depth = 0;
          closed = false;
          fresh.onToken = ({ token }) => {
            if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) depth++;
            else if ((token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) && --depth === 0) closed = true;
          };
          tokenizer = fresh;
        } else if (delta !== undefined && delta !== '') tokenizer?.write(delta);
        else if (data.type === 'content_block_stop' && tokenizer !== undefined) {
          // Throws if the arguments ended inside a token; whole once the root container closed.
          tokenizer.end();
          if (closed && depth === 0) tokenized();
          tokenizer = undefined;
        }
      }
      const record = delta === undefined ? `data: {"t":${JSON.stringify(data.type)}}\n\n` : `data: {"d":${JSON.stringify(delta)}}\n\n`;
      out?.enqueue(encoder.encode(record));
    },
  });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        out = controller;
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        parser.feed(decoder.decode(value, { stream: true }));
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Builds every row's handler against the provider at `providerBase` (`http://127.0.0.1:<port>`). */
function makeHandlers(providerBase: string, counters: Map<RelayPeersRowId, RowCounters>): Record<RelayPeersRowId, Handler> {
  const count = (row: RelayPeersRowId): RowCounters => counters.get(row) as RowCounters;
  const url = (shape: ShapeKey): string => `${providerBase}/${shape}/v1/messages`;
  /** What a relay sends the provider: the page's prompt and the tool, streamed. */
  const upstreamOf = async (request: Request, shape: ShapeKey, row: RelayPeersRowId): Promise<Response> => {
    const { prompt } = (await request.json()) as { prompt: string };
    const upstream = await fetch(url(shape), {
      method: 'POST',
      headers: { 'x-api-key': 'x', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: 64_000,
        stream: true,
        tools: [
          {
            name: 'write_file',
            description: 'Write a file',
            input_schema: {
              type: 'object',
              properties: { path: { type: 'string' }, content: { type: 'string' } },
              required: ['path', 'content'],
            },
          },
        ],
        messages: [{ role: 'user', content: prompt }],
      }),
      signal: request.signal,
    });
    return countReads(upstream, count(row));
  };

  const description = 'Write a file';
  const inputSchema = z.object({ path: z.string(), content: z.string() });
  // Cast: with `exactOptionalPropertyTypes` a tool without `execute` (output `never`) does not
  // type-check as a `ToolSet` member; at run time these are the tools as the AI SDK's docs declare them.
  const tools5 = { write_file: tool5({ description, inputSchema }) } as unknown as ToolSet5;
  const tools7 = { write_file: tool7({ description, inputSchema }) } as unknown as ToolSet7;
  const models5 = new Map<ShapeKey, ReturnType<ReturnType<typeof createAnthropic2>>>();
  const models7 = new Map<ShapeKey, ReturnType<ReturnType<typeof createAnthropic4>>>();
  for (const id of SHAPE_KEYS) {
    models5.set(id, createAnthropic2({ baseURL: `${providerBase}/${id}/v1`, apiKey: 'x' })(MODEL));
    models7.set(id, createAnthropic4({ baseURL: `${providerBase}/${id}/v1`, apiKey: 'x' })(MODEL));
  }
  const save = (row: RelayPeersRowId) => (value: unknown): void => {
    const counter = count(row);
    counter.saves++;
    counter.lastSaved = value;
  };
  const save5 = save('ai-sdk-5-persist');
  const save7 = save('ai-sdk-7-persist');
  const saveTurn = save('argstream-usechat-persist');

  return {
    raw: async (request, shape) => {
      const upstream = await upstreamOf(request, shape, 'raw');
      return new Response(upstream.body, { status: upstream.status, headers: { 'content-type': upstream.headers.get('content-type') ?? 'text/event-stream' } });
    },

    limit: async (request, shape) => new Response(limitBody(await upstreamOf(request, shape, 'limit'), undefined), { headers: EVENT_STREAM_HEADERS }),

    'limit-tokens': async (request, shape) => {
      const upstream = await upstreamOf(request, shape, 'limit-tokens');
      const counter = count('limit-tokens');
      return new Response(limitBody(upstream, () => counter.tokenized++), { headers: EVENT_STREAM_HEADERS });
    },

    'argstream-relay': async (request, shape) => {
      const upstream = await upstreamOf(request, shape, 'argstream-relay');
      const body = encodedBody('relay', upstream, () => [new FieldEventStream({ keepProgress: false })], () => new EventStreamEncoder({ keepAliveMs: 15_000 }));
      return new Response(body, { headers: EVENT_STREAM_HEADERS });
    },

    'argstream-usechat': async (request, shape) => {
      const upstream = await upstreamOf(request, shape, 'argstream-usechat');
      const body = encodedBody('usechat', upstream, () => [], () => new UIMessageStreamEncoder());
      return new Response(body, { headers: UI_MESSAGE_STREAM_HEADERS });
    },

    'ai-sdk-5': async (request, shape) => {
      const { prompt } = (await request.json()) as { prompt: string };
      const result = streamText5({ model: models5.get(shape)!, prompt, tools: tools5, abortSignal: request.signal });
      return result.toUIMessageStreamResponse();
    },

    'ai-sdk-7': async (request, shape) => {
      const { prompt } = (await request.json()) as { prompt: string };
      const result = streamText7({ model: models7.get(shape)!, prompt, tools: tools7, abortSignal: request.signal });
      return createUIMessageStreamResponse7({ stream: toUIMessageStream7({ stream: result.stream }) });
    },

    'argstream-usechat-persist': async (request, shape) => {
      const upstream = await upstreamOf(request, shape, 'argstream-usechat-persist');
      const [toPage, toSave] = fromResponse(upstream, PROVIDER).tee();
      collectTurn(toSave).then(saveTurn, () => undefined);
      return new Response(toPage.pipeThrough(new UIMessageStreamEncoder()), { headers: UI_MESSAGE_STREAM_HEADERS });
    },

    'ai-sdk-5-persist': async (request, shape) => {
      const { prompt } = (await request.json()) as { prompt: string };
      const originalMessages: UIMessage5[] = [userMessage(prompt)];
      const result = streamText5({ model: models5.get(shape)!, prompt, tools: tools5, abortSignal: request.signal });
      return result.toUIMessageStreamResponse({ originalMessages, onFinish: ({ messages }) => save5(messages) });
    },

    'ai-sdk-7-persist': async (request, shape) => {
      const { prompt } = (await request.json()) as { prompt: string };
      const originalMessages: UIMessage7[] = [userMessage(prompt)];
      const result = streamText7({ model: models7.get(shape)!, prompt, tools: tools7, abortSignal: request.signal });
      return createUIMessageStreamResponse7({
        stream: toUIMessageStream7({ stream: result.stream, originalMessages, onEnd: ({ messages }) => save7(messages) }),
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The node:http adapter: the same for every row

interface AdapterStats {
  /** Responses not yet closed. */
  open: number;
  /** Writes to client sockets. */
  writes: number;
  /** Handler failures, with their messages (a failing row fails the run). */
  readonly failures: string[];
  /** Called when `open` goes back to 0. */
  idle: (() => void) | undefined;
}

/** Resolves at the socket's `drain`, or when it closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Serves one node request with a fetch-style handler: a web `Request` (its body read whole, a
 * signal aborted when the client goes away), the `Response`'s status, headers and body written
 * back read by read, with backpressure (`drain`); when the client goes away, the body is cancelled.
 */
async function serve(handler: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse, stats: AdapterStats): Promise<void> {
  stats.open++;
  const aborter = new AbortController();
  let finished = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  res.on('close', () => {
    if (!finished) {
      aborter.abort(new Error('the client went away'));
      reader?.cancel(new Error('the client went away')).catch(() => undefined);
    }
    if (--stats.open === 0) stats.idle?.();
  });
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const method = req.method ?? 'GET';
    const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
      signal: aborter.signal,
    });
    const response = await handler(request);
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      responseHeaders[name] = value;
    });
    res.writeHead(response.status, responseHeaders);
    if (response.body === null) {
      finished = true;
      res.end();
      return;
    }
    reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array)) throw new TypeError(`the response body gave a ${typeof value}, not bytes`);
      stats.writes++;
      if (!res.write(value)) await drained(res);
      if (res.destroyed) return;
    }
    finished = true;
    res.end();
  } catch (error) {
    if (finished || res.destroyed) return;
    stats.failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
    if (res.headersSent) res.destroy();
    else res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
  }
}

// ---------------------------------------------------------------------------------------------
// The child process: the provider and the clients

interface ClientResult {
  readonly status: number;
  readonly bytes: number;
  readonly ttfbMs: number;
  /** The response's last read (its last 512 bytes at most). */
  readonly tail: string;
  readonly error?: string;
  readonly body?: string;
}

interface RunReply {
  readonly type: 'done';
  readonly id: number;
  readonly results: ClientResult[];
  readonly provider: { started: number; completed: number; cancelled: number };
  /** The child's own CPU over the run, µs (provider and clients). */
  readonly cpuUs: number;
}

/** The folder with `bench/relay-peers-load.mjs` above this module (bench/ or the bundle's cache folder). */
function loadScript(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const script = join(dir, 'bench', 'relay-peers-load.mjs');
    if (existsSync(script)) return script;
    if (existsSync(join(dir, 'relay-peers-load.mjs'))) return join(dir, 'relay-peers-load.mjs');
    const up = dirname(dir);
    if (up === dir) throw new Error('bench/relay-peers.ts: no bench/relay-peers-load.mjs above this module');
    dir = up;
  }
}

class LoadProcess {
  readonly #child: ChildProcess;
  #next = 0;
  readonly #waiting = new Map<number, { resolve: (reply: RunReply) => void; reject: (error: Error) => void }>();
  #exited: Error | undefined;

  constructor() {
    // No inherited node flags (--cpu-prof, --expose-gc): the child is not measured.
    this.#child = fork(loadScript(), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#child.on('message', (message: RunReply | { type: 'ready' }) => {
      if (message.type !== 'done') return;
      const waiting = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      waiting?.resolve(message);
    });
    this.#child.on('exit', (code, signal) => {
      const exited = new Error(`bench/relay-peers-load.mjs exited (${code ?? signal})`);
      this.#exited = exited;
      for (const waiting of this.#waiting.values()) waiting.reject(exited);
      this.#waiting.clear();
    });
  }

  async start(shapes: Record<string, { events: string[]; intervalMs: number }>): Promise<number> {
    const ready = new Promise<number>((resolve, reject) => {
      const onMessage = (message: { type: string; port?: number }): void => {
        if (message.type !== 'ready') return;
        this.#child.off('message', onMessage);
        resolve(message.port as number);
      };
      this.#child.on('message', onMessage);
      this.#child.once('exit', () => reject(this.#exited));
    });
    this.#child.send({ type: 'init', shapes });
    return ready;
  }

  run(url: string, streams: number, keep: boolean): Promise<RunReply> {
    if (this.#exited !== undefined) return Promise.reject(this.#exited);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#child.send({ type: 'run', id, url, streams, keep });
    });
  }

  stop(): void {
    if (this.#exited === undefined && this.#child.connected) this.#child.send({ type: 'exit' });
  }
}

// ---------------------------------------------------------------------------------------------
// The correctness gate

/** The `data:` of each SSE record of `text`, in order. */
function sseData(text: string): string[] {
  const data: string[] = [];
  for (const record of text.split('\n\n')) {
    const lines = record.split('\n').filter((line) => line.startsWith('data:'));
    if (lines.length > 0) data.push(lines.map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n'));
  }
  return data;
}

/**
 * argstream's rows join what one network read brings (a field's deltas, a call's input deltas)
 * into one record: their bytes depend on how the provider's events fell into reads.
 */
const READ_DEPENDENT_ROWS: ReadonlySet<RelayPeersRowId> = new Set(['argstream-relay', 'argstream-usechat', 'argstream-usechat-persist']);

/** The events the provider sends back to back before its pace: every one up to the first argument delta with text (as the load script counts them). */
function preambleOf(events: readonly string[]): number {
  return events.findIndex((event) => event.includes('"input_json_delta"') && !event.includes('"partial_json":""'));
}

/** The last SSE record of `text` (without its blank line). */
function lastRecord(text: string): string {
  const records = text.split('\n\n').filter((record) => record !== '');
  return records[records.length - 1] ?? '';
}

/** What one row must have relayed to one client (and, for the rows that persist, saved). */
async function checkRow(
  row: RelayPeersRowId,
  what: string,
  body: Buffer,
  wire: Buffer,
  expected: Record<string, string>,
  saved: unknown,
  check: RelayPeersOptions['check'],
): Promise<void> {
  const text = body.toString('utf8');
  switch (row) {
    case 'raw':
      check(`${what}: the provider's bytes, unchanged`, Buffer.compare(body, wire) === 0, true);
      return;
    case 'limit':
    case 'limit-tokens': {
      const deltas = sseData(text)
        .map((data) => JSON.parse(data) as { d?: string })
        .filter((record) => record.d !== undefined)
        .map((record) => record.d as string);
      check(`${what}: the arguments from the deltas relayed`, JSON.parse(deltas.join('')), expected);
      return;
    }
    case 'argstream-relay': {
      const turn = await collectTurn(new Response(new Uint8Array(body)).body!.pipeThrough(new EventStreamDecoder()));
      check(`${what}: tool calls decoded (EventStreamDecoder → collectTurn)`, turn.toolCalls.length, 1);
      check(`${what}: the call's arguments decoded (EventStreamDecoder → collectTurn)`, turn.toolCalls[0]?.arguments, expected);
      return;
    }
    default: {
      // A UI message stream: a tool-input-available with the exact input, no error, then [DONE].
      const data = sseData(text);
      check(`${what}: ends with data: [DONE]`, data[data.length - 1], '[DONE]');
      const chunks = data.slice(0, -1).map((record) => JSON.parse(record) as { type: string; input?: unknown; errorText?: string });
      check(`${what}: error chunks`, chunks.filter((chunk) => chunk.type === 'error' || chunk.type === 'tool-input-error').length, 0);
      const available = chunks.filter((chunk) => chunk.type === 'tool-input-available');
      check(`${what}: tool-input-available chunks`, available.length, 1);
      check(`${what}: the tool-input-available input`, available[0]?.input, expected);
      check(`${what}: the last chunk`, chunks[chunks.length - 1]?.type, 'finish');
      if (row === 'argstream-usechat-persist') {
        const turn = saved as Turn | undefined;
        check(`${what}: the saved turn's tool calls`, turn?.toolCalls.length, 1);
        check(`${what}: the saved turn's arguments`, turn?.toolCalls[0]?.arguments, expected);
      } else if (row === 'ai-sdk-5-persist' || row === 'ai-sdk-7-persist') {
        const messages = saved as { role: string; parts: { type: string; state?: string; input?: unknown }[] }[] | undefined;
        const last = messages?.[messages.length - 1];
        check(`${what}: the saved messages`, messages?.length, 2);
        const part = last?.parts.find((candidate) => candidate.type === 'tool-write_file');
        check(`${what}: the saved tool part's state`, part?.state, 'input-available');
        check(`${what}: the saved tool part's input`, part?.input, expected);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The run

/** A full collection, under `node --expose-gc` (`npm run bench` runs so; without it, nothing). */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function median(series: readonly number[]): number {
  const sorted = [...series].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The p-th percentile (nearest rank). */
function percentile(series: readonly number[], p: number): number {
  const sorted = [...series].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function relayPeersStreams(row: RelayPeersRowId, shape: RelayPeersShape, quick: boolean, scale: number): number {
  const full = QUADRATIC_ROWS.has(row) ? Math.min(shape.streams, quick ? Math.ceil(QUADRATIC_STREAMS[shape.id] / 2) : QUADRATIC_STREAMS[shape.id]) : shape.streams;
  return Math.max(1, Math.round(full * scale));
}

/** Runs the relay-peers benchmark (the cells `selected` lets through). */
export async function runRelayPeersBench(options: RelayPeersOptions): Promise<RelayPeersResults | undefined> {
  const chosen = RELAY_PEERS_SHAPES.map((shape) => ({ shape, rows: RELAY_PEERS_ROWS.filter((row) => options.selected(relayPeersCellId(shape.id, row))) })).filter(
    (entry) => entry.rows.length > 0,
  );
  if (chosen.length === 0) return undefined;
  const rounds = options.quick ? RELAY_PEERS_ROUNDS_QUICK : RELAY_PEERS_ROUNDS_FULL;
  // The AI SDK logs warnings to the console; none is expected here, and none should cost time.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

  // The calls: the pipeline's write_file at each size, as Anthropic SSE, one string per event.
  const calls = new Map<RelayPeersShapeId, { events: string[]; wire: Buffer; expected: Record<string, string>; argumentBytes: number }>();
  for (const { shape } of chosen) {
    const workload = makeWorkload('long-string', shape.targetBytes);
    const events = sseEvents('anthropic', argumentDeltas(workload.text));
    calls.set(shape.id, {
      events,
      wire: Buffer.from(events.join(''), 'utf8'),
      expected: JSON.parse(workload.text) as Record<string, string>,
      argumentBytes: workload.bytes,
    });
  }

  const load = new LoadProcess();
  let server: Server | undefined;
  try {
    const providerPort = await load.start(
      Object.fromEntries(
        chosen.flatMap(({ shape }) => [
          [shape.id, { events: calls.get(shape.id)!.events, intervalMs: shape.intervalMs }],
          [`${shape.id}-gate`, { events: calls.get(shape.id)!.events, intervalMs: 0 }],
        ]),
      ),
    );
    const counters = new Map<RelayPeersRowId, RowCounters>(RELAY_PEERS_ROWS.map((row) => [row, { upstreamReads: 0, saves: 0, lastSaved: undefined, tokenized: 0 }]));
    const handlers = makeHandlers(`http://127.0.0.1:${providerPort}`, counters);
    const stats: AdapterStats = { open: 0, writes: 0, failures: [], idle: undefined };
    server = createServer((req, res) => {
      const match = /^\/([^/]+)\/([^/]+)$/.exec(req.url ?? '');
      const handler = match === null ? undefined : handlers[match[2] as RelayPeersRowId];
      if (match === null || handler === undefined || !calls.has(match[1]?.replace(/-gate$/, '') as RelayPeersShapeId)) {
        res.writeHead(404).end();
        return;
      }
      void serve((request) => handler(request, match[1] as ShapeKey), req, res, stats);
    });
    server.keepAliveTimeout = 60_000;
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', 4096, resolve));
    const relayBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    /** One pass: `streams` clients at once against `row`; this process's CPU until every response closed. */
    const pass = async (shape: RelayPeersShapeId, row: RelayPeersRowId, streams: number, gate: boolean) => {
      const counter = counters.get(row) as RowCounters;
      counter.upstreamReads = 0;
      counter.saves = 0;
      counter.tokenized = 0;
      stats.writes = 0;
      stats.failures.length = 0;
      // A pass starts on a collected heap and pays for collecting its own garbage: what the row
      // before left is not charged to this one (an AI SDK row leaves far more than a proxy).
      collect();
      const wallStart = performance.now();
      const cpuStart = process.cpuUsage();
      const reply = await load.run(`${relayBase}/${gate ? `${shape}-gate` : shape}/${row}`, streams, gate);
      if (stats.open > 0) await new Promise<void>((resolve) => (stats.idle = resolve));
      stats.idle = undefined;
      // A turn for what the end of a stream schedules (a save after the last byte).
      await new Promise((resolve) => setImmediate(resolve));
      collect();
      const cpu = process.cpuUsage(cpuStart);
      const wallMs = performance.now() - wallStart;
      const what = `${relayPeersCellId(shape, row)} (${streams} streams)`;
      if (stats.failures.length > 0) throw new Error(`${what}: the handler failed: ${stats.failures[0]}`);
      const bad = reply.results.findIndex((result) => result.status !== 200 || result.error !== undefined);
      if (bad !== -1) throw new Error(`${what}: stream ${bad}: status ${reply.results[bad]?.status} ${reply.results[bad]?.error ?? ''}`);
      options.check(`${what}: provider streams completed`, reply.provider, { started: streams, completed: streams, cancelled: 0 });
      if (QUADRATIC_ROWS.has(row) || row === 'argstream-usechat-persist') options.check(`${what}: saves`, counter.saves, streams);
      if (row === 'limit-tokens') options.check(`${what}: calls whose arguments the tokenizer read to their end`, counter.tokenized, streams);
      return {
        cpuUs: cpu.user + cpu.system,
        systemUs: cpu.system,
        wallMs,
        results: reply.results,
        writes: stats.writes,
        upstreamReads: counter.upstreamReads,
        saved: counter.lastSaved,
        loadCpuUs: reply.cpuUs,
      };
    };

    const results: RelayPeersResults = { rounds, shapes: [], cells: [] };
    for (const { shape, rows } of chosen) {
      const call = calls.get(shape.id)!;
      results.shapes.push({
        id: shape.id,
        streams: relayPeersStreams('raw', shape, options.quick, options.scale),
        argumentBytes: call.argumentBytes,
        events: call.events.length,
        sseBytes: call.wire.length,
        intervalMs: shape.intervalMs,
        paceMs: (call.events.length - preambleOf(call.events)) * shape.intervalMs,
        scaled: options.scale !== 1,
      });
      options.progress(
        `relay-peers ${shape.id}: ${call.argumentBytes} bytes of arguments, ${call.events.length} SSE events (${call.wire.length} bytes) per stream, ` +
          `${relayPeersStreams('raw', shape, options.quick, options.scale)} concurrent streams`,
      );

      // The gate: one stream per row, its output checked. Every later stream must end with the
      // same last record, and, where the output does not depend on how the reads fell (every row
      // but argstream's, which join what one read brings), have the same bytes.
      const gates = new Map<RelayPeersRowId, { bytes: number; last: string }>();
      for (const row of rows) {
        const gate = await pass(shape.id, row, 1, true);
        const result = gate.results[0] as ClientResult;
        const body = Buffer.from(result.body ?? '', 'base64');
        await checkRow(row, relayPeersCellId(shape.id, row), body, call.wire, call.expected, gate.saved, options.check);
        gates.set(row, { bytes: result.bytes, last: lastRecord(body.toString('utf8')) });
      }

      // Interleaved rounds: each row once per round, the order rotated.
      const samples = new Map<RelayPeersRowId, { cpuUs: number[]; wallMs: number[]; ttfb: number[]; writes: number; bytes: number; reads: number; passes: number }>(
        rows.map((row) => [row, { cpuUs: [], wallMs: [], ttfb: [], writes: 0, bytes: 0, reads: 0, passes: 0 }]),
      );
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < rows.length; k++) {
          const row = rows[(k + round) % rows.length] as RelayPeersRowId;
          const streams = relayPeersStreams(row, shape, options.quick, options.scale);
          const sample = await pass(shape.id, row, streams, false);
          const gate = gates.get(row)!;
          const sameBytes = !READ_DEPENDENT_ROWS.has(row);
          const wrong = sample.results.findIndex((result) => lastRecord(result.tail) !== gate.last || (sameBytes && result.bytes !== gate.bytes));
          if (wrong !== -1) {
            const result = sample.results[wrong] as ClientResult;
            throw new Error(
              `${relayPeersCellId(shape.id, row)}: stream ${wrong} relayed ${result.bytes} bytes ending ${JSON.stringify(lastRecord(result.tail))}, ` +
                `the gate's stream ${gate.bytes} bytes ending ${JSON.stringify(gate.last)}`,
            );
          }
          const series = samples.get(row)!;
          series.cpuUs.push(sample.cpuUs);
          series.wallMs.push(sample.wallMs);
          for (const result of sample.results) series.ttfb.push(result.ttfbMs);
          series.writes += sample.writes / streams;
          series.bytes += sample.results.reduce((sum, result) => sum + result.bytes, 0) / streams;
          series.reads += sample.upstreamReads / streams;
          series.passes++;
          const mb = (call.argumentBytes * streams) / 1e6;
          options.progress(
            `  ${relayPeersCellId(shape.id, row).padEnd(44)} round ${round + 1}: ${(sample.cpuUs / 1000).toFixed(0).padStart(7)} ms CPU ` +
              `(${(sample.cpuUs / 1000 / mb).toFixed(0).padStart(6)} ms/MB, ${((100 * sample.systemUs) / sample.cpuUs).toFixed(0)}% in the kernel), ${sample.wallMs.toFixed(0).padStart(7)} ms wall, ${streams} streams` +
              (sample.upstreamReads > 0 ? `, ${(call.events.length / (sample.upstreamReads / streams)).toFixed(2)} events per read` : '') +
              `, ${(sample.writes / streams).toFixed(0)} writes per stream` +
              `; load process ${(sample.loadCpuUs / 1000).toFixed(0)} ms CPU`,
          );
        }
      }
      for (const row of rows) {
        const series = samples.get(row)!;
        const streams = relayPeersStreams(row, shape, options.quick, options.scale);
        results.cells.push({
          id: relayPeersCellId(shape.id, row),
          shape: shape.id,
          row,
          form: rowForm(row),
          streams,
          capped: streams < relayPeersStreams('raw', shape, options.quick, options.scale),
          cpuUs: median(series.cpuUs),
          cpuUsPasses: series.cpuUs,
          wallMs: median(series.wallMs),
          ttfbP50Ms: percentile(series.ttfb, 50),
          ttfbP99Ms: percentile(series.ttfb, 99),
          bytesPerStream: series.bytes / series.passes,
          writesPerStream: series.writes / series.passes,
          upstreamReadsPerStream: series.reads > 0 ? series.reads / series.passes : undefined,
        });
      }
    }
    return results;
  } finally {
    server?.closeAllConnections();
    server?.close();
    load.stop();
  }
}

function rowForm(row: RelayPeersRowId): string | undefined {
  switch (row) {
    case 'argstream-relay':
      return formLabel(
        'relay',
        '`fromResponse(upstream, {provider}, new FieldEventStream({ keepProgress: false }), new EventStreamEncoder({ keepAliveMs: 15_000 }))`',
        '`fromResponse(upstream, {provider}, new FieldEventStream({ keepProgress: false })).pipeThrough(new EventStreamEncoder({ keepAliveMs: 15_000 }))`',
      );
    case 'argstream-usechat':
      return formLabel(
        'usechat',
        '`fromResponse(upstream, {provider}, new UIMessageStreamEncoder())`',
        '`fromResponse(upstream, {provider}).pipeThrough(new UIMessageStreamEncoder())`',
      );
    case 'argstream-usechat-persist':
      return 'piped (a `tee` of `fromResponse`\'s events; the fused form has no place for it)';
    default:
      return undefined;
  }
}
