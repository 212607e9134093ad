/**
 * The relay's wire form for a page: a response's events as batches of compact entries, in which
 * whatever identifies an event — a call's slot, id and name, a field's key, a JSON path — goes on
 * the wire once and is referred to by number afterwards. So what a relay sends is bounded by what
 * the provider sent, however long the keys, however deep the paths, however small the deltas.
 * Internal: `BatchWriter` (batch-writer.ts) is the one place that writes a page's events (every
 * encoder and the event log's server use it), `BatchReader` (batch-reader.ts) the one that reads
 * them back; this file holds what both keep.
 *
 * A batch is a JSON array of entries. An entry is either a JSON object — an event as
 * {@link writeEvent} writes it, whole (any event of a type this form does not know: the
 * application's own, a conversation event) — or an array `[code, …]`:
 *
 * | entry | event |
 * |---|---|
 * | `[0]` | none: the tables start again (the first entry a writer writes) |
 * | `[1, index, kind, text, metadata?]` | a `part` with text: kind `m` message, `r` reasoning, `x` refusal, `j` structured, `a` tool-call-arguments |
 * | `[2, index, id, name, part?, metadata?]` | a `tool-call-start` part (`part`: its other members, as an object) |
 * | `[3, ctx, path, leaf, done?]` `[13, path, leaf, done?]` | `tool-call-progress` (ctx with an id) or `structured-progress` (13: of the context of the previous one) |
 * | `[4, scalar…]` | the previous entry's progress again, one element further, for each scalar |
 * | `[5, ctx, key, flag]` `[6, ctx, key, text]` `[7, ctx, key, string]` | `field-start` (flag 1: `string: true`), `field-delta`, `field-end` |
 * | `[11, text]` | a `field-delta` of the field the previous field event was of |
 * | `[8, ctx, kind, path, value?]` `[12, kind, path, value?]` `[14, kind, value?]` | `path-update` (12: of the document of the previous one; 14: also at the next element after the last of its paths that ends in an index; a `key` whose value is `0`: the last token of its path) |
 * | `[9, ctx, delta, complete, metadata?]` | `streaming-tool-call` |
 * | `[10, index, metadata?]` | `flush` |
 * | `[15, d, n]` `[16, k, t, v…]` `[17, d, n, x…]` | runs: entries made from earlier ones (batch-repeat.ts) |
 *
 * - Strings in the places that identify (ids, names, keys, path steps, path-update paths, message
 *   ids) are written whole the first time; a string of more than 2 characters is then numbered
 *   (0, 1, 2 … in the order written) and later written as its number.
 * - `ctx` is an event's identity — `[index, toolCallId, toolName, flags, messageId]` (`null` for
 *   what the event lacks; flags: 1 `providerExecuted`, 2 `structured`, 4 an index, 8 a call id, 16
 *   a name, 32 a message id) — written whole the first time and numbered, then its number.
 * - `path` is a node of the tree of paths the response has used: `n` (a node met before; 0 is the
 *   root), `-1` (the next element after the context's previous path), `-2` (the context's previous
 *   path), `-3` (its parent), `-4` (the first element below it), or `[n, step…]` (new nodes below
 *   node `n`, or below the previous path for `-2` and its parent for `-3`: a number is an array
 *   index, a string a key, `[k]` the key numbered `k`).
 * - A progress `leaf` is a string (a piece of string), a number (0 `done`, 1 `start` object, 2
 *   array, 3 string), or `[scalar]`; a scalar is `null`, a boolean, a number, or a string: a
 *   number written as that literal (its `raw`). `done` 1 after a scalar: its `done` follows.
 *
 * @module
 */
import { newStep, type PathStep } from '../json/deep-fragment.ts';
import type { ValueKind } from '../types.ts';

/** Strings up to this length are always written whole (a number would not be shorter). */
export const SHORT = 2;

export const PART_KINDS: Readonly<Record<string, string>> = { message: 'm', reasoning: 'r', refusal: 'x', structured: 'j', 'tool-call-arguments': 'a' };
export const PART_TYPES: Readonly<Record<string, string>> = { m: 'message', r: 'reasoning', x: 'refusal', j: 'structured', a: 'tool-call-arguments' };
export const PATH_KINDS = [
  'start-object',
  'end-object',
  'start-array',
  'end-array',
  'key',
  'start-string',
  'partial-string',
  'complete-string',
  'complete-number',
  'complete-boolean',
  'complete-null',
  'json-complete',
] as const;
export const PATH_KIND_CODES: ReadonlyMap<string, number> = /* @__PURE__ */ new Map(PATH_KINDS.map((kind, i) => [kind, i]));
export const MARKS: readonly ValueKind[] = ['object', 'array', 'string'];

/** A node of the tree of paths: its parent, its step and its depth. */
export interface Node {
  readonly parent: number;
  /** A key, or an array index. */
  readonly step: string | number;
  readonly depth: number;
  children: Map<string | number, number> | undefined;
  /** The reader's: the node's path step, and its outermost one (for deep fragments). */
  readonly pathStep: PathStep | undefined;
  readonly top: PathStep | undefined;
}

/** What both sides keep: the tree of paths, and each context's previous path. */
export class Tables {
  readonly nodes: Node[] = [{ parent: -1, step: -1, depth: 0, children: undefined, pathStep: undefined, top: undefined }];
  /** Per context: its previous path node. */
  readonly lastNode: number[] = [];
  readonly #steps: boolean;

  /** `steps`: keep a {@link PathStep} per node (the reader, which makes deep fragments). */
  constructor(steps: boolean) {
    this.#steps = steps;
  }

  child(parent: number, step: string | number): number | undefined {
    return (this.nodes[parent] as Node).children?.get(step);
  }

  addChild(parent: number, step: string | number): number {
    const node = this.nodes[parent] as Node;
    const id = this.nodes.length;
    const pathStep = this.#steps ? newStep(node.pathStep, typeof step === 'string' ? step : undefined, typeof step === 'number' ? step : -1) : undefined;
    this.nodes.push({ parent, step, depth: node.depth + 1, children: undefined, pathStep, top: node.top ?? pathStep });
    (node.children ??= new Map()).set(step, id);
    return id;
  }
}

/** Whether a JSON Pointer (or a relative one) has a last reference token that is an array index (not a relative pointer's count alone). */
export function endsInIndex(path: string): boolean {
  return path.lastIndexOf('/') !== -1 && nextIndexPath(path) !== undefined;
}

/**
 * A JSON Pointer (or a relative one) whose last token is an array index, with that index one
 * more: the path of the next element. `undefined` when the last token is not an index.
 */
export function nextIndexPath(path: string): string | undefined {
  let i = path.length;
  while (i > 0 && path.charCodeAt(i - 1) >= 48 && path.charCodeAt(i - 1) <= 57) i--;
  const digits = path.length - i;
  if (digits === 0 || digits > 15 || (i > 0 && path.charCodeAt(i - 1) !== 47) || (digits > 1 && path.charCodeAt(i) === 48)) return undefined;
  return `${path.slice(0, i)}${Number(path.slice(i)) + 1}`;
}
