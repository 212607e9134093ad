/**
 * `TurnStore` (issue 21 §2): one immutable, structurally shared snapshot of a turn from the output
 * of any stage, for every provider's recordings; the final snapshot against the manifest and
 * `collectTurn`; identity kept wherever nothing changed; typed tools; errors; notifications.
 */
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConversationEventStream,
  EVENT_STREAM_HEADERS,
  EventStreamEncoder,
  NDJSON_HEADERS,
  NdjsonEncoder,
  ProviderEventStream,
  IncompleteToolCallError,
  PathUpdateStream,
  ProviderError,
  ProviderEventDecoder,
  RelayError,
  ToolCallArgumentsError,
  TurnStore,
  collectTurn,
  defineTools,
  type JsonValue,
  type PipelineEvent,
  type StandardSchemaV1,
  type ToolCallError,
  type Turn,
  type TurnError,
  type TurnSnapshot,
} from '../../src/index.ts';
import { pageErrorMessage } from '../../src/relay/error-record.ts';
import { cutAt, readAll, streamOf } from '../helpers.ts';
import type { ManifestRecording } from '../manifest.ts';
import { recordingInput, decoderProvider } from '../providers/event-stream-helpers.ts';
import { ALL_RECORDINGS, events, FORMS, providerOf, RECORDINGS, STAGES } from './forms.ts';

/** The manifest's arguments as a value (`''` is a call without arguments: `{}`); `undefined` if they are not JSON. */
function manifestArgs(args: string): JsonValue | undefined {
  if (args === '') return {};
  try {
    return JSON.parse(args) as JsonValue;
  } catch {
    return undefined;
  }
}

describe('TurnStore: the final snapshot of every recording, from the output of every stage', () => {
  for (const [form, make] of Object.entries(FORMS)) {
    describe(form, () => {
      for (const recording of RECORDINGS) {
        it(`\`TurnStore\` ends ${recording.file} done, with the manifest's calls complete with their exact arguments`, async () => {
          const snapshot = await new TurnStore({ schedule: 'sync' }).consume(make(recording));
          expect(snapshot.status).toBe('done');
          expect(snapshot.error).toBeUndefined();
          const own = snapshot.calls.filter((call) => !call.providerExecuted);
          // A call the manifest lists with arguments that never became JSON (cut by max_tokens) is failed.
          expect(own.map((call) => [call.toolName, call.status, call.status === 'complete' ? call.input : undefined])).toEqual(
            recording.toolCalls.map((call) => {
              const args = manifestArgs(call.args);
              return [call.name, args === undefined ? 'failed' : 'complete', args];
            }),
          );
          expect(snapshot.calls.filter((call) => call.providerExecuted).map((call) => call.toolName)).toEqual(recording.providerToolCalls.map((call) => call.name));
          for (const call of own) expect(call.complete.has('')).toBe(call.status === 'complete');
        });
      }
    });
  }
});

/** Whether a recording is a structured-output response (read with `structuredOutput`). */
function isStructured(recording: ManifestRecording): boolean {
  return recording.file.includes('structured-output');
}

/** A chunk of the input cut at `cuts` (positions taken modulo its length); SDK objects as they are. */
function cutInput(recording: ManifestRecording, cuts: readonly number[]): Array<Uint8Array | object> {
  const input = recordingInput(recording);
  const bytes = input[0];
  if (input.length !== 1 || !(bytes instanceof Uint8Array)) return input;
  return cutAt(bytes, [...cuts].map((cut) => cut % bytes.length).sort((a, b) => a - b));
}

/** A stream of `bytes` cut at `cuts` (positions modulo its length). */
function cutStream(bytes: Uint8Array, cuts: readonly number[]): ReadableStream<Uint8Array> {
  return streamOf(cutAt(bytes, [...cuts].map((cut) => cut % Math.max(bytes.length, 1)).sort((a, b) => a - b)));
}

async function bytesOfStream(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks = await readAll(stream);
  const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The ways into a store: a stream to consume, a pipe into its writable, a relay's `Response`, a provider's. */
const WAYS = ['consume a stream', 'pipeTo the writable', 'consume an SSE relay response', 'consume an NDJSON relay response', "consume the provider's response"] as const;

/** Whether the store reads a page's copy of the turn (a relay's): its errors are then page records. The provider's response is read by its own decoder, whatever the stage. */
function throughPage(stage: string, way: (typeof WAYS)[number]): boolean {
  return way.includes('relay') || (stage.includes('relay') && way !== "consume the provider's response");
}

/** The final snapshot of a recording cut at `cuts`, through `stage`, into a store by `way`. */
async function storeTurn(recording: ManifestRecording, stage: string, way: (typeof WAYS)[number], cuts: readonly number[], relayCuts: readonly number[]): Promise<TurnSnapshot> {
  const provider = providerOf(recording);
  const structuredOutput = isStructured(recording);
  const input = cutInput(recording, cuts);
  const staged = (): ReadableStream<unknown> => STAGES[stage]!(streamOf(input).pipeThrough(new ProviderEventStream({ provider, structuredOutput })));
  const store = new TurnStore({ schedule: 'task' });
  switch (way) {
    case 'consume a stream':
      return store.consume(staged());
    case 'pipeTo the writable':
      await staged()
        .pipeTo(store.writable)
        .catch(() => undefined);
      return store.getSnapshot();
    case 'consume an SSE relay response':
    case 'consume an NDJSON relay response': {
      const sse = way === 'consume an SSE relay response';
      const encoder = (sse ? new EventStreamEncoder() : new NdjsonEncoder()) as unknown as TransformStream<unknown, Uint8Array>;
      const body = await bytesOfStream(staged().pipeThrough(encoder));
      const headers = sse ? EVENT_STREAM_HEADERS : NDJSON_HEADERS;
      return store.consume(new Response(cutStream(body, relayCuts), { headers }));
    }
    case "consume the provider's response":
      if (!input.every((chunk) => chunk instanceof Uint8Array)) return store.consume(staged());
      return store.consume(new Response(streamOf(input as Uint8Array[])), { decoder: new ProviderEventDecoder({ provider: decoderProvider(provider), structuredOutput }) });
  }
}

/** The final snapshot says all that `collectTurn`'s turn says. */
function expectSameTurn(snapshot: TurnSnapshot, turn: Turn): void {
  expect(snapshot.status).toBe('done');
  expect(snapshot.error).toBeUndefined();
  expect(snapshot.text).toBe(turn.text);
  expect(snapshot.reasoning).toBe(turn.reasoning);
  expect(snapshot.refusal).toBe(turn.refusal);
  expect(snapshot.structured).toEqual(turn.structured);
  expect(snapshot.finishReason).toBe(turn.finishReason);
  expect(snapshot.rawFinishReason).toBe(turn.rawFinishReason);
  expect(snapshot.usage).toEqual(turn.usage);
  expect(snapshot.warnings).toEqual(turn.warnings);
  const own = snapshot.calls.filter((call) => !call.providerExecuted);
  expect(own.filter((call) => call.status === 'complete').map((call) => [call.toolCallId, call.toolName, call.input])).toEqual(
    turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments]),
  );
  const failed = own.filter((call) => call.status === 'failed') as Array<(typeof own)[number] & { error: Error }>;
  expect(failed.filter((call) => call.error instanceof IncompleteToolCallError).map((call) => [call.toolCallId, call.toolName, call.input, (call.error as IncompleteToolCallError).stopReason])).toEqual(
    turn.incompleteToolCalls.map((call) => [call.toolCallId, call.toolName, call.partialArguments ?? {}, call.stopReason]),
  );
  expect(failed.filter((call) => !(call.error instanceof IncompleteToolCallError)).map((call) => [call.toolCallId, call.toolName, call.error.constructor, (call.error as { code?: unknown }).code])).toEqual(
    turn.failedToolCalls.map((call) => [call.toolCallId, call.toolName, call.error.constructor, (call.error as { code?: unknown }).code]),
  );
  expect(own.every((call) => call.status === 'complete' || call.status === 'failed')).toBe(true);
  expect(
    snapshot.calls
      .filter((call) => call.providerExecuted)
      .map((call) => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        arguments: call.input,
        ...(call.status === 'failed' ? { incomplete: true } : {}),
        ...('result' in call ? { result: call.result } : {}),
        ...(call.isError === true ? { isError: true } : {}),
      })),
  ).toEqual(turn.providerToolCalls);
}

describe('TurnStore: the final snapshot is collectTurn\'s turn', () => {
  it("`TurnStore` property: for every recording (errors included), cut anywhere, through any stage and any way in, the final snapshot holds collectTurn's turn, or its rejection", async () => {
    const oracle = new Map<ManifestRecording, Promise<{ turn: Turn } | { error: Error }>>();
    const collect = (recording: ManifestRecording) =>
      collectTurn(streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider: providerOf(recording), structuredOutput: isStructured(recording) })), {
        isolateErrors: true,
      }).then(
        (turn) => ({ turn }),
        (error: unknown) => ({ error: error as Error }),
      );
    const cuts = fc.array(fc.nat(), { maxLength: 24 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ALL_RECORDINGS), fc.constantFrom(...Object.keys(STAGES)), fc.constantFrom(...WAYS), cuts, cuts, async (recording, stage, way, at, relayAt) => {
        if (!oracle.has(recording)) oracle.set(recording, collect(recording));
        const expected = await oracle.get(recording)!;
        const snapshot = await storeTurn(recording, stage, way, at, relayAt);
        if ('turn' in expected) {
          expectSameTurn(snapshot, expected.turn);
          return;
        }
        expect(snapshot.status).toBe('error');
        expect(snapshot.error?.constructor).toBe(expected.error.constructor);
        expect((snapshot.error as { code?: unknown }).code).toBe((expected.error as { code?: unknown }).code);
        // Through a relay, the page reads the message argstream writes for it (nothing of the provider's own text).
        expect(snapshot.error?.message).toBe(throughPage(stage, way) ? pageErrorMessage(expected.error) : expected.error.message);
      }),
      { numRuns: 400 },
    );
  });

  it('`TurnStore` property: every recording with an error in its stream, through every stage and way in, ends in that error', async () => {
    for (const recording of ALL_RECORDINGS.filter((r) => r.errors !== undefined)) {
      let expected: unknown;
      await collectTurn(events(recording), { isolateErrors: true }).catch((error: unknown) => (expected = error));
      expect(expected, recording.file).toBeInstanceOf(ProviderError);
      for (const stage of Object.keys(STAGES)) {
        for (const way of WAYS) {
          const snapshot = await storeTurn(recording, stage, way, [], []);
          expect(snapshot.status, `${recording.file} ${stage} ${way}`).toBe('error');
          expect(snapshot.error, `${recording.file} ${stage} ${way}`).toBeInstanceOf(ProviderError);
          expect((snapshot.error as ProviderError).code).toBe((expected as ProviderError).code);
          expect(snapshot.error?.message, `${recording.file} ${stage} ${way}`).toBe(throughPage(stage, way) ? pageErrorMessage(expected) : (expected as ProviderError).message);
        }
      }
    }
  });

  it("`TurnStore` holds a provider-run call's result and isError as collectTurn's turn does", async () => {
    const input: PipelineEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 's1', toolName: 'web_search', providerExecuted: true } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"query":"x"}' } },
      { type: 'flush', index: 0 },
      { type: 'provider-tool-result', index: 1, toolCallId: 's1', toolName: 'web_search', result: { error_code: 'unavailable' }, isError: true },
      { type: 'finished', reason: 'stop', rawReason: 'end_turn' },
    ];
    const snapshot = await new TurnStore().consume(streamOf(input));
    const turn = await collectTurn(streamOf(input));
    expect(turn.providerToolCalls).toEqual([{ toolCallId: 's1', toolName: 'web_search', arguments: { query: 'x' }, result: { error_code: 'unavailable' }, isError: true }]);
    expectSameTurn(snapshot, turn);
    expect(snapshot.calls[0]).toMatchObject({ providerExecuted: true, result: { error_code: 'unavailable' }, isError: true });
  });
});

/** Every path of `value` (JSON Pointer) with the value there. */
function paths(value: unknown, pointer = '', out = new Map<string, unknown>()): Map<string, unknown> {
  out.set(pointer, value);
  if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) paths(member, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

describe('TurnStore: snapshots are immutable and structurally shared', () => {
  it('property: between any two snapshots, whatever is unchanged keeps its identity, and no snapshot changes afterwards (any recording, any stage, any cut)', async () => {
    const withCalls = RECORDINGS.filter((r) => r.toolCalls.length > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...withCalls),
        fc.constantFrom('provider events', 'path updates (keepProgress: false)', 'conversation events with progress'),
        fc.integer({ min: 1, max: 7 }),
        async (recording, form, every) => {
          const input = await readAll(FORMS[form]!(recording));
          const store = new TurnStore({ schedule: 'sync' });
          const taken: Array<{ snapshot: TurnSnapshot; json: string }> = [];
          let previous = store.getSnapshot();
          for (let i = 0; i < input.length; i++) {
            store.push(input[i]);
            if (i % every !== 0 && i !== input.length - 1) continue;
            const snapshot = store.getSnapshot();
            expect(store.getSnapshot()).toBe(snapshot); // the same object until something changes
            if (snapshot.calls === previous.calls) expect(JSON.stringify(snapshot.calls)).toBe(JSON.stringify(previous.calls));
            for (const call of snapshot.calls) {
              const before = previous.calls.find((c) => c.toolCallId === call.toolCallId && c.index === call.index);
              if (before === undefined) continue;
              if (JSON.stringify(before) === JSON.stringify(call) && before.complete.size === call.complete.size) expect(call).toBe(before);
              const old = paths(before.input);
              for (const [pointer, value] of paths(call.input)) {
                if (typeof value !== 'object' || value === null || !old.has(pointer)) continue;
                if (JSON.stringify(old.get(pointer)) === JSON.stringify(value)) expect(value, pointer).toBe(old.get(pointer));
              }
            }
            taken.push({ snapshot, json: JSON.stringify(snapshot) });
            previous = snapshot;
          }
          store.end();
          for (const { snapshot, json } of taken) expect(JSON.stringify(snapshot)).toBe(json);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a change under /files/2/content makes new objects only along that path', () => {
    const store = new TurnStore({ schedule: 'sync' });
    const progress = (fragment: object): PipelineEvent => ({ type: 'tool-call-progress', index: 0, toolCallId: 'c1', toolName: 'write_files', fragment }) as PipelineEvent;
    const item = (index: number, value: object) => ({ type: 'entry', key: 'files', value: { type: 'item', index, value } });
    store.push({ type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'c2', toolName: 'other' } });
    store.push({ type: 'tool-call-progress', index: 1, toolCallId: 'c2', toolName: 'other', fragment: { type: 'start', kind: 'object' } });
    store.push(progress({ type: 'start', kind: 'object' }));
    store.push(progress({ type: 'entry', key: 'files', value: { type: 'start', kind: 'array' } }));
    for (let i = 0; i < 3; i++) {
      store.push(progress(item(i, { type: 'start', kind: 'object' })));
      store.push(progress(item(i, { type: 'entry', key: 'path', value: { type: 'start', kind: 'string' } })));
      store.push(progress(item(i, { type: 'entry', key: 'path', value: { type: 'string', text: `f${i}` } })));
      store.push(progress(item(i, { type: 'entry', key: 'path', value: { type: 'done' } })));
      store.push(progress(item(i, { type: 'entry', key: 'content', value: { type: 'start', kind: 'string' } })));
      store.push(progress(item(i, { type: 'entry', key: 'content', value: { type: 'string', text: 'x' } })));
      if (i < 2) {
        store.push(progress(item(i, { type: 'entry', key: 'content', value: { type: 'done' } })));
        store.push(progress(item(i, { type: 'done' })));
      }
    }
    const before = store.getSnapshot();
    store.push(progress(item(2, { type: 'entry', key: 'content', value: { type: 'string', text: 'yz' } })));
    const after = store.getSnapshot();
    type Files = { files: Array<{ path: string; content: string }> };
    const [a, b] = [before.calls.find((c) => c.toolCallId === 'c1')!, after.calls.find((c) => c.toolCallId === 'c1')!];
    const [x, y] = [a.input as Files, b.input as Files];
    expect(after).not.toBe(before);
    expect(after.calls).not.toBe(before.calls);
    expect(b).not.toBe(a);
    expect(y).not.toBe(x);
    expect(y.files).not.toBe(x.files);
    expect(y.files[2]).not.toBe(x.files[2]);
    expect(y.files[2]!.content).toBe('xyz');
    expect(y.files[0]).toBe(x.files[0]);
    expect(y.files[1]).toBe(x.files[1]);
    expect(after.calls.find((c) => c.toolCallId === 'c2')).toBe(before.calls.find((c) => c.toolCallId === 'c2'));
    expect(b.complete.has('/files/1/content')).toBe(true);
    expect(b.complete.has('/files/2/path')).toBe(true);
    expect(b.complete.has('/files/2/content')).toBe(false);
    expect(b.complete.has('/files')).toBe(false);
  });

  it('getSnapshot returns the same object while nothing changes, and a new one after a change', () => {
    const store = new TurnStore({ schedule: 'sync' });
    const first = store.getSnapshot();
    expect(store.getSnapshot()).toBe(first);
    expect(first.status).toBe('waiting');
    store.push({ type: 'part', index: 0, part: { type: 'message', text: 'Hi' } });
    const second = store.getSnapshot();
    expect(second).not.toBe(first);
    expect(second.text).toBe('Hi');
    expect(store.getSnapshot()).toBe(second);
    expect(Object.isFrozen(second)).toBe(true);
  });
});

/** A schema by hand: what every Standard Schema library gives. */
function schemaOf<T>(check: (value: unknown) => T | string): StandardSchemaV1<T, T> {
  return {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate(value) {
        const result = check(value);
        return typeof result === 'string' ? { issues: [{ message: result, path: ['path'] }] } : { value: result };
      },
    },
  };
}

describe('TurnStore: complete paths under a duplicate key', () => {
  /** The store after each argument chunk of one call: its input and which of `pointers` are complete. */
  function follow(chunks: readonly string[], pointers: readonly string[]) {
    const store = new TurnStore({ schedule: 'sync' });
    store.push({ type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c1', toolName: 'edit' } });
    const seen: Array<{ input: unknown; complete: string[]; size: number; call: TurnSnapshot['calls'][number] }> = [];
    for (const chunk of chunks) {
      store.push({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk } });
      const call = store.getSnapshot().calls[0]!;
      seen.push({ input: call.input, complete: pointers.filter((p) => call.complete.has(p)), size: call.complete.size, call });
    }
    return seen;
  }

  it('`TurnStore` a path completed again under a duplicate key stays complete, and is not complete while the new value streams', () => {
    const seen = follow(['{"a":"x","b":1,', '"a":"y', 'z"', ',"c":"w"', '}'], ['', '/a', '/b', '/c']);
    expect(seen.map(({ input, complete, size }) => ({ input, complete, size }))).toEqual([
      { input: { a: 'x', b: 1 }, complete: ['/a', '/b'], size: 2 },
      // JSON.parse keeps the last value of a key: the new one streams where the old one was.
      { input: { a: 'y', b: 1 }, complete: ['/b'], size: 1 },
      { input: { a: 'yz', b: 1 }, complete: ['/a', '/b'], size: 2 },
      { input: { a: 'yz', b: 1, c: 'w' }, complete: ['/a', '/b', '/c'], size: 3 },
      { input: { a: 'yz', b: 1, c: 'w' }, complete: ['', '/a', '/b', '/c'], size: 4 },
    ]);
    // A snapshot keeps what it said.
    expect(seen.map(({ call }) => ['', '/a', '/b', '/c'].filter((p) => call.complete.has(p)))).toEqual(seen.map(({ complete }) => complete));
  });

  it("`TurnStore` a duplicate key replacing an object: the old value's members are no longer complete paths", () => {
    const seen = follow(['{"a":{"x":1},"a":{', '"y":2}', '}'], ['/a', '/a/x', '/a/y', '']);
    expect(seen.map(({ input, complete }) => ({ input, complete }))).toEqual([
      { input: { a: {} }, complete: [] },
      { input: { a: { y: 2 } }, complete: ['/a', '/a/y'] },
      { input: { a: { y: 2 } }, complete: ['/a', '/a/y', ''] },
    ]);
  });
});

describe('TurnStore with tools', () => {
  const input = (args: string, name = 'write_file'): PipelineEvent[] => [
    { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: name } },
    { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: args.slice(0, 9) } },
    { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: args.slice(9) } },
    { type: 'flush', index: 0 },
    { type: 'finished', reason: 'tool-calls' },
  ];
  const tools = defineTools({
    write_file: schemaOf((value) => {
      const v = value as { path?: unknown };
      return typeof v.path === 'string' && v.path.startsWith('/') ? { ...(value as object), checked: true } : 'path must be absolute';
    }),
  });

  it("a complete call's input is the schema's validated output", async () => {
    const snapshot = await new TurnStore({ tools }).consume(streamOf(input('{"path":"/a.txt","content":"hi"}')));
    expect(snapshot.calls[0]).toMatchObject({ status: 'complete', toolName: 'write_file', input: { path: '/a.txt', content: 'hi', checked: true } });
  });

  it("an invalid call is 'invalid' with the schema's issues and what the model sent, not a thrown error", async () => {
    const snapshot = await new TurnStore({ tools }).consume(streamOf(input('{"path":"a.txt","content":"hi"}')));
    expect(snapshot.status).toBe('done');
    expect(snapshot.calls[0]).toMatchObject({ status: 'invalid', input: { path: 'a.txt', content: 'hi' }, issues: [{ message: 'path must be absolute', path: ['path'] }] });
  });

  it('a call of another tool is kept, untyped and unvalidated', async () => {
    const snapshot = await new TurnStore({ tools }).consume(streamOf(input('{"path":"a.txt","content":"hi"}', 'search')));
    expect(snapshot.calls[0]).toMatchObject({ status: 'complete', toolName: 'search', input: { path: 'a.txt', content: 'hi' } });
  });

  it('an asynchronous schema: the call completes once it answers, in order, before the end is told', async () => {
    const slow: StandardSchemaV1<unknown> = {
      '~standard': { version: 1, vendor: 'test', validate: (value) => new Promise((resolve) => setTimeout(() => resolve({ value: { wrapped: value } }), 5)) },
    };
    const snapshot = await new TurnStore({ tools: defineTools({ write_file: slow }) }).consume(streamOf(input('{"path":"/a","content":""}')));
    expect(snapshot.status).toBe('done');
    expect(snapshot.calls[0]).toMatchObject({ status: 'complete', input: { wrapped: { path: '/a', content: '' } } });
  });

  it('a call whose arguments are not JSON is failed with a ToolCallArgumentsError; the rest of the turn goes on', async () => {
    const snapshot = await new TurnStore({ tools }).consume(
      streamOf<PipelineEvent>([...input('{"path":"/a",,}').slice(0, 4), { type: 'part', index: 1, part: { type: 'message', text: 'after' } }, { type: 'flush', index: 1 }]),
    );
    expect(snapshot.status).toBe('done');
    expect(snapshot.text).toBe('after');
    expect(snapshot.calls[0]?.status).toBe('failed');
    expect((snapshot.calls[0] as { error: Error }).error.name).toBe('ToolCallArgumentsError');
    expect(snapshot.calls[0]?.input).toEqual({ path: '/a' });
  });

  it('a call cut by the end of the stream is failed with an IncompleteToolCallError and keeps its partial input', async () => {
    const snapshot = await new TurnStore({ tools }).consume(streamOf(input('{"path":"/a","content":"hel').slice(0, 3)));
    expect(snapshot.calls[0]?.status).toBe('failed');
    expect((snapshot.calls[0] as { error: Error }).error).toBeInstanceOf(IncompleteToolCallError);
    expect(snapshot.calls[0]?.input).toEqual({ path: '/a', content: 'hel' });
    expect(snapshot.calls[0]?.complete.has('/path')).toBe(true);
    expect(snapshot.calls[0]?.complete.has('/content')).toBe(false);
  });

  it('defineTools refuses what is not a Standard Schema', () => {
    expect(() => defineTools({ x: {} as StandardSchemaV1 })).toThrow(TypeError);
  });
});

describe('TurnStore: errors land in the snapshot', () => {
  it('a provider error mid-stream: status error, the ProviderError, the call failed, the text kept', async () => {
    const sse =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","role":"assistant","content":[]}}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Writing"}}\n\n' +
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"write_file","input":{}}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\":\\"/a\\",\\"content\\":\\"x"}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const store = new TurnStore();
    const snapshot = await store.consume(new Response(sse, { headers: { 'content-type': 'text/event-stream' } }), { decoder: new ProviderEventDecoder({ provider: 'anthropic' }) });
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(ProviderError);
    expect(snapshot.text).toBe('Writing');
    expect(snapshot.calls[0]).toMatchObject({ status: 'failed', toolName: 'write_file', input: { path: '/a', content: 'x' } });
    expect((snapshot.calls[0] as { error: Error }).error).toBe(snapshot.error);
    expect(await store.finished).toBe(snapshot);
  });

  it('a relay cut before its end: status error with a RelayError, nothing arrived is lost', async () => {
    const body = events(RECORDINGS.find((r) => r.toolCalls.length > 0 && r.dir === 'anthropic')!)
      .pipeThrough(new PathUpdateStream({ keepProgress: false }))
      .pipeThrough(new EventStreamEncoder() as unknown as TransformStream<PipelineEvent, Uint8Array>);
    const bytes = new Uint8Array((await readAll(body)).flatMap((chunk) => [...chunk]));
    const text = new TextDecoder().decode(bytes);
    const cut = text.slice(0, text.lastIndexOf('event: end'));
    const snapshot = await new TurnStore().consume(new Response(cut, { headers: { 'content-type': 'text/event-stream' } }));
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(RelayError);
    expect(snapshot.calls.length).toBeGreaterThan(0);
  });

  it('a relay answering 500: status error with a RelayError', async () => {
    const snapshot = await new TurnStore().consume(new Response('oops', { status: 500 }));
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(RelayError);
  });

  it('a signal stops the read: the source is cancelled, the turn ends in error with the reason', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<PipelineEvent>({
      start(controller) {
        controller.enqueue({ type: 'part', index: 0, part: { type: 'message', text: 'a' } });
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const controller = new AbortController();
    const store = new TurnStore({ schedule: 'sync' });
    const done = store.consume(source, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('unmounted'));
    const snapshot = await done;
    expect(snapshot.status).toBe('error');
    expect(snapshot.error?.message).toBe('unmounted');
    expect(snapshot.text).toBe('a');
    expect((cancelled as Error).message).toBe('unmounted');
  });
});

describe('TurnStore: the error is a TurnError', () => {
  it('`TurnSnapshot.error` is typed as the union of what can land there, told apart with instanceof', () => {
    function show(snapshot: TurnSnapshot): string {
      expectTypeOf(snapshot.error).toEqualTypeOf<TurnError | undefined>();
      const error = snapshot.error;
      if (error instanceof ProviderError) return `${error.provider} ${error.type} ${error.code ?? ''} ${error.status ?? ''}`;
      if (error instanceof RelayError) return `relay ${error.code} ${error.lastEventId ?? ''}`;
      if (error instanceof ToolCallArgumentsError) return `arguments ${error.code}`;
      if (error instanceof DOMException) return error.name;
      return error?.message ?? '';
    }
    function why(call: TurnSnapshot['calls'][number]): string {
      if (call.status !== 'failed') return '';
      expectTypeOf(call.error).toEqualTypeOf<ToolCallError>();
      return call.error instanceof IncompleteToolCallError ? `cut ${call.error.stopReason ?? ''}` : call.error.message;
    }
    void show;
    void why;
  });

  it('`TurnStore` a stage that errors its stream on invalid arguments: the ToolCallArgumentsError, in the snapshot and on the call', async () => {
    const input: PipelineEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c1', toolName: 'write_file' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"path":"/a",,' } },
      { type: 'flush', index: 0 },
    ];
    const snapshot = await new TurnStore().consume(streamOf(input).pipeThrough(new ConversationEventStream({ progress: true })));
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(ToolCallArgumentsError);
    expect((snapshot.error as ToolCallArgumentsError).code).toBe('invalid-json');
    expect(snapshot.calls[0]).toMatchObject({ status: 'failed', input: { path: '/a' } });
    expect((snapshot.calls[0] as { error: unknown }).error).toBe(snapshot.error);
  });

  it('`TurnStore` a signal aborted without a reason: a DOMException AbortError', async () => {
    const controller = new AbortController();
    const done = new TurnStore().consume(new ReadableStream(), { signal: controller.signal });
    controller.abort();
    const snapshot = await done;
    expect(snapshot.error).toBeInstanceOf(DOMException);
    expect(snapshot.error?.name).toBe('AbortError');
  });

  it('`TurnStore` a Response whose body was read already: a TypeError that says so', async () => {
    const response = new Response('x');
    await response.text();
    const snapshot = await new TurnStore().consume(response);
    expect(snapshot.error).toBeInstanceOf(TypeError);
    expect(snapshot.error?.message).toMatch(/already read/);
  });
});

describe('TurnStore: notifications', () => {
  it("'task': many events in one macrotask make one notification; the end is told at once, once", async () => {
    const store = new TurnStore({ schedule: 'task' });
    let told = 0;
    store.subscribe(() => told++);
    for (let i = 0; i < 100; i++) store.push({ type: 'part', index: 0, part: { type: 'message', text: 'x' } });
    expect(told).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(told).toBe(1);
    store.push({ type: 'part', index: 0, part: { type: 'message', text: 'y' } });
    store.end();
    expect(told).toBe(2);
    expect(store.getSnapshot().status).toBe('done');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(told).toBe(2);
  });

  it("'frame' uses requestAnimationFrame where there is one", async () => {
    const frames: Array<() => void> = [];
    const global = globalThis as { requestAnimationFrame?: (callback: () => void) => number };
    global.requestAnimationFrame = (callback) => frames.push(callback);
    try {
      const store = new TurnStore();
      let told = 0;
      store.subscribe(() => told++);
      store.push({ type: 'part', index: 0, part: { type: 'message', text: 'x' } });
      store.push({ type: 'part', index: 0, part: { type: 'message', text: 'y' } });
      expect(frames).toHaveLength(1);
      frames[0]!();
      expect(told).toBe(1);
      expect(store.getSnapshot().text).toBe('xy');
    } finally {
      delete global.requestAnimationFrame;
    }
  });

  it('a function schedule is given each batch, and an unsubscribed listener is not told', () => {
    const batches: Array<() => void> = [];
    const store = new TurnStore({ schedule: (notify) => batches.push(notify) });
    let told = 0;
    const unsubscribe = store.subscribe(() => told++);
    store.push({ type: 'part', index: 0, part: { type: 'message', text: 'x' } });
    store.push({ type: 'part', index: 0, part: { type: 'message', text: 'y' } });
    expect(batches).toHaveLength(1);
    batches[0]!();
    expect(told).toBe(1);
    unsubscribe();
    store.end();
    expect(told).toBe(1);
  });
});
