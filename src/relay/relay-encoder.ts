/**
 * The shell both relay encoders share: a writable side for events and a readable side of UTF-8
 * bytes, with the upstream error and the end written as last records, and optional keep-alive.
 * Internal.
 *
 * It is a pair of streams rather than a `TransformStream`: when the stream piped into a
 * `TransformStream` errors, the pipe aborts its writable side, which errors its readable side at
 * once and drops what is queued — the client would see a cut connection. Here an abort writes the
 * error as the last record and closes the readable side normally, so the client learns what
 * went wrong.
 *
 * @module
 */

/** How one format writes its records. */
export interface RelayFramer<T> {
  /** One event's record (`''`: none). @throws {RelayError} `invalid-event` for an event the format cannot hold. */
  event(event: T): string;
  /** The record that says the stream is complete (`undefined`: none, the stream just closes). */
  end(): string | undefined;
  /** The record that carries an upstream failure. */
  error(reason: unknown): string;
  /** What keeps an idle connection open (a comment, a blank line): the decoders ignore it. */
  readonly keepAlive: string;
}

/** Options both encoders share. */
export interface RelayEncoderOptions {
  /**
   * Write a keep-alive record (an SSE comment, an empty NDJSON line) after this many
   * milliseconds without output, so proxies and load balancers do not close an idle connection
   * while the model thinks. The timer starts when the readable side is first read and stops
   * when the stream closes, errors or is cancelled.
   * @default undefined (no keep-alive)
   */
  readonly keepAliveMs?: number;
}

/**
 * Events in, UTF-8 bytes out, one chunk per event. Backpressure is kept (a write waits while the
 * readable side's queue is full); cancelling the readable side errors the writable side, so a pipe
 * into it cancels its source; aborting the writable side (what `pipeThrough` does when the stream
 * before errors) writes the error record and closes the readable side.
 */
export class RelayEncoder<T> {
  /** The encoded records: one `Uint8Array` per event, then the end (or error) record. */
  readonly readable: ReadableStream<Uint8Array>;
  /** Where the events go. */
  readonly writable: WritableStream<T>;

  constructor(framer: RelayFramer<T>, options: RelayEncoderOptions | undefined, what: string) {
    const keepAliveMs = options?.keepAliveMs;
    if (keepAliveMs !== undefined && !(keepAliveMs > 0 && keepAliveMs < 2 ** 31)) {
      throw new RangeError(`${what}: keepAliveMs must be a positive number of milliseconds, got ${String(keepAliveMs)}`);
    }
    const utf8 = new TextEncoder();
    let output!: ReadableStreamDefaultController<Uint8Array>;
    let input!: WritableStreamDefaultController;
    /** A write waiting for room in the readable side's queue. */
    let resume: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let reading = false;
    let finished = false;

    const wake = () => {
      const waiting = resume;
      resume = undefined;
      waiting?.();
    };
    const stopTimer = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    const armTimer = () => {
      if (keepAliveMs === undefined || finished || !reading) return;
      stopTimer();
      timer = setTimeout(() => {
        timer = undefined;
        if (finished) return;
        // A reader that does not read has no use for more bytes.
        if ((output.desiredSize ?? 0) > 0) output.enqueue(utf8.encode(framer.keepAlive));
        armTimer();
      }, keepAliveMs);
    };
    const finish = (record: string | undefined) => {
      if (finished) return;
      finished = true;
      stopTimer();
      if (record !== undefined) output.enqueue(utf8.encode(record));
      output.close();
      wake();
    };

    this.readable = new ReadableStream<Uint8Array>({
      start(controller) {
        output = controller;
      },
      pull() {
        if (!reading) {
          reading = true;
          armTimer();
        }
        wake();
      },
      cancel(reason) {
        finished = true;
        stopTimer();
        input.error(reason);
        wake();
      },
      // A few events queued (one per network write at most) spare a round trip through the pipe per event.
    }, { highWaterMark: 16 });

    this.writable = new WritableStream<T>({
      start(controller) {
        input = controller;
      },
      write(event) {
        if (finished) return undefined;
        let record: string;
        try {
          record = framer.event(event);
        } catch (error) {
          // The client learns why the stream stopped; the pipe learns it too and cancels its source.
          finish(framer.error(error));
          throw error;
        }
        // An event may make no record (a format that writes some events with others).
        if (record === '') return undefined;
        output.enqueue(utf8.encode(record));
        armTimer();
        if ((output.desiredSize ?? 0) > 0) return undefined;
        return new Promise<void>((resolve) => {
          resume = resolve;
        });
      },
      close() {
        finish(framer.end());
      },
      abort(reason) {
        finish(framer.error(reason));
      },
    });
  }
}
