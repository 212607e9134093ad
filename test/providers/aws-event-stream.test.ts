import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type AwsEventStreamMessage,
  AwsEventStreamDecoder,
  crc32,
} from '../../src/providers/aws-event-stream.ts';
import { readFixture, rng } from '../helpers.ts';
import { concatBytes, decodedFrames, encodeFrame, frameOf, frameOffsets } from './event-stream-helpers.ts';

function decodeAll(chunks: readonly Uint8Array[], options = {}): AwsEventStreamMessage[] {
  const decoder = new AwsEventStreamDecoder(options);
  const frames: AwsEventStreamMessage[] = [];
  for (const chunk of chunks) decoder.push(chunk, (frame) => frames.push(frame));
  decoder.end();
  return frames;
}

describe('AwsEventStreamDecoder', () => {
  it('crc32 agrees with zlib on random inputs and known values', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    const random = rng(7);
    for (let n = 0; n < 50; n++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 256));
      expect(crc32(bytes)).toBe(zlibCrc32(bytes));
    }
  });

  it('AwsEventStreamDecoder decodes the Bedrock capture to its decoded twin, at every split point', () => {
    const bytes = readFixture('providers/bedrock/reasoning-signature-then-text.eventstream');
    const twin = decodedFrames(new TextDecoder().decode(readFixture('providers/bedrock/reasoning-signature-then-text.decoded.jsonl')));
    const expected = twin.map((frame) => ({ headers: frame.headers, payload: frame.payload }));
    const read = (frames: AwsEventStreamMessage[]) =>
      frames.map((f) => ({ headers: f.headers, payload: JSON.parse(new TextDecoder().decode(f.payload)) as unknown }));
    expect(read(decodeAll([bytes]))).toEqual(expected);
    for (let at = 1; at < bytes.length; at++) {
      expect(read(decodeAll([bytes.subarray(0, at), bytes.subarray(at)]))).toEqual(expected);
    }
  });

  it('AwsEventStreamDecoder reads every header value type', () => {
    const name = (text: string): number[] => [text.length, ...new TextEncoder().encode(text)];
    const headers = [
      ...name('t'), 0,
      ...name('f'), 1,
      ...name('byte'), 2, 0xff,
      ...name('short'), 3, 0x01, 0x02,
      ...name('int'), 4, 0x00, 0x00, 0x01, 0x00,
      ...name('long'), 5, 0, 0, 0, 0, 0, 0, 0x01, 0x00,
      ...name('bytes'), 6, 0x00, 0x02, 0xca, 0xfe,
      ...name('str'), 7, 0x00, 0x02, 0x68, 0x69,
      ...name('time'), 8, 0, 0, 0x01, 0x8f, 0, 0, 0, 0,
      ...name('uuid'), 9, ...Array.from({ length: 16 }, (_, i) => i),
    ];
    const frame = frameOf(headers, new TextEncoder().encode('{}'));
    const [decoded] = decodeAll([frame]);
    expect(decoded?.headers).toEqual({
      t: true,
      f: false,
      byte: -1,
      short: 0x0102,
      int: 256,
      long: 256n,
      bytes: new Uint8Array([0xca, 0xfe]),
      str: 'hi',
      time: 0x018f00000000n,
      uuid: Uint8Array.from({ length: 16 }, (_, i) => i),
    });
    expect(new TextDecoder().decode(decoded?.payload)).toBe('{}');
  });

  it('AwsEventStreamDecoder delivers the frames before a corrupt one, then throws crc-mismatch', () => {
    const frames = [0, 1, 2].map((n) => encodeFrame({ ':event-type': `e${n}` }, new TextEncoder().encode(`{"n":${n}}`)));
    const body = concatBytes(frames);
    const corrupt = body.slice();
    const offsets = frameOffsets(body);
    const at = (offsets[2] as number) + 20;
    corrupt[at] = (corrupt[at] as number) ^ 0x10;
    const decoder = new AwsEventStreamDecoder();
    const seen: string[] = [];
    expect(() => decoder.push(corrupt, (f) => seen.push(String(f.headers[':event-type'])))).toThrow(
      expect.objectContaining({ provider: 'bedrock', type: 'invalid-stream', code: 'crc-mismatch' }),
    );
    expect(seen).toEqual(['e0', 'e1']);
  });

  it('AwsEventStreamDecoder throws invalid-frame for impossible lengths and truncated at a cut end', () => {
    const prelude = new Uint8Array(16);
    const view = new DataView(prelude.buffer);
    view.setUint32(0, 16);
    view.setUint32(4, 8); // headers longer than the frame allows
    view.setUint32(8, zlibCrc32(prelude.subarray(0, 8)));
    expect(() => new AwsEventStreamDecoder().push(prelude, () => {})).toThrow(expect.objectContaining({ code: 'invalid-frame' }));

    const frame = encodeFrame({ ':event-type': 'x' }, new TextEncoder().encode('{}'));
    const decoder = new AwsEventStreamDecoder();
    decoder.push(frame.subarray(0, 5), () => {});
    expect(() => decoder.end()).toThrow(expect.objectContaining({ code: 'truncated' }));
  });

  it('AwsEventStreamDecoder decodes thousands of frames cut at random sizes', () => {
    const frames = Array.from({ length: 2000 }, (_, n) => encodeFrame({ ':event-type': 'e' }, new TextEncoder().encode(`{"n":${n}}`)));
    const body = concatBytes(frames);
    const random = rng(3);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < body.length; ) {
      const size = 1 + Math.floor(random() * 200);
      chunks.push(body.subarray(at, at + size));
      at += size;
    }
    const decoded = decodeAll(chunks, { maxFrameBytes: 1024 });
    expect(decoded.map((f) => (JSON.parse(new TextDecoder().decode(f.payload)) as { n: number }).n)).toEqual(frames.map((_, n) => n));
  });
});
