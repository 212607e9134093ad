/**
 * A local HTTP server that replays a recorded provider response on the provider's own endpoint
 * path, so that an official SDK (pointed at it with its base URL option) or `fetch` can talk to
 * it as to the real API. Node only (`node:http`); what `argstream replay` runs.
 *
 * @module
 */
/// <reference types="node" />
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderName } from '../errors.ts';
import { guessProvider } from './guess-provider.ts';

export { guessProvider };

/** A provider whose wire format the replay server can serve (every provider API; not the AI SDK's streams, AG-UI's, nor LangChain's objects). */
export type ReplayProvider = Exclude<ProviderName, 'ai-sdk' | 'ai-sdk-ui' | 'ag-ui' | 'langchain'>;

/** Options of {@link startReplayServer}. */
export interface ReplayServerOptions {
  /** The recorded response body, as the provider sent it. */
  readonly recording: Uint8Array;
  /** The provider API the recording comes from: it chooses the path, the content type and the framing. */
  readonly provider: ReplayProvider;
  /**
   * The address to listen on.
   * @default '127.0.0.1' (loopback only)
   */
  readonly host?: string;
  /**
   * The port to listen on; `0` takes a free one (read it from {@link ReplayServer.url}).
   * @default 0
   */
  readonly port?: number;
  /**
   * Milliseconds to wait between two writes of the body, to pace the replay like a live stream.
   * @default 0
   */
  readonly chunkDelayMs?: number;
  /**
   * Bytes per write. By default each write is one provider event: one SSE event (up to and with
   * its blank line), one NDJSON line, one AWS event-stream frame.
   */
  readonly chunkSize?: number;
  /**
   * The HTTP status to answer with. At 400 or above the recording is sent whole as the error
   * body (`application/json` when it parses as JSON, else `text/plain`).
   * @default 200
   */
  readonly status?: number;
  /** Extra response headers (e.g. Bedrock's `x-amzn-errortype` with an error status). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A running replay server. */
export interface ReplayServer {
  /** Where it listens, without a trailing slash: `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The endpoint paths it answers, e.g. `['POST /v1/messages']` (patterns shown with `{model}`). */
  readonly endpoints: readonly string[];
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

interface Endpoint {
  /** How the path is shown in messages. */
  readonly display: string;
  readonly pattern: RegExp;
}

const ENDPOINTS: Readonly<Record<ReplayProvider, readonly Endpoint[]>> = {
  anthropic: [{ display: 'POST /v1/messages', pattern: /^(?:\/v1)?\/messages$/ }],
  'openai-chat': [
    // Any prefix: `/v1/chat/completions`, OpenAI-compatible servers' `/openai/v1/…`, Azure deployments.
    { display: 'POST /v1/chat/completions', pattern: /(?:^|\/)chat\/completions$/ },
  ],
  'openai-responses': [{ display: 'POST /v1/responses', pattern: /(?:^|\/)responses$/ }],
  gemini: [
    {
      display: 'POST /v1beta/models/{model}:streamGenerateContent?alt=sse',
      pattern: /\/models\/[^/]+:streamGenerateContent$/,
    },
  ],
  ollama: [
    { display: 'POST /api/chat', pattern: /^\/api\/chat$/ },
    { display: 'POST /api/generate', pattern: /^\/api\/generate$/ },
  ],
  bedrock: [{ display: 'POST /model/{modelId}/converse-stream', pattern: /^\/model\/[^/]+\/converse-stream$/ }],
  cohere: [{ display: 'POST /v2/chat', pattern: /^\/v2\/chat$/ }],
  'gemini-interactions': [{ display: 'POST /v1beta/interactions', pattern: /(?:^|\/)interactions$/ }],
};

const CONTENT_TYPES: Readonly<Record<ReplayProvider, string>> = {
  anthropic: 'text/event-stream; charset=utf-8',
  'openai-chat': 'text/event-stream; charset=utf-8',
  'openai-responses': 'text/event-stream; charset=utf-8',
  gemini: 'text/event-stream; charset=utf-8',
  ollama: 'application/x-ndjson',
  bedrock: 'application/vnd.amazon.eventstream',
  cohere: 'text/event-stream; charset=utf-8',
  'gemini-interactions': 'text/event-stream; charset=utf-8',
};

/**
 * Starts a server that answers `POST` on the provider's endpoint path with the recording, and
 * 404 (with a JSON body saying which path it serves) anywhere else. The request body is read and
 * ignored. It listens on 127.0.0.1 and a free port unless told otherwise.
 *
 * | provider | path | content type |
 * |---|---|---|
 * | `anthropic` | `/v1/messages` | `text/event-stream` |
 * | `openai-chat` | `/v1/chat/completions` (any prefix) | `text/event-stream` |
 * | `openai-responses` | `/v1/responses` (any prefix) | `text/event-stream` |
 * | `gemini` | `…/models/{model}:streamGenerateContent` (`?alt=sse`) | `text/event-stream` |
 * | `ollama` | `/api/chat`, `/api/generate` | `application/x-ndjson` |
 * | `bedrock` | `/model/{modelId}/converse-stream` | `application/vnd.amazon.eventstream` |
 * | `cohere` | `/v2/chat` | `text/event-stream` |
 * | `gemini-interactions` | `/v1beta/interactions` (any prefix) | `text/event-stream` |
 *
 * @throws {TypeError} for a provider without a wire format (`'ai-sdk'`) or an unknown one.
 * @throws {RangeError} for a `chunkSize` or `chunkDelayMs` that is not a non-negative number.
 *
 * @example
 * ```ts
 * const server = await startReplayServer({ recording: await readFile('turn.sse'), provider: 'anthropic' });
 * const client = new Anthropic({ apiKey: 'replay', baseURL: server.url, maxRetries: 0 });
 * const message = await client.messages.stream({ model: 'replay', max_tokens: 1024, messages }).finalMessage();
 * await server.close();
 * ```
 */
export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  const provider = options.provider;
  const endpoints = (ENDPOINTS as Readonly<Record<string, readonly Endpoint[] | undefined>>)[provider];
  if (endpoints === undefined) {
    throw new TypeError(
      `startReplayServer: cannot replay provider ${JSON.stringify(provider)}; use one of ${Object.keys(ENDPOINTS).join(', ')}`,
    );
  }
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  if (!(chunkDelayMs >= 0)) throw new RangeError(`startReplayServer: chunkDelayMs must be ≥ 0, got ${String(chunkDelayMs)}`);
  if (options.chunkSize !== undefined && !(Number.isInteger(options.chunkSize) && options.chunkSize > 0)) {
    throw new RangeError(`startReplayServer: chunkSize must be a positive integer, got ${String(options.chunkSize)}`);
  }
  const status = options.status ?? 200;
  if (!(Number.isInteger(status) && status >= 200 && status <= 599)) {
    throw new RangeError(`startReplayServer: status must be an HTTP status from 200 to 599, got ${String(status)}`);
  }
  const recording = options.recording;
  const isError = status >= 400;
  const chunks = isError
    ? [recording]
    : options.chunkSize !== undefined
      ? splitEvery(recording, options.chunkSize)
      : splitEvents(recording, provider);
  const errorContentType = isJson(recording) ? 'application/json' : 'text/plain; charset=utf-8';

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // SDKs send a JSON body; read it whole so the client never meets a reset while it writes.
    for await (const _ of request) {
      // discarded
    }
    const path = new URL(request.url ?? '/', 'http://replay.invalid').pathname;
    const matches = (endpoints as readonly Endpoint[]).some((endpoint) => endpoint.pattern.test(path));
    if (!matches || request.method !== 'POST') {
      const message = `argstream replay serves the ${provider} recording at ${(endpoints as readonly Endpoint[])
        .map((endpoint) => endpoint.display)
        .join(' and ')}; got ${request.method ?? '?'} ${path}`;
      const body = JSON.stringify({ error: { type: 'not_found', message } });
      response.writeHead(matches ? 405 : 404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
      return;
    }
    if (isError) {
      response.writeHead(status, { 'content-type': errorContentType, 'content-length': recording.byteLength, ...options.headers });
      response.end(recording);
      return;
    }
    response.writeHead(status, {
      'content-type': CONTENT_TYPES[provider],
      'cache-control': 'no-cache',
      ...options.headers,
    });
    let closed = false;
    response.on('close', () => {
      closed = true;
    });
    for (let i = 0; i < chunks.length && !closed; i++) {
      if (i > 0 && chunkDelayMs > 0) await delay(chunkDelayMs);
      if (closed) break;
      if (!response.write(chunks[i])) await drained(response);
    }
    if (!closed) response.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    endpoints: (endpoints as readonly Endpoint[]).map((endpoint) => endpoint.display),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

function isJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** `bytes` cut every `size` bytes. */
export function splitEvery(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, Math.min(bytes.length, i + size)));
  return chunks;
}

/**
 * `bytes` cut after each provider event: after the blank line that ends an SSE event (CRLF, LF
 * or CR line ends), after each NDJSON line, after each AWS event-stream frame. What follows the
 * last complete event (a recording cut mid-event) is one last chunk.
 */
export function splitEvents(bytes: Uint8Array, provider: ReplayProvider): Uint8Array[] {
  const ends = provider === 'bedrock' ? frameEnds(bytes) : provider === 'ollama' ? lineEnds(bytes) : sseEventEnds(bytes);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const end of ends) {
    if (end > start) chunks.push(bytes.subarray(start, end));
    start = end;
  }
  if (start < bytes.length) chunks.push(bytes.subarray(start));
  return chunks;
}

const LF = 0x0a;
const CR = 0x0d;

function lineEnds(bytes: Uint8Array): number[] {
  const ends: number[] = [];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === LF) ends.push(i + 1);
  return ends;
}

function sseEventEnds(bytes: Uint8Array): number[] {
  const ends: number[] = [];
  let lineIsEmpty = true;
  let sawContent = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte !== LF && byte !== CR) {
      lineIsEmpty = false;
      sawContent = true;
      continue;
    }
    // A line ends here (CRLF counts once).
    if (byte === CR && bytes[i + 1] === LF) i++;
    if (lineIsEmpty && sawContent) {
      ends.push(i + 1);
      sawContent = false;
    }
    lineIsEmpty = true;
  }
  return ends;
}

function frameEnds(bytes: Uint8Array): number[] {
  const ends: number[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset + 16 <= bytes.length) {
    const length = view.getUint32(offset);
    if (length < 16 || offset + length > bytes.length) break;
    offset += length;
    ends.push(offset);
  }
  return ends;
}
