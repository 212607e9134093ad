/**
 * Reads the batches of the relay's wire form (see wire-batch.ts) back to events. Internal.
 *
 * @module
 */
import { DeepFragment, EAGER_DEPTH } from '../json/deep-fragment.ts';
import type { EventMetadata, JsonScalar, StreamFragment, ValueKind } from '../types.ts';
import { RelayError } from '../errors.ts';
import { endsInIndex, MARKS, nextIndexPath, PART_TYPES, PATH_KINDS, SHORT, Tables, type Node } from './wire-batch.ts';
import { readEventValue, type ErrorClass } from './wire.ts';
import { MAX_DISTANCE, MAX_EXPANDED, MAX_GROUP } from './batch-repeat.ts';

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

/** `value` (a coded entry, or a part of one) with `t` made `v` in every string inside it. */
function withReplaced(value: unknown, t: string, v: string): unknown {
  if (typeof value === 'string') return value.replaceAll(t, v);
  if (Array.isArray(value)) return value.map((item) => withReplaced(item, t, v));
  if (typeof value === 'object' && value !== null) throw bad('a run over an entry with an object');
  return value;
}

/** `value` (a coded entry, or a part of one) with its strings, booleans and nulls replaced in order by `entry`'s values from `at.next` on (`0`: kept). */
function withValues(value: unknown, entry: readonly unknown[], at: { next: number }): unknown {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) {
    if (at.next >= entry.length) throw bad('a run with too few values');
    const x = entry[at.next++];
    if (x === 0) return value;
    if (typeof x === 'string' || typeof x === 'boolean' || x === null) return x;
    throw bad('a run with a value of the wrong kind');
  }
  if (Array.isArray(value)) return value.map((item) => withValues(item, entry, at));
  if (typeof value === 'object') throw bad('a run over an entry with an object');
  return value;
}

/** The last reference token of a JSON Pointer (or a relative one), unescaped; `undefined` if it has none. */
function lastToken(path: string): string | undefined {
  const at = path.lastIndexOf('/');
  return at === -1 ? undefined : path.slice(at + 1).replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Reads the batches one {@link BatchWriter} wrote, in order. */
export class BatchReader {
  #tables = new Tables(true);
  #strings: string[] = [];
  #contexts: Context[] = [];
  #last: ReadProgress | undefined;
  /** The context and key of the last field event, for a delta of the same field (`[11, text]`). */
  #lastField: { readonly ctx: number; readonly key: string } | undefined;
  /** The context and path of the last path update, for one of the same document (`[12, …]`, `[14, …]`). */
  #lastPathContext = -1;
  #lastPath: string | undefined;
  /** The context of the last progress entry, for one of the same context (`[13, …]`). */
  #lastProgressContext = -1;
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
    /** The batch's coded entries so far, runs made again (a run repeats the last ones). */
    const history: unknown[][] = [];
    let expanded = 0;
    for (const entry of batch) {
      if (Array.isArray(entry)) {
        const code = entry[0];
        if (code !== 15 && code !== 16 && code !== 17) {
          this.#coded(entry, out);
          if (history.push(entry) > 2 * MAX_DISTANCE) history.splice(0, history.length - MAX_DISTANCE);
          continue;
        }
        // A run: entries made from earlier ones (see batch-repeat.ts).
        const back = entry[1];
        const most = code === 16 ? MAX_GROUP : MAX_DISTANCE;
        if (!(typeof back === 'number' && Number.isInteger(back) && back >= 1 && back <= most && back <= history.length)) throw bad('a run of entries not written before');
        // [16]: repetitions of `back` entries, one per value; [15], [17]: `count` entries.
        const count = code === 16 ? entry.length - 3 : entry[2];
        if (!(typeof count === 'number' && Number.isInteger(count) && count >= 1)) throw bad('a run');
        expanded += code === 16 ? count * back : count;
        if (expanded > MAX_EXPANDED) throw bad(`runs of more than ${MAX_EXPANDED} entries in a batch`);
        if (code === 16) {
          let t = entry[2];
          if (typeof t !== 'string' || t === '') throw bad('a run');
          for (let r = 0; r < count; r++) {
            const v = entry[3 + r];
            if (typeof v !== 'string' || v === '') throw bad('a run');
            for (let j = 0; j < back; j++) {
              const again = withReplaced(history[history.length - back] as unknown[], t, v) as unknown[];
              this.#coded(again, out);
              history.push(again);
            }
            t = v;
          }
        } else {
          /** [17]: where the next value is. */
          const at = { next: 3 };
          for (let j = 0; j < count; j++) {
            const source = history[history.length - back] as unknown[];
            const again = code === 15 ? source : (withValues(source, entry, at) as unknown[]);
            this.#coded(again, out);
            history.push(again);
          }
          if (code === 17 && at.next !== entry.length) throw bad('a run with values left over');
        }
        if (history.length > 2 * MAX_DISTANCE) history.splice(0, history.length - MAX_DISTANCE);
      } else if (typeof entry === 'object' && entry !== null) {
        this.#last = undefined;
        out.push(readEventValue(entry, this.#classes));
        // A run never repeats an event written whole.
        history.length = 0;
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
        this.#lastField = undefined;
        this.#lastPathContext = -1;
        this.#lastPath = undefined;
        this.#lastProgressContext = -1;
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
      case 13:
        this.#progress(entry, out);
        return;
      case 4:
        this.#run(entry, out);
        return;
      case 5:
      case 11:
      case 6:
      case 7:
        this.#field(entry, out);
        return;
      case 8:
      case 12:
      case 14:
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
      } else if (value === -4) node = tables.child(previous, 0) ?? tables.addChild(previous, 0);
      else if (Number.isSafeInteger(value) && value >= 0 && value < tables.nodes.length) node = value;
      else throw bad('an unknown path');
    } else if (Array.isArray(value) && value.length >= 2) {
      const start = value[0];
      const from = start === -2 ? previous : start === -3 ? (tables.nodes[previous] as Node).parent : start;
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
        // Refused before it is made: a forged path of a million steps costs no million nodes.
        if ((tables.nodes[node] as Node).depth >= this.#maxDepth) throw this.#tooDeep();
        node = tables.child(node, key) ?? tables.addChild(node, key);
      }
    } else throw bad('a path');
    if ((tables.nodes[node] as Node).depth > this.#maxDepth) throw this.#tooDeep();
    tables.lastNode[ctx] = node;
    return node;
  }

  #tooDeep(): RelayError {
    return new RelayError('max-depth', `a path deeper than maxDepth (${this.#maxDepth})`);
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
    // Progress of the context the previous progress entry was of carries no context.
    const [pathValue, leafValue, done] = entry[0] === 13 ? entry.slice(1) : entry.slice(2);
    const ctx = entry[0] === 13 ? this.#lastProgressContext : this.#context(entry[1]);
    if (ctx < 0) throw bad('progress of no context');
    this.#lastProgressContext = ctx;
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
    if (entry[0] === 11) {
      // A delta of the field the previous field event was of.
      const field = this.#lastField;
      const text = entry[1];
      if (field === undefined || typeof text !== 'string' || entry.length !== 2) throw bad('a field-delta of no field');
      out.push({ type: 'field-delta', ...this.#source(this.#contexts[field.ctx] as Context), key: field.key, text });
      return;
    }
    const [code, ctxValue, keyValue, last] = entry;
    const ctx = this.#context(ctxValue);
    const context = this.#contexts[ctx] as Context;
    const key = this.#string(keyValue, 'a field key');
    this.#lastField = { ctx, key };
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
    // An update of the document the previous update was of carries no context (12), nor a path at
    // the next element after the previous one's (14).
    const code = entry[0];
    const [kindValue, pathValue, value] = code === 14 ? [entry[1], undefined, entry[2]] : code === 12 ? entry.slice(1) : entry.slice(2);
    const ctx = code === 8 ? this.#context(entry[1]) : this.#lastPathContext;
    if (ctx < 0) throw bad('a path update of no document');
    this.#lastPathContext = ctx;
    const context = this.#contexts[ctx] as Context;
    const kind = typeof kindValue === 'number' ? PATH_KINDS[kindValue] : undefined;
    if (kind === undefined) throw bad("a path update's kind");
    if (code === 8) this.#lastPath = undefined;
    const path = code === 14 ? (this.#lastPath === undefined ? undefined : nextIndexPath(this.#lastPath)) : this.#string(pathValue, "a path update's path");
    if (path === undefined) throw bad('the next element after a path that is not one');
    // The last path that ends in an index, for the next element (`[14, …]`).
    if (endsInIndex(path)) this.#lastPath = path;
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
      case 'partial-string': {
        // A key written as 0 is the last token of its path.
        const text = value === 0 && kind === 'key' ? lastToken(path) : value;
        if (typeof text !== 'string') throw bad("a path update's text");
        event['textValue'] = text;
        break;
      }
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
