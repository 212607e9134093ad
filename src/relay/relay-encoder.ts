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
import type { StageCore } from '../core.ts';
import { ChainRunner, chainEndInUse, registerChainEnd, type StageTail } from '../transforms/stage.ts';
import type { PageErrorOptions } from './error-record.ts';

/** How one format writes its records. */
export interface RelayFramer<T> {
  /**
   * Take one event into the records being made (they go out together at `take`).
   * @throws {RelayError} `invalid-event` for an event the format cannot hold.
   */
  event(event: T): void;
  /** The records of the events taken since the last call (`''`: none). */
  take(): string;
  /** The record that says the stream is complete (`undefined`: none, the stream just closes). */
  end(): string | undefined;
  /** The record that carries an upstream failure, as a page may see it (see `onError`). */
  error(reason: unknown, options?: PageErrorOptions): string;
  /** Characters gathered since the last `take` (about): past 64 Ki they go out at once. */
  readonly size: number;
  /** What keeps an idle connection open (a comment, a blank line): the decoders ignore it. */
  readonly keepAlive: string;
}

/** Options both encoders share. */
export interface RelayEncoderOptions extends PageErrorOptions {
  /**
   * Write a keep-alive record (an SSE comment, an empty NDJSON line) after this many
   * milliseconds without output, so proxies and load balancers do not close an idle connection
   * while the model thinks. The timer starts when the readable side is first read and stops
   * when the stream closes, errors or is cancelled.
   * @default undefined (no keep-alive)
   */
  readonly keepAliveMs?: number;
}

/** Characters of records gathered at most before they go out without waiting for the burst to end. */
const MAX_GATHERED = 65_536;

/**
 * Bytes the readable side holds (what was gathered counted too) before a write waits for the
 * reader: a record of a read or two, whatever its events weigh.
 */
const MAX_QUEUED = 65_536;

/**
 * Microtask turns without a write after which a burst has ended. A pipe hands over the chunks of
 * one read a few turns apart; a stage that takes longer only makes the records smaller.
 */
const QUIET_TURNS = 16;

/**
 * Events in, UTF-8 bytes out. The events written in one burst — what one network read made,
 * which a pipe hands over a few microtask turns apart — go out as one chunk, when the burst ends
 * (16 turns without a write) or once 64 Ki characters are gathered: one `TextEncoder` call and one socket
 * write per read, not per event. Backpressure is kept (a write waits while the readable side's
 * queue — 64 KiB, what was gathered included — is full); cancelling the readable side errors the writable side, so a pipe into it
 * cancels its source; aborting the writable side (what `pipeThrough` does when the stream before
 * errors) writes what was gathered, then the error record, and closes the readable side.
 */
export class RelayEncoder<T> {
  /** The encoded records, then the end (or error) record. */
  readonly readable: ReadableStream<Uint8Array>;
  /** Where the events go. */
  readonly writable: WritableStream<T>;

  constructor(framer: RelayFramer<T>, options: RelayEncoderOptions | undefined, what: string) {
    const keepAliveMs = options?.keepAliveMs;
    if (keepAliveMs !== undefined && !(keepAliveMs > 0 && keepAliveMs < 2 ** 31)) {
      throw new RangeError(`${what}: keepAliveMs must be a positive number of milliseconds, got ${String(keepAliveMs)}`);
    }
    const utf8 = new TextEncoder();
    /** The cores `chain` put before the encoder (run in its write), and whether anything used it. */
    let cores: StageCore<unknown, unknown>[] = [];
    let runner: ChainRunner | undefined;
    let used = false;
    let output!: ReadableStreamDefaultController<Uint8Array>;
    let input!: WritableStreamDefaultController;
    /** A write waiting for room in the readable side's queue. */
    let resume: (() => void) | undefined;
    let keepAlive: ReturnType<typeof setTimeout> | undefined;
    /** A flush is waiting for the burst to end. */
    let flushing = false;
    let writes = 0;
    let lastOutput = 0;
    let reading = false;
    let finished = false;

    const wake = () => {
      const waiting = resume;
      resume = undefined;
      waiting?.();
    };
    const stopTimers = () => {
      if (keepAlive !== undefined) clearTimeout(keepAlive);
      keepAlive = undefined;
    };
    // Armed once per quiet period: when it fires early (output came meanwhile), it waits out the rest.
    const armKeepAlive = (delay: number) => {
      if (keepAliveMs === undefined || finished || !reading || keepAlive !== undefined) return;
      keepAlive = setTimeout(() => {
        keepAlive = undefined;
        if (finished) return;
        const quiet = Date.now() - lastOutput;
        if (quiet < keepAliveMs) {
          armKeepAlive(keepAliveMs - quiet);
          return;
        }
        // A reader that does not read has no use for more bytes.
        if ((output.desiredSize ?? 0) > 0) send(framer.keepAlive);
        armKeepAlive(keepAliveMs);
      }, delay);
    };
    const send = (text: string) => {
      lastOutput = Date.now();
      output.enqueue(utf8.encode(text));
    };
    /** What was gathered goes out. */
    const flush = () => {
      const text = framer.take();
      if (text !== '') send(text);
      // Events that wrote nothing (a format that leaves some out) take no room: a write waiting on them goes on.
      if ((output.desiredSize ?? 0) > 0) wake();
    };
    const finish = (record: string | undefined) => {
      if (finished) return;
      finished = true;
      stopTimers();
      // What was gathered goes out first, as its own chunk; then the last record.
      flush();
      if (record !== undefined) send(record);
      output.close();
      wake();
    };
    /** The stages' work, when `chain` put stages before the encoder: the same as `fromResponse` runs. */
    const tail = relayTail(framer, options, utf8);
    /** The last bytes (what was gathered with the end or the error record), and the readable side closes. */
    const finishWith = (bytes: Uint8Array | undefined) => {
      if (finished) return;
      finished = true;
      stopTimers();
      if (bytes !== undefined) {
        lastOutput = Date.now();
        output.enqueue(bytes);
      }
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
          lastOutput = Date.now();
          if (keepAliveMs !== undefined) armKeepAlive(keepAliveMs);
        }
        wake();
      },
      cancel(reason) {
        finished = true;
        stopTimers();
        input.error(reason);
        wake();
      },
      // 64 KiB queued (the records of a read or two) spare a round trip through the pipe per read.
    }, { highWaterMark: MAX_QUEUED, size: (chunk) => chunk.byteLength });

    this.writable = new WritableStream<T>({
      start(controller) {
        input = controller;
      },
      write(chunk) {
        used = true;
        if (finished) return undefined;
        if (cores.length > 0) return fused(chunk);
        try {
          framer.event(chunk);
        } catch (error) {
          // The client learns why the stream stopped (after what came before); the pipe learns it
          // too and cancels its source.
          finish(framer.error(error, options));
          throw error;
        }
        writes++;
        if (framer.size >= MAX_GATHERED) flush();
        else if (!flushing) {
          // When the burst ends — no write for a few microtask turns — what it made goes out.
          flushing = true;
          let seen = writes;
          let quiet = 0;
          const check = () => {
            if (finished) return void (flushing = false);
            if (writes !== seen) {
              seen = writes;
              quiet = 0;
            } else if (++quiet >= QUIET_TURNS) {
              flushing = false;
              flush();
              return;
            }
            queueMicrotask(check);
          };
          queueMicrotask(check);
        }
        // The readable side's queue, with what is gathered, is full: the next write waits for the
        // reader (the gathered events go out when the burst ends, and the reader's pull wakes it).
        if ((output.desiredSize ?? 0) - framer.size > 0) return undefined;
        return new Promise<void>((resolve) => {
          resume = resolve;
        });
      },
      close() {
        used = true;
        if (cores.length === 0) return finish(framer.end());
        const out: unknown[] = [];
        let pending: Promise<void> | undefined;
        try {
          pending = (runner ??= new ChainRunner(cores)).end(out);
        } catch (error) {
          return failed(out, error);
        }
        if (pending === undefined) return ended(out);
        return pending.then(
          () => ended(out),
          (error: unknown) => failed(out, error),
        );
      },
      abort(reason) {
        finish(framer.error(reason, options));
      },
    });

    /** The stages failed after making `out`: those events, the error as the last record, and the error thrown. */
    const failed = (out: readonly unknown[], error: unknown): never => {
      finishWith(tail.fail(out, error));
      throw error;
    };
    const ended = (out: readonly unknown[]) => {
      let last: Uint8Array | undefined;
      try {
        last = tail.end(out);
      } catch (refused) {
        return failed([], refused);
      }
      finishWith(last);
    };
    /** What one input chunk made, through the stages, as one output chunk at once. */
    const emitted = (out: readonly unknown[]): Promise<void> | undefined => {
      if (finished) return undefined;
      let bytes: Uint8Array | undefined;
      try {
        bytes = tail.chunk(out);
      } catch (refused) {
        // An event the format refuses: its error is the last record, after what came before it.
        return failed([], refused);
      }
      if (bytes !== undefined) {
        lastOutput = Date.now();
        output.enqueue(bytes);
      }
      if ((output.desiredSize ?? 0) > 0) return undefined;
      return new Promise<void>((resolve) => {
        resume = resolve;
      });
    };
    const fused = (chunk: unknown): Promise<void> | undefined => {
      const out: unknown[] = [];
      let pending: Promise<void> | undefined;
      try {
        pending = (runner ??= new ChainRunner(cores)).push(chunk, out);
      } catch (error) {
        return failed(out, error);
      }
      if (pending === undefined) return emitted(out);
      return pending.then(
        () => emitted(out),
        (error: unknown) => failed(out, error),
      );
    };

    const self = this;
    const readable = this.readable;
    const writable = this.writable;
    registerChainEnd(this, {
      check(caller, position) {
        if (used || runner !== undefined || readable.locked || writable.locked) throw chainEndInUse(caller, position, self);
      },
      prepend(before) {
        cores = [...before, ...cores];
      },
      take() {
        used = true;
        // Its own streams are never used: no keep-alive of theirs.
        finished = true;
        writable.getWriter();
        readable.getReader();
        stopTimers();
        return { cores, tail };
      },
    });
  }
}

/** A framer as the last step of a source's own read (`fromResponse`): one chunk per read. */
function relayTail<T>(framer: RelayFramer<T>, options: RelayEncoderOptions | undefined, utf8: TextEncoder): StageTail {
  // One `encode` per read: its bytes are a buffer of their own, which a socket write takes as it
  // is. (A short record encoded into a typed array on the JavaScript heap allocates less, but
  // node's `write` reads its `.buffer`, which moves it off the heap: measured through `node:http`,
  // the relay spent 8 % more CPU that way.)
  const bytes = (text: string) => (text === '' ? undefined : utf8.encode(text));
  const frame = (events: readonly unknown[]) => {
    for (let i = 0; i < events.length; i++) framer.event(events[i] as T);
  };
  return {
    chunk(events) {
      frame(events);
      return bytes(framer.take());
    },
    end(events) {
      frame(events);
      return bytes(framer.take() + (framer.end() ?? ''));
    },
    fail(events, reason) {
      try {
        frame(events);
      } catch (error) {
        // An event the format refuses ends the stream in its place.
        return utf8.encode(framer.take() + framer.error(error, options));
      }
      return utf8.encode(framer.take() + framer.error(reason, options));
    },
    keepAliveMs: options?.keepAliveMs,
    keepAlive: () => utf8.encode(framer.keepAlive),
  };
}
