import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolCallArgumentsError } from '../../src/errors.ts';
import { ToolCallRebuilder, type RebuiltToolCall, type ToolCallRebuilderInput } from '../../src/sinks/tool-call-rebuilder.ts';
import { PathUpdateStream } from '../../src/transforms/path-update-stream.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { ToolCallProgressStream } from '../../src/transforms/tool-call-progress-stream.ts';
import type { FailedToolCallEvent, IncompleteToolCallEvent, PathUpdate, StreamEvent } from '../../src/types.ts';
import { args, cutAt, flush, readAll, start, streamOf } from '../helpers.ts';
import { type ManifestRecording } from '../manifest.ts';
import { cutsFor, jsonText } from '../json/json-helpers.ts';
import { overTheWire } from '../views/path-update-helpers.ts';
import { readableRecordings, recordingEvents } from '../providers/event-stream-helpers.ts';

const u = (toolCallId: string | undefined, index: number | undefined, kind: PathUpdate['kind'], path: string, payload: Record<string, unknown> = {}) =>
  ({
    type: 'path-update',
    ...(toolCallId === undefined ? {} : { toolCallId }),
    ...(index === undefined ? {} : { index }),
    kind,
    path,
    ...payload,
  }) as PathUpdate;

/**
 * The events of ToolCallProgressStream → PathUpdateStream over `events`, through JSON: the
 * argument parts are replaced by updates and each flush by the call's `tool-call` event. With
 * `rawText`, ConversationEventStream({progress, passthrough}) → PathUpdateStream instead: the raw
 * parts and flushes stay, each chunk after the updates it made.
 */
async function withUpdates(events: readonly StreamEvent[], rawText = false): Promise<ToolCallRebuilderInput[]> {
  const progress = rawText ? new ConversationEventStream({ progress: true, passthrough: true }) : new ToolCallProgressStream();
  // What a relay to a browser sends: the updates without the progress they were made from.
  return overTheWire(await readAll(streamOf(events).pipeThrough(progress).pipeThrough(new PathUpdateStream({ keepProgress: false }))));
}

describe('ToolCallRebuilder', () => {
  it('ToolCallRebuilder keys interleaved calls by id and releases each when it completes', () => {
    const calls = new ToolCallRebuilder();
    calls.push(u('call_a', undefined, 'start-object', ''));
    calls.push(u('call_b', undefined, 'start-array', ''));
    calls.push(u('call_a', undefined, 'key', '/path', { textValue: 'path' }));
    calls.push(u('call_a', undefined, 'start-string', '/path'));
    calls.push(u('call_b', undefined, 'complete-number', '/0', { value: 1, raw: '1' }));
    calls.push(u('call_a', undefined, 'partial-string', '/path', { textValue: '/tmp/x' }));
    expect(calls.get('call_a')?.value).toEqual({ path: '/tmp/x' });
    expect(calls.get('call_b')?.value).toEqual([1]);
    expect(calls.size).toBe(2);
    calls.push(u('call_b', undefined, 'end-array', ''));
    const b = calls.push(u('call_b', undefined, 'json-complete', ''));
    expect(b).toMatchObject({ toolCallId: 'call_b', state: 'complete', source: 'updates', value: [1] });
    expect(b?.isComplete()).toBe(true);
    expect(calls.get('call_b')).toBeUndefined();
    expect(calls.size).toBe(1);
    calls.push(u('call_a', undefined, 'complete-string', '/path'));
    calls.push(u('call_a', undefined, 'end-object', ''));
    const a = calls.push(u('call_a', undefined, 'json-complete', ''));
    expect(a?.value).toEqual({ path: '/tmp/x' });
    expect(calls.size).toBe(0);
  });

  it('ToolCallRebuilder falls back to the index when the id is missing, and adopts an id that arrives later', () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(0, '', 'get_weather'));
    calls.push(u('', 0, 'start-object', ''));
    calls.push(u('', 1, 'start-array', ''));
    expect(calls.get(0)?.toolName).toBe('get_weather');
    expect(calls.get(0)?.value).toEqual({});
    expect(calls.get(1)?.value).toEqual([]);
    calls.push(u('call_late', 0, 'key', '/city', { textValue: 'city' }));
    calls.push(u('call_late', 0, 'complete-null', '/city', { value: null }));
    expect(calls.get('call_late')).toBe(calls.get(0));
    expect(calls.get(0)).toMatchObject({ toolCallId: 'call_late', index: 0, value: { city: null } });
    expect(calls.size).toBe(2);
  });

  it('ToolCallRebuilder treats a different id at a known slot as another call', () => {
    const calls = new ToolCallRebuilder();
    calls.push(u('first', 0, 'start-array', ''));
    calls.push(u('second', 0, 'start-object', ''));
    expect(calls.get('first')?.value).toEqual([]);
    expect(calls.get('second')?.value).toEqual({});
    expect(calls.get(0)).toBe(calls.get('second'));
    expect(calls.size).toBe(2);
  });

  it('ToolCallRebuilder parses the raw argument text incrementally when a call has no updates', () => {
    const calls = new ToolCallRebuilder();
    const seen: unknown[] = [];
    const events = [
      start(0, 'call_1', 'write_file'),
      args(0, '{"path":"src/ma'),
      args(0, 'in.rs","content":"fn'),
      args(0, ' main() {}\\n"'),
      args(0, '}'),
      args(0, ' \n'),
      flush(0),
    ];
    for (const event of events) {
      const call = calls.push(event);
      seen.push([call?.source, call?.state, structuredClone(call?.value)]);
    }
    expect(seen).toEqual([
      [undefined, 'streaming', undefined],
      // The first chunk waits for the next input to show that no updates follow it.
      [undefined, 'streaming', undefined],
      ['text', 'streaming', { path: 'src/main.rs', content: 'fn' }],
      ['text', 'streaming', { path: 'src/main.rs', content: 'fn main() {}\n' }],
      ['text', 'streaming', { path: 'src/main.rs', content: 'fn main() {}\n' }],
      ['text', 'streaming', { path: 'src/main.rs', content: 'fn main() {}\n' }],
      ['text', 'complete', { path: 'src/main.rs', content: 'fn main() {}\n' }],
    ]);
    expect(calls.size).toBe(0);
    // Whitespace and the flush for a released slot open nothing.
    expect(calls.push(args(0, ' \n'))).toBeUndefined();
    expect(calls.push(flush(0))).toBeUndefined();
    expect(calls.size).toBe(0);
  });

  it('ToolCallRebuilder completes a root number in raw text at the flush', () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(3, 'n', 'count'));
    expect(calls.push(args(3, '12'))?.state).toBe('streaming');
    calls.push(args(3, '34'));
    const call = calls.push(flush(3));
    expect(call).toMatchObject({ state: 'complete', value: 1234, source: 'text' });
  });

  it('ToolCallRebuilder prefers updates, ignoring the raw text of a call that has them', async () => {
    const events = await withUpdates([start(0, 'call_a', 'f'), args(0, '{"a":'), args(0, '[1,2]}'), flush(0)], true);
    expect(events.filter((e) => e.type === 'part').length).toBe(3);
    const calls = new ToolCallRebuilder();
    const sources: Array<string | undefined> = [];
    let last: RebuiltToolCall | undefined;
    for (const event of events) {
      last = calls.push(event) ?? last;
      sources.push(last?.source);
    }
    // The updates of the first argument chunk come before it: the call is rebuilt from updates from its first one.
    expect(sources.slice(0, 3)).toEqual([undefined, 'updates', 'updates']);
    expect(last).toMatchObject({ source: 'updates', state: 'complete', value: { a: [1, 2] } });
  });

  it('ToolCallRebuilder reads a call whose updates come right after its first argument chunk (the part, then its updates) from the updates', () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(0, 'c', 'f'));
    expect(calls.push(args(0, '{"a":'))?.source).toBeUndefined();
    expect(calls.push(u('c', 0, 'start-object', ''))?.source).toBe('updates');
    calls.push(u('c', 0, 'key', '/a', { textValue: 'a' }));
    calls.push(args(0, '1}'));
    calls.push(u('c', 0, 'complete-number', '/a', { value: 1, raw: '1' }));
    calls.push(u('c', 0, 'end-object', ''));
    expect(calls.push(u('c', 0, 'json-complete', ''))).toMatchObject({ source: 'updates', state: 'complete', value: { a: 1 } });
  });

  describe('ToolCallRebuilder on a mixed stream: interleaved calls with and without updates', () => {
    const raw: StreamEvent[] = [
      start(0, 'call_up', 'write_file'),
      start(1, 'call_text', 'read_file'),
      args(0, '{"path":"/srv/a.txt",'),
      args(1, '{"path":'),
      args(0, '"content":"hello"}'),
      args(1, '"/srv/b.txt"}'),
      flush(0),
      flush(1),
    ];
    /** Strip the updates of slot 1, as an older server would never have sent them. */
    const released = async (rawText: boolean) => {
      const events = (await withUpdates(raw, rawText)).filter((e) => !(e.type === 'path-update' && (e as PathUpdate).index === 1));
      const calls = new ToolCallRebuilder();
      const out: RebuiltToolCall[] = [];
      for (const event of events) {
        const sizeBefore = calls.size;
        const call = calls.push(event);
        if (call !== undefined && calls.size < sizeBefore) out.push(call);
      }
      expect(calls.size).toBe(0);
      return out.map((c) => [c.toolCallId, c.toolName, c.source, c.state, c.value]);
    };

    it('ToolCallRebuilder rebuilds the call without updates from its raw text when the raw parts were kept', async () => {
      expect(await released(true)).toEqual([
        ['call_up', 'write_file', 'updates', 'complete', { path: '/srv/a.txt', content: 'hello' }],
        ['call_text', 'read_file', 'text', 'complete', { path: '/srv/b.txt' }],
      ]);
    });

    it('ToolCallRebuilder ends the call with neither updates nor raw text at its tool-call event, with the event\'s arguments', async () => {
      expect(await released(false)).toEqual([
        ['call_up', 'write_file', 'updates', 'complete', { path: '/srv/a.txt', content: 'hello' }],
        ['call_text', 'read_file', 'event', 'complete', { path: '/srv/b.txt' }],
      ]);
    });
  });

  it('ToolCallRebuilder ends a call at its tool-call-incomplete or tool-call-failed event when its flush was replaced', () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(0, 'cut', 'write_file'));
    calls.push(u('cut', 0, 'start-object', ''));
    const incomplete: IncompleteToolCallEvent = { type: 'tool-call-incomplete', index: 0, toolCallId: 'cut', toolName: 'write_file', partialArguments: {}, path: '', stopReason: 'max_tokens' };
    const cut = calls.push(incomplete);
    expect(cut).toMatchObject({ toolCallId: 'cut', state: 'truncated', source: 'updates', value: {} });
    calls.push(start(1, 'bad', 'f'));
    const failure: FailedToolCallEvent = { type: 'tool-call-failed', index: 1, toolCallId: 'bad', toolName: 'f', error: new Error('invalid') };
    const failed = calls.push(failure);
    expect(failed).toMatchObject({ toolCallId: 'bad', state: 'failed' });
    expect(calls.size).toBe(0);
  });

  it('ToolCallRebuilder reports a call flushed with no arguments as {} and a cut call as truncated', async () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(0, 'none', 'now'));
    expect(calls.push(flush(0))).toMatchObject({ state: 'complete', value: {} });
    calls.push(start(1, 'blank', 'now'));
    calls.push(args(1, '  '));
    expect(calls.push(flush(1))).toMatchObject({ state: 'complete', value: {} });
    calls.push(start(2, 'cut', 'write_file'));
    calls.push(args(2, '{"path":"a.txt","content":"hel'));
    expect(calls.push(flush(2))).toMatchObject({ state: 'truncated', value: { path: 'a.txt', content: 'hel' } });

    const updated = new ToolCallRebuilder();
    for (const event of await withUpdates([start(0, 'u', 'f'), args(0, '{"a":[1,'), flush(0)])) updated.push(event);
    expect(updated.size).toBe(0);
    expect(new ToolCallRebuilder().end()).toEqual([]);
  });

  it('ToolCallRebuilder releases what is open at end()', () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(0, 'a', 'f'));
    calls.push(args(0, '[1'));
    calls.push(u('b', 1, 'start-object', ''));
    const ended = calls.end();
    expect(ended.map((c) => [c.toolCallId, c.state, c.value])).toEqual([
      ['a', 'truncated', [1]],
      ['b', 'truncated', {}],
    ]);
    expect(calls.size).toBe(0);
  });

  it('ToolCallRebuilder isolates a call whose raw text is invalid or whose updates are out of order', () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(0, 'bad', 'f'));
    calls.push(start(1, 'good', 'g'));
    calls.push(args(0, '{"a":tru}'));
    const bad = calls.push(args(0, '"more"'));
    expect(bad?.state).toBe('failed');
    expect(bad?.error).toBeInstanceOf(ToolCallArgumentsError);
    expect((bad?.error as ToolCallArgumentsError).offset).toBe(8);
    calls.push(args(1, '{"b":true}'));
    expect(calls.push(flush(1))).toMatchObject({ state: 'complete', value: { b: true } });
    calls.push(u('x', 2, 'start-array', ''));
    const broken = calls.push(u('x', 2, 'complete-number', '/5', { value: 1 }));
    expect(broken?.state).toBe('failed');
    expect(broken?.error).toMatchObject({ name: 'RelayError', code: 'invalid-data' });
    // A failed call ignores the rest of its input and is released at its flush.
    expect(calls.push(u('x', 2, 'end-array', ''))).toBe(broken);
    expect(calls.size).toBe(2);
    expect(calls.push(flush(0))).toBe(bad);
    expect(calls.push(flush(2))).toMatchObject({ state: 'failed', value: [] });
    expect(calls.size).toBe(0);
  });

  it('ToolCallRebuilder ignores updates that join a call midway and keeps parsing its text', () => {
    const calls = new ToolCallRebuilder();
    calls.push(start(0, 'c', 'f'));
    calls.push(args(0, '{"a":"x'));
    calls.push(u('c', 0, 'partial-string', '/a', { textValue: 'x' }));
    expect(calls.get('c')).toMatchObject({ source: 'text', value: { a: 'x' } });
    calls.push(args(0, 'y"}'));
    expect(calls.push(flush(0))).toMatchObject({ state: 'complete', source: 'text', value: { a: 'xy' } });
  });

  it('ToolCallRebuilder refuses a path update with neither toolCallId nor index', () => {
    expect(() => new ToolCallRebuilder().push(u(undefined, undefined, 'start-object', ''))).toThrow(/JsonFragmentRebuilder/);
    expect(() => new ToolCallRebuilder().push(u('', undefined, 'start-object', ''))).toThrow(TypeError);
  });

  it('ToolCallRebuilder ignores events that are not about tool calls', () => {
    const calls = new ToolCallRebuilder();
    expect(calls.push({ type: 'part', index: 0, part: { type: 'message', text: 'hi' } })).toBeUndefined();
    expect(calls.push({ type: 'finished', reason: 'stop' })).toBeUndefined();
    expect(calls.push(flush(0))).toBeUndefined();
    expect(calls.size).toBe(0);
  });
});

describe('ToolCallRebuilder on arbitrary interleaved calls', () => {
  /** Arguments as tools get them: an object, here around an arbitrary document. */
  const call = jsonText.chain((text) => {
    const argumentsText = `{"value": ${text}, "n": 1}`;
    return fc.tuple(fc.constant(argumentsText), cutsFor(argumentsText.length), fc.boolean());
  });

  it('ToolCallRebuilder rebuilds each of several interleaved calls to JSON.parse, from updates, raw text or the tool-call event (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 3 }), fc.infiniteStream(fc.nat()), fc.boolean(), fc.boolean(), async (calls, picks, withIds, rawText) => {
        const queues = calls.map(([argumentsText, cuts], index) => [
          start(index, withIds ? `call_${index}` : '', `tool_${index}`),
          ...cutAt(argumentsText, cuts).map((chunk) => args(index, chunk)),
          flush(index),
        ]);
        const events: StreamEvent[] = [];
        const pick = picks[Symbol.iterator]();
        for (let open = queues.filter((q) => q.length > 0); open.length > 0; open = queues.filter((q) => q.length > 0)) {
          events.push((open[(pick.next().value as number) % open.length] as StreamEvent[]).shift() as StreamEvent);
        }
        const stripped = new Set(calls.flatMap(([, , keep], index) => (keep ? [] : [index])));
        const wire = (await withUpdates(events, rawText)).filter((e) => !(e.type === 'path-update' && stripped.has((e as PathUpdate).index as number)));
        const rebuilder = new ToolCallRebuilder();
        const released = new Map<number, RebuiltToolCall>();
        for (const event of wire) {
          const before = rebuilder.size;
          const result = rebuilder.push(event);
          if (result !== undefined && rebuilder.size < before) {
            expect(released.has(result.index as number)).toBe(false);
            released.set(result.index as number, result);
          }
        }
        expect(rebuilder.size).toBe(0);
        for (const [index, [argumentsText]] of calls.entries()) {
          const result = released.get(index) as RebuiltToolCall;
          expect(result.state).toBe('complete');
          expect(result.toolName).toBe(`tool_${index}`);
          // Without updates: the raw text where it was kept, else the call's tool-call event.
          expect(result.source).toBe(stripped.has(index) ? (rawText ? 'text' : 'event') : 'updates');
          // The event's arguments crossed the wire as JSON (-0 is 0 there); updates carry numbers as written.
          expect(result.value).toEqual(result.source === 'event' ? overTheWire(JSON.parse(argumentsText)) : JSON.parse(argumentsText));
        }
      }),
      { numRuns: 150 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Provider recordings: ProviderEventStream → ToolCallProgressStream → PathUpdateStream → rebuilder.

/** How the manifest's cut arguments close (written by hand from the manifest text). */
const CLOSERS: Record<string, string> = { 'anthropic/tool-use-truncated-max-tokens.sse': '"]}', 'ag-ui/anthropic-tool-use-truncated-max-tokens.sse': '"]}', 'gemini-interactions/constructed-function-call-incomplete.sse': '"}' };

const recordings = readableRecordings();

async function rebuildRecording(recording: ManifestRecording, keep: (event: ToolCallRebuilderInput) => boolean, updates: boolean) {
  let stream: ReadableStream<ToolCallRebuilderInput> = recordingEvents(recording);
  if (updates) stream = stream.pipeThrough(new ToolCallProgressStream()).pipeThrough(new PathUpdateStream());
  const calls = new ToolCallRebuilder();
  const released: RebuiltToolCall[] = [];
  for (const event of overTheWire(await readAll(stream))) {
    if (!keep(event)) continue;
    const before = calls.size;
    const call = calls.push(event);
    if (call !== undefined && calls.size < before) released.push(call);
  }
  expect(calls.end()).toEqual([]);
  return released.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
}

function expectManifestCalls(recording: ManifestRecording, all: readonly RebuiltToolCall[]): void {
  // The calls the provider ran are rebuilt too (to show them), and say so.
  const provided = all.filter((c) => c.providerExecuted);
  expect(provided.map((c) => [c.toolCallId, c.toolName, c.state, c.value])).toEqual(
    recording.providerToolCalls.map((c) => [c.id, c.name, 'complete', c.args === '' ? {} : JSON.parse(c.args)]),
  );
  const released = all.filter((c) => !c.providerExecuted);
  expect(released.map((c) => c.toolName)).toEqual(recording.toolCalls.map((c) => c.name));
  for (const [i, expected] of recording.toolCalls.entries()) {
    const call = released[i] as RebuiltToolCall;
    if (expected.id !== '') expect(call.toolCallId).toBe(expected.id);
    const closer = CLOSERS[recording.file];
    if (closer !== undefined) {
      expect(call.state).toBe('truncated');
      expect(call.value).toEqual(JSON.parse(expected.args + closer));
    } else {
      expect(call.state).toBe('complete');
      expect(call.value).toEqual(expected.args === '' ? {} : JSON.parse(expected.args));
    }
  }
}

describe('ToolCallRebuilder on the provider recordings', () => {
  it('ToolCallRebuilder covers every recording with tool calls that an adapter reads', () => {
    expect(recordings.filter((r) => r.toolCalls.length > 0).length).toBeGreaterThanOrEqual(30);
  });

  for (const recording of recordings) {
    it(`ToolCallRebuilder rebuilds the manifest's arguments of ${recording.file} from path updates`, async () => {
      const released = await rebuildRecording(recording, () => true, true);
      expectManifestCalls(recording, released);
      for (const call of released) if (call.value !== undefined && JSON.stringify(call.value) !== '{}') expect(call.source).toBe('updates');
    });

    it(`ToolCallRebuilder rebuilds the manifest's arguments of ${recording.file} from raw text alone`, async () => {
      const released = await rebuildRecording(recording, () => true, false);
      expectManifestCalls(recording, released);
      for (const call of released) expect(call.source === 'updates').toBe(false);
    });

    if (recording.toolCalls.length > 1) {
      it(`ToolCallRebuilder rebuilds ${recording.file} with updates for the first call only (mixed)`, async () => {
        let first: number | undefined;
        const released = await rebuildRecording(
          recording,
          (event) => {
            if (event.type !== 'path-update') return true;
            first ??= (event as PathUpdate).index;
            return (event as PathUpdate).index === first;
          },
          true,
        );
        expectManifestCalls(recording, released);
      });
    }
  }
});

describe('ToolCallRebuilder and a call cut before its first argument byte', () => {
  it('ToolCallRebuilder reads a call without arguments at the end of input as truncated, not {} (as collectTurn does)', () => {
    // The provider's flush at the end of input says so.
    const flushed = new ToolCallRebuilder();
    flushed.push(start(0, 'c', 'write_file'));
    expect(flushed.push(flush(0, { endOfInput: true }))).toMatchObject({ toolCallId: 'c', state: 'truncated', value: undefined });
    // Never flushed at all: end() releases it the same way.
    const ended = new ToolCallRebuilder();
    ended.push(start(0, 'c', 'write_file'));
    expect(ended.end()).toMatchObject([{ toolCallId: 'c', state: 'truncated', value: undefined }]);
    // Closed by the provider, the same call has no arguments: {}.
    const closed = new ToolCallRebuilder();
    closed.push(start(0, 'c', 'list'));
    expect(closed.push(flush(0))).toMatchObject({ state: 'complete', value: {} });
  });
});

describe('ToolCallRebuilder and raw text cut inside its first value', () => {
  it('ToolCallRebuilder reports text cut inside a literal or number (t, tr, nul, fal, -) as truncated, never as complete {}', () => {
    for (const cut of ['t', 'tr', 'nul', 'fal', '-', ' tr']) {
      const calls = new ToolCallRebuilder();
      let last: RebuiltToolCall | undefined;
      for (const event of [start(0, 'c', 'f'), args(0, cut), flush(0)]) last = calls.push(event) ?? last;
      expect(last?.state, JSON.stringify(cut)).toBe('truncated');
      expect(last?.value, JSON.stringify(cut)).toBeUndefined();
    }
    // No argument text at all, or only whitespace: {} as collectTurn reads it.
    for (const chunks of [[], [' ']]) {
      const calls = new ToolCallRebuilder();
      let last: RebuiltToolCall | undefined;
      for (const event of [start(0, 'c', 'f'), ...chunks.map((chunk) => args(0, chunk)), flush(0)]) last = calls.push(event) ?? last;
      expect(last?.state).toBe('complete');
      expect(last?.value).toEqual({});
    }
  });
});
