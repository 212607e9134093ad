/**
 * `resumeEventStream` refuses a `Last-Event-ID` beyond the events it kept, as `serveStream` does
 * (400): a client cannot hold an event the server never sent, so such an id is forged or belongs
 * to another stream, and answering it with `end` would present a truncated turn as complete.
 */
import { describe, expect, it } from 'vitest';
import { EventStreamDecoder, RelayError, resumeEventStream, type PipelineEvent, type RelayTerminal } from '../../src/index.ts';
import { settle, streamOf } from '../helpers.ts';
import { bytesOf } from '../relay/relay-helpers.ts';

const utf8 = new TextDecoder();

/** Three message events and the relay's end: a finished turn as an application keeps it. */
const EVENTS: PipelineEvent[] = [
  { type: 'message', index: 0, text: 'one ' },
  { type: 'message', index: 0, text: 'two ' },
  { type: 'message', index: 0, text: 'three' },
];
const KEPT: Array<PipelineEvent | RelayTerminal> = [...EVENTS, { type: 'end' }];

/** What a client's decoder makes of a served body: its text, events and error. */
async function served(body: ReadableStream<Uint8Array>): Promise<{ text: string; events: PipelineEvent[]; error: unknown }> {
  const text = utf8.decode(await bytesOf(body));
  const { values, error } = await settle(streamOf([text]).pipeThrough(new EventStreamDecoder()));
  return { text, events: values, error };
}

/** Calls `run`, and gives back what it threw. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('resumeEventStream and a Last-Event-ID beyond the kept events', () => {
  it('resumeEventStream throws RelayError invalid-last-event-id for an id beyond a finished array (header, request and number)', () => {
    for (const lastId of [4, 1000, '4', new Headers({ 'last-event-id': '9007199254740991' }), new Request('http://localhost/', { headers: { 'last-event-id': '5' } })]) {
      const error = thrown(() => resumeEventStream(KEPT, lastId));
      expect(error, String(lastId)).toBeInstanceOf(RelayError);
      expect(error).toMatchObject({ name: 'RelayError', code: 'invalid-last-event-id' });
    }
  });

  it('resumeEventStream throws for an id beyond an array still being filled, and with snapshot', () => {
    expect(thrown(() => resumeEventStream(EVENTS.slice(0, 2), 3))).toMatchObject({ code: 'invalid-last-event-id' });
    expect(thrown(() => resumeEventStream(KEPT, 4, { snapshot: true }))).toMatchObject({ code: 'invalid-last-event-id' });
  });

  it('resumeEventStream serves the last kept id itself: the end and nothing else', async () => {
    const result = await served(resumeEventStream(KEPT, 3));
    expect(result.text).toBe('event: end\ndata: {}\n\n');
    expect(result.events).toEqual([]);
    expect(result.error).toBeUndefined();
  });

  it('resumeEventStream over an iterable ends with the RelayError invalid-last-event-id as event: error, never end, when its events end before the id', async () => {
    function* kept(): Generator<PipelineEvent | RelayTerminal> {
      yield* KEPT;
    }
    async function* live(): AsyncGenerator<PipelineEvent | RelayTerminal> {
      yield* EVENTS; // returns: the stream ended after three events
    }
    for (const [what, events] of [['a generator with its end', kept()], ['an async iterable that returns', live()]] as const) {
      const result = await served(resumeEventStream(events, 7));
      // One record, the error (its message is the relay's to word for a page), and no end.
      expect(result.text, what).toMatch(/^event: error\ndata: \{"name":"RelayError",.*"code":"invalid-last-event-id".*\}\n\n$/);
      expect(result.text).not.toContain('event: end');
      expect(result.events).toEqual([]);
      expect(result.error).toBeInstanceOf(RelayError);
      expect(result.error).toMatchObject({ code: 'invalid-last-event-id' });
    }
  });
});
