/**
 * One tool call's input as the notifications an MCP Apps host sends its view (the app's iframe):
 * `ui/notifications/tool-input-partial` while the arguments stream, then
 * `ui/notifications/tool-input` with the exact arguments, or `ui/notifications/tool-cancelled`
 * when the call did not arrive whole (MCP Apps, SEP-1865, "Notifications (Host → View)").
 *
 * @module
 */
import { ToolCallArgumentsError } from '../errors.ts';
import { newPlace, placeOf } from '../json/deep-fragment.ts';
import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { FieldFragments } from '../store/field-fragments.ts';
import { PathUpdateFragments } from '../store/fragments.ts';
import { Stage } from '../transforms/stage.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import type { FieldEvent, JsonObject, JsonValue, PathUpdate, PipelineEvent, StreamFragment } from '../types.ts';
import type { PushCore } from '../core.ts';

/** A partial input: the arguments so far (MCP Apps' `McpUiToolInputPartialNotification`). */
export interface ToolInputPartialNotification {
  readonly jsonrpc: '2.0';
  readonly method: 'ui/notifications/tool-input-partial';
  /**
   * `arguments`: always an object. A string member is a prefix of its final text, a number,
   * boolean or `null` appears only whole, an array's last element may be partial, a member whose
   * value has not begun is absent. Structurally shared with the previous partial (what did not
   * change is the same object): read it, never mutate it.
   */
  readonly params: { readonly arguments: JsonObject };
}

/** The complete input: exactly what `JSON.parse` makes of the arguments (`McpUiToolInputNotification`). */
export interface ToolInputCompleteNotification {
  readonly jsonrpc: '2.0';
  readonly method: 'ui/notifications/tool-input';
  readonly params: { readonly arguments: JsonObject };
}

/**
 * The call will not get a complete input (`McpUiToolCancelledNotification`): `reason` is one of
 * argstream's own sentences (see {@link ToolInputNotificationCore}), never model output or an
 * error's text.
 */
export interface ToolCancelledNotification {
  readonly jsonrpc: '2.0';
  readonly method: 'ui/notifications/tool-cancelled';
  readonly params: { readonly reason: string };
}

/** What {@link ToolInputNotificationStream} emits: JSON-RPC 2.0 notifications of MCP Apps, host to view. */
export type ToolInputNotification = ToolInputPartialNotification | ToolInputCompleteNotification | ToolCancelledNotification;

/** Options of {@link ToolInputNotificationStream} and {@link ToolInputNotificationCore}. */
export interface ToolInputNotificationStreamOptions extends JsonLimits {
  /**
   * The call to follow, by id (the id the provider gave it, or argstream's `call_<n>_<name>`
   * for providers that give none). Any call with this id, a call the provider runs included.
   * @default undefined (the first call the application runs that begins: see `toolName`)
   */
  readonly toolCallId?: string;
  /**
   * Without `toolCallId`: the first call of this tool that begins (the tool whose view this is).
   * Without either: the first call that begins, whatever its tool. Calls the provider runs itself
   * (a web search, code execution) are never chosen this way.
   * @default undefined
   */
  readonly toolName?: string;
  /**
   * Throttle: a partial goes out only once the arguments have grown by this fraction of their
   * size at the previous partial (their JSON text's length, counted from what was parsed). MCP
   * Apps' partial carries the whole arguments so far, so a partial per chunk makes O(n²) bytes
   * for the host to copy to the view (a 1 MB call in 16-byte chunks: about 30 GB). Growing by a
   * fraction `g` bounds every partial of a call together to `(1 + 1/g)` times its size (17× for
   * the default: 17 MB for a 1 MB call, in about 200 partials), while a small call (a few hundred
   * bytes) still gets one per chunk; the price is coarser updates late in a large call (one per
   * 60 KB of a 1 MB one). `0`: one partial per input chunk that changed the arguments, as the
   * spec's examples do, quadratic in bytes.
   * @default 1/16 (0.0625)
   */
  readonly minGrowth?: number;
  /**
   * Throttle: at least this many milliseconds (`Date.now()`) between two partials, on top of
   * `minGrowth`. A partial held back is not sent later by a timer: the next input chunk sends
   * the arguments as they are then, and the final `tool-input` always goes out.
   * @default 0
   */
  readonly minIntervalMs?: number;
}

const PARTIAL = 'ui/notifications/tool-input-partial';
const INPUT = 'ui/notifications/tool-input';
const CANCELLED = 'ui/notifications/tool-cancelled';

/** The reasons of `tool-cancelled`: fixed sentences, so nothing of the model or of an error reaches the view. */
const REASONS = {
  cut: 'The tool call was cut off before its arguments were complete',
  invalid: "The tool call's arguments were not valid JSON",
  failed: 'The tool call failed',
  notObject: "The tool call's arguments were not a JSON object",
  unfinished: 'The stream ended before the tool call was complete',
  missing: 'The stream ended without the tool call',
} as const;

/** A provider's stop reason, quoted in a reason only when it is a short token (`max_tokens`, `length`). */
const STOP_REASON = /^[A-Za-z0-9_.-]{1,40}$/;

const DEFAULT_MIN_GROWTH = 1 / 16;

/** A call followed: the chosen one, or one not yet known to be chosen (its id or name still to come). */
interface Track {
  readonly index: number;
  toolCallId: string;
  toolName: string;
  providerExecuted: boolean;
  /** Where its input comes from: the first kind of event that carried it. */
  source: 'progress' | 'updates' | 'fields' | undefined;
  aggregator: FragmentAggregator | undefined;
  updates: PathUpdateFragments | undefined;
  fields: FieldFragments | undefined;
  /** The input could not be built (fragments out of order): no more partials. */
  broken: boolean;
  /** The size of the arguments so far, and at the last partial sent (-1: none yet). */
  size: number;
  sentSize: number;
  sentAt: number;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The synchronous core of {@link ToolInputNotificationStream}: argstream's events in (the output
 * of any stage), the MCP Apps notifications of one call out, as objects.
 *
 * - The call: the one `toolCallId` names, else the first call of `toolName` that begins, else the
 *   first call the application runs that begins. A call whose id or name is not known yet is
 *   followed until it is (then kept or dropped); once one is chosen, the others are not followed.
 * - While its arguments stream: `ui/notifications/tool-input-partial` with the arguments so far
 *   (an object from the first `{` on: see {@link ToolInputPartialNotification}), at most one per
 *   input chunk (one event given to `push`, or what one chunk made before, given to `pushAll`),
 *   and only as the throttle (`minGrowth`, `minIntervalMs`) allows. Arguments whose root is not
 *   an object get no partial.
 * - Then exactly one of: `ui/notifications/tool-input` with the call's exact arguments (its
 *   `tool-call` event's, as `JSON.parse` makes them); or `ui/notifications/tool-cancelled` with a
 *   reason — the call was cut (`tool-call-incomplete`: `max_tokens`, a stream that stopped; a
 *   `truncated` repair), its arguments were not valid JSON (`tool-call-failed`), they are not an
 *   object (MCP arguments are one), or the events ended without the call complete, or without it
 *   at all. Nothing follows it.
 *
 * Raw argument text (provider events) is parsed once, incrementally, by an embedded turn builder
 * (with `isolateErrors`); the progress of a stage before, its path updates or its field events are
 * read as they are, each call's input built by one `FragmentAggregator` with shared snapshots.
 * Every other event writes nothing.
 *
 * @throws what the embedded turn builder refuses (a `TaggedToolCallError`
 *   `'duplicate-tool-call-id'`, a `RelayError` `'invalid-data'` for an event of the wrong shape,
 *   a `JsonStreamError` `'max-depth'`), after what came before it.
 * @example
 * ```ts
 * const core = new ToolInputNotificationCore({ toolName: 'show_chart' });
 * for (const event of events) for (const notification of core.push(event)) await transport.send(notification);
 * for (const notification of core.end()) await transport.send(notification);
 * ```
 */
export class ToolInputNotificationCore implements PushCore<PipelineEvent, ToolInputNotification> {
  readonly #builder: TurnBuilder;
  readonly #toolCallId: string | undefined;
  readonly #toolName: string | undefined;
  readonly #growth: number;
  readonly #interval: number;
  readonly #maxDepth: number;
  /** Calls followed before one is chosen, by content slot. */
  readonly #candidates = new Map<number, Track>();
  /** Slots of calls that are not the one (with their id), until their conversation event. */
  readonly #excluded = new Map<number, string>();
  #selected: Track | undefined;
  /** The final notification went out. */
  #done = false;
  readonly #events: PipelineEvent[] = [];
  readonly #fragments: StreamFragment[] = [];
  readonly #place = newPlace();

  /**
   * @throws {TypeError} for a `toolCallId` or `toolName` that is not a non-empty string.
   * @throws {RangeError} for a `minGrowth` or `minIntervalMs` that is not a finite number ≥ 0.
   */
  constructor(options: ToolInputNotificationStreamOptions = {}) {
    for (const key of ['toolCallId', 'toolName'] as const) {
      const value = options[key] as unknown;
      if (value !== undefined && (typeof value !== 'string' || value === '')) {
        throw new TypeError(`ToolInputNotificationStream: ${key} must be a non-empty string, got ${typeof value === 'string' ? '""' : typeof value}`);
      }
    }
    for (const key of ['minGrowth', 'minIntervalMs'] as const) {
      const value = options[key] as unknown;
      if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
        throw new RangeError(`ToolInputNotificationStream: ${key} must be a finite number ≥ 0, got ${String(value)}`);
      }
    }
    this.#toolCallId = options.toolCallId;
    this.#toolName = options.toolName;
    this.#growth = options.minGrowth ?? DEFAULT_MIN_GROWTH;
    this.#interval = options.minIntervalMs ?? 0;
    this.#maxDepth = options.maxDepth ?? 256;
    const limits: JsonLimits = {
      ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
      ...(options.maxStringLength === undefined ? {} : { maxStringLength: options.maxStringLength }),
      ...(options.maxLength === undefined ? {} : { maxLength: options.maxLength }),
    };
    this.#builder = new TurnBuilder({ ...limits, progress: true, messages: false, isolateErrors: true });
  }

  /** The notifications one event makes (appended to `out`, returned): at most one partial. */
  push(event: PipelineEvent, out: ToolInputNotification[] = []): ToolInputNotification[] {
    if (this.#done) return out;
    this.#start(event);
    this.#run((events) => this.#builder.push(event, events), out);
    return out;
  }

  /** The notifications of what one input chunk made before this core (a batch), with at most one partial. */
  pushAll(events: readonly PipelineEvent[], out: ToolInputNotification[] = []): ToolInputNotification[] {
    if (this.#done) return out;
    for (let i = 0; i < events.length; i++) this.#start(events[i] as PipelineEvent);
    this.#run((outputs) => this.#builder.pushAll(events, outputs), out);
    return out;
  }

  /**
   * The events ended: a call still open is cut (`tool-cancelled`), and so is one never seen: the
   * notifications always end with `tool-input` or `tool-cancelled`.
   */
  end(out: ToolInputNotification[] = []): ToolInputNotification[] {
    if (this.#done) return out;
    this.#run((events) => this.#builder.end(events), out, false);
    if (!this.#done) this.#cancel(this.#selected === undefined ? REASONS.missing : REASONS.unfinished, out);
    return out;
  }

  /** Run one step of the builder, read what it made, then send a partial if one is due (also when it threw). */
  #run(step: (events: PipelineEvent[]) => unknown, out: ToolInputNotification[], partial = true): void {
    const events = this.#events;
    try {
      step(events);
    } finally {
      try {
        for (let i = 0; i < events.length && !this.#done; i++) this.#apply(events[i] as PipelineEvent, out);
      } finally {
        events.length = 0;
      }
      if (partial) this.#partial(out);
    }
  }

  /** A `tool-call-start` part names its call before any argument: a call with no arguments yet can be the first one. */
  #start(event: PipelineEvent): void {
    if (typeof event !== 'object' || event === null || event.type !== 'part') return;
    const part = (event as { readonly part?: unknown }).part as Record<string, unknown> | null | undefined;
    if (typeof part !== 'object' || part === null || part['type'] !== 'tool-call-start') return;
    const { toolCallId, toolName, providerExecuted } = part;
    if (!Number.isInteger(event.index) || typeof toolCallId !== 'string' || typeof toolName !== 'string') return; // the builder refuses it
    this.#track(event.index, toolCallId, toolName, providerExecuted === true);
  }

  #apply(event: PipelineEvent, out: ToolInputNotification[]): void {
    switch (event.type) {
      case 'tool-call-progress': {
        const track = this.#track(event.index, event.toolCallId, event.toolName, event.providerExecuted === true);
        if (track === undefined) return;
        track.source ??= 'progress';
        if (track.source === 'progress') this.#fragment(track, event.fragment);
        return;
      }
      case 'path-update':
        this.#pathUpdate(event);
        return;
      case 'field-start':
      case 'field-delta':
      case 'field-end':
        this.#field(event);
        return;
      case 'tool-call':
      case 'provider-tool-call': {
        const track = this.#final(event.index, event.toolCallId, event.toolName, event.type === 'provider-tool-call');
        if (track === undefined) return;
        if (event.truncated === true) this.#cancel(REASONS.cut, out);
        else if (!isObject(event.arguments)) this.#cancel(REASONS.notObject, out);
        else this.#send({ jsonrpc: '2.0', method: INPUT, params: { arguments: event.arguments } }, out);
        return;
      }
      case 'tool-call-incomplete': {
        const track = this.#final(event.index, event.toolCallId, event.toolName, event.providerExecuted === true);
        if (track === undefined) return;
        const stop = event.stopReason;
        this.#cancel(typeof stop === 'string' && STOP_REASON.test(stop) ? `${REASONS.cut} (stop reason: ${stop})` : REASONS.cut, out);
        return;
      }
      case 'tool-call-failed': {
        const track = this.#final(event.index, event.toolCallId, event.toolName, event.providerExecuted === true);
        if (track === undefined) return;
        this.#cancel(event.error instanceof ToolCallArgumentsError ? REASONS.invalid : REASONS.failed, out);
        return;
      }
      default:
        return;
    }
  }

  /** A call's conversation event: the chosen call's (returned), or another's, whose slot is then free. */
  #final(index: number, toolCallId: string, toolName: string, providerExecuted: boolean): Track | undefined {
    const track = this.#track(index, toolCallId, toolName, providerExecuted);
    if (track !== undefined && track === this.#selected) return track;
    if (this.#candidates.get(index) === track) this.#candidates.delete(index);
    this.#excluded.delete(index);
    return undefined;
  }

  /**
   * The call this event is about, if it is followed: the chosen one, or one that may still be
   * (its id or name to come); `undefined` for any other. Chooses a call once it is known to be the one.
   */
  #track(index: number, toolCallId: string, toolName: string, providerExecuted: boolean): Track | undefined {
    const selected = this.#selected;
    if (selected !== undefined) {
      if (!sameCall(selected, index, toolCallId)) return undefined;
      name(selected, toolCallId, toolName);
      return selected;
    }
    const excluded = this.#excluded.get(index);
    if (excluded !== undefined) {
      if (toolCallId === '' || excluded === '' || excluded === toolCallId) return undefined;
      this.#excluded.delete(index); // a later call in the same slot
    }
    let track = this.#candidates.get(index);
    if (track !== undefined && toolCallId !== '' && track.toolCallId !== '' && track.toolCallId !== toolCallId) track = undefined;
    if (track === undefined) {
      track = { index, toolCallId: '', toolName: '', providerExecuted, source: undefined, aggregator: undefined, updates: undefined, fields: undefined, broken: false, size: 0, sentSize: -1, sentAt: 0 };
      this.#candidates.set(index, track);
    }
    name(track, toolCallId, toolName);
    if (providerExecuted) track.providerExecuted = true;
    const decision = this.#decide(track);
    if (decision === 'no') {
      this.#candidates.delete(index);
      this.#excluded.set(index, track.toolCallId);
      return undefined;
    }
    if (decision === 'yes') {
      this.#selected = track;
      this.#candidates.clear();
      this.#excluded.clear();
    }
    return track;
  }

  #decide(track: Track): 'yes' | 'no' | 'unknown' {
    if (this.#toolCallId !== undefined) return track.toolCallId === '' ? 'unknown' : track.toolCallId === this.#toolCallId ? 'yes' : 'no';
    if (track.providerExecuted) return 'no';
    if (this.#toolName !== undefined) return track.toolName === '' ? 'unknown' : track.toolName === this.#toolName ? 'yes' : 'no';
    return 'yes';
  }

  #pathUpdate(update: PathUpdate): void {
    if (update.structured === true || (update.toolCallId === undefined && update.index === undefined)) return;
    const track = this.#track(update.index ?? -1, update.toolCallId ?? '', '', false);
    if (track === undefined) return;
    this.#translated(track, 'updates', (fragments) => (track.updates ??= new PathUpdateFragments(this.#maxDepth)).push(update, fragments));
  }

  #field(event: FieldEvent): void {
    if (event.toolCallId === undefined && event.toolName === undefined) return; // a structured document's fields
    const track = this.#track(event.index ?? -1, event.toolCallId ?? '', event.toolName ?? '', false);
    if (track === undefined) return;
    this.#translated(track, 'fields', (fragments) => (track.fields ??= new FieldFragments(this.#maxDepth)).push(event, fragments));
  }

  /** Another view of the input, read back as fragments, when it is the call's source. */
  #translated(track: Track, source: 'updates' | 'fields', translate: (fragments: StreamFragment[]) => void): void {
    track.source ??= source;
    if (track.source !== source || track.broken) return;
    const fragments = this.#fragments;
    try {
      translate(fragments);
      for (let i = 0; i < fragments.length; i++) this.#fragment(track, fragments[i] as StreamFragment);
    } catch {
      // The view does not fit together: no more partials; the call's conversation event decides.
      track.broken = true;
    } finally {
      fragments.length = 0;
    }
  }

  #fragment(track: Track, fragment: StreamFragment): void {
    if (track.broken) return;
    const aggregator = (track.aggregator ??= new FragmentAggregator({ immutableSnapshots: true }));
    try {
      aggregator.push(fragment);
    } catch {
      track.broken = true;
      return;
    }
    // The size of the JSON text so far, near enough for the throttle: string text, a member's key
    // once (with its value's first fragment), a few characters for each value begun.
    const { leaf, key } = placeOf(fragment, this.#place);
    switch (leaf.type) {
      case 'string':
        track.size += leaf.text.length;
        break;
      case 'start':
        track.size += 2 + (key === undefined ? 1 : key.length + 4);
        break;
      case 'scalar':
        track.size += (leaf.raw?.length ?? 5) + (key === undefined ? 1 : key.length + 4);
        break;
      default:
        break;
    }
  }

  /** A partial of the chosen call, if its arguments changed and the throttle allows one now. */
  #partial(out: ToolInputNotification[]): void {
    const track = this.#selected;
    if (this.#done || track === undefined || track.broken || track.aggregator === undefined) return;
    const { size, sentSize } = track;
    if (size === sentSize || (sentSize >= 0 && size < sentSize * (1 + this.#growth))) return;
    let now = 0;
    if (this.#interval > 0) {
      now = Date.now();
      if (sentSize >= 0 && now - track.sentAt < this.#interval) return;
    }
    const args = track.aggregator.snapshot();
    if (!isObject(args)) return;
    track.sentSize = size;
    track.sentAt = now;
    out.push({ jsonrpc: '2.0', method: PARTIAL, params: { arguments: args } });
  }

  #cancel(reason: string, out: ToolInputNotification[]): void {
    this.#send({ jsonrpc: '2.0', method: CANCELLED, params: { reason } }, out);
  }

  /** The final notification: nothing is followed after it. */
  #send(notification: ToolInputNotification, out: ToolInputNotification[]): void {
    this.#done = true;
    this.#candidates.clear();
    this.#excluded.clear();
    const selected = this.#selected;
    if (selected !== undefined) selected.aggregator = undefined;
    out.push(notification);
  }
}

/** The same call: by id when both have one, else by content slot (a different id there is a later call). */
function sameCall(track: Track, index: number, toolCallId: string): boolean {
  if (toolCallId !== '' && track.toolCallId !== '') return toolCallId === track.toolCallId;
  return index === track.index;
}

/** First non-empty value wins per field (RFD 012). */
function name(track: Track, toolCallId: string, toolName: string): void {
  if (track.toolCallId === '' && toolCallId !== '') track.toolCallId = toolCallId;
  if (track.toolName === '' && toolName !== '') track.toolName = toolName;
}

/**
 * The MCP Apps notifications of one tool call, for a host to send the call's view (the app's
 * iframe) while the model streams the call: `ui/notifications/tool-input-partial` with the
 * arguments so far, parsed once, linearly, then `ui/notifications/tool-input` with the exact
 * arguments — or `ui/notifications/tool-cancelled` with a reason when the call is cut, its
 * arguments are invalid or not an object, or the events end without it. JSON-RPC 2.0 notification
 * objects, which the host passes to `AppBridge` (`sendToolInputPartial(n.params)`, …) or sends
 * through its transport as they are. See {@link ToolInputNotificationCore} for which call, the
 * throttle and the reasons.
 *
 * It reads the output of any stage (`ProviderEventStream`, `fromResponse`, the progress, fields
 * or path updates of a stage before, a relay's decoded events). `flush` sends what the end
 * decides (the call's final notification if it is still due: the notifications always end with
 * `tool-input` or `tool-cancelled`). An error of the stream before is not a notification: it
 * errors this stream too, as every stage does — a host then sends `tool-cancelled` itself.
 * Composed by `chain` (or given to `fromResponse`), it runs in their stream hop.
 *
 * @throws {TypeError} for a `toolCallId` or `toolName` that is not a non-empty string.
 * @throws {RangeError} for a `minGrowth` or `minIntervalMs` that is not a finite number ≥ 0.
 * @example
 * ```ts
 * import { ProviderEventStream } from 'argstream';
 * import { ToolInputNotificationStream } from 'argstream/mcp-apps';
 *
 * const notifications = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new ToolInputNotificationStream({ toolName: 'show_chart' }));
 * for await (const notification of notifications) await hostTransport.send(notification);
 * ```
 */
export class ToolInputNotificationStream extends Stage<PipelineEvent, ToolInputNotification> {
  constructor(options: ToolInputNotificationStreamOptions = {}) {
    super(new ToolInputNotificationCore(options));
  }
}
