/**
 * Structurally shared snapshots: the `immutableSnapshots` mode of {@link FragmentAggregator} and
 * {@link IncrementalJsonValueParser}.
 *
 * Why: by default `snapshot()` returns the builder's live value, one object mutated in place. That
 * costs O(1), but a UI that compares by identity (React's `useSyncExternalStore` and `memo`, Vue's
 * `shallowRef`, Svelte's `$state.raw`) never sees it change. In this mode a snapshot is a new
 * object exactly where the content changed since the previous snapshot and the very same object
 * everywhere else, so a per-path identity check re-renders exactly the changed subtrees; with no
 * change at all, `snapshot()` returns the previous root. No snapshot is mutated afterwards.
 *
 * How, in O(size of the containers that changed) per snapshot rather than O(document): the
 * builder only ever mutates its open containers (those on its stack), so a closed container
 * never changes again. A closed container that no snapshot has seen open is therefore shared as
 * it is, the live object itself, at no cost. Every container open at a snapshot gets a copy, kept
 * per live container and marked final once the container is closed; the walk from the root
 * descends only into containers without a final copy: those open now or at the previous snapshot.
 * An array only appends or changes its last element, so its new copy is its previous copy up to
 * the last element, then the elements from there on. An object (small) is re-read key by key,
 * which also covers the builder's one exception, a duplicate key replacing an earlier member in
 * place. A container is copied again only if some member differs (by `Object.is` of what the
 * snapshot holds for it) from its previous copy — or, for a container that replaced one of the
 * same kind under a duplicate key, from the replaced one's copy — so unchanged content keeps its
 * identity even when the stream only closed it.
 *
 * The walk uses an explicit stack: documents can be as deep as `maxDepth` allows.
 *
 * @module
 */
import type { JsonObject, JsonValue } from '../types.ts';
import { setMember, type Container, type ValueBuilder } from './value-builder.ts';

/** The latest copy of a live container; `final` once the container was closed then. */
interface Copy {
  copy: Container;
  final: boolean;
}

/** One container being copied. */
interface Frame {
  readonly live: Container;
  /** The live container's own last copy, if any. */
  readonly entry: Copy | undefined;
  /** The object's keys, or `undefined` for an array. */
  readonly keys: string[] | undefined;
  /** The container's index in the builder's open stack, or -1 once it is closed. */
  readonly open: number;
  /** The earlier copy to share from and compare with, if any. */
  readonly prev: Container | undefined;
  /** The first position that may differ from `prev` (members before it are `prev`'s). */
  readonly from: number;
  /** The next position to visit. */
  next: number;
  /** What the snapshot holds for the members from `from` on. */
  readonly values: JsonValue[];
}

function isContainer(value: JsonValue | undefined): value is Container {
  return typeof value === 'object' && value !== null;
}

/** `object[key]` if it is an own property (never `Object.prototype` for `__proto__`). */
function member(object: Container, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? (object as JsonObject)[key] : undefined;
}

/** Internal: hands out the shared snapshots of one {@link ValueBuilder}'s value. */
export class SharedSnapshots {
  readonly #copies = new WeakMap<Container, Copy>();
  /** The builder's version at the last snapshot (-1: none yet). */
  #version = -1;
  #last: JsonValue | undefined;

  /** The builder's value so far, structurally shared with the previous snapshot (see the module). */
  take(builder: ValueBuilder): JsonValue | undefined {
    if (builder.version === this.#version) return this.#last;
    this.#version = builder.version;
    const root = builder.snapshot();
    this.#last = isContainer(root) ? this.#share(root, builder.openContainers()) : root;
    return this.#last;
  }

  /** Depth-first, post-order: a container's copy is made once its members' are known. */
  #share(root: Container, open: readonly Container[]): Container {
    const rootCopy = this.#copies.get(root);
    if (rootCopy?.final === true) return rootCopy.copy;
    if (rootCopy === undefined && open[0] !== root) return root;
    const frames = [this.#frame(root, open[0] === root ? 0 : -1, rootCopy, undefined)];
    let done: Container | undefined;
    for (;;) {
      const frame = frames[frames.length - 1] as Frame;
      const { live, keys, prev } = frame;
      if (done !== undefined) {
        frame.values.push(done);
        frame.next++;
        done = undefined;
      }
      const end = keys === undefined ? (live as JsonValue[]).length : keys.length;
      let child: Frame | undefined;
      for (; frame.next < end; frame.next++) {
        const key = keys === undefined ? frame.next : (keys[frame.next] as string);
        const value = (live as JsonObject)[key] as JsonValue;
        if (!isContainer(value)) {
          frame.values.push(value);
          continue;
        }
        const copy = this.#copies.get(value);
        if (copy?.final === true) {
          frame.values.push(copy.copy);
          continue;
        }
        const depth = frame.open >= 0 && open[frame.open + 1] === value ? frame.open + 1 : -1;
        // A container never seen open: closed, it is final as it is (the previous snapshot may
        // hold it already), unless it replaced one under a duplicate key: compare with that.
        let replaced: Container | undefined;
        if (copy === undefined && prev !== undefined) replaced = sameKind(value, keys === undefined ? (prev as JsonValue[])[frame.next] : member(prev, key as string));
        if (copy === undefined && (replaced === undefined || replaced === value) && depth < 0) {
          frame.values.push(value);
          continue;
        }
        child = this.#frame(value, depth, copy, replaced);
        break;
      }
      if (child !== undefined) {
        frames.push(child);
        continue;
      }
      done = this.#finish(frame);
      frames.pop();
      if (frames.length === 0) return done;
    }
  }

  /** A frame for `live`, compared with its own last copy or else with the one it `replaced`. */
  #frame(live: Container, open: number, copy: Copy | undefined, replaced: Container | undefined): Frame {
    const keys = Array.isArray(live) ? undefined : Object.keys(live);
    const prev = copy === undefined ? replaced : copy.copy;
    // Only the last element of an array can have changed since its own last copy.
    const from = copy !== undefined && keys === undefined ? Math.max((prev as JsonValue[]).length - 1, 0) : 0;
    return { live, entry: copy, keys, open, prev, from, next: from, values: [] };
  }

  #finish(frame: Frame): Container {
    const { live, entry, keys, prev, from, values } = frame;
    let copy: Container;
    if (keys === undefined) {
      if (prev !== undefined && !arrayChanged(live as JsonValue[], prev as JsonValue[], from, values)) copy = prev;
      else if (from === 0) copy = values;
      else {
        copy = (prev as JsonValue[]).slice(0, from);
        for (const value of values) copy.push(value);
      }
    } else if (prev !== undefined && !objectChanged(keys, prev, values)) {
      copy = prev;
    } else {
      copy = {};
      for (let i = 0; i < keys.length; i++) setMember(copy, keys[i] as string, values[i] as JsonValue);
    }
    const final = frame.open < 0;
    if (entry === undefined) this.#copies.set(live, { copy, final });
    else {
      entry.copy = copy;
      entry.final = final;
    }
    return copy;
  }
}

/** `prev` if it is a container of the same kind as `live`. */
function sameKind(live: Container, prev: JsonValue | undefined): Container | undefined {
  return isContainer(prev) && Array.isArray(prev) === Array.isArray(live) ? prev : undefined;
}

function arrayChanged(live: JsonValue[], prev: JsonValue[], from: number, values: JsonValue[]): boolean {
  if (live.length !== prev.length) return true;
  for (let i = 0; i < values.length; i++) if (!Object.is(values[i], prev[from + i])) return true;
  return false;
}

function objectChanged(keys: string[], prev: Container, values: JsonValue[]): boolean {
  if (Object.keys(prev).length !== keys.length) return true;
  for (let i = 0; i < keys.length; i++) if (!Object.is(values[i], member(prev, keys[i] as string))) return true;
  return false;
}
