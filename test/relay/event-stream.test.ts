/**
 * EventStreamEncoder → EventStreamDecoder: every event type of every stage over the recordings,
 * and whole recorded turns, come back deep-equal (errors inside events of the same class with the
 * same fields) under every cutting; upstream errors and the end reach the client; keep-alive;
 * cancellation; Last-Event-ID.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ArgumentValidationError,
  ArgumentValidationStream,
  ConversationEventStream,
  EVENT_STREAM_HEADERS,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  JsonStreamError,
  ProviderError,
  RelayError,
  TaggedToolCallStream,
  TaggedToolCallError,
  ToolCallArgumentsError,
  lastEventId,
  resumeEventStream,
  type PipelineEvent,
  type RelayTerminal,
} from '../../src/index.ts';
import { args, cutAt, flush, oneByOne, randomCuts, recordingSource as recordingChunks, rng, settle, start, streamOf, text } from '../helpers.ts';
import { readManifest } from '../manifest.ts';
import { PROVIDER_OF_DIR, readableRecordings } from '../providers/event-stream-helpers.ts';
import { bytesOf, decode, encode, eventsThen, expectSame, made, recordingSource, rejectAll, STAGES, type Made } from './relay-helpers.ts';

const utf8 = new TextDecoder();

async function roundTrip(source: Made, pieces: (bytes: Uint8Array) => Array<Uint8Array | string>, how: string): Promise<Uint8Array> {
  const bytes = await encode(source, new EventStreamEncoder());
  expectSame(await decode(pieces(bytes), new EventStreamDecoder()), source, how);
  return bytes;
}

/** Hand-made events that make the errors of the vocabulary: invalid arguments, a malformed tagged call. */
const HAND_MADE: ReadonlyArray<readonly [string, () => ReadableStream<unknown>, ReadonlyArray<() => { writable: WritableStream<never>; readable: ReadableStream<unknown> }>]> = [
  [
    'tool-call-failed with a ToolCallArgumentsError (cause: JsonStreamError)',
    () => streamOf([start(0, 'call_1', 'write_file'), args(0, '{"path":"a.txt","content":"é🙂'), args(0, '"x}'), flush(0)]),
    [() => new ConversationEventStream({ isolateErrors: true, progress: true })],
  ],
  [
    'tool-call-failed with a TaggedToolCallError, and the error in a flush’s metadata',
    () => streamOf([text(0, 'Sure. <tool_call>{"name": "write_file", "arguments": {"path": 1}} trailing</tool_call> done'), flush(0)]),
    [() => new TaggedToolCallStream(), () => new ConversationEventStream({ isolateErrors: true, passthrough: true })],
  ],
  [
    'structured output with its progress (and a -0)',
    () => streamOf([{ type: 'part', index: 0, part: { type: 'structured', json: '{"a":[1,' } }, { type: 'part', index: 0, part: { type: 'structured', json: '-0]}' } }, flush(0)]),
    [() => new ConversationEventStream({ progress: true })],
  ],
  [
    'tagged call error passed through as metadata',
    () => streamOf([text(0, '<tool_call>[1]</tool_call><tool_call>{"name": "f", "arguments": {"a": tru}}</tool_call>'), flush(0)]),
    [() => new TaggedToolCallStream()],
  ],
];

describe('EventStreamEncoder → EventStreamDecoder', () => {
  it('EventStreamEncoder writes the events of one burst as one record (id: the last one\'s, data: their batch, identities by number once written), then end; EVENT_STREAM_HEADERS fit a Response', async () => {
    const events = [
      { type: 'field-start', key: 'path', index: 1, toolCallId: 'c', toolName: 'write_file' },
      { type: 'field-delta', key: 'path', text: 'a\nb', index: 1, toolCallId: undefined },
      { type: 'field-delta', key: 'path', text: 'c', index: 1, toolCallId: 'c', toolName: 'write_file' },
      { value: -0 },
    ];
    const bytes = await bytesOf(streamOf(events).pipeThrough(new EventStreamEncoder<unknown>({ firstId: 7 })));
    // [0]: the tables start; a context [index, id, name, flags (4 index, 8 id, 16 name), message id]
    // and a string longer than 3 characters are numbered in the order written (contexts 0 and 1;
    // "write_file" 0, "path" 1); an event of no type the batch form knows is written whole.
    expect(utf8.decode(bytes)).toBe(
      'id: 10\ndata: [[0],[5,[1,"c","write_file",28,null],"path",0],[6,[1,null,null,4,null],1,"a\\nb"],[6,0,1,"c"],{"value":-0}]\n\n' +
        'event: end\ndata: {}\n\n',
    );
    const response = new Response(streamOf(events).pipeThrough(new EventStreamEncoder<unknown>()), { headers: EVENT_STREAM_HEADERS });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const decoded = await decode([new Uint8Array(await response.arrayBuffer())], new EventStreamDecoder());
    expect(decoded.error).toBeUndefined();
    expect(decoded.events).toEqual(events);
    expect(Object.is((decoded.events[3] as { value: number }).value, -0)).toBe(true);
    expect(Object.hasOwn(decoded.events[1] as object, 'toolCallId')).toBe(false);
  });

  it('EventStreamDecoder gives every event type of every stage back, deep-equal, over every recording (whole and cut at random)', async () => {
    const types = new Set<string>();
    const partTypes = new Set<string>();
    for (const recording of readableRecordings()) {
      for (const [name, stages] of STAGES) {
        const source = await made(recordingSource(recording), stages);
        for (const event of source.events as PipelineEvent[]) {
          types.add(event.type);
          if (event.type !== 'part') continue;
          partTypes.add(event.part.type);
          if (event.part.type === 'tool-call-start' && event.part.providerExecuted === true) partTypes.add('tool-call-start:provider');
        }
        await roundTrip(source, (bytes) => [bytes], `${recording.file} through ${name}, whole`);
        await roundTrip(source, (bytes) => randomCuts(bytes, rng(recording.file.length + name.length), 12), `${recording.file} through ${name}, random cuts`);
      }
    }
    for (const [name, input, stages] of HAND_MADE) {
      const source = await made(input(), stages);
      for (const event of source.events) types.add((event as PipelineEvent).type);
      await roundTrip(source, (bytes) => oneByOne(bytes), `${name}, one byte at a time`);
    }
    // Every type of PipelineEvent was relayed at least once.
    expect([...types].sort()).toEqual(
      [
        'field-delta', 'field-end', 'field-start', 'finished', 'flush', 'message', 'part', 'path-update', 'provider-tool-call',
        'provider-tool-result', 'reasoning', 'refusal', 'streaming-tool-call', 'structured', 'structured-progress', 'tool-call',
        'tool-call-failed', 'tool-call-incomplete', 'tool-call-progress', 'validation-error',
      ],
    );
    // And every type of part the recordings make (`structured` parts need the structuredOutput
    // option), a provider-run call's start (with `providerExecuted`) among them.
    expect([...partTypes].sort()).toEqual([
      'message', 'provider-tool-result', 'reasoning', 'refusal', 'tool-call-arguments', 'tool-call-start', 'tool-call-start:provider',
    ]);
  });

  it('EventStreamDecoder gives the errors inside events back as their classes, with their fields and causes', async () => {
    const failed = await made(HAND_MADE[0]![1](), HAND_MADE[0]![2]);
    const event = failed.events.find((e) => (e as PipelineEvent).type === 'tool-call-failed') as { error: ToolCallArgumentsError };
    expect(event.error).toBeInstanceOf(ToolCallArgumentsError);
    const bytes = await encode(failed, new EventStreamEncoder());
    // The error's page record is plain JSON, its cause inside it: one error listed.
    expect(utf8.decode(bytes)).toContain('"$errors":["/error"]');
    const decoded = await decode([bytes], new EventStreamDecoder());
    const back = decoded.events.find((e) => (e as PipelineEvent).type === 'tool-call-failed') as { error: ToolCallArgumentsError };
    expect(back.error).toBeInstanceOf(ToolCallArgumentsError);
    expect(back.error.cause).toBeInstanceOf(JsonStreamError);
    expect([back.error.toolCallId, back.error.toolName, back.error.index, back.error.offset, back.error.code, back.error.message]).toEqual(['call_1', 'write_file', 0, 31, 'invalid-json', 'the arguments of tool call #0: the JSON text is not valid at offset 31, at "x}"']);
    expect(back.error.cause?.path).toBe(event.error.cause?.path);
    expect(back.error.stack).not.toContain('relay-helpers');

    const tagged = await made(HAND_MADE[1]![1](), HAND_MADE[1]![2]);
    const taggedBack = await decode([await encode(tagged, new EventStreamEncoder())], new EventStreamDecoder());
    const taggedEvent = taggedBack.events.find((e) => (e as PipelineEvent).type === 'tool-call-failed') as { error: TaggedToolCallError };
    expect(taggedEvent.error).toBeInstanceOf(TaggedToolCallError);
    expect(taggedEvent.error.code).toBe('unexpected-text');

    // An error in a flush's metadata (a tagged call that could not be read) comes back too.
    const metadata = await made(HAND_MADE[3]![1](), HAND_MADE[3]![2]);
    const withError = (events: unknown[]) => events.filter((e) => (e as PipelineEvent).type === 'flush' && (e as { metadata?: { toolCallError?: unknown } }).metadata?.toolCallError !== undefined);
    expect(withError(metadata.events).length).toBe(2);
    const metadataBack = await decode([await encode(metadata, new EventStreamEncoder())], new EventStreamDecoder());
    for (const event of withError(metadataBack.events)) expect((event as { metadata: { toolCallError: unknown } }).metadata.toolCallError).toBeInstanceOf(TaggedToolCallError);
    expectSame(metadataBack, metadata, 'errors in metadata');
  });

  it('EventStreamDecoder: a whole recorded turn comes back under every cutting (fast-check), with UTF-8 characters split', async () => {
    const recording = readManifest().find((r) => r.file === 'anthropic/server-tool-use-code-execution-escapes-emoji.sse')!;
    const source = await made(recordingSource(recording), [() => new ConversationEventStream({ progress: true, passthrough: true })]);
    const bytes = await encode(source, new EventStreamEncoder());
    // The recording's emoji and accents are multi-byte in the stream: some cuts split them.
    expect(bytes.length).toBeGreaterThan(new TextDecoder().decode(bytes).length);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), fc.boolean(), async (cuts, asText) => {
        const pieces = cutAt(bytes, [...cuts].sort((a, b) => a - b));
        const input = asText ? pieces.map((piece) => new TextDecoder().decode(piece)) : pieces;
        // Cut text is only fed where the cuts fall between characters: a string cannot hold half of one.
        if (asText && input.join('') !== new TextDecoder().decode(bytes)) return;
        expectSame(await decode(input, new EventStreamDecoder()), source, `cut at ${cuts.join(',')}`);
      }),
      { numRuns: 60 },
    );
    expectSame(await decode(oneByOne(bytes), new EventStreamDecoder()), source, 'one byte at a time');
  });

  it('EventStreamDecoder: a short stream comes back when cut at every single point and one byte at a time', async () => {
    const source = await made(streamOf([text(0, 'é🙂\u2028'), flush(0), start(1, 'c', 'f'), args(1, '{"a":-0,"b":"\\u0000"}'), flush(1)]), [() => new FieldEventStream()]);
    const bytes = await encode(source, new EventStreamEncoder());
    for (let cut = 1; cut < bytes.length; cut++) expectSame(await decode(cutAt(bytes, [cut]), new EventStreamDecoder()), source, `cut at ${cut}`);
    expectSame(await decode(oneByOne(bytes), new EventStreamDecoder()), source, 'one byte at a time');
    const text1 = new TextDecoder().decode(bytes);
    expectSame(await decode(oneByOne(text1), new EventStreamDecoder()), source, 'one code unit at a time, as text');
  });

  it('EventStreamEncoder sends an upstream error as event: error; EventStreamDecoder errors with it (ProviderError, from every recording with an error)', async () => {
    const withErrors = readManifest().filter((r) => r.errors !== undefined && PROVIDER_OF_DIR[r.dir] !== undefined);
    expect(withErrors.length).toBeGreaterThan(2);
    for (const recording of withErrors) {
      const source = await made(recordingSource(recording), [() => new FieldEventStream()]);
      expect(source.error, recording.file).toBeInstanceOf(ProviderError);
      const bytes = await roundTrip(source, (b) => randomCuts(b, rng(3), 10), recording.file);
      const last = utf8.decode(bytes).split('\n\n').filter(Boolean).pop()!;
      expect(last.startsWith('event: error\ndata: {"name":"ProviderError","message":'), recording.file).toBe(true);
      expect(last).toContain(`"provider":"${(source.error as ProviderError).provider}","type":${JSON.stringify((source.error as ProviderError).type)}`);
      expect(last).not.toContain('stack');
      expect(utf8.decode(bytes)).not.toContain('event: end');
    }
  });

  it('EventStreamDecoder errors with the ToolCallArgumentsError, ArgumentValidationError, TypeError and non-Error reasons the stream before errored with', async () => {
    const argumentsError = await made(streamOf([start(0, 'c1', 'f'), args(0, '{"a":}'), flush(0)]), [() => new ConversationEventStream()]);
    expect(argumentsError.error).toBeInstanceOf(ToolCallArgumentsError);
    await roundTrip(argumentsError, (b) => oneByOne(b), 'ToolCallArgumentsError');

    const validation = await made(streamOf([start(0, 'c1', 'f'), args(0, '{"content":["x"]}'), flush(0)]), [() => new ArgumentValidationStream({ schema: rejectAll, errorOnInvalid: true })]);
    expect(validation.error).toBeInstanceOf(ArgumentValidationError);
    await roundTrip(validation, (b) => [b], 'ArgumentValidationError');

    // An error not argstream's (a network TypeError, a string) goes as an Error with a generic message: its text and cause stay on the server.
    const typeError = new TypeError('network down', { cause: new RangeError('inner') });
    const decoded = await decode([await encode({ events: [{ type: 'x' }], error: typeError }, new EventStreamEncoder<unknown>())], new EventStreamDecoder());
    expect(Object.getPrototypeOf(decoded.error)).toBe(Error.prototype);
    expect(decoded.error).toMatchObject({ name: 'Error', message: 'the stream failed' });
    expect((decoded.error as Error).cause).toBeUndefined();
    expectSame(decoded, { events: [{ type: 'x' }], error: typeError }, 'TypeError with a cause');

    const plain = await decode([await encode({ events: [], error: 'gone' }, new EventStreamEncoder<unknown>())], new EventStreamDecoder());
    expect(plain.error).toBeInstanceOf(Error);
    expect((plain.error as Error).message).toBe('the stream failed');

    // An application's class goes when the encoder is given it (name, message, code, status), and comes back as it with the decoder's.
    class QuotaError extends Error {
      override readonly name = 'QuotaError';
      readonly code = 'quota';
      readonly limit = 5;
    }
    const custom = await decode([await encode({ events: [], error: new QuotaError('over quota') }, new EventStreamEncoder<unknown>({ errorClasses: { QuotaError } }))], new EventStreamDecoder({ errorClasses: { QuotaError } }));
    expect(custom.error).toBeInstanceOf(QuotaError);
    expect(custom.error).toMatchObject({ name: 'QuotaError', message: 'over quota', code: 'quota' });
    expect((custom.error as QuotaError).limit).toBeUndefined();
    const unlisted = await decode([await encode({ events: [], error: new QuotaError('over quota') }, new EventStreamEncoder<unknown>())], new EventStreamDecoder({ errorClasses: { QuotaError } }));
    expect(unlisted.error).toMatchObject({ name: 'Error', message: 'the stream failed' });
  });

  it('EventStreamDecoder errors with RelayError incomplete (and the last id) when the stream ends without its end event', async () => {
    const source = await made(streamOf([text(0, 'hello'), flush(0)]), []);
    const bytes = await encode(source, new EventStreamEncoder());
    const whole = utf8.decode(bytes);
    const cutBeforeEnd = whole.slice(0, whole.indexOf('event: end'));
    const decoder = new EventStreamDecoder();
    const decoded = await decode([cutBeforeEnd], decoder);
    expect(decoded.events).toEqual(source.events);
    expect(decoded.error).toBeInstanceOf(RelayError);
    expect(decoded.error).toMatchObject({ code: 'incomplete', lastEventId: '2' });
    expect(decoder.lastEventId).toBe('2');
    // Cut inside the record (both events came in one burst, so one record): none of its events is delivered.
    expect(whole.startsWith('id: 2\n')).toBe(true);
    const inside = await decode([whole.slice(0, whole.indexOf('id: 2') + 12)], new EventStreamDecoder());
    expect(inside.events).toEqual([]);
    expect(inside.error).toMatchObject({ code: 'incomplete', lastEventId: undefined });
    // Nothing at all.
    expect((await decode([], new EventStreamDecoder())).error).toMatchObject({ code: 'incomplete', lastEventId: undefined });
  });

  it('EventStreamDecoder refuses what its encoder does not write: an event after end, foreign lines, data that is not JSON, an endless event', async () => {
    expect((await decode(['event: end\ndata: {}\n\nid: 1\ndata: {"type":"x"}\n\n'], new EventStreamDecoder())).error).toMatchObject({ code: 'after-end' });
    expect((await decode(['<html>\n'], new EventStreamDecoder())).error).toMatchObject({ code: 'not-sse' });
    expect((await decode(['id: 1\ndata: {oops\n\n'], new EventStreamDecoder())).error).toMatchObject({ code: 'invalid-data' });
    expect((await decode(['id: 1\ndata: {"a":1,"$errors":["/b"]}\n\n'], new EventStreamDecoder())).error).toMatchObject({ code: 'invalid-data' });
    expect((await decode([`data: "${'x'.repeat(200)}`], new EventStreamDecoder({ maxEventLength: 100 }))).error).toMatchObject({ code: 'max-event-length' });
    expect((await decode([42 as unknown as string], new EventStreamDecoder())).error).toMatchObject({ code: 'invalid-input' });
    // A server without ids, retry or comments: still events.
    const foreign = await decode([': hi\nretry: 1000\ndata: {"type":"a"}\n\nevent: end\ndata: {}\n\n'], new EventStreamDecoder<unknown>());
    expect(foreign).toEqual({ events: [{ type: 'a' }], error: undefined });
  });

  it('EventStreamEncoder sends an event it cannot write as event: error and cancels its source', async () => {
    const { stream, log } = recordingChunks<unknown>([{ type: 'a' }, { type: 'b', big: 1n }, { type: 'c' }]);
    const decoded = await decode([await bytesOf(stream.pipeThrough(new EventStreamEncoder<unknown>()))], new EventStreamDecoder());
    expect(decoded.events).toEqual([{ type: 'a' }]);
    expect(decoded.error).toMatchObject({ name: 'RelayError', code: 'invalid-event' });
    expect(log.cancelled).toBeInstanceOf(RelayError);
    expect((await decode([await bytesOf(streamOf([{ type: 'a', $errors: [] }]).pipeThrough(new EventStreamEncoder<unknown>()))], new EventStreamDecoder())).error).toMatchObject({ code: 'invalid-event' });
  });

  it('EventStreamEncoder: cancelling its readable side (the client went away) cancels the source; backpressure holds writes', async () => {
    // Events of 20 KB: a record goes out at 64 Ki characters, and the encoder holds 16 records.
    const { stream, log } = recordingChunks<unknown>(Array.from({ length: 200 }, (_, i) => ({ type: 'n', i, text: 'x'.repeat(20_000) })));
    let pulled = 0;
    const counted = stream.pipeThrough(
      new TransformStream({
        transform: (event, controller) => {
          pulled++;
          controller.enqueue(event);
        },
      }),
    );
    const encoded = counted.pipeThrough(new EventStreamEncoder<unknown>());
    const reader = encoded.getReader();
    await reader.read();
    const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));
    // Let the pipe fill the encoder's queue: wait until the count stops moving.
    for (let stable = 0, last = -1, turns = 0; stable < 5 && turns < 500; turns++) {
      await macrotask();
      stable = pulled === last ? stable + 1 : 0;
      last = pulled;
    }
    // A reader that read one record holds the pipe: the encoder holds 64 KiB (a few of these events), not all 200.
    expect(pulled).toBeGreaterThan(1);
    expect(pulled).toBeLessThan(12);
    await reader.cancel(new Error('client left'));
    for (let turns = 0; turns < 500 && log.cancelled === undefined; turns++) await macrotask();
    expect(log.cancelled).toEqual(new Error('client left'));
    expect(log.pullsAfterEnd).toBe(0);
  });

  it('EventStreamEncoder after fused stages and after a foreign TransformStream relays the same events', async () => {
    const recording = readManifest().find((r) => r.file === 'anthropic/text-then-2-parallel-tool-use.sse')!;
    const fused = await bytesOf(recordingSource(recording).pipeThrough(new ConversationEventStream({ progress: true })).pipeThrough(new FieldEventStream()).pipeThrough(new EventStreamEncoder()));
    const foreign = await bytesOf(
      recordingSource(recording)
        .pipeThrough(new ConversationEventStream({ progress: true }))
        .pipeThrough(new FieldEventStream())
        .pipeThrough(new TransformStream<PipelineEvent, PipelineEvent>())
        .pipeThrough(new EventStreamEncoder()),
    );
    const expected = await made(recordingSource(recording), [() => new ConversationEventStream({ progress: true }), () => new FieldEventStream()]);
    expectSame(await decode([fused], new EventStreamDecoder()), expected, 'fused');
    expectSame(await decode([foreign], new EventStreamDecoder()), expected, 'after a foreign TransformStream');
    // And the decoder's output goes on through argstream stages.
    const again = await settle(streamOf([fused]).pipeThrough(new EventStreamDecoder()).pipeThrough(new TransformStream()));
    expect(again.values).toEqual(expected.events);
  });
});

describe('EventStreamEncoder keep-alive', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('EventStreamEncoder writes a comment after keepAliveMs without output, and leaves no timer once closed, cancelled or errored', async () => {
    vi.useFakeTimers();
    for (const ending of ['close', 'cancel', 'abort', 'bad event'] as const) {
      const encoder = new EventStreamEncoder<unknown>({ keepAliveMs: 1000 });
      const writer = encoder.writable.getWriter();
      const reader = encoder.readable.getReader();
      expect(vi.getTimerCount(), ending).toBe(0); // not before anyone reads
      const first = reader.read();
      await vi.advanceTimersByTimeAsync(0);
      expect(vi.getTimerCount(), ending).toBe(1);
      await vi.advanceTimersByTimeAsync(1000);
      expect(utf8.decode((await first).value)).toBe(': keep-alive\n\n');
      const write = writer.write({ type: 'a' });
      await write;
      // The burst's record goes out once no write came for a few microtask turns (no timer of its own).
      expect(vi.getTimerCount(), ending).toBe(1);
      await vi.advanceTimersByTimeAsync(0);
      expect(utf8.decode((await reader.read()).value)).toBe('id: 1\ndata: [[0],{"type":"a"}]\n\n');
      if (ending === 'close') await writer.close();
      if (ending === 'cancel') await reader.cancel('gone');
      if (ending === 'abort') await writer.abort(new Error('upstream'));
      if (ending === 'bad event') await writer.write({ type: 'b', n: 1n }).catch(() => undefined);
      expect(vi.getTimerCount(), ending).toBe(0);
      await vi.advanceTimersByTimeAsync(5000);
      if (ending !== 'cancel') {
        const rest = [];
        for (let r = await reader.read(); !r.done; r = await reader.read()) rest.push(utf8.decode(r.value));
        expect(rest.join(''), ending).not.toContain('keep-alive');
        expect(rest.join('').startsWith(ending === 'close' ? 'event: end' : 'event: error'), ending).toBe(true);
      }
    }
  });

  it('EventStreamEncoder refuses a bad keepAliveMs or firstId', () => {
    expect(() => new EventStreamEncoder({ keepAliveMs: 0 })).toThrow(RangeError);
    expect(() => new EventStreamEncoder({ firstId: -1 })).toThrow(RangeError);
    expect(() => new EventStreamEncoder({ firstId: 1.5 })).toThrow(RangeError);
  });
});

describe('Last-Event-ID', () => {
  it('lastEventId reads the header: 0 when absent, the id, a RelayError for anything else', () => {
    expect(lastEventId(new Request('http://127.0.0.1/'))).toBe(0);
    expect(lastEventId(new Request('http://127.0.0.1/', { headers: { 'Last-Event-ID': '42' } }))).toBe(42);
    expect(lastEventId(new Headers({ 'last-event-id': ' 7 ' }))).toBe(7);
    expect(lastEventId(null)).toBe(0);
    expect(() => lastEventId('abc')).toThrow(RelayError);
    expect(() => lastEventId('-1')).toThrow(expect.objectContaining({ code: 'invalid-last-event-id' }));
    expect(() => lastEventId('99999999999999999')).toThrow(RelayError);
  });

  it('resumeEventStream: a client cut mid-stream reconnects with its decoder’s last id and the events concatenate to the original', async () => {
    const recording = readManifest().find((r) => r.file === 'anthropic/text-then-2-parallel-tool-use.sse')!;
    // The application keeps the events it sends, then how the stream ended.
    const kept: Array<PipelineEvent | RelayTerminal> = [];
    const original = await made(recordingSource(recording), [() => new ConversationEventStream({ progress: true, passthrough: true })]);
    const first = await bytesOf(
      eventsThen(original.events, undefined)
        .pipeThrough(
          new TransformStream<unknown, PipelineEvent>({
            transform(event, controller) {
              kept.push(event as PipelineEvent);
              controller.enqueue(event as PipelineEvent);
            },
          }),
        )
        .pipeThrough(new EventStreamEncoder()),
    );
    kept.push({ type: 'end' });
    for (const cut of [1, 40, Math.floor(first.length / 3), first.length - 30]) {
      // The connection drops after `cut` bytes.
      const decoder = new EventStreamDecoder();
      const before = await decode([first.slice(0, cut)], decoder);
      expect(before.error).toMatchObject({ code: 'incomplete' });
      const headers = decoder.lastEventId === undefined ? {} : { 'last-event-id': decoder.lastEventId };
      const request = new Request('http://127.0.0.1/api/chat', { headers });
      const response = new Response(resumeEventStream(kept, request), { headers: EVENT_STREAM_HEADERS });
      const after = await decode([new Uint8Array(await response.arrayBuffer())], new EventStreamDecoder());
      expect(after.error).toBeUndefined();
      expectSame({ events: [...before.events, ...after.events], error: undefined }, original, `cut after ${cut} bytes`);
    }
    // From an async iterable (an application's own store), by number.
    async function* store() {
      yield* kept;
    }
    const resumed = await decode([await bytesOf(resumeEventStream(store(), 3))], new EventStreamDecoder());
    expect(resumed.events).toEqual(original.events.slice(3));
    // The events after 3, read at once, go out as one record: its id is the last one's.
    expect(utf8.decode(await bytesOf(resumeEventStream(kept, 3))).startsWith(`id: ${original.events.length}\n`)).toBe(true);
  });
});
