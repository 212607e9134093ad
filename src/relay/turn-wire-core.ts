/**
 * What the cores of the encoders that write a turn as another library's wire share (the AI SDK's
 * UI message stream, AG-UI): an embedded turn builder, and each tool call's input taken from
 * whatever the stage before sent — raw argument text, or text rebuilt from its progress — held
 * until the call's id and name are both known, then written piece by piece as deltas or as path
 * updates within their budget. Each wire writes its own records: its first ones, a call's start
 * and each piece of its input, every other event, its end and its failure.
 *
 * @module
 */
import { clear } from '../core.ts';
import { JsonWriter } from '../json/json-writer.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import type { PathUpdate, PipelineEvent } from '../types.ts';
import { ToolInputUpdates } from '../views/tool-input-updates.ts';

/** A tool call being written, by its content slot. */
export interface CallState {
  readonly index: number;
  toolCallId: string;
  toolName: string;
  providerExecuted: boolean;
  /** Its start record has gone out. */
  started: boolean;
  /** Raw argument text came (parts or raw deltas): the progress of a stage before is not written. */
  raw: boolean;
  /** Argument text that came before the call's id and name were both known (servers that split them). */
  held: string;
  /** Rebuilds the argument text from the progress of a stage before, when no raw text comes. */
  writer: JsonWriter | undefined;
  /** With `toolInputs: 'path-updates'`: the input text's updates, within the call's budget. */
  inputUpdates: ToolInputUpdates | undefined;
}

/**
 * The synchronous core of an encoder of a turn as one wire's records `R`, with tool calls kept as
 * `C`: argstream's events in (the output of any stage), records out, appended to the caller's
 * array. `push`, `end` and `error` write the wire's first records before anything else, and
 * nothing after the end or a failure.
 */
export abstract class TurnWireCore<R, C extends CallState = CallState> {
  readonly #builder = new TurnBuilder({ passthrough: true, isolateErrors: true });
  readonly #outputs: PipelineEvent[] = [];
  readonly #calls = new Map<number, C>();
  /** The wire sends a call's input whole at its end as a JSON string: its escapes are paid from the updates' budget. */
  readonly #escaped: boolean;
  /** The updates a piece made before its text stopped parsing still go. */
  readonly #updatesBeforeError: boolean;
  /** `toolInputs: 'path-updates'`: a call's input goes as path updates rather than as deltas. */
  protected readonly pathUpdates: boolean;
  /** The calls that have gone out (started or complete), by id: a provider-run call's result goes out only after its call. */
  protected readonly announced = new Set<string>();
  #started = false;
  #ended = false;
  /** The slot whose argument text from progress waits: a raw part of the same chunk may follow it. */
  #pending: { index: number; text: string } | undefined;
  /** The reads its relay shell has taken (`endRead`): text rebuilt from progress earns a piece's budget once per read. */
  #reads = 0;

  /**
   * `what` names the encoder; `escaped` and `updatesBeforeError` are its path updates' (`ToolInputUpdates`').
   * @throws {RangeError} for a `toolInputs` other than `'deltas'` or `'path-updates'`.
   */
  constructor(what: string, toolInputs: unknown, escaped: boolean, updatesBeforeError: boolean) {
    if (toolInputs !== undefined && toolInputs !== 'deltas' && toolInputs !== 'path-updates') {
      throw new RangeError(`${what}: toolInputs must be 'deltas' or 'path-updates', got ${String(toolInputs)}`);
    }
    this.pathUpdates = toolInputs === 'path-updates';
    this.#escaped = escaped;
    this.#updatesBeforeError = updatesBeforeError;
  }

  /** The records one event makes (appended to `out`, returned). */
  push(event: PipelineEvent, out: R[]): R[] {
    if (this.#ended) return out;
    this.#begin(out);
    const outputs = this.#outputs;
    clear(outputs);
    try {
      this.#builder.push(event, outputs);
    } finally {
      for (const output of outputs) this.#write(output, out);
      clear(outputs);
    }
    return out;
  }

  /** The events ended: what the builder still had, then the wire's last records (`finish`). */
  end(out: R[]): R[] {
    if (this.#ended) return out;
    this.#begin(out);
    const outputs = this.#outputs;
    clear(outputs);
    try {
      this.#builder.end(outputs);
    } finally {
      for (const output of outputs) this.#write(output, out);
      clear(outputs);
    }
    this.#flushPending(undefined, out);
    this.#ended = true;
    this.finish(out);
    return out;
  }

  /** The stream before failed with `reason`: the wire's records for it (`fail`), and nothing after them. */
  error(reason: unknown, out: R[]): R[] {
    if (this.#ended) return out;
    this.#begin(out);
    this.#ended = true;
    this.fail(reason, out);
    return out;
  }

  /** A read of the relay shell ended (the next events are another provider record's). */
  endRead(): void {
    this.#reads++;
  }

  /** The wire's first records, before anything else. */
  protected abstract begin(out: R[]): void;
  /** An event that is not a tool call's streaming input: text, conversation events, the finish. */
  protected abstract write(event: PipelineEvent, out: R[]): void;
  /** The wire's last records, once everything the events made is written. */
  protected abstract finish(out: R[]): void;
  /** The wire's records for a failure of the stream before. */
  protected abstract fail(reason: unknown, out: R[]): void;
  /** A new call's state, for content slot `index`. */
  protected abstract newCall(index: number): C;
  /** The id of a call with a name and no id yet, when its argument text comes (`''`: it waits for one). */
  protected abstract unnamedCallId(call: C): string;
  /** A call's start record: its id and name are both known. */
  protected abstract writeStart(call: C, out: R[]): void;
  /** A piece of a started call's argument text. */
  protected abstract input(call: C, text: string, out: R[]): void;

  /** The call in content slot `index`, made at its first event. */
  protected call(index: number): C {
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = this.newCall(index);
      this.#calls.set(index, call);
    }
    return call;
  }

  /** The call in content slot `index` is complete (or cut): a later call there is another. */
  protected dropCall(index: number): void {
    this.#calls.delete(index);
  }

  /** The call's start once its id and name are both known (a wire names a call at its start, and never renames it), then the argument text held until then. */
  protected startCall(call: C, out: R[]): void {
    if (call.started || call.toolCallId === '' || call.toolName === '') return;
    call.started = true;
    this.announced.add(call.toolCallId);
    this.writeStart(call, out);
    if (call.held !== '') {
      this.input(call, call.held, out);
      call.held = '';
    }
  }

  /** The path updates to send now of a piece of a call's input text (`undefined`: none now). */
  protected inputUpdates(call: C, text: string): PathUpdate[] | undefined {
    const updates = (call.inputUpdates ??= new ToolInputUpdates(this.#escaped, this.#updatesBeforeError));
    return updates.push(text, call.raw, this.#reads, call.toolCallId);
  }

  /** The call in slot `index`, with what an event says of it: the first non-empty id and name win (RFD 012). */
  #named(index: number, named: { readonly toolCallId?: string; readonly toolName?: string; readonly providerExecuted?: boolean }): C {
    const call = this.call(index);
    if (call.toolCallId === '' && named.toolCallId) call.toolCallId = named.toolCallId;
    if (call.toolName === '' && named.toolName) call.toolName = named.toolName;
    if (named.providerExecuted === true) call.providerExecuted = true;
    return call;
  }

  #begin(out: R[]): void {
    if (this.#started) return;
    this.#started = true;
    this.begin(out);
  }

  #delta(call: C, text: string, out: R[]): void {
    if (text === '') return;
    if (call.toolCallId === '' && call.toolName !== '') call.toolCallId = this.unnamedCallId(call);
    this.startCall(call, out);
    if (call.started) this.input(call, text, out);
    else call.held += text;
  }

  /** Raw argument text came for `call`: the progress of a stage before is no longer written for it. */
  #takeRaw(call: C): void {
    call.raw = true;
    call.writer = undefined;
  }

  /**
   * Argument text rebuilt from progress waits until the next event: when that is the raw part of
   * the same chunk (a stage before passes both), the raw text is written instead.
   */
  #flushPending(next: PipelineEvent | undefined, out: R[]): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    if (next !== undefined && next.type === 'tool-call-progress' && next.index === pending.index) return;
    this.#pending = undefined;
    const call = this.#calls.get(pending.index);
    if (call === undefined) return;
    const raw =
      next !== undefined &&
      ((next.type === 'part' && next.index === pending.index && next.part.type === 'tool-call-arguments') ||
        (next.type === 'streaming-tool-call' && next.index === pending.index && next.argumentsDelta !== ''));
    if (raw) this.#takeRaw(call);
    else this.#delta(call, pending.text, out);
  }

  #write(event: PipelineEvent, out: R[]): void {
    this.#flushPending(event, out);
    switch (event.type) {
      case 'part': {
        const part = event.part;
        if (part.type === 'tool-call-start') {
          // The start goes out with both id and name when it can.
          this.startCall(this.#named(event.index, part), out);
        } else if (part.type === 'tool-call-arguments') {
          const call = this.call(event.index);
          this.#takeRaw(call);
          this.#delta(call, part.chunk, out);
        } else this.write(event, out);
        break;
      }
      case 'streaming-tool-call': {
        const call = this.#named(event.index, event);
        if (event.argumentsDelta !== '') {
          this.#takeRaw(call);
          this.#delta(call, event.argumentsDelta, out);
        } else this.startCall(call, out);
        break;
      }
      case 'tool-call-progress': {
        const call = this.#named(event.index, event);
        if (call.raw) break;
        call.writer ??= new JsonWriter();
        const text = call.writer.push(event.fragment);
        if (text === '') break;
        if (this.#pending === undefined) this.#pending = { index: event.index, text };
        else this.#pending.text += text;
        break;
      }
      default:
        this.write(event, out);
        break;
    }
  }
}
