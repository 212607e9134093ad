/**
 * What both relay decoders share: their options, the text decoding of chunks, and the
 * transformer around a decoder core. Internal.
 *
 * @module
 */
import { failAfterDrain } from '../transforms/fail-after-drain.ts';
import { RelayError } from '../errors.ts';
import type { ErrorClass } from './wire.ts';

/** Options both decoders share. */
export interface RelayDecoderOptions {
  /**
   * Error classes to give back by name, besides argstream's own and the standard ones: an
   * `event: error` (or an error inside an event) whose `name` is a key here becomes an instance of
   * that class (its constructor is not called; the fields are set from the record).
   * @default {}
   */
  readonly errorClasses?: Readonly<Record<string, ErrorClass>>;
  /**
   * Most text held while waiting for the end of an event (SSE) or line (NDJSON), in UTF-16 code
   * units; beyond it the stream errors with a `RelayError` (`max-event-length`).
   * @default 67108864 (64 Mi)
   */
  readonly maxEventLength?: number;
  /**
   * Deepest JSON path a relayed event may reach, in steps (as the JSON parser's `maxDepth`, whose
   * default it shares): a relay that goes deeper errors with a `RelayError` (`max-depth`). Raise
   * it with the server's own `maxDepth`.
   * @default 256
   */
  readonly maxDepth?: number;
}

/** The depth limit from the options, checked. */
export function maxRelayDepth(options: RelayDecoderOptions, what: string): number {
  const max = options.maxDepth ?? 256;
  if (!(Number.isSafeInteger(max) && max > 0)) throw new RangeError(`${what}: maxDepth must be a positive integer, got ${String(max)}`);
  return max;
}

export const DEFAULT_MAX_EVENT_LENGTH: number = 64 * 1024 * 1024;

/** The limit from the options, checked. */
export function maxEventLength(options: RelayDecoderOptions, what: string): number {
  const max = options.maxEventLength ?? DEFAULT_MAX_EVENT_LENGTH;
  if (!(max > 0)) throw new RangeError(`${what}: maxEventLength must be positive, got ${String(max)}`);
  return max;
}

/** Turns chunks of bytes or text into text (UTF-8, characters split across chunks kept whole). */
export class ChunkText {
  readonly #decoder = new TextDecoder('utf-8');
  #pendingBytes = false;

  text(chunk: unknown, what: string): string {
    if (typeof chunk === 'string') {
      // Bytes held back cannot continue in a string: what they were is decoded now.
      const held = this.#pendingBytes ? this.#decoder.decode() : '';
      this.#pendingBytes = false;
      return held + chunk;
    }
    if (chunk instanceof Uint8Array || ArrayBuffer.isView(chunk) || chunk instanceof ArrayBuffer) {
      const bytes = chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      this.#pendingBytes = true;
      return this.#decoder.decode(bytes, { stream: true });
    }
    throw new RelayError('invalid-input', `${what}: expected a Uint8Array or a string, got ${chunk === null ? 'null' : typeof chunk}`);
  }

  end(): string {
    if (!this.#pendingBytes) return '';
    this.#pendingBytes = false;
    return this.#decoder.decode();
  }
}

/** A decoder core: text or bytes in, events out; it throws what ended the stream. */
export interface DecoderCore<T> {
  push(chunk: string | Uint8Array, out: T[]): T[];
  end(out: T[]): T[];
}

/** The transformer of a decoder stream: events before a failure are delivered, then it errors. */
export function decoderTransformer<T>(core: DecoderCore<T>): Transformer<string | Uint8Array, T> {
  const run = (controller: TransformStreamDefaultController<T>, step: (out: T[]) => void): Promise<never> | undefined => {
    const out: T[] = [];
    let failure: { error: unknown } | undefined;
    try {
      step(out);
    } catch (error) {
      failure = { error };
    }
    for (const event of out) controller.enqueue(event);
    return failure === undefined ? undefined : failAfterDrain(controller as TransformStreamDefaultController<never>, failure.error);
  };
  return {
    transform: (chunk, controller) => run(controller, (out) => core.push(chunk, out)),
    flush: (controller) => run(controller, (out) => core.end(out)),
  };
}
