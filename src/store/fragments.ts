/**
 * The other views of a call's arguments, read back as fragments, so that the store builds every
 * call's input one way (a `FragmentAggregator` with shared snapshots): path updates (a relay that
 * sends `PathUpdateStream`'s output) and field events (one that sends `FieldEventStream`'s).
 * Internal.
 *
 * @module
 */
import { JsonStreamError } from '../errors.ts';
import { checkJson, invalidEvent } from '../turn/event-check.ts';
import type { FieldEvent, JsonValue, PathUpdate, StreamFragment } from '../types.ts';

/** Where a value sits in its parent: a member's key or an element's index. */
type Step = { readonly key: string } | { readonly index: number };

/** `leaf` at `steps` from the root: the `entry`/`item` wrappers a parser would have sent. */
export function wrap(steps: readonly Step[], leaf: StreamFragment): StreamFragment {
  let fragment = leaf;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as Step;
    fragment = 'key' in step ? { type: 'entry', key: step.key, value: fragment } : { type: 'item', index: step.index, value: fragment };
  }
  return fragment;
}

/**
 * The fragments of a whole value at `steps`, appended to `out`: an explicit stack, so that a value
 * nested as deep as the limits allow never overflows the call stack.
 */
export function valueFragments(value: JsonValue, steps: Step[], out: StreamFragment[]): void {
  /** The containers being walked: their members (keys of an object, or `undefined` for an array) and the next one. */
  const stack: Array<{ readonly value: JsonValue[] | { readonly [key: string]: JsonValue }; readonly keys: string[] | undefined; next: number }> = [];
  let next: JsonValue | undefined = value;
  for (;;) {
    if (next !== undefined) {
      if (typeof next === 'string') {
        out.push(wrap(steps, { type: 'start', kind: 'string' }));
        if (next !== '') out.push(wrap(steps, { type: 'string', text: next }));
        out.push(wrap(steps, { type: 'done' }));
      } else if (next === null || typeof next !== 'object') {
        out.push(wrap(steps, { type: 'scalar', value: next }));
        out.push(wrap(steps, { type: 'done' }));
      } else {
        const isArray = Array.isArray(next);
        out.push(wrap(steps, { type: 'start', kind: isArray ? 'array' : 'object' }));
        stack.push({ value: next, keys: isArray ? undefined : Object.keys(next), next: 0 });
      }
    }
    const top = stack[stack.length - 1];
    if (top === undefined) return;
    // Leave the member just walked, then step into the next one, or close the container.
    if (top.next > 0) steps.pop();
    const count = top.keys === undefined ? (top.value as JsonValue[]).length : top.keys.length;
    if (top.next < count) {
      const at = top.next++;
      if (top.keys === undefined) {
        steps.push({ index: at });
        next = (top.value as JsonValue[])[at];
      } else {
        const key = top.keys[at] as string;
        steps.push({ key });
        next = (top.value as { readonly [key: string]: JsonValue })[key];
      }
    } else {
      stack.pop();
      out.push(wrap(steps, { type: 'done' }));
      next = undefined;
    }
  }
}

interface Open {
  /** Where the container sits. */
  readonly steps: Step[];
  readonly isArray: boolean;
  next: number;
}

/**
 * Path updates → fragments. Updates come in document order (one producer made them), so where a
 * value goes follows from the open containers and the last `key`, and paths (absolute or
 * relative) need not be read. A misplaced update makes a misplaced fragment, which the aggregator
 * rejects.
 */
export class PathUpdateFragments {
  readonly #stack: Open[] = [];
  readonly #maxDepth: number;
  #key = '';
  /** The steps of the open string, if one is open. */
  #string: Step[] | undefined;

  /** `maxDepth`: the deepest nesting of containers the updates may open (the store's limit). */
  constructor(maxDepth: number) {
    this.#maxDepth = maxDepth;
  }

  /**
   * The fragments of one update, appended to `out`.
   * @throws {RelayError} code `'invalid-data'` for an update that does not fit the ones before it.
   * @throws {JsonStreamError} code `'max-depth'` for containers nested deeper than `maxDepth`.
   */
  push(update: PathUpdate, out: StreamFragment[]): void {
    switch (update.kind) {
      case 'key':
        if (typeof update.textValue !== 'string') throw invalidEvent('a `key` update without its `textValue`');
        this.#key = update.textValue;
        return;
      case 'start-object':
      case 'start-array': {
        if (this.#stack.length >= this.#maxDepth) {
          throw new JsonStreamError('max-depth', `path updates nest containers deeper than maxDepth (${this.#maxDepth})`, 0, update.path);
        }
        const steps = this.#place();
        out.push(wrap(steps, { type: 'start', kind: update.kind === 'start-object' ? 'object' : 'array' }));
        this.#stack.push({ steps, isArray: update.kind === 'start-array', next: 0 });
        return;
      }
      case 'start-string':
        this.#string = this.#place();
        out.push(wrap(this.#string, { type: 'start', kind: 'string' }));
        return;
      case 'partial-string':
        if (this.#string === undefined) throw invalidEvent('a `partial-string` update outside a string');
        if (typeof update.textValue !== 'string') throw invalidEvent('a `partial-string` update without its `textValue`');
        out.push(wrap(this.#string, { type: 'string', text: update.textValue }));
        return;
      case 'complete-string':
        if (this.#string === undefined) throw invalidEvent('a `complete-string` update outside a string');
        out.push(wrap(this.#string, { type: 'done' }));
        this.#string = undefined;
        return;
      case 'complete-number':
      case 'complete-boolean':
      case 'complete-null': {
        const steps = this.#place();
        const value = update.kind === 'complete-number' && typeof update.raw === 'string' ? Number(update.raw) : update.value;
        const scalar = update.kind === 'complete-null' ? null : update.kind === 'complete-boolean' ? 'boolean' : 'number';
        if (scalar === null ? value !== null : typeof value !== scalar) throw invalidEvent(`a \`${update.kind}\` update without its value`);
        out.push(wrap(steps, { type: 'scalar', value }));
        out.push(wrap(steps, { type: 'done' }));
        return;
      }
      case 'end-object':
      case 'end-array': {
        const open = this.#stack.pop();
        if (open === undefined) throw invalidEvent(`an \`${update.kind}\` update with no open container`);
        out.push(wrap(open.steps, { type: 'done' }));
        return;
      }
      case 'json-complete':
        return;
      default:
        throw invalidEvent('an update of no known `kind`');
    }
  }

  /** Where the next value goes: the next element of the open array, or the member of the last key. */
  #place(): Step[] {
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined) return [];
    return [...top.steps, top.isArray ? { index: top.next++ } : { key: this.#key }];
  }
}

/**
 * Field events → fragments. A field's deltas are decoded text for a string and JSON text for any
 * other value, and which one is said only at its `field-end`: a string field grows in the input as
 * its deltas arrive when its `field-start` says `string: true` (as `FieldEventStream` does), and
 * otherwise appears whole at its end, as does any other value.
 */
export class FieldFragments {
  readonly #maxDepth: number;
  #started = false;
  /** The open field's key, its text so far, and whether it is known to be a string. */
  #key: string | undefined;
  #text: string[] = [];
  #streaming = false;

  /** `maxDepth`: the deepest nesting a field's value may have (the store's limit). */
  constructor(maxDepth: number) {
    this.#maxDepth = maxDepth;
  }

  /**
   * The fragments of one field event, appended to `out`.
   * @throws {RelayError} code `'invalid-data'` for a field whose JSON text is not JSON.
   * @throws {JsonStreamError} code `'max-depth'` for a value nested deeper than `maxDepth` (a
   *   field is one level below the root).
   */
  push(event: FieldEvent, out: StreamFragment[]): void {
    if (!this.#started) {
      this.#started = true;
      out.push({ type: 'start', kind: 'object' });
    }
    const steps: Step[] = [{ key: event.key }];
    switch (event.type) {
      case 'field-start':
        this.#key = event.key;
        this.#text = [];
        this.#streaming = event.string === true;
        if (this.#streaming) out.push(wrap(steps, { type: 'start', kind: 'string' }));
        return;
      case 'field-delta':
        if (this.#streaming) out.push(wrap(steps, { type: 'string', text: event.text }));
        else this.#text.push(event.text);
        return;
      case 'field-end': {
        const text = this.#text.join('');
        this.#key = undefined;
        this.#text = [];
        if (this.#streaming) out.push(wrap(steps, { type: 'done' }));
        else valueFragments(event.string ? text : this.#parse(text), steps, out);
        this.#streaming = false;
        return;
      }
    }
  }

  /** A field's JSON text as a value, within the depth limit. */
  #parse(text: string): JsonValue {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw invalidEvent(`a field whose text is not JSON (${error instanceof Error ? error.name : 'an error'})`);
    }
    checkJson(value, 'the value of a field', this.#maxDepth - 1);
    return value as JsonValue;
  }

  /** The document is complete (the call ended): close the root object. */
  end(out: StreamFragment[]): void {
    if (!this.#started) out.push({ type: 'start', kind: 'object' });
    this.#started = true;
    out.push({ type: 'done' });
  }
}
