/**
 * A relay encoder as the last stage of `fromResponse` or `chain`: the encoder runs in the read that
 * made its input, one output chunk per network read, with the encoder's contract (the end and any
 * error as a last record, nothing secret, keep-alive, cancellation) and the same turn on the page as
 * the piped form gives.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UIMessageStreamEncoder } from '../../src/bindings/ai-sdk/server.ts';
import {
  chain,
  collectTurn,
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  fromResponse,
  NdjsonDecoder,
  NdjsonEncoder,
  ProviderEventStream,
  ToolCallProgressStream,
  type ProviderName,
} from '../../src/index.ts';
import { settle, streamOf } from '../helpers.ts';
import { PROVIDER_OF_DIR, readableRecordings, recordingInput } from '../providers/event-stream-helpers.ts';

const utf8 = new TextEncoder();
const text = (chunks: readonly Uint8Array[]) => new TextDecoder().decode(concat(chunks));

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

type Encoder = ReadableWritablePair<Uint8Array, unknown>;
const ENCODERS: ReadonlyArray<readonly [string, () => Encoder, () => TransformStream<Uint8Array, unknown>]> = [
  ['EventStreamEncoder', () => new EventStreamEncoder(), () => new EventStreamDecoder() as unknown as TransformStream<Uint8Array, unknown>],
  ['NdjsonEncoder', () => new NdjsonEncoder(), () => new NdjsonDecoder() as unknown as TransformStream<Uint8Array, unknown>],
  ['UIMessageStreamEncoder', () => new UIMessageStreamEncoder(), () => new ProviderEventStream({ provider: 'ai-sdk-ui' }) as unknown as TransformStream<Uint8Array, unknown>],
];
type AnyStage = ReadableWritablePair<unknown, unknown>;
const STAGES: ReadonlyArray<readonly [string, () => AnyStage[]]> = [
  ['no stage', () => []],
  ['FieldEventStream({ keepProgress: false })', () => [new FieldEventStream({ keepProgress: false })]],
  ['ToolCallProgressStream, ConversationEventStream({ progress: true })', () => [new ToolCallProgressStream(), new ConversationEventStream({ progress: true })]],
];

/** The recordings `fromResponse` reads (bytes of an HTTP API), one network read per recorded chunk. */
function httpRecordings() {
  return readableRecordings().filter((recording) => recordingInput(recording).every((chunk) => chunk instanceof Uint8Array));
}

/** What a page makes of relayed bytes: the turn. */
async function turnOnPage(bytes: Uint8Array, decoder: () => TransformStream<Uint8Array, unknown>) {
  const events = streamOf([bytes]).pipeThrough(decoder());
  return collectTurn(events as never).then(
    (turn) => ({ turn }),
    (error: unknown) => ({ error: String(error) }),
  );
}

const fused = (input: readonly Uint8Array[], provider: ProviderName, stages: AnyStage[], encoder: Encoder) =>
  (fromResponse as unknown as (r: Response, o: object, ...s: unknown[]) => ReadableStream<Uint8Array>)(new Response(streamOf(input)), { provider }, ...stages, encoder);
const piped = (input: readonly Uint8Array[], provider: ProviderName, stages: AnyStage[], encoder: Encoder) =>
  (fromResponse as unknown as (r: Response, o: object, ...s: unknown[]) => ReadableStream<unknown>)(new Response(streamOf(input)), { provider }, ...stages).pipeThrough(encoder);

describe('fromResponse(…, stages, encoder) and chain(…, encoder) give what the piped encoder gives', () => {
  for (const [encoderName, encoder, decoder] of ENCODERS) {
    for (const [stageName, stages] of STAGES) {
      it(`${stageName} → ${encoderName}, every recording: the same turn on the page`, async () => {
        const recordings = httpRecordings();
        expect(recordings.length).toBeGreaterThan(20);
        for (const recording of recordings) {
          const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
          const input = recordingInput(recording) as Uint8Array[];
          const want = await turnOnPage(concat((await settle(piped(input, provider, stages(), encoder()))).values), decoder);
          const a = await settle(fused(input, provider, stages(), encoder()));
          expect(a.error, recording.file).toBeUndefined();
          expect(await turnOnPage(concat(a.values), decoder), `${recording.file}: fromResponse`).toEqual(want);
          const chained = (chain as unknown as (...s: unknown[]) => Encoder)(new ProviderEventStream({ provider }), ...stages(), encoder());
          const b = await settle(streamOf(input).pipeThrough(chained));
          expect(b.error, recording.file).toBeUndefined();
          expect(await turnOnPage(concat(b.values), decoder), `${recording.file}: chain`).toEqual(want);
        }
      });
    }
  }
});

/** An Anthropic stream of one `write_file` call in `deltas`, one SSE record per string. */
function anthropicRecords(deltas: readonly string[]): string[] {
  const record = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  return [
    record('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
    record('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } }),
    ...deltas.map((delta) => record('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: delta } })),
    record('content_block_stop', { type: 'content_block_stop', index: 0 }),
    record('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
    record('message_stop', { type: 'message_stop' }),
  ];
}
const DELTAS = ['{"path":"a.ts",', '"content":"', 'one ', 'two ', 'three', '"}'];

/** A body that logs each read it answers, in `log`. */
function loggedBody(records: readonly string[], log: string[], options: { failAfter?: number; error?: unknown } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (options.failAfter !== undefined && i === options.failAfter) {
          log.push('body error');
          controller.error(options.error);
          return;
        }
        if (i === records.length) {
          log.push('body end');
          controller.close();
          return;
        }
        log.push('read');
        controller.enqueue(utf8.encode(records[i++] as string));
      },
      cancel(reason) {
        log.push(`body cancelled: ${String(reason)}`);
      },
    },
    { highWaterMark: 0 },
  );
}

describe('one output chunk per network read', () => {
  it('fromResponse: each read that makes events leaves as one Uint8Array before the next read is answered; the end record with the last events', async () => {
    const log: string[] = [];
    const body = fromResponse(new Response(loggedBody(anthropicRecords(DELTAS), log)), { provider: 'anthropic' }, new FieldEventStream(), new EventStreamEncoder());
    const reader = body.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      log.push('out');
      chunks.push(new TextDecoder().decode(value));
    }
    // Never two outputs for one read: every output follows a read of its own (a read may make none;
    // the next read starts as an output goes, as a pipe keeps one pending). The end is a chunk of its own.
    expect(log.slice(0, -1).join(' ')).not.toContain('out out');
    expect(log.slice(-3)).toEqual(['body end', 'out', 'out']);
    expect(chunks.length).toBeGreaterThan(DELTAS.length);
    // Each chunk is whole records; one record per chunk but the last, which also ends the stream.
    for (const chunk of chunks.slice(0, -1)) expect(chunk.match(/\n\n/g)?.length, chunk).toBe(1);
    expect(chunks.at(-1)?.endsWith('event: end\ndata: {}\n\n')).toBe(true);
  });

  it('chain(…, encoder): one output chunk per chunk written, at once (no wait for a burst to end)', async () => {
    const encoder = chain(new ProviderEventStream({ provider: 'anthropic' }), new FieldEventStream(), new EventStreamEncoder());
    const writer = encoder.writable.getWriter();
    const reader = encoder.readable.getReader();
    const records = anthropicRecords(DELTAS);
    const outputs: string[] = [];
    // message_start alone makes nothing to send.
    await writer.write(utf8.encode(records[0] as string));
    for (const record of records.slice(1, 5)) {
      await writer.write(utf8.encode(record));
      const { value } = await reader.read();
      outputs.push(new TextDecoder().decode(value));
    }
    expect(outputs.map((output) => output.match(/\n\n/g)?.length)).toEqual([1, 1, 1, 1]);
    expect(outputs[3]).toContain('one ');
    for (const record of records.slice(5)) void writer.write(utf8.encode(record));
    void writer.close();
    const rest: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest.push(value);
    }
    expect(text(rest).endsWith('event: end\ndata: {}\n\n')).toBe(true);
  });
});

describe('the encoder’s contract, fused', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an HTTP error status is the last record, and the stream closes normally', async () => {
    const response = new Response(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), { status: 529 });
    const { values, error } = await settle(fromResponse(response, { provider: 'anthropic' }, new FieldEventStream(), new EventStreamEncoder()));
    expect(error).toBeUndefined();
    expect(text(values)).toMatch(/^event: error\ndata: \{"name":"ProviderError",[^\n]*"status":529[^\n]*\}\n\n$/);
    const page = await settle(streamOf(values).pipeThrough(new EventStreamDecoder()));
    expect(page.error).toMatchObject({ name: 'ProviderError', status: 529 });
  });

  it('a cut connection: what came before, then the error record, with nothing of the cause on the wire', async () => {
    const log: string[] = [];
    const cause = new TypeError('terminated', { cause: new Error('connect ECONNRESET 10.1.2.3:443') });
    const body = loggedBody(anthropicRecords(DELTAS), log, { failAfter: 4, error: cause });
    const { values, error } = await settle(fromResponse(new Response(body), { provider: 'anthropic' }, new NdjsonEncoder()));
    expect(error).toBeUndefined();
    const wire = text(values);
    expect(wire).not.toContain('10.1.2.3');
    expect(wire).not.toContain('ECONNRESET');
    const lines = wire.trim().split('\n');
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ type: 'error', error: { name: 'Error' } });
    const page = await settle(streamOf(values).pipeThrough(new NdjsonDecoder()));
    expect(page.values.length).toBeGreaterThan(2);
    expect(page.error).toBeInstanceOf(Error);
  });

  it('a stage’s error: the events before it, the error as the last record, the body cancelled', async () => {
    const log: string[] = [];
    // Not JSON where the provider's record belongs: the decoder's typed error.
    const records = [...anthropicRecords(DELTAS).slice(0, 3), 'event: content_block_delta\ndata: {not json\n\n', ...anthropicRecords(DELTAS).slice(3)];
    const { values, error } = await settle(fromResponse(new Response(loggedBody(records, log)), { provider: 'anthropic' }, new FieldEventStream(), new EventStreamEncoder()));
    expect(error).toBeUndefined();
    const wire = text(values);
    expect(wire).toMatch(/event: error\ndata: \{"name":"ProviderError"[^\n]*\}\n\n$/);
    expect(wire).not.toContain('event: end');
    expect(log.some((line) => line.startsWith('body cancelled'))).toBe(true);
  });

  it('keep-alive: an idle read gets a comment once per quiet period, and no timer outlives the stream', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let release!: () => void;
    const records = anthropicRecords(DELTAS);
    let i = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (i === 2) await new Promise<void>((resolve) => (release = resolve));
          if (i === records.length) controller.close();
          else controller.enqueue(utf8.encode(records[i++] as string));
        },
      },
      { highWaterMark: 0 },
    );
    const reader = fromResponse(new Response(body), { provider: 'anthropic' }, new EventStreamEncoder({ keepAliveMs: 1000 })).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('toolu_1');
    const pending = reader.read();
    await vi.advanceTimersByTimeAsync(999);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(new TextDecoder().decode((await pending).value)).toBe(': keep-alive\n\n');
    // Still waiting: one timer, armed again for the next quiet period.
    const next = reader.read();
    await vi.advanceTimersByTimeAsync(1000);
    expect(new TextDecoder().decode((await next).value)).toBe(': keep-alive\n\n');
    release();
    const rest: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest.push(value);
    }
    expect(text(rest).endsWith('event: end\ndata: {}\n\n')).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('cancelling the bytes cancels the response body, with the reason, and stops the keep-alive', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const log: string[] = [];
    const reader = fromResponse(new Response(loggedBody(anthropicRecords(DELTAS), log)), { provider: 'anthropic' }, new UIMessageStreamEncoder({ keepAliveMs: 5000 })).getReader();
    await reader.read();
    await reader.cancel('page went away');
    expect(log.at(-1)).toBe('body cancelled: page went away');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('misuse is a TypeError, before anything is locked', () => {
  it('an encoder anywhere but last', () => {
    const provider = new ProviderEventStream({ provider: 'anthropic' });
    const fields = new FieldEventStream();
    expect(() => chain(provider, new EventStreamEncoder() as never, fields)).toThrow(/relay encoder, which can only be the last stage/);
    expect(provider.writable.locked || fields.writable.locked).toBe(false);
    expect(() => fromResponse(new Response(''), { provider: 'anthropic' }, new NdjsonEncoder() as never, fields)).toThrow(TypeError);
  });

  it('an encoder in use: piped, locked, or taken by fromResponse already', () => {
    const piping = new EventStreamEncoder();
    void streamOf([]).pipeTo(piping.writable);
    expect(() => chain(new ProviderEventStream({ provider: 'anthropic' }), piping)).toThrow(/already in use/);
    const taken = new EventStreamEncoder();
    fromResponse(new Response(''), { provider: 'anthropic' }, taken);
    expect(taken.readable.locked && taken.writable.locked).toBe(true);
    const stage = new FieldEventStream();
    expect(() => fromResponse(new Response(''), { provider: 'anthropic' }, stage, taken)).toThrow(/already in use/);
    expect(stage.writable.locked).toBe(false);
  });

  it('chain(…, encoder) is that encoder, and can be chained again before use', async () => {
    const encoder = new NdjsonEncoder();
    const fields = chain(new FieldEventStream(), encoder);
    expect(fields).toBe(encoder);
    const whole = chain(new ProviderEventStream({ provider: 'anthropic' }), fields);
    expect(whole).toBe(encoder);
    const { values } = await settle(streamOf(anthropicRecords(DELTAS).map((r) => utf8.encode(r))).pipeThrough(whole));
    const turn = await collectTurn(streamOf(values).pipeThrough(new NdjsonDecoder()) as never);
    expect(turn.toolCalls[0]?.arguments).toEqual({ path: 'a.ts', content: 'one two three' });
  });
});
