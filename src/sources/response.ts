/**
 * A provider's `fetch` `Response` as a stream of {@link StreamEvent}s, with its HTTP status
 * checked.
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import { joinAdjacentText } from '../transforms/batch.ts';
import { ProviderEventDecoder, type ProviderEventStreamOptions } from '../transforms/provider-event-stream.ts';
import { providerErrorFromBody } from '../transforms/providers/error-body.ts';
import { type Fusion, type StageCore, installFusion } from '../transforms/stage.ts';
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
  const provider = options.provider;
  const body = response.body;
  const fusion: Fusion = { cores: [decoder as StageCore<unknown, unknown>], started: false, absorbed: false };
  const run = chainRunner(fusion.cores);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** An error to report at the next read, once the events before it were taken. */
  let failure: { error: unknown } | undefined;

  const stream = new ReadableStream<StreamEvent>(
    {
      async pull(controller) {
        if (failure !== undefined) {
          controller.error(failure.error);
          return;
        }
        if (!response.ok) {
          fusion.started = true;
          const error = await httpError(response, provider);
          controller.error(error);
          return;
        }
        reader ??= body?.getReader();
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
            if (out.length > 0) failure = error;
            else controller.error(error.error);
            return;
          }
          if (next.done) {
            controller.close();
            return;
          }
          if (out.length > 0) return;
        }
      },
      cancel(reason) {
        if (reader !== undefined) return reader.cancel(reason);
        return body?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  installFusion(stream as ReadableStream<unknown>, fusion);
  return stream;
}

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

/** What may still be running: only a core that answered with a promise makes something to wait for. */
type Pending = Promise<void> | undefined;

interface ChainRunner {
  push(input: unknown, out: unknown[]): Pending;
  end(out: unknown[]): Pending;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * Runs inputs through a chain of cores (the list may grow while it runs, as stages fuse): what a
 * core produces goes to the next, the last core's outputs to `out`. Synchronous unless a core
 * answers with a promise. A core that throws still passes on what it produced before the error.
 */
function chainRunner(cores: StageCore<unknown, unknown>[]): ChainRunner {
  const scratch: unknown[][] = [];

  /** Core `level` produced `buffer` (and returned `result`) or threw `error`: pass on what it made. */
  const settle = (level: number, result: unknown, buffer: unknown[], out: unknown[], failure?: { error: unknown }): Pending => {
    if (failure !== undefined) {
      const rest = forward(level, buffer, out, 0);
      if (rest === undefined) throw failure.error;
      return rest.then(() => Promise.reject(failure.error));
    }
    if (result === buffer || !isThenable(result)) return forward(level, buffer, out, 0);
    return Promise.resolve(result).then(
      () => forward(level, buffer, out, 0),
      (error: unknown) => (forward(level, buffer, out, 0) ?? Promise.resolve()).then(() => Promise.reject(error)),
    );
  };

  const last = (result: unknown, out: unknown[]): Pending =>
    result === out || !isThenable(result) ? undefined : Promise.resolve(result).then(() => undefined);

  // Written out (no closure per call): this runs for every event at every level.
  const feed = (level: number, item: unknown, out: unknown[]): Pending => {
    const core = cores[level] as StageCore<unknown, unknown>;
    if (level === cores.length - 1) return last(core.push(item, out), out);
    const buffer = (scratch[level] ??= []);
    let result: unknown;
    try {
      result = core.push(item, buffer);
    } catch (error) {
      return settle(level, undefined, buffer, out, { error });
    }
    return settle(level, result, buffer, out);
  };

  const forward = (level: number, buffer: unknown[], out: unknown[], from: number): Pending => {
    try {
      for (let i = from; i < buffer.length; i++) {
        const pending = feed(level + 1, buffer[i], out);
        if (pending !== undefined) {
          return pending.then(
            () => forward(level, buffer, out, i + 1),
            (error: unknown) => {
              buffer.length = 0;
              throw error;
            },
          );
        }
      }
    } catch (error) {
      buffer.length = 0;
      throw error;
    }
    buffer.length = 0;
    return undefined;
  };

  const endFrom = (level: number, out: unknown[]): Pending => {
    for (; level < cores.length; level++) {
      const core = cores[level] as StageCore<unknown, unknown>;
      let pending: Pending;
      if (level === cores.length - 1) {
        pending = last(core.end(out), out);
      } else {
        const buffer = (scratch[level] ??= []);
        let result: unknown;
        try {
          result = core.end(buffer);
        } catch (error) {
          pending = settle(level, undefined, buffer, out, { error });
        }
        pending ??= settle(level, result, buffer, out);
      }
      if (pending !== undefined) {
        const next = level + 1;
        return pending.then(() => endFrom(next, out));
      }
    }
    return undefined;
  };

  return { push: (input, out) => feed(0, input, out), end: (out) => endFrom(0, out) };
}
