/**
 * An edge function that relays a model's streaming tool calls to a browser: POST `{ "prompt": … }`
 * → Anthropic's Messages API (streaming, with a `write_file` tool) → argstream → Server-Sent
 * Events, field by field, as the model writes them.
 *
 * A web-standard `fetch(request, env)` handler: the default export is a Cloudflare Worker module
 * (`wrangler dev`), and `vercel.ts` serves the same handler as a Vercel Edge Function. See README.md.
 *
 * What the browser receives (decode it with `EventStreamDecoder`, as `examples/browser/` does):
 * text as `part` events, each tool call's top-level fields as `field-start` / `field-delta` /
 * `field-end` while they stream, the call's exact arguments as a `tool-call` event, `finished`,
 * then `end` — or, if the provider fails (an HTTP error status, an error inside the stream), an
 * `error` event carrying the `ProviderError`.
 */
import { EVENT_STREAM_HEADERS, EventStreamEncoder, FieldEventStream, fromResponse } from 'argstream';

/** The configuration: Worker bindings (`wrangler.toml` `[vars]`, secrets) or `process.env` on Vercel. */
export interface Env {
  /** The Messages endpoint. @default 'https://api.anthropic.com/v1/messages' */
  readonly ANTHROPIC_URL?: string | undefined;
  /** The API key (a secret: `wrangler secret put ANTHROPIC_API_KEY`). */
  readonly ANTHROPIC_API_KEY?: string | undefined;
  /** @default 'claude-sonnet-5' */
  readonly ANTHROPIC_MODEL?: string | undefined;
  /**
   * Milliseconds without output before a `: keep-alive` comment. Besides keeping proxies from
   * closing an idle stream, a write is how some runtimes (workerd, edge-runtime) notice that the
   * browser went away — and then cancel the provider request.
   * @default '15000'
   */
  readonly KEEP_ALIVE_MS?: string | undefined;
}

/** The tool the model is offered. */
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

/** POST `{ "prompt": string }` → an event stream of the model's turn. */
export async function handleRequest(request: Request, env: Env): Promise<Response> {
  if (request.method !== 'POST') return problem(405, 'POST a JSON body { "prompt": "…" }');
  let prompt: unknown;
  try {
    prompt = ((await request.json()) as { prompt?: unknown }).prompt;
  } catch {
    return problem(400, 'the body must be JSON: { "prompt": "…" }');
  }
  if (typeof prompt !== 'string' || prompt === '') return problem(400, '"prompt" must be a non-empty string');

  // The upstream request ends when the browser goes away: the signal, and the encoder cancelling
  // the pipe when its reader cancels.
  const upstream = await fetch(env.ANTHROPIC_URL ?? 'https://api.anthropic.com/v1/messages', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      ...(env.ANTHROPIC_API_KEY === undefined ? {} : { 'x-api-key': env.ANTHROPIC_API_KEY }),
    },
    body: JSON.stringify({
      model: env.ANTHROPIC_MODEL ?? 'claude-sonnet-5',
      max_tokens: 8192,
      stream: true,
      tools: [WRITE_FILE],
      messages: [{ role: 'user', content: prompt }],
    }),
    signal: request.signal,
  });

  // An HTTP error status becomes a ProviderError at the first read, which the encoder sends to
  // the browser as an `error` event: the response itself is a 200 event stream either way.
  // FieldEventStream runs inside fromResponse's read (no stream hop); the encoder is its own hop.
  // The browser draws the field events: the progress they were made from stays on the server.
  const events = fromResponse(upstream, { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false })).pipeThrough(
    new EventStreamEncoder({ keepAliveMs: Number(env.KEEP_ALIVE_MS ?? 15_000) }),
  );
  return new Response(events, { headers: EVENT_STREAM_HEADERS });
}

/** The Cloudflare Worker module. */
export default {
  fetch: (request: Request, env: Env): Promise<Response> => handleRequest(request, env),
};
