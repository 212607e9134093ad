/**
 * Every parser under test, each driven the way its documentation says to use it, behind one
 * shape: give it the chunks, get back the final value.
 *
 * @module
 */
import { JSONParser } from '@streamparser/json';
import { parse as jsonriverParse } from 'jsonriver';
import { parseChunked } from '@discoveryjs/json-ext';
import { parse as partialJsonParse } from 'partial-json';
import { parsePartialJson } from 'ai';
import {
  FragmentAggregator,
  IncrementalJsonParser,
  IncrementalJsonValueParser,
} from '../src/index.ts';
import type { JsonValue } from '../src/types.ts';

/** Who a contender is; the order of this union is the order of the table columns. */
export type ContenderId =
  | 'fragments'
  | 'fused'
  | 'streamparser'
  | 'jsonriver'
  | 'json-ext'
  | 'partial-json'
  | 'ai-sdk'
  | 'fragments+snapshot'
  | 'fused+snapshot';

export interface Contender {
  readonly id: ContenderId;
  readonly label: string;
  /** True when the API is asynchronous, so every chunk pays at least one promise turn. */
  readonly async: boolean;
  /** Parses `chunks` and returns the final value (a promise for async contenders). */
  readonly run: (chunks: readonly string[]) => JsonValue | Promise<JsonValue>;
  /** Partial parses that failed during the last run (re-parse contenders only), for the report. */
  failures?: number;
}

/** argstream fragments: `IncrementalJsonParser` → `FragmentAggregator`, the push API. */
export const fragments: Contender = {
  id: 'fragments',
  label: 'argstream fragments + aggregator',
  async: false,
  run(chunks) {
    const parser = new IncrementalJsonParser();
    const aggregator = new FragmentAggregator();
    let root: JsonValue | undefined;
    for (const chunk of chunks) {
      for (const fragment of parser.push(chunk)) {
        const value = aggregator.push(fragment);
        if (value !== undefined) root = value;
      }
    }
    for (const fragment of parser.end()) {
      const value = aggregator.push(fragment);
      if (value !== undefined) root = value;
    }
    if (root === undefined) throw new Error('FragmentAggregator produced no root value');
    return root;
  },
};

/** argstream fused text → value core. */
export const fused: Contender = {
  id: 'fused',
  label: 'argstream fused text → value',
  async: false,
  run(chunks) {
    const parser = new IncrementalJsonValueParser();
    for (const chunk of chunks) parser.push(chunk);
    return parser.end();
  },
};

/**
 * `@streamparser/json`: `paths: ['$']` so only the root is emitted, `keepStack: false` so nothing
 * off that path is retained (the root keeps all its members, its docs say), and the TypedArray
 * string buffer its docs suggest for large strings (`stringBufferSize: 64 KiB`): measured here it
 * is about a quarter faster on the long string than the default concatenation and no slower on
 * the small objects. With no `separator` the parser ends itself after the root value, so `end()`
 * is only needed when it has not.
 */
export const streamparser: Contender = {
  id: 'streamparser',
  label: '@streamparser/json',
  async: false,
  run(chunks) {
    const parser = new JSONParser({ paths: ['$'], keepStack: false, stringBufferSize: 64 * 1024 });
    let root: JsonValue | undefined;
    parser.onValue = ({ value }) => {
      root = value as JsonValue;
    };
    for (const chunk of chunks) parser.write(chunk);
    if (!parser.isEnded) parser.end();
    if (root === undefined) throw new Error('@streamparser/json produced no root value');
    return root;
  },
};

/**
 * jsonriver: `parse` takes an async iterable of strings and yields ever more complete values;
 * the last one is the document. Its per-chunk promise turns are part of its API, so they are
 * part of its time.
 */
export const jsonriver: Contender = {
  id: 'jsonriver',
  label: 'jsonriver',
  async: true,
  async run(chunks) {
    async function* source(): AsyncGenerator<string> {
      for (const chunk of chunks) yield chunk;
    }
    let root: JsonValue | undefined;
    for await (const value of jsonriverParse(source())) root = value as JsonValue;
    if (root === undefined) throw new Error('jsonriver produced no value');
    return root;
  },
};

/**
 * `@discoveryjs/json-ext` `parseChunked`: the final value only (no partial values), which it gets
 * by scanning each chunk for the boundaries of complete values and handing those segments to
 * `JSON.parse`. It takes an iterable (here the array of chunks) and reads it with `for await`, so
 * every chunk costs a promise turn: that is its API, so it is in its time.
 */
export const jsonExt: Contender = {
  id: 'json-ext',
  label: '@discoveryjs/json-ext `parseChunked`',
  async: true,
  async run(chunks) {
    return (await parseChunked(chunks)) as JsonValue;
  },
};

/**
 * The re-parse approach with `partial-json`: append the chunk, parse the whole buffer again.
 * A partial parse can throw at some cut points; those are counted, never hidden.
 */
export const partialJson: Contender = {
  id: 'partial-json',
  label: 'partial-json `parse` (re-parse buffer)',
  async: false,
  failures: 0,
  run(chunks) {
    let buffer = '';
    let value: JsonValue | undefined;
    let lastError: unknown;
    let failures = 0;
    for (const chunk of chunks) {
      buffer += chunk;
      try {
        value = partialJsonParse(buffer) as JsonValue;
        lastError = undefined;
      } catch (error) {
        failures++;
        lastError = error;
      }
    }
    partialJson.failures = failures;
    // Failing on a prefix is the approach's known weak spot; failing on the whole text is a bug.
    if (lastError !== undefined) throw lastError;
    if (value === undefined) throw new Error('partial-json produced no value');
    return value;
  },
};

/**
 * The re-parse approach with the AI SDK v5: `parsePartialJson` from `ai` is async (it awaits
 * `safeParseJSON`), returns `{ value, state }` and repairs the text with `fixJson` when plain
 * parsing fails, so each chunk costs a parse attempt, a repair, a second parse and a promise.
 */
export const aiSdk: Contender = {
  id: 'ai-sdk',
  label: 'ai v5 `parsePartialJson` (re-parse buffer, async)',
  async: true,
  failures: 0,
  async run(chunks) {
    let buffer = '';
    let value: JsonValue | undefined;
    let failures = 0;
    for (const chunk of chunks) {
      buffer += chunk;
      const result = await parsePartialJson(buffer);
      if (result.state === 'failed-parse') failures++;
      else value = result.value as JsonValue;
    }
    aiSdk.failures = failures;
    if (value === undefined) throw new Error('ai parsePartialJson produced no value');
    return value;
  },
};

/** Like-for-like with the re-parse approach: a partial value after every chunk. */
export const fragmentsSnapshot: Contender = {
  id: 'fragments+snapshot',
  label: 'argstream fragments + aggregator, `snapshot()` per chunk',
  async: false,
  run(chunks) {
    const parser = new IncrementalJsonParser();
    const aggregator = new FragmentAggregator();
    let root: JsonValue | undefined;
    for (const chunk of chunks) {
      for (const fragment of parser.push(chunk)) {
        const value = aggregator.push(fragment);
        if (value !== undefined) root = value;
      }
      aggregator.snapshot();
    }
    for (const fragment of parser.end()) {
      const value = aggregator.push(fragment);
      if (value !== undefined) root = value;
    }
    if (root === undefined) throw new Error('FragmentAggregator produced no root value');
    return root;
  },
};

/** Like-for-like with the re-parse approach: a partial value after every chunk. */
export const fusedSnapshot: Contender = {
  id: 'fused+snapshot',
  label: 'argstream fused, `snapshot()` per chunk',
  async: false,
  run(chunks) {
    const parser = new IncrementalJsonValueParser();
    for (const chunk of chunks) {
      parser.push(chunk);
      parser.snapshot();
    }
    return parser.end();
  },
};

/** The streaming contenders of the main table, in column order. */
export const STREAMING: readonly Contender[] = [fragments, fused, streamparser, jsonriver, jsonExt];

/** The re-parse approach: seconds per run, so timed apart from the incremental parsers. */
export const REPARSERS: readonly Contender[] = [partialJson, aiSdk];

/** argstream on the re-parse inputs, with and without a partial value after every chunk. */
export const INCREMENTAL: readonly Contender[] = [fragments, fused, fragmentsSnapshot, fusedSnapshot];

/** The re-parse comparison, in row order. */
export const REPARSE: readonly Contender[] = [...REPARSERS, ...INCREMENTAL];
