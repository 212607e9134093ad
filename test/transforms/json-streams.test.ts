import { describe, expect, it } from 'vitest';
import {
  FragmentAggregator,
  FragmentValueStream,
  JsonFragmentStream,
  JsonStreamError,
  JsonValueStream,
  type StreamFragment,
} from '../../src/index.ts';
import { oneByOne, readAll, readFixture, recordingSource, settle, streamOf } from '../helpers.ts';
import { afterUpstreamError } from './upstream-error.ts';
import { show } from '../json/json-helpers.ts';

describe('JsonFragmentStream', () => {
  it('JsonFragmentStream turns UTF-8 bytes cut anywhere into fragments that aggregate to the value', async () => {
    const text = '{"path":"src/ü.rs","content":"fn main() {\\n\\tprintln!(\\"😀\\");\\n}"}';
    const bytes = new TextEncoder().encode(text);
    const fragments = await readAll(streamOf(oneByOne(bytes)).pipeThrough(new JsonFragmentStream()));
    const aggregator = new FragmentAggregator();
    let value;
    for (const fragment of fragments) value = aggregator.push(fragment) ?? value;
    expect(value).toEqual(JSON.parse(text));
    expect(show(fragments[0]!)).toBe('start object');
  });

  it('JsonFragmentStream delivers the fragments before an error, then errors with a JsonStreamError', async () => {
    const { values, error } = await settle(streamOf(['{"a":"x', 'y",,']).pipeThrough(new JsonFragmentStream()));
    expect(values.map(show)).toEqual(['start object', 'entry a → start string', 'entry a → string "x"', 'entry a → string "y"', 'entry a → done']);
    expect(error).toBeInstanceOf(JsonStreamError);
    expect((error as JsonStreamError).offset).toBe(10);
  });

  it('JsonFragmentStream errors with unexpected-end when the input stops inside the document', async () => {
    const { values, error } = await settle(streamOf(['{"a":[1']).pipeThrough(new JsonFragmentStream()));
    // The number is complete at the end of input; the array and the object are not.
    expect(values.map(show)).toEqual(['start object', 'entry a → start array', 'entry a → item 0 → scalar 1', 'entry a → item 0 → done']);
    expect((error as JsonStreamError).code).toBe('unexpected-end');
    expect((error as JsonStreamError).path).toBe('/a');
  });

  it('JsonFragmentStream propagates a parse error to both ends: the source is cancelled', async () => {
    const { stream, log } = recordingSource(['[1,', 'x', ']', '[']);
    const { error } = await settle(stream.pipeThrough(new JsonFragmentStream()));
    expect((error as JsonStreamError).code).toBe('invalid-json');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log.cancelled).toBe(error);
    expect(log.pullsAfterEnd).toBe(0);
  });

  it('JsonFragmentStream passes cancellation by the consumer back to the source', async () => {
    const { stream, log } = recordingSource(['["a', 'b', 'c', 'd"]']);
    const reader = stream.pipeThrough(new JsonFragmentStream()).getReader();
    await reader.read();
    await reader.cancel('user went away');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log.cancelled).toBe('user went away');
  });

  it('JsonFragmentStream parses a recorded JSONTestSuite case from bytes', async () => {
    const bytes = readFixture('jsontestsuite/test_parsing/y_string_accepted_surrogate_pairs.json');
    const fragments = await readAll(streamOf(oneByOne(bytes)).pipeThrough(new JsonFragmentStream()));
    const aggregator = new FragmentAggregator();
    let value;
    for (const f of fragments) value = aggregator.push(f) ?? value;
    expect(value).toEqual(JSON.parse(new TextDecoder().decode(bytes)));
  });
});

describe('JsonValueStream', () => {
  it('JsonValueStream emits the final value as soon as the root completes', async () => {
    const stream = streamOf(['{"a":', '1}', '  ']).pipeThrough(new JsonValueStream());
    expect(await readAll(stream)).toEqual([{ value: { a: 1 }, complete: true }]);
  });

  it('JsonValueStream emits a snapshot per chunk that changed the value, on request', async () => {
    const seen: unknown[] = [];
    const stream = streamOf(['{"path":"src/ma', 'in.rs","n":', '1', '2', '}']).pipeThrough(new JsonValueStream({ snapshots: true }));
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.push(structuredClone(value)); // snapshots are live: clone to keep
    }
    expect(seen).toEqual([
      { value: { path: 'src/ma' }, complete: false },
      { value: { path: 'src/main.rs' }, complete: false },
      { value: { path: 'src/main.rs', n: 12 }, complete: true },
    ]);
  });

  it('JsonValueStream errors on trailing garbage after the value, and on an incomplete document', async () => {
    const trailing = await settle(streamOf(['[1] x']).pipeThrough(new JsonValueStream()));
    expect(trailing.values).toEqual([{ value: [1], complete: true }]);
    expect((trailing.error as JsonStreamError).code).toBe('invalid-json');
    const cut = await settle(streamOf(['{"a":"b']).pipeThrough(new JsonValueStream({ snapshots: true })));
    expect(cut.values).toEqual([{ value: { a: 'b' }, complete: false }]);
    expect((cut.error as JsonStreamError).code).toBe('unexpected-end');
  });
});

describe('FragmentValueStream', () => {
  it('FragmentValueStream aggregates a fragment stream, with snapshots on request', async () => {
    const stream = streamOf(['["a', 'b",', '1]'])
      .pipeThrough(new JsonFragmentStream())
      .pipeThrough(new FragmentValueStream({ snapshots: true }));
    const seen: unknown[] = [];
    for (const v of await readAll(stream)) seen.push(JSON.stringify(v));
    expect(seen[seen.length - 1]).toBe(JSON.stringify({ value: ['ab', 1], complete: true }));
    expect(seen.length).toBeGreaterThan(2);
  });

  it('FragmentValueStream errors when the fragments end before the value is complete', async () => {
    const fragments: StreamFragment[] = [{ type: 'start', kind: 'array' }];
    const { error } = await settle(streamOf(fragments).pipeThrough(new FragmentValueStream()));
    expect(error).toBeInstanceOf(TypeError);
  });
});

describe('JsonFragmentStream when the stage before it fails', () => {
  const DOC = ['{"a":"xy', 'z","b":[1,2]', ',"c":{"d":true}}'];

  it('JsonFragmentStream gives a slow reader the upstream error itself, after a prefix of its fragments (its queue dropped, as the standard says)', async () => {
    const { expected, values, error, upstream } = await afterUpstreamError(DOC, () => new JsonFragmentStream());
    expect(values).toEqual(expected.slice(0, values.length));
    expect(error).toBe(upstream);
  });
});

describe('immutableSnapshots in the value streams', () => {
  /** Every container of a value, by JSON Pointer. */
  function containers(value: unknown, path = '', out = new Map<string, object>()): Map<string, object> {
    if (typeof value === 'object' && value !== null) {
      out.set(path, value);
      for (const [key, child] of Object.entries(value)) containers(child, `${path}/${key}`, out);
    }
    return out;
  }

  const text = '{"files":[{"path":"a.ts","lines":[1,2]},{"path":"b.ts","lines":[3]}],"note":"done"}';
  const chunks = text.match(/.{1,7}/g) as string[];
  const pipelines: ReadonlyArray<readonly [string, () => ReadableStream<{ value: unknown; complete: boolean }>]> = [
    ['JsonValueStream', () => streamOf(chunks).pipeThrough(new JsonValueStream({ snapshots: true, immutableSnapshots: true }))],
    [
      'JsonFragmentStream → FragmentValueStream',
      () => streamOf(chunks).pipeThrough(new JsonFragmentStream()).pipeThrough(new FragmentValueStream({ snapshots: true, immutableSnapshots: true })),
    ],
  ];
  for (const [name, run] of pipelines) {
    it(`${name} with immutableSnapshots hands out snapshots, never changed afterwards, that share every unchanged container (Object.is per path)`, async () => {
      const values = await readAll(run());
      const snapshots = values.filter((v) => !v.complete).map((v) => v.value);
      expect(snapshots.length).toBeGreaterThan(3);
      const clones = snapshots.map((s) => structuredClone(s));
      let shared = 0;
      for (let i = 1; i < snapshots.length; i++) {
        // A container whose content did not change is the same object; one that changed is new.
        const before = containers(snapshots[i - 1]);
        const after = containers(snapshots[i]);
        for (const [path, node] of before) {
          const next = after.get(path);
          if (next === undefined) continue;
          const same = JSON.stringify(node) === JSON.stringify(next);
          expect(Object.is(node, next), `${path} at snapshot ${i}: ${JSON.stringify(node)} → ${JSON.stringify(next)}`).toBe(same);
          if (same) shared++;
        }
      }
      expect(shared).toBeGreaterThan(0);
      // Nothing handed out was changed afterwards.
      expect(snapshots).toEqual(clones);
      expect(values[values.length - 1]).toEqual({ value: JSON.parse(text), complete: true });
    });
  }
});
