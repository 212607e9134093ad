/**
 * The store of a binding or of the AI SDK chat transport builds a call's input from raw argument
 * text straight from the scanner (`ScannedInput`, `SCANNED_INPUT`); `TurnStore` builds it from the
 * progress fragments of its builder, and any store from the fragments of a stage before
 * (`readFragments`). The ways must show the same turn: the same provider events make at every
 * point deep-equal snapshots, keep identity in the same places, mark the same paths complete, and
 * fail a call with the same error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TurnBuilder, TurnStore, type JsonLimits, type PipelineEvent, type StreamEvent, type TurnSnapshot } from '../../src/index.ts';
import { SCANNED_INPUT } from '../../src/store/scanned-input.ts';
import { TurnStoreBase } from '../../src/store/turn-store.ts';
import { args, finished, flush, readAll, start, text } from '../helpers.ts';
import { events, RECORDINGS } from './forms.ts';

type Call = TurnSnapshot['calls'][number];

/** Every value of `value` by its JSON Pointer (the root's is `''`). */
function paths(value: unknown, pointer = '', out = new Map<string, unknown>()): Map<string, unknown> {
  out.set(pointer, value);
  if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) paths(member, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

/** What a snapshot shows, as plain data: the calls with their errors by class, code and message. */
function shown(snapshot: TurnSnapshot): unknown {
  return {
    status: snapshot.status,
    text: snapshot.text,
    reasoning: snapshot.reasoning,
    structured: snapshot.structured,
    finishReason: snapshot.finishReason,
    error: snapshot.error === undefined ? undefined : [snapshot.error.name, snapshot.error.message],
    calls: snapshot.calls.map((call) => ({
      ...call,
      complete: call.complete.size,
      error: call.status === 'failed' ? errorOf(call.error) : undefined,
    })),
  };
}

function errorOf(error: Error): unknown {
  const { cause } = error as { cause?: unknown };
  const inner = cause instanceof Error ? [cause.name, cause.message, (cause as { code?: string }).code, (cause as { offset?: number }).offset, (cause as { path?: string }).path] : undefined;
  return [error.name, error.message, (error as { code?: string }).code, inner];
}

/** Which paths of a call are complete, among those of its input and of `extra`. */
function completeOf(call: Call, extra: readonly string[]): string[] {
  const pointers = new Set([...paths(call.input).keys(), ...extra]);
  return [...pointers].filter((pointer) => call.complete.has(pointer)).sort();
}

/**
 * Where a snapshot kept the identity of the one before: the snapshot, its calls, each call's view,
 * input and complete paths, and each object and array of each input found at the same pointer.
 */
function kept(before: TurnSnapshot, after: TurnSnapshot): string[] {
  const out: string[] = [];
  if (after === before) out.push('snapshot');
  if (after.calls === before.calls) out.push('calls');
  after.calls.forEach((call, i) => {
    const old = before.calls[i];
    if (old === undefined) return;
    if (call === old) out.push(`${i}`);
    if (call.input === old.input) out.push(`${i} input`);
    if (call.complete === old.complete) out.push(`${i} complete`);
    const oldPaths = paths(old.input);
    for (const [pointer, value] of paths(call.input)) {
      if (typeof value === 'object' && value !== null && oldPaths.get(pointer) === value) out.push(`${i} ${pointer}`);
    }
  });
  return out;
}

/**
 * `events` given raw to a store that parses raw argument text with `SCANNED_INPUT` (the bindings'
 * and the AI SDK chat transport's stores), raw to `TurnStore` (whose builder makes progress events,
 * read back as fragments: the way every store took before), and as the output of a builder with
 * progress to another `TurnStore` (a stage before's progress); the three compared after each event
 * that `snapshotAt` picks, and after the end.
 */
function compare(input: readonly StreamEvent[], snapshotAt: (i: number) => boolean, limits: JsonLimits = {}, extra: readonly string[] = []): { scanned: TurnSnapshot; fragments: TurnSnapshot } {
  const scanned = new TurnStoreBase({ ...limits, schedule: 'sync' }, {}, SCANNED_INPUT);
  const own = new TurnStore({ ...limits, schedule: 'sync' });
  const relayed = new TurnStore({ ...limits, schedule: 'sync' });
  const progress = new TurnBuilder({ ...limits, progress: true, messages: false, isolateErrors: true });
  const stores = [scanned, own, relayed];
  let before = stores.map((store) => store.getSnapshot());
  let progressed = 0;
  const check = (): void => {
    const after = stores.map((store) => store.getSnapshot());
    const [first, ...others] = after as [TurnSnapshot, ...TurnSnapshot[]];
    for (const [k, other] of others.entries()) {
      expect(shown(first)).toEqual(shown(other));
      expect(first.calls.map((call) => completeOf(call, extra))).toEqual(other.calls.map((call) => completeOf(call, extra)));
      expect(kept(before[0] as TurnSnapshot, first)).toEqual(kept(before[k + 1] as TurnSnapshot, other));
    }
    before = after;
  };
  for (let i = 0; i < input.length; i++) {
    scanned.push(input[i]);
    own.push(input[i]);
    for (const event of progress.push(input[i] as PipelineEvent)) {
      if (event.type === 'tool-call-progress') progressed++;
      relayed.push(event);
    }
    if (snapshotAt(i)) check();
  }
  scanned.end();
  own.end();
  for (const event of progress.end()) relayed.push(event);
  relayed.end();
  check();
  // The fragment path was taken: the comparison is not of one path with itself.
  if (input.some((event) => event.type === 'part' && event.part.type === 'tool-call-arguments' && /[^\s]/.test(event.part.chunk))) expect(progressed).toBeGreaterThan(0);
  return { scanned: scanned.getSnapshot(), fragments: own.getSnapshot() };
}

/** `text` cut at `cuts` (positions taken modulo its length, in order). */
function cut(json: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => (json.length === 0 ? 0 : c % json.length)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const position of at) {
    if (position > from) pieces.push(json.slice(from, position));
    from = Math.max(from, position);
  }
  pieces.push(json.slice(from));
  return pieces.filter((piece) => piece !== '');
}

/** Two calls whose argument texts arrive interleaved, cut at `cuts`, with text between; flushed and finished if `ended`. */
function turnOf(texts: readonly [string, string], cuts: readonly number[], ended = true): StreamEvent[] {
  const [a, b] = [cut(texts[0], cuts), cut(texts[1], cuts.map((c) => c * 7 + 3))];
  const out: StreamEvent[] = [text(0, 'Calling'), start(1, 'c1', 'first'), start(2, 'c2', 'second')];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(args(1, a[i] as string));
    if (i < b.length) out.push(args(2, b[i] as string));
  }
  if (ended) out.push(flush(0), flush(1), flush(2), finished('tool-calls', 'tool_use'));
  return out;
}

/** JSON texts with duplicate keys, `__proto__`, escapes, nesting and every kind of scalar. */
const TRICKY = [
  '{"a":"x","b":1,"a":"yz","c":[1,{"d":null}],"a":{"e":true}}',
  '{"__proto__":{"x":1},"s":"\\u00e9\\ud83d\\ude00\\n","n":-1.5e3,"z":[[],[[]],{}]}',
  '[1,"two",{"three":[3]},[],{"a":{"a":{"a":"deep"}}}]',
  '"a string at the root"',
  '42',
  '{"files":[{"path":"a","content":"xyz"},{"path":"b","content":""}],"files":[{"path":"c"}]}',
  '{}',
  '  {"padded" : [ true , false , null ] }  ',
];

describe('TurnStore: a call built from raw argument text shows what one built from its fragments shows', () => {
  it('`TurnStore` property: every recording, snapshots taken every k events: equal snapshots, the same identities kept, the same complete paths', async () => {
    const withCalls = RECORDINGS.filter((r) => r.toolCalls.length > 0);
    const inputs = await Promise.all(withCalls.map(async (recording) => readAll(events(recording))));
    await fc.assert(
      fc.property(fc.integer({ min: 0, max: inputs.length - 1 }), fc.integer({ min: 1, max: 5 }), (which, every) => {
        compare(inputs[which] as StreamEvent[], (i) => i % every === 0);
      }),
      { numRuns: Math.max(60, inputs.length) },
    );
    // And each recording once with a snapshot after every event.
    for (const input of inputs) compare(input, () => true);
  });

  it('`TurnStore` property: arbitrary JSON and tricky texts (duplicate keys, `__proto__`, escapes, scalars at the root), cut anywhere, two calls interleaved', () => {
    const json = fc.oneof(fc.json({ maxDepth: 4 }), fc.constantFrom(...TRICKY));
    fc.assert(
      fc.property(json, json, fc.array(fc.nat(), { maxLength: 12 }), fc.integer({ min: 1, max: 3 }), (a, b, cuts, every) => {
        compare(turnOf([a, b], cuts), (i) => i % every === 0, {}, ['', '/a', '/a/e', '/c/1/d', '/files/0', '/files/0/path']);
      }),
      { numRuns: 300 },
    );
  });

  it('`TurnStore` property: text that is not JSON, or cut short: the same call failed with the same error, the same partial input', () => {
    const broken = fc.oneof(
      // Cut short: the end of input comes with the call open.
      fc.tuple(fc.constantFrom(...TRICKY), fc.nat()).map(([json, at]) => ({ text: json.slice(0, at % json.length), ended: false })),
      // A character JSON does not allow, anywhere.
      fc.tuple(fc.constantFrom(...TRICKY), fc.nat(), fc.constantFrom('}', ']', ',', ':', 'x', '"', '\\')).map(([json, at, bad]) => ({ text: json.slice(0, at % json.length) + bad + json.slice(at % json.length), ended: true })),
    );
    fc.assert(
      fc.property(broken, fc.array(fc.nat(), { maxLength: 8 }), ({ text: json, ended }, cuts) => {
        const { scanned: raw } = compare(turnOf([json, '{"ok":true}'], cuts, ended), () => true);
        expect(raw.calls[1]?.status).toBe('complete');
      }),
      { numRuns: 300 },
    );
  });

  it('`TurnStore` the limits (maxDepth, maxStringLength, maxLength): the same call failed with the same JsonStreamError (code, offset, path)', () => {
    const cases: Array<{ json: string; limits: JsonLimits; code: string }> = [
      { json: '{"a":[[[[1]]]]}', limits: { maxDepth: 3 }, code: 'max-depth' },
      { json: '{"a":"a long string"}', limits: { maxStringLength: 5 }, code: 'max-string-length' },
      { json: '{"a long key":1}', limits: { maxStringLength: 5 }, code: 'max-string-length' },
      { json: '{"a":"0123456789","b":[1,2,3]}', limits: { maxLength: 12 }, code: 'max-length' },
    ];
    for (const { json, limits, code } of cases) {
      for (const cuts of [[], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], [7], [3, 9]]) {
        const { scanned: raw } = compare(turnOf([json, '{}'], cuts), () => true, limits);
        const call = raw.calls[0];
        expect(call?.status).toBe('failed');
        expect(call?.status === 'failed' && (call.error.cause as { code?: string }).code).toBe(code);
      }
    }
  });
});

describe('TurnStore: the news of a call\'s input from its own builder cannot come from outside', () => {
  it('`TurnStore` an event from outside typed as that news (`scanned-input`, with an `input`) is not taken for it: the turn reads on, the call shows nothing of it', () => {
    for (const store of [new TurnStore({ schedule: 'sync' }), new TurnStoreBase({ schedule: 'sync' }, {}, SCANNED_INPUT)]) {
      const forged = { type: 'scanned-input', index: 0, toolCallId: 'c1', toolName: 'write', providerExecuted: false, input: { log: {}, shown: () => 'forged', complete: true } };
      store.push(start(0, 'c1', 'write'));
      store.push(forged);
      store.push(args(0, '{"a":1}'));
      store.push(flush(0));
      store.end();
      const snapshot = store.getSnapshot();
      expect(snapshot.status).toBe('done');
      expect(snapshot.calls).toHaveLength(1);
      expect(snapshot.calls[0]).toMatchObject({ toolCallId: 'c1', status: 'complete', input: { a: 1 } });
      expect(snapshot.calls[0]?.complete.has('/a')).toBe(true);
    }
  });
});
