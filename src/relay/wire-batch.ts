/**
 * The relay's wire form for a page: a response's events as batches of compact entries, in which
 * whatever identifies an event — a call's slot, id and name, a field's key, a JSON path — goes on
 * the wire once and is referred to by number afterwards. So what a relay sends is bounded by what
 * the provider sent, however long the keys, however deep the paths, however small the deltas.
 * Internal: {@link BatchWriter} is the one place that writes a page's events (every encoder and the
 * event log's server use it), {@link BatchReader} the one that reads them back.
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
 * | `[3, ctx, path, leaf, done?]` | `tool-call-progress` (ctx with an id) or `structured-progress` |
 * | `[4, scalar…]` | the previous entry's progress again, one element further, for each scalar |
 * | `[5, ctx, key, flag]` `[6, ctx, key, text]` `[7, ctx, key, string]` | `field-start` (flag 1: `string: true`), `field-delta`, `field-end` |
 * | `[8, ctx, kind, path, value?, raw?]` | `path-update` |
 * | `[9, ctx, delta, complete, metadata?]` | `streaming-tool-call` |
 * | `[10, index, metadata?]` | `flush` |
 *
 * - Strings in the places that identify (ids, names, keys, path steps, path-update paths, message
 *   ids) are written whole the first time; a string of more than 3 characters is then numbered
 *   (0, 1, 2 … in the order written) and later written as its number.
 * - `ctx` is an event's identity — `[index, toolCallId, toolName, flags, messageId]` (`null` for
 *   what the event lacks; flags: 1 `providerExecuted`, 2 `structured`, 4 an index, 8 a call id, 16
 *   a name, 32 a message id) — written whole the first time and numbered, then its number.
 * - `path` is a node of the tree of paths the response has used: `n` (a node met before; 0 is the
 *   root), `-1` (the next element after the context's previous path), `-2` (the context's previous
 *   path), `-3` (its parent), or `[n, step…]` (new nodes below node `n`: a number is an array
 *   index, a string a key, `[k]` the key numbered `k`).
 * - A progress `leaf` is a string (a piece of string), a number (0 `done`, 1 `start` object, 2
 *   array, 3 string), or `[scalar]`; a scalar is `null`, a boolean, a number, or a string: a
 *   number written as that literal (its `raw`). `done` 1 after a scalar: its `done` follows.
 *
 * @module
 */
import { DeepFragment, EAGER_DEPTH, newPlace, newStep, placeOf, type PathStep } from '../json/deep-fragment.ts';
import type { EventMetadata, JsonScalar, PipelineEvent, StreamFragment, ValueKind } from '../types.ts';
import { RelayError } from './relay-error.ts';
import { readEventValue, writeEvent, type ErrorClass } from './wire.ts';

/** Strings up to this length are always written whole (a number would not be shorter). */
const SHORT = 3;

const PART_KINDS: Readonly<Record<string, string>> = { message: 'm', reasoning: 'r', refusal: 'x', structured: 'j', 'tool-call-arguments': 'a' };
const PART_TYPES: Readonly<Record<string, string>> = { m: 'message', r: 'reasoning', x: 'refusal', j: 'structured', a: 'tool-call-arguments' };
const PATH_KINDS = [
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
const PATH_KIND_CODES: ReadonlyMap<string, number> = new Map(PATH_KINDS.map((kind, i) => [kind, i]));
const MARKS: readonly ValueKind[] = ['object', 'array', 'string'];

/** A node of the tree of paths: its parent, its step and its depth. */
interface Node {
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
class Tables {
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

/** A scalar as the wire writes it, or `undefined` for one it cannot (a non-finite number without its literal). */
function scalarText(value: JsonScalar, raw: string | undefined): string | undefined {
  if (raw !== undefined) return typeof value === 'number' && Object.is(+raw, value) ? JSON.stringify(raw) : undefined;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? String(value) : undefined;
  return value === null ? 'null' : value ? 'true' : 'false';
}

/** Members of an event the compact entries know; an event with any other member is written whole. */
function onlyMembers(event: object, allowed: ReadonlySet<string>): boolean {
  for (const key in event) if (Object.hasOwn(event, key) && (event as Record<string, unknown>)[key] !== undefined && !allowed.has(key)) return false;
  return true;
}

const PART_MEMBERS = new Set(['type', 'index', 'part', 'metadata']);
const PROGRESS_MEMBERS = new Set(['type', 'index', 'toolCallId', 'toolName', 'providerExecuted', 'fragment']);
const FIELD_MEMBERS = new Set(['type', 'index', 'toolCallId', 'toolName', 'key', 'text', 'string']);
const PATH_MEMBERS = new Set(['type', 'index', 'toolCallId', 'structured', 'kind', 'path', 'textValue', 'value', 'raw']);
const DELTA_MEMBERS = new Set(['type', 'index', 'toolCallId', 'toolName', 'providerExecuted', 'argumentsDelta', 'isComplete', 'messageId', 'metadata']);
const FLUSH_MEMBERS = new Set(['type', 'index', 'metadata']);

/** A scalar's progress entry held back until the next event says whether its `done` follows. */
interface PendingScalar {
  readonly ctx: number;
  /** The entry without its closing bracket. */
  readonly head: string;
  /** The scalar as a run writes it. */
  readonly scalar: string;
  /** Its path is the next element after the context's previous one (it may join a run). */
  readonly next: boolean;
  /** Its path is an array element (a run may follow it). */
  readonly element: boolean;
}

/**
 * Writes events as batch entries. One per response: the first entry resets the reader's tables.
 * `take()` gives the batch so far as a JSON array's text.
 */
export class BatchWriter {
  readonly #tables = new Tables(false);
  readonly #strings = new Map<string, number>();
  readonly #contexts = new Map<string, number>();
  /** The node of each deep fragment's step, by step id. */
  readonly #stepNodes = new Map<number, number>();
  readonly #place = newPlace();
  #entries: string[] = ['[0]'];
  /** Characters in `#entries`. */
  #size = 3;
  #count = 0;
  #pending: PendingScalar | undefined;
  /** The context of the last entry when it is an array element's scalar and done (a run can go on from it). */
  #runFrom: number | undefined;

  /** Events written since the last `take()`. */
  get count(): number {
    return this.#count;
  }

  /** Characters written since the last `take()` (about the batch's size). */
  get size(): number {
    return this.#size;
  }

  /**
   * Add one event to the batch.
   * @throws {RelayError} `invalid-event` for what JSON cannot hold (a `BigInt`, a cycle).
   */
  write(event: unknown): void {
    this.#add(event);
    this.#count++;
  }

  /** The batch so far as JSON text (`undefined` when there is none), and a new batch begins. */
  take(): string | undefined {
    this.#flushPending();
    if (this.#entries.length === 0) return undefined;
    const text = `[${this.#entries.join(',')}]`;
    this.#entries = [];
    this.#size = 0;
    this.#count = 0;
    this.#runFrom = undefined;
    return text;
  }

  #push(entry: string): void {
    this.#entries.push(entry);
    this.#size += entry.length + 1;
    this.#runFrom = undefined;
  }

  #flushPending(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    this.#push(`${pending.head}]`);
  }

  #add(event: unknown): void {
    if (typeof event === 'object' && event !== null && !Array.isArray(event)) {
      const type = (event as { type?: unknown }).type;
      if (type === 'tool-call-progress' || type === 'structured-progress') {
        if (this.#progress(event as Record<string, unknown>)) return;
      } else if (type === 'snapshot' && Array.isArray((event as { events?: unknown }).events)) {
        // Its events in its place (the count of events the batch stands for is the caller's).
        for (const inner of (event as { events: readonly unknown[] }).events) this.#add(inner);
        return;
      }
    }
    // Whatever else comes, a scalar held back goes first (its own mutations of the tables came first).
    this.#flushPending();
    this.#push(this.#entry(event));
  }

  #string(text: string): string {
    if (text.length <= SHORT) return JSON.stringify(text);
    const known = this.#strings.get(text);
    if (known !== undefined) return String(known);
    this.#strings.set(text, this.#strings.size);
    return JSON.stringify(text);
  }

  #optionalString(text: string | undefined): string {
    return text === undefined ? 'null' : this.#string(text);
  }

  /** The context's number, or its definition (numbered from now on). */
  #context(event: Record<string, unknown>, withName: boolean, withMessage: boolean): string {
    const index = typeof event['index'] === 'number' ? event['index'] : undefined;
    const id = typeof event['toolCallId'] === 'string' ? event['toolCallId'] : undefined;
    const name = withName && typeof event['toolName'] === 'string' ? event['toolName'] : undefined;
    const message = withMessage && typeof event['messageId'] === 'string' ? event['messageId'] : undefined;
    const flags =
      (event['providerExecuted'] === true ? 1 : 0) |
      (event['structured'] === true ? 2 : 0) |
      (index !== undefined ? 4 : 0) |
      (id !== undefined ? 8 : 0) |
      (name !== undefined ? 16 : 0) |
      (message !== undefined ? 32 : 0);
    const key = this.#contextKey(index, id, name, message, flags);
    if (key !== undefined) {
      const known = this.#contexts.get(key);
      if (known !== undefined) return String(known);
    }
    const text = `[${index ?? 'null'},${this.#optionalString(id)},${this.#optionalString(name)},${flags},${this.#optionalString(message)}]`;
    this.#contexts.set(this.#contextKey(index, id, name, message, flags) as string, this.#contexts.size);
    this.#tables.lastNode.push(0);
    return text;
  }

  /** A short key for a context whose strings are all known (`undefined` if one is new). */
  #contextKey(index: number | undefined, id: string | undefined, name: string | undefined, message: string | undefined, flags: number): string | undefined {
    const a = this.#stringKey(id);
    const b = this.#stringKey(name);
    const c = this.#stringKey(message);
    if (a === undefined || b === undefined || c === undefined) return undefined;
    return `${index ?? ''}\u0000${a}\u0000${b}\u0000${c}\u0000${flags}`;
  }

  #stringKey(text: string | undefined): string | undefined {
    if (text === undefined) return '';
    if (text.length <= SHORT) return `"${text}`;
    const known = this.#strings.get(text);
    return known === undefined ? undefined : String(known);
  }

  #contextNumber(text: string): number {
    return text.startsWith('[') ? this.#contexts.size - 1 : Number(text);
  }

  #metadata(metadata: unknown): string {
    return metadata === undefined ? '' : `,${writeEvent(metadata)}`;
  }

  #entry(event: unknown): string {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) return writeEvent(event);
    const fields = event as Record<string, unknown>;
    switch (fields['type']) {
      case 'part':
        return this.#part(fields) ?? writeEvent(event);
      case 'flush':
        if (typeof fields['index'] !== 'number' || !onlyMembers(fields, FLUSH_MEMBERS)) break;
        return `[10,${fields['index']}${this.#metadata(fields['metadata'])}]`;
      case 'field-start':
      case 'field-delta':
      case 'field-end':
        return this.#field(fields) ?? writeEvent(event);
      case 'path-update':
        return this.#pathUpdate(fields) ?? writeEvent(event);
      case 'streaming-tool-call':
        return this.#delta(fields) ?? writeEvent(event);
      default:
        break;
    }
    return writeEvent(event);
  }

  #part(event: Record<string, unknown>): string | undefined {
    const part = event['part'] as Record<string, unknown> | undefined;
    const index = event['index'];
    if (typeof index !== 'number' || typeof part !== 'object' || part === null || !onlyMembers(event, PART_MEMBERS)) return undefined;
    const kind = PART_KINDS[part['type'] as string];
    if (kind !== undefined) {
      const text = part['type'] === 'structured' ? part['json'] : part['type'] === 'tool-call-arguments' ? part['chunk'] : part['text'];
      if (typeof text === 'string' && Object.keys(part).length === 2) return `[1,${index},"${kind}",${JSON.stringify(text)}${this.#metadata(event['metadata'])}]`;
      return undefined;
    }
    if (part['type'] === 'tool-call-start' && typeof part['toolCallId'] === 'string' && typeof part['toolName'] === 'string') {
      const rest: Record<string, unknown> = {};
      let more = false;
      for (const key of Object.keys(part)) {
        if (key === 'type' || key === 'toolCallId' || key === 'toolName' || part[key] === undefined) continue;
        rest[key] = part[key];
        more = true;
      }
      const restText = more ? `,${writeEvent(rest)}` : event['metadata'] === undefined ? '' : ',null';
      return `[2,${index},${this.#string(part['toolCallId'])},${this.#string(part['toolName'])}${restText}${this.#metadata(event['metadata'])}]`;
    }
    return undefined;
  }

  /** A progress event as an entry, a scalar held back, or joined to the one held: `false` if it has no compact form. */
  #progress(event: Record<string, unknown>): boolean {
    if (typeof event['index'] !== 'number' || !onlyMembers(event, PROGRESS_MEMBERS)) return false;
    const call = event['type'] === 'tool-call-progress';
    if (call ? typeof event['toolCallId'] !== 'string' || typeof event['toolName'] !== 'string' : event['toolCallId'] !== undefined || event['toolName'] !== undefined) return false;
    if (event['providerExecuted'] !== undefined && (event['providerExecuted'] !== true || !call)) return false;
    const fragment = event['fragment'] as StreamFragment | undefined;
    if (typeof fragment !== 'object' || fragment === null) return false;
    const place = placeOf(fragment, this.#place);
    const leaf = place.leaf as { type?: unknown; text?: unknown; kind?: unknown; value?: unknown; raw?: unknown };
    let leafText: string | undefined;
    let scalar: string | undefined;
    switch (leaf.type) {
      case 'string':
        if (typeof leaf.text === 'string' && Object.keys(leaf).length === 2) leafText = JSON.stringify(leaf.text);
        break;
      case 'done':
        if (Object.keys(leaf).length === 1) leafText = '0';
        break;
      case 'start': {
        const mark = MARKS.indexOf(leaf.kind as ValueKind);
        if (mark >= 0 && Object.keys(leaf).length === 2) leafText = String(mark + 1);
        break;
      }
      case 'scalar': {
        const value = leaf.value;
        const raw = leaf.raw;
        if ((value === null || typeof value === 'boolean' || typeof value === 'number') && (raw === undefined || typeof raw === 'string')) {
          scalar = scalarText(value, raw as string | undefined);
          if (scalar !== undefined && Object.keys(leaf).length === (raw === undefined ? 2 : 3)) leafText = `[${scalar}]`;
        }
        break;
      }
      default:
        break;
    }
    if (leafText === undefined || !this.#plainPath(fragment, place.step)) return false;
    const ctxText = this.#context(event, true, false);
    const ctx = this.#contextNumber(ctxText);
    const path = this.#path(fragment, place.depth, place.step, ctx);
    const pending = this.#pending;
    if (pending !== undefined && leaf.type === 'done' && path.code === '-2' && pending.ctx === ctx) {
      // The held scalar's done: one entry for both, or one more element of a run.
      this.#pending = undefined;
      if (pending.next && this.#runFrom === ctx) {
        const at = this.#entries.length - 1;
        const previous = this.#entries[at] as string;
        if (previous.startsWith('[4,')) {
          this.#entries[at] = `${previous.slice(0, -1)},${pending.scalar}]`;
          this.#size += pending.scalar.length + 1;
        } else {
          this.#push(`[4,${pending.scalar}]`);
          this.#runFrom = ctx;
        }
        return true;
      }
      this.#push(`${pending.head},1]`);
      if (pending.element) this.#runFrom = ctx;
      return true;
    }
    // A scalar held back and flushed now ends any run.
    const runFrom = this.#pending === undefined ? this.#runFrom : undefined;
    this.#flushPending();
    const head = `[3,${ctxText},${path.code},${leafText}`;
    if (scalar !== undefined) {
      this.#pending = { ctx, head, scalar, next: path.code === '-1', element: path.element };
      // Held back, the scalar keeps the run it may join.
      this.#runFrom = runFrom;
      return true;
    }
    this.#push(`${head}]`);
    return true;
  }

  /** Whether a fragment's wrappers are plain `entry`/`item` steps (anything else is written whole). */
  #plainPath(fragment: StreamFragment, step: PathStep | undefined): boolean {
    if (step !== undefined) return true;
    for (let wrapper: StreamFragment = fragment; ; wrapper = wrapper.value) {
      if (wrapper.type === 'entry') {
        if (typeof wrapper.key !== 'string' || Object.keys(wrapper).length !== 3) return false;
      } else if (wrapper.type === 'item') {
        if (!(typeof wrapper.index === 'number' && Number.isSafeInteger(wrapper.index) && wrapper.index >= 0) || Object.keys(wrapper).length !== 3) return false;
      } else return true;
      if (typeof wrapper.value !== 'object' || wrapper.value === null) return false;
    }
  }

  /**
   * The path of a fragment as the wire writes it, relative to the context's previous one where it
   * can be; the nodes it makes are added to the tables.
   */
  #path(fragment: StreamFragment, depth: number, step: PathStep | undefined, ctx: number): { code: string; element: boolean } {
    const tables = this.#tables;
    let from = 0;
    let at = 0;
    const fresh: Array<string | number> = [];
    if (step !== undefined) {
      // A deep fragment: its steps from the innermost up to one already met (or the root).
      const known = this.#stepNodes.get(step.id);
      if (known !== undefined) at = known;
      else {
        const chain: PathStep[] = [];
        let base = 0;
        let s: PathStep | undefined = step;
        for (let left = depth; left > 0 && s !== undefined; left--, s = s.up) {
          const node = this.#stepNodes.get(s.id);
          if (node !== undefined) {
            base = node;
            break;
          }
          chain.push(s);
        }
        at = base;
        for (let i = chain.length - 1; i >= 0; i--) {
          const link = chain[i] as PathStep;
          const key = link.key ?? link.index;
          const child = fresh.length === 0 ? tables.child(at, key) : undefined;
          if (child !== undefined) at = child;
          else {
            if (fresh.length === 0) from = at;
            fresh.push(key);
            at = tables.addChild(at, key);
          }
          this.#stepNodes.set(link.id, at);
        }
      }
    } else {
      for (let wrapper: StreamFragment = fragment; wrapper.type === 'entry' || wrapper.type === 'item'; wrapper = wrapper.value) {
        const key: string | number = wrapper.type === 'entry' ? wrapper.key : wrapper.index;
        const child = fresh.length === 0 ? tables.child(at, key) : undefined;
        if (child !== undefined) {
          at = child;
          continue;
        }
        if (fresh.length === 0) from = at;
        fresh.push(key);
        at = tables.addChild(at, key);
      }
    }
    const element = typeof (tables.nodes[at] as Node).step === 'number';
    return { code: this.#pathCode(from, fresh, at, ctx), element };
  }

  #pathCode(from: number, fresh: ReadonlyArray<string | number>, node: number, ctx: number): string {
    const tables = this.#tables;
    const previous = tables.lastNode[ctx] ?? 0;
    tables.lastNode[ctx] = node;
    if (node === previous) return '-2';
    const prev = tables.nodes[previous] as Node;
    const here = tables.nodes[node] as Node;
    // The next element: a new node only when it is the one new step.
    if (previous !== 0 && typeof prev.step === 'number' && here.parent === prev.parent && here.step === prev.step + 1 && fresh.length <= 1) return '-1';
    if (node === prev.parent && fresh.length === 0) return '-3';
    if (fresh.length === 0) return String(node);
    let text = `[${from}`;
    for (const step of fresh) text += typeof step === 'number' ? `,${step}` : `,${this.#keyStep(step)}`;
    return `${text}]`;
  }

  #keyStep(key: string): string {
    const text = this.#string(key);
    return text.startsWith('"') ? text : `[${text}]`;
  }

  #field(event: Record<string, unknown>): string | undefined {
    if (typeof event['key'] !== 'string' || !onlyMembers(event, FIELD_MEMBERS)) return undefined;
    const ctx = this.#context(event, true, false);
    const key = this.#string(event['key']);
    switch (event['type']) {
      case 'field-start':
        if (event['string'] !== undefined && event['string'] !== true) return undefined;
        return `[5,${ctx},${key},${event['string'] === true ? 1 : 0}]`;
      case 'field-delta':
        if (typeof event['text'] !== 'string') return undefined;
        return `[6,${ctx},${key},${JSON.stringify(event['text'])}]`;
      default:
        if (typeof event['string'] !== 'boolean') return undefined;
        return `[7,${ctx},${key},${event['string'] ? 1 : 0}]`;
    }
  }

  #pathUpdate(event: Record<string, unknown>): string | undefined {
    const kind = PATH_KIND_CODES.get(event['kind'] as string);
    if (kind === undefined || typeof event['path'] !== 'string' || !onlyMembers(event, PATH_MEMBERS)) return undefined;
    const ctx = this.#context(event, false, false);
    const path = this.#string(event['path']);
    const head = `[8,${ctx},${kind},${path}`;
    switch (event['kind']) {
      case 'key':
      case 'partial-string':
        return typeof event['textValue'] === 'string' && event['value'] === undefined && event['raw'] === undefined ? `${head},${JSON.stringify(event['textValue'])}]` : undefined;
      case 'complete-number': {
        if (typeof event['value'] !== 'number' || event['textValue'] !== undefined || (event['raw'] !== undefined && typeof event['raw'] !== 'string')) return undefined;
        const scalar = scalarText(event['value'], event['raw'] as string | undefined);
        return scalar === undefined ? undefined : `${head},${scalar}]`;
      }
      case 'complete-boolean':
        return typeof event['value'] === 'boolean' && event['textValue'] === undefined && event['raw'] === undefined ? `${head},${event['value']}]` : undefined;
      case 'complete-null':
        return event['value'] === null && event['textValue'] === undefined && event['raw'] === undefined ? `${head},null]` : undefined;
      default:
        return event['value'] === undefined && event['textValue'] === undefined && event['raw'] === undefined ? `${head}]` : undefined;
    }
  }

  #delta(event: Record<string, unknown>): string | undefined {
    if (typeof event['index'] !== 'number' || typeof event['toolCallId'] !== 'string' || typeof event['toolName'] !== 'string') return undefined;
    if (typeof event['argumentsDelta'] !== 'string' || typeof event['isComplete'] !== 'boolean' || !onlyMembers(event, DELTA_MEMBERS)) return undefined;
    const ctx = this.#context(event, true, true);
    return `[9,${ctx},${JSON.stringify(event['argumentsDelta'])},${event['isComplete'] ? 1 : 0}${this.#metadata(event['metadata'])}]`;
  }
}

/** An identity as the reader keeps it: the members an event of that context has. */
interface Context {
  readonly index: number | undefined;
  readonly toolCallId: string | undefined;
  readonly toolName: string | undefined;
  readonly messageId: string | undefined;
  readonly providerExecuted: boolean;
  readonly structured: boolean;
}

/** What the reader remembers of the last progress entry, for a run (`[4, …]`). */
interface ReadProgress {
  readonly ctx: number;
  readonly type: 'tool-call-progress' | 'structured-progress';
}

function bad(what: string): RelayError {
  return new RelayError('invalid-data', `a batch entry of the wrong shape: ${what}`);
}

/** Reads the batches one {@link BatchWriter} wrote, in order. */
export class BatchReader {
  #tables = new Tables(true);
  #strings: string[] = [];
  #contexts: Context[] = [];
  #last: ReadProgress | undefined;
  readonly #classes: ReadonlyMap<string, ErrorClass>;
  readonly #maxDepth: number;

  constructor(classes: ReadonlyMap<string, ErrorClass>, maxDepth: number) {
    this.#classes = classes;
    this.#maxDepth = maxDepth;
  }

  /**
   * The events of one batch (a parsed JSON array), in order.
   * @throws {RelayError} `invalid-data` for an entry of the wrong shape.
   */
  read(batch: readonly unknown[], out: unknown[]): void {
    for (const entry of batch) {
      if (Array.isArray(entry)) this.#coded(entry, out);
      else if (typeof entry === 'object' && entry !== null) {
        this.#last = undefined;
        out.push(readEventValue(entry, this.#classes));
      } else throw bad('neither an event nor a coded entry');
    }
  }

  #string(value: unknown, what: string): string {
    if (typeof value === 'string') {
      if (value.length > SHORT) this.#strings.push(value);
      return value;
    }
    if (typeof value === 'number') {
      const known = this.#strings[value];
      if (known !== undefined) return known;
    }
    throw bad(`${what} is not a string nor the number of one`);
  }

  #optionalString(value: unknown, what: string): string | undefined {
    return value === null ? undefined : this.#string(value, what);
  }

  #context(value: unknown): number {
    if (typeof value === 'number') {
      if (this.#contexts[value] === undefined) throw bad('an unknown context');
      return value;
    }
    if (!Array.isArray(value) || value.length !== 5 || typeof value[3] !== 'number') throw bad('a context');
    const flags = value[3] as number;
    const index = value[0];
    if (index !== null && !(typeof index === 'number' && Number.isSafeInteger(index))) throw bad("a context's index");
    const context: Context = {
      index: index === null ? undefined : index,
      toolCallId: this.#optionalString(value[1], "a context's call id"),
      toolName: this.#optionalString(value[2], "a context's name"),
      messageId: this.#optionalString(value[4], "a context's message id"),
      providerExecuted: (flags & 1) !== 0,
      structured: (flags & 2) !== 0,
    };
    this.#contexts.push(context);
    this.#tables.lastNode.push(0);
    return this.#contexts.length - 1;
  }

  #metadata(value: unknown): EventMetadata | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('metadata that is not an object');
    return readEventValue(value, this.#classes) as EventMetadata;
  }

  #coded(entry: readonly unknown[], out: unknown[]): void {
    const code = entry[0];
    if (code !== 4) this.#last = undefined;
    switch (code) {
      case 0:
        this.#tables = new Tables(true);
        this.#strings = [];
        this.#contexts = [];
        return;
      case 1: {
        const [, index, kind, text, metadata] = entry;
        const type = PART_TYPES[kind as string];
        if (typeof index !== 'number' || type === undefined || typeof text !== 'string') throw bad('a part');
        const member = type === 'structured' ? 'json' : type === 'tool-call-arguments' ? 'chunk' : 'text';
        const meta = this.#metadata(metadata);
        const part = { type, [member]: text };
        out.push(meta === undefined ? { type: 'part', index, part } : { type: 'part', index, part, metadata: meta });
        return;
      }
      case 2: {
        const [, index, id, name, rest, metadata] = entry;
        if (typeof index !== 'number') throw bad('a tool-call-start part');
        const toolCallId = this.#string(id, 'a call id');
        const toolName = this.#string(name, 'a tool name');
        if (rest !== undefined && rest !== null && (typeof rest !== 'object' || Array.isArray(rest))) throw bad('a tool-call-start part');
        const extra = rest === undefined || rest === null ? undefined : (readEventValue(rest, this.#classes) as Record<string, unknown>);
        const part = extra === undefined ? { type: 'tool-call-start', toolCallId, toolName } : { type: 'tool-call-start', toolCallId, toolName, ...safe(extra) };
        const meta = this.#metadata(metadata);
        out.push(meta === undefined ? { type: 'part', index, part } : { type: 'part', index, part, metadata: meta });
        return;
      }
      case 3:
        this.#progress(entry, out);
        return;
      case 4:
        this.#run(entry, out);
        return;
      case 5:
      case 6:
      case 7:
        this.#field(entry, out);
        return;
      case 8:
        this.#pathUpdate(entry, out);
        return;
      case 9: {
        const [, ctxValue, delta, complete, metadata] = entry;
        const context = this.#contexts[this.#context(ctxValue)] as Context;
        if (typeof delta !== 'string' || (complete !== 0 && complete !== 1) || context.index === undefined || context.toolCallId === undefined || context.toolName === undefined) {
          throw bad('a streaming-tool-call');
        }
        const event: Record<string, unknown> = { type: 'streaming-tool-call', index: context.index, toolCallId: context.toolCallId, toolName: context.toolName };
        if (context.providerExecuted) event['providerExecuted'] = true;
        event['argumentsDelta'] = delta;
        event['isComplete'] = complete === 1;
        if (context.messageId !== undefined) event['messageId'] = context.messageId;
        const meta = this.#metadata(metadata);
        if (meta !== undefined) event['metadata'] = meta;
        out.push(event);
        return;
      }
      case 10: {
        const [, index, metadata] = entry;
        if (typeof index !== 'number') throw bad('a flush');
        const meta = this.#metadata(metadata);
        out.push(meta === undefined ? { type: 'flush', index } : { type: 'flush', index, metadata: meta });
        return;
      }
      default:
        throw bad(`an unknown code ${typeof code === 'number' ? code : typeof code}`);
    }
  }

  /** The node a path code names, with the nodes it defines added. */
  #path(value: unknown, ctx: number): number {
    const tables = this.#tables;
    const previous = tables.lastNode[ctx] ?? 0;
    let node: number;
    if (typeof value === 'number') {
      if (value === -2) node = previous;
      else if (value === -3) {
        node = (tables.nodes[previous] as Node).parent;
        if (node < 0) throw bad('the parent of the root');
      } else if (value === -1) {
        const prev = tables.nodes[previous] as Node;
        if (previous === 0 || typeof prev.step !== 'number') throw bad('the next element after what is not an element');
        node = tables.child(prev.parent, prev.step + 1) ?? tables.addChild(prev.parent, prev.step + 1);
      } else if (Number.isSafeInteger(value) && value >= 0 && value < tables.nodes.length) node = value;
      else throw bad('an unknown path');
    } else if (Array.isArray(value) && value.length >= 2) {
      const from = value[0];
      if (!(typeof from === 'number' && Number.isSafeInteger(from) && from >= 0 && from < tables.nodes.length)) throw bad('a path from an unknown node');
      node = from;
      for (let i = 1; i < value.length; i++) {
        const step = value[i];
        let key: string | number;
        if (typeof step === 'number') {
          if (!Number.isSafeInteger(step) || step < 0) throw bad('an array index');
          key = step;
        } else if (typeof step === 'string') key = this.#string(step, 'a key');
        else if (Array.isArray(step) && step.length === 1 && typeof step[0] === 'number') key = this.#string(step[0], 'a key');
        else throw bad('a path step');
        node = tables.child(node, key) ?? tables.addChild(node, key);
      }
    } else throw bad('a path');
    if ((tables.nodes[node] as Node).depth > this.#maxDepth) throw new RelayError('max-depth', `a path deeper than maxDepth (${this.#maxDepth})`);
    tables.lastNode[ctx] = node;
    return node;
  }

  /** The fragment at `node` around `leaf`: plain wrappers, or a deep fragment beyond {@link EAGER_DEPTH}. */
  #fragment(node: number, leaf: StreamFragment): StreamFragment {
    const nodes = this.#tables.nodes;
    const here = nodes[node] as Node;
    if (here.depth > EAGER_DEPTH && here.pathStep !== undefined && here.top !== undefined) {
      return new DeepFragment(here.top, here.pathStep, leaf, here.depth) as unknown as StreamFragment;
    }
    let fragment = leaf;
    for (let at = node; at > 0; ) {
      const n = nodes[at] as Node;
      fragment = typeof n.step === 'number' ? { type: 'item', index: n.step, value: fragment } : { type: 'entry', key: n.step, value: fragment };
      at = n.parent;
    }
    return fragment;
  }

  #scalar(value: unknown): { type: 'scalar'; value: JsonScalar; raw?: string } {
    if (typeof value === 'string') {
      const number = +value;
      if (value.trim() === '' || (Number.isNaN(number) && value !== 'NaN')) throw bad('a number literal');
      return { type: 'scalar', value: number, raw: value };
    }
    if (value === null || typeof value === 'boolean' || typeof value === 'number') return { type: 'scalar', value };
    throw bad('a scalar');
  }

  #progressEvent(ctx: number, node: number, leaf: StreamFragment): Record<string, unknown> {
    const context = this.#contexts[ctx] as Context;
    const fragment = this.#fragment(node, leaf);
    if (context.toolCallId === undefined) {
      if (context.index === undefined) throw bad('structured progress without its slot');
      return { type: 'structured-progress', index: context.index, fragment };
    }
    if (context.index === undefined || context.toolName === undefined) throw bad('progress without its call');
    return context.providerExecuted
      ? { type: 'tool-call-progress', index: context.index, toolCallId: context.toolCallId, toolName: context.toolName, providerExecuted: true, fragment }
      : { type: 'tool-call-progress', index: context.index, toolCallId: context.toolCallId, toolName: context.toolName, fragment };
  }

  #progress(entry: readonly unknown[], out: unknown[]): void {
    const [, ctxValue, pathValue, leafValue, done] = entry;
    const ctx = this.#context(ctxValue);
    const node = this.#path(pathValue, ctx);
    let leaf: StreamFragment;
    let scalar = false;
    if (typeof leafValue === 'string') leaf = { type: 'string', text: leafValue };
    else if (leafValue === 0) leaf = { type: 'done' };
    else if (leafValue === 1 || leafValue === 2 || leafValue === 3) leaf = { type: 'start', kind: MARKS[leafValue - 1] as ValueKind };
    else if (Array.isArray(leafValue) && leafValue.length === 1) {
      leaf = this.#scalar(leafValue[0]);
      scalar = true;
    } else throw bad('a progress leaf');
    if (done !== undefined && (done !== 1 || !scalar)) throw bad("a scalar's done");
    const event = this.#progressEvent(ctx, node, leaf);
    out.push(event);
    if (done === 1) out.push(this.#progressEvent(ctx, node, { type: 'done' }));
    this.#last = scalar && done === 1 ? { ctx, type: event['type'] as ReadProgress['type'] } : undefined;
  }

  #run(entry: readonly unknown[], out: unknown[]): void {
    const last = this.#last;
    if (last === undefined) throw bad('a run after no element');
    for (let i = 1; i < entry.length; i++) {
      const node = this.#path(-1, last.ctx);
      out.push(this.#progressEvent(last.ctx, node, this.#scalar(entry[i])));
      out.push(this.#progressEvent(last.ctx, node, { type: 'done' }));
    }
  }

  #source(context: Context): Record<string, unknown> {
    const source: Record<string, unknown> = {};
    if (context.index !== undefined) source['index'] = context.index;
    if (context.toolCallId !== undefined) source['toolCallId'] = context.toolCallId;
    if (context.toolName !== undefined) source['toolName'] = context.toolName;
    return source;
  }

  #field(entry: readonly unknown[], out: unknown[]): void {
    const [code, ctxValue, keyValue, last] = entry;
    const context = this.#contexts[this.#context(ctxValue)] as Context;
    const key = this.#string(keyValue, 'a field key');
    if (code === 5) {
      if (last !== 0 && last !== 1) throw bad('a field-start');
      out.push(last === 1 ? { type: 'field-start', ...this.#source(context), key, string: true } : { type: 'field-start', ...this.#source(context), key });
    } else if (code === 6) {
      if (typeof last !== 'string') throw bad('a field-delta');
      out.push({ type: 'field-delta', ...this.#source(context), key, text: last });
    } else {
      if (last !== 0 && last !== 1) throw bad('a field-end');
      out.push({ type: 'field-end', ...this.#source(context), key, string: last === 1 });
    }
  }

  #pathUpdate(entry: readonly unknown[], out: unknown[]): void {
    const [, ctxValue, kindValue, pathValue, value] = entry;
    const context = this.#contexts[this.#context(ctxValue)] as Context;
    const kind = typeof kindValue === 'number' ? PATH_KINDS[kindValue] : undefined;
    if (kind === undefined) throw bad("a path update's kind");
    const path = this.#string(pathValue, "a path update's path");
    const event: Record<string, unknown> = { type: 'path-update' };
    if (context.structured) {
      event['index'] = context.index;
      event['structured'] = true;
    } else {
      if (context.toolCallId !== undefined) event['toolCallId'] = context.toolCallId;
      if (context.index !== undefined) event['index'] = context.index;
    }
    event['kind'] = kind;
    event['path'] = path;
    switch (kind) {
      case 'key':
      case 'partial-string':
        if (typeof value !== 'string') throw bad("a path update's text");
        event['textValue'] = value;
        break;
      case 'complete-number': {
        if (typeof value !== 'number' && typeof value !== 'string') throw bad("a path update's number");
        const scalar = this.#scalar(value);
        event['value'] = scalar.value;
        if (scalar.raw !== undefined) event['raw'] = scalar.raw;
        break;
      }
      case 'complete-boolean':
        if (typeof value !== 'boolean') throw bad("a path update's boolean");
        event['value'] = value;
        break;
      case 'complete-null':
        if (value !== null) throw bad("a path update's null");
        event['value'] = null;
        break;
      default:
        if (value !== undefined) throw bad('a path update with a value it cannot have');
        break;
    }
    out.push(event);
  }
}

/** The members of a decoded object without those that would reach a prototype. */
function safe(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) if (key !== '__proto__') out[key] = record[key];
  return out;
}
