// @ts-check
/**
 * The model of the example when no API key is given: a `fetch` for Anthropic's Messages API that
 * replays a recorded stream (recordings/*.sse, Anthropic's wire format) one SSE event at a time,
 * at a model's pace. Both servers take it as their `fetch`: the AI SDK's through
 * `createAnthropic({ fetch })`, argstream's for its upstream request.
 *
 * - A request whose last message carries a `tool_result` (the page saved the file, and the chat
 *   sent the result back) gets `after-tool-result.sse`: a sentence.
 * - Any other request gets `write-file.sse`: a sentence, then a `write_file` call of
 *   `src/main.rs` whose input streams in 3–11-character pieces.
 */
import { readFileSync } from 'node:fs';

const RECORDINGS = new URL('./recordings/', import.meta.url);

/** @param {string} name */
function recording(name) {
  return readFileSync(new URL(name, RECORDINGS), 'utf8').split(/(?<=\n\n)/);
}

/**
 * Whether the request's last message holds a tool result (Anthropic's request body).
 * @param {unknown} body
 */
function answersToolResult(body) {
  const messages = /** @type {{ messages?: Array<{ content?: unknown }> }} */ (body).messages ?? [];
  const last = messages[messages.length - 1]?.content;
  return Array.isArray(last) && last.some((block) => block?.type === 'tool_result');
}

/**
 * A `fetch` that answers every request with a recorded Messages stream.
 * @param {{ delayMs?: number }} [options] pacing, per event (default 20)
 * @returns {typeof fetch}
 */
export function recordedAnthropicFetch(options = {}) {
  const delayMs = options.delayMs ?? 20;
  return async (_input, init) => {
    const body = JSON.parse(String(init?.body ?? '{}'));
    const events = recording(answersToolResult(body) ? 'after-tool-result.sse' : 'write-file.sse');
    const signal = init?.signal ?? undefined;
    const utf8 = new TextEncoder();
    let i = 0;
    const stream = new ReadableStream({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (signal?.aborted) return controller.error(signal.reason);
        const event = events[i++];
        if (event === undefined) controller.close();
        else controller.enqueue(utf8.encode(event));
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_recorded' } });
  };
}
