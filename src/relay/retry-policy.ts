/**
 * How a page's client reconnects after a cut: attempts and time bounded, waits that double with
 * jitter. One policy for `readRelay` and `ArgstreamChatTransport`.
 *
 * @module
 */

/** The bounds and waits of the reconnects after a cut. */
export interface RetryOptions {
  /**
   * Most attempts in a row that bring nothing new, resumes and the first request's retries
   * together; the count starts over once something new arrives.
   * @default 8
   */
  readonly maxAttempts?: number;
  /**
   * Longest time spent reconnecting after a cut, in milliseconds, from the cut to the first new
   * event of a resumed response; the time starts over once something new arrives.
   * @default 60000
   */
  readonly maxReconnectMs?: number;
  /**
   * The wait before the first retry, in milliseconds; each retry waits twice the one before (up
   * to `maxDelayMs`), a random 50–100 % of it, so that a thousand pages cut at once by one relay
   * do not come back at once.
   * @default 250
   */
  readonly initialDelayMs?: number;
  /**
   * The longest wait between two attempts, in milliseconds.
   * @default 5000
   */
  readonly maxDelayMs?: number;
  /** Told of every reconnect: the attempt (from 1), the error that made it, the wait before it. */
  readonly onRetry?: (attempt: number, error: unknown, delayMs: number) => void;
}

/** The next attempt's wait, or how the bounds ran out. */
export type RetryStep = { readonly delayMs: number } | { readonly exhausted: { readonly attempts: number; readonly elapsedMs: number } };

/**
 * The state of one reader's reconnects: how many attempts since something new arrived, and since
 * when. Internal.
 */
export class RetryPolicy {
  readonly #maxAttempts: number;
  readonly #maxReconnectMs: number;
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #onRetry: RetryOptions['onRetry'];
  #attempts = 0;
  #cutAt: number | undefined;
  #waiting: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | undefined;

  /** @throws {RangeError} for a bound that is not a positive number, named after `owner`. */
  constructor(options: RetryOptions, owner: string) {
    checkRetryOptions(options, owner);
    this.#maxAttempts = options.maxAttempts ?? 8;
    this.#maxReconnectMs = options.maxReconnectMs ?? 60_000;
    this.#initialDelayMs = options.initialDelayMs ?? 250;
    this.#maxDelayMs = options.maxDelayMs ?? 5_000;
    this.#onRetry = options.onRetry;
  }

  /** Something new arrived: the attempts and the time start over at the next cut. */
  progress(): void {
    this.#attempts = 0;
    this.#cutAt = undefined;
  }

  /** Counts an attempt after `error`: its wait (`onRetry` told), or the bounds that ran out. */
  next(error: unknown): RetryStep {
    const now = Date.now();
    this.#cutAt ??= now;
    this.#attempts++;
    const elapsedMs = now - this.#cutAt;
    if (this.#attempts > this.#maxAttempts || elapsedMs >= this.#maxReconnectMs) return { exhausted: { attempts: this.#attempts - 1, elapsedMs } };
    const delay = Math.min(this.#maxDelayMs, this.#initialDelayMs * 2 ** (this.#attempts - 1), Math.max(0, this.#maxReconnectMs - elapsedMs));
    const delayMs = Math.round(delay * (0.5 + Math.random() / 2));
    this.#onRetry?.(this.#attempts, error, delayMs);
    return { delayMs };
  }

  /** Waits `ms`, or until {@link RetryPolicy.interrupt}. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting = {
        timer: setTimeout(() => {
          this.#waiting = undefined;
          resolve();
        }, ms),
        resolve,
      };
    });
  }

  /** Ends the wait in progress now (the reader was cancelled). */
  interrupt(): void {
    const waiting = this.#waiting;
    if (waiting === undefined) return;
    this.#waiting = undefined;
    clearTimeout(waiting.timer);
    waiting.resolve();
  }
}

/**
 * Fails fast on a bound that is not a positive number (what {@link RetryPolicy} would refuse),
 * without the policy: for a reader that loads it only once it reconnects.
 * @throws {RangeError} naming `owner` and the bound.
 */
export function checkRetryOptions(options: RetryOptions, owner: string): void {
  for (const name of ['maxAttempts', 'maxReconnectMs', 'initialDelayMs', 'maxDelayMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(value > 0)) throw new RangeError(`${owner}: ${name} must be a positive number, got ${value}`);
  }
}
