/**
 * Field events (a relay that sends `FieldEventStream`'s output) read back as fragments, as
 * `fragments.ts` reads path updates back: a chunk of its own for a page, loaded with what reads a
 * source that may carry them (a relay's `Response`, a stream of events), never by the AI SDK chat
 * transport's page. Internal.
 *
 * @module
 */
import { checkJson, invalidEvent } from '../turn/event-check.ts';
import type { FieldEvent, JsonValue, StreamFragment } from '../types.ts';
import { wrap, type Step } from './fragments.ts';

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

/** A new reader of one call's field events (`SourceReading.fields`). */
export function newFieldFragments(maxDepth: number): FieldFragments {
  return new FieldFragments(maxDepth);
}
