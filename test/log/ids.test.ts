/**
 * Ids checked end to end: `serveStream` notices a gap or a step back in the ids any log gives it
 * (a custom one included) and ends with `EventLogError` `lost` — a 500 before the response starts,
 * a last `event: error` after — and `EventStreamDecoder` notices one in what a server sends
 * (`RelayError` `out-of-sequence`), never a clean end, and never delivering the events after it.
 */
import { describe, expect, it } from 'vitest';
import {
  collectTurn,
  EventLogError,
  EventStreamDecoder,
  EventStreamEncoder,
  keepStream,
  MemoryEventLog,
  newStreamId,
  RelayError,
  serveStream,
  type EventLog,
  type LogEntry,
} from '../../src/index.ts';
import { pacedStreamOf, settle, streamOf } from '../helpers.ts';

const text = (i: number) => ({ type: 'field-delta', key: 'content', text: `${i} `, index: 1, toolCallId: 'c', toolName: 'write_file' });

/** A log of your own that gives `entries` (its ids as they are) for any stream: what a buggy or lossy backend hands back. */
function customLog(entries: readonly LogEntry[], tail: readonly LogEntry[] = []): EventLog {
  return {
    open: () => Promise.reject(new Error('not here')),
    async read(_id, after, options) {
      const list = options?.follow === false ? entries.filter((e) => !(e.kind === 'event' && e.id <= after)) : tail;
      return (async function* () {
        yield* list;
      })();
    },
    stop: async () => {},
    close: async () => {},
  };
}

const event = (id: number): LogEntry => ({ kind: 'event', id, type: 'field-delta', data: JSON.stringify(text(id)) });

async function decode(sse: string, options: ConstructorParameters<typeof EventStreamDecoder>[0] = {}) {
  const decoder = new EventStreamDecoder(options);
  const { values, error } = await settle(streamOf([sse]).pipeThrough(decoder));
  return { values, error, lastEventId: decoder.lastEventId };
}

describe('serveStream checks the ids of any log', () => {
  it('a log whose backlog skips an id: 500 with EventLogError lost before the response starts, not the events around the hole', async () => {
    const id = newStreamId();
    const log = customLog([event(1), event(2), event(4), { kind: 'end' }]);
    const response = await serveStream(log, id, new Request('http://relay/s'), { snapshot: false });
    expect(response.status).toBe(500);
    expect(await response.text()).toMatch(/^lost: the log of stream [\w-]+ skipped from event 2 to 4: its ids are out of sequence\n$/);
    // Resuming after the hole: its first event must be the one after Last-Event-ID.
    const resumed = await serveStream(log, id, new Request('http://relay/s', { headers: { 'last-event-id': '3' } }), { snapshot: false });
    expect(resumed.status).toBe(200); // events 4 and the end: after 3, 4 is next
    const after1 = await serveStream(customLog([event(3), { kind: 'end' }]), id, new Request('http://relay/s', { headers: { 'last-event-id': '1' } }));
    expect(after1.status).toBe(500);
  });

  it('a log that repeats or steps back: lost, for ids that are not numbers too', async () => {
    const id = newStreamId();
    for (const entries of [[event(1), event(2), event(2)], [event(1), event(3), event(2)], [event(1), { ...event(2), id: 1.5 } as LogEntry], [event(1), { ...event(2), id: Number.NaN } as LogEntry], [event(2)]]) {
      const response = await serveStream(customLog([...entries, { kind: 'end' }]), id, new Request('http://relay/s'), { snapshot: false });
      expect(response.status, JSON.stringify(entries)).toBe(500);
      expect(await response.text()).toMatch(/^lost: /);
    }
    // A log that gives what the client has already (it ignores `after`): a step back.
    const ignoring: EventLog = { ...customLog([]), read: async () => (async function* () {
      yield* [event(1), event(2), { kind: 'end' } as LogEntry];
    })() };
    const again = await serveStream(ignoring, id, new Request('http://relay/s', { headers: { 'last-event-id': '1' } }));
    expect(again.status).toBe(500);
    expect(await again.text()).toMatch(/^lost: the log of stream [\w-]+ gave event 1 after event 1/);
  });

  it('a gap while following: the events before it, then event: error with EventLogError lost — the page decodes an error, never an end', async () => {
    const id = newStreamId();
    const log = customLog([event(1)], [event(2), event(3), event(5), event(6), { kind: 'end' }]);
    const body = await (await serveStream(log, id, new Request('http://relay/s'), { snapshot: false })).text();
    expect(body).not.toContain('event: end');
    expect(body).toMatch(/event: error\ndata: \{"name":"EventLogError","message":"the event log lost events of the stream","code":"lost"\}\n\n$/);
    const page = await decode(body);
    expect(page.values).toEqual([text(1), text(2), text(3)]);
    expect(page.error).toBeInstanceOf(EventLogError);
    expect(page.error).toMatchObject({ code: 'lost', status: 500 });
    expect(page.lastEventId).toBe('3');
  });

  it('a step back while following: lost too', async () => {
    const body = await (await serveStream(customLog([event(1), event(2)], [event(2), { kind: 'end' }]), newStreamId(), new Request('http://relay/s'), { snapshot: false })).text();
    const page = await decode(body);
    expect(page.values).toEqual([text(1), text(2)]);
    expect(page.error).toMatchObject({ name: 'EventLogError', code: 'lost' });
  });

  it('a log that keeps its ids (MemoryEventLog) serves the turn whole: the check refuses nothing it should not', async () => {
    const log = new MemoryEventLog();
    const id = newStreamId();
    const events = Array.from({ length: 50 }, (_, i) => text(i + 1));
    await (await keepStream(log, id, pacedStreamOf(events))).done;
    for (const after of [0, 1, 25, 49, 50]) {
      const page = await decode(await (await serveStream(log, id, new Request('http://relay/s', { headers: { 'last-event-id': String(after) } }), { snapshot: false })).text(), { lastEventId: after });
      expect(page.error, `after ${after}`).toBeUndefined();
      expect(page.values).toEqual(events.slice(after));
    }
  });
});

describe('EventStreamDecoder checks the ids a server sends', () => {
  /** Per-event records, as another server writes them (and as argstream reads them). */
  const records = (ids: ReadonlyArray<number | string>) => ids.map((i) => `id: ${i}\nevent: field-delta\ndata: ${JSON.stringify(text(Number(i)))}\n\n`).join('');

  it('consecutive ids decode; a gap is a RelayError out-of-sequence after the events before it, with lastEventId the last good one', async () => {
    expect((await decode(`${records([1, 2, 3])}event: end\ndata: {}\n\n`)).error).toBeUndefined();
    const page = await decode(`${records([1, 2, 4, 5])}event: end\ndata: {}\n\n`);
    expect(page.values).toEqual([text(1), text(2)]);
    expect(page.error).toBeInstanceOf(RelayError);
    expect(page.error).toMatchObject({ code: 'out-of-sequence', lastEventId: '2' });
    expect((page.error as Error).message).toBe('event ids out of sequence: 1 events up to 4 after event 2, a gap');
    expect(page.lastEventId).toBe('2');
  });

  it('a step back (events sent again) is out-of-sequence too', async () => {
    for (const ids of [[1, 2, 2], [1, 2, 3, 1], [5, 4]]) {
      const page = await decode(`${records(ids)}event: end\ndata: {}\n\n`);
      expect(page.error, String(ids)).toMatchObject({ name: 'RelayError', code: 'out-of-sequence' });
      expect((page.error as Error).message).toMatch(/, a step back$/);
    }
  });

  it('a batch stands for one id per event: its id is its last event\'s, checked with the count', async () => {
    // Three events one read apart, then three at once: records of 1 and of 3 events.
    const encoded = async (firstId: number) => new Response(pacedStreamOf([text(1), text(2)]).pipeThrough(new EventStreamEncoder({ firstId }))).text();
    const burst = await new Response(streamOf([text(3), text(4), text(5)]).pipeThrough(new EventStreamEncoder({ firstId: 3 }))).text();
    expect(burst).toMatch(/^id: 5\ndata: \[\[0\],/);
    const whole = (await encoded(1)).replace('event: end\ndata: {}\n\n', '') + burst;
    const good = await decode(whole);
    expect(good.error).toBeUndefined();
    expect(good.values).toEqual([1, 2, 3, 4, 5].map(text));
    // The same batch claiming one id more or less than its count: a gap, a repeat.
    for (const [id, kind] of [[6, 'a gap'], [4, 'a step back']] as const) {
      const page = await decode(whole.replace('id: 5\n', `id: ${id}\n`));
      expect(page.values).toEqual([text(1), text(2)]);
      expect(page.error).toMatchObject({ code: 'out-of-sequence', lastEventId: '2' });
      expect((page.error as Error).message).toContain(kind);
    }
  });

  it('a snapshot stands for any number of events: its id must be past the last, and the next record continues it', async () => {
    const log = new MemoryEventLog();
    const id = newStreamId();
    const events = Array.from({ length: 10 }, (_, i) => text(i + 1));
    await (await keepStream(log, id, pacedStreamOf(events))).done;
    const snapshot = await (await serveStream(log, id, new Request('http://relay/s'))).text();
    expect(snapshot).toMatch(/^id: 10\nevent: snapshot\n/);
    expect((await decode(snapshot)).error).toBeUndefined();
    expect((await collectTurn(new Response(snapshot).body!.pipeThrough(new EventStreamDecoder({ lastEventId: 0 }))))).toBeDefined();
    // A snapshot that steps back behind where the response started: out-of-sequence.
    expect((await decode(snapshot, { lastEventId: 10 })).error).toMatchObject({ code: 'out-of-sequence' });
    expect((await decode(`${snapshot.replace('event: end\ndata: {}\n\n', '')}${records([12])}event: end\ndata: {}\n\n`)).error).toMatchObject({ code: 'out-of-sequence' });
  });

  it('lastEventId: where the response starts — the first record must continue it, and the decoder knows its position before any event', async () => {
    const resumed = `${records([4, 5])}event: end\ndata: {}\n\n`;
    expect((await decode(resumed, { lastEventId: '3' })).error).toBeUndefined();
    expect((await decode(resumed, { lastEventId: 3 })).error).toBeUndefined();
    // Without it, the first record sets the position.
    expect((await decode(resumed)).error).toBeUndefined();
    const skipped = await decode(resumed, { lastEventId: '2' });
    expect(skipped.values).toEqual([]);
    expect(skipped.error).toMatchObject({ code: 'out-of-sequence', lastEventId: '2' });
    // A resume cut before its first event still knows where it is.
    const cut = await decode('', { lastEventId: '7' });
    expect(cut.error).toMatchObject({ code: 'incomplete', lastEventId: '7' });
    expect(cut.lastEventId).toBe('7');
    expect((await decode('', { lastEventId: 0 })).lastEventId).toBeUndefined();
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 60]) expect(() => new EventStreamDecoder({ lastEventId: bad })).toThrow(RangeError);
  });

  it('ids that are not decimal, or events without an id (another server\'s), end the counting: nothing is refused after them', async () => {
    expect((await decode(`${records(['a1', 'b7', 'a1'])}event: end\ndata: {}\n\n`)).error).toBeUndefined();
    expect((await decode(`${records([1, 2])}${records(['x'])}${records([9, 3])}event: end\ndata: {}\n\n`)).error).toBeUndefined();
    const unnumbered = `data: ${JSON.stringify(text(0))}\n\n`;
    expect((await decode(`${records([1])}${unnumbered}${records([7, 2])}event: end\ndata: {}\n\n`)).error).toBeUndefined();
    // Before them, counted.
    expect((await decode(`${records([1, 3])}${unnumbered}event: end\ndata: {}\n\n`)).error).toMatchObject({ code: 'out-of-sequence' });
    expect((await decode('', { lastEventId: 'abc' })).lastEventId).toBe('abc');
    expect((await decode(records([1, 5]), { lastEventId: 'abc' })).error).toMatchObject({ code: 'incomplete' });
  });
});
