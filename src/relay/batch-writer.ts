/**
 * Writes a response's events as the batches of the relay's wire form (see wire-batch.ts). Internal.
 *
 * @module
 */
import { clear } from '../core.ts';
import { newPlace, placeOf, type PathStep } from '../json/deep-fragment.ts';
import type { JsonScalar, StreamFragment, ValueKind } from '../types.ts';
import { endsInIndex, MARKS, nextIndexPath, PART_KINDS, PATH_KIND_CODES, SHORT, Tables, type Node } from './wire-batch.ts';
import { expandSnapshot, writeEvent } from './wire.ts';
import { withRuns } from './batch-repeat.ts';

/** A scalar as the wire writes it, or `undefined` for one it cannot (a non-finite number without its literal). */
function scalarText(value: JsonScalar, raw: string | undefined): string | undefined {
  if (raw !== undefined) return typeof value === 'number' && Object.is(+raw, value) ? JSON.stringify(raw) : undefined;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? String(value) : undefined;
  return value === null ? 'null' : value ? 'true' : 'false';
}

/** Whether `text` is the last reference token of the JSON Pointer (or relative one) `path`, unescaped. */
function isLastToken(path: string, text: string): boolean {
  const at = path.lastIndexOf('/');
  return at !== -1 && path.slice(at + 1).replaceAll('~1', '/').replaceAll('~0', '~') === text;
}

/** Members of an event the compact entries know; an event with any other member is written whole. */
function onlyMembers(event: object, allowed: ReadonlySet<string>): boolean {
  for (const key in event) if (Object.hasOwn(event, key) && (event as Record<string, unknown>)[key] !== undefined && !allowed.has(key)) return false;
  return true;
}

/**
 * {@link onlyMembers} for field events, written out: it runs for most of a relay's events, and a
 * `switch` on the key costs less than a set's lookup.
 */
function onlyFieldMembers(event: object): boolean {
  for (const key in event) {
    switch (key) {
      case 'type':
      case 'index':
      case 'toolCallId':
      case 'toolName':
      case 'key':
      case 'text':
      case 'string':
        continue;
      default:
        if (Object.hasOwn(event, key) && (event as Record<string, unknown>)[key] !== undefined) return false;
    }
  }
  return true;
}

const PART_MEMBERS = /* @__PURE__ */ new Set(['type', 'index', 'part', 'metadata']);
const PROGRESS_MEMBERS = /* @__PURE__ */ new Set(['type', 'index', 'toolCallId', 'toolName', 'providerExecuted', 'fragment']);
const PATH_MEMBERS = /* @__PURE__ */ new Set(['type', 'index', 'toolCallId', 'structured', 'kind', 'path', 'textValue', 'value', 'raw']);
const DELTA_MEMBERS = /* @__PURE__ */ new Set(['type', 'index', 'toolCallId', 'toolName', 'providerExecuted', 'argumentsDelta', 'isComplete', 'messageId', 'metadata']);
const FLUSH_MEMBERS = /* @__PURE__ */ new Set(['type', 'index', 'metadata']);

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
  readonly #entries: string[] = ['[0]'];
  /** Characters in `#entries`. */
  #size = 3;
  #count = 0;
  #pending: PendingScalar | undefined;
  /** The context (index, call id, name) and key of the last field event: a delta of the same field needs neither. */
  #lastField: { readonly key: string; readonly index: number | undefined; readonly id: string | undefined; readonly name: string | undefined } | undefined;
  /**
   * The context of the last path update (the next one of the same document needs no context), and
   * its last path that ends in an index (an update at the next element needs no path).
   */
  #lastPathContext = -1;
  #lastPath: string | undefined;
  /** The context of the last progress entry (the next one of the same context needs none). */
  #lastProgressContext = -1;
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
    const entries = this.#entries;
    if (entries.length === 0) return undefined;
    // One entry (a live stream's read, most of the time) needs no join.
    const text = entries.length === 1 ? `[${entries[0] as string}]` : `[${withRuns(entries).join(',')}]`;
    clear(entries);
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
        // Its events in its place (the count of events the batch stands for is the caller's), those
        // of the snapshots inside it too, without recursion.
        const flat: unknown[] = [];
        expandSnapshot(event, flat, Infinity);
        for (const inner of flat) this.#add(inner);
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
    // Progress of the context the previous progress entry was of needs no context.
    const head = this.#lastProgressContext === ctx && !ctxText.startsWith('[') ? `[13,${path.code},${leafText}` : `[3,${ctxText},${path.code},${leafText}`;
    this.#lastProgressContext = ctx;
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
    // The first element below the previous path (a dive into nested arrays).
    if (here.parent === previous && here.step === 0 && fresh.length <= 1) return '-4';
    if (fresh.length === 0) return String(node);
    // New nodes below the previous path, or below its parent, need not name where they start.
    let text = from === previous ? '[-2' : from === prev.parent && previous !== 0 ? '[-3' : `[${from}`;
    for (const step of fresh) text += typeof step === 'number' ? `,${step}` : `,${this.#keyStep(step)}`;
    return `${text}]`;
  }

  #keyStep(key: string): string {
    const text = this.#string(key);
    return text.startsWith('"') ? text : `[${text}]`;
  }

  #field(event: Record<string, unknown>): string | undefined {
    const key = event['key'];
    const type = event['type'];
    const last = this.#lastField;
    // A delta of the field the previous field event was of (most of a relay's events): its text
    // alone, without looking the context up again.
    if (
      type === 'field-delta' &&
      last !== undefined &&
      last.key === key &&
      last.index === event['index'] &&
      last.id === event['toolCallId'] &&
      last.name === event['toolName'] &&
      typeof event['text'] === 'string' &&
      onlyFieldMembers(event)
    ) {
      return `[11,${JSON.stringify(event['text'])}]`;
    }
    if (typeof key !== 'string' || !onlyFieldMembers(event)) return undefined;
    // Checked before the tables change: an event written whole must leave them as they were.
    if (type === 'field-start' ? event['string'] !== undefined && event['string'] !== true : type === 'field-delta' ? typeof event['text'] !== 'string' : typeof event['string'] !== 'boolean') return undefined;
    const ctxText = this.#context(event, true, false);
    const keyText = this.#string(key);
    const index = event['index'];
    this.#lastField = {
      key,
      index: typeof index === 'number' ? index : undefined,
      id: typeof event['toolCallId'] === 'string' ? event['toolCallId'] : undefined,
      name: typeof event['toolName'] === 'string' ? event['toolName'] : undefined,
    };
    if (type === 'field-start') return `[5,${ctxText},${keyText},${event['string'] === true ? 1 : 0}]`;
    if (type === 'field-delta') return `[6,${ctxText},${keyText},${JSON.stringify(event['text'])}]`;
    return `[7,${ctxText},${keyText},${event['string'] ? 1 : 0}]`;
  }

  #pathUpdate(event: Record<string, unknown>): string | undefined {
    const kind = PATH_KIND_CODES.get(event['kind'] as string);
    if (kind === undefined || typeof event['path'] !== 'string' || !onlyMembers(event, PATH_MEMBERS)) return undefined;
    // Checked before the tables change: an event written whole must leave them as they were.
    let value: string;
    switch (event['kind']) {
      case 'key':
      case 'partial-string': {
        const text = event['textValue'];
        if (typeof text !== 'string' || event['value'] !== undefined || event['raw'] !== undefined) return undefined;
        // A key is the last token of its path, most of the time: then it goes once, in the path.
        value = event['kind'] === 'key' && isLastToken(event['path'], text) ? ',0' : `,${JSON.stringify(text)}`;
        break;
      }
      case 'complete-number': {
        if (typeof event['value'] !== 'number' || event['textValue'] !== undefined || (event['raw'] !== undefined && typeof event['raw'] !== 'string')) return undefined;
        const scalar = scalarText(event['value'], event['raw'] as string | undefined);
        if (scalar === undefined) return undefined;
        value = `,${scalar}`;
        break;
      }
      case 'complete-boolean':
        if (typeof event['value'] !== 'boolean' || event['textValue'] !== undefined || event['raw'] !== undefined) return undefined;
        value = `,${event['value']}`;
        break;
      case 'complete-null':
        if (event['value'] !== null || event['textValue'] !== undefined || event['raw'] !== undefined) return undefined;
        value = ',null';
        break;
      default:
        if (event['value'] !== undefined || event['textValue'] !== undefined || event['raw'] !== undefined) return undefined;
        value = '';
        break;
    }
    const ctxText = this.#context(event, false, false);
    const ctx = this.#contextNumber(ctxText);
    // An update of the document the previous update was of: no context; at the next element after
    // its path (the elements of an array, one after another): no path either.
    const same = this.#lastPathContext === ctx && !ctxText.startsWith('[');
    const next = same && this.#lastPath !== undefined && nextIndexPath(this.#lastPath) === event['path'];
    this.#lastPathContext = ctx;
    // The last path that ends in an index: the next element is after it, whatever updates came
    // between (the end of the element before, at its own path).
    if (!same) this.#lastPath = undefined;
    if (endsInIndex(event['path'])) this.#lastPath = event['path'];
    if (next) return `[14,${kind}${value}]`;
    const path = this.#string(event['path']);
    return same ? `[12,${kind},${path}${value}]` : `[8,${ctxText},${kind},${path}${value}]`;
  }

  #delta(event: Record<string, unknown>): string | undefined {
    if (typeof event['index'] !== 'number' || typeof event['toolCallId'] !== 'string' || typeof event['toolName'] !== 'string') return undefined;
    if (typeof event['argumentsDelta'] !== 'string' || typeof event['isComplete'] !== 'boolean' || !onlyMembers(event, DELTA_MEMBERS)) return undefined;
    const ctx = this.#context(event, true, true);
    return `[9,${ctx},${JSON.stringify(event['argumentsDelta'])},${event['isComplete'] ? 1 : 0}${this.#metadata(event['metadata'])}]`;
  }
}
