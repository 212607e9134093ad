/**
 * A call's input built straight from its raw argument text: the store's turn builder gives each
 * call's scanner a {@link ScannedInput}, a `ValueBuilder` that also logs which paths complete, and
 * the store shows its shared snapshots. No fragment is made on the way (the progress of a stage
 * before, field events and path updates are read as fragments by `fragment-input.ts`, loaded with
 * what reads those sources). Internal.
 *
 * @module
 */
import { escapeToken } from '../json/json-pointer.ts';
import { STRING, JsonScanner, type KindCode } from '../json/scanner.ts';
import { SharedSnapshots } from '../json/shared-snapshot.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import type { ProgressReading } from '../turn/turn-builder.ts';
import type { JsonScalar, JsonValue, PipelineEvent } from '../types.ts';
import { CompletionLog } from './completion-log.ts';

/**
 * The value of a call's input as the scanner finds it, with the paths it completes (the events a
 * fragment aggregator would have read from the fragments of the same text, in the same order).
 */
export class ScannedInput extends ValueBuilder {
  readonly log = new CompletionLog();
  /** The builder's version when the store was last told of it. */
  told = 0;
  readonly #shared = new SharedSnapshots();
  /** The pointers of the open containers, outermost first. */
  readonly #open: string[] = [];
  /** The pointer of the open string. */
  #string = '';
  #key = '';

  /** The input so far: never mutated afterwards, and sharing what did not change with the last one. */
  shown(): JsonValue | undefined {
    return this.#shared.take(this);
  }

  /** The innermost open container's pointer (`undefined` at the root). */
  #parent(): string | undefined {
    return this.#open[this.#open.length - 1];
  }

  /** A value begins where the builder places the next one (a container if `container`): its pointer. */
  #begin(container: boolean): string {
    const parent = this.#parent();
    const pointer = parent === undefined ? '' : `${parent}/${this.topIsArray() ? this.nextIndex() : escapeToken(this.#key)}`;
    this.log.begin(pointer, container);
    return pointer;
  }

  override key(key: string): void {
    this.#key = key;
    super.key(key);
  }

  override open(kind: KindCode): void {
    const pointer = this.#begin(kind !== STRING);
    if (kind === STRING) this.#string = pointer;
    else this.#open.push(pointer);
    super.open(kind);
  }

  override string(text: string): void {
    const pointer = this.#begin(false);
    super.string(text);
    this.log.complete(pointer, this.#parent());
  }

  override scalar(value: JsonScalar): void {
    const pointer = this.#begin(false);
    super.scalar(value);
    this.log.complete(pointer, this.#parent());
  }

  override close(): void {
    const pointer = this.inString ? this.#string : (this.#open.pop() as string);
    super.close();
    this.log.complete(pointer, this.#parent());
  }
}

/**
 * The event that tells the store a call's input changed: made by the store's own builder, in the
 * place a progress event would have had, and read only by the store. Internal.
 */
export interface ScannedInputEvent {
  readonly type: 'scanned-input';
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly providerExecuted: boolean;
  readonly input: ScannedInput;
}

/**
 * The store's reading of raw argument text: each call's scanner builds a {@link ScannedInput}, and a
 * {@link ScannedInputEvent} follows each chunk that changed it (a structured document's is its
 * value alone: the store shows it once complete).
 */
export const SCANNED_INPUT: ProgressReading = {
  scanner(slot, limits) {
    const input = new ScannedInput();
    slot.value = input;
    return new JsonScanner(input, limits);
  },

  report(slot, out: PipelineEvent[]) {
    const input = slot.value as ScannedInput;
    if (slot.kind !== 'tool-call' || input.version === input.told) return;
    input.told = input.version;
    const event: ScannedInputEvent = { type: 'scanned-input', index: slot.index, toolCallId: slot.id, toolName: slot.name, providerExecuted: slot.provider, input };
    out.push(event as unknown as PipelineEvent);
  },
};
