/**
 * `TurnStore`: one immutable, structurally shared snapshot of a streaming turn — its text, its
 * reasoning, and each tool call's input as it streams, typed by tool — for any UI.
 *
 * @module
 */
import { escapeToken } from '../json/json-pointer.ts';
import type { JsonLimits } from '../json/scanner.ts';
import type { PushCore } from '../core.ts';
import type { PartReader } from '../providers/adapter.ts';
import type { DecoderCore } from '../relay/relay-decoder.ts';
import { TurnBuilderBase, type EventsBefore, type ProgressReading } from '../turn/turn-builder.ts';
import type {
  FieldEvent,
  FinishReason,
  JsonValue,
  PathUpdate,
  PipelineEvent,
  StreamWarning,
  ToolCallArgumentProgress,
  Usage,
} from '../types.ts';
import type { StandardSchemaIssue, StandardSchemaResult } from '../views/argument-validation-core.ts';
import { CompletionLog } from './completion-log.ts';
import type { FieldFragments } from './field-fragments.ts';
import type { FragmentInput, readFragments } from './fragment-input.ts';
import type { PathUpdateFragments } from './fragments.ts';
import { SCANNED_INPUT_EVENT, type ScannedInput, type ScannedInputEvent } from './scanned-input.ts';
import { IncompleteToolCallError, type TurnError } from './turn-error.ts';
import type { CompletePaths, ToolCallSnapshot, ToolCallStatus, ToolSchemas } from './tools.ts';

/** Where the turn stands. */
export type TurnStatus = 'waiting' | 'streaming' | 'done' | 'error';

/** The turn so far: what a UI renders. Immutable; a new object whenever something changed. */
export interface TurnSnapshot<T extends ToolSchemas = {}> {
  /**
   * `waiting` before the first event, `streaming` while events arrive, `done` once the stream
   * ended, `error` once it failed (see `error`; what arrived before stays).
   */
  readonly status: TurnStatus;
  /** The assistant's text so far. */
  readonly text: string;
  /** The model's reasoning (thinking) text so far. */
  readonly reasoning: string;
  /** Why the model declined, or `undefined` (see `Turn.refusal`). */
  readonly refusal: string | undefined;
  /** The structured-output document, once complete (`ProviderEventStream`'s `structuredOutput`). */
  readonly structured: JsonValue | undefined;
  /**
   * The tool calls, in the order they began, whatever stage came before the store: calls that
   * stream side by side by content slot, a later step's after the calls that ended before it.
   */
  readonly calls: readonly ToolCallSnapshot<T>[];
  /** The normalized finish reason, once the provider said it. */
  readonly finishReason: FinishReason | undefined;
  /** The provider's own finish reason (`"tool_use"`, `"MAX_TOKENS"`, …), once it said it. */
  readonly rawFinishReason: string | undefined;
  readonly usage: Usage | undefined;
  /** What went wrong on the way and was recovered from (a sequence gap). */
  readonly warnings: readonly StreamWarning[];
  /**
   * Why the stream failed (`status: 'error'`): a `ProviderError`, a `RelayError`, an abort's
   * `DOMException`, … (see {@link TurnError}: tell them apart with `instanceof`).
   */
  readonly error: TurnError | undefined;
}

/**
 * When the store tells its listeners: `'frame'` at most once per animation frame
 * (`requestAnimationFrame`; once per macrotask where there is none), `'task'` once per macrotask,
 * `'sync'` at every change, or a function that is given the notification to run when it likes
 * (called once per batch of changes).
 */
export type TurnStoreSchedule = 'frame' | 'task' | 'sync' | ((notify: () => void) => void);

/** Options of {@link TurnStore}. */
export interface TurnStoreOptions<T extends ToolSchemas = {}> extends JsonLimits {
  /** The application's tools (`defineTools`): each call of one is typed and validated. */
  readonly tools?: T;
  /** When listeners are told of changes. The end (or the error) is always told at once. @default 'frame' */
  readonly schedule?: TurnStoreSchedule;
}

/** Options of {@link TurnStore.consume}. */
export interface ConsumeOptions {
  /**
   * For a `Response` straight from a provider: the decoder of its bytes,
   * `new ProviderEventDecoder({ provider })` (one per response; for `'ag-ui'`, `'langchain'` or
   * `'gemini-interactions'`, their definition from their entry point, such as
   * `{ provider: GEMINI_INTERACTIONS_PROVIDER }`). Without it a `Response` is read
   * as an argstream relay (`EventStreamEncoder`'s SSE, or NDJSON by its `content-type`), and a page
   * bundles no provider's adapter.
   */
  readonly decoder?: PushCore<Uint8Array, unknown>;
  /** Stop reading: the source is cancelled and the turn ends in `error` with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** A `Response`'s body, and the core that decodes it. */
export interface OpenedResponse {
  readonly reader: ReadableStreamDefaultReader<unknown>;
  readonly core: DecoderCore<unknown>;
}

/**
 * How a store reads the sources that are not argstream's events: read when a source needs it, so
 * that a binding can give it once it has loaded it.
 */
export interface SourceReading {
  /** The AI SDK's `fullStream` parts, read as the `'ai-sdk'` provider's events. */
  parts?: PartReader | undefined;
  /** An argstream relay's `Response` (without a `decoder`): its body and its decoder. */
  openRelay?: ((response: Response) => Promise<OpenedResponse>) | undefined;
  /**
   * Field events (`FieldEventStream`'s, from a relay or a stream of events) read back as the
   * fragments of their call's input (`newFieldFragments`); without it a call streamed as field
   * events fails with a `TypeError`.
   */
  fields?: ((maxDepth: number) => FieldFragments) | undefined;
  /**
   * Path updates (a relay's, an argstream server's `data-argstream-tool-input` chunks) read back
   * as the fragments of their call's input (`newPathUpdateFragments`); without it a call streamed
   * as path updates fails with a `TypeError`.
   */
  updates?: ((maxDepth: number) => PathUpdateFragments) | undefined;
  /**
   * The reading of the views of a call's input as fragments (`readFragments`): progress events,
   * and field events and path updates with their readers above; without it a call streamed so
   * fails with a `TypeError`. A store that parses raw argument text with `SCANNED_INPUT` needs
   * none for that text.
   */
  fragments?: typeof readFragments | undefined;
  /**
   * The events a stage before made (conversation and progress events, raw argument deltas,
   * `snapshot`s: a relay's, a stream's), checked and read by the turn builder
   * (`readEventBefore`); without it they pass through unread.
   */
  before?: EventsBefore | undefined;
}

export { IncompleteToolCallError } from './turn-error.ts';
export type { ToolCallError, TurnError } from './turn-error.ts';

/** The paths complete at a snapshot: a view of its call's log, frozen at that moment. */
class Completed implements CompletePaths {
  readonly #log: CompletionLog;
  readonly #tick: number;
  readonly size: number;

  constructor(log: CompletionLog) {
    this.#log = log;
    this.#tick = log.tick;
    this.size = log.count;
  }

  /** The log's event number when this view was made. */
  get tick(): number {
    return this.#tick;
  }

  has(pointer: string): boolean {
    return this.#log.isComplete(pointer, this.#tick);
  }
}

const NO_PATHS = new Completed(new CompletionLog());

/** The input of a call before its first member. */
const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const _ in value) return false;
  return true;
}

/** One call as the store builds it. */
class CallState {
  toolCallId: string;
  index: number;
  toolName: string;
  providerExecuted = false;
  status: ToolCallStatus = 'streaming';
  /** Its input so far: from raw argument text (the store's builder's) or from fragments. */
  input: ScannedInput | FragmentInput | undefined;
  /** How its input arrives, once some did: raw text or the progress of a stage, path updates or field events. */
  source: 'progress' | 'updates' | 'fields' | undefined;
  updates: PathUpdateFragments | undefined;
  fields: FieldFragments | undefined;
  /** Which paths (JSON Pointers) are complete, shared by every `Completed` view (a `ScannedInput`'s own, once it is the input). */
  completed = new CompletionLog();
  /** The input once complete (validated), or as the call ended. */
  final: { value: unknown } | undefined;
  /** The complete arguments as the model sent them (what `JSON.parse` makes), before any schema. */
  arguments: JsonValue | undefined;
  issues: readonly StandardSchemaIssue[] | undefined;
  error: Error | undefined;
  result: { value: unknown } | undefined;
  resultIsError = false;
  /** The snapshot object last handed out, and whether anything changed since. */
  view: ToolCallSnapshot<ToolSchemas> | undefined;
  dirty = true;
  /** The run of calls it began in (see `TurnStore.#calls`): calls are listed by run, then by slot. */
  readonly run: number;

  constructor(toolCallId: string, index: number, toolName: string, run: number) {
    this.toolCallId = toolCallId;
    this.index = index;
    this.toolName = toolName;
    this.run = run;
  }
}

const NOOP_SCHEDULE = (): void => undefined;

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'the stream was aborted', { cause: reason });
}

/**
 * {@link TurnStore} that reads only what `reading` says it reads beyond argstream's events (none:
 * no AI SDK parts, no relay `Response`). The AI SDK chat transport's store, and a binding's until
 * it has loaded what a store reads.
 * @internal
 */
export class TurnStoreBase<T extends ToolSchemas = {}> {
  readonly #tools: ToolSchemas | undefined;
  readonly #maxDepth: number;
  readonly #schedule: (notify: () => void) => void;
  readonly #builder: TurnBuilderBase;
  readonly #reading: SourceReading;
  readonly #listeners = new Set<() => void>();
  readonly #out: PipelineEvent[] = [];
  /**
   * Every call, in the order it began; the open ones also by id and by slot.
   *
   * A stage before the store may have taken the calls' start parts (`ConversationEventStream({
   * progress: true })`): a call then first shows with its first fragment, which may come after a
   * later call's (three interleaved OpenAI calls whose arguments arrive last first). Calls that
   * stream side by side began in the order of their slots (every adapter numbers slots in order of
   * appearance), so calls are listed by slot within a run: calls that could have begun together.
   * A call starts a new run when its slot is not after every slot of the run that has ended, or is
   * still open (a later step that reuses slots), or it has none. The array is sorted when it is
   * read, and only when a call came out of order since: `sort` of a nearly sorted array is linear.
   */
  readonly #calls: CallState[] = [];
  /** The run new calls join, and the last slot of it whose call has ended. */
  #run = 0;
  #runEnded = -Infinity;
  /** A call was added before a call of the same run in a later slot: `#calls` must be sorted. */
  #unordered = false;
  readonly #byId = new Map<string, CallState>();
  readonly #bySlot = new Map<number, CallState>();
  /** The text of each text slot, in the order the slots began. */
  readonly #texts = new Map<number, { kind: 'message' | 'reasoning' | 'refusal'; text: string }>();
  #structured: JsonValue | undefined;
  #finishReason: FinishReason | undefined;
  #rawFinishReason: string | undefined;
  #usage: Usage | undefined;
  #warnings: readonly StreamWarning[] = [];
  #status: TurnStatus = 'waiting';
  #error: Error | undefined;
  /** A change since the last snapshot, and since the last notification. */
  #dirty = true;
  #scheduled = false;
  #snapshot: TurnSnapshot<T> | undefined;
  #callViews: ToolCallSnapshot<T>[] = [];
  #callsChanged = true;
  /** Validations still running (an asynchronous schema): settled when all are. */
  #validations: Promise<void> | undefined;
  #finished: Promise<TurnSnapshot<T>> | undefined;
  #resolveFinished: ((snapshot: TurnSnapshot<T>) => void) | undefined;

  /**
   * `text`: how a call's raw argument text is parsed — into its input straight from the scanner
   * (`SCANNED_INPUT`: the bindings' and the AI SDK chat transport's stores), or into progress
   * events read back as fragments (`FRAGMENT_PROGRESS`: `TurnStore`'s, which bundles that reading
   * of fragments for the other sources anyway). Both show the same turn.
   */
  constructor(options: TurnStoreOptions<T> = {}, reading: SourceReading = {}, text?: ProgressReading) {
    this.#tools = options.tools;
    this.#reading = reading;
    const { tools: _tools, schedule, ...limits } = options;
    this.#maxDepth = limits.maxDepth ?? 256;
    this.#schedule = scheduler(schedule ?? 'frame');
    this.#builder = new TurnBuilderBase({ ...limits, progress: true, passthrough: true, messages: true, isolateErrors: true }, reading, text);
  }

  /** The turn ended (done or error): nothing more is read into it. @internal */
  get over(): boolean {
    return this.#status === 'done' || this.#status === 'error';
  }

  /** The final snapshot, once the turn ended (done or error). */
  get finished(): Promise<TurnSnapshot<T>> {
    if (this.#finished === undefined) {
      if (this.over) this.#finished = Promise.resolve(this.getSnapshot());
      else this.#finished = new Promise((resolve) => (this.#resolveFinished = resolve));
    }
    return this.#finished;
  }

  /**
   * Listen for changes (React's `useSyncExternalStore` contract); returns the unsubscribe function.
   * Bound to the store: pass it as it is.
   */
  readonly subscribe = (listener: () => void): (() => void) => {
    const entry = (): void => listener();
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  };

  /** The turn so far: the same object until something changed. Bound to the store: pass it as it is. */
  readonly getSnapshot = (): TurnSnapshot<T> => {
    if (this.#dirty || this.#snapshot === undefined) this.#snapshot = this.#build();
    return this.#snapshot;
  };

  /**
   * Apply one event (what the `writable` does per chunk). Returns a promise only while a call's
   * schema validates asynchronously: wait for it before the next event to keep their order.
   * @throws what the turn builder refuses (a `TaggedToolCallError` `'duplicate-tool-call-id'`, a
   *   `RelayError` `'invalid-data'`, a `JsonStreamError` `'max-depth'`, an AI SDK part's error),
   *   after applying what the event made before it; `writable` and `consume` put it in the
   *   snapshot, a caller of `push` passes it to {@link TurnStore.fail}.
   */
  push(event: unknown): Promise<void> | undefined {
    if (this.over) return undefined;
    if (this.#status === 'waiting') this.#status = 'streaming';
    const out = this.#out;
    let pending: Promise<void> | undefined;
    try {
      this.#builder.push(event as PipelineEvent, out);
    } finally {
      // What the event made before an error (a duplicate call id, a malformed event) is applied
      // first: the error comes after it.
      pending = this.#applyAll(out);
    }
    this.#changed();
    return pending;
  }

  /** The stream ended: settle every open call, then tell the listeners at once. */
  end(): Promise<void> | undefined {
    if (this.over) return undefined;
    const out = this.#out;
    let pending: Promise<void> | undefined;
    try {
      this.#builder.end(out);
    } finally {
      pending = this.#applyAll(out);
    }
    for (const call of [...this.#bySlot.values(), ...this.#byId.values()]) {
      if (call.status === 'streaming') this.#settle(call, 'failed', undefined, new IncompleteToolCallError(call.toolCallId, call.toolName, undefined));
    }
    const done = (): void => {
      this.#status = 'done';
      this.#finish();
    };
    const validations = this.#validations;
    if (pending === undefined && validations === undefined) {
      done();
      return undefined;
    }
    return Promise.all([pending, validations]).then(done);
  }

  /** The stream failed: the error goes in the snapshot, open calls fail with it, listeners are told at once. */
  fail(reason: unknown): void {
    if (this.over) return;
    const error = toError(reason);
    for (const call of this.#calls) if (call.status === 'streaming') this.#settle(call, 'failed', undefined, error);
    this.#status = 'error';
    this.#error = error;
    this.#finish();
  }

  #finish(): void {
    this.#dirty = true;
    this.#notify();
    const snapshot = this.getSnapshot();
    this.#resolveFinished?.(snapshot);
    this.#resolveFinished = undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Events

  /** Apply what the builder made (`out`, emptied); the last pending validation, if any. */
  #applyAll(out: PipelineEvent[]): Promise<void> | undefined {
    let pending: Promise<void> | undefined;
    try {
      for (let i = 0; i < out.length; i++) pending = this.#apply(out[i] as PipelineEvent) ?? pending;
    } finally {
      out.length = 0;
    }
    return pending;
  }

  #apply(event: PipelineEvent): Promise<void> | undefined {
    // The news of a call's input from the store's own builder (`SCANNED_INPUT`).
    if ((event.type as unknown) === SCANNED_INPUT_EVENT) {
      this.#input(event as unknown as ScannedInputEvent);
      return undefined;
    }
    switch (event.type) {
      case 'part': {
        const part = event.part;
        switch (part.type) {
          case 'message':
          case 'reasoning':
          case 'refusal':
            this.#text(event.index, part.type, part.text, false);
            return undefined;
          case 'tool-call-start': {
            const call = this.#call(part.toolCallId, event.index, part.toolName);
            if (part.providerExecuted === true && !call.providerExecuted) {
              call.providerExecuted = true;
              this.#touch(call);
            }
            return undefined;
          }
          default:
            return undefined;
        }
      }
      case 'message':
      case 'reasoning':
      case 'refusal':
        this.#text(event.index, event.type, event.text, true);
        return undefined;
      case 'structured':
        this.#structured ??= event.data;
        this.#dirty = true;
        return undefined;
      case 'tool-call-progress':
      case 'path-update':
      case 'field-start':
      case 'field-delta':
      case 'field-end':
        this.#input(event);
        return undefined;
      case 'tool-call':
      case 'provider-tool-call': {
        const call = this.#call(event.toolCallId, event.index, event.toolName);
        if (event.type === 'provider-tool-call') call.providerExecuted = true;
        return this.#complete(call, event.arguments, event.truncated === true);
      }
      case 'provider-tool-result': {
        const call = this.#find(event.toolCallId, undefined) ?? this.#closedCall(event.toolCallId);
        if (call !== undefined) {
          call.result = { value: event.result };
          call.resultIsError = event.isError === true;
          this.#touch(call);
        }
        return undefined;
      }
      case 'tool-call-incomplete': {
        const call = this.#call(event.toolCallId, event.index, event.toolName);
        if (event.providerExecuted === true) call.providerExecuted = true;
        // What streamed in is the partial input already (the same objects); otherwise the event's.
        // A call the store failed already (its input broke a limit here) keeps that error.
        if (call.status !== 'streaming') this.#release(call);
        else this.#settle(call, 'failed', call.input !== undefined && call.source !== 'fields' ? undefined : event.partialArguments, new IncompleteToolCallError(event.toolCallId, event.toolName, event.stopReason));
        return undefined;
      }
      case 'tool-call-failed': {
        const call = this.#call(event.toolCallId, event.index, event.toolName);
        if (event.providerExecuted === true) call.providerExecuted = true;
        if (call.status !== 'streaming') this.#release(call);
        else this.#settle(call, 'failed', undefined, event.error);
        return undefined;
      }
      case 'finished':
        this.#finishReason = event.reason;
        this.#rawFinishReason = event.rawReason;
        this.#usage = event.usage;
        this.#warnings = event.warnings ?? [];
        this.#dirty = true;
        return undefined;
      default:
        return undefined;
    }
  }

  #text(index: number, kind: 'message' | 'reasoning' | 'refusal', text: string, whole: boolean): void {
    const slot = this.#texts.get(index);
    if (slot === undefined) this.#texts.set(index, { kind, text });
    else if (whole) slot.text = text;
    else slot.text += text;
    this.#dirty = true;
  }

  /** The open call with this id (or, without one, at this slot); a new one if there is none. */
  #call(toolCallId: string | undefined, index: number | undefined, toolName: string | undefined): CallState {
    let call = this.#find(toolCallId, index);
    if (call === undefined) {
      if (index === undefined || index <= this.#runEnded || this.#bySlot.has(index)) {
        this.#run++;
        this.#runEnded = -Infinity;
      }
      call = new CallState(toolCallId ?? '', index ?? -1, toolName ?? '', this.#run);
      const last = this.#calls[this.#calls.length - 1];
      if (last !== undefined && last.run === call.run && last.index > call.index) this.#unordered = true;
      this.#calls.push(call);
      this.#callsChanged = true;
      if (call.toolCallId !== '') this.#byId.set(call.toolCallId, call);
      if (index !== undefined) this.#bySlot.set(index, call);
    } else {
      if (toolCallId && call.toolCallId === '') {
        call.toolCallId = toolCallId;
        this.#byId.set(toolCallId, call);
        this.#touch(call);
      }
      if (toolName && call.toolName === '') {
        call.toolName = toolName;
        this.#touch(call);
      }
    }
    return call;
  }

  #find(toolCallId: string | undefined, index: number | undefined): CallState | undefined {
    const id = toolCallId ?? '';
    let call = id !== '' ? this.#byId.get(id) : undefined;
    if (call === undefined && index !== undefined) {
      const atSlot = this.#bySlot.get(index);
      // A different id at the same slot is another call (a slot reused by a later step).
      if (atSlot !== undefined && (id === '' || atSlot.toolCallId === '' || atSlot.toolCallId === id)) call = atSlot;
    }
    return call;
  }

  /** A call that already ended, by id (a provider-run call's result comes after it). */
  #closedCall(toolCallId: string): CallState | undefined {
    for (let i = this.#calls.length - 1; i >= 0; i--) if ((this.#calls[i] as CallState).toolCallId === toolCallId) return this.#calls[i];
    return undefined;
  }

  #release(call: CallState): void {
    if (this.#byId.get(call.toolCallId) === call) this.#byId.delete(call.toolCallId);
    if (this.#bySlot.get(call.index) === call) this.#bySlot.delete(call.index);
  }

  #touch(call: CallState): void {
    call.dirty = true;
    this.#callsChanged = true;
    this.#dirty = true;
  }

  /**
   * A change of a call's input: its raw text parsed by the store's builder (`scanned-input.ts`), or
   * a view of it read back as fragments by `reading.fragments` (a stage before's progress, a path
   * update, a field event), applied when that is the call's source.
   */
  #input(event: ScannedInputEvent | ToolCallArgumentProgress | PathUpdate | FieldEvent): void {
    let source: CallState['source'] = 'progress';
    if (event.type === 'path-update') {
      if (event.structured === true) return;
      source = 'updates';
    } else if (event.type !== SCANNED_INPUT_EVENT && event.type !== 'tool-call-progress') {
      if (event.toolCallId === undefined && event.toolName === undefined) return; // a structured document's fields
      source = 'fields';
    }
    const call = this.#call(event.toolCallId, event.index, event.type === 'path-update' ? undefined : event.toolName);
    if (source === 'progress' && (event as ToolCallArgumentProgress).providerExecuted === true) call.providerExecuted = true;
    if (call.source === undefined) call.source = source;
    if (call.source !== source || call.status !== 'streaming') return;
    const reading = this.#reading;
    const input = call.input;
    try {
      if (event.type !== SCANNED_INPUT_EVENT) {
        // Given with the readers of a source that sends these (a binding loads them with it).
        (reading.fragments as typeof readFragments)(call, event, reading, this.#maxDepth);
      } else if (input === undefined) {
        call.input = event.input;
        call.completed = event.input.log;
      } else if (input !== event.input) throw new TypeError('TurnStore: a call with two inputs');
    } catch (error) {
      // Still findable until its conversation event: the rest of its input is not a new call.
      this.#settle(call, 'failed', undefined, toError(error), false);
      return;
    }
    this.#touch(call);
  }

  /** The call's complete arguments arrived: validate them against its tool's schema, if any. */
  #complete(call: CallState, args: JsonValue, truncated: boolean): Promise<void> | undefined {
    if (call.status !== 'streaming') {
      this.#release(call);
      return undefined;
    }
    // The value built as the input streamed, when it is whole: unchanged parts keep their identity.
    const input = call.input;
    if (!truncated && input !== undefined && input.complete) args = input.shown() as JsonValue;
    this.#markAllComplete(call, args);
    // Arrived whole: not open any more (the end does not cut it), its input the arguments until validated.
    this.#release(call);
    call.final = { value: args };
    call.arguments = args;
    const schema = call.providerExecuted ? undefined : this.#tools?.[call.toolName];
    if (schema === undefined || !Object.hasOwn(this.#tools as object, call.toolName)) {
      this.#settle(call, 'complete', args, undefined);
      return undefined;
    }
    let result: StandardSchemaResult | Promise<StandardSchemaResult>;
    try {
      result = schema['~standard'].validate(args);
    } catch (error) {
      this.#settle(call, 'failed', args, toError(error));
      return undefined;
    }
    if (!(result instanceof Promise)) {
      this.#validated(call, args, result, truncated);
      return undefined;
    }
    const validation = result.then(
      (value) => {
        if (call.status !== 'streaming') return; // the stream failed meanwhile
        this.#validated(call, args, value, truncated);
        this.#changed();
      },
      (error: unknown) => {
        if (call.status !== 'streaming') return;
        this.#settle(call, 'failed', args, toError(error));
        this.#changed();
      },
    );
    const before = this.#validations;
    const all = before === undefined ? validation : Promise.all([before, validation]).then(() => undefined);
    this.#validations = all.then(() => {
      if (this.#validations === tail) this.#validations = undefined;
    });
    const tail = this.#validations;
    return validation;
  }

  #validated(call: CallState, args: JsonValue, result: StandardSchemaResult, _truncated: boolean): void {
    if (result.issues !== undefined) {
      call.issues = result.issues;
      this.#settle(call, 'invalid', args, undefined);
    } else this.#settle(call, 'complete', result.value, undefined);
  }

  /** Every path of the final arguments is complete (a call that arrived whole, or by fields). */
  #markAllComplete(call: CallState, args: JsonValue): void {
    const completed = call.completed;
    if (completed.isComplete('', completed.tick)) return;
    // Members before their container, as the fragments complete them; an explicit stack, for a
    // value as deep as the limits allow.
    const stack: Array<{ readonly value: JsonValue; readonly pointer: string; readonly parent: string | undefined; entered: boolean }> = [
      { value: args, pointer: '', parent: undefined, entered: false },
    ];
    for (let top = stack[0]; top !== undefined; top = stack[stack.length - 1]) {
      const { value, pointer } = top;
      if (top.entered || typeof value !== 'object' || value === null) {
        stack.pop();
        completed.complete(pointer, top.parent);
        continue;
      }
      top.entered = true;
      const members: Array<(typeof stack)[number]> = [];
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) members.push({ value: value[i] as JsonValue, pointer: `${pointer}/${i}`, parent: pointer, entered: false });
      else for (const key of Object.keys(value)) members.push({ value: value[key] as JsonValue, pointer: `${pointer}/${escapeToken(key)}`, parent: pointer, entered: false });
      // Pushed last first, so they complete in order.
      for (let i = members.length - 1; i >= 0; i--) stack.push(members[i] as (typeof stack)[number]);
    }
  }

  /**
   * The call ends with `status`. `release`: it is no longer found by its id and slot (its
   * conversation event came, or the turn ended); a call failed by its own input here stays
   * findable until then, so that the rest of its input is not taken for a new call.
   */
  #settle(call: CallState, status: ToolCallStatus, input: unknown, error: Error | undefined, release = true): void {
    if (call.run === this.#run && call.index > this.#runEnded) this.#runEnded = call.index;
    call.status = status;
    if (input !== undefined) call.final = { value: input };
    call.error = error;
    if (release) this.#release(call);
    this.#touch(call);
  }

  // -------------------------------------------------------------------------------------------
  // Snapshots and notifications

  #changed(): void {
    this.#dirty = true;
    this.#notify(false);
  }

  #notify(now = true): void {
    if (this.#listeners.size === 0) return;
    if (now) {
      for (const listener of [...this.#listeners]) listener();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => {
      this.#scheduled = false;
      if (this.#status === 'done' || this.#status === 'error') return; // told already
      for (const listener of [...this.#listeners]) listener();
    });
  }

  #build(): TurnSnapshot<T> {
    this.#dirty = false;
    if (this.#callsChanged) {
      if (this.#unordered) {
        // Stable: calls of one slot keep their order.
        this.#calls.sort((a, b) => a.run - b.run || a.index - b.index);
        this.#unordered = false;
      }
      const views: ToolCallSnapshot<T>[] = [];
      let changed = this.#callViews.length !== this.#calls.length;
      for (let i = 0; i < this.#calls.length; i++) {
        const call = this.#calls[i] as CallState;
        const view = this.#callView(call) as ToolCallSnapshot<T>;
        if (view !== this.#callViews[i]) changed = true;
        views.push(view);
      }
      if (changed) this.#callViews = views;
      this.#callsChanged = false;
    }
    let text = '';
    let reasoning = '';
    let refusal: string | undefined;
    for (const slot of this.#texts.values()) {
      if (slot.kind === 'message') text += slot.text;
      else if (slot.kind === 'reasoning') reasoning += slot.text;
      else refusal = (refusal ?? '') + slot.text;
    }
    if (refusal === undefined && this.#finishReason === 'refusal') refusal = text;
    const previous = this.#snapshot;
    const snapshot: TurnSnapshot<T> = {
      status: this.#status,
      text,
      reasoning,
      refusal,
      structured: this.#structured,
      calls: this.#callViews,
      finishReason: this.#finishReason,
      rawFinishReason: this.#rawFinishReason,
      usage: this.#usage,
      warnings: this.#warnings,
      error: this.#error,
    };
    if (previous !== undefined && sameSnapshot(previous, snapshot)) return previous;
    return Object.freeze(snapshot);
  }

  #callView(call: CallState): ToolCallSnapshot<ToolSchemas> {
    if (!call.dirty && call.view !== undefined) return call.view;
    call.dirty = false;
    let input = call.final !== undefined ? call.final.value : (call.input?.shown() ?? EMPTY);
    // The input's root object just opened: still the `{}` shown before it, the same object.
    if (input !== EMPTY && call.view?.input === EMPTY && isEmptyObject(input)) input = EMPTY;
    const log = call.completed;
    const shown = call.view?.complete as Completed | undefined;
    const completed = log.tick === 0 ? NO_PATHS : shown !== undefined && shown !== NO_PATHS && shown.tick === log.tick ? shown : new Completed(log);
    const view: Record<string, unknown> = {
      toolCallId: call.toolCallId,
      index: call.index,
      toolName: call.toolName,
      providerExecuted: call.providerExecuted,
      status: call.status,
      input,
      complete: completed,
    };
    if (call.status === 'complete') view['arguments'] = call.arguments ?? input;
    if (call.status === 'invalid') view['issues'] = call.issues ?? [];
    if (call.status === 'failed') view['error'] = call.error;
    if (call.result !== undefined) view['result'] = call.result.value;
    if (call.resultIsError) view['isError'] = true;
    const previous = call.view as Record<string, unknown> | undefined;
    if (previous !== undefined && sameView(view, previous)) return call.view as ToolCallSnapshot<ToolSchemas>;
    call.view = Object.freeze(view) as unknown as ToolCallSnapshot<ToolSchemas>;
    return call.view;
  }
}

/**
 * Whether two views of a call show the same: every member a view can have, compared by identity.
 * Which members a view has follows from its `status` (`issues`, `error`) and from the values
 * themselves (`result` and `isError` are set only when there is one), so equal values mean equal
 * members. Written out, not over `Object.keys`: this runs at every snapshot of a streaming call.
 */
function sameView(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return (
    a['input'] === b['input'] &&
    a['status'] === b['status'] &&
    a['complete'] === b['complete'] &&
    a['toolCallId'] === b['toolCallId'] &&
    a['toolName'] === b['toolName'] &&
    a['index'] === b['index'] &&
    a['providerExecuted'] === b['providerExecuted'] &&
    a['arguments'] === b['arguments'] &&
    a['issues'] === b['issues'] &&
    a['error'] === b['error'] &&
    Object.is(a['result'], b['result']) &&
    a['isError'] === b['isError']
  );
}

function sameSnapshot<T extends ToolSchemas>(a: TurnSnapshot<T>, b: TurnSnapshot<T>): boolean {
  return (
    a.status === b.status &&
    a.text === b.text &&
    a.reasoning === b.reasoning &&
    a.refusal === b.refusal &&
    a.structured === b.structured &&
    a.calls === b.calls &&
    a.finishReason === b.finishReason &&
    a.rawFinishReason === b.rawFinishReason &&
    a.usage === b.usage &&
    a.warnings === b.warnings &&
    a.error === b.error
  );
}

function scheduler(schedule: TurnStoreSchedule): (notify: () => void) => void {
  if (typeof schedule === 'function') return schedule;
  if (schedule === 'sync') return (notify) => notify();
  const frame = (globalThis as { requestAnimationFrame?: (callback: () => void) => unknown }).requestAnimationFrame;
  if (schedule === 'frame' && typeof frame === 'function') return (notify) => void frame.call(globalThis, notify);
  return typeof setTimeout === 'function' ? (notify) => void setTimeout(notify, 0) : NOOP_SCHEDULE;
}
