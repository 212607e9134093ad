/**
 * Every order of the views works (DESIGN property 7, issue 19 §2): after `ProviderEventStream`, the
 * six views — progress (`ToolCallProgressStream`), fields, path updates, JSON text
 * (`ToolCallDeltaStream`: each call's argument text), coalescing and validation — chained in every
 * one of the 720 orders give, each, what that view gives alone right after the provider, and the
 * chain ends with exactly one final event per call. One recording of each provider folder (the one
 * with the most tool calls), run through the synchronous cores of the stages (a stage is its core
 * in a `TransformStream`; the stream shells are checked on a few orders at the end).
 */
import { describe, expect, it } from 'vitest';
import {
  ArgumentValidationCore,
  ArgumentValidationStream,
  Coalescer,
  CoalesceStream,
  ConversationEventStream,
  FieldEventCore,
  FieldEventStream,
  FragmentAggregator,
  JsonFragmentRebuilder,
  PathUpdateCore,
  PathUpdateStream,
  ProviderEventDecoder,
  ProviderEventStream,
  ToolCallDeltaCore,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  TurnBuilder,
  chain,
  type JsonValue,
  type PathUpdate,
  type PipelineEvent,
  type ProviderName,
  type PushCore,
  type StandardSchema,
  type StandardSchemaIssue,
  type StreamEvent,
} from '../../src/index.ts';
import { readAll, streamOf } from '../helpers.ts';
import type { ManifestRecording } from '../manifest.ts';
import { PROVIDER_OF_DIR, readableRecordings, recordingInput, decoderProvider } from '../providers/event-stream-helpers.ts';

type View = 'progress' | 'fields' | 'paths' | 'text' | 'coalesce' | 'validation';
const VIEWS: readonly View[] = ['progress', 'fields', 'paths', 'text', 'coalesce', 'validation'];

/**
 * A schema that reports every top-level string field longer than 3 characters, an object with more
 * than one member as a whole, and an empty object (a call without arguments): failures at field
 * level and at the end, the same in any order.
 */
const picky: StandardSchema = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate(value) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return { value };
      const issues: StandardSchemaIssue[] = [];
      for (const [key, member] of Object.entries(value)) {
        if (typeof member === 'string' && member.length > 3) issues.push({ message: 'too long', path: [key] });
      }
      if (Object.keys(value).length > 1) issues.push({ message: 'too many members' });
      if (Object.keys(value).length === 0) issues.push({ message: 'no arguments' });
      return issues.length === 0 ? { value } : { issues };
    },
  },
};

/** The core of each view's stage, as its `…Stream` class configures it. */
const CORES: Readonly<Record<View, () => PushCore<PipelineEvent, PipelineEvent>>> = {
  progress: () => new TurnBuilder({ progress: true, messages: false }),
  fields: () => new FieldEventCore() as PushCore<PipelineEvent, PipelineEvent>,
  paths: () => new PathUpdateCore() as PushCore<PipelineEvent, PipelineEvent>,
  text: () => new ToolCallDeltaCore(),
  // No size limit: every run of pieces between two boundaries merges (checked when it is last).
  coalesce: () => new Coalescer<PipelineEvent>(Number.MAX_SAFE_INTEGER),
  validation: () => new ArgumentValidationCore({ schema: picky }) as PushCore<PipelineEvent, PipelineEvent>,
};

/** Each view's `…Stream`, for the checks of the stream shells. */
const STREAMS: Readonly<Record<View, () => TransformStream<PipelineEvent, PipelineEvent>>> = {
  progress: () => new ToolCallProgressStream(),
  fields: () => new FieldEventStream() as unknown as TransformStream<PipelineEvent, PipelineEvent>,
  paths: () => new PathUpdateStream() as unknown as TransformStream<PipelineEvent, PipelineEvent>,
  text: () => new ToolCallDeltaStream(),
  coalesce: () => new CoalesceStream<PipelineEvent>({ maxDelayMs: Infinity }),
  validation: () => new ArgumentValidationStream({ schema: picky }) as unknown as TransformStream<PipelineEvent, PipelineEvent>,
};

/** Run `events` through the cores one after the other (the same as one chain: the cores keep no time). */
function runCores(cores: ReadonlyArray<PushCore<PipelineEvent, PipelineEvent>>, events: readonly PipelineEvent[]): PipelineEvent[] {
  let items: PipelineEvent[] = [...events];
  for (const core of cores) {
    const out: PipelineEvent[] = [];
    for (const item of items) core.push(item, out);
    core.end(out);
    items = out;
  }
  return items;
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/** Freeze the provider's events: no stage may change what it was given. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

const FINAL_TYPES: ReadonlySet<string> = new Set(['tool-call', 'provider-tool-call', 'tool-call-incomplete', 'tool-call-failed', 'structured']);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/**
 * What each view made, read from a chain's output, cut-independent: a text split into other
 * pieces (coalescing merges them) reads the same.
 */
function viewsOf(events: readonly PipelineEvent[]) {
  /** Per slot: the value its progress fragments aggregate to (an aggregator refuses a document given twice). */
  const progress = new Map<number, FragmentAggregator>();
  /** Per slot: its fields, each `key`, its text joined and whether it was a string. */
  const fields = new Map<number, Array<{ key: string; text: string; string?: boolean }>>();
  /** Per slot: the value its path updates rebuild, and their kinds (pieces of one string as one). */
  const paths = new Map<number, { rebuilder: JsonFragmentRebuilder; kinds: string[] }>();
  /** Per slot: its argument text, and how many times it was said complete. */
  const text = new Map<number, { text: string; complete: number }>();
  const validation: PipelineEvent[] = [];
  /** Per slot: its final events (a call's conversation event, a structured document). */
  const finals = new Map<number, PipelineEvent[]>();
  /** Per text slot: the message and reasoning text, joined. */
  const messages = new Map<string, string>();
  for (const event of events) {
    switch (event.type) {
      case 'tool-call-progress':
      case 'structured-progress': {
        let aggregator = progress.get(event.index);
        if (aggregator === undefined) progress.set(event.index, (aggregator = new FragmentAggregator()));
        aggregator.push(event.fragment);
        break;
      }
      case 'field-start':
        push(fields, event.index ?? -1, { key: event.key, text: '' });
        break;
      case 'field-delta':
      case 'field-end': {
        const field = fields.get(event.index ?? -1)?.at(-1);
        if (field === undefined || field.key !== event.key || field.string !== undefined) throw new Error(`${event.type} ${event.key} out of place`);
        if (event.type === 'field-delta') field.text += event.text;
        else field.string = event.string;
        break;
      }
      case 'path-update': {
        const index = event.index ?? -1;
        let call = paths.get(index);
        if (call === undefined) paths.set(index, (call = { rebuilder: new JsonFragmentRebuilder(), kinds: [] }));
        call.rebuilder.push(event as PathUpdate);
        if (event.kind !== 'partial-string' || call.kinds.at(-1) !== 'partial-string') call.kinds.push(event.kind);
        break;
      }
      case 'streaming-tool-call': {
        let call = text.get(event.index);
        if (call === undefined) text.set(event.index, (call = { text: '', complete: 0 }));
        call.text += event.argumentsDelta;
        if (event.isComplete) call.complete++;
        break;
      }
      case 'validation-error':
        validation.push(event);
        break;
      case 'part':
        if (event.part.type === 'message' || event.part.type === 'reasoning') {
          const key = `${event.part.type} ${event.index}`;
          messages.set(key, (messages.get(key) ?? '') + event.part.text);
        }
        break;
      default:
        if (FINAL_TYPES.has(event.type)) push(finals, (event as { readonly index: number }).index, event);
    }
  }
  return {
    progress: new Map([...progress].map(([index, aggregator]) => [index, aggregator.snapshot()])),
    fields,
    paths: new Map([...paths].map(([index, { rebuilder, kinds }]) => [index, { value: rebuilder.value, complete: rebuilder.isComplete(), kinds }])),
    text: new Map([...text].map(([index, call]) => [index, { value: call.text.trim() === '' ? {} : (JSON.parse(call.text) as JsonValue), complete: call.complete }])),
    validation,
    finals,
    messages,
  };
}

type Views = ReturnType<typeof viewsOf>;

/** What view `view` made, from everything the chain's output holds. */
function outputOf(view: View, views: Views): unknown {
  switch (view) {
    case 'progress':
      return views.progress;
    case 'fields':
      return views.fields;
    case 'paths':
      return views.paths;
    case 'text':
      return views.text;
    case 'validation':
      return views.validation;
    case 'coalesce':
      // Coalescing makes nothing of its own: the text it merges must still be all there.
      return views.messages;
  }
}

/** One recording of each provider folder: the one with the most tool calls (then the longest arguments). */
function oneRecordingPerProvider(): ManifestRecording[] {
  const best = new Map<string, ManifestRecording>();
  const weight = (r: ManifestRecording) => r.toolCalls.length * 1e6 + r.toolCalls.reduce((sum, call) => sum + call.args.length, 0);
  for (const recording of readableRecordings()) {
    if (recording.toolCalls.length === 0) continue;
    const current = best.get(recording.dir);
    if (current === undefined || weight(recording) > weight(current)) best.set(recording.dir, recording);
  }
  return [...best.values()].sort((a, b) => a.dir.localeCompare(b.dir));
}

const recordings = oneRecordingPerProvider();

function providerEvents(recording: ManifestRecording): PipelineEvent[] {
  const decoder = new ProviderEventDecoder({ provider: decoderProvider(PROVIDER_OF_DIR[recording.dir] as ProviderName) });
  const events: StreamEvent[] = [];
  for (const chunk of recordingInput(recording)) decoder.push(chunk, events);
  decoder.end(events);
  return deepFreeze(events);
}

/** Each view's output alone right after the provider, and the calls' final events. */
function aloneOf(events: readonly PipelineEvent[]) {
  const alone = new Map<View, unknown>();
  for (const view of VIEWS) alone.set(view, outputOf(view, viewsOf(runCores([CORES[view]()], events))));
  // The calls as the turn builder ends them: one final event per slot.
  const finals = viewsOf(runCores([CORES.progress()], events)).finals;
  return { alone, finals };
}

/** The target of a piece of text CoalesceStream merges, or undefined for a boundary. */
function pieceTarget(event: PipelineEvent): string | undefined {
  switch (event.type) {
    case 'field-delta':
      return `field ${event.index} ${event.toolCallId} ${event.toolName} ${event.key}`;
    case 'tool-call-progress':
    case 'structured-progress': {
      let path = `${event.type} ${event.index} ${'toolCallId' in event ? event.toolCallId : ''}`;
      let fragment = event.fragment;
      for (; fragment.type === 'entry' || fragment.type === 'item'; fragment = fragment.value) path += fragment.type === 'entry' ? `/${fragment.key}` : `/${fragment.index}`;
      return fragment.type === 'string' && fragment.text !== '' ? path : undefined;
    }
    case 'path-update':
      return event.kind === 'partial-string' ? `update ${event.index} ${event.toolCallId}` : undefined;
    case 'streaming-tool-call':
      return event.isComplete || event.argumentsDelta === '' ? undefined : `delta ${event.index} ${event.toolCallId} ${event.toolName}`;
    case 'part': {
      const part = event.part;
      if (event.metadata !== undefined) return undefined;
      if (part.type === 'message' || part.type === 'reasoning') return part.text === '' ? undefined : `${part.type} ${event.index}`;
      if (part.type === 'tool-call-arguments') return part.chunk === '' ? undefined : `arguments ${event.index}`;
      if (part.type === 'structured') return part.json === '' ? undefined : `structured ${event.index}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

/** After CoalesceStream, no target has two pieces between two boundaries: each run merged. */
function expectCoalesced(events: readonly PipelineEvent[], where: string): void {
  let run = new Set<string>();
  for (const event of events) {
    const target = pieceTarget(event);
    if (target === undefined) run = new Set();
    else {
      expect(run.has(target), `${where}: a second piece for ${target} before a boundary`).toBe(false);
      run.add(target);
    }
  }
}

/** Check one chain's output against the views alone; returns the first difference, or undefined. */
function check(order: readonly View[], output: readonly PipelineEvent[], alone: Map<View, unknown>, finals: Map<number, PipelineEvent[]>) {
  const views = viewsOf(output);
  for (const view of order) expect(outputOf(view, views), `${view} in ${order.join(' → ')}`).toEqual(alone.get(view));
  // Exactly one final event per call, the one the turn builder makes alone.
  expect(views.finals, `final events in ${order.join(' → ')}`).toEqual(finals);
  for (const list of views.finals.values()) expect(list).toHaveLength(1);
}

describe('Every order of the views after each provider', () => {
  it('one recording of each provider folder, each with tool calls', () => {
    expect(recordings.map((r) => r.dir)).toEqual(['ag-ui', 'anthropic', 'bedrock', 'cohere', 'gemini', 'gemini-interactions', 'langchain', 'mistral', 'ollama', 'openai-chat', 'openai-compatible', 'openai-responses']);
  });

  for (const recording of recordings) {
    it(`every order of progress, fields, paths, JSON text, coalesce and validation gives each view's output alone (${recording.file})`, () => {
      const events = providerEvents(recording);
      const { alone, finals } = aloneOf(events);
      // The views see every call: the recording's calls, each with its arguments.
      const calls = [...finals.values()].flat().filter((e) => e.type === 'tool-call' || e.type === 'provider-tool-call');
      expect(calls.length).toBeGreaterThan(0);
      const progress = alone.get('progress') as Views['progress'];
      const paths = alone.get('paths') as Views['paths'];
      const text = alone.get('text') as Views['text'];
      for (const call of calls) {
        if (call.type !== 'tool-call' && call.type !== 'provider-tool-call') continue;
        if (progress.has(call.index)) expect(progress.get(call.index)).toEqual(call.arguments);
        if (paths.has(call.index)) expect(paths.get(call.index)?.value).toEqual(call.arguments);
        expect(text.get(call.index)).toEqual({ value: call.arguments, complete: 1 });
      }
      let orders = 0;
      for (const order of permutations(VIEWS)) {
        const output = runCores(order.map((view) => CORES[view]()), events);
        check(order, output, alone, finals);
        if (order.at(-1) === 'coalesce') expectCoalesced(output, `${recording.file}: ${order.join(' → ')}`);
        orders++;
      }
      expect(orders).toBe(720);
    });
  }

  it('a view with nothing of its own in the stream passes every event through unchanged: the same objects, in order', () => {
    const textOnly = readableRecordings().filter((recording) => {
      const events = providerEvents(recording);
      return events.every((e) => e.type !== 'part' || e.part.type === 'message' || e.part.type === 'reasoning');
    });
    expect(textOnly.length).toBeGreaterThan(3);
    for (const recording of textOnly) {
      const events = providerEvents(recording);
      for (const view of VIEWS) {
        // Coalescing owns text: it merges the message pieces (checked above).
        if (view === 'coalesce') continue;
        const out = runCores([CORES[view]()], events);
        expect(out.length, `${recording.file}: ${view}`).toBe(events.length);
        out.forEach((event, i) => expect(event, `${recording.file}: ${view}`).toBe(events[i]));
      }
    }
  });

  it('after ConversationEventStream({ progress: true }), and after a second progress stage, each view gives its output alone', () => {
    for (const recording of recordings) {
      const events = providerEvents(recording);
      const { alone } = aloneOf(events);
      // New cores for each run: a turn builder holds one turn (its call ids among it).
      for (const before of [() => [new TurnBuilder({ progress: true, messages: true })], () => [CORES.progress(), CORES.progress()]]) {
        for (const view of VIEWS) {
          const views = viewsOf(runCores([...before(), CORES[view]()], events));
          if (view !== 'coalesce') expect(outputOf(view, views), `${recording.file}: ${view}`).toEqual(alone.get(view));
          for (const list of views.finals.values()) expect(list, `${recording.file}: ${view}`).toHaveLength(1);
        }
      }
    }
  });

  it('after a stage that passes no progress on, fields, path updates and JSON text come from each call\'s final event, with the values of the view alone', () => {
    /** Fields and updates as values: made from a value, a number is written as JSON.stringify writes it. */
    const values = (view: View, output: unknown): unknown => {
      if (view === 'fields') {
        const fields = output as Views['fields'];
        return new Map([...fields].map(([index, list]) => [index, list.map((f) => ({ key: f.key, value: f.string === true ? f.text : (JSON.parse(f.text) as unknown) }))]));
      }
      if (view === 'paths') return new Map([...(output as Views['paths'])].map(([index, call]) => [index, { value: call.value, complete: call.complete }]));
      return output;
    };
    for (const recording of recordings) {
      const events = providerEvents(recording);
      const { alone, finals } = aloneOf(events);
      const befores: ReadonlyArray<readonly [string, () => PushCore<PipelineEvent, PipelineEvent>]> = [
        ['ConversationEventStream()', () => new TurnBuilder({ messages: true })],
        ['FieldEventStream({ keepProgress: false })', () => new FieldEventCore({ keepProgress: false }) as PushCore<PipelineEvent, PipelineEvent>],
        ['PathUpdateStream({ keepProgress: false })', () => new PathUpdateCore({ keepProgress: false }) as PushCore<PipelineEvent, PipelineEvent>],
      ];
      for (const [name, before] of befores) {
        for (const view of ['fields', 'paths', 'text'] as const) {
          const views = viewsOf(runCores([before(), CORES[view]()], events));
          const where = `${recording.file}: ${name} → ${view}`;
          // What the stage before made of the same view is its own (the same as this view's).
          if (name.startsWith(view === 'fields' ? 'Field' : view === 'paths' ? 'Path' : '-')) continue;
          expect(values(view, outputOf(view, views)), where).toEqual(values(view, alone.get(view)));
          expect(views.finals, where).toEqual(finals);
        }
      }
    }
  });

  it('the stream shells give what their cores give, in a few orders, chained and as separate hops', async () => {
    const orders: View[][] = [VIEWS.slice(), VIEWS.slice().reverse(), ['fields', 'paths', 'progress', 'validation', 'coalesce', 'text'], ['text', 'validation', 'fields', 'coalesce', 'paths', 'progress']];
    for (const recording of recordings) {
      const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
      const events = providerEvents(recording);
      for (const order of orders) {
        const expected = viewsOf(runCores(order.map((view) => CORES[view]()), events));
        let hops: ReadableStream<PipelineEvent> = streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider }));
        for (const view of order) hops = hops.pipeThrough(STREAMS[view]());
        // `chain` takes the chainable stages; CoalesceStream (a timer) is piped.
        let chained: ReadableStream<PipelineEvent> = streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider }));
        let run: Array<TransformStream<PipelineEvent, PipelineEvent>> = [];
        const flush = () => {
          if (run.length > 0) chained = chained.pipeThrough(chain(...(run as [never])) as TransformStream<PipelineEvent, PipelineEvent>);
          run = [];
        };
        for (const view of order) {
          if (view === 'coalesce') {
            flush();
            chained = chained.pipeThrough(STREAMS.coalesce());
          } else run.push(STREAMS[view]());
        }
        flush();
        for (const output of [await readAll(hops), await readAll(chained)]) {
          const views = viewsOf(output);
          for (const view of order) expect(outputOf(view, views), `${recording.file}: ${view} in ${order.join(' → ')}`).toEqual(outputOf(view, expected));
          expect(views.finals).toEqual(expected.finals);
        }
      }
    }
  });

  it('ConversationEventStream and the views after it, as streams', async () => {
    for (const recording of recordings) {
      const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
      const { alone } = aloneOf(providerEvents(recording));
      const out = await readAll(
        streamOf(recordingInput(recording))
          .pipeThrough(new ProviderEventStream({ provider }))
          .pipeThrough(new ConversationEventStream({ progress: true }))
          .pipeThrough(new FieldEventStream())
          .pipeThrough(new PathUpdateStream())
          .pipeThrough(new ArgumentValidationStream({ schema: picky })),
      );
      const views = viewsOf(out);
      for (const view of ['progress', 'fields', 'paths', 'validation'] as const) expect(outputOf(view, views), `${recording.file}: ${view}`).toEqual(alone.get(view));
    }
  });
});
