/**
 * What the turn builder checks of an event it did not make itself: its shape (an event from user
 * code or a relay may be anything), the nesting of the values it carries, and the ids of the calls
 * it names. The checks cost O(1) per event beyond the values and fragments the event carries, and
 * never recurse: an event nested 20,000 deep is refused, it does not overflow the stack. Internal.
 *
 * @module
 */
import { excerpt, JsonStreamError, RelayError } from '../errors.ts';
import { DeepFragment } from '../json/deep-fragment.ts';
import { TaggedToolCallError } from './tagged-tool-call-extractor.ts';

/** Kinds a `start` fragment opens. */
const KINDS: ReadonlySet<unknown> = new Set(['object', 'array', 'string']);

/**
 * An event the turn builder cannot read: `RelayError` code `'invalid-data'`, the error the relay
 * decoders give a record that is not one of argstream's events, so a malformed event is the same
 * error whether it came off the wire or from the application's code.
 */
export function invalidEvent(message: string): RelayError {
  return new RelayError('invalid-data', message);
}

/** A value nested deeper than `maxDepth`: the JSON parser's own `'max-depth'` error. */
function tooDeep(what: string, maxDepth: number): JsonStreamError {
  return new JsonStreamError('max-depth', `${what} is nested deeper than maxDepth (${maxDepth})`, 0, '');
}

/** What an event has at `key`, for the checks: events are read as plain records. */
function member(event: object, key: string): unknown {
  return (event as Record<string, unknown>)[key];
}

/** The event's `index`: a content slot is an integer. */
export function checkIndex(event: object): void {
  if (!Number.isInteger(member(event, 'index'))) throw invalidEvent(`a \`${String(member(event, 'type'))}\` event without an integer \`index\``);
}

/** `event[key]` is a string (or, with `optional`, absent). */
export function checkString(event: object, key: string, optional = false): void {
  const value = member(event, key);
  if (typeof value === 'string' || (optional && value === undefined)) return;
  throw invalidEvent(`a \`${String(member(event, 'type'))}\` event whose \`${key}\` is not a string`);
}

/**
 * A fragment is one of RFD 043's, nested at most `maxDepth` wrappers deep. A `DeepFragment` is
 * argstream's own (a parser made it): trusted, and read in O(1).
 * @throws {RelayError} `'invalid-data'` for a fragment of the wrong shape.
 * @throws {JsonStreamError} `'max-depth'` for one nested deeper than `maxDepth`.
 */
export function checkFragment(fragment: unknown, maxDepth: number): void {
  if (fragment instanceof DeepFragment) return;
  let at = fragment;
  for (let depth = 0; ; depth++) {
    if (typeof at !== 'object' || at === null) throw invalidEvent('a fragment that is not an object');
    const fields = at as Record<string, unknown>;
    switch (fields['type']) {
      case 'entry':
        if (typeof fields['key'] !== 'string') throw invalidEvent('an `entry` fragment without a string `key`');
        break;
      case 'item':
        if (!Number.isInteger(fields['index']) || (fields['index'] as number) < 0) throw invalidEvent('an `item` fragment without an `index`');
        break;
      case 'start':
        if (!KINDS.has(fields['kind'])) throw invalidEvent('a `start` fragment of no known kind');
        return;
      case 'string':
        if (typeof fields['text'] !== 'string') throw invalidEvent('a `string` fragment without its `text`');
        return;
      case 'scalar': {
        const value = fields['value'];
        if (value !== null && typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) throw invalidEvent('a `scalar` fragment whose value is not a JSON scalar');
        return;
      }
      case 'done':
        return;
      default:
        throw invalidEvent('a fragment without a known `type`');
    }
    if (depth >= maxDepth) throw tooDeep('a fragment', maxDepth);
    at = fields['value'];
  }
}

/** One container being walked by {@link checkJson}: its members, and the next one to visit. */
interface Frame {
  readonly container: object;
  readonly members: readonly unknown[];
  next: number;
}

/**
 * `value` is a JSON value (`null`, a boolean, a finite number, a string, an array or a plain
 * object of them; `undefined` where `optional`), nested at most `maxDepth` containers deep, with
 * no cycle. An explicit stack: a value nested deeper than the call stack is refused, not a crash.
 * A container shared by two members (which `JSON.stringify` writes twice) is walked once.
 * @throws {RelayError} `'invalid-data'` for a value `JSON.parse` cannot have made.
 * @throws {JsonStreamError} `'max-depth'` for one nested deeper than `maxDepth`.
 */
export function checkJson(value: unknown, what: string, maxDepth: number): void {
  const stack: Frame[] = [];
  const open = new Set<object>();
  let done: Set<object> | undefined;
  let next: unknown = value;
  for (;;) {
    if (typeof next === 'object' && next !== null) {
      if (open.has(next)) throw invalidEvent(`${what} that contains itself (a cycle)`);
      if (done === undefined || !done.has(next)) {
        let members: unknown[];
        if (Array.isArray(next)) members = next;
        else {
          const prototype = Object.getPrototypeOf(next) as unknown;
          if (prototype !== Object.prototype && prototype !== null) throw invalidEvent(`${what} that holds an object that is not plain data`);
          members = Object.values(next);
        }
        if (stack.length >= maxDepth) throw tooDeep(what, maxDepth);
        open.add(next);
        stack.push({ container: next, members, next: 0 });
      }
    } else if (next !== null && typeof next !== 'string' && typeof next !== 'boolean' && !(typeof next === 'number' && Number.isFinite(next))) {
      throw invalidEvent(`${what} that is not JSON (${next === undefined ? 'undefined' : typeof next})`);
    }
    // The next member to visit, closing the containers walked to their end.
    for (;;) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) return;
      if (frame.next < frame.members.length) {
        next = frame.members[frame.next++];
        break;
      }
      stack.pop();
      open.delete(frame.container);
      (done ??= new Set()).add(frame.container);
    }
  }
}

/**
 * A call (slot `index`) claimed `toolCallId`, which the call of slot `heldAt` holds: a
 * {@link TaggedToolCallError} of code `'duplicate-tool-call-id'`.
 */
export function duplicateToolCallId(toolCallId: string, toolName: string, index: number, heldAt: number): TaggedToolCallError {
  const call = `${excerpt(toolName) || 'a tool call'} in slot ${index}`;
  return new TaggedToolCallError('duplicate-tool-call-id', `duplicate tool call id ${excerpt(toolCallId)}: ${call} has the id of the call in slot ${heldAt}`, {
    toolCallId,
    toolName,
    index,
  });
}
