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
import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { FragmentCollector } from '../json/incremental-json-parser.ts';
import { JsonScanner, type JsonLimits, type RunFinder } from '../json/scanner.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import type { PartReader, ProviderAdapter } from '../providers/adapter.ts';
import type { PushCore } from '../core.ts';
import { checkFragment, checkIndex, checkJson, checkString, duplicateToolCallId, invalidEvent } from './event-check.ts';
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
  StreamFragment,
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

interface JsonSlot {
  readonly kind: 'tool-call' | 'structured';
  readonly index: number;
  id: string;
  name: string;
  /** The provider runs the call (`providerExecuted` on a start part or delta). */
  provider: boolean;
  metadata: Record<string, unknown> | undefined;
  scanner: JsonScanner | undefined;
  /** Set when fragments are wanted: the collector the scanner reports to, and the aggregator. */
  collector: FragmentCollector | undefined;
  aggregator: FragmentAggregator | undefined;
  /** Set when only the value is wanted: the scanner drives the builder directly. */
  builder: ValueBuilder | undefined;
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

/** Deepest nesting of `snapshot` events in one another (argstream never nests them at all). */
const MAX_SNAPSHOT_NESTING = 256;

/** The final events that name a call of the turn (a `provider-tool-result` names the call it is the result of). */
const CALL_EVENTS: ReadonlySet<string> = new Set(['tool-call', 'provider-tool-call', 'tool-call-incomplete', 'tool-call-failed']);

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

/** A conversation event, as the builder reads one a stage before made. */
type FinalEvent = Extract<PipelineEvent, { readonly type: 'message' | 'reasoning' | 'refusal' | 'structured' | 'tool-call' | 'provider-tool-call' | 'provider-tool-result' | 'tool-call-incomplete' | 'tool-call-failed' }>;

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
  /** Reads the AI SDK's `fullStream` parts, once one arrives. */
  #aiSdk: ProviderAdapter | undefined;
  /** How many AI SDK parts arrived, and the last one's type (for the message of a cut stream). */
  #aiSdkParts = 0;
  #aiSdkLast = '';
  /** Every non-empty call id of the turn so far, with the slot of the call that holds it. */
  readonly #ids = new Map<string, HeldId>();
  readonly #maxDepth: number;
  /** How many `snapshot` events the event at hand is inside. */
  #nesting = 0;

  constructor(options: TurnBuilderOptions = {}, reading: PartSource = {}) {
    this.#options = options;
    this.#reading = reading;
    this.#messages = options.messages !== false;
    this.#passthrough = options.passthrough === true;
    this.#maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
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
      this.#aiSdkParts++;
      this.#aiSdkLast = event.type;
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
      case 'snapshot':
        this.#snapshotEvent(event.events, out);
        break;
      case 'tool-call-progress':
      case 'structured-progress':
        checkIndex(event);
        checkFragment(event.fragment, this.#maxDepth);
        if (event.type === 'tool-call-progress') {
          checkString(event, 'toolCallId');
          checkString(event, 'toolName');
          this.#claim(event.toolCallId, event.toolName, event.index, false);
        }
        // A stage before parses this slot's arguments: leave them to it.
        if (!this.#reported.has(event.index)) this.#reportedBefore(event.index);
        out.push(event);
        break;
      case 'field-start':
      case 'field-delta':
      case 'field-end':
      case 'path-update':
        this.#view(event);
        out.push(event);
        break;
      default:
        if (FINAL_EVENTS.has(event.type)) {
          this.#checkFinal(event as FinalEvent);
          this.#reportedBefore((event as FinalEvent).index);
        }
        out.push(event);
    }
    return out;
  }

  /** A `snapshot`'s events, read in its place (a resumed relay's turn so far: as if each had come). */
  #snapshotEvent(events: unknown, out: PipelineEvent[]): void {
    if (!Array.isArray(events)) throw invalidEvent('a `snapshot` event without its `events` array');
    if (this.#nesting >= Math.min(this.#maxDepth, MAX_SNAPSHOT_NESTING)) {
      throw new JsonStreamError('max-depth', `snapshots nested deeper than ${Math.min(this.#maxDepth, MAX_SNAPSHOT_NESTING)}`, 0, '');
    }
    this.#nesting++;
    try {
      for (const inner of events as PipelineEvent[]) this.push(inner, out);
    } finally {
      this.#nesting--;
    }
  }

  /** A conversation event of a stage before: its shape, its values, and the id of the call it names. */
  #checkFinal(event: FinalEvent): void {
    checkIndex(event);
    const fields = event as unknown as Record<string, unknown>;
    switch (event.type) {
      case 'message':
      case 'reasoning':
      case 'refusal':
        checkString(event, 'text');
        return;
      case 'structured':
        checkJson(fields['data'], 'the `data` of a `structured` event', this.#maxDepth);
        return;
      case 'provider-tool-result':
        checkString(event, 'toolCallId');
        checkString(event, 'toolName', true);
        if (fields['result'] !== undefined) checkJson(fields['result'], 'the `result` of a `provider-tool-result` event', this.#maxDepth);
        return;
      default:
        break;
    }
    checkString(event, 'toolCallId');
    checkString(event, 'toolName');
    if (event.type === 'tool-call' || event.type === 'provider-tool-call') {
      checkJson(fields['arguments'], `the \`arguments\` of a \`${event.type}\` event`, this.#maxDepth);
    } else if (event.type === 'tool-call-incomplete') {
      if (fields['partialArguments'] !== undefined) checkJson(fields['partialArguments'], 'the `partialArguments` of a `tool-call-incomplete` event', this.#maxDepth);
      checkString(event, 'path', true);
    } else if (typeof fields['error'] !== 'object' || fields['error'] === null) {
      throw invalidEvent('a `tool-call-failed` event without its `error`');
    }
    if (CALL_EVENTS.has(event.type)) this.#claim(event.toolCallId, event.toolName, event.index, true);
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
   */
  #claim(toolCallId: string, toolName: string, index: number, ends: boolean): void {
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
    const aiSdk = this.#aiSdk;
    if (aiSdk !== undefined) {
      for (const streamEvent of aiSdk.end()) this.push(streamEvent, out);
      if (!(aiSdk.complete?.() ?? this.#finished !== undefined)) {
        const count = `${this.#aiSdkParts} part${this.#aiSdkParts === 1 ? '' : 's'}`;
        throw new ProviderError(
          'ai-sdk',
          'invalid-stream',
          `ai-sdk: the stream ended before the \`finish\` (or \`abort\`) part: it was cut (after ${count}, the last "${this.#aiSdkLast}"), so the turn is incomplete`,
          { code: 'truncated' },
        );
      }
    }
    const open = [...this.#slots.values()].sort((a, b) => a.index - b.index);
    this.#slots.clear();
    for (const slot of open) this.#close(slot, out, true);
    this.#releaseIncomplete(out);
    return out;
  }

  /** A stage before this one reported slot `index`: forget it here. */
  #reportedBefore(index: number): void {
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
    let slot = this.#slots.get(index);
    if (slot === undefined) {
      slot = this.#open(index, part.type);
      this.#slots.set(index, slot);
    }
    slot.metadata = mergeMetadata(slot.metadata, event.metadata);
    switch (part.type) {
      case 'message':
      case 'reasoning':
      case 'refusal':
        if ('parts' in slot) slot.parts.push(part.text);
        if (this.#passthrough) out.push(event);
        break;
      case 'tool-call-start':
        if ('scanner' in slot) {
          // First non-empty value wins per field (RFD 012).
          if (slot.name === '' && part.toolName) slot.name = part.toolName;
          if (slot.id === '' && part.toolCallId) {
            this.#claim(part.toolCallId, slot.name, index, false);
            slot.id = part.toolCallId;
          }
          if (part.providerExecuted === true) slot.provider = true;
        }
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
    let slot = this.#slots.get(index);
    if (slot === undefined) {
      slot = this.#open(index, 'tool-call-start');
      this.#slots.set(index, slot);
    }
    if (!('scanner' in slot)) return;
    if (slot.name === '' && event.toolName) slot.name = event.toolName;
    if (slot.id === '' && event.toolCallId) {
      this.#claim(event.toolCallId, slot.name, index, false);
      slot.id = event.toolCallId;
    }
    if (event.providerExecuted === true) slot.provider = true;
    slot.metadata = mergeMetadata(slot.metadata, event.metadata);
    if (event.argumentsDelta !== '') this.#feed(slot, event.argumentsDelta, out);
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

  #open(index: number, type: string): Slot {
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
      collector: undefined,
      aggregator: undefined,
      builder: undefined,
      error: undefined,
      begun: false,
    };
  }

  #scanner(slot: JsonSlot): JsonScanner {
    if (slot.scanner !== undefined) return slot.scanner;
    if (this.#options.progress) {
      slot.collector = new FragmentCollector();
      slot.aggregator = new FragmentAggregator();
      slot.scanner = new JsonScanner(slot.collector, this.#options);
      slot.collector.scanner = slot.scanner;
    } else {
      slot.builder = new ValueBuilder();
      slot.scanner = new JsonScanner(slot.builder, this.#options, this.#reading.runs);
    }
    return slot.scanner;
  }

  /**
   * Push `chunk` into the slot's scanner, or end it (`undefined`). Fragments it finds — even
   * before an error — go to the aggregator and `out`; in value mode nothing is collected.
   */
  #step(slot: JsonSlot, out: PipelineEvent[], chunk: string | undefined): void {
    const scanner = this.#scanner(slot);
    const collector = slot.collector;
    if (collector === undefined) {
      if (chunk === undefined) scanner.end();
      else scanner.push(chunk);
      return;
    }
    const fragments: StreamFragment[] = [];
    collector.out = fragments;
    try {
      if (chunk === undefined) scanner.end();
      else scanner.push(chunk);
    } finally {
      if (fragments.length > 0) this.#deliver(slot, fragments, out);
    }
  }


  #deliver(slot: JsonSlot, fragments: StreamFragment[], out: PipelineEvent[]): void {
    const aggregator = slot.aggregator as FragmentAggregator;
    for (const fragment of fragments) {
      aggregator.push(fragment);
      out.push(
        slot.kind === 'structured'
          ? { type: 'structured-progress', index: slot.index, fragment }
          : slot.provider
            ? { type: 'tool-call-progress', index: slot.index, toolCallId: slot.id, toolName: slot.name, providerExecuted: true, fragment }
            : { type: 'tool-call-progress', index: slot.index, toolCallId: slot.id, toolName: slot.name, fragment },
      );
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

  #snapshot(slot: JsonSlot): JsonValue | undefined {
    return slot.aggregator !== undefined ? slot.aggregator.snapshot() : slot.builder?.snapshot();
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
    const value = this.#snapshot(slot);
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
            partialArguments: this.#snapshot(slot),
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
