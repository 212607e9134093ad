/**
 * The turn builder (RFD 012 and RFD 043, phase 3): the synchronous core that follows every
 * content slot of a response, parses each tool call's arguments incrementally with its own
 * parser, and turns flushed slots into conversation events. `ToolCallProgressStream`,
 * `ConversationEventStream`, `collectTurn` and the views' embedded progress are this one core,
 * configured.
 *
 * @module
 */
import { JsonStreamError, ProviderError, ToolCallArgumentsError } from '../errors.ts';
import type { FragmentCollector } from '../json/incremental-json-parser.ts';
import { JsonScanner, type JsonLimits, type RunFinder } from '../json/scanner.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import type { PartReader, PartStream } from '../providers/adapter.ts';
import type { PushCore } from '../core.ts';
import { checkIndex, checkString, duplicateToolCallId, invalidEvent } from './event-check.ts';
import type {
  EventMetadata,
  EventPart,
  FieldEvent,
  FinishedEvent,
  FlushEvent,
  JsonValue,
  PartEvent,
  PathUpdate,
  PipelineEvent,
  ProviderToolResultPart,
  StreamingToolCallEvent,
} from '../types.ts';

/** Options of {@link TurnBuilder}. */
export interface TurnBuilderOptions extends JsonLimits {
  /**
   * Emit `tool-call-progress` / `structured-progress` events with the fragments of the arguments
   * this builder parses.
   * @default false
   */
  readonly progress?: boolean;
  /**
   * Also emit the `part` and `flush` events this builder consumes (it always emits `finished`
   * and every event it does not own).
   * @default false
   */
  readonly passthrough?: boolean;
  /**
   * Build `message` and `reasoning` events from text slots. `false` leaves text parts and their
   * flushes alone (passed through), as `ToolCallProgressStream` does.
   * @default true
   */
  readonly messages?: boolean;
  /**
   * Close tool calls whose arguments were cut off (`max_tokens`, a stream that stopped) and report
   * them as `tool-call` events marked `truncated: true`, instead of `tool-call-incomplete`.
   * @default false
   */
  readonly repair?: boolean;
  /**
   * Report a call whose arguments are invalid JSON as a `tool-call-failed` event and go on with
   * the rest of the turn, instead of failing with a `ToolCallArgumentsError`.
   * @default false
   */
  readonly isolateErrors?: boolean;
}

interface TextSlot {
  readonly kind: 'message' | 'reasoning' | 'refusal';
  readonly index: number;
  readonly parts: string[];
  metadata: Record<string, unknown> | undefined;
}

/** A slot of tool-call arguments or of a structured document, as the builder parses it. Internal. */
export interface JsonSlot {
  readonly kind: 'tool-call' | 'structured';
  readonly index: number;
  id: string;
  name: string;
  /** The provider runs the call (`providerExecuted` on a start part or delta). */
  provider: boolean;
  metadata: Record<string, unknown> | undefined;
  scanner: JsonScanner | undefined;
  /** The value so far (live), once the scanner is made: what the conversation event carries. */
  value: { snapshot(): JsonValue | undefined } | undefined;
  /** In progress mode (`progress.ts`), the collector the scanner reports each fragment to. */
  collector: FragmentCollector | undefined;
  /** Why the call failed: its arguments were invalid, or an upstream stage said so. */
  error: Error | undefined;
  /** Some argument text other than whitespace arrived: a value was begun. */
  begun: boolean;
}

/** A provider-run call's result: one whole part. */
interface ResultSlot {
  readonly kind: 'provider-tool-result';
  readonly index: number;
  result: ProviderToolResultPart | undefined;
  metadata: Record<string, unknown> | undefined;
}

type Slot = TextSlot | JsonSlot | ResultSlot;

/**
 * A call id the turn holds: the slot of the call that holds it, and where that call stands —
 * `open`; `parsed`: this builder closed the slot it parsed, and a stage before may still report
 * the same call (a `tool-call-incomplete` comes at `finished`, after the flush); `ended`.
 */
interface HeldId {
  readonly index: number;
  state: 'open' | 'parsed' | 'ended';
}

/** The parser's default `maxDepth`, for the events the builder checks. */
const DEFAULT_MAX_DEPTH = 256;

/** `source`'s members set on `target` (a copy of `source` when there is no target). Internal. */
export function mergeMetadata(
  target: Record<string, unknown> | undefined,
  source: EventMetadata | undefined,
): Record<string, unknown> | undefined {
  if (source === undefined) return target;
  return target === undefined ? { ...source } : Object.assign(target, source);
}

/** `{providerExecuted: true}` for a call the provider runs, else nothing. */
function providerField(slot: JsonSlot): { readonly providerExecuted?: true } {
  return slot.provider ? { providerExecuted: true } : {};
}

function withMetadata<T extends object>(event: T, metadata: Record<string, unknown> | undefined): T {
  return metadata === undefined ? event : { ...event, metadata };
}

/** A new slot for a part of `type` at `index`. */
function newSlot(index: number, type: string): Slot {
  if (type === 'message' || type === 'reasoning' || type === 'refusal') return { kind: type, index, parts: [], metadata: undefined };
  if (type === 'provider-tool-result') return { kind: type, index, result: undefined, metadata: undefined };
  return {
    kind: type === 'structured' ? 'structured' : 'tool-call',
    index,
    id: '',
    name: '',
    provider: false,
    metadata: undefined,
    scanner: undefined,
    value: undefined,
    collector: undefined,
    error: undefined,
    begun: false,
  };
}

/**
 * A `part` event has its slot and a part of a known type with the fields the builder reads.
 * @throws {RelayError} code `'invalid-data'` otherwise.
 */
function checkPart(event: PartEvent): void {
  checkIndex(event);
  const part = event.part as EventPart | null | undefined;
  if (typeof part !== 'object' || part === null) throw invalidEvent('a `part` event without its `part`');
  switch (part.type) {
    case 'message':
    case 'reasoning':
    case 'refusal':
      checkString(part, 'text');
      return;
    case 'structured':
      checkString(part, 'json');
      return;
    case 'tool-call-arguments':
      checkString(part, 'chunk');
      return;
    case 'tool-call-start':
      checkString(part, 'toolCallId');
      checkString(part, 'toolName');
      return;
    case 'provider-tool-result':
      checkString(part, 'toolCallId');
      checkString(part, 'toolName', true);
      return;
    default:
      part satisfies never;
      throw invalidEvent('a `part` event whose part has no known `type`');
  }
}

/** The conversation events that close a slot: once one has passed, the slot is reported. Internal. */
export const FINAL_EVENTS: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'refusal',
  'structured',
  'tool-call',
  'provider-tool-call',
  'provider-tool-result',
  'tool-call-incomplete',
  'tool-call-failed',
]);

/**
 * Where a builder finds the part objects of another library it reads (see {@link PartReader}):
 * read at each event, so that a reader can be given after the builder was made. Internal.
 */
export interface PartSource {
  parts?: PartReader | undefined;
  /**
   * How the value mode's scanners take runs of complete values natively (`findRun`): without it
   * they read every token, to the same values. The store, which parses in progress mode, bundles
   * none.
   */
  runs?: RunFinder | undefined;
  /**
   * How the events of a stage before are checked and read (`readEventBefore`, `events-before.ts`):
   * conversation and progress events, raw argument deltas, `snapshot`s. Without it they pass
   * through unread: the store of the AI SDK chat transport, which is given none, bundles none.
   */
  before?: EventsBefore | undefined;
}

/** The reader of the events of a stage before (see {@link PartSource.before}). Internal. */
export type EventsBefore = (builder: TurnBuilderBase, event: PipelineEvent, out: PipelineEvent[]) => void;

/**
 * How a builder parses arguments with `progress` (in value mode, the default, a slot's scanner
 * drives a `ValueBuilder` directly): `TurnBuilder`'s (and `TurnStore`'s) emits each fragment as a
 * progress event (`progress.ts`); the one of the stores of the bindings and of the AI SDK chat
 * transport builds each call's input with its shared snapshots and its complete paths straight
 * from the scanner, with no fragment at all (`store/scanned-input.ts`). Internal.
 */
export interface ProgressReading {
  /** The scanner of a slot's arguments, reporting to what sets the slot's `value`. */
  scanner(slot: JsonSlot, limits: JsonLimits): JsonScanner;
  /** After each chunk of the slot (and its end), even one that failed: what it made, as events in `out`. */
  report(slot: JsonSlot, out: PipelineEvent[]): void;
}

/**
 * {@link TurnBuilder} without a reader of another library's parts of its own: it reads those of
 * `reading` (none: the AI SDK's parts pass through as unknown events). A page whose events never
 * are AI SDK parts (the AI SDK chat transport's store) bundles no adapter for them.
 * @internal
 */
export class TurnBuilderBase implements PushCore<PipelineEvent, PipelineEvent> {
  readonly #options: TurnBuilderOptions;
  readonly #messages: boolean;
  readonly #passthrough: boolean;
  readonly #slots = new Map<number, Slot>();
  /** Slots whose conversation event came from a stage before this one. */
  readonly #reported = new Set<number>();
  /** Incomplete calls wait for the stop reason, which providers send after the flush. */
  #incomplete: JsonSlot[] = [];
  #finished: FinishedEvent | undefined;
  /** Where the reader of the AI SDK's `fullStream` parts is, if the builder reads them. */
  readonly #reading: PartSource;
  /** How arguments are parsed with `progress`; in value mode, `undefined`. */
  readonly #progress: ProgressReading | undefined;
  /** Reads the AI SDK's `fullStream` parts, once one arrives. */
  #aiSdk: PartStream | undefined;
  /** Every non-empty call id of the turn so far, with the slot of the call that holds it. */
  readonly #ids = new Map<string, HeldId>();
  /** The deepest nesting of the events the builder checks (`maxDepth`). @internal */
  readonly maxDepth: number;
  /** How many `snapshot` events the event at hand is inside (`events-before.ts`). @internal */
  nesting = 0;

  /** `progress`: how arguments are parsed when `options.progress` is set (value mode without it). */
  constructor(options: TurnBuilderOptions = {}, reading: PartSource = {}, progress?: ProgressReading) {
    this.#options = options;
    this.#reading = reading;
    this.#progress = options.progress === true ? progress : undefined;
    this.#messages = options.messages !== false;
    this.#passthrough = options.passthrough === true;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  /** The `finished` event, once it has arrived. */
  get finished(): FinishedEvent | undefined {
    return this.#finished;
  }

  /**
   * Apply one event, appending what it produces to `out` (returned). If it throws, `out` still
   * holds what was produced before the error, so a stream shell can deliver it first.
   * @throws {ToolCallArgumentsError} for invalid arguments, unless `isolateErrors` is set.
   * @throws {TaggedToolCallError} code `'duplicate-tool-call-id'` for a call that claims an id
   *   another call of the turn holds.
   * @throws {RelayError} code `'invalid-data'` for an event of the wrong shape.
   * @throws {JsonStreamError} code `'max-depth'` for an event nested deeper than `maxDepth`.
   */
  push(event: PipelineEvent, out: PipelineEvent[] = []): PipelineEvent[] {
    if (typeof event !== 'object' || event === null) throw invalidEvent(`${event === null ? 'null' : typeof event} where an event belongs`);
    if (typeof event.type !== 'string') throw invalidEvent('an event without a string `type`');
    const parts = this.#reading.parts;
    if (parts !== undefined && parts.isPart(event)) {
      // An AI SDK part (`streamText(…).fullStream` piped in directly): read as the 'ai-sdk'
      // provider's events would be.
      for (const streamEvent of (this.#aiSdk ??= parts.create()).push(event)) this.push(streamEvent, out);
      return out;
    }
    switch (event.type) {
      case 'part':
        checkPart(event);
        this.#part(event, out);
        break;
      case 'flush':
        checkIndex(event);
        this.#flush(event, out);
        break;
      case 'finished':
        this.#finished = event;
        this.#releaseIncomplete(out);
        out.push(event);
        break;
      case 'streaming-tool-call':
        checkIndex(event);
        checkString(event, 'toolCallId');
        checkString(event, 'toolName');
        checkString(event, 'argumentsDelta');
        // Progress first, then the event: a builder after this one then knows the call is parsed.
        this.#delta(event, out);
        out.push(event);
        break;
      case 'field-start':
      case 'field-delta':
      case 'field-end':
      case 'path-update':
        this.#view(event);
        out.push(event);
        break;
      default: {
        // Every other event is a stage before's (a relay's, a stream's): `reading.before` checks
        // and reads them. The store of the AI SDK chat transport, which is given none, loads none.
        const before = this.#reading.before;
        if (before !== undefined) before(this, event, out);
        else out.push(event);
      }
    }
    return out;
  }

  /**
   * A field event or a path update of a stage before: its shape. Its call id is not claimed: a
   * view may name its call after the call's conversation event, and the progress and conversation
   * events of the same call are claimed.
   */
  #view(event: FieldEvent | PathUpdate): void {
    const fields = event as unknown as Record<string, unknown>;
    if (event.type === 'path-update') {
      checkString(event, 'path');
      checkString(event, 'kind');
    } else {
      checkString(event, 'key');
      if (event.type === 'field-delta') checkString(event, 'text');
    }
    checkString(event, 'toolCallId', true);
    checkString(event, 'toolName', true);
    if (fields['index'] !== undefined) checkIndex(event);
  }

  /**
   * Call `toolCallId` (of slot `index`) is named; `ends`: by its conversation event. The id must
   * be free, or held by the same call: the one in this slot, still open (or, for its conversation
   * event, closed by this builder's own parse).
   * @throws {TaggedToolCallError} code `'duplicate-tool-call-id'` otherwise.
   * @internal
   */
  claim(toolCallId: string, toolName: string, index: number, ends: boolean): void {
    if (toolCallId === '') return;
    const held = this.#ids.get(toolCallId);
    if (held === undefined) this.#ids.set(toolCallId, { index, state: ends ? 'ended' : 'open' });
    else if (held.index === index && (held.state === 'open' || (ends && held.state === 'parsed'))) {
      if (ends) held.state = 'ended';
    } else throw duplicateToolCallId(toolCallId, toolName, index, held.index);
  }

  /**
   * A call this builder parsed is closed: its id is not open any more. Only the conversation event
   * of the same call from a stage before may still name it.
   */
  #ended(slot: JsonSlot): void {
    if (slot.id === '') return;
    const held = this.#ids.get(slot.id);
    if (held !== undefined && held.index === slot.index && held.state === 'open') held.state = 'parsed';
  }

  /**
   * Whether this builder parses the argument text of slot `index` itself and passes no part on,
   * so that adjacent parts of it may be parsed as one (`TurnBuilder.pushAll`).
   * @internal
   */
  joins(index: number): boolean {
    return !this.#passthrough && !this.#reported.has(index);
  }

  /**
   * The input ended: close what was never flushed and report what is still waiting.
   * @throws {ProviderError} type `'invalid-stream'`, code `'truncated'` for AI SDK parts that
   * ended before their `finish` (or `abort`) part, as `ProviderEventDecoder` does for them: the
   * stream was cut (what the flushed slots made is in `out` first).
   */
  end(out: PipelineEvent[] = []): PipelineEvent[] {
    // The AI SDK's parts still open, then their error if they were cut (after what they made).
    const aiSdk = this.#aiSdk;
    if (aiSdk !== undefined) for (const streamEvent of aiSdk.end()) this.push(streamEvent, out);
    const open = [...this.#slots.values()].sort((a, b) => a.index - b.index);
    this.#slots.clear();
    for (const slot of open) this.#close(slot, out, true);
    this.#releaseIncomplete(out);
    return out;
  }

  /** A stage before this one reported slot `index` (or parses it): leave it to that stage. @internal */
  leave(index: number): void {
    this.#reported.add(index);
    this.#slots.delete(index);
    if (this.#incomplete.length > 0) this.#incomplete = this.#incomplete.filter((slot) => slot.index !== index);
  }

  #part(event: PartEvent, out: PipelineEvent[]): void {
    const { index, part } = event;
    if (
      this.#reported.has(index) ||
      (!this.#messages && (part.type === 'message' || part.type === 'reasoning' || part.type === 'refusal'))
    ) {
      out.push(event);
      return;
    }
    const slot = this.#slots.get(index) ?? this.#open(index, part.type);
    slot.metadata = mergeMetadata(slot.metadata, event.metadata);
    switch (part.type) {
      case 'message':
      case 'reasoning':
      case 'refusal':
        if ('parts' in slot) slot.parts.push(part.text);
        if (this.#passthrough) out.push(event);
        break;
      case 'tool-call-start':
        if ('scanner' in slot) this.#identify(slot, part);
        if (this.#passthrough || !this.#messages) out.push(event);
        break;
      // The progress a chunk makes goes before the chunk itself (with passthrough): a builder
      // after this one sees the slot is parsed before it sees raw text to parse.
      case 'tool-call-arguments':
        if ('scanner' in slot) this.#feed(slot, part.chunk, out);
        if (this.#passthrough) out.push(event);
        break;
      case 'structured':
        if ('scanner' in slot) this.#feed(slot, part.json, out);
        if (this.#passthrough) out.push(event);
        break;
      case 'provider-tool-result':
        if (slot.kind === 'provider-tool-result') slot.result = part;
        if (this.#passthrough) out.push(event);
        break;
      default:
        return part satisfies never;
    }
  }

  /** A raw argument delta of `ToolCallDeltaStream`: the same text as the parts it replaced. */
  #delta(event: StreamingToolCallEvent, out: PipelineEvent[]): void {
    const index = event.index;
    if (this.#reported.has(index)) return;
    const slot = this.#slots.get(index) ?? this.#open(index, 'tool-call-start');
    if (!('scanner' in slot)) return;
    this.#identify(slot, event);
    slot.metadata = mergeMetadata(slot.metadata, event.metadata);
    if (event.argumentsDelta !== '') this.#feed(slot, event.argumentsDelta, out);
  }

  /** A call's id, name and who runs it, as a start part or a raw delta says them: the first non-empty value wins per field (RFD 012). */
  #identify(slot: JsonSlot, said: { readonly toolCallId: string; readonly toolName: string; readonly providerExecuted?: boolean }): void {
    if (slot.name === '' && said.toolName) slot.name = said.toolName;
    if (slot.id === '' && said.toolCallId) {
      this.claim(said.toolCallId, slot.name, slot.index, false);
      slot.id = said.toolCallId;
    }
    if (said.providerExecuted === true) slot.provider = true;
  }

  #flush(event: FlushEvent, out: PipelineEvent[]): void {
    const slot = this.#slots.get(event.index);
    if (slot === undefined) {
      if (this.#passthrough || !this.#messages) out.push(event);
      return;
    }
    slot.metadata = mergeMetadata(slot.metadata, event.metadata);
    this.#slots.delete(event.index);
    // An upstream stage (e.g. TaggedToolCallStream) may flush a call it knows is broken.
    const failure = event.metadata?.['toolCallError'];
    if (failure instanceof Error && 'scanner' in slot && slot.error === undefined) {
      slot.error = failure;
      // A failure the source itself reported (a ProviderError: the AI SDK's tool-input-error, an
      // invalid tool-call part) fails that call alone, and the turn goes on, as the AI SDK's own
      // client shows it; argstream's own findings follow isolateErrors.
      if (!this.#options.isolateErrors && !(failure instanceof ProviderError)) throw failure;
    }
    // The conversation event goes first, so that a builder after this one knows the slot is
    // reported before it sees the flush.
    this.#close(slot, out);
    if (this.#passthrough) out.push(event);
  }

  /** A new slot for a part of `type` at `index`, held from now on. */
  #open(index: number, type: string): Slot {
    const slot = newSlot(index, type);
    this.#slots.set(index, slot);
    return slot;
  }

  #scanner(slot: JsonSlot): JsonScanner {
    if (slot.scanner !== undefined) return slot.scanner;
    if (this.#progress !== undefined) return (slot.scanner = this.#progress.scanner(slot, this.#options));
    const builder = new ValueBuilder();
    slot.value = builder;
    return (slot.scanner = new JsonScanner(builder, this.#options, this.#reading.runs));
  }

  /**
   * Push `chunk` into the slot's scanner, or end it (`undefined`). With `progress`, what it found
   * — even before an error — is reported to `out`; in value mode nothing is.
   */
  #step(slot: JsonSlot, out: PipelineEvent[], chunk: string | undefined): void {
    const scanner = this.#scanner(slot);
    try {
      if (chunk === undefined) scanner.end();
      else scanner.push(chunk);
    } finally {
      this.#progress?.report(slot, out);
    }
  }

  #feed(slot: JsonSlot, chunk: string, out: PipelineEvent[]): void {
    if (slot.error !== undefined || chunk === '') return;
    if (!slot.begun) slot.begun = /[^ \t\n\r]/.test(chunk);
    try {
      this.#step(slot, out, chunk);
    } catch (error) {
      this.#fail(slot, error);
    }
  }

  #fail(slot: JsonSlot, error: unknown): void {
    if (!(error instanceof JsonStreamError)) throw error;
    slot.error = new ToolCallArgumentsError(slot.id, slot.name, slot.index, error);
    if (!this.#options.isolateErrors) throw slot.error;
  }

  /** `endOfInput`: the input ended with the slot still open (it was never flushed). */
  #close(slot: Slot, out: PipelineEvent[], endOfInput = false): void {
    if (slot.kind === 'provider-tool-result') {
      // A result slot flushed without its part (a cut stream) reports nothing.
      const part = slot.result;
      if (part === undefined) return;
      const { type, ...result } = part;
      out.push(withMetadata({ type, index: slot.index, ...result }, slot.metadata));
      return;
    }
    if ('parts' in slot) {
      // The provider's final text wins over deltas it does not continue (OpenAI Responses `.done`).
      const finalText = slot.metadata?.['textMismatch'] === true ? slot.metadata['finalText'] : undefined;
      const text = typeof finalText === 'string' ? finalText : slot.parts.join('');
      if (slot.kind === 'message' || slot.kind === 'refusal') out.push(withMetadata({ type: slot.kind, index: slot.index, text }, slot.metadata));
      else {
        const signature = slot.metadata?.['signature'];
        out.push(
          withMetadata(
            typeof signature === 'string'
              ? { type: 'reasoning', index: slot.index, text, signature }
              : { type: 'reasoning', index: slot.index, text },
            slot.metadata,
          ),
        );
      }
      return;
    }
    this.#ended(slot);
    let truncated = false;
    if (slot.error === undefined && slot.scanner !== undefined) {
      try {
        this.#step(slot, out, undefined);
      } catch (error) {
        if (error instanceof JsonStreamError && error.code === 'unexpected-end') truncated = true;
        else this.#fail(slot, error);
      }
    }
    if (slot.error !== undefined) {
      const failed = { type: 'tool-call-failed' as const, index: slot.index, toolCallId: slot.id, toolName: slot.name };
      out.push(withMetadata({ ...failed, ...providerField(slot), error: slot.error }, slot.metadata));
      return;
    }
    const value = slot.value?.snapshot();
    // No argument text at all (or only whitespace) means no arguments (`{}`) — unless the provider
    // never closed the slot: then the call was cut before its first argument byte. Text cut inside
    // its first value (`tr`, `-`) has no value either, but it was cut: truncated, never `{}`.
    if (value === undefined && !slot.begun) truncated = endOfInput || slot.metadata?.['endOfInput'] === true;
    if (truncated && !this.#options.repair) {
      this.#incomplete.push(slot);
      // The stop reason is known already when `finished` came before this flush: report it now.
      if (this.#finished !== undefined) this.#releaseIncomplete(out);
      return;
    }
    // No arguments at all (or only whitespace) mean `{}`.
    const data: JsonValue = value === undefined ? {} : value;
    if (slot.kind === 'structured') {
      out.push(withMetadata({ type: 'structured', index: slot.index, data }, slot.metadata));
      return;
    }
    const identity = { index: slot.index, toolCallId: slot.id, toolName: slot.name, arguments: data };
    const call = slot.provider ? { type: 'provider-tool-call' as const, ...identity } : { type: 'tool-call' as const, ...identity };
    out.push(withMetadata(truncated ? { ...call, truncated: true as const } : call, slot.metadata));
  }

  #releaseIncomplete(out: PipelineEvent[]): void {
    const stopReason = this.#finished?.rawReason;
    for (const slot of this.#incomplete) {
      out.push(
        withMetadata(
          {
            type: 'tool-call-incomplete',
            index: slot.index,
            toolCallId: slot.id,
            toolName: slot.name,
            ...providerField(slot),
            partialArguments: slot.value?.snapshot(),
            path: slot.scanner?.path() ?? '',
            stopReason,
          },
          slot.metadata,
        ),
      );
    }
    this.#incomplete = [];
  }
}
