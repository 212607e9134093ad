/**
 * The other views of a call's arguments, read back as fragments, so that the store builds every
 * call's input from them one way (`fragment-input.ts`: a `FragmentAggregator` with shared
 * snapshots): path updates (a relay that sends `PathUpdateStream`'s output, and the AI SDK chat
 * transport's `toolInputs: 'path-updates'` chunks); field events are `field-fragments.ts`'. Internal.
 *
 * @module
 */
import { JsonStreamError } from '../errors.ts';
import { invalidEvent } from '../turn/event-check.ts';
import type { PathUpdate, StreamFragment } from '../types.ts';

/** Where a value sits in its parent: a member's key or an element's index. */
export type Step = { readonly key: string } | { readonly index: number };

/** `leaf` at `steps` from the root: the `entry`/`item` wrappers a parser would have sent. */
export function wrap(steps: readonly Step[], leaf: StreamFragment): StreamFragment {
  let fragment = leaf;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as Step;
    fragment = 'key' in step ? { type: 'entry', key: step.key, value: fragment } : { type: 'item', index: step.index, value: fragment };
  }
  return fragment;
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

/** A new reader of one call's path updates (`SourceReading.updates`). */
export function newPathUpdateFragments(maxDepth: number): PathUpdateFragments {
  return new PathUpdateFragments(maxDepth);
}
