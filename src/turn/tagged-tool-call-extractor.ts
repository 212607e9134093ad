/**
 * The core of prompt-engineered tool calls: takes `<tool_call>{"name": …, "arguments": …}</tool_call>`
 * out of `message` parts and turns each into an ordinary tool call on a content slot of its own.
 * `TaggedToolCallStream` is its stream shell.
 *
 * Each call's body is read by the incremental JSON scanner, so the JSON decides where the call's
 * object ends (a close tag inside a string is data), and where the `arguments` value begins and
 * ends: the argument chunks are slices of the model's text, never re-serialised.
 *
 * @module
 */
import { JsonStreamError, excerpt, type JsonStreamErrorCode } from '../errors.ts';
import { JsonScanner, OBJECT, STRING, type JsonLimits, type JsonVisitor, type KindCode } from '../json/scanner.ts';
import type { EventMetadata, JsonScalar, PipelineEvent, StreamEvent } from '../types.ts';

/** Why a tool call was rejected: a prompt-engineered call's problems, or a call id used twice. */
export type TaggedToolCallErrorCode =
  /**
   * The call claimed a non-empty id that another call of the same turn holds: any call, native or
   * tagged, of any provider (the turn builder refuses the stream with it).
   */
  | 'duplicate-tool-call-id'
  /** The tag's body is not valid JSON (`cause` says where and what was expected). */
  | 'invalid-json'
  /** The body is JSON, but not an object. */
  | 'not-an-object'
  /** The object has no `name` member. */
  | 'missing-name'
  /** `name` is not a non-empty string. */
  | 'invalid-name'
  /** `name` or `arguments` appears twice in the object. */
  | 'duplicate-key'
  /** Something other than whitespace and the close tag follows the object. */
  | 'unexpected-text'
  /** The message ended inside the call. */
  | 'unterminated'
  /** The arguments waiting for a `name` that comes after them exceeded `maxBufferedLength`. */
  | 'max-buffered-length'
  /** A JSON limit (`maxDepth`, `maxStringLength`, `maxLength`) was exceeded. */
  | Exclude<JsonStreamErrorCode, 'invalid-json' | 'unexpected-end' | 'closed'>;

/**
 * A tool call that could not be read as one call of the turn.
 *
 * - A prompt-engineered call (every code but one): it does not error the stream, it travels in
 *   the metadata of the call's `flush` (`metadata.toolCallError`), and so reaches the turn's
 *   `tool-call-failed` event.
 * - Code `'duplicate-tool-call-id'`, for a call of any provider: the call claimed an id that
 *   another call of the turn holds. The turn builder errors the stream with it (after everything
 *   before it, whatever `isolateErrors` says), so `collectTurn` rejects, `TurnStore` ends in
 *   `error` and every stage built on the builder errors alike: none shows one call with the
 *   other's input. `toolCallId` is the id, `toolName` and `index` the second call's.
 */
export class TaggedToolCallError extends Error {
  override readonly name = 'TaggedToolCallError';
  readonly code: TaggedToolCallErrorCode;
  /** The id given to the call. */
  readonly toolCallId: string;
  /** The call's name as far as it was read (`""` if it was not). */
  readonly toolName: string;
  /** The call's content slot. */
  readonly index: number;
  /**
   * Where the problem is, in UTF-16 code units from the first character after the open tag;
   * `undefined` for problems of the object's content (`missing-name`, `invalid-name`,
   * `duplicate-key`, `not-an-object`), which have no single position.
   */
  readonly offset: number | undefined;
  /** The text at `offset`, at most 30 characters, where known. */
  readonly excerpt: string | undefined;
  override readonly cause: JsonStreamError | undefined;

  constructor(
    code: TaggedToolCallErrorCode,
    message: string,
    call: { readonly toolCallId: string; readonly toolName: string; readonly index: number },
    options: { offset?: number | undefined; excerpt?: string | undefined; cause?: JsonStreamError | undefined } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.toolCallId = call.toolCallId;
    this.toolName = call.toolName;
    this.index = call.index;
    this.offset = options.offset;
    this.excerpt = options.excerpt;
    this.cause = options.cause;
  }
}

/** Options of the extractor and of `TaggedToolCallStream`. */
export interface TaggedToolCallOptions extends JsonLimits {
  /**
   * The tag that opens a call.
   * @default '<tool_call>'
   */
  readonly openTag?: string;
  /**
   * The tag that closes a call. It must not begin with JSON whitespace.
   * @default '</tool_call>'
   */
  readonly closeTag?: string;
  /**
   * The id of the call with the given ordinal (0 for the stream's first call, then 1, 2, …).
   * Ids must be unique within a turn; the default is stable across runs of the same output.
   * @default (ordinal) => `call_${ordinal}`
   */
  readonly toolCallId?: (ordinal: number) => string;
  /**
   * Longest argument text held back while it waits for a `name` written after it (UTF-16 code
   * units); beyond it the call fails with `max-buffered-length`.
   * @default 8388608 (8 Mi)
   */
  readonly maxBufferedLength?: number;
  /**
   * Require the close tag. With `false`, a call whose JSON object is complete when its message
   * ends counts as complete without it: for prompts that use the close tag as a stop sequence,
   * so the model never writes it.
   * @default true
   */
  readonly requireCloseTag?: boolean;
}

export const DEFAULT_OPEN_TAG = '<tool_call>';
export const DEFAULT_CLOSE_TAG = '</tool_call>';
const DEFAULT_MAX_BUFFERED_LENGTH = 8 * 1024 * 1024;


function isJsonWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
  // Most text has no tag's first character near its end: one native search settles it.
  if (text.indexOf(tag.charAt(0), Math.max(0, text.length - tag.length + 1)) === -1) return 0;
  for (let k = Math.min(tag.length - 1, text.length); k > 0; k--) {
    if (text.endsWith(tag.slice(0, k))) return k;
  }
  return 0;
}

/** End of `s.slice(0, end)` without trailing JSON whitespace. */
function trimEnd(s: string, end: number): number {
  while (end > 0 && isJsonWhitespace(s.charCodeAt(end - 1))) end--;
  return end;
}

/** What the visitor is waiting for after a top-level key. */
const EXPECT_NONE = 0;
const EXPECT_NAME = 1;

/** Follows the call object's top level: reads `name`, notices `arguments` and content problems. */
class CallVisitor implements JsonVisitor {
  scanner!: JsonScanner;
  /** The first problem with the object's content; once set, the visitor ignores the rest. */
  problem: 'not-an-object' | 'invalid-name' | 'duplicate-key' | undefined;
  /** The complete `name`, once its closing quote has been read. */
  name: string | undefined;
  /** The top-level key `arguments` has been read (its value follows). */
  argumentsKey = false;
  #nameKey = false;
  #rootOpened = false;
  #expect = EXPECT_NONE;
  #inName = false;
  #nameText = '';

  key(key: string): void {
    if (this.problem !== undefined || this.scanner.kinds.length !== 1) return;
    this.#expect = EXPECT_NONE;
    if (key === 'name') {
      if (this.#nameKey) this.problem = 'duplicate-key';
      this.#nameKey = true;
      this.#expect = EXPECT_NAME;
    } else if (key === 'arguments') {
      if (this.argumentsKey) this.problem = 'duplicate-key';
      this.argumentsKey = true;
    }
  }

  open(kind: KindCode): void {
    if (this.problem !== undefined) return;
    if (!this.#rootOpened) {
      this.#rootOpened = true;
      if (kind !== OBJECT) this.problem = 'not-an-object';
      return;
    }
    if (this.#expect === EXPECT_NAME) {
      this.#expect = EXPECT_NONE;
      if (kind === STRING) this.#inName = true;
      else this.problem = 'invalid-name';
    }
  }

  text(text: string): void {
    if (this.#inName) this.#nameText += text;
  }

  scalar(_value: JsonScalar): void {
    if (this.problem !== undefined) return;
    if (!this.#rootOpened) this.problem = 'not-an-object';
    else if (this.#expect === EXPECT_NAME) this.problem = 'invalid-name';
    this.#expect = EXPECT_NONE;
  }

  close(): void {
    if (!this.#inName) return;
    this.#inName = false;
    if (this.problem !== undefined) return;
    if (this.#nameText === '') this.problem = 'invalid-name';
    else this.name = this.#nameText;
  }
}

/** Where the reading of a call's body stands. */
type Phase =
  /** Before the `arguments` value: read a character at a time, to find where the value starts. */
  | 'prefix'
  /** Inside the `arguments` value: a second scanner, rooted at the value, finds its end. */
  | 'arguments'
  /** After the `arguments` value (or after a content problem): until the object ends. */
  | 'rest'
  /** After the object: whitespace, then the close tag. */
  | 'after'
  /** After an error in the body: everything up to the next close tag is dropped. */
  | 'recover';

/** Where the `arguments` key stands in the prefix phase. */
const ARGS_NONE = 0;
const ARGS_COLON = 1; // the key is read: ':' follows
const ARGS_VALUE = 2; // the colon is read: the next non-whitespace character starts the value

interface Call {
  readonly ordinal: number;
  readonly id: string;
  /** Output content slot. */
  readonly index: number;
  readonly visitor: CallVisitor;
  readonly scanner: JsonScanner;
  phase: Phase;
  argumentsState: number;
  /** The scanner rooted at the `arguments` value, in the `arguments` phase. */
  argumentsScanner: JsonScanner | undefined;
  /** Body offset of the `arguments` value's first character. */
  argumentsStart: number;
  /** Body characters read so far (outside `recover`): the body offset of the next one. */
  consumed: number;
  /** Characters of the close tag matched so far (`after`), or a held partial close tag (`recover`). */
  closeMatched: number;
  recoverHeld: string;
  /** `tool-call-start` has been emitted. */
  started: boolean;
  /** Argument text waiting for the name. */
  pending: string;
  failed: boolean;
}

interface MessageSlot {
  readonly index: number;
  /** Text that could be the start of an open tag, held until it proves not to be one. */
  held: string;
  /** The metadata of the part the held text came from. */
  heldMetadata: EventMetadata | undefined;
  call: Call | undefined;
}

/**
 * The synchronous core: `push(event, out)`, `end(out)`. It never throws for what a model writes:
 * a broken call becomes a failed call on its own slot. Internal.
 */
export class TaggedToolCallExtractor {
  readonly #openTag: string;
  readonly #closeTag: string;
  readonly #toolCallId: (ordinal: number) => string;
  readonly #maxBufferedLength: number;
  readonly #requireCloseTag: boolean;
  readonly #limits: JsonLimits;
  readonly #slots = new Map<number, MessageSlot>();
  #calls = 0;

  constructor(options: TaggedToolCallOptions = {}) {
    this.#openTag = checkTag('openTag', options.openTag, DEFAULT_OPEN_TAG);
    this.#closeTag = checkTag('closeTag', options.closeTag, DEFAULT_CLOSE_TAG);
    if (isJsonWhitespace(this.#closeTag.charCodeAt(0))) {
      throw new RangeError('closeTag must not begin with whitespace: whitespace between the JSON object and the close tag is skipped');
    }
    const toolCallId = options.toolCallId ?? ((ordinal: number) => `call_${ordinal}`);
    if (typeof toolCallId !== 'function') throw new TypeError('toolCallId must be a function (ordinal: number) => string');
    this.#toolCallId = toolCallId;
    const max = options.maxBufferedLength ?? DEFAULT_MAX_BUFFERED_LENGTH;
    if (typeof max !== 'number' || Number.isNaN(max) || max < 0) {
      throw new RangeError(`maxBufferedLength must be a non-negative number or Infinity, got ${String(max)}`);
    }
    this.#maxBufferedLength = max;
    this.#requireCloseTag = options.requireCloseTag ?? true;
    const limits: { maxDepth?: number; maxStringLength?: number; maxLength?: number } = {};
    if (options.maxDepth !== undefined) limits.maxDepth = options.maxDepth;
    if (options.maxStringLength !== undefined) limits.maxStringLength = options.maxStringLength;
    if (options.maxLength !== undefined) limits.maxLength = options.maxLength;
    // Let the scanner check the limits now: misuse fails fast.
    new JsonScanner(new CallVisitor(), limits);
    this.#limits = limits;
  }

  /**
   * Apply one event, appending what it produces to `out` (returned). Events other than a
   * provider's `part`, `flush` and `finished` pass through.
   */
  push(event: PipelineEvent, out: PipelineEvent[] = []): PipelineEvent[] {
    switch (event.type) {
      case 'part':
        if (event.part.type === 'message') this.#message(event.index, event.part.text, event.metadata, out as StreamEvent[]);
        else out.push(event);
        break;
      case 'flush': {
        const slot = this.#slots.get(event.index);
        if (slot !== undefined) {
          this.#slots.delete(event.index);
          this.#close(slot, out as StreamEvent[]);
        }
        out.push(event);
        break;
      }
      case 'finished':
        // The response is complete: what is held or still open cannot continue. Providers flush
        // their slots before `finished`, so this only matters for a slot that was never flushed.
        this.end(out);
        out.push(event);
        break;
      default:
        out.push(event);
    }
    return out;
  }

  /**
   * The input ended (or `finished` arrived): release the held text of the message slots that were
   * never flushed and fail their open calls as `unterminated`; the slots themselves stay unflushed.
   */
  end(out: PipelineEvent[] = []): PipelineEvent[] {
    const open = [...this.#slots.values()].sort((a, b) => a.index - b.index);
    this.#slots.clear();
    for (const slot of open) this.#close(slot, out as StreamEvent[]);
    return out;
  }

  #message(index: number, text: string, metadata: EventMetadata | undefined, out: StreamEvent[]): void {
    let slot = this.#slots.get(index);
    if (slot === undefined) {
      slot = { index, held: '', heldMetadata: undefined, call: undefined };
      this.#slots.set(index, slot);
    }
    let rest = text;
    while (rest !== '') {
      const call = slot.call;
      rest = call === undefined ? this.#text(slot, rest, metadata, out) : this.#body(slot, call, rest, out);
    }
  }

  /** Text outside calls: emit it, up to an open tag (then start a call) or a possible start of one. */
  #text(slot: MessageSlot, text: string, metadata: EventMetadata | undefined, out: StreamEvent[]): string {
    const held = slot.held;
    const s = held === '' ? text : held + text;
    const metadataOfHeld = slot.heldMetadata;
    slot.held = '';
    slot.heldMetadata = undefined;
    const tag = this.#openTag;
    const at = s.indexOf(tag);
    if (at !== -1) {
      // The held text belongs to the tag or comes before it: either way it goes out with this part.
      this.#emitText(slot.index, s.slice(0, at), metadata ?? metadataOfHeld, out);
      slot.call = this.#startCall();
      return s.slice(at + tag.length);
    }
    const keep = partialTagLength(s, tag);
    this.#emitText(slot.index, s.slice(0, s.length - keep), metadata ?? metadataOfHeld, out);
    if (keep > 0) {
      slot.held = s.slice(s.length - keep);
      slot.heldMetadata = metadata;
    }
    return '';
  }

  #emitText(index: number, text: string, metadata: EventMetadata | undefined, out: StreamEvent[]): void {
    if (text === '') return;
    out.push(metadata === undefined ? { type: 'part', index, part: { type: 'message', text } } : { type: 'part', index, part: { type: 'message', text }, metadata });
  }

  #startCall(): Call {
    const ordinal = this.#calls++;
    const visitor = new CallVisitor();
    const scanner = new JsonScanner(visitor, this.#limits);
    visitor.scanner = scanner;
    return {
      ordinal,
      id: this.#toolCallId(ordinal),
      // Providers number their slots from 0: negative slots never collide with theirs.
      index: -(ordinal + 1),
      visitor,
      scanner,
      phase: 'prefix',
      argumentsState: ARGS_NONE,
      argumentsScanner: undefined,
      argumentsStart: 0,
      consumed: 0,
      closeMatched: 0,
      recoverHeld: '',
      started: false,
      pending: '',
      failed: false,
    };
  }

  /** Text inside a call: returns what follows the call's end ("" if it has not ended). */
  #body(slot: MessageSlot, call: Call, text: string, out: StreamEvent[]): string {
    let s = text;
    while (s !== '' && slot.call === call) {
      const before = s.length;
      switch (call.phase) {
        case 'prefix':
          s = this.#prefix(call, s, out);
          break;
        case 'arguments':
          s = this.#arguments(call, s, out);
          break;
        case 'rest':
          s = this.#rest(call, s, out);
          break;
        case 'after':
          s = this.#after(slot, call, s, out);
          break;
        case 'recover':
          s = this.#recover(slot, call, s);
          continue;
        default:
          return call.phase satisfies never;
      }
      call.consumed += before - s.length;
    }
    return s;
  }

  /**
   * Before the `arguments` value, one character per scanner push: the visitor's `key` call says
   * which character closed the `arguments` key, and the value starts at the first non-whitespace
   * character after the colon. This part of a call is short (the name, at most a few keys).
   */
  #prefix(call: Call, s: string, out: StreamEvent[]): string {
    const scanner = call.scanner;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (call.argumentsState === ARGS_VALUE && !isJsonWhitespace(c)) {
        call.phase = 'arguments';
        call.argumentsStart = call.consumed + i;
        call.argumentsScanner = new JsonScanner(IGNORE, { maxDepth: Infinity, maxStringLength: Infinity, maxLength: Infinity });
        return s.slice(i);
      }
      let error: unknown;
      try {
        scanner.push(s.charAt(i));
      } catch (caught) {
        error = caught;
      }
      this.#afterPush(call, out);
      if (error !== undefined) return this.#scanError(call, s, i, error, out);
      if (scanner.complete) {
        this.#objectComplete(call, out);
        return s.slice(i + 1);
      }
      if (call.failed) {
        call.phase = 'rest';
        return s.slice(i + 1);
      }
      if (call.argumentsState === ARGS_NONE) {
        if (call.visitor.argumentsKey) call.argumentsState = ARGS_COLON;
      } else if (call.argumentsState === ARGS_COLON && c === 58 /* : */) {
        call.argumentsState = ARGS_VALUE;
      }
    }
    return '';
  }

  /**
   * Inside the `arguments` value: the chunk goes to the call's scanner and to the scanner rooted at
   * the value. That one is complete once the value is; the first non-whitespace character after
   * the value (`,` or `}`) is then an error for it, whose offset says where the value ended.
   */
  #arguments(call: Call, s: string, out: StreamEvent[]): string {
    const values = call.argumentsScanner as JsonScanner;
    const base = call.consumed - call.argumentsStart;
    let valueEnd = s.length;
    let valueDone = false;
    try {
      values.push(s);
    } catch (error) {
      if (!(error instanceof JsonStreamError)) throw error;
      valueEnd = Math.max(0, Math.min(s.length, error.offset - base));
    }
    if (values.complete) {
      valueDone = true;
      valueEnd = trimEnd(s, valueEnd);
    }
    let scanError: unknown;
    try {
      call.scanner.push(s);
    } catch (error) {
      scanError = error;
      // The call's scanner has limits the value's scanner has not: never emit past its error.
      if (error instanceof JsonStreamError && !call.scanner.complete) valueEnd = Math.min(valueEnd, Math.max(0, error.offset - call.consumed));
    }
    this.#emitArguments(call, s.slice(0, valueEnd), out);
    if (valueDone) {
      call.phase = 'rest';
      call.argumentsScanner = undefined;
    }
    return this.#afterBulk(call, s, scanError, out);
  }

  /** After the `arguments` value: the rest of the object, in chunks. */
  #rest(call: Call, s: string, out: StreamEvent[]): string {
    let scanError: unknown;
    try {
      call.scanner.push(s);
    } catch (error) {
      scanError = error;
    }
    return this.#afterBulk(call, s, scanError, out);
  }

  #afterBulk(call: Call, s: string, scanError: unknown, out: StreamEvent[]): string {
    this.#afterPush(call, out);
    if (scanError !== undefined) {
      const at = scanError instanceof JsonStreamError ? Math.max(0, Math.min(s.length, scanError.offset - call.consumed)) : 0;
      return this.#scanError(call, s, at, scanError, out);
    }
    if (call.scanner.complete) {
      this.#objectComplete(call, out);
      return '';
    }
    return '';
  }

  /**
   * The call's scanner threw at `s[at]`. After a complete object that is the first character
   * that is not whitespace (the close tag, one hopes); otherwise the body is not valid JSON.
   */
  #scanError(call: Call, s: string, at: number, error: unknown, out: StreamEvent[]): string {
    if (!(error instanceof JsonStreamError)) throw error;
    if (call.scanner.complete && error.code === 'invalid-json') {
      this.#objectComplete(call, out);
      return s.slice(at);
    }
    const code = error.code === 'unexpected-end' || error.code === 'closed' ? 'invalid-json' : error.code;
    this.#fail(call, code, `${error.message} (in the body of tool call ${call.id})`, out, { offset: error.offset, excerpt: error.excerpt, cause: error });
    call.phase = 'recover';
    return s.slice(at);
  }

  /** The name may have been read, or a content problem found, by the last scanner push. */
  #afterPush(call: Call, out: StreamEvent[]): void {
    if (call.failed) return;
    const visitor = call.visitor;
    if (!call.started && visitor.name !== undefined) {
      call.started = true;
      out.push({ type: 'part', index: call.index, part: { type: 'tool-call-start', toolCallId: call.id, toolName: visitor.name } });
      if (call.pending !== '') {
        out.push({ type: 'part', index: call.index, part: { type: 'tool-call-arguments', chunk: call.pending } });
        call.pending = '';
      }
    }
    const problem = visitor.problem;
    if (problem !== undefined) this.#fail(call, problem, PROBLEMS[problem], out);
  }

  #objectComplete(call: Call, out: StreamEvent[]): void {
    call.phase = 'after';
    call.closeMatched = 0;
    if (!call.failed && call.visitor.name === undefined) this.#fail(call, 'missing-name', 'The tool call object has no "name"', out);
  }

  #emitArguments(call: Call, chunk: string, out: StreamEvent[]): void {
    if (chunk === '' || call.failed) return;
    if (call.started) {
      out.push({ type: 'part', index: call.index, part: { type: 'tool-call-arguments', chunk } });
      return;
    }
    if (call.pending.length + chunk.length > this.#maxBufferedLength) {
      this.#fail(call, 'max-buffered-length', `Arguments waiting for the tool name exceed maxBufferedLength (${this.#maxBufferedLength})`, out);
      return;
    }
    call.pending += chunk;
  }

  /** After the object: JSON whitespace, then the close tag. */
  #after(slot: MessageSlot, call: Call, s: string, out: StreamEvent[]): string {
    const tag = this.#closeTag;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (call.closeMatched === 0 && isJsonWhitespace(c)) continue;
      if (c === tag.charCodeAt(call.closeMatched)) {
        if (++call.closeMatched === tag.length) {
          this.#finishCall(slot, call, out);
          return s.slice(i + 1);
        }
        continue;
      }
      const offset = call.consumed + i;
      this.#fail(call, 'unexpected-text', `Unexpected ${JSON.stringify(s.charAt(i))} at offset ${offset} after the tool call object: expected ${tag}`, out, {
        offset,
        excerpt: excerpt(s.slice(i)),
      });
      call.phase = 'recover';
      return s.slice(i);
    }
    return '';
  }

  /** After an error: drop text up to and including the next close tag. */
  #recover(slot: MessageSlot, call: Call, text: string): string {
    const tag = this.#closeTag;
    const s = call.recoverHeld + text;
    call.recoverHeld = '';
    const at = s.indexOf(tag);
    if (at !== -1) {
      slot.call = undefined;
      return s.slice(at + tag.length);
    }
    const keep = partialTagLength(s, tag);
    if (keep > 0) call.recoverHeld = s.slice(s.length - keep);
    return '';
  }

  #finishCall(slot: MessageSlot, call: Call, out: StreamEvent[]): void {
    slot.call = undefined;
    if (!call.failed) out.push({ type: 'flush', index: call.index });
  }

  /** The message slot ended: release held text; a call still open is unterminated. */
  #close(slot: MessageSlot, out: StreamEvent[]): void {
    if (slot.held !== '') this.#emitText(slot.index, slot.held, slot.heldMetadata, out);
    slot.held = '';
    const call = slot.call;
    if (call === undefined) return;
    slot.call = undefined;
    if (call.failed) return;
    if (call.phase === 'after' && !this.#requireCloseTag) {
      out.push({ type: 'flush', index: call.index });
      return;
    }
    this.#fail(call, 'unterminated', `The message ended inside tool call ${call.id}: expected ${call.phase === 'after' ? this.#closeTag : 'the rest of the call'}`, out, {
      offset: call.consumed,
    });
  }

  /**
   * Report the call as failed, once: its `tool-call-start` (with the name if it was read), the
   * arguments read so far, the failure marker, and a flush carrying the error.
   */
  #fail(
    call: Call,
    code: TaggedToolCallErrorCode,
    message: string,
    out: StreamEvent[],
    options?: { offset?: number | undefined; excerpt?: string | undefined; cause?: JsonStreamError | undefined },
  ): void {
    if (call.failed) return;
    call.failed = true;
    // A name read before the problem has gone out already; one read after it is not trusted.
    const toolName = call.started ? (call.visitor.name ?? '') : '';
    if (!call.started) {
      call.started = true;
      out.push({ type: 'part', index: call.index, part: { type: 'tool-call-start', toolCallId: call.id, toolName: '' } });
    }
    if (call.pending !== '') {
      out.push({ type: 'part', index: call.index, part: { type: 'tool-call-arguments', chunk: call.pending } });
      call.pending = '';
    }
    const error = new TaggedToolCallError(code, message, { toolCallId: call.id, toolName, index: call.index }, options);
    out.push({ type: 'flush', index: call.index, metadata: { toolCallError: error } });
  }
}

const PROBLEMS: Readonly<Record<NonNullable<CallVisitor['problem']>, string>> = {
  'not-an-object': 'The tool call is not a JSON object',
  'invalid-name': 'The tool call\'s "name" is not a non-empty string',
  'duplicate-key': 'The tool call object has "name" or "arguments" twice',
};

/** A visitor for the scanner rooted at the arguments value: only its positions matter. */
const IGNORE: JsonVisitor = {
  key() {},
  open() {},
  text() {},
  scalar() {},
  close() {},
};

function checkTag(option: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '') throw new TypeError(`${option} must be a non-empty string, got ${JSON.stringify(value)}`);
  return value;
}
