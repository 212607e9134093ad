/**
 * One call's input text, piece by piece, as the path updates a relay sends of it (the
 * `toolInputs: 'path-updates'` modes of the AG-UI and UI message stream encoders): parsed once,
 * incrementally, and kept within the call's `PathUpdateBudget`.
 *
 * @module
 */
import { IncrementalJsonParser } from '../json/incremental-json-parser.ts';
import type { PathUpdate, StreamFragment } from '../types.ts';
import { PathUpdateBudget } from './path-update-budget.ts';
import { PathUpdateEncoder } from './path-update-encoder.ts';

/**
 * The path updates of one call's input text, as far as its budget lets them go. Past the budget, or
 * once the text stops parsing as JSON, the call gets no more: its input still comes whole at its
 * end, and a text that is not JSON fails the call downstream.
 */
export class ToolInputUpdates {
  readonly #budget: PathUpdateBudget;
  /** The updates a piece made before its text stopped parsing still go (else none of that piece's). */
  readonly #updatesBeforeError: boolean;
  readonly #parser = new IncrementalJsonParser();
  readonly #encoder = new PathUpdateEncoder();
  /** The fragments of the piece being read (reused). */
  readonly #fragments: StreamFragment[] = [];
  #unparsable = false;

  /**
   * `escaped`: the call's input goes whole at the end as a JSON string, its escapes paid from the
   * budget (`PathUpdateBudget`'s). `updatesBeforeError`: when a piece stops parsing, the updates it
   * made before the error still go.
   */
  constructor(escaped: boolean, updatesBeforeError: boolean) {
    this.#budget = new PathUpdateBudget(escaped);
    this.#updatesBeforeError = updatesBeforeError;
  }

  /**
   * A piece of the call's input text (`raw` and `read` as for `PathUpdateBudget.grow`): the updates
   * to send now, as one record, with those that waited for it; `undefined` when there are none to send.
   */
  push(text: string, raw: boolean, read: number, toolCallId: string): PathUpdate[] | undefined {
    if (this.#unparsable) return undefined;
    const budget = this.#budget;
    // Past its budget a call gets no more updates: its input still comes whole at its end.
    if (budget.stopped) return undefined;
    budget.grow(text, raw, read);
    const fragments = this.#fragments;
    try {
      this.#parser.push(text, fragments);
    } catch {
      // Not JSON: the call's end says so; the updates stop here.
      this.#unparsable = true;
      if (!this.#updatesBeforeError) {
        fragments.length = 0;
        return undefined;
      }
    }
    const updates: PathUpdate[] = [];
    const encoder = this.#encoder;
    for (let i = 0; i < fragments.length; i++) encoder.push(fragments[i] as StreamFragment, updates);
    fragments.length = 0;
    return budget.take(updates, toolCallId);
  }
}
