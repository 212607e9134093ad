/**
 * Which paths of a call's input are complete, and when: the store's log of them, written as the
 * input is built (from raw argument text, `scanned-input.ts`, or from fragments,
 * `fragment-input.ts`) and read by each snapshot's view. Internal.
 *
 * @module
 */

/**
 * When each path of a call's input became complete, and when a duplicate key (whose last value
 * wins, as in `JSON.parse`) put a new value there, which is not complete until it ends: one log
 * per call, only ever appended to, so that each snapshot's view of it stays as it was.
 */
export class CompletionLog {
  /** The next event's number: a view sees the events before its own number. */
  tick = 0;
  /** How many paths are complete now. */
  count = 0;
  /** Per path, the ticks at which it completed, reopened, completed again, …: a number while it completed once. */
  readonly #events = new Map<string, number | number[]>();
  /**
   * The paths completed under each open or complete container, so that a duplicate key reopens
   * the members of the value it replaces by visiting them, not every path: each path is visited
   * at most once per time it completed.
   */
  readonly #members = new Map<string, string[]>();

  /** A value begins at `pointer` (a container if `container`); a complete one there before is replaced (a duplicate key). */
  begin(pointer: string, container: boolean): void {
    if (this.isComplete(pointer, this.tick)) {
      this.#reopen(pointer);
      this.tick++;
    }
    if (container) this.#members.set(pointer, []);
  }

  /** The value at `pointer`, a member of `parent`, is complete. */
  complete(pointer: string, parent: string | undefined): void {
    const events = this.#events.get(pointer);
    if (events === undefined) this.#events.set(pointer, this.tick++);
    else if (Array.isArray(events) && events.length % 2 === 0) events.push(this.tick++);
    else return; // complete already
    this.count++;
    if (parent !== undefined) this.#members.get(parent)?.push(pointer);
  }

  /** Whether `pointer` was complete before event `tick`. */
  isComplete(pointer: string, tick: number): boolean {
    const events = this.#events.get(pointer);
    if (events === undefined) return false;
    if (!Array.isArray(events)) return events < tick;
    let last = -1;
    for (let i = 0; i < events.length && (events[i] as number) < tick; i++) last = i;
    return last % 2 === 0;
  }

  /** `pointer` and the complete paths under it are not complete from now on (an explicit stack: values nest deep). */
  #reopen(pointer: string): void {
    const stack = [pointer];
    for (let path = stack.pop(); path !== undefined; path = stack.pop()) {
      if (!this.isComplete(path, this.tick)) continue;
      const events = this.#events.get(path) as number | number[];
      if (Array.isArray(events)) events.push(this.tick);
      else this.#events.set(path, [events, this.tick]);
      this.count--;
      const members = this.#members.get(path);
      if (members === undefined) continue;
      this.#members.delete(path);
      for (const member of members) stack.push(member);
    }
  }
}
