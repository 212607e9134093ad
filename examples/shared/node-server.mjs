// @ts-check
/**
 * What the examples' local servers share (Node only, not part of any page): a scripted model that
 * streams Anthropic Messages SSE (or OpenAI Chat Completions SSE) with model-like pacing, and the
 * bridge that runs a web-standard edge function (Request in, Response out) on a Node HTTP request.
 */
import { createServer } from 'node:http';

/**
 * Model-sized pieces of `text` (3 to 10 characters).
 * @param {string} text
 */
export function deltas(text) {
  const out = [];
  for (let i = 0, n = 0; i < text.length; i += n) {
    n = 3 + ((i * 7) % 8);
    out.push(text.slice(i, i + n));
  }
  return out;
}

/**
 * A scripted Anthropic turn as SSE events: a sentence, then one `write_file` call per file.
 * @param {string} sentence
 * @param {ReadonlyArray<{ path: string, content: string }>} files
 */
export function scriptedTurn(sentence, files) {
  /** @type {(type: string, data: object) => string} */
  const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return [
    event('message_start', { message: { id: 'msg_scripted', type: 'message', role: 'assistant', content: [], model: 'scripted', stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...deltas(sentence).map((text) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
    event('content_block_stop', { index: 0 }),
    ...files.flatMap((input, i) => [
      event('content_block_start', { index: i + 1, content_block: { type: 'tool_use', id: `toolu_scripted_${i + 1}`, name: 'write_file', input: {} } }),
      ...deltas(JSON.stringify(input)).map((partial_json) => event('content_block_delta', { index: i + 1, delta: { type: 'input_json_delta', partial_json } })),
      event('content_block_stop', { index: i + 1 }),
    ]),
    event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 50 + 100 * files.length } }),
    event('message_stop', {}),
  ];
}

/**
 * A scripted OpenAI Chat Completions turn as SSE events: a sentence, then one `write_file` call
 * per file, all streaming at once: their argument fragments interleaved (one piece of each call in
 * turn, told apart by `tool_calls[].index`), as a gateway that translates another API may send
 * parallel calls.
 * @param {string} sentence
 * @param {ReadonlyArray<{ path: string, content: string }>} files
 */
export function scriptedOpenAITurn(sentence, files) {
  /** @type {(delta: object, finishReason?: string) => string} */
  const chunk = (delta, finishReason) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1767225600, model: 'scripted', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason ?? null }] })}\n\n`;
  const pieces = files.map((input) => deltas(JSON.stringify(input)));
  /** @type {string[]} */
  const calls = [];
  for (let round = 0; pieces.some((list) => round < list.length); round++) {
    pieces.forEach((list, index) => {
      if (round === 0) calls.push(chunk({ tool_calls: [{ index, id: `call_scripted_${index + 1}`, type: 'function', function: { name: 'write_file', arguments: '' } }] }));
      if (round < list.length) calls.push(chunk({ tool_calls: [{ index, function: { arguments: list[round] } }] }));
    });
  }
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...deltas(sentence).map((content) => chunk({ content })),
    ...calls,
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ];
}

/**
 * A local stand-in for a model's API (any path) that streams `events()` to each request, one every `delayMs`.
 * @param {() => string[]} events
 * @param {number} delayMs
 */
export async function startScriptedModel(events, delayMs) {
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const queue = events();
    let i = 0;
    const next = () => {
      if (response.destroyed) return;
      if (i === queue.length) return void response.end();
      response.write(queue[i++]);
      setTimeout(next, delayMs);
    };
    next();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}/v1/messages`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined)) && server.closeAllConnections()),
  };
}

/**
 * Run a web-standard handler on a Node request: web Request in, web Response out, streamed; when
 * the browser goes away the response body is cancelled (which cancels the model's request).
 * @param {(request: Request) => Promise<Response>} handle
 * @param {import('node:http').IncomingMessage} request
 * @param {import('node:http').ServerResponse} response
 */
export async function serveWeb(handle, request, response) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const aborted = new AbortController();
  response.on('close', () => aborted.abort());
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const webRequest = new Request(`http://127.0.0.1${request.url}`, {
    method: request.method ?? 'GET',
    headers,
    signal: aborted.signal,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
  const webResponse = await handle(webRequest);
  response.writeHead(webResponse.status, Object.fromEntries(webResponse.headers));
  if (webResponse.body === null) return void response.end();
  const reader = webResponse.body.getReader();
  response.on('close', () => void reader.cancel().catch(() => {}));
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) response.write(read.value);
  } catch {
    // Cancelled because the browser went away: nothing to answer.
  }
  response.end();
}
