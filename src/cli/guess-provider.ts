/**
 * Which provider API a recorded response comes from, read from its content. Portable (no
 * `node:` import), used by the CLI when `--provider` is absent.
 *
 * @module
 */
import type { ProviderName } from '../errors.ts';
import { crc32 } from '../providers/aws-event-stream.ts';

/** How much of the recording is read to guess. */
const HEAD_BYTES = 64 * 1024;
/** How many records are looked at before giving up. */
const MAX_RECORDS = 20;

/**
 * Guesses the provider API of a recorded response body from its content: an AWS event-stream
 * frame (a valid prelude CRC) is Bedrock; otherwise the first JSON records — SSE `data:` (and
 * `event:` names), NDJSON lines (Ollama, or the NDJSON an SDK's `toReadableStream()` writes), or
 * an HTTP error body — are matched against each API's event shapes:
 *
 * - `message_start`, `content_block_*`, `ping`, or an error body `{"type":"error",…}`: `anthropic`
 * - `response.*` types: `openai-responses`
 * - `chat.completion.chunk` objects, or `choices` arrays: `openai-chat`
 * - `candidates` / `usageMetadata`, or an error `{"error":{"code","message","status"}}`: `gemini`
 * - `done` with `message` or `response`, or `{"error":"…"}`: `ollama`
 * - `message-start`, `content-*`, `tool-plan-delta`, `tool-call-*`, `citation-*`, `message-end`
 *   types: `cohere`
 * - `interaction.*`, `step.*` or `content.*` event types (in `event_type` or the SSE `event:`
 *   name): `gemini-interactions`
 * - the AI SDK's UI message stream chunks (`start`, `start-step`, `text-*`, `reasoning-*`,
 *   `tool-input-*`, `tool-output-*`, `finish-step`, `finish`, `message-metadata`, `abort`, or an
 *   `error` with `errorText`): `ai-sdk-ui`
 * - AG-UI's event types (`RUN_STARTED`, `TEXT_MESSAGE_*`, `TOOL_CALL_*`, … in capitals): `ag-ui`
 *
 * Returns `undefined` when nothing matches (an OpenAI error body `{"error":{"message","type"}}`
 * is `openai-chat`; pass the provider explicitly for the Responses API).
 */
export function guessProvider(recording: Uint8Array | string): Exclude<ProviderName, 'ai-sdk' | 'langchain'> | undefined {
  if (typeof recording !== 'string') {
    if (isAwsFrame(recording)) return 'bedrock';
    recording = new TextDecoder('utf-8').decode(recording.subarray(0, HEAD_BYTES));
  } else {
    recording = recording.slice(0, HEAD_BYTES);
  }
  const text = recording.replace(/^\uFEFF/, '');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const whole = parseJson(trimmed.trimEnd());
    if (whole !== undefined) {
      const guess = Array.isArray(whole) ? guessRecord(whole[0], undefined) : guessRecord(whole, undefined);
      if (guess !== undefined) return guess;
    }
    for (const line of trimmed.split(/\r?\n/).slice(0, MAX_RECORDS)) {
      const guess = guessRecord(parseJson(line), undefined);
      if (guess !== undefined) return guess;
    }
    return undefined;
  }
  let event: string | undefined;
  let data: string[] = [];
  let records = 0;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) {
        const guess = guessRecord(parseJson(data.join('\n')), event);
        if (guess !== undefined) return guess;
        if (++records >= MAX_RECORDS) return undefined;
      } else if (event !== undefined) {
        const guess = guessEventName(event);
        if (guess !== undefined) return guess;
      }
      event = undefined;
      data = [];
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) return guessRecord(parseJson(data.join('\n')), event) ?? (event === undefined ? undefined : guessEventName(event));
  return event === undefined ? undefined : guessEventName(event);
}

function isAwsFrame(bytes: Uint8Array): boolean {
  if (bytes.length < 16) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const total = view.getUint32(0);
  const headers = view.getUint32(4);
  return total >= 16 && headers <= total - 16 && view.getUint32(8) === crc32(bytes, 0, 8);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function guessEventName(event: string): Exclude<ProviderName, 'ai-sdk' | 'langchain'> | undefined {
  if (/^(?:message_start|message_delta|message_stop|content_block_(?:start|delta|stop)|ping)$/.test(event)) return 'anthropic';
  if (event.startsWith('response.')) return 'openai-responses';
  if (/^(?:message-(?:start|end)|content-(?:start|delta|end)|tool-plan-delta|tool-call-(?:start|delta|end)|citation-(?:start|end))$/.test(event)) {
    return 'cohere';
  }
  if (/^(?:interaction\.(?:created|start|status_update|completed|complete)|step\.(?:start|delta|stop)|content\.(?:start|delta|stop))$/.test(event)) {
    return 'gemini-interactions';
  }
  return undefined;
}

/** The chunk types of the AI SDK's UI message stream (what an AI SDK server sends to `useChat`). */
const AI_SDK_UI_TYPES = /^(?:start|start-step|finish-step|finish|abort|message-metadata|(?:text|reasoning)-(?:start|delta|end)|tool-input-(?:start|delta|available|error)|tool-output-(?:available|error))$/;

/** AG-UI's event types: `RUN_STARTED`, `TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS`, … */
const AG_UI_TYPES = /^(?:RUN|STEP|TEXT_MESSAGE|TOOL_CALL|REASONING|STATE|MESSAGES|ACTIVITY|SUBAGENT)_[A-Z_]+$|^(?:RAW|CUSTOM)$/;

function guessRecord(record: unknown, event: string | undefined): Exclude<ProviderName, 'ai-sdk' | 'langchain'> | undefined {
  if (!isObject(record)) return event === undefined ? undefined : guessEventName(event);
  // Gemini's Interactions API names each event in `event_type` (its `error` event too).
  if (typeof record['event_type'] === 'string') {
    const byEventType = record['event_type'] === 'error' ? 'gemini-interactions' : guessEventName(record['event_type']);
    if (byEventType !== undefined) return byEventType;
  }
  const type = typeof record['type'] === 'string' ? record['type'] : undefined;
  if (type !== undefined) {
    if (type === 'error' && isObject(record['error'])) return 'anthropic';
    if (AG_UI_TYPES.test(type)) return 'ag-ui';
    if (event === undefined && (AI_SDK_UI_TYPES.test(type) || (type === 'error' && typeof record['errorText'] === 'string'))) return 'ai-sdk-ui';
    const byType = guessEventName(type);
    if (byType !== undefined) return byType;
  }
  if (record['object'] === 'chat.completion.chunk' || Array.isArray(record['choices'])) return 'openai-chat';
  if (Array.isArray(record['candidates']) || isObject(record['usageMetadata'])) return 'gemini';
  if (typeof record['done'] === 'boolean' && (isObject(record['message']) || typeof record['response'] === 'string')) return 'ollama';
  const error = record['error'];
  if (typeof error === 'string') return 'ollama';
  if (isObject(error)) {
    if (typeof error['status'] === 'string' && typeof error['code'] === 'number') return 'gemini';
    if (typeof error['message'] === 'string') return 'openai-chat';
  }
  return event === undefined ? undefined : guessEventName(event);
}
