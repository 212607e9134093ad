/**
 * The other views of a call's arguments, read back as fragments, so that the store builds every
 * call's input one way (a `FragmentAggregator` with shared snapshots): path updates (a relay that
 * sends `PathUpdateStream`'s output) and field events (one that sends `FieldEventStream`'s).
 * Internal.
 *
 * @module
 */
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

/** The fragments of a whole value at `steps`, appended to `out`. */
export function valueFragments(value: JsonValue, steps: Step[], out: StreamFragment[]): void {
  if (typeof value === 'string') {
    out.push(wrap(steps, { type: 'start', kind: 'string' }));
    if (value !== '') out.push(wrap(steps, { type: 'string', text: value }));
  } else if (value === null || typeof value !== 'object') {
    out.push(wrap(steps, { type: 'scalar', value }));
  } else if (Array.isArray(value)) {
    out.push(wrap(steps, { type: 'start', kind: 'array' }));
    for (let i = 0; i < value.length; i++) {
      steps.push({ index: i });
      valueFragments(value[i] as JsonValue, steps, out);
      steps.pop();
    }
  } else {
    out.push(wrap(steps, { type: 'start', kind: 'object' }));
    for (const key of Object.keys(value)) {
      steps.push({ key });
      valueFragments(value[key] as JsonValue, steps, out);
      steps.pop();
    }
  }
  out.push(wrap(steps, { type: 'done' }));
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
  #key = '';
  /** The steps of the open string, if one is open. */
  #string: Step[] | undefined;

  /** The fragments of one update, appended to `out`. */
  push(update: PathUpdate, out: StreamFragment[]): void {
    switch (update.kind) {
      case 'key':
        this.#key = update.textValue;
        return;
      case 'start-object':
      case 'start-array': {
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
        if (this.#string === undefined) throw new TypeError('a partial-string update outside a string');
        out.push(wrap(this.#string, { type: 'string', text: update.textValue }));
        return;
      case 'complete-string':
        if (this.#string === undefined) throw new TypeError('a complete-string update outside a string');
        out.push(wrap(this.#string, { type: 'done' }));
        this.#string = undefined;
        return;
      case 'complete-number':
      case 'complete-boolean':
      case 'complete-null': {
        const steps = this.#place();
        const value = update.kind === 'complete-number' && typeof update.raw === 'string' ? Number(update.raw) : update.value;
        out.push(wrap(steps, { type: 'scalar', value }));
        out.push(wrap(steps, { type: 'done' }));
        return;
      }
      case 'end-object':
      case 'end-array': {
        const open = this.#stack.pop();
        if (open === undefined) throw new TypeError(`an ${update.kind} update with no open container`);
        out.push(wrap(open.steps, { type: 'done' }));
        return;
      }
      case 'json-complete':
        return;
      default:
        throw new TypeError(`an update of an unknown kind: ${String((update as { kind?: unknown }).kind)}`);
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
  #started = false;
  /** The open field's key, its text so far, and whether it is known to be a string. */
  #key: string | undefined;
  #text: string[] = [];
  #streaming = false;

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
        else valueFragments(event.string ? text : (JSON.parse(text) as JsonValue), steps, out);
        this.#streaming = false;
        return;
      }
    }
  }

  /** The document is complete (the call ended): close the root object. */
  end(out: StreamFragment[]): void {
    if (!this.#started) out.push({ type: 'start', kind: 'object' });
    this.#started = true;
    out.push({ type: 'done' });
  }
}
