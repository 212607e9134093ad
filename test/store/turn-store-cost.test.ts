/**
 * What building snapshots costs, counted, not timed: a snapshot copies the open arrays and objects
 * on the path to what changed (their width), never a string and never a closed subtree; with
 * notifications coalesced, snapshots are as many as the reads (or frames), not as the events.
 */
import { describe, expect, it } from 'vitest';
import { ProviderEventDecoder, TurnStore, type JsonValue, type TurnSnapshot, type TurnStoreSchedule } from '../../src/index.ts';

const ELEMENTS = 13_000;

/** `{"items":[{"id":0,"tags":["t0"]},…]}`: small objects in one array, as one call's arguments. */
function argumentsText(elements: number): string {
  const items: string[] = [];
  for (let i = 0; i < elements; i++) items.push(`{"id":${i},"tags":["t${i % 7}"]}`);
  return `{"items":[${items.join(',')}]}`;
}

/** The call as Anthropic SSE, its arguments in 16-character deltas. */
function anthropicSse(args: string): string {
  const event = (name: string, data: object): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  let sse = event('message_start', { type: 'message_start', message: { id: 'm', role: 'assistant', content: [] } });
  sse += event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'save_items', input: {} } });
  for (let i = 0; i < args.length; i += 16) {
    sse += event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(i, i + 16) } });
  }
  sse += event('content_block_stop', { type: 'content_block_stop', index: 0 });
  sse += event('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } });
  return sse + event('message_stop', { type: 'message_stop' });
}

/** A response body given in reads of `size` bytes, each in a macrotask of its own, as a network gives them. */
function networkBody(bytes: Uint8Array, size: number): { body: ReadableStream<Uint8Array>; reads: () => number } {
  let at = 0;
  let reads = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      reads++;
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
  return { body, reads: () => reads };
}

const isContainer = (value: unknown): value is Record<string, JsonValue> | JsonValue[] => typeof value === 'object' && value !== null;

/**
 * The members of every container of `value` that is not `previous`'s object at the same path: what
 * building `value` from `previous` wrote (an unchanged container is shared, so not counted, nor
 * anything under it).
 */
function written(value: unknown, previous: unknown): number {
  if (!isContainer(value) || value === previous) return 0;
  const before = isContainer(previous) && Array.isArray(previous) === Array.isArray(value) ? previous : undefined;
  let count = 0;
  if (Array.isArray(value)) {
    count += value.length;
    for (let i = 0; i < value.length; i++) count += written(value[i], (before as JsonValue[] | undefined)?.[i]);
  } else {
    const keys = Object.keys(value);
    count += keys.length;
    for (const key of keys) count += written(value[key], before !== undefined && Object.hasOwn(before, key) ? (before as Record<string, JsonValue>)[key] : undefined);
  }
  return count;
}

/** Every member of every container of `value`. */
function members(value: unknown): number {
  if (!isContainer(value)) return 0;
  const list = Array.isArray(value) ? value : Object.values(value);
  return list.reduce<number>((n, member) => n + members(member), list.length);
}

/** The turn read from the network, a snapshot read at each notification: how many, and what they wrote. */
async function readTurn(schedule: TurnStoreSchedule | undefined, elements = ELEMENTS): Promise<{ snapshots: number; written: number; reads: number; final: TurnSnapshot }> {
  const bytes = new TextEncoder().encode(anthropicSse(argumentsText(elements)));
  const { body, reads } = networkBody(bytes, 32 * 1024);
  const store = new TurnStore(schedule === undefined ? {} : { schedule });
  let previous: unknown;
  let snapshots = 0;
  let total = 0;
  store.subscribe(() => {
    const input = store.getSnapshot().calls[0]?.input;
    if (input === previous) return;
    snapshots++;
    total += written(input, previous);
    previous = input;
  });
  const final = await store.consume(new Response(body), { decoder: new ProviderEventDecoder({ provider: 'anthropic' }) });
  return { snapshots, written: total, reads: reads(), final };
}

describe('TurnStore: what snapshots cost', () => {
  it('`TurnStore` with the default schedule: a 13,000-element array read from the network makes a snapshot per read at most, each writing at most the width of the open containers', async () => {
    const { snapshots, written: total, reads, final } = await readTurn(undefined);
    const input = final.calls[0]?.input as { items: unknown[] };
    expect(final.status).toBe('done');
    expect(input.items).toHaveLength(ELEMENTS);
    // Notifications coalesced: one per read (a macrotask each, no animation frames in Node), and the end.
    expect(reads).toBeGreaterThan(20);
    expect(snapshots).toBeLessThanOrEqual(reads + 1);
    // Per snapshot: the root object, the open array (≤ 13,000) and its open element; plus, once
    // over the whole turn, each closed element as it first appears (shared as it is afterwards).
    const width = 1 + ELEMENTS + 2 + 1;
    expect(total).toBeLessThanOrEqual(snapshots * width + members(input));
  });

  it('`TurnStore` with schedule sync and a snapshot per event copies the open array at each (3,000 elements): the cost the coalescing avoids', async () => {
    const coalesced = await readTurn(undefined, 3_000);
    const perEvent = await readTurn('sync', 3_000);
    expect(perEvent.final.calls[0]?.input).toEqual(coalesced.final.calls[0]?.input);
    expect(perEvent.snapshots).toBeGreaterThan(50 * coalesced.snapshots);
    expect(perEvent.written).toBeGreaterThan(20 * coalesced.written);
  });
});
