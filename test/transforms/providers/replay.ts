/**
 * Test-only helpers for the provider adapter tests: split a recording into records (a minimal SSE
 * and NDJSON reader, independent of the library's decoder) and assemble a `StreamEvent` list into
 * tool calls and texts while checking the event protocol (no part after its slot's flush, every
 * slot flushed once, `finished` at most once and last).
 */
import type { FinishedEvent, StreamEvent } from '../../../src/types.ts';
import type { ProviderAdapter } from '../../../src/transforms/providers/adapter.ts';
import { cuttings, randomCuts, rng } from '../../helpers.ts';

/** One decoded record: the SSE event name (if any) and the parsed `data`. */
export interface WireRecord {
  readonly event?: string;
  readonly data: unknown;
}

/** Split SSE text into records: blank-line separated, any line ending, comments and `[DONE]` skipped. */
export function sseRecords(text: string): WireRecord[] {
  const records: WireRecord[] = [];
  let event: string | undefined;
  let data: string[] = [];
  const dispatch = (): void => {
    if (data.length > 0) {
      const joined = data.join('\n');
      if (joined !== '[DONE]') records.push(event === undefined ? { data: JSON.parse(joined) } : { event, data: JSON.parse(joined) });
    }
    event = undefined;
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') dispatch();
    else if (line.startsWith(':')) continue;
    else {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
    }
  }
  dispatch();
  return records;
}

/** Split NDJSON text into records. */
export function ndjsonRecords(text: string): WireRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => ({ data: JSON.parse(line) }));
}

/** The events of a run, and the error that stopped it, if any. */
export interface Run {
  readonly events: StreamEvent[];
  readonly error?: unknown;
}

/** Push every record, then `end()`; an error from `push` stops the run (as the stream shell does). */
export function runAdapter(adapter: ProviderAdapter, records: readonly WireRecord[]): Run {
  const events: StreamEvent[] = [];
  try {
    for (const record of records) events.push(...adapter.push(record.data, record.event));
  } catch (error) {
    return { events, error };
  }
  events.push(...adapter.end());
  return { events };
}

export interface AssembledToolCall {
  readonly slot: number;
  readonly id: string;
  readonly name: string;
  /** Concatenated argument chunks. */
  readonly args: string;
  readonly chunks: number;
  readonly metadata: Record<string, unknown>;
}

export interface AssembledText {
  readonly slot: number;
  readonly kind: 'message' | 'reasoning';
  readonly text: string;
  readonly metadata: Record<string, unknown>;
}

export interface Assembled {
  readonly toolCalls: AssembledToolCall[];
  readonly texts: AssembledText[];
  readonly finished: FinishedEvent | undefined;
  /** Slots that had parts and no flush. */
  readonly unflushed: number[];
}

interface SlotState {
  kind: 'message' | 'reasoning' | 'tool-call' | undefined;
  id: string;
  name: string;
  content: string;
  chunks: number;
  flushed: boolean;
  metadata: Record<string, unknown>;
}

/** Assemble events the way a downstream builder would, checking the event protocol on the way. */
export function assemble(events: readonly StreamEvent[]): Assembled {
  const slots = new Map<number, SlotState>();
  let finished: FinishedEvent | undefined;
  for (const event of events) {
    if (finished) throw new Error(`event after finished: ${JSON.stringify(event)}`);
    if (event.type === 'finished') {
      finished = event;
      continue;
    }
    let slot = slots.get(event.index);
    if (!slot) {
      if (event.type === 'flush') throw new Error(`flush of slot ${event.index}, which had no part`);
      slot = { kind: undefined, id: '', name: '', content: '', chunks: 0, flushed: false, metadata: {} };
      slots.set(event.index, slot);
    }
    if (slot.flushed) throw new Error(`${event.type} for slot ${event.index} after its flush`);
    Object.assign(slot.metadata, event.metadata);
    if (event.type === 'flush') {
      slot.flushed = true;
      continue;
    }
    const part = event.part;
    const kind = part.type === 'message' || part.type === 'reasoning' ? part.type : part.type === 'structured' ? 'message' : 'tool-call';
    if (slot.kind !== undefined && slot.kind !== kind) throw new Error(`slot ${event.index} mixes ${slot.kind} and ${kind}`);
    slot.kind = kind;
    switch (part.type) {
      case 'message':
      case 'reasoning':
        slot.content += part.text;
        break;
      case 'structured':
        slot.content += part.json;
        break;
      case 'tool-call-start':
        // First non-empty value wins per field (RFD 012).
        if (slot.id === '') slot.id = part.id;
        if (slot.name === '') slot.name = part.name;
        break;
      case 'tool-call-arguments':
        if (slot.id === '' && slot.name === '') throw new Error(`arguments for slot ${event.index} before its tool-call-start`);
        slot.content += part.chunk;
        slot.chunks++;
        break;
    }
  }
  const ordered = [...slots.entries()].sort((a, b) => a[0] - b[0]);
  return {
    toolCalls: ordered
      .filter(([, s]) => s.kind === 'tool-call')
      .map(([slot, s]) => ({ slot, id: s.id, name: s.name, args: s.content, chunks: s.chunks, metadata: s.metadata })),
    texts: ordered
      .filter(([, s]) => s.kind === 'message' || s.kind === 'reasoning')
      .map(([slot, s]) => ({ slot, kind: s.kind as 'message' | 'reasoning', text: s.content, metadata: s.metadata })),
    finished,
    unflushed: ordered.filter(([, s]) => !s.flushed).map(([slot]) => slot),
  };
}

/** Slot numbers must be assigned in order of first appearance: 0, 1, 2, … */
export function slotsInOrderOfAppearance(events: readonly StreamEvent[]): boolean {
  let next = 0;
  const seen = new Set<number>();
  for (const event of events) {
    if (event.type !== 'part' || seen.has(event.index)) continue;
    if (event.index !== next) return false;
    seen.add(event.index);
    next++;
  }
  return true;
}

/**
 * The expected error of a manifest `Errors in stream` entry: its first `message` and `code`,
 * read from the text (which the manifest may truncate).
 */
export function manifestError(errors: string): { message: string; code?: string; type?: string } {
  try {
    const parsed: unknown = JSON.parse(errors);
    if (Array.isArray(parsed)) {
      const first: unknown = parsed[0];
      if (typeof first === 'string') return { message: first };
      if (typeof first === 'object' && first !== null && 'message' in first) {
        const { message, code, type } = first as { message: string; code?: unknown; type?: unknown };
        return {
          message,
          ...(code === undefined ? {} : { code: String(code) }),
          ...(typeof type === 'string' ? { type } : {}),
        };
      }
    }
  } catch {
    // Truncated: read the fields one by one.
  }
  const message = /"message": "((?:[^"\\]|\\.)*)"/.exec(errors);
  const code = /"code": (?:"((?:[^"\\]|\\.)*)"|(\d+))/.exec(errors);
  const type = /"type": "((?:[^"\\]|\\.)*)"/.exec(errors);
  if (!message?.[1]) throw new Error(`cannot read the manifest error: ${errors.slice(0, 60)}`);
  const result: { message: string; code?: string; type?: string } = { message: JSON.parse(`"${message[1]}"`) as string };
  const codeText = code?.[1] ?? code?.[2];
  if (codeText !== undefined) result.code = codeText;
  if (type?.[1] !== undefined) result.type = JSON.parse(`"${type[1]}"`) as string;
  return result;
}

/**
 * The cuttings a recording is replayed under through `ProviderEventStream`: bytes whole, byte by
 * byte and at random cuts (three seeds), and decoded text at random cuts.
 */
export function streamCuttings(bytes: Uint8Array): Array<[string, Array<string | Uint8Array>]> {
  const text = new TextDecoder().decode(bytes);
  return [
    ...cuttings(bytes, 1).map(([label, chunks]): [string, Array<string | Uint8Array>] => [`bytes ${label}`, chunks]),
    ...[2, 3].map((seed): [string, Array<string | Uint8Array>] => [`bytes random cuts (seed ${seed})`, randomCuts(bytes, rng(seed))]),
    [`text random cuts (seed 4)`, randomCuts(text, rng(4), 16)],
  ];
}

/**
 * Cut `bytes` in the middle of its last line that carries a JSON record (not `data: [DONE]`): the
 * input ends inside the event that would have completed the response.
 */
export function cutInsideLastLine(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  const lines = [...text.matchAll(/[^\r\n]+/g)].filter((m) => m[0].trim() !== '' && m[0].trim() !== 'data: [DONE]');
  const last = lines.at(-1);
  if (last?.index === undefined) throw new Error('no line to cut');
  const cut = last.index + Math.floor(last[0].length / 2);
  return new TextEncoder().encode(text.slice(0, cut));
}
