import { describe, expect, it } from 'vitest';
import { IncrementalJsonParser } from '../../src/json/incremental-json-parser.ts';
import { JsonFragmentStream } from '../../src/transforms/json-fragment-stream.ts';
import { PathUpdateStream, type PathUpdateStreamOutput } from '../../src/transforms/path-update-stream.ts';
import { PathUpdateEncoder } from '../../src/views/path-update-encoder.ts';
import { ToolCallProgressStream } from '../../src/transforms/tool-call-progress-stream.ts';
import { JsonFragmentRebuilder } from '../../src/sinks/json-fragment-rebuilder.ts';
import { ToolCallRebuilder } from '../../src/sinks/tool-call-rebuilder.ts';
import { NdjsonDecoder, NdjsonEncoder } from '../../src/relay/ndjson.ts';
import type { PathUpdate, StreamEvent, StreamFragment } from '../../src/types.ts';
import { args, flush, readAll, settle, start, streamOf } from '../helpers.ts';
import { afterUpstreamError } from './upstream-error.ts';
import { note, updatesOf, updatesPerChunk } from '../views/path-update-helpers.ts';


describe('PathUpdateStream', () => {
  it('PathUpdateStream turns a stream of fragments into the updates of one document, the fragments passed on before their updates', async () => {
    const fragments = await readAll(streamOf(['{"a":[1', ',"x"]}']).pipeThrough(new JsonFragmentStream()));
    const out = await readAll(streamOf(fragments).pipeThrough(new PathUpdateStream({ relativePaths: false })));
    expect(out.filter((e) => e.type !== 'path-update')).toEqual(fragments);
    expect(out.slice(0, 3).map((e) => e.type)).toEqual(['start', 'path-update', 'entry']);
    const updates = await readAll(streamOf(fragments).pipeThrough(new PathUpdateStream({ relativePaths: false, keepProgress: false })));
    expect(updates).toEqual(out.filter((e) => e.type === 'path-update'));
    expect((updates as PathUpdate[]).map(note)).toEqual([
      'start-object ""',
      'key "/a" "a"',
      'start-array "/a"',
      'complete-number "/a/0" 1',
      'start-string "/a/1"',
      'partial-string "/a/1" "x"',
      'complete-string "/a/1"',
      'end-array "/a"',
      'end-object ""',
      'json-complete ""',
    ]);
  });

  describe('PathUpdateStream on tool calls', () => {
    const events: StreamEvent[] = [
      start(1, 'call_a', 'write_file'),
      start(2, 'call_b', 'read_file'),
      args(1, '{"path":"a'),
      args(2, '{"path":"b"}'),
      args(1, '.txt"}'),
      flush(1),
      flush(2),
      { type: 'finished', reason: 'tool-calls' },
    ];
    const show = (out: readonly PathUpdateStreamOutput[]) =>
      out.map((item) => (item.type === 'path-update' ? `${item.toolCallId}#${item.index} ${note(item)}` : `${item.type}${'index' in item ? ` ${item.index}` : ''}`));
    /**
     * With `keepProgress: false`: the progress replaced by updates; tool-call-start parts, the
     * calls' tool-call events (in place of their flushes) and finished in place.
     */
    const expected = [
      'part 1',
      'part 2',
      'call_a#1 start-object ""',
      'call_a#1 key "/path" "path"',
      'call_a#1 start-string "/path"',
      'call_a#1 partial-string "/path" "a"',
      'call_b#2 start-object ""',
      'call_b#2 key "/path" "path"',
      'call_b#2 start-string "/path"',
      'call_b#2 partial-string "/path" "b"',
      'call_b#2 complete-string "/path"',
      'call_b#2 end-object ""',
      'call_b#2 json-complete ""',
      'call_a#1 partial-string "/path" ".txt"',
      'call_a#1 complete-string "/path"',
      'call_a#1 end-object ""',
      'call_a#1 json-complete ""',
      'tool-call 1',
      'tool-call 2',
      'finished',
    ];

    it('PathUpdateStream with keepProgress: false replaces progress events by updates carrying toolCallId and index, and passes other events through in place', async () => {
      const out = await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()).pipeThrough(new PathUpdateStream({ relativePaths: false, keepProgress: false })));
      expect(show(out)).toEqual(expected);
      expect(out[2]).toEqual({ type: 'path-update', toolCallId: 'call_a', index: 1, kind: 'start-object', path: '' });
      expect(out[0]).toEqual(events[0]);
      expect(out.slice(-3)).toEqual([
        { type: 'tool-call', index: 1, toolCallId: 'call_a', toolName: 'write_file', arguments: { path: 'a.txt' } },
        { type: 'tool-call', index: 2, toolCallId: 'call_b', toolName: 'read_file', arguments: { path: 'b' } },
        { type: 'finished', reason: 'tool-calls' },
      ]);
    });

    it('PathUpdateStream with keepProgress: false parses raw argument parts itself when no progress stage came before: the same output', async () => {
      const out = await readAll(streamOf(events).pipeThrough(new PathUpdateStream({ relativePaths: false, keepProgress: false })));
      expect(show(out)).toEqual(expected);
      expect(out.some((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toBe(false);
    });

    it('PathUpdateStream keeps each progress event before its updates by default, after a progress stage or not', async () => {
      for (const out of [
        await readAll(streamOf(events).pipeThrough(new PathUpdateStream({ relativePaths: false }))),
        await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()).pipeThrough(new PathUpdateStream({ relativePaths: false }))),
      ]) {
        expect(show(out.filter((e) => e.type !== 'tool-call-progress'))).toEqual(expected);
        expect(show(out.slice(2, 6))).toEqual(['tool-call-progress 1', 'call_a#1 start-object ""', 'tool-call-progress 1', 'call_a#1 key "/path" "path"']);
      }
    });
  });

  it('PathUpdateStream starts a new document for a slot after its flush', async () => {
    const progress = (fragment: StreamFragment) => ({ type: 'tool-call-progress' as const, index: 0, toolCallId: 'c', toolName: 't', fragment });
    const out = await readAll(
      streamOf([
        progress({ type: 'start', kind: 'array' }),
        flush(0),
        progress({ type: 'start', kind: 'object' }),
        progress({ type: 'done' }),
      ]).pipeThrough(new PathUpdateStream({ keepProgress: false })),
    );
    expect(out.map((u) => (u.type === 'path-update' ? note(u) : u.type))).toEqual([
      'start-array ""',
      'flush',
      'start-object ""',
      'end-object ""',
      'json-complete ""',
    ]);
  });

  it('PathUpdateStream delivers the updates made before fragments out of order, then errors both ends', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<StreamFragment>({
      start(controller) {
        controller.enqueue({ type: 'start', kind: 'object' });
        controller.enqueue({ type: 'entry', key: 'a', value: { type: 'scalar', value: 1 } });
        controller.enqueue({ type: 'string', text: 'stray' });
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const { values, error } = await settle(source.pipeThrough(new PathUpdateStream({ relativePaths: false, keepProgress: false })));
    expect((values as PathUpdate[]).map(note)).toEqual(['start-object ""', 'key "/a" "a"', 'complete-number "/a" 1']);
    expect(error).toBeInstanceOf(TypeError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toBe(error);
  });

  it('PathUpdateStream passes cancellation to its source', async () => {
    let cancelled: unknown;
    const parser = new IncrementalJsonParser();
    const fragments = parser.push('[1,2,3,4]');
    let i = 0;
    const source = new ReadableStream<StreamFragment>({
      pull(controller) {
        controller.enqueue(fragments[i++] as StreamFragment);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const reader = source.pipeThrough(new PathUpdateStream()).getReader();
    await reader.read();
    await reader.cancel('enough');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toBe('enough');
  });
});

describe('PathUpdateStream when the stage before it fails', () => {
  it('PathUpdateStream gives a slow reader the upstream error itself, after a prefix of its updates (its queue dropped, as the standard says)', async () => {
    const DOC = ['{"a":"xy', 'z","b":[1,2]', ',"c":{"d":true}}'];
    const fragments = await readAll(streamOf(DOC).pipeThrough(new JsonFragmentStream()));
    const { expected, values, error, upstream } = await afterUpstreamError(fragments, () => new PathUpdateStream());
    expect(values).toEqual(expected.slice(0, values.length));
    expect(expected.at(-1)).toMatchObject({ kind: 'json-complete' });
    expect(error).toBe(upstream);
  });
});

describe('PathUpdateStream relative paths (the default)', () => {
  // One 100 KB key over 10,000 numbers: absolute paths repeat the key in every update below it.
  const key = 'k'.repeat(100_000);
  const numbers = `[${Array.from({ length: 10_000 }, (_, i) => String(i)).join(',')}]`;
  const document = `{"${key}":${numbers}}`;
  const serialized = (updates: readonly unknown[]) => updates.reduce<number>((size, update) => size + JSON.stringify(update).length + 1, 0);

  const encode = (text: string) => {
    const parser = new IncrementalJsonParser();
    const encoder = new PathUpdateEncoder();
    const updates: PathUpdate[] = [];
    for (const fragment of [...parser.push(text), ...parser.end()]) encoder.push(fragment, updates);
    return updates;
  };

  it('PathUpdateEncoder by default sends a long key about twice, not once per update below it', () => {
    expect(document.length).toBeGreaterThan(145_000);
    const short = encode(document);
    // Absolute paths made more than 7.5 M characters of this 149 KB document.
    expect(serialized(short)).toBeLessThanOrEqual(8 * document.length);
    // The key costs what its two copies (the key update's path and text) cost, whatever is below it.
    expect(serialized(short)).toBeLessThanOrEqual(serialized(encode(`{"k":${numbers}}`)) + 2 * key.length + 100);
    // Only the first update (the root) and the key's own update carry the key; then `0`, `0/0`, `1/1`, …
    expect(short.slice(0, 5).map((u) => [u.kind, u.path.length > 20 ? `${u.path.slice(0, 4)}…(${u.path.length})` : u.path])).toEqual([
      ['start-object', ''],
      ['key', '/kkk…(100001)'],
      ['start-array', '0'],
      ['complete-number', '0/0'],
      ['complete-number', '1/1'],
    ]);
    expect(short.slice(-3).map((u) => [u.kind, u.path])).toEqual([
      ['end-array', '1'],
      ['end-object', ''],
      ['json-complete', ''],
    ]);
    const rebuilder = new JsonFragmentRebuilder();
    for (const update of short) rebuilder.push(JSON.parse(JSON.stringify(update)) as PathUpdate);
    expect(rebuilder.isComplete()).toBe(true);
    expect(rebuilder.value).toEqual(JSON.parse(document));
  });

  it('PathUpdateStream with relative paths relays tool calls through NDJSON to a ToolCallRebuilder unchanged', async () => {
    const nested = '{"a":{"b~/c":[1,{"d":"x"},[true,null]],"e":"long string"},"f":-0}';
    const events: StreamEvent[] = [start(0, 'c0', 'f'), start(1, 'c1', 'g')];
    // Two calls interleaved, one character at a time: each call's paths are relative to its own.
    for (let i = 0; i < document.length; i += 997) {
      if (i < nested.length) events.push(args(0, nested.slice(i, i + 997)));
      events.push(args(1, document.slice(i, i + 997)));
    }
    events.push(flush(0), flush(1));
    const bytes = streamOf(events).pipeThrough(new PathUpdateStream()).pipeThrough(new NdjsonEncoder());
    const decoded = await readAll(bytes.pipeThrough(new NdjsonDecoder()));
    const updates = decoded.filter((e) => e.type === 'path-update') as PathUpdate[];
    expect(updates.some((u) => u.path !== '' && !u.path.startsWith('/'))).toBe(true);
    const rebuilder = new ToolCallRebuilder();
    // A call is released at its json-complete: keep each call's final view as push returns it.
    const done = new Map<string, { source: string | undefined; value: unknown }>();
    for (const event of decoded) {
      const call = rebuilder.push(event);
      if (call?.isComplete() === true) done.set(call.toolCallId, { source: call.source, value: call.value });
    }
    expect(done.get('c0')).toEqual({ source: 'updates', value: JSON.parse(nested) });
    expect(Object.is((done.get('c0')?.value as { f: number }).f, -0)).toBe(true);
    expect(done.get('c1')).toEqual({ source: 'updates', value: JSON.parse(document) });
  });
});

describe('PathUpdateStream paths: relative by default, absolute on request', () => {
  const text = '{"files":[{"path":"a.ts","lines":[1,2]},{"path":"b.ts"}],"n":3}';

  it('PathUpdateStream sends relative paths by default and absolute ones with relativePaths: false; both rebuild the value', async () => {
    const run = (options: { relativePaths?: boolean } = {}) =>
      readAll(streamOf([text]).pipeThrough(new JsonFragmentStream()).pipeThrough(new PathUpdateStream({ ...options, keepProgress: false })));
    const relative = (await run()) as PathUpdate[];
    const absolute = (await run({ relativePaths: false })) as PathUpdate[];
    expect(absolute.map((u) => u.path)).toContain('/files/1/path');
    expect(absolute.every((u) => u.path === '' || u.path.startsWith('/'))).toBe(true);
    // `key /files/0/lines` after `/files/0/path` is `1/lines`; its start-array is `0`; its items `0/0`, `1/1`.
    const notes = relative.map(note);
    expect(notes.slice(notes.indexOf('key "1/lines" "lines"'), notes.indexOf('key "1/lines" "lines"') + 5)).toEqual([
      'key "1/lines" "lines"',
      'start-array "0"',
      'complete-number "0/0" 1',
      'complete-number "1/1" 2',
      'end-array "1"',
    ]);
    for (const updates of [relative, absolute]) {
      const rebuilder = new JsonFragmentRebuilder();
      for (const update of updates) rebuilder.push(JSON.parse(JSON.stringify(update)) as PathUpdate);
      expect(rebuilder.value).toEqual(JSON.parse(text));
    }
    expect(relative.length).toBe(absolute.length);
  });

  it('PathUpdateEncoder gives deep documents (lazy fragments past depth 8) the same updates as shallow wrappers would', () => {
    const deep = '['.repeat(40) + '{"k":[1,"x",{"a/b":true}],"m":null}' + ']'.repeat(40);
    const absolute = updatesOf(deep);
    const prefix = '/0'.repeat(39);
    expect(absolute.map(note)).toContain(`complete-boolean "${prefix}/0/k/2/a~1b" true`);
    // The same updates from plain fragments a user built (walked wrapper by wrapper).
    const parser = new IncrementalJsonParser();
    const encoder = new PathUpdateEncoder({ relativePaths: false });
    const plain: PathUpdate[] = [];
    for (const fragment of [...parser.push(deep), ...parser.end()]) encoder.push(JSON.parse(JSON.stringify(fragment)) as StreamFragment, plain);
    expect(plain).toEqual(absolute);
    const rebuilder = new JsonFragmentRebuilder();
    for (const update of updatesPerChunk([deep], {}).flat()) rebuilder.push(update);
    expect(rebuilder.value).toEqual(JSON.parse(deep));
  });
});
