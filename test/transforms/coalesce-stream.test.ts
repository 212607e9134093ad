import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CoalesceStream,
  collectTurn,
  FieldEventParser,
  FieldEventStream,
  FragmentAggregator,
  JsonFragmentRebuilder,
  PathUpdateStream,
  ToolCallProgressStream,
  type PathUpdate,
  type PipelineEvent,
  type CoalesceInput,
  type FieldEvent,
  type StreamEvent,
  type StreamFragment,
  type ToolCallArgumentProgress,
  type ToolCallProgressStreamOutput,
} from '../../src/index.ts';
import { Coalescer } from '../../src/views/coalescer.ts';
import { args, cutAt, flush, readAll, start, streamOf } from '../helpers.ts';
import { JsonFragmentStream } from '../../src/transforms/json-fragment-stream.ts';
import { afterUpstreamError } from './upstream-error.ts';
import { cutsFor, jsonText, merged, parseFragments, show } from '../json/json-helpers.ts';
import { expectedArguments, readableRecordings, recordingEvents, toolSlotsInFlushOrder } from '../providers/event-stream-helpers.ts';

const textAndCuts = jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length)));
const NO_TIMER = { maxDelayMs: Infinity };

const str = (text: string): StreamFragment => ({ type: 'string', text });
const at = (key: string, value: StreamFragment): StreamFragment => ({ type: 'entry', key, value });
const progress = (index: number, fragment: StreamFragment): ToolCallArgumentProgress => ({ type: 'tool-call-progress', index, toolCallId: `call_${index}`, toolName: 'f', fragment });

/** Run items through the core (no timer) with a size budget (the core takes a finite one only). */
function coalesce<T>(items: readonly T[], maxChars = Number.MAX_SAFE_INTEGER): T[] {
  const core = new Coalescer<T>(maxChars);
  const out: T[] = [];
  for (const item of items) core.push(item, out);
  core.flush(out);
  return out;
}

/** The text of a progress event's string piece, if it is one. */
function placeOfText(event: PipelineEvent): string | undefined {
  if (event.type !== 'tool-call-progress') return undefined;
  let fragment = event.fragment;
  while (fragment.type === 'entry' || fragment.type === 'item') fragment = fragment.value;
  return fragment.type === 'string' ? fragment.text : undefined;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('CoalesceStream', () => {
  it('CoalesceStream merges the string pieces of one path and flushes at every structural boundary', async () => {
    const input: StreamFragment[] = [
      { type: 'start', kind: 'object' },
      at('a', { type: 'start', kind: 'string' }),
      at('a', str('he')),
      at('a', str('ll')),
      at('a', str('o')),
      at('a', { type: 'done' }),
      at('b', { type: 'scalar', value: 1, raw: '1' }),
      at('b', { type: 'done' }),
      { type: 'done' },
    ];
    const out = await readAll(streamOf(input).pipeThrough(new CoalesceStream<StreamFragment>(NO_TIMER)));
    expect(out.map(show)).toEqual([
      'start object',
      'entry a → start string',
      'entry a → string "hello"',
      'entry a → done',
      'entry b → scalar 1',
      'entry b → done',
      'done',
    ]);
    // Unmerged items pass through as the same objects.
    expect(out[0]).toBe(input[0]);
  });

  it('CoalesceStream emits what it holds once it reaches maxChars (a long piece at once)', () => {
    const pieces = ['ab', 'cd', 'e', 'fghijkl', 'm'].map((t) => at('a', str(t)));
    expect(coalesce(pieces, 4).map(show)).toEqual(['entry a → string "abcd"', 'entry a → string "efghijkl"', 'entry a → string "m"']);
  });

  it('CoalesceStream merges field deltas of one field, tool-call argument parts and message parts, keeping ids', () => {
    const delta = (key: string, text: string): FieldEvent => ({ type: 'field-delta', index: 0, toolCallId: 'c', toolName: 'f', key, text });
    const items: CoalesceInput[] = [
      { type: 'field-start', index: 0, toolCallId: 'c', toolName: 'f', key: 'p' },
      delta('p', 'a/'),
      delta('p', 'b'),
      { type: 'field-end', index: 0, toolCallId: 'c', toolName: 'f', key: 'p', string: true },
      args(1, '{"x'),
      args(1, '":1}'),
      { type: 'part', index: 2, part: { type: 'message', text: 'Hel' } },
      { type: 'part', index: 2, part: { type: 'message', text: 'lo' } },
      { type: 'part', index: 2, part: { type: 'message', text: '!' }, metadata: { choiceIndex: 0 } },
    ];
    expect(coalesce(items)).toEqual([
      { type: 'field-start', index: 0, toolCallId: 'c', toolName: 'f', key: 'p' },
      delta('p', 'a/b'),
      { type: 'field-end', index: 0, toolCallId: 'c', toolName: 'f', key: 'p', string: true },
      args(1, '{"x":1}'),
      { type: 'part', index: 2, part: { type: 'message', text: 'Hello' } },
      // A part with metadata is a boundary: its metadata would be lost in a merge.
      { type: 'part', index: 2, part: { type: 'message', text: '!' }, metadata: { choiceIndex: 0 } },
    ]);
  });

  it('CoalesceStream merges the pieces of each target between two boundaries, in the order of their first pieces, and moves nothing across a boundary', () => {
    const items: ToolCallProgressStreamOutput[] = [
      progress(0, str('a')),
      progress(0, str('b')),
      progress(1, str('x')),
      progress(0, str('c')),
      progress(0, str('d')),
      { type: 'flush', index: 1 },
      progress(0, str('e')),
      args(0, 'f'),
      args(0, 'g'),
    ];
    expect(coalesce(items)).toEqual([
      progress(0, str('abcd')),
      progress(1, str('x')),
      { type: 'flush', index: 1 },
      progress(0, str('e')),
      args(0, 'fg'),
    ]);
  });

  it('CoalesceStream merges a view\'s events and the progress it passes on between them, and partial-string updates that keep their relative paths', async () => {
    const input = [start(0, 'c', 'f'), args(0, '{"a":"x'), args(0, 'y'), args(0, 'z","b":"u'), args(0, 'v'), args(0, 'w"}'), flush(0)];
    const events = await readAll(streamOf(input).pipeThrough(new FieldEventStream()).pipeThrough(new PathUpdateStream()));
    const out = coalesce(events);
    const texts = (type: string) => out.filter((e) => e.type === type && ('text' in e || 'textValue' in e || (e.type === 'tool-call-progress' && placeOfText(e)))).map((e) => ('text' in e ? e.text : 'textValue' in e ? e.textValue : placeOfText(e)));
    expect(texts('field-delta')).toEqual(['xyz', 'uvw']);
    expect(out.filter((e) => e.type === 'path-update' && e.kind === 'partial-string').map((e) => (e as PathUpdate & { textValue: string }).textValue)).toEqual(['xyz', 'uvw']);
    expect(texts('tool-call-progress')).toEqual(['xyz', 'uvw']);
    // Over the wire, the merged updates rebuild the arguments.
    const rebuilder = new JsonFragmentRebuilder();
    for (const e of out) if (e.type === 'path-update') rebuilder.push(JSON.parse(JSON.stringify(e)) as PathUpdate);
    expect(rebuilder.value).toEqual({ a: 'xyz', b: 'uvw' });
  });

  it('CoalesceStream does not merge pieces of different paths, calls or ids', () => {
    const items = [at('a', str('1')), at('b', str('2')), progress(0, str('3')), progress(1, str('4')), { ...progress(1, str('5')), toolCallId: 'other' }];
    expect(coalesce(items as CoalesceInput[])).toEqual(items);
  });

  it('CoalesceStream emits held text maxDelayMs after its first piece, and keeps the order with what follows', async () => {
    vi.useFakeTimers();
    const stream = new CoalesceStream<StreamFragment>({ maxDelayMs: 16 });
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    const received: string[] = [];
    const pump = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received.push(show(value));
      }
    })();
    await writer.write(str('a'));
    await vi.advanceTimersByTimeAsync(10);
    await writer.write(str('b'));
    await vi.advanceTimersByTimeAsync(5);
    expect(received).toEqual([]); // 15 ms after the first piece: still held
    await vi.advanceTimersByTimeAsync(1);
    expect(received).toEqual(['string "ab"']);
    await writer.write(str('c'));
    await writer.write({ type: 'done' }); // a boundary: the held 'c' goes first, then the timer is cleared
    expect(received).toEqual(['string "ab"', 'string "c"', 'done']);
    expect(vi.getTimerCount()).toBe(0);
    await writer.close();
    await pump;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('CoalesceStream closes cleanly: flush emits what is held and leaves no timer', async () => {
    vi.useFakeTimers();
    const stream = new CoalesceStream<StreamFragment>({ maxDelayMs: 1000 });
    const output = readAll(stream.readable);
    const writer = stream.writable.getWriter();
    await writer.write(str('x'));
    await writer.write(str('y'));
    expect(vi.getTimerCount()).toBe(1);
    await writer.close();
    expect((await output).map(show)).toEqual(['string "xy"']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('CoalesceStream drops the text held when the reader cancels, its timer ends within maxDelayMs, and the source sees the cancel', async () => {
    vi.useFakeTimers();
    let cancelled: unknown;
    let sent = false;
    const source = new ReadableStream<StreamFragment>({
      pull(controller) {
        if (!sent) controller.enqueue(str('held'));
        sent = true;
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const reader = source.pipeThrough(new CoalesceStream<StreamFragment>({ maxDelayMs: 50 })).getReader();
    const read = reader.read();
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    await reader.cancel('gone');
    expect(await read).toEqual({ done: true, value: undefined });
    await vi.advanceTimersByTimeAsync(50);
    expect(vi.getTimerCount()).toBe(0);
    expect(cancelled).toBe('gone');
  });

  it('CoalesceStream refuses a maxChars below 1 or infinite (it is the cap), and a negative maxDelayMs', () => {
    expect(() => new CoalesceStream({ maxChars: 0 })).toThrow(RangeError);
    expect(() => new CoalesceStream({ maxChars: Infinity })).toThrow(RangeError);
    expect(() => new CoalesceStream({ maxDelayMs: Infinity })).not.toThrow();
    expect(() => new CoalesceStream({ maxDelayMs: -1 })).toThrow(RangeError);
    expect(() => new CoalesceStream({ maxChars: Number.NaN })).toThrow(RangeError);
  });

  it('CoalesceStream output, without a size limit, is the fragments with adjacent pieces of one path merged', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const { fragments } = parseFragments(cutAt(text, cuts));
        // `merged` (the engine tests' own normaliser) is the oracle.
        expect(coalesce(fragments).map((f) => merged([f])[0])).toEqual(merged(fragments));
      }),
      { numRuns: 300 },
    );
  });

  it('CoalesceStream output aggregates to JSON.parse of the input, for any size budget, through the stream', async () => {
    await fc.assert(
      fc.asyncProperty(textAndCuts, fc.integer({ min: 1, max: 12 }), async ([text, cuts], maxChars) => {
        const { fragments } = parseFragments(cutAt(text, cuts));
        const out = await readAll(streamOf(fragments).pipeThrough(new CoalesceStream<StreamFragment>({ maxChars, maxDelayMs: Infinity })));
        expect(out.length).toBeLessThanOrEqual(fragments.length);
        const aggregator = new FragmentAggregator();
        for (const fragment of out) aggregator.push(fragment);
        expect(aggregator.complete).toBe(true);
        expect(aggregator.snapshot()).toEqual(JSON.parse(text));
      }),
      { numRuns: 150 },
    );
  });

  it('CoalesceStream keeps the field deltas of every field concatenating to the same text', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const parser = new FieldEventParser();
        const events: FieldEvent[] = [];
        // One push per character: one delta per character, the worst case for an interface.
        for (const chunk of cutAt(text, cuts)) {
          for (const ch of chunk) parser.push(ch, events);
        }
        parser.end(events);
        const joined = (list: readonly FieldEvent[]) => list.map((e) => (e.type === 'field-delta' ? `+${e.text}` : `|${e.type} ${e.key}`)).join('').replace(/\|field-delta [^|+]*/g, '');
        const out = coalesce(events);
        expect(joined(out)).toBe(joined(events));
        // Between a field's start and end there is at most one delta now.
        for (let i = 1; i < out.length; i++) expect(out[i]?.type === 'field-delta' && out[i - 1]?.type === 'field-delta').toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});

describe('CoalesceStream on the provider recordings', () => {
  for (const recording of readableRecordings().filter((r) => r.toolCalls.length > 0)) {
    it(`CoalesceStream after ToolCallProgressStream keeps ${recording.file} assembling to the manifest's calls, in fewer events`, async () => {
      const events = await readAll(recordingEvents(recording).pipeThrough(new ToolCallProgressStream()));
      const out = await readAll(streamOf(events).pipeThrough(new CoalesceStream<ToolCallProgressStreamOutput>(NO_TIMER)));
      expect(out.length).toBeLessThanOrEqual(events.length);
      // No argument part is left to merge: the progress replaced them.
      expect(out.some((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toBe(false);
      // The progress fragments of each call aggregate to its arguments (calls in the order of their conversation events, which replaced their flushes).
      const slots = out.flatMap((e) => (e.type === 'tool-call' || e.type === 'tool-call-incomplete' ? [e.index] : []));
      // Every call (by its tool-call-start) has exactly one.
      expect([...slots].sort()).toEqual(toolSlotsInFlushOrder(events).sort());
      const values = slots.map((index) => {
        const aggregator = new FragmentAggregator();
        for (const e of out) if (e.type === 'tool-call-progress' && e.index === index) aggregator.push(e.fragment);
        return aggregator.snapshot() ?? {};
      });
      const complete = recording.toolCalls.filter((c) => !c.remark?.startsWith('NOT valid JSON'));
      if (complete.length === recording.toolCalls.length) expect(values).toEqual(recording.toolCalls.map((c) => expectedArguments(c.args)));
      // The output (merged progress, the calls' tool-call events) still makes the same turn.
      const turn = await collectTurn(streamOf(out));
      expect(turn.toolCalls.map((c) => [c.toolName, c.arguments])).toEqual(complete.map((c) => [c.name, expectedArguments(c.args)]));
    });
  }
});

describe('CoalesceStream when the stage before it fails', () => {
  it('CoalesceStream merges held text up to a boundary, and gives a slow reader the upstream error itself after a prefix of it', async () => {
    // The pieces are held; the `done` after them sends out the merged text and itself at once.
    const fragments = await readAll(streamOf(['"ab', 'cd', 'ef"']).pipeThrough(new JsonFragmentStream()));
    const { expected, values, error, upstream } = await afterUpstreamError(fragments, () => new CoalesceStream({ maxDelayMs: Infinity }));
    expect(expected).toEqual([{ type: 'start', kind: 'string' }, { type: 'string', text: 'abcdef' }, { type: 'done' }]);
    expect(values).toEqual(expected.slice(0, values.length));
    expect(error).toBe(upstream);
  });
});
