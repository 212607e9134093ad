/**
 * A provider's `fetch` `Response` as a stream of {@link StreamEvent}s, with its HTTP status
 * checked.
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import { joinAdjacentText } from '../transforms/batch.ts';
import { ProviderEventDecoder, type ProviderEventStreamOptions } from '../providers/provider-event-decoder.ts';
import { providerErrorFromBody } from '../providers/error-body.ts';
import type { StageCore } from '../core.ts';
import { type ChainableStage, composeCores } from '../transforms/chain.ts';
import { ChainRunner } from '../transforms/stage.ts';
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
 * Cancelling the returned stream cancels the response body (the connection is released); a
 * decoding error cancels it too. The body is not read before the first read; after it, one body
 * read stays pending ahead, as a pipe keeps one, so that an error of the body (a cut connection)
 * reaches the reader at once.
 *
 * The returned stream is an ordinary `ReadableStream` (`pipeThrough`, `pipeTo`, `tee`, a reader)
 * with a high-water mark of 0: nothing is read from the network before it is asked for.
 *
 * @throws {TypeError} for an unknown provider, `'ai-sdk'` (not an HTTP API), a response whose
 * body was already read, or a stage that `chain` would refuse.
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
  if (options.provider === 'ai-sdk') {
    throw new TypeError("fromResponse: 'ai-sdk' is not an HTTP API; pipe `streamText(…).fullStream` into ProviderEventStream instead");
  }
  const decoder = new ProviderEventDecoder(options);
  if (response.bodyUsed || response.body?.locked === true) {
    throw new TypeError('fromResponse: the response body was already read');
  }
  const cores = [decoder as StageCore<unknown, unknown>, ...composeCores(stages, 'fromResponse')];
  return new ReadableStream<unknown>(new ResponseSource(response, options.provider, cores), { highWaterMark: 0 });
}

/** The underlying source of {@link fromResponse}'s stream. */
class ResponseSource implements UnderlyingDefaultSource<unknown> {
  readonly #response: Response;
  readonly #provider: FromResponseOptions['provider'];
  readonly #run: ChainRunner;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The body read started after the last events were enqueued, as a pipe keeps one pending. */
  #ahead: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  /** An error to report at the next read, once the events before it were taken. */
  #failure: { error: unknown } | undefined;
  #controller: ReadableStreamDefaultController<unknown> | undefined;
  /**
   * A read ahead failed (one handler per stream, not a closure per read). A pull takes `#ahead`
   * before it awaits it, so this errors the stream only for a read that no pull is waiting for.
   */
  readonly #aheadFailed = (error: unknown): void => {
    if (this.#ahead !== undefined) this.#controller?.error(error);
  };

  constructor(response: Response, provider: FromResponseOptions['provider'], cores: readonly StageCore<unknown, unknown>[]) {
    this.#response = response;
    this.#provider = provider;
    this.#run = new ChainRunner(cores);
  }

  start(controller: ReadableStreamDefaultController<unknown>): void {
    this.#controller = controller;
  }

  async pull(controller: ReadableStreamDefaultController<unknown>): Promise<void> {
    const response = this.#response;
    const run = this.#run;
    if (this.#failure !== undefined) {
      controller.error(this.#failure.error);
      return;
    }
    if (!response.ok) {
      controller.error(await httpError(response, this.#provider));
      return;
    }
    const reader = (this.#reader ??= response.body?.getReader());
    for (;;) {
      const ahead = this.#ahead;
      this.#ahead = undefined;
      const next = reader === undefined ? { done: true as const, value: undefined } : await (ahead ?? reader.read());
      const out: unknown[] = [];
      let error: { error: unknown } | undefined;
      try {
        const pending = next.done ? run.end(out) : run.push(next.value, out);
        if (pending !== undefined) await pending;
      } catch (caught) {
        error = { error: caught };
      }
      joinAdjacentText(out);
      for (let i = 0; i < out.length; i++) controller.enqueue(out[i]);
      if (error !== undefined) {
        // The body is of no more use: release the connection.
        if (!next.done) void reader?.cancel(error.error).catch(() => undefined);
        if (out.length > 0) this.#failure = error;
        else controller.error(error.error);
        return;
      }
      if (next.done) {
        controller.close();
        return;
      }
      if (out.length > 0) {
        if (reader !== undefined) {
          // As a pipe keeps one read pending: an error of the body then ends the stream at once
          // (what was not read yet is dropped, as through any `TransformStream`), not at the next read.
          const ahead = reader.read();
          this.#ahead = ahead;
          ahead.then(undefined, this.#aheadFailed);
        }
        return;
      }
    }
  }

  cancel(reason: unknown): Promise<void> | undefined {
    if (this.#reader !== undefined) return this.#reader.cancel(reason);
    return this.#response.body?.cancel(reason);
  }
}

/** The {@link ProviderError} of an HTTP error response, from at most 64 KiB of its body. Internal. */
export async function httpError(response: Response, provider: FromResponseOptions['provider']): Promise<ProviderError> {
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
