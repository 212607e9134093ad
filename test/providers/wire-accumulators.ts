/**
 * Independent accumulators of the provider wire formats: the oracle of the differential test.
 *
 * Each one reads a recording's raw records the simple obvious way, as the provider's documentation
 * describes them (test/fixtures/providers/WIRE-FORMATS.md and the providers' API references):
 * strings are buffered per key and `JSON.parse`d at the end. Nothing here imports `src/`: the
 * framing is eventsource-parser for SSE, `split('\n')` for NDJSON and the little AWS event-stream
 * frame reader below.
 */
import { createParser } from 'eventsource-parser';

/** A tool call as the wire states it. */
export interface WireToolCall {
  /** The id on the wire; `''` when the wire carries none (Gemini, old Ollama). */
  readonly id: string;
  readonly name: string;
  /** The parsed arguments (`{}` for an empty string), or the raw string when it is not JSON. */
  readonly arguments: unknown;
  /** False when the arguments are not valid JSON (cut by a length limit). */
  readonly complete: boolean;
  /** A provider-run call's result, where the stream carries it. */
  result?: unknown;
}

/** The usage counts the wire states (only the ones it states). */
export interface WireUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
  reasoningTokens?: number | undefined;
  cachedInputTokens?: number | undefined;
}

/** What a turn is, according to the wire. */
export interface WireTurn {
  text: string;
  reasoning: string;
  /** The calls the application has to run. */
  toolCalls: WireToolCall[];
  /** The calls the provider ran itself (Anthropic server tools, Responses hosted tools). */
  serverToolCalls: WireToolCall[];
  /** Refusal text (`''` when the refusal is only a stop reason), `undefined` when none. */
  refusal: string | undefined;
  /** The provider's own finish reason, as on the wire. */
  finishReason: string | undefined;
  usage: WireUsage | undefined;
}

/** A parsed wire record, read field by field as the documentation names them (no validation: the oracle trusts the recording). */
type Json = Record<string, any>;

function emptyTurn(): WireTurn {
  return { text: '', reasoning: '', toolCalls: [], serverToolCalls: [], refusal: undefined, finishReason: undefined, usage: undefined };
}

/** A call from its id, name and argument text: `''` is `{}`, invalid JSON stays a string. */
function toolCall(id: unknown, name: unknown, args: string): WireToolCall {
  const identity = { id: typeof id === 'string' ? id : '', name: typeof name === 'string' ? name : '' };
  try {
    return { ...identity, arguments: JSON.parse(args.trim() === '' ? '{}' : args), complete: true };
  } catch {
    return { ...identity, arguments: args, complete: false };
  }
}

/** Drop the counts that are absent. */
function usage(fields: WireUsage): WireUsage {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => typeof v === 'number')) as WireUsage;
}

/** An error the stream carried after its HTTP status. */
export class WireError extends Error {}

// ---------------------------------------------------------------------------------------------
// Framing.

/** SSE events (name, data), `[DONE]` dropped, each `data` parsed. */
export function sseRecords(text: string): Array<{ event: string | undefined; data: Json }> {
  const out: Array<{ event: string | undefined; data: Json }> = [];
  const parser = createParser({
    onEvent: (message) => {
      if (message.data !== '[DONE]') out.push({ event: message.event, data: JSON.parse(message.data) as Json });
    },
  });
  parser.feed(text);
  parser.feed('\n\n');
  return out;
}

/** One JSON object per non-blank line. */
export function ndjsonRecords(text: string): Json[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);
}

/**
 * AWS event-stream frames: `total length u32 | headers length u32 | prelude CRC | headers | payload
 * | CRC`, each header `name length u8 | name | type u8 | value` (Bedrock sends strings, type 7,
 * `u16` length). Returned SDK-shaped: `{ [:event-type]: payload }`, or an exception record.
 */
export function awsEventStreamRecords(bytes: Uint8Array): Json[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  const out: Json[] = [];
  for (let at = 0; at < bytes.length; ) {
    const total = view.getUint32(at);
    const headersLength = view.getUint32(at + 4);
    const headers: Record<string, string> = {};
    for (let h = at + 12; h < at + 12 + headersLength; ) {
      const nameLength = bytes[h] as number;
      const name = decoder.decode(bytes.subarray(h + 1, h + 1 + nameLength));
      const type = bytes[h + 1 + nameLength];
      if (type !== 7) throw new Error(`header type ${type} not read by this test`);
      const valueLength = view.getUint16(h + 2 + nameLength);
      headers[name] = decoder.decode(bytes.subarray(h + 4 + nameLength, h + 4 + nameLength + valueLength));
      h += 4 + nameLength + valueLength;
    }
    const payload = JSON.parse(decoder.decode(bytes.subarray(at + 12 + headersLength, at + total - 4))) as Json;
    const type = headers[':message-type'] === 'exception' ? headers[':exception-type'] : headers[':event-type'];
    out.push({ [type ?? '']: payload, ...(headers[':message-type'] === 'exception' ? { exception: true } : {}) });
    at += total;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages.

const ANTHROPIC_SERVER_CALLS = new Set(['server_tool_use', 'mcp_tool_use']);

/** Anthropic Messages SSE: content blocks by `index`, `message_start` content taken as streamed. */
export function anthropicTurn(text: string): WireTurn {
  const turn = emptyTurn();
  const blocks = new Map<number, { block: Json; text: string; args: string }>();
  const counts: Json = {};
  const finishBlock = (entry: { block: Json; text: string; args: string }): void => {
    const { block } = entry;
    if (block['type'] === 'text') turn.text += entry.text;
    else if (block['type'] === 'thinking') turn.reasoning += entry.text;
    else if (block['type'] === 'tool_use') turn.toolCalls.push(toolCall(block['id'], block['name'], entry.args));
    else if (ANTHROPIC_SERVER_CALLS.has(block['type'])) turn.serverToolCalls.push(toolCall(block['id'], block['name'], entry.args));
    else if (String(block['type']).endsWith('_tool_result')) {
      // A server tool's result block (whole in its start event): its `content`, by `tool_use_id`.
      const call = turn.serverToolCalls.find((c) => c.id === block['tool_use_id']);
      if (call) call.result = block['content'];
    }
  };
  // A block given whole (in message_start): its text, or its input as the arguments.
  const whole = (block: Json) => ({
    block,
    text: String(block['text'] ?? block['thinking'] ?? ''),
    args: block['input'] === undefined || Object.keys(block['input']).length === 0 ? '' : JSON.stringify(block['input']),
  });
  for (const { data } of sseRecords(text)) {
    switch (data['type']) {
      case 'message_start':
        Object.assign(counts, data['message']['usage']);
        for (const block of data['message']['content'] ?? []) finishBlock(whole(block));
        if (data['message']['stop_reason']) turn.finishReason = data['message']['stop_reason'];
        break;
      case 'content_block_start': {
        const block = data['content_block'];
        // A tool_use start always has `input: {}`; the input is built from the deltas.
        blocks.set(data['index'], { block, text: String(block['text'] ?? block['thinking'] ?? ''), args: '' });
        break;
      }
      case 'content_block_delta': {
        const entry = blocks.get(data['index']);
        if (!entry) break;
        const delta = data['delta'];
        if (delta['type'] === 'text_delta') entry.text += delta['text'];
        else if (delta['type'] === 'thinking_delta') entry.text += delta['thinking'];
        else if (delta['type'] === 'input_json_delta') entry.args += delta['partial_json'];
        break;
      }
      case 'content_block_stop': {
        const entry = blocks.get(data['index']);
        if (entry) finishBlock(entry);
        blocks.delete(data['index']);
        break;
      }
      case 'message_delta':
        if (data['delta']['stop_reason']) turn.finishReason = data['delta']['stop_reason'];
        Object.assign(counts, data['usage']);
        break;
      case 'error':
        throw new WireError(data['error']['message']);
    }
  }
  // Blocks the stream left open (cut off).
  for (const entry of blocks.values()) finishBlock(entry);
  // A refusal is a stop reason only: the text written before it is all the turn says.
  if (turn.finishReason === 'refusal') turn.refusal = turn.text;
  if (Object.keys(counts).length > 0) {
    // `input_tokens` leaves out the prompt cache's reads and writes: the whole prompt is all three.
    const input = ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'].reduce((n, k) => n + (counts[k] ?? 0), 0);
    turn.usage = usage({
      inputTokens: counts['input_tokens'] === undefined ? undefined : input,
      outputTokens: counts['output_tokens'],
      cachedInputTokens: counts['cache_read_input_tokens'],
      reasoningTokens: counts['output_tokens_details']?.['thinking_tokens'],
    });
  }
  return turn;
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions and compatible servers.

/** OpenAI Chat SSE: per choice, tool calls keyed by `index`, else by `id`, else the last one. */
export function openAIChatTurn(text: string): WireTurn {
  interface Call { id: string; name: string; args: string }
  interface Choice { text: string; reasoning: string; refusal: string | undefined; calls: Call[]; byIndex: Map<number, Call>; finish?: string }
  const choices = new Map<number, Choice>();
  let counts: Json | undefined;
  for (const { event, data } of sseRecords(text)) {
    if (event === 'error' || data['error']) throw new WireError(String(data['error']?.['message'] ?? 'error'));
    for (const c of data['choices'] ?? []) {
      const key = c['index'] ?? 0;
      let choice = choices.get(key);
      if (!choice) choices.set(key, (choice = { text: '', reasoning: '', refusal: undefined, calls: [], byIndex: new Map() }));
      const delta = c['delta'] ?? {};
      choice.reasoning += delta['reasoning_content'] || delta['reasoning'] || '';
      if (typeof delta['content'] === 'string') choice.text += delta['content'];
      // Mistral: typed content chunks; `thinking` holds text chunks.
      if (Array.isArray(delta['content'])) {
        for (const chunk of delta['content']) {
          if (chunk['type'] === 'text') choice.text += chunk['text'];
          if (chunk['type'] === 'thinking') for (const t of chunk['thinking']) choice.reasoning += t['text'];
        }
      }
      if (delta['refusal']) choice.refusal = (choice.refusal ?? '') + delta['refusal'];
      for (const fragment of delta['tool_calls'] ?? []) {
        const id: string = fragment['id'] || '';
        const index: number | undefined = fragment['index'] ?? undefined;
        let call: Call | undefined;
        if (index !== undefined) call = choice.byIndex.get(index);
        else if (id !== '') call = choice.calls.find((k) => k.id === id);
        else call = choice.calls.at(-1);
        // sglang: the same index reused by a new call with another id.
        if (call && id !== '' && call.id !== '' && call.id !== id) call = undefined;
        if (!call) {
          choice.calls.push((call = { id: '', name: '', args: '' }));
          if (index !== undefined) choice.byIndex.set(index, call);
        }
        call.id ||= id;
        call.name ||= fragment['function']?.['name'] || '';
        call.args += fragment['function']?.['arguments'] ?? '';
      }
      choice.finish ??= c['finish_reason'] || undefined;
    }
    counts = data['usage'] ?? data['x_groq']?.['usage'] ?? counts;
  }
  const turn = emptyTurn();
  for (const [, choice] of [...choices].sort(([a], [b]) => a - b)) {
    turn.text += choice.text;
    turn.reasoning += choice.reasoning;
    if (choice.refusal !== undefined) turn.refusal = (turn.refusal ?? '') + choice.refusal;
    for (const call of choice.calls) turn.toolCalls.push(toolCall(call.id, call.name, call.args));
  }
  turn.finishReason = choices.get(0)?.finish;
  if (counts) {
    turn.usage = usage({
      inputTokens: counts['prompt_tokens'],
      outputTokens: counts['completion_tokens'],
      totalTokens: counts['total_tokens'],
      reasoningTokens: counts['completion_tokens_details']?.['reasoning_tokens'],
      cachedInputTokens: counts['prompt_tokens_details']?.['cached_tokens'] ?? counts['prompt_cache_hit_tokens'],
    });
  }
  return turn;
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses.

/**
 * Output item types of the Responses API by who runs the call: the application (function and
 * custom tools, computer use, local shell, apply patch), or OpenAI (its hosted tools). A
 * `shell_call` runs where its `environment` says. Other items (messages, reasoning, MCP tool
 * listings and approval requests) are not calls.
 */
const RESPONSES_APP_CALLS = new Set(['function_call', 'custom_tool_call', 'computer_call', 'local_shell_call', 'apply_patch_call']);
const RESPONSES_HOSTED_CALLS = new Set(['web_search_call', 'file_search_call', 'code_interpreter_call', 'image_generation_call', 'mcp_call']);

/** Who runs a Responses output item's call, if it is one. */
function responsesCaller(item: Json): 'app' | 'provider' | undefined {
  if (item['type'] === 'shell_call') return (item['environment']?.['type'] ?? 'local') === 'local' ? 'app' : 'provider';
  return RESPONSES_APP_CALLS.has(item['type']) ? 'app' : RESPONSES_HOSTED_CALLS.has(item['type']) ? 'provider' : undefined;
}

/** A call item's tool name: its own `name`, else the item type without `_call`. */
function responsesToolName(item: Json): string {
  return item['name'] ?? String(item['type']).replace(/_call$/, '');
}

/**
 * OpenAI Responses SSE: the items of the terminal response are the turn (each `.done` event and
 * `response.completed` carry the whole value); deltas stand in for an item that never got one.
 */
export function openAIResponsesTurn(text: string): WireTurn {
  const turn = emptyTurn();
  const items = new Map<number, Json>();
  const deltas = new Map<string, string>();
  let final: Json | undefined;
  for (const { data } of sseRecords(text)) {
    const type: string = data['type'];
    if (type === 'error') throw new WireError(String(data['message'] ?? data['error']?.['message']));
    if (type === 'response.output_item.added' || type === 'response.output_item.done') items.set(data['output_index'], data['item']);
    if (type.endsWith('.delta')) {
      const key = `${type}|${data['output_index']}|${data['content_index'] ?? data['summary_index'] ?? ''}`;
      deltas.set(key, (deltas.get(key) ?? '') + data['delta']);
    }
    if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') final = data['response'];
  }
  if (final?.['status'] === 'failed') throw new WireError(String(final['error']?.['message']));
  const output: Json[] = final?.['output']?.length ? final['output'] : [...items].sort(([a], [b]) => a - b).map(([, item]) => item);
  output.forEach((item, outputIndex) => {
    const streamed = (event: string, index: number | '' = '') => deltas.get(`response.${event}.delta|${outputIndex}|${index}`) ?? '';
    if (item['type'] === 'message') {
      (item['content'] ?? []).forEach((part: Json, i: number) => {
        if (part['type'] === 'output_text') turn.text += part['text'] || streamed('output_text', i);
        if (part['type'] === 'refusal') turn.refusal = (turn.refusal ?? '') + (part['refusal'] || streamed('refusal', i));
      });
    } else if (item['type'] === 'reasoning') {
      (item['summary'] ?? []).forEach((part: Json, i: number) => (turn.reasoning += part['text'] || streamed('reasoning_summary_text', i)));
      (item['content'] ?? []).forEach((part: Json, i: number) => (turn.reasoning += part['text'] || streamed('reasoning_text', i)));
    } else if (item['type'] === 'function_call') {
      turn.toolCalls.push(toolCall(item['call_id'], item['name'], item['arguments'] || streamed('function_call_arguments')));
    } else if (responsesCaller(item) === 'app') {
      // A custom tool's input is free text; the others' arguments are their action or operation.
      const args = item['type'] === 'custom_tool_call' ? JSON.stringify(item['input']) : JSON.stringify(item['action'] ?? item['operation'] ?? {});
      turn.toolCalls.push(toolCall(item['call_id'], responsesToolName(item), args));
    } else if (responsesCaller(item) === 'provider') {
      // A hosted call is known by its item id; its arguments and result are left to the adapter's tests.
      turn.serverToolCalls.push({ id: item['id'], name: responsesToolName(item), arguments: undefined, complete: true });
    }
  });
  if (final) {
    turn.finishReason = final['incomplete_details']?.['reason'] ?? final['status'];
    const counts = final['usage'];
    if (counts) {
      turn.usage = usage({
        inputTokens: counts['input_tokens'],
        outputTokens: counts['output_tokens'],
        totalTokens: counts['total_tokens'],
        reasoningTokens: counts['output_tokens_details']?.['reasoning_tokens'],
        cachedInputTokens: counts['input_tokens_details']?.['cached_tokens'],
      });
    }
  }
  return turn;
}

// ---------------------------------------------------------------------------------------------
// Gemini.

/** Set `value` at an RFC 9535 path made of `.name`, `['name']` and `[n]` steps (Vertex partialArgs). */
function setAtPath(root: Json, path: string, value: unknown, append: boolean): void {
  const steps = [...path.replace(/^\$/, '').matchAll(/\.([^.[]+)|\[(\d+)\]|\[(['"])(.*?)\3\]/g)].map((m) =>
    m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[4] ?? ''),
  );
  let node: Json = root;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1;
    if (last) node[step] = append && typeof node[step] === 'string' ? node[step] + value : value;
    else node = node[step] ??= typeof steps[i + 1] === 'number' ? [] : {};
  });
}

/**
 * Gemini `streamGenerateContent` (SSE, or one JSON array without `alt=sse`): parts of
 * `candidates[0]`; a `functionCall` with a name starts a call (whole `args`, or Vertex
 * `partialArgs` that follow in name-less parts); `executableCode` is code Gemini runs itself, and
 * the `codeExecutionResult` after it that code's result.
 */
export function geminiTurn(text: string): WireTurn {
  const turn = emptyTurn();
  const chunks: Json[] = text.trimStart().startsWith('[') ? (JSON.parse(text) as Json[]) : sseRecords(text).map((r) => r.data);
  const calls: Array<{ id: string; name: string; args: Json }> = [];
  let counts: Json | undefined;
  for (const chunk of chunks) {
    if (chunk['error']) throw new WireError(String(chunk['error']['message']));
    const candidate = chunk['candidates']?.[0];
    for (const part of candidate?.['content']?.['parts'] ?? []) {
      if (typeof part['text'] === 'string') {
        if (part['thought']) turn.reasoning += part['text'];
        else turn.text += part['text'];
      }
      // Code execution: code Gemini runs itself, then its result.
      if (part['executableCode']) {
        const code = part['executableCode'];
        turn.serverToolCalls.push({ id: code['id'] ?? '', name: 'code_execution', arguments: { language: code['language'], code: code['code'] }, complete: true });
      }
      if (part['codeExecutionResult']) {
        const { id: _id, ...result } = part['codeExecutionResult'];
        const call = turn.serverToolCalls.at(-1);
        if (call) call.result = result;
      }
      const call = part['functionCall'];
      if (!call) continue;
      if (call['name']) calls.push({ id: call['id'] ?? '', name: call['name'], args: call['args'] ?? {} });
      const current = calls.at(-1);
      for (const arg of call['partialArgs'] ?? []) {
        const value = 'stringValue' in arg ? arg['stringValue'] : 'numberValue' in arg ? arg['numberValue'] : 'boolValue' in arg ? arg['boolValue'] : null;
        if (current) setAtPath(current.args, arg['jsonPath'], value, 'stringValue' in arg);
      }
    }
    if (candidate?.['finishReason']) turn.finishReason = candidate['finishReason'];
    if (chunk['usageMetadata']?.['promptTokenCount'] !== undefined) counts = chunk['usageMetadata'];
  }
  turn.toolCalls = calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args, complete: true }));
  if (counts) {
    turn.usage = usage({
      inputTokens: counts['promptTokenCount'],
      outputTokens: counts['candidatesTokenCount'],
      totalTokens: counts['totalTokenCount'],
      reasoningTokens: counts['thoughtsTokenCount'],
      cachedInputTokens: counts['cachedContentTokenCount'],
    });
  }
  return turn;
}

// ---------------------------------------------------------------------------------------------
// Ollama.

/** Ollama `/api/chat` NDJSON: content, thinking and whole tool calls, counts on the `done` line. */
export function ollamaTurn(text: string): WireTurn {
  const turn = emptyTurn();
  for (const line of ndjsonRecords(text)) {
    if (line['error']) throw new WireError(String(line['error']));
    const message = line['message'] ?? {};
    turn.text += message['content'] ?? line['response'] ?? '';
    turn.reasoning += message['thinking'] ?? line['thinking'] ?? '';
    for (const call of message['tool_calls'] ?? []) {
      turn.toolCalls.push({ id: call['id'] ?? '', name: call['function']['name'], arguments: call['function']['arguments'] ?? {}, complete: true });
    }
    if (line['done']) {
      turn.finishReason = line['done_reason'];
      turn.usage = usage({ inputTokens: line['prompt_eval_count'], outputTokens: line['eval_count'] });
    }
  }
  return turn;
}

// ---------------------------------------------------------------------------------------------
// Bedrock.

/** Bedrock ConverseStream events (SDK-shaped `{ eventType: payload }`): blocks by `contentBlockIndex`. */
export function bedrockTurn(records: readonly Json[]): WireTurn {
  const turn = emptyTurn();
  const tools = new Map<number, { id: string; name: string; args: string }>();
  const order: number[] = [];
  for (const record of records) {
    if (record['exception']) throw new WireError(JSON.stringify(record));
    const start = record['contentBlockStart'];
    if (start?.['start']?.['toolUse']) {
      const use = start['start']['toolUse'];
      tools.set(start['contentBlockIndex'], { id: use['toolUseId'], name: use['name'], args: '' });
      order.push(start['contentBlockIndex']);
    }
    const delta = record['contentBlockDelta'];
    if (delta) {
      const d = delta['delta'];
      turn.text += d['text'] ?? '';
      turn.reasoning += d['reasoningContent']?.['text'] ?? '';
      const tool = tools.get(delta['contentBlockIndex']);
      if (tool && d['toolUse']) tool.args += d['toolUse']['input'] ?? '';
    }
    if (record['messageStop']) turn.finishReason = record['messageStop']['stopReason'];
    const counts = record['metadata']?.['usage'];
    if (counts) {
      // As Anthropic's: `inputTokens` leaves out the prompt cache's reads and writes.
      turn.usage = usage({
        inputTokens: counts['inputTokens'] + (counts['cacheReadInputTokens'] ?? 0) + (counts['cacheWriteInputTokens'] ?? 0),
        outputTokens: counts['outputTokens'],
        totalTokens: counts['totalTokens'],
        cachedInputTokens: counts['cacheReadInputTokens'],
      });
    }
  }
  turn.toolCalls = order.map((i) => tools.get(i)).map((t) => toolCall(t?.id, t?.name, t?.args ?? ''));
  return turn;
}

// ---------------------------------------------------------------------------------------------
// Cohere v2.

/** Cohere v2 chat SSE: content and tool-plan deltas, tool calls by `index`, `message-end`. */
export function cohereTurn(text: string): WireTurn {
  const turn = emptyTurn();
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for (const { data } of sseRecords(text)) {
    const message = data['delta']?.['message'] ?? {};
    switch (data['type']) {
      case 'content-delta':
        // A reasoning model's thinking comes in content deltas of its own (`content.thinking`).
        turn.text += message['content']?.['text'] ?? '';
        turn.reasoning += message['content']?.['thinking'] ?? '';
        break;
      case 'tool-plan-delta':
        turn.reasoning += message['tool_plan'] ?? '';
        break;
      case 'tool-call-start':
        calls.set(data['index'], { id: message['tool_calls']['id'], name: message['tool_calls']['function']['name'], args: message['tool_calls']['function']['arguments'] ?? '' });
        break;
      case 'tool-call-delta': {
        const call = calls.get(data['index']);
        if (call) call.args += message['tool_calls']['function']['arguments'] ?? '';
        break;
      }
      case 'message-end': {
        turn.finishReason = data['delta']['finish_reason'];
        // `tokens` are what the model read and wrote; `billed_units` is what is charged.
        const counts = data['delta']['usage'];
        if (counts?.['tokens']) {
          turn.usage = usage({
            inputTokens: counts['tokens']['input_tokens'],
            outputTokens: counts['tokens']['output_tokens'],
            cachedInputTokens: counts['cached_tokens'],
          });
        }
        break;
      }
    }
  }
  turn.toolCalls = [...calls].sort(([a], [b]) => a - b).map(([, c]) => toolCall(c.id, c.name, c.args));
  return turn;
}

/**
 * AG-UI's events (the AG-UI protocol's event reference): assistant text and reasoning are the
 * deltas of `*_CONTENT` and `*_CHUNK` events, a call is its `TOOL_CALL_START`'s id and name and the
 * `delta`s of its `TOOL_CALL_ARGS` (or of the `TOOL_CALL_CHUNK`s after the chunk that opened it),
 * the usage is `RUN_FINISHED`'s entries summed, its finish reason the `outcome`'s type (none
 * without one), and `RUN_ERROR` the error.
 */
export function agUiTurn(text: string): WireTurn {
  const turn = emptyTurn();
  const calls = new Map<string, { name: string; args: string }>();
  /** The call the id-less `TOOL_CALL_CHUNK`s continue. */
  let chunked: string | undefined;
  for (const { data } of sseRecords(text)) {
    switch (data['type']) {
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK':
        turn.text += data['delta'] ?? '';
        break;
      case 'REASONING_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CHUNK':
        turn.reasoning += data['delta'] ?? '';
        break;
      case 'TOOL_CALL_START':
        calls.set(data['toolCallId'], { name: data['toolCallName'], args: '' });
        break;
      case 'TOOL_CALL_ARGS':
        calls.get(data['toolCallId'])!.args += data['delta'];
        break;
      case 'TOOL_CALL_CHUNK':
        if (data['toolCallId'] !== undefined) {
          chunked = data['toolCallId'];
          if (!calls.has(data['toolCallId'])) calls.set(data['toolCallId'], { name: data['toolCallName'], args: '' });
        }
        calls.get(chunked!)!.args += data['delta'] ?? '';
        break;
      case 'RUN_FINISHED': {
        turn.finishReason = data['outcome']?.['type'];
        const sums: WireUsage = {};
        for (const entry of data['usage'] ?? []) {
          for (const key of ['inputTokens', 'outputTokens', 'totalTokens', 'reasoningTokens', 'cachedInputTokens'] as const) {
            if (typeof entry[key] === 'number') sums[key] = (sums[key] ?? 0) + entry[key];
          }
        }
        if (data['usage'] !== undefined) turn.usage = usage(sums);
        break;
      }
      case 'RUN_ERROR':
        throw new WireError(data['message']);
    }
  }
  turn.toolCalls = [...calls].map(([id, call]) => toolCall(id, call.name, call.args));
  return turn;
}

// ---------------------------------------------------------------------------------------------
// Gemini Interactions API.

/**
 * Gemini Interactions SSE: steps by `index` (`step.start` / `step.delta` / `step.stop`, or the
 * earlier revision's `content.*`); `text` deltas are text, `thought_summary` contents reasoning, a
 * `function_call` step's `arguments_delta` texts its arguments (its start's `arguments` when none
 * stream, or the earlier revision's whole `function_call` delta), a `*_call` step of Gemini's own
 * tools a server call whose `*_result` step follows; the terminal `interaction.completed` (or
 * `.complete`) gives the status and the usage, an `error` event the stream's error.
 */
export function geminiInteractionsTurn(text: string): WireTurn {
  const turn = emptyTurn();
  const calls = new Map<number, { id: string; name: string; text: string; whole: Json | undefined }>();
  const servers = new Map<string, WireToolCall>();
  for (const { data } of sseRecords(text)) {
    const step = data['step'] ?? data['content'];
    const delta = data['delta'];
    switch (data['event_type']) {
      case 'error':
        throw new WireError(String(data['error']['message']));
      case 'step.start':
      case 'content.start':
        if (step['type'] === 'text') turn.text += step['text'] ?? '';
        if (step['type'] === 'function_call') calls.set(data['index'], { id: step['id'], name: step['name'], text: '', whole: step['arguments'] });
        else if (step['type'].endsWith('_call')) {
          const call: WireToolCall = { id: step['id'], name: step['name'] ?? step['type'].slice(0, -'_call'.length), arguments: step['arguments'], complete: true };
          servers.set(step['id'], call);
          turn.serverToolCalls.push(call);
        } else if (step['type'].endsWith('_result') && servers.has(step['call_id'])) (servers.get(step['call_id']) as WireToolCall).result = step['result'];
        break;
      case 'step.delta':
      case 'content.delta':
        if (delta['type'] === 'text') turn.text += delta['text'];
        if (delta['type'] === 'thought_summary') turn.reasoning += delta['content']?.['text'] ?? '';
        if (delta['type'] === 'arguments_delta') (calls.get(data['index']) as { text: string }).text += delta['arguments'] ?? '';
        if (delta['type'] === 'function_call') (calls.get(data['index']) as { whole: Json | undefined }).whole = delta['arguments'];
        break;
      case 'interaction.completed':
      case 'interaction.complete': {
        turn.finishReason = data['interaction']['status'];
        const counts = data['interaction']['usage'];
        if (counts) {
          turn.usage = usage({
            inputTokens: counts['total_input_tokens'],
            outputTokens: counts['total_output_tokens'],
            totalTokens: counts['total_tokens'],
            reasoningTokens: counts['total_thought_tokens'],
            cachedInputTokens: counts['total_cached_tokens'],
          });
        }
        break;
      }
    }
  }
  turn.toolCalls = [...calls.values()].map((c) => toolCall(c.id, c.name, c.text !== '' ? c.text : JSON.stringify(c.whole ?? {})));
  return turn;
}
