/**
 * `TurnStore.writable`: `events.pipeTo(store.writable)`, the issue's own usage, with the output of
 * every stage; what `pipeTo` and `consume` each do when the source fails, when the store itself
 * meets an error, when the writable is aborted and when the pipe is cancelled: the error is in the
 * snapshot in every case.
 */
import { describe, expect, it } from 'vitest';
import {
  ProviderError,
  TurnStore,
  defineTools,
  type PipelineEvent,
  type StandardSchemaV1,
  type TurnSnapshot,
} from '../../src/index.ts';
import { recordingSource, streamOf } from '../helpers.ts';
import { FORMS, RECORDINGS } from './forms.ts';

/** What a snapshot says, without the objects' identities (two stores never share them). */
function plain(snapshot: TurnSnapshot): unknown {
  return {
    ...snapshot,
    calls: snapshot.calls.map((call) => ({ ...call, complete: call.complete.size, complete_all: call.complete.has('') })),
  };
}

const WITH_CALLS = RECORDINGS.filter((r) => r.toolCalls.length > 0 || r.providerToolCalls.length > 0);

describe('TurnStore.writable: piped the output of every stage', () => {
  for (const [form, make] of Object.entries(FORMS)) {
    it(`\`TurnStore.writable\` piped ${form} ends the turn as consume does, for every recording with calls`, async () => {
      for (const recording of WITH_CALLS) {
        const piped = new TurnStore({ schedule: 'sync' });
        let told = 0;
        piped.subscribe(() => told++);
        await make(recording).pipeTo(piped.writable);
        const snapshot = piped.getSnapshot();
        expect(snapshot.status, recording.file).toBe('done');
        expect(told, recording.file).toBeGreaterThan(0);
        expect(await piped.finished).toBe(snapshot);
        const consumed = await new TurnStore({ schedule: 'sync' }).consume(make(recording));
        expect(plain(snapshot), recording.file).toEqual(plain(consumed));
        expect(snapshot.calls.length, recording.file).toBe(recording.toolCalls.length + recording.providerToolCalls.length);
      }
    });
  }

  it('`TurnStore.writable` is one stream, made on first use', () => {
    const store = new TurnStore();
    expect(store.writable).toBe(store.writable);
    expect(store.writable).toBeInstanceOf(WritableStream);
  });

  it('`TurnStore.writable` waits for an asynchronous schema before the next event: the call completes in order, before the end', async () => {
    const slow: StandardSchemaV1<unknown> = {
      '~standard': { version: 1, vendor: 'test', validate: (value) => new Promise((resolve) => setTimeout(() => resolve({ value: { checked: value } }), 5)) },
    };
    const store = new TurnStore({ tools: defineTools({ write_file: slow }), schedule: 'sync' });
    const seen: string[] = [];
    store.subscribe(() => {
      const snapshot = store.getSnapshot();
      seen.push(`${snapshot.status}:${snapshot.calls[0]?.status ?? '-'}:${snapshot.text}`);
    });
    await streamOf<PipelineEvent>([
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c1', toolName: 'write_file' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"path":"/a"}' } },
      { type: 'flush', index: 0 },
      { type: 'part', index: 1, part: { type: 'message', text: 'after' } },
      { type: 'flush', index: 1 },
    ]).pipeTo(store.writable);
    const snapshot = store.getSnapshot();
    expect(snapshot.status).toBe('done');
    expect(snapshot.calls[0]).toMatchObject({ status: 'complete', input: { checked: { path: '/a' } } });
    // The text after the call came only once the call was validated.
    expect(seen.findIndex((s) => s.endsWith(':after'))).toBeGreaterThan(seen.findIndex((s) => s.includes(':complete:')));
  });
});

/** A source that gives `events`, then fails with `error` (recording a cancel, which must not come). */
function failingSource(events: readonly PipelineEvent[], error: Error): { stream: ReadableStream<PipelineEvent>; cancelled: unknown[] } {
  const cancelled: unknown[] = [];
  let i = 0;
  const stream = new ReadableStream<PipelineEvent>({
    pull(controller) {
      if (i < events.length) controller.enqueue(events[i++] as PipelineEvent);
      else controller.error(error);
    },
    cancel(reason) {
      cancelled.push(reason);
    },
  });
  return { stream, cancelled };
}

const BEFORE_ERROR: PipelineEvent[] = [
  { type: 'part', index: 0, part: { type: 'message', text: 'Writing' } },
  { type: 'flush', index: 0 },
  { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 't1', toolName: 'write_file' } },
  { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: '{"path":"/a","content":"x' } },
];

/** AI SDK `fullStream` parts (the store reads them too) ending in an `error` part: the store's own reading fails. */
const AI_SDK_ERROR: object[] = [
  { type: 'start' },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', text: 'Hi' },
  { type: 'error', error: { name: 'overloaded_error', message: 'Overloaded', statusCode: 529 } },
  { type: 'text-delta', id: 't', text: ' never read' },
];

/** AI SDK parts cut before their `finish` part: the store fails at the end. */
const AI_SDK_CUT: object[] = [{ type: 'start' }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', text: 'Hi' }];

function expectFailedTurn(snapshot: TurnSnapshot, error: unknown): void {
  expect(snapshot.status).toBe('error');
  expect(snapshot.error).toBe(error);
  expect(snapshot.text).toBe('Writing');
  expect(snapshot.calls[0]).toMatchObject({ status: 'failed', input: { path: '/a', content: 'x' } });
  expect((snapshot.calls[0] as { error: Error }).error).toBe(error);
}

describe('TurnStore: an error upstream, pipeTo against consume', () => {
  it('`TurnStore.writable` piped a source that fails: pipeTo rejects with its error, and the error is in the snapshot', async () => {
    const error = new ProviderError('anthropic', 'overloaded_error', 'Overloaded');
    const { stream, cancelled } = failingSource(BEFORE_ERROR, error);
    const store = new TurnStore();
    await expect(stream.pipeTo(store.writable)).rejects.toBe(error);
    expectFailedTurn(store.getSnapshot(), error);
    expect(await store.finished).toBe(store.getSnapshot());
    expect(cancelled).toEqual([]);
  });

  it('`TurnStore.consume` of a source that fails resolves with the snapshot that holds its error', async () => {
    const error = new ProviderError('anthropic', 'overloaded_error', 'Overloaded');
    const { stream } = failingSource(BEFORE_ERROR, error);
    const snapshot = await new TurnStore().consume(stream);
    expectFailedTurn(snapshot, error);
  });

  it('`TurnStore.writable` piped events the store fails on: pipeTo rejects with that error, the source is cancelled with it, and the snapshot holds it', async () => {
    const { stream, log } = recordingSource<object>(AI_SDK_ERROR);
    const store = new TurnStore({ schedule: 'sync' });
    let told = 0;
    store.subscribe(() => told++);
    const error = await stream.pipeTo(store.writable).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(529);
    const snapshot = store.getSnapshot();
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBe(error);
    expect(snapshot.text).toBe('Hi');
    expect(log.cancelled).toBe(error);
    expect(told).toBeGreaterThan(0);
    expect(await store.finished).toBe(snapshot);
  });

  it('`TurnStore.consume` of events the store fails on: the same error in the snapshot, the source cancelled with it', async () => {
    const { stream, log } = recordingSource<object>(AI_SDK_ERROR);
    const snapshot = await new TurnStore().consume(stream);
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(ProviderError);
    expect(snapshot.text).toBe('Hi');
    expect(log.cancelled).toBe(snapshot.error);
  });

  it('`TurnStore.writable` closed on input the store finds cut (AI SDK parts without their finish): pipeTo rejects, the snapshot holds the error', async () => {
    const store = new TurnStore();
    const error = await streamOf(AI_SDK_CUT).pipeTo(store.writable).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('truncated');
    expect(store.getSnapshot()).toMatchObject({ status: 'error', text: 'Hi' });
    expect(store.getSnapshot().error).toBe(error);
    const consumed = await new TurnStore().consume(streamOf(AI_SDK_CUT));
    expect(consumed.status).toBe('error');
    expect((consumed.error as ProviderError).code).toBe('truncated');
  });
});

describe('TurnStore.writable: abort and cancel', () => {
  it('`TurnStore.writable` aborted: the turn ends in error with the reason, open calls failed with it, listeners told at once', async () => {
    const store = new TurnStore({ schedule: 'task' });
    let told = 0;
    store.subscribe(() => told++);
    const writer = store.writable.getWriter();
    for (const event of BEFORE_ERROR) await writer.write(event);
    const reason = new Error('the page went away');
    await writer.abort(reason);
    expect(told).toBe(1);
    expect(store.getSnapshot().status).toBe('error');
    expect(store.getSnapshot().error).toBe(reason);
    expect((store.getSnapshot().calls[0] as { error: Error }).error).toBe(reason);
    expect(store.getSnapshot().text).toBe('Writing');
    // Whatever comes later is not read.
    store.push({ type: 'part', index: 2, part: { type: 'message', text: 'late' } });
    expect(store.getSnapshot().text).toBe('Writing');
  });

  it('`TurnStore.writable` aborted with a reason that is not an Error: an Error that keeps it as its cause', async () => {
    const store = new TurnStore();
    await store.writable.abort('stop');
    expect(store.getSnapshot().error).toBeInstanceOf(Error);
    expect(store.getSnapshot().error?.message).toBe('stop');
    expect(store.getSnapshot().error?.cause).toBe('stop');
  });

  it("`TurnStore.writable` piped with a signal that aborts: the source is cancelled and the snapshot's error is the signal's reason", async () => {
    let cancelled: unknown;
    const source = new ReadableStream<PipelineEvent>({
      start(controller) {
        for (const event of BEFORE_ERROR) controller.enqueue(event);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const store = new TurnStore({ schedule: 'sync' });
    const controller = new AbortController();
    const piping = source.pipeTo(store.writable, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(store.getSnapshot().status).toBe('streaming');
    const reason = new Error('unmounted');
    controller.abort(reason);
    await expect(piping).rejects.toBe(reason);
    expect(cancelled).toBe(reason);
    expectFailedTurn(store.getSnapshot(), reason);
  });

  it('`TurnStore.writable` piped with preventAbort and a signal that aborts: the turn stays open, as the Streams standard leaves the writable', async () => {
    const source = new ReadableStream<PipelineEvent>({
      start(controller) {
        controller.enqueue(BEFORE_ERROR[0] as PipelineEvent);
      },
    });
    const store = new TurnStore({ schedule: 'sync' });
    const controller = new AbortController();
    const piping = source.pipeTo(store.writable, { signal: controller.signal, preventAbort: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('stop'));
    await expect(piping).rejects.toThrow('stop');
    expect(store.getSnapshot()).toMatchObject({ status: 'streaming', text: 'Writing', error: undefined });
    await store.writable.close();
    expect(store.getSnapshot().status).toBe('done');
  });
});
