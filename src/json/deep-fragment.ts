/**
 * Fragments of deeply nested values, built lazily, and how the stages read any fragment in O(1).
 *
 * A fragment carries its whole path as nested `entry`/`item` wrappers (RFD 043). Built eagerly,
 * one input character at depth 200 would cost 200 objects: a hostile document of nested arrays
 * costs hundreds of times what the same bytes cost flat. So a fragment more than
 * {@link EAGER_DEPTH} levels down is a {@link DeepFragment}: its outermost wrapper, whose `value`
 * builds the inner wrappers on first access (once) from a persistent list of path steps that
 * fragments of the same path share. Reading it as data (`value`, `JSON.stringify`, spread,
 * `structuredClone`, deep equality) gives exactly the plain fragment; the stages that consume
 * fragments read it through {@link placeOf} and never build the wrappers, so every fragment costs
 * them O(1) whatever the depth. Shallower fragments, nearly all of them in practice, stay plain
 * objects.
 *
 * @module
 */
import type { EntryFragment, ItemFragment, StreamFragment } from '../types.ts';

/** A fragment that is not a wrapper: `start`, `string`, `scalar` or `done`. */
export type LeafFragment = Exclude<StreamFragment, EntryFragment | ItemFragment>;

/** Fragments nested deeper than this are {@link DeepFragment}s. */
export const EAGER_DEPTH = 8;

/**
 * One step of a path, with the step above it: a member `key`, or (`key` undefined) the array
 * `index`. Steps are shared by every fragment of the same path and never change.
 */
export interface PathStep {
  /** Unique among the steps of a process: the step's identity as a number (a map key). */
  readonly id: number;
  readonly up: PathStep | undefined;
  readonly key: string | undefined;
  readonly index: number;
}

/** Where a fragment is: its leaf, its depth (wrappers around the leaf) and its innermost step. */
export interface FragmentPlace {
  leaf: LeafFragment;
  depth: number;
  /** The innermost step's key (`undefined` at the root or in an array). */
  key: string | undefined;
  /** The innermost step's index (`-1` at the root or in an object). */
  index: number;
  /** The innermost step of a {@link DeepFragment}: the same object for every fragment of the same path. */
  step: PathStep | undefined;
}

/**
 * A fragment nested deeper than {@link EAGER_DEPTH}: the outermost `entry` or `item`, whose
 * `value` (an own, enumerable accessor) builds the plain inner wrappers on first access.
 */
export class DeepFragment {
  declare readonly type: 'entry' | 'item';
  declare readonly key?: string;
  declare readonly index?: number;
  declare readonly value: StreamFragment;
  readonly #root: PathStep;
  readonly #step: PathStep;
  readonly #leaf: StreamFragment;
  readonly #depth: number;
  #value: StreamFragment | undefined;

  static readonly #VALUE: PropertyDescriptor = {
    get(this: DeepFragment): StreamFragment {
      return (this.#value ??= build(this.#step, this.#leaf, this.#depth - 1));
    },
    enumerable: true,
    configurable: true,
  };

  /** `root` is the outermost step, `step` the innermost, `depth` the number of steps. */
  constructor(root: PathStep, step: PathStep, leaf: StreamFragment, depth: number) {
    // Own properties in the order of the plain fragment's, so the two read and print alike.
    if (root.key === undefined) {
      this.type = 'item';
      this.index = root.index;
    } else {
      this.type = 'entry';
      this.key = root.key;
    }
    this.#root = root;
    this.#step = step;
    this.#leaf = leaf;
    this.#depth = depth;
    Object.defineProperty(this, 'value', DeepFragment.#VALUE);
  }

  /** Fills `at` with where `fragment` is; O(1) for a deep fragment, O(depth) for a plain one. */
  static place(fragment: StreamFragment, at: FragmentPlace): FragmentPlace {
    if (#step in fragment) {
      const step = fragment.#step;
      at.leaf = fragment.#leaf as LeafFragment;
      at.depth = fragment.#depth;
      at.key = step.key;
      at.index = step.key === undefined ? step.index : -1;
      at.step = step;
      return at;
    }
    let leaf = fragment;
    let depth = 0;
    let key: string | undefined;
    let index = -1;
    while (leaf.type === 'entry' || leaf.type === 'item') {
      if (leaf.type === 'entry') {
        key = leaf.key;
        index = -1;
      } else {
        key = undefined;
        index = leaf.index;
      }
      leaf = leaf.value;
      depth++;
    }
    at.leaf = leaf as LeafFragment;
    at.depth = depth;
    at.key = key;
    at.index = index;
    at.step = undefined;
    return at;
  }

  /** Whether `a` and `b` are `string` fragments at the same path. */
  static sameStringPath(a: StreamFragment, b: StreamFragment): boolean {
    if (#step in a || #step in b) {
      if (!(#step in a && #step in b)) return false;
      return a.#step === b.#step && a.#depth === b.#depth && a.#leaf.type === 'string' && b.#leaf.type === 'string';
    }
    for (;;) {
      if (a.type !== b.type) return false;
      if (a.type === 'string') return true;
      if (a.type === 'entry') {
        const other = b as typeof a;
        if (a.key !== other.key) return false;
        a = a.value;
        b = other.value;
      } else if (a.type === 'item') {
        const other = b as typeof a;
        if (a.index !== other.index) return false;
        a = a.value;
        b = other.value;
      } else return false;
    }
  }

  /** The same path with another leaf: a deep fragment stays deep (O(1)), a plain one is rebuilt. */
  static withLeaf(fragment: StreamFragment, leaf: StreamFragment): StreamFragment {
    if (#step in fragment) {
      return new DeepFragment(fragment.#root, fragment.#step, leaf, fragment.#depth) as unknown as StreamFragment;
    }
    if (fragment.type === 'entry') return { type: 'entry', key: fragment.key, value: DeepFragment.withLeaf(fragment.value, leaf) };
    if (fragment.type === 'item') return { type: 'item', index: fragment.index, value: DeepFragment.withLeaf(fragment.value, leaf) };
    return leaf;
  }
}

/** The plain wrappers of the `count` innermost steps ending at `step`, around `leaf`. */
function build(step: PathStep, leaf: StreamFragment, count: number): StreamFragment {
  let fragment = leaf;
  for (let s: PathStep | undefined = step; count > 0 && s !== undefined; s = s.up, count--) {
    fragment = s.key === undefined ? { type: 'item', index: s.index, value: fragment } : { type: 'entry', key: s.key, value: fragment };
  }
  return fragment;
}

/** Where `fragment` is (see {@link FragmentPlace}); `at` is filled and returned. */
export function placeOf(fragment: StreamFragment, at: FragmentPlace): FragmentPlace {
  return DeepFragment.place(fragment, at);
}

/** A fresh {@link FragmentPlace} to pass to {@link placeOf}. */
export function newPlace(): FragmentPlace {
  return { leaf: { type: 'done' }, depth: 0, key: undefined, index: -1, step: undefined };
}

/** `fragment`'s path with another leaf (see {@link DeepFragment.withLeaf}). */
export function withLeaf(fragment: StreamFragment, leaf: StreamFragment): StreamFragment {
  return DeepFragment.withLeaf(fragment, leaf);
}

/** Whether `a` and `b` are `string` fragments at the same path (deep ones compared in O(1)). */
export function sameStringPath(a: StreamFragment, b: StreamFragment): boolean {
  return DeepFragment.sameStringPath(a, b);
}

let lastStepId = 0;

/** A new {@link PathStep}. */
export function newStep(up: PathStep | undefined, key: string | undefined, index: number): PathStep {
  return { id: ++lastStepId, up, key, index };
}
