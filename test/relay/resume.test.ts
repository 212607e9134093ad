/**
 * `resumeEventStream` never makes a truncated turn look complete: kept events send `end` only
 * when they end with the relay's `{ type: 'end' }`, the error of a `{ type: 'error' }` as
 * `event: error`, and nothing when they have no terminal yet (a turn still streaming, or whose
 * producer died) — the client's decoder then fails with `RelayError` `incomplete` and its
 * `lastEventId`, as after a cut connection, and a later resume gets the rest.
 */
import { describe, expect, it } from 'vitest';
import {
  collectTurn,
  EventStreamDecoder,
  FieldEventStream,
  ProviderError,
  ProviderEventStream,
  RelayError,
  resumeEventStream,
  type PipelineEvent,
  type RelayTerminal,
} from '../../src/index.ts';
import { readFixture, settle, streamOf } from '../helpers.ts';
import { bytesOf } from './relay-helpers.ts';

const RECORDING = 'providers/anthropic/text-then-2-parallel-tool-use.sse';
const END = 'event: end\ndata: {}\n\n';
const utf8 = new TextDecoder();

/** The events of a recorded Anthropic turn through FieldEventStream (as a relay sends them), and the error it ended with. */
async function turnOf(bytes: Uint8Array): Promise<{ events: PipelineEvent[]; error: unknown }> {
  const { values, error } = await settle(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new FieldEventStream({ keepProgress: false })));
  return { events: values as PipelineEvent[], error };
}

/** The recording cut cleanly before its terminal records (`message_delta` with the stop reason, `message_stop`): a proxy closing the connection between two events. */
function cutBeforeTerminal(): Uint8Array {
  const text = utf8.decode(readFixture(RECORDING));
  return new TextEncoder().encode(text.slice(0, text.indexOf('event: message_delta')));
}

async function served(body: ReadableStream<Uint8Array>): Promise<{ text: string; events: PipelineEvent[]; error: unknown; lastEventId: string | undefined }> {
  const text = utf8.decode(await bytesOf(body));
  const decoder = new EventStreamDecoder();
  const { values, error } = await settle(streamOf([text]).pipeThrough(decoder));
  return { text, events: values, error, lastEventId: decoder.lastEventId };
}

describe('resumeEventStream and the end of the kept events', () => {
  it('resumeEventStream over an array still being filled closes without end: the client sees incomplete with its last id, and a later resume gets the rest and the end', async () => {
    const { events, error } = await turnOf(readFixture(RECORDING));
    expect(error).toBeUndefined();
    expect(events.length).toBeGreaterThan(20);
    // The producer has sent 10 events so far; a client that had 3 resumes.
    const kept: Array<PipelineEvent | RelayTerminal> = events.slice(0, 10);
    const early = await served(resumeEventStream(kept, 3));
    expect(early.text).not.toContain('event: end');
    expect(early.events).toEqual(events.slice(3, 10));
    expect(early.error).toBeInstanceOf(RelayError);
    expect(early.error).toMatchObject({ code: 'incomplete', lastEventId: '10' });
    // A page that loads now gets a snapshot of the 10, and no end either.
    const loaded = await served(resumeEventStream(kept, 0, { snapshot: true }));
    expect(loaded.text).toMatch(/^id: 10\nevent: snapshot\n/);
    expect(loaded.text).not.toContain('event: end');
    expect(loaded.error).toMatchObject({ name: 'RelayError', code: 'incomplete', lastEventId: '10' });

    // The turn ends: the rest, then how it ended.
    kept.push(...events.slice(10), { type: 'end' });
    const rest = await served(resumeEventStream(kept, early.lastEventId as string));
    expect(rest.error).toBeUndefined();
    expect(rest.text.endsWith(`\n\n${END}`)).toBe(true);
    expect([...events.slice(0, 3), ...early.events, ...rest.events]).toEqual(events);
    expect(await collectTurn(streamOf([...loaded.events, ...(await served(resumeEventStream(kept, loaded.lastEventId as string))).events]))).toEqual(await collectTurn(streamOf(events)));
    // The terminal is not an event: no id of its own, the last id is the last event's.
    expect(rest.lastEventId).toBe(String(events.length));
    expect((await served(resumeEventStream(kept, events.length))).text).toBe(END);
  });

  it('resumeEventStream sends the kept error as event: error: a provider stream cut before its terminal record ends with ProviderError truncated, never end', async () => {
    const { events, error } = await turnOf(cutBeforeTerminal());
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'truncated' });
    const kept: Array<PipelineEvent | RelayTerminal> = [...events, { type: 'error', error }];
    for (const [after, options] of [[0, {}], [2, {}], [0, { snapshot: true }], [events.length, {}]] as const) {
      const page = await served(resumeEventStream(kept, after, options));
      expect(page.text, `after ${after}`).not.toContain('event: end');
      expect(page.error, `after ${after}`).toBeInstanceOf(ProviderError);
      expect(page.error).toMatchObject({ name: 'ProviderError', code: 'truncated', message: 'anthropic: the stream ended before its last record: it was cut, so the turn is incomplete' });
      if (!('snapshot' in options)) expect(page.events).toEqual(events.slice(after));
    }
    await expect(collectTurn(resumeEventStream(kept, 0, { snapshot: true }).pipeThrough(new EventStreamDecoder()))).rejects.toMatchObject({ name: 'ProviderError', code: 'truncated' });
  });

  it('resumeEventStream over a synchronous iterable: without a terminal, incomplete; with one, end, and nothing after it is sent', async () => {
    const events: PipelineEvent[] = [{ type: 'part', index: 0, part: { type: 'message', text: 'a' } }, { type: 'part', index: 0, part: { type: 'message', text: 'b' } }];
    const open = await served(resumeEventStream(new Set<PipelineEvent | RelayTerminal>(events), 0));
    expect(open.events).toEqual(events);
    expect(open.error).toMatchObject({ name: 'RelayError', code: 'incomplete', lastEventId: '2' });
    function* finished(): Generator<PipelineEvent | RelayTerminal> {
      yield* events;
      yield { type: 'end' };
      yield { type: 'part', index: 0, part: { type: 'message', text: 'after the end' } };
    }
    const ended = await served(resumeEventStream(finished(), 1));
    expect(ended.events).toEqual(events.slice(1));
    expect(ended.error).toBeUndefined();
    expect(ended.text).not.toContain('after the end');
    const array = await served(resumeEventStream([...events, { type: 'end' }, events[0] as PipelineEvent], 0));
    expect(array.events).toEqual(events);
    expect(array.error).toBeUndefined();
  });

  it('resumeEventStream over an async iterable: its return is the end; a terminal it yields ends the stream and stops the iterator', async () => {
    const events: PipelineEvent[] = [{ type: 'part', index: 0, part: { type: 'message', text: 'a' } }, { type: 'part', index: 0, part: { type: 'message', text: 'b' } }];
    async function* store(): AsyncGenerator<PipelineEvent> {
      yield* events;
    }
    const returned = await served(resumeEventStream(store(), 0));
    expect(returned.events).toEqual(events);
    expect(returned.error).toBeUndefined();
    let stopped = false;
    const failure = new ProviderError('anthropic', 'invalid-stream', 'anthropic: the stream ended before message_stop', { code: 'truncated' });
    async function* failing(): AsyncGenerator<PipelineEvent | RelayTerminal> {
      try {
        yield* events;
        yield { type: 'error', error: failure };
        yield* events;
      } finally {
        stopped = true;
      }
    }
    const failed = await served(resumeEventStream(failing(), 0));
    expect(failed.events).toEqual(events);
    expect(failed.error).toMatchObject({ name: 'ProviderError', code: 'truncated', provider: failure.provider });
    expect(stopped).toBe(true);
  });
});
