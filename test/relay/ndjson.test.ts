/**
 * NdjsonEncoder → NdjsonDecoder: the same round trips as the event stream, one JSON per line.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConversationEventStream,
  NDJSON_HEADERS,
  NdjsonDecoder,
  NdjsonEncoder,
  ProviderError,
  RelayError,
  ToolCallArgumentsError,
  type PipelineEvent,
} from '../../src/index.ts';
import { args, cutAt, flush, oneByOne, randomCuts, rng, start, streamOf, text } from '../helpers.ts';
import { readManifest } from '../manifest.ts';
import { PROVIDER_OF_DIR, readableRecordings } from '../providers/event-stream-helpers.ts';
import { bytesOf, decode, encode, expectSame, made, recordingSource, STAGES, type Made } from './relay-helpers.ts';

const utf8 = new TextDecoder();

async function roundTrip(source: Made, pieces: (bytes: Uint8Array) => Array<Uint8Array | string>, how: string): Promise<Uint8Array> {
  const bytes = await encode(source, new NdjsonEncoder());
  expectSame(await decode(pieces(bytes), new NdjsonDecoder()), source, how);
  return bytes;
}

describe('NdjsonEncoder → NdjsonDecoder', () => {
  it('NdjsonEncoder writes the events of one burst as one line (a batch), then the end line; NDJSON_HEADERS', async () => {
    const bytes = await bytesOf(streamOf([{ type: 'a', n: -0, gone: undefined }, { type: 'b', text: 'x\ny' }, { type: 'part', index: 2, part: { type: 'message', text: 'hi' } }]).pipeThrough(new NdjsonEncoder<unknown>()));
    expect(utf8.decode(bytes)).toBe('[[0],{"type":"a","n":-0},{"type":"b","text":"x\\ny"},[1,2,"m","hi"]]\n{"type":"end"}\n');
    expect(NDJSON_HEADERS['content-type']).toBe('application/x-ndjson; charset=utf-8');
  });

  it('NdjsonDecoder gives every event type of every stage back over every recording (whole, cut at random, one byte at a time)', async () => {
    for (const recording of readableRecordings()) {
      for (const [name, stages] of STAGES) {
        const source = await made(recordingSource(recording), stages);
        await roundTrip(source, (bytes) => [bytes], `${recording.file} through ${name}, whole`);
        await roundTrip(source, (bytes) => randomCuts(bytes, rng(recording.file.length * 7 + name.length), 12), `${recording.file} through ${name}, random cuts`);
      }
    }
    const failed = await made(streamOf([start(0, 'c1', 'f'), args(0, '{"a":"é🙂"'), args(0, 'x}'), flush(0)]), [() => new ConversationEventStream({ isolateErrors: true })]);
    expect(failed.events.some((e) => (e as PipelineEvent).type === 'tool-call-failed')).toBe(true);
    await roundTrip(failed, (bytes) => oneByOne(bytes), 'a failed call, one byte at a time');
  });

  it('NdjsonDecoder: a whole recorded turn comes back under every cutting (fast-check)', async () => {
    const recording = readManifest().find((r) => r.file === 'anthropic/server-tool-use-code-execution-escapes-emoji.sse')!;
    const source = await made(recordingSource(recording), [() => new ConversationEventStream({ progress: true, passthrough: true })]);
    const bytes = await encode(source, new NdjsonEncoder());
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), async (cuts) => {
        expectSame(await decode(cutAt(bytes, [...cuts].sort((a, b) => a - b)), new NdjsonDecoder()), source, `cut at ${cuts.join(',')}`);
      }),
      { numRuns: 60 },
    );
    const short = await made(streamOf([text(0, 'é🙂'), flush(0)]), []);
    const shortBytes = await encode(short, new NdjsonEncoder());
    for (let cut = 1; cut < shortBytes.length; cut++) expectSame(await decode(cutAt(shortBytes, [cut]), new NdjsonDecoder()), short, `cut at ${cut}`);
  });

  it('NdjsonEncoder writes an upstream error as the error line; NdjsonDecoder errors with it', async () => {
    for (const recording of readManifest().filter((r) => r.errors !== undefined && PROVIDER_OF_DIR[r.dir] !== undefined)) {
      const source = await made(recordingSource(recording), []);
      expect(source.error).toBeInstanceOf(ProviderError);
      const bytes = await roundTrip(source, (b) => randomCuts(b, rng(5), 6), recording.file);
      const lines = utf8.decode(bytes).trimEnd().split('\n');
      expect(lines[lines.length - 1]!.startsWith('{"type":"error","error":{"name":"ProviderError"')).toBe(true);
    }
    const invalid = await made(streamOf([start(0, 'c1', 'f'), args(0, '{"a":}'), flush(0)]), [() => new ConversationEventStream()]);
    expect(invalid.error).toBeInstanceOf(ToolCallArgumentsError);
    await roundTrip(invalid, (b) => oneByOne(b), 'ToolCallArgumentsError');
  });

  it('NdjsonDecoder errors with RelayError incomplete when the end line is missing; refuses reserved types, lines after end, an endless line', async () => {
    const whole = utf8.decode(await encode({ events: [{ type: 'a' }, { type: 'b' }], error: undefined }, new NdjsonEncoder<unknown>()));
    for (const cut of [0, 5, whole.indexOf('{"type":"b"}'), whole.indexOf('{"type":"b"}') + 12, whole.indexOf('{"type":"end"}')]) {
      const decoded = await decode([whole.slice(0, cut)], new NdjsonDecoder());
      expect(decoded.error, `cut at ${cut}`).toBeInstanceOf(RelayError);
      expect((decoded.error as RelayError).code).toBe('incomplete');
    }
    // The end line without its newline still ends the stream; \r\n and empty lines are read.
    expect(await decode([whole.slice(0, -1).replace(/\n/g, '\r\n\n')], new NdjsonDecoder<unknown>())).toEqual({ events: [{ type: 'a' }, { type: 'b' }], error: undefined });
    expect((await decode(['{"type":"end"}\n{"type":"a"}\n'], new NdjsonDecoder())).error).toMatchObject({ code: 'after-end' });
    expect((await decode(['{"type":"a"\n'], new NdjsonDecoder())).error).toMatchObject({ code: 'invalid-data' });
    expect((await decode(['x'.repeat(200)], new NdjsonDecoder({ maxEventLength: 100 }))).error).toMatchObject({ code: 'max-event-length' });
    const reserved = await decode([await bytesOf(streamOf([{ type: 'a' }, { type: 'end' }]).pipeThrough(new NdjsonEncoder<unknown>()))], new NdjsonDecoder());
    expect(reserved.events).toEqual([{ type: 'a' }]);
    expect(reserved.error).toMatchObject({ name: 'RelayError', code: 'invalid-event' });
  });
});

describe('NdjsonEncoder keep-alive', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('NdjsonEncoder writes an empty line after keepAliveMs without output and stops its timer at the end', async () => {
    vi.useFakeTimers();
    const encoder = new NdjsonEncoder<unknown>({ keepAliveMs: 500 });
    const writer = encoder.writable.getWriter();
    const reader = encoder.readable.getReader();
    const first = reader.read();
    await vi.advanceTimersByTimeAsync(500);
    expect(utf8.decode((await first).value)).toBe('\n');
    void writer.close();
    expect(utf8.decode((await reader.read()).value)).toBe('{"type":"end"}\n');
    expect(vi.getTimerCount()).toBe(0);
    expect((await reader.read()).done).toBe(true);
  });
});
