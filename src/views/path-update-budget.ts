/**
 * What a relay may spend on one call's path updates (the `toolInputs: 'path-updates'` modes of the
 * AG-UI and UI message stream encoders): a path update costs a JSON object for a scalar of one or
 * two characters, so a document of small scalars would relay many times what the provider sent.
 *
 * @module
 */
import type { PathUpdate } from '../types.ts';

/**
 * Characters of path-update records allowed per character of argument text. The whole wire of a
 * call is then its updates, its input once more at the end and a few records: 4 times the text at
 * most (AG-UI, which sends the input as a JSON string, gives back what its escapes add).
 */
export const PATH_UPDATE_BUDGET_PER_CHARACTER = 3;
/** Characters allowed per piece of argument text the provider sent (each came in a record with its own framing). */
export const PATH_UPDATE_BUDGET_PER_PIECE = 384;
/** Characters charged per record besides its updates and the call's id: its type and members, its framing. */
export const PATH_UPDATE_RECORD = 64;
/** Characters of updates held for a call at most, waiting for its text to pay for them: past it the call gets no more. */
export const PATH_UPDATE_HOLD = 4096;
/** Characters allowed to every call from its start. */
export const PATH_UPDATE_BUDGET_BASE = 32;

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

/** What `JSON.stringify(text)` adds to `text` (its quotes aside): a character for each `"`, `\\` and control character, more for the rare others. */
function escapes(text: string): number {
  if (!ESCAPED.test(text)) return 0;
  let extra = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code === 0x5c || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x08 || code === 0x0c) extra += 1;
    else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) extra += 5;
  }
  return extra;
}

/**
 * One call's budget: the characters of its path-update records (their updates' JSON, the call's id
 * they repeat, and 64 for the rest of each record) stay within `3 × its argument text + 384 × the
 * pieces the provider sent it in (the relay's reads, for text rebuilt from progress) + 32` (less, with `escaped`, what escaping the text adds). Updates
 * that do not fit wait, and go with the next piece's in one record once the text has paid for them;
 * when more than 4,096 characters of them wait, they and every later update of the call are dropped:
 * the call's exact input still comes whole at its end. Calls streamed in pieces never wait; a
 * document of many small scalars sent in few pieces (a path update of 40–70 characters per number)
 * does, and its page sees its input whole.
 */
export class PathUpdateBudget {
  readonly #escaped: boolean;
  #allowed = PATH_UPDATE_BUDGET_BASE;
  #spent = 0;
  #stopped = false;
  /** The read of the last piece. */
  #read = -1;
  /** Updates that did not fit yet, and the length of their JSON list. */
  #held: PathUpdate[] = [];
  #heldLength = 0;

  /** `escaped`: the call's input goes whole at the end as a JSON string (AG-UI's `TOOL_CALL_ARGS`), its escapes paid from the budget. */
  constructor(escaped: boolean) {
    this.#escaped = escaped;
  }

  /** No more updates for this call. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * A piece of the call's argument text came, during the relay's read `read`: `raw` when the
   * provider sent it as such (a record of its own with its framing); text rebuilt from the progress
   * of a stage before (many pieces of one record) earns a piece's budget once per read.
   */
  grow(text: string, raw: boolean, read: number): void {
    const piece = raw || read !== this.#read;
    this.#read = read;
    this.#allowed += PATH_UPDATE_BUDGET_PER_CHARACTER * text.length + (piece ? PATH_UPDATE_BUDGET_PER_PIECE : 0) - (this.#escaped ? escapes(text) : 0);
  }

  /**
   * What to send now of the call's updates: `updates` after those held before them, as one record,
   * when it fits; `undefined` when it does not (held, until the text has grown enough to pay for it,
   * or, once more than `PATH_UPDATE_HOLD` characters wait, dropped with every later update of the call).
   */
  take(updates: PathUpdate[], toolCallId: string): PathUpdate[] | undefined {
    if (this.#stopped) return undefined;
    if (updates.length > 0) {
      this.#heldLength += pathUpdatesLength(updates) - (this.#held.length > 0 ? 1 : 0);
      if (this.#held.length === 0) this.#held = updates;
      else for (const update of updates) this.#held.push(update);
    }
    if (this.#held.length === 0) return undefined;
    const spent = this.#spent + this.#heldLength + toolCallId.length + PATH_UPDATE_RECORD;
    if (spent <= this.#allowed) {
      const ready = this.#held;
      this.#spent = spent;
      this.#held = [];
      this.#heldLength = 0;
      return ready;
    }
    if (this.#heldLength > PATH_UPDATE_HOLD) {
      this.#stopped = true;
      this.#held = [];
    }
    return undefined;
  }
}
