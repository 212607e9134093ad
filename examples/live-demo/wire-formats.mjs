// @ts-check
// The demo's scripted turn — some text, then one tool call — as the response body each provider
// API streams: the same events a real server sends, cut into model-sized deltas. The embedded
// server of `live-demo.mjs` writes these chunks one by one.
import { eventFrame } from './aws-event-stream.mjs';

/** @typedef {import('argstream').ProviderName} ProviderName */
/** @typedef {{ id: string, name: string, arguments: Record<string, unknown> }} ScriptedCall */
/** @typedef {{ text: string, call: ScriptedCall, usage: { input: number, output: number } }} ScriptedTurn */
/**
 * @typedef {object} ScriptedResponse
 * @property {string} path         the API's endpoint path
 * @property {string} contentType  the response's content type
 * @property {Array<string | Uint8Array>} chunks  the body, one chunk per event as the server sends it
 * @property {boolean} wholeCalls  the API sends each tool call whole (no argument deltas)
 */

/** @type {readonly ProviderName[]} */
export const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock'];

/**
 * Cut text into model-sized deltas (3 to 10 characters).
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
 * The scripted turn in the wire format of `provider`.
 * @param {ProviderName} provider
 * @param {ScriptedTurn} turn
 * @returns {ScriptedResponse}
 */
export function scriptedResponse(provider, turn) {
  switch (provider) {
    case 'anthropic':
      return { path: '/v1/messages', contentType: 'text/event-stream', chunks: [...anthropic(turn)], wholeCalls: false };
    case 'openai-chat':
      return { path: '/v1/chat/completions', contentType: 'text/event-stream', chunks: [...openaiChat(turn)], wholeCalls: false };
    case 'openai-responses':
      return { path: '/v1/responses', contentType: 'text/event-stream', chunks: [...openaiResponses(turn)], wholeCalls: false };
    case 'gemini':
      return {
        path: '/v1/projects/demo/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
        contentType: 'text/event-stream',
        chunks: [...gemini(turn)],
        wholeCalls: false,
      };
    case 'ollama':
      return { path: '/api/chat', contentType: 'application/x-ndjson', chunks: [...ollama(turn)], wholeCalls: true };
    case 'bedrock':
      return { path: '/model/demo/converse-stream', contentType: 'application/vnd.amazon.eventstream', chunks: [...bedrock(turn)], wholeCalls: false };
    default:
      throw new Error(`no scripted turn for ${provider}`);
  }
}

/**
 * Anthropic Messages: named SSE events, a content block per text and tool call, the arguments as
 * `input_json_delta` pieces.
 * @param {ScriptedTurn} turn
 */
function* anthropic(turn) {
  /** @type {(type: string, data: object) => string} */
  const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  yield event('message_start', { message: { id: 'msg_demo', type: 'message', role: 'assistant', content: [], model: 'claude-demo', stop_reason: null, stop_sequence: null, usage: { input_tokens: turn.usage.input, output_tokens: 1 } } });
  yield event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  for (const text of deltas(turn.text)) yield event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  yield event('content_block_stop', { index: 0 });
  yield event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: turn.call.id, name: turn.call.name, input: {} } });
  for (const partial_json of deltas(JSON.stringify(turn.call.arguments))) yield event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json } });
  yield event('content_block_stop', { index: 1 });
  yield event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: turn.usage.output } });
  yield event('message_stop', {});
}

/**
 * OpenAI Chat Completions: `data:` chunks with `choices[0].delta`, the call's id and name in its
 * first delta, a usage chunk (`stream_options.include_usage`), then `[DONE]`.
 * @param {ScriptedTurn} turn
 */
function* openaiChat(turn) {
  const base = { id: 'chatcmpl-demo', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-demo' };
  /** @type {(delta: object, finish_reason?: string | null) => string} */
  const chunk = (delta, finish_reason = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  yield chunk({ role: 'assistant', content: '' });
  for (const content of deltas(turn.text)) yield chunk({ content });
  yield chunk({ tool_calls: [{ index: 0, id: turn.call.id, type: 'function', function: { name: turn.call.name, arguments: '' } }] });
  for (const args of deltas(JSON.stringify(turn.call.arguments))) yield chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] });
  yield chunk({}, 'tool_calls');
  const usage = { prompt_tokens: turn.usage.input, completion_tokens: turn.usage.output, total_tokens: turn.usage.input + turn.usage.output };
  yield `data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`;
  yield 'data: [DONE]\n\n';
}

/**
 * OpenAI Responses: typed SSE events around output items — a `message` item with its text, a
 * `function_call` item with `function_call_arguments.delta` events — and `response.completed`.
 * @param {ScriptedTurn} turn
 */
function* openaiResponses(turn) {
  let sequence_number = 0;
  /** @type {(type: string, data: object) => string} */
  const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence_number++, ...data })}\n\n`;
  const response = { id: 'resp_demo', object: 'response', created_at: 1767225600, model: 'gpt-demo', output: [], usage: null };
  const text = { type: 'output_text', text: turn.text, annotations: [] };
  const message = { type: 'message', id: 'msg_demo', status: 'completed', role: 'assistant', content: [text] };
  const argumentText = JSON.stringify(turn.call.arguments);
  const call = { type: 'function_call', id: 'fc_demo', call_id: turn.call.id, name: turn.call.name, arguments: argumentText, status: 'completed' };
  yield event('response.created', { response: { ...response, status: 'in_progress' } });
  yield event('response.in_progress', { response: { ...response, status: 'in_progress' } });
  yield event('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } });
  yield event('response.content_part.added', { item_id: 'msg_demo', output_index: 0, content_index: 0, part: { ...text, text: '' } });
  for (const delta of deltas(turn.text)) yield event('response.output_text.delta', { item_id: 'msg_demo', output_index: 0, content_index: 0, delta, logprobs: [] });
  yield event('response.output_text.done', { item_id: 'msg_demo', output_index: 0, content_index: 0, text: turn.text, logprobs: [] });
  yield event('response.content_part.done', { item_id: 'msg_demo', output_index: 0, content_index: 0, part: text });
  yield event('response.output_item.done', { output_index: 0, item: message });
  yield event('response.output_item.added', { output_index: 1, item: { ...call, arguments: '', status: 'in_progress' } });
  for (const delta of deltas(argumentText)) yield event('response.function_call_arguments.delta', { item_id: 'fc_demo', output_index: 1, delta });
  yield event('response.function_call_arguments.done', { item_id: 'fc_demo', output_index: 1, arguments: argumentText });
  yield event('response.output_item.done', { output_index: 1, item: call });
  const usage = { input_tokens: turn.usage.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: turn.usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: turn.usage.input + turn.usage.output };
  yield event('response.completed', { response: { ...response, status: 'completed', output: [message, call], usage } });
}

/**
 * Gemini on Vertex AI with streamed function-call arguments (`streamFunctionCallArguments`):
 * `data:` chunks with CRLF separators; the call starts with its name, then `partialArgs` pieces
 * per JSON path (strings in pieces while `willContinue`), and ends with an empty `functionCall`.
 * (The Gemini API without Vertex sends each call whole.)
 * @param {ScriptedTurn} turn
 */
function* gemini(turn) {
  /** @type {(parts: object[], extra?: object) => string} */
  const chunk = (parts, extra = {}) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, ...extra }], usageMetadata: { trafficType: 'ON_DEMAND' }, modelVersion: 'gemini-2.5-pro', responseId: 'demo' })}\r\n\r\n`;
  for (const text of deltas(turn.text)) yield chunk([{ text }]);
  yield chunk([{ functionCall: { name: turn.call.name, willContinue: true } }]);
  for (const [key, value] of Object.entries(turn.call.arguments)) {
    const jsonPath = `$.${key}`;
    /** @type {(arg: object) => string} */
    const partial = (arg) => chunk([{ functionCall: { partialArgs: [{ jsonPath, ...arg }], willContinue: true } }]);
    if (typeof value === 'string') {
      for (const stringValue of deltas(value)) yield partial({ stringValue, willContinue: true });
      yield partial({ stringValue: '' }); // closes the string
    } else if (typeof value === 'boolean') yield partial({ boolValue: value });
    else if (typeof value === 'number') yield partial({ numberValue: value });
    else throw new Error(`the demo's Gemini script streams strings, numbers and booleans, not ${JSON.stringify(value)}`);
  }
  const end = `data: ${JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ functionCall: {} }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: turn.usage.input, candidatesTokenCount: turn.usage.output, totalTokenCount: turn.usage.input + turn.usage.output, trafficType: 'ON_DEMAND' },
    modelVersion: 'gemini-2.5-pro',
    responseId: 'demo',
  })}\r\n\r\n`;
  yield end;
}

/**
 * Ollama's native `/api/chat`: one JSON object per line; text in `message.content`, each tool call
 * whole (arguments as an object), then `done: true` with the counts.
 * @param {ScriptedTurn} turn
 */
function* ollama(turn) {
  const base = { model: 'llama-demo', created_at: '2026-01-01T00:00:00Z' };
  /** @type {(message: object, extra?: object) => string} */
  const line = (message, extra = { done: false }) => `${JSON.stringify({ ...base, message: { role: 'assistant', ...message }, ...extra })}\n`;
  for (const content of deltas(turn.text)) yield line({ content });
  yield line({ content: '', tool_calls: [{ id: turn.call.id, function: { index: 0, name: turn.call.name, arguments: turn.call.arguments } }] });
  yield line({ content: '' }, { done: true, done_reason: 'stop', prompt_eval_count: turn.usage.input, eval_count: turn.usage.output });
}

/**
 * Bedrock ConverseStream: AWS event-stream binary frames; text deltas on block 0 (no start
 * event), the tool call's id and name in `contentBlockStart`, its input as `toolUse.input`
 * pieces, `messageStop`, then `metadata` with the usage.
 * @param {ScriptedTurn} turn
 */
function* bedrock(turn) {
  yield eventFrame('messageStart', { role: 'assistant' });
  for (const text of deltas(turn.text)) yield eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text } });
  yield eventFrame('contentBlockStop', { contentBlockIndex: 0 });
  yield eventFrame('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: turn.call.id, name: turn.call.name } } });
  for (const input of deltas(JSON.stringify(turn.call.arguments))) yield eventFrame('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input } } });
  yield eventFrame('contentBlockStop', { contentBlockIndex: 1 });
  yield eventFrame('messageStop', { stopReason: 'tool_use' });
  yield eventFrame('metadata', { usage: { inputTokens: turn.usage.input, outputTokens: turn.usage.output, totalTokens: turn.usage.input + turn.usage.output }, metrics: { latencyMs: 1200 } });
}
