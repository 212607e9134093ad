/**
 * What the framework bindings share: a store for a source, and reading the source into it for as
 * long as some component shows it. Internal to the bindings.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import type { ToolSchemas } from './tools.ts';
import { TurnStore, type TurnSnapshot, type TurnStoreOptions } from './turn-store.ts';

/**
 * What a binding shows: a `ReadableStream` of events (any stage's output, a decoded relay), a
 * `Response` (an argstream relay's; with `decoder`, a provider's own), or a {@link TurnStore} that
 * something else fills. `null` or `undefined` shows an empty turn (`status: 'waiting'`).
 */
export type TurnSource<T extends ToolSchemas = {}> = ReadableStream<unknown> | Response | TurnStore<T> | ExternalTurn<T> | null | undefined;

/**
 * Anything else that keeps a turn's snapshot with `TurnStore`'s contract, such as the AI SDK
 * transport of `argstream/ai-sdk`: shown as it is, never read nor cancelled by a binding.
 */
export interface ExternalTurn<T extends ToolSchemas = {}> {
  subscribe(listener: () => void): () => void;
  getSnapshot(): TurnSnapshot<T>;
}

/** Options of the bindings: the store's, and for a provider's own `Response`, how to decode it. */
export interface TurnSourceOptions<T extends ToolSchemas = {}> extends TurnStoreOptions<T> {
  /**
   * For a `Response` that comes straight from a provider: makes its decoder,
   * `() => new ProviderEventDecoder({ provider: 'anthropic' })` (see `TurnStore.consume`).
   */
  readonly decoder?: () => PushCore<Uint8Array, unknown>;
  /**
   * The `AbortController` of the `fetch` that made a `Response` source: aborted, with the body
   * cancelled, when the turn is no longer shown. Cancelling a body ends the request in Chromium and
   * WebKit, but Firefox keeps downloading it (and the model keeps generating) until the fetch is
   * aborted.
   */
  readonly request?: AbortController;
}

/** Whether `source` keeps its own snapshot (a `TurnStore`, or another `ExternalTurn`). */
function isExternal<T extends ToolSchemas>(source: TurnSource<T>): source is TurnStore<T> | ExternalTurn<T> {
  return typeof source === 'object' && source !== null && typeof (source as Partial<ExternalTurn<T>>).subscribe === 'function' && typeof (source as Partial<ExternalTurn<T>>).getSnapshot === 'function';
}

/** The store a binding reads: the source itself if it keeps a snapshot, else a new store for it. */
export function storeFor<T extends ToolSchemas>(source: TurnSource<T>, options: TurnSourceOptions<T> = {}): TurnStore<T> | ExternalTurn<T> {
  if (isExternal(source)) return source;
  const { decoder: _decoder, request: _request, ...storeOptions } = options;
  return new TurnStore<T>(storeOptions);
}

interface Reading {
  readonly controller: AbortController;
  users: number;
  stopping: ReturnType<typeof setTimeout> | undefined;
}

const readings = new WeakMap<TurnStore<ToolSchemas>, Reading>();

/**
 * Read `source` into `store` while at least one user holds it; returns the release function.
 * The last release cancels the source (the response body, and through it the request) one
 * macrotask later, unless a user takes it again first: React's development mode unmounts and
 * mounts each effect once more, and the turn must not be cut by it. A store given as the source
 * is only read, never cancelled.
 */
export function hold<T extends ToolSchemas>(store: TurnStore<T> | ExternalTurn<T>, source: TurnSource<T>, options: TurnSourceOptions<T> = {}): () => void {
  if (source === null || source === undefined || isExternal(source) || !(store instanceof TurnStore)) return () => undefined;
  const key = store as unknown as TurnStore<ToolSchemas>;
  let reading = readings.get(key);
  if (reading === undefined) {
    const controller = new AbortController();
    reading = { controller, users: 0, stopping: undefined };
    readings.set(key, reading);
    const consumeOptions = options.decoder === undefined ? { signal: controller.signal } : { signal: controller.signal, decoder: options.decoder() };
    void store.consume(source, consumeOptions);
  }
  const held = reading;
  held.users++;
  if (held.stopping !== undefined) {
    clearTimeout(held.stopping);
    held.stopping = undefined;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--held.users > 0) return;
    held.stopping = setTimeout(() => {
      held.stopping = undefined;
      if (held.users !== 0) return;
      const reason = new DOMException('the component showing the turn went away', 'AbortError');
      held.controller.abort(reason);
      options.request?.abort(reason);
    }, 0);
  };
}
