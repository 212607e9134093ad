/**
 * Reading a source into a store to its end (`TurnStore.consume`), decoding a `Response` on the
 * way: what the framework bindings run once they have loaded what reads their source (a chunk of
 * its own in a page, with the relay's decoders, the AI SDK's parts or a reader of field events),
 * so that a page whose turns come from elsewhere (the AI SDK chat transport) bundles none of it.
 * Internal.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import type { DecoderCore } from '../relay/relay-decoder.ts';
import type { ToolSchemas } from './tools.ts';
import type { ConsumeOptions, OpenedResponse, SourceReading, TurnSnapshot, TurnStoreBase } from './turn-store.ts';

/**
 * Read `source` into the store to its end: a `ReadableStream` of events, or a `Response` (an
 * argstream relay's SSE or NDJSON, or with `decoder` a provider's own response). Resolves with
 * the final snapshot — also when the stream failed: the error is in it, not thrown.
 *
 * A `Response` is read without any stream between its body and the store: each network read is
 * decoded and applied in one step.
 */
export async function consume<T extends ToolSchemas>(store: TurnStoreBase<T>, source: ReadableStream<unknown> | Response, options: ConsumeOptions, reading: SourceReading): Promise<TurnSnapshot<T>> {
  const { signal } = options;
  let reader: ReadableStreamDefaultReader<unknown> | undefined;
  let core: DecoderCore<unknown> | undefined;
  try {
    if (source instanceof ReadableStream) reader = source.getReader();
    else {
      const opened = await openResponse(source, options, reading);
      reader = opened.reader;
      core = opened.core;
    }
  } catch (error) {
    store.fail(error);
    return store.getSnapshot();
  }
  const stop = (): void => {
    const reason: unknown = signal?.reason;
    store.fail(reason);
    void reader?.cancel(reason).catch(() => undefined);
  };
  if (signal?.aborted === true) stop();
  else signal?.addEventListener('abort', stop, { once: true });
  try {
    await pump(store, reader, core);
  } finally {
    signal?.removeEventListener('abort', stop);
    reader.releaseLock();
  }
  return store.finished;
}

/** Read to the end, decoding with `core` when there is one; an error lands in the snapshot. */
async function pump<T extends ToolSchemas>(store: TurnStoreBase<T>, reader: ReadableStreamDefaultReader<unknown>, core: DecoderCore<unknown> | undefined): Promise<void> {
  const decoded: unknown[] = [];
  // Synchronous unless an event's application is (an asynchronous validator): a read costs no
  // promise of its own, which is most of a small read's cost.
  const apply = (from = 0): Promise<void> | undefined => {
    for (let i = from; i < decoded.length; i++) {
      const pending = store.push(decoded[i]);
      if (pending !== undefined) return pending.then(() => apply(i + 1));
    }
    decoded.length = 0;
    return undefined;
  };
  try {
    for (;;) {
      if (store.over) return;
      const { done, value } = await reader.read();
      if (done) break;
      if (core === undefined) {
        const pending = store.push(value);
        if (pending !== undefined) await pending;
        continue;
      }
      try {
        core.push(value as Uint8Array, decoded);
      } finally {
        const pending = apply();
        if (pending !== undefined) await pending;
      }
    }
    if (core !== undefined) {
      try {
        core.end(decoded);
      } finally {
        const pending = apply();
        if (pending !== undefined) await pending;
      }
    }
    await store.end();
  } catch (error) {
    decoded.length = 0;
    store.fail(error);
    await reader.cancel(error).catch(() => undefined);
  }
}

/**
 * A provider's HTTP error: its decoder reads the error body (every adapter turns a provider's
 * error document into a `ProviderError`); a body it does not recognise is an error too.
 */
async function providerHttpError(response: Response, decoder: PushCore<Uint8Array, unknown>): Promise<unknown> {
  const body = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  try {
    decoder.push(body, []);
    decoder.end([]);
  } catch (error) {
    return error;
  }
  return new Error(`the provider answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
}

/** The body of a `Response` and the core that decodes it: a provider's (with `decoder`) or an argstream relay's. */
async function openResponse(response: Response, options: ConsumeOptions, reading: SourceReading): Promise<OpenedResponse> {
  if (response.bodyUsed || response.body?.locked === true) throw new TypeError('TurnStore.consume: the response body was already read');
  if (options.decoder !== undefined) {
    if (!response.ok) throw await providerHttpError(response, options.decoder);
    return { reader: (response.body ?? new Response('').body!).getReader(), core: options.decoder as unknown as DecoderCore<unknown> };
  }
  if (reading.openRelay === undefined) throw new TypeError('TurnStore.consume: this store reads no relay Response');
  return reading.openRelay(response);
}
