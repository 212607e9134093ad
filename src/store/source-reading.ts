/**
 * `TurnStore`: the store of a turn (`TurnStoreBase`, `turn-store.ts`) with what it reads beyond
 * argstream's events — the AI SDK's `fullStream` parts (`providers/ai-sdk.ts`), an argstream
 * relay's `Response` (`relay-response.ts`), field events (`field-fragments.ts`), path updates
 * (`fragments.ts`), a call's input from any of those or from a stage before's progress
 * (`fragment-input.ts`), and the events of a stage before (`turn/events-before.ts`). The framework
 * bindings build on `TurnStoreBase` and
 * load each of those only when a source needs it (see `connect.ts`), so that a page whose turns
 * come from elsewhere (the AI SDK chat transport) bundles none of it.
 *
 * @module
 */
import { AI_SDK_PARTS } from '../providers/ai-sdk.ts';
import { readEventBefore } from '../turn/events-before.ts';
import { FRAGMENT_PROGRESS } from '../turn/progress.ts';
import { newFieldFragments } from './field-fragments.ts';
import { readFragments } from './fragment-input.ts';
import { newPathUpdateFragments } from './fragments.ts';
import { openRelay } from './relay-response.ts';
import type { ToolSchemas } from './tools.ts';
import { consume } from './consume.ts';
import { TurnStoreBase, type ConsumeOptions, type SourceReading, type TurnSnapshot, type TurnStoreOptions } from './turn-store.ts';

/** Everything `TurnStore` reads. */
export const SOURCE_READING: Readonly<SourceReading> = { parts: AI_SDK_PARTS, openRelay, fields: newFieldFragments, updates: newPathUpdateFragments, fragments: readFragments, before: readEventBefore };

/**
 * A sink that keeps one snapshot of a streaming turn, for any UI: `events.pipeTo(store.writable)`
 * (or `store.consume(source)`), then `subscribe` and `getSnapshot` — React's
 * `useSyncExternalStore` contract; `argstream/react`, `argstream/vue` and `argstream/svelte` wrap
 * it.
 *
 * **Any stage's output.** It reads what any stage gives: `ProviderEventStream`'s events (a call's
 * raw argument text is parsed here, incrementally), progress and conversation events, field
 * events, path updates, raw argument deltas, and what an `EventStreamDecoder` decodes from a relay.
 *
 * **Snapshots.** `getSnapshot()` returns the same object until something changed. A snapshot is
 * never mutated and shares everything unchanged with the previous one: a new piece of
 * `/files/2/content` makes new objects only along that path (the call, its input, `files`, its
 * element 2), while every other call, member and array element keeps its identity, so a
 * memoised component of an unchanged part does not render again. Building one costs the text
 * that arrived since the last (a growing string is never copied) plus a new copy of each array and
 * object still open on the path to the change: O(their width) per snapshot, while a closed subtree
 * is never copied again. In all, O(input + snapshots × width of the open containers): a 1 MB string
 * streams in linear time whatever the number of snapshots, and a long array costs its width per
 * snapshot read — read one per notification (per frame by default), not one per event (`'sync'`),
 * where an array of 13,000 elements is copied at every event.
 *
 * **Calls.** Each call has its `toolCallId`, `toolName`, `status` (`streaming`, `complete`,
 * `invalid`, `failed`), its `input` so far (`{}` before its first member), and `complete`: which
 * paths of the input are final, so a field can be shown as final before the call ends. With
 * `tools`, a complete call's input is its schema's validated output, and one the schema rejects
 * is `invalid` with the schema's `issues`; a call of another tool stays untyped.
 *
 * **One id, one call; typed errors for what is not an event.** The turn builder under the store
 * refuses two calls that claim one non-empty id (`TaggedToolCallError`, code
 * `'duplicate-tool-call-id'`), an event of the wrong shape (`RelayError`, code `'invalid-data'`)
 * and one nested beyond `maxDepth` (`JsonStreamError`, code `'max-depth'`): the turn ends in that
 * error after what came before it, as `collectTurn` rejects with it — never a `TypeError` or a
 * `RangeError`.
 *
 * **Notifications** are coalesced (`schedule`: one per animation frame by default); the end of
 * the stream, or its error, is told at once. An error — the provider's, a cut relay's, a call's —
 * lands in the snapshot (`status: 'error'`, `error`, the call `failed`): what arrived stays
 * readable.
 *
 * One store holds one turn: use a new store for the next.
 * @example
 * ```ts
 * const tools = defineTools({ write_file: z.object({ path: z.string(), content: z.string() }) });
 * const store = new TurnStore({ tools });
 * store.subscribe(() => render(store.getSnapshot()));
 * await store.consume(await fetch('/api/chat', { method: 'POST', body }));
 * ```
 */
export class TurnStore<T extends ToolSchemas = {}> extends TurnStoreBase<T> {
  #writable: WritableStream<unknown> | undefined;

  constructor(options: TurnStoreOptions<T> = {}) {
    super(options, SOURCE_READING, FRAGMENT_PROGRESS);
  }

  /**
   * The sink, made on first use: `events.pipeTo(store.writable)` with any stage's output. A write
   * waits for an asynchronous schema, so events stay in order. Closing it ends the turn.
   *
   * A failure is in the snapshot (`status: 'error'`) whichever way it comes, and `pipeTo` rejects
   * with it, as it does for any sink: the source's error (`pipeTo` aborts the writable with it), an
   * abort of the writable or of the pipe (its `signal`: the source is cancelled and the snapshot's
   * error is the signal's reason), or an error of the store's own reading (AI SDK parts that carry
   * an error or end cut: the source is cancelled with it). With `preventAbort`, an aborted pipe
   * leaves the turn open, as it leaves any writable. {@link consume} reads a source the same way but
   * never rejects.
   */
  get writable(): WritableStream<unknown> {
    return (this.#writable ??= new WritableStream<unknown>({
      write: (event) => guard(this, () => this.push(event)),
      close: () => guard(this, () => this.end()),
      abort: (reason) => this.fail(reason),
    }));
  }

  /**
   * Read `source` into the store to its end: a `ReadableStream` of events, or a `Response` (an
   * argstream relay's SSE or NDJSON, or with `decoder` a provider's own response). Resolves with
   * the final snapshot — also when the stream failed: the error is in it, not thrown.
   *
   * A `Response` is read without any stream between its body and the store: each network read is
   * decoded and applied in one step.
   */
  consume(source: ReadableStream<unknown> | Response, options: ConsumeOptions = {}): Promise<TurnSnapshot<T>> {
    return consume(this, source, options, SOURCE_READING);
  }
}

/** Run `step`; an error it throws goes in the snapshot before it errors the writable. */
function guard<T extends ToolSchemas>(store: TurnStoreBase<T>, step: () => Promise<void> | undefined): Promise<void> | undefined {
  try {
    return step();
  } catch (error) {
    store.fail(error);
    throw error;
  }
}
