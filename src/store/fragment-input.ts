/**
 * A call's input built from fragments: the progress events of a stage before (a relay's, a
 * stream's, or `TurnStore`'s own builder's), and what field events and path updates are read back
 * as. A store reads them with {@link readFragments} (`SourceReading.fragments`), which `TurnStore`
 * gives and a binding loads with what reads its source; the store of the AI SDK chat transport,
 * whose calls stream as raw argument text (`scanned-input.ts`), loads it with its reader of path
 * updates. Internal.
 *
 * @module
 */
import { clear } from '../core.ts';
import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { escapeToken } from '../json/json-pointer.ts';
import type { FieldEvent, JsonValue, PathUpdate, StreamFragment, ToolCallArgumentProgress } from '../types.ts';
import type { CompletionLog } from './completion-log.ts';
import type { FieldFragments } from './field-fragments.ts';
import type { PathUpdateFragments } from './fragments.ts';
import type { ScannedInput } from './scanned-input.ts';

/** A call's input from its fragments: a `FragmentAggregator` with shared snapshots, and the paths they complete. */
export class FragmentInput {
  readonly #aggregator = new FragmentAggregator({ immutableSnapshots: true });
  readonly #log: CompletionLog;

  /** `log`: the call's, where the paths the fragments complete are written. */
  constructor(log: CompletionLog) {
    this.#log = log;
  }

  get complete(): boolean {
    return this.#aggregator.complete;
  }

  /** The input so far: never mutated afterwards, and sharing what did not change with the last one. */
  shown(): JsonValue | undefined {
    return this.#aggregator.snapshot();
  }

  /**
   * Apply one fragment.
   * @throws {TypeError} for a fragment out of order (see `FragmentAggregator.push`).
   */
  push(fragment: StreamFragment): void {
    this.#aggregator.push(fragment);
    // Most fragments are a piece of a string somewhere: only a value's start, a scalar or a `done`
    // changes which paths are complete, so only those need their pointer.
    let leaf: StreamFragment = fragment;
    while (leaf.type === 'entry' || leaf.type === 'item') leaf = leaf.value;
    if (leaf.type === 'string') return;
    let pointer = '';
    let parent: string | undefined;
    for (let at: StreamFragment = fragment; at.type === 'entry' || at.type === 'item'; at = at.value) {
      parent = pointer;
      pointer += `/${at.type === 'entry' ? escapeToken(at.key) : at.index}`;
    }
    if (leaf.type === 'done') this.#log.complete(pointer, parent);
    else this.#log.begin(pointer, leaf.type === 'start' && leaf.kind !== 'string');
  }
}

/** What the store keeps of a call whose input comes as fragments (its `CallState`). */
export interface FragmentCall {
  input: FragmentInput | ScannedInput | undefined;
  readonly completed: CompletionLog;
  updates: PathUpdateFragments | undefined;
  fields: FieldFragments | undefined;
}

/** The store's readers of field events and path updates (`SourceReading`'s), given when loaded. */
export interface FragmentReaders {
  readonly fields?: ((maxDepth: number) => FieldFragments) | undefined;
  readonly updates?: ((maxDepth: number) => PathUpdateFragments) | undefined;
}

/**
 * One event of a view of `call`'s input — a stage before's progress, a path update, a field event —
 * applied to its input as fragments (nothing of an event that is not read back as any). A store
 * that is given this is given the readers of field events and path updates too.
 * @throws {TypeError} for a fragment out of order, or a call whose input came another way (its raw
 *   text); what the reader of field events or path updates throws.
 */
export function readFragments(call: FragmentCall, event: ToolCallArgumentProgress | PathUpdate | FieldEvent, readers: FragmentReaders, maxDepth: number): void {
  if (event.type === 'tool-call-progress') {
    inputOf(call).push(event.fragment);
    return;
  }
  // One array for every event (emptied after each, its storage kept), not a new one per event.
  const fragments = TRANSLATED;
  try {
    if (event.type === 'path-update') (call.updates ??= (readers.updates as (maxDepth: number) => PathUpdateFragments)(maxDepth)).push(event, fragments);
    else (call.fields ??= (readers.fields as (maxDepth: number) => FieldFragments)(maxDepth)).push(event, fragments);
    for (let i = 0; i < fragments.length; i++) inputOf(call).push(fragments[i] as StreamFragment);
  } finally {
    clear(fragments);
  }
}

const TRANSLATED: StreamFragment[] = [];

function inputOf(call: FragmentCall): FragmentInput {
  const input = (call.input ??= new FragmentInput(call.completed));
  if (!(input instanceof FragmentInput)) throw new TypeError('TurnStore: a call with two inputs');
  return input;
}
