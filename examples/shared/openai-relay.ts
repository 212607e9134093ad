/**
 * The relay of examples/edge-function for OpenAI's Chat Completions API and the servers that speak
 * it (OpenRouter, vLLM, Ollama's `/v1`, gateways in front of other models): POST `{ "prompt": … }`
 * → `/v1/chat/completions` (streaming, with the same `write_file` tool) → argstream → Server-Sent
 * Events, the same events the edge function sends, so the pages read either one.
 *
 * Parallel calls in this API are told apart by `delta.tool_calls[].index` only (the id comes once,
 * in a call's first fragment), and nothing in the protocol keeps one call's fragments together:
 * OpenAI sends one call after the other, but a gateway that translates another API may interleave
 * them. The `openai-chat` adapter keys each fragment by its index, and every event that leaves
 * here names its call, so two files stream side by side on the page.
 *
 * examples/shared/serve.mjs serves it at `POST /api/openai/chat` (open a page with
 * `?endpoint=/api/openai/chat`); a web-standard handler like the edge function, it deploys the same
 * way.
 */
import { EVENT_STREAM_HEADERS, EventStreamEncoder, FieldEventStream, fromResponse } from 'argstream';

/** The configuration, from the environment. */
export interface Env {
  /** The Chat Completions endpoint. @default 'https://api.openai.com/v1/chat/completions' */
  readonly OPENAI_URL?: string | undefined;
  /** The API key, sent as `Authorization: Bearer …`. */
  readonly OPENAI_API_KEY?: string | undefined;
  /** @default 'gpt-4.1' */
  readonly OPENAI_MODEL?: string | undefined;
  /** Milliseconds without output before a `: keep-alive` comment (see the edge function). @default '15000' */
  readonly KEEP_ALIVE_MS?: string | undefined;
}

/** The tool the model is offered: the edge function's `write_file`, as a Chat Completions function. */
const WRITE_FILE = {
  type: 'function',
  function: {
    name: 'write_file',
    description: 'Create or overwrite a file in the project.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the project root' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
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

  const upstream = await fetch(env.OPENAI_URL ?? 'https://api.openai.com/v1/chat/completions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(env.OPENAI_API_KEY === undefined ? {} : { authorization: `Bearer ${env.OPENAI_API_KEY}` }),
    },
    body: JSON.stringify({
      model: env.OPENAI_MODEL ?? 'gpt-4.1',
      stream: true,
      stream_options: { include_usage: true },
      parallel_tool_calls: true,
      tools: [WRITE_FILE],
      messages: [{ role: 'user', content: prompt }],
    }),
    signal: request.signal,
  });

  const events = fromResponse(upstream, { provider: 'openai-chat' }, new FieldEventStream({ keepProgress: false })).pipeThrough(
    new EventStreamEncoder({ keepAliveMs: Number(env.KEEP_ALIVE_MS ?? 15_000) }),
  );
  return new Response(events, { headers: EVENT_STREAM_HEADERS });
}
