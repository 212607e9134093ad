import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FieldEventParser,
  FieldEventStream,
  FragmentAggregator,
  IncrementalJsonParser,
  JsonFragmentStream,
  ToolCallProgressStream,
  type FieldEvent,
  type FieldEventStreamOutput,
  type JsonValue,
  type StreamEvent,
  type StreamFragment,
} from '../../src/index.ts';
import { cutAt, readAll, streamOf } from '../helpers.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { afterUpstreamError } from './upstream-error.ts';
import { cutsFor, jsonText, parseFragments } from '../json/json-helpers.ts';
import { expectedArguments, readableRecordings, recordingEvents, toolSlotsInFlushOrder } from '../providers/event-stream-helpers.ts';

const RUNS = { numRuns: 300 };
const textAndCuts = jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length)));

/** The field events of an output (everything else passed through). */
function fieldEventsOf(events: readonly FieldEventStreamOutput[]): FieldEvent[] {
  return events.filter((e): e is FieldEvent => e.type.startsWith('field-'));
}

/** `start path`, `delta "…"`, `end path`: the events in short. */
function brief(events: readonly FieldEvent[]): string[] {
  return events.map((e) => (e.type === 'field-delta' ? `delta ${JSON.stringify(e.text)}` : `${e.type.slice(6)} ${e.key}`));
}

/**
 * The fields of a run of field events, in order: each field's key and value (its deltas joined,
 * parsed as JSON unless the field was a string). Checks the event protocol on the way: start,
 * deltas of the same key, end; no delta outside a field.
 */
function fieldsOf(events: readonly FieldEvent[]): { fields: Array<[string, JsonValue]>; open: [string, string] | undefined } {
  const fields: Array<[string, JsonValue]> = [];
  let open: [string, string] | undefined;
  for (const event of events) {
    if (event.type === 'field-start') {
      expect(open).toBeUndefined();
      open = [event.key, ''];
    } else {
      expect(open?.[0]).toBe(event.key);
      if (event.type === 'field-delta') {
        expect(event.text).not.toBe('');
        (open as [string, string])[1] += event.text;
      } else {
        const [key, text] = open as [string, string];
        fields.push([key, event.string ? text : (JSON.parse(text) as JsonValue)]);
        open = undefined;
      }
    }
  }
  return { fields, open };
}

/** What `JSON.parse` makes of the document, as fields: an object's members, or `[['', value]]`. */
function expectedFields(value: JsonValue): Array<[string, JsonValue]> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value);
  return [['', value]];
}

/** Fields with duplicate keys resolved as `JSON.parse` does (the last wins), sorted by key. */
function lastWins(fields: ReadonlyArray<[string, JsonValue]>): Array<[string, JsonValue]> {
  const map = new Map<string, JsonValue>();
  for (const [key, value] of fields) map.set(key, value);
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

describe('FieldEventParser (the seed examples: axio ToolArgStream)', () => {
  it('FieldEventParser: feed first chunk, then second chunk; currentKey retains the last completed key', () => {
    const stream = new FieldEventParser();
    const first = stream.push('{"path":"/tmp/f');
    expect(first).toHaveLength(2);
    expect(first[0]).toEqual({ type: 'field-start', key: 'path' });
    expect(first[1]).toEqual({ type: 'field-delta', key: 'path', text: '/tmp/f' });
    const second = stream.push('oo.py"}');
    expect(second[0]).toMatchObject({ type: 'field-delta', text: 'oo.py' });
    expect(second[1]).toEqual({ type: 'field-end', key: 'path', string: true });
    expect(stream.currentKey).toBe('path');
    expect(stream.inField).toBe(false);
  });

  it("FieldEventParser string value: '{\"pat' gives nothing, 'h\":\"/tm' starts the field, 'p/file\"}' ends it", () => {
    const stream = new FieldEventParser();
    expect(stream.push('{"pat')).toEqual([]);
    expect(brief(stream.push('h":"/tm'))).toEqual(['start path', 'delta "/tm"']);
    expect(brief(stream.push('p/file"}'))).toEqual(['delta "p/file"', 'end path']);
    expect(stream.complete).toBe(true);
    expect(stream.end()).toEqual([]);
  });

  it('FieldEventParser object value: raw JSON text, held back only where a nested key is incomplete', () => {
    const stream = new FieldEventParser();
    // The seed emits '{"re' here; a nested key is emitted when it is complete, so only '{' can go.
    expect(brief(stream.push('{"config":{"re'))).toEqual(['start config', 'delta "{"']);
    expect(brief(stream.push('try":3}}'))).toEqual(['delta "\\"retry\\":3}"', 'end config']);
  });

  it('FieldEventParser resolves escapes: Hello\\nWorld', () => {
    const events = new FieldEventParser().push('{"msg":"Hello\\nWorld"}');
    expect(events).toEqual([
      { type: 'field-start', key: 'msg' },
      { type: 'field-delta', key: 'msg', text: 'Hello\nWorld' },
      { type: 'field-end', key: 'msg', string: true },
    ]);
  });

  it('FieldEventParser joins a surrogate pair written as two \\u escapes into one character', () => {
    const events = new FieldEventParser().push('{"emoji":"\\uD83D\\uDE00"}');
    expect(events[1]).toEqual({ type: 'field-delta', key: 'emoji', text: '😀' });
  });

  it('FieldEventParser holds a surrogate pair split across chunks until its second half', () => {
    const stream = new FieldEventParser();
    expect(brief(stream.push('{"emoji":"a\\uD83D'))).toEqual(['start emoji', 'delta "a"']);
    expect(brief(stream.push('\\uDE00"}'))).toEqual(['delta "😀"', 'end emoji']);
  });

  it('FieldEventParser announces a key at its closing quote, before its value begins (text input)', () => {
    const stream = new FieldEventParser();
    expect(brief(stream.push('{"count"'))).toEqual(['start count']);
    expect(stream.currentKey).toBe('count');
    expect(stream.inField).toBe(true);
    expect(brief(stream.push(': 12'))).toEqual([]);
    expect(brief(stream.push('3, "b": [true, {"c": null}]}'))).toEqual(['delta "123"', 'end count', 'start b', 'delta "[true,{\\"c\\":null}]"', 'end b']);
  });

  it('FieldEventParser gives numbers as written, and a duplicate key as a second field', () => {
    const events = new FieldEventParser().push('{"n": 1.50e2, "n": -0}');
    expect(brief(events)).toEqual(['start n', 'delta "1.50e2"', 'end n', 'start n', 'delta "-0"', 'end n']);
  });

  it('FieldEventParser treats a root that is not an object as one field with the empty key', () => {
    expect(brief(new FieldEventParser().push('"hi"'))).toEqual(['start ', 'delta "hi"', 'end ']);
    expect(brief(new FieldEventParser().push('[1, "a"]'))).toEqual(['start ', 'delta "[1,\\"a\\"]"', 'end ']);
    const number = new FieldEventParser();
    expect(brief(number.push('42'))).toEqual([]);
    expect(brief(number.end())).toEqual(['start ', 'delta "42"', 'end ']);
    expect(new FieldEventParser().push('{}')).toEqual([]);
  });

  it('FieldEventParser throws the parser error for invalid text, after the events before it', () => {
    const out: FieldEvent[] = [];
    const stream = new FieldEventParser();
    expect(() => stream.push('{"a":"x", "b": tru}', out)).toThrow(expect.objectContaining({ code: 'invalid-json', offset: 18 }));
    expect(brief(out)).toEqual(['start a', 'delta "x"', 'end a', 'start b']);
  });

  it('FieldEventParser refuses fragments out of order', () => {
    const stream = new FieldEventParser();
    stream.pushFragment({ type: 'start', kind: 'object' });
    expect(() => stream.pushFragment({ type: 'string', text: 'x' })).toThrow(TypeError);
  });
});

describe('FieldEventStream', () => {
  it('FieldEventStream reproduces the seed example from fragments (a key travels with its value)', async () => {
    const events = await readAll(streamOf(['{"pat', 'h":"/tm', 'p/file"}']).pipeThrough(new JsonFragmentStream()).pipeThrough(new FieldEventStream()));
    expect(brief(fieldEventsOf(events))).toEqual(['start path', 'delta "/tm"', 'delta "p/file"', 'end path']);
  });

  describe('FieldEventStream on interleaved calls', () => {
    const part = (index: number, chunk: string): StreamEvent => ({ type: 'part', index, part: { type: 'tool-call-arguments', chunk } });
    const input: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'write_file' } },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'call_2', toolName: 'get_weather' } },
      part(0, '{"path":"a.'),
      part(1, '{"city":"Par'),
      part(0, 'txt"}'),
      { type: 'flush', index: 0 },
      part(1, 'is"}'),
      { type: 'flush', index: 1 },
      { type: 'finished', reason: 'tool-calls' },
    ];
    const a = { index: 0, toolCallId: 'call_1', toolName: 'write_file' };
    const b = { index: 1, toolCallId: 'call_2', toolName: 'get_weather' };
    /** Progress replaced by field events; tool-call-start, the calls' tool-call events (in place of their flushes) and finished passed through. */
    const expected = [
      input[0],
      input[1],
      { type: 'field-start', ...a, key: 'path' },
      { type: 'field-delta', ...a, key: 'path', text: 'a.' },
      { type: 'field-start', ...b, key: 'city' },
      { type: 'field-delta', ...b, key: 'city', text: 'Par' },
      { type: 'field-delta', ...a, key: 'path', text: 'txt' },
      { type: 'field-end', ...a, key: 'path', string: true },
      { type: 'tool-call', ...a, arguments: { path: 'a.txt' } },
      { type: 'field-delta', ...b, key: 'city', text: 'is' },
      { type: 'field-end', ...b, key: 'city', string: true },
      { type: 'tool-call', ...b, arguments: { city: 'Paris' } },
      input[8],
    ];

    it('FieldEventStream replaces progress events with field events carrying the call id, name and index, and passes the rest through', async () => {
      const events = await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()));
      expect(events).toEqual(expected);
    });

    it('FieldEventStream parses raw argument parts itself when no progress stage came before: the same output', async () => {
      const events = await readAll(streamOf(input).pipeThrough(new FieldEventStream()));
      expect(events).toEqual(expected);
    });

    it('FieldEventStream with keepProgress keeps each progress event before the field events it makes', async () => {
      const events = await readAll(streamOf(input).pipeThrough(new FieldEventStream({ keepProgress: true })));
      expect(events.filter((e) => e.type !== 'tool-call-progress')).toEqual(expected);
      // The first chunk of call_1: each fragment, then the field event it makes.
      expect(events.slice(2, 7).map((e) => e.type)).toEqual(['tool-call-progress', 'tool-call-progress', 'field-start', 'tool-call-progress', 'field-delta']);
      expect(events[2]).toEqual({ type: 'tool-call-progress', ...a, fragment: { type: 'start', kind: 'object' } });
    });
  });

  it('FieldEventStream gives structured-output fields with their slot index', async () => {
    const input: StreamEvent[] = [
      { type: 'part', index: 2, part: { type: 'structured', json: '{"title": "Du' } },
      { type: 'part', index: 2, part: { type: 'structured', json: 'ne", "year": 1965}' } },
      { type: 'flush', index: 2 },
    ];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()));
    const fields = fieldEventsOf(events);
    expect(fieldsOf(fields).fields).toEqual([['title', 'Dune'], ['year', 1965]]);
    expect(fields.every((e) => e.index === 2 && e.toolCallId === undefined)).toBe(true);
    // The structured-progress is replaced; the slot's structured event (in place of its flush) passes through last.
    expect(events.filter((e) => !e.type.startsWith('field-'))).toEqual([{ type: 'structured', index: 2, data: { title: 'Dune', year: 1965 } }]);
    expect(events.at(-1)).toEqual({ type: 'structured', index: 2, data: { title: 'Dune', year: 1965 } });
  });

  it('FieldEventStream leaves the last field of a truncated call open and emits nothing at the end', async () => {
    const fragments: StreamFragment[] = [];
    const parser = new IncrementalJsonParser();
    fragments.push(...parser.push('{"a": 1, "content": "hel'));
    const events = await readAll(streamOf(fragments).pipeThrough(new FieldEventStream()));
    expect(fieldsOf(fieldEventsOf(events))).toEqual({ fields: [['a', 1]], open: ['content', 'hel'] });
  });

  it('FieldEventStream passes input it does not own through unchanged, even one that is neither a fragment nor an event', async () => {
    const input = [{ type: 'nonsense' }, { type: 'path-update', kind: 'json-complete', path: '' }] as never[];
    expect(await readAll(streamOf(input).pipeThrough(new FieldEventStream()))).toEqual(input);
  });

  it('FieldEventStream errors with a TypeError for fragments out of order', async () => {
    const reader = streamOf<StreamFragment>([{ type: 'start', kind: 'object' }, { type: 'string', text: 'x' }]).pipeThrough(new FieldEventStream()).getReader();
    await expect(reader.read()).rejects.toThrow(TypeError);
  });

  it('FieldEventStream: the deltas of every field parse to that field of JSON.parse, under every cutting (text input)', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const parser = new FieldEventParser();
        const events: FieldEvent[] = [];
        for (const chunk of cutAt(text, cuts)) parser.push(chunk, events);
        parser.end(events);
        const { fields, open } = fieldsOf(events);
        expect(open).toBeUndefined();
        expect(lastWins(fields)).toEqual(lastWins(expectedFields(JSON.parse(text) as JsonValue)));
      }),
      RUNS,
    );
  });

  it('FieldEventStream: the same from fragments through the stream', async () => {
    await fc.assert(
      fc.asyncProperty(textAndCuts, async ([text, cuts]) => {
        const { fragments } = parseFragments(cutAt(text, cuts));
        const events = await readAll(streamOf(fragments).pipeThrough(new FieldEventStream()));
        const { fields, open } = fieldsOf(fieldEventsOf(events));
        expect(open).toBeUndefined();
        expect(lastWins(fields)).toEqual(lastWins(expectedFields(JSON.parse(text) as JsonValue)));
      }),
      { numRuns: 150 },
    );
  });

  it('FieldEventStream is prompt: after every chunk, an open string field holds all of the string so far', () => {
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const fieldParser = new FieldEventParser();
        const parser = new IncrementalJsonParser();
        const aggregator = new FragmentAggregator();
        const events: FieldEvent[] = [];
        for (const chunk of cutAt(text, cuts)) {
          fieldParser.push(chunk, events);
          for (const fragment of parser.push(chunk)) aggregator.push(fragment);
          const { open } = fieldsOf(events);
          const snapshot = aggregator.snapshot();
          if (open === undefined || snapshot === undefined) continue;
          const [key, soFar] = open;
          const value = key === '' && typeof snapshot !== 'object' ? snapshot : (snapshot as Record<string, JsonValue>)[key];
          if (typeof value === 'string') expect(soFar).toBe(value);
        }
      }),
      RUNS,
    );
  });
});

describe('FieldEventStream on the provider recordings', () => {
  for (const recording of readableRecordings().filter((r) => r.toolCalls.length > 0)) {
    it(`FieldEventStream gives the fields of each call of ${recording.file} as the manifest's arguments`, async () => {
      const [forFields, forSlots] = recordingEvents(recording).pipeThrough(new ToolCallProgressStream()).tee();
      const [output, all] = await Promise.all([readAll(forFields.pipeThrough(new FieldEventStream())), readAll(forSlots)]);
      // Every progress event is replaced; everything else passes through unchanged and in order.
      expect(output.filter((e) => !e.type.startsWith('field-'))).toEqual(all.filter((e) => e.type !== 'tool-call-progress'));
      const events = fieldEventsOf(output);
      const calls = toolSlotsInFlushOrder(all).map((index) => {
        const ofCall = events.filter((e) => e.index === index);
        const { fields, open } = fieldsOf(ofCall);
        // A truncated call: its complete fields, and the text of the open one.
        return open === undefined ? Object.fromEntries(fields) : [Object.fromEntries(fields), open];
      });
      const expected = recording.toolCalls.map((call) =>
        call.remark?.startsWith('NOT valid JSON')
          ? // The manifest's text stops inside a string of the array: the open field holds the
            // array's JSON text (compact) up to there, without the closing '"]'.
            [{ filename: 'taxes.txt' }, ['lines_of_text', JSON.stringify(JSON.parse(call.args + '"]}').lines_of_text).slice(0, -2)]]
          : expectedArguments(call.args),
      );
      expect(calls).toEqual(expected);
    });
  }
});

describe('FieldEventStream when the stage before it fails', () => {
  it('FieldEventStream delivers every field event before an upstream error to a slow reader', async () => {
    const DOC = ['{"a":"xy', 'z","b":[1,2]', ',"c":{"d":true}}'];
    const fragments = await readAll(streamOf(DOC).pipeThrough(new JsonFragmentStream()));
    // Cut after the fragment that opens "b": it ends "a" and starts "b" at once (two events).
    const opensB = fragments.findIndex((f) => f.type === 'entry' && f.key === 'b');
    const { expected, values, error, upstream } = await afterUpstreamError(fragments.slice(0, opensB + 1), () => new FieldEventStream());
    expect(values).toEqual(expected);
    expect(values.slice(-2)).toEqual([{ type: 'field-start', key: 'b' }, { type: 'field-delta', key: 'b', text: '[' }]);
    expect(error).toBe(upstream);
  });
});

describe('FieldEventStream when its reader cancels', () => {
  it('FieldEventStream passes the reader\'s cancel reason up to the source', async () => {
    let cancelled: unknown;
    let sent = 0;
    // An endless tool call: one argument piece per pull.
    const source = new ReadableStream<string>({
      pull(controller) {
        const delta = sent++ === 0 ? { tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":"' } }] } : { tool_calls: [{ index: 0, function: { arguments: 'yy' } }] };
        controller.enqueue(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const reader = source
      .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
      .pipeThrough(new ToolCallProgressStream())
      .pipeThrough(new FieldEventStream())
      .getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    await reader.cancel('user stopped');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cancelled).toBe('user stopped');
  });
});
