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
import { retainHiddenClass } from '../retain.ts';
import { ChainRunner, type Fusion, type StageCore, idleFusion, installFusion } from '../transforms/stage.ts';
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
 *   decoder on it. Argstream stages piped after it (`pipeThrough` without options) run in the same
 *   step, as stages piped after each other do.
 *
 * Cancelling the returned stream cancels the response body (the connection is released); a
 * decoding error cancels it too. The body is not read before the first read.
 *
 * @throws {TypeError} for an unknown provider, `'ai-sdk'` (not an HTTP API), or a response whose
 * body was already read.
 *
 * @example
 * ```ts
 * const response = await fetch('https://api.anthropic.com/v1/messages', { method: 'POST', headers, body });
 * const events = fromResponse(response, { provider: 'anthropic' }).pipeThrough(new ConversationEventStream());
 * try {
 *   for await (const event of events) if (event.type === 'tool-call') await run(event.toolName, event.arguments);
 * } catch (error) {
 *   if (error instanceof ProviderError && error.status === 429) retryLater();
 *   else throw error;
 * }
 * ```
 */
export function fromResponse(response: Response, options: FromResponseOptions): ReadableStream<StreamEvent> {
  if (options.provider === 'ai-sdk') {
    throw new TypeError("fromResponse: 'ai-sdk' is not an HTTP API; pipe `streamText(…).fullStream` into ProviderEventStream instead");
  }
  const decoder = new ProviderEventDecoder(options);
  if (response.bodyUsed || response.body?.locked === true) {
    throw new TypeError('fromResponse: the response body was already read');
  }
  const fusion: Fusion = { cores: [decoder as StageCore<unknown, unknown>], started: false, absorbed: false };
  const stream = new ReadableStream<StreamEvent>(new ResponseSource(response, options.provider, fusion), { highWaterMark: 0 });
  installFusion(stream as ReadableStream<unknown>, fusion);
  return stream;
}

/**
 * The underlying source of {@link fromResponse}'s stream. A class, not closures made per
 * response: V8's optimised code for a method outlives any one response (see retain.ts).
 */
class ResponseSource implements UnderlyingDefaultSource<StreamEvent> {
  #response: Response | undefined;
  readonly #provider: FromResponseOptions['provider'];
  readonly #fusion: Fusion;
  readonly #run: ChainRunner;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** An error to report at the next read, once the events before it were taken. */
  #failure: { error: unknown } | undefined;

  constructor(response: Response | undefined, provider: FromResponseOptions['provider'], fusion: Fusion) {
    this.#response = response;
    this.#provider = provider;
    this.#fusion = fusion;
    this.#run = new ChainRunner(fusion.cores);
  }

  async pull(controller: ReadableStreamDefaultController<StreamEvent>): Promise<void> {
    const response = this.#response;
    const fusion = this.#fusion;
    const run = this.#run;
    if (this.#failure !== undefined) {
      controller.error(this.#failure.error);
      return;
    }
    if (response === undefined) return;
    if (!response.ok) {
      fusion.started = true;
      controller.error(await httpError(response, this.#provider));
      return;
    }
    const reader = (this.#reader ??= response.body?.getReader());
    for (;;) {
      const next = reader === undefined ? { done: true as const, value: undefined } : await reader.read();
      const out: unknown[] = [];
      let error: { error: unknown } | undefined;
      try {
        const pending = next.done ? run.end(out) : run.push(next.value, out);
        if (pending !== undefined) await pending;
      } catch (caught) {
        error = { error: caught };
      }
      if (out.length > 0 || next.done) fusion.started = true;
      joinAdjacentText(out);
      for (let i = 0; i < out.length; i++) controller.enqueue(out[i] as StreamEvent);
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
      if (out.length > 0) return;
    }
  }

  cancel(reason: unknown): Promise<void> | undefined {
    if (this.#reader !== undefined) return this.#reader.cancel(reason);
    return this.#response?.body?.cancel(reason);
  }
}

// An idle instance, so that its hidden class outlives every response (see retain.ts).
retainHiddenClass(new ResponseSource(undefined, 'anthropic', idleFusion));

/** The {@link ProviderError} of an HTTP error response, from at most 64 KiB of its body. */
async function httpError(response: Response, provider: FromResponseOptions['provider']): Promise<ProviderError> {
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
