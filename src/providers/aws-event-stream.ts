/**
 * A decoder of the AWS event-stream binary framing (`application/vnd.amazon.eventstream`), which
 * Bedrock's ConverseStream uses instead of SSE.
 *
 * A frame (AWS calls it a message) is:
 *
 * ```
 * total length   u32 BE   (the whole frame, these 4 bytes and the trailing CRC included)
 * headers length u32 BE
 * prelude CRC    u32 BE   (CRC-32 of the 8 bytes above)
 * headers        { name length u8, name UTF-8, value type u8, value }*
 * payload        total length − headers length − 16 bytes
 * message CRC    u32 BE   (CRC-32 of everything before it)
 * ```
 *
 * @module
 */
import { ProviderError, excerpt } from '../errors.ts';

/** A header value, by its wire type. `long` and `timestamp` (ms since the epoch) are bigints. */
export type AwsEventStreamHeaderValue = boolean | number | bigint | string | Uint8Array;

/** One decoded frame. */
export interface AwsEventStreamMessage {
  /** The headers by name (`:event-type`, `:message-type`, `:content-type`, `:exception-type`, …). */
  readonly headers: Readonly<Record<string, AwsEventStreamHeaderValue>>;
  /** The payload bytes (JSON for Bedrock). */
  readonly payload: Uint8Array;
}

/** Smallest possible frame: a 12-byte prelude and a 4-byte message CRC. */
const MIN_FRAME = 16;
const PRELUDE = 12;

let crcTable: Uint32Array | undefined;

/** The CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) of `bytes[start, end)`. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const table = (crcTable ??= buildCrcTable());
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = (table[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** Options of {@link AwsEventStreamDecoder}. */
export interface AwsEventStreamDecoderOptions {
  /**
   * Largest frame accepted, in bytes. A prelude announcing a longer frame errors at once, so a
   * corrupt length never makes the decoder wait for (and buffer) gigabytes.
   * @default 16 MiB
   */
  readonly maxFrameBytes?: number;
}

function invalid(code: string, message: string): ProviderError {
  return new ProviderError('bedrock', 'invalid-stream', message, { code });
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The synchronous core that cuts AWS event-stream bytes into frames, whatever the chunking.
 *
 * Bytes are kept only until their frame is complete; the buffer grows by doubling and is
 * compacted as frames are consumed, so the cost is linear in the input.
 *
 * @throws {ProviderError} type `'invalid-stream'`, code `'crc-mismatch'` when a prelude or
 * message CRC does not match, `'invalid-frame'` for impossible lengths or headers,
 * `'max-buffered-bytes'` for a frame longer than `maxFrameBytes`, and (from {@link end})
 * `'truncated'` when the input stops inside a frame.
 */
export class AwsEventStreamDecoder {
  readonly #maxFrameBytes: number;
  #buffer = new Uint8Array(0);
  #start = 0;
  #end = 0;

  constructor(options: AwsEventStreamDecoderOptions = {}) {
    this.#maxFrameBytes = options.maxFrameBytes ?? 16 * 1024 * 1024;
  }

  /**
   * Add bytes; pass each frame they complete to `onFrame`, in order, as soon as it is checked, so
   * that the frames before a corrupt one are delivered before the error.
   */
  push(bytes: Uint8Array, onFrame: (frame: AwsEventStreamMessage) => void): void {
    this.#append(bytes);
    for (;;) {
      const available = this.#end - this.#start;
      if (available < PRELUDE) break;
      const view = new DataView(this.#buffer.buffer, this.#buffer.byteOffset + this.#start, available);
      const totalLength = view.getUint32(0);
      const headersLength = view.getUint32(4);
      const preludeCrc = view.getUint32(8);
      const actualPreludeCrc = crc32(this.#buffer, this.#start, this.#start + 8);
      if (preludeCrc !== actualPreludeCrc) {
        throw invalid(
          'crc-mismatch',
          `AWS event-stream prelude CRC mismatch (expected ${hex(preludeCrc)}, computed ${hex(actualPreludeCrc)}): the body is corrupt or not an event stream`,
        );
      }
      if (totalLength < MIN_FRAME || headersLength > totalLength - MIN_FRAME) {
        throw invalid('invalid-frame', `AWS event-stream frame has impossible lengths (total ${totalLength}, headers ${headersLength})`);
      }
      if (totalLength > this.#maxFrameBytes) {
        throw invalid(
          'max-buffered-bytes',
          // The message shape of ProviderEventDecoder's other framings.
          `bedrock: an AWS event-stream frame grew beyond maxBufferedBytes (${this.#maxFrameBytes}): its prelude announces ${totalLength} bytes`,
        );
      }
      if (available < totalLength) break;
      const frameStart = this.#start;
      const frameEnd = frameStart + totalLength;
      const messageCrc = view.getUint32(totalLength - 4);
      const actualMessageCrc = crc32(this.#buffer, frameStart, frameEnd - 4);
      if (messageCrc !== actualMessageCrc) {
        throw invalid(
          'crc-mismatch',
          `AWS event-stream message CRC mismatch (expected ${hex(messageCrc)}, computed ${hex(actualMessageCrc)}): the frame is corrupt`,
        );
      }
      const headersStart = frameStart + PRELUDE;
      const payloadStart = headersStart + headersLength;
      const headers = readHeaders(this.#buffer, headersStart, payloadStart);
      // Copy the payload: the buffer is reused for later frames.
      const payload = this.#buffer.slice(payloadStart, frameEnd - 4);
      this.#start = frameEnd;
      if (this.#start === this.#end) this.#start = this.#end = 0;
      onFrame({ headers, payload });
    }
  }

  /** The input ended. @throws {ProviderError} code `'truncated'` when bytes of a frame are left. */
  end(): void {
    const left = this.#end - this.#start;
    this.#buffer = new Uint8Array(0);
    this.#start = this.#end = 0;
    if (left > 0) {
      throw invalid('truncated', `AWS event stream ended inside a frame (${left} bytes of an incomplete frame)`);
    }
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const used = this.#end - this.#start;
    if (this.#end + bytes.length > this.#buffer.length) {
      if (used + bytes.length <= this.#buffer.length && this.#start >= this.#buffer.length / 2) {
        // Compact in place: more than half the buffer is consumed frames.
        this.#buffer.copyWithin(0, this.#start, this.#end);
      } else {
        const grown = new Uint8Array(Math.max(used + bytes.length, this.#buffer.length * 2, 1024));
        grown.set(this.#buffer.subarray(this.#start, this.#end));
        this.#buffer = grown;
      }
      this.#start = 0;
      this.#end = used;
    }
    this.#buffer.set(bytes, this.#end);
    this.#end += bytes.length;
  }
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

function readHeaders(bytes: Uint8Array, start: number, end: number): Record<string, AwsEventStreamHeaderValue> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  // No prototype: a header named `__proto__` is a header like any other, not the object's prototype.
  const headers = Object.create(null) as Record<string, AwsEventStreamHeaderValue>;
  let at = start;
  const need = (n: number): void => {
    if (at + n > end) throw invalid('invalid-frame', 'AWS event-stream header runs past the headers section');
  };
  while (at < end) {
    need(1);
    const nameLength = bytes[at] as number;
    at += 1;
    need(nameLength + 1);
    const name = utf8.decode(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = bytes[at] as number;
    at += 1;
    let value: AwsEventStreamHeaderValue;
    switch (type) {
      case 0:
        value = true;
        break;
      case 1:
        value = false;
        break;
      case 2:
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
      case 8:
        need(8);
        value = view.getBigInt64(at);
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(at);
        at += 2;
        need(length);
        const raw = bytes.slice(at, at + length);
        value = type === 7 ? utf8.decode(raw) : raw;
        at += length;
        break;
      }
      case 9:
        need(16);
        value = bytes.slice(at, at + 16);
        at += 16;
        break;
      default:
        throw invalid('invalid-frame', `AWS event-stream header "${excerpt(name)}" has unknown value type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}
