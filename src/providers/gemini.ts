/**
 * The adapter of Google Gemini `streamGenerateContent` (Gemini API and Vertex AI), including
 * Vertex's streamed function-call arguments (`partialArgs`), which it turns into the same JSON
 * argument text every other provider streams.
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import type { EventMetadata, FinishReason, JsonValue, StreamEvent, Usage } from '../types.ts';
import { type ProviderAdapter, partEvent, providerErrorOf } from './adapter.ts';
import { type JsonRecord, isRecord, jsonTextOf, nonEmptyStringAt, numberAt, recordAt, stringAt, usageOf } from './json-access.ts';
import { defaultToolCallId, type ToolCallIdFactory } from './tool-call-id.ts';

/** The tool name of Gemini's code execution calls (the request's `tools: [{codeExecution: {}}]`). */
const CODE_EXECUTION = 'code_execution';

/** Options of {@link createGeminiAdapter}. */
export interface GeminiAdapterOptions {
  /**
   * Makes the id of a function call (Gemini sends none, unless `functionCall.id` is set).
   * @default defaultToolCallId — `call_<position>_<name>`
   */
  readonly createToolCallId?: ToolCallIdFactory;
}

interface StreamingCall {
  readonly slot: number;
  readonly id: string;
  readonly name: string;
  readonly writer: PartialArgsWriter;
}

interface CandidateState {
  readonly candidateIndex: number;
  /** The text slot being written (text and thought parts alternate into new slots). */
  text: { readonly slot: number; readonly kind: 'message' | 'reasoning' } | undefined;
  /** The function call whose `partialArgs` are still arriving. */
  call: StreamingCall | undefined;
  sawToolCall: boolean;
  finishReason: string | undefined;
}

/**
 * Create the adapter of the `'gemini'` wire format: one parsed `GenerateContentResponse` per
 * {@link ProviderAdapter.push} (an SSE `data:` object, or what `@google/genai` yields).
 *
 * - Parts are sequential, so a text slot (a `thought: true` part is reasoning) is flushed when a
 *   part of another kind follows, and a whole function call (`args`) is start, one chunk of
 *   `JSON.stringify(args)`, flush. A call with neither `args` nor `partialArgs` emits no
 *   argument chunk (no chunks mean `{}` downstream).
 * - Streamed calls (`willContinue`, Vertex `streamFunctionCallArguments`) are serialized
 *   incrementally: each `partialArgs` entry appends the JSON text that places its value at its
 *   JSONPath, strings as they arrive (escaped as `JSON.stringify` does), so the concatenated
 *   chunks parse to the arguments. The call ends at an empty `functionCall: {}`, a part without
 *   `willContinue`, or `finishReason: "STOP"`, which close the open string, objects and arrays.
 *   A call cut off by another finish reason or by the end of input is flushed unclosed, so the
 *   JSON parser downstream sees it is truncated.
 * - Calls get ids from `createToolCallId` (position = order among this response's calls) unless
 *   the wire has `functionCall.id`. `thoughtSignature` goes to the metadata of its part.
 * - `executableCode` parts (the code execution tool: code Gemini runs itself) are provider-run
 *   calls: `tool-call-start {toolName: 'code_execution', providerExecuted: true}` (id from
 *   `createToolCallId` unless the part has one) with `{language, code}` as arguments, flushed at
 *   once; the `codeExecutionResult` after it is a `provider-tool-result` part for that call
 *   (`result` `{outcome, output}`, `isError` unless `outcome` is `OUTCOME_OK`).
 * - `STOP` becomes `tool-calls` when the candidate made a call. `finished` waits for usage
 *   (`usageMetadata` with counts, normally in the same chunk as `finishReason`), else `end()`
 *   emits it; `promptFeedback.blockReason` without candidates is a `content-filter` finish.
 *
 * @throws ProviderError for a `{"error": {...}}` chunk (type = its `status`, code = its `code`),
 *   and with type `invalid-format` for a record that is not an object, `candidates` or `parts`
 *   that are not arrays of objects, a part whose `text` is not a string, or `partialArgs` that
 *   contradict themselves (a path revisited after it was closed, a key on an array, an array
 *   index past the next one — refused at once, whatever its size, …), or whole `args` nested too
 *   deeply to write as JSON text; with type
 *   `'invalid-stream'` and code `'out-of-order'` for `partialArgs` when no streamed call is open
 *   (they came after the call's end marker, or before its name), or a named `functionCall`
 *   while a streamed call is still open (a repeated start, or a lost end marker). A bare continuation without
 *   arguments (a repeated end marker) is ignored: it changes nothing.
 */
export function createGeminiAdapter(options: GeminiAdapterOptions = {}): ProviderAdapter {
  const createToolCallId = options.createToolCallId ?? defaultToolCallId;
  const candidates = new Map<number, CandidateState>();
  let nextSlot = 0;
  let nextPosition = 0;
  let usage: Usage | undefined;
  let blockReason: string | undefined;
  let finishedSent = false;
  /** The id of the last code execution call, for the result part that follows it. */
  let lastCodeExecutionId = '';

  function candidateState(candidateIndex: number): CandidateState {
    let state = candidates.get(candidateIndex);
    if (!state) {
      state = { candidateIndex, text: undefined, call: undefined, sawToolCall: false, finishReason: undefined };
      candidates.set(candidateIndex, state);
    }
    return state;
  }

  function flush(state: CandidateState, slot: number, out: StreamEvent[]): void {
    out.push({ type: 'flush', index: slot, metadata: { candidateIndex: state.candidateIndex } });
  }

  function closeText(state: CandidateState, out: StreamEvent[]): void {
    if (state.text) flush(state, state.text.slot, out);
    state.text = undefined;
  }

  /** End the streaming call; `complete` closes its JSON text, otherwise it is left truncated. */
  function closeCall(state: CandidateState, complete: boolean, out: StreamEvent[]): void {
    const call = state.call;
    if (!call) return;
    state.call = undefined;
    if (complete) {
      const tail = call.writer.finish();
      if (tail !== '') out.push(partEvent(call.slot, { type: 'tool-call-arguments', chunk: tail }));
    }
    flush(state, call.slot, out);
  }

  function handleText(state: CandidateState, p: JsonRecord, signature: EventMetadata | undefined, out: StreamEvent[]): void {
    const text = typeof p['text'] === 'string' ? p['text'] : '';
    if (text === '' && signature === undefined) return;
    const kind = p['thought'] === true ? 'reasoning' : 'message';
    let metadata = signature;
    if (state.text?.kind !== kind) {
      closeText(state, out);
      state.text = { slot: nextSlot++, kind };
      metadata = { candidateIndex: state.candidateIndex, ...signature };
    }
    out.push(partEvent(state.text.slot, { type: kind, text }, metadata));
  }

  function handleFunctionCall(
    state: CandidateState,
    fc: JsonRecord,
    signature: EventMetadata | undefined,
    out: StreamEvent[],
  ): void {
    closeText(state, out);
    const name = nonEmptyStringAt(fc, 'name');
    const partialArgs = fc['partialArgs'];
    const willContinue = fc['willContinue'] === true;
    if (name !== undefined) {
      if (state.call !== undefined) {
        // A streamed call ends with its end marker (an empty `functionCall`, or a part without
        // `willContinue`) before the next call: a name now is a repeated start or a lost end.
        throw new ProviderError('gemini', 'invalid-stream', `functionCall ${name} while call ${state.call.name} is still streaming`, {
          code: 'out-of-order',
          cause: fc,
        });
      }
      state.sawToolCall = true;
      const slot = nextSlot++;
      const position = nextPosition++;
      const id = nonEmptyStringAt(fc, 'id') ?? createToolCallId({ name, position });
      out.push(partEvent(slot, { type: 'tool-call-start', toolCallId: id, toolName: name }, { candidateIndex: state.candidateIndex, ...signature }));
      if (fc['args'] !== undefined && fc['args'] !== null) {
        out.push(partEvent(slot, { type: 'tool-call-arguments', chunk: jsonTextOf('gemini', fc['args'], 'the args of a functionCall') }));
        flush(state, slot, out);
        return;
      }
      state.call = { slot, id, name, writer: new PartialArgsWriter() };
    } else if (!state.call) {
      // A continuation with no call to continue. Arguments in it came after their call's end
      // (or before its start): dropping them would report the call without them.
      if (Array.isArray(partialArgs) && partialArgs.length > 0) {
        throw new ProviderError('gemini', 'invalid-stream', 'partialArgs with no streaming call open (after its end, or before its name)', {
          code: 'out-of-order',
          cause: fc,
        });
      }
      return;
    } else if (signature !== undefined) {
      // A signature on a continuation: repeat the start (a no-op downstream) to carry it.
      const { slot, id, name: callName } = state.call;
      out.push(partEvent(slot, { type: 'tool-call-start', toolCallId: id, toolName: callName }, signature));
    }
    const call = state.call;
    if (!call) return;
    if (Array.isArray(partialArgs)) {
      for (const arg of partialArgs) {
        if (!isRecord(arg)) throw new ProviderError('gemini', 'invalid-format', 'a partialArgs entry is not an object');
        const chunk = call.writer.push(arg);
        if (chunk !== '') out.push(partEvent(call.slot, { type: 'tool-call-arguments', chunk }));
      }
    }
    if (!willContinue) closeCall(state, true, out);
  }

  /** Code the model ran with the code execution tool: a call Gemini runs itself, sent whole. */
  function handleCodeExecution(state: CandidateState, code: JsonRecord, signature: EventMetadata | undefined, out: StreamEvent[]): void {
    closeText(state, out);
    closeCall(state, true, out);
    const slot = nextSlot++;
    const position = nextPosition++;
    const id = nonEmptyStringAt(code, 'id') ?? createToolCallId({ name: CODE_EXECUTION, position });
    lastCodeExecutionId = id;
    const start = { type: 'tool-call-start', toolCallId: id, toolName: CODE_EXECUTION, providerExecuted: true } as const;
    out.push(partEvent(slot, start, { candidateIndex: state.candidateIndex, ...signature }));
    const args = { language: code['language'], code: code['code'] };
    out.push(partEvent(slot, { type: 'tool-call-arguments', chunk: jsonTextOf('gemini', args, 'the code of an executableCode part') }));
    flush(state, slot, out);
  }

  /** The result of that code (`outcome`, `output`), for the call before it (or the one its `id` names). */
  function handleCodeResult(state: CandidateState, result: JsonRecord, out: StreamEvent[]): void {
    closeText(state, out);
    closeCall(state, true, out);
    const slot = nextSlot++;
    const outcome = stringAt(result, 'outcome');
    const value: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(result)) if (key !== 'id' && member !== undefined) value[key] = member;
    out.push(
      partEvent(slot, {
        type: 'provider-tool-result',
        toolCallId: nonEmptyStringAt(result, 'id') ?? lastCodeExecutionId,
        toolName: CODE_EXECUTION,
        result: value as JsonValue,
        ...(outcome !== undefined && outcome !== 'OUTCOME_OK' ? { isError: true as const } : {}),
      }),
    );
    flush(state, slot, out);
  }

  function handleCandidate(candidate: JsonRecord, out: StreamEvent[]): void {
    const state = candidateState(numberAt(candidate, 'index') ?? 0);
    const parts = recordAt(candidate, 'content')?.['parts'];
    if (parts !== undefined && parts !== null && !Array.isArray(parts)) throw invalid('content.parts is not an array');
    if (Array.isArray(parts)) {
      for (const p of parts) {
        if (!isRecord(p)) throw invalid('a part is not an object');
        if ('text' in p && typeof p['text'] !== 'string') throw invalid('a part\'s text is not a string');
        const signatureValue = nonEmptyStringAt(p, 'thoughtSignature');
        const signature = signatureValue === undefined ? undefined : { thoughtSignature: signatureValue };
        const fc = recordAt(p, 'functionCall');
        const code = recordAt(p, 'executableCode');
        const codeResult = recordAt(p, 'codeExecutionResult');
        if (fc) handleFunctionCall(state, fc, signature, out);
        else if (code) handleCodeExecution(state, code, signature, out);
        else if (codeResult) handleCodeResult(state, codeResult, out);
        else if ('text' in p) handleText(state, p, signature, out);
      }
    }
    const finishReason = nonEmptyStringAt(candidate, 'finishReason');
    if (finishReason !== undefined) {
      state.finishReason ??= finishReason;
      closeText(state, out);
      closeCall(state, finishReason === 'STOP', out);
    }
  }

  function finishedEvent(): StreamEvent {
    const finished = [...candidates.values()].filter((c) => c.finishReason !== undefined).sort((a, b) => a.candidateIndex - b.candidateIndex);
    const first = finished[0];
    const rawReason = first?.finishReason ?? blockReason ?? '';
    const reason: FinishReason = first
      ? mapFinishReason(rawReason, first.sawToolCall)
      : 'content-filter';
    const metadata: EventMetadata | undefined =
      candidates.size > 1 ? { finishReasons: Object.fromEntries(finished.map((c) => [String(c.candidateIndex), c.finishReason])) } : undefined;
    return {
      type: 'finished',
      reason,
      rawReason,
      ...(usage !== undefined ? { usage } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    };
  }

  function ended(): boolean {
    const states = [...candidates.values()];
    return (states.length > 0 && states.every((c) => c.finishReason !== undefined)) || (states.length === 0 && blockReason !== undefined);
  }

  return {
    push(data) {
      if (!isRecord(data)) throw new ProviderError('gemini', 'invalid-format', 'expected a GenerateContentResponse object');
      if (data['error'] !== undefined && data['error'] !== null) throw geminiError(data['error']);
      const out: StreamEvent[] = [];
      const rawCandidates = data['candidates'];
      if (rawCandidates !== undefined && rawCandidates !== null && !Array.isArray(rawCandidates)) throw invalid('candidates is not an array');
      if (Array.isArray(rawCandidates)) {
        for (const candidate of rawCandidates) {
          if (!isRecord(candidate)) throw invalid('a candidate is not an object');
          handleCandidate(candidate, out);
        }
      }
      const feedback = nonEmptyStringAt(recordAt(data, 'promptFeedback'), 'blockReason');
      if (feedback !== undefined) blockReason ??= feedback;
      const rawUsage = recordAt(data, 'usageMetadata');
      const counted = rawUsage !== undefined && hasCounts(rawUsage);
      if (counted) usage = geminiUsage(rawUsage);
      // Usage is cumulative: only a chunk at or after the finish carries the final counts.
      if (!finishedSent && counted && ended()) {
        finishedSent = true;
        out.push(finishedEvent());
      }
      return out;
    },

    end() {
      const out: StreamEvent[] = [];
      for (const state of candidates.values()) {
        closeText(state, out);
        closeCall(state, false, out);
      }
      if (!finishedSent && ([...candidates.values()].some((c) => c.finishReason !== undefined) || blockReason !== undefined)) {
        finishedSent = true;
        out.push(finishedEvent());
      }
      return out;
    },
  };
}

/** Normalize a Gemini `finishReason`; `STOP` after a function call means tool calls. */
function mapFinishReason(raw: string, sawToolCall: boolean): FinishReason {
  switch (raw) {
    case 'STOP':
      return sawToolCall ? 'tool-calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return 'content-filter';
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
      return 'error';
    default:
      return 'other';
  }
}

function hasCounts(raw: JsonRecord): boolean {
  return ['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount'].some((key) => numberAt(raw, key) !== undefined);
}

/**
 * Usage from `usageMetadata` (cumulative: the last one wins). `outputTokens` counts candidates and
 * thoughts together, as OpenAI's `completion_tokens` does, so input + output = total.
 */
function geminiUsage(raw: JsonRecord): Usage {
  const candidatesTokens = numberAt(raw, 'candidatesTokenCount');
  const thoughts = numberAt(raw, 'thoughtsTokenCount');
  const output = candidatesTokens === undefined && thoughts === undefined ? undefined : (candidatesTokens ?? 0) + (thoughts ?? 0);
  return usageOf({
    inputTokens: numberAt(raw, 'promptTokenCount'),
    outputTokens: output,
    totalTokens: numberAt(raw, 'totalTokenCount'),
    reasoningTokens: thoughts,
    cachedInputTokens: numberAt(raw, 'cachedContentTokenCount'),
    raw,
  });
}

function geminiError(error: unknown): ProviderError {
  return providerErrorOf('gemini', error, ['status'], 'Gemini reported an error in the stream');
}

// ---------------------------------------------------------------------------------------------
// partialArgs → JSON text

type PathSegment = string | number;

interface Frame {
  readonly kind: 'object' | 'array';
  /** Members written so far (for commas). */
  count: number;
  /** The member being written: key or array index. */
  member: PathSegment | undefined;
  /** Keys already used in this object: a revisited key cannot be written again. */
  readonly keys: Set<string>;
}

function invalid(message: string): ProviderError {
  return new ProviderError('gemini', 'invalid-format', message);
}

/**
 * Turns Vertex `partialArgs` entries (`{jsonPath, stringValue | numberValue | boolValue |
 * nullValue, willContinue?}`) into JSON text, incrementally. It keeps the stack of open objects
 * and arrays along the last path: a new path closes what it leaves, opens what it enters and
 * writes its value. Keys must arrive in generation order, which Vertex does; an array index must
 * be the next one (an index past it is refused, never filled).
 */
class PartialArgsWriter {
  #stack: Frame[] = [];
  /** The string at the current path is open (its last piece had `willContinue`). */
  #stringOpen = false;
  #rootWritten = false;

  push(arg: JsonRecord): string {
    const path = arg['jsonPath'];
    if (typeof path !== 'string') throw invalid('a partialArgs entry has no jsonPath');
    const segments = parseJsonPath(path);
    const value = partialValue(arg);
    if (value === undefined) return '';
    const continues = arg['willContinue'] === true;

    if (this.#stringOpen && value.kind === 'string' && this.#isCurrentPath(segments)) {
      const text = escapeStringContent(value.value);
      if (continues) return text;
      this.#stringOpen = false;
      return `${text}"`;
    }

    let out = '';
    if (this.#stringOpen) {
      out += '"';
      this.#stringOpen = false;
    }
    if (segments.length === 0) {
      if (this.#rootWritten || this.#stack.length > 0) throw invalid(`partialArgs path ${path} revisits the root`);
      this.#rootWritten = true;
      return out + this.#writeValue(value, continues);
    }
    if (this.#rootWritten && this.#stack.length === 0) throw invalid(`partialArgs path ${path} follows a complete root value`);
    if (this.#stack.length === 0) {
      out += containerOpening(segments[0] as PathSegment);
      this.#stack.push(newFrame(segments[0] as PathSegment));
      this.#rootWritten = true;
    }
    // Keep the open containers that are ancestors of the new value; close the others.
    let keep = 1;
    while (keep < this.#stack.length && keep < segments.length && (this.#stack[keep - 1] as Frame).member === segments[keep - 1]) keep++;
    while (this.#stack.length > keep) out += closing(this.#stack.pop() as Frame);
    for (let depth = keep - 1; depth < segments.length; depth++) {
      const frame = this.#stack[depth] as Frame;
      const segment = segments[depth] as PathSegment;
      out += this.#enterMember(frame, segment, path);
      const next = segments[depth + 1];
      if (next !== undefined) {
        out += containerOpening(next);
        this.#stack.push(newFrame(next));
      }
    }
    return out + this.#writeValue(value, continues);
  }

  /** Close the open string and every open container. */
  finish(): string {
    let out = this.#stringOpen ? '"' : '';
    this.#stringOpen = false;
    while (this.#stack.length > 0) out += closing(this.#stack.pop() as Frame);
    return out;
  }

  #isCurrentPath(segments: readonly PathSegment[]): boolean {
    return segments.length === this.#stack.length && this.#stack.every((frame, i) => frame.member === segments[i]);
  }

  #enterMember(frame: Frame, segment: PathSegment, path: string): string {
    if (frame.kind === 'object') {
      if (typeof segment !== 'string') throw invalid(`partialArgs path ${path} indexes an object`);
      if (frame.keys.has(segment)) throw invalid(`partialArgs path ${path} revisits a member already written`);
      frame.keys.add(segment);
      const comma = frame.count > 0 ? ',' : '';
      frame.count++;
      frame.member = segment;
      return `${comma}${JSON.stringify(segment)}:`;
    }
    if (typeof segment !== 'number') throw invalid(`partialArgs path ${path} uses a key on an array`);
    if (segment < frame.count) throw invalid(`partialArgs path ${path} revisits an array element already written`);
    // Elements arrive in order; an index past the next one would need the elements between
    // written out of nothing (and `$.a[100000000]` would cost that much memory): refused at once.
    if (segment > frame.count) throw invalid(`partialArgs path ${path} skips array elements (next index is ${frame.count})`);
    const out = frame.count > 0 ? ',' : '';
    frame.count++;
    frame.member = segment;
    return out;
  }

  #writeValue(value: PartialValue, continues: boolean): string {
    if (value.kind !== 'string') return value.json;
    this.#stringOpen = continues;
    return `"${escapeStringContent(value.value)}${continues ? '' : '"'}`;
  }
}

type PartialValue = { readonly kind: 'string'; readonly value: string } | { readonly kind: 'scalar'; readonly json: string };

function partialValue(arg: JsonRecord): PartialValue | undefined {
  if (typeof arg['stringValue'] === 'string') return { kind: 'string', value: arg['stringValue'] };
  const number = arg['numberValue'];
  // JSON has no NaN or Infinity; JSON.stringify writes them as null, and so do we.
  if (typeof number === 'number') return { kind: 'scalar', json: JSON.stringify(number) };
  if (typeof arg['boolValue'] === 'boolean') return { kind: 'scalar', json: String(arg['boolValue']) };
  if ('nullValue' in arg) return { kind: 'scalar', json: 'null' };
  return undefined;
}

/** The characters of a JSON string literal for `text`, without the quotes. */
function escapeStringContent(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function newFrame(firstSegment: PathSegment): Frame {
  return { kind: typeof firstSegment === 'number' ? 'array' : 'object', count: 0, member: undefined, keys: new Set() };
}

function containerOpening(firstSegment: PathSegment): string {
  return typeof firstSegment === 'number' ? '[' : '{';
}

function closing(frame: Frame): string {
  return frame.kind === 'array' ? ']' : '}';
}

/**
 * Parse the singular JSONPath queries Vertex sends (RFC 9535): `$`, then `.name`, `[n]`,
 * `['name']` or `["name"]` segments.
 */
function parseJsonPath(path: string): PathSegment[] {
  if (!path.startsWith('$')) throw invalid(`partialArgs jsonPath ${path} does not start with $`);
  const segments: PathSegment[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let end = i + 1;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      const name = path.slice(i + 1, end);
      if (name === '' || name === '*') throw invalid(`partialArgs jsonPath ${path} has an unsupported segment`);
      segments.push(name);
      i = end;
    } else if (c === '[') {
      const quote = path[i + 1];
      if (quote === "'" || quote === '"') {
        let name = '';
        let j = i + 2;
        for (;;) {
          const d = path[j];
          if (d === undefined) throw invalid(`partialArgs jsonPath ${path} has an unterminated name`);
          if (d === quote) break;
          if (d === '\\') {
            const e = path[j + 1];
            if (e === 'u') {
              const hex = path.slice(j + 2, j + 6);
              if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw invalid(`partialArgs jsonPath ${path} has a bad \\u escape`);
              name += String.fromCharCode(parseInt(hex, 16));
              j += 6;
              continue;
            }
            const escaped: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\', "'": "'", '"': '"' };
            const replacement = e === undefined ? undefined : escaped[e];
            if (replacement === undefined) throw invalid(`partialArgs jsonPath ${path} has a bad escape`);
            name += replacement;
            j += 2;
            continue;
          }
          name += d;
          j++;
        }
        if (path[j + 1] !== ']') throw invalid(`partialArgs jsonPath ${path} has an unterminated bracket`);
        segments.push(name);
        i = j + 2;
      } else {
        const end = path.indexOf(']', i);
        const digits = end < 0 ? '' : path.slice(i + 1, end).trim();
        if (!/^\d+$/.test(digits)) throw invalid(`partialArgs jsonPath ${path} has an unsupported segment`);
        segments.push(Number(digits));
        i = end + 1;
      }
    } else {
      throw invalid(`partialArgs jsonPath ${path} is not a singular path`);
    }
  }
  return segments;
}
