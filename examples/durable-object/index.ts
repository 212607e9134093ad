/**
 * A relay that resumes on any instance, on Cloudflare Workers with a Durable Object per stream:
 *
 * - `POST /chat` `{ "prompt": … }` → Anthropic's Messages API (streaming, a `write_file` tool) →
 *   argstream → the stream kept in its Durable Object (`keepStream`, going on in `waitUntil` when
 *   the page leaves) and served from it (`serveStream`): Server-Sent Events, the stream's id in
 *   the `x-stream-id` header.
 * - `GET /chat/:id` with `Last-Event-ID` (or `?lastEventId=`): the rest of the stream, on any
 *   instance — the events after that id exactly once, then the live tail until the end. A page
 *   that loads with no id gets the turn so far as one snapshot event, then the tail.
 * - `POST /chat/:id/stop`: the stop button — the model's request is cancelled wherever it runs.
 *
 * Check that the caller may read or stop `:id` (the user's session owns it) where it says so:
 * a stream id is unguessable (128 random bits), but it is all a reader needs.
 */
import { eventLogErrorResponse, EventLogError, FieldEventStream, fromResponse, keepStream, newStreamId, serveStream, stopStream } from 'argstream';
import { DurableObjectEventLog, type DurableObjectNamespace } from './event-log.ts';

export { StreamLog } from './event-log.ts';

/** The configuration: bindings from `wrangler.toml` (`[vars]`, secrets, the Durable Object namespace). */
export interface Env {
  /** The namespace of `StreamLog` objects. */
  readonly STREAMS: DurableObjectNamespace;
  /** @default 'https://api.anthropic.com/v1/messages' */
  readonly ANTHROPIC_URL?: string | undefined;
  readonly ANTHROPIC_API_KEY?: string | undefined;
  /** @default 'claude-sonnet-5' */
  readonly ANTHROPIC_MODEL?: string | undefined;
  /** How long a stream stays after its end, in ms. @default '600000' */
  readonly STREAM_TTL_MS?: string | undefined;
  /** The producer's lease, in ms: a dead producer is reported this long after it stopped. @default '10000' */
  readonly LEASE_MS?: string | undefined;
  /** @default '15000' */
  readonly KEEP_ALIVE_MS?: string | undefined;
}

/** What a Worker's `fetch` gets as its third argument. */
export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

const WRITE_FILE = {
  name: 'write_file',
  description: 'Create or overwrite a file in the project.',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'Path relative to the project root' }, content: { type: 'string' } },
    required: ['path', 'content'],
  },
};

function problem(status: number, message: string): Response {
  return Response.json({ error: message }, { status });
}

export async function handleRequest(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const log = new DurableObjectEventLog(env.STREAMS, { ttlMs: Number(env.STREAM_TTL_MS ?? 600_000), leaseMs: Number(env.LEASE_MS ?? 10_000) });
  const keepAliveMs = Number(env.KEEP_ALIVE_MS ?? 15_000);
  const url = new URL(request.url);

  if (url.pathname === '/chat' && request.method === 'POST') {
    let prompt: unknown;
    try {
      prompt = ((await request.json()) as { prompt?: unknown }).prompt;
    } catch {
      return problem(400, 'the body must be JSON: { "prompt": "…" }');
    }
    if (typeof prompt !== 'string' || prompt === '') return problem(400, '"prompt" must be a non-empty string');
    const streamId = newStreamId();
    try {
      // The stream is opened in its Durable Object first; the model is asked only then. Its request
      // is not tied to this one (the model goes on when the page leaves): only a stop cancels it,
      // through the producer's signal.
      await keepStream(
        log,
        streamId,
        async (signal) => {
          const upstream = await fetch(env.ANTHROPIC_URL ?? 'https://api.anthropic.com/v1/messages', {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'anthropic-version': '2023-06-01',
              ...(env.ANTHROPIC_API_KEY === undefined ? {} : { 'x-api-key': env.ANTHROPIC_API_KEY }),
            },
            body: JSON.stringify({ model: env.ANTHROPIC_MODEL ?? 'claude-sonnet-5', max_tokens: 8192, stream: true, tools: [WRITE_FILE], messages: [{ role: 'user', content: prompt }] }),
            signal,
          });
          return fromResponse(upstream, { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false }));
        },
        { waitUntil: (p) => ctx.waitUntil(p) },
      );
    } catch (error) {
      return eventLogErrorResponse(error);
    }
    const response = await serveStream(log, streamId, request, { keepAliveMs });
    response.headers.set('x-stream-id', streamId);
    return response;
  }

  const match = /^\/chat\/([^/]+)(\/stop)?$/.exec(url.pathname);
  if (match !== null) {
    let streamId: string;
    try {
      streamId = decodeURIComponent(match[1] as string);
    } catch {
      // A malformed percent-encoding (`%E0%A4%A`) is a hostile id like any other: 400, not a 500.
      return eventLogErrorResponse(new EventLogError('invalid-id', 'the stream id in the path is not a valid percent-encoded string'));
    }
    // Here: check that the caller may read (or stop) streamId.
    if (match[2] !== undefined) return request.method === 'POST' ? stopStream(log, streamId) : problem(405, 'POST to stop');
    if (request.method === 'GET') return serveStream(log, streamId, request, { keepAliveMs });
  }
  return problem(404, 'POST /chat, GET /chat/:id, POST /chat/:id/stop');
}

/** The Cloudflare Worker module. */
export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext): Promise<Response> => handleRequest(request, env, ctx),
};
