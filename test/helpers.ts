/**
 * Shared test helpers: fixture access, the ways of cutting input into chunks, reading streams
 * (to the end, or to the end or the error), a source that records cancellation, and short
 * `StreamEvent` constructors.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { FragmentAggregator, IncrementalJsonParser } from '../src/index.ts';
import type { JsonValue, StreamEvent, StreamFragment } from '../src/types.ts';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export function readFixture(relativePath: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, relativePath)));
}

export function listFixtures(dir: string): string[] {
  return readdirSync(join(FIXTURES, dir)).sort();
}

/** A small deterministic PRNG (mulberry32), so random cuttings are reproducible from a seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cut `input` at `cuts` (sorted positions). */
export function cutAt<T extends string | Uint8Array>(input: T, cuts: readonly number[]): T[] {
  const out: T[] = [];
  let last = 0;
  for (const c of cuts) {
    if (c > last && c < input.length) {
      out.push(input.slice(last, c) as T);
      last = c;
    }
  }
  out.push(input.slice(last) as T);
  return out;
}

/** One-element pieces: every possible boundary at once. */
export function oneByOne<T extends string | Uint8Array>(input: T): T[] {
  const out: T[] = [];
  for (let i = 0; i < input.length; i++) out.push(input.slice(i, i + 1) as T);
  return out;
}

/** Cut at `count` random positions drawn from `random`. */
export function randomCuts<T extends string | Uint8Array>(input: T, random: () => number, count = 8): T[] {
  const cuts = Array.from({ length: count }, () => Math.floor(random() * input.length)).sort((a, b) => a - b);
  return cutAt(input, cuts);
}

/** The three standard cuttings of a fixture: whole, byte by byte, and random cuts from `seed`. */
export function cuttings<T extends string | Uint8Array>(input: T, seed = 1): Array<[string, T[]]> {
  return [
    ['whole', [input]],
    ['one by one', oneByOne(input)],
    [`random cuts (seed ${seed})`, randomCuts(input, rng(seed))],
  ];
}

/** Read a stream to an array. */
export async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/** A stream of the given chunks. */
export function streamOf<T>(chunks: readonly T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++] as T);
      else controller.close();
    },
  });
}

/**
 * A stream of the given chunks, one per macrotask: as network reads arrive, each apart from the
 * next (a relay encoder writes what one read made as one record).
 */
export function pacedStreamOf<T>(chunks: readonly T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    async pull(controller) {
      // A macrotask apart (setImmediate where there is one: setTimeout waits a millisecond).
      if (i > 0) await new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
      if (i < chunks.length) controller.enqueue(chunks[i++] as T);
      else controller.close();
    },
  });
}

/** Read a stream to its end or its error: the values it delivered, and the error (`undefined` if none). */
export async function settle<T>(stream: ReadableStream<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { values, error: undefined };
      values.push(value);
    }
  } catch (error) {
    return { values, error };
  }
}

/** A source that records cancellation and fails if read after it was closed or cancelled. */
export function recordingSource<T>(chunks: readonly T[]) {
  const log = { cancelled: undefined as unknown, pullsAfterEnd: 0 };
  let i = 0;
  let ended = false;
  const stream = new ReadableStream<T>({
    pull(controller) {
      if (ended) {
        log.pullsAfterEnd++;
        return;
      }
      if (i < chunks.length) controller.enqueue(chunks[i++] as T);
      else {
        ended = true;
        controller.close();
      }
    },
    cancel(reason) {
      ended = true;
      log.cancelled = reason;
    },
  });
  return { stream, log };
}

// `StreamEvent` constructors: the events a provider adapter emits, written short.

/** A `tool-call-start` part of slot `index`. */
export const start = (index: number, id: string, name: string): StreamEvent => ({ type: 'part', index, part: { type: 'tool-call-start', toolCallId: id, toolName: name } });
/** A `tool-call-arguments` part of slot `index`. */
export const args = (index: number, chunk: string): StreamEvent => ({ type: 'part', index, part: { type: 'tool-call-arguments', chunk } });
/** A `message` part of slot `index`. */
export const text = (index: number, t: string): StreamEvent => ({ type: 'part', index, part: { type: 'message', text: t } });
/** The flush of slot `index`, with its metadata if given. */
export const flush = (index: number, metadata?: Record<string, unknown>): StreamEvent => (metadata ? { type: 'flush', index, metadata } : { type: 'flush', index });
/** The `finished` event. */
export const finished = (reason: 'stop' | 'tool-calls' | 'length', rawReason: string): StreamEvent => ({ type: 'finished', reason, rawReason });

/** Parse chunks with the fragment parser; returns all fragments and the aggregated value. */
export function parseFragments(chunks: ReadonlyArray<string | Uint8Array>, options = {}) {
  const parser = new IncrementalJsonParser(options);
  const aggregator = new FragmentAggregator();
  const fragments: StreamFragment[] = [];
  let value: JsonValue | undefined;
  const take = (list: StreamFragment[]) => {
    for (const fragment of list) {
      fragments.push(fragment);
      const result = aggregator.push(fragment);
      if (result !== undefined) value = result;
    }
  };
  for (const chunk of chunks) take(parser.push(chunk));
  take(parser.end());
  return { fragments, value };
}
