/**
 * The contract every EventLog keeps, run against each implementation (test/log/memory.test.ts,
 * test/redis/redis-event-log.test.ts): append, read after an id, follow the live tail, end,
 * fail, expire, the size limit, one producer per stream, a stop from another instance, a producer
 * that dies, hostile ids — and the relay calls on top (keepStream, serveStream) with a recorded
 * turn: the wire format of EventStreamEncoder, a first response and resumes that concatenate to
 * the events.
 */
import { describe, expect, it } from 'vitest';
import {
  collectTurn,
  ConversationEventStream,
  EventLogError,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  fromResponse,
  JsonStreamError,
  keepStream,
  newStreamId,
  ProviderError,
  ProviderEventStream,
  resumeEventStream,
  serveStream,
  stopStream,
  ToolCallArgumentsError,
  type EventLog,
  type EventLogProducer,
  type LogEntry,
  type PipelineEvent,
} from '../../src/index.ts';
import { readEvent, errorClasses, writeEvent } from '../../src/relay/wire.ts';
import { pageErrorMessage } from '../../src/relay/error-record.ts';
import { readFixture, settle, streamOf } from '../helpers.ts';

export interface LogHarness {
  /** A new log on the backend (each test uses its own stream ids). */
  make(options?: { ttlMs?: number; maxBytes?: number; leaseMs?: number }): Promise<EventLog>;
  /** Another instance on the same backend (another process's log); the same log where there is one instance. */
  peer(log: EventLog, options?: { ttlMs?: number; maxBytes?: number; leaseMs?: number }): Promise<EventLog>;
  /** What a producer's process does when it dies: it stops renewing its lease and writing. */
  abandon(producer: EventLogProducer): void;
  /** Backend commands `log` issued so far (to check that a hostile id issues none), where they can be counted. */
  commands?(log: EventLog): number;
  /** How long (ms) after a lease runs out a reader may take to report it, beyond the lease itself. */
  readonly leaseSlackMs: number;
}

const classes = errorClasses(undefined);

/** A ToolCallArgumentsError as ConversationEventStream makes one. */
function argumentsError(message: string, toolCallId = 'c'): ToolCallArgumentsError {
  return new ToolCallArgumentsError(toolCallId, 'write_file', 0, new JsonStreamError('invalid-json', message, 1, ''));
}
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Events with errors inside, non-ASCII text, and an event without a type. */
function sampleEvents(n: number): unknown[] {
  const events: unknown[] = [];
  for (let i = 1; i <= n; i++) {
    if (i % 7 === 3) events.push({ type: 'tool-call-failed', toolCallId: `c${i}`, toolName: 'write_file', error: argumentsError('bad', `c${i}`) });
    else if (i % 11 === 5) events.push({ value: i, note: 'no type' });
    else events.push({ type: 'field-delta', key: 'content', text: `line ${i} é🙂\n`, index: 1, toolCallId: 'c', toolName: 'write_file' });
  }
  return events;
}

async function entries(iterator: AsyncIterableIterator<LogEntry>): Promise<{ entries: LogEntry[]; error: unknown }> {
  const out: LogEntry[] = [];
  try {
    for await (const entry of iterator) out.push(entry);
    return { entries: out, error: undefined };
  } catch (error) {
    return { entries: out, error };
  }
}

function eventsOf(list: readonly LogEntry[]): unknown[] {
  return list.filter((e): e is LogEntry & { kind: 'event' } => e.kind === 'event').map((e) => readEvent(e.data, classes));
}

/** The events' JSON as the relay writes it (errors inside as records): what the log must give back. */
function dataOf(list: readonly LogEntry[]): string[] {
  return list.filter((e): e is LogEntry & { kind: 'event' } => e.kind === 'event').map((e) => e.data);
}

function written(events: readonly unknown[]): string[] {
  return events.map((event) => writeEvent(event));
}

function idsOf(list: readonly LogEntry[]): number[] {
  return list.filter((e): e is LogEntry & { kind: 'event' } => e.kind === 'event').map((e) => e.id);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function expectCode(error: unknown, code: string): void {
  expect(error, `expected EventLogError ${code}, got ${String(error)}`).toBeInstanceOf(EventLogError);
  expect((error as EventLogError).code).toBe(code);
}

/** A source that yields `events` one per `everyMs`, then holds open until cancelled (unless `close`). */
function pacedSource(events: readonly unknown[], everyMs: number, close = true): { stream: ReadableStream<unknown>; cancelled: Promise<unknown>; pulled: () => number } {
  let i = 0;
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => (onCancel = resolve));
  const stream = new ReadableStream<unknown>({
    async pull(controller) {
      await delay(everyMs);
      if (i < events.length) controller.enqueue(events[i++]);
      else if (close) controller.close();
      else await new Promise(() => {}); // a model that thinks forever
    },
    cancel(reason) {
      onCancel(reason);
    },
  });
  return { stream, cancelled, pulled: () => i };
}

/** The events of a recorded Anthropic turn, as the README's relay makes them. */
async function recordedTurn(): Promise<PipelineEvent[]> {
  const bytes = readFixture('providers/anthropic/text-then-2-parallel-tool-use.sse');
  const { values, error } = await settle(
    streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new FieldEventStream({ keepProgress: true })),
  );
  if (error !== undefined) throw error;
  return values as PipelineEvent[];
}

async function bodyText(response: Response): Promise<string> {
  return await response.text();
}

/** Decode an SSE body: its events, and the error it ended with (a RelayError 'incomplete' when cut). */
async function decodeText(text: string): Promise<{ events: unknown[]; error: unknown; lastEventId: string | undefined }> {
  const decoder = new EventStreamDecoder();
  const { values, error } = await settle(streamOf([text]).pipeThrough(decoder));
  return { events: values, error, lastEventId: decoder.lastEventId };
}

function get(url: string, lastEventId?: string | number): Request {
  return new Request(url, lastEventId === undefined ? {} : { headers: { 'last-event-id': String(lastEventId) } });
}

export function logContract(name: string, harness: LogHarness): void {
  describe(`${name}: the EventLog contract`, () => {
    it('appends, reads after an id, follows the live tail to the end; ids are 1, 2, 3 …', async () => {
      const log = await harness.make();
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        expect(producer.lastId).toBe(0);
        const events = sampleEvents(25);
        const follower = entries(await log.read(id, 0));
        for (const [i, event] of events.entries()) {
          expect(await producer.append(event)).toBe(i + 1);
          if (i % 5 === 0) await delay(5);
        }
        expect(producer.lastId).toBe(25);
        await producer.end();
        const got = await follower;
        expect(got.error).toBeUndefined();
        expect(idsOf(got.entries)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
        expect(got.entries.at(-1)).toEqual({ kind: 'end' });
        expect(dataOf(got.entries)).toEqual(written(events));
        // Stored as the relay writes them: the type as the SSE event name, errors listed.
        const third = got.entries[2] as LogEntry & { kind: 'event' };
        expect(third.type).toBe('tool-call-failed');
        expect(third.data).toBe(writeEvent(events[2]));
        expect((eventsOf(got.entries)[2] as { error: unknown }).error).toBeInstanceOf(ToolCallArgumentsError);
        expect((got.entries[4] as LogEntry & { kind: 'event' }).type).toBeUndefined();
        // Without following: what is there, with the end.
        const now = await entries(await log.read(id, 20, { follow: false }));
        expect(idsOf(now.entries)).toEqual([21, 22, 23, 24, 25]);
        expect(now.entries.at(-1)).toEqual({ kind: 'end' });
      } finally {
        await log.close();
      }
    });

    it('resumes exactly once at every id: while the stream is produced, and after its end', async () => {
      const log = await harness.make();
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        const events = sampleEvents(40);
        const readers: Array<Promise<{ after: number; got: { entries: LogEntry[]; error: unknown } }>> = [];
        for (const [i, event] of events.entries()) {
          await producer.append(event);
          // A reader resuming after every id so far, started while the stream grows.
          if (i % 3 === 0) for (let after = 0; after <= i + 1; after += 4) readers.push(log.read(id, after).then(async (it) => ({ after, got: await entries(it) })));
          if (i % 8 === 0) await delay(3);
        }
        const tail = log.read(id, 40).then(entries); // at the last event: gets only the end
        await producer.end();
        for (const { after, got } of await Promise.all(readers)) {
          expect(got.error, `after ${after}`).toBeUndefined();
          expect(idsOf(got.entries), `after ${after}`).toEqual(Array.from({ length: 40 - after }, (_, i) => after + i + 1));
          expect(dataOf(got.entries), `after ${after}`).toEqual(written(events.slice(after)));
          expect(got.entries.at(-1)).toEqual({ kind: 'end' });
        }
        expect((await tail).entries).toEqual([{ kind: 'end' }]);
        // After the end, at every id.
        for (let after = 0; after <= 40; after++) {
          const got = await entries(await log.read(id, after));
          expect(idsOf(got.entries)).toEqual(Array.from({ length: 40 - after }, (_, i) => after + i + 1));
          expect(got.entries.at(-1)).toEqual({ kind: 'end' });
        }
      } finally {
        await log.close();
      }
    });

    it('two readers following the same stream (on two instances) get the same entries; a failed stream ends with its error', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        const a = log.read(id, 0).then(entries);
        const b = other.read(id, 0).then(entries);
        const events = sampleEvents(12);
        for (const event of events) {
          await producer.append(event);
          await delay(2);
        }
        const failure = argumentsError('the model wrote nonsense');
        await producer.fail(failure);
        const [ra, rb] = await Promise.all([a, b]);
        expect(ra.error).toBeUndefined();
        expect(rb.entries).toEqual(ra.entries);
        expect(dataOf(ra.entries)).toEqual(written(events));
        const last = ra.entries.at(-1) as LogEntry;
        expect(last.kind).toBe('error');
        const decoded = await decodeText(`event: error\ndata: ${(last as { data: string }).data}\n\n`);
        expect(decoded.error).toBeInstanceOf(ToolCallArgumentsError);
        // The page's record: argstream's words, not the error's own message.
        expect((decoded.error as Error).message).toBe(pageErrorMessage(failure));
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('unknown streams are not-found; an id beyond the last event is invalid-id; a reader after the end gets the rest and the end', async () => {
      const log = await harness.make();
      try {
        expectCode(await rejection(log.read(newStreamId(), 0)), 'not-found');
        expectCode(await rejection(log.stop(newStreamId())), 'not-found');
        const id = newStreamId();
        const producer = await log.open(id);
        // Open, no event yet: a reader waits; one ahead of the stream is refused.
        expectCode(await rejection(log.read(id, 1)), 'invalid-id');
        await producer.append({ type: 'a' });
        await producer.append({ type: 'b' });
        expectCode(await rejection(log.read(id, 3)), 'invalid-id');
        await producer.end();
        const rest = await entries(await log.read(id, 1));
        expect(rest.entries).toEqual([{ kind: 'event', id: 2, type: 'b', data: '{"type":"b"}' }, { kind: 'end' }]);
        expect((await entries(await log.read(id, 2))).entries).toEqual([{ kind: 'end' }]);
        // Writing after the end is refused.
        await expect(producer.append({ type: 'c' })).rejects.toBeInstanceOf(Error);
        // Stopping a stream that ended does nothing.
        await log.stop(id);
      } finally {
        await log.close();
      }
    });

    it('keeps a burst of appends made at once (far more than one write holds) whole and in order', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        const follower = other.read(id, 0).then(entries);
        const events = sampleEvents(1000);
        // Not awaited one by one: the log writes them in as few batches as it can.
        expect(await Promise.all(events.map((event) => producer.append(event)))).toEqual(events.map((_, i) => i + 1));
        await producer.end();
        const all = Array.from({ length: 1000 }, (_, i) => i + 1);
        for (const got of [await follower, await entries(await other.read(id, 0))]) {
          expect(got.error).toBeUndefined();
          expect(idsOf(got.entries)).toEqual(all);
          expect(dataOf(got.entries)).toEqual(written(events));
          expect(got.entries.at(-1)).toEqual({ kind: 'end' });
        }
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('expires a stream ttlMs after its end: then not-found, and its id can be opened again', async () => {
      const log = await harness.make({ ttlMs: 300 });
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        await producer.append({ type: 'a' });
        await producer.end();
        expect((await entries(await log.read(id, 0))).entries).toHaveLength(2);
        await delay(500);
        expectCode(await rejection(log.read(id, 0)), 'not-found');
        const again = await log.open(id);
        await again.end();
      } finally {
        await log.close();
      }
    });

    it('keeps a stream within its size limit: the append beyond it fails the stream with too-large', async () => {
      const log = await harness.make({ maxBytes: 100 });
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        const reader = log.read(id, 0).then(entries);
        const event = { type: 'x', text: 'a'.repeat(8) }; // 30 bytes of JSON
        expect(writeEvent(event)).toHaveLength(30);
        await producer.append(event);
        await producer.append(event);
        await producer.append(event);
        const error = await rejection(producer.append(event));
        expectCode(error, 'too-large');
        expect(producer.signal.aborted).toBe(true);
        expectCode(producer.signal.reason, 'too-large');
        const got = await reader;
        expect(idsOf(got.entries)).toEqual([1, 2, 3]);
        const last = got.entries.at(-1) as LogEntry & { kind: 'error' };
        expect(last.kind).toBe('error');
        expect(JSON.parse(last.data)).toMatchObject({ name: 'EventLogError', code: 'too-large' });
        // Per stream: another stream of the same log has its own budget; open() can lower it.
        const small = await log.open(newStreamId(), { maxBytes: 40 });
        await small.append(event);
        expectCode(await rejection(small.append(event)), 'too-large');
      } finally {
        await log.close();
      }
    });

    it('refuses a second producer for the same stream id (on another instance too), while it runs and after its end', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        expectCode(await rejection(log.open(id)), 'exists');
        expectCode(await rejection(other.open(id)), 'exists');
        await producer.append({ type: 'a' });
        await producer.end();
        expectCode(await rejection(other.open(id)), 'exists');
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('a stop from another instance reaches the producer: keepStream cancels its source, readers get stopped', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        const id = newStreamId();
        const source = pacedSource(sampleEvents(1000), 5, false);
        const kept = await keepStream(log, id, source.stream);
        const reader = other.read(id, 0).then(entries);
        while (source.pulled() < 5) await delay(5);
        const asked = Date.now();
        const response = await stopStream(other, id);
        expect(response.status).toBe(204);
        const reason = await source.cancelled;
        const took = Date.now() - asked;
        expectCode(reason, 'stopped');
        expect(took).toBeLessThan(1500);
        const outcome = await kept.done;
        expect(outcome.status).toBe('stopped');
        const got = await reader;
        expect(got.error).toBeUndefined();
        expect(idsOf(got.entries)).toEqual(Array.from({ length: idsOf(got.entries).length }, (_, i) => i + 1));
        const last = got.entries.at(-1) as LogEntry & { kind: 'error' };
        expect(last.kind).toBe('error');
        expect(JSON.parse(last.data)).toMatchObject({ name: 'EventLogError', code: 'stopped' });
        // The page reads it as an error with that code.
        const page = await decodeText(await bodyText(await serveStream(other, id, get('http://relay/s'))));
        expect(page.error).toMatchObject({ name: 'EventLogError', code: 'stopped' });
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('a producer that dies before the end is reported to its readers as producer-lost, within its lease', async () => {
      const leaseMs = 600;
      const log = await harness.make({ leaseMs });
      const other = await harness.peer(log, { leaseMs });
      try {
        const id = newStreamId();
        const producer = await log.open(id);
        await producer.append({ type: 'a' });
        await producer.append({ type: 'b' });
        const following = other.read(id, 0).then(entries);
        await delay(50);
        const died = Date.now();
        harness.abandon(producer);
        const got = await following;
        const after = Date.now() - died;
        expect(idsOf(got.entries)).toEqual([1, 2]);
        expectCode(got.error, 'producer-lost');
        expect(after).toBeLessThan(leaseMs + harness.leaseSlackMs);
        // A reader that comes later learns it at once, after the events.
        const late = await entries(await other.read(id, 1));
        expect(idsOf(late.entries)).toEqual([2]);
        expectCode(late.error, 'producer-lost');
        // And the page gets it as an error event, not a cut connection to reconnect forever.
        const page = await decodeText(await bodyText(await serveStream(other, id, get('http://relay/s', 0))));
        expect(page.events).toEqual([{ type: 'a' }, { type: 'b' }]);
        expect(page.error).toMatchObject({ name: 'EventLogError', code: 'producer-lost' });
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('hostile stream ids and Last-Event-IDs are invalid-id (400) before the backend sees them', async () => {
      const producing = await harness.make();
      // A log of its own, with no producer or reader: nothing it does in the background.
      const log = await harness.peer(producing);
      try {
        const id = newStreamId();
        const producer = await producing.open(id);
        await producer.append({ type: 'a' });
        const before = harness.commands?.(log);
        const hostileIds: unknown[] = ['', 'short', 'a'.repeat(129), '../../../../etc/passwd', 'abcdefghijklmnop:*', 'abcdefghijklmno}{', 'abcdefghijklmnop\r\nFLUSHALL', 'abcdefghijklmnop ', 'ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐ', 42, null, undefined, { toString: () => id }];
        for (const hostile of hostileIds) {
          expectCode(await rejection(log.open(hostile as string)), 'invalid-id');
          expectCode(await rejection(log.read(hostile as string, 0)), 'invalid-id');
          expectCode(await rejection(log.stop(hostile as string)), 'invalid-id');
          expect((await serveStream(log, hostile as string, get('http://relay/s'))).status).toBe(400);
          expect((await stopStream(log, hostile as string)).status).toBe(400);
        }
        const hostileLastIds = ['-1', '1e3', '0x10', '1.0', ' 1 2', '\u00b9', 'NaN', 'Infinity', '9007199254740993', '12345678901234567', '1; FLUSHALL', '0-1', '+1'];
        for (const hostile of hostileLastIds) {
          const response = await serveStream(log, id, get('http://relay/s', hostile));
          expect(response.status, hostile).toBe(400);
          expect(await response.text()).toMatch(/^invalid-id: /);
          expect((await serveStream(log, id, get(`http://relay/s?lastEventId=${encodeURIComponent(hostile)}`))).status, hostile).toBe(400);
        }
        expect((await serveStream(log, id, get(`http://relay/s?lastEventId=${encodeURIComponent('１')}`))).status).toBe(400);
        for (const hostile of [-1, 1.5, Number.NaN, 2 ** 54]) expectCode(await rejection(log.read(id, hostile)), 'invalid-id');
        if (before !== undefined) expect(harness.commands?.(log)).toBe(before);
        // The same log answers a valid request (so the count above could have moved).
        expect((await serveStream(log, id, get('http://relay/s', 1))).status).toBe(200);
        if (before !== undefined) expect(harness.commands?.(log)).toBeGreaterThan(before);
        await producer.end();
      } finally {
        await log.close();
        await producing.close();
      }
    });
  });

  describe(`${name}: keepStream and serveStream`, () => {
    it('serves a recorded turn in the wire format of EventStreamEncoder and resumeEventStream, byte for byte, snapshots included', async () => {
      const log = await harness.make();
      try {
        const events = await recordedTurn();
        const id = newStreamId();
        const kept = await keepStream(log, id, streamOf(events));
        expect(await kept.done).toEqual({ status: 'ended' });
        const plain = await serveStream(log, id, get('http://relay/s'), { snapshot: false });
        expect(plain.status).toBe(200);
        expect(plain.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
        expect(plain.headers.get('cache-control')).toBe('no-cache, no-transform');
        expect(await bodyText(plain)).toBe(await new Response(streamOf(events).pipeThrough(new EventStreamEncoder())).text());
        // Every resume point, with and without a snapshot of what the client lacks.
        const n = events.length;
        for (const after of [0, 1, 2, 3, 10, n - 66, n - 65, n - 64, n - 63, n - 2, n - 1, n].filter((a) => a >= 0)) {
          for (const options of [{}, { snapshotThreshold: 5 }, { snapshot: false }]) {
            const served = await bodyText(await serveStream(log, id, get('http://relay/s', after), options));
            const expected = await new Response(resumeEventStream([...events, { type: 'end' as const }], after, { snapshot: options.snapshot ?? true, ...('snapshotThreshold' in options ? { snapshotThreshold: options.snapshotThreshold } : {}) })).text();
            expect(served, `after ${after} ${JSON.stringify(options)}`).toBe(expected);
          }
        }
        // A page that loads from 0 gets one snapshot, and the same turn.
        const fromZero = await bodyText(await serveStream(log, id, get('http://relay/s')));
        expect(fromZero).toMatch(new RegExp(`^id: ${n}\nevent: snapshot\n`));
        // (What a snapshot saves on a long history is measured in test/relay/snapshot.test.ts: on this short
        // turn the batches already send each identity once, and the two are of a size.)
        expect(fromZero.length).toBeLessThan(2 * (await bodyText(await serveStream(log, id, get('http://relay/s'), { snapshot: false }))).length);
        const decoded = await decodeText(fromZero);
        expect(decoded.error).toBeUndefined();
        expect(await collectTurn(streamOf(decoded.events as PipelineEvent[]))).toEqual(await collectTurn(streamOf(events)));
      } finally {
        await log.close();
      }
    });

    it('the first response and resumes cut at every id concatenate to the events, while the turn streams (another instance serving the resumes)', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        const events = await recordedTurn();
        const id = newStreamId();
        let waited: Promise<unknown> | undefined;
        const source = pacedSource(events, 2);
        await keepStream(log, id, source.stream, { waitUntil: (p) => (waited = p) });
        expect(waited).toBeInstanceOf(Promise);
        // The first client reads a few events, then its connection is cut (the body cancelled).
        const first = await serveStream(log, id, get('http://relay/s'), { snapshot: false });
        const reader = first.body!.getReader();
        let text = '';
        const utf8 = new TextDecoder();
        while ((text.match(/^id: /gm) ?? []).length < 5) text += utf8.decode((await reader.read()).value);
        await reader.cancel();
        // The generation goes on without it; resumes land on the other instance, cut again and again.
        let got = await decodeText(text);
        const received = [...got.events];
        let lastId = got.lastEventId;
        let resumes = 0;
        for (;;) {
          // Each event as it was (the exact concatenation); snapshots are checked by turn below.
          const response = await serveStream(resumes % 2 === 0 ? other : log, id, get('http://relay/s', lastId ?? 0), { snapshot: false });
          expect(response.status).toBe(200);
          const body = response.body!.getReader();
          let part = '';
          const want = 1 + (resumes % 4);
          let done = false;
          while ((part.match(/^id: /gm) ?? []).length < want) {
            const chunk = await body.read();
            if (chunk.done) {
              done = true;
              break;
            }
            part += utf8.decode(chunk.value);
          }
          await body.cancel();
          resumes++;
          got = await decodeText(part);
          received.push(...got.events);
          if (got.error === undefined) break; // the end came with it
          expect(got.error).toMatchObject({ name: 'RelayError', code: 'incomplete' });
          lastId = got.lastEventId ?? lastId;
          if (done) break;
        }
        expect(resumes).toBeGreaterThan(3);
        expect(received).toEqual(events);
        expect(await waited).toEqual({ status: 'ended' });
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('answers 404 for an unknown stream, 400 for a bad id; a source that fails reaches readers as its error; a second keepStream is refused and its source cancelled', async () => {
      const log = await harness.make();
      try {
        const missing = await serveStream(log, newStreamId(), get('http://relay/s'));
        expect(missing.status).toBe(404);
        expect(await missing.text()).toMatch(/^not-found: /);
        expect((await serveStream(log, 'nope', get('http://relay/s'))).status).toBe(400);

        const id = newStreamId();
        const failure = argumentsError('cut');
        let pulls = 0;
        const source = new ReadableStream<unknown>({
          pull(controller) {
            if (pulls++ === 0) controller.enqueue({ type: 'one' });
            else controller.error(failure);
          },
        });
        const kept = await keepStream(log, id, source);
        expect(await kept.done).toEqual({ status: 'failed', error: failure });
        const page = await decodeText(await bodyText(await serveStream(log, id, get('http://relay/s'))));
        expect(page.events).toEqual([{ type: 'one' }]);
        expect(page.error).toBeInstanceOf(ToolCallArgumentsError);

        let cancelled: unknown;
        const second = new ReadableStream<unknown>({ cancel: (reason) => void (cancelled = reason) });
        expectCode(await rejection(keepStream(log, id, second)), 'exists');
        expectCode(cancelled, 'exists');
      } finally {
        await log.close();
      }
    });

    it('keepStream calls a source function only once the stream is open: a refused open asks no provider, a stop aborts a request still waiting for its response, a function that throws fails the stream', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        // Called after the open: the stream is in the log (on the other instance too) when the provider is asked.
        const id = newStreamId();
        let seen: { entries: LogEntry[]; error: unknown } | undefined;
        const kept = await keepStream(log, id, async (signal) => {
          expect(signal).toBeInstanceOf(AbortSignal);
          seen = await entries(await other.read(id, 0, { follow: false }));
          return streamOf<unknown>([{ type: 'a' }]);
        });
        expect(await kept.done).toEqual({ status: 'ended' });
        expect(seen).toEqual({ entries: [], error: undefined });
        expect((await decodeText(await bodyText(await serveStream(other, id, get('http://relay/s'))))).events).toEqual([{ type: 'a' }]);

        // A second producer: refused before its function is called (no provider request).
        let called = false;
        expectCode(await rejection(keepStream(log, id, () => ((called = true), streamOf<unknown>([])))), 'exists');
        expectCode(await rejection(keepStream(log, 'not an id', () => ((called = true), streamOf<unknown>([])))), 'invalid-id');
        expect(called).toBe(false);

        // A stop while the provider has not answered: the signal given to the request aborts.
        const waiting = newStreamId();
        let aborted: unknown;
        const stoppable = await keepStream(log, waiting, (signal) =>
          new Promise<ReadableStream<unknown>>((_, reject) => {
            signal.addEventListener('abort', () => {
              aborted = signal.reason;
              reject(new DOMException('The operation was aborted.', 'AbortError'));
            });
          }),
        );
        expect((await stopStream(other, waiting)).status).toBe(204);
        const outcome = await stoppable.done;
        expect(outcome.status).toBe('stopped');
        expectCode(aborted, 'stopped');
        const stoppedPage = await decodeText(await bodyText(await serveStream(other, waiting, get('http://relay/s'))));
        expect(stoppedPage.events).toEqual([]);
        expect(stoppedPage.error).toMatchObject({ name: 'EventLogError', code: 'stopped' });

        // The provider cannot be reached: the stream fails with that error, readers get it.
        const unreachable = newStreamId();
        const failure = new TypeError('fetch failed');
        const failing = await keepStream(log, unreachable, async () => {
          throw failure;
        });
        expect(await failing.done).toEqual({ status: 'failed', error: failure });
        const failedPage = await decodeText(await bodyText(await serveStream(other, unreachable, get('http://relay/s'))));
        expect(failedPage.events).toEqual([]);
        // An error not argstream's: a plain Error with a generic message (the network failure stays on the server).
        expect(failedPage.error).toMatchObject({ name: 'Error', message: 'the stream failed' });
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('keepStream and serveStream: a provider stream cut before its terminal record ends the first response and every resume with ProviderError truncated, never end', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        // A recorded turn whose connection a proxy closed cleanly before message_delta and message_stop.
        const recording = new TextDecoder().decode(readFixture('providers/anthropic/text-then-2-parallel-tool-use.sse'));
        const cut = recording.slice(0, recording.indexOf('event: message_delta'));
        const records = cut.split(/(?<=\n\n)/);
        const stage = () => new FieldEventStream({ keepProgress: false });
        const bytes = records.map((record) => new TextEncoder().encode(record));
        const direct = await settle(fromResponse(new Response(streamOf(bytes)), { provider: 'anthropic' }, stage()));
        expect(direct.error).toMatchObject({ name: 'ProviderError', code: 'truncated' });
        expect(direct.values.length).toBeGreaterThan(10);
        // The provider's body, one record at a time: the first response and a resume follow it live.
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await delay(2);
            if (sent < bytes.length) controller.enqueue(bytes[sent++] as Uint8Array);
            else controller.close();
          },
        });
        const id = newStreamId();
        const kept = await keepStream(log, id, async () => fromResponse(new Response(body), { provider: 'anthropic' }, stage()));
        const first = serveStream(log, id, get('http://relay/s'), { snapshot: false }).then(bodyText);
        while (sent < records.length / 2) await delay(2);
        const resumed = serveStream(other, id, get('http://relay/s', 3), { snapshot: false }).then(bodyText);
        const outcome = await kept.done;
        expect(outcome.status).toBe('failed');
        expect((outcome as { error: unknown }).error).toBeInstanceOf(ProviderError);
        expect((outcome as { error: unknown }).error).toMatchObject({ code: 'truncated', message: (direct.error as Error).message });
        for (const [name, text, from] of [['first', await first, 0], ['resume', await resumed, 3]] as const) {
          expect(text, name).not.toContain('event: end');
          expect(text, name).toMatch(/event: error\ndata: \{"name":"ProviderError".*"code":"truncated".*\}\n\n$/);
          const page = await decodeText(text);
          expect(page.events, name).toEqual(direct.values.slice(from));
          expect(page.error, name).toBeInstanceOf(ProviderError);
          expect(page.error, name).toMatchObject({ code: 'truncated', message: pageErrorMessage(direct.error) });
        }
        // After the end, a page that loads gets a snapshot, then the same error: collectTurn rejects.
        const loaded = await bodyText(await serveStream(other, id, get('http://relay/s')));
        expect(loaded).toMatch(/^id: \d+\nevent: snapshot\n/);
        await expect(collectTurn(streamOf([loaded]).pipeThrough(new EventStreamDecoder()))).rejects.toMatchObject({ name: 'ProviderError', code: 'truncated' });
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('resumers far behind get a snapshot while the turn streams, and end with the same turn', async () => {
      const log = await harness.make();
      const other = await harness.peer(log);
      try {
        const events = await recordedTurn();
        const id = newStreamId();
        const source = pacedSource(events, 1);
        const kept = await keepStream(log, id, source.stream);
        const turns: Array<Promise<unknown>> = [];
        // Pages that load (or reload) at different points: each gets what is there as a snapshot, then the tail.
        for (let i = 0; i < 6; i++) {
          while (source.pulled() < (i * events.length) / 6) await delay(2);
          turns.push(serveStream(i % 2 === 0 ? log : other, id, get('http://relay/s'), { snapshotThreshold: 3 }).then(bodyText).then(decodeText).then(async (page) => {
            expect(page.error).toBeUndefined();
            return collectTurn(streamOf(page.events as PipelineEvent[]));
          }));
        }
        await kept.done;
        const want = await collectTurn(streamOf(events));
        for (const turn of await Promise.all(turns)) expect(turn).toEqual(want);
      } finally {
        await other.close();
        await log.close();
      }
    });

    it('keeps a ConversationEventStream turn with errors inside events exactly', async () => {
      const log = await harness.make();
      try {
        const bytes = readFixture('providers/anthropic/text-then-tool-use.sse');
        const { values } = await settle(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new ConversationEventStream({ progress: true, passthrough: true, isolateErrors: true })));
        const id = newStreamId();
        await (await keepStream(log, id, streamOf(values))).done;
        const page = await decodeText(await bodyText(await serveStream(log, id, get('http://relay/s'), { snapshot: false })));
        expect(page.error).toBeUndefined();
        expect(page.events).toEqual(values);
        // With a snapshot (the default for a page that starts at 0): the same turn.
        const snapshotted = await decodeText(await bodyText(await serveStream(log, id, get('http://relay/s'))));
        expect(await collectTurn(streamOf(snapshotted.events as PipelineEvent[]))).toEqual(await collectTurn(streamOf(values as PipelineEvent[])));
      } finally {
        await log.close();
      }
    });
  });
}
