/**
 * What the framework bindings share: a store for a source, and reading the source into it for as
 * long as some component shows it. Internal to the bindings.
 *
 * What a store reads beyond argstream's events is loaded when a source needs it (a dynamic import:
 * a bundler makes each a chunk of its own): an argstream relay's decoders when a binding is given
 * a relay's `Response`, or no source yet (a page about to get its response); the AI SDK's
 * `fullStream` parts for a `ReadableStream`; and with each, and alone for a `Response` with its
 * `decoder`, the reading of a source into the store (`consume.ts`), the turn builder's reading of
 * the events of a stage before (`events-before.ts`), the readers of field events and path updates,
 * and the store's reading of a call's input as fragments (`fragment-input.ts`: those two, and a
 * stage before's progress). Never for a source that keeps its own snapshot: a page whose turns
 * come from the AI SDK chat transport bundles none of it (the transport loads the reader of path
 * updates itself, with the reading of fragments, when a response sends them).
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import type { ToolSchemas } from './tools.ts';
import { SCANNED_INPUT } from './scanned-input.ts';
import type { TurnStore } from './source-reading.ts';
import { TurnStoreBase, type SourceReading, type TurnSnapshot, type TurnStoreOptions } from './turn-store.ts';

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
   * `() => new ProviderEventDecoder({ provider: 'anthropic' })` (see `TurnStore.consume`; a
   * provider at an entry point of its own is given by its definition, `AG_UI_PROVIDER`, …).
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

/** What a binding loads to read a source: what the store reads beyond argstream's events, and the reading itself. */
interface Loaded {
  readonly reading: SourceReading;
  readonly consume: typeof import('./consume.ts').consume;
}

/** A loader of what some sources need: loaded once; a failed load (a chunk the network lost) is tried again by the next source. */
function loader(load: () => Promise<Loaded>): () => Promise<Loaded> {
  let loading: Promise<Loaded> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

/** An argstream relay's `Response`: its decoders (SSE, NDJSON, the batch reader of its wire form). */
const relayReading = loader(() => Promise.all([import('./relay-response.ts'), commonReading()]).then(([module, common]) => ({ ...common, reading: { ...common.reading, openRelay: module.openRelay } })));
/** A `ReadableStream`, which may carry the AI SDK's `fullStream` parts. */
const partsReading = loader(() => Promise.all([import('../providers/ai-sdk.ts'), commonReading()]).then(([module, common]) => ({ ...common, reading: { ...common.reading, parts: module.AI_SDK_PARTS } })));
/** A provider's `Response` with its `decoder`: a decoder of a relay's records may give field events too. */
const decoderReading = loader(() => commonReading());

/**
 * What every source needs: the reading itself, and the events of a stage before, field events and
 * path updates, which any source but the AI SDK chat transport may carry, with the reading of a
 * call's input from fragments that the last three need.
 */
function commonReading(): Promise<Loaded> {
  return Promise.all([import('./consume.ts'), import('../turn/events-before.ts'), import('./field-fragments.ts'), import('./fragments.ts'), import('./fragment-input.ts')]).then(([reading, before, fields, updates, input]) => ({
    reading: { before: before.readEventBefore, fields: fields.newFieldFragments, updates: updates.newPathUpdateFragments, fragments: input.readFragments },
    consume: reading.consume,
  }));
}

/**
 * What reading `source` needs loaded: the AI SDK's parts for a stream, a relay's decoders for a
 * `Response` without `decoder` (or for no source yet: a page about to get its response), and with
 * each of them what every source needs ({@link commonReading}), alone for a provider's `Response`
 * with its `decoder`.
 */
function readingFor<T extends ToolSchemas>(source: TurnSource<T>, options: TurnSourceOptions<T>): () => Promise<Loaded> {
  if (source instanceof ReadableStream) return partsReading;
  return options.decoder === undefined ? relayReading : decoderReading;
}

/** Each binding store's reading, filled once loaded. */
const readingOf = new WeakMap<TurnStoreBase<ToolSchemas>, SourceReading>();

/**
 * The store a binding reads: the source itself if it keeps a snapshot, else a new store for it,
 * which reads what its source needs once that is loaded (its loading begins here).
 */
export function storeFor<T extends ToolSchemas>(source: TurnSource<T>, options: TurnSourceOptions<T> = {}): TurnStoreBase<T> | ExternalTurn<T> {
  if (isExternal(source)) return source;
  readingFor(source, options)().catch(() => undefined);
  const { decoder: _decoder, request: _request, ...storeOptions } = options;
  const reading: SourceReading = {};
  const store = new TurnStoreBase<T>(storeOptions, reading, SCANNED_INPUT);
  readingOf.set(store as unknown as TurnStoreBase<ToolSchemas>, reading);
  return store;
}

/** Cancel what a binding was given to read (a `Response`'s body, a stream), unless something reads it. */
async function cancelSource(source: ReadableStream<unknown> | Response, reason: unknown): Promise<void> {
  const stream = source instanceof ReadableStream ? source : source.body;
  if (stream !== null && !stream.locked) await stream.cancel(reason).catch(() => undefined);
}

interface Reading {
  readonly controller: AbortController;
  users: number;
  stopping: ReturnType<typeof setTimeout> | undefined;
}

const readings = new WeakMap<TurnStoreBase<ToolSchemas>, Reading>();

/**
 * Read `source` into `store` while at least one user holds it; returns the release function.
 * The last release cancels the source (the response body, and through it the request) one
 * macrotask later, unless a user takes it again first: React's development mode unmounts and
 * mounts each effect once more, and the turn must not be cut by it. A store given as the source
 * is only read, never cancelled.
 */
export function hold<T extends ToolSchemas>(store: TurnStoreBase<T> | ExternalTurn<T>, source: TurnSource<T>, options: TurnSourceOptions<T> = {}): () => void {
  if (source === null || source === undefined || isExternal(source) || !(store instanceof TurnStoreBase)) return () => undefined;
  const key = store as unknown as TurnStoreBase<ToolSchemas>;
  let reading = readings.get(key);
  if (reading === undefined) {
    const controller = new AbortController();
    reading = { controller, users: 0, stopping: undefined };
    readings.set(key, reading);
    const consumeOptions = options.decoder === undefined ? { signal: controller.signal } : { signal: controller.signal, decoder: options.decoder() };
    const sourceReading = readingOf.get(key) ?? {};
    void readingFor(source, options)().then(
      (loaded) => {
        Object.assign(sourceReading, loaded.reading);
        return loaded.consume(store, source, consumeOptions, sourceReading);
      },
      (error: unknown) => {
        // The turn cannot be read: it ends in the error, and the source (the request) with it.
        store.fail(error);
        void cancelSource(source, error);
      },
    );
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
