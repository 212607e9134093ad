/**
 * The client half of the JsonFragment protocol: applies {@link PathUpdate}s, in order, to a live
 * JSON value.
 *
 * @module
 */
import { excerpt, RelayError } from '../errors.ts';
import { unescapeToken } from '../json/json-pointer.ts';
import type { JsonObject, JsonValue, PathUpdate } from '../types.ts';

type Container = JsonObject | JsonValue[];

interface OpenContainer {
  readonly container: Container;
  readonly pointer: string;
  readonly isArray: boolean;
}

interface OpenString {
  readonly parent: Container | undefined;
  readonly key: string | number;
  readonly pointer: string;
  /** What is already stored in the parent; `parts` holds the pieces since (joined on read). */
  text: string;
  readonly parts: string[];
}

/** Set an own property, even for `__proto__`, as `JSON.parse` does. */
function setMember(object: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

function describe(update: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(update) ?? String(update);
  } catch {
    text = String(update);
  }
  // At most 30 characters of what a relay sent: model output stays out of logs.
  return excerpt(text);
}

/** The offsets of the `/` that begins each token of `pointer`. */
function tokenStarts(pointer: string): number[] {
  const starts: number[] = [];
  for (let p = pointer.indexOf('/'); p !== -1; p = pointer.indexOf('/', p + 1)) starts.push(p);
  return starts;
}

/**
 * Rebuilds one JSON document from its {@link PathUpdate}s (the `JsonFragmentRebuilder` of the
 * JsonFragment protocol), whether they come straight from a {@link PathUpdateStream} or were
 * `JSON.parse`d from an SSE message.
 *
 * `value` is live — the same object, mutated by later updates; clone it to keep it — and grows
 * exactly as a `FragmentAggregator` snapshot does: a member or element appears when its value
 * begins (a `key` update alone adds nothing), a string grows with each `partial-string`, numbers
 * are read from `raw` when present (so `-0` and huge literals survive JSON), and `__proto__`
 * becomes an own property. `isComplete()` turns true at `json-complete`.
 *
 * Updates must come in document order, as one producer made them: each value's path must be a
 * member of the innermost open object (any key) or the next element of the innermost open array.
 * A path may be relative to the previous update's (`relativePaths` on the encoder): `N` then a
 * pointer, resolved in O(depth + what it appends).
 * Identity fields (`toolCallId`, `index`) are ignored; use a {@link ToolCallRebuilder} for
 * several calls. Work per update is O(its path); memory is the value plus O(depth).
 *
 * @throws {RelayError} `invalid-data` from `push` for an update out of order, of an unknown kind, or after
 *   `json-complete`. The value keeps what was applied before.
 * @example
 * ```ts
 * const rebuilder = new JsonFragmentRebuilder();
 * source.addEventListener('message', (message) => {
 *   rebuilder.push(JSON.parse(message.data));
 *   render(rebuilder.value, rebuilder.isComplete());
 * });
 * ```
 */
export class JsonFragmentRebuilder {
  #root: JsonValue | undefined;
  #started = false;
  #rootDone = false;
  #complete = false;
  readonly #stack: OpenContainer[] = [];
  #string: OpenString | undefined;
  /** The absolute path of the last update, against which a relative path is resolved. */
  #previous = '';
  /** {@link tokenStarts} of `#previous`. */
  #starts: number[] = [];
  /** For an update with a relative path: the kept part (an open container's own string when it can) and the rest. */
  #kept: string | undefined;
  #rest = '';

  /** The value so far (live), or `undefined` before the first update. */
  get value(): JsonValue | undefined {
    if (this.#string !== undefined) this.#storeString(this.#string);
    return this.#root;
  }

  /** True once `json-complete` has been applied. */
  isComplete(): boolean {
    return this.#complete;
  }

  /** Apply one update. */
  push(update: PathUpdate): void {
    if (this.#complete) throw new RelayError('invalid-data', `JsonFragmentRebuilder: update after json-complete: ${describe(update)}`);
    const given: unknown = update.path;
    if (typeof given !== 'string') return bad(update);
    let path = given;
    this.#kept = undefined;
    if (path !== '' && path.charCodeAt(0) !== 47 /* / */) {
      const absolute = this.#resolve(path);
      if (absolute === undefined) return bad(update);
      path = absolute;
      update = { ...update, path } as PathUpdate;
    } else this.#starts = tokenStarts(path);
    this.#previous = path;
    switch (update.kind) {
      case 'start-object':
        this.#openContainer(update, {}, false);
        break;
      case 'start-array':
        this.#openContainer(update, [], true);
        break;
      case 'start-string': {
        const [parent, key] = this.#place(update, '');
        this.#string = { parent, key, pointer: path, text: '', parts: [] };
        break;
      }
      case 'partial-string': {
        const open = this.#string;
        if (open === undefined || open.pointer !== path || typeof update.textValue !== 'string') return bad(update);
        open.parts.push(update.textValue);
        break;
      }
      case 'complete-string': {
        const open = this.#string;
        if (open === undefined || open.pointer !== path) return bad(update);
        this.#storeString(open);
        this.#string = undefined;
        this.#closed();
        break;
      }
      case 'complete-number': {
        const raw: unknown = update.raw;
        const value = typeof raw === 'string' ? Number(raw) : update.value;
        if (typeof value !== 'number' || Number.isNaN(value)) return bad(update);
        this.#place(update, value);
        this.#closed();
        break;
      }
      case 'complete-boolean':
        if (typeof update.value !== 'boolean') return bad(update);
        this.#place(update, update.value);
        this.#closed();
        break;
      case 'complete-null':
        this.#place(update, null);
        this.#closed();
        break;
      case 'end-object':
      case 'end-array': {
        const top = this.#stack[this.#stack.length - 1];
        if (this.#string !== undefined || top === undefined || top.pointer !== path || top.isArray !== (update.kind === 'end-array')) {
          return bad(update);
        }
        this.#stack.pop();
        this.#closed();
        break;
      }
      case 'key': {
        const top = this.#stack[this.#stack.length - 1];
        if (this.#string !== undefined || top === undefined || top.isArray || this.#memberToken(top, path) !== update.textValue) {
          return bad(update);
        }
        break;
      }
      case 'json-complete':
        if (path !== '' || !this.#rootDone) return bad(update);
        this.#complete = true;
        break;
      default:
        return bad(update satisfies never);
    }
  }

  /**
   * The absolute pointer of a relative path (`PathUpdateStreamOptions.relativePaths`): `N` then a
   * pointer means "drop the last N tokens of the previous path, then append the pointer".
   * `undefined` when `relative` is not of that form or drops more tokens than there are. Costs
   * O(depth + the appended part), not O(the path): a long key is not read again.
   */
  #resolve(relative: string): string | undefined {
    let i = 0;
    let up = 0;
    for (; i < relative.length && i < 10; i++) {
      const c = relative.charCodeAt(i);
      if (c < 48 || c > 57) break;
      up = up * 10 + (c - 48);
    }
    if (i === 0 || (i > 1 && relative.charCodeAt(0) === 48) || (i < relative.length && relative.charCodeAt(i) !== 47)) return undefined;
    const starts = this.#starts;
    if (up > starts.length) return undefined;
    const depth = starts.length - up;
    const end = up === 0 ? this.#previous.length : (starts[depth] as number);
    // The open containers are the previous path's ancestors (or itself): the one as long as the
    // kept part is that part, and its own string is kept (compared by identity from then on).
    const open = this.#stack[depth];
    const kept = open !== undefined && open.pointer.length === end ? open.pointer : this.#previous.slice(0, end);
    const rest = relative.slice(i);
    // In place: a copy of the kept part would cost O(depth) per update.
    starts.length = depth;
    for (let p = rest.indexOf('/'); p !== -1; p = rest.indexOf('/', p + 1)) starts.push(end + p);
    this.#kept = kept;
    this.#rest = rest;
    return kept + rest;
  }

  #openContainer(update: PathUpdate, container: Container, isArray: boolean): void {
    this.#place(update, container);
    this.#stack.push({ container, pointer: update.path, isArray });
  }

  /** The value at the root is complete when the stack is empty after a value closed. */
  #closed(): void {
    if (this.#stack.length === 0 && this.#string === undefined) this.#rootDone = true;
  }

  /** The decoded last token of `path` if `path` is a direct child of `top`, else `undefined`. */
  #memberToken(top: OpenContainer, path: string): string | undefined {
    const prefix = top.pointer;
    if (this.#kept !== undefined && this.#kept === prefix) {
      // Resolved from a relative path that kept exactly this container's pointer.
      const rest = this.#rest;
      if (rest.charCodeAt(0) !== 47 /* / */ || rest.indexOf('/', 1) !== -1) return undefined;
      const token = rest.slice(1);
      return top.isArray ? token : unescapeToken(token);
    }
    if (path.length <= prefix.length || path.charCodeAt(prefix.length) !== 47 /* / */ || !path.startsWith(prefix)) return undefined;
    const token = path.slice(prefix.length + 1);
    if (token.indexOf('/') !== -1) return undefined;
    return top.isArray ? token : unescapeToken(token);
  }

  /** Attach a new value at `update.path`; returns where it went (for strings). */
  #place(update: PathUpdate, value: JsonValue): [Container | undefined, string | number] {
    if (this.#string !== undefined) return bad(update);
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined) {
      if (this.#started || update.path !== '') return bad(update);
      this.#root = value;
      this.#started = true;
      return [undefined, ''];
    }
    const token = this.#memberToken(top, update.path);
    if (token === undefined) return bad(update);
    if (top.isArray) {
      const array = top.container as JsonValue[];
      if (token !== String(array.length)) return bad(update);
      array.push(value);
      return [array, array.length - 1];
    }
    setMember(top.container as JsonObject, token, value);
    return [top.container, token];
  }

  #storeString(open: OpenString): void {
    const parts = open.parts;
    if (parts.length > 0) {
      open.text += parts.length === 1 ? (parts[0] as string) : parts.join('');
      parts.length = 0;
    }
    const parent = open.parent;
    if (parent === undefined) this.#root = open.text;
    else if (Array.isArray(parent)) parent[open.key as number] = open.text;
    else setMember(parent, open.key as string, open.text);
  }
}

function bad(update: unknown): never {
  throw new RelayError('invalid-data', `JsonFragmentRebuilder: update out of order or malformed: ${describe(update)}`);
}
