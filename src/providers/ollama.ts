/**
 * The adapter of Ollama's native streaming API (`/api/chat`, and `/api/generate`): NDJSON lines
 * with whole tool calls. Ollama's OpenAI-compatible `/v1` endpoint is `'openai-chat'`.
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { FinishReason, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, partEvent, providerErrorOf } from './adapter.ts';
import { type JsonRecord, isRecord, jsonTextOf, nonEmptyString, nonEmptyStringAt, numberAt, recordAt, usageOf } from './json-access.ts';
import { defaultToolCallId, type ToolCallIdFactory } from './tool-call-id.ts';

/** Options of {@link createOllamaAdapter}. */
export interface OllamaAdapterOptions {
  /**
   * Makes the id of a tool call that arrives without one (servers before `id` was added, and the
   * docs' examples).
   * @default defaultToolCallId — `call_<position>_<name>`
   */
  readonly createToolCallId?: ToolCallIdFactory;
}

/** The fields of the `done: true` line that are kept as raw usage. */
const USAGE_FIELDS = [
  'prompt_eval_count',
  'eval_count',
  'total_duration',
  'load_duration',
  'prompt_eval_duration',
  'eval_duration',
] as const;

/**
 * Create the adapter of the `'ollama'` wire format: one parsed NDJSON line per
 * {@link ProviderAdapter.push} (or a chunk the `ollama` SDK yields).
 *
 * - `message.content` (or `/api/generate`'s `response`) is message text and `message.thinking`
 *   (`thinking`) reasoning, each in one slot flushed at `done: true`.
 * - A tool call arrives whole: a slot of its own with `tool-call-start`, one chunk of
 *   `JSON.stringify(arguments)` (a string is passed on verbatim; a missing or empty one emits no
 *   chunk, which downstream reads as `{}`), and an immediate flush. Missing ids come from
 *   `createToolCallId` (position = arrival order); `""` names are kept as `""`.
 * - At `done: true`: every slot is flushed and `finished` emitted with the usage of that line
 *   (`prompt_eval_count`, `eval_count`). `done_reason: "stop"` becomes `tool-calls` when a tool
 *   call was seen; `load`/`unload` are `other`. `end()` flushes what is open and emits no
 *   `finished` if no `done` line came.
 *
 * @throws ProviderError for an `{"error": "…"}` line (type `error`), and with type
 *   `invalid-format` for a line that is not an object, a `message` that is not an object, or its
 *   `content` or `thinking` that is not a string, or tool call `arguments` nested too deeply to
 *   write as JSON text.
 */
export function createOllamaAdapter(options: OllamaAdapterOptions = {}): ProviderAdapter {
  const createToolCallId = options.createToolCallId ?? defaultToolCallId;
  const textSlots = new Map<'message' | 'reasoning', number>();
  let nextSlot = 0;
  let nextPosition = 0;
  let sawToolCall = false;
  let finishedSent = false;

  function emitText(kind: 'message' | 'reasoning', text: unknown, out: StreamEvent[]): void {
    const value = nonEmptyString(text);
    if (value === undefined) return;
    let slot = textSlots.get(kind);
    if (slot === undefined) {
      slot = nextSlot++;
      textSlots.set(kind, slot);
    }
    out.push(partEvent(slot, { type: kind, text: value }));
  }

  function emitToolCall(toolCall: JsonRecord, out: StreamEvent[]): void {
    const fn = recordAt(toolCall, 'function') ?? {};
    const name = typeof fn['name'] === 'string' ? fn['name'] : '';
    const position = nextPosition++;
    const id = nonEmptyStringAt(toolCall, 'id') ?? createToolCallId({ name, position });
    const rawArguments = fn['arguments'];
    let chunk: string;
    if (rawArguments === undefined || rawArguments === null) chunk = '';
    else if (typeof rawArguments === 'string') chunk = rawArguments;
    else if (isRecord(rawArguments)) chunk = jsonTextOf('ollama', rawArguments, 'the arguments of a tool call');
    else throw new ProviderError('ollama', 'invalid-format', 'tool call arguments are neither an object nor a string');
    const slot = nextSlot++;
    sawToolCall = true;
    const index = numberAt(fn, 'index');
    out.push(partEvent(slot, { type: 'tool-call-start', toolCallId: id, toolName: name }, index === undefined ? undefined : { toolCallIndex: index }));
    if (chunk !== '') out.push(partEvent(slot, { type: 'tool-call-arguments', chunk }));
    out.push({ type: 'flush', index: slot });
  }

  function flushText(out: StreamEvent[]): void {
    const open = [...textSlots.values()].sort((a, b) => a - b);
    textSlots.clear();
    for (const index of open) out.push({ type: 'flush', index });
  }

  return {
    push(data) {
      if (!isRecord(data)) throw new ProviderError('ollama', 'invalid-format', 'expected a JSON object per line');
      if (data['error'] !== undefined && data['error'] !== null) throw ollamaError(data['error']);
      const out: StreamEvent[] = [];
      const rawMessage = data['message'];
      if (rawMessage !== undefined && !isRecord(rawMessage)) throw new ProviderError('ollama', 'invalid-format', '`message` is not an object');
      const message = recordAt(data, 'message');
      if (message) {
        for (const key of ['content', 'thinking']) {
          const value = message[key];
          if (value !== undefined && value !== null && typeof value !== 'string') throw new ProviderError('ollama', 'invalid-format', `\`message.${key}\` is not a string`);
        }
        emitText('reasoning', message['thinking'], out);
        emitText('message', message['content'], out);
        const toolCalls = message['tool_calls'];
        if (Array.isArray(toolCalls)) for (const call of toolCalls) if (isRecord(call)) emitToolCall(call, out);
      } else {
        // /api/generate
        emitText('reasoning', data['thinking'], out);
        emitText('message', data['response'], out);
      }
      if (data['done'] === true && !finishedSent) {
        flushText(out);
        finishedSent = true;
        const rawReason = nonEmptyStringAt(data, 'done_reason');
        const usage = ollamaUsage(data);
        out.push({
          type: 'finished',
          reason: mapDoneReason(rawReason, sawToolCall),
          ...(rawReason !== undefined ? { rawReason } : {}),
          ...(usage !== undefined ? { usage } : {}),
        });
      }
      return out;
    },

    end() {
      const out: StreamEvent[] = [];
      flushText(out);
      return out;
    },
  };
}

/** Ollama says `stop` even when the turn ended in tool calls (WIRE-FORMATS §6). */
function mapDoneReason(raw: string | undefined, sawToolCall: boolean): FinishReason {
  switch (raw) {
    case undefined:
    case 'stop':
      return sawToolCall ? 'tool-calls' : 'stop';
    case 'length':
      return 'length';
    default:
      return 'other';
  }
}

function ollamaUsage(line: JsonRecord): Usage | undefined {
  const raw: Record<string, number> = {};
  for (const field of USAGE_FIELDS) {
    const value = numberAt(line, field);
    if (value !== undefined) raw[field] = value;
  }
  if (Object.keys(raw).length === 0) return undefined;
  const input = raw['prompt_eval_count'];
  const output = raw['eval_count'];
  return usageOf({
    inputTokens: input,
    outputTokens: output,
    totalTokens: input !== undefined && output !== undefined ? input + output : undefined,
    reasoningTokens: undefined,
    cachedInputTokens: undefined,
    raw,
  });
}

function ollamaError(error: unknown): ProviderError {
  return providerErrorOf('ollama', error, ['type'], 'Ollama reported an error in the stream');
}
