/**
 * A provider's `fetch` `Response` as a stream of {@link StreamEvent}s, with its HTTP status
 * checked.
 *
 * @module
 */
import { ProviderError, type ProviderName } from '../errors.ts';
import { joinAdjacentText } from '../transforms/batch.ts';
import { type ProviderEventStreamOptions, providerCore, providerName } from '../providers/provider-event-decoder.ts';
import { providerErrorFromBody } from '../providers/error-body.ts';
import { clear, type StageCore } from '../core.ts';
import { type ChainableStage, composeCores } from '../transforms/chain.ts';
import { ChainRunner, chainEndOf, type StageTail } from '../transforms/stage.ts';
import type { ChainEncoder } from '../transforms/chain.ts';
import type { StreamEvent } from '../types.ts';

/** Options of {@link fromResponse}: those of `ProviderEventStream`. */
export interface FromResponseOptions extends ProviderEventStreamOptions {}

/** Most bytes of an error body read to find the provider's message. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * The events of a provider's streaming `fetch` response, its status checked first.
 *
 * - **Error status** (`!response.ok`): the stream errors at the first read with a
 *   {@link ProviderError} whose `status` is the HTTP status and whose `type`, `code` and message
 *   are the provider's own, read from its JSON error body — Anthropic
 *   `{"type":"error","error":{"type","message"}}`, OpenAI `{"error":{"message","type","code"}}`,
 *   Gemini `{"error":{"code","message","status"}}` (also inside an array; `type` is the
 *   `status`, `code` the numeric code), Ollama `{"error":"…"}`, Bedrock `{"message"}` with the type
 *   from the `x-amzn-errortype` header. A body that is not such JSON gives type `'http-error'` and
 *   a message with the status text and the body's first 30 characters. At most 64 KiB of the body
 *   is read.
 * - **Success**: the body is decoded as `ProviderEventStream` decodes it (same events, same
 *   errors), without a stream hop: each read of the returned stream reads the body and runs the
 *   decoder on it.
 * - **Stages**: argstream stages given after the options run in that same step, as
 *   {@link chain} runs them: `fromResponse(response, options, a, b)` gives the events of
 *   `fromResponse(response, options).pipeThrough(a).pipeThrough(b)` with no hop at all. The
 *   stages are consumed (see `chain`).
 *
 * - **Ending in a relay encoder**: with `EventStreamEncoder`, `NdjsonEncoder` or
 *   `UIMessageStreamEncoder` last, the returned stream is the encoder's bytes, made in the same
 *   step: what one network read made leaves as one `Uint8Array` (one `TextEncoder` call, one
 *   socket write), with no stream hop between the provider's bytes and the page's. The encoder's
 *   contract holds: an error status, a decoding error or an error of a stage is written as the last
 *   record (as a page may see it: see the encoder's `onError`) after everything before it, and the
 *   stream closes normally; the last record says the stream is complete; `keepAliveMs` keeps an idle
 *   connection open while the stream is read. The encoder is consumed.
 *
 * Cancelling the returned stream cancels the response body (the connection is released); a
 * decoding error cancels it too. The body is not read before the first read; after it, one body
 * read stays pending ahead, as a pipe keeps one, so that an error of the body (a cut connection)
 * reaches the reader at once.
 *
 * The returned stream is an ordinary `ReadableStream` (`pipeThrough`, `pipeTo`, `tee`, a reader)
 * with a high-water mark of 0: nothing is read from the network before it is asked for.
 *
 * @throws {TypeError} for an unknown provider, `'ai-sdk'` or `'langchain'` (not HTTP APIs), a response whose
 * body was already read, or a stage that `chain` would refuse.
 *
 * @example A relay to a browser, one hop and one write per network read:
 * ```ts
 * const body = fromResponse(upstream, { provider: 'anthropic' }, new FieldEventStream({ keepProgress: false }), new EventStreamEncoder());
 * return new Response(body, { headers: EVENT_STREAM_HEADERS });
 * ```
 *
 * @example
 * ```ts
 * const response = await fetch('https://api.anthropic.com/v1/messages', { method: 'POST', headers, body });
 * const events = fromResponse(response, { provider: 'anthropic' }, new ConversationEventStream());
 * try {
 *   for await (const event of events) if (event.type === 'tool-call') await run(event.toolName, event.arguments);
 * } catch (error) {
 *   if (error instanceof ProviderError && error.status === 429) retryLater();
 *   else throw error;
 * }
 * ```
 */
export function fromResponse(response: Response, options: FromResponseOptions, encoder: ChainEncoder<StreamEvent>): ReadableStream<Uint8Array>;
export function fromResponse(response: Response, options: FromResponseOptions): ReadableStream<StreamEvent>;
export function fromResponse<B>(response: Response, options: FromResponseOptions, a: ChainableStage<StreamEvent, B>): ReadableStream<B>;
export function fromResponse<B, C>(
  response: Response,
  options: FromResponseOptions,
  a: ChainableStage<StreamEvent, B>,
  b: ChainableStage<NoInfer<B>, C>,
): ReadableStream<C>;
export function fromResponse<B, C, D>(
  response: Response,
  options: FromResponseOptions,
  a: ChainableStage<StreamEvent, B>,
  b: ChainableStage<NoInfer<B>, C>,
  c: ChainableStage<NoInfer<C>, D>,
): ReadableStream<D>;
export function fromResponse<B, C, D, E>(
  response: Response,
  options: FromResponseOptions,
  a: ChainableStage<StreamEvent, B>,
  b: ChainableStage<NoInfer<B>, C>,
  c: ChainableStage<NoInfer<C>, D>,
  d: ChainableStage<NoInfer<D>, E>,
): ReadableStream<E>;
export function fromResponse(response: Response, options: FromResponseOptions, ...stages: ChainableStage<unknown, unknown>[]): ReadableStream<unknown>;
export function fromResponse(response: Response, options: FromResponseOptions, ...stages: ChainableStage<unknown, unknown>[]): ReadableStream<unknown> {
  const name = typeof options.provider === 'object' && options.provider !== null ? options.provider.name : options.provider;
  if (name === 'ai-sdk') {
    throw new TypeError("fromResponse: 'ai-sdk' is not an HTTP API; pipe `streamText(…).fullStream` into ProviderEventStream instead");
  }
  if (name === 'langchain') {
    throw new TypeError("fromResponse: 'langchain' is not an HTTP API; pipe LangChain's stream (model.stream(…), a LangGraph graph.stream(…, { streamMode: 'messages' })) into ProviderEventStream instead");
  }
  const decoder = providerCore(options, 'fromResponse');
  if (response.bodyUsed || response.body?.locked === true) {
    throw new TypeError('fromResponse: the response body was already read');
  }
  const end = chainEndOf(stages[stages.length - 1]);
  end?.check('fromResponse', stages.length - 1);
  const cores = [decoder as StageCore<unknown, unknown>, ...composeCores(end === undefined ? stages : stages.slice(0, -1), 'fromResponse')];
  const taken = end?.take();
  if (taken !== undefined) cores.push(...taken.cores);
  return new ReadableStream<unknown>(new ResponseSource(response, providerName(options.provider), cores, taken?.tail), { highWaterMark: 0 });
}

function ignore(): void {}

/** A body that ended, for a response without one. */
const BODY_DONE: ReadableStreamReadResult<Uint8Array> = { done: true, value: undefined };
/** What {@link ResponseSource}'s step of a read returns when the read made nothing: read on. */
const AGAIN = 1;

/** The underlying source of {@link fromResponse}'s stream. */
class ResponseSource implements UnderlyingDefaultSource<unknown> {
  readonly #response: Response;
  readonly #provider: ProviderName;
  readonly #run: ChainRunner;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The body read started after the last events were enqueued, as a pipe keeps one pending. */
  #ahead: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  /** An error to report at the next read, once the events before it were taken. */
  #failure: { error: unknown } | undefined;
  #controller: ReadableStreamDefaultController<unknown> | undefined;
  /** A relay encoder's work, when one ends the stages: the stream gives its bytes. */
  readonly #tail: StageTail | undefined;
  #keepAlive: ReturnType<typeof setTimeout> | undefined;
  /** When output last went out: kept only with a keep-alive (what reads it). */
  #lastOutput = 0;
  /** What one read made, reused from read to read (emptied after each). */
  readonly #out: unknown[] = [];
  /** A read of the stream waits for the body (a keep-alive may answer it). */
  #waiting = false;
  /** The first read checked the response and took its body's reader. */
  #started = false;
  #closed = false;
  /**
   * The body failed (the reader's `closed`: one handler per stream, not one per read). A pull
   * takes `#ahead` before it awaits it, so this errors the stream only for a read ahead that no
   * pull is waiting for.
   */
  readonly #aheadFailed = (error: unknown): void => {
    const ahead = this.#ahead;
    if (ahead === undefined) return;
    // Its rejection is the one reported here (the reader's `closed` rejects before its reads do).
    ahead.then(undefined, ignore);
    if (this.#tail === undefined) this.#controller?.error(error);
    else this.#last(this.#tail.fail([], error));
  };

  constructor(response: Response, provider: ProviderName, cores: readonly StageCore<unknown, unknown>[], tail: StageTail | undefined) {
    this.#response = response;
    this.#provider = provider;
    this.#run = new ChainRunner(cores);
    this.#tail = tail;
  }

  start(controller: ReadableStreamDefaultController<unknown>): void {
    this.#controller = controller;
  }

  /**
   * Not an `async` function: a read costs one `then` on the body's read, with handlers made once
   * per stream, and no promise or frame of its own (this runs once per network read).
   */
  pull(controller: ReadableStreamDefaultController<unknown>): Promise<void> | undefined {
    if (this.#failure !== undefined) {
      controller.error(this.#failure.error);
      return undefined;
    }
    if (!this.#started) {
      this.#started = true;
      const response = this.#response;
      if (!response.ok) return this.#httpFailure(response);
      const reader = response.body?.getReader();
      this.#reader = reader;
      // One handler per stream for the read kept ahead, not one per read.
      reader?.closed.then(undefined, this.#aheadFailed);
      if (this.#tail?.keepAliveMs !== undefined) this.#lastOutput = Date.now();
    }
    return this.#read();
  }

  async #httpFailure(response: Response): Promise<void> {
    const error = await httpError(response, this.#provider);
    if (this.#tail === undefined) this.#controller?.error(error);
    else this.#last(this.#tail.fail([], error));
  }

  /** Reads the body until a read makes output (or the stream ends). */
  #read(): Promise<void> | undefined {
    const reader = this.#reader;
    // No body: the stream ends at once.
    if (reader === undefined) return this.#onRead(BODY_DONE);
    const ahead = this.#ahead;
    this.#ahead = undefined;
    const tail = this.#tail;
    if (tail !== undefined) {
      // A read of the stream waits for the network: a keep-alive may answer it meanwhile.
      this.#waiting = true;
      this.#armKeepAlive(tail.keepAliveMs);
    }
    return (ahead ?? reader.read()).then(this.#onRead, this.#onReadFailed);
  }

  readonly #onRead = (next: ReadableStreamReadResult<Uint8Array>): Promise<void> | undefined => {
    if (this.#tail !== undefined) {
      this.#waiting = false;
      if (this.#closed) return undefined;
    }
    const step = this.#step(next);
    return step === AGAIN ? this.#read() : step;
  };

  readonly #onReadFailed = (error: unknown): void => {
    const tail = this.#tail;
    if (tail === undefined) throw error;
    this.#waiting = false;
    // A cut connection: the page learns it from the last record.
    this.#last(tail.fail([], error));
  };

  /** One read through the stages: {@link AGAIN} when it made nothing and the body goes on. */
  #step(next: ReadableStreamReadResult<Uint8Array>): Promise<void> | typeof AGAIN | undefined {
    const out = this.#out;
    clear(out);
    let pending: Promise<void> | undefined;
    try {
      pending = next.done ? this.#run.end(out) : this.#run.push(next.value, out);
    } catch (caught) {
      return this.#made(next, { error: caught });
    }
    if (pending === undefined) return this.#made(next, undefined);
    // A stage that waits (an asynchronous schema): the rest of the read when it is done.
    return pending.then(
      () => this.#again(this.#made(next, undefined)),
      (caught: unknown) => this.#again(this.#made(next, { error: caught })),
    );
  }

  #again(step: typeof AGAIN | undefined): Promise<void> | undefined {
    return step === AGAIN ? this.#read() : undefined;
  }

  /** What a read made goes out, or its error or the end; {@link AGAIN} when it made nothing. */
  #made(next: ReadableStreamReadResult<Uint8Array>, error: { error: unknown } | undefined): typeof AGAIN | undefined {
    const controller = this.#controller as ReadableStreamDefaultController<unknown>;
    const tail = this.#tail;
    const reader = this.#reader;
    const out = this.#out;
    joinAdjacentText(out);
    let made = out.length > 0;
    if (tail === undefined) {
      for (let i = 0; i < out.length; i++) controller.enqueue(out[i]);
      clear(out);
    } else if (error === undefined && !next.done) {
      // What the read made, as one chunk.
      try {
        const bytes = tail.chunk(out);
        clear(out);
        made = bytes !== undefined;
        if (bytes !== undefined) this.#send(bytes);
      } catch (refused) {
        error = { error: refused };
        clear(out);
      }
    }
    if (error !== undefined) {
      // The body is of no more use: release the connection.
      if (!next.done) void reader?.cancel(error.error).catch(() => undefined);
      if (tail !== undefined) this.#last(tail.fail(out, error.error));
      else if (made) this.#failure = error;
      else controller.error(error.error);
      return undefined;
    }
    if (next.done) {
      if (tail === undefined) controller.close();
      else {
        let last: Uint8Array | undefined;
        try {
          last = tail.end(out);
        } catch (refused) {
          last = tail.fail([], refused);
        }
        this.#last(last);
      }
      return undefined;
    }
    if (!made) return AGAIN;
    if (reader !== undefined) {
      // As a pipe keeps one read pending: an error of the body then ends the stream at once
      // (what was not read yet is dropped, as through any `TransformStream`), not at the next read.
      this.#ahead = reader.read();
    }
    return undefined;
  }

  #send(bytes: Uint8Array): void {
    if (this.#tail?.keepAliveMs !== undefined) this.#lastOutput = Date.now();
    this.#controller?.enqueue(bytes);
  }

  /** The last bytes, and the stream closes. */
  #last(bytes: Uint8Array | undefined): void {
    if (this.#closed) return;
    this.#stop();
    if (bytes !== undefined) this.#controller?.enqueue(bytes);
    this.#controller?.close();
  }

  #stop(): void {
    this.#closed = true;
    if (this.#keepAlive !== undefined) clearTimeout(this.#keepAlive);
    this.#keepAlive = undefined;
  }

  /** Armed once per quiet period: when it fires early (output came meanwhile), it waits out the rest. */
  #armKeepAlive(ms: number | undefined, delay = ms): void {
    if (ms === undefined || delay === undefined || this.#closed || this.#keepAlive !== undefined) return;
    this.#keepAlive = setTimeout(() => {
      this.#keepAlive = undefined;
      if (this.#closed) return;
      const quiet = Date.now() - this.#lastOutput;
      if (quiet < ms) return this.#armKeepAlive(ms, ms - quiet);
      // Only a reader that waits gets one: a stream not read has no use for more bytes (its next
      // read arms the timer again).
      if (!this.#waiting) return;
      this.#send((this.#tail as StageTail).keepAlive());
      this.#armKeepAlive(ms);
    }, delay);
  }

  cancel(reason: unknown): Promise<void> | undefined {
    this.#stop();
    if (this.#reader !== undefined) return this.#reader.cancel(reason);
    return this.#response.body?.cancel(reason);
  }
}

/** The {@link ProviderError} of an HTTP error response, from at most 64 KiB of its body. Internal. */
export async function httpError(response: Response, provider: ProviderName): Promise<ProviderError> {
  let text = '';
  const body = response.body;
  if (body !== null) {
    const reader = body.getReader();
    const decoder = new TextDecoder('utf-8');
    let read = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        read += value.byteLength;
        text += decoder.decode(value, { stream: true });
        if (read >= MAX_ERROR_BODY) {
          await reader.cancel().catch(() => undefined);
          break;
        }
      }
      text += decoder.decode();
    } catch {
      // A body cut off: what arrived is all there is to read.
    }
  }
  return providerErrorFromBody(provider, text, {
    status: response.status,
    statusText: response.statusText,
    amznErrorType: response.headers.get('x-amzn-errortype'),
  });
}
