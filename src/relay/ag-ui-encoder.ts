/**
 * argstream's events as AG-UI's event stream: what an AG-UI agent sends its UI (`@ag-ui/client`'s
 * `HttpAgent`, CopilotKit, assistant-ui), so that an AG-UI page works unchanged against an
 * argstream server, for every provider argstream reads.
 *
 * @module
 */
import { clear } from '../core.ts';
import type { JsonValue, PathUpdate, PipelineEvent, Usage } from '../types.ts';
import { pageErrorMessage, pageErrorRecord, type PageErrorOptions } from './error-record.ts';
import { RelayEncoder, type RelayFramer } from './relay-encoder.ts';
import { TurnWireCore, type CallState } from './turn-wire-core.ts';

/**
 * The `name` of the `CUSTOM` events that carry a call's partial input as path updates
 * (`AgUiEncoder`'s `toolInputs: 'path-updates'`): `value` is `{ toolCallId, updates }`, the
 * `PathUpdate`s one piece of the input makes.
 */
export const AG_UI_TOOL_INPUT = 'argstream.tool-input';

/**
 * The response headers of an AG-UI event stream: the content type `@ag-ui/encoder` gives SSE
 * (`text/event-stream`), no caching or transformation by proxies, kept alive, not buffered by nginx.
 */
export const AG_UI_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});

/** One token count entry of `RUN_FINISHED`'s `usage`. */
export interface AgUiTokenUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
  readonly reasoningTokens?: number;
  readonly cachedInputTokens?: number;
}

/**
 * An AG-UI event as {@link AgUiEventEncoder} writes it: only the types and members of AG-UI 1.0
 * (`@ag-ui/core`'s schemas), never `null`, never a timestamp.
 */
export type AgUiEvent =
  | { readonly type: 'RUN_STARTED'; readonly threadId: string; readonly runId: string }
  | { readonly type: 'RUN_FINISHED'; readonly threadId: string; readonly runId: string; readonly usage?: readonly AgUiTokenUsage[] }
  | { readonly type: 'RUN_ERROR'; readonly message: string; readonly code?: string }
  | { readonly type: 'TEXT_MESSAGE_START'; readonly messageId: string; readonly role: 'assistant' }
  | { readonly type: 'TEXT_MESSAGE_CONTENT' | 'REASONING_MESSAGE_CONTENT'; readonly messageId: string; readonly delta: string }
  | { readonly type: 'TEXT_MESSAGE_END' | 'REASONING_START' | 'REASONING_MESSAGE_END' | 'REASONING_END'; readonly messageId: string }
  | { readonly type: 'REASONING_MESSAGE_START'; readonly messageId: string; readonly role: 'reasoning' }
  | { readonly type: 'REASONING_ENCRYPTED_VALUE'; readonly subtype: 'message'; readonly entityId: string; readonly encryptedValue: string }
  | { readonly type: 'TOOL_CALL_START'; readonly toolCallId: string; readonly toolCallName: string; readonly parentMessageId: string }
  | { readonly type: 'TOOL_CALL_ARGS'; readonly toolCallId: string; readonly delta: string }
  | { readonly type: 'TOOL_CALL_END'; readonly toolCallId: string }
  | { readonly type: 'TOOL_CALL_RESULT'; readonly messageId: string; readonly toolCallId: string; readonly content: string; readonly role: 'tool' }
  | {
      readonly type: 'CUSTOM';
      readonly name: typeof AG_UI_TOOL_INPUT;
      readonly value: { readonly toolCallId: string; readonly updates: readonly PathUpdate[] };
    };

/**
 * Options of {@link AgUiEventEncoder} and {@link AgUiEncoder}. `onError` (and `errorClasses`)
 * choose the `message` of `RUN_ERROR`, as for argstream's other encoders: by default argstream's
 * message for the error's page record — never a cause, a URL, a header, or the text of an error
 * not argstream's.
 */
export interface AgUiEncoderOptions extends PageErrorOptions {
  /**
   * The thread of the run (`RunAgentInput.threadId` of the request): `RUN_STARTED` and
   * `RUN_FINISHED` carry it.
   * @default a new random id
   */
  readonly threadId?: string;
  /**
   * The run (`RunAgentInput.runId` of the request).
   * @default a new random id
   */
  readonly runId?: string;
  /**
   * The id of the assistant message: the first text message's, and the `parentMessageId` of the
   * calls made before any text. Later text messages are `<messageId>_<n>`, reasoning messages
   * `<messageId>_reasoning_<n>`.
   * @default a new random id
   */
  readonly messageId?: string;
  /**
   * How a call's arguments stream. `'deltas'`: a `TOOL_CALL_ARGS` per piece of argument text, as
   * AG-UI agents send them — a plain AG-UI client re-parses the whole text at each one
   * (`@ag-ui/client` runs `untruncate-json` on it for every subscriber, CopilotKit `partial-json`:
   * quadratic, seconds for a 200 KB input). `'path-updates'`: instead, `CUSTOM` events named
   * {@link AG_UI_TOOL_INPUT} carrying the `PathUpdate`s of each piece (apply them with argstream's
   * `JsonFragmentRebuilder`: linear), and one `TOOL_CALL_ARGS` with the call's whole argument text
   * before its `TOOL_CALL_END`. A plain AG-UI client ignores the `CUSTOM` events and shows the
   * call's arguments when they are complete, with the same messages in the end.
   *
   * A path update costs a JSON object (40–70 bytes) even for a one-character number, so each call's
   * `CUSTOM` events stay within a budget: their characters (the updates, the call's id and 64 per
   * event) at most 3 × the call's argument text so far, less what escaping that text adds, + 384
   * per piece the provider sent (per read, for text rebuilt from a
   * stage's progress) + 32. Updates that do not fit wait and go with the next piece's in
   * one event once the text has paid for them; past 4,096 characters waiting, the call gets no more
   * updates. Its whole text still comes in `TOOL_CALL_ARGS`, so every page ends with the exact
   * arguments, and the relay sends at most 4 times the provider's bytes. Calls streamed in pieces
   * get every update; a document of many small scalars sent in a few pieces gets some or none.
   * @default 'deltas'
   */
  readonly toolInputs?: 'deltas' | 'path-updates';
  /**
   * {@link AgUiEncoder} only: write an SSE comment (`: keep-alive`) after this many milliseconds
   * without output, so that proxies do not close an idle connection while the model thinks
   * (`@ag-ui/client` reads only `data:` lines).
   * @default undefined (no keep-alive)
   */
  readonly keepAliveMs?: number;
}

/** A tool call being written, by its content slot. */
interface AgUiCall extends CallState {
  /** Argument text other than whitespace has gone out (or, with path updates, been held for the end). */
  sent: boolean;
  /** With `toolInputs: 'path-updates'`: the text so far, sent whole at the end. */
  readonly text: string[];
}

/** Text of whitespace only: no argument value begins in it. */
const BLANK = /^[ \t\n\r]*$/;

/** 128 random bits as 32 hex digits: an id nothing else has. */
function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** A count AG-UI accepts: a whole number within JSON's safe range. */
const count = (value: number | undefined): number | undefined => (value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/** A turn's usage as one entry of `RUN_FINISHED`'s list; `undefined` when it has no count. */
function tokenUsage(usage: Usage | undefined): AgUiTokenUsage | undefined {
  if (usage === undefined) return undefined;
  const entry: { -readonly [K in keyof AgUiTokenUsage]: number } = {};
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens', 'reasoningTokens', 'cachedInputTokens'] as const) {
    const value = count(usage[key]);
    if (value !== undefined) entry[key] = value;
  }
  return Object.keys(entry).length === 0 ? undefined : entry;
}

/** What {@link AgUiEventEncoder} does, for it and for the relay's shell: AG-UI's own events. */
class AgUiEventCore extends TurnWireCore<AgUiEvent, AgUiCall> {
  readonly #threadId: string;
  readonly #runId: string;
  readonly #messageId: string;
  readonly #page: PageErrorOptions;
  /** The open text and reasoning messages, by content slot. */
  readonly #texts = new Map<number, { readonly id: string; readonly reasoning: boolean }>();
  /** The first call that was cut or failed, and why: the run ends in `RUN_ERROR`. */
  #broken: { readonly code: string; readonly message: string } | undefined;
  #messages = 0;
  #reasonings = 0;
  /** The id of the last text message: the message the calls after it belong to. */
  #parent: string;
  #usage: Usage | undefined;

  constructor(options: AgUiEncoderOptions) {
    // The input goes whole at the end as a JSON string; a piece that stops parsing sends none of its updates.
    super('AgUiEncoder', options.toolInputs, true, false);
    for (const key of ['threadId', 'runId', 'messageId'] as const) {
      if (options[key] !== undefined && (typeof options[key] !== 'string' || options[key] === '')) {
        throw new RangeError(`AgUiEncoder: ${key} must be a non-empty string, got ${String(options[key])}`);
      }
    }
    this.#threadId = options.threadId ?? randomId();
    this.#runId = options.runId ?? randomId();
    this.#messageId = options.messageId ?? randomId();
    this.#parent = this.#messageId;
    this.#page = { ...(options.onError === undefined ? {} : { onError: options.onError }), ...(options.errorClasses === undefined ? {} : { errorClasses: options.errorClasses }) };
  }

  protected begin(out: AgUiEvent[]): void {
    out.push({ type: 'RUN_STARTED', threadId: this.#threadId, runId: this.#runId });
  }

  protected finish(out: AgUiEvent[]): void {
    for (const index of [...this.#texts.keys()]) this.#closeText(index, '', false, out);
    const broken = this.#broken;
    if (broken !== undefined) {
      out.push({ type: 'RUN_ERROR', message: broken.message, code: broken.code });
      return;
    }
    const usage = tokenUsage(this.#usage);
    out.push(
      usage === undefined
        ? { type: 'RUN_FINISHED', threadId: this.#threadId, runId: this.#runId }
        : { type: 'RUN_FINISHED', threadId: this.#threadId, runId: this.#runId, usage: [usage] },
    );
  }

  protected fail(reason: unknown, out: AgUiEvent[]): void {
    const record = pageErrorRecord(reason, this.#page);
    const code = record['name'] === 'AbortError' ? 'abort' : [record['code'], record['type'], record['name']].find((value) => typeof value === 'string' && value !== '');
    out.push({ type: 'RUN_ERROR', message: record['message'] as string, code: code as string });
  }

  protected newCall(index: number): AgUiCall {
    return { index, toolCallId: '', toolName: '', providerExecuted: false, started: false, sent: false, raw: false, held: '', writer: undefined, text: [], inputUpdates: undefined };
  }

  /** The id of a call the provider names none for (Gemini; AG-UI needs one): the message's id and the call's content slot. */
  protected unnamedCallId(call: AgUiCall): string {
    return `${this.#messageId}_call_${call.index}`;
  }

  /** `TOOL_CALL_START`, its parent the last text message. */
  protected writeStart(call: AgUiCall, out: AgUiEvent[]): void {
    out.push({ type: 'TOOL_CALL_START', toolCallId: call.toolCallId, toolCallName: call.toolName, parentMessageId: this.#parent });
  }

  /** A piece of a started call's argument text, as `TOOL_CALL_ARGS` or as the path updates it makes. */
  protected input(call: AgUiCall, text: string, out: AgUiEvent[]): void {
    if (!call.sent && !BLANK.test(text)) call.sent = true;
    if (!this.pathUpdates) {
      out.push({ type: 'TOOL_CALL_ARGS', toolCallId: call.toolCallId, delta: text });
      return;
    }
    // Its whole text comes before its end, however many of its updates go.
    call.text.push(text);
    const ready = this.inputUpdates(call, text);
    if (ready !== undefined) out.push({ type: 'CUSTOM', name: AG_UI_TOOL_INPUT, value: { toolCallId: call.toolCallId, updates: ready } });
  }

  /**
   * A complete call: with path updates, its whole argument text; when no argument text went out
   * (a call sent whole, or without arguments), its arguments as JSON text (`"{}"` for none); then
   * `TOOL_CALL_END`.
   */
  #endCall(index: number, toolCallId: string, toolName: string, input: JsonValue, out: AgUiEvent[]): void {
    const call = this.call(index);
    this.dropCall(index);
    call.toolCallId ||= toolCallId || this.unnamedCallId(call);
    call.toolName ||= toolName;
    if (!call.started) {
      call.held = '';
      this.startCall(call, out);
      // A call without an id or a name: AG-UI cannot name it.
      if (!call.started) return;
    }
    this.announced.add(call.toolCallId);
    if (call.sent && call.text.length > 0) out.push({ type: 'TOOL_CALL_ARGS', toolCallId: call.toolCallId, delta: call.text.join('') });
    else if (!call.sent) out.push({ type: 'TOOL_CALL_ARGS', toolCallId: call.toolCallId, delta: JSON.stringify(input) });
    out.push({ type: 'TOOL_CALL_END', toolCallId: call.toolCallId });
  }

  /** A piece of a text or reasoning message, opening it at its first. */
  #text(index: number, reasoning: boolean, delta: string, out: AgUiEvent[]): void {
    let open = this.#texts.get(index);
    if (open === undefined) {
      if (reasoning) {
        open = { id: `${this.#messageId}_reasoning_${++this.#reasonings}`, reasoning };
        out.push({ type: 'REASONING_START', messageId: open.id }, { type: 'REASONING_MESSAGE_START', messageId: open.id, role: 'reasoning' });
      } else {
        open = { id: this.#messages++ === 0 ? this.#messageId : `${this.#messageId}_${this.#messages}`, reasoning };
        this.#parent = open.id;
        out.push({ type: 'TEXT_MESSAGE_START', messageId: open.id, role: 'assistant' });
      }
      this.#texts.set(index, open);
    }
    if (delta !== '') out.push({ type: reasoning ? 'REASONING_MESSAGE_CONTENT' : 'TEXT_MESSAGE_CONTENT', messageId: open.id, delta });
  }

  /** A message is complete: its whole text when none of it went out, then its end. */
  #closeText(index: number, text: string, reasoning: boolean, out: AgUiEvent[], signature?: string): void {
    if (!this.#texts.has(index)) this.#text(index, reasoning, text, out);
    const open = this.#texts.get(index) as { readonly id: string; readonly reasoning: boolean };
    this.#texts.delete(index);
    if (!open.reasoning) {
      out.push({ type: 'TEXT_MESSAGE_END', messageId: open.id });
      return;
    }
    if (signature !== undefined && signature !== '') out.push({ type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: open.id, encryptedValue: signature });
    out.push({ type: 'REASONING_MESSAGE_END', messageId: open.id }, { type: 'REASONING_END', messageId: open.id });
  }

  protected write(event: PipelineEvent, out: AgUiEvent[]): void {
    switch (event.type) {
      case 'part': {
        const part = event.part;
        switch (part.type) {
          case 'message':
          case 'structured':
            this.#text(event.index, false, part.type === 'message' ? part.text : part.json, out);
            break;
          case 'reasoning':
            this.#text(event.index, true, part.text, out);
            break;
          default:
            // Refusal text and provider results: written whole from their conversation events.
            break;
        }
        break;
      }
      case 'message':
      case 'refusal':
        this.#closeText(event.index, event.text, false, out);
        break;
      case 'reasoning':
        this.#closeText(event.index, event.text, true, out, event.signature);
        break;
      case 'structured':
        this.#closeText(event.index, JSON.stringify(event.data), false, out);
        break;
      case 'tool-call':
      case 'provider-tool-call':
        this.#endCall(event.index, event.toolCallId, event.toolName, event.arguments, out);
        break;
      case 'tool-call-failed':
      case 'tool-call-incomplete': {
        // No end: the page must not run it. The run ends in RUN_ERROR instead of RUN_FINISHED.
        this.dropCall(event.index);
        const failed = event.type === 'tool-call-failed';
        this.#broken ??= {
          code: event.type,
          message: failed
            ? pageErrorMessage(event.error, this.#page)
            : `tool call ${JSON.stringify(event.toolCallId.slice(0, 64))} was cut before its arguments were complete`,
        };
        break;
      }
      case 'provider-tool-result':
        // AG-UI has a result only for a call it has seen.
        if (!this.announced.has(event.toolCallId)) break;
        out.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `${event.toolCallId}_result`,
          toolCallId: event.toolCallId,
          content: typeof event.result === 'string' ? event.result : JSON.stringify(event.result),
          role: 'tool',
        });
        break;
      case 'finished':
        this.#usage = event.usage;
        break;
      default:
        // flushes, field events, path updates, validation errors, …: nothing of the run's messages.
        break;
    }
  }
}

/**
 * The synchronous core of {@link AgUiEncoder}: argstream's events in (the output of any stage),
 * AG-UI events out, as objects — also what an AG-UI agent written in JavaScript yields from its
 * `run` (an `Observable` of these events).
 *
 * - `RUN_STARTED` comes before everything else.
 * - Text streams as it comes: `TEXT_MESSAGE_START` (role `assistant`) at a slot's first piece, a
 *   `TEXT_MESSAGE_CONTENT` per piece, `TEXT_MESSAGE_END` when the slot completes; a message that
 *   arrives whole is one start, content and end. Structured output and refusals sent as text are
 *   text (AG-UI has neither). Reasoning: `REASONING_START`, `REASONING_MESSAGE_START`, its
 *   contents, its signature as `REASONING_ENCRYPTED_VALUE` (subtype `message`),
 *   `REASONING_MESSAGE_END`, `REASONING_END`.
 * - A call: `TOOL_CALL_START` once its id and name are known (`parentMessageId` the last text
 *   message; a call the provider gives no id, as Gemini, gets `<messageId>_call_<slot>` at its
 *   first argument text), then each raw argument chunk as a `TOOL_CALL_ARGS` (argument text rebuilt from the
 *   progress of a stage before when no raw text comes; see `toolInputs` for path updates), then
 *   `TOOL_CALL_END` when the call is complete; a call with no argument text gets `"{}"` as its
 *   arguments first (what `JSON.parse` needs), and a call that arrives whole (its `tool-call` event
 *   alone) is start, arguments and end at once. A call the provider ran (a web search) is written
 *   as a call too, and its result as `TOOL_CALL_RESULT` (`content` its text, or its JSON), so that
 *   the page does not take it for a call of its own to answer.
 * - A call cut off (`tool-call-incomplete`: `max_tokens`, a stream that stopped) or whose
 *   arguments were invalid (`tool-call-failed`) gets no `TOOL_CALL_END`: AG-UI has no way to say
 *   a call failed, and a page would run it. The run then ends in `RUN_ERROR` (code
 *   `tool-call-incomplete` or `tool-call-failed`) instead of `RUN_FINISHED`, so no page takes the
 *   call for complete.
 * - At the end: the text and reasoning still open complete, then `RUN_FINISHED` with the turn's
 *   usage (one `usage` entry; AG-UI has no finish reason).
 * - {@link AgUiEventEncoder.error}: `RUN_ERROR` with the page's message for the error and its
 *   code (`abort` for an `AbortError`, as `@ag-ui/client` names a cancelled request).
 *
 * Every other event (fields, path updates, validation errors, passed-on blocks) writes nothing.
 * Arguments that only raw chunks carry are parsed once, incrementally, by an embedded turn
 * builder; a stage before that already reported a call is not parsed again.
 */
export class AgUiEventEncoder {
  readonly #core: AgUiEventCore;

  /** @throws {RangeError} for a `toolInputs` other than `'deltas'` or `'path-updates'`, or an id that is not a string. */
  constructor(options: AgUiEncoderOptions = {}) {
    this.#core = new AgUiEventCore(options);
  }

  /** The events one event makes (appended to `out`, returned). */
  push(event: PipelineEvent, out: AgUiEvent[] = []): AgUiEvent[] {
    return this.#core.push(event, out);
  }

  /** The events ended: the messages still open, then `RUN_FINISHED` (or `RUN_ERROR` for a call cut or failed). */
  end(out: AgUiEvent[] = []): AgUiEvent[] {
    return this.#core.end(out);
  }

  /**
   * The stream before failed with `reason`: `RUN_ERROR` with the page's message for it (`onError`'s,
   * else argstream's) and a code — the error's own (a `ProviderError`'s `code`, else its `type`),
   * `abort` for an `AbortError`, else the name of its page record's class. Nothing is written after it.
   */
  error(reason: unknown, out: AgUiEvent[] = []): AgUiEvent[] {
    return this.#core.error(reason, out);
  }
}

/** Encodes argstream's events as AG-UI's SSE, for a `Response` with {@link AG_UI_HEADERS}. */
class AgUiFramer implements RelayFramer<PipelineEvent> {
  readonly keepAlive = ': keep-alive\n\n';
  readonly #core: AgUiEventCore;
  /** What the core made of the event being taken (reused). */
  readonly #made: AgUiEvent[] = [];
  /** The records of the events taken since the last `take`, but the delta being joined. */
  #text = '';
  /** The delta event being made: adjacent deltas of one message or call, joined (its id goes out once per read). */
  #delta: { type: 'TEXT_MESSAGE_CONTENT' | 'REASONING_MESSAGE_CONTENT' | 'TOOL_CALL_ARGS'; owner: string; text: string } | undefined;

  constructor(core: AgUiEventCore) {
    this.#core = core;
  }

  get size(): number {
    return this.#text.length + (this.#delta === undefined ? 0 : this.#delta.text.length + 64);
  }

  event(event: PipelineEvent): void {
    const made = this.#made;
    try {
      this.#core.push(event, made);
    } finally {
      // What an event made before it failed goes out before the error.
      for (let i = 0; i < made.length; i++) this.#add(made[i] as AgUiEvent);
      clear(made);
    }
  }

  take(): string {
    this.#core.endRead();
    this.#endDelta();
    const text = this.#text;
    this.#text = '';
    return text;
  }

  #add(event: AgUiEvent): void {
    if (event.type === 'TEXT_MESSAGE_CONTENT' || event.type === 'REASONING_MESSAGE_CONTENT' || event.type === 'TOOL_CALL_ARGS') {
      const owner = event.type === 'TOOL_CALL_ARGS' ? event.toolCallId : event.messageId;
      const delta = this.#delta;
      if (delta !== undefined && delta.type === event.type && delta.owner === owner) delta.text += event.delta;
      else {
        this.#endDelta();
        this.#delta = { type: event.type, owner, text: event.delta };
      }
      return;
    }
    this.#endDelta();
    this.#text += `data: ${JSON.stringify(event)}\n\n`;
  }

  /** The delta being joined, as its record, in the members' order of the event. */
  #endDelta(): void {
    const delta = this.#delta;
    if (delta === undefined) return;
    this.#delta = undefined;
    const owner = delta.type === 'TOOL_CALL_ARGS' ? 'toolCallId' : 'messageId';
    this.#text += `data: {"type":"${delta.type}","${owner}":${JSON.stringify(delta.owner)},"delta":${JSON.stringify(delta.text)}}\n\n`;
  }

  end(): string {
    return this.#last((out) => this.#core.end(out));
  }

  error(reason: unknown): string {
    return this.#last((out) => this.#core.error(reason, out));
  }

  /**
   * The last events (the end, or an error) as their own records: what was gathered before them
   * stays for the shell to send first, as its own chunk, as the other relay encoders do.
   */
  #last(step: (out: AgUiEvent[]) => AgUiEvent[]): string {
    const text = this.#text;
    const delta = this.#delta;
    this.#text = '';
    this.#delta = undefined;
    let events: AgUiEvent[];
    try {
      events = step([]);
    } catch (error) {
      events = this.#core.error(error, []);
    }
    for (const event of events) this.#add(event);
    const last = this.take();
    this.#text = text;
    this.#delta = delta;
    return last;
  }
}

/**
 * Encodes argstream's events (the output of any stage: `ProviderEventStream`, `fromResponse`,
 * `ConversationEventStream`, the views, …) as AG-UI's event stream — SSE records `data: <event
 * JSON>`, as `@ag-ui/encoder` writes them — for a `Response` with {@link AG_UI_HEADERS}, read by an
 * unchanged AG-UI page (`@ag-ui/client`'s `HttpAgent`, and the UIs built on it). The events are
 * {@link AgUiEventEncoder}'s: `RUN_STARTED`, text and reasoning as they stream, each call's
 * arguments then its end, the results of provider-run calls, `RUN_FINISHED` with the usage; every
 * one is an event of AG-UI 1.0 with only the members its schema names.
 *
 * When the stream before fails (an HTTP error status, a provider error in the stream), the error
 * goes out as `RUN_ERROR` — its message argstream's (or `onError`'s), never a cause, a URL, a header
 * or the provider's own words — and the response ends normally, so the page shows the error. Like
 * argstream's `EventStreamEncoder`, a `{ writable, readable }` pair used with `pipeThrough` (one
 * chunk of bytes per burst of events: what one read made, adjacent deltas of one message or call
 * joined), or the last stage of `fromResponse` or `chain` (one chunk of bytes per network read, no
 * stream hop): backpressure is kept, and cancelling the readable side (the page went away) cancels
 * the source, so the provider request stops.
 *
 * @example
 * ```ts
 * import { fromResponse } from 'argstream';
 * import { AG_UI_HEADERS, AgUiEncoder } from 'argstream/ag-ui';
 *
 * export async function POST(request: Request): Promise<Response> {
 *   const input = await request.json(); // AG-UI's RunAgentInput
 *   const upstream = await fetch('https://api.anthropic.com/v1/messages', { method: 'POST', headers, body: toAnthropic(input), signal: request.signal });
 *   const body = fromResponse(upstream, { provider: 'anthropic' }, new AgUiEncoder({ threadId: input.threadId, runId: input.runId }));
 *   return new Response(body, { headers: AG_UI_HEADERS });
 * }
 * ```
 */
export class AgUiEncoder extends RelayEncoder<PipelineEvent> {
  /** @throws {RangeError} for a bad `toolInputs`, an id that is not a non-empty string, or a bad `keepAliveMs`. */
  constructor(options: AgUiEncoderOptions = {}) {
    super(new AgUiFramer(new AgUiEventCore(options)), options, 'AgUiEncoder');
  }
}
