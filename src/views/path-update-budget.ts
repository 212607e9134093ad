/**
 * What a relay may spend on one call's path updates (the `toolInputs: 'path-updates'` modes of the
 * AG-UI and UI message stream encoders): a path update costs a JSON object for a scalar of one or
 * two characters, so a document of small scalars would relay many times what the provider sent.
 *
 * @module
 */
import type { PathUpdate } from '../types.ts';

/** Characters of path updates allowed per character of argument text. */
export const PATH_UPDATE_BUDGET_PER_CHARACTER = 2;
/** Characters allowed per piece of argument text (each came in a provider record with its own framing). */
export const PATH_UPDATE_BUDGET_PER_PIECE = 96;
/** Characters allowed to every call from its start. */
export const PATH_UPDATE_BUDGET_BASE = 128;

/** Characters a string needs escaped in JSON, beyond its own. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The length of `JSON.stringify(text)`, without making it unless the text needs escapes. */
function stringLength(text: string): number {
  return ESCAPED.test(text) ? JSON.stringify(text).length : text.length + 2;
}

/** The length of `JSON.stringify(updates)`: path updates are flat objects of strings, numbers, booleans and null. */
export function pathUpdatesLength(updates: readonly PathUpdate[]): number {
  let length = 2 + Math.max(0, updates.length - 1);
  for (const update of updates) {
    let members = 0;
    for (const key in update) {
      const value = (update as unknown as Record<string, unknown>)[key];
      if (value === undefined) continue;
      members++;
      length += stringLength(key) + 1;
      if (typeof value === 'string') length += stringLength(value);
      else if (typeof value === 'number') length += Number.isFinite(value) ? String(value).length : 4;
      else if (typeof value === 'boolean') length += value ? 4 : 5;
      else length += value === null ? 4 : JSON.stringify(value).length;
    }
    length += 2 + Math.max(0, members - 1);
  }
  return length;
}

/**
 * One call's budget: the characters of its path-update records (their updates' JSON and the call's
 * id they repeat) stay within `2 × its argument text + 96 × the pieces the provider sent it in + 128`. A record that would
 * pass it is not sent, nor any later one of the call: the call's exact input still comes whole at
 * its end. Calls streamed in tokens and ordinary documents never reach it; a document of many small
 * scalars (a path update of 40–70 characters per number) does, and its page sees its input whole.
 */
export class PathUpdateBudget {
  #allowed = PATH_UPDATE_BUDGET_BASE;
  #spent = 0;
  #stopped = false;

  /** No more updates for this call. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * A piece of the call's argument text came: `raw` when the provider sent it as such (a record of
   * its own with its framing), not text rebuilt from the progress of a stage before (many pieces of
   * one record).
   */
  grow(text: string, raw: boolean): void {
    this.#allowed += PATH_UPDATE_BUDGET_PER_CHARACTER * text.length + (raw ? PATH_UPDATE_BUDGET_PER_PIECE : 0);
  }

  /** Whether the record of `updates` for the call `toolCallId` fits (it is then counted); once one does not, none does. */
  take(updates: readonly PathUpdate[], toolCallId: string): boolean {
    if (this.#stopped) return false;
    const spent = this.#spent + pathUpdatesLength(updates) + toolCallId.length;
    if (spent > this.#allowed) {
      this.#stopped = true;
      return false;
    }
    this.#spent = spent;
    return true;
  }
}
