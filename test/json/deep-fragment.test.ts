import { describe, expect, it } from 'vitest';
import {
  CoalesceStream,
  FieldEventParser,
  FragmentAggregator,
  IncrementalJsonParser,
  JsonTextStream,
  type FieldEvent,
  type StreamFragment,
} from '../../src/index.ts';
import { cuttings, readAll, streamOf } from '../helpers.ts';

/** Every fragment of `text` cut as `chunks`. */
function fragmentsOf(chunks: readonly string[]): StreamFragment[] {
  const parser = new IncrementalJsonParser();
  const out: StreamFragment[] = [];
  for (const chunk of chunks) parser.push(chunk, out);
  parser.end(out);
  return out;
}

/** The same fragments as plain data, wrapper by wrapper (what a user who builds fragments has). */
const plain = (fragments: readonly StreamFragment[]): StreamFragment[] => JSON.parse(JSON.stringify(fragments)) as StreamFragment[];

/** The plain fragment of `leaf` under `steps` (a key or an index per level). */
function wrap(steps: ReadonlyArray<string | number>, leaf: StreamFragment): StreamFragment {
  let fragment = leaf;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as string | number;
    fragment = typeof step === 'number' ? { type: 'item', index: step, value: fragment } : { type: 'entry', key: step, value: fragment };
  }
  return fragment;
}

const DEEP = '{"a":' + '['.repeat(30) + '{"k":"v\\u00e9","n":[1,-7.5,2e3,true,null],"s":{}}' + ']'.repeat(30) + ',"z":"end"}';

describe('fragments of deep values', () => {
  it('a fragment 31 levels down reads as the plain nested fragment: value, JSON, spread, structuredClone, deep equality', () => {
    const fragments = fragmentsOf([DEEP]);
    const steps = ['a', ...Array<number>(30).fill(0), 'n', 1];
    const expected = wrap(steps, { type: 'scalar', value: -7.5, raw: '-7.5' });
    const found = fragments.find((f) => JSON.stringify(f) === JSON.stringify(expected));
    expect(found).toBeDefined();
    const fragment = found as StreamFragment;
    expect(fragment).toEqual(expected);
    expect({ ...fragment }).toEqual(expected);
    expect(structuredClone(fragment)).toEqual(expected);
    expect(Object.keys(fragment)).toEqual(['type', 'key', 'value']);
    // Walking it wrapper by wrapper reaches the leaf; the inner wrappers are built once.
    let leaf: StreamFragment = fragment;
    let depth = 0;
    while (leaf.type === 'entry' || leaf.type === 'item') {
      leaf = leaf.value;
      depth++;
    }
    expect([depth, leaf]).toEqual([steps.length, { type: 'scalar', value: -7.5, raw: '-7.5' }]);
    expect((fragment as { value: unknown }).value).toBe((fragment as { value: unknown }).value);
  });

  it('a fragment past depth 8 builds its inner wrappers only when its value is read', () => {
    const fragments = fragmentsOf(['['.repeat(200) + '1' + ']'.repeat(200)]);
    const deepest = fragments.find((f) => JSON.stringify(f).includes('"scalar"')) as StreamFragment;
    const descriptor = Object.getOwnPropertyDescriptor(deepest, 'value');
    expect(typeof descriptor?.get).toBe('function');
    expect(descriptor?.enumerable).toBe(true);
    // A shallow fragment is a plain object with a data property.
    const shallow = fragmentsOf(['[[1]]']).find((f) => JSON.stringify(f).includes('"scalar"')) as StreamFragment;
    expect(Object.getOwnPropertyDescriptor(shallow, 'value')?.get).toBeUndefined();
  });

  it('the aggregator, the field parser and JsonTextStream read deep fragments as they read plain ones, under every cutting', async () => {
    for (const [, chunks] of cuttings(DEEP)) {
      const lazy = fragmentsOf(chunks);
      const copies = plain(lazy);
      for (const list of [lazy, copies]) {
        const aggregator = new FragmentAggregator();
        let value: unknown;
        for (const fragment of list) value = aggregator.push(fragment) ?? value;
        expect(value).toEqual(JSON.parse(DEEP));
        const fields = new FieldEventParser();
        const events: FieldEvent[] = [];
        for (const fragment of list) fields.pushFragment(fragment, events);
        const a = events.filter((e) => e.type === 'field-delta' && e.key === 'a').map((e) => (e as { text: string }).text).join('');
        expect(JSON.parse(a)).toEqual(JSON.parse(DEEP).a);
        const text = (await readAll(streamOf(list).pipeThrough(new JsonTextStream()))).join('');
        expect(JSON.parse(text)).toEqual(JSON.parse(DEEP));
      }
    }
  });

  it('CoalesceStream joins the string pieces of a deep path into one deep fragment with the whole text', async () => {
    const text = '['.repeat(20) + '"' + 'abc'.repeat(50) + '"' + ']'.repeat(20);
    const chunks = text.match(/[^]{1,7}/g) as string[];
    const parser = new IncrementalJsonParser();
    // Each chunk's fragments as one input batch, as a stage would enqueue them.
    const batches = chunks.map((chunk) => parser.push(chunk));
    batches.push(parser.end());
    const out = await readAll(streamOf(batches.flat()).pipeThrough(new CoalesceStream({ maxDelayMs: 0, maxChars: 1 << 20 })));
    const strings = out.filter((f) => JSON.stringify(f).includes('"type":"string"'));
    expect(strings.length).toBeLessThan(chunks.length);
    const aggregator = new FragmentAggregator();
    let value: unknown;
    for (const fragment of out) value = aggregator.push(fragment) ?? value;
    expect(value).toEqual(JSON.parse(text));
    expect(strings[0]).toEqual(wrap(Array<number>(20).fill(0), { type: 'string', text: JSON.stringify(strings[0]).match(/"text":"([a-c]*)"/)?.[1] ?? '' }));
  });
});
