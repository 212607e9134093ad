/**
 * The EventBuilder (RFD 012 and RFD 043, phase 3): the synchronous core that follows every
 * content slot of a response, parses each tool call's arguments incrementally with its own
 * parser, and turns flushes into conversation events. The tool-call progress stage, the
 * conversation-event stage and `collectTurn` are shells over this one core.
 *
 * @module
 */
import { JsonStreamError, ToolCallArgumentsError } from '../errors.ts';
import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { FragmentCollector } from '../json/incremental-json-parser.ts';
import { JsonScanner, type JsonLimits } from '../json/scanner.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import type {
  ConversationEvent,
  EventMetadata,
  FinishedEvent,
  JsonValue,
  StreamEvent,
  StreamFragment,
  StructuredProgress,
  ToolCallArgumentProgress,
} from '../types.ts';

/** Options of the EventBuilder core and the stages built on it. */
export interface EventBuilderOptions extends JsonLimits {
  /** Pass every input `StreamEvent` through. */
  readonly passthrough?: boolean;
  /** Emit `tool-call-progress` / `structured-progress` events with the argument fragments. */
  readonly progress?: boolean;
  /** Emit conversation events when slots are flushed. */
  readonly conversation?: boolean;
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

/** Everything the EventBuilder can emit. */
export type EventBuilderOutput =
  | StreamEvent
  | ToolCallArgumentProgress
  | StructuredProgress
  | ConversationEvent;

interface TextSlot {
  readonly kind: 'message' | 'reasoning';
  readonly index: number;
  readonly parts: string[];
  metadata: Record<string, unknown> | undefined;
}

interface JsonSlot {
  readonly kind: 'tool-call' | 'structured';
  readonly index: number;
  id: string;
  name: string;
  metadata: Record<string, unknown> | undefined;
  scanner: JsonScanner | undefined;
  /** Set when fragments are wanted: the collector the scanner reports to, and the aggregator. */
  collector: FragmentCollector | undefined;
  aggregator: FragmentAggregator | undefined;
  /** Set when only the value is wanted: the scanner drives the builder directly. */
  builder: ValueBuilder | undefined;
  /** Why the call failed: its arguments were invalid, or an upstream stage said so. */
  error: Error | undefined;
}

type Slot = TextSlot | JsonSlot;

function mergeMetadata(
  target: Record<string, unknown> | undefined,
  source: EventMetadata | undefined,
): Record<string, unknown> | undefined {
  if (source === undefined) return target;
  return target === undefined ? { ...source } : Object.assign(target, source);
}

function withMetadata<T extends object>(event: T, metadata: Record<string, unknown> | undefined): T {
  return metadata === undefined ? event : { ...event, metadata };
}

/** The synchronous core: `push(event) → outputs`, `end() → outputs`. Internal. */
export class EventBuilder {
  readonly #options: EventBuilderOptions;
  readonly #slots = new Map<number, Slot>();
  /** Incomplete calls wait for the stop reason, which providers send after the flush. */
  #incomplete: JsonSlot[] = [];
  #finished: FinishedEvent | undefined;

  constructor(options: EventBuilderOptions = {}) {
    this.#options = options;
  }

  /** The `finished` event, once it has arrived. */
  get finished(): FinishedEvent | undefined {
    return this.#finished;
  }

  /**
   * Apply one event, appending what it produces to `out` (returned). If it throws, `out` still
   * holds what was produced before the error, so a stream shell can deliver it first.
   */
  push(event: StreamEvent, out: EventBuilderOutput[] = []): EventBuilderOutput[] {
    if (this.#options.passthrough) out.push(event);
    switch (event.type) {
      case 'part':
        this.#part(event.index, event, out);
        break;
      case 'flush': {
        const slot = this.#slots.get(event.index);
        if (slot !== undefined) {
          slot.metadata = mergeMetadata(slot.metadata, event.metadata);
          this.#slots.delete(event.index);
          // An upstream stage (e.g. TaggedToolCallStream) may flush a call it knows is broken.
          const failure = event.metadata?.['toolCallError'];
          if (failure instanceof Error && !('parts' in slot) && slot.error === undefined) {
            slot.error = failure;
            if (!this.#options.isolateErrors) throw failure;
          }
          this.#close(slot, out);
        }
        break;
      }
      case 'finished':
        this.#finished = event;
        this.#releaseIncomplete(out);
        break;
      default:
        return event satisfies never;
    }
    return out;
  }

  /** The input ended: close what was never flushed and report what is still waiting. */
  end(out: EventBuilderOutput[] = []): EventBuilderOutput[] {
    const open = [...this.#slots.values()].sort((a, b) => a.index - b.index);
    this.#slots.clear();
    for (const slot of open) this.#close(slot, out, true);
    this.#releaseIncomplete(out);
    return out;
  }

  #part(index: number, event: Extract<StreamEvent, { type: 'part' }>, out: EventBuilderOutput[]): void {
    const part = event.part;
    let slot = this.#slots.get(index);
    if (slot === undefined) {
      slot = this.#open(index, part.type);
      this.#slots.set(index, slot);
    }
    slot.metadata = mergeMetadata(slot.metadata, event.metadata);
    switch (part.type) {
      case 'message':
      case 'reasoning':
        if ('parts' in slot) slot.parts.push(part.text);
        break;
      case 'tool-call-start':
        if (!('parts' in slot)) {
          // First non-empty value wins per field (RFD 012).
          if (slot.id === '' && part.toolCallId) slot.id = part.toolCallId;
          if (slot.name === '' && part.toolName) slot.name = part.toolName;
        }
        break;
      case 'tool-call-arguments':
        if (!('parts' in slot)) this.#feed(slot, part.chunk, out);
        break;
      case 'structured':
        if (!('parts' in slot)) this.#feed(slot, part.json, out);
        break;
      default:
        return part satisfies never;
    }
  }

  #open(index: number, type: string): Slot {
    if (type === 'message' || type === 'reasoning') return { kind: type, index, parts: [], metadata: undefined };
    return {
      kind: type === 'structured' ? 'structured' : 'tool-call',
      index,
      id: '',
      name: '',
      metadata: undefined,
      scanner: undefined,
      collector: undefined,
      aggregator: undefined,
      builder: undefined,
      error: undefined,
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
      slot.scanner = new JsonScanner(slot.builder, this.#options);
    }
    return slot.scanner;
  }

  /**
   * Push `chunk` into the slot's scanner, or end it (`undefined`). Fragments it finds — even
   * before an error — go to the aggregator and `out`; in value mode nothing is collected.
   */
  #step(slot: JsonSlot, out: EventBuilderOutput[], chunk: string | undefined): void {
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


  #deliver(slot: JsonSlot, fragments: StreamFragment[], out: EventBuilderOutput[]): void {
    const aggregator = slot.aggregator as FragmentAggregator;
    for (const fragment of fragments) {
      aggregator.push(fragment);
      out.push(
        slot.kind === 'structured'
          ? { type: 'structured-progress', index: slot.index, fragment }
          : { type: 'tool-call-progress', index: slot.index, toolCallId: slot.id, toolName: slot.name, fragment },
      );
    }
  }

  #feed(slot: JsonSlot, chunk: string, out: EventBuilderOutput[]): void {
    if (slot.error !== undefined || chunk === '') return;
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
  #close(slot: Slot, out: EventBuilderOutput[], endOfInput = false): void {
    const conversation = this.#options.conversation === true;
    if ('parts' in slot) {
      if (!conversation) return;
      const text = slot.parts.join('');
      if (slot.kind === 'message') out.push(withMetadata({ type: 'message', index: slot.index, text }, slot.metadata));
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
    let truncated = false;
    if (slot.error === undefined && slot.scanner !== undefined) {
      try {
        this.#step(slot, out, undefined);
      } catch (error) {
        if (error instanceof JsonStreamError && error.code === 'unexpected-end') truncated = true;
        else this.#fail(slot, error);
      }
    }
    if (!conversation) return;
    if (slot.error !== undefined) {
      out.push(withMetadata({ type: 'tool-call-failed', index: slot.index, toolCallId: slot.id, toolName: slot.name, error: slot.error }, slot.metadata));
      return;
    }
    const value = this.#snapshot(slot);
    // No value at all means no arguments (`{}`) — unless the provider never closed the slot: then
    // the call was cut before its first argument byte.
    if (value === undefined) truncated = endOfInput || slot.metadata?.['endOfInput'] === true;
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
    const call = { type: 'tool-call' as const, index: slot.index, toolCallId: slot.id, toolName: slot.name, arguments: data };
    out.push(withMetadata(truncated ? { ...call, truncated: true as const } : call, slot.metadata));
  }

  #releaseIncomplete(out: EventBuilderOutput[]): void {
    const stopReason = this.#finished?.rawReason;
    for (const slot of this.#incomplete) {
      out.push(
        withMetadata(
          {
            type: 'tool-call-incomplete',
            index: slot.index,
            toolCallId: slot.id,
            toolName: slot.name,
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
