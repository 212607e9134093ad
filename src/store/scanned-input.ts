/**
 * A call's input built straight from its raw argument text ({@link SCANNED_INPUT}): the turn builder
 * of a binding's store or of the AI SDK chat transport's gives each call's scanner a
 * {@link ScannedInput}, a `ValueBuilder` that also logs which paths complete, and the store shows
 * its shared snapshots. No fragment is made on the way (the progress of a stage before, field events
 * and path updates are read as fragments by `fragment-input.ts`, loaded with what reads those
 * sources). `TurnStore` parses raw text into progress fragments instead (`turn/progress.ts`), which
 * shows the same: it bundles their reading for the other sources anyway. Internal.
 *
 * @module
 */
import { escapeToken } from '../json/json-pointer.ts';
import { OBJECT, STRING, JsonScanner, type KindCode } from '../json/scanner.ts';
import { SharedSnapshots } from '../json/shared-snapshot.ts';
import { ValueBuilder } from '../json/value-builder.ts';
import type { ProgressReading } from '../turn/turn-builder.ts';
import type { JsonScalar, JsonValue, PipelineEvent } from '../types.ts';
import { CompletionLog } from './completion-log.ts';

/**
 * The value of a call's input as its scanner finds it, with the paths it completes (the events a
 * fragment aggregator would have read from the fragments of the same text, in the same order).
 */
export class ScannedInput extends ValueBuilder {
  readonly log: CompletionLog = new CompletionLog();
  /** The scanner that drives it: where the value at hand is (its open containers, their keys and indices). */
  scanner!: JsonScanner;
  /** The builder's version when the store was last told of it. */
  told = 0;
  readonly #shared = new SharedSnapshots();

  /** The input so far: never mutated afterwards, and sharing what did not change with the last one. */
  shown(): JsonValue | undefined {
    return this.#shared.take(this);
  }

  /**
   * The value at hand (in the scanner's open containers) begins, a container or not, and/or is
   * complete: `begin` is `true` or `false` for a container or not, `undefined` for no begin.
   */
  #log(begin: boolean | undefined, complete: boolean): void {
    const { kinds, keys, indices } = this.scanner;
    let pointer = '';
    let parent: string | undefined;
    for (let d = 0; d < kinds.length; d++) {
      parent = pointer;
      pointer += `/${kinds[d] === OBJECT ? escapeToken(keys[d] as string) : indices[d]}`;
    }
    if (begin !== undefined) this.log.begin(pointer, begin);
    if (complete) this.log.complete(pointer, parent);
  }

  override open(kind: KindCode): void {
    this.#log(kind !== STRING, false);
    super.open(kind);
  }

  override string(text: string): void {
    this.#log(false, true);
    super.string(text);
  }

  override scalar(value: JsonScalar): void {
    this.#log(false, true);
    super.scalar(value);
  }

  override close(): void {
    this.#log(undefined, true);
    super.close();
  }
}

/**
 * The type of a {@link ScannedInputEvent}: a symbol, which no event from outside can have (the turn
 * builder refuses an event whose `type` is not a string), so that none is taken for one.
 */
export const SCANNED_INPUT_EVENT: unique symbol = Symbol('scanned-input');

/**
 * The event that tells the store a call's input changed: made by the store's own builder, in the
 * place a progress event would have had, and read only by the store. Internal.
 */
export interface ScannedInputEvent {
  readonly type: typeof SCANNED_INPUT_EVENT;
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
    return (input.scanner = new JsonScanner(input, limits));
  },

  report(slot, out: PipelineEvent[]) {
    const input = slot.value as ScannedInput;
    if (slot.kind !== 'tool-call' || input.version === input.told) return;
    input.told = input.version;
    const event: ScannedInputEvent = { type: SCANNED_INPUT_EVENT, index: slot.index, toolCallId: slot.id, toolName: slot.name, providerExecuted: slot.provider, input };
    out.push(event as unknown as PipelineEvent);
  },
};
