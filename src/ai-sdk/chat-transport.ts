/**
 * A `ChatTransport` for the AI SDK's `useChat` / `Chat` that keeps its tool inputs out of the AI
 * SDK's quadratic re-parse: each call's input deltas go to argstream, everything else to the AI
 * SDK untouched.
 *
 * @module
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { DefaultChatTransport, HttpChatTransport, type HttpChatTransportInitOptions, type UIMessage, type UIMessageChunk } from 'ai';
import { ProviderError, RelayError, excerpt } from '../errors.ts';
import { isRecord } from '../providers/json-access.ts';
import { TOOL_INPUT_UPDATES, createAiSdkUiAdapter } from '../providers/ai-sdk-ui.ts';
import { SseLineBreaks } from '../providers/sse-line-breaks.ts';
import { checkRetryOptions, type RetryOptions } from '../relay/retry-policy.ts';
import type { Resumer } from './chat-resume.ts';
import type { ToolSchemas } from '../store/tools.ts';
import type { TurnStore } from '../store/source-reading.ts';
import { SCANNED_INPUT } from '../store/scanned-input.ts';
import { TurnStoreBase, type SourceReading, type TurnSnapshot, type TurnStoreSchedule } from '../store/turn-store.ts';
import type { PipelineEvent, StreamEvent } from '../types.ts';

/** Options of {@link ArgstreamChatTransport}: the AI SDK's HTTP transport options, and argstream's. */
export type ArgstreamChatTransportOptions<UI_MESSAGE extends UIMessage, T extends ToolSchemas = {}> = HttpChatTransportInitOptions<UI_MESSAGE> & {
  /** The application's tools (`defineTools`): the partial inputs in the snapshots are typed by them. */
  readonly tools?: T;
  /** When the snapshot's listeners are told (`TurnStore`'s `schedule`). @default 'frame' */
  readonly schedule?: TurnStoreSchedule;
  /**
   * With `ai` 7 (and 6 from 6.0.304): whether a resumed stream replays the response from its
   * start (the `Chat` then resets the message, and so does the snapshot), as
   * `DefaultChatTransport`'s option of the same name. `ai` 5 always continues the message it kept,
   * and so does the snapshot. `@ai-sdk/react` 3's `useChat` does not hand this on to its `Chat`,
   * which then continues the message: give `false` there.
   * @default true
   */
  readonly resumeStreamIsReplay?: boolean;
  /**
   * Most text of the response held while waiting for the end of an SSE event (UTF-16 code units
   * of decoded text), as `ProviderEventStream`'s option of the same name: an event longer than
   * this, still arriving or arrived whole, errors the stream the AI SDK reads (and the snapshot)
   * with a `ProviderError` (provider `'ai-sdk-ui'`, type `'invalid-stream'`, code
   * `'max-buffered-bytes'`) instead of buffering an endless line.
   * @default 16 MiB (16 777 216)
   */
  readonly maxBufferedBytes?: number;
  /**
   * Whether a response cut before its end is resumed by the transport itself, and how: a
   * network error while reading it, or a body that ends without the message's end (`finish`,
   * `error`, `abort` or `[DONE]`), makes the transport ask for the stream again with the request
   * the AI SDK's `resumeStream()` sends (`reconnectToStream`: `GET ${api}/${chatId}/stream`, or
   * `prepareReconnectToStreamRequest`'s), and feed what it answers into the same stream the `Chat`
   * reads: `useChat` sees one message, with no chunk twice and none missing. A server that replays
   * the response from its start (`resumeStreamIsReplay`, the default) has its first chunks, those
   * already read, checked (their count, types, ids and delta lengths) and skipped; one that
   * continues (`resumeStreamIsReplay: false`) has all it sends appended.
   *
   * A network error or a 5xx (408, 425, 429) on the resume is retried within the bounds given here
   * ({@link RetryOptions}, as `readRelay`'s; an attempt brings something new when it brings a chunk
   * not yet read). The stream the `Chat` reads errors with a `RelayError` — the message stays as it
   * was — on a 204 (the server has no active stream: `'incomplete'`), a 4xx (`'invalid-input'`),
   * a replay that does not repeat what was read (`'out-of-sequence'`), or once the bounds ran out
   * (`'incomplete'`, the last failure as `cause`). The user's stop (`stop()`, the request's signal)
   * ends it at once, also while waiting: no resume follows a stop. `false` leaves a cut response
   * as it is: the `Chat` errors on a network error, and a body that ends early leaves the message
   * (and the snapshot) for the page's own `resumeStream()`.
   * @default true (the bounds' defaults: 8 attempts, 60 s, waits from 250 ms up to 5 s)
   */
  readonly reconnect?: boolean | RetryOptions;
};

/**
 * The transport's own resume, a chunk of its own: asked for with each response that may need it
 * (the module map keeps it once loaded), so that it is there before a cut.
 */
const loadResume = () => import('./chat-resume.ts');

/**
 * How the transport reads an argstream server's path updates (`toolInputs: 'path-updates'`), a
 * chunk of its own: a server sends them or it does not, and by default it does not. Loaded with
 * the first response that sends one (see `ChunkRouter.#drain`); its reader of them is given to
 * every store of the transports through {@link READING}.
 */
const loadPathUpdates = () => import('./chat-path-updates.ts');
let pathUpdates: Awaited<ReturnType<typeof loadPathUpdates>> | undefined;

/** What the transports' stores read beyond argstream's events: path updates, once their reader is loaded. */
const READING: SourceReading = {};

const DEFAULT_MAX_BUFFERED = 16 * 1024 * 1024;

/** Whether the installed `ai` resets a message on a replayed resume (`resumeStreamIsReplay`: ai 7, ai 6 from 6.0.304). */
function replayAware(): boolean {
  try {
    return 'resumeStreamIsReplay' in new DefaultChatTransport();
  } catch {
    return false;
  }
}

/**
 * The AI SDK's HTTP chat transport (the same request, options and endpoints as
 * `DefaultChatTransport`) with argstream reading the response: the UI message stream's bytes are
 * parsed once, each `tool-input-delta` is applied to a {@link TurnStore} (linear: the call's input
 * grows, never re-parsed) and not passed on, and every other chunk reaches `useChat` untouched —
 * `tool-input-start`, `tool-input-available` (the whole input, parsed once with its chunk),
 * outputs, tool execution, `addToolOutput` / `addToolResult`, `onToolCall`, persistence and resume
 * work as the AI SDK documents. Without the deltas the AI SDK never runs `parsePartialJson` on a
 * growing input, which is what makes a large tool input quadratic in `useChat` (seconds of main
 * thread for a 200 KB file, minutes for 1 MB).
 *
 * While a call streams, its part in `useChat`'s message is in state `input-streaming` with no
 * `input`; its input so far is in the transport's snapshot: `transport.getSnapshot().calls`,
 * typed by `tools`, or `useTurn(transport)` in React and Vue (`argstream/react`, `argstream/vue`)
 * and `turnStore(transport)` in Svelte, typed by the transport's tools, and `subscribe` for any
 * framework. At `tool-input-available` the snapshot's call ends with the
 * input the chunk carries, as the message's does: deltas that stopped short of it are completed
 * (as `ProviderEventStream({ provider: 'ai-sdk-ui' })` reads the chunk). A new request starts a
 * new snapshot; a resumed stream resets it or continues it as the installed `ai` resets or
 * continues the message, so the partial input never doubles. The user's stop (`stop()`, or the request's `abortSignal` aborted) ends the snapshot as
 * stopped: `done`, a call cut mid-input `failed` with what had arrived. A response cut before
 * its end — a network error while reading it, a body that ends without `finish`, `error`, `abort`
 * or `[DONE]` — is resumed by the transport itself, into the same stream the AI SDK reads (see the
 * option `reconnect`): `useChat` sees one message, and the page calls no `resumeStream()`. One it
 * cannot resume ends the snapshot in `error`, with the error the AI SDK's stream gets; with
 * `reconnect: false`, a connection that breaks ends it in `error`, and a body that ends early leaves
 * the snapshot streaming, for the page's resume to go on with. A call the server reports as
 * failed (`tool-input-error`) is `failed` with that error, and the turn goes on, as in `useChat`; a
 * call cut before its `tool-input-available` (its step or the message ended first) is `failed`
 * with an `IncompleteToolCallError` and what had arrived. A chunk after `finish` is a
 * `ProviderError` of type `'after-end'`: the snapshot ends in it and the AI SDK's stream errors
 * with it after the chunks before it, so nothing is added to the finished message.
 * @example
 * ```tsx
 * const transport = new ArgstreamChatTransport({ api: '/api/chat', tools });
 * function Chat() {
 *   const { messages, sendMessage } = useChat({ transport });
 *   const turn = useTurn(transport); // the streaming calls' inputs, typed by the transport's tools
 *   …
 * }
 * ```
 */
export class ArgstreamChatTransport<UI_MESSAGE extends UIMessage = UIMessage, T extends ToolSchemas = {}> extends HttpChatTransport<UI_MESSAGE> {
  /** As `DefaultChatTransport`'s, read by `ai` 7's `useChat` on a resume. */
  readonly resumeStreamIsReplay: boolean;
  readonly #tools: T | undefined;
  readonly #schedule: TurnStoreSchedule | undefined;
  /** Whether a resume continues the snapshot (ai 5, or ai 7 without replay). */
  readonly #resumeContinues: boolean;
  /** The response whose snapshot is shown: the latest to arrive. */
  #current: Session;
  #unsubscribe: () => void;
  readonly #listeners = new Set<() => void>();
  /** Each response's router, by the stream handed to the AI SDK, until its call says what it is. */
  readonly #routers = new WeakMap<ReadableStream<UIMessageChunk>, ChunkRouter>();
  /** The routers of the responses still being read, for `close()`. */
  readonly #reading = new Set<ChunkRouter>();
  readonly #maxBufferedBytes: number;
  /** The bounds of the transport's own resumes; `undefined` when it makes none. */
  readonly #retry: RetryOptions | undefined;
  /**
   * The transport's own resumes, by their request's signal: each is given its response by the
   * transport's `fetch` (the AI SDK's transport throws a plain error for any status), and says
   * which response the AI SDK's transport gets instead (see `reopenResponse`).
   */
  readonly #probes = new WeakMap<AbortSignal, (response: Response) => Response>();

  /** @throws {RangeError} for a `maxBufferedBytes` that is not positive, or a bound of `reconnect` that is not a positive number. */
  constructor(options: ArgstreamChatTransportOptions<UI_MESSAGE, T> = {}) {
    const { tools, schedule, resumeStreamIsReplay, maxBufferedBytes, reconnect, ...http } = options;
    const max = maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
    if (!(max > 0)) throw new RangeError(`ArgstreamChatTransport: maxBufferedBytes must be positive, got ${String(max)}`);
    const retry = reconnect === false ? undefined : typeof reconnect === 'object' ? reconnect : {};
    if (retry) checkRetryOptions(retry, 'ArgstreamChatTransport');
    // `this` once constructed: the fetch runs only then.
    const watched: typeof globalThis.fetch = async (input, init) => {
      const response = await (http.fetch ?? globalThis.fetch)(input, init);
      return this.#probes.get(init?.signal as AbortSignal)?.(response) ?? response;
    };
    super({ ...http, fetch: watched });
    this.#retry = retry;
    this.#maxBufferedBytes = max;
    this.#tools = tools;
    this.#schedule = schedule;
    this.resumeStreamIsReplay = resumeStreamIsReplay ?? true;
    this.#resumeContinues = !replayAware() || !this.resumeStreamIsReplay;
    this.#current = this.#newSession();
    this.#unsubscribe = this.#current.store.subscribe(this.#tell);
  }

  /** Listen for changes of the snapshot (React's `useSyncExternalStore` contract). Bound. */
  readonly subscribe = (listener: () => void): (() => void) => {
    const entry = (): void => listener();
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  };

  /** The turn of the latest response: its text and each tool call's input so far, typed. Bound. */
  readonly getSnapshot = (): TurnSnapshot<T> => this.#current.store.getSnapshot() as TurnSnapshot<T>;

  /**
   * `HttpChatTransport`'s, the response read by argstream: the server's chunks as they came, but
   * the tool input deltas. `CHUNK` is the `UIMessageChunk` of the `ai` that reads them (inferred
   * from the `ChatTransport` the transport is given to): the chunks are the server's, not this
   * `ai`'s, so that the transport is the `ChatTransport` of whichever `ai` the page's `useChat`
   * runs, also where `@ai-sdk/react` brings its own (`ai` 7 installed beside `@ai-sdk/react` 3,
   * which depends on `ai` 6).
   */
  override async sendMessages<CHUNK = UIMessageChunk>(options: Parameters<HttpChatTransport<UI_MESSAGE>['sendMessages']>[0]): Promise<ReadableStream<CHUNK>> {
    const stream = await super.sendMessages(options);
    this.#begin(stream, this.#newSession(), options.abortSignal, this.#resumer(options));
    return stream as ReadableStream<unknown> as ReadableStream<CHUNK>;
  }

  /** `HttpChatTransport`'s, the response read by argstream; `CHUNK` as for {@link ArgstreamChatTransport.sendMessages}. */
  override async reconnectToStream<CHUNK = UIMessageChunk>(options: Parameters<HttpChatTransport<UI_MESSAGE>['reconnectToStream']>[0]): Promise<ReadableStream<CHUNK> | null> {
    // What the resume goes on with is decided at the call: a request sent while it waits for its
    // response is another turn, and its response, arriving first or last, is not this one.
    const continued = this.#resumeContinues ? this.#current : undefined;
    const stream = await super.reconnectToStream(options);
    if (stream !== null) this.#begin(stream, continued ?? this.#newSession(), options.abortSignal, this.#resumer(options));
    return stream as ReadableStream<unknown> | null as ReadableStream<CHUNK> | null;
  }

  /**
   * Ends what is still open (ai 7's `ChatTransport.close`, which its `Chat.dispose()` calls after
   * `stop()`): every response still being read — its request ends, the stream the AI SDK reads
   * errors with an `AbortError` — and a snapshot still streaming (a response cut and kept for a
   * resume), which ends as stopped. Listeners stay subscribed (they unsubscribe themselves), and
   * the transport can be used again: a later request starts a new snapshot.
   */
  close(): void {
    for (const router of [...this.#reading]) router.close();
    if (this.#current.store.getSnapshot().status === 'streaming') this.#current.stop();
  }

  protected processResponseStream(stream: ReadableStream<Uint8Array>): ReadableStream<UIMessageChunk> {
    // Read as a new response unless the call that fetched it says otherwise (before any read).
    const router: ChunkRouter = new ChunkRouter(stream.getReader(), () => this.#begin(readable, this.#newSession(), undefined), this.#reading, this.#maxBufferedBytes);
    const readable = new ReadableStream<UIMessageChunk>(router, { highWaterMark: 0 });
    this.#routers.set(readable, router);
    return readable;
  }

  /**
   * The response of `stream` is read into `session`, whose snapshot is now the one shown; `signal`
   * is its request's (aborted: the user stopped it).
   */
  #begin(stream: ReadableStream<UIMessageChunk>, session: Session, signal: AbortSignal | undefined, resumer?: Resumer): void {
    const router = this.#routers.get(stream);
    if (router === undefined) return;
    this.#routers.delete(stream);
    router.bind(session, signal, resumer);
    // A resume that continues a turn whose snapshot ended (the connection failed, the user
    // stopped) goes on in a new store given what the old one had.
    const reopened = session.reopen();
    if (session === this.#current && !reopened) return;
    this.#unsubscribe();
    this.#current = session;
    this.#unsubscribe = session.store.subscribe(this.#tell);
    this.#tell();
  }

  /** How the response of the call with `options` is asked for again, if the transport resumes. */
  #resumer(options: { readonly chatId: string; readonly headers?: unknown; readonly body?: unknown; readonly metadata?: unknown }): Resumer | undefined {
    return (
      this.#retry && {
        options: this.#retry,
        replay: this.resumeStreamIsReplay,
        probes: this.#probes,
        // The call's own options: `reconnectToStream` reads their chatId, headers, body and metadata.
        reconnect: (abortSignal) => super.reconnectToStream({ ...(options as Parameters<HttpChatTransport<UI_MESSAGE>['reconnectToStream']>[0]), abortSignal }),
      }
    );
  }

  #newSession(): Session {
    const options: { tools?: T; schedule?: TurnStoreSchedule } = {};
    if (this.#tools !== undefined) options.tools = this.#tools;
    if (this.#schedule !== undefined) options.schedule = this.#schedule;
    return new Session(() => new TurnStoreBase<T>(options, READING, SCANNED_INPUT) as unknown as TurnStoreBase<ToolSchemas>, this.#resumeContinues);
  }

  readonly #tell = (): void => {
    for (const listener of [...this.#listeners]) listener();
  };
}

/**
 * One response and the resumes that continue it: its adapter's state, the calls' text so far and
 * its snapshot.
 */
class Session {
  /** The 'ai-sdk-ui' adapter alone (the chunks are framed here): a page bundles no other provider's. */
  readonly decoder = new ChunkDecoder();
  /** The input text so far of each call still streaming, by `toolCallId`. */
  readonly texts = new Map<string, string[]>();
  store: TurnStoreBase<ToolSchemas>;
  /**
   * The store can no longer follow (the adapter failed on a chunk: an `error` chunk, input it
   * cannot read): the snapshot holds the error, and the AI SDK gets every delta from then on.
   */
  broken = false;
  readonly #newStore: () => TurnStoreBase<ToolSchemas>;
  /** What the store was given, when a resume may continue the turn after its store ended. */
  readonly #kept: KeptEvents | undefined;

  constructor(newStore: () => TurnStoreBase<ToolSchemas>, resumable: boolean) {
    this.#newStore = newStore;
    this.store = newStore();
    this.#kept = resumable ? new KeptEvents() : undefined;
  }

  push(event: PipelineEvent): void {
    this.store.push(event);
    this.#kept?.push(event);
  }

  /** The user stopped the turn: it ends there (a call cut mid-input fails with what had arrived). */
  stop(): void {
    this.store.end();
  }

  /** The response failed (the connection broke, a chunk argstream cannot read): the error goes in the snapshot. */
  fail(error: unknown): void {
    this.store.fail(error);
  }

  /** For a resume that continues: once the store ended, a new one given what it had. Whether the store changed. */
  reopen(): boolean {
    const status = this.store.getSnapshot().status;
    if (this.#kept === undefined || this.broken || (status !== 'done' && status !== 'error')) return false;
    const store = this.#newStore();
    for (const event of this.#kept.events()) store.push(event);
    this.store = store;
    return true;
  }
}

/**
 * The 'ai-sdk-ui' adapter of one response, run as `ProviderEventDecoder` runs it, less what the
 * transport does itself: the chunks are framed, and checked to be objects, by `ChunkRouter`, and
 * the end is read only after `finish` (a chunk after it is the adapter's `'after-end'` error). What
 * the adapter threw is thrown again by every later call; at the end, a slot still open is flushed
 * with `endOfInput`, so that a call cut before its first argument byte is not taken for a call
 * without arguments.
 */
class ChunkDecoder {
  readonly #adapter = createAiSdkUiAdapter();
  #failure: unknown;

  push(chunk: object, out: StreamEvent[]): void {
    if (this.#failure !== undefined) throw this.#failure;
    let events: StreamEvent[];
    try {
      events = this.#adapter.push(chunk);
    } catch (error) {
      this.#failure = error;
      throw error;
    }
    for (let i = 0; i < events.length; i++) out.push(events[i] as StreamEvent);
  }

  end(out: StreamEvent[]): void {
    if (this.#failure !== undefined) throw this.#failure;
    for (const event of this.#adapter.end()) {
      const said = event.type === 'flush' && event.metadata?.['endOfInput'] !== undefined;
      out.push(event.type === 'flush' && !said ? { ...event, metadata: { ...event.metadata, endOfInput: true } } : event);
    }
  }
}

/** A run of text pieces of one slot (consecutive `message`, `reasoning` or argument parts), kept as one event. */
interface Run {
  readonly first: PipelineEvent & { readonly type: 'part' };
  readonly pieces: string[];
}

/** The text of a part that a later part of the same slot and type continues, if it is one. */
function pieceOf(event: PipelineEvent): string | undefined {
  if (event.type !== 'part' || event.metadata !== undefined) return undefined;
  const part = event.part;
  if (part.type === 'tool-call-arguments') return part.chunk;
  if (part.type === 'message' || part.type === 'reasoning') return part.text;
  return undefined;
}

/**
 * The events a store was given, to give them to a new one: consecutive pieces of one slot's text
 * are kept as one run (a call's input is one run of its deltas), so that what is kept is about one
 * reference per delta, and joined once when read.
 */
class KeptEvents {
  readonly #entries: Array<PipelineEvent | Run> = [];
  #run: Run | undefined;

  push(event: PipelineEvent): void {
    const piece = pieceOf(event);
    const run = this.#run;
    if (piece !== undefined && run !== undefined && event.type === 'part' && run.first.index === event.index && run.first.part.type === event.part.type) {
      run.pieces.push(piece);
      return;
    }
    this.#run = piece === undefined ? undefined : { first: event as Run['first'], pieces: [piece] };
    this.#entries.push(this.#run ?? event);
  }

  events(): PipelineEvent[] {
    return this.#entries.map((entry) => ('pieces' in entry ? merged(entry) : entry));
  }
}

function merged(run: Run): PipelineEvent {
  if (run.pieces.length === 1) return run.first;
  const text = run.pieces.join('');
  const part = run.first.part;
  return { ...run.first, part: part.type === 'tool-call-arguments' ? { ...part, chunk: text } : { ...part, text } } as PipelineEvent;
}

/** A resumed response that does not replay what was read (its chunks differ, or it ended first). */
function outOfSequence(): RelayError {
  return new RelayError('out-of-sequence', 'the resume did not replay what was read');
}

/** `hash` followed by `text`'s characters (a 32-bit polynomial hash, as Java's strings have), then a separator. */
function mix(hash: number, text: unknown): number {
  // Only strings: a chunk's fields are the wire's, of any shape.
  if (typeof text === 'string') for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return Math.imul(hash, 31);
}

/**
 * `print` followed by a chunk's type, ids and delta length: enough to tell a replay that repeats
 * the chunks read from one that does not, without keeping them, and without allocating per chunk.
 */
function fingerprint(print: number, chunk: Record<string, unknown>): number {
  const delta = (chunk['delta'] ?? chunk['inputTextDelta']) as { length?: number } | undefined;
  return (mix(mix(mix(print, chunk['type']), chunk['toolCallId']), chunk['id']) + ~~(delta?.length as number)) | 0;
}

/** The chunks after which a streaming call will get no more deltas: the AI SDK keeps its input as it stands. */
const STOPS: ReadonlySet<string> = new Set(['abort', 'error', 'finish-step', 'finish']);

/** A cancellation by a signal: `AbortError` (a `DOMException`, or an error named so). */
function isAbortError(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'AbortError';
}

/**
 * The UI message stream's bytes → its chunks for the AI SDK, without the tool input deltas, and
 * every chunk to the store (through the `ai-sdk-ui` adapter), in the read itself: each network
 * read is parsed and applied in one step, and only what reaches the AI SDK is enqueued. Before a
 * chunk that stops a call still streaming (an abort, an error, the end of a step), the call's text
 * so far goes to the AI SDK as one delta, so that its message keeps the same partial input as with
 * every delta: one parse of the text, not one per delta. Once the store can no longer follow (the
 * adapter failed on a chunk: an `error` chunk), the AI SDK gets each streaming call's text so far
 * as one delta, then every delta, as from its own transport.
 *
 * How the response ends is how the snapshot ends: the user's stop — the request's signal aborted
 * (the AI SDK's `stop()` aborts it and cancels the stream, with no reason), or a cancel without a
 * reason or with an `AbortError` — ends the turn as stopped (the snapshot done, a call cut
 * mid-input failed with what had arrived); a read that fails otherwise (the connection broke) or a
 * cancel with another reason fails it with that error. Internal.
 */
class ChunkRouter implements UnderlyingDefaultSource<UIMessageChunk> {
  /** The body being read: the response's, then each resume's. */
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  /** Binds a router whose call did not (a response read before its call returned). */
  readonly #unbound: () => void;
  /** The routers still reading (the transport's): this one until its response is over. */
  readonly #reading: Set<ChunkRouter>;
  #session: Session | undefined;
  /** The request's signal: once aborted, whatever ends the response is the user's stop. */
  #signal: AbortSignal | undefined;
  #controller: ReadableStreamDefaultController<UIMessageChunk> | undefined;
  #text = new TextDecoder();
  readonly #events: PipelineEvent[] = [];
  readonly #parser: EventSourceParser;
  #lineBreaks = new SseLineBreaks();
  /** How the response is asked for again after a cut; `undefined`: it is not. */
  #resumer: Resumer | undefined;
  /** The chunks read from the response so far (a replay repeats them first), and their fingerprint. */
  #count = 0;
  #print = 0;
  /** While a replay repeats what was read: the chunks still to skip, and the fingerprint of those skipped. */
  #skip = 0;
  #skipPrint = 0;
  /** The response said it is over without a `finish` (an `abort` chunk, `[DONE]`): nothing to resume. */
  #closed = false;
  readonly #maxBufferedBytes: number;
  /** The chunks of the current read for the AI SDK. */
  readonly #out: UIMessageChunk[] = [];
  /**
   * While the reader of path updates loads: the SSE events from the first chunk of them on (and an
   * error of the SSE parser among them), read in order once it is loaded.
   */
  #waiting: Array<EventSourceMessage | { readonly error: unknown }> | undefined;
  /** The reader of path updates could not be loaded for this response: they pass on unread. */
  #unread = false;
  /** The response said it ended (`finish`, `error`; an `abort` stops the turn at once). */
  #ended = false;
  /** The response is over for this router: read to its end, failed, cancelled or closed. */
  #over = false;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, unbound: () => void, reading: Set<ChunkRouter>, maxBufferedBytes: number) {
    this.#reader = reader;
    this.#unbound = unbound;
    this.#reading = reading;
    this.#maxBufferedBytes = maxBufferedBytes;
    reading.add(this);
    this.#parser = createParser({
      onEvent: (message) => this.#chunk(message),
      onError: (error) => {
        // An invalid `retry:` is a reconnection hint, not ours to follow; anything else is fatal.
        if (error.type !== 'max-buffer-size-exceeded') return;
        if (this.#waiting === undefined) throw this.#tooLong(error);
        this.#waiting.push({ error: this.#tooLong(error) });
      },
      maxBufferSize: maxBufferedBytes,
    });
  }

  /**
   * The session this response is read into (a new one, or the one a resume continues), its
   * request's signal, and how to ask for it again after a cut.
   */
  bind(session: Session, signal: AbortSignal | undefined, resumer: Resumer | undefined): void {
    if (this.#session !== undefined) return;
    this.#session = session;
    this.#signal = signal;
    this.#resumer = resumer;
    if (resumer === undefined) return;
    // The user's stop also ends a wait before a resume, and the resume's request.
    signal?.addEventListener('abort', () => resumer.interrupt?.());
    void loadResume().catch(() => undefined);
  }

  /** The response's session (bound at the latest on the first read). */
  get #bound(): Session {
    if (this.#session === undefined) this.#unbound();
    return this.#session as Session;
  }

  start(controller: ReadableStreamDefaultController<UIMessageChunk>): void {
    this.#controller = controller;
  }

  async pull(controller: ReadableStreamDefaultController<UIMessageChunk>): Promise<void> {
    const out = this.#out;
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await this.#reader.read();
      } catch (error) {
        if (this.#over) return;
        if (await this.#resumed(error)) continue;
        // The AI SDK's stream errors with it, as with its own transport: an AbortError is its stop.
        this.#end(error);
        throw error;
      }
      if (this.#over) return;
      const { done, value } = read;
      if (done) {
        try {
          this.#feed(this.#text.decode());
          if (this.#waiting !== undefined) await this.#drain();
          // A replay that ended before it repeated what was read.
          if (this.#skip > 0) throw outOfSequence();
        } catch (error) {
          if (this.#over) return;
          this.#flush(controller);
          this.#end(error);
          throw error;
        }
        if (this.#over) return;
        this.#flush(controller);
        // A body that ended before the message's end (a dropped connection, a relay gone): asked
        // for again, when the transport resumes.
        if (!this.#ended && !this.#closed && (await this.#resumed(undefined))) continue;
        this.#finish();
        // A response cut before its end (a dropped connection) leaves the turn open: a resume goes
        // on with it (or, replaying, replaces it), and so does a new request.
        if (this.#ended) {
          this.#apply(() => this.#bound.decoder.end(this.#events as never[]));
          if (!this.#bound.broken) this.#bound.store.end();
        }
        controller.close();
        return;
      }
      try {
        this.#feed(this.#text.decode(value, { stream: true }));
        if (this.#waiting !== undefined) await this.#drain();
      } catch (error) {
        if (this.#over) return;
        // The AI SDK's stream errors with it (as with its own transport); the snapshot too.
        this.#flush(controller);
        this.#end(error);
        void this.#reader.cancel(error).catch(() => undefined);
        throw error;
      }
      if (this.#over) return;
      if (out.length > 0) {
        this.#flush(controller);
        return;
      }
    }
  }

  /**
   * The first chunk of path updates came before their reader was loaded: load it, then read what
   * waited, in order, as it would have been read at once (an error among it is thrown in its place).
   * A reader that cannot be loaded (the network lost the chunk) leaves the store unable to follow,
   * as a chunk it cannot read does: the snapshot fails with the error, the AI SDK gets every chunk.
   */
  async #drain(): Promise<void> {
    try {
      pathUpdates ??= await loadPathUpdates();
      READING.updates = pathUpdates.newPathUpdateFragments;
      READING.fragments = pathUpdates.readFragments;
    } catch (error) {
      this.#unread = true;
      const session = this.#bound;
      if (!session.broken && !this.#over) {
        session.broken = true;
        session.fail(error);
        this.#settle();
      }
    }
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    if (this.#over) return;
    for (const entry of waiting) {
      if ('error' in entry) throw entry.error;
      this.#chunk(entry);
    }
  }

  /** The user stopped the response (or the transport was closed). */
  readonly #stopped = (): boolean => this.#over || this.#signal?.aborted === true;

  /**
   * Ask for the response again (`reopenResponse`) and read what comes as the server sends it: a
   * replay's first chunks, those already read, skipped. What ends the response instead ends it
   * (and errors the stream), unless it is over already. Whether the reading goes on: `false` when
   * the transport does not resume, or the user stopped (a stop's AbortError is no cut).
   */
  async #resumed(cause: unknown): Promise<boolean> {
    const resumer = this.#resumer;
    if (resumer === undefined || this.#stopped()) return false;
    // The body it replaces has ended or failed: nothing of it to cancel.
    try {
      const body = await (await loadResume()).reopenResponse(resumer, cause, this.#stopped);
      this.#reader = body.getReader();
    } catch (error) {
      // Over (cancelled, closed): the next read says so.
      if (this.#over) return true;
      this.#end(error);
      throw error;
    }
    this.#text = new TextDecoder();
    this.#lineBreaks = new SseLineBreaks();
    this.#parser.reset();
    this.#skip = resumer.replay ? this.#count : 0;
    this.#skipPrint = 0;
    return true;
  }

  cancel(reason: unknown): Promise<void> {
    if (this.#over) return Promise.resolve();
    // The AI SDK's stop() cancels with no reason.
    this.#end(reason === undefined ? new DOMException('the stream was cancelled', 'AbortError') : reason);
    this.#resumer?.interrupt?.();
    return this.#reader.cancel(reason).catch(() => undefined);
  }

  /** The transport was closed: the response ends as the user's stop would end it. */
  close(): void {
    if (this.#over) return;
    const reason = new DOMException('the transport was closed', 'AbortError');
    this.#end(reason);
    this.#resumer?.interrupt?.();
    this.#controller?.error(reason);
    void this.#reader.cancel(reason).catch(() => undefined);
  }

  /** Text of the response to the SSE parser, its line breaks as LF (see `SseLineBreaks`: linear). */
  #feed(text: string): void {
    this.#parser.feed(this.#lineBreaks.normalize(text));
  }

  #tooLong(cause?: unknown): ProviderError {
    return new ProviderError('ai-sdk-ui', 'invalid-stream', `ai-sdk-ui: an SSE event grew beyond maxBufferedBytes (${this.#maxBufferedBytes})`, {
      code: 'max-buffered-bytes',
      cause,
    });
  }

  /** The response broke off with `reason`: the user's stop ends the turn, anything else fails it. */
  #end(reason: unknown): void {
    this.#finish();
    if (this.#signal?.aborted === true || isAbortError(reason)) this.#bound.stop();
    else this.#bound.fail(reason);
  }

  #finish(): void {
    this.#over = true;
    this.#reading.delete(this);
  }

  #flush(controller: ReadableStreamDefaultController<UIMessageChunk>): void {
    const out = this.#out;
    for (let i = 0; i < out.length; i++) controller.enqueue(out[i] as UIMessageChunk);
    out.length = 0;
  }

  #apply(step: () => void): void {
    const session = this.#bound;
    if (session.broken) return;
    const events = this.#events;
    try {
      step();
    } catch (error) {
      // Content after the end of the message: nothing is added to the finished turn, in the
      // snapshot nor in the AI SDK's message (whose stream errors with it, after all before it).
      if (error instanceof ProviderError && error.type === 'after-end') {
        session.broken = true;
        session.fail(error);
        throw error;
      }
      // argstream can no longer follow the calls: the AI SDK gets them as its own transport gives
      // them, the text so far of each as one delta now, then every delta, so that the page keeps
      // showing what the AI SDK shows without argstream.
      session.broken = true;
      session.fail(error);
      this.#settle();
    } finally {
      for (let i = 0; i < events.length; i++) session.push(events[i] as PipelineEvent);
      events.length = 0;
    }
  }

  /** The streaming calls' text so far, as one delta each, to the AI SDK. */
  #settle(): void {
    const texts = this.#bound.texts;
    for (const [toolCallId, pieces] of texts) {
      if (pieces.length > 0) this.#out.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: pieces.join('') } as UIMessageChunk);
    }
    texts.clear();
  }

  #chunk(message: EventSourceMessage): void {
    if (this.#waiting !== undefined) {
      this.#waiting.push(message);
      return;
    }
    const data = message.data;
    // An event that arrived whole in one read is held as long as one that grew over several.
    if (data.length > this.#maxBufferedBytes) throw this.#tooLong();
    if (data === '[DONE]') {
      if (this.#skip === 0) this.#closed = true;
      return;
    }
    if (data.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (error) {
      // Not a chunk: the AI SDK's own transport errors the stream here too.
      throw new ProviderError('ai-sdk-ui', 'invalid-stream', `ai-sdk-ui: SSE data is not JSON: "${excerpt(data)}"`, { code: 'not-json', cause: error });
    }
    // The AI SDK's own transport validates each chunk; a chunk of no known shape errors here as there.
    if (!isRecord(parsed) || typeof parsed['type'] !== 'string') {
      throw new ProviderError('ai-sdk-ui', 'invalid-format', `ai-sdk-ui: SSE data is not a UI message stream chunk (an object with a string type): "${excerpt(data)}"`, {
        cause: parsed,
      });
    }
    if (parsed['type'] === TOOL_INPUT_UPDATES && pathUpdates === undefined && !this.#unread && this.#skip === 0) {
      // They are read once their reader is loaded: this chunk and those after it wait for it.
      this.#waiting = [message];
      return;
    }
    if (this.#skip > 0) {
      // A replay repeats what was read: skipped, checked against it once all of it came again.
      this.#skipPrint = fingerprint(this.#skipPrint, parsed);
      if (--this.#skip === 0 && this.#skipPrint !== this.#print) throw outOfSequence();
      return;
    }
    this.#count++;
    this.#print = fingerprint(this.#print, parsed);
    this.#resumer?.retries?.progress();
    const chunk = parsed as unknown as UIMessageChunk;
    const events = this.#events;
    const texts = this.#bound.texts;
    if ((chunk.type as string) === TOOL_INPUT_UPDATES) {
      // An argstream server's path updates (UIMessageStreamEncoder's toolInputs: 'path-updates'),
      // checked and read by their reader; one that could not be loaded left the store unable to
      // follow (see #drain): they pass on.
      const reader = pathUpdates;
      if (reader !== undefined) {
        const updates = reader.updateEvents(parsed);
        this.#apply(() => {
          // These go to the store without the adapter, which refuses what follows the end itself.
          if (this.#ended) throw reader.updatesAfterEnd(parsed);
          for (const update of updates) events.push(update);
        });
      }
      this.#out.push(chunk);
      return;
    }
    if (chunk.type === 'abort') {
      // The server's abort (its request was aborted: a stop of its own, …): useChat ends the turn
      // without an error, and so does the snapshot, as stopped — not with the adapter's
      // ProviderError 'aborted', which is for readers that cannot tell a stop from a failure.
      this.#settle();
      this.#out.push(chunk);
      this.#closed = true;
      this.#bound.stop();
      return;
    }
    this.#apply(() => this.#bound.decoder.push(chunk as object, events as never[]));
    switch (chunk.type) {
      case 'tool-input-delta': {
        if (this.#bound.broken) break;
        const pieces = texts.get(chunk.toolCallId);
        if (pieces === undefined) texts.set(chunk.toolCallId, [chunk.inputTextDelta]);
        else pieces.push(chunk.inputTextDelta);
        return;
      }
      case 'tool-input-start':
        if (!this.#bound.broken) texts.set(chunk.toolCallId, []);
        break;
      case 'tool-input-available':
      case 'tool-input-error':
        texts.delete(chunk.toolCallId);
        break;
      default:
        if (STOPS.has(chunk.type)) this.#settle();
        if (chunk.type === 'finish' || chunk.type === 'error') this.#ended = true;
    }
    this.#out.push(chunk);
  }
}
