/**
 * Differential stream semantics: the same operations on chains of argstream streams and on chains
 * of plain identity `TransformStream`s must give the same observable results (issue 19, DESIGN.md
 * property 5, "observably standard").
 *
 * A scenario is a chain *shape* (a source, an optional head such as `fromResponse`, then N stages
 * in a valid order) and an operation *script*. It runs twice: once with the argstream streams, once
 * with the same source and `new TransformStream()` in place of every stage (one identity stage for
 * a `chain(…)`, an identity hop over the source for a head). Each run records a trace of what a
 * user can observe: `locked` of every side, what each call throws (the error's class, never its
 * message), how each promise settled and with what reason (`'R'` when it is the very object the
 * script gave, `another TypeError` when not), whether and with which reason the source was
 * cancelled, what the sink was told, and `x === b.readable` after a pipe. Data values differ by
 * design (an identity chain passes the input through), so chunks are counted only in kind
 * ("no chunk" / "≥1 chunk"), and every input is long enough and valid for the first stage, so that
 * every stage emits something well before its input ends.
 *
 * Promise states are sampled at checkpoints once the streams are quiet (see `quiesce`), not in the
 * order they settled, which depends on how many microtasks a hop takes; what a consumer does
 * (cancel, abort a signal) it does at rest. The two traces must be equal line for line.
 *
 * Two exceptions are written down rather than hidden: the relay encoders are compared with a model
 * of their documented contract (an upstream abort becomes a last error record), and differences
 * known to come from a bug, in src/ or in a runtime, are listed in `KNOWN_DIFFERENCES` with the
 * bug; they are counted, not failed, and an entry whose scenarios pass again fails its check.
 *
 * Web-platform APIs only: this module is bundled into the portable suite (test/runtimes/) and run
 * unchanged on every runtime, and imported by test/transforms/standard-semantics.test.ts in Node.
 */
import {
  ArgumentValidationStream,
  chain,
  CoalesceStream,
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  FragmentValueStream,
  fromAsyncIterable,
  fromResponse,
  IncrementalJsonParser,
  JsonFragmentStream,
  JsonTextStream,
  JsonValueStream,
  NdjsonDecoder,
  NdjsonEncoder,
  PathUpdateStream,
  ProviderEventDecoder,
  ProviderEventStream,
  resumeEventStream,
  TaggedToolCallStream,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  type StandardSchema,
  type StreamEvent,
  type StreamFragment,
} from '../../src/index.ts';
import { AgUiEncoder } from '../../src/bindings/ag-ui.ts';
import { ToolInputNotificationStream } from '../../src/bindings/mcp-apps.ts';

// ---------------------------------------------------------------------------------------------
// Inputs: small, valid, long enough that every stage emits early and often

type Pair = ReadableWritablePair<unknown, unknown>;

/** What a source emits, and what a stage takes and gives. */
type Kind = 'sse' | 'langchain' | 'events' | 'relay-sse' | 'relay-ndjson' | 'relay-ag-ui' | 'json' | 'fragments' | 'snapshots' | 'notifications';

/** What no source gives and no stage reads: the value snapshots, MCP Apps notifications. */
type EndKind = 'snapshots' | 'notifications';

const utf8 = new TextEncoder();

/** An Anthropic Messages stream: text blocks and tool calls taking turns, one SSE event a chunk. */
function anthropicSse(): Uint8Array[] {
  const events: Array<[string, unknown]> = [
    ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }],
  ];
  for (let index = 0; index < 8; index++) {
    if (index % 2 === 0) {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      for (const text of [`Block ${index}: `, 'some text ', 'and more.']) events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${index}`, name: 'write_file', input: {} } }]);
      for (const partial_json of ['{"path":"src/', `f${index}.rs","content":"fn `, 'main() {}\\n"', ',"n":[1,2]}']) {
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }]);
      }
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  }
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 120 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events.map(([name, data]) => utf8.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`));
}

/** LangChain.js message chunks (plain objects, as a LangGraph server sends them): text and tool calls taking turns. */
function langChainChunks(): object[] {
  const chunks: object[] = [{ type: 'ai', id: 'msg_1', content: '', tool_call_chunks: [] }];
  for (let index = 0; index < 8; index++) {
    if (index % 2 === 0) {
      for (const text of [`Block ${index}: `, 'some text ', 'and more.']) chunks.push({ type: 'ai', content: [{ type: 'text', text, index }], tool_call_chunks: [] });
    } else {
      chunks.push({ type: 'ai', content: [], tool_call_chunks: [{ index, id: `call_${index}`, name: 'write_file', args: '' }] });
      for (const args of ['{"path":"src/', `f${index}.rs","content":"fn `, 'main() {}\\n"', ',"n":[1,2]}']) chunks.push({ type: 'ai', content: [], tool_call_chunks: [{ index, args }] });
    }
  }
  chunks.push({ type: 'ai', content: [], tool_call_chunks: [], additional_kwargs: { stop_reason: 'tool_use' }, usage_metadata: { input_tokens: 10, output_tokens: 120, total_tokens: 130 } });
  return chunks;
}

/** A JSON document (an array of records) in 12-character pieces. */
function jsonPieces(): string[] {
  const items = Array.from({ length: 12 }, (_, i) => JSON.stringify({ path: `src/f${i}.rs`, content: `fn f${i}() {}\n`, n: [i, true, null] }));
  const text = `[${items.join(',')}]`;
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += 12) pieces.push(text.slice(i, i + 12));
  return pieces;
}

interface Inputs {
  readonly chunks: Readonly<Record<Exclude<Kind, EndKind>, readonly unknown[]>>;
}

async function collect(stream: ReadableStream<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

function arrayStream(chunks: readonly unknown[]): ReadableStream<unknown> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
}

let inputs: Promise<Inputs> | undefined;

/** The inputs of every kind, made once: the events by the provider's core, the relay bytes by the encoders. */
function prepareInputs(): Promise<Inputs> {
  inputs ??= (async () => {
    const sse = anthropicSse();
    const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
    const events: StreamEvent[] = [];
    for (const chunk of sse) decoder.push(chunk, events);
    decoder.end(events);
    const json = jsonPieces();
    const parser = new IncrementalJsonParser();
    const fragments: StreamFragment[] = [];
    for (const piece of json) parser.push(piece, fragments);
    parser.end(fragments);
    const relaySse = await collect(arrayStream(events).pipeThrough(new EventStreamEncoder()));
    const relayNdjson = await collect(arrayStream(events).pipeThrough(new NdjsonEncoder()));
    const relayAgUi = await collect(arrayStream(events).pipeThrough(new AgUiEncoder()));
    return { chunks: { sse, langchain: langChainChunks(), events, json, fragments, 'relay-sse': relaySse, 'relay-ndjson': relayNdjson, 'relay-ag-ui': relayAgUi } };
  })();
  return inputs;
}

// ---------------------------------------------------------------------------------------------
// The streams under test

/** A stage: how to make it, what it takes and gives. */
interface StageSpec {
  readonly label: string;
  readonly input: Kind;
  readonly output: Kind;
  readonly make: () => Pair;
  /** Its counterpart in the identity chain: `new TransformStream()`, unless its documented contract says otherwise. */
  readonly identity: () => Pair;
}

const anyArguments: StandardSchema = { '~standard': { version: 1, vendor: 'argstream-test', validate: (value) => ({ value }) } };

/** The identity stage every argstream stage is compared with. */
function identityStage(): Pair {
  return new TransformStream();
}

function stage(label: string, input: Kind, output: Kind, make: () => Pair, identity: () => Pair = identityStage): StageSpec {
  return { label, input, output, make, identity };
}

const provider = stage('ProviderEventStream', 'sse', 'events', () => new ProviderEventStream({ provider: 'anthropic' }));
/** The same class reading objects (LangChain's chunks), not bytes. */
const langChainProvider = stage('ProviderEventStream (langchain)', 'langchain', 'events', () => new ProviderEventStream({ provider: 'langchain' }));
const progress = stage('ToolCallProgressStream', 'events', 'events', () => new ToolCallProgressStream());
const conversation = stage('ConversationEventStream', 'events', 'events', () => new ConversationEventStream());
const delta = stage('ToolCallDeltaStream', 'events', 'events', () => new ToolCallDeltaStream());
const tagged = stage('TaggedToolCallStream', 'events', 'events', () => new TaggedToolCallStream());
const fields = stage('FieldEventStream', 'events', 'events', () => new FieldEventStream());
const paths = stage('PathUpdateStream', 'events', 'events', () => new PathUpdateStream());
const validation = stage('ArgumentValidationStream', 'events', 'events', () => new ArgumentValidationStream({ tools: { write_file: anyArguments } }));
// No timer: what it emits then depends on its input only.
const coalesce = stage('CoalesceStream', 'events', 'events', () => new CoalesceStream({ maxDelayMs: Infinity }));
const coalesceFragments = stage('CoalesceStream', 'fragments', 'fragments', () => new CoalesceStream({ maxDelayMs: Infinity }));
const sseEncoder = stage('EventStreamEncoder', 'events', 'relay-sse', () => new EventStreamEncoder(), relayEncoderModel);
const sseDecoder = stage('EventStreamDecoder', 'relay-sse', 'events', () => new EventStreamDecoder(), relayDecoderModel);
const ndjsonEncoder = stage('NdjsonEncoder', 'events', 'relay-ndjson', () => new NdjsonEncoder(), relayEncoderModel);
const ndjsonDecoder = stage('NdjsonDecoder', 'relay-ndjson', 'events', () => new NdjsonDecoder(), relayDecoderModel);
const agUiEncoder = stage('AgUiEncoder', 'events', 'relay-ag-ui', () => new AgUiEncoder(), relayEncoderModel);
const jsonFragments = stage('JsonFragmentStream', 'json', 'fragments', () => new JsonFragmentStream());
const jsonValue = stage('JsonValueStream', 'json', 'snapshots', () => new JsonValueStream({ snapshots: true }));
const fragmentValue = stage('FragmentValueStream', 'fragments', 'snapshots', () => new FragmentValueStream({ snapshots: true }));
const jsonText = stage('JsonTextStream', 'fragments', 'json', () => new JsonTextStream());
// It follows one call: it writes while the first call streams and ends, then nothing more (its
// documented contract). Its counterpart is a plain TransformStream that does the same in kind: the
// first chunks through, then none (whether a pipe waits on a read or a write at rest depends on it).
const mcpApps = stage('ToolInputNotificationStream', 'events', 'notifications', () => new ToolInputNotificationStream({ minGrowth: 0 }), firstChunksModel);

/** A standard TransformStream that passes its first 12 chunks on, then writes nothing. */
function firstChunksModel(): Pair {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      if (seen++ < 12) controller.enqueue(chunk);
    },
  });
}
/** A plain `TransformStream` between argstream stages: a foreign stage in the middle. */
const foreign = stage('TransformStream', 'events', 'events', () => new TransformStream());

// The relay encoders are a documented exception: not a `TransformStream` but a pair whose writable
// side, when aborted (the stream before it failed), writes the error as a last record and closes
// its readable side normally, so that a browser learns what went wrong instead of seeing a cut
// connection (src/relay/relay-encoder.ts). A decoder turns that record back into an error of the
// same class: an equal error, not the same object. They also write the events of one burst (what
// one network read made) as one record, which a decoder gives out as those events. Their identity
// counterparts are these two models of that contract, built from plain standard streams;
// everything else (locks, pipe options, cancellation, backpressure) must still be what the
// standard gives.

/** The model's records: the end, and an upstream error. */
const END_RECORD = Object.freeze({ relay: 'end' });
interface ErrorRecord {
  readonly relay: 'error';
  readonly reason: unknown;
}

function isErrorRecord(chunk: unknown): chunk is ErrorRecord {
  return typeof chunk === 'object' && chunk !== null && (chunk as { relay?: unknown }).relay === 'error';
}

/** What a decoder gives back for an error record: a new error of the same class (never the same object). */
function copyOfError(reason: unknown): unknown {
  if (reason instanceof Error) {
    const Class = reason.constructor as new (message: string) => Error;
    return new Class(reason.message);
  }
  return new Error(String(reason));
}

/** A record of the events written in one burst. */
interface BatchRecord {
  readonly relay: 'batch';
  readonly events: readonly unknown[];
}

/**
 * The relay encoders' contract, with standard streams: the events written in one burst — until
 * 16 microtask turns pass without a write — go out as one record; the readable side holds 64 KiB
 * (what is gathered counted) before a write waits; the error as a last record.
 */
function relayEncoderModel(): Pair {
  let output!: ReadableStreamDefaultController<unknown>;
  let input!: WritableStreamDefaultController;
  let resume: (() => void) | undefined;
  let finished = false;
  let pending: unknown[] = [];
  let waiting = false;
  let writes = 0;
  const wake = () => {
    const waiter = resume;
    resume = undefined;
    waiter?.();
  };
  const send = () => {
    if (pending.length === 0) return;
    const events = pending;
    pending = [];
    output.enqueue({ relay: 'batch', events } satisfies BatchRecord);
  };
  const finish = (record: unknown) => {
    if (finished) return;
    finished = true;
    send();
    output.enqueue(record);
    output.close();
    wake();
  };
  const quietThenSend = () => {
    let seen = writes;
    let quiet = 0;
    const turn = () => {
      if (finished) return void (waiting = false);
      if (writes !== seen) {
        seen = writes;
        quiet = 0;
      } else if (++quiet >= 16) {
        waiting = false;
        send();
        return;
      }
      queueMicrotask(turn);
    };
    queueMicrotask(turn);
  };
  const readable = new ReadableStream<unknown>(
    {
      start(controller) {
        output = controller;
      },
      pull: wake,
      cancel(reason) {
        finished = true;
        input.error(reason);
        wake();
      },
    },
    // The encoders hold 64 KiB: far more than a scenario's few small events.
    { highWaterMark: 65_536, size: (record) => ((record as BatchRecord).relay === 'batch' ? JSON.stringify((record as BatchRecord).events).length : 16) },
  );
  const writable = new WritableStream<unknown>({
    start(controller) {
      input = controller;
    },
    write(chunk) {
      if (finished) return undefined;
      pending.push(chunk);
      writes++;
      if (!waiting) {
        waiting = true;
        quietThenSend();
      }
      if ((output.desiredSize ?? 0) - JSON.stringify(pending).length > 0) return undefined;
      return new Promise<void>((resolve) => (resume = resolve));
    },
    close() {
      finish(END_RECORD);
    },
    abort(reason) {
      finish({ relay: 'error', reason } satisfies ErrorRecord);
    },
  });
  return { readable, writable };
}

/** The relay decoders' contract: records in, the error record as an error of the same class. */
function relayDecoderModel(): Pair {
  return new TransformStream<unknown, unknown>({
    transform(chunk, controller) {
      if (isErrorRecord(chunk)) throw copyOfError(chunk.reason);
      if ((chunk as BatchRecord).relay === 'batch') for (const event of (chunk as BatchRecord).events) controller.enqueue(event);
      else if (chunk !== END_RECORD) controller.enqueue(chunk);
    },
  });
}

/** Whether this build of argstream has the explicit composition API (`chain`, `fromResponse(…, ...stages)`). */
export function hasChain(): boolean {
  return typeof (chain as unknown) === 'function';
}

/** `chain(...stages)`: one stage; its identity counterpart is one identity stage. */
function chained(...specs: StageSpec[]): StageSpec {
  const first = specs[0] as StageSpec;
  const last = specs[specs.length - 1] as StageSpec;
  return {
    label: `chain(${specs.map((s) => s.label).join(', ')})`,
    input: first.input,
    output: last.output,
    make: () => (chain as unknown as (...stages: Pair[]) => Pair)(...specs.map((s) => s.make())),
    identity: identityStage,
  };
}

/** What the chain starts from, given the source's stream or iterable. */
interface HeadSpec {
  readonly label: string;
  /** The source is an (async) iterable rather than a stream. */
  readonly iterable: boolean;
  readonly argstream: (source: SourceHandle) => ReadableStream<unknown>;
  readonly identity: (source: SourceHandle) => ReadableStream<unknown>;
  /** What the source gives. */
  readonly input: Exclude<Kind, EndKind>;
  readonly output: Kind;
  readonly needsChain: boolean;
}

function fromResponseHead(stages: StageSpec[]): HeadSpec {
  const output = stages.length === 0 ? 'events' : (stages[stages.length - 1] as StageSpec).output;
  return {
    label: `fromResponse(response, options${stages.map((s) => `, ${s.label}`).join('')})`,
    iterable: false,
    input: 'sse',
    output,
    needsChain: stages.length > 0,
    argstream: (source) =>
      (fromResponse as unknown as (response: Response, options: object, ...stages: Pair[]) => ReadableStream<unknown>)(
        new Response(source.stream as ReadableStream<Uint8Array>),
        { provider: 'anthropic' },
        ...stages.map((s) => s.make()),
      ),
    identity: (source) => (new Response(source.stream as ReadableStream<Uint8Array>).body as ReadableStream<unknown>).pipeThrough(identityStage()),
  };
}

type From = (iterable: AsyncIterable<unknown>) => ReadableStream<unknown>;

function nativeFrom(): From | undefined {
  const from = (ReadableStream as unknown as { from?: From }).from;
  return typeof from === 'function' ? (iterable) => from.call(ReadableStream, iterable) : undefined;
}

/** A stream of an async iterable as the standard says `ReadableStream.from` makes one, for runtimes without it. */
function pullFrom(iterable: AsyncIterable<unknown>): ReadableStream<unknown> {
  const iterator = iterable[Symbol.asyncIterator]();
  return new ReadableStream(
    {
      async pull(controller) {
        const result = await iterator.next();
        if (result.done === true) controller.close();
        else controller.enqueue(result.value);
      },
      async cancel(reason) {
        await iterator.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

const fromAsyncIterableHead: HeadSpec = {
  label: 'fromAsyncIterable(iterable)',
  iterable: true,
  input: 'sse',
  output: 'sse',
  needsChain: false,
  argstream: (source) => fromAsyncIterable(source.iterable as AsyncIterable<unknown>),
  identity: (source) => (nativeFrom() ?? pullFrom)(source.iterable as AsyncIterable<unknown>),
};

const resumeHead: HeadSpec = {
  label: 'resumeEventStream(events, 0)',
  iterable: true,
  input: 'events',
  output: 'relay-sse',
  needsChain: false,
  argstream: (source) => resumeEventStream(source.iterable as AsyncIterable<unknown>, 0),
  identity: (source) => (nativeFrom() ?? pullFrom)(source.iterable as AsyncIterable<unknown>).pipeThrough(relayEncoderModel()),
};

/** A chain: a source of `input`, an optional head, then stages. */
interface Shape {
  readonly label: string;
  readonly input: Exclude<Kind, EndKind>;
  readonly head: HeadSpec | undefined;
  readonly stages: readonly StageSpec[];
}

function shape(stages: StageSpec[], head?: HeadSpec): Shape {
  const input = head?.input ?? (stages[0] as StageSpec).input;
  if (input === 'snapshots' || input === 'notifications') throw new Error(`semantics: no source gives ${input}`);
  let kind: Kind = head?.output ?? input;
  for (const next of stages) {
    if (next.input !== kind) throw new Error(`semantics: ${kind} does not feed ${next.label}`);
    kind = next.output;
  }
  const parts = [...(head === undefined ? [] : [head.label]), ...stages.map((s) => s.label)];
  return { label: parts.join(' → '), input, head, stages };
}

/**
 * The groups: one per exported stream class, each alone and between two other streams (so that
 * it is piped from and into argstream stages), plus `chain()`, `fromResponse()`,
 * `fromAsyncIterable()` and `resumeEventStream()`.
 */
function groups(): Array<{ readonly name: string; readonly shapes: Shape[] }> {
  const group = (x: StageSpec, ...chains: StageSpec[][]) => ({ name: x.label, shapes: [shape([x]), ...chains.map((stages) => shape(stages))] });
  return [
    group(provider, [provider, progress, fields], [provider, foreign, conversation]),
    group(langChainProvider, [langChainProvider, progress, fields]),
    group(progress, [provider, progress, fields]),
    group(conversation, [provider, conversation, fields]),
    group(delta, [provider, delta, conversation]),
    group(tagged, [provider, tagged, progress]),
    group(fields, [provider, fields, paths]),
    group(paths, [provider, paths, conversation]),
    group(validation, [provider, validation, fields]),
    group(coalesce, [provider, coalesce, fields], [jsonFragments, coalesceFragments, jsonText]),
    group(sseEncoder, [provider, sseEncoder, sseDecoder]),
    group(sseDecoder, [sseEncoder, sseDecoder, fields]),
    group(ndjsonEncoder, [provider, ndjsonEncoder, ndjsonDecoder]),
    group(ndjsonDecoder, [ndjsonEncoder, ndjsonDecoder, fields]),
    group(agUiEncoder, [provider, progress, agUiEncoder]),
    group(jsonFragments, [jsonText, jsonFragments, jsonText]),
    group(jsonValue, [jsonFragments, jsonText, jsonValue]),
    group(fragmentValue, [jsonText, jsonFragments, fragmentValue]),
    group(jsonText, [jsonFragments, jsonText, jsonFragments]),
    group(mcpApps, [provider, mcpApps], [provider, progress, fields, mcpApps]),
    {
      name: 'chain()',
      shapes: [
        shape([chained(provider, progress, fields)]),
        shape([provider, chained(progress, fields), conversation]),
        shape([chained(provider, progress), chained(paths, conversation)]),
        shape([chained(jsonFragments, jsonText), jsonValue]),
      ],
    },
    {
      name: 'fromResponse()',
      shapes: [shape([], fromResponseHead([])), shape([progress], fromResponseHead([])), shape([], fromResponseHead([progress, fields])), shape([conversation], fromResponseHead([progress]))],
    },
    { name: 'fromAsyncIterable()', shapes: [shape([], fromAsyncIterableHead), shape([provider, progress], fromAsyncIterableHead)] },
    { name: 'resumeEventStream()', shapes: [shape([], resumeHead), shape([sseDecoder, fields], resumeHead)] },
  ];
}

// ---------------------------------------------------------------------------------------------
// Recording what a user observes

/** One macrotask later by a MessageChannel message (≈ 0.05 ms, where setTimeout costs 1 ms). */
function message(): Promise<void> {
  return new Promise((resolve) => {
    // A channel per call, closed at once: an open port would keep Node and Deno from exiting.
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      channel.port2.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * What the running scenario can see of its streams, for telling when they are quiet: set by
 * `runSide` (scenarios run one at a time).
 */
let fingerprint: () => string = () => '';

/**
 * workerd runs a JavaScript stream's callbacks on its own event loop, one chunk per turn between
 * messages; reading a native body waits for that loop (≈ 0.02 ms when idle, where a timer costs
 * 1.3 ms), after what is already queued on it.
 */
const WORKERD = typeof navigator !== 'undefined' && String(navigator.userAgent).startsWith('Cloudflare-Workers');

/**
 * Let the streams settle: tick until nothing a user can see has changed for three ticks (every
 * lock, every followed promise, the source's position and cancels, the sink's log). A tick is a
 * native body read in workerd, a MessageChannel message where there is one (≈ 0.05 ms, where
 * setTimeout costs 1 ms), else a thousand microtask turns (edge-runtime, which has neither; its
 * streams are Node's, promises and microtasks only: a relay encoder's record of a burst goes
 * through a decoder and a stage after it in a few hundred turns, with no lock or promise of the
 * scenario changing meanwhile).
 */
async function quiesce(): Promise<void> {
  const tick = WORKERD ? eventLoopTurn : typeof MessageChannel === 'function' ? message : spin;
  let last = fingerprint();
  let stable = 0;
  for (let i = 0; i < 2000 && stable < 3; i++) {
    await tick();
    const now = fingerprint();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}

function eventLoopTurn(): Promise<void> {
  return new Response('.').arrayBuffer().then(() => undefined);
}

async function spin(): Promise<void> {
  for (let i = 0; i < 1000; i++) await Promise.resolve();
}

/** A promise settled, or the streams quiet, whichever first: never waits for a promise that cannot settle. */
async function settledOrQuiet(promise: Promise<unknown>): Promise<void> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  // Most settle within a few microtasks (a write the stage took at once); the rest get a quiesce.
  for (let i = 0; i < 20 && !settled; i++) await Promise.resolve();
  for (let i = 0; i < 3 && !settled; i++) await quiesce();
}

/** A promise of any realm (a host's streams in edge-runtime answer with the host's promises). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** One run's trace: lines a user could observe, equal between argstream and identity runs. */
class Trace {
  readonly lines: string[] = [];
  readonly #names = new Map<unknown, string>();
  readonly #tracked: Array<{ readonly label: string; state: string }> = [];
  readonly cleanups: Array<() => unknown> = [];
  /** More of what changes while the streams work (a sink's log), for telling when they are quiet. */
  readonly watched: Array<() => string> = [];

  /** The states of the followed promises and whatever is watched, as one string. */
  state(): string {
    return `${this.#tracked.map((entry) => entry.state).join('|')}#${this.watched.map((watch) => watch()).join('|')}`;
  }

  /** A reason object of the script's own: shown by name wherever that very object comes back. */
  reason(name: string): Error {
    const reason = new Error(name);
    this.#names.set(reason, name);
    return reason;
  }

  show(value: unknown): string {
    const name = this.#names.get(value);
    if (name !== undefined) return name;
    if (value === undefined) return 'undefined';
    if (Array.isArray(value)) return `[${value.map((v) => this.show(v)).join(', ')}]`;
    // By class name, not instanceof: a host's streams (edge-runtime runs in a VM) throw its own realm's errors.
    const tag = Object.prototype.toString.call(value);
    const className = (value as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    if (className === 'DOMException') return `another DOMException (${String((value as { name?: unknown }).name)})`;
    if (tag === '[object Error]') return `another ${typeof className === 'string' ? className : 'Error'}`;
    if (value === null) return 'null';
    return `a ${typeof value}`;
  }

  note(line: string): void {
    this.lines.push(line);
  }

  /** Call `fn`: record whether it returned or threw (and what). */
  call<T>(label: string, fn: () => T): T | undefined {
    try {
      const value = fn();
      this.lines.push(`${label}: returns`);
      return value;
    } catch (error) {
      this.lines.push(`${label}: throws ${this.show(error)}`);
      return undefined;
    }
  }

  /** Follow a promise: its state is recorded at each checkpoint. */
  track<T>(label: string, promise: Promise<T>, describe: (value: T) => string = (value) => `fulfilled ${this.show(value)}`): Promise<T> {
    const entry = { label, state: 'pending' };
    this.#tracked.push(entry);
    promise.then(
      (value) => (entry.state = describe(value)),
      (error: unknown) => (entry.state = `rejected ${this.show(error)}`),
    );
    return promise;
  }

  /** Follow a read to the end: chunks in kind, then how it ended. */
  ending(label: string, promise: Promise<Ending>): Promise<Ending> {
    return this.track(label, promise, ({ count, failure }) => `${count === 0 ? 'no chunk' : '≥1 chunk'}, then ${failure === undefined ? 'done' : `errored with ${this.show(failure.error)}`}`);
  }

  async checkpoint(label: string): Promise<void> {
    await quiesce();
    for (const entry of this.#tracked) this.lines.push(`@${label} ${entry.label}: ${entry.state}`);
  }

  async cleanup(): Promise<void> {
    for (const fn of this.cleanups.splice(0)) {
      try {
        await Promise.resolve(fn()).catch(() => undefined);
      } catch {
        // cleaning up: a stream already closed or locked says so, nothing to record
      }
    }
  }
}

/** Where the chunks come from, and what was done to it. */
interface SourceHandle {
  readonly stream: ReadableStream<unknown> | undefined;
  readonly iterable: AsyncIterable<unknown> | undefined;
  readonly cancels: unknown[];
  /** Let a stalled source go on. */
  release(): void;
  /** How many chunks it gave (for telling when the streams are quiet, never recorded). */
  position(): number;
}

type SourceForm = 'ReadableStream' | 'ReadableStream.from' | 'Response body' | 'iterable';

interface SourceOptions {
  /** Error (with this reason) instead of giving chunk `failAt`. */
  readonly failAt?: number;
  readonly reason?: unknown;
  /** Before giving chunk `stallAt`, wait until `release()`: a network that has nothing to give for now. */
  readonly stallAt?: number;
}

function makeSource(chunks: readonly unknown[], form: SourceForm, options: SourceOptions): SourceHandle {
  const cancels: unknown[] = [];
  let i = 0;
  let stall: Promise<void> | undefined;
  let release = () => {};
  if (options.stallAt !== undefined) stall = new Promise<void>((resolve) => (release = resolve));
  /** The stall, once, when chunk `stallAt` is next. */
  const position = () => i;
  const stalled = (): Promise<void> | undefined => {
    if (i !== options.stallAt || stall === undefined) return undefined;
    const waiting = stall;
    stall = undefined;
    return waiting;
  };
  const iterable: AsyncIterable<unknown> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        await stalled();
        if (i === options.failAt) throw options.reason;
        return i < chunks.length ? { done: false, value: chunks[i++] } : { done: true, value: undefined };
      },
      return: async (reason?: unknown) => {
        cancels.push(reason);
        i = chunks.length;
        return { done: true, value: undefined };
      },
    }),
  };
  if (form === 'iterable') return { stream: undefined, iterable, cancels, release, position };
  if (form === 'ReadableStream.from') return { stream: (nativeFrom() as From)(iterable), iterable: undefined, cancels, release, position };
  const give = (controller: ReadableStreamDefaultController<unknown>) => {
    if (i === options.failAt) controller.error(options.reason);
    else if (i < chunks.length) controller.enqueue(chunks[i++]);
    else controller.close();
  };
  const stream = new ReadableStream<unknown>({
    pull(controller) {
      const waiting = stalled();
      if (waiting === undefined) give(controller);
      else return waiting.then(() => give(controller));
      return undefined;
    },
    cancel(reason) {
      cancels.push(reason);
    },
  });
  if (form === 'Response body') return { stream: new Response(stream as ReadableStream<Uint8Array>).body as ReadableStream<unknown>, iterable: undefined, cancels, release, position };
  return { stream, iterable: undefined, cancels, release, position };
}

/** A foreign `WritableStream` at the end that records what it is told. */
interface Sink {
  readonly stream: WritableStream<unknown>;
  readonly log: { writes: number; closed: number; aborts: unknown[] };
  /** Settle the first write, when it is held: fulfil it, or reject it with `error`. */
  release(error?: unknown): void;
}

interface SinkOptions {
  readonly reason?: unknown;
  /** The first write waits until `release`. */
  readonly hold?: boolean;
  readonly failStart?: boolean;
  readonly failClose?: boolean;
}

function makeSink(options: SinkOptions = {}): Sink {
  const log = { writes: 0, closed: 0, aborts: [] as unknown[] };
  let held: { resolve(): void; reject(error: unknown): void } | undefined;
  let released: { error: unknown } | undefined;
  const stream = new WritableStream<unknown>({
    start() {
      // A rejected promise: a start that throws makes the constructor throw.
      if (options.failStart === true) return Promise.reject(options.reason);
      return undefined;
    },
    write() {
      log.writes++;
      if (log.writes !== 1 || options.hold !== true) return undefined;
      if (released !== undefined) return released.error === undefined ? undefined : Promise.reject(released.error);
      return new Promise<void>((resolve, reject) => (held = { resolve, reject }));
    },
    close() {
      log.closed++;
      if (options.failClose === true) throw options.reason;
    },
    abort(reason) {
      log.aborts.push(reason);
    },
  });
  const release = (error?: unknown) => {
    released = { error };
    if (error === undefined) held?.resolve();
    else held?.reject(error);
  };
  return { stream, log, release };
}

/** How a read to the end went: how many chunks (shown in kind only), then done or the error. */
interface Ending {
  readonly count: number;
  readonly failure?: { readonly error: unknown };
}

/** Read to the end, never rejecting: the chunks before an error count too. */
async function readRest(reader: ReadableStreamDefaultReader<unknown>): Promise<Ending> {
  let count = 0;
  try {
    for (;;) {
      const { done } = await reader.read();
      if (done) return { count };
      count++;
    }
  } catch (error) {
    return { count, failure: { error } };
  }
}

/** A `for await` over the whole readable, as an Ending. */
async function iterateRest(readable: ReadableStream<unknown>): Promise<Ending> {
  let count = 0;
  try {
    for await (const _ of readable as unknown as AsyncIterable<unknown>) count++;
    return { count };
  } catch (error) {
    return { count, failure: { error } };
  }
}

function readResult(result: ReadableStreamReadResult<unknown>): string {
  return result.done ? 'fulfilled done' : 'fulfilled a chunk';
}

// ---------------------------------------------------------------------------------------------
// A run: the chain built from a shape for one side, and the operations of a script on it

type Side = 'argstream' | 'identity';

class Run {
  readonly stages: Pair[];
  readonly source: SourceHandle;
  readonly head: ReadableStream<unknown>;
  /** What each pipeThrough returned. */
  readonly outs: ReadableStream<unknown>[] = [];
  /** Each stage's readable, taken right after it was made (before anything was piped into it). */
  readonly before: ReadableStream<unknown>[];

  constructor(
    readonly trace: Trace,
    readonly shape: Shape,
    readonly side: Side,
    readonly input: readonly unknown[],
    /** Valid input for the first stage (for the scripts that write it by hand). */
    readonly stageInput: readonly unknown[],
    form: SourceForm,
    sourceOptions: SourceOptions,
  ) {
    const head = shape.head;
    this.source = makeSource(input, head?.iterable === true ? 'iterable' : head !== undefined ? 'ReadableStream' : form, sourceOptions);
    this.head = head === undefined ? (this.source.stream as ReadableStream<unknown>) : side === 'argstream' ? head.argstream(this.source) : head.identity(this.source);
    this.stages = shape.stages.map((s) => (side === 'argstream' ? s.make() : s.identity()));
    this.before = this.stages.map((s) => s.readable);
    this.trace.cleanups.push(() => (this.end.locked ? undefined : this.end.cancel()));
  }

  get n(): number {
    return this.stages.length;
  }

  /** The readable feeding stage `k` once piped (the head for the first). */
  upstream(k: number): ReadableStream<unknown> {
    return k === 0 ? this.head : (this.outs[k - 1] as ReadableStream<unknown>);
  }

  /** The readable at the end: what the last pipe returned (the last stage's readable before it is piped). */
  get end(): ReadableStream<unknown> {
    return this.n === 0 ? this.head : ((this.outs[this.n - 1] ?? this.before[this.n - 1]) as ReadableStream<unknown>);
  }

  /**
   * `pipeThrough` stages `from` to `to - 1`, with `options(k)` for the pipe into stage k, each from
   * what the pipe before returned (or from `readables[k - 1]`); records what each returned.
   */
  connect(options: (k: number) => StreamPipeOptions | undefined = () => undefined, from = 0, readables?: readonly ReadableStream<unknown>[], to = this.n): void {
    for (let k = from; k < to; k++) {
      const stage = this.stages[k] as Pair;
      const upstream = k === 0 ? this.head : (readables?.[k - 1] ?? this.outs[k - 1] ?? this.before[k - 1]);
      let out: ReadableStream<unknown> | undefined;
      const opts = options(k);
      this.trace.call(`pipeThrough into stage ${k}${describeOptions(opts)}`, () => (out = (upstream as ReadableStream<unknown>).pipeThrough(stage, opts)));
      if (out === undefined) return;
      this.outs[k] = out;
      this.trace.note(`stage ${k}: the pipe returned stage.readable: ${out === stage.readable}; the readable taken before: ${out === this.before[k]}`);
    }
  }

  /** Everything that moves while the streams work, for telling when they are quiet. */
  fingerprint(): string {
    const locks = [this.head, ...this.stages.flatMap((s) => [s.writable, s.readable]), ...this.outs, ...this.before].map((x) => (x?.locked === true ? 1 : 0)).join('');
    return `${locks}/${this.source.position()}/${this.source.cancels.length}/${this.trace.state()}`;
  }

  locks(label: string): void {
    const sides = this.stages.map((s, k) => `stage ${k} ${s.writable.locked ? 'W' : 'w'}${s.readable.locked ? 'R' : 'r'}`);
    this.trace.note(`${label} locked: head ${this.head.locked ? 'R' : 'r'}, ${sides.join(', ')}${sides.length > 0 ? ', ' : ''}end ${this.end.locked ? 'R' : 'r'}`);
  }

  sourceLog(label: string): void {
    this.trace.note(`${label} source cancelled: ${this.source.cancels.length === 0 ? 'no' : this.source.cancels.map((r) => this.trace.show(r)).join(' and ')}`);
  }

  sinkLog(label: string, sink: Sink): void {
    const log = sink.log;
    this.trace.note(`${label} sink: ${log.writes === 0 ? 'no write' : '≥1 write'}, closed ${log.closed}, aborted ${log.aborts.length === 0 ? 'no' : log.aborts.map((r) => this.trace.show(r)).join(' and ')}`);
  }

  /** A reader at the end, read to the end in the background. */
  readAll(label: string, readable: ReadableStream<unknown> = this.end): Promise<Ending> | undefined {
    const reader = this.trace.call(`${label}: getReader`, () => readable.getReader());
    if (reader === undefined) return undefined;
    this.trace.cleanups.push(() => reader.cancel());
    return this.trace.ending(label, readRest(reader));
  }
}

function describeOptions(options: StreamPipeOptions | undefined): string {
  if (options === undefined) return '';
  const parts = Object.entries(options).map(([key, value]) => (key === 'signal' ? 'signal' : `${key}: ${String(value)}`));
  return ` {${parts.join(', ')}}`;
}

// ---------------------------------------------------------------------------------------------
// Scripts

interface Script {
  readonly name: string;
  /** The source's form (foreign streams at the start); the shape's head decides when it has one. */
  readonly form?: SourceForm;
  /** The source errors with the reason named `R` instead of giving this chunk (the middle when `'middle'`). */
  readonly failAt?: number | 'middle' | 'after the stall';
  /** The source stalls before the middle chunk (and this many more) until `run.source.release()`. */
  readonly stall?: boolean | number;
  /** Skipped (the same on both sides) when this returns a reason. */
  readonly skip?: () => string | undefined;
  readonly run: (run: Run, R: Error) => Promise<void>;
}

const asyncIteration = () => typeof (ReadableStream.prototype as unknown as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function';
const valuesMethod = () => typeof (ReadableStream.prototype as unknown as Record<string, unknown>)['values'] === 'function';
const noValues = () => (valuesMethod() ? undefined : 'this runtime has no ReadableStream.prototype.values');

function iterate(readable: ReadableStream<unknown>, options?: { preventCancel?: boolean }): AsyncIterableIterator<unknown> {
  const r = readable as unknown as { values(options?: { preventCancel?: boolean }): AsyncIterableIterator<unknown> };
  return r.values(options);
}

type PipeOption = 'no options' | 'preventClose' | 'preventAbort' | 'preventCancel' | 'signal aborted before' | 'signal aborted during';
type Trigger = 'input ends' | 'source errors' | 'consumer cancels';

/**
 * Each option with the ends it bears on: preventClose with the input ending, preventAbort with an
 * error upstream, preventCancel with the consumer cancelling, each also with one end it must not
 * change; a signal aborted before the pipe starts (whatever would have ended it), and during it.
 */
const PIPE_CASES: ReadonlyArray<readonly [PipeOption, Trigger]> = [
  ['no options', 'input ends'],
  ['no options', 'source errors'],
  ['no options', 'consumer cancels'],
  ['preventClose', 'input ends'],
  ['preventClose', 'source errors'],
  ['preventAbort', 'source errors'],
  ['preventAbort', 'consumer cancels'],
  ['preventCancel', 'consumer cancels'],
  ['preventCancel', 'source errors'],
  ['signal aborted before', 'input ends'],
  ['signal aborted during', 'input ends'],
  ['signal aborted during', 'source errors'],
];

/**
 * Pipe `k` (k < n: into stage k; k = n: pipeTo a foreign sink) with one option, and one thing that
 * ends the flow. The pipes before pipe `k` run until the streams are quiet first, and whatever the
 * consumer does (cancel, abort the signal) is done once they are quiet again: cancelling a chain
 * of TransformStreams while chunks move through it loses the reason on Node 20 (the source gets
 * a TypeError, "transformAlgorithm is not a function"), for identity chains as for any other.
 */
function pipeScript(k: number, n: number, option: PipeOption, trigger: Trigger): Script {
  const where = k < n ? `pipeThrough into stage ${k}` : 'pipeTo a foreign WritableStream';
  const during = option === 'signal aborted during';
  return {
    name: `${where} with ${option}, ${trigger}`,
    ...(trigger === 'source errors' ? { failAt: 'middle' as const } : {}),
    // The signal is aborted while the source waits for more: every queue drained, no chunk moving.
    ...(during ? { stall: true } : {}),
    async run(run, R) {
      const trace = run.trace;
      const A = trace.reason('A');
      const controller = new AbortController();
      const options: StreamPipeOptions | undefined =
        option === 'no options' ? undefined : option.startsWith('signal') ? { signal: controller.signal } : { [option]: true };
      if (option === 'signal aborted before') controller.abort(A);
      const cancels = trigger === 'consumer cancels';
      run.connect(undefined, 0, undefined, k);
      if (k > 0) await quiesce();
      run.connect((i) => (i === k ? options : undefined), k);
      run.locks('connected');
      if (k < n) {
        const reader = trace.call('end: getReader', () => run.end.getReader());
        if (reader === undefined) return;
        trace.cleanups.push(() => reader.cancel());
        if (during) {
          const read = trace.ending('read to the end', readRest(reader));
          await quiesce();
          controller.abort(A);
          await quiesce();
          run.source.release();
          if (cancels) await settledOrQuiet(read);
          if (cancels) trace.track('reader.cancel(R)', reader.cancel(R));
        } else {
          if (cancels) {
            await settledOrQuiet(trace.track('first read', reader.read(), readResult));
            await quiesce();
            trace.track('reader.cancel(R)', reader.cancel(R));
          }
          trace.ending('read to the end', readRest(reader));
        }
      } else {
        const sink = makeSink({ reason: R, hold: cancels });
        trace.watched.push(() => JSON.stringify(sink.log) + String(sink.stream.locked));
        const piped = trace.call(`end: pipeTo${describeOptions(options)}`, () => run.end.pipeTo(sink.stream, options));
        if (piped !== undefined) trace.track('pipeTo', piped);
        if (during || cancels) {
          await quiesce();
          if (during) controller.abort(A);
          await quiesce();
          if (during) run.source.release();
          if (cancels) sink.release(R);
        }
        await trace.checkpoint('piped');
        run.sinkLog('piped', sink);
        trace.note(`sink writable locked: ${sink.stream.locked}`);
      }
      await trace.checkpoint('settled');
      run.locks('settled');
      run.sourceLog('settled');
    },
  };
}

/** Every script for a chain of n stages. */
function scripts(n: number, head: HeadSpec | undefined): Script[] {
  const list: Script[] = [];
  const positions = Array.from({ length: n }, (_, k) => k);

  list.push({
    name: 'pipe every stage, read to the end',
    async run(run) {
      run.connect();
      run.locks('connected');
      run.readAll('read to the end');
      await run.trace.checkpoint('read');
      run.locks('read');
      run.sourceLog('read');
    },
  });

  // A second use of a readable that a pipe holds: every one throws (or rejects) a TypeError.
  const readableOps: Array<[string, (readable: ReadableStream<unknown>, run: Run, R: Error) => unknown]> = [
    ['pipeThrough(new TransformStream())', (r) => r.pipeThrough(new TransformStream())],
    ['pipeTo(new WritableStream())', (r) => r.pipeTo(new WritableStream())],
    ['getReader()', (r) => r.getReader()],
    ['tee()', (r) => r.tee()],
    ['cancel(R)', (r, _run, R) => r.cancel(R)],
    ['values()', (r) => iterate(r)],
  ];
  for (const k of positions) {
    for (const [label, op] of readableOps) {
      list.push({
        name: `after the pipe into stage ${k}: ${label} on the readable it reads`,
        ...(label === 'values()' ? { skip: noValues } : {}),
        async run(run, R) {
          run.connect();
          const readable = run.upstream(k);
          run.trace.note(`that readable locked: ${readable.locked}`);
          const result = run.trace.call(label, () => op(readable, run, R));
          if (isThenable(result)) run.trace.track(label, Promise.resolve(result));
          run.readAll('then read the end to the end');
          await run.trace.checkpoint('read');
          run.locks('read');
          run.sourceLog('read');
        },
      });
    }
  }

  // A second use of a writable that a pipe holds.
  const writableOps: Array<[string, (writable: WritableStream<unknown>, R: Error) => unknown]> = [
    ['getWriter()', (w) => w.getWriter()],
    ['abort(R)', (w, R) => w.abort(R)],
    ['close()', (w) => w.close()],
  ];
  for (const k of positions) {
    for (const [label, op] of writableOps) {
      list.push({
        name: `after the pipe into stage ${k}: ${label} on its writable`,
        async run(run, R) {
          run.connect();
          const writable = (run.stages[k] as Pair).writable;
          run.trace.note(`that writable locked: ${writable.locked}`);
          const result = run.trace.call(label, () => op(writable, R));
          if (isThenable(result)) run.trace.track(label, Promise.resolve(result));
          run.readAll('then read the end to the end');
          await run.trace.checkpoint('read');
          run.locks('read');
          run.sourceLog('read');
        },
      });
    }
  }

  // Pipe options and signals, at every pipe, with every way a flow ends.
  for (let k = 0; k <= n; k++) for (const [option, trigger] of PIPE_CASES) list.push(pipeScript(k, n, option, trigger));

  // Cancelling the end: the reason reaches the source, the very same object.
  list.push(
    {
      name: 'cancel(R) the end before reading',
      async run(run, R) {
        run.connect();
        run.trace.track('end.cancel(R)', run.end.cancel(R));
        await run.trace.checkpoint('cancelled');
        run.locks('cancelled');
        run.sourceLog('cancelled');
      },
    },
    {
      name: 'read one chunk, then reader.cancel(R)',
      async run(run, R) {
        run.connect();
        const reader = run.end.getReader();
        await settledOrQuiet(run.trace.track('first read', reader.read(), readResult));
        await quiesce();
        run.trace.track('reader.cancel(R)', reader.cancel(R));
        run.trace.track('reader.closed', reader.closed);
        await run.trace.checkpoint('cancelled');
        run.locks('cancelled');
        run.sourceLog('cancelled');
      },
    },
    {
      name: 'reader.cancel(R) with a read pending',
      async run(run, R) {
        run.connect();
        const reader = run.end.getReader();
        run.trace.track('read', reader.read(), readResult);
        run.trace.track('reader.cancel(R)', reader.cancel(R));
        await run.trace.checkpoint('cancelled');
        run.sourceLog('cancelled');
      },
    },
    {
      name: 'getReader, releaseLock, then cancel(R) the end',
      async run(run, R) {
        run.connect();
        const reader = run.end.getReader();
        run.trace.call('releaseLock', () => reader.releaseLock());
        run.trace.note(`end locked: ${run.end.locked}`);
        run.trace.track('end.cancel(R)', run.end.cancel(R));
        await run.trace.checkpoint('cancelled');
        run.sourceLog('cancelled');
      },
    },
  );

  // A source that errors: the same reason reaches the end and the sink.
  list.push(
    {
      name: 'the source errors at its first chunk, reader reading',
      failAt: 0,
      async run(run) {
        run.connect();
        run.readAll('read to the end');
        await run.trace.checkpoint('errored');
        run.locks('errored');
        run.sourceLog('errored');
      },
    },

    {
      name: 'the source errors midway, for await over the end',
      failAt: 'middle',
      skip: () => (asyncIteration() ? undefined : 'this runtime has no ReadableStream async iteration'),
      async run(run) {
        run.connect();
        run.trace.ending('for await', iterateRest(run.end));
        await run.trace.checkpoint('errored');
        run.locks('errored');
      },
    },
    {
      name: 'the source errors midway, the end teed, both branches read',
      failAt: 'middle',
      async run(run) {
        run.connect();
        const branches = run.trace.call('tee', () => run.end.tee());
        if (branches === undefined) return;
        run.readAll('branch 1', branches[0]);
        run.readAll('branch 2', branches[1]);
        await run.trace.checkpoint('errored');
        run.locks('errored');
      },
    },
  );

  // The chunks a stage made before an error, not yet read, are dropped with the error: a readable
  // errors at once and empties its queue; nothing waits for a reader to take them. Only one stage
  // (or none): behind a pipe, an abort waits for the writes in flight, which wait for the reader,
  // so what a longer chain still delivers depends on how many chunks each stage makes.
  if (n <= 1) {
    for (const offset of [1, 3]) {
      list.push({
        name: `the source stalls (at the middle + ${offset}) with a read waiting, then gives one chunk and errors; the rest read once quiet`,
        stall: offset,
        failAt: 'after the stall',
        async run(run) {
          run.connect();
          const reader = run.end.getReader();
          run.trace.cleanups.push(() => reader.cancel());
          run.trace.track('reader.closed', reader.closed);
          // Read until the source stalls: every queue is empty, one read waits.
          for (;;) {
            const read = reader.read();
            let settled = false;
            void read.then(
              () => (settled = true),
              () => (settled = true),
            );
            await settledOrQuiet(read);
            if (!settled || (await read).done) break;
          }
          run.source.release();
          await run.trace.checkpoint('errored');
          run.trace.ending('then read the rest', readRest(reader));
          await run.trace.checkpoint('read');
          run.sourceLog('read');
        },
      });
    }
  }

  // A sink that fails: the reason reaches the source.
  for (const [label, options] of [
    ['its first write rejects with R once the streams are quiet', { hold: true }],
    ['its start rejects with R', { failStart: true }],
    ['its close throws R', { failClose: true }],
  ] as const) {
    list.push({
      name: `pipeTo a foreign WritableStream: ${label}`,
      async run(run, R) {
        run.connect();
        const sink = makeSink({ reason: R, ...options });
        run.trace.watched.push(() => JSON.stringify(sink.log) + String(sink.stream.locked));
        run.trace.track('pipeTo', run.end.pipeTo(sink.stream));
        if (options.hold === true) {
          await quiesce();
          sink.release(R);
        }
        await run.trace.checkpoint('piped');
        run.sinkLog('piped', sink);
        run.locks('piped');
        run.sourceLog('piped');
      },
    });
  }

  // Writing the first stage by hand.
  if (n > 0) {
    const write = async (run: Run, writer: WritableStreamDefaultWriter<unknown>, input: readonly unknown[]) => {
      for (const chunk of input) {
        const written = writer.write(chunk);
        await settledOrQuiet(written);
      }
    };
    list.push(
      {
        name: 'a writer on the first stage writes everything and closes, the end read meanwhile',
        async run(run) {
          run.connect(undefined, 1);
          const writer = (run.stages[0] as Pair).writable.getWriter();
          run.readAll('read to the end');
          await write(run, writer, run.stageInput);
          run.trace.track('writer.close()', writer.close());
          run.trace.track('writer.closed', writer.closed);
          await run.trace.checkpoint('closed');
          run.locks('closed');
        },
      },
      {
        name: 'a writer on the first stage writes half, then abort(R), the end read meanwhile',
        async run(run, R) {
          run.connect(undefined, 1);
          const writer = (run.stages[0] as Pair).writable.getWriter();
          run.readAll('read to the end');
          await write(run, writer, run.stageInput.slice(0, run.stageInput.length >> 1));
          run.trace.track('writer.abort(R)', writer.abort(R));
          run.trace.track('writer.closed', writer.closed);
          run.trace.track('writer.ready', writer.ready, () => 'fulfilled');
          await run.trace.checkpoint('aborted');
          run.locks('aborted');
        },
      },
      {
        name: 'a writer on the first stage writes half, then abort(R), nobody reading until the streams are quiet',
        async run(run, R) {
          run.connect(undefined, 1);
          const writer = (run.stages[0] as Pair).writable.getWriter();
          for (const chunk of run.stageInput.slice(0, run.stageInput.length >> 1)) void writer.write(chunk).catch(() => undefined);
          run.trace.track('writer.abort(R)', writer.abort(R));
          run.trace.track('writer.closed', writer.closed);
          await run.trace.checkpoint('aborted');
          run.readAll('read to the end');
          await run.trace.checkpoint('read');
          run.locks('read');
        },
      },
      {
        name: 'a writer on the first stage: a second getWriter throws, releaseLock, getWriter again writes the rest',
        async run(run) {
          run.connect(undefined, 1);
          const writable = (run.stages[0] as Pair).writable;
          const writer = writable.getWriter();
          run.trace.call('second getWriter', () => writable.getWriter());
          run.readAll('read to the end');
          const half = run.stageInput.length >> 1;
          await write(run, writer, run.stageInput.slice(0, half));
          run.trace.call('releaseLock', () => writer.releaseLock());
          run.trace.note(`writable locked: ${writable.locked}`);
          const again = run.trace.call('getWriter again', () => writable.getWriter());
          if (again === undefined) return;
          await write(run, again, run.stageInput.slice(half));
          run.trace.track('close', again.close());
          await run.trace.checkpoint('closed');
          run.locks('closed');
        },
      },
      {
        name: 'each stage before it is piped: getWriter twice, getReader twice, release both and take them again',
        async run(run) {
          run.stages.forEach((s, k) => {
            const writer = s.writable.getWriter();
            run.trace.call(`stage ${k}: second getWriter`, () => s.writable.getWriter());
            const reader = s.readable.getReader();
            run.trace.call(`stage ${k}: second getReader`, () => s.readable.getReader());
            writer.releaseLock();
            reader.releaseLock();
            run.trace.note(`stage ${k} locked: ${s.writable.locked} ${s.readable.locked}`);
            run.trace.call(`stage ${k}: getWriter again`, () => s.writable.getWriter().releaseLock());
            run.trace.call(`stage ${k}: getReader again`, () => s.readable.getReader().releaseLock());
          });
          run.connect();
          run.locks('connected');
          run.readAll('read to the end');
          await run.trace.checkpoint('read');
        },
      },
    );
  }

  // tee
  list.push(
    {
      name: 'tee the end, read both branches',
      async run(run) {
        run.connect();
        const branches = run.end.tee();
        run.locks('teed');
        run.readAll('branch 1', branches[0]);
        run.readAll('branch 2', branches[1]);
        await run.trace.checkpoint('read');
        run.sourceLog('read');
      },
    },
    {
      name: 'tee the end, cancel both branches (R, S)',
      async run(run, R) {
        const S = run.trace.reason('S');
        run.connect();
        const [one, two] = run.end.tee();
        run.trace.track('branch 1 cancel(R)', one.cancel(R));
        await run.trace.checkpoint('one cancelled');
        run.sourceLog('one cancelled');
        run.trace.track('branch 2 cancel(S)', two.cancel(S));
        await run.trace.checkpoint('both cancelled');
        run.sourceLog('both cancelled');
      },
    },
    {
      name: 'tee the end, cancel one branch, read the other to the end',
      async run(run, R) {
        run.connect();
        const [one, two] = run.end.tee();
        run.trace.track('branch 1 cancel(R)', one.cancel(R));
        run.readAll('branch 2', two);
        await run.trace.checkpoint('read');
        run.sourceLog('read');
      },
    },
  );

  // for await
  const noIteration = () => (asyncIteration() ? undefined : 'this runtime has no ReadableStream async iteration');
  list.push(
    {
      name: 'for await over the end',
      skip: noIteration,
      async run(run) {
        run.connect();
        run.trace.ending('for await', iterateRest(run.end));
        await run.trace.checkpoint('read');
        run.locks('read');
        run.sourceLog('read');
      },
    },
    {
      // What a `break` does: return() once the first chunk came (and the streams are at rest).
      name: 'async iterator: the first chunk, then return() (a for-await break)',
      skip: noIteration,
      async run(run) {
        run.connect();
        const iterator = (run.end as unknown as AsyncIterable<unknown>)[Symbol.asyncIterator]();
        await settledOrQuiet(run.trace.track('next()', iterator.next(), (r) => (r.done === true ? 'fulfilled done' : 'fulfilled a chunk')));
        await quiesce();
        run.trace.track('return()', (iterator.return as () => Promise<IteratorResult<unknown>>)(), (r) => `fulfilled done: ${String(r.done)}`);
        await run.trace.checkpoint('returned');
        run.locks('returned');
        run.sourceLog('returned');
      },
    },
    {
      name: 'async iterator: the first chunk, then return(R): the source is cancelled with R',
      skip: noIteration,
      async run(run, R) {
        run.connect();
        const iterator = (run.end as unknown as AsyncIterable<unknown>)[Symbol.asyncIterator]();
        await settledOrQuiet(run.trace.track('next()', iterator.next(), (r) => (r.done === true ? 'fulfilled done' : 'fulfilled a chunk')));
        await quiesce();
        run.trace.track('return(R)', (iterator.return as (value: unknown) => Promise<IteratorResult<unknown>>)(R), (r) => `fulfilled done: ${String(r.done)}`);
        await run.trace.checkpoint('returned');
        run.locks('returned');
        run.sourceLog('returned');
      },
    },
    {
      name: 'values({ preventCancel: true }): the first chunk, then return(), then read the rest',
      skip: noValues,
      async run(run) {
        run.connect();
        const iterator = iterate(run.end, { preventCancel: true });
        await settledOrQuiet(run.trace.track('next()', iterator.next(), (r) => (r.done === true ? 'fulfilled done' : 'fulfilled a chunk')));
        await quiesce();
        await settledOrQuiet(run.trace.track('return()', (iterator.return as () => Promise<IteratorResult<unknown>>)(), (r) => `fulfilled done: ${String(r.done)}`));
        run.locks('returned');
        run.readAll('read the rest');
        await run.trace.checkpoint('read');
        run.sourceLog('read');
      },
    },
  );

  // Readables taken before the stage was piped into.
  if (n > 0) {
    list.push(
      {
        name: "read the last stage's readable taken before it was piped into",
        async run(run) {
          run.connect();
          run.readAll('read to the end', run.before[n - 1]);
          await run.trace.checkpoint('read');
          run.locks('read');
        },
      },
      {
        name: 'pipe from the readables taken before, read the last one',
        async run(run) {
          run.connect(undefined, 0, run.before);
          run.readAll('read to the end', run.before[n - 1]);
          await run.trace.checkpoint('read');
          run.locks('read');
        },
      },
    );
  }

  // releaseLock and a new reader.
  list.push(
    {
      name: 'read one chunk, releaseLock, getReader again, read to the end',
      async run(run) {
        run.connect();
        const reader = run.end.getReader();
        await settledOrQuiet(run.trace.track('first read', reader.read(), readResult));
        run.trace.call('releaseLock', () => reader.releaseLock());
        run.trace.track('first reader.closed', reader.closed, () => 'fulfilled');
        run.trace.note(`end locked: ${run.end.locked}`);
        run.readAll('second reader');
        await run.trace.checkpoint('read');
        run.sourceLog('read');
      },
    },
    {
      name: 'releaseLock with a read pending, then getReader again',
      async run(run) {
        run.connect();
        // No chunk can arrive before releaseLock: the pipes start in a later microtask.
        const reader = run.end.getReader();
        run.trace.track('pending read', reader.read(), readResult);
        run.trace.call('releaseLock', () => reader.releaseLock());
        run.trace.note(`end locked: ${run.end.locked}`);
        run.readAll('second reader');
        await run.trace.checkpoint('read');
      },
    },
  );

  // Foreign streams at the start.
  if (head === undefined && n === 1) {
    const from = () => (nativeFrom() === undefined ? 'this runtime has no ReadableStream.from' : undefined);
    for (const form of ['ReadableStream.from', 'Response body'] as const) {
      const skip = form === 'ReadableStream.from' ? from : undefined;
      list.push(
        {
          name: `source ${form}: read to the end`,
          form,
          ...(skip === undefined ? {} : { skip }),
          async run(run) {
            run.connect();
            run.locks('connected');
            run.readAll('read to the end');
            await run.trace.checkpoint('read');
            run.sourceLog('read');
          },
        },
        {
          name: `source ${form}: read one chunk, reader.cancel(R)`,
          form,
          ...(skip === undefined ? {} : { skip }),
          async run(run, R) {
            run.connect();
            const reader = run.end.getReader();
            await settledOrQuiet(run.trace.track('first read', reader.read(), readResult));
            await quiesce();
            run.trace.track('reader.cancel(R)', reader.cancel(R));
            await run.trace.checkpoint('cancelled');
            run.sourceLog('cancelled');
          },
        },
        {
          name: `source ${form}: errors midway, reader reading`,
          form,
          failAt: 'middle',
          ...(skip === undefined ? {} : { skip }),
          async run(run) {
            run.connect();
            run.readAll('read to the end');
            await run.trace.checkpoint('errored');
            run.sourceLog('errored');
          },
        },
      );
    }
  }
  return list;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

export interface Scenario {
  /** The group: an exported stream class, or `chain()`, `fromResponse()`, … */
  readonly group: string;
  readonly name: string;
  /** Needs `chain` / `fromResponse(…, ...stages)`, which an older build does not have. */
  readonly needsChain: boolean;
  readonly shape: Shape;
  readonly script: Script;
}

/** The outcome of one scenario: the two traces, and whether they are equal. */
export interface Outcome {
  readonly scenario: Scenario;
  readonly argstream: readonly string[];
  readonly identity: readonly string[];
  readonly same: boolean;
  /** Why it was not run (then both sides are recorded as skipped). */
  readonly skipped?: string;
}

let cached: Scenario[] | undefined;

/** Every scenario, in a fixed order: groups × shapes × scripts. */
export function scenarios(): Scenario[] {
  cached ??= groups().flatMap(({ name, shapes }) =>
    shapes.flatMap((s) =>
      scripts(s.stages.length, s.head).map((script) => ({
        group: name,
        name: `${name} | ${s.label} | ${script.name}`,
        needsChain: s.stages.some((x) => x.label.startsWith('chain(')) || s.head?.needsChain === true,
        shape: s,
        script,
      })),
    ),
  );
  return cached;
}

/** The group names, in order: one check each. */
export function groupNames(): string[] {
  return [...new Set(scenarios().map((s) => s.group))];
}

const SCRIPT_THREW = 'the script threw';

async function runSide(scenario: Scenario, side: Side, input: readonly unknown[], stageInput: readonly unknown[]): Promise<string[]> {
  const { shape: chainShape, script } = scenario;
  const trace = new Trace();
  const R = trace.reason('R');
  const middle = input.length >> 1;
  const stallAt = script.stall === undefined || script.stall === false ? undefined : middle + (script.stall === true ? 0 : script.stall);
  // With a stall, 'middle' is the stalled read itself: released, it fails.
  const failAt = script.failAt === 'middle' ? middle : script.failAt === 'after the stall' ? (stallAt ?? middle) + 1 : script.failAt;
  let run: Run;
  try {
    run = new Run(trace, chainShape, side, input, stageInput, script.form ?? 'ReadableStream', {
      ...(failAt === undefined ? {} : { failAt, reason: R }),
      ...(stallAt === undefined ? {} : { stallAt }),
    });
  } catch (error) {
    return [`${SCRIPT_THREW} while building the chain: ${trace.show(error)}`];
  }
  fingerprint = () => run.fingerprint();
  try {
    await script.run(run, R);
  } catch (error) {
    run.trace.note(`${SCRIPT_THREW} ${run.trace.show(error)}${error instanceof Error ? `: ${error.message}` : ''}`);
  } finally {
    await run.trace.cleanup();
    fingerprint = () => '';
  }
  return run.trace.lines;
}

/** Run one scenario on both sides. */
export async function runScenario(scenario: Scenario): Promise<Outcome> {
  const skipped = scenario.script.skip?.();
  if (skipped !== undefined) return { scenario, argstream: [`skipped: ${skipped}`], identity: [`skipped: ${skipped}`], same: true, skipped };
  if (scenario.needsChain && !hasChain()) {
    const why = 'this build has no chain()';
    return { scenario, argstream: [`skipped: ${why}`], identity: [`skipped: ${why}`], same: true, skipped: why };
  }
  const prepared = (await prepareInputs()).chunks;
  const input = prepared[scenario.shape.input];
  const first = scenario.shape.stages[0]?.input;
  const stageInput = first === undefined || first === 'snapshots' || first === 'notifications' ? [] : prepared[first];
  const argstream = await runSide(scenario, 'argstream', input, stageInput);
  const identity = await runSide(scenario, 'identity', input, stageInput);
  // A script that threw tested nothing, even if it threw the same way on both sides.
  const broken = [...argstream, ...identity].some((line) => line.startsWith(SCRIPT_THREW));
  return { scenario, argstream, identity, same: !broken && argstream.length === identity.length && argstream.every((line, i) => line === identity[i]) };
}

/** Run every scenario of a group (or all); resolves to every outcome. */
export async function runGroup(group?: string): Promise<Outcome[]> {
  // A provider read by name decodes at once from its module's load on (before it, a stream waits
  // for the load, as a stage waits for any I/O): load it once, as a page's first stream does.
  await new ReadableStream({ start: (controller) => controller.close() })
    .pipeThrough(new ProviderEventStream({ provider: 'langchain' }))
    .pipeTo(new WritableStream())
    .catch(() => undefined);
  const out: Outcome[] = [];
  for (const scenario of scenarios()) {
    if (group !== undefined && scenario.group !== group) continue;
    out.push(await runScenario(scenario));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Known differences

/**
 * Scenarios known to differ, each list with the bug that makes them differ and where it shows. A
 * known difference is counted, not failed. When one of argstream's own stops differing, its check
 * fails until the entry is removed (as `knownFailing` in portable.ts does for whole checks); a
 * runtime's own bug (`platform`) may come and go with that runtime's scheduling.
 */
interface KnownDifference {
  readonly bug: string;
  /** The scenarios may also pass (a runtime's own scheduling decides): their passing fails nothing. */
  readonly mayPass?: true;
  /** Where it shows: every runtime when absent. */
  readonly where?: () => boolean;
  /** The scenarios, by name (or a test of the name, for a runtime's bug that touches many). */
  readonly scenarios: readonly string[] | ((name: string) => boolean);
}

const IS_BUN = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
/** Whether this runtime calls a transformer's `cancel` (Node, Deno, Bun, workerd, edge-runtime; not the browsers tested here). */
function callsTransformerCancel(): boolean {
  let called = false;
  void new TransformStream({ cancel: () => void (called = true) } as Transformer).readable.cancel().catch(() => undefined);
  return called;
}
const stalls = (prefix: string, offsets: readonly number[]) =>
  offsets.map((offset) => `${prefix} | the source stalls (at the middle + ${offset}) with a read waiting, then gives one chunk and errors; the rest read once quiet`);

const KNOWN_DIFFERENCES: readonly KnownDifference[] = [];

function knownFor(name: string): KnownDifference | undefined {
  return KNOWN_DIFFERENCES.find((known) => (known.where?.() ?? true) && (typeof known.scenarios === 'function' ? known.scenarios(name) : known.scenarios.includes(name)));
}

/** What a group's run says: the differences nobody knew of, the known ones that are gone, and the known ones. */
export interface Verdict {
  readonly unexpected: readonly Outcome[];
  /** Known differences of argstream's that no longer differ: remove them from KNOWN_DIFFERENCES. */
  readonly fixed: readonly Outcome[];
  readonly known: ReadonlyArray<{ readonly outcome: Outcome; readonly bug: string }>;
}

export function verdict(outcomes: readonly Outcome[]): Verdict {
  const unexpected: Outcome[] = [];
  const fixed: Outcome[] = [];
  const known: Array<{ outcome: Outcome; bug: string }> = [];
  for (const outcome of outcomes) {
    const entry = knownFor(outcome.scenario.name);
    if (entry === undefined) {
      if (!outcome.same) unexpected.push(outcome);
    } else if (!outcome.same) known.push({ outcome, bug: entry.bug });
    else if (entry.mayPass !== true && outcome.skipped === undefined) fixed.push(outcome);
  }
  return { unexpected, fixed, known };
}

/** The failure message of a group's check, or undefined when it passes. */
export function failureMessage(outcomes: readonly Outcome[]): string | undefined {
  const { unexpected, fixed, known } = verdict(outcomes);
  if (unexpected.length === 0 && fixed.length === 0) return undefined;
  const parts: string[] = [];
  if (unexpected.length > 0) parts.push(describeDifferences(unexpected, outcomes.length));
  if (fixed.length > 0) parts.push(`${fixed.length} known differences are gone (remove them from KNOWN_DIFFERENCES in test/runtimes/semantics.ts):\n${fixed.map((o) => `- ${o.scenario.name}`).join('\n')}`);
  if (known.length > 0) parts.push(`(${known.length} known differences besides)`);
  return parts.join('\n');
}

/** The differing scenarios, each with the lines that differ, as one message. */
export function describeDifferences(differing: readonly Outcome[], total: number, detailed = 12): string {
  const lines = [`${differing.length} of ${total} scenarios differ from a chain of identity TransformStreams:`];
  differing.forEach((o, i) => {
    lines.push(`- ${o.scenario.name}`);
    if (i >= detailed) return;
    const length = Math.max(o.argstream.length, o.identity.length);
    for (let j = 0; j < length; j++) {
      if (o.argstream[j] === o.identity[j]) continue;
      lines.push(`    argstream: ${o.argstream[j] ?? '(nothing)'}`);
      lines.push(`    identity:  ${o.identity[j] ?? '(nothing)'}`);
    }
  });
  return lines.join('\n');
}
