/**
 * Resume costs the state, not the history (issue 23 §2): `compactEvents`, the `snapshot` event
 * (encoded by `EventStreamEncoder` with the id of the last event it stands for, given out as its
 * events by `EventStreamDecoder` and `NdjsonDecoder`, read in their place by the turn builder and
 * `TurnStore`), and `resumeEventStream`'s `snapshot`.
 *
 * The property: a client that has events 1..j of a relayed turn (its first response cut there)
 * and resumes gets `snapshot(j+1..k)` then the events after k (kept while it reads); what it ends
 * up with — `collectTurn`'s turn, `TurnStore`'s final snapshot — is what the uncut stream gives,
 * over every recording, the stages a relay sends, and random j ≤ k.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  collectTurn,
  compactEvents,
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventCore,
  FieldEventStream,
  NdjsonDecoder,
  NdjsonEncoder,
  PathUpdateStream,
  ProviderEventDecoder,
  RelayError,
  resumeEventStream,
  TurnBuilder,
  TurnStore,
  type PipelineEvent,
  type RelayTerminal,
  type SnapshotEvent,
  type TurnSnapshot,
} from '../../src/index.ts';
import { makeWorkload } from '../../bench/workloads.ts';
import { settle, streamOf } from '../helpers.ts';
import type { ManifestRecording } from '../manifest.ts';
import { readableRecordings } from '../providers/event-stream-helpers.ts';
import { bytesOf, made, recordingSource, STAGES } from './relay-helpers.ts';

type AnyStage = { readonly writable: WritableStream<never>; readonly readable: ReadableStream<unknown> };

/** The stages a relay sends (README, docs/relay.md), then every other stage of the relay tests. */
const RELAY_STAGES: ReadonlyArray<readonly [string, ReadonlyArray<() => AnyStage>]> = [
  ['provider events', []],
  ['fields, keepProgress: false', [() => new FieldEventStream({ keepProgress: false })]],
  ['path updates, keepProgress: false', [() => new PathUpdateStream({ keepProgress: false })]],
  ['conversation events', [() => new ConversationEventStream()]],
];
const OTHER_STAGES = STAGES.filter(([name]) => name !== 'provider events');

const RECORDINGS = readableRecordings();

const END = 'event: end\ndata: {}\n\n';
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The bytes of `events` encoded from id `firstId`, without the end record (a cut connection) when `cut`. */
async function encoded(events: readonly PipelineEvent[], firstId: number, cut: boolean): Promise<string> {
  const sse = text(await bytesOf(streamOf(events).pipeThrough(new EventStreamEncoder({ firstId }))));
  if (!cut) return sse;
  expect(sse.endsWith(END)).toBe(true);
  return sse.slice(0, -END.length);
}

async function decoded(sse: string): Promise<{ events: PipelineEvent[]; error: unknown; lastEventId: string | undefined }> {
  const decoder = new EventStreamDecoder();
  // Cut in three places: a snapshot's record arrives in pieces too.
  const thirds = [sse.slice(0, sse.length / 3), sse.slice(sse.length / 3, (2 * sse.length) / 3), sse.slice((2 * sse.length) / 3)];
  const { values, error } = await settle(streamOf(thirds).pipeThrough(decoder));
  return { events: values, error, lastEventId: decoder.lastEventId };
}

/** What a UI renders of a store's snapshot: the turn, and each call's identity, status, input and complete paths. */
function rendered(snapshot: TurnSnapshot): unknown {
  return {
    status: snapshot.status,
    text: snapshot.text,
    reasoning: snapshot.reasoning,
    refusal: snapshot.refusal,
    structured: snapshot.structured,
    finishReason: snapshot.finishReason,
    usage: snapshot.usage,
    warnings: snapshot.warnings,
    error: snapshot.error,
    calls: snapshot.calls.map((call) => ({
      toolCallId: call.toolCallId,
      index: call.index,
      toolName: call.toolName,
      providerExecuted: call.providerExecuted,
      status: call.status,
      input: call.input,
      complete: call.complete.size,
      ...('error' in call ? { error: call.error } : {}),
      ...('result' in call ? { result: call.result } : {}),
    })),
  };
}

async function storeOf(events: readonly unknown[]): Promise<TurnSnapshot> {
  const store = new TurnStore({ schedule: 'sync' });
  for (const event of events) await store.push(event);
  await store.end();
  return store.getSnapshot();
}

/** A stage's events over a recording (they must not fail), with the turn and store they make through the relay, uncut. */
async function relayed(recording: ManifestRecording, stages: ReadonlyArray<() => AnyStage>) {
  const { events, error } = await made(recordingSource(recording), stages);
  expect(error).toBeUndefined();
  const all = events as PipelineEvent[];
  const uncut = await decoded(await encoded(all, 1, false));
  expect(uncut.error).toBeUndefined();
  return { events: all, turn: await collectTurn(streamOf(uncut.events)), store: rendered(await storeOf(uncut.events)) };
}

/**
 * Resume after `j` with a snapshot standing for j+1..k (`resumeEventStream` over the events kept
 * when the request came, k of them; the rest kept while the client reads): what the client decodes
 * over its two connections.
 */
async function resumed(events: readonly PipelineEvent[], j: number, k: number): Promise<PipelineEvent[]> {
  const first = await decoded(await encoded(events.slice(0, j), 1, true));
  expect(first.error).toBeInstanceOf(RelayError);
  expect(first.lastEventId).toBe(j === 0 ? undefined : String(j));
  const kept: Array<PipelineEvent | RelayTerminal> = events.slice(0, k);
  const body = resumeEventStream(kept, String(j), { snapshot: true, snapshotThreshold: 0 });
  kept.push(...events.slice(k), { type: 'end' }); // kept while the resumed response is read
  const sse = text(await bytesOf(body));
  const snapshotSent = k - j > 1;
  expect(sse.includes('event: snapshot\n'), `snapshot for ${j}..${k}`).toBe(snapshotSent);
  if (snapshotSent) expect(sse.startsWith(`id: ${k}\nevent: snapshot\ndata: [[0],`)).toBe(true);
  const second = await decoded(sse);
  expect(second.error).toBeUndefined();
  if (events.length > j) expect(second.lastEventId).toBe(String(events.length));
  return [...first.events, ...second.events];
}

describe('a relayed turn resumed with a snapshot: the turn and the store end as the uncut ones', () => {
  for (const recording of RECORDINGS) {
    it(`${recording.file}`, async () => {
      for (const [stage, stages] of RELAY_STAGES) {
        const uncut = await relayed(recording, stages);
        const n = uncut.events.length;
        const check = async (j: number, k: number): Promise<void> => {
          const how = `${stage}: has 1..${j}, snapshot ${j + 1}..${k} of ${n}`;
          const events = await resumed(uncut.events, j, k);
          expect(await collectTurn(streamOf(events)), how).toEqual(uncut.turn);
          expect(rendered(await storeOf(events)), how).toEqual(uncut.store);
        };
        // From nothing, to the end and halfway; then random cuts.
        await check(0, n);
        await check(0, Math.floor(n / 2));
        await fc.assert(
          fc.asyncProperty(fc.nat(n), fc.nat(n), async (a, b) => check(Math.min(a, b), Math.max(a, b))),
          { numRuns: 6 },
        );
      }
    });
  }

  it('every other stage, on random recordings and cuts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(RECORDINGS.length - 1), fc.nat(OTHER_STAGES.length - 1), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), async (r, s, x, y) => {
        const recording = RECORDINGS[r] as ManifestRecording;
        const [stage, stages] = OTHER_STAGES[s] as (typeof OTHER_STAGES)[number];
        const uncut = await relayed(recording, stages);
        const n = uncut.events.length;
        const j = Math.floor(Math.min(x, y) * n);
        const k = Math.floor(Math.max(x, y) * n);
        const events = await resumed(uncut.events, j, k);
        const how = `${recording.file}, ${stage}: has 1..${j}, snapshot ${j + 1}..${k} of ${n}`;
        expect(await collectTurn(streamOf(events)), how).toEqual(uncut.turn);
        expect(rendered(await storeOf(events)), how).toEqual(uncut.store);
      }),
      { numRuns: 60 },
    );
  });
});

describe('compactEvents', () => {
  it('in process: the compacted events of any prefix, then the rest, make the same turn and store; a raw snapshot event too', async () => {
    for (const recording of RECORDINGS) {
      for (const [stage, stages] of [...RELAY_STAGES, ...OTHER_STAGES]) {
        const { events, error } = await made(recordingSource(recording), stages);
        expect(error).toBeUndefined();
        const all = events as PipelineEvent[];
        const turn = await collectTurn(streamOf(all));
        const store = rendered(await storeOf(all));
        for (const k of [Math.floor(all.length * 0.7), all.length]) {
          const compacted = compactEvents(all.slice(0, k));
          const how = `${recording.file}, ${stage}, ${k} of ${all.length}`;
          expect(compacted.length, how).toBeLessThanOrEqual(k);
          expect(compacted.some((e) => e.type === 'snapshot'), how).toBe(false);
          expect(await collectTurn(streamOf([...compacted, ...all.slice(k)])), how).toEqual(turn);
          expect(rendered(await storeOf([...compacted, ...all.slice(k)])), how).toEqual(store);
          // The same as a snapshot event, read by the turn builder and by TurnStore in its place.
          const snapshot: SnapshotEvent = { type: 'snapshot', events: compacted, lastId: k };
          const j = Math.floor(k / 3);
          const raw = [...all.slice(0, j), { type: 'snapshot', events: compactEvents(all.slice(j, k)) } as SnapshotEvent, ...all.slice(k)];
          expect(await collectTurn(streamOf(raw)), how).toEqual(turn);
          expect(rendered(await storeOf(raw)), how).toEqual(store);
          expect(await collectTurn(streamOf([snapshot, ...all.slice(k)])), how).toEqual(turn);
          // Compacting again changes nothing; a snapshot inside is read as its events.
          expect(compactEvents(compacted), how).toEqual(compacted);
          expect(compactEvents([snapshot]), how).toEqual(compacted);
        }
      }
    }
  });

  it('merges the pieces of one target across other targets, never across its own boundaries', () => {
    const events: PipelineEvent[] = [
      { type: 'part', index: 0, part: { type: 'message', text: 'Hel' } },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'a', toolName: 'write_file' } },
      { type: 'field-start', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'content', string: true },
      { type: 'part', index: 0, part: { type: 'message', text: 'lo' } },
      { type: 'field-delta', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'content', text: 'fn ' },
      { type: 'part', index: 2, part: { type: 'reasoning', text: 'hm' } },
      { type: 'field-delta', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'content', text: 'main' },
      { type: 'part', index: 0, part: { type: 'message', text: '!' }, metadata: { x: 1 } },
      { type: 'part', index: 0, part: { type: 'message', text: '?' } },
      { type: 'field-end', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'content', string: true },
      { type: 'field-start', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'mode', string: true },
      { type: 'field-delta', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'mode', text: '0' },
      { type: 'part', index: 2, part: { type: 'reasoning', text: 'm' } },
      { type: 'field-delta', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'mode', text: '644' },
    ];
    expect(compactEvents(events)).toEqual([
      { type: 'part', index: 0, part: { type: 'message', text: 'Hello' } },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'a', toolName: 'write_file' } },
      { type: 'field-start', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'content', string: true },
      { type: 'field-delta', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'content', text: 'fn main' },
      { type: 'part', index: 2, part: { type: 'reasoning', text: 'hmm' } },
      // Other metadata: not the same target; the next piece does not jump over it.
      { type: 'part', index: 0, part: { type: 'message', text: '!' }, metadata: { x: 1 } },
      { type: 'part', index: 0, part: { type: 'message', text: '?' } },
      { type: 'field-end', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'content', string: true },
      { type: 'field-start', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'mode', string: true },
      { type: 'field-delta', index: 1, toolCallId: 'a', toolName: 'write_file', key: 'mode', text: '0644' },
    ]);
  });

  it("drops the streaming events of a call whose complete arguments are in the list, keeping its start; an incomplete or failed call's stay", () => {
    const field = (key: string, text: string): PipelineEvent => ({ type: 'field-delta', index: 0, toolCallId: 'c', toolName: 'f', key, text });
    const events: PipelineEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c', toolName: 'f' } },
      { type: 'field-start', index: 0, toolCallId: 'c', toolName: 'f', key: 'a', string: true },
      field('a', 'x'),
      field('a', 'y'),
      { type: 'field-end', index: 0, toolCallId: 'c', toolName: 'f', key: 'a', string: true },
      { type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'f', arguments: { a: 'xy' } },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'd', toolName: 'f' } },
      { type: 'field-start', index: 1, toolCallId: 'd', toolName: 'f', key: 'a', string: true },
      { type: 'field-delta', index: 1, toolCallId: 'd', toolName: 'f', key: 'a', text: 'p' },
      { type: 'field-delta', index: 1, toolCallId: 'd', toolName: 'f', key: 'a', text: 'q' },
      { type: 'tool-call-incomplete', index: 1, toolCallId: 'd', toolName: 'f', partialArguments: { a: 'pq' }, path: '/a', stopReason: 'max_tokens' },
      { type: 'finished', reason: 'length', rawReason: 'max_tokens' },
    ];
    expect(compactEvents(events)).toEqual([
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c', toolName: 'f' } },
      { type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'f', arguments: { a: 'xy' } },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'd', toolName: 'f' } },
      { type: 'field-start', index: 1, toolCallId: 'd', toolName: 'f', key: 'a', string: true },
      { type: 'field-delta', index: 1, toolCallId: 'd', toolName: 'f', key: 'a', text: 'pq' },
      { type: 'tool-call-incomplete', index: 1, toolCallId: 'd', toolName: 'f', partialArguments: { a: 'pq' }, path: '/a', stopReason: 'max_tokens' },
      { type: 'finished', reason: 'length', rawReason: 'max_tokens' },
    ]);
    // A slot reused by another call (another id) keeps that call's events.
    const reused: PipelineEvent[] = [
      { type: 'field-delta', index: 0, toolCallId: 'old', toolName: 'f', key: 'a', text: 'z' },
      { type: 'tool-call', index: 0, toolCallId: 'new', toolName: 'f', arguments: {} },
    ];
    expect(compactEvents(reused)).toEqual(reused);
  });
});

describe('the snapshot on the wire', () => {
  const events: PipelineEvent[] = [
    { type: 'part', index: 0, part: { type: 'message', text: 'a' } },
    { type: 'part', index: 0, part: { type: 'message', text: 'b' } },
    { type: 'flush', index: 0 },
    { type: 'finished', reason: 'stop', rawReason: 'end_turn' },
  ];

  it('EventStreamEncoder writes it with the id of the last event it stands for; ids go on after it; EventStreamDecoder gives out its events', async () => {
    const snapshot: SnapshotEvent = { type: 'snapshot', events: compactEvents(events.slice(0, 2)), lastId: 7 };
    const sse = text(await bytesOf(streamOf<PipelineEvent>([snapshot, events[2] as PipelineEvent, { type: 'snapshot', events: [events[3] as PipelineEvent] }]).pipeThrough(new EventStreamEncoder({ firstId: 6 }))));
    expect(sse).toBe(
      // A snapshot is a record of its own (its events as a batch), the events between go as one.
      'id: 7\nevent: snapshot\ndata: [[0],[1,0,"m","ab"]]\n\n' +
        'id: 8\ndata: [[10,0]]\n\n' +
        'id: 9\nevent: snapshot\ndata: [{"type":"finished","reason":"stop","rawReason":"end_turn"}]\n\n' +
        END,
    );
    const decoder = new EventStreamDecoder();
    const { values, error } = await settle(streamOf([sse]).pipeThrough(decoder));
    expect(error).toBeUndefined();
    expect(values).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'ab' } }, events[2], events[3]]);
    expect(decoder.lastEventId).toBe('9');
    // Cut right after the snapshot: resume after the events it stood for.
    const cut = new EventStreamDecoder();
    const first = await settle(streamOf([sse.slice(0, sse.indexOf('id: 8'))]).pipeThrough(cut));
    expect(first.error).toMatchObject({ name: 'RelayError', code: 'incomplete', lastEventId: '7' });
  });

  it('a snapshot whose lastId would make ids go back is refused (the client gets the error)', async () => {
    const sse = text(await bytesOf(streamOf<PipelineEvent>([events[0] as PipelineEvent, { type: 'snapshot', events: [], lastId: 1 }]).pipeThrough(new EventStreamEncoder())));
    expect(sse).toMatch(/^id: 1\n.*\n\nevent: error\ndata: \{"name":"RelayError","message":"an event could not be relayed","code":"invalid-event"/s);
  });

  it('errors inside a snapshot come back as their class; a snapshot inside a snapshot is read as its events', async () => {
    const failure = new RelayError('invalid-data', 'broken');
    const inner: PipelineEvent[] = [{ type: 'tool-call-failed', index: 0, toolCallId: 'c', toolName: 'f', error: failure }];
    const sse = text(await bytesOf(streamOf<PipelineEvent>([{ type: 'snapshot', events: [{ type: 'snapshot', events: inner }, events[3] as PipelineEvent] }]).pipeThrough(new EventStreamEncoder())));
    const { values } = await settle(streamOf([sse]).pipeThrough(new EventStreamDecoder()));
    expect(values).toEqual([{ ...inner[0], error: new RelayError('invalid-data', 'the relayed stream held data its decoder cannot read') }, events[3]]);
    expect((values[0] as { error: unknown }).error).toBeInstanceOf(RelayError);
  });

  it('NDJSON: a snapshot line is read as its events', async () => {
    const snapshot: SnapshotEvent = { type: 'snapshot', events: compactEvents(events), lastId: 4 };
    const ndjson = text(await bytesOf(streamOf<PipelineEvent>([snapshot]).pipeThrough(new NdjsonEncoder())));
    // NDJSON has no ids: a snapshot is its events, in the batch of its line.
    expect(ndjson).toBe('[[0],[1,0,"m","ab"],[10,0],{"type":"finished","reason":"stop","rawReason":"end_turn"}]\n{"type":"end"}\n');
    const { values, error } = await settle(streamOf([ndjson]).pipeThrough(new NdjsonDecoder()));
    expect(error).toBeUndefined();
    expect(values).toEqual(compactEvents(events));
  });

  it('a snapshot without its events is invalid data', async () => {
    const { error } = await settle(streamOf(['id: 1\nevent: snapshot\ndata: {"events":3}\n\n']).pipeThrough(new EventStreamDecoder()));
    expect(error).toMatchObject({ name: 'RelayError', code: 'invalid-data' });
  });
});

describe('resumeEventStream with snapshot', () => {
  const many: PipelineEvent[] = Array.from({ length: 100 }, (_, i) => ({ type: 'part', index: 0, part: { type: 'message', text: `${i} ` } }));

  it('sends a snapshot of what the client lacks only when it lacks more than the threshold, or has nothing', async () => {
    const body = async (after: number, options: { snapshot?: boolean; snapshotThreshold?: number }) => text(await bytesOf(resumeEventStream([...many, { type: 'end' }], after, options)));
    expect(await body(0, { snapshot: true })).toMatch(/^id: 100\nevent: snapshot\n/);
    expect((await body(0, { snapshot: true })).split('\n\n')).toHaveLength(3); // the snapshot, the end, ''
    expect(await body(30, { snapshot: true })).toMatch(/^id: 100\nevent: snapshot\ndata: \[\[0\],\[1,0,"m","30 31 /);
    // 60 lacking: ≤ 64, each event (one record: they were read at once; the parts after the first
    // as a run, each with its text in place of the one before).
    expect(await body(40, { snapshot: true })).toMatch(/^id: 100\ndata: \[\[0\],\[1,0,"m","40 "\],\[16,1,"40 ","41 ","42 ",/);
    expect(await body(40, { snapshot: true, snapshotThreshold: 10 })).toMatch(/^id: 100\nevent: snapshot\n/);
    expect(await body(99, { snapshot: true, snapshotThreshold: 0 })).toMatch(/^id: 100\ndata: \[\[0\],\[1,0,"m","99 "\]\]\n/); // one event: itself
    expect(await body(98, { snapshot: true, snapshotThreshold: 0 })).toMatch(/^id: 100\nevent: snapshot\n/);
    expect(await body(0, {})).toMatch(/^id: 100\ndata: \[\[0\],\[1,0,"m","0 "\],/);
    expect(() => resumeEventStream(new Set(many), 0, { snapshot: true })).toThrow(TypeError);
    expect(() => resumeEventStream(many, 0, { snapshot: true, snapshotThreshold: Number.NaN })).toThrow(RangeError);
    // What the client decodes: every text piece once, in order.
    const { values } = await settle(streamOf([await body(30, { snapshot: true })]).pipeThrough(new EventStreamDecoder()));
    expect(values.map((e) => (e as { part: { text: string } }).part.text).join('')).toBe(many.slice(30).map((e) => (e as { part: { text: string } }).part.text).join(''));
  });
});

// ---------------------------------------------------------------------------------------------
// The size: a 1 MB write_file call, resumed from nothing at 90% of its events.

/** Cuts `text` into 10–40-character deltas (seeded, as the pipeline benchmark does), never between the halves of a surrogate pair. */
function deltasOf(argumentText: string): string[] {
  let state = 0x5eed_0101;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const deltas: string[] = [];
  for (let start = 0; start < argumentText.length; ) {
    let end = Math.min(start + 10 + Math.floor(random() * 31), argumentText.length);
    const last = argumentText.charCodeAt(end - 1);
    if (end < argumentText.length && last >= 0xd800 && last <= 0xdbff) end++;
    deltas.push(argumentText.slice(start, end));
    start = end;
  }
  return deltas;
}

/** Anthropic Messages SSE of one write_file call streaming `deltas`. */
function anthropicSse(deltas: readonly string[]): string[] {
  const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  return [
    event('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } }),
    ...deltas.map((delta) => event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: delta } })),
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 100 } }),
    event('message_stop', { type: 'message_stop' }),
  ];
}

describe('the size of a resume', () => {
  it('a 1 MB write_file call relayed as field events, resumed from id 0 at 90%: the snapshot is ≤ 1.2× the JSON of the arguments so far', async () => {
    const { text: argumentText } = makeWorkload('long-string', 1_000_000);
    const sse = anthropicSse(deltasOf(argumentText));
    // The relay's events (FieldEventStream, keepProgress: false), and how much argument text each one stands for.
    const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
    const fields = new FieldEventCore({ keepProgress: false });
    const events: PipelineEvent[] = [];
    const argumentsBefore: number[] = [];
    let soFar = 0;
    const take = (provider: PipelineEvent[]) => {
      for (const event of provider) {
        if (event.type === 'part' && event.part.type === 'tool-call-arguments') soFar += event.part.chunk.length;
        // A fresh output array per event: the core joins the text pieces one push makes in it.
        for (const output of fields.push(event as never)) events.push(output as PipelineEvent);
        while (argumentsBefore.length < events.length) argumentsBefore.push(soFar);
      }
    };
    for (const record of sse) take(decoder.push(record));
    take(decoder.end());
    for (const output of fields.end()) events.push(output as PipelineEvent);
    expect(events.at(-2)).toMatchObject({ type: 'tool-call', toolName: 'write_file' });

    const k = Math.floor(events.length * 0.9);
    const argumentsSoFar = argumentText.slice(0, argumentsBefore[k - 1]);
    const jsonBytes = new TextEncoder().encode(argumentsSoFar).length;
    // The turn at 90%: still streaming, so no end is sent.
    const snapshotBytes = (await bytesOf(resumeEventStream(events.slice(0, k), 0, { snapshot: true }))).length;
    const replayBytes = (await bytesOf(resumeEventStream(events.slice(0, k), 0))).length;
    const ratio = snapshotBytes / jsonBytes;
    console.log(
      `resume of a 1 MB write_file call at 90% (${k} of ${events.length} relayed events, ${jsonBytes} bytes of argument JSON so far): ` +
        `snapshot ${snapshotBytes} bytes (${ratio.toFixed(3)}× the JSON), full replay ${replayBytes} bytes (${(replayBytes / jsonBytes).toFixed(2)}×)`,
    );
    expect(ratio).toBeLessThanOrEqual(1.2);
    // The relay's batches send each key once, so even the replay is within 1.5× the JSON; the snapshot is less.
    expect(replayBytes).toBeGreaterThan(snapshotBytes);
    expect(replayBytes / jsonBytes).toBeLessThanOrEqual(1.5);
    // And it is the same turn: resumed with the snapshot, then the rest.
    const resumedEvents = await decoded(text(await bytesOf(resumeEventStream([...events, { type: 'end' }], 0, { snapshot: true }))));
    const turn = await collectTurn(streamOf(resumedEvents.events));
    expect(turn.toolCalls.map((call) => call.arguments)).toEqual([JSON.parse(argumentText)]);
    // The turn builder reads a snapshot event in its place, as collectTurn did.
    const builder = new TurnBuilder();
    const out = builder.push({ type: 'snapshot', events: compactEvents(events) });
    builder.end(out);
    expect(out.filter((e) => e.type === 'tool-call').map((e) => (e as { arguments: unknown }).arguments)).toEqual([JSON.parse(argumentText)]);
  });
});
