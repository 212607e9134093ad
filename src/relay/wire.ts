/**
 * What the relay encoders write for one event and the decoders read back: the event's JSON, with
 * the error objects inside it written as plain records and listed, so that the decoder can make
 * them errors again. Internal.
 *
 * - `undefined` members are left out (as `JSON.stringify` does); `-0` is written `-0`, which
 *   `JSON.parse` reads back as `-0`.
 * - An `Error` anywhere in an event becomes `{name, message, …its own enumerable fields, cause}`
 *   (never its stack: a server's internals stay on the server), and the event gets one more
 *   top-level member, `"$errors"`: the JSON Pointers of those records, parents first.
 * - The decoder gives each record the prototype of the class of that name (argstream's error
 *   classes, the standard ones, or those given in its options; `Error` otherwise), so
 *   `instanceof` holds and every field is back.
 *
 * @module
 */
import { escapeToken, unescapeToken } from '../json/json-pointer.ts';
import { RelayError } from '../errors.ts';
import { errorRecord, pageErrorRecord, reviveError, type ErrorClass, type PageErrorOptions } from './error-record.ts';

export { errorClasses, type ErrorClass } from './error-record.ts';

/** The top-level member that lists where errors are in an event. */
export const ERRORS_KEY: string = '$errors';

/** Writes JSON, recording where errors are. */
class Writer {
  readonly errors: string[] = [];
  readonly #ancestors: object[] = [];

  write(value: unknown, path: string): string | undefined {
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value);
      case 'number':
        if (!Number.isFinite(value)) return 'null';
        return Object.is(value, -0) ? '-0' : String(value);
      case 'boolean':
        return value ? 'true' : 'false';
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      case 'bigint':
        throw new RelayError('invalid-event', `a BigInt at ${path || '/'} cannot be written as JSON`);
      default:
        break;
    }
    if (value === null) return 'null';
    const object = value as object;
    if (this.#ancestors.includes(object)) throw new RelayError('invalid-event', `a cycle at ${path || '/'} cannot be written as JSON`);
    this.#ancestors.push(object);
    try {
      if (object instanceof Error) {
        this.errors.push(path);
        return this.#object(errorRecord(object), path);
      }
      if (Array.isArray(object)) {
        let text = '[';
        for (let i = 0; i < object.length; i++) {
          if (i > 0) text += ',';
          text += this.write(object[i], `${path}/${i}`) ?? 'null';
        }
        return `${text}]`;
      }
      const toJSON = (object as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return this.write(toJSON.call(object, path.slice(path.lastIndexOf('/') + 1)), path);
      return this.#object(object as Record<string, unknown>, path);
    } finally {
      this.#ancestors.pop();
    }
  }

  #object(object: Record<string, unknown>, path: string): string {
    let text = '{';
    for (const key of Object.keys(object)) {
      const member = this.write(object[key], `${path}/${escapeToken(key)}`);
      if (member === undefined) continue;
      if (text.length > 1) text += ',';
      text += `${JSON.stringify(key)}:${member}`;
    }
    return `${text}}`;
  }
}

/** Depth beyond which {@link isPlainJson} gives up (a cycle, or a very deep value): the writer takes over. */
const MAX_PLAIN_DEPTH = 64;

/** Whether `JSON.stringify` writes `value` as the writer would: no error in it, no `-0`. */
function isPlainJson(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return !Object.is(value, -0);
  if (typeof value !== 'object' || value === null) return true;
  if (depth > MAX_PLAIN_DEPTH || value instanceof Error) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && !isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** Add the list of error pointers to an object's JSON text. */
function withErrors(text: string, errors: readonly string[]): string {
  if (errors.length === 0) return text;
  return `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"${ERRORS_KEY}":${JSON.stringify(errors)}}`;
}

/**
 * One event as JSON text (no line break in it).
 * @throws {RelayError} `invalid-event` for what JSON cannot hold (a `BigInt`, a cycle), or an
 * event with a top-level `$errors` member of its own.
 */
export function writeEvent(event: unknown): string {
  if (typeof event === 'object' && event !== null && !Array.isArray(event) && !(event instanceof Error) && Object.hasOwn(event, ERRORS_KEY)) {
    throw new RelayError('invalid-event', `an event cannot have a member "${ERRORS_KEY}": the relay uses it to list the errors in an event`);
  }
  // Most events hold neither an error nor -0: the runtime's own JSON.stringify writes them, several
  // times faster than the writer (which also finds cycles and BigInts, with their path).
  if (isPlainJson(event, 0)) {
    try {
      return JSON.stringify(event) ?? 'null';
    } catch {
      // A BigInt: the writer says where.
    }
  }
  const writer = new Writer();
  const text = writer.write(event, '') ?? 'null';
  // Errors can only be listed in an object (an event of argstream always is one).
  return text.startsWith('{') ? withErrors(text, writer.errors) : text;
}

/** An upstream failure as the JSON record of an error event: its page record (`error-record.ts`). */
export function writeError(reason: unknown, options?: PageErrorOptions): string {
  return JSON.stringify(pageErrorRecord(reason, options));
}

/** Put the errors listed in `$errors` back in place (children before their parents). */
function reviveErrors(root: Record<string, unknown>, classes: ReadonlyMap<string, ErrorClass>): unknown {
  const list = root[ERRORS_KEY];
  delete root[ERRORS_KEY];
  if (!Array.isArray(list)) throw new RelayError('invalid-data', `"${ERRORS_KEY}" is not a list of JSON Pointers`);
  let result: unknown = root;
  for (let i = list.length - 1; i >= 0; i--) {
    const pointer = list[i];
    if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) {
      throw new RelayError('invalid-data', `"${ERRORS_KEY}" holds something that is not a JSON Pointer`);
    }
    if (pointer === '') {
      result = reviveError(root, classes);
      continue;
    }
    const tokens = pointer.slice(1).split('/');
    let parent: unknown = root;
    for (let t = 0; t < tokens.length - 1; t++) parent = step(parent, tokens[t] as string);
    const key = unescapeToken(tokens[tokens.length - 1] as string);
    if (key === undefined || typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, key)) {
      throw new RelayError('invalid-data', `"${ERRORS_KEY}" points at ${pointer}, which is not in the event`);
    }
    (parent as Record<string, unknown>)[key] = reviveError((parent as Record<string, unknown>)[key], classes);
  }
  return result;
}

function step(value: unknown, token: string): unknown {
  const key = unescapeToken(token);
  if (key === undefined || typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) {
    throw new RelayError('invalid-data', `"${ERRORS_KEY}" points at a member that is not in the event`);
  }
  return (value as Record<string, unknown>)[key];
}

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new RelayError('invalid-data', `${what} is not JSON: "${text.length > 30 ? `${text.slice(0, 30)}…` : text}"`, { cause });
  }
}

/** Read one event written by {@link writeEvent}. @throws {RelayError} `invalid-data`. */
export function readEvent(text: string, classes: ReadonlyMap<string, ErrorClass>): unknown {
  return readEventValue(parse(text, 'event data'), classes);
}

/** An event written by {@link writeEvent}, parsed: its errors made errors again. @throws {RelayError} `invalid-data`. */
export function readEventValue(value: unknown, classes: ReadonlyMap<string, ErrorClass>): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, ERRORS_KEY)) {
    return reviveErrors(value as Record<string, unknown>, classes);
  }
  return value;
}

/** A `snapshot` event (`{type: 'snapshot', events: […]}`): its events and `lastId`; `undefined` for any other value. */
export function snapshotOf(event: unknown): { readonly events: readonly unknown[]; readonly lastId: unknown } | undefined {
  if (typeof event !== 'object' || event === null || (event as { type?: unknown }).type !== 'snapshot') return undefined;
  const { events, lastId } = event as { events?: unknown; lastId?: unknown };
  if (!Array.isArray(events)) return undefined;
  return { events, lastId };
}

/**
 * Give out the events of a decoded snapshot (its `data`, `{"events":[…]}`), those of the
 * snapshots inside it too, in order, without recursion.
 * @throws {RelayError} `invalid-data` for data without an `events` list; `max-depth` for snapshots
 * nested deeper than `maxDepth`.
 */
export function expandSnapshot(data: unknown, out: unknown[], maxDepth = 256): void {
  const events = typeof data === 'object' && data !== null ? (data as { events?: unknown }).events : undefined;
  if (!Array.isArray(events)) throw new RelayError('invalid-data', 'a snapshot without its list of events');
  // The lists being read, and where each is.
  const lists: Array<readonly unknown[]> = [events];
  const at: number[] = [0];
  while (lists.length > 0) {
    const top = lists.length - 1;
    const list = lists[top] as readonly unknown[];
    const i = at[top] as number;
    if (i >= list.length) {
      lists.pop();
      at.pop();
      continue;
    }
    at[top] = i + 1;
    const event = list[i];
    const inner = snapshotOf(event);
    if (inner === undefined) {
      out.push(event);
      continue;
    }
    if (lists.length >= maxDepth) throw new RelayError('max-depth', `snapshots nested deeper than maxDepth (${maxDepth})`);
    lists.push(inner.events);
    at.push(0);
  }
}

/** Read an error record written by {@link writeError}. @throws {RelayError} `invalid-data`. */
export function readError(text: string, classes: ReadonlyMap<string, ErrorClass>): Error {
  const value = parse(text, 'error data');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RelayError('invalid-data', 'error data is not a JSON object');
  // `$errors` (written before page records were plain) is not needed: the reader revives the one cause.
  return reviveError(value, classes);
}
